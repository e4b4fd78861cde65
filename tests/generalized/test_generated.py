"""A GeneralizedSystem's compiled terms (``nonsmooth/generated.py``): the generated kernel
against the system's callables, a run with it against a run without, the checks of a compiled
function, and the on-disk cache (a new process loads the kernel)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.errors import ModelError
from nonsmooth.generalized.generated import CompiledTerms
from nonsmooth.models import _crank_rocker_terms, crank_rocker


def _without_compiled(model):
    """The same model evaluated by its callables (a copy of its system without compiled
    terms)."""
    import copy

    other = copy.copy(model)
    other.system = copy.copy(model.system)
    other.system.compiled = None
    return other


def test_generated_kernel_matches_the_callables():
    """Every output of an evaluation by the generated kernel equals the callables' evaluation
    (to 1e-13), slipping both ways, at random states (a sticking slot is redundant with the
    drive: both would fix theta2)."""
    model = crank_rocker.build(c=8.0)
    fast = Dynamics(model.system)
    slow = Dynamics(_without_compiled(model).system)
    assert fast._generated is not None and slow._generated is None
    rng = np.random.default_rng(2)
    for _ in range(10):
        t = float(rng.uniform(0, 3))
        q = np.array(model.q0) + rng.normal(0, 0.5, 2)
        v = rng.normal(0, 3, 2)
        model.system.check_compiled(t, q, v, rtol=1e-13)
        for mode in (1.0, -1.0):
            a = fast.evaluate(t, q, v, np.array([mode]), np.array([1.0]))
            b = slow.evaluate(t, q, v, np.array([mode]), np.array([1.0]))
            for name in ("dv", "lam", "lambda_N", "F_T", "N", "powers", "phi", "dphi"):
                np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-13,
                                           atol=1e-13, err_msg=name)
            np.testing.assert_array_equal(a.M, b.M)


@pytest.mark.parametrize("method, options", [
    ("RK4", {}), ("Euler", {"dt": 2e-4}), ("DOP853", {}),
    ("RK4", {"tstops": [0.7351, 1.5]}),  # phases ending at time stops: a shorter last step
])
def test_a_run_with_compiled_terms_is_the_run_with_callables(method, options, monkeypatch):
    """The crank-rocker's 0-2 s with its generated kernel (the fixed-step methods: whole phases
    in its compiled fixed-step phase) and with its callables (Python's steps): the same events,
    outputs equal to 1e-10."""
    phase = importlib.import_module("nonsmooth.run.phase")  # where the compiled phases record
    model = crank_rocker.build(c=8.0)
    calls = []
    record = phase._record_rows
    monkeypatch.setattr(phase, "_record_rows", lambda *a: calls.append(1) or record(*a))
    a = nonsmooth.simulate(model, 2.0, method=method, **options)
    assert bool(calls) == (method != "DOP853")  # the compiled fixed-step phase recorded rows
    b = nonsmooth.simulate(_without_compiled(model), 2.0, method=method, **options)
    assert [(e.kind, e.pair) for e in a.events] == [(e.kind, e.pair) for e in b.events]
    np.testing.assert_allclose([e.t for e in a.events], [e.t for e in b.events], atol=1e-10)
    for name in ("q", "v", "lambda_N", "F_T"):
        x, y = getattr(a, name), getattr(b, name)
        np.testing.assert_allclose(x, y, atol=1e-10 * max(1.0, float(np.max(np.abs(y)))),
                                   err_msg=name)


@njit(cache=False)
def _terms_with_a_wrong_jacobian(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias):
    powers = _crank_rocker_terms.terms(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias)
    G[0, 0] += 1e-6
    return powers


def test_compiled_terms_that_differ_from_the_callables_are_refused():
    model = crank_rocker.build(c=8.0)
    model.system.compiled = CompiledTerms(_terms_with_a_wrong_jacobian,
                                          model.system.compiled.parameters)
    with pytest.raises(ModelError, match=r"compiled terms _terms_with_a_wrong_jacobian: G "
                                         r"differs from the system's callables by 1e-06"):
        nonsmooth.simulate(model, 0.1)


@njit(cache=False)
def _potential_off_by_a_joule(t, q, par):
    return _crank_rocker_terms.potential(t, q, par) + 1.0


def test_a_compiled_potential_that_differs_is_refused():
    model = crank_rocker.build(c=8.0)
    c = model.system.compiled
    model.system.compiled = CompiledTerms(c.function, c.parameters, _potential_off_by_a_joule)
    with pytest.raises(ModelError, match=r"potential differs from the system's callables by 1"):
        nonsmooth.simulate(model, 0.1)


def test_compiled_terms_are_checked():
    def closure(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias):
        return 0.0, 0.0

    with pytest.raises(ModelError, match="is not a numba function"):
        CompiledTerms(closure, np.zeros(1))
    with pytest.raises(ModelError, match="top level of an imported module"):
        CompiledTerms(njit(closure), np.zeros(1))
    with pytest.raises(ModelError, match="finite numbers"):
        CompiledTerms(_crank_rocker_terms.terms, np.array([1.0, np.nan]))
    model = crank_rocker.build()
    with pytest.raises(ModelError, match="constant mass matrix"):
        nonsmooth.GeneralizedSystem(["x", "y"], lambda q: np.eye(2),
                                    compiled=model.system.compiled)


def test_a_new_process_loads_the_generated_kernel_from_the_cache():
    """The generated module and numba's cache of it are on disk: a second process compiles
    nothing."""
    code = ("from nonsmooth.models import crank_rocker\n"
            "from nonsmooth.dynamics import Dynamics\n"
            "d = Dynamics(crank_rocker.build().system)\n"
            "print(len(d._generated[0].stats.cache_misses))")
    for _ in range(2):  # the first may compile (a fresh machine), the second must not
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
    assert out.stdout.strip() == "0", out.stderr


def test_the_compiled_fixed_step_phase_stops_at_the_budget_like_the_python_steps():
    """An evaluation budget that ends the run inside a compiled phase: the same named
    BudgetError and the same partial rows as with the callables (Python's steps)."""
    model = crank_rocker.build(c=8.0)
    runs = [nonsmooth.simulate(m, 2.0, method="RK4", max_evaluations=3000, throw=False)
            for m in (model, _without_compiled(model))]
    assert runs[0].status == runs[1].status == -1
    assert "budget of 3,000 evaluations" in runs[0].message
    assert runs[0].message == runs[1].message
    np.testing.assert_array_equal(runs[0].t, runs[1].t)
    np.testing.assert_allclose(runs[0].q, runs[1].q, atol=1e-12)


def _generated_module(model):
    return Dynamics(model.system)._generated_module


def test_the_default_dop853_run_takes_the_generated_phase_as_scipy_would(monkeypatch):
    """The crank-rocker's 0-5 s under the default DOP853: whole phases in the generated
    module's compiled DOP853 phase (``core.phases.dop853``), the same run as scipy's DOP853
    one step at a time on the same compiled evaluation: the same events (9, 4 mode
    switches), the same output times, states equal to round-off amplified over the events."""
    sim = importlib.import_module("nonsmooth.simulate")
    model = crank_rocker.build(c=8.0)
    module = _generated_module(model)
    calls = []
    phase = module.dop853_phase
    monkeypatch.setattr(module, "dop853_phase", lambda *a: calls.append(1) or phase(*a))
    compiled = nonsmooth.simulate(model, 5.0)
    assert calls
    init = sim._Run.__init__

    def without_kernel(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.compiled = False

    calls.clear()
    with monkeypatch.context() as m:
        m.setattr(sim._Run, "__init__", without_kernel)
        scipy_run = nonsmooth.simulate(model, 5.0)
    assert not calls
    assert len(compiled.events) >= 9
    assert [(e.kind, e.pair, e.before, e.after) for e in compiled.events] == [
        (e.kind, e.pair, e.before, e.after) for e in scipy_run.events]
    np.testing.assert_allclose([e.t for e in compiled.events], [e.t for e in scipy_run.events],
                               rtol=0, atol=1e-9)
    np.testing.assert_array_equal(compiled.t, scipy_run.t)
    np.testing.assert_allclose(np.hstack((compiled.q, compiled.v)),
                               np.hstack((scipy_run.q, scipy_run.v)), rtol=0, atol=1e-7)
    n_c, n_s = (r.diagnostics["n_evaluations"] for r in (compiled, scipy_run))
    assert n_c < 1.1 * n_s


def test_the_generated_dop853_phase_in_chunks_gives_the_same_run(monkeypatch):
    """Pausing every few evaluations and an output buffer of three rows change nothing."""
    phase = importlib.import_module("nonsmooth.run.phase")
    model = crank_rocker.build(c=8.0)
    whole = nonsmooth.simulate(model, 1.0)
    monkeypatch.setattr(phase, "_PAUSE_AFTER", 40)
    monkeypatch.setattr(phase, "_OUTPUT_FLOATS", 3 * (2 * whole.q.shape[1] + 5))
    chunked = nonsmooth.simulate(model, 1.0)
    assert [(e.t, e.kind, e.pair) for e in chunked.events] == [
        (e.t, e.kind, e.pair) for e in whole.events]
    np.testing.assert_array_equal(chunked.q, whole.q)
    np.testing.assert_array_equal(chunked.v, whole.v)


def test_the_generated_dop853_phase_stops_at_the_budget_and_keeps_the_partial_result():
    """A budget that ends the run inside a compiled DOP853 phase: scipy's solver takes over
    and names it; the evaluations counted are exactly the budget, the rows before it kept."""
    model = crank_rocker.build(c=8.0)
    run = nonsmooth.simulate(model, 5.0, max_evaluations=2000, throw=False)
    assert run.status == -1 and "budget of 2,000 evaluations" in run.message
    assert run.diagnostics["n_evaluations"] == 2000
    assert 0 < run.t[-1] < 5.0
    full = nonsmooth.simulate(model, 5.0)  # the same rows (scipy's steps after the hand-over)
    np.testing.assert_allclose(run.q, full.q[:run.q.shape[0]], rtol=0, atol=1e-7)
