"""The Euler-parameter algebra of the spatial family (``nonsmooth.spatial.rotation``) against
definitions it does not use: Rodrigues' formula, the matrix exponential of the angular velocity
(``scipy.linalg.expm``) and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from nonsmooth.spatial.rotation import (
    E_matrix,
    L_matrix,
    from_axis_angle,
    from_rotation_matrix,
    normalized,
    quat_multiply,
    quat_rate,
    rotation_matrix,
    skew,
)

RNG = np.random.default_rng(7)
QUATS = [normalized(RNG.normal(size=4)) for _ in range(20)] + [
    np.array([1.0, 0, 0, 0]), np.array([0.0, 1, 0, 0]), np.array([0.0, 0, 1, 0]),
    np.array([0.0, 0, 0, 1]), normalized(np.array([1e-9, 1.0, 1.0, 0.0]))]


def test_the_rotation_matrix_is_rodrigues_formula():
    for _ in range(20):
        u = normalized(RNG.normal(size=4))[1:]
        u /= np.linalg.norm(u)
        phi = RNG.uniform(-np.pi, np.pi)
        K = skew(u)
        rodrigues = np.eye(3) + np.sin(phi) * K + (1 - np.cos(phi)) * K @ K
        np.testing.assert_allclose(rotation_matrix(from_axis_angle(u, phi)), rodrigues,
                                   atol=1e-15)


@pytest.mark.parametrize("p", QUATS)
def test_matrix_round_trip_and_identities(p):
    R = rotation_matrix(p)
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-15)
    assert abs(np.linalg.det(R) - 1.0) < 1e-14
    q = from_rotation_matrix(R)
    np.testing.assert_allclose(q, p if p[0] >= 0 else -p, atol=1e-12)
    np.testing.assert_allclose(E_matrix(p) @ L_matrix(p).T, R, atol=1e-15)
    np.testing.assert_allclose(L_matrix(p) @ p, 0.0, atol=1e-15)
    np.testing.assert_allclose(L_matrix(p) @ L_matrix(p).T, np.eye(3), atol=1e-15)


def test_the_product_composes_rotations():
    for a, b in zip(QUATS[:10], QUATS[10:20], strict=True):
        np.testing.assert_allclose(rotation_matrix(quat_multiply(a, b)),
                                   rotation_matrix(a) @ rotation_matrix(b), atol=1e-14)


def test_the_rate_integrates_to_the_exponential_of_the_body_angular_velocity():
    """A constant body-axes angular velocity ``w`` turns ``R`` into ``R expm(t w~)``: RK4 on
    ``dp/dt = quat_rate(p, w)`` reaches it to the method's order."""
    p0, w, T = QUATS[0], np.array([0.3, -1.2, 2.0]), 1.5
    n = 2000
    h = T / n
    p = p0.copy()
    for _ in range(n):
        k1 = quat_rate(p, w)
        k2 = quat_rate(p + 0.5 * h * k1, w)
        k3 = quat_rate(p + 0.5 * h * k2, w)
        k4 = quat_rate(p + h * k3, w)
        p = p + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    np.testing.assert_allclose(rotation_matrix(p), rotation_matrix(p0) @ expm(T * skew(w)),
                               atol=1e-12)
    np.testing.assert_allclose(quat_rate(p0, w), 0.5 * L_matrix(p0).T @ w, atol=1e-15)
    np.testing.assert_allclose(2 * E_matrix(p0) @ quat_rate(p0, w), rotation_matrix(p0) @ w,
                               atol=1e-15)


@pytest.mark.parametrize("bad", [np.zeros(4), np.array([np.nan, 0, 0, 1.0])])
def test_a_quaternion_without_direction_is_refused(bad):
    with pytest.raises(ValueError, match="no direction"):
        normalized(bad)


def test_a_matrix_that_is_no_rotation_is_refused():
    with pytest.raises(ValueError, match="not a rotation"):
        from_rotation_matrix(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="not a rotation"):
        from_rotation_matrix(2 * np.eye(3))
