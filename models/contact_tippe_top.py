"""A tippe top: a spinning sphere whose centre of mass sits below its centre turns itself
upside down by sliding friction.

Built with the spatial family (``nonsmooth.spatial``) and a compliant point contact
(``nonsmooth.contact``): a top of mass ``m`` (kg), spherical of radius ``R`` (m), its centre of
mass a distance ``a = alpha R`` (m) below the sphere's centre on its symmetry axis (the stem
side up), principal moments ``I1`` about a diameter and ``I3`` about the symmetry axis (kg
m^2), on a table (a ground ``Plane`` at ``z = 0``). The contact shape is a ``Sphere(R,
position=(0, 0, a))``: the sphere's centre ``a`` above the centre of mass in the top's frame,
whose z axis is the symmetry axis. Hertz's law for a plastic top on a hard table (``E``,
``nu``), restitution ``e``, Coulomb friction ``mu`` (dynamic) and ``mu_s`` (static) with exact
stick.

The top starts spinning at ``omega3`` (rad/s) about its symmetry axis, tilted by ``theta0``
(rad) from the vertical, resting on the table at Hertz's static penetration. With ``1 - alpha <
I3 / I1 < 1 + alpha`` a fast enough top inverts (Cohen, Am. J. Phys. 45, 12, 1977; Or, SIAM J.
Appl. Math. 54, 597, 1994; Ueda, Sasaki and Watanabe, J. Phys. Soc. Jpn. 74, 1, 2005): the
sliding friction at the contact point raises the centre of mass, the tilt ``theta`` (the angle
between the symmetry axis and the vertical) grows from near 0 to near ``pi``, and the top ends
spinning on the other pole, the other way round in its own frame.

Invariants a run can be held to (``tests/contact/test_tippe_top.py``): Jellett's quantity
``lambda = L . (a e3 - R z)`` (``L`` the angular momentum about the centre of mass, ``e3`` the
symmetry axis, ``z`` the table's normal) is constant for any force at the sphere's lowest point
(friction included), up to the contact's compliance (the force acts at the middle of the
penetration, ``R - d/2`` below the centre); the energy balance (kinetic + potential + elastic =
initial - friction and damping work). A top at rest tilted by a small angle rocks, rolling
without slip, with the period ``2 pi sqrt((I1 + m (R - a)^2) / (m g a))``.

Outputs: ``theta`` (rad, the tilt), ``height`` (m, the centre of mass above the table),
``omega3`` (rad/s, the spin about the symmetry axis), ``jellett`` (kg m^3/s, Jellett's
quantity), ``slip`` (m/s, the contact point's slip speed), ``N`` (N, the contact force), and
every element output (``table.gap``, ``table.mode``, ``top.wz`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Contact, Hertz, Plane, Sphere
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_tippe_top"
DESCRIPTION = "Tippe top: a spinning sphere with a low centre of mass inverts by friction"

#: Ranges (SI): mass (0, 10] kg, radius (0, 1] m, alpha (0, 1), inertias (0, 10] kg m^2,
#: spin [0, 1e4] rad/s, tilt [0, pi/2) rad, Young's modulus (0, 1e13] Pa, Poisson's ratio
#: [0, 0.5), coefficients (0, 10], gravity (0, 1e3] m/s^2, end time (0, 1000] s.
PARAMETERS = [
    Parameter("m", 0.02, "kg", "mass of the top", 0.0, 10.0, exclusive=True),
    Parameter("R", 0.02, "m", "radius of the top's sphere", 0.0, 1.0, exclusive=True),
    Parameter("alpha", 0.3, "-", "centre of mass below the sphere's centre, a / R", 0.0, 1.0,
              exclusive=True),
    Parameter("I1", 3.56e-6, "kg m^2", "moment of inertia about a diameter (centre of mass)",
              0.0, 10.0, exclusive=True),
    Parameter("I3", 3.2e-6, "kg m^2", "moment of inertia about the symmetry axis", 0.0, 10.0,
              exclusive=True),
    Parameter("omega3", 150.0, "rad/s", "initial spin about the symmetry axis", 0.0, 1e4),
    Parameter("theta0", 0.1, "rad", "initial tilt of the symmetry axis from the vertical", 0.0,
              0.5 * math.pi),
    Parameter("E", 3e9, "Pa", "Young's modulus of top and table (a plastic)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu", 0.35, "-", "Poisson's ratio of top and table", 0.0, 0.4999),
    Parameter("e", 0.5, "-", "coefficient of restitution of the contact", 0.0, 1.0,
              exclusive=True),
    Parameter("mu", 0.3, "-", "dynamic friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("mu_s", 0.35, "-", "static friction coefficient (>= mu)", 0.0, 10.0,
              exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 6.0, "s", "default end time", 0.0, 1000.0, exclusive=True),
]

OUTPUT_UNITS = {
    "theta": ("rad", "tilt: the angle between the symmetry axis and the vertical"),
    "height": ("m", "the centre of mass above the table"),
    "omega3": ("rad/s", "spin about the symmetry axis"),
    "jellett": ("kg m^3/s", "Jellett's quantity L . (a e3 - R z), constant"),
    "slip": ("m/s", "slip speed of the contact point"),
    "N": ("N", "contact force"),
}


def rocking_period(m: float, R: float, a: float, I1: float, g: float) -> float:
    """The period (s) of small rocking, rolling without slip, of a sphere (radius ``R``) whose
    centre of mass is ``a`` below its centre: ``2 pi sqrt((I1 + m (R - a)^2) / (m g a))``
    (the contact point the instantaneous centre, ``R - a`` below the centre of mass)."""
    return 2.0 * math.pi * math.sqrt((I1 + m * (R - a) ** 2) / (m * g * a))


def axis_and_momentum(r, I1: float, I3: float) -> tuple[np.ndarray, np.ndarray]:
    """The symmetry axis ``e3`` (k, 3) and the angular momentum about the centre of mass ``L``
    (k, 3; kg m^2/s) of the top in a result ``r``, world axes."""
    w, x, y, z = (r[f"top.{c}"] for c in ("qw", "qx", "qy", "qz"))
    e3 = np.stack([2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)],
                  axis=1)
    omega = np.stack([r["top.wx_world"], r["top.wy_world"], r["top.wz_world"]], axis=1)
    w3 = np.sum(omega * e3, axis=1)
    L = I1 * omega + (I3 - I1) * w3[:, None] * e3
    return e3, L


def build(**params) -> Model:
    """Build the top on the table; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["mu_s"] < p["mu"]:
        raise ModelError(f"model {NAME}: mu_s = {p['mu_s']:g} must be >= mu = {p['mu']:g}")
    m, R, I1, I3 = p["m"], p["R"], p["I1"], p["I3"]
    a = p["alpha"] * R
    law = Hertz(E=p["E"], nu=p["nu"])
    K = law.stiffness(Sphere(R), Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    d = (m * p["g"] / K) ** (2.0 / 3.0)  # Hertz's static penetration under the weight
    th = p["theta0"]
    e3 = np.array([0.0, -math.sin(th), math.cos(th)])  # the axis turned by theta0 about x
    centre = np.array([0.0, 0.0, R - d])
    mdl = SpatialModel(NAME)
    top = mdl.add(Body("top", m, (I1, I1, I3), position=centre - a * e3,
                       orientation=(math.cos(0.5 * th), math.sin(0.5 * th), 0.0, 0.0),
                       angular_velocity=p["omega3"] * e3))
    mdl.add(Contact("table", top, Sphere(R, position=(0.0, 0.0, a)), ground,
                    Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)), normal=law, restitution=p["e"],
                    mu=p["mu"], mu_s=p["mu_s"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    z = np.array([0.0, 0.0, 1.0])

    def axis(r):
        return axis_and_momentum(r, I1, I3)

    def jellett(r):
        e3, L = axis(r)
        return np.sum(L * (a * e3 - R * z), axis=1)

    columns = {
        "theta": lambda r: np.arccos(np.clip(axis(r)[0][:, 2], -1.0, 1.0)),
        "height": lambda r: r["top.z"],
        "omega3": lambda r: np.sum(axis(r)[0] * np.stack(
            [r["top.wx_world"], r["top.wy_world"], r["top.wz_world"]], axis=1), axis=1),
        "jellett": jellett,
        "slip": lambda r: r["table.slip"],
        "N": lambda r: r["table.N"],
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=2e-3, description=DESCRIPTION, plot_outputs=("theta", "height", "omega3"),
                 motion_outputs=("theta", "height"))
