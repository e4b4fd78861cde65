"""A box launched down an incline: it slides, stops at the closed-form time and holds.

Built with the spatial family (``nonsmooth.spatial``) and a compliant contact
(``nonsmooth.contact``): a uniform cube (mass ``m`` kg, half side ``a`` m) lies on its face on a
plane inclined by ``slope`` (deg, about the world y axis; down the slope is along
``(cos slope, 0, -sin slope)``), resting at the static compression of its four corners (each a
linear spring-damper ``k d + c d'``, ``c = 2 zeta sqrt(k m / 4)``), and is launched down the
slope at ``v0`` (m/s). Friction: Coulomb with exact stick at the centre of pressure of the
corner forces, dynamic coefficient ``mu``, static ``mu_s``.

Closed form (with ``mu cos(slope) > sin(slope)``): the box decelerates at ``g (mu cos(slope) -
sin(slope))`` and stops at ``t_stop = v0 / (g (mu cos(slope) - sin(slope)))`` after ``s_stop =
v0^2 / (2 g (mu cos(slope) - sin(slope)))``; with ``mu_s >= tan(slope)`` it then holds, its
position not changing at all (the ``stick`` event of the contact, no creep: compliant-friction
engines creep there by design). ``mu cos(slope) <= sin(slope)``: it never stops.

Outputs: ``s`` (m, the displacement along the slope from the start), ``v`` (m/s, its velocity
along the slope), ``N`` (N, the sum of the corner forces), ``F_T`` (N, the friction force on
the box along the slope, negative: up the slope), and every element output (``slope.Fx``,
``slope.gap``, ``box.x`` ...). Events: ``stick`` of the contact ``slope``.
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Box, Contact, Linear, Plane
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_box_incline"
DESCRIPTION = "Box sliding down an incline: stops at the closed-form time, holds without creep"

#: Ranges (SI): mass (0, 1e4] kg, half side (0, 10] m, slope [0, 60] deg, coefficients (0, 10],
#: launch speed [0, 100] m/s, corner stiffness (0, 1e12] N/m, damping ratio [0, 10], gravity
#: (0, 1e3] m/s^2, end time (0, 1e3] s.
PARAMETERS = [
    Parameter("m", 1.0, "kg", "mass of the box", 0.0, 1e4, exclusive=True),
    Parameter("a", 0.05, "m", "half side of the cube", 0.0, 10.0, exclusive=True),
    Parameter("slope", 15.0, "deg", "inclination of the plane", 0.0, 60.0),
    Parameter("mu", 0.4, "-", "dynamic friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("mu_s", 0.5, "-", "static friction coefficient (>= mu)", 0.0, 10.0,
              exclusive=True),
    Parameter("v0", 1.0, "m/s", "launch speed down the slope", 0.0, 100.0),
    Parameter("k", 1e5, "N/m", "stiffness of each corner's contact", 0.0, 1e12, exclusive=True),
    Parameter("zeta", 0.5, "-", "damping ratio of a corner (with a quarter of the mass)", 0.0,
              10.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 2.5, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "s": ("m", "displacement of the box along the slope (down positive) from the start"),
    "v": ("m/s", "velocity of the box along the slope"),
    "N": ("N", "contact force (sum over the corners)"),
    "F_T": ("N", "friction force on the box along the slope (down positive)"),
}


def stop_time(v0: float, mu: float, slope_deg: float, g: float = 9.81) -> float:
    """``v0 / (g (mu cos(slope) - sin(slope)))`` (s): when the sliding box stops (inf if it
    never does)."""
    a = g * (mu * math.cos(math.radians(slope_deg)) - math.sin(math.radians(slope_deg)))
    return v0 / a if a > 0.0 else math.inf


def build(**params) -> Model:
    """Build the box on the incline; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["mu_s"] < p["mu"]:
        raise ModelError(f"model {NAME}: mu_s = {p['mu_s']:g} must be >= mu = {p['mu']:g}")
    m, h, k, g = p["m"], p["a"], p["k"], p["g"]
    alpha = math.radians(p["slope"])
    c, s = math.cos(alpha), math.sin(alpha)
    n = np.array([s, 0.0, c])  # the plane's normal
    down = np.array([c, 0.0, -s])  # down the slope
    rest = m * g * c / (4.0 * k)  # each corner's static compression
    mdl = SpatialModel(NAME)
    box = mdl.add(Body("box", m, (m * (2.0 * h) ** 2 / 6.0,) * 3, position=(h - rest) * n,
                       orientation=np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]),
                       velocity=p["v0"] * down))
    mdl.add(Contact("slope", box, Box((h, h, h)), ground, Plane((0.0, 0.0, 0.0), n),
                    normal=Linear(k, 2.0 * p["zeta"] * math.sqrt(k * m / 4.0)),
                    mu=p["mu"], mu_s=p["mu_s"]))
    mdl.add(Gravity(g))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def along(r, prefix):
        return r[f"{prefix}x"] * down[0] + r[f"{prefix}z"] * down[2]

    columns = {
        "s": lambda r: along(r, "box.") - along(r, "box.")[0],
        "v": lambda r: along(r, "box.v"),
        "N": lambda r: r["slope.N"],
        "F_T": lambda r: along(r, "slope.F"),
    }
    outputs = {key: Output(columns[key], *OUTPUT_UNITS[key]) for key in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("s", "v", "F_T"),
                 motion_outputs=("s", "v"))
