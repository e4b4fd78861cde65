"""Newton's cradle: a row of equal balls, the first striking the others; rigid contacts with
Newton's impact law.

Built with the spatial family and rigid contacts between neighbouring balls: ``n`` balls of
radius ``R`` (m) and mass ``m`` (kg) in a row along x, ``gap`` (m) apart, without gravity; the
first moves at ``v0`` (m/s). Event-driven (the default method), each impact is located and
resolved by itself, the momentum passing down the row: with ``e = 1`` the last ball leaves at
``v0`` and the others stop (exactly, when ``gap > 0``). With ``gap = 0`` every contact of the
row is touching at the first impact, and the one impact problem over all of them (as a
Moreau-Jean step over close impacts) spreads the momentum instead: the two runs show the
difference between sequential and simultaneous impacts.

Outputs: ``v_first``, ``v_last`` (m/s, along x), ``energy`` (J).
"""

from __future__ import annotations

from nonsmooth.contact import Contact, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, SpatialModel

NAME = "newtons_cradle"
DESCRIPTION = "Newton's cradle: a row of balls with rigid contacts and Newton's impacts"

PARAMETERS = [
    Parameter("n", 5, "-", "number of balls (a whole number)", 2, 50),
    Parameter("R", 0.02, "m", "radius of the balls", 0.0, 1.0, exclusive=True),
    Parameter("m", 0.1, "kg", "mass of each ball", 0.0, 1e3, exclusive=True),
    Parameter("gap", 1e-4, "m", "gap between neighbouring balls", 0.0, 1.0),
    Parameter("e", 1.0, "-", "coefficient of restitution", 0.0, 1.0),
    Parameter("v0", 1.0, "m/s", "speed of the first ball", 0.0, 100.0, exclusive=True),
    Parameter("t_end", 0.1, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "v_first": ("m/s", "velocity of the first ball along x"),
    "v_last": ("m/s", "velocity of the last ball along x"),
    "energy": ("J", "kinetic energy"),
}


def build(**params) -> Model:
    """Build the cradle; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    if p["n"] != int(p["n"]):
        raise ModelError(f"{NAME}: n = {p['n']!r} is not a whole number of balls; give 2 to 50")
    n, R, m = int(p["n"]), p["R"], p["m"]
    mdl = SpatialModel(NAME)
    balls = []
    for i in range(n):
        balls.append(mdl.add(Body(f"ball{i + 1}", m, (0.4 * m * R * R,) * 3,
                                  position=(i * (2.0 * R + p["gap"]), 0.0, 0.0),
                                  velocity=(p["v0"] if i == 0 else 0.0, 0.0, 0.0))))
    for i in range(n - 1):
        mdl.add(Contact(f"c{i + 1}{i + 2}", balls[i], Sphere(R), balls[i + 1], Sphere(R),
                        normal="rigid", restitution=p["e"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {"v_first": lambda r: r.v[:, 0], "v_last": lambda r: r.v[:, 6 * (n - 1)],
               "energy": lambda r: r.T}
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("v_first", "v_last"),
                 motion_outputs=("v_first", "v_last"))
