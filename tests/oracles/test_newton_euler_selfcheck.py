"""Self-checks of the independent Newton-Euler oracle (tests/oracles/newton_euler.py)."""

from __future__ import annotations

import os
import re
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import newton_euler as ne

# Times spread over two crank revolutions, avoiding exact v_r = 0 points.
T_GRID = np.linspace(0.013, 4.19, 97)
H = 1e-5


def _fd(fun, t, h=H):
    return (fun(t + h) - fun(t - h)) / (2.0 * h)


# the benchmark's specification (parameters of Wang, Wang & Zhuang), kept with the tests
SPEC = Path(__file__).resolve().parent / "data" / "crank_rocker_spec.md"


def _spec_parameter_table(text: str) -> dict[str, set[float]]:
    """The '## Parameters' table of the spec: symbol -> the value(s) its value column gives."""
    section = text.split("## Parameters", 1)[1].split("\n## ", 1)[0]
    table = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("symbol", "") or set(cells[0]) <= set("-"):
            continue
        values = set()
        for token in cells[1].split():  # "9.81 m/s^2", "16/3 kg m^2", "0 or 8.0 N m s/rad"
            if re.fullmatch(r"\d+(\.\d*)?(/\d+)?", token):
                values.add(float(Fraction(token)))
            elif token != "or":
                break
        table[cells[0]] = values
    return table


def test_defaults_match_model_parameters():
    # the oracle's values against the engine model's own parameter table (same symbols)
    from nonsmooth.models import crank_rocker

    model = {p.name: p.default for p in crank_rocker.PARAMETERS}
    assert set(ne.DEFAULTS) <= set(model), set(ne.DEFAULTS) - set(model)
    for name, value in ne.DEFAULTS.items():
        assert model[name] == pytest.approx(value, rel=1e-15, abs=0.0), name


def test_defaults_match_spec():
    # the oracle's values against the paper's table in the spec (c is "0 or 8.0": the oracle's
    # default must be one of them)
    table = _spec_parameter_table(SPEC.read_text())
    assert set(table) == set(ne.DEFAULTS), set(table) ^ set(ne.DEFAULTS)
    assert table["J1"] == {16.0 / 3.0} and table["c"] == {0.0, 8.0}
    for name, value in ne.DEFAULTS.items():
        assert any(v == pytest.approx(value, rel=1e-15) for v in table[name]), (name, table[name])


def test_geometry_closure():
    k = ne.kinematics(T_GRID)
    p = ne.DEFAULTS
    # tan theta1 = L3 sin th2 / (L4 + L3 cos th2)
    np.testing.assert_allclose(
        np.tan(k["theta1"]),
        p["L3"] * np.sin(k["theta2"]) / (p["L4"] + p["L3"] * np.cos(k["theta2"])),
        rtol=1e-12,
        atol=1e-14,
    )
    # spec constraint phi = L3 sin(th2 - th1) - L4 sin th1 = 0, B = s u
    phi = p["L3"] * np.sin(k["theta2"] - k["theta1"]) - p["L4"] * np.sin(k["theta1"])
    np.testing.assert_allclose(phi, 0.0, atol=1e-14)
    np.testing.assert_allclose(k["Bx"], k["s"] * np.sin(k["theta1"]), atol=1e-14)
    np.testing.assert_allclose(k["By"], k["s"] * np.cos(k["theta1"]), atol=1e-14)
    np.testing.assert_allclose(k["theta2"], 3.0 * T_GRID, rtol=0, atol=1e-15)


@pytest.mark.parametrize(
    "value, derivative",
    [
        ("theta1", "omega1"),
        ("omega1", "alpha1"),
        ("alpha1", "jerk1"),
        ("theta2", "omega2"),
        ("omega2", "alpha2"),
        ("s", "v_r"),
        ("v_r", "a_r"),
        ("a_r", "jerk_r"),
        ("Bx", "vBx"),
        ("By", "vBy"),
        ("vBx", "aBx"),
        ("vBy", "aBy"),
    ],
)
def test_kinematic_derivatives_by_central_differences(value, derivative):
    k = ne.kinematics(T_GRID)
    fd = _fd(lambda t: ne.kinematics(t)[value], T_GRID)
    scale = max(1.0, np.max(np.abs(k[derivative])))
    np.testing.assert_allclose(k[derivative], fd, rtol=0, atol=1e-7 * scale)


def test_v_r_is_relative_velocity_along_u():
    # v_r = (v_B - v_rocker(B)) . u with v_rocker(B) = s omega1 n; also the
    # normal relative velocity must vanish (constraint holds at velocity level).
    k = ne.kinematics(T_GRID)
    th1 = k["theta1"]
    u = np.stack([np.sin(th1), np.cos(th1)])
    n = np.stack([np.cos(th1), -np.sin(th1)])
    vrel = np.stack([k["vBx"], k["vBy"]]) - k["s"] * k["omega1"] * n
    np.testing.assert_allclose((vrel * u).sum(0), k["v_r"], atol=1e-13)
    np.testing.assert_allclose((vrel * n).sum(0), 0.0, atol=1e-13)


@pytest.mark.parametrize("c", [0.0, 8.0])
@pytest.mark.parametrize("mu", [0.0, 0.2, 0.6])
def test_power_balance(c, mu):
    """tau*omega + F_f*v_r - c*omega1^2 == d/dt (T + V)  (virtual-power check)."""
    par = {"c": c, "mu": mu}
    f = ne.newton_euler_forces(T_GRID, **par)
    dE = _fd(lambda t: ne.energy(t, **par)["E"], T_GRID)
    p_friction = f["F_f"] * f["v_r"]
    p_damping = -c * f["omega1"] ** 2
    p_in = f["tau"] * 3.0 + p_friction + p_damping
    scale = np.max(np.abs(f["tau"] * 3.0))
    np.testing.assert_allclose(p_in, dE, rtol=0, atol=1e-6 * scale)
    assert np.all(p_friction <= 1e-12)
    assert np.all(p_damping <= 0.0)
    assert np.max(f["residual"]) < 1e-9


def test_power_balance_detects_wrong_tau():
    # The power check must be able to fail: a small torque error is visible.
    f = ne.newton_euler_forces(T_GRID)
    dE = _fd(lambda t: ne.energy(t)["E"], T_GRID)
    p_in = (f["tau"] + 1e-3) * 3.0 + f["F_f"] * f["v_r"]
    assert np.max(np.abs(p_in - dE)) > 1e-3


@pytest.mark.parametrize("c", [0.0, 8.0])
def test_mu_zero_branch_independent(c):
    plus = ne.newton_euler_branch(T_GRID, +1, mu=0.0, c=c)
    minus = ne.newton_euler_branch(T_GRID, -1, mu=0.0, c=c)
    for name in ne.UNKNOWNS:
        np.testing.assert_allclose(plus[name], minus[name], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(plus["F_f"], 0.0, atol=1e-12)


@pytest.mark.parametrize("c", [0.0, 8.0])
def test_friction_branches_exactly_one_consistent(c):
    plus = ne.newton_euler_branch(T_GRID, +1, c=c)
    minus = ne.newton_euler_branch(T_GRID, -1, c=c)
    assert np.all(plus["consistent"] != minus["consistent"])
    # with mu > 0 and v_r != 0 the branches give different friction forces
    differ = np.abs(plus["F_f"] - minus["F_f"]) > 1e-9
    assert np.all(differ)
    f = ne.newton_euler_forces(T_GRID, c=c)
    np.testing.assert_allclose(
        f["F_f"],
        -0.2 * np.abs(f["lambda_N"]) * np.sign(f["v_r"]),
        rtol=1e-13,
        atol=1e-13,
    )
    assert np.all(f["branch"] * f["lambda_N"] >= 0.0)


def test_lambda_n_closed_form_and_friction_free_of_moment():
    # Friction acts through O: the rocker Euler equation alone fixes lambda_N.
    for c in (0.0, 8.0):
        p = dict(ne.DEFAULTS, c=c)
        k = ne.kinematics(T_GRID, c=c)
        lam = (
            p["m1"] * p["g"] * p["L1"] * np.sin(k["theta1"])
            - c * k["omega1"]
            - p["J1"] * k["alpha1"]
        ) / k["s"]
        for mu in (0.0, 0.2, 0.6):
            f = ne.newton_euler_forces(T_GRID, c=c, mu=mu)
            np.testing.assert_allclose(f["lambda_N"], lam, rtol=1e-12, atol=1e-12)


def test_independent_tau_from_crank_and_slider():
    # tau from the crank+slider subsystem written with the constraint forces only:
    # moment about O1 of (lambda_N n + F_f u) acting on the (crank+slider) at B,
    # gravity of crank and slider, and inertia of the slider point mass.
    p = ne.DEFAULTS
    f = ne.newton_euler_forces(T_GRID)
    k = ne.kinematics(T_GRID)
    th1, th2 = k["theta1"], k["theta2"]
    rx, ry = p["L3"] * np.sin(th2), p["L3"] * np.cos(th2)
    Fx = f["lambda_N"] * np.cos(th1) + f["F_f"] * np.sin(th1)
    Fy = -f["lambda_N"] * np.sin(th1) + f["F_f"] * np.cos(th1)

    def mom(ax, ay, fx, fy):
        return -(ax * fy - ay * fx)

    # d/dt of angular momentum of the slider about O1 (clockwise): r x m3 a_B
    dH = mom(rx, ry, p["m3"] * k["aBx"], p["m3"] * k["aBy"])
    rest = (
        mom(rx, ry, Fx, Fy)
        + mom(rx, ry, 0.0, -p["m3"] * p["g"])
        + mom(p["L2"] * np.sin(th2), p["L2"] * np.cos(th2), 0.0, -p["m2"] * p["g"])
    )
    tau = dH - rest  # J2 * alpha2 = 0
    np.testing.assert_allclose(f["tau"], tau, rtol=1e-12, atol=1e-10)


def test_rocker_acceleration_zero_at_dead_centres():
    w = ne.DEFAULTS["omega"]
    k0 = ne.kinematics(0.0)
    kpi = ne.kinematics(np.pi / w)
    assert k0["alpha1"] == 0.0
    assert abs(kpi["alpha1"]) < 1e-12
    assert k0["v_r"] == 0.0 and abs(kpi["v_r"]) < 1e-12
    # but not elsewhere, and relative acceleration non-zero (no sticking)
    assert abs(ne.kinematics(0.3)["alpha1"]) > 1e-2
    assert abs(k0["a_r"]) > 1.0 and abs(kpi["a_r"]) > 1.0


def test_t_zero_uses_sgn_zero():
    f = ne.newton_euler_forces(0.0, c=8.0)
    assert f["sgn_v_r"] == 0.0
    assert f["F_f"] == 0.0
    assert f["lambda_N"] != 0.0


@pytest.mark.parametrize("t0", [0.0, np.pi / 3.0])
def test_friction_jumps_at_dead_centres_with_damping(t0):
    # spec Fig. 6: with c = 8, lambda_N != 0 while v_r changes sign -> F_f jumps
    eps = 1e-7
    before = ne.newton_euler_forces(t0 - eps, c=8.0)
    after = ne.newton_euler_forces(t0 + eps, c=8.0)
    assert abs(before["lambda_N"]) > 1.0
    assert np.sign(before["v_r"]) == -np.sign(after["v_r"])
    np.testing.assert_allclose(before["F_f"], -after["F_f"], rtol=1e-5)
    assert abs(before["F_f"] - after["F_f"]) > 0.4 * abs(before["lambda_N"]) * 0.99


def test_scalar_and_array_agree():
    ts = np.array([0.1, 0.5, 1.0])
    arr = ne.newton_euler_forces(ts, c=8.0)
    for i, t in enumerate(ts):
        sc = ne.newton_euler_forces(t, c=8.0)
        for name in ("lambda_N", "F_f", "tau"):
            assert sc[name] == arr[name][i]
    assert ne.newton_euler_forces(ts.reshape(3, 1))["tau"].shape == (3, 1)


def test_reference_values():
    # Regression values of this oracle (computed by it; cross-checked above).
    expected = {
        (0.0, 0.1): (3.3656251476, 0.6731250295, -3.7564704776),
        (0.0, 0.5): (23.7747068310, 4.7549413662, -11.1790552890),
        (0.0, 1.0): (84.3367620420, 16.8673524084, 41.8170768825),
        (8.0, 0.1): (-1.9668933362, 0.3933786672, -1.1713715055),
        (8.0, 0.5): (19.2624603886, 3.8524920777, -10.4502571190),
        (8.0, 1.0): (128.6865812589, 25.7373162518, 64.3532491052),
    }
    for (c, t), vals in expected.items():
        f = ne.newton_euler_forces(t, c=c)
        np.testing.assert_allclose(
            (f["lambda_N"], f["F_f"], f["tau"]), vals, rtol=0, atol=1e-9
        )


def test_bad_parameters_rejected():
    with pytest.raises(TypeError):
        ne.kinematics(0.1, bogus=1.0)
    with pytest.raises(ValueError):
        ne.kinematics(0.1, L3=2.0)
