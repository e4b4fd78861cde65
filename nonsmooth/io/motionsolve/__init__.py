"""Altair MotionSolve XML models as :class:`nonsmooth.Model`: planar or spatial (3-D).

:func:`load_motionsolve` reads a MotionSolve ``.xml`` model, converts it to SI, chooses the model
family (``family="auto"``, the default: planar when the plane of motion is found, else
spatial; ``"planar"``: planar models only, others refused by name; ``"spatial"``), builds the
planar model (:mod:`nonsmooth.planar`, :mod:`nonsmooth.planar.joints`) or the spatial one
(:mod:`nonsmooth.spatial`) and declares the ``Post_Request`` expressions as named outputs in the
*model's* units.

Supported elements
------------------
``<Model>``: ``Param_Unit`` (force/mass/length/time units), ``Reference_Marker`` (``pos_x/y/z``;
orientation from ``a00 .. a22`` -- x-axis ``(a00, a10, a20)``, z-axis ``(a02, a12, a22)``,
``y = z x x``, missing entries from the identity -- or the 3-1-3 Euler angles ``psi, theta, phi``;
``rm_id`` for a marker given relative to another), ``Body_Rigid`` (``IsGround``, ``mass``,
``cg_id``, ``im_id``, ``inertia_xx .. inertia_xz`` in the IM marker axes about its origin,
``v_ic_*`` along the ``vm_id`` marker's axes (default global), ``w_ic_*`` along the ``wm_id``
marker's axes (default the CM marker, Adams' convention)), ``Constraint_Joint``, ``Force_Gravity``,
``Post_Request`` of type ``EXPRESSION``; ``<Command>``: ``Simulate`` (transient: ``end_time``
and ``num_step`` or ``print_interval``).

* Planar family: ``Constraint_Joint`` of type ``REVOLUTE`` (axis: the z-axis of the I and J
  markers) or ``TRANSLATIONAL`` (slide axis: the z-axis of the J marker), ``Force_JointFriction``
  (every attribute of ``docs/method.md`` section 9 with MotionSolve's defaults).
* Spatial family (:mod:`.spatial_builder`): ``Constraint_Joint`` of type ``REVOLUTE``,
  ``SPHERICAL``, ``TRANSLATIONAL``, ``CYLINDRICAL``, ``UNIVERSAL`` (cross pins: the I and J
  z-axes), ``HOOKE`` (cross pins: the J y-axis and the I x-axis) and ``FIXED``;
  ``Motion_Joint`` (:mod:`.motion`: displacement as an expression of ``TIME`` or a constant
  velocity, on a revolute, translational or cylindrical joint), ``Force_JointFriction`` on
  revolute, spherical, translational and cylindrical joints (LuGre, the spatial joints'
  friction keywords, :mod:`.spatial_builder`); on a universal or Hooke joint it is a
  :class:`~nonsmooth.errors.ModelError` naming it (not built yet).

Ignored (solver settings and presentation, without effect on the physics here):
``Param_Transient``, ``Post_Graphic``, ``Messaging``, ``H3DOutput``, ``ResOutput``; the model
records them in :attr:`MotionSolveModel.ignored` and in its description. Any other element is a
:class:`~nonsmooth.errors.ModelError` naming it, its id and what is supported.

Units, the plane, joints and outputs
------------------------------------
Each is described once, in its module: the conversion of every value to SI and back for the
outputs in :mod:`.units`; how the plane of motion and the in-plane basis are found in
:mod:`.kinematics`; which body is ``body_i`` and which MotionSolve attributes have no effect in
a plane in :mod:`.builder`; the spatial bodies' axes, inertia and joint axes in
:mod:`.spatial_builder`, the spatial marker kinematics in :mod:`.spatial_kinematics`; the
``Post_Request`` expression language, its measures and the ``FRICTION`` components in
:mod:`.expressions`.

Modules
-------
:mod:`.units` (Param_Unit, dimensions), :mod:`.element` (one element's attributes, checked),
:mod:`.joint_friction` (Force_JointFriction attributes and defaults), :mod:`.kinematics` (marker
frames, the plane, marker kinematics of a run), :mod:`.expressions` (the Post_Request
expression compiler), :mod:`.motion` (Motion_Joint), :mod:`.records` (the parsed model),
:mod:`.reader` (XML to records, the family), :mod:`.builder` (records to a planar
:class:`nonsmooth.Model`), :mod:`.spatial_kinematics` and :mod:`.spatial_builder` (the spatial
one), :mod:`.loader` (the entry points).

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker, Body_Rigid,
Constraint_Joint, Motion_Joint, Force_JointFriction, Post_Request, Param_Unit, Simulate) and its
functions DX, VX, WZ, FRICTION.
"""

from .builder import build_model, output_function
from .expressions import Expression
from .joint_friction import JOINT_FRICTION_DEFAULTS
from .kinematics import PLANE_TOL, MarkerKinematics, Plane, find_plane, marker_kinematics
from .loader import load_motionsolve, loads_motionsolve, motionsolve_module
from .reader import (
    FAMILIES,
    IGNORED_ELEMENTS,
    JOINT_TYPES,
    SPATIAL_JOINT_TYPES,
    SUPPORTED_ELEMENTS,
    Reader,
    read_motionsolve,
)
from .records import Joint, JointFriction, JointMotion, Marker, MotionSolveModel, Request, RigidBody
from .spatial_builder import build_spatial_model
from .spatial_kinematics import SpatialMarkerKinematics, spatial_marker_kinematics
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
    "SPATIAL_JOINT_TYPES",
    "FAMILIES",
    "JOINT_FRICTION_DEFAULTS",
    "PLANE_TOL",
    "Marker",
    "RigidBody",
    "Joint",
    "JointFriction",
    "JointMotion",
    "Request",
    "Reader",
    "Expression",
    "MarkerKinematics",
    "marker_kinematics",
    "find_plane",
    "build_model",
    "build_spatial_model",
    "SpatialMarkerKinematics",
    "spatial_marker_kinematics",
    "output_function",
]
