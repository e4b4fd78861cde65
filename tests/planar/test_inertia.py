"""Rotor inertia: the driving torque grows by J_eq d2theta/dt2; virtual rotor -> armature."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth import ModelError
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.inertia import RotorInertia
from nonsmooth.planar.joints import Driver, Revolute


def driven_arm(rotor=None):
    """A bar pinned at one end, its angle driven as 0.3 sin(2 t) about the -y axis."""
    mdl = PlanarModel("arm")
    bar = mdl.add(Body("bar", 2.0, 2.0 / 12, position=(0.0, -0.5), angle=-math.pi / 2))
    pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    mdl.add(Driver("drive", pin, motion=(lambda t: -math.pi / 2 + 0.3 * math.sin(2 * t),
                                         lambda t: 0.6 * math.cos(2 * t),
                                         lambda t: -1.2 * math.sin(2 * t))))
    mdl.add(Gravity())
    if rotor is not None:
        mdl.add(RotorInertia("motor", pin, **rotor))
    return mdl


@pytest.mark.parametrize("rotor, J_eq", [
    ({"rotor_inertia": 2e-4, "gear_ratio": 50.0}, 0.5),
    ({"rotor_inertia": 0.25}, 0.25),
    ({"joint_axis_inertia": 0.1}, 0.1),
    ({"rotor_inertia": 2e-4, "gear_ratio": 50.0, "mode": "virtual"}, 0.5),  # parent = ground
])
def test_driving_torque_grows_by_J_eq_times_acceleration(rotor, J_eq):
    kw = {"method": "DOP853", "dt": 1e-2, "rtol": 1e-11, "atol": 1e-12}
    bare = nonsmooth.simulate(driven_arm(), 2.0, **kw)
    geared = nonsmooth.simulate(driven_arm(rotor), 2.0, **kw)
    accel = -1.2 * np.sin(2 * bare.t)
    np.testing.assert_allclose(geared["drive"] - bare["drive"], J_eq * accel, atol=1e-8)
    assert geared.diagnostics["energy_balance_relative"] < 1e-7


def double_pendulum(mode, G, J_eq=0.05):
    mdl = PlanarModel("double pendulum")
    upper = mdl.add(Body("upper", 1.0, 1 / 12, position=(0.5, 0.0)))
    lower = mdl.add(Body("lower", 1.0, 1 / 12, position=(1.5, 0.0)))
    mdl.add(Revolute("shoulder", ground, upper, (0.0, 0.0), (-0.5, 0.0)))
    elbow = mdl.add(Revolute("elbow", upper, lower, (0.5, 0.0), (-0.5, 0.0)))
    mdl.add(RotorInertia("motor", elbow, rotor_inertia=J_eq / G ** 2, gear_ratio=G, mode=mode))
    mdl.add(Gravity())
    return mdl


def test_virtual_rotor_tends_to_armature_as_the_gear_ratio_grows():
    kw = {"method": "DOP853", "dt": 1e-2, "rtol": 1e-11, "atol": 1e-12}
    ref = nonsmooth.simulate(double_pendulum("armature", 10.0), 1.0, **kw)
    errors = []
    for G in (2.0, 10.0, 100.0, 1000.0):
        r = nonsmooth.simulate(double_pendulum("virtual", G), 1.0, **kw)
        errors.append(np.max(np.abs(r.q - ref.q)))
    assert all(b < a for a, b in zip(errors, errors[1:], strict=False))
    assert errors[0] > 1e-2 and errors[-1] < 1e-3  # finite-G terms matter at small G
    assert 5 < errors[2] / errors[3] < 20  # and vanish like J_eq / G


def test_rotor_inertia_errors_are_named():
    pin = Revolute("pin", ground, Body("b", 1.0, 1.0))
    with pytest.raises(ModelError, match=r"give rotor_inertia .* or joint_axis_inertia"):
        RotorInertia("m", pin)
    with pytest.raises(ModelError, match=r"mode='virtual' needs gear_ratio"):
        RotorInertia("m", pin, rotor_inertia=0.1, mode="virtual")
    with pytest.raises(ModelError, match=r"gear_ratio = -2.0 is invalid"):
        RotorInertia("m", pin, rotor_inertia=0.1, gear_ratio=-2)


def slider_on_a_swinging_guide(rotor=None, driven=False):
    """A block on a rotating bar (the guide swings about a pin): the guide's motion makes the
    slot axis, and so the rotor's mass-matrix term, depend on the configuration."""
    from nonsmooth.planar.joints import Translational

    mdl = PlanarModel("swing slider")
    bar = mdl.add(Body("bar", 1.0, 1 / 12, position=(0.5, 0.0), angular_velocity=0.8))
    block = mdl.add(Body("block", 0.5, 1e-3, position=(0.7, 0.0), velocity=(0.3, 0.56)))
    mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    slot = mdl.add(Translational("slot", bar, block, (0.0, 0.0), (1.0, 0.0)))
    if driven:
        mdl.add(Driver("push", slot, motion=(lambda t: 0.2 + 0.1 * math.sin(3 * t),
                                             lambda t: 0.3 * math.cos(3 * t),
                                             lambda t: -0.9 * math.sin(3 * t))))
    if rotor is not None:
        mdl.add(RotorInertia("screw", slot, **rotor))
    return mdl


@pytest.mark.parametrize("rotor", [{"rotor_inertia": 1e-4, "gear_ratio": 100.0},
                                   {"rotor_inertia": 1e-4, "gear_ratio": 100.0,
                                    "mode": "virtual"}])
def test_translational_rotor_conserves_energy_on_a_moving_guide(rotor):
    """No gravity, no friction: T is conserved only if the velocity terms are right."""
    r = nonsmooth.simulate(slider_on_a_swinging_guide(rotor), 2.0, method="DOP853",
                           rtol=1e-11, atol=1e-12)
    E = r.T + r.V
    assert np.max(np.abs(E - E[0])) < 1e-8 * E[0]
    assert abs(r.T[0] - nonsmooth.simulate(slider_on_a_swinging_guide(), 0.1).T[0]) > 1e-3


def test_translational_drive_force_grows_by_J_eq_times_acceleration():
    """A block on a fixed slot, its displacement driven: the drive force grows by J_eq s''."""
    from nonsmooth.planar.joints import Translational

    def model(rotor=None):
        mdl = PlanarModel("screw drive")
        block = mdl.add(Body("block", 0.5, 1e-3, position=(0.2, 0.0), velocity=(0.3, 0.0)))
        slot = mdl.add(Translational("slot", ground, block, (0.0, 0.0), (1.0, 0.0)))
        mdl.add(Driver("push", slot, motion=(lambda t: 0.2 + 0.1 * math.sin(3 * t),
                                             lambda t: 0.3 * math.cos(3 * t),
                                             lambda t: -0.9 * math.sin(3 * t))))
        mdl.add(Gravity())
        if rotor is not None:
            mdl.add(RotorInertia("screw", slot, **rotor))
        return mdl

    kw = {"method": "DOP853", "dt": 1e-2, "rtol": 1e-11, "atol": 1e-12}
    bare = nonsmooth.simulate(model(), 1.0, **kw)
    for rotor, J_eq in (({"joint_axis_inertia": 0.4}, 0.4),
                        ({"rotor_inertia": 1e-5, "gear_ratio": 200.0}, 0.4)):
        geared = nonsmooth.simulate(model(rotor), 1.0, **kw)
        np.testing.assert_allclose(geared["push"] - bare["push"],
                                   J_eq * -0.9 * np.sin(3 * bare.t), atol=1e-8)
