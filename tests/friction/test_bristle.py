"""The seven-parameter bristle law with dwell-time stiction (``nonsmooth.friction.Bristle``,
``docs/method.md`` section 4.4) against the properties its specification lists.

Every reference is computed here: the law written out in this file (:func:`bristle_force`,
:func:`bristle_rates`), integrated by scipy for a single mass on a belt and for a puck with
2-D slip, and the closed forms of presliding and dwell. Each test names the mistake it would
catch (a constant, not load-proportional, stiffness; a dwell state that does not saturate or
decay; the viscous term outside the blend; the damping sign ...).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.friction import LAWS, Bristle, LuGre
from nonsmooth.model import Model
from nonsmooth.models import stick_slip_oscillator as oscillator
from nonsmooth.planar import PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Force, Gravity, Spring
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.planar.sliding_contact import SlidingContact
from nonsmooth.simulate import resolve_laws

G = 9.81
#: A law with a presliding range of 5e-5 m at mu_s, moderately damped bristles
#: (sigma1 v_s = 0.03 < sqrt(2 e) mu_d = 0.7), a visible viscous term and a short dwell time.
LAW = {"mu_d": 0.3, "mu_s": 0.5, "mu_v": 0.2, "v_s": 1e-3, "sigma0": 1e4, "sigma1": 30.0,
       "tau_dw": 0.05}
STIFF = {"method": "Radau", "rtol": 1e-10, "atol": 1e-12}


# ----------------------------------------------------------------------------- the law here
def bristle_rates(v, z, w, p):
    """``(dz/dt, dw/dt)`` of the specification, for a scalar or vector slip ``v`` and bristle
    ``z`` (numpy arrays or floats), written out independently of the engine."""
    speed = float(np.linalg.norm(np.atleast_1d(v)))
    beta = math.exp(-((speed / p["v_s"]) ** 2))
    mu_st = p["mu_d"] + (p["mu_s"] - p["mu_d"]) * w
    return v - p["sigma0"] * speed * z / mu_st, (beta - w) / p["tau_dw"]


def bristle_force(v, z, w, N, p):
    """The friction force on the slip (opposing it: the engine's ``F_T``) of the
    specification: ``beta F_stick + (1 - beta) F_slide``."""
    speed = float(np.linalg.norm(np.atleast_1d(v)))
    beta = math.exp(-((speed / p["v_s"]) ** 2))
    dz, _ = bristle_rates(v, z, w, p)
    F_stick = -N * (p["sigma0"] * z + p["sigma1"] * dz)
    F_slide = -N * p["mu_d"] * v / max(speed, 1e-6 * p["v_s"]) - p["mu_v"] * v
    return beta * F_stick + (1.0 - beta) * F_slide


def quiet(*args, **kwargs):
    """simulate() with the parameter notes silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return nonsmooth.simulate(*args, **kwargs)


def smoothstep(t, t0, T):
    s = min(max((t - t0) / T, 0.0), 1.0)
    return s * s * (3.0 - 2.0 * s)


# ----------------------------------------------------------------------------- rigs
def block(params, *, m=1.0, v0=0.0, push=None, lift=None, press=0.0, x0=0.0, k=0.0,
          name="block"):
    """A point mass in a horizontal slot of the ground under gravity, the bristle law on the
    slot; ``push(t)`` a horizontal force (N), ``lift(t)`` an upward force (N) that lowers the
    normal load, ``press`` a constant downward force (N), ``k`` a spring to x = 0 (N/m)."""
    p = dict(params)
    mdl = PlanarModel(name)
    mass = mdl.add(PointMass("mass", m, position=(x0, 0.0), velocity=(v0, 0.0)))
    mdl.add(Translational("slot", ground, mass, (0.0, 0.0), (1.0, 0.0), mu=p.pop("mu_d"),
                          mu_s=p.pop("mu_s"), normal="left", law="bristle", friction=p))
    mdl.add(Gravity(g=G))
    if push is not None or lift is not None or press:
        def force(t, q, v):
            return ((push(t) if push else 0.0),
                    (lift(t) if lift else 0.0) - press)

        mdl.add(Force("load", mass, force))
    if k:
        mdl.add(Spring("spring", ground, (-1.0, 0.0), mass, (0.0, 0.0), k, 1.0))
    return mdl


def driven(params, velocity, dvelocity, position):
    """The slot's slip prescribed by a driver: ``position(t)`` with its derivatives."""
    p = dict(params)
    mdl = PlanarModel("driven")
    mass = mdl.add(PointMass("mass", 1.0, velocity=(velocity(0.0), 0.0)))
    slot = mdl.add(Translational("slot", ground, mass, (0.0, 0.0), (1.0, 0.0), mu=p.pop("mu_d"),
                                 mu_s=p.pop("mu_s"), normal="left", law="bristle", friction=p))
    mdl.add(Driver("drive", slot, motion=(position, velocity, dvelocity)))
    mdl.add(Gravity(g=G))
    return mdl


def ramp_to(v, T):
    """A smoothstep velocity ramp from rest to ``v`` over ``T``: (velocity, its rate,
    position)."""
    def vel(t):
        return v * smoothstep(t, 0.0, T)

    def acc(t):
        if t <= 0 or t >= T:
            return 0.0
        s = t / T
        return v * 6.0 * s * (1.0 - s) / T

    def pos(t):
        if t <= 0:
            return 0.0
        if t >= T:
            return v * T / 2 + v * (t - T)
        s = t / T
        return v * T * (s ** 3 - 0.5 * s ** 4)

    return vel, acc, pos


# ============================================================================ 1. the arithmetic
def test_the_law_is_the_specification_on_random_states():
    """``Bristle.coefficients`` / ``state_derivative`` (scalar) and ``vector_coefficients``
    (d = 2, 3) give ``F_T = -a N - b`` and the rates of the equations written out here, across
    rest, the blend and sliding, stuck and matured dwell states."""
    law = Bristle(**LAW)
    rng = np.random.default_rng(11)
    for _ in range(300):
        v = float(rng.choice([0.0, 1.0]) * rng.normal() * 10 ** rng.uniform(-5, 0))
        z = float(rng.normal() * 6e-5)
        w = float(rng.uniform(0, 1))
        N = float(rng.uniform(0.1, 100))
        a, b = law.coefficients(v, (z, w))
        ref = bristle_force(v, z, w, N, LAW)
        assert -a * N - b == pytest.approx(ref, rel=1e-12, abs=1e-13 * N)
        dz, dw = law.state_derivative(v, (z, w))
        dz_ref, dw_ref = bristle_rates(v, z, w, LAW)
        assert (dz, dw) == (pytest.approx(dz_ref, rel=1e-13, abs=1e-18),
                            pytest.approx(dw_ref, rel=1e-13, abs=1e-15))
    for d in (2, 3):
        for _ in range(100):
            v = rng.normal(size=d) * 10 ** rng.uniform(-5, 0)
            z, w = rng.normal(size=d) * 3e-5, float(rng.uniform(0, 1))
            a, b, rates = law.vector_coefficients(v, np.append(z, w))
            np.testing.assert_allclose(-a * 7.0 - b, bristle_force(v, z, w, 7.0, LAW),
                                       rtol=1e-12, atol=1e-12)
            dz_ref, dw_ref = bristle_rates(v, z, w, LAW)
            np.testing.assert_allclose(rates, np.append(dz_ref, dw_ref), rtol=1e-12,
                                       atol=1e-16)


def test_the_compiled_law_gives_the_python_numbers():
    """``core.stage._bristle_law`` (the compiled stage's arithmetic, d = 1, 2, 3, reached
    through ``_vector_law``'s ``BRISTLE`` kind) against ``Bristle``'s Python arithmetic:
    the same operations, so equal to round-off (1e-15 relative); and over a contact patch
    (the plan's ``PATCH_SLOT`` a pressure code, d = 3: the Contensou-scaled bristles)."""
    from nonsmooth.core import layout, stage

    law = Bristle(**LAW)
    kind, numbers = law.pack()
    assert kind == stage.BRISTLE
    rng = np.random.default_rng(2)
    worst = 0.0
    for d, patch in ((1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)):
        par = np.zeros(layout.N_LAW)  # (a pair's law numbers in the plan, its patch code last)
        par[:len(numbers)] = numbers
        par[layout.PATCH_SLOT] = patch
        for _ in range(200):
            v = rng.normal(size=d) * 10 ** rng.uniform(-6, 0) * rng.choice([0.0, 1.0, 1.0])
            zs = np.append(rng.normal(size=d) * 5e-5, rng.uniform(0, 1))
            z = np.concatenate((rng.normal(size=3), zs))  # the pair's states start at 3
            a, b, dz = np.zeros(d), np.zeros(d), np.full(z.size, np.nan)
            stage._vector_law(kind, par, v, z, 3, a, b, dz)
            if d == 1:
                ra, rb = law.coefficients(float(v[0]), zs)
                rates = np.array(law.state_derivative(float(v[0]), zs))
                ra, rb = np.array([ra]), np.array([rb])
            else:
                ra, rb, rates = law.vector_coefficients(v, zs, patch)
            for got, ref in ((a, ra), (b, rb), (dz[3:], rates)):
                scale = max(1e-300, float(np.max(np.abs(ref))))
                worst = max(worst, float(np.max(np.abs(got - ref))) / scale)
            assert np.all(np.isnan(dz[:3]))  # other pairs' states untouched
    print(f"\ncompiled vs Python law: worst relative difference {worst:.1e}")
    assert worst <= 1e-15


def test_the_compiled_stage_is_the_python_stage_on_random_states():
    """One evaluation of the belt oscillator (scalar pair: states z, w) and of a puck (a 2-D
    sliding contact: z_x, z_y, w) with a scalar bristle brake beside it: ``dv, F_T, lambda, N,
    dz`` of the compiled stage equal the Python general path's to 1e-12."""
    from test_sliding_contact import _mixed_system

    from nonsmooth.dynamics import Dynamics

    cases = [(oscillator.build(friction="bristle", **LAW).system, "oscillator"),
             (_mixed_system(), "mixed")]
    rng = np.random.default_rng(4)
    worst = 0.0
    for system, name in cases:
        dyn = Dynamics(system, laws=resolve_laws(system, Bristle(**LAW)))
        assert dyn.plan is not None
        assert dyn.n_z == sum(int(d) + 1 for d in system.pair_dim)  # d + 1 states per pair
        for _ in range(30):
            q, v = rng.normal(size=system.n_q), rng.normal(size=system.n_q) * 10 ** rng.uniform(
                -4, 0)
            z = rng.normal(scale=5e-5, size=dyn.n_z)
            for sl in dyn.z_slices:  # the dwell state, last of each pair's states
                z[sl.stop - 1] = rng.uniform(0, 1)
            modes = np.ones(system.n_pairs)
            faces = np.ones(len(system.abs_rows))
            try:
                python = dyn._evaluate_general(0.0, q, v, modes, faces, z)
            except nonsmooth.NonsmoothError:
                continue
            compiled = dyn._evaluate_compiled(0.0, q, v, modes, faces, z)
            assert compiled is not None
            for field in ("dv", "F_T", "lam", "N", "dz", "powers"):
                a, b = getattr(compiled, field), getattr(python, field)
                err = float(np.max(np.abs(a - b), initial=0.0)) / max(
                    1.0, float(np.max(np.abs(b), initial=0.0)))
                worst = max(worst, err)
                assert err <= 1e-12, (name, field, err)
    print(f"\ncompiled vs Python stage: worst relative difference {worst:.1e}")


def test_a_run_by_the_compiled_stage_is_the_python_run(monkeypatch):
    """The belt oscillator under the bristle law over 1 s (stick, breakaway, slip, re-stick):
    the compiled stage and the Python general path give the same run: with RK4 (the same
    steps) to 1e-12 in every state, with Radau (its own step choices from each path's numbers)
    to its tolerance."""
    from nonsmooth.dynamics import Dynamics

    def both(**options):
        compiled = nonsmooth.simulate(oscillator.build(friction="bristle", **LAW), 1.0,
                                      **options)
        with monkeypatch.context() as m:
            m.setattr(Dynamics, "_compile_plan", lambda self, tables, packed: None)
            python = nonsmooth.simulate(oscillator.build(friction="bristle", **LAW), 1.0,
                                        **options)
        np.testing.assert_array_equal(compiled.t, python.t)
        return compiled, python

    a, b = both(method="RK4", dt=2e-4)
    err = np.max(np.abs(a.y - b.y), axis=1)
    F_err = float(np.max(np.abs(a.F_T - b.F_T)))
    print(f"\ncompiled vs Python run (RK4): states {err.max():.1e} (z {err[-2]:.1e} m, w "
          f"{err[-1]:.1e}), F_T {F_err:.1e} N")
    assert err.max() <= 1e-12 and err[-2] <= 1e-16 and F_err <= 1e-11
    assert np.ptp(a["v_r"]) > 0.1  # it did slip, and stick
    assert np.mean(np.abs(a["v_r"]) < 1e-3) > 0.2
    a, b = both(rtol=1e-9, atol=1e-12)
    assert a.method == "Radau"
    # each path's Radau picks its own steps from its own rounding, so the two runs differ by
    # up to their global errors, not by rounding: measured against rtol 1e-12, the dwell state
    # (order 1) is off by 1e-8 to 4e-8 at rtol 1e-9 on either path, in either direction (it
    # depends on the CPU: 78 x rtol apart on an AMD EPYC); a wrong term in either path is 1e-4
    scale = 1e-9 * np.maximum(1.0, np.max(np.abs(b.y), axis=1))
    err = float(np.max(np.max(np.abs(a.y - b.y), axis=1) / scale))
    print(f"compiled vs Python run (Radau, rtol 1e-9): states {err:.1f} x rtol")
    assert err <= 1000.0


# ============================================================================ 2. independent
def test_the_belt_oscillator_follows_the_law_integrated_by_scipy():
    """The block on the belt (m = 1 kg, k = 100 N/m, v_belt = 0.1 m/s) integrated here by
    scipy's Radau with the law written out in this file: position, velocity, friction force,
    bristle and dwell state of the engine's run agree over three stick-slip cycles."""
    p, m, k, v_belt, N = LAW, 1.0, 100.0, 0.1, G
    t_end = 3.0

    def rhs(t, y):
        x, v, z, w = y
        vr = v - v_belt
        F = bristle_force(vr, z, w, N, p)
        dz, dw = bristle_rates(vr, z, w, p)
        return [v, (-k * x + F) / m, dz, dw]

    t = np.linspace(0.0, t_end, 601)
    ref = solve_ivp(rhs, (0.0, t_end), [0.0, v_belt, 0.0, 1.0], method="Radau", rtol=1e-11,
                    atol=[1e-13, 1e-12, 1e-15, 1e-12], t_eval=t, dense_output=False)
    assert ref.success
    r = nonsmooth.simulate(oscillator.build(friction="bristle", m=m, k=k, v_belt=v_belt,
                                            v0=v_belt, **p), t_end, t_eval=t, **STIFF)
    F_ref = np.array([bristle_force(v - v_belt, z, w, N, p) for v, z, w in ref.y[1:].T])
    errs = {"x": np.max(np.abs(r["x"] - ref.y[0])), "v": np.max(np.abs(r["v"] - ref.y[1])),
            "z": np.max(np.abs(r.z[:, 0] - ref.y[2])), "w": np.max(np.abs(r.z[:, 1] - ref.y[3])),
            "F": np.max(np.abs(r["F_f"] - F_ref))}
    print("\nengine vs scipy: " + ", ".join(f"{k} {v:.1e}" for k, v in errs.items()))
    assert errs["x"] <= 1e-7 and errs["v"] <= 1e-6 and errs["z"] <= 1e-9
    assert errs["w"] <= 1e-6 and errs["F"] <= 1e-4
    # three stick-slip cycles: the dwell state falls while it slips and matures while it sticks
    assert r.z[:, 1].min() < 0.2 and r.z[:, 1].max() > 0.9
    assert len(np.flatnonzero(np.diff(np.sign(r["v_r"] + 0.05)) != 0)) >= 6


def test_a_2d_slip_follows_the_vector_law_integrated_by_scipy():
    """A puck (0.5 kg, N = 4.9 N given) on a table with the 2-D bristle law: launched along
    (0.3, -0.2) m/s under a constant sideways push of 0.7 mu_d N, it curves, stops and is held
    by the bristle vector (presliding along the push). The engine's positions, velocities,
    bristle vector and dwell state against scipy's Radau on the law written out here."""
    m, N, p = 0.5, 0.5 * G, LAW
    push = np.array([0.0, 0.7 * p["mu_d"] * N])
    q0, t_end = np.array([0.3, -0.2]), 0.6
    law_params = {k: v for k, v in p.items() if k not in ("mu_d", "mu_s")}
    mdl = PlanarModel("puck")
    puck = mdl.add(PointMass("puck", m, velocity=tuple(q0)))
    mdl.add(SlidingContact("contact", puck, N, p["mu_d"], p["mu_s"], law="bristle",
                           friction=law_params))
    mdl.add(Force("push", puck, tuple(push)))
    model = Model(mdl.compile(), *mdl.initial_state(), name="puck")
    t = np.linspace(0.0, t_end, 301)
    r = nonsmooth.simulate(model, t_end, t_eval=t, **STIFF)
    assert r.z.shape == (t.size, 3)  # z_x, z_y, w

    def rhs(tt, y):
        v, z, w = y[2:4], y[4:6], y[6]
        dz, dw = bristle_rates(v, z, w, p)
        return np.concatenate((v, (push + bristle_force(v, z, w, N, p)) / m, dz, [dw]))

    speed = float(np.linalg.norm(q0))
    w0 = math.exp(-((speed / p["v_s"]) ** 2))
    z0 = (p["mu_d"] + (p["mu_s"] - p["mu_d"]) * w0) * q0 / speed / p["sigma0"]  # steady
    y0 = np.concatenate(([0.0, 0.0], q0, z0, [w0]))
    ref = solve_ivp(rhs, (0.0, t_end), y0, method="Radau", rtol=1e-11,
                    atol=[1e-13] * 2 + [1e-12] * 2 + [1e-15] * 2 + [1e-12], t_eval=t)
    assert ref.success
    np.testing.assert_allclose(r.q, ref.y[:2].T, rtol=0, atol=1e-8)
    np.testing.assert_allclose(r.v, ref.y[2:4].T, rtol=0, atol=1e-6)
    np.testing.assert_allclose(r.z[:, :2], ref.y[4:6].T, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.z[:, 2], ref.y[6], rtol=0, atol=1e-6)
    # held at the end: at rest, the bristle vector along the push carrying it
    assert np.linalg.norm(r.v[-1]) < 1e-4
    F = np.column_stack((r["contact.F_x"], r["contact.F_y"]))[-1]
    np.testing.assert_allclose(F, -push, rtol=0, atol=1e-3 * np.linalg.norm(push))
    assert abs(r.z[-1, 0]) < 1e-3 * abs(r.z[-1, 1])


def test_a_2d_slip_along_a_line_is_the_scalar_law():
    """Isotropy: a puck launched along a diagonal under the 2-D law slides exactly as a block
    under the scalar law (its speed, the force magnitude, |z| and w), the force antiparallel
    to the slip; a plausible mistake (the blend or the bristle rate per component, |v_x|
    instead of |v|) makes them differ."""
    m, N, p = 1.0, G, LAW
    v0 = 0.002  # in the blend: beta(v0) = exp(-4)
    law_params = {k: v for k, v in p.items() if k not in ("mu_d", "mu_s")}
    mdl = PlanarModel("puck")
    e = np.array([0.6, 0.8])
    puck = mdl.add(PointMass("puck", m, velocity=tuple(v0 * e)))
    mdl.add(SlidingContact("contact", puck, N, p["mu_d"], p["mu_s"], law="bristle",
                           friction=law_params))
    t = np.linspace(0.0, 0.05, 101)
    r2 = nonsmooth.simulate(Model(mdl.compile(), *mdl.initial_state(), name="puck"), 0.05,
                            t_eval=t, **STIFF)
    r1 = nonsmooth.simulate(block(p, m=m, v0=v0), 0.05, t_eval=t, **STIFF)
    np.testing.assert_allclose(r2.v @ e, r1.v[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r2.v @ np.array([-0.8, 0.6]), 0.0, atol=1e-12)
    F2 = np.column_stack((r2["contact.F_x"], r2["contact.F_y"]))
    np.testing.assert_allclose(F2 @ e, r1.F_T[:, 0], rtol=0, atol=1e-7)
    np.testing.assert_allclose(r2.z[:, :2] @ e, r1.z[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r2.z[:, 2], r1.z[:, 1], rtol=0, atol=1e-9)


# ============================================================================ 3. the properties
@pytest.mark.parametrize("load", [1.0, 3.0])
def test_the_presliding_stiffness_is_sigma0_times_the_load(load):
    """A slow horizontal force F = 0.1 mu_s N (v << v_s: beta = 1, w = 1) displaces the block
    by the closed form of dz/dx = 1 - sigma0 z / mu_s at rest, ``x = -(mu_s / sigma0) ln(1 -
    F / (mu_s N))``: the secant stiffness F / x is ``sigma0 N / 1.054`` at every load (a
    constant, not load-proportional, stiffness gives the same x at both loads)."""
    m = 1.0
    N = load * m * G
    F0 = 0.1 * LAW["mu_s"] * N
    mdl = block(LAW, m=m, press=(load - 1.0) * m * G, push=lambda t: F0 * smoothstep(t, 0, 1.0))
    r = nonsmooth.simulate(mdl, 1.5, dt=1e-2, **STIFF)
    x = r["mass.x"][-1]
    x_ref = -(LAW["mu_s"] / LAW["sigma0"]) * math.log(1.0 - F0 / (LAW["mu_s"] * N))
    print(f"\nload {N:.2f} N: x = {x:.6e} m (closed form {x_ref:.6e} m), "
          f"F / x = {F0 / x:.6e} N/m, sigma0 N = {LAW['sigma0'] * N:.6e} N/m")
    assert r.N[-1, 0] == pytest.approx(N, rel=1e-9)
    assert x == pytest.approx(x_ref, rel=1e-4)
    assert F0 / x == pytest.approx(LAW["sigma0"] * N * 0.1 / -math.log(0.9), rel=1e-4)
    assert abs(r.v[-1, 0]) < 1e-8  # at rest: presliding, not sliding


#: Stiff bristles with a wide blend: a pull rising over seconds drives a creep far below v_s
#: while stuck (``dz/dt / v_s ~ 1e-4``), so the breakaway comes at ``mu_st N`` (within 0.3 %);
#: with LAW (``dz/dt / v_s ~ 0.03``) it comes about 10 % earlier: the law's rate effect.
STIFF_BRISTLE = {**LAW, "sigma0": 1e6, "sigma1": 50.0, "v_s": 1e-2}


def _breakaway(load, rate=0.5, press=0.0, params=STIFF_BRISTLE):
    """A force rising at ``rate mu_s N`` per second pulls a block of ``load`` kg (pressed by
    ``press`` times its weight more): ``(x95, F, r, N)``: the breakaway force (N), the largest
    friction force before the slip exceeds 3 v_s, and the displacement at which the friction
    first reached 95 % of it."""
    N = load * G * (1.0 + press)
    mdl = block(params, m=load, press=press * load * G,
                push=lambda t: rate * params["mu_s"] * N * max(t, 0.0))
    r = nonsmooth.simulate(mdl, 2.2 / rate, dt=1e-3, **STIFF)
    slides = int(np.flatnonzero(np.abs(r.v_T[:, 0]) > 3 * params["v_s"])[0])
    F = float(np.max(np.abs(r.F_T[:slides, 0])))
    j = int(np.flatnonzero(np.abs(r.F_T[:, 0]) >= 0.95 * F)[0])
    x = np.interp(0.95 * F, np.abs(r.F_T[j - 1:j + 1, 0]), r["mass.x"][j - 1:j + 1])
    return x, F, r, N


def test_the_breakaway_displacement_is_about_mu_s_over_sigma0_at_any_load():
    """A slowly rising pull (at ``0.5 mu_s N`` per second): the block breaks away (its largest
    friction force before gross sliding) at ``mu_s N`` (0.5 %), after a presliding
    displacement of a few ``mu_s / sigma0``: 95 % of the breakaway force at ``-ln(0.05) mu_s /
    sigma0 = 3.0 mu_s / sigma0`` (the quasi-static closed form of ``dz/dx = 1 - sigma0 z /
    mu_s``, 2 %). With the load-free bristle and the load-proportional stiffness a block of
    4 kg moves exactly as one of 1 kg (the equations per unit mass are the same): the same
    displacement to the integration's accuracy (1e-3; a constant stiffness's would be 4 times
    larger); pressed to 4 times its weight, the same block moves the same within 2 % (its
    inertia is relatively smaller). With LAW's softer bristle and narrower blend the breakaway
    comes earlier, near 0.85 mu_s N (the creep the rising pull drives enters the blend)."""
    p = STIFF_BRISTLE
    x1, F1, r1, N1 = _breakaway(1.0)
    x4, F4, r4, N4 = _breakaway(4.0)
    xp, Fp, rp, Np = _breakaway(1.0, press=3.0)
    scale = p["mu_s"] / p["sigma0"]
    print(f"\n95 % of the breakaway force at {x1 / scale:.6f} (1 kg), {x4 / scale:.6f} (4 kg), "
          f"{xp / scale:.6f} (1 kg pressed to 4 m g) mu_s / sigma0; breakaway {F1 / N1:.5f}, "
          f"{F4 / N4:.5f}, {Fp / Np:.5f} N/N")
    assert x4 == pytest.approx(x1, rel=1e-3)
    np.testing.assert_allclose(r4["mass.x"][:1000], r1["mass.x"][:1000], rtol=0,
                               atol=1e-3 * x1)
    assert xp == pytest.approx(x1, rel=0.02)
    assert x1 / scale == pytest.approx(-math.log(0.05), rel=0.02)
    for F, N in ((F1, N1), (F4, N4), (Fp, Np)):
        assert F == pytest.approx(p["mu_s"] * N, rel=0.005)
    x, F, r, N = _breakaway(1.0, params=LAW)  # the rate effect: dz/dt / v_s ~ 0.03
    assert 0.8 * LAW["mu_s"] * N < F < 0.95 * LAW["mu_s"] * N


def _falling_load(T):
    """A block (1 kg) held by a pull of 0.3 m g (0.6 mu_s N at first) while a lift lowers its
    normal load from m g to 0.2 m g over ``T`` seconds from t = 0.5 s."""
    m, pull = 1.0, 0.3 * G
    mdl = block(LAW, m=m, push=lambda t: pull * smoothstep(t, 0.0, 0.3),
                lift=lambda t: 0.8 * m * G * smoothstep(t, 0.5, T))
    return nonsmooth.simulate(mdl, T + 1.0, dt=1e-3, **STIFF)


def test_the_force_stays_within_mu_s_n_while_the_load_falls():
    """A block held by a pull while its normal load falls (over 1 s and over 3 s): presliding,
    then it breaks away when the pull exceeds what the bristle can hold. At every output
    ``|F_T| <= mu_s N + mu_v |v_T|`` (a constant bristle stiffness would keep carrying the pull,
    0.3 m g, beyond ``mu_s N``: 0.1 m g at the end). The breakaway comes below ``mu_s N``, the
    sooner the faster the load falls (the creep the falling load drives enters the blend, a
    rate effect of the law, like LuGre's rate-dependent breakaway); it nears ``mu_s N`` as the
    fall slows."""
    peaks = []
    for T in (1.0, 3.0):
        r = _falling_load(T)
        N, F, v = r.N[:, 0], r.F_T[:, 0], r.v_T[:, 0]
        bound = LAW["mu_s"] * N + LAW["mu_v"] * np.abs(v)
        assert N[-1] == pytest.approx(0.2 * G, rel=1e-9)
        assert np.all(np.abs(F) <= bound * (1 + 1e-9) + 1e-12)
        assert r["mass.x"][-1] > 0.1  # it broke away and slides
        peaks.append(float(np.max(np.abs(F) / bound)))
    print(f"\nbreakaway at {peaks[0]:.4f} (load falling in 1 s), {peaks[1]:.4f} (3 s) of "
          "mu_s N + mu_v |v|")
    assert 0.7 < peaks[0] < peaks[1] < 1.0


def test_the_force_vanishes_with_the_load_and_the_state_equation_is_load_free():
    """A puck on a table held by a push of 0.5 mu_s N0 while its given normal load falls
    linearly to 0 (no viscous term: ``mu_v = 0``): ``|F_T| <= mu_s N(t)`` all along, 0 at
    N = 0; the bristle and dwell rates do not depend on N (no stiffening as N -> 0: the run
    takes about the evaluations of the run at constant load)."""
    m, N0, p = 1.0, G, {**LAW, "mu_v": 0.0}
    law_params = {k: v for k, v in p.items() if k not in ("mu_d", "mu_s")}

    def run(normal):
        mdl = PlanarModel("puck")
        puck = mdl.add(PointMass("puck", m))
        mdl.add(SlidingContact("contact", puck, normal, p["mu_d"], p["mu_s"], law="bristle",
                               friction=law_params))
        mdl.add(Force("push", puck, lambda t, q, v: (0.5 * p["mu_s"] * N0
                                                     * smoothstep(t, 0.0, 0.1), 0.0)))
        model = Model(mdl.compile(), *mdl.initial_state(), name="puck")
        return nonsmooth.simulate(model, 1.0, dt=1e-3, **STIFF)

    falling = run(lambda t: N0 * max(0.0, 1.0 - t))
    constant = run(N0)
    N = falling["contact.N"]
    F = np.hypot(falling["contact.F_x"], falling["contact.F_y"])
    assert np.all(F <= p["mu_s"] * N * (1 + 1e-9) + 1e-12)
    assert N[-1] == 0.0 and F[-1] == 0.0
    assert np.max(F[N < 1e-3 * N0]) < 1e-3 * p["mu_s"] * N0
    ratio = falling.diagnostics["n_evaluations"] / constant.diagnostics["n_evaluations"]
    print(f"\nevaluations: falling load {falling.diagnostics['n_evaluations']}, constant "
          f"{constant.diagnostics['n_evaluations']}")
    assert ratio < 4.0
    law = Bristle(**p)  # the state equation takes no N at all
    assert law.state_derivative(0.01, (1e-5, 0.5)) == bristle_rates(0.01, 1e-5, 0.5, p)


@pytest.mark.parametrize("v", [3e-4, 1e-3, -1.5e-3, 0.05, -0.2])
def test_steady_sliding_force(v):
    """From rest (z = 0, w = 1) to a held slip velocity: the force settles at the steady
    state ``beta N mu_st(beta) + (1 - beta) (mu_d N + mu_v |v|)`` (w -> beta(v)), which is
    ``mu_d N + mu_v |v|`` for ``|v| >> v_s`` (a viscous term outside the blend, or a dwell state
    that does not decay, settles elsewhere)."""
    vel, acc, pos = ramp_to(v, 0.05)
    r = nonsmooth.simulate(driven(LAW, vel, acc, pos), 4.0, dt=1e-2, **STIFF)
    N = G
    beta = math.exp(-((v / LAW["v_s"]) ** 2))
    mu_st = LAW["mu_d"] + (LAW["mu_s"] - LAW["mu_d"]) * beta
    expected = math.copysign(beta * N * mu_st + (1 - beta) * (LAW["mu_d"] * N
                                                              + LAW["mu_v"] * abs(v)), v)
    assert -r.F_T[-1, 0] == pytest.approx(expected, rel=1e-6)
    assert r.z[-1, 1] == pytest.approx(beta, abs=1e-6)
    assert -r.F_T[-1, 0] == pytest.approx(Bristle(**LAW).steady_force(v, N), rel=1e-6)
    if abs(v) >= 20 * LAW["v_s"]:
        assert -r.F_T[-1, 0] == pytest.approx(math.copysign(LAW["mu_d"] * N, v)
                                              + LAW["mu_v"] * v, rel=1e-9)


def test_the_dwell_state_decays_while_sliding():
    """Driven from rest (w = 1) to a slip of 50 v_s in 5 ms: ``w`` falls as ``exp(-t /
    tau_dw)`` (beta = 0), to 0, never below (a dwell state that only grows would stay at 1)."""
    vel, acc, pos = ramp_to(0.05, 0.005)
    t = np.linspace(0.0, 0.5, 101)
    r = nonsmooth.simulate(driven(LAW, vel, acc, pos), 0.5, t_eval=t, **STIFF)
    w = r.z[:, 1]
    late = t > 0.01
    # beyond the ramp beta = 0: w = w(t1) exp(-(t - t1) / tau), w(t1) from the ramp itself
    t1 = t[late][0]
    np.testing.assert_allclose(w[late], w[late][0] * np.exp(-(t[late] - t1) / LAW["tau_dw"]),
                               rtol=1e-6, atol=1e-9)
    assert 0.6 < w[late][0] < 0.9 and 0.0 <= w[-1] < 1e-4


#: Dwell runs: the pull must rise slowly against the presliding time ``mu_s / (sigma0 v_s)``
#: (5e-5 s: the creep it drives, ``eps = dz/dt / v_s ~ 1e-4``, leaves the breakaway within
#: 0.3 % of ``mu_st N``) and fast against ``tau_dw`` (0.5 s against 10 s).
DWELL = {**STIFF_BRISTLE, "tau_dw": 10.0}


@functools.cache
def _after_dwell(t_dwell):
    """A block (1 kg) launched at 0.3 m/s (w = 0: a long slide) stops at about 0.11 s; after
    ``t_dwell`` at rest a pull rises to 0.7 m g in 0.5 s. Returns the run, the stop time, the
    pull's start and the breakaway: the largest friction force (N/N) before the slip exceeds
    ``3 v_s`` under the pull, and its time."""
    v0, N = 0.3, G
    t_on = v0 / (DWELL["mu_d"] * G) + t_dwell
    mdl = block(DWELL, v0=v0, push=lambda t: 0.7 * N * smoothstep(t, t_on, 0.5))
    r = nonsmooth.simulate(mdl, t_on + 0.6, dt=1e-3, **STIFF)
    stop = r.t[np.flatnonzero(np.abs(r.v_T[:, 0]) < 1e-6)[0]]
    pulling = np.flatnonzero(r.t >= t_on)
    slides = pulling[np.abs(r.v_T[pulling, 0]) > 3 * DWELL["v_s"]][0]
    before = pulling[pulling < slides]
    i = before[np.argmax(np.abs(r.F_T[before, 0]))]
    return r, stop, t_on, float(abs(r.F_T[i, 0])) / N, r.t[i]


@pytest.mark.parametrize("t_dwell", [0.0, 5.0, 10.0, 20.0, 50.0])
def test_the_breakaway_force_after_a_dwell(t_dwell):
    """After a slide (w = 0) and a dwell at rest: the dwell state matures by ``dw/dt = (1 -
    w) / tau_dw`` (its exact solution from the first output at rest, to 1e-6), stays in [0, 1]
    and saturates at 1 (never above); the breakaway force (the largest friction force under the
    rising pull before gross sliding) is ``mu_st N`` with ``mu_st = mu_d + (mu_s - mu_d)(1 -
    exp(-t_d / tau_dw))``, ``t_d`` the time from the stop to the breakaway (within 1 % of the
    gap ``mu_s - mu_d``): about ``mu_d N`` right after the slide, ``mu_s N`` after a long
    dwell."""
    r, stop, t_on, peak, t_peak = _after_dwell(t_dwell)
    w = r.z[:, 1]
    assert w[0] == 0.0 and np.all(w <= 1.0) and np.all(w >= -1e-9)  # (-1e-9: the tolerance)
    rest = np.flatnonzero((r.t > stop + 0.01) & (r.t < t_on))
    if rest.size:
        a = rest[0]
        mature = 1.0 - (1.0 - w[a]) * np.exp(-(r.t[rest] - r.t[a]) / DWELL["tau_dw"])
        np.testing.assert_allclose(w[rest], mature, rtol=0, atol=1e-6)
        assert w[a] < 0.01  # the stop came after a slide: w near 0
    expected = Bristle(**DWELL).breakaway_level(t_peak - stop)
    gap = DWELL["mu_s"] - DWELL["mu_d"]
    print(f"\ndwell {t_on - stop:.3f} s: breakaway {peak:.5f} N/N, mu_st = {expected:.5f}")
    assert peak == pytest.approx(expected, abs=0.01 * gap)
    assert abs(r.v_T[-1, 0]) > 10 * DWELL["v_s"]  # then it slides


def test_the_breakaway_force_rises_monotonically_toward_mu_s():
    """The breakaway levels after dwells of 0, 0.5, 1, 2 and 5 ``tau_dw`` increase, from
    ``mu_d`` (2 % of the gap) to ``mu_s`` (1 %), the limits of the specification (a dwell
    state that does not saturate overshoots ``mu_s``; one that starts matured gives ``mu_s``
    at once)."""
    peaks = [_after_dwell(t)[3] for t in (0.0, 5.0, 10.0, 20.0, 50.0)]
    gap = DWELL["mu_s"] - DWELL["mu_d"]
    print(f"\nbreakaway levels {np.round(peaks, 5)}")
    assert np.all(np.diff(peaks) > 0.1 * gap * 0.3)
    assert peaks[0] == pytest.approx(DWELL["mu_d"], abs=0.03 * gap)
    assert peaks[-1] == pytest.approx(DWELL["mu_s"], abs=0.01 * gap)
    assert max(peaks) <= DWELL["mu_s"]


# ============================================================================ 4. energy
def _free_vibration(params, t_end=1.5):
    """A block on a spring (k = 200 N/m) released from x0 = 0.05 m: several reversals, then it
    sticks; constant normal load m g."""
    mdl = block(params, k=200.0, x0=0.05)
    return nonsmooth.simulate(mdl, t_end, dt=1e-3, **STIFF)


def test_the_law_returns_no_more_energy_than_the_bristle_stored():
    """Over a free vibration with reversals (the bristle unloads and reloads each time) the
    friction work on the slip never exceeds the decrease of the bristle's stored energy
    ``N sigma0 z^2 / 2``: ``W_f(t) + E_b(t) - E_b(0) <= 0`` at every output (the damping term
    with the wrong sign, or a rate without its ``|v|``, breaks it); and the run's energy balance
    ``T + V - T0 - V0 = sum(W)`` closes."""
    r = _free_vibration(LAW)
    N = G
    E_b = 0.5 * N * LAW["sigma0"] * r.z[:, 0] ** 2
    W_f = r.work[:, 3]
    excess = W_f + E_b - E_b[0]
    print(f"\nmax W_f + E_b - E_b0 = {excess.max():.3e} J (friction work {W_f[-1]:.4f} J); "
          f"energy balance {r.diagnostics['energy_balance_relative']:.1e}")
    assert r.diagnostics["energy_balance_relative"] < 1e-7
    assert np.all(excess <= 1e-9)
    assert W_f[-1] < -0.1  # it dissipated most of 0.25 J
    # the friction work is the integral of F_T v_T
    power = r.F_T[:, 0] * r.v_T[:, 0]
    W_trap = np.concatenate(([0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(r.t))))
    np.testing.assert_allclose(W_f, W_trap, atol=1e-3 * abs(W_f[-1]))
    turns = np.flatnonzero(np.diff(np.sign(r.v[:, 0])) != 0)
    assert len(turns) >= 3  # reversals


def test_the_storage_inequality_holds_on_random_states():
    """The dissipation inequality of ``docs/method.md`` 4.4 pointwise: ``F . v + N sigma0 z .
    dz/dt <= 0`` at random states (the bristle within ``|z| <= mu_s / sigma0``, any dwell state,
    slips from rest to sliding) when ``mu_s <= 4 mu_d`` and ``sigma1 v_s <= sqrt(2 e) mu_d``
    (here at the limit); violated with the damping 10 times beyond it."""
    rng = np.random.default_rng(8)

    def worst(p, n=20000):
        law, out = Bristle(**p), -np.inf
        for _ in range(n):
            d = int(rng.integers(1, 4))
            v = rng.normal(size=d) * p["v_s"] * 10 ** rng.uniform(-2, 1.5)
            z = rng.normal(size=d)
            z *= rng.uniform(0, 1) * p["mu_s"] / p["sigma0"] / np.linalg.norm(z)
            w = float(rng.uniform(0, 1))
            a, b, rates = law.vector_coefficients(v, np.append(z, w))
            F = -a * 1.0 - b
            out = max(out, float(F @ v + p["sigma0"] * z @ rates[:d]) / (
                p["mu_s"] * float(np.linalg.norm(v))))
        return out

    limit = math.sqrt(2 * math.e) * LAW["mu_d"] / LAW["v_s"]
    assert worst({**LAW, "sigma1": limit}) <= 1e-12
    # the damping with the wrong sign (the law written here): energy from nowhere
    p = LAW
    v, z, w = np.array([0.05 * p["v_s"]]), np.array([0.0]), 1.0
    dz, _ = bristle_rates(v, z, w, p)
    wrong = bristle_force(v, z, w, 1.0, {**p, "sigma1": -p["sigma1"]})
    right = bristle_force(v, z, w, 1.0, p)
    assert float(wrong @ v + p["sigma0"] * z @ dz) > 0 >= float(right @ v + p["sigma0"] * z @ dz)
    assert worst({**LAW, "mu_s": 4 * LAW["mu_d"]}) <= 1e-12
    assert worst({**LAW, "sigma1": 10 * limit}) > 0.01


def test_dissipativity_warnings():
    """``sigma1 v_s > sqrt(2 e) mu_d`` and ``mu_s > 4 mu_d`` warn (a RuntimeWarning naming the
    condition, once per run); the defaults and LAW do not."""
    assert Bristle().warnings() == [] and Bristle(**LAW).warnings() == []
    limit = math.sqrt(2 * math.e) * 0.3 / 1e-3
    assert Bristle(**{**LAW, "sigma1": 0.999 * limit}).warnings() == []
    (text,) = Bristle(**{**LAW, "sigma1": 1.001 * limit}).warnings()
    assert text.startswith("bristle friction: sigma1 = 700.") and "sqrt(2 e) mu_d / v_s" in text
    (text,) = Bristle(mu_d=0.1, mu_s=0.45).warnings()
    assert "mu_s = 0.45 > 4 mu_d = 0.4" in text
    with pytest.warns(RuntimeWarning, match=r"bristle friction: sigma1 = 1000 > sqrt\(2 e\)"):
        nonsmooth.simulate(oscillator.build(friction="bristle", sigma1=1000.0, v_s=1e-3), 0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nonsmooth.simulate(oscillator.build(friction="bristle"), 0.01)


# ============================================================================ 5. the interface
@pytest.mark.parametrize("kwargs, match", [
    ({"sigma0": 0.0}, r"bristle friction: sigma0 = 0\.0 is invalid; it must be a finite number "
                      r"> 0 within \[1, 1e\+10\] 1/m \(bristle stiffness per N of normal load\); "
                      r"mu_st / sigma0 is the breakaway"),
    ({"tau_dw": 0.0}, r"bristle friction: tau_dw = 0\.0 is invalid; it must be a finite number "
                      r"> 0 within \[1e-06, 1e\+06\] s \(dwell-time constant.*measured stiction"),
    ({"tau_dw": math.inf}, r"tau_dw = inf is invalid"),
    ({"mu_v": -1.0}, r"bristle friction: mu_v = -1\.0 is invalid; it must be a finite number "
                     r">= 0 within \[0, 1e\+08\] N s/m"),
    ({"v_s": 0.0}, r"bristle friction: v_s = 0\.0 is invalid.*\[1e-09, 1000\] m/s"),
    ({"sigma1": -1.0}, r"bristle friction: sigma1 = -1\.0 is invalid"),
    ({"mu_s": 0.2}, r"bristle friction: mu_s = 0\.2 must be >= mu_d = 0\.3"),
    ({"mu_d": 0.0, "mu_s": 0.1}, r"bristle friction: mu_d = 0\.0 is invalid.*divides by its "
                                 r"stiction level"),
    ({"sigma0": "stiff"}, r"bristle friction: sigma0 = 'stiff' is not a number"),
])
def test_bad_parameters_are_named_model_errors(kwargs, match):
    with pytest.raises(ModelError, match=match):
        Bristle(**{"mu_d": 0.3, "mu_s": 0.5, **kwargs})


def test_the_schema_defaults_and_the_shared_entries():
    """The law's defaults are its schema's; ``sigma0``, ``sigma1``, ``v_s`` mean what they
    mean for LuGre (one default, unit and range: one friction description serves both); the
    models expose ``mu_v`` and ``tau_dw``, and a bad model value is the model's error."""
    from nonsmooth.friction import BRISTLE_SCHEMA, LUGRE_SCHEMA
    from nonsmooth.model import FRICTION_PARAMETERS

    law = Bristle()
    assert law.parameters() == {**BRISTLE_SCHEMA.defaults(), "mu_s": law.mu_d}
    for name in ("sigma0", "sigma1", "v_s"):
        a, b = BRISTLE_SCHEMA[name], LUGRE_SCHEMA[name]
        assert (a.default, a.unit, a.minimum, a.maximum) == (b.default, b.unit, b.minimum,
                                                             b.maximum)
    for q in BRISTLE_SCHEMA:
        assert q.unit and q.description and q.hint, q.name
    names = [p.name for p in FRICTION_PARAMETERS]
    assert "mu_v" in names and "tau_dw" in names and "bristle" in LAWS
    model = oscillator.build(friction="bristle", tau_dw=0.2, mu_v=0.05, sigma0=2e4,
                             mu_s=0.45, mu_d=0.25)
    (law,) = resolve_laws(model.system, None)
    assert isinstance(law, Bristle)
    assert (law.tau_dw, law.mu_v, law.sigma0, law.mu_s, law.mu_d) == (0.2, 0.05, 2e4, 0.45,
                                                                       0.25)
    with pytest.raises(ModelError, match=r"model stick_slip_oscillator: parameter tau_dw = -1 "
                                         r"is out of range; allowed: >= 1e-06 and <= 1e\+06 "
                                         r"\(s\)"):
        oscillator.build(friction="bristle", tau_dw=-1)


def test_each_pair_takes_its_own_law_and_the_run_its_states():
    """Per pair (``Translational(law="bristle")``) and per run (``simulate(friction={pair:
    "bristle"})``): two blocks in their slots, one under each law; the state layout has two
    states for each bristle pair, one for LuGre, none for Coulomb."""
    mdl = PlanarModel("two blocks")
    for i, law in enumerate(("bristle", "coulomb")):
        mass = mdl.add(PointMass(f"m{i}", 1.0, position=(0.0, -i), velocity=(0.2, 0.0)))
        mdl.add(Translational(f"slot{i}", ground, mass, (0.0, -i), (1.0, 0.0), mu=0.3,
                              mu_s=0.4, normal="left", law=law))
    mdl.add(Gravity(g=G))
    system = mdl.compile()
    assert system.layout.n_z == 2
    r = quiet(mdl, 0.2, dt=1e-2)
    assert r.laws == ["bristle", "coulomb"] and r.z.shape[1] == 2
    r = quiet(mdl, 0.2, dt=1e-2, friction={"slot0": "lugre", "slot1": "bristle"})
    assert r.laws == ["lugre", "bristle"] and r.z.shape[1] == 3
    # both stop after sliding 0.2 m/s at about mu_d g
    stop = 0.2 / (0.3 * G)
    assert np.all(np.abs(r.v[r.t > stop + 0.02]) < 1e-3)


def test_compare_coulomb_lugre_and_bristle_on_one_mechanism():
    """``compare`` runs the belt oscillator under the three laws. With stiff bristles and a
    wide blend (the creep while stuck far below v_s) the bristle law's stick-slip is Coulomb's
    (same mu_s, mu_d): stuck about as long, its largest spring force within 6 % (the blend
    keeps the friction above mu_d N for the first v_s of the slip: a larger overshoot)."""
    model = oscillator.build(mu_s=0.4, mu_d=0.3, sigma0=1e6, sigma1=50.0, v_s=1e-2,
                             sigma2=0.0, tau_dw=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cmp = nonsmooth.compare(model, ["coulomb", "lugre", "bristle"], 2.0, dt=1e-3)
    rows = {row["law"]: row for row in cmp.table}
    assert list(rows) == ["coulomb", "lugre", "bristle"]
    assert cmp.results["bristle"].laws == ["bristle"]
    assert rows["bristle"]["method"] == "Radau" and rows["bristle"]["events"] == 0
    assert rows["bristle"]["stuck"] == pytest.approx(rows["coulomb"]["stuck"], abs=0.1)
    x_max = {law: float(np.max(r["x"])) for law, r in cmp.results.items()}
    assert x_max["bristle"] == pytest.approx(x_max["coulomb"], rel=0.06)
    assert x_max["coulomb"] > 0.4 * G / 100.0  # beyond the breakaway stretch mu_s m g / k
    assert "bristle" in cmp.summary()


def test_the_command_line_names_the_law(capsys):
    from nonsmooth.cli import main

    code = main(["run", "stick_slip_oscillator", "--friction", "bristle", "--set",
                 "tau_dw=0.02", "--t-end", "0.3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "method Radau" in out
    code = main(["compare", "stick_slip_oscillator", "--friction", "coulomb", "bristle",
                 "--t-end", "0.3"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "bristle" in out
    code = main(["run", "stick_slip_oscillator", "--friction", "bristel"])
    out, err = capsys.readouterr()
    assert code == 2 and "choose from coulomb, lugre, regularized, bristle" in err


def test_the_law_packs_its_numbers_and_lugre_keeps_its_own():
    """``pack`` gives kind 3 and its eight numbers (the ``N_LAW`` slots before the patch code's,
    ``PATCH_SLOT``), which land in the plan (that slot 0: no patch); the state sizes per
    dimension; LuGre's and the others' layout is unchanged."""
    from nonsmooth.core import layout, stage
    from nonsmooth.dynamics import Dynamics

    law = Bristle(**LAW)
    kind, numbers = law.pack()
    assert kind == stage.BRISTLE == 3 and len(numbers) == layout.PATCH_SLOT == layout.N_LAW - 1
    assert numbers == (0.5, 0.3, 0.2, 1e-3, 1e4, 30.0, 0.05, 1e-9)
    system = oscillator.build().system
    plan = Dynamics(system, laws=[law]).plan
    views = layout.plan_slices(1, len(system.abs_rows), system.n_constraints)
    assert plan[views["law"]][0] == stage.BRISTLE
    np.testing.assert_array_equal(plan[views["law_par"]], (*numbers, 0.0))
    assert [law.state_size(d) for d in (1, 2, 3)] == [2, 3, 4]
    assert [LuGre().state_size(d) for d in (1, 2, 3)] == [1, 2, 3]
    assert [LAWS[n]().state_size(2) for n in ("coulomb", "regularized")] == [0, 0]
