"""A fixed-step (RK4 / explicit Euler) smooth phase in one compiled call: the template.

The same arithmetic and outcomes as ``run.steppers._phase`` with its ``_FixedStepper``: steps on the
step grid, the right-hand side at times clamped to the phase's time stop, the engine's event
functions read from each step end's evaluation (:mod:`nonsmooth.core.events`), their roots by
Brent's method (scipy's ``brentq``, ``xtol`` 1e-13, ``rtol`` 4 eps, as ``events.locate``) on the
step's cubic Hermite interpolant, the state at an event by a step to it
(``_FixedStepper.state_at``), the step ends on the output grid recorded with their evaluations.
Python takes a step over where the kernel declines it (an evaluation that is not ``OK``, a
non-finite state: it names the problem) or the evaluation budget is nearly spent.

Written as inlined functions of a family's right-hand side ``rhs(ctx, t, y, modes, faces, out,
dy)`` and of the event function on the interpolant ``g_at(t, args)``:
``nonsmooth.planar.fixed_step`` instantiates them for a planar model without user functions, a
generated module (:mod:`nonsmooth.generalized.generated`) around a ``GeneralizedSystem``'s own
compiled terms. """

from __future__ import annotations

import numpy as np
from numba import njit

from ..events import OK, brent_with, refresh_directions
from ..events import crossed as _crossed
from ..events import event_value as _event_value
from ..stage import event_offsets
from .dop853 import finite as _finite

__all__ = ["fixed_phase_with", "hermite_g", "DONE", "EVENT", "PAUSE", "DECLINED", "BUDGET"]

#: Statuses of a phase call.
DONE, EVENT, PAUSE, DECLINED, BUDGET = 0, 1, 2, 3, 4
#: A slipping vector pair's ``sigma`` root is a stop below this fraction of its slip speed at
#: the step's start (``vector_friction.STOP_FRACTION[True]``, a fixed-step method's).
STOP_FRACTION = 0.5
_EPS4 = 4.0 * np.finfo(float).eps
_XTOL = 1e-13  # s: the event times' tolerance (``_FixedStepper.xtol``)


@njit(cache=True, inline="always")
def _tol(t):
    """Times closer than this to ``t`` are the same instant (``run.schedule._tol``)."""
    return 1e-13 * max(1.0, abs(t))


@njit(cache=True, _nrt=False)
def _hermite_into(t0, y0, f0, t1, y1, f1, t, y):
    """The step's cubic Hermite interpolant at ``t`` into ``y`` (``events.hermite``)."""
    h = t1 - t0
    s = (t - t0) / h
    h10 = s * (1 - s) ** 2
    h01 = s * s * (3 - 2 * s)
    h11 = s * s * (s - 1)
    for i in range(y.size):
        y[i] = y0[i] + h01 * (y1[i] - y0[i]) + h * (h10 * f0[i] + h11 * f1[i])


@njit(cache=True, inline="always")
def _step_into(rhs, ctx, modes, faces, out, t, y, f0, h, rk4, t_clamp, ys, k2, k3, k4, y_new):
    """One RK4 (``rk4``) or Euler step into ``y_new`` (``run.steppers._rk4_step`` /
    ``_euler_step``). Returns the status of the first evaluation that is not ``OK``."""
    n_y = y.size
    if not rk4:
        for i in range(n_y):
            y_new[i] = y[i] + h * f0[i]
        return OK
    for i in range(n_y):
        ys[i] = y[i] + 0.5 * h * f0[i]
    status = rhs(ctx, min(t + 0.5 * h, t_clamp), ys, modes, faces, out, k2)
    if status != OK:
        return status
    for i in range(n_y):
        ys[i] = y[i] + 0.5 * h * k2[i]
    status = rhs(ctx, min(t + 0.5 * h, t_clamp), ys, modes, faces, out, k3)
    if status != OK:
        return status
    for i in range(n_y):
        ys[i] = y[i] + h * k3[i]
    status = rhs(ctx, min(t + h, t_clamp), ys, modes, faces, out, k4)
    if status != OK:
        return status
    for i in range(n_y):
        y_new[i] = y[i] + (h / 6.0) * (f0[i] + 2.0 * (k2[i] + k3[i]) + k4[i])
    return OK


@njit(cache=True, inline="always")
def hermite_g(rhs, tt, args, vector=True):
    """An engine event function at ``tt`` on the step's Hermite interpolant (the ``g_at`` a
    generated module defines with its ``rhs``): ``(value, status)``; ``vector`` None: the
    pairs are scalar (``core.events.event_value``)."""
    (ctx, plan, modes, faces, out, yh, dyh, t0, y0, f0, t1, y1, f1, kind, i, mu_s, threshold,
     t_clamp) = args
    _hermite_into(t0, y0, f0, t1, y1, f1, tt, yh)
    status = rhs(ctx, min(tt, t_clamp), yh, modes, faces, out, dyh)
    if status != OK:
        return 0.0, status
    o_F, o_v, o_N, o_abs = event_offsets(plan)
    return _event_value(kind, i, mu_s, threshold, out, o_F, o_v, o_N, o_abs, tt, plan,
                        vector), OK


@njit(cache=True, inline="always")
def _brent(g_at, args, t0, t1, g0, g1):
    """``core.events.brent_with`` to ``xtol + rtol |t|`` with ``xtol`` 1e-13, ``rtol`` 4 eps
    (scipy's ``brentq`` as ``events.locate`` calls it). Returns ``(t, status, evaluations)``."""
    return brent_with(g_at, args, t0, t1, g0, g1, _XTOL, _EPS4)


@njit(cache=True, inline="always")
def _event_values(plan, kinds, index, mu_s, threshold, out, t, g, vector):
    """The engine's event functions from an evaluation's outputs ``out`` into ``g``."""
    o_F, o_v, o_N, o_abs = event_offsets(plan)
    for j in range(kinds.size):
        g[j] = _event_value(kinds[j], index[j], mu_s, threshold, out, o_F, o_v, o_N, o_abs, t,
                            plan, vector)


@njit(cache=True, inline="always")
def _roots(g_at, ctx, plan, modes, faces, out_e, yh, dyh, t, y, f, t_next, y_new, f_new, kinds,
           index, direction, mu_s, threshold, t_clamp, g, g_new, roots):
    """The roots of the event functions that crossed zero on the step (``roots``, inf for the
    others; one that starts at zero does not count, ``run.steppers._step_events``), on its Hermite
    interpolant. Returns ``(status, first root or inf, evaluations)``."""
    t_stop = np.inf
    evals = 0
    for j in range(kinds.size):
        roots[j] = np.inf
        if _crossed(g[j], g_new[j], direction[j]) and g[j] != 0.0:
            args = (ctx, plan, modes, faces, out_e, yh, dyh, t, y, f, t_next, y_new, f_new,
                    kinds[j], index[j], mu_s, threshold, t_clamp)
            root, status, used = _brent(g_at, args, t, t_next, g[j], g_new[j])
            evals += used
            if status != OK:
                return status, t_stop, evals
            roots[j] = root
            t_stop = min(t_stop, root)
    return OK, t_stop, evals


@njit(cache=True, inline="always")
def _event_state(rhs, ctx, modes, faces, out, t, y, f, t_stop, rk4, t_clamp, ys, k2, k3, k4,
                 y_event, roots, fired):
    """The state at the event ``t_stop`` into ``y`` by a step from ``(t, y)`` to it
    (``_FixedStepper.state_at``), and which functions fired there (their roots within 1e-13 s).
    Returns ``(status, evaluations)``."""
    for j in range(roots.size):
        fired[j] = 1 if roots[j] <= t_stop + 1e-13 else 0
    if not t_stop > t:
        return OK, 0
    status = _step_into(rhs, ctx, modes, faces, out, t, y, f, t_stop - t, rk4, t_clamp, ys, k2,
                        k3, k4, y_event)
    if status != OK:
        return status, 0
    y[:] = y_event
    return OK, 3 if rk4 else 0


@njit(cache=True, inline="always")
def _next_time(steps, k, t_bound):
    """The next step's end: the step grid's ``k``-th time, or the phase's end (``t_end`` or a
    time stop) when that comes first or within round-off."""
    t_next = steps[k] if k < steps.size else t_bound
    return t_bound if t_next >= t_bound - _tol(t_bound) else t_next


@njit(cache=True, inline="always")
def _record(grid, k_cap, next_k, n_out, t, y, out, T_out, Y_out, O_out):
    """The step end ``(t, y)`` and its evaluation as the next output row when it is on the
    output grid (``grid[next_k:k_cap]``). Returns ``(n_out, next_k)``."""
    k_hi = min(np.searchsorted(grid, t, side="right"), k_cap)
    if k_hi > next_k:
        T_out[n_out] = t
        Y_out[n_out] = y
        O_out[n_out] = out
        return n_out + 1, k_hi
    return n_out, next_k


@njit(cache=True, inline="always")
def fixed_phase_with(rhs, g_at, ctx, plan, modes, faces, kinds, index, direction, mu_s, steps,
                      grid, istate, fstate, y, f, g, fired, T_out, Y_out, O_out,
                      vector_events=True):
    """Fixed steps of one smooth phase from ``(fstate[0], y)`` (``f`` its derivative, ``g`` its
    event functions) until a terminal event, the phase's end, ``pause_after`` evaluations or a
    step the kernel declines.

    ``istate`` (int64, in/out): ``k`` the next step's index in ``steps``, ``next_k`` the next
    output's in ``grid``, ``k_cap`` the outputs' end, ``n_out`` rows written, ``evaluations``
    (out), ``rk4``, ``budget`` (evaluations left), ``pause_after``, ``steps`` (out);
    ``fstate`` (in/out): ``t``,
    the phase's end, the time stop the right-hand side is clamped to, the detach threshold.
    ``T_out, Y_out, O_out``: the recorded step ends' times, states and evaluations.
    ``fired`` (int8): 1 for the event functions whose root is the event time. Returns the
    status; after ``EVENT`` ``(fstate[0], y)`` is the state at the event. With vector pairs
    the slip directions' references ``e_ref`` in ``plan`` follow the slip after each step but
    the phase's last (``core.events.refresh_directions``: the Python loop's ``step_accepted``).
    ``vector_events`` None: the pairs are scalar (``core.events.event_value``)."""
    n_y, n_e = y.size, kinds.size
    size = O_out.shape[1]
    out, out_e = np.empty(size), np.empty(size)
    ys, k2, k3, k4 = np.empty(n_y), np.empty(n_y), np.empty(n_y), np.empty(n_y)
    y_new, f_new, yh, dyh = np.empty(n_y), np.empty(n_y), np.empty(n_y), np.empty(n_y)
    g_new, roots = np.empty(n_e), np.empty(n_e)
    k, next_k, k_cap, n_out = istate[0], istate[1], istate[2], istate[3]
    rk4, budget, pause_after = istate[5] != 0, istate[6], istate[7]
    t, t_bound, t_clamp, threshold = fstate[0], fstate[1], fstate[2], fstate[3]
    cost = 4 if rk4 else 1
    o_v = event_offsets(plan)[1]
    evals, taken = 0, 0
    status = DONE
    while True:
        if evals >= pause_after or n_out >= T_out.shape[0]:
            status = PAUSE  # the run's clock and progress, or the rows recorded
            break
        if evals + cost >= budget:
            status = BUDGET
            break
        t_next = _next_time(steps, k, t_bound)
        step = _step_into(rhs, ctx, modes, faces, out, t, y, f, t_next - t, rk4, t_clamp, ys, k2,
                          k3, k4, y_new)
        if step == OK:
            step = rhs(ctx, min(t_next, t_clamp), y_new, modes, faces, out, f_new)
        if step != OK or not _finite(y_new):
            status = DECLINED  # Python takes the step again and names the problem
            break
        evals += cost
        taken += 1
        _event_values(plan, kinds, index, mu_s, threshold, out, t_next, g_new, vector_events)
        step, t_stop, used = _roots(g_at, ctx, plan, modes, faces, out_e, yh, dyh, t, y, f, t_next,
                                    y_new, f_new, kinds, index, direction, mu_s, threshold,
                                    t_clamp, g, g_new, roots)
        evals += used
        if step == OK and t_stop < np.inf:  # the state at the event: a step to it
            step, used = _event_state(rhs, ctx, modes, faces, out_e, t, y, f, t_stop, rk4,
                                      t_clamp, ys, k2, k3, k4, yh, roots, fired)
            evals += used
            if step == OK:
                fstate[0] = t_stop
                status = EVENT
                break
        if step != OK:
            status = DECLINED
            break
        n_out, next_k = _record(grid, k_cap, next_k, n_out, t_next, y_new, out, T_out, Y_out,
                                O_out)
        t = t_next
        y[:] = y_new
        f[:] = f_new
        g[:] = g_new
        k = np.searchsorted(steps, t + _tol(t), side="right")
        if t >= t_bound:
            status = DONE
            break
        # vector pairs: e_ref follows the slip (in the plan, which is the run's own)
        refresh_directions(plan, kinds, index, out, o_v, g, STOP_FRACTION, False)
    if status != EVENT:
        fstate[0] = t
    istate[0], istate[1], istate[3], istate[4], istate[8] = k, next_k, n_out, evals, taken
    return status
