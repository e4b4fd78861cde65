"""One smooth phase integrated in one compiled call by Dormand-Prince 8(5,3): the template.

:func:`dop853_phase_with` takes the steps of a phase (fixed modes and faces) over a family's
right-hand side ``rhs(ctx, t, y, modes, faces, out, dy) -> status`` (the state ``y = [q, v,
work (5), z]`` and its derivative ``dy``; the evaluation's outputs left in ``out``), watches the
engine's event functions (:mod:`nonsmooth.core.events`) at every step end, locates the first
crossing on the step's dense output, and writes the states at the output times, all without
returning to Python. A family instantiates it in source code of its own (``nonsmooth.planar.dop853``
for the planar model, the generated module of a ``GeneralizedSystem`` with compiled terms,
:mod:`nonsmooth.generalized.generated`): a ``@njit(cache=True)`` entry point that calls it with
module-level functions, the one pattern numba keeps cached across processes
(``docs/seam.md`` section 6b).

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
from numba import njit

from ..events import (
    OK,
    VELOCITY,
    apply_pending,
    brent_with,
    crossed,
    event_value,
    refresh_directions,
)
from ..layout import H_P
from ..stage import event_offsets, plan_rows

__all__ = ["dop853_phase_with", "dense_g", "coefficients", "DONE", "EVENT", "PAUSE", "FULL",
           "DECLINED", "TOO_SMALL", "BUDGET", "RESERVE", "N_STAGES"]

#: Statuses of a DOP853 phase call.
DONE, EVENT, PAUSE, FULL, DECLINED, TOO_SMALL, BUDGET = 0, 1, 2, 3, 4, 5, 6
#: The kernels' status of a state whose derivative is not finite (``kernels.NONFINITE``).
NONFINITE = 5

N_STAGES = 12  # stages of a step; 3 more for the dense output
_SAFETY, _MIN_FACTOR, _MAX_FACTOR = 0.9, 0.2, 10.0
_ERROR_EXPONENT = -1.0 / 8.0  # -1 / (error estimator order 7 + 1)
_XTOL = 4 * np.finfo(float).eps  # the event times, as simulate's scipy path locates them
_MAX_ROOT_ITERATIONS = 100
#: Evaluations kept in reserve below the run's budget (one step, its dense output, one root)
RESERVE = N_STAGES + 4 + _MAX_ROOT_ITERATIONS
#: A slipping vector pair's ``sigma`` root is a stop below this fraction of its slip speed at
#: the step's start (``vector_friction.STOP_FRACTION[False]``, an adaptive step's).
STOP_FRACTION = 1e-6


@cache
def coefficients() -> tuple[np.ndarray, ...]:
    """``(A, B, C, E3, E5, D)`` as arrays (:mod:`nonsmooth.dop853_tableau`): the tableau of the
    12 stages and the 3 dense-output stages ``A (16, 16), C (16,)``, the weights ``B (12,)``,
    the error estimators ``E3, E5 (13,)``, the dense-output weights ``D (4, 16)``."""
    from ... import dop853_tableau as tableau

    return tuple(np.array(getattr(tableau, name), dtype=float)
                 for name in ("A", "B", "C", "E3", "E5", "D"))


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


@njit(cache=True, _nrt=False)
def dense(F, y_old, t_old, h, t, y):
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


@njit(cache=True, _nrt=False)
def finite(y):
    """Whether every entry of ``y`` is finite."""
    for i in range(y.size):
        if not np.isfinite(y[i]):
            return False
    return True


@njit(cache=True, inline="always")
def _stages(rhs, ctx, modes, faces, out, A, C, K, t, y, h, first, last, ys):
    """Stages ``first .. last - 1`` of a step from ``(t, y)`` of length ``h`` into ``K``;
    returns the status of the first evaluation that is not ``OK``."""
    n_y = y.size
    for s in range(first, last):
        for i in range(n_y):
            acc = 0.0
            for j in range(s):
                acc += K[j, i] * A[s, j]
            ys[i] = y[i] + h * acc
        status = rhs(ctx, t + C[s] * h, ys, modes, faces, out, K[s])
        if status != OK:
            return status
    return OK


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
def dense_g(rhs, t, args, vector=True):
    """An event function on the step's dense output (the ``g_at(t, args)`` a family defines
    with its ``rhs`` for :func:`~nonsmooth.core.events.brent_with`): ``(value, status)``;
    ``vector`` None: the pairs are scalar (``core.events.event_value``)."""
    (ctx, plan, modes, faces, out, F, y_old, t_old, h, ys, dy, kind, i, mu_s, threshold,
     offsets) = args
    dense(F, y_old, t_old, h, t, ys)
    status = rhs(ctx, t, ys, modes, faces, out, dy)
    if status != OK:
        return 0.0, status
    return event_value(kind, i, mu_s, threshold, out, offsets[0], offsets[1], offsets[2],
                       offsets[3], t, plan, vector), OK


@njit(cache=True, inline="always")
def _initial_step(rhs, ctx, modes, faces, out, t, y, f, t_end, max_step, rtol, atol, ys, dy):
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
    status = rhs(ctx, t + h0, ys, modes, faces, out, dy)
    if status != OK:
        return 0.0, status
    d2 = _rms((dy - f) / scale) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, interval, max_step), OK


@njit(cache=True, inline="always")
def dop853_phase_with(rhs, g_at, graze, grazing, ctx, plan, modes, faces, kinds, index,
                      direction, mu_s, control, atol, grid, k0, state, y, f, g, fired, Y_out,
                      limits, tableau, out, vector_events=True):
    """Integrate one smooth phase by DOP853 from ``(state[0], y)`` until the first terminal
    engine event, the phase's end, a full output buffer or ``limits[1]`` evaluations.

    Parameters
    ----------
    rhs, g_at, graze, grazing
        The family's right-hand side ``rhs(ctx, t, y, modes, faces, out, dy) -> status``
        (clamped to the phase's time stop, the user functions called back), its event function
        on a step's dense output ``g_at(t, args) = dense_g(rhs, t, args)``, and ``graze(ctx, i,
        F, y, t, h, ys, direction) -> t or inf``: a time within the step where slipping pair
        ``i``'s sliding velocity crossed zero though it is on the sliding side at both ends,
        looked for only when ``grazing`` is true (a family without a cheap sliding velocity
        skips it, as scipy's path does).
    ctx
        The family's constant data and workspaces (a tuple; what ``rhs`` unpacks).
    plan : ndarray
        The stage constants extended by ``core.callbacks.extended_plan`` (the run's
        user-function token and time clamp at its end).
    modes, faces : ndarray, shapes (p,), (k,)
        The phase's modes of the Coulomb pairs and faces of the load rows.
    kinds, index, direction : ndarray, shape (n_e,)
        The phase's event functions (``core.events.EVENT_KINDS`` codes, pair or load row, the
        watched direction of the crossing); ``mu_s`` (p,) the static coefficients.
    control : ndarray, shape (4,)
        ``[t_end, rtol, max_step, threshold]``: the phase's end (s), the relative tolerance,
        the largest step (s), the detach threshold (N).
    atol : ndarray, shape (n_y,)
        The absolute tolerances.
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
    limits : ndarray of int64, shape (2,)
        ``[max_evaluations, pause_after]``: stop with ``BUDGET`` when fewer than
        :data:`RESERVE` evaluations remain of the first; stop with ``PAUSE`` at a step end
        after the second (the caller checks its clock and progress, and calls again).
    tableau
        :func:`coefficients` (a tuple of six arrays).
    out : ndarray
        Scratch: one evaluation's outputs (``kernels.evaluation_layout``).
    vector_events
        None for a family whose pairs are all scalar: the vector pairs' event values are not
        compiled (``core.events.event_value``); the default, True, compiles them.

    Returns
    -------
    (status, n_out, evaluations, steps, needed)
        ``status`` one of ``DONE`` (``t_end`` reached), ``EVENT``, ``PAUSE``, ``FULL`` (the next
        step has ``needed`` outputs, more than ``Y_out`` holds), ``DECLINED`` (an evaluation was
        not ``OK`` or the state not finite), ``TOO_SMALL`` (the step fell below round-off),
        ``BUDGET``; ``n_out`` states written to ``Y_out``. After anything but ``EVENT``,
        ``state, y, f, g`` are those of the last accepted step.

    Vector pairs (a plan with the vector tail, ``core.layout.VECTOR_BLOCKS``): after each
    accepted step but the phase's last, the slip directions' references ``e_ref`` in ``plan``
    follow the slip (``core.events.refresh_directions``), as the Python loop's
    ``step_accepted`` does. A step with outputs keeps its own ``e_ref`` until the run has
    evaluated them: its refresh waits in ``e_next``, the call returns ``PAUSE`` at its end,
    and the next call applies it first (``core.events.apply_pending``).
    """
    A, B, C, E3, E5, D = tableau
    t_end, rtol, max_step, threshold = control[0], control[1], control[2], control[3]
    max_evaluations, pause_after = limits[0], limits[1]
    n_y, n_e = y.size, kinds.size
    offsets = np.array(event_offsets(plan))
    vector = plan_rows(plan) != int(plan[H_P])
    out_end = _vector_start(vector, plan, out)  # a vector plan's step-end evaluation
    K = np.empty((16, n_y))
    F = np.empty((7, n_y))
    ys, dy, y_new = np.empty(n_y), np.empty(n_y), np.empty(n_y)
    gr = np.empty((2, n_e))  # the event functions at the step end, and their roots
    g_new, roots = gr[0], gr[1]
    evals, steps, n_out = 0, 0, 0
    t = state[0]
    if state[2] != 0.0:  # a phase start: f, g and the first step size
        status = _start(rhs, ctx, plan, modes, faces, out, kinds, index, mu_s, threshold,
                        offsets, t_end, max_step, rtol, atol, state, y, f, g, ys, dy,
                        vector_events)
        evals += 2
        if status != OK:
            return DECLINED, 0, evals, 0, 0
    k = k0
    # a vector plan's refresh pending: the run evaluates the outputs first (np.bool_, not the
    # literal False: numba would also compile _limit for the literal)
    pause = np.bool_(False)
    while True:
        status = _limit(t, t_end, evals, pause_after, max_evaluations, pause)
        if status >= 0:
            return status, n_out, evals, steps, 0
        status, h, h_next, used = _step(rhs, ctx, modes, faces, out, A, B, C, E3, E5, K, t, y,
                                        f, state[1], t_end, max_step, rtol, atol, y_new, ys)
        evals += used
        if status != OK:
            return status, n_out, evals, steps, 0
        steps += 1
        t_new = t + h if t + h < t_end else t_end
        # the event functions at the step end (``out`` holds its evaluation), their roots
        for j in range(n_e):
            g_new[j] = event_value(kinds[j], index[j], mu_s, threshold, out, offsets[0],
                                   offsets[1], offsets[2], offsets[3], t_new, plan,
                                   vector_events)
        _keep(vector, out, out_end)
        status, t_stop, have_dense, used = _roots(rhs, g_at, graze, grazing, ctx, plan, modes,
                                                  faces, out, A, C, D, K, F, t, y, h, y_new, ys,
                                                  dy, kinds, index, direction, mu_s, threshold,
                                                  offsets, g, gr)
        evals += used
        if status != OK:
            return DECLINED, n_out, evals, steps, 0
        # the outputs up to the step end or the event
        status, count, used = _outputs(rhs, ctx, modes, faces, out, A, C, D, K, F, t, y, h,
                                       y_new, ys, have_dense, grid, k, min(t_new, t_stop), Y_out,
                                       n_out)
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
            dense(F, y, t, h, t_stop, ys)
            y[:] = ys
            state[0] = t_stop
            return EVENT, n_out, evals, steps, 0
        t = t_new
        y[:] = y_new
        f[:] = K[N_STAGES]
        pause = _refresh(vector, plan, kinds, index, out_end, offsets[1], g_new, t, t_end,
                         count)
        g[:] = g_new
        state[0], state[1] = t, h_next


@njit(cache=True, inline="always")
def _keep(vector, out, out_end):
    """A vector plan's step-end evaluation kept in ``out_end`` (the roots' and outputs'
    evaluations overwrite ``out``)."""
    if vector:
        out_end[:] = out


@njit(cache=True, inline="always")
def _refresh(vector, plan, kinds, index, out_end, o_v, g_new, t, t_end, count):
    """After an accepted step but the phase's last (as the Python loop): the vector pairs'
    ``e_ref`` follow the slip (``core.events.refresh_directions``; pending when the step had
    ``count`` outputs). Returns whether the call pauses here: a direction refreshed after a
    step with outputs (its refresh pending)."""
    if not vector or not t < t_end:
        return False
    refreshed = refresh_directions(plan, kinds, index, out_end, o_v, g_new, STOP_FRACTION,
                                   count > 0)
    return refreshed and count > 0


@njit(cache=True, inline="always")
def _vector_start(vector, plan, out):
    """A call's start with a vector plan: the pending refresh applied
    (``core.events.apply_pending``); returns the scratch for the step-end evaluation (empty
    without vector pairs)."""
    if vector:
        apply_pending(plan)
        return np.empty(out.size)
    return np.empty(0)


@njit(cache=True, inline="always")
def _outputs(rhs, ctx, modes, faces, out, A, C, D, K, F, t, y, h, y_new, ys, have_dense, grid,
             k, t_last, Y_out, n_out):
    """The states at the output times ``grid[k] .. <= t_last`` of the step into
    ``Y_out[n_out:]`` (the dense output computed into ``F`` unless ``have_dense``). Returns
    ``(status, count, evaluations)``; ``FULL`` (nothing written) when they do not fit."""
    count = 0
    while k + count < grid.size and grid[k + count] <= t_last:
        count += 1
    if n_out + count > Y_out.shape[0]:
        return FULL, count, 0
    evals = 0
    if count and not have_dense:
        status = _dense_coefficients(rhs, ctx, modes, faces, out, A, C, D, K, F, t, y, h, y_new,
                                     ys)
        evals = 3
        if status != OK:
            return status, 0, evals
    for r in range(count):
        dense(F, y, t, h, grid[k + r], Y_out[n_out + r])
    return OK, count, evals


@njit(cache=True)
def _limit(t, t_end, evals, pause_after, max_evaluations, pause):
    """``DONE``, ``PAUSE`` or ``BUDGET`` when the phase stops before the next step, else -1
    (``pause``: a step's refresh of the slip directions waits for its outputs' evaluation)."""
    if t >= t_end:
        return DONE
    if evals >= pause_after or pause:
        return PAUSE
    if evals + RESERVE > max_evaluations:
        return BUDGET
    return -1


@njit(cache=True, inline="always")
def _start(rhs, ctx, plan, modes, faces, out, kinds, index, mu_s, threshold, offsets, t_end,
           max_step, rtol, atol, state, y, f, g, ys, dy, vector_events):
    """At a phase start: ``f`` and ``g`` at ``(state[0], y)`` and the first step size into
    ``state[1]`` (two evaluations). Returns the status."""
    status = rhs(ctx, state[0], y, modes, faces, out, f)
    if status != OK:
        return status
    for j in range(kinds.size):
        g[j] = event_value(kinds[j], index[j], mu_s, threshold, out, offsets[0], offsets[1],
                           offsets[2], offsets[3], state[0], plan, vector_events)
    h_abs, status = _initial_step(rhs, ctx, modes, faces, out, state[0], y, f, t_end, max_step,
                                  rtol, atol, ys, dy)
    state[1], state[2] = h_abs, 0.0
    return status


@njit(cache=True, inline="always")
def _step(rhs, ctx, modes, faces, out, A, B, C, E3, E5, K, t, y, f, h_abs, t_end, max_step,
          rtol, atol, y_new, ys):
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
        status = _stages(rhs, ctx, modes, faces, out, A, C, K, t, y, h, 1, N_STAGES, ys)
        evals += N_STAGES - 1
        if status != OK:
            return DECLINED, 0.0, 0.0, evals
        for i in range(n_y):
            acc = 0.0
            for j in range(N_STAGES):
                acc += K[j, i] * B[j]
            y_new[i] = y[i] + h * acc
        if not finite(y_new):
            return DECLINED, 0.0, 0.0, evals
        status = rhs(ctx, t_new, y_new, modes, faces, out, K[N_STAGES])
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
def _roots(rhs, g_at, graze, grazing, ctx, plan, modes, faces, out, A, C, D, K, F, t, y, h,
           y_new, ys, dy, kinds, index, direction, mu_s, threshold, offsets, g, gr):
    """The roots of the event functions that crossed zero on the step (``gr[1]``, inf for the
    others; ``gr[0]`` the functions at the step end) on its dense output (computed into ``F``
    if needed), and, with ``grazing``, of sliding velocities that crossed zero and back within
    it (``graze``). Returns ``(status, t_stop, have_dense, evaluations)``: the first root (inf
    if none) and whether ``F`` was computed. (At most 30 arguments: CPython passes more as
    ``*args``, which numba cannot inline.)"""
    g_new, roots = gr[0], gr[1]
    have_dense = False
    evals = 0
    t_stop = np.inf
    for j in range(kinds.size):
        roots[j] = np.inf
        hit = crossed(g[j], g_new[j], direction[j])
        if not hit and not (grazing and kinds[j] == VELOCITY and g[j] != 0.0):
            continue
        if not have_dense:
            status = _dense_coefficients(rhs, ctx, modes, faces, out, A, C, D, K, F, t, y, h,
                                         y_new, ys)
            evals += 3
            if status != OK:
                return status, t_stop, have_dense, evals
            have_dense = True
        args = (ctx, plan, modes, faces, out, F, y, t, h, ys, dy, kinds[j], index[j], mu_s,
                threshold, offsets)
        t_end, g_end = t + h, g_new[j]
        if not hit:  # both ends on the sliding side: does it touch zero in between?
            t_end = graze(ctx, index[j], F, y, t, h, ys, direction[j])
            if t_end == np.inf:
                continue
            g_end, status = g_at(t_end, args)
            evals += 1
            if status != OK:
                return status, t_stop, have_dense, evals
            if not crossed(g[j], g_end, direction[j]):
                continue
        root, status, used = brent_with(g_at, args, t, t_end, g[j], g_end, _XTOL, _XTOL)
        evals += used
        if status != OK:
            return status, t_stop, have_dense, evals
        roots[j] = root
        t_stop = min(t_stop, root)
    return OK, t_stop, have_dense, evals


@njit(cache=True, inline="always")
def _dense_coefficients(rhs, ctx, modes, faces, out, A, C, D, K, F, t, y, h, y_new, ys):
    """The 3 extra stages and the coefficients ``F (7, n_y)`` of the step's 7th-order dense
    output (scipy's ``DOP853._dense_output_impl``; ``K[12]`` is the derivative at the step
    end)."""
    status = _stages(rhs, ctx, modes, faces, out, A, C, K, t, y, h, N_STAGES + 1, 16, ys)
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


@njit(cache=True)
def no_grazing(ctx, i, F, y, t, h, ys, direction):
    """The ``graze`` of a family without a sliding velocity on the dense output: none."""
    return np.inf
