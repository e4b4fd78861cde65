"""A steel ball dropped on a steel plate: Hertz contact with an exact coefficient of restitution.

Built with the spatial family (``nonsmooth.spatial``) and a compliant point contact
(``nonsmooth.contact``): a ball of radius ``R`` (m) and density ``rho`` (kg/m^3) (mass
``m = 4/3 pi R^3 rho``, inertia ``2/5 m R^2``) starts at rest with its lowest point ``h`` (m)
above a plate (a ground ``Plane`` at ``z = 0``) and falls under gravity ``g``. The contact force
is Hertz's ``K d^(3/2)`` (``K = 4/3 E* sqrt(R)``, ``E* = E / (2 (1 - nu^2))`` for one material
against itself; Johnson, *Contact Mechanics*, 1985, section 4.2) with the hysteretic damping that
realises the coefficient of restitution ``e`` exactly (``damping="exact"``, ``docs/method.md``,
"Contact: normal force laws and restitution").

Closed forms a run can be held to: the first impact at ``t = sqrt(2 h / g)`` with the speed
``sqrt(2 g h)``; between two impacts the ball flies freely (it lands at the speed it left at,
after ``2 v / g``); each impact returns ``e`` times the approach speed (up to gravity's
impulse during the contact, ~1e-4 s: a relative ~1e-4 at these speeds); the energy balance
(kinetic + potential + contact elastic = initial - contact damping work) holds to the
integrator's tolerance.

Outputs: ``height`` (m, the ball's lowest point above the plate: the gap), ``vz`` (m/s),
``N`` (N, the contact force), ``energy`` (J, kinetic + potential + elastic), and every element
output (``floor.gap``, ``floor.N``, ``floor.impact_speed``, ``ball.z`` ...). Events: ``touch``
and ``leave`` of the contact ``floor`` (``result.events.filter("floor")``), each with its
approach speed (``.speed``).
"""

from __future__ import annotations

import math

from nonsmooth.contact import Contact, Hertz, Plane, Sphere
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_bouncing_ball"
DESCRIPTION = "Steel ball dropped on a steel plate: Hertz contact, exact restitution"

#: Ranges (SI): radius (0, 1] m, density (0, 1e5] kg/m^3, drop height (0, 10] m, Young's
#: modulus (0, 1e13] Pa, Poisson's ratio [0, 0.5), restitution (0, 1], gravity (0, 1e3] m/s^2,
#: end time (0, 100] s.
PARAMETERS = [
    Parameter("R", 0.01, "m", "radius of the ball", 0.0, 1.0, exclusive=True),
    Parameter("rho", 7850.0, "kg/m^3", "density of the ball (steel)", 0.0, 1e5,
              exclusive=True),
    Parameter("h", 0.05, "m", "drop height: the ball's lowest point above the plate", 0.0, 10.0,
              exclusive=True),
    Parameter("E", 210e9, "Pa", "Young's modulus of ball and plate (steel)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu", 0.3, "-", "Poisson's ratio of ball and plate", 0.0, 0.4999),
    Parameter("e", 0.8, "-", "coefficient of restitution", 0.0, 1.0, exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 0.5, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "height": ("m", "the ball's lowest point above the plate (the contact's gap)"),
    "vz": ("m/s", "vertical velocity of the ball"),
    "N": ("N", "contact force"),
    "energy": ("J", "kinetic + potential + contact elastic energy"),
}


def mass(R: float, rho: float) -> float:
    """The ball's mass (kg) ``4/3 pi R^3 rho``."""
    return 4.0 / 3.0 * math.pi * R ** 3 * rho


def stiffness(R: float, E: float, nu: float) -> float:
    """Hertz's ``K = 4/3 E* sqrt(R)`` (N/m^1.5) of a sphere on a plane of one material."""
    return 4.0 / 3.0 * E / (2.0 * (1.0 - nu * nu)) * math.sqrt(R)


def build(**params) -> Model:
    """Build the dropped ball; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    R, m = p["R"], mass(p["R"], p["rho"])
    mdl = SpatialModel(NAME)
    ball = mdl.add(Body("ball", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, R + p["h"])))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
                    normal=Hertz(E=p["E"], nu=p["nu"]), restitution=p["e"]))
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
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("height", "vz", "N"),
                 motion_outputs=("height", "vz"))
