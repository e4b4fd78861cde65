"""Altair MotionSolve XML models (planar subset) as :class:`nonsmooth.Model`.

:func:`load_motionsolve` reads a MotionSolve ``.xml`` model, converts it to SI, finds the plane of
motion, builds the planar model (:mod:`nonsmooth.planar`, :mod:`nonsmooth.joints`) and declares
the ``Post_Request`` expressions as named outputs in the *model's* units.

Supported elements
------------------
``<Model>``: ``Param_Unit`` (force/mass/length/time units), ``Reference_Marker`` (``pos_x/y/z``;
orientation from ``a00 .. a22`` -- x-axis ``(a00, a10, a20)``, z-axis ``(a02, a12, a22)``,
``y = z x x``, missing entries from the identity -- or the 3-1-3 Euler angles ``psi, theta, phi``;
``rm_id`` for a marker given relative to another), ``Body_Rigid`` (``IsGround``, ``mass``,
``cg_id``, ``im_id``, ``inertia_xx .. inertia_xz`` in the IM marker axes, ``v_ic_*``/``w_ic_*``
initial velocities), ``Constraint_Joint`` of type ``REVOLUTE`` (axis: the z-axis of the I and J
markers) or ``TRANSLATIONAL`` (slide axis: the z-axis of the J marker), ``Force_Gravity``,
``Force_JointFriction`` (every attribute of ``docs/method.md`` section 9 with MotionSolve's
defaults) and ``Post_Request`` of type ``EXPRESSION``. ``<Command>``: ``Simulate`` (transient:
``end_time`` and ``num_step`` or ``print_interval``).

Ignored (solver settings and presentation, without effect on the physics here):
``Param_Transient``, ``Post_Graphic``, ``Messaging``, ``H3DOutput``, ``ResOutput``; the model
records them in :attr:`MotionSolveModel.ignored` and in its description. Any other element is a
:class:`~nonsmooth.errors.ModelError` naming it, its id and what is supported.

Units
-----
Every value is converted to SI as read; MotionSolve's unit systems need not be consistent
(N, kg, mm, s is the common one), converting each quantity separately makes them so. The
Force_JointFriction defaults are per model unit (``bristle_stiffness = 100`` per length unit,
``damping_effects = 0.316`` time/length, ``viscous_effects = 0.0004`` force time/length,
``stiction_trans_vel = 0.1`` length/time ...). Outputs are converted back to the model's units;
the time column ``t`` stays in seconds.

The plane
---------
The plane normal ``n`` is the z-axis of the J marker of the first revolute joint; every revolute
axis must be parallel to it, translational axes, gravity and the initial velocities perpendicular
to it (without revolute joints ``n`` is the normal of the translational axes and gravity, or the
first global axis perpendicular to all of them). The in-plane basis ``(e1, e2)`` has
``e1 x e2 = n``; with gravity ``e2`` points up (against gravity), so gravity acts along ``-y`` as
in the rest of the package. A 3-D point ``r`` maps to ``(r . e1, r . e2)``. Each body's planar
frame is aligned with ``(e1, e2)`` at t = 0 (``theta = 0``): ``<body>.theta`` is its rotation
about ``n`` since the start.

Joints
------
A MotionSolve joint acts between the I marker's body and the J marker's body; here
``body_i`` is the J body and ``body_j`` the I body, so the multipliers ``<joint>.x, .y`` are the
reaction on the I body and the slip velocity is that of I relative to J, as MotionSolve reports
them. A ``Force_JointFriction`` makes the joint a LuGre frictional pair of the same name
(``law="lugre"``). In a planar model a revolute joint has no axial load and no bending moment,
so ``friction_arm`` and ``bending_reaction_arm`` are read and checked but have no effect;
``max_stiction_deform``, ``ball_radius`` and ``yoke_choice`` do not apply to planar revolute and
translational joints, and ``inactive = STATIC`` only concerns static analyses.

Outputs
-------
Column ``req<id>.expr<k>`` for each non-NULL ``expr<k>`` of ``Post_Request id``. Expressions may
combine numbers, ``PI``, ``TIME``, ``+ - * / **``, ``ABS SIN COS TAN ASIN ACOS ATAN ATAN2 SQRT EXP
LOG LOG10 SINH COSH TANH MIN MAX SIGN`` and the measures

* ``DX, DY, DZ(I[, J[, K]])``: displacement of marker I relative to J along K's axes,
  ``DM(I[, J])``;
* ``VX, VY, VZ(I[, J[, K[, L]]])``: velocity of I relative to J (time derivative in the ground
  frame, ``L = 0`` only) along K's axes, ``VM(I[, J])``;
* ``WX, WY, WZ(I[, J[, K]])``: angular velocity of I relative to J along K's axes, ``WM(I[, J])``;
* ``FRICTION(id, comp)``: of ``Force_JointFriction id`` -- 1-3 friction force along the J marker
  axes (on the I body), 4-6 friction torque about them, 7-9 translational and 10-12 rotational
  friction coefficient (``|friction| / N`` along the axis: our reading), 13-15 translational
  slip velocity, 16-18 rotational slip velocity (``pin_radius * w``, length/time, as the LuGre
  law sees it: our reading).

J, K default to the ground origin and the global axes (marker 0).

Modules
-------
:mod:`.units` (Param_Unit, dimensions), :mod:`.element` (one element's attributes, checked),
:mod:`.joint_friction` (Force_JointFriction attributes and defaults), :mod:`.kinematics` (marker
frames, the plane, marker kinematics of a run), :mod:`.expressions` (the Post_Request
expression compiler), :mod:`.records` (the parsed model), :mod:`.reader` (XML to records),
:mod:`.builder` (records to a :class:`nonsmooth.Model`), :mod:`.loader` (the entry points).

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker, Body_Rigid,
Constraint_Joint, Force_JointFriction, Post_Request, Param_Unit, Simulate) and its functions
DX, VX, WZ, FRICTION.
"""

from .builder import build_model, output_function
from .expressions import Expression
from .joint_friction import JOINT_FRICTION_DEFAULTS
from .kinematics import PLANE_TOL, MarkerKinematics, Plane, find_plane, marker_kinematics
from .loader import load_motionsolve, loads_motionsolve, motionsolve_module
from .reader import IGNORED_ELEMENTS, JOINT_TYPES, SUPPORTED_ELEMENTS, Reader, read_motionsolve
from .records import Joint, JointFriction, Marker, MotionSolveModel, Request, RigidBody
from .units import Units

__all__ = [
    "MotionSolveModel",
    "Units",
    "Plane",
    "load_motionsolve",
    "loads_motionsolve",
    "read_motionsolve",
    "motionsolve_module",
    "SUPPORTED_ELEMENTS",
    "IGNORED_ELEMENTS",
    "JOINT_TYPES",
    "JOINT_FRICTION_DEFAULTS",
    "PLANE_TOL",
    "Marker",
    "RigidBody",
    "Joint",
    "JointFriction",
    "Request",
    "Reader",
    "Expression",
    "MarkerKinematics",
    "marker_kinematics",
    "find_plane",
    "build_model",
    "output_function",
]
