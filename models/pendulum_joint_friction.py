"""Pendulum with LuGre friction in its revolute joint, read from MotionSolve XML.

Provenance: the Altair MotionSolve Reference Guide's own example for the ``Force_JointFriction``
element (``docs/method.md`` section 9), copied byte for byte into
``models/pendulum_joint_friction.xml`` next to this file (installed with the package), and
imported with :func:`nonsmooth.io.load_motionsolve`.

A 1 kg bob (inertia 1000 kg mm^2 about its centre of mass) hangs 100 mm from a revolute joint
whose axis is the global y-axis; gravity is -9810 mm/s^2 along z, so the plane of motion is x-z.
It is released from rest with the arm horizontal. The joint friction: ``mu_s = 0.5``,
``mu_d = 0.3``, ``stiction_trans_vel = 10 mm/s``, ``pin_radius = 5 mm`` (``friction_arm = 7``,
``bending_reaction_arm = 5`` mm have no effect in a planar model: no axial load, no bending),
MotionSolve's default LuGre bristle parameters (100 /mm, 0.316 s/mm, 0.0004 N s/mm), 5 s with
1000 output steps. Units of the file: N, kg, mm, s; outputs are reported in them.

Outputs (the file's Post_Requests): ``req1.expr2`` = ``WZ(I, J, J)``, the joint angular
velocity (rad/s); ``req2.expr2..4`` the friction force along the J marker axes (N, zero for a
revolute joint); ``req2.expr6..8`` the friction torque on the bob about the J marker axes (N mm;
about z = the joint axis).
"""

from __future__ import annotations

from pathlib import Path

from nonsmooth.io.motionsolve import load_motionsolve
from nonsmooth.model import Model

NAME = "pendulum_joint_friction"
DESCRIPTION = ("Pendulum with LuGre revolute-joint friction: MotionSolve's own Force_JointFriction "
               "example (its XML bundled with the package)")

PARAMETERS = []

XML = Path(__file__).with_name("pendulum_joint_friction.xml")


def build(**params) -> Model:
    """The model as the XML file gives it (no parameters: edit a copy of the file instead)."""
    if params:
        from nonsmooth.errors import ModelError

        raise ModelError(f"model {NAME}: unknown parameter(s) {', '.join(params)}; this model "
                         "has no parameters (it is the MotionSolve XML file as given)")
    model = load_motionsolve(XML)
    model.name = NAME
    return model
