"""The spatial family's contacts compiled: every contact's forces, normal force, gap, approach
speed, friction rows and their bias in one loop (:func:`contacts_into`), the arithmetic of
:class:`nonsmooth.spatial.contact.CompiledContact` (its Python reference;
``tests/contact/test_spatial_contact.py`` compares them). The contacts are rows of kind
:data:`CONTACT` of the model's kernel tables (:func:`contact_tables`), so that the compiled
phases evaluate them with the joints and forces (:func:`nonsmooth.spatial.kernels.
_evaluate_into`); ``kernels.spatial_contact_terms`` is the same loop for the Python path.

Table rows, one per contact:

* ``ints`` (n_c, :data:`N_INTS`): ``[CONTACT, a, b, c, patch, 0, kind_a, kind_b, law_kind,
  w_slide, w_spin, w_rolling, p_slide, p_spin, p_rolling]``: the bodies (-1 the ground), the
  contact's index, its patch friction's pressure code (0 none; its one pair of dimension 3:
  the sliding rows, then the spin row scaled by the patch's radius, ``w_spin = w_slide + 2``),
  the shapes' and the law's kind codes, the first row of ``W`` of its sliding (2 rows), spin
  (1) and rolling (2) friction pairs and those pairs' indices (-1: none);
* ``floats`` (n_c, :data:`N_FLOATS`): the shapes' packed numbers (6 each), the law's numbers
  (3), the margin (m), the smallest impact speed (m/s, ``contact.element.MIN_IMPACT_SPEED``),
  the shapes' centres in their bodies' frames (3 each, m; ``Shape.position``), the patch
  friction's given radius (m; 0: the volume of interference's patch).

A volumetric contact (law kind ``VOLUMETRIC``, a shape against a plane) has one load at the
centroid of its volume of interference (:func:`_volumetric_load`, after
``contact.volume.volume_into``): its force, rolling resistance, damping power and elastic
energy as :class:`nonsmooth.spatial.contact.CompiledContact` has them; its friction acts at the
centroid; its gap and events are the point geometry's.

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
from ..contact.shapes import PLANE
from ..contact.volume import VOLUME_OUT, VOLUME_WORK, volume_into
from ..contact.volumetric import VOLUMETRIC
from ..core.layout import H_P, N_HEADER

__all__ = ["CONTACT", "MAX_POINTS", "N_INTS", "N_FLOATS", "VOLUME_BUFFER", "contact_tables",
           "contacts_into", "contact_potential", "contact_count", "contact_workspace_size"]

#: The kind code of a contact's row in the spatial kernel tables (after
#: ``nonsmooth.spatial.tables``' element kinds).
CONTACT = 40
N_INTS, N_FLOATS = 15, 24
_PT = 7  # a geometry row: (gap, x, y, z, nx, ny, nz)
#: A volumetric contact's buffer (floats): ``volume_into``'s output, the plane's point and
#: normal in the shape's frame (3 each), its scratch.
VOLUME_BUFFER = VOLUME_OUT + 6 + VOLUME_WORK
#: Geometry rows within this (m) of the smallest gap make the feature an open volumetric
#: contact will touch with (:func:`_lowest_feature`).
FEATURE_TOL = 1e-12


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
    col = {"slide": 9, "spin": 10, "rolling": 11, "patch": 9}
    for i, c, kind in system._contact_rows:
        ints[c, col[kind]] = int(system.w_row[i])
        ints[c, col[kind] + 3] = i
        if kind == "patch":  # the sliding rows, then the spin row, one pair
            cc = system._contacts[c].contact
            ints[c, 4] = cc.patch
            ints[c, 10] = int(system.w_row[i]) + 2
            floats[c, 23] = cc.patch_radius
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
    normal forces (n_c each); after the geometry buffer the volumetric law's
    (:data:`VOLUME_BUFFER`)."""
    if n_c == 0:
        return 0
    return (MAX_POINTS + 1) * _PT + VOLUME_BUFFER + 2 * (N + 1) * 21 + 7 * N + 3 * n_c


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
def _volume_at(ir, fr, kin, vol):
    """A volumetric contact's volume of interference at the kinematics ``kin``
    (``contact.volume.volume_into`` in the shape's frame, into ``vol``, :data:`VOLUME_BUFFER`
    floats).
    Returns ``(V, x0, x1, x2, m0, m1, m2, h_c, s, p)``: the volume (m^3), its centroid (m,
    world), the plane's unit normal (world, out of the plane), the centroid's depth below the
    plane (m) and the shape's and the plane's bodies (-1 the ground)."""
    N_b = kin.shape[0] - 1
    plane_a = ir[6] == PLANE
    if plane_a:
        s, p, ks, nums_s, nums_p, off_s, off_p = ir[2], ir[1], ir[7], fr[6:12], fr[0:6], \
            fr[20:23], fr[17:20]
    else:
        s, p, ks, nums_s, nums_p, off_s, off_p = ir[1], ir[2], ir[6], fr[0:6], fr[6:12], \
            fr[17:20], fr[20:23]
    ks_ = s if s >= 0 else N_b
    kp = kin[p if p >= 0 else N_b]
    k = kin[ks_]
    # the plane's point and unit normal (world)
    o0, o1, o2 = off_p[0] + nums_p[0], off_p[1] + nums_p[1], off_p[2] + nums_p[2]
    P0 = kp[9] + kp[0] * o0 + kp[1] * o1 + kp[2] * o2
    P1 = kp[10] + kp[3] * o0 + kp[4] * o1 + kp[5] * o2
    P2 = kp[11] + kp[6] * o0 + kp[7] * o1 + kp[8] * o2
    m0 = kp[0] * nums_p[3] + kp[1] * nums_p[4] + kp[2] * nums_p[5]
    m1 = kp[3] * nums_p[3] + kp[4] * nums_p[4] + kp[5] * nums_p[5]
    m2 = kp[6] * nums_p[3] + kp[7] * nums_p[4] + kp[8] * nums_p[5]
    norm = math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    m0, m1, m2 = m0 / norm, m1 / norm, m2 / norm
    # the shape's centre (world) and the plane in the shape's frame: R^T (P - C), R^T m
    C0 = k[9] + k[0] * off_s[0] + k[1] * off_s[1] + k[2] * off_s[2]
    C1 = k[10] + k[3] * off_s[0] + k[4] * off_s[1] + k[5] * off_s[2]
    C2 = k[11] + k[6] * off_s[0] + k[7] * off_s[1] + k[8] * off_s[2]
    out = vol[:VOLUME_OUT]
    ps = vol[VOLUME_OUT:VOLUME_OUT + 3]
    ns = vol[VOLUME_OUT + 3:VOLUME_OUT + 6]
    d0, d1, d2 = P0 - C0, P1 - C1, P2 - C2
    for j in range(3):
        ps[j] = k[j] * d0 + k[3 + j] * d1 + k[6 + j] * d2
        ns[j] = k[j] * m0 + k[3 + j] * m1 + k[6 + j] * m2
    volume_into(ks, nums_s, ps, ns, out, vol[VOLUME_OUT + 6:])
    c0, c1, c2 = out[1], out[2], out[3]
    x0 = C0 + k[0] * c0 + k[1] * c1 + k[2] * c2
    x1 = C1 + k[3] * c0 + k[4] * c1 + k[5] * c2
    x2 = C2 + k[6] * c0 + k[7] * c1 + k[8] * c2
    h_c = m0 * (P0 - x0) + m1 * (P1 - x1) + m2 * (P2 - x2)
    return out[0], x0, x1, x2, m0, m1, m2, h_c, s, p


@njit(cache=True, _nrt=False)
def _volumetric_load(ir, fr, kin, vol, f):
    """A volumetric contact's load at the kinematics ``kin`` into ``f`` (:func:`_volume_at`;
    ``nonsmooth.contact.volumetric``): ``F_n = k_v V (1 + a v_cn)`` (at least 0) along the
    plane's normal ``m`` at the centroid ``x_c`` on the shape (``-F_n m`` on the plane's body),
    ``v_cn`` the approach speed of the shape's material point at ``x_c`` on the plane's, and the
    rolling resistance ``T = -k_v a P I P (omega_s - omega_p)`` (``P = 1 - m m^T``, ``I`` the
    volume's inertia tensor, world) on the shape (``-T`` on the plane's body). Returns ``(F_n,
    P_damping, V, x0, x1, x2, n0, n1, n2)``: the force (N), the damping power (W), the volume
    (m^3), the centroid and the normal from body a to body b (as a point's; the friction's
    point and normal)."""
    V, x0, x1, x2, m0, m1, m2, h_c, s, p = _volume_at(ir, fr, kin, vol)
    sign = 1.0 if ir[6] == PLANE else -1.0  # n from a to b: m if the plane is a, else -m
    if V <= 0.0:
        return 0.0, 0.0, V, x0, x1, x2, sign * m0, sign * m1, sign * m2
    k_v, a = fr[12], fr[13]
    vs0, vs1, vs2 = _point_velocity(kin, s, x0, x1, x2)
    vp0, vp1, vp2 = _point_velocity(kin, p, x0, x1, x2)
    v_cn = -(m0 * (vs0 - vp0) + m1 * (vs1 - vp1) + m2 * (vs2 - vp2))
    F_n = max(0.0, k_v * V * (1.0 + a * v_cn))
    _point_force(f, kin, s, x0, x1, x2, F_n * m0, F_n * m1, F_n * m2)
    _point_force(f, kin, p, x0, x1, x2, -F_n * m0, -F_n * m1, -F_n * m2)
    P = -(F_n - k_v * V) * v_cn
    if a != 0.0:
        N_b = kin.shape[0] - 1
        ks, kp = kin[s if s >= 0 else N_b], kin[p if p >= 0 else N_b]
        w0, w1, w2 = ks[15] - kp[15], ks[16] - kp[16], ks[17] - kp[17]
        # y = P w; z = I y with I = R I_s R^T (world); T = -k_v a P z
        mw = m0 * w0 + m1 * w1 + m2 * w2
        y0, y1, y2 = w0 - mw * m0, w1 - mw * m1, w2 - mw * m2
        out = vol[:VOLUME_OUT]
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = out[4], out[5], out[6], out[7], out[8], out[9]
        b0 = ks[0] * y0 + ks[3] * y1 + ks[6] * y2  # R^T y
        b1 = ks[1] * y0 + ks[4] * y1 + ks[7] * y2
        b2 = ks[2] * y0 + ks[5] * y1 + ks[8] * y2
        e0 = Ixx * b0 + Ixy * b1 + Ixz * b2
        e1 = Ixy * b0 + Iyy * b1 + Iyz * b2
        e2 = Ixz * b0 + Iyz * b1 + Izz * b2
        z0 = ks[0] * e0 + ks[1] * e1 + ks[2] * e2  # R e
        z1 = ks[3] * e0 + ks[4] * e1 + ks[5] * e2
        z2 = ks[6] * e0 + ks[7] * e1 + ks[8] * e2
        mz = m0 * z0 + m1 * z1 + m2 * z2
        c = -k_v * a
        T0, T1, T2 = c * (z0 - mz * m0), c * (z1 - mz * m1), c * (z2 - mz * m2)
        _moment(f, kin, s, T0, T1, T2)
        _moment(f, kin, p, -T0, -T1, -T2)
        P += T0 * w0 + T1 * w1 + T2 * w2
    return F_n, P, V, x0, x1, x2, sign * m0, sign * m1, sign * m2


@njit(cache=True, _nrt=False)
def _moment(f, kin, i, T0, T1, T2):
    """The world moment ``T`` on body ``i`` into ``f`` (``R_i^T T`` on ``omega'_i``; nothing
    for the ground)."""
    if i < 0:
        return
    kk = kin[i]
    f[6 * i + 3] += kk[0] * T0 + kk[3] * T1 + kk[6] * T2
    f[6 * i + 4] += kk[1] * T0 + kk[4] * T1 + kk[7] * T2
    f[6 * i + 5] += kk[2] * T0 + kk[5] * T1 + kk[8] * T2


@njit(cache=True, _nrt=False)
def _contact_point(ir, fr, kin, pts, k, vol):
    """Where a contact's friction acts and its normal (a to b), ``(x0, x1, x2, n0, n1, n2)``:
    a volumetric contact's centroid while it has a volume (:func:`_volume_at`), else
    :func:`_friction_point` of its ``k`` geometry rows ``pts``."""
    if ir[8] == VOLUMETRIC:
        V, x0, x1, x2, m0, m1, m2, h_c, s, p = _volume_at(ir, fr, kin, vol)
        if V > 0.0:
            sign = 1.0 if ir[6] == PLANE else -1.0
            return x0, x1, x2, sign * m0, sign * m1, sign * m2
        return _lowest_feature(pts, k)
    return _friction_point(ir, fr, pts, k)


@njit(cache=True, _nrt=False, inline="always")
def _deepest(pts, k):
    """The index of the geometry row of smallest gap among the ``k`` rows ``pts``."""
    deep = 0
    for r in range(k):
        if pts[r, 0] < pts[deep, 0]:
            deep = r
    return deep


@njit(cache=True, _nrt=False)
def _lowest_feature(pts, k):
    """An open volumetric contact's friction point: the mean of its geometry rows within
    :data:`FEATURE_TOL` of the smallest gap (a face's corners: its centre; an edge's ends: its
    middle; else the deepest point), the limit of the centroid of the volume of interference as
    it appears, so that the point does not jump at the touch; the normal the deepest row's."""
    deep = _deepest(pts, k)
    x0 = x1 = x2 = 0.0
    cnt = 0
    for r in range(k):
        if pts[r, 0] <= pts[deep, 0] + FEATURE_TOL:
            x0 += pts[r, 1]
            x1 += pts[r, 2]
            x2 += pts[r, 3]
            cnt += 1
    if cnt == 0:  # (NaN gaps: a diverged trial state, which the evaluation reports as not
        # finite and the integrator rejects; no division by zero)
        return pts[deep, 1], pts[deep, 2], pts[deep, 3], pts[deep, 4], pts[deep, 5], pts[deep, 6]
    return x0 / cnt, x1 / cnt, x2 / cnt, pts[deep, 4], pts[deep, 5], pts[deep, 6]


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
def _friction_rows(W, ir, kin, x0, x1, x2, n0, n1, n2, axis, r_p):
    """A contact's friction rows of ``W`` at the friction point ``x`` with normal ``n``:
    sliding (``ir[9]``: ``t_k . (v_b(x) - v_a(x))``), spin (``ir[10]``: ``r_p n . (omega_b -
    omega_a)``, ``r_p`` 1, or the patch's radius for patch friction: :func:`_patch_scale`),
    rolling (``ir[11]``: ``t_k . (omega_b - omega_a)``); -1: none."""
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
            _row_into(W, w, kin, i, sign, x0, x1, x2, r_p * n0, r_p * n1, r_p * n2, True)
        w = ir[11]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x0, x1, x2, t0, t1, t2, True)
            _row_into(W, w + 1, kin, i, sign, x0, x1, x2, u0, u1, u2, True)


@njit(cache=True, _nrt=False)
def _patch_scale(ir, fr, vol):
    """The spin row's factor: 1, or for patch friction (``ir[4]``, the pressure code) the
    patch's radius (m): the contact's given one (``fr[23]``), else ``sqrt(A / pi)`` of the
    contact patch of the volume of interference last computed into ``vol`` (0 while open)."""
    if ir[4] <= 0:
        return 1.0
    if fr[23] > 0.0:
        return fr[23]
    return math.sqrt(max(vol[10], 0.0) / math.pi)


@njit(cache=True, _nrt=False)
def _row_values_into(bias, scale, ir, kin, fr, pts, axis, vol):
    """``bias[w] += scale W_w(kin) v`` of the contact's friction rows at the kinematics
    ``kin`` (a perturbed state; its velocities: ``v`` held, so each row's value is that row of
    ``W`` at the perturbed ``q`` times ``v``)."""
    a, b = ir[1], ir[2]
    k = _geometry(ir, fr, kin, pts)
    x0, x1, x2, n0, n1, n2 = _contact_point(ir, fr, kin, pts, k, vol)
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
            bias[w] += scale * _patch_scale(ir, fr, vol) * (n0 * d0 + n1 * d1 + n2 * d2)
        w = ir[11]
        if w >= 0:
            bias[w] += scale * (t0 * d0 + t1 * d1 + t2 * d2)
            bias[w + 1] += scale * (u0 * d0 + u1 * d1 + u2 * d2)


@njit(cache=True, _nrt=False, inline="always")
def _point_loads(kind, law, a, b, kin, pts, k, d0, f):
    """A point law's forces at each penetrating row of ``pts`` (``k`` rows) into ``f``: ``f n``
    on body b at the point, ``-f n`` on body a. Returns ``(N, P_damping)``: their sum (N) and
    damping power (W)."""
    total, P = 0.0, 0.0
    for r in range(k):
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
    return total, P


@njit(cache=True, _nrt=False)
def contacts_into(it, ft, kin, kin_p, kin_m, h, impact, f, W, bias, plan, gaps, approach, Nn,
                  pts, vol):
    """Every :data:`CONTACT` row of the table ``it, ft`` at the kinematics ``kin`` with the
    impact speeds ``impact`` (n_c,), m/s: the contact forces into ``f`` (6 N,), each contact's
    normal force (N), smallest gap (m) and approach speed at its deepest point (m/s) into
    ``Nn``, ``gaps``, ``approach`` (n_c,), the normal force on its friction pairs' preloads
    in ``plan`` (none for an empty ``plan``), its friction rows into ``W`` (zero before) and,
    with ``h > 0``, their bias ``(dW/dt) v`` into ``bias``: the central difference of the rows
    between the kinematics ``kin_p``, ``kin_m`` of ``q +- h dq/dt`` (the velocities held).
    ``pts`` (``MAX_POINTS + 1``, 7) a geometry buffer, ``vol`` (:data:`VOLUME_BUFFER`,) the
    volumetric law's. Returns the contacts' damping power (W)."""
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
        volumetric = kind == VOLUMETRIC
        Vv = x0 = x1 = x2 = n0 = n1 = n2 = 0.0
        if volumetric:
            total, Pc, Vv, x0, x1, x2, n0, n1, n2 = _volumetric_load(ir, fr, kin, vol, f)
        else:
            total, Pc = _point_loads(kind, law, a, b, kin, pts, k, d0, f)
        P += Pc
        deep = _deepest(pts, k)
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
        if volumetric and not Vv > 0.0:  # (open: the feature it will touch with)
            x0, x1, x2, n0, n1, n2 = _lowest_feature(pts, k)
        elif not volumetric:  # (a volumetric contact's: its centroid)
            x0, x1, x2, n0, n1, n2 = _friction_point(ir, fr, pts, k)
        axis = _axis(n0, n1, n2)
        _friction_rows(W, ir, kin, x0, x1, x2, n0, n1, n2, axis, _patch_scale(ir, fr, vol))
        if h > 0.0:
            _row_values_into(bias, 0.5 / h, ir, kin_p, fr, pts, axis, vol)
            _row_values_into(bias, -0.5 / h, ir, kin_m, fr, pts, axis, vol)
    return P


@njit(cache=True, _nrt=False)
def contact_potential(it, ft, kin, pts, vol):
    """The contacts' elastic energy (J) at the kinematics ``kin``: ``K d^(n+1) / (n+1)``
    (``k d^2 / 2``) of each penetrating point; ``k_v V h_c`` of a volumetric contact."""
    V = 0.0
    for e in range(it.shape[0]):
        ir = it[e]
        if ir[0] != CONTACT:
            continue
        fr = ft[e]
        if ir[8] == VOLUMETRIC:
            vV, _, _, _, _, _, _, h_c, _, _ = _volume_at(ir, fr, kin, vol)
            if vV > 0.0:
                V += fr[12] * vV * h_c
            continue
        power = fr[13] if ir[8] == HYSTERETIC else 1.0
        k = _geometry(ir, fr, kin, pts)
        for r in range(k):
            d = -pts[r, 0]
            if d > 0.0:
                V += fr[12] * d ** (power + 1.0) / (power + 1.0)
    return V
