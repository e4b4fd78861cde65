"""Compiled kernels over the planar tables (``docs/fast_core.md``, :mod:`nonsmooth.tables`).

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
6; they are those of :mod:`nonsmooth.joints` and :mod:`nonsmooth.forces`, element by element
(``tests/test_kernels.py`` compares the two).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import compile_notice, prebuilt
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

# before any kernel below is called: numba's cache seeded from the shipped one, and a notice when
# numba compiles instead of loading
prebuilt.seed("nonsmooth")
prebuilt.seed("nonsmooth/models")
compile_notice.install()

__all__ = ["planar_terms", "planar_bias", "planar_potential", "planar_slot_displacement",
           "planar_evaluate", "planar_evaluate_batch", "acceleration_stage", "evaluation_layout",
           "planar_fixed_step",
           "ERR_COINCIDENT", "warm"]

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


@njit(cache=True, _nrt=False)
def _dot(a, b):
    """``a . b`` of two short vectors by a loop (a BLAS call costs more than it computes)."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@njit(cache=True)
def _matvec(A, x):
    """``A x`` for a small matrix by loops (no BLAS call)."""
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc
    return out


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


_WARM: set = set()

#: The kernels a use needs, by family: a planar model (its terms, evaluation and outputs), its
#: compiled DOP853 phases, its compiled fixed steps, and any other system (the acceleration stage
#: alone). Each is loaded when first needed: a cached kernel's load costs 30-50 ms.
FAMILIES = {"planar": ("planar_terms", "planar_bias", "planar_potential",
                       "planar_slot_displacement", "planar_evaluate", "planar_evaluate_batch"),
            "dop853": ("planar_dop853_phase",),
            "fixed": ("planar_fixed_step", "planar_fixed_phase", "planar_potentials"),
            "stage": ("acceleration_stage",)}


def _warm_calls():
    """One call per kernel with arguments of the types the engine passes (so that the
    signature compiled or loaded here is the one used)."""
    it = np.zeros((0, 8), dtype=np.int64)
    ft = np.zeros((0, 11))
    q = np.zeros(1)
    e0 = np.zeros(0)
    plan = np.zeros(N_HEADER)
    z2 = np.zeros((0, 1))
    y7 = np.zeros(7)  # n = 1: [q, v, work (5)]
    plan1 = np.zeros(N_HEADER + 1)
    plan1[0] = 1.0
    return {
        "planar_terms": lambda: planar_terms(it, ft, np.zeros((0, 3)), np.eye(1), 0, 0, 0.0, q,
                                             q),
        "planar_bias": lambda: planar_bias(it, ft, 0, q, q),
        "planar_potential": lambda: planar_potential(it, ft, q),
        "planar_slot_displacement": lambda: planar_slot_displacement(
            np.zeros((1, 8), dtype=np.int64), np.zeros((1, 11)), 0, q),
        "planar_evaluate": lambda: planar_evaluate(it, ft, np.zeros((0, 3)), np.eye(1), plan,
                                                   np.zeros((0, 0)), 0.0, q, q, e0, e0, e0,
                                                   np.zeros(32)),
        "acceleration_stage": lambda: acceleration_stage(np.eye(1), q, e0, e0, z2, e0, z2, e0,
                                                         0.0, 0.0, plan, np.zeros((0, 0)), q,
                                                         e0, e0, e0, np.zeros(32)),
        "planar_evaluate_batch": lambda: planar_evaluate_batch(
            it, ft, np.zeros((1, 0, 3)), np.eye(1), plan, np.zeros((0, 0)), np.zeros(1),
            np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 0)), e0, e0, np.zeros((1, 34))),
        "planar_dop853_phase": lambda: _warm_dop853(it, ft, plan1, y7),
        "planar_fixed_step": lambda: planar_fixed_step(
            it, ft, np.eye(1), plan1, np.zeros((0, 0)), 0.0, y7, y7, 0.0, 0.0, e0, e0, True,
            y7.copy(), y7.copy(), np.zeros(40)),
        "planar_fixed_phase": lambda: _warm_fixed_phase(it, ft, plan1, y7),
        "planar_potentials": lambda: planar_potentials(it, ft, np.zeros((1, 1))),
    }


def _warm_fixed_phase(it, ft, plan1, y7):
    """:func:`nonsmooth.fixed_step.planar_fixed_phase` with the argument types
    ``simulate._compiled_fixed_phase`` passes (a call that pauses at once)."""
    from .fixed_step import planar_fixed_phase

    e0, i0 = np.zeros(0), np.zeros(0, dtype=np.int64)
    Wt = np.zeros((0, 0))
    ctx = (it, ft, np.eye(1), plan1, Wt, *workspace(it, plan1))
    planar_fixed_phase(ctx, plan1, e0, e0, i0, i0, e0, e0, np.zeros(1), np.zeros(1),
                       np.zeros(9, dtype=np.int64), np.zeros(4), y7.copy(), y7.copy(), e0.copy(),
                       np.zeros(0, dtype=np.int8), np.zeros(1), np.zeros((1, 7)),
                       np.zeros((1, 40)))


def _warm_dop853(it, ft, plan1, y7):
    """:func:`nonsmooth.dop853.planar_dop853_phase` with the argument types
    ``simulate._compiled_phase`` passes (a phase that is already at its end)."""
    from .dop853 import coefficients, extended_plan, planar_dop853_phase

    e0, i0 = np.zeros(0), np.zeros(0, dtype=np.int64)
    plan1 = extended_plan(plan1[:N_HEADER], -1, np.inf)
    planar_dop853_phase(it, ft, np.eye(1), plan1, np.zeros((1, 0)), e0, e0, i0, i0, e0, e0, 0.0,
                        0.0, 1e-3, np.ones(7), np.inf, np.zeros(1), 1, np.array([0.0, 1.0, 0.0]),
                        y7.copy(), y7.copy(), e0.copy(), np.zeros(0, dtype=np.int8),
                        np.zeros((1, 7)), 100, 100, *coefficients(), np.zeros(40), i0)


def warm(family: str | None = None) -> None:
    """Load (or, the first time on a machine, compile) the kernels of a family (``"planar"``,
    ``"dop853"``, ``"fixed"``, ``"stage"``; None: all) once per process.

    Loading from numba's on-disk cache (seeded from the package's shipped cache,
    :mod:`nonsmooth.prebuilt`) takes a fraction of a second; a compilation (another numba
    version, a native CPU, an edited kernel) takes about a minute and is announced on stderr
    when numba starts it (:mod:`nonsmooth.compile_notice`)."""
    names = [n for fam, members in FAMILIES.items() if family in (None, fam) for n in members]
    names = [n for n in names if n not in _WARM]
    if not names:
        return
    calls = _warm_calls()
    for name in names:
        calls[name]()
        _WARM.add(name)


# ------------------------------------------------------------------------------ acceleration stage
#: Status codes of :func:`planar_evaluate` and :func:`acceleration_stage`.
OK, SINGULAR, JAMMED, COINCIDENT, UNCERTIFIED, NONFINITE, NO_LOAD = 0, 1, 2, 3, 4, 5, 6
#: Internal status of the runtime-free evaluation (:func:`_evaluate_into`): the evaluation needs
#: the general path (LAPACK: a large system, or a load equation certified by its eigenvalues).
GENERAL = 7

#: KKT systems up to this size are solved by :func:`_lu_solve` (no LAPACK call overhead);
#: larger ones by LAPACK (``np.linalg.solve``).
SMALL_LU = 32

#: Friction-law kinds of the plan and the width of each pair's law parameters.
COULOMB, LUGRE, REGULARIZED = 0, 1, 2
N_LAW = 8
#: Header entries of the plan: n, m, p, k, state_mass, 2 alpha, beta^2, jam margin, n_z, radial.
N_HEADER = 10
#: Fixed-point iterations of a revolute pin's radial load, and their tolerance.
LOAD_ITERATIONS = 100


@njit(cache=True, _nrt=False, inline="always")
def _pivot(K, R, col):
    """Partial pivoting for column ``col``: swap the row of the largest entry into place.
    Returns False for a zero (or NaN) pivot."""
    size = K.shape[0]
    piv = col
    best = abs(K[col, col])
    for r in range(col + 1, size):
        if abs(K[r, col]) > best:
            best = abs(K[r, col])
            piv = r
    if not best > 0.0:  # zero, or NaN
        return False
    if piv != col:
        for j in range(size):
            K[col, j], K[piv, j] = K[piv, j], K[col, j]
        for j in range(R.shape[1]):
            R[col, j], R[piv, j] = R[piv, j], R[col, j]
    return True


@njit(cache=True, _nrt=False)
def _lu_solve(K, R):
    """Solve ``K X = R`` in place (``R`` becomes ``X``; ``K`` is overwritten) by Gaussian
    elimination with partial pivoting, as LAPACK's dgesv does. Returns False for an exactly
    zero pivot (a singular matrix) or a non-finite one (NaN input), True otherwise."""
    size = K.shape[0]
    nr = R.shape[1]
    for col in range(size):
        if not _pivot(K, R, col):
            return False
        d = K[col, col]
        for r in range(col + 1, size):
            f = K[r, col] / d
            if f != 0.0:
                for j in range(col + 1, size):
                    K[r, j] -= f * K[col, j]
                for j in range(nr):
                    R[r, j] -= f * R[col, j]
    for col in range(size - 1, -1, -1):
        d = K[col, col]
        for j in range(nr):
            acc = R[col, j]
            for c in range(col + 1, size):
                acc -= K[col, c] * R[c, j]
            R[col, j] = acc / d
    return True


@njit(cache=True)
def _is_diagonal(M):
    n = M.shape[0]
    for a in range(n):
        for b in range(n):
            if a != b and M[a, b] != 0.0:
                return False
    return True


@njit(cache=True)
def _schur_solve(M, K, R, n):
    """``K X = R`` for ``K = [[M, -C^T], [C, 0]]`` with a diagonal ``M`` (a large planar
    model): through the Delassus matrix ``D = C M^-1 C^T`` (``lambda = D^-1 (r2 - C M^-1 r1)``,
    ``dv = M^-1 (r1 + C^T lambda)``). ``C`` is sparse (a row touches the coordinates of two
    bodies): ``D``, the right-hand side and ``dv`` are formed coordinate by coordinate over the
    rows that touch it, and only ``D``'s solve is dense (LAPACK). Raises LinAlgError (from the
    solve) when ``D`` is singular: redundant constraints."""
    mr = K.shape[0] - n
    ncol = R.shape[1]
    D = np.zeros((mr, mr))
    rhs = R[n:].copy()
    touching = np.empty(mr, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for b in range(n):
        cnt = _rows_touching(K, n, b, touching)
        counts[b] = cnt
        mb = 1.0 / M[b, b]
        for a in range(cnt):
            ra = touching[a]
            ca = K[n + ra, b] * mb
            for c in range(cnt):
                D[ra, touching[c]] += ca * K[n + touching[c], b]
            for j in range(ncol):
                rhs[ra, j] -= ca * R[b, j]
    lam = np.linalg.solve(D, rhs)
    X = np.empty_like(R)
    X[n:] = lam
    for b in range(n):
        mb = 1.0 / M[b, b]
        for j in range(ncol):
            X[b, j] = R[b, j]
        if counts[b]:
            cnt = _rows_touching(K, n, b, touching)
            for a in range(cnt):
                ca = K[n + touching[a], b]
                for j in range(ncol):
                    X[b, j] += ca * lam[touching[a], j]
        for j in range(ncol):
            X[b, j] *= mb
    return X


@njit(cache=True, _nrt=False)
def _rows_touching(K, n, b, touching):
    """The rows ``r`` of ``C = K[n:, :n]`` with ``C[r, b] != 0`` into ``touching``; returns
    their number."""
    cnt = 0
    for r in range(K.shape[0] - n):
        if K[n + r, b] != 0.0:
            touching[cnt] = r
            cnt += 1
    return cnt


@njit(cache=True, _nrt=False)
def _smooth_law(kind, par, v_T, z):
    """Coefficients ``(a, b)`` of ``F_T = -a N - b`` and the state rate ``dz/dt`` of a smooth
    law (``friction/lugre.py``, ``friction/regularized.py``; ``par``: see ``Dynamics``' plan)."""
    if kind == LUGRE:
        lo, gap, v_s, sigma0, sigma1, visc, effect, mu_d = (par[0], par[1], par[2], par[3],
                                                            par[4], par[5], par[6], par[7])
        if effect == 2.0:  # SLIDING: no bristles
            return mu_d * math.tanh(v_T / v_s), visc * v_T, 0.0
        r = v_T / v_s
        g = lo + gap * math.exp(-r * r)
        dz = v_T - sigma0 * abs(v_T) * z / g
        return sigma0 * z + sigma1 * dz, visc * v_T, dz
    coulomb, extra, falloff, stribeck, viscous, normal_load = (par[0], par[1], par[2], par[3],
                                                                par[4], par[5])
    speed = abs(v_T)
    peak = coulomb + extra
    if speed <= falloff:
        dry = peak * math.sin(0.5 * math.pi * speed / falloff)
    elif stribeck > 0:
        r = (speed - falloff) / stribeck
        dry = coulomb + extra * math.exp(-r * r)
    else:
        dry = coulomb
    d = math.copysign(dry, v_T)
    if normal_load != 0.0:
        return d, viscous * v_T, 0.0
    return 0.0, d + viscous * v_T, 0.0


def evaluation_layout(n: int, m: int, p: int, k: int, state_mass: bool, n_z: int = 0) -> dict:
    """Offsets of the outputs in the buffer ``out`` of :func:`acceleration_stage`:
    ``dv (n), lam (m), lambda_N (p), F_T (p), v_T (p), N (p), lam_abs (k), powers (5),
    residual (1), phi (m), dphi (m), A (k*k), c (k), dz (n_z), M (n*n, with a q-dependent
    mass)``."""
    sizes = (("dv", n), ("lam", m), ("lambda_N", p), ("F_T", p), ("v_T", p), ("N", p),
             ("lam_abs", k), ("powers", 5), ("residual", 1), ("phi", m), ("dphi", m),
             ("A", k * k), ("c", k), ("dz", n_z), ("M", n * n if state_mass else 0))
    out, start = {}, 0
    for name, size in sizes:
        out[name] = (start, start + size)
        start += size
    out["size"] = start
    return out


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
    m, p = int(plan[1]), int(plan[2])
    plan = _given_normal_forces(it, U, plan, p)
    M, f, phi, phi_t, G, gamma, W, P_applied, P_damping, err_row, err = planar_terms(
        it, ft, U, M0, m, p, t, q, v)
    if err:
        out[0] = err_row
        return COINCIDENT
    stuck = False
    for i in range(p):
        stuck |= modes[i] == 0.0
    bias = planar_bias(it, ft, p, q, v) if stuck else np.zeros(p)
    return acceleration_stage(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan,
                              Wt, v, z, modes, faces, out)


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
            plan[N_HEADER + p + it[e, 1]] = max(U[e, 0], 0.0)
    return plan


@njit(cache=True, _nrt=False, inline="always")
def _plan_parts(plan):
    """The views of a plan (layout in :func:`acceleration_stage`)."""
    n, m, p, k = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3])
    o = N_HEADER
    mu = plan[o:o + p]
    preload = plan[o + p:o + 2 * p]
    law = plan[o + 2 * p:o + 3 * p]
    o += 3 * p
    law_par = plan[o:o + p * N_LAW]
    o += p * N_LAW
    z_at = plan[o:o + p]
    rad_rows = plan[o + p:o + 3 * p]
    abs_rows = plan[o + 3 * p:o + 3 * p + k]
    o += 3 * p + k
    normal_rows = plan[o:o + p]
    driver = plan[o + p:o + p + m]
    return n, m, p, k, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows, driver


@njit(cache=True, _nrt=False, inline="always")
def _kinematics(G, v, phi_t, W, Gv, dphi, v_T):
    """``G v``, ``dphi = G v + phi_t`` and ``v_T = W v`` into the given arrays."""
    for r in range(G.shape[0]):
        acc = 0.0
        for b in range(G.shape[1]):
            acc += G[r, b] * v[b]
        Gv[r] = acc
        dphi[r] = acc + phi_t[r]
    for i in range(W.shape[0]):
        acc = 0.0
        for b in range(W.shape[1]):
            acc += W[i, b] * v[b]
        v_T[i] = acc


@njit(cache=True, _nrt=False, inline="always")
def _friction_laws(mu, law, law_par, z_at, modes, v_T, z, a_all, b_all, dz, slip, stick):
    """Each pair's coefficients ``F_T = -a N - b`` (Coulomb: ``a = mu s``; smooth laws:
    :func:`_smooth_law`) into ``a_all, b_all`` (zeroed by the caller), the smooth laws' state
    rates into ``dz``, and the slipping (or smooth) and sticking pairs into ``slip, stick``
    (sized by the caller: :func:`_count_sticking`)."""
    p = mu.shape[0]
    a, b = 0, 0
    for i in range(p):
        if law[i] == COULOMB:
            a_all[i] = mu[i] * modes[i]
            if modes[i] == 0.0:
                stick[b] = i
                b += 1
                continue
        else:
            zi = z[int(z_at[i])] if z_at[i] >= 0 else 0.0
            a_all[i], b_all[i], rate = _smooth_law(int(law[i]),
                                                   law_par[i * N_LAW:(i + 1) * N_LAW], v_T[i], zi)
            if z_at[i] >= 0:
                dz[int(z_at[i])] = rate
        slip[a] = i
        a += 1


@njit(cache=True, _nrt=False, inline="always")
def _count_sticking(plan, modes):
    """The number of sticking Coulomb pairs (the laws' kinds from the plan)."""
    p = int(plan[2])
    nk = 0
    for i in range(p):
        if plan[N_HEADER + 2 * p + i] == COULOMB and modes[i] == 0.0:
            nk += 1
    return nk


@njit(cache=True, _nrt=False, inline="always")
def _kkt(M, f, phi, gamma, G, W, bias, dphi, v_T, two_a, b2, a_all, b_all, slip, stick, K, R):
    """The KKT matrix with a stick row per sticking pair and its right-hand sides
    ``[f - W^T b, gamma - 2 alpha dphi - beta^2 phi, -(dW/dt) v - 2 alpha v_T]`` and
    ``-a_i W_i^T`` per slipping pair into ``K, R`` (zeroed by the caller)."""
    n, m, ns, nk = M.shape[0], phi.shape[0], slip.shape[0], stick.shape[0]
    p = W.shape[0]
    for a in range(n):
        for b in range(n):
            K[a, b] = M[a, b]
        acc = f[a]
        for i in range(p):
            acc -= W[i, a] * b_all[i]
        R[a, 0] = acc
    for r in range(m):
        for b in range(n):
            K[n + r, b] = G[r, b]
            K[b, n + r] = -G[r, b]
        R[n + r, 0] = gamma[r] - two_a * dphi[r] - b2 * phi[r]
    for r in range(nk):
        i = stick[r]
        for b in range(n):
            K[n + m + r, b] = W[i, b]
            K[b, n + m + r] = -W[i, b]
        R[n + m + r, 0] = -bias[i] - two_a * v_T[i]
    for c_ in range(ns):
        i = slip[c_]
        for b in range(n):
            R[b, 1 + c_] = -a_all[i] * W[i, b]


@njit(cache=True, _nrt=False, inline="always")
def _load_equation(X, abs_rows, Wt, preload, slip, A, c, faces, Kf):
    """``A`` (k, k; zeroed by the caller) and ``c`` (k,) of ``lambda_abs = c + A |lambda_abs|``
    from the KKT solution's columns (the preloads folded into ``c``), and
    ``Kf = I - A diag(faces)``."""
    k = abs_rows.shape[0]
    for r in range(k):
        row = int(abs_rows[r])
        c[r] = X[row, 0]
        for s_ in range(slip.shape[0]):
            c[r] += X[row, 1 + s_] * preload[slip[s_]]
    for s_ in range(slip.shape[0]):  # A = X[abs rows, 1 + s] Wt[slip[s]]: Wt is sparse
        for col in range(k):
            w = Wt[slip[s_], col]
            if w != 0.0:
                for r in range(k):
                    A[r, col] += X[int(abs_rows[r]), 1 + s_] * w
    for r in range(k):
        for col in range(k):
            Kf[r, col] = (1.0 if r == col else 0.0) - A[r, col] * faces[col]


@njit(cache=True)
def _certify(A, Kf, jam):
    """``OK`` when ``lambda = c + A |lambda|`` is certified unique (``rho(|A|) < 1`` or
    ``||A||_2 < 1``) and ``Kf = I - A diag(faces)`` is not within ``jam`` of singular; else
    ``UNCERTIFIED`` or ``JAMMED``."""
    k = A.shape[0]
    if k == 1:
        if not abs(A[0, 0]) < 1.0:
            return UNCERTIFIED
        return JAMMED if Kf[0, 0] < jam else OK
    if k == 0:
        return OK
    # eigenvalues of real matrices may be complex: numba needs a complex argument
    if not np.max(np.abs(np.linalg.eigvals(np.abs(A).astype(np.complex128)))) < 1.0:
        if not np.linalg.norm(A, 2) < 1.0:
            return UNCERTIFIED
    if np.min(np.abs(np.linalg.eigvals(Kf.astype(np.complex128)))) < jam:
        return JAMMED
    return OK


@njit(cache=True, _nrt=False, inline="always")
def _radial_loads(x, rad_rows, Rad):
    """Each revolute pin's radial load ``||lambda_radial||`` from ``x`` into ``Rad``; returns
    whether every one changed by at most 1e-12 (relative) from its value in ``Rad``."""
    done = True
    for i in range(Rad.shape[0]):
        if rad_rows[2 * i] >= 0:
            new = math.sqrt(x[int(rad_rows[2 * i])] ** 2 + x[int(rad_rows[2 * i + 1])] ** 2)
            if abs(new - Rad[i]) > 1e-12 * max(1.0, abs(new)):
                done = False
            Rad[i] = new
    return done


@njit(cache=True, _nrt=False, inline="always")
def _load_magnitudes(Kf, c, faces, mag, Kw, rhs):
    """``|lambda_abs| = faces * (I - A diag(faces))^-1 c`` into ``mag`` (``Kf`` is certified
    away from singular: the in-kernel LU on the copies ``Kw, rhs``)."""
    k = c.shape[0]
    if k == 1:
        mag[0] = faces[0] * (c[0] / Kf[0, 0])
    elif k > 1:
        for r in range(k):
            rhs[r, 0] = c[r]
            for col in range(k):
                Kw[r, col] = Kf[r, col]
        _lu_solve(Kw, rhs)
        for r in range(k):
            mag[r] = faces[r] * rhs[r, 0]


@njit(cache=True, _nrt=False, inline="always")
def _loads(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, rad_rows, radial, x, N_slip, c,
           Rad, mag, Kw, rhs):
    """The face-fixed normal loads with the radial loads by fixed-point iteration around them,
    into ``x`` (the KKT solution at the loads), ``N_slip``, ``c`` and ``Rad`` (zeroed by the
    caller); ``mag, Kw, rhs`` scratch of shapes (k,), (k, k), (k, 1). Returns whether the
    iteration converged."""
    k, ns = c_fixed.shape[0], slip.shape[0]
    if radial:  # start: the loads without friction
        _radial_loads(X[:, 0], rad_rows, Rad)
    for _ in range(LOAD_ITERATIONS):
        for r in range(k):
            c[r] = c_fixed[r]
            for s_ in range(ns):
                c[r] += X[int(abs_rows[r]), 1 + s_] * Rad[slip[s_]]
        _load_magnitudes(Kf, c, faces, mag, Kw, rhs)
        for s_ in range(ns):
            i = slip[s_]
            acc = preload[i] + Rad[i]
            for r in range(k):
                acc += Wt[i, r] * mag[r]
            N_slip[s_] = acc
        for r in range(x.shape[0]):
            acc = X[r, 0]
            for s_ in range(ns):
                acc += X[r, 1 + s_] * N_slip[s_]
            x[r] = acc
        if not radial or _radial_loads(x, rad_rows, Rad):
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _write(out, n, m, p, k, x, normal_rows, N, F_T, v_T, lam_abs, powers, res, phi, dphi, dz,
           M, state_mass):
    """The outputs in the layout of :func:`evaluation_layout` (``A`` and ``c`` are written by
    the caller before the loads, so that a jam can report them)."""
    for i in range(n + m):  # dv, lam
        out[i] = x[i]
    o = n + m
    for i in range(p):
        nr = int(normal_rows[i])
        out[o + i] = x[n + nr] if nr >= 0 else N[i]
        out[o + p + i] = F_T[i]
        out[o + 2 * p + i] = v_T[i]
        out[o + 3 * p + i] = N[i]
    o += 4 * p
    for r in range(k):
        out[o + r] = lam_abs[r]
    o += k
    for r in range(5):
        out[o + r] = powers[r]
    out[o + 5] = res
    o += 6
    for r in range(m):
        out[o + r] = phi[r]
        out[o + m + r] = dphi[r]
    o += 2 * m + k * k + k  # A and c
    for r in range(dz.shape[0]):
        out[o + r] = dz[r]
    o += dz.shape[0]
    if state_mass:
        for a in range(n):
            for b in range(n):
                out[o + a * n + b] = M[a, b]


@njit(cache=True, _nrt=False, inline="always")
def _contact_forces(x, abs_rows, c, A, faces, preload, Rad, Wt, slip, stick, a_all, b_all,
                    N_slip, n, m, lam_abs, N, F_T):
    """From the KKT solution at the loads: the load rows ``lambda_abs`` (k,), each pair's
    normal load ``N`` (p,) and friction force ``F_T`` (p,; zeroed by the caller) into the
    given arrays; returns the HLCP's residual
    ``max |lambda_abs - c - A |lambda_abs|| / max(1, |c|, |lambda_abs|)``."""
    k, p = c.shape[0], N.shape[0]
    scale = 1.0
    for r in range(k):
        lam_abs[r] = x[int(abs_rows[r])]
        scale = max(scale, abs(c[r]), abs(lam_abs[r]))
    for i in range(p):
        acc = preload[i] + Rad[i]
        for r in range(k):
            acc += Wt[i, r] * (faces[r] * lam_abs[r])
        N[i] = acc
    for s_ in range(slip.shape[0]):
        i = slip[s_]
        F_T[i] = -a_all[i] * N_slip[s_] - b_all[i]
    for r in range(stick.shape[0]):
        F_T[stick[r]] = x[n + m + r]
    res = 0.0
    for r in range(k):
        acc = lam_abs[r] - c[r]
        for col in range(k):
            acc -= A[r, col] * abs(lam_abs[col])
        res = max(res, abs(acc))
    return res / scale


@njit(cache=True)
def acceleration_stage(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v,
                       z, modes, faces, out):
    """The acceleration stage of an evaluation in a smooth phase (modes and faces fixed), for
    any system's terms: the KKT system ``[[M, -G^T, -W_s^T], [G, 0, 0], [W_s, 0, 0]]`` with a
    stick row per sticking Coulomb pair, ``1 + p_slip`` right-hand sides, the smooth laws'
    coefficients ``F_T = -a(v_T, z) N - b(v_T, z)`` and state rates, the face-fixed normal
    loads ``lambda_abs = c + A diag(faces) lambda_abs`` (with a revolute pin's radial load
    ``||lambda_radial||`` by fixed-point iteration around them), friction forces and powers,
    written into ``out`` (layout :func:`evaluation_layout`). Returns ``OK``, ``SINGULAR`` (KKT
    matrix), ``JAMMED`` (``I - A diag(faces)`` near singular; ``A, c`` are in ``out``),
    ``UNCERTIFIED`` (the HLCP's uniqueness not certified: the caller takes the general path) or
    ``NO_LOAD`` (the radial load's iteration did not converge).

    ``plan`` (float64) packs the constants (``Dynamics._compile_plan``): the header ``n, m, p,
    k, state_mass, 2 alpha, beta^2, jam margin, n_z, radial``, then ``mu (p), preload (p),
    law kind (p), law parameters (p * 8), state offset (p, -1: none), radial KKT rows (p * 2,
    -1: none), KKT rows of the load rows (k), normal rows (p, -1: none), driver row flags
    (m)``. ``bias`` (p): ``(dW/dt) v`` (read for sticking pairs only); ``Wt`` (p, k): load
    weights; ``z`` (n_z): the smooth laws' states; ``modes`` (p): +1, -1 slip, 0 stick (read
    for Coulomb pairs); ``faces`` (k). The same arithmetic as ``Dynamics._evaluate_general``
    (``docs/method.md`` sections 2-6 and 9).
    """
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    nk = _count_sticking(plan, modes)
    ns = p - nk
    size = n + m + nk
    # every array of the stage allocated here, in six blocks; the stages below make their
    # views and fill them without numba's runtime (no reference counts)
    vec = np.zeros(_scratch_size(m, p, k, n_z, ns, size))
    idx = np.empty(p, dtype=np.int64)
    K = np.zeros((size, size))
    R = np.zeros((size, 1 + ns))
    mats = np.zeros((3, k, k))
    rhs = np.empty((k, 1))
    _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R, nk)
    if size <= SMALL_LU:
        if not _lu_solve(K, R):
            return SINGULAR
        X = R
    elif _is_diagonal(M):
        X = _schur_solve(M, K, R, n)
    else:
        X = np.linalg.solve(K, R)  # raises LinAlgError when singular: the caller names it
    _stage_load_equation(X, plan, Wt, faces, vec, idx, mats, out, m, p, k, n_z, ns, size)
    status = _certify_bound(mats[0], mats[1], plan[7])
    if status == GENERAL:
        status = _certify(mats[0], mats[1], plan[7])
    if status != OK:
        return status
    if not _stage_loads(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats, rhs,
                        out, m, p, k, n_z, ns, size):
        return NO_LOAD
    return OK


@njit(cache=True, _nrt=False, inline="always")
def _scratch_size(m, p, k, n_z, ns, size):
    """Length of the stage's float scratch: ``Gv, dphi (m); v_T, a_all, b_all, Rad, N, F_T,
    (spare) (p); dz (n_z); N_slip (ns); c_fixed, c, mag, lam_abs, (spare) (k); x (size);
    powers (5)``."""
    return 2 * m + 7 * p + n_z + ns + 5 * k + size + 5


@njit(cache=True, _nrt=False, inline="always")
def _views(vec, m, p, k, n_z, ns, size):
    """The stage's scratch vectors as views into ``vec`` (layout :func:`_scratch_size`)."""
    Gv, dphi = vec[:m], vec[m:2 * m]
    o = 2 * m
    v_T, a_all, b_all = vec[o:o + p], vec[o + p:o + 2 * p], vec[o + 2 * p:o + 3 * p]
    Rad, N, F_T = vec[o + 3 * p:o + 4 * p], vec[o + 4 * p:o + 5 * p], vec[o + 5 * p:o + 6 * p]
    o += 7 * p
    dz, N_slip = vec[o:o + n_z], vec[o + n_z:o + n_z + ns]
    o += n_z + ns
    c_fixed, c = vec[o:o + k], vec[o + k:o + 2 * k]
    mag, lam_abs = vec[o + 2 * k:o + 3 * k], vec[o + 3 * k:o + 4 * k]
    o += 5 * k
    x, powers = vec[o:o + size], vec[o + size:o + size + 5]
    return Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x, powers


@njit(cache=True, _nrt=False, inline="always")
def _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, idx, K, R, nk):
    """The stage up to the KKT system (``nk`` sticking pairs): kinematics, friction laws,
    ``K`` and ``R``."""
    (n, m, p, k, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    n_z = int(plan[8])
    ns = p - nk
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, n + m + nk)
    slip, stick = idx[:ns], idx[ns:]
    _kinematics(G, v, phi_t, W, Gv, dphi, v_T)
    _friction_laws(mu, law, law_par, z_at, modes, v_T, z, a_all, b_all, dz, slip, stick)
    _kkt(M, f, phi, gamma, G, W, bias, dphi, v_T, plan[5], plan[6], a_all, b_all, slip, stick,
         K, R)


@njit(cache=True, _nrt=False, inline="always")
def _stage_load_equation(X, plan, Wt, faces, vec, idx, mats, out, m, p, k, n_z, ns, size):
    """The normal loads' equation ``A, c`` (written to ``out`` too, for a jam's report) and
    ``Kf = I - A diag(faces)`` into ``mats[0], mats[1]``."""
    (n, m_, p_, k_, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, size)
    A, Kf = mats[0], mats[1]
    _load_equation(X, abs_rows, Wt, preload, idx[:ns], A, c_fixed, faces, Kf)
    o_A = n + m + 4 * p + k + 6 + 2 * m
    for r in range(k):
        for col in range(k):
            out[o_A + r * k + col] = A[r, col]
        out[o_A + k * k + r] = c_fixed[r]


@njit(cache=True, _nrt=False, inline="always")
def _stage_loads(X, M, phi, P_applied, P_damping, plan, Wt, faces, vec, idx, mats, rhs, out, m,
                 p, k, n_z, ns, size):
    """The stage from the certified loads' equation on: the loads (radial fixed point),
    contact forces, powers, and everything into ``out``. Returns False when the radial
    loads' iteration does not converge."""
    (n, m_, p_, k_, mu, preload, law, law_par, z_at, rad_rows, abs_rows, normal_rows,
     driver) = _plan_parts(plan)
    (Gv, dphi, v_T, a_all, b_all, Rad, N, F_T, dz, N_slip, c_fixed, c, mag, lam_abs, x,
     powers) = _views(vec, m, p, k, n_z, ns, size)
    slip, stick = idx[:ns], idx[ns:]
    A, Kf, Kw = mats[0], mats[1], mats[2]
    if not _loads(X, Kf, c_fixed, abs_rows, Wt, preload, slip, faces, rad_rows, plan[9] != 0.0,
                  x, N_slip, c, Rad, mag, Kw, rhs):
        return False
    o_A = n + m + 4 * p + k + 6 + 2 * m
    for r in range(k):  # the equation of the converged loads
        out[o_A + k * k + r] = c[r]
    res = _contact_forces(x, abs_rows, c, A, faces, preload, Rad, Wt, slip, stick, a_all, b_all,
                          N_slip, n, m, lam_abs, N, F_T)
    P_total, P_drive = 0.0, 0.0
    for r in range(m):
        term = x[n + r] * Gv[r]
        P_total += term
        P_drive += term * driver[r]
    powers[0], powers[1], powers[2] = P_drive, P_applied, P_damping
    powers[3], powers[4] = _dot(F_T, v_T), P_total - P_drive
    _write(out, n, m, p, k, x, normal_rows, N, F_T, v_T, lam_abs, powers, res, phi, dphi, dz, M,
           plan[4] != 0.0)
    return True


# ------------------------------------------------------------------ the runtime-free evaluation
@njit(cache=True, _nrt=False, inline="always")
def _terms_size(n, m, p):
    """Length of the terms' part of a planar workspace (zeroed; layout in
    :func:`_evaluate_into`)."""
    return 2 * n + 3 * m + m * n + p * n + p


@njit(cache=True, _nrt=False, inline="always")
def _stage_size(n, m, p, k, n_z, nk):
    """Length of the part of a stage workspace :func:`_stage_body` zeroes with ``nk`` sticking
    pairs (layout there)."""
    ns, size = p - nk, n + m + nk
    return _scratch_size(m, p, k, n_z, ns, size) + size * size + size * (1 + ns) + 3 * k * k


@njit(cache=True)
def stage_workspace(plan):
    """The arrays of :func:`_stage_into` for a system's plan, made once by its caller: float64
    of the largest layout over the number of sticking pairs plus the loads' right-hand side;
    int64 (p,) the slipping and sticking pairs."""
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    largest = 0
    for nk in range(p + 1):
        largest = max(largest, _stage_size(n, m, p, k, n_z, nk))
    return np.empty(largest + k), np.empty(p, dtype=np.int64)


@njit(cache=True)
def workspace(it, plan):
    """The arrays of every evaluation of a planar model, made once by the caller of
    :func:`_evaluate_into` (a phase, a batch of outputs): float64 of the largest layout over the
    number of sticking pairs, plus the loads' right-hand side, a copy of the mass matrix (rotor
    rows) and of the plan (given normal forces), and at its end a phase's scratch rows of ``W``
    (p, n) and user values ``U`` (n_el, 3; zeroed); int64 (p,) the
    slipping and sticking pairs."""
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    largest = 0
    for nk in range(p + 1):
        largest = max(largest, _stage_size(n, m, p, k, n_z, nk))
    tail = p * n + 3 * it.shape[0]
    ws = np.empty(_terms_size(n, m, p) + n * n + plan.size + largest + k + tail)
    ws[ws.size - tail:] = 0.0
    return ws, np.empty(p, dtype=np.int64)


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
def _certify_bound(A, Kf, jam):
    """:func:`_certify` where a norm decides it, without eigenvalues: ``OK`` when
    ``a = min(||A||_inf, ||A||_1, ||A||_F) < 1`` (``rho(|A|) <= a``, ``||A||_2 <= ||A||_F``)
    and ``1 - a >= jam`` (every eigenvalue of ``Kf = I - A diag(faces)``, ``|faces| <= 1``,
    lies within ``a`` of 1); ``GENERAL`` when the bound does not decide (the eigenvalues do).
    One load row is decided exactly, as :func:`_certify` does."""
    k = A.shape[0]
    if k == 0:
        return OK
    if k == 1:
        if not abs(A[0, 0]) < 1.0:
            return UNCERTIFIED
        return JAMMED if Kf[0, 0] < jam else OK
    row, col, fro = 0.0, 0.0, 0.0
    for r in range(k):
        acc_r, acc_c = 0.0, 0.0
        for c in range(k):
            acc_r += abs(A[r, c])
            acc_c += abs(A[c, r])
            fro += A[r, c] * A[r, c]
        row, col = max(row, acc_r), max(col, acc_c)
    a = min(row, col, math.sqrt(fro))
    if a < 1.0 and 1.0 - a >= jam:
        return OK
    return GENERAL


@njit(cache=True, _nrt=False, inline="always")
def _all_finite(U):
    for e in range(U.shape[0]):
        for j in range(U.shape[1]):
            if not np.isfinite(U[e, j]):
                return False
    return True


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
    p = int(plan[2])
    for i in range(plan.size):
        pw[i] = plan[i]
    for e in range(it.shape[0]):
        if it[e, 0] == PAIR and it[e, 7] == 1:
            pw[N_HEADER + p + it[e, 1]] = max(U[e, 0], 0.0)
    return pw


@njit(cache=True, _nrt=False, inline="always")
def _stage_body(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z, modes,
                faces, out, sw, iw, nk):
    """The acceleration stage (:func:`acceleration_stage`'s arithmetic) without numba's
    runtime, in the stage workspace ``sw, iw`` (:func:`stage_workspace`): the stage's vectors
    (:func:`_scratch_size`), ``K (size, size), R (size, 1 + ns), mats (3, k, k)`` (zeroed
    here), then ``rhs (k, 1)``; the KKT system by the in-kernel LU, the certificate by a norm
    bound (:func:`_certify_bound`); ``nk`` the sticking pairs' number
    (:func:`_count_sticking`). Returns the stage's statuses, or ``GENERAL`` for a system above
    :data:`SMALL_LU` rows or a load equation the bound does not certify."""
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    ns, size = p - nk, n + m + nk
    if size > SMALL_LU:
        return GENERAL
    zeroed = _stage_size(n, m, p, k, n_z, nk)
    for i in range(zeroed):
        sw[i] = 0.0
    n_vec = _scratch_size(m, p, k, n_z, ns, size)
    vec = sw[:n_vec]
    o = n_vec
    K = sw[o:o + size * size].reshape(size, size)
    o += size * size
    R = sw[o:o + size * (1 + ns)].reshape(size, 1 + ns)
    o += size * (1 + ns)
    mats = sw[o:o + 3 * k * k].reshape(3, k, k)
    rhs = sw[zeroed:zeroed + k].reshape(k, 1)
    _stage_kkt(M, f, phi, phi_t, G, gamma, W, bias, plan, v, z, modes, vec, iw, K, R, nk)
    if not _lu_solve(K, R):
        return SINGULAR
    _stage_load_equation(R, plan, Wt, faces, vec, iw, mats, out, m, p, k, n_z, ns, size)
    status = _certify_bound(mats[0], mats[1], plan[7])
    if status != OK:
        return status
    if not _stage_loads(R, M, phi, P_applied, P_damping, plan, Wt, faces, vec, iw, mats, rhs,
                        out, m, p, k, n_z, ns, size):
        return NO_LOAD
    return OK


@njit(cache=True, _nrt=False)
def _stage_into(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z, modes,
                faces, out, sw, iw):
    """:func:`_stage_body` as a call (for a runtime caller: no reference counts inside)."""
    return _stage_body(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan, Wt, v, z,
                       modes, faces, out, sw, iw, _count_sticking(plan, modes))


@njit(cache=True, _nrt=False)
def _evaluate_into(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw):
    """:func:`_planar_evaluate_general` without numba's runtime, in the workspace ``ws, iw``
    (:func:`workspace`): every array a view into it, zeroed here, no reference counts. The same
    arithmetic: :func:`_terms_into`, then :func:`_stage_body`. Returns the same statuses, or
    ``GENERAL`` for a system above :data:`SMALL_LU` or a load equation the bound does not
    certify (the caller then takes the general path).

    Workspace layout (float64): ``f (n), phi, phi_t, gamma (m), G (m, n), W (p, n), scratch
    (1, n), bias (p)`` (zeroed), ``M (n, n), plan``, then the stage's (:func:`_stage_body`)."""
    if not _all_finite(U):  # a user function's NaN/inf: the caller names the function
        return NONFINITE
    n, m, p = int(plan[0]), int(plan[1]), int(plan[2])
    nk = _count_sticking(plan, modes)
    if n + m + nk > SMALL_LU:
        return GENERAL
    zeroed = _terms_size(n, m, p)
    for i in range(zeroed):
        ws[i] = 0.0
    f = ws[:n]
    phi, phi_t, gamma = ws[n:n + m], ws[n + m:n + 2 * m], ws[n + 2 * m:n + 3 * m]
    o = n + 3 * m
    G = ws[o:o + m * n].reshape(m, n)
    o += m * n
    W = ws[o:o + p * n].reshape(p, n)
    o += p * n
    scratch = ws[o:o + n].reshape(1, n)
    bias = ws[o + n:o + n + p]
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
                       modes, faces, out, ws[o + plan.size:], iw, nk)


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
    M = row[size - n * n:size].reshape(n, n) if plan[4] != 0.0 else M0
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
def _derivative(y, out, dy, n, m, p, k, n_z):
    """``dy/dt = [v, dv/dt, powers, dz/dt]`` of the state ``y = [q, v, work (5), z]`` from an
    evaluation's outputs ``out``."""
    o_pow = n + m + 4 * p + k
    o_dz = o_pow + 6 + 2 * m + k * k + k
    zo = 2 * n + 5
    for i in range(n):
        dy[i] = y[n + i]
        dy[n + i] = out[i]
    for i in range(5):
        dy[2 * n + i] = out[o_pow + i]
    for i in range(n_z):
        dy[zo + i] = out[o_dz + i]


@njit(cache=True, _nrt=False)
def _rhs_into(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy, ws, iw):
    """``dy/dt`` by :func:`_evaluate_into` (statuses as there, ``GENERAL`` included)."""
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    zo = 2 * n + 5
    status = _evaluate_into(it, ft, U, M0, plan, Wt, t, y[:n], y[n:2 * n], y[zo:zo + n_z],
                            modes, faces, out, ws, iw)
    if status == OK:
        _derivative(y, out, dy, n, m, p, k, n_z)
    return status


@njit(cache=True)
def _planar_rhs_general(it, ft, U, M0, plan, Wt, t, y, modes, faces, out, dy):
    """``dy/dt`` by the general path (:func:`_planar_evaluate_general`)."""
    n, m, p, k, n_z = int(plan[0]), int(plan[1]), int(plan[2]), int(plan[3]), int(plan[8])
    zo = 2 * n + 5
    status = _planar_evaluate_general(it, ft, U, M0, plan, Wt, t, y[:n], y[n:2 * n],
                                      y[zo:zo + n_z], modes, faces, out)
    if status == OK:
        _derivative(y, out, dy, n, m, p, k, n_z)
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


@njit(cache=True)
def planar_fixed_step(it, ft, M0, plan, Wt, t, y, f0, h, t_next, modes, faces, rk4, y_new,
                      f_new, out):
    """One classical Runge-Kutta (``rk4``) or explicit Euler step of a planar model without user
    functions, in one call: the stages by :func:`_planar_rhs`, then ``dy/dt`` at the step end
    ``t_next`` into ``f_new`` (its whole evaluation kept in ``out``). The same arithmetic as
    ``simulate._rk4_step`` / ``_euler_step``. Returns the status of the first evaluation that is
    not ``OK`` (the caller then takes the Python step, which names the problem)."""
    U = np.zeros((it.shape[0], 3))
    ws, iw = workspace(it, plan)
    if rk4:
        k2 = np.empty_like(y)
        k3 = np.empty_like(y)
        k4 = np.empty_like(y)
        status = _planar_rhs(it, ft, U, M0, plan, Wt, t + 0.5 * h, y + 0.5 * h * f0, modes,
                             faces, out, k2, ws, iw)
        if status != OK:
            return status
        status = _planar_rhs(it, ft, U, M0, plan, Wt, t + 0.5 * h, y + 0.5 * h * k2, modes,
                             faces, out, k3, ws, iw)
        if status != OK:
            return status
        status = _planar_rhs(it, ft, U, M0, plan, Wt, t + h, y + h * k3, modes, faces, out, k4, ws,
                             iw)
        if status != OK:
            return status
        y_new[:] = y + (h / 6.0) * (f0 + 2.0 * (k2 + k3) + k4)
    else:
        y_new[:] = y + h * f0
    return _planar_rhs(it, ft, U, M0, plan, Wt, t_next, y_new, modes, faces, out, f_new, ws, iw)
