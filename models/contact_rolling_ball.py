"""A ball launched sliding on a level plate: Coulomb friction turns its slide into rolling.

Built with the spatial family (``nonsmooth.spatial``) and a compliant point contact
(``nonsmooth.contact``): a solid ball (mass ``m`` kg, radius ``R`` m, inertia ``2/5 m R^2``)
rests on a plate (a ground ``Plane`` at ``z = 0``) at Hertz's static penetration under its
weight (``E``, ``nu``: one material against itself) and is launched at ``v0`` (m/s) along +x
without spin. Friction at the contact point: Coulomb with exact stick, dynamic coefficient
``mu``, static ``mu_s``.

Closed form (a classical exercise: Routh, *Dynamics of a System of Rigid Bodies*, 1905; e.g.
Goldstein's problems): while the ball slides, friction ``mu m g`` slows the centre and spins the
ball up, ``v = v0 - mu g t``, ``omega R = 5/2 mu g t``; they meet, and the contact point comes to
rest (the ``stick`` event of the contact), at ``t_roll = 2 v0 / (7 mu g)`` with ``v = omega R =
5/7 v0``; from then on the ball rolls at that speed, the friction force zero (a ball rolling on
a level plane needs none). The contact's compliance changes the time by about the relative
static penetration (~1e-5 here).

Outputs: ``vx`` (m/s, the centre's speed), ``omegaR`` (m/s, ``omega_y R``: equal to ``vx``
while rolling), ``slip`` (m/s, the contact point's velocity ``vx - omega_y R``), ``Fx`` (N, the
friction force on the ball), ``N`` (N, the contact force), and every element output
(``floor.gap``, ``floor.Fx``, ``ball.wy`` ...). Events: the contact ``floor``'s ``stick``
(``result.events.filter("floor", "stick")``).
"""

from __future__ import annotations

import math

from nonsmooth.contact import Contact, Hertz, Plane, Sphere
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_rolling_ball"
DESCRIPTION = "Ball launched sliding on a plate: Coulomb friction, rolls after 2 v0 / (7 mu g)"

#: Ranges (SI): mass (0, 1e3] kg, radius (0, 1] m, launch speed (0, 100] m/s, Young's modulus
#: (0, 1e13] Pa, Poisson's ratio [0, 0.5), coefficients (0, 10], gravity (0, 1e3] m/s^2, end
#: time (0, 100] s.
PARAMETERS = [
    Parameter("m", 1.0, "kg", "mass of the ball", 0.0, 1e3, exclusive=True),
    Parameter("R", 0.1, "m", "radius of the ball", 0.0, 1.0, exclusive=True),
    Parameter("v0", 2.0, "m/s", "launch speed along +x (no spin)", 0.0, 100.0, exclusive=True),
    Parameter("mu", 0.2, "-", "dynamic friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("mu_s", 0.3, "-", "static friction coefficient (>= mu)", 0.0, 10.0,
              exclusive=True),
    Parameter("E", 210e9, "Pa", "Young's modulus of ball and plate (steel)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu", 0.3, "-", "Poisson's ratio of ball and plate", 0.0, 0.4999),
    Parameter("e", 0.5, "-", "coefficient of restitution of the contact", 0.0, 1.0,
              exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 0.4, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "vx": ("m/s", "velocity of the ball's centre along x"),
    "omegaR": ("m/s", "the ball's spin about y times its radius"),
    "slip": ("m/s", "velocity of the ball's contact point along x (vx - omega_y R)"),
    "Fx": ("N", "friction force on the ball along x"),
    "N": ("N", "contact force"),
}


def rolling_time(v0: float, mu: float, g: float) -> float:
    """The time (s) at which a ball launched sliding at ``v0`` starts to roll,
    ``2 v0 / (7 mu g)``."""
    return 2.0 * v0 / (7.0 * mu * g)


def build(**params) -> Model:
    """Build the sliding ball; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["mu_s"] < p["mu"]:
        raise ModelError(f"model {NAME}: mu_s = {p['mu_s']:g} must be >= mu = {p['mu']:g}")
    m, R = p["m"], p["R"]
    K = 4.0 / 3.0 * p["E"] / (2.0 * (1.0 - p["nu"] ** 2)) * math.sqrt(R)
    d = (m * p["g"] / K) ** (2.0 / 3.0)  # Hertz's static penetration under the weight
    mdl = SpatialModel(NAME)
    ball = mdl.add(Body("ball", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, R - d),
                        velocity=(p["v0"], 0.0, 0.0)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                    normal=Hertz(E=p["E"], nu=p["nu"]), restitution=p["e"], mu=p["mu"],
                    mu_s=p["mu_s"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {
        "vx": lambda r: r["ball.vx"],
        "omegaR": lambda r: r["ball.wy_world"] * R,
        "slip": lambda r: r["ball.vx"] - r["ball.wy_world"] * R,
        "Fx": lambda r: r["floor.Fx"],
        "N": lambda r: r["floor.N"],
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("vx", "omegaR", "Fx"),
                 motion_outputs=("vx", "omegaR"))
