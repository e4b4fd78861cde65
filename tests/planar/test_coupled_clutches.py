"""Modelica's CoupledClutches (models/coupled_clutches.py) against its independent solution:
the angular velocities to 1e-8 rad/s and every stick/slip event at its time."""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import coupled_clutches as cc


@pytest.fixture(scope="module")
def runs():
    model = cc.build()
    result = nonsmooth.simulate(model, 1.5, dt=1e-3, tstops=model.tstops)
    return model, result, cc.reference()


def test_speeds_match_the_independent_solution(runs):
    _, r, phases = runs
    W = np.column_stack([r[f"w{k}"] for k in range(1, 5)])
    np.testing.assert_allclose(W, cc.speeds(phases, r.t), rtol=0, atol=1e-8)
    assert r.t[-1] == 1.5 and len(r.t) == 1501


def test_events_are_the_independent_solutions_mode_changes(runs):
    """Each phase boundary of the independent solution where a clutch's mode changes is an
    engine event of that clutch at the same time, and the modes in between agree."""
    _, r, phases = runs
    names = {f"clutch{k + 1}": k for k in range(3)}
    engine = sorted((e.t, names[e.pair], e.after) for e in r.events
                    if e.kind in ("velocity_zero", "reserve_zero"))
    expected = []
    for before, after in zip(phases, phases[1:], strict=False):
        for k in range(3):
            if before.modes[k] != after.modes[k] and after.t0 not in (0.4, 0.9):
                expected.append((after.t0, k, {0: "stick", 1: "slip+", -1: "slip-"}[
                    after.modes[k]]))
    assert [e[1:] for e in engine if e[0] not in (0.4, 0.9)] == [e[1:] for e in expected]
    np.testing.assert_allclose([e[0] for e in engine if e[0] not in (0.4, 0.9)],
                               [e[0] for e in expected], rtol=0, atol=1e-9)
    # the modes of every output row agree with the phase it lies in (away from the events)
    for ph in phases:
        inside = (r.t > ph.t0 + 1e-6) & (r.t < ph.t1 - 1e-6)
        for k in range(3):
            np.testing.assert_array_equal(r[f"mode{k + 1}"][inside], ph.modes[k])


def test_clutch_outputs_obey_coulomb(runs):
    """Slipping: |tau| = mu fn; sticking: |tau| <= mu_s fn; open (fn = 0): no torque."""
    model, r, _ = runs
    mu, mu_s = model.parameters["mu"], model.parameters["mu"] * model.parameters["peak"]
    for k in range(1, 4):
        tau, fn, mode = r[f"tau{k}"], r[f"fn{k}"], r[f"mode{k}"]
        assert np.all(fn >= 0)
        slip = mode != 0
        np.testing.assert_allclose(np.abs(tau[slip]), mu * fn[slip], rtol=1e-12, atol=1e-12)
        assert np.all(np.abs(tau[~slip]) <= mu_s * fn[~slip] + 1e-9)
    # clutch 1 opens when its normal force 20 sin(2 pi 0.2 t + 1.57) turns negative
    t_open = (np.pi - 1.57) / (2 * np.pi * 0.2)
    opened = [e.t for e in r.events if e.pair == "clutch1" and e.kind == "normal_sign"]
    assert opened == [pytest.approx(t_open, abs=1e-12)]
    np.testing.assert_array_equal(r["fn1"][r.t > t_open], 0.0)


def test_energy_balance(runs):
    _, r, _ = runs
    assert np.max(np.abs(r.energy_error)) < 1e-8


def test_command_line_uses_the_models_tstops(capsys, tmp_path):
    """``nonsmooth run coupled_clutches`` (no --tstops): the model's own steps at 0.4 and 0.9 s
    end phases exactly, so the run reproduces the independent solution."""
    from nonsmooth.cli import main

    out = tmp_path / "cc.csv"
    assert main(["run", "coupled_clutches", "--dt", "0.01", "--out", str(out)]) == 0
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    header = out.read_text().splitlines()[0].split(",")
    W = data[:, [header.index(f"w{k}") for k in range(1, 5)]]
    np.testing.assert_allclose(W, cc.speeds(cc.reference(), data[:, 0]), rtol=0, atol=1e-8)
