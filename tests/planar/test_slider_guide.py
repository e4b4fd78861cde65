"""A slider in a horizontal two-sided guide, pressed by a vertical force that crosses its weight.

lambda_N = m g - P_y changes sign at t* = m g / P0 (the slider moves to the other face of the
slot) while the friction force follows |lambda_N|; the velocity has a closed form.
"""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth.model import Model, Output
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Force, Gravity
from nonsmooth.planar.joints import Translational

M, G, MU, V0 = 2.0, 9.81, 0.1, 1.0
P0 = 2 * M * G  # N/s: the push equals the weight at t* = 0.5 s
T_STAR = M * G / P0


def build(point_mass=False):
    mdl = PlanarModel("slider in guide")
    slider = mdl.add(Body("slider", M, 0.1, velocity=(V0, 0.0)))
    # axis (-1, 0): the slot normal (axis turned clockwise) is +y
    mdl.add(Translational("guide", ground, slider, (0.0, 0.0), (-1.0, 0.0), mu=MU))
    mdl.add(Force("push", slider, lambda t, q, v: (0.0, P0 * t)))
    mdl.add(Gravity(g=G))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    outputs = {"x": Output(lambda r: r.q[:, 0], "m"), "vx": Output(lambda r: r.v[:, 0], "m/s")}
    return Model(system, q0, v0, name="slider", outputs=outputs)


def vx_exact(t):
    t = np.asarray(t)
    before = M * G * t - 0.5 * P0 * t ** 2
    after = M * G * T_STAR - 0.5 * P0 * T_STAR ** 2 + 0.5 * P0 * (t - T_STAR) ** 2
    return V0 - MU / M * np.where(t <= T_STAR, before, after)


@pytest.mark.parametrize("method", ["RK4", "RK45"])
def test_normal_force_changes_sign_and_friction_follows(method):
    r = nonsmooth.simulate(build(), 1.0, method=method, dt=1e-3)
    lam = r["lambda_N"]
    np.testing.assert_allclose(lam, M * G - P0 * r.t, atol=1e-9)
    assert lam[0] > 0 and lam[-1] < 0  # both faces of the slot carry the slider
    # friction on the slider along the slot axis (-x): it opposes vx > 0, so F_T = +mu |lambda_N|
    np.testing.assert_allclose(r["F_T"], MU * np.abs(lam), atol=1e-9)
    np.testing.assert_allclose(r["vx"], vx_exact(r.t), atol=1e-9)
    faces = [e for e in r.events if e.kind == "normal_sign"]
    assert len(faces) == 1
    assert abs(faces[0].t - T_STAR) < 1e-10
    assert (faces[0].before, faces[0].after) == ("+", "-")
    d = r.diagnostics
    assert d["max_lcp_residual"] < 1e-10
    assert d["energy_balance_relative"] < 1e-6
    assert d["work"]["W_friction"] < 0
    assert abs(r["guide.lock"]).max() < 1e-9  # no moment on the rotation lock


def test_energy_terms_match_closed_form():
    r = nonsmooth.simulate(build(), 1.0, method="RK4", dt=1e-3)
    dT = 0.5 * M * (vx_exact(1.0) ** 2 - V0 ** 2)
    assert abs(r.T[-1] - r.T[0] - dT) < 1e-9
    # the only work done is by friction (the push and gravity are vertical, y does not move)
    assert abs(r.diagnostics["work"]["W_friction"] - dT) < 1e-9
    assert abs(r.diagnostics["work"]["W_applied"]) < 1e-9
