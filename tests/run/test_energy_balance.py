"""The energy balance's scale and work terms (issue 19, item 6): a frictionless spring-block's
exact run is not reported as a 100 % error, and a configuration-dependent mass matrix's
velocity-dependent inertial forces (``GeneralizedSystem(inertial=...)``) are counted as no work."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import nonsmooth as ns
from nonsmooth.model import Model


def spring_block() -> ns.PlanarModel:
    """A 1 kg block on a frictionless horizontal guide, tied to the origin by a 100 N/m spring
    and released 0.1 m from its rest length: an exact harmonic oscillation, no work done."""
    mdl = ns.PlanarModel("spring block")
    b = mdl.add(ns.Body("block", mass=1.0, inertia=0.1, position=(0.1, 0.0)))
    mdl.add(ns.Translational("guide", ns.ground, b, axis=(-1.0, 0.0), mu=0.0))
    mdl.add(ns.Spring("spring", ns.ground, (-1.0, 0.0), b, (0.0, 0.0), k=100.0, length0=1.0))
    return mdl


def test_the_summary_scales_an_exact_runs_error_by_its_energy():
    r = ns.simulate(spring_block(), 1.0)
    assert r["block.x"][-1] == pytest.approx(0.1 * np.cos(10.0), abs=1e-9)
    line = next(x for x in r.summary().splitlines() if x.startswith("energy balance error"))
    # the energy is 0.5 J (kinetic and potential): roundoff of it, not "relative 1.000e+00"
    scaled = float(line.split("(")[1].split()[0])
    assert scaled < 1e-9, line
    assert scaled == pytest.approx(r.diagnostics["energy_balance_scaled"], rel=1e-3)


def polar_particle(inertial: bool) -> Model:
    """A free particle of 2 kg in polar coordinates (r, theta): ``M = diag(m, m r^2)``, moving
    in a straight line x = 1, y = 0.5 t. Its centrifugal and Coriolis forces
    ``(m r theta'^2, -2 m r r' theta')`` given as inertial forces or, wrongly, as applied ones."""
    m = 2.0

    def quadratic(t, q, v):
        r, _ = q
        return np.array([m * r * v[1] ** 2, -2.0 * m * r * v[0] * v[1]])

    kw = {"inertial": quadratic} if inertial else {"forces": quadratic}
    system = ns.GeneralizedSystem(["r", "theta"], lambda q: np.diag([m, m * q[0] ** 2]), **kw)
    return Model(system, q0=np.array([1.0, 0.0]), v0=np.array([0.0, 0.5]))


def test_inertial_forces_do_no_work():
    r = ns.simulate(polar_particle(inertial=True), 2.0)
    x, y = r.q[:, 0] * np.cos(r.q[:, 1]), r.q[:, 0] * np.sin(r.q[:, 1])
    np.testing.assert_allclose(x, 1.0, atol=1e-9)
    np.testing.assert_allclose(y, 0.5 * r.t, atol=1e-9)
    d = r.diagnostics
    assert d["work"]["W_applied"] == 0.0
    assert d["energy_balance_scaled"] < 1e-9, d


def test_the_same_forces_as_applied_ones_break_the_balance():
    # the same motion, but their power counted as applied work: the balance is off by it, and
    # the run warns (what a model had to do before inertial= existed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ns.simulate(polar_particle(inertial=False), 2.0)
    np.testing.assert_allclose(r.q[:, 0] * np.cos(r.q[:, 1]), 1.0, atol=1e-9)
    assert r.diagnostics["energy_balance_scaled"] > 0.1
    assert any("energy balance" in str(w.message) for w in caught)
