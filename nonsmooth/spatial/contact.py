"""A :class:`~nonsmooth.contact.element.Contact` in the spatial family: its gap, approach speed,
forces and elastic energy at the bodies' kinematics (the model-family contract's obligation 12;
the run keeps its impact speed and its touch and leave events).

The pair's geometry is :func:`nonsmooth.contact.geometry.pair_geometry` at the shapes' poses
(each shape in its body's frame: the body's position and rotation; the ground's is the world's),
the force law :func:`nonsmooth.contact.laws.normal_force`. At each contact point ``x`` with
normal ``n`` (from a to b) and penetration ``d = -gap > 0`` the force ``f n`` acts on body b at
``x`` and ``-f n`` on body a; ``d' = -n . (v_b(x) - v_a(x))`` with ``v_i(x)`` the velocity of
body i's material point at ``x`` (the exact rate of these closed forms' gaps,
``nonsmooth.contact.geometry``). Power: the elastic part ``f_e(d) = K d^n`` (``k d``) has the
potential ``K d^(n+1) / (n+1)`` (``k d^2 / 2``) in :meth:`potential`, the rest ``(f - f_e)``
does the damping work ``-(f - f_e) d'``.

Friction: a pair of dimension 2 in the tangent plane at :meth:`CompiledContact.friction_point`
(a single point, or the centre of pressure of several: a box on its face slides and sticks as a
whole, its friction at the centre of its corner forces; no torsional friction about the normal).

A volumetric contact (``normal=Volumetric(k_v, damping=a)``, a shape against a plane) has one
load at the centroid ``x_c`` of the volume of interference ``V``
(:func:`nonsmooth.contact.interference`): ``F_n = k_v V (1 + a v_cn)`` (at least 0) along the
plane's normal on the shape, ``v_cn`` the approach speed of the shape's material point at
``x_c`` on the plane's, and the rolling resistance ``-k_v a J_t (omega_s - omega_p)`` as a pure
moment (``J_t`` the volume's inertia tensor projected on the plane); its elastic energy is
``k_v V h_c``, ``h_c`` the centroid's depth below the plane, and its friction acts at ``x_c``
(:mod:`nonsmooth.contact.volumetric`). The gap and the events stay the point geometry's (the
shape's deepest point).

A rigid contact (``normal="rigid"``) has no force, no elastic energy and no friction pair: the
time-stepping run reads its points' gaps and velocity rows (:meth:`CompiledContact.rigid_rows`:
the normal row ``n . (v_b(x) - v_a(x))`` and the two tangent rows at each point ``x``).
"""

from __future__ import annotations

import math

import numpy as np

from ..contact.element import MIN_IMPACT_SPEED, RIGID
from ..contact.geometry import MAX_POINTS, pair_geometry
from ..contact.laws import HYSTERETIC, normal_force
from ..contact.shapes import BOX, PLANE, SPHERE
from ..contact.volume import contact_patch, interference
from ..contact.volumetric import VOLUMETRIC
from .primitives import Kinematics

#: Geometry rows within this (m) of the smallest gap make the feature an open volumetric
#: contact will touch with (``contact_kernels.FEATURE_TOL``).
FEATURE_TOL = 1e-12

__all__ = ["CompiledContact", "tangents"]


def _cross(a, b):
    return np.array((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]))


def _cross_last(a, b):
    """``a x b`` over the last axis (of length 3), broadcast (``np.cross`` without its
    axis bookkeeping, ~20x faster on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), axis=-1)


def tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit tangents ``t_1, t_2`` of the unit normal ``n`` (``t_1 x t_2 = n``): ``t_1``
    along ``n x e``, ``e`` the world axis least aligned with ``n`` (a constant basis for a
    constant normal, as on a plane)."""
    e = np.zeros(3)
    e[int(np.argmin(np.abs(n)))] = 1.0
    t1 = _cross(n, e)
    t1 /= np.linalg.norm(t1)
    return t1, _cross(n, t1)


class CompiledContact:
    """A contact of a compiled spatial model: ``a``, ``b`` its bodies' indices (-1 the
    ground)."""

    def __init__(self, contact, a: int, b: int):
        self.contact, self.name, self.a, self.b = contact, contact.name, a, b
        self.kind_a, self.nums_a = contact.shape_a.kind, contact.shape_a.pack()
        self.kind_b, self.nums_b = contact.shape_b.kind, contact.shape_b.pack()
        self.law_kind = int(contact.law_kind)
        self.rigid = self.law_kind == RIGID  # (no force law: rigid_rows, Moreau-Jean)
        self.volumetric = self.law_kind == VOLUMETRIC
        self.plane_a = self.kind_a == PLANE  # (volumetric: which side is the plane)
        self.law = np.ascontiguousarray(contact.law_numbers, dtype=float)
        self.margin = float(contact.margin)
        # each shape's centre in its body's frame (m; ``Shape.position``)
        self.offset_a = np.array(contact.shape_a.position, dtype=float)
        self.offset_b = np.array(contact.shape_b.position, dtype=float)
        self._out = np.zeros((MAX_POINTS, 7))

    def points(self, K: Kinematics, margin: float | None = None) -> np.ndarray:
        """The contact rows ``(gap, x, y, z, nx, ny, nz)`` (k, 7) at ``K`` (a new array); the
        points of a multi-point pair within ``margin`` (m; default the contact's)."""
        a, b = self.a, self.b
        p_a = K.r[a] + K.R[a] @ self.offset_a  # the shapes' centres (world)
        p_b = K.r[b] + K.R[b] @ self.offset_b
        k = pair_geometry(self.kind_a, self.nums_a, p_a, np.ascontiguousarray(K.R[a]),
                          self.kind_b, self.nums_b, p_b, np.ascontiguousarray(K.R[b]),
                          self.margin if margin is None else float(margin), self._out)
        return self._out[:k].copy()

    def _velocity(self, K: Kinematics, i: int, x: np.ndarray) -> np.ndarray:
        """The velocity (m/s, world) of body ``i``'s material point at ``x``."""
        return K.u[i] + _cross(K.w[i], x - K.r[i])

    def _rate(self, K: Kinematics, row: np.ndarray) -> float:
        """``d' = -n . (v_b(x) - v_a(x))`` (m/s) of one contact row."""
        x, n = row[1:4], row[4:7]
        return -float(n @ (self._velocity(K, self.b, x) - self._velocity(K, self.a, x)))

    def gap(self, K: Kinematics) -> float:
        """The smallest gap (m) of the contact's points: its event function."""
        return float(self.points(K)[:, 0].min())

    def approach(self, K: Kinematics) -> float:
        """The approach speed ``-d gap/dt`` (m/s) at the deepest point."""
        rows = self.points(K)
        return self._rate(K, rows[int(np.argmin(rows[:, 0]))])

    def _plane(self, K: Kinematics) -> tuple:
        """A volumetric contact's ``(s, p, shape, P, m)``: the shape's body and the plane's
        (-1 the ground), the shape, and the plane's point (m) and unit normal (out of it),
        world."""
        c = self.contact
        s, p = (self.b, self.a) if self.plane_a else (self.a, self.b)
        shape, plane = (c.shape_b, c.shape_a) if self.plane_a else (c.shape_a, c.shape_b)
        m = K.R[p] @ np.asarray(plane.normal, dtype=float)
        P = K.r[p] + K.R[p] @ (np.asarray(plane.position, dtype=float)
                               + np.asarray(plane.point, dtype=float))
        return s, p, shape, P, m / np.linalg.norm(m)

    def volume(self, K: Kinematics) -> dict:
        """A volumetric contact's state at ``K`` (world): ``V`` (m^3), ``centroid`` (3,),
        ``inertia`` (3, 3; m^5, about the centroid), ``normal`` (3,; the plane's, out of it),
        ``depth`` (m, the centroid's below the plane), ``v_cn`` (m/s, the approach speed of
        the shape's material point at the centroid on the plane's), ``omega`` (3,; rad/s, the
        shape's angular velocity relative to the plane's) and the bodies ``s`` (the shape's)
        and ``p`` (the plane's)."""
        s, p, shape, P, m = self._plane(K)
        Rs = K.R[s]
        it = interference(shape, Rs.T @ (P - K.r[s]), Rs.T @ m)
        x_c = K.r[s] + Rs @ it.centroid
        v_cn = -float(m @ (self._velocity(K, s, x_c) - self._velocity(K, p, x_c)))
        return {"V": it.V, "centroid": x_c, "inertia": Rs @ it.inertia @ Rs.T, "normal": m,
                "depth": float(m @ (P - x_c)), "v_cn": v_cn, "omega": K.w[s] - K.w[p],
                "s": s, "p": p}

    def _volumetric_load(self, K: Kinematics) -> tuple[float, np.ndarray, dict]:
        """``(F_n, T, volume)``: the normal force (N, on the shape along the plane's normal),
        the rolling resistance torque (3,; N m, world, on the shape) and :meth:`volume`."""
        vol = self.volume(K)
        k_v, a = self.law[0], self.law[1]
        F_n = max(0.0, k_v * vol["V"] * (1.0 + a * vol["v_cn"]))
        m = vol["normal"]
        P = np.eye(3) - np.outer(m, m)
        T = -k_v * a * (P @ vol["inertia"] @ P @ vol["omega"]) if vol["V"] > 0.0 \
            else np.zeros(3)
        return F_n, T, vol

    def _elastic(self, d: float) -> float:
        if self.rigid or self.volumetric:
            return 0.0
        if self.law_kind == HYSTERETIC:
            return float(self.law[0] * d ** self.law[1])
        return float(self.law[0] * d)

    def loads(self, K: Kinematics, impact: float):
        """``[(x (3,), n (3,), f, d, d')]`` of each penetrating point: its force (N) at
        ``impact`` (m/s)."""
        if self.rigid:  # no compliant force (its impulses are the time step's)
            return []
        if self.volumetric:  # one load at the centroid (n from a to b, as a point's)
            F_n, _, vol = self._volumetric_load(K)
            if vol["V"] <= 0.0:
                return []
            n = vol["normal"] if self.plane_a else -vol["normal"]
            return [(vol["centroid"], n, F_n, vol["depth"], vol["v_cn"])]
        d0 = max(float(impact), MIN_IMPACT_SPEED)
        out = []
        for row in self.points(K):
            d = -row[0]
            if d > 0.0:
                rate = self._rate(K, row)
                out.append((row[1:4], row[4:7], float(normal_force(self.law_kind, self.law, d,
                                                                   rate, d0)), d, rate))
        return out

    def apply(self, K: Kinematics, impact: float, f: np.ndarray) -> tuple[float, float]:
        """Add the contact's forces into ``f`` (n_v,); returns their damping power (W) and
        the normal force (N, the sum over its points)."""
        P = N = 0.0
        if self.volumetric:  # the force at the centroid, the rolling resistance as a moment
            F_n, T, vol = self._volumetric_load(K)
            if vol["V"] <= 0.0:
                return 0.0, 0.0
            x, F = vol["centroid"], F_n * vol["normal"]
            for i, sign in ((vol["s"], 1.0), (vol["p"], -1.0)):
                if i >= 0:
                    f[6 * i:6 * i + 3] += sign * F
                    f[6 * i + 3:6 * i + 6] += sign * (K.R[i].T @ (_cross(x - K.r[i], F) + T))
            P = -(F_n - self.law[0] * vol["V"]) * vol["v_cn"] + float(T @ vol["omega"])
            return P, F_n
        for x, n, force, d, rate in self.loads(K, impact):
            F = force * n
            for i, sign in ((self.b, 1.0), (self.a, -1.0)):
                if i >= 0:
                    f[6 * i:6 * i + 3] += sign * F
                    f[6 * i + 3:6 * i + 6] += sign * (K.R[i].T @ _cross(x - K.r[i], F))
            P -= (force - self._elastic(d)) * rate
            N += force
        return P, N

    def rigid_rows(self, K: Kinematics, n_v: int,
                   margin: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each contact point's gap and velocity rows, for the impulse problem of a time step
        (the points of a multi-point pair within ``margin``, m; default the contact's).

        Returns
        -------
        gaps : ndarray, shape (k,)
            The points' gaps (m; < 0 penetrating), ``k`` the pair's points.
        W_N : ndarray, shape (k, n_v)
            The normal rows ``n . (v_b(x) - v_a(x))`` (the gaps' rates, m/s, > 0 separating).
        W_T : ndarray, shape (k, 2, n_v)
            The tangent rows ``t_j . (v_b(x) - v_a(x))`` along :func:`tangents` of each
            point's normal (a velocity ``u_i`` in world axes, ``omega'_i`` in body axes, as
            :meth:`slip_rows`).
        """
        rows = self.points(K, margin)
        k = rows.shape[0]
        x, n = rows[:, 1:4], rows[:, 4:7]
        # each point's axes (n, t_1, t_2) as (k, 3, 3), all points at once (tangents())
        e = np.zeros((k, 3))
        e[np.arange(k), np.argmin(np.abs(n), axis=1)] = 1.0
        t1 = _cross_last(n, e)
        t1 /= np.sqrt(np.einsum("ij,ij->i", t1, t1))[:, None]
        axes = np.stack((n, t1, _cross_last(n, t1)), axis=1)
        W = np.zeros((k, 3, n_v))
        for i, sign in ((self.b, 1.0), (self.a, -1.0)):
            if i < 0:
                continue
            Rt = K.R[i].T
            s = (x - K.r[i]) @ Rt.T  # the points in body i's axes (k, 3)
            h_body = axes @ Rt.T  # the axes in body i's axes (k, 3, 3)
            W[:, :, 6 * i:6 * i + 3] += sign * axes
            W[:, :, 6 * i + 3:6 * i + 6] += sign * _cross_last(s[:, None, :], h_body)
        return rows[:, 0].copy(), W[:, 0].copy(), W[:, 1:].copy()

    def rigid_bias(self, K: Kinematics) -> tuple[np.ndarray, np.ndarray] | None:
        """``(dW_N/dt) v`` (k,) and ``(dW_T/dt) v`` (k, 2) of :meth:`rigid_rows` (all the
        pair's points) in closed form where the pair has one, else None.

        Against the ground's plane (normal and tangents constant; the body's angular velocity
        ``omega`` in world axes constant at fixed ``omega'``) a row is ``h . (u + omega x (x -
        r))`` with ``x`` the point midway between the surfaces, so its bias is ``h . (omega x
        d(x - r)/dt)`` (with the row's sign). With ``n`` from body a to body b and ``s = +1``
        for the body on side a (-1 on side b): a sphere of centre ``c`` has ``x - r = (c - r) +
        s (R + g / 2) n``, whose rate is ``omega x (c - r) + s (g' / 2) n``; a box's corner
        ``c`` has ``x - r = (c - r) + s (g / 2) n``, the same rate (``c`` a material point in
        both)."""
        ground_plane = (self.kind_b == PLANE and self.b < 0) or (self.kind_a == PLANE and
                                                                  self.a < 0)
        if not ground_plane or self.kind_a == self.kind_b:
            return None
        body, sign = (self.a, -1.0) if self.kind_b == PLANE else (self.b, 1.0)
        kind = self.kind_a if self.kind_b == PLANE else self.kind_b
        if kind not in (SPHERE, BOX):
            return None
        rows = self.points(K, math.inf)
        k = rows.shape[0]
        g, x, n = rows[:, 0], rows[:, 1:4], rows[:, 4:7]
        w = K.w[body]
        rel = x - K.r[body]
        g_dot = sign * np.einsum("ij,ij->i", n, K.u[body] + _cross_last(w, rel))
        side = -sign  # +1: the body is a (n points from it), -1: it is b
        rate = side * 0.5 * g_dot[:, None] * n
        if kind == BOX:  # the corner, a material point
            rate = rate + _cross_last(w, rel - side * 0.5 * g[:, None] * n)
        else:  # the sphere's centre, a material point (the shape may be off the body's origin)
            offset = self.offset_a if body == self.a else self.offset_b
            rate = rate + _cross_last(w, K.R[body] @ offset)
        acc = sign * _cross_last(w, rate)  # (k, 3)
        e = np.zeros((k, 3))
        e[np.arange(k), np.argmin(np.abs(n), axis=1)] = 1.0
        t1 = _cross_last(n, e)
        t1 /= np.sqrt(np.einsum("ij,ij->i", t1, t1))[:, None]
        t2 = _cross_last(n, t1)
        return (np.einsum("ij,ij->i", n, acc),
                np.stack((np.einsum("ij,ij->i", t1, acc), np.einsum("ij,ij->i", t2, acc)),
                         axis=1))

    def friction_point(self, K: Kinematics) -> tuple[np.ndarray, np.ndarray]:
        """Where the contact's friction acts and its normal: ``(x (3,), n (3,))``, world. A
        single point's; for several penetrating points their centre of pressure under the
        elastic forces ``f_e(d_k)`` (a function of the configuration only) and the normalised
        mean of their normals (on a plane, its normal), else the deepest point's."""
        if self.volumetric:  # the centroid of the volume of interference
            vol = self.volume(K)
            if vol["V"] > 0.0:
                return vol["centroid"], vol["normal"] if self.plane_a else -vol["normal"]
            rows = self.points(K)  # open: the feature it will touch with (its limit)
            low = rows[:, 0] <= rows[:, 0].min() + FEATURE_TOL
            return rows[low, 1:4].mean(axis=0), rows[int(np.argmin(rows[:, 0])), 4:7]
        rows = self.points(K)
        weights = np.array([self._elastic(-g) if g < 0.0 else 0.0 for g in rows[:, 0]])
        if rows.shape[0] == 1 or np.count_nonzero(weights) <= 1:
            deep = rows[int(np.argmin(rows[:, 0]))]
            return deep[1:4], deep[4:7]
        weights /= weights.sum()
        n = weights @ rows[:, 4:7]
        return weights @ rows[:, 1:4], n / np.linalg.norm(n)

    def slip_rows(self, K: Kinematics, n_v: int, kind: str = "slide") -> np.ndarray:
        """The friction pair's rows of ``W`` (2, n_v) at :meth:`friction_point` ``x``:
        ``t_k . (v_b(x) - v_a(x))``, the slip velocity of body b on body a along the tangents
        ``t_1, t_2`` of :func:`tangents` (a velocity ``u_i`` in world axes, ``omega'_i`` in
        body axes: ``t . (omega_i x s) = omega'_i . (s' x R_i^T t)``, ``s' = R_i^T (x -
        r_i)``). ``kind="spin"``: the row ``n . (omega_b - omega_a)`` (1, n_v);
        ``"rolling"``: ``t_k . (omega_b - omega_a)`` (2, n_v)."""
        if kind == "patch":  # the sliding rows, then the rim speed a n . (omega_b - omega_a)
            return np.vstack((self.slip_rows(K, n_v, "slide"),
                              self.patch_radius(K) * self.slip_rows(K, n_v, "spin")))
        x, n = self.friction_point(K)
        if kind != "slide":  # n . (omega_b - omega_a), t_k . (omega_b - omega_a)
            axes = (n,) if kind == "spin" else tangents(n)
            W = np.zeros((len(axes), n_v))
            for k, h in enumerate(axes):
                for i, sign in ((self.b, 1.0), (self.a, -1.0)):
                    if i >= 0:
                        W[k, 6 * i + 3:6 * i + 6] += sign * (K.R[i].T @ h)
            return W
        W = np.zeros((2, n_v))
        for k, t in enumerate(tangents(n)):
            for i, sign in ((self.b, 1.0), (self.a, -1.0)):
                if i >= 0:
                    W[k, 6 * i:6 * i + 3] += sign * t
                    Rt = K.R[i].T
                    W[k, 6 * i + 3:6 * i + 6] += sign * _cross(Rt @ (x - K.r[i]), Rt @ t)
        return W

    def patch_radius(self, K: Kinematics) -> float:
        """The radius ``a`` (m) of the patch friction's patch: the contact's ``patch_radius``,
        else ``sqrt(A / pi)`` of the volume of interference's contact patch (0 while open)."""
        if self.contact.patch_radius:
            return float(self.contact.patch_radius)
        if not self.volumetric:
            return 0.0
        s, _, shape, P, m = self._plane(K)
        A, _ = contact_patch(shape, K.R[s].T @ (P - K.r[s]), K.R[s].T @ m)
        return math.sqrt(A / math.pi)

    def potential(self, K: Kinematics) -> float:
        """The elastic energy (J) of the penetrating points (0 for a rigid contact)."""
        if self.rigid:
            return 0.0
        if self.volumetric:  # k_v V h_c (module docstring)
            vol = self.volume(K)
            return float(self.law[0] * vol["V"] * vol["depth"]) if vol["V"] > 0.0 else 0.0
        e = 0.0
        for row in self.points(K):
            d = -row[0]
            if d > 0.0:
                p = self.law[1] if self.law_kind == HYSTERETIC else 1.0
                e += self.law[0] * d ** (p + 1.0) / (p + 1.0)
        return float(e)
