"""Records to a runnable spatial :class:`nonsmooth.Model`: :func:`build_spatial_model`.

Each moving ``Body_Rigid`` becomes a :class:`nonsmooth.spatial.Body` at its CM, each
``Constraint_Joint`` a spatial joint, each ``Motion_Joint`` a :class:`~nonsmooth.spatial.Driver`,
``Force_Gravity`` a :class:`~nonsmooth.spatial.Gravity` and each ``Post_Request`` expression a
named output evaluated on :mod:`.spatial_kinematics`.

Bodies
------
A body's axes are those of its CM marker (``cg_id``) at t = 0 (``Body(orientation=...)``); its
inertia is the reader's tensor about the CM in global axes (``inertia_xx .. inertia_xz`` given
in the IM marker's axes about its origin, ``J_IM = [[xx, -xy, -xz], [-xy, yy, -yz], [-xz, -yz,
zz]]``, rotated ``A_IM J_IM A_IM^T`` and moved to the CM by the parallel-axis theorem) turned
into body axes, ``A_CM^T J A_CM``. Initial velocities: ``v_ic_*`` along the ``vm_id`` marker's
axes (default the global frame), ``w_ic_*`` along the ``wm_id`` marker's axes (default the CM
marker), as the Reference Guide gives them; both are passed in world axes.

Joints
------
``body_a`` is the J marker's body and ``body_b`` the I marker's, so the reactions
``<joint>.Fx .. .Tz`` (world axes) are those on the I body and a driver's coordinate is that of
I relative to J, as MotionSolve reports them (the planar builder's choice).

* ``REVOLUTE`` (5 rows): about the J marker's z-axis through the common origin; the I and J
  z-axes must be parallel.
* ``SPHERICAL`` (3): at the common origin.
* ``CYLINDRICAL`` (4), ``TRANSLATIONAL`` (5): along the J marker's z-axis; the I origin must lie
  on that line, the z-axes be parallel.
* ``UNIVERSAL`` (4): the cross-pin axes are the z-axes of the J and I markers (perpendicular);
  ``HOOKE`` (4): the cross-pin axes are the J marker's y-axis and the I marker's x-axis
  (perpendicular; the z-axes are the shafts). Our reading of the Adams/MotionSolve definitions.
* ``FIXED`` (6): at the common origin.

The origins of the I and J markers must coincide (to :data:`ORIGIN_TOL`) for the joints with a
common point: the file's configuration must be assembled.

Joint friction
--------------
A ``Force_JointFriction`` on a revolute, spherical, translational or cylindrical joint becomes
the spatial joint's friction keywords (:mod:`nonsmooth.spatial.joint_friction`), as the planar
builder reads it (:func:`.builder._friction_kwargs`): ``law="lugre"`` (MotionSolve's law for
this element) with ``mu = mu_dynamic``, ``mu_s = mu_static``, the LuGre parameters by the
schema's MotionSolve aliases (``bristle_stiffness`` -> ``sigma0`` ..., ``effect``) and
``inputs``, in SI (:mod:`.joint_friction`), and the type's geometry (:data:`SPATIAL_FRICTION`:
``pin_radius``, ``friction_arm``, ``bending_reaction_arm`` as ``bending_arm``,
``torque_preload``; ``ball_radius``; ``reaction_arm``, ``initial_overlap``,
``force_preload``, ``overlap_delta``; a universal or Hooke joint's ``yoke_choice``:
``I_YOKE`` the cross axis of the I body, ``J_YOKE`` of the J body, none: both). ``body_a`` is
the J body (the carrier, as the friction module defines it)
and the friction outputs are those on the I body, so ``FRICTION(id, k)``
(:mod:`.expressions`) has the planar reading's sign; it is evaluated from the joint's outputs
``<joint>.Ff_f .. .Tf_h`` in its joint frame turned into the J marker's axes
(:meth:`.spatial_kinematics.SpatialMarkerKinematics.friction_components`; a universal joint's
requests are not built: its two cross axes have outputs of their own, ``<joint>.yoke_a.N``
...). ``max_stiction_deform`` and ``inactive`` are read and checked, without effect (as in the
planar builder). On a ``FIXED`` joint the element does not exist.

Motions
-------
A ``Motion_Joint`` (:mod:`.motion`) drives the revolute angle or the translational
displacement (cylindrical: either). The spatial driver's coordinate is 0 at t = 0, MotionSolve's
``AZ(I, J)`` / ``DZ(I, J, J)`` is measured from the markers: the driver follows
``expr(t) - s0`` (``s0`` from the markers at t = 0), and ``expr(0)`` must equal ``s0``. The
driving torque / force on the I body is the output ``<motion>.torque`` / ``.force`` (SI).

Reference: Altair MotionSolve Reference Guide, XML format (Body_Rigid, Constraint_Joint,
Motion_Joint, Force_JointFriction, Post_Request); ``docs/design/spatial.md``,
``docs/design/spatial_friction.md`` and ``docs/method.md`` section 15 for the spatial family.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...errors import ModelError
from .builder import _friction_kwargs, _outputs, finish_model
from .kinematics import PLANE_TOL, vector_text
from .spatial_kinematics import body_frame, spatial_marker_kinematics

if TYPE_CHECKING:
    from ...model import Model

__all__ = ["build_spatial_model", "ORIGIN_TOL", "SPATIAL_FRICTION", "joint_coordinate"]

#: how far (m) the I and J origins of a joint may be apart (or the I origin off the J z-line)
ORIGIN_TOL = 1e-6
#: the joints whose I and J origins coincide
_POINT_JOINTS = ("REVOLUTE", "SPHERICAL", "UNIVERSAL", "HOOKE", "FIXED")
#: the joints whose I and J z-axes are parallel
_AXIS_JOINTS = ("REVOLUTE", "CYLINDRICAL", "TRANSLATIONAL")
#: the joint types a Force_JointFriction is built on, and the spatial joint's friction keywords
#: ``{keyword: Force_JointFriction attribute}`` (``nonsmooth.spatial.joint_friction.ARMS``)
SPATIAL_FRICTION = {
    "REVOLUTE": {"pin_radius": "pin_radius", "friction_arm": "friction_arm",
                 "bending_arm": "bending_reaction_arm", "torque_preload": "torque_preload"},
    "SPHERICAL": {"ball_radius": "ball_radius", "torque_preload": "torque_preload"},
    "TRANSLATIONAL": {"reaction_arm": "reaction_arm", "initial_overlap": "initial_overlap",
                      "force_preload": "force_preload", "overlap_delta": "overlap_delta"},
    "CYLINDRICAL": {"pin_radius": "pin_radius", "initial_overlap": "initial_overlap",
                    "force_preload": "force_preload", "torque_preload": "torque_preload",
                    "overlap_delta": "overlap_delta"},
    "UNIVERSAL": {"pin_radius": "pin_radius", "friction_arm": "friction_arm",
                  "bending_arm": "bending_reaction_arm", "torque_preload": "torque_preload"},
}
SPATIAL_FRICTION["HOOKE"] = SPATIAL_FRICTION["UNIVERSAL"]


def build_spatial_model(info) -> Model:
    """The runnable :class:`nonsmooth.Model` of a :class:`~.records.MotionSolveModel` in the
    spatial family (SI inside, outputs in the model's units)."""
    from ...spatial import Gravity, SpatialModel

    mdl = SpatialModel(info.name)
    engine = _add_bodies(info, mdl)
    joints = {j.id: _add_joint(info, mdl, engine, j) for j in info.joints.values()}
    for motion in info.motions:
        _add_motion(info, mdl, joints, motion)
    g = float(np.linalg.norm(info.gravity))
    if g > 0:
        mdl.add(Gravity(g=g, direction=info.gravity / g))
    try:
        system = mdl.compile()
    except ModelError as exc:
        raise ModelError(f"{info.source}: {exc}") from None
    q0, v0 = mdl.initial_state()
    return finish_model(info, system, q0, v0, _outputs(info, spatial_marker_kinematics))


def _add_bodies(info, mdl) -> dict:
    """Add the moving bodies; ``{Body_Rigid id: spatial body}`` (the ground's is ``ground``)."""
    from ...spatial import Body, ground

    engine = {}
    for body in info.bodies.values():
        if body.ground:
            engine[body.id] = ground
            continue
        c, A0 = body_frame(info, body.id)
        J = A0.T @ body.inertia @ A0
        try:
            engine[body.id] = mdl.add(Body(
                body.name, body.mass, 0.5 * (J + J.T), position=c, orientation=A0,
                velocity=body.velocity, angular_velocity=body.angular_velocity))
        except ModelError as exc:
            raise ModelError(f"{info.source}: Body_Rigid id={body.id}: {exc}") from None
    return engine


def _engine_body(engine, marker):
    from ...spatial import ground

    return ground if marker.body is None else engine[marker.body]


def _check_geometry(joint, mi, mj):
    """The I and J markers as the joint type needs them (see the module docstring)."""
    d = mi.origin - mj.origin
    if joint.type in _POINT_JOINTS and np.linalg.norm(d) > ORIGIN_TOL:
        raise ModelError(f"the origins of the I marker {mi.id} and the J marker {mj.id} are "
                         f"{np.linalg.norm(d):.6g} m apart; a {joint.type} joint needs them to "
                         "coincide (an assembled configuration)")
    zi, zj = mi.axes[:, 2], mj.axes[:, 2]
    if joint.type in _AXIS_JOINTS and np.linalg.norm(np.cross(zi, zj)) > PLANE_TOL:
        raise ModelError(f"the z-axes {vector_text(zi)} of the I marker {mi.id} and "
                         f"{vector_text(zj)} of the J marker {mj.id} are not parallel; a "
                         f"{joint.type} joint needs them parallel")
    off = d - (d @ zj) * zj
    if joint.type in ("CYLINDRICAL", "TRANSLATIONAL") and np.linalg.norm(off) > ORIGIN_TOL:
        raise ModelError(f"the origin of the I marker {mi.id} is {np.linalg.norm(off):.6g} m "
                         f"off the z-axis line of the J marker {mj.id}; a {joint.type} joint "
                         "needs it on that line")


def _joint_friction(joint, fr) -> dict:
    """The spatial joint's friction keywords of the joint's Force_JointFriction ``fr`` (none
    without one; :func:`.builder._friction_kwargs`: LuGre, SI), or a
    :class:`~nonsmooth.errors.ModelError` naming what the spatial family does not build."""
    if fr is None:
        return {}
    where = f"Force_JointFriction id={fr.id}"
    if joint.type not in SPATIAL_FRICTION:
        raise ModelError(f"{where}: joint friction on a {joint.type} joint does not exist "
                         "(MotionSolve's Force_JointFriction acts on revolute, spherical, "
                         "translational, cylindrical and universal joints)")
    kw = _friction_kwargs(fr, SPATIAL_FRICTION[joint.type])
    if joint.type in ("UNIVERSAL", "HOOKE"):  # I_YOKE: the cross axis of the I body (body_b)
        kw["yoke_choice"] = fr.values["yoke_choice"] or "both"
    return kw
    return _friction_kwargs(fr, SPATIAL_FRICTION[joint.type])


def _spatial_joint(joint, a, b, mi, mj, fr=None):
    """The spatial joint of a Constraint_Joint (``a``: the J body, ``b``: the I body; ``fr``
    its Force_JointFriction or None)."""
    from ...spatial import Cylindrical, Fixed, Revolute, Spherical, Translational, Universal

    n, p, zj = joint.name, mj.origin, mj.axes[:, 2]
    kw = _joint_friction(joint, fr)
    if joint.type == "REVOLUTE":
        return Revolute(n, a, b, point=p, axis=zj, **kw)
    if joint.type == "SPHERICAL":
        return Spherical(n, a, b, point=p, **kw)
    if joint.type == "CYLINDRICAL":
        return Cylindrical(n, a, b, point=mi.origin, axis=zj, **kw)
    if joint.type == "TRANSLATIONAL":
        return Translational(n, a, b, point=mi.origin, axis=zj, **kw)
    if joint.type == "UNIVERSAL":
        return Universal(n, a, b, point=p, axis_a=zj, axis_b=mi.axes[:, 2], **kw)
    if joint.type == "HOOKE":
        return Universal(n, a, b, point=p, axis_a=mj.axes[:, 1], axis_b=mi.axes[:, 0], **kw)
    return Fixed(n, a, b, point=p)


def _add_joint(info, mdl, engine, joint):
    """Add a Constraint_Joint (body_a: the J marker's body, body_b: the I marker's)."""
    mi, mj = info.markers[joint.i_marker], info.markers[joint.j_marker]
    try:
        _check_geometry(joint, mi, mj)
        return mdl.add(_spatial_joint(joint, _engine_body(engine, mj), _engine_body(engine, mi),
                                      mi, mj, info.frictions.get(joint.id)))
    except ModelError as exc:
        raise ModelError(f"{info.source}: Constraint_Joint id={joint.id}: {exc}") from None


def joint_coordinate(info, joint_id: int, dof: str) -> float:
    """MotionSolve's joint coordinate at t = 0 from the markers: ``AZ(I, J)`` (rad, the I
    x-axis about the J z-axis from the J x-axis) for ``dof = "R"``, ``DZ(I, J, J)`` (m) for
    ``"T"``."""
    joint = info.joints[joint_id]
    mi, mj = info.markers[joint.i_marker], info.markers[joint.j_marker]
    if dof == "T":
        return float((mi.origin - mj.origin) @ mj.axes[:, 2])
    xi, xj, zj = mi.axes[:, 0], mj.axes[:, 0], mj.axes[:, 2]
    return math.atan2(float(zj @ np.cross(xj, xi)), float(xj @ xi))


def _add_motion(info, mdl, joints, motion):
    """Add a Motion_Joint as a :class:`~nonsmooth.spatial.Driver` (see the module docstring)."""
    from ...spatial import Driver

    where = f"{info.source}: Motion_Joint id={motion.id}"
    coordinate = "angle" if motion.dof == "R" else "displacement"
    s0 = joint_coordinate(info, motion.joint, motion.dof)
    start = motion.position(0.0) if motion.val_type == "D" else motion.ic_disp
    if start is not None:
        gap = start - s0
        if coordinate == "angle":
            gap = math.atan2(math.sin(gap), math.cos(gap))
        if abs(gap) > (1e-9 if coordinate == "angle" else ORIGIN_TOL):
            raise ModelError(f"{where}: the motion starts at {start:.9g} "
                             f"{'rad' if coordinate == 'angle' else 'm'} but the joint's markers "
                             f"give {s0:.9g} at t = 0; move the markers or change the motion")
    joint = joints[motion.joint]
    kw = {"coordinate": coordinate} if len(joint.coordinates) > 1 else {}
    if motion.val_type == "D":
        kw["position"] = lambda t, f=motion.position: f(t) - s0
    else:
        kw["speed"] = motion.speed
    try:
        mdl.add(Driver(motion.name, joint, **kw))
    except ModelError as exc:
        raise ModelError(f"{where}: {exc}") from None
