"""Applied forces of the planar builder: gravity, springs, dampers, given forces and torques.

Each element adds its generalized force into ``f`` and returns its power (W); its ``category``
says where that power goes in the energy balance (``docs/method.md`` section 10):
``"conservative"`` (has a potential, counted in V), ``"damping"`` (dissipative) or ``"applied"``
(any other non-conservative load).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import ModelError, UserFunctionError
from ..validate import check_name, check_number, check_pair
from .bodies import Body, Ground, PointMass, add_point_row, point_state, point_velocity
from .joints import Revolute, Translational

__all__ = [
    "ForceElement",
    "Gravity",
    "Spring",
    "Damper",
    "RotationalSpring",
    "JointDamper",
    "Force",
    "Torque",
]


def _finite(name, what, value, *, minimum=None):
    return check_number(value, f"{what} '{name}': ", minimum=minimum)


class ForceElement:
    """Base class: ``apply(t, q, v, f) -> power``, ``potential(t, q)``, ``bodies()``."""

    name: str = ""
    category: str = "applied"

    def bodies(self) -> list:
        return []

    def potential(self, t, q) -> float:
        return 0.0

    def apply(self, t, q, v, f) -> float:  # pragma: no cover - abstract
        raise NotImplementedError


class Gravity(ForceElement):
    """Uniform gravity ``g`` (m/s^2) along ``direction`` (default -y) on the given bodies.

    Like every element it takes its name first: ``Gravity(g=9.81)``,
    ``Gravity("gravity", 9.81, bodies=[block])``.

    Parameters
    ----------
    name : str
        Element name (default ``"gravity"``).
    g : float
        Magnitude of the acceleration (m/s^2), >= 0.
    direction : (float, float)
        Direction in global axes (normalized here; default -y).
    bodies : list of Body or PointMass, optional
        The bodies it acts on; None: every body of the model it is added to.
    """

    category = "conservative"

    def __init__(self, name: str = "gravity", g: float = 9.81, direction=(0.0, -1.0),
                 bodies=None):
        if not isinstance(name, str):
            raise ModelError(
                f"gravity: the first argument is the element's name (every element takes its "
                f"name first), got {name!r}; give the acceleration by keyword: "
                f"Gravity(g={name!r}) or Gravity('gravity', {name!r})")
        self.name = check_name(name, "gravity")
        self.g = _finite(name, "gravity", g, minimum=0.0)
        nx, ny = float(direction[0]), float(direction[1])
        norm = math.hypot(nx, ny)
        if norm == 0:
            raise ModelError("gravity: direction must be a nonzero vector")
        self.direction = (nx / norm, ny / norm)
        self._bodies = bodies

    def bind(self, all_bodies):
        if self._bodies is None:
            self._bodies = list(all_bodies)

    def bodies(self):
        return list(self._bodies or [])

    def apply(self, t, q, v, f):
        gx, gy = self.g * self.direction[0], self.g * self.direction[1]
        p = 0.0
        for b in self._bodies:
            k = b.offset
            f[k] += b.mass * gx
            f[k + 1] += b.mass * gy
            p += b.mass * (gx * v[k] + gy * v[k + 1])
        return p

    def potential(self, t, q):
        gx, gy = self.g * self.direction[0], self.g * self.direction[1]
        return -sum(b.mass * (gx * q[b.offset] + gy * q[b.offset + 1]) for b in self._bodies)


class _TwoPoint(ForceElement):
    def __init__(self, name, body_i, point_i, body_j, point_j):
        self.name = check_name(name, type(self).__name__.lower())
        for b in (body_i, body_j):
            if not isinstance(b, (Body, PointMass, Ground)):
                raise ModelError(f"{type(self).__name__} '{name}': {b!r} is not a body")
        self.body_i, self.body_j = body_i, body_j
        self.point_i, self.point_j = tuple(map(float, point_i)), tuple(map(float, point_j))

    def bodies(self):
        return [self.body_i, self.body_j]

    def _geometry(self, q, v):
        rix, riy, aix, aiy, _, _ = point_state(self.body_i, self.point_i, q, v)
        rjx, rjy, ajx, ajy, _, _ = point_state(self.body_j, self.point_j, q, v)
        dx, dy = rjx - rix, rjy - riy
        length = math.hypot(dx, dy)
        if length == 0:
            raise ModelError(f"{type(self).__name__} '{self.name}': the two points coincide; "
                             "its direction is undefined")
        ex, ey = dx / length, dy / length
        vix, viy = point_velocity(self.body_i, aix, aiy, v)
        vjx, vjy = point_velocity(self.body_j, ajx, ajy, v)
        rate = ex * (vjx - vix) + ey * (vjy - viy)
        return length, rate, ex, ey, (aix, aiy), (ajx, ajy)

    def _push(self, f, F, ex, ey, ai, aj):
        """Apply the tension-positive force F: +F e on body_i's point, -F e on body_j's."""
        import numpy as np

        row = np.zeros((1, f.shape[0]))
        add_point_row(row, 0, self.body_j, aj[0], aj[1], ex, ey)
        add_point_row(row, 0, self.body_i, ai[0], ai[1], ex, ey, -1.0)
        f -= F * row[0]


class Spring(_TwoPoint):
    """Linear point-to-point spring: tension ``k (l - length0)`` (k in N/m, lengths in m)."""

    category = "conservative"

    def __init__(self, name, body_i, point_i, body_j, point_j, k, length0):
        super().__init__(name, body_i, point_i, body_j, point_j)
        self.k = _finite(name, "spring stiffness of", k, minimum=0.0)
        self.length0 = _finite(name, "spring free length of", length0, minimum=0.0)

    def apply(self, t, q, v, f):
        length, rate, ex, ey, ai, aj = self._geometry(q, v)
        F = self.k * (length - self.length0)
        self._push(f, F, ex, ey, ai, aj)
        return -F * rate

    def potential(self, t, q):
        length = self._geometry(q, q * 0.0)[0]
        return 0.5 * self.k * (length - self.length0) ** 2


class Damper(_TwoPoint):
    """Linear point-to-point damper: tension ``c dl/dt`` (c in N s/m) along the line."""

    category = "damping"

    def __init__(self, name, body_i, point_i, body_j, point_j, c):
        super().__init__(name, body_i, point_i, body_j, point_j)
        self.c = _finite(name, "damping coefficient of", c, minimum=0.0)

    def apply(self, t, q, v, f):
        _, rate, ex, ey, ai, aj = self._geometry(q, v)
        F = self.c * rate
        self._push(f, F, ex, ey, ai, aj)
        return -F * rate


class _JointCoordinate(ForceElement):
    """A force law on a joint coordinate (relative angle of a revolute, displacement of a slot)."""

    def __init__(self, name, joint):
        self.name = check_name(name, type(self).__name__.lower())
        if not isinstance(joint, (Revolute, Translational)):
            raise ModelError(f"{type(self).__name__} '{name}': joint must be a Revolute or "
                             "Translational joint")
        self.joint = joint

    def bodies(self):
        return self.joint.bodies()

    def _coord(self, q, v):
        import numpy as np

        phi = np.zeros(1)
        G = np.zeros((1, q.shape[0]))
        self.joint.coordinate(0.0, q, v, 0, phi, G)
        return phi[0], G[0]


class JointDamper(_JointCoordinate):
    """Linear damper on a joint coordinate: generalized force ``-c d(coordinate)/dt``.

    On a revolute joint it is the torque ``-c (dtheta_j/dt - dtheta_i/dt)`` (c in N m s/rad) on
    body_j and its reaction on body_i: the crank-rocker's ``M_f = -c dtheta1/dt``. On a
    translational joint it is a force along the slot (c in N s/m).
    """

    category = "damping"

    def __init__(self, name, joint, c):
        super().__init__(name, joint)
        self.c = _finite(name, "damping coefficient of", c, minimum=0.0)

    def apply(self, t, q, v, f):
        _, grad = self._coord(q, v)
        rate = grad @ v
        f -= self.c * rate * grad
        return -self.c * rate * rate


class RotationalSpring(_JointCoordinate):
    """Linear spring on a joint coordinate: ``-k (coordinate - rest)`` (N m/rad or N/m)."""

    category = "conservative"

    def __init__(self, name, joint, k, rest=0.0):
        super().__init__(name, joint)
        self.k = _finite(name, "spring stiffness of", k, minimum=0.0)
        self.rest = _finite(name, "rest position of", rest)

    def apply(self, t, q, v, f):
        x, grad = self._coord(q, v)
        F = -self.k * (x - self.rest)
        f += F * grad
        return F * (grad @ v)

    def potential(self, t, q):
        x, _ = self._coord(q, q * 0.0)
        return 0.5 * self.k * (x - self.rest) ** 2


def _time(t) -> str:
    return f"t = {float(t):.10g} s"


class Force(ForceElement):
    """A given force (N, global axes) at a body point: a function ``F(t, q, v) -> (Fx, Fy)`` or a
    constant ``(Fx, Fy)``.

    Parameters
    ----------
    name : str
        Element name (non-empty).
    body : Body or PointMass
    function : callable or (float, float)
        ``F(t, q, v)`` returning two numbers ``(Fx, Fy)`` (N); a pair of numbers is the constant
        force, wrapped into such a function (``Force("weight", block, (0.0, -19.6))``).
    point : (float, float)
        Point of application in body coordinates (m).
    """

    category = "applied"

    def __init__(self, name, body, function: Callable | tuple[float, float],
                 point=(0.0, 0.0)):
        self.name = check_name(name, "force")
        if not isinstance(body, (Body, PointMass)):
            raise ModelError(f"force '{name}': body must be a Body or PointMass")
        if not callable(function):
            if (isinstance(function, (str, bytes)) or not hasattr(function, "__len__")
                    or len(function) != 2):
                raise ModelError(f"force '{name}': function must be callable (t, q, v) -> "
                                 f"(Fx, Fy) or a constant pair (Fx, Fy) in N, got {function!r}")
            const = check_pair(function, f"force '{name}': the constant force")

            def function(t, q, v, const=const):
                return const
        self.body, self.function, self.point = body, function, tuple(map(float, point))

    def bodies(self):
        return [self.body]

    def value(self, t, q, v) -> tuple[float, float]:
        """``(Fx, Fy)`` (N) of the function at ``(t, q, v)``; a :class:`UserFunctionError`
        naming the force, the time and the expected shape when it is not two numbers."""
        value = self.function(t, q, v)
        try:
            Fx, Fy = value
            return float(Fx), float(Fy)
        except (TypeError, ValueError):
            raise UserFunctionError(
                f"the function of force '{self.name}' returned {value!r} at {_time(t)}: a force "
                "function F(t, q, v) must return two numbers (Fx, Fy) in N, global axes"
            ) from None

    def apply(self, t, q, v, f):
        Fx, Fy = self.value(t, q, v)
        _, _, ax, ay, _, _ = point_state(self.body, self.point, q, v)
        vx, vy = point_velocity(self.body, ax, ay, v)
        k = self.body.offset
        f[k] += Fx
        f[k + 1] += Fy
        if self.body.ndof == 3:
            f[k + 2] += ax * Fy - ay * Fx
        return Fx * vx + Fy * vy


class Torque(ForceElement):
    """A given torque (N m, counter-clockwise) on a rigid body: a function ``T(t, q, v)`` or a
    constant.

    Parameters
    ----------
    name : str
        Element name (non-empty).
    body : Body
    function : callable or float
        ``T(t, q, v)`` returning one number (N m); a number is the constant torque, wrapped into
        such a function (``Torque("motor", wheel, 1.5)``).
    """

    category = "applied"

    def __init__(self, name, body, function: Callable | float):
        self.name = check_name(name, "torque")
        if not isinstance(body, Body):
            raise ModelError(f"torque '{name}': body must be a rigid Body")
        if not callable(function):
            if isinstance(function, (str, bytes, bool)):
                raise ModelError(f"torque '{name}': function must be callable (t, q, v) -> T "
                                 f"or a constant torque (N m), got {function!r}")
            const = check_number(function, f"torque '{name}': the constant torque = ")

            def function(t, q, v, const=const):
                return const
        self.body, self.function = body, function

    def bodies(self):
        return [self.body]

    def value(self, t, q, v) -> float:
        """The torque (N m) of the function at ``(t, q, v)``; a :class:`UserFunctionError`
        naming the torque, the time and the expected shape when it is not one number."""
        value = self.function(t, q, v)
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            return float(value)
        except (TypeError, ValueError):
            raise UserFunctionError(
                f"the function of torque '{self.name}' returned {value!r} at {_time(t)}: a "
                "torque function T(t, q, v) must return one number (N m)") from None

    def apply(self, t, q, v, f):
        T = self.value(t, q, v)
        f[self.body.offset + 2] += T
        return T * v[self.body.offset + 2]
