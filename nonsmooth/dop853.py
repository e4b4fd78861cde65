"""One smooth phase of a planar model integrated in one compiled call: Dormand-Prince 8(5,3).

The adaptive default of ``simulate`` (``DOP853``) for planar models (without user event
functions; the model's own user functions are called back):
:func:`planar_dop853_phase` takes the steps of a phase (fixed modes and faces), watches the
engine's event functions (``nonsmooth.events``: sliding velocities, friction reserves, normal
forces) at every step end, locates the first crossing on the step's dense output, and writes
the states at the output times, all without returning to Python; the event loop
(``simulate._integrate_phases``) then records the outputs (one batch evaluation), checks them
against the phase's modes and hands the event to the transition problem.

The arithmetic is that of scipy's ``DOP853`` ``OdeSolver`` (step control, error estimate,
initial step, 7th-order dense output) and of ``scipy.optimize.brentq`` for the event times, so
a phase steps as ``solve_ivp(method="DOP853")`` would:

* Hairer, Norsett & Wanner, *Solving Ordinary Differential Equations I* (2nd ed., 1993),
  section II.10 (the method, its error estimator and dense output) and II.4 (the initial step);
* Brent, *Algorithms for Minimization without Derivatives* (1973), ch. 4 (the root finder).

The coefficients are the published ones of Hairer's ``dop853.f`` (:mod:`nonsmooth.dop853_tableau`,
the values scipy ships), kept as data so that using them does not import ``scipy.integrate``.

Anything the kernel cannot do itself (an evaluation it declines, a state that becomes
non-finite, a step size below round-off, the run's evaluation budget nearly spent) ends the
call with a status, and the caller continues the phase from the last accepted step with
scipy's solver, which names the problem.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
from numba import njit, objmode

from .kernels import NONFINITE, OK, _dot, _pair_row, _planar_dy, workspace

__all__ = ["planar_dop853_phase", "coefficients", "EVENT_KINDS", "DONE", "EVENT", "PAUSE",
           "FULL", "DECLINED", "TOO_SMALL", "BUDGET"]

#: Statuses of :func:`planar_dop853_phase`.
DONE, EVENT, PAUSE, FULL, DECLINED, TOO_SMALL, BUDGET = 0, 1, 2, 3, 4, 5, 6

#: Codes of the engine's event functions (``simulate._Run.event_specs``).
EVENT_KINDS = {"velocity": 0, "normal": 1, "detach": 2, "reserve+": 3, "reserve-": 4,
               "given": 5}
_VELOCITY, _NORMAL, _DETACH, _RESERVE_PLUS, _RESERVE_MINUS, _GIVEN = 0, 1, 2, 3, 4, 5

N_STAGES = 12  # stages of a step; 3 more for the dense output
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_ERROR_EXPONENT = -1.0 / 8.0  # -1 / (error estimator order 7 + 1)
_XTOL = 4 * np.finfo(float).eps  # the event times, as simulate's scipy path locates them
_MAX_ROOT_ITERATIONS = 100
#: Evaluations kept in reserve below the run's budget (one step, its dense output, one root)
RESERVE = N_STAGES + 4 + _MAX_ROOT_ITERATIONS


@cache
def coefficients() -> tuple[np.ndarray, ...]:
    """``(A, B, C, E3, E5, D)`` as arrays (:mod:`nonsmooth.dop853_tableau`): the tableau of the
    12 stages and the 3 dense-output stages ``A (16, 16), C (16,)``, the weights ``B (12,)``,
    the error estimators ``E3, E5 (13,)``, the dense-output weights ``D (4, 16)``."""
    from . import dop853_tableau as tableau

    return tuple(np.array(getattr(tableau, name), dtype=float)
                 for name in ("A", "B", "C", "E3", "E5", "D"))


# ------------------------------------------------------------------------- user functions
#: The Python side of the runs in progress whose models have user functions (given forces and
#: torques, driver motions f(t), given normal forces N(t)), by token: ``[values, given, error]``
#: with ``values(t, y, U)`` filling the user values ``U`` (n_el, 3) of the tables' rows at the
#: state ``y``, ``given(i, t)`` pair ``i``'s given normal force as the user's function returns
#: it, and the first exception either raised (None while there is none). A kernel reaches them
#: through numba's object mode (about a microsecond per call). An exception is not raised
#: through the kernel (the outputs of its call would be lost): the values become NaN, the
#: kernel returns ``DECLINED`` with what it has, and the caller raises it
#: (:func:`user_error`).
_USER: dict[int, list] = {}


def register_user(values, given) -> int:
    """Make a run's user functions reachable from the kernels; returns the token that goes
    into the plan (:func:`extended_plan`). Undo with :func:`unregister_user`."""
    token = 0
    while token in _USER:
        token += 1
    _USER[token] = [values, given, None]
    return token


def user_error(token: int) -> BaseException | None:
    """The exception a user function raised inside a kernel call of this run, if any."""
    return _USER[token][2] if token in _USER else None


def unregister_user(token: int) -> None:
    _USER.pop(token, None)


def extended_plan(plan: np.ndarray, token: int, t_clamp: float) -> np.ndarray:
    """``plan`` with the two entries the phase kernel reads from its end: the user-function
    token (-1: none) and the time the evaluations are clamped to (s; inf: none)."""
    return np.concatenate((plan, (float(token), float(t_clamp))))


def _user_values(token, t, y, U):
    entry = _USER[token]
    if entry[2] is None:
        try:
            entry[0](t, y, U)
            return
        except BaseException as exc:  # kept for the caller (a KeyboardInterrupt too)
            entry[2] = exc
    U[:] = np.nan


def _given_value(token, i, t) -> float:
    entry = _USER[token]
    if entry[2] is None:
        try:
            return float(entry[1](i, t))
        except BaseException as exc:  # kept for the caller
            entry[2] = exc
    return math.nan


@njit(cache=True)
def _fill_user(token, t, y, ws, n_el):
    """The user values at ``(t, y)`` into ``U`` (n_el, 3), the end of the workspace ``ws`` (a
    call back into Python)."""
    U = ws[ws.size - 3 * n_el:].reshape(n_el, 3)
    with objmode():
        _user_values(token, t, y, U)


@njit(cache=True)
def _given(token, i, t):
    """Pair ``i``'s given normal force ``N(t)`` (a call back into Python)."""
    with objmode(value="float64"):
        value = _given_value(token, i, t)
    return value


@njit(cache=True, inline="always")
def _rhs(it, ft, M0, plan, Wt, t, y, modes, faces, out, ws, iw, dy):
    """``dy/dt`` (``kernels._planar_dy``) with the user functions' values, at ``t`` clamped to
    the phase's time stop (both read from the end of ``plan``: :func:`extended_plan`); ``ws,
    iw`` the evaluation's workspace (``kernels.workspace``; the user values at its end)."""
    token = int(plan[plan.size - 2])
    tt = min(t, plan[plan.size - 1])
    if token >= 0:
        _fill_user(token, tt, y, ws, it.shape[0])
    return _planar_dy(it, ft, M0, plan, Wt, tt, y, modes, faces, out, dy, ws, iw)


@njit(cache=True)
def _rms(x):
    """The root mean square of ``x``, scaled by its largest entry so that it neither
    overflows nor underflows where the squares would (entries beyond 1e154: a heavy body's
    momentum, a large force's acceleration; issue 19)."""
    big = 0.0
    for i in range(x.size):
        big = max(big, abs(x[i]))
    if big == 0.0 or not math.isfinite(big):
        return big
    s = 0.0
    for i in range(x.size):
        r = x[i] / big
        s += r * r
    return big * math.sqrt(s / x.size)


@njit(cache=True, inline="always")
def _event_value(kind, i, mu_s, threshold, out, o_F, o_v, o_N, o_abs, t, plan):
    """The value of an engine event function from an evaluation's output buffer (a given
    normal force from the user's function at ``t``)."""
    if kind == _GIVEN:
        return _given(int(plan[plan.size - 2]), i, t)
    if kind == _VELOCITY:
        return out[o_v + i]
    if kind == _NORMAL:
        return out[o_abs + i]
    if kind == _DETACH:
        return abs(out[o_abs + i]) - threshold
    reserve = mu_s[i] * out[o_N + i]
    if kind == _RESERVE_PLUS:
        return reserve + out[o_F + i]
    return reserve - out[o_F + i]


@njit(cache=True)
def _crossed(g0, g1, direction):
    """``events.crossed`` (scipy's convention), for a terminal event: not from a zero start."""
    if g0 == 0.0 or g0 == g1:
        return False
    up = g0 <= 0.0 <= g1
    down = g0 >= 0.0 >= g1
    if direction > 0:
        return up
    if direction < 0:
        return down
    return up or down


@njit(cache=True, _nrt=False)
def _dense(F, y_old, t_old, h, t, y):
    """The dense output of the step at ``t`` into ``y`` (scipy's ``Dop853DenseOutput``, its
    arithmetic element by element; without numba's runtime: it runs ~80 times a step)."""
    x = (t - t_old) / h
    last = F.shape[0] - 1
    for i in range(y.size):
        acc = 0.0
        for r in range(F.shape[0]):
            acc += F[last - r, i]
            if r % 2 == 0:
                acc *= x
            else:
                acc *= 1.0 - x
        y[i] = acc + y_old[i]


@njit(cache=True, inline="always")
def _stages(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, K, t, y, h, first, last, ys):
    """Stages ``first .. last - 1`` of a step from ``(t, y)`` of length ``h`` into ``K``;
    returns the status of the first evaluation that is not ``OK``."""
    n_y = y.size
    for s in range(first, last):
        for i in range(n_y):
            acc = 0.0
            for j in range(s):
                acc += K[j, i] * A[s, j]
            ys[i] = y[i] + h * acc
        status = _rhs(it, ft, M0, plan, Wt, t + C[s] * h, ys, modes, faces, out, ws, iw, K[s])
        if status != OK:
            return status
    return OK


@njit(cache=True, _nrt=False)
def _finite(y):
    for i in range(y.size):
        if not np.isfinite(y[i]):
            return False
    return True


@njit(cache=True, _nrt=False)
def _error_norm(K, rows, E3, E5, h, scale):
    """scipy's DOP853 error estimate (the 5th- and 3rd-order estimators combined) from the
    first ``rows`` stages in ``K``."""
    n_y = scale.size
    e5 = 0.0
    e3 = 0.0
    for i in range(n_y):
        a5 = 0.0
        a3 = 0.0
        for j in range(rows):
            a5 += K[j, i] * E5[j]
            a3 += K[j, i] * E3[j]
        a5 /= scale[i]
        a3 /= scale[i]
        e5 += a5 * a5
        e3 += a3 * a3
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n_y)


@njit(cache=True, inline="always")
def _g_at(t, args):
    """An event function on the step's dense output (the ``g_at`` of :func:`_brent`)."""
    (it, ft, M0, plan, Wt, modes, faces, out, ws, iw, F, y_old, t_old, h, ys, dy, kind, i, mu_s,
     threshold, offsets) = args
    _dense(F, y_old, t_old, h, t, ys)
    status = _rhs(it, ft, M0, plan, Wt, t, ys, modes, faces, out, ws, iw, dy)
    if status != OK:
        return 0.0, status
    return _event_value(kind, i, mu_s, threshold, out, offsets[0], offsets[1], offsets[2],
                        offsets[3], t, plan), OK


@njit(cache=True, inline="always")
def _brent(args, t0, t1, g0, g1):
    """Brent's root of the event function :func:`_g_at` on ``[t0, t1]`` (``g0``, ``g1`` its
    values at the ends, of opposite signs), to ``4 eps (1 + |t|)``; returns
    ``(t, status, evaluations)``."""
    return brent_with(_g_at, args, t0, t1, g0, g1, _XTOL, _XTOL)


@njit(cache=True, inline="always")
def brent_with(g_at, args, t0, t1, g0, g1, xtol, rtol):
    """scipy's ``brentq`` of ``g_at(t, args) -> (value, status)`` on ``[t0, t1]`` (``g0``,
    ``g1`` its values at the ends, of opposite signs) to ``xtol + rtol |t|``; returns
    ``(t, status, evaluations)`` (the DOP853 phase's and ``fixed_step``'s event times)."""
    if g0 == 0.0:
        return t0, OK, 0
    if g1 == 0.0:
        return t1, OK, 0
    evals = 0
    x_pre, x_cur, f_pre, f_cur = t0, t1, g0, g1
    x_blk, f_blk, s_pre, s_cur = 0.0, 0.0, 0.0, 0.0
    for _ in range(_MAX_ROOT_ITERATIONS):
        if f_pre != 0.0 and f_cur != 0.0 and (f_pre < 0.0) != (f_cur < 0.0):
            x_blk, f_blk = x_pre, f_pre
            s_pre = s_cur = x_cur - x_pre
        if abs(f_blk) < abs(f_cur):  # the best estimate is the one with the smaller value
            x_pre, x_cur, x_blk = x_cur, x_blk, x_cur
            f_pre, f_cur, f_blk = f_cur, f_blk, f_cur
        delta = 0.5 * (xtol + rtol * abs(x_cur))
        s_bis = 0.5 * (x_blk - x_cur)
        if f_cur == 0.0 or abs(s_bis) < delta:
            return x_cur, OK, evals
        if abs(s_pre) > delta and abs(f_cur) < abs(f_pre):
            if x_pre == x_blk:  # secant
                s_try = -f_cur * (x_cur - x_pre) / (f_cur - f_pre)
            else:  # inverse quadratic interpolation
                d_pre = (f_pre - f_cur) / (x_pre - x_cur)
                d_blk = (f_blk - f_cur) / (x_blk - x_cur)
                s_try = -f_cur * (f_blk * d_blk - f_pre * d_pre) / (d_blk * d_pre * (f_blk - f_pre))
            if 2.0 * abs(s_try) < min(abs(s_pre), 3.0 * abs(s_bis) - delta):
                s_pre, s_cur = s_cur, s_try
            else:
                s_pre = s_cur = s_bis
        else:
            s_pre = s_cur = s_bis
        x_pre, f_pre = x_cur, f_cur
        x_cur += s_cur if abs(s_cur) > delta else (delta if s_bis > 0.0 else -delta)
        f_cur, status = g_at(x_cur, args)
        evals += 1
        if status != OK:
            return x_cur, status, evals
    return x_cur, OK, evals


@njit(cache=True, inline="always")
def _initial_step(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, t, y, f, t_end, max_step,
                  rtol, atol, ys, dy):
    """scipy's ``select_initial_step`` (Hairer, Norsett & Wanner II.4) for order 7; one
    evaluation. Returns ``(h, status)``."""
    interval = abs(t_end - t)
    if interval == 0.0:
        return 0.0, OK
    scale = atol + np.abs(y) * rtol
    d0 = _rms(y / scale)
    d1 = _rms(f / scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, interval)
    if not h0 > 0.0:  # d1 beyond the floating-point range (or NaN): no step can be chosen
        return 0.0, NONFINITE
    ys[:] = y + h0 * f
    status = _rhs(it, ft, M0, plan, Wt, t + h0, ys, modes, faces, out, ws, iw, dy)
    if status != OK:
        return 0.0, status
    d2 = _rms((dy - f) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, interval, max_step), OK


@njit(cache=True)
def planar_dop853_phase(it, ft, M0, plan, Wt, modes, faces, kinds, index, direction, mu_s,
                        threshold, t_end, rtol, atol, max_step, grid, k0, state, y, f, g, fired,
                        Y_out, max_evaluations, pause_after, A, B, C, E3, E5, D, out,
                        pair_rows):
    """Integrate one smooth phase of a planar model by DOP853 from ``(state[0], y)`` until the
    first terminal engine event, ``t_end``, a full output buffer or ``pause_after``
    evaluations.

    Parameters
    ----------
    it, ft, M0, plan, Wt, modes, faces
        As for ``kernels.planar_evaluate`` (``modes`` (p,), ``faces`` (k,)); ``plan`` extended
        by :func:`extended_plan` (the run's user-function token and time clamp).
    kinds, index, direction : ndarray, shape (n_e,)
        The phase's event functions (:data:`EVENT_KINDS` codes, pair or load row, the watched
        direction of the crossing); ``mu_s`` (p,) the static coefficients, ``threshold`` the
        detach threshold (N).
    t_end, rtol, atol (n_y,), max_step
        The phase's end (s) and step control.
    grid : ndarray, shape (n_grid,)
        Output times; ``grid[k0]`` is the first not yet recorded.
    state : ndarray, shape (3,)
        In/out ``[t, h, fresh]``: the time, the next step size, and 1 at a phase start (``f``,
        ``g`` and ``h`` are then computed here; 0 on a continuation).
    y, f, g : ndarray, shapes (n_y,), (n_y,), (n_e,)
        In/out: the state ``[q, v, work (5), z]``, its derivative and the event functions.
        At an ``EVENT`` ``y`` is the state at the event time ``state[0]``.
    fired : ndarray of int8, shape (n_e,)
        Out: 1 for each event function whose root is the event time (to 1e-13 s).
    Y_out : ndarray, shape (cap, n_y)
        Out: the states at the output times reached, in order, from ``grid[k0]``.
    max_evaluations, pause_after
        Stop with ``BUDGET`` when fewer than :data:`RESERVE` evaluations remain of
        ``max_evaluations``; stop with ``PAUSE`` at a step end after ``pause_after``
        evaluations (the caller checks its clock and progress, and calls again).
    A, B, C, E3, E5, D
        :func:`coefficients`.
    out : ndarray
        Scratch: one evaluation's outputs (``kernels.evaluation_layout``).
    pair_rows : ndarray of int64, shape (p,)
        The table row of each pair (its sliding velocity on the dense output, for the velocity
        events that cross zero and back within one step).

    Returns
    -------
    (status, n_out, evaluations, steps, needed)
        ``status`` one of ``DONE`` (``t_end`` reached), ``EVENT``, ``PAUSE``, ``FULL`` (the next
        step has ``needed`` outputs, more than ``Y_out`` holds), ``DECLINED`` (an evaluation was
        not ``OK`` or the state not finite), ``TOO_SMALL`` (the step fell below round-off),
        ``BUDGET``; ``n_out`` states written to ``Y_out``. After anything but ``EVENT``,
        ``state, y, f, g`` are those of the last accepted step.
    """
    n_y, n_e = y.size, kinds.size
    n, m, p = int(plan[0]), int(plan[1]), int(plan[2])
    offsets = np.array((n + m + p, n + m + 2 * p, n + m + 3 * p, n + m + 4 * p))
    K = np.empty((16, n_y))
    F = np.empty((7, n_y))
    ys, dy, y_new = np.empty(n_y), np.empty(n_y), np.empty(n_y)
    gr = np.empty((2, n_e))  # the event functions at the step end, and their roots
    g_new, roots = gr[0], gr[1]
    ws, iw = workspace(it, plan)  # every evaluation's arrays, made once per call
    evals, steps, n_out = 0, 0, 0
    t = state[0]
    if state[2] != 0.0:  # a phase start: f, g and the first step size
        status = _start(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, kinds, index, mu_s,
                        threshold, offsets, t_end, max_step, rtol, atol, state, y, f, g, ys, dy)
        evals += 2
        if status != OK:
            return DECLINED, 0, evals, 0, 0
    k = k0
    while True:
        status = _limit(t, t_end, evals, pause_after, max_evaluations)
        if status >= 0:
            return status, n_out, evals, steps, 0
        status, h, h_next, used = _step(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, B,
                                        C, E3, E5,
                                        K, t, y, f, state[1], t_end, max_step, rtol, atol,
                                        y_new, ys)
        evals += used
        if status != OK:
            return status, n_out, evals, steps, 0
        steps += 1
        t_new = t + h if t + h < t_end else t_end
        # the event functions at the step end (``out`` holds its evaluation), their roots
        for j in range(n_e):
            g_new[j] = _event_value(kinds[j], index[j], mu_s, threshold, out, offsets[0],
                                    offsets[1], offsets[2], offsets[3], t_new, plan)
        status, t_stop, dense, used = _roots(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A,
                                             C, D, K, F, t, y, h, y_new, ys, dy, kinds, index,
                                             direction, mu_s, threshold, offsets, g, gr,
                                             pair_rows)
        evals += used
        if status != OK:
            return DECLINED, n_out, evals, steps, 0
        # the outputs up to the step end or the event
        status, count, used = _outputs(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, D,
                                       K, F, t, y, h, y_new, ys, dense, grid, k, min(t_new, t_stop),
                                       Y_out, n_out)
        evals += used
        if status == FULL:  # not recorded: the step is taken again
            return FULL, n_out, evals, steps - 1, count
        if status != OK:
            return DECLINED, n_out, evals, steps, 0
        n_out += count
        k += count
        if t_stop < np.inf:  # the state at the event, and which functions fired there
            for j in range(n_e):
                fired[j] = 1 if roots[j] <= t_stop + 1e-13 else 0
            _dense(F, y, t, h, t_stop, ys)
            y[:] = ys
            state[0] = t_stop
            return EVENT, n_out, evals, steps, 0
        t = t_new
        y[:] = y_new
        f[:] = K[N_STAGES]
        g[:] = g_new
        state[0], state[1] = t, h_next


@njit(cache=True, inline="always")
def _outputs(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, D, K, F, t, y, h, y_new, ys,
             dense, grid, k, t_last, Y_out, n_out):
    """The states at the output times ``grid[k] .. <= t_last`` of the step into
    ``Y_out[n_out:]`` (the dense output computed into ``F`` unless ``dense``). Returns
    ``(status, count, evaluations)``; ``FULL`` (nothing written) when they do not fit."""
    count = 0
    while k + count < grid.size and grid[k + count] <= t_last:
        count += 1
    if n_out + count > Y_out.shape[0]:
        return FULL, count, 0
    evals = 0
    if count and not dense:
        status = _dense_coefficients(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, D,
                                     K, F, t, y, h, y_new, ys)
        evals = 3
        if status != OK:
            return status, 0, evals
    for r in range(count):
        _dense(F, y, t, h, grid[k + r], Y_out[n_out + r])
    return OK, count, evals


@njit(cache=True)
def _limit(t, t_end, evals, pause_after, max_evaluations):
    """``DONE``, ``PAUSE`` or ``BUDGET`` when the phase stops before the next step, else -1."""
    if t >= t_end:
        return DONE
    if evals >= pause_after:
        return PAUSE
    if evals + RESERVE > max_evaluations:
        return BUDGET
    return -1


@njit(cache=True, inline="always")
def _start(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, kinds, index, mu_s, threshold,
           offsets, t_end, max_step, rtol, atol, state, y, f, g, ys, dy):
    """At a phase start: ``f`` and ``g`` at ``(state[0], y)`` and the first step size into
    ``state[1]`` (two evaluations). Returns the status."""
    status = _rhs(it, ft, M0, plan, Wt, state[0], y, modes, faces, out, ws, iw, f)
    if status != OK:
        return status
    for j in range(kinds.size):
        g[j] = _event_value(kinds[j], index[j], mu_s, threshold, out, offsets[0], offsets[1],
                            offsets[2], offsets[3], state[0], plan)
    h_abs, status = _initial_step(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, state[0], y,
                                  f, t_end, max_step, rtol, atol, ys, dy)
    state[1], state[2] = h_abs, 0.0
    return status


@njit(cache=True, inline="always")
def _step(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, B, C, E3, E5, K, t, y, f, h_abs,
          t_end, max_step, rtol, atol, y_new, ys):
    """One accepted step from ``(t, y)`` (scipy's ``RungeKutta._step_impl``): the stages in
    ``K`` (``K[12]`` the derivative at the step end, whose evaluation is left in ``out``), the
    new state in ``y_new``. Returns ``(status, h, h_next, evaluations)``."""
    n_y = y.size
    evals = 0
    min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
    h_abs = min(max(h_abs, min_step), max_step)
    rejected = False
    while True:
        if h_abs < min_step:
            return TOO_SMALL, 0.0, 0.0, evals
        t_new = min(t + h_abs, t_end)
        h = t_new - t
        h_abs = abs(h)
        K[0] = f
        status = _stages(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, K, t, y, h, 1,
                         N_STAGES, ys)
        evals += N_STAGES - 1
        if status != OK:
            return DECLINED, 0.0, 0.0, evals
        for i in range(n_y):
            acc = 0.0
            for j in range(N_STAGES):
                acc += K[j, i] * B[j]
            y_new[i] = y[i] + h * acc
        if not _finite(y_new):
            return DECLINED, 0.0, 0.0, evals
        status = _rhs(it, ft, M0, plan, Wt, t_new, y_new, modes, faces, out, ws, iw, K[N_STAGES])
        evals += 1
        if status != OK:
            return DECLINED, 0.0, 0.0, evals
        for i in range(n_y):  # the error scale (into ys, free after the stages)
            ys[i] = atol[i] + max(abs(y[i]), abs(y_new[i])) * rtol
        error = _error_norm(K, N_STAGES + 1, E3, E5, h, ys)
        if error < 1.0:
            factor = _MAX_FACTOR if error == 0.0 else min(
                _MAX_FACTOR, _SAFETY * error ** _ERROR_EXPONENT)
            if rejected:
                factor = min(1.0, factor)
            return OK, h, h_abs * factor, evals
        h_abs *= max(_MIN_FACTOR, _SAFETY * error ** _ERROR_EXPONENT)
        rejected = True


@njit(cache=True, inline="always")
def _roots(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, D, K, F, t, y, h, y_new, ys,
           dy, kinds, index, direction, mu_s, threshold, offsets, g, gr, pair_rows):
    """The roots of the event functions that crossed zero on the step (``gr[1]``, inf for the
    others; ``gr[0]`` the functions at the step end) on its dense output (computed into ``F``
    if needed), and of sliding velocities that crossed zero and back within it
    (:func:`_grazing`, on the rows of ``W`` at the workspace's end). Returns ``(status, t_stop,
    dense, evaluations)``: the first root (inf if none) and whether ``F`` was computed. (At most
    30 arguments: CPython passes more as ``*args``, which numba cannot inline.)"""
    g_new, roots = gr[0], gr[1]
    dense = False
    evals = 0
    t_stop = np.inf
    for j in range(kinds.size):
        roots[j] = np.inf
        crossed = _crossed(g[j], g_new[j], direction[j])
        if not crossed and not (kinds[j] == _VELOCITY and g[j] != 0.0):
            continue
        if not dense:
            status = _dense_coefficients(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C,
                                         D, K, F, t, y, h, y_new, ys)
            evals += 3
            if status != OK:
                return status, t_stop, dense, evals
            dense = True
        args = (it, ft, M0, plan, Wt, modes, faces, out, ws, iw, F, y, t, h, ys, dy, kinds[j],
                index[j], mu_s, threshold, offsets)
        t_end, g_end = t + h, g_new[j]
        if not crossed:  # both ends on the sliding side: does it touch zero in between?
            n, p, tail = int(plan[0]), int(plan[2]), 3 * it.shape[0]
            Wp = ws[ws.size - tail - p * n:ws.size - tail].reshape(p, n)
            t_end = _grazing(it, ft, pair_rows[index[j]], F, y, t, h, ys, Wp, direction[j])
            if t_end == np.inf:
                continue
            g_end, status = _g_at(t_end, args)
            evals += 1
            if status != OK:
                return status, t_stop, dense, evals
            if not _crossed(g[j], g_end, direction[j]):
                continue
        root, status, used = _brent(args, t, t_end, g[j], g_end)
        evals += used
        if status != OK:
            return status, t_stop, dense, evals
        roots[j] = root
        t_stop = min(t_stop, root)
    return OK, t_stop, dense, evals


#: Samples of a sliding velocity on a step's dense output, and golden-section refinements of
#: its extreme, when both ends are on the sliding side (:func:`_grazing`).
GRAZING_SAMPLES = 16
GRAZING_REFINE = 40


@njit(cache=True, _nrt=False)
def _sliding_velocity(it, ft, e, F, y, t, h, tt, ys, Wp, n):
    """``v_T = W(q) v`` of the pair of table row ``e`` on the step's dense output at ``tt``
    (the pair's row of W only: no evaluation)."""
    _dense(F, y, t, h, tt, ys)
    i = it[e, 1]
    Wp[i, :] = 0.0
    _pair_row(it, ft, e, ys[:n], ys[n:2 * n], Wp)
    return _dot(Wp[i], ys[n:2 * n])


@njit(cache=True, _nrt=False)
def _grazing(it, ft, e, F, y, t, h, ys, Wp, direction):
    """A time within the step where a slipping pair's sliding velocity has crossed zero although
    it is on the sliding side at both ends (a short stick phase inside one step: the velocity
    touches zero and turns back), else inf. The velocity is sampled on the dense output and its
    extreme towards zero refined by golden-section search; a crossing counts when it exceeds
    ``1e-9 max(1, |v|)`` (the outputs' consistency tolerance)."""
    n = Wp.shape[1]
    scale = 1.0
    for i in range(n, 2 * n):
        scale = max(scale, abs(y[i]))
    tol = 1e-9 * scale
    best_k, best = 0, np.inf
    for k in range(1, GRAZING_SAMPLES):
        side = -direction * _sliding_velocity(it, ft, e, F, y, t, h, t + h * k / GRAZING_SAMPLES,
                                              ys, Wp, n)
        if side < -tol:
            return t + h * k / GRAZING_SAMPLES
        if side < best:
            best_k, best = k, side
    if best_k == 0:
        return np.inf
    a = t + h * (best_k - 1) / GRAZING_SAMPLES  # golden-section search for the minimum of
    b = t + h * (best_k + 1) / GRAZING_SAMPLES  # the side on the samples' neighbourhood
    r = 0.5 * (math.sqrt(5.0) - 1.0)
    c, d = b - r * (b - a), a + r * (b - a)
    fc = -direction * _sliding_velocity(it, ft, e, F, y, t, h, c, ys, Wp, n)
    fd = -direction * _sliding_velocity(it, ft, e, F, y, t, h, d, ys, Wp, n)
    for _ in range(GRAZING_REFINE):
        if min(fc, fd) < -tol:
            return c if fc < fd else d
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - r * (b - a)
            fc = -direction * _sliding_velocity(it, ft, e, F, y, t, h, c, ys, Wp, n)
        else:
            a, c, fc = c, d, fd
            d = a + r * (b - a)
            fd = -direction * _sliding_velocity(it, ft, e, F, y, t, h, d, ys, Wp, n)
    return np.inf


@njit(cache=True, inline="always")
def _dense_coefficients(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, D, K, F, t, y, h,
                        y_new, ys):
    """The 3 extra stages and the coefficients ``F (7, n_y)`` of the step's 7th-order dense
    output (scipy's ``DOP853._dense_output_impl``; ``K[12]`` is the derivative at the step
    end)."""
    status = _stages(it, ft, M0, plan, Wt, modes, faces, out, ws, iw, A, C, K, t, y, h,
                     N_STAGES + 1, 16, ys)
    if status != OK:
        return status
    n_y = y.size
    for i in range(n_y):
        delta = y_new[i] - y[i]
        F[0, i] = delta
        F[1, i] = h * K[0, i] - delta
        F[2, i] = 2.0 * delta - h * (K[N_STAGES, i] + K[0, i])
        for r in range(4):
            acc = 0.0
            for j in range(16):
                acc += D[r, j] * K[j, i]
            F[3 + r, i] = h * acc
    return OK
