"""The Python steppers of a smooth phase and their loop: fixed-step RK4 and explicit Euler
(:class:`_FixedStepper`, a whole step in one compiled call where the family has one), scipy's
adaptive ``OdeSolver`` classes one step at a time (:class:`_ScipyStepper`), and the loop that
steps one, locates the events on each step's dense output and records the outputs
(:func:`_phase`).

Which stepper a method uses, and its rule, cost or solver, is the method's
(:class:`nonsmooth.run.methods.Method`: ``stepper``, and a ``FixedStepMethod``'s ``rule``,
``stages``, ``kernel_rk4`` or a ``ScipyMethod``'s ``solver_class()``, ``projects_steps``); the
stepper protocol a new integrator's stepper follows is in :mod:`nonsmooth.run.methods`."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..errors import (
    IntegrationError,
    UserFunctionError,
)
from .events import crossed, hermite, locate
from .schedule import _Schedule, _tol
from .singular import StepWatch, singular_error

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from .state import _Run


#: The largest factor of an implicit method's finite-difference Jacobian step (scipy's
#: ``num_jac`` multiplies a column's factor by 10 at every Jacobian where the right-hand side
#: does not change with that state entry, a work accumulator or a contact's impact speed, until
#: it overflows, its step becomes infinite and the Jacobian NaN: Radau then stopped with
#: "array must not contain infs or NaNs" after a few hundred Jacobians). The step of such a
#: column is then at most this times ``max(atol, |y|)``.
JAC_FACTOR_MAX = 1e3


def bound_jacobian_factor(solver) -> None:
    """Bound an implicit scipy solver's finite-difference Jacobian step factor
    (``jac_factor``; nothing for the others) at :data:`JAC_FACTOR_MAX`, before its step."""
    factor = getattr(solver, "jac_factor", None)
    if factor is not None:
        np.minimum(factor, JAC_FACTOR_MAX, out=factor)


def _rk4_step(rhs, t, y, f0, h):
    """One classical Runge-Kutta step of length ``h`` from ``(t, y)`` (``f0 = rhs(t, y)``)."""
    k2 = rhs(t + 0.5 * h, y + 0.5 * h * f0)
    k3 = rhs(t + 0.5 * h, y + 0.5 * h * k2)
    k4 = rhs(t + h, y + h * k3)
    return y + (h / 6.0) * (f0 + 2.0 * (k2 + k3) + k4)


def _euler_step(rhs, t, y, f0, h):
    """One explicit Euler step of length ``h`` from ``(t, y)`` (``f0 = rhs(t, y)``)."""
    return y + h * f0


# ------------------------------------------------------------------------------- steppers
_EPS4 = 4 * np.finfo(float).eps


class _FixedStepper:
    """The stepper protocol for the fixed-step methods (RK4, explicit Euler:
    ``methods.FixedStepMethod``, whose ``rule`` takes a step).

    Steps land on the step grid ``t0 + k dt`` (the first step after an event or a time stop is
    the remainder of its interval; a phase that ends at a time stop ends with a shorter step
    exactly to it). ``dense_output()`` is the cubic Hermite interpolant of the step (4th
    order); the state at an event is got by re-stepping exactly to it (``state_at``), not by
    interpolation. Without ``t_eval`` the outputs are the step ends themselves; with it, the
    outputs between step ends come from the step's Hermite interpolant. Outputs are not
    checked against the phase's modes (the step cannot be shortened). A family's projection
    (``System.project``) is applied to each step's end before its derivative is evaluated
    (no evaluation added)."""

    xtol = 1e-13
    fixed = True

    def __init__(self, run, method, modes, t, y, steps, t_bound, dt):
        self.run, self.method, self.dt = run, method, dt
        self.rule = method.rule
        self.rhs = run.fun(modes, cached=False)  # the stages are never evaluated twice
        self.modes = modes
        self.steps, self.t_bound = steps, t_bound
        self.k = int(np.searchsorted(steps, t + _tol(t), side="right"))
        self.t, self.y = t, y
        self.f = self.rhs(t, y)
        self._remember()
        self.status = "running"
        self.watch = StepWatch(run, t, t_bound - t)  # the rows kept chosen again (rows())
        self.keep = None  # the constraint rows to keep from here on
        # a family with a compiled step and no user function to call back (a planar or
        # spatial model): each whole step in one compiled call (whose steps, as the compiled
        # phases', are projected at the phase's end only: nonsmooth.family, obligation 2)
        family = run.family
        # (a method with the family's compiled fixed-step kernels: ``method.compiled_phase``)
        self.compiled = (family is not None and family.steps_compiled and not family.calls_back
                         and method.compiled_phase is not None)
        if self.compiled:
            family.warm(method.compiled_phase)

    @classmethod
    def start(cls, run, method, modes, t, y, t_bound, *, steps, rtol, atol, max_step, dt):
        """A phase of the fixed-step ``method`` from ``(t, y)`` to ``t_bound`` on the step grid
        ``steps`` (the stepper protocol's constructor: ``rtol``, ``atol``, ``max_step`` are
        not used)."""
        return cls(run, method, modes, t, y, steps, t_bound, dt)

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
                raise run.nonfinite(self.t, self.y, t_next - self.t, self.method.name, self.dt)
            y_new = run.projected(y_new)  # the family's projection of q (none: y_new itself)
            self.f = self.rhs(t_next, y_new)
            self.t, self.y = t_next, y_new
        self._remember()
        self.k = int(np.searchsorted(steps, self.t + _tol(self.t), side="right"))
        if self.t >= self.t_bound:
            self.status = "finished"
        elif self.watch.rows(self.t, 1, self.y):  # the phase ends here (_phase_end)
            self.keep = self.watch.keep

    def _compiled_step(self, t_next) -> bool:
        """The step by the family's compiled step (``CompiledFamily.step``); False (nothing
        changed) when the kernel declines an evaluation (the Python step then names the
        problem)."""
        from ..core.status import OK

        run, dyn = self.run, self.run.dyn
        cost = self.method.stages
        if dyn.n_evaluations + cost >= run.max_evaluations:
            return False  # the Python step stops at the exact evaluation
        y, f = self.y, self.f
        y_new, f_new, out = np.empty_like(y), np.empty_like(y), np.empty(dyn.buffer_size)
        status = run.family.step(dyn.plan, dyn.Wt, self.t, y, f, t_next - self.t, t_next,
                                 self.modes, run.faces, self.method.kernel_rk4, y_new, f_new, out)
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
    dense output there, as in ``solve_ivp``.

    A family's projection (``System.project``) is applied after every accepted step of the
    explicit Runge-Kutta solvers (``ScipyMethod.projects_steps``: one-step methods whose state
    between steps is ``y`` and the derivative ``f`` at it, the next step's first stage, FSAL,
    so a projected ``y`` with its ``f`` evaluated again is a consistent restart): the
    solver's ``y`` is replaced by the
    projected state and its ``f`` (the next step's first stage, and the slope at the end of
    the step's dense output) evaluated there, one evaluation more per step. The implicit
    solvers keep a history (BDF, LSODA) or a Newton state (Radau) that a changed ``y`` would
    contradict: they are projected at the phase's ends only (events, time stops)."""

    xtol = _EPS4
    fixed = False

    def __init__(self, run, method, modes, t, y, t_end, rtol, atol, max_step, dt):
        self.run, self.method, self.dt = run, method, dt
        self.solver = method.solver_class()(run.fun(modes), t, y, t_end, rtol=rtol,
                                            atol=atol, max_step=max_step)
        self.t, self.y = t, self.solver.y
        self.status = "running"
        self._dense = None
        self.watch = StepWatch(run, t, t_end - t)  # a step size collapsing at a singular G
        self.keep = None  # the constraint rows to keep from here on (StepWatch.advance)

    @classmethod
    def start(cls, run, method, modes, t, y, t_bound, *, steps, rtol, atol, max_step, dt):
        """A phase of scipy's ``method`` from ``(t, y)`` to ``t_bound`` (the stepper
        protocol's constructor: ``steps`` is not used)."""
        return cls(run, method, modes, t, y, t_bound, rtol, atol, max_step, dt)

    def step(self):
        solver, run = self.solver, self.run
        self.t_old, self.y_old = solver.t, solver.y.copy()
        bound_jacobian_factor(solver)
        message = solver.step()
        if solver.status == "failed" or not np.all(np.isfinite(solver.y)):
            if not np.all(np.isfinite(solver.y)) or "step size" in str(message):
                error = run.nonfinite(self.t_old, self.y_old,
                                      max(self.dt, solver.t - self.t_old), self.method.name,
                                      self.dt)
                if isinstance(error, UserFunctionError):
                    raise error
                singular = singular_error(run, self.t_old, self.y_old,
                                          f"{self.method.name} could not step on from t = "
                                          f"{self.t_old:.9g} s ({message})")
                if singular is not None:
                    raise singular
            raise IntegrationError(
                f"{self.method.name} failed after t = {self.t_old:.6g} s: {message}; try another "
                "method, looser tolerances or a smaller max_step")
        if self.run.project is not None and self.method.projects_steps:
            solver.y = self.run.projected(solver.y)
            solver.f = solver.fun(solver.t, solver.y)  # FSAL: the stage at the projected state
        self.t, self.y, self.status = solver.t, solver.y, solver.status
        self._dense = None
        if self.watch.advance(self.t, 1, self.y):  # the rows kept chosen again: the phase
            self.keep = self.watch.keep  # ends here (_phase)

    def dense_output(self):
        if self._dense is None:
            self._dense = self.solver.dense_output()
        return self._dense

    def state_at(self, t):
        return np.array(self.dense_output()(t))


def _python_phase(run: _Run, method, specs, modes, t, y, t_end, grid, next_k, rtol, atol,
                  max_step, dt, *, sched: _Schedule | None = None):
    """A phase by the method's Python stepper (``method.stepper``: :class:`_FixedStepper`,
    :class:`_ScipyStepper`) from ``t`` to ``t_end`` (the run's end or a time stop)."""
    stepper = method.stepper.start(run, method, modes, t, y, t_end,
                                   steps=grid if sched is None else sched.steps, rtol=rtol,
                                   atol=atol, max_step=max_step, dt=dt)
    k_cap = len(grid) if sched is None else sched.k_cap(t_end)
    interpolate = sched is not None and sched.t_eval
    with warnings.catch_warnings():  # scipy's finite-difference Jacobian step control
        warnings.filterwarnings("ignore", category=RuntimeWarning, module="scipy.integrate")
        return _phase(run, stepper, specs, modes, grid, next_k, method, k_cap, interpolate)


def _phase(run: _Run, stepper, specs, modes, grid, next_k, method, k_cap=None,
           interpolate=False):
    """One smooth phase (fixed modes and faces) from ``stepper.t`` until a terminal event or the
    end. Returns ``("event", next_k, t_e, y_e, fired)``, ``("done", next_k, t, y)``,
    ``("rows", next_k, t, y, keep)`` where the constraint rows kept are to be chosen again
    (:class:`~nonsmooth.run.singular.StepWatch`) or
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
        end = _phase_end(stepper, next_k, t_new, y_new)
        if end is not None:
            return end
        g_old = run.step_accepted(specs, ev_new, modes, g_new, stepper.fixed)


def _phase_end(stepper, next_k, t, y):
    """The outcome of a phase that ends at the step to ``(t, y)`` without an event: ``"done"``
    at the phase's end, ``"rows"`` where the constraint rows kept are to be chosen again
    (:class:`~nonsmooth.run.singular.StepWatch`); None: it goes on."""
    if stepper.status == "finished":
        return "done", next_k, t, y
    if getattr(stepper, "keep", None) is not None:
        return "rows", next_k, t, y, stepper.keep
    return None


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
            f"{method.name} steps over a mode switch near t = {tt:.10g} s that it cannot "
            "resolve; "
            "try a smaller dt or max_step, or the RK4 method")
    run.events[:] = [e for e in run.events  # found again after the restart
                     if not (e.kind == "user" and e.t > t_from)]
    return limit, next_k, start
