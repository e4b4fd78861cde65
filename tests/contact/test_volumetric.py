"""The volumetric normal law (``nonsmooth.contact.Volumetric``, ``volumetric_load``) on the
volume of interference: against Drake's hydroelastic compliant sphere (equal to leading order in
the depth, the difference of order d^3), a box resting flat (``k_v A d``), the damping and its
clamp, the rolling resistance of the tangential inertia, and its parameters' checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nonsmooth.contact import (
    Box,
    Sphere,
    Volumetric,
    interference,
    volumetric_load,
)
from nonsmooth.errors import ModelError

E, R = 2e6, 0.05  # Pa, m (a rubber ball)
UP = np.array([0.0, 0.0, 1.0])


def pressed_sphere(d: float):
    """A sphere of radius R whose centre is R - d above the plane z = 0 (its frame's origin at
    its centre): the plane at z = -(R - d) in the sphere's frame."""
    return interference(Sphere(R), (0.0, 0.0, -(R - d)), UP)


def test_the_sphere_s_force_is_drake_s_hydroelastic_force_to_leading_order():
    """``k_v = E / R``: ``F = pi E d^2 (3R - d) / (3R)`` against the hydroelastic compliant
    sphere's ``pi E d^2 (3R - 2d) / (3R)`` (pressure ``E (1 - r/R)``): their ratio tends to 1
    as d -> 0 and their difference is ``pi E d^3 / (3R)``."""
    law = Volumetric(E=E, depth=R)
    for d in (1e-5, 1e-4, 1e-3, 1e-2):
        F = volumetric_load(law, pressed_sphere(d), UP, 0.0, np.zeros(3)).F_n
        hydroelastic = math.pi * E * d * d * (3 * R - 2 * d) / (3 * R)
        assert F == pytest.approx(math.pi * E * d * d * (3 * R - d) / (3 * R), rel=1e-12)
        assert F - hydroelastic == pytest.approx(math.pi * E * d ** 3 / (3 * R), rel=1e-9)
        assert F / hydroelastic - 1.0 == pytest.approx(d / (3 * R - 2 * d), rel=1e-8)


def test_a_box_resting_flat_carries_k_v_a_d_at_the_centroid_of_its_slab():
    law = Volumetric(k_v=4e9)
    half = (0.1, 0.05, 0.02)
    d = 1e-4
    vol = interference(Box(half), (0.0, 0.0, -(half[2] - d)), UP)
    load = volumetric_load(law, vol, UP, 0.0, np.zeros(3))
    area = 4 * half[0] * half[1]
    assert load.F_n == pytest.approx(4e9 * area * d, rel=1e-12)
    assert np.allclose(load.force, [0.0, 0.0, load.F_n])
    assert np.allclose(load.centroid, [0.0, 0.0, -half[2] + d / 2], atol=1e-15)


def test_the_damping_scales_with_the_approach_speed_and_never_pulls():
    law = Volumetric(k_v=1e9, damping=0.5)
    vol = pressed_sphere(1e-3)
    F0 = volumetric_load(Volumetric(k_v=1e9), vol, UP, 0.0, np.zeros(3)).F_n
    assert volumetric_load(law, vol, UP, 0.4, np.zeros(3)).F_n == pytest.approx(1.2 * F0)
    assert volumetric_load(law, vol, UP, -1.0, np.zeros(3)).F_n == pytest.approx(0.5 * F0)
    assert volumetric_load(law, vol, UP, -3.0, np.zeros(3)).F_n == 0.0  # leaving fast
    assert volumetric_load(law, pressed_sphere(-1e-3), UP, 1.0, np.zeros(3)).F_n == 0.0


def test_rolling_resistance_opposes_the_tangential_turn_with_the_tangential_inertia():
    """``T = -k_v a J_t omega``: a turn about a tangent axis is resisted by the volume's second
    moment about that axis through its centroid; a spin about the normal is not (it is the
    friction's)."""
    law = Volumetric(k_v=1e9, damping=0.2)
    vol = interference(Box((0.1, 0.05, 0.02)), (0.0, 0.0, -0.0199), UP)
    spin = volumetric_load(law, vol, UP, 0.0, np.array([0.0, 0.0, 3.0]))
    assert np.allclose(spin.torque, 0.0)
    roll = volumetric_load(law, vol, UP, 0.0, np.array([2.0, 0.0, 0.0]))
    I_xx = vol.inertia[0, 0]  # the slab's: V (b^2 + d^2) / 12 with b = 0.1 m, d = 1e-4 m
    assert I_xx == pytest.approx(vol.V * (0.1 ** 2 + 1e-4 ** 2) / 12.0, rel=1e-10)
    assert np.allclose(roll.torque, [-1e9 * 0.2 * I_xx * 2.0, 0.0, 0.0], rtol=1e-12)
    assert roll.torque @ np.array([2.0, 0.0, 0.0]) < 0.0  # it dissipates


@pytest.mark.parametrize("kwargs, words", [
    ({}, "give k_v"),
    ({"k_v": 1e9, "E": 1e6, "depth": 0.01}, "not both"),
    ({"E": 1e6}, "give k_v"),
    ({"k_v": -1.0}, "k_v = -1.0 is invalid"),
    ({"k_v": 1e9, "damping": -0.1}, "damping = -0.1 is invalid"),
    ({"E": 1e6, "depth": 0.0}, "depth = 0.0 is invalid"),
])
def test_bad_parameters_are_named(kwargs, words):
    with pytest.raises(ModelError, match="Volumetric") as info:
        Volumetric(**kwargs)
    assert words in str(info.value)
