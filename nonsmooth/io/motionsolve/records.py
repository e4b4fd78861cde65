"""The plain records a MotionSolve XML file is read into (SI, the model family chosen).

:class:`MotionSolveModel` holds the markers, bodies, joints, joint motions, joint frictions,
gravity, requests, the family (``"planar"`` with its plane of motion, or ``"spatial"``) and the
simulate command of one file, all in SI; :meth:`MotionSolveModel.build` turns it into a runnable
:class:`nonsmooth.Model` (:mod:`.builder` for the planar family, :mod:`.spatial_builder` for the
spatial one). Marker axes are the columns
x, y, z of a (3, 3) matrix in the global frame; marker 0 is the global frame. A body's inertia
is the tensor about its CM in global axes.

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker, Body_Rigid,
Constraint_Joint, Motion_Joint, Force_JointFriction, Post_Request, Simulate).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .builder import build_model
from .kinematics import Plane, vector_text
from .units import Units

if TYPE_CHECKING:
    from ...model import Model

__all__ = ["Marker", "RigidBody", "Joint", "JointMotion", "JointFriction", "Request",
           "MotionSolveModel"]


@dataclass
class Marker:
    """A Reference_Marker in SI: ``origin`` (3,) m, ``axes`` (3, 3) with columns x, y, z."""

    id: int
    body: int | None  # Body_Rigid id; None: the global frame (marker 0)
    origin: np.ndarray
    axes: np.ndarray


@dataclass
class RigidBody:
    """A Body_Rigid in SI (``name``: the label made an identifier, unique)."""

    id: int
    name: str
    ground: bool
    mass: float = 0.0
    inertia: np.ndarray | None = None  # (3, 3) about the CM, global axes, kg m^2
    cg: int | None = None
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass
class Joint:
    """A Constraint_Joint (``type``: REVOLUTE, TRANSLATIONAL; spatially also SPHERICAL,
    CYLINDRICAL, UNIVERSAL, HOOKE, FIXED)."""

    id: int
    name: str
    type: str
    i_marker: int
    j_marker: int


@dataclass
class JointMotion:
    """A Motion_Joint of type EXPRESSION in SI (:mod:`.motion`): ``dof`` ``"R"`` (rotation about
    the J marker's z-axis, rad) or ``"T"`` (translation along it, m); ``val_type`` ``"D"``
    (``position(t)`` the displacement) or ``"V"`` (``speed`` a constant velocity, rad/s or
    m/s); ``ic_disp`` the initial displacement of a velocity motion (None: not given)."""

    id: int
    name: str
    joint: int
    dof: str
    val_type: str
    text: str
    position: object = None  # callable t (s) -> displacement (rad or m)
    speed: float | None = None
    ic_disp: float | None = None


@dataclass
class JointFriction:
    """A Force_JointFriction with every attribute in SI (``values``: name -> value)."""

    id: int
    joint: int
    values: dict


@dataclass
class Request:
    """A Post_Request of type EXPRESSION: ``expressions`` lists ``(k, text, compiled, unit)``
    for each non-NULL ``expr<k>`` (``compiled``: :meth:`.expressions.Expression.compile`)."""

    id: int
    comment: str
    expressions: list


def count_text(names) -> list:
    """``["a", "b x2"]`` for ``["a", "b", "b"]`` (first-seen order)."""
    out = []
    for n in dict.fromkeys(names):
        c = names.count(n)
        out.append(n if c == 1 else f"{n} x{c}")
    return out


@dataclass
class MotionSolveModel:
    """A parsed MotionSolve model in SI (the model is made by :meth:`build`); ``plane`` is None
    for the spatial family."""

    name: str
    source: str
    units: Units
    markers: dict
    bodies: dict
    joints: dict
    frictions: dict  # by joint id
    gravity: np.ndarray
    requests: list
    plane: Plane | None
    t_end: float | None
    dt: float | None
    ignored: list
    family: str = "planar"
    motions: list = field(default_factory=list)

    # ---------------------------------------------------------------- geometry
    def planar_position(self, marker_id: int) -> tuple[float, float]:
        """Planar global position (m) of a marker at t = 0."""
        return self.plane.to_planar(self.markers[marker_id].origin)

    def local_point(self, marker_id: int) -> tuple[float, float]:
        """The marker origin in its body's planar frame (m; global for the ground)."""
        mk = self.markers[marker_id]
        x, y = self.planar_position(marker_id)
        body = self.bodies.get(mk.body)
        if body is None or body.ground:
            return x, y
        cx, cy = self.planar_position(body.cg)
        return x - cx, y - cy

    def inertia_about_normal(self, body_id: int) -> float:
        """Moment of inertia (kg m^2) of a body about the plane normal through its CM."""
        n = self.plane.normal
        return float(n @ self.bodies[body_id].inertia @ n)

    def description(self) -> str:
        n_bodies = sum(not b.ground for b in self.bodies.values())
        kinds = ", ".join(f"{j.type.lower()} '{j.name}'" for j in self.joints.values()) or "none"
        text = (f"MotionSolve model {self.source} (units {self.units.describe()}): {n_bodies} "
                f"moving bod{'y' if n_bodies == 1 else 'ies'}, joints: {kinds}, ")
        if self.plane is None:
            text += (f"{len(self.motions)} joint motion(s), {len(self.frictions)} joint "
                     "friction element(s), spatial (3-D)")
        else:
            text += (f"{len(self.frictions)} joint friction element(s), plane normal "
                     f"{vector_text(self.plane.normal)}")
        if self.ignored:
            text += f"; ignored (no effect here): {', '.join(count_text(self.ignored))}"
        return text

    # ---------------------------------------------------------------- building
    def build(self) -> Model:
        """The runnable :class:`nonsmooth.Model` (SI inside, outputs in the model's units):
        a planar one, or a :class:`nonsmooth.spatial.SpatialModel`'s for ``family ==
        "spatial"``."""
        if self.family == "spatial":
            from .spatial_builder import build_spatial_model

            return build_spatial_model(self)
        return build_model(self)
