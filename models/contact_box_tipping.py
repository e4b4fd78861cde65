"""A tall box on a compliant mat, set rocking about one of its bottom edges: below a critical
spin it rocks back onto its face, above it tips over onto its side. Volumetric contact.

Built with the spatial family (``nonsmooth.spatial``) and the volumetric contact law
(``nonsmooth.contact.Volumetric``): a uniform box (mass ``m`` kg, half extents ``hx, hy, hz``
m: ``2 hz`` tall, ``2 hx`` wide along x) rests on a mat (a ground plane ``z = 0`` with the
foundation stiffness ``k_v`` N/m^3 and damping ``a`` s/m) at its static depth ``m g / (k_v 4 hx
hy)``, and is given an angular velocity ``omega0`` (rad/s) about the world y axis through its
edge at ``x = +hx``, ``z = 0`` (a rigid turn about that edge: the centre of mass moves with it).
Friction: the bristle law (``law="bristle"``: stiffness ``sigma0 N``, damping ``sigma1 N``,
Stribeck speed ``v_s``, ``mu`` sliding, ``mu_s`` after a dwell) at the centroid of the volume of
interference. Coulomb's set-valued law would hold the material point under that centroid still
while the box sticks; rocking on its edge, the centroid sweeps across the face at tens of m/s,
the stuck point's rows change as fast, and the run's steps collapse. The bristles follow it
smoothly.

The force of the mat follows the volume of interference through its regimes: the whole face
while the box stands, then a wedge under the edge as it turns (the box's edge regime), then the
face and the side once it has fallen.

Closed form (a rigid box turning about its edge, no slip): it tips over when its kinetic energy
about the edge lifts the centre of mass over the edge, ``I_edge omega0^2 / 2 > m g (sqrt(hx^2 +
hz^2) - hz)``, ``I_edge = m (4 hx^2 + 4 hz^2) / 3`` (:func:`critical_spin`). The compliant mat
and its damping take a little energy at the start, so the threshold of the model lies slightly
above the rigid one.

Outputs: ``tilt`` (deg, the box's turn about y, positive tipping towards +x), ``N`` (N, the
mat's force), ``V`` (m^3, the volume of interference), ``x_c`` (m, the force's point along x:
under the tipping edge while the box turns on it), and every element output (``mat.V``,
``mat.x``, ``box.x`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Box, Contact, Plane, Volumetric
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_box_tipping"
DESCRIPTION = "Tall box on a compliant mat rocked about an edge: rocks back or tips over"

#: Ranges (SI): mass (0, 1e3] kg, half extents (0, 10] m, stiffness (0, 1e13] N/m^3, damping
#: [0, 1e3] s/m, friction (0, 10], spin [0, 100] rad/s, gravity (0, 1e3] m/s^2, end time
#: (0, 1e3] s.
PARAMETERS = [
    Parameter("m", 2.0, "kg", "mass of the box", 0.0, 1e3, exclusive=True),
    Parameter("hx", 0.05, "m", "half width (along x, the tipping direction)", 0.0, 10.0,
              exclusive=True),
    Parameter("hy", 0.05, "m", "half depth (along y, the tipping axis)", 0.0, 10.0,
              exclusive=True),
    Parameter("hz", 0.15, "m", "half height", 0.0, 10.0, exclusive=True),
    Parameter("k_v", 1e8, "N/m^3", "foundation stiffness of the mat", 0.0, 1e13,
              exclusive=True),
    Parameter("a", 1.0, "s/m", "foundation damping per unit approach speed", 0.0, 1e3),
    Parameter("mu", 0.8, "-", "sliding friction coefficient", 0.0, 10.0, exclusive=True),
    Parameter("mu_s", 1.0, "-", "static friction coefficient (after a dwell)", 0.0, 10.0,
              exclusive=True),
    Parameter("sigma0", 1e4, "1/m", "bristle stiffness per N of normal force", 1.0, 1e10),
    Parameter("sigma1", 5.0, "s/m", "bristle damping per N of normal force", 0.0, 1e8),
    Parameter("v_s", 1e-3, "m/s", "Stribeck speed (stiction to sliding)", 1e-9, 1e3),
    Parameter("omega0", 3.0, "rad/s", "initial spin about the tipping edge (about +y)", 0.0,
              100.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 1.5, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "tilt": ("deg", "the box's turn about y (positive: tipping towards +x)"),
    "N": ("N", "the mat's normal force"),
    "V": ("m^3", "volume of interference of the box with the mat"),
    "x_c": ("m", "x of the mat force's point (the centroid of the volume of interference)"),
}


def critical_spin(m: float, hx: float, hz: float, g: float = 9.81) -> float:
    """The spin (rad/s) about the edge above which a rigid box tips over: ``I_edge omega^2 / 2
    = m g (sqrt(hx^2 + hz^2) - hz)``, ``I_edge = 4 m (hx^2 + hz^2) / 3``."""
    I_edge = 4.0 * m * (hx * hx + hz * hz) / 3.0
    return math.sqrt(2.0 * m * g * (math.hypot(hx, hz) - hz) / I_edge)


def build(**params) -> Model:
    """Build the box on the mat; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    m, hx, hy, hz, g = p["m"], p["hx"], p["hy"], p["hz"], p["g"]
    depth = m * g / (p["k_v"] * 4.0 * hx * hy)
    centre = np.array([0.0, 0.0, hz - depth])
    edge = np.array([hx, 0.0, 0.0])
    w = np.array([0.0, p["omega0"], 0.0])
    inertia = (m * (hy * hy + hz * hz) / 3.0, m * (hx * hx + hz * hz) / 3.0,
               m * (hx * hx + hy * hy) / 3.0)
    mdl = SpatialModel(NAME)
    box = mdl.add(Body("box", m, inertia, position=centre, velocity=np.cross(w, centre - edge),
                       angular_velocity=w))
    mdl.add(Contact("mat", box, Box((hx, hy, hz)), ground, Plane((0.0, 0.0, 0.0), (0, 0, 1)),
                    normal=Volumetric(k_v=p["k_v"], damping=p["a"]), mu=p["mu"],
                    mu_s=p["mu_s"], law="bristle",
                    friction_params={"sigma0": p["sigma0"], "sigma1": p["sigma1"],
                                     "v_s": p["v_s"], "tau_dw": 0.05}))
    mdl.add(Gravity(g))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def tilt(r):
        # the body's z axis in the world: its turn about y (towards +x positive)
        qw, qx, qy, qz = (r[f"box.q{c}"] for c in "wxyz")
        zx = 2.0 * (qx * qz + qw * qy)
        zz = 1.0 - 2.0 * (qx * qx + qy * qy)
        return np.degrees(np.arctan2(zx, zz))

    columns = {
        "tilt": tilt,
        "N": lambda r: r["mat.N"],
        "V": lambda r: r["mat.V"],
        "x_c": lambda r: r["mat.x"],
    }
    outputs = {key: Output(columns[key], *OUTPUT_UNITS[key]) for key in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=2e-3, description=DESCRIPTION, plot_outputs=("tilt", "N", "x_c"),
                 motion_outputs=("tilt", "N"))
