"""The compiled system: the matrices of one state that every evaluation needs.

A :class:`System` is what the dynamics sees of a model, whatever way it was written: the planar
builder (:mod:`nonsmooth.planar`) compiles into one, and :class:`GeneralizedSystem` lets a user
write ``M(q)``, the applied forces and the constraints with their Jacobians directly (the paper's
own two-coordinate form of the crank-rocker is written this way).

Notation (Wang, Wang & Zhuang; ``docs/method.md`` section 1):

========  ==================  ==========================================================
symbol    shape               meaning
========  ==================  ==========================================================
q         (n_q,)              generalized coordinates
v         (n_v,)              generalized velocities, dq/dt = H(q) v (:meth:`System.qdot`;
                              the identity, v = dq/dt and n_v = n_q, unless a family
                              defines its kinematic map: unit quaternions and body-axes
                              angular velocities give n_q = 4, n_v = 3 per rotation)
M         (n_v, n_v)          mass matrix
f         (n_v,)              applied generalized forces (gravity, springs, dampers, ...)
phi       (m,)                bilateral constraints Phi(q, t) = 0
G         (m, n_v)            velocity-level constraint Jacobian: dPhi/dt = G v + phi_t
                              (= dPhi/dq H(q); dPhi/dq with the identity map)
phi_t     (m,)                partial time derivative dPhi/dt at fixed q
gamma     (m,)                -(dG/dt) v - 2 Phi_qt v - Phi_tt, so d2Phi/dt2 = G dv/dt - gamma
W         (p_rows, n_v)       tangential Jacobian of the p frictional pairs, v_T = W v
                              (pair i: rows ``w_row[i]`` to ``w_row[i] + dim - 1``;
                              ``p_rows = sum(dim)``, = p when every pair is scalar)
========  ==================  ==========================================================

Constraint rows come in three kinds: ``"normal"`` (the signed-distance normal constraint of a
translational joint; its multiplier is the normal force ``lambda_N`` in newtons), ``"joint"`` (other
ideal joints) and ``"driver"`` (rheonomic driving constraints; multiplier = driving force/torque).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from .core.layout import StateLayout
from .core.status import EVALUATION_STATUSES, NONFINITE
from .diagnose import check_mass_matrix, finite
from .errors import ModelError

__all__ = [
    "Terms",
    "FrictionPair",
    "RigidBlocks",
    "System",
    "Constraint",
    "GeneralizedSystem",
    "CONSTRAINT_KINDS",
]

CONSTRAINT_KINDS = ("normal", "joint", "driver")


class Terms(NamedTuple):
    """Everything one evaluation needs at a state ``(t, q, v)``.

    Shapes as in the module table; ``P_applied`` and ``P_damping`` are the powers (W) of the
    non-conservative applied forces and of the dampers, for the energy balance.
    """

    M: np.ndarray
    f: np.ndarray
    phi: np.ndarray
    phi_t: np.ndarray
    G: np.ndarray
    gamma: np.ndarray
    W: np.ndarray
    P_applied: float
    P_damping: float
    #: the norm load terms' weights at ``q`` (flat over ``System.pair_norms``, pair by pair)
    #: where some depend on ``q`` (a spatial slider's bending over a changing overlap); None:
    #: the constant weights of the pairs
    norm_weights: np.ndarray | None = None


@dataclass(frozen=True)
class RigidBlocks:
    """A time step's active rigid contact points, as blocks on the bodies' velocities
    (:meth:`System.rigid_contact_blocks`): ``k`` points, each between two bodies of six
    velocities ``v[6 i:6 i + 6]`` (``-1`` a fixed body: the ground).

    Attributes
    ----------
    contact : ndarray of int, shape (k,)
        Each point's contact (an index into ``contact_names``).
    point : ndarray of int, shape (k,)
        Its index among its contact's points (0 for a single-point pair): ``(contact,
        point)`` names a point from one step to the next (a warm start's key).
    gap : ndarray, shape (k,)
        The gaps (m; < 0 penetrating).
    x : ndarray, shape (k, 3)
        The points (m, world: midway between the two surfaces' witness points).
    rate : ndarray, shape (k,)
        The gaps' rates at the given velocities, ``W_N v`` (m/s, > 0 separating).
    a, b : ndarray of int, shape (k,)
        The two bodies (b's normal points away from a; -1 the ground).
    Ha, Hb : ndarray, shape (k, 3, 6)
        The rows (normal, tangent 1, tangent 2) on body a's and body b's velocities, signs
        included: the local velocity is ``Ha v_a + Hb v_b``.
    e, mu : ndarray, shape (k,)
        The contact's restitution and friction coefficients (-).
    """

    contact: np.ndarray
    point: np.ndarray
    gap: np.ndarray
    x: np.ndarray
    rate: np.ndarray
    a: np.ndarray
    b: np.ndarray
    Ha: np.ndarray
    Hb: np.ndarray
    e: np.ndarray
    mu: np.ndarray


@dataclass(frozen=True)
class FrictionPair:
    """One frictional sliding pair (a translational joint with dry friction).

    Parameters
    ----------
    name : str
        Name used in outputs and the event log.
    normal : str or None
        Name of the ``"normal"`` constraint row whose multiplier is this pair's ``lambda_N``
        (None for a revolute joint, whose load is radial).
    mu : float
        Dynamic (sliding) Coulomb coefficient (-), in [0, 10] (the schema's ``mu_d``).
    mu_s : float or None
        Static coefficient (-), in [0, 10] and >= mu; None means equal to ``mu``.
    law : {"coulomb", "lugre", "regularized", "bristle"}
        The friction law this pair uses unless ``simulate(friction=...)`` says otherwise.
    params : dict
        The rest of the pair's friction description (the superset every law draws from):
        LuGre ``sigma0`` (1/m), ``sigma1`` (s/m), ``sigma2`` (N s/m), ``v_s`` (m/s), ``effect``;
        regularized ``viscous`` (N s/m), ``coulomb``, ``falloff_vel`` (m/s), ``stiction_extra``,
        ``stribeck_vel`` (m/s), ``normal_load`` (bool); the bristle law ``mu_v`` (N s/m),
        ``tau_dw`` (s) and LuGre's ``sigma0``, ``sigma1``, ``v_s``. Missing entries take the
        laws' defaults (:mod:`nonsmooth.friction.schema`: MotionSolve's for LuGre, in SI; for
        the regularized law ``coulomb = mu``, ``stiction_extra = mu_s - mu`` as coefficients
        of the normal load). Values are checked against the law's ranges when the law is made.
    dim : {1, 2, 3}
        Dimension of the slip velocity ``v_T`` (default 1: a scalar pair, one row of ``W``).
        A pair of dimension d has d consecutive rows of ``W`` from ``System.w_row[i]``, slips
        with ``F_T = -mu N v_T / |v_T|`` and sticks with d stick rows and the reserve
        ``mu_s N - |F_T| >= 0`` (:mod:`nonsmooth.vector_friction`; ``docs/seam.md`` section 5).
    patch : {0, 1, 2, 3}
        A Coulomb pair of dimension 3 whose rows are a contact patch's sliding velocity (2) and
        its rim speed ``a omega`` (1): Coulomb friction over the patch, the sliding force and
        the spinning torque coupled exactly (Contensou; :mod:`nonsmooth.contact.contensou`),
        for a uniform (1) or Hertzian (2) pressure or a thin ring's (3, the load on the rim);
        with the bristle law, its sliding and spinning bristles; 0: the plain vector law.
    """

    name: str
    normal: str
    mu: float
    mu_s: float | None = None
    law: str = "coulomb"
    params: dict = field(default_factory=dict, compare=False)
    load: tuple = None
    radial: tuple = ()
    preload: float | Callable[[float], float] = 0.0
    dim: int = 1
    norms: tuple = ()
    patch: int = 0

    # The normal load of the pair (``docs/method.md`` sections 5.1 and 9; MotionSolve's inputs):
    #     N = sum_r w_r |lambda_r|  +  sqrt(sum_s lambda_s^2)  +  preload
    # ``load``: (row name, weight) pairs, the weight a number or a callable q -> number (default
    # ``((normal, 1.0),)``): piecewise linear, so the normal forces stay one HLCP; ``radial``:
    # rows whose Euclidean norm adds (a revolute pin's reaction, solved by fixed-point iteration
    # inside each evaluation); ``norms``: more such terms with weights, ``((rows, weight), ...)``
    # (1-3 rows each, weight >= 0: a spatial joint's radial, bending and ball loads,
    # ``docs/design/spatial_friction.md`` section 3), ``N += sum_g w_g ||lambda_g||``;
    # ``preload``: a constant load (N), or a given normal force N(t) (a clutch's,
    # ``nonsmooth.planar.clutch``; its negative values count as 0: the element is open).
    def make_law(self, law: str | None = None):
        """The :class:`nonsmooth.friction.FrictionLaw` of this pair (``law`` overrides): the
        law's ``from_pair`` with this pair's coefficients and ``params`` (each law takes its own
        entries; the schema's defaults fill the rest)."""
        from .friction import LAWS

        name = (law or self.law)
        if not isinstance(name, str):
            return name  # a law object given directly
        cls = LAWS.get(name.lower())
        if cls is None:
            raise ModelError(f"friction pair '{self.name}': unknown friction law {name!r}; "
                             f"choose one of {', '.join(LAWS)}")
        return cls.from_pair(self.mu, self.mu_s, self.params)

    def __post_init__(self):
        from .friction.schema import COULOMB_SCHEMA, check_static_dynamic

        where = f"friction pair '{self.name}'"
        mu = COULOMB_SCHEMA["mu_d"].validate(self.mu, where, name="mu")
        if self.mu_s is not None:
            mu_s = COULOMB_SCHEMA["mu_s"].validate(self.mu_s, where)
            check_static_dynamic(where, mu_s, mu, names=("mu_s", "mu"))
        if type(self.dim) is not int or self.dim not in (1, 2, 3):
            raise ModelError(f"{where}: dim = {self.dim!r} is invalid; a friction pair's slip "
                             "velocity has dimension 1, 2 or 3")
        if self.patch not in (0, 1, 2, 3) or (self.patch and (self.dim != 3 or str(
                self.law).lower() not in ("coulomb", "bristle"))):
            raise ModelError(f"{where}: patch = {self.patch!r} is invalid; a patch pair "
                             "(1 uniform, 2 Hertzian pressure, 3 a ring) is a Coulomb or "
                             "bristle pair of dim 3")
        for rows, weight in self.norms:
            if not 1 <= len(rows) <= 3 or not (float(weight) >= 0.0 and np.isfinite(weight)):
                raise ModelError(f"{where}: a norm load term needs 1-3 rows and a finite "
                                 f"weight >= 0, got rows {rows!r}, weight {weight!r}")


class System:
    """The contract every compiled system meets (the dynamics relies on nothing else).

    Obligations of a subclass:

    1. Set ``n_q`` (number of coordinates), ``constraint_names`` and ``constraint_kinds`` (one
       entry per constraint row, kinds from ``CONSTRAINT_KINDS``), ``pairs`` (list of
       :class:`FrictionPair`) and ``coordinate_names``; with a kinematic map (``n_v != n_q``
       or ``dq/dt != v``) also ``n_v``, ``velocity_names`` and :meth:`qdot` (and
       :meth:`project` where the coordinates have an invariant, e.g. ``|q| = 1``).
    2. Implement :meth:`terms` returning a :class:`Terms` at ``(t, q, v)``; it is the hot path,
       so it must do no constant work (precompute in ``__init__``).
    3. Implement :meth:`potential` (the potential energy V(t, q) of the conservative applied
       forces, J) so that ``f = -dV/dq + (non-conservative forces)``.
    4. Optionally override :meth:`tangential_bias` (``dW/dt v``, shape (p_rows,)); the default
       uses a central difference of ``W`` along ``v``.

    It implements the defaults of the model-family contract (:mod:`nonsmooth.family`): the
    state layout with ``n_v = n_q`` (:attr:`n_v`, :attr:`layout`, :meth:`layout_with`), the
    identity kinematic map (:meth:`qdot`, :meth:`project`), the rows' and pairs' names, no user
    values (:attr:`has_user_functions`, :meth:`user_values`), the failures' words
    (:meth:`name_failure`) and no compiled code (:meth:`kernel_key`).
    """

    n_q: int
    coordinate_names: list[str]
    constraint_names: list[str]
    constraint_kinds: list[str]
    pairs: list[FrictionPair]
    #: whether :meth:`terms` gives ``Terms.norm_weights`` (weights of ``q``): the evaluations
    #: then take the Python stage
    variable_norm_weights: bool = False

    # ------------------------------------------------------------------ derived, set by _finish
    def _finish(self) -> None:
        """Check the metadata and precompute index arrays (call at the end of ``__init__``)."""
        names = list(self.constraint_names)
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise ModelError(f"duplicate constraint names {dup}; give every constraint a unique "
                             "name")
        for name, kind in zip(names, self.constraint_kinds, strict=True):
            if kind not in CONSTRAINT_KINDS:
                raise ModelError(
                    f"constraint '{name}': unknown kind {kind!r}; allowed: {CONSTRAINT_KINDS}"
                )
        rows = []
        self.pair_load, self.pair_radial, self.pair_norms = [], [], []
        for pair in self.pairs:
            if pair.normal is None:
                rows.append(-1)
            else:
                if pair.normal not in names:
                    raise ModelError(
                        f"friction pair '{pair.name}': normal constraint '{pair.normal}' does "
                        f"not exist; constraints are {names}"
                    )
                row = names.index(pair.normal)
                if self.constraint_kinds[row] != "normal":
                    raise ModelError(
                        f"friction pair '{pair.name}': constraint '{pair.normal}' is of kind "
                        f"'{self.constraint_kinds[row]}', it must be a 'normal' constraint"
                    )
                rows.append(row)
            load = pair.load if pair.load is not None else (
                () if pair.normal is None else ((pair.normal, 1.0),))
            norm_rows = [r for rows_g, _ in pair.norms for r in rows_g]
            for row_name in [r for r, _ in load] + list(pair.radial) + norm_rows:
                if row_name not in names:
                    raise ModelError(f"friction pair '{pair.name}': load row '{row_name}' does "
                                     f"not exist; constraints are {names}")
            self.pair_load.append([(names.index(r), w) for r, w in load])
            self.pair_radial.append([names.index(r) for r in pair.radial])
            # every norm term of the pair, the radial one first: ([rows], weight)
            groups = [(self.pair_radial[-1], 1.0)] if pair.radial else []
            groups += [([names.index(r) for r in rows_g], float(w)) for rows_g, w in pair.norms]
            self.pair_norms.append(groups)
        # rows whose |.| enters some load: the unknowns of the normal-force HLCP
        self.abs_rows = np.array(sorted({r for load in self.pair_load for r, _ in load}),
                                 dtype=int)
        # constant preloads; a given normal force N(t) is 0 here and evaluated by preload_at
        self.preload = np.array([0.0 if callable(p.preload) else float(p.preload)
                                 for p in self.pairs])
        self.preload_functions = [(i, p.preload) for i, p in enumerate(self.pairs)
                                  if callable(p.preload)]
        self.simple_pairs = not self.preload_functions and all(
            len(load) == 1 and load[0] == (rows[i], 1.0) and not self.pair_norms[i]
            and self.preload[i] == 0 for i, load in enumerate(self.pair_load))
        pair_names = [p.name for p in self.pairs]
        if len(set(pair_names)) != len(pair_names):
            raise ModelError(f"duplicate friction pair names {pair_names}")
        self.n_constraints = len(names)
        self.normal_rows = np.array(rows, dtype=int)
        kinds = np.array(self.constraint_kinds, dtype=object)
        self.driver_rows = np.flatnonzero(kinds == "driver")
        self.mu = np.array([p.mu for p in self.pairs], dtype=float)
        # each pair's rows of W (and of v_T, F_T, the tangential bias): dim consecutive rows
        self.pair_dim = np.array([p.dim for p in self.pairs], dtype=int)
        self.w_row = np.concatenate(([0], np.cumsum(self.pair_dim)[:-1])).astype(int) \
            if self.pairs else np.zeros(0, dtype=int)
        self.p_rows = int(self.pair_dim.sum())
        self.max_dim = int(self.pair_dim.max(initial=1))

    @property
    def n_pairs(self) -> int:
        return len(self.pairs)

    def preload_at(self, t: float) -> np.ndarray:
        """The preloads at ``t``, shape (p,) (N): the constant ones, and each given normal force
        ``max(N(t), 0)``."""
        if not self.preload_functions:
            return self.preload
        pre = self.preload.copy()
        for i, fn in self.preload_functions:
            pre[i] = max(float(fn(t)), 0.0)
        return pre

    # ------------------------------------------------------------------ the family contract
    @property
    def n_v(self) -> int:
        """Number of velocity coordinates (obligation 1): the size of ``v``, ``dv``, ``f``, the
        mass matrix and the columns of ``G`` and ``W``. Default ``n_q`` (a subclass sets
        ``self.n_v = ...`` or overrides the property)."""
        return self.__dict__.get("_n_v", self.n_q)

    @n_v.setter
    def n_v(self, value: int) -> None:
        self._n_v = int(value)

    def layout_with(self, n_z: int = 0) -> StateLayout:
        """The integrated state's layout with ``n_z`` smooth-law states (obligation 1):
        ``StateLayout(n_q, n_v, n_z)``."""
        return StateLayout(self.n_q, self.n_v, n_z)

    @property
    def layout(self) -> StateLayout:
        """The state layout under the pairs' own friction laws (obligation 1)."""
        return self.layout_with(sum(pr.make_law().state_size(pr.dim) for pr in self.pairs))

    def qdot(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``dq/dt = H(q) v`` (n_q,) at ``(q (n_q,), v (n_v,))`` (obligation 2): what the run
        integrates for the coordinates. It must be linear in ``v`` (the constraints'
        projection and the default :meth:`tangential_bias` step along ``qdot(q, dv)``).
        Default: ``v`` (the identity map, ``n_v = n_q``).

        A family whose coordinates have an invariant the map keeps only in exact arithmetic
        (``|q| = 1`` of a unit quaternion under ``dq/dt = q (x) (0, omega) / 2``) may add a
        drift stabilization here, e.g. ``+ k (1 - |q|^2) q`` with ``k`` about the inverse of the
        motion's time scale (larger makes the equations stiff), where the run does not project
        between steps (the implicit solvers, compiled phases: :meth:`project`); such a term
        vanishes on the manifold, so ``qdot`` stays linear in ``v`` there."""
        return v

    def project(self, q: np.ndarray) -> np.ndarray:
        """``q`` (n_q,) moved onto the coordinates' own manifold (obligation 2; e.g. ``q /
        |q|`` for a unit quaternion): a new array, ``q`` itself left unchanged. The run applies
        it to the initial coordinates and inside the constraints' assembly
        (:func:`nonsmooth.simulate.project`), at the end of every smooth phase (an event, a
        time stop: every phase starts from a projected ``q``), and after every accepted step
        of the explicit one-step steppers (RK4, Euler; scipy's RK23, RK45, DOP853, whose last
        stage is the next step's first, FSAL: it is evaluated again at the projected state).
        Not between the steps of the implicit solvers (Radau, BDF, LSODA: their Newton state
        or history would contradict a changed state) nor inside a compiled phase (a compiled
        family projects in its own right-hand side). Default: the identity (``q``
        returned)."""
        return q

    @property
    def has_kinematic_map(self) -> bool:
        """Whether :meth:`qdot` is not the identity (a subclass overrides it): the run then
        calls it in every right-hand side and the dense output uses it."""
        return type(self).qdot is not System.qdot

    @property
    def has_projection(self) -> bool:
        """Whether :meth:`project` is not the identity (a subclass overrides it)."""
        return type(self).project is not System.project

    @property
    def constant_mass(self) -> np.ndarray | None:
        """The mass matrix (n_v, n_v) if it does not depend on ``q``, else None (obligation
        4); the base class does not know: None."""
        return None

    @property
    def velocity_names(self) -> list[str]:
        """Names of the velocity coordinates (n_v) (obligation 6): the ones set
        (``self.velocity_names = [...]``), else the coordinates' when ``n_v = n_q``, else
        ``v[0]``, ``v[1]``, ..."""
        names = self.__dict__.get("_velocity_names")
        if names is not None:
            return list(names)
        if self.n_v == self.n_q:
            return list(self.coordinate_names)
        return [f"v[{i}]" for i in range(self.n_v)]

    @velocity_names.setter
    def velocity_names(self, names) -> None:
        self._velocity_names = list(names)

    @property
    def row_names(self) -> list[str]:
        """Names of the constraint rows (m) (obligation 6)."""
        return list(self.constraint_names)

    @property
    def pair_names(self) -> list[str]:
        """Names of the frictional pairs (p) (obligation 6)."""
        return [pr.name for pr in self.pairs]

    def compiled_family(self, size: int, run_blocks=None, home=None):
        """The family's compiled entry points (obligation 4: a
        :class:`~nonsmooth.family.CompiledFamily`) for a run whose evaluation buffer has
        ``size`` floats, or None (the Python path; the default); with vector pairs
        ``run_blocks``, the slices of the plan's ``e_ref`` and ``stop_speed``, and ``home``, the
        run's plan. A generalized system's compiled terms make theirs with the run's plan
        (:meth:`GeneralizedSystem.generated_kernels`)."""
        return None

    @property
    def has_user_functions(self) -> bool:
        """Whether a compiled phase must call back for user values (obligation 9): no."""
        return False

    def user_values(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray | None:
        """The user functions' values (n_el, 3) at a state, or None (obligation 9): None."""
        return None

    def name_failure(self, status: int, row: int, t: float, q: np.ndarray,
                     v: np.ndarray) -> str:
        """A kernel's failure ``status`` (:mod:`nonsmooth.core.status`) at the element or row
        ``row`` in words (obligation 8)."""
        if status == NONFINITE:
            return (f"the state became non-finite at t = {t:.6g} s: the integration is "
                    "unstable; reduce dt or use an adaptive method")
        name = EVALUATION_STATUSES[status] if 0 <= status < len(EVALUATION_STATUSES) else status
        return f"the evaluation failed at t = {t:.10g} s (status {name}, row {row})"

    def kernel_key(self) -> str | None:
        """What names the family's compiled code (obligation 10): none."""
        return None

    def element_outputs(self, q0=None, v0=None, t0: float = 0.0) -> dict:
        """The named outputs of the elements (obligation 7): ``{name: (function(result) ->
        ndarray (N,), unit, description)}``, the pairs and rows told at ``(t0, q0, v0)``.
        Default: none (a system in generalized coordinates)."""
        return {}

    def animate(self, result, path, fps: float = 30.0, **options):
        """Draw ``result``'s motion to ``path`` (``Result.animate``): the families that draw
        (the spatial one) override it; here a :class:`~nonsmooth.errors.ModelError`."""
        name = getattr(result.model, "name", type(self).__name__)
        raise ModelError(f"cannot animate '{name}': animations are drawn for spatial models "
                         "(nonsmooth.spatial) only; plot a planar result with result.plot()")

    def nonfinite_source(self, t: float, q: np.ndarray, v: np.ndarray) -> str | None:
        """The element or user function whose value at the finite state ``(t, q, v)`` is NaN
        or infinite, in words (``"the function of force 'push'"``), or None when every one is
        finite there (the integration itself diverged); part of obligation 8, called only
        after a failure (:func:`nonsmooth.diagnose.nonfinite_source`). Default: None."""
        return None

    def given_motions(self) -> list[tuple]:
        """The prescribed motions given with their derivatives, which the run checks against
        finite differences before it starts (:mod:`nonsmooth.run.motions`): ``[(name, unit,
        f, df/dt, d2f/dt2)]``, ``unit`` the driven coordinate's (``"rad"`` or ``"m"``) and
        the three functions of ``t`` (s). Default: none."""
        return []

    def motion_breaks(self, t0: float, t_end: float) -> np.ndarray:
        """The times (s) in ``(t0, t_end)`` where a prescribed motion is not smooth, the
        breakpoints of a piecewise-polynomial trajectory (a derivative of it jumps there): the
        run ends a phase at each (as at a time stop), so that the integrator never steps
        across one. Default: none."""
        return np.zeros(0)

    def default_tolerances(self, method: str) -> tuple[float, float] | None:
        """The family's own default ``(rtol, atol)`` of the adaptive method named ``method``
        (obligation 11): none, the method's own (``run.methods.Method.tolerances``)."""
        return None

    # ------------------------------------------------------------------ compliant contacts
    #: The compliant contacts' names (obligation 12): each has a gap (its event function: it
    #: touches and leaves at gap = 0) and one state of the run, its impact speed (the approach
    #: speed at its latest touch, m/s), after the friction laws' states in ``z``. Default: none.
    contact_names: tuple = ()

    @property
    def n_contacts(self) -> int:
        """The number of compliant contacts (obligation 12)."""
        return len(self.contact_names)

    def contact_gaps(self, t: float, q: np.ndarray) -> np.ndarray:
        """Each contact's gap (m; < 0 penetrating), shape (n_contacts,) (obligation 12)."""
        return np.zeros(0)

    def contact_approach(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Each contact's approach speed ``-d gap/dt`` (m/s), shape (n_contacts,): the impact
        speed a touch event stores (obligation 12)."""
        return np.zeros(0)

    #: The contacts' friction pairs, ``((pair, contact), ...)`` (indices into :attr:`pairs`
    #: and :attr:`contact_names`): each such pair's normal load is its contact's normal force
    #: (obligation 12; a contact may have several: sliding, spin, rolling).
    contact_pairs: tuple = ()

    def contact_forces(self, t: float, q: np.ndarray, v: np.ndarray,
                       impact: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """The contacts' generalized forces (n_v,), their damping power (W, <= 0) and each
        contact's normal force (N, (n_contacts,): its friction pair's load) at ``(t, q, v)``
        with each contact's impact speed ``impact`` (n_contacts,), m/s (obligation 12): added
        to :meth:`terms`' ``f``; their elastic part is in :meth:`potential`."""
        return np.zeros(self.n_v), 0.0, np.zeros(self.n_contacts)

    #: The rigid contacts among them (indices into :attr:`contact_names`; obligation 12):
    #: contacts without a force law (``normal="rigid"``), whose impulses a time-stepping
    #: method finds at each step (:meth:`rigid_contact_rows`). Default: none.
    rigid_contacts: tuple = ()

    def rigid_contact_rows(self, t: float, q: np.ndarray, margin: float | None = None) -> list:
        """The rigid contacts' points at ``(t, q)`` (obligation 12):
        ``[(contact, e, mu, gaps (k,), W_N (k, n_v), W_T (k, 2, n_v))]``: each contact's
        restitution and friction coefficients (-), each point's gap (m), its normal velocity
        row (the gap's rate) and its two tangent rows; the points of a multi-point pair
        within ``margin`` (m; default the contact's). Default: none."""
        return []

    @property
    def autonomous(self) -> bool:
        """Whether the terms depend on time only through the state (no driver, no function of
        time), so that a state of rest stays at rest (obligation 12: an event-driven run of
        rigid contacts skips a phase at rest). Default: False."""
        return False

    def rigid_contact_bias(self, t: float, q: np.ndarray, v: np.ndarray):
        """``(dW_N/dt) v`` (P,) and ``(dW_T/dt) v`` (P, 2) of every point of
        :meth:`rigid_contact_rows` (all points, ``margin`` infinite; m/s^2) where the family
        knows them in closed form, else None (obligation 12): the event-driven run then
        differences the rows along the motion. Default: None."""
        return None

    def rigid_contact_blocks(self, t: float, q: np.ndarray, v: np.ndarray,
                             horizon: float) -> RigidBlocks | None:
        """The rigid contacts' points whose gap predicted ``horizon`` (s) ahead is closed,
        ``gap + horizon W_N v <= 0``, as :class:`RigidBlocks` (obligation 12, optional): for a
        family of free rigid bodies (six velocities each) whose many contacts a time-stepping
        method takes at once (a broad phase, the rows of many pairs vectorised); the same
        points and rows as :meth:`rigid_contact_rows` filtered by that rule. Default: None
        (not offered: the method asks :meth:`rigid_contact_rows`)."""
        return None

    def terms(self, t: float, q: np.ndarray, v: np.ndarray) -> Terms:  # pragma: no cover
        raise NotImplementedError("a System subclass must implement terms()")

    def potential(self, t: float, q: np.ndarray) -> float:  # pragma: no cover
        raise NotImplementedError("a System subclass must implement potential()")

    def tangential_bias(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``(dW/dt) v``, shape (p_rows,): the part of the tangential acceleration not in
        ``W dv/dt``.

        Default: central difference of ``W(q)`` along the motion ``dq/dt = qdot(q, v)`` (step
        scaled to the state).
        """
        h = 1e-6 * max(1.0, float(np.max(np.abs(q)))) / max(1e-12, float(np.max(np.abs(v))))
        h = min(h, 1e-4)
        dq = self.qdot(q, v) if self.has_kinematic_map else v
        Wp = self.terms(t + h, q + h * dq, v).W
        Wm = self.terms(t - h, q - h * dq, v).W
        return (Wp - Wm) @ v / (2 * h)


def rows_rate_bias(rows_at: Callable[[np.ndarray], np.ndarray], q: np.ndarray, dq: np.ndarray,
                   v: np.ndarray) -> np.ndarray:
    """``(dW/dt) v`` of rows ``W(q)`` (``rows_at(q) -> (r, n_v)``) by a central difference
    along the motion ``dq`` (step ``1e-7 max(1e-3, |q|) / |dq|``, at most 1e-6 s): the
    contacts' friction rows' bias, whose contact point moves over the shapes."""
    h = 1e-7 * max(1e-3, float(np.max(np.abs(q)))) / max(1e-12, float(np.max(np.abs(dq))))
    h = min(h, 1e-6)
    return (rows_at(q + h * dq) - rows_at(q - h * dq)) @ v / (2.0 * h)


@dataclass
class Constraint:
    """One block of constraint rows written by the user (for :class:`GeneralizedSystem`).

    Parameters
    ----------
    name : str or sequence of str
        Name of the row (or one name per row for a block of several rows).
    kind : {"normal", "joint", "driver"}
        ``"normal"``: a signed distance whose multiplier is a normal force (N); ``"driver"``: a
        rheonomic driving constraint (multiplier = driving force/torque).
    phi : callable (t, q) -> array_like, shape (k,)
        Constraint value.
    jacobian : callable (t, q) -> array_like, shape (k, n_v)
        ``dPhi/dq`` (with a kinematic map ``dq/dt = H(q) v``: the velocity-level Jacobian
        ``dPhi/dq H(q)``, so that ``dPhi/dt = G v + phi_t``).
    gamma : callable (t, q, v) -> array_like, shape (k,)
        ``-(dG/dt) v - 2 Phi_qt v - Phi_tt`` (``-(G v)_q v ...`` with the identity map).
    phi_t : callable (t, q) -> array_like, shape (k,), optional
        ``dPhi/dt`` at fixed q (default zero: scleronomic).
    """

    name: str | Sequence[str]
    kind: str
    phi: Callable
    jacobian: Callable
    gamma: Callable
    phi_t: Callable | None = None

    @property
    def names(self) -> list[str]:
        return [self.name] if isinstance(self.name, str) else list(self.name)


class GeneralizedSystem(System):
    """A system written directly in generalized coordinates.

    Parameters
    ----------
    coordinates : sequence of str
        Names of the generalized coordinates (n_q of them).
    mass : ndarray, shape (n_v, n_v), or callable q -> ndarray
        Mass matrix (constant or configuration dependent).
    constraints : sequence of Constraint
    potential : callable (t, q) -> float, optional
        Potential energy V (J) of the conservative forces.
    potential_gradient : callable (t, q) -> array_like (n_v,), optional
        ``dV/dq`` (with a kinematic map, the generalized force's ``H(q)^T dV/dq``); the force
        ``-dV/dq`` is applied. Required when ``potential`` is given.
    forces : callable (t, q, v) -> array_like (n_v,), optional
        Other applied generalized forces (counted as applied work in the energy balance).
    inertial : callable (t, q, v) -> array_like (n_v,), optional
        The velocity-dependent inertial forces of a configuration-dependent mass matrix
        (Coriolis and centrifugal: ``-(dM/dt) v + (1/2) d(v^T M v)/dq``), on the right-hand
        side with the applied forces. They do no work on the kinetic energy
        ``(1/2) v^T M(q) v`` (``v . f_inertial = -(1/2) v^T (dM/dt) v``, which the kinetic
        energy's own ``dM/dt`` term cancels), so they are counted in no work term; passed as
        ``forces`` they would be counted as applied work and the energy balance would be wrong.
    damping : callable (t, q, v) -> array_like (n_v,), optional
        Dissipative generalized forces (counted as damping work).
    pairs : sequence of FrictionPair
    tangential : callable (t, q) -> array_like, shape (p_rows, n_v)
        The tangential Jacobian ``W`` (row i: sliding velocity of pair i; a pair of ``dim``
        d has d consecutive rows).
    tangential_bias : callable (t, q, v) -> array_like (p_rows,), optional
        ``(dW/dt) v``; default a central difference.
    compiled : nonsmooth.generalized.generated.CompiledTerms, optional
        The same terms as one numba function (with a constant mass matrix): each evaluation is
        then one compiled call (:mod:`nonsmooth.generalized.generated`) instead of the callables
        from Python. The callables stay the definition: ``simulate`` checks the compiled terms
        against them at the initial state (:meth:`check_compiled`). Not with a kinematic
        map (``velocities``, ``qdot``, ``project``): the generated module integrates
        ``dq/dt = v``.
    velocities : sequence of str, optional
        Names of the velocity coordinates (n_v of them); default the coordinates' (n_v = n_q).
    qdot : callable (q, v) -> array_like (n_q,), optional
        The kinematic map ``dq/dt = H(q) v``, linear in ``v`` (:meth:`System.qdot`); required
        when n_v != n_q; default ``dq/dt = v``.
    project : callable q -> array_like (n_q,), optional
        ``q`` moved onto its manifold (:meth:`System.project`: ``q / |q|`` for a unit
        quaternion), applied at the run's start, phase ends and events; default none.
    """

    def __init__(
        self,
        coordinates: Sequence[str],
        mass,
        constraints: Sequence[Constraint] = (),
        *,
        potential: Callable | None = None,
        potential_gradient: Callable | None = None,
        forces: Callable | None = None,
        inertial: Callable | None = None,
        damping: Callable | None = None,
        pairs: Sequence[FrictionPair] = (),
        tangential: Callable | None = None,
        tangential_bias: Callable | None = None,
        compiled=None,
        velocities: Sequence[str] | None = None,
        qdot: Callable | None = None,
        project: Callable | None = None,
    ):
        self.coordinate_names = list(coordinates)
        self.n_q = len(self.coordinate_names)
        if self.n_q == 0:
            raise ModelError("GeneralizedSystem needs at least one coordinate")
        self._kinematic_map(velocities, qdot, project, compiled)
        n = self.n_v  # the size of M, f and the columns of G and W
        if callable(mass):
            self._mass_fn = mass
            self._M = None
        else:
            M = np.asarray(mass, dtype=float)
            if M.shape != (n, n):
                raise ModelError(f"mass matrix has shape {M.shape}; expected ({n}, {n})")
            problem = check_mass_matrix(M)  # the same check as a configuration-dependent M's
            if problem:
                raise ModelError(f"{problem}: the mass matrix must be symmetric positive "
                                 "definite")
            self._M = M
            self._mass_fn = None
        if (potential is None) != (potential_gradient is None):
            raise ModelError("give both potential and potential_gradient, or neither")
        self._V = potential
        self._dV = potential_gradient
        self._forces = forces
        self._inertial = inertial
        self._damping = damping
        self._constraints = list(constraints)
        self.constraint_names = [nm for c in self._constraints for nm in c.names]
        self.constraint_kinds = [c.kind for c in self._constraints for _ in c.names]
        self.pairs = list(pairs)
        if self.pairs and tangential is None:
            raise ModelError("friction pairs need the tangential Jacobian: pass tangential=W(t, q)")
        self._W = tangential
        self._Wdv = tangential_bias
        self._finish()
        self._blocks = []
        row = 0
        for c in self._constraints:
            k = len(c.names)
            self._blocks.append((c, slice(row, row + k)))
            row += k
        self._zero_W = np.zeros((0, n))  # (0, n_v)
        if compiled is not None and self._M is None:
            raise ModelError("compiled terms need a constant mass matrix (give mass as an "
                             "array)")
        self.compiled = compiled

    def _kinematic_map(self, velocities, qdot, project, compiled) -> None:
        """Set ``n_v``, the velocity names and the kinematic map from the constructor's
        arguments; ModelError for n_v != n_q without ``qdot`` and for compiled terms with a
        kinematic map (the generated module integrates ``dq/dt = v``)."""
        if velocities is not None:
            self.velocity_names = velocities
            self.n_v = len(self.velocity_names)
            if self.n_v == 0:
                raise ModelError("GeneralizedSystem: velocities names no velocity coordinate")
        if self.n_v != self.n_q and qdot is None:
            raise ModelError(
                f"GeneralizedSystem: {self.n_q} coordinates and {self.n_v} velocities need the "
                "kinematic map dq/dt = H(q) v: pass qdot=qdot(q, v) (returning n_q values)")
        self._qdot, self._project = qdot, project
        if compiled is not None and (self.n_v != self.n_q or qdot is not None
                                     or project is not None):
            raise ModelError(
                "GeneralizedSystem: compiled terms (compiled=) support only the identity "
                "kinematic map dq/dt = v (their generated module integrates it, "
                f"nonsmooth.generalized.generated); this system has {self.n_q} coordinates, "
                f"{self.n_v} "
                "velocities" + (", a qdot" if qdot is not None else "")
                + (", a project" if project is not None else "")
                + ": leave out compiled= (the callables then run on the Python path)")

    def terms(self, t, q, v):
        M = self._M if self._M is not None else np.asarray(self._mass_fn(q), dtype=float)
        f = np.zeros(self.n_v)
        P_applied = P_damping = 0.0
        if self._dV is not None:
            f -= self._dV(t, q)
        if self._forces is not None:
            fa = np.asarray(self._forces(t, q, v), dtype=float)
            f += fa
            P_applied = float(fa @ v)
        if self._inertial is not None:  # no work on the kinetic energy: no power counted
            f += np.asarray(self._inertial(t, q, v), dtype=float)
        if self._damping is not None:
            fd = self._damping(t, q, v)
            f += fd
            P_damping = float(np.dot(fd, v))
        m = self.n_constraints
        phi = np.empty(m)
        gamma = np.empty(m)
        G = np.empty((m, self.n_v))
        phi_t = np.zeros(m)
        for c, sl in self._blocks:
            phi[sl] = c.phi(t, q)
            G[sl] = c.jacobian(t, q)
            gamma[sl] = c.gamma(t, q, v)
            if c.phi_t is not None:
                phi_t[sl] = c.phi_t(t, q)
        if self._W is None:
            W = self._zero_W
        else:
            W = np.empty((self.p_rows, self.n_v))
            W[:] = self._W(t, q)
        return Terms(M, f, phi, phi_t, G, gamma, W, P_applied, P_damping)

    def potential(self, t, q):
        return 0.0 if self._V is None else float(self._V(t, q))

    def qdot(self, q, v):
        """``dq/dt`` (n_q,): the ``qdot`` given, else ``v``."""
        return v if self._qdot is None else np.asarray(self._qdot(q, v), dtype=float)

    def project(self, q):
        """``q`` (n_q,) projected by the ``project`` given, else unchanged."""
        return q if self._project is None else np.asarray(self._project(q), dtype=float)

    @property
    def has_kinematic_map(self) -> bool:
        """Whether a ``qdot`` was given."""
        return self._qdot is not None

    @property
    def has_projection(self) -> bool:
        """Whether a ``project`` was given."""
        return self._project is not None

    @property
    def constant_mass(self) -> np.ndarray | None:
        """The mass matrix given as an array (n_v, n_v), or None for a function of ``q``."""
        return self._M

    def generated_kernels(self, plan: np.ndarray, Wt: np.ndarray, size: int):
        """The kernel module generated around the compiled terms (:attr:`compiled`) with the
        run's ``plan`` and constant ``Wt``, and its compiled family
        (:class:`~nonsmooth.generalized.family.GeneratedFamily`, evaluation buffer of ``size``
        floats): ``(module, family)``."""
        from .generalized.family import GeneratedFamily
        from .generalized.generated import kernel_module

        module = kernel_module(self.compiled, plan, Wt)
        return module, GeneratedFamily(module, (self.compiled.parameters,), size=size)

    def nonfinite_source(self, t, q, v) -> str | None:
        calls = [("forces(t, q, v)", self._forces, (t, q, v)),
                 ("inertial(t, q, v)", self._inertial, (t, q, v)),
                 ("damping(t, q, v)", self._damping, (t, q, v)),
                 ("potential_gradient(t, q)", self._dV, (t, q)),
                 ("mass(q)", self._mass_fn, (q,)),
                 ("tangential(t, q)", self._W, (t, q))]
        for c in self._constraints:
            calls += [(f"constraint {c.name!r} phi(t, q)", c.phi, (t, q)),
                      (f"constraint {c.name!r} jacobian(t, q)", c.jacobian, (t, q)),
                      (f"constraint {c.name!r} gamma(t, q, v)", c.gamma, (t, q, v)),
                      (f"constraint {c.name!r} phi_t(t, q)", c.phi_t, (t, q))]
        for what, fn, args in calls:
            if fn is not None and not finite(fn(*args)):
                return f"the GeneralizedSystem's {what}"
        return None

    def kernel_key(self) -> str | None:
        """The hash that names the generated module of the compiled terms
        (:mod:`nonsmooth.generalized.generated`), or None without them."""
        if self.compiled is None:
            return None
        from .generalized.generated import _key, small_stage

        return _key(self.compiled.function, self.compiled.potential,
                    small_stage(self.n_v, self.n_constraints, self.n_pairs))

    def check_compiled(self, t: float, q: np.ndarray, v: np.ndarray, rtol: float = 1e-9) -> None:
        """Raise ModelError when the compiled terms (``compiled``) differ from the callables at
        ``(t, q, v)`` by more than ``rtol`` relative to each term's largest entry (or 1)."""
        if self.compiled is None:
            return
        n, m, p = self.n_q, self.n_constraints, self.n_pairs
        got = (np.zeros((n, n)), np.zeros(n), np.zeros(m), np.zeros(m), np.zeros((m, n)),
               np.zeros(m), np.zeros((self.p_rows, n)), np.zeros(self.p_rows))
        q, v = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float)
        powers = self.compiled.function(float(t), q, v, self.compiled.parameters, *got)
        T = self.terms(t, q, v)
        want = (T.M, T.f, T.phi, T.phi_t, T.G, T.gamma, T.W,
                self.tangential_bias(t, q, v) if p else np.zeros(0))
        names = ("M", "f", "phi", "phi_t", "G", "gamma", "W", "tangential_bias")
        pairs = list(zip(names, got, want, strict=True)) + [
            ("P_applied", powers[0], T.P_applied), ("P_damping", powers[1], T.P_damping)]
        if self.compiled.potential is not None:
            pairs.append(("potential", self.compiled.potential(float(t), q,
                                                               self.compiled.parameters),
                          self.potential(t, q)))
        for name, a, b in pairs:
            a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
            diff = float(np.max(np.abs(a - b), initial=0.0))
            if not diff <= rtol * scale:
                fn = self.compiled.function.py_func.__qualname__
                raise ModelError(f"compiled terms {fn}: {name} differs from the system's "
                                 f"callables by {diff:.3g} at t = {t:.6g} s (allowed "
                                 f"{rtol * scale:.3g}); the two must describe the same system")

    def tangential_bias(self, t, q, v):
        if self._Wdv is not None:
            return np.atleast_1d(np.asarray(self._Wdv(t, q, v), dtype=float))
        return super().tangential_bias(t, q, v)
