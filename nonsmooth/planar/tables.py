"""Compile a planar model into flat numeric tables (``docs/fast_core.md``).

A :class:`~nonsmooth.planar.PlanarModel` is declarative and never mutated; ``compile_tables``
reads it and returns :class:`PlanarTables`: the constant mass matrix, the coordinate offsets of
the bodies, and one table per element kind, packed for the kernels (:mod:`nonsmooth.planar.kernels`)
into one integer and one float array with a kind column, so that a kernel call passes three
arrays, not thirty. User functions (given forces and torques, driver motions) stay Python
callables, listed in ``user`` with the row of the element whose values they give.

Kinds and their columns (``ints[e] = [kind, a, b, c, d, e, f, g]``, ``floats[e] = [...]``); a
body reference is ``(offset, ndof)``: ``ndof`` 0 for the ground (points in global coordinates),
2 for a point mass, 3 for a rigid body:

======================  ============================================  ==========================
kind                    ints after the kind                           floats
======================  ============================================  ==========================
REVOLUTE        0       row, i_off, i_nd, j_off, j_nd                 point_i (2), point_j (2)
TRANSLATIONAL   1       row, i_off, i_nd, j_off, j_nd, lock           point_i, point_j, axis (2),
                                                                      normal (2), lock angle
DRIVER          2       row, joint kind, joint element, motion kind   initial, speed
                        (0 linear, 1 user: f, df, ddf passed in)
PAIR            3       first W row, joint kind, joint element        pin radius (clutch:
                        (kind 2: a_off, a_nd, b_off, b_nd; kind 3:    its radius; kind 3:
                        off, nd, pair index), given normal force      the point s (2))
                        (column 7: 1 a user N(t), else 0)
GRAVITY         4       off, nd                                       m g_x, m g_y
SPRING          5       i_off, i_nd, j_off, j_nd                      point_i, point_j, k, l0
DAMPER          6       i_off, i_nd, j_off, j_nd                      point_i, point_j, c
JOINT_DAMPER    7       joint kind, joint element                     c
JOINT_SPRING    8       joint kind, joint element                     k, rest
FORCE           9       off, nd                                       point (2); user: Fx, Fy
TORQUE          10      off, nd                                       user: T
ROTOR           11      joint element (translational), parent off,    J_eq or I_r, gear ratio
                        parent nd, mode (0 armature, 1 virtual)
======================  ============================================  ==========================

"joint element" is the row of the joint in these tables; "joint kind" 0 revolute, 1
translational (a clamp: its translational joint), 2 the relative rotation of two bodies (a
clutch or brake, ``nonsmooth.planar.clutch``), 3 a body point sliding on the plane (two rows of
``W``, ``nonsmooth.planar.sliding_contact``). A pair's first W row is its index when every pair is
scalar; with a pair of ``dim > 1`` the compiled stage finds a pair's rows in the plan's ``w_row``
block (``core.layout.VECTOR_BLOCKS``). A pair's constant normal force is its preload (in the
evaluation's plan); a given ``N(t)`` is a user function whose value the kernels read from the
pair's row. Rotor inertia on a revolute joint is constant and added to the mass matrix here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import ModelError

__all__ = ["PlanarTables", "compile_tables", "KINDS", "N_INT", "N_FLOAT"]

KINDS = ("REVOLUTE", "TRANSLATIONAL", "DRIVER", "PAIR", "GRAVITY", "SPRING", "DAMPER",
         "JOINT_DAMPER", "JOINT_SPRING", "FORCE", "TORQUE", "ROTOR")
(REVOLUTE, TRANSLATIONAL, DRIVER, PAIR, GRAVITY, SPRING, DAMPER, JOINT_DAMPER, JOINT_SPRING,
 FORCE, TORQUE, ROTOR) = range(len(KINDS))

#: Columns of the packed tables.
N_INT = 8
N_FLOAT = 11


@dataclass(frozen=True)
class PlanarTables:
    """A planar model as flat arrays (never refers back to the user's objects for numbers).

    Attributes
    ----------
    n_q, n_constraints, n_pairs : int
    offsets : dict of str to (int, int)   body name -> (offset, ndof) of its coordinates
    mass : ndarray, shape (n_q, n_q)      constant mass matrix (diagonal + revolute rotors)
    ints : ndarray, shape (n_el, 8)       packed integer table (kind in column 0)
    floats : ndarray, shape (n_el, 11)    packed float table
    names : list of str                   the element behind each packed row
    user : list of (int, callable, str)   (packed row, function, how to call it): ``"force"``
                                          ``f(t, q, v) -> (Fx, Fy)``, ``"torque"``
                                          ``f(t, q, v) -> T``, ``"motion"`` ``(f, df, ddf)(t)``
    has_state_mass : bool                 whether the mass matrix depends on q (ROTOR rows)
    """

    n_q: int
    n_constraints: int
    n_pairs: int
    offsets: dict
    mass: np.ndarray
    ints: np.ndarray
    floats: np.ndarray
    names: list = field(default_factory=list)
    user: list = field(default_factory=list)
    has_state_mass: bool = False

    @cached_property
    def pair_rows(self) -> np.ndarray:
        """The packed row of each frictional pair, shape (n_pairs,) (int64)."""
        rows = np.zeros(self.n_pairs, dtype=np.int64)
        for i, e in enumerate(self.rows_of(PAIR)):  # packed in the pairs' order
            rows[i] = e
        return rows

    def rows_of(self, kind: int) -> np.ndarray:
        """Packed rows of one element kind (the per-kind table is ``ints[rows_of(k)]``)."""
        return np.flatnonzero(self.ints[:, 0] == kind)


class _Packer:
    def __init__(self):
        self.ints: list[list[int]] = []
        self.floats: list[list[float]] = []
        self.names: list[str] = []

    def add(self, kind, ints, floats, name) -> int:
        row = [kind, *ints]
        vals = list(floats)
        if len(row) > N_INT or len(vals) > N_FLOAT:  # pragma: no cover - a table layout bug
            raise AssertionError(f"{KINDS[kind]} row too wide")
        self.ints.append(row + [0] * (N_INT - len(row)))
        self.floats.append(vals + [0.0] * (N_FLOAT - len(vals)))
        self.names.append(name)
        return len(self.ints) - 1


def compile_tables(model) -> PlanarTables:
    """The tables of a :class:`~nonsmooth.planar.PlanarModel` (pure: the model is only read).

    Raises :class:`ModelError` for elements the tables cannot express (a revolute coordinate on a
    point mass, an unknown element class)."""
    return _Compiler(model).tables()


class _Compiler:
    """One pass over a model's elements, one method per element family."""

    def __init__(self, model):
        self.model = model
        self.ref: dict[int, tuple[int, int]] = {}
        self.offsets, masses = {}, []
        n = 0
        for b in model.bodies:
            self.ref[id(b)] = (n, b.ndof)
            self.offsets[b.name] = (n, b.ndof)
            masses += [b.mass, b.mass] + ([b.inertia] if b.ndof == 3 else [])
            n += b.ndof
        self.n = n
        self.M = np.diag(np.array(masses, dtype=float))
        self.pk = _Packer()
        self.joint_el: dict[int, tuple[int, int]] = {}  # id(joint) -> (joint kind, packed row)
        self.user: list = []
        self.state_mass = False

    def body(self, b) -> tuple[int, int]:
        from .bodies import Ground

        return (-1, 0) if isinstance(b, Ground) else self.ref[id(b)]

    def joint_ref(self, joint, what) -> tuple[int, int]:
        from .bodies import Body, Ground

        if id(joint) not in self.joint_el:
            raise ModelError(f"{what}: its joint '{joint.name}' was not added to the model")
        kind, e = self.joint_el[id(joint)]
        if kind == 0 and any(not isinstance(b, (Body, Ground)) for b in joint.bodies()):
            raise ModelError(f"{what}: revolute '{joint.name}' connects a point mass, which "
                             "has no angle")
        return kind, e

    def tables(self) -> PlanarTables:
        rows, drivers, pairs = self.joints()
        for d, r in drivers:
            self.driver(d, r)
        w_row = 0
        for i, j in enumerate(pairs):
            self.pair(i, j, w_row)
            w_row += j.friction.dim
        for fe in self.model.forces:
            self.force(fe)
        for rotor in self.model.inertias:
            self.rotor(rotor)
        pk = self.pk
        ints = np.array(pk.ints, dtype=np.int64).reshape(-1, N_INT)
        floats = np.array(pk.floats, dtype=float).reshape(-1, N_FLOAT)
        return PlanarTables(self.n, rows, len(pairs), self.offsets, self.M, ints, floats,
                            pk.names, self.user, self.state_mass)

    def joints(self):
        """Pack the revolute and translational joints; returns the number of constraint rows,
        the drivers with their rows and the frictional joints (packed after the joints)."""
        from . import joints as J
        from .clutch import FrictionElement

        row = 0
        drivers, pairs = [], []
        for j in self.model.joints:
            if isinstance(j, J.Revolute):
                e = self.pk.add(REVOLUTE, (row, *self.body(j.body_i), *self.body(j.body_j)),
                                (*j.point_i, *j.point_j), j.name)
                self.joint_el[id(j)] = (0, e)
            elif isinstance(j, J.Translational):
                e = self.pk.add(TRANSLATIONAL, (row, *self.body(j.body_i), *self.body(j.body_j),
                                                int(j.lock_rotation)),
                                (*j.point_i, *j.point_j, *j.axis, *j.normal, j._lock_angle),
                                j.name)
                self.joint_el[id(j)] = (1, e)
            elif isinstance(j, J.Driver):
                drivers.append((j, row))
            elif isinstance(j, FrictionElement):  # a clutch, brake or clamp: no rows
                pass
            else:
                raise ModelError(f"joint element '{j.name}' ({type(j).__name__}) has no table; "
                                 "expected Revolute, Translational or Driver")
            if j.friction is not None:
                pairs.append(j)
            row += j.n_rows
        return row, drivers, pairs

    def pair(self, i, j, w_row) -> None:
        """The PAIR row of the ``i``-th frictional element ``j`` (a joint with friction, a
        clutch or brake, a clamp, a sliding contact), its rows of ``W`` from ``w_row``."""
        from .clutch import Clamp, Clutch
        from .sliding_contact import SlidingContact

        given = callable(j.friction.preload)
        if isinstance(j, SlidingContact):
            e = self.pk.add(PAIR, (w_row, 3, *self.body(j.body), i, 0, int(given)),
                            j.point, j.name)
        elif isinstance(j, Clutch):
            for b in j.bodies():
                if self.body(b)[1] == 2:  # pragma: no cover - Clutch checks its bodies
                    raise ModelError(f"clutch '{j.name}': a point mass has no angle")
            e = self.pk.add(PAIR, (w_row, 2, *self.body(j.body_a), *self.body(j.body_b),
                                   int(given)), (j.radius,), j.name)
        else:
            joint = j.joint if isinstance(j, Clamp) else j
            kind, je = self.joint_ref(joint, f"clamp '{j.name}'")
            e = self.pk.add(PAIR, (w_row, kind, je, 0, 0, 0, int(given)),
                            (getattr(j, "pin_radius", 1.0),), j.name)
        if given:
            self.user.append((e, j.friction.preload, "normal"))

    def driver(self, d, row) -> None:
        kind, e = self.joint_ref(d.joint, f"driver '{d.name}'")
        if d.speed is not None:
            self.pk.add(DRIVER, (row, kind, e, 0), (d.initial, d.speed), d.name)
        else:
            e_d = self.pk.add(DRIVER, (row, kind, e, 1), (), d.name)
            self.user.append((e_d, (d._f, d._df, d._ddf), "motion"))

    def force(self, fe) -> None:
        from . import forces as F

        pk, body = self.pk, self.body
        if isinstance(fe, F.Gravity):
            gx, gy = fe.g * fe.direction[0], fe.g * fe.direction[1]
            acted = self.model.bodies if fe._bodies is None else fe._bodies
            for b in acted:
                pk.add(GRAVITY, body(b), (b.mass * gx, b.mass * gy), fe.name)
        elif isinstance(fe, (F.Spring, F.Damper)):
            spring = isinstance(fe, F.Spring)
            pk.add(SPRING if spring else DAMPER, (*body(fe.body_i), *body(fe.body_j)),
                   (*fe.point_i, *fe.point_j, *((fe.k, fe.length0) if spring else (fe.c,))),
                   fe.name)
        elif isinstance(fe, F.JointDamper):
            pk.add(JOINT_DAMPER, self.joint_ref(fe.joint, f"joint damper '{fe.name}'"), (fe.c,),
                   fe.name)
        elif isinstance(fe, F.RotationalSpring):
            pk.add(JOINT_SPRING, self.joint_ref(fe.joint, f"joint spring '{fe.name}'"),
                   (fe.k, fe.rest), fe.name)
        elif isinstance(fe, (F.Force, F.Torque)):
            given = isinstance(fe, F.Force)
            e = pk.add(FORCE if given else TORQUE, body(fe.body), fe.point if given else (),
                       fe.name)
            self.user.append((e, fe.value, "force" if given else "torque"))  # checked
        else:
            raise ModelError(f"force element '{fe.name}' ({type(fe).__name__}) has no table")

    def rotor(self, rotor) -> None:
        from .inertia import RotorInertia

        if not isinstance(rotor, RotorInertia):  # pragma: no cover - PlanarModel.add checks
            raise ModelError(f"inertia element {rotor!r} has no table")
        kind, e = self.joint_ref(rotor.joint, f"rotor inertia '{rotor.name}'")
        parent = self.body(rotor.joint.body_i)
        virtual = rotor.mode == "virtual"
        if kind == 0:  # revolute: constant J g g^T (or I_r h h^T)
            self.M = self.M + rotor.mass_matrix(self.n, (parent, self.body(rotor.joint.body_j)))
        else:
            coef = rotor.rotor_inertia if virtual else rotor.J_eq
            self.pk.add(ROTOR, (e, *parent, int(virtual)), (coef, rotor.gear_ratio or 0.0),
                        rotor.name)
            self.state_mass = True
