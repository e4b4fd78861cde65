"""A two-joint arm in space with geared, frictional joints and a sleeve on a cylindrical
bearing: three frictional spatial joints in stick-slip (``nonsmooth.spatial.joint_friction``,
``docs/method.md`` section 15.4; issue 22's model).

Built with the spatial family (``nonsmooth.spatial``): a turret (uniform cylinder, mass ``m0``,
height ``H0``, radius ``r0``) turns about the world z axis on the revolute ``base`` at the
origin; an arm (uniform rod, mass ``m1``, length ``L1``) turns on the horizontal revolute
``shoulder`` at the top of the turret (axis world ``-y`` at the start, fixed in the turret, so a
positive angle raises the arm), starting horizontal; a sleeve (a short tube, mass ``m2``, inner
radius ``r2``) sits on the arm's axis at ``d2`` from the shoulder on the cylindrical joint
``sleeve_bearing``, free to slide along the arm and to turn about it. Gravity ``g`` along -z.

Each revolute is geared (``RotorInertia``, armature mode: ``G^2 I_r`` on the joint rate) and
has MotionSolve joint friction (``law``, ``mu_s`` / ``mu_d``; pin radius, friction arm,
bending arm: its radial, axial and bending loads); the sleeve's bearing has friction with the
reaction and bending (over the sleeve's length ``l2``) loads and a 2-D slip ``(r2 w, v)``. The
motors apply joint torques ``T0 sin(w t)`` (base, about z) and ``T1 sin(w t + pi/2)`` plus a
gravity-compensating ``T1g`` (shoulder), a push ``F2 sin(2 w t)`` drives the sleeve along the
arm and a torque ``Q2 sin(w t)`` twists it; the amplitudes sit near the breakaway levels, so
every joint sticks and slips.

Outputs: ``base_angle``, ``shoulder_angle`` (rad), ``sleeve_travel`` (m) and ``sleeve_angle``
(rad), the friction torques ``base_friction``, ``shoulder_friction`` (N m), the sleeve's
friction force ``sleeve_friction`` (N) and torque ``sleeve_friction_torque`` (N m), the normal
loads ``base_load`` ... (N), the modes, and every element output (``base.N_axial``,
``shoulder.N_bending``, ``sleeve_bearing.slip1`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import (
    Body,
    Cylindrical,
    Force,
    Gravity,
    Revolute,
    RotorInertia,
    SpatialModel,
    Torque,
    ground,
)

NAME = "spatial_friction_arm"
DESCRIPTION = ("Two-joint arm with geared frictional joints and a sleeve on a frictional "
               "cylindrical bearing (3-D joint friction, stick-slip)")

#: Ranges (SI): masses (0, 1e3] kg, lengths (0, 10] m, radii (0, 1] m, coefficients [0, 2],
#: torques and forces |.| <= 1e4, rates (0, 1e3] rad/s, end time (0, 1e3] s.
PARAMETERS = [
    Parameter("m0", 4.0, "kg", "mass of the turret", 0.0, 1e3, exclusive=True),
    Parameter("H0", 0.4, "m", "height of the turret (base to shoulder)", 0.0, 10.0,
              exclusive=True),
    Parameter("r0", 0.08, "m", "radius of the turret", 0.0, 1.0, exclusive=True),
    Parameter("m1", 1.5, "kg", "mass of the arm", 0.0, 1e3, exclusive=True),
    Parameter("L1", 0.6, "m", "length of the arm", 0.0, 10.0, exclusive=True),
    Parameter("m2", 0.5, "kg", "mass of the sleeve", 0.0, 1e3, exclusive=True),
    Parameter("r2", 0.02, "m", "inner radius of the sleeve (its bearing's pin radius)", 0.0,
              1.0, exclusive=True),
    Parameter("l2", 0.08, "m", "length of the sleeve (its bearing's overlap)", 0.0, 10.0,
              exclusive=True),
    Parameter("d2", 0.35, "m", "initial distance of the sleeve from the shoulder", 0.0, 10.0,
              exclusive=True),
    Parameter("law", "coulomb", "-", "friction law of the three joints",
              choices=("coulomb", "lugre", "regularized", "bristle")),
    Parameter("mu_s", 0.25, "-", "static coefficient", 0.0, 2.0, exclusive=True),
    Parameter("mu_d", 0.18, "-", "dynamic coefficient", 0.0, 2.0, exclusive=True),
    Parameter("pin_radius", 0.015, "m", "pin radius of the revolutes", 0.0, 1.0,
              exclusive=True),
    Parameter("friction_arm", 0.03, "m", "friction arm of the revolutes' axial load", 0.0,
              1.0, exclusive=True),
    Parameter("bending_arm", 0.05, "m", "bending reaction arm of the revolutes", 0.0, 1.0,
              exclusive=True),
    Parameter("I_r", 2e-5, "kg m^2", "rotor inertia of each motor", 0.0, 1.0, exclusive=True),
    Parameter("G", 50.0, "-", "gear ratio of each motor", 0.0, 1e4, exclusive=True),
    Parameter("T0", 1.0, "N m", "amplitude of the base torque", -1e4, 1e4),
    Parameter("T1", 0.6, "N m", "amplitude of the shoulder torque", -1e4, 1e4),
    Parameter("F2", 1.5, "N", "amplitude of the push on the sleeve", -1e4, 1e4),
    Parameter("Q2", 0.03, "N m", "amplitude of the twist of the sleeve", -1e4, 1e4),
    Parameter("w", 2.0 * math.pi, "rad/s", "angular frequency of the loads", 0.0, 1e3,
              exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "base_angle": ("rad", "angle of the turret about z"),
    "shoulder_angle": ("rad", "elevation of the arm"),
    "sleeve_travel": ("m", "travel of the sleeve along the arm"),
    "sleeve_angle": ("rad", "angle of the sleeve about the arm"),
    "base_friction": ("N m", "friction torque of the base joint on the turret"),
    "shoulder_friction": ("N m", "friction torque of the shoulder on the arm"),
    "sleeve_friction": ("N", "friction force of the bearing on the sleeve, along the arm"),
    "sleeve_friction_torque": ("N m", "friction torque of the bearing on the sleeve"),
    "base_load": ("N", "normal load of the base joint's friction"),
    "shoulder_load": ("N", "normal load of the shoulder's friction"),
    "sleeve_load": ("N", "normal load of the sleeve bearing's friction"),
}


def build(**params) -> Model:
    """Build the arm; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["mu_d"] > p["mu_s"]:
        raise ModelError(f"model {NAME}: mu_d = {p['mu_d']:g} must not exceed mu_s = "
                         f"{p['mu_s']:g}")
    if not p["l2"] / 2 < p["d2"] < p["L1"] - p["l2"] / 2:
        raise ModelError(f"model {NAME}: d2 = {p['d2']:g} m puts the sleeve off the arm; give "
                         f"l2 / 2 < d2 < L1 - l2 / 2 = {p['L1'] - p['l2'] / 2:g} m")
    m0, H0, r0, m1, L1, m2, r2, l2, d2 = (p[k] for k in ("m0", "H0", "r0", "m1", "L1", "m2",
                                                           "r2", "l2", "d2"))
    w, g = p["w"], p["g"]
    z, x = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    h1 = np.array([0.0, -1.0, 0.0])  # the shoulder axis
    S = H0 * z  # the shoulder
    friction = {"mu": p["mu_d"], "mu_s": p["mu_s"], "law": p["law"]}
    arms = {"pin_radius": p["pin_radius"], "friction_arm": p["friction_arm"],
            "bending_arm": p["bending_arm"]}
    mdl = SpatialModel(NAME)
    Jt = m0 * (3 * r0 * r0 + H0 * H0) / 12.0
    turret = mdl.add(Body("turret", m0, (Jt, Jt, 0.5 * m0 * r0 * r0), position=0.5 * S))
    Ja = m1 * L1 * L1 / 12.0
    arm = mdl.add(Body("arm", m1, (1e-4 * m1, Ja, Ja), position=S + 0.5 * L1 * x))
    Js = m2 * (3 * r2 * r2 + l2 * l2) / 12.0
    sleeve = mdl.add(Body("sleeve", m2, (m2 * r2 * r2, Js, Js), position=S + d2 * x))
    base = mdl.add(Revolute("base", ground, turret, point=(0.0, 0.0, 0.0), axis=z, **friction,
                            **arms))
    shoulder = mdl.add(Revolute("shoulder", turret, arm, point=S, axis=h1, **friction, **arms))
    mdl.add(Cylindrical("sleeve_bearing", arm, sleeve, point=S + d2 * x, axis=x, **friction,
                        pin_radius=r2, initial_overlap=l2))
    for joint in (base, shoulder):
        mdl.add(RotorInertia(f"{joint.name}_motor", joint, rotor_inertia=p["I_r"],
                             gear_ratio=p["G"], mode="armature"))
    # joint torques (body axes: the joint axes are fixed in both bodies), equal and opposite
    T0, T1, F2, Q2 = p["T0"], p["T1"], p["F2"], p["Q2"]
    hold = (m1 * 0.5 * L1 + m2 * d2) * g  # the shoulder motor holds the arm's weight
    mdl.add(Torque("base_motor_torque", turret, lambda t: T0 * math.sin(w * t) * z,
                   frame="body"))

    def shoulder_torque(t):
        return (hold + T1 * math.cos(w * t)) * h1

    mdl.add(Torque("shoulder_on_arm", arm, shoulder_torque, frame="body"))
    mdl.add(Torque("shoulder_on_turret", turret, lambda t: -shoulder_torque(t), frame="body"))
    mdl.add(Force("push_on_sleeve", sleeve, lambda t: F2 * math.sin(2 * w * t) * x,
                  frame="body"))
    mdl.add(Force("push_on_arm", arm, lambda t: -F2 * math.sin(2 * w * t) * x, point=S + d2 * x,
                  frame="body"))
    mdl.add(Torque("twist_on_sleeve", sleeve, lambda t: Q2 * math.sin(w * t) * x, frame="body"))
    mdl.add(Torque("twist_on_arm", arm, lambda t: -Q2 * math.sin(w * t) * x, frame="body"))
    mdl.add(Gravity(g))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {
        "base_angle": lambda r: r["base.angle"],
        "shoulder_angle": lambda r: r["shoulder.angle"],
        "sleeve_travel": lambda r: r["sleeve_bearing.displacement"],
        "sleeve_angle": lambda r: r["sleeve_bearing.angle"],
        "base_friction": lambda r: r["base.Tf_h"],
        "shoulder_friction": lambda r: r["shoulder.Tf_h"],
        "sleeve_friction": lambda r: r["sleeve_bearing.Ff_h"],
        "sleeve_friction_torque": lambda r: r["sleeve_bearing.Tf_h"],
        "base_load": lambda r: r["base.N"],
        "shoulder_load": lambda r: r["shoulder.N"],
        "sleeve_load": lambda r: r["sleeve_bearing.N"],
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=("base_angle", "shoulder_angle", "sleeve_travel",
                               "base_friction", "shoulder_friction", "sleeve_friction"))
