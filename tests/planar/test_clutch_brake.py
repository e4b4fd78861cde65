"""Modelica's Friction example (models/clutch_brake.py: a clutch, a spring and a brake, static
and sliding coefficients equal) against its independent solution."""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import clutch_brake


@pytest.fixture(scope="module")
def run():
    model = clutch_brake.build()
    return nonsmooth.simulate(model, 3.0, dt=1e-3, tstops=model.tstops)


def test_speeds_match_the_independent_solution(run):
    W = np.column_stack([run[f"w{k}"] for k in (1, 2, 3)])
    np.testing.assert_allclose(W, clutch_brake.reference(run.t), rtol=0, atol=1e-8)


def test_stick_slip_sequence(run):
    """With mu_s = mu a clutch whose torque reaches its bound slips at once (it does not stick
    again at the same instant: no chattering); the brake engages at 0.5 s and stops J1."""
    kinds = [(e.pair, e.kind, e.before, e.after) for e in run.events if e.kind != "start"]
    assert kinds == [
        ("clutch", "velocity_zero", "slip-", "stick"),
        ("clutch", "reserve_zero", "stick", "slip-"),
        ("clutch", "velocity_zero", "slip-", "stick"),
        ("brake", "normal_sign", "0", "+"),
        ("clutch", "reserve_zero", "stick", "slip-"),
        ("brake", "velocity_zero", "slip+", "stick"),
        ("clutch", "velocity_zero", "slip-", "stick"),
    ]
    held = run.t > [e.t for e in run.events if e.pair == "brake" and e.after == "stick"][0]
    np.testing.assert_allclose(run["w1"][held], 0.0, atol=1e-8)
    assert np.all(np.abs(run["tau_brake"]) <= 0.5 * run.lambda_N[:, 1] + 1e-9)
    assert np.all(np.abs(run["tau_clutch"]) <= 0.5 * 160.0 + 1e-9)


def test_energy_balance(run):
    assert np.max(np.abs(run.energy_error)) < 1e-7
