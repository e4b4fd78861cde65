"""A compiled spatial model as flat tables for the kernels (:mod:`nonsmooth.spatial.kernels`).

:func:`spatial_tables` reads a :class:`~nonsmooth.spatial.model.SpatialSystem` (its joints'
primitives, drivers, forces and virtual rotors) into three arrays, one row per element:

* ``ints`` (n_el, 6): ``[kind, a, b, row, user, frame]``: the element kind (the constants
  below), its bodies (``-1`` the ground), its constraint row, whether its numbers come
  from a user function (the run's user values ``U[e]``), and for a force or torque whether it
  is given in body axes; a ``SPH`` row's three rows are ``ints[3:6]`` (rows removed as
  redundant go after the kept ones: :func:`row_targets`);
* ``floats`` (n_el, 12): the element's vectors in body axes and numbers (SI):

  =============  ==============================================================
  kind           floats
  =============  ==============================================================
  SPH            ``s'_a (3), s'_b (3)``
  DOT1           ``h'_a (3), h'_b (3)``
  DOT2           ``h'_a (3), s'_a (3), s'_b (3)``
  DRIVE_ANGLE    ``f'_a, g'_a, f'_b (3 each), initial, speed`` (a piecewise polynomial's,
                 ``user`` :data:`SPLINE_MOTION`: ``..., last breakpoint, periodic, degree``
                 and ``frame`` its number of pieces)
  DRIVE_DISP     ``h'_a, s'_a, s'_b (3 each), initial, speed`` (as ``DRIVE_ANGLE``)
  PIECE          ``x_i, c_i (k + 1)``: a piece of the driver's polynomial above it, from
                 breakpoint ``x_i`` (s), ``sum_j c_ij (t - x_i)^(k - j)``
  GRAVITY        ``g d (3)`` (m/s^2, world)
  SPRING         ``s'_a, s'_b (3 each), k, c, l0``
  FORCE          ``s' (3), F (3)`` (constant, N)
  TORQUE         ``T (3)`` (constant, N m)
  VROTOR         ``h'_a (3), h'_b (3), G, I_r`` (a virtual rotor: rotor.py)
  ROTSPRING      ``f'_a, g'_a, f'_b (3 each), k, c, angle0`` (a joint's angle spring;
                 ``ints[3]`` the position in ``q`` of its joint's winding coordinate)
  CROSSDOT2      ``h'_a, h'_b, s'_a, s'_b (3 each)`` (a frictional universal joint's row)
  FRIC_TURN      ``c'_1, c'_2, c'_3 (3 each; the first ints[5]), r`` (m; a universal
                 joint's yoke of ``axis_b``: the bodies swapped, ``-r``)
  FRIC_SLIDE     ``h'_a (3), s'_a (3), s'_b (3)`` (as ``DOT2``)
  =============  ==============================================================

  A frictional joint (``nonsmooth.spatial.joint_friction.CompiledJointFriction``) writes rows
  of ``W`` and of the tangential bias, not of ``G``: its ``ints[3]`` is its first row of ``W``
  (``System.w_row``). ``FRIC_TURN``: the angular rows ``r c_k . (omega_b - omega_a)``, ``c_k
  = R_a c'_k`` (``ints[5]`` columns ``c'_k`` of the joint frame in ``body_a``'s axes: ``h``
  for a revolute or cylindrical joint, ``(f, g, h)`` for a spherical one, ``r`` its pin or
  ball radius); ``FRIC_SLIDE``: the slide row ``h_a . (x_b - x_a)``'s derivative along the
  axis (a translational or cylindrical joint; the row after the angular one);

* ``bodies`` (N, 10): ``[m, J (9, row-major)]`` (kg, kg m^2 about the centre of mass, body
  axes).

An armature rotor is in the constant mass matrix only (no row).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import elements as el
from .primitives import (
    AnglePrimitive,
    CrossDot2Primitive,
    Dot1Primitive,
    Dot2Primitive,
    SphPrimitive,
)

__all__ = ["SpatialTables", "spatial_tables", "row_targets", "SPH", "DOT1", "DOT2", "DRIVE_ANGLE",
           "DRIVE_DISP", "GRAVITY", "SPRING", "FORCE", "TORQUE", "VROTOR", "ROTSPRING",
           "CROSSDOT2", "FRIC_TURN", "FRIC_SLIDE", "PIECE", "USER_MOTION", "SPLINE_MOTION"]

(SPH, DOT1, DOT2, DRIVE_ANGLE, DRIVE_DISP, GRAVITY, SPRING, FORCE, TORQUE, VROTOR,
 ROTSPRING, CROSSDOT2, FRIC_TURN, FRIC_SLIDE, PIECE) = range(1, 16)
N_INTS, N_FLOATS = 6, 12
#: A driver row's ``user`` flag: its motion is a user function's (``U[e]``) ...
USER_MOTION = 1
#: ... or a piecewise polynomial's, in the ``PIECE`` rows after it
SPLINE_MOTION = 2


@dataclass(frozen=True)
class SpatialTables:
    """The tables of :func:`spatial_tables`; ``names`` (n_el,) each row's element name and
    ``user`` the rows whose values a user function gives (``(row, function)`` with
    ``function(t, q, v) -> 3 numbers``); ``coordinates`` the joints' coordinates as a table of
    their own ``(ints, floats, names)`` (``DRIVE_ANGLE`` / ``DRIVE_DISP`` rows with no
    constraint row: ``<joint>.angle``, ``<joint>.displacement``)."""

    ints: np.ndarray
    floats: np.ndarray
    bodies: np.ndarray
    names: list
    user: list
    coordinates: tuple


def _row(kind, a, b, r, numbers, *, user_flag=0, frame=0):
    """One element's ``(ints (N_INTS,), floats (N_FLOATS,))``."""
    it = np.array((kind, a, b, r, user_flag, frame), dtype=np.int64)
    ft = np.zeros(N_FLOATS)
    numbers = np.concatenate([np.atleast_1d(np.asarray(x, float)) for x in numbers])
    ft[:numbers.size] = numbers
    return it, ft


def _coordinate_row(prim, r: int):
    """A joint coordinate's primitive as a ``DRIVE_ANGLE`` or ``DRIVE_DISP`` row (``r`` its
    constraint row, -1: none)."""
    if isinstance(prim, AnglePrimitive):
        c, s = prim._c, prim._s
        return DRIVE_ANGLE, c.a, c.b, r, (c.h_a, s.h_a, c.h_b)
    return DRIVE_DISP, prim.a, prim.b, r, (prim.h_a, prim.s_a, prim.s_b)


def _stack(rows):
    ints = np.array([it for it, _ in rows], dtype=np.int64).reshape(-1, N_INTS)
    floats = np.array([ft for _, ft in rows], dtype=float).reshape(-1, N_FLOATS)
    return ints, floats


class _Rows:
    """The table's rows as they are added."""

    def __init__(self):
        self.rows, self.names, self.user = [], [], []

    def add(self, name, *args, function=None, **kwargs) -> int:
        """Add a row (``_row``'s arguments); ``function`` its user function, if any."""
        self.rows.append(_row(*args, **kwargs))
        self.names.append(name)
        if function is not None:
            self.user.append((len(self.rows) - 1, function))
        return len(self.rows) - 1


def row_targets(system) -> np.ndarray:
    """Where each written constraint row goes in the kernels' ``G`` (``len(_all_names)``,):
    its position among the kept rows, or, for a row removed as redundant
    (``SpatialModel.compile(redundant="remove")``), a row after them that the stage does not
    read."""
    m_all = len(system._all_names)
    if system._keep is None:
        return np.arange(m_all)
    target = np.empty(m_all, dtype=np.int64)
    kept = system._keep
    target[kept] = np.arange(kept.size)
    dropped = np.setdiff1d(np.arange(m_all), kept)
    target[dropped] = kept.size + np.arange(dropped.size)
    return target


def _joint_rows(system, rows: _Rows) -> None:
    owner = {}
    for j in system.model.joints:
        for prim in system.joint_rows[j.name].primitives:
            owner[id(prim)] = j.name
    to = row_targets(system)
    for r, prim in system._blocks:
        name = owner[id(prim)]
        if isinstance(prim, SphPrimitive):  # its three rows' targets in ints[3:6]
            rows.add(name, SPH, prim.a, prim.b, to[r], (prim.s_a, prim.s_b), user_flag=to[r + 1],
                     frame=to[r + 2])
        elif isinstance(prim, Dot1Primitive):
            rows.add(name, DOT1, prim.a, prim.b, to[r], (prim.h_a, prim.h_b))
        elif isinstance(prim, Dot2Primitive):
            rows.add(name, DOT2, prim.a, prim.b, to[r], (prim.h_a, prim.s_a, prim.s_b))
        elif isinstance(prim, CrossDot2Primitive):
            rows.add(name, CROSSDOT2, prim.a, prim.b, to[r],
                     (prim.h_a, prim.h_b, prim.s_a, prim.s_b))
        else:  # pragma: no cover - every joint is written with the three primitives
            raise TypeError(f"no compiled primitive for {type(prim).__name__}")
    for r, d, prim in system._drivers:
        kind, a, b, r, vectors = _coordinate_row(prim, to[r])
        if d.spline is not None:
            _spline_rows(d, rows, kind, a, b, r, vectors)
            continue
        initial, speed = d.constant_speed if d.constant_speed is not None else (0.0, 0.0)
        given = d.constant_speed is None
        rows.add(d.name, kind, a, b, r, (*vectors, initial, speed), user_flag=int(given),
                 function=(lambda t, q, v, motion=d.motion: motion(t)) if given else None)


def _spline_rows(d, rows: _Rows, kind, a, b, r, vectors) -> None:
    """A driver along a piecewise polynomial (``el.DriverSpline``): its row (``user``
    :data:`SPLINE_MOTION`, ``frame`` the number of pieces, ``floats[9:12]`` the last
    breakpoint, 1.0 if periodic, the degree), then one ``PIECE`` row per piece: its left
    breakpoint and its coefficients, highest power first (``floats[0]``, ``floats[1:k + 2]``)."""
    sp = d.spline
    n, k1 = sp.coefficients.shape
    rows.add(d.name, kind, a, b, r, (*vectors, sp.breaks[-1], float(sp.periodic), k1 - 1),
             user_flag=SPLINE_MOTION, frame=n)
    for i in range(n):
        rows.add(d.name, PIECE, -1, -1, -1, (sp.breaks[i], sp.coefficients[i]))


def _force_rows(system, rows: _Rows) -> None:
    for fe, force in zip(system._forces, system.model.forces, strict=True):
        if isinstance(force, el.Gravity):
            rows.add(force.name, GRAVITY, -1, -1, -1, (fe.gvec,))
        elif isinstance(force, el.Spring):
            rows.add(force.name, SPRING, fe.a, fe.b, -1,
                     (fe.s_a, fe.s_b, force.k, force.c, force.l0))
        elif isinstance(force, (el.Force, el.Torque)):
            given = force.constant is None
            const = np.zeros(3) if given else force.constant
            kind, numbers = (FORCE, (fe.s, const)) if isinstance(force, el.Force) else (
                TORQUE, (const,))
            rows.add(force.name, kind, fe.i, -1, -1, numbers, user_flag=int(given),
                     frame=int(force.frame == "body"),
                     function=force.function if given else None)
        elif isinstance(force, el.RotationalSpring):
            _, a, b, _, vectors = _coordinate_row(fe.prim, -1)
            rows.add(force.name, ROTSPRING, a, b, fe.coordinate,
                     (*vectors, force.k, force.c, force.angle0))
        else:  # pragma: no cover - the force elements above are all there are
            raise TypeError(f"no compiled force for {type(force).__name__}")
    for cr in system._rotors:
        if cr.virtual:  # (a driven ground: no term of b)
            b_ok = cr.b >= 0
            rows.add(cr.rotor.name, VROTOR, cr.a, cr.b if b_ok else 0, -1,
                     (cr.h_a, cr.h_b if b_ok else np.zeros(3), cr.rotor.gear_ratio,
                      cr.rotor.rotor_inertia))


def _friction_rows(system, rows: _Rows) -> None:
    """The frictional joints' rows of ``W`` (``CompiledJointFriction.fill``; the joints' pairs
    come first, a contact's after them has its rows written in Python): a ``FRIC_TURN``
    row for the angular slip, a ``FRIC_SLIDE`` row for the slip along the axis."""
    n_joint = len(system._friction)
    for pair, fr, w in zip(system.pairs[:n_joint], system._friction, system.w_row[:n_joint],
                           strict=True):
        w = int(w)
        cols = fr.C_a.shape[1]
        if cols:  # (a universal joint's yoke "b": its axis fixed in body_b, the bodies
            # swapped and the radius negated: -r c . (omega_a - omega_b) with c = R_b c')
            a, b, r = (fr.b, fr.a, -fr.radius) if fr.in_b else (fr.a, fr.b, fr.radius)
            rows.add(pair.name, FRIC_TURN, a, b, w, (fr.C_a.T.reshape(-1),), frame=cols)
            rows.rows[-1][1][9] = r
        if fr.slide is not None:
            s = fr.slide
            rows.add(pair.name, FRIC_SLIDE, s.a, s.b, w + cols, (s.h_a, s.s_a, s.s_b))


def spatial_tables(system) -> SpatialTables:
    """The tables of a :class:`~nonsmooth.spatial.model.SpatialSystem`."""
    rows = _Rows()
    _joint_rows(system, rows)
    _force_rows(system, rows)
    _friction_rows(system, rows)
    coords, c_names = [], []
    for name, jr in system.joint_rows.items():
        for coord, prim in jr.coordinates.items():
            kind, a, b, r, vectors = _coordinate_row(prim, -1)
            coords.append(_row(kind, a, b, r, vectors))
            c_names.append(f"{name}.{coord}")
    bodies = np.array([np.concatenate(([b.mass], b.J.reshape(-1)))
                       for b in system.model.bodies]).reshape(-1, 10)
    return SpatialTables(*_stack(rows.rows), bodies, rows.names, rows.user,
                         (*_stack(coords), c_names))
