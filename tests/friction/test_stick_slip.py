"""Set-valued Coulomb friction against closed forms: free vibration and belt stick-slip."""

from __future__ import annotations

import numpy as np
import pytest
from stick_slip_closed_form import belt_cycle, free_vibration_stop

import nonsmooth
from nonsmooth.models import stick_slip_oscillator as oscillator

ACCURATE = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}


@pytest.mark.parametrize("params", [
    {"m": 1.0, "k": 100.0, "mu_s": 0.4, "mu_d": 0.3, "x0": 0.3},
    {"m": 2.0, "k": 50.0, "mu_s": 0.5, "mu_d": 0.5, "x0": -0.4},
    {"m": 0.5, "k": 300.0, "mu_s": 0.6, "mu_d": 0.2, "x0": 0.05},
])
def test_coulomb_free_vibration_stop_time_and_position(params):
    g = 9.81
    t_stop, x_stop = free_vibration_stop(params["m"], params["k"], params["mu_s"],
                                         params["mu_d"], g, params["x0"])
    model = oscillator.build(v_belt=0.0, v0=0.0, **params)
    r = nonsmooth.simulate(model, t_stop + 0.5, dt=1e-3, **ACCURATE)
    stops = [e for e in r.events if e.after == "stick"]
    assert len(stops) == 1, [(e.t, e.kind, e.after) for e in r.events]
    ix = model.system.coordinate_names.index("block.x")
    assert abs(stops[0].t - t_stop) < 1e-9
    assert abs(stops[0].q[ix] - x_stop) < 1e-9
    after = r.t > stops[0].t
    np.testing.assert_allclose(r["x"][after], x_stop, atol=1e-9)
    assert np.all(r["mode"][after] == 0)
    # stuck: friction balances the spring, within the static bound
    np.testing.assert_allclose(r["F_f"][after], params["k"] * x_stop, atol=1e-8)
    assert np.all(np.abs(r["F_f"][after]) <= params["mu_s"] * r["lambda_N"][after] + 1e-12)
    # reversals in between: slip+ <-> slip- only
    for e in r.events:
        if e.kind == "velocity_zero" and e is not stops[0]:
            assert {e.before, e.after} == {"slip+", "slip-"}


def test_free_vibration_starting_inside_the_static_band_never_moves():
    r = nonsmooth.simulate(oscillator.build(v_belt=0.0, v0=0.0, x0=0.03), 1.0, **ACCURATE)
    assert r.events[0].after == "stick"
    np.testing.assert_allclose(r["x"], 0.03, atol=1e-12)


@pytest.mark.parametrize("params", [
    {"m": 1.0, "k": 100.0, "mu_s": 0.4, "mu_d": 0.3, "v_belt": 0.1},
    {"m": 2.0, "k": 40.0, "mu_s": 0.7, "mu_d": 0.35, "v_belt": 0.25},
    {"m": 0.3, "k": 500.0, "mu_s": 0.3, "mu_d": 0.29, "v_belt": 0.02},
])
def test_belt_stick_slip_period_and_stick_duration(params):
    g = 9.81
    T_stick, T_slip = belt_cycle(params["m"], params["k"], params["mu_s"], params["mu_d"], g,
                                 params["v_belt"])
    model = oscillator.build(x0=0.0, v0=params["v_belt"], **params)
    r = nonsmooth.simulate(model, 3.2 * (T_stick + T_slip) + 2 * T_stick, dt=1e-3, **ACCURATE)
    breakaway = [e.t for e in r.events if e.kind == "reserve_zero"]
    restick = [e.t for e in r.events if e.kind == "velocity_zero" and e.after == "stick"]
    assert len(breakaway) >= 3 and len(restick) >= 2
    periods = np.diff(breakaway)
    np.testing.assert_allclose(periods, T_stick + T_slip, rtol=1e-9)
    sticks = [b - s for s, b in zip(restick, breakaway[1:], strict=False)]
    np.testing.assert_allclose(sticks, T_stick, rtol=1e-9)
    slips = [s - b for b, s in zip(breakaway, restick, strict=False)]
    np.testing.assert_allclose(slips, T_slip, rtol=1e-9)
    # first breakaway: the spring reaches F_s = k x after sticking from x = 0
    F_s = params["mu_s"] * params["m"] * g
    assert breakaway[0] == pytest.approx(F_s / params["k"] / params["v_belt"], rel=1e-9)
    for e in r.events:
        if e.kind == "reserve_zero":
            assert (e.before, e.after) == ("stick", "slip-")


def test_energy_balance_holds_across_events_and_friction_dissipates():
    model = oscillator.build(c=0.5)
    r = nonsmooth.simulate(model, 3.0, dt=1e-3, **ACCURATE)
    assert r.diagnostics["n_mode_switches"] >= 4
    assert np.max(np.abs(r.energy_error)) < 1e-9
    # friction on the block can do positive work (the belt drags it); the pair's total
    # dissipation -F_f v_r is what must be >= 0 in every mode
    power = -r["F_f"] * r["v_r"]
    assert np.all(power >= -1e-9)
    assert r.diagnostics["work"]["W_damping"] < 0


def test_outputs_at_every_time_and_event_csv(tmp_path):
    r = nonsmooth.simulate(oscillator.build(), 1.2, dt=1e-3, **ACCURATE)
    assert set(np.unique(r["mode"])) == {0.0, -1.0}
    stuck = r["mode"] == 0
    np.testing.assert_allclose(r["v_r"][stuck], 0.0, atol=1e-10)
    np.testing.assert_allclose(r["lambda_N"], 9.81, rtol=1e-12)
    slipping = ~stuck
    np.testing.assert_allclose(r["F_f"][slipping], 0.3 * 9.81, rtol=1e-12)
    lines = r.events_to_csv(tmp_path / "ev.csv").read_text().splitlines()
    assert lines[1] == "0,contact,start,,stick"
    kinds = [line.split(",")[2:] for line in lines[2:]]
    assert ["reserve_zero", "stick", "slip-"] in kinds
    assert ["velocity_zero", "slip-", "stick"] in kinds


def test_cli_events_file_spells_modes(tmp_path, capsys):
    from nonsmooth.cli import main

    path = tmp_path / "ev.csv"
    assert main(["run", "stick_slip_oscillator", "--set", "v_belt=0.2", "--t-end", "1.5",
                 "--method", "DOP853", "--events", str(path)]) == 0
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    assert {row[3] for row in rows[1:]} | {row[4] for row in rows} <= {"stick", "slip+", "slip-"}
    assert any(row[2] == "reserve_zero" for row in rows)


def test_adaptive_run_does_not_step_over_a_short_slip():
    """A slip phase shorter than one adaptive step (small mu_s - mu_d, fast belt): the velocity
    event crosses zero twice within a step; the run must notice and resolve it."""
    p = {"m": 1.0, "k": 100.0, "mu_s": 0.32, "mu_d": 0.3, "v_belt": 0.316}
    T_stick, T_slip = belt_cycle(p["m"], p["k"], p["mu_s"], p["mu_d"], 9.81, p["v_belt"])
    r = nonsmooth.simulate(oscillator.build(x0=0.0, v0=p["v_belt"], **p), 2.0, dt=0.01,
                           method="DOP853", rtol=1e-10, atol=1e-12)
    breakaway = [e.t for e in r.events if e.kind == "reserve_zero"]
    restick = [e.t for e in r.events if e.kind == "velocity_zero"]
    assert len(breakaway) == 4 and len(restick) == 3
    np.testing.assert_allclose(np.diff(breakaway), T_stick + T_slip, rtol=1e-8)
    moving = r["mode"] != 0
    assert np.all(r["mode"][moving] * r["v_r"][moving] >= -1e-9)


def test_output_grid_never_passes_the_end_time():
    t_end = 7.5300592246145985
    r = nonsmooth.simulate(oscillator.build(), t_end, dt=t_end / 200, method="DOP853")
    assert r.t[-1] == t_end and len(r.t) == 201
