"""Slider-crank with a revolute clearance joint between the connecting rod and the slider.

After Flores P., Koshy C.S., Lankarani H.M., Ambrosio J., Claro J.C.P., "A parametric study on
the dynamic response of planar multibody systems with multiple clearance joints" (2008; the
slider-crank studies of Flores et al., e.g. Mechanism and Machine Theory 41 (2006) 247-261): a
crank OA (driven at a constant speed), a connecting rod AB and a slider B in a horizontal
frictionless guide; the revolute joint at B has a clearance: a pin (the journal, on the rod) in a
hole (the bearing, in the slider), a compliant contact of the pin on the bearing's wall
(:class:`nonsmooth.planar.Clearance`) with Hertz's stiffness of a pin in a hole (``K = 4/3 E*
sqrt(R)``, ``1/R = 1/R_pin - 1/R_hole``) and hysteretic damping for the coefficient of
restitution ``e`` (the rule ``damping``; Flores et al. use Lankarani-Nikravesh's).

The defaults are the values the slider-crank studies of Flores et al. give (crank 0.05 m, rod
0.12 m, masses 0.30, 0.21 and 0.14 kg, moments of inertia 1.0e-4, 2.5e-4 and 1.0e-4 kg m^2, a
journal of radius 10 mm, clearance 0.5 mm, steel: ``E`` 207 GPa, ``nu`` 0.3, ``e`` 0.9, crank at
5000 rpm); compare them with the paper before quoting a figure.

Geometry and sign conventions
-----------------------------
* O = (0, 0), x to the right, y up, gravity ``g`` along -y.
* Crank angle ``theta`` from +x, counter-clockwise (rad); the crank pin A = r (cos theta, sin
  theta); the guide is the x axis, the slider to the right of A.
* The rod and the slider start as the rigid mechanism would (the pin centred in the hole,
  velocities of the rigid mechanism): the clearance lets the slider and the rod's end move apart
  by up to ``c`` (the pin's flight) before the wall pushes them back.
* Outputs: ``clearance.gap`` (m, the clearance less the eccentricity of the pin; < 0
  penetrating), ``clearance.N`` (N, the contact force), ``clearance.Fx``, ``.Fy`` (N, the force
  on the slider), ``ecc`` (m, the eccentricity: the distance of the pin's centre from the
  hole's), ``tau`` (N m, the drive's torque on the crank).
"""

from __future__ import annotations

import math

from nonsmooth.contact import Hertz
from nonsmooth.contact.laws import DAMPING_RULES
from nonsmooth.model import Model, Output, Parameter, baumgarte_parameters, check_parameters
from nonsmooth.planar import Body, Clearance, Driver, Gravity, PlanarModel, Revolute, ground
from nonsmooth.planar.joints import Translational

NAME = "slider_crank_clearance"
DESCRIPTION = "Slider-crank with a clearance in the rod-slider revolute joint (Flores et al.)"

#: Ranges (SI): lengths up to 1 km, masses and inertias positive and bounded, the clearance
#: below the journal's radius, crank speed |omega0| <= 1e4 rad/s, moduli of 1 MPa to 1e13 Pa.
PARAMETERS = [
    Parameter("r", 0.05, "m", "crank length O to A", 0.0, 1e3, exclusive=True),
    Parameter("l", 0.12, "m", "connecting rod length A to B (> r)", 0.0, 1e3, exclusive=True),
    Parameter("m1", 0.30, "kg", "crank mass", 0.0, 1e9, exclusive=True),
    Parameter("m2", 0.21, "kg", "rod mass", 0.0, 1e9, exclusive=True),
    Parameter("m3", 0.14, "kg", "slider mass", 0.0, 1e9, exclusive=True),
    Parameter("J1", 1.0e-4, "kg m^2", "crank moment of inertia (centre of mass)", 0.0, 1e9,
              exclusive=True),
    Parameter("J2", 2.5e-4, "kg m^2", "rod moment of inertia (centre of mass)", 0.0, 1e9,
              exclusive=True),
    Parameter("J3", 1.0e-4, "kg m^2", "slider moment of inertia", 0.0, 1e9, exclusive=True),
    Parameter("radius_pin", 0.01, "m", "journal (pin) radius", 0.0, 10.0, exclusive=True),
    Parameter("clearance", 5e-4, "m", "radial clearance: hole radius less pin radius", 0.0,
              1.0, exclusive=True),
    Parameter("E", 207e9, "Pa", "Young's modulus of pin and bearing", 1e6, 1e13),
    Parameter("nu", 0.3, "-", "Poisson's ratio of pin and bearing", 0.0, 0.5),
    Parameter("restitution", 0.9, "-", "coefficient of restitution of the pin on the wall",
              0.0, 1.0, exclusive=True),
    Parameter("damping", "lankarani-nikravesh", "-", "the damping rule that turns the "
              "restitution into the hysteresis", choices=tuple(DAMPING_RULES)),
    Parameter("omega0", 5000.0 * math.pi / 30.0, "rad/s", "crank speed (constant, driven)",
              -1e4, 1e4),
    Parameter("theta0", 0.0, "rad", "initial crank angle from +x, counter-clockwise",
              -2 * math.pi, 2 * math.pi),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3),
    Parameter("t_end", 0.024, "s", "default end time (two crank turns at 5000 rpm)", 0.0, 1e3,
              exclusive=True),
    *baumgarte_parameters(10.0, 10.0),
]

OUTPUT_UNITS = {
    "theta": ("rad", "crank angle from +x, counter-clockwise"),
    "x_s": ("m", "slider position along the guide (x)"),
    "v_s": ("m/s", "slider velocity along +x"),
    "N": ("N", "contact force of the pin on the bearing's wall"),
    "ecc": ("m", "eccentricity: distance of the pin's centre from the hole's"),
    "tau": ("N m", "torque of the drive on the crank, counter-clockwise"),
}


def build(**params) -> Model:
    """Build the slider-crank with clearance; keyword arguments override the defaults in
    PARAMETERS."""
    from nonsmooth.errors import ModelError

    p = check_parameters(NAME, PARAMETERS, params)
    r, L = p["r"], p["l"]
    if r >= L:
        raise ModelError(f"model {NAME}: r = {r:g} m must be < l = {L:g} m, otherwise the "
                         "crank cannot turn fully")
    if p["clearance"] >= p["radius_pin"]:
        raise ModelError(f"model {NAME}: clearance = {p['clearance']:g} m must be below "
                         f"radius_pin = {p['radius_pin']:g} m (a thin bearing wall)")
    th, w = p["theta0"], p["omega0"]
    s = -r * math.sin(th) / L  # the rod's angle: sin(phi) = -r sin(theta) / l
    phi = math.asin(s)
    cph = math.sqrt(1.0 - s * s)
    dphi = -r * w * math.cos(th) / (L * cph)
    x_s = r * math.cos(th) + L * cph
    v_s = -r * w * math.sin(th) - L * dphi * s
    cth, sth = math.cos(th), math.sin(th)
    vax, vay = -r * w * sth, r * w * cth  # the crank pin A

    mdl = PlanarModel(NAME)
    crank = mdl.add(Body("crank", p["m1"], p["J1"], position=(0.5 * r * cth, 0.5 * r * sth),
                         angle=th, velocity=(0.5 * vax, 0.5 * vay), angular_velocity=w))
    rod = mdl.add(Body("rod", p["m2"], p["J2"],
                       position=(r * cth + 0.5 * L * cph, r * sth + 0.5 * L * s), angle=phi,
                       velocity=(vax - 0.5 * L * dphi * s, vay + 0.5 * L * dphi * cph),
                       angular_velocity=dphi))
    slider = mdl.add(Body("slider", p["m3"], p["J3"], position=(x_s, 0.0),
                          velocity=(v_s, 0.0)))
    pivot = mdl.add(Revolute("O", ground, crank, (0.0, 0.0), (-0.5 * r, 0.0)))
    mdl.add(Revolute("A", crank, rod, (0.5 * r, 0.0), (-0.5 * L, 0.0)))
    mdl.add(Translational("guide", ground, slider, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("drive", pivot, speed=w, initial=th))
    rp = p["radius_pin"]
    mdl.add(Clearance("clearance", slider, rod, (x_s, 0.0), rp, rp + p["clearance"],
                      normal=Hertz(E=p["E"], nu=p["nu"]), restitution=p["restitution"],
                      damping=p["damping"]))
    mdl.add(Gravity(g=p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    i_th, i_x = names.index("crank.theta"), names.index("slider.x")
    i_rod = names.index("rod.x")

    def ecc(res):
        """The pin's centre (the rod's end, 0.5 l along its axis) less the hole's (the
        slider's centre of mass): their distance (m)."""
        import numpy as np

        x, y, a = res.q[:, i_rod], res.q[:, i_rod + 1], res.q[:, i_rod + 2]
        return np.hypot(x + 0.5 * L * np.cos(a) - res.q[:, i_x],
                        y + 0.5 * L * np.sin(a) - res.q[:, i_x + 1])

    columns = {
        "theta": lambda res: res.q[:, i_th],
        "x_s": lambda res: res.q[:, i_x],
        "v_s": lambda res: res.v[:, i_x],
        "N": lambda res: res["clearance.N"],
        "ecc": ecc,
        "tau": lambda res: res["drive"],
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-5, alpha=p["alpha"], beta=p["beta"], description=DESCRIPTION,
                 plot_outputs=("x_s", "v_s", "N", "ecc", "tau"))
