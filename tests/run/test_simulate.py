"""simulate(): argument checks, output grid, user events (scipy convention), methods."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Revolute

L, M = 1.0, 1.0


def pendulum(theta0=0.5):
    """A uniform bar pinned at one end (no friction): energy must be conserved."""
    mdl = PlanarModel("pendulum")
    c, s = math.cos(theta0 - math.pi / 2), math.sin(theta0 - math.pi / 2)
    bar = mdl.add(Body("bar", M, M * L * L / 12, position=(0.5 * L * c, 0.5 * L * s),
                       angle=theta0 - math.pi / 2))
    mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5 * L, 0.0)))
    mdl.add(Gravity(g=9.81))
    return mdl


@pytest.mark.parametrize("method", [name for name, m in nonsmooth.METHODS.items()
                                    if not m.time_stepping])  # (ODE integrators)
def test_every_method_conserves_energy_without_friction(method):
    dt = 1e-3 if method != "Euler" else 1e-4
    r = nonsmooth.simulate(pendulum(), 0.5, method=method, dt=dt, rtol=1e-9, atol=1e-11)
    E = r.T + r.V
    tol, drift = (1e-3, 1e-4) if method == "Euler" else (1e-6, 1e-8)  # Euler is first order
    assert np.max(np.abs(E - E[0])) < tol * abs(r.V).max()
    assert r.diagnostics["max_drift_position"] < drift


def test_output_grid_is_uniform_and_ends_at_t_end():
    r = nonsmooth.simulate(pendulum(), (0.2, 0.705), method="RK4", dt=0.01)
    np.testing.assert_allclose(r.t[:-1], 0.2 + 0.01 * np.arange(51), atol=1e-12)
    assert r.t[-1] == pytest.approx(0.705)


def _angle(q):
    return q[2] + math.pi / 2  # bar angle from the downward vertical


def test_terminal_user_event_stops_at_the_bottom():
    """Released at 0.5 rad, the pendulum passes theta = 0 at a quarter period."""
    def bottom(t, q, v):
        return _angle(q)

    bottom.terminal = True
    bottom.direction = -1
    for method in ("RK4", "DOP853"):
        r = nonsmooth.simulate(pendulum(), 2.0, method=method, dt=1e-3, events=[bottom],
                               rtol=1e-11, atol=1e-12)
        assert r.status == 1 and "terminal user event" in r.message
        ev = [e for e in r.events if e.kind == "user"]
        assert len(ev) == 1 and ev[0].pair == "bottom"
        assert abs(_angle(ev[0].q)) < 1e-9
        assert r.t[-1] == pytest.approx(ev[0].t, abs=1e-12)
        # quarter period of the physical pendulum (elliptic integral), omega0^2 = 3 g / (2 L)
        from scipy.special import ellipk

        quarter = ellipk(math.sin(0.25) ** 2) / math.sqrt(1.5 * 9.81 / L)
        assert ev[0].t == pytest.approx(quarter, abs=1e-8)


def test_non_terminal_events_are_logged_with_direction():
    def crossing(t, q, v):
        return _angle(q)

    crossing.direction = 1  # only upward crossings
    r = nonsmooth.simulate(pendulum(), 3.0, method="RK45", dt=1e-3, events=[crossing])
    ups = [e.t for e in r.events if e.kind == "user"]
    half = np.diff(ups)
    assert len(ups) >= 2 and r.status == 0
    assert np.allclose(half, half[0], rtol=1e-6)  # one full period between upward crossings


@pytest.mark.parametrize("kwargs, match", [
    ({"t_span": 0.0}, r"the end time must be finite and greater than the start time"),
    ({"t_span": (1.0, 0.5)}, r"t_span = \(1.0, 0.5\) is invalid"),
    ({"t_span": 1.0, "dt": 0.0}, r"dt = 0.0 is invalid: the step must be a finite number > 0"),
    ({"t_span": 1.0, "dt": 2.0}, r"dt = 2 s is longer than the simulated interval"),
    ({"t_span": 1.0, "method": "rk4"}, r"unknown method 'rk4'; choose one of RK4, Euler"),
    ({"t_span": 1.0, "rtol": -1.0}, r"rtol = -1.0 is invalid"),
    ({"t_span": 1.0, "events": [3]}, r"events\[0\] is not callable"),
])
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nonsmooth.simulate(pendulum(), **kwargs)


def test_initial_conditions_are_projected():
    mdl = pendulum()
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    q_bad = q0 + np.array([0.01, -0.02, 0.0])
    r = nonsmooth.simulate(system, 0.01, q0=q_bad, v0=v0 + 0.3, method="RK4", dt=1e-3)
    assert np.max(np.abs(r.phi[0])) < 1e-12
    assert np.max(np.abs(r.dphi[0])) < 1e-12


def test_model_needs_initial_state():
    with pytest.raises(nonsmooth.ModelError, match="needs q0"):
        nonsmooth.simulate(pendulum().compile(), 1.0)
