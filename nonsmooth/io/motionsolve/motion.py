"""``Motion_Joint``: a prescribed motion of a joint's degree of freedom, read into SI.

A ``Motion_Joint`` (``joint_id``, ``motion_type`` ``R`` | ``T``, ``val_type`` ``D`` | ``V``,
``type = "EXPRESSION"`` with ``expr``) drives

* ``motion_type = "R"`` (revolute or cylindrical joint): the rotation ``AZ(I, J)`` of the I
  marker about the J marker's z-axis (rad);
* ``motion_type = "T"`` (translational or cylindrical joint): the displacement ``DZ(I, J, J)`` of
  the I marker's origin along the J marker's z-axis (model length units).

``motion_type`` defaults to ``R`` on a revolute and ``T`` on a translational joint; a cylindrical
joint needs it. ``val_type = "D"`` (the default): ``expr`` is the displacement as a function of
``TIME`` only (the :mod:`.expressions` language without measures; a number with the suffix ``D``,
``90D``, is in degrees); ``val_type = "V"``: ``expr`` is a constant velocity (no ``TIME``), with
the optional ``ic_disp``. Accelerations (``val_type = "A"``), ``USERSUB`` motions and motions
that depend on the system's state are refused by name. Built only in the spatial family
(:mod:`.spatial_builder`: a :class:`nonsmooth.spatial.Driver`).

Reference: Altair MotionSolve Reference Guide, XML format, ``Motion_Joint`` (and its
description: ``AZ(I, J) - expr = 0``, ``DZ(I, J, J) - expr = 0``).
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import ModelError
from .element import Element
from .expressions import Expression
from .records import JointMotion
from .units import LENGTH, RATE, VELOCITY

__all__ = ["read_motion", "MOTION_JOINT_TYPES"]

#: the joints each motion_type drives
MOTION_JOINT_TYPES = {"R": ("REVOLUTE", "CYLINDRICAL"), "T": ("TRANSLATIONAL", "CYLINDRICAL")}
_DEFAULT_DOF = {"REVOLUTE": "R", "TRANSLATIONAL": "T"}
#: a number with MotionSolve's degree suffix (``90D``, ``1.5d``; not ``1D3``, an exponent)
_DEGREES = re.compile(r"(?<![\w.])(\d+\.?\d*|\.\d+)D(?![\w.])", re.IGNORECASE)


class _TimeOnly:
    """The kinematics an expression of ``TIME`` alone is evaluated on (``t``: s, (N,))."""

    def __init__(self, t, where: str):
        self.t = np.atleast_1d(np.asarray(t, dtype=float))
        self.where = where

    def __getattr__(self, name):
        raise ModelError(f"{self.where}: a motion must be a function of TIME only (no marker "
                         "measures or FRICTION)")


def read_motion(e: Element, info, names: set) -> JointMotion:
    """The :class:`~.records.JointMotion` of one Motion_Joint element (``info``: the
    :class:`~.records.MotionSolveModel`, its joints read; ``names``: the labels taken)."""
    mid = e.ident()
    jid = e.ident("joint_id")
    joint = info.joints.get(jid)
    if joint is None:
        raise e.error(f"joint_id {jid} refers to no Constraint_Joint")
    dof = e.text("motion_type", _DEFAULT_DOF.get(joint.type, ""), ("R", "T")) \
        if e.has("motion_type") or joint.type in _DEFAULT_DOF else None
    if dof is None:
        raise e.error(f"motion_type is required on the {joint.type} joint {jid}: give R "
                      "(rotation) or T (translation)")
    if joint.type not in MOTION_JOINT_TYPES[dof]:
        raise e.error(f"motion_type = {dof!r} cannot drive the {joint.type} joint {jid}; "
                      f"allowed joints: {', '.join(MOTION_JOINT_TYPES[dof])}")
    e.text("type", "EXPRESSION", ("EXPRESSION",))
    val_type = e.text("val_type", "D", ("D", "V"))
    text = e.text("expr")
    src = _DEGREES.sub(r"(\1*PI/180)", text)
    fn, _ = Expression(e, "expr", src, info).compile()
    where = f"{e.source}: {e.where}: expr = {text!r}"
    fn(_TimeOnly(0.0, where))  # refuses measures now
    label = re.sub(r"\W+", "_", e.text("label", "")).strip("_")
    name = label if label and label not in names else f"motion{mid}"
    names.add(name)
    units = info.units
    if val_type == "D":
        scale = units.factor(LENGTH) if dof == "T" else 1.0

        def position(t: float) -> float:
            return float(np.asarray(fn(_TimeOnly(t, where))).ravel()[0]) * scale

        return JointMotion(mid, name, jid, dof, val_type, text, position=position)
    if "TIME" in src.upper():
        raise e.error(f"expr = {text!r}: a velocity motion (val_type = V) must be a constant "
                      "here; give the displacement (val_type = D) as a function of TIME")
    speed = float(np.asarray(fn(_TimeOnly(0.0, where))).ravel()[0])
    speed *= units.factor(VELOCITY) if dof == "T" else units.factor(RATE)
    ic = e.number("ic_disp", dim=LENGTH if dof == "T" else (0, 0, 0, 0)) \
        if e.has("ic_disp") else None
    return JointMotion(mid, name, jid, dof, val_type, text, speed=speed, ic_disp=ic)
