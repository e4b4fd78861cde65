"""A spatial four-bar (RSUR): a driven crank, a coupler and a rocker on skew axes.

Built with the spatial family (``nonsmooth.spatial``, ``docs/spatial.md``): the crank turns
about the world z axis on a revolute joint ``crank_pin`` at the origin O (crank length ``a``, m,
from O to A), driven at the constant speed ``omega`` (rad/s, the driver ``motor``); the rocker
turns about the world x axis on a revolute joint ``rocker_pin`` at ``D = (Dx, Dy, Dz)`` (m), its
arm of length ``c`` (m) from D to B perpendicular to that axis; the coupler of length ``b`` (m)
joins A (a spherical joint ``ball``, on the crank) to B (a universal joint ``hooke``, on the
rocker: one cross axis along the rocker's axis, the other across the coupler). Rows: 5 + 3 + 4
+ 5 = 17 on 3 bodies (18 velocities) and the driver: no redundant row (the universal joint
stops the coupler's spin about AB, which two spherical joints would leave free), checked by
``SpatialModel.compile``. Gravity ``g`` along -z. Links: uniform rods of radius ``radius``
(m) and masses ``m1, m2, m3`` (kg).

The crank's full turn needs the loop closable at every crank angle: ``build`` refuses
dimensions where the coupler cannot reach the rocker's circle (a dead point) and names the
range of ``b`` that works for the other dimensions.

Outputs: ``crank_angle`` (rad, unwrapped), ``rocker_angle`` (rad, from the start),
``torque`` (N m, the motor's torque on the crank), ``energy`` (J, kinetic + potential: the
driver's work changes it; the run's energy balance, ``result.diagnostics``, accounts for it),
``F_ball`` (N, the
magnitude of the reaction at A). Every element output as well (``hooke.Fx`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import (
    Body,
    Driver,
    Gravity,
    Revolute,
    SpatialModel,
    Spherical,
    Universal,
    ground,
)

NAME = "spatial_four_bar"
DESCRIPTION = "Spatial RSUR four-bar: driven crank, coupler, rocker on skew axes"

#: Ranges (SI): lengths (0, 10] m, masses (0, 1e6] kg, radius (0, 0.1] m, speed |omega| <= 1e3
#: rad/s, gravity [0, 1e3] m/s^2, end time (0, 1e3] s.
PARAMETERS = [
    Parameter("a", 0.04, "m", "crank length (O to A)", 0.0, 10.0, exclusive=True),
    Parameter("b", 0.22, "m", "coupler length (A to B)", 0.0, 10.0, exclusive=True),
    Parameter("c", 0.12, "m", "rocker length (D to B)", 0.0, 10.0, exclusive=True),
    Parameter("Dx", 0.1, "m", "rocker pivot D, x", -10.0, 10.0),
    Parameter("Dy", 0.15, "m", "rocker pivot D, y", -10.0, 10.0),
    Parameter("Dz", 0.1, "m", "rocker pivot D, z", -10.0, 10.0),
    Parameter("m1", 0.2, "kg", "crank mass", 0.0, 1e6, exclusive=True),
    Parameter("m2", 0.5, "kg", "coupler mass", 0.0, 1e6, exclusive=True),
    Parameter("m3", 0.3, "kg", "rocker mass", 0.0, 1e6, exclusive=True),
    Parameter("radius", 0.005, "m", "radius of the rods", 0.0, 0.1, exclusive=True),
    Parameter("omega", 2 * math.pi, "rad/s", "crank speed about +z", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 2.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "crank_angle": ("rad", "crank angle about +z (unwrapped)"),
    "rocker_angle": ("rad", "rocker angle about +x from the start"),
    "torque": ("N m", "motor torque on the crank"),
    "energy": ("J", "kinetic + potential energy"),
    "F_ball": ("N", "magnitude of the reaction at A"),
}


def _rod_inertia(m: float, P: np.ndarray, Q: np.ndarray, radius: float) -> np.ndarray:
    """A uniform rod from P to Q (world, m): its inertia (kg m^2, 3x3) about its centre in
    world axes (the body's axes at t = 0)."""
    L = float(np.linalg.norm(Q - P))
    e = (Q - P) / L
    across, along = m * (3 * radius ** 2 + L ** 2) / 12.0, 0.5 * m * radius ** 2
    return across * (np.eye(3) - np.outer(e, e)) + along * np.outer(e, e)


def _distance2(a: float, c: float, D: np.ndarray, theta, phi):
    """|B - A|^2 (m^2) at crank angle ``theta`` and rocker angle ``phi`` (broadcasting)."""
    return ((D[0] - a * np.cos(theta)) ** 2 + (D[1] + c * np.cos(phi) - a * np.sin(theta)) ** 2
            + (D[2] + c * np.sin(phi)) ** 2)


def reach(a: float, c: float, D) -> tuple[float, float]:
    """The coupler lengths ``(b_min, b_max)`` (m) that close the loop at every crank angle
    (sampled: 721 crank x 3601 rocker angles)."""
    th, ph = np.meshgrid(np.linspace(0, 2 * np.pi, 721), np.linspace(0, 2 * np.pi, 3601),
                         indexing="ij")
    d2 = _distance2(a, c, np.asarray(D, float), th, ph)
    return math.sqrt(d2.min(axis=1).max()), math.sqrt(d2.max(axis=1).min())


def build(**params) -> Model:
    """Build the RSUR four-bar; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from scipy.optimize import brentq

    from nonsmooth.errors import ModelError

    a, b, c = p["a"], p["b"], p["c"]
    D = np.array([p["Dx"], p["Dy"], p["Dz"]])
    lo, hi = reach(a, c, D)
    if not lo < b < hi:
        span = f"between {lo:.4g} and {hi:.4g} m" if lo < hi else "none: change a, c or D"
        raise ModelError(f"model {NAME}: the coupler b = {b:g} m cannot close the loop at "
                         f"every crank angle (the lengths that can: {span})")
    if 2 * p["radius"] >= min(a, b, c):
        raise ModelError(f"model {NAME}: radius = {p['radius']:g} m must be below half the "
                         f"shortest link ({min(a, b, c):g} m)")
    # the rocker angle at crank angle 0 on the branch where |B - A| grows with phi
    d2 = _distance2(a, c, D, 0.0, np.linspace(-np.pi, np.pi, 3601))
    k = int(np.argmin(d2))
    phi_grid = np.linspace(-np.pi, np.pi, 3601)
    phis = np.concatenate((phi_grid[k:], phi_grid[:k] + 2 * np.pi))
    d2s = _distance2(a, c, D, 0.0, phis)
    j = int(np.argmax(d2s >= b * b))
    phi0 = brentq(lambda f: _distance2(a, c, D, 0.0, f) - b * b, phis[j - 1], phis[j],
                  xtol=1e-15)
    A = np.array([a, 0.0, 0.0])
    B = D + c * np.array([0.0, math.cos(phi0), math.sin(phi0)])
    x, z = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])
    across = np.cross(B - A, x)
    mdl = SpatialModel(NAME)
    r = p["radius"]
    crank = mdl.add(Body("crank", p["m1"], _rod_inertia(p["m1"], np.zeros(3), A, r),
                         position=0.5 * A))
    coupler = mdl.add(Body("coupler", p["m2"], _rod_inertia(p["m2"], A, B, r),
                           position=0.5 * (A + B)))
    rocker = mdl.add(Body("rocker", p["m3"], _rod_inertia(p["m3"], D, B, r),
                          position=0.5 * (D + B)))
    pin = mdl.add(Revolute("crank_pin", ground, crank, point=(0.0, 0.0, 0.0), axis=z))
    mdl.add(Spherical("ball", crank, coupler, point=A))
    mdl.add(Universal("hooke", coupler, rocker, point=B, axis_a=across, axis_b=x))
    mdl.add(Revolute("rocker_pin", ground, rocker, point=D, axis=x))
    mdl.add(Driver("motor", pin, speed=p["omega"]))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile(redundant="refuse")  # refuses redundant rows by name
    q0, v0 = mdl.initial_state()
    T0 = system.terms(0.0, q0, v0)
    v0 = np.linalg.solve(T0.G, -T0.phi_t)  # 18 independent rows: the consistent velocities

    columns = {
        "crank_angle": lambda r: r["crank_pin.angle"],
        "rocker_angle": lambda r: r["rocker_pin.angle"],
        "torque": lambda r: r["motor.torque"],
        "energy": lambda r: r.T + r.V,
        "F_ball": lambda r: np.sqrt(r["ball.Fx"] ** 2 + r["ball.Fy"] ** 2 + r["ball.Fz"] ** 2),
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=("crank_angle", "rocker_angle", "torque", "F_ball", "energy"),
                 motion_outputs=("crank_angle", "rocker_angle"))
