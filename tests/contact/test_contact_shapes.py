"""The contact shapes: checked sizes and normals, frozen, their kind codes and packed numbers."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from nonsmooth.contact import Box, Capsule, Circle, Cylinder, Ellipsoid, Hole, Line, Plane, Sphere
from nonsmooth.contact.shapes import KINDS, MAX_NUMBERS
from nonsmooth.errors import ModelError


def test_packed_numbers_kinds_and_repr():
    shapes = {
        Sphere(0.01): [0.01], Capsule(0.02, 0.3): [0.02, 0.3], Ellipsoid(1, 2, 3): [1, 2, 3],
        Cylinder(0.1, 0.2): [0.1, 0.2], Box((0.1, 0.2, 0.3)): [0.1, 0.2, 0.3],
        Plane((0, 0, 1), (0, 0, 2)): [0, 0, 1, 0, 0, 1], Circle(0.5): [0.5], Hole(0.6): [0.6],
        Line((1, 2), (3, 4)): [1, 2, 0.6, 0.8],
    }
    for shape, numbers in shapes.items():
        packed = shape.pack()
        assert packed.dtype == np.float64 and len(packed) <= MAX_NUMBERS
        np.testing.assert_allclose(packed, numbers, rtol=1e-15)
        assert KINDS[shape.kind] is type(shape)
        assert eval(repr(shape)) == shape
        assert shape.planar == isinstance(shape, (Circle, Hole, Line))
    assert len({type(s).kind for s in shapes}) == len(shapes)
    tilted = Plane((1, 1, 1), (1, -2, 2))
    assert math.isclose(math.hypot(*tilted.normal), 1.0)
    assert eval(repr(tilted)) == tilted
    assert eval(repr(Line((0, 0), (1, 1)))) == Line((0, 0), (1, 1))


def test_shapes_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Sphere(1.0).radius = 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        Plane((0, 0, 0), (0, 0, 1)).normal = (1, 0, 0)


@pytest.mark.parametrize("make, match", [
    (lambda: Sphere(-0.01), r"Sphere: radius = -0.01 is invalid; it must be a finite number > 0"),
    (lambda: Sphere(0.0), r"Sphere: radius = 0.0 is invalid"),
    (lambda: Sphere(float("inf")), r"Sphere: radius = inf is invalid"),
    (lambda: Sphere("big"), r"Sphere: radius must be a number \(m\), got 'big'"),
    (lambda: Capsule(0.1, -1), r"Capsule: length = -1.0 is invalid"),
    (lambda: Cylinder(float("nan"), 1), r"Cylinder: radius = nan is invalid"),
    (lambda: Ellipsoid(1, 0, 1), r"Ellipsoid: b = 0.0 is invalid"),
    (lambda: Box((1, 2)), r"Box: half_extents must be 3 numbers, got \(1, 2\)"),
    (lambda: Box((1, -2, 3)), r"Box: half_extents\[1\] = -2.0 is invalid"),
    (lambda: Plane((0, 0, 0), (0, 0, 0)), r"Plane: normal = \(0, 0, 0\) is invalid; it must be "
                                          r"a nonzero vector"),
    (lambda: Plane((0, 0), (0, 0, 1)), r"Plane: point must be 3 numbers"),
    (lambda: Plane((0, 0, float("nan")), (0, 0, 1)), r"Plane: point must be finite"),
    (lambda: Line((0, 0), (0, 0)), r"Line: normal = \(0, 0\) is invalid"),
    (lambda: Line((0, 0, 0), (0, 1)), r"Line: point must be 2 numbers"),
    (lambda: Circle(-1), r"Circle: radius = -1.0 is invalid"),
    (lambda: Hole(0), r"Hole: radius = 0.0 is invalid"),
])
def test_shape_errors(make, match):
    with pytest.raises(ModelError, match=match):
        make()
