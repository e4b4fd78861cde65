"""Contact shapes: primitives attached to a body, described in the shape's own frame.

A shape is given in the frame it is attached to (a body's frame, or a frame fixed in it): its
pose in the world is that frame's position ``p`` (m) and rotation matrix ``R`` (body -> world).
A solid shape (:class:`Sphere`, :class:`Capsule`, :class:`Ellipsoid`, :class:`Cylinder`,
:class:`Box`) may sit away from its body's centre of mass: ``position=(x, y, z)`` (m, body
axes) is its centre in the body's frame (a tippe top's sphere below its centre of mass, a
rattleback's ellipsoid).
Every shape is frozen, checked when made, and packs into a kind code (:data:`KINDS`) and a
vector of numbers (:meth:`pack`) for the compiled tables that the pair geometry
(:mod:`nonsmooth.contact.geometry`) reads.

Spatial shapes (3-D): :class:`Sphere`, :class:`Capsule`, :class:`Ellipsoid`, :class:`Cylinder`,
:class:`Box`, :class:`Plane`. Planar shapes (in the x-y plane of the planar family):
:class:`Circle`, :class:`Hole` (the circular hole of a pin-in-hole clearance),
:class:`Line`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError

__all__ = [
    "Shape", "Sphere", "Capsule", "Ellipsoid", "Cylinder", "Box", "Plane",
    "Circle", "Hole", "Line",
    "SPHERE", "CAPSULE", "ELLIPSOID", "CYLINDER", "BOX", "PLANE", "CIRCLE", "HOLE", "LINE",
    "KINDS", "MAX_NUMBERS",
]

#: Kind codes of the shapes (the compiled tables' shape column). The pair geometry orders a
#: pair by these codes (smaller first), so a pair function is written once per pair.
SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, PLANE = 1, 2, 3, 4, 5, 6
CIRCLE, HOLE, LINE = 11, 12, 13

#: The most numbers a shape packs (a plane: its point and its normal).
MAX_NUMBERS = 6


def _size(value, shape: str, what: str) -> float:
    """``value`` as a positive finite float (m), or a :class:`ModelError` naming the shape."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{shape}: {what} must be a number (m), got {value!r}") from None
    if not (math.isfinite(x) and x > 0.0):
        raise ModelError(f"{shape}: {what} = {x!r} is invalid; it must be a finite number > 0 "
                         "(m)")
    return x


def _vector(value, shape: str, what: str, dim: int) -> tuple[float, ...]:
    """``value`` as ``dim`` finite floats, or a :class:`ModelError` naming the shape."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{shape}: {what} must be {dim} numbers, got {value!r}") from None
    if arr.shape != (dim,):
        raise ModelError(f"{shape}: {what} must be {dim} numbers, got {value!r}")
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{shape}: {what} must be finite, got {value!r}")
    return tuple(float(x) for x in arr)


def _unit(value, shape: str, dim: int) -> tuple[float, ...]:
    """``value`` normalised to a unit vector of ``dim`` components (a nonzero normal)."""
    v = _vector(value, shape, "normal", dim)
    norm = math.sqrt(sum(x * x for x in v))
    if not norm > 1e-300:
        raise ModelError(f"{shape}: normal = {value!r} is invalid; it must be a nonzero vector "
                         "(it is normalised)")
    if abs(norm - 1.0) <= 4e-16:          # already unit (a repr read back): kept as given
        return v
    return tuple(x / norm for x in v)


class Shape:
    """Base of the contact shapes: ``kind`` (a code of :data:`KINDS`), ``planar``,
    ``position`` (m: the shape's centre in its body's frame) and :meth:`pack`."""

    kind: int = 0
    planar: bool = False
    position: tuple = (0.0, 0.0, 0.0)

    def _place(self, name: str) -> None:
        """Check ``position`` (3 finite numbers, m)."""
        object.__setattr__(self, "position", _vector(self.position, name, "position", 3))

    def _where(self) -> str:
        """``", position=(...)"`` for a repr, or nothing at the origin."""
        if not any(self.position):
            return ""
        return ", position=(" + ", ".join(f"{x!r}" for x in self.position) + ")"

    def numbers(self) -> tuple[float, ...]:  # pragma: no cover - every shape overrides it
        raise NotImplementedError

    def pack(self) -> np.ndarray:
        """The shape's numbers for the compiled tables (float64, at most :data:`MAX_NUMBERS`),
        in the order its class docstring gives."""
        return np.array(self.numbers(), dtype=np.float64)


@dataclass(frozen=True, repr=False)
class Sphere(Shape):
    """A sphere of ``radius`` (m) centred at the frame's origin. Packs ``(radius,)``."""

    radius: float
    position: tuple = field(default=(0.0, 0.0, 0.0), kw_only=True)
    kind = SPHERE

    def __post_init__(self):
        self._place("Sphere")
        object.__setattr__(self, "radius", _size(self.radius, "Sphere", "radius"))

    def numbers(self):
        return (self.radius,)

    def __repr__(self):
        return f"Sphere(radius={self.radius!r}{self._where()})"


@dataclass(frozen=True, repr=False)
class Capsule(Shape):
    """A capsule: the points within ``radius`` (m) of the segment of ``length`` (m) between
    its caps' centres, along the frame's z axis and centred at its origin. Packs
    ``(radius, length)``."""

    radius: float
    length: float
    position: tuple = field(default=(0.0, 0.0, 0.0), kw_only=True)
    kind = CAPSULE

    def __post_init__(self):
        self._place("Capsule")
        object.__setattr__(self, "radius", _size(self.radius, "Capsule", "radius"))
        object.__setattr__(self, "length", _size(self.length, "Capsule", "length"))

    def numbers(self):
        return (self.radius, self.length)

    def __repr__(self):
        return f"Capsule(radius={self.radius!r}, length={self.length!r}{self._where()})"


@dataclass(frozen=True, repr=False)
class Ellipsoid(Shape):
    """An ellipsoid of semi-axes ``a``, ``b``, ``c`` (m) along the frame's x, y, z axes,
    centred at its origin. Packs ``(a, b, c)``."""

    a: float
    b: float
    c: float
    position: tuple = field(default=(0.0, 0.0, 0.0), kw_only=True)
    kind = ELLIPSOID

    def __post_init__(self):
        self._place("Ellipsoid")
        for name in ("a", "b", "c"):
            object.__setattr__(self, name, _size(getattr(self, name), "Ellipsoid", name))

    def numbers(self):
        return (self.a, self.b, self.c)

    def __repr__(self):
        return f"Ellipsoid(a={self.a!r}, b={self.b!r}, c={self.c!r}{self._where()})"


@dataclass(frozen=True, repr=False)
class Cylinder(Shape):
    """A solid circular cylinder of ``radius`` (m) and ``length`` (m) along the frame's z axis,
    centred at its origin (end faces at ``z = +-length / 2``). Packs ``(radius, length)``."""

    radius: float
    length: float
    position: tuple = field(default=(0.0, 0.0, 0.0), kw_only=True)
    kind = CYLINDER

    def __post_init__(self):
        self._place("Cylinder")
        object.__setattr__(self, "radius", _size(self.radius, "Cylinder", "radius"))
        object.__setattr__(self, "length", _size(self.length, "Cylinder", "length"))

    def numbers(self):
        return (self.radius, self.length)

    def __repr__(self):
        return f"Cylinder(radius={self.radius!r}, length={self.length!r}{self._where()})"


@dataclass(frozen=True, repr=False)
class Box(Shape):
    """A box of ``half_extents`` ``(hx, hy, hz)`` (m) along the frame's axes, centred at its
    origin. Packs ``(hx, hy, hz)``."""

    half_extents: tuple
    position: tuple = field(default=(0.0, 0.0, 0.0), kw_only=True)
    kind = BOX

    def __post_init__(self):
        self._place("Box")
        h = _vector(self.half_extents, "Box", "half_extents", 3)
        h = tuple(_size(x, "Box", f"half_extents[{i}]") for i, x in enumerate(h))
        object.__setattr__(self, "half_extents", h)

    def numbers(self):
        return self.half_extents

    def __repr__(self):
        hx, hy, hz = self.half_extents
        return f"Box(half_extents=({hx!r}, {hy!r}, {hz!r}){self._where()})"


@dataclass(frozen=True, repr=False)
class Plane(Shape):
    """The plane through ``point`` (m) with unit ``normal`` (normalised here), both in the
    frame's coordinates; the half-space below it (opposite the normal) is solid. Packs
    ``(px, py, pz, nx, ny, nz)``."""

    point: tuple
    normal: tuple
    kind = PLANE

    def __post_init__(self):
        object.__setattr__(self, "point", _vector(self.point, "Plane", "point", 3))
        object.__setattr__(self, "normal", _unit(self.normal, "Plane", 3))

    def numbers(self):
        return (*self.point, *self.normal)

    def __repr__(self):
        p = ", ".join(f"{x!r}" for x in self.point)
        n = ", ".join(f"{x!r}" for x in self.normal)
        return f"Plane(point=({p}), normal=({n}))"


@dataclass(frozen=True, repr=False)
class Circle(Shape):
    """Planar: a disc of ``radius`` (m) centred at the frame's origin. Packs ``(radius,)``."""

    radius: float
    kind = CIRCLE
    planar = True

    def __post_init__(self):
        object.__setattr__(self, "radius", _size(self.radius, "Circle", "radius"))

    def numbers(self):
        return (self.radius,)

    def __repr__(self):
        return f"Circle(radius={self.radius!r})"


@dataclass(frozen=True, repr=False)
class Hole(Shape):
    """Planar: a circular hole of ``radius`` (m) centred at the frame's origin (the material
    is outside the circle): with a :class:`Circle` inside it, the pin and hole of a revolute
    joint with clearance. Packs ``(radius,)``."""

    radius: float
    kind = HOLE
    planar = True

    def __post_init__(self):
        object.__setattr__(self, "radius", _size(self.radius, "Hole", "radius"))

    def numbers(self):
        return (self.radius,)

    def __repr__(self):
        return f"Hole(radius={self.radius!r})"


@dataclass(frozen=True, repr=False)
class Line(Shape):
    """Planar: the line through ``point`` (m) with unit ``normal`` (normalised here), both in
    the frame's coordinates; the half-plane below it (opposite the normal) is solid. Packs
    ``(px, py, nx, ny)``."""

    point: tuple
    normal: tuple
    kind = LINE
    planar = True

    def __post_init__(self):
        object.__setattr__(self, "point", _vector(self.point, "Line", "point", 2))
        object.__setattr__(self, "normal", _unit(self.normal, "Line", 2))

    def numbers(self):
        return (*self.point, *self.normal)

    def __repr__(self):
        p = ", ".join(f"{x!r}" for x in self.point)
        n = ", ".join(f"{x!r}" for x in self.normal)
        return f"Line(point=({p}), normal=({n}))"


#: The shape classes by kind code.
KINDS: dict[int, type[Shape]] = {cls.kind: cls for cls in (
    Sphere, Capsule, Ellipsoid, Cylinder, Box, Plane, Circle, Hole, Line)}
