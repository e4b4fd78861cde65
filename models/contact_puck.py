"""A puck launched sliding and spinning on a table: Coulomb friction over its flat contact
patch couples the sliding and the spin exactly (Contensou), so it stops sliding and spinning at
the same instant, the ratio of its sliding speed to its rim speed tending to 0.653.

Built with the spatial family (``nonsmooth.spatial``) and the volumetric contact law
(``nonsmooth.contact.Volumetric``) with patch friction (``Contact(...,
patch_friction="uniform")``): a thin uniform disc (mass ``m`` kg, radius ``a`` m, thickness
``h`` m; its centre of mass in its contact face, so that the friction force has no arm to tip
it and the pressure stays uniform) rests on a stiff table (foundation stiffness ``k_v``
N/m^3) at its static depth ``m g / (k_v pi a^2)`` and is launched at ``v0`` (m/s, along x)
spinning at ``omega0`` (rad/s, about z). Friction: Coulomb, ``mu``, with exact stick.

Over a uniformly loaded disc Coulomb's law gives a force ``mu m g f(eps)`` against the sliding
and a torque ``mu m g a t(eps)`` against the spin, ``eps = v / (a omega)``
(:mod:`nonsmooth.contact.contensou`), so ``dv/dt = -mu g f(eps)`` and ``d(a omega)/dt = -2 mu g
t(eps)``: both reach zero together, ``eps`` tending to the root of ``f = 2 eps t``, 0.653
(Farkas, Bartels, Unger and Wolf, Phys. Rev. Lett. 90, 248302, 2003; Weidman and Malhotra,
Phys. Rev. Lett. 95, 264303, 2005). :func:`rigid_stop` integrates these equations
independently of the engine (``scipy.integrate.solve_ivp`` on ``ln(omega0 / omega)``).

With ``ring=1`` the puck is a thin ring of radius ``a`` (``I_z = m a^2``) carrying its load on
its rim (``patch_friction="ring"``): ``d(a omega)/dt = -mu g t(eps)``, and the ratio tends to 1,
where the instantaneous centre of rotation reaches the rim (the same authors).

Outputs: ``v`` (m/s, the sliding speed), ``rim`` (m/s, ``a |omega|``), ``ratio`` (-, ``v /
(a omega)``) and every element output (``table.slip``, ``table.rim_speed``, ``table.mode``,
``puck.x`` ...). Events: the friction's stop (``table``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from nonsmooth.contact import Contact, Cylinder, Plane, Volumetric
from nonsmooth.contact.contensou import HERTZ, RING, UNIFORM, contensou
from nonsmooth.errors import ModelError
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_puck"
DESCRIPTION = "Puck sliding and spinning on a table: stops both at once, v / (a omega) -> 0.653"

#: Ranges (SI): mass (0, 100] kg, radius (0, 1] m, thickness (0, 1] m, stiffness
#: (0, 1e14] N/m^3, friction (0, 10], speeds [0, 100], gravity (0, 1e3] m/s^2, end time
#: (0, 1e3] s.
PARAMETERS = [
    Parameter("m", 0.17, "kg", "mass of the puck", 0.0, 100.0, exclusive=True),
    Parameter("a", 0.038, "m", "radius of the puck", 0.0, 1.0, exclusive=True),
    Parameter("h", 0.025, "m", "thickness of the puck", 0.0, 1.0, exclusive=True),
    Parameter("k_v", 1e8, "N/m^3", "foundation stiffness of the table", 0.0, 1e14,
              exclusive=True),
    Parameter("mu", 0.2, "-", "friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("v0", 1.0, "m/s", "launch speed (along x)", 0.0, 100.0),
    Parameter("omega0", 30.0, "rad/s", "launch spin (about z)", 0.0, 100.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    Parameter("ring", 0.0, "-", "1: a thin ring of radius a, its load on the rim (I_z = m "
              "a^2); 0: a uniform disc", 0.0, 1.0),
]

OUTPUT_UNITS = {
    "v": ("m/s", "sliding speed of the puck"),
    "rim": ("m/s", "rim speed a |omega| of its spin"),
    "ratio": ("-", "v / (a |omega|) while it moves"),
}


def _spin_factor(pressure: int) -> float:
    """``k = m a^2 / I``: 2 for a disc (uniform or Hertzian pressure), 1 for a thin ring."""
    return 1.0 if pressure == RING else 2.0


def limit_ratio(pressure: int = UNIFORM) -> float:
    """The ratio ``eps = v / (a omega)`` the motion tends to: the root of ``f(eps) = k eps
    t(eps)`` (``k = m a^2 / I``: 2 for a disc, 0.653 for its uniform pressure; 1 for a thin
    ring, whose root is 1)."""
    k = _spin_factor(pressure)
    return brentq(lambda e: contensou(pressure, e)[0] - k * e * contensou(pressure, e)[1],
                  0.1, 5.0, xtol=1e-15, rtol=1e-15)


def rigid_stop(v0: float, omega0: float, a: float, mu: float, g: float = 9.81,
               pressure: int = UNIFORM) -> tuple[float, float]:
    """``(t_stop, eps_limit)``: when a rigid disc (a thin ring for ``pressure`` ``RING``)
    launched at ``v0`` (m/s) spinning at ``omega0`` (rad/s) stops, from ``dv/dt = -mu g f``,
    ``dw/dt = -k mu g t`` (``w = a omega``, ``k = m a^2 / I``: 2 for a disc, 1 for a ring),
    integrated over ``s = ln(w0 / w)``: ``d eps/ds = (k eps t - f) / (k t)``, ``dt/ds = w0
    e^-s / (k mu g t)``, to ``s = 60`` (rtol 1e-13)."""
    w0 = a * abs(omega0)
    k = _spin_factor(pressure)

    def rhs(s, y):
        f, t = contensou(pressure, y[0])[:2]
        return [(k * y[0] * t - f) / (k * t), w0 * math.exp(-s) / (k * mu * g * t)]

    sol = solve_ivp(rhs, (0.0, 60.0), [v0 / w0, 0.0], method="DOP853", rtol=1e-13,
                    atol=1e-15)
    return float(sol.y[1, -1]), float(sol.y[0, -1])


def build(**params) -> Model:
    """Build the puck on the table; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    m, a, h, g = p["m"], p["a"], p["h"], p["g"]
    if p["ring"] not in (0.0, 1.0):
        raise ModelError(f"model {NAME!r}: ring = {p['ring']!r} must be 0 (a uniform disc) or 1 "
                         "(a thin ring)")
    ring = p["ring"] == 1.0
    depth = m * g / (p["k_v"] * math.pi * a * a)
    I_z = (1.0 if ring else 0.5) * m * a * a
    I_x = m * ((6.0 if ring else 3.0) * a * a + h * h) / 12.0
    mdl = SpatialModel(NAME)
    puck = mdl.add(Body("puck", m, (I_x, I_x, I_z), position=(0.0, 0.0, -depth),
                        velocity=(p["v0"], 0.0, 0.0), angular_velocity=(0.0, 0.0, p["omega0"])))
    mdl.add(Contact("table", puck, Cylinder(a, h, position=(0.0, 0.0, 0.5 * h)), ground,
                    Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)), normal=Volumetric(k_v=p["k_v"]),
                    mu=p["mu"], patch_friction="ring" if ring else "uniform",
                    patch_radius=a))
    mdl.add(Gravity(g))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def rim(r):
        return a * np.abs(r["puck.wz"])

    columns = {
        "v": lambda r: np.hypot(r["puck.vx"], r["puck.vy"]),
        "rim": rim,
        "ratio": lambda r: np.hypot(r["puck.vx"], r["puck.vy"]) / np.where(rim(r) > 0.0,
                                                                           rim(r), np.nan),
    }
    outputs = {key: Output(columns[key], *OUTPUT_UNITS[key]) for key in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("v", "rim", "ratio"),
                 motion_outputs=("v", "rim"))


__all__ = ["NAME", "PARAMETERS", "build", "rigid_stop", "limit_ratio", "HERTZ", "UNIFORM",
           "RING"]
