"""The spatial model builder and its compiled system (the Python path of ``docs/design/spatial.md``
section 7, steps 1-2).

:class:`SpatialModel` collects bodies (:class:`~nonsmooth.spatial.elements.Body`), joints,
drivers and forces; :meth:`SpatialModel.compile` gives a :class:`SpatialSystem`, a
:class:`nonsmooth.system.System` with the kinematic map of unit quaternions:

========  ==================  ==========================================================
symbol    shape               per body ``b`` (of ``N``)
========  ==================  ==========================================================
q         (7 N + n_w,)        ``[r_b (3, m, world), p_b (4, unit quaternion w, x, y, z)]``,
                              then the angles (rad) of the ``n_w`` joints a rotational
                              spring acts in (their winding coordinates)
v         (6 N,)              ``[u_b (3, m/s, world), omega'_b (3, rad/s, body axes)]``
M         (6 N, 6 N)          ``diag(m_1 I, J_1, ..., m_N I, J_N)`` + rotors: constant
f         (6 N,)              ``[F_b, tau'_b - omega'_b x J_b omega'_b]``
========  ==================  ==========================================================

``dr/dt = u``, ``dp/dt = 1/2 p (x) (0, omega')`` (:func:`~nonsmooth.spatial.rotation.quat_rate`);
a winding coordinate's rate is its joint's ``dtheta/dt``;
the run normalizes ``p`` at its start, at phase ends and after the explicit steppers' steps
(:meth:`SpatialSystem.project`). Constraint rows from the joint primitives
(:mod:`nonsmooth.spatial.primitives`); the velocity-level ``G`` (m, 6 N) and ``gamma`` in
closed form. References: Nikravesh (1988), ch. 6 and 11; Haug (1989), ch. 9-11; Shabana,
*Computational Dynamics* (2010), ch. 7.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np

from ..contact.element import Contact, rigid_contacts_message
from ..driver_spline import spline_breaks
from ..errors import ModelError
from ..rank import equilibrate
from ..system import FrictionPair, System, Terms, rows_rate_bias
from . import elements as el
from . import rotor as rt
from .contact import CompiledContact, tangents
from .joint_friction import CompiledJointFriction
from .primitives import Kinematics
from .rotation import rotation_matrices

__all__ = ["SpatialModel", "SpatialSystem", "RedundancyWarning", "Redundancy", "equilibrate"]

#: Relative singular-value threshold of the redundancy check of ``G`` at the initial state,
#: after equilibration (:func:`equilibrate`: rows and columns scaled to unit largest entries,
#: so that a row's units, m or rad, and a body's size or distance from the origin do not
#: decide its rank).
RANK_TOL = 1e-9

#: The rows removed as redundant are chosen again during a run
#: (:meth:`SpatialSystem.row_choice`) when the kept rows' conditioning (smallest over largest
#: singular value of the equilibrated ``G``) falls below this fraction of the best the rows
#: allow there (the full set's ``r``-th singular value over its largest, ``r`` the rows kept):
#: a Bricard linkage's first choice is 0.4 of it at the start and 0 at a configuration of its
#: motion where the mechanism itself is regular.
RECHOOSE_FRACTION = 0.1

#: ... and never where that best is below this: all the rows together are nearly dependent
#: there (a lock-up, a dead point: a singular configuration of the mechanism), which no choice
#: of the rows removed avoids (the run's ``SINGULAR_RATIO``, ``nonsmooth.run.singular``).
SINGULAR_BEST = 1e-3

#: The values of ``redundant`` (``SpatialModel``, ``compile``, ``simulate``): what to do with
#: constraint rows that are combinations of the others at every configuration.
REDUNDANT_CHOICES = ("remove", "refuse")

#: The step (rad, and this fraction of the model's length scale) to the assembled
#: configurations next to the initial one at which the redundancy check compares the rank.
NEARBY_STEP = 1e-3

#: DOP853's default ``(rtol, atol)`` for a spatial model without friction pairs and without
#: central-differenced drivers (:meth:`SpatialSystem.default_tolerances`; the engine's is
#: ``(1e-11, 1e-13)``).
FRICTIONLESS_TOLERANCES = (5e-13, 5e-15)

#: The family's own default ``(rtol, atol)`` by method name (``run.methods.METHODS``' keys)
#: on such a model: measured for DOP853 only (``docs/design/spatial.md`` section 6).
FRICTIONLESS_DEFAULTS = {"DOP853": FRICTIONLESS_TOLERANCES}


#: ``dp/dt = 1/2 p (x) (0, omega')`` as a bilinear form: ``dp_i = C_ijk p_j omega'_k``
#: (``p = (w, x, y, z)``), so that every body's rate is one ``einsum``.
_QUATERNION_RATE = np.zeros((4, 4, 3))
for _i, _j, _k, _c in ((0, 1, 0, -1), (0, 2, 1, -1), (0, 3, 2, -1),
                       (1, 0, 0, 1), (1, 2, 2, 1), (1, 3, 1, -1),
                       (2, 0, 1, 1), (2, 1, 2, -1), (2, 3, 0, 1),
                       (3, 0, 2, 1), (3, 1, 1, 1), (3, 2, 0, -1)):
    _QUATERNION_RATE[_i, _j, _k] = 0.5 * _c


class RedundancyWarning(UserWarning):
    """Constraint rows were removed as redundant (``redundant="remove"``, the default of
    :class:`SpatialModel`); the message names them."""


class Redundancy(NamedTuple):
    """The rank analysis of ``G`` at an initial configuration
    (:meth:`SpatialSystem.redundancy`).

    Attributes
    ----------
    redundant : list of int
        Rows that are combinations of the others at the configurations next to the initial
        one too (a loop over-constrained by its joints: structural).
    singular : list of int
        Rows that are combinations of the others at the initial configuration only (a dead
        point, lock-up or change point: the configuration is singular).
    s : ndarray
        The singular values of the equilibrated ``G`` at the initial configuration.
    rank : int
        Its rank there; ``generic_rank`` the rank next to it.
    """

    redundant: list
    singular: list
    s: np.ndarray
    rank: int
    generic_rank: int


def _check_redundant(redundant, name: str) -> str:
    """``redundant`` checked against :data:`REDUNDANT_CHOICES`."""
    if redundant not in REDUNDANT_CHOICES:
        raise ModelError(f"spatial model '{name}': redundant = {redundant!r} is invalid; "
                         "allowed: 'remove' (drop the redundant rows, with a warning; the "
                         "default) or 'refuse' (name them in an error)")
    return redundant


class SpatialModel:
    """A spatial multibody model under construction (declarative: no integrator state).

    Examples
    --------
    >>> from nonsmooth.spatial import SpatialModel, Body, Spherical, Gravity, ground
    >>> mdl = SpatialModel("pendulum")
    >>> bob = mdl.add(Body("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0, 0, -1)))
    >>> pin = mdl.add(Spherical("pin", ground, bob, point=(0, 0, 0)))
    >>> g = mdl.add(Gravity())
    >>> system = mdl.compile()
    >>> system.n_q, system.n_v, system.n_constraints
    (7, 6, 3)
    """

    def __init__(self, name: str = "spatial model", redundant: str = "remove"):
        self.name = name
        #: what :meth:`compile` does with redundant constraint rows (its ``redundant``)
        self.redundant = _check_redundant(redundant, name)
        self.bodies: list[el.Body] = []
        self.joints: list[el.SpatialJoint] = []
        self.drivers: list[el.Driver] = []
        self.forces: list[el.ForceElement] = []
        self.rotors: list[rt.RotorInertia] = []
        self.contacts: list[Contact] = []

    def add(self, element):
        """Add a body, joint, driver, force element or geared rotor
        (:class:`~nonsmooth.spatial.rotor.RotorInertia`); returns it."""
        kinds = (el.Body, el.SpatialJoint, el.Driver, el.ForceElement, rt.RotorInertia, Contact)
        if isinstance(element, kinds):
            for other in self._elements():
                if other.name == element.name:
                    raise ModelError(
                        f"model '{self.name}': {_kind(element)} '{element.name}': the name "
                        f"is taken by a {_kind(other)} added before; give every body, joint, "
                        "driver, force and rotor a name of its own (the name prefixes its "
                        f"outputs, '{element.name}.x' ...)")
        if isinstance(element, el.Body):
            self.bodies.append(element)
        elif isinstance(element, el.SpatialJoint):
            self.joints.append(element)
        elif isinstance(element, el.Driver):
            self.drivers.append(element)
        elif isinstance(element, el.ForceElement):
            self.forces.append(element)
        elif isinstance(element, rt.RotorInertia):
            self.rotors.append(element)
        elif isinstance(element, Contact):
            if element.planar:
                raise ModelError(f"model '{self.name}': contact '{element.name}' has planar "
                                 "shapes (Circle, Hole, Line); a spatial model's contacts take "
                                 "Sphere, Box, Capsule, Cylinder, Ellipsoid and Plane")
            self.contacts.append(element)
        else:
            raise ModelError(f"model '{self.name}': cannot add {type(element).__name__}: "
                             "expected a nonsmooth.spatial Body, joint (Spherical, Revolute, "
                             "...), Driver, force (Gravity, Spring, RotationalSpring, Force, "
                             "Torque), "
                             "RotorInertia or nonsmooth.contact.Contact")
        return element

    def validate(self) -> None:
        """Collect every problem of the model into one :class:`ModelError`."""
        problems = []
        known = {id(b) for b in self.bodies}
        for e in self.joints + self.drivers + self.forces + self.rotors + self.contacts:
            for b in e.bodies():
                if id(b) not in known and not isinstance(b, el.Ground):
                    problems.append(f"{type(e).__name__} '{e.name}' uses body '{b.name}', which "
                                    "was not added to the model (model.add(body) first)")
        problems += self._joint_references()
        names = [e.name for e in self._elements()]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            problems.append(f"duplicate names {dup} (every body, joint, driver, force and rotor "
                            "needs a name of its own: it prefixes its outputs)")
        if not self.bodies:
            problems.append("the model has no bodies")
        if problems:
            raise ModelError(f"invalid spatial model '{self.name}': " + "; ".join(problems))

    def _elements(self) -> list:
        """Every element added: bodies, joints, drivers, forces and rotors, in that order."""
        return [*self.bodies, *self.joints, *self.drivers, *self.forces, *self.rotors,
                *self.contacts]

    def _joint_references(self) -> list[str]:
        """The drivers, rotational springs and rotors whose joint was not added."""
        joint_ids = {id(j) for j in self.joints}
        users = [("driver", "drives", d) for d in self.drivers]
        users += [("rotational spring", "acts in", fe) for fe in self.forces
                  if isinstance(fe, el.RotationalSpring)]
        users += [("rotor inertia", "gears", r) for r in self.rotors]
        return [f"{kind} '{e.name}' {verb} joint '{e.joint.name}', which was not added to the "
                "model" for kind, verb, e in users if id(e.joint) not in joint_ids]

    def compile(self, redundant: str | None = None) -> SpatialSystem:
        """Compile into a :class:`SpatialSystem` (validates first).

        Parameters
        ----------
        redundant : {"remove", "refuse"}, optional
            What to do with constraint rows that are combinations of the others (a closed loop
            over-constrained, such as a planar four-bar of five-row revolutes, or the Bricard
            linkage); default the model's own (``SpatialModel(redundant=)``, ``"remove"``).
            ``"remove"`` drops them, as MotionSolve and Adams do (found by a rank-revealing
            pass over the rows, drivers first, then the joints in the order added: a row is
            kept when it raises the rank of the rows kept before it) and warns with their
            names (:class:`RedundancyWarning`). The removed rows' multipliers are zero: the
            reactions are then one of the set of reactions that balance the loop (a
            statically indeterminate loop has no unique one), the motion is the same. Where
            the rows kept become nearly dependent along a run while all the rows keep their
            rank (the Bricard linkage: its redundant row is a different combination at each
            configuration), the run chooses the removed rows again there and goes on
            (:meth:`SpatialSystem.row_choice`; warned once, each choice in
            ``Result.row_sets``). ``"refuse"`` raises a :class:`ModelError` naming them.

        Raises
        ------
        ModelError
            The model is invalid; the rows are redundant and ``redundant="refuse"``; or the
            initial configuration is singular (a dead point, a lock-up, a change point: rows
            dependent there and not at the configurations next to it), whatever
            ``redundant`` says: the motion from it is not determined.

        Notes
        -----
        The rank is that of ``G`` equilibrated (:func:`equilibrate`), singular values above
        :data:`RANK_TOL` of the largest, at the initial configuration and at two assembled
        configurations next to it (:meth:`SpatialSystem.redundancy`).
        """
        redundant = self.redundant if redundant is None else _check_redundant(redundant,
                                                                                  self.name)
        self.validate()
        system = SpatialSystem(self)
        q0, _ = self.initial_state()
        found = system.redundancy(q0)
        if found.singular:
            system.refuse_singular(found)
        if found.redundant and redundant == "refuse":
            system.refuse_redundancy(found.redundant, found.s, found.generic_rank)
        if found.redundant:
            names = [system.constraint_names[k] for k in found.redundant]
            warnings.warn(RedundancyWarning(
                f"spatial model '{self.name}': removed the redundant constraint rows {names} "
                f"(rank {found.generic_rank} of {system.n_constraints} rows); their "
                "multipliers are zero, so the joints' reactions are one of the set that "
                "balances the loop (a statically indeterminate loop has no unique one); the "
                "motion is the same. SpatialModel(redundant='refuse') refuses them instead"),
                stacklevel=2)
            system.remove_rows(found.redundant)
        return system

    def initial_state(self) -> tuple[np.ndarray, np.ndarray]:
        """``(q0 (n_q,), v0 (6 N,))`` from the bodies' initial poses and velocities (angular
        velocities in body axes), ``q0`` the bodies' ``7 N`` coordinates followed by the wound
        joints' angles (:meth:`wound_joints`: 0, the initial configuration); ``simulate``
        projects ``v0`` onto the joints."""
        q = np.concatenate([np.concatenate((b.position, b.p0)) for b in self.bodies]
                           + [np.zeros(len(self.wound_joints()))])
        v = np.concatenate([np.concatenate((b.velocity, b.omega_body)) for b in self.bodies])
        return q, v

    def wound_joints(self) -> list:
        """The joints whose angle is tracked continuously (a winding coordinate each, after
        the bodies' coordinates): those a :class:`~nonsmooth.spatial.elements.RotationalSpring`
        acts in, in the order the joints were added."""
        sprung = {id(fe.joint) for fe in self.forces if isinstance(fe, el.RotationalSpring)}
        return [j for j in self.joints if id(j) in sprung]


class SpatialSystem(System):
    """A compiled :class:`SpatialModel` (numpy terms; the model's objects are only read).

    Coordinates ``<body>.x/.y/.z/.qw/.qx/.qy/.qz``, then ``<joint>.angle`` (rad) of each joint
    a rotational spring acts in (its winding coordinate: ``d/dt`` the joint's rate about its
    axis; :meth:`project` sets it to the geometric angle plus the whole turns it counts);
    velocities ``<body>.vx/.vy/.vz`` (world) and ``<body>.wx/.wy/.wz`` (body axes); constraint
    rows ``<joint>.x`` ... (the joints'
    docstrings), drivers' rows by their name (kind ``"driver"``). Element outputs
    (:meth:`element_outputs`): world angular velocities, joint reactions, joint coordinates,
    driving torques and forces.
    """

    def __init__(self, model: SpatialModel):
        self.model = model
        bodies = model.bodies
        self.n_bodies = N = len(bodies)
        index = {id(b): i for i, b in enumerate(bodies)}

        def index_of(body) -> int:
            return -1 if isinstance(body, el.Ground) else index[id(body)]

        self.n_v = 6 * N
        self.coordinate_names = [f"{b.name}.{c}" for b in bodies
                                 for c in ("x", "y", "z", "qw", "qx", "qy", "qz")]
        self.velocity_names = [f"{b.name}.{c}" for b in bodies
                               for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
        M = np.zeros((6 * N, 6 * N))
        self._J = np.array([b.J for b in bodies])
        for i, b in enumerate(bodies):
            M[6 * i:6 * i + 3, 6 * i:6 * i + 3] = b.mass * np.eye(3)
            M[6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = b.J
        # geared rotors (nonsmooth.spatial.rotor): constant rank-one terms, M stays constant
        self._rotors = [r.compile(index_of) for r in model.rotors]
        self._rotor_rows = [cr.rows(6 * N)[1] for cr in self._rotors]
        for cr in self._rotors:
            M += cr.mass_matrix(6 * N)
        self._M = M
        self.joint_rows: dict[str, el.JointRows] = {}
        self._blocks = []  # (row, primitive) of the joints, (row, driver, primitive)
        names, kinds = [], []
        for j in model.joints:
            rows = j.compile(index_of)
            self.joint_rows[j.name] = rows
            row = len(names)
            for prim in rows.primitives:
                self._blocks.append((row, prim))
                row += prim.n_rows
            names += rows.names
            kinds += ["joint"] * len(rows.names)
        self._drivers = []
        for d in model.drivers:
            prim = self.joint_rows[d.joint.name].coordinates[d.coordinate]
            self._drivers.append((len(names), d, prim))
            names.append(d.name)
            kinds.append("driver")
        self.constraint_names, self.constraint_kinds = names, kinds
        self._all_names = list(names)  # every row written, before any is removed
        self._all_kinds = list(kinds)
        self._keep = None  # the rows kept (indices into _all_names), None: all
        self._keep0 = None  # the rows kept by compile (a run starts from them: restore_rows)
        # frictional joints (nonsmooth.spatial.joint_friction): one pair each
        self.pairs: list[FrictionPair] = []
        self._friction = []
        for j in model.joints:
            if j.friction is None:
                continue
            jr = self.joint_rows[j.name]
            axis_b = j.body_b.local_vector(j.axis_b) if isinstance(j, el.Universal) else None
            for yoke in j.friction.yokes:  # one pair (a universal joint: one per cross axis)
                self.pairs.append(j.friction.make_pair(j.name, yoke))
                self._friction.append(CompiledJointFriction(
                    j.friction, jr.a, jr.b, j.frame_in_a(), jr.s_a, jr.s_b, yoke, axis_b))
        # compliant contacts (obligation 12; nonsmooth.spatial.contact), in Python: a model
        # with contacts runs on the compiled stage after these terms, not the compiled phases;
        # a contact with friction has a pair of dimension 2 after the joints' (its load: the
        # contact's normal force)
        self._compile_contacts(model, index_of)
        self._finish()
        self.variable_norm_weights = any(fr.variable for fr in self._friction)
        # the wound joints' winding coordinates (q[7 N + w]): (joint name, angle primitive)
        self._wound = [(j.name, self.joint_rows[j.name].coordinates["angle"])
                       for j in model.wound_joints()]
        self.coordinate_names += [f"{name}.angle" for name, _ in self._wound]
        self.n_q = 7 * N + len(self._wound)
        winding = {name: 7 * N + w for w, (name, _) in enumerate(self._wound)}
        self._forces = [fe.compile(index_of, bodies) for fe in model.forces]
        for cfe, fe in zip(self._forces, model.forces, strict=True):
            if isinstance(fe, el.RotationalSpring):
                cfe.coordinate = winding[fe.joint.name]
        self._tables = None  # the compiled kernels' tables (made on first use)
        self._W = np.zeros((0, self.n_v))
        self._none = np.zeros(0)

    def _compile_contacts(self, model: SpatialModel, index_of) -> None:
        """The model's contacts (``nonsmooth.spatial.contact``) and their friction pairs after
        the joints' (``_contact_rows``: ``(pair, contact, kind)``, kind ``"slide"``, ``"spin"``,
        ``"rolling"`` or ``"patch"``: the sliding and the spin over a patch, one pair)."""
        self._contacts = [CompiledContact(c, index_of(c.body_a), index_of(c.body_b))
                          for c in model.contacts]
        self.contact_names = tuple(c.name for c in model.contacts)
        self._contact_rows = []
        # rigid contacts (normal="rigid"): no force and no friction pair; a time-stepping run
        # reads their points' rows (rigid_contact_rows)
        self.rigid_contacts = tuple(c for c, cc in enumerate(self._contacts) if cc.rigid)
        for c, contact in enumerate(model.contacts):
            if self._contacts[c].rigid:
                continue
            pair = contact.friction_pair()
            kinds = [] if pair is None else [("patch" if contact.patch else "slide", pair)]
            for kind, pr in kinds + contact.torque_pairs():
                self._contact_rows.append((len(self.pairs), c, kind))
                self.pairs.append(pr)
        self.contact_pairs = tuple((i, c) for i, c, _ in self._contact_rows)
        self._contact_tables = self._contact_last = None  # (contact_kernels, made on use)
        self._contact_impact = np.zeros(len(self._contacts))  # (the last impact speeds given)
        self._no_stick = np.ones(len(self.pairs))  # (modes without a sticking pair: no bias)

    # ------------------------------------------------------------------ compiled
    @property
    def kernel_tables(self):
        """The model as the compiled kernels' tables
        (:func:`nonsmooth.spatial.tables.spatial_tables`), made once."""
        if self._tables is None:
            from .tables import spatial_tables

            self._tables = spatial_tables(self)
            self._user_fast = [(e, getattr(fn, "fast", fn)) for e, fn in self._tables.user]
        return self._tables

    #: The compiled family takes pairs of dim > 1 (a spherical or cylindrical joint's
    #: friction): ``Dynamics`` passes it the run's blocks of the plan (:meth:`compiled_family`).
    vector_family = True

    def compiled_family(self, size: int, run_blocks=None, home=None):
        """The compiled kernels and phases (:class:`~nonsmooth.spatial.family.SpatialFamily`;
        obligation 4) for a run whose evaluation buffer has ``size`` floats; with vector pairs
        ``run_blocks``, the slices of the plan's ``e_ref`` and ``stop_speed``, and ``home``,
        the run's plan (as ``planar_family.planar_family``). The frictional joints' rows of
        ``W`` and their tangential bias are written by the kernels (the table's
        ``FRIC_TURN`` and ``FRIC_SLIDE`` rows), and the contacts' rows
        (``contact_kernels.CONTACT``: their forces, rows, loads and gaps)."""
        if self.variable_norm_weights:  # weights of q: the Python stage (Terms.norm_weights)
            return None
        from .family import spatial_family

        return spatial_family(self, size, run_blocks, home)

    @property
    def has_user_functions(self) -> bool:
        """Whether a driver's motion or a force or torque is a user function (obligation 9):
        the compiled DOP853 phase then calls back for :meth:`user_values`."""
        return bool(self.kernel_tables.user)

    def user_values(self, t, q, v):
        """The user functions' values at ``(t, q, v)``, (n_el, 3): a driver's ``(f, df/dt,
        d2f/dt2)``, a force's or torque's three components, in its table row (a new array);
        None without user functions.

        Called back once per evaluation by the compiled phase, so the user functions are called
        unchecked (``fn.fast``: no per-call shape or finiteness test; one copy of ``q`` and
        ``v`` for them all, so that none writes into the run's state) and the values checked
        once together; a wrong or non-finite value, or a
        function that raises, is then named by the checking wrappers
        (``elements._function3``, ``Driver.motion``), which run again."""
        tab = self.kernel_tables
        if not tab.user:
            return None
        U = np.zeros((tab.ints.shape[0], 3))
        q, v = q.copy(), v.copy()  # the run's state is the run's
        try:
            total = 0.0
            for e, fast in self._user_fast:
                a, b, c = fast(t, q, v)
                U[e, 0], U[e, 1], U[e, 2] = a, b, c
                total += a + b + c
            checked = bool(total - total == 0.0)  # every value finite (or a sum overflowing)
        except Exception:  # named by the checking wrappers below
            checked = False
        if not checked:
            for e, fn in tab.user:
                U[e] = fn(t, q, v)
        return U

    def name_failure(self, status: int, row: int, t, q, v) -> str:
        """A kernel's failure in words: ``COINCIDENT`` names the spring of table row ``row``;
        the others as :meth:`System.name_failure`."""
        from ..core.status import COINCIDENT

        if status == COINCIDENT and 0 <= row < len(self.kernel_tables.names):
            return (f"spring '{self.kernel_tables.names[row]}': its two points coincide at "
                    f"t = {t:.10g} s; its direction is undefined")
        return super().name_failure(status, row, t, q, v)

    def animate(self, result, path, fps: float = 30.0, **options):
        """``result``'s motion drawn to ``path`` (:func:`nonsmooth.spatial.animation.animate`)."""
        from .animation import animate

        return animate(result, path, fps, **options)

    def kernel_key(self) -> str:
        """The shipped kernels of the family (``nonsmooth.spatial.kernels``; obligation 10)."""
        return "nonsmooth.spatial.kernels"

    def default_tolerances(self, method: str) -> tuple[float, float] | None:
        """DOP853 (``method`` the method's name) on a frictionless model whose drivers'
        derivatives are given (not central differences): :data:`FRICTIONLESS_TOLERANCES`
        (obligation 11, :data:`FRICTIONLESS_DEFAULTS`); else the method's own.
        Then the right-hand side is smooth to round-off, and DOP853's error at the outputs is
        its dense output's, 10-20x its steps' own at rtol 1e-11 (``docs/design/spatial.md`` section
        6): 5e-13 brings the outputs to the steps' accuracy at 1.4x the evaluations (the
        double pendulum, gyroscope, four-bar and robot arm alike). With friction pairs
        (events, ``|lambda_N|`` loads, iterated norm loads) or a ``Driver(position=f)`` whose
        acceleration is a central difference (about 1e-9 relative: a MotionSolve joint
        motion took 23x the steps at 5e-13) the engine's 1e-11 stays."""
        own = FRICTIONLESS_DEFAULTS.get(str(method))
        if (own is not None and not self.pairs
                and not any(d.differenced for d in self.model.drivers)):
            return own
        return None

    # ------------------------------------------------------------------ the kinematic map
    def qdot(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``dq/dt`` (n_q,): ``dr/dt = u``, ``dp/dt = 1/2 p (x) (0, omega')`` per body, then
        each winding coordinate's rate, the joint's ``dtheta/dt`` (linear in ``v``)."""
        N = self.n_bodies
        P, V = q[:7 * N].reshape(N, 7), v.reshape(N, 6)
        out = np.empty((N, 7))
        out[:, :3] = V[:, :3]
        out[:, 3:] = np.einsum("ijk,nj,nk->ni", _QUATERNION_RATE, P[:, 3:], V[:, 3:])
        if not self._wound:
            return out.reshape(-1)
        K = self.kinematics(q, v)
        rates = [float(prim.evaluate(K, self.n_v)[1] @ v) for _, prim in self._wound]
        return np.concatenate((out.reshape(-1), rates))

    def project(self, q: np.ndarray) -> np.ndarray:
        """``q`` with each body's quaternion normalized, ``p / |p|``, and each winding
        coordinate set to its joint's geometric angle plus the whole turns it counts
        (:func:`~nonsmooth.spatial.elements.unwrapped`: the integration's error in it removed)
        (a new array)."""
        N = self.n_bodies
        q = np.array(q, dtype=float)
        P = q[:7 * N].reshape(N, 7)
        P[:, 3:] /= np.sqrt(np.einsum("ij,ij->i", P[:, 3:], P[:, 3:]))[:, None]
        if self._wound:
            K = self.kinematics(q, np.zeros(self.n_v))
            for w, (_, prim) in enumerate(self._wound):
                theta = prim.evaluate(K, self.n_v)[0]
                q[7 * N + w] = el.unwrapped(theta, float(q[7 * N + w]))
        return q

    @property
    def constant_mass(self) -> np.ndarray:
        """``diag(m_1 I, J_1, ...)`` (6 N, 6 N) plus the geared rotors' rank-one terms
        (:mod:`nonsmooth.spatial.rotor`; then not block diagonal): constant in these
        coordinates."""
        return self._M

    # ------------------------------------------------------------------ terms
    def kinematics(self, q: np.ndarray, v: np.ndarray) -> Kinematics:
        """The bodies' rotations, positions and velocities at ``(q, v)``."""
        return Kinematics(self.n_bodies, np.asarray(q, float), np.asarray(v, float))

    #: Whether :meth:`terms` takes the compiled kernels (``spatial.kernels.spatial_terms``,
    #: the same arithmetic; ``tests/spatial/test_spatial_compiled.py`` compares them); False: the
    #: Python path (:meth:`python_terms`) everywhere.
    compiled_terms = True

    def terms(self, t, q, v):
        """The terms at ``(t, q, v)`` (:class:`~nonsmooth.system.Terms`): by the compiled
        kernels (:attr:`compiled_terms`), one call instead of the elements' Python loop, for
        the run's set-up, projections and energies; a spring whose points coincide is named
        by the Python path."""
        if not self.compiled_terms:
            return self.python_terms(t, q, v)
        from . import kernels as sk

        tab = self.kernel_tables
        q = np.ascontiguousarray(q, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        U = self.user_values(t, q, v)
        if U is None:
            U = np.zeros((tab.ints.shape[0], 3))
        f, phi, phi_t, gamma, G, P_a, P_d, err = sk.spatial_terms(
            tab.ints, tab.floats, tab.bodies, U, float(t), q, v, self.n_constraints)
        if err:
            return self.python_terms(t, q, v)
        if not self.pairs:
            return Terms(self._M, f, phi, phi_t, G, gamma, self._W, P_a, P_d)
        W = self._compiled_friction(q, v)[0] if self._friction else np.zeros(
            (self.p_rows, self.n_v))
        if self._contacts:
            self._contact_friction_rows(q, v, W)
        weights = self._norm_weights(self.kinematics(q, v)) if self.variable_norm_weights \
            else None
        return Terms(self._M, f, phi, phi_t, G, gamma, W, P_a, P_d, weights)

    def _compiled_friction(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`friction_rows` by the kernels (``kernels.spatial_friction_terms``): ``W``
        (p_rows, n_v) and the tangential bias (p_rows,) at ``(q, v)``."""
        from .kernels import spatial_friction_terms

        tab = self.kernel_tables
        return spatial_friction_terms(tab.ints, tab.floats, np.ascontiguousarray(q, dtype=float),
                                      np.ascontiguousarray(v, dtype=float), self.p_rows)

    def python_terms(self, t, q, v):
        """:meth:`terms` element by element in Python (the reference of the kernels)."""
        K = self.kinematics(q, v)
        N = self.n_bodies
        f = np.zeros(self.n_v)
        wb = K.wb[:N]
        Jw = np.einsum("bij,bj->bi", self._J, wb)
        F = f.reshape(N, 6)  # - omega' x J omega' (no work)
        F[:, 3] -= wb[:, 1] * Jw[:, 2] - wb[:, 2] * Jw[:, 1]
        F[:, 4] -= wb[:, 2] * Jw[:, 0] - wb[:, 0] * Jw[:, 2]
        F[:, 5] -= wb[:, 0] * Jw[:, 1] - wb[:, 1] * Jw[:, 0]
        for cr, k_row in zip(self._rotors, self._rotor_rows, strict=True):
            cr.apply(K, v, f, k_row)  # a virtual rotor's gyroscopic torque (no work)
        P_applied = P_damping = 0.0
        for fe in self._forces:
            pa, pd = fe.apply(K, t, f)
            P_applied += pa
            P_damping += pd
        m = len(self._all_names)
        phi, phi_t, gamma = np.zeros(m), np.zeros(m), np.zeros(m)
        G = np.zeros((m, self.n_v))
        for row, prim in self._blocks:
            prim.fill(K, row, phi, G, gamma)
        for row, d, prim in self._drivers:
            d.fill(prim, K, t, row, phi, phi_t, G, gamma)
        if self._keep is not None:  # rows removed as redundant
            keep = self._keep
            phi, phi_t, G, gamma = phi[keep], phi_t[keep], G[keep], gamma[keep]
        if not self.pairs:
            return Terms(self._M, f, phi, phi_t, G, gamma, self._W, P_applied, P_damping)
        W = self.friction_rows(K)[0]
        if self._contacts:
            self._contact_friction_rows(q, v, W)
        return Terms(self._M, f, phi, phi_t, G, gamma, W, P_applied, P_damping,
                     self._norm_weights(K))

    def potential(self, t, q):
        """Gravity's and the springs' potential energy (J) at ``q``: by the compiled kernels
        (:attr:`compiled_terms`), else :meth:`python_potential`."""
        if not self.compiled_terms:
            return self.python_potential(t, q)
        from .kernels import spatial_element_potentials

        tab = self.kernel_tables  # (no contact rows: their energy is added below)
        Q = np.ascontiguousarray(q, dtype=float).reshape(1, -1)
        V = float(spatial_element_potentials(tab.ints, tab.floats, tab.bodies, Q,
                                             np.zeros(1))[0])
        return V + self._contact_energy(q) if self._contacts else V

    def python_potential(self, t, q):
        """:meth:`potential` element by element in Python."""
        K = self.kinematics(q, np.zeros(self.n_v))
        return float(sum(fe.potential(K) for fe in self._forces)) + self._contact_energy(q)

    # ------------------------------------------------------------------ contacts (obligation 12)
    def _contact_energy(self, q) -> float:
        """The contacts' elastic energy (J) at ``q`` (rigid contacts have none)."""
        if len(self.rigid_contacts) == len(self._contacts):
            return 0.0
        K = self.kinematics(np.asarray(q, float), np.zeros(self.n_v))
        return float(sum(cc.potential(K) for cc in self._contacts))

    #: Whether the Python path evaluates the contacts by one compiled call (``kernels.
    #: spatial_contact_terms``, the compiled phases' arithmetic; ``tests/contact/
    #: test_spatial_contact.py`` compares them); False: element by element in Python
    #: (``spatial.contact``, the reference).
    compiled_contacts = True

    @property
    def contact_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The contacts as rows of the kernel tables (``contact_kernels.contact_tables``). A
        rigid contact's row is a linear law of zero stiffness and damping: the compiled
        evaluation gives its gap and no force (an event-driven run's phase of flight ends at
        its touch, a step past it penetrates without a force)."""
        if self._contact_tables is None:
            from ..contact.laws import LINEAR
            from .contact_kernels import contact_tables

            ints, floats = contact_tables(self)
            for c in self.rigid_contacts:
                ints[c, 8] = LINEAR
                floats[c, 12:15] = 0.0
            self._contact_tables = (ints, floats)
        return self._contact_tables

    def _contact_call(self, q, v, impact=None):
        """``kernels.spatial_contact_terms`` at ``(q, v)`` with the impact speeds ``impact``;
        None: the gaps, approach speeds and friction rows are asked for, which do not depend on
        them: the last call's at the same ``(q, v)``, or a call with the last impact speeds
        given (so that an evaluation's rows, then its forces, take one call)."""
        q = np.ascontiguousarray(q, dtype=float)
        v = np.ascontiguousarray(v, dtype=float)
        state = q.tobytes() + v.tobytes()
        last = self._contact_last
        if impact is None:
            if last is not None and last[0] == state:
                return last[2]
            impact = self._contact_impact
        else:
            impact = np.ascontiguousarray(impact, dtype=float)
            if last is not None and last[0] == state and np.array_equal(last[1], impact):
                return last[2]
            self._contact_impact = impact.copy()
        from .kernels import spatial_contact_terms

        ci, cf = self.contact_tables
        if self._no_stick.size != len(self.pairs):
            self._no_stick = np.ones(len(self.pairs))
        out = spatial_contact_terms(ci, cf, q, v, impact, self._no_stick, self.n_v,
                                    self.p_rows)
        self._contact_last = (state, impact, out)
        return out

    def contact_gaps(self, t, q):
        """Each contact's smallest gap (m), (n_contacts,)."""
        if self.compiled_contacts:
            return self._contact_call(q, np.zeros(self.n_v))[3].copy()
        K = self.kinematics(np.asarray(q, float), np.zeros(self.n_v))
        return np.array([cc.gap(K) for cc in self._contacts])

    def contact_approach(self, t, q, v):
        """Each contact's approach speed at its deepest point (m/s), (n_contacts,)."""
        if self.compiled_contacts:
            return self._contact_call(q, v)[4].copy()
        K = self.kinematics(np.asarray(q, float), np.asarray(v, float))
        return np.array([cc.approach(K) for cc in self._contacts])

    def contact_forces(self, t, q, v, impact):
        """The contacts' generalized forces (n_v,), damping power (W) and normal forces (N,
        (n_contacts,)) at the impact speeds ``impact`` (m/s). A model with a rigid contact
        has none (its impulses are a time step's): a ``ModelError``."""
        if not self._contacts:
            return np.zeros(self.n_v), 0.0, np.zeros(0)
        if self.rigid_contacts:
            raise ModelError(rigid_contacts_message(self.model.name, [
                self._contacts[c].name for c in self.rigid_contacts]))
        if self.compiled_contacts:
            f, P, N = self._contact_call(q, v, impact)[:3]
            return f.copy(), float(P), N.copy()
        f = np.zeros(self.n_v)
        N = np.zeros(len(self._contacts))
        K = self.kinematics(np.asarray(q, float), np.asarray(v, float))
        P = 0.0
        for c, (cc, d0) in enumerate(zip(self._contacts, impact, strict=True)):
            p_c, N[c] = cc.apply(K, d0, f)
            P += p_c
        return f, P, N

    def rigid_contact_rows(self, t, q, margin: float | None = None) -> list:
        """The rigid contacts' points at ``q`` (the model-family contract's obligation 12):
        ``[(contact, e, mu, gaps (k,), W_N (k, n_v), W_T (k, 2, n_v))]`` for each contact of
        :attr:`rigid_contacts`: its restitution and friction coefficients (-; mu 0 without
        friction) and :meth:`CompiledContact.rigid_rows` (the gaps in m, the normal and
        tangent velocity rows at each point), the points of a multi-point pair within
        ``margin`` (m; default each contact's)."""
        if self.compiled_contacts:  # one compiled call (rigid_kernels), the same arithmetic
            margins = np.array([self._contacts[c].margin if margin is None else margin
                                for c in self.rigid_contacts], dtype=float)
            gaps, W, _, counts, _ = self._rigid_call(q, np.zeros(self.n_v), margins)
            out, start = [], 0
            for c, k in zip(self.rigid_contacts, counts, strict=True):
                cc, end = self._contacts[c], start + int(k)
                out.append((c, float(cc.law[0]), float(cc.contact.mu or 0.0),
                            gaps[start:end].copy(), W[start:end, 0].copy(),
                            W[start:end, 1:].copy()))
                start = end
            return out
        K = self.kinematics(np.asarray(q, float), np.zeros(self.n_v))
        out = []
        for c in self.rigid_contacts:
            cc = self._contacts[c]
            out.append((c, float(cc.law[0]), float(cc.contact.mu or 0.0),
                        *cc.rigid_rows(K, self.n_v, margin)))
        return out

    def _rigid_call(self, q, v, margins):
        """``rigid_kernels.rigid_rows_into`` of the rigid contacts at ``(q, v)``: ``(gaps,
        W (P, 3, n_v), bias (P, 3), counts, exact)`` over their ``P`` points."""
        from ..contact.geometry import MAX_POINTS
        from .rigid_kernels import rigid_rows_into

        contacts = np.asarray(self.rigid_contacts, dtype=np.int64)
        P = MAX_POINTS * contacts.size
        gaps, W, bias = np.empty(P), np.empty((P, 3, self.n_v)), np.zeros((P, 3))
        counts, exact = np.zeros(contacts.size, np.int64), np.zeros(contacts.size, np.int64)
        ci, cf = self.contact_tables
        n = rigid_rows_into(ci, cf, contacts, np.ascontiguousarray(q, dtype=float),
                            np.ascontiguousarray(v, dtype=float),
                            np.ascontiguousarray(margins, dtype=float), gaps, W, bias, counts,
                            exact)
        return gaps[:n], W[:n], bias[:n], counts, exact

    @property
    def autonomous(self) -> bool:
        """Whether the terms depend on time only through the state (the contract's obligation
        12): no driver and no user function (forces or torques of time)."""
        return not self.driver_rows.size and not self.has_user_functions

    def rigid_contact_bias(self, t, q, v):
        """``(dW_N/dt) v`` (P,) and ``(dW_T/dt) v`` (P, 2) of every point of
        :meth:`rigid_contact_rows` (``margin`` infinite) where every rigid contact has it in
        closed form (:meth:`CompiledContact.rigid_bias`: a sphere or a box on the ground's
        plane), else None (obligation 12)."""
        if self.compiled_contacts and self.rigid_contacts:  # (rigid_kernels)
            _, _, bias, _, exact = self._rigid_call(q, v, np.full(len(self.rigid_contacts),
                                                                  np.inf))
            return (bias[:, 0].copy(), bias[:, 1:].copy()) if exact.all() else None
        K = self.kinematics(np.asarray(q, float), np.asarray(v, float))
        parts = [self._contacts[c].rigid_bias(K) for c in self.rigid_contacts]
        if not parts or any(p is None for p in parts):
            return None
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def rigid_contact_blocks(self, t, q, v, horizon: float):
        """The rigid contacts' points whose gap predicted ``horizon`` (s) ahead is closed
        (the contract's obligation 12, :meth:`System.rigid_contact_blocks`): a broad phase on
        bounding spheres and the sphere-sphere and sphere-plane pairs vectorised
        (:class:`~nonsmooth.spatial.rigid_blocks.RigidBatch`); None when the bodies' velocities
        are not six per body (winding coordinates)."""
        if self.n_v != 6 * self.n_bodies:
            return None
        batch = getattr(self, "_rigid_batch", None)
        if batch is None:
            from .rigid_blocks import RigidBatch

            batch = self._rigid_batch = RigidBatch(self._contacts, self.n_bodies)
        K = self.kinematics(np.asarray(q, float), np.asarray(v, float))
        return batch.blocks(K, np.asarray(v, float), self.n_v, float(horizon))

    def _contact_friction_rows(self, q, v, W) -> None:
        """The contacts' friction rows of ``W`` (their slip velocity in the tangent plane at
        the friction point, :meth:`CompiledContact.slip_rows`) into ``W`` (p_rows, n_v)."""
        if self.compiled_contacts:
            Wc = self._contact_call(q, v)[5]
            for i, _c, _kind in self._contact_rows:
                w, d = int(self.w_row[i]), int(self.pair_dim[i])
                W[w:w + d] = Wc[w:w + d]
            return
        K = self.kinematics(np.asarray(q, float), np.asarray(v, float))
        for i, c, kind in self._contact_rows:
            w = int(self.w_row[i])
            rows = self._contacts[c].slip_rows(K, self.n_v, kind)
            W[w:w + rows.shape[0]] = rows

    def _contact_bias(self, q, v) -> np.ndarray:
        """``(dW/dt) v`` of the contacts' rows (p_rows,): a central difference of ``W`` along
        the motion (``dq/dt = qdot(q, v)``, step 1e-7 of the time scale ``|q| / |dq|``)."""
        q, v = np.asarray(q, float), np.asarray(v, float)
        if self.compiled_contacts:  # the kernels' central difference (the compiled phases')
            from .kernels import spatial_contact_terms

            ci, cf = self.contact_tables
            return spatial_contact_terms(ci, cf, np.ascontiguousarray(q),
                                         np.ascontiguousarray(v), self._contact_impact,
                                         np.zeros(len(self.pairs)), self.n_v, self.p_rows)[6]

        def rows_at(qq):
            W = np.zeros((self.p_rows, self.n_v))
            self._contact_friction_rows(qq, v, W)
            return W

        return rows_rate_bias(rows_at, q, self.qdot(q, v), v)

    def friction_rows(self, K: Kinematics) -> tuple[np.ndarray, np.ndarray]:
        """The frictional joints' ``W`` (p_rows, n_v) and tangential bias ``(dW/dt) v``
        (p_rows,) at the kinematics ``K`` (:mod:`nonsmooth.spatial.joint_friction`)."""
        W = np.zeros((self.p_rows, self.n_v))
        bias = np.zeros(self.p_rows)
        for fr, row in zip(self._friction, self.w_row[:len(self._friction)], strict=True):
            fr.fill(K, W, bias, int(row))
        return W, bias

    def _norm_weights(self, K: Kinematics) -> np.ndarray | None:
        """The norm terms' weights at ``K`` (flat, :attr:`System.pair_norms`' order) when some
        depend on ``q`` (``overlap_delta``); else None (the pairs' own)."""
        if not self.variable_norm_weights:
            return None
        return np.concatenate([fr.norm_weights(K) for fr in self._friction])

    def tangential_bias(self, t, q, v):
        """``(dW/dt) v`` (p_rows,) of the frictional joints (closed form; by the kernels with
        :attr:`compiled_terms`)."""
        if not self.pairs:
            return self._none
        if not self._friction:
            bias = np.zeros(self.p_rows)
        elif self.compiled_terms:
            bias = self._compiled_friction(q, v)[1]
        else:
            bias = self.friction_rows(self.kinematics(q, v))[1]
        if self._contact_rows:
            bias = bias + self._contact_bias(q, v)
        return bias

    def motion_breaks(self, t0: float, t_end: float) -> np.ndarray:
        """The breakpoints of the drivers' piecewise polynomials in ``(t0, t_end)`` (s),
        repeated over the periods of a periodic one (:meth:`System.motion_breaks`)."""
        return np.unique(np.concatenate(
            [np.zeros(0)] + [spline_breaks(d.spline, t0, t_end) for d in self.model.drivers
                             if d.spline is not None]))

    def given_motions(self) -> list[tuple]:
        """The drivers given ``position=(f, df, ddf)`` (:meth:`System.given_motions`)."""
        return [(d.name, "rad" if d.coordinate == "angle" else "m", *d.given_motion)
                for d in self.model.drivers if d.given_motion is not None]

    # ------------------------------------------------------------------ redundancy
    def check_redundancy(self, q0: np.ndarray, v0: np.ndarray, t0: float = 0.0) -> None:
        """Raise :class:`ModelError` when ``G`` (m, 6 N) at ``(t0, q0)`` is rank deficient:
        a singular configuration, or rows that are combinations of the others
        (:meth:`redundancy`)."""
        found = self.redundancy(q0, t0)
        if found.singular:
            self.refuse_singular(found, t0)
        if found.redundant:
            self.refuse_redundancy(found.redundant, found.s, found.generic_rank)

    def _G(self, t: float, q: np.ndarray) -> np.ndarray:
        """``G`` (m, 6 N) at ``(t, q)`` (the Python path)."""
        return self.python_terms(t, q, np.zeros(self.n_v)).G

    def dependent_rows(self, q0: np.ndarray, t0: float = 0.0) -> tuple[list, np.ndarray, int]:
        """The rows of ``G`` at ``(t0, q0)`` that are combinations of the others: ``(rows,
        singular values, rank)`` of the equilibrated ``G`` (:func:`equilibrate`). The rank
        counts the singular values above :data:`RANK_TOL` times the largest; the rows are
        found by one pass, drivers first, then the joints' rows in order, a row kept when it
        raises the rank of those kept before it (so a driver is never the one removed while a
        joint row can be)."""
        return self._dependent(self._G(t0, q0))

    def _dependent(self, G: np.ndarray, rows=None) -> tuple[list, np.ndarray, int]:
        """:meth:`dependent_rows` of the matrix ``G``; with ``rows`` (row indices), of the
        rows ``G[rows]`` alone (the rows returned are indices into ``G``)."""
        rows = list(range(G.shape[0])) if rows is None else list(rows)
        m = len(rows)
        if m == 0:
            return [], np.zeros(0), 0
        A = equilibrate(G[rows])[0]
        s = np.linalg.svd(A, compute_uv=False)
        tol = RANK_TOL * max(float(s[0]), 1e-300)
        rank = int(np.sum(s > tol))
        if rank == m:
            return [], s, rank
        kinds = [self.constraint_kinds[k] for k in rows]
        order = ([i for i in range(m) if kinds[i] == "driver"]
                 + [i for i in range(m) if kinds[i] != "driver"])
        kept, dependent = [], []
        for i in order:
            if int(np.sum(np.linalg.svd(A[kept + [i]], compute_uv=False) > tol)) > len(kept):
                kept.append(i)
            else:
                dependent.append(rows[i])
        return sorted(dependent), s, rank

    def redundancy(self, q0: np.ndarray, t0: float = 0.0) -> Redundancy:
        """The rank analysis of ``G`` at the initial configuration ``(t0, q0)``
        (:class:`Redundancy`). Rows dependent at ``q0`` are told apart by the rank at two
        assembled configurations next to it (:meth:`nearby_configuration`): rows dependent
        there too are redundant (a property of the loop: the four-bar of five-row revolutes
        at every angle); the rank lost at ``q0`` alone is a singular configuration."""
        G0 = self._G(t0, q0)
        dependent, s, rank = self._dependent(G0)
        if not dependent:
            return Redundancy([], [], s, rank, rank)
        best = None  # (rank, G) at the nearby configurations
        for seed in (0, 1):
            q1 = self.nearby_configuration(q0, t0, np.random.default_rng(seed))
            if q1 is not None:
                G1 = self._G(t0, q1)
                r1 = self._dependent(G1)[2]
                if best is None or r1 > best[0]:
                    best = (r1, G1)
        if best is None or best[0] <= rank:  # the same rank next to it: all redundant
            return Redundancy(dependent, [], s, rank, rank)
        redundant = self._dependent(best[1])[0]
        singular = self._dependent(G0, [k for k in range(len(G0)) if k not in redundant])[0]
        return Redundancy(redundant, singular, s, rank, best[0])

    def nearby_configuration(self, q0: np.ndarray, t0: float,
                             rng: np.random.Generator) -> np.ndarray | None:
        """An assembled configuration next to ``q0`` (7 N,): a step of :data:`NEARBY_STEP`
        (rad, and that fraction of the length scale ``L`` of ``G``: its largest lever arm
        over its largest translation entry, m) along a random direction of the null space of
        the joints' rows (the drivers' rows left out: their motion moves them), projected
        back onto the joints' rows by Gauss-Newton; None when the joints allow no motion or
        the projection does not converge."""
        joint = [k for k in range(self.n_constraints) if self.constraint_kinds[k] != "driver"]
        G = self._G(t0, q0)[joint]
        N = self.n_bodies
        trans = np.array([6 * b + i for b in range(N) for i in range(3)])
        rot = trans + 3
        big_t = float(np.max(np.abs(G[:, trans]), initial=0.0))
        big_r = float(np.max(np.abs(G[:, rot]), initial=0.0))
        L = big_r / big_t if big_t > 0.0 and big_r > 0.0 else 1.0
        if len(joint):
            A, _, dc = equilibrate(G)
            _, sv, Vt = np.linalg.svd(A)
            r = int(np.sum(sv > RANK_TOL * max(float(sv[0]), 1e-300)))
            null = Vt[r:].T * dc[:, None]  # back to velocity units
        else:
            null = np.eye(self.n_v)
        if null.shape[1] == 0:
            return None
        dx = null @ rng.normal(size=null.shape[1])
        size = max(float(np.max(np.abs(dx[rot]))), float(np.max(np.abs(dx[trans]))) / L)
        if size == 0.0:
            return None
        q = self.project(q0 + self.qdot(q0, dx * NEARBY_STEP / size))
        tol = 1e-12 * max(1.0, L, float(np.max(np.abs(q0))))
        for _ in range(30):
            T = self.python_terms(t0, q, np.zeros(self.n_v))
            phi = T.phi[joint]
            if float(np.max(np.abs(phi), initial=0.0)) <= tol:
                return q
            step = np.linalg.lstsq(T.G[joint], phi, rcond=None)[0]
            q = self.project(q - self.qdot(q, step))
        return None

    def refuse_singular(self, found: Redundancy, t: float = 0.0):
        """The :class:`ModelError` of a singular configuration (``found.singular`` rows)."""
        rows = [self.constraint_names[k] for k in found.singular]
        joints = sorted({n.split(".")[0] for n in rows})
        extra = ("" if not found.redundant else
                 f" (besides the redundant rows "
                 f"{[self.constraint_names[k] for k in found.redundant]})")
        raise ModelError(
            f"spatial model '{self.model.name}': the configuration at t = {t:g} s is singular "
            f"(a dead point, lock-up or change point of the mechanism): the rows {rows} of "
            f"{joints} are combinations of the others there{extra} but not at the "
            f"configurations next to it (rank {found.rank} here, {found.generic_rank} next "
            "to it), so the motion from it is not determined (its reactions grow without "
            "bound as it is approached). Start the model away from it: move a driver's "
            "initial value or a body's initial pose by a few degrees")

    def refuse_redundancy(self, dependent: list, s: np.ndarray, rank: int):
        """The :class:`ModelError` of redundant rows ``dependent`` (indices)."""
        m = self.n_constraints
        redundant = [self.constraint_names[k] for k in dependent]
        raise ModelError(
            f"spatial model '{self.model.name}': the constraints are redundant: {m} rows but "
            f"rank {rank} at the initial configuration and next to it (singular values of "
            f"the equilibrated G below {RANK_TOL:g} of the largest: "
            f"{', '.join(f'{x:.3g}' for x in s[rank:])}); rows "
            f"{redundant} are combinations of the others (a closed loop over-constrained, "
            "e.g. a planar loop of five-row revolutes). Replace a joint by one with fewer rows "
            "(Spherical, Universal, PointOnLine, Cylindrical) so the loop has exactly the "
            "mobility it needs, or use redundant='remove' (the default) to drop these rows")

    def remove_rows(self, rows: list) -> None:
        """Drop the constraint rows ``rows`` (indices into the current rows): the terms, the
        names and the compiled tables keep the others, in order."""
        drop = set(rows)
        keep = [k for k in range(self.n_constraints) if k not in drop]
        self._keep = np.array(keep if self._keep is None else self._keep[keep], dtype=np.int64)
        self._keep0 = self._keep
        self.constraint_names = [self.constraint_names[k] for k in keep]
        self.constraint_kinds = [self.constraint_kinds[k] for k in keep]
        self._finish()
        self._tables = None

    def all_rows_jacobian(self, t: float, q: np.ndarray) -> np.ndarray:
        """``G`` (m_all, 6 N) of every row, the rows removed as redundant included (the
        run's check of a singular configuration, :mod:`nonsmooth.run.singular`, and
        :meth:`row_choice`): by the compiled kernels (:attr:`compiled_terms`; they write the
        removed rows after the kept ones, ``tables.row_targets``), else the Python path."""
        if self.compiled_terms:
            from . import kernels as sk
            from .tables import row_targets

            tab = self.kernel_tables
            q = np.ascontiguousarray(q, dtype=float)
            zero = np.zeros(self.n_v)
            terms = sk.spatial_terms(tab.ints, tab.floats, tab.bodies,
                                     np.zeros((tab.ints.shape[0], 3)), float(t), q, zero,
                                     len(self._all_names))
            G, err = terms[4], terms[7]
            if not err:
                return G[row_targets(self)]
        keep, self._keep = self._keep, None
        try:
            return self.python_terms(t, q, np.zeros(self.n_v)).G
        finally:
            self._keep = keep

    # ------------------------------------------------------------------ rows chosen again
    def _kept_ratio(self, A: np.ndarray, keep: np.ndarray) -> float:
        """Smallest over largest singular value of the rows ``keep`` of the equilibrated
        ``A``."""
        s = np.linalg.svd(A[keep], compute_uv=False)
        return float(s[-1] / s[0]) if s.size and s[0] > 0.0 else 0.0

    def row_choice(self, t: float, q: np.ndarray, force: bool = False) -> np.ndarray | None:
        """Another choice of the rows removed as redundant at ``(t, q)``, or None.

        The rows kept at the start (:meth:`SpatialModel.compile`) can become dependent
        further along the motion while every row together keeps its rank (the Bricard
        linkage: the loop's one redundant row is a different combination at each
        configuration). Returns the rows to keep (indices into every written row) when the
        kept rows' conditioning (smallest over largest singular value of the equilibrated
        ``G``) is below :data:`RECHOOSE_FRACTION` of the best the rows allow here (``force``:
        whenever a choice is better), and the new choice is at least twice as well
        conditioned and not below that fraction itself; None otherwise: no rows removed, a
        frictional joint's rows (its load rows are indexed by the run), or the full set nearly
        losing rank (:data:`SINGULAR_BEST`: a singular configuration of the mechanism, which no
        choice of rows avoids).

        The rows removed are chosen by a rank-revealing (column-pivoted) QR of the left null
        space of the equilibrated ``G`` (its ``d`` left singular vectors of the smallest
        singular values, ``d`` the rows removed): the rows of the largest weights in the
        dependent combinations, the last of them, among rows of nearly equal weight (within
        10 %), the one that leaves the rest best conditioned; a driver's row is never one of
        them."""
        if self._keep is None or self.pairs:
            return None
        A = equilibrate(self.all_rows_jacobian(t, q))[0]
        if not np.all(np.isfinite(A)):
            return None
        keep = self._keep
        r, m = keep.size, A.shape[0]
        U, s, _ = np.linalg.svd(A)
        if s.size < r or s[0] <= 0.0:
            return None
        best = float(s[r - 1] / s[0])
        if best < SINGULAR_BEST:  # the mechanism itself is singular here
            return None
        now = self._kept_ratio(A, keep)
        if not force and now >= RECHOOSE_FRACTION * best:
            return None
        null = np.array(U[:, r:m])  # the dependent combinations of the rows
        drivers = np.array([k == "driver" for k in self._all_kinds], dtype=bool)
        removed: list[int] = []
        for step in range(m - r):
            weight = np.linalg.norm(null, axis=1)
            weight[drivers] = -1.0
            weight[removed] = -1.0
            k = int(np.argmax(weight))
            if weight[k] <= 0.0:
                return None
            near = np.flatnonzero(weight >= 0.9 * weight[k])
            if step == m - r - 1 and near.size > 1:  # the last one: of (nearly) equal
                # weights, the one that leaves the rest best conditioned
                k = int(max(near, key=lambda c: self._kept_ratio(
                    A, np.setdiff1d(np.arange(m), [*removed, c]))))
            removed.append(k)
            e = null[k] / np.linalg.norm(null[k])
            null -= np.outer(null @ e, e)
        new = np.array([k for k in range(m) if k not in removed], dtype=np.int64)
        if (np.array_equal(new, keep)
                or self._kept_ratio(A, new) < max(2.0 * now, RECHOOSE_FRACTION * best)):
            return None
        return new

    def use_rows(self, keep: np.ndarray, t: float, warn: bool = True) -> None:
        """Keep the rows ``keep`` (indices into every written row, as many as now) from time
        ``t`` (s) on: the terms, the names (the same lists, changed in place) and the compiled
        tables (the same arrays, rewritten) follow; ``warn``: a :class:`RedundancyWarning`
        names the rows removed now and the time (a run warns at its first choice only)."""
        keep = np.asarray(keep, dtype=np.int64)
        if self._keep is None or keep.size != self._keep.size:
            raise ValueError("use_rows keeps as many rows as are kept now")
        before = self.removed_rows
        self._set_keep(keep)
        if warn:
            warnings.warn(RedundancyWarning(
                f"spatial model '{self.model.name}': at t = {t:.9g} s the rows kept became "
                "nearly dependent while all the rows keep their rank (the loop's redundant "
                f"rows change along its motion): removed the rows {self.removed_rows} instead "
                f"of {before} from there on, chosen again at that configuration, and so on "
                "wherever needed (Result.row_sets lists each choice and its time); the motion "
                "is the same, the reactions another of the set that balances the loop"),
                stacklevel=2)

    def restore_rows(self) -> None:
        """Keep the rows chosen by :meth:`SpatialModel.compile` again (a run starts from them:
        an earlier run may have chosen others along its motion, :meth:`use_rows`)."""
        if self._keep is not None and not np.array_equal(self._keep, self._keep0):
            self._set_keep(self._keep0)

    def _set_keep(self, keep: np.ndarray) -> None:
        """Keep the rows ``keep`` (as many as now): the names and kinds changed in place (the
        run's and its evaluator's lists are these), the compiled tables' row targets rewritten
        in place (the arrays a compiled family holds)."""
        self._keep = keep
        self.constraint_names[:] = [self._all_names[k] for k in keep]
        self.constraint_kinds[:] = [self._all_kinds[k] for k in keep]
        self._finish()
        if self._tables is not None:
            from .tables import spatial_tables

            self._tables.ints[...] = spatial_tables(self).ints

    @property
    def removed_rows(self) -> list[str]:
        """The names of the rows removed as redundant (``compile(redundant="remove")``)."""
        if self._keep is None:
            return []
        kept = set(self._keep.tolist())
        return [name for k, name in enumerate(self._all_names) if k not in kept]

    # ------------------------------------------------------------------ outputs
    def reactions(self, t: np.ndarray, Q: np.ndarray, V: np.ndarray, lam: np.ndarray) -> dict:
        """Each joint's reaction on its ``body_b`` at the joint point, world axes: ``{joint:
        (F (k, 3) N, T (k, 3) N m)}`` at the rows ``(t (k,), Q (k, n_q), V, lam (k, m))``,
        from the joint's rows ``G_j^T lambda_j`` (the force and the body-axes torque about the
        centre of mass, moved to the point: ``T = R (tau' - s' x R^T F)``); with the ground as
        ``body_b``, minus the reaction on ``body_a``."""
        return self._reactions(t, Q, V, lam)[0]

    def _reactions(self, t, Q, V, lam, names=None) -> tuple[dict, dict]:
        """:meth:`reactions` in world axes and in the joint frames (:meth:`joint_frame_reactions`),
        computed together: each joint's ``G_j^T lambda_j`` at every row in one compiled call
        (``kernels.spatial_joint_forces``), the rest vectorized over the rows. ``names``: the
        rows of ``lam``'s columns (a result's ``constraint_names``; default the rows kept)."""
        from .kernels import spatial_joint_forces

        Q, V = np.ascontiguousarray(Q, dtype=float), np.ascontiguousarray(V, dtype=float)
        owner = np.full(len(self._all_names), -1, dtype=np.int64)
        r = 0
        for j, jr in enumerate(self.joint_rows.values()):
            owner[r:r + len(jr.names)] = j
            r += len(jr.names)
        if names is None or list(names) == self.constraint_names:
            lam = np.ascontiguousarray(lam, dtype=float).reshape(len(t), self.n_constraints)
            if self._keep is not None:  # the kernel's rows: the kept ones (tables.row_targets)
                owner = owner[self._keep]
        else:  # columns by name (rows chosen again along a run): every row, in the kernel's
            # order (tables.row_targets), 0 for a row without a column
            from .tables import row_targets

            target = row_targets(self)
            lam = np.asarray(lam, dtype=float).reshape(len(t), len(names))
            full = np.zeros((len(t), len(self._all_names)))
            column = {name: k for k, name in enumerate(names)}
            for i, name in enumerate(self._all_names):
                if name in column:
                    full[:, target[i]] = lam[:, column[name]]
            lam = full
            kernel_owner = np.empty_like(owner)
            kernel_owner[target] = owner
            owner = kernel_owner
        tab = self.kernel_tables
        gen_all = spatial_joint_forces(tab.ints, tab.floats, tab.bodies, Q, V, lam, owner,
                                       len(self.joint_rows))
        R_all = _rotations(Q, self.n_bodies)  # (k, N + 1, 3, 3), the ground last
        out, local = {}, {}
        for j, (joint, (name, jr)) in enumerate(zip(self.model.joints, self.joint_rows.items(),
                                                    strict=True)):
            body, s, sign = (jr.b, jr.s_b, 1.0) if jr.b >= 0 else (jr.a, jr.s_a, -1.0)
            gen = gen_all[:, j, 6 * body:6 * body + 6]
            R = R_all[:, body]
            F = gen[:, :3]
            RtF = np.einsum("kji,kj->ki", R, F)
            T = np.einsum("kij,kj->ki", R, gen[:, 3:] - np.cross(s, RtF))
            out[name] = (sign * F, sign * T)
            C = R_all[:, jr.a] @ joint.frame_in_a()  # the joint frame now (fixed in body_a)
            local[name] = (np.einsum("kji,kj->ki", C, out[name][0]),
                           np.einsum("kji,kj->ki", C, out[name][1]))
        return out, local

    def joint_frame_reactions(self, t, Q, V, lam) -> dict:
        """:meth:`reactions` in each joint's frame: ``{joint: (F (k, 3), T (k, 3))}``, the
        components along the frame's ``(f, g, h)`` (``SpatialJoint.world_frame``: ``h`` the
        joint axis), a frame fixed in ``body_a`` that coincides with the joint's own at the
        initial configuration. For a revolute joint ``F_h`` is the axial load and ``T_h`` the
        torque about the axis (zero unless a driver or a rotor acts: the hinge transmits
        none), ``(F_f, F_g)`` the radial load and ``(T_f, T_g)`` the bending moment (the loads
        of MotionSolve's joint friction, ``docs/method.md``)."""
        return self._reactions(t, Q, V, lam)[1]

    def joint_coordinates(self, t: np.ndarray, Q: np.ndarray) -> dict:
        """Each joint coordinate ``<joint>.angle`` (rad) and ``<joint>.displacement`` (m) at
        the rows ``Q (k, n_q)``: ``{name: (k,)}`` (one compiled call,
        ``kernels.spatial_coordinate_values``). A wound joint's angle is its geometric angle
        plus the whole turns its winding coordinate counts (exact at any spacing of the
        rows); another joint's is unwrapped in time over the rows (``numpy.unwrap``: a turn
        of less than half a turn between rows)."""
        from .kernels import spatial_coordinate_values

        Q = np.ascontiguousarray(Q, dtype=float)
        ci, cf, names = self.kernel_tables.coordinates
        values = spatial_coordinate_values(ci, cf, Q, self.n_v)
        winding = {f"{name}.angle": 7 * self.n_bodies + w
                   for w, (name, _) in enumerate(self._wound)}
        out = {}
        for k, name in enumerate(names):
            if name in winding:
                theta = values[:, k]
                turns = np.round((Q[:, winding[name]] - theta) / (2.0 * np.pi))
                out[name] = theta + 2.0 * np.pi * turns
            elif name.endswith(".angle"):
                out[name] = np.unwrap(values[:, k])
            else:
                out[name] = values[:, k]
        return out

    def element_outputs(self, q0=None, v0=None, t0: float = 0.0) -> dict:
        """The family's named outputs (obligation 7): ``{name: (function(result) -> (N,),
        unit, description)}``.

        Every body's coordinates and velocities first, as the planar family's (what
        ``Result.to_csv`` writes for a model without declared outputs): ``<body>.x .y .z`` (m,
        world), ``.qw .qx .qy .qz`` (its unit quaternion, body axes to world axes), ``.vx .vy
        .vz`` (m/s, world) and ``.wx .wy .wz`` (rad/s, body axes); then the elements' outputs:
        ``<body>.wx_world/.wy_world/.wz_world`` (rad/s, world axes), ``<joint>.Fx .Fy .Fz``
        (N) and ``.Tx .Ty .Tz`` (N m): the reaction of ``body_a`` on ``body_b`` at the joint
        point in world axes (:meth:`reactions`; the drivers' multipliers not included), and
        ``.Fx_joint`` ... ``.Tz_joint`` the same along the joint frame's ``(f, g, h)`` (``h``
        the joint axis, the frame fixed in ``body_a``: :meth:`joint_frame_reactions`),
        ``<joint>.angle`` (rad) / ``.displacement`` (m), ``<driver>.torque`` (N m) or
        ``.force`` (N) on ``body_b`` about / along the joint axis, ``<rotor>.spin`` (rad/s) of
        a :class:`~nonsmooth.spatial.rotor.RotorInertia`, ``G theta_dot``, ``<spring>.torque``
        (N m) of a :class:`~nonsmooth.spatial.elements.RotationalSpring` on ``body_b``.
        """
        out = self._body_outputs()
        for name, jr in self.joint_rows.items():
            for k, c in enumerate("xyz"):
                out[f"{name}.F{c}"] = (lambda r, n=name, k=k: self._cached(r, "F")[n][0][:, k],
                                       "N", f"reaction force {c} on body_b (world axes)")
            for k, c in enumerate("xyz"):
                out[f"{name}.T{c}"] = (lambda r, n=name, k=k: self._cached(r, "F")[n][1][:, k],
                                       "N m", f"reaction torque {c} on body_b about the joint "
                                       "point (world axes)")
            for k, c in enumerate("xyz"):
                out[f"{name}.F{c}_joint"] = (
                    lambda r, n=name, k=k: self._cached(r, "J")[n][0][:, k], "N",
                    f"reaction force on body_b along the joint frame's {'fgh'[k]} axis "
                    "(h the joint axis; the frame fixed in body_a)")
            for k, c in enumerate("xyz"):
                out[f"{name}.T{c}_joint"] = (
                    lambda r, n=name, k=k: self._cached(r, "J")[n][1][:, k], "N m",
                    f"reaction torque on body_b about the joint point along the joint frame's "
                    f"{'fgh'[k]} axis")
            for coord in jr.coordinates:
                unit = "rad" if coord == "angle" else "m"
                out[f"{name}.{coord}"] = (lambda r, key=f"{name}.{coord}":
                                          self._cached(r, "C")[key], unit, f"joint {coord}")
        for _, d, _ in self._drivers:  # by name: a result's columns (Result.row_sets)
            out[f"{d.name}.{d.label}"] = (
                lambda r, n=d.name: r.lam[:, r.constraint_names.index(n)], d.unit,
                f"driving {d.label} on body_b")
        out.update(self._element_load_outputs())
        out.update(self._contact_outputs())
        if self._friction:
            from .joint_friction import friction_outputs

            out.update(friction_outputs(self))
        return out

    def _contact_outputs(self) -> dict:
        """Each contact's ``<contact>.gap`` (m, the smallest), ``.N`` (N, its normal forces'
        sum), ``.Fx .Fy .Fz`` (N, world: the force on body_a, normal and friction; on body_b
        the opposite),
        ``.x .y .z`` (m, world: its deepest point; a volumetric contact's centroid of the volume
        of interference, with ``.V`` (m^3) and ``.Tx .Ty .Tz`` (N m, its rolling resistance on
        body_a)) and ``.impact_speed`` (m/s, of its latest touch); with friction ``.slip``
        (m/s), ``.friction`` (N) and ``.mode`` (0 stick), with
        a torsion radius ``.spin`` (rad/s), ``.spin_torque`` (N m), ``.spin_mode``, with a
        rolling arm ``.rolling``, ``.rolling_torque``, ``.rolling_mode``."""
        out = {}
        n_c = len(self._contacts)
        for c, cc in enumerate(self._contacts):
            def rows(r, c=c):
                return self._cached(r, "contacts")[c]
            out[f"{cc.name}.gap"] = (lambda r, rows=rows: rows(r)[:, 0], "m",
                                     "smallest gap (< 0 penetrating)")
            if cc.rigid:  # its impulses, kept by the time-stepping run in z (its slot)
                out.update(self._rigid_outputs(cc.name, c, n_c, rows))
                continue
            out[f"{cc.name}.N"] = (lambda r, rows=rows: rows(r)[:, 1], "N",
                                   "normal force (the sum over its points)")
            for k, ax in enumerate("xyz"):
                out[f"{cc.name}.F{ax}"] = (lambda r, rows=rows, k=k: rows(r)[:, 2 + k], "N",
                                           f"contact force {ax} on body_a, normal and "
                                           "friction (world axes)")
            where = "centroid of the volume of interference" if cc.volumetric else \
                "deepest point"
            for k, ax in enumerate("xyz"):
                out[f"{cc.name}.{ax}"] = (lambda r, rows=rows, k=k: rows(r)[:, 5 + k], "m",
                                          f"{where} {ax} (world)")
            if cc.volumetric:
                out[f"{cc.name}.V"] = (lambda r, rows=rows: rows(r)[:, 8], "m^3",
                                       "volume of interference with the plane")
                for k, ax in enumerate("xyz"):
                    out[f"{cc.name}.T{ax}"] = (
                        lambda r, rows=rows, k=k: rows(r)[:, 9 + k], "N m",
                        f"rolling resistance torque {ax} on body_a (world axes)")
            out[f"{cc.name}.impact_speed"] = (
                lambda r, c=c: r.z[:, r.z.shape[1] - n_c + c], "m/s",
                "approach speed at the latest touch")
        for i, c, kind in self._contact_rows:
            name, w, d = self._contacts[c].name, int(self.w_row[i]), int(self.pair_dim[i])
            what = {"slide": ("slip", "m/s", "slip speed of body_b on body_a (tangent plane)",
                              "friction", "N"),
                    "patch": ("slip", "m/s", "slip speed of body_b on body_a (tangent plane)",
                              "friction", "N"),
                    "spin": ("spin", "rad/s", "spin of body_b on body_a about the normal",
                             "spin_torque", "N m"),
                    "rolling": ("rolling", "rad/s", "rolling rate of body_b on body_a",
                                "rolling_torque", "N m")}[kind]
            rate, rate_unit, rate_what, load, load_unit = what
            if kind == "patch":  # the sliding rows, then the rim speed a omega
                d = 2
                out[f"{name}.rim_speed"] = (lambda r, w=w: np.abs(r.v_T[:, w + 2]), "m/s",
                                            "rim speed a |omega| of the spin about the normal")
                out[f"{name}.spin_force"] = (
                    lambda r, w=w: np.abs(r.F_T[:, w + 2]), "N",
                    "the spin friction torque over the patch's radius (|M| / a)")
                out[f"{name}.spin_torque"] = (
                    lambda r, w=w, c=c: np.abs(r.F_T[:, w + 2]) * self._patch_radii(r, c),
                    "N m", "the spin friction torque |M| about the normal (the patch's)")
            out[f"{name}.{rate}"] = (
                lambda r, w=w, d=d: np.linalg.norm(r.v_T[:, w:w + d], axis=1), rate_unit,
                rate_what)
            out[f"{name}.{load}"] = (
                lambda r, w=w, d=d: np.linalg.norm(r.F_T[:, w:w + d], axis=1), load_unit,
                f"magnitude of the contact's {load.replace('_', ' ')}")
            out[f"{name}.{'mode' if kind in ('slide', 'patch') else kind + '_mode'}"] = (
                lambda r, i=i: r.modes[:, i], "-",
                "friction mode: 0 stick, else slip (2 for a two-dimensional slip)")
        return out

    def _patch_radii(self, r, c: int) -> np.ndarray:
        """Contact ``c``'s patch radius ``a`` (m) at each output row of ``r``: the given one,
        or ``sqrt(A / pi)`` of the volume of interference's patch there."""
        cc = self._contacts[c]
        if cc.contact.patch_radius:
            return np.full(r.t.size, float(cc.contact.patch_radius))
        return np.array([cc.patch_radius(K) for K in Kinematics.rows(
            self.n_bodies, np.asarray(r.q, dtype=float), np.asarray(r.v, dtype=float))])

    @staticmethod
    def _rigid_outputs(name: str, c: int, n_c: int, rows) -> dict:
        """A rigid contact's outputs besides its gap: ``.impulse`` (N s, the normal impulse of
        the time step that ended at the output, the sum over its points: the contact's slot of
        ``z``), ``.N`` (N, that impulse over the step, the step's mean normal force) and ``.x
        .y .z`` (m, world: its deepest point)."""
        def slot(r):
            return r.z[:, r.z.shape[1] - n_c + c]

        def stepped(r):  # a time-stepping run (its slot: impulses) or an event-driven one
            return bool(r.diagnostics.get("time_stepping", 1))

        def impulse(r):
            if stepped(r):
                return slot(r)
            return np.zeros(r.t.size)  # (an event-driven run's impulses are its impacts')

        out = {f"{name}.impulse": (impulse, "N s", "normal impulse of the time step ending "
                                   "at the output (the sum over its points; an event-driven "
                                   "run: 0, its impacts' impulses are in result.events)"),
               f"{name}.N": (lambda r: slot(r) / r.dt if stepped(r) else slot(r), "N",
                             "normal force: an event-driven run's (the sum over its closed "
                             "points), a time step's mean (impulse / dt)")}
        for k, ax in enumerate("xyz"):
            out[f"{name}.{ax}"] = (lambda r, k=k: rows(r)[:, 5 + k], "m",
                                   f"deepest point {ax} (world)")
        return out

    def _contact_values(self, r) -> list:
        """Per contact (N, 12): gap, N, F (3, on body_a), deepest point (3; a volumetric
        contact's centroid), the volume of interference and the rolling resistance torque (3,
        on body_a; volumetric contacts, else 0) at each output row."""
        n_c = len(self._contacts)
        out = [np.zeros((r.t.size, 12)) for _ in range(n_c)]
        Q = np.ascontiguousarray(r.q, dtype=float)
        deepest = np.empty((Q.shape[0], n_c, 7))
        if self.compiled_contacts:  # every row's deepest points in one compiled call
            from .rigid_kernels import deepest_points

            ci, cf = self.contact_tables
            deepest_points(ci, cf, self.n_bodies, Q, deepest)
            for c in range(n_c):  # the gap and the deepest point (a volumetric contact's
                out[c][:, 0] = deepest[:, c, 0]  # centroid below)
                out[c][:, 5:8] = deepest[:, c, 1:4]
            if all(cc.rigid for cc in self._contacts):
                return out  # (no force law, no friction rows: the gaps and deepest points)
        kinematics = Kinematics.rows(self.n_bodies, Q, np.asarray(r.v, dtype=float))
        slides = [[int(self.w_row[i]) for i, c_i, kind in self._contact_rows
                   if c_i == c and kind in ("slide", "patch")] for c in range(n_c)]
        for k, K in enumerate(kinematics):
            impact = r.z[k, r.z.shape[1] - n_c:]
            for c, cc in enumerate(self._contacts):
                if self.compiled_contacts:
                    deep = deepest[k, c]
                else:
                    pts = cc.points(K)
                    deep = pts[int(np.argmin(pts[:, 0]))]
                if cc.rigid:  # (no force law, no friction rows: its gap and deepest point)
                    out[c][k, 0] = deep[0]
                    out[c][k, 5:8] = deep[1:4]
                    continue
                F = np.zeros(3)
                N = 0.0
                for _x, n, force, _d, _rate in cc.loads(K, impact[c]):
                    F -= force * n  # (n from a to b: the force on a is -f n)
                    N += force
                for w in slides[c]:  # F_k t_k on b (rows t_k . (v_b - v_a))
                    n_f = cc.friction_point(K)[1]
                    for t_k, F_k in zip(tangents(n_f), r.F_T[k, w:w + 2], strict=True):
                        F -= F_k * t_k
                x, extra = deep[1:4], np.zeros(4)
                if cc.volumetric:
                    _, T, vol = cc._volumetric_load(K)
                    x = vol["centroid"]
                    extra = (vol["V"], *(-T if cc.plane_a else T))  # (T is on the shape)
                out[c][k] = (deep[0], N, *F, *x, *extra)
        return out

    def _body_outputs(self) -> dict:
        """Each body's coordinates, velocities and world angular velocity
        (:meth:`element_outputs`)."""
        out = {}
        for i, b in enumerate(self.model.bodies):
            for k, (c, unit, what) in enumerate(_BODY_COORDINATES):
                out[f"{b.name}.{c}"] = (lambda r, j=7 * i + k: r.q[:, j], unit, what)
            for k, (c, unit, what) in enumerate(_BODY_VELOCITIES):
                out[f"{b.name}.{c}"] = (lambda r, j=6 * i + k: r.v[:, j], unit, what)
            for k, c in enumerate("xyz"):
                out[f"{b.name}.w{c}_world"] = (
                    lambda r, i=i, k=k: _world_omega(r, i)[:, k], "rad/s",
                    f"angular velocity {c} (world axes)")
        return out

    def _element_load_outputs(self) -> dict:
        """The rotational springs' torques and the rotors' spins (:meth:`element_outputs`)."""
        out = {}
        for fe, force in zip(self._forces, self.model.forces, strict=True):
            if isinstance(force, el.RotationalSpring):
                out[f"{force.name}.torque"] = (
                    lambda r, fe=fe: np.array([fe.torque(self.kinematics(q, v), self.n_v)
                                               for q, v in zip(r.q, r.v, strict=True)]),
                    "N m", "spring and damper torque on body_b about the joint axis")
        for cr in self._rotors:
            out[f"{cr.rotor.name}.spin"] = (lambda r, cr=cr: rt.spin(cr, r.v), "rad/s",
                                            "rotor spin relative to its carrier, G theta_dot")
        return out

    def _cached(self, r, what: str):
        """The reactions (``"F"``: world axes, ``"J"``: joint frames) or joint coordinates
        (``"C"``) of result ``r``, computed once per result."""
        cache = r.__dict__.setdefault("_spatial_outputs", {})
        if what not in cache:
            if what in ("F", "J"):
                cache["F"], cache["J"] = self._reactions(r.t, r.q, r.v, r.lam,
                                                         r.constraint_names)
            elif what == "contacts":
                cache[what] = self._contact_values(r)
            else:
                cache[what] = self.joint_coordinates(r.t, r.q)
        return cache[what]


#: A body's coordinates and velocities among the outputs: ``(suffix, unit, description)``.
_BODY_COORDINATES = (("x", "m", "centre of mass x (world)"), ("y", "m", "centre of mass y (world)"),
                     ("z", "m", "centre of mass z (world)"),
                     *((f"q{c}", "-", f"orientation quaternion {c} (body axes to world axes)")
                       for c in "wxyz"))
_BODY_VELOCITIES = (*((f"v{c}", "m/s", f"centre-of-mass velocity {c} (world axes)")
                      for c in "xyz"),
                    *((f"w{c}", "rad/s", f"angular velocity {c} (body axes)") for c in "xyz"))


def _kind(element) -> str:
    """An element's kind in messages: ``"body"``, ``"revolute joint"``, ``"driver"``,
    ``"force element Spring"``, ``"rotor inertia"``."""
    if isinstance(element, el.Body):
        return "body"
    if isinstance(element, el.SpatialJoint):
        return f"{element.label} joint"
    if isinstance(element, el.Driver):
        return "driver"
    if isinstance(element, rt.RotorInertia):
        return "rotor inertia"
    if isinstance(element, Contact):
        return "contact"
    return f"force element {type(element).__name__}"


def _rotations(Q: np.ndarray, N: int) -> np.ndarray:
    """The bodies' rotations (of ``p / |p|``) at the rows ``Q (k, n_q)``, (k, N + 1, 3, 3),
    the ground (identity) last (index -1)."""
    R = np.empty((len(Q), N + 1, 3, 3))
    R[:, :N] = rotation_matrices(Q[:, :7 * N].reshape(len(Q), N, 7)[:, :, 3:])
    R[:, N] = np.eye(3)
    return R


def _world_omega(r, i: int) -> np.ndarray:
    """Body ``i``'s angular velocity in world axes at every row of result ``r``, (N, 3)."""
    R = _rotations(np.ascontiguousarray(r.q[:, 7 * i:7 * i + 7]), 1)[:, 0]
    return np.einsum("kij,kj->ki", R, r.v[:, 6 * i + 3:6 * i + 6])
