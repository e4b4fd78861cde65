"""The spatial family's contacts compiled: every contact's forces, normal force, gap, approach
speed and friction rows in one call (:func:`contact_terms`), the arithmetic of
:class:`nonsmooth.spatial.contact.CompiledContact` (its Python reference;
``tests/contact/test_spatial_contact_kernels.py`` compares them) over flat tables
(:func:`contact_tables`).

Tables, one row per contact:

* ``ints`` (n_c, 8): ``[a, b, kind_a, kind_b, law_kind, w_slide, w_spin, w_rolling]``: the
  bodies (-1 the ground), the shapes' and the law's kind codes, the first row of ``W`` of its
  sliding (2 rows), spin (1) and rolling (2) friction pairs (-1: none);
* ``floats`` (n_c, 16): the shapes' packed numbers (6 each), the law's numbers (3), the margin
  (m).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..contact.geometry import MAX_POINTS, pair_geometry
from ..contact.laws import HYSTERETIC, normal_force
from .kernels import _kinematics

__all__ = ["contact_tables", "contact_terms"]

N_INTS, N_FLOATS = 8, 16


def contact_tables(system) -> tuple[np.ndarray, np.ndarray]:
    """The contacts of a :class:`~nonsmooth.spatial.model.SpatialSystem` as ``(ints,
    floats)`` (module docstring)."""
    n_c = len(system._contacts)
    ints = np.full((n_c, N_INTS), -1, dtype=np.int64)
    floats = np.zeros((n_c, N_FLOATS))
    for c, cc in enumerate(system._contacts):
        ints[c, :5] = (cc.a, cc.b, cc.kind_a, cc.kind_b, cc.law_kind)
        floats[c, :cc.nums_a.size] = cc.nums_a
        floats[c, 6:6 + cc.nums_b.size] = cc.nums_b
        floats[c, 12:15] = cc.law
        floats[c, 15] = cc.margin
    for i, c, kind in system._contact_rows:
        ints[c, {"slide": 5, "spin": 6, "rolling": 7}[kind]] = int(system.w_row[i])
    return ints, floats


@njit(cache=True)
def _elastic(kind, law, d):
    if kind == HYSTERETIC:
        return law[0] * d ** law[1]
    return law[0] * d


@njit(cache=True)
def _tangents(n0, n1, n2):
    """Two unit tangents of the unit normal ``n`` (``spatial.contact.tangents``)."""
    a0, a1, a2 = abs(n0), abs(n1), abs(n2)
    if a0 <= a1 and a0 <= a2:
        e0, e1, e2 = 1.0, 0.0, 0.0
    elif a1 <= a2:
        e0, e1, e2 = 0.0, 1.0, 0.0
    else:
        e0, e1, e2 = 0.0, 0.0, 1.0
    t0, t1, t2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0
    norm = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / norm, t1 / norm, t2 / norm
    return t0, t1, t2, n1 * t2 - n2 * t1, n2 * t0 - n0 * t2, n0 * t1 - n1 * t0


@njit(cache=True)
def _row_into(W, w, kin, i, sign, x, t0, t1, t2, angular_only):
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
        s0, s1, s2 = x[0] - k[9], x[1] - k[10], x[2] - k[11]
        c0, c1, c2 = s1 * t2 - s2 * t1, s2 * t0 - s0 * t2, s0 * t1 - s1 * t0
    W[w, 6 * i + 3] += sign * (k[0] * c0 + k[3] * c1 + k[6] * c2)
    W[w, 6 * i + 4] += sign * (k[1] * c0 + k[4] * c1 + k[7] * c2)
    W[w, 6 * i + 5] += sign * (k[2] * c0 + k[5] * c1 + k[8] * c2)


@njit(cache=True)
def _point_force(f, kin, i, x, F0, F1, F2):
    """The world force ``F`` at the world point ``x`` on body ``i`` into ``f`` (``F`` on
    ``u_i``, ``R_i^T ((x - r_i) x F)`` on ``omega'_i``; nothing for the ground)."""
    if i < 0:
        return
    kk = kin[i]
    f[6 * i] += F0
    f[6 * i + 1] += F1
    f[6 * i + 2] += F2
    s0, s1, s2 = x[0] - kk[9], x[1] - kk[10], x[2] - kk[11]
    c0, c1, c2 = s1 * F2 - s2 * F1, s2 * F0 - s0 * F2, s0 * F1 - s1 * F0
    f[6 * i + 3] += kk[0] * c0 + kk[3] * c1 + kk[6] * c2
    f[6 * i + 4] += kk[1] * c0 + kk[4] * c1 + kk[7] * c2
    f[6 * i + 5] += kk[2] * c0 + kk[5] * c1 + kk[8] * c2


@njit(cache=True)
def contact_terms(ci, cf, q, v, impact, min_impact, n_v, p_rows):
    """Every contact at ``(q, v)`` with its impact speed ``impact`` (n_c,), m/s (at least
    ``min_impact``): ``(f (n_v,), P_damping (W), N (n_c,), gap (n_c,), approach (n_c,), W
    (p_rows, n_v))``: the generalized forces, the damping power, each contact's normal force
    (N), smallest gap (m) and approach speed at its deepest point (m/s), and its friction
    pairs' rows of ``W`` (the other rows zero)."""
    N_b = n_v // 6
    kin = np.zeros((N_b + 1, 21))
    _kinematics(N_b, q, v, kin)
    n_c = ci.shape[0]
    f = np.zeros(n_v)
    W = np.zeros((p_rows, n_v))
    Nn, gaps, approach = np.zeros(n_c), np.zeros(n_c), np.zeros(n_c)
    out = np.zeros((MAX_POINTS, 7))
    P = 0.0
    for c in range(n_c):
        a, b = ci[c, 0], ci[c, 1]
        ia = a if a >= 0 else N_b
        ib = b if b >= 0 else N_b
        law = cf[c, 12:15]
        k = pair_geometry(ci[c, 2], cf[c, 0:6], kin[ia, 9:12], kin[ia, 0:9].reshape(3, 3),
                          ci[c, 3], cf[c, 6:12], kin[ib, 9:12], kin[ib, 0:9].reshape(3, 3),
                          cf[c, 15], out)
        d0 = max(impact[c], min_impact)
        deep, wsum = 0, 0.0
        xc0 = xc1 = xc2 = nc0 = nc1 = nc2 = 0.0
        n_pen = 0
        for r in range(k):
            if out[r, 0] < out[deep, 0]:
                deep = r
            x = out[r, 1:4]
            n0, n1, n2 = out[r, 4], out[r, 5], out[r, 6]
            rate = 0.0  # -n . (v_b(x) - v_a(x))
            for i, sign in ((ib, -1.0), (ia, 1.0)):
                kk = kin[i]
                s0, s1, s2 = x[0] - kk[9], x[1] - kk[10], x[2] - kk[11]
                w0, w1, w2 = kk[15], kk[16], kk[17]
                v0 = kk[12] + w1 * s2 - w2 * s1
                v1 = kk[13] + w2 * s0 - w0 * s2
                v2 = kk[14] + w0 * s1 - w1 * s0
                rate += sign * (n0 * v0 + n1 * v1 + n2 * v2)
            if r == deep:
                approach[c] = rate
            d = -out[r, 0]
            if d <= 0.0:
                continue
            force = normal_force(ci[c, 4], law, d, rate, d0)
            elastic = _elastic(ci[c, 4], law, d)
            P -= (force - elastic) * rate
            Nn[c] += force
            n_pen += 1
            wsum += elastic
            xc0 += elastic * x[0]
            xc1 += elastic * x[1]
            xc2 += elastic * x[2]
            nc0 += elastic * n0
            nc1 += elastic * n1
            nc2 += elastic * n2
            _point_force(f, kin, b, x, force * n0, force * n1, force * n2)
            _point_force(f, kin, a, x, -force * n0, -force * n1, -force * n2)
        gaps[c] = out[deep, 0]
        if ci[c, 5] < 0 and ci[c, 6] < 0 and ci[c, 7] < 0:
            continue
        # the friction point: the centre of pressure of several, else the deepest point
        if k == 1 or n_pen <= 1:
            x = out[deep, 1:4].copy()
            n0, n1, n2 = out[deep, 4], out[deep, 5], out[deep, 6]
        else:
            x = np.array((xc0 / wsum, xc1 / wsum, xc2 / wsum))
            norm = math.sqrt(nc0 * nc0 + nc1 * nc1 + nc2 * nc2)
            n0, n1, n2 = nc0 / norm, nc1 / norm, nc2 / norm
        _friction_rows(W, ci[c, 5:8], kin, a, b, x, n0, n1, n2)
    return f, P, Nn, gaps, approach, W


@njit(cache=True)
def _friction_rows(W, w_rows, kin, a, b, x, n0, n1, n2):
    """A contact's friction rows of ``W`` at the friction point ``x`` with normal ``n``:
    sliding (``w_rows[0]``: ``t_k . (v_b(x) - v_a(x))``), spin (``w_rows[1]``: ``n . (omega_b -
    omega_a)``), rolling (``w_rows[2]``: ``t_k . (omega_b - omega_a)``); -1: none."""
    t0, t1, t2, u0, u1, u2 = _tangents(n0, n1, n2)
    for i, sign in ((b, 1.0), (a, -1.0)):
        if i < 0:
            continue
        w = w_rows[0]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x, t0, t1, t2, False)
            _row_into(W, w + 1, kin, i, sign, x, u0, u1, u2, False)
        w = w_rows[1]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x, n0, n1, n2, True)
        w = w_rows[2]
        if w >= 0:
            _row_into(W, w, kin, i, sign, x, t0, t1, t2, True)
            _row_into(W, w + 1, kin, i, sign, x, u0, u1, u2, True)
