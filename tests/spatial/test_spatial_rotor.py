"""Geared rotors on spatial revolute joints (``nonsmooth.spatial.RotorInertia``,
``docs/method.md`` section 15.1), checked against closed forms written here: the angular
acceleration of a geared hinge, the gyroscopic torque of a rotor on a turntable, the invariants
(energy, angular momentum with the rotor's own) of a free tumbling carrier."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.spatial import (
    Body,
    Driver,
    Revolute,
    RotorInertia,
    SpatialModel,
    Spherical,
    Torque,
    ground,
)
from nonsmooth.spatial import rotation as rot

ROOT = Path(__file__).resolve().parents[2]
TIGHT = {"rtol": 1e-11, "atol": 1e-13, "dt": 0.01}


def _R(q_row: np.ndarray, i: int) -> np.ndarray:
    return rot.rotation_matrix(q_row[7 * i + 3:7 * i + 7])


# ============================================================ 1. a geared hinge on the ground
def _hinge(mode: str, I_r: float = 2e-4, G: float = 30.0, tau: float = 0.7):
    """A body on a revolute about a tilted fixed axis, its centre of mass off the axis, a
    constant torque ``tau`` about the axis; no gravity. Returns the result and ``J_axis``."""
    h = np.array([1.0, -2.0, 2.0]) / 3.0
    P = np.array([0.1, 0.2, -0.3])
    c = np.array([0.4, 0.1, 0.0])
    p0 = rot.from_axis_angle((0.3, 1.0, -0.5), 0.9)
    J, m = np.array([0.02, 0.05, 0.06]), 1.5
    mdl = SpatialModel(f"geared hinge, {mode}")
    b = mdl.add(Body("b", m, J, position=c, orientation=p0))
    pin = mdl.add(Revolute("pin", ground, b, point=P, axis=h))
    mdl.add(RotorInertia("motor", pin, rotor_inertia=I_r, gear_ratio=G, mode=mode))
    mdl.add(Torque("tau", b, tau * h))
    R0 = rot.rotation_matrix(p0)
    d = c - P
    d_perp = d - (d @ h) * h
    J_axis = float(h @ (R0 @ np.diag(J) @ R0.T) @ h) + m * float(d_perp @ d_perp)
    return nonsmooth.simulate(mdl, 1.5, **TIGHT), J_axis, h


@pytest.mark.parametrize("mode", ["armature", "virtual"])
def test_geared_hinge_accelerates_at_tau_over_the_reflected_inertia(mode):
    I_r, G, tau = 2e-4, 30.0, 0.7
    r, J_axis, h = _hinge(mode, I_r, G, tau)
    alpha = tau / (J_axis + G * G * I_r)  # the rotor adds 0.18 kg m^2 to J_axis = 0.21
    err = float(np.max(np.abs(r["pin.angle"] - 0.5 * alpha * r.t ** 2)))
    assert err < 1e-10, err  # measured 4e-15 (both modes)
    w = np.column_stack([r[f"b.w{c}_world"] for c in "xyz"])
    assert float(np.max(np.abs(w - np.outer(alpha * r.t, h)))) < 1e-10
    np.testing.assert_allclose(r["motor.spin"], G * alpha * r.t, rtol=0, atol=1e-9)
    # the run's kinetic energy counts the rotor's: 1/2 (J_axis + G^2 I_r) theta_dot^2
    T = 0.5 * (J_axis + G * G * I_r) * (alpha * r.t) ** 2
    assert float(np.max(np.abs(r.T - T))) < 1e-10 * float(np.max(T))
    assert r.diagnostics["energy_balance_scaled"] < 1e-9


# ============================================================ 2. the turntable
OMEGA_T, RATE = 2.0, 3.0  # rad/s: the table about z, the wheel's joint rate about its axis
J_EQ = 0.2  # kg m^2, G^2 I_r


def _turntable(mode: str, G: float):
    """A table turned at ``OMEGA_T`` about the world z axis by a driver; on it, at
    ``(0.5, 0, 0.2)``, a wheel on a revolute about the table's x axis driven at ``RATE``,
    geared with ``I_r = J_EQ / G^2``; no gravity."""
    mdl = SpatialModel(f"turntable, {mode}, G = {G:g}")
    z = np.array([0.0, 0.0, 1.0])
    table = mdl.add(Body("table", 3.0, (0.3, 0.4, 0.5), position=(0.1, 0.0, 0.05),
                         velocity=np.cross(OMEGA_T * z, (0.1, 0.0, 0.05)),
                         angular_velocity=OMEGA_T * z))
    c = np.array([0.5, 0.05, 0.2])  # the wheel's centre of mass, off its axis
    w_wheel = OMEGA_T * z + RATE * np.array([1.0, 0.0, 0.0])
    v_wheel = np.cross(OMEGA_T * z, (0.5, 0.0, 0.2)) + np.cross(w_wheel, c - (0.5, 0.0, 0.2))
    wheel = mdl.add(Body("wheel", 0.7, (0.01, 0.02, 0.015), position=c, velocity=v_wheel,
                         angular_velocity=w_wheel))
    base = mdl.add(Revolute("base", ground, table, point=(0.0, 0.0, 0.0), axis=z))
    pin = mdl.add(Revolute("pin", table, wheel, point=(0.5, 0.0, 0.2), axis=(1.0, 0.0, 0.0)))
    mdl.add(Driver("spin_table", base, speed=OMEGA_T))
    mdl.add(Driver("spin_wheel", pin, speed=RATE))
    mdl.add(RotorInertia("motor", pin, rotor_inertia=J_EQ / G ** 2, gear_ratio=G, mode=mode))
    return nonsmooth.simulate(mdl, 2.0, **TIGHT)


def _torques(r, joint):
    return np.column_stack([r[f"{joint}.T{c}"] for c in "xyz"])


@pytest.fixture(scope="module")
def turntables():
    return {G: (_turntable("armature", G), _turntable("virtual", G)) for G in (5.0, 50.0, 500.0)}


def test_turntable_modes_differ_by_the_gyroscopic_torque(turntables):
    """Same prescribed motion in both modes; the virtual rotor's angular momentum
    ``I_r G theta_dot h`` turns with the table, so the base bears ``Omega z x (I_r G
    theta_dot h)``, perpendicular to both axes: ``(-sin, cos, 0) I_r G theta_dot Omega``.
    The wheel's joint and both drivers carry the same loads in both modes."""
    for G, (arm, vir) in turntables.items():
        np.testing.assert_array_equal(arm.t, vir.t)
        I_r = J_EQ / G ** 2
        size = I_r * G * RATE * OMEGA_T
        angle = OMEGA_T * arm.t  # h(t) = (cos, sin, 0)
        want = size * np.column_stack([-np.sin(angle), np.cos(angle), np.zeros_like(angle)])
        diff = _torques(vir, "base") - _torques(arm, "base")
        err = float(np.max(np.abs(diff - want))) / size
        assert err < 1e-9, (G, err)  # measured 2e-13 (G = 5), 1e-12 (50), 1.3e-11 (500)
        scale = float(np.max(np.abs(_torques(arm, "base"))))
        for out in ("pin.Tx", "pin.Ty", "pin.Tz", "pin.Fx", "base.Fz", "spin_table.torque",
                    "spin_wheel.torque"):
            assert float(np.max(np.abs(vir[out] - arm[out]))) < 1e-9 * scale, (G, out)
        assert float(np.min(np.linalg.norm(diff, axis=1))) > 0.99 * size  # it is there


def test_virtual_tends_to_armature_as_one_over_the_gear_ratio(turntables):
    """At fixed ``G^2 I_r`` the difference of the modes is ``G^2 I_r theta_dot Omega / G``:
    ten times smaller for each tenfold ``G``."""
    gaps = {G: float(np.max(np.linalg.norm(_torques(v, "base") - _torques(a, "base"), axis=1)))
            for G, (a, v) in turntables.items()}
    for G, gap in gaps.items():
        assert abs(gap * G / (J_EQ * RATE * OMEGA_T) - 1.0) < 1e-9, (G, gap)  # 1e-13 ... 8e-12
    assert gaps[50.0] / gaps[5.0] == pytest.approx(0.1, rel=1e-8)
    assert gaps[500.0] / gaps[50.0] == pytest.approx(0.1, rel=1e-8)


# ============================================================ 3. a free tumbling carrier
def _tumbler(mode: str):
    """A free asymmetric carrier tumbling, with a wheel on a revolute about a tilted axis
    spinning at 20 rad/s relative to it, geared (``G = 12``); no gravity, no drivers."""
    mdl = SpatialModel(f"tumbler, {mode}")
    w_a = np.array([0.8, -0.5, 1.1])
    p0 = rot.from_axis_angle((1.0, 1.0, 0.0), 0.4)
    frame = mdl.add(Body("frame", 4.0, (0.2, 0.35, 0.45), position=(0.0, 0.0, 0.0),
                         orientation=p0, velocity=(0.1, 0.0, -0.2), angular_velocity=w_a))
    h = np.array([0.0, 0.6, 0.8])
    P = np.array([0.3, -0.1, 0.2])
    c = P + 0.02 * np.array([1.0, 0.0, 0.0])
    w_b = w_a + 20.0 * h
    wheel = mdl.add(Body("wheel", 0.5, (0.004, 0.004, 0.006), position=c,
                         velocity=np.array([0.1, 0.0, -0.2]) + np.cross(w_a, P)
                         + np.cross(w_b, c - P), angular_velocity=w_b))
    pin = mdl.add(Revolute("pin", frame, wheel, point=P, axis=h))
    rotor = mdl.add(RotorInertia("motor", pin, rotor_inertia=1.5e-4, gear_ratio=12.0,
                                 mode=mode))
    return nonsmooth.simulate(mdl, 3.0, **TIGHT), mdl, h, rotor


@pytest.mark.parametrize("mode", ["armature", "virtual"])
def test_free_tumbler_conserves_energy_and_angular_momentum(mode):
    """Energy ``v M v / 2`` (the rotor's in ``M``) constant; the angular momentum about the
    origin, the bodies' plus, in the virtual mode, the rotor's ``I_r s h`` (``s = h . omega_a
    + G theta_dot``), constant; without the rotor's term it is not."""
    r, mdl, h0, rotor = _tumbler(mode)
    assert r.success
    E = r.T
    err = float(np.max(np.abs(E - E[0]))) / float(E[0])
    assert err < 1e-9, err  # measured 1.2e-12 (armature), 6e-13 (virtual)
    frame, wheel = mdl.bodies
    L_bodies = np.zeros((len(r.t), 3))
    rotor_L = np.zeros((len(r.t), 3))
    for k, (q, v) in enumerate(zip(r.q, r.v, strict=True)):
        w_world = []
        for i, b in enumerate((frame, wheel)):
            R = _R(q, i)
            w = v[6 * i + 3:6 * i + 6]
            L_bodies[k] += R @ (b.J @ w) + b.mass * np.cross(q[7 * i:7 * i + 3], v[6 * i:6 * i + 3])
            w_world.append(R @ w)
        h = _R(q, 0) @ (frame.R0.T @ h0)
        s = h @ w_world[0] + rotor.gear_ratio * (h @ (w_world[1] - w_world[0]))
        rotor_L[k] = rotor.rotor_inertia * s * h
    L = L_bodies + (rotor_L if mode == "virtual" else 0.0)
    scale = float(np.max(np.linalg.norm(L, axis=1)))
    err_L = float(np.max(np.abs(L - L[0]))) / scale
    assert err_L < 1e-9, err_L  # measured 1.7e-12 (armature), 1.6e-12 (virtual)
    if mode == "virtual":  # the rotor's momentum matters here
        assert float(np.max(np.abs(L_bodies - L_bodies[0]))) / scale > 1e-2  # 0.053
    assert np.ptp(r["pin.angle"]) > 10.0  # it spins


# ============================================================ 4. bad inputs
def _joint():
    return Revolute("pin", ground, Body("b", 1.0, 0.1), axis=(0, 0, 1))


@pytest.mark.parametrize("make, match", [
    (lambda: RotorInertia("m", _joint(), rotor_inertia=-1e-4, gear_ratio=10.0),
     "rotor inertia 'm': rotor_inertia = -0.0001"),
    (lambda: RotorInertia("m", _joint(), rotor_inertia=0.0, gear_ratio=10.0),
     "rotor_inertia = 0"),
    (lambda: RotorInertia("m", _joint(), rotor_inertia=1e-4, gear_ratio=0.0),
     "rotor inertia 'm': gear_ratio = 0"),
    (lambda: RotorInertia("m", _joint(), rotor_inertia=1e-4, gear_ratio=float("nan")),
     "gear_ratio"),
    (lambda: RotorInertia("m", Spherical("s", ground, Body("b", 1.0, 0.1)), rotor_inertia=1e-4,
                          gear_ratio=10.0), "joint must be a nonsmooth.spatial.Revolute, got "
     "Spherical 's'"),
    (lambda: RotorInertia("m", _joint(), rotor_inertia=1e-4, gear_ratio=10.0, mode="reflected"),
     "mode = 'reflected' is invalid; allowed: 'armature'"),
])
def test_bad_inputs_raise_named_errors(make, match):
    with pytest.raises(ModelError, match=match.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_rotor_on_a_joint_not_in_the_model_is_refused():
    mdl = SpatialModel("m")
    b = mdl.add(Body("b", 1.0, 0.1))
    pin = Revolute("pin", ground, b, axis=(0, 0, 1))
    mdl.add(RotorInertia("motor", pin, rotor_inertia=1e-4, gear_ratio=10.0))
    with pytest.raises(ModelError, match="rotor inertia 'motor' gears joint 'pin', which was "
                                         "not added"):
        mdl.compile()


# ============================================================ 5. the robot arm model
def test_robot_arm_model_runs_from_the_command_line(capsys, tmp_path):
    from nonsmooth.cli import main
    from nonsmooth.models import build

    path = ROOT / "models" / "spatial_robot_arm.py"
    out = tmp_path / "out.csv"
    assert main(["run", str(path), "--t-end", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "status 0: the simulation reached the end time" in text
    assert main(["run", "spatial_robot_arm", "--set", "mode=armature", "--set", "drive=none",
                 "--t-end", "0.5"]) == 0
    assert "status 0" in capsys.readouterr().out
    # free (undriven) arm: energy conserved with the rotors' kinetic energy in T
    for mode in ("virtual", "armature"):
        r = nonsmooth.simulate(build("spatial_robot_arm", mode=mode, drive="none"), 1.0,
                               rtol=1e-11, atol=1e-13)
        E = r["energy"]
        assert np.max(np.abs(E - E[0])) / np.max(np.abs(r.V) + r.T) < 1e-9, mode
        assert {"base_motor.spin", "shoulder_motor.spin"} <= set(r.available())
    # the driven arm follows its drivers
    r = nonsmooth.simulate(build("spatial_robot_arm"), 1.0, rtol=1e-10, atol=1e-12)
    assert r.success and math.isfinite(float(r["shoulder_torque"][-1]))
