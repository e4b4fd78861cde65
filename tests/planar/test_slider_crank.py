"""The slider-crank benchmark against an independent Newton-Euler computation and closed forms.

The reference below is written from the geometry alone (it imports nothing from the engine):
crank OB, rod BP (uniform bars), slider P on the line y = e, gravity -y. Unknowns of the
Newton-Euler equations: the pin forces at O (ground on crank), B (crank on rod), P (rod on
slider), the normal force lambda_N (guide on slider, +y) and either the driving torque tau (with
the friction force F_T given) or the friction force (with tau given: statics of a stuck slider).
With the crank speed prescribed the accelerations are known, so lambda_N is affine in F_T:
``lambda_N = c + k F_T``, and with ``F_T = -mu s |lambda_N|`` the scalar HLCP coefficient is
``a = -mu s k``; here ``k = tan(phi)`` exactly (the increment of F_T is carried statically, and the
rod is then a two-force member).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.optimize import brentq

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.models import slider_crank
from nonsmooth.simulate import project

TIGHT = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}


# ----------------------------------------------------------------------------- reference
def kinematics(theta, omega, alpha, p):
    """Positions, rod angle rates and accelerations of the slider-crank (from the geometry)."""
    r, L, e = p["r"], p["l"], p["e"]
    c, s = math.cos(theta), math.sin(theta)
    sphi = (e - r * s) / L
    cphi = math.sqrt(1.0 - sphi ** 2)
    dphi = -r * omega * c / (L * cphi)
    ddphi = (r * s * omega ** 2 - r * c * alpha + L * sphi * dphi ** 2) / (L * cphi)
    B = np.array([r * c, r * s])
    aB = r * np.array([-s * alpha - c * omega ** 2, c * alpha - s * omega ** 2])
    u, un = np.array([cphi, sphi]), np.array([-sphi, cphi])
    return {
        "B": B, "P": B + L * u, "c1": B / 2, "c2": B + 0.5 * L * u,
        "a1": aB / 2, "a2": aB + 0.5 * L * (ddphi * un - dphi ** 2 * u),
        "aP": aB + L * (ddphi * un - dphi ** 2 * u), "ddphi": ddphi,
        "x_s": r * c + L * cphi, "v_s": -r * omega * s - L * dphi * sphi,
        "tanphi": sphi / cphi,
    }


def newton_euler(theta, omega, alpha, p, *, tau=None, F_T=None):
    """Solve the 8 Newton-Euler equations; exactly one of ``tau``, ``F_T`` is given.

    Returns a dict with the pin forces, ``lambda_N`` and ``tau`` or ``F_T`` (the unknown one).
    """
    k = kinematics(theta, omega, alpha, p)
    m1, m2, m3, g, r, L = p["m1"], p["m2"], p["m3"], p["g"], p["r"], p["l"]
    I1, I2 = m1 * r * r / 12, m2 * L * L / 12
    A, b = np.zeros((8, 8)), np.zeros(8)
    # unknowns: Ox Oy Bx By Px Py lambda_N X
    dO, dB = -k["c1"], k["B"] - k["c1"]
    A[0, [0, 2]], b[0] = (1, -1), m1 * k["a1"][0]  # crank: O - B_force + weight
    A[1, [1, 3]], b[1] = (1, -1), m1 * (k["a1"][1] + g)
    A[2, :4], b[2] = (-dO[1], dO[0], dB[1], -dB[0]), I1 * alpha
    dB2, dP2 = k["B"] - k["c2"], k["P"] - k["c2"]
    A[3, [2, 4]], b[3] = (1, -1), m2 * k["a2"][0]  # rod: B_force - P_force + weight
    A[4, [3, 5]], b[4] = (1, -1), m2 * (k["a2"][1] + g)
    A[5, 2:6], b[5] = (-dB2[1], dB2[0], dP2[1], -dP2[0]), I2 * k["ddphi"]
    A[6, 4], b[6] = 1, m3 * k["aP"][0]  # slider: P_force + friction (x), + normal (y)
    A[7, [5, 6]], b[7] = (1, 1), m3 * g
    if tau is None:
        A[2, 7] = 1.0
        b[6] -= F_T
    else:
        A[6, 7] = 1.0
        b[2] -= tau
    x = np.linalg.solve(A, b)
    out = dict(zip(("Ox", "Oy", "Bx", "By", "Px", "Py", "lambda_N"), x[:7], strict=True))
    out["tau" if tau is None else "F_T"] = x[7]
    return out


def speed_driven_forces(t, p):
    """lambda_N, F_T, tau, the HLCP coefficients (a, c) and v_s at time t, drive='speed'."""
    w = p["omega0"]
    theta = p["theta0"] + w * t
    f0 = newton_euler(theta, w, 0.0, p, F_T=0.0)
    f1 = newton_euler(theta, w, 0.0, p, F_T=1.0)
    c, k = f0["lambda_N"], f1["lambda_N"] - f0["lambda_N"]
    v_s = kinematics(theta, w, 0.0, p)["v_s"]
    s = math.copysign(1.0, v_s)
    a = -p["mu_d"] * s * k
    lam = c / (1 - a) if c >= 0 else c / (1 + a)  # the unique root for |a| < 1
    F = -p["mu_d"] * s * abs(lam)
    tau = f0["tau"] + (f1["tau"] - f0["tau"]) * F
    return {"lambda_N": lam, "F_f": F, "tau": tau, "a": a, "c": c, "k": k, "v_s": v_s,
            "theta": theta}


def dead_centre_times(p, t_end):
    """Times of the inner (slip- -> slip+) and outer (slip+ -> slip-) dead centres, omega0 > 0."""
    r, L, e, w, th0 = p["r"], p["l"], p["e"], p["omega0"], p["theta0"]
    out = []
    for theta, kind in ((math.pi + math.asin(e / (L - r)), "inner"),
                        (math.asin(e / (L + r)), "outer")):
        t = ((theta - th0) % (2 * math.pi)) / w
        while t < t_end:
            if t > 0:
                out.append((t, kind))
            t += 2 * math.pi / w
    return sorted(out)


@pytest.fixture(scope="module")
def speed_run():
    model = slider_crank.build()  # drive="speed", omega0 = 20 rad/s, e = 0.05 m
    period = 2 * math.pi / model.parameters["omega0"]
    return model, nonsmooth.simulate(model, 2 * period, dt=2 * period / 1000, **TIGHT)


# ----------------------------------------------------------------------------- tests
def test_parameters_and_geometry_checks():
    names = [p.name for p in slider_crank.PARAMETERS]
    for n in ("r", "l", "e", "m1", "m2", "m3", "mu_s", "mu_d", "drive", "T0", "omega0"):
        assert n in names
    assert all(p.unit for p in slider_crank.PARAMETERS)
    with pytest.raises(nonsmooth.ModelError, match=r"r \+ \|e\| = 0.35 m must be < l = 0.3 m"):
        slider_crank.build(r=0.1, e=-0.25)
    with pytest.raises(nonsmooth.ModelError, match=r"mu_s = 0.1 must be >= mu_d = 0.2"):
        slider_crank.build(mu_s=0.1)
    with pytest.raises(nonsmooth.ModelError, match=r"drive = 'motor' is invalid"):
        slider_crank.build(drive="motor")


def test_initial_state_is_assembled():
    model = slider_crank.build(theta0=2.0, omega0=-3.0)
    p = model.parameters
    q, v = project(model.system, 0.0, model.q0, model.v0)
    np.testing.assert_allclose(q, model.q0, atol=1e-14)  # nothing to correct
    np.testing.assert_allclose(v, model.v0, atol=1e-13)
    k = kinematics(2.0, -3.0, 0.0, p)
    ix = model.system.coordinate_names.index("slider.x")
    assert model.q0[ix] == pytest.approx(k["x_s"], abs=1e-15)
    assert model.v0[ix] == pytest.approx(k["v_s"], abs=1e-14)


def test_speed_driven_forces_match_newton_euler(speed_run):
    model, r = speed_run
    p = model.parameters
    dyn = Dynamics(model.system)
    a_seen = []
    checked = 0
    for i in range(0, len(r.t), 23):
        ref = speed_driven_forces(r.t[i], p)
        if abs(ref["v_s"]) < 1e-6:  # friction direction undefined at a dead centre
            continue
        checked += 1
        assert r["theta"][i] == pytest.approx(ref["theta"], abs=1e-10)
        assert r["v_s"][i] == pytest.approx(ref["v_s"], abs=1e-10)
        assert r["mode"][i] == math.copysign(1.0, ref["v_s"])
        scale = 40.0  # N, N m: max |lambda_N| over a cycle is about 36 N
        for name in ("lambda_N", "F_f", "tau"):
            assert abs(r[name][i] - ref[name]) < 1e-9 * scale, (name, r.t[i])
        # the HLCP is genuinely coupled: the engine's coefficient is the closed form -mu s tan phi
        A, c = dyn.normal_equation(r.t[i], r.q[i], r.v[i], r.modes[i])
        assert A.shape == (1, 1)
        assert A[0, 0] == pytest.approx(ref["a"], abs=1e-9)
        assert c[0] == pytest.approx(ref["c"], abs=1e-8)
        tanphi = kinematics(ref["theta"], p["omega0"], 0.0, p)["tanphi"]
        assert ref["k"] == pytest.approx(tanphi, rel=1e-9)
        a_seen.append(abs(A[0, 0]))
    assert checked > 30
    assert max(a_seen) > 0.1  # |a| reaches mu_d tan(phi_max) = 0.2 * 0.577 = 0.115


@pytest.mark.parametrize("method", ["DOP853", "RK4"])
def test_speed_drive_passes_dead_centres_with_reversals(speed_run, method):
    model, r = speed_run
    p = model.parameters
    if method == "RK4":
        r = nonsmooth.simulate(model, r.t[-1], method="RK4", dt=2e-4)
    expected = dead_centre_times(p, r.t[-1])
    assert len(expected) == 4
    # inner dead centre first: theta = pi + asin(e / (l - r)) reached at t = 0.0911738 s
    assert expected[0][0] == pytest.approx((math.pi / 2 + math.asin(0.25)) / 20, abs=1e-15)
    stops = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(stops) == len(expected)
    tol = 1e-9 if method == "DOP853" else 1e-8
    for ev, (t, kind) in zip(stops, expected, strict=True):
        assert abs(ev.t - t) < tol, (ev.t, t, kind)
        assert (ev.before, ev.after) == (("slip-", "slip+") if kind == "inner"
                                         else ("slip+", "slip-"))
    assert all(e.after != "stick" for e in r.events)
    assert np.all(r["mode"] != 0)
    assert r.diagnostics["max_drift_position"] < 1e-9


def test_slider_stops_and_sticks_with_static_forces():
    """Free crank turned clockwise: friction stops the slider, static friction holds it."""
    model = slider_crank.build(drive="free", omega0=-2.0)
    p = model.parameters
    r = nonsmooth.simulate(model, 1.0, **TIGHT)
    stops = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(stops) == 1 and (stops[0].before, stops[0].after) == ("slip+", "stick")
    t_stop = stops[0].t
    after = r.t > t_stop
    assert after.sum() > 100
    assert np.all(r["mode"][after] == 0)
    np.testing.assert_allclose(r["v_s"][after], 0.0, atol=1e-10)
    np.testing.assert_allclose(r["omega"][after], 0.0, atol=1e-9)
    theta_stop = stops[0].q[model.system.coordinate_names.index("crank.theta")]
    np.testing.assert_allclose(r["theta"][after], theta_stop, atol=1e-10)
    # the forces while stuck are those of statics at the stop angle (no torque)
    ref = newton_euler(theta_stop, 0.0, 0.0, p, tau=0.0)
    np.testing.assert_allclose(r["lambda_N"][after], ref["lambda_N"], atol=1e-8)
    np.testing.assert_allclose(r["F_f"][after], ref["F_T"], atol=1e-8)
    assert np.all(np.abs(r["F_f"][after]) <= p["mu_s"] * np.abs(r["lambda_N"][after]))


def _breakaway_torques(p, theta):
    """Statics of the stuck mechanism, linear in T0: the torques where |F_T| = mu_s |lambda_N|."""
    f0 = newton_euler(theta, 0.0, 0.0, p, tau=0.0)
    f1 = newton_euler(theta, 0.0, 0.0, p, tau=1.0)
    F0, kF = f0["F_T"], f1["F_T"] - f0["F_T"]
    L0, kL = f0["lambda_N"], f1["lambda_N"] - f0["lambda_N"]
    assert L0 > 0 and abs(F0) < p["mu_s"] * L0  # with T0 = 0 the slider holds
    return {sgn: (sgn * p["mu_s"] * L0 - F0) / (kF - sgn * p["mu_s"] * kL) for sgn in (1, -1)}


THETA_REST = 1.3  # rad


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("factor", [0.999, 1.001])
def test_breakaway_torque_from_statics(side, factor):
    p = slider_crank.build().parameters
    T_star = _breakaway_torques(p, THETA_REST)[side]
    assert T_star == pytest.approx({1: 0.686357, -1: -0.203264}[side], abs=1e-6)
    model = slider_crank.build(drive="torque", T0=factor * T_star, omega0=0.0,
                               theta0=THETA_REST)
    r = nonsmooth.simulate(model, 0.2, **TIGHT)
    assert r.events[0].kind == "start"
    if factor < 1:
        assert r.events[0].after == "stick" and len(r.events) == 1
        assert np.all(r["mode"] == 0)
        np.testing.assert_allclose(r["theta"], THETA_REST, atol=1e-12)
        ref = newton_euler(THETA_REST, 0.0, 0.0, p, tau=factor * T_star)
        np.testing.assert_allclose(r["F_f"], ref["F_T"], atol=1e-9)
        np.testing.assert_allclose(r["lambda_N"], ref["lambda_N"], atol=1e-9)
        assert abs(ref["F_T"]) <= p["mu_s"] * abs(ref["lambda_N"])
    else:
        # a positive friction reserve ran out with F_T = +mu_s N: the slider moves to -x
        expected = "slip-" if side == 1 else "slip+"
        assert r.events[0].after == expected
        assert abs(r["x_s"][-1] - r["x_s"][0]) > 1e-4
        assert np.sign(r["v_s"][5]) == (-1 if side == 1 else 1)


def test_normal_force_changes_sign_and_friction_follows(speed_run):
    model, r = speed_run
    p = model.parameters
    lam = r["lambda_N"]
    assert lam.max() > 30 and lam.min() < -4  # both faces of the slot carry the slider
    flips = [e for e in r.events if e.kind == "normal_sign"]
    assert len(flips) == 4
    for ev in flips:
        # at lambda_N = 0 the friction vanishes, so lambda_N = c: the root of c(t) (reference)
        t_root = brentq(lambda t: speed_driven_forces(t, p)["c"], ev.t - 1e-3, ev.t + 1e-3,
                        xtol=1e-15)
        assert abs(ev.t - t_root) < 1e-9
    assert [(e.before, e.after) for e in flips] == [("+", "-"), ("-", "+")] * 2
    slipping = r["mode"] != 0
    np.testing.assert_allclose(r["F_f"][slipping],
                               -p["mu_d"] * np.abs(lam[slipping]) * r["mode"][slipping],
                               atol=1e-12)
    assert r.diagnostics["max_lcp_residual"] < 1e-12


@pytest.mark.parametrize("kw", [{}, {"drive": "free", "omega0": 2.0},
                                {"drive": "torque", "T0": 0.5, "omega0": 0.0}])
def test_energy_balance_and_dissipation(kw, speed_run):
    model = slider_crank.build(**kw)
    r = speed_run[1] if not kw else nonsmooth.simulate(model, 0.6, **TIGHT)
    d = r.diagnostics
    assert d["energy_balance_relative"] < 1e-6
    w = d["work"]
    assert w["W_friction"] < 0
    assert np.all(np.diff(r.work[:, 3]) <= 1e-12)  # friction never feeds energy in
    if kw.get("drive") == "free":
        assert w["W_drive"] == 0 and w["W_applied"] == 0
        np.testing.assert_allclose(r["tau"], 0.0)
    if kw.get("drive") == "torque":  # W_applied = T0 (theta - theta0)
        assert w["W_applied"] == pytest.approx(0.5 * (r["theta"][-1] - r["theta"][0]), rel=1e-8)
        np.testing.assert_allclose(r["tau"], 0.5)
    if not kw:  # speed drive: the motor supplies what friction takes per revolution
        assert w["W_drive"] == pytest.approx(-w["W_friction"], rel=1e-8)


@pytest.mark.parametrize("omega0, theta0", [(-10.0, -0.3), (10.0, 0.3), (2.0, 0.3)])
def test_steep_rod_with_large_friction_jams(omega0, theta0):
    """r = 0.25 m, l = 0.3 m, mu = 1: |a| = mu tan(phi) exceeds 1 once |sin theta| > l/(r sqrt 2).

    Clockwise (a -> +1, c > 0): no solution (the slider jams, forces grow like c / (1 - a));
    counter-clockwise: a -> -1, no solution (c < 0) or two (c > 0), depending on the speed.
    """
    p = dict(slider_crank.build().parameters, r=0.25, l=0.3, e=0.0, mu_s=1.0, mu_d=1.0,
             omega0=omega0, theta0=theta0)
    model = slider_crank.build(**{k: p[k] for k in ("r", "l", "e", "mu_s", "mu_d", "omega0",
                                                    "theta0")})
    theta_c = math.asin(p["l"] / (p["r"] * math.sqrt(1 + p["mu_d"] ** 2)))
    t_c = (math.copysign(theta_c, omega0) - theta0) / omega0  # first time |a| = 1
    assert t_c > 0
    dt = 1e-4
    with pytest.raises(nonsmooth.InconsistentLCPError, match=r"normal forces of pairs "
                       r"\['guide'\] have .*self-locking") as info:
        nonsmooth.simulate(model, 0.5, method="RK4", dt=dt)
    err = info.value
    assert err.pairs == ["guide"]
    assert t_c < err.t <= t_c + dt  # the first evaluation past the crossing
    ref = speed_driven_forces(err.t, p)
    a, c = ref["a"], ref["c"]
    assert abs(a) > 1
    assert a == pytest.approx(-p["mu_d"] * math.copysign(1, ref["v_s"])
                              * kinematics(ref["theta"], omega0, 0, p)["tanphi"], rel=1e-12)
    assert err.A[0, 0] == pytest.approx(a, rel=1e-6)
    assert err.c[0] == pytest.approx(c, rel=1e-5)
    two_solutions = (a > 1 and c < 0) or (a < -1 and c > 0)  # docs/method.md section 6
    assert isinstance(err, nonsmooth.IndeterminateLCPError) == two_solutions
    if two_solutions:
        lams = sorted(s[0] for s in err.solutions)
        assert lams == pytest.approx(sorted((c / (1 - a), c / (1 + a))), rel=1e-6)
    if omega0 < 0:
        assert a > 1 and c > 0 and not two_solutions


def test_adaptive_run_reports_imminent_jam_instead_of_collapsing():
    """An adaptive integrator approaches |a| -> 1 continuously (forces ~ c / (1 - a)): the
    engine names the jam as it becomes imminent rather than shrinking the step for ever."""
    model = slider_crank.build(r=0.25, l=0.3, e=0.0, mu_s=1.0, mu_d=1.0, omega0=-10.0,
                               theta0=-0.3)
    theta_c = math.asin(0.3 / (0.25 * math.sqrt(2.0)))
    t_c = (-theta_c + 0.3) / -10.0
    with pytest.raises(nonsmooth.InconsistentLCPError, match=r"grow without bound") as info:
        nonsmooth.simulate(model, 0.5, method="DOP853", rtol=1e-12, atol=1e-14)
    assert 0 < t_c - info.value.t < 1e-4
    assert info.value.A[0, 0] > 1 - 1e-6  # at the edge of solvability


@pytest.mark.parametrize("factor", [0.97, 1.03])
def test_self_locking_limit_of_the_steep_slider_crank(factor):
    """r = 0.25, l = 0.3, e = 0: |a| = mu |tan phi| peaks at mu r / sqrt(l^2 - r^2), so the
    self-locking limit is mu* = sqrt(l^2 - r^2) / r. Just below it a whole revolution runs;
    just above it the jamming error comes where mu |tan phi| first reaches 1, naming |a| > 1."""
    r_, l_ = 0.25, 0.3
    mu_star = math.sqrt(l_ ** 2 - r_ ** 2) / r_
    mu = factor * mu_star
    omega0, theta0 = -10.0, 0.0
    model = slider_crank.build(r=r_, l=l_, e=0.0, mu_s=mu, mu_d=mu, omega0=omega0,
                               theta0=theta0)
    dt = 1e-4
    if factor < 1:
        res = nonsmooth.simulate(model, 2 * math.pi / abs(omega0), method="RK4", dt=dt)
        assert res.status == 0
        return
    # first crank angle (turning clockwise from 0) where mu |tan phi| = 1: sin(theta) = -s_c
    s_c = l_ / (r_ * math.sqrt(1 + mu ** 2))
    t_c = math.asin(s_c) / abs(omega0)
    with pytest.raises(nonsmooth.InconsistentLCPError) as info:
        nonsmooth.simulate(model, 2 * math.pi / abs(omega0), method="RK4", dt=dt)
    err = info.value
    assert t_c < err.t <= t_c + dt
    assert abs(err.A[0, 0]) > 1
    shown = float(re.search(r"A = \[\[(-?[0-9.]+)\]\]", str(err)).group(1))
    assert abs(shown) > 1  # the message names the coefficient
