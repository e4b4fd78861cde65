"""Crank-rocker (oscillating guide bar) with a frictional translational joint.

Wang X.J., Wang Q., Zhuang F.F., "Numerical algorithm for multi-rigid-body systems with
frictional translational joints and driving constraints", section 3 (``docs/method.md``
section 12). A crank O1B driven at constant speed carries the slider B, which slides with
Coulomb friction in the slot of the rocker OA swinging about O.

Sign conventions (the spec's): O = (0, 0), O1 = (0, L4), y up; angles from +y, clockwise
positive; ``theta2 = omega t``. ``lambda_N`` is the force of the rocker on the slider along the
slot normal n = (cos theta1, -sin theta1); ``F_f`` is the friction force on the slider along the
rocker u = (sin theta1, cos theta1); ``v_r`` the slider velocity relative to the rocker along u;
``tau`` the driving torque on the crank (clockwise positive); ``phi`` the slider constraint
residual ``L3 sin(theta2 - theta1) - L4 sin(theta1)`` (m).

Two formulations, which must agree (the tests check it):

* ``form="lagrange"`` (default): the paper's own two-coordinate form ``q = [theta1, theta2]``
  written with :class:`nonsmooth.GeneralizedSystem`;
* ``form="planar"``: the same mechanism from the planar builder (rocker and crank as rigid
  bodies, the slider a point mass pinned to the crank, absolute coordinates).
"""

from __future__ import annotations

import math

import numpy as np

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
from nonsmooth.planar.forces import Gravity, JointDamper
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.planar.model import Body, PlanarModel, PointMass, ground
from nonsmooth.system import Constraint, FrictionPair, GeneralizedSystem

NAME = "crank_rocker"
DESCRIPTION = "Crank-rocker with a frictional slider in the rocker's slot (Wang, Wang & Zhuang)"

#: Ranges (SI): masses (0, 1e9] kg, inertias (0, 1e9] kg m^2, lengths up to 1 km, friction
#: coefficients [0, 10], crank speed |omega| <= 1e4 rad/s (about 95,000 rpm), damping up to
#: 1e8 N m s/rad, gravity [0, 1e3] m/s^2 (about 100 g), Baumgarte parameters [0, 1e6] 1/s.
PARAMETERS = [
    Parameter("J1", 16 / 3, "kg m^2", "rocker inertia about O", 0.0, 1e9, exclusive=True),
    Parameter("m1", 4.0, "kg", "rocker mass", 0.0, 1e9, exclusive=True),
    Parameter("L1", 1.0, "m", "O to rocker centre of mass", 0.0, 1e3),
    Parameter("J2", 1 / 6, "kg m^2", "crank inertia about O1", 0.0, 1e9, exclusive=True),
    Parameter("m2", 2.0, "kg", "crank mass", 0.0, 1e9, exclusive=True),
    Parameter("L2", 0.25, "m", "O1 to crank centre of mass", 0.0, 1e3),
    Parameter("m3", 0.5, "kg", "slider mass", 0.0, 1e9, exclusive=True),
    Parameter("L3", 0.5, "m", "O1 to slider B (crank length)", 0.0, 1e3, exclusive=True),
    Parameter("L4", 1.0, "m", "O to O1 (must exceed L3)", 0.0, 1e3, exclusive=True),
    friction_coefficient("mu", 0.2, "dynamic friction coefficient slider/slot"),
    friction_coefficient("mu_s", None, "static coefficient (>= mu; default: equal to mu)",
                         static=True),
    Parameter("omega", 3.0, "rad/s", "crank speed (driving constraint)", -1e4, 1e4),
    Parameter("c", 0.0, "N m s/rad", "rocker damping, M_f = -c dtheta1/dt", 0.0, 1e8),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3),
    *baumgarte_parameters(10.0, 10.0),
    Parameter("form", "lagrange", "-", "formulation", choices=("lagrange", "planar")),
    *FRICTION_PARAMETERS,
]

OUTPUT_UNITS = {
    "theta1": ("rad", "rocker angle from +y, clockwise"),
    "omega1": ("rad/s", "rocker angular velocity"),
    "alpha1": ("rad/s^2", "rocker angular acceleration"),
    "theta2": ("rad", "crank angle from +y, clockwise"),
    "v_r": ("m/s", "slider velocity relative to the rocker along u"),
    "lambda_N": ("N", "normal force of the rocker on the slider along n"),
    "F_f": ("N", "friction force on the slider along u"),
    "tau": ("N m", "driving torque on the crank, clockwise"),
    "phi": ("m", "slider constraint residual"),
}


def build(**params) -> Model:
    """Build the crank-rocker model; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    if p["L4"] <= p["L3"]:
        from nonsmooth.errors import ModelError

        raise ModelError(f"model {NAME}: L4 = {p['L4']:g} m must exceed L3 = {p['L3']:g} m, "
                         "otherwise the crank passes through O and the rocker angle is undefined")
    check_friction_coefficients(NAME, p, names=("mu_s", "mu"))
    builder = _build_lagrange if p["form"] == "lagrange" else _build_planar
    system, q0, v0, columns = builder(p)
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=5.0, dt=1e-3,
                 alpha=p["alpha"], beta=p["beta"], description=DESCRIPTION,
                 plot_outputs=("theta1", "omega1", "alpha1", "v_r", "lambda_N", "F_f", "tau"),
                 motion_outputs=("theta1", "omega1"))


def _initial_angles(p):
    """Exact kinematics at t = 0 (theta2 = 0): theta1 = 0, dtheta1/dt = omega L3 / (L3 + L4)."""
    return 0.0, p["omega"] * p["L3"] / (p["L3"] + p["L4"])


def _build_lagrange(p):
    J1, m1, L1, J2, m2, L2 = p["J1"], p["m1"], p["L1"], p["J2"], p["m2"], p["L2"]
    m3, L3, L4, g, c, omega = p["m3"], p["L3"], p["L4"], p["g"], p["c"], p["omega"]
    sin, cos = math.sin, math.cos
    grav2 = (m2 * L2 + m3 * L3) * g

    def potential(t, q):
        return m1 * g * L1 * cos(q[0]) + (m2 * L2 + m3 * L3) * g * cos(q[1]) + (m2 + m3) * g * L4

    def potential_gradient(t, q):
        return (-m1 * g * L1 * sin(q[0]), -grav2 * sin(q[1]))

    def damping(t, q, v):
        return (-c * v[0], 0.0)

    def slot_phi(t, q):
        return L3 * sin(q[1] - q[0]) - L4 * sin(q[0])

    def slot_jacobian(t, q):
        c21 = cos(q[1] - q[0])
        return (-L3 * c21 - L4 * cos(q[0]), L3 * c21)

    def slot_gamma(t, q, v):
        return L3 * sin(q[1] - q[0]) * (v[1] - v[0]) ** 2 - L4 * sin(q[0]) * v[0] ** 2

    drive_jacobian = (0.0, 1.0)
    constraints = [
        Constraint("slot", "normal", slot_phi, slot_jacobian, slot_gamma),
        Constraint("drive", "driver", lambda t, q: q[1] - omega * t,
                   lambda t, q: drive_jacobian, lambda t, q, v: 0.0, lambda t, q: -omega),
    ]

    def tangential(t, q):
        return ((0.0, -L3 * sin(q[1] - q[0])),)

    def tangential_bias(t, q, v):
        return (-L3 * cos(q[1] - q[0]) * (v[1] - v[0]) * v[1],)

    from nonsmooth.generalized.generated import CompiledTerms
    from nonsmooth.models import _crank_rocker_terms as compiled

    system = GeneralizedSystem(
        ["theta1", "theta2"], np.diag([J1, J2 + m3 * L3 ** 2]), constraints,
        potential=potential, potential_gradient=potential_gradient, damping=damping,
        pairs=[FrictionPair("slot", "slot", p["mu"], p["mu_s"], law=p["friction"],
                            params=friction_params(p))], tangential=tangential,
        tangential_bias=tangential_bias,
        # the same terms as one numba function: each evaluation one compiled call
        compiled=CompiledTerms(compiled.terms, compiled.parameters(p), compiled.potential))
    th1, w1 = _initial_angles(p)
    columns = {
        "theta1": lambda r: r.q[:, 0],
        "omega1": lambda r: r.v[:, 0],
        "alpha1": lambda r: r.dv[:, 0],
        "theta2": lambda r: r.q[:, 1],
        "v_r": lambda r: r.v_T[:, 0],
        "lambda_N": lambda r: r.lambda_N[:, 0],
        "F_f": lambda r: r.F_T[:, 0],
        "tau": lambda r: r["drive"],
        "phi": lambda r: r.phi[:, 0],
    }
    return system, [th1, 0.0], [w1, omega], columns


def _build_planar(p):
    J1, m1, L1, J2, m2, L2 = p["J1"], p["m1"], p["L1"], p["J2"], p["m2"], p["L2"]
    m3, L3, L4, omega = p["m3"], p["L3"], p["L4"], p["omega"]
    from nonsmooth.errors import ModelError

    for name, J, m, L in (("rocker", J1, m1, L1), ("crank", J2, m2, L2)):
        if J - m * L * L <= 0:
            raise ModelError(f"model {NAME} (form=planar): the {name} inertia about its pivot "
                             f"{J:g} kg m^2 must exceed m L^2 = {m * L * L:g} kg m^2")
    th1, w1 = _initial_angles(p)
    mdl = PlanarModel(NAME)
    # body x-axes along the bars; math angle = pi/2 - (spec angle)
    rocker = mdl.add(Body("rocker", m1, J1 - m1 * L1 ** 2, position=(0.0, L1),
                          angle=math.pi / 2, angular_velocity=-w1))
    crank = mdl.add(Body("crank", m2, J2 - m2 * L2 ** 2, position=(0.0, L4 + L2),
                         angle=math.pi / 2, angular_velocity=-omega))
    slider = mdl.add(PointMass("slider", m3, position=(0.0, L4 + L3)))
    pivot = mdl.add(Revolute("O", ground, rocker, (0.0, 0.0), (-L1, 0.0)))
    crank_pin = mdl.add(Revolute("O1", ground, crank, (0.0, L4), (-L2, 0.0)))
    mdl.add(Revolute("B", crank, slider, (L3 - L2, 0.0), (0.0, 0.0)))
    mdl.add(Translational("slot", rocker, slider, (-L1, 0.0), (1.0, 0.0), mu=p["mu"],
                          mu_s=p["mu_s"], law=p["friction"], friction=friction_params(p)))
    mdl.add(Driver("drive", crank_pin, speed=-omega, initial=math.pi / 2))
    if p["c"] > 0:
        mdl.add(JointDamper("rocker damping", pivot, p["c"]))
    mdl.add(Gravity(g=p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    i1, i2 = names.index("rocker.theta"), names.index("crank.theta")
    slot_row = system.constraint_names.index("slot.normal")
    columns = {
        "theta1": lambda r: math.pi / 2 - r.q[:, i1],
        "omega1": lambda r: -r.v[:, i1],
        "alpha1": lambda r: -r.dv[:, i1],
        "theta2": lambda r: math.pi / 2 - r.q[:, i2],
        "v_r": lambda r: r.v_T[:, 0],
        "lambda_N": lambda r: r.lambda_N[:, 0],
        "F_f": lambda r: r.F_T[:, 0],
        "tau": lambda r: -r["drive"],
        "phi": lambda r: r.phi[:, slot_row],
    }
    return system, q0, v0, columns
