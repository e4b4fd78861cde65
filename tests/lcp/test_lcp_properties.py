"""Property tests (hypothesis) of the LCP solvers on random structured problems."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonsmooth.lcp import (
    is_p_matrix,
    is_positive_semidefinite,
    is_symmetric_psd,
    lcp_residual,
    solve_ave,
    solve_hlcp,
    solve_lcp,
)

SETTINGS = settings(
    derandomize=True, max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def p_matrix_problems(draw):
    """Random P-matrix LCPs of four kinds; q with negative and positive entries."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["spd", "pd_nonsymmetric", "triangular", "diag_dominant"]))
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    if kind == "spd":
        M = G @ G.T + 0.1 * np.eye(n)
    elif kind == "pd_nonsymmetric":
        M = G @ G.T + 0.1 * np.eye(n) + 2.0 * (G - G.T)
    elif kind == "triangular":  # P-matrix, generally not PSD (Murty's family)
        M = np.diag(rng.uniform(0.5, 2.0, n)) + np.triu(3.0 * G, 1)
    else:  # strictly row diagonally dominant with positive diagonal
        M = G.copy()
        np.fill_diagonal(M, np.abs(G).sum(axis=1) + rng.uniform(0.1, 1.0, n))
    q = 3.0 * rng.normal(size=n)
    return kind, M, q


@st.composite
def psd_problems(draw):
    """Feasible LCPs with singular symmetric PSD M: q = w* - M z*, z* _|_ w*."""
    n = draw(st.integers(2, 7))
    rank = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(n, rank))
    M = L @ L.T + 1e-3 * np.diag(rng.uniform(0.0, 1.0, n) > 0.5)  # keep diag > 0
    support = rng.random(n) < 0.5
    z_star = np.where(support, rng.uniform(0.1, 2.0, n), 0.0)
    w_star = np.where(support, 0.0, rng.uniform(0.0, 2.0, n))
    return M, w_star - M @ z_star


@SETTINGS
@given(p_matrix_problems())
def test_p_matrix_unique_solution_found_by_every_applicable_method(problem):
    kind, M, q = problem
    assert is_p_matrix(M)
    exact = solve_lcp(M, q, method="enumerate", all_solutions=True)
    assert len(exact.solutions) == 1  # P-matrix: exactly one solution
    z_star = exact.solutions[0]
    methods = ["auto", "lemke", "enumerate"]
    if is_symmetric_psd(M):
        methods += ["pgs", "osqp", "cvxpy"]
    elif is_positive_semidefinite(M):
        methods += ["cvxpy"]
    scale = max(1.0, float(np.max(np.abs(z_star))))
    for method in methods:
        result = solve_lcp(M, q, method=method)
        assert result.success, (kind, method, result.message)
        assert result.residual <= 1e-10
        np.testing.assert_allclose(result.z, z_star, atol=1e-8 * scale, err_msg=method)


@SETTINGS
@given(psd_problems())
def test_psd_problems_agree_across_lemke_pgs_osqp(problem):
    M, q = problem
    assert is_symmetric_psd(M)
    results = {m: solve_lcp(M, q, method=m) for m in ["lemke", "pgs", "osqp"]}
    for method, result in results.items():
        assert result.success, (method, result.message)
        assert lcp_residual(M, q, result.z) <= 1e-10
    # z need not be unique for singular M, but w = M z + q is (symmetric PSD).
    w_ref = results["lemke"].w
    scale = max(1.0, float(np.max(np.abs(q))))
    for method in ["pgs", "osqp"]:
        np.testing.assert_allclose(results[method].w, w_ref, atol=1e-8 * scale, err_msg=method)
        # q^T z is unique too (the optimal value of the QP is -q^T z / 2).
        gap = abs(float(q @ (results[method].z - results["lemke"].z)))
        assert gap <= 1e-8 * scale * max(1.0, float(np.abs(results["lemke"].z).sum()))


@SETTINGS
@given(st.integers(1, 5), st.integers(0, 2**32 - 1), st.floats(0.05, 0.95))
def test_ave_contraction_unique_solution(n, seed, radius):
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1.0, 1.0, (n, n))
    A *= radius / max(np.max(np.abs(np.linalg.eigvals(np.abs(A)))), 1e-12)
    c = rng.normal(size=n)
    result = solve_ave(A, c, all_solutions=True)
    assert result.success
    assert len(result.solutions) == 1  # rho(|A|) < 1: unique
    lam = result.lam
    np.testing.assert_allclose(lam, c + A @ np.abs(lam), atol=1e-12 * max(1, np.abs(c).max()))
    hlcp = solve_hlcp(np.eye(n) - A, np.eye(n) + A, c, method="lemke")
    assert hlcp.success
    np.testing.assert_allclose(hlcp.x - hlcp.y, lam, atol=1e-10 * max(1, np.abs(lam).max()))


@SETTINGS
@given(st.integers(1, 4), st.integers(0, 2**32 - 1), st.floats(1.2, 4.0))
def test_ave_every_solution_is_found(n, seed, size):
    """Strong friction: several or no solutions; fast path and exact enumeration agree."""
    rng = np.random.default_rng(seed)
    A = size * rng.uniform(-1.0, 1.0, (n, n))
    c = rng.normal(size=n)
    fast = solve_ave(A, c, all_solutions=True)
    exact = solve_ave(A, c, all_solutions=True, method="enumerate")
    assert len(fast.solutions) == len(exact.solutions)
    for lam in fast.solutions:
        assert np.linalg.norm(lam - c - A @ np.abs(lam)) <= 1e-9 * max(1.0, np.abs(lam).max())
        assert any(
            np.allclose(lam, other, atol=1e-8 * max(1, np.abs(lam).max()))
            for other in exact.solutions
        )
    assert fast.success == bool(fast.solutions)
