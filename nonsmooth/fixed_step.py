"""The compiled fixed-step (RK4 / Euler) phase of a planar model without user functions: the
template :mod:`nonsmooth.core.phases.fixed` instantiated over the planar right-hand side
(``ctx = (ints, floats, mass, plan, Wt, ws, iw)``, ``kernels.workspace``). The template's names
are re-exported here for the callers that import them from this module.
"""

from __future__ import annotations

from numba import njit

from .core.phases.fixed import BUDGET, DECLINED, DONE, EVENT, PAUSE, fixed_phase_with, hermite_g
from .kernels import _planar_dy

__all__ = ["planar_fixed_phase", "DONE", "EVENT", "PAUSE", "DECLINED", "BUDGET"]


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
