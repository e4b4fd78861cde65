"""The generalized family: a system given by its functions of ``(t, q, v)``
(:class:`~nonsmooth.system.GeneralizedSystem`), optionally with compiled terms
(:class:`CompiledTerms`) from which a kernel module is written and compiled
(``generated``); ``family`` gives its compiled entry points."""

from .generated import CompiledTerms

__all__ = ["CompiledTerms"]
