"""Records to a runnable :class:`nonsmooth.Model`: :func:`build_model`.

Each moving ``Body_Rigid`` becomes a planar :class:`~nonsmooth.planar.Body` at its CM
(``theta = 0`` at t = 0, inertia about the plane normal), each ``Constraint_Joint`` a
:class:`~nonsmooth.planar.joints.Revolute` or :class:`~nonsmooth.planar.joints.Translational`,
gravity a :class:`~nonsmooth.planar.forces.Gravity`, and each ``Post_Request`` expression a named
output.
Joints
------
A MotionSolve joint acts between the I marker's body and the J marker's body; here
``body_i`` is the J body and ``body_j`` the I body, so the multipliers ``<joint>.x, .y`` are the
reaction on the I body and the slip velocity is that of I relative to J, as MotionSolve reports
them. A ``Force_JointFriction`` makes the joint a LuGre frictional pair of the same name
(``law="lugre"``; the parameters by the schema's MotionSolve aliases). In a planar model a
revolute joint has no axial load and no bending moment, so ``friction_arm`` and
``bending_reaction_arm`` are read and checked but have no effect; ``max_stiction_deform``,
``ball_radius`` and ``yoke_choice`` do not apply to planar revolute and translational joints, and
``inactive = STATIC`` only concerns static analyses.

Outputs
-------
Column ``req<id>.expr<k>`` for each non-NULL ``expr<k>`` of ``Post_Request id``, in the model's
units (the time column ``t`` stays in seconds). An output evaluates its compiled expression on
the run's :func:`~.kinematics.marker_kinematics` (shared by the outputs of one run, nothing is
stored on the :class:`~nonsmooth.Result`). The outputs without ``FRICTION`` are the model's
``motion_outputs``.

Reference: Altair MotionSolve Reference Guide, XML format (Body_Rigid, Constraint_Joint,
Force_JointFriction, Post_Request).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...errors import ModelError
from ...friction.schema import LUGRE_SCHEMA
from .kinematics import marker_kinematics

if TYPE_CHECKING:
    from ...model import Model

__all__ = ["build_model", "finish_model", "output_function"]

#: the Force_JointFriction attributes a translational joint takes (``reaction_arm`` is the arm
#: of the torsional moment, which does not exist in a plane: read and checked, not used)
#: End time (s) of a file without a ``<Simulate>`` command (the run warns that it is a default).
DEFAULT_T_END = 1.0

_TRANSLATIONAL_FRICTION = ("force_preload", "initial_overlap", "overlap_delta")
#: ... and a revolute joint
_REVOLUTE_FRICTION = ("pin_radius", "torque_preload")


def build_model(info) -> Model:
    """The runnable :class:`nonsmooth.Model` of a :class:`~.records.MotionSolveModel` (SI
    inside, outputs in the model's units)."""
    from ...planar.forces import Gravity
    from ...planar.model import PlanarModel

    mdl = PlanarModel(info.name)
    engine = _add_bodies(info, mdl)
    for joint in info.joints.values():
        _add_joint(info, mdl, engine, joint)
    g = float(np.linalg.norm(info.gravity))
    if g > 0:
        mdl.add(Gravity(g=g, direction=info.plane.to_planar(info.gravity / g)))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    return finish_model(info, system, q0, v0, _outputs(info))


def finish_model(info, system, q0, v0, outputs: dict) -> Model:
    """The :class:`nonsmooth.Model` of a compiled ``system`` with its initial state and the
    request ``outputs`` (shared by the planar and the spatial builds)."""
    from ...model import Model

    kinematic = tuple(name for name, out in outputs.items()
                      if "FRICTION" not in out.description)
    note = "" if info.t_end is not None else (
        f"{info.source} has no <Simulate> command: the run uses the default span 0 .. "
        f"{DEFAULT_T_END:g} s; give the end time (--t-end, simulate(model, t_end)) or add "
        '<Simulate analysis_type="TRANSIENT" end_time="..." num_step="..."/> to its <Command>')
    return Model(system, q0, v0, name=info.name, outputs=outputs,
                 parameters={"source": info.source, "units": info.units.describe()},
                 t_end=info.t_end if info.t_end is not None else DEFAULT_T_END, dt=info.dt,
                 description=info.description(), plot_outputs=tuple(outputs)[:8],
                 motion_outputs=kinematic, span_note=note)


def _add_bodies(info, mdl) -> dict:
    """Add the moving bodies; ``{Body_Rigid id: engine body}`` (the ground's is ``ground``)."""
    from ...planar.model import Body, ground

    plane = info.plane
    engine = {}
    for body in info.bodies.values():
        if body.ground:
            engine[body.id] = ground
            continue
        try:
            engine[body.id] = mdl.add(Body(
                body.name, body.mass, info.inertia_about_normal(body.id),
                position=info.planar_position(body.cg), angle=0.0,
                velocity=plane.to_planar(body.velocity),
                angular_velocity=float(body.angular_velocity @ plane.normal)))
        except ModelError as exc:
            raise ModelError(f"{info.source}: Body_Rigid id={body.id}: {exc}") from None
    return engine


def _engine_body(engine, marker):
    from ...planar.model import ground

    return ground if marker.body is None else engine[marker.body]


def _friction_kwargs(fr, names) -> dict:
    """The joint's keyword arguments of a Force_JointFriction (none without one): the LuGre
    law, its parameters by the schema's MotionSolve aliases, and the joint's ``names`` (SI:
    m, N, N m): a tuple of attributes passed under their own names, or ``{keyword:
    attribute}`` (the spatial joints' ``bending_arm`` is MotionSolve's
    ``bending_reaction_arm``). Shared by the planar and the spatial builders."""
    if fr is None:
        return {}
    p = fr.values
    names = names if isinstance(names, dict) else {n: n for n in names}
    return dict(mu=p["mu_dynamic"], mu_s=p["mu_static"], law="lugre",
                friction={q.name: p[q.motionsolve] for q in LUGRE_SCHEMA
                          if q.motionsolve and q.name not in ("mu_s", "mu_d")},
                inputs=p["inputs"], **{kw: p[attr] for kw, attr in names.items()})


def _add_joint(info, mdl, engine, joint):
    """Add a Constraint_Joint (body_i: the J marker's body, body_j: the I marker's)."""
    from ...planar.joints import Revolute, Translational

    mi, mj = info.markers[joint.i_marker], info.markers[joint.j_marker]
    body_i, body_j = _engine_body(engine, mj), _engine_body(engine, mi)
    point_i, point_j = info.local_point(mj.id), info.local_point(mi.id)
    fr = info.frictions.get(joint.id)
    try:
        if joint.type == "REVOLUTE":
            kw = _friction_kwargs(fr, _REVOLUTE_FRICTION)
            mdl.add(Revolute(joint.name, body_i, body_j, point_i, point_j, **kw))
        else:
            kw = _friction_kwargs(fr, _TRANSLATIONAL_FRICTION)
            axis = info.plane.to_planar(mj.axes[:, 2])
            mdl.add(Translational(joint.name, body_i, body_j, point_i, axis, point_j, **kw))
    except ModelError as exc:
        raise ModelError(f"{info.source}: Constraint_Joint id={joint.id}: {exc}") from None


def _outputs(info, kinematics=marker_kinematics) -> dict:
    """``{"req<id>.expr<k>": Output}`` of the Post_Request expressions, in request order
    (``kinematics(info, result)``: the run's marker kinematics)."""
    from ...model import Output

    outputs = {}
    for req in info.requests:
        desc = f"Post_Request {req.id}" + (f" ({req.comment})" if req.comment else "")
        for k, text, fn, unit in req.expressions:
            outputs[f"req{req.id}.expr{k}"] = Output(
                output_function(info, fn, kinematics), unit or "",
                f"{desc}: {text} [{unit or 'model units'}]", label=text)
    return outputs


def output_function(info, fn, kinematics=marker_kinematics):
    """An Output function ``result -> ndarray (N,)`` for an expression compiled against
    ``info`` (:meth:`.expressions.Expression.compile`), evaluated on the result's
    :func:`~.kinematics.marker_kinematics` (or ``kinematics(info, result)``: the spatial
    family's :func:`~.spatial_kinematics.spatial_marker_kinematics`)."""

    def output(result):
        value = fn(kinematics(info, result))
        return np.broadcast_to(np.asarray(value, dtype=float), (len(result.t),)) + 0.0

    return output
