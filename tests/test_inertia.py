"""Rotor inertia: the driving torque grows by J_eq d2theta/dt2; virtual rotor -> armature."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth import ModelError
from nonsmooth.forces import Gravity
from nonsmooth.inertia import RotorInertia
from nonsmooth.joints import Driver, Revolute
from nonsmooth.planar import Body, PlanarModel, ground


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
