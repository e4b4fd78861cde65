"""A shape away from its body's centre of mass (``Sphere(R, position=...)``): a weeble (a
sphere whose centre of mass sits below its centre) rocks on a table with the period of rolling
without slip, in the compiled phases and in the Python path."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Contact, Hertz, Plane, Sphere
from nonsmooth.model import Model
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

M, R, ALPHA, I1, I3, G = 0.02, 0.02, 0.3, 3.56e-6, 3.2e-6, 9.81  # kg, m, -, kg m^2, m/s^2


def rocking_period(m: float, R: float, a: float, I1: float, g: float) -> float:
    """The period (s) of small rocking, rolling without slip, of a sphere of radius ``R`` whose
    centre of mass is ``a`` below its centre: ``2 pi sqrt((I1 + m (R - a)^2) / (m g a))`` (the
    contact point the instantaneous centre, ``R - a`` below the centre of mass)."""
    return 2.0 * math.pi * math.sqrt((I1 + m * (R - a) ** 2) / (m * g * a))


def weeble(theta0: float) -> SpatialModel:
    """The weeble at rest on the table, its axis tilted by ``theta0`` (rad) about x."""
    a = ALPHA * R
    law = Hertz(E=3e9, nu=0.35)
    K = law.stiffness(Sphere(R), Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    d = (M * G / K) ** (2.0 / 3.0)  # Hertz's static penetration
    e3 = np.array([0.0, -math.sin(theta0), math.cos(theta0)])
    mdl = SpatialModel("weeble")
    body = mdl.add(Body("weeble", M, (I1, I1, I3), position=np.array([0.0, 0.0, R - d]) - a * e3,
                        orientation=(math.cos(0.5 * theta0), math.sin(0.5 * theta0), 0.0, 0.0)))
    mdl.add(Contact("table", body, Sphere(R, position=(0.0, 0.0, a)), ground,
                    Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)), normal=law, restitution=0.5,
                    mu=0.8, mu_s=1.0))
    mdl.add(Gravity(G))
    return mdl


def _tilt(r) -> np.ndarray:
    """The y component of the weeble's axis (world): its signed tilt about x, sin(theta)."""
    w, x, y, z = (r[f"weeble.{c}"] for c in ("qw", "qx", "qy", "qz"))
    return 2.0 * (y * z - w * x)


def _crossings(t, x):
    """The times (s) where ``x`` crosses zero, by linear interpolation."""
    i = np.flatnonzero(np.sign(x[:-1]) * np.sign(x[1:]) < 0)
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def test_a_weeble_rocks_with_the_period_of_rolling_without_slip():
    """At rest tilted by 0.01 rad, the weeble rocks rolling on the table (its friction sticks)
    with the period ``2 pi sqrt((I1 + m (R - a)^2) / (m g a))``: the shape's offset is where the
    lever and the contact point come from (a sphere centred at its centre of mass is neutral
    and does not rock)."""
    T = rocking_period(M, R, ALPHA * R, I1, G)
    r = nonsmooth.simulate(weeble(0.01), 3.2 * T, dt=T / 400)
    t0 = _crossings(r.t, _tilt(r))
    assert len(t0) >= 5
    period = 2.0 * np.mean(np.diff(t0))
    assert period == pytest.approx(T, rel=2e-4)  # (amplitude 1e-2 rad, compliance 4e-5)
    assert np.all(r["table.mode"][r.t > 0.05 * T] == 0.0)  # stuck: rolling without slip
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_the_offset_shape_is_the_same_in_the_compiled_phases_and_the_python_path():
    """The offset in the compiled phases (``spatial.contact_kernels``) and in the Python
    reference (``spatial.contact``, with scipy's integrator): the same rocking."""
    T = rocking_period(M, R, ALPHA * R, I1, G)
    mdl = weeble(0.05)
    system = mdl.compile()
    model = Model(system, *mdl.initial_state(), name="weeble")
    fast = nonsmooth.simulate(model, 0.25 * T, dt=T / 100)
    system.compiled_contacts = False  # the Python reference's contact (scipy's RK45 steps)
    slow = nonsmooth.simulate(model, 0.25 * T, dt=T / 100, method="RK45")
    assert np.allclose(_tilt(fast), _tilt(slow), rtol=0.0, atol=1e-6)
    assert np.allclose(fast["table.N"], slow["table.N"], rtol=1e-4)
