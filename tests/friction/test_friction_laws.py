"""The smooth friction laws (LuGre, regularized) against closed forms and independent formulas.

Every reference here is computed in this file (the law's formula, the LuGre ODE integrated by
scipy, Coulomb / Coulomb-plus-viscous closed forms of the belt cycle), never taken from the
engine. LuGre parameters are per newton of normal load (``sigma0`` in 1/m, ``sigma1`` in s/m);
an absolute parameter set (Canudas de Wit et al. 1995, Table I) maps with ``N = m g``:
``mu = F / N``, ``sigma0 = sigma0_abs / N``, ``sigma1 = sigma1_abs / N``, ``sigma2`` unscaled.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.friction import LuGre, Regularized
from nonsmooth.models import stick_slip_oscillator as oscillator
from nonsmooth.planar import PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Force, Gravity
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.simulate import resolve_laws

G = 9.81
STIFF = {"method": "LSODA", "rtol": 1e-10, "atol": 1e-12}


# ----------------------------------------------------------------------------- references
def stribeck(v, mu_s, mu_d, v_s):
    """LuGre's g(v) = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2), written out here."""
    return mu_d + (mu_s - mu_d) * math.exp(-((v / v_s) ** 2))


def lugre_steady(v, N, mu_s, mu_d, v_s, sigma2):
    """Steady LuGre friction (opposing the slip): N g(v) sgn(v) + sigma2 v."""
    return N * math.copysign(stribeck(v, mu_s, mu_d, v_s), v) + sigma2 * v


def regularized_force(v, N, *, viscous, coulomb, falloff_vel, stiction_extra, stribeck_vel,
                      normal_load):
    """The regularized law's documented curve (opposing the slip), written out here."""
    s = abs(v)
    peak = coulomb + stiction_extra
    if s <= falloff_vel:
        dry = peak * math.sin(0.5 * math.pi * s / falloff_vel)
    elif stribeck_vel > 0:
        dry = coulomb + stiction_extra * math.exp(-(((s - falloff_vel) / stribeck_vel) ** 2))
    else:
        dry = coulomb
    dry = math.copysign(dry, v) if v != 0 else 0.0
    return (dry * N if normal_load else dry) + viscous * v


def belt_cycle_coulomb(m, k, F_s, F_d, v_belt):
    """Coulomb belt limit cycle (tests/friction/test_stick_slip.py): (T_stick, T_slip)."""
    omega = math.sqrt(k / m)
    D = (F_s - F_d) / k
    return (2 * (F_s - F_d) / (k * v_belt),
            (2 * math.pi - 2 * math.atan2(omega * D, v_belt)) / omega)


def belt_cycle_coulomb_viscous(m, k, F_s, F_d, c, v_belt):
    """Belt limit cycle with Coulomb levels F_s, F_d plus a viscous term c v_r on the slip.

    Slip (from break-away at k x = F_s, v = v_belt): m x'' + c x' + k x = F_d + c v_belt, a
    damped linear oscillator solved in closed form; it re-sticks when v returns to v_belt and
    then rides the belt back to k x = F_s. Returns (period, largest spring force k x_max, reached
    where v = 0 after break-away); c = 0 gives the Coulomb forms."""
    omega = math.sqrt(k / m)
    zeta = c / (2 * math.sqrt(k * m))
    wd = omega * math.sqrt(1 - zeta * zeta)
    x_b, x_e = F_s / k, (F_d + c * v_belt) / k
    A = x_b - x_e
    B = (v_belt + zeta * omega * A) / wd

    def x(t):
        return x_e + math.exp(-zeta * omega * t) * (A * math.cos(wd * t) + B * math.sin(wd * t))

    def dv(t):
        e = math.exp(-zeta * omega * t)
        return e * ((wd * B - zeta * omega * A) * math.cos(wd * t)
                    - (zeta * omega * B + wd * A) * math.sin(wd * t)) - v_belt

    grid = np.linspace(0.0, 2 * math.pi / wd, 20001)[1:]
    vals = np.array([dv(t) for t in grid])
    i = np.flatnonzero((vals[:-1] < 0) & (vals[1:] >= 0))[0]
    t_slip = brentq(dv, grid[i], grid[i + 1], xtol=1e-14)
    j = np.flatnonzero(vals + v_belt <= 0)[0]  # first sample past the turning point
    t_turn = brentq(lambda t: dv(t) + v_belt, 1e-12, grid[j], xtol=1e-14)
    return t_slip + (x_b - x(t_slip)) / v_belt, k * x(t_turn)


def down_crossings(t, y):
    """Times where y crosses zero downwards (linear interpolation between samples)."""
    i = np.flatnonzero((y[:-1] > 0) & (y[1:] <= 0))
    return t[i] + (t[i + 1] - t[i]) * y[i] / (y[i] - y[i + 1])


def quiet_simulate(*args, **kwargs):
    """simulate() with the (tested elsewhere) parameter warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return nonsmooth.simulate(*args, **kwargs)


# ----------------------------------------------------------------------------- rigs
def driven_slider(law, params, *, speed=None, motion=None, m=1.0, mu_d=0.3, mu_s=0.4, g=G):
    """A point mass in a horizontal slot of the ground (normal load m g), its slip velocity
    prescribed by a driver: constant ``speed`` or ``motion = (f, df, ddf)`` with f(0) = 0."""
    mdl = PlanarModel("driven slider")
    v0 = speed if speed is not None else motion[1](0.0)
    slider = mdl.add(PointMass("slider", m, velocity=(v0, 0.0)))
    slot = mdl.add(Translational("slot", ground, slider, (0.0, 0.0), (1.0, 0.0), mu=mu_d,
                                 mu_s=mu_s, normal="left", law=law, friction=params))
    if speed is not None:
        mdl.add(Driver("drive", slot, speed=speed))
    else:
        mdl.add(Driver("drive", slot, motion=motion))
    mdl.add(Gravity(g=g))
    return mdl


def velocity_ramp(v, T):
    """Driver motion whose velocity rises smoothly (smoothstep) from 0 to v over T, then holds:
    the bristles start undeflected at rest and must reach the steady state by themselves."""
    def f(t):
        if t <= 0:
            return 0.0
        if t >= T:
            return v * T / 2 + v * (t - T)
        s = t / T
        return v * T * (s ** 3 - 0.5 * s ** 4)

    def df(t):
        s = min(max(t / T, 0.0), 1.0)
        return v * (3 * s * s - 2 * s ** 3)

    def ddf(t):
        if t <= 0 or t >= T:
            return 0.0
        s = t / T
        return v * (6 * s - 6 * s * s) / T

    return f, df, ddf


# ============================================================================= 1. LuGre steady
LUGRE = {"sigma0": 1e5, "sigma1": 300.0, "sigma2": 0.4, "v_s": 1e-4}


@pytest.mark.parametrize("v", [3e-5, 1e-4, 1.7e-4, -1e-4, -2.5e-4, 1e-2])
def test_lugre_steady_force_at_constant_slip_velocity(v):
    """From rest (z = 0) to a held slip velocity across the Stribeck region: the friction force
    settles at N g(v) sgn(v) + sigma2 v."""
    mdl = driven_slider("lugre", LUGRE, motion=velocity_ramp(v, 0.5))
    r = quiet_simulate(mdl, 3.0, dt=1e-2, **STIFF)
    N = 1.0 * G
    np.testing.assert_allclose(r["lambda_N"], N, rtol=1e-10)
    assert r["F_T"][0] == 0.0  # at rest, undeflected
    expected = -lugre_steady(v, N, 0.4, 0.3, LUGRE["v_s"], LUGRE["sigma2"])
    assert r["F_T"][-1] == pytest.approx(expected, rel=1e-7)
    # bristle deflection at steady state: g(v) sgn(v) / sigma0
    z_ss = math.copysign(stribeck(v, 0.4, 0.3, LUGRE["v_s"]), v) / LUGRE["sigma0"]
    assert r.z[-1, 0] == pytest.approx(z_ss, rel=1e-7)


@pytest.mark.parametrize("v_belt", [0.3, -0.3])
def test_damped_oscillator_on_fast_belt_settles_where_spring_balances_friction(v_belt):
    """Steady sliding on a fast belt: k x* = N g(v_belt) + sigma2 v_belt, on the side the belt
    moves (the friction drags the block along the belt). Parameters given by MotionSolve's
    names (aliases)."""
    k, sigma2, v_s = 100.0, 0.5, 0.2
    N = 1.0 * G
    x_star = math.copysign(N * stribeck(v_belt, 0.4, 0.3, v_s), v_belt) / k + sigma2 * v_belt / k
    model = oscillator.build(friction="lugre", v_belt=v_belt, c=10.0, k=k, x0=x_star + 0.01,
                             v0=0.0, bristle_stiffness=1e4, damping_effects=1.0,
                             viscous_effects=sigma2, stiction_trans_vel=v_s)
    r = nonsmooth.simulate(model, 8.0, **STIFF)
    assert math.copysign(1.0, x_star) == math.copysign(1.0, v_belt)
    assert abs(r["x"][-1] - x_star) < 1e-8
    assert abs(r["v"][-1]) < 1e-8
    assert r["F_f"][-1] == pytest.approx(k * x_star, rel=1e-7)


# ============================================================================= 2. Coulomb limit
def test_lugre_stiffened_toward_coulomb_limit_converges_to_the_belt_period():
    """sigma0 up, v_s down, sigma1 = 2 sqrt(m sigma0 / N) (critically damped bristles),
    sigma2 = 0: the stick-slip period and the largest spring force tend to the Coulomb closed
    forms (the error shrinks about as sigma0^(-0.3): bristle creep before break-away)."""
    m, k, mu_s, mu_d, v_belt = 1.0, 100.0, 0.4, 0.3, 0.1
    N = m * G
    T_stick, T_slip = belt_cycle_coulomb(m, k, mu_s * N, mu_d * N, v_belt)
    T_ref = T_stick + T_slip
    T_check, peak_ref = belt_cycle_coulomb_viscous(m, k, mu_s * N, mu_d * N, 0.0, v_belt)
    assert T_check == pytest.approx(T_ref, rel=1e-10)
    omega = math.sqrt(k / m)
    assert peak_ref == pytest.approx(  # k x_max = F_d + k sqrt(D^2 + (v_belt / omega)^2)
        mu_d * N + math.hypot((mu_s - mu_d) * N, k * v_belt / omega), rel=1e-10)
    rows = []
    for sigma0, v_s in ((1e5, 3e-4), (1e6, 1e-4), (1e7, 3e-5)):
        sigma1 = 2 * math.sqrt(m * sigma0 / N)
        model = oscillator.build(friction="lugre", m=m, k=k, mu_s=mu_s, mu_d=mu_d,
                                 v_belt=v_belt, x0=0.0, v0=v_belt, sigma0=sigma0,
                                 sigma1=sigma1, sigma2=0.0, v_s=v_s)
        r = quiet_simulate(model, 1.6, method="LSODA", rtol=1e-8, atol=1e-10, dt=1e-3)
        turns = down_crossings(r.t, r["v"])  # turning points x_max, one per cycle
        assert len(turns) >= 2
        period = turns[1] - turns[0]
        peak = k * float(np.interp(turns[1], r.t, r["x"]))
        rows.append((sigma0, v_s, period, abs(period - T_ref) / T_ref, peak,
                     abs(peak - peak_ref) / peak_ref))
    print(f"\nCoulomb: period {T_ref:.6f} s, largest spring force {peak_ref:.5f} N")
    print(f"{'sigma0 [1/m]':>12} {'v_s [m/s]':>10} {'period [s]':>11} {'rel. err':>9} "
          f"{'k x_max [N]':>12} {'rel. err':>9}")
    for row in rows:
        print(f"{row[0]:>12.0e} {row[1]:>10.0e} {row[2]:>11.6f} {row[3]:>9.2%} {row[4]:>12.5f}"
              f" {row[5]:>9.2%}")
    errors = [row[3] for row in rows]
    assert errors[0] > errors[1] > errors[2]
    assert errors[-1] < 0.02
    peak_errors = [row[5] for row in rows]
    assert peak_errors[0] > peak_errors[1] > peak_errors[2]
    assert peak_errors[-1] < 0.02


# ============================================================================= 3. Canudas de Wit
CDW = {"m": 1.0, "F_c": 1.0, "F_s": 1.5, "sigma0": 1e5, "sigma1": math.sqrt(1e5),
       "sigma2": 0.4, "v_s": 1e-3}


def cdw_law_params(g=G):
    """Table I (absolute forces) mapped onto the per-newton parameters, N = m g."""
    N = CDW["m"] * g
    return N, {"mu_s": CDW["F_s"] / N, "mu_d": CDW["F_c"] / N, "sigma0": CDW["sigma0"] / N,
               "sigma1": CDW["sigma1"] / N, "sigma2": CDW["sigma2"], "v_s": CDW["v_s"]}


def test_cdw_table1_mapping_reproduces_the_absolute_law():
    """The per-newton law at N = m g gives Table I's absolute force, term by term."""
    N, p = cdw_law_params()
    law = LuGre(**p)
    v, z = 3e-4, 4e-6
    g_abs = CDW["F_c"] + (CDW["F_s"] - CDW["F_c"]) * math.exp(-((v / CDW["v_s"]) ** 2))
    dz = v - CDW["sigma0"] * abs(v) * z / g_abs
    F_abs = CDW["sigma0"] * z + CDW["sigma1"] * dz + CDW["sigma2"] * v
    assert law.force(v, N, (z,)) == pytest.approx(-F_abs, rel=1e-12)
    assert law.state_derivative(v, (z,))[0] == pytest.approx(dz, rel=1e-12)


def test_cdw_stick_slip_spring_force_peaks_and_period():
    """Mass pulled through a spring k = 2 N/m at 0.1 m/s == the belt oscillator with the belt at
    0.1 m/s (x_belt = -(x_mass - x_puller), same equation since F is odd in v).

    Spring-force peaks (at the turning points) near 1.5 N: within 2 % of F_s and within 1 % of
    the Coulomb(+viscous) cycle's peak. The period is close to the Coulomb closed form with F_s,
    F_c: within 20 % of it, because Table I's viscous term sigma2 = 0.4 N s/m (damping ratio 0.14
    on k = 2, m = 1) damps the slip swing and shortens the stick phase, which the Coulomb form
    ignores; within 3 % of the same cycle with the viscous term added (what is left is bristle
    creep before break-away and the Stribeck decay)."""
    k, v_pull = 2.0, 0.1
    N, p = cdw_law_params()
    model = oscillator.build(friction="lugre", m=CDW["m"], k=k, g=G, v_belt=v_pull, x0=0.0,
                             v0=v_pull, **p)
    r = quiet_simulate(model, 15.0, method="LSODA", rtol=1e-8, atol=1e-10, dt=1e-3)
    spring = k * r["x"]  # spring force magnitude (the spring is stretched along the belt)
    turns = down_crossings(r.t, r["v"])
    assert len(turns) == 2
    peaks = [float(np.interp(t, r.t, spring)) for t in turns]
    T_stick, T_slip = belt_cycle_coulomb(CDW["m"], k, CDW["F_s"], CDW["F_c"], v_pull)
    T_coulomb = T_stick + T_slip
    T_check, peak_coulomb = belt_cycle_coulomb_viscous(CDW["m"], k, CDW["F_s"], CDW["F_c"], 0.0,
                                                       v_pull)
    assert T_check == pytest.approx(T_coulomb, rel=1e-10)  # the reference reduces to Coulomb
    T_visc, peak_visc = belt_cycle_coulomb_viscous(CDW["m"], k, CDW["F_s"], CDW["F_c"],
                                                   CDW["sigma2"], v_pull)
    period = turns[1] - turns[0]
    print(f"\nCdW stick-slip: spring-force peaks {peaks} N (Coulomb {peak_coulomb:.4f}, "
          f"+ viscous {peak_visc:.4f}), period {period:.4f} s (Coulomb {T_coulomb:.4f} s, "
          f"Coulomb + viscous {T_visc:.4f} s)")
    for peak in peaks:
        assert peak == pytest.approx(CDW["F_s"], rel=0.02)
        assert peak == pytest.approx(peak_visc, rel=0.01)
    assert spring.max() < CDW["F_s"] * 1.02
    assert period == pytest.approx(T_coulomb, rel=0.20)
    assert period == pytest.approx(T_visc, rel=0.03)
    assert period < T_coulomb  # the viscous term shortens the cycle


def presliding_rig(F0, T_ramp=1.0):
    """The CdW mass at rest in a slot; a force rises smoothly (smoothstep) to F0, then holds."""
    N, p = cdw_law_params()
    mdl = PlanarModel("presliding")
    mass = mdl.add(PointMass("mass", CDW["m"]))
    mdl.add(Translational("slot", ground, mass, (0.0, 0.0), (1.0, 0.0), mu=p.pop("mu_d"),
                          mu_s=p.pop("mu_s"), normal="left", law="lugre", friction=p))

    def push(t, q, v):
        s = min(t / T_ramp, 1.0)
        return F0 * (3 * s * s - 2 * s ** 3), 0.0

    mdl.add(Force("push", mass, push))
    mdl.add(Gravity(g=G))
    return mdl


@pytest.mark.parametrize("F0", [0.5, 0.9])
def test_cdw_presliding_displacement_below_breakaway(F0):
    """A force below break-away gives a bounded displacement of order F / sigma0_abs = 1e-5 m.
    Loaded slowly (v << v_s, so g = F_s / N), dz/dx = 1 - z / z_s with z_s = F_s / sigma0_abs,
    hence x = -z_s ln(1 - F / F_s) at rest, where sigma0_abs z = F."""
    r = quiet_simulate(presliding_rig(F0), 3.0, method="LSODA", rtol=1e-10, atol=1e-14,
                       dt=1e-3)
    x, v = r["mass.x"], r.v[:, 0]
    z_s = CDW["F_s"] / CDW["sigma0"]
    x_ref = -z_s * math.log(1 - F0 / CDW["F_s"])
    print(f"\npresliding F = {F0} N: x = {x[-1]:.6e} m (closed form {x_ref:.6e} m, "
          f"F / sigma0 = {F0 / CDW['sigma0']:.1e} m)")
    assert x[-1] == pytest.approx(x_ref, rel=1e-3)
    assert 0.5 * F0 / CDW["sigma0"] < x[-1] < 2 * F0 / CDW["sigma0"]
    assert abs(v[-1]) < 1e-9  # at rest, not sliding
    assert abs(x[-1] - x[r.t.searchsorted(2.0)]) < 1e-9  # no drift while the load holds
    assert CDW["sigma0"] * r.z[-1, 0] == pytest.approx(F0, rel=1e-6)  # the bristles carry F


def test_cdw_force_above_breakaway_slides():
    r = quiet_simulate(presliding_rig(2.0), 1.5, method="LSODA", rtol=1e-8, atol=1e-12)
    assert r["mass.x"][-1] > 1e-2  # gross sliding, three orders beyond presliding


def lugre_reference_force(t, velocity, N, p):
    """The LuGre force (opposing) along a prescribed slip velocity, from the ODE integrated
    here by scipy (bristles start at the steady state of v(0))."""
    def g(v):
        return stribeck(v, p["mu_s"], p["mu_d"], p["v_s"])

    def rhs(tt, z):
        v = velocity(tt)
        return [v - p["sigma0"] * abs(v) * z[0] / g(v)]

    v0 = velocity(0.0)
    sol = solve_ivp(rhs, (0.0, t[-1]), [math.copysign(g(v0), v0) / p["sigma0"]],
                    method="Radau", rtol=1e-11, atol=1e-16, t_eval=t)
    v = np.array([velocity(tt) for tt in t])
    z = sol.y[0]
    dz = v - p["sigma0"] * np.abs(v) * z / np.array([g(vv) for vv in v])
    return N * (p["sigma0"] * z + p["sigma1"] * dz) + p["sigma2"] * v


def test_cdw_frictional_lag_loop_widens_with_frequency():
    """Slip velocity v = 1.5e-3 + 1e-3 sin(w t) m/s (through the Stribeck region) at w = 1, 10,
    25 rad/s: the engine's force follows the LuGre ODE integrated here, and the friction-velocity
    loop (force at v = 1.5e-3 accelerating minus decelerating) opens wider as w grows."""
    N, p = cdw_law_params()
    a, b = 1.5e-3, 1e-3
    widths = []
    for w in (1.0, 10.0, 25.0):
        motion = (lambda t, w=w: a * t + b * (1 - math.cos(w * t)) / w,
                  lambda t, w=w: a + b * math.sin(w * t),
                  lambda t, w=w: b * w * math.cos(w * t))
        P = 2 * math.pi / w
        mdl = driven_slider("lugre", {k: p[k] for k in ("sigma0", "sigma1", "sigma2", "v_s")},
                            motion=motion, mu_d=p["mu_d"], mu_s=p["mu_s"])
        r = quiet_simulate(mdl, 2.25 * P, method="LSODA", rtol=1e-10, atol=1e-13, dt=P / 400)
        F = -r["F_T"]
        ref = lugre_reference_force(r.t, motion[1], N, p)
        np.testing.assert_allclose(F, ref, atol=1e-6)
        up, down = F[r.t.searchsorted(2 * P - 1e-9)], F[r.t.searchsorted(1.5 * P - 1e-9)]
        assert r.t[r.t.searchsorted(2 * P - 1e-9)] == pytest.approx(2 * P, rel=1e-9)
        widths.append(float(up - down))
    print("\nLuGre loop width at v = 1.5e-3 m/s for w = 1, 10, 25 rad/s: "
          + ", ".join(f"{w:.5f}" for w in widths) + " N")
    assert 0 < widths[0] < widths[1] < widths[2]
    assert widths[2] > 10 * widths[0]


# ============================================================================= 4. regularized
REG = {"viscous": 0.7, "coulomb": 0.3, "falloff_vel": 1e-3, "stiction_extra": 0.15,
       "stribeck_vel": 5e-3}
REG_VELOCITIES = [2.5e-4, 5e-4, 9e-4, 1e-3, 1.5e-3, 4e-3, 6e-3, 1.2e-2, 5e-2, 0.3]


@pytest.mark.parametrize("normal_load", [True, False])
def test_regularized_curve_point_by_point_at_constant_velocity(normal_load):
    params = dict(REG, normal_load=normal_load)
    if not normal_load:  # absolute forces (N)
        params.update(coulomb=2.0, stiction_extra=1.2)
    N = 2.0 * G
    for v in REG_VELOCITIES + [-x for x in REG_VELOCITIES]:
        mdl = driven_slider("regularized", params, speed=v, m=2.0)
        r = nonsmooth.simulate(mdl, 0.02, method="RK45", dt=1e-2)
        expected = -regularized_force(v, N, **params)
        np.testing.assert_allclose(r["F_T"], expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(r["v_T"], v, rtol=1e-12)


@pytest.mark.parametrize("stribeck_vel", [5e-3, 0.0])
def test_regularized_curve_along_a_velocity_sweep(stribeck_vel):
    """Slip velocity swept linearly from -0.02 to 0.02 m/s: force and formula at every output
    (normal-load form; with stribeck_vel = 0 the dry part drops to coulomb past the peak)."""
    params = dict(REG, stribeck_vel=stribeck_vel, normal_load=True)
    v0, acc = -0.02, 0.04
    motion = (lambda t: v0 * t + 0.5 * acc * t * t, lambda t: v0 + acc * t, lambda t: acc)
    mdl = driven_slider("regularized", params, motion=motion)
    r = quiet_simulate(mdl, 1.0, method="RK45", dt=1e-3)
    expected = [-regularized_force(v, G, **params) for v in r["v_T"]]
    np.testing.assert_allclose(r["F_T"], expected, rtol=1e-9, atol=1e-9)
    assert np.abs(r["F_T"]).max() > (REG["coulomb"] + REG["stiction_extra"]) * G  # peak seen


def test_regularized_warns_for_stiction_extra_without_stribeck_velocity():
    mdl = driven_slider("regularized", {"stiction_extra": 0.1, "stribeck_vel": 0.0}, speed=0.1)
    with pytest.warns(RuntimeWarning, match=r"stiction_extra > 0 with stribeck_vel = 0"):
        nonsmooth.simulate(mdl, 0.01, method="RK45")
    mdl = driven_slider("regularized", {"stiction_extra": 0.1, "stribeck_vel": 1e-2}, speed=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nonsmooth.simulate(mdl, 0.01, method="RK45")
    assert Regularized(stiction_extra=0.0, stribeck_vel=0.0).warnings() == []


@pytest.mark.parametrize("name, value, match", [
    ("viscous", -0.1, r"regularized friction: viscous = -0\.1 is invalid; it must be a finite "
                      r"number >= 0"),
    ("coulomb", -1.0, r"coulomb = -1\.0 is invalid"),
    ("falloff_vel", 0.0, r"falloff_vel = 0\.0 is invalid; it must be a finite number > 0"),
    ("falloff_vel", -1e-3, r"falloff_vel = -0\.001 is invalid"),
    ("stiction_extra", -0.2, r"stiction_extra = -0\.2 is invalid"),
    ("stribeck_vel", -1.0, r"stribeck_vel = -1\.0 is invalid"),
    ("stribeck_vel", math.nan, r"stribeck_vel = nan is invalid"),
])
def test_regularized_rejects_negative_parameters(name, value, match):
    with pytest.raises(ModelError, match=match):
        Regularized(**{name: value})
    mdl = driven_slider("regularized", {name: value}, speed=0.1)  # through a model
    with pytest.raises(ModelError, match=match):
        nonsmooth.simulate(mdl, 0.01, method="RK45")


# ============================================================================= 5. LuGre checks
@pytest.mark.parametrize("kwargs, match", [
    ({"sigma0": 0.0}, r"lugre friction: sigma0 = 0\.0 is invalid; it must be a finite number > 0"),
    ({"sigma0": -1e5}, r"sigma0 = -100000\.0 is invalid"),
    ({"mu_s": 0.2, "mu_d": 0.3}, r"lugre friction: mu_s = 0\.2 must be >= mu_d = 0\.3"),
    ({"effect": "BOTH"}, r"effect = 'BOTH'; allowed: ALL, STICTION, SLIDING"),
    ({"v_s": 0.0}, r"v_s = 0\.0 is invalid"),
    ({"sigma1": -1.0}, r"sigma1 = -1\.0 is invalid"),
])
def test_lugre_rejects_invalid_parameters(kwargs, match):
    args = {"mu_s": 0.4, "mu_d": 0.3, **kwargs}
    with pytest.raises(ModelError, match=match):
        LuGre(**args)


def test_lugre_dissipativity_warning():
    """sigma1 < sigma2 mu_d / (mu_s - mu_d) (= 0.4 * 0.3 / 0.1 = 1.2 here): quiet below, a
    RuntimeWarning naming the condition at and above."""
    base = {"friction": "lugre", "sigma2": 0.4, "mu_s": 0.4, "mu_d": 0.3}
    with pytest.warns(RuntimeWarning, match=r"sigma1 = 1\.3 >= sigma2 mu_d / \(mu_s - mu_d\) = "
                                            r"1\.2: the law is not guaranteed to dissipate"):
        nonsmooth.simulate(oscillator.build(sigma1=1.3, **base), 0.01, method="LSODA")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nonsmooth.simulate(oscillator.build(sigma1=1.1, **base), 0.01, method="LSODA")
        # mu_s == mu_d: no Stribeck drop, nothing to violate
        nonsmooth.simulate(oscillator.build(sigma1=50.0, friction="lugre", mu_s=0.3, mu_d=0.3),
                           0.01, method="LSODA")
    assert LuGre(0.3, 0.4, sigma1=1.2, sigma2=0.4).warnings()  # the boundary warns


@pytest.mark.parametrize("effect, v", [("SLIDING", 5e-5), ("SLIDING", -1e-4),
                                       ("SLIDING", 2e-3), ("STICTION", 5e-5),
                                       ("STICTION", -2e-3)])
def test_lugre_effect_switch_steady_forces(effect, v):
    """SLIDING (documented in lugre.py: no bristles, no stiction) gives
    N mu_d tanh(v / v_s) + sigma2 v: no Stribeck peak, and N mu_d sgn v + sigma2 v once
    |v| >> v_s; STICTION gives N mu_s sgn v (bristles with g = mu_s, no viscous term).
    Velocities inside the Stribeck region, where ALL would differ, and beyond it."""
    params = dict(LUGRE, effect=effect)
    r = quiet_simulate(driven_slider("lugre", params, motion=velocity_ramp(v, 0.5)), 3.0,
                       dt=1e-2, **STIFF)
    N = G
    if effect == "SLIDING":
        expected = N * 0.3 * math.tanh(v / LUGRE["v_s"]) + LUGRE["sigma2"] * v
        # no Stribeck peak anywhere along the ramp: |F| <= N mu_d + sigma2 |v|
        assert np.all(np.abs(r["F_T"]) <= N * 0.3 + LUGRE["sigma2"] * np.abs(r["v_T"]) + 1e-12)
        if abs(v) >= 20 * LUGRE["v_s"]:
            assert expected == pytest.approx(N * math.copysign(0.3, v) + LUGRE["sigma2"] * v,
                                             rel=1e-12)
    else:
        expected = N * math.copysign(0.4, v)
    assert -r["F_T"][-1] == pytest.approx(expected, rel=1e-7)
    if effect == "STICTION" or abs(v) < 3 * LUGRE["v_s"]:  # where ALL is different
        assert abs(expected - lugre_steady(v, N, 0.4, 0.3, LUGRE["v_s"], LUGRE["sigma2"])) > 1e-4


def test_motionsolve_aliases_reach_the_law():
    model = oscillator.build(bristle_stiffness=2.5e4, damping_effects=0.8, viscous_effects=0.05,
                             stiction_trans_vel=3e-3, mu_static=0.45, mu_dynamic=0.25)
    law = resolve_laws(model.system, "lugre")[0]
    assert isinstance(law, LuGre)
    assert (law.sigma0, law.sigma1, law.sigma2, law.v_s) == (2.5e4, 0.8, 0.05, 3e-3)
    assert (law.mu_s, law.mu_d) == (0.45, 0.25)
    assert model.parameters["sigma0"] == 2.5e4 and "bristle_stiffness" not in model.parameters


# ============================================================================= 6. energy
@pytest.mark.parametrize("law, extra", [
    ("lugre", {"sigma0": 1e4, "sigma1": 1.0, "sigma2": 0.4, "v_s": 1e-3}),
    ("regularized", {"falloff_vel": 1e-3, "stribeck_vel": 1e-2}),
])
def test_energy_balance_and_friction_dissipation_over_a_cycle(law, extra):
    model = oscillator.build(friction=law, c=0.5, **extra)
    r = nonsmooth.simulate(model, 2.5, method="LSODA", rtol=1e-9, atol=1e-12)
    d = r.diagnostics
    assert d["energy_balance_relative"] < 1e-6
    # the friction work the engine accumulates is the integral of F_T v_T (checked here)
    W = r.work[:, 3]
    power = r["F_f"] * r["v_r"]
    W_trap = np.concatenate(([0.0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(r.t))))
    np.testing.assert_allclose(W, W_trap, atol=1e-4 * np.abs(W).max())
    # over each stick-slip cycle (turning point to turning point) the pair dissipates
    turns = down_crossings(r.t, r["v"])
    assert len(turns) >= 3
    W_at = np.interp(turns, r.t, W)
    assert np.all(np.diff(W_at) < -1e-3)
    assert d["work"]["W_damping"] < 0


def test_each_law_packs_its_own_numbers_for_the_compiled_stage():
    """``FrictionLaw.pack`` (obligation 7): each built-in law gives the stage's kind code and
    its numbers, which land in the plan's law blocks unchanged; a subclass that inherits
    ``pack`` (and may compute otherwise) is not compiled: the general path evaluates it."""
    from nonsmooth.core import layout, stage
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.friction import Coulomb, LuGre, Regularized
    from nonsmooth.models import stick_slip_oscillator

    kinds = {Coulomb: stage.COULOMB, LuGre: stage.LUGRE, Regularized: stage.REGULARIZED}
    system = stick_slip_oscillator.build().system
    for cls, kind in kinds.items():
        law = cls() if cls is Regularized else cls(mu_d=0.25, mu_s=0.4)
        got, numbers = law.pack()
        assert got == kind and len(numbers) <= layout.N_LAW
        plan = Dynamics(system, laws=[law]).plan
        views = layout.plan_slices(1, len(system.abs_rows), system.n_constraints)
        assert plan[views["law"]][0] == kind
        np.testing.assert_array_equal(plan[views["law_par"]][:len(numbers)], numbers)
        assert not np.any(plan[views["law_par"]][len(numbers):])

    class Softer(LuGre):  # inherits pack, computes otherwise
        def coefficients(self, v_T, z):
            a, b = super().coefficients(v_T, z)
            return 0.5 * a, b

    assert Dynamics(system, laws=[Softer(mu_d=0.25, mu_s=0.4)]).plan is None
