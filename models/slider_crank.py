"""Slider-crank mechanism with a frictional (Coulomb) slider in a horizontal guide.

In the spirit of Zhuang F.F., Wang Q., "Modeling and simulation of the nonsmooth planar rigid
multibody systems with frictional translational joints", Multibody Syst. Dyn. 29 (2013) 403-423:
a crank OB (uniform bar, pinned to the ground at O), a connecting rod BP (uniform bar) and a
slider P (a rigid block whose rotation is locked by the guide) in a horizontal two-sided guide
with static and dynamic Coulomb coefficients ``mu_s``, ``mu_d``. Unlike the crank-rocker, the
normal force here depends on the friction force through the rod, so the normal-force problem
``lambda_N = c + a |lambda_N|`` is genuinely coupled (``a != 0``); with a steep rod and large
friction ``|a| > 1`` and the mechanism jams (``docs/method.md`` section 6).

Geometry and sign conventions
-----------------------------
* O = (0, 0), x to the right, y up, gravity ``g`` along -y on every body.
* Crank angle ``theta`` from +x, counter-clockwise positive (rad); the crank pin is
  ``B = r (cos theta, sin theta)``.
* The guide is the line ``y = e`` (``e``: eccentricity, m); the slider P = (x_s, e) lies to the
  right of B: ``x_s = r cos theta + sqrt(l^2 - (e - r sin theta)^2)``.
* Rod angle ``phi`` from +x, counter-clockwise: ``P - B = l (cos phi, sin phi)``,
  ``sin phi = (e - r sin theta) / l``.
* ``lambda_N``: force of the guide on the slider along +y (N); positive = the slider bears on
  the lower face of the slot. ``F_f``: friction force of the guide on the slider along +x (N);
  while slipping ``F_f = -mu_d |lambda_N| sgn(v_s)``. ``v_s``: slider velocity along +x (m/s).
* ``tau``: torque on the crank from the drive, counter-clockwise positive (N m): the driving
  constraint's multiplier with ``drive="speed"``, the given ``T0`` with ``drive="torque"``, zero
  with ``drive="free"``.
* ``mode``: +1 slip+ (``v_s > 0``), -1 slip-, 0 stick.

Drives (parameter ``drive``)
----------------------------
* ``"speed"``: driving constraint ``theta = theta0 + omega0 t``;
* ``"torque"``: constant torque ``T0`` on the crank, initial crank speed ``omega0``;
* ``"free"``: no torque, initial crank speed ``omega0``.

Dead centres (crank and rod collinear, ``v_s = 0`` for any crank speed): outer at
``theta = asin(e / (l + r))``, inner at ``theta = pi + asin(e / (l - r))``. The mechanism turns
fully only if ``r + |e| < l`` (checked).
"""

from __future__ import annotations

import math

from nonsmooth.errors import ModelError
from nonsmooth.model import (
    FRICTION_PARAMETERS,
    Model,
    Output,
    Parameter,
    baumgarte_parameters,
    check_friction_coefficients,
    check_parameters,
    friction_coefficient,
    friction_params,
)
from nonsmooth.planar.forces import Gravity, Torque
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.planar.model import Body, PlanarModel, ground

NAME = "slider_crank"
DESCRIPTION = "Slider-crank with a frictional slider in a horizontal guide (Zhuang & Wang)"

#: Ranges (SI): lengths up to 1 km, masses (0, 1e9] kg, friction coefficients [0, 10], crank
#: speed |omega0| <= 1e4 rad/s (about 95,000 rpm), torque |T0| <= 1e9 N m, initial angle within
#: one turn either way, gravity [0, 1e3] m/s^2 (about 100 g), end time (0, 1e3] s (a million
#: outputs at the 1 ms output step), Baumgarte parameters [0, 1e6] 1/s.
PARAMETERS = [
    Parameter("r", 0.1, "m", "crank length O to B", 0.0, 1e3, exclusive=True),
    Parameter("l", 0.3, "m", "connecting rod length B to P (r + |e| < l)", 0.0, 1e3,
              exclusive=True),
    Parameter("e", 0.05, "m", "eccentricity: the guide is the line y = e", -1e3, 1e3),
    Parameter("m1", 1.0, "kg", "crank mass (uniform bar)", 0.0, 1e9, exclusive=True),
    Parameter("m2", 1.0, "kg", "rod mass (uniform bar)", 0.0, 1e9, exclusive=True),
    Parameter("m3", 1.0, "kg", "slider mass", 0.0, 1e9, exclusive=True),
    friction_coefficient("mu_s", 0.3, "static friction coefficient slider/guide (>= mu_d)",
                         static=True),
    friction_coefficient("mu_d", 0.2, "dynamic friction coefficient slider/guide"),
    Parameter("drive", "speed", "-", "crank drive", choices=("speed", "torque", "free")),
    Parameter("omega0", 20.0, "rad/s", "crank speed (drive=speed) or initial crank speed",
              -1e4, 1e4),
    Parameter("T0", 0.0, "N m", "constant crank torque, counter-clockwise (drive=torque)",
              -1e9, 1e9),
    Parameter("theta0", math.pi / 2, "rad", "initial crank angle from +x, counter-clockwise",
              -2 * math.pi, 2 * math.pi),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    *baumgarte_parameters(10.0, 10.0),
    *FRICTION_PARAMETERS,
]

#: Side of the (square) slider block (m): sets its moment of inertia only (rotation locked).
SLIDER_SIZE = 0.05

OUTPUT_UNITS = {
    "theta": ("rad", "crank angle from +x, counter-clockwise"),
    "omega": ("rad/s", "crank angular velocity"),
    "phi": ("rad", "connecting rod angle from +x, counter-clockwise"),
    "x_s": ("m", "slider position along the guide (x)"),
    "v_s": ("m/s", "slider velocity along +x"),
    "lambda_N": ("N", "normal force of the guide on the slider along +y"),
    "F_f": ("N", "friction force of the guide on the slider along +x"),
    "tau": ("N m", "torque of the drive on the crank, counter-clockwise"),
    "mode": ("-", "+1 slip+, -1 slip-, 0 stick"),
}


def kinematics(theta: float, omega: float, r: float, L: float, e: float):
    """Rod angle, slider position and their rates at crank angle/speed ``(theta, omega)``.

    Returns ``(phi, dphi, x_s, v_s)`` (rad, rad/s, m, m/s).
    """
    s = (e - r * math.sin(theta)) / L
    phi = math.asin(s)
    cphi = math.sqrt(1.0 - s * s)
    dphi = -r * omega * math.cos(theta) / (L * cphi)
    x_s = r * math.cos(theta) + L * cphi
    v_s = -r * omega * math.sin(theta) - L * dphi * s
    return phi, dphi, x_s, v_s


def build(**params) -> Model:
    """Build the slider-crank; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    r, L, e = p["r"], p["l"], p["e"]
    if r + abs(e) >= L:
        raise ModelError(f"model {NAME}: r + |e| = {r + abs(e):g} m must be < l = {L:g} m, "
                         "otherwise the crank cannot turn fully (the rod cannot reach the guide)")
    check_friction_coefficients(NAME, p)
    m1, m2, m3 = p["m1"], p["m2"], p["m3"]
    th, w = p["theta0"], p["omega0"]
    phi, dphi, x_s, v_s = kinematics(th, w, r, L, e)
    cth, sth, cph, sph = math.cos(th), math.sin(th), math.cos(phi), math.sin(phi)
    vbx, vby = -r * w * sth, r * w * cth  # crank pin B

    mdl = PlanarModel(NAME)
    crank = mdl.add(Body("crank", m1, m1 * r * r / 12, position=(0.5 * r * cth, 0.5 * r * sth),
                         angle=th, velocity=(0.5 * vbx, 0.5 * vby), angular_velocity=w))
    rod = mdl.add(Body("rod", m2, m2 * L * L / 12,
                       position=(r * cth + 0.5 * L * cph, r * sth + 0.5 * L * sph), angle=phi,
                       velocity=(vbx - 0.5 * L * dphi * sph, vby + 0.5 * L * dphi * cph),
                       angular_velocity=dphi))
    slider = mdl.add(Body("slider", m3, m3 * SLIDER_SIZE ** 2 / 6, position=(x_s, e),
                          velocity=(v_s, 0.0)))
    pivot = mdl.add(Revolute("O", ground, crank, (0.0, 0.0), (-0.5 * r, 0.0)))
    mdl.add(Revolute("B", crank, rod, (0.5 * r, 0.0), (-0.5 * L, 0.0)))
    mdl.add(Revolute("P", rod, slider, (0.5 * L, 0.0), (0.0, 0.0)))
    mdl.add(Translational("guide", ground, slider, (0.0, e), (1.0, 0.0), mu=p["mu_d"],
                          mu_s=p["mu_s"], normal="left", law=p["friction"],
                          friction=friction_params(p)))
    if p["drive"] == "speed":
        mdl.add(Driver("drive", pivot, speed=w, initial=th))
    elif p["drive"] == "torque" and p["T0"] != 0.0:
        T0 = p["T0"]
        mdl.add(Torque("motor", crank, lambda t, q, v: T0))
    mdl.add(Gravity(g=p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    i_th, i_ph, i_x = names.index("crank.theta"), names.index("rod.theta"), names.index("slider.x")
    if p["drive"] == "speed":
        def tau(res):
            return res["drive"]
    else:
        torque = p["T0"] if p["drive"] == "torque" else 0.0

        def tau(res):
            return torque + 0.0 * res.t

    columns = {
        "theta": lambda res: res.q[:, i_th],
        "omega": lambda res: res.v[:, i_th],
        "phi": lambda res: res.q[:, i_ph],
        "x_s": lambda res: res.q[:, i_x],
        "v_s": lambda res: res.v_T[:, 0],
        "lambda_N": lambda res: res.lambda_N[:, 0],
        "F_f": lambda res: res.F_T[:, 0],
        "tau": tau,
        "mode": lambda res: res.modes[:, 0],
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, alpha=p["alpha"], beta=p["beta"], description=DESCRIPTION,
                 plot_outputs=("theta", "x_s", "v_s", "lambda_N", "F_f", "tau"))
