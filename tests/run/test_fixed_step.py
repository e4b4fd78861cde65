"""The compiled fixed-step phase (``nonsmooth/fixed_step.py``) of planar models against the
per-step path it replaces (a compiled step per Python step, ``_FixedStepper``): the same events
and the same outputs, with events, stick-slip, time stops and the evaluation budget."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import crank_rocker, slider_crank
from nonsmooth.models import stick_slip_oscillator as belt

phase = importlib.import_module("nonsmooth.run.phase")  # where a phase's runners are chosen

CASES = {
    "crank-rocker planar, RK4": (lambda: crank_rocker.build(form="planar", c=8.0), 2.0,
                                 {"method": "RK4", "dt": 1e-3}),
    "belt stick-slip, RK4": (lambda: belt.build(), 12.0, {"method": "RK4", "dt": 1e-3}),
    "belt stick-slip, Euler, time stops": (lambda: belt.build(), 6.0,
                                           {"method": "Euler", "dt": 1e-4,
                                            "tstops": [1.2345, 4.0]}),
    "slider-crank, RK4": (lambda: slider_crank.build(), 0.3, {"method": "RK4", "dt": 1e-4}),
}


def _both(build, t_end, options, monkeypatch, **extra):
    """The run by the compiled phase (checked to be taken) and by the per-step path."""
    model = build()
    calls = []
    compiled = phase._compiled_fixed_phase
    monkeypatch.setattr(phase, "_compiled_fixed_phase",
                        lambda *a, **k: calls.append(1) or compiled(*a, **k))
    a = nonsmooth.simulate(model, t_end, throw=False, **options, **extra)
    assert calls, "the compiled fixed-step phase was not taken"
    monkeypatch.setattr(phase, "_fixed_compiled", lambda *a: False)
    b = nonsmooth.simulate(model, t_end, throw=False, **options, **extra)
    return a, b


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_phase_is_the_per_step_path(name, monkeypatch):
    build, t_end, options = CASES[name]
    a, b = _both(build, t_end, options, monkeypatch)
    assert a.status == b.status == 0, (a.message, b.message)
    assert [(e.kind, e.pair) for e in a.events] == [(e.kind, e.pair) for e in b.events]
    assert len(a.events) > 2  # events happened
    np.testing.assert_allclose([e.t for e in a.events], [e.t for e in b.events], atol=1e-12)
    np.testing.assert_array_equal(a.t, b.t)
    for field in ("q", "v", "lambda_N", "F_T", "N"):
        x, y = getattr(a, field), getattr(b, field)
        np.testing.assert_allclose(x, y, atol=1e-11 * max(1.0, float(np.max(np.abs(y)))),
                                   err_msg=field)
    np.testing.assert_allclose(a.energy_error, b.energy_error, atol=1e-9)


def test_compiled_phase_stops_at_the_budget_like_the_per_step_path(monkeypatch):
    """The budget ends both runs with the named error and their rows so far; the compiled
    phase gets a few steps further (scipy's brentq, on the per-step path, evaluates a root's
    bracket ends again: two evaluations per event), its rows otherwise the same."""
    a, b = _both(lambda: belt.build(), 12.0, {"method": "RK4", "dt": 1e-3}, monkeypatch,
                 max_evaluations=9000)
    assert a.status == b.status == -1
    assert "budget of 9,000 evaluations" in a.message and "budget of 9,000" in b.message
    k = len(b.t)
    assert k <= len(a.t) <= k + 10
    np.testing.assert_array_equal(a.t[:k], b.t)
    np.testing.assert_allclose(a.q[:k], b.q, atol=1e-12)


@pytest.mark.parametrize("t_eval, compiled", [
    (0.01 * np.arange(101), True),  # on the step ends (to round-off): the compiled phase
    (np.linspace(0.0, 1.0, 37), False),  # between them: the steps' interpolant
], ids=["on the steps", "between the steps"])
def test_t_eval_on_the_step_ends_takes_the_compiled_phase(t_eval, compiled, monkeypatch):
    """``t_eval`` whose times are step ends is recorded at the step ends by the compiled
    phase: exactly ``t_eval``'s times, the per-step path's states and multipliers; other
    ``t_eval`` keeps the per-step path (the interpolant). The belt sticks and slips: the
    phases after its events go on on the step grid."""
    model = belt.build()
    options = {"method": "RK4", "dt": 2e-3, "t_eval": t_eval}
    calls = []
    run_compiled = phase._compiled_fixed_phase
    monkeypatch.setattr(phase, "_compiled_fixed_phase",
                        lambda *a, **k: calls.append(1) or run_compiled(*a, **k))
    a = nonsmooth.simulate(model, 1.0, **options)
    assert bool(calls) == compiled
    monkeypatch.setattr(phase, "_fixed_compiled", lambda *a: False)
    b = nonsmooth.simulate(model, 1.0, **options)
    np.testing.assert_array_equal(a.t, t_eval)
    np.testing.assert_array_equal(b.t, t_eval)
    np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.lambda_N, b.lambda_N, rtol=0, atol=1e-10)
