"""Pair geometry: the gap, the contact point(s) and the normal of two primitive shapes, in closed
form, one compiled function per pair of primitives (as MuJoCo's
``engine_collision_primitive.c``).

Every pair function has the signature::

    f(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out) -> int

``nums_*`` the shapes' packed numbers (:meth:`nonsmooth.contact.shapes.Shape.pack`), ``p_*``
(m) and ``R_*`` the poses of the shapes' frames in the world (position, rotation matrix frame ->
world), ``margin`` (m) the multi-point threshold below, and ``out`` a preallocated float64 array
of shape ``(k_max, 7)`` or ``(k_max, 8)``. Each function writes rows::

    (gap, x, y, z, nx, ny, nz[, feature])

and returns how many points it found: rows beyond ``k_max`` are not written (a count above
``k_max`` tells the caller that it dropped some; ``MAX_POINTS`` rows always suffice). ``gap``
(m) is the signed distance of the surfaces, negative when they penetrate; ``(x, y, z)`` (m) the
contact point, midway between the two surfaces' deepest points (the witness points); ``(nx,
ny, nz)`` the unit normal pointing from shape a to shape b: the direction in which b must move
to separate (the gap grows when b moves along it). With an
eighth column, ``feature`` receives the index of the point in its shape's candidate set (a
box's corner 0-7, a capsule's end 0-1, a cylinder's rim point 0-7), stable from one evaluation
to the next, for a family that keeps states per point.

Single-point pairs (sphere-sphere, sphere-plane, sphere-capsule, capsule-capsule,
ellipsoid-plane and the planar pairs) always write one row. Multi-point pairs (capsule-plane,
box-plane, cylinder-plane) have a fixed set of candidate points and write, in the order of their
feature index, every candidate whose gap is below ``margin``; when none is, they write the
deepest candidate alone (so the gap is known while the shapes are apart):

* capsule-plane: the deepest points of the two end spheres (features 0, 1): lying flat on the
  plane, both are within the margin;
* box-plane: the eight corners (feature ``i``: x, y, z signs from bits 0, 1, 2 of ``i``, set = +);
* cylinder-plane: four rim points per end face (features ``4 j + k``, face ``j = 0`` at ``z =
  -length / 2``, ``j = 1`` at ``+length / 2``): ``k = 0`` the face's deepest rim point, then the
  rim points at 90, 180 and 270 degrees from it about the axis. A cylinder on its edge reports
  the deepest rim point of the lower face, on its side the deepest rim point of each face (a line
  contact by its two ends), lying flat on a face the four rim points of that face (all within the
  margin): the support polygon of a flat face, whose forces share the load. When the axis is
  exactly along the plane's normal the deepest direction is undefined and the frame's x axis
  takes its place (the four points then stay fixed in the body); otherwise the four points turn
  with the direction of the tilt.

Planar shapes (:class:`~nonsmooth.contact.shapes.Circle`, ``Hole``, ``Line``) read only the
first two components of ``p`` and the upper-left 2x2 block of ``R``: the planar family may pass
``(2,)`` and ``(2, 2)`` arrays; their rows have ``z = nz = 0``. Arrays should be C-contiguous
float64 (another layout compiles another specialisation).

:func:`pair_geometry` is the one entry point the families call: it orders the pair by kind code
(:mod:`nonsmooth.contact.shapes`), calls the pair's function and flips the normals when it
swapped the shapes; it returns -1 for a pair without a closed form (check
:func:`supported` when the model is built). :func:`contact_points` is its Python face.

The rate of the gap
-------------------
The families compute the gap's rate from the bodies' velocities at the contact point:
:func:`gap_rate` ``= n . (v_b - v_a)``, ``v_a``, ``v_b`` the velocities of the material points of
bodies a and b at the contact point. This is the exact time derivative of the gap of these closed
forms: the gap is ``n . (w_b - w_a)`` with ``w_a``, ``w_b`` the witness points, at which ``n`` is
normal to both surfaces (or a witness point is a material point: a corner, a capsule's end).
Differentiating, ``(w_b - w_a) . dn/dt = gap n . dn/dt = 0`` since ``n`` is a unit vector; a
witness point moves as the material point under it plus a slide along its surface, tangent to
it and so normal to ``n``; and moving from a witness point to the midpoint changes a body's
velocity by ``omega x (gap n / 2)``, also normal to ``n``. Exceptions: the cylinder's rim points
other than the deepest (k = 1, 2, 3) slide along the rim, which is not normal to ``n`` when the
face is tilted: for them the rate is that of the material point (the point held fixed in the
body during the evaluation), which is what a point force acts on; capsule-capsule with parallel
axes (the point is the middle of the overlap) is exact as well, the sliding being along the axes.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import ModelError
from .shapes import (
    BOX,
    CAPSULE,
    CIRCLE,
    CYLINDER,
    ELLIPSOID,
    HOLE,
    KINDS,
    LINE,
    PLANE,
    SPHERE,
    Shape,
)

__all__ = [
    "MAX_POINTS", "PAIRS", "ContactPoint", "contact_points", "gap_rate", "pair_geometry",
    "supported", "sphere_plane", "sphere_sphere", "sphere_capsule", "capsule_capsule",
    "capsule_plane", "ellipsoid_plane", "box_plane", "cylinder_plane", "circle_line",
    "circle_circle", "circle_hole",
]

#: The most rows a pair function writes (a box on a plane: eight corners).
MAX_POINTS = 8

#: The pairs with a closed form, by kind codes (smaller first).
PAIRS = frozenset({
    (SPHERE, SPHERE), (SPHERE, CAPSULE), (SPHERE, PLANE), (CAPSULE, CAPSULE), (CAPSULE, PLANE),
    (ELLIPSOID, PLANE), (CYLINDER, PLANE), (BOX, PLANE),
    (CIRCLE, CIRCLE), (CIRCLE, HOLE), (CIRCLE, LINE),
})

#: Below this squared sine of the angle between two capsules' axes, they are parallel.
_PARALLEL = 1e-12


@njit(cache=True, _nrt=False)
def _row(out, k, gap, x, y, z, nx, ny, nz, feature):
    """Write row ``k`` of ``out`` (nothing beyond its rows; the feature if it has 8 columns)."""
    if k < out.shape[0]:
        out[k, 0] = gap
        out[k, 1] = x
        out[k, 2] = y
        out[k, 3] = z
        out[k, 4] = nx
        out[k, 5] = ny
        out[k, 6] = nz
        if out.shape[1] > 7:
            out[k, 7] = feature


@njit(cache=True, _nrt=False)
def _plane_world(nums, p, R):
    """A plane's (or a line's, in 3-D) point and unit normal in the world."""
    px = p[0] + R[0, 0] * nums[0] + R[0, 1] * nums[1] + R[0, 2] * nums[2]
    py = p[1] + R[1, 0] * nums[0] + R[1, 1] * nums[1] + R[1, 2] * nums[2]
    pz = p[2] + R[2, 0] * nums[0] + R[2, 1] * nums[1] + R[2, 2] * nums[2]
    mx = R[0, 0] * nums[3] + R[0, 1] * nums[4] + R[0, 2] * nums[5]
    my = R[1, 0] * nums[3] + R[1, 1] * nums[4] + R[1, 2] * nums[5]
    mz = R[2, 0] * nums[3] + R[2, 1] * nums[4] + R[2, 2] * nums[5]
    return px, py, pz, mx, my, mz


@njit(cache=True, _nrt=False)
def _two_spheres(ax, ay, az, ra, bx, by, bz, rb, out):
    """Sphere (centre a, radius ra) against sphere (centre b, radius rb): one row. Coincident
    centres take the world z axis as the normal."""
    dx = bx - ax
    dy = by - ay
    dz = bz - az
    dist = math.sqrt(dx * dx + dy * dy + dz * dz)
    if dist > 1e-300:
        nx = dx / dist
        ny = dy / dist
        nz = dz / dist
    else:
        nx = 0.0
        ny = 0.0
        nz = 1.0
    gap = dist - ra - rb
    h = 0.5 * (ra - rb)
    _row(out, 0, gap, 0.5 * (ax + bx) + h * nx, 0.5 * (ay + by) + h * ny,
         0.5 * (az + bz) + h * nz, nx, ny, nz, 0.0)
    return 1


@njit(cache=True, _nrt=False)
def sphere_sphere(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Sphere a against sphere b (one row)."""
    return _two_spheres(p_a[0], p_a[1], p_a[2], nums_a[0], p_b[0], p_b[1], p_b[2], nums_b[0],
                        out)


@njit(cache=True, _nrt=False)
def sphere_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Sphere a against plane b (one row; the normal is minus the plane's)."""
    r = nums_a[0]
    px, py, pz, mx, my, mz = _plane_world(nums_b, p_b, R_b)
    s = (p_a[0] - px) * mx + (p_a[1] - py) * my + (p_a[2] - pz) * mz
    h = 0.5 * (r + s)
    _row(out, 0, s - r, p_a[0] - h * mx, p_a[1] - h * my, p_a[2] - h * mz, -mx, -my, -mz, 0.0)
    return 1


@njit(cache=True, _nrt=False)
def sphere_capsule(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Sphere a against capsule b (one row): the sphere against the sphere of the capsule's
    radius centred at the point of its segment nearest the sphere's centre."""
    h = 0.5 * nums_b[1]
    ux = R_b[0, 2]
    uy = R_b[1, 2]
    uz = R_b[2, 2]
    t = (p_a[0] - p_b[0]) * ux + (p_a[1] - p_b[1]) * uy + (p_a[2] - p_b[2]) * uz
    t = min(max(t, -h), h)
    return _two_spheres(p_a[0], p_a[1], p_a[2], nums_a[0], p_b[0] + t * ux, p_b[1] + t * uy,
                        p_b[2] + t * uz, nums_b[0], out)


@njit(cache=True, _nrt=False)
def capsule_capsule(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Capsule a against capsule b (one row): the spheres of their radii centred at the closest
    points of their segments (Ericson, Real-Time Collision Detection, 5.1.9); parallel segments
    take the middle of their overlap."""
    ha = 0.5 * nums_a[1]
    hb = 0.5 * nums_b[1]
    # segment a: a0 + s d1, s in [0, 1]; segment b: b0 + t d2
    a0x = p_a[0] - ha * R_a[0, 2]
    a0y = p_a[1] - ha * R_a[1, 2]
    a0z = p_a[2] - ha * R_a[2, 2]
    d1x = 2.0 * ha * R_a[0, 2]
    d1y = 2.0 * ha * R_a[1, 2]
    d1z = 2.0 * ha * R_a[2, 2]
    b0x = p_b[0] - hb * R_b[0, 2]
    b0y = p_b[1] - hb * R_b[1, 2]
    b0z = p_b[2] - hb * R_b[2, 2]
    d2x = 2.0 * hb * R_b[0, 2]
    d2y = 2.0 * hb * R_b[1, 2]
    d2z = 2.0 * hb * R_b[2, 2]
    rx = a0x - b0x
    ry = a0y - b0y
    rz = a0z - b0z
    a = d1x * d1x + d1y * d1y + d1z * d1z
    e = d2x * d2x + d2y * d2y + d2z * d2z
    b = d1x * d2x + d1y * d2y + d1z * d2z
    c = d1x * rx + d1y * ry + d1z * rz
    f = d2x * rx + d2y * ry + d2z * rz
    denom = a * e - b * b
    if denom > _PARALLEL * a * e:
        s = min(max((b * f - c * e) / denom, 0.0), 1.0)
    else:
        s0 = -c / a                  # b's ends projected on a's segment
        s1 = (b - c) / a
        lo = max(min(s0, s1), 0.0)
        hi = min(max(s0, s1), 1.0)
        if lo <= hi:
            s = 0.5 * (lo + hi)
        elif max(s0, s1) < 0.0:
            s = 0.0
        else:
            s = 1.0
    t = (b * s + f) / e
    if t < 0.0:
        t = 0.0
        s = min(max(-c / a, 0.0), 1.0)
    elif t > 1.0:
        t = 1.0
        s = min(max((b - c) / a, 0.0), 1.0)
    return _two_spheres(a0x + s * d1x, a0y + s * d1y, a0z + s * d1z, nums_a[0],
                        b0x + t * d2x, b0y + t * d2y, b0z + t * d2z, nums_b[0], out)


@njit(cache=True, _nrt=False)
def capsule_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Capsule a against plane b: its two end spheres' deepest points (features 0 at ``z =
    -length / 2``, 1 at ``+length / 2``) within ``margin``, or the deeper one."""
    r = nums_a[0]
    h = 0.5 * nums_a[1]
    px, py, pz, mx, my, mz = _plane_world(nums_b, p_b, R_b)
    s_c = (p_a[0] - px) * mx + (p_a[1] - py) * my + (p_a[2] - pz) * mz
    s_u = h * (R_a[0, 2] * mx + R_a[1, 2] * my + R_a[2, 2] * mz)
    gap0 = s_c - s_u - r
    gap1 = s_c + s_u - r
    deepest = 0 if gap0 <= gap1 else 1
    none_below = gap0 >= margin and gap1 >= margin
    k = 0
    for i in range(2):
        gap = gap1 if i == 1 else gap0
        if gap < margin or (none_below and i == deepest):
            sign = 2.0 * i - 1.0
            ex = p_a[0] + sign * h * R_a[0, 2]
            ey = p_a[1] + sign * h * R_a[1, 2]
            ez = p_a[2] + sign * h * R_a[2, 2]
            w = r + 0.5 * gap           # from the end's centre to the midpoint, along -m
            _row(out, k, gap, ex - w * mx, ey - w * my, ez - w * mz, -mx, -my, -mz, i)
            k += 1
    return k


@njit(cache=True, _nrt=False)
def ellipsoid_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Ellipsoid a against plane b (one row): its support point in the direction opposite the
    plane's normal ``m``, ``x = -D^2 m' / |D m'|`` in the ellipsoid's frame (``m' = R^T m``,
    ``D = diag(a, b, c)``), at depth ``|D m'|`` below its centre."""
    px, py, pz, mx, my, mz = _plane_world(nums_b, p_b, R_b)
    m1 = R_a[0, 0] * mx + R_a[1, 0] * my + R_a[2, 0] * mz
    m2 = R_a[0, 1] * mx + R_a[1, 1] * my + R_a[2, 1] * mz
    m3 = R_a[0, 2] * mx + R_a[1, 2] * my + R_a[2, 2] * mz
    a2 = nums_a[0] * nums_a[0]
    b2 = nums_a[1] * nums_a[1]
    c2 = nums_a[2] * nums_a[2]
    w = math.sqrt(a2 * m1 * m1 + b2 * m2 * m2 + c2 * m3 * m3)
    x1 = -a2 * m1 / w
    x2 = -b2 * m2 / w
    x3 = -c2 * m3 / w
    sx = p_a[0] + R_a[0, 0] * x1 + R_a[0, 1] * x2 + R_a[0, 2] * x3
    sy = p_a[1] + R_a[1, 0] * x1 + R_a[1, 1] * x2 + R_a[1, 2] * x3
    sz = p_a[2] + R_a[2, 0] * x1 + R_a[2, 1] * x2 + R_a[2, 2] * x3
    gap = (p_a[0] - px) * mx + (p_a[1] - py) * my + (p_a[2] - pz) * mz - w
    h = 0.5 * gap
    _row(out, 0, gap, sx - h * mx, sy - h * my, sz - h * mz, -mx, -my, -mz, 0.0)
    return 1


@njit(cache=True, _nrt=False)
def box_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Box a against plane b: every corner (feature ``i``: the x, y, z half-extents with the
    sign + where bit 0, 1, 2 of ``i`` is set) whose gap is below ``margin``, or the deepest."""
    px, py, pz, mx, my, mz = _plane_world(nums_b, p_b, R_b)
    s_c = (p_a[0] - px) * mx + (p_a[1] - py) * my + (p_a[2] - pz) * mz
    s1 = nums_a[0] * (R_a[0, 0] * mx + R_a[1, 0] * my + R_a[2, 0] * mz)
    s2 = nums_a[1] * (R_a[0, 1] * mx + R_a[1, 1] * my + R_a[2, 1] * mz)
    s3 = nums_a[2] * (R_a[0, 2] * mx + R_a[1, 2] * my + R_a[2, 2] * mz)
    deepest = -1
    least = np.inf
    n_below = 0
    for i in range(8):
        gap = s_c + (s1 if i & 1 else -s1) + (s2 if i & 2 else -s2) + (s3 if i & 4 else -s3)
        if gap < margin:
            n_below += 1
        if gap < least:
            least = gap
            deepest = i
    k = 0
    for i in range(8):
        e1 = nums_a[0] if i & 1 else -nums_a[0]
        e2 = nums_a[1] if i & 2 else -nums_a[1]
        e3 = nums_a[2] if i & 4 else -nums_a[2]
        cx = p_a[0] + R_a[0, 0] * e1 + R_a[0, 1] * e2 + R_a[0, 2] * e3
        cy = p_a[1] + R_a[1, 0] * e1 + R_a[1, 1] * e2 + R_a[1, 2] * e3
        cz = p_a[2] + R_a[2, 0] * e1 + R_a[2, 1] * e2 + R_a[2, 2] * e3
        gap = (cx - px) * mx + (cy - py) * my + (cz - pz) * mz
        if gap < margin or (n_below == 0 and i == deepest):
            h = 0.5 * gap
            _row(out, k, gap, cx - h * mx, cy - h * my, cz - h * mz, -mx, -my, -mz, i)
            k += 1
    return k


@njit(cache=True, _nrt=False)
def cylinder_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Cylinder a against plane b: four rim points per end face (module docstring), every one
    whose gap is below ``margin``, or the deepest."""
    r = nums_a[0]
    h = 0.5 * nums_a[1]
    px, py, pz, mx, my, mz = _plane_world(nums_b, p_b, R_b)
    ux = R_a[0, 2]
    uy = R_a[1, 2]
    uz = R_a[2, 2]
    mu = mx * ux + my * uy + mz * uz
    wx = mx - mu * ux             # the plane's normal's part across the axis
    wy = my - mu * uy
    wz = mz - mu * uz
    wn = math.sqrt(wx * wx + wy * wy + wz * wz)
    if wn > 1e-12:
        wx /= wn
        wy /= wn
        wz /= wn
    else:
        wx = R_a[0, 0]
        wy = R_a[1, 0]
        wz = R_a[2, 0]
    vx = uy * wz - uz * wy        # u x w: 90 degrees on from w about the axis
    vy = uz * wx - ux * wz
    vz = ux * wy - uy * wx
    s_c = (p_a[0] - px) * mx + (p_a[1] - py) * my + (p_a[2] - pz) * mz
    s_w = r * (wx * mx + wy * my + wz * mz)
    s_v = r * (vx * mx + vy * my + vz * mz)
    deepest = -1
    least = np.inf
    n_below = 0
    for i in range(8):
        gap = s_c + (2 * (i // 4) - 1) * h * mu + _rim(i % 4, s_w, s_v)
        if gap < margin:
            n_below += 1
        if gap < least:
            least = gap
            deepest = i
    k = 0
    for i in range(8):
        gap = s_c + (2 * (i // 4) - 1) * h * mu + _rim(i % 4, s_w, s_v)
        if gap < margin or (n_below == 0 and i == deepest):
            sign = 2 * (i // 4) - 1
            cx = p_a[0] + sign * h * ux + _rim(i % 4, r * wx, r * vx)
            cy = p_a[1] + sign * h * uy + _rim(i % 4, r * wy, r * vy)
            cz = p_a[2] + sign * h * uz + _rim(i % 4, r * wz, r * vz)
            g = 0.5 * gap
            _row(out, k, gap, cx - g * mx, cy - g * my, cz - g * mz, -mx, -my, -mz, i)
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _rim(k, w, v):
    """Rim point ``k`` of a face from its centre: ``-w``, ``v``, ``w``, ``-v`` for k = 0..3."""
    if k == 0:
        return -w
    if k == 1:
        return v
    if k == 2:
        return w
    return -v


@njit(cache=True, _nrt=False)
def circle_circle(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Planar: circle a against circle b (one row); coincident centres take the x axis."""
    dx = p_b[0] - p_a[0]
    dy = p_b[1] - p_a[1]
    dist = math.sqrt(dx * dx + dy * dy)
    if dist > 1e-300:
        nx = dx / dist
        ny = dy / dist
    else:
        nx = 1.0
        ny = 0.0
    ra = nums_a[0]
    rb = nums_b[0]
    h = 0.5 * (ra - rb)
    _row(out, 0, dist - ra - rb, 0.5 * (p_a[0] + p_b[0]) + h * nx,
         0.5 * (p_a[1] + p_b[1]) + h * ny, 0.0, nx, ny, 0.0, 0.0)
    return 1


@njit(cache=True, _nrt=False)
def circle_hole(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Planar: circle a (a pin) inside hole b: ``gap = (R_hole - R_pin) - |c_a - c_b|``, the
    normal along ``c_a - c_b`` (the hole moving that way opens the gap); centred pins take the
    x axis."""
    dx = p_a[0] - p_b[0]
    dy = p_a[1] - p_b[1]
    dist = math.sqrt(dx * dx + dy * dy)
    if dist > 1e-300:
        nx = dx / dist
        ny = dy / dist
    else:
        nx = 1.0
        ny = 0.0
    ra = nums_a[0]
    rb = nums_b[0]
    h = 0.5 * (ra + rb)
    _row(out, 0, (rb - ra) - dist, 0.5 * (p_a[0] + p_b[0]) + h * nx,
         0.5 * (p_a[1] + p_b[1]) + h * ny, 0.0, nx, ny, 0.0, 0.0)
    return 1


@njit(cache=True, _nrt=False)
def circle_line(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Planar: circle a against line b (one row; the normal is minus the line's)."""
    px = p_b[0] + R_b[0, 0] * nums_b[0] + R_b[0, 1] * nums_b[1]
    py = p_b[1] + R_b[1, 0] * nums_b[0] + R_b[1, 1] * nums_b[1]
    mx = R_b[0, 0] * nums_b[2] + R_b[0, 1] * nums_b[3]
    my = R_b[1, 0] * nums_b[2] + R_b[1, 1] * nums_b[3]
    r = nums_a[0]
    s = (p_a[0] - px) * mx + (p_a[1] - py) * my
    h = 0.5 * (r + s)
    _row(out, 0, s - r, p_a[0] - h * mx, p_a[1] - h * my, 0.0, -mx, -my, 0.0, 0.0)
    return 1


@njit(cache=True, _nrt=False, inline="always")  # (a dispatch: no call of its own)
def _on_plane(kind_a, nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Shape a against plane b; -1 if the pair has no closed form."""
    if kind_a == SPHERE:
        return sphere_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == CAPSULE:
        return capsule_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == ELLIPSOID:
        return ellipsoid_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == CYLINDER:
        return cylinder_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == BOX:
        return box_plane(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    return -1


@njit(cache=True, _nrt=False, inline="always")  # (a dispatch: no call of its own)
def _planar(kind_b, nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out):
    """Circle a against planar shape b; -1 if the pair has no closed form."""
    if kind_b == CIRCLE:
        return circle_circle(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_b == HOLE:
        return circle_hole(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_b == LINE:
        return circle_line(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    return -1


@njit(cache=True, _nrt=False, inline="always")  # (a dispatch: no call of its own)
def _ordered(kind_a, nums_a, p_a, R_a, kind_b, nums_b, p_b, R_b, margin, out):
    """The pair's function, for ``kind_a <= kind_b``; -1 if the pair has none."""
    if kind_b == PLANE:
        return _on_plane(kind_a, nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == CIRCLE:
        return _planar(kind_b, nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == SPHERE and kind_b == SPHERE:
        return sphere_sphere(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == SPHERE and kind_b == CAPSULE:
        return sphere_capsule(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    if kind_a == CAPSULE and kind_b == CAPSULE:
        return capsule_capsule(nums_a, p_a, R_a, nums_b, p_b, R_b, margin, out)
    return -1


@njit(cache=True, _nrt=False)
def pair_geometry(kind_a, nums_a, p_a, R_a, kind_b, nums_b, p_b, R_b, margin, out):
    """The contact rows of shape a (kind code, packed numbers, pose) against shape b.

    Orders the pair by kind code, calls its function (module docstring) and, when it swapped
    the shapes, flips the normals so that they point from a to b. Returns the number of points
    found (rows written into ``out``, shape ``(k_max, 7)`` or ``(k_max, 8)``, up to ``k_max``),
    or -1 when the pair has no closed form.
    """
    if kind_a <= kind_b:
        return _ordered(kind_a, nums_a, p_a, R_a, kind_b, nums_b, p_b, R_b, margin, out)
    k = _ordered(kind_b, nums_b, p_b, R_b, kind_a, nums_a, p_a, R_a, margin, out)
    for i in range(min(k, out.shape[0])):
        out[i, 4] = -out[i, 4]
        out[i, 5] = -out[i, 5]
        out[i, 6] = -out[i, 6]
    return k


@njit(cache=True, _nrt=False)
def gap_rate(n, v_point_a, v_point_b):
    """The gap's rate (m/s) ``n . (v_b - v_a)``: ``n`` the pair's normal (a to b), ``v_point_a``
    and ``v_point_b`` the velocities (m/s) of the material points of bodies a and b at the
    contact point (2 or 3 components). Exact for every pair here (module docstring)."""
    rate = 0.0
    for i in range(n.shape[0]):
        rate += n[i] * (v_point_b[i] - v_point_a[i])
    return rate


def supported(kind_a: int, kind_b: int) -> bool:
    """Whether the pair of kind codes has a closed form here (in either order)."""
    return (min(kind_a, kind_b), max(kind_a, kind_b)) in PAIRS


class ContactPoint(NamedTuple):
    """One contact point of :func:`contact_points`.

    Attributes
    ----------
    gap : float
        Signed distance (m), negative when penetrating.
    point : ndarray, shape (3,) or (2,)
        The contact point (m), midway between the surfaces' deepest points.
    normal : ndarray, shape (3,) or (2,)
        Unit normal from shape a to shape b.
    feature : int
        The point's index in its shape's candidate set (0 for single-point pairs).
    """

    gap: float
    point: np.ndarray
    normal: np.ndarray
    feature: int


def _pose(pose, planar: bool, which: str):
    """``(position, rotation)`` as C-contiguous float64 arrays ``(3,), (3, 3)`` (spatial) or
    ``(2,), (2, 2)`` (planar: the rotation may be an angle in rad)."""
    dim = 2 if planar else 3
    try:
        position, rotation = pose
    except (TypeError, ValueError):
        raise ModelError(f"pose_{which} must be a pair (position, rotation), got {pose!r}") \
            from None
    p = np.ascontiguousarray(position, dtype=np.float64)
    if planar and np.ndim(rotation) == 0:
        c, s = math.cos(float(rotation)), math.sin(float(rotation))
        R = np.array([[c, -s], [s, c]])
    else:
        R = np.ascontiguousarray(rotation, dtype=np.float64)
    if p.shape != (dim,) or R.shape != (dim, dim):
        raise ModelError(f"pose_{which}: position must have {dim} components and rotation be a "
                         f"{dim}x{dim} matrix{' or an angle (rad)' if planar else ''}, got "
                         f"shapes {p.shape} and {R.shape}")
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(R))):
        raise ModelError(f"pose_{which} must be finite, got {pose!r}")
    if not np.allclose(R.T @ R, np.eye(dim), atol=1e-9):
        raise ModelError(f"pose_{which}: rotation is not a rotation matrix (R^T R != I)")
    return p, R


def contact_points(shape_a: Shape, pose_a, shape_b: Shape, pose_b,
                   margin: float = 0.0) -> tuple[ContactPoint, ...]:
    """The contact points of two shapes at given poses (the Python face of
    :func:`pair_geometry`).

    Parameters
    ----------
    shape_a, shape_b : Shape
        Both spatial or both planar.
    pose_a, pose_b : tuple
        ``(position, rotation)`` of each shape's frame in the world: position (m), shape (3,)
        and rotation matrix (frame -> world), shape (3, 3); planar: shape (2,) and an angle
        (rad) or a 2x2 matrix.
    margin : float
        Multi-point pairs report every candidate whose gap (m) is below it (>= 0).

    Returns
    -------
    tuple of ContactPoint
        One per row, in the order of their features.

    Raises
    ------
    ModelError
        Mixed spatial and planar shapes, a pair without a closed form, a bad pose or margin.
    """
    for which, shape in (("a", shape_a), ("b", shape_b)):
        if not isinstance(shape, Shape):
            raise ModelError(f"shape_{which} must be a contact shape "
                             f"({', '.join(c.__name__ for c in KINDS.values())}), "
                             f"got {shape!r}")
    if shape_a.planar != shape_b.planar:
        raise ModelError(f"{shape_a!r} and {shape_b!r}: a planar and a spatial shape cannot "
                         "touch; use Circle, Hole, Line together, or the spatial shapes")
    if not supported(shape_a.kind, shape_b.kind):
        names = sorted(f"{KINDS[i].__name__}-{KINDS[j].__name__}" for i, j in PAIRS)
        raise ModelError(f"{type(shape_a).__name__}-{type(shape_b).__name__}: no closed form "
                         f"for this pair; the pairs are {', '.join(names)}")
    margin = float(margin)
    if not (math.isfinite(margin) and margin >= 0.0):
        raise ModelError(f"margin = {margin!r} is invalid; it must be a finite number >= 0 (m)")
    planar = shape_a.planar
    p_a, R_a = _pose(pose_a, planar, "a")
    p_b, R_b = _pose(pose_b, planar, "b")
    out = np.zeros((MAX_POINTS, 8))
    k = pair_geometry(shape_a.kind, shape_a.pack(), p_a, R_a, shape_b.kind, shape_b.pack(),
                      p_b, R_b, margin, out)
    dim = 2 if planar else 3
    return tuple(ContactPoint(float(row[0]), row[1:1 + dim].copy(), row[4:4 + dim].copy(),
                              int(row[7])) for row in out[:k])
