"""The spatial family's elements: bodies, joints, drivers and forces (``docs/design/spatial.md``).

Points and axes of joints and forces are given in **world coordinates at the initial
configuration** (the bodies' ``position`` and ``orientation``); compiling stores them in each
body's axes, so the joints hold by construction at the initial state. Units SI: m, kg, kg m^2,
s, rad, N, N m.

Every element checks its inputs when it is made and raises :class:`~nonsmooth.errors.ModelError`
with what is wrong, where, the allowed range and what to try.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..diagnose import user_frame
from ..driver_spline import MAX_SPLINE_DEGREE, DriverSpline, is_piecewise_polynomial
from ..errors import ModelError, NonsmoothError, UserFunctionError
from ..validate import check_name, check_number
from . import rotation as rot
from .primitives import (
    AnglePrimitive,
    CrossDot2Primitive,
    Dot1Primitive,
    Dot2Primitive,
    Kinematics,
    SphPrimitive,
    _cross,
)

__all__ = ["Ground", "ground", "Body", "SpatialJoint", "Spherical", "Revolute", "Cylindrical",
           "Translational", "Universal", "Fixed", "PointOnLine", "Driver", "DriverSpline",
           "MAX_SPLINE_DEGREE", "ForceElement",
           "Gravity", "Spring", "RotationalSpring", "Force", "Torque"]

#: The largest mass (kg) or moment of inertia (kg m^2) of a body (as the planar family's).
MAX_INERTIA = 1e100
#: How far a given quaternion's norm may be from 1 (it is then normalized).
QUATERNION_TOL = 1e-6
#: The largest length (m) of a spring's rest length or a driver's initial displacement, and
#: the largest initial angle (rad) of a driver: a thousand kilometres (radians).
MAX_LENGTH = 1e6
#: The largest speed (m/s, rad/s) of a driver: beyond it, a unit or typing error; at 1e300 the
#: first steps overflow.
MAX_SPEED = 1e6
#: The largest component of a body's initial velocity (m/s) or angular velocity (rad/s): wider
#: than a driver's, as a point far out on a fast link moves faster than any joint turns.
MAX_BODY_SPEED = 1e8
#: The largest component of a constant force (N) or torque (N m), as a spring's stiffness.
MAX_LOAD = 1e15
#: The largest free angle of a rotational spring (rad): a thousand turns
MAX_WINDING = 2000.0 * math.pi


# --------------------------------------------------------------------------- input checks
def _vector3(value, what: str, maximum: float | None = None, unit: str = "") -> np.ndarray:
    """``value`` as a finite float 3-vector, each component within ``+-maximum`` (``unit``)
    if given; ``what`` names it in the message."""
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be three numbers (x, y, z), got {value!r}") from None
    if a.shape != (3,):
        raise ModelError(f"{what} must be three numbers (x, y, z), got {value!r}")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what} must be finite, got {a.tolist()}")
    if maximum is not None and float(np.max(np.abs(a))) > maximum:
        raise ModelError(f"{what} = {a.tolist()} is out of range; each component must be "
                         f"within +-{maximum:g} {unit} (check the units)")
    return a


def _direction(value, what: str) -> np.ndarray:
    """``value`` as a unit 3-vector; a zero (or tiny) vector is refused."""
    a = _vector3(value, what)
    norm = float(np.sqrt(a @ a))
    if not norm > 1e-12:
        raise ModelError(f"{what} = {a.tolist()} has no direction (length {norm:.3g}); give a "
                         "nonzero 3-vector, e.g. (0, 0, 1) for the world z axis")
    return a / norm


def _inertia(value, name: str) -> np.ndarray:
    """The body-axes inertia about the centre of mass, (3, 3), from a number (isotropic), three
    principal moments or a symmetric 3 x 3 matrix; checked positive definite and against the
    triangle inequality ``J1 + J2 >= J3`` of its principal moments."""
    where = f"inertia of body '{name}'"
    try:
        J = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: {value!r} is not a number, three principal moments or a "
                         "3 x 3 matrix (kg m^2)") from None
    if J.ndim == 0:
        J = np.full(3, float(J))
    if J.shape == (3,):
        J = np.diag(J)
    if J.shape != (3, 3):
        raise ModelError(f"{where}: shape {J.shape} is invalid; give a number, three principal "
                         "moments (J1, J2, J3) or a symmetric 3 x 3 matrix (kg m^2, body axes "
                         "about the centre of mass)")
    if not np.all(np.isfinite(J)):
        raise ModelError(f"{where}: {J.tolist()} is not finite")
    scale = float(np.max(np.abs(J)))
    if float(np.max(np.abs(J - J.T))) > 1e-12 * max(scale, 1e-300):
        raise ModelError(f"{where}: the matrix {J.tolist()} is not symmetric; an inertia "
                         "tensor is symmetric (J_xy = J_yx ...)")
    eig = np.linalg.eigvalsh(J)
    if not eig[0] > 0.0:
        raise ModelError(f"{where}: principal moments {eig.tolist()} must all be > 0 (the "
                         "tensor must be symmetric positive definite); give positive moments "
                         "(kg m^2), e.g. m (b^2 + c^2) / 12 ... for a box")
    if eig[-1] > MAX_INERTIA:
        raise ModelError(f"{where}: principal moment {eig[-1]:g} is out of range; it must be "
                         f"at most {MAX_INERTIA:g} kg m^2 (scale the model's units)")
    if eig[0] + eig[1] < eig[2] * (1.0 - 1e-9):
        raise ModelError(f"{where}: principal moments {eig.tolist()} violate the triangle "
                         f"inequality J1 + J2 >= J3 ({eig[0]:g} + {eig[1]:g} < {eig[2]:g}): no "
                         "mass distribution has them; check the moments (a thin plate has "
                         "J1 + J2 = J3 at most)")
    return J


def _orientation(value, name: str) -> np.ndarray:
    """A unit quaternion ``(w, x, y, z)`` from a quaternion (norm within
    :data:`QUATERNION_TOL` of 1, then normalized) or a rotation matrix (orthonormal, det +1)."""
    where = f"orientation of body '{name}'"
    try:
        a = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: {value!r} is neither a quaternion (w, x, y, z) nor a 3 x 3 "
                         "rotation matrix") from None
    if a.shape == (3, 3):
        try:
            return rot.from_rotation_matrix(a)
        except ValueError as exc:
            raise ModelError(f"{where}: {exc}") from None
    if a.shape != (4,):
        raise ModelError(f"{where}: shape {a.shape} is invalid; give a unit quaternion "
                         "(w, x, y, z) or a 3 x 3 rotation matrix (body axes to world axes)")
    norm = float(np.sqrt(a @ a)) if np.all(np.isfinite(a)) else float("nan")
    if not abs(norm - 1.0) <= QUATERNION_TOL:
        raise ModelError(f"{where}: {a.tolist()} is not a unit quaternion (|p| = {norm:.9g}; "
                         f"allowed 1 +- {QUATERNION_TOL:g}); give (w, x, y, z) with "
                         "w^2 + x^2 + y^2 + z^2 = 1, e.g. nonsmooth.spatial.rotation."
                         "from_axis_angle(axis, angle), or a rotation matrix")
    return a / norm


def _function3(value, what: str, element: str, unit: str
               ) -> Callable[[float, np.ndarray, np.ndarray], np.ndarray]:
    """A constant 3-vector, or a user function ``f(t)`` or ``f(t, q, v)`` returning one, as a
    function of ``(t, q, v)`` (``q`` (n_q,), ``v`` (6 N,): the model's coordinates; the user
    function gets copies, so that writing into them cannot change the run's state).

    ``what`` names the value in messages (``"force 'push': force"``), ``element`` the element
    (``"force 'push'"``), ``unit`` its unit. The checked function raises
    :class:`~nonsmooth.errors.UserFunctionError` naming the element, the function, its file and
    the time when the user function raises or returns anything but three finite numbers; its
    attribute ``fast`` calls the user function unchecked (``SpatialSystem.user_values``)."""
    if callable(value):
        state = _takes_state(value, what)

        def fn(t, q, v, f=value):
            try:
                raw = f(t, q.copy(), v.copy()) if state else f(t)
            except NonsmoothError:
                raise
            except Exception as exc:
                raise user_function_raised(element, f, exc, t) from exc
            try:
                out = np.asarray(raw, dtype=float)
            except (TypeError, ValueError):
                out = None
            if out is None or out.shape != (3,) or not np.all(np.isfinite(out)):
                raise UserFunctionError(
                    f"{element}: the function {describe_function(f)} returned {raw!r} at "
                    f"t = {t:.10g} s; it must return three finite numbers ({unit})")
            return out
        fn.fast = ((lambda t, q, v, f=value: f(t, q, v)) if state
                   else (lambda t, q, v, f=value: f(t)))  # unchecked; the caller passes copies
        return fn
    const = _vector3(value, what, MAX_LOAD, unit)
    return lambda t, q, v: const


def describe_function(f: Callable) -> str:
    """A user function in messages: its name and where it is defined, ``push (model.py:12)``
    (the name alone when it has no Python code, e.g. a builtin)."""
    name = getattr(f, "__name__", None) or repr(f)
    code = getattr(f, "__code__", None)
    if code is None:
        return name
    from pathlib import Path

    return f"{name} ({Path(code.co_filename).name}:{code.co_firstlineno})"


def user_function_raised(element: str, f: Callable, exc: Exception,
                         t: float) -> UserFunctionError:
    """The :class:`~nonsmooth.errors.UserFunctionError` of the user function ``f`` of
    ``element`` (``"force 'push'"``) that raised ``exc`` at time ``t`` (s): the element, the
    function and its file, the line that raised, the exception."""
    defined, raised = describe_function(f), user_frame(exc)
    where = ("" if not raised or raised.rsplit(" ", 1)[-1] == defined.rsplit(" ", 1)[-1]
             else f"; raised in {raised}")
    hint = ""
    if isinstance(exc, IndexError):
        hint = ("; q holds 7 numbers per body (x, y, z, qw, qx, qy, qz) and v 6 (vx, vy, vz, "
                "wx, wy, wz), body after body in the order they were added")
    return UserFunctionError(f"{element}: the function {defined} raised "
                             f"{type(exc).__name__}: {exc} at t = {t:.10g} s{where}{hint}")


def _takes_state(f: Callable, what: str) -> bool:
    """Whether the user function ``f`` is ``f(t, q, v)`` (True) or ``f(t)`` (False), from its
    signature; a ``ModelError`` for any other."""
    import inspect

    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):  # no signature (a builtin): called as f(t, q, v)
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or (len(required) <= 3
                                                           and len(positional) >= 3):
        return True
    if len(required) <= 1 <= len(positional):
        return False
    raise ModelError(f"{what}: the function takes {len(required)} arguments; give f(t) or "
                     "f(t, q, v) (t in s, q the coordinates (7 per body), v the velocities "
                     "(6 per body))")


def _frame(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``(f, g)`` with ``(f, g, h)`` right-handed orthonormal (``h`` unit):
    ``f`` from the world axis least aligned with ``h``."""
    e = np.zeros(3)
    e[int(np.argmin(np.abs(h)))] = 1.0
    f = e - (e @ h) * h
    f /= np.sqrt(f @ f)
    return f, _cross(h, f)


# --------------------------------------------------------------------------- bodies
@dataclass(eq=False)
class Ground:
    """The fixed world frame (no coordinates): body ``-1`` of the primitives."""

    name: str = "ground"

    def local_point(self, P: np.ndarray) -> np.ndarray:
        return np.asarray(P, float)

    def local_vector(self, h: np.ndarray) -> np.ndarray:
        return np.asarray(h, float)


ground = Ground()


@dataclass(eq=False)
class Body:
    """A rigid body in space.

    Parameters
    ----------
    name : str
        Prefix of its coordinates and outputs (``<name>.x`` ...).
    mass : float
        Mass (kg), > 0.
    inertia : float, (3,) or (3, 3)
        Inertia about the centre of mass in body axes (kg m^2): a number (isotropic), the
        principal moments ``(J1, J2, J3)`` (body axes = principal axes) or a symmetric positive
        definite matrix; the principal moments must satisfy ``J1 + J2 >= J3``.
    position : (3,)
        Initial centre of mass (m, world).
    orientation : (4,) or (3, 3)
        Initial attitude: a unit quaternion ``(w, x, y, z)`` or a rotation matrix, body axes to
        world axes (default the identity).
    velocity : (3,)
        Initial centre-of-mass velocity (m/s, world).
    angular_velocity : (3,)
        Initial angular velocity (rad/s) in **world** axes; stored in body axes
        (:attr:`omega_body`). Initial velocities are projected onto the joints at the start of
        a run (least-norm correction, as the planar family's).
    """

    name: str
    mass: float
    inertia: object
    position: tuple = (0.0, 0.0, 0.0)
    orientation: object = (1.0, 0.0, 0.0, 0.0)
    velocity: tuple = (0.0, 0.0, 0.0)
    angular_velocity: tuple = (0.0, 0.0, 0.0)
    J: np.ndarray = field(init=False, repr=False)
    p0: np.ndarray = field(init=False, repr=False)
    R0: np.ndarray = field(init=False, repr=False)
    omega_body: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        check_name(self.name, "body")
        self.mass = check_number(self.mass, f"mass of body '{self.name}': ", minimum=0.0,
                                 exclusive=True, maximum=MAX_INERTIA,
                                 why=" kg (scale the model's units)")
        self.J = _inertia(self.inertia, self.name)
        self.position = _vector3(self.position, f"position of body '{self.name}'")
        self.p0 = _orientation(self.orientation, self.name)
        self.R0 = rot.rotation_matrix(self.p0)
        self.velocity = _vector3(self.velocity, f"velocity of body '{self.name}'",
                                 MAX_BODY_SPEED, "m/s")
        self.angular_velocity = _vector3(self.angular_velocity,
                                         f"angular_velocity of body '{self.name}'",
                                         MAX_BODY_SPEED, "rad/s")
        self.omega_body = self.R0.T @ self.angular_velocity

    def local_point(self, P: np.ndarray) -> np.ndarray:
        """A world point at the initial configuration in body axes from the centre of mass."""
        return self.R0.T @ (np.asarray(P, float) - self.position)

    def local_vector(self, h: np.ndarray) -> np.ndarray:
        """A world direction at the initial configuration in body axes."""
        return self.R0.T @ np.asarray(h, float)


def _check_body(body, what: str):
    if not isinstance(body, (Body, Ground)):
        raise ModelError(f"{what} must be a nonsmooth.spatial.Body or nonsmooth.spatial.ground, "
                         f"got {body!r}" + (" (a planar body: use nonsmooth.spatial.Body)"
                                            if type(body).__module__.startswith("nonsmooth.")
                                            else ""))
    return body


# --------------------------------------------------------------------------- joints
class JointRows(NamedTuple):
    """A joint compiled against the model's body indices: its rows' names and primitives,
    the coordinates a driver can take (``"angle"``, ``"displacement"``: primitives) and its
    point in each body's axes (for the reactions)."""

    names: list
    primitives: list
    coordinates: dict
    a: int
    b: int
    s_a: np.ndarray
    s_b: np.ndarray


class SpatialJoint:
    """Base class of the joints: two bodies, a point (world, at the initial configuration)
    and, for most, an axis. Subclasses implement :meth:`compile`."""

    kind = "joint"
    coordinates: tuple = ()

    @property
    def label(self) -> str:
        """The joint's kind in messages (``"revolute"``, ``"point-on-line"``)."""
        return "point-on-line" if self.kind == "PointOnLine" else self.kind.lower()

    def __init__(self, name, body_a, body_b, point=(0.0, 0.0, 0.0), *, mu=None, mu_s=None,
                 law: str = "coulomb", friction: dict | None = None, inputs: str = "1111",
                 **arms):
        self.name = check_name(name, self.label)
        where = f"{self.label} '{self.name}'"
        self.body_a = _check_body(body_a, f"{where}: body_a")
        self.body_b = _check_body(body_b, f"{where}: body_b")
        if body_a is body_b:
            raise ModelError(f"{where}: body_a and body_b are the same body "
                             f"('{body_a.name}'); a joint connects two different bodies (or a "
                             "body and the ground)")
        if isinstance(body_a, Ground) and isinstance(body_b, Ground):
            raise ModelError(f"{where}: both bodies are the ground")
        self.point = _vector3(point, f"{where}: point")
        self.friction = None  # a JointFrictionSpec (nonsmooth.spatial.joint_friction)
        if mu is not None:
            from .joint_friction import JointFrictionSpec

            self.friction = JointFrictionSpec(self, mu, mu_s, law, friction, inputs, arms)
        elif arms or mu_s is not None or friction is not None:
            given = sorted(arms) + [k for k, v in (("mu_s", mu_s), ("friction", friction))
                                    if v is not None]
            raise ModelError(f"{where}: friction parameters {given} given without mu; give "
                             "mu (the dynamic coefficient) to make the joint frictional")

    def bodies(self) -> list:
        return [self.body_a, self.body_b]

    def _local(self, index_of):
        a, b = index_of(self.body_a), index_of(self.body_b)
        return (a, b, self.body_a.local_point(self.point), self.body_b.local_point(self.point))

    def _axis_frames(self, axis):
        """The joint frame ``(f, g, h)`` (world) of ``axis`` in each body's axes:
        ``(f_a, g_a, h_a), (f_b, g_b, h_b)``."""
        h = axis
        f, g = _frame(h)
        A, B = self.body_a, self.body_b
        return ((A.local_vector(f), A.local_vector(g), A.local_vector(h)),
                (B.local_vector(f), B.local_vector(g), B.local_vector(h)))

    def compile(self, index_of) -> JointRows:  # pragma: no cover - abstract
        raise NotImplementedError

    def world_frame(self) -> np.ndarray:
        """The joint frame at the initial configuration, world axes: columns ``(f, g, h)``
        (3, 3), right-handed orthonormal; ``h`` the joint axis where the joint has one, the
        world axes for a spherical or fixed joint."""
        return np.eye(3)

    def frame_in_a(self) -> np.ndarray:
        """The joint frame's columns ``(f, g, h)`` in ``body_a``'s axes (3, 3): the frame is
        fixed in ``body_a`` (the world for the ground), where the reactions' joint-frame
        components are taken (``<joint>.Fx_joint`` ...)."""
        frame = self.world_frame()
        return np.column_stack([self.body_a.local_vector(frame[:, k]) for k in range(3)])


class _AxisJoint(SpatialJoint):
    def __init__(self, name, body_a, body_b, point=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0),
                 **friction):
        super().__init__(name, body_a, body_b, point, **friction)
        self.axis = _direction(axis, f"{self.label} '{self.name}': axis")

    def world_frame(self) -> np.ndarray:
        """``(f, g, h)`` with ``h`` the joint axis (``_frame``)."""
        f, g = _frame(self.axis)
        return np.column_stack((f, g, self.axis))


class Spherical(SpatialJoint):
    """A ball joint: the point of ``body_b`` coincides with that of ``body_a`` (3 rows
    ``.x .y .z``; multipliers: the force of ``a`` on ``b``, N, world axes)."""

    kind = "Spherical"

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b = self._local(index_of)
        return JointRows([f"{self.name}.{c}" for c in "xyz"], [SphPrimitive(a, s_a, b, s_b)],
                         {}, a, b, s_a, s_b)


class Revolute(_AxisJoint):
    """A hinge about ``axis`` through ``point`` (5 rows: ``.x .y .z`` the spherical part,
    ``.perp1 .perp2`` the axis of ``a`` perpendicular to two vectors of ``b`` normal to it).
    Its coordinate (a :class:`Driver`'s, ``<joint>.angle``) is the rotation of ``b`` relative
    to ``a`` about ``axis`` (rad, right-hand rule), 0 at the initial configuration."""

    kind = "Revolute"
    coordinates = ("angle",)

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b = self._local(index_of)
        (f_a, g_a, h_a), (f_b, g_b, _) = self._axis_frames(self.axis)
        n = self.name
        if self.friction is not None:  # the point rows along the joint frame (the loads)
            names = [f"{n}.f", f"{n}.g", f"{n}.h"]
            point = [Dot2Primitive(a, e, s_a, b, s_b) for e in (f_a, g_a, h_a)]
        else:
            names, point = [f"{n}.x", f"{n}.y", f"{n}.z"], [SphPrimitive(a, s_a, b, s_b)]
        return JointRows(
            [*names, f"{n}.perp1", f"{n}.perp2"],
            [*point, Dot1Primitive(a, h_a, b, f_b), Dot1Primitive(a, h_a, b, g_b)],
            {"angle": AnglePrimitive(a, f_a, g_a, b, f_b)}, a, b, s_a, s_b)


class PointOnLine(_AxisJoint):
    """The point of ``body_b`` stays on the line of ``body_a`` through ``point`` along
    ``axis`` (2 rows ``.line1 .line2``: Adams' inline primitive). Its coordinate is the
    displacement along ``axis`` (m)."""

    kind = "PointOnLine"
    coordinates = ("displacement",)

    def _line(self, index_of):
        a, b, s_a, s_b = self._local(index_of)
        (f_a, g_a, h_a), _ = self._axis_frames(self.axis)
        return (a, b, s_a, s_b, f_a, g_a, h_a,
                [Dot2Primitive(a, f_a, s_a, b, s_b), Dot2Primitive(a, g_a, s_a, b, s_b)])

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b, _, _, h_a, line = self._line(index_of)
        return JointRows([f"{self.name}.line1", f"{self.name}.line2"], line,
                         {"displacement": Dot2Primitive(a, h_a, s_a, b, s_b)}, a, b, s_a, s_b)


class Cylindrical(PointOnLine):
    """Rotation about and sliding along ``axis`` (4 rows: ``.perp1 .perp2`` the axes parallel,
    ``.line1 .line2`` the point of ``b`` on the line of ``a``). Coordinates: ``angle`` (rad)
    and ``displacement`` (m) along ``axis``, 0 at the initial configuration."""

    kind = "Cylindrical"
    coordinates = ("angle", "displacement")

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b, f_a, g_a, h_a, line = self._line(index_of)
        _, (f_b, g_b, _) = self._axis_frames(self.axis)
        n = self.name
        return JointRows(
            [f"{n}.perp1", f"{n}.perp2", f"{n}.line1", f"{n}.line2"],
            [Dot1Primitive(a, h_a, b, f_b), Dot1Primitive(a, h_a, b, g_b), *line],
            {"angle": AnglePrimitive(a, f_a, g_a, b, f_b),
             "displacement": Dot2Primitive(a, h_a, s_a, b, s_b)}, a, b, s_a, s_b)


class Translational(PointOnLine):
    """Sliding along ``axis`` (5 rows: the cylindrical joint's four and ``.lock``, the rotation
    about the axis locked). Coordinate: ``displacement`` (m) of ``b``'s point along ``axis``
    from ``a``'s, 0 at the initial configuration."""

    kind = "Translational"

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b, f_a, g_a, h_a, line = self._line(index_of)
        _, (f_b, g_b, _) = self._axis_frames(self.axis)
        n = self.name
        return JointRows(
            [f"{n}.perp1", f"{n}.perp2", f"{n}.line1", f"{n}.line2", f"{n}.lock"],
            [Dot1Primitive(a, h_a, b, f_b), Dot1Primitive(a, h_a, b, g_b), *line,
             Dot1Primitive(a, f_a, b, g_b)],
            {"displacement": Dot2Primitive(a, h_a, s_a, b, s_b)}, a, b, s_a, s_b)


class Universal(SpatialJoint):
    """A Hooke joint at ``point``: ``axis_a`` fixed in ``body_a`` stays perpendicular to
    ``axis_b`` fixed in ``body_b`` (perpendicular at the initial configuration; 4 rows
    ``.x .y .z .cross``)."""

    kind = "Universal"

    def __init__(self, name, body_a, body_b, point=(0.0, 0.0, 0.0), axis_a=(1.0, 0.0, 0.0),
                 axis_b=(0.0, 1.0, 0.0), **friction):
        super().__init__(name, body_a, body_b, point, **friction)
        where = f"universal '{self.name}'"
        self.axis_a = _direction(axis_a, f"{where}: axis_a")
        self.axis_b = _direction(axis_b, f"{where}: axis_b")
        cos = float(self.axis_a @ self.axis_b)
        if abs(cos) > 1e-9:
            raise ModelError(f"{where}: axis_a and axis_b must be perpendicular (cos = "
                             f"{cos:.3g}, allowed |cos| <= 1e-9); give the two cross axes at "
                             "the initial configuration")

    def world_frame(self) -> np.ndarray:
        """``(f, g, h) = (axis_b, axis_a x axis_b, axis_a)``: ``h`` the cross axis of
        ``body_a``."""
        return np.column_stack((self.axis_b, _cross(self.axis_a, self.axis_b), self.axis_a))

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b = self._local(index_of)
        n = self.name
        ha, hb = self.body_a.local_vector(self.axis_a), self.body_b.local_vector(self.axis_b)
        cross = Dot1Primitive(a, ha, b, hb)
        if self.friction is not None:  # the point rows along axis_a, axis_b, their normal
            return JointRows(
                [f"{n}.a", f"{n}.b", f"{n}.n", f"{n}.cross"],
                [Dot2Primitive(a, ha, s_a, b, s_b), Dot2Primitive(b, hb, s_b, a, s_a),
                 CrossDot2Primitive(a, ha, s_a, b, hb, s_b), cross], {}, a, b, s_a, s_b)
        return JointRows([f"{n}.x", f"{n}.y", f"{n}.z", f"{n}.cross"],
                         [SphPrimitive(a, s_a, b, s_b), cross], {}, a, b, s_a, s_b)


class Fixed(SpatialJoint):
    """A weld at ``point``: no relative motion (6 rows ``.x .y .z .perp1 .perp2 .lock``)."""

    kind = "Fixed"

    def compile(self, index_of) -> JointRows:
        a, b, s_a, s_b = self._local(index_of)
        (f_a, _, h_a), (f_b, g_b, _) = self._axis_frames(np.array([0.0, 0.0, 1.0]))
        n = self.name
        return JointRows(
            [f"{n}.x", f"{n}.y", f"{n}.z", f"{n}.perp1", f"{n}.perp2", f"{n}.lock"],
            [SphPrimitive(a, s_a, b, s_b), Dot1Primitive(a, h_a, b, f_b),
             Dot1Primitive(a, h_a, b, g_b), Dot1Primitive(a, f_a, b, g_b)], {}, a, b, s_a, s_b)


# --------------------------------------------------------------------------- drivers
def _derivative(f: Callable, t: float, h: float) -> float:
    return (f(t + h) - f(t - h)) / (2.0 * h)


class Driver:
    """A driving constraint on a joint coordinate, ``s(q) - f(t) = 0`` (one ``"driver"`` row
    named ``name``); its multiplier is the driving torque (N m, about the axis, on ``body_b``)
    or force (N, along the axis, on ``body_b``): the output ``<name>.torque`` / ``.force``.
    An angle is driven modulo 2 pi (the row is the wrapped difference ``theta - f(t)``), so a
    crank turns on for ever.

    Parameters
    ----------
    name : str
    joint : Revolute, Translational, Cylindrical or PointOnLine
        Whose coordinate is driven: the angle (rad) of a revolute joint, the displacement (m)
        of a translational joint or a point on a line; a cylindrical joint needs
        ``coordinate=``.
    position : callable, (callable, callable, callable) or scipy piecewise polynomial, optional
        ``f(t)``, or ``(f, df/dt, d2f/dt2)``. With ``f`` alone its derivatives are central
        differences (steps 1e-5 and 1e-4 s: about 1e-9 relative; give them for more). Or a
        trajectory as a scalar piecewise polynomial of ``scipy.interpolate``: a ``PPoly``
        (``CubicSpline``, ``PchipInterpolator``, ``Akima1DInterpolator`` are ones), a
        ``BPoly`` (``BPoly.from_derivatives`` matches given positions, rates and
        accelerations) or a ``BSpline`` (``make_interp_spline``), of degree at most
        :data:`MAX_SPLINE_DEGREE`, with its exact derivatives: the compiled phases evaluate it
        themselves, with no call back into Python per evaluation. Before its first breakpoint
        and after its last its end pieces go on (scipy's ``extrapolate=True``), or it repeats
        (``extrapolate="periodic"``); ``extrapolate=False`` is refused.
    speed : float, optional
        A constant speed (rad/s or m/s), within +-:data:`MAX_SPEED`: ``f(t) = initial +
        speed t``.
    initial : float
        The coordinate at ``t = 0`` with ``speed`` (0: the initial configuration), within
        +-:data:`MAX_LENGTH` (rad or m).
    coordinate : {"angle", "displacement"}, optional
        Which coordinate of a cylindrical joint.
    """

    def __init__(self, name, joint, *, position=None, speed: float | None = None,
                 initial: float = 0.0, coordinate: str | None = None):
        self.name = check_name(name, "driver")
        where = f"driver '{self.name}'"
        if not isinstance(joint, SpatialJoint) or not joint.coordinates:
            raise ModelError(f"{where}: joint must be a spatial Revolute, Translational, "
                             f"Cylindrical or PointOnLine joint, got {joint!r}")
        self.joint = joint
        if coordinate is None:
            if len(joint.coordinates) > 1:
                raise ModelError(f"{where}: the {joint.label} joint '{joint.name}' has "
                                 f"the coordinates {joint.coordinates}; give coordinate=")
            coordinate = joint.coordinates[0]
        if coordinate not in joint.coordinates:
            raise ModelError(f"{where}: coordinate {coordinate!r} is invalid; the "
                             f"{joint.label} joint '{joint.name}' has "
                             f"{joint.coordinates}")
        self.coordinate = coordinate
        if (position is None) == (speed is None):
            raise ModelError(f"{where}: give exactly one of position=f(t) (or (f, df, ddf)) "
                             "and speed=")
        #: ``(initial, speed)`` of a constant-speed motion (the compiled kernels write it
        #: themselves), else None (a user function: :meth:`motion`)
        self.constant_speed = None
        #: the trajectory as a piecewise polynomial (:class:`DriverSpline`), else None
        self.spline = None
        if speed is None and position is not None and is_piecewise_polynomial(position):
            self.spline = DriverSpline.of(position, where)
            position = None
        #: whether the derivatives are central differences of ``f`` (``position=f`` alone:
        #: a right-hand side smooth to about 1e-9 relative only)
        self.differenced = callable(position)
        if speed is not None:
            unit = "rad" if coordinate == "angle" else "m"
            speed = check_number(speed, f"{where}: speed = ", minimum=-MAX_SPEED,
                                 maximum=MAX_SPEED, why=f" {unit}/s (check the units)")
            initial = check_number(initial, f"{where}: initial = ", minimum=-MAX_LENGTH,
                                   maximum=MAX_LENGTH, why=f" {unit} (check the units)")
            self.constant_speed = (initial, speed)
            self._f = lambda t: initial + speed * t
            self._df = lambda t: speed
            self._ddf = lambda t: 0.0
        elif self.spline is not None:
            pp = self.spline.ppoly
            self._f, self._df, self._ddf = pp, pp.derivative(1), pp.derivative(2)
        elif callable(position):
            f = position
            self._f = f
            self._df = lambda t: _derivative(f, t, 1e-5)
            self._ddf = lambda t: (f(t + 1e-4) - 2.0 * f(t) + f(t - 1e-4)) / 1e-8
        else:
            try:
                f, df, ddf = position
            except (TypeError, ValueError):
                f = df = ddf = None
            if not all(callable(g) for g in (f, df, ddf)):
                raise ModelError(f"{where}: position must be a function f(t) or three "
                                 f"functions (f, df/dt, d2f/dt2), got {position!r}")
            self._f, self._df, self._ddf = f, df, ddf
        #: the user's functions behind f, df/dt, d2f/dt2 (named in messages), None: a speed
        self._given = (None if speed is not None or self.spline is not None
                       else (position,) * 3 if callable(position)
                       else (self._f, self._df, self._ddf))

    def motion(self, t: float) -> tuple[float, float, float]:
        """``(f(t), df/dt, d2f/dt2)`` (rad or m, per s, per s^2); a user function that raises
        or returns anything but a finite number is a
        :class:`~nonsmooth.errors.UserFunctionError` naming the driver, the function, its
        file and the time."""
        if self._given is None:
            return float(self._f(t)), float(self._df(t)), float(self._ddf(t))
        out = []
        for label, g, user in zip(("f", "df/dt", "d2f/dt2"), (self._f, self._df, self._ddf),
                                  self._given, strict=True):
            try:
                raw = g(t)
            except NonsmoothError:
                raise
            except Exception as exc:
                raise user_function_raised(f"driver '{self.name}'", user, exc, t) from exc
            try:
                x = float(raw)
            except (TypeError, ValueError):
                x = math.nan
            if not math.isfinite(x):
                u = "rad" if self.coordinate == "angle" else "m"
                raise UserFunctionError(
                    f"driver '{self.name}': the function {describe_function(user)} gave "
                    f"{label} = {raw!r} at t = {t:.10g} s; a driver's motion must be finite "
                    f"numbers (f in {u}, df/dt in {u}/s, d2f/dt2 in {u}/s^2)")
            out.append(x)
        return out[0], out[1], out[2]

    @property
    def given_motion(self) -> tuple | None:
        """``(f, df/dt, d2f/dt2)`` given as ``position=(f, df, ddf)``, else None (a constant
        speed, or ``f`` alone, differenced by the driver itself)."""
        if self.constant_speed is not None or self.differenced or self.spline is not None:
            return None
        return self._f, self._df, self._ddf

    @property
    def unit(self) -> str:
        return "N m" if self.coordinate == "angle" else "N"

    @property
    def label(self) -> str:
        return "torque" if self.coordinate == "angle" else "force"

    def bodies(self) -> list:
        return self.joint.bodies()

    def fill(self, prim, K: Kinematics, t: float, row: int, phi, phi_t, G, gamma) -> None:
        """The driver's row from its joint's coordinate primitive ``prim``."""
        f, df, ddf = self.motion(t)
        if self.coordinate == "angle":
            theta, Grow, second = prim.evaluate(K, G.shape[1])
            G[row] += Grow
            d = theta - f
            phi[row] = math.atan2(math.sin(d), math.cos(d))
        else:
            value, second = prim.evaluate(K, G, row)
            phi[row] = value - f
        phi_t[row] = -df
        gamma[row] = ddf - second


# --------------------------------------------------------------------------- forces
class ForceElement:
    """Base class of the applied forces. ``compile(index_of)`` returns an object with
    ``apply(K, t, f) -> (P_applied, P_damping)`` (adds into ``f`` (n_v,)) and ``potential(K)``
    (J)."""

    name: str

    def bodies(self) -> list:
        return []


def _add_point_force(f: np.ndarray, K: Kinematics, i: int, s: np.ndarray, F: np.ndarray):
    """A world force ``F`` at body point ``s'`` of body ``i``: ``F`` on ``u_i`` and
    ``s' x (R^T F)`` on ``omega'_i``; returns the point's velocity (world)."""
    if i < 0:
        return np.zeros(3)
    R = K.R[i]
    Fb = R.T @ F
    f[6 * i:6 * i + 3] += F
    f[6 * i + 3:6 * i + 6] += _cross(s, Fb)
    return K.u[i] + R @ _cross(K.wb[i], s)


class Gravity(ForceElement):
    """Uniform gravity ``g`` (m/s^2) along ``direction`` (default ``(0, 0, -1)``) on every body:
    ``m g d`` at each centre of mass; potential ``-m g d . r``."""

    def __init__(self, g: float = 9.81, direction=(0.0, 0.0, -1.0), name: str = "gravity"):
        self.name = check_name(name, "gravity")
        self.g = check_number(g, f"gravity '{self.name}': g = ", minimum=0.0, maximum=1e6)
        self.direction = _direction(direction, f"gravity '{self.name}': direction")

    def compile(self, index_of, bodies):
        return _CompiledGravity(self.g * self.direction,
                                [(index_of(b), b.mass) for b in bodies])


class _CompiledGravity:
    def __init__(self, gvec, masses):
        self.gvec, self.masses = gvec, masses

    def apply(self, K, t, f):
        for i, m in self.masses:
            f[6 * i:6 * i + 3] += m * self.gvec
        return 0.0, 0.0

    def potential(self, K):
        return -float(sum(m * (self.gvec @ K.r[i]) for i, m in self.masses))


class Spring(ForceElement):
    """A linear spring-damper between a point of ``body_a`` and one of ``body_b`` (world, at
    the initial configuration): tension ``k (l - l0) + c dl/dt`` along the line of the points
    (N; pulls them together when positive). ``rest_length`` None: the initial length."""

    def __init__(self, name, body_a, body_b, point_a, point_b, stiffness: float,
                 rest_length: float | None = None, damping: float = 0.0):
        self.name = check_name(name, "spring")
        where = f"spring '{self.name}'"
        self.body_a = _check_body(body_a, f"{where}: body_a")
        self.body_b = _check_body(body_b, f"{where}: body_b")
        if body_a is body_b:
            raise ModelError(f"{where}: body_a and body_b are the same body ('{body_a.name}')")
        self.point_a = _vector3(point_a, f"{where}: point_a")
        self.point_b = _vector3(point_b, f"{where}: point_b")
        self.k = check_number(stiffness, f"{where}: stiffness = ", minimum=0.0, maximum=1e15)
        self.c = check_number(damping, f"{where}: damping = ", minimum=0.0, maximum=1e15)
        length = float(np.linalg.norm(self.point_b - self.point_a))
        self.l0 = length if rest_length is None else check_number(
            rest_length, f"{where}: rest_length = ", minimum=0.0, maximum=MAX_LENGTH,
            why=" m (check the units)")
        if length == 0.0:
            raise ModelError(f"{where}: point_a and point_b coincide at the initial "
                             "configuration; the spring's direction is undefined there")

    def bodies(self) -> list:
        return [self.body_a, self.body_b]

    def compile(self, index_of, bodies):
        return _CompiledSpring(self, index_of(self.body_a), index_of(self.body_b),
                               self.body_a.local_point(self.point_a),
                               self.body_b.local_point(self.point_b))


class _CompiledSpring:
    def __init__(self, spring, a, b, s_a, s_b):
        self.spring, self.a, self.b, self.s_a, self.s_b = spring, a, b, s_a, s_b

    def _geometry(self, K):
        _, xa, xda, _ = K.point(self.a, self.s_a)
        _, xb, xdb, _ = K.point(self.b, self.s_b)
        d = xb - xa
        length = float(np.sqrt(d @ d))
        if length == 0.0:
            raise ModelError(f"spring '{self.spring.name}': its two points coincide; its "
                             "direction is undefined")
        e = d / length
        return length, e, float(e @ (xdb - xda))

    def apply(self, K, t, f):
        sp = self.spring
        length, e, rate = self._geometry(K)
        tension_k, tension_c = sp.k * (length - sp.l0), sp.c * rate
        F = (tension_k + tension_c) * e  # on a, towards b; -F on b
        _add_point_force(f, K, self.a, self.s_a, F)
        _add_point_force(f, K, self.b, self.s_b, -F)
        return 0.0, -tension_c * rate

    def potential(self, K):
        length = self._geometry(K)[0]
        return 0.5 * self.spring.k * (length - self.spring.l0) ** 2


def _load_target(name, kind: str, body, frame: str):
    """A force's or torque's checked ``(name, body, frame, where)``: a body (not the ground)
    and ``frame`` "world" or "body"."""
    name = check_name(name, kind)
    where = f"{kind} '{name}'"
    body = _check_body(body, f"{where}: body")
    if isinstance(body, Ground):
        raise ModelError(f"{where}: a {kind} on the ground does nothing; give a body")
    if frame not in ("world", "body"):
        raise ModelError(f"{where}: frame = {frame!r} is invalid; allowed: 'world', 'body'")
    return name, body, frame, where


class RotationalSpring(ForceElement):
    """A torsional spring and damper in a revolute or cylindrical joint: the torque
    ``tau = -k d - c dtheta/dt`` (N m) about the joint axis on ``body_b`` and ``-tau`` on
    ``body_a``, ``d = theta - angle0`` the deflection, ``theta`` the joint angle (rad, 0 at
    the initial configuration, the joint's ``<joint>.angle``); potential ``k d^2 / 2``
    (elastic power through it, the damping's ``-c dtheta^2`` as damping work).

    ``theta`` is tracked continuously, as a hinge's angle in MuJoCo and a planar revolute's
    coordinate are: a spring wound several turns from ``angle0`` keeps winding up (its torque
    grows past half a turn instead of changing sign). The joint with a spring has one more
    coordinate, ``<joint>.angle`` (rad, after the bodies' coordinates in ``q``), whose rate is
    the joint's relative angular velocity about its axis; the angle the spring and the outputs
    use is the exact geometric angle of the bodies plus the whole turns that coordinate
    counts, so its integration error never enters the torque.

    Parameters
    ----------
    name : str
    joint : Revolute or Cylindrical
    stiffness : float
        ``k`` (N m/rad), >= 0.
    damping : float
        ``c`` (N m s/rad), >= 0.
    angle0 : float
        The free angle (rad) relative to the initial configuration, ``|angle0| <= 2000 pi``
        (a thousand turns: a spring wound up before the start).
    """

    def __init__(self, name, joint, stiffness: float, damping: float = 0.0,
                 angle0: float = 0.0):
        self.name = check_name(name, "rotational spring")
        where = f"rotational spring '{self.name}'"
        if not isinstance(joint, SpatialJoint) or "angle" not in joint.coordinates:
            raise ModelError(f"{where}: joint must be a spatial Revolute or Cylindrical joint "
                             f"(one with an angle), got {joint!r}")
        self.joint = joint
        self.k = check_number(stiffness, f"{where}: stiffness = ", minimum=0.0, maximum=1e12)
        self.c = check_number(damping, f"{where}: damping = ", minimum=0.0, maximum=1e12)
        self.angle0 = check_number(angle0, f"{where}: angle0 = ", minimum=-MAX_WINDING,
                                   maximum=MAX_WINDING)

    def bodies(self) -> list:
        return self.joint.bodies()

    def compile(self, index_of, bodies):
        return _CompiledRotationalSpring(self, self.joint.compile(index_of).coordinates["angle"])


def unwrapped(theta: float, reference: float) -> float:
    """The angle ``theta + 2 pi k`` (rad) nearest ``reference``, ``k`` an integer: a joint's
    geometric angle ``theta`` in (-pi, pi] with the whole turns a continuous ``reference``
    counts (``SpatialSystem``'s winding coordinate)."""
    return theta + 2.0 * math.pi * round((reference - theta) / (2.0 * math.pi))


class _CompiledRotationalSpring:
    """A :class:`RotationalSpring` over its joint's angle primitive; ``coordinate`` the
    position in ``q`` of its joint's winding coordinate (set by ``SpatialSystem``)."""

    def __init__(self, spring, prim: AnglePrimitive):
        self.spring, self.prim = spring, prim
        self.coordinate = -1

    def state(self, K: Kinematics, n_v: int):
        """``(deflection (rad), rate (rad/s), G row (n_v,))`` at ``K``: ``theta - angle0``
        with ``theta`` the joint's angle unwrapped by its winding coordinate ``K.q``."""
        theta, row, _ = self.prim.evaluate(K, n_v)
        theta = unwrapped(theta, float(K.q[self.coordinate]))
        return theta - self.spring.angle0, float(row @ K.v), row

    def torque(self, K: Kinematics, n_v: int) -> float:
        d, rate, _ = self.state(K, n_v)
        return -self.spring.k * d - self.spring.c * rate

    def apply(self, K, t, f):
        d, rate, row = self.state(K, f.size)
        f += (-self.spring.k * d - self.spring.c * rate) * row
        return 0.0, -self.spring.c * rate * rate

    def potential(self, K):
        d, _, _ = self.state(K, 6 * (K.R.shape[0] - 1))
        return 0.5 * self.spring.k * d * d


class Force(ForceElement):
    """A force on ``body`` (N): constant ``(Fx, Fy, Fz)`` or a function ``f(t)`` or ``f(t, q,
    v) -> (3,)`` (``q`` (n_q,): each body's ``x, y, z, qw, qx, qy, qz``, then the angles of
    the joints a rotational spring acts in; ``v`` (6 N,): its
    ``vx, vy, vz`` world axes and ``wx', wy', wz'`` body axes), in ``frame="world"`` or
    ``"body"`` axes, at ``point`` (world, at the initial configuration; default the centre of
    mass). Counted as applied work."""

    def __init__(self, name, body, force, *, point=None, frame: str = "world"):
        self.name, self.body, self.frame, where = _load_target(name, "force", body, frame)
        self.function = _function3(force, f"{where}: force", where, "N")
        #: the constant force (3,), or None for a user function
        self.constant = None if callable(force) else _vector3(force, f"{where}: force",
                                                              MAX_LOAD, "N")
        self.point = None if point is None else _vector3(point, f"{where}: point")

    def bodies(self) -> list:
        return [self.body]

    def compile(self, index_of, bodies):
        s = np.zeros(3) if self.point is None else self.body.local_point(self.point)
        return _CompiledForce(self, index_of(self.body), s)


class _CompiledForce:
    def __init__(self, force, i, s):
        self.force, self.i, self.s = force, i, s

    def apply(self, K, t, f):
        F = self.force.function(t, K.q, K.v)
        if self.force.frame == "body":
            F = K.R[self.i] @ F
        vel = _add_point_force(f, K, self.i, self.s, F)
        return float(F @ vel), 0.0

    def potential(self, K):
        return 0.0


class Torque(ForceElement):
    """A torque on ``body`` (N m): constant or a function ``f(t)`` or ``f(t, q, v) -> (3,)``
    (as :class:`Force`'s), in ``frame="world"`` or ``"body"`` axes. Counted as applied work."""

    def __init__(self, name, body, torque, *, frame: str = "world"):
        self.name, self.body, self.frame, where = _load_target(name, "torque", body, frame)
        self.function = _function3(torque, f"{where}: torque", where, "N m")
        #: the constant torque (3,), or None for a user function
        self.constant = None if callable(torque) else _vector3(torque, f"{where}: torque",
                                                               MAX_LOAD, "N m")

    def bodies(self) -> list:
        return [self.body]

    def compile(self, index_of, bodies):
        return _CompiledTorque(self, index_of(self.body))


class _CompiledTorque:
    def __init__(self, torque, i):
        self.torque, self.i = torque, i

    def apply(self, K, t, f):
        T = self.torque.function(t, K.q, K.v)
        Tb = T if self.torque.frame == "body" else K.R[self.i].T @ T
        f[6 * self.i + 3:6 * self.i + 6] += Tb
        return float(Tb @ K.wb[self.i]), 0.0

    def potential(self, K):
        return 0.0
