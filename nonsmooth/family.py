"""The model-family contract: what the engine needs to know of a kind of model.

A model family is a way of writing a model that the run and :class:`~nonsmooth.dynamics.Dynamics`
can integrate without knowing how it was written. The planar builder's compiled system
(:class:`~nonsmooth.planar.PlanarSystem`) and :class:`~nonsmooth.system.GeneralizedSystem` are
the first two; :class:`~nonsmooth.system.System` is the base class that implements the defaults.
To add one, write a subclass of ``System`` and satisfy (numbered as scipy's ``OdeSolver``
numbers its own; ``docs/seam.md`` section 1):

1. Sizes and state layout. ``layout`` (a :class:`~nonsmooth.core.layout.StateLayout`) with
   ``n_q`` position and ``n_v`` velocity coordinates (``n_q != n_v`` allowed: Euler
   parameters give 7 and 6 per body) and ``n_z`` internal states of the friction laws; the
   laws are chosen per run, so ``layout_with(n_z)`` gives the layout of a run whose laws have
   ``n_z`` states. The integrated state is ``y = [q (n_q) | v (n_v) | work (5) | z (n_z)]``
   (``core.layout``, the only place that knows the order). Default (``System``): ``n_v =
   n_q``.
2. Kinematic map. ``qdot(q, v) -> dq/dt`` (``dq = H(q) v``) and ``project(q) -> q`` (e.g.
   unit quaternions), applied at phase starts and after events. Default: the identity
   (``dq/dt = v``), no projection. The compiled ``qdot_into(q, v, dq)`` comes with the
   kernels' templates (``docs/seam.md`` 1.3).
3. Terms. ``terms(t, q, v) -> system.Terms``, ``tangential_bias(t, q, v) -> (dW/dt) v``
   (shape (p,)) and ``potential(t, q) -> V`` (J): the Python reference path.
4. Compiled terms. The family's compiled entry points and their constant data, as a
   :class:`CompiledFamily` (``Dynamics.compiled_family()``: a ``GeneralizedSystem``'s generated
   module and its parameters; None for a family that runs on the Python path or, until its
   entry module exists, on the package's planar kernels). ``constant_mass``: the mass matrix
   when it does not depend on ``q`` (shape (n_v, n_v)), else None.
5. Rows and pairs. ``n_constraints``, ``constraint_names``, ``constraint_kinds``,
   ``normal_rows``, ``abs_rows``, ``driver_rows``, ``pairs`` (a list of
   :class:`~nonsmooth.system.FrictionPair`), ``pair_radial``, ``preload_functions``: set by
   ``System._finish`` from the constructor's lists.
6. Names. ``coordinate_names`` (n_q), ``velocity_names`` (n_v), ``row_names`` (m),
   ``pair_names`` (p). Default: the velocities are named as the coordinates.
7. Element outputs. ``<body>.x``, ``<pair>.N`` ...: today ``result.element_outputs`` (by the
   ``W`` rows' kinds and, for a planar system, its bodies); a family's own method comes with
   the planar family's package (``docs/seam.md`` 1.4).
8. Failure naming. ``name_failure(status, row, t, q, v) -> str``: a kernel's status
   (:mod:`nonsmooth.core.status`) and row in words ("spring/damper 'k1': its two points
   coincide ..."); ``Dynamics`` raises the error with it.
9. User values. ``has_user_functions`` and ``user_values(t, q, v) -> ndarray (n_el, 3)`` or
   None: the user functions' values a compiled phase calls back for (``dop853.register_user``).
   Default: none.
10. Cache key. ``kernel_key() -> str | None``: what names the family's compiled code (a
    generated module: a hash of the model's source and the kernel sources; the package's
    planar kernels: their module's name, which ``prebuilt`` ships). Default: None.

This module imports numpy only (no numba, no scipy, no planar or generalized module), so the
run, ``Dynamics`` and the families can all import it without a cycle
(``tests/test_layering.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from .core.layout import StateLayout

if TYPE_CHECKING:  # pragma: no cover
    from .system import FrictionPair, Terms

__all__ = ["CompiledFamily", "Family", "StateLayout"]


@dataclass(frozen=True)
class CompiledFamily:
    """A family's compiled entry points and the constant data they take (obligation 4).

    Attributes
    ----------
    module : module
        The compiled entry points (``@njit(cache=True)`` functions written out in source):
        ``evaluate``, ``fixed_phase``, ``potentials`` (a generated module: ``nonsmooth.generated``;
        ``docs/seam.md`` 1.3 lists the full set).
    data : tuple of ndarray
        The constant arrays the entry points take first (a generated module: ``(parameters,)``);
        no ``None`` entries.
    pair_velocity : bool
        Whether ``module`` has ``pair_velocity_into`` (the grazing search of a pair's sliding
        velocity).
    """

    module: ModuleType
    data: tuple
    pair_velocity: bool = False


@runtime_checkable
class Family(Protocol):
    """What the run and ``Dynamics`` call of a model family (the obligations of the module
    docstring; ``System`` implements the defaults)."""

    n_q: int
    coordinate_names: list[str]
    constraint_names: list[str]
    constraint_kinds: list[str]
    pairs: list[FrictionPair]

    @property
    def layout(self) -> StateLayout: ...

    def layout_with(self, n_z: int) -> StateLayout: ...

    def qdot(self, q: np.ndarray, v: np.ndarray) -> np.ndarray: ...

    def project(self, q: np.ndarray) -> np.ndarray: ...

    def terms(self, t: float, q: np.ndarray, v: np.ndarray) -> Terms: ...

    def tangential_bias(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray: ...

    def potential(self, t: float, q: np.ndarray) -> float: ...

    @property
    def constant_mass(self) -> np.ndarray | None: ...

    @property
    def velocity_names(self) -> list[str]: ...

    @property
    def row_names(self) -> list[str]: ...

    @property
    def pair_names(self) -> list[str]: ...

    @property
    def has_user_functions(self) -> bool: ...

    def user_values(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray | None: ...

    def name_failure(self, status: int, row: int, t: float, q: np.ndarray,
                     v: np.ndarray) -> str: ...

    def kernel_key(self) -> str | None: ...
