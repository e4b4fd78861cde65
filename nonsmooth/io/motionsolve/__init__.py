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

Units, the plane, joints and outputs
------------------------------------
Each is described once, in its module: the conversion of every value to SI and back for the
outputs in :mod:`.units`; how the plane of motion and the in-plane basis are found in
:mod:`.kinematics`; which body is ``body_i`` and which MotionSolve attributes have no effect in
a plane in :mod:`.builder`; the ``Post_Request`` expression language and its measures in
:mod:`.expressions`.

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
