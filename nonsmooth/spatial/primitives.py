"""Joint primitives of the spatial family: constraint values, velocity-level Jacobian rows and
``gamma = -(dG/dt) v`` in closed form (``docs/design/spatial.md`` section 2, ``docs/method.md``
section 15), numpy only.

Conventions (Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 11; Haug,
*Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 9-11). Body ``i`` has
the centre of mass ``r_i`` (world, m), the rotation ``R_i`` (body to world axes), the centre of
mass velocity ``u_i`` (world, m/s) and the angular velocity ``omega'_i`` in body axes (rad/s),
``omega_i = R_i omega'_i`` in world axes; its velocities are the columns ``6 i .. 6 i + 5`` of
``G`` (``[u_i | omega'_i]``). The ground is body ``-1``: ``R = I``, at rest, no columns.

For a body-fixed vector ``h'`` (body axes) with ``h = R h'``: ``dh/dt = omega x h``, and its
second derivative without the angular acceleration ``omega x (omega x h)``; for a body point
``s'``, ``x = r + R s'``: ``dx/dt = u + omega x s``, the same second-derivative remainder. A
scalar ``c . (omega x h)`` is ``omega . (h x c)``: its row of ``G`` on ``omega'`` is
``R^T (h x c)``. The primitives (``phi``, then ``G`` and ``gamma``):

* :class:`SphPrimitive` (3 rows): ``phi = x_b - x_a`` (the point of ``b`` minus that of
  ``a``; multiplier: the force of ``a`` on ``b``, world axes);
  ``G = [-I, s_a~ R_a | I, -s_b~ R_b]``, ``gamma = -(omega_b x (omega_b x s_b)
  - omega_a x (omega_a x s_a))``.
* :class:`Dot1Primitive` (1 row): ``phi = h_a . h_b``; ``G``: ``R_a^T (h_a x h_b)`` on
  ``omega'_a``, ``R_b^T (h_b x h_a)`` on ``omega'_b``; ``gamma = -(hdd_a . h_b + 2 hd_a . hd_b
  + h_a . hdd_b)``.
* :class:`Dot2Primitive` (1 row): ``phi = h_a . d``, ``d = x_b - x_a``; ``G``: ``-h_a`` on
  ``u_a``, ``h_a`` on ``u_b``, ``R_a^T (h_a x (d + s_a))`` on ``omega'_a``, ``R_b^T (s_b x
  h_a)`` on ``omega'_b``; ``gamma = -(hdd_a . d + 2 hd_a . dd + h_a . (xdd_b - xdd_a))``.
* :class:`AnglePrimitive` (1 row): the rotation of ``b`` relative to ``a`` about ``h_a = f_a x
  g_a``, ``theta = atan2(g_a . f_b, f_a . f_b)`` (two Dot1 values ``s``, ``c``): ``G =
  (c G_s - s G_c) / (c^2 + s^2)`` (``= h . (omega_b - omega_a)`` on the joint's manifold),
  ``gamma = -[(c sdd - s cdd) / n2 - 2 (c sd - s cd)(c cd + s sd) / n2^2]`` with ``sdd``,
  ``cdd`` the Dot1 second derivatives without the accelerations.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Kinematics", "SphPrimitive", "Dot1Primitive", "Dot2Primitive", "AnglePrimitive",
           "CrossDot2Primitive"]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` (3,) of two 3-vectors (faster than ``np.cross`` for one pair)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _skew(a: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


class Kinematics:
    """The bodies' kinematics at one state: per body ``R`` (3, 3), ``r``, ``u``, ``omega``
    (world) and ``omega'`` (body axes), each (3,); index ``-1`` (the last entry) is the ground.

    Parameters
    ----------
    n_bodies : int
    q : ndarray (n_q,)   ``[r_i (3), p_i (4)]`` per body, ``p = (w, x, y, z)``, then the
        winding coordinates (``SpatialSystem``; not read here)
    v : ndarray (6 n_bodies,)   ``[u_i (3), omega'_i (3)]`` per body
    """

    __slots__ = ("R", "r", "u", "w", "wb", "q", "v")

    def __init__(self, n_bodies: int, q: np.ndarray, v: np.ndarray):
        N = n_bodies
        self.q, self.v = q, v  # (for the user functions of t, q, v)
        P = q[:7 * N].reshape(N, 7)
        V = v.reshape(N, 6)
        p = P[:, 3:]
        p = p / np.sqrt(np.einsum("ij,ij->i", p, p))[:, None]  # the rotation of p / |p|
        w, x, y, z = p.T
        R = np.empty((N + 1, 3, 3))
        R[:N, 0, 0] = 1.0 - 2.0 * (y * y + z * z)
        R[:N, 0, 1] = 2.0 * (x * y - w * z)
        R[:N, 0, 2] = 2.0 * (x * z + w * y)
        R[:N, 1, 0] = 2.0 * (x * y + w * z)
        R[:N, 1, 1] = 1.0 - 2.0 * (x * x + z * z)
        R[:N, 1, 2] = 2.0 * (y * z - w * x)
        R[:N, 2, 0] = 2.0 * (x * z - w * y)
        R[:N, 2, 1] = 2.0 * (y * z + w * x)
        R[:N, 2, 2] = 1.0 - 2.0 * (x * x + y * y)
        R[N] = np.eye(3)
        self.R = R
        zero = np.zeros((1, 3))
        self.r = np.concatenate((P[:, :3], zero))
        self.u = np.concatenate((V[:, :3], zero))
        self.wb = np.concatenate((V[:, 3:], zero))
        self.w = (R @ self.wb[:, :, None])[:, :, 0]

    @classmethod
    def rows(cls, n_bodies: int, Q: np.ndarray, V: np.ndarray) -> list[Kinematics]:
        """The kinematics at each row of ``Q`` (k, n_q) and ``V`` (k, 6 n_bodies), computed
        together: the numbers of ``Kinematics(n_bodies, Q[j], V[j])`` (the same arithmetic
        over a leading axis), at about 3 us a row instead of 30."""
        stacked = _stacked(n_bodies, Q[:, :7 * n_bodies], V)
        out = []
        for j in range(Q.shape[0]):
            K = cls.__new__(cls)
            K.q, K.v = Q[j], V[j]
            K.R, K.r, K.u, K.wb, K.w = (a[j] for a in stacked)
            out.append(K)
        return out

    def vector(self, i: int, h: np.ndarray):
        """A body-fixed vector ``h'`` of body ``i``: ``(h, dh/dt, d2h/dt2 without the angular
        acceleration)`` in world axes."""
        hw = self.R[i] @ h
        hd = _cross(self.w[i], hw)
        return hw, hd, _cross(self.w[i], hd)

    def point(self, i: int, s: np.ndarray):
        """A body point ``s'`` of body ``i`` (body axes from the centre of mass; for the ground
        the world point): ``(R s', x, dx/dt, d2x/dt2 without the accelerations)``."""
        sw = self.R[i] @ s
        sd = _cross(self.w[i], sw)
        return sw, self.r[i] + sw, self.u[i] + sd, _cross(self.w[i], sd)


def _stacked(N: int, Q: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(R (k, N + 1, 3, 3), r, u, omega', omega (k, N + 1, 3))`` of :class:`Kinematics` at
    the rows ``Q`` (k, 7 N) and ``V`` (k, 6 N); the ground last in each."""
    k = Q.shape[0]
    P = Q.reshape(k, N, 7)
    Vb = V.reshape(k, N, 6)
    p = P[:, :, 3:]
    p = p / np.sqrt(np.einsum("kij,kij->ki", p, p))[:, :, None]  # the rotation of p / |p|
    w, x, y, z = np.moveaxis(p, 2, 0)
    R = np.empty((k, N + 1, 3, 3))
    R[:, :N, 0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[:, :N, 0, 1] = 2.0 * (x * y - w * z)
    R[:, :N, 0, 2] = 2.0 * (x * z + w * y)
    R[:, :N, 1, 0] = 2.0 * (x * y + w * z)
    R[:, :N, 1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[:, :N, 1, 2] = 2.0 * (y * z - w * x)
    R[:, :N, 2, 0] = 2.0 * (x * z - w * y)
    R[:, :N, 2, 1] = 2.0 * (y * z + w * x)
    R[:, :N, 2, 2] = 1.0 - 2.0 * (x * x + y * y)
    R[:, N] = np.eye(3)
    zero = np.zeros((k, 1, 3))
    r = np.concatenate((P[:, :, :3], zero), axis=1)
    u = np.concatenate((Vb[:, :, :3], zero), axis=1)
    wb = np.concatenate((Vb[:, :, 3:], zero), axis=1)
    return R, r, u, wb, (R @ wb[:, :, :, None])[:, :, :, 0]


def _add_linear(G: np.ndarray, row: int, i: int, c: np.ndarray) -> None:
    """``G[row, u_i] += c`` (nothing for the ground)."""
    if i >= 0:
        G[row, 6 * i:6 * i + 3] += c


def _add_angular(G: np.ndarray, row: int, K: Kinematics, i: int, c: np.ndarray) -> None:
    """``G[row, omega'_i] += R_i^T c``: the row of ``omega_i . c`` (``c`` in world axes)."""
    if i >= 0:
        G[row, 6 * i + 3:6 * i + 6] += K.R[i].T @ c


class SphPrimitive:
    """Coincident points: ``phi = (r_b + R_b s_b) - (r_a + R_a s_a)`` (3 rows, m)."""

    n_rows = 3

    def __init__(self, a: int, s_a: np.ndarray, b: int, s_b: np.ndarray):
        self.a, self.b = a, b
        self.s_a, self.s_b = np.asarray(s_a, float), np.asarray(s_b, float)

    def fill(self, K: Kinematics, row: int, phi, G, gamma) -> None:
        a, b = self.a, self.b
        swa, xa, _, xdda = K.point(a, self.s_a)
        swb, xb, _, xddb = K.point(b, self.s_b)
        sl = slice(row, row + 3)
        phi[sl] = xb - xa
        gamma[sl] = -(xddb - xdda)
        if a >= 0:
            G[sl, 6 * a:6 * a + 3] -= np.eye(3)
            G[sl, 6 * a + 3:6 * a + 6] += _skew(swa) @ K.R[a]
        if b >= 0:
            G[sl, 6 * b:6 * b + 3] += np.eye(3)
            G[sl, 6 * b + 3:6 * b + 6] -= _skew(swb) @ K.R[b]


class Dot1Primitive:
    """Perpendicular body vectors: ``phi = (R_a h_a) . (R_b h_b)`` (1 row, -)."""

    n_rows = 1

    def __init__(self, a: int, h_a: np.ndarray, b: int, h_b: np.ndarray):
        self.a, self.b = a, b
        self.h_a, self.h_b = np.asarray(h_a, float), np.asarray(h_b, float)

    def evaluate(self, K: Kinematics, G, row: int) -> tuple[float, float, float]:
        """Add the row into ``G[row]``; returns ``(phi, dphi/dt - G v (= 0), second derivative
        without the accelerations)`` as ``(value, rate, second)``, the rate ``G v``."""
        a, b = self.a, self.b
        ha, hda, hdda = K.vector(a, self.h_a)
        hb, hdb, hddb = K.vector(b, self.h_b)
        _add_angular(G, row, K, a, _cross(ha, hb))
        _add_angular(G, row, K, b, _cross(hb, ha))
        return (float(ha @ hb), float(hda @ hb + ha @ hdb),
                float(hdda @ hb + 2.0 * (hda @ hdb) + ha @ hddb))

    def fill(self, K: Kinematics, row: int, phi, G, gamma) -> None:
        value, _, second = self.evaluate(K, G, row)
        phi[row] = value
        gamma[row] = -second


class Dot2Primitive:
    """A body vector perpendicular to the vector between two points: ``phi = (R_a h_a) .
    (x_b - x_a)`` (1 row, m); with ``h_a`` along a joint axis, the displacement along it."""

    n_rows = 1

    def __init__(self, a: int, h_a: np.ndarray, s_a: np.ndarray, b: int, s_b: np.ndarray):
        self.a, self.b = a, b
        self.h_a = np.asarray(h_a, float)
        self.s_a, self.s_b = np.asarray(s_a, float), np.asarray(s_b, float)

    def evaluate(self, K: Kinematics, G, row: int) -> tuple[float, float]:
        """Add the row into ``G[row]``; returns ``(phi, second derivative without the
        accelerations)``."""
        a, b = self.a, self.b
        ha, hda, hdda = K.vector(a, self.h_a)
        swa, xa, xda, xdda = K.point(a, self.s_a)
        swb, xb, xdb, xddb = K.point(b, self.s_b)
        d, dd = xb - xa, xdb - xda
        _add_linear(G, row, a, -ha)
        _add_linear(G, row, b, ha)
        _add_angular(G, row, K, a, _cross(ha, d + swa))
        _add_angular(G, row, K, b, _cross(swb, ha))
        return float(ha @ d), float(hdda @ d + 2.0 * (hda @ dd) + ha @ (xddb - xdda))

    def fill(self, K: Kinematics, row: int, phi, G, gamma) -> None:
        value, second = self.evaluate(K, G, row)
        phi[row] = value
        gamma[row] = -second


class AnglePrimitive:
    """The rotation angle (rad) of ``b`` relative to ``a`` about ``h_a = f_a x g_a``:
    ``theta = atan2(g_a . f_b, f_a . f_b)``, in (-pi, pi] (``f_b`` the vector of ``b`` equal to
    ``f_a`` at theta = 0)."""

    n_rows = 1

    def __init__(self, a: int, f_a: np.ndarray, g_a: np.ndarray, b: int, f_b: np.ndarray):
        self._s = Dot1Primitive(a, g_a, b, f_b)
        self._c = Dot1Primitive(a, f_a, b, f_b)

    def evaluate(self, K: Kinematics, n_v: int):
        """``(theta, G row (n_v,), second derivative of theta without the accelerations)``."""
        Gs, Gc = np.zeros((1, n_v)), np.zeros((1, n_v))
        s, sd, sdd = self._s.evaluate(K, Gs, 0)
        c, cd, cdd = self._c.evaluate(K, Gc, 0)
        n2 = c * c + s * s
        row = (c * Gs[0] - s * Gc[0]) / n2
        second = (c * sdd - s * cdd) / n2 - 2.0 * (c * sd - s * cd) * (c * cd + s * sd) / (n2 * n2)
        return math.atan2(s, c), row, second


class CrossDot2Primitive:
    """The vector between two points along the common normal of two body vectors: ``phi =
    (R_a h_a x R_b h_b) . (x_b - x_a)`` (1 row, m); with ``h_a``, ``h_b`` a universal joint's
    cross axes, the third component of its point constraint (``docs/design/spatial_friction.md``
    section 2.1).

    With ``n = h_a x h_b``, ``d = x_b - x_a``: ``G`` is ``-n`` on ``u_a``, ``n`` on ``u_b``,
    ``R_a^T (h_a x (h_b x d) + n x s_a)`` on ``omega'_a``, ``R_b^T (h_b x (d x h_a) + s_b x
    n)`` on ``omega'_b``; ``gamma = -(ndd . d + 2 nd . dd + n . (xdd_b - xdd_a))``, ``ndd =
    hdd_a x h_b + 2 hd_a x hd_b + h_a x hdd_b`` (the parts without the accelerations)."""

    n_rows = 1

    def __init__(self, a: int, h_a: np.ndarray, s_a: np.ndarray, b: int, h_b: np.ndarray,
                 s_b: np.ndarray):
        self.a, self.b = a, b
        self.h_a, self.h_b = np.asarray(h_a, float), np.asarray(h_b, float)
        self.s_a, self.s_b = np.asarray(s_a, float), np.asarray(s_b, float)

    def evaluate(self, K: Kinematics, G, row: int) -> tuple[float, float]:
        """Add the row into ``G[row]``; returns ``(phi, second derivative without the
        accelerations)``."""
        a, b = self.a, self.b
        ha, hda, hdda = K.vector(a, self.h_a)
        hb, hdb, hddb = K.vector(b, self.h_b)
        swa, xa, xda, xdda = K.point(a, self.s_a)
        swb, xb, xdb, xddb = K.point(b, self.s_b)
        d, dd = xb - xa, xdb - xda
        n = _cross(ha, hb)
        nd = _cross(hda, hb) + _cross(ha, hdb)
        ndd = _cross(hdda, hb) + 2.0 * _cross(hda, hdb) + _cross(ha, hddb)
        _add_linear(G, row, a, -n)
        _add_linear(G, row, b, n)
        _add_angular(G, row, K, a, _cross(ha, _cross(hb, d)) + _cross(n, swa))
        _add_angular(G, row, K, b, _cross(hb, _cross(d, ha)) + _cross(swb, n))
        return float(n @ d), float(ndd @ d + 2.0 * (nd @ dd) + n @ (xddb - xdda))

    def fill(self, K: Kinematics, row: int, phi, G, gamma) -> None:
        value, second = self.evaluate(K, G, row)
        phi[row] = value
        gamma[row] = -second
