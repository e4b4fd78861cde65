"""A two-joint robot arm in space with geared motors: a turret on a base revolute about the
vertical, an arm on a shoulder revolute about a horizontal axis, each joint driven through a
reduction by a motor whose rotor inertia is modelled (``nonsmooth.spatial.RotorInertia``,
``docs/method.md`` section 15.1).

Built with the spatial family (``nonsmooth.spatial``, ``docs/spatial.md``): the turret (a
uniform cylinder of mass ``m0``, height ``H0``, radius ``r0``) turns about the world z axis on
the revolute ``base`` at the origin; the arm (a uniform rod of mass ``m1``, length ``L1``,
radius ``r1``) hangs from the shoulder ``shoulder`` at the top of the turret, ``(0, 0, H0)``, its
axis horizontal and fixed in the turret (world ``-y`` at the start, so a positive angle raises
the arm). Gravity ``g`` along -z. Each joint has a motor: rotor inertia ``I_r0`` / ``I_r1``
behind gear ratio ``G0`` / ``G1``, in ``mode="virtual"`` (the rotor spinning on the joint's
carrier: the shoulder motor's gyroscopic torque loads the turret) or ``"armature"`` (only
``G^2 I_r`` on the joint rate).

``drive="sine"``: both joints driven, ``base = A0 sin(w t)``, ``shoulder = theta0 + A1 sin(w
t)`` (rad), the drivers' torques reported; ``drive="none"``: the arm swings free from
``theta0`` with the turret turning at ``w0`` and the arm at ``w1`` relative to it.

Outputs: ``base_angle``, ``shoulder_angle`` (the arm's elevation, rad), ``tip_x/y/z`` (the arm's
end, m), ``energy`` (kinetic, rotors included, + potential, J: constant without drivers),
``base_torque`` and ``shoulder_torque`` (N m, driven only), and every element output
(``base_motor.spin``, ``shoulder.Fz``, ``turret.wz_world`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Driver, Gravity, Revolute, RotorInertia, SpatialModel, ground
from nonsmooth.spatial.rotation import from_axis_angle, rotation_matrices, rotation_matrix

NAME = "spatial_robot_arm"
DESCRIPTION = "Two-joint robot arm in space with geared motors (rotor inertia, virtual rotors)"

#: Ranges (SI): masses (0, 1e6] kg, lengths (0, 1e2] m, radii (0, 1] m (below the lengths),
#: rotor inertias (0, 1] kg m^2, gear ratios (0, 1e4], angles within one turn, rates
#: |w| <= 1e3 rad/s, gravity [0, 1e3] m/s^2, end time (0, 1e3] s.
PARAMETERS = [
    Parameter("m0", 5.0, "kg", "mass of the turret", 0.0, 1e6, exclusive=True),
    Parameter("H0", 0.5, "m", "height of the turret (base to shoulder)", 0.0, 1e2,
              exclusive=True),
    Parameter("r0", 0.1, "m", "radius of the turret", 0.0, 1.0, exclusive=True),
    Parameter("m1", 2.0, "kg", "mass of the arm", 0.0, 1e6, exclusive=True),
    Parameter("L1", 0.8, "m", "length of the arm", 0.0, 1e2, exclusive=True),
    Parameter("r1", 0.03, "m", "radius of the arm", 0.0, 1.0, exclusive=True),
    Parameter("I_r0", 5e-5, "kg m^2", "rotor inertia of the base motor", 0.0, 1.0,
              exclusive=True),
    Parameter("G0", 100.0, "-", "gear ratio of the base motor", 0.0, 1e4, exclusive=True),
    Parameter("I_r1", 3e-5, "kg m^2", "rotor inertia of the shoulder motor", 0.0, 1.0,
              exclusive=True),
    Parameter("G1", 80.0, "-", "gear ratio of the shoulder motor", 0.0, 1e4, exclusive=True),
    Parameter("mode", "virtual", "-", "rotor model of both motors",
              choices=("virtual", "armature")),
    Parameter("drive", "sine", "-", "drive both joints (sine) or let the arm swing (none)",
              choices=("sine", "none")),
    Parameter("theta0", 0.3, "rad", "initial elevation of the arm", -math.pi, math.pi),
    Parameter("A0", 1.0, "rad", "amplitude of the base motion (drive=sine)", -math.pi, math.pi),
    Parameter("A1", 0.5, "rad", "amplitude of the shoulder motion (drive=sine)", -math.pi,
              math.pi),
    Parameter("w", 3.0, "rad/s", "angular frequency of the drives (drive=sine)", 0.0, 1e3),
    Parameter("w0", 2.0, "rad/s", "initial rate of the turret (drive=none)", -1e3, 1e3),
    Parameter("w1", 0.0, "rad/s", "initial rate of the arm relative to the turret "
              "(drive=none)", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "base_angle": ("rad", "angle of the turret about z"),
    "shoulder_angle": ("rad", "elevation of the arm"),
    "tip_x": ("m", "end of the arm, x"),
    "tip_y": ("m", "end of the arm, y"),
    "tip_z": ("m", "end of the arm, z"),
    "energy": ("J", "kinetic (rotors included) + potential energy"),
    "base_torque": ("N m", "driving torque of the base joint (drive=sine)"),
    "shoulder_torque": ("N m", "driving torque of the shoulder joint (drive=sine)"),
}


def _sine(amplitude: float, w: float):
    """``(f, df/dt, d2f/dt2)`` of ``amplitude sin(w t)``."""
    return (lambda t: amplitude * math.sin(w * t), lambda t: amplitude * w * math.cos(w * t),
            lambda t: -amplitude * w * w * math.sin(w * t))


def build(**params) -> Model:
    """Build the geared two-joint arm; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["r1"] >= p["L1"] or p["r0"] >= 10.0 * p["H0"]:
        raise ModelError(f"model {NAME}: r1 = {p['r1']:g} m must be below L1 = {p['L1']:g} m "
                         f"and r0 = {p['r0']:g} m below 10 H0")
    m0, H0, r0, m1, L1, r1 = (p[k] for k in ("m0", "H0", "r0", "m1", "L1", "r1"))
    driven = p["drive"] == "sine"
    z = np.array([0.0, 0.0, 1.0])
    h1 = np.array([0.0, -1.0, 0.0])  # the shoulder axis: a positive angle raises the arm
    S = H0 * z  # the shoulder
    w0 = p["A0"] * p["w"] if driven else p["w0"]
    w1 = p["A1"] * p["w"] if driven else p["w1"]
    p1 = from_axis_angle(h1, p["theta0"])  # the arm along its body x axis
    e = rotation_matrix(p1) @ np.array([1.0, 0.0, 0.0])
    c1 = S + 0.5 * L1 * e
    w_arm = w0 * z + w1 * h1
    mdl = SpatialModel(NAME)
    turret = mdl.add(Body("turret", m0, (m0 * (3 * r0 * r0 + H0 * H0) / 12.0,
                                         m0 * (3 * r0 * r0 + H0 * H0) / 12.0, 0.5 * m0 * r0 * r0),
                          position=0.5 * S, angular_velocity=w0 * z))
    across = m1 * L1 * L1 / 12.0 + m1 * r1 * r1 / 4.0
    arm = mdl.add(Body("arm", m1, (0.5 * m1 * r1 * r1, across, across), position=c1,
                       orientation=p1, velocity=np.cross(w_arm, c1 - S),
                       angular_velocity=w_arm))
    base = mdl.add(Revolute("base", ground, turret, point=(0.0, 0.0, 0.0), axis=z))
    shoulder = mdl.add(Revolute("shoulder", turret, arm, point=S, axis=h1))
    mdl.add(RotorInertia("base_motor", base, rotor_inertia=p["I_r0"], gear_ratio=p["G0"],
                         mode=p["mode"]))
    mdl.add(RotorInertia("shoulder_motor", shoulder, rotor_inertia=p["I_r1"],
                         gear_ratio=p["G1"], mode=p["mode"]))
    if driven:
        mdl.add(Driver("base_drive", base, position=_sine(p["A0"], p["w"])))
        mdl.add(Driver("shoulder_drive", shoulder, position=_sine(p["A1"], p["w"])))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    tip = np.array([0.5 * L1, 0.0, 0.0])  # the arm's end in its body axes

    def tips(r):
        return r.q[:, 7:10] + rotation_matrices(r.q[:, 10:14]) @ tip

    columns = {
        "base_angle": lambda r: r["base.angle"],
        "shoulder_angle": lambda r: p["theta0"] + r["shoulder.angle"],
        "tip_x": lambda r: tips(r)[:, 0],
        "tip_y": lambda r: tips(r)[:, 1],
        "tip_z": lambda r: tips(r)[:, 2],
        "energy": lambda r: r.T + r.V,
        "base_torque": lambda r: r["base_drive.torque"],
        "shoulder_torque": lambda r: r["shoulder_drive.torque"],
    }
    names = [n for n in OUTPUT_UNITS if driven or not n.endswith("_torque")]
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in names}
    plots = ("base_angle", "shoulder_angle", "tip_z") + (
        ("base_torque", "shoulder_torque") if driven else ("energy",))
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION, plot_outputs=plots,
                 motion_outputs=("base_angle", "shoulder_angle", "tip_x", "tip_y", "tip_z"))
