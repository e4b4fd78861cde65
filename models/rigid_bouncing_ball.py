"""A ball dropped on a rigid floor: Newton's impacts, bouncing to rest in finite time.

Built with the spatial family and a rigid contact (``Contact(..., normal="rigid")``): a ball of
radius ``R`` (m) and mass ``m`` (kg) starts at rest with its lowest point ``h`` (m) above a
rigid floor (a ground ``Plane`` at ``z = 0``) and falls under gravity ``g``; each impact
returns ``e`` times the approach speed (Newton's law). Event-driven (the default method), the
impacts are events at ``t_k = t_1 + 2 v_1 (e + ... + e^k) / g`` (``t_1 = sqrt(2 h / g)``,
``v_1 = g t_1``) and they accumulate at ``t_inf = t_1 + 2 v_1 e / (g (1 - e))``, where the run
closes the contact (``result.events.filter("floor", kind="accumulation")``); after it the ball
rests. With ``method="MoreauJean", dt=...`` the same model is time-stepped (Siconos'
``BouncingBallTS`` scheme).

Outputs: ``height`` (m, the gap), ``vz`` (m/s), ``N`` (N, the floor's normal force while the
contact is closed), ``energy`` (J, kinetic + potential).
"""

from __future__ import annotations

import math

from nonsmooth.contact import Contact, Plane, Sphere
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "rigid_bouncing_ball"
DESCRIPTION = "Ball on a rigid floor: Newton's impacts accumulating to rest"

PARAMETERS = [
    Parameter("R", 0.02, "m", "radius of the ball", 0.0, 1.0, exclusive=True),
    Parameter("m", 0.1, "kg", "mass of the ball", 0.0, 1e3, exclusive=True),
    Parameter("h", 1.0, "m", "drop height: the ball's lowest point above the floor", 0.0, 10.0,
              exclusive=True),
    Parameter("e", 0.8, "-", "coefficient of restitution", 0.0, 1.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 6.0, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "height": ("m", "the ball's lowest point above the floor (the contact's gap)"),
    "vz": ("m/s", "vertical velocity of the ball"),
    "N": ("N", "the floor's normal force (closed contact)"),
    "energy": ("J", "kinetic + potential energy"),
}


def accumulation_time(h: float, e: float, g: float) -> float:
    """Newton's limit of the impact times (s): ``t_1 + 2 v_1 e / (g (1 - e))``."""
    t1 = math.sqrt(2.0 * h / g)
    return t1 + 2.0 * g * t1 * e / (g * (1.0 - e))


def build(**params) -> Model:
    """Build the dropped ball; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    R, m = p["R"], p["m"]
    mdl = SpatialModel(NAME)
    ball = mdl.add(Body("ball", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, R + p["h"])))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                    normal="rigid", restitution=p["e"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {
        "height": lambda r: r["floor.gap"],
        "vz": lambda r: r["ball.vz"],
        "N": lambda r: r["floor.N"],
        "energy": lambda r: r.T + r.V,
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION, plot_outputs=("height", "vz", "N"),
                 motion_outputs=("height", "vz"))
