"""The pair geometry of ``nonsmooth.contact`` against brute force written apart from it: the
distance of two segments (capsules, spheres) minimised numerically from a grid, the deepest
point of a surface below a plane minimised over its parametrisation, a box's corners and
deepest point by linear programming, a cylinder's rim sampled; at random poses, penetrating
and apart. The gap's rate against a central difference of the gap along a rigid motion."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog, minimize, minimize_scalar
from scipy.spatial.transform import Rotation

from nonsmooth.contact import (
    Box,
    Capsule,
    Circle,
    Cylinder,
    Ellipsoid,
    Hole,
    Line,
    Plane,
    Sphere,
    contact_points,
    gap_rate,
    pair_geometry,
)
from nonsmooth.contact.geometry import MAX_POINTS
from nonsmooth.errors import ModelError

RNG = np.random.default_rng(20261205)
N_POSES = 12


def rotation(seed=None):
    return Rotation.random(random_state=RNG if seed is None else seed).as_matrix()


def only(points):
    assert len(points) == 1
    return points[0]


# ---------------------------------------------------------------- spheres and capsules

def segment(shape, p, R):
    """A sphere's or capsule's segment ends (world), and its radius."""
    h = 0.5 * shape.length if isinstance(shape, Capsule) else 0.0
    return p - h * R[:, 2], p + h * R[:, 2], shape.radius


def brute_segments(a0, a1, b0, b1):
    """The closest points of two segments: a 21x21 grid of their parameters, then L-BFGS-B."""
    def dist2(x):
        d = (a0 + x[0] * (a1 - a0)) - (b0 + x[1] * (b1 - b0))
        return d @ d
    grid = np.linspace(0, 1, 21)
    start = min(itertools.product(grid, grid), key=dist2)
    best = minimize(dist2, start, method="L-BFGS-B", bounds=[(0, 1), (0, 1)],
                    options={"ftol": 1e-16, "gtol": 1e-13})
    s, t = best.x
    return a0 + s * (a1 - a0), b0 + t * (b1 - b0)


@pytest.mark.parametrize("shape_a, shape_b", [
    (Sphere(0.3), Sphere(0.5)), (Sphere(0.3), Capsule(0.2, 1.0)),
    (Capsule(0.25, 0.8), Capsule(0.2, 1.0)), (Capsule(0.2, 1.0), Sphere(0.3))])
def test_round_pairs_against_segment_distance(shape_a, shape_b):
    n_apart = n_deep = 0
    for _ in range(N_POSES):
        p_a, R_a = RNG.normal(size=3) * 0.3, rotation()
        offset = RNG.normal(size=3)
        p_b, R_b = p_a + offset / np.linalg.norm(offset) * RNG.uniform(0.1, 1.0), rotation()
        a0, a1, ra = segment(shape_a, p_a, R_a)
        b0, b1, rb = segment(shape_b, p_b, R_b)
        qa, qb = brute_segments(a0, a1, b0, b1)
        dist = np.linalg.norm(qb - qa)
        if dist < 1e-2:
            continue                     # segments crossing: no normal to compare
        n = (qb - qa) / dist
        gap = dist - ra - rb
        c = only(contact_points(shape_a, (p_a, R_a), shape_b, (p_b, R_b)))
        assert c.gap == pytest.approx(gap, abs=1e-9)
        np.testing.assert_allclose(c.normal, n, atol=1e-6)
        np.testing.assert_allclose(c.point, 0.5 * ((qa + ra * n) + (qb - rb * n)), atol=1e-6)
        n_apart += gap > 0
        n_deep += gap < 0
    assert n_apart >= 2 and n_deep >= 2


def test_parallel_capsules_touch_at_the_middle_of_their_overlap():
    R = rotation(3)
    u, w = R[:, 2], R[:, 0]
    a, b = Capsule(0.1, 2.0), Capsule(0.15, 1.0)
    p_a = np.array([0.2, -0.1, 0.4])
    p_b = p_a + 0.22 * w + 0.9 * u           # b's segment spans 0.4 .. 1.4 along a's axis
    c = only(contact_points(a, (p_a, R), b, (p_b, R)))
    assert c.gap == pytest.approx(0.22 - 0.25, abs=1e-12)
    np.testing.assert_allclose(c.normal, w, atol=1e-12)
    middle = p_a + 0.5 * (0.4 + 1.0) * u     # overlap 0.4 .. 1.0 on a's segment
    np.testing.assert_allclose(c.point, middle + (0.1 + 0.5 * (0.22 - 0.25)) * w, atol=1e-12)


# ---------------------------------------------------------------- against a plane

def random_plane():
    """A plane on a randomly posed body: (shape, p, R) and its world point and normal."""
    normal = RNG.normal(size=3)
    plane = Plane(RNG.normal(size=3) * 0.2, normal)
    p, R = RNG.normal(size=3) * 0.2, rotation()
    return plane, p, R, p + R @ np.array(plane.point), R @ np.array(plane.normal)


def surface_min(fun_surface, m, P, starts):
    """The least signed height ``(x - P) . m`` of a surface ``x(angles)`` (2 angles), from the
    best of a grid of starts, refined by Nelder-Mead."""
    def height(ang):
        return (fun_surface(ang) - P) @ m
    start = min(starts, key=height)
    best = minimize(height, start, method="Nelder-Mead",
                    options={"xatol": 1e-12, "fatol": 1e-15, "maxiter": 20000})
    return best.fun, fun_surface(best.x)


def unit(th, ph):
    return np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)])


AXES = np.array([0.5, 0.2, 0.35])
ANGLES = list(itertools.product(np.linspace(0.05, np.pi - 0.05, 15),
                                np.linspace(0, 2 * np.pi, 30, endpoint=False)))


def check_against_plane(c, gap, deepest, m):
    assert c.gap == pytest.approx(gap, abs=1e-9)
    np.testing.assert_allclose(c.normal, -m, atol=1e-12)
    np.testing.assert_allclose(c.point, deepest - 0.5 * gap * m, atol=1e-6)


def test_sphere_and_ellipsoid_on_a_plane_against_surface_minimisation():
    n_deep = 0
    for _ in range(N_POSES):
        plane, p_b, R_b, P, m = random_plane()
        p_a, R_a = P + m * RNG.uniform(-0.3, 0.6) + RNG.normal(size=3) * 0.3, rotation()
        sphere = Sphere(0.35)
        gap, x = surface_min(lambda ang, p_a=p_a: p_a + 0.35 * unit(*ang), m, P, ANGLES)
        check_against_plane(only(contact_points(sphere, (p_a, R_a), plane, (p_b, R_b))),
                            gap, x, m)
        ell = Ellipsoid(0.5, 0.2, 0.35)
        gap, x = surface_min(lambda ang, p_a=p_a, R_a=R_a: p_a + R_a @ (AXES * unit(*ang)), m, P,
                             ANGLES)
        c = only(contact_points(ell, (p_a, R_a), plane, (p_b, R_b)))
        check_against_plane(c, gap, x, m)
        # the same pair given the other way round: the normal flips
        c2 = only(contact_points(plane, (p_b, R_b), ell, (p_a, R_a)))
        assert c2.gap == c.gap
        np.testing.assert_array_equal(c2.point, c.point)
        np.testing.assert_array_equal(c2.normal, -c.normal)
        n_deep += gap < 0
    assert n_deep >= 2


def test_capsule_on_a_plane_reports_its_end_caps():
    capsule = Capsule(0.2, 1.0)
    for _ in range(N_POSES):
        plane, p_b, R_b, P, m = random_plane()
        p_a, R_a = P + m * RNG.uniform(-0.3, 0.5), rotation()
        ends = []
        for sign in (-1, 1):
            e = p_a + sign * 0.5 * R_a[:, 2]
            ends.append(surface_min(lambda ang, e=e: e + 0.2 * unit(*ang), m, P, ANGLES))
        margin = 0.1
        expect = [i for i in range(2) if ends[i][0] < margin] or \
            [int(np.argmin([ends[0][0], ends[1][0]]))]
        points = contact_points(capsule, (p_a, R_a), plane, (p_b, R_b), margin=margin)
        assert [c.feature for c in points] == expect
        for c in points:
            check_against_plane(c, *ends[c.feature], m)
    # lying flat: both caps, equally deep
    lying = Rotation.from_euler("x", 90, degrees=True).as_matrix()
    points = contact_points(capsule, (np.array([0, 0, 0.19]), lying),
                            Plane((0, 0, 0), (0, 0, 1)), (np.zeros(3), np.eye(3)))
    assert len(points) == 2 and points[0].gap == pytest.approx(-0.01) == points[1].gap


def test_box_on_a_plane_corner_set_and_deepest_point():
    box = Box((0.3, 0.2, 0.1))
    h = np.array(box.half_extents)
    for _ in range(N_POSES):
        plane, p_b, R_b, P, m = random_plane()
        p_a, R_a = P + m * RNG.uniform(-0.2, 0.4), rotation()
        margin = 0.05
        corners = [p_a + R_a @ (h * np.array(s)) for s in itertools.product((-1, 1), repeat=3)]
        gaps = [(x - P) @ m for x in corners]
        below = [i for i, g in enumerate(gaps) if g < margin] or [int(np.argmin(gaps))]
        points = contact_points(box, (p_a, R_a), plane, (p_b, R_b), margin=margin)
        got = sorted((round(c.gap, 9), *np.round(c.point + 0.5 * c.gap * m, 9)) for c in points)
        want = sorted((round(gaps[i], 9), *np.round(corners[i], 9)) for i in below)
        assert got == want
        # the deepest point of the solid box below the plane, by linear programming
        lp = linprog(R_a.T @ m, bounds=[(-x, x) for x in h], method="highs")
        assert min(c.gap for c in points) == pytest.approx((p_a - P) @ m + lp.fun, abs=1e-9)
        for c in points:
            np.testing.assert_allclose(c.normal, -m, atol=1e-12)
    # resting flat: the four bottom corners, the top ones out of the margin
    points = contact_points(box, (np.array([0, 0, 0.099]), np.eye(3)),
                            Plane((0, 0, 0), (0, 0, 1)), (np.zeros(3), np.eye(3)), margin=1e-3)
    assert [c.feature for c in points] == [0, 1, 2, 3]
    assert all(c.gap == pytest.approx(-0.001) for c in points)


def rim_deepest(centre, axis_x, axis_y, r, m, P):
    """The deepest point of a rim circle below the plane: a 720-point sample refined."""
    def height(th):
        return (centre + r * (np.cos(th) * axis_x + np.sin(th) * axis_y) - P) @ m
    ths = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    t0 = ths[np.argmin([height(t) for t in ths])]
    best = minimize_scalar(height, bracket=(t0 - 0.01, t0, t0 + 0.01), tol=1e-12)
    th = best.x
    return height(th), centre + r * (np.cos(th) * axis_x + np.sin(th) * axis_y)


def test_cylinder_on_a_plane_rim_points():
    cyl = Cylinder(0.25, 0.6)
    for _ in range(N_POSES):
        plane, p_b, R_b, P, m = random_plane()
        p_a, R_a = P + m * RNG.uniform(-0.2, 0.4), rotation()
        u = R_a[:, 2]
        faces = [rim_deepest(p_a + s * 0.3 * u, R_a[:, 0], R_a[:, 1], 0.25, m, P)
                 for s in (-1, 1)]
        margin = 0.02
        points = contact_points(cyl, (p_a, R_a), plane, (p_b, R_b), margin=margin)
        deepest = min(faces, key=lambda f: f[0])
        assert min(c.gap for c in points) == pytest.approx(deepest[0], abs=1e-9)
        for c in points:
            x = c.point + 0.5 * c.gap * m                 # the point on the rim
            j, k = divmod(c.feature, 4)
            centre = p_a + (2 * j - 1) * 0.3 * u
            assert (x - centre) @ u == pytest.approx(0.0, abs=1e-12)
            assert np.linalg.norm(x - centre) == pytest.approx(0.25, abs=1e-12)
            assert c.gap == pytest.approx((x - P) @ m, abs=1e-12)
            assert c.gap < margin or len(points) == 1
            np.testing.assert_allclose(c.normal, -m, atol=1e-12)
            if k == 0:
                check_against_plane(c, *faces[j], m)
    flat = np.eye(3)
    ground = (Plane((0, 0, 0), (0, 0, 1)), (np.zeros(3), np.eye(3)))
    # lying flat on a face: that face's four rim points, 90 degrees apart
    points = contact_points(cyl, (np.array([0, 0, 0.299]), flat), *ground, margin=1e-3)
    assert [c.feature for c in points] == [0, 1, 2, 3]
    xs = np.array([c.point[:2] for c in points])
    np.testing.assert_allclose(np.linalg.norm(xs, axis=1), 0.25, atol=1e-12)
    np.testing.assert_allclose(xs @ xs.T, 0.0625 * np.array(
        [[1, 0, -1, 0], [0, 1, 0, -1], [-1, 0, 1, 0], [0, -1, 0, 1]]), atol=1e-12)
    # on its side: the deepest rim point of each face (a line contact by its ends)
    side = Rotation.from_euler("x", 90, degrees=True).as_matrix()
    points = contact_points(cyl, (np.array([0, 0, 0.249]), side), *ground, margin=1e-3)
    assert [c.feature for c in points] == [0, 4]
    # tilted on an edge: one point
    edge = Rotation.from_euler("x", 30, degrees=True).as_matrix()
    z = 0.3 * np.cos(np.pi / 6) + 0.25 * np.sin(np.pi / 6) - 1e-4
    points = contact_points(cyl, (np.array([0, 0, z]), edge), *ground, margin=1e-3)
    assert [c.feature for c in points] == [0] and points[0].gap == pytest.approx(-1e-4)


# ---------------------------------------------------------------- planar

def circle_boundary_min(centre, r, sd):
    """The least of a signed distance ``sd`` over a circle's boundary, and where."""
    def f(th):
        return sd(centre + r * np.array([np.cos(th), np.sin(th)]))
    ths = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    t0 = ths[np.argmin([f(t) for t in ths])]
    th = minimize_scalar(f, bracket=(t0 - 0.01, t0, t0 + 0.01), tol=1e-12).x
    return f(th), centre + r * np.array([np.cos(th), np.sin(th)])


def test_planar_pairs_against_boundary_minimisation():
    for _ in range(N_POSES):
        ca = RNG.normal(size=2) * 0.1
        angle_a, angle_b = RNG.uniform(0, 2 * np.pi, 2)
        # circle-circle: b's signed distance min over a's boundary
        cb = ca + RNG.normal(size=2) * 0.3
        cb = ca + (cb - ca) * max(1.0, 0.12 / np.linalg.norm(cb - ca))
        gap, x = circle_boundary_min(ca, 0.1, lambda y, cb=cb: np.linalg.norm(y - cb) - 0.15)
        c = only(contact_points(Circle(0.1), (ca, angle_a), Circle(0.15), (cb, angle_b)))
        n = (cb - x) / np.linalg.norm(cb - x)
        assert c.gap == pytest.approx(gap, abs=1e-9)
        np.testing.assert_allclose(c.normal, n, atol=1e-6)
        np.testing.assert_allclose(c.point, x + 0.5 * gap * n, atol=1e-6)
        # pin in hole: the hole's wall (material outside radius 0.1)
        ch = ca + RNG.normal(size=2) * 0.01
        gap, x = circle_boundary_min(ca, 0.09, lambda y, ch=ch: 0.1 - np.linalg.norm(y - ch))
        c = only(contact_points(Circle(0.09), (ca, angle_a), Hole(0.1), (ch, angle_b)))
        n = (x - ch) / np.linalg.norm(x - ch)
        assert c.gap == pytest.approx(gap, abs=1e-9)
        assert c.gap == pytest.approx((0.1 - 0.09) - np.linalg.norm(ca - ch), abs=1e-15)
        np.testing.assert_allclose(c.normal, n, atol=1e-6)
        np.testing.assert_allclose(c.point, x + 0.5 * gap * n, atol=1e-6)
        # circle on a line of a rotated body
        line = Line(RNG.normal(size=2) * 0.1, RNG.normal(size=2))
        pl = RNG.normal(size=2) * 0.1
        Rl = np.array([[np.cos(angle_b), -np.sin(angle_b)], [np.sin(angle_b), np.cos(angle_b)]])
        P, m = pl + Rl @ np.array(line.point), Rl @ np.array(line.normal)
        cc = P + m * RNG.uniform(-0.05, 0.2) + RNG.normal(size=2) * 0.2
        gap, x = circle_boundary_min(cc, 0.1, lambda y, P=P, m=m: (y - P) @ m)
        c = only(contact_points(Circle(0.1), (cc, 0.0), line, (pl, Rl)))
        assert c.gap == pytest.approx(gap, abs=1e-9)
        np.testing.assert_allclose(c.normal, -m, atol=1e-12)
        np.testing.assert_allclose(c.point, x - 0.5 * gap * m, atol=1e-6)
        # the other way round, from the compiled entry point with 2-D arrays
        out = np.zeros((MAX_POINTS, 7))
        k = pair_geometry(line.kind, line.pack(), pl, Rl, 11, np.array([0.1]), cc, np.eye(2),
                          0.0, out)
        assert k == 1
        np.testing.assert_allclose(out[0, 4:6], m, atol=1e-12)
        assert out[0, 0] == pytest.approx(c.gap, abs=1e-15) and out[0, 3] == out[0, 6] == 0.0


# ---------------------------------------------------------------- rates and the entry point

def rigid(p, R, v, w, t):
    """The pose at time t of a body moving with constant velocity v and angular velocity w."""
    return p + v * t, Rotation.from_rotvec(w * t).as_matrix() @ R


@pytest.mark.parametrize("shape_a, shape_b, margin", [
    (Sphere(0.3), Plane((0.1, 0, 0), (0.2, 0.1, 1)), 0.0),
    (Sphere(0.3), Sphere(0.2), 0.0), (Sphere(0.3), Capsule(0.2, 0.8), 0.0),
    (Capsule(0.2, 0.8), Capsule(0.1, 0.5), 0.0), (Ellipsoid(0.4, 0.2, 0.3), Plane((0, 0, 0),
                                                                               (0, 0, 1)), 0.0),
    (Box((0.3, 0.2, 0.1)), Plane((0, 0, 0), (0, 0, 1)), 10.0),
    (Capsule(0.2, 0.8), Plane((0, 0, 0), (0, 0, 1)), 10.0),
    (Cylinder(0.2, 0.5), Plane((0, 0, 0), (0, 0, 1)), 0.0)])
def test_gap_rate_is_the_normal_relative_velocity(shape_a, shape_b, margin):
    """The gap's central difference along a rigid motion of both bodies equals ``n . (v_b -
    v_a)`` at the contact point (for the cylinder: its deepest rim point)."""
    for _ in range(4):
        p_a, R_a, v_a, w_a = RNG.normal(size=3) * 0.3, rotation(), RNG.normal(size=3), \
            RNG.normal(size=3)
        p_b, R_b, v_b, w_b = RNG.normal(size=3) * 0.3 + [0, 0, 0.5], rotation(), \
            RNG.normal(size=3), RNG.normal(size=3)
        now = contact_points(shape_a, (p_a, R_a), shape_b, (p_b, R_b), margin=margin)
        dt = 1e-6
        later = contact_points(shape_a, rigid(p_a, R_a, v_a, w_a, dt), shape_b,
                               rigid(p_b, R_b, v_b, w_b, dt), margin=margin)
        earlier = contact_points(shape_a, rigid(p_a, R_a, v_a, w_a, -dt), shape_b,
                                 rigid(p_b, R_b, v_b, w_b, -dt), margin=margin)
        for c in now:
            if isinstance(shape_a, Cylinder) and c.feature % 4:
                continue                 # rim points sliding along the rim: not claimed
            f_late = [x for x in later if x.feature == c.feature]
            f_early = [x for x in earlier if x.feature == c.feature]
            rate = (f_late[0].gap - f_early[0].gap) / (2 * dt)
            va = v_a + np.cross(w_a, c.point - p_a)
            vb = v_b + np.cross(w_b, c.point - p_b)
            assert gap_rate(c.normal, va, vb) == pytest.approx(rate, abs=1e-6 * (
                1 + abs(rate)))


def test_unsupported_pairs_and_swaps():
    out = np.zeros((MAX_POINTS, 7))
    eye, zero = np.eye(3), np.zeros(3)
    assert pair_geometry(5, np.ones(3), zero, eye, 5, np.ones(3), zero, eye, 0.0, out) == -1
    assert pair_geometry(6, np.ones(6), zero, eye, 6, np.ones(6), zero, eye, 0.0, out) == -1
    small = np.full((2, 7), 7.0)                     # fewer rows than the box's corners
    k = pair_geometry(5, np.ones(3), zero, eye, 6, np.array([0, 0, 0, 0, 0, 1.0]), zero, eye,
                      0.0, small)
    assert k == 4 and np.all(small[:, 0] == -1.0)
    with pytest.raises(ModelError, match=r"Box-Box: no closed form for this pair; the pairs are"):
        contact_points(Box((1, 1, 1)), (zero, eye), Box((1, 1, 1)), (zero, eye))
    with pytest.raises(ModelError, match="a planar and a spatial shape cannot touch"):
        contact_points(Circle(1), (np.zeros(2), 0.0), Plane(zero, (0, 0, 1)), (zero, eye))
    with pytest.raises(ModelError, match="margin = -1.0 is invalid"):
        contact_points(Sphere(1), (zero, eye), Sphere(1), (zero, eye), margin=-1)
    with pytest.raises(ModelError, match="not a rotation matrix"):
        contact_points(Sphere(1), (zero, 2 * eye), Sphere(1), (zero, eye))
    with pytest.raises(ModelError, match="position must have 3 components"):
        contact_points(Sphere(1), (np.zeros(2), eye), Sphere(1), (zero, eye))
    with pytest.raises(ModelError, match="shape_b must be a contact shape"):
        contact_points(Sphere(1), (zero, eye), "floor", (zero, eye))
