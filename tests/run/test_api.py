"""The public API (issue 12): time stops, the flat namespace, element outputs by name, and the
solve_ivp-like options and results (t_eval, vector atol, Result.y / nfev / repr / sol,
t_events, terminal counts, the model's own t_end and dt, one argument order)."""

from __future__ import annotations

import inspect
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from readme_blocks import readme_block

import nonsmooth as ns
from nonsmooth.cli import main
from nonsmooth.errors import ModelError, UserFunctionError
from nonsmooth.friction import Coulomb, LuGre
from nonsmooth.models import stick_slip_oscillator

ROOT = Path(__file__).resolve().parents[2]

BUILDER = ["PlanarModel", "Body", "PointMass", "ground", "Revolute", "Translational", "Driver",
           "Spring", "Damper", "JointDamper", "RotationalSpring", "Force", "Torque", "Gravity",
           "RotorInertia"]

J, T0, T_STOP, W0 = 2.0, 3.0, 0.4, 1.0


def rotor(t_stop=T_STOP):
    """A free flywheel on a frictionless pin; a torque T0 switched on at t_stop (written as a
    right-continuous step, ``t >= t_stop``)."""
    mdl = ns.PlanarModel("rotor")
    disk = mdl.add(ns.Body("disk", mass=1.0, inertia=J, angular_velocity=W0))
    mdl.add(ns.Revolute("pin", ns.ground, disk))
    mdl.add(ns.Torque("step", disk, lambda t, q, v: T0 if t >= t_stop else 0.0))
    return mdl


def rotor_exact(t, t_stop=T_STOP):
    """Closed form: (angle, angular velocity)."""
    s = np.maximum(np.asarray(t) - t_stop, 0.0)
    return W0 * np.asarray(t) + 0.5 * T0 / J * s ** 2, W0 + T0 / J * s


def pendulum(theta0=0.5):
    mdl = ns.PlanarModel("pendulum")
    c, s = math.cos(theta0 - math.pi / 2), math.sin(theta0 - math.pi / 2)
    bar = mdl.add(ns.Body("bar", 1.0, 1.0 / 12, position=(0.5 * c, 0.5 * s),
                          angle=theta0 - math.pi / 2))
    mdl.add(ns.Revolute("pin", ns.ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    mdl.add(ns.Gravity(g=9.81))
    return mdl


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ============================================================================ time stops
@pytest.mark.filterwarnings("ignore:energy balance error")  # Euler's angle at dt = 0.03
@pytest.mark.parametrize("method", ["RK4", "Euler", "RK45", "DOP853", "RK23", "Radau"])
def test_a_torque_step_at_a_time_stop_is_integrated_exactly(method):
    """Between stops the motion is a polynomial every method integrates exactly (Euler: the
    angular velocity, linear in t), so with the stop the result is the closed form to
    round-off; the stop is a phase boundary and not an output."""
    r = ns.simulate(rotor(), 1.0, method=method, dt=0.03, tstops=[T_STOP], rtol=1e-3,
                    atol=1e-3)
    angle, w = rotor_exact(r.t)
    assert np.max(np.abs(r["disk.w"] - w)) < 1e-10
    if method != "Euler":
        assert np.max(np.abs(r["disk.angle"] - angle)) < 1e-10
    assert r.diagnostics["n_phases"] == 2
    assert not np.any(np.isclose(r.t, T_STOP, atol=1e-9))  # 0.39, 0.42: not an output
    np.testing.assert_allclose(r.t, ns.simulate(rotor(), 1.0, method=method, dt=0.03,
                                                rtol=1e-3, atol=1e-3).t, atol=0, rtol=0)


@pytest.mark.filterwarnings("ignore:energy balance error")
@pytest.mark.parametrize("method, at_least", [("RK4", 1e-3), ("Euler", 1e-2), ("RK23", 1e-6)])
def test_without_the_stop_the_step_straddles_the_jump(method, at_least):
    """The same runs without the stop: a step that straddles the jump (fixed steps, or an
    adaptive step at a loose tolerance) makes an error of the order of the step."""
    r = ns.simulate(rotor(), 1.0, method=method, dt=0.03, rtol=1e-3, atol=1e-3)
    assert np.max(np.abs(r["disk.w"] - rotor_exact(r.t)[1])) > at_least
    assert r.diagnostics["n_phases"] == 1


def block_pushed(force=6.0, t_push=0.4):
    """A block stuck on a floor (mu = 0.3, mu_s = 0.5, N = 10 N) until a push of 6 N at
    t_push: it must break loose exactly there and accelerate at (6 - 3) / 1 m/s^2."""
    mdl = ns.PlanarModel("block")
    b = mdl.add(ns.Body("block", mass=1.0, inertia=0.1))
    mdl.add(ns.Translational("floor", ns.ground, b, axis=(1.0, 0.0), normal="left", mu=0.3,
                             mu_s=0.5))
    mdl.add(ns.Gravity(g=10.0))
    mdl.add(ns.Force("push", b, lambda t, q, v: (force if t >= t_push else 0.0, 0.0)))
    return mdl


@pytest.mark.parametrize("method", ["RK4", "RK45", "DOP853"])
def test_a_stick_broken_by_a_step_at_a_stop_slips_from_the_stop(method):
    r = ns.simulate(block_pushed(), 1.0, method=method, dt=0.01, tstops=[0.4])
    slips = [e for e in r.events if e.kind == "reserve_zero"]
    assert len(slips) == 1 and slips[0].t == 0.4 and (slips[0].before, slips[0].after) == (
        "stick", "slip+")
    exact = np.where(r.t >= 0.4, 3.0 * (r.t - 0.4), 0.0)
    assert np.max(np.abs(r["block.vx"] - exact)) < 1e-10
    k = int(np.flatnonzero(np.isclose(r.t, 0.4))[0])  # an output at the stop: from it on
    assert r["floor.mode"][k] == 1.0 and r["floor.F_f"][k] == pytest.approx(-3.0)
    assert r["floor.mode"][k - 1] == 0.0


def test_time_stops_restart_the_compiled_dop853_phases():
    """A planar model without user functions runs its phases in compiled calls: each stop
    inside the span is one more phase; outputs stay on the grid and agree."""
    model = stick_slip_oscillator.build()
    plain = ns.simulate(model, 3.0)
    stopped = ns.simulate(model, 3.0, tstops=[1.2345, 2.5])
    assert stopped.diagnostics["n_phases"] == plain.diagnostics["n_phases"] + 2
    np.testing.assert_array_equal(stopped.t, plain.t)
    assert np.max(np.abs(stopped.y - plain.y)) < 1e-8


@pytest.mark.parametrize("tstops, match", [
    ("0.4", r"tstops = '0.4' is invalid: give a sequence of times in s, e\.g\. tstops=\[0\.4"),
    ([0.4, float("nan")], r"tstops holds nan: every time must be a finite number \(s\)"),
    ([0.1, None], r"tstops = \[0\.1, None\] is invalid"),
    ([[0.1], [0.2, 0.3]], r"tstops = \[\[0\.1\], \[0\.2, 0\.3\]\] is invalid"),
    ([2.0], r"tstops holds 2 s, outside the span \(0, 1\) s: every time stop must lie "
            r"strictly between t0 and t_end"),
    ([-1.0, 0.5], r"tstops holds -1 s, outside the span \(0, 1\) s"),
    ([0.5, 1.0], r"tstops holds 1 s, outside the span"),
    ([0.9, 0.4], r"tstops must be strictly increasing \(s\): 0\.9 is followed by 0\.4; give "
                 r"them in increasing order without repeats, e\.g\. tstops=\[0\.4, 0\.9\]"),
    ([0.4, 0.4], r"0\.4 is followed by 0\.4"),
])
def test_bad_time_stops_are_named(tstops, match):
    with pytest.raises(ValueError, match=match):
        ns.simulate(rotor(), 1.0, tstops=tstops)


def test_time_stops_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "flywheel.py"
    path.write_text(
        "import nonsmooth as ns\n\n\n"
        "def build(T0=3.0):\n"
        "    mdl = ns.PlanarModel('rotor')\n"
        "    disk = mdl.add(ns.Body('disk', mass=1.0, inertia=2.0, angular_velocity=1.0))\n"
        "    mdl.add(ns.Revolute('pin', ns.ground, disk))\n"
        "    mdl.add(ns.Torque('step', disk, lambda t, q, v: T0 if t >= 0.4 else 0.0))\n"
        "    return mdl\n")
    out = tmp_path / "out.csv"
    code, _, _ = run_cli(capsys, "run", path, "--tstops", "0.4,0.9", "--method", "RK4",
                         "--dt", "0.03", "--t-end", "1", "--out", out)
    assert code == 0
    header = out.read_text().splitlines()[0].split(",")
    assert header == ["t", "disk.x", "disk.y", "disk.angle", "disk.vx", "disk.vy", "disk.w"]
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.max(np.abs(data[:, 6] - rotor_exact(data[:, 0])[1])) < 1e-10
    code, _, err = run_cli(capsys, "run", path, "--tstops", "0.4,soon")
    assert code == 2 and "--tstops '0.4,soon': give times in s separated by commas" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("tstops, match", [
    ("7,8", "tstops holds 7, 8 s, outside the span (0, 1) s"),
    ("-1", "tstops holds -1 s, outside the span (0, 1) s"),
    ("0.9,0.4", "--tstops '0.9,0.4': the times must increase (0.9 is followed by 0.4); give "
                "them in increasing order, e.g. --tstops 0.4,0.9"),
    ("0.4,,0.9", "--tstops '0.4,,0.9': give times in s separated by commas (no empty item)"),
    ("0.4,", "(no empty item)"),
])
def test_bad_time_stops_on_the_command_line_are_refused(capsys, tstops, match):
    code, out, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "1",
                             f"--tstops={tstops}")
    assert code == 2 and match in err and err.count("\n") == 1 and out == ""


def test_a_models_own_time_stops_beyond_a_shorter_run_are_left_out():
    from dataclasses import replace

    model = stick_slip_oscillator.build(t_end=0.5)
    plain = ns.simulate(replace(model, tstops=()))
    r = ns.simulate(replace(model, tstops=(0.25, 0.9)))  # 0.9: beyond this run's span
    assert r.status == 0 and r.diagnostics["n_phases"] == plain.diagnostics["n_phases"] + 1


# ============================================================================ namespace
def test_the_builder_is_importable_from_the_top_level():
    from nonsmooth.planar import bodies, forces, inertia, joints
    from nonsmooth.planar import model as planar

    for name in BUILDER:
        assert name in ns.__all__
        owner = next(m for m in (planar, bodies, joints, forces, inertia) if hasattr(m, name))
        assert getattr(ns, name) is getattr(owner, name)
    assert {"Dynamics", "Evaluation"}.isdisjoint(ns.__all__)
    assert {"Dynamics", "Evaluation"}.isdisjoint(dir(ns))
    with pytest.warns(DeprecationWarning, match=r"from nonsmooth\.dynamics import Dynamics"):
        ns.Dynamics  # noqa: B018  (old scripts keep working, warned)
    with pytest.raises(AttributeError, match="has no attribute 'Clutches'"):
        ns.Clutches  # noqa: B018


def test_import_nonsmooth_does_not_load_the_builder():
    code = ("import sys, nonsmooth; print(sorted(m for m in ('nonsmooth.planar', "
            "'nonsmooth.planar.joints', 'nonsmooth.planar.forces', 'nonsmooth.planar.inertia', "
            "'nonsmooth.dynamics', "
            "'numba', 'scipy.integrate') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "planar" not in out and "numba" not in out and "scipy.integrate" not in out


# ============================================================================ argument order
def test_every_element_takes_its_name_first_and_laws_take_mu_d_then_mu_s():
    for name in BUILDER:
        cls = getattr(ns, name)
        if name in ("ground", "PlanarModel"):
            continue
        first = next(iter(inspect.signature(cls).parameters))
        assert first == "name", (name, first)
    for law in (Coulomb, LuGre):
        assert list(inspect.signature(law).parameters)[:2] == ["mu_d", "mu_s"]
    lugre = LuGre(0.3, 0.4)
    assert (lugre.mu_d, lugre.mu_s) == (0.3, 0.4)
    assert LuGre(mu_s=0.4, mu_d=0.3).parameters() == lugre.parameters()  # keywords still work
    assert ns.Gravity("gravity", 9.0).g == ns.Gravity(g=9.0).g == 9.0
    with pytest.raises(ModelError, match=r"gravity: the first argument is the element's name "
                                         r".*Gravity\(g=9\.81\)"):
        ns.Gravity(9.81)


# ============================================================================ outputs by name
def user_mechanism():
    """A user-built model: a rotor driven at constant speed against a load torque on a pin
    with friction, a slider driven along a frictional floor, a point mass on a spring."""
    mdl = ns.PlanarModel("user")
    wheel = mdl.add(ns.Body("wheel", mass=2.0, inertia=0.5, position=(0.0, 1.0)))
    pin = mdl.add(ns.Revolute("pin", ns.ground, wheel, (0.0, 1.0), mu=0.2, pin_radius=0.05))
    mdl.add(ns.Driver("motor", pin, speed=3.0))
    mdl.add(ns.Torque("load", wheel, lambda t, q, v: -0.5))
    block = mdl.add(ns.Body("block", mass=1.0, inertia=0.1))
    floor = mdl.add(ns.Translational("floor", ns.ground, block, normal="left", mu=0.25))
    mdl.add(ns.Driver("pusher", floor, speed=0.5))
    bob = mdl.add(ns.PointMass("bob", 0.5, position=(3.0, 0.0)))
    mdl.add(ns.Spring("spring", ns.ground, (2.0, 0.0), bob, (0.0, 0.0), k=50.0, length0=0.8))
    mdl.add(ns.Gravity(g=10.0))
    return mdl


@pytest.fixture(scope="module")
def user_run():
    return ns.simulate(user_mechanism(), 0.5, method="RK4", dt=1e-3)


def test_bodies_pairs_and_drivers_answer_by_name(user_run):
    r = user_run
    names = r.coordinate_names
    for body in ("wheel", "block"):
        np.testing.assert_array_equal(r[f"{body}.angle"], r.q[:, names.index(f"{body}.theta")])
        np.testing.assert_array_equal(r[f"{body}.w"], r.v[:, names.index(f"{body}.theta")])
        np.testing.assert_array_equal(r[f"{body}.vx"], r.v[:, names.index(f"{body}.x")])
    np.testing.assert_array_equal(r["bob.vy"], r.v[:, names.index("bob.y")])
    assert "bob.angle" not in r.available() and "bob.w" not in r.available()
    # the pin: radial load m g = 20 N, friction torque r_p mu N against the rotation
    assert np.allclose(r["pin.N"], 20.0) and np.allclose(r["pin.tau"], -0.05 * 0.2 * 20.0)
    assert np.all(r["pin.mode"] == 1.0)
    # the motor holds 3 rad/s against the load and the pin friction: torque 0.5 + 0.2 N m
    assert np.allclose(r["motor.torque"], 0.5 + 0.2, atol=1e-9)
    # the pusher drags the block along the floor (N = 10 N): force mu N = 2.5 N
    assert np.allclose(r["floor.N"], 10.0) and np.allclose(r["floor.F_f"], -2.5)
    assert np.allclose(r["pusher.force"], 2.5, atol=1e-9)
    assert r.units["motor.torque"] == "N m" and r.units["pusher.force"] == "N"
    assert r.units["pin.tau"] == "N m" and r.units["floor.F_f"] == "N"
    assert r.units["wheel.w"] == "rad/s" and r.units["block.x"] == "m"


def test_two_pairs_give_the_whole_array_and_name_their_columns(user_run):
    r = user_run
    assert r["lambda_N"].shape == (len(r.t), 2) and r["F_T"].shape == (len(r.t), 2)
    np.testing.assert_array_equal(r["F_T"][:, 1], r["F_T:floor"])
    available = r.available()
    for name in ("lambda_N:pin", "lambda_N:floor", "pin.tau", "floor.F_f", "pin.mode",
                 "floor.N", "motor.torque", "pusher.force"):
        assert name in available
    assert r.columns()[:4] == ["t", "wheel.x", "wheel.y", "wheel.angle"]
    assert "floor.F_f" in r.columns() and "pusher.force" in r.columns()
    with pytest.raises(KeyError, match=r"no output 'pin\.F_f'; available: t, wheel\.x"):
        r["pin.F_f"]


def test_a_user_model_file_writes_its_element_outputs(capsys, tmp_path):
    path = tmp_path / "mechanism.py"
    path.write_text(f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
                    "from test_api import user_mechanism\n\n\n"
                    "def build():\n    return user_mechanism()\n")
    out = tmp_path / "out.csv"
    code, _, err = run_cli(capsys, "run", path, "--t-end", "0.1", "--out", out)
    assert code == 0, err
    header = out.read_text().splitlines()[0].split(",")
    assert {"wheel.w", "pin.N", "pin.tau", "pin.mode", "floor.F_f", "motor.torque",
            "pusher.force", "bob.x"} <= set(header)


def test_a_model_that_declares_outputs_keeps_its_columns():
    r = ns.simulate(stick_slip_oscillator.build(), 0.05)
    assert r.columns() == ["t", *r.outputs]
    assert r["contact.N"] == pytest.approx(np.abs(r["lambda_N"]))  # element names on top


# ============================================================================ options, results
@pytest.mark.parametrize("method", ["RK4", "DOP853", "RK45"])
def test_t_eval_gives_exactly_the_requested_rows(method):
    t_eval = np.array([0.05, 0.13, 0.5, 0.77, 1.3])
    reference = ns.simulate(pendulum(), 2.0, method="DOP853", dt=1e-3)
    r = ns.simulate(pendulum(), 2.0, method=method, dt=1e-3, t_eval=t_eval)
    np.testing.assert_array_equal(r.t, t_eval)
    assert np.max(np.abs(r.y - reference.sol(t_eval))) < 1e-9
    assert r.diagnostics["energy_balance_error"] < 1e-9  # from the first output on


def test_fixed_step_outputs_at_t_eval_do_not_change_the_steps():
    """RK4 keeps stepping on t0 + k dt: an output on the grid is the step end itself, one
    between steps comes from the step's Hermite interpolant (4th order)."""
    grid = ns.simulate(pendulum(), 1.0, method="RK4", dt=0.01)
    r = ns.simulate(pendulum(), 1.0, method="RK4", dt=0.01, t_eval=[0.5, 0.505])
    k = int(np.flatnonzero(np.isclose(grid.t, 0.5))[0])
    np.testing.assert_allclose(r.y[:, 0], grid.y[:, k], rtol=0, atol=1e-14)
    np.testing.assert_allclose(r.y[:, 1], grid.sol(0.505), rtol=0, atol=1e-13)
    fine = ns.simulate(pendulum(), 1.0, method="DOP853", t_eval=[0.505])
    assert np.max(np.abs(r.y[:, 1] - fine.y[:, 0])) < 1e-6  # RK4 at h = 0.01 and the cubic


@pytest.mark.parametrize("t_eval, match", [
    ([0.3, 0.2], "t_eval must be strictly increasing"),
    ([-1.0, 0.5], r"t_eval spans -1 \.\. 0\.5 s, outside t_span = \(0, 1\) s"),
    ([], "t_eval is empty"),
    ([0.1, np.inf], "t_eval holds inf"),
])
def test_bad_t_eval_is_named(t_eval, match):
    with pytest.raises(ValueError, match=match):
        ns.simulate(pendulum(), 1.0, t_eval=t_eval)


@pytest.mark.filterwarnings("ignore:energy balance error")  # the loose run
def test_a_vector_atol_is_used_and_its_shape_checked():
    loose = ns.simulate(pendulum(), 1.0, method="RK45", rtol=1e-3, atol=[1e-3] * 6, throw=False)
    tight = ns.simulate(pendulum(), 1.0, method="RK45", rtol=1e-3, atol=[1e-3] * 3 + [1e-12] * 3)
    assert tight.nfev > loose.nfev
    with pytest.raises(ValueError, match=r"atol has shape \(5,\); give one number or one value "
                                         r"per state component of y = \[q \(3\), v \(3\)\]: "
                                         r"shape \(6,\) \(coordinates: bar\.x, bar\.y"):
        ns.simulate(pendulum(), 1.0, atol=[1e-9] * 5)
    with pytest.raises(ValueError, match=r"atol\[2\] = -1\.0 is invalid"):
        ns.simulate(pendulum(), 1.0, atol=[1e-9, 1e-9, -1.0, 1e-9, 1e-9, 1e-9])


def test_result_y_nfev_and_repr():
    r = ns.simulate(block_pushed(), 1.0, tstops=[0.4])
    assert r.y.shape == (2 * 3, len(r.t))
    np.testing.assert_array_equal(r.y, np.vstack([r.q.T, r.v.T]))
    assert r.nfev == r.diagnostics["n_evaluations"] > 0
    text = repr(r)
    assert len(text.splitlines()) <= 12 and max(map(len, text.splitlines())) <= 110
    for part in ("status 0", "t = 0 .. 1 s (1001 outputs)", "method DOP853", "floor.F_f",
                 "reserve_zero 1", "2 phases"):
        assert part in text, part


def test_the_dense_output_is_exact_at_stops_and_events_and_close_between():
    """Coarse outputs (dt = 0.1) and a stop at 0.45 off the grid: the angle is piecewise
    quadratic, so the Hermite pieces between knots (outputs and both sides of the stop) are
    exact; without the stop's knot they would not be."""
    r = ns.simulate(rotor(0.45), 1.0, method="RK4", dt=0.1, tstops=[0.45])
    t = np.linspace(0.0, 1.0, 333)
    angle, w = rotor_exact(t, 0.45)
    y = r.sol(t)
    assert y.shape == (6, t.size) and r.sol(0.45).shape == (6,)
    assert np.max(np.abs(y[2] - angle)) < 1e-12 and np.max(np.abs(y[5] - w)) < 1e-12
    with pytest.raises(ValueError, match=r"sol\(t\): t = 1\.5 is outside the run's span 0 \.\. "
                                         r"1 s"):
        r.sol([0.5, 1.5])
    # events: the belt's stick-slip (velocity kinks at every mode switch)
    belt = ns.simulate(stick_slip_oscillator.build(), 3.0)
    for e in belt.events[1:]:
        np.testing.assert_allclose(belt.sol(e.t), np.concatenate((e.q, e.v)), atol=1e-14)
    t = np.linspace(0.0, 3.0, 1234)
    fine = ns.simulate(stick_slip_oscillator.build(), 3.0, t_eval=t)
    assert np.max(np.abs(belt.sol(t) - fine.y)) < 1e-9


def test_user_events_by_name_with_a_terminal_count():
    def bottom(t, q, v):
        return q[2] + math.pi / 2  # the bar passes the vertical

    bottom.terminal = 3

    def never(t, q, v):
        return 1.0

    never.name = "no crossing"
    r = ns.simulate(pendulum(), 5.0, events=[bottom, never, lambda t, q, v: q[0],
                                            lambda t, q, v: q[0] - 0.1])
    assert set(r.t_events) == {"bottom", "no crossing", "<lambda>", "<lambda>_2"}
    assert len(r.t_events["bottom"]) == 3 and r.status == 1
    assert r.t[-1] == r.t_events["bottom"][-1]
    assert r.t_events["no crossing"].shape == (0,) and r.y_events["no crossing"].shape == (0, 6)
    half_period = np.diff(r.t_events["bottom"])
    assert half_period == pytest.approx(half_period[0], rel=1e-8)
    np.testing.assert_allclose(r.y_events["bottom"][:, 2], -math.pi / 2, atol=1e-10)
    assert r.y_events["<lambda>_2"].shape == (len(r.t_events["<lambda>_2"]), 6)


@pytest.mark.parametrize("terminal", [-1, 1.5, "yes"])
def test_bad_terminal_counts_are_named(terminal):
    def g(t, q, v):
        return q[0]

    g.terminal = terminal
    with pytest.raises(ValueError, match=r"event 'g': terminal = .* is invalid: give True / "
                                         r"False or a count >= 0"):
        ns.simulate(pendulum(), 1.0, events=[g])


def test_simulate_uses_the_model_s_own_end_time_and_step():
    model = stick_slip_oscillator.build(t_end=0.5)
    r = ns.simulate(model, method="RK4")
    assert r.t[-1] == 0.5 and r.dt == model.dt == 1e-3 and len(r.t) == 501
    built = ns.simulate(pendulum())  # a PlanarModel: 1 s, a thousandth of it
    assert built.t[-1] == 1.0 and len(built.t) == 1001


# ============================================================================ README
def test_the_readme_builds_a_model_from_the_flat_namespace():
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no deprecated name, no energy warning
        exec(compile(readme_block("building-a-model"), "README.md", "exec"), namespace)
    r = namespace["result"]
    assert r.status == 0 and r["lambda_N"].shape == (len(r.t), 2)
    # the slot's normal force m g - P_y changes sign at 0.5 s; the motor starts at 0.25 s
    k = np.searchsorted(r.t, 0.5)
    assert r["guide.N"][k - 5] > 0 and abs(r["guide.N"][k]) < 1e-9
    assert r["pin.tau"] == pytest.approx(-0.05 * 0.02 * 9.81 * np.sign(r["wheel.w"]))
    w = r["wheel.w"]
    assert w[np.searchsorted(r.t, 1.0)] == pytest.approx(
        2.0 + (1.0 / 0.5) * 0.75 - (0.05 * 0.02 * 9.81 / 0.5) * 1.0, abs=1e-9)


def test_new_initial_conditions_keep_the_model_s_settings():
    """``simulate(model, q0=..., v0=...)`` replaces the state only: the model's own end time,
    step, outputs and time stops stay."""
    from dataclasses import replace

    model = replace(stick_slip_oscillator.build(t_end=0.5), tstops=(0.25,))
    r = ns.simulate(model, v0=model.v0 + 0.01, method="RK4")
    assert r.t[-1] == 0.5 and len(r.t) == 501 and list(r.outputs) == list(model.outputs)
    plain = ns.simulate(model, v0=model.v0 + 0.01, method="RK4", tstops=[])
    assert r.diagnostics["n_phases"] == plain.diagnostics["n_phases"] + 1


def test_clutches_get_their_outputs_from_the_pair_list():
    """Clutches are rotational friction pairs of the system: ``.tau``, ``.N`` and ``.mode``
    without any declaration, equal to the columns the drivetrain model declares itself."""
    from nonsmooth.models import coupled_clutches

    r = ns.simulate(coupled_clutches.build(), 0.5)
    for k in (1, 2, 3):
        np.testing.assert_array_equal(r[f"clutch{k}.tau"], r[f"tau{k}"])
        np.testing.assert_array_equal(r[f"clutch{k}.N"], r[f"fn{k}"])
        assert r.units[f"clutch{k}.tau"] == "N m" and f"clutch{k}.F_f" not in r.available()
    np.testing.assert_array_equal(r["J1.w"], r["w1"])


def test_a_terminal_event_with_t_eval_keeps_only_the_requested_rows():
    def bottom(t, q, v):
        return q[2] + math.pi / 2

    bottom.terminal = 2
    r = ns.simulate(pendulum(), 3.0, t_eval=[0.5, 1.0, 2.9], events=[bottom])
    assert r.status == 1 and list(r.t) == [0.5, 1.0]  # as solve_ivp: no row at the event
    t_stop = r.t_events["bottom"][-1]
    assert r.sol.t_max == t_stop  # the dense output reaches the event
    np.testing.assert_allclose(r.sol(t_stop), r.y_events["bottom"][-1], atol=1e-14)


# ---------------------------------------------------------------------------- issue 19, item 14
def slider(push, torque=None):
    """A block in a frictional slot pushed by ``push`` (a function or a constant)."""
    mdl = ns.PlanarModel("slider")
    block = mdl.add(ns.Body("block", mass=2.0, inertia=0.1, velocity=(1.0, 0.0)))
    mdl.add(ns.Translational("guide", ns.ground, block, axis=(-1.0, 0.0), mu=0.1))
    mdl.add(ns.Force("push", block, push))
    if torque is not None:
        mdl.add(ns.Torque("twist", block, torque))
    mdl.add(ns.Gravity(g=9.81))
    return mdl


def test_a_result_indexed_by_a_number_says_how_to_index():
    r = ns.simulate(rotor(), 0.1)
    with pytest.raises(TypeError, match=r"result\[0\]: a Result is indexed by an output's name "
                                        r"\(a str\), e\.g\. result\['t'\] .*result\.t\[k\].*"
                                        r"result\.available\(\)"):
        r[0]


@pytest.mark.parametrize("method", ["DOP853", "RK4", "Radau"])
@pytest.mark.parametrize("returned", [(1.0, 2.0, 3.0), 1.0, None])
def test_a_force_function_of_the_wrong_shape_is_named(method, returned):
    with pytest.raises(UserFunctionError,
                       match=rf"the function of force 'push' returned {returned!r} at t = 0 s: "
                             r"a force function F\(t, q, v\) must return two numbers \(Fx, Fy\)"
                       .replace("(1.0", r"\(1\.0").replace("3.0)", r"3\.0\)")):
        ns.simulate(slider(lambda t, q, v: returned), 0.1, method=method)


@pytest.mark.parametrize("returned", [(1.0, 2.0), None, "3"])
def test_a_torque_function_of_the_wrong_shape_is_named(returned):
    with pytest.raises(UserFunctionError, match=r"the function of torque 'twist' returned .* "
                                                    r"at t = 0 s: a torque function T\(t, q, v\) "
                                                    r"must return one number \(N m\)"):
        ns.simulate(slider((0.0, 0.0), lambda t, q, v: returned), 0.1)


@pytest.mark.parametrize("returned", [np.array([1.0, 2.0]), "soon"])
def test_an_event_function_returning_no_number_is_named(returned):
    def contact(t, q, v):
        return returned

    with pytest.raises(UserFunctionError, match=r"user event contact returned .* at t = 0 s: "
                                                    r"an event function g\(t, q, v\) must return "
                                                    r"a real number"):
        ns.simulate(slider((0.0, 0.0)), 0.1, events=[contact])


@pytest.mark.parametrize("store", [123, None, ""])
def test_a_sweep_store_that_is_no_path_is_named(tmp_path, store):
    with pytest.raises(ValueError, match=r"store = .* is invalid: give the sweep's folder as a "
                                         r"path \(a str or pathlib\.Path\)"):
        ns.sweep("stick_slip_oscillator", {"k": [1.0, 2.0]}, store=store, metrics=["max:x"])


@pytest.mark.parametrize("make", [
    lambda n: ns.Body(n, mass=1.0, inertia=1.0),
    lambda n: ns.PointMass(n, mass=1.0),
    lambda n: ns.Revolute(n, ns.ground, ns.Body("b", 1.0, 1.0)),
    lambda n: ns.Translational(n, ns.ground, ns.Body("b", 1.0, 1.0)),
    lambda n: ns.Force(n, ns.Body("b", 1.0, 1.0), (0.0, 0.0)),
    lambda n: ns.Torque(n, ns.Body("b", 1.0, 1.0), 0.0),
    lambda n: ns.Spring(n, ns.ground, (0, 0), ns.Body("b", 1.0, 1.0), (0, 0), 1.0, 1.0),
    lambda n: ns.Driver(n, ns.Revolute("pin", ns.ground, ns.Body("b", 1.0, 1.0)), speed=1.0),
])
@pytest.mark.parametrize("name", [5, "", "  "])
def test_an_element_name_is_a_non_empty_string(make, name):
    with pytest.raises(ModelError, match=rf"name {name!r} is invalid: an element's name is a "
                                         r"non-empty string"):
        make(name)
    with pytest.raises(ModelError, match=r"gravity name '' is invalid"):
        ns.Gravity("")  # a number first is taken for g (its own message)


def test_constant_forces_and_torques_are_the_constant_functions():
    const = ns.simulate(slider((-3.0, 0.0)), 0.5)
    func = ns.simulate(slider(lambda t, q, v: (-3.0, 0.0)), 0.5)
    np.testing.assert_array_equal(const.y, func.y)
    assert const["block.vx"][-1] < func["block.vx"][0] - 0.5  # the force acted

    def spun(torque):
        mdl = ns.PlanarModel("rotor")
        disk = mdl.add(ns.Body("disk", mass=1.0, inertia=J))
        mdl.add(ns.Revolute("pin", ns.ground, disk))
        mdl.add(ns.Torque("motor", disk, torque))
        return ns.simulate(mdl, 1.0, method="RK4", dt=0.01)

    const, func = spun(T0), spun(lambda t, q, v: T0)
    np.testing.assert_array_equal(const.y, func.y)
    assert abs(const["disk.w"][-1] - T0 / J) < 1e-12  # w = T t / J


@pytest.mark.parametrize("make, match", [
    (lambda b: ns.Force("push", b, (1.0, 2.0, 3.0)), r"force 'push': function must be callable "
                                                     r"\(t, q, v\) -> \(Fx, Fy\) or a constant"),
    (lambda b: ns.Force("push", b, 5.0), r"or a constant pair \(Fx, Fy\) in N, got 5\.0"),
    (lambda b: ns.Force("push", b, (1.0, float("nan"))), r"the constant force must be finite"),
    (lambda b: ns.Torque("twist", b, "1"), r"torque 'twist': function must be callable"),
    (lambda b: ns.Torque("twist", b, float("inf")), r"the constant torque = inf is invalid"),
])
def test_bad_constant_forces_and_torques_are_refused(make, match):
    with pytest.raises(ModelError, match=match):
        make(ns.Body("block", 1.0, 1.0))


def test_a_vector_pairs_force_by_name_is_its_rows():
    """``result["F_T:pair"]`` of a pair of dimension 2 is its two rows of ``W`` (N, 2), equal to
    its named components; a scalar pair's stays one column."""
    from nonsmooth.planar.sliding_contact import SlidingContact

    mdl = ns.PlanarModel("puck")
    puck = mdl.add(ns.Body("puck", 2.0, 0.01, velocity=(2.0, -1.5)))
    mdl.add(SlidingContact("contact", puck, 19.62, 0.3, 0.4))
    r = ns.simulate(ns.Model(mdl.compile(), *mdl.initial_state(), name="puck"), 0.5)
    F = r["F_T:contact"]
    assert F.shape == (r.t.size, 2)
    np.testing.assert_array_equal(F[:, 0], r["contact.F_x"])
    np.testing.assert_array_equal(F[:, 1], r["contact.F_y"])
    np.testing.assert_array_equal(r["v_T:contact"][:, 1], r["contact.v_y"])
    assert r["N:contact"].shape == (r.t.size,)
    # slipping: |F| = mu N before the stop (at |v0| / (mu g) = 0.8496 s)
    np.testing.assert_allclose(np.hypot(F[1:, 0], F[1:, 1]), 0.3 * 19.62, rtol=1e-12)


# ============================================================================ old import paths
@pytest.mark.parametrize("old, new", [
    ("nonsmooth.kernels", "nonsmooth.planar.kernels"),
    ("nonsmooth.joints", "nonsmooth.planar.joints"),
    ("nonsmooth.planar_family", "nonsmooth.planar.family"),
    ("nonsmooth.generated", "nonsmooth.generalized.generated"),
    ("nonsmooth.events", "nonsmooth.run.events"),
])
def test_an_old_import_path_warns_and_gives_the_moved_module(old, new):
    """The planar and generalized modules moved into their packages: a user's script that
    imports an old path keeps working for one release, warned; it gets the very module."""
    code = ("import importlib, warnings\nwarnings.simplefilter('error')\n"
            f"new = importlib.import_module({new!r})\n"
            "try:\n"
            f"    importlib.import_module({old!r})\n"
            "except DeprecationWarning as w:\n"
            "    print('WARNED', w)\n"
            "warnings.simplefilter('ignore')\n"
            f"print(importlib.import_module({old!r}) is new)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert f"WARNED {old} has moved to {new}" in out, out
    assert out.strip().endswith("True"), out
