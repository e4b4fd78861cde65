"""Revolute-joint friction (radial load, fixed point) and the translational joint's full load."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth import ModelError
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Force, Gravity
from nonsmooth.planar.joints import Revolute, Translational

M, L, I_C, G = 1.0, 0.1, 1e-3, 9.81  # bob mass (kg), pin to CM (m), inertia about CM (kg m^2)
I_O = I_C + M * L * L


def pendulum(theta0, **friction):
    """A bob on a rod, pinned at the origin; theta from the downward vertical."""
    mdl = PlanarModel("pendulum")
    angle = theta0 - math.pi / 2  # body x-axis from the pin to the CM
    bob = mdl.add(Body("bob", M, I_C, position=(L * math.sin(theta0), -L * math.cos(theta0)),
                       angle=angle))
    mdl.add(Revolute("pin", ground, bob, (0.0, 0.0), (-L, 0.0), **friction))
    mdl.add(Gravity(g=G))
    return mdl


def theta_of(r):
    return r["bob.theta"] + math.pi / 2


def one_dof_coulomb(theta0, mu, r_p, t_end, t_eval):
    """Independent 1-DOF model: I_O theta'' = -m g l sin(theta) - mu r_p N sgn(omega), with the
    pin load N = |m a_cm + m g e_y| depending on theta'' (solved by fixed point)."""
    def rhs(t, y):
        th, w = y
        acc = -M * G * L * math.sin(th) / I_O
        for _ in range(200):
            ax = L * (acc * math.cos(th) - w * w * math.sin(th))
            ay = L * (acc * math.sin(th) + w * w * math.cos(th))
            N = math.hypot(M * ax, M * ay + M * G)
            new = (-M * G * L * math.sin(th) - mu * r_p * N * math.copysign(1.0, w)) / I_O
            if abs(new - acc) < 1e-15 * max(1.0, abs(new)):
                break
            acc = new
        return [w, new]

    def turn(t, y):  # stop at the first turning point (the sign of the friction flips)
        return y[1]
    turn.terminal, turn.direction = True, 1.0
    return solve_ivp(rhs, (0.0, t_end), [theta0, -1e-300], t_eval=t_eval, rtol=1e-12,
                     atol=1e-14, events=turn, method="DOP853")


def test_radial_load_matches_an_independent_one_dof_computation():
    mu, r_p = 0.3, 0.02
    r = nonsmooth.simulate(pendulum(1.0, mu=mu, pin_radius=r_p), 0.6, method="DOP853",
                           dt=1e-3, rtol=1e-12, atol=1e-14)
    first_turn = next(e.t for e in r.events if e.kind == "velocity_zero")
    keep = r.t < first_turn
    ref = one_dof_coulomb(1.0, mu, r_p, 0.6, r.t[keep])
    np.testing.assert_allclose(theta_of(r)[keep][: len(ref.t)], ref.y[0], atol=1e-9)
    np.testing.assert_allclose(r["bob.theta"][0], 1.0 - math.pi / 2)
    assert abs(first_turn - ref.t_events[0][0]) < 1e-9
    # the load is the pin reaction's magnitude, the torque mu r_p N
    N = np.hypot(r["pin.x"], r["pin.y"])
    moving = keep & (np.abs(r.v_T[:, 0]) > 1e-9)
    np.testing.assert_allclose(r.lambda_N[moving, 0], N[moving], rtol=1e-10)
    np.testing.assert_allclose(np.abs(r.F_T[moving, 0]), mu * N[moving], rtol=1e-10)


def test_coulomb_pendulum_stops_inside_the_static_band():
    mu, mu_s, r_p = 0.2, 0.5, 0.05
    band = math.asin(mu_s * r_p / L)  # gravity torque m g l sin <= mu_s r_p m g at rest
    r = nonsmooth.simulate(pendulum(1.2, mu=mu, mu_s=mu_s, pin_radius=r_p), 3.0,
                           method="DOP853", dt=1e-3, rtol=1e-11, atol=1e-13)
    stops = [e for e in r.events if e.after == "stick"]
    assert len(stops) == 1
    theta_stop = stops[0].q[2] + math.pi / 2
    assert abs(theta_stop) <= band
    # every earlier turning point lay outside the band (it reversed instead of sticking)
    for e in r.events:
        if e.kind == "velocity_zero" and e.after != "stick":
            assert abs(e.q[2] + math.pi / 2) > band
    after = r.t > stops[0].t
    np.testing.assert_allclose(theta_of(r)[after], theta_stop, atol=1e-10)
    assert np.all(np.abs(r.F_T[after, 0]) <= mu_s * r.lambda_N[after, 0] + 1e-12)
    assert r.diagnostics["energy_balance_relative"] < 1e-8


def test_inputs_0000_means_no_friction():
    r = nonsmooth.simulate(pendulum(1.0, mu=0.5, pin_radius=0.05, inputs="0000"), 1.0,
                           method="DOP853", rtol=1e-11, atol=1e-13)
    assert r.diagnostics["work"]["W_friction"] == 0.0
    E = r.T + r.V
    assert np.max(np.abs(E - E[0])) < 1e-9


def test_torque_preload_adds_a_constant_load():
    """Only a preload (inputs 1000): the pendulum feels the torque T_pre at every speed."""
    T_pre, mu_s, r_p = 2e-3, 0.5, 0.01
    r = nonsmooth.simulate(pendulum(1.0, mu=mu_s, pin_radius=r_p, torque_preload=T_pre,
                                    inputs="1000"), 0.2, method="DOP853", rtol=1e-11,
                           atol=1e-13)
    moving = np.abs(r.v_T[:, 0]) > 1e-9
    np.testing.assert_allclose(r.lambda_N[:, 0], T_pre / (mu_s * r_p), rtol=1e-12)
    np.testing.assert_allclose(np.abs(r.F_T[moving, 0]) * r_p, T_pre, rtol=1e-12)


def test_lugre_sliding_effect_never_sticks():
    """effect = SLIDING: dynamic friction only, no stiction: the pendulum keeps creeping toward
    the bottom, where ALL holds it still off-centre."""
    common = {"mu": 0.3, "mu_s": 0.5, "pin_radius": 0.05, "law": "lugre"}
    lugre = {"sigma0": 1e4, "sigma1": 1.0, "sigma2": 1.0, "v_s": 1e-3}
    held = nonsmooth.simulate(pendulum(0.6, **common, friction={**lugre, "effect": "ALL"}),
                              6.0, rtol=1e-7, atol=1e-10)
    creeps = nonsmooth.simulate(pendulum(0.6, **common, friction={**lugre,
                                                                  "effect": "SLIDING"}),
                                6.0, rtol=1e-7, atol=1e-10)
    last = held.t >= 5.0
    th_held, th_creep = theta_of(held)[last], theta_of(creeps)[last]
    assert abs(th_held[-1]) > 0.01  # held inside the static band, off the bottom
    drift_held = abs(th_held[-1] - th_held[0])  # LuGre's slow presliding drift only
    creep = abs(th_creep[0]) - abs(th_creep[-1])  # still moving toward the bottom
    assert creep > 1e-4 and creep > 20 * drift_held


def test_translational_bending_and_preload_enter_the_load():
    """A block in a horizontal slot, locked against rotation, pushed sideways at an offset:
    N = |lambda_N| + |M_lock| / x_s + F_pre / mu_s (inputs 1111)."""
    mu, x_s, F_pre, P, h = 0.2, 0.05, 0.3, 4.0, 0.02
    mdl = PlanarModel("block")
    block = mdl.add(Body("block", 1.0, 1e-3, velocity=(1.0, 0.0)))
    mdl.add(Translational("slot", ground, block, (0.0, 0.0), (1.0, 0.0), mu=mu, normal="left",
                          inputs="1111", initial_overlap=x_s, force_preload=F_pre))
    # a horizontal push P at height h above the CM: moment P h on the lock
    mdl.add(Force("push", block, lambda t, q, v: (P, 0.0), point=(0.0, h)))
    mdl.add(Gravity(g=G))
    r = nonsmooth.simulate(mdl, 0.1, method="DOP853", rtol=1e-12, atol=1e-14)
    lam_N, M_lock = r["slot.normal"], r["slot.lock"]
    np.testing.assert_allclose(lam_N, M * G, rtol=1e-12)
    np.testing.assert_allclose(np.abs(M_lock), P * h, rtol=1e-10)
    N = M * G + P * h / x_s + F_pre / mu
    np.testing.assert_allclose(r.F_T[:, 0], -mu * N, rtol=1e-10)
    # acceleration: (P - mu N) / m
    np.testing.assert_allclose(r.v[:, 0], 1.0 + (P - mu * N) / M * r.t, atol=1e-10)


def test_overlap_increase_changes_the_contact_spacing():
    mdl = PlanarModel("block")
    block = mdl.add(Body("block", 1.0, 1e-3, velocity=(1.0, 0.0)))
    slot = mdl.add(Translational("slot", ground, block, (0.0, 0.0), (1.0, 0.0), mu=0.1,
                                 normal="left", inputs="0110", initial_overlap=0.1,
                                 overlap_delta="INCREASE"))
    mdl.add(Force("push", block, lambda t, q, v: (1.0, 0.0), point=(0.0, 0.05)))
    mdl.add(Gravity(g=G))
    r = nonsmooth.simulate(mdl, 0.2, method="DOP853", rtol=1e-12, atol=1e-14)
    x = r["block.x"]
    N = M * G + np.abs(r["slot.lock"]) / (0.1 + x)
    np.testing.assert_allclose(r.lambda_N[:, 0], M * G, rtol=1e-12)
    np.testing.assert_allclose(-r.F_T[:, 0], 0.1 * N, rtol=1e-10)
    assert slot.contact_spacing(np.array([0.05, 0.0, 0.0]), r.system) == pytest.approx(0.15)


@pytest.mark.parametrize("kwargs, match", [
    ({"mu": 0.3, "pin_radius": 0.0}, r"pin_radius = 0.0 is invalid; it must be a finite number"),
    ({"mu": 0.3, "inputs": "11"}, r"inputs = '11' is invalid; give four bits"),
    ({"mu": 0.3, "torque_preload": -1}, r"torque_preload = -1.0 is invalid"),
])
def test_joint_friction_errors_are_named(kwargs, match):
    with pytest.raises(ModelError, match=match):
        Revolute("pin", ground, Body("b", 1.0, 1.0), **kwargs)
