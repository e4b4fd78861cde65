"""The compiled fixed-step (RK4 / Euler) phase of a planar model without user functions: the
template :mod:`nonsmooth.core.phases.fixed` instantiated over the planar right-hand side
(``ctx = (ints, floats, mass, plan, Wt, ws, iw)``, ``kernels.workspace``). The template's names
are re-exported here for the callers that import them from this module.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.phases.fixed import (
    BUDGET,
    DECLINED,
    DONE,
    EVENT,
    PAUSE,
    _step_into,
    fixed_phase_with,
    hermite_g,
)
from ..core.status import OK
from .kernels import _planar_dy

__all__ = ["planar_fixed_phase", "planar_fixed_step", "DONE", "EVENT", "PAUSE", "DECLINED",
           "BUDGET"]


# ------------------------------------------------------------------------ a planar model's phase
@njit(cache=True)
def _planar_rhs(ctx, t, y, modes, faces, out, dy):
    """``dy/dt`` of a planar model without user functions (``ctx = (it, ft, M0, plan, Wt, ws,
    iw)``, ``kernels.workspace``): runtime-free, or the general path where it needs LAPACK."""
    it, ft, M0, plan, Wt, ws, iw = ctx
    return _planar_dy(it, ft, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw)


@njit(cache=True)
def _planar_g_at(t, args):
    return hermite_g(_planar_rhs, t, args)


@njit(cache=True)
def planar_fixed_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, steps, grid,
                       istate, fstate, y, f, g, fired, T_out, Y_out, O_out):
    """:func:`fixed_phase_with` for a planar model without user functions."""
    return fixed_phase_with(_planar_rhs, _planar_g_at, ctx, plan, modes, faces, kinds, index,
                             direction, mu_s, steps, grid, istate, fstate, y, f, g, fired, T_out,
                             Y_out, O_out)


@njit(cache=True)
def planar_fixed_step(ctx, t, y, f0, h, t_next, modes, faces, rk4, y_new, f_new, out):
    """One classical Runge-Kutta (``rk4``) or explicit Euler step of a planar model without user
    functions, in one call: the template's step (``core.phases.fixed._step_into``, the one
    compiled RK4; its Python twin ``run.steppers._rk4_step`` / ``_euler_step``), then ``dy/dt``
    at the step end ``t_next`` into ``f_new`` (its whole evaluation kept in ``out``). Returns the
    status of the first evaluation that is not ``OK`` (the caller then takes the Python step,
    which names the problem)."""
    ys = np.empty_like(y)
    k2 = np.empty_like(y)
    k3 = np.empty_like(y)
    k4 = np.empty_like(y)
    status = _step_into(_planar_rhs, ctx, modes, faces, out, t, y, f0, h, rk4, np.inf, ys, k2,
                        k3, k4, y_new)
    if status != OK:
        return status
    return _planar_rhs(ctx, t_next, y_new, modes, faces, out, f_new)
