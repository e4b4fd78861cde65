"""A two-joint arm in space with geared, frictional joints and a sleeve on a cylindrical
bearing: three frictional spatial joints in stick-slip (``nonsmooth.spatial.joint_friction``,
``docs/method.md`` section 15.4; issue 22's model).

Built with the spatial family (``nonsmooth.spatial``): a horizontal SCARA-type arm. The upper
arm (a slender rod, mass ``m0``, length ``L0``) turns about the world z axis on the revolute
``shoulder`` at the origin; the forearm (mass ``m1``, length ``L1``) turns on the vertical
revolute ``elbow`` at the upper arm's end; a sleeve (a short tube, mass ``m2``, inner radius
``r2``, length ``l2``) sits on the forearm's axis at ``d2`` from the elbow on the cylindrical
joint ``sleeve_bearing``, free to slide along the forearm and to turn about it. Gravity ``g``
along -z loads the revolutes axially and in bending (the overhung arms) and the bearing
radially. Everything starts at rest, stretched along x.

Each revolute is geared (``RotorInertia``, armature mode: ``G^2 I_r`` on the joint rate) and
has MotionSolve joint friction (``law``, ``mu_s`` / ``mu_d``; pin radius, friction arm,
bending arm: its radial, axial and bending loads); the sleeve's bearing has friction with the
reaction and bending (over the sleeve's length ``l2``) loads and a 2-D slip ``(r2 w, v)``. The
motors apply joint torques ``T0 sin(w t)`` (shoulder) and ``T1 cos(w t)`` (elbow), a push ``F2
sin(2 w t)`` drives the sleeve along the forearm and a torque ``Q2 sin(w t)`` twists it. The
motor torques' amplitudes sit just above the breakaway levels, so the shoulder and the elbow
stick and slip about ten times each in 0-5 s; the sleeve breaks away and then slips in 2-D,
its axial slip reversing with the push while the twist keeps the slip vector off zero.

Outputs: ``shoulder_angle``, ``elbow_angle`` (rad), ``sleeve_travel`` (m) and ``sleeve_angle``
(rad), the friction torques ``shoulder_friction``, ``elbow_friction`` (N m), the sleeve's
friction force ``sleeve_friction`` (N) and torque ``sleeve_friction_torque`` (N m), the normal
loads ``shoulder_load`` ... (N), and every element output (``shoulder.N_axial``,
``elbow.N_bending``, ``sleeve_bearing.slip1``, ``elbow.mode`` ...).
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
    Parameter("m0", 2.0, "kg", "mass of the upper arm", 0.0, 1e3, exclusive=True),
    Parameter("L0", 0.4, "m", "length of the upper arm (shoulder to elbow)", 0.0, 10.0,
              exclusive=True),
    Parameter("m1", 1.5, "kg", "mass of the forearm", 0.0, 1e3, exclusive=True),
    Parameter("L1", 0.5, "m", "length of the forearm", 0.0, 10.0, exclusive=True),
    Parameter("m2", 0.5, "kg", "mass of the sleeve", 0.0, 1e3, exclusive=True),
    Parameter("r2", 0.02, "m", "inner radius of the sleeve (its bearing's pin radius)", 0.0,
              1.0, exclusive=True),
    Parameter("l2", 0.08, "m", "length of the sleeve (its bearing's overlap)", 0.0, 10.0,
              exclusive=True),
    Parameter("d2", 0.3, "m", "initial distance of the sleeve from the elbow", 0.0, 10.0,
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
    Parameter("T0", 2.0, "N m", "amplitude of the shoulder torque", -1e4, 1e4),
    Parameter("T1", 0.7, "N m", "amplitude of the elbow torque", -1e4, 1e4),
    Parameter("F2", 4.0, "N", "amplitude of the push on the sleeve", -1e4, 1e4),
    Parameter("Q2", 0.01, "N m", "amplitude of the twist of the sleeve", -1e4, 1e4),
    Parameter("w", 2.0 * math.pi, "rad/s", "angular frequency of the loads", 0.0, 1e3,
              exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "shoulder_angle": ("rad", "angle of the upper arm about z"),
    "elbow_angle": ("rad", "angle of the forearm relative to the upper arm"),
    "sleeve_travel": ("m", "travel of the sleeve along the forearm"),
    "sleeve_angle": ("rad", "angle of the sleeve about the forearm"),
    "shoulder_friction": ("N m", "friction torque of the shoulder on the upper arm"),
    "elbow_friction": ("N m", "friction torque of the elbow on the forearm"),
    "sleeve_friction": ("N", "friction force of the bearing on the sleeve, along the forearm"),
    "sleeve_friction_torque": ("N m", "friction torque of the bearing on the sleeve"),
    "shoulder_load": ("N", "normal load of the shoulder's friction"),
    "elbow_load": ("N", "normal load of the elbow's friction"),
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
        raise ModelError(f"model {NAME}: d2 = {p['d2']:g} m puts the sleeve off the forearm; "
                         f"give l2 / 2 < d2 < L1 - l2 / 2 = {p['L1'] - p['l2'] / 2:g} m")
    m0, L0, m1, L1, m2, r2, l2, d2 = (p[k] for k in ("m0", "L0", "m1", "L1", "m2", "r2", "l2",
                                                      "d2"))
    w, g = p["w"], p["g"]
    z, x = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0])
    E = L0 * x  # the elbow
    friction = {"mu": p["mu_d"], "mu_s": p["mu_s"], "law": p["law"]}
    arms = {"pin_radius": p["pin_radius"], "friction_arm": p["friction_arm"],
            "bending_arm": p["bending_arm"]}
    mdl = SpatialModel(NAME)
    J0, J1 = m0 * L0 * L0 / 12.0, m1 * L1 * L1 / 12.0  # slender rods along x
    upper = mdl.add(Body("upper_arm", m0, (1e-4 * m0, J0, J0), position=0.5 * L0 * x))
    fore = mdl.add(Body("forearm", m1, (1e-4 * m1, J1, J1), position=E + 0.5 * L1 * x))
    Js = m2 * (3 * r2 * r2 + l2 * l2) / 12.0
    S = E + d2 * x  # the sleeve's centre on the forearm
    sleeve = mdl.add(Body("sleeve", m2, (m2 * r2 * r2, Js, Js), position=S))
    shoulder = mdl.add(Revolute("shoulder", ground, upper, point=(0.0, 0.0, 0.0), axis=z,
                                **friction, **arms))
    elbow = mdl.add(Revolute("elbow", upper, fore, point=E, axis=z, **friction, **arms))
    mdl.add(Cylindrical("sleeve_bearing", fore, sleeve, point=S, axis=x, **friction,
                        pin_radius=r2, initial_overlap=l2))
    for joint in (shoulder, elbow):
        mdl.add(RotorInertia(f"{joint.name}_motor", joint, rotor_inertia=p["I_r"],
                             gear_ratio=p["G"], mode="armature"))
    # motor torques and the push and twist on the sleeve, equal and opposite (body axes: the
    # joint axes are fixed in both bodies)
    T0, T1, F2, Q2 = p["T0"], p["T1"], p["F2"], p["Q2"]
    mdl.add(Torque("shoulder_torque", upper, lambda t: T0 * math.sin(w * t) * z,
                   frame="body"))
    mdl.add(Torque("elbow_on_forearm", fore, lambda t: T1 * math.cos(w * t) * z, frame="body"))
    mdl.add(Torque("elbow_on_upper_arm", upper, lambda t: -T1 * math.cos(w * t) * z,
                   frame="body"))
    mdl.add(Force("push_on_sleeve", sleeve, lambda t: F2 * math.sin(2 * w * t) * x,
                  frame="body"))
    mdl.add(Force("push_on_forearm", fore, lambda t: -F2 * math.sin(2 * w * t) * x, point=S,
                  frame="body"))
    mdl.add(Torque("twist_on_sleeve", sleeve, lambda t: Q2 * math.sin(w * t) * x, frame="body"))
    mdl.add(Torque("twist_on_forearm", fore, lambda t: -Q2 * math.sin(w * t) * x,
                   frame="body"))
    mdl.add(Gravity(g))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {
        "shoulder_angle": lambda r: r["shoulder.angle"],
        "elbow_angle": lambda r: r["elbow.angle"],
        "sleeve_travel": lambda r: r["sleeve_bearing.displacement"],
        "sleeve_angle": lambda r: r["sleeve_bearing.angle"],
        "shoulder_friction": lambda r: r["shoulder.Tf_h"],
        "elbow_friction": lambda r: r["elbow.Tf_h"],
        "sleeve_friction": lambda r: r["sleeve_bearing.Ff_h"],
        "sleeve_friction_torque": lambda r: r["sleeve_bearing.Tf_h"],
        "shoulder_load": lambda r: r["shoulder.N"],
        "elbow_load": lambda r: r["elbow.N"],
        "sleeve_load": lambda r: r["sleeve_bearing.N"],
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=("shoulder_angle", "elbow_angle", "sleeve_travel",
                               "shoulder_friction", "elbow_friction", "sleeve_friction"))
