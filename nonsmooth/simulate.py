"""simulate(): smooth phases between events, event location, mode switches, outputs.

Between events every frictional pair keeps its mode (slip+ / slip-), so the right-hand side is
smooth and can be evaluated past an event (the integrator's dense output and the event root
finder rely on that). A slipping pair's sliding velocity reaching zero is located on the step,
the transition problem (:meth:`nonsmooth.dynamics.Dynamics.transition`) decides the new mode and
the integration restarts fresh from the event: nothing is cached across a discontinuity.

Integrators:

* fixed step ``"RK4"`` (classical Runge-Kutta) and ``"Euler"`` (explicit, first order) with step
  ``dt``; events are located on the cubic Hermite interpolant of the step, and the step is then
  redone exactly up to the event;
* adaptive ``"RK45"``, ``"DOP853"``, ``"RK23"``, ``"Radau"``, ``"BDF"``, ``"LSODA"`` from
  :func:`scipy.integrate.solve_ivp`, with its event location (brentq on the dense output).

Output is on the uniform grid ``t0, t0 + dt, ...`` (``dt`` defaults to ``(t_end - t0) / 1000``).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .dynamics import DEFAULT_ALPHA, DEFAULT_BETA, N_WORK, Dynamics, Evaluation
from .errors import ConstraintError, IntegrationError, NonsmoothError
from .events import EventRecord, UserEvent, crossed, hermite, locate, mode_name
from .result import Result
from .system import System

__all__ = ["simulate", "FIXED_STEP_METHODS", "ADAPTIVE_METHODS", "METHODS", "project"]

FIXED_STEP_METHODS = ("RK4", "Euler")
ADAPTIVE_METHODS = ("RK45", "DOP853", "RK23", "Radau", "BDF", "LSODA")
METHODS = FIXED_STEP_METHODS + ADAPTIVE_METHODS

_FACE = {1.0: "+", -1.0: "-", 0.0: "0"}

#: Most events allowed within 1e-12 s of each other before a chattering (Zeno) error.
ZENO_LIMIT = 50


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

    def __init__(self, system, dynamics, user_events, progress):
        self.system = system
        self.dyn = dynamics
        self.n = system.n_q
        self.user_events = user_events
        self.progress = progress
        self.events: list[EventRecord] = []
        self.rec: dict[str, list] = {k: [] for k in (
            "t", "y", "dv", "lam", "lambda_N", "F_T", "v_T", "modes", "residual", "phi",
            "dphi", "T", "V")}
        # pairs with set-valued Coulomb friction: modes and stick/slip events
        self.friction_pairs = [i for i in range(system.n_pairs)
                               if not dynamics.smooth[i] and dynamics.mu_s[i] > 0]
        self.mu_s = dynamics.mu_s
        self.zo = 2 * self.n + N_WORK  # the smooth laws' states follow q, v and the work
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
    def ev_at(self, t, y, modes) -> Evaluation:
        """Evaluation in the current phase (modes and faces fixed), cached for the last state."""
        last = self._last
        if last is not None and last[0] == t and last[2] is modes and np.array_equal(last[1], y):
            return last[3]
        n = self.n
        ev = self.dyn.evaluate(t, y[:n], y[n:2 * n], modes, self.faces, y[self.zo:])
        self._last = (t, y.copy(), modes, ev)
        return ev

    def fun(self, modes, cached=True):
        """The right-hand side for fixed modes; ``cached=False`` skips the cache lookup (the
        fixed-step loop reads ``self.last_ev`` instead)."""
        n, zo = self.n, self.zo
        evaluate = self.dyn.evaluate
        faces = self.faces

        def f(t, y):
            ev = self.ev_at(t, y, modes) if cached else evaluate(t, y[:n], y[n:2 * n], modes,
                                                                 faces, y[zo:])
            self.last_ev = ev
            return np.concatenate((y[n:2 * n], ev.dv, ev.powers, ev.dz))

        return f

    # ---------------------------------------------------------------- recording
    def record(self, t, y, ev, modes):
        n = self.n
        r = self.rec
        r["t"].append(t)
        r["y"].append(y.copy())
        r["dv"].append(ev.dv)
        r["lam"].append(ev.lam)
        r["lambda_N"].append(ev.lambda_N)
        r["F_T"].append(ev.F_T)
        r["v_T"].append(ev.v_T)
        r["modes"].append(np.where(self.dyn.smooth, np.nan, modes))
        r["residual"].append(ev.residual)
        if ev.residual > self.max_residual:
            self.max_residual = ev.residual
        r["phi"].append(ev.phi)
        r["dphi"].append(ev.dphi)
        v = y[n:2 * n]
        r["T"].append(0.5 * float(v @ ev.M @ v))
        r["V"].append(self.system.potential(t, y[:n]))
        if self.progress is not None:
            self.progress(t)

    # ---------------------------------------------------------------- modes and events
    def initial_modes(self, t, y):
        n = self.n
        q, v = y[:n], y[n:2 * n]
        modes = np.ones(self.system.n_pairs)
        if not self.system.n_pairs:
            return modes
        v_T = self.system.terms(t, q, v).W @ v
        scale = self._velocity_scale(v)
        zero = []
        for i in range(self.system.n_pairs):
            if abs(v_T[i]) > 1e-12 * scale or i not in self.friction_pairs:
                modes[i] = 1.0 if v_T[i] >= 0 else -1.0
            else:
                zero.append(i)
        if zero:
            modes = self.dyn.transition(t, q, v, modes, zero, z=y[self.zo:])
        for i in self.friction_pairs:  # smooth-law pairs have no modes
            self.events.append(EventRecord(t, self.system.pairs[i].name, "start", "",
                                           mode_name(modes[i]), q.copy(), v.copy()))
        return modes

    @staticmethod
    def _velocity_scale(v):
        return max(1.0, float(np.max(np.abs(v)))) if v.size else 1.0

    def initial_faces(self, t, y, modes):
        """The face of the slot each slider bears on (sign of each load row, e.g. lambda_N).

        A zero multiplier takes the sign it has just after t (probed along the flow); one that
        stays at roundoff level (a rotation-lock moment that nothing loads) gets face 0: it adds
        nothing to the load until it exceeds ``face_threshold`` (a ``detach`` event)."""
        n = self.n
        ev = self.dyn.evaluate(t, y[:n], y[n:2 * n], modes, None, y[self.zo:])
        scale = max(1.0, float(np.max(np.abs(ev.lam)))) if ev.lam.size else 1.0
        self.face_threshold = 1e-8 * scale
        faces = np.where(np.abs(ev.lam_abs) <= 1e-10 * scale, 0.0, np.sign(ev.lam_abs))
        if np.any(faces == 0):
            dy = np.concatenate((y[n:2 * n], ev.dv, ev.powers, ev.dz))
            delta = 1e-6
            probe = y + delta * dy
            later = self.dyn.evaluate(t + delta, probe[:n], probe[n:2 * n], modes, None,
                                      probe[self.zo:]).lam_abs
            faces = np.where((faces == 0) & (np.abs(later) > 1e-10 * scale), np.sign(later),
                             faces)
        self.faces = faces

    def handle(self, t, y, modes, fired):
        """Terminal engine events at t: flip faces (normal force sign), decide new modes
        (velocity zero), log them; guard against chattering. Returns the modes to go on with."""
        if t - self._zeno_t < 1e-12 * max(1.0, abs(t)):
            self._zeno_count += 1
            if self._zeno_count > ZENO_LIMIT:
                raise IntegrationError(
                    f"chattering (Zeno) at t = {t:.12g} s: more than {ZENO_LIMIT} events "
                    f"{sorted({kind for kind, _ in fired})} within 1e-12 s; the motion "
                    "accumulates events (sticking or a grazing normal force): use a smooth "
                    "friction law or change the parameters")
        else:
            self._zeno_t, self._zeno_count = t, 0
        n = self.n
        q, v = y[:n], y[n:2 * n]
        self._last = None  # nothing is cached across an event
        old_faces = self.faces
        coincident = {(f[0], f[1]) for f in fired if len(f) > 2}
        fired = [(f[0], f[1]) for f in fired]
        faces = old_faces.copy()
        for kind, i in fired:
            if kind == "normal":  # the normal force crossed zero: the slider changes face
                faces[i] = -faces[i]
            elif kind == "detach":  # a load row left zero: it takes the face of its sign
                ev = self.dyn.evaluate(t, q, v, modes, old_faces, y[self.zo:])
                faces[i] = 1.0 if ev.lam_abs[i] >= 0 else -1.0
        self.faces = faces
        options = {}
        for kind, i in fired:
            if kind == "velocity":
                options[i] = (0.0, 1.0, -1.0)  # stick if static friction can hold it
            elif kind == "reserve+":
                options[i] = (1.0, 0.0)  # F_T reached -mu_s N: slip+ (stick only if it can't)
            elif kind == "reserve-":
                options[i] = (-1.0, 0.0)
        new = modes
        if options:
            candidates = sorted(set(options) | set(np.flatnonzero(modes == 0.0).tolist()))
            new = self.dyn.transition(t, q, v, modes, candidates, options=options,
                                      z=y[self.zo:])
            # the friction force changed: re-derive every face from the HLCP at the new modes
            self.initial_faces(t, y, new)
            for kind, i in fired:
                if kind in ("velocity", "reserve+", "reserve-") and (
                        (kind, i) not in coincident or new[i] != modes[i]):
                    self.events.append(EventRecord(
                        t, self.system.pairs[i].name,
                        "velocity_zero" if kind == "velocity" else "reserve_zero",
                        mode_name(modes[i]), mode_name(new[i]), q.copy(), v.copy()))
            for i in candidates:  # sticking pairs that the transition set slipping
                if i not in options and new[i] != modes[i]:
                    self.events.append(EventRecord(t, self.system.pairs[i].name,
                                                   "reserve_zero", mode_name(modes[i]),
                                                   mode_name(new[i]), q.copy(), v.copy()))
        for r in np.flatnonzero(self.faces != old_faces):  # one entry per face change
            self.events.append(EventRecord(
                t, self.abs_names[r], "normal_sign", _FACE[old_faces[r]], _FACE[self.faces[r]],
                q.copy(), v.copy()))
        return new

    def coincident(self, t, y, modes, fired):
        """Add to ``fired`` every other engine event that is at (or just past) its zero at t.

        Root finders report the first of several simultaneous roots only (scipy drops the
        events after the first terminal one), so two pairs that stop at the same instant would
        otherwise leave the second one in a mode it has already left."""
        n = self.n
        ev = self.dyn.evaluate(t, y[:n], y[n:2 * n], modes, self.faces, y[self.zo:])
        v_scale = self._velocity_scale(y[n:2 * n])
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
        n = self.n
        v_tol = 1e-9 * self._velocity_scale(y[n:2 * n])
        f_tol = 1e-9 * max(1.0, float(np.max(np.abs(ev.N), initial=0.0)))
        for i in self.friction_pairs:
            if modes[i] == 0.0:
                N = self.mu_s[i] * ev.N[i]
                if N + ev.F_T[i] < -f_tol or N - ev.F_T[i] < -f_tol:
                    return True
            elif modes[i] * ev.v_T[i] < -v_tol:
                return True
        return bool(np.any(self.faces * ev.lam_abs < -f_tol))

    def log_user(self, t, y, ue):
        n = self.n
        self.events.append(EventRecord(t, ue.name, "user", "", "", y[:n].copy(),
                                       y[n:2 * n].copy()))

    def event_specs(self, modes):
        """(kind, index, direction, terminal) of each event function of the current phase.

        Engine events are terminal and one-sided (they watch the crossing away from the current
        mode / face), so a restart exactly at an event cannot find it again."""
        specs = []
        for i in self.friction_pairs:
            if modes[i] == 0.0:  # sticking: the friction reserves mu_s N -+ F_T must stay >= 0
                specs += [("reserve+", i, -1.0, True), ("reserve-", i, -1.0, True)]
            else:
                specs.append(("velocity", i, -modes[i], True))
        specs += [("normal", r, -self.faces[r], True) if self.faces[r] else
                  ("detach", r, 1.0, True) for r in range(len(self.faces))]
        specs += [("user", k, ue.direction, ue.terminal) for k, ue in enumerate(self.user_events)]
        return specs

    def g_value(self, spec, t, y, ev, modes):
        kind, i = spec[0], spec[1]
        if kind == "velocity":
            return float(ev.v_T[i])
        if kind == "normal":
            return float(ev.lam_abs[i])
        if kind == "detach":
            return abs(float(ev.lam_abs[i])) - self.face_threshold
        if kind == "reserve+":
            return float(self.mu_s[i] * ev.N[i] + ev.F_T[i])
        if kind == "reserve-":
            return float(self.mu_s[i] * ev.N[i] - ev.F_T[i])
        n = self.n
        return float(self.user_events[i].function(t, y[:n], y[n:2 * n]))


def _grid(t0, t_end, dt):
    """Output times ``t0, t0 + dt, ...``, never beyond ``t_end``, ending at ``t_end``."""
    n_grid = int(math.floor((t_end - t0) / dt + 1e-9))
    grid = np.minimum(t0 + dt * np.arange(n_grid + 1), t_end)
    if t_end - grid[-1] > 1e-12 * max(1.0, abs(t_end)):
        grid = np.append(grid, t_end)
    return grid


# ------------------------------------------------------------------------------- fixed step
def _run_fixed(run: _Run, method, t0, t_end, y, dt, modes):
    step = _STEPPERS[method]
    grid = _grid(t0, t_end, dt)
    t = t0
    rhs = run.fun(modes, cached=False)
    f = rhs(t, y)
    ev = run.last_ev
    run.record(t, y, ev, modes)
    k = 0
    specs_key, specs = None, []
    while k < len(grid) - 1:
        t_next = grid[k + 1]
        y_new = step(rhs, t, y, f, t_next - t)
        run.n_steps += 1
        f_new = rhs(t_next, y_new)
        ev_new = run.last_ev
        if not math.isfinite(float(y_new @ y_new)):  # nan and inf propagate through the dot
            raise IntegrationError(f"the state became non-finite at t = {t_next:.6g} s "
                                   f"(method {method}, dt = {dt:g} s): reduce dt")
        hits = []
        interp = None
        if specs_key != (id(modes), id(run.faces)):  # the event functions change only at events
            specs_key, specs = (id(modes), id(run.faces)), run.event_specs(modes)
        for spec in specs:
            g0 = run.g_value(spec, t, y, ev, modes)
            g1 = run.g_value(spec, t_next, y_new, ev_new, modes)
            if not crossed(g0, g1, spec[2]) or (g0 == 0 and spec[3]):
                continue
            if interp is None:
                interp = hermite(t, y, f, t_next, y_new, f_new)

            def g(tt, spec=spec, interp=interp, modes=modes):
                yy = interp(tt)
                return run.g_value(spec, tt, yy, run.ev_at(tt, yy, modes), modes)

            hits.append((locate(g, t, t_next, g0, g1), spec))
        terminal = [hit for hit in hits if hit[1][3]]
        t_e = min(hit[0] for hit in terminal) if terminal else t_next
        for t_h, spec in hits:  # non-terminal user events up to the first terminal one
            if not spec[3] and t_h <= t_e:
                run.log_user(t_h, interp(t_h), run.user_events[spec[1]])
        if terminal:
            fired = [hit[1] for hit in terminal if hit[0] <= t_e + 1e-13]
            y_e = step(rhs, t, y, f, t_e - t) if t_e > t else y
            users = [spec for spec in fired if spec[0] == "user"]
            if users:
                for spec in users:
                    run.log_user(t_e, y_e, run.user_events[spec[1]])
                run.record(t_e, y_e, run.ev_at(t_e, y_e, modes), modes)
                return "user", t_e
            modes = run.handle(t_e, y_e, modes, run.coincident(
                t_e, y_e, modes, [(spec[0], spec[1]) for spec in fired]))
            rhs = run.fun(modes, cached=False)
            t, y = t_e, y_e
            f = rhs(t, y)
            ev = run.last_ev
            if grid[k + 1] - t <= 1e-13 * max(1.0, abs(t)):
                k += 1
                run.record(t, y, ev, modes)
            continue
        t, y, f, ev = t_next, y_new, f_new, ev_new
        k += 1
        run.record(t, y, ev, modes)
    return "done", t


# ------------------------------------------------------------------------------- adaptive
def _run_adaptive(run: _Run, method, t0, t_end, y, dt, modes, rtol, atol, max_step):
    from scipy.integrate import solve_ivp

    grid = _grid(t0, t_end, dt)
    run.record(t0, y, run.ev_at(t0, y, modes), modes)
    next_k = 1
    t = t0
    phase_max_step = max_step
    while t < t_end:
        specs = run.event_specs(modes)
        fns = []
        for spec in specs:
            def g(tt, yy, spec=spec, modes=modes):
                return run.g_value(spec, tt, yy, run.ev_at(tt, yy, modes), modes)
            g.terminal = spec[3]
            g.direction = spec[2]
            fns.append(g)
        with warnings.catch_warnings():  # scipy's finite-difference Jacobian step control
            warnings.filterwarnings("ignore", category=RuntimeWarning, module="scipy.integrate")
            sol = solve_ivp(run.fun(modes), (t, t_end), y, method=method,
                            t_eval=grid[next_k:], events=fns or None, rtol=rtol, atol=atol,
                            max_step=phase_max_step, dense_output=True)
        run.n_steps += len(sol.sol.ts) - 1 if sol.sol is not None else 0
        if sol.status == -1:
            t_fail = float(sol.t[-1]) if len(sol.t) else t
            raise IntegrationError(f"{method} failed after t = {t_fail:.6g} s: {sol.message}; "
                                   "try another method, looser tolerances or a smaller max_step")
        Y = np.asarray(sol.y, dtype=float).reshape(y.size, len(sol.t))
        evs = [run.ev_at(tt, yy, modes) for tt, yy in zip(sol.t, Y.T, strict=True)]
        bad = next((j for j, ev in enumerate(evs) if run.inconsistent(Y[:, j], ev, modes)),
                   None)
        if bad is not None:
            # an event was stepped over (its function crossed zero twice within one step):
            # keep the outputs before it and redo the phase from there with shorter steps
            for j in range(bad):
                run.record(sol.t[j], Y[:, j], evs[j], modes)
            next_k += bad
            t_from = sol.t[bad - 1] if bad else t
            limit = (sol.t[bad] - t_from) / 8.0
            if limit < 1e-12 * max(1.0, abs(t_from)):
                raise IntegrationError(
                    f"{method} steps over a mode switch near t = {sol.t[bad]:.10g} s that it "
                    "cannot resolve; try a smaller dt or max_step, or the RK4 method")
            if bad:
                t, y = float(sol.t[bad - 1]), np.array(Y[:, bad - 1])
                run._last = None
            phase_max_step = min(phase_max_step, limit)
            continue
        for tt, yy, ev in zip(sol.t, Y.T, evs, strict=True):
            run.record(tt, yy, ev, modes)
        next_k += len(sol.t)
        fired, t_stop = [], t_end
        if sol.status == 1:
            times = [(te[-1], j) for j, te in enumerate(sol.t_events) if len(te) and specs[j][3]]
            t_stop = min(tt for tt, _ in times)
            fired = [j for tt, j in times if tt <= t_stop + 1e-13]
        for j, spec in enumerate(specs):  # non-terminal user events
            if not spec[3]:
                for t_h, y_h in zip(sol.t_events[j], sol.y_events[j], strict=True):
                    if t_h <= t_stop:
                        run.log_user(t_h, y_h, run.user_events[spec[1]])
        if not fired:
            break
        y_e = np.array(sol.y_events[fired[0]][-1])
        users = [j for j in fired if specs[j][0] == "user"]
        if users:
            for j in users:
                run.log_user(t_stop, y_e, run.user_events[specs[j][1]])
            run.record(t_stop, y_e, run.ev_at(t_stop, y_e, modes), modes)
            return "user", t_stop
        modes = run.handle(t_stop, y_e, modes, run.coincident(
            t_stop, y_e, modes, [(specs[j][0], specs[j][1]) for j in fired]))
        t, y = t_stop, y_e
        phase_max_step = max_step
        if next_k < len(grid) and grid[next_k] - t <= 1e-13 * max(1.0, abs(t)):
            run.record(t, y, run.ev_at(t, y, modes), modes)
            next_k += 1
    return "done", t


# ------------------------------------------------------------------------------- entry point
def simulate(model, t_span, *, method: str | None = None, dt: float | None = None,
             rtol: float = 1e-8, atol: float = 1e-10, alpha: float | None = None,
             beta: float | None = None, friction=None, events: Sequence[Callable] = (),
             q0=None, v0=None, max_step: float = math.inf,
             progress: Callable[[float], None] | None = None, throw: bool = True) -> Result:
    """Simulate a model over ``t_span``.

    Parameters
    ----------
    model : nonsmooth.Model, System or PlanarModel
        What to simulate. A bare ``System`` needs ``q0`` and ``v0``.
    t_span : float or (float, float)
        End time, or (start, end) in s.
    method : str, optional
        ``"RK4"``, ``"Euler"`` (fixed step ``dt``) or a ``solve_ivp`` method. Default:
        ``"RK45"`` with set-valued Coulomb friction only; ``"Radau"`` (implicit, the most
        accurate here) as soon as a pair uses a smooth law: LuGre's bristles and steep
        regularizations are stiff. ``"LSODA"`` (stiffness switching) is 2-4 times faster on
        these models at a slightly lower accuracy (``benchmarks/friction_backends.py``).
    dt : float, optional
        Step of the fixed-step methods and output spacing (s); default ``(t_end - t0) / 1000``.
    rtol, atol : float
        Tolerances of the adaptive methods.
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
        Raise on failure (default); with False return a Result with ``status = -1``.

    Returns
    -------
    Result
    """
    from .model import as_model

    mdl = as_model(model, q0=q0, v0=v0)
    system = mdl.system
    if np.ndim(t_span) == 0:
        t0, t_end = 0.0, float(t_span)
    else:
        if len(t_span) != 2:
            raise ValueError(f"t_span must be t_end or (t0, t_end), got {t_span!r}")
        t0, t_end = float(t_span[0]), float(t_span[1])
    if not (math.isfinite(t0) and math.isfinite(t_end) and t_end > t0):
        raise ValueError(f"t_span = ({t0}, {t_end}) is invalid: the end time must be finite and "
                         "greater than the start time (s)")
    laws = resolve_laws(system, friction)
    if method is None:
        method = "Radau" if any(law.smooth for law in laws) else "RK45"
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if dt is None:
        dt = (t_end - t0) / 1000.0
    dt = float(dt)
    if not (math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt = {dt!r} is invalid: the step must be a finite number > 0 (s)")
    if dt > t_end - t0:
        raise ValueError(f"dt = {dt:g} s is longer than the simulated interval "
                         f"{t_end - t0:g} s; choose dt <= t_end - t0")
    for name, val in (("rtol", rtol), ("atol", atol)):
        if not (math.isfinite(val) and val > 0):
            raise ValueError(f"{name} = {val!r} is invalid: it must be a finite number > 0")
    alpha = mdl.alpha if alpha is None else alpha
    beta = mdl.beta if beta is None else beta
    alpha = DEFAULT_ALPHA if alpha is None else alpha
    beta = DEFAULT_BETA if beta is None else beta
    dynamics = Dynamics(system, alpha=alpha, beta=beta, laws=laws)
    for law in laws:
        for text in law.warnings():
            warnings.warn(text, RuntimeWarning, stacklevel=2)
    user_events = [UserEvent.wrap(fn, i) for i, fn in enumerate(events)]
    run = _Run(system, dynamics, user_events, progress)
    wall = time.perf_counter()
    status, message = 0, "the simulation reached the end time"
    t_reached = t0
    try:
        q, v = project(system, t0, mdl.q0, mdl.v0)
        v_T = system.terms(t0, q, v).W @ v
        z0 = [s for law, vt in zip(laws, v_T, strict=True) for s in law.initial_state(float(vt))]
        y = np.concatenate((q, v, np.zeros(N_WORK), np.array(z0, dtype=float)))
        modes = run.initial_modes(t0, y)
        run.initial_faces(t0, y, modes)
        if method in FIXED_STEP_METHODS:
            how, t_reached = _run_fixed(run, method, t0, t_end, y, dt, modes)
        else:
            how, t_reached = _run_adaptive(run, method, t0, t_end, y, dt, modes, rtol, atol,
                                           max_step)
        if how == "user":
            status, message = 1, f"a terminal user event stopped the run at t = {t_reached:.10g} s"
    except NonsmoothError as exc:
        if throw:
            raise
        status, message = -1, str(exc)
    wall = time.perf_counter() - wall
    return Result.from_run(run, mdl, method=method, dt=dt, alpha=alpha, beta=beta,
                           status=status, message=message, wall_time=wall)
