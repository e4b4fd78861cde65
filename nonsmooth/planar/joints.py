"""Planar joints and driving constraints.

* :class:`Revolute` -- a pin: a point of ``body_i`` coincides with a point of ``body_j``.
  Multipliers ``name.x, name.y``: the force (N) of ``body_i`` on ``body_j`` at the pin.
* :class:`Translational` -- a point of ``body_j`` (the slider) slides along a line (the slot) fixed
  in ``body_i`` (the guide). The normal constraint ``name.normal`` is the *signed distance* of the
  slider point from the guide line along the slot normal ``n``, so its multiplier is the normal
  force ``lambda_N`` (N) of the guide on the slider along ``n``. ``n`` is the slot axis ``u``
  turned clockwise by 90 degrees (``normal="left"``: counter-clockwise). A rigid slider can have
  its rotation locked (``name.lock``, multiplier = the moment in N m). Dry friction is declared
  on the joint (``mu``, ``mu_s``).
* :class:`Driver` -- a rheonomic constraint on a joint's relative angle (revolute) or relative
  displacement along the slot (translational): ``coordinate(q) - f(t) = 0``; its multiplier is the
  driving torque / force on ``body_j``.

Kinematic formulas: Haug (1989), chapter 3; Nikravesh, *Computer-Aided Analysis of Mechanical
Systems* (1988).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..driver_spline import DriverSpline, is_piecewise_polynomial
from ..errors import ModelError
from ..system import FrictionPair
from ..validate import check_name, check_number, check_pair
from .bodies import (
    Body,
    Ground,
    PointMass,
    add_point_row,
    point_state,
    point_velocity,
    ref,
    relative_angle,
)

__all__ = ["JointElement", "Revolute", "Translational", "Driver"]


def _pair(value, what) -> tuple[float, float]:
    return check_pair(value, what)


def _positive(what, value) -> float:
    return check_number(value, f"{what} = ", minimum=0.0, exclusive=True)


def _nonnegative(what, value) -> float:
    return check_number(value, f"{what} = ", minimum=0.0)


def _input_bits(name, inputs) -> tuple[bool, bool, bool, bool]:
    """MotionSolve's 4-bit ``inputs`` (Preload, Reaction_Force, Bending_Moment, Torsional)."""
    text = str(inputs).strip()
    if len(text) != 4 or set(text) - {"0", "1"}:
        raise ModelError(f"joint '{name}': inputs = {inputs!r} is invalid; give four bits "
                         "(Preload, Reaction_Force, Bending_Moment, Torsional_Moment), e.g. "
                         "'1111' (all) or '0100' (reaction force only)")
    return tuple(c == "1" for c in text)


def _check_body(body, what):
    if not isinstance(body, (Body, PointMass, Ground)):
        raise ModelError(f"{what} must be a Body, PointMass or the ground, got {body!r}")
    return body


class JointElement:
    """Base class of joints and drivers.

    Obligations: ``name``, ``n_rows``, :meth:`row_names`, :meth:`row_kinds`, :meth:`bodies`,
    :meth:`fill` (write phi, phi_t, G, gamma of its rows at ``row``); ``friction`` (a
    :class:`FrictionPair` or None) and, with friction, :meth:`fill_tangential` and
    :meth:`tangential_bias`.
    """

    name: str
    n_rows: int
    friction: FrictionPair | None = None

    def row_names(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def row_kinds(self) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def bodies(self) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def fill(self, t, q, v, row, phi, phi_t, G, gamma) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class Revolute(JointElement):
    """A revolute (pin) joint.

    Parameters
    ----------
    name : str
    body_i, body_j : Body, PointMass or ground
    point_i, point_j : (float, float)
        The pin in body coordinates of each body relative to its centre of mass (m); for the
        ground, in global coordinates. Must be (0, 0) for a point mass.
    mu, mu_s, law, friction : optional
        Joint friction (MotionSolve's ``Force_JointFriction`` on a revolute joint, planar part):
        the normal load is the radial pin reaction ``sqrt(lambda_x^2 + lambda_y^2)`` plus the
        preload ``torque_preload / (mu_s pin_radius)``; the friction force acts at the pin radius,
        its torque on ``body_j`` is ``pin_radius * F_T`` and the sliding velocity is
        ``pin_radius * (omega_j - omega_i)``. Axial load and bending do not exist in a plane.
    pin_radius : float
        ``r_p`` (m), > 0.
    torque_preload : float
        Preload friction torque (N m), >= 0.
    inputs : str
        MotionSolve's four bits (Preload, Reaction_Force, Bending_Moment, Torsional_Moment):
        ``"1111"`` all, ``"0100"`` reaction only, ``"0000"`` no load (no dry friction).
    """

    n_rows = 2

    def __init__(self, name, body_i, body_j, point_i=(0.0, 0.0), point_j=(0.0, 0.0), *,
                 mu=None, mu_s=None, law: str = "coulomb", friction: dict | None = None,
                 pin_radius: float = 1.0, torque_preload: float = 0.0, inputs: str = "1111"):
        self.name = check_name(name, "revolute")
        self.body_i = _check_body(body_i, f"revolute '{name}': body_i")
        self.body_j = _check_body(body_j, f"revolute '{name}': body_j")
        if body_i is body_j:
            raise ModelError(f"revolute '{name}': body_i and body_j are the same body")
        self.point_i = _pair(point_i, f"revolute '{name}': point_i")
        self.point_j = _pair(point_j, f"revolute '{name}': point_j")
        for b, p in ((body_i, self.point_i), (body_j, self.point_j)):
            if isinstance(b, PointMass) and p != (0.0, 0.0):
                raise ModelError(f"revolute '{name}': a point mass can only be pinned at (0, 0)")
        self.friction = None
        if mu is not None:
            if isinstance(body_i, PointMass) or isinstance(body_j, PointMass):
                raise ModelError(f"revolute '{name}': joint friction needs a relative rotation; "
                                 "a point mass has none")
            self.pin_radius = _positive(f"revolute '{name}': pin_radius", pin_radius)
            preload, reaction, _bending, _torsion = _input_bits(name, inputs)
            torque_preload = _nonnegative(f"revolute '{name}': torque_preload", torque_preload)
            mu_static = float(mu if mu_s is None else mu_s)
            pre = (torque_preload / (mu_static * self.pin_radius)
                   if preload and torque_preload > 0 else 0.0)
            self.friction = FrictionPair(
                self.name, None, float(mu), None if mu_s is None else float(mu_s), law=law,
                params=dict(friction or {}), load=(),
                radial=(f"{self.name}.x", f"{self.name}.y") if reaction else (), preload=pre)

    def fill_tangential(self, q, v, i, W):
        """Row i of W: ``pin_radius`` times the relative angular velocity (m/s)."""
        relative_angle(ref(self.body_i), ref(self.body_j), row=W[i], scale=self.pin_radius)

    def tangential_bias(self, q, v):
        """``(dW/dt) v = 0``: the relative angle's gradient is constant."""
        return 0.0

    def row_names(self):
        return [f"{self.name}.x", f"{self.name}.y"]

    def row_kinds(self):
        return ["joint", "joint"]

    def bodies(self):
        return [self.body_i, self.body_j]

    def fill(self, t, q, v, row, phi, phi_t, G, gamma):
        rix, riy, aix, aiy, wi, _ = point_state(self.body_i, self.point_i, q, v)
        rjx, rjy, ajx, ajy, wj, _ = point_state(self.body_j, self.point_j, q, v)
        phi[row] = rjx - rix
        phi[row + 1] = rjy - riy
        add_point_row(G, row, self.body_j, ajx, ajy, 1.0, 0.0)
        add_point_row(G, row + 1, self.body_j, ajx, ajy, 0.0, 1.0)
        add_point_row(G, row, self.body_i, aix, aiy, 1.0, 0.0, -1.0)
        add_point_row(G, row + 1, self.body_i, aix, aiy, 0.0, 1.0, -1.0)
        gamma[row] = wj * wj * ajx - wi * wi * aix
        gamma[row + 1] = wj * wj * ajy - wi * wi * aiy

    # relative rotation, for drivers and rotational springs/dampers
    def coordinate(self, t, q, v, row, phi, G):
        """Relative angle ``theta_j - theta_i`` (rad): value into ``phi[row]``, gradient into G."""
        if isinstance(self.body_i, PointMass) or isinstance(self.body_j, PointMass):
            raise ModelError(f"revolute '{self.name}': a point mass has no angle to drive")
        phi[row] = relative_angle(ref(self.body_i), ref(self.body_j), q, G[row])
        return 0.0  # gamma of a relative angle is zero


class Translational(JointElement):
    """A translational (prismatic) joint: the slider point of ``body_j`` in a slot of ``body_i``.

    Parameters
    ----------
    name : str
    body_i : Body or ground
        The guide (the body that carries the slot).
    body_j : Body or PointMass
        The slider.
    point_i : (float, float)
        A point of the slot's centre line, in guide body coordinates (m).
    axis : (float, float)
        Direction of the slot in guide body coordinates (normalized here).
    point_j : (float, float)
        The slider point in slider body coordinates (m); (0, 0) for a point mass.
    lock_rotation : bool, optional
        Lock the relative rotation (default: True for a rigid slider, False for a point mass).
    mu, mu_s : float, optional
        Dynamic and static Coulomb coefficients; ``mu=None`` means a frictionless joint.
    friction : dict, optional
        The rest of the friction description (LuGre, regularized and bristle parameters, see
        :class:`nonsmooth.system.FrictionPair`).
    law : str
        The pair's default friction law (``"coulomb"``, ``"lugre"``, ``"regularized"``,
        ``"bristle"``).
    inputs : str
        Which loads make the friction's normal load ``N`` (MotionSolve's four bits: Preload,
        Reaction_Force, Bending_Moment, Torsional_Moment). Default ``"0100"``: the reaction
        ``|lambda_N|`` alone (the formulation's ``F = mu |lambda_N|``); ``"1111"`` (MotionSolve's
        default) adds the preload ``force_preload / mu_s`` and the bending moment of the rotation
        lock divided by the contact spacing ``x_s``, ``|M_lock| / x_s``. Torsion about the slide
        axis does not exist in a plane.
    force_preload : float
        Preload friction force (N), >= 0.
    initial_overlap : float
        Contact spacing ``x_s`` at the initial position (m), > 0.
    overlap_delta : {"CONSTANT", "INCREASE", "DECREASE"}
        ``x_s`` stays, grows or shrinks with the slider's travel along the axis.
    normal : {"right", "left"}
        Which side the slot normal ``n`` (the positive direction of ``lambda_N``) points to,
        looking along the axis: ``"right"`` (default) is the axis turned clockwise by 90 degrees,
        ``"left"`` counter-clockwise (e.g. axis +x, normal +y: ``lambda_N`` = support force).
    """

    def __init__(self, name, body_i, body_j, point_i=(0.0, 0.0), axis=(1.0, 0.0),
                 point_j=(0.0, 0.0), *, lock_rotation=None, mu=None, mu_s=None,
                 normal="right", friction: dict | None = None, law: str = "coulomb",
                 inputs: str = "0100", force_preload: float = 0.0,
                 initial_overlap: float = 1000.0, overlap_delta: str = "CONSTANT"):
        self.name = check_name(name, "translational")
        self.body_i = _check_body(body_i, f"translational '{name}': body_i (the guide)")
        self.body_j = _check_body(body_j, f"translational '{name}': body_j (the slider)")
        if isinstance(body_i, PointMass):
            raise ModelError(f"translational '{name}': the guide body_i must be a Body or the "
                             "ground (a point mass has no orientation for a slot)")
        if isinstance(body_j, Ground) or body_i is body_j:
            raise ModelError(f"translational '{name}': the slider body_j must be another body")
        self.point_i = _pair(point_i, f"translational '{name}': point_i")
        self.point_j = _pair(point_j, f"translational '{name}': point_j")
        ax, ay = _pair(axis, f"translational '{name}': axis")
        norm = math.hypot(ax, ay)
        if norm == 0:
            raise ModelError(f"translational '{name}': axis must be a nonzero vector")
        self.axis = (ax / norm, ay / norm)
        if normal not in ("right", "left"):
            raise ModelError(f"translational '{name}': normal = {normal!r}; use 'right' (axis "
                             "turned clockwise) or 'left' (counter-clockwise)")
        side = 1.0 if normal == "right" else -1.0
        self.normal = (side * self.axis[1], -side * self.axis[0])
        if lock_rotation is None:
            lock_rotation = isinstance(body_j, Body)
        if lock_rotation and not isinstance(body_j, Body):
            raise ModelError(f"translational '{name}': only a rigid Body slider has a rotation "
                             "to lock")
        self.lock_rotation = bool(lock_rotation)
        self.n_rows = 2 if self.lock_rotation else 1
        ai = body_i.angle if isinstance(body_i, Body) else 0.0
        self._lock_angle = (body_j.angle if isinstance(body_j, Body) else 0.0) - ai
        self.friction = None
        if mu is not None:
            preload, reaction, bending, _torsion = _input_bits(name, inputs)
            force_preload = _nonnegative(f"translational '{name}': force_preload",
                                         force_preload)
            self.initial_overlap = _positive(f"translational '{name}': initial_overlap",
                                             initial_overlap)
            delta = str(overlap_delta).upper()
            if delta not in ("CONSTANT", "INCREASE", "DECREASE"):
                raise ModelError(f"translational '{name}': overlap_delta = {overlap_delta!r}; "
                                 "use CONSTANT, INCREASE or DECREASE")
            self.overlap_sign = {"CONSTANT": 0.0, "INCREASE": 1.0, "DECREASE": -1.0}[delta]
            self._s0 = self._initial_displacement()
            load = []
            if reaction:
                load.append((f"{self.name}.normal", 1.0))
            if bending and self.lock_rotation:
                weight = (1.0 / self.initial_overlap if self.overlap_sign == 0.0
                          else self.bending_weight)
                load.append((f"{self.name}.lock", weight))
            mu_static = float(mu if mu_s is None else mu_s)
            pre = force_preload / mu_static if preload and force_preload > 0 else 0.0
            self.friction = FrictionPair(
                self.name, f"{self.name}.normal", float(mu),
                None if mu_s is None else float(mu_s), law=law, params=dict(friction or {}),
                load=tuple(load), preload=pre)

    def _initial_displacement(self) -> float:
        """The slider's displacement along the axis in the bodies' initial poses (m)."""
        def pose(b, p):
            if isinstance(b, Ground):
                return p[0], p[1], 0.0
            th = getattr(b, "angle", 0.0)
            c, s = math.cos(th), math.sin(th)
            return (b.position[0] + c * p[0] - s * p[1], b.position[1] + s * p[0] + c * p[1],
                    th)

        qx, qy, thi = pose(self.body_i, self.point_i)
        px, py, _ = pose(self.body_j, self.point_j)
        ux = math.cos(thi) * self.axis[0] - math.sin(thi) * self.axis[1]
        uy = math.sin(thi) * self.axis[0] + math.cos(thi) * self.axis[1]
        return ux * (px - qx) + uy * (py - qy)

    def contact_spacing(self, q, system) -> float:
        """``x_s`` (m) at ``q`` in the compiled ``system`` (a :class:`PlanarSystem` that holds
        this joint): the initial overlap, grown or shrunk by the slider's travel."""
        if self.overlap_sign == 0.0:
            return self.initial_overlap
        x_s = self.initial_overlap + self.overlap_sign * (
            system.slot_displacement(self, q) - self._s0)
        if x_s <= 0:
            raise ModelError(f"translational '{self.name}': the contact spacing x_s = {x_s:g} m "
                             "has vanished (the slider left its guide); increase "
                             "initial_overlap")
        return x_s

    def bending_weight(self, q, system) -> float:
        """``1 / x_s(q)``: the weight of ``|M_lock|`` in the normal load (the compiled system
        binds it to itself, see ``PlanarSystem``)."""
        return 1.0 / self.contact_spacing(q, system)

    def row_names(self):
        names = [f"{self.name}.normal"]
        return names + [f"{self.name}.lock"] if self.lock_rotation else names

    def row_kinds(self):
        return ["normal", "joint"] if self.lock_rotation else ["normal"]

    def bodies(self):
        return [self.body_i, self.body_j]

    def _line(self, e_local, q, v, G, row):
        """Value, gradient (into G[row]) and gamma of ``e . (r_P - r_Q)``, e fixed in body_i."""
        rqx, rqy, aix, aiy, wi, thi = point_state(self.body_i, self.point_i, q, v)
        rpx, rpy, ajx, ajy, wj, _ = point_state(self.body_j, self.point_j, q, v)
        c, s = math.cos(thi), math.sin(thi)
        ex = c * e_local[0] - s * e_local[1]
        ey = s * e_local[0] + c * e_local[1]
        dx, dy = rpx - rqx, rpy - rqy
        add_point_row(G, row, self.body_j, ajx, ajy, ex, ey)
        add_point_row(G, row, self.body_i, aix, aiy, ex, ey, -1.0)
        pex, pey = -ey, ex  # rot90(e)
        if self.body_i.ndof == 3:
            G[row, self.body_i.offset + 2] += pex * dx + pey * dy
        vpx, vpy = point_velocity(self.body_j, ajx, ajy, v)
        vqx, vqy = point_velocity(self.body_i, aix, aiy, v)
        gamma = (wi * wi * (ex * dx + ey * dy)
                 - 2.0 * wi * (pex * (vpx - vqx) + pey * (vpy - vqy))
                 + ex * (ajx * wj * wj - aix * wi * wi) + ey * (ajy * wj * wj - aiy * wi * wi))
        return ex * dx + ey * dy, gamma

    def fill(self, t, q, v, row, phi, phi_t, G, gamma):
        phi[row], gamma[row] = self._line(self.normal, q, v, G, row)
        if self.lock_rotation:
            r = row + 1
            phi[r] = relative_angle(ref(self.body_i), ref(self.body_j), q, G[r]) - self._lock_angle
            gamma[r] = 0.0

    def coordinate(self, t, q, v, row, phi, G):
        """Slider displacement ``u . (r_P - r_Q)`` along the slot (m): value, gradient, gamma."""
        phi[row], gamma = self._line(self.axis, q, v, G, row)
        return gamma

    def fill_tangential(self, q, v, i, W):
        """Row i of W: the sliding velocity ``v_T`` of the slider relative to the guide along u."""
        phi = np.zeros(1)
        tmp = np.zeros((1, W.shape[1]))
        self.coordinate(0.0, q, v, 0, phi, tmp)
        W[i] = tmp[0]

    def tangential_bias(self, q, v):
        """``(dW/dt) v`` (m/s^2) for this pair."""
        tmp = np.zeros((1, q.shape[0]))
        return -self._line(self.axis, q, v, tmp, 0)[1]


class Driver(JointElement):
    """A driving constraint on a joint coordinate: ``coordinate(q) - f(t) = 0``.

    Parameters
    ----------
    name : str
    joint : Revolute or Translational
        Drives the relative angle (rad) or the slider displacement along the slot (m).
    speed : float, optional
        Constant speed (rad/s or m/s): ``f(t) = initial + speed * t``.
    initial : float
        Value of the coordinate at t = 0 (with ``speed``).
    motion : (callable, callable, callable) or scipy piecewise polynomial, optional
        ``(f, df/dt, d2f/dt2)`` for any other prescribed motion, or a trajectory as a scalar
        piecewise polynomial of ``scipy.interpolate`` (``PPoly``, ``CubicSpline``, ``BPoly``,
        ``BSpline``; :class:`~nonsmooth.driver_spline.DriverSpline`) with its exact
        derivatives; the run restarts the integrator at its breakpoints.
    """

    n_rows = 1

    def __init__(self, name, joint, *, speed: float | None = None, initial: float = 0.0,
                 motion: tuple[Callable, Callable, Callable] | None = None):
        self.name = check_name(name, "driver")
        if not isinstance(joint, (Revolute, Translational)):
            raise ModelError(f"driver '{name}': joint must be a Revolute or Translational joint")
        self.joint = joint
        if (speed is None) == (motion is None):
            raise ModelError(f"driver '{name}': give exactly one of speed= or motion=(f, df, ddf)")
        self.speed = self.initial = None  # a linear motion's parameters (None: motion=)
        #: the trajectory as a piecewise polynomial (``DriverSpline``), else None
        self.spline = None
        if speed is None and is_piecewise_polynomial(motion):
            self.spline = DriverSpline.of(motion, f"driver '{name}'")
            pp = self.spline.ppoly
            motion = tuple((lambda t, d=d: float(d(t)))
                           for d in (pp, pp.derivative(1), pp.derivative(2)))
        if speed is not None:
            speed, initial = float(speed), float(initial)
            self.speed, self.initial = speed, initial
            if not (math.isfinite(speed) and math.isfinite(initial)):
                raise ModelError(f"driver '{name}': speed and initial must be finite")
            self._f = lambda t: initial + speed * t
            self._df = lambda t: speed
            self._ddf = lambda t: 0.0
        else:
            if len(motion) != 3 or not all(callable(m) for m in motion):
                raise ModelError(f"driver '{name}': motion must be three callables (f, df, ddf)")
            self._f, self._df, self._ddf = motion

    @property
    def given_motion(self) -> tuple[Callable, Callable, Callable] | None:
        """``(f, df/dt, d2f/dt2)`` given as ``motion=``, else None (a constant speed, or a
        spline, whose derivatives are its own)."""
        if self.speed is not None or self.spline is not None:
            return None
        return self._f, self._df, self._ddf

    @property
    def unit(self) -> str:
        """The driven coordinate's unit: ``"rad"`` (a revolute's angle) or ``"m"``."""
        return "rad" if isinstance(self.joint, Revolute) else "m"

    def row_names(self):
        return [self.name]

    def row_kinds(self):
        return ["driver"]

    def bodies(self):
        return self.joint.bodies()

    def fill(self, t, q, v, row, phi, phi_t, G, gamma):
        g = self.joint.coordinate(t, q, v, row, phi, G)
        phi[row] -= self._f(t)
        phi_t[row] = -self._df(t)
        gamma[row] = g + self._ddf(t)
