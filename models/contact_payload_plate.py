"""A six-axis arm presses a half-spherical payload onto a plate and drags it across: Hertz
contact with Coulomb stick-slip, after the payload-on-a-plate experiment of Gonthier's thesis
(Y. Gonthier, *Contact Dynamics Modelling for Robotic Task Simulation*, PhD thesis, University of
Waterloo, 2007).

Built with the spatial family (``nonsmooth.spatial``) and a compliant point contact
(``nonsmooth.contact``).

The arm (an anthropomorphic arm with a spherical wrist; masses and inertias are ours, chosen as
a small industrial arm's, not the thesis'): six revolute joints, every one driven along a
smooth trajectory by a :class:`~nonsmooth.spatial.Driver` (joint angles relative to the
initial pose):

=============  ========================  ===========  =====================================
joint          axis (initial pose)       at (m)       body it carries (mass, shape)
=============  ========================  ===========  =====================================
``base``       world z                   (0, 0, 0)    ``column``: 10 kg, cylinder r 0.08 m,
                                                      0.4 m tall
``shoulder``   world y                   (0, 0, 0.4)  ``upper_arm``: 6 kg, rod 0.4 m, r 0.04,
                                                      vertical
``elbow``      world y                   (0, 0, 0.8)  ``forearm``: 4 kg, rod 0.4 m, r 0.035,
                                                      along +x
``wrist_roll`` world x (the forearm)     W            ``wrist1``: 1 kg, cylinder 0.1 m along
                                                      x, r 0.03
``wrist_pitch`` world y                  W            ``wrist2``: 0.8 kg, 4e-4 kg m^2
``flange``     world -z (the tool axis)  W            ``tool``: 0.5 kg, rod 0.1 m along z
=============  ========================  ===========  =====================================

``W = (0.4, 0, 0.8)`` is the wrist centre; the tool points straight down. Below the tool flange
(``(0.4, 0, 0.7)``) a compliant three-axis stage (a compliant wrist, as a force-torque sensor
mount or a remote-centre-compliance device): a ``slider`` (0.2 kg) on a translational joint
along the tool axis held by a spring ``k_n`` (the pressing compliance; its rest length makes
the hanging stage start in equilibrium), a ``carriage`` (0.2 kg) on a translational joint along
the tool's x axis, and the ``payload`` on one along its y axis, each held by a spring ``k_t``
with damping ``c_t`` (the tangential compliance, through which the arm drags the payload). The
payload (mass ``m_p``) is a half-sphere of radius ``R`` whose spherical face points down: the
contact shape is a ``Sphere(R)`` at the payload's centre of mass (the holder above the
half-sphere puts the centre of mass at the sphere's centre). At the start the payload swings
gently across the arm on its stage (``v_y0``, m/s, damped out before the touch): the engine
cannot yet start a run whose contact is open while its friction is at rest with a tangential
load on it (the friction starts stuck with no normal force and the run stalls), so the
friction starts sliding.

The plate is a ground ``Plane`` at ``z = z_plate``, ``clearance`` below the payload at the
start. The contact: Hertz with the materials (a steel payload ``E``, ``nu`` on a plate of
``E_plate``, ``nu_plate``; by default a polyethylene plate, which keeps the contact stiffness
moderate: an acetal plate, ``E_plate=3e9``, takes 1.6x the run time, a steel one more),
restitution ``e`` (exact), Coulomb friction ``mu`` (sliding) and ``mu_s`` (static) with exact
stick. With ``layer > 0`` the contact takes the volumetric law instead
(``Volumetric(E=E_plate, depth=layer, damping=a_v)``: the plate a compliant layer of that depth
on a rigid base, the force from the volume of the half-sphere's cap pressed into it, at the
cap's centroid, with its rolling resistance), the friction at the cap's centroid.

The task (quintic blends ``10 s^3 - 15 s^4 + 6 s^5`` between rests):

* 0.2-1.0 s: shoulder and elbow lower the wrist straight down by ``clearance + press`` (the
  inverse kinematics, :func:`arm_angles`; the wrist pitch keeps the tool vertical): the
  payload touches the plate and the normal spring is compressed by ``press``, the contact
  force ``~ k_n press``;
* 1.0-1.5 s: it presses (sticks);
* 1.5-4.0 s: the base turns by ``sweep`` (rad): the payload is dragged along an arc of radius
  0.4 m across the plate; the tangential springs load until ``|F_T| = mu_s N``, it slips, it
  sticks again: stick-slip;
* 4.3-4.9 s: shoulder and elbow lift it off the plate.

Each joint follows a quintic spline of the task (:func:`joint_trajectories`: exact where the
task is a quintic blend, within 1e-13 rad of the inverse kinematics elsewhere) that the
compiled phases evaluate themselves; the run restarts the integrator at the splines'
breakpoints. Run time: the whole task, 0-5 s, about 1.3 s and 36 000 evaluations on 2 cores
(``benchmarks/contact_payload.py``; the same splines called back as Python functions cost
about 3x per evaluation). Most evaluations go to the stiff contact (the
payload's vibration on the plate, which an explicit integrator follows with short steps) and
to the slow slide before the payload sticks at the end of the drag: there the friction force's
direction turns fast for a small change of the slip, and the number of steps depends on how
close the stage's load is to ``mu N`` as the slip dies out (other parameters may take several
times as many).

Outputs: ``N`` (N, the contact force), ``F_t`` (N, the friction force's magnitude in the
plate), ``slip`` (m/s, the payload's contact point's speed on the plate), ``gap`` (m),
``tau_base`` ... ``tau_flange`` (N m, the six driving torques), and every element output
(``plate.Fx``, ``plate.Fz``, ``stage_x.tension``, ``payload.x`` ...). Events of the contact
``plate``: ``touch``, ``leave`` and the friction's ``stick`` / slip starts
(``result.events.filter("plate")``).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Contact, Hertz, Plane, Sphere, Volumetric
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Driver, Gravity, Revolute, SpatialModel, Spring, ground
from nonsmooth.spatial.elements import Translational

NAME = "contact_payload_plate"
DESCRIPTION = ("Six-axis arm pressing a half-spherical payload onto a plate and dragging it "
               "across: Hertz contact, Coulomb stick-slip")

#: Ranges (SI): payload mass (0, 100] kg, radius (0, 0.1] m, moduli (0, 1e13] Pa, Poisson's
#: ratios [0, 0.5), restitution (0, 1], coefficients (0, 10], stiffnesses (0, 1e7] N/m,
#: damping [0, 1e4] N s/m, clearance (0, 0.05] m, press [0, 0.05] m, sweep [-1, 1] rad,
#: gravity [0, 1e3] m/s^2, end time (0, 5] s (the trajectory's length).
PARAMETERS = [
    Parameter("m_p", 1.0, "kg", "mass of the payload", 0.0, 100.0, exclusive=True),
    Parameter("R", 0.05, "m", "radius of the half-sphere", 0.0, 0.1, exclusive=True),
    Parameter("E", 210e9, "Pa", "Young's modulus of the payload (steel)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu", 0.3, "-", "Poisson's ratio of the payload", 0.0, 0.4999),
    Parameter("E_plate", 3e8, "Pa", "Young's modulus of the plate (polyethylene)", 0.0, 1e13,
              exclusive=True),
    Parameter("nu_plate", 0.4, "-", "Poisson's ratio of the plate", 0.0, 0.4999),
    Parameter("e", 0.5, "-", "coefficient of restitution of the contact", 0.0, 1.0,
              exclusive=True),
    Parameter("layer", 0.0, "m", "depth of the plate's compliant layer for the volumetric law "
              "(k_v = E_plate / layer); 0: Hertz point contact", 0.0, 1.0),
    Parameter("a_v", 1.0, "s/m", "damping of the volumetric law (with layer > 0)", 0.0, 1e3),
    Parameter("mu", 0.3, "-", "dynamic (sliding) friction coefficient", 0.0, 10.0,
              exclusive=True),
    Parameter("mu_s", 0.4, "-", "static friction coefficient (>= mu)", 0.0, 10.0,
              exclusive=True),
    Parameter("k_n", 4000.0, "N/m", "stiffness of the stage along the tool axis", 0.0, 1e7,
              exclusive=True),
    Parameter("c_n", 40.0, "N s/m", "damping of the stage along the tool axis", 0.0, 1e4),
    Parameter("k_t", 2000.0, "N/m", "stiffness of the stage across the tool axis", 0.0, 1e7,
              exclusive=True),
    Parameter("c_t", 4.0, "N s/m", "damping of the stage across the tool axis", 0.0, 1e4),
    Parameter("clearance", 0.01, "m", "the payload's height above the plate at the start", 0.0,
              0.05, exclusive=True),
    Parameter("press", 0.005, "m", "how far the arm goes on down after the touch", 0.0, 0.05),
    Parameter("sweep", 0.25, "rad", "turn of the base while pressing", -1.0, 1.0),
    Parameter("v_y0", 0.01, "m/s", "initial velocity of the payload on its stage (across the "
              "arm)", -1.0, 1.0),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 5.0, "s", "default end time (the task lasts 5 s)", 0.0, 5.0,
              exclusive=True),
]

#: The joints, in order from the base, and their driving torques' outputs.
JOINTS = ("base", "shoulder", "elbow", "wrist_roll", "wrist_pitch", "flange")

OUTPUT_UNITS = {
    "N": ("N", "contact force of the payload on the plate"),
    "F_t": ("N", "friction force at the contact (magnitude, in the plate)"),
    "slip": ("m/s", "speed of the payload's contact point on the plate"),
    "gap": ("m", "gap between payload and plate (< 0: penetration)"),
    **{f"tau_{j}": ("N m", f"driving torque of the joint {j}") for j in JOINTS},
}

#: The arm's geometry (m): shoulder height, upper arm, forearm, wrist centre to flange; the
#: stage's bodies below the flange (their centres' distances below it).
H1, L2, L3, D6 = 0.4, 0.4, 0.4, 0.1
SLIDER_DROP, CARRIAGE_DROP, PAYLOAD_DROP = 0.02, 0.04, 0.08
#: The phases of the task (s): lowering, dragging, lifting.
LOWER, DRAG, LIFT = (0.2, 1.0), (1.5, 4.0), (4.3, 4.9)


def blend(t: float, span: tuple[float, float], amplitude: float) -> tuple[float, float, float]:
    """``(f, df/dt, d2f/dt2)`` of a quintic rest-to-rest blend from 0 to ``amplitude`` over
    ``span`` (s): ``amplitude (10 s^3 - 15 s^4 + 6 s^5)``, ``s = (t - t0) / (t1 - t0)``."""
    t0, t1 = span
    T = t1 - t0
    s = min(max((t - t0) / T, 0.0), 1.0)
    f = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)
    df = 30.0 * s * s * (1.0 - s) ** 2 / T
    ddf = 60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (T * T)
    return amplitude * f, amplitude * df, amplitude * ddf


def _cylinder(m: float, r: float, length: float, axis: int) -> tuple[float, float, float]:
    """Principal moments (kg m^2) of a uniform cylinder along body axis ``axis``."""
    across = m * (3.0 * r * r + length * length) / 12.0
    J = [across] * 3
    J[axis] = 0.5 * m * r * r
    return tuple(J)


def descent(t: float, p: dict) -> tuple[float, float, float]:
    """``(Delta, dDelta/dt, d2Delta/dt2)`` (m, m/s, m/s^2): how far the wrist is below its
    initial height at ``t`` (s): down by ``clearance + press`` over :data:`LOWER`, back up over
    :data:`LIFT`."""
    depth = p["clearance"] + p["press"]
    down, up = blend(t, LOWER, depth), blend(t, LIFT, -depth)
    return down[0] + up[0], down[1] + up[1], down[2] + up[2]


def arm_angles(Delta: float, dDelta: float, ddDelta: float) -> np.ndarray:
    """The planar inverse kinematics of shoulder and elbow that puts the wrist centre
    ``Delta`` (m) straight below its initial position: rows ``(theta2, phi)``, columns the
    angles (rad), their rates and accelerations, ``theta2`` the upper arm's turn about y and
    ``phi`` the forearm's (the elbow's angle is ``phi - theta2``, the wrist pitch's ``-phi``:
    the tool stays vertical).

    The wrist ``W - S = L2 (sin theta2, cos theta2) + L3 (cos phi, -sin phi)`` (x, z) equals
    ``(L3, L2 - Delta)``: ``theta2 = atan2(P_x, P_z) - acos((|P|^2 + L2^2 - L3^2) / (2 L2
    |P|))`` (the elbow-up branch of the initial pose); the rates from ``J (theta2', phi') =
    (0, -Delta')`` and the accelerations from its derivative (exact, not differenced)."""
    Px, Pz = L3, L2 - Delta
    P = math.hypot(Px, Pz)
    theta2 = math.atan2(Px, Pz) - math.acos((P * P + L2 * L2 - L3 * L3) / (2.0 * L2 * P))
    ux = (Px - L2 * math.sin(theta2)) / L3
    uz = (Pz - L2 * math.cos(theta2)) / L3
    phi = math.atan2(-uz, ux)
    s2, c2, sp, cp = math.sin(theta2), math.cos(theta2), math.sin(phi), math.cos(phi)
    J = np.array([[L2 * c2, -L3 * sp], [-L2 * s2, -L3 * cp]])
    rates = np.linalg.solve(J, np.array([0.0, -dDelta]))
    w2, wp = rates
    quadratic = np.array([-L2 * s2 * w2 * w2 - L3 * cp * wp * wp,
                          -L2 * c2 * w2 * w2 + L3 * sp * wp * wp])
    accel = np.linalg.solve(J, np.array([0.0, -ddDelta]) - quadratic)
    return np.array([[theta2, w2, accel[0]], [phi, wp, accel[1]]])


#: The spline's step (s) over the lowering and the lifting (where the inverse kinematics is
#: not a polynomial): its quintic pieces match the angles, rates and accelerations at every
#: step, the angles in between to about 1e-13 rad (the accelerations to 5e-9 rad/s^2).
SPLINE_STEP = 0.01


def joint_trajectories(p: dict) -> dict:
    """Each joint's angle (rad, from the initial pose) over 0-5 s as a
    ``scipy.interpolate.BPoly`` of quintic pieces matching the task's exact angle, rate and
    acceleration (:func:`arm_angles`, :func:`blend`) at its breakpoints: exact where the task is
    a quintic blend (the base's drag; every joint at rest), within about 1e-13 rad of the
    inverse kinematics over the lowering and the lifting (breakpoints every
    :data:`SPLINE_STEP`). Before 0 and after 5 s the end pieces, at rest, go on."""
    from scipy.interpolate import BPoly

    def steps(span):
        n = max(1, round((span[1] - span[0]) / SPLINE_STEP))
        return np.linspace(span[0], span[1], n + 1)

    knots = np.unique(np.concatenate(([0.0, 5.0], steps(LOWER), steps(LIFT), DRAG)))
    ik = np.array([arm_angles(*descent(t, p)) for t in knots])  # (n, 2, 3)
    weights = {"shoulder": (1.0, 0.0), "elbow": (-1.0, 1.0), "wrist_pitch": (0.0, -1.0)}
    out = {}
    for name in JOINTS:
        if name == "base":
            values = np.array([blend(t, DRAG, p["sweep"]) for t in knots])
        elif name in weights:
            a, b = weights[name]
            values = a * ik[:, 0, :] + b * ik[:, 1, :]
        else:  # wrist roll and flange: held
            values = np.zeros((knots.size, 3))
        out[name] = BPoly.from_derivatives(knots, values)
    return out


def build(**params) -> Model:
    """Build the arm, the stage, the payload and the plate; keyword arguments override
    PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    return model_of(arm_and_plate(p), p)


def arm_and_plate(p: dict, *, python_drivers: bool = False) -> SpatialModel:
    """The :class:`~nonsmooth.spatial.SpatialModel` of the parameters ``p`` (checked). With
    ``python_drivers`` the joints' trajectories are given as Python functions ``(f, df/dt,
    d2f/dt2)`` (the same splines, called back at every evaluation; the way a trajectory that is
    no spline is given), for ``benchmarks/contact_payload.py``."""
    from nonsmooth.errors import ModelError

    if p["mu_s"] < p["mu"]:
        raise ModelError(f"model {NAME}: mu_s = {p['mu_s']:g} must be >= mu = {p['mu']:g}")
    x, y, z = np.eye(3)
    W = np.array([L3, 0.0, H1 + L2])  # the wrist centre
    F = W - D6 * z  # the tool flange
    mdl = SpatialModel(NAME)
    column = mdl.add(Body("column", 10.0, _cylinder(10.0, 0.08, H1, 2),
                          position=(0.0, 0.0, 0.5 * H1)))
    upper = mdl.add(Body("upper_arm", 6.0, _cylinder(6.0, 0.04, L2, 2),
                         position=(0.0, 0.0, H1 + 0.5 * L2)))
    fore = mdl.add(Body("forearm", 4.0, _cylinder(4.0, 0.035, L3, 0),
                        position=(0.5 * L3, 0.0, H1 + L2)))
    wrist1 = mdl.add(Body("wrist1", 1.0, _cylinder(1.0, 0.03, 0.1, 0), position=W - 0.05 * x))
    wrist2 = mdl.add(Body("wrist2", 0.8, (4e-4,) * 3, position=W))
    tool = mdl.add(Body("tool", 0.5, _cylinder(0.5, 0.02, D6, 2), position=W - 0.5 * D6 * z))
    m_s, m_c, m_p, R = 0.2, 0.2, p["m_p"], p["R"]
    slider = mdl.add(Body("slider", m_s, (2e-4,) * 3, position=F - SLIDER_DROP * z))
    carriage = mdl.add(Body("carriage", m_c, (2e-4,) * 3, position=F - CARRIAGE_DROP * z))
    C = F - PAYLOAD_DROP * z  # the payload's (and its sphere's) centre
    payload = mdl.add(Body("payload", m_p, (0.4 * m_p * R * R,) * 3, position=C,
                           velocity=(0.0, p["v_y0"], 0.0)))
    joints = [
        Revolute("base", ground, column, point=(0.0, 0.0, 0.0), axis=z),
        Revolute("shoulder", column, upper, point=(0.0, 0.0, H1), axis=y),
        Revolute("elbow", upper, fore, point=(0.0, 0.0, H1 + L2), axis=y),
        Revolute("wrist_roll", fore, wrist1, point=W, axis=x),
        Revolute("wrist_pitch", wrist1, wrist2, point=W, axis=y),
        Revolute("flange", wrist2, tool, point=W, axis=-z),
    ]
    for j in joints:
        mdl.add(j)
    stage_n = mdl.add(Translational("stage_n", tool, slider, point=F, axis=z))
    stage_x = mdl.add(Translational("stage_x", slider, carriage, point=F - CARRIAGE_DROP * z,
                                    axis=x))
    stage_y = mdl.add(Translational("stage_y", carriage, payload, point=C, axis=y))
    g = p["g"]
    hanging = (m_s + m_c + m_p) * g  # the stage's weight on the normal spring at the start
    mdl.add(Spring("spring_n", tool, slider, F, F - SLIDER_DROP * z, p["k_n"],
                   rest_length=SLIDER_DROP - hanging / p["k_n"], damping=p["c_n"]))
    mdl.add(Spring("spring_x", slider, carriage, F - CARRIAGE_DROP * z - 0.05 * x,
                   F - CARRIAGE_DROP * z, p["k_t"], damping=p["c_t"]))
    mdl.add(Spring("spring_y", carriage, payload, C - 0.05 * y, C, p["k_t"], damping=p["c_t"]))
    del stage_n, stage_x, stage_y
    z_plate = C[2] - R - p["clearance"]
    if p["layer"] > 0.0:  # the volumetric law: the plate a compliant layer of that depth
        law = {"normal": Volumetric(E=p["E_plate"], depth=p["layer"], damping=p["a_v"])}
    else:  # Hertz point contact, the restitution exact
        law = {"normal": Hertz(E=p["E"], nu=p["nu"], E2=p["E_plate"], nu2=p["nu_plate"]),
               "restitution": p["e"]}
    mdl.add(Contact("plate", payload, Sphere(R), ground, Plane((0.0, 0.0, z_plate), z),
                    mu=p["mu"], mu_s=p["mu_s"], **law))
    # the task: lower the wrist straight down (shoulder and elbow by the inverse kinematics,
    # the wrist pitch keeping the tool vertical), drag (base), lift; each joint's trajectory a
    # quintic spline the compiled phases evaluate themselves (:func:`joint_trajectories`)
    splines = joint_trajectories(p)
    for j in joints:
        spline = splines[j.name]
        motion = spline
        if python_drivers:
            rates = (spline, spline.derivative(1), spline.derivative(2))
            motion = tuple((lambda t, d=d: float(d(t))) for d in rates)
        mdl.add(Driver(f"drive_{j.name}", j, position=motion))
    mdl.add(Gravity(g))
    return mdl


def model_of(mdl: SpatialModel, p: dict) -> Model:
    """The bundled model (outputs, phases, plots) of :func:`arm_and_plate`'s ``mdl``."""
    system = mdl.compile()
    q0, v0 = mdl.initial_state()

    def slip(r):
        # the payload does not turn relative to the tool, whose only turn is the base's
        # (about z, through the contact point's vertical): its contact point moves as its
        # centre, in the plate
        return np.hypot(r["payload.vx"], r["payload.vy"])

    columns = {
        "N": lambda r: r["plate.N"],
        "F_t": lambda r: np.hypot(r["plate.Fx"], r["plate.Fy"]),
        "slip": slip,
        "gap": lambda r: r["plate.gap"],
        **{f"tau_{j}": (lambda r, j=j: r[f"drive_{j}.torque"]) for j in JOINTS},
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=5e-3, description=DESCRIPTION, tstops=tuple(sorted({*LOWER, *DRAG, *LIFT})),
                 plot_outputs=("N", "F_t", "slip", "tau_base", "tau_shoulder", "tau_elbow"),
                 motion_outputs=("N", "F_t", "slip"))
