"""The state of one run (:class:`_Run`): everything that changes in time (modes, faces, the
event log, the records, the budget and clock, the knots of the dense output), the evaluation
with its cache, the recording of outputs, the initial modes and faces, the event functions and
the handling of an event (the transition problem)."""

from __future__ import annotations

import math
import time

import numpy as np

from ..core.event_kinds import EVENT_KINDS as _EVENT_CODES
from ..core.event_kinds import engine_value as _engine_value
from ..diagnose import check_mass_matrix, nonfinite_error
from ..dynamics import Evaluation
from ..errors import (
    BudgetError,
    IntegrationError,
    NonsmoothError,
    UserFunctionError,
)
from ..events import EventRecord, mode_name
from ..limits import (
    MAX_EVALUATIONS,
    ZENO_LIMIT,
)
from ..recorder import Recorder
from .phase import _kinetic, _potentials
from .schedule import _EVENT_RESOLUTION

_FACE = {1.0: "+", -1.0: "-", 0.0: "0"}


#: The transition's preference order of the modes of a pair after each kind of event: at rest
#: it sticks if static friction can hold it; a reserve that ran out slips the way the friction
#: was resisting (stick only if it cannot).
_TRANSITION_OPTIONS = {"velocity": (0.0, 1.0, -1.0), "reserve+": (1.0, 0.0),
                       "reserve-": (-1.0, 0.0), "reserve": (2.0, 0.0)}


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
        from ..system import GeneralizedSystem

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
            from ..vector_friction import VectorEvents

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
        from ..core.status import OK

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
