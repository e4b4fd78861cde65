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
2. Kinematic map. ``qdot(q, v) -> dq/dt`` (``dq = H(q) v``, linear in ``v``): what the run
   integrates for ``q`` (every right-hand side, the dense output's Hermite slopes, the
   constraints' assembly steps ``q - H(q) dx``); and ``project(q) -> q`` (e.g. unit
   quaternions), applied to the initial ``q``, at the end of every smooth phase (events,
   time stops: every phase starts projected) and after each accepted step of the explicit
   one-step steppers (RK4/Euler; scipy's RK23/RK45/DOP853 with the FSAL stage evaluated again);
   the implicit solvers, the compiled phases and the compiled RK4/Euler step project at phase
   ends only (a family may stabilize the drift inside ``qdot``; ``docs/method.md`` section
   1.1; the spatial family needs neither: its ``p / |p|`` evolves alike, ``docs/design/spatial.md``
   section 1).
   ``has_kinematic_map`` / ``has_projection`` say whether they are not the identity (the
   run skips the calls otherwise). Default: the identity (``dq/dt = v``), no projection.
   Compiled: a family's compiled ``rhs`` writes all of ``dy``, ``H(q) v`` included (the
   phase templates, ``core.phases``, know no kinematic map and do not project; a family that
   needs a projection inside a compiled phase brings it in its ``rhs``); the generated module
   of a ``GeneralizedSystem`` integrates ``dq/dt = v`` only, so compiled terms with a
   kinematic map are refused (``ModelError``).
3. Terms. ``terms(t, q, v) -> system.Terms``, ``tangential_bias(t, q, v) -> (dW/dt) v``
   (shape (p,)) and ``potential(t, q) -> V`` (J): the Python reference path.
4. Compiled terms. The family's compiled entry points and their constant data, as a
   :class:`CompiledFamily` (``Dynamics.compiled_family()``: the planar kernels over a planar
   model's tables, a ``GeneralizedSystem``'s generated module and its parameters, or what the
   system's own ``compiled_family(size)`` returns: the spatial family's; None for a family
   that runs on the Python path). ``constant_mass``: the mass matrix
   when it does not depend on ``q`` (shape (n_v, n_v)), else None.
5. Rows and pairs. ``n_constraints``, ``constraint_names``, ``constraint_kinds``,
   ``normal_rows``, ``abs_rows``, ``driver_rows``, ``pairs`` (a list of
   :class:`~nonsmooth.system.FrictionPair`), ``pair_radial``, ``pair_norms``,
   ``preload_functions``: set by ``System._finish`` from the constructor's lists.
6. Names. ``coordinate_names`` (n_q), ``velocity_names`` (n_v), ``row_names`` (m),
   ``pair_names`` (p). Default: the velocities are named as the coordinates.
7. Element outputs. ``<body>.x``, ``<pair>.N`` ...: the family's ``element_outputs(q0, v0,
   t0) -> {name: (function(result) -> (N,), unit, description)}`` (the planar family's bodies,
   pairs and drivers, ``planar/outputs.py``; the spatial family's bodies, reactions, joint
   coordinates, world angular velocities); default: none.
8. Failure naming. ``name_failure(status, row, t, q, v) -> str``: a kernel's status
   (:mod:`nonsmooth.core.status`) and row in words ("spring/damper 'k1': its two points
   coincide ..."); ``Dynamics`` raises the error with it.
9. User values. ``has_user_functions`` and ``user_values(t, q, v) -> ndarray (n_el, 3)`` or
   None: the user functions' values a compiled phase calls back for (``dop853.register_user``).
   Default: none.
10. Cache key. ``kernel_key() -> str | None``: what names the family's compiled code (a
    generated module: a hash of the model's source and the kernel sources; the package's
    planar kernels: their module's name, which ``prebuilt`` ships). Default: None.
11. Default tolerances. ``default_tolerances(method) -> (rtol, atol) | None``: the family's
    own default of an adaptive method (``method`` its name, ``run.methods.METHODS``'s key),
    where its right-hand side allows a tighter one cheaply (the spatial family's frictionless
    models under DOP853: 5e-13, 5e-15, at 1.4x the evaluations of 1e-11;
    ``docs/design/spatial.md`` section 6). Default: None (the method's own,
    ``run.methods.Method.tolerances``: ``run.methods.DEFAULT_TOLERANCES``).
12. Compliant contacts. ``contact_names`` (n_c), ``contact_gaps(t, q)`` (m, < 0 penetrating),
    ``contact_approach(t, q, v)`` (``-d gap/dt``, m/s) and ``contact_forces(t, q, v, impact)``
    (generalized forces (n_v,), their damping power and each contact's normal force; the
    forces added to the terms' ``f``, the elastic part's energy in ``potential``);
    ``contact_pairs``: ``(pair, contact)`` of each friction pair whose load (``preload``) is a
    contact's normal force (its rows of ``W`` the family writes). The run holds one state
    per contact after the laws' ``z``, its impact speed, set at each touch event (the gap
    crossing zero downwards: the integrator restarts there, as at its leave event upwards);
    the force law reads it (hysteretic damping is relative to the impact speed). Default:
    none. A family whose compiled kernels do not evaluate its contacts returns None from
    ``compiled_family``.
    Rigid contacts (``rigid_contacts``, indices into ``contact_names``) have no force law:
    ``rigid_contact_rows(t, q)`` gives each one's restitution, friction coefficient and points
    (gaps, normal and tangent velocity rows) for a time-stepping method's impulse problem
    and the event-driven run's constraints, ``rigid_contact_bias(t, q, v)`` the rows' ``(dW/dt)
    v`` where the family has it in closed form (else None: the run differences the rows);
    ``contact_forces`` refuses them. ``autonomous``: whether the terms depend on time only
    through the state (default False); an event-driven run then takes a phase that starts at
    rest to stay there.

This module imports numpy only (no numba, no scipy, no planar or generalized module), so the
run, ``Dynamics`` and the families can all import it without a cycle
(``tests/docs/test_layering.py``).
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
    """A family's compiled entry points and the constant data they take (obligation 4): what
    the run calls to take whole phases and blocks of outputs in compiled code. A family
    subclasses it (``nonsmooth.planar.family.PlanarFamily``,
    ``nonsmooth.generalized.family.GeneratedFamily``) and implements the methods below; the run
    calls nothing else of it, so it never sees a family's tables.

    Attributes
    ----------
    module : module
        The compiled entry points (``@njit(cache=True)`` functions written out in source).
    data : tuple of ndarray
        The constant arrays the entry points take first (the planar tables ``(ints, floats,
        mass)``; a generated module's ``(parameters,)``); no ``None`` entries.
    pair_velocity : bool
        Whether the DOP853 phase looks for a sliding velocity that crosses zero and back within
        one step (the planar family's grazing search).
    calls_back : bool
        Whether the compiled right-hand side calls the model's user functions back
        (``user_values``, through ``core.callbacks``): then only the DOP853 phase, which
        supports it, runs compiled.
    """

    module: ModuleType
    data: tuple
    pair_velocity: bool = False
    calls_back: bool = False

    def dop853(self, plan: np.ndarray, Wt: np.ndarray):
        """``(phase, ctx)``: the entry point of the compiled DOP853 phase
        (``core.phases.dop853.dop853_phase_with`` instantiated over the family's right-hand
        side) and its ``ctx`` (the data, the extended ``plan``, the load weights ``Wt`` and
        the workspaces) for one phase."""
        raise NotImplementedError

    def fixed(self, plan: np.ndarray, Wt: np.ndarray):
        """``(phase, ctx)`` of the compiled RK4/Euler phase (``core.phases.fixed``)."""
        raise NotImplementedError

    def evaluate_block(self, plan, Wt, ts, Q, V, Z, modes, faces, U=None):
        """The evaluations at ``k`` rows ``(ts (k,), Q, V, Z)`` in one call, ``U`` (k, n_el,
        3) the user functions' values where the family has them. Returns ``(out (k, size),
        energies, row, status)``: the outputs (``core.layout.evaluation_layout``), the rows'
        kinetic and potential energies ``(T (k,), V (k,))`` (J) where the kernel computes them
        (else None: the run does), and the first row that is not ``OK`` with its status
        (``(-1, OK)`` if none)."""
        raise NotImplementedError

    def potentials(self, times: np.ndarray, Q: np.ndarray) -> np.ndarray | None:
        """The potential energy (J) at the rows ``(times (k,), Q (k, n_q))`` in one compiled
        call, or None (the run then calls the system's ``potential`` row by row)."""
        return None

    #: Whether :meth:`step` takes a whole RK4/Euler step in one compiled call (the Python
    #: fixed-step stepper then calls it; with ``t_eval`` or user event functions).
    steps_compiled = False

    def step(self, plan, Wt, t, y, f, h, t_next, modes, faces, rk4, y_new, f_new, out) -> int:
        """One RK4 (``rk4``) or Euler step from ``(t, y)`` (``f`` its derivative) of length
        ``h`` into ``y_new`` and its derivative at ``t_next`` into ``f_new`` (its evaluation
        into ``out``); returns the kernels' status (where :attr:`steps_compiled`)."""
        raise NotImplementedError

    def evaluator(self, plan: np.ndarray, Wt: np.ndarray):
        """A single evaluation in one compiled call, ``call(t, q, v, z, modes, faces, out) ->
        status`` (the statuses of ``core.status``), sharing the phases' compiled code; or None.
        ``Dynamics`` takes its ``OK`` evaluations; without it, or for any other status, it
        evaluates the system's terms and the allocating compiled stage (which decide and name
        a failure). Optional."""
        return None

    def warm(self, what: str) -> None:  # noqa: B027 - optional: a family that loads lazily
        """Load (or compile, announced) the entry points of ``what`` (``"dop853"``,
        ``"fixed"``: a method's ``run.methods.Method.compiled_phase``) before their first
        call."""


@runtime_checkable
class Family(Protocol):
    """What the run and ``Dynamics`` call of a model family (the obligations of the module
    docstring; ``System`` implements the defaults)."""

    n_q: int
    n_v: int
    coordinate_names: list[str]
    constraint_names: list[str]
    constraint_kinds: list[str]
    pairs: list[FrictionPair]

    @property
    def layout(self) -> StateLayout: ...

    def layout_with(self, n_z: int) -> StateLayout: ...

    def qdot(self, q: np.ndarray, v: np.ndarray) -> np.ndarray: ...

    def project(self, q: np.ndarray) -> np.ndarray: ...

    @property
    def has_kinematic_map(self) -> bool: ...

    @property
    def has_projection(self) -> bool: ...

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

    def default_tolerances(self, method: str) -> tuple[float, float] | None: ...
