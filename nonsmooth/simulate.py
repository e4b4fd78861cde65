"""simulate(): smooth phases between events, event location, mode switches, outputs.

Between events every frictional pair keeps its mode (slip+ / slip-), so the right-hand side is
smooth and can be evaluated past an event (the integrator's dense output and the event root
finder rely on that). A slipping pair's sliding velocity reaching zero is located on the step,
the transition problem (:meth:`nonsmooth.dynamics.Dynamics.transition`) decides the new mode and
the integration restarts fresh from the event: nothing is cached across a discontinuity.

Integrators, behind one event loop (:func:`_integrate_phases`, :func:`_phase`) and a stepper
protocol (``step()``, ``dense_output()``, ``state_at(t)``):

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
from dataclasses import dataclass

import numpy as np

from .core.event_kinds import EVENT_KINDS as _EVENT_CODES
from .core.event_kinds import engine_value as _engine_value
from .core.layout import StateLayout
from .diagnose import check_mass_matrix, nonfinite_error, user_frame
from .dynamics import DEFAULT_ALPHA, DEFAULT_BETA, Dynamics, Evaluation
from .errors import (
    BudgetError,
    ConstraintError,
    IntegrationError,
    ModelError,
    NonsmoothError,
    UserFunctionError,
)
from .events import EventRecord, UserEvent, crossed, hermite, locate, mode_name
from .limits import (
    DRIFT_LIMIT,
    ENERGY_WARNING,
    MAX_EVALUATIONS,
    MAX_OUTPUTS,
    SMALL_SYSTEM,
    ZENO_LIMIT,
)
from .recorder import Recorder
from .result import Result
from .system import System

__all__ = ["simulate", "FIXED_STEP_METHODS", "ADAPTIVE_METHODS", "METHODS", "project",
           "DEFAULT_TOLERANCES",
           "MAX_EVALUATIONS", "MAX_OUTPUTS", "ENERGY_WARNING"]

FIXED_STEP_METHODS = ("RK4", "Euler")
ADAPTIVE_METHODS = ("RK45", "DOP853", "RK23", "Radau", "BDF", "LSODA")
METHODS = FIXED_STEP_METHODS + ADAPTIVE_METHODS
IMPLICIT_METHODS = ("Radau", "BDF", "LSODA")

#: Default (rtol, atol) of the adaptive methods: tight for the explicit ones (DOP853 takes few
#: more steps for them, and events are located on its 7th-order dense output), looser for the
#: implicit ones used with the stiff smooth laws.
DEFAULT_TOLERANCES = {"explicit": (1e-11, 1e-13), "implicit": (1e-8, 1e-10)}

_FACE = {1.0: "+", -1.0: "-", 0.0: "0"}

#: The transition's preference order of the modes of a pair after each kind of event: at rest
#: it sticks if static friction can hold it; a reserve that ran out slips the way the friction
#: was resisting (stick only if it cannot).
_TRANSITION_OPTIONS = {"velocity": (0.0, 1.0, -1.0), "reserve+": (1.0, 0.0),
                       "reserve-": (-1.0, 0.0), "reserve": (2.0, 0.0)}

def _rk4_step(rhs, t, y, f0, h):
    k2 = rhs(t + 0.5 * h, y + 0.5 * h * f0)
    k3 = rhs(t + 0.5 * h, y + 0.5 * h * k2)
    k4 = rhs(t + h, y + h * k3)
    return y + (h / 6.0) * (f0 + 2.0 * (k2 + k3) + k4)


def _euler_step(rhs, t, y, f0, h):
    return y + h * f0


_STEPPERS = {"RK4": _rk4_step, "Euler": _euler_step}


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
    raise ValueError(f"friction = {friction!r}: give a law name (coulomb, lugre, regularized), "
                     "a FrictionLaw, or a dict {pair name: law}")


def project(system: System, t: float, q: np.ndarray, v: np.ndarray, *, tol: float = 1e-12,
            max_iter: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """Make ``(q, v)`` consistent with the constraints (least-norm Gauss-Newton corrections).

    Returns ``(q, v)`` with ``|Phi(q, t)| <= tol`` and ``G v + Phi_t = 0``; raises
    :class:`ConstraintError` when the position constraints cannot be satisfied from ``q``.
    """
    q = np.array(q, dtype=float)
    v = np.array(v, dtype=float)
    if system.n_constraints == 0:
        return q, v
    for _ in range(max_iter):
        T = system.terms(t, q, v)
        err = float(np.max(np.abs(T.phi)))
        if err <= tol:
            break
        q = q - np.linalg.lstsq(T.G, T.phi, rcond=None)[0]
    else:
        raise ConstraintError(
            f"the initial configuration does not satisfy the constraints (max |Phi| = {err:.3g} "
            f"after {max_iter} corrections) and could not be assembled; constraints: "
            f"{system.constraint_names}. Give initial positions closer to an assembled pose")
    T = system.terms(t, q, v)
    v = v - np.linalg.lstsq(T.G, T.G @ v + T.phi_t, rcond=None)[0]
    return q, v


class _Run:
    """The state of one simulation run (everything that changes in time lives here)."""

    def __init__(self, system, dynamics, user_events, progress, *,
                 max_evaluations=MAX_EVALUATIONS, timeout=None):
        self.system = system
        self.max_evaluations = max_evaluations
        self.timeout = timeout
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self._next_clock = 0
        self.t_now = math.nan  # time of the latest evaluation (where a failure happened)
        from .system import GeneralizedSystem

        self.check_mass = isinstance(system, GeneralizedSystem) and system.constant_mass is None
        self.dyn = dynamics
        # the integrated state y = [q | v | work | z] (core.layout: its one owner)
        self.layout = L = dynamics.layout
        self.user_events = user_events
        self.progress = progress
        self.events: list[EventRecord] = []
        n, m, p, pr = system.n_q, system.n_constraints, system.n_pairs, system.p_rows
        self.recorder = Recorder({"y": L.size, "dv": n, "lam": m,
                                  "lambda_N": p, "N": p, "F_T": pr, "v_T": pr, "modes": p,
                                  "phi": m, "dphi": m})
        # the knots of the dense output besides the output rows: the initial state, both sides
        # of every event and time stop, the final state: (t, y, before, after), each side an
        # acceleration dv or the (time, modes, faces) to evaluate it at when the dense output
        # is first used (:meth:`side_acceleration`: no evaluation during the run)
        self.knots: list[tuple] = []
        # the right-hand side is evaluated at times <= t_clamp: a phase that ends at a time stop
        # sees the left limit of a function of time there (the next phase starts at it)
        self.t_clamp = math.inf
        self.n_phases = 0
        # the family's compiled entry points (None: the Python path only): the outputs of an
        # adaptive step evaluated together in one call, and, without user event functions,
        # whole phases in compiled calls (the model's user functions called back from them;
        # a pair of dim > 1 takes the Python steppers, whose event functions are evaluated in
        # Python: _Run.g_value; the compiled phases know scalar pairs only)
        self.family = dynamics.compiled_family()
        self.compiled = self.family is not None and not user_events and not dynamics.vector
        # pairs with set-valued Coulomb friction: modes and stick/slip events
        self.friction_pairs = [i for i in range(system.n_pairs)
                               if not dynamics.smooth[i] and dynamics.mu_s[i] > 0]
        self.mu_s = dynamics.mu_s
        # Coulomb pairs whose static and dynamic coefficients are equal (see _run_out)
        self.degenerate = np.abs(dynamics.mu_s - dynamics.mu_d) <= 1e-12 * dynamics.mu_s
        # pairs of dim > 1: their events, values and modes (nonsmooth.vector_friction)
        self.vector = None
        if dynamics.vector:
            from .vector_friction import VectorEvents

            self.vector = VectorEvents(self)
        # the rows whose sign (face) is tracked, named by their pair when it is its normal row
        by_row = {int(r): pr.name for r, pr in zip(system.normal_rows, system.pairs,
                                                    strict=True) if r >= 0}
        self.abs_names = [by_row.get(int(r), system.constraint_names[r])
                          for r in system.abs_rows]
        self._last = None
        self.faces = None
        self.face_threshold = 0.0
        self.max_residual = 0.0
        self._zeno_t = -math.inf
        self._zeno_count = 0
        self.n_steps = 0

    # ---------------------------------------------------------------- evaluation with a cache
    def charge(self, t):
        """Count one evaluation at ``t`` against the run's budget (evaluations, wall clock)."""
        self.t_now = t
        count = self.dyn.n_evaluations
        if count >= self.max_evaluations:
            raise BudgetError(
                f"the run used its budget of {self.max_evaluations:,} evaluations at t = {t:.6g} s "
                "(max_evaluations); raise it (--max-evaluations), shorten t_end, or loosen the "
                "tolerances / enlarge dt")
        if self.deadline is not None and count >= self._next_clock:
            self._next_clock = count + 64  # the clock is read every 64 evaluations or so
            if time.perf_counter() <= self.deadline:
                return
            raise BudgetError(
                f"the run exceeded its wall-clock timeout of {self.timeout:g} s at t = {t:.6g} s "
                "(timeout); raise it (--timeout) or shorten t_end")

    def ev_at(self, t, y, modes) -> Evaluation:
        """Evaluation in the current phase (modes and faces fixed), cached for the last state;
        at times beyond ``t_clamp`` (the phase's time stop) the left limit there."""
        t = min(t, self.t_clamp)
        last = self._last
        if last is not None and last[0] == t and last[2] is modes and np.array_equal(last[1], y):
            return last[3]
        self.charge(t)
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
        self._last = (t, y.copy(), modes, ev)
        return ev

    def fun(self, modes, cached=True):
        """The right-hand side for fixed modes; ``cached=False`` skips the cache lookup (the
        fixed-step loop reads ``self.last_ev`` instead)."""
        sq, sv, sz = self.layout.q, self.layout.v, self.layout.z  # slices made once
        evaluate = self.dyn.evaluate
        faces = self.faces

        def f(t, y):
            if cached:
                ev = self.ev_at(t, y, modes)
            else:
                t = min(t, self.t_clamp)
                self.charge(t)
                ev = evaluate(t, y[sq], y[sv], modes, faces, y[sz])
            self.last_ev = ev
            return np.concatenate((y[sv], ev.dv, ev.powers, ev.dz))  # dq/dt = v

        return f

    # ---------------------------------------------------------------- recording
    def record(self, t, y, ev, modes):
        if self.check_mass:  # a user's M(q): symmetric positive definite where it is recorded
            problem = check_mass_matrix(ev.M, t)
            if problem:
                raise UserFunctionError(f"GeneralizedSystem: {problem}")
        L = self.layout
        if ev.residual > self.max_residual:
            self.max_residual = ev.residual
        v = y[L.v]
        self.recorder.add_row(t=t, y=np.array(y), dv=ev.dv, lam=ev.lam, lambda_N=ev.lambda_N,
                              N=ev.N, F_T=ev.F_T, v_T=ev.v_T,
                              modes=np.where(self.dyn.smooth, np.nan, modes),
                              residual=ev.residual, phi=ev.phi, dphi=ev.dphi,
                              T=0.5 * float(v @ ev.M @ v), V=self.system.potential(t, y[L.q]))
        if self.progress is not None:
            self.progress(t)

    def outputs(self, times, Y, modes):
        """Evaluate, check and record the outputs of one adaptive step (times (k,), states
        Y (n_y, k)). Returns the index of the first output that contradicts the phase's modes
        or faces (an event stepped over), or None; the outputs before it are recorded."""
        dyn, sl = self.dyn, self.layout
        k = times.size
        if (self.family is None
                or dyn.n_evaluations + k > self.max_evaluations):  # the budget ends in the block
            return self._outputs_one_by_one(times, Y, modes)
        self.charge(float(times[-1]))
        dyn.n_evaluations += k - 1
        L = dyn.evaluation_layout
        Q = np.ascontiguousarray(Y[sl.q].T)
        V = np.ascontiguousarray(Y[sl.v].T)
        Z = np.ascontiguousarray(Y[sl.z].T)
        te = np.minimum(np.asarray(times, dtype=float), self.t_clamp)  # left limit at a stop
        out, T, Vp, good = self._evaluate_block(te, Q, V, Z, modes)

        def col(name):
            a, b = L[name]
            return out[:good, a:b]

        N, F_T, v_T, lam_abs = col("N"), col("F_T"), col("v_T"), col("lam_abs")
        v_tol = 1e-9 * np.maximum(1.0, np.max(np.abs(V[:good]), axis=1, initial=0.0))
        f_tol = 1e-9 * np.maximum(1.0, np.max(np.abs(N), axis=1, initial=0.0))
        bad = np.any(self.faces * lam_abs < -f_tol[:, None], axis=1)
        for i in self.friction_pairs:
            if modes[i] == 0.0:
                reserve = self.mu_s[i] * N[:, i]
                bad |= (reserve + F_T[:, i] < -f_tol) | (reserve - F_T[:, i] < -f_tol)
            else:
                bad |= modes[i] * v_T[:, i] < -v_tol
        first = int(np.argmax(bad)) if bad.any() else None
        keep = good if first is None else first
        if keep:
            self.record_block(times[:keep], Y[:, :keep].T, out[:keep], modes, T[:keep].copy(),
                              Vp[:keep].copy())
        if first is not None:
            return first
        if good < k:  # the kernel declined a row (an uncertified HLCP, a singular KKT ...):
            rest = self._outputs_one_by_one(times[good:], Y[:, good:], modes)  # named there
            return None if rest is None else good + rest
        return None

    def _evaluate_block(self, te, Q, V, Z, modes):
        """The evaluations of the rows ``(te, Q, V, Z)`` (k rows) in one compiled call of the
        family: ``(out (k, size), T (k,), V (k,), good)``, the outputs, the kinetic and
        potential energies (J) and the rows before the first one the kernel declined."""
        from .core.status import OK

        dyn, system = self.dyn, self.system
        k = te.size
        U = None
        if system.has_user_functions:  # the user functions' values at each row, copied (the
            # system may return one buffer it refills)
            U = np.stack([np.array(system.user_values(float(te[r]), Q[r], V[r]))
                          for r in range(k)])
        out, energies, row, status = self.family.evaluate_block(
            dyn.plan, dyn.Wt, np.ascontiguousarray(te), Q, V, Z, np.asarray(modes, dtype=float),
            np.asarray(self.faces, dtype=float), U)
        good = k if status == OK else row
        if energies is not None:
            return out, energies[0], energies[1], good
        return (out, _kinetic(self, V[:good], out[:good]),
                _potentials(self, te[:good], np.concatenate((Q[:good], V[:good]), axis=1)), good)

    def record_block(self, times, Y, out, modes, T, V):
        """Record rows evaluated together (states ``Y`` (k, n_y), evaluations ``out`` (k,
        size), kinetic and potential energies ``T, V`` (k,)), as :meth:`record` does one by
        one."""
        L = self.dyn.evaluation_layout

        def col(name):
            a, b = L[name]
            return out[:, a:b].copy()

        res = out[:, L["residual"][0]].copy()
        self.max_residual = max(self.max_residual, float(res.max()))
        self.recorder.add(
            t=np.array(times, dtype=float), y=np.array(Y), dv=col("dv"), lam=col("lam"),
            lambda_N=col("lambda_N"), N=col("N"), F_T=col("F_T"), v_T=col("v_T"),
            modes=np.tile(np.where(self.dyn.smooth, np.nan, modes), (len(times), 1)),
            residual=res, phi=col("phi"), dphi=col("dphi"), T=T, V=V)
        if self.progress is not None:
            self.progress(float(times[-1]))

    def _outputs_one_by_one(self, times, Y, modes):
        for j, tt in enumerate(times):
            yy = np.array(Y[:, j])
            ev = self.ev_at(float(tt), yy, modes)
            if self.inconsistent(yy, ev, modes):
                return j
            self.record(float(tt), yy, ev, modes)
        return None

    # ---------------------------------------------------------------- modes and events
    def initial_modes(self, t, y):
        L = self.layout
        q, v = y[L.q], y[L.v]
        modes = np.ones(self.system.n_pairs)
        if not self.system.n_pairs:
            return modes
        if self.vector is not None:
            modes = self.vector.initial_modes(t, y)
        else:
            v_T = self.system.terms(t, q, v).W @ v
            scale = self._velocity_scale(v)
            zero = []
            for i in range(self.system.n_pairs):
                if abs(v_T[i]) > 1e-12 * scale or i not in self.friction_pairs:
                    modes[i] = 1.0 if v_T[i] >= 0 else -1.0
                else:
                    zero.append(i)
            if zero:
                modes = self.dyn.transition(t, q, v, modes, zero, z=y[L.z])
        for i in self.friction_pairs:  # smooth-law pairs have no modes
            self.events.append(EventRecord(t, self.system.pairs[i].name, "start", "",
                                           mode_name(modes[i]), q.copy(), v.copy()))
        return modes

    @staticmethod
    def _velocity_scale(v):
        return max(1.0, float(np.max(np.abs(v)))) if v.size else 1.0

    def initial_faces(self, t, y, modes, crossed=()):
        """The face of the slot each slider bears on (sign of each load row, e.g. lambda_N).

        A zero multiplier takes the sign it has just after t (probed along the flow); one that
        stays at roundoff level (a rotation-lock moment that nothing loads) gets face 0: it adds
        nothing to the load until it exceeds ``face_threshold`` (a ``detach`` event). A row in
        ``crossed`` (its ``normal`` event fired at t) that crosses zero within the events' time
        resolution of t takes the face it has just after t: a slider reversing at a dead centre
        (its normal force and sliding velocity vanish at the same instant, and t lies a
        roundoff before the crossing), whose restart would otherwise find its crossing again,
        and again (issue 19)."""
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, None, y[L.z])
        scale = max(1.0, float(np.max(np.abs(ev.lam)))) if ev.lam.size else 1.0
        self.face_threshold = 1e-8 * scale
        faces = np.where(np.abs(ev.lam_abs) <= 1e-10 * scale, 0.0, np.sign(ev.lam_abs))
        crossed = np.asarray(sorted(crossed), dtype=np.int64)
        if np.any(faces == 0) or crossed.size:
            dy = np.concatenate((y[L.v], ev.dv, ev.powers, ev.dz))
            delta = 1e-6
            probe = y + delta * dy
            later = self.dyn.evaluate(t + delta, probe[L.q], probe[L.v], modes, None,
                                      probe[L.z]).lam_abs
            faces = np.where((faces == 0) & (np.abs(later) > 1e-10 * scale), np.sign(later),
                             faces)
            if crossed.size:
                lam, rate = ev.lam_abs[crossed], (later[crossed] - ev.lam_abs[crossed]) / delta
                at_t = (faces[crossed] * rate < 0) & (
                    np.abs(lam) <= np.abs(rate) * _EVENT_RESOLUTION * max(1.0, abs(t)))
                faces[crossed] = np.where(at_t, -faces[crossed], faces[crossed])
        self.faces = faces

    def handle(self, t, y, modes, fired):
        """Terminal engine events at t: flip faces (normal force sign), decide new modes
        (velocity zero), log them; guard against chattering. Returns the modes to go on with."""
        self._zeno_guard(t, fired)
        self._last = None  # nothing is cached across an event
        old_faces = self.faces
        coincident = {(f[0], f[1]) for f in fired if len(f) > 2}
        fired = [(f[0], f[1]) for f in fired]
        self.faces = self._flip_faces(t, y, modes, fired)
        options = {i: _TRANSITION_OPTIONS[kind] for kind, i in fired
                   if kind in _TRANSITION_OPTIONS}
        new = modes
        if options:
            candidates = sorted(set(options) | set(np.flatnonzero(modes == 0.0).tolist()))
            L = self.layout
            new = self.dyn.transition(t, y[L.q], y[L.v], modes, candidates,
                                      options=options, z=y[L.z])
            new = self._run_out(new, fired, coincident)
            # the friction force changed: re-derive every face from the HLCP at the new modes
            self.initial_faces(t, y, new, {i for kind, i in fired if kind == "normal"})
            self._log_modes(t, y, modes, new, fired, coincident, candidates, options)
        for r in np.flatnonzero(self.faces != old_faces):  # one entry per face change
            self._log(t, y, self.abs_names[r], "normal_sign", _FACE[old_faces[r]],
                      _FACE[self.faces[r]])
        for kind, i in fired:  # a given normal force reached zero: the element opens / closes
            if kind == "given":
                closing = self._given_normal_force(i, t + 1e-9 * max(1.0, abs(t))) > 0
                self._log(t, y, self.system.pairs[i].name, "normal_sign",
                          "0" if closing else "+", "+" if closing else "0")
        return new

    def _run_out(self, new, fired, coincident):
        """A sticking pair whose reserve ran out (a crossing, not a coincident zero) with
        ``mu_s = mu_d`` slips the way its friction was resisting. At that instant sticking and
        slipping are both consistent (the same force, zero relative acceleration), so the
        transition keeps it sticking; but the reserve was decreasing through zero, so sticking
        would end at once, again and again (Modelica's ``peak = 1`` clutches)."""
        out = new
        for kind, i in fired:
            if (kind in ("reserve+", "reserve-") and (kind, i) not in coincident
                    and new[i] == 0.0 and self.degenerate[i]):
                out = out.copy() if out is new else out
                out[i] = 1.0 if kind == "reserve+" else -1.0
        return out

    def _zeno_guard(self, t, fired):
        """Raise on more than ZENO_LIMIT events within 1e-12 (relative) of each other."""
        if t - self._zeno_t < 1e-12 * max(1.0, abs(t)):
            self._zeno_count += 1
            if self._zeno_count > ZENO_LIMIT:
                raise IntegrationError(
                    f"chattering (Zeno) at t = {t:.12g} s: more than {ZENO_LIMIT} events "
                    f"{sorted({f[0] for f in fired})} within 1e-12 x max(1, t) s of each other; "
                    "the motion accumulates events (sticking or a grazing normal force): use a "
                    "smooth friction law or change the parameters")
        else:
            self._zeno_t, self._zeno_count = t, 0

    def _flip_faces(self, t, y, modes, fired):
        """The faces after ``normal`` (the normal force crossed zero: the other face) and
        ``detach`` (a load row left zero: the face of its sign) events."""
        faces = self.faces.copy()
        for kind, i in fired:
            if kind == "normal":
                faces[i] = -faces[i]
            elif kind == "detach":
                L = self.layout
                ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
                faces[i] = 1.0 if ev.lam_abs[i] >= 0 else -1.0
        return faces

    def _log(self, t, y, name, kind, before, after):
        L = self.layout
        self.events.append(EventRecord(t, name, kind, before, after, y[L.q].copy(),
                                       y[L.v].copy()))

    def _log_modes(self, t, y, modes, new, fired, coincident, candidates, options):
        """One entry per mode change of a fired pair (a coincident one only if it changed) and
        per sticking pair that the transition set slipping."""
        pairs = self.system.pairs
        for kind, i in fired:  # (a vector slip whose sigma root was no stop: nothing to log)
            if kind in _TRANSITION_OPTIONS and ((kind, i) not in coincident
                                                or new[i] != modes[i]) and not (
                    modes[i] == new[i] == 2.0):
                self._log(t, y, pairs[i].name,
                          "velocity_zero" if kind == "velocity" else "reserve_zero",
                          mode_name(modes[i]), mode_name(new[i]))
        for i in candidates:
            if i not in options and new[i] != modes[i]:
                self._log(t, y, pairs[i].name, "reserve_zero", mode_name(modes[i]),
                          mode_name(new[i]))

    def coincident(self, t, y, modes, fired):
        """Add to ``fired`` every other engine event that is at (or just past) its zero at t.

        Root finders report the first of several simultaneous roots only (scipy drops the
        events after the first terminal one), so two pairs that stop at the same instant would
        otherwise leave the second one in a mode it has already left."""
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
        v_scale = self._velocity_scale(y[L.v])
        f_scale = max([1.0, *np.abs(ev.N).tolist(), *np.abs(ev.F_T).tolist()])
        out = list(fired)
        for spec in self.event_specs(modes):
            key = (spec[0], spec[1])
            if spec[0] == "user" or key in out:
                continue
            signed = -spec[2] * self.g_value(spec, t, y, ev, modes)  # > 0 before the crossing
            scale = v_scale if spec[0] == "velocity" else f_scale
            if signed <= 1e-9 * scale:
                out.append((*key, "coincident"))
        return out

    def inconsistent(self, y, ev, modes) -> bool:
        """Whether an output of the current phase contradicts its modes or faces (a slipping
        pair moving against its mode, a sticking pair beyond its friction reserve, a normal
        force on the other face): the sign of an event missed between two steps."""
        v_tol = 1e-9 * self._velocity_scale(y[self.layout.v])
        f_tol = 1e-9 * max(1.0, float(np.max(np.abs(ev.N), initial=0.0)))
        if self.vector is not None:
            return (self.vector.inconsistent(ev, modes, v_tol, f_tol)
                    or bool(np.any(self.faces * ev.lam_abs < -f_tol)))
        for i in self.friction_pairs:
            if modes[i] == 0.0:
                N = self.mu_s[i] * ev.N[i]
                if N + ev.F_T[i] < -f_tol or N - ev.F_T[i] < -f_tol:
                    return True
            elif modes[i] * ev.v_T[i] < -v_tol:
                return True
        return bool(np.any(self.faces * ev.lam_abs < -f_tol))

    def log_user(self, t, y, ue):
        L = self.layout
        self.events.append(EventRecord(t, ue.name, "user", "", "", y[L.q].copy(),
                                       y[L.v].copy(), np.array(y[L.z])))

    def event_specs(self, modes, t=None):
        """(kind, index, direction, terminal) of each event function of the current phase
        starting at ``t`` (without ``t``: the modes' and faces' event functions only).

        Engine events are terminal and one-sided (they watch the crossing away from the current
        mode / face), so a restart exactly at an event cannot find it again."""
        if self.vector is not None:  # pairs of dim > 1 (their scalar pairs' as below)
            specs = self.vector.event_specs(modes)
        else:
            specs = []
            for i in self.friction_pairs:
                if modes[i] == 0.0:  # sticking: the reserves mu_s N -+ F_T must stay >= 0
                    specs += [("reserve+", i, -1.0, True), ("reserve-", i, -1.0, True)]
                else:
                    specs.append(("velocity", i, -modes[i], True))
        specs += [("normal", r, -self.faces[r], True) if self.faces[r] else
                  ("detach", r, 1.0, True) for r in range(len(self.faces))]
        if t is not None:  # a clutch's N(t) crossing zero, watched away from its sign just
            after = t + 1e-9 * max(1.0, abs(t))  # after t (a restart at its root: either sign)
            specs += [("given", i, -1.0 if self._given_normal_force(i, after) > 0 else 1.0,
                       True) for i, _ in self.system.preload_functions]
        specs += [("user", k, ue.direction, ue.terminal) for k, ue in enumerate(self.user_events)]
        return specs

    def g_value(self, spec, t, y, ev, modes):
        """The value of the event function ``spec`` at ``(t, y)`` with its evaluation ``ev``:
        an engine event's by ``core.events.engine_value`` (the compiled phases' definition), a
        given normal force's or a user event's by the user's function."""
        kind, i = spec[0], spec[1]
        if self.vector is not None and kind in ("velocity", "reserve", "reserve+", "reserve-"):
            return self.vector.g_value(kind, i, ev)
        if kind in ("normal", "detach"):
            return float(_engine_value(_EVENT_CODES[kind], 0.0, self.face_threshold, 0.0, 0.0,
                                       0.0, float(ev.lam_abs[i])))
        if kind in _EVENT_CODES and kind != "given":
            return float(_engine_value(_EVENT_CODES[kind], float(self.mu_s[i]),
                                       self.face_threshold, float(ev.F_T[i]), float(ev.v_T[i]),
                                       float(ev.N[i]), 0.0))
        if kind == "given":
            return self._given_normal_force(i, t)
        L = self.layout
        ue = self.user_events[i]
        raw = ue.function(t, y[L.q], y[L.v])
        try:
            if isinstance(raw, (str, bytes)) or np.ndim(raw) != 0:
                raise TypeError
            value = float(raw)
        except (TypeError, ValueError):
            raise UserFunctionError(
                f"user event {ue.name} returned {raw!r} at t = {t:.10g} s: an event function "
                "g(t, q, v) must return a real number (its sign changes at the event)") from None
        if not math.isfinite(value):
            raise UserFunctionError(
                f"user event {ue.name} returned {value} at t = {t:.10g} s: an event function "
                "g(t, q, v) must return a finite number")
        return value

    def step_accepted(self, specs, ev, modes, g, fixed=False) -> list:
        """The event values ``g`` at the end of an accepted step, as the next step starts from
        them (vector slips: ``e_ref`` follows the slip direction,
        :meth:`nonsmooth.vector_friction.VectorEvents.refresh`; ``fixed``: a fixed-step
        method's)."""
        return g if self.vector is None else self.vector.refresh(specs, ev, modes, g, fixed)

    def _given_normal_force(self, i, t) -> float:
        """Pair ``i``'s given normal force ``N(t)`` (N) as the user's function returns it."""
        value = float(dict(self.system.preload_functions)[i](t))
        if not math.isfinite(value):
            raise UserFunctionError(
                f"the normal force of '{self.system.pairs[i].name}' returned {value} at "
                f"t = {t:.10g} s: N(t) must return a finite number (N)")
        return value

    def side(self, t, modes):
        """One side of a knot at ``t`` in the current modes and faces (and slip directions
        ``e_ref`` of vector pairs), evaluated later."""
        if self.vector is not None:
            return (t, np.array(modes, dtype=float), np.array(self.faces, dtype=float),
                    self.dyn.e_ref.copy())
        return (t, np.array(modes, dtype=float), np.array(self.faces, dtype=float))

    def side_acceleration(self, side, y) -> np.ndarray:
        """``dv`` (n_q,) at the state ``y`` on a knot's ``side`` (:meth:`side`)."""
        t, modes, faces = side[:3]
        if len(side) > 3:
            self.dyn.e_ref[:] = side[3]
        L = self.layout
        return self.dyn.evaluate(t, y[L.q], y[L.v], modes, faces, y[L.z]).dv

    def nonfinite(self, t, y, h, method, dt) -> NonsmoothError:
        """The error for a state that became non-finite on the step from ``(t, y)`` of length
        ``h``: names the model element or user function that returned NaN/inf if there is one."""
        L = self.layout
        named = nonfinite_error(self.system, (t, t + 0.5 * h, t + h), y[L.q], y[L.v])
        if named is not None:
            return named
        return IntegrationError(
            f"the state became non-finite after t = {t:.6g} s (method {method}, step {dt:g} s): "
            "the integration is unstable; reduce dt or use an adaptive method (RK45, DOP853)")


def _tol(t: float) -> float:
    """Times closer than this to ``t`` are the same instant (s)."""
    return 1e-13 * max(1.0, abs(t))


#: The time resolution of an engine event (relative to max(1, |t|)): a root is located to 1e-13 s
#: (``events.locate``, the compiled phases' Brent search); a zero within twice that is at t.
_EVENT_RESOLUTION = 2e-13


def _grid(t0, t_end, dt):
    """Output times ``t0, t0 + dt, ...``, never beyond ``t_end``, ending at ``t_end``."""
    n_grid = int(math.floor((t_end - t0) / dt + 1e-9))
    grid = np.minimum(t0 + dt * np.arange(n_grid + 1), t_end)
    if t_end - grid[-1] > 1e-12 * max(1.0, abs(t_end)):
        grid = np.append(grid, t_end)
    return grid


# ------------------------------------------------------------------------------- steppers
_EPS4 = 4 * np.finfo(float).eps


class _FixedStepper:
    """The stepper protocol for the fixed-step methods (RK4, explicit Euler).

    Steps land on the step grid ``t0 + k dt`` (the first step after an event or a time stop is
    the remainder of its interval; a phase that ends at a time stop ends with a shorter step
    exactly to it). ``dense_output()`` is the cubic Hermite interpolant of the step (4th
    order); the state at an event is got by re-stepping exactly to it (``state_at``), not by
    interpolation. Without ``t_eval`` the outputs are the step ends themselves; with it, the
    outputs between step ends come from the step's Hermite interpolant. Outputs are not
    checked against the phase's modes (the step cannot be shortened)."""

    xtol = 1e-13
    fixed = True

    def __init__(self, run, method, modes, t, y, steps, t_bound, dt):
        self.run, self.method, self.dt = run, method, dt
        self.rule = _STEPPERS[method]
        self.rhs = run.fun(modes, cached=False)  # the stages are never evaluated twice
        self.modes = modes
        self.steps, self.t_bound = steps, t_bound
        self.k = int(np.searchsorted(steps, t + _tol(t), side="right"))
        self.t, self.y = t, y
        self.f = self.rhs(t, y)
        self._remember()
        self.status = "running"
        # a family with a compiled step and no user function to call back (a planar model):
        # each whole step in one compiled call
        family = run.family
        self.compiled = (family is not None and family.steps_compiled and not family.calls_back
                         and not run.dyn.vector)
        if self.compiled:
            family.warm("fixed")

    def _remember(self):
        """Hand the step end's evaluation to the run's cache (the event functions and the
        recorder read it)."""
        self.run._last = (min(self.t, self.run.t_clamp), np.array(self.y), self.modes,
                          self.run.last_ev)

    def step(self):
        steps, run = self.steps, self.run
        self.t_old, self.y_old, self.f_old = self.t, self.y, self.f
        t_next = float(steps[self.k]) if self.k < len(steps) else self.t_bound
        if t_next >= self.t_bound - _tol(self.t_bound):  # the phase's end (t_end or a stop)
            t_next = self.t_bound
        if not (self.compiled and self._compiled_step(t_next)):
            y_new = self.rule(self.rhs, self.t, self.y, self.f, t_next - self.t)
            if not math.isfinite(float(y_new @ y_new)):  # nan and inf propagate through the dot
                raise run.nonfinite(self.t, self.y, t_next - self.t, self.method, self.dt)
            self.f = self.rhs(t_next, y_new)
            self.t, self.y = t_next, y_new
        self._remember()
        self.k = int(np.searchsorted(steps, self.t + _tol(self.t), side="right"))
        if self.t >= self.t_bound:
            self.status = "finished"

    def _compiled_step(self, t_next) -> bool:
        """The step by the family's compiled step (``CompiledFamily.step``); False (nothing
        changed) when the kernel declines an evaluation (the Python step then names the
        problem)."""
        from .core.status import OK

        run, dyn = self.run, self.run.dyn
        cost = 4 if self.method == "RK4" else 1
        if dyn.n_evaluations + cost >= run.max_evaluations:
            return False  # the Python step stops at the exact evaluation
        y, f = self.y, self.f
        y_new, f_new, out = np.empty_like(y), np.empty_like(y), np.empty(dyn.buffer_size)
        status = run.family.step(dyn.plan, dyn.Wt, self.t, y, f, t_next - self.t, t_next,
                                 self.modes, run.faces, self.method == "RK4", y_new, f_new, out)
        if status != OK or not math.isfinite(float(y_new @ y_new)):
            return False
        dyn.n_evaluations += cost
        run.charge(t_next)
        run.last_ev = dyn.evaluation_from(out)
        self.f = f_new
        self.t, self.y = t_next, y_new
        return True

    def dense_output(self):
        return hermite(self.t_old, self.y_old, self.f_old, self.t, self.y, self.f)

    def state_at(self, t):
        if t <= self.t_old:
            return self.y_old
        y = self.rule(self.rhs, self.t_old, self.y_old, self.f_old, t - self.t_old)
        self.run._last = None  # the stages above were not at the step end
        return y


class _ScipyStepper:
    """The stepper protocol for scipy's adaptive ``OdeSolver`` classes (RK45, DOP853, RK23,
    Radau, BDF, LSODA): their own step control and dense output; the state at an event is the
    dense output there, as in ``solve_ivp``."""

    xtol = _EPS4
    fixed = False

    def __init__(self, run, method, modes, t, y, t_end, rtol, atol, max_step, dt):
        import scipy.integrate as integrate

        self.run, self.method, self.dt = run, method, dt
        self.solver = getattr(integrate, method)(run.fun(modes), t, y, t_end, rtol=rtol,
                                                  atol=atol, max_step=max_step)
        self.t, self.y = t, self.solver.y
        self.status = "running"
        self._dense = None

    def step(self):
        solver, run = self.solver, self.run
        self.t_old, self.y_old = solver.t, solver.y.copy()
        message = solver.step()
        if solver.status == "failed" or not np.all(np.isfinite(solver.y)):
            if not np.all(np.isfinite(solver.y)) or "step size" in str(message):
                error = run.nonfinite(self.t_old, self.y_old,
                                      max(self.dt, solver.t - self.t_old), self.method, self.dt)
                if isinstance(error, UserFunctionError):
                    raise error
            raise IntegrationError(
                f"{self.method} failed after t = {self.t_old:.6g} s: {message}; try another "
                "method, looser tolerances or a smaller max_step")
        self.t, self.y, self.status = solver.t, solver.y, solver.status
        self._dense = None

    def dense_output(self):
        if self._dense is None:
            self._dense = self.solver.dense_output()
        return self._dense

    def state_at(self, t):
        return np.array(self.dense_output()(t))


# ------------------------------------------------------------------------------- the event loop
@dataclass
class _Schedule:
    """Where a run records and where its phases must end.

    ``grid``: the output times (the uniform grid ``t0 + k dt``, or ``t_eval``); ``steps``: the
    fixed-step methods' step grid ``t0 + k dt``; ``stops``: the time stops (sorted, inside the
    span), where a phase ends and the next starts fresh; ``t_eval``: True when the outputs
    were given (then the run goes on to ``t_end`` after the last one, as ``solve_ivp`` does,
    and the fixed-step outputs come from the steps' interpolant)."""

    grid: np.ndarray
    steps: np.ndarray
    stops: np.ndarray
    t_end: float
    t_eval: bool = False

    def phase_end(self, t: float) -> float:
        """The end of a phase that starts at ``t``: the next time stop, else ``t_end``."""
        k = int(np.searchsorted(self.stops, t + _tol(t), side="right"))
        return float(self.stops[k]) if k < len(self.stops) else self.t_end

    def k_cap(self, t_bound: float) -> int:
        """The outputs a phase that ends at ``t_bound`` records: ``grid[:k_cap]``; an output at
        a time stop is the next phase's (the right-hand side's value from the stop on)."""
        if t_bound >= self.t_end:
            return len(self.grid)
        return int(np.searchsorted(self.grid, t_bound - _tol(t_bound), side="left"))


def _integrate_phases(run: _Run, method, sched: _Schedule, t0, y, dt, modes, rtol, atol,
                      max_step):
    """One event loop for every method: smooth phases (:func:`_phase`) between events and time
    stops, a fresh stepper after each (nothing is cached across it), the transition at each
    event."""
    grid, t_end = sched.grid, sched.t_end
    ev = run.ev_at(t0, y, modes)
    run.knots.append((t0, np.array(y), ev.dv, ev.dv))
    next_k = 0
    if grid[0] - t0 <= _tol(t0):
        run.record(t0, y, ev, modes)
        next_k = 1
    t = t0
    phase_max_step = max_step
    redo = False
    while t < t_end and (next_k < len(grid) or sched.t_eval):
        t_bound = sched.phase_end(t)
        run.t_clamp = math.inf if t_bound >= t_end else float(np.nextafter(t_bound, -math.inf))
        run.n_phases += not redo
        specs = run.event_specs(modes, t)
        outcome = _smooth_phase(run, method, specs, modes, t, y, t_bound, grid, next_k, rtol,
                                atol, phase_max_step, dt, sched)
        kind, next_k, t, y = outcome[:4]
        redo = kind == "redo"
        if redo:  # an event was stepped over: redo from the last output, shorter steps
            phase_max_step = min(phase_max_step, outcome[4])
            run._last = None
            continue
        phase_max_step = max_step
        if kind == "done":
            if t_bound >= t_end:
                break
            modes = _restart_at_stop(run, specs, t, y, modes)
        else:
            fired = outcome[4]
            users = [j for j in fired if specs[j][0] == "user"]
            if users:
                for j in users:
                    run.log_user(t, y, run.user_events[specs[j][1]])
                ev = run.ev_at(t, y, modes)
                if not sched.t_eval or (next_k < len(grid) and grid[next_k] - t <= _tol(t)):
                    run.record(t, y, ev, modes)  # with t_eval: only its rows (solve_ivp's)
                run.knots.append((t, np.array(y), ev.dv, ev.dv))
                return "user", t
            modes = _handle_event(run, specs, fired, t, y, modes)
        if next_k < len(grid) and grid[next_k] - t <= _tol(t):
            run.record(t, y, run.ev_at(t, y, modes), modes)
            next_k += 1
    ev = run.ev_at(t, y, modes)
    run.knots.append((t, np.array(y), ev.dv, ev.dv))
    return "done", t


def _handle_event(run: _Run, specs, fired, t, y, modes):
    """The engine events ``fired`` at ``t``: the transition (:meth:`_Run.handle`); both sides
    kept as a knot of the dense output."""
    before = run.side(t, modes)
    new = run.handle(t, y, modes, run.coincident(
        t, y, modes, [(specs[j][0], specs[j][1]) for j in fired]))
    run.knots.append((t, np.array(y), before, run.side(t, new)))
    return new


def _restart_at_stop(run: _Run, specs, t, y, modes):
    """A phase ended at the time stop ``t``: compare the engine's event functions on both sides
    of it (the left limit of the right-hand side, evaluated just before ``t``, and its value
    at ``t``); those that changed sign across it in their watched direction (a sticking pair
    whose reserve a step in a load used up, a normal force that jumped to the other face, a
    given normal force that became positive) fire at ``t`` as events. Returns the modes of the
    next phase."""
    t_left = run.t_clamp
    before = run.side(t_left, modes)
    engine = [spec for spec in specs if spec[0] != "user"]
    if engine:
        ev_before = run.ev_at(t, y, modes)  # the left limit (the phase's clamp)
        g_before = [run.g_value(spec, t_left, y, ev_before, modes) for spec in engine]
    run.t_clamp = math.inf
    run._last = None  # nothing is cached across the stop
    new = modes
    if engine:
        ev_after = run.ev_at(t, y, modes)
        fired = [(spec[0], spec[1]) for spec, g0 in zip(engine, g_before, strict=True)
                 if crossed(g0, run.g_value(spec, t, y, ev_after, modes), spec[2])]
        if fired:
            new = run.handle(t, y, modes, run.coincident(t, y, modes, fired))
    run.knots.append((t, np.array(y), before, run.side(t, new)))
    return new


def _smooth_phase(run: _Run, method, specs, modes, t, y, t_bound, grid, next_k, rtol, atol,
                  max_step, dt, sched: _Schedule):
    """One smooth phase from ``t`` to ``t_bound`` (the run's end or a time stop) by its chain of
    runners: the compiled phase where the run can take one (DOP853: :func:`_compiled_phase`;
    RK4/Euler: :func:`_compiled_fixed_phase`), then, from where a compiled phase declines (an
    evaluation it cannot do, a step below round-off, the budget nearly spent), the Python
    steppers (:func:`_python_phase`), which name the problem. A runner returns an outcome and
    never calls another. Returns the outcome of :func:`_phase`."""
    k_cap = sched.k_cap(t_bound)
    if method == "DOP853" and run.compiled:
        outcome = _compiled_phase(run, specs, modes, t, y, t_bound, grid[:k_cap], next_k, rtol,
                                  atol, max_step, dt)
        if outcome[0] != "declined":
            return outcome
        _, next_k, t, y = outcome  # scipy's solver goes on from the last accepted step
        return _python_phase(run, method, specs, modes, t, y, t_bound, grid[:k_cap], next_k,
                             rtol, atol, max_step, dt)
    if method in FIXED_STEP_METHODS and _fixed_compiled(run, specs, sched):
        outcome = _compiled_fixed_phase(run, method, specs, modes, t, y, t_bound, grid, next_k,
                                        dt, sched)
        if outcome[0] != "declined":
            return outcome
        _, next_k, t, y = outcome  # Python's step from the last step end names the problem
    return _python_phase(run, method, specs, modes, t, y, t_bound, grid, next_k, rtol, atol,
                         max_step, dt, sched=sched)


def _python_phase(run: _Run, method, specs, modes, t, y, t_end, grid, next_k, rtol, atol,
                  max_step, dt, *, sched: _Schedule | None = None):
    """A phase by the Python steppers (:class:`_FixedStepper`, :class:`_ScipyStepper`) from
    ``t`` to ``t_end`` (the run's end or a time stop)."""
    if method in FIXED_STEP_METHODS:
        stepper = _FixedStepper(run, method, modes, t, y, grid if sched is None else sched.steps,
                                t_end, dt)
    else:
        stepper = _ScipyStepper(run, method, modes, t, y, t_end, rtol, atol, max_step, dt)
    k_cap = len(grid) if sched is None else sched.k_cap(t_end)
    interpolate = sched is not None and sched.t_eval
    with warnings.catch_warnings():  # scipy's finite-difference Jacobian step control
        warnings.filterwarnings("ignore", category=RuntimeWarning, module="scipy.integrate")
        return _phase(run, stepper, specs, modes, grid, next_k, method, k_cap, interpolate)


def _fixed_compiled(run: _Run, specs, sched) -> bool:
    """Whether a fixed-step phase runs in compiled calls (:mod:`nonsmooth.fixed_step`): a
    planar model without user functions, or a ``GeneralizedSystem`` with compiled terms (its
    generated module); the engine's event functions only (all terminal), outputs at the step
    ends (no ``t_eval``)."""
    from .core.event_kinds import EVENT_KINDS

    family = run.family  # the compiled right-hand side calls no user function back
    compiled = family is not None and not family.calls_back
    compiled = compiled and not run.dyn.vector  # pairs of dim > 1: the Python RK4 (g_value)
    return (compiled and not (sched is not None and sched.t_eval)
            and all(s[0] in EVENT_KINDS and s[0] != "given" and s[3] for s in specs))


def _compiled_fixed_phase(run: _Run, method, specs, modes, t, y, t_end, grid, next_k, dt,
                          sched):
    """A fixed-step phase in compiled calls (``core.phases.fixed.fixed_phase_with``
    instantiated by the family: ``CompiledFamily.fixed``), pausing
    every :data:`_PAUSE_AFTER` evaluations or full output buffer for the run's clock, progress
    and records: the same outcomes as :func:`_phase` with a :class:`_FixedStepper`, or
    ``("declined", next_k, t, y)`` where the kernel declines a step or the budget is nearly
    spent (:func:`_smooth_phase` then hands the phase from that step end to the Python
    stepper, which names the problem)."""
    from .core.phases import fixed

    dyn = run.dyn
    run.family.warm("fixed")
    phase, ctx = run.family.fixed(dyn.plan, dyn.Wt)
    steps = grid if sched is None else sched.steps
    k_cap = len(grid) if sched is None else sched.k_cap(t_end)
    y = np.array(y, dtype=float)
    f = run.fun(modes, cached=False)(t, y)  # as _FixedStepper: f and the event functions at t
    ev = run.last_ev
    g = np.array([run.g_value(s, t, y, ev, modes) for s in specs], dtype=float)
    kinds = np.array([_EVENT_CODES[s[0]] for s in specs], dtype=np.int64)
    index = np.array([s[1] for s in specs], dtype=np.int64)
    direction = np.array([s[2] for s in specs], dtype=float)
    fired = np.zeros(len(specs), dtype=np.int8)
    modes = np.asarray(modes, dtype=float)
    faces = np.asarray(run.faces, dtype=float)
    mu_s = np.asarray(run.mu_s, dtype=float)
    size = dyn.buffer_size
    rows = max(1, min(k_cap - next_k, _OUTPUT_FLOATS // (size + y.size)))
    T_out, Y_out, O_out = np.empty(rows), np.empty((rows, y.size)), np.empty((rows, size))
    k0 = int(np.searchsorted(steps, t + _tol(t), side="right"))
    istate = np.array([k0, next_k, k_cap, 0, 0, method == "RK4", 0, _PAUSE_AFTER, 0],
                      dtype=np.int64)
    fstate = np.array([t, t_end, run.t_clamp, run.face_threshold])
    while True:
        istate[3], istate[6] = 0, run.max_evaluations - dyn.n_evaluations
        status = phase(ctx, dyn.plan, modes, faces, kinds, index, direction, mu_s,
                       np.asarray(steps, dtype=float), np.asarray(grid, dtype=float), istate,
                       fstate, y, f, g, fired, T_out, Y_out, O_out)
        dyn.n_evaluations += int(istate[4])
        run.n_steps += int(istate[8])
        run._last = None
        if istate[3]:
            _record_rows(run, T_out[:istate[3]], Y_out[:istate[3]], O_out[:istate[3]], modes)
        run.charge(float(fstate[0]))  # the wall-clock budget
        next_k = int(istate[1])
        if status == fixed.EVENT:
            return "event", next_k, float(fstate[0]), y, np.flatnonzero(fired).tolist()
        if status == fixed.DONE:
            return "done", next_k, float(fstate[0]), y
        if status != fixed.PAUSE:  # declined, or the budget: Python's step names it
            return "declined", next_k, float(fstate[0]), y


def _kinetic(run: _Run, V, out) -> np.ndarray:
    """The kinetic energy ``v M v / 2`` (J) of rows of velocities ``V`` (k, n) and their
    evaluations ``out``: the mass matrix constant, or a planar model's in each row."""
    M = run.system.constant_mass
    if M is None:  # in each row's evaluation
        n = run.layout.n_v
        a, b = run.dyn.evaluation_layout["M"]
        return 0.5 * np.einsum("ij,ijk,ik->i", V, out[:, a:b].reshape(-1, n, n), V)
    return 0.5 * np.einsum("ij,jk,ik->i", V, M, V)


def _potentials(run: _Run, times, Y) -> np.ndarray:
    """The potential energy (J) at the rows ``(times, Y)``: in one call of the family's
    compiled code where it has one (``CompiledFamily.potentials``), else the system's
    ``potential`` row by row."""
    sl, family = run.layout, run.family
    Q = np.ascontiguousarray(Y[:, sl.q])
    V = None if family is None else family.potentials(np.asarray(times, dtype=float), Q)
    if V is not None:
        return V
    return np.array([run.system.potential(float(tt), q) for tt, q in zip(times, Q, strict=True)])


def _record_rows(run: _Run, times, Y, out, modes):
    """Record step ends computed in a compiled phase (their states ``Y`` (k, n_y) and
    evaluations ``out`` (k, size)) with their energies (:meth:`_Run.record_block`)."""
    run.record_block(times, Y, out, modes, _kinetic(run, Y[:, run.layout.v], out),
                     _potentials(run, times, Y))


#: Evaluations per compiled call before the run's clock, budget and progress are looked at.
_PAUSE_AFTER = 4000
#: Output states one compiled call may return (floats: 16 MB).
_OUTPUT_FLOATS = 1 << 21


def _compiled_phase(run: _Run, specs, modes, t, y, t_end, grid, next_k, rtol, atol, max_step,
                    dt):
    """A DOP853 phase in compiled calls (``core.phases.dop853.dop853_phase_with``
    instantiated by the family: ``CompiledFamily.dop853``): the same outcomes as
    :func:`_phase`, or ``("declined", next_k, t, y)`` where the kernel stops short (an
    evaluation it declines, a step below round-off, the budget nearly spent):
    :func:`_smooth_phase` then hands the phase from the last accepted step to scipy's DOP853,
    which names the problem."""
    from .core import callbacks
    from .core.phases import dop853

    dyn = run.dyn
    kinds = np.array([_EVENT_CODES[s[0]] for s in specs], dtype=np.int64)
    index = np.array([s[1] for s in specs], dtype=np.int64)
    direction = np.array([s[2] for s in specs], dtype=float)
    y = np.array(y, dtype=float)
    f, g = np.empty_like(y), np.empty(len(specs))
    fired = np.zeros(len(specs), dtype=np.int8)
    state = np.array([t, 0.0, 1.0])
    # a writable copy: a read-only view (broadcast_to of a vector atol) is another numba type,
    # which compiled a second specialization of the phase for ~35 s (issue 18)
    atol_y = np.array(np.broadcast_to(np.asarray(atol, dtype=float), y.shape))
    control = np.array([t_end, rtol, max_step, run.face_threshold], dtype=float)
    out = np.empty(dyn.buffer_size)
    cap = max(1, min(grid.size - next_k, _OUTPUT_FLOATS // y.size))
    start = (t, y.copy())
    modes = np.asarray(modes, dtype=float)
    faces = np.asarray(run.faces, dtype=float)
    mu_s = np.asarray(run.mu_s, dtype=float)
    grid = np.asarray(grid, dtype=float)
    called_back = run.family.calls_back or any(s[0] == "given" for s in specs)
    token = callbacks.register_user(*_user_callbacks(run)) if called_back else -1
    try:
        plan = callbacks.extended_plan(dyn.plan, token, run.t_clamp)
        run.family.warm("dop853")
        phase, ctx = run.family.dop853(plan, dyn.Wt)
        while True:
            limits = np.array([run.max_evaluations - dyn.n_evaluations, _PAUSE_AFTER],
                              dtype=np.int64)
            Y_out = np.empty((cap, y.size))
            status, n_out, evals, steps, needed = phase(
                ctx, plan, modes, faces, kinds, index, direction, mu_s, control, atol_y, grid,
                int(next_k), state, y, f, g, fired, Y_out, limits, dop853.coefficients(), out)
            dyn.n_evaluations += evals
            run.n_steps += steps
            run._last = None
            error = callbacks.user_error(token)
            t_called = run.t_now  # the time of the kernel's last call back (where it raised)
            if n_out:
                times = grid[next_k:next_k + n_out]
                redo, next_k, start = _record_outputs(run, times, Y_out[:n_out].T, next_k,
                                                      modes, start, "DOP853")
                if redo is not None and error is None:
                    return ("redo", next_k, *start, redo)
            if error is not None:  # a user function raised: its exception, the outputs kept
                run.t_now = t_called  # named at the time it raised, not the last output's
                raise error
            run.charge(float(state[0]))  # the wall-clock budget
            if status == dop853.EVENT:
                return "event", next_k, float(state[0]), y, np.flatnonzero(fired).tolist()
            if status == dop853.DONE:
                return "done", next_k, float(state[0]), y
            if status == dop853.FULL:
                cap = max(cap, int(needed))
            elif status != dop853.PAUSE:  # scipy's solver goes on from the last accepted step
                return "declined", next_k, float(state[0]), y
    finally:
        if token >= 0:
            callbacks.unregister_user(token)


def _user_callbacks(run: _Run):
    """The run's user functions as the compiled phase calls them back
    (``core.callbacks.register_user``): the user values at a state (where the family calls them
    back), a pair's given normal force."""
    system, sq, sv = run.system, run.layout.q, run.layout.v

    def values(t, y, U):
        run.t_now = t  # where a failure in a user function happened
        U[:] = system.user_values(t, y[sq], y[sv])

    def given(i, t):
        return run._given_normal_force(i, t)

    return (values if run.family.calls_back else None), given


def _phase(run: _Run, stepper, specs, modes, grid, next_k, method, k_cap=None,
           interpolate=False):
    """One smooth phase (fixed modes and faces) from ``stepper.t`` until a terminal event or the
    end. Returns ``("event", next_k, t_e, y_e, fired)``, ``("done", next_k, t, y)`` or
    ``("redo", next_k, t_from, y_from, max_step)`` when an output of an adaptive step
    contradicts the phase's modes (an event stepped over: its function crossed zero twice
    within one step). Records the outputs ``grid[next_k:k_cap]`` it reaches; ``interpolate``:
    a fixed-step method's outputs come from its steps' interpolant (``t_eval`` given)."""
    k_cap = len(grid) if k_cap is None else k_cap
    start = (stepper.t, np.array(stepper.y))  # the last output (or the phase start)
    g_old = [run.g_value(spec, start[0], start[1], run.ev_at(*start, modes), modes)
             for spec in specs]
    while True:
        stepper.step()
        run.n_steps += 1
        t_new, y_new = stepper.t, stepper.y
        ev_new = run.ev_at(t_new, y_new, modes)
        g_new = [run.g_value(spec, t_new, y_new, ev_new, modes) for spec in specs]
        roots, t_stop, fired = _step_events(run, stepper, specs, modes, g_old, g_new)
        t_last = t_new if t_stop is None else t_stop
        k_hi = min(int(np.searchsorted(grid, t_last, side="right")), k_cap)
        if stepper.fixed and not interpolate:  # the step end is the output (unless an event
            if k_hi > next_k and t_stop is None:  # comes first)
                run.record(t_new, np.array(y_new), ev_new, modes)
                next_k = k_hi
        elif stepper.fixed:  # outputs between the step ends: the step's Hermite interpolant
            dense = stepper.dense_output()
            for tt in grid[next_k:k_hi]:
                yy = np.asarray(dense(float(tt)), dtype=float)
                run.record(float(tt), yy, run.ev_at(float(tt), yy, modes), modes)
            next_k = max(next_k, k_hi)
        elif k_hi > next_k:  # the outputs of this step, checked against the phase's modes
            redo, next_k, start = _step_outputs(run, stepper, grid, next_k, k_hi, modes, start,
                                                method)
            if redo is not None:
                return ("redo", next_k, *start, redo)
        for tt, j in roots:  # non-terminal user events up to the first terminal one
            if not _terminal(run, specs[j]) and tt <= t_last:
                run.log_user(tt, stepper.dense_output()(tt), run.user_events[specs[j][1]])
        if t_stop is not None:
            return "event", next_k, t_stop, stepper.state_at(t_stop), fired
        if stepper.status == "finished":
            return "done", next_k, t_new, y_new
        g_old = run.step_accepted(specs, ev_new, modes, g_new, stepper.fixed)


def _step_events(run: _Run, stepper, specs, modes, g_old, g_new):
    """The roots of the event functions that crossed zero on the last step (brentq on its dense
    output), sorted: ``(roots, t_stop, fired)`` with ``t_stop`` the first terminal root (None
    without one) and ``fired`` the terminal events at it."""
    roots = []
    for j, spec in enumerate(specs):
        if crossed(g_old[j], g_new[j], spec[2]) and not (g_old[j] == 0 and spec[3]):
            sol = stepper.dense_output()

            def g(tt, spec=spec, sol=sol):
                yy = sol(tt)
                return run.g_value(spec, tt, yy, run.ev_at(tt, yy, modes), modes)

            roots.append((locate(g, stepper.t_old, stepper.t, g_old[j], g_new[j],
                                 xtol=stepper.xtol), j))
    roots.sort()
    terminal = [r for r in roots if _terminal(run, specs[r[1]])]
    if not terminal:
        return roots, None, []
    t_stop = terminal[0][0]
    return roots, t_stop, [j for tt, j in terminal if tt <= t_stop + 1e-13]


def _terminal(run: _Run, spec) -> bool:
    """Whether an occurrence of the event function ``spec`` now stops the phase: every engine
    event does; a user event whose ``terminal`` is a count n stops the run at its n-th
    occurrence (scipy >= 1.12)."""
    if spec[0] != "user":
        return bool(spec[3])
    ue = run.user_events[spec[1]]
    if ue.terminal <= 1:
        return ue.terminal == 1
    seen = sum(1 for e in run.events if e.kind == "user" and e.pair == ue.name)
    return seen + 1 >= ue.terminal


def _step_outputs(run: _Run, stepper, grid, next_k, k_hi, modes, start, method):
    """Record the outputs ``grid[next_k:k_hi]`` of an adaptive step from its dense output
    (:func:`_record_outputs`)."""
    times = grid[next_k:k_hi]
    Y = np.asarray(stepper.dense_output()(times), dtype=float).reshape(-1, times.size)
    return _record_outputs(run, times, Y, next_k, modes, start, method)


def _record_outputs(run: _Run, times, Y, next_k, modes, start, method):
    """Record the outputs at ``times`` (states ``Y`` (n_y, k)) from ``grid[next_k]`` on.
    Returns ``(redo, next_k, last)``: ``redo`` the shorter step limit when an output
    contradicts the phase's modes (else None), ``last`` the last recorded ``(t, y)``."""
    bad = run.outputs(times, Y, modes)
    if bad is None:
        return None, next_k + times.size, (float(times[-1]), np.array(Y[:, -1]))
    if bad:
        next_k += bad
        start = (float(times[bad - 1]), np.array(Y[:, bad - 1]))
    t_from, tt = start[0], float(times[bad])
    limit = (tt - t_from) / 8.0
    if limit < 1e-12 * max(1.0, abs(t_from)):
        raise IntegrationError(
            f"{method} steps over a mode switch near t = {tt:.10g} s that it cannot resolve; "
            "try a smaller dt or max_step, or the RK4 method")
    run.events[:] = [e for e in run.events  # found again after the restart
                     if not (e.kind == "user" and e.t > t_from)]
    return limit, next_k, start


# ------------------------------------------------------------------------------- entry point
def simulate(model, t_span=None, *, method: str | None = None, dt: float | None = None,
             t_eval=None, tstops=None, rtol: float | None = None, atol=None,
             alpha: float | None = None,
             beta: float | None = None, friction=None, events: Sequence[Callable] = (),
             q0=None, v0=None, max_step: float = math.inf,
             progress: Callable[[float], None] | None = None, throw: bool = True,
             max_evaluations: int = MAX_EVALUATIONS, timeout: float | None = None,
             max_outputs: int = MAX_OUTPUTS) -> Result:
    """Simulate a model over ``t_span``.

    Parameters
    ----------
    model : nonsmooth.Model, System or PlanarModel
        What to simulate. A bare ``System`` needs ``q0`` and ``v0``.
    t_span : float or (float, float), optional
        End time, or (start, end) in s; default ``(0, model.t_end)`` (a bundled model's own
        end time; 1 s for a model built without one).
    method : str, optional
        ``"RK4"``, ``"Euler"`` (fixed step ``dt``) or a ``solve_ivp`` method. Default (the
        command line's too): ``"DOP853"`` with set-valued Coulomb friction only (adaptive,
        event-driven, 8th order: tight tolerances cost few steps, so the default is accurate);
        ``"Radau"`` (implicit, the most accurate here) as soon as a pair uses a smooth law:
        LuGre's bristles and steep regularizations are stiff. ``"LSODA"`` (stiffness
        switching) is 2-4 times faster on these models at a slightly lower accuracy
        (``benchmarks/friction_backends.py``).
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
        implicit ones, whose cost grows fast with the accuracy on stiff laws).
    atol : float or array_like, shape (2 n_q + n_z,), optional
        Absolute tolerance: one number, or one per state component of ``y = [q, v, z]``
        (``Result.y``'s rows; ``z`` the smooth laws' internal states); the work integrals of
        the energy balance take the smallest given value. Default 1e-13 (explicit methods),
        1e-10 (implicit).
    alpha, beta : float, optional
        Baumgarte parameters (1/s); default the model's, else 10.
    friction : str, FrictionLaw or dict, optional
        The friction law of every pair (``"coulomb"``, ``"lugre"``, ``"regularized"``), or a
        dict ``{pair name: law}`` overriding some pairs; default each pair's own law. The laws
        take their parameters from the pair's friction description (``FrictionPair.params``).
    events : sequence of callable
        User events ``g(t, q, v)`` with optional ``terminal`` and ``direction`` attributes.
    q0, v0 : array_like, optional
        Initial coordinates / velocities (default the model's); projected onto the constraints.
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
        Wall-clock budget (s) of the run, same handling.
    max_outputs : int
        Most output rows ``(t_end - t0) / dt + 1`` (or ``len(t_eval)``) a run may ask for, and
        most steps of a fixed-step method (default :data:`MAX_OUTPUTS`); more is refused
        before the run starts (the rows are kept in memory).

    Returns
    -------
    Result

    Notes
    -----
    A successful run whose energy balance error exceeds :data:`ENERGY_WARNING` (1 %) of its
    energy scale warns (``RuntimeWarning``): an unstable or inaccurate integration.
    """
    from .model import as_model

    mdl = as_model(model, q0=q0, v0=v0)
    system = mdl.system
    t0, t_end = _time_span(mdl.t_end if t_span is None else t_span)
    if t_span is None and mdl.span_note:  # the span is a default the model file did not give
        warnings.warn(mdl.span_note, UserWarning, stacklevel=2)
    laws = resolve_laws(system, friction)
    if method is None:
        method = "Radau" if any(law.smooth for law in laws) else "DOP853"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    tolerances = DEFAULT_TOLERANCES["implicit" if method in IMPLICIT_METHODS else "explicit"]
    rtol = tolerances[0] if rtol is None else rtol
    atol = tolerances[1] if atol is None else atol
    dt = _check_options(t0, t_end, mdl.dt if dt is None else dt, rtol, atol, max_evaluations,
                        timeout, max_outputs, method, t_eval is None)
    given = tstops is not None  # checked against the span; the model's own are filtered
    if tstops is None:  # the model's own (the times its given inputs jump: a clutch engaging)
        tstops = mdl.tstops or None
    sched = _schedule(t0, t_end, dt, t_eval, tstops, max_outputs, method, given)
    _check_initial_state(mdl)
    if getattr(system, "compiled", None) is not None:  # the same terms as its callables
        system.check_compiled(t0, np.asarray(mdl.q0, dtype=float), np.asarray(mdl.v0, dtype=float))
    alpha = next(x for x in (alpha, mdl.alpha, DEFAULT_ALPHA) if x is not None)
    beta = next(x for x in (beta, mdl.beta, DEFAULT_BETA) if x is not None)
    dynamics = Dynamics(system, alpha=alpha, beta=beta, laws=laws)
    atol = _state_atol(atol, system, dynamics.n_z, rtol, _initial_energy(system, t0, mdl))
    for law in laws:
        for text in law.warnings():
            warnings.warn(text, RuntimeWarning, stacklevel=2)
    user_events = UserEvent.wrap_all(events)
    run = _Run(system, dynamics, user_events, progress, max_evaluations=int(max_evaluations),
               timeout=timeout)
    wall = time.perf_counter()
    status, message, failure = _guarded_run(run, mdl, laws, method, t0, sched, dt, rtol, atol,
                                            max_step)
    wall = time.perf_counter() - wall
    rec, events, knots, status, message, failure = _kept_records(run, method, dt, status,
                                                                 message, failure)
    result = Result.from_records(rec, events, mdl, laws=dynamics.laws,
                                 max_residual=run.max_residual,
                                 n_evaluations=dynamics.n_evaluations, n_steps=run.n_steps,
                                 method=method, dt=dt, alpha=alpha, beta=beta, status=status,
                                 message=message, wall_time=wall, knots=knots,
                                 knot_acceleration=run.side_acceleration,
                                 n_phases=run.n_phases, t_span=(t0, t_end),
                                 event_names=[ue.name for ue in user_events],
                                 layout=dynamics.layout)
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


def _kept_records(run, method, dt, status, message, failure):
    """The run's records, events and knots, with its status, message and failure: a fixed-step
    run cut before its first output that drifted off the constraints (:func:`_step_too_large`:
    those rows are not the motion), which then fails with the step-size error."""
    rec, events, knots = run.recorder.arrays(), run.events, run.knots
    too_large = (None if method not in FIXED_STEP_METHODS or isinstance(failure, KeyboardInterrupt)
                 else _step_too_large(rec, method, dt, run.system.constraint_names))
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


def _time_span(t_span) -> tuple[float, float]:
    if np.ndim(t_span) == 0:
        t0, t_end = 0.0, float(t_span)
    else:
        if len(t_span) != 2:
            raise ValueError(f"t_span must be t_end or (t0, t_end), got {t_span!r}")
        t0, t_end = float(t_span[0]), float(t_span[1])
    if not (math.isfinite(t0) and math.isfinite(t_end) and t_end > t0):
        raise ValueError(f"t_span = ({t0}, {t_end}) is invalid: the end time must be finite and "
                         "greater than the start time (s)")
    return t0, t_end


def _check_options(t0, t_end, dt, rtol, atol, max_evaluations, timeout, max_outputs,
                   method, on_grid=True) -> float:
    """Every numeric option checked, named, with its range; returns ``dt``. ``on_grid``: the
    outputs are the grid ``t0 + k dt`` (no ``t_eval``)."""
    dt = (t_end - t0) / 1000.0 if dt is None else float(dt)
    if not (math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt = {dt!r} is invalid: the step must be a finite number > 0 (s)")
    if dt > t_end - t0:
        raise ValueError(f"dt = {dt:g} s is longer than the simulated interval "
                         f"{t_end - t0:g} s; choose dt <= t_end - t0")
    if on_grid or method in FIXED_STEP_METHODS:
        _check_outputs(t0, t_end, dt, max_outputs, method)
    if np.ndim(rtol) != 0:
        raise ValueError(f"rtol = {rtol!r} is invalid: give one number (a vector atol sets "
                         "per-component tolerances)")
    for name, val in (("rtol", rtol), ("atol", atol)):
        if np.ndim(val) == 0 and not (math.isfinite(val) and val > 0):
            raise ValueError(f"{name} = {val!r} is invalid: it must be a finite number > 0")
    if not (isinstance(max_evaluations, (int, np.integer)) and max_evaluations > 0):
        raise ValueError(f"max_evaluations = {max_evaluations!r} is invalid: it must be an "
                         "integer > 0")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout = {timeout!r} is invalid: it must be a finite number > 0 (s)")
    return dt


def _schedule(t0, t_end, dt, t_eval, tstops, max_outputs, method,
              given: bool = True) -> _Schedule:
    """The output times, the fixed-step grid and the time stops of a run, checked."""
    fixed = method in FIXED_STEP_METHODS
    steps = _grid(t0, t_end, dt) if fixed or t_eval is None else np.zeros(0)
    grid = steps if t_eval is None else _check_t_eval(t_eval, t0, t_end, max_outputs)
    return _Schedule(grid, steps, _check_tstops(tstops, t0, t_end, given), t_end,
                     t_eval is not None)


def _times(value, name: str, example: str) -> np.ndarray:
    """``value`` as a 1-D array of finite times (s), or a ValueError naming ``name``."""
    if isinstance(value, (str, bytes)):
        arr = None
    else:
        try:
            raw = np.asarray(value)
            arr = (np.asarray(raw, dtype=float).reshape(-1) if raw.dtype.kind in "iuf"
                   else None)  # not None, a string, a bool
        except (TypeError, ValueError):  # ragged
            arr = None
    if arr is None:
        raise ValueError(f"{name} = {value!r} is invalid: give a sequence of times in s, e.g. "
                         f"{name}={example}")
    bad = arr[~np.isfinite(arr)]
    if bad.size:
        raise ValueError(f"{name} holds {float(bad[0])!r}: every time must be a finite number "
                         "(s)")
    return arr


def _check_t_eval(t_eval, t0, t_end, max_outputs) -> np.ndarray:
    times = _times(t_eval, "t_eval", "np.linspace(0, 1, 101)")
    if times.size == 0:
        raise ValueError("t_eval is empty: give at least one output time (s)")
    if np.any(np.diff(times) <= 0):
        raise ValueError("t_eval must be strictly increasing (s); sort it and drop repeated "
                         "times (np.unique)")
    if times[0] < t0 - _tol(t0) or times[-1] > t_end + _tol(t_end):
        raise ValueError(f"t_eval spans {times[0]:g} .. {times[-1]:g} s, outside t_span = "
                         f"({t0:g}, {t_end:g}) s: every output time must lie within the span")
    if times.size > max_outputs:
        raise ValueError(f"t_eval asks for {times.size:,} output rows, more than max_outputs "
                         f"= {max_outputs:,}: give fewer times or raise max_outputs")
    return np.clip(times, t0, t_end)


def _check_tstops(tstops, t0, t_end, given: bool = True) -> np.ndarray:
    """The time stops inside the open span ``(t0, t_end)``, increasing. Stops the caller gave
    (``given``) must be strictly increasing and inside the span (a ValueError naming it); a
    model's own (``Model.tstops``) outside a shorter run's span are left out."""
    if tstops is None:
        return np.zeros(0)
    times = _times(tstops, "tstops", "[0.4, 0.9]")
    inside = (times > t0 + _tol(t0)) & (times < t_end - _tol(t_end))
    if not given:
        return np.unique(times[inside])
    if np.any(np.diff(times) <= 0):
        k = int(np.flatnonzero(np.diff(times) <= 0)[0])
        raise ValueError(f"tstops must be strictly increasing (s): {times[k]:g} is followed by "
                         f"{times[k + 1]:g}; give them in increasing order without repeats, e.g. "
                         f"tstops={sorted(set(times.tolist()))}")
    if not np.all(inside):
        bad = times[~inside]
        raise ValueError(f"tstops holds {', '.join(f'{t:g}' for t in bad)} s, outside the span "
                         f"({t0:g}, {t_end:g}) s: every time stop must lie strictly between "
                         "t0 and t_end")
    return times


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
    """``atol`` for the integrated state ``[q, v, work, z]`` (shape ``(2 n_q + N_WORK + n_z,)``)
    from a number or a vector given for ``y = [q, v, z]``: :meth:`StateLayout.atol
    <nonsmooth.core.layout.StateLayout.atol>` of the system's layout (the work accumulators
    take the smallest value, the constraint forces' work at least ``rtol`` times the energy
    ``energy`` (J) at the start)."""
    return StateLayout(system.n_q, system.n_q, n_z).atol(atol, system.coordinate_names, rtol,
                                                          energy)


def _check_initial_state(mdl) -> None:
    for name, arr in (("q0", mdl.q0), ("v0", mdl.v0)):
        bad = [mdl.system.coordinate_names[i] for i in np.flatnonzero(~np.isfinite(arr))]
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
        named = (_nonfinite_cause(run, method, dt)  # a user function's NaN behind it?
                 if isinstance(exc, IntegrationError) and "non-finite" in str(exc) else None)
        failure = named or exc
        return -1, str(failure), failure
    except KeyboardInterrupt as exc:  # Ctrl-C (or SIGTERM turned into it by the command line)
        what = getattr(exc, "signal_name", "SIGINT")
        return -1, f"interrupted ({what}) at t = {run.t_now:.6g} s", exc
    except Exception as exc:  # raised by user code (a force, driver, event ...): name it
        named = _nonfinite_cause(run, method, dt)
        if named is not None:  # a NaN from user code reached a solver (e.g. "A must be finite")
            return -1, str(named), named
        where = user_frame(exc)
        return -1, (f"{type(exc).__name__}: {exc} (raised in {where or 'the model'} at "
                    f"t = {run.t_now:.6g} s)"), exc
    if how == "user":
        return 1, f"a terminal user event stopped the run at t = {t_reached:.10g} s", None
    return 0, "the simulation reached the end time", None


def _nonfinite_cause(run, method, dt) -> UserFunctionError | None:
    """After an unexpected exception: the user function that returned NaN/inf between the last
    output and the failing evaluation, if one did."""
    if not run.recorder.n_rows or not math.isfinite(run.t_now):
        return None
    t, y = run.recorder.last_t, run.recorder.last_y
    try:
        error = run.nonfinite(t, y, max(run.t_now - t, 0.0), method, dt)
    except Exception:  # the user function raises there too: leave the original report
        return None
    return error if isinstance(error, UserFunctionError) else None


def _blas_threads(system):
    """One BLAS thread for a small system (the KKT solves are tiny), else leave BLAS alone."""
    import contextlib

    size = system.n_q + system.n_constraints + system.n_pairs
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
    y = run.layout.join(q, v, None, np.array(z0, dtype=float))
    modes = run.initial_modes(t0, y)
    run.initial_faces(t0, y, modes)
    return _integrate_phases(run, method, sched, t0, y, dt, modes, rtol, atol, max_step)


def _check_outputs(t0, t_end, dt, max_outputs, method):
    """Refuse a run whose output grid would not fit in memory (before anything is allocated)."""
    rows = (t_end - t0) / dt + 1.0
    if not math.isfinite(rows) or rows > max_outputs:
        gb = rows * 1.5e3 / 1e9
        hint = (f"use a larger dt (at least {(t_end - t0) / max_outputs:.3g} s)"
                if method not in FIXED_STEP_METHODS else
                "use an adaptive method (RK45, DOP853) with a larger dt (output spacing), or a "
                "larger step")
        count = f"{rows:.3g}" if math.isfinite(rows) else "more than 1e308"
        memory = f"about {gb:.3g} GB of memory" if math.isfinite(gb) else "beyond any memory"
        raise ValueError(
            f"the run asks for {count} output rows ((t_end - t0) / dt + 1 with dt = {dt:g} s; "
            f"{memory}), more than max_outputs = {max_outputs:,}: {hint}, a shorter t_end, or "
            "raise max_outputs")


def _warn_energy(result: Result) -> None:
    d = result.diagnostics
    if d["energy_balance_scaled"] > ENERGY_WARNING:
        warnings.warn(
            f"energy balance error {d['energy_balance_scaled']:.1%} of the energy scale (over "
            f"{ENERGY_WARNING:.0%}): the integration is inaccurate or unstable (method "
            f"{result.method}, dt = {result.dt:g} s); reduce dt or use an adaptive method",
            RuntimeWarning, stacklevel=3)
