"""The spatial family's rigid contacts compiled: every rigid contact's points, their gaps,
normal and tangent velocity rows, and the rows' bias ``(dW/dt) v`` in closed form where the
pair has one, in one call (:func:`rigid_rows_into`); and the deepest point of every contact at
many states (:func:`deepest_points`, the results' contact outputs). The arithmetic of
:meth:`nonsmooth.spatial.contact.CompiledContact.rigid_rows` and
:meth:`~nonsmooth.spatial.contact.CompiledContact.rigid_bias` (their Python reference;
``tests/contact/test_rigid_kernels.py`` compares them), on the contacts' table rows
(:func:`nonsmooth.spatial.contact_kernels.contact_tables`).

An event-driven run asks for the rows at every event and for the bias at every impact; in
Python they cost about 0.1 ms each (a dozen small array operations), here a few
microseconds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..contact.geometry import MAX_POINTS, pair_geometry
from ..contact.shapes import BOX, PLANE, SPHERE
from .contact_kernels import _axis, _centre, _tangents
from .kernels import _KIN, _kinematics

__all__ = ["rigid_rows_into", "deepest_points"]


@njit(cache=True, _nrt=False)
def _points(ir, fr, kin, margin, centres, pts):
    """The contact's geometry rows ``(gap, x, n)`` into ``pts`` (``MAX_POINTS``, 7) within
    ``margin`` (m); ``centres`` (6,) scratch. Returns their number."""
    n_b = kin.shape[0] - 1
    ia = ir[1] if ir[1] >= 0 else n_b
    ib = ir[2] if ir[2] >= 0 else n_b
    _centre(kin, ia, fr[17:20], centres[0:3])
    _centre(kin, ib, fr[20:23], centres[3:6])
    return pair_geometry(ir[6], fr[0:6], centres[0:3], kin[ia, 0:9].reshape(3, 3), ir[7],
                         fr[6:12], centres[3:6], kin[ib, 0:9].reshape(3, 3), margin, pts)


@njit(cache=True, _nrt=False)
def _axes(n, axes):
    """The point's axes ``(n, t_1, t_2)`` into ``axes`` (3, 3): the contacts' tangents
    (``contact_kernels._tangents`` along ``_axis``, ``spatial.contact.tangents``)."""
    t0, t1, t2, u0, u1, u2 = _tangents(n[0], n[1], n[2], _axis(n[0], n[1], n[2]))
    for j in range(3):
        axes[0, j] = n[j]
    axes[1, 0], axes[1, 1], axes[1, 2] = t0, t1, t2
    axes[2, 0], axes[2, 1], axes[2, 2] = u0, u1, u2


@njit(cache=True, _nrt=False)
def _rows(kin, a, b, x, axes, W):
    """The point's rows ``h_j . (v_b(x) - v_a(x))`` of its axes into ``W`` (3, n_v), zero
    before: ``h`` on a body's velocity, ``s x h'`` on its angular velocity (``s`` and ``h'``
    in its axes)."""
    for body in range(2):
        i = b if body == 0 else a
        sign = 1.0 if body == 0 else -1.0
        if i < 0:
            continue
        k = kin[i]
        d0, d1, d2 = x[0] - k[9], x[1] - k[10], x[2] - k[11]
        s0 = k[0] * d0 + k[3] * d1 + k[6] * d2  # R^T (x - r)
        s1 = k[1] * d0 + k[4] * d1 + k[7] * d2
        s2 = k[2] * d0 + k[5] * d1 + k[8] * d2
        for j in range(3):
            h0, h1, h2 = axes[j, 0], axes[j, 1], axes[j, 2]
            hb0 = k[0] * h0 + k[3] * h1 + k[6] * h2  # R^T h
            hb1 = k[1] * h0 + k[4] * h1 + k[7] * h2
            hb2 = k[2] * h0 + k[5] * h1 + k[8] * h2
            W[j, 6 * i] += sign * h0
            W[j, 6 * i + 1] += sign * h1
            W[j, 6 * i + 2] += sign * h2
            W[j, 6 * i + 3] += sign * (s1 * hb2 - s2 * hb1)
            W[j, 6 * i + 4] += sign * (s2 * hb0 - s0 * hb2)
            W[j, 6 * i + 5] += sign * (s0 * hb1 - s1 * hb0)


@njit(cache=True, _nrt=False)
def _closed_form(ir):
    """The body and side of a contact whose rows' bias has a closed form (a sphere or a box
    against the ground's plane): ``(body, sign)`` (``sign`` +1 the shape is b, -1 it is a), or
    ``(-1, 0.0)``."""
    a, b, kind_a, kind_b = ir[1], ir[2], ir[6], ir[7]
    ground_plane = (kind_b == PLANE and b < 0) or (kind_a == PLANE and a < 0)
    if not ground_plane or kind_a == kind_b:
        return -1, 0.0
    kind = kind_a if kind_b == PLANE else kind_b
    if kind != SPHERE and kind != BOX:
        return -1, 0.0
    return (a, -1.0) if kind_b == PLANE else (b, 1.0)


@njit(cache=True, _nrt=False)
def _bias(ir, fr, kin, body, sign, pt, axes, out):
    """``(dW/dt) v`` of the point ``pt`` (7,)'s three rows (:func:`_rows`) into ``out`` (3,):
    ``h . (omega x d(x - r)/dt)`` with the row's sign, ``x`` midway between the surfaces
    (``CompiledContact.rigid_bias``)."""
    k = kin[body]
    w0, w1, w2 = k[15], k[16], k[17]
    g, n0, n1, n2 = pt[0], pt[4], pt[5], pt[6]
    r0, r1, r2 = pt[1] - k[9], pt[2] - k[10], pt[3] - k[11]
    v0 = k[12] + (w1 * r2 - w2 * r1)
    v1 = k[13] + (w2 * r0 - w0 * r2)
    v2 = k[14] + (w0 * r1 - w1 * r0)
    g_dot = sign * (n0 * v0 + n1 * v1 + n2 * v2)
    side = -sign
    c = side * 0.5 * g_dot
    a0, a1, a2 = c * n0, c * n1, c * n2
    if ir[6] == BOX or ir[7] == BOX:  # the corner, a material point
        h = side * 0.5 * g
        m0, m1, m2 = r0 - h * n0, r1 - h * n1, r2 - h * n2
    else:  # the sphere's centre, a material point (the shape may be off the body's origin)
        o = fr[17:20] if body == ir[1] else fr[20:23]
        m0 = k[0] * o[0] + k[1] * o[1] + k[2] * o[2]
        m1 = k[3] * o[0] + k[4] * o[1] + k[5] * o[2]
        m2 = k[6] * o[0] + k[7] * o[1] + k[8] * o[2]
    a0 += w1 * m2 - w2 * m1
    a1 += w2 * m0 - w0 * m2
    a2 += w0 * m1 - w1 * m0
    c0 = sign * (w1 * a2 - w2 * a1)
    c1 = sign * (w2 * a0 - w0 * a2)
    c2 = sign * (w0 * a1 - w1 * a0)
    for j in range(3):
        out[j] = axes[j, 0] * c0 + axes[j, 1] * c1 + axes[j, 2] * c2


@njit(cache=True)
def rigid_rows_into(it, ft, contacts, q, v, margins, gaps, W, bias, counts, exact):
    """The points of the rigid contacts ``contacts`` (their rows of the contact table ``it,
    ft``) at ``(q, v)``, within ``margins`` (one per contact, m), contact after contact: their
    gaps into ``gaps`` (P_max,), their rows ``(W_N, W_T1, W_T2)`` into ``W`` (P_max, 3, n_v),
    their bias ``(dW/dt) v`` into ``bias`` (P_max, 3) where the pair has it in closed form
    (``exact[c]`` 1; else 0 and the bias untouched); each contact's number of points into
    ``counts``. ``P_max`` is ``MAX_POINTS`` per contact. Returns the points' total."""
    n_v = v.size
    N = n_v // 6
    kin = np.empty((N + 1, _KIN))
    _kinematics(N, q, v, kin)
    pts = np.empty((MAX_POINTS, 7))
    centres = np.empty(6)
    axes = np.empty((3, 3))
    W[:] = 0.0
    P = 0
    for j in range(contacts.size):
        e = contacts[j]
        ir, fr = it[e], ft[e]
        k = _points(ir, fr, kin, margins[j], centres, pts)
        counts[j] = k
        body, sign = _closed_form(ir)
        exact[j] = 1 if body >= 0 else 0
        for r in range(k):
            gaps[P] = pts[r, 0]
            _axes(pts[r, 4:7], axes)
            _rows(kin, ir[1], ir[2], pts[r, 1:4], axes, W[P])
            if body >= 0:
                _bias(ir, fr, kin, body, sign, pts[r], axes, bias[P])
            P += 1
    return P


@njit(cache=True)
def deepest_points(it, ft, N, Q, out):
    """The deepest geometry row ``(gap, x, n)`` of every contact of the table ``it, ft`` (the
    first of its points with the smallest gap) at each row of ``Q`` (k, n_q; ``N`` bodies)
    into ``out`` (k, n_c, 7)."""
    kin = np.empty((N + 1, _KIN))
    v = np.zeros(6 * N)
    pts = np.empty((MAX_POINTS, 7))
    centres = np.empty(6)
    for row in range(Q.shape[0]):
        _kinematics(N, Q[row], v, kin)
        for c in range(it.shape[0]):
            k = _points(it[c], ft[c], kin, np.inf, centres, pts)
            deep = 0
            for r in range(1, k):
                if pts[r, 0] < pts[deep, 0]:
                    deep = r
            for j in range(7):
                out[row, c, j] = pts[deep, j]
