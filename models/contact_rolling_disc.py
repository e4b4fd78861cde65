"""A disc rolling on a compliant mat to rest: the volumetric law's rolling resistance decays
its spin exponentially, at the rate its volume of interference gives.

Built with the spatial family (``nonsmooth.spatial``) and the volumetric contact law
(``nonsmooth.contact.Volumetric``): a uniform disc (mass ``m`` kg, radius ``R`` m, width ``L``
m; a ``Cylinder`` whose axis is the world y axis) stands on a mat (a ground plane, foundation
stiffness ``k_v`` N/m^3 and damping ``a`` s/m) at its static depth (``k_v V(d) = m g``) and
rolls along x at ``v0`` (m/s) without slipping (Coulomb friction ``mu`` at the centroid of the
volume of interference, stuck).

Rolling, the centroid's material point does not move along the normal, so the normal force
stays ``m g`` and the depth constant; the damping's moment ``-k_v a J_t omega`` (``J_t`` the
volume's inertia about the rolling axis, :func:`nonsmooth.contact.interference`) is the only
torque about the contact point: ``(I + m h^2) domega/dt = -k_v a J omega``, ``h`` the distance
from the disc's centre to the centroid. The spin and the speed decay as ``exp(-lambda t)``,
``lambda = k_v a J / (I + m h^2)`` (:func:`decay_rate`; 2.14 /s with the defaults): the disc
rolls ``v0 / lambda`` in all and comes to rest. The run is costly for its length (about 350 000
evaluations per second of motion with the defaults: the explicit integrator's steps stay short
on this rolling contact), so the default end time is 1 s.

Outputs: ``v`` (m/s, its speed along x), ``omega`` (rad/s, its spin about y), ``T`` (N m, the
rolling resistance about y), and every element output (``mat.V``, ``mat.Ty``, ``disc.x`` ...).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from nonsmooth.contact import Contact, Cylinder, Plane, Volumetric, interference
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial.rotation import from_axis_angle

NAME = "contact_rolling_disc"
DESCRIPTION = "Disc rolling on a compliant mat to rest: the volumetric rolling resistance"

#: Ranges (SI): mass (0, 100] kg, radius and width (0, 1] m, stiffness (0, 1e13] N/m^3,
#: damping (0, 1e3] s/m, friction (0, 10], speed [0, 100] m/s, gravity (0, 1e3] m/s^2, end
#: time (0, 1e3] s.
PARAMETERS = [
    Parameter("m", 1.0, "kg", "mass of the disc", 0.0, 100.0, exclusive=True),
    Parameter("R", 0.1, "m", "radius of the disc", 0.0, 1.0, exclusive=True),
    Parameter("L", 0.02, "m", "width of the disc", 0.0, 1.0, exclusive=True),
    Parameter("k_v", 1e8, "N/m^3", "foundation stiffness of the mat", 0.0, 1e13,
              exclusive=True),
    Parameter("a", 200.0, "s/m", "foundation damping per unit approach speed (a lossy mat)",
              0.0, 1e3,
              exclusive=True),
    Parameter("mu", 1.0, "-", "friction coefficient (the disc rolls, stuck)", 0.0, 10.0,
              exclusive=True),
    Parameter("v0", 0.5, "m/s", "rolling speed at the start (along x)", 0.0, 100.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "v": ("m/s", "speed of the disc's centre along x"),
    "omega": ("rad/s", "spin of the disc about y (world)"),
    "T": ("N m", "rolling resistance torque about y on the disc"),
}


def _interference(p: dict, d: float):
    """The disc's interference with the mat at depth ``d`` (m), in the disc's frame (its axis
    z; the mat's normal along its x, the mat's surface at x = d - R)."""
    return interference(Cylinder(p["R"], p["L"]), (d - p["R"], 0.0, 0.0), (1.0, 0.0, 0.0))


def static_depth(p: dict) -> float:
    """The depth (m) at which ``k_v V(d) = m g``."""
    return brentq(lambda d: p["k_v"] * _interference(p, d).V - p["m"] * p["g"], 1e-15,
                  p["R"], xtol=1e-18, rtol=1e-15)


def decay_rate(p: dict) -> float:
    """``lambda = k_v a J / (I + m h^2)`` (1/s) at the static depth: ``J`` the volume's
    inertia about the rolling axis through its centroid, ``h`` the centroid's distance from
    the disc's centre, ``I = m R^2 / 2``."""
    it = _interference(p, static_depth(p))
    J = it.inertia[2, 2]  # about the disc's axis
    h = float(np.linalg.norm(it.centroid))
    return p["k_v"] * p["a"] * J / (0.5 * p["m"] * p["R"] ** 2 + p["m"] * h * h)


def build(**params) -> Model:
    """Build the rolling disc; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    m, R, L = p["m"], p["R"], p["L"]
    d = static_depth(p)
    h = float(np.linalg.norm(_interference(p, d).centroid))
    I_ax, I_tr = 0.5 * m * R * R, m * (3.0 * R * R + L * L) / 12.0
    omega = p["v0"] / h  # rolling about the centroid's material point: v = omega h
    mdl = SpatialModel(NAME)
    disc = mdl.add(Body("disc", m, (I_tr, I_tr, I_ax), position=(0.0, 0.0, R - d),
                        orientation=from_axis_angle((1.0, 0.0, 0.0), -0.5 * math.pi),
                        velocity=(p["v0"], 0.0, 0.0), angular_velocity=(0.0, omega, 0.0)))
    mdl.add(Contact("mat", disc, Cylinder(R, L), ground, Plane((0.0, 0.0, 0.0), (0, 0, 1)),
                    normal=Volumetric(k_v=p["k_v"], damping=p["a"]), mu=p["mu"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {
        "v": lambda r: r["disc.vx"],
        "omega": lambda r: r["disc.wy_world"],
        "T": lambda r: r["mat.Ty"],
    }
    outputs = {key: Output(columns[key], *OUTPUT_UNITS[key]) for key in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=2e-3, description=DESCRIPTION, plot_outputs=("v", "omega", "T"),
                 motion_outputs=("v", "omega"))
