"""Housner's rocking block: a rigid block rocking on a rigid floor, losing angular velocity at
each impact by ``1 - 3/2 sin^2(alpha)``.

Built with the spatial family and a rigid contact: a uniform block of half-width ``b``,
half-height ``h`` and half-depth ``d`` (m), mass ``m`` (kg), rests on its edge ``x = +b``
tilted by ``tilt`` times its slenderness angle ``alpha = atan(b / h)`` and is released at rest.
It falls back, lands on the other edge (the landing corners plastic, ``e = 0``, and sticking,
``mu``), rocks about it, and so on. At every impact its angular velocity is multiplied by
Housner's factor ``1 - 3/2 sin^2(alpha)`` (Housner 1963: the angular momentum about the
landing edge conserved, the other edge lifting off), exact for the event-driven run.

Outputs: ``angle`` (rad, the block's rotation about y from upright, > 0 rocking on the edge
``x = +b``), ``omega`` (rad/s, its angular velocity about y), ``energy`` (J).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Box, Contact, Plane
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "rocking_block"
DESCRIPTION = "Housner's rocking block on a rigid floor (plastic, sticking impacts)"

PARAMETERS = [
    Parameter("b", 0.1, "m", "half-width of the block (x)", 0.0, 10.0, exclusive=True),
    Parameter("h", 0.4, "m", "half-height of the block (z)", 0.0, 10.0, exclusive=True),
    Parameter("d", 0.05, "m", "half-depth of the block (y)", 0.0, 10.0, exclusive=True),
    Parameter("m", 2.0, "kg", "mass of the block", 0.0, 1e4, exclusive=True),
    Parameter("tilt", 0.5, "-", "initial tilt as a fraction of the slenderness angle", 0.0,
              1.0, exclusive=True),
    Parameter("mu", 1.0, "-", "friction coefficient of the floor (the corners stick)", 0.0,
              10.0, exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "angle": ("rad", "rotation about y from upright (> 0: on the edge x = +b)"),
    "omega": ("rad/s", "angular velocity about y"),
    "energy": ("J", "kinetic + potential energy"),
}


def housner_factor(b: float, h: float) -> float:
    """The angular velocity's factor at an impact, ``1 - 3/2 sin^2(atan(b / h))`` (-)."""
    return 1.0 - 1.5 * math.sin(math.atan(b / h)) ** 2


def build(**params) -> Model:
    """Build the rocking block; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    b, h, d, m = p["b"], p["h"], p["d"], p["m"]
    theta = p["tilt"] * math.atan(b / h)
    c, s = math.cos(theta), math.sin(theta)
    Ry = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    mdl = SpatialModel(NAME)
    inertia = (m / 3 * (d * d + h * h), m / 3 * (b * b + h * h), m / 3 * (b * b + d * d))
    block = mdl.add(Body("block", m, inertia, position=tuple(-(Ry @ np.array([b, 0.0, -h]))),
                         orientation=Ry))
    mdl.add(Contact("floor", block, Box((b, d, h)), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal="rigid", restitution=0.0, mu=p["mu"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def angle(r):  # the quaternion's rotation about y (w, x, y, z)
        return 2.0 * np.arctan2(r.q[:, 5], r.q[:, 3])

    columns = {"angle": angle, "omega": lambda r: r.v[:, 4], "energy": lambda r: r.T + r.V}
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("angle", "omega"),
                 motion_outputs=("angle", "omega"))
