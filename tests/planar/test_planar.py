"""Planar builder: Jacobians, gamma, W and (dW/dt) v against finite differences; validation."""

from __future__ import annotations

import numpy as np
import pytest

from nonsmooth import ModelError
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Gravity, JointDamper, RotationalSpring, Spring
from nonsmooth.planar.joints import Driver, Revolute, Translational

DAMPER_C = 0.7  # N m s/rad, on the pin ground-a


def _mechanism(damper=True):
    """Every joint kind: pins, a locked body slider on a rotating guide, a point slider, drivers."""
    m = PlanarModel("zoo")
    a = m.add(Body("a", 2.0, 0.3, position=(0.4, 0.1), angle=0.3))
    b = m.add(Body("b", 1.0, 0.1, position=(1.0, 0.5), angle=0.9))
    p = m.add(PointMass("p", 0.5, position=(0.2, 0.7)))
    pin = m.add(Revolute("pin", ground, a, (0.1, -0.2), (-0.3, 0.1)))
    m.add(Translational("slide", a, b, (0.2, 0.05), (0.6, 0.8), (0.1, -0.05), mu=0.3))
    sl = m.add(Translational("slot", b, p, (-0.1, 0.2), (1.0, 0.3), mu=0.1))
    m.add(Driver("turn", pin, motion=(lambda t: 0.3 + np.sin(t), np.cos, lambda t: -np.sin(t))))
    m.add(Driver("push", sl, motion=(lambda t: 0.2 * t * t, lambda t: 0.4 * t, lambda t: 0.4)))
    c = m.add(Body("c", 0.7, 0.05, position=(1.3, 0.2), angle=-0.4))
    m.add(Revolute("hinge", b, c, (0.2, 0.1), (-0.15, 0.05)))
    m.add(Spring("spring", ground, (0.0, 1.0), p, (0.0, 0.0), k=10.0, length0=0.3))
    if damper:
        m.add(JointDamper("damper", pin, c=DAMPER_C))
    m.add(RotationalSpring("torsion", pin, k=2.0, rest=0.1))
    m.add(Gravity())
    return m


@pytest.fixture
def zoo():
    rng = np.random.default_rng(1)
    system = _mechanism().compile()
    q = rng.normal(size=system.n_q)
    v = rng.normal(size=system.n_q)
    return system, q, v, rng


def test_jacobian_matches_finite_differences(zoo):
    system, q, v, _ = zoo
    t, h = 0.37, 1e-6
    G = system.terms(t, q, v).G
    for k in range(system.n_q):
        e = np.zeros(system.n_q)
        e[k] = h
        fd = (system.terms(t, q + e, v).phi - system.terms(t, q - e, v).phi) / (2 * h)
        np.testing.assert_allclose(G[:, k], fd, atol=1e-8)


def test_phi_t_and_gamma_match_second_time_derivative(zoo):
    """d2Phi/dt2 along q(t) = q + v t + a t^2 / 2 equals G a - gamma."""
    system, q, v, rng = zoo
    a = rng.normal(size=system.n_q)
    t0, h = 0.37, 1e-4

    def phi(s):
        return system.terms(t0 + s, q + v * s + 0.5 * a * s * s, v).phi

    T = system.terms(t0, q, v)
    d1 = (phi(h) - phi(-h)) / (2 * h)
    d2 = (phi(h) - 2 * phi(0.0) + phi(-h)) / h ** 2
    np.testing.assert_allclose(d1, T.G @ v + T.phi_t, atol=1e-7)
    np.testing.assert_allclose(d2, T.G @ a - T.gamma, atol=1e-5)


def test_tangential_rows_and_bias(zoo):
    """W v is the sliding velocity and (dW/dt) v the rest of its derivative."""
    system, q, v, rng = zoo
    a = rng.normal(size=system.n_q)
    t0, h = 0.0, 1e-5

    def v_T(s):
        qs, vs = q + v * s + 0.5 * a * s * s, v + a * s
        return system.terms(t0 + s, qs, vs).W @ vs

    W = system.terms(t0, q, v).W
    assert W.shape == (2, system.n_q)
    fd = (v_T(h) - v_T(-h)) / (2 * h)
    np.testing.assert_allclose(fd, W @ a + system.tangential_bias(t0, q, v), atol=1e-6)


def test_forces_derive_from_potential(zoo):
    """Conservative forces are -dV/dq (dampers off: v = 0)."""
    system, q, _, _ = zoo
    v0 = np.zeros(system.n_q)
    f = system.terms(0.0, q, v0).f
    h = 1e-6
    for k in range(system.n_q):
        e = np.zeros(system.n_q)
        e[k] = h
        dV = (system.potential(0.0, q + e) - system.potential(0.0, q - e)) / (2 * h)
        assert abs(f[k] + dV) < 1e-6


def test_damper_power_is_force_times_velocity(zoo):
    """P_damping = f_damper . v with f_damper = f(with damper) - f(without), and P <= 0."""
    system, q, v, rng = zoo
    undamped = _mechanism(damper=False).compile()
    assert undamped.coordinate_names == system.coordinate_names
    i_theta = system.coordinate_names.index("a.theta")
    for t, vv in ((0.0, v), (0.37, rng.normal(size=system.n_q)), (1.1, 10.0 * v)):
        T = system.terms(t, q, vv)
        f_damper = T.f - undamped.terms(t, q, vv).f
        P = float(f_damper @ vv)
        assert T.P_damping == pytest.approx(P, rel=1e-12, abs=1e-14)
        # the pin joins ground and a: relative rate dtheta_a/dt, power -c rate^2 <= 0
        assert P == pytest.approx(-DAMPER_C * vv[i_theta] ** 2, rel=1e-12)
        assert T.P_damping <= 0.0
        assert undamped.terms(t, q, vv).P_damping == 0.0
    # at rest (v = 0) there is neither damping force nor power
    T0 = system.terms(0.0, q, np.zeros(system.n_q))
    assert T0.P_damping == 0.0
    np.testing.assert_array_equal(T0.f, undamped.terms(0.0, q, np.zeros(system.n_q)).f)


def test_names_kinds_and_pairs():
    system = _mechanism().compile()
    assert system.constraint_names == ["pin.x", "pin.y", "slide.normal", "slide.lock",
                                       "slot.normal", "turn", "push", "hinge.x",
                                       "hinge.y"]
    assert system.constraint_kinds == ["joint", "joint", "normal", "joint", "normal", "driver",
                                       "driver", "joint", "joint"]
    assert [p.name for p in system.pairs] == ["slide", "slot"]
    assert system.coordinate_names[:3] == ["a.x", "a.y", "a.theta"]


@pytest.mark.parametrize("make, match", [
    (lambda: Body("b", -1.0, 1.0), r"mass of body 'b': -1.0 is invalid; it must be a finite"),
    (lambda: Body("b", 1.0, 0.0), r"inertia of body 'b': 0.0 is invalid"),
    (lambda: PointMass("p", float("nan")), r"mass of point mass 'p'"),
    (lambda: Translational("s", ground, Body("b", 1, 1), mu=-0.1),
     r"friction pair 's': mu = -0.1 is invalid"),
    (lambda: Translational("s", ground, Body("b", 1, 1), mu=0.3, mu_s=0.1),
     r"static coefficient must be >= mu"),
    (lambda: Translational("s", ground, Body("b", 1, 1), axis=(0, 0)), r"axis must be a nonzero"),
    (lambda: Revolute("r", ground, ground), r"body_i and body_j are the same"),
    (lambda: Driver("d", Revolute("r", ground, Body("b", 1, 1))), r"exactly one of speed="),
])
def test_bad_elements_are_named(make, match):
    with pytest.raises(ModelError, match=match):
        make()


def test_validate_collects_problems():
    m = PlanarModel()
    stray = Body("stray", 1.0, 1.0)
    m.add(Revolute("r1", ground, stray))
    m.add(Revolute("r1", ground, stray))
    with pytest.raises(ModelError, match=r"uses body 'stray'.*duplicate joint/driver names.*no "
                                         r"bodies"):
        m.compile()
