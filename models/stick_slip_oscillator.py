"""A block on a moving belt, tied to the wall by a spring and a damper: stick-slip.

The belt is a body driven at ``v_belt`` along x (a driving constraint on its own translational
joint); the block slides on it through a frictional translational joint (static coefficient
``mu_s``, dynamic ``mu_d``); the spring ``k`` and damper ``c`` tie the block to the wall. With
``v_belt = 0`` it is the Coulomb free-vibration problem. Closed forms (``F_s = mu_s m g``,
``F_d = mu_d m g``, ``omega = sqrt(k/m)``, ``c = 0``):

* free vibration: half-cycles of ``pi/omega`` about the offsets ``+-F_d/k``, stop at the first
  turning point with ``|k x| <= F_s``;
* belt limit cycle: ``T_stick = 2 (F_s - F_d)/(k v_belt)``,
  ``T_slip = (2 pi - 2 atan2(omega D, v_belt))/omega`` with ``D = (F_s - F_d)/k``.

Outputs: ``x`` (m, from the spring's unstretched position), ``v`` (m/s, absolute), ``v_r`` (m/s,
``v - v_belt``), ``lambda_N`` (N, the belt's support force on the block, up), ``F_f`` (N, friction
on the block along x), ``mode`` (+1 slip+, -1 slip-, 0 stick).
"""

from __future__ import annotations

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
from nonsmooth.planar.forces import Damper, Gravity, Spring
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.planar.model import Body, PlanarModel, PointMass, ground

NAME = "stick_slip_oscillator"
DESCRIPTION = "Block on a driven belt, spring and damper to the wall (stick-slip)"

#: Ranges (SI): mass (0, 1e9] kg, stiffness (0, 1e10] N/m, damping [0, 1e8] N s/m, friction
#: coefficients [0, 10], belt speed, position and velocity up to 1 km/s and 1 km, gravity
#: (0, 1e3] m/s^2 (about 100 g), end time (0, 1e3] s (a million outputs at the 1 ms step).
PARAMETERS = [
    Parameter("m", 1.0, "kg", "block mass", 0.0, 1e9, exclusive=True),
    Parameter("k", 100.0, "N/m", "spring stiffness", 0.0, 1e10, exclusive=True),
    Parameter("c", 0.0, "N s/m", "damper to the wall", 0.0, 1e8),
    friction_coefficient("mu_s", 0.4, "static friction coefficient (>= mu_d)", static=True),
    friction_coefficient("mu_d", 0.3, "dynamic friction coefficient"),
    Parameter("v_belt", 0.1, "m/s", "belt speed along x", -1e3, 1e3),
    Parameter("x0", 0.0, "m", "initial block position (spring unstretched at 0)", -1e3, 1e3),
    Parameter("v0", 0.1, "m/s", "initial block velocity (absolute)", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    *FRICTION_PARAMETERS,
]

SPRING_LENGTH = 1.0  # m: the wall anchor sits this far behind the block's rest position


def build(**params) -> Model:
    """Build the oscillator; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    check_friction_coefficients(NAME, p)
    mdl = PlanarModel(NAME)
    belt = mdl.add(Body("belt", 1.0, 1.0, velocity=(p["v_belt"], 0.0)))
    block = mdl.add(PointMass("block", p["m"], position=(p["x0"], 0.0),
                              velocity=(p["v0"], 0.0)))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("belt_drive", track, speed=p["v_belt"]))
    mdl.add(Translational("contact", belt, block, (0.0, 0.0), (1.0, 0.0), mu=p["mu_d"],
                          mu_s=p["mu_s"], normal="left", law=p["friction"],
                          friction=friction_params(p)))
    wall = (-SPRING_LENGTH, 0.0)
    mdl.add(Spring("spring", ground, wall, block, (0.0, 0.0), p["k"], SPRING_LENGTH))
    if p["c"] > 0:
        mdl.add(Damper("damper", ground, wall, block, (0.0, 0.0), p["c"]))
    mdl.add(Gravity(g=p["g"], bodies=[block]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    ix = system.coordinate_names.index("block.x")
    outputs = {
        "x": Output(lambda r: r.q[:, ix], "m", "block position"),
        "v": Output(lambda r: r.v[:, ix], "m/s", "block velocity"),
        "v_r": Output(lambda r: r.v_T[:, 0], "m/s", "block velocity relative to the belt"),
        "lambda_N": Output(lambda r: r.lambda_N[:, 0], "N", "support force on the block"),
        "F_f": Output(lambda r: r.F_T[:, 0], "N", "friction force on the block along x"),
        "mode": Output(lambda r: r.modes[:, 0], "-", "+1 slip+, -1 slip-, 0 stick"),
    }
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION,
                 plot_outputs=("x", "v", "F_f", "mode"), motion_outputs=("x", "v"))
