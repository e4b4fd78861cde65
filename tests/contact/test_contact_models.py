"""The bundled contact models (``models/contact_*.py``) run end to end, by name, through
``nonsmooth.simulate`` and the command line, against closed forms of mechanics: free fall and
ballistic flight between impacts, the sliding-to-rolling time of a ball, the stop time of a box
on an incline and its hold, and for the arm dragging a payload on a plate the statics of the
stuck payload and Coulomb's sliding force."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import DriverMotionWarning
from nonsmooth.models import available, build, load


def test_the_contact_models_are_bundled():
    assert {"contact_bouncing_ball", "contact_rolling_ball", "contact_box_incline",
            "contact_payload_plate", "contact_rattleback", "contact_puck",
            "contact_rolling_disc", "contact_box_tipping"} <= set(available())


def test_bouncing_ball_falls_flies_and_rebounds_by_the_closed_forms():
    h, g, e = 0.05, 9.81, 0.8
    r = nonsmooth.simulate(build("contact_bouncing_ball", h=h, e=e), 0.3)
    touch, leave = r.events.filter("floor", "touch"), r.events.filter("floor", "leave")
    assert len(touch) == len(leave) == 2
    # free fall: the first impact at sqrt(2 h / g), at sqrt(2 g h)
    assert touch.t[0] == pytest.approx(math.sqrt(2.0 * h / g), rel=1e-9)
    assert touch[0].speed == pytest.approx(math.sqrt(2.0 * g * h), rel=1e-9)
    # ballistic flight: it lands at the speed it left at, 2 v / g later
    v = -leave[0].speed
    assert touch[1].speed == pytest.approx(v, rel=1e-9)
    assert touch.t[1] - leave.t[0] == pytest.approx(2.0 * v / g, rel=1e-8)
    # the impact returns e times the approach speed, less gravity's impulse during contact
    duration = leave.t[0] - touch.t[0]
    assert e * touch[0].speed - g * duration < v < e * touch[0].speed + g * duration
    # energy: constant in flight, lost only in the impact (the damping work)
    flight1 = r.t < touch.t[0] - 1e-3
    flight2 = (r.t > leave.t[0] + 1e-3) & (r.t < touch.t[1] - 1e-3)
    E0 = r["energy"][0]
    assert np.allclose(r["energy"][flight1], E0, rtol=1e-10)
    m = load("contact_bouncing_ball").mass(0.01, 7850.0)
    lost = 0.5 * m * (touch[0].speed ** 2 - v ** 2)
    assert np.allclose(r["energy"][flight2], E0 - lost, rtol=1e-8)
    assert r.diagnostics["work"]["W_damping"] == pytest.approx(r["energy"][-1] - E0, rel=1e-8)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-9


def test_bouncing_ball_runs_by_name_on_the_command_line(tmp_path):
    h, g = 0.05, 9.81
    out, events = tmp_path / "ball.csv", tmp_path / "events.csv"
    done = subprocess.run([sys.executable, "-m", "nonsmooth", "run", "contact_bouncing_ball",
                           "--t-end", "0.12", "--set", f"h={h}", "--out", str(out),
                           "--events", str(events)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(events.open()))
    touches = [float(row["t"]) for row in rows if row["kind"] == "touch"]
    assert touches == [pytest.approx(math.sqrt(2.0 * h / g), rel=1e-9)]
    speeds = [float(row["speed"]) for row in rows if row["kind"] == "touch"]  # impact, m/s
    assert speeds == [pytest.approx(math.sqrt(2.0 * g * h), rel=1e-9)]
    data = np.genfromtxt(out, delimiter=",", names=True)
    falling = data["t"] < 0.1
    assert np.allclose(data["height"][falling], h - 0.5 * g * data["t"][falling] ** 2,
                       rtol=1e-9, atol=1e-12)


def test_rolling_ball_starts_to_roll_at_two_v0_over_seven_mu_g_at_five_sevenths():
    v0, mu, g = 2.0, 0.2, 9.81
    t_roll = 2.0 * v0 / (7.0 * mu * g)  # Routh's closed form
    r = nonsmooth.simulate(build("contact_rolling_ball", v0=v0, mu=mu), 1.1 * t_roll)
    stick = r.events.filter("floor", "stick")
    assert len(stick) == 1
    assert stick.t[0] == pytest.approx(t_roll, rel=1e-5)  # (the contact's compliance)
    assert r["vx"][-1] == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)
    assert r["omegaR"][-1] == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)
    sliding = r.t < 0.99 * t_roll
    assert np.allclose(r["vx"][sliding], v0 - mu * g * r.t[sliding], rtol=1e-6)
    assert np.allclose(r["Fx"][sliding], -mu * r["N"][sliding], rtol=1e-9)


def test_box_on_an_incline_stops_at_the_closed_form_time_and_then_holds():
    v0, mu, slope, g = 1.0, 0.4, 15.0, 9.81
    t_stop = load("contact_box_incline").stop_time(v0, mu, slope, g)
    a = g * (mu * math.cos(math.radians(slope)) - math.sin(math.radians(slope)))
    r = nonsmooth.simulate(build("contact_box_incline", v0=v0, mu=mu, slope=slope), 1.4,
                           t_eval=np.linspace(0.0, 1.4, 141))
    stick = r.events.filter("slope", "stick")
    assert len(stick) == 1 and stick.t[0] == pytest.approx(v0 / a, rel=1e-9)
    assert stick.t[0] == pytest.approx(t_stop, rel=1e-12)
    assert r["s"][-1] == pytest.approx(v0 * v0 / (2.0 * a), rel=1e-4)  # (compliance)
    held = r.t >= 1.1
    assert np.ptp(r["s"][held]) < 1e-12
    # while it slides the friction is mu N up the slope
    sliding = (r.t > 0.01) & (r.t < 0.99 * t_stop)
    assert np.allclose(r["F_T"][sliding], -mu * r["N"][sliding], rtol=1e-9)


@pytest.fixture(scope="module")
def payload_run():
    """The arm and the payload to 2.2 s: the touch, the pressing and the start of the drag."""
    model = build("contact_payload_plate")
    with warnings.catch_warnings():  # the drivers' derivatives are exact: the check's finite
        # differences see round-off only (1e-11 rad/s, a drift of 1e-12 rad) and do not warn
        warnings.simplefilter("error", DriverMotionWarning)
        return model, nonsmooth.simulate(model, 2.2, t_eval=np.linspace(0.0, 2.2, 441))


def test_payload_touches_sticks_and_then_stick_slips_under_the_drag(payload_run):
    model, r = payload_run
    ev = r.events.filter("plate", ("touch", "leave", "velocity_zero", "reserve_zero"))
    kinds = [e.kind for e in ev]
    assert kinds[0] == "touch"
    lower, drag = model_phases()
    settled = [e for e in ev if e.t < drag[0]]
    assert settled[-1].kind == "velocity_zero" and settled[-1].after == "stick"
    # it presses, stuck, until the drag loads it to mu_s N: slip, stick again, ...
    dragged = [(e.kind, e.after) for e in ev if e.t > drag[0]]
    assert dragged[:3] == [("reserve_zero", "slip"), ("velocity_zero", "stick"),
                           ("reserve_zero", "slip")]
    assert all(e.kind in ("velocity_zero", "reserve_zero") for e in ev if e.t > lower[1])


def model_phases():
    module = load("contact_payload_plate")
    return module.LOWER, module.DRAG


def test_stuck_payload_is_in_static_equilibrium_with_its_stage_springs(payload_run):
    """While the arm holds still (1.2-1.5 s) the stuck payload and its stage are at rest: the
    contact force balances the stage's springs and weight, ``N = m g - k_n (l - l0)`` along
    the tool axis and ``F = k_t u`` across it (``u`` the stage's deflections)."""
    model, r = payload_run
    p = model.parameters
    module = load("contact_payload_plate")
    hold = (r.t >= 1.2) & (r.t <= 1.5)
    first = r.t == 0.0
    rel = {k: r[f"{k}"] for k in ("tool.z", "slider.z", "slider.x", "carriage.x",
                                  "carriage.y", "payload.y")}
    length = module.SLIDER_DROP + (rel["tool.z"] - rel["slider.z"]) - (
        rel["tool.z"][first] - rel["slider.z"][first])
    m_stage = 0.2 + 0.2 + p["m_p"]
    l0 = module.SLIDER_DROP - m_stage * p["g"] / p["k_n"]
    N = m_stage * p["g"] - p["k_n"] * (length - l0)
    assert np.allclose(r["N"][hold], N[hold], rtol=1e-6)
    assert r["N"][hold].mean() == pytest.approx(p["k_n"] * p["press"], rel=0.01)
    u_x = (rel["carriage.x"] - rel["slider.x"]) - (rel["carriage.x"] - rel["slider.x"])[first]
    u_y = (rel["payload.y"] - rel["carriage.y"]) - (rel["payload.y"] - rel["carriage.y"])[first]
    assert np.allclose(r["plate.Fx"][hold], p["k_t"] * u_x[hold], atol=1e-6)
    assert np.allclose(r["plate.Fy"][hold], p["k_t"] * u_y[hold], atol=1e-6)
    assert np.all(r["F_t"][hold] <= p["mu_s"] * r["N"][hold])
    assert np.ptp(r["payload.x"][hold]) < 1e-12 and np.ptp(r["payload.y"][hold]) < 1e-12


def test_dragged_payload_slides_at_mu_n_and_sticks_within_mu_s_n(payload_run):
    model, r = payload_run
    p = model.parameters
    stuck = r.events.intervals("plate", "stick")
    slipping = r.events.intervals("plate", "slip")
    pressed = r["N"] > 1.0
    inside = np.zeros(r.t.size, bool)
    for t0, t1 in slipping:
        inside |= (r.t > t0 + 1e-4) & (r.t < t1 - 1e-4)
    assert np.count_nonzero(inside & pressed) > 5
    assert np.allclose(r["F_t"][inside & pressed], p["mu"] * r["N"][inside & pressed],
                       rtol=1e-9)
    held = np.zeros(r.t.size, bool)
    for t0, t1 in stuck:
        held |= (r.t > t0) & (r.t < t1)
    assert np.all(r["F_t"][held & pressed] <= p["mu_s"] * r["N"][held & pressed] * (1 + 1e-9))
    # the drivers hold the arm: finite torques, the base's nonzero only while it drags
    assert np.all(np.isfinite([r[f"tau_{j}"] for j in load("contact_payload_plate").JOINTS]))
    assert abs(r["tau_shoulder"][r.t == 0.0][0]) > 1.0  # (gravity)


def test_the_payload_pressed_with_the_volumetric_law_carries_the_stage_spring():
    """``contact_payload_plate`` with ``layer > 0``: the half-sphere pressed into a compliant
    layer (the volumetric law, ``k_v = E_plate / layer``). While the arm holds still the
    contact carries the stage's pressing spring, ``N ~ k_n press``, its force is ``k_v V`` of
    the cap's volume, and the friction at the cap's centroid holds the payload stuck."""
    model = build("contact_payload_plate", layer=0.01)
    p = model.parameters
    r = nonsmooth.simulate(model, 1.5, t_eval=np.linspace(1.2, 1.5, 31))
    k_v = p["E_plate"] / p["layer"]
    assert np.allclose(r["plate.N"], k_v * r["plate.V"], rtol=1e-6)
    assert r["N"].mean() == pytest.approx(p["k_n"] * p["press"], rel=0.02)
    assert np.all(r["plate.mode"] == 0.0)
    assert np.ptp(r["payload.x"]) < 1e-12 and np.ptp(r["payload.y"]) < 1e-12
