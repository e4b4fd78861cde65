"""A block on an inclined plane: the sticking threshold tan(angle) = mu_s, sliding with the
closed-form acceleration, and the breakaway time on a plane tilted at a constant rate."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import incline

TIGHT = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}
M, G = 2.0, 9.81


def run(t_end, method="DOP853", **params):
    model = incline.build(m=M, g=G, **params)
    if method == "RK4":
        return model, nonsmooth.simulate(model, t_end, method="RK4", dt=1e-3)
    return model, nonsmooth.simulate(model, t_end, **TIGHT)


def test_parameters_are_checked():
    with pytest.raises(nonsmooth.ModelError, match=r"mu_s = 0.2 must be >= mu_d = 0.4"):
        incline.build(mu_s=0.2)
    with pytest.raises(nonsmooth.ModelError, match=r"parameter angle = 2 is out of range"):
        incline.build(angle=2)
    assert all(p.unit for p in incline.PARAMETERS)


@pytest.mark.parametrize("mu_s", [0.3, 0.5, 1.2])
@pytest.mark.parametrize("side", [-1, 1])
def test_block_at_rest_sticks_iff_tan_angle_below_mu_s(mu_s, side):
    mu_d = 0.8 * mu_s
    angle = math.atan(mu_s) * (1 + side * 1e-6)  # just below / just above the threshold
    x0 = 0.3
    _, r = run(1.0, angle=angle, mu_s=mu_s, mu_d=mu_d, x0=x0)
    c, s = math.cos(angle), math.sin(angle)
    np.testing.assert_allclose(r["angle"], angle, atol=1e-13)
    np.testing.assert_allclose(r["lambda_N"], M * G * c, atol=1e-9)
    if side < 0:  # tan(angle) < mu_s: static friction holds the block
        assert [(e.kind, e.after) for e in r.events] == [("start", "stick")]
        assert np.all(r["mode"] == 0)
        np.testing.assert_allclose(r["s"], x0, atol=1e-12)
        np.testing.assert_allclose(r["v"], 0.0, atol=1e-12)
        np.testing.assert_allclose(r["F_f"], M * G * s, atol=1e-9)
        assert np.all(np.abs(r["F_f"]) <= mu_s * r["lambda_N"])
    else:  # it slides down with d2s/dt2 = -g (sin - mu_d cos)
        assert [(e.kind, e.after) for e in r.events] == [("start", "slip-")]
        assert np.all(r["mode"] == -1)
        acc = G * (s - mu_d * c)
        np.testing.assert_allclose(r["s"], x0 - 0.5 * acc * r.t ** 2, atol=1e-9)
        np.testing.assert_allclose(r["v"], -acc * r.t, atol=1e-9)
        np.testing.assert_allclose(r["F_f"], mu_d * M * G * c, atol=1e-9)


@pytest.mark.parametrize("method", ["DOP853", "RK4"])
@pytest.mark.parametrize("angle, mu_s", [(0.6, 0.5), (0.4, 0.5)])
def test_pushed_up_stops_then_slides_back_or_sticks(method, angle, mu_s):
    """Launched up the slope: decelerates at g (sin + mu_d cos), stops at closed-form t1, s1,
    then slides back (tan > mu_s) at g (sin - mu_d cos) or sticks (tan <= mu_s). The motion is
    piecewise quadratic, which RK4 integrates exactly."""
    mu_d, v0, x0 = 0.3, 2.0, -0.5
    _, r = run(1.5, method, angle=angle, mu_s=mu_s, mu_d=mu_d, x0=x0, v0=v0)
    c, s = math.cos(angle), math.sin(angle)
    up, down = G * (s + mu_d * c), G * (s - mu_d * c)
    t1 = v0 / up
    s1 = x0 + v0 ** 2 / (2 * up)
    slides_back = math.tan(angle) > mu_s
    stops = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(stops) == 1
    assert abs(stops[0].t - t1) < 1e-9
    assert (stops[0].before, stops[0].after) == ("slip+", "slip-" if slides_back else "stick")
    tt = r.t
    before = tt <= t1
    s_exact = np.where(before, x0 + v0 * tt - 0.5 * up * tt ** 2,
                       s1 - (0.5 * down * (tt - t1) ** 2 if slides_back else 0.0))
    np.testing.assert_allclose(r["s"], s_exact, atol=1e-9)
    after = tt > t1
    np.testing.assert_allclose(r["F_f"][before & (tt < t1 - 1e-9)], -mu_d * M * G * c, atol=1e-9)
    expected_F = mu_d * M * G * c if slides_back else M * G * s
    np.testing.assert_allclose(r["F_f"][after], expected_F, atol=1e-9)
    d = r.diagnostics
    assert d["energy_balance_relative"] < 1e-6
    assert d["work"]["W_friction"] < 0
    # fixed plane: the friction work is -mu_d N times the distance slid
    dist = (s1 - x0) + (s1 - r["s"][-1])
    assert d["work"]["W_friction"] == pytest.approx(-mu_d * M * G * c * dist, rel=1e-8)


def test_sliding_down_stops_and_sticks():
    angle, mu_s, mu_d, v0 = 0.2, 0.5, 0.4, -1.0
    _, r = run(1.0, angle=angle, mu_s=mu_s, mu_d=mu_d, v0=v0)
    dec = G * (mu_d * math.cos(angle) - math.sin(angle))
    stops = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(stops) == 1 and (stops[0].before, stops[0].after) == ("slip-", "stick")
    assert abs(stops[0].t - (-v0) / dec) < 1e-9
    after = r.t > stops[0].t
    np.testing.assert_allclose(r["s"][after], -v0 ** 2 / (2 * dec), atol=1e-9)
    assert np.all(r["mode"][after] == 0)


@pytest.mark.parametrize("x0", [0.0, 1.0])
def test_slow_ramp_breakaway_time(x0):
    """angle(t) = angle0 + rate t. Stuck, the block turns with the plane on a circle of radius
    x0: lambda_N = m g cos(angle), F_f = m g sin(angle) - m x0 rate^2; it breaks away when
    F_f = mu_s lambda_N, i.e. sin(angle - atan mu_s) = x0 rate^2 / (g sqrt(1 + mu_s^2))
    (tan(angle) = mu_s at the hinge)."""
    angle0, rate, mu_s, mu_d = 0.2, 0.05, 0.5, 0.4
    _, r = run(6.0, angle=angle0, rate=rate, mu_s=mu_s, mu_d=mu_d, x0=x0)
    angle_star = math.atan(mu_s) + math.asin(x0 * rate ** 2 / (G * math.sqrt(1 + mu_s ** 2)))
    t_star = (angle_star - angle0) / rate
    if x0 == 0:
        assert math.tan(angle0 + rate * t_star) == pytest.approx(mu_s, rel=1e-14)
        assert t_star == pytest.approx(5.272952180016, abs=1e-11)
    kinds = [(e.kind, e.before, e.after) for e in r.events]
    assert kinds == [("start", "", "stick"), ("reserve_zero", "stick", "slip-")]
    assert abs(r.events[1].t - t_star) < 1e-9
    np.testing.assert_allclose(r["angle"], angle0 + rate * r.t, atol=1e-11)
    stuck = r.t < t_star
    assert np.all(r["mode"][stuck] == 0) and np.all(r["mode"][~stuck] == -1)
    ang = r["angle"][stuck]
    np.testing.assert_allclose(r["lambda_N"][stuck], M * G * np.cos(ang), atol=1e-9)
    np.testing.assert_allclose(r["F_f"][stuck], M * G * np.sin(ang) - M * x0 * rate ** 2,
                               atol=1e-9)
    np.testing.assert_allclose(r["s"][stuck], x0, atol=1e-10)
    assert np.all(r["F_f"][stuck] < mu_s * r["lambda_N"][stuck])
    assert r["s"][-1] < x0 - 1e-3  # it slid down afterwards
    assert r.diagnostics["energy_balance_relative"] < 1e-6
    assert r.diagnostics["work"]["W_friction"] < 0
