"""The Modelica Standard Library's CoupledClutches: four inertias in a line, three clutches.

``Modelica.Mechanics.Rotational.Examples.CoupledClutches`` (the classic test of
variable-structure friction): inertias J1..J4 (1 kg m^2 each) joined in a line by clutches 1-3
(``mu = 0.5``, ``peak = 1.1``: static coefficient ``mu_s = 0.55``, ``cgeo = 1``: the friction
torque is ``mu fn``, ``fn_max = 20`` N). J1 is driven by ``10 sin(2 pi 5 t)`` N m and starts at
10 rad/s; the others start at rest. Clutch 1's normal force is ``20 sin(2 pi 0.2 t + 1.57)`` N
(open where it is negative, from t = 1.25 s), clutch 2's steps to 20 N at ``T2 = 0.4`` s,
clutch 3's at ``T3 = 0.9`` s (the steps are the model's ``tstops``); 0 - 1.5 s.

Here each inertia is a planar body pinned to the ground at the origin (its angle is the
shaft's), each clutch a :class:`nonsmooth.planar.clutch.Clutch` between neighbours (torque on the
right-hand body). :func:`reference` solves the same drivetrain independently of the engine:
rigid groups of stuck inertias, each phase's velocities in closed form (the torques' integrals),
event times by Brent's method on those closed forms, and the modes after each event by
enumerating the stick/slip combinations (``tests/planar/test_coupled_clutches.py`` compares the
two).

Outputs: ``w1 .. w4`` (rad/s), ``tau1 .. tau3`` (N m, clutch torque on the right-hand inertia),
``fn1 .. fn3`` (N, normal forces, 0 when open), ``mode1 .. mode3`` (+1 slip+, -1 slip-, 0 stick:
the sign of ``w_right - w_left``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.planar.clutch import Clutch
from nonsmooth.planar.forces import Torque
from nonsmooth.planar.joints import Revolute
from nonsmooth.planar.model import Body, PlanarModel, ground

NAME = "coupled_clutches"
DESCRIPTION = "Modelica's CoupledClutches: 4 inertias, 3 clutches engaging in turn"

PARAMETERS = [
    Parameter("J1", 1.0, "kg m^2", "inertia 1 (driven)", 0.0, 1e6, exclusive=True),
    Parameter("J2", 1.0, "kg m^2", "inertia 2", 0.0, 1e6, exclusive=True),
    Parameter("J3", 1.0, "kg m^2", "inertia 3", 0.0, 1e6, exclusive=True),
    Parameter("J4", 1.0, "kg m^2", "inertia 4", 0.0, 1e6, exclusive=True),
    Parameter("mu", 0.5, "-", "sliding friction coefficient of the clutches", 0.0, 10.0),
    Parameter("peak", 1.1, "-", "static / sliding coefficient (mu_s = peak mu)", 1.0, 10.0),
    Parameter("fn_max", 20.0, "N", "largest normal force", 0.0, 1e6),
    Parameter("freq", 0.2, "Hz", "frequency of clutch 1's normal force", 0.0, 1e3),
    Parameter("T2", 0.4, "s", "clutch 2 engages", 0.0, 1e3),
    Parameter("T3", 0.9, "s", "clutch 3 engages", 0.0, 1e3),
    Parameter("start_speed", 10.0, "rad/s", "initial speed of J1", -1e4, 1e4),
    Parameter("drive", 10.0, "N m", "amplitude of the torque on J1", 0.0, 1e6),
    Parameter("drive_freq", 5.0, "Hz", "frequency of the torque on J1", 0.0, 1e3),
    Parameter("t_end", 1.5, "s", "default end time", 0.0, 1e3, exclusive=True),
]

PHASE = 1.57  # rad: Modelica's sine phase of clutch 1's normal force (not pi/2)


@dataclass(frozen=True)
class Drivetrain:
    """The drivetrain's numbers and its given functions: the drive torque on J1 and the three
    normal forces, each with its antiderivative (the closed forms of :func:`reference`)."""

    J: tuple[float, float, float, float]
    mu: float
    mu_s: float
    fn_max: float
    freq: float
    T2: float
    T3: float
    drive: float
    drive_freq: float

    def torque(self, t: float) -> float:
        """The drive torque on J1 (N m)."""
        return self.drive * math.sin(2 * math.pi * self.drive_freq * t)

    def torque_integral(self, t: float) -> float:
        w = 2 * math.pi * self.drive_freq
        return -self.drive * math.cos(w * t) / w if w else 0.0

    def normal(self, k: int, t: float) -> float:
        """Normal force of clutch ``k`` (0, 1, 2) as given (N; negative: open)."""
        if k == 0:
            return self.fn_max * math.sin(2 * math.pi * self.freq * t + PHASE)
        return self.fn_max if t >= (self.T2 if k == 1 else self.T3) else 0.0

    def normal_integral(self, k: int, t: float) -> float:
        """An antiderivative of ``normal(k, .)`` on a piece where it is smooth."""
        if k == 0:
            w = 2 * math.pi * self.freq
            return -self.fn_max * math.cos(w * t + PHASE) / w if w else self.fn_max * t
        return self.normal(k, t) * t

    def tstops(self) -> tuple[float, ...]:
        return (self.T2, self.T3)


def _drivetrain(p: dict) -> Drivetrain:
    return Drivetrain((p["J1"], p["J2"], p["J3"], p["J4"]), p["mu"], p["peak"] * p["mu"],
                      p["fn_max"], p["freq"], p["T2"], p["T3"], p["drive"], p["drive_freq"])


def build(**params) -> Model:
    """Build the drivetrain; keyword arguments override the defaults in PARAMETERS."""
    p = check_parameters(NAME, PARAMETERS, params)
    d = _drivetrain(p)
    mdl = PlanarModel(NAME)
    J = []
    for k in range(4):
        J.append(mdl.add(Body(f"J{k + 1}", 1.0, d.J[k],
                              angular_velocity=p["start_speed"] if k == 0 else 0.0)))
        mdl.add(Revolute(f"bearing{k + 1}", ground, J[k], (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Torque("drive", J[0], lambda t, q, v: d.torque(t)))
    for k in range(3):
        mdl.add(Clutch(f"clutch{k + 1}", J[k], J[k + 1],
                       (lambda t, k=k: d.normal(k, t)), mu=d.mu, mu_s=d.mu_s))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    outputs = {}
    for k in range(4):
        col = names.index(f"J{k + 1}.theta")
        outputs[f"w{k + 1}"] = Output(lambda r, c=col: r.v[:, c], "rad/s",
                                      f"angular velocity of J{k + 1}")
    for k in range(3):
        outputs[f"tau{k + 1}"] = Output(lambda r, k=k: r.F_T[:, k], "N m",
                                        f"clutch {k + 1}'s torque on J{k + 2}")
        outputs[f"fn{k + 1}"] = Output(lambda r, k=k: r.lambda_N[:, k], "N",
                                       f"clutch {k + 1}'s normal force (0: open)")
        outputs[f"mode{k + 1}"] = Output(lambda r, k=k: r.modes[:, k], "-",
                                         f"clutch {k + 1}: +1 slip+, -1 slip-, 0 stick")
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, tstops=d.tstops(),
                 plot_outputs=("w1", "w2", "w3", "w4"), motion_outputs=("w1", "w2", "w3", "w4"))


# ------------------------------------------------------------------------ independent solution
@dataclass
class Phase:
    """One smooth phase of :func:`reference`: from ``t0`` to ``t1`` with the clutches' modes
    (+1, -1 slip, 0 stick) and the inertias' speeds ``w0`` at ``t0``."""

    t0: float
    t1: float
    modes: tuple[int, int, int]
    w0: np.ndarray


class _Closed:
    """The closed-form motion of one phase: groups of stuck inertias, each with the integral of
    the torques on it."""

    def __init__(self, d: Drivetrain, t0: float, t1: float, w0, modes):
        self.d, self.t0, self.modes = d, t0, modes
        mid = 0.5 * (t0 + t1)
        self.closed = [d.normal(k, mid) > 0 for k in range(3)]  # N_k > 0 on the whole phase
        self.groups = _groups(modes)
        self.w0 = np.array(w0, dtype=float)

    def _torque_integral(self, i: int, t: float) -> float:
        """The integral from t0 to t of the torque on inertia ``i`` from outside its group
        (the drive, slipping clutches)."""
        d, modes = self.d, self.modes
        total = d.torque_integral(t) - d.torque_integral(self.t0) if i == 0 else 0.0
        for k in (i - 1, i):  # clutch k joins inertia k (left) and k + 1 (right)
            if 0 <= k < 3 and modes[k] != 0 and self.closed[k]:
                friction = d.mu * (d.normal_integral(k, t) - d.normal_integral(k, self.t0))
                total += -modes[k] * friction if i == k + 1 else modes[k] * friction
        return total

    def speeds(self, t: float) -> np.ndarray:
        w = np.empty(4)
        for group in self.groups:
            J = sum(self.d.J[i] for i in group)
            impulse = sum(self._torque_integral(i, t) for i in group)
            for i in group:
                w[i] = self.w0[group[0]] + impulse / J
        return w


def _groups(modes) -> list[list[int]]:
    groups, current = [], [0]
    for k in range(3):
        if modes[k] == 0:
            current.append(k + 1)
        else:
            groups.append(current)
            current = [k + 1]
    groups.append(current)
    return groups


def _accelerations(d: Drivetrain, t: float, modes) -> tuple[np.ndarray, np.ndarray]:
    """The inertias' accelerations and the sticking clutches' torques (on the right-hand
    inertia) at ``t`` for given modes (``N`` taken as ``max(N, 0)``)."""
    tau = np.zeros(4)  # external and slipping-clutch torques on each inertia
    tau[0] = d.torque(t)
    for k in range(3):
        if modes[k] != 0:
            friction = d.mu * max(d.normal(k, t), 0.0)
            tau[k + 1] -= modes[k] * friction
            tau[k] += modes[k] * friction
    acc = np.empty(4)
    stick_torque = np.zeros(3)
    for group in _groups(modes):
        J = sum(d.J[i] for i in group)
        alpha = sum(tau[i] for i in group) / J
        acc[group] = alpha
        for k in group[:-1]:  # clutch k inside the group: what the right part needs
            right = [i for i in group if i > k]
            stick_torque[k] = sum(d.J[i] for i in right) * alpha - sum(tau[i] for i in right)
    return acc, stick_torque


def _modes_after(d: Drivetrain, t: float, w: np.ndarray, modes, tol: float) -> tuple:
    """The modes that hold just after ``t``: clutches with (nearly) equal speeds on both sides
    try stick, then slip+ / slip-; the first consistent combination with the most sticking
    clutches (enumeration: at most 3^3 combinations)."""
    zero = [k for k in range(3) if abs(w[k + 1] - w[k]) <= tol]
    fixed = {k: (1 if w[k + 1] > w[k] else -1) for k in range(3) if k not in zero}
    options = sorted(itertools.product((0, 1, -1), repeat=len(zero)),
                     key=lambda c: sum(1 for x in c if x != 0))
    for choice in options:
        trial = [fixed.get(k, 0) for k in range(3)]
        for k, m in zip(zero, choice, strict=True):
            trial[k] = m
        acc, stick = _accelerations(d, t, trial)
        ok = True
        for k, m in zip(zero, choice, strict=True):
            bound = d.mu_s * max(d.normal(k, t), 0.0)
            rel = acc[k + 1] - acc[k]
            if m == 0 and abs(stick[k]) > bound * (1 + 1e-12) + 1e-12:
                ok = False
            elif m != 0 and m * rel < -1e-12:
                ok = False
        if ok:
            return tuple(trial)
    raise RuntimeError(f"no consistent clutch modes at t = {t}")  # pragma: no cover


def _first_root(g, t0: float, t1: float, samples: int) -> float | None:
    """The first sign change of ``g`` on (t0, t1], bracketed on a grid, refined by Brent."""
    from scipy.optimize import brentq

    ts = np.linspace(t0, t1, samples + 1)
    g_prev = g(ts[0])
    for a, b in zip(ts[:-1], ts[1:], strict=True):
        g_b = g(b)
        if g_prev > 0 >= g_b or g_prev < 0 <= g_b:
            if g_b == 0:
                return float(b)
            return float(brentq(g, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps))
        g_prev = g_b
    return None


def reference(t_end: float | None = None, samples: int = 400, **params) -> list[Phase]:
    """The drivetrain's motion solved independently of the engine: a list of :class:`Phase`
    (closed-form speeds within each, see :func:`speeds`). Events: a slipping clutch's speeds
    meet (its relative speed's root), a sticking clutch's torque reaches ``mu_s N``, a normal
    force crosses zero, the steps at ``T2`` and ``T3``; roots bracketed on ``samples`` points
    per phase and refined by Brent's method to 1e-15 s."""
    p = check_parameters(NAME, PARAMETERS, params)
    d = _drivetrain(p)
    t_end = p["t_end"] if t_end is None else t_end
    w = np.array([p["start_speed"], 0.0, 0.0, 0.0])
    t = 0.0
    modes = _modes_after(d, t, w, (0, 0, 0), 1e-12)
    phases: list[Phase] = []
    while t < t_end - 1e-15:
        t1 = min([s for s in (*d.tstops(), t_end) if s > t + 1e-15])
        if d.freq > 0:  # clutch 1's normal force crosses zero at 2 pi f t + 1.57 = j pi
            j = math.floor((2 * math.pi * d.freq * t + PHASE) / math.pi) + 1
            crossing = (j * math.pi - PHASE) / (2 * math.pi * d.freq)
            t1 = min(t1, crossing) if crossing > t + 1e-15 else t1
        motion = _Closed(d, t, t1, w, modes)

        def event(tt, k, motion=motion, modes=modes):
            """Clutch k's event function: > 0 while its mode holds."""
            if modes[k] == 0:
                _, stick = _accelerations(d, tt, modes)
                return d.mu_s * max(d.normal(k, tt), 0.0) - abs(stick[k])
            ws = motion.speeds(tt)
            return modes[k] * (ws[k + 1] - ws[k])

        roots = [_first_root(lambda tt, k=k: event(tt, k), t, t1, samples)
                 for k in range(3) if event(t, k) > 0]  # a zero start (an open clutch
        roots = [r for r in roots if r is not None]     # stuck without load) is not watched
        t_event = min(roots) if roots else None
        t_next = t1 if t_event is None else t_event
        phases.append(Phase(t, t_next, modes, w.copy()))
        w = motion.speeds(t_next)
        t = t_next
        modes = _modes_after(d, t + 1e-13, w, modes, 1e-9 * max(1.0, float(np.abs(w).max())))
    return phases


def speeds(phases: list[Phase], times, **params) -> np.ndarray:
    """The reference speeds ``w1 .. w4`` at ``times``, shape (len(times), 4) (rad/s)."""
    d = _drivetrain(check_parameters(NAME, PARAMETERS, params))
    out = np.empty((len(times), 4))
    for r, t in enumerate(times):
        ph = next((ph for ph in phases if ph.t0 <= t <= ph.t1), phases[-1])
        out[r] = _Closed(d, ph.t0, ph.t1, ph.w0, ph.modes).speeds(t)
    return out
