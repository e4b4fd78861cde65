"""Scale-relative certification of the complementarity solvers (issue 9, item 7a).

A problem multiplied by any factor must get the same answer and the same verdict; a problem
beyond what double precision can certify must say so instead of passing a wrong answer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nonsmooth.lcp import (
    hlcp_residual,
    is_p_matrix,
    is_positive_semidefinite,
    is_symmetric_psd,
    lcp_residual,
    read_siconos_lcp,
    solve_ave,
    solve_hlcp,
    solve_lcp,
)
from nonsmooth.lcp.cvxpy_qp import solve_cvxpy
from nonsmooth.lcp.enumeration import solve_enumerate
from nonsmooth.lcp.lemke import solve_lemke
from nonsmooth.lcp.osqp_qp import solve_osqp
from nonsmooth.lcp.pgs import solve_pgs
from nonsmooth.lcp.scaling import TOO_BADLY_SCALED

DATA = Path(__file__).resolve().parent / "data" / "siconos_lcp"
FILES = sorted(DATA.glob("lcp_*.dat"))

SCALES = [1e-100, 1e-20, 1e20, 1e100]
METHODS = ["auto", "lemke", "enumerate", "pgs", "osqp", "cvxpy"]
DIRECT = {
    "lemke": solve_lemke,
    "enumerate": solve_enumerate,
    "pgs": solve_pgs,
    "osqp": solve_osqp,
    "cvxpy": solve_cvxpy,
}

SETTINGS = settings(
    derandomize=True, max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _applicable(M: np.ndarray) -> list[str]:
    """Methods of ``solve_lcp`` sound for ``M`` (and cheap enough)."""
    methods = ["auto", "lemke"] + (["enumerate"] if M.shape[0] <= 12 else [])
    if is_symmetric_psd(M):
        methods += ["pgs", "osqp", "cvxpy"]
    elif is_positive_semidefinite(M):
        methods += ["cvxpy"]
    return methods


# ----------------------------------------------------------------------- the issue's example
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("scale", [1e-100, 1e-20, 1.0, 1e20, 1e100])
def test_issue_example_is_solved_at_every_scale_by_every_method(method, scale):
    # 1e-20: once returned success=True with z = 0 (absolute "||q|| <= eps" test).
    result = solve_lcp(scale * np.eye(3), -scale * np.ones(3), method=method)
    assert result.success, result.message
    np.testing.assert_allclose(result.z, np.ones(3), rtol=1e-9)
    assert result.residual <= 1e-10
    np.testing.assert_allclose(result.w, np.zeros(3), atol=1e-9 * scale)


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_issue_example_direct_method_calls(name):
    # Called directly, a method reports its own status (no polishing, no certification by
    # tol); its residual is the scale-relative one.
    result = DIRECT[name](1e-20 * np.eye(3), -1e-20 * np.ones(3))
    assert result.success, result.message
    np.testing.assert_allclose(result.z, np.ones(3), rtol=1e-8)
    assert result.residual <= 1e-8
    assert result.residual == lcp_residual(1e-20 * np.eye(3), -1e-20 * np.ones(3), result.z)


def test_zero_is_not_certified_for_the_issue_example():
    M, q = 1e-20 * np.eye(3), -1e-20 * np.ones(3)
    assert lcp_residual(M, q, np.zeros(3)) == pytest.approx(1.0)
    assert lcp_residual(M, q, np.ones(3)) == 0.0
    # Siconos' raw formula (absolute threshold) is still available and still fooled.
    assert lcp_residual(M, q, np.zeros(3), relative=False) < 1e-10


@pytest.mark.parametrize("scale", [1e-100, 1e-20, 1e20, 1e100])
def test_issue_example_for_hlcp_and_ave(scale):
    hlcp = solve_hlcp(np.eye(3), scale * np.eye(3), -scale * np.ones(3))
    assert hlcp.success and hlcp.residual <= 1e-10, hlcp.message
    np.testing.assert_allclose(hlcp.y, np.ones(3), rtol=1e-12)
    for method in ["lemke", "pgs", "osqp"]:
        reduced = solve_hlcp(np.eye(3), scale * np.eye(3), -scale * np.ones(3), method=method)
        assert reduced.success, (method, reduced.message)
        np.testing.assert_allclose(reduced.y, np.ones(3), rtol=1e-9)
    # lam = c + 0.5 |lam|: lam = 2 c for c > 0; the scale of c is the scale of lam.
    ave = solve_ave(0.5 * np.eye(3), scale * np.ones(3))
    assert ave.success and ave.residual <= 1e-10, ave.message
    np.testing.assert_allclose(ave.lam, 2.0 * scale * np.ones(3), rtol=1e-12)


# ------------------------------------------------------------------------- residual measures
def test_residuals_are_invariant_under_the_scalings_of_the_problem():
    rng = np.random.default_rng(11)
    M = rng.normal(size=(5, 5))
    q = rng.normal(size=5)
    z = np.abs(rng.normal(size=5))
    reference = lcp_residual(M, q, z)
    assert reference > 0.1
    for s in [1e-300, 1e-100, 1e-20, 3.7, 1e20, 1e100, 1e300]:
        assert lcp_residual(s * M, s * q, z) == pytest.approx(reference, rel=1e-12)
        assert lcp_residual(M, s * q, s * z) == pytest.approx(reference, rel=1e-12)
        assert lcp_residual(M / s, q, s * z) == pytest.approx(reference, rel=1e-12)
    A, B, c = rng.normal(size=(5, 5)), rng.normal(size=(5, 5)), rng.normal(size=5)
    x, y = np.abs(rng.normal(size=5)), np.abs(rng.normal(size=5))
    reference = hlcp_residual(A, B, c, x, y)
    for s in [1e-300, 1e-20, 1e20, 1e300]:
        assert hlcp_residual(s * A, s * B, s * c, x, y) == pytest.approx(reference, rel=1e-12)
        assert hlcp_residual(A, B, s * c, s * x, s * y) == pytest.approx(reference, rel=1e-12)
        assert hlcp_residual(A / s, B, c, s * x, y) == pytest.approx(reference, rel=1e-12)


def test_residual_with_zero_q_is_relative_to_the_candidate():
    M = np.eye(2)
    for s in [1e-200, 1.0, 1e200]:
        assert lcp_residual(M, np.zeros(2), [-s, 0.0]) == pytest.approx(1.0)
        assert lcp_residual(M, np.zeros(2), [0.0, 0.0]) == 0.0
    assert lcp_residual(M, np.ones(2), [np.inf, 0.0]) == np.inf


# --------------------------------------------------------------------- the Siconos problems
def _scaled_cases():
    return [
        pytest.param(path, scale, id=f"{path.stem}-{scale:g}")
        for path in FILES
        for scale in (1e-20, 1e20)
    ]


@pytest.mark.parametrize(("path", "scale"), _scaled_cases())
def test_auto_on_scaled_siconos_problems(path, scale):
    M, q = read_siconos_lcp(path)
    reference = solve_lcp(M, q)
    result = solve_lcp(scale * M, scale * q)
    assert result.success == reference.success, result.message
    assert result.infeasible == reference.infeasible
    assert result.residual == pytest.approx(
        lcp_residual(scale * M, scale * q, result.z), abs=1e-300
    )
    if reference.success:
        assert result.residual <= 1e-10
        # Same z: M -> s M, q -> s q leaves the solution unchanged.
        size = max(1.0, float(np.max(np.abs(reference.z))))
        np.testing.assert_allclose(result.z, reference.z, atol=1e-9 * size)
        np.testing.assert_allclose(result.w, scale * reference.w, atol=1e-9 * scale * size)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_method_on_siconos_problems_scaled(path):
    M, q = read_siconos_lcp(path)
    for method in _applicable(M):
        reference = solve_lcp(M, q, method=method)
        for scale in SCALES:
            result = solve_lcp(scale * M, scale * q, method=method)
            assert result.success == reference.success, (method, scale, result.message)
            if not reference.success:
                continue
            assert result.residual <= 1e-10, (method, scale)
            size = max(1.0, float(np.max(np.abs(q))))
            # w is unique for PSD M (z need not be: lcp_CPS_5 has a continuum).
            np.testing.assert_allclose(
                result.w / scale, reference.w, atol=1e-7 * size, err_msg=f"{method} {scale}"
            )
            if method in ("auto", "lemke", "enumerate"):  # exact, deterministic paths
                z_size = max(1.0, float(np.max(np.abs(reference.z))))
                np.testing.assert_allclose(
                    result.z, reference.z, atol=1e-9 * z_size, err_msg=f"{method} {scale}"
                )


@pytest.mark.parametrize("scale", [1e-100, 1e-20, 1e20, 1e100])
def test_all_solutions_of_scaled_problems(scale):
    for name, count, continuum in [("lcp_CPS_1", 2, True), ("lcp_CPS_3", 3, False)]:
        M, q = read_siconos_lcp(DATA / f"{name}.dat")
        reference = solve_lcp(M, q, all_solutions=True)
        result = solve_lcp(scale * M, scale * q, all_solutions=True)
        assert result.success and len(result.solutions) == count
        assert result.continuum == continuum
        for s, r in zip(result.solutions, reference.solutions, strict=True):
            np.testing.assert_allclose(s, r, atol=1e-12)
            assert lcp_residual(scale * M, scale * q, s) <= 1e-12


@pytest.mark.parametrize("name", ["lcp_CPS_4bis", "lcp_exp_murty2", "lcp_mmc", "lcp_tobenna"])
def test_power_of_two_scaling_is_exact(name):
    M, q = read_siconos_lcp(DATA / f"{name}.dat")
    reference = solve_lcp(M, q)
    for k in [-900, -70, 70, 900]:
        scale = 2.0**k
        if np.max(np.abs(M)) * scale > 1e300:
            continue
        result = solve_lcp(M * scale, q * scale)
        np.testing.assert_array_equal(result.z, reference.z)
        assert result.residual == reference.residual
        assert result.iterations == reference.iterations


def test_scaling_q_alone_scales_z():
    M, q = read_siconos_lcp(DATA / "lcp_ortiz.dat")
    reference = solve_lcp(M, q)
    for t in [1e-150, 1e-20, 1e20, 1e150]:
        result = solve_lcp(M, t * q)
        assert result.success, result.message
        np.testing.assert_allclose(result.z / t, reference.z, rtol=1e-12, atol=1e-15)
        # pgs's starting point is in the units of the input: the solution needs no sweep.
        warm = solve_lcp(M.T @ M, t * q, method="pgs")
        again = solve_lcp(M.T @ M, t * q, method="pgs", z0=warm.z, polish=False)
        assert again.success and again.iterations == 0


def test_badly_row_scaled_problem_without_equilibration_at_any_overall_scale():
    # Lemke's blocking and tie tests are relative to each entry's round-off scale, so row
    # scales spread over 1e16 neither defeat it nor depend on the overall scale.
    rng = np.random.default_rng(3)
    B = rng.normal(size=(8, 8))
    scales = np.logspace(-4, 4, 8)
    M = scales[:, None] * (B @ B.T + 8 * np.eye(8)) * scales[None, :]
    q = scales * rng.normal(size=8)
    reference = solve_lcp(M, q, method="lemke", scale=False)
    assert reference.success
    for s in [1e-100, 1e-20, 1e-9, 1e20, 1e100]:
        result = solve_lcp(s * M, s * q, method="lemke", scale=False)
        assert result.success, (s, result.message)
        np.testing.assert_allclose(result.z, reference.z, rtol=1e-9)


# ------------------------------------------------------------------------- hypothesis cases
@st.composite
def scaled_p_matrix_problems(draw):
    """Random P-matrix LCPs (SPD, nonsymmetric PD, triangular) and a scale factor."""
    n = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["spd", "pd_nonsymmetric", "triangular"]))
    scale = draw(st.sampled_from(SCALES))
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(n, n))
    if kind == "spd":
        M = G @ G.T + 0.1 * np.eye(n)
    elif kind == "pd_nonsymmetric":
        M = G @ G.T + 0.1 * np.eye(n) + 2.0 * (G - G.T)
    else:
        M = np.diag(rng.uniform(0.5, 2.0, n)) + np.triu(3.0 * G, 1)
    return kind, M, 3.0 * rng.normal(size=n), scale


@SETTINGS
@given(scaled_p_matrix_problems())
def test_scaled_p_matrix_problems_give_the_unscaled_solution(problem):
    kind, M, q, scale = problem
    assert is_p_matrix(M) and is_p_matrix(scale * M)
    z_star = solve_lcp(M, q, method="enumerate", all_solutions=True).solutions[0]
    size = max(1.0, float(np.max(np.abs(z_star))))
    for method in _applicable(M):
        result = solve_lcp(scale * M, scale * q, method=method)
        assert result.success, (kind, method, scale, result.message)
        assert result.residual <= 1e-10
        np.testing.assert_allclose(result.z, z_star, atol=1e-8 * size, err_msg=method)


@SETTINGS
@given(st.integers(1, 14), st.integers(0, 2**32 - 1), st.sampled_from(SCALES))
def test_scaled_ave_contraction(n, seed, scale):
    # n = 1 closed form, n <= 6 batched patterns, n <= 10 enumeration, n > 10 HLCP + Lemke.
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1.0, 1.0, (n, n))
    A *= 0.8 / max(np.max(np.abs(np.linalg.eigvals(np.abs(A)))), 1e-12)
    c = rng.normal(size=n)
    reference = solve_ave(A, c)
    result = solve_ave(A, scale * c)
    assert reference.success and result.success, result.message
    assert result.residual <= 1e-10
    np.testing.assert_allclose(
        result.lam / scale, reference.lam, atol=1e-10 * max(1.0, np.abs(reference.lam).max())
    )
    if n <= 10:
        every = solve_ave(A, scale * c, True)  # positional all_solutions, as the engine does
        assert every.success and len(every.solutions) == 1


# -------------------------------------------------------------- beyond double precision
@pytest.mark.parametrize("method", METHODS)
def test_subnormal_data_are_reported_too_badly_scaled(method):
    result = solve_lcp(1e-320 * np.eye(3), -1e-320 * np.ones(3), method=method)
    assert not result.success
    assert result.message.startswith(TOO_BADLY_SCALED)
    assert "max|M|" in result.message and "subnormal" in result.message
    assert "rescale the units" in result.message
    np.testing.assert_allclose(result.z, np.ones(3))  # the best point is still returned


@pytest.mark.parametrize("name", sorted(DIRECT))
def test_subnormal_data_direct_method_calls(name):
    result = DIRECT[name](1e-320 * np.eye(3), -1e-320 * np.ones(3))
    assert not result.success and result.message.startswith(TOO_BADLY_SCALED)


def test_subnormal_q_alone_is_named():
    result = solve_lcp(np.eye(2), [-1e-321, -2e-321])
    assert not result.success
    assert "max|q|" in result.message and TOO_BADLY_SCALED in result.message


def test_data_precision_threshold_follows_tol():
    # 1e-310 is subnormal but known to 5e-14 relative: certifiable at 1e-10, not at 1e-15.
    M, q = 1e-310 * np.eye(2), np.array([-1e-310, -2e-310])
    loose = solve_lcp(M, q)
    assert loose.success, loose.message
    np.testing.assert_allclose(loose.z, [1.0, 2.0], rtol=1e-12)
    strict = solve_lcp(M, q, tol=1e-15)
    assert not strict.success and strict.message.startswith(TOO_BADLY_SCALED)
    # Tiny entries beside large ones are fine: certification is normwise.
    mixed = solve_lcp([[1.0, 1e-320], [0.0, 1.0]], [-1.0, -1e-320])
    assert mixed.success, mixed.message


def test_solution_underflow_is_reported():
    # z ~ max|q| / max|M| = 1e-400 is below the smallest double.
    result = solve_lcp(1e200 * np.eye(3), -1e-200 * np.ones(3))
    assert not result.success
    assert result.message.startswith(TOO_BADLY_SCALED)
    assert "underflows" in result.message and "1e-400" in result.message
    assert "rescale the units" in result.message


@pytest.mark.parametrize("method", ["auto", "lemke", "enumerate", "pgs", "osqp"])
def test_solution_overflow_is_reported(method):
    result = solve_lcp(1e-200 * np.eye(3), -1e200 * np.ones(3), method=method)
    assert not result.success and not result.infeasible
    assert result.message.startswith(TOO_BADLY_SCALED)
    assert "overflows" in result.message and "1e+400" in result.message
    assert np.all(np.isinf(result.z)) and result.residual == np.inf


def test_hlcp_and_ave_beyond_double_precision():
    hlcp = solve_hlcp(np.eye(3), 1e-320 * np.eye(3), -1e-320 * np.ones(3))
    assert not hlcp.success and hlcp.message.startswith(TOO_BADLY_SCALED)
    assert "max|B|" in hlcp.message
    far = solve_hlcp(np.eye(3), 1e-200 * np.eye(3), -1e200 * np.ones(3))
    assert not far.success and "overflows" in far.message
    ave = solve_ave(0.5 * np.eye(2), [-1e-320, 1e-320], True)
    assert not ave.success and ave.message.startswith(TOO_BADLY_SCALED)
    assert "max|c|" in ave.message
    assert len(ave.solutions) == 1  # what was found is still listed
    scalar = solve_ave([[0.5]], [1e-321])
    assert not scalar.success and TOO_BADLY_SCALED in scalar.message


# -------------------------------------------------------------------------- non-finite input
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: solve_lcp(np.eye(2) * 1e200 * 1e200, [1.0, 1.0]), r"M must be finite.*units"),
        (
            lambda: solve_lcp(np.eye(2), [1e300 * 1e10, 1.0]),
            r"q must be finite.*q\[0\] = inf.*units",
        ),
        (lambda: solve_lcp([[np.nan, 0], [0, 1]], [1, 1]), r"M must be finite.*M\[0,0\] = nan"),
        (lambda: solve_hlcp(np.eye(2), np.eye(2), [np.inf, 0.0]), r"c must be finite.*units"),
        (lambda: solve_ave([[np.inf]], [1.0]), r"A must be finite.*units"),
    ],
)
def test_non_finite_input_names_the_argument_and_suggests_units(call, match):
    with np.errstate(over="ignore"), pytest.raises(ValueError, match=match):
        call()


def test_nan_input_does_not_suggest_units():
    with pytest.raises(ValueError) as info:
        solve_lcp(np.eye(2), [np.nan, 1.0])
    assert "q must be finite" in str(info.value) and "units" not in str(info.value)
