"""Painleve's rod: a rod sliding on its end over a rigid floor with Coulomb friction, whose
contact problem has no solution above a critical friction coefficient.

Built with the spatial family and a rigid contact: a uniform rod of length ``2 l`` (m) and mass
``m`` (kg) leans at ``theta`` (rad) to the floor, its lower end (a small sphere of radius
``rho``) on the floor, and slides along x at ``v0`` (m/s) (``v0 < 0``: away from the side the
rod leans to, where friction turns it into the floor). The sliding end's normal response to
its normal force, friction included, is ``(1 + 3 cos^2 theta - 3 mu sin theta cos theta) /
m`` (``normal_response``): positive, the motion is unique; negative, the problem is
inconsistent (no solution) or indeterminate (two), which the run reports with the contact,
``mu`` and the configuration instead of picking a motion (Painleve 1895). The smallest critical
coefficient is ``4/3``, at ``tan theta = 2``.

Outputs: ``tip_gap`` (m), ``tip_speed`` (m/s, the end's sliding speed along x), ``N`` (N, the
floor's normal force), ``angle`` (rad, the rod's angle to the floor).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Contact, Plane, Sphere
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "painleve_rod"
DESCRIPTION = "Painleve's sliding rod on a rigid floor (consistent below the critical mu)"

PARAMETERS = [
    Parameter("l", 0.5, "m", "half-length of the rod", 0.0, 10.0, exclusive=True),
    Parameter("m", 1.0, "kg", "mass of the rod", 0.0, 1e3, exclusive=True),
    Parameter("theta", math.atan(2.0), "rad", "angle of the rod to the floor", 0.0,
              0.5 * math.pi, exclusive=True),
    Parameter("mu", 1.0, "-", "friction coefficient of the floor", 0.0, 10.0),
    Parameter("v0", -1.0, "m/s", "initial sliding speed along x", -100.0, 100.0),
    Parameter("rho", 1e-6, "m", "radius of the rod's end", 0.0, 1.0, exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 0.3, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "tip_gap": ("m", "the rod's end above the floor"),
    "tip_speed": ("m/s", "the end's velocity along x"),
    "N": ("N", "the floor's normal force"),
    "angle": ("rad", "the rod's angle to the floor"),
}


def normal_response(mu: float, theta: float, m: float = 1.0) -> float:
    """The sliding end's normal acceleration per unit normal force, friction included (1/kg),
    for the sliding direction that turns the rod into the floor."""
    c, s = math.cos(theta), math.sin(theta)
    return (1.0 + 3.0 * c * c - 3.0 * mu * s * c) / m


def critical_mu(theta: float) -> float:
    """The friction coefficient (-) above which the problem is inconsistent or indeterminate,
    ``(1 + 3 cos^2) / (3 sin cos)``."""
    c, s = math.cos(theta), math.sin(theta)
    return (1.0 + 3.0 * c * c) / (3.0 * s * c)


def build(**params) -> Model:
    """Build the sliding rod; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    half, m, theta, rho = p["l"], p["m"], p["theta"], p["rho"]
    c, s = math.cos(theta), math.sin(theta)
    phi = 0.5 * math.pi - theta  # the rod's axis (body z) turned about y to (c, 0, s)
    Ry = np.array([[math.cos(phi), 0, math.sin(phi)], [0, 1, 0],
                   [-math.sin(phi), 0, math.cos(phi)]])
    centre = np.array([0.0, 0.0, rho]) + half * np.array([c, 0.0, s])
    inertia = m * (2 * half) ** 2 / 12
    mdl = SpatialModel(NAME)
    rod = mdl.add(Body("rod", m, (inertia, inertia, 1e-6 * inertia), position=tuple(centre),
                       orientation=Ry, velocity=(p["v0"], 0.0, 0.0)))
    mdl.add(Contact("tip", rod, Sphere(rho, position=(0, 0, -half)), ground,
                    Plane((0, 0, 0), (0, 0, 1)), normal="rigid", restitution=0.0, mu=p["mu"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def angle(r):  # the rod's axis (body z) elevation: asin(R[2, 2]), p = (w, x, y, z)
        x, y = r.q[:, 4], r.q[:, 5]
        return np.arcsin(np.clip(1.0 - 2.0 * (x * x + y * y), -1.0, 1.0))

    def tip_speed(r):  # u_x - l (omega x axis)_x, omega = R omega', axis = R e_z
        w, x, y, z = r.q[:, 3], r.q[:, 4], r.q[:, 5], r.q[:, 6]
        R00, R01 = 1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z)
        return r.v[:, 0] - half * (R00 * r.v[:, 4] - R01 * r.v[:, 3])

    columns = {"tip_gap": lambda r: r["tip.gap"], "tip_speed": tip_speed,
               "N": lambda r: r["tip.N"], "angle": angle}
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("tip_speed", "N", "angle"),
                 motion_outputs=("tip_gap", "angle"))
