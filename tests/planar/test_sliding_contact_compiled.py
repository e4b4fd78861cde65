"""The sliding contact (a friction pair of dimension 2) in the compiled core: the compiled stage
against the Python general path at random states, and whole runs by the compiled DOP853 and
RK4 phases (checked to be taken, never declining) against the Python path (no plan: the Python
stage and the Python steppers, as before vector pairs were compiled)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_sliding_contact import ACCURATE, MU, MU_S, G, N, _mixed_system, _puck, _stops

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.run import phase
from nonsmooth.simulate import resolve_laws


# ------------------------------------------------------------------------------ one evaluation
@pytest.mark.parametrize("law", [None, "lugre", "regularized"])
def test_the_compiled_stage_is_the_python_one_on_random_states(law):
    """A vector pair (rows 0, 1) before a scalar brake (row 2) and a revolute bearing: every
    stick/slip pattern (Coulomb), or the smooth law on the vector, at random states and slip
    references; ``dv``, ``F_T``, ``lambda``, ``N`` of the compiled kernel equal the Python
    general path's to 1e-10 (relative to the field's largest entry where it exceeds 1)."""
    system = _mixed_system()
    dyn = Dynamics(system, laws=None if law is None else resolve_laws(system, law))
    assert dyn.plan is not None and dyn.vector and dyn.compiled_family() is not None
    rng = np.random.default_rng(3)
    patterns = [(2.0, 1.0), (0.0, 1.0), (2.0, 0.0), (0.0, 0.0), (2.0, -1.0)]
    worst = 0.0
    for trial in range(40):
        q, v = rng.normal(size=system.n_q), rng.normal(size=system.n_q)
        v_T = system.terms(0.0, q, v).W @ v
        e = v_T[:2] / np.linalg.norm(v_T[:2])
        dyn.e_ref[:2] = e if trial % 3 else -e  # continuation past a stop: e against v_T
        modes = np.array(patterns[trial % len(patterns)])
        z = rng.normal(scale=1e-4, size=dyn.n_z) if dyn.n_z else None
        faces = np.ones(len(system.abs_rows))
        compiled = dyn._evaluate_compiled(0.0, q, v, modes, faces, z)
        assert compiled is not None and type(compiled).__name__ == "_BufferEvaluation"
        python = dyn._evaluate_general(0.0, q, v, modes, faces, z)
        for name in ("dv", "F_T", "lam", "N", "v_T", "lambda_N", "powers", "dz"):
            a, b = getattr(compiled, name), getattr(python, name)
            assert a.shape == b.shape, name
            err = float(np.max(np.abs(a - b), initial=0.0))
            err /= max(1.0, float(np.max(np.abs(b), initial=0.0)))  # relative beyond 1
            worst = max(worst, err)
            assert err <= 1e-10, (name, err)
    print(f"worst relative difference ({law}): {worst:.2e}")


def test_a_given_normal_force_after_a_vector_pair_loads_its_own_pair():
    """A brake with ``N(t)`` after the sliding contact (its first row 2, its pair 1): the
    compiled kernel writes the given force into pair 1's preload, as the Python path does."""
    from nonsmooth.planar import Body, PlanarModel, ground
    from nonsmooth.planar.clutch import Brake
    from nonsmooth.planar.joints import Revolute
    from nonsmooth.planar.sliding_contact import SlidingContact

    mdl = PlanarModel("mixed, N(t)")
    puck = mdl.add(Body("puck", 2.0, 0.05))
    disc = mdl.add(Body("disc", 1.0, 0.5))
    mdl.add(SlidingContact("contact", puck, lambda t: 5.0 + t, MU, MU_S, point=(0.2, -0.1)))
    mdl.add(Revolute("bearing", ground, disc, (1.0, 0.0), (0.0, 0.0)))
    mdl.add(Brake("brake", disc, lambda t: 10.0 + 2.0 * t, mu=0.2, radius=0.1))
    system = mdl.compile()
    dyn = Dynamics(system)
    rng = np.random.default_rng(5)
    for t in (0.0, 0.7, 2.5):
        q, v = rng.normal(size=system.n_q), rng.normal(size=system.n_q)
        v_T = system.terms(t, q, v).W @ v
        dyn.e_ref[:2] = v_T[:2] / np.linalg.norm(v_T[:2])
        modes, faces = np.array([2.0, 1.0]), np.ones(len(system.abs_rows))
        compiled = dyn._evaluate_compiled(t, q, v, modes, faces)
        python = dyn._evaluate_general(t, q, v, modes, faces)
        np.testing.assert_allclose(compiled.N, [5.0 + t, 10.0 + 2.0 * t], rtol=1e-14)
        np.testing.assert_allclose(compiled.N, python.N, rtol=1e-14)
        np.testing.assert_allclose(compiled.F_T, python.F_T, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(compiled.dv, python.dv, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------ whole runs
def _python_path(monkeypatch):
    """Runs with no compiled plan for the vector model (the Python stage, scipy's DOP853 and
    the Python RK4: the path before vector pairs were compiled)."""
    monkeypatch.setattr(Dynamics, "_compile_plan", lambda self, tables, packed: None)


def _compiled_run(model, t_end, monkeypatch, **options):
    """The run by the compiled phases, each checked to be taken and never to decline."""
    fixed = options.get("method") in ("RK4", "Euler")
    name = "_compiled_fixed_phase" if fixed else "_compiled_phase"
    real = getattr(phase, name)
    outcomes = []

    def counted(*args, **kwargs):
        outcome = real(*args, **kwargs)
        outcomes.append(outcome[0])
        return outcome

    with monkeypatch.context() as m:
        m.setattr(phase, name, counted)
        result = nonsmooth.simulate(model, t_end, **options)
    assert outcomes, f"the compiled phase ({name}) was not taken"
    assert "declined" not in outcomes, outcomes
    return result


def _both(build, t_end, monkeypatch, **options):
    compiled = _compiled_run(build(), t_end, monkeypatch, **options)
    with monkeypatch.context() as m:
        _python_path(m)
        model = build()
        from nonsmooth.simulate import _Run

        assert not _Run(model.system, Dynamics(model.system), [], None).compiled
        python = nonsmooth.simulate(model, t_end, **options)
    return compiled, python


def _same(a, b, t_tol=1e-9, x_tol=1e-9, F_tol=1e-6):
    """The same events (kinds, pairs, modes; times to ``t_tol``), outputs ``q, v`` (to
    ``x_tol``) and friction forces (to ``F_tol``, N)."""
    ea = [(e.pair, e.kind, e.before, e.after) for e in a.events]
    eb = [(e.pair, e.kind, e.before, e.after) for e in b.events]
    assert ea == eb
    t_err = max([abs(x.t - y.t) for x, y in zip(a.events, b.events, strict=True)], default=0.0)
    assert t_err <= t_tol, t_err
    np.testing.assert_array_equal(a.t, b.t)
    x_err = float(np.max(np.abs(np.hstack((a.q, a.v)) - np.hstack((b.q, b.v)))))
    assert x_err <= x_tol, x_err
    F_err = float(np.max(np.abs(a.F_T - b.F_T)))
    assert F_err <= F_tol, F_err
    print(f"events {t_err:.1e} s, states {x_err:.1e}, F_T {F_err:.1e} N")
    return t_err, x_err


RK4 = {"method": "RK4", "dt": 1e-3}


@pytest.mark.parametrize("options", [ACCURATE, RK4], ids=["DOP853", "RK4"])
def test_a_slip_to_stop_runs_compiled_as_on_the_python_path(options, monkeypatch):
    v0 = (2.0, -1.5)
    t_stop = math.hypot(*v0) / (MU * G)
    a, b = _both(lambda: _puck(v0), t_stop + 0.3, monkeypatch,
                 **{"dt": 1e-2, **options})
    _same(a, b)
    assert abs(_stops(a)[0].t - t_stop) <= 1e-9


def test_a_held_puck_runs_compiled_without_creep(monkeypatch):
    """(A given force is a user function: the compiled DOP853 phase calls it back; the compiled
    RK4 phase takes models without user functions only.)"""
    options = ACCURATE
    F = 0.9 * MU_S * N
    a, b = _both(lambda: _puck(force=(0.6 * F, 0.8 * F)), 1.0, monkeypatch,
                 **{"dt": 1e-2, **options})
    _same(a, b, x_tol=1e-12)
    assert np.max(np.abs(a.q[:, :2] - a.q[0, :2])) <= 1e-12


def test_a_breakaway_runs_compiled_at_the_closed_form_time(monkeypatch):
    options = ACCURATE
    c = 5.0
    a, b = _both(lambda: _puck(force=lambda t, q, v: (c * t, 0.0)), 2.5, monkeypatch,
                 dt=1e-2, **options)
    _same(a, b)
    breaks = [e for e in a.events if e.kind == "reserve_zero"]
    assert len(breaks) == 1 and abs(breaks[0].t - MU_S * N / c) <= 1e-9


def test_an_off_centre_breakaway_and_a_curved_slip_run_compiled(monkeypatch):
    """The anisotropic breakaway (the transition's direction, then the stop and the second
    breakaway) and a curved slip whose direction turns by 90 degrees: the references ``e_ref``
    refreshed step by step in the compiled phase as on the Python path."""
    F = 1.5 * MU_S * N
    a, b = _both(lambda: _puck(force=(F / math.sqrt(2), F / math.sqrt(2)), point=(0.3, 0.1)),
                 0.5, monkeypatch, dt=1e-2, **ACCURATE)
    _same(a, b, t_tol=1e-9, x_tol=1e-8)
    a, b = _both(lambda: _puck((2.0, 0.0), (0.0, 0.5 * MU * N)), 1.5, monkeypatch, dt=1e-2,
                 **ACCURATE)
    _same(a, b)


@pytest.mark.parametrize("law, friction", [
    ("lugre", {"sigma0": 1e3, "sigma1": 2 * math.sqrt(1e3 * 2.0 / N), "sigma2": 0.1,
               "v_s": 1e-2}),
    ("regularized", {"falloff_vel": 1e-2}),
])
@pytest.mark.parametrize("options", [ACCURATE,
                                     {"method": "RK4", "dt": 2e-4}], ids=["DOP853", "RK4"])
def test_the_smooth_laws_on_the_vector_run_compiled(law, friction, options, monkeypatch):
    """A slip along a diagonal slowing to rest under LuGre's bristle vector or the
    regularized law (no modes, no events): the states, and the forces to 1e-5 N (LuGre's
    ``sigma0 z N`` amplifies the bristle states' integration differences)."""
    a, b = _both(lambda: _puck((2.0, 1.0), law=law, friction=friction, mu_s=MU),
                 1.2, monkeypatch, **{"dt": 1e-2, **options})
    _same(a, b, F_tol=1e-5)
    np.testing.assert_allclose(a.y, b.y, rtol=0, atol=1e-9)
    speed = np.hypot(a["contact.v_x"], a["contact.v_y"])
    assert speed[0] > 2.0 and speed[-1] < 1e-2  # it slowed down to (near) rest


@pytest.mark.parametrize("law", ["coulomb", "regularized"])
def test_the_per_step_kernel_takes_vector_pairs(law, monkeypatch):
    """With output times the fixed-step run takes one compiled call per step
    (``PlanarFamily.step``) for a model with a vector pair too: an off-centre, spinning puck
    that slips to a stop; the same steps, stop time and forces as the Python step."""
    import importlib

    from nonsmooth.planar import family as planar_family

    sim = importlib.import_module("nonsmooth.simulate")
    model = _puck((2.0, -1.5), point=(0.1, -0.05), w0=3.0, law=law)
    t_eval = np.linspace(0.0, 1.5, 28)  # between step ends (on them: the whole phase compiled)
    calls = []
    step = planar_family.PlanarFamily.step
    monkeypatch.setattr(planar_family.PlanarFamily, "step",
                        lambda self, *a: calls.append(1) or step(self, *a))
    compiled = nonsmooth.simulate(model, 1.5, method="RK4", dt=1e-3, t_eval=t_eval)
    assert len(calls) >= 1490
    monkeypatch.setattr(sim._FixedStepper, "_compiled_step", lambda self, t_next: False)
    python = nonsmooth.simulate(model, 1.5, method="RK4", dt=1e-3, t_eval=t_eval)
    assert [(e.kind, e.after) for e in compiled.events] == [
        (e.kind, e.after) for e in python.events]
    if law == "coulomb":
        assert [e.after for e in _stops(compiled)] == ["stick"]
    np.testing.assert_allclose([e.t for e in compiled.events], [e.t for e in python.events],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.q, python.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.F_T, python.F_T, rtol=0, atol=1e-9)
