"""The compiled DOP853 phase of a planar model: the template
:func:`nonsmooth.core.phases.dop853.dop853_phase_with` instantiated over the planar right-hand
side.

The adaptive default of ``simulate`` (``DOP853``) for planar models (without user event
functions; the model's own user functions are called back, :mod:`nonsmooth.core.callbacks`):
:func:`planar_dop853_phase` takes the steps of a phase (fixed modes and faces), watches the
engine's event functions (:mod:`nonsmooth.core.events`) at every step end, locates the first
crossing on the step's dense output, and writes the states at the output times, all without
returning to Python; the event loop (``run.loop._integrate_phases``) then records the outputs
(one batch evaluation), checks them against the phase's modes and hands the event to the
transition problem. The planar family adds what only it can do cheaply: a slipping pair's
sliding velocity on the dense output from the pair's row of ``W`` alone (:func:`_grazing`),
which finds a short stick phase inside one step.

The names of the template's module (statuses, :func:`coefficients`) and of the run's
user-function registry are re-exported here for the callers that import them from this module.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..core.callbacks import extended_plan, fill_user, register_user, unregister_user, user_error
from ..core.events import EVENT_KINDS
from ..core.layout import H_N, H_P
from ..core.linalg import _dot
from ..core.phases.dop853 import (
    BUDGET,
    DECLINED,
    DONE,
    EVENT,
    FULL,
    N_STAGES,
    PAUSE,
    RESERVE,
    TOO_SMALL,
    coefficients,
    dense,
    dense_g,
    dop853_phase_with,
)
from ..core.stage import plan_rows, state_offsets
from .kernels import _pair_row, _planar_dy

__all__ = ["planar_dop853_phase", "coefficients", "EVENT_KINDS", "DONE", "EVENT", "PAUSE",
           "FULL", "DECLINED", "TOO_SMALL", "BUDGET", "RESERVE", "N_STAGES", "register_user",
           "unregister_user", "user_error", "extended_plan"]


@njit(cache=True)
def _rhs(ctx, t, y, modes, faces, out, dy):
    """``dy/dt`` (``kernels._planar_dy``) with the user functions' values, at ``t`` clamped to
    the phase's time stop (both read from the end of the extended plan)."""
    it, ft, M0, plan, Wt, ws, iw, _pair_rows = ctx
    token = int(plan[plan.size - 2])
    tt = min(t, plan[plan.size - 1])
    if token >= 0:
        fill_user(token, tt, y, ws, it.shape[0])
    return _planar_dy(it, ft, M0, plan, Wt, tt, y, modes, faces, out, dy, ws, iw)


@njit(cache=True)
def _g_at(t, args):
    """An event function on the step's dense output (``dense_g`` over :func:`_rhs`)."""
    return dense_g(_rhs, t, args)


@njit(cache=True)
def _graze(ctx, i, F, y, t, h, ys, direction):
    """:func:`_grazing` for pair ``i`` on the rows of ``W`` at the workspace's end."""
    it, ft, _M0, plan, _Wt, ws, _iw, pair_rows = ctx
    n, p, tail = int(plan[H_N]), int(plan[H_P]), 3 * it.shape[0]
    p_rows = plan_rows(plan)
    if p_rows != p and it[pair_rows[i], 2] == 3:  # a vector pair's sigma: not searched (as
        return np.inf  # the Python loop; a stop and restart within one step: docs/method.md)
    Wp = ws[ws.size - tail - p_rows * n:ws.size - tail].reshape(p_rows, n)
    return _grazing(it, ft, pair_rows[i], F, y, t, h, ys, Wp, direction)


@njit(cache=True)
def planar_dop853_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, control, atol,
                        grid, k0, state, y, f, g, fired, Y_out, limits, tableau, out):
    """One smooth phase of a planar model by DOP853 (``core.phases.dop853.dop853_phase_with``,
    whose docstring gives the arguments and the result) over the planar right-hand side with
    the grazing search; ``ctx = (ints, floats, mass, plan, Wt, ws, iw, pair_rows)``
    (``planar_family.PlanarFamily.dop853``)."""
    return dop853_phase_with(_rhs, _g_at, _graze, True, ctx, plan, modes, faces, kinds, index,
                             direction, mu_s, control, atol, grid, k0, state, y, f, g, fired,
                             Y_out, limits, tableau, out)


#: Samples of a sliding velocity on a step's dense output, and golden-section refinements of
#: its extreme, when both ends are on the sliding side (:func:`_grazing`).
GRAZING_SAMPLES = 16
GRAZING_REFINE = 40


@njit(cache=True, _nrt=False)
def _sliding_velocity(it, ft, e, F, y, t, h, tt, ys, Wp, n):
    """``v_T = W(q) v`` of the pair of table row ``e`` on the step's dense output at ``tt``
    (the pair's row of W only: no evaluation)."""
    dense(F, y, t, h, tt, ys)
    i = it[e, 1]
    Wp[i, :] = 0.0
    o_v, o_work, _ = state_offsets(n, n)  # y = [q | v | work | z] (core.layout)
    _pair_row(it, ft, e, ys[:o_v], ys[o_v:o_work], Wp)
    return _dot(Wp[i], ys[o_v:o_work])


@njit(cache=True, _nrt=False)
def _grazing(it, ft, e, F, y, t, h, ys, Wp, direction):
    """A time within the step where a slipping pair's sliding velocity has crossed zero although
    it is on the sliding side at both ends (a short stick phase inside one step: the velocity
    touches zero and turns back), else inf. The velocity is sampled on the dense output and its
    extreme towards zero refined by golden-section search; a crossing counts when it exceeds
    ``1e-9 max(1, |v|)`` (the outputs' consistency tolerance)."""
    n = Wp.shape[1]
    scale = 1.0
    o_v, o_work, _ = state_offsets(n, n)
    for i in range(o_v, o_work):
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
