"""Volume of interference of a shape with a plane: its volume, centroid, inertia tensor, polar
moment, contact patch and rate (the geometry of the volumetric contact law, Gonthier 2004).

A shape is described in its own frame (centred at the origin, as in
:mod:`nonsmooth.contact.shapes`); the plane by a point ``point`` (m) and a unit ``normal``
(-) in that frame, the solid half-space below it (opposite the normal) as :class:`Plane` has
it. The **volume of interference** is the part of the undeformed shape below the plane,

    Omega = {x in shape : normal . (x - point) < 0}.

Every function returns, in the **shape's frame**:

* ``V`` (m^3): the volume of ``Omega``;
* ``centroid`` (m), shape (3,): its centroid;
* ``inertia`` (m^5), shape (3, 3): its inertia tensor about the centroid for unit density,
  ``int (|r|^2 1 - r r^T) dV``, ``r = x - centroid``;

and :func:`polar_moment` gives ``J = n . inertia . n`` (m^5), the polar moment about the normal
through the centroid that the rolling and spinning terms of the volumetric law take. With no
interference ``V = 0``, the centroid is the plane's point nearest the shape's centre and the
tensor is zero.

How each is computed (``docs/design/volume.md`` derives them):

=============================  ============================================================
shape                          method
=============================  ============================================================
sphere                         closed form (a spherical cap)
ellipsoid                      closed form: the affine image of the unit ball's cap
box, convex polyhedron         closed form: the polyhedron clipped by the plane, summed over
                               tetrahedra from a point of the plane (every regime: face,
                               edge, corner, and the transitions)
cylinder on its face or side   closed form (a disc times the depth; a circular segment
                               times the length)
cylinder tilted, capsule       one-dimensional quadrature of closed-form slice moments: the
                               slices are parallel to the cylinder's axis and to the plane's
                               normal (columns of the cylinder, circular bands of the
                               hemispheres), split at every kink, each piece mapped by
                               ``x = R sin(phi)`` and a cosine map so that the integrand is
                               smooth, then Gauss-Legendre (:data:`NODES` nodes a piece):
                               accurate to a few units of 1e-15 relative.
=============================  ============================================================

The contact patch (the shape's section by the plane) gives the rate of the volume exactly: for a
shape moving relative to the plane with velocity ``v`` (of its frame's origin) and angular
velocity ``omega`` (shape-frame components),

    dV/dt = -A normal . (v + omega x c_A),

``A`` the patch's area and ``c_A`` its centroid (the approach speed of the patch's centroid
times its area; :func:`volume_rate`).

Compiled (``@njit``): :func:`sphere_volume`, :func:`ellipsoid_volume`, :func:`cylinder_volume`,
:func:`capsule_volume`, :func:`box_volume`, :func:`polyhedron_volume` (each ``(sizes..., point,
normal) -> (V, centroid, inertia)``), :func:`polar_moment`, and the patches
(:func:`sphere_patch` ... :func:`polyhedron_patch`, ``-> (A, c_A)``); and, without numba's
runtime (``_nrt=False``, allocating nothing: for the engine's compiled kernels),
:func:`volume_into` ``(kind, nums, point, normal, out, work)``: a packed shape's volume,
centroid, inertia tensor, patch area and patch centroid into ``out`` (:data:`VOLUME_OUT`
numbers) with a scratch ``work`` of :data:`VOLUME_WORK`. The arithmetic lives once, in
runtime-free ``_*_into`` helpers writing into their caller's arrays; the functions above
allocate their results and call them. Python:
:func:`interference` and :func:`contact_patch` (a :mod:`~nonsmooth.contact.shapes` shape with its
``position``, or a :class:`ConvexPolyhedron`), :func:`volume_rate`.

References: Gonthier, McPhee, Lange and Piedboeuf, "A contact modeling method based on
volumetric properties", ASME IDETC 2005; Gonthier, PhD thesis, University of Waterloo (2007);
Hubbard/Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor in terms of its
vertex coordinates", J. Math. Stat. 1 (2005) (the tetrahedron's second moments).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import ModelError
from .shapes import (
    BOX,
    CAPSULE,
    CYLINDER,
    ELLIPSOID,
    SPHERE,
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Shape,
    Sphere,
)

__all__ = [
    "NODES", "Interference", "ConvexPolyhedron", "interference", "contact_patch",
    "volume_rate", "polar_moment",
    "sphere_volume", "ellipsoid_volume", "cylinder_volume", "capsule_volume", "box_volume",
    "polyhedron_volume", "sphere_patch", "ellipsoid_patch", "cylinder_patch", "capsule_patch",
    "box_patch", "polyhedron_patch", "BOX_TRIANGLES", "volume_into", "VOLUME_OUT", "VOLUME_WORK",
]

#: Gauss-Legendre nodes per piece of the tilted cylinder's and the capsule's quadrature.
NODES = 24
_GL_T, _GL_W = np.polynomial.legendre.leggauss(NODES)
# the cosine map of a piece: phi = mid - half cos(theta), theta = pi (t + 1) / 2 in [0, pi]
_COS_T = -np.cos(0.5 * math.pi * (_GL_T + 1.0))
_COS_W = _GL_W * np.sin(0.5 * math.pi * (_GL_T + 1.0)) * 0.5 * math.pi

#: The box's 12 outward triangles over its vertices ``(+-hx, +-hy, +-hz)`` numbered by bits
#: (bit 0: x, bit 1: y, bit 2: z; a set bit is the + side).
BOX_TRIANGLES = np.array([
    [0, 6, 2], [0, 4, 6],      # -x
    [1, 7, 5], [1, 3, 7],      # +x
    [0, 5, 4], [0, 1, 5],      # -y
    [2, 7, 3], [2, 6, 7],      # +y
    [0, 3, 1], [0, 2, 3],      # -z
    [4, 7, 6], [4, 5, 7],      # +z
], dtype=np.int64)


#: The length of :func:`volume_into`'s ``out``: ``[V, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz,
#: A, cAx, cAy, cAz]``.
VOLUME_OUT = 14

# The float64 scratch of the runtime-free helpers (each carves its buffers from its ``work``):
# the polyhedron's p0 (3), moments (13), triangle (3x3), distances (3) and clipped polygon (4x3)
# (its patch takes p0, the triangle, the distances and the two crossings: 21); the box's 8
# vertices (8x3) before them; a cylinder's or hemisphere's quadrature breaks (4), angles (6) and
# moments (7) (its patch takes the breaks and angles: 10); the cylinder's and the capsule's
# components (1 or 3 rows of 7) before them.
_POLY_WORK = 40
_BOX_WORK = 24 + _POLY_WORK
_AXIAL_WORK = 17
_CYLINDER_WORK = 7 + _AXIAL_WORK
_CAPSULE_WORK = 21 + _AXIAL_WORK

#: The least length of :func:`volume_into`'s float64 ``work``: the inertia tensor (3x3) and the
#: largest shape's scratch (the box's).
VOLUME_WORK = 9 + max(_BOX_WORK, _CYLINDER_WORK, _CAPSULE_WORK)


# ----------------------------------------------------------------------------------- helpers

@njit(cache=True)
def polar_moment(inertia, normal):
    """The polar moment ``J = n . inertia . n`` (m^5) about the normal through the centroid.

    Parameters
    ----------
    inertia : ndarray, shape (3, 3)
        The inertia tensor about the centroid (m^5, unit density).
    normal : ndarray, shape (3,)
        The plane's unit normal (-), in the same frame.
    """
    J = 0.0
    for i in range(3):
        for j in range(3):
            J += normal[i] * inertia[i, j] * normal[j]
    return J


@njit(cache=True, _nrt=False)
def _to_inertia(M):
    """Turn the central second moments ``C = int r r^T dV`` (m^5) in ``M`` (3, 3) into the
    inertia tensor ``tr(C) 1 - C``, in place."""
    tr = M[0, 0] + M[1, 1] + M[2, 2]
    for i in range(3):
        for j in range(3):
            M[i, j] = -M[i, j]
        M[i, i] += tr


@njit(cache=True, _nrt=False)
def _empty_into(point, normal, centroid, inertia):
    """No interference: the plane's point nearest the origin into ``centroid`` (m, (3,)), a zero
    tensor into ``inertia`` (3, 3); returns ``V = 0``."""
    h = _offset(point, normal)
    for i in range(3):
        centroid[i] = h * normal[i]
        for j in range(3):
            inertia[i, j] = 0.0
    return 0.0


@njit(cache=True, _nrt=False)
def _offset(point, normal):
    """``e = normal . point``: the plane is ``normal . x = e``, the region ``normal . x < e``."""
    return normal[0] * point[0] + normal[1] * point[1] + normal[2] * point[2]


# ------------------------------------------------------------------------ sphere, ellipsoid

@njit(cache=True, _nrt=False)
def _cap(R, d):
    """A spherical cap of depth ``0 < d < 2R`` (m) of a sphere of radius ``R`` (m).

    Returns ``V``, the centroid's distance below the sphere's centre (along the normal, m), the
    second moment along the normal about the centroid ``C_n`` and the polar moment ``J``
    (``int rho^2 dV``, m^5; each in-plane second moment is ``J / 2``)."""
    V = math.pi * d * d * (3.0 * R - d) / 3.0
    below = 3.0 * (2.0 * R - d) ** 2 / (4.0 * (3.0 * R - d))
    Cn = math.pi * d ** 4 * (R * R / 18.0 - R * d / 30.0 + d * d / 240.0) / (R - d / 3.0)
    J = math.pi * d ** 3 * (3.0 * d * d - 15.0 * R * d + 20.0 * R * R) / 30.0
    return V, below, Cn, J


@njit(cache=True, _nrt=False)
def _sphere_into(R, point, normal, centroid, inertia):
    """:func:`sphere_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3));
    returns ``V`` (m^3)."""
    d = R + _offset(point, normal)
    if d <= 0.0:
        return _empty_into(point, normal, centroid, inertia)
    if d > 2.0 * R:
        d = 2.0 * R
    V, below, Cn, J = _cap(R, d)
    for i in range(3):
        centroid[i] = -below * normal[i]
        for j in range(3):
            nn = normal[i] * normal[j]
            inertia[i, j] = Cn * nn + 0.5 * J * ((1.0 if i == j else 0.0) - nn)
    _to_inertia(inertia)
    return V


@njit(cache=True)
def sphere_volume(R, point, normal):
    """The interference of a sphere with a plane: a spherical cap.

    Parameters
    ----------
    R : float
        The radius (m); the sphere is centred at the origin.
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the sphere's frame.

    Returns
    -------
    V : float
        ``pi d^2 (3R - d) / 3`` (m^3), ``d = R + normal . point`` the depth (clamped to
        ``[0, 2R]``).
    centroid : ndarray, shape (3,)
        ``-normal 3 (2R - d)^2 / (4 (3R - d))`` (m).
    inertia : ndarray, shape (3, 3)
        About the centroid (m^5): ``J n n^T + (C_n + J / 2) (1 - n n^T)`` with the polar
        moment ``J = pi d^3 (3 d^2 - 15 R d + 20 R^2) / 30`` and the second moment along the
        normal ``C_n = pi d^4 (R^2 / 18 - R d / 30 + d^2 / 240) / (R - d / 3)``.
    """
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _sphere_into(R, point, normal, centroid, inertia)
    return V, centroid, inertia


@njit(cache=True, _nrt=False)
def _stretch(a, b, c, normal):
    """``w = |A n|`` (m), ``A = diag(a, b, c)``: the plane's offset ``e`` is ``w`` times the
    unit ball's."""
    m0 = a * normal[0]
    m1 = b * normal[1]
    m2 = c * normal[2]
    return math.sqrt(m0 ** 2 + m1 ** 2 + m2 ** 2)


@njit(cache=True, _nrt=False)
def _ellipsoid_into(a, b, c, point, normal, centroid, inertia):
    """:func:`ellipsoid_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3));
    returns ``V`` (m^3)."""
    ax = (float(a), float(b), float(c))
    w = _stretch(a, b, c, normal)
    m = (a * normal[0] / w, b * normal[1] / w, c * normal[2] / w)
    d = 1.0 + _offset(point, normal) / w
    if d <= 0.0:
        return _empty_into(point, normal, centroid, inertia)
    if d > 2.0:
        d = 2.0
    V1, below, Cn, J = _cap(1.0, d)
    det = a * b * c
    for i in range(3):
        centroid[i] = -below * ax[i] * m[i]
        for j in range(3):
            mm = m[i] * m[j]
            inertia[i, j] = det * ax[i] * ax[j] * (Cn * mm + 0.5 * J * ((1.0 if i == j else 0.0)
                                                                         - mm))
    _to_inertia(inertia)
    return det * V1


@njit(cache=True)
def ellipsoid_volume(a, b, c, point, normal):
    """The interference of an ellipsoid with a plane, any orientation.

    The ellipsoid ``x = A y`` (``A = diag(a, b, c)``, ``y`` in the unit ball) cut by ``n . x <
    e`` is the image of the unit ball's cap ``m . y < e / w``, ``w = |A n|``, ``m = A n / w``:
    ``V = a b c V_1``, centroid ``A c_1``, central second moments ``a b c A C_1 A``.

    Parameters
    ----------
    a, b, c : float
        The semi-axes (m) along the frame's x, y, z axes.
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the ellipsoid's frame.

    Returns
    -------
    V, centroid, inertia : float, ndarray (3,), ndarray (3, 3)
        ``V = pi a b c d^2 (3 - d) / 3`` with ``d = 1 + e / w`` the unit cap's depth (m^3); the
        centroid (m) and the inertia tensor about it (m^5), in the ellipsoid's frame.
    """
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _ellipsoid_into(a, b, c, point, normal, centroid, inertia)
    return V, centroid, inertia


@njit(cache=True, _nrt=False)
def _ellipsoid_patch_into(a, b, c, point, normal, centre):
    """:func:`ellipsoid_patch` with its centre into ``centre`` (m, (3,)); returns ``A``
    (m^2)."""
    ax = (float(a), float(b), float(c))
    w = _stretch(a, b, c, normal)
    s = _offset(point, normal) / w
    for i in range(3):
        centre[i] = s / w * ax[i] * ax[i] * normal[i]
    if abs(s) >= 1.0:
        return 0.0
    return math.pi * a * b * c * (1.0 - s * s) / w


@njit(cache=True)
def sphere_patch(R, point, normal):
    """The contact patch of a sphere: the disc ``A = pi d (2R - d)`` (m^2) centred at the
    plane's point nearest the centre (m, shape (3,))."""
    return ellipsoid_patch(R, R, R, point, normal)


@njit(cache=True)
def ellipsoid_patch(a, b, c, point, normal):
    """The contact patch of an ellipsoid: an ellipse of area ``A = pi a b c (1 - (e/w)^2) / w``
    (m^2), ``w = |A n|``, centred at ``(e / w^2) A^2 n`` (m, shape (3,))."""
    centre = np.empty(3)
    A = _ellipsoid_patch_into(a, b, c, point, normal, centre)
    return A, centre


# ---------------------------------------------------------------------- polyhedron, box

@njit(cache=True, _nrt=False)
def _tet(a, b, c, acc):
    """Add the tetrahedron (0, a, b, c)'s signed moments to ``acc``: ``[V, S(3), C(3x3)]``."""
    det = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
           + a[2] * (b[0] * c[1] - b[1] * c[0]))
    vol = det / 6.0
    acc[0] += vol
    for i in range(3):
        s_i = a[i] + b[i] + c[i]
        acc[1 + i] += 0.25 * vol * s_i
        for j in range(3):
            s_j = a[j] + b[j] + c[j]
            acc[4 + 3 * i + j] += vol / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j]
                                               + s_i * s_j)


@njit(cache=True, _nrt=False)
def _crossing(P, i, j, t, q):
    """The point ``P[i] + t (P[j] - P[i])`` of the edge ``i -> j`` of ``P`` into ``q`` (3,)."""
    for m in range(3):
        q[m] = P[i, m] + t * (P[j, m] - P[i, m])


@njit(cache=True, _nrt=False)
def _clip_triangle(P, dist, out):
    """Sutherland-Hodgman: the part of triangle ``P`` (3, 3) where ``dist <= 0``, into ``out``
    (4, 3); returns the number of its vertices (0, 3 or 4)."""
    k = 0
    for i in range(3):
        j = (i + 1) % 3
        di = dist[i]
        dj = dist[j]
        if di <= 0.0:
            for m in range(3):
                out[k, m] = P[i, m]
            k += 1
        if (di < 0.0 < dj) or (dj < 0.0 < di):
            _crossing(P, i, j, di / (di - dj), out[k])
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _reference_into(vertices, point, normal, p0):
    """A point of the plane above the vertices below it (their mean projected) into ``p0``
    (m, (3,)); returns False (``p0`` zero) when no vertex is below the plane."""
    e = _offset(point, normal)
    for k in range(3):
        p0[k] = 0.0
    count = 0
    for i in range(vertices.shape[0]):
        if _offset(vertices[i], normal) - e < 0.0:
            for k in range(3):
                p0[k] += vertices[i, k]
            count += 1
    if count == 0:
        return False
    for k in range(3):
        p0[k] /= count
    h = _offset(p0, normal) - e
    for k in range(3):
        p0[k] -= h * normal[k]
    return True


@njit(cache=True, _nrt=False)
def _load_triangle(vertices, triangles, t, p0, normal, e, P, dist):
    """Triangle ``t``'s vertices relative to ``p0`` into ``P`` (3, 3) and their signed
    distances to the plane ``normal . x = e`` into ``dist`` (3,)."""
    for k in range(3):
        vertex = vertices[triangles[t, k]]
        for m in range(3):
            P[k, m] = vertex[m] - p0[m]
        dist[k] = _offset(vertex, normal) - e


@njit(cache=True, _nrt=False)
def _polyhedron_into(vertices, triangles, point, normal, centroid, inertia, work):
    """:func:`polyhedron_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3)),
    with ``work`` float64 scratch of at least 40; returns ``V`` (m^3)."""
    p0 = work[0:3]
    if not _reference_into(vertices, point, normal, p0):
        return _empty_into(point, normal, centroid, inertia)
    e = _offset(point, normal)
    acc = work[3:16]
    P = work[16:25].reshape((3, 3))
    dist = work[25:28]
    clipped = work[28:40].reshape((4, 3))
    for k in range(13):
        acc[k] = 0.0
    for t in range(triangles.shape[0]):
        _load_triangle(vertices, triangles, t, p0, normal, e, P, dist)
        n = _clip_triangle(P, dist, clipped)
        for k in range(1, n - 1):
            _tet(clipped[0], clipped[k], clipped[k + 1], acc)
    V = acc[0]
    if V <= 0.0:
        return _empty_into(point, normal, centroid, inertia)
    rel = (acc[1] / V, acc[2] / V, acc[3] / V)
    for i in range(3):
        centroid[i] = p0[i] + rel[i]
        for j in range(3):
            inertia[i, j] = acc[4 + 3 * i + j] - V * rel[i] * rel[j]
    _to_inertia(inertia)
    return V


@njit(cache=True)
def polyhedron_volume(vertices, triangles, point, normal):
    """The interference of a closed polyhedron with a plane: the polyhedron clipped by it.

    Each outward triangle is clipped (Sutherland-Hodgman) and fanned into tetrahedra with a
    point ``p0`` of the plane; the cap the plane cuts lies in the plane, so its tetrahedra are
    flat and it needs no construction. Exact for any closed triangulated surface (convex or
    not, as long as the plane closes the clipped part); the box is the 8 vertices and
    :data:`BOX_TRIANGLES`.

    Parameters
    ----------
    vertices : ndarray, shape (n_v, 3)
        The vertices (m), in the shape's frame.
    triangles : ndarray of int, shape (n_t, 3)
        The triangles, vertex indices counter-clockwise seen from outside.
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the same frame.

    Returns
    -------
    V, centroid, inertia : float, ndarray (3,), ndarray (3, 3)
        m^3, m, m^5 (about the centroid), in the shape's frame.
    """
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _polyhedron_into(vertices, triangles, point, normal, centroid, inertia,
                         np.empty(_POLY_WORK))
    return V, centroid, inertia


@njit(cache=True, _nrt=False)
def _cut_segment(P, dist, q_in, q_out):
    """The segment the plane cuts from triangle ``P`` (3, 3; ``dist`` its vertices' signed
    distances), in the order of its boundary: where it enters the region into ``q_in`` (3,),
    where it leaves into ``q_out`` (3,); returns whether there is one."""
    n_in = 0
    n_out = 0
    for i in range(3):
        j = (i + 1) % 3
        di = dist[i]
        dj = dist[j]
        if di < 0.0 <= dj:      # leaves the region: the cut runs from here
            _crossing(P, i, j, di / (di - dj), q_out)
            n_out += 1
        elif dj < 0.0 <= di:    # enters it
            _crossing(P, i, j, di / (di - dj), q_in)
            n_in += 1
    return n_in == 1 and n_out == 1


@njit(cache=True, _nrt=False)
def _polyhedron_patch_into(vertices, triangles, point, normal, centre, work):
    """:func:`polyhedron_patch` with its centroid into ``centre`` (m, (3,)), with ``work``
    float64 scratch of at least 21; returns ``A`` (m^2)."""
    p0 = work[0:3]
    if not _reference_into(vertices, point, normal, p0):
        for k in range(3):
            centre[k] = p0[k]
        return 0.0
    e = _offset(point, normal)
    P = work[3:12].reshape((3, 3))
    dist = work[12:15]
    q_in = work[15:18]
    q_out = work[18:21]
    A = 0.0
    for k in range(3):
        centre[k] = 0.0                 # the patch's first moment until the end
    for t in range(triangles.shape[0]):
        _load_triangle(vertices, triangles, t, p0, normal, e, P, dist)
        if _cut_segment(P, dist, q_in, q_out):
            # the cap's boundary runs q_in -> q_out reversed (outward for the cap, along +n)
            cx = q_in[1] * q_out[2] - q_in[2] * q_out[1]
            cy = q_in[2] * q_out[0] - q_in[0] * q_out[2]
            cz = q_in[0] * q_out[1] - q_in[1] * q_out[0]
            a = 0.5 * (cx * normal[0] + cy * normal[1] + cz * normal[2])
            A += a
            for k in range(3):
                centre[k] += a * (q_in[k] + q_out[k]) / 3.0
    if A <= 0.0:
        for k in range(3):
            centre[k] = p0[k]
        return 0.0
    for k in range(3):
        centre[k] = p0[k] + centre[k] / A
    return A


@njit(cache=True)
def polyhedron_patch(vertices, triangles, point, normal):
    """The contact patch of a closed polyhedron: the polygon the plane cuts, its area ``A``
    (m^2) and centroid (m, shape (3,)), from the clipped triangles' edges on the plane."""
    centre = np.empty(3)
    A = _polyhedron_patch_into(vertices, triangles, point, normal, centre,
                               np.empty(_POLY_WORK))
    return A, centre


@njit(cache=True, _nrt=False)
def _box_vertices_into(hx, hy, hz, v):
    """The box's 8 vertices into ``v`` (m, (8, 3)), numbered by bits as :data:`BOX_TRIANGLES`
    has them."""
    for i in range(8):
        v[i, 0] = hx if i & 1 else -hx
        v[i, 1] = hy if i & 2 else -hy
        v[i, 2] = hz if i & 4 else -hz


@njit(cache=True, _nrt=False)
def _box_into(hx, hy, hz, point, normal, centroid, inertia, work):
    """:func:`box_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3)), with
    ``work`` float64 scratch of at least 64; returns ``V`` (m^3)."""
    vertices = work[0:24].reshape((8, 3))
    _box_vertices_into(hx, hy, hz, vertices)
    return _polyhedron_into(vertices, BOX_TRIANGLES, point, normal, centroid, inertia,
                            work[24:])


@njit(cache=True, _nrt=False)
def _box_patch_into(hx, hy, hz, point, normal, centre, work):
    """:func:`box_patch` with its centroid into ``centre`` (m, (3,)), with ``work`` float64
    scratch of at least 64; returns ``A`` (m^2)."""
    vertices = work[0:24].reshape((8, 3))
    _box_vertices_into(hx, hy, hz, vertices)
    return _polyhedron_patch_into(vertices, BOX_TRIANGLES, point, normal, centre, work[24:])


@njit(cache=True)
def box_volume(hx, hy, hz, point, normal):
    """The interference of a box of half extents ``hx, hy, hz`` (m) with a plane, any
    orientation: every regime (a face, an edge, a corner down, and the transitions), as the
    clipped polyhedron (:func:`polyhedron_volume`). Returns ``(V, centroid, inertia)`` (m^3, m,
    m^5) in the box's frame."""
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _box_into(hx, hy, hz, point, normal, centroid, inertia, np.empty(_BOX_WORK))
    return V, centroid, inertia


@njit(cache=True)
def box_patch(hx, hy, hz, point, normal):
    """The contact patch of a box: ``(A, centroid)`` (m^2, m)."""
    centre = np.empty(3)
    A = _box_patch_into(hx, hy, hz, point, normal, centre, np.empty(_BOX_WORK))
    return A, centre


# ----------------------------------------------------------------- cylinder and capsule

@njit(cache=True, _nrt=False)
def _axis_frame(normal):
    """The cylinder's local frame: ``(ux, uy, s, c)``, ``u = (ux, uy, 0)`` the unit in-disc
    direction of the normal (x if the normal is the axis), ``v = z x u``; the normal is ``s u +
    c z``, ``s >= 0``."""
    s = math.sqrt(normal[0] ** 2 + normal[1] ** 2)
    if s > 0.0:
        return normal[0] / s, normal[1] / s, s, normal[2]
    return 1.0, 0.0, s, normal[2]


@njit(cache=True, _nrt=False)
def _breaks_into(kind, R, L, s, c, E, breaks):
    """The kinks ``x`` of a component's slices (``kind`` 0 the cylinder: where the plane
    crosses its faces; 1 a hemisphere: where it crosses the flat face and the rim's extremes)
    into ``breaks`` (4,); returns their number."""
    count = 0
    if s > 0.0:
        if kind == 0:
            breaks[0] = (E - 0.5 * c * L) / s
            breaks[1] = (E + 0.5 * c * L) / s
            count = 2
        else:
            breaks[0] = E / s
            count = 1
    if kind == 1 and R * R > E * E:
        root = abs(c) * math.sqrt(R * R - E * E)
        breaks[count] = E * s - root
        breaks[count + 1] = E * s + root
        count += 2
    return count


@njit(cache=True, _nrt=False)
def _pieces_into(R, breaks, count, phis):
    """The sorted angles ``phi = asin(x / R)`` of ``-R``, the breaks inside ``(-R, R)`` and
    ``R`` into ``phis`` (at least ``count + 2``): the pieces of the quadrature; returns their
    number."""
    phis[0] = -0.5 * math.pi
    k = 1
    for i in range(count):
        x = breaks[i]
        if -R < x < R:
            phis[k] = math.asin(x / R)
            k += 1
    phis[k] = 0.5 * math.pi
    n = k + 1
    for i in range(1, n):          # insertion sort: a handful of angles
        x = phis[i]
        j = i - 1
        while j >= 0 and phis[j] > x:
            phis[j + 1] = phis[j]
            j -= 1
        phis[j + 1] = x
    return n


@njit(cache=True, _nrt=False)
def _local_pieces(kind, R, L, s, c, E, work):
    """A component's quadrature angles into ``work[4:10]`` (the breaks in ``work[0:4]``);
    returns their number."""
    count = _breaks_into(kind, R, L, s, c, E, work[0:4])
    return _pieces_into(R, work[0:4], count, work[4:10])


@njit(cache=True, _nrt=False)
def _column(s, c, E, L, x):
    """The column of the cylinder at ``x``: ``z`` in ``[z0, z1]`` (``z1 <= z0``: empty)."""
    z0 = -0.5 * L
    z1 = 0.5 * L
    if c > 0.0:
        z1 = min(z1, (E - s * x) / c)
    elif c < 0.0:
        z0 = max(z0, (E - s * x) / c)
    elif s * x >= E:
        z1 = z0
    return z0, z1


@njit(cache=True, _nrt=False)
def _band(s, c, E, r, x):
    """The band of a hemisphere's slice at ``x``: ``w`` in ``[w0, w1]`` within ``[0, r]``."""
    w0 = 0.0
    w1 = r
    if c > 0.0:
        w1 = min(w1, (E - s * x) / c)
    elif c < 0.0:
        w0 = max(w0, (E - s * x) / c)
    elif s * x >= E:
        w1 = w0
    return w0, w1


@njit(cache=True, _nrt=False)
def _disc_strip(r, w):
    """``int_0^w 2 q, int_0^w 2 q t, int_0^w 2 q t^2`` with ``q = sqrt(r^2 - t^2)``, ``|w| <=
    r``: a disc's strip and its first and second moments across the strip."""
    q = math.sqrt(max(r * r - w * w, 0.0))
    a = math.asin(min(max(w / r, -1.0), 1.0)) if r > 0.0 else 0.0
    G0 = w * q + r * r * a
    G1 = -2.0 / 3.0 * (q ** 3 - r ** 3)
    G2 = 0.25 * (w * (2.0 * w * w - r * r) * q + r ** 4 * a)
    return G0, G1, G2


@njit(cache=True, _nrt=False)
def _slices(kind, R, L, s, c, E, phis, xc, zc, acc):
    """Integrate the slice moments over ``x = R sin(phi)`` piece by piece (cosine map and
    Gauss-Legendre), about ``(xc, zc)``; ``acc`` gets ``[V, Sx, Sz, Cxx, Cyy, Czz, Cxz]``.

    ``kind`` 0: the cylinder's columns (``z`` the axis); 1: a hemisphere's bands (``z`` the
    distance from its flat face along its outward axis)."""
    for p in range(phis.shape[0] - 1):
        mid = 0.5 * (phis[p] + phis[p + 1])
        half = 0.5 * (phis[p + 1] - phis[p])
        if half <= 0.0:
            continue
        for k in range(NODES):
            phi = mid + half * _COS_T[k]
            x = R * math.sin(phi)
            g = R * math.cos(phi)         # the half chord, and dx / dphi
            wgt = half * _COS_W[k] * g
            dx = x - xc
            if kind == 0:
                z0, z1 = _column(s, c, E, L, x)
                if z1 <= z0:
                    continue
                h = z1 - z0
                a0 = 2.0 * g * h
                a1 = g * ((z1 - zc) ** 2 - (z0 - zc) ** 2)
                a2 = 2.0 * g * ((z1 - zc) ** 3 - (z0 - zc) ** 3) / 3.0
                y2 = 2.0 * g ** 3 * h / 3.0
            else:
                w0, w1 = _band(s, c, E, g, x)
                if w1 <= w0:
                    continue
                F0, F1, F2 = _disc_strip(g, w1)
                H0, H1, H2 = _disc_strip(g, w0)
                m0 = F0 - H0
                m1 = F1 - H1
                m2 = F2 - H2
                a0 = m0
                a1 = m1 - zc * m0
                a2 = m2 - 2.0 * zc * m1 + zc * zc * m0
                y2 = (g * g * m0 - m2) / 3.0
            acc[0] += wgt * a0
            acc[1] += wgt * dx * a0
            acc[2] += wgt * a1
            acc[3] += wgt * dx * dx * a0
            acc[4] += wgt * y2
            acc[5] += wgt * a2
            acc[6] += wgt * dx * a1


@njit(cache=True, _nrt=False)
def _local_moments(kind, R, L, s, c, E, work):
    """One component (cylinder ``kind`` 0, hemisphere 1) in its local axes ``(u, v, axis)``:
    ``V``, the centroid ``(xc, zc)`` and the central ``Cxx, Cyy, Czz, Cxz``; ``work`` float64
    scratch of at least 17."""
    n = _local_pieces(kind, R, L, s, c, E, work)
    phis = work[4:4 + n]
    acc = work[10:17]
    for k in range(7):
        acc[k] = 0.0
    _slices(kind, R, L, s, c, E, phis, 0.0, 0.0, acc)
    V = acc[0]
    if V <= 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    xc = acc[1] / V
    zc = acc[2] / V
    for k in range(7):
        acc[k] = 0.0
    _slices(kind, R, L, s, c, E, phis, xc, zc, acc)
    return V, xc, zc, acc[3], acc[4], acc[5], acc[6]


@njit(cache=True, _nrt=False)
def _cylinder_exact(R, L, s, c, E):
    """The cylinder on its face (``s = 0``) or its side (``c = 0``), in closed form, in its
    local axes: ``V, xc, zc, Cxx, Cyy, Czz, Cxz``."""
    if s == 0.0:  # on a face: a disc times the depth, z < E / c
        if c > 0.0:
            z0, z1 = -0.5 * L, min(0.5 * L, E / c)
        else:
            z0, z1 = max(-0.5 * L, E / c), 0.5 * L
        h = z1 - z0
        if h <= 0.0:
            return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        A = math.pi * R * R
        Ix = 0.25 * math.pi * R ** 4
        return A * h, 0.0, 0.5 * (z0 + z1), Ix * h, Ix * h, A * h ** 3 / 12.0, 0.0
    # on its side: a circular segment x < a = E / s times the length
    a = min(E / s, R)
    if a <= -R:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    G0, G1, G2 = _disc_strip(R, a)
    H0, H1, H2 = _disc_strip(R, -R)
    A = G0 - H0
    Sx = G1 - H1
    Cx = G2 - H2
    xc = Sx / A
    Cxx = Cx - Sx * xc
    Cyy = (R * R * A - Cx) / 3.0
    return A * L, xc, 0.0, Cxx * L, Cyy * L, A * L ** 3 / 12.0, 0.0


@njit(cache=True, _nrt=False)
def _cylinder_part(R, L, s, c, E, row, work):
    """The cylinder's component (closed form on its face or side, else the quadrature) into
    ``row`` (7,): ``V, xc, zc, Cxx, Cyy, Czz, Cxz``; ``work`` float64 scratch of at least 17."""
    if s == 0.0 or c == 0.0:
        r = _cylinder_exact(R, L, s, c, E)
    else:
        r = _local_moments(0, R, L, s, c, E, work)
    for k in range(7):
        row[k] = r[k]


@njit(cache=True, _nrt=False)
def _to_frame_into(parts, count, ux, uy, centroid, inertia):
    """Combine components ``[V, x, z, Cxx, Cyy, Czz, Cxz]`` (local axes ``u = (ux, uy, 0)``,
    ``v = z x u``, ``z``) into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3)) in the
    shape's frame; returns ``V`` (m^3; 0 with a zero centroid and tensor if none)."""
    V = 0.0
    xs = 0.0
    zs = 0.0
    for i in range(count):
        V += parts[i, 0]
        xs += parts[i, 0] * parts[i, 1]
        zs += parts[i, 0] * parts[i, 2]
    if V <= 0.0:
        for i in range(3):
            centroid[i] = 0.0
            for j in range(3):
                inertia[i, j] = 0.0
        return 0.0
    xc = xs / V
    zc = zs / V
    Cxx = 0.0
    Cyy = 0.0
    Czz = 0.0
    Cxz = 0.0
    for i in range(count):
        dx = parts[i, 1] - xc
        dz = parts[i, 2] - zc
        Vi = parts[i, 0]
        Cxx += parts[i, 3] + Vi * dx * dx
        Cyy += parts[i, 4]
        Czz += parts[i, 5] + Vi * dz * dz
        Cxz += parts[i, 6] + Vi * dx * dz
    # the second moments turned to the shape's frame, Q Cl Q^T with Q = [u, v, z]
    inertia[0, 0] = ux * ux * Cxx + uy * uy * Cyy
    inertia[1, 1] = uy * uy * Cxx + ux * ux * Cyy
    inertia[2, 2] = Czz
    inertia[0, 1] = inertia[1, 0] = ux * uy * (Cxx - Cyy)
    inertia[0, 2] = inertia[2, 0] = ux * Cxz
    inertia[1, 2] = inertia[2, 1] = uy * Cxz
    _to_inertia(inertia)
    centroid[0] = xc * ux
    centroid[1] = xc * uy
    centroid[2] = zc
    return V


@njit(cache=True, _nrt=False)
def _cylinder_into(R, L, point, normal, centroid, inertia, work):
    """:func:`cylinder_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3)), with
    ``work`` float64 scratch of at least 24; returns ``V`` (m^3)."""
    ux, uy, s, c = _axis_frame(normal)
    E = _offset(point, normal)
    parts = work[0:7].reshape((1, 7))
    _cylinder_part(R, L, s, c, E, parts[0], work[7:])
    if parts[0, 0] <= 0.0:
        return _empty_into(point, normal, centroid, inertia)
    return _to_frame_into(parts, 1, ux, uy, centroid, inertia)


@njit(cache=True)
def cylinder_volume(R, L, point, normal):
    """The interference of a cylinder (radius ``R``, length ``L`` along z, centred) with a plane.

    On its face (the normal along the axis) and on its side (the normal across it) in closed
    form; tilted (the face-and-side regimes), by the quadrature over ``x = R sin(phi)`` of the
    columns parallel to the axis (``docs/design/volume.md``).

    Parameters
    ----------
    R, L : float
        The radius and the length (m).
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the cylinder's frame.

    Returns
    -------
    V, centroid, inertia : float, ndarray (3,), ndarray (3, 3)
        m^3, m, m^5 (about the centroid), in the cylinder's frame.
    """
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _cylinder_into(R, L, point, normal, centroid, inertia, np.empty(_CYLINDER_WORK))
    return V, centroid, inertia


@njit(cache=True, _nrt=False)
def _capsule_into(R, L, point, normal, centroid, inertia, work):
    """:func:`capsule_volume` into ``centroid`` (m, (3,)) and ``inertia`` (m^5, (3, 3)), with
    ``work`` float64 scratch of at least 38; returns ``V`` (m^3)."""
    ux, uy, s, c = _axis_frame(normal)
    E = _offset(point, normal)
    parts = work[0:21].reshape((3, 7))
    for i in range(3):
        for k in range(7):
            parts[i, k] = 0.0
    _cylinder_part(R, L, s, c, E, parts[0], work[21:])
    for side in range(2):
        sign = 1.0 if side == 0 else -1.0
        cs = sign * c                       # the normal along the hemisphere's outward axis
        Es = E - 0.5 * L * c * sign         # the plane's offset from the hemisphere's centre
        # the ball's cap n . y < Es lies in the outer half-ball (a . y >= 0) when the normal
        # points against the outward axis and the plane misses the flat face's disc
        d = R + Es
        if d <= 0.0:
            continue
        if cs < 0.0 and Es <= -R * s:
            # the cap is on the outer side, entirely within the hemisphere: closed form
            V1, below, Cn, J = _cap(R, min(d, 2.0 * R))
            # the cap's centroid below the ball's centre along the normal n = s u + cs a
            x = -below * s
            w = -below * cs
            Cxx = Cn * s * s + 0.5 * J * (1.0 - s * s)
            Cww = Cn * cs * cs + 0.5 * J * (1.0 - cs * cs)
            Cxw = (Cn - 0.5 * J) * s * cs
            r = (V1, x, w, Cxx, 0.5 * J, Cww, Cxw)
        else:
            r = _local_moments(1, R, L, s, cs, Es, work[21:])
        if r[0] <= 0.0:
            continue
        parts[1 + side, 0] = r[0]
        parts[1 + side, 1] = r[1]
        parts[1 + side, 2] = sign * (0.5 * L + r[2])
        parts[1 + side, 3] = r[3]
        parts[1 + side, 4] = r[4]
        parts[1 + side, 5] = r[5]
        parts[1 + side, 6] = sign * r[6]
    V = _to_frame_into(parts, 3, ux, uy, centroid, inertia)
    if V <= 0.0:
        return _empty_into(point, normal, centroid, inertia)
    return V


@njit(cache=True)
def capsule_volume(R, L, point, normal):
    """The interference of a capsule (radius ``R``, ``L`` between its caps' centres along z,
    centred) with a plane: its cylinder (:func:`cylinder_volume`) and its two hemispheres, each
    by the quadrature over ``x = R sin(phi)`` of the circular bands that the plane cuts from
    the half-discs parallel to the axis (a hemisphere whose flat face the plane misses is a
    closed-form spherical cap and is computed so).

    Parameters
    ----------
    R, L : float
        The radius and the length of the cylinder between the caps' centres (m).
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the capsule's frame.

    Returns
    -------
    V, centroid, inertia : float, ndarray (3,), ndarray (3, 3)
        m^3, m, m^5 (about the centroid), in the capsule's frame.
    """
    centroid = np.empty(3)
    inertia = np.empty((3, 3))
    V = _capsule_into(R, L, point, normal, centroid, inertia, np.empty(_CAPSULE_WORK))
    return V, centroid, inertia


@njit(cache=True, _nrt=False)
def _patch_slices(kind, R, L, s, c, E, phis):
    """The patch's slices over ``x = R sin(phi)``: where the plane cuts a column (``kind`` 0)
    or a band (1), its chord times ``dx / |c|``. Returns ``A, Sx, Sz`` (local axes)."""
    A = 0.0
    Sx = 0.0
    Sz = 0.0
    if c == 0.0:
        return A, Sx, Sz
    for p in range(phis.shape[0] - 1):
        mid = 0.5 * (phis[p] + phis[p + 1])
        half = 0.5 * (phis[p + 1] - phis[p])
        if half <= 0.0:
            continue
        for k in range(NODES):
            phi = mid + half * _COS_T[k]
            x = R * math.sin(phi)
            g = R * math.cos(phi)
            wgt = half * _COS_W[k] * g / abs(c)
            zeta = (E - s * x) / c
            if kind == 0:
                if not (-0.5 * L < zeta < 0.5 * L):
                    continue
                chord = 2.0 * g
            else:
                if not (0.0 < zeta < g):
                    continue
                chord = 2.0 * math.sqrt(max(g * g - zeta * zeta, 0.0))
            A += wgt * chord
            Sx += wgt * chord * x
            Sz += wgt * chord * zeta
    return A, Sx, Sz


@njit(cache=True, _nrt=False)
def _local_patch(kind, R, L, s, c, E, work):
    """One component's patch in its local axes: ``A, Sx, Sz`` (m^2, m^3); ``work`` float64
    scratch of at least 10."""
    if kind == 0:
        if s == 0.0:
            z = E / c
            if -0.5 * L < z < 0.5 * L:
                A = math.pi * R * R
                return A, 0.0, A * z
            return 0.0, 0.0, 0.0
        if c == 0.0:
            x = E / s
            if -R < x < R:
                A = 2.0 * math.sqrt(R * R - x * x) * L
                return A, A * x, 0.0
            return 0.0, 0.0, 0.0
    n = _local_pieces(kind, R, L, s, c, E, work)
    return _patch_slices(kind, R, L, s, c, E, work[4:4 + n])


@njit(cache=True, _nrt=False)
def _patch_centre(A, Sx, Sz, ux, uy, E, normal, centre):
    """The patch's centroid ``(Sx u + Sz z) / A`` into ``centre`` (m, (3,)), or the plane's
    point nearest the origin when ``A <= 0``; returns ``A`` (m^2, 0 then)."""
    if A <= 0.0:
        for i in range(3):
            centre[i] = E * normal[i]
        return 0.0
    x = Sx / A
    centre[0] = x * ux
    centre[1] = x * uy
    centre[2] = Sz / A
    return A


@njit(cache=True, _nrt=False)
def _cylinder_patch_into(R, L, point, normal, centre, work):
    """:func:`cylinder_patch` with its centroid into ``centre`` (m, (3,)), with ``work`` float64
    scratch of at least 10; returns ``A`` (m^2)."""
    ux, uy, s, c = _axis_frame(normal)
    E = _offset(point, normal)
    A, Sx, Sz = _local_patch(0, R, L, s, c, E, work)
    return _patch_centre(A, Sx, Sz, ux, uy, E, normal, centre)


@njit(cache=True)
def cylinder_patch(R, L, point, normal):
    """The contact patch of a cylinder (the plane's section of it): ``(A, centroid)`` (m^2, m,
    shape (3,)), in closed form on a face or the side, else by the quadrature of the columns'
    chords (``dA = 2 g dx / |n . z|``)."""
    centre = np.empty(3)
    A = _cylinder_patch_into(R, L, point, normal, centre, np.empty(_AXIAL_WORK))
    return A, centre


@njit(cache=True, _nrt=False)
def _capsule_patch_into(R, L, point, normal, centre, work):
    """:func:`capsule_patch` with its centroid into ``centre`` (m, (3,)), with ``work`` float64
    scratch of at least 10; returns ``A`` (m^2)."""
    ux, uy, s, c = _axis_frame(normal)
    E = _offset(point, normal)
    A, Sx, Sz = _local_patch(0, R, L, s, c, E, work)
    for side in range(2):
        sign = 1.0 if side == 0 else -1.0
        cs = sign * c
        Es = E - 0.5 * L * c * sign
        if R * R <= Es * Es:
            continue
        if cs == 0.0:
            # the plane along the axis: a half disc of radius sqrt(R^2 - Es^2)
            rho2 = R * R - Es * Es
            Ai = 0.5 * math.pi * rho2
            A += Ai
            Sx += Ai * Es
            Sz += Ai * sign * (0.5 * L + 4.0 * math.sqrt(rho2) / (3.0 * math.pi))
            continue
        if cs < 0.0 and Es <= -R * s:
            Ai = math.pi * (R * R - Es * Es)     # the whole circle, in the outer half
            A += Ai
            Sx += Ai * Es * s
            Sz += Ai * sign * (0.5 * L + Es * cs)
            continue
        Ai, Sxi, Swi = _local_patch(1, R, L, s, cs, Es, work)
        A += Ai
        Sx += Sxi
        Sz += sign * (0.5 * L * Ai + Swi)
    return _patch_centre(A, Sx, Sz, ux, uy, E, normal, centre)


@njit(cache=True)
def capsule_patch(R, L, point, normal):
    """The contact patch of a capsule: ``(A, centroid)`` (m^2, m, shape (3,)), its cylinder's
    and its hemispheres' parts summed."""
    centre = np.empty(3)
    A = _capsule_patch_into(R, L, point, normal, centre, np.empty(_AXIAL_WORK))
    return A, centre


# ------------------------------------------------------------------------ runtime-free entry

@njit(cache=True, _nrt=False)
def volume_into(kind, nums, point, normal, out, work):
    """The interference and the contact patch of a packed shape with a plane, into ``out``,
    allocating nothing (``_nrt=False``: callable from the engine's runtime-free kernels).

    Parameters
    ----------
    kind : int
        The shape's kind code (:mod:`nonsmooth.contact.shapes`: ``SPHERE``, ``CAPSULE``,
        ``ELLIPSOID``, ``CYLINDER``, ``BOX``).
    nums : ndarray of float64
        The shape's packed numbers (:meth:`~nonsmooth.contact.shapes.Shape.pack`: sphere
        ``(r,)``, capsule ``(r, L)``, ellipsoid ``(a, b, c)``, cylinder ``(r, L)``, box ``(hx,
        hy, hz)``; m); the shape centred at the origin (the caller subtracts its ``position``).
    point, normal : ndarray, shape (3,)
        A point of the plane (m) and its unit normal (-), in the shape's frame.
    out : ndarray of float64, shape (:data:`VOLUME_OUT`,)
        Receives ``[V, cx, cy, cz, Ixx, Iyy, Izz, Ixy, Ixz, Iyz, A, cAx, cAy, cAz]``: the
        volume (m^3), its centroid (m), its inertia tensor about the centroid for unit density
        (m^5; the upper triangle), the patch's area (m^2) and centroid (m), in the shape's
        frame: the numbers of the shape's ``*_volume`` and ``*_patch`` functions.
    work : ndarray of float64, at least :data:`VOLUME_WORK` long
        Scratch; its contents on entry do not matter.

    Returns
    -------
    int
        0, or -1 for an unknown ``kind`` (``out`` untouched).
    """
    inertia = work[0:9].reshape((3, 3))
    scratch = work[9:]
    centroid = out[1:4]
    centre = out[11:14]
    if kind == SPHERE:
        V = _sphere_into(nums[0], point, normal, centroid, inertia)
        A = _ellipsoid_patch_into(nums[0], nums[0], nums[0], point, normal, centre)
    elif kind == CAPSULE:
        V = _capsule_into(nums[0], nums[1], point, normal, centroid, inertia, scratch)
        A = _capsule_patch_into(nums[0], nums[1], point, normal, centre, scratch)
    elif kind == ELLIPSOID:
        V = _ellipsoid_into(nums[0], nums[1], nums[2], point, normal, centroid, inertia)
        A = _ellipsoid_patch_into(nums[0], nums[1], nums[2], point, normal, centre)
    elif kind == CYLINDER:
        V = _cylinder_into(nums[0], nums[1], point, normal, centroid, inertia, scratch)
        A = _cylinder_patch_into(nums[0], nums[1], point, normal, centre, scratch)
    elif kind == BOX:
        V = _box_into(nums[0], nums[1], nums[2], point, normal, centroid, inertia, scratch)
        A = _box_patch_into(nums[0], nums[1], nums[2], point, normal, centre, scratch)
    else:
        return -1
    out[0] = V
    out[4] = inertia[0, 0]
    out[5] = inertia[1, 1]
    out[6] = inertia[2, 2]
    out[7] = inertia[0, 1]
    out[8] = inertia[0, 2]
    out[9] = inertia[1, 2]
    out[10] = A
    return 0


# ------------------------------------------------------------------------------ Python layer

@dataclass(frozen=True, repr=False)
class ConvexPolyhedron(Shape):
    """A convex polyhedron: the convex hull of ``vertices`` (m, shape (n, 3), in its body's
    frame; scipy's ``ConvexHull``), its triangles oriented outward. Not (yet) a contact shape of
    the pair geometry: it serves :func:`interference`."""

    vertices: np.ndarray
    triangles: np.ndarray = None

    def __post_init__(self):
        from scipy.spatial import ConvexHull

        try:
            pts = np.array(self.vertices, dtype=float)
        except (TypeError, ValueError):
            raise ModelError("ConvexPolyhedron: vertices must be numbers (m), shape (n, 3)") \
                from None
        if pts.ndim != 2 or pts.shape[1] != 3 or pts.shape[0] < 4 or \
                not np.all(np.isfinite(pts)):
            raise ModelError(f"ConvexPolyhedron: vertices must be at least 4 finite points, shape"
                             f" (n, 3); got shape {pts.shape}")
        try:
            hull = ConvexHull(pts)
        except Exception as exc:  # scipy's QhullError: flat or degenerate points
            raise ModelError(f"ConvexPolyhedron: the vertices span no volume ({exc})") from None
        tri = np.array(hull.simplices, dtype=np.int64)
        a, b, c = pts[tri[:, 0]], pts[tri[:, 1]], pts[tri[:, 2]]
        outward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3])
        tri[outward < 0.0] = tri[outward < 0.0][:, [0, 2, 1]]
        object.__setattr__(self, "vertices", pts)
        object.__setattr__(self, "triangles", tri)

    def numbers(self):
        raise ModelError("ConvexPolyhedron has no packed numbers: it is not a pair-geometry "
                         "shape")

    def __repr__(self):
        return f"ConvexPolyhedron({self.vertices.shape[0]} vertices)"


class Interference(NamedTuple):
    """The volume of interference, in the frame the plane was given in.

    Attributes
    ----------
    V : float
        The volume (m^3).
    centroid : ndarray, shape (3,)
        Its centroid (m).
    inertia : ndarray, shape (3, 3)
        Its inertia tensor about the centroid for unit density (m^5).
    J : float
        The polar moment about the normal through the centroid, ``n . inertia . n`` (m^5).
    """

    V: float
    centroid: np.ndarray
    inertia: np.ndarray
    J: float


def _plane(point, normal):
    point = np.asarray(point, dtype=float)
    normal = np.asarray(normal, dtype=float)
    if point.shape != (3,) or not np.all(np.isfinite(point)):
        raise ValueError(f"point must be 3 finite numbers (m), got {point!r}")
    if normal.shape != (3,) or not np.all(np.isfinite(normal)):
        raise ValueError(f"normal must be 3 finite numbers, got {normal!r}")
    norm = float(np.linalg.norm(normal))
    if not norm > 1e-300:
        raise ValueError("normal must be a nonzero vector (it is normalised)")
    return point, normal / norm


def _dispatch(shape, point, normal, patch):
    if isinstance(shape, Sphere):
        f = sphere_patch if patch else sphere_volume
        return f(shape.radius, point, normal)
    if isinstance(shape, Ellipsoid):
        f = ellipsoid_patch if patch else ellipsoid_volume
        return f(shape.a, shape.b, shape.c, point, normal)
    if isinstance(shape, Cylinder):
        f = cylinder_patch if patch else cylinder_volume
        return f(shape.radius, shape.length, point, normal)
    if isinstance(shape, Capsule):
        f = capsule_patch if patch else capsule_volume
        return f(shape.radius, shape.length, point, normal)
    if isinstance(shape, Box):
        f = box_patch if patch else box_volume
        return f(*shape.half_extents, point, normal)
    if isinstance(shape, ConvexPolyhedron):
        f = polyhedron_patch if patch else polyhedron_volume
        return f(shape.vertices, shape.triangles, point, normal)
    raise ValueError(f"shape must be a Sphere, Ellipsoid, Cylinder, Capsule, Box or "
                     f"ConvexPolyhedron, got {shape!r}")


def interference(shape: Shape, point, normal) -> Interference:
    """The volume of interference of ``shape`` with the plane through ``point`` of unit
    ``normal``, all in the shape's body frame (the shape's ``position`` is its centre there).

    Parameters
    ----------
    shape : Sphere, Ellipsoid, Cylinder, Capsule, Box or ConvexPolyhedron
    point : array_like, shape (3,)
        A point of the plane (m), body frame.
    normal : array_like, shape (3,)
        The plane's normal (normalised here), body frame; the solid is below the plane.

    Returns
    -------
    Interference
        ``V`` (m^3), ``centroid`` (m), ``inertia`` (m^5, about the centroid, unit density) and
        ``J`` (m^5), in the body frame.
    """
    point, normal = _plane(point, normal)
    centre = np.asarray(shape.position, dtype=float) if not isinstance(
        shape, ConvexPolyhedron) else np.zeros(3)
    V, c, inertia = _dispatch(shape, point - centre, normal, False)
    return Interference(float(V), c + centre, inertia, float(polar_moment(inertia, normal)))


def contact_patch(shape: Shape, point, normal):
    """The contact patch, the section of ``shape`` by the plane: ``(A, centroid)`` (m^2; m,
    shape (3,), body frame). Arguments as :func:`interference`."""
    point, normal = _plane(point, normal)
    centre = np.asarray(shape.position, dtype=float) if not isinstance(
        shape, ConvexPolyhedron) else np.zeros(3)
    A, c = _dispatch(shape, point - centre, normal, True)
    return float(A), c + centre


def volume_rate(shape: Shape, point, normal, v, omega) -> float:
    """``dV/dt = -A n . (v + omega x c_A)`` (m^3/s): the rate of the volume of interference of
    ``shape`` moving relative to the plane with velocity ``v`` (m/s, of its body frame's
    origin) and angular velocity ``omega`` (rad/s), both in body-frame components.

    The volume changes only where the plane cuts the shape: at the patch, each element ``dA``
    at ``r`` sweeps ``-n . (v + omega x r) dA`` into the half-space; summed over the flat patch
    this is the area times the approach speed of its centroid ``c_A`` (:func:`contact_patch`).
    """
    point, normal = _plane(point, normal)
    A, cA = contact_patch(shape, point, normal)
    v = np.asarray(v, dtype=float)
    omega = np.asarray(omega, dtype=float)
    return float(-A * normal @ (v + np.cross(omega, cA)))
