"""Planar bodies and the planar model builder.

Bodies use absolute coordinates (Haug, *Computer-Aided Kinematics and Dynamics of Mechanical
Systems*, 1989): a rigid body has ``(x, y, theta)`` (centre of mass, angle of its body x-axis from
the global x-axis, counter-clockwise positive, rad); a point mass has ``(x, y)``; the ground has
none. Points on a body are given in body coordinates relative to the centre of mass (m).

Build a model with :class:`PlanarModel`, add bodies, joints (:mod:`nonsmooth.planar.joints`) and
forces (:mod:`nonsmooth.planar.forces`), then :meth:`PlanarModel.compile` gives a
:class:`PlanarSystem` (a :class:`nonsmooth.system.System`).
"""

from __future__ import annotations

import sys

import numpy as np

from ..core.status import COINCIDENT
from ..diagnose import finite
from ..errors import ModelError
from ..system import FrictionPair, System, Terms, rows_rate_bias
from . import forces as _forces
from . import joints as _joints
from .bodies import (  # noqa: F401  (re-exported: the builder's public names)
    Body,
    Ground,
    PointMass,
    add_point_row,
    ground,
    point_state,
    point_velocity,
)
from .inertia import RotorInertia

__all__ = ["Ground", "Body", "PointMass", "PlanarModel", "PlanarSystem", "ground"]


# --------------------------------------------------------------------------- builder
class PlanarModel:
    """A planar multibody model under construction (declarative: no integrator state).

    Examples
    --------
    >>> from nonsmooth.planar import PlanarModel, Body, ground
    >>> from nonsmooth.planar import Revolute
    >>> from nonsmooth.planar import Gravity
    >>> mdl = PlanarModel()
    >>> bar = mdl.add(Body("bar", mass=1.0, inertia=1 / 12, position=(0.5, 0.0)))
    >>> pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    >>> g = mdl.add(Gravity(g=9.81))
    >>> system = mdl.compile()
    >>> system.n_q, system.n_constraints
    (3, 2)
    """

    def __init__(self, name: str = "planar model"):
        self.name = name
        self.bodies: list = []
        self.joints: list = []
        self.forces: list = []
        self.inertias: list = []
        self.contacts: list = []

    def add(self, element):
        """Add a body, joint, driver, force, rotor-inertia element or compliant contact
        (:class:`nonsmooth.contact.Contact` of planar shapes, :class:`~nonsmooth.planar.
        Clearance`); returns it."""
        if _is_contact(element):
            from .contact import check_planar_contact

            check_planar_contact(self.name, element)
            taken = {e.name: kind for kind, group in (("body", self.bodies),
                                                      ("joint or driver", self.joints),
                                                      ("contact", self.contacts))
                     for e in group}
            taken.update({getattr(f, "name", None): "force" for f in self.forces})
            if element.name in taken:
                raise ModelError(f"model '{self.name}': contact '{element.name}': the name is "
                                 f"taken by a {taken[element.name]} added before; give the "
                                 "contact a name of its own (it prefixes its outputs, "
                                 f"'{element.name}.gap' ...)")
            self.contacts.append(element)
        elif isinstance(element, (Body, PointMass)):
            if any(b.name == element.name for b in self.bodies):
                raise ModelError(f"a body named '{element.name}' already exists")
            self.bodies.append(element)
        elif isinstance(element, _joints.JointElement):
            self.joints.append(element)
        elif isinstance(element, _forces.ForceElement):
            self.forces.append(element)
        elif isinstance(element, RotorInertia):
            self.inertias.append(element)
        else:
            raise ModelError(
                f"cannot add {type(element).__name__}: expected a Body, PointMass, joint, driver, "
                "force, RotorInertia element or a nonsmooth.contact.Contact (Clearance)"
            )
        return element

    def validate(self) -> None:
        """Collect every problem of the model into one :class:`ModelError`."""
        problems = []
        known = {id(b) for b in self.bodies} | {id(ground)}
        for el in self.joints + self.forces + self.inertias + self.contacts:
            for b in el.bodies():
                if id(b) not in known and not isinstance(b, Ground):
                    problems.append(f"{type(el).__name__} '{el.name}' uses body '{b.name}', "
                                    "which was not added to the model")
        names = [j.name for j in self.joints]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            problems.append(f"duplicate joint/driver names {dup}")
        if not self.bodies:
            problems.append("the model has no bodies")
        if problems:
            raise ModelError("invalid planar model: " + "; ".join(problems))

    def compile(self) -> PlanarSystem:
        """Compile into a :class:`PlanarSystem` (validates first)."""
        self.validate()
        return PlanarSystem(self)

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        """Coordinates and velocities from the bodies' initial poses, shape (n_q,) each."""
        q, v = [], []
        for b in self.bodies:
            q.extend(b.position)
            v.extend(b.velocity)
            if b.ndof == 3:
                q.append(b.angle)
                v.append(b.angular_velocity)
        return np.array(q, dtype=float), np.array(v, dtype=float)


def _is_contact(element) -> bool:
    """Whether ``element`` is a :class:`nonsmooth.contact.Contact` (the contact package, which
    loads numba, imported only when a model has one)."""
    if "nonsmooth.contact.element" not in sys.modules:
        return False  # (no Contact was ever made)
    return isinstance(element, sys.modules["nonsmooth.contact.element"].Contact)


def _vector(x) -> np.ndarray:
    """A contiguous float vector (the one array layout the kernels are compiled for)."""
    return np.ascontiguousarray(x, dtype=float)


def _bending_weight(joint, system, q):
    return joint.bending_weight(q, system)


class PlanarSystem(System):
    """A compiled :class:`PlanarModel`: flat tables (:mod:`nonsmooth.planar.tables`) evaluated by
    compiled kernels (:mod:`nonsmooth.planar.kernels`).

    Compiling is pure: the model's objects are only read (no coordinate offset is written into a
    body, so one body object may appear in several models). The Python element methods
    (``Revolute.fill`` ...) stay as the reference implementation: :meth:`reference_terms` runs
    them with the offsets bound for the duration of the call only
    (``tests/planar/test_kernels.py``).
    """

    def __init__(self, model: PlanarModel):
        from .tables import compile_tables

        self.model = model
        self.tables = tab = compile_tables(model)
        self.n_q = tab.n_q
        names = []
        for b in model.bodies:
            names += [f"{b.name}.x", f"{b.name}.y"] + ([f"{b.name}.theta"] if b.ndof == 3 else [])
        self.coordinate_names = names
        self._M = tab.mass
        self.constraint_names, self.constraint_kinds = [], []
        for j in model.joints:
            self.constraint_names += j.row_names()
            self.constraint_kinds += j.row_kinds()
        self._tangential = [j for j in model.joints if j.friction is not None]
        self.pairs: list[FrictionPair] = [self._pair(j) for j in self._tangential]
        # compliant contacts (obligation 12; nonsmooth.planar.contact), in Python: a model with
        # contacts runs its terms here and the compiled stage after them (compiled_family:
        # None); a contact with friction has a pair of dimension 1 after the joints' (its
        # load: the contact's normal force)
        self._contacts = []
        if model.contacts:
            from .contact import CompiledContact

            self._contacts = [CompiledContact(c, tab.offsets) for c in model.contacts]
        self.contact_names = tuple(c.name for c in model.contacts)
        pairs_at = []
        for c in model.contacts:
            pair = c.friction_pair()
            pairs_at.append(-1 if pair is None else len(self.pairs))
            if pair is not None:
                self.pairs.append(pair)
        self._contact_pair_of = tuple(pairs_at)  # each contact's pair, -1: frictionless
        self.contact_pairs = tuple((i, c) for c, i in enumerate(pairs_at) if i >= 0)
        self._finish()
        self._user = tab.user
        self._U = np.zeros((tab.ints.shape[0], 3))
        self._kernels = None

    def _pair(self, joint) -> FrictionPair:
        """The joint's friction pair, its q-dependent bending weight bound to this system (a
        copy: the joint's own pair is not changed)."""
        from dataclasses import replace
        from functools import partial

        pair = joint.friction
        if not any(callable(w) for _, w in (pair.load or ())):
            return pair
        weight = partial(_bending_weight, joint, self)
        return replace(pair, load=tuple((row, weight if callable(w) else w)
                                        for row, w in pair.load))

    def motion_breaks(self, t0: float, t_end: float) -> np.ndarray:
        """The breakpoints of the drivers' splines in ``(t0, t_end)`` (s)
        (:meth:`System.motion_breaks`)."""
        from ..driver_spline import spline_breaks
        from .joints import Driver

        return np.unique(np.concatenate(
            [np.zeros(0)] + [spline_breaks(j.spline, t0, t_end) for j in self.model.joints
                             if isinstance(j, Driver) and j.spline is not None]))

    def given_motions(self) -> list[tuple]:
        """The drivers given ``motion=(f, df, ddf)`` (:meth:`System.given_motions`)."""
        from .joints import Driver

        return [(j.name, j.unit, *j.given_motion) for j in self.model.joints
                if isinstance(j, Driver) and j.given_motion is not None]

    def slot_displacement(self, joint, q) -> float:
        """The displacement of a translational joint's slider along its slot at ``q`` (m)."""
        tab = self.tables
        e = next((r for r, nm in enumerate(tab.names) if nm == joint.name
                  and tab.ints[r, 0] == 1), None)
        if e is None:
            raise ModelError(f"translational '{joint.name}' is not part of this system")
        return float(self._kern().planar_slot_displacement(tab.ints, tab.floats, e,
                                                           _vector(q)))

    def _kern(self):
        if self._kernels is None:
            from . import kernels
            from .warm import warm

            warm("planar")
            self._kernels = kernels
        return self._kernels

    def _user_values(self, t, q, v) -> np.ndarray:
        U = self._U
        for e, fn, how in self._user:
            if how == "motion":
                U[e, 0], U[e, 1], U[e, 2] = fn[0](t), fn[1](t), fn[2](t)
            elif how == "force":
                U[e, 0], U[e, 1] = fn(t, q, v)
            elif how == "normal":  # a clutch's given normal force N(t)
                U[e, 0] = fn(t)
            else:
                U[e, 0] = fn(t, q, v)
        return U

    # ------------------------------------------------------------------ the family contract
    @property
    def constant_mass(self) -> np.ndarray | None:
        """The tables' constant mass matrix, or None when it depends on ``q`` (a rotor inertia
        on a translational joint)."""
        tab = self.tables
        return None if tab.has_state_mass else tab.mass

    @property
    def has_user_functions(self) -> bool:
        """Whether an element takes a user function's value (a driver's motion, a force, a
        clutch's ``N(t)``): the compiled phases then call back for :meth:`user_values`."""
        return bool(self._user)

    def user_values(self, t, q, v) -> np.ndarray | None:
        """The user functions' values at a state, shape (n_el, 3) (one row per table row; the
        system's own buffer, overwritten by the next call), or None without user functions."""
        return self._user_values(t, q, v) if self._user else None

    def name_failure(self, status: int, row: int, t, q, v) -> str:
        """A kernel's failure in words: ``COINCIDENT`` names the spring or damper of table row
        ``row``; the others as :meth:`System.name_failure`."""
        if status == COINCIDENT:
            return (f"spring/damper '{self.tables.names[row]}': its two points coincide at "
                    f"t = {t:.10g} s; its direction is undefined")
        return super().name_failure(status, row, t, q, v)

    def element_outputs(self, q0=None, v0=None, t0: float = 0.0) -> dict:
        """The bodies', pairs' and drivers' outputs (obligation 7;
        :func:`nonsmooth.planar.outputs.planar_outputs`)."""
        from .outputs import planar_outputs

        out = planar_outputs(self, q0, v0, t0)
        if self._contacts:
            from .contact import contact_outputs

            out.update(contact_outputs(self))
        return out

    def compiled_family(self, size: int, run_blocks=None, home=None):
        """The planar kernels and phases over this system's tables
        (:class:`~nonsmooth.planar.family.PlanarFamily`; obligation 4) for a run whose
        evaluation buffer has ``size`` floats; with vector pairs ``run_blocks``, the slices of
        the plan's ``e_ref`` and ``stop_speed``, and ``home``, the run's plan."""
        if self._contacts:  # their forces are added to the terms in Python (Dynamics.terms)
            return None
        from .family import planar_family

        return planar_family(self, size, run_blocks, home)

    def nonfinite_source(self, t, q, v) -> str | None:
        """Only user-supplied functions are suspects: a built-in element (spring, damper ...)
        that overflows at a finite state is the integration diverging, not the element."""
        for fe in self.model.forces:
            fn = getattr(fe, "function", None)
            if callable(fn) and not finite(fn(t, q, v)):
                return f"the function of {type(fe).__name__.lower()} '{fe.name}'"
        for j in self.model.joints:
            given = getattr(j, "normal_force", None)  # a clutch's, brake's or clamp's N(t)
            if callable(given) and not finite(given(t)):
                return f"the normal force of {type(j).__name__.lower()} '{j.name}'"
            parts = [getattr(j, a, None) for a in ("_f", "_df", "_ddf")]
            if all(callable(f) for f in parts) and not all(finite(f(t)) for f in parts):
                return f"the motion of {type(j).__name__.lower()} '{j.name}'"
        return None

    def kernel_key(self) -> str | None:
        """The package's planar kernels (shipped compiled, :mod:`nonsmooth.prebuilt`)."""
        return "nonsmooth.planar.kernels"

    def terms(self, t, q, v):
        tab = self.tables
        U = self._user_values(t, q, v) if self._user else self._U
        M, f, phi, phi_t, G, gamma, W, P_applied, P_damping, err_row, err = \
            self._kern().planar_terms(tab.ints, tab.floats, U, tab.mass, tab.n_constraints,
                                      self.p_rows, float(t), _vector(q), _vector(v))
        if err:
            raise ModelError(self.name_failure(COINCIDENT, int(err_row), t, q, v))
        if self._contacts:
            self._contact_friction_rows(q, W)
        return Terms(M, f, phi, phi_t, G, gamma, W, P_applied, P_damping)

    def potential(self, t, q):
        tab = self.tables
        V = float(self._kern().planar_potential(tab.ints, tab.floats, _vector(q)))
        return V + self._contact_energy(q) if self._contacts else V

    def tangential_bias(self, t, q, v):
        tab = self.tables
        bias = self._kern().planar_bias(tab.ints, tab.floats, self.p_rows, _vector(q),
                                        _vector(v))
        if self.contact_pairs:
            bias = bias + self._contact_bias(q, v)
        return bias

    # ------------------------------------------------------------------ contacts (obligation 12)
    def _contact_energy(self, q) -> float:
        """The contacts' elastic energy (J) at ``q``."""
        return float(sum(cc.potential(q) for cc in self._contacts))

    def contact_gaps(self, t, q):
        """Each contact's gap (m; < 0 penetrating), (n_contacts,)."""
        return np.array([cc.gap(q) for cc in self._contacts])

    def contact_approach(self, t, q, v):
        """Each contact's approach speed ``-d gap/dt`` (m/s), (n_contacts,)."""
        return np.array([cc.approach(q, v) for cc in self._contacts])

    def contact_forces(self, t, q, v, impact):
        """The contacts' generalized forces (n_q,), their damping power (W) and normal forces
        (N, (n_contacts,)) at the impact speeds ``impact`` (m/s)."""
        f = np.zeros(self.n_q)
        N = np.zeros(len(self._contacts))
        P = 0.0
        for c, (cc, d0) in enumerate(zip(self._contacts, impact, strict=True)):
            p_c, N[c] = cc.apply(q, v, d0, f)
            P += p_c
        return f, P, N

    def _contact_friction_rows(self, q, W) -> None:
        """The contacts' friction rows of ``W`` (p_rows, n_q): the slip along the tangent at
        the contact point (:meth:`CompiledContact.slip_row`)."""
        for cc, i in zip(self._contacts, self._contact_pair_of, strict=True):
            if i >= 0:
                W[int(self.w_row[i])] = cc.slip_row(q, self.n_q)

    def _contact_bias(self, q, v) -> np.ndarray:
        """``(dW/dt) v`` of the contacts' rows (p_rows,): a central difference of ``W v``
        along the motion ``dq/dt = v`` (step 1e-7 of the time scale ``|q| / |v|``)."""
        q, v = np.asarray(q, float), np.asarray(v, float)

        def rows_at(qq):
            W = np.zeros((self.p_rows, self.n_q))
            self._contact_friction_rows(qq, W)
            return W

        return rows_rate_bias(rows_at, q, v, v)

    # ------------------------------------------------------------------ the reference path
    def _bind(self):
        """Bind the element objects' coordinate offsets (and gravity's bodies) for one call of
        the Python reference path; returns the undo function."""
        saved = [(b, b.offset) for b in self.model.bodies]
        for b in self.model.bodies:
            b.offset = self.tables.offsets[b.name][0]
        unbound = [fe for fe in self.model.forces if getattr(fe, "_bodies", 0) is None]
        for fe in unbound:
            fe._bodies = list(self.model.bodies)

        def undo():
            for b, off in saved:
                b.offset = off
            for fe in unbound:
                fe._bodies = None

        return undo

    def reference_terms(self, t, q, v) -> Terms:
        """:meth:`terms` by the Python element methods (the reference of the kernels)."""
        undo = self._bind()
        try:
            m = self.n_constraints
            phi, phi_t, gamma = np.zeros(m), np.zeros(m), np.zeros(m)
            G = np.zeros((m, self.n_q))
            row = 0
            for j in self.model.joints:
                j.fill(t, q, v, row, phi, phi_t, G, gamma)
                row += j.n_rows
            W = np.zeros((self.p_rows, self.n_q))
            for i, j in enumerate(self._tangential):
                j.fill_tangential(q, v, int(self.w_row[i]), W)
            f = np.zeros(self.n_q)
            P_applied = P_damping = 0.0
            for fe in self.model.forces:
                p = fe.apply(t, q, v, f)
                if fe.category == "damping":
                    P_damping += p
                elif fe.category == "applied":
                    P_applied += p
            M = self._M
            for rotor in self.model.inertias:
                if not rotor.constant:  # rotors on translational joints: M(q), velocity term
                    dM, df = rotor.terms(q, v)
                    M = M + dM
                    f += df
            return Terms(M, f, phi, phi_t, G, gamma, W, P_applied, P_damping)
        finally:
            undo()

    def reference_potential(self, t, q) -> float:
        undo = self._bind()
        try:
            return float(sum(fe.potential(t, q) for fe in self.model.forces))
        finally:
            undo()

    def reference_bias(self, t, q, v) -> np.ndarray:
        undo = self._bind()
        try:
            return np.concatenate([np.atleast_1d(np.asarray(j.tangential_bias(q, v), float))
                                   for j in self._tangential]) if self._tangential \
                else np.zeros(0)
        finally:
            undo()
