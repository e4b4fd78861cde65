"""The kinematic map end to end (``nonsmooth.family`` obligation 2): systems whose coordinates
and velocities differ (``n_q != n_v``) integrate ``dq/dt = qdot(q, v)`` and are projected
(``System.project``), checked against closed forms. The models: ``tests/oracles/rigid_body.py``."""

import numpy as np
import pytest
from rigid_body import (
    FreeBody,
    PivotedBody,
    UnprojectedFreeBody,
    euler_closed_form,
    pendulum_closed_form,
    quaternion_rate,
    rotation,
)

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.model import Model
from nonsmooth.system import GeneralizedSystem, System

J = np.array([1.0, 2.0, 3.0])  # kg m^2, J1 < J2 < J3
OMEGA_REF = np.array([0.0, 1.0, 0.1])  # rad/s: near the intermediate axis, M^2 > 2 E J2
K = euler_closed_form(J, OMEGA_REF, 0.0)[2]
TAU0 = 0.3 * K  # the initial phase: omega(0) has all three components nonzero
OMEGA, LAM, _, M_PARAM = euler_closed_form(J, OMEGA_REF, TAU0)
PERIOD = 4 * K / LAM  # of omega (s): two flips of omega_2 per period
P0 = np.array([1.0, 0.0, 0.0, 0.0])


def _omega0():
    return OMEGA(0.0)


def _flips(n):
    """The first ``n`` times (s) at which omega_2 changes sign: ``lam t + tau0 = 2 j K``."""
    return (2 * K * np.arange(1, n + 1) - TAU0) / LAM


def _flip_event(t, q, v):
    return v[1]


def _relative(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b)))


@pytest.fixture(scope="module")
def free_dop853():
    """Three periods (six flips) of the free body by the default method (DOP853)."""
    return nonsmooth.simulate(FreeBody(J), (0.0, 3 * PERIOD), q0=P0, v0=_omega0(), rtol=1e-11,
                              dt=0.05, events=[_flip_event])


def test_free_body_follows_eulers_closed_form(free_dop853):
    r = free_dop853
    assert r.success and r.method == "DOP853"
    assert M_PARAM > 0.9  # the regime of the flips: long stretches about +-axis 2
    err = _relative(r.v.T, OMEGA(r.t))
    assert err < 1e-9, err  # measured 1.1e-10


def test_free_body_flip_times(free_dop853):
    t_flip = free_dop853.t_events["_flip_event"]
    assert t_flip.size == 6
    err = float(np.max(np.abs(t_flip - _flips(6)) / _flips(6)))
    assert err < 1e-9, err


def test_free_body_invariants(free_dop853):
    r = free_dop853
    T = 0.5 * np.einsum("ij,j,ij->i", r.v, J, r.v)
    assert np.allclose(r.T, T, rtol=1e-14, atol=0.0)
    assert _relative(r.T, np.full_like(r.T, r.T[0])) < 1e-10
    h = np.linalg.norm(r.v * J, axis=1)  # |J omega|
    assert _relative(h, np.full_like(h, h[0])) < 1e-10
    # the inertial angular momentum R(p) J omega is constant: qdot integrates the attitude
    L = np.array([rotation(p) @ (J * w) for p, w in zip(r.q, r.v, strict=True)])
    assert _relative(L, np.tile(L[0], (len(L), 1))) < 5e-10
    assert abs(r.diagnostics["energy_balance_error"]) < 1e-10


def test_free_body_projection(free_dop853):
    """Every accepted step's end is projected: |p| = 1 to roundoff there (the run's last
    state), to the step's local error between steps (the outputs from the dense output)."""
    r = free_dop853
    norms = np.linalg.norm(r.q, axis=1)
    assert abs(norms[-1] - 1.0) < 1e-14
    assert np.max(np.abs(norms - 1.0)) < 5e-11
    # no growth: the last period's outputs no farther off than the first's
    first, last = (np.max(np.abs(norms[r.t <= PERIOD] - 1.0)),
                   np.max(np.abs(norms[r.t >= 2 * PERIOD] - 1.0)))
    assert last <= 2 * first + 1e-13


def test_free_body_rk4_order_and_projection():
    """RK4 on the step grid: the error falls as dt^4 and every output (a step end) has
    |p| = 1 to roundoff; without the projection |p| drifts."""
    t_end = PERIOD / 3
    errs = []
    for dt in (0.02, 0.01):
        r = nonsmooth.simulate(FreeBody(J), (0.0, t_end), q0=P0, v0=_omega0(), method="RK4",
                               dt=dt)
        errs.append(_relative(r.v.T, OMEGA(r.t)))
        assert np.max(np.abs(np.linalg.norm(r.q, axis=1) - 1.0)) < 1e-14
    assert errs[1] < 2e-10, errs  # measured 7.9e-11
    assert 12 < errs[0] / errs[1] < 20, errs  # 4th order: 16
    drift = nonsmooth.simulate(UnprojectedFreeBody(J), (0.0, t_end), q0=P0, v0=_omega0(),
                               method="RK4", dt=0.02)
    assert np.max(np.abs(np.linalg.norm(drift.q, axis=1) - 1.0)) > 1e-12
    assert _relative(drift.v.T, OMEGA(drift.t)) < 2e-9  # the motion itself as accurate


def test_sizes_and_names(free_dop853):
    """n_q coordinate columns named by coordinate_names, n_v velocity columns named by
    velocity_names (obligation 6); the dense output's Hermite slopes are qdot's."""
    r = free_dop853
    N = r.t.size
    assert r.q.shape == (N, 4) and r.v.shape == (N, 3) and r.dv.shape == (N, 3)
    assert r.y.shape == (7, N) and r.layout.n_q == 4 and r.layout.n_v == 3
    assert r.coordinate_names == ["p.w", "p.x", "p.y", "p.z"]
    assert r.velocity_names == ["omega.1", "omega.2", "omega.3"]
    np.testing.assert_array_equal(r["omega.2"], r.v[:, 1])
    np.testing.assert_array_equal(r["p.w"], r.q[:, 0])
    assert {"p.w", "omega.3"} <= set(r.available())
    assert r.columns() == ["t", "p.w", "p.x", "p.y", "p.z", "omega.1", "omega.2", "omega.3"]
    assert r.y_events["_flip_event"].shape == (6, 7)
    # between outputs: cubic Hermite on (p, qdot(p, omega)) and (omega, domega/dt)
    t_mid = r.t[:-1:50] + 0.025
    y_mid = r.sol(t_mid)
    assert _relative(y_mid[4:], OMEGA(t_mid)) < 1e-7
    assert np.max(np.abs(np.linalg.norm(y_mid[:4], axis=0) - 1.0)) < 1e-7
    slope = quaternion_rate(r.q[0], r.v[0])  # the interpolant is tangent to qdot at a knot
    assert np.max(np.abs(r.sol(r.t[0] + 1e-6)[:4] - (r.q[0] + 1e-6 * slope))) < 1e-11


def test_initial_state_checked_and_projected():
    body = FreeBody(J)
    with pytest.raises(ModelError, match="v0 has 4 entries; the system has 3 velocities"):
        Model(body, P0, np.zeros(4))
    r = nonsmooth.simulate(body, (0.0, 0.1), q0=2 * P0, v0=_omega0(), dt=0.05)
    np.testing.assert_allclose(r.q[0], P0, rtol=0, atol=1e-16)  # q0 normalized at the start
    assert nonsmooth.simulate(body, (0.0, 0.1), q0=P0).v.shape[1] == 3  # v0: zeros (n_v)


def test_default_velocity_names():
    class Bare(FreeBody):
        def __init__(self):
            super().__init__(J)
            del self._velocity_names

    assert Bare().velocity_names == ["v[0]", "v[1]", "v[2]"]
    assert FreeBody(J).has_kinematic_map and FreeBody(J).has_projection
    assert not UnprojectedFreeBody(J).has_projection


def _generalized_free_body(**extra):
    return GeneralizedSystem(
        ["p.w", "p.x", "p.y", "p.z"], np.diag(J),
        inertial=lambda t, q, v: -np.cross(v, J * v),
        velocities=["omega.1", "omega.2", "omega.3"], qdot=quaternion_rate,
        project=lambda q: q / np.linalg.norm(q), **extra)


def test_generalized_system_with_a_kinematic_map(free_dop853):
    system = _generalized_free_body()
    assert (system.n_q, system.n_v) == (4, 3) and system.has_kinematic_map
    r = nonsmooth.simulate(system, (0.0, PERIOD), q0=P0, v0=_omega0(), rtol=1e-11, dt=0.05)
    k = r.t.size - 1  # the outputs on the grid (the last is the end time)
    np.testing.assert_array_equal(r.t[:k], free_dop853.t[:k])
    # the same steps but near the end (a shorter span): the same motion to the tolerance
    assert np.max(np.abs(r.v[:k] - free_dop853.v[:k])) < 1e-10
    assert np.max(np.abs(r.q[:k] - free_dop853.q[:k])) < 1e-10
    assert _relative(r.v.T, OMEGA(r.t)) < 1e-9


def test_generalized_system_refuses_what_it_cannot_integrate():
    with pytest.raises(ModelError, match="need the kinematic map"):
        GeneralizedSystem(["a", "b"], np.eye(1), velocities=["w"])
    with pytest.raises(ModelError, match="compiled terms .* support only the identity"):
        _generalized_free_body(compiled=object())  # refused before the terms are looked at
    with pytest.raises(ModelError, match=r"expected \(3, 3\)"):
        GeneralizedSystem(["p.w", "p.x", "p.y", "p.z"], np.eye(4), velocities=["a", "b", "c"],
                          qdot=quaternion_rate)


# --------------------------------------------------------------- a constraint and n_q != n_v
MASS, D = 2.0, 0.5  # kg, m (pivot to centre of mass)


def _pivoted_state(body, p, omega):
    """``(q0, v0)`` with the pivot at the origin and the centre of mass moving with it."""
    R = rotation(p)
    x = -R @ body.r
    return np.concatenate((x, p)), np.concatenate((np.cross(R @ omega, x), omega))


def test_pivoted_body_swings_as_the_physical_pendulum():
    """A body hanging from a spherical joint, swinging about its axis 1 from 2 rad at rest:
    the large-amplitude pendulum's closed form (omega_1 and the passes at the bottom)."""
    Jb = np.array([0.1, 0.2, 0.15])
    body = PivotedBody(MASS, Jb, (0.0, 0.0, D))
    theta0 = 2.0
    theta_dot, period, Kp, w0 = pendulum_closed_form(theta0, Jb[0] + MASS * D * D, MASS, 9.81, D)
    q0, v0 = _pivoted_state(body, np.array([np.cos(theta0 / 2), np.sin(theta0 / 2), 0, 0]),
                            np.zeros(3))

    def bottom(t, q, v):
        return q[4]  # the quaternion's x: sin(theta / 2)

    r = nonsmooth.simulate(body, (0.0, 3 * period), q0=q0, v0=v0, rtol=1e-11, dt=0.01,
                           events=[bottom])
    assert r.success and r.q.shape[1] == 7 and r.v.shape[1] == 6 and r.lam.shape[1] == 3
    assert np.max(np.abs(r["omega.1"] - theta_dot(r.t))) / (2 * w0) < 1e-9  # measured 2e-11
    t_b = r.t_events["bottom"]
    want = (2 * np.arange(t_b.size) + 1) * Kp / w0
    assert t_b.size == 6 and np.max(np.abs(t_b - want) / want) < 1e-9  # measured 3e-12
    E = r.T + r.V
    assert np.max(np.abs(E - E[0])) / np.max(np.abs(r.V)) < 1e-10  # measured 1e-11
    assert r.diagnostics["max_drift_position"] < 1e-10
    assert np.max(np.abs(np.linalg.norm(r.q[:, 3:], axis=1) - 1.0)) < 1e-11


def test_pivoted_symmetric_top_keeps_its_integrals():
    """A fast symmetric top (J1 = J2) on a spherical joint, tilted 0.5 rad and nutating:
    the energy, the vertical angular momentum about the pivot and the spin omega_3."""
    Jt = np.array([0.2, 0.2, 0.1])
    top = PivotedBody(MASS, Jt, (0.0, 0.0, -D))  # the centre of mass above the pivot
    q0, v0 = _pivoted_state(top, np.array([np.cos(0.25), np.sin(0.25), 0, 0]),
                            np.array([1.0, 0.0, 30.0]))
    r = nonsmooth.simulate(top, (0.0, 5.0), q0=q0, v0=v0, rtol=1e-11, dt=0.01)
    assert r.success
    E = r.T + r.V
    assert np.max(np.abs(E - E[0])) / np.max(r.T) < 1e-10  # measured 2e-12
    Lz = np.array([top.angular_momentum(q, v)[2] for q, v in zip(r.q, r.v, strict=True)])
    assert np.max(np.abs(Lz - Lz[0])) / abs(Lz[0]) < 1e-10  # measured 1.4e-11
    assert np.max(np.abs(r["omega.3"] - 30.0)) < 1e-9
    tilt = np.array([rotation(q[3:])[2, 2] for q in r.q])
    assert np.ptp(tilt) > 0.1  # it does nutate
    assert r.diagnostics["max_drift_position"] < 1e-10


def test_identity_map_is_the_default():
    class Plain(System):
        n_q = 2

    assert Plain().n_v == 2 and not Plain().has_kinematic_map and not Plain().has_projection
    q, v = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert Plain().qdot(q, v) is v and Plain().project(q) is q
