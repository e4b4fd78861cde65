"""A rotational spring wound several turns (``nonsmooth.spatial.elements.RotationalSpring``):
the joint's angle is tracked continuously (its winding coordinate, ``SpatialSystem``), so the
torque keeps growing past half a turn, as a hinge's angle in MuJoCo and a planar revolute's
coordinate do. Checked against the undamped torsional oscillator about a fixed axis, ``J
theta'' = -k (theta - angle0)``, wound 3 turns and more, on the compiled DOP853 and RK4 phases
and the Python path: the angle output, the spring's torque, the potential energy and the energy
balance."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.spatial import Body, Revolute, RotationalSpring, SpatialModel, ground
from nonsmooth.spatial.model import SpatialSystem

J, K = 0.5, 2.0  # kg m^2 about the axis, N m/rad
OMEGA = math.sqrt(K / J)  # rad/s


def _python_path(monkeypatch):
    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)


def _rotor(w0: float = 0.0, angle0: float = 0.0) -> SpatialModel:
    """A disc on a vertical revolute joint to the ground held by a rotational spring, started
    at its initial configuration (angle 0) with the spin ``w0`` (rad/s) about the axis."""
    mdl = SpatialModel("wound rotor")
    disc = mdl.add(Body("disc", 2.0, (0.3, 0.3, J), angular_velocity=(0.0, 0.0, w0)))
    pin = mdl.add(Revolute("pin", ground, disc, point=(0, 0, 0), axis=(0, 0, 1)))
    mdl.add(RotationalSpring("spring", pin, stiffness=K, angle0=angle0))
    return mdl


@pytest.mark.parametrize("path", ["compiled", "python"])
def test_a_spring_wound_three_turns_is_the_torsional_oscillator(path, monkeypatch):
    """Spun at ``w0`` from the spring's free angle: ``theta = w0 / omega sin(omega t)``, an
    amplitude of 3.2 turns; the torque ``-k theta`` grows past half a turn (it changed sign
    there while the angle was wrapped into (-pi, pi])."""
    if path == "python":
        _python_path(monkeypatch)
    w0 = 40.0  # amplitude w0 / omega = 20 rad
    r = nonsmooth.simulate(_rotor(w0), 2.0, dt=0.01, rtol=1e-11, atol=1e-13)
    theta = w0 / OMEGA * np.sin(OMEGA * r.t)
    assert np.max(np.abs(theta)) > 3 * 2 * math.pi
    assert np.max(np.abs(r["pin.angle"] - theta)) < 1e-8 * 20.0
    assert np.max(np.abs(r["disc.wz"] - w0 * np.cos(OMEGA * r.t))) < 1e-8 * w0
    assert np.max(np.abs(r["spring.torque"] + K * theta)) < 1e-8 * K * 20.0
    np.testing.assert_allclose(r.V, 0.5 * K * theta ** 2, rtol=0, atol=1e-8 * 0.5 * K * 400)
    assert r.diagnostics["energy_balance_scaled"] < 1e-9
    # the winding coordinate is a coordinate of the state, unwrapped
    col = r.coordinate_names.index("pin.angle")
    assert np.max(np.abs(r.q[:, col] - theta)) < 1e-7 * 20.0


def test_a_spring_wound_turns_on_the_compiled_rk4_phase():
    """RK4 at a fixed step (the compiled fixed-step phase): the same oscillator, to the
    method's accuracy."""
    w0 = 40.0
    r = nonsmooth.simulate(_rotor(w0), 2.0, method="RK4", dt=1e-3)
    theta = w0 / OMEGA * np.sin(OMEGA * r.t)
    assert np.max(np.abs(theta)) > 3 * 2 * math.pi
    assert np.max(np.abs(r["pin.angle"] - theta)) < 1e-6 * 20.0
    assert np.max(np.abs(r["spring.torque"] + K * theta)) < 1e-6 * K * 20.0
    assert r.diagnostics["energy_balance_scaled"] < 1e-6


def test_a_spring_wound_before_the_start_unwinds_through_its_turns():
    """``angle0`` of three turns and a half from rest: ``theta = angle0 (1 - cos(omega t))``
    (the spring pulls through 7 turns and back), with the angle at rows a second apart (more
    than half a turn between rows: exact, not unwrapped from the rows)."""
    a0 = -(3.5 * 2 * math.pi)
    r = nonsmooth.simulate(_rotor(0.0, a0), 6.0, t_eval=np.arange(0.0, 6.01, 1.0),
                           rtol=1e-11, atol=1e-13)
    theta = a0 * (1.0 - np.cos(OMEGA * r.t))
    assert np.max(np.abs(np.diff(theta))) > math.pi
    assert np.max(np.abs(r["pin.angle"] - theta)) < 1e-8 * abs(a0)
    assert np.max(np.abs(r["spring.torque"] + K * (theta - a0))) < 1e-8 * K * abs(a0)
    assert r.diagnostics["energy_balance_scaled"] < 1e-9


def test_the_winding_coordinate_is_named_and_starts_at_zero():
    mdl = _rotor(1.0)
    system = mdl.compile()
    q0, _ = mdl.initial_state()
    assert system.n_q == 8 and system.coordinate_names[-1] == "pin.angle"
    assert q0.shape == (8,) and q0[-1] == 0.0
    # project() sets it to the geometric angle plus the turns it counts
    q = q0.copy()
    q[-1] = 4 * math.pi + 0.3
    assert system.project(q)[-1] == pytest.approx(4 * math.pi)
    with pytest.raises(nonsmooth.ModelError, match="angle0"):
        RotationalSpring("s", Revolute("p", ground, Body("b", 1.0, (1, 1, 1)), point=(0, 0, 0),
                                       axis=(0, 0, 1)), stiffness=1.0, angle0=1e9)
