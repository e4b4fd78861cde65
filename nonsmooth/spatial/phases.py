"""The spatial family's compiled phases: the core's DOP853 and RK4/Euler templates
(:mod:`nonsmooth.core.phases`) instantiated over the spatial right-hand side
(:func:`nonsmooth.spatial.kernels._spatial_dy`), ``ctx = (ints, floats, bodies, M, block3,
plan, Wt, ws, iw, flags)`` (:class:`~nonsmooth.spatial.family.SpatialFamily`; ``flags`` the
model's :func:`~nonsmooth.spatial.family.model_flags`: a phase is compiled once per set).

The DOP853 phase calls the model's user functions back (drivers' motions, forces and torques
given as functions of time: :mod:`nonsmooth.core.callbacks`); the fixed-step phase and step run
for models without them. No grazing search (a sliding velocity that crosses zero and back
within one step; the Python path has none either).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.callbacks import fill_user
from ..core.phases.dop853 import dense_g, dop853_phase_with, no_grazing
from ..core.phases.fixed import _step_into, fixed_phase_with, hermite_g
from ..core.status import OK
from .kernels import _spatial_dy

__all__ = ["spatial_dop853_phase", "spatial_fixed_phase", "spatial_fixed_step"]


@njit(cache=True, inline="always")
def _rhs(ctx, t, y, modes, faces, out, dy):
    """``dy/dt`` with the user values called back, at ``t`` clamped to the phase's time stop
    (both read from the end of the extended plan, ``core.callbacks.extended_plan``). Inlined
    into the phase (a few lines around the call of ``_spatial_dy``): one compiled layer fewer
    re-optimizing the whole evaluation."""
    it, ft, bt, M, block3, plan, Wt, ws, iw, flags = ctx
    token = int(plan[plan.size - 2])
    tt = min(t, plan[plan.size - 1])
    if token >= 0:
        fill_user(token, tt, y, ws, it.shape[0])
    contacts, norms, vector, lu, pins, friction, general = flags
    return _spatial_dy(it, ft, bt, M, block3, plan, Wt, tt, y, modes, faces, out, dy, ws, iw,
                       contacts, norms, vector, lu, pins, friction, general)


@njit(cache=True)
def _g_at(t, args):
    return dense_g(_rhs, t, args, args[0][9][2])  # (ctx's flags: vector)


@njit(cache=True)
def spatial_dop853_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, control, atol,
                         grid, k0, state, y, f, g, fired, Y_out, limits, tableau, out):
    """One smooth phase of a spatial model by DOP853 (``core.phases.dop853.dop853_phase_with``,
    whose docstring gives the arguments and the result)."""
    return dop853_phase_with(_rhs, _g_at, no_grazing, False, ctx, plan, modes, faces, kinds,
                             index, direction, mu_s, control, atol, grid, k0, state, y, f, g,
                             fired, Y_out, limits, tableau, out, ctx[9][2])


@njit(cache=True)
def _fixed_rhs(ctx, t, y, modes, faces, out, dy):
    """``dy/dt`` of a model without user functions (the fixed-step phase's)."""
    it, ft, bt, M, block3, plan, Wt, ws, iw, flags = ctx
    contacts, norms, vector, lu, pins, friction, general = flags
    return _spatial_dy(it, ft, bt, M, block3, plan, Wt, t, y, modes, faces, out, dy, ws, iw,
                       contacts, norms, vector, lu, pins, friction, general)


@njit(cache=True)
def _fixed_g_at(t, args):
    return hermite_g(_fixed_rhs, t, args, args[0][9][2])


@njit(cache=True)
def spatial_fixed_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, steps, grid,
                        istate, fstate, y, f, g, fired, T_out, Y_out, O_out):
    """:func:`~nonsmooth.core.phases.fixed.fixed_phase_with` for a spatial model without user
    functions."""
    return fixed_phase_with(_fixed_rhs, _fixed_g_at, ctx, plan, modes, faces, kinds, index,
                            direction, mu_s, steps, grid, istate, fstate, y, f, g, fired, T_out,
                            Y_out, O_out, ctx[9][2])


@njit(cache=True)
def spatial_fixed_step(ctx, t, y, f0, h, t_next, modes, faces, rk4, y_new, f_new, out):
    """One RK4 (``rk4``) or Euler step and ``dy/dt`` at its end (as
    ``nonsmooth.planar.fixed_step.planar_fixed_step``). Returns the first status that is not
    ``OK``."""
    ys = np.empty_like(y)
    k2 = np.empty_like(y)
    k3 = np.empty_like(y)
    k4 = np.empty_like(y)
    status = _step_into(_fixed_rhs, ctx, modes, faces, out, t, y, f0, h, rk4, np.inf, ys, k2,
                        k3, k4, y_new)
    if status != OK:
        return status
    return _fixed_rhs(ctx, t_next, y_new, modes, faces, out, f_new)
