"""A shape away from its body's centre of mass (``Sphere(R, position=...)``): a weeble's rocking
period against the closed form of rolling without slip, and the tippe top (``models/
contact_tippe_top.py``) inverting by sliding friction with Jellett's quantity kept and the
energy balanced; the compiled phases against the Python path on the same model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import build, load

TOP = load("contact_tippe_top")


def _crossings(t, x):
    """The times (s) where ``x`` crosses zero, by linear interpolation."""
    i = np.flatnonzero(np.sign(x[:-1]) * np.sign(x[1:]) < 0)
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def test_a_weeble_rocks_with_the_period_of_rolling_without_slip():
    """A sphere whose centre of mass is ``a`` below its centre, at rest tilted by 0.01 rad,
    rocks rolling on the table (friction sticks) with the period ``2 pi sqrt((I1 + m (R -
    a)^2) / (m g a))``: the shape's offset is where the lever and the contact point come
    from (without it the sphere is neutral and does not rock)."""
    p = {"m": 0.02, "R": 0.02, "alpha": 0.3, "I1": 3.56e-6, "g": 9.81}
    T = TOP.rocking_period(p["m"], p["R"], p["alpha"] * p["R"], p["I1"], p["g"])
    r = nonsmooth.simulate(build("contact_tippe_top", omega3=0.0, theta0=0.01, mu=0.8,
                                 mu_s=1.0), 3.2 * T, dt=T / 400)
    e3, _ = TOP.axis_and_momentum(r, p["I1"], 3.2e-6)
    t0 = _crossings(r.t, e3[:, 1])
    assert len(t0) >= 5
    period = 2.0 * np.mean(np.diff(t0))
    assert period == pytest.approx(T, rel=2e-4)  # (amplitude 1e-2 rad, compliance 4e-5)
    assert np.all(r["table.mode"][r.t > 0.05 * T] == 0.0)  # stuck: rolling without slip
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


@pytest.fixture(scope="module")
def top_run():
    return nonsmooth.simulate(build("contact_tippe_top"))


def test_the_tippe_top_inverts(top_run):
    """Spun at 150 rad/s with ``1 - alpha < I3 / I1 < 1 + alpha``, the top turns upside down:
    its tilt grows from 0.1 rad to near pi and its centre of mass rises by about ``2 a``."""
    r, p = top_run, top_run.parameters
    theta, height = r["theta"], r["height"]
    a = p["alpha"] * p["R"]
    assert theta[0] == pytest.approx(0.1, abs=1e-9)
    assert theta[-1] > 0.9 * math.pi
    # the centre of mass is a e3 below the sphere's centre, which stays R - d above the table
    rise = height[-1] - height[0]
    assert rise == pytest.approx(a * (math.cos(theta[0]) - math.cos(theta[-1])), rel=1e-3)
    # the spin about the symmetry axis has reversed in the top's frame
    assert r["omega3"][0] > 0.0 > r["omega3"][-1]
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-7


def test_jelletts_quantity_is_kept_through_the_inversion(top_run):
    """Jellett's ``L . (a e3 - R z)`` is constant for any force at the sphere's lowest point;
    the compliant contact's force acts ``d / 2`` higher (``d`` ~ 1e-6 m), which bounds the
    drift."""
    lam = top_run["jellett"]
    assert np.max(np.abs(lam - lam[0])) < 2e-4 * abs(lam[0])


def test_the_compiled_phases_follow_the_python_path():
    """The offset shape in the compiled phases (``spatial.contact_kernels``) and in the Python
    reference (``spatial.contact``): the same motion over a short run."""
    mdl = build("contact_tippe_top")
    fast = nonsmooth.simulate(mdl, 0.05)
    mdl.system.compiled_contacts = False
    try:
        slow = nonsmooth.simulate(mdl, 0.05, method="RK45")
    finally:
        mdl.system.compiled_contacts = True
    assert np.allclose(fast["theta"], slow["theta"], atol=1e-6)
    assert np.allclose(fast["table.N"], slow["table.N"], rtol=1e-4, atol=1e-6)
