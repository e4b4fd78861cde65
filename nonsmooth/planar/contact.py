"""Compliant contacts in the planar family: a :class:`~nonsmooth.contact.element.Contact` of
planar shapes (``Circle``, ``Hole``, ``Line``) between planar bodies or the ground, and
:class:`Clearance`, the revolute joint with clearance (a pin in a hole), with their gaps,
approach speeds, forces, friction rows and elastic energy at a state (the model-family
contract's obligation 12; the run keeps each contact's impact speed and its touch and leave
events).

The pair's geometry is :func:`nonsmooth.contact.geometry.pair_geometry` at the shapes' poses: a
shape sits in its body's frame (origin at the centre of mass, body axes; a :class:`Clearance`'s
shapes at its point), the ground's frame is the world's. At the contact point ``x`` with unit
normal ``n`` (from a to b) and penetration ``d = -gap > 0`` the force ``f n`` acts on body b at
``x`` and ``-f n`` on body a: on a body with coordinates ``(x, y, theta)`` the generalized force
``(F_x, F_y, (x - r) x F)``, the torque about its centre of mass ``r`` (the planar family's
convention, ``nonsmooth.planar.bodies``); on a point mass ``(F_x, F_y)``. ``d' = -n . (v_b(x) -
v_a(x))``, ``v_i(x)`` the velocity of body i's material point at ``x`` (the exact rate of the
closed forms' gaps, ``nonsmooth.contact.geometry``). The elastic part of the force ``K d^n``
(``k d``) has the potential ``K d^(n+1) / (n+1)`` (``k d^2 / 2``), counted in the system's
potential energy; the rest does the damping work ``-(f - f_e) d'``.

Friction (``mu=``): a pair of dimension 1 along the tangent ``t = (-n_y, n_x)`` (``n`` turned
by +90 degrees) at the contact point, its row of ``W`` the slip ``t . (v_b(x) - v_a(x))`` of
body b on body a and its normal load the contact's normal force; the friction force ``F_T t``
acts on body b at ``x``, ``-F_T t`` on body a.
"""

from __future__ import annotations

import math

import numpy as np

from ..contact.element import MIN_IMPACT_SPEED, Contact
from ..contact.geometry import MAX_POINTS, pair_geometry
from ..contact.laws import HYSTERETIC, normal_force
from ..contact.shapes import Circle, Hole
from ..errors import ModelError
from .bodies import Ground

__all__ = ["Clearance", "CompiledContact", "check_planar_contact", "contact_outputs"]


class Clearance(Contact):
    """A revolute joint with clearance: a pin (a :class:`~nonsmooth.contact.Circle` of radius
    ``radius_pin`` on ``body_b``) in a hole (a :class:`~nonsmooth.contact.Hole` of radius
    ``radius_hole`` in ``body_a``), both centred at ``point``; a compliant contact of the pin on
    the hole's wall with the normal force law ``normal`` (and friction with ``mu=``), free flight
    inside the clearance ``c = radius_hole - radius_pin``. The model of Flores et al.'s
    slider-cranks with clearance joints.

    Parameters
    ----------
    name : str
        Prefixes the outputs (``<name>.gap``, ``.N``, ``.Fx`` ...) and names the events.
    body_a : Body, PointMass or Ground
        The body with the hole (the bearing).
    body_b : Body, PointMass or Ground
        The body with the pin (the journal).
    point : (float, float)
        The joint's centre (m) in world coordinates at the bodies' initial poses (their
        ``position`` and ``angle``): the pin starts centred in the hole.
    radius_pin, radius_hole : float
        The radii (m), ``0 < radius_pin < radius_hole``.
    normal, restitution, damping, mu, mu_s, law, friction_params
        As :class:`~nonsmooth.contact.Contact` (the normal force law, the coefficient of
        restitution and its damping rule, the friction).

    Notes
    -----
    The gap is ``c - |p_b - h_a|`` (m), ``p_b`` and ``h_a`` the pin's and the hole's centres:
    negative when the pin penetrates the wall. A body without rotation (a point mass)
    carries its shape at a fixed offset from its position.

    References
    ----------
    Flores P., Ambrosio J., Claro J.C.P., Lankarani H.M., Koshy C.S., "A study on dynamics of
    mechanical systems including joints with clearance and lubrication", Mechanism and Machine
    Theory 41 (2006) 247-261.
    """

    def __init__(self, name, body_a, body_b, point, radius_pin, radius_hole, *, normal,
                 restitution=None, damping=None, mu=None, mu_s=None, law: str = "coulomb",
                 friction_params: dict | None = None):
        where = f"clearance '{name}'"
        try:
            rp, rh = float(radius_pin), float(radius_hole)
        except (TypeError, ValueError):
            raise ModelError(f"{where}: radius_pin = {radius_pin!r} and radius_hole = "
                             f"{radius_hole!r} must be numbers (m)") from None
        if not (math.isfinite(rp) and math.isfinite(rh) and 0.0 < rp < rh):
            raise ModelError(f"{where}: radius_pin = {rp!r} m and radius_hole = {rh!r} m must "
                             "be finite with 0 < radius_pin < radius_hole (the clearance "
                             "radius_hole - radius_pin > 0; without clearance use a Revolute)")
        try:
            px, py = (float(c) for c in point)
        except (TypeError, ValueError):
            raise ModelError(f"{where}: point = {point!r} must be two numbers (m, world "
                             "coordinates at the initial poses)") from None
        if not (math.isfinite(px) and math.isfinite(py)):
            raise ModelError(f"{where}: point = {point!r} must be finite (m)")
        super().__init__(name, body_a, Hole(rh), body_b, Circle(rp), normal=normal,
                         restitution=restitution, damping=damping, mu=mu, mu_s=mu_s, law=law,
                         friction_params=friction_params)
        self.point = (px, py)
        self.radius_pin, self.radius_hole = rp, rh
        #: the shapes' centres in each body's frame (m): the point at the initial poses
        self.offset_a = _local(body_a, self.point)
        self.offset_b = _local(body_b, self.point)

    @property
    def clearance(self) -> float:
        """The radial clearance ``radius_hole - radius_pin`` (m)."""
        return self.radius_hole - self.radius_pin

    def __repr__(self) -> str:
        return (f"Clearance({self.name!r}, {getattr(self.body_a, 'name', self.body_a)!r}, "
                f"{getattr(self.body_b, 'name', self.body_b)!r}, {self.point!r}, "
                f"{self.radius_pin!r}, {self.radius_hole!r}, normal={self.normal!r}, "
                f"restitution={self.restitution!r})")


def _local(body, point) -> tuple[float, float]:
    """The world ``point`` (m) in ``body``'s frame at its initial pose."""
    if isinstance(body, Ground):
        return float(point[0]), float(point[1])
    dx, dy = point[0] - body.position[0], point[1] - body.position[1]
    th = float(getattr(body, "angle", 0.0))
    c, s = math.cos(th), math.sin(th)
    return c * dx + s * dy, -s * dx + c * dy


def check_planar_contact(model_name: str, contact) -> None:
    """Raise :class:`ModelError` unless ``contact`` is a planar one (Circle, Hole, Line)."""
    if not contact.planar:
        raise ModelError(f"model '{model_name}': contact '{contact.name}' has spatial shapes "
                         f"({type(contact.shape_a).__name__}, {type(contact.shape_b).__name__});"
                         " a planar model's contacts take Circle, Hole and Line "
                         "(nonsmooth.contact)")


class _Side:
    """One body of a contact: its coordinates' ``offset`` and ``ndof`` (0 the ground) and its
    shape's frame origin ``s`` in the body's frame (m)."""

    def __init__(self, offset: int, ndof: int, s):
        self.k, self.ndof = int(offset), int(ndof)
        self.s = np.array((float(s[0]), float(s[1])))

    def pose(self, q, p, R) -> tuple[float, float]:
        """Write the shape frame's position ``p`` (3,) and rotation ``R`` (3, 3); returns the
        body's reference point (its centre of mass; the ground: the origin)."""
        if self.ndof == 0:
            p[0], p[1] = self.s
            return 0.0, 0.0
        k = self.k
        rx, ry = float(q[k]), float(q[k + 1])
        if self.ndof == 2:
            p[0], p[1] = rx + self.s[0], ry + self.s[1]
            return rx, ry
        th = float(q[k + 2])
        c, sn = math.cos(th), math.sin(th)
        R[0, 0], R[0, 1], R[1, 0], R[1, 1] = c, -sn, sn, c
        p[0] = rx + c * self.s[0] - sn * self.s[1]
        p[1] = ry + sn * self.s[0] + c * self.s[1]
        return rx, ry

    def velocity(self, v, r, x) -> tuple[float, float]:
        """The velocity (m/s) of the body's material point at ``x``, ``r`` its reference
        point."""
        if self.ndof == 0:
            return 0.0, 0.0
        k = self.k
        if self.ndof == 2:
            return float(v[k]), float(v[k + 1])
        w = float(v[k + 2])
        return float(v[k]) - w * (x[1] - r[1]), float(v[k + 1]) + w * (x[0] - r[0])

    def add(self, row, r, x, Fx: float, Fy: float) -> None:
        """Add the generalized force of ``(Fx, Fy)`` (N) at ``x`` into ``row`` (n_v,)."""
        if self.ndof == 0:
            return
        k = self.k
        row[k] += Fx
        row[k + 1] += Fy
        if self.ndof == 3:
            row[k + 2] += (x[0] - r[0]) * Fy - (x[1] - r[1]) * Fx


class CompiledContact:
    """A contact of a compiled planar model; ``offsets`` maps a body's name to the ``(offset,
    ndof)`` of its coordinates (``tables.PlanarTables.offsets``)."""

    def __init__(self, contact, offsets: dict):
        self.contact, self.name = contact, contact.name
        sides = []
        for body, which in ((contact.body_a, "a"), (contact.body_b, "b")):
            s = getattr(contact, f"offset_{which}", (0.0, 0.0))
            if isinstance(body, Ground):
                sides.append(_Side(-1, 0, s))
            else:
                sides.append(_Side(*offsets[body.name], s))
        self.a, self.b = sides
        self.kind_a, self.nums_a = contact.shape_a.kind, contact.shape_a.pack()
        self.kind_b, self.nums_b = contact.shape_b.kind, contact.shape_b.pack()
        self.law_kind = int(contact.law_kind)
        self.law = np.ascontiguousarray(contact.law_numbers, dtype=float)
        self.margin = float(contact.margin)
        self._out = np.zeros((MAX_POINTS, 7))
        self._p = np.zeros((2, 3))
        self._R = np.zeros((2, 3, 3))
        self._R[:, 2, 2] = 1.0
        self._R[:, 0, 0] = self._R[:, 1, 1] = 1.0

    def row(self, q) -> tuple[np.ndarray, tuple, tuple]:
        """The deepest contact row ``(gap, x, y, z, nx, ny, nz)`` (a new array) at ``q`` and
        the bodies' reference points ``r_a``, ``r_b``."""
        p, R = self._p, self._R
        r_a = self.a.pose(q, p[0], R[0])
        r_b = self.b.pose(q, p[1], R[1])
        k = pair_geometry(self.kind_a, self.nums_a, p[0], R[0], self.kind_b, self.nums_b, p[1],
                          R[1], self.margin, self._out)
        rows = self._out[:k]
        return rows[int(np.argmin(rows[:, 0]))].copy(), r_a, r_b

    def _rate(self, v, row, r_a, r_b) -> float:
        """``d' = -n . (v_b(x) - v_a(x))`` (m/s)."""
        x, n = row[1:3], row[4:6]
        ua, ub = self.a.velocity(v, r_a, x), self.b.velocity(v, r_b, x)
        return -(n[0] * (ub[0] - ua[0]) + n[1] * (ub[1] - ua[1]))

    def gap(self, q) -> float:
        """The gap (m) at ``q``: the contact's event function."""
        return float(self.row(q)[0][0])

    def approach(self, q, v) -> float:
        """The approach speed ``-d gap/dt`` (m/s)."""
        row, r_a, r_b = self.row(q)
        return float(self._rate(v, row, r_a, r_b))

    def _elastic(self, d: float) -> float:
        if self.law_kind == HYSTERETIC:
            return float(self.law[0] * d ** self.law[1])
        return float(self.law[0] * d)

    def load(self, q, v, impact: float):
        """``(row, r_a, r_b, f, d, d')``: the deepest row, the reference points, the normal
        force (N; 0 when apart) at the impact speed ``impact`` (m/s), the penetration (m) and
        its rate (m/s)."""
        row, r_a, r_b = self.row(q)
        d = -float(row[0])
        if d <= 0.0:
            return row, r_a, r_b, 0.0, d, 0.0
        rate = self._rate(v, row, r_a, r_b)
        f = float(normal_force(self.law_kind, self.law, d, rate,
                               max(float(impact), MIN_IMPACT_SPEED)))
        return row, r_a, r_b, f, d, rate

    def apply(self, q, v, impact: float, f: np.ndarray) -> tuple[float, float]:
        """Add the normal force's generalized forces into ``f`` (n_v,); returns its damping
        power (W) and the normal force (N)."""
        row, r_a, r_b, force, d, rate = self.load(q, v, impact)
        if force == 0.0 and d <= 0.0:
            return 0.0, 0.0
        x = row[1:3]
        Fx, Fy = force * row[4], force * row[5]
        self.b.add(f, r_b, x, Fx, Fy)
        self.a.add(f, r_a, x, -Fx, -Fy)
        return -(force - self._elastic(d)) * rate, force

    def slip_row(self, q, n_v: int) -> np.ndarray:
        """The friction pair's row of ``W`` (n_v,): ``t . (v_b(x) - v_a(x))`` along the tangent
        ``t = (-n_y, n_x)`` at the deepest point ``x``."""
        row, r_a, r_b = self.row(q)
        W = np.zeros(n_v)
        tx, ty = -float(row[5]), float(row[4])
        x = row[1:3]
        self.b.add(W, r_b, x, tx, ty)
        self.a.add(W, r_a, x, -tx, -ty)
        return W

    def tangent(self, q) -> tuple[float, float]:
        """The unit tangent ``t`` at ``q`` (the friction force on body b is ``F_T t``)."""
        row = self.row(q)[0]
        return -float(row[5]), float(row[4])

    def potential(self, q) -> float:
        """The elastic energy (J) at ``q``."""
        d = -float(self.row(q)[0][0])
        if d <= 0.0:
            return 0.0
        p = self.law[1] if self.law_kind == HYSTERETIC else 1.0
        return float(self.law[0] * d ** (p + 1.0) / (p + 1.0))


def contact_outputs(system) -> dict:
    """Each contact's outputs (:meth:`PlanarSystem.element_outputs`): ``<contact>.gap`` (m),
    ``.N`` (N, the normal force), ``.Fx .Fy`` (N, world: the force on body_a, normal and
    friction; on body_b the opposite), ``.x .y`` (m, world: the contact point) and
    ``.impact_speed`` (m/s, of its latest touch)."""
    contacts = system._contacts
    n_c = len(contacts)
    out = {}

    def rows(r, c):
        cache = r.__dict__.setdefault("_planar_contacts", {})
        if "rows" not in cache:
            cache["rows"] = _contact_rows(system, r)
        return cache["rows"][c]

    for c, cc in enumerate(contacts):
        name = cc.name
        out[f"{name}.gap"] = (lambda r, c=c: rows(r, c)[:, 0], "m", "gap (< 0 penetrating)")
        out[f"{name}.N"] = (lambda r, c=c: rows(r, c)[:, 1], "N", "normal force")
        for k, ax in enumerate("xy"):
            out[f"{name}.F{ax}"] = (lambda r, c=c, k=k: rows(r, c)[:, 2 + k], "N",
                                    f"contact force {ax} on body_a, normal and friction "
                                    "(world axes)")
            out[f"{name}.{ax}"] = (lambda r, c=c, k=k: rows(r, c)[:, 4 + k], "m",
                                   f"contact point {ax} (world)")
        out[f"{name}.impact_speed"] = (lambda r, c=c: r.z[:, r.z.shape[1] - n_c + c], "m/s",
                                       "approach speed at the latest touch")
    return out


def _contact_rows(system, r) -> list:
    """Per contact (N, 6): gap, N, F (2, on body_a), contact point (2) at each output row."""
    contacts = system._contacts
    n_c = len(contacts)
    out = [np.zeros((r.t.size, 6)) for _ in range(n_c)]
    for k, (q, v) in enumerate(zip(r.q, r.v, strict=True)):
        impact = r.z[k, r.z.shape[1] - n_c:]
        for c, cc in enumerate(contacts):
            row, _, _, f, _, _ = cc.load(q, v, impact[c])
            Fx, Fy = -f * row[4], -f * row[5]  # (n from a to b: the force on a is -f n)
            i = system._contact_pair_of[c]
            if i >= 0:  # the friction F_T t on b
                F_T = float(r.F_T[k, int(system.w_row[i])])
                Fx += F_T * row[5]
                Fy -= F_T * row[4]
            out[c][k] = (row[0], f, Fx, Fy, row[1], row[2])
    return out
