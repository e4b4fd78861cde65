"""The smooth friction laws on the spatial joints (``docs/design/spatial_friction.md`` section 7
items 10-11; issue 22 item 2): LuGre driven at a constant slip on each joint type (revolute,
spherical, translational, cylindrical) against its steady closed form ``F = N g(v) + sigma2 v`` with
``N`` from the closed-form load, the friction vector parallel to the slip on the vector pairs; the
regularized spin-down of a ball joint against the Coulomb closed form as ``falloff_vel -> 0`` (its
creep near the stop in closed form, an error ``O(falloff_vel)``); the bristle law's bound ``|F| <=
mu_s N + mu_v |v|`` on a stick-slip run; the energy balance and the friction's dissipation on every
run.

The reference formulas are written out here from the laws' specifications
(``nonsmooth/friction/lugre.py``, ``regularized.py``, ``bristle.py`` docstrings), not taken
from the engine's law objects."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.core.layout import WORK_NAMES
from nonsmooth.spatial import (
    Body,
    Cylindrical,
    Driver,
    Force,
    Gravity,
    Revolute,
    SpatialModel,
    Spherical,
    Torque,
    Translational,
    ground,
)

g = 9.81
#: The friction work's column of ``Result.work``.
W_F = WORK_NAMES.index("W_friction")
MU, MU_S = 0.25, 0.35
#: LuGre in SI (``friction/lugre.py``): sigma0 1/m, sigma1 s/m, sigma2 N s/m, v_s m/s;
#: sigma1 < sigma2 mu_d / (mu_s - mu_d) = 5 (dissipative).
LUGRE = {"sigma0": 1e5, "sigma1": 1.0, "sigma2": 2.0, "v_s": 0.01}
TOL = {"rtol": 1e-9, "atol": 1e-11}
#: The ramp time (s) of the drivers: the slip starts from rest and reaches its constant value
#: to exp(-30) ~ 1e-13 by 30 ramp times.
TAU = 0.01


def stribeck(v, p=LUGRE, mu_d=MU, mu_s=MU_S):
    """The spec's Stribeck curve ``g(v) = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)`` (-)."""
    return mu_d + (mu_s - mu_d) * math.exp(-((v / p["v_s"]) ** 2))


def lugre_steady(v, N, p=LUGRE):
    """The steady LuGre friction magnitude at slip speed ``v > 0``: ``N g(v) + sigma2 v`` (N)."""
    return N * stribeck(v, p) + p["sigma2"] * v


def ramp(speed, tau=TAU):
    """``(f, df/dt, d2f/dt2)`` of a coordinate whose rate rises from 0 to ``speed`` as
    ``1 - exp(-t / tau)``."""
    def f(t):
        return speed * (t - tau * (1.0 - math.exp(-t / tau)))

    def df(t):
        return speed * (1.0 - math.exp(-t / tau))

    def ddf(t):
        return speed / tau * math.exp(-t / tau)

    return f, df, ddf


def _balance(r, limit=1e-9) -> None:
    """The energy balance closes (``limit`` of the energy scale, as the other spatial tests)
    and the friction work never increases."""
    assert r.diagnostics["energy_balance_scaled"] < limit, r.diagnostics
    assert np.max(np.diff(r.work[:, W_F])) <= 1e-12
    assert r.work[-1, W_F] < 0.0


def _rel(x, ref) -> float:
    """The largest relative deviation of ``x`` from ``ref``."""
    return float(np.max(np.abs(np.asarray(x) / np.asarray(ref) - 1.0)))


def _steady(r, t_from=30 * TAU):
    """The outputs at and after ``t_from`` (the steady state)."""
    return r.t >= t_from - 1e-12


# ============================================================ 1. LuGre, steady slip, each type
def test_lugre_revolute_driven_steady_force():
    """An overhung disc on a horizontal frictional hinge (radial ``m g``, bending ``m g d``:
    ``N = m g (1 + d / r_b)``, as the Coulomb test) driven from rest to ``w`` (ramp, time
    ``TAU``): after the transient the friction torque ``Tf_h`` and the driver's torque are
    ``r_p (N g(v) + sigma2 v)`` at ``v = r_p w`` to 1e-9; at the start (rest, no bristle
    deflection) the friction is zero."""
    m, Ia, rp, rbend, d, w = 1.5, 0.04, 0.02, 0.05, 0.12, 3.0
    mdl = SpatialModel("overhung lugre")
    disc = mdl.add(Body("disc", mass=m, inertia=(Ia, 0.03, 0.03), position=(d, 0, 0)))
    hinge = mdl.add(Revolute("shaft", ground, disc, point=(0, 0, 0), axis=(1, 0, 0), mu=MU,
                             mu_s=MU_S, pin_radius=rp, friction_arm=0.04, bending_arm=rbend,
                             law="lugre", friction=LUGRE))
    mdl.add(Driver("drive", hinge, position=ramp(w)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 40 * TAU, dt=TAU, **TOL)
    N = m * g * (1 + d / rbend)
    T = rp * lugre_steady(rp * w, N)
    s = _steady(r)
    assert s.sum() >= 5
    assert abs(r["shaft.Tf_h"][0]) < 1e-12 and abs(r["shaft.slip"][0]) < 1e-12
    np.testing.assert_allclose(r["shaft.N"], N, rtol=1e-12)
    np.testing.assert_allclose(r["shaft.slip"][s], rp * w, rtol=1e-9)
    np.testing.assert_allclose(r["shaft.Tf_h"][s], -T, rtol=1e-9)
    np.testing.assert_allclose(r["drive.torque"][s], T, rtol=1e-9)
    print(f"\nrevolute LuGre: Tf_h {_rel(r['shaft.Tf_h'][s], -T):.1e}, driver "
          f"{_rel(r['drive.torque'][s], T):.1e} of r_p (N g + sigma2 v); balance "
          f"{r.diagnostics['energy_balance_scaled']:.1e}")
    _balance(r)


def test_lugre_translational_driven_steady_force():
    """A slider on a horizontal frictional guide, its centre of mass ``e`` ahead of the joint
    point (``N = m g (1 + e / x_s)``), driven from rest to ``v``: after the transient
    ``Ff_h`` and the driver's force are ``N g(v) + sigma2 v`` to 1e-9. The joint is declared
    Coulomb with LuGre's parameters and the law is set for the run by ``simulate(...,
    friction="lugre")`` (the override path; the other types declare ``law="lugre"``)."""
    m, e, xs, v = 4.0, 0.1, 0.5, 0.2
    mdl = SpatialModel("slider lugre")
    body = mdl.add(Body("slider", mass=m, inertia=(0.01, 0.02, 0.02), position=(e, 0, 0)))
    guide = mdl.add(Translational("guide", ground, body, point=(0, 0, 0), axis=(1, 0, 0),
                                  mu=MU, mu_s=MU_S, initial_overlap=xs, reaction_arm=0.05,
                                  law="coulomb", friction=LUGRE))
    mdl.add(Driver("drive", guide, position=ramp(v)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 40 * TAU, dt=TAU, friction="lugre", **TOL)
    N = m * g * (1 + e / xs)
    F = lugre_steady(v, N)
    s = _steady(r)
    assert abs(r["guide.Ff_h"][0]) < 1e-12
    np.testing.assert_allclose(r["guide.N"], N, rtol=1e-12)
    np.testing.assert_allclose(r["guide.slip"][s], v, rtol=1e-9)
    np.testing.assert_allclose(r["guide.Ff_h"][s], -F, rtol=1e-9)
    np.testing.assert_allclose(r["drive.force"][s], F, rtol=1e-9)
    print(f"\ntranslational LuGre: Ff_h {_rel(r['guide.Ff_h'][s], -F):.1e}, driver "
          f"{_rel(r['drive.force'][s], F):.1e} of N g + sigma2 v; balance "
          f"{r.diagnostics['energy_balance_scaled']:.1e}")
    _balance(r)


def test_lugre_cylindrical_two_drivers_force_parallel_to_slip():
    """A shaft in a horizontal frictional bearing (``N = m g``), its angle and displacement
    driven from rest with different ramp times (the slip ``(r_p w, v_z)`` turns during the
    transient): at steady state the friction vector ``(Tf_h / r_p, Ff_h)`` is antiparallel to
    the slip to 1e-9 (the friction ellipse of the isotropic vector law), its magnitude ``N g(|s|)
    + sigma2 |s|`` to 1e-9, and the two drivers carry its components."""
    m, rp, w, vz = 2.0, 0.05, 4.0, 0.3
    mdl = SpatialModel("shaft lugre")
    shaft = mdl.add(Body("shaft", mass=m, inertia=(0.01, 0.1, 0.1)))
    bearing = mdl.add(Cylindrical("bearing", ground, shaft, point=(0, 0, 0), axis=(1, 0, 0),
                                  mu=MU, mu_s=MU_S, pin_radius=rp, law="lugre",
                                  friction=LUGRE))
    mdl.add(Driver("spin", bearing, position=ramp(w, TAU / 2), coordinate="angle"))
    mdl.add(Driver("push", bearing, position=ramp(vz, TAU), coordinate="displacement"))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 40 * TAU, dt=TAU, **TOL)
    N = m * g
    slip = np.array([rp * w, vz])
    speed = float(np.linalg.norm(slip))
    F = lugre_steady(speed, N) * slip / speed
    s = _steady(r)
    assert s.sum() >= 5
    S = np.column_stack((r["bearing.slip1"], r["bearing.slip2"]))
    Fv = np.column_stack((r["bearing.Tf_h"] / rp, r["bearing.Ff_h"]))
    # the slip direction turned during the transient (else parallelism were trivial)
    early = S[1] / np.linalg.norm(S[1])
    assert abs(early[0] * slip[1] - early[1] * slip[0]) / speed > 0.05
    np.testing.assert_allclose(r["bearing.N"], N, rtol=1e-12)
    np.testing.assert_allclose(S[s], np.tile(slip, (s.sum(), 1)), rtol=1e-9)
    cross = (Fv[s, 0] * S[s, 1] - Fv[s, 1] * S[s, 0]) / (np.linalg.norm(Fv[s], axis=1)
                                                          * np.linalg.norm(S[s], axis=1))
    assert np.max(np.abs(cross)) < 1e-9
    assert np.all(np.einsum("ij,ij->i", Fv[s], S[s]) < 0)
    np.testing.assert_allclose(Fv[s], np.tile(-F, (s.sum(), 1)), rtol=1e-9)
    np.testing.assert_allclose(r["spin.torque"][s], rp * F[0], rtol=1e-9)
    np.testing.assert_allclose(r["push.force"][s], F[1], rtol=1e-9)
    print(f"\ncylindrical LuGre: F {_rel(Fv[s], -F):.1e} of (N g + sigma2 |s|) s / |s|, "
          f"sin(F, s) {np.max(np.abs(cross)):.1e}, drivers "
          f"{max(_rel(r['spin.torque'][s], rp * F[0]), _rel(r['push.force'][s], F[1])):.1e}; "
          f"balance {r.diagnostics['energy_balance_scaled']:.1e}")
    _balance(r)


def test_lugre_spherical_terminal_spin_force_parallel_to_slip():
    """A body with isotropic inertia whose centre of mass is the ball point (``N = |F| = m g``,
    no gyroscopic moment), driven by a constant torque ``T n`` and started spinning about a
    different axis: it reaches the constant spin where friction balances the torque. The
    torque is ``r_b (N g(v*) + sigma2 v*)`` of a chosen terminal slip speed ``v*``, so the
    closed form of the steady state is ``r_b w = v* n``: after the transient the 3-D slip is
    ``v* n`` to 1e-9, the friction torque ``Tf`` is ``-T n`` (the balance) and ``-r_b (N
    g(|v|) e + sigma2 v)`` at the measured slip (the law) to 1e-9, parallel to the slip to
    1e-9 (the friction ellipse)."""
    p = dict(LUGRE, sigma2=10.0)  # a short transient: I / (r_b^2 sigma2) = 8 ms
    m, inertia, rb, v_star = 1.0, 2e-4, 0.05, 0.1
    n = np.array([1.0, 2.0, 2.0]) / 3.0
    N = m * g
    T = rb * lugre_steady(v_star, N, p)
    mdl = SpatialModel("ball lugre")
    body = mdl.add(Body("sphere", mass=m, inertia=inertia, angular_velocity=(3.0, 0, 0)))
    mdl.add(Spherical("ball", ground, body, point=(0, 0, 0), mu=MU, mu_s=MU_S, ball_radius=rb,
                      law="lugre", friction=p))
    mdl.add(Torque("drive", body, tuple(T * n)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.3, dt=0.01, **TOL)
    s = _steady(r, 0.25)
    S = np.column_stack([r[f"ball.slip{k}"] for k in (1, 2, 3)])
    Tf = np.column_stack([r[f"ball.Tf_{k}"] for k in "fgh"])
    assert np.allclose(S[0], (rb * 3.0, 0, 0), rtol=1e-12)  # started off the terminal spin
    np.testing.assert_allclose(r["ball.N"], N, rtol=1e-12)
    np.testing.assert_allclose(S[s], np.tile(v_star * n, (s.sum(), 1)), rtol=1e-9)
    np.testing.assert_allclose(Tf[s], np.tile(-T * n, (s.sum(), 1)), rtol=1e-9)
    speed = np.linalg.norm(S[s], axis=1)
    law = rb * (N * np.array([stribeck(x, p) for x in speed])[:, None] * S[s] / speed[:, None]
                + p["sigma2"] * S[s])
    np.testing.assert_allclose(Tf[s], -law, rtol=1e-9)
    cross = np.cross(Tf[s], S[s]) / (np.linalg.norm(Tf[s], axis=1) * speed)[:, None]
    assert np.max(np.abs(cross)) < 1e-9
    print(f"\nspherical LuGre: slip {_rel(S[s], v_star * n):.1e} of v* n, Tf "
          f"{_rel(Tf[s], -T * n):.1e} of -T n, {_rel(Tf[s], -law):.1e} of the law, |sin(Tf, v)| "
          f"{np.max(np.abs(cross)):.1e}; balance {r.diagnostics['energy_balance_scaled']:.1e}")
    _balance(r)


# ============================================================ 2. regularized -> Coulomb
def _regularized_spin_down(falloff):
    """Test 1 of ``tests/spatial/test_spatial_friction.py`` (a body hanging from a ball joint,
    spinning about the vertical) with the regularized law, ``w0 = 1`` rad/s; outputs at the Coulomb
    stop time ``t*`` and on the creep after the slip speed falls below ``falloff``."""
    m, Iz, rb, mu, w0 = 2.0, 0.05, 0.02, 0.3, 1.0
    a = mu * rb * m * g / Iz  # the Coulomb deceleration (rad/s^2)
    t_star = w0 / a
    t1 = t_star - falloff / (rb * a)  # the slip speed reaches falloff (Coulomb part exact)
    t_eval = np.concatenate((np.linspace(0.0, 0.9 * t1, 5), np.linspace(t1, t_star, 6)))
    mdl = SpatialModel("regularized spin-down")
    top = mdl.add(Body("top", mass=m, inertia=(0.08, 0.08, Iz), position=(0, 0, -0.5),
                       angular_velocity=(0, 0, w0)))
    # no stiction excess: the dry level is mu_d above falloff_vel (the Coulomb slide exactly)
    mdl.add(Spherical("ball", ground, top, point=(0, 0, 0), mu=mu, mu_s=0.4, ball_radius=rb,
                      law="regularized", friction={"falloff_vel": falloff,
                                                   "stiction_extra": 0.0}))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, t_star, t_eval=t_eval, **TOL)
    return r, w0, a, rb, t1, t_star


def test_regularized_spin_down_approaches_coulomb_as_falloff_vanishes():
    """The regularized ball-joint spin-down against Coulomb's ``w(t) = max(w0 - a t, 0)``,
    ``a = mu_d r_b m g / I_z``: above ``falloff_vel`` the two agree to 1e-12; below it the dry
    part is ``mu_d N sin(pi v / (2 v_f))``, whose slip ``u = v / v_f`` obeys ``du/ds = -sin(pi
    u / 2)`` (``s = r_b a (t - t1) / v_f``), so ``w = (v_f / r_b) (4 / pi) atan(exp(-pi s /
    2))`` (asserted to 1e-8) and the error at Coulomb's stop time is ``(4 / pi) atan(exp(-pi /
    2)) v_f / r_b``: ``O(falloff_vel)``, measured at three values (ratio 2 per halving to
    1e-8)."""
    C = 4 / math.pi * math.atan(math.exp(-math.pi / 2))
    errors = []
    for falloff in (4e-4, 2e-4, 1e-4):
        r, w0, a, rb, t1, t_star = _regularized_spin_down(falloff)
        wz = r["top.wz"]
        slide = r.t <= t1 * (1 - 1e-12)
        np.testing.assert_allclose(wz[slide], w0 - a * r.t[slide], rtol=1e-12, atol=1e-14)
        creep = r.t >= t1 - 1e-12
        s = rb * a * (r.t[creep] - t1) / falloff
        np.testing.assert_allclose(wz[creep], falloff / rb * 4 / math.pi
                                   * np.arctan(np.exp(-math.pi * s / 2)), rtol=1e-8)
        assert r.t[-1] == pytest.approx(t_star, abs=1e-14)
        errors.append(wz[-1] - 0.0)  # Coulomb is at rest at t*
        assert errors[-1] == pytest.approx(C * falloff / rb, rel=1e-8)
        _balance(r)
    print("\nregularized - Coulomb at t*: " + ", ".join(f"{e:.6e}" for e in errors)
          + " rad/s (falloff_vel 4e-4, 2e-4, 1e-4 m/s)")
    np.testing.assert_allclose(np.array(errors[:-1]) / np.array(errors[1:]), 2.0, rtol=1e-8)


# ============================================================ 3. bristle bound, stick-slip
#: presliding 5 um at mu_s, its creep under the spring's 10 N/s about v_s / 100 (a breakaway
#: near mu_s N); sigma1 v_s = 0.1 <= sqrt(2 e) mu_d, mu_s <= 4 mu_d (dissipative)
BRISTLE = {"mu_v": 0.2, "v_s": 1e-3, "sigma0": 1e5, "sigma1": 100.0, "tau_dw": 0.01}
BRISTLE_MU, BRISTLE_MU_S = 0.3, 0.5


def test_bristle_bound_on_a_translational_stick_slip():
    """A block (1 kg) on a horizontal frictional guide with the bristle law, pulled by a spring
    whose far end moves at 0.1 m/s: it sticks (presliding), breaks away, slips and sticks
    again. At every output ``|F| <= mu_s N + mu_v |v|`` (``docs/method.md`` section 4.4),
    ``N = m g``. The bristle stores energy ``N sigma0 z^2 / 2`` that it returns to the slip,
    so the friction work alone may rise; the law's dissipativity is that ``W_f + N sigma0
    z^2 / 2`` never increases (``friction/bristle.py``: ``mu_s <= 4 mu_d``, ``sigma1 v_s <=
    sqrt(2 e) mu_d`` hold). Energy balance to 1e-8 (``rtol = 1e-8`` here, for the run time)."""
    m, k, v_pull = 1.0, 400.0, 0.025
    mdl = SpatialModel("pulled block")
    block = mdl.add(Body("block", mass=m, inertia=(0.01, 0.01, 0.01)))
    mdl.add(Translational("slot", ground, block, point=(0, 0, 0), axis=(1, 0, 0),
                          mu=BRISTLE_MU, mu_s=BRISTLE_MU_S, law="bristle", friction=BRISTLE,
                          inputs="0100"))
    mdl.add(Force("pull", block, lambda t, q, v: (k * (v_pull * t - q[0]), 0.0, 0.0)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.75, dt=0.005, rtol=1e-8, atol=1e-10)
    N, F, v = r["slot.N"], r["slot.Ff_h"], r["slot.slip"]
    np.testing.assert_allclose(N, m * g, rtol=1e-12)
    bound = BRISTLE_MU_S * N + BRISTLE["mu_v"] * np.abs(v)
    ratio = np.abs(F) / bound
    print(f"\nbristle stick-slip: max |F| / (mu_s N + mu_v |v|) = {ratio.max():.6f}")
    assert np.all(ratio <= 1.0 + 1e-9)
    assert ratio.max() > 0.9  # the breakaway comes close to the bound: the check is sharp
    # a stick-slip run: stuck (|v| << v_s), then slipping (|v| >> v_s), then stuck again
    stuck, slipping = np.abs(v) < 0.5 * BRISTLE["v_s"], np.abs(v) > 10 * BRISTLE["v_s"]
    first_slip = np.flatnonzero(slipping)[0]
    assert stuck[:first_slip].sum() > 10 and stuck[first_slip:].sum() > 2
    assert r.z[:, 1].max() > 0.99 and r.z[:, 1].min() < 0.01  # dwell matured and lost
    assert r.diagnostics["energy_balance_scaled"] < 1e-8, r.diagnostics
    stored = N * BRISTLE["sigma0"] * r.z[:, 0] ** 2 / 2
    assert np.max(np.diff(r.work[:, W_F] + stored)) <= 1e-12
    assert r.work[-1, W_F] < 0.0


def test_bristle_cylindrical_driven_steady_vector_force():
    """The vector bristle law (a bristle 2-vector and one dwell state) on the cylindrical
    bearing driven as in the LuGre test: at steady slip ``s`` the specification gives ``w =
    beta(|s|)`` and ``F = beta N mu_st(beta) + (1 - beta) (mu_d N + mu_v |s|)`` along ``-s``
    (``beta = exp(-(|s| / v_s)^2)``, 0 here: ``|s| = 360 v_s``), asserted to 1e-9, with the
    dwell state gone and the bound ``|F| <= mu_s N + mu_v |v|`` at every output."""
    m, rp, w, vz = 2.0, 0.05, 4.0, 0.3
    mdl = SpatialModel("shaft bristle")
    shaft = mdl.add(Body("shaft", mass=m, inertia=(0.01, 0.1, 0.1)))
    bearing = mdl.add(Cylindrical("bearing", ground, shaft, point=(0, 0, 0), axis=(1, 0, 0),
                                  mu=BRISTLE_MU, mu_s=BRISTLE_MU_S, pin_radius=rp,
                                  law="bristle", friction=BRISTLE))
    mdl.add(Driver("spin", bearing, position=ramp(w, TAU / 2), coordinate="angle"))
    mdl.add(Driver("push", bearing, position=ramp(vz, TAU), coordinate="displacement"))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 40 * TAU, dt=TAU, **TOL)
    N = m * g
    slip = np.array([rp * w, vz])
    speed = float(np.linalg.norm(slip))
    beta = math.exp(-((speed / BRISTLE["v_s"]) ** 2))
    mu_st = BRISTLE_MU + (BRISTLE_MU_S - BRISTLE_MU) * beta
    F = (beta * N * mu_st + (1 - beta) * (BRISTLE_MU * N + BRISTLE["mu_v"] * speed)) * slip / speed
    s = _steady(r)
    S = np.column_stack((r["bearing.slip1"], r["bearing.slip2"]))
    Fv = np.column_stack((r["bearing.Tf_h"] / rp, r["bearing.Ff_h"]))
    np.testing.assert_allclose(r["bearing.N"], N, rtol=1e-12)
    np.testing.assert_allclose(S[s], np.tile(slip, (s.sum(), 1)), rtol=1e-9)
    np.testing.assert_allclose(Fv[s], np.tile(-F, (s.sum(), 1)), rtol=1e-9)
    assert np.max(np.abs(r.z[s, 2] - beta)) < 1e-9  # the dwell state (z_1, z_2, w)
    bound = BRISTLE_MU_S * N + BRISTLE["mu_v"] * np.linalg.norm(S, axis=1)
    assert np.all(np.linalg.norm(Fv, axis=1) <= bound * (1 + 1e-9))
    print(f"\ncylindrical bristle: F {_rel(Fv[s], -F):.1e} of (mu_d N + mu_v |s|) s / |s|; "
          f"balance {r.diagnostics['energy_balance_scaled']:.1e}")
    _balance(r)
