"""The compiled DOP853 phase integrator (nonsmooth/dop853.py) against scipy's DOP853 path of the
same event loop: the same events and outputs, chunked calls, and the hand-over to scipy's
solver where the kernel stops short."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import BudgetError
from nonsmooth.models import block_chain, slider_crank, stick_slip_oscillator

simulate_module = importlib.import_module("nonsmooth.simulate")
phase_module = importlib.import_module("nonsmooth.run.phase")  # the compiled phases' runner

BELT = {"m": 1.5, "k": 4.0, "mu_s": 0.4, "mu_d": 0.25, "v_belt": 0.3}


@pytest.fixture
def python_path(monkeypatch):
    """Runs take scipy's DOP853 (the Python stepper) instead of the compiled phase."""
    init = simulate_module._Run.__init__

    def without_kernel(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.compiled = False

    def run(*args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(simulate_module._Run, "__init__", without_kernel)
            return nonsmooth.simulate(*args, **kwargs)

    return run


def test_tableau_is_scipys():
    from scipy.integrate._ivp import dop853_coefficients as reference

    from nonsmooth.planar.dop853 import coefficients

    for name, value in zip(("A", "B", "C", "E3", "E5", "D"), coefficients(), strict=True):
        np.testing.assert_array_equal(value, getattr(reference, name), err_msg=name)


def _events(result):
    return [(e.t, e.pair, e.kind, e.before, e.after) for e in result.events]


def _assert_same_run(a, b, t_tol, x_tol):
    ea, eb = _events(a), _events(b)
    assert [e[1:] for e in ea] == [e[1:] for e in eb]
    np.testing.assert_allclose([e[0] for e in ea], [e[0] for e in eb], rtol=0, atol=t_tol)
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_allclose(np.hstack((a.q, a.v)), np.hstack((b.q, b.v)), rtol=0,
                               atol=x_tol)


def test_belt_runs_compiled_as_scipy_does(python_path):
    model = stick_slip_oscillator.build(**BELT)
    compiled = nonsmooth.simulate(model, 40.0, dt=0.01)
    scipy_run = python_path(model, 40.0, dt=0.01)
    assert len(compiled.events) >= 12
    # the same method and step control: the two differ by round-off in the steps and the
    # root finder, amplified over 13 events (each is within 5e-9 s of the closed-form period)
    _assert_same_run(compiled, scipy_run, t_tol=5e-8, x_tol=1e-7)
    assert compiled.diagnostics["n_evaluations"] < 1.1 * scipy_run.diagnostics["n_evaluations"]


def test_chain_with_several_pairs_runs_compiled_as_scipy_does(python_path):
    model = block_chain.build(N=4, seed=2)
    options = {"dt": 0.01, "rtol": 1e-10, "atol": 1e-12}
    compiled = nonsmooth.simulate(model, 4.0, **options)
    scipy_run = python_path(model, 4.0, **options)
    assert {e.kind for e in compiled.events} >= {"velocity_zero", "reserve_zero"}
    _assert_same_run(compiled, scipy_run, t_tol=1e-7, x_tol=1e-6)


def test_slider_crank_face_changes_compiled_as_scipy(python_path):
    model = slider_crank.build()
    compiled = nonsmooth.simulate(model, 0.5, dt=1e-3)
    scipy_run = python_path(model, 0.5, dt=1e-3)
    assert any(e.kind == "normal_sign" for e in compiled.events)
    _assert_same_run(compiled, scipy_run, t_tol=1e-9, x_tol=1e-7)


def test_chunked_calls_give_the_same_run(monkeypatch):
    """Pausing every few evaluations and an output buffer of three rows (a step that covers
    more outputs is taken again in a larger buffer) change nothing."""
    model = stick_slip_oscillator.build(**BELT)
    whole = nonsmooth.simulate(model, 8.0, dt=0.01)
    monkeypatch.setattr(phase_module, "_PAUSE_AFTER", 40)
    monkeypatch.setattr(phase_module, "_OUTPUT_FLOATS", 3 * (2 * whole.q.shape[1] + 5))
    chunked = nonsmooth.simulate(model, 8.0, dt=0.01)
    assert _events(chunked) == _events(whole)
    np.testing.assert_array_equal(chunked.q, whole.q)
    np.testing.assert_array_equal(chunked.v, whole.v)


def test_budget_hands_over_and_keeps_the_partial_result():
    model = stick_slip_oscillator.build(**BELT)
    with pytest.raises(BudgetError) as caught:
        nonsmooth.simulate(model, 40.0, dt=0.01, max_evaluations=2000)
    partial = caught.value.result
    assert 0 < partial.t[-1] < 40.0
    assert partial.diagnostics["n_evaluations"] == 2000


@pytest.mark.parametrize("v_belt, gap, k, m", [(1.0, 0.01, 200.0, 1.0), (0.5, 0.002, 1000.0, 0.5),
                                               (2.0, 0.02, 50.0, 1.0)])
def test_a_stick_phase_inside_one_step_is_found(v_belt, gap, k, m):
    """Small mu_s - mu_d and a fast belt: the sliding velocity returns to zero almost
    tangentially and the stick phase lasts far less than a step (1e-5 .. 4e-3 s against steps
    of ~0.05 s), so both ends of the step are on the slipping side. The velocity is searched on
    the step's dense output; every restick and breakaway is at its closed-form time."""
    from stick_slip_closed_form import belt_cycle

    mu_d = 0.3
    mu_s = mu_d + gap
    T_stick, T_slip = belt_cycle(m, k, mu_s, mu_d, 9.81, v_belt)
    T = T_stick + T_slip
    t_first = mu_s * m * 9.81 / (k * v_belt)
    model = stick_slip_oscillator.build(m=m, k=k, mu_s=mu_s, mu_d=mu_d, v_belt=v_belt,
                                        x0=0.0, v0=v_belt)
    r = nonsmooth.simulate(model, t_first + 3.5 * T, dt=0.02)
    breakaway = [e.t for e in r.events if e.kind == "reserve_zero"]
    restick = [e.t for e in r.events if e.kind == "velocity_zero" and e.after == "stick"]
    assert len(breakaway) == 4 and len(restick) == 3
    np.testing.assert_allclose(breakaway, t_first + T * np.arange(4), rtol=0, atol=1e-8)
    np.testing.assert_allclose(restick, t_first + T_slip + T * np.arange(3), rtol=0, atol=1e-8)


def test_user_functions_are_called_back_from_the_compiled_phase(python_path):
    """A model with user functions (a drive torque, given normal forces) runs its DOP853 phases
    compiled, calling the functions back: the same events and speeds as scipy's path."""
    from nonsmooth.models import coupled_clutches

    model = coupled_clutches.build()
    compiled = nonsmooth.simulate(model, 1.5, dt=1e-3)
    scipy_run = python_path(model, 1.5, dt=1e-3)
    assert len(compiled.events) == len(scipy_run.events) >= 10
    _assert_same_run(compiled, scipy_run, t_tol=1e-9, x_tol=1e-8)


def test_an_exception_in_a_user_function_leaves_the_compiled_phase_with_the_partial_result():
    """The user's exception comes out of the kernel as itself; the outputs recorded before
    the chunk it happened in are kept."""
    mdl = nonsmooth.PlanarModel("failing drive")
    wheel = mdl.add(nonsmooth.Body("wheel", mass=1.0, inertia=1.0, angular_velocity=1.0))
    mdl.add(nonsmooth.Revolute("bearing", nonsmooth.ground, wheel, (0.0, 0.0)))

    def torque(t, q, v):
        if t > 3.0:
            raise RuntimeError("sensor offline")
        return 1.0

    mdl.add(nonsmooth.Torque("drive", wheel, torque))
    with pytest.raises(RuntimeError, match="sensor offline") as caught:
        nonsmooth.simulate(mdl, 5.0, dt=1e-3, method="DOP853")
    partial = caught.value.result
    assert 0 < partial.t[-1] <= 3.0
    np.testing.assert_allclose(partial["wheel.w"], 1.0 + partial.t, atol=1e-9)


def test_a_user_function_that_raises_is_named_at_the_time_it_raised():
    # the compiled phase calls the force back at its stages; the failure's time was the last
    # output row's (0.185 s here), not the call's (> 0.5 s)
    import nonsmooth as ns

    def push(t, q, v):
        if t > 0.5:
            raise RuntimeError("sensor offline")
        return (0.0, 1.0)

    mdl = ns.PlanarModel("raiser")
    b = mdl.add(ns.Body("block", mass=1.0, inertia=0.1, velocity=(1.0, 0.0)))
    mdl.add(ns.Translational("guide", ns.ground, b, axis=(-1.0, 0.0), mu=0.1))
    mdl.add(ns.Force("push", b, push))
    mdl.add(ns.Gravity(g=9.81))
    r = ns.simulate(mdl, 1.0, throw=False)
    assert r.status == -1 and "sensor offline" in r.message, r.message
    t_raised = float(r.message.split(" at t = ")[1].split()[0])
    assert 0.5 < t_raised < 1.0, r.message
    assert r.t[-1] <= t_raised
