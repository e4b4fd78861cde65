"""``nonsmooth.contact.volume.volume_into``, the runtime-free entry point of the volume of
interference: the same numbers as the shapes' ``*_volume`` and ``*_patch`` functions (exactly:
both are the same ``_*_into`` arithmetic) for every packed kind in each of its regimes and on
seeded random planes, callable from a function compiled without numba's runtime
(``_nrt=False``), its scratch of :data:`VOLUME_WORK` enough (filled with NaN on entry, nothing
written past it) and an unknown kind refused."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from nonsmooth.contact.shapes import (
    BOX,
    CAPSULE,
    CYLINDER,
    ELLIPSOID,
    PLANE,
    SPHERE,
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    Sphere,
)
from nonsmooth.contact.volume import (
    VOLUME_OUT,
    VOLUME_WORK,
    box_patch,
    box_volume,
    capsule_patch,
    capsule_volume,
    cylinder_patch,
    cylinder_volume,
    ellipsoid_patch,
    ellipsoid_volume,
    sphere_patch,
    sphere_volume,
    volume_into,
)

SHAPES = {
    "sphere": Sphere(0.7),
    "capsule": Capsule(0.35, 0.9),
    "ellipsoid": Ellipsoid(0.9, 0.5, 0.3),
    "cylinder": Cylinder(0.4, 1.3),
    "box": Box((0.5, 0.3, 0.2)),
}
FUNCTIONS = {
    SPHERE: (sphere_volume, sphere_patch),
    CAPSULE: (capsule_volume, capsule_patch),
    ELLIPSOID: (ellipsoid_volume, ellipsoid_patch),
    CYLINDER: (cylinder_volume, cylinder_patch),
    BOX: (box_volume, box_patch),
}
SENTINEL = 12345.0


def _unit(*v):
    v = np.array(v, dtype=float)
    return v / np.linalg.norm(v)


def expected(kind, nums, point, normal):
    """``out`` from the allocating functions: ``[V, c(3), Ixx, Iyy, Izz, Ixy, Ixz, Iyz, A,
    c_A(3)]``."""
    volume, patch = FUNCTIONS[kind]
    V, c, inertia = volume(*nums, point, normal)
    A, cA = patch(*nums, point, normal)
    upper = [inertia[0, 0], inertia[1, 1], inertia[2, 2], inertia[0, 1], inertia[0, 2],
             inertia[1, 2]]
    return np.concatenate([[V], c, upper, [A], cA])


def run(kind, nums, point, normal):
    """``volume_into`` with ``work`` exactly :data:`VOLUME_WORK` long, NaN on entry, followed by
    a sentinel that must stay untouched; ``out`` NaN on entry too."""
    buf = np.full(VOLUME_WORK + 8, np.nan)
    buf[VOLUME_WORK:] = SENTINEL
    out = np.full(VOLUME_OUT, np.nan)
    status = volume_into(kind, nums, np.asarray(point, float), np.asarray(normal, float), out,
                         buf[:VOLUME_WORK])
    assert status == 0
    assert np.all(buf[VOLUME_WORK:] == SENTINEL), "volume_into wrote past VOLUME_WORK"
    return out


def check(shape, point, normal):
    nums = shape.pack()
    got = run(shape.kind, nums, point, normal)
    want = expected(shape.kind, nums, np.asarray(point, float), np.asarray(normal, float))
    assert np.all(np.isfinite(got)), got
    np.testing.assert_array_equal(got, want)
    return got


def depth_point(shape, normal, depth):
    """A point of the plane of ``normal`` that cuts ``depth`` (m) into the centred shape, from
    its support ``h`` along ``-normal`` (negative: clear of it)."""
    n = np.asarray(normal, float)
    if isinstance(shape, Sphere):
        h = shape.radius
    elif isinstance(shape, Ellipsoid):
        h = np.linalg.norm(np.array([shape.a, shape.b, shape.c]) * n)
    elif isinstance(shape, Box):
        h = np.abs(np.array(shape.half_extents) * n).sum()
    elif isinstance(shape, Cylinder):
        h = shape.radius * np.hypot(n[0], n[1]) + 0.5 * shape.length * abs(n[2])
    else:  # Capsule
        h = shape.radius + 0.5 * shape.length * abs(n[2])
    return (depth - h) * n


# ---------------------------------------------------------------------------- regimes

def test_sphere_regimes():
    s = SHAPES["sphere"]
    n = _unit(0.3, -0.5, 0.8)
    partial = check(s, depth_point(s, n, 0.3), n)
    assert 0.0 < partial[0] < 4.0 / 3.0 * np.pi * 0.7 ** 3 and partial[10] > 0.0
    whole = check(s, depth_point(s, n, 2.0), n)             # the plane above the sphere
    assert whole[0] == pytest.approx(4.0 / 3.0 * np.pi * 0.7 ** 3, rel=1e-14)
    assert whole[10] == 0.0
    none = check(s, depth_point(s, n, -0.1), n)              # the plane below it
    assert none[0] == 0.0 and none[10] == 0.0
    assert np.all(none[4:10] == 0.0)


@pytest.mark.parametrize("case", ["face", "edge", "corner", "tilted", "deep", "none", "whole"])
def test_box_regimes(case):
    b = SHAPES["box"]
    normal = {"face": _unit(0, 0, 1), "edge": _unit(0, 1, 1), "corner": _unit(1, 1, 1),
              "tilted": _unit(0.2, -0.1, 1.0), "deep": _unit(-0.3, 0.4, 0.7),
              "none": _unit(1, 2, 3), "whole": _unit(-1, 0.5, 0.2)}[case]
    depth = {"face": 0.05, "edge": 0.02, "corner": 0.03, "tilted": 0.1, "deep": 0.5,
             "none": -0.01, "whole": 5.0}[case]
    out = check(b, depth_point(b, normal, depth), normal)
    if case == "none":
        assert out[0] == 0.0 and out[10] == 0.0
    elif case == "whole":
        assert out[0] == pytest.approx(8 * 0.5 * 0.3 * 0.2, rel=1e-14)
    else:
        assert out[0] > 0.0 and out[10] > 0.0
    if case == "face":
        assert out[0] == pytest.approx(4 * 0.5 * 0.3 * 0.05, rel=1e-13)
        assert out[10] == pytest.approx(4 * 0.5 * 0.3, rel=1e-13)


@pytest.mark.parametrize("case", ["face", "face_up", "side", "tilted", "steep", "shallow",
                                  "both_faces", "none", "whole"])
def test_cylinder_regimes(case):
    c = SHAPES["cylinder"]
    normal = {"face": _unit(0, 0, 1), "face_up": _unit(0, 0, -1), "side": _unit(0.6, -0.8, 0),
              "tilted": _unit(0.3, 0.2, 0.9), "steep": _unit(1.0, 0.1, 0.05),
              "shallow": _unit(0.01, 0.0, 1.0), "both_faces": _unit(0.9, 0.3, 0.4),
              "none": _unit(0.3, 0.2, 0.9), "whole": _unit(-0.5, 0.5, 0.3)}[case]
    depth = {"face": 0.2, "face_up": 1.0, "side": 0.3, "tilted": 0.25, "steep": 0.4,
             "shallow": 0.05, "both_faces": 0.7, "none": -0.05, "whole": 4.0}[case]
    out = check(c, depth_point(c, normal, depth), normal)
    if case == "none":
        assert out[0] == 0.0
    elif case == "face":
        assert out[0] == pytest.approx(np.pi * 0.4 ** 2 * 0.2, rel=1e-13)
    else:
        assert out[0] > 0.0


@pytest.mark.parametrize("case", ["end", "end_deep", "side", "tilted", "steep", "flat_face",
                                  "none", "whole"])
def test_capsule_regimes(case):
    c = SHAPES["capsule"]
    normal = {"end": _unit(0, 0, 1), "end_deep": _unit(0, 0, -1), "side": _unit(0.6, 0.8, 0),
              "tilted": _unit(0.3, -0.2, 0.9), "steep": _unit(1.0, 0.2, 0.1),
              "flat_face": _unit(0.1, 0.0, 1.0), "none": _unit(0.3, 0.2, 0.9),
              "whole": _unit(0.2, 0.1, -0.4)}[case]
    depth = {"end": 0.1, "end_deep": 0.6, "side": 0.2, "tilted": 0.3, "steep": 0.25,
             "flat_face": 0.36, "none": -0.02, "whole": 3.0}[case]
    out = check(c, depth_point(c, normal, depth), normal)
    if case == "none":
        assert out[0] == 0.0
    else:
        assert out[0] > 0.0


@pytest.mark.parametrize("depth", [-0.1, 0.05, 0.4, 0.9, 5.0])
def test_ellipsoid_regimes(depth):
    e = SHAPES["ellipsoid"]
    for normal in (_unit(0, 0, 1), _unit(1, 0, 0), _unit(0.3, -0.5, 0.8), _unit(-0.9, 0.2, -0.35)):
        out = check(e, depth_point(e, normal, depth), normal)
        assert (out[0] > 0.0) == (depth > 0.0)


@pytest.mark.parametrize("name", list(SHAPES))
def test_random_planes(name):
    """Seeded random normals and offsets from clear of the shape to past it, and a position
    that the caller subtracts (the numbers are the centred shape's)."""
    rng = np.random.default_rng(list(SHAPES).index(name) + 11)
    shape = SHAPES[name]
    for _ in range(150):
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        if rng.random() < 0.15:   # on an axis plane: the closed forms' branches
            n[rng.integers(3)] = 0.0
            n /= np.linalg.norm(n)
        depth = rng.uniform(-0.2, 2.5)
        point = depth_point(shape, n, depth) + np.cross(n, rng.normal(size=3))
        check(shape, point, n)


# ------------------------------------------------------------------- runtime, scratch, kind

@njit(_nrt=False)
def _kernel(kinds, nums, points, normals, outs, work):
    """A caller compiled without numba's runtime, as the engine's kernels are."""
    status = 0
    for i in range(kinds.shape[0]):
        status += volume_into(kinds[i], nums[i], points[i], normals[i], outs[i], work)
    return status


def test_runs_without_the_runtime():
    rng = np.random.default_rng(5)
    names = list(SHAPES)
    kinds = np.array([SHAPES[k].kind for k in names], dtype=np.int64)
    nums = np.zeros((len(names), 3))
    points = np.empty((len(names), 3))
    normals = np.empty((len(names), 3))
    for i, k in enumerate(names):
        packed = SHAPES[k].pack()
        nums[i, :packed.size] = packed
        normals[i] = _unit(*rng.normal(size=3))
        points[i] = depth_point(SHAPES[k], normals[i], 0.15)
    outs = np.full((len(names), VOLUME_OUT), np.nan)
    work = np.full(VOLUME_WORK, np.nan)
    assert _kernel(kinds, nums, points, normals, outs, work) == 0
    for i, k in enumerate(names):
        assert outs[i, 0] > 0.0
        np.testing.assert_array_equal(
            outs[i], expected(kinds[i], SHAPES[k].pack(), points[i], normals[i]))


@pytest.mark.parametrize("kind", [0, PLANE, 99])
def test_unknown_kind(kind):
    out = np.full(VOLUME_OUT, 7.0)
    work = np.zeros(VOLUME_WORK)
    assert volume_into(kind, np.ones(3), np.zeros(3), _unit(0, 0, 1), out, work) == -1
    assert np.all(out == 7.0)


def test_work_is_enough_for_every_kind():
    """The box's clipping needs the most scratch: every regime of each kind with a NaN-filled
    work of exactly VOLUME_WORK, nothing written past it, a finite result equal to the
    allocating functions' (:func:`run` and :func:`check`)."""
    for shape in SHAPES.values():
        for n in (_unit(0, 0, 1), _unit(1, 0, 0), _unit(0.4, 0.3, 0.8), _unit(1, 1, 1)):
            for depth in (0.02, 0.3, 10.0):
                check(shape, depth_point(shape, n, depth), n)
