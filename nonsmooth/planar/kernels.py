"""Compiled kernels over the planar tables (``docs/fast_core.md``, :mod:`nonsmooth.planar.tables`).

The evaluation allocates nothing and counts no references (``_nrt=False``: numba's reference
counting of every array argument and view costs two atomic operations each, which measured
half of an evaluation): :func:`_evaluate_into` takes every array as a view into one workspace
made once by its caller per phase, output batch or step (:func:`workspace`), with its helpers
inlined into it (``inline="always"``: each call passed a dozen array structures), the KKT
system by the in-kernel LU and the load equation certified by a norm bound. Where LAPACK is
needed (above :data:`SMALL_LU` rows, or a certificate that needs eigenvalues) it returns
``GENERAL`` and the allocating general path takes that evaluation
(:func:`_planar_evaluate_general`, :func:`acceleration_stage`, whose arrays are allocated in
six blocks and filled by the same runtime-free stages :func:`_stage_kkt`,
:func:`_stage_load_equation`, :func:`_stage_loads`). The belt's evaluation 3.0 -> 0.86 us
inside numba. A helper compiled without the runtime must not allocate, and may return an array
only if it was passed in.

numba ``@njit(cache=True)``: compiled on first use and cached on disk next to this file (or in
numba's user-wide cache when the package folder is not writable), so a new process loads the
machine code instead of compiling. Kernels know no Python objects: the tables are two packed
arrays, the user functions' values a third.

Stages (MuJoCo's ``mj_fwdPosition`` / ``mj_fwdVelocity`` split):

* :func:`planar_terms`: position and velocity stage and forces in one pass over the tables:
  ``M, f, Phi, Phi_t, G, gamma, W`` and the applied and damping powers;
* :func:`planar_bias`: ``(dW/dt) v`` of every frictional pair;
* :func:`planar_potential`: the potential energy of gravity and the springs.

Formulas: Haug, *Computer-Aided Kinematics and Dynamics of Mechanical Systems* (1989), ch. 3 and
6; they are those of :mod:`nonsmooth.planar.joints` and :mod:`nonsmooth.planar.forces`, element
by element (``tests/planar/test_kernels.py`` compares the two).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import prebuilt
from ..core.layout import H_K, H_M, H_N, H_NZ, H_P, H_STATE_MASS
from ..core.linalg import _all_finite, _dot, _lu_solve  # noqa: F401 - _dot, _lu_solve re-exported
from ..core.stage import (  # noqa: F401 - the stage's names, re-exported for the old import path
    COINCIDENT,
    COULOMB,
    GENERAL,
    JAMMED,
    LOAD_ITERATIONS,
    LUGRE,
    N_HEADER,
    N_LAW,
    NO_LOAD,
    NONFINITE,
    OK,
    REGULARIZED,
    SINGULAR,
    SMALL_LU,
    UNCERTIFIED,
    _certify,
    _certify_bound,
    _count_sticking,
    _derivative,
    _largest_stage,
    _stage_body,
    _stage_into,
    _stage_size,
    _stick_counts,
    _terms_size,
    acceleration_stage,
    evaluation_layout,
    plan_rows,
    stage_ints,
    stage_workspace,
    state_offsets,
    vector_offsets,
)
from .tables import (
    DAMPER,
    DRIVER,
    GRAVITY,
    JOINT_DAMPER,
    JOINT_SPRING,
    PAIR,
    REVOLUTE,
    ROTOR,
    SPRING,
    TORQUE,
    TRANSLATIONAL,
)

# before any kernel below is called: numba's cache of other kernel sources removed, seeded from
# the shipped one, and a notice when numba compiles instead of loading
prebuilt.prepare()

__all__ = ["planar_terms", "planar_bias", "planar_potential", "planar_slot_displacement",
           "planar_evaluate", "planar_evaluate_batch", "acceleration_stage", "evaluation_layout",
           "ERR_COINCIDENT"]

#: Error codes (second return value of the kernels; the element row is the first).
ERR_COINCIDENT = 1  # a spring's or damper's two points coincide: its direction is undefined


@njit(cache=True, _nrt=False, inline="always")
def _point(off, nd, sx, sy, q, v):
    """``(rx, ry, ax, ay, omega, theta)`` of a body-fixed point (``planar.point_state``)."""
    if nd == 0:
        return sx, sy, 0.0, 0.0, 0.0, 0.0
    if nd == 2:
        return q[off], q[off + 1], 0.0, 0.0, 0.0, 0.0
    th = q[off + 2]
    c, s = math.cos(th), math.sin(th)
    ax = c * sx - s * sy
    ay = s * sx + c * sy
    return q[off] + ax, q[off + 1] + ay, ax, ay, v[off + 2], th


@njit(cache=True, _nrt=False, inline="always")
def _point_velocity(off, nd, ax, ay, v):
    if nd == 0:
        return 0.0, 0.0
    if nd == 2:
        return v[off], v[off + 1]
    w = v[off + 2]
    return v[off] - w * ay, v[off + 1] + w * ax


@njit(cache=True, _nrt=False, inline="always")
def _add_point_row(G, r, off, nd, ax, ay, ex, ey, sign):
    """``G[r] += sign * e . d(r_point)/dq`` (``planar.add_point_row``): row ``r`` of a matrix
    (indexed in place, not through a row view: every array view costs two atomic reference
    count updates, which were half of an evaluation)."""
    if nd == 0:
        return
    G[r, off] += sign * ex
    G[r, off + 1] += sign * ey
    if nd == 3:
        G[r, off + 2] += sign * (-ex * ay + ey * ax)


@njit(cache=True, _nrt=False, inline="always")
def _add_point_vector(f, off, nd, ax, ay, ex, ey, sign):
    """``f += sign * e . d(r_point)/dq`` for a vector ``f``."""
    if nd == 0:
        return
    f[off] += sign * ex
    f[off + 1] += sign * ey
    if nd == 3:
        f[off + 2] += sign * (-ex * ay + ey * ax)


@njit(cache=True, _nrt=False, inline="always")
def _line(it, ft, e, elx, ely, q, v, grad, r):
    """``e . (r_P - r_Q)`` of translational element ``e`` with ``e`` fixed in the guide:
    value, gradient (added into row ``r`` of ``grad``) and gamma (``Translational._line``)."""
    i_off, i_nd, j_off, j_nd = it[e, 2], it[e, 3], it[e, 4], it[e, 5]
    rqx, rqy, aix, aiy, wi, thi = _point(i_off, i_nd, ft[e, 0], ft[e, 1], q, v)
    rpx, rpy, ajx, ajy, wj, _ = _point(j_off, j_nd, ft[e, 2], ft[e, 3], q, v)
    c, s = math.cos(thi), math.sin(thi)
    ex = c * elx - s * ely
    ey = s * elx + c * ely
    dx, dy = rpx - rqx, rpy - rqy
    _add_point_row(grad, r, j_off, j_nd, ajx, ajy, ex, ey, 1.0)
    _add_point_row(grad, r, i_off, i_nd, aix, aiy, ex, ey, -1.0)
    pex, pey = -ey, ex
    if i_nd == 3:
        grad[r, i_off + 2] += pex * dx + pey * dy
    vpx, vpy = _point_velocity(j_off, j_nd, ajx, ajy, v)
    vqx, vqy = _point_velocity(i_off, i_nd, aix, aiy, v)
    gamma = (wi * wi * (ex * dx + ey * dy)
             - 2.0 * wi * (pex * (vpx - vqx) + pey * (vpy - vqy))
             + ex * (ajx * wj * wj - aix * wi * wi) + ey * (ajy * wj * wj - aiy * wi * wi))
    return ex * dx + ey * dy, gamma


@njit(cache=True, _nrt=False, inline="always")
def _coordinate(it, ft, kind, e, q, v, grad, r):
    """A joint coordinate (revolute: relative angle; translational: displacement along the
    slot): value, gradient (into row ``r`` of ``grad``), gamma
    (``Revolute/Translational.coordinate``)."""
    if kind == 0:
        return _relative_angle(it[e, 2], it[e, 3], it[e, 4], it[e, 5], q, grad, r, 1.0), 0.0
    return _line(it, ft, e, ft[e, 4], ft[e, 5], q, v, grad, r)


@njit(cache=True, _nrt=False, inline="always")
def _two_point(it, ft, e, q, v):
    """Length, rate, direction and rotated offsets of a point-to-point element."""
    i_off, i_nd, j_off, j_nd = it[e, 1], it[e, 2], it[e, 3], it[e, 4]
    rix, riy, aix, aiy, _, _ = _point(i_off, i_nd, ft[e, 0], ft[e, 1], q, v)
    rjx, rjy, ajx, ajy, _, _ = _point(j_off, j_nd, ft[e, 2], ft[e, 3], q, v)
    dx, dy = rjx - rix, rjy - riy
    length = math.hypot(dx, dy)
    if length == 0.0:
        return length, 0.0, 0.0, 0.0, aix, aiy, ajx, ajy
    ex, ey = dx / length, dy / length
    vix, viy = _point_velocity(i_off, i_nd, aix, aiy, v)
    vjx, vjy = _point_velocity(j_off, j_nd, ajx, ajy, v)
    rate = ex * (vjx - vix) + ey * (vjy - viy)
    return length, rate, ex, ey, aix, aiy, ajx, ajy


@njit(cache=True, _nrt=False, inline="always")
def _relative_angle(i_off, i_nd, j_off, j_nd, q, G, r, scale):
    """``theta_j - theta_i`` (a body without rotation adds nothing) and ``scale`` times its
    gradient added into row ``r`` of ``G`` (the compiled ``bodies.relative_angle``)."""
    val = 0.0
    if j_nd == 3:
        val += q[j_off + 2]
        G[r, j_off + 2] += scale
    if i_nd == 3:
        val -= q[i_off + 2]
        G[r, i_off + 2] -= scale
    return val


@njit(cache=True, _nrt=False, inline="always")
def _constraint_rows(it, ft, U, e, t, q, v, phi, phi_t, G, gamma):
    """Rows of a revolute or translational joint or a driver (``Revolute.fill``,
    ``Translational.fill``, ``Driver.fill``)."""
    kind, r = it[e, 0], it[e, 1]
    i_off, i_nd, j_off, j_nd = it[e, 2], it[e, 3], it[e, 4], it[e, 5]
    if kind == REVOLUTE:
        rix, riy, aix, aiy, wi, _ = _point(i_off, i_nd, ft[e, 0], ft[e, 1], q, v)
        rjx, rjy, ajx, ajy, wj, _ = _point(j_off, j_nd, ft[e, 2], ft[e, 3], q, v)
        phi[r] = rjx - rix
        phi[r + 1] = rjy - riy
        _add_point_row(G, r, j_off, j_nd, ajx, ajy, 1.0, 0.0, 1.0)
        _add_point_row(G, r + 1, j_off, j_nd, ajx, ajy, 0.0, 1.0, 1.0)
        _add_point_row(G, r, i_off, i_nd, aix, aiy, 1.0, 0.0, -1.0)
        _add_point_row(G, r + 1, i_off, i_nd, aix, aiy, 0.0, 1.0, -1.0)
        gamma[r] = wj * wj * ajx - wi * wi * aix
        gamma[r + 1] = wj * wj * ajy - wi * wi * aiy
    elif kind == TRANSLATIONAL:
        phi[r], gamma[r] = _line(it, ft, e, ft[e, 6], ft[e, 7], q, v, G, r)
        if it[e, 6]:  # the rotation lock
            phi[r + 1] = _relative_angle(i_off, i_nd, j_off, j_nd, q, G, r + 1, 1.0) - ft[e, 8]
            gamma[r + 1] = 0.0
    else:  # DRIVER: coordinate(q) - f(t) = 0
        val, g = _coordinate(it, ft, it[e, 2], it[e, 3], q, v, G, r)
        if it[e, 4] == 0:
            fd, dfd, ddfd = ft[e, 0] + ft[e, 1] * t, ft[e, 1], 0.0
        else:
            fd, dfd, ddfd = U[e, 0], U[e, 1], U[e, 2]
        phi[r] = val - fd
        phi_t[r] = -dfd
        gamma[r] = g + ddfd


@njit(cache=True, _nrt=False, inline="always")
def _pair_row(it, ft, e, q, v, W):
    """Rows of ``W`` of a frictional pair from its first row ``it[e, 1]``: ``pin_radius``
    times the relative angle's gradient (revolute), the slot line's gradient (translational),
    ``radius`` times the relative angle's (clutch), a body point's ``d(r_P)/dq`` along x and y
    (a sliding contact: two rows, ``SlidingContact.fill_tangential``)."""
    i, je = it[e, 1], it[e, 3]
    if it[e, 2] == 0:
        _relative_angle(it[je, 2], it[je, 3], it[je, 4], it[je, 5], q, W, i, ft[e, 0])
    elif it[e, 2] == 1:
        _line(it, ft, je, ft[je, 4], ft[je, 5], q, v, W, i)
    elif it[e, 2] == 2:  # a clutch or brake: the relative rotation of two bodies, at its radius
        _relative_angle(it[e, 3], it[e, 4], it[e, 5], it[e, 6], q, W, i, ft[e, 0])
    else:  # a sliding contact: the 2-D velocity of a body point
        _, _, ax, ay, _, _ = _point(it[e, 3], it[e, 4], ft[e, 0], ft[e, 1], q, v)
        _add_point_row(W, i, it[e, 3], it[e, 4], ax, ay, 1.0, 0.0, 1.0)
        _add_point_row(W, i + 1, it[e, 3], it[e, 4], ax, ay, 0.0, 1.0, 1.0)


@njit(cache=True, _nrt=False, inline="always")
def _force(it, ft, U, e, q, v, f, scratch):
    """Add an applied element's generalized force into ``f``; returns ``(P_applied,
    P_damping, ok)`` (``ok`` False: a spring's or damper's points coincide). ``scratch``
    (1, n_q): a joint coordinate's gradient."""
    kind = it[e, 0]
    if kind == GRAVITY:
        off = it[e, 1]
        f[off] += ft[e, 0]
        f[off + 1] += ft[e, 1]
        return 0.0, 0.0, True
    if kind == SPRING or kind == DAMPER:
        length, rate, ex, ey, aix, aiy, ajx, ajy = _two_point(it, ft, e, q, v)
        if length == 0.0:
            return 0.0, 0.0, False
        spring = kind == SPRING
        Fs = ft[e, 4] * (length - ft[e, 5]) if spring else ft[e, 4] * rate
        _add_point_vector(f, it[e, 3], it[e, 4], ajx, ajy, ex, ey, -Fs)
        _add_point_vector(f, it[e, 1], it[e, 2], aix, aiy, ex, ey, Fs)
        return 0.0, (0.0 if spring else -Fs * rate), True
    if kind == JOINT_DAMPER or kind == JOINT_SPRING:
        n = q.shape[0]
        grad = scratch
        for a in range(n):
            grad[0, a] = 0.0
        x, _ = _coordinate(it, ft, it[e, 1], it[e, 2], q, v, grad, 0)
        rate = 0.0
        for a in range(n):
            rate += grad[0, a] * v[a]
        damper = kind == JOINT_DAMPER
        Fj = -ft[e, 0] * rate if damper else -ft[e, 0] * (x - ft[e, 1])
        for a in range(n):
            f[a] += Fj * grad[0, a]
        return 0.0, (Fj * rate if damper else 0.0), True
    off, nd = it[e, 1], it[e, 2]
    if kind == TORQUE:
        f[off + 2] += U[e, 0]
        return U[e, 0] * v[off + 2], 0.0, True
    Fx, Fy = U[e, 0], U[e, 1]  # FORCE at a body point
    _, _, ax, ay, _, _ = _point(off, nd, ft[e, 0], ft[e, 1], q, v)
    vx, vy = _point_velocity(off, nd, ax, ay, v)
    f[off] += Fx
    f[off + 1] += Fy
    if nd == 3:
        f[off + 2] += ax * Fy - ay * Fx
    return Fx * vx + Fy * vy, 0.0, True


@njit(cache=True, _nrt=False, inline="always")
def _rotor(it, ft, e, q, v, M, f, scratch):
    """A rotor inertia on a translational joint: ``J w w^T`` into ``M`` and its velocity force
    into ``f`` (armature), or ``I_r h h^T`` with ``h = G w + e_parent`` (virtual rotor).
    ``scratch`` (1, n_q): ``h``."""
    n = q.shape[0]
    je = it[e, 1]
    h = scratch
    for a in range(n):
        h[0, a] = 0.0
    _, g = _line(it, ft, je, ft[je, 4], ft[je, 5], q, v, h, 0)  # w, the slot's gradient
    if it[e, 4] == 0:  # armature: h = w
        coef = ft[e, 0]
        extra = ft[e, 0] * g
    else:  # virtual rotor on the parent: h = ratio w + e_parent
        for a in range(n):
            h[0, a] *= ft[e, 1]
        if it[e, 3] == 3:
            h[0, it[e, 2] + 2] += 1.0
        coef = ft[e, 0]
        extra = ft[e, 0] * ft[e, 1] * g
    for a in range(n):
        f[a] += extra * h[0, a]
        for b in range(n):
            M[a, b] += coef * h[0, a] * h[0, b]


@njit(cache=True)
def planar_terms(it, ft, U, M0, n_constraints, n_pairs, t, q, v):
    """Everything an evaluation needs from the model at ``(t, q, v)``.

    Parameters
    ----------
    it : ndarray of int64, shape (n_el, 8)    packed integer table (``PlanarTables.ints``)
    ft : ndarray, shape (n_el, 11)            packed float table
    U : ndarray, shape (n_el, 3)              user functions' values at ``(t, q, v)`` by row:
                                              driver ``f, df/dt, d2f/dt2``; force ``Fx, Fy``;
                                              torque ``T``
    M0 : ndarray, shape (n_q, n_q)            constant mass matrix
    n_constraints, n_pairs : int
    t : float; q, v : ndarray, shape (n_q,)

    Returns
    -------
    M (n_q, n_q), f (n_q,), phi (m,), phi_t (m,), G (m, n_q), gamma (m,), W (p, n_q),
    P_applied, P_damping (float), error row (int, -1 if none), error code (int)
    """
    n = q.shape[0]
    m = n_constraints
    f = np.zeros(n)
    phi = np.zeros(m)
    phi_t = np.zeros(m)
    gamma = np.zeros(m)
    G = np.zeros((m, n))
    W = np.zeros((n_pairs, n))
    # a q-dependent mass matrix (rotor rows): the constant one is not written to
    M = M0.copy() if _has_rotor(it) else M0
    P_applied, P_damping, err_row, err = _terms_into(it, ft, U, t, q, v, M, f, phi, phi_t, G,
                                                     gamma, W, np.zeros((1, n)))
    return M, f, phi, phi_t, G, gamma, W, P_applied, P_damping, err_row, err


@njit(cache=True, _nrt=False)
def _has_rotor(it):
    for e in range(it.shape[0]):
        if it[e, 0] == ROTOR:
            return True
    return False


@njit(cache=True, _nrt=False)
def _terms_into(it, ft, U, t, q, v, M, f, phi, phi_t, G, gamma, W, scratch):
    """The element loop of :func:`planar_terms` into the given (zeroed) arrays, without numba's
    runtime; returns ``(P_applied, P_damping, error row, error code)``."""
    P_applied = 0.0
    P_damping = 0.0
    err_row, err = -1, 0
    for e in range(it.shape[0]):
        kind = it[e, 0]
        if kind <= DRIVER:
            _constraint_rows(it, ft, U, e, t, q, v, phi, phi_t, G, gamma)
        elif kind == PAIR:
            _pair_row(it, ft, e, q, v, W)
        elif kind == ROTOR:
            _rotor(it, ft, e, q, v, M, f, scratch)
        else:
            pa, pd, ok = _force(it, ft, U, e, q, v, f, scratch)
            P_applied += pa
            P_damping += pd
            if not ok and err == 0:
                err_row, err = e, ERR_COINCIDENT
    return P_applied, P_damping, err_row, err


@njit(cache=True)
def planar_bias(it, ft, n_pairs, q, v):
    """``(dW/dt) v``, shape (p_rows,) (``n_pairs``: the rows of ``W``): zero for a revolute
    pair, ``-gamma`` of the slot line for a translational one
    (``Translational.tangential_bias``), ``-omega^2 r`` for a sliding contact."""
    out = np.zeros(n_pairs)
    _bias_into(it, ft, q, v, out, np.zeros((1, q.shape[0])))
    return out


@njit(cache=True)
def planar_potential(it, ft, q):
    """Potential energy of gravity, springs and joint springs (J) at ``q``."""
    return _potential(it, ft, q, np.zeros(q.shape[0]), np.zeros((1, q.shape[0])))


@njit(cache=True)
def planar_potentials(it, ft, Q):
    """:func:`planar_potential` at each row of ``Q`` (k, n_q): shape (k,)."""
    n = Q.shape[1]
    V = np.empty(Q.shape[0])
    v0, scratch = np.zeros(n), np.zeros((1, n))
    for r in range(Q.shape[0]):
        V[r] = _potential(it, ft, Q[r], v0, scratch)
    return V


@njit(cache=True)
def planar_slot_displacement(it, ft, e, q):
    """The slider's displacement along the slot of translational element ``e`` (m)."""
    n = q.shape[0]
    return _line(it, ft, e, ft[e, 4], ft[e, 5], q, np.zeros(n), np.zeros((1, n)), 0)[0]


# ------------------------------------------------------------------------------ acceleration stage


@njit(cache=True)
def planar_evaluate(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out):
    """One whole evaluation of a planar model in a smooth phase (modes and faces fixed): the
    terms, then the acceleration stage, in one call (:func:`_evaluate_into` in a workspace made
    here; the general path where it needs LAPACK). Returns the status of
    :func:`acceleration_stage`, or ``COINCIDENT`` (a spring's points; its row in ``out[0]``) or
    ``NONFINITE`` (a user function's value in ``U`` is NaN or infinite).
    """
    ws, iw = workspace(it, plan)
    return _evaluate(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw)


@njit(cache=True, inline="always")
def _evaluate(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw):
    """:func:`_evaluate_into`, or the general path where it needs LAPACK (inlined into the
    caller: no call boundary, no reference counts on the runtime-free path)."""
    status = _evaluate_into(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw)
    if status == GENERAL:
        status = _planar_evaluate_general(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out)
    return status


@njit(cache=True)
def _planar_evaluate_general(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out):
    """The general path of :func:`planar_evaluate` (allocating; LAPACK for a large system and
    the eigenvalue certificate): :func:`planar_terms`, then :func:`acceleration_stage`."""
    for e in range(U.shape[0]):  # a user function's NaN/inf: the caller names the function
        for j in range(U.shape[1]):
            if not np.isfinite(U[e, j]):
                return NONFINITE
    m, p = int(plan[H_M]), int(plan[H_P])
    p_rows = plan_rows(plan)
    plan = _given_normal_forces(it, U, plan, p)
    M, f, phi, phi_t, G, gamma, W, P_applied, P_damping, err_row, err = planar_terms(
        it, ft, U, M0, m, p_rows, t, q, v)
    if err:
        out[0] = err_row
        return COINCIDENT
    stuck = False
    for i in range(p):
        stuck |= modes[i] == 0.0
    bias = planar_bias(it, ft, p_rows, q, v) if stuck else np.zeros(p_rows)
    return acceleration_stage(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan,
                              Wt, v, z, modes, faces, out)


@njit(cache=True, _nrt=False, inline="always")
def _pair_of_row(plan, p, w):
    """The pair whose first row of ``W`` is ``w`` (a PAIR row's ``it[e, 1]``): ``w`` itself
    when every pair is scalar, else looked up in the plan's ``w_row`` block."""
    p_rows = plan_rows(plan)
    if p_rows == p:
        return w
    o_wrow = vector_offsets(p, int(plan[H_K]), int(plan[H_M]), p_rows)[2]
    for i in range(p):
        if int(plan[o_wrow + i]) == w:
            return i
    return -1  # pragma: no cover - every PAIR row is a pair's


@njit(cache=True, inline="always")
def _given_normal_forces(it, U, plan, p):
    """The plan with each given normal force ``max(N(t), 0)`` (a clutch's, read from its
    PAIR row in ``U``) as its pair's preload (a copy; the plan itself when there are none)."""
    copied = False
    for e in range(it.shape[0]):
        if it[e, 0] == PAIR and it[e, 7] == 1:
            if not copied:
                plan = plan.copy()
                copied = True
            plan[N_HEADER + p + _pair_of_row(plan, p, it[e, 1])] = max(U[e, 0], 0.0)
    return plan


# ------------------------------------------------------------------ the runtime-free evaluation


@njit(cache=True)
def workspace(it, plan):
    """The arrays of every evaluation of a planar model, made once by the caller of
    :func:`_evaluate_into` (a phase, a batch of outputs): float64 of the largest layout over the
    number of sticking pairs, plus the loads' right-hand side, a copy of the mass matrix (rotor
    rows) and of the plan (given normal forces), and at its end a phase's scratch rows of ``W``
    (p, n) and user values ``U`` (n_el, 3; zeroed); int64 (p,) the
    slipping and sticking pairs."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                           int(plan[H_NZ]))
    p_rows = plan_rows(plan)
    largest = _largest_stage(n, m, p, k, n_z, p_rows)
    tail = p_rows * n + 3 * it.shape[0]
    ws = np.empty(_terms_size(n, m, p_rows) + n * n + plan.size + largest + k + tail)
    ws[ws.size - tail:] = 0.0
    return ws, np.empty(stage_ints(n, m, p_rows), dtype=np.int64)


@njit(cache=True, _nrt=False)
def _rhs_tail(it, ft, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw):
    """:func:`_rhs_into` with the user values ``U`` (n_el, 3) from the workspace's end."""
    n_el = it.shape[0]
    U = ws[ws.size - 3 * n_el:].reshape(n_el, 3)
    return _rhs_into(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw)


@njit(cache=True, _nrt=False)
def _has_given(it):
    for e in range(it.shape[0]):
        if it[e, 0] == PAIR and it[e, 7] == 1:
            return True
    return False


@njit(cache=True, _nrt=False)
def _bias_into(it, ft, q, v, bias, scratch):
    """:func:`planar_bias` into ``bias`` (p_rows,) without allocating (``scratch`` (1,
    n_q))."""
    for e in range(it.shape[0]):
        if it[e, 0] == PAIR and it[e, 2] == 1:
            je = it[e, 3]
            bias[it[e, 1]] = -_line(it, ft, je, ft[je, 4], ft[je, 5], q, v, scratch, 0)[1]
        elif it[e, 0] == PAIR and it[e, 2] == 3:  # a sliding contact: -omega^2 r
            _, _, ax, ay, w, _ = _point(it[e, 3], it[e, 4], ft[e, 0], ft[e, 1], q, v)
            bias[it[e, 1]] = -w * w * ax
            bias[it[e, 1] + 1] = -w * w * ay


@njit(cache=True, _nrt=False, inline="always")
def _own_mass(it, M0, Mw):
    """The mass matrix the terms add into: ``M0`` itself, or a copy of it in ``Mw`` when rotor
    rows make it depend on ``q``."""
    if not _has_rotor(it):
        return M0
    n = M0.shape[0]
    for a in range(n):
        for b in range(n):
            Mw[a, b] = M0[a, b]
    return Mw


@njit(cache=True, _nrt=False, inline="always")
def _own_plan(it, U, plan, pw):
    """The plan, or a copy of it in ``pw`` with each given normal force ``max(N(t), 0)`` (a
    clutch's, from its PAIR row in ``U``) as its pair's preload."""
    if not _has_given(it):
        return plan
    p = int(plan[H_P])
    for i in range(plan.size):
        pw[i] = plan[i]
    for e in range(it.shape[0]):
        if it[e, 0] == PAIR and it[e, 7] == 1:
            pw[N_HEADER + p + _pair_of_row(plan, p, it[e, 1])] = max(U[e, 0], 0.0)
    return pw


@njit(cache=True, _nrt=False)
def _evaluate_into(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw):
    """:func:`_planar_evaluate_general` without numba's runtime, in the workspace ``ws, iw``
    (:func:`workspace`): every array a view into it, zeroed here, no reference counts. The same
    arithmetic: :func:`_terms_into`, then :func:`_stage_body`. Returns the same statuses, or
    ``GENERAL`` for a system above :data:`SMALL_LU` or a load equation the bound does not
    certify (the caller then takes the general path).

    Workspace layout (float64): ``f (n), phi, phi_t, gamma (m), G (m, n), W (p_rows, n),
    scratch (1, n), bias (p_rows)`` (zeroed), ``M (n, n), plan``, then the stage's
    (:func:`_stage_body`)."""
    if not _all_finite(U):  # a user function's NaN/inf: the caller names the function
        return NONFINITE
    n, m = int(plan[H_N]), int(plan[H_M])
    p_rows = plan_rows(plan)
    nk, ns = _stick_counts(plan, modes, p_rows)
    if n + m + nk > SMALL_LU:
        return GENERAL
    zeroed = _terms_size(n, m, p_rows)
    for i in range(zeroed):
        ws[i] = 0.0
    f = ws[:n]
    phi, phi_t, gamma = ws[n:n + m], ws[n + m:n + 2 * m], ws[n + 2 * m:n + 3 * m]
    o = n + 3 * m
    G = ws[o:o + m * n].reshape(m, n)
    o += m * n
    W = ws[o:o + p_rows * n].reshape(p_rows, n)
    o += p_rows * n
    scratch = ws[o:o + n].reshape(1, n)
    bias = ws[o + n:o + n + p_rows]
    M = _own_mass(it, M0, ws[zeroed:zeroed + n * n].reshape(n, n))
    o = zeroed + n * n
    plan_ = _own_plan(it, U, plan, ws[o:o + plan.size])
    P_applied, P_damping, err_row, err = _terms_into(it, ft, U, t, q, v, M, f, phi, phi_t, G,
                                                     gamma, W, scratch)
    if err:
        out[0] = err_row
        return COINCIDENT
    if nk:
        _bias_into(it, ft, q, v, bias, scratch)
    return _stage_body(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan_, Wt, v, z,
                       modes, faces, out, ws[o + plan.size:], iw, nk, ns, p_rows)


@njit(cache=True, _nrt=False)
def _potential(it, ft, q, v0, scratch):
    """:func:`planar_potential` without allocating (``v0`` zeros (n_q,), ``scratch`` (1, n_q))."""
    V = 0.0
    for e in range(it.shape[0]):
        kind = it[e, 0]
        if kind == GRAVITY:
            off = it[e, 1]
            V -= ft[e, 0] * q[off] + ft[e, 1] * q[off + 1]
        elif kind == SPRING:
            length = _two_point(it, ft, e, q, v0)[0]
            V += 0.5 * ft[e, 4] * (length - ft[e, 5]) ** 2
        elif kind == JOINT_SPRING:
            for a in range(q.shape[0]):
                scratch[0, a] = 0.0
            x, _ = _coordinate(it, ft, it[e, 1], it[e, 2], q, v0, scratch, 0)
            V += 0.5 * ft[e, 0] * (x - ft[e, 1]) ** 2
    return V


@njit(cache=True, _nrt=False)
def _energies(it, ft, M0, plan, q, v, row, size, v0, scratch):
    """A batch row's kinetic and potential energy (J) into ``row[size], row[size + 1]``."""
    n = q.shape[0]
    M = row[size - n * n:size].reshape(n, n) if plan[H_STATE_MASS] != 0.0 else M0
    kinetic = 0.0
    for a in range(n):
        acc = 0.0
        for b in range(n):
            acc += M[a, b] * v[b]
        kinetic += v[a] * acc
    row[size] = 0.5 * kinetic
    row[size + 1] = _potential(it, ft, q, v0, scratch)


@njit(cache=True, _nrt=False)
def _batch_into(it, ft, U, M0, plan, Wt, ts, Q, V, Z, modes, faces, out, ws, iw, first, pw):
    """The rows ``first, ...`` of :func:`planar_evaluate_batch` without numba's runtime, until
    the end or the first row that is not ``OK`` (``GENERAL`` included): ``(row, status)``."""
    n = Q.shape[1]
    size = out.shape[1] - 2
    for r in range(first, ts.shape[0]):
        row = out[r]
        status = _evaluate_into(it, ft, U[r], M0, plan, Wt, ts[r], Q[r], V[r], Z[r], modes,
                                faces, row[:size], ws, iw)
        if status != OK:
            return r, status
        _energies(it, ft, M0, plan, Q[r], V[r], row, size, pw[:n], pw[n:].reshape(1, n))
    return -1, OK


@njit(cache=True)
def planar_evaluate_batch(it, ft, U, M0, plan, Wt, ts, Q, V, Z, modes, faces, out):
    """:func:`planar_evaluate` at the ``k`` output times of a phase at once (one call instead of
    ``k``): ``ts`` (k,), ``Q, V`` (k, n_q), ``U`` (k, n_el, 3) the user functions' values;
    ``out`` (k, size + 2): each row's outputs, then its kinetic and potential energy (J).
    Returns ``(row, status)`` of the first row that is not ``OK`` (``(-1, OK)`` if none)."""
    n = Q.shape[1]
    size = out.shape[1] - 2
    ws, iw = workspace(it, plan)
    pw = np.zeros(2 * n)
    first = 0
    while True:
        row, status = _batch_into(it, ft, U, M0, plan, Wt, ts, Q, V, Z, modes, faces, out, ws,
                                  iw, first, pw)
        if status != GENERAL:
            return row, status
        status = _planar_evaluate_general(it, ft, U[row], M0, plan, Wt, ts[row], Q[row], V[row],
                                          Z[row], modes, faces, out[row, :size])
        if status != OK:
            return row, status
        _energies(it, ft, M0, plan, Q[row], V[row], out[row], size, pw[:n],
                  pw[n:].reshape(1, n))
        first = row + 1


# ------------------------------------------------------------------------------ fixed-step stepper


@njit(cache=True, _nrt=False)
def _rhs_into(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw):
    """``dy/dt`` by :func:`_evaluate_into` (statuses as there, ``GENERAL`` included)."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                           int(plan[H_NZ]))
    o_v, o_work, o_z = state_offsets(n, n)  # y = [q | v | work | z] (core.layout)
    status = _evaluate_into(it, ft, U, M0, plan, Wt, t, y[:o_v], y[o_v:o_work], y[o_z:o_z + n_z],
                            modes, faces, out, ws, iw)
    if status == OK:
        _derivative(y, out, dy, n, m, p, k, n_z, plan_rows(plan))
    return status


@njit(cache=True)
def _planar_rhs_general(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy):
    """``dy/dt`` by the general path (:func:`_planar_evaluate_general`)."""
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                           int(plan[H_NZ]))
    o_v, o_work, o_z = state_offsets(n, n)  # y = [q | v | work | z] (core.layout)
    status = _planar_evaluate_general(it, ft, U, M0, plan, Wt, t, y[:o_v], y[o_v:o_work],
                                      y[o_z:o_z + n_z], modes, faces, out)
    if status == OK:
        _derivative(y, out, dy, n, m, p, k, n_z, plan_rows(plan))
    return status


@njit(cache=True, inline="always")
def _planar_dy(it, ft, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw):
    """``dy/dt`` with the user values ``U`` from the workspace's end (:func:`_rhs_tail`), or
    the general path where it needs LAPACK (the compiled phases' right-hand side)."""
    status = _rhs_tail(it, ft, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw)
    if status == GENERAL:
        n_el = it.shape[0]
        status = _planar_rhs_general(it, ft, ws[ws.size - 3 * n_el:].reshape(n_el, 3), M0, plan,
                                     Wt, t, y, modes, faces, out, dy)
    return status


@njit(cache=True, inline="always")
def _planar_rhs(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw):
    """``dy/dt`` of the integrated state ``y = [q, v, work (5), z]`` (``out`` keeps the
    evaluation): :func:`_rhs_into`, or the general path where it needs LAPACK. Returns the
    status."""
    status = _rhs_into(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw)
    if status == GENERAL:
        status = _planar_rhs_general(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy)
    return status
