"""Compiled kernels of the spatial family over its tables (:mod:`nonsmooth.spatial.tables`).

The same arithmetic as the Python path (:class:`~nonsmooth.spatial.model.SpatialSystem`'s
``terms``: :mod:`~nonsmooth.spatial.primitives`, :mod:`~nonsmooth.spatial.elements`,
:mod:`~nonsmooth.spatial.rotor`), element by element, without numba's runtime
(``_nrt=False``: every array a view into a workspace made once per phase or output block,
:func:`workspace`), followed by the core's acceleration stage
(``core.stage._stage_body_delassus``: the Delassus solve of the block-diagonal mass;
``_stage_body`` for a model whose geared rotor couples two bodies' blocks). The vectors of the
primitives are scalar triples (no allocation). ``tests/spatial/test_spatial_compiled.py``
compares every term and whole runs with the Python path.

State ``y = [q (n_q) | v (6 N) | work (5) | z]`` (``core.layout``), ``q`` the bodies' ``7
N`` coordinates and then the wound joints' winding coordinates (the joints of rotational
springs, ``SpatialSystem``; their positions in ``q`` are the ``ROTSPRING`` rows' ``ints[3]``);
the kinematic map ``dr/dt = u``, ``dp/dt = 1/2 p (x) (0, omega')`` and a winding coordinate's
rate (its joint's ``dtheta/dt``) is written by :func:`_spatial_dy`, the rotation taken of ``p /
|p|`` (a drift of ``|p|`` inside a phase changes no force; the run projects
``p`` at every phase end: ``nonsmooth.family``, obligation 2).

References: Nikravesh, *Computer-Aided Analysis of Mechanical Systems* (1988), ch. 6 and 11;
Haug, *Computer Aided Kinematics and Dynamics of Mechanical Systems* (1989), ch. 9-11.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import prebuilt
from ..core.layout import H_K, H_M, H_N, H_NZ, H_P, H_RADIAL, N_WORK, RADIAL_NORMS
from ..core.linalg import _all_finite
from ..core.stage import (
    COINCIDENT,
    GENERAL,
    NONFINITE,
    O_DZ,
    O_POW,
    OK,
    _stage_body_delassus,
    _stage_body_norms,
    _stage_into,
    _stick_counts,
    acceleration_stage,
    acceleration_stage_norms,
    eval_offsets,
    plan_rows,
    stage_workspace,
)
from .contact_kernels import (
    CONTACT,
    MAX_POINTS,
    VOLUME_BUFFER,
    contact_count,
    contact_potential,
    contact_workspace_size,
    contacts_into,
)
from .tables import (
    CROSSDOT2,
    DOT1,
    DOT2,
    DRIVE_ANGLE,
    DRIVE_DISP,
    FORCE,
    FRIC_SLIDE,
    FRIC_TURN,
    GRAVITY,
    ROTSPRING,
    SPH,
    SPLINE_MOTION,
    SPRING,
    TORQUE,
    USER_MOTION,
    VROTOR,
)

prebuilt.prepare()

__all__ = ["spatial_evaluate", "spatial_evaluate_batch", "spatial_potentials",
           "spatial_contact_potentials", "spatial_element_potentials", "workspace",
           "spatial_terms", "spatial_friction_terms"]

#: Floats per body in the kinematics scratch: ``R`` (9), ``r, u, omega (world), omega'``
_KIN = 21


# --------------------------------------------------------------------------- small algebra
@njit(cache=True, _nrt=False, inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True, _nrt=False, inline="always")
def _rot(kin, i, x, y, z):
    """``R_i (x, y, z)``: body ``i``'s axes to world axes (``kin[i, :9]`` row-major)."""
    k = kin[i]
    return (k[0] * x + k[1] * y + k[2] * z, k[3] * x + k[4] * y + k[5] * z,
            k[6] * x + k[7] * y + k[8] * z)


@njit(cache=True, _nrt=False, inline="always")
def _rot_t(kin, i, x, y, z):
    """``R_i^T (x, y, z)``: world axes to body ``i``'s axes."""
    k = kin[i]
    return (k[0] * x + k[3] * y + k[6] * z, k[1] * x + k[4] * y + k[7] * z,
            k[2] * x + k[5] * y + k[8] * z)


# _vector and _point are calls, not inlined by numba: each is compiled once instead of copied
# (with its 9- or 12-float result) into the ~16 call sites of the joints' rows (a spatial
# model's first compilation ~6 s shorter); LLVM still inlines them, so an evaluation costs the
# same (benchmarks/spatial_evaluation.py). The rows' functions below stay inlined: as calls
# they cost ~5 % of a joints-only evaluation.
@njit(cache=True, _nrt=False)
def _vector(kin, i, hx, hy, hz):
    """A body-fixed vector ``h'`` of body ``i`` (``i = -1``: the ground): ``h, dh/dt`` and
    ``d2h/dt2`` without the angular acceleration, world axes (9 floats)."""
    b = i if i >= 0 else kin.shape[0] - 1
    h0, h1, h2 = _rot(kin, b, hx, hy, hz)
    w0, w1, w2 = kin[b, 15], kin[b, 16], kin[b, 17]
    d0, d1, d2 = _cross(w0, w1, w2, h0, h1, h2)
    e0, e1, e2 = _cross(w0, w1, w2, d0, d1, d2)
    return h0, h1, h2, d0, d1, d2, e0, e1, e2


@njit(cache=True, _nrt=False)
def _point(kin, i, sx, sy, sz):
    """A body point ``s'`` of body ``i`` (the ground: the world point): ``R s'``, ``x``,
    ``dx/dt`` and ``d2x/dt2`` without the accelerations, world axes (12 floats)."""
    b = i if i >= 0 else kin.shape[0] - 1
    s0, s1, s2 = _rot(kin, b, sx, sy, sz)
    w0, w1, w2 = kin[b, 15], kin[b, 16], kin[b, 17]
    d0, d1, d2 = _cross(w0, w1, w2, s0, s1, s2)
    e0, e1, e2 = _cross(w0, w1, w2, d0, d1, d2)
    return (s0, s1, s2, kin[b, 9] + s0, kin[b, 10] + s1, kin[b, 11] + s2,
            kin[b, 12] + d0, kin[b, 13] + d1, kin[b, 14] + d2, e0, e1, e2)


@njit(cache=True, _nrt=False, inline="always")
def _add_angular(G, row, kin, i, c0, c1, c2, sign):
    """``G[row, omega'_i] += sign R_i^T c`` (nothing for the ground)."""
    if i >= 0:
        x, y, z = _rot_t(kin, i, c0, c1, c2)
        G[row, 6 * i + 3] += sign * x
        G[row, 6 * i + 4] += sign * y
        G[row, 6 * i + 5] += sign * z


@njit(cache=True, _nrt=False, inline="always")
def _add_linear(G, row, i, c0, c1, c2, sign):
    if i >= 0:
        G[row, 6 * i] += sign * c0
        G[row, 6 * i + 1] += sign * c1
        G[row, 6 * i + 2] += sign * c2


@njit(cache=True, _nrt=False, inline="always")
def _add_angular_force(f, kin, i, c0, c1, c2):
    """``f[omega'_i] += R_i^T c`` (nothing for the ground)."""
    if i >= 0:
        x, y, z = _rot_t(kin, i, c0, c1, c2)
        f[6 * i + 3] += x
        f[6 * i + 4] += y
        f[6 * i + 5] += z


# --------------------------------------------------------------------------- kinematics
@njit(cache=True, _nrt=False)
def _kinematics(N, q, v, kin):
    """Each body's rotation (of ``p / |p|``), position, velocity and angular velocities into
    ``kin`` (N + 1, :data:`_KIN`); row ``N`` the ground (identity, at rest)."""
    for i in range(N):
        k = kin[i]
        w, x, y, z = q[7 * i + 3], q[7 * i + 4], q[7 * i + 5], q[7 * i + 6]
        norm = math.sqrt(w * w + x * x + y * y + z * z)
        w, x, y, z = w / norm, x / norm, y / norm, z / norm
        k[0] = 1.0 - 2.0 * (y * y + z * z)
        k[1] = 2.0 * (x * y - w * z)
        k[2] = 2.0 * (x * z + w * y)
        k[3] = 2.0 * (x * y + w * z)
        k[4] = 1.0 - 2.0 * (x * x + z * z)
        k[5] = 2.0 * (y * z - w * x)
        k[6] = 2.0 * (x * z - w * y)
        k[7] = 2.0 * (y * z + w * x)
        k[8] = 1.0 - 2.0 * (x * x + y * y)
        for j in range(3):
            k[9 + j] = q[7 * i + j]
            k[12 + j] = v[6 * i + j]
            k[18 + j] = v[6 * i + 3 + j]
        k[15], k[16], k[17] = _rot(kin, i, k[18], k[19], k[20])
    g = kin[N]
    for j in range(_KIN):
        g[j] = 0.0
    g[0] = g[4] = g[8] = 1.0


# --------------------------------------------------------------------------- joint rows
@njit(cache=True, _nrt=False, inline="always")
def _dot1(kin, a, b, fe, o_a, o_b, G, row, sign):
    """A :class:`~nonsmooth.spatial.primitives.Dot1Primitive` of ``h'_a = fe[o_a:o_a + 3]``
    and ``h'_b = fe[o_b:o_b + 3]``: its row added into ``G[row]`` times ``sign``; returns
    ``(value, rate, second derivative without the accelerations)``."""
    a0, a1, a2, ad0, ad1, ad2, add0, add1, add2 = _vector(kin, a, fe[o_a], fe[o_a + 1],
                                                          fe[o_a + 2])
    b0, b1, b2, bd0, bd1, bd2, bdd0, bdd1, bdd2 = _vector(kin, b, fe[o_b], fe[o_b + 1],
                                                          fe[o_b + 2])
    c0, c1, c2 = _cross(a0, a1, a2, b0, b1, b2)
    _add_angular(G, row, kin, a, c0, c1, c2, sign)
    _add_angular(G, row, kin, b, c0, c1, c2, -sign)
    value = a0 * b0 + a1 * b1 + a2 * b2
    rate = ad0 * b0 + ad1 * b1 + ad2 * b2 + a0 * bd0 + a1 * bd1 + a2 * bd2
    second = (add0 * b0 + add1 * b1 + add2 * b2 + 2.0 * (ad0 * bd0 + ad1 * bd1 + ad2 * bd2)
              + a0 * bdd0 + a1 * bdd1 + a2 * bdd2)
    return value, rate, second


@njit(cache=True, _nrt=False, inline="always")
def _dot2(kin, a, b, fe, G, row):
    """A :class:`~nonsmooth.spatial.primitives.Dot2Primitive` (``fe``: ``h'_a, s'_a, s'_b``):
    its row into ``G[row]``; returns ``(value, second derivative without the accelerations)``."""
    h0, h1, h2, hd0, hd1, hd2, hdd0, hdd1, hdd2 = _vector(kin, a, fe[0], fe[1], fe[2])
    (sa0, sa1, sa2, xa0, xa1, xa2, va0, va1, va2, aa0, aa1, aa2) = _point(kin, a, fe[3], fe[4],
                                                                          fe[5])
    (sb0, sb1, sb2, xb0, xb1, xb2, vb0, vb1, vb2, ab0, ab1, ab2) = _point(kin, b, fe[6], fe[7],
                                                                          fe[8])
    d0, d1, d2 = xb0 - xa0, xb1 - xa1, xb2 - xa2
    _add_linear(G, row, a, h0, h1, h2, -1.0)
    _add_linear(G, row, b, h0, h1, h2, 1.0)
    c0, c1, c2 = _cross(h0, h1, h2, d0 + sa0, d1 + sa1, d2 + sa2)
    _add_angular(G, row, kin, a, c0, c1, c2, 1.0)
    c0, c1, c2 = _cross(sb0, sb1, sb2, h0, h1, h2)
    _add_angular(G, row, kin, b, c0, c1, c2, 1.0)
    value = h0 * d0 + h1 * d1 + h2 * d2
    second = (hdd0 * d0 + hdd1 * d1 + hdd2 * d2
              + 2.0 * (hd0 * (vb0 - va0) + hd1 * (vb1 - va1) + hd2 * (vb2 - va2))
              + h0 * (ab0 - aa0) + h1 * (ab1 - aa1) + h2 * (ab2 - aa2))
    return value, second


@njit(cache=True, _nrt=False)
def _crossdot2(kin, a, b, fe, G, row):
    """A :class:`~nonsmooth.spatial.primitives.CrossDot2Primitive` (``fe``: ``h'_a, h'_b,
    s'_a, s'_b``): its row into ``G[row]``; returns ``(value, second derivative without the
    accelerations)`` (not inlined: only a frictional universal joint has it)."""
    a0, a1, a2, ad0, ad1, ad2, add0, add1, add2 = _vector(kin, a, fe[0], fe[1], fe[2])
    b0, b1, b2, bd0, bd1, bd2, bdd0, bdd1, bdd2 = _vector(kin, b, fe[3], fe[4], fe[5])
    (sa0, sa1, sa2, xa0, xa1, xa2, va0, va1, va2, aa0, aa1, aa2) = _point(kin, a, fe[6], fe[7],
                                                                          fe[8])
    (sb0, sb1, sb2, xb0, xb1, xb2, vb0, vb1, vb2, ab0, ab1, ab2) = _point(kin, b, fe[9], fe[10],
                                                                          fe[11])
    d0, d1, d2 = xb0 - xa0, xb1 - xa1, xb2 - xa2
    e0, e1, e2 = vb0 - va0, vb1 - va1, vb2 - va2
    n0, n1, n2 = _cross(a0, a1, a2, b0, b1, b2)
    p0, p1, p2 = _cross(ad0, ad1, ad2, b0, b1, b2)
    q0, q1, q2 = _cross(a0, a1, a2, bd0, bd1, bd2)
    nd0, nd1, nd2 = p0 + q0, p1 + q1, p2 + q2
    p0, p1, p2 = _cross(add0, add1, add2, b0, b1, b2)
    q0, q1, q2 = _cross(ad0, ad1, ad2, bd0, bd1, bd2)
    r0, r1, r2 = _cross(a0, a1, a2, bdd0, bdd1, bdd2)
    ndd0, ndd1, ndd2 = p0 + 2.0 * q0 + r0, p1 + 2.0 * q1 + r1, p2 + 2.0 * q2 + r2
    _add_linear(G, row, a, n0, n1, n2, -1.0)
    _add_linear(G, row, b, n0, n1, n2, 1.0)
    t0, t1, t2 = _cross(b0, b1, b2, d0, d1, d2)
    c0, c1, c2 = _cross(a0, a1, a2, t0, t1, t2)
    u0, u1, u2 = _cross(n0, n1, n2, sa0, sa1, sa2)
    _add_angular(G, row, kin, a, c0 + u0, c1 + u1, c2 + u2, 1.0)
    t0, t1, t2 = _cross(d0, d1, d2, a0, a1, a2)
    c0, c1, c2 = _cross(b0, b1, b2, t0, t1, t2)
    u0, u1, u2 = _cross(sb0, sb1, sb2, n0, n1, n2)
    _add_angular(G, row, kin, b, c0 + u0, c1 + u1, c2 + u2, 1.0)
    value = n0 * d0 + n1 * d1 + n2 * d2
    second = (ndd0 * d0 + ndd1 * d1 + ndd2 * d2 + 2.0 * (nd0 * e0 + nd1 * e1 + nd2 * e2)
              + n0 * (ab0 - aa0) + n1 * (ab1 - aa1) + n2 * (ab2 - aa2))
    return value, second


@njit(cache=True, _nrt=False, inline="always")
def _sph(kin, a, b, fe, G, r0, r1, r2, phi, gamma):
    """A :class:`~nonsmooth.spatial.primitives.SphPrimitive` (``fe``: ``s'_a, s'_b``): its x,
    y, z rows into rows ``r0, r1, r2``."""
    (sa0, sa1, sa2, xa0, xa1, xa2, _, _, _, aa0, aa1, aa2) = _point(kin, a, fe[0], fe[1], fe[2])
    (sb0, sb1, sb2, xb0, xb1, xb2, _, _, _, ab0, ab1, ab2) = _point(kin, b, fe[3], fe[4], fe[5])
    phi[r0], phi[r1], phi[r2] = xb0 - xa0, xb1 - xa1, xb2 - xa2
    gamma[r0], gamma[r1], gamma[r2] = -(ab0 - aa0), -(ab1 - aa1), -(ab2 - aa2)
    for j in range(3):  # column j of s~ R: s x R[:, j]
        rj = r0 if j == 0 else (r1 if j == 1 else r2)
        if a >= 0:
            G[rj, 6 * a + j] -= 1.0
            k = kin[a]
            c0, c1, c2 = _cross(sa0, sa1, sa2, k[j], k[3 + j], k[6 + j])
            G[r0, 6 * a + 3 + j] += c0
            G[r1, 6 * a + 3 + j] += c1
            G[r2, 6 * a + 3 + j] += c2
        if b >= 0:
            G[rj, 6 * b + j] += 1.0
            k = kin[b]
            c0, c1, c2 = _cross(sb0, sb1, sb2, k[j], k[3 + j], k[6 + j])
            G[r0, 6 * b + 3 + j] -= c0
            G[r1, 6 * b + 3 + j] -= c1
            G[r2, 6 * b + 3 + j] -= c2


@njit(cache=True, _nrt=False, inline="always")
def _angle(kin, a, b, fe, G, row):
    """An :class:`~nonsmooth.spatial.primitives.AnglePrimitive` (``fe``: ``f'_a, g'_a,
    f'_b``): its row into ``G[row]``; returns ``(theta, second derivative without the
    accelerations)``."""
    f0, f1, f2, fd0, fd1, fd2, fdd0, fdd1, fdd2 = _vector(kin, a, fe[0], fe[1], fe[2])
    g0, g1, g2, gd0, gd1, gd2, gdd0, gdd1, gdd2 = _vector(kin, a, fe[3], fe[4], fe[5])
    b0, b1, b2, bd0, bd1, bd2, bdd0, bdd1, bdd2 = _vector(kin, b, fe[6], fe[7], fe[8])
    s = g0 * b0 + g1 * b1 + g2 * b2
    c = f0 * b0 + f1 * b1 + f2 * b2
    sd = gd0 * b0 + gd1 * b1 + gd2 * b2 + g0 * bd0 + g1 * bd1 + g2 * bd2
    cd = fd0 * b0 + fd1 * b1 + fd2 * b2 + f0 * bd0 + f1 * bd1 + f2 * bd2
    sdd = (gdd0 * b0 + gdd1 * b1 + gdd2 * b2 + 2.0 * (gd0 * bd0 + gd1 * bd1 + gd2 * bd2)
           + g0 * bdd0 + g1 * bdd1 + g2 * bdd2)
    cdd = (fdd0 * b0 + fdd1 * b1 + fdd2 * b2 + 2.0 * (fd0 * bd0 + fd1 * bd1 + fd2 * bd2)
           + f0 * bdd0 + f1 * bdd1 + f2 * bdd2)
    n2 = c * c + s * s
    gs0, gs1, gs2 = _cross(g0, g1, g2, b0, b1, b2)
    gc0, gc1, gc2 = _cross(f0, f1, f2, b0, b1, b2)
    c0, c1, c2 = (c * gs0 - s * gc0) / n2, (c * gs1 - s * gc1) / n2, (c * gs2 - s * gc2) / n2
    _add_angular(G, row, kin, a, c0, c1, c2, 1.0)
    _add_angular(G, row, kin, b, c0, c1, c2, -1.0)
    second = (c * sdd - s * cdd) / n2 - 2.0 * (c * sd - s * cd) * (c * cd + s * sd) / (n2 * n2)
    return math.atan2(s, c), second


@njit(cache=True, _nrt=False, inline="always")
def _angle_gradient(kin, a, b, fe):
    """An :class:`~nonsmooth.spatial.primitives.AnglePrimitive`'s ``theta`` (rad) and the
    world vector ``c`` of its row (``dtheta/dt = c . (omega_a - omega_b)``, world axes)."""
    ia = a if a >= 0 else kin.shape[0] - 1
    ib = b if b >= 0 else kin.shape[0] - 1
    f0, f1, f2 = _rot(kin, ia, fe[0], fe[1], fe[2])
    g0, g1, g2 = _rot(kin, ia, fe[3], fe[4], fe[5])
    b0, b1, b2 = _rot(kin, ib, fe[6], fe[7], fe[8])
    s = g0 * b0 + g1 * b1 + g2 * b2
    c = f0 * b0 + f1 * b1 + f2 * b2
    n2 = c * c + s * s
    gs0, gs1, gs2 = _cross(g0, g1, g2, b0, b1, b2)
    gc0, gc1, gc2 = _cross(f0, f1, f2, b0, b1, b2)
    return (math.atan2(s, c), (c * gs0 - s * gc0) / n2, (c * gs1 - s * gc1) / n2,
            (c * gs2 - s * gc2) / n2)


@njit(cache=True, _nrt=False, inline="always")
def _deflection(kin, a, b, fe, q, iq):
    """A rotational spring's deflection ``theta - angle0`` and its row's ``c``: ``theta`` the
    joint's geometric angle plus the whole turns its winding coordinate ``q[iq]`` counts
    (``elements.unwrapped``)."""
    theta, c0, c1, c2 = _angle_gradient(kin, a, b, fe)
    turns = round((q[iq] - theta) / (2.0 * math.pi))
    return theta + 2.0 * math.pi * turns - fe[11], c0, c1, c2


@njit(cache=True, _nrt=False, inline="always")
def _n_q(it, N):
    """The length of ``q``: the bodies' ``7 N`` coordinates and the winding coordinates after
    them (the largest position a ``ROTSPRING`` row names, plus one)."""
    n_q = 7 * N
    for e in range(it.shape[0]):
        if it[e, 0] == ROTSPRING:
            n_q = max(n_q, it[e, 3] + 1)
    return n_q


@njit(cache=True, _nrt=False, inline="always")
def _winding_rates(it, ft, kin, dy):
    """Each winding coordinate's rate ``dtheta/dt = c . (omega_a - omega_b)`` (rad/s) into
    ``dy`` at its position (each ``ROTSPRING`` row of a joint writes the same value)."""
    N = kin.shape[0] - 1
    for e in range(it.shape[0]):
        if it[e, 0] == ROTSPRING:
            a, b = it[e, 1], it[e, 2]
            _, c0, c1, c2 = _angle_gradient(kin, a, b, ft[e])
            ia = a if a >= 0 else N
            ib = b if b >= 0 else N
            dy[it[e, 3]] = (c0 * (kin[ia, 15] - kin[ib, 15]) + c1 * (kin[ia, 16] - kin[ib, 16])
                            + c2 * (kin[ia, 17] - kin[ib, 17]))


@njit(cache=True, _nrt=False)
def _spline_motion(it, ft, e, t):
    """``(f, df/dt, d2f/dt2)`` at ``t`` of the piecewise polynomial of driver row ``e``: its
    ``it[e, 5]`` pieces in the ``PIECE`` rows after it (``tables._spline_rows``), the end
    pieces going on outside the breakpoints, or the time wrapped into one period. The piece
    by bisection of the breakpoints, its value and derivatives by Horner's scheme."""
    n = it[e, 5]
    x0 = ft[e + 1, 0]
    if ft[e, 10] != 0.0:  # periodic
        period = ft[e, 9] - x0
        t = x0 + (t - x0) % period
    lo, hi = 0, n - 1  # the last piece whose breakpoint is <= t (the first if none)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ft[e + 1 + mid, 0] <= t:
            lo = mid
        else:
            hi = mid - 1
    row = e + 1 + lo
    s = t - ft[row, 0]
    k = int(ft[e, 11])
    f, df, ddf = ft[row, 1], 0.0, 0.0
    for j in range(1, k + 1):
        ddf = ddf * s + 2.0 * df
        df = df * s + f
        f = f * s + ft[row, 1 + j]
    return f, df, ddf


@njit(cache=True, _nrt=False, inline="always")
def _motion(it, ft, U, e, t):
    """A driver's ``(f, df/dt, d2f/dt2)`` at ``t``: its user values (``U[e]``), its piecewise
    polynomial (:func:`_spline_motion`) or ``initial + speed t``."""
    if it[e, 4] == USER_MOTION:
        return U[e, 0], U[e, 1], U[e, 2]
    if it[e, 4] == SPLINE_MOTION:
        return _spline_motion(it, ft, e, t)
    return ft[e, 9] + ft[e, 10] * t, ft[e, 10], 0.0


# --------------------------------------------------------------------------- forces
@njit(cache=True, _nrt=False, inline="always")
def _point_force(f, kin, i, sx, sy, sz, F0, F1, F2):
    """A world force ``F`` at body point ``s'`` of body ``i``: ``F`` on ``u_i``, ``s' x (R^T
    F)`` on ``omega'_i``; returns the point's velocity (world; zero for the ground)."""
    if i < 0:
        return 0.0, 0.0, 0.0
    b0, b1, b2 = _rot_t(kin, i, F0, F1, F2)
    t0, t1, t2 = _cross(sx, sy, sz, b0, b1, b2)
    f[6 * i] += F0
    f[6 * i + 1] += F1
    f[6 * i + 2] += F2
    f[6 * i + 3] += t0
    f[6 * i + 4] += t1
    f[6 * i + 5] += t2
    k = kin[i]
    c0, c1, c2 = _cross(k[18], k[19], k[20], sx, sy, sz)
    w0, w1, w2 = _rot(kin, i, c0, c1, c2)
    return k[12] + w0, k[13] + w1, k[14] + w2


@njit(cache=True, _nrt=False, inline="always")
def _spring_geometry(kin, it, ft, e):
    """A spring's ``(length, e (3), length rate)``; length 0: its points coincide."""
    a, b = it[e, 1], it[e, 2]
    fe = ft[e]
    (_, _, _, xa0, xa1, xa2, va0, va1, va2, _, _, _) = _point(kin, a, fe[0], fe[1], fe[2])
    (_, _, _, xb0, xb1, xb2, vb0, vb1, vb2, _, _, _) = _point(kin, b, fe[3], fe[4], fe[5])
    d0, d1, d2 = xb0 - xa0, xb1 - xa1, xb2 - xa2
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if length == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0
    e0, e1, e2 = d0 / length, d1 / length, d2 / length
    return length, e0, e1, e2, e0 * (vb0 - va0) + e1 * (vb1 - va1) + e2 * (vb2 - va2)


@njit(cache=True, _nrt=False, inline="always")
def _gyroscopic(bt, N, kin, f):
    """``- omega' x J omega'`` (body axes; no work) into ``f``."""
    for i in range(N):
        k = kin[i]
        w0, w1, w2 = k[18], k[19], k[20]
        J = bt[i]
        j0 = J[1] * w0 + J[2] * w1 + J[3] * w2
        j1 = J[4] * w0 + J[5] * w1 + J[6] * w2
        j2 = J[7] * w0 + J[8] * w1 + J[9] * w2
        c0, c1, c2 = _cross(w0, w1, w2, j0, j1, j2)
        f[6 * i + 3] -= c0
        f[6 * i + 4] -= c1
        f[6 * i + 5] -= c2


@njit(cache=True, _nrt=False, inline="always")
def _constraint_rows(it, ft, U, e, t, kin, phi, phi_t, G, gamma):
    """The rows of a joint primitive or driver (table row ``e``)."""
    kind, a, b, row = it[e, 0], it[e, 1], it[e, 2], it[e, 3]
    fe = ft[e]
    if kind == SPH:
        _sph(kin, a, b, fe, G, row, it[e, 4], it[e, 5], phi, gamma)
        return
    if kind == DOT1:
        value, _, second = _dot1(kin, a, b, fe, 0, 3, G, row, 1.0)
    elif kind == DOT2:
        value, second = _dot2(kin, a, b, fe, G, row)
    elif kind == CROSSDOT2:
        value, second = _crossdot2(kin, a, b, fe, G, row)
    else:  # a driver: its coordinate minus the motion
        if kind == DRIVE_ANGLE:
            value, second = _angle(kin, a, b, fe, G, row)
        else:
            value, second = _dot2(kin, a, b, fe, G, row)
        x, dx, ddx = _motion(it, ft, U, e, t)
        d = value - x
        if kind == DRIVE_ANGLE:  # modulo 2 pi: a crank turns on for ever
            d = math.atan2(math.sin(d), math.cos(d))
        phi[row] = d
        phi_t[row] = -dx
        gamma[row] = ddx - second
        return
    phi[row] = value
    gamma[row] = -second


@njit(cache=True, _nrt=False, inline="always")
def _given(it, ft, U, e, o):
    """A force's or torque's three numbers: its user values or the constant at ``ft[e, o:]``."""
    if it[e, 4] != 0:
        return U[e, 0], U[e, 1], U[e, 2]
    return ft[e, o], ft[e, o + 1], ft[e, o + 2]


@njit(cache=True, _nrt=False, inline="always")
def _applied(it, ft, bt, U, e, N, kin, q, v, f):
    """An applied force element's contribution to ``f`` (table row ``e``). Returns
    ``(P_applied, P_damping, error)``: its powers (W), error 1 for a spring whose points
    coincide."""
    kind, a, b = it[e, 0], it[e, 1], it[e, 2]
    fe = ft[e]
    if kind == GRAVITY:
        for i in range(N):
            m = bt[i, 0]
            f[6 * i] += m * fe[0]
            f[6 * i + 1] += m * fe[1]
            f[6 * i + 2] += m * fe[2]
    elif kind == SPRING:
        length, e0, e1, e2, rate = _spring_geometry(kin, it, ft, e)
        if length == 0.0:
            return 0.0, 0.0, 1
        tension_c = fe[7] * rate
        T = fe[6] * (length - fe[8]) + tension_c
        _point_force(f, kin, a, fe[0], fe[1], fe[2], T * e0, T * e1, T * e2)
        _point_force(f, kin, b, fe[3], fe[4], fe[5], -T * e0, -T * e1, -T * e2)
        return 0.0, -tension_c * rate, 0
    elif kind == FORCE:
        F0, F1, F2 = _given(it, ft, U, e, 3)
        if it[e, 5] != 0:  # body axes
            F0, F1, F2 = _rot(kin, a, F0, F1, F2)
        v0, v1, v2 = _point_force(f, kin, a, fe[0], fe[1], fe[2], F0, F1, F2)
        return F0 * v0 + F1 * v1 + F2 * v2, 0.0, 0
    elif kind == TORQUE:
        T0, T1, T2 = _given(it, ft, U, e, 0)
        if it[e, 5] == 0:  # world axes
            T0, T1, T2 = _rot_t(kin, a, T0, T1, T2)
        f[6 * a + 3] += T0
        f[6 * a + 4] += T1
        f[6 * a + 5] += T2
        k = kin[a]
        return T0 * k[18] + T1 * k[19] + T2 * k[20], 0.0, 0
    elif kind == ROTSPRING:  # tau = -k d - c dtheta/dt about the axis: tau (row of theta)
        d, c0, c1, c2 = _deflection(kin, a, b, fe, q, it[e, 3])
        ia = a if a >= 0 else N
        ib = b if b >= 0 else N
        rate = (c0 * (kin[ia, 15] - kin[ib, 15]) + c1 * (kin[ia, 16] - kin[ib, 16])
                + c2 * (kin[ia, 17] - kin[ib, 17]))
        tau = -fe[9] * d - fe[10] * rate
        _add_angular_force(f, kin, a, tau * c0, tau * c1, tau * c2)
        _add_angular_force(f, kin, b, -tau * c0, -tau * c1, -tau * c2)
        return 0.0, -fe[10] * rate * rate, 0
    elif kind == VROTOR:  # - omega'_a x (I_r s h'_a), s = k . v (rotor.py)
        G_r = fe[6]
        s = G_r * (fe[3] * v[6 * b + 3] + fe[4] * v[6 * b + 4] + fe[5] * v[6 * b + 5])
        s += (1.0 - G_r) * (fe[0] * v[6 * a + 3] + fe[1] * v[6 * a + 4] + fe[2] * v[6 * a + 5])
        k = kin[a]
        c0, c1, c2 = _cross(k[18], k[19], k[20], fe[0], fe[1], fe[2])
        scale = fe[7] * s
        f[6 * a + 3] -= scale * c0
        f[6 * a + 4] -= scale * c1
        f[6 * a + 5] -= scale * c2
    return 0.0, 0.0, 0


@njit(cache=True, _nrt=False)
def _terms_into(it, ft, bt, U, N, t, kin, q, v, f, phi, phi_t, G, gamma):
    """The terms at the kinematics ``kin`` (:func:`_kinematics`; ``q`` for the winding
    coordinates): ``f`` (6 N,) and the rows
    ``phi, phi_t, gamma`` (m,), ``G`` (m, 6 N), all zeroed by the caller. Returns
    ``(P_applied, P_damping, row, error)``: the powers (W), and a spring whose points coincide
    (its table row, error 1)."""
    _gyroscopic(bt, N, kin, f)
    P_applied, P_damping = 0.0, 0.0
    for e in range(it.shape[0]):
        if it[e, 0] <= DRIVE_DISP or it[e, 0] == CROSSDOT2:
            _constraint_rows(it, ft, U, e, t, kin, phi, phi_t, G, gamma)
        else:
            pa, pd, err = _applied(it, ft, bt, U, e, N, kin, q, v, f)
            if err:
                return P_applied, P_damping, e, err
            P_applied += pa
            P_damping += pd
    return P_applied, P_damping, -1, 0


@njit(cache=True, _nrt=False, inline="always")
def _turn_rows(kin, a, b, fe, cols, W, bias, row):
    """A frictional joint's angular rows ``r c_k . (omega_b - omega_a)``, ``c_k = R_a c'_k``
    (``fe``: the columns ``c'_k`` (3 each), ``r`` at ``fe[9]``) into ``W[row + k]`` (zero
    before) and their bias ``r (omega_a x c_k) . (omega_b - omega_a)`` into ``bias[row + k]``
    (``CompiledJointFriction.fill``)."""
    N = kin.shape[0] - 1
    ia = a if a >= 0 else N
    ib = b if b >= 0 else N
    r = fe[9]
    wa0, wa1, wa2 = kin[ia, 15], kin[ia, 16], kin[ia, 17]
    dw0, dw1, dw2 = kin[ib, 15] - wa0, kin[ib, 16] - wa1, kin[ib, 17] - wa2
    for k in range(cols):
        x, y, z = fe[3 * k], fe[3 * k + 1], fe[3 * k + 2]
        c0, c1, c2 = _rot(kin, ia, x, y, z)
        if b >= 0:
            b0, b1, b2 = _rot_t(kin, b, c0, c1, c2)
            W[row + k, 6 * b + 3] = r * b0
            W[row + k, 6 * b + 4] = r * b1
            W[row + k, 6 * b + 5] = r * b2
        if a >= 0:
            W[row + k, 6 * a + 3] -= r * x
            W[row + k, 6 * a + 4] -= r * y
            W[row + k, 6 * a + 5] -= r * z
        e0, e1, e2 = _cross(wa0, wa1, wa2, c0, c1, c2)
        bias[row + k] = r * (e0 * dw0 + e1 * dw1 + e2 * dw2)


@njit(cache=True, _nrt=False)
def _friction_into(it, ft, kin, W, bias):
    """The frictional joints' rows of ``W`` (p_rows, 6 N; zeroed by the caller) and of the
    tangential bias ``(dW/dt) v`` (p_rows,) at the kinematics ``kin`` (the ``FRIC_TURN`` and
    ``FRIC_SLIDE`` rows of the table: ``nonsmooth.spatial.tables``)."""
    for e in range(it.shape[0]):
        kind = it[e, 0]
        if kind == FRIC_TURN:
            _turn_rows(kin, it[e, 1], it[e, 2], ft[e], it[e, 5], W, bias, it[e, 3])
        elif kind == FRIC_SLIDE:
            row = it[e, 3]
            bias[row] = _dot2(kin, it[e, 1], it[e, 2], ft[e], W, row)[1]


@njit(cache=True, _nrt=False)
def _element_potential(it, ft, bt, N, kin, q, V):
    """``V`` (J) plus gravity's and the springs' potential energy at the kinematics ``kin``
    (``q`` for the winding coordinates); ``V`` the contacts' (:func:`contact_potential`) or 0,
    added first. Apart from it, a model without contacts
    compiles none of the contacts' geometry for its energies (:func:`spatial_potentials`)."""
    for e in range(it.shape[0]):
        kind = it[e, 0]
        if kind == GRAVITY:
            for i in range(N):
                k = kin[i]
                V -= bt[i, 0] * (ft[e, 0] * k[9] + ft[e, 1] * k[10] + ft[e, 2] * k[11])
        elif kind == SPRING:
            length = _spring_geometry(kin, it, ft, e)[0]
            V += 0.5 * ft[e, 6] * (length - ft[e, 8]) ** 2
        elif kind == ROTSPRING:
            d = _deflection(kin, it[e, 1], it[e, 2], ft[e], q, it[e, 3])[0]
            V += 0.5 * ft[e, 9] * d * d
    return V


# --------------------------------------------------------------------------- evaluations
@njit(cache=True, _nrt=False, inline="always")
def _rows_written(it, m):
    """The rows the terms write: the stage's ``m`` and any removed as redundant after them
    (``tables.row_targets``)."""
    rows = m
    for e in range(it.shape[0]):
        kind = it[e, 0]
        if (kind <= DRIVE_DISP or kind == CROSSDOT2) and it[e, 3] >= 0:
            rows = max(rows, it[e, 3] + 1)
            if kind == SPH:
                rows = max(rows, max(it[e, 4], it[e, 5]) + 1)
    return rows


@njit(cache=True)
def workspace(it, plan):
    """The arrays of every evaluation of a spatial model, made once by a phase or an output
    block: float64 ``f (n), phi, phi_t, gamma (m), G (m, n)`` (zeroed per evaluation), the
    kinematics ``(N + 1) * 21``, the stage's workspace (``core.stage.stage_workspace``), and
    at its end the user values ``U`` (n_el, 3; where ``core.callbacks.fill_user`` writes
    them); int64 the stage's index workspace. With contacts their part
    (``contact_kernels.contact_workspace_size``) goes before the user values."""
    n, m = int(plan[H_N]), _rows_written(it, int(plan[H_M]))
    N = n // 6
    sw, iw = stage_workspace(plan)
    ws = np.zeros(_terms_size(n, m, plan_rows(plan)) + (N + 1) * _KIN + sw.size
                  + contact_workspace_size(contact_count(it), N) + 3 * it.shape[0])
    return ws, iw


@njit(cache=True, _nrt=False)
def _perturbed_kinematics(N, q, v, qp, kin_p, kin_m):
    """The kinematics at ``q +- h dq/dt`` (the velocities ``v`` held) into ``kin_p``,
    ``kin_m`` (``qp`` (7 N,) a buffer); ``h = 1e-7 max(1e-3, |q|) / |dq/dt|`` (s, at most
    1e-6; ``system.rows_rate_bias``'). Returns ``h``."""
    q_max, dq_max = 1e-3, 1e-12
    for i in range(N):
        qi, vi = 7 * i, 6 * i
        w, x, yy, z = q[qi + 3], q[qi + 4], q[qi + 5], q[qi + 6]
        a, b, c = v[vi + 3], v[vi + 4], v[vi + 5]
        qp[qi], qp[qi + 1], qp[qi + 2] = v[vi], v[vi + 1], v[vi + 2]
        qp[qi + 3] = -0.5 * (x * a + yy * b + z * c)
        qp[qi + 4] = 0.5 * (w * a + yy * c - z * b)
        qp[qi + 5] = 0.5 * (w * b - x * c + z * a)
        qp[qi + 6] = 0.5 * (w * c + x * b - yy * a)
        for j in range(7):
            q_max = max(q_max, abs(q[qi + j]))
            dq_max = max(dq_max, abs(qp[qi + j]))
    h = min(1e-7 * q_max / dq_max, 1e-6)
    for i in range(7 * N):
        qp[i] = q[i] + h * qp[i]
    _kinematics(N, qp, v, kin_p)
    for i in range(7 * N):
        qp[i] = 2.0 * q[i] - qp[i]
    _kinematics(N, qp, v, kin_m)
    return h


@njit(cache=True, _nrt=False)
def _contacts(it, ft, N, kin, q, v, impact, f, W, bias, plan, modes, cws, n_c):
    """The contacts (``contact_kernels.contacts_into``) in their workspace ``cws``
    (``contact_workspace_size``): their forces into ``f``, rows into ``W``, normal forces on
    their pairs' preloads in ``plan``, and with a sticking pair (``modes`` 0) the rows' bias;
    the gaps, approach speeds and normal forces (n_c each) at the end of ``cws``. Returns the
    damping power (W). (No array is returned: a function without the runtime must not hand a
    view to one with it, which would release the view's parent.)"""
    n_kin = (N + 1) * _KIN
    o = (MAX_POINTS + 1) * 7
    pts = cws[:o].reshape(MAX_POINTS + 1, 7)
    vol = cws[o:o + VOLUME_BUFFER]
    o += VOLUME_BUFFER
    kin_p = cws[o:o + n_kin].reshape(N + 1, _KIN)
    kin_m = cws[o + n_kin:o + 2 * n_kin].reshape(N + 1, _KIN)
    o += 2 * n_kin
    qp = cws[o:o + 7 * N]
    o += 7 * N
    gaps, approach, Nn = cws[o:o + n_c], cws[o + n_c:o + 2 * n_c], cws[o + 2 * n_c:o + 3 * n_c]
    h = 0.0
    sticking = False
    for e in range(it.shape[0]):
        if it[e, 0] == CONTACT:
            for j in range(12, 15):
                if it[e, j] >= 0 and modes[it[e, j]] == 0.0:
                    sticking = True
    if sticking:
        h = _perturbed_kinematics(N, q, v, qp, kin_p, kin_m)
    return contacts_into(it, ft, kin, kin_p, kin_m, h, impact, f, W, bias, plan, gaps,
                         approach, Nn, pts, vol)


@njit(cache=True, _nrt=False)
def _evaluate_contacts(it, ft, N, kin, q, v, z, f, W, bias, plan, modes, out, ws):
    """The contacts of an evaluation (:func:`_contacts`, their workspace before the user
    values at the end of ``ws``; the impact speeds ``z`` after the laws' states), their gaps
    after the fields of the buffer ``out`` (where it has room: the compiled phases' gap
    events read them). Returns their damping power (W)."""
    n_c = contact_count(it)
    if n_c == 0:
        return 0.0
    n, m, n_z, p_rows = int(plan[H_N]), int(plan[H_M]), int(plan[H_NZ]), plan_rows(plan)
    end = ws.size - 3 * it.shape[0]
    P = _contacts(it, ft, N, kin, q, v, z[n_z:], f, W, bias, plan, modes,
                  ws[end - contact_workspace_size(n_c, N):end], n_c)
    o_gap = eval_offsets(n, m, int(plan[H_P]), int(plan[H_K]), n_z, False, p_rows)[-1]
    if out.size >= o_gap + n_c:
        o = end - 3 * n_c  # the gaps (contact_workspace_size's layout)
        for c in range(n_c):
            out[o_gap + c] = ws[o + c]
    return P


@njit(cache=True, _nrt=False, inline="always")
def _terms_size(n, m, p_rows):
    """The terms' part of the workspace (zeroed per evaluation): ``f (n), phi, phi_t, gamma
    (m), G (m, n), W (p_rows, n), bias (p_rows)``."""
    return n + 3 * m + m * n + p_rows * n + p_rows


@njit(cache=True, _nrt=False)
def _evaluate_into(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out, ws, iw,
                   contacts=True, norms=True, vector=True, lu=True, pins=True, friction=True):
    """One evaluation in the workspace ``ws, iw`` (:func:`workspace`): the kinematics, the
    terms, then ``core.stage._stage_body_delassus`` (``_stage_body`` without ``block3``).
    Returns its status, ``COINCIDENT`` (a spring's
    points; its table row in ``out[0]``), ``NONFINITE`` (a user value or a term not finite) or
    ``GENERAL`` (the stage needs the allocating path). With frictional joints their rows of
    ``W`` and the tangential bias (:func:`_friction_into`), and with norm load terms
    (``core.layout.RADIAL_NORMS``) ``core.stage._stage_body_norms``.

    ``contacts, norms, vector, lu, pins, friction``: None where the model has no contacts, no
    norm load terms, only scalar pairs, a block-diagonal mass (``block3``: no LU stage), no
    radial loads, no frictional pair (``p_rows`` 0); their code is then not
    compiled (numba prunes the branches on ``flag is not None``: one compilation per set of
    flags, :func:`nonsmooth.spatial.family.model_flags`). True (the default) where present."""
    if not _all_finite(U):
        return NONFINITE
    n, m = int(plan[H_N]), int(plan[H_M])
    mw = _rows_written(it, m)  # (the rows after m: removed as redundant, not read)
    N = n // 6
    p_rows = plan_rows(plan)
    zeroed = _terms_size(n, mw, p_rows)
    for i in range(zeroed):
        ws[i] = 0.0
    f = ws[:n]
    phi, phi_t, gamma = ws[n:n + mw], ws[n + mw:n + 2 * mw], ws[n + 2 * mw:n + 3 * mw]
    o_W = n + 3 * mw + mw * n
    G = ws[n + 3 * mw:o_W].reshape(mw, n)
    W = ws[o_W:o_W + p_rows * n].reshape(p_rows, n)  # the frictional joints' rows
    bias = ws[o_W + p_rows * n:zeroed]
    kin = ws[zeroed:zeroed + (N + 1) * _KIN].reshape(N + 1, _KIN)
    _kinematics(N, q, v, kin)
    P_applied, P_damping, row, err = _terms_into(it, ft, bt, U, N, t, kin, q, v, f, phi,
                                                 phi_t, G, gamma)
    if err:
        out[0] = row
        return COINCIDENT
    if friction is not None and p_rows:
        _friction_into(it, ft, kin, W, bias)
    if contacts is not None:
        P_damping += _evaluate_contacts(it, ft, N, kin, q, v, z, f, W, bias, plan, modes, out,
                                        ws)
    for i in range(n):
        if not np.isfinite(f[i]):
            return NONFINITE
    nk, ns = _stick_counts(plan, modes, p_rows)
    sw = ws[zeroed + (N + 1) * _KIN:]
    if norms is not None and plan[H_RADIAL] == RADIAL_NORMS:  # norm load terms: their stage
        return _stage_body_norms(M, f, phi[:m], phi_t[:m], G[:m], gamma[:m], W, bias,
                                 P_applied, P_damping, plan, Wt, v, z, modes, faces, out, sw, iw,
                                 nk, ns, p_rows, block3, vector)
    if lu is None or block3:  # the Delassus solve of the block-diagonal mass (the core's)
        return _stage_body_delassus(M, f, phi[:m], phi_t[:m], G[:m], gamma[:m], W, bias,
                                    P_applied, P_damping, plan, Wt, v, z, modes, faces, out, sw,
                                    iw, nk, ns, p_rows, vector, pins)
    return _stage_into(M, f, phi[:m], phi_t[:m], G[:m], gamma[:m], W, bias, P_applied,
                       P_damping, plan, Wt, v, z, modes, faces, out, sw, iw, vector,
                       pins=pins)  # (a call)


@njit(cache=True)
def _evaluate_general(it, ft, bt, U, M, plan, Wt, t, q, v, z, modes, faces, out, ws):
    """The allocating path of an evaluation the runtime-free stage declines (``GENERAL``):
    the same terms, then ``core.stage.acceleration_stage``."""
    n, m = int(plan[H_N]), int(plan[H_M])
    mw = _rows_written(it, m)
    N = n // 6
    p_rows = plan_rows(plan)
    f, phi, phi_t, gamma = np.zeros(n), np.zeros(mw), np.zeros(mw), np.zeros(mw)
    G = np.zeros((mw, n))
    o_kin = _terms_size(n, mw, p_rows)
    kin = ws[o_kin:o_kin + (N + 1) * _KIN].reshape(N + 1, _KIN)
    _kinematics(N, q, v, kin)
    P_applied, P_damping, row, err = _terms_into(it, ft, bt, U, N, t, kin, q, v, f, phi,
                                                 phi_t, G, gamma)
    if err:
        out[0] = row
        return COINCIDENT
    W, bias = np.zeros((p_rows, n)), np.zeros(p_rows)
    if p_rows:
        _friction_into(it, ft, kin, W, bias)
    P_damping += _evaluate_contacts(it, ft, N, kin, q, v, z, f, W, bias, plan, modes, out, ws)
    if plan[H_RADIAL] == RADIAL_NORMS:
        return acceleration_stage_norms(M, f, phi[:m].copy(), phi_t[:m].copy(), G[:m].copy(),
                                        gamma[:m].copy(), W, bias, P_applied, P_damping, plan,
                                        Wt, v, z, modes, faces, out)
    return acceleration_stage(M, f, phi[:m].copy(), phi_t[:m].copy(), G[:m].copy(),
                              gamma[:m].copy(), W, bias, P_applied, P_damping, plan, Wt, v, z,
                              modes, faces, out)


@njit(cache=True, inline="always")
def _evaluate(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out, ws, iw,
              contacts=True, norms=True, vector=True, lu=True, pins=True, friction=True,
              general=True):
    """:func:`_evaluate_into`, then the allocating path where it declines (``general`` None:
    the model's stage never declines: not compiled; ``spatial.family.model_flags``)."""
    status = _evaluate_into(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out, ws,
                            iw, contacts, norms, vector, lu, pins, friction)
    if general is not None and status == GENERAL:
        status = _evaluate_general(it, ft, bt, U, M, plan, Wt, t, q, v, z, modes, faces, out,
                                   ws)
    return status


@njit(cache=True)
def spatial_evaluate(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out):
    """One whole evaluation (terms and acceleration stage) in a workspace made here."""
    ws, iw = workspace(it, plan)
    return _evaluate(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out, ws, iw)


@njit(cache=True)
def spatial_terms(it, ft, bt, U, t, q, v, m):
    """The terms ``(f (6 N,), phi, phi_t, gamma (m,), G (m, 6 N), P_applied, P_damping,
    error)`` at ``(t, q, v)`` (for the tests' comparison with the Python path)."""
    n = v.size
    N = n // 6
    mw = _rows_written(it, m)
    f, phi, phi_t, gamma = np.zeros(n), np.zeros(mw), np.zeros(mw), np.zeros(mw)
    G = np.zeros((mw, n))
    kin = np.empty((N + 1, _KIN))
    _kinematics(N, q, v, kin)
    P_applied, P_damping, _, err = _terms_into(it, ft, bt, U, N, t, kin, q, v, f, phi, phi_t,
                                               G, gamma)
    return f, phi[:m], phi_t[:m], gamma[:m], G[:m], P_applied, P_damping, err


@njit(cache=True)
def spatial_contact_terms(it, ft, q, v, impact, modes, n_v, p_rows):
    """The contacts of the table ``it, ft`` at ``(q, v)`` with the impact speeds ``impact``
    (n_c,), m/s (the Python path's call, ``SpatialSystem._contact_call``): ``(f (n_v,),
    P_damping (W), N (n_c,), gap (n_c,), approach (n_c,), W (p_rows, n_v), bias (p_rows,))``,
    the bias of the rows of the contacts with a sticking pair (``modes`` 0)."""
    N = n_v // 6
    n_c = contact_count(it)
    kin = np.empty((N + 1, _KIN))
    _kinematics(N, q, v, kin)
    f, W, bias = np.zeros(n_v), np.zeros((p_rows, n_v)), np.zeros(p_rows)
    cws = np.zeros(contact_workspace_size(n_c, N))
    P = _contacts(it, ft, N, kin, q, v, impact, f, W, bias, np.empty(0), modes, cws, n_c)
    o = cws.size - 3 * n_c
    return (f, P, cws[o + 2 * n_c:].copy(), cws[o:o + n_c].copy(),
            cws[o + n_c:o + 2 * n_c].copy(), W, bias)


@njit(cache=True)
def spatial_friction_terms(it, ft, q, v, p_rows):
    """The frictional joints' ``W`` (p_rows, 6 N) and tangential bias ``(dW/dt) v`` (p_rows,)
    at ``(q, v)`` (``SpatialSystem.friction_rows``' numbers; the compiled terms and the
    tests)."""
    n = v.size
    N = n // 6
    kin = np.empty((N + 1, _KIN))
    _kinematics(N, q, v, kin)
    W, bias = np.zeros((p_rows, n)), np.zeros(p_rows)
    _friction_into(it, ft, kin, W, bias)
    return W, bias


@njit(cache=True, _nrt=False, inline="always")
def _derivative(y, out, dy, N, n_q, m, p, k, n_z, p_rows):
    """``dy/dt = [H(q) v, dv/dt, powers, dz/dt]``: ``dr/dt = u``, ``dp/dt = 1/2 p (x) (0,
    omega')`` per body (``rotation.quat_rate``); the winding coordinates' rates not
    (:func:`_winding_rates`)."""
    n = 6 * N
    offsets = eval_offsets(n, m, p, k, n_z, False, p_rows)
    for i in range(N):
        qi, vi = 7 * i, n_q + 6 * i
        dy[qi], dy[qi + 1], dy[qi + 2] = y[vi], y[vi + 1], y[vi + 2]
        w, x, yy, z = y[qi + 3], y[qi + 4], y[qi + 5], y[qi + 6]
        a, b, c = y[vi + 3], y[vi + 4], y[vi + 5]
        dy[qi + 3] = -0.5 * (x * a + yy * b + z * c)
        dy[qi + 4] = 0.5 * (w * a + yy * c - z * b)
        dy[qi + 5] = 0.5 * (w * b - x * c + z * a)
        dy[qi + 6] = 0.5 * (w * c + x * b - yy * a)
    for i in range(n):
        dy[n_q + i] = out[i]
    o_work = n_q + n
    for i in range(N_WORK):
        dy[o_work + i] = out[offsets[O_POW] + i]
    for i in range(n_z):
        dy[o_work + N_WORK + i] = out[offsets[O_DZ] + i]
    for i in range(o_work + N_WORK + n_z, y.size):  # the contacts' impact speeds: constant
        dy[i] = 0.0


@njit(cache=True)
def _spatial_dy(it, ft, bt, M, block3, plan, Wt, t, y, modes, faces, out, dy, ws, iw,
                contacts=True, norms=True, vector=True, lu=True, pins=True, friction=True,
                general=True):
    """``dy/dt`` at ``(t, y)`` with the user values at the workspace's end (filled by the
    caller); the allocating path where the runtime-free stage declines (``GENERAL``: a mass
    that is not block diagonal above ``core.stage.SMALL_LU`` rows, a load equation whose
    certificate needs eigenvalues). Returns the evaluation's status. The flags: those of
    :func:`_evaluate` (:func:`nonsmooth.spatial.family.model_flags`)."""
    n_el = it.shape[0]
    U = ws[ws.size - 3 * n_el:].reshape(n_el, 3)
    n, m, p, k, n_z = (int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K]),
                       int(plan[H_NZ]))
    N = n // 6
    n_q = _n_q(it, N)
    q, v, z = y[:n_q], y[n_q:n_q + n], y[n_q + n + N_WORK:]
    status = _evaluate(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces, out, ws, iw,
                       contacts, norms, vector, lu, pins, friction, general)
    if status == OK:
        _derivative(y, out, dy, N, n_q, m, p, k, n_z, plan_rows(plan))
        if n_q > 7 * N:  # the kinematics the evaluation left in the workspace
            o_kin = _terms_size(n, _rows_written(it, m), plan_rows(plan))
            _winding_rates(it, ft, ws[o_kin:o_kin + (N + 1) * _KIN].reshape(N + 1, _KIN), dy)
    return status


@njit(cache=True)
def spatial_evaluate_batch(it, ft, bt, U, M, block3, plan, Wt, ts, Q, V, Z, modes, faces, V0,
                           out, contacts=True, norms=True, vector=True, lu=True, pins=True,
                           friction=True, general=True):
    """The evaluations at the rows ``(ts (k,), Q (k, n_q), V (k, 6 N), Z, U (k, n_el, 3))``
    into ``out`` (k, size + 2): each row's evaluation, then its kinetic ``v M v / 2`` and
    potential energy (J), the latter from the contacts' ``V0`` (k,)
    (:func:`spatial_contact_potentials`, or zeros). Returns ``(row, status)`` of the first row
    that is not ``OK`` (``(-1, OK)`` if none). The flags: :func:`_evaluate`'s."""
    ws, iw = workspace(it, plan)
    n = int(plan[H_N])
    N = n // 6
    size = out.shape[1] - 2
    kin = np.empty((N + 1, _KIN))
    for r in range(ts.size):
        row = out[r]
        status = _evaluate(it, ft, bt, U[r], M, block3, plan, Wt, ts[r], Q[r], V[r], Z[r], modes,
                           faces, row[:size], ws, iw, contacts, norms, vector, lu, pins,
                           friction, general)
        if status != OK:
            return r, status
        kinetic = 0.0
        for a in range(n):
            acc = 0.0
            for b in range(n):
                acc += M[a, b] * V[r, b]
            kinetic += V[r, a] * acc
        row[size] = 0.5 * kinetic
        _kinematics(N, Q[r], V[r], kin)
        row[size + 1] = _element_potential(it, ft, bt, N, kin, Q[r], V0[r])
    return -1, OK


@njit(cache=True)
def spatial_potentials(it, ft, bt, Q):
    """The potential energy (J) at the rows ``Q (k, n_q)``: the contacts' and the elements'."""
    return spatial_element_potentials(it, ft, bt, Q, spatial_contact_potentials(it, ft, bt, Q))


@njit(cache=True)
def spatial_contact_potentials(it, ft, bt, Q):
    """The contacts' elastic energy (J) at the rows ``Q (k, n_q)``
    (:func:`~nonsmooth.spatial.contact_kernels.contact_potential`)."""
    N = bt.shape[0]
    kin = np.empty((N + 1, _KIN))
    zero = np.zeros(6 * N)
    V = np.empty(Q.shape[0])
    pts = np.empty((MAX_POINTS + 1, 7))
    vol = np.empty(VOLUME_BUFFER)
    for r in range(Q.shape[0]):
        _kinematics(N, Q[r], zero, kin)
        V[r] = contact_potential(it, ft, kin, pts, vol)
    return V


@njit(cache=True)
def spatial_element_potentials(it, ft, bt, Q, V0):
    """``V0`` (k,) plus gravity's and the springs' potential energy (J) at the rows ``Q (k,
    n_q)``: with the contacts' ``V0`` (:func:`spatial_contact_potentials`) the total, with
    zeros the elements'. (A model without contacts compiles none of their geometry.)"""
    N = bt.shape[0]
    kin = np.empty((N + 1, _KIN))
    zero = np.zeros(6 * N)
    V = np.empty(Q.shape[0])
    for r in range(Q.shape[0]):
        _kinematics(N, Q[r], zero, kin)
        V[r] = _element_potential(it, ft, bt, N, kin, Q[r], V0[r])
    return V


# --------------------------------------------------------------------------- outputs
@njit(cache=True)
def spatial_joint_forces(it, ft, bt, Q, V, lam, owner, n_owner):
    """``G_j^T lambda_j`` (k, n_owner, 6 N) at the rows ``(Q (k, 7 N), V (k, 6 N), lam (k,
    m))``: each constraint row's force on the bodies' velocities summed over the rows of its
    owner (``owner`` (m,), -1: none), for the joints' reactions."""
    k, n, m = Q.shape[0], V.shape[1], lam.shape[1]
    mw = _rows_written(it, m)
    N = n // 6
    out = np.zeros((k, n_owner, n))
    f, phi, phi_t, gamma = np.empty(n), np.empty(mw), np.empty(mw), np.empty(mw)
    G = np.empty((mw, n))
    kin = np.empty((N + 1, _KIN))
    U = np.zeros((it.shape[0], 3))
    for r in range(k):
        f[:] = 0.0
        phi[:] = 0.0
        phi_t[:] = 0.0
        gamma[:] = 0.0
        G[:] = 0.0
        _kinematics(N, Q[r], V[r], kin)
        _terms_into(it, ft, bt, U, N, 0.0, kin, Q[r], V[r], f, phi, phi_t, G, gamma)
        for row in range(m):
            j = owner[row]
            if j >= 0:
                for c in range(n):
                    out[r, j, c] += G[row, c] * lam[r, row]
    return out


@njit(cache=True)
def spatial_coordinate_values(ci, cf, Q, n):
    """The joint coordinates (rad or m) at the rows ``Q (k, 7 N)``, (k, n_c): each row of the
    coordinate table ``ci, cf`` (``DRIVE_ANGLE`` or ``DRIVE_DISP`` primitives,
    ``tables.SpatialTables.coordinates``); angles in (-pi, pi]."""
    N = n // 6
    out = np.empty((Q.shape[0], ci.shape[0]))
    kin = np.empty((N + 1, _KIN))
    G = np.zeros((1, n))
    zero = np.zeros(n)
    for r in range(Q.shape[0]):
        _kinematics(N, Q[r], zero, kin)
        for e in range(ci.shape[0]):
            if ci[e, 0] == DRIVE_ANGLE:
                out[r, e] = _angle(kin, ci[e, 1], ci[e, 2], cf[e], G, 0)[0]
            else:
                out[r, e] = _dot2(kin, ci[e, 1], ci[e, 2], cf[e], G, 0)[0]
    return out
