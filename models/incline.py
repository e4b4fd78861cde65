"""A block on an inclined plane whose angle is driven: sticking, breakaway and sliding.

The plane is a rigid body pinned to the ground at its hinge O = (0, 0); a driving constraint
sets its angle ``angle(t) = angle + rate t`` (rad, counter-clockwise from +x). The block (a point
mass) slides on the plane through a frictional translational joint (static coefficient
``mu_s``, dynamic ``mu_d``); gravity ``g`` acts along -y.

Sign conventions: ``s`` is the block's position along the plane measured from the hinge, up the
slope (``u = (cos angle, sin angle)``) (m); ``v = ds/dt`` its velocity relative to the plane (m/s);
``lambda_N`` the plane's normal force on the block along the outward normal
``n = (-sin angle, cos angle)`` (N, positive when the block rests on the plane); ``F_f`` the
friction force on the block along ``u`` (N); ``mode`` +1 slip+ (up), -1 slip- (down), 0 stick.

Closed forms (``rate = 0``): the block at rest sticks iff ``tan(angle) <= mu_s``; sliding down,
``d2s/dt2 = -g (sin(angle) - mu_d cos(angle))``. While stuck on a plane turning at a constant rate,
``lambda_N = m g cos(angle(t))`` and ``F_f = m g sin(angle(t)) - m s rate^2``; the block breaks
away when ``F_f = mu_s lambda_N`` (at ``tan(angle(t)) = mu_s`` for a block at the hinge, s = 0).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import (
    FRICTION_PARAMETERS,
    Model,
    Output,
    Parameter,
    check_friction_coefficients,
    check_parameters,
    friction_coefficient,
    friction_params,
)
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.planar.model import Body, PlanarModel, PointMass, ground

NAME = "incline"
DESCRIPTION = "Block on an inclined plane with a driven angle (stick, breakaway, sliding)"

#: Ranges (SI): mass (0, 1e9] kg, friction coefficients [0, 10], plane angle [-pi/2, pi/2],
#: plane rate |rate| <= 1e4 rad/s, gravity [0, 1e3] m/s^2 (about 100 g), position and velocity
#: up to 1 km and 1 km/s, end time (0, 1e3] s (a million outputs at the 1 ms output step).
PARAMETERS = [
    Parameter("m", 1.0, "kg", "block mass", 0.0, 1e9, exclusive=True),
    friction_coefficient("mu_s", 0.5, "static friction coefficient (>= mu_d)", static=True),
    friction_coefficient("mu_d", 0.4, "dynamic friction coefficient"),
    Parameter("angle", 0.3, "rad", "plane angle at t = 0, counter-clockwise from +x",
              -math.pi / 2, math.pi / 2),
    Parameter("rate", 0.0, "rad/s", "constant angular speed of the plane (0: fixed angle)",
              -1e4, 1e4),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3),
    Parameter("x0", 0.0, "m", "initial position along the plane from the hinge (up the slope)",
              -1e3, 1e3),
    Parameter("v0", 0.0, "m/s", "initial velocity along the plane relative to it", -1e3, 1e3),
    Parameter("t_end", 2.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    *FRICTION_PARAMETERS,
]

OUTPUT_UNITS = {
    "angle": ("rad", "plane angle, counter-clockwise from +x"),
    "s": ("m", "block position along the plane from the hinge, up the slope"),
    "v": ("m/s", "block velocity along the plane relative to it"),
    "lambda_N": ("N", "normal force of the plane on the block (outward normal)"),
    "F_f": ("N", "friction force on the block, up the slope"),
    "mode": ("-", "+1 slip+ (up), -1 slip- (down), 0 stick"),
}


def build(**params) -> Model:
    """Build the inclined plane; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    check_friction_coefficients(NAME, p)
    th, w, s0, v0 = p["angle"], p["rate"], p["x0"], p["v0"]
    c, sn = math.cos(th), math.sin(th)
    mdl = PlanarModel(NAME)
    # the plane's centre of mass is on the hinge: its weight does no work
    plane = mdl.add(Body("plane", 1.0, 1.0, position=(0.0, 0.0), angle=th, angular_velocity=w))
    block = mdl.add(PointMass("block", p["m"], position=(s0 * c, s0 * sn),
                              velocity=(v0 * c - w * s0 * sn, v0 * sn + w * s0 * c)))
    hinge = mdl.add(Revolute("hinge", ground, plane, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Driver("tilt", hinge, speed=w, initial=th))
    mdl.add(Translational("contact", plane, block, (0.0, 0.0), (1.0, 0.0), mu=p["mu_d"],
                          mu_s=p["mu_s"], normal="left", law=p["friction"],
                          friction=friction_params(p)))
    mdl.add(Gravity(g=p["g"]))
    system = mdl.compile()
    q0, v0_ = mdl.initial_state()
    names = system.coordinate_names
    ia, ix, iy = names.index("plane.theta"), names.index("block.x"), names.index("block.y")

    def along(res):
        a = res.q[:, ia]
        return res.q[:, ix] * np.cos(a) + res.q[:, iy] * np.sin(a)

    outputs_fn = {
        "angle": lambda res: res.q[:, ia],
        "s": along,
        "v": lambda res: res.v_T[:, 0],
        "lambda_N": lambda res: res.lambda_N[:, 0],
        "F_f": lambda res: res.F_T[:, 0],
        "mode": lambda res: res.modes[:, 0],
    }
    outputs = {name: Output(outputs_fn[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0_, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION,
                 plot_outputs=("angle", "s", "v", "lambda_N", "F_f", "mode"))

