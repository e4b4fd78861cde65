"""Planar bodies and the kinematics of their points.

Bodies use absolute coordinates (Haug, *Computer-Aided Kinematics and Dynamics of Mechanical
Systems*, 1989): a rigid body has ``(x, y, theta)`` (centre of mass, angle of its body x-axis from
the global x-axis, counter-clockwise positive, rad); a point mass has ``(x, y)``; the ground has
none. Points on a body are given in body coordinates relative to the centre of mass (m).

The elements that connect bodies (:mod:`nonsmooth.planar.joints`, :mod:`nonsmooth.planar.forces`,
:mod:`nonsmooth.planar.inertia`) build on this module, and the model builder
(:mod:`nonsmooth.planar`) on them: no module imports one that imports it back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..validate import check_name, check_number

__all__ = ["Ground", "Body", "PointMass", "ground", "point_state", "point_velocity",
           "add_point_row", "ref", "relative_angle"]


#: The largest mass (kg) or moment of inertia (kg m^2) of a body: beyond it the momenta,
#: energies and KKT entries of a moving body leave double precision's range (1e308) or its
#: accuracy (a mass matrix whose entries differ by more than 1e100 has no accurate solve).
MAX_INERTIA = 1e100
_WHY = ("; beyond it the energies and the KKT solve leave double precision's range (scale the "
        "model's units: e.g. tonnes and kilometres)")


def _check_positive(what: str, name: str, value: float) -> float:
    return check_number(value, f"{what} '{name}': ", minimum=0.0, exclusive=True,
                        maximum=MAX_INERTIA, why=_WHY)


def ref(body) -> tuple[int, int]:
    """``(offset, ndof)`` of a body's coordinates (bound by the compiled system)."""
    return body.offset, body.ndof


def relative_angle(i_ref, j_ref, q=None, row=None, scale: float = 1.0) -> float:
    """The relative angle ``theta_j - theta_i`` of two bodies given as ``(offset, ndof)`` (a
    body without rotation, a point mass or the ground, adds nothing): its value at ``q`` (0.0
    without ``q``), and with ``row`` (shape (n_q,)) ``scale`` times its gradient added into it.
    The one owner of this gradient (revolute coordinates and tangential rows, rotation locks,
    rotor inertias, the tables)."""
    value = 0.0
    for (off, nd), sign in ((j_ref, 1.0), (i_ref, -1.0)):
        if nd == 3:
            if q is not None:
                value += sign * q[off + 2]
            if row is not None:
                row[off + 2] += sign * scale
    return value


@dataclass(eq=False)
class Ground:
    """The fixed frame (no coordinates)."""

    name: str = "ground"
    ndof: int = field(default=0, init=False)
    offset: int = field(default=-1, init=False)


ground = Ground()


@dataclass(eq=False)
class Body:
    """A planar rigid body.

    Parameters
    ----------
    name : str
    mass : float
        Mass (kg), > 0.
    inertia : float
        Moment of inertia about the centre of mass (kg m^2), > 0.
    position : (float, float)
        Initial centre of mass (m).
    angle : float
        Initial angle of the body x-axis from the global x-axis, counter-clockwise (rad).
    velocity, angular_velocity : initial velocities (m/s, rad/s); projected onto the constraints.
    """

    name: str
    mass: float
    inertia: float
    position: tuple[float, float] = (0.0, 0.0)
    angle: float = 0.0
    velocity: tuple[float, float] = (0.0, 0.0)
    angular_velocity: float = 0.0
    ndof: int = field(default=3, init=False)
    offset: int = field(default=-1, init=False)

    def __post_init__(self):
        check_name(self.name, "body")
        self.mass = _check_positive("mass of body", self.name, self.mass)
        self.inertia = _check_positive("inertia of body", self.name, self.inertia)


@dataclass(eq=False)
class PointMass:
    """A point mass (no rotation): coordinates ``(x, y)``; mass in kg, > 0."""

    name: str
    mass: float
    position: tuple[float, float] = (0.0, 0.0)
    velocity: tuple[float, float] = (0.0, 0.0)
    ndof: int = field(default=2, init=False)
    offset: int = field(default=-1, init=False)

    def __post_init__(self):
        check_name(self.name, "point mass")
        self.mass = _check_positive("mass of point mass", self.name, self.mass)


# --------------------------------------------------------------------------- point kinematics
def point_state(body, s, q, v):
    """Position, rotated offset and angular velocity of a body-fixed point.

    Returns ``(rx, ry, ax, ay, omega, theta)`` with ``r = R + A(theta) s`` and ``(ax, ay) = A s``.
    For the ground, ``s`` is the global position. Plain floats (hot path).
    """
    if body.ndof == 0:
        return s[0], s[1], 0.0, 0.0, 0.0, 0.0
    k = body.offset
    if body.ndof == 2:
        return q[k], q[k + 1], 0.0, 0.0, 0.0, 0.0
    th = q[k + 2]
    c, sn = math.cos(th), math.sin(th)
    ax = c * s[0] - sn * s[1]
    ay = sn * s[0] + c * s[1]
    return q[k] + ax, q[k + 1] + ay, ax, ay, v[k + 2], th


def point_velocity(body, ax, ay, v):
    """Velocity of a body-fixed point with rotated offset ``(ax, ay)``."""
    if body.ndof == 0:
        return 0.0, 0.0
    k = body.offset
    if body.ndof == 2:
        return v[k], v[k + 1]
    w = v[k + 2]
    return v[k] - w * ay, v[k + 1] + w * ax


def add_point_row(G, row, body, ax, ay, ex, ey, sign=1.0):
    """Add ``sign * e . d(r_point)/dq`` to ``G[row]`` for a point with rotated offset (ax, ay)."""
    if body.ndof == 0:
        return
    k = body.offset
    G[row, k] += sign * ex
    G[row, k + 1] += sign * ey
    if body.ndof == 3:
        G[row, k + 2] += sign * (-ex * ay + ey * ax)
