"""One smooth phase by its chain of runners (:func:`_smooth_phase`): the family's compiled
phase where the method has one and the run can take it (``Method.compiled_phase``:
``"dop853"``, :func:`_compiled_phase`; ``"fixed"``, RK4/Euler: :func:`_compiled_fixed_phase`,
through ``CompiledFamily``), then, from where it declines, the method's Python stepper
(``Method.stepper``, :mod:`nonsmooth.run.steppers`). A runner returns an outcome and never calls
another. Also the recorded rows' energies of a compiled block (:func:`_record_rows`)."""

from __future__ import annotations

import signal
import threading
from typing import TYPE_CHECKING

import numpy as np

from ..core.event_kinds import EVENT_KINDS as _EVENT_CODES
from .schedule import _Schedule, _tol
from .singular import StepWatch
from .steppers import _python_phase, _record_outputs

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from .state import _Run


def _smooth_phase(run: _Run, method, specs, modes, t, y, t_bound, grid, next_k, rtol, atol,
                  max_step, dt, sched: _Schedule):
    """One smooth phase from ``t`` to ``t_bound`` (the run's end or a time stop) by its chain of
    runners: the method's compiled phase where the run can take one
    (``method.compiled_phase``: ``"dop853"``, :func:`_compiled_phase`; ``"fixed"``,
    :func:`_compiled_fixed_phase`), then, from where a compiled phase declines (an
    evaluation it cannot do, a step below round-off, the budget nearly spent), the method's
    Python stepper (:func:`_python_phase`), which names the problem. A runner returns an outcome and
    never calls another. Returns the outcome of :func:`_phase`."""
    k_cap = sched.k_cap(t_bound)
    if method.compiled_phase == "dop853" and run.compiled:
        outcome = _compiled_phase(run, method, specs, modes, t, y, t_bound, grid[:k_cap],
                                  next_k, rtol, atol, max_step, dt)
        if outcome[0] != "declined":
            return outcome
        _, next_k, t, y = outcome  # scipy's solver goes on from the last accepted step
        return _python_phase(run, method, specs, modes, t, y, t_bound, grid[:k_cap], next_k,
                             rtol, atol, max_step, dt)
    if method.compiled_phase == "fixed" and _fixed_compiled(run, specs, sched):
        outcome = _compiled_fixed_phase(run, method, specs, modes, t, y, t_bound, grid, next_k,
                                        dt, sched)
        if outcome[0] != "declined":
            return outcome
        _, next_k, t, y = outcome  # Python's step from the last step end names the problem
    return _python_phase(run, method, specs, modes, t, y, t_bound, grid, next_k, rtol, atol,
                         max_step, dt, sched=sched)


def event_codes(run: _Run, specs) -> tuple[np.ndarray, np.ndarray]:
    """The compiled phases' codes and indices of the event functions ``specs``
    (``core.event_kinds``): a contact's ``touch`` or ``leave`` is a ``GAP`` event whose index
    is its gap's place in the evaluation buffer (after its fields: ``Dynamics.gap_offset``)."""
    from ..core.event_kinds import GAP, GAP_KINDS

    o_gap = run.dyn.gap_offset
    kinds = np.array([GAP if s[0] in GAP_KINDS else _EVENT_CODES[s[0]] for s in specs],
                     dtype=np.int64)
    index = np.array([o_gap + s[1] if s[0] in GAP_KINDS else s[1] for s in specs],
                     dtype=np.int64)
    return kinds, index


def _fixed_compiled(run: _Run, specs, sched) -> bool:
    """Whether a fixed-step phase runs in compiled calls (:mod:`nonsmooth.planar.fixed_step`): a
    planar model without user functions, or a ``GeneralizedSystem`` with compiled terms (its
    generated module); the engine's event functions only (all terminal), outputs at the step
    ends (no ``t_eval``)."""
    from ..core.event_kinds import EVENT_KINDS, GAP_KINDS

    family = run.family  # the compiled right-hand side calls no user function back
    compiled = family is not None and not family.calls_back
    return (compiled and (sched is None or not sched.t_eval or _on_steps(sched) is not None)
            and all((s[0] in EVENT_KINDS or s[0] in GAP_KINDS) and s[0] != "given" and s[3]
                    for s in specs))


def _on_steps(sched: _Schedule) -> np.ndarray | None:
    """The step ends that are the output times ``t_eval`` (each within round-off of one,
    :func:`~nonsmooth.run.schedule._tol`), or None when an output time falls between step
    ends (then the steps' interpolant gives it: the Python stepper)."""
    steps, grid = np.asarray(sched.steps, dtype=float), np.asarray(sched.grid, dtype=float)
    if steps.size == 0 or grid.size == 0:
        return None
    hi = np.clip(np.searchsorted(steps, grid), 0, steps.size - 1)
    lo = np.maximum(hi - 1, 0)
    nearest = np.where(np.abs(steps[hi] - grid) <= np.abs(steps[lo] - grid), hi, lo)
    tol = 1e-13 * np.maximum(1.0, np.abs(grid))
    if np.any(np.abs(steps[nearest] - grid) > tol) or np.any(np.diff(nearest) <= 0):
        return None
    return steps[nearest]


def _compiled_fixed_phase(run: _Run, method, specs, modes, t, y, t_end, grid, next_k, dt,
                          sched):
    """A fixed-step phase in compiled calls (``core.phases.fixed.fixed_phase_with``
    instantiated by the family: ``CompiledFamily.fixed``), pausing
    every :data:`_PAUSE_AFTER` evaluations or full output buffer for the run's clock, progress
    and records: the same outcomes as :func:`_phase` with a :class:`_FixedStepper`, or
    ``("declined", next_k, t, y)`` where the kernel declines a step or the budget is nearly
    spent (:func:`_smooth_phase` then hands the phase from that step end to the Python
    stepper, which names the problem)."""

    dyn = run.dyn
    run.family.warm(method.compiled_phase)
    phase, ctx = run.family.fixed(dyn.plan, dyn.Wt)
    steps = grid if sched is None else sched.steps
    given = None  # t_eval on the step ends: recorded at the step ends, named by t_eval's times
    if sched is not None and sched.t_eval:
        given, grid = np.asarray(grid, dtype=float), _on_steps(sched)
    k_cap = len(grid) if sched is None else sched.k_cap(t_end)
    y = np.array(y, dtype=float)
    f = run.fun(modes, cached=False)(t, y)  # as _FixedStepper: f and the event functions at t
    ev = run.last_ev
    g = np.array([run.g_value(s, t, y, ev, modes) for s in specs], dtype=float)
    kinds, index = event_codes(run, specs)
    direction = np.array([s[2] for s in specs], dtype=float)
    fired = np.zeros(len(specs), dtype=np.int8)
    modes = np.asarray(modes, dtype=float)
    faces = np.asarray(run.faces, dtype=float)
    mu_s = np.asarray(run.mu_s, dtype=float)
    size = dyn.buffer_size
    rows = max(1, min(k_cap - next_k, _OUTPUT_FLOATS // (size + y.size)))
    T_out, Y_out, O_out = np.empty(rows), np.empty((rows, y.size)), np.empty((rows, size))
    k0 = int(np.searchsorted(steps, t + _tol(t), side="right"))
    istate = np.array([k0, next_k, k_cap, 0, 0, method.kernel_rk4, 0, _pause_after(run), 0],
                      dtype=np.int64)
    fstate = np.array([t, t_end, run.t_clamp, run.face_threshold])
    watch = StepWatch(run, t, t_end - t)  # the rows kept of a loop chosen again (rows())
    with _HeldSignals() as held:
        return _fixed_calls(run, held, watch, phase, ctx, modes, faces, kinds, index,
                            direction, mu_s, steps, grid, given, istate, fstate, y, f, g, fired,
                            T_out, Y_out, O_out)


def _fixed_calls(run: _Run, held: _HeldSignals, watch: StepWatch, phase, ctx, modes, faces,
                 kinds, index, direction, mu_s, steps, grid, given, istate, fstate, y, f, g,
                 fired, T_out, Y_out, O_out):
    """The compiled RK4/Euler calls of :func:`_compiled_fixed_phase`, each call's rows
    recorded before a signal that came during it is handed on (``held``); at each pause
    ``watch`` looks at the rows kept of a system that removed redundant rows
    (``("rows", next_k, t, y, keep)``: the phase ends where they are to be chosen again)."""
    from ..core.phases import fixed

    dyn = run.dyn
    while True:
        istate[3], istate[6] = 0, run.max_evaluations - dyn.n_evaluations
        status = phase(ctx, dyn.plan, modes, faces, kinds, index, direction, mu_s,
                       np.asarray(steps, dtype=float), np.asarray(grid, dtype=float), istate,
                       fstate, y, f, g, fired, T_out, Y_out, O_out)
        dyn.n_evaluations += int(istate[4])
        run.n_steps += int(istate[8])
        run._last = None
        if istate[3]:
            if given is not None:  # the rows are grid[next_k:istate[1]], one per output
                T_out[:istate[3]] = given[int(istate[1]) - int(istate[3]):int(istate[1])]
            _record_rows(run, T_out[:istate[3]], Y_out[:istate[3]], O_out[:istate[3]], modes)
        run.charge(float(fstate[0]))  # the wall-clock budget
        if held.pending is not None:  # a signal came during the call: its rows are kept
            held.deliver()
        next_k = int(istate[1])
        if status == fixed.EVENT:
            return "event", next_k, float(fstate[0]), y, np.flatnonzero(fired).tolist()
        if status == fixed.DONE:
            return "done", next_k, float(fstate[0]), y
        if status != fixed.PAUSE:  # declined, or the budget: Python's step names it
            return "declined", next_k, float(fstate[0]), y
        if watch.rows(float(fstate[0]), int(istate[8]), y):
            return "rows", next_k, float(fstate[0]), y, watch.keep


def _kinetic(run: _Run, V, out) -> np.ndarray:
    """The kinetic energy ``v M v / 2`` (J) of rows of velocities ``V`` (k, n) and their
    evaluations ``out``: the mass matrix constant, or a planar model's in each row."""
    M = run.system.constant_mass
    if M is None:  # in each row's evaluation
        n = run.layout.n_v
        a, b = run.dyn.evaluation_layout["M"]
        return 0.5 * np.einsum("ij,ijk,ik->i", V, out[:, a:b].reshape(-1, n, n), V)
    return 0.5 * np.einsum("ij,jk,ik->i", V, M, V)


def _potentials(run: _Run, times, Q) -> np.ndarray:
    """The potential energy (J) at the rows ``(times (k,), Q (k, n_q))``: in one call of the
    family's compiled code where it has one (``CompiledFamily.potentials``), else the system's
    ``potential`` row by row."""
    family = run.family
    Q = np.ascontiguousarray(Q)
    V = None if family is None else family.potentials(np.asarray(times, dtype=float), Q)
    if V is not None:
        return V
    return np.array([run.system.potential(float(tt), q) for tt, q in zip(times, Q, strict=True)])


def _record_rows(run: _Run, times, Y, out, modes):
    """Record step ends computed in a compiled phase (their states ``Y`` (k, n_y) and
    evaluations ``out`` (k, size)) with their energies (:meth:`_Run.record_block`)."""
    run.record_block(times, Y, out, modes, _kinetic(run, Y[:, run.layout.v], out),
                     _potentials(run, times, Y[:, run.layout.q]))


#: Evaluations per compiled call before the run's clock, budget and progress are looked at.
_PAUSE_AFTER = 4000
#: ... and for a system that removed redundant constraint rows, whose rows kept are looked at
#: each pause (:class:`~nonsmooth.run.singular.StepWatch`: chosen again before they become
#: dependent; a DOP853 step takes 12 evaluations, an RK4 step 4).
_PAUSE_AFTER_ROWS = 400


def _pause_after(run: _Run) -> int:
    """Evaluations per compiled call of the run: :data:`_PAUSE_AFTER`, or
    :data:`_PAUSE_AFTER_ROWS` for a system with rows removed as redundant."""
    return _PAUSE_AFTER_ROWS if getattr(run.system, "removed_rows", None) else _PAUSE_AFTER


class _HeldSignals:
    """A compiled phase with SIGINT and SIGTERM held until the rows of each call are recorded.

    Python runs a signal's handler only between two bytecodes: a signal that comes while a
    compiled call runs is handled as the call returns, before its rows (up to
    :data:`_PAUSE_AFTER` evaluations of them) are recorded, and the partial result would end
    a chunk short of where the run stopped. Within this block the handlers only note the
    signal; :meth:`deliver` (after a call's rows are recorded) and the block's end hand it to
    the handler it was meant for (the interrupt then carries every row computed). Handlers are
    swapped once per phase, in the main thread only (elsewhere signals are not Python's)."""

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.pending: int | None = None
        self._saved: dict = {}

    def __enter__(self) -> _HeldSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in self._SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):  # a Python handler (not SIG_DFL, SIG_IGN or a C one)
                    self._saved[sig] = handler
                    signal.signal(sig, self._note)
        return self

    def _note(self, signum, frame) -> None:
        if self.pending is None:
            self.pending = signum

    def deliver(self) -> None:
        """Restore the handlers and hand a noted signal to its own (which raises, for an
        interrupt)."""
        saved, self._saved = self._saved, {}
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        pending, self.pending = self.pending, None
        if pending is not None and pending in saved:
            saved[pending](pending, None)

    def __exit__(self, *exc) -> bool:
        self.deliver()
        return False


#: Output states one compiled call may return (floats: 16 MB).
_OUTPUT_FLOATS = 1 << 21


def _compiled_phase(run: _Run, method, specs, modes, t, y, t_end, grid, next_k, rtol, atol,
                    max_step, dt):
    """A DOP853 phase in compiled calls (``core.phases.dop853.dop853_phase_with``
    instantiated by the family: ``CompiledFamily.dop853``): the same outcomes as
    :func:`_phase`, or ``("declined", next_k, t, y)`` where the kernel stops short (an
    evaluation it declines, a step below round-off, the budget nearly spent):
    :func:`_smooth_phase` then hands the phase from the last accepted step to scipy's DOP853,
    which names the problem."""
    from ..core import callbacks

    dyn = run.dyn
    kinds, index = event_codes(run, specs)
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
        run.family.warm(method.compiled_phase)
        phase, ctx = run.family.dop853(plan, dyn.Wt)
        watch = StepWatch(run, t, t_end - t)  # a step size collapsing at a singular G
        with _HeldSignals() as held:
            return _dop853_calls(run, method, held, watch, phase, ctx, plan, modes, faces,
                                 kinds, index, direction, mu_s, control, atol_y, grid, next_k,
                                 state, y, f, g, fired, cap, out, start, token)
    finally:
        if token >= 0:
            callbacks.unregister_user(token)


def _dop853_calls(run: _Run, method, held: _HeldSignals, watch: StepWatch, phase, ctx, plan,
                  modes, faces, kinds, index, direction, mu_s, control, atol_y, grid, next_k,
                  state, y, f, g, fired, cap, out, start, token):
    """The compiled DOP853 calls of :func:`_compiled_phase`, each call's rows recorded before
    a signal that came during it is handed on (``held``); ``watch`` follows the step size at
    each pause (a collapse at a singular constraint Jacobian stops the run, named) and the
    rows kept of a system that removed redundant ones (``("rows", next_k, t, y, keep)``: the
    phase ends where they are to be chosen again)."""
    from ..core import callbacks
    from ..core.phases import dop853

    dyn = run.dyn
    while True:
        limits = np.array([run.max_evaluations - dyn.n_evaluations, _pause_after(run)],
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
                                                  modes, start, method)
            if redo is not None and error is None:
                return ("redo", next_k, *start, redo)
        if error is not None:  # a user function raised: its exception, the outputs kept
            run.t_now = t_called  # named at the time it raised, not the last output's
            raise error
        run.charge(float(state[0]))  # the wall-clock budget
        if held.pending is not None:  # a signal came during the call: its rows are kept
            held.deliver()
        if status == dop853.PAUSE and watch.advance(float(state[0]), steps, y):
            return "rows", next_k, float(state[0]), y, watch.keep  # kept rows chosen again
        if status == dop853.EVENT:
            return "event", next_k, float(state[0]), y, np.flatnonzero(fired).tolist()
        if status == dop853.DONE:
            return "done", next_k, float(state[0]), y
        if status == dop853.FULL:
            cap = max(cap, int(needed))
        elif status != dop853.PAUSE:  # scipy's solver goes on from the last accepted step
            return "declined", next_k, float(state[0]), y


def _user_callbacks(run: _Run):
    """The run's user functions as the compiled phase calls them back
    (``core.callbacks.register_user``): the user values at a state (where the family calls them
    back), a pair's given normal force."""
    system, sq, sv = run.system, run.layout.q, run.layout.v

    def values(t, y, U):
        run.t_now = t  # where a failure in a user function happened
        values = system.user_values(t, y[sq], y[sv])
        U[:len(values)] = values  # (a family's table may hold rows after the elements')

    def given(i, t):
        return run._given_normal_force(i, t)

    return (values if run.family.calls_back else None), given
