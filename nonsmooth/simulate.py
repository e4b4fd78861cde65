"""simulate(): smooth phases between events, event location, mode switches, outputs.

Between events every frictional pair keeps its mode (slip+ / slip-), so the right-hand side is
smooth and can be evaluated past an event (the integrator's dense output and the event root
finder rely on that). A slipping pair's sliding velocity reaching zero is located on the step,
the transition problem (:meth:`nonsmooth.dynamics.Dynamics.transition`) decides the new mode and
the integration restarts fresh from the event: nothing is cached across a discontinuity.

Integrators (one :class:`~nonsmooth.run.methods.Method` each, by name in :data:`METHODS`:
:mod:`nonsmooth.run.methods`), behind one event loop (:func:`_integrate_phases`,
:func:`_phase`) and a stepper protocol (``step()``, ``dense_output()``, ``state_at(t)``):

* fixed step ``"RK4"`` (classical Runge-Kutta) and ``"Euler"`` (explicit, first order) with step
  ``dt`` (:class:`_FixedStepper`); events are located on the cubic Hermite interpolant of the
  step, and the step is then redone exactly up to the event;
* adaptive ``"RK45"``, ``"DOP853"``, ``"RK23"``, ``"Radau"``, ``"BDF"``, ``"LSODA"``, scipy's
  ``OdeSolver`` classes stepped one step at a time (:class:`_ScipyStepper`), events located as
  :func:`scipy.integrate.solve_ivp` does (brentq on the dense output).

Output is on the uniform grid ``t0, t0 + dt, ...`` (``dt`` defaults to the model's, else
``(t_end - t0) / 1000``), or at the times ``t_eval``. Time stops (``tstops``) end a phase
exactly at each given time and start the next fresh from it (:class:`_Schedule`,
:func:`_restart_at_stop`); the knots of the dense output (``Result.sol``) are kept as the run
goes (``_Run.knots``).
"""

from __future__ import annotations

import functools
import math
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .core.layout import StateLayout
from .diagnose import user_frame
from .dynamics import DEFAULT_ALPHA, DEFAULT_BETA, Dynamics
from .errors import (
    ConstraintError,
    IntegrationError,
    ModelError,
    NonsmoothError,
    UserFunctionError,
)
from .limits import (
    DRIFT_LIMIT,
    ENERGY_WARNING,
    MAX_EVALUATIONS,
    MAX_OUTPUTS,
    SMALL_SYSTEM,
)
from .result import Result
from .run.events import UserEvent
from .run.loop import _integrate_phases, _take_time_steps
from .run.methods import (
    ADAPTIVE_METHODS,
    DEFAULT_TOLERANCES,
    FIXED_STEP_METHODS,
    METHODS,
    Method,
    default_method,
    default_tolerances,
    method_for,
)
from .run.motions import check_given_motions
from .run.schedule import _check_options, _schedule, _time_span
from .run.state import _Run
from .run.steppers import _FixedStepper  # noqa: F401 - re-exported: the old import path
from .system import System

__all__ = ["simulate", "FIXED_STEP_METHODS", "ADAPTIVE_METHODS", "METHODS", "project",
           "DEFAULT_TOLERANCES",
           "MAX_EVALUATIONS", "MAX_OUTPUTS", "ENERGY_WARNING"]


def resolve_laws(system: System, friction) -> list:
    """The friction law object of every pair from ``simulate``'s ``friction`` argument."""
    from .friction import FrictionLaw

    names = [pr.name for pr in system.pairs]
    if friction is None or isinstance(friction, (str, FrictionLaw)):
        return [pr.make_law(friction) for pr in system.pairs]
    if isinstance(friction, dict):
        unknown = [k for k in friction if k not in names]
        if unknown:
            raise ValueError(f"friction: no frictional pair named {unknown}; pairs: {names}")
        return [pr.make_law(friction.get(pr.name)) for pr in system.pairs]
    from .friction import LAWS

    raise ValueError(f"friction = {friction!r}: give a law name ({', '.join(LAWS)}), "
                     "a FrictionLaw, or a dict {pair name: law}")


def project(system: System, t: float, q: np.ndarray, v: np.ndarray, *, tol: float = 1e-12,
            max_iter: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Make ``(q, v)`` consistent with the constraints (least-norm Gauss-Newton corrections).

    Returns ``(q, v)`` with ``|Phi(q, t)| <= tol`` and ``G v + Phi_t = 0``; raises
    :class:`ConstraintError` when the position constraints cannot be satisfied from ``q``.
    ``q`` (n_q,) is first projected onto its own manifold (``system.project``, e.g. a unit
    quaternion); with a kinematic map each correction ``dx`` (n_v,: ``G`` is the
    velocity-level Jacobian, ``dPhi = G dx``) moves ``q`` by ``H(q) dx = qdot(q, dx)`` and
    is projected again.
    """
    q = np.array(q, dtype=float)
    v = np.array(v, dtype=float)
    mapped, projects = system.has_kinematic_map, system.has_projection
    if projects:
        q = np.array(system.project(q), dtype=float)
    if system.n_constraints == 0:
        return q, v
    for _ in range(max_iter):
        T = system.terms(t, q, v)
        err = float(np.max(np.abs(T.phi)))
        if err <= tol:
            break
        dx = np.linalg.lstsq(T.G, T.phi, rcond=None)[0]
        q = q - (system.qdot(q, dx) if mapped else dx)
        if projects:
            q = np.array(system.project(q), dtype=float)
    else:
        raise ConstraintError(
            f"the initial configuration does not satisfy the constraints (max |Phi| = {err:.3g} "
            f"after {max_iter} corrections) and could not be assembled; constraints: "
            f"{system.constraint_names}. Give initial positions closer to an assembled pose")
    T = system.terms(t, q, v)
    v = v - np.linalg.lstsq(T.G, T.G @ v + T.phi_t, rcond=None)[0]
    return q, v


# ------------------------------------------------------------------------------- entry point
def simulate(model, t_span=None, *, method: str | Method | None = None, dt: float | None = None,
             t_eval=None, tstops=None, rtol: float | None = None, atol=None,
             alpha: float | None = None,
             beta: float | None = None, friction=None, events: Sequence[Callable] = (),
             q0=None, v0=None, max_step: float = math.inf,
             progress: Callable[[float], None] | None = None, throw: bool = True,
             max_evaluations: int = MAX_EVALUATIONS, timeout: float | None = None,
             max_outputs: int = MAX_OUTPUTS, derived: bool = True,
             redundant: str | None = None) -> Result:
    """Simulate a model over ``t_span``.

    Parameters
    ----------
    model : nonsmooth.Model, System or PlanarModel
        What to simulate. A bare ``System`` needs ``q0`` and ``v0``.
    t_span : float or (float, float), optional
        End time, or (start, end) in s; default ``(0, model.t_end)`` (a bundled model's own
        end time; 1 s for a model built without one).
    method : str or Method, optional
        ``"RK4"``, ``"Euler"`` (fixed step ``dt``) or a ``solve_ivp`` method (the names of
        :data:`METHODS`; an unknown one raises ``UnknownMethodError`` listing them), or a
        :class:`~nonsmooth.run.methods.Method` object. Default (the
        command line's too): ``"DOP853"`` with set-valued Coulomb friction only (adaptive,
        event-driven, 8th order: tight tolerances cost few steps, so the default is accurate);
        ``"Radau"`` (implicit, the most accurate here) as soon as a pair uses a smooth law:
        LuGre's bristles and steep regularizations are stiff. ``"LSODA"`` (stiffness
        switching) is 2-4 times faster on these models at a slightly lower accuracy
        (``benchmarks/friction_backends.py``).
        ``"MoreauJean"``: Moreau-Jean time-stepping (fixed steps ``dt``, which must be given;
        rigid contacts' impacts, contact and Coulomb friction resolved as one impulse problem
        per step, no event located; ``nonsmooth.run.methods.moreau_jean(theta=...,
        facets=...)`` for its options). A model with rigid contacts (``normal="rigid"``) runs
        with it or event-driven with an adaptive method (impacts, closures and openings as
        events: :mod:`nonsmooth.run.rigid_events`); the fixed-step methods refuse it.
    dt : float, optional
        Step of the fixed-step methods and output spacing (s) when ``t_eval`` is not given;
        default the model's ``dt``, else ``(t_end - t0) / 1000``.
    t_eval : array_like, shape (k,), optional
        Output times (s), increasing, within ``t_span`` (may be irregular), as in
        ``solve_ivp``: the result has exactly these rows, and the run still goes on to
        ``t_end`` (user events after the last output are found). The adaptive methods give
        them from their dense output; the fixed-step methods keep stepping on ``t0 + k dt``
        and give them from each step's cubic Hermite interpolant (4th order, the order of RK4:
        the outputs do not change the steps).
    tstops : sequence of float, optional
        Time stops (s), as in DifferentialEquations.jl: the integration ends a phase exactly at
        each (strictly increasing, inside the open span ``(t0, t_end)``: else a ValueError;
        the model's own outside a shorter span are left out) and restarts fresh from it, for
        every method: put a stop at each discontinuity in time of a user function (a step in a
        force, a clutch that engages) and the steps never straddle it. Each phase evaluates the
        functions of time at times up to (just below) its stop, the next from the stop on, so a
        step written ``F(t) = a if t < t_s else b`` is integrated exactly. Default: the model's own
        ``Model.tstops`` (e.g. the drivetrain models' clutch engagements). Event functions that
        change sign across a stop (a stuck pair that a step in a load breaks loose) fire there.
        Stops are not outputs unless they are on the output grid (an output at a stop shows the
        values from the stop on).
    rtol : float, optional
        Relative tolerance of the adaptive methods; default :data:`DEFAULT_TOLERANCES` (1e-11
        for the explicit methods: the belt's stick-slip period to ~3e-10; 1e-8 for the
        implicit ones, whose cost grows fast with the accuracy on stiff laws), or the model
        family's own (``System.default_tolerances``: a frictionless spatial model's DOP853
        5e-13, atol 5e-15).
    atol : float or array_like, shape (n_q + n_v + n_z,), optional
        Absolute tolerance: one number, or one per state component of ``y = [q, v, z]``
        (``Result.y``'s rows; ``z`` the smooth laws' internal states); the work integrals of
        the energy balance take the smallest given value. Default 1e-13 (explicit methods),
        1e-10 (implicit), or the model family's own with its rtol.
    alpha, beta : float, optional
        Baumgarte parameters (1/s); default the model's, else 10.
    friction : str, FrictionLaw or dict, optional
        The friction law of every pair (``"coulomb"``, ``"lugre"``, ``"regularized"``,
        ``"bristle"``), or a
        dict ``{pair name: law}`` overriding some pairs; default each pair's own law. The laws
        take their parameters from the pair's friction description (``FrictionPair.params``).
    events : sequence of callable
        User events ``g(t, q, v)`` with optional ``terminal`` and ``direction`` attributes.
    q0, v0 : array_like, shapes (n_q,), (n_v,), optional
        Initial coordinates / velocities (default the model's); projected onto the constraints
        (and ``q0`` by the family's ``project``, e.g. normalized as a unit quaternion).
    max_step : float
        Largest step of the adaptive methods (s).
    progress : callable(t), optional
        Called at each output time (for progress display on long runs).
    throw : bool
        Raise on failure (default); with False return a Result with ``status = -1`` holding
        every output up to the failure. Either way nothing computed is lost: a raised
        exception carries the partial Result as ``exc.result`` (so does a ``KeyboardInterrupt``,
        which is always re-raised).
    max_evaluations : int
        Budget of right-hand-side evaluations (default :data:`MAX_EVALUATIONS`); a run that
        uses it up fails with :class:`~nonsmooth.errors.BudgetError` (partial result kept).
    timeout : float, optional
        Wall-clock budget (s) of the run, same handling (numba's compilation of kernels, on a
        first run, is not counted).
    max_outputs : int
        Most output rows ``(t_end - t0) / dt + 1`` (or ``len(t_eval)``) a run may ask for, and
        most steps of a fixed-step method (default :data:`MAX_OUTPUTS`); more is refused
        before the run starts (the rows are kept in memory).
    derived : bool
        Evaluate the dynamics at every output (default): the accelerations ``dv``, multipliers
        ``lam`` (joint reactions, driver forces), constraint drift ``phi``/``dphi`` and the
        model's outputs computed from them. False records the states, energies and work only,
        as MuJoCo's ``rollout`` records the state: the adaptive methods then evaluate the
        right-hand side at their steps' stages alone (about a fifth less time for a
        frictionless spatial model at 1001 outputs, ``benchmarks/spatial.py``). Reading a
        field it leaves out raises :class:`~nonsmooth.errors.NotRecordedError`; the
        energy-balance check still runs. Only for a model without friction pairs and
        without tracked faces (their output evaluations check the phase's modes): else a
        ValueError.
    redundant : {"remove", "refuse"}, optional
        Constraint rows that are combinations of the others (an over-constrained closed
        loop: a planar four-bar of spatial revolutes, the Bricard linkage): ``"remove"`` drops
        them with a warning naming them (the motion is the same; the reactions are one of
        the set that balances the loop; chosen again along the run where the rows kept
        become nearly dependent: ``Result.row_sets``), ``"refuse"`` raises a ``ModelError``
        naming them.
        Default: the model's own (a ``SpatialModel``'s ``redundant``, ``"remove"``); a model
        already compiled with rows removed is refused with ``"refuse"``.

    Returns
    -------
    Result

    Notes
    -----
    A successful run whose energy balance error exceeds :data:`ENERGY_WARNING` (1 %) of its
    energy scale warns (``RuntimeWarning``): an unstable or inaccurate integration.
    """
    from .model import as_model

    mdl = as_model(model, q0=q0, v0=v0, redundant=redundant)
    system = mdl.system
    restore = getattr(system, "restore_rows", None)  # rows chosen again by an earlier run
    if restore is not None:
        restore()
    t0, t_end = _time_span(mdl.t_end if t_span is None else t_span)
    if t_span is None and mdl.span_note:  # the span is a default the model file did not give
        warnings.warn(mdl.span_note, UserWarning, stacklevel=2)
    laws = resolve_laws(system, friction)
    method = (default_method(any(law.smooth for law in laws)) if method is None
              else method_for(method))
    tolerances = default_tolerances(system, method)  # the family's own, else the engine's
    rtol = tolerances[0] if rtol is None else rtol
    atol = tolerances[1] if atol is None else atol
    dt_given = mdl.dt if dt is None else dt  # (a time-stepping method needs one)
    dt = _check_options(t0, t_end, dt_given, rtol, atol, max_evaluations,
                        timeout, max_outputs, method, t_eval is None)
    given = tstops is not None  # checked against the span; the model's own are filtered
    if tstops is None:  # the model's own (the times its given inputs jump: a clutch engaging)
        tstops = mdl.tstops or None
    sched = _schedule(t0, t_end, dt, t_eval, tstops, max_outputs, method, given)
    breaks = system.motion_breaks(t0, t_end) if hasattr(system, "motion_breaks") else ()
    if len(breaks):  # a spline's breakpoints: its derivatives jump there
        sched.stops = np.union1d(sched.stops, breaks)
    _check_time_stepping(system, mdl.name, method, dt_given, events, t_eval, sched)
    _check_initial_state(mdl)
    if getattr(system, "compiled", None) is not None:  # the same terms as its callables
        system.check_compiled(t0, np.asarray(mdl.q0, dtype=float), np.asarray(mdl.v0, dtype=float))
    alpha = next(x for x in (alpha, mdl.alpha, DEFAULT_ALPHA) if x is not None)
    beta = next(x for x in (beta, mdl.beta, DEFAULT_BETA) if x is not None)
    check_given_motions(system, t0, t_end, alpha, beta)  # (f, df, ddf) that disagree
    dynamics = Dynamics(system, alpha=alpha, beta=beta, laws=laws)
    atol = _state_atol(atol, system, dynamics.layout.n_z, rtol, _initial_energy(system, t0, mdl))
    for law in laws:
        for text in law.warnings():
            warnings.warn(text, RuntimeWarning, stacklevel=2)
    user_events = UserEvent.wrap_all(events)
    run = _Run(system, dynamics, user_events, progress, max_evaluations=int(max_evaluations),
               timeout=timeout)
    run.derived = _check_derived(derived, system, mdl.name, method)
    wall = time.perf_counter()
    status, message, failure = _guarded_run(run, mdl, laws, method, t0, sched, dt, rtol, atol,
                                            max_step)
    wall = time.perf_counter() - wall
    rec, events, knots, status, message, failure = _kept_records(run, method, dt, status,
                                                                 message, failure)
    rec, constraint_names = run.named_rows(rec)  # rows chosen again: a column per row used
    result = Result.from_records(rec, events, mdl, laws=dynamics.laws,
                                 max_residual=run.max_residual,
                                 n_evaluations=dynamics.n_evaluations, n_steps=run.n_steps,
                                 step_solver=run.step_solver,
                                 method=method.name, dt=dt, alpha=alpha, beta=beta, status=status,
                                 message=message, wall_time=wall, knots=knots,
                                 knot_acceleration=run.side_acceleration,
                                 n_phases=run.n_phases, t_span=(t0, t_end),
                                 event_names=[ue.name for ue in user_events],
                                 layout=dynamics.layout, derived=derived,
                                 constraint_names=constraint_names)
    result.row_sets = [(t0 if k == 0 else start, names)  # the constraint rows from each time
                       for k, (start, names) in enumerate(run.row_sets)]
    branch = dynamics.stage.branch  # evaluations on a smooth law's load branch (if any)
    result.diagnostics["load_branch"] = 0 if branch is None else int(branch[1])
    # the relative tolerance that ran (a family may have its own default): NaN for fixed steps
    result.diagnostics["rtol"] = math.nan if method.fixed else float(rtol)
    # 1: the rigid contacts' slots of z hold a time step's impulses (a time-stepping method),
    # 0: their normal forces (an event-driven run; the impacts' impulses in the event log)
    result.diagnostics["time_stepping"] = int(method.time_stepping)
    if result.output_errors and failure is None:
        name, err = next(iter(result.output_errors.items()))
        failure = UserFunctionError(f"output {name!r} of model {mdl.name} failed: {err}")
        result.status, result.success, result.message = -1, False, str(failure)
    if failure is not None:
        failure.result = result
        if throw or isinstance(failure, KeyboardInterrupt):
            raise failure
        return result
    _warn_energy(result)
    return result


def _check_time_stepping(system, name: str, method: Method, dt, events, t_eval, sched) -> None:
    """A time-stepping method's run checked before it starts (``dt`` given, what the scheme
    takes: ``Method.check_run``); an event-driven run of a model with rigid contacts refused
    (they have no force law): named errors saying what to do."""
    if method.time_stepping:
        if dt is None:
            raise ValueError(f"method {method.name} needs its time step: give dt= (s), e.g. "
                             "dt=1e-3; the step decides where impacts are resolved")
        method.check_run(system, name, events=events, t_eval=t_eval, tstops=sched.stops)
    elif system.rigid_contacts:
        from .run.rigid_events import check_model

        check_model(system, name, method, events=events, t_eval=t_eval, tstops=sched.stops)


def _check_derived(derived, system, name: str, method: Method) -> bool:
    """``simulate``'s ``derived`` checked (a bool; False only for a model whose output
    evaluations check nothing: no friction pair, no tracked face). Returns whether the run
    evaluates its outputs: a fixed-step method evaluates its step ends anyway (the Result
    leaves them out all the same)."""
    if not isinstance(derived, (bool, np.bool_)):
        raise ValueError(f"derived must be True or False, got {derived!r}")
    if not derived and (system.n_pairs or len(system.abs_rows)):
        what = (f"{system.n_pairs} friction pair(s)" if system.n_pairs
                else f"{len(system.abs_rows)} tracked face(s) (|lambda_N| rows)")
        raise ValueError(
            f"derived=False: model {name} has {what}, and the evaluations at the outputs check "
            "the phase's stick/slip modes and faces (an output that contradicts them is an "
            "event stepped over); use derived=True (the default)")
    return bool(derived) or method.fixed


def _kept_records(run, method, dt, status, message, failure):
    """The run's records, events and knots, with its status, message and failure: a fixed-step
    run cut before its first output that drifted off the constraints (:func:`_step_too_large`:
    those rows are not the motion), which then fails with the step-size error."""
    rec, events, knots = run.recorder.arrays(), run.events, run.knots
    too_large = (None if not method.fixed or isinstance(failure, KeyboardInterrupt)
                 else _step_too_large(rec, method.name, dt, run.system.constraint_names))
    if too_large is None:
        return rec, events, knots, status, message, failure
    k, failure = too_large
    rec = {f: a[:k] for f, a in rec.items()}
    t_k = float(rec["t"][-1])
    return (rec, [e for e in events if e.t <= t_k], [kn for kn in knots if kn[0] <= t_k], -1,
            str(failure), failure)


def _step_too_large(rec: dict, method: str, dt: float,
                    names: list) -> tuple[int, IntegrationError] | None:
    """A fixed-step run's first output whose constraint drift ``|Phi|`` exceeds
    :data:`DRIFT_LIMIT`: ``(its row index, the IntegrationError saying the step is too large)``,
    or None. Index 0 (the projected initial state) is never one."""
    phi = np.asarray(rec["phi"], dtype=float)
    if phi.ndim != 2 or phi.shape[0] < 2 or not phi.shape[1]:
        return None
    drift = np.max(np.abs(np.nan_to_num(phi, nan=np.inf)), axis=1)
    bad = np.flatnonzero(drift[1:] > DRIFT_LIMIT)
    if not bad.size:
        return None
    k = int(bad[0]) + 1
    row = int(np.argmax(np.abs(np.nan_to_num(phi[k], nan=np.inf))))
    t_k, t_ok = float(rec["t"][k]), float(rec["t"][k - 1])
    return k, IntegrationError(
        f"the step dt = {dt:g} s is too large for the mechanism's time scale (method "
        f"{method}): at t = {t_k:.6g} s the constraints drift by |Phi| = {drift[k]:.3g} "
        f"(constraint {names[row] if row < len(names) else row!r}; more than "
        f"{DRIFT_LIMIT:g}), so the rows from there on are not the motion and are not kept "
        f"(results up to t = {t_ok:.6g} s); reduce dt (e.g. dt = {dt / 10:g}) or use an "
        "adaptive method (DOP853, RK45)")


def _initial_energy(system, t0: float, mdl) -> float:
    """``T + |V|`` (J) at the model's initial state: the energy scale of the run's start."""
    q0, v0 = np.asarray(mdl.q0, dtype=float), np.asarray(mdl.v0, dtype=float)
    try:
        T0 = 0.5 * float(v0 @ system.terms(t0, q0, v0).M @ v0)
        energy = abs(T0) + abs(float(system.potential(t0, q0)))
    except Exception:  # noqa: BLE001 - a model error is reported by the run itself
        return 0.0
    return energy if math.isfinite(energy) else 0.0


def _state_atol(atol, system, n_z: int, rtol: float = 0.0,
                energy: float = 0.0) -> np.ndarray:
    """``atol`` for the integrated state ``[q, v, work, z]`` (shape ``(n_q + n_v + N_WORK + n_z,)``)
    from a number or a vector given for ``y = [q, v, z]``: :meth:`StateLayout.atol
    <nonsmooth.core.layout.StateLayout.atol>` of the system's layout (the work accumulators
    take the smallest value, the constraint forces' work at least ``rtol`` times the energy
    ``energy`` (J) at the start)."""
    return StateLayout(system.n_q, system.n_v, n_z).atol(atol, system.coordinate_names, rtol,
                                                          energy)


def _check_initial_state(mdl) -> None:
    for name, arr, names in (("q0", mdl.q0, mdl.system.coordinate_names),
                             ("v0", mdl.v0, mdl.system.velocity_names)):
        bad = [names[i] for i in np.flatnonzero(~np.isfinite(arr))]
        if bad:
            raise ModelError(f"the initial state {name} is not finite at coordinate(s) "
                             f"{', '.join(bad)}: give finite initial positions and velocities")


def _guarded_run(run, mdl, laws, method, t0, sched, dt, rtol, atol, max_step):
    """The integration with every failure caught and named: ``(status, message, failure)``
    (``failure`` the exception to re-raise with the partial result, or None)."""
    try:
        with np.errstate(all="ignore"), _blas_threads(mdl.system):  # overflow: named later
            how, t_reached = _integrate(run, mdl, laws, method, t0, sched, dt, rtol, atol,
                                        max_step)
    except NonsmoothError as exc:
        interrupt = _interrupt_behind(exc)  # e.g. a user function's error, named, around it
        if interrupt is not None:
            return _interrupted(run, interrupt)
        named = (_nonfinite_cause(run, method, dt)  # a user function's NaN behind it?
                 if isinstance(exc, IntegrationError) and "non-finite" in str(exc) else None)
        failure = named or exc
        return -1, str(failure), failure
    except KeyboardInterrupt as exc:  # Ctrl-C (or SIGTERM turned into it by the command line)
        return _interrupted(run, exc)
    except Exception as exc:  # raised by user code (a force, driver, event ...): name it
        interrupt = _interrupt_behind(exc)
        if interrupt is not None:  # the signal arrived inside a compiled call
            return _interrupted(run, interrupt)
        named = _nonfinite_cause(run, method, dt)
        if named is not None:  # a NaN from user code reached a solver (e.g. "A must be finite")
            return -1, str(named), named
        where = user_frame(exc)
        return -1, (f"{type(exc).__name__}: {exc} (raised in {where or 'the model'} at "
                    f"t = {run.t_now:.6g} s)"), exc
    if how == "user":
        return 1, f"a terminal user event stopped the run at t = {t_reached:.10g} s", None
    return 0, "the simulation reached the end time", None


def _interrupted(run, exc: KeyboardInterrupt):
    """The ``(status, message, failure)`` of an interrupted run (SIGINT, or the command line's
    SIGTERM)."""
    what = getattr(exc, "signal_name", "SIGINT")
    return -1, f"interrupted ({what}) at t = {run.t_now:.6g} s", exc


def _interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt an exception wraps, if any: a signal whose Python handler ran
    inside a numba-compiled call (Ctrl-C, the command line's SIGTERM) ends that call with
    ``SystemError: CPUDispatcher(...) returned a result with an exception set``, the interrupt
    its cause; so it is an interrupt, not a failure of the model."""
    seen = 0
    cause = exc.__cause__ or exc.__context__
    while cause is not None and seen < 16:
        if isinstance(cause, KeyboardInterrupt):
            return cause
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return None


def _nonfinite_cause(run, method, dt) -> UserFunctionError | None:
    """After an unexpected exception: the user function that returned NaN/inf between the last
    output and the failing evaluation, if one did."""
    if not run.recorder.n_rows or not math.isfinite(run.t_now):
        return None
    t, y = run.recorder.last_t, run.recorder.last_y
    try:
        error = run.nonfinite(t, y, max(run.t_now - t, 0.0), method.name, dt)
    except Exception:  # the user function raises there too: leave the original report
        return None
    return error if isinstance(error, UserFunctionError) else None


def _blas_threads(system):
    """One BLAS thread for a small system (the KKT solves are tiny), else leave BLAS alone."""
    import contextlib

    size = system.n_v + system.n_constraints + system.n_pairs
    if size > SMALL_SYSTEM:
        return contextlib.nullcontext()
    return _threadpools().limit(limits=1, user_api="blas")


@functools.cache
def _threadpools():
    """The process's thread pools (threadpoolctl), found once: scanning the loaded libraries
    costs about a millisecond, a run of a small model a few."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _integrate(run, mdl, laws, method, t0, sched, dt, rtol, atol, max_step):
    """Consistent initial state, modes and faces, then the integration loop."""
    system = mdl.system
    q, v = project(system, t0, mdl.q0, mdl.v0)
    v_T = system.terms(t0, q, v).W @ v
    if run.vector is not None:  # pairs of dim > 1: d states per state of a law
        from .vector_friction import initial_states

        z0 = initial_states(run.dyn, v_T)
    else:
        z0 = [s for law, vt in zip(laws, v_T, strict=True) for s in law.initial_state(float(vt))]
    z0 = np.concatenate((np.array(z0, dtype=float), np.zeros(system.n_contacts)))  # (set by
    y = run.layout.join(q, v, None, z0)  # the run's first update_contacts: impact speeds)
    if method.time_stepping:  # impacts and friction inside its steps: no modes, faces, events
        return _take_time_steps(run, method, sched, t0, y)
    if system.rigid_contacts:  # impacts, closures and openings as the run's events
        from .run.rigid_events import RigidContactRun

        return RigidContactRun(run, method, rtol, atol, max_step).integrate(sched, t0, y)
    modes = run.initial_modes(t0, y)
    run.initial_faces(t0, y, modes)
    return _integrate_phases(run, method, sched, t0, y, dt, modes, rtol, atol, max_step)


def _warn_energy(result: Result) -> None:
    d = result.diagnostics
    if d["energy_balance_scaled"] > ENERGY_WARNING:
        warnings.warn(
            f"energy balance error {d['energy_balance_scaled']:.1%} of the energy scale (over "
            f"{ENERGY_WARNING:.0%}): the integration is inaccurate or unstable (method "
            f"{result.method}, dt = {result.dt:g} s); reduce dt or use an adaptive method",
            RuntimeWarning, stacklevel=3)
