"""The Modelica Standard Library's Friction example: a drive train with a clutch, a spring and a
brake.

``Modelica.Mechanics.Rotational.Examples.Friction``: a motor inertia J3 (1 kg m^2, starting at
100 rad/s) driven by ``200 sin(100 t)`` N m until ``t_stop = 0.5`` s (zero after), a clutch
(normal force 160 N, ``mu = 0.5``, ``peak = 1``, ``cgeo = 1``: friction torque up to 80 N m) to
J2 (0.05 kg m^2, 90 rad/s), a spring-damper (160 N m/rad, 1 N m s/rad) to J1 (1 kg m^2,
90 rad/s), which a brake (normal force 1600 N from ``t_stop`` on, 0 before: up to 800 N m)
holds against the housing; 0 - 3 s. The step at ``t_stop`` is the model's ``tstops``.

Here each shaft is a planar body pinned at the origin (J3 and J2 to the ground, J1 to J2 by a
revolute whose relative angle carries the spring-damper), the clutch a
:class:`nonsmooth.planar.clutch.Clutch` (torque on J2) and the brake a
:class:`nonsmooth.planar.clutch.Brake` (torque on J1). :func:`reference` integrates the same drive
train independently of the engine (its own equations per mode, scipy's DOP853 at rtol 1e-13 between
events located by ``solve_ivp``, the modes after each event by enumeration);
``tests/planar/test_clutch_brake.py`` compares the two.

Outputs: ``w1, w2, w3`` (rad/s), ``tau_clutch`` (N m, on J2), ``tau_brake`` (N m, on J1),
``tau_spring`` (N m, on J1), ``mode_clutch``, ``mode_brake`` (+1 slip+, -1 slip-, 0 stick).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.planar.clutch import Brake, Clutch
from nonsmooth.planar.forces import JointDamper, RotationalSpring, Torque
from nonsmooth.planar.joints import Revolute
from nonsmooth.planar.model import Body, PlanarModel, ground

NAME = "clutch_brake"
DESCRIPTION = "Modelica's Friction example: drive train with a clutch, a spring and a brake"

PARAMETERS = [
    Parameter("J1", 1.0, "kg m^2", "load inertia (braked)", 0.0, 1e6, exclusive=True),
    Parameter("J2", 0.05, "kg m^2", "intermediate inertia", 0.0, 1e6, exclusive=True),
    Parameter("J3", 1.0, "kg m^2", "motor inertia (driven)", 0.0, 1e6, exclusive=True),
    Parameter("mu", 0.5, "-", "sliding coefficient of the clutch and the brake", 0.0, 10.0),
    Parameter("peak", 1.0, "-", "static / sliding coefficient", 1.0, 10.0),
    Parameter("fn_clutch", 160.0, "N", "clutch normal force", 0.0, 1e7),
    Parameter("fn_brake", 1600.0, "N", "brake normal force from t_stop on", 0.0, 1e7),
    Parameter("c", 160.0, "N m/rad", "spring stiffness", 0.0, 1e9),
    Parameter("d", 1.0, "N m s/rad", "spring damping", 0.0, 1e9),
    Parameter("amplitude", 200.0, "N m", "motor torque amplitude", 0.0, 1e7),
    Parameter("omega", 100.0, "rad/s", "motor torque angular frequency", 0.0, 1e6),
    Parameter("t_stop", 0.5, "s", "the motor stops and the brake engages", 0.0, 1e3),
    Parameter("w1_0", 90.0, "rad/s", "initial speed of J1", -1e5, 1e5),
    Parameter("w2_0", 90.0, "rad/s", "initial speed of J2", -1e5, 1e5),
    Parameter("w3_0", 100.0, "rad/s", "initial speed of J3", -1e5, 1e5),
    Parameter("t_end", 3.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]


def build(**params) -> Model:
    """Build the drive train; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    t_stop, amp, om = p["t_stop"], p["amplitude"], p["omega"]
    mdl = PlanarModel(NAME)
    J3 = mdl.add(Body("J3", 1.0, p["J3"], angular_velocity=p["w3_0"]))
    J2 = mdl.add(Body("J2", 1.0, p["J2"], angular_velocity=p["w2_0"]))
    J1 = mdl.add(Body("J1", 1.0, p["J1"], angular_velocity=p["w1_0"]))
    mdl.add(Revolute("bearing3", ground, J3, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Revolute("bearing2", ground, J2, (0.0, 0.0), (0.0, 0.0)))
    shaft = mdl.add(Revolute("shaft", J2, J1, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(RotationalSpring("spring", shaft, p["c"]))
    mdl.add(JointDamper("spring_damping", shaft, p["d"]))
    mdl.add(Torque("motor", J3, lambda t, q, v: amp * math.sin(om * t) if t < t_stop else 0.0))
    mu_s = p["peak"] * p["mu"]
    mdl.add(Clutch("clutch", J3, J2, p["fn_clutch"], mu=p["mu"], mu_s=mu_s))
    fn_brake = p["fn_brake"]
    mdl.add(Brake("brake", J1, lambda t: fn_brake if t >= t_stop else 0.0, mu=p["mu"],
                  mu_s=mu_s))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    col = {k: names.index(f"J{k}.theta") for k in (1, 2, 3)}
    outputs = {f"w{k}": Output(lambda r, c=col[k]: r.v[:, c], "rad/s", f"speed of J{k}")
               for k in (1, 2, 3)}
    outputs["tau_clutch"] = Output(lambda r: r.F_T[:, 0], "N m", "clutch torque on J2")
    outputs["tau_brake"] = Output(lambda r: r.F_T[:, 1], "N m", "brake torque on J1")
    outputs["tau_spring"] = Output(
        lambda r: -p["c"] * (r.q[:, col[1]] - r.q[:, col[2]])
        - p["d"] * (r.v[:, col[1]] - r.v[:, col[2]]), "N m", "spring-damper torque on J1")
    outputs["mode_clutch"] = Output(lambda r: r.modes[:, 0], "-", "+1 slip+, -1 slip-, 0 stick")
    outputs["mode_brake"] = Output(lambda r: r.modes[:, 1], "-", "+1 slip+, -1 slip-, 0 stick")
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("w1", "w2", "w3"),
                 motion_outputs=("w1", "w2", "w3"), tstops=(t_stop,))


# ------------------------------------------------------------------------ independent solution
@dataclass(frozen=True)
class _Train:
    J: tuple[float, float, float]  # J1, J2, J3
    mu: float
    mu_s: float
    fn_clutch: float
    fn_brake: float
    c: float
    d: float
    amplitude: float
    omega: float
    t_stop: float

    def motor(self, t):
        return self.amplitude * math.sin(self.omega * t) if t < self.t_stop else 0.0

    def brake_force(self, t):
        return self.fn_brake if t >= self.t_stop else 0.0


def _rates(tr: _Train, t, x, modes):
    """``dx/dt`` of ``x = [theta1, theta2, theta3, w1, w2, w3]`` for the modes ``(clutch,
    brake)`` (+1 / -1 slip, 0 stick), and the two friction torques (on J2, on J1)."""
    th1, th2, _, w1, w2, w3 = x
    J1, J2, J3 = tr.J
    spring = -tr.c * (th1 - th2) - tr.d * (w1 - w2)  # on J1; -spring on J2
    motor = tr.motor(t)
    Nb = tr.brake_force(t)
    acc = np.zeros(3)
    if modes[0] == 0:  # J2 and J3 move together
        a23 = (motor - spring) / (J2 + J3)
        tau_c = J2 * a23 + spring  # on J2: J2 a = tau_c - spring
        acc[1] = acc[2] = a23
    else:
        tau_c = -modes[0] * tr.mu * tr.fn_clutch
        acc[1] = (tau_c - spring) / J2
        acc[2] = (motor - tau_c) / J3
    if modes[1] == 0:  # J1 held
        tau_b = -spring
        acc[0] = 0.0
    else:
        tau_b = -modes[1] * tr.mu * Nb
        acc[0] = (spring + tau_b) / J1
    return np.array([w1, w2, w3, *acc]), tau_c, tau_b


def _modes_after(tr: _Train, t, x, modes, ran_out=()):
    """Modes just after ``t``: elements at zero relative speed try stick, then slip+, slip-;
    those in ``ran_out`` (a stuck element whose torque just reached its bound) do not stick
    (with ``mu_s = mu`` both would be consistent at that instant, but the torque keeps
    growing)."""
    rel = (x[4] - x[5], x[3])  # clutch: w2 - w3; brake: w1
    scale = 1e-9 * max(1.0, float(np.abs(x[3:]).max()))
    zero = [k for k in range(2) if abs(rel[k]) <= scale]
    base = [modes[k] if k not in zero else 0 for k in range(2)]
    for k in range(2):
        if k not in zero:
            base[k] = 1 if rel[k] > 0 else -1
    bounds = (tr.mu_s * tr.fn_clutch, tr.mu_s * tr.brake_force(t))
    for choice in sorted(itertools.product((0, 1, -1), repeat=len(zero)),
                         key=lambda c: sum(1 for v in c if v != 0)):
        trial = list(base)
        for k, m in zip(zero, choice, strict=True):
            trial[k] = m
        if any(trial[k] == 0 for k in ran_out):
            continue
        dx, tau_c, tau_b = _rates(tr, t, x, trial)
        rel_acc = (dx[4] - dx[5], dx[3])
        tol = 1e-9 * max(1.0, float(np.abs(dx[3:]).max()))
        ok = all((abs((tau_c, tau_b)[k]) <= bounds[k] * (1 + 1e-12) + 1e-12) if trial[k] == 0
                 else trial[k] * rel_acc[k] >= -tol for k in zero)
        if ok:
            return tuple(trial)
    raise RuntimeError(f"no consistent modes at t = {t}")  # pragma: no cover


def reference(times, **params) -> np.ndarray:
    """The speeds ``w1, w2, w3`` (rad/s) at ``times`` (sorted, from 0), shape (len(times), 3),
    solved independently of the engine: scipy's DOP853 (rtol 1e-13, atol 1e-12) on this
    module's own equations of each mode, the stick/slip events by ``solve_ivp``."""
    from scipy.integrate import solve_ivp

    p = check_parameters(NAME, PARAMETERS, params)
    tr = _Train((p["J1"], p["J2"], p["J3"]), p["mu"], p["peak"] * p["mu"], p["fn_clutch"],
                p["fn_brake"], p["c"], p["d"], p["amplitude"], p["omega"], p["t_stop"])
    times = np.asarray(times, dtype=float)
    x = np.array([0.0, 0.0, 0.0, p["w1_0"], p["w2_0"], p["w3_0"]])
    t, modes = 0.0, _modes_after(tr, 0.0, x, (1, 1))
    out = np.empty((times.size, 3))
    t_final = float(times[-1])
    while t < t_final:
        bound = tr.t_stop if t < tr.t_stop else t_final
        bound = min(bound, t_final)

        def events(modes=modes):
            fns = []
            for k in range(2):
                if modes[k] == 0:  # stuck: the torque it carries reaches its bound
                    def g(tt, xx, k=k):
                        tau = _rates(tr, tt, xx, modes)[1 + k]
                        bnd = tr.mu_s * (tr.fn_clutch if k == 0 else tr.brake_force(tt))
                        return bnd - abs(tau)
                else:  # slipping: the relative speed reaches zero
                    def g(tt, xx, k=k):
                        return modes[k] * (xx[4] - xx[5] if k == 0 else xx[3])
                g.terminal, g.direction = True, -1
                fns.append(g)
            return fns

        sol = solve_ivp(lambda tt, xx, m=modes: _rates(tr, tt, xx, m)[0], (t, bound), x,
                        method="DOP853", rtol=1e-13, atol=1e-12, events=events(),
                        dense_output=True)
        t_next = float(sol.t[-1])
        inside = (times >= t) & (times <= t_next)
        if inside.any():
            out[inside] = sol.sol(times[inside])[3:].T
        ran_out = [k for k in range(2) if modes[k] == 0 and sol.t_events[k].size]
        x = sol.y[:, -1]
        t = t_next
        modes = _modes_after(tr, t + 1e-12, x, modes, ran_out)
    return out
