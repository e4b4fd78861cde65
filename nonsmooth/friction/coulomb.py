"""Set-valued Coulomb friction: slip with ``mu`` (dynamic), stick with ``|F_T| <= mu_s N``.

The engine handles it event by event (modes slip+, slip-, stick; ``docs/method.md`` sections
4.1, 7 and 8): while slipping in direction ``s``, ``a = mu s`` and ``b = 0``. Parameters and ranges:
:data:`~nonsmooth.friction.schema.COULOMB_SCHEMA`.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import FrictionLaw
from .schema import COULOMB_SCHEMA, check_static_dynamic

__all__ = ["Coulomb"]

_S = COULOMB_SCHEMA


class Coulomb(FrictionLaw):
    """Coulomb friction with a static coefficient ``mu_s >= mu_d`` (Pfeiffer & Glocker 1996).

    Parameters
    ----------
    mu_d : float
        Dynamic (sliding) coefficient (-), in [0, 10].
    mu_s : float or None
        Static coefficient (-), in [0, 10] and >= ``mu_d``; None: equal to ``mu_d``.
    """

    name = "coulomb"
    smooth = False
    schema = COULOMB_SCHEMA

    def __init__(self, mu_d: float = _S["mu_d"].default, mu_s: float | None = _S["mu_s"].default):
        self.mu_d = _S.validate("mu_d", mu_d)
        self.mu_s = self.mu_d if mu_s is None else _S.validate("mu_s", mu_s)
        check_static_dynamic(_S.where, self.mu_s, self.mu_d)

    @classmethod
    def from_pair(cls, mu_d: float, mu_s: float | None, params: Mapping) -> Coulomb:
        """The pair's coefficients under ``params["effect"]`` (``schema.apply_effect``)."""
        from .schema import apply_effect

        return cls(*apply_effect(mu_d, mu_s, params))

    def pack(self) -> tuple[int, tuple[float, ...]]:
        """The compiled stage's kind ``COULOMB`` (0); ``mu`` and ``mu_s`` are the pair's, in
        the plan's own blocks."""
        return 0, ()

    def coefficients(self, v_T, z=()):
        """Sliding coefficients ``(mu_d sgn(v_T), 0)`` at velocity ``v_T`` (the
        :class:`FrictionLaw` contract, e.g. for :meth:`force`). The engine does not call it:
        a Coulomb pair's coefficient is ``mu_d`` times its mode, fixed between events."""
        return (self.mu_d if v_T > 0 else -self.mu_d if v_T < 0 else 0.0), 0.0
