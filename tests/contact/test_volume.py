"""The volume of interference of ``nonsmooth.contact.volume`` against references written apart
from it: scipy's adaptive vector quadrature (``quad_vec``, tolerances 1e-13, break points at
every kink) of closed-form moments of plane sections,

* sphere and ellipsoid: sliced along the plane's normal, each section an ellipse (its centre
  and its second moments from the quadric's restriction to the section plane);
* box and convex polyhedron: sliced along the normal, each section the convex polygon of the
  edges' crossings (shoelace moments);
* cylinder and capsule: sliced along their axis (the implementation slices parallel to it),
  each section a disc or a circular segment (its moments in the textbook angle form);

and the published closed forms (``docs/design/volume.md``: cap, box face, edge and
corner), the whole shapes' mass properties, continuity at every regime transition, invariance
under rotations, and the rate ``dV/dt`` against central finite differences of the volume."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad_vec
from scipy.spatial.transform import Rotation

from nonsmooth.contact.shapes import Box, Capsule, Cylinder, Ellipsoid, Sphere
from nonsmooth.contact.volume import (
    ConvexPolyhedron,
    box_volume,
    contact_patch,
    interference,
    polyhedron_volume,
    volume_rate,
)
from nonsmooth.errors import ModelError

pytestmark = pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")

TOL = 1e-10
rng = np.random.default_rng(40)
NORMALS = [np.array(n) / np.linalg.norm(n) for n in (
    (0.3, -0.5, 0.8), (-0.9, 0.2, -0.35), (0.05, 0.1, -1.0), (0.7, 0.7, 0.1))]


def _tangents(n):
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(n, a)
    t1 /= np.linalg.norm(t1)
    return np.column_stack([t1, np.cross(n, t1)])


def _finish(raw, ref):
    """``(V, centroid, inertia)`` from raw moments ``[V, S(3), C(9)]`` about ``ref``."""
    V = raw[0]
    rel = raw[1:4] / V
    C = raw[4:].reshape(3, 3) - V * np.outer(rel, rel)
    return V, ref + rel, np.trace(C) * np.eye(3) - C


def _raw(area, centre, second, ref):
    """Raw moments of a section (area, centre (3,), central second moments (3, 3)) about ref."""
    d = centre - ref
    return np.concatenate([[area], area * d, (second + area * np.outer(d, d)).ravel()])


def _integrate(f, a, b, points=()):
    pts = sorted(p for p in points if a < p < b)
    val, _ = quad_vec(f, a, b, epsabs=1e-13, epsrel=1e-13, points=pts or None, limit=400)
    return val


# ---------------------------------------------------------------------------- references

def ref_ellipsoid(axes, point, n):
    """Slices along ``n``: the section ``n . x = u`` of ``x^T Q x <= 1`` is an ellipse."""
    Q = np.diag(1.0 / np.asarray(axes, float) ** 2)
    T = _tangents(n)
    M = T.T @ Q @ T
    Mi = np.linalg.inv(M)
    b = T.T @ Q @ n
    w = math.sqrt(n @ np.diag(np.asarray(axes, float) ** 2) @ n)
    e = min(n @ point, w)

    def section(u):
        y0 = -u * Mi @ b
        k = 1.0 - u * u * (n @ Q @ n) + u * u * (b @ Mi @ b)
        k = max(k, 0.0)
        area = math.pi * k / math.sqrt(np.linalg.det(M))
        second = T @ (math.pi * k * k / (4.0 * math.sqrt(np.linalg.det(M))) * Mi) @ T.T
        return area, u * n + T @ y0, second

    ref = section(e)[1] if e < w else np.zeros(3)
    raw = _integrate(lambda u: _raw(*section(u), ref), -w, e)
    return _finish(raw, ref)


def _segment(rho, a):
    """The part ``x < a`` of a disc of radius ``rho``: area, int x, int x^2, int y^2 (x across
    the chord), in the angle form: the complement cap ``x >= a = rho cos(theta)``."""
    if a >= rho:
        return math.pi * rho ** 2, 0.0, math.pi * rho ** 4 / 4, math.pi * rho ** 4 / 4
    if a <= -rho:
        return 0.0, 0.0, 0.0, 0.0
    th = math.acos(a / rho)
    cap = (rho ** 2 * (th - math.sin(th) * math.cos(th)),
           2.0 / 3.0 * rho ** 3 * math.sin(th) ** 3,
           rho ** 4 * (th / 4 - math.sin(4 * th) / 16),
           2.0 / 3.0 * rho ** 4 * (3 * th / 8 - math.sin(2 * th) / 4 + math.sin(4 * th) / 32))
    disc = (math.pi * rho ** 2, 0.0, math.pi * rho ** 4 / 4, math.pi * rho ** 4 / 4)
    return tuple(d - c for d, c in zip(disc, cap, strict=True))


def _axial_kinks(R, L, capsule, e, s, nz):
    """Where a section's chord is tangent to its disc (and the caps' faces)."""
    kinks = [L / 2, -L / 2]
    if nz == 0:
        return kinks
    kinks += [(e - s * R) / nz, (e + s * R) / nz]
    for sign in (1.0, -1.0):          # tangency in the hemispheres
        Ez = e - sign * nz * L / 2
        c = sign * nz
        if capsule and R * R > Ez * Ez:
            for t in (c * Ez + s * math.sqrt(R * R - Ez * Ez),
                      c * Ez - s * math.sqrt(R * R - Ez * Ez)):
                if t > 0:
                    kinks.append(sign * (L / 2 + t))
    return kinks


def ref_axial(R, L, capsule, point, n):
    """Slices along the axis z: a disc of radius ``rho(z)`` cut by ``m . p < (e - n_z z) / s``,
    ``m`` the in-disc direction of ``n``; the capsule's hemispheres are discs of radius
    ``sqrt(R^2 - (|z| - L/2)^2)``."""
    e = n @ point
    s = math.hypot(n[0], n[1])
    m = np.array([n[0], n[1], 0.0]) / s if s > 0 else np.array([1.0, 0.0, 0.0])
    perp = np.cross([0.0, 0.0, 1.0], m)

    def rho(z):
        if abs(z) <= L / 2:
            return R
        return math.sqrt(max(R * R - (abs(z) - L / 2) ** 2, 0.0))

    def section(z, ref):
        r = rho(z)
        if s > 0:
            A, X1, X2, Y2 = _segment(r, (e - n[2] * z) / s)
        elif n[2] * z < e:
            A, X1, X2, Y2 = math.pi * r * r, 0.0, math.pi * r ** 4 / 4, math.pi * r ** 4 / 4
        else:
            A = X1 = X2 = Y2 = 0.0
        if A == 0.0:
            return np.zeros(13)
        c = X1 / A * m + np.array([0.0, 0.0, z])
        second = ((X2 - X1 ** 2 / A) * np.outer(m, m) + Y2 * np.outer(perp, perp))
        return _raw(A, c, second, ref)

    half = L / 2 + (R if capsule else 0.0)
    kinks = _axial_kinks(R, L, capsule, e, s, n[2])
    raw0 = _integrate(lambda z: section(z, np.zeros(3)), -half, half, kinks)
    if raw0[0] <= 0:
        return 0.0, None, np.zeros((3, 3))
    ref = raw0[1:4] / raw0[0]
    raw = _integrate(lambda z: section(z, ref), -half, half, kinks)
    return _finish(raw, ref)


def _edges(triangles):
    return sorted({tuple(sorted((t[i], t[(i + 1) % 3]))) for t in triangles for i in range(3)})


def ref_polyhedron(vertices, triangles, point, n):
    """Slices along ``n``: each section is the convex polygon of the edges' crossings."""
    edges = _edges(triangles)
    T = _tangents(n)
    h = vertices @ n
    e = min(n @ point, h.max())

    def section(u, ref):
        pts = []
        for i, j in edges:
            if (h[i] - u) * (h[j] - u) < 0:
                t = (u - h[i]) / (h[j] - h[i])
                pts.append(vertices[i] + t * (vertices[j] - vertices[i]))
        if len(pts) < 3:
            return np.zeros(13)
        P = np.array(pts) - ref
        xy = P @ T
        mean = xy.mean(axis=0)
        order = np.argsort(np.arctan2(xy[:, 1] - mean[1], xy[:, 0] - mean[0]))
        x, y = (xy[order] - mean).T
        x1, y1 = np.roll(x, -1), np.roll(y, -1)
        cr = x * y1 - x1 * y
        A = cr.sum() / 2
        Sx = ((x + x1) * cr).sum() / 6
        Sy = ((y + y1) * cr).sum() / 6
        Ixx = ((x * x + x * x1 + x1 * x1) * cr).sum() / 12
        Iyy = ((y * y + y * y1 + y1 * y1) * cr).sum() / 12
        Ixy = ((x * y1 + 2 * x * y + 2 * x1 * y1 + x1 * y) * cr).sum() / 24
        c2 = mean + np.array([Sx, Sy]) / A          # the section's centroid (2-D)
        # second moments about c2, from those about mean
        S2 = np.array([[Ixx, Ixy], [Ixy, Iyy]]) - A * np.outer(c2 - mean, c2 - mean)
        centre = ref + T @ c2 + n * (u - ref @ n)
        return _raw(A, centre, T @ S2 @ T.T, ref)

    lo = h.min()
    raw0 = _integrate(lambda u: section(u, np.zeros(3)), lo, e, h)
    ref = raw0[1:4] / raw0[0]
    raw = _integrate(lambda u: section(u, ref), lo, e, h)
    return _finish(raw, ref)


def box_mesh(hx, hy, hz):
    v = np.array([[sx * hx, sy * hy, sz * hz] for sx in (-1, 1) for sy in (-1, 1)
                  for sz in (-1, 1)])
    poly = ConvexPolyhedron(v)
    return poly.vertices, poly.triangles


def check(got, want, scale):
    """``V``, centroid and inertia agree to TOL relative (the centroid on the shape's size)."""
    V, c, inertia = got
    Vr, cr, Ir = want
    assert abs(V - Vr) <= TOL * abs(Vr), (V, Vr)
    assert np.max(np.abs(c - cr)) <= TOL * scale, (c, cr)
    assert np.max(np.abs(inertia - Ir)) <= TOL * np.max(np.abs(Ir)), (inertia, Ir)


def plane_at(shape_extent_lo, shape_extent_hi, frac, n):
    """The plane point at the fraction ``frac`` of the shape's extent along ``n``."""
    return (shape_extent_lo + frac * (shape_extent_hi - shape_extent_lo)) * n


# ---------------------------------------------------------------------- sphere, ellipsoid

@pytest.mark.parametrize("d", [1e-3, 0.2, 1.0, 1.7, 1.999])
def test_sphere_cap_closed_form_and_reference(d):
    R = 1.0
    n = NORMALS[0]
    res = interference(Sphere(R), (d - R) * n, n)
    assert res.V == pytest.approx(math.pi * d * d * (3 * R - d) / 3, rel=1e-13)
    assert res.J == pytest.approx(math.pi * d ** 3 * (3 * d * d - 15 * R * d + 20 * R * R) / 30,
                                  rel=1e-12)
    below = d * (4 * R - d) / (4 * (3 * R - d))     # the spec's centroid above the cap's base
    assert res.centroid @ n == pytest.approx((d - R) - below, rel=1e-12, abs=1e-15)
    check((res.V, res.centroid, res.inertia), ref_ellipsoid((R, R, R), (d - R) * n, n), R)


@pytest.mark.parametrize("n", NORMALS)
@pytest.mark.parametrize("frac", [0.01, 0.3, 0.5, 0.85])
def test_ellipsoid_against_slices(n, frac):
    axes = (0.7, 1.3, 0.4)
    w = math.sqrt(n @ np.diag(np.square(axes)) @ n)
    point = plane_at(-w, w, frac, n)
    got = interference(Ellipsoid(*axes), point, n)
    assert got.V == pytest.approx(math.pi * np.prod(axes) * (2 * w * frac) ** 2
                                  * (3 * w - 2 * w * frac) / (3 * w ** 3), rel=1e-12)
    check((got.V, got.centroid, got.inertia), ref_ellipsoid(axes, point, n), 1.3)


# ------------------------------------------------------------------- cylinder and capsule

CYL_NORMALS = NORMALS + [np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, -1.0]),
                         np.array([0.6, -0.8, 0.0]), np.array([0.0, 1.0, 0.0])]


def _extent(n, R, L, capsule):
    s = math.hypot(n[0], n[1])
    h = s * R + abs(n[2]) * L / 2 if not capsule else R + abs(n[2]) * L / 2
    return -h, h


@pytest.mark.parametrize("n", CYL_NORMALS)
@pytest.mark.parametrize("frac", [0.02, 0.15, 0.5, 0.9])
def test_cylinder_against_axial_slices(n, frac):
    R, L = 0.5, 1.6
    point = plane_at(*_extent(n, R, L, False), frac, n)
    got = interference(Cylinder(R, L), point, n)
    check((got.V, got.centroid, got.inertia), ref_axial(R, L, False, point, n), L)


@pytest.mark.parametrize("n", CYL_NORMALS)
@pytest.mark.parametrize("frac", [0.02, 0.15, 0.4, 0.7, 0.95])
def test_capsule_against_axial_slices(n, frac):
    R, L = 0.5, 1.2
    point = plane_at(*_extent(n, R, L, True), frac, n)
    got = interference(Capsule(R, L), point, n)
    check((got.V, got.centroid, got.inertia), ref_axial(R, L, True, point, n), L)


def test_cylinder_regimes_spec_closed_forms():
    R, L, d = 0.5, 1.6, 0.2
    side = interference(Cylinder(R, L), (0.0, -R + d, 0.0), (0.0, 1.0, 0.0))
    assert side.V == pytest.approx(L * (R * R * math.acos((R - d) / R)
                                        - (R - d) * math.sqrt(2 * R * d - d * d)), rel=1e-13)
    face = interference(Cylinder(R, L), (0.0, 0.0, -L / 2 + d), (0.0, 0.0, 1.0))
    assert face.V == pytest.approx(math.pi * R * R * d, rel=1e-14)
    assert face.J == pytest.approx(math.pi * R ** 4 / 2 * d, rel=1e-14)


# ------------------------------------------------------------------ box and polyhedra

def test_box_face_edge_corner_spec_closed_forms():
    h = np.array([0.3, 0.5, 0.7])
    d = 0.05
    face = box_volume(*h, np.array([0.0, 0.0, -h[2] + d]), np.array([0.0, 0.0, 1.0]))
    assert face[0] == pytest.approx(4 * h[0] * h[1] * d, rel=1e-14)
    t = 0.4          # an edge along x down: the normal turned by t about x
    n = np.array([0.0, math.sin(t), math.cos(t)])
    lowest = -h[1] * math.sin(t) - h[2] * math.cos(t)
    edge = box_volume(*h, (lowest + d) * n, n)
    assert edge[0] == pytest.approx(2 * h[0] * d * d / (2 * math.sin(t) * math.cos(t)),
                                    rel=1e-13)
    n = np.array([0.5, 0.6, 0.62449979983984])
    n /= np.linalg.norm(n)
    lowest = -(np.abs(n) @ h)
    corner = box_volume(*h, (lowest + d) * n, n)
    assert corner[0] == pytest.approx(d ** 3 / (6 * abs(np.prod(n))), rel=1e-12)


BOX_NORMALS = NORMALS + [np.array([0.0, 0.0, 1.0]), np.array([0.0, -0.6, 0.8])]


@pytest.mark.parametrize("n", BOX_NORMALS)
@pytest.mark.parametrize("frac", [0.03, 0.2, 0.5, 0.8])
def test_box_against_polygon_slices(n, frac):
    h = np.array([0.3, 0.5, 0.7])
    ext = np.abs(n) @ h
    point = plane_at(-ext, ext, frac, n)
    got = interference(Box(tuple(h)), point, n)
    v, tri = box_mesh(*h)
    check((got.V, got.centroid, got.inertia), ref_polyhedron(v, tri, point, n), 0.7)


@pytest.mark.parametrize("frac", [0.1, 0.45, 0.9])
def test_convex_polyhedron_against_polygon_slices(frac):
    pts = rng.normal(size=(14, 3)) * np.array([1.0, 0.6, 0.8])
    poly = ConvexPolyhedron(pts)
    n = NORMALS[1]
    h = poly.vertices @ n
    point = (h.min() + frac * (h.max() - h.min())) * n
    got = interference(poly, point, n)
    check((got.V, got.centroid, got.inertia),
          ref_polyhedron(poly.vertices, poly.triangles, point, n), 1.0)
    # the box as a polyhedron
    v, tri = box_mesh(0.3, 0.5, 0.7)
    a = polyhedron_volume(v, tri, point, n)
    b = box_volume(0.3, 0.5, 0.7, point, n)
    assert a[0] == pytest.approx(b[0], rel=1e-13)


# ----------------------------------------------------------------------------- limits

SHAPES = {
    "sphere": (Sphere(0.4), 0.4, 4 / 3 * math.pi * 0.4 ** 3,
               np.eye(3) * 2 / 5 * 4 / 3 * math.pi * 0.4 ** 5),
    "ellipsoid": (Ellipsoid(0.3, 0.5, 0.7), 0.7, 4 / 3 * math.pi * 0.105,
                  4 / 3 * math.pi * 0.105 / 5 * np.diag([0.74, 0.58, 0.34])),
    "cylinder": (Cylinder(0.5, 1.6), 1.0, math.pi * 0.4,
                 math.pi * 0.4 * np.diag([0.25 / 4 + 2.56 / 12] * 2 + [0.125])),
    "box": (Box((0.3, 0.5, 0.7)), 0.9, 0.84, 0.84 / 3 * np.diag([0.74, 0.58, 0.34])),
}
_cv, _sv = math.pi * 0.25 * 1.2, 4 / 3 * math.pi * 0.125
_I_axial = _cv * 0.125 + _sv * 2 / 5 * 0.25
_I_trans = (_cv * (0.25 / 4 + 1.44 / 12)
            + _sv * (83 / 320 * 0.25 + (0.6 + 3 / 8 * 0.5) ** 2))   # hemispheres about the centre
SHAPES["capsule"] = (Capsule(0.5, 1.2), 1.1, _cv + _sv, np.diag([_I_trans, _I_trans, _I_axial]))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_zero_penetration_and_full_immersion(name):
    shape, extent, V, inertia = SHAPES[name]
    n = NORMALS[2]
    assert interference(shape, -2 * extent * n, n).V == 0.0
    full = interference(shape, 2 * extent * n, n)
    assert full.V == pytest.approx(V, rel=1e-13)
    np.testing.assert_allclose(full.centroid, 0.0, atol=1e-13)
    np.testing.assert_allclose(full.inertia, inertia, rtol=0, atol=1e-12 * np.max(inertia))
    assert interference(shape, -4 * extent * n, n).J == 0.0


def test_box_transitions_are_continuous():
    h = (0.3, 0.5, 0.7)
    box = Box(h)
    ez = np.array([0.0, 0.0, 1.0])
    base = interference(box, (-0.7 + 0.1) * ez, ez)
    for eps in (1e-9, -1e-9):                   # face -> edge: tilt about x
        n = np.array([0.0, math.sin(eps), math.cos(eps)])
        tilt = interference(box, (-0.7 + 0.1) * n, n)
        assert tilt.V == pytest.approx(base.V, rel=1e-8)
        np.testing.assert_allclose(tilt.inertia, base.inertia, atol=1e-8)
    n = np.array([0.0, 0.6, 0.8])               # edge -> corner: tilt about y
    for eps in (1e-9, -1e-9):
        m = Rotation.from_rotvec([0.0, eps, 0.0]).apply(n)
        p = -(np.abs(n) @ h - 0.05) * n
        a = interference(box, p, n)
        b = interference(box, -(np.abs(m) @ h - 0.05) * m, m)
        assert b.V == pytest.approx(a.V, rel=1e-7)
    # the plane passing a vertex: V and its derivatives continuous (the area is)
    n = NORMALS[0]
    verts = np.array([[sx * 0.3, sy * 0.5, sz * 0.7] for sx in (-1, 1) for sy in (-1, 1)
                      for sz in (-1, 1)]) @ n
    for hv in np.sort(verts)[1:-1]:
        vals = [interference(box, (hv + k * 1e-7) * n, n).V for k in (-2, -1, 0, 1, 2)]
        second = np.diff(vals, 2)
        assert abs(second[0] - second[1]) < 1e-9


@pytest.mark.parametrize("kind", ["cylinder", "capsule"])
def test_cylinder_side_and_face_continuous_with_tilt(kind):
    shape = Cylinder(0.5, 1.6) if kind == "cylinder" else Capsule(0.5, 1.2)
    for n0, p in ((np.array([0.0, 1.0, 0.0]), -0.3), (np.array([0.0, 0.0, 1.0]), -0.6)):
        exact = interference(shape, p * n0, n0)
        for eps in (1e-7, -1e-7):
            n = Rotation.from_rotvec([eps, 0.0, 0.0]).apply(n0)
            tilt = interference(shape, p * n, n)
            assert tilt.V == pytest.approx(exact.V, rel=1e-6)
            np.testing.assert_allclose(tilt.centroid, exact.centroid, atol=1e-6)
            np.testing.assert_allclose(tilt.inertia, exact.inertia, atol=1e-6)
    # the capsule's lower hemisphere switching between its closed-form cap and the
    # quadrature, where the plane touches its flat face's rim
    if kind == "capsule":
        n = NORMALS[0]
        e = -0.5 * math.hypot(n[0], n[1]) - 0.6 * n[2]
        for k in (-1e-12, 0.0, 1e-12):
            got = interference(shape, (e + k) * n, n)
            check((got.V, got.centroid, got.inertia), ref_axial(0.5, 1.2, True, (e + k) * n, n),
                  1.2)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_rotation_about_the_normal(name):
    """The shape posed on a plane z = 0 of a world frame, then turned about the plane's normal:
    V and J unchanged, the centroid and inertia turned with it."""
    shape = SHAPES[name][0]
    pose = Rotation.from_rotvec([0.4, -0.7, 0.2])
    world_ez = np.array([0.0, 0.0, 1.0])
    height = 0.15
    res0 = None
    for angle in (0.0, 0.9, 2.5):
        turn = Rotation.from_rotvec([0.0, 0.0, angle])
        R = (turn * pose).as_matrix()      # shape -> world
        t = turn.apply([0.1, -0.2, height])
        n = R.T @ world_ez                 # the plane in the shape's frame
        p = R.T @ (np.zeros(3) - t)
        res = interference(shape, p, n)
        c_world = R @ res.centroid + t
        I_world = R @ res.inertia @ R.T
        if res0 is None:
            res0 = (res.V, res.J, c_world, I_world)
            assert res.V > 0
            continue
        T = turn.as_matrix()
        assert res.V == pytest.approx(res0[0], rel=1e-12)
        assert res.J == pytest.approx(res0[1], rel=1e-11)
        np.testing.assert_allclose(c_world, T @ res0[2] + 0.0, atol=1e-12)
        np.testing.assert_allclose(I_world, T @ res0[3] @ T.T, atol=1e-12 * res.J)


@pytest.mark.parametrize("kind", ["cylinder", "capsule"])
def test_turning_the_plane_about_the_axis(kind):
    shape = Cylinder(0.5, 1.6) if kind == "cylinder" else Capsule(0.5, 1.2)
    n = NORMALS[0]
    p = -0.3 * n
    a = interference(shape, p, n)
    turn = Rotation.from_rotvec([0.0, 0.0, 1.1]).as_matrix()
    b = interference(shape, turn @ p, turn @ n)
    assert b.V == pytest.approx(a.V, rel=1e-13)
    np.testing.assert_allclose(b.centroid, turn @ a.centroid, atol=1e-13)
    np.testing.assert_allclose(b.inertia, turn @ a.inertia @ turn.T, atol=1e-13)


# ------------------------------------------------------------------------------ rates

RATE_SHAPES = [Sphere(0.4, position=(0.1, 0.0, 0.2)), Ellipsoid(0.3, 0.5, 0.7),
               Cylinder(0.5, 1.6), Capsule(0.5, 1.2), Box((0.3, 0.5, 0.7)),
               Cylinder(0.5, 1.6), Capsule(0.5, 1.2)]


@pytest.mark.parametrize("index", range(len(RATE_SHAPES)))
def test_volume_rate_against_finite_differences(index):
    """The plane seen from the shape moving with ``(v, omega)``: after a time ``t`` it is
    ``n_t = R^T n``, ``p_t = R^T (p - v t)``, ``R = exp(t omega^)``; the central difference of
    ``V`` over ``t = +-1e-5`` against :func:`volume_rate`."""
    shape = RATE_SHAPES[index]
    n = NORMALS[index % len(NORMALS)] if index < 5 else np.array([0.0, 0.6, 0.8])
    p = -0.35 * n + np.asarray(shape.position)
    v = np.array([0.3, -0.2, 0.5])
    w = np.array([1.1, 0.4, -0.7])
    h = 1e-5

    def V(t):
        Rt = Rotation.from_rotvec(w * t).as_matrix()
        return interference(shape, Rt.T @ (p - v * t), Rt.T @ n).V

    fd = (V(h) - V(-h)) / (2 * h)
    rate = volume_rate(shape, p, n, v, w)
    assert rate == pytest.approx(fd, rel=1e-7, abs=1e-9)
    # the patch's area is dV/de
    A, _ = contact_patch(shape, p, n)
    dVde = (interference(shape, p + h * n, n).V - interference(shape, p - h * n, n).V) / (2 * h)
    assert A == pytest.approx(dVde, rel=1e-8)


# ------------------------------------------------------------------------------ errors

def test_errors():
    with pytest.raises(ValueError, match="normal must be a nonzero vector"):
        interference(Sphere(1.0), (0, 0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="point must be 3 finite numbers"):
        interference(Sphere(1.0), (0, 0), (0, 0, 1))
    with pytest.raises(ModelError, match="span no volume"):
        ConvexPolyhedron([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="shape must be"):
        from nonsmooth.contact.shapes import Plane
        interference(Plane((0, 0, 0), (0, 0, 1)), (0, 0, 0), (0, 0, 1))
