"""A spatial driver along a piecewise polynomial of ``scipy.interpolate``
(``Driver(position=spline)``): the compiled kernels evaluate it themselves.

Checked: the compiled terms against the Python path (which calls scipy's own evaluation) at
times inside, before, after and (periodic) several periods past the breakpoints, for a
``CubicSpline``, a ``BPoly`` and a ``BSpline``; a pendulum driven along a spline against the
closed form of its driving torque, ``tau = I_O theta'' + m g l sin(theta)``, with no call back
into Python; the refusals (``extrapolate=False``, vector values, a degree above the kernels'
limit) as named model errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.interpolate import BPoly, CubicSpline, PPoly, make_interp_spline

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.spatial import (
    Body,
    Driver,
    Gravity,
    Revolute,
    SpatialModel,
    Translational,
    ground,
    tables,
)
from nonsmooth.spatial import kernels as sk
from nonsmooth.spatial.elements import MAX_SPLINE_DEGREE


def _splines():
    t = np.linspace(0.0, 2.0, 9)
    periodic = CubicSpline(t, 0.4 * np.sin(np.pi * t), bc_type="periodic",
                           extrapolate="periodic")
    quintic = BPoly.from_derivatives([0.0, 0.7, 1.5], [[0.0, 0.0, 0.0], [0.05, 0.1, -0.3],
                                                       [0.1, 0.0, 0.0]])
    bspline = make_interp_spline(np.linspace(0.0, 1.0, 7), np.cos(np.linspace(0.0, 3.0, 7)),
                                 k=5)
    return periodic, quintic, bspline


def chain(periodic, quintic, bspline) -> SpatialModel:
    """Three bodies on a revolute, a translational and a revolute joint, each driven by one of
    the splines."""
    mdl = SpatialModel("splines")
    a = mdl.add(Body("a", 1.0, (0.01, 0.02, 0.03), position=(0.2, 0.0, 0.0)))
    b = mdl.add(Body("b", 0.5, (0.01, 0.01, 0.01), position=(0.2, 0.3, 0.0)))
    c = mdl.add(Body("c", 0.7, (0.02, 0.01, 0.02), position=(0.4, 0.3, 0.1)))
    hinge = mdl.add(Revolute("hinge", ground, a, point=(0.0, 0.0, 0.0), axis=(0, 0, 1)))
    slide = mdl.add(Translational("slide", a, b, point=(0.2, 0.3, 0.0), axis=(0, 1, 0)))
    turn = mdl.add(Revolute("turn", b, c, point=(0.3, 0.3, 0.1), axis=(1, 0, 0)))
    mdl.add(Driver("d_hinge", hinge, position=periodic))
    mdl.add(Driver("d_slide", slide, position=quintic))
    mdl.add(Driver("d_turn", turn, position=bspline))
    mdl.add(Gravity())
    return mdl


def test_the_compiled_splines_equal_scipy_s_inside_outside_and_periods_past():
    periodic, quintic, bspline = _splines()
    mdl = chain(periodic, quintic, bspline)
    system = mdl.compile()
    q0 = mdl.initial_state()[0]
    tab = system.kernel_tables
    assert not system.has_user_functions  # nothing calls back into Python
    kinds = tab.ints[:, 0].tolist()
    # a piece per interval between distinct breakpoints (the B-spline's repeated knots none)
    assert kinds.count(tables.PIECE) == 8 + 2 + np.unique(bspline.t).size - 1
    m = system.n_constraints
    rng = np.random.default_rng(7)
    U = np.zeros((tab.ints.shape[0], 3))
    for t in (0.0, 0.35, 0.7, 1.2, 1.9999, 2.0, -0.8, 3.3, 7.77, 25.1):
        q = q0 + 0.01 * rng.normal(size=system.n_q)
        v = rng.normal(size=system.n_v)
        phi, phi_t, gamma = sk.spatial_terms(tab.ints, tab.floats, tab.bodies, U, t, q, v,
                                             m)[1:4]
        ref = system.python_terms(t, q, v)
        assert np.max(np.abs(phi - ref.phi)) <= 1e-13 * (1 + np.max(np.abs(ref.phi)))
        assert np.max(np.abs(phi_t - ref.phi_t)) <= 1e-12 * (1 + np.max(np.abs(ref.phi_t)))
        assert np.max(np.abs(gamma - ref.gamma)) <= 1e-11 * (1 + np.max(np.abs(ref.gamma)))
    # and the rows are the splines': the drivers' velocity rows are -df/dt (scipy's)
    t = 3.3
    ref = system.python_terms(t, q0, np.zeros(system.n_v))
    expected = {-periodic(t, 1), -quintic(t, 1), -float(bspline(t, 1))}
    assert all(np.any(np.isclose(ref.phi_t, x, rtol=1e-13, atol=1e-15)) for x in expected)


def test_a_pendulum_driven_along_a_spline_needs_the_closed_form_torque():
    """A uniform rod (m, length L) hinged at one end about y, its angle theta(t) a quintic
    spline through rest-to-rest swings: the driving torque is ``I_O theta'' + m g (L/2)
    sin(theta)`` (``I_O = m L^2 / 3``), theta measured from hanging down."""
    m, L, g = 2.0, 0.8, 9.81
    knots = [0.0, 0.5, 1.2, 2.0]
    angles = [[0.0, 0.0, 0.0], [0.6, 1.5, 0.0], [-0.3, -0.5, 2.0], [0.2, 0.0, 0.0]]
    theta = BPoly.from_derivatives(knots, angles)
    mdl = SpatialModel("driven rod")
    rod = mdl.add(Body("rod", m, (m * L * L / 12.0, m * L * L / 12.0, 1e-4),
                       position=(0.0, 0.0, -L / 2)))
    hinge = mdl.add(Revolute("hinge", ground, rod, point=(0.0, 0.0, 0.0), axis=(0, 1, 0)))
    mdl.add(Driver("drive", hinge, position=theta))
    mdl.add(Gravity(g))
    t = np.linspace(0.0, 2.4, 97)
    r = nonsmooth.simulate(mdl, 2.4, t_eval=t)
    assert np.allclose(r["hinge.angle"], theta(t), atol=1e-9)
    tau = m * L * L / 3.0 * theta(t, 2) + m * g * L / 2.0 * np.sin(theta(t))
    # the torque on the rod about +y; the hinge angle is about +y too
    assert np.allclose(r["drive.torque"], tau, rtol=1e-8, atol=1e-8 * np.max(np.abs(tau)))


def test_a_periodic_spline_drives_for_many_periods():
    period = CubicSpline([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.3, 0.0, -0.3, 0.0],
                         bc_type="periodic", extrapolate="periodic")
    mdl = SpatialModel("periodic")
    rod = mdl.add(Body("rod", 1.0, (0.01, 0.01, 1e-4), position=(0.0, 0.0, -0.5)))
    hinge = mdl.add(Revolute("hinge", ground, rod, point=(0.0, 0.0, 0.0), axis=(0, 1, 0)))
    mdl.add(Driver("drive", hinge, position=period))
    mdl.add(Gravity())
    t = np.linspace(0.0, 6.3, 64)
    r = nonsmooth.simulate(mdl, 6.3, t_eval=t)
    assert np.allclose(r["hinge.angle"], period(t), atol=1e-9)
    assert np.allclose(r["hinge.angle"], period(t % 1.0), atol=1e-9)


@pytest.mark.parametrize("make, words", [
    (lambda: CubicSpline([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], extrapolate=False),
     "extrapolate=False"),
    (lambda: CubicSpline([0.0, 1.0, 2.0], np.zeros((3, 2))), "vector values"),
    (lambda: PPoly(np.ones((MAX_SPLINE_DEGREE + 2, 1)), [0.0, 1.0]), "degree"),
    (lambda: PPoly(np.array([[np.nan]]), [0.0, 1.0]), "not finite"),
])
def test_a_spline_the_kernels_cannot_evaluate_is_refused_with_its_reason(make, words):
    mdl = SpatialModel("bad")
    rod = mdl.add(Body("rod", 1.0, 0.01, position=(0.0, 0.0, -0.5)))
    hinge = mdl.add(Revolute("hinge", ground, rod, point=(0.0, 0.0, 0.0), axis=(0, 1, 0)))
    with pytest.raises(ModelError, match="driver 'drive'") as info:
        mdl.add(Driver("drive", hinge, position=make()))
    assert words in str(info.value)
    assert math.isfinite(MAX_SPLINE_DEGREE)
