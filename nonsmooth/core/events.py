"""The engine's event functions in compiled code: one definition for every compiled phase.

An engine event function is read from an evaluation's output buffer (``out``, the layout of
``kernels.evaluation_layout``): a slipping pair's sliding velocity ``v_T`` (``velocity``), a
load row's multiplier ``lambda_abs`` (``normal``, ``detach``: its magnitude above a
threshold), a sticking pair's friction reserves ``mu_s N -+ F_T`` (``reserve+``,
``reserve-``), or a pair's given normal force ``N(t)`` from the user's function (``given``,
called back: :mod:`nonsmooth.core.callbacks`). ``run.modes.Modes.g_value`` computes the same
values in Python from an :class:`~nonsmooth.dynamics.Evaluation`.

The roots are located by Brent's method (Brent, *Algorithms for Minimization without
Derivatives*, 1973, ch. 4), the arithmetic of ``scipy.optimize.brentq``, on the phase's
interpolant (:func:`brent_with`); crossings follow scipy's ``solve_ivp`` convention
(:func:`crossed`).
"""

from __future__ import annotations

import math

from numba import njit

from .. import prebuilt
from ..contact.contensou import limit_gauge
from .callbacks import given
from .event_kinds import (  # the kinds' one definition (numba-free)
    DETACH,
    EVENT_KINDS,
    GAP,
    GIVEN,
    NORMAL,
    RESERVE,
    RESERVE_MINUS,
    RESERVE_PLUS,
    VELOCITY,
)
from .event_kinds import engine_value as _engine_value
from .layout import H_K, H_M, H_P, N_HEADER, N_LAW, PATCH_SLOT
from .stage import plan_rows, vector_offsets

prebuilt.prepare()  # before any kernel is called: the shipped cache, the notice

__all__ = ["EVENT_KINDS", "engine_value", "event_value", "crossed", "brent_with",
           "refresh_directions", "MAX_ROOT_ITERATIONS", "VELOCITY", "NORMAL", "DETACH",
           "RESERVE_PLUS", "RESERVE_MINUS", "GIVEN", "RESERVE", "GAP"]

#: :func:`nonsmooth.core.event_kinds.engine_value` compiled (inlined into the phases).
engine_value = njit(inline="always")(_engine_value)
#: The kernels' status of an evaluation that succeeded (``kernels.OK``).
OK = 0
#: Iterations of Brent's method before it returns its best estimate.
MAX_ROOT_ITERATIONS = 100


@njit(cache=True)  # a call (per step and root iteration): not copied into every phase's IR
def event_value(kind, i, mu_s, threshold, out, o_F, o_v, o_N, o_abs, t, plan, vector=True):
    """The value of an engine event function of code ``kind`` for pair or load row ``i`` from
    an evaluation's output buffer ``out`` (``o_F, o_v, o_N, o_abs``: the offsets of ``F_T``,
    ``v_T``, ``N``, ``lambda_abs`` in it; ``mu_s`` (p,) the static coefficients, ``threshold``
    the detach threshold, N). A given normal force comes from the user's function at ``t``
    (the run's token at the end of the extended ``plan``). ``vector`` None: every pair is
    scalar (the vector pairs' values, a patch's limit gauge, are not compiled)."""
    if kind == GIVEN:
        return given(int(plan[plan.size - 2]), i, t)
    if kind == GAP:  # a contact's gap, written by the family's kernel at index i of out
        return out[i]
    if kind == NORMAL or kind == DETACH:  # a load row's
        return engine_value(kind, 0.0, threshold, 0.0, 0.0, 0.0, out[o_abs + i])
    p = int(plan[H_P])
    p_rows = plan_rows(plan)
    if vector is None or p_rows == p:  # every pair scalar: its row is its index
        return engine_value(kind, mu_s[i], threshold, out[o_F + i], out[o_v + i], out[o_N + i],
                            0.0)
    o = vector_offsets(p, int(plan[H_K]), int(plan[H_M]), p_rows)
    d, w = int(plan[o[1] + i]), int(plan[o[2] + i])
    if d == 1:
        return engine_value(kind, mu_s[i], threshold, out[o_F + w], out[o_v + w], out[o_N + i],
                            0.0)
    sigma, force = 0.0, 0.0  # sigma = v_T . e_ref, |F_T|
    for r in range(d):
        sigma += out[o_v + w + r] * plan[o[3] + w + r]
        force += out[o_F + w + r] * out[o_F + w + r]
    force = math.sqrt(force)
    patch = plan[N_HEADER + 3 * p + i * N_LAW + PATCH_SLOT] if d == 3 else 0.0  # (law_par)
    if kind == RESERVE and patch > 0.0:  # a patch pair's: the gauge of its limit set
        F0, F1 = out[o_F + w], out[o_F + w + 1]
        force = limit_gauge(int(patch), math.sqrt(F0 * F0 + F1 * F1), abs(out[o_F + w + 2]))
    return engine_value(kind, mu_s[i], threshold, force, sigma, out[o_N + i], 0.0)


@njit(cache=True, inline="always")
def refresh_directions(plan, kinds, index, out, o_v, g, fraction, pending):
    """After an accepted step (its evaluation in ``out``, ``o_v`` the offset of ``v_T``): each
    slipping vector pair's ``velocity`` event takes its slip direction at the step end as its
    reference ``e_ref`` (into the plan's ``e_next`` block when ``pending``: a DOP853 step whose
    outputs the run evaluates with the step's own ``e_ref``), its value ``sigma`` there becomes
    the slip speed ``|v_T|`` in ``g``, and ``fraction`` of it the speed below which a root is
    a stop (``stop_speed``; ``vector_friction.VectorEvents.refresh``, ``STOP_FRACTION``).
    Nothing without vector pairs. Returns whether a direction was refreshed."""
    p = int(plan[H_P])
    p_rows = plan_rows(plan)
    if p_rows == p:
        return False
    o = vector_offsets(p, int(plan[H_K]), int(plan[H_M]), p_rows)
    done = False
    for j in range(kinds.size):
        if kinds[j] != VELOCITY:
            continue
        i = index[j]
        d, w = int(plan[o[1] + i]), int(plan[o[2] + i])
        if d == 1:
            continue
        acc = 0.0
        for r in range(d):
            acc += out[o_v + w + r] * out[o_v + w + r]
        speed = math.sqrt(acc)
        if speed > 0.0 and g[j] > 0.0:
            target = o[4] if pending else o[3]
            for r in range(d):
                plan[target + w + r] = out[o_v + w + r] / speed
            plan[o[5] + i] = fraction * speed
            g[j] = speed
            done = True
    return done


@njit(cache=True, inline="always")
def apply_pending(plan):
    """A DOP853 phase call's start: the pending ``e_next`` of each vector pair (nonzero:
    :func:`refresh_directions`) becomes its ``e_ref``, and ``e_next`` is cleared."""
    p = int(plan[H_P])
    p_rows = plan_rows(plan)
    if p_rows == p:
        return
    o = vector_offsets(p, int(plan[H_K]), int(plan[H_M]), p_rows)
    for i in range(p):
        d, w = int(plan[o[1] + i]), int(plan[o[2] + i])
        pending = False
        for r in range(d):
            pending |= plan[o[4] + w + r] != 0.0
        if pending:
            for r in range(d):
                plan[o[3] + w + r] = plan[o[4] + w + r]
                plan[o[4] + w + r] = 0.0


@njit(cache=True)
def crossed(g0, g1, direction):
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


@njit(cache=True, inline="always")
def brent_with(g_at, args, t0, t1, g0, g1, xtol, rtol):
    """scipy's ``brentq`` of ``g_at(t, args) -> (value, status)`` on ``[t0, t1]`` (``g0``,
    ``g1`` its values at the ends, of opposite signs) to ``xtol + rtol |t|``; returns
    ``(t, status, evaluations)`` (the compiled phases' event times)."""
    if g0 == 0.0:
        return t0, OK, 0
    if g1 == 0.0:
        return t1, OK, 0
    evals = 0
    x_pre, x_cur, f_pre, f_cur = t0, t1, g0, g1
    x_blk, f_blk, s_pre, s_cur = 0.0, 0.0, 0.0, 0.0
    for _ in range(MAX_ROOT_ITERATIONS):
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

