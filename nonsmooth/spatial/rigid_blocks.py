"""The rigid contacts' active points of a time step at once, vectorised in numpy: a broad phase
on bounding spheres, then the narrow phase of every sphere-sphere and sphere-plane pair in
whole arrays (the other pairs by :meth:`CompiledContact.rigid_rows`, one call each), and their
velocity rows as 3x6 blocks on the two bodies' velocities (``docs/design/moreau_jean.md``).

For ``n`` spheres in a box the model holds ``n (n - 1) / 2 + 5 n`` contacts (5450 for 100);
asking each for its rows is a Python call per contact per step. Here, per step:

1. **Broad phase**: each contact's lower bound of its gap from its shapes' bounding spheres
   (a sphere's own radius, a box's half-diagonal ...; a plane: the signed distance of the
   other shape's centre less its radius), all contacts at once; a contact is a candidate when
   the bound is within ``horizon (s_a + s_b)``, ``s_i = |u_i| + 2 rho_i |omega_i|`` a bound of
   the speed of body ``i``'s points near its shapes (``rho_i`` the largest distance of its
   shapes' points from its origin; the factor 2 covers a contact point up to ``rho_i`` outside
   its shapes, that is a gap below ``2 rho_i``). A point whose gap predicted ``horizon`` ahead
   closes, ``gap + horizon W_N v <= 0``, is then a candidate's (``|W_N v| <= s_a + s_b``).
2. **Narrow phase** of the candidates: the closed forms of
   :mod:`nonsmooth.contact.geometry` (``_two_spheres``, ``sphere_plane``: gap, point midway
   between the witness points, normal from a to b) in arrays; other pairs by their contact's
   :meth:`~nonsmooth.spatial.contact.CompiledContact.rigid_rows`.
3. **Rows**: at each point ``x`` with normal ``n`` and tangents ``t_1, t_2``
   (:func:`~nonsmooth.spatial.contact.tangents`, vectorised), body ``i``'s block (3, 6) has
   the rows ``sign (h, R_i^T ((x - r_i) x h))`` for ``h = n, t_1, t_2`` (``sign`` +1 for b,
   -1 for a): the same rows as :meth:`CompiledContact.rigid_rows`, whose dense rows are these
   blocks in the bodies' columns ``6 i .. 6 i + 5``.
4. **Activation**: the points with ``gap + horizon W_N v <= 0`` (Siconos' ``MoreauJeanOSI``
   rule with ``horizon = h / 2``).

Numpy only: no compiled kernel (this module is not one of the compiled cache's sources).
"""

from __future__ import annotations

import math

import numpy as np

from ..contact.shapes import BOX, CAPSULE, CYLINDER, ELLIPSOID, PLANE, SPHERE
from ..system import RigidBlocks

__all__ = ["RigidBatch", "bounding_radius"]


def bounding_radius(kind: int, nums: np.ndarray) -> float:
    """The radius (m) of a sphere about a shape's centre that holds the shape (``inf`` for a
    plane or an unknown shape: no bound)."""
    if kind == SPHERE:
        return float(nums[0])
    if kind == CAPSULE:
        return float(nums[0] + 0.5 * nums[1])
    if kind == CYLINDER:
        return float(math.hypot(nums[0], 0.5 * nums[1]))
    if kind == ELLIPSOID:
        return float(max(nums[:3]))
    if kind == BOX:
        return float(np.linalg.norm(nums[:3]))
    return math.inf


def _tangents(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`nonsmooth.spatial.contact.tangents` of each row of ``n`` (k, 3)."""
    e = np.zeros_like(n)
    e[np.arange(n.shape[0]), np.argmin(np.abs(n), axis=1)] = 1.0
    t1 = np.cross(n, e)
    t1 /= np.linalg.norm(t1, axis=1)[:, None]
    return t1, np.cross(n, t1)


class RigidBatch:
    """The vectorised rigid contacts of a compiled spatial system (module docstring).

    Parameters
    ----------
    contacts : sequence of CompiledContact
        The system's contacts (all of them; the rigid ones are taken).
    n_bodies : int
    """

    def __init__(self, contacts, n_bodies: int):
        self.contacts = contacts
        self.n_bodies = n_bodies
        ids = [c for c, cc in enumerate(contacts) if cc.rigid]
        self.ids = np.array(ids, dtype=np.int64)
        rig = [contacts[c] for c in ids]
        self.a = np.array([cc.a for cc in rig], dtype=np.int64)
        self.b = np.array([cc.b for cc in rig], dtype=np.int64)
        self.off_a = np.array([cc.offset_a for cc in rig], dtype=float).reshape(-1, 3)
        self.off_b = np.array([cc.offset_b for cc in rig], dtype=float).reshape(-1, 3)
        self.offset = np.flatnonzero(np.any(self.off_a != 0.0, axis=1)
                                     | np.any(self.off_b != 0.0, axis=1))
        self.rho_a = np.array([bounding_radius(cc.kind_a, cc.nums_a) for cc in rig])
        self.rho_b = np.array([bounding_radius(cc.kind_b, cc.nums_b) for cc in rig])
        self.plane_a = np.array([cc.kind_a == PLANE for cc in rig], dtype=bool)
        self.plane_b = np.array([cc.kind_b == PLANE for cc in rig], dtype=bool)
        # a plane's point (its frame's) and normal, the other shape's radius
        nums = np.zeros((len(rig), 6))
        for j, cc in enumerate(rig):
            if cc.kind_a == PLANE:
                nums[j] = cc.nums_a
            elif cc.kind_b == PLANE:
                nums[j] = cc.nums_b
        self.plane_nums = nums
        self.e = np.array([float(cc.law[0]) for cc in rig])
        self.mu = np.array([float(cc.contact.mu or 0.0) for cc in rig])
        sphere_a = np.array([cc.kind_a == SPHERE for cc in rig], dtype=bool)
        sphere_b = np.array([cc.kind_b == SPHERE for cc in rig], dtype=bool)
        self.two_spheres = sphere_a & sphere_b
        self.sphere_plane = (sphere_a & self.plane_b) | (self.plane_a & sphere_b)
        self.other = ~(self.two_spheres | self.sphere_plane)
        radius = np.zeros(len(rig))
        radius[sphere_a & self.plane_b] = self.rho_a[sphere_a & self.plane_b]
        radius[self.plane_a & sphere_b] = self.rho_b[self.plane_a & sphere_b]
        self.sphere_radius = radius
        # each body's reach: the largest distance of its shapes' points from its origin
        reach = np.zeros(n_bodies + 1)
        for j in range(len(rig)):
            for i, off, rho in ((self.a[j], self.off_a[j], self.rho_a[j]),
                                (self.b[j], self.off_b[j], self.rho_b[j])):
                if i >= 0:
                    reach[i] = max(reach[i], float(np.linalg.norm(off)) + rho)
        self.reach = reach  # (the last entry, index -1, the ground's: 0)
        # the broad phase's groups: two finite shapes, a plane as shape a, a plane as shape b
        finite = ~(self.plane_a | self.plane_b)
        self.fin = np.flatnonzero(finite)
        self.fin_rho = self.rho_a[self.fin] + self.rho_b[self.fin]
        self.sides = []  # (plane_a, contacts, the planes' world (P, m) if on the ground)
        for plane_a, side in ((True, self.plane_a & ~self.plane_b),
                              (False, self.plane_b & ~self.plane_a)):
            j = np.flatnonzero(side)
            fixed = None
            if j.size and np.all((self.a[j] if plane_a else self.b[j]) < 0) \
                    and not np.any((self.off_a[j] if plane_a else self.off_b[j]) != 0.0):
                m = self.plane_nums[j, 3:]
                fixed = (self.plane_nums[j, :3], m / np.linalg.norm(m, axis=1)[:, None])
            self.sides.append((plane_a, j, fixed))
        # the ground's planes in the world, once (their contacts' rows; NaN elsewhere)
        self.fixed_plane = np.zeros(len(rig), dtype=bool)
        self.plane_P = np.full((len(rig), 3), np.nan)
        self.plane_m = np.full((len(rig), 3), np.nan)
        for _, j, fixed in self.sides:
            if fixed is not None:
                self.fixed_plane[j] = True
                self.plane_P[j], self.plane_m[j] = fixed

    def _planes(self, K, j, plane_a):
        """World point and unit normal (each (len(j), 3)) of the planes of contacts ``j``."""
        if np.all(self.fixed_plane[j]):  # (the ground's: constant)
            return self.plane_P[j], self.plane_m[j]
        i = np.where(plane_a, self.a[j], self.b[j])
        off = np.where(plane_a[:, None], self.off_a[j], self.off_b[j])
        R = K.R[i]
        P = K.r[i] + np.einsum("kij,kj->ki", R, off + self.plane_nums[j, :3])
        m = np.einsum("kij,kj->ki", R, self.plane_nums[j, 3:])
        return P, m / np.linalg.norm(m, axis=1)[:, None]

    def _centres(self, K, j):
        """The world centres (each (len(j), 3)) of the shapes a and b of contacts ``j``."""
        # (np.take: a fancy index of the (N + 1, 3) rows is several times slower)
        c_a, c_b = np.take(K.r, self.a[j], axis=0), np.take(K.r, self.b[j], axis=0)
        if not self.offset.size:
            return c_a, c_b
        off = self.offset if isinstance(j, slice) else j[np.isin(j, self.offset)]
        if off.size:  # (shapes off their body's origin)
            at = off if isinstance(j, slice) else np.searchsorted(j, off)
            c_a[at] += np.einsum("kij,kj->ki", K.R[self.a[off]], self.off_a[off])
            c_b[at] += np.einsum("kij,kj->ki", K.R[self.b[off]], self.off_b[off])
        return c_a, c_b

    def candidates(self, K, horizon: float) -> np.ndarray:
        """The positions (into the rigid contacts) of the broad phase's candidates at the
        kinematics ``K`` for the ``horizon`` (s) (module docstring, 1)."""
        a, b = self.a, self.b
        lower = np.full(a.size, -math.inf)
        j = self.fin
        if j.size:
            c_a, c_b = self._centres(K, j)
            d = c_b - c_a
            lower[j] = np.sqrt(np.einsum("ki,ki->k", d, d)) - self.fin_rho
        for plane_a, j, fixed in self.sides:
            if j.size:
                P, m = fixed if fixed is not None else \
                    self._planes(K, j, np.full(j.size, plane_a))
                c_a, c_b = self._centres(K, j)
                centre = c_b if plane_a else c_a
                rho = self.rho_b[j] if plane_a else self.rho_a[j]
                lower[j] = np.einsum("ki,ki->k", centre - P, m) - rho
        speed = (np.linalg.norm(K.u, axis=1)
                 + 2.0 * self.reach * np.linalg.norm(K.w, axis=1))
        speed[-1] = 0.0  # (the ground)
        speed = np.where(np.isfinite(speed), speed, math.inf)
        bound = horizon * (np.take(speed, a) + np.take(speed, b)) if horizon > 0.0 \
            else np.zeros(a.size)
        return np.flatnonzero(~(lower > bound))  # (a NaN bound keeps the contact)

    def blocks(self, K, v: np.ndarray, n_v: int, horizon: float) -> RigidBlocks:
        """The active points at the kinematics ``K`` and velocities ``v`` (n_v,) for the
        ``horizon`` (s): :class:`~nonsmooth.system.RigidBlocks` (module docstring)."""
        cand = self.candidates(K, horizon)
        parts = []  # (j, point, gap, x, n) of the vectorised pairs
        j = cand[self.two_spheres[cand]]
        if j.size:
            c_a, c_b = self._centres(K, j)
            d = c_b - c_a
            dist = np.linalg.norm(d, axis=1)
            n = np.zeros_like(d)
            n[:, 2] = 1.0  # (coincident centres: the world z axis)
            ok = dist > 1e-300
            n[ok] = d[ok] / dist[ok, None]
            ra, rb = self.rho_a[j], self.rho_b[j]
            x = 0.5 * (c_a + c_b) + (0.5 * (ra - rb))[:, None] * n
            parts.append((j, np.zeros(j.size, np.int64), dist - ra - rb, x, n))
        j = cand[self.sphere_plane[cand]]
        if j.size:
            pa = self.plane_a[j]
            P, m = self._planes(K, j, pa)
            c_a, c_b = self._centres(K, j)
            c = np.where(pa[:, None], c_b, c_a)
            r = self.sphere_radius[j]
            s = np.einsum("ki,ki->k", c - P, m)
            x = c - (0.5 * (r + s))[:, None] * m
            n = np.where(pa[:, None], m, -m)  # (from a to b)
            parts.append((j, np.zeros(j.size, np.int64), s - r, x, n))
        k = sum(p[0].size for p in parts)
        js = np.concatenate([p[0] for p in parts]) if parts else np.zeros(0, np.int64)
        point = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, np.int64)
        gap = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
        Ha, Hb = np.zeros((k, 3, 6)), np.zeros((k, 3, 6))
        x = np.zeros((k, 3))
        if k:
            x = np.concatenate([p[3] for p in parts])
            n = np.concatenate([p[4] for p in parts])
            t1, t2 = _tangents(n)
            axes = np.stack((n, t1, t2), axis=1)  # (k, 3, 3): rows n, t_1, t_2
            for H, i, sign in ((Hb, self.b[js], 1.0), (Ha, self.a[js], -1.0)):
                body = i >= 0
                if not body.any():
                    continue
                Rt = np.swapaxes(np.take(K.R, i[body], axis=0), 1, 2)
                lever = x[body] - np.take(K.r, i[body], axis=0)  # (world)
                H[body, :, :3] = sign * axes[body]
                H[body, :, 3:] = sign * np.einsum(
                    "kij,kmj->kmi", Rt, np.cross(lever[:, None, :], axes[body]))
        # the other pairs, one call each
        extra = cand[self.other[cand]]
        xa, xb, xj, xp, xg, xx = [], [], [], [], [], []
        for jj in extra:
            cc = self.contacts[int(self.ids[jj])]
            gaps, W_N, W_T = cc.rigid_rows(K, n_v)
            xx.append(cc.points(K)[:, 1:4])
            for p in range(gaps.size):
                rows = np.vstack((W_N[p], W_T[p]))
                xa.append(rows[:, 6 * cc.a:6 * cc.a + 6] if cc.a >= 0 else np.zeros((3, 6)))
                xb.append(rows[:, 6 * cc.b:6 * cc.b + 6] if cc.b >= 0 else np.zeros((3, 6)))
                xj.append(jj)
                xp.append(p)
                xg.append(gaps[p])
        if xj:
            Ha = np.concatenate((Ha, np.array(xa)))
            Hb = np.concatenate((Hb, np.array(xb)))
            js = np.concatenate((js, np.array(xj, dtype=np.int64)))
            point = np.concatenate((point, np.array(xp, dtype=np.int64)))
            gap = np.concatenate((gap, np.array(xg)))
            x = np.concatenate((x, *xx))
        a, b = self.a[js], self.b[js]
        V = np.vstack((np.asarray(v, float)[:6 * self.n_bodies].reshape(-1, 6), np.zeros(6)))
        rate = (np.einsum("kj,kj->k", Ha[:, 0], V[a]) + np.einsum("kj,kj->k", Hb[:, 0], V[b]))
        on = gap + horizon * rate <= 0.0
        return RigidBlocks(contact=self.ids[js][on], point=point[on], gap=gap[on], x=x[on],
                           rate=rate[on], a=a[on], b=b[on], Ha=Ha[on], Hb=Hb[on],
                           e=self.e[js][on], mu=self.mu[js][on])
