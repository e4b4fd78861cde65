"""The contract every friction law meets (``docs/method.md`` section 4).

Every law gives the friction force of a pair as linear in the normal-force magnitude::

    F_T = -a(v_T, z) N - b(v_T, z)            N = |lambda_N|

so the normal forces stay one (H)LCP per evaluation whatever the law.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from .schema import LawSchema

__all__ = ["FrictionLaw"]


class FrictionLaw:
    """Base class of the friction laws.

    Obligations of a subclass:

    1. ``name`` (the registry key) and ``smooth``: False for the set-valued Coulomb law (which
       needs modes and events), True for laws whose force is a function of the state.
    2. ``n_states``: internal states of a scalar pair (LuGre's bristle deflection: 1; the
       bristle law's deflection and dwell state: 2), of which ``n_scalar_states`` stay one
       number on a pair of any dimension (the dwell state) while the others take the slip's
       dimension d: :meth:`state_size` ``(d)`` states per pair, the one rule the state layout
       follows (``Dynamics.z_slices``, ``System.layout``).
    3. :meth:`coefficients` ``(v_T, z) -> (a, b)`` in plain floats: the hot path.
    4. :meth:`state_derivative` ``(v_T, z) -> tuple`` (``n_states`` values) and
       :meth:`initial_state` ``(v_T) -> tuple`` when ``n_states > 0``.
    5. ``schema``: the law's :class:`~nonsmooth.friction.schema.LawSchema`; the constructor's
       defaults are the schema's, ``__init__`` validates every argument against it
       (``ModelError`` naming the parameter, the value, the range with its unit and what to
       try) and stores it under its schema name; :meth:`warnings` lists parameter sets that
       are legal but questionable.
    6. :meth:`from_pair` builds the law from a pair's coefficients and description.
    7. :meth:`pack` gives the law's numbers for the compiled stage: its kind code
       (``core.stage``'s ``COULOMB``, ``LUGRE``, ``REGULARIZED``, ``BRISTLE``: the branch of
       ``core.stage._smooth_law`` / ``_vector_law`` that evaluates it) and at most
       ``core.layout.N_LAW`` parameters. Default None: no compiled form, the Python general
       path evaluates the law; only a class that defines ``pack`` itself is compiled (a
       subclass that inherits it may compute otherwise).
    """

    name = "base"
    smooth = True
    n_states = 0
    n_scalar_states = 0
    schema: ClassVar[LawSchema] = LawSchema("base", ())

    @classmethod
    def from_pair(cls, mu_d: float, mu_s: float | None, params: Mapping) -> FrictionLaw:
        """The law of a frictional pair: its dynamic and static coefficients ``mu_d``, ``mu_s``
        (-; None: equal to ``mu_d``) and its friction description ``params`` (a superset: the
        entries of other laws are ignored; missing entries take the schema's defaults)."""
        raise NotImplementedError  # pragma: no cover

    def state_size(self, dim: int = 1) -> int:
        """The number of internal states of a pair whose slip has dimension ``dim`` (1-3):
        ``(n_states - n_scalar_states) dim + n_scalar_states`` (LuGre: ``dim``; the bristle
        law: ``dim + 1``; laws without states: 0). Their order in ``z``: the vector states
        (``dim`` each), then the scalar ones."""
        return (self.n_states - self.n_scalar_states) * int(dim) + self.n_scalar_states

    def pack(self) -> tuple[int, tuple[float, ...]] | None:
        """``(kind, numbers)`` for the compiled stage (obligation 7), or None."""
        return None

    def parameters(self) -> dict:
        """``{name: value}`` of every schema parameter, as this law was built."""
        return {p.name: getattr(self, p.name) for p in self.schema}

    def coefficients(self, v_T: float, z) -> tuple[float, float]:  # pragma: no cover
        raise NotImplementedError

    def state_derivative(self, v_T: float, z) -> tuple:
        return ()

    def initial_state(self, v_T: float) -> tuple:
        return ()

    def warnings(self) -> list[str]:
        return []

    def force(self, v_T: float, N: float, z=()) -> float:
        """The friction force ``-a N - b`` (N) at sliding velocity ``v_T`` and normal load N."""
        a, b = self.coefficients(v_T, z)
        return -a * N - b
