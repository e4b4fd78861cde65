"""A heavy symmetric top (a gyroscope) on a ball joint at the ground.

Built with the spatial family (``nonsmooth.spatial``, ``docs/spatial.md``): a symmetric body
(moments ``J1 = J2`` across and ``J3`` along its symmetry axis, about its centre of mass, kg
m^2) on a spherical joint ``pivot`` at the origin O, its centre of mass at the distance ``L``
(m) from O on the symmetry axis; gravity ``g`` along -z. At ``t = 0`` the axis is tilted by
``theta0`` (rad) from the vertical about the world x axis, the body spins at ``spin`` (rad/s,
``psi_dot``) about its axis, the axis precesses at ``precession`` (rad/s, ``phi_dot`` about
world z) and the nutation rate ``theta_dot`` is zero (``precession = 0``: the cusp motion).

Closed form (Goldstein, *Classical Mechanics*, 3rd ed., section 5.7; Landau-Lifshitz,
*Mechanics*, section 35; ``docs/method.md`` section 15.2): with ``u = cos(theta)``, ``I1 = J1 +
m L^2`` (about O), the conserved ``p_psi = J3 omega_3``, ``p_phi`` (the vertical angular
momentum about O) and the energy give ``u_dot^2 = f(u)``, a cubic; :func:`nutation` returns its
roots, the nutation bounds and the period (``scipy.special.ellipk``).
``tests/spatial/test_spatial_top.py`` checks the run against it.

Outputs: ``theta`` (rad, the axis' tilt from the vertical), ``phi`` (rad, the precession angle
of the axis about z, unwrapped), ``omega3`` (rad/s, the spin component along the axis),
``p_phi`` (kg m^2/s, vertical angular momentum about O), ``energy`` (J), ``F_pivot`` (N, the
magnitude of the joint's reaction). Every element output as well (``pivot.Fx`` ...,
``top.wx_world`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, Spherical, ground
from nonsmooth.spatial.rotation import from_axis_angle, rotation_matrices

NAME = "spatial_gyroscope"
DESCRIPTION = "Heavy symmetric top on a ball joint: precession and nutation"

#: Ranges (SI): mass (0, 1e9] kg, inertia (0, 1e9] kg m^2 (``J3 <= 2 J1``: a real body), arm
#: (0, 1e3] m, tilt (0, pi) rad, rates |.| <= 1e4 rad/s, gravity [0, 1e3] m/s^2.
PARAMETERS = [
    Parameter("m", 1.0, "kg", "mass of the top", 0.0, 1e9, exclusive=True),
    Parameter("J1", 0.01, "kg m^2", "moment of inertia across the axis, about the centre of "
              "mass", 0.0, 1e9, exclusive=True),
    Parameter("J3", 0.015, "kg m^2", "moment of inertia about the symmetry axis", 0.0, 1e9,
              exclusive=True),
    Parameter("L", 0.1, "m", "distance from the pivot to the centre of mass", 0.0, 1e3,
              exclusive=True),
    Parameter("theta0", 0.5, "rad", "initial tilt of the axis from the vertical", 0.0,
              math.pi, exclusive=True),
    Parameter("spin", 50.0, "rad/s", "initial spin rate psi_dot about the axis", -1e4, 1e4),
    Parameter("precession", 0.0, "rad/s", "initial precession rate phi_dot about world z",
              -1e4, 1e4),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 2.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "theta": ("rad", "tilt of the symmetry axis from the vertical"),
    "phi": ("rad", "precession angle of the axis about z (unwrapped)"),
    "omega3": ("rad/s", "angular velocity along the symmetry axis"),
    "p_phi": ("kg m^2/s", "vertical angular momentum about the pivot"),
    "energy": ("J", "kinetic + potential energy"),
    "F_pivot": ("N", "magnitude of the pivot reaction"),
}


def initial_rates(theta0: float, spin: float, precession: float) -> tuple[np.ndarray, np.ndarray]:
    """The symmetry axis ``e3`` (world, shape (3,)) and the world angular velocity (rad/s,
    shape (3,)) at ``t = 0``: ``omega = phi_dot z + psi_dot e3`` (``theta_dot = 0``)."""
    e3 = np.array([0.0, -math.sin(theta0), math.cos(theta0)])  # z turned by theta0 about x
    return e3, precession * np.array([0.0, 0.0, 1.0]) + spin * e3


def nutation(m: float, J1: float, J3: float, L: float, theta0: float, spin: float,
             precession: float, g: float) -> dict:
    """The heavy symmetric top's nutation in closed form (Goldstein section 5.7).

    With ``I1 = J1 + m L^2``, ``omega3 = spin + precession cos(theta0)``, ``a = J3 omega3 / I1``,
    ``b = p_phi / I1`` (``p_phi = I1 phi_dot sin^2 theta + J3 omega3 cos theta``), ``alpha =
    2 E' / I1`` (``E'`` the energy less the spin's ``J3 omega3^2 / 2``) and ``beta = 2 m g L /
    I1`` (1/s^2)::

        u_dot^2 = f(u) = (1 - u^2)(alpha - beta u) - (b - a u)^2 = beta (u - u1)(u - u2)(u - u3)

    with roots ``-1 <= u2 <= u1 <= 1 < u3`` (``numpy.roots``); ``theta`` oscillates between
    ``arccos(u1)`` and ``arccos(u2)`` with the period::

        T = 2 int_{u2}^{u1} du / sqrt(f(u)) = 4 K(k^2) / sqrt(beta (u3 - u2)),
        k^2 = (u1 - u2) / (u3 - u2)

    (``K`` = ``scipy.special.ellipk`` of the parameter ``k^2``).

    Returns
    -------
    dict
        ``u1, u2, u3`` (-), ``theta_min, theta_max`` (rad), ``period`` (s), ``omega3`` (rad/s),
        ``p_psi = J3 omega3`` and ``p_phi`` (kg m^2/s), ``energy`` (J, with the potential
        ``m g L cos(theta)``), ``I1`` (kg m^2).
    """
    from scipy.special import ellipk

    I1 = J1 + m * L * L
    u0 = math.cos(theta0)
    s2 = 1.0 - u0 * u0
    omega3 = spin + precession * u0
    p_phi = I1 * precession * s2 + J3 * omega3 * u0
    energy = 0.5 * I1 * precession ** 2 * s2 + 0.5 * J3 * omega3 ** 2 + m * g * L * u0
    a, b = J3 * omega3 / I1, p_phi / I1
    alpha = (2.0 * energy - J3 * omega3 ** 2) / I1
    beta = 2.0 * m * g * L / I1
    # f(u) = beta u^3 - (alpha + a^2) u^2 + (2 a b - beta) u + (alpha - b^2)
    roots = np.roots([beta, -(alpha + a * a), 2.0 * a * b - beta, alpha - b * b])
    roots = np.sort(roots.real)
    u2, u1, u3 = roots
    # theta_dot = 0 at t = 0: u0 is a root; take it exactly (numpy.roots is ~1e-16 relative)
    k = int(np.argmin(np.abs(roots[:2] - u0)))
    if k == 0:
        u2 = u0
    else:
        u1 = u0
    period = 4.0 * ellipk((u1 - u2) / (u3 - u2)) / math.sqrt(beta * (u3 - u2))
    return {"u1": u1, "u2": u2, "u3": u3, "theta_min": math.acos(min(u1, 1.0)),
            "theta_max": math.acos(max(u2, -1.0)), "period": period, "omega3": omega3,
            "p_psi": J3 * omega3, "p_phi": p_phi, "energy": energy, "I1": I1}


def build(**params) -> Model:
    """Build the heavy top; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["J3"] > 2.0 * p["J1"]:
        raise ModelError(f"model {NAME}: J3 = {p['J3']:g} kg m^2 must be at most 2 J1 = "
                         f"{2 * p['J1']:g} kg m^2 (the triangle inequality of a real body)")
    e3, w = initial_rates(p["theta0"], p["spin"], p["precession"])
    c = p["L"] * e3
    mdl = SpatialModel(NAME)
    top = mdl.add(Body("top", p["m"], (p["J1"], p["J1"], p["J3"]), position=c,
                       orientation=from_axis_angle((1.0, 0.0, 0.0), p["theta0"]),
                       velocity=np.cross(w, c), angular_velocity=w))
    mdl.add(Spherical("pivot", ground, top, point=(0.0, 0.0, 0.0)))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    m, L, J1, J3 = p["m"], p["L"], p["J1"], p["J3"]
    I_O = np.array([J1 + m * L * L, J1 + m * L * L, J3])  # about O, body axes

    def axis(r):
        return rotation_matrices(r.q[:, 3:7])[:, :, 2]

    def p_phi(r):
        Rz = rotation_matrices(r.q[:, 3:7])[:, 2]
        return np.einsum("ij,ij->i", Rz, I_O * r.v[:, 3:6])  # z . R (I_O omega')

    columns = {
        "theta": lambda r: np.arccos(np.clip(axis(r)[:, 2], -1.0, 1.0)),
        "phi": lambda r: np.unwrap(np.arctan2(axis(r)[:, 0], -axis(r)[:, 1])),
        "omega3": lambda r: r.v[:, 5],
        "p_phi": p_phi,
        "energy": lambda r: r.T + r.V,
        "F_pivot": lambda r: np.sqrt(r["pivot.Fx"] ** 2 + r["pivot.Fy"] ** 2
                                     + r["pivot.Fz"] ** 2),
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=2e-3, description=DESCRIPTION,
                 plot_outputs=("theta", "phi", "omega3", "p_phi", "F_pivot", "energy"),
                 motion_outputs=("theta", "phi"))
