"""The faceted frictional contact problem (``nonsmooth.lcp.friction_contact``): Signorini and
Coulomb's faceted law checked on every solution of random problems, a single contact's closed
form, and the named input errors."""

from __future__ import annotations

import numpy as np
import pytest

from nonsmooth.lcp.friction_contact import facet_directions, solve_friction_contact


def _check_solution(A, b, mu, k, out, tol=1e-9):
    """Signorini (0 <= u_N _|_ r_N >= 0) and the faceted Coulomb law at every contact."""
    r, u = out.r, out.u
    np.testing.assert_allclose(u, A @ r + b, atol=1e-12)
    scale = max(1.0, float(np.max(np.abs(b))), float(np.max(np.abs(r))))
    D = facet_directions(k)
    for i, m in enumerate(mu):
        r_N, u_N = r[3 * i], u[3 * i]
        r_T, u_T = r[3 * i + 1:3 * i + 3], u[3 * i + 1:3 * i + 3]
        assert r_N >= -tol * scale and u_N >= -tol * scale
        assert abs(r_N * u_N) <= tol * scale * scale
        if m == 0.0:
            assert np.all(r_T == 0.0)
            continue
        # inside the pyramid: r_T = D beta with beta >= 0, sum(beta) <= mu r_N; its support
        # in the directions d_j is at most mu r_N
        assert np.max(D.T @ r_T) <= m * r_N * (1 + 1e-9) + tol * scale
        assert r_T @ u_T <= tol * scale * scale  # friction never does positive work
        if np.linalg.norm(u_T) > 1e-7 * scale:  # sliding: on the pyramid's boundary
            assert np.linalg.norm(r_T) >= m * r_N * np.cos(np.pi / k) - tol * scale
        elif r_N > tol * scale:  # sticking: the tangential velocity vanishes
            assert np.linalg.norm(u_T) <= tol * scale


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [4, 8])
def test_random_problems_are_solved_with_signorini_and_faceted_coulomb(seed, k):
    rng = np.random.default_rng(seed)
    n_c = int(rng.integers(1, 5))
    J = rng.normal(size=(3 * n_c, 3 * n_c + int(rng.integers(0, 4))))
    A = J @ J.T  # positive (semi)definite, as a Delassus operator
    b = rng.normal(size=3 * n_c)
    mu = rng.choice([0.0, 0.1, 0.5, 1.0], size=n_c)
    out = solve_friction_contact(A, b, mu, facets=k)
    assert out.success, out.message
    _check_solution(A, b, mu, k, out)


def test_dependent_normal_rows_of_four_coplanar_points_are_solved():
    """A box resting on four corners: the normal rows of A are dependent (rank 3 of 4), the
    problem degenerate; its solution is certified all the same."""
    a, m, J = 0.1, 2.0, 2.0 * 0.04 / 6.0
    corners = [(sx * a, sy * a) for sx in (-1, 1) for sy in (-1, 1)]
    H = []
    for x, y in corners:  # rows (n, t1, t2) of the corner (x, y, -a): v + w x s
        s = np.array([x, y, -a])
        for d in np.eye(3)[[2, 0, 1]]:
            H.append(np.concatenate((d, np.cross(s, d))))
    H = np.array(H)
    Minv = np.diag([1 / m] * 3 + [1 / J] * 3)
    A = H @ Minv @ H.T
    v_free = np.array([0.3, 0.0, -1.0, 0.0, 0.0, 2.0])
    b = H @ v_free
    mu = np.full(4, 0.4)
    out = solve_friction_contact(A, b, mu, facets=8)
    assert out.success, out.message
    _check_solution(A, b, mu, 8, out)
    assert np.sum(out.r[0::3]) == pytest.approx(m * 1.0, rel=1e-12)  # stops the fall


def test_a_single_sliding_contact_has_the_closed_form():
    """A unit mass pressed (b_N = -1) and sliding at 2 m/s along t1 with mu = 0.3: r_N = 1,
    r_T = -0.3 along the slip (a facet of both cones), u_T = 1.7; slower than mu r_N it
    sticks."""
    for k in (4, 8):
        out = solve_friction_contact(np.eye(3), [-1.0, 2.0, 0.0], [0.3], facets=k)
        np.testing.assert_allclose(out.r, [1.0, -0.3, 0.0], atol=1e-14)
        np.testing.assert_allclose(out.u, [0.0, 1.7, 0.0], atol=1e-14)
    out = solve_friction_contact(np.eye(3), [-1.0, 0.2, -0.1], [0.3], facets=8)
    np.testing.assert_allclose(out.r, [1.0, -0.2, 0.1], atol=1e-14)
    np.testing.assert_allclose(out.u, 0.0, atol=1e-14)


@pytest.mark.parametrize("seed", range(6))
def test_one_pressed_frictionless_contact_is_solved_in_closed_form_as_lemke_solves_it(seed):
    """One frictionless contact pressed (``b_N < 0``): ``r_N = -b_N / A_NN`` without
    pivoting, the solution Lemke's path finds for the same LCP (to 1e-14), its normal
    velocity zero and no tangent reaction (the event-driven run's impact of a ball)."""
    from nonsmooth.lcp.lemke import solve_lemke

    rng = np.random.default_rng(seed)
    B = rng.normal(size=(3, 3))
    A = B @ B.T + 0.1 * np.eye(3)
    b = rng.normal(size=3)
    b[0] = -abs(b[0]) - 0.1
    out = solve_friction_contact(A, b, [0.0])
    lemke = solve_lemke(A[:1, :1], b[:1])
    assert out.success and out.iterations == 0
    np.testing.assert_allclose(out.r, [lemke.z[0], 0.0, 0.0], rtol=1e-14, atol=0)
    assert abs(out.u[0]) <= 1e-15 * abs(b[0])
    _check_solution(A, b, [0.0], 8, out)


def test_no_pressed_contact_gives_zero_reactions_without_pivoting():
    out = solve_friction_contact(np.eye(6), [0.5, 1.0, 0.0, 0.0, -3.0, 2.0], [0.3, 0.0])
    assert out.success and out.iterations == 0 and np.all(out.r == 0.0)


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    ((np.eye(3), [0.0, 0.0], [0.1]), {}, r"A \(3, 3\) and b \(2,\) must be"),
    ((np.eye(3), [0.0] * 3, [-0.1]), {}, r"mu = \[-0.1\] must be finite and >= 0"),
    ((np.eye(3), [0.0] * 3, [0.1]), {"facets": 2}, r"facets = 2 must be an integer >= 3"),
])
def test_bad_input_is_named(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_friction_contact(*args, **kwargs)
