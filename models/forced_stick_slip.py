"""The belt block of ``stick_slip_oscillator`` forced harmonically: period-1, period-n and
chaotic stick-slip.

The block (mass ``m``) rides a belt moving at ``v_belt`` through a Coulomb contact (``mu_s``,
``mu_d``), tied by a spring ``k`` (rest length ``L`` = 10 m) and a damper ``c`` to a wall end
that a crank moves harmonically: the spring's far end turns on a circle of radius ``e = F0/k``
at the constant speed ``omega`` (a driving constraint on the crank's pin, so every evaluation
stays compiled: no Python callback). Along the belt the block feels

    m x'' + c x' + k x = F0 cos(omega t) + F_f,      F_f in -mu N sgn(v - v_belt),

to first order in ``e / L`` (the spring's direction turns by at most ``e / L``, 0.6 % at the
default ``F0 = 6`` N, which also modulates the normal load by that fraction). This is the
harmonically forced belt oscillator of Popp & Stelter ("Stick-slip vibrations and chaos",
Phil. Trans. R. Soc. A 332, 1990) and Feeny & Moon ("Chaos in a forced dry-friction
oscillator", J. Sound Vib. 170, 1994) with the constant-coefficient law ``mu_s > mu_d``: the
forcing frequency ``omega`` moves the motion between period-1 stick-slip, period-n cycles
(several sticks per forcing period, or one every n periods) and chaotic stick-slip (at the
default parameters, ``omega`` from 1.5 to 2.6 rad/s: period 1 at 1.6 and 2.1, period 2 at 2.3,
chaos near 1.9 to 2.0; ``notebooks/event_driven_studies.ipynb`` maps them).

``period = 2 pi / omega`` (s) is the model's forcing period (``Model.period``: the default
stroboscopic Poincare section, :mod:`nonsmooth.sections`); the default run is ``periods`` of
them.

Outputs: ``x`` (m, along the belt, from the spring's mean unstretched position), ``v`` (m/s),
``v_r`` (m/s, ``v - v_belt``), ``F_f`` (N, friction on the block along x), ``forcing`` (N, the
spring's excitation ``F0 cos(omega t)``, i.e. ``k e cos(omega t)``), ``mode`` (+1 slip+, -1
slip-, 0 stick).
"""

from __future__ import annotations

import math

from nonsmooth.model import (
    FRICTION_PARAMETERS,
    Model,
    Output,
    Parameter,
    check_friction_coefficients,
    check_parameters,
    friction_coefficient,
    friction_params,
)
from nonsmooth.planar.forces import Damper, Gravity, Spring
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.planar.model import Body, PlanarModel, PointMass, ground

NAME = "forced_stick_slip"
DESCRIPTION = "Belt block forced harmonically through its spring (period-n and chaotic stick-slip)"

#: Ranges (SI) as ``stick_slip_oscillator``'s; the forcing amplitude up to 1e6 N with
#: ``F0 / k <= 1`` m (the crank radius), its frequency (0, 1e4] rad/s, 1 to 10^5 periods.
PARAMETERS = [
    Parameter("m", 1.0, "kg", "block mass", 0.0, 1e9, exclusive=True),
    Parameter("k", 100.0, "N/m", "spring stiffness", 0.0, 1e10, exclusive=True),
    Parameter("c", 0.05, "N s/m", "damper to the wall", 0.0, 1e8),
    friction_coefficient("mu_s", 0.4, "static friction coefficient (>= mu_d)", static=True),
    friction_coefficient("mu_d", 0.3, "dynamic friction coefficient"),
    Parameter("v_belt", 0.1, "m/s", "belt speed along x", -1e3, 1e3),
    Parameter("F0", 6.0, "N", "forcing amplitude (k times the crank radius)", 0.0, 1e6),
    Parameter("omega", 2.0, "rad/s", "forcing frequency", 0.0, 1e4, exclusive=True),
    Parameter("periods", 100.0, "-", "forcing periods of the default run (t_end = periods 2 "
              "pi / omega)", 1.0, 1e5),
    Parameter("x0", 0.0, "m", "initial block position", -1e3, 1e3),
    Parameter("v0", 0.1, "m/s", "initial block velocity (absolute)", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3, exclusive=True),
    *FRICTION_PARAMETERS,
]

SPRING_LENGTH = 10.0  # m: the crank's pin sits this far behind the block's mean rest position


def build(**params) -> Model:
    """Build the forced oscillator; keyword arguments override the defaults in PARAMETERS."""
    from nonsmooth.errors import ModelError

    p = check_parameters(NAME, PARAMETERS, params)
    check_friction_coefficients(NAME, p)
    e = p["F0"] / p["k"]  # m: the crank radius
    if e > 1.0:
        raise ModelError(f"model {NAME}: F0 / k = {e:g} m is the crank radius and must be "
                         "<= 1 m (a tenth of the spring's length); lower F0 or raise k")
    omega = p["omega"]
    mdl = PlanarModel(NAME)
    belt = mdl.add(Body("belt", 1.0, 1.0, velocity=(p["v_belt"], 0.0)))
    block = mdl.add(PointMass("block", p["m"], position=(p["x0"], 0.0),
                              velocity=(p["v0"], 0.0)))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("belt_drive", track, speed=p["v_belt"]))
    mdl.add(Translational("contact", belt, block, (0.0, 0.0), (1.0, 0.0), mu=p["mu_d"],
                          mu_s=p["mu_s"], normal="left", law=p["friction"],
                          friction=friction_params(p)))
    wall = (-SPRING_LENGTH, 0.0)
    crank = mdl.add(Body("crank", 1.0, 1.0, position=wall, angular_velocity=omega))
    pin = mdl.add(Revolute("pin", ground, crank, wall))
    mdl.add(Driver("crank_drive", pin, speed=omega))
    # the spring's far end on the crank at radius e: x_end = -L + e cos(omega t), so the spring
    # (rest length L) pushes the block with k (e cos(omega t) - x) to first order in e / L
    mdl.add(Spring("spring", crank, (e, 0.0), block, (0.0, 0.0), p["k"], SPRING_LENGTH))
    if p["c"] > 0:
        mdl.add(Damper("damper", ground, wall, block, (0.0, 0.0), p["c"]))
    mdl.add(Gravity(g=p["g"], bodies=[block]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    ix = system.coordinate_names.index("block.x")
    F0 = p["F0"]
    outputs = {
        "x": Output(lambda r: r.q[:, ix], "m", "block position"),
        "v": Output(lambda r: r.v[:, ix], "m/s", "block velocity"),
        "v_r": Output(lambda r: r.v_T[:, 0], "m/s", "block velocity relative to the belt"),
        "F_f": Output(lambda r: r.F_T[:, 0], "N", "friction force on the block along x"),
        "forcing": Output(lambda r: F0 * _cos(omega * r.t), "N", "the excitation F0 cos(omega t)"),
        "mode": Output(lambda r: r.modes[:, 0], "-", "+1 slip+, -1 slip-, 0 stick"),
    }
    period = 2.0 * math.pi / omega
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p,
                 t_end=p["periods"] * period, dt=period / 50.0, description=DESCRIPTION,
                 plot_outputs=("x", "v", "F_f", "mode"), motion_outputs=("x", "v"),
                 period=period)


def _cos(values):
    import numpy as np

    return np.cos(values)
