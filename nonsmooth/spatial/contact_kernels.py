"""The spatial family's contacts compiled: every contact's forces, normal force, gap, approach
speed, friction rows and their bias in one loop (:func:`contacts_into`), the arithmetic of
:class:`nonsmooth.spatial.contact.CompiledContact` (its Python reference;
``tests/contact/test_spatial_contact.py`` compares them). The contacts are rows of kind
:data:`CONTACT` of the model's kernel tables (:func:`contact_tables`), so that the compiled
phases evaluate them with the joints and forces (:func:`nonsmooth.spatial.kernels.
_evaluate_into`); ``kernels.spatial_contact_terms`` is the same loop for the Python path.

Table rows, one per contact:

* ``ints`` (n_c, :data:`N_INTS`): ``[CONTACT, a, b, c, 0, 0, kind_a, kind_b, law_kind,
  w_slide, w_spin, w_rolling, p_slide, p_spin, p_rolling]``: the bodies (-1 the ground), the
  contact's index, the shapes' and the law's kind codes, the first row of ``W`` of its sliding
  (2 rows), spin (1) and rolling (2) friction pairs and those pairs' indices (-1: none);
* ``floats`` (n_c, :data:`N_FLOATS`): the shapes' packed numbers (6 each), the law's numbers
  (3), the margin (m), the smallest impact speed (m/s, ``contact.element.MIN_IMPACT_SPEED``),
  the shapes' centres in their bodies' frames (3 each, m; ``Shape.position``).

No function here allocates (``_nrt=False``): the arrays are views into the evaluation's
workspace (:func:`contact_workspace_size`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..contact.element import MIN_IMPACT_SPEED
from ..contact.geometry import MAX_POINTS, pair_geometry
from ..contact.laws import HYSTERETIC, normal_force
from ..core.layout import H_P, N_HEADER

__all__ = ["CONTACT", "MAX_POINTS", "N_INTS", "N_FLOATS", "contact_tables", "contacts_into",
           "contact_potential", "contact_count", "contact_workspace_size"]

#: The kind code of a contact's row in the spatial kernel tables (after
#: ``nonsmooth.spatial.tables``' element kinds).
CONTACT = 40
N_INTS, N_FLOATS = 15, 23
_PT = 7  # a geometry row: (gap, x, y, z, nx, ny, nz)


def contact_tables(system) -> tuple[np.ndarray, np.ndarray]:
    """The contacts of a :class:`~nonsmooth.spatial.model.SpatialSystem` as ``(ints,
    floats)`` table rows (module docstring)."""
    n_c = len(system._contacts)
    ints = np.full((n_c, N_INTS), -1, dtype=np.int64)
    floats = np.zeros((n_c, N_FLOATS))
    for c, cc in enumerate(system._contacts):
        ints[c, :9] = (CONTACT, cc.a, cc.b, c, 0, 0, cc.kind_a, cc.kind_b, cc.law_kind)
        floats[c, :cc.nums_a.size] = cc.nums_a
        floats[c, 6:6 + cc.nums_b.size] = cc.nums_b
        floats[c, 12:15] = cc.law
        floats[c, 15] = cc.margin
        floats[c, 16] = MIN_IMPACT_SPEED
        floats[c, 17:20] = cc.offset_a
        floats[c, 20:23] = cc.offset_b
    col = {"slide": 9, "spin": 10, "rolling": 11}
    for i, c, kind in system._contact_rows:
        ints[c, col[kind]] = int(system.w_row[i])
        ints[c, col[kind] + 3] = i
    return ints, floats


@njit(cache=True, _nrt=False)
def contact_count(it):
    """The number of :data:`CONTACT` rows of the table ``it``."""
    n = 0
    for e in range(it.shape[0]):
        if it[e, 0] == CONTACT:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def contact_workspace_size(n_c, N):
    """The contacts' part of an evaluation's workspace (0 without contacts): a geometry buffer
    (``MAX_POINTS + 1`` rows of 7: :func:`_geometry`), two perturbed kinematics (N + 1 rows of
    21 each) and coordinates (7 N) for the friction rows' bias, the gaps, approach speeds and
    normal forces (n_c each)."""
    if n_c == 0:
        return 0
    return (MAX_POINTS + 1) * _PT + 2 * (N + 1) * 21 + 7 * N + 3 * n_c


@njit(cache=True, _nrt=False)
def _elastic(kind, law, d):
    if kind == HYSTERETIC:
        return law[0] * d ** law[1]
    return law[0] * d


@njit(cache=True, _nrt=False)
def _axis(n0, n1, n2):
    """The world axis least aligned with the unit normal ``n`` (``spatial.contact.
    tangents``): 0, 1 or 2."""
    a0, a1, a2 = abs(n0), abs(n1), abs(n2)
    if a0 <= a1 and a0 <= a2:
        return 0
    if a1 <= a2:
        return 1
    return 2


@njit(cache=True, _nrt=False)
def _tangents(n0, n1, n2, axis):
    """Two unit tangents ``t = n x e / |n x e|``, ``u = n x t`` of the unit normal ``n``, ``e``
    the world axis ``axis`` (:func:`_axis` at the evaluation's state: the same axis for its
    perturbed states, so that the basis varies smoothly)."""
    e0, e1, e2 = 0.0, 0.0, 0.0
    if axis == 0:
        e0 = 1.0
    elif axis == 1:
        e1 = 1.0
    else:
        e2 = 1.0
    t0, t1, t2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0
    norm = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / norm, t1 / norm, t2 / norm
    return t0, t1, t2, n1 * t2 - n2 * t1, n2 * t0 - n0 * t2, n0 * t1 - n1 * t0


@njit(cache=True, _nrt=False)
def _centre(kin, i, o, pos):
    """Body ``i``'s point at ``o`` (3,; body axes) in world coordinates into ``pos`` (3,)."""
    k = kin[i]
    pos[0] = k[9] + k[0] * o[0] + k[1] * o[1] + k[2] * o[2]
    pos[1] = k[10] + k[3] * o[0] + k[4] * o[1] + k[5] * o[2]
    pos[2] = k[11] + k[6] * o[0] + k[7] * o[1] + k[8] * o[2]


@njit(cache=True, _nrt=False)
def _geometry(ir, fr, kin, pts):
    """The contact's geometry rows into ``pts`` (``MAX_POINTS + 1``, 7: the rows, then the
    shapes' centres in the last row) at the kinematics ``kin`` (N + 1, 21; row N the ground).
    Returns their number."""
    N_b = kin.shape[0] - 1
    ia = ir[1] if ir[1] >= 0 else N_b
    ib = ir[2] if ir[2] >= 0 else N_b
    pos = pts[MAX_POINTS]
    _centre(kin, ia, fr[17:20], pos[0:3])
    _centre(kin, ib, fr[20:23], pos[3:6])
    return pair_geometry(ir[6], fr[0:6], pos[0:3], kin[ia, 0:9].reshape(3, 3), ir[7],
                         fr[6:12], pos[3:6], kin[ib, 0:9].reshape(3, 3), fr[15],
                         pts[:MAX_POINTS])


@njit(cache=True, _nrt=False)
def _point_velocity(kin, i, x0, x1, x2):
    """The velocity (m/s, world) of body ``i``'s material point at ``x`` (zero: the ground)."""
    if i < 0:
        return 0.0, 0.0, 0.0
    k = kin[i]
    s0, s1, s2 = x0 - k[9], x1 - k[10], x2 - k[11]
    w0, w1, w2 = k[15], k[16], k[17]
    return (k[12] + w1 * s2 - w2 * s1, k[13] + w2 * s0 - w0 * s2, k[14] + w0 * s1 - w1 * s0)


@njit(cache=True, _nrt=False)
def _rate(kin, a, b, x0, x1, x2, n0, n1, n2):
    """``d' = -n . (v_b(x) - v_a(x))`` (m/s)."""
    va0, va1, va2 = _point_velocity(kin, a, x0, x1, x2)
    vb0, vb1, vb2 = _point_velocity(kin, b, x0, x1, x2)
    return -(n0 * (vb0 - va0) + n1 * (vb1 - va1) + n2 * (vb2 - va2))


@njit(cache=True, _nrt=False)
def _friction_point(ir, fr, pts, k):
    """Where the contact's friction acts and its normal, ``(x0, x1, x2, n0, n1, n2)``, from its
    ``k`` geometry rows ``pts``: the centre of pressure of several penetrating points under
    their elastic forces and the normalised sum of their normals, else the deepest point's
    (``CompiledContact.friction_point``)."""
    law = fr[12:15]
    deep, n_pen, wsum = 0, 0, 0.0
    x0 = x1 = x2 = n0 = n1 = n2 = 0.0
    for r in range(k):
        if pts[r, 0] < pts[deep, 0]:
            deep = r
        d = -pts[r, 0]
        if d > 0.0:
            w = _elastic(ir[8], law, d)
            n_pen += 1
            wsum += w
            x0 += w * pts[r, 1]
            x1 += w * pts[r, 2]
            x2 += w * pts[r, 3]
            n0 += w * pts[r, 4]
            n1 += w * pts[r, 5]
            n2 += w * pts[r, 6]
    if k == 1 or n_pen <= 1 or wsum <= 0.0:
        return (pts[deep, 1], pts[deep, 2], pts[deep, 3], pts[deep, 4], pts[deep, 5],
                pts[deep, 6])
    norm = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
    return x0 / wsum, x1 / wsum, x2 / wsum, n0 / norm, n1 / norm, n2 / norm


@njit(cache=True, _nrt=False)
def _point_force(f, kin, i, x0, x1, x2, F0, F1, F2):
    """The world force ``F`` at the world point ``x`` on body ``i`` into ``f`` (``F`` on
    ``u_i``, ``R_i^T ((x - r_i) x F)`` on ``omega'_i``; nothing for the ground)."""
    if i < 0:
        return
    kk = kin[i]
    f[6 * i] += F0
    f[6 * i + 1] += F1
    f[6 * i + 2] += F2
    s0, s1, s2 = x0 - kk[9], x1 - kk[10], x2 - kk[11]
    c0, c1, c2 = s1 * F2 - s2 * F1, s2 * F0 - s0 * F2, s0 * F1 - s1 * F0
    f[6 * i + 3] += kk[0] * c0 + kk[3] * c1 + kk[6] * c2
    f[6 * i + 4] += kk[1] * c0 + kk[4] * c1 + kk[7] * c2
    f[6 * i + 5] += kk[2] * c0 + kk[5] * c1 + kk[8] * c2


@njit(cache=True, _nrt=False)
def _row_into(W, w, kin, i, sign, x0, x1, x2, t0, t1, t2, angular_only):
    """``W[w] += sign (t . v_i(x))``'s coefficients: ``t`` on ``u_i`` (unless
    ``angular_only``: then ``R_i^T t`` on ``omega'_i``), ``R_i^T ((x - r_i) x t)`` on
    ``omega'_i``."""
    k = kin[i]
    if angular_only:
        c0, c1, c2 = t0, t1, t2
    else:
        W[w, 6 * i] += sign * t0
        W[w, 6 * i + 1] += sign * t1
        W[w, 6 * i + 2] += sign * t2
        s0, s1, s2 = x0 - k[9], x1 - k[10], x2 - k[11]
        c0, c1, c2 = s1 * t2 - s2 * t1, s2 * t0 - s0 * t2, s0 * t1 - s1 * t0
    W[w, 6 * i + 3] += sign * (k[0] * c0 + k[3] * c1 + k[6] * c2)
    W[w, 6 * i + 4] += sign * (k[1] * c0 + k[4] * c1 + k[7] * c2)
    W[w, 6 * i + 5] += sign * (k[2] * c0 + k[5] * c1 + k[8] * c2)


@njit(cache=True, _nrt=False)
def _friction_rows(W, ir, kin, x0, x1, x2, n0, n1, n2, axis):
    """A contact's friction rows of ``W`` at the friction point ``x`` with normal ``n``:
    sliding (``ir[9]``: ``t_k . (v_b(x) - v_a(x))``), spin (``ir[10]``: ``n . (omega_b -
    omega_a)``), rolling (``ir[11]``: ``t_k . (omega_b - omega_a)``); -1: none."""
    t0, t1, t2, u0, u1, u2 = _tangents(n0, n1, n2, axis)
    for i, sign in ((ir[2], 1.0), (ir[1], -1.0)):
        if i < 0:
            continue
        w = ir[9]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x0, x1, x2, t0, t1, t2, False)
            _row_into(W, w + 1, kin, i, sign, x0, x1, x2, u0, u1, u2, False)
        w = ir[10]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x0, x1, x2, n0, n1, n2, True)
        w = ir[11]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x0, x1, x2, t0, t1, t2, True)
            _row_into(W, w + 1, kin, i, sign, x0, x1, x2, u0, u1, u2, True)


@njit(cache=True, _nrt=False)
def _row_values_into(bias, scale, ir, kin, fr, pts, axis):
    """``bias[w] += scale W_w(kin) v`` of the contact's friction rows at the kinematics
    ``kin`` (a perturbed state; its velocities: ``v`` held, so each row's value is that row of
    ``W`` at the perturbed ``q`` times ``v``)."""
    a, b = ir[1], ir[2]
    k = _geometry(ir, fr, kin, pts)
    x0, x1, x2, n0, n1, n2 = _friction_point(ir, fr, pts, k)
    t0, t1, t2, u0, u1, u2 = _tangents(n0, n1, n2, axis)
    w = ir[9]
    if w >= 0:
        va0, va1, va2 = _point_velocity(kin, a, x0, x1, x2)
        vb0, vb1, vb2 = _point_velocity(kin, b, x0, x1, x2)
        d0, d1, d2 = vb0 - va0, vb1 - va1, vb2 - va2
        bias[w] += scale * (t0 * d0 + t1 * d1 + t2 * d2)
        bias[w + 1] += scale * (u0 * d0 + u1 * d1 + u2 * d2)
    if ir[10] >= 0 or ir[11] >= 0:
        N_b = kin.shape[0] - 1
        ia = a if a >= 0 else N_b
        ib = b if b >= 0 else N_b
        d0 = kin[ib, 15] - kin[ia, 15]
        d1 = kin[ib, 16] - kin[ia, 16]
        d2 = kin[ib, 17] - kin[ia, 17]
        w = ir[10]
        if w >= 0:
            bias[w] += scale * (n0 * d0 + n1 * d1 + n2 * d2)
        w = ir[11]
        if w >= 0:
            bias[w] += scale * (t0 * d0 + t1 * d1 + t2 * d2)
            bias[w + 1] += scale * (u0 * d0 + u1 * d1 + u2 * d2)


@njit(cache=True, _nrt=False)
def contacts_into(it, ft, kin, kin_p, kin_m, h, impact, f, W, bias, plan, gaps, approach, Nn,
                  pts):
    """Every :data:`CONTACT` row of the table ``it, ft`` at the kinematics ``kin`` with the
    impact speeds ``impact`` (n_c,), m/s: the contact forces into ``f`` (6 N,), each contact's
    normal force (N), smallest gap (m) and approach speed at its deepest point (m/s) into
    ``Nn``, ``gaps``, ``approach`` (n_c,), the normal force on its friction pairs' preloads
    in ``plan`` (none for an empty ``plan``), its friction rows into ``W`` (zero before) and,
    with ``h > 0``, their bias ``(dW/dt) v`` into ``bias``: the central difference of the rows
    between the kinematics ``kin_p``, ``kin_m`` of ``q +- h dq/dt`` (the velocities held).
    ``pts`` (``MAX_POINTS + 1``, 7) a geometry buffer. Returns the contacts' damping power (W)."""
    P = 0.0
    p = int(plan[H_P]) if plan.size else 0
    o_pre = N_HEADER + p
    for e in range(it.shape[0]):
        ir = it[e]
        if ir[0] != CONTACT:
            continue
        fr = ft[e]
        a, b, c, kind = ir[1], ir[2], ir[3], ir[8]
        law = fr[12:15]
        k = _geometry(ir, fr, kin, pts)
        d0 = max(impact[c], fr[16])
        deep, total = 0, 0.0
        for r in range(k):
            if pts[r, 0] < pts[deep, 0]:
                deep = r
            d = -pts[r, 0]
            if d <= 0.0:
                continue
            x0, x1, x2 = pts[r, 1], pts[r, 2], pts[r, 3]
            n0, n1, n2 = pts[r, 4], pts[r, 5], pts[r, 6]
            rate = _rate(kin, a, b, x0, x1, x2, n0, n1, n2)
            force = normal_force(kind, law, d, rate, d0)
            P -= (force - _elastic(kind, law, d)) * rate
            total += force
            _point_force(f, kin, b, x0, x1, x2, force * n0, force * n1, force * n2)
            _point_force(f, kin, a, x0, x1, x2, -force * n0, -force * n1, -force * n2)
        gaps[c] = pts[deep, 0]
        approach[c] = _rate(kin, a, b, pts[deep, 1], pts[deep, 2], pts[deep, 3], pts[deep, 4],
                            pts[deep, 5], pts[deep, 6])
        Nn[c] = total
        if plan.size:
            for j in range(12, 15):
                if ir[j] >= 0:
                    plan[o_pre + ir[j]] = total
        if ir[9] < 0 and ir[10] < 0 and ir[11] < 0:
            continue
        x0, x1, x2, n0, n1, n2 = _friction_point(ir, fr, pts, k)
        axis = _axis(n0, n1, n2)
        _friction_rows(W, ir, kin, x0, x1, x2, n0, n1, n2, axis)
        if h > 0.0:
            _row_values_into(bias, 0.5 / h, ir, kin_p, fr, pts, axis)
            _row_values_into(bias, -0.5 / h, ir, kin_m, fr, pts, axis)
    return P


@njit(cache=True, _nrt=False)
def contact_potential(it, ft, kin, pts):
    """The contacts' elastic energy (J) at the kinematics ``kin``: ``K d^(n+1) / (n+1)``
    (``k d^2 / 2``) of each penetrating point."""
    V = 0.0
    for e in range(it.shape[0]):
        ir = it[e]
        if ir[0] != CONTACT:
            continue
        fr = ft[e]
        power = fr[13] if ir[8] == HYSTERETIC else 1.0
        k = _geometry(ir, fr, kin, pts)
        for r in range(k):
            d = -pts[r, 0]
            if d > 0.0:
                V += fr[12] * d ** (power + 1.0) / (power + 1.0)
    return V
