"""Clutches, brakes and clamps (nonsmooth/clutch.py): friction elements with a given normal
force, against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.model import Model
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.clutch import Brake, Clamp, Clutch
from nonsmooth.planar.forces import Force
from nonsmooth.planar.joints import Revolute, Translational

ACCURATE = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}


def _shafts(normal_force, J_a=1.0, J_b=2.0, w_a=10.0, w_b=0.0, mu=0.5, mu_s=0.55, radius=1.0):
    """Two coaxial shafts (each pinned to the ground at the origin) and a clutch."""
    mdl = PlanarModel("shafts")
    a = mdl.add(Body("a", 1.0, J_a, angular_velocity=w_a))
    b = mdl.add(Body("b", 1.0, J_b, angular_velocity=w_b))
    mdl.add(Revolute("bearing_a", ground, a, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Revolute("bearing_b", ground, b, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Clutch("clutch", a, b, normal_force, mu=mu, mu_s=mu_s, radius=radius))
    system = mdl.compile()
    return Model(system, *mdl.initial_state(), name="shafts")


def _speed(result, body):
    return result.v[:, result.coordinate_names.index(f"{body}.theta")]


@pytest.mark.parametrize("N, radius", [(4.0, 1.0), (7.5, 0.3)])
def test_clutch_locks_two_shafts_at_the_closed_form_time(N, radius):
    """Slipping: tau = mu N r on the slower shaft; they lock when the speeds meet, at
    t* = (w_a - w_b) / (mu N r (1/J_a + 1/J_b)), and turn together after (no torque)."""
    J_a, J_b, w_a, mu = 1.0, 2.0, 10.0, 0.5
    model = _shafts(N, J_a, J_b, w_a, radius=radius)
    tau = mu * N * radius
    t_lock = w_a / (tau * (1 / J_a + 1 / J_b))
    r = nonsmooth.simulate(model, t_lock + 1.0, dt=1e-2, **ACCURATE)
    locks = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(locks) == 1 and (locks[0].before, locks[0].after) == ("slip-", "stick")
    assert locks[0].t == pytest.approx(t_lock, abs=1e-10)
    before = r.t < t_lock
    np.testing.assert_allclose(_speed(r, "a")[before], w_a - tau / J_a * r.t[before], atol=1e-9)
    np.testing.assert_allclose(_speed(r, "b")[before], tau / J_b * r.t[before], atol=1e-9)
    # the friction force at the radius is tau / r on b, opposing the relative slip
    np.testing.assert_allclose(r.F_T[before, 0] * radius, tau, rtol=1e-12)
    np.testing.assert_allclose(r.lambda_N[:, 0], N, rtol=1e-12)  # the given normal force
    after = r.t > t_lock
    w_common = w_a * J_a / (J_a + J_b)  # angular momentum conserved
    np.testing.assert_allclose(_speed(r, "a")[after], w_common, atol=1e-9)
    np.testing.assert_allclose(_speed(r, "b")[after], w_common, atol=1e-9)
    np.testing.assert_allclose(r.F_T[after, 0], 0.0, atol=1e-8 * tau)  # stick: no torque


def test_brake_stops_a_shaft_and_holds_it():
    J, w0, N, mu, radius = 0.5, 6.0, 10.0, 0.3, 0.2
    mdl = PlanarModel("brake")
    disc = mdl.add(Body("disc", 1.0, J, angular_velocity=w0))
    mdl.add(Revolute("bearing", ground, disc, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Brake("brake", disc, N, mu=mu, mu_s=0.4, radius=radius))
    model = Model(mdl.compile(), *mdl.initial_state(), name="brake")
    t_stop = J * w0 / (mu * N * radius)
    r = nonsmooth.simulate(model, t_stop + 0.5, dt=1e-2, **ACCURATE)
    stops = [e for e in r.events if e.after == "stick"]
    assert len(stops) == 1 and stops[0].t == pytest.approx(t_stop, abs=1e-10)
    w = _speed(r, "disc")
    np.testing.assert_allclose(w[r.t < t_stop], w0 - mu * N * radius / J * r.t[r.t < t_stop],
                               atol=1e-9)
    np.testing.assert_allclose(w[r.t > t_stop], 0.0, atol=1e-9)
    # energy: the kinetic energy went into the brake
    assert np.max(np.abs(r.energy_error)) < 1e-9


def test_clamp_holds_a_slider_until_the_push_exceeds_mu_s_N():
    """A slider clamped with N on a frictionless guide, pushed by F = c t: it sticks while
    c t <= mu_s N and slips from t_b = mu_s N / c, then x'' = (c t - mu N) / m."""
    m, N, mu, mu_s, c = 2.0, 50.0, 0.2, 0.3, 10.0
    mdl = PlanarModel("clamp")
    slider = mdl.add(PointMass("slider", m))
    guide = mdl.add(Translational("guide", ground, slider, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Force("push", slider, lambda t, q, v: (c * t, 0.0)))
    mdl.add(Clamp("clamp", guide, N, mu=mu, mu_s=mu_s))
    model = Model(mdl.compile(), *mdl.initial_state(), name="clamp")
    t_b = mu_s * N / c
    r = nonsmooth.simulate(model, t_b + 1.0, dt=1e-2, **ACCURATE)
    breaks = [e for e in r.events if e.kind == "reserve_zero"]
    assert len(breaks) == 1 and breaks[0].t == pytest.approx(t_b, abs=1e-10)
    x = r.q[:, r.coordinate_names.index("slider.x")]
    after = r.t > t_b
    s = r.t[after] - t_b
    # x(t) = integral of integral of (c t - mu N)/m from t_b: c (t^3 - ...) in closed form
    expected = (c * (s ** 3 / 6 + t_b * s ** 2 / 2) - mu * N * s ** 2 / 2) / m
    np.testing.assert_allclose(x[after], expected, atol=1e-9)
    np.testing.assert_allclose(x[~after], 0.0, atol=1e-12)
    # while stuck the clamp carries the push: F_T = -c t
    np.testing.assert_allclose(r.F_T[~after, 0], -c * r.t[~after], atol=1e-9)


def test_normal_force_crossing_zero_opens_the_clutch():
    """N(t) = 4 cos t: slipping until N reaches zero at pi/2 (an event), open after."""
    model = _shafts(lambda t: 4.0 * math.cos(t), J_a=1.0, J_b=2.0, w_a=10.0)
    r = nonsmooth.simulate(model, 3.0, dt=1e-2, **ACCURATE)
    opens = [e for e in r.events if e.kind == "normal_sign"]
    assert [(e.pair, e.before, e.after) for e in opens] == [("clutch", "+", "0")]
    assert opens[0].t == pytest.approx(math.pi / 2, abs=1e-12)
    # slipping: tau = 0.5 * 4 cos t -> w_a = 10 - 2 sin t, w_b = sin t; open: constant
    w_a, w_b = _speed(r, "a"), _speed(r, "b")
    slip = r.t <= math.pi / 2
    np.testing.assert_allclose(w_a[slip], 10 - 2 * np.sin(r.t[slip]), atol=1e-9)
    np.testing.assert_allclose(w_b[slip], np.sin(r.t[slip]), atol=1e-9)
    np.testing.assert_allclose(w_a[~slip], 8.0, atol=1e-9)
    np.testing.assert_allclose(w_b[~slip], 1.0, atol=1e-9)
    np.testing.assert_allclose(r.lambda_N[~slip, 0], 0.0, atol=0)  # open: no normal force


@pytest.mark.parametrize("kwargs, message", [
    ({"normal_force": "hard"}, "normal_force = 'hard' is invalid"),
    ({"normal_force": math.inf}, "normal_force = inf is invalid"),
    ({"mu": 0.5, "mu_s": 0.4}, "mu_s = 0.4 is below mu = 0.5"),
    ({"mu": 12.0}, "mu = 12 is out of range"),
    ({"radius": 0.0}, "radius = 0.0 is invalid"),
])
def test_bad_clutch_input_is_named(kwargs, message):
    a, b = Body("a", 1.0, 1.0), Body("b", 1.0, 1.0)
    args = {"normal_force": 1.0, "mu": 0.5, "mu_s": None, **kwargs}
    with pytest.raises(ModelError, match=message.replace("(", r"\(")):
        Clutch("c", a, b, args.pop("normal_force"), **args)


def test_clutch_needs_rotating_bodies():
    with pytest.raises(ModelError, match="rigid Body or the ground"):
        Clutch("c", Body("a", 1.0, 1.0), PointMass("p", 1.0), 1.0, mu=0.5)
    a = Body("a", 1.0, 1.0)
    with pytest.raises(ModelError, match="the same body"):
        Clutch("c", a, a, 1.0, mu=0.5)
    with pytest.raises(ModelError, match="Translational"):
        Clamp("k", a, 1.0, mu=0.5)


def test_elements_are_in_the_flat_namespace():
    assert (nonsmooth.Clutch, nonsmooth.Brake, nonsmooth.Clamp) == (Clutch, Brake, Clamp)
    assert {"Clutch", "Brake", "Clamp"} <= set(nonsmooth.__all__)


def test_the_readme_clutch_example():
    """README's clutch block: slips with 0.3 * 400 N * 0.1 m = 12 N m from 0.2 s, locks when
    the speeds meet at 0.2 + 10 / (12 (1/1 + 1/2)) s at the common speed 10/3 rad/s."""
    from readme_blocks import readme_block

    namespace: dict = {}
    exec(compile(readme_block("clutch-example"), "README.md", "exec"), namespace)
    r, lock = namespace["result"], namespace["lock"]
    assert lock == pytest.approx(0.2 + 10 / (12 * 1.5), abs=1e-9)
    np.testing.assert_allclose(r["load.w"][r.t > lock], 10 / 3, atol=1e-9)
    slipping = (r.t >= 0.2) & (r.t < lock)
    np.testing.assert_allclose(r["clutch.tau"][slipping], 12.0, rtol=1e-12)
    np.testing.assert_array_equal(r["clutch.N"][r.t < 0.2], 0.0)
