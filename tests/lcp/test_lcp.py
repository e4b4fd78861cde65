"""Tests of nonsmooth.lcp: Siconos test problems, methods, structure checks, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nonsmooth.lcp import (
    LCPResult,
    analyze_lcp,
    equilibrate,
    hlcp_residual,
    is_copositive_plus,
    is_p_matrix,
    is_positive_semidefinite,
    is_symmetric_psd,
    lcp_residual,
    read_siconos_lcp,
    solve_ave,
    solve_hlcp,
    solve_lcp,
)
from nonsmooth.lcp.lemke import solve_lemke

# Siconos' LCP test problems, copied with their Apache-2.0 notice
# (tests/lcp/data/siconos_lcp/README.md)
DATA = Path(__file__).resolve().parent / "data" / "siconos_lcp"
FILES = sorted(DATA.glob("lcp_*.dat"))

INFEASIBLE = {"lcp_Pang_isolated_sol_perturbed"}

# Basic solutions from the README inventory (z of LCP(q, M)); None: not listed there.
KNOWN = {
    "lcp_CPS_2": [(0, 1, 3)],
    "lcp_CPS_4": [(2, 2, 2, 92)],
    "lcp_CPS_4bis": [(3, 3, 0, 83)],
    "lcp_CPS_5": [(0, 1)],
    "lcp_Pang_isolated_sol": [(1, 0, 0)],
    "lcp_inf_sol_perturbed": [(1, 0, 1e-4)],
    "lcp_deudeu": [(4 / 3, 7 / 3)],
    "lcp_deudeu_block": [(4 / 3, 7 / 3)],
    "lcp_exp_murty": [(0, 0, 0, 0, 0, 1)],
    "lcp_exp_murty2": [(0, 0, 0, 0, 0, 64)],
    "lcp_ortiz": [(2 / 3, 0, 1 / 3, 0)],
    "lcp_ortiz_block": [(2 / 3, 0, 1 / 3, 0)],
    "lcp_trivial": [tuple(1.0 / np.arange(1, 10))],
    "lcp_trivial_block": [tuple(1.0 / np.arange(1, 10))],
    "lcp_CPS_1": [(1, 0), (0, 1)],
}


def _load(name: str):
    return read_siconos_lcp(DATA / f"{name}.dat")


def test_all_twenty_siconos_files_are_present_and_read():
    assert len(FILES) == 20
    sizes = {path.stem: read_siconos_lcp(path)[0].shape[0] for path in FILES}
    assert sizes["lcp_mmc"] == 26
    assert sizes["lcp_tobenna"] == 40
    assert sizes["lcp_enum_fails"] == 9


@pytest.mark.parametrize("name", ["lcp_deudeu", "lcp_ortiz", "lcp_trivial"])
def test_block_storage_matches_dense_storage(name):
    M, q = _load(name)
    M_block, q_block = _load(name + "_block")
    np.testing.assert_array_equal(M_block, M)
    np.testing.assert_array_equal(q_block, q)


def test_dense_storage_is_column_major():
    M, q = _load("lcp_ortiz")
    # The file's first text line (3 -1 0 0) is the first *column* of M.
    np.testing.assert_array_equal(M[:, 0], [3, -1, 0, 0])
    np.testing.assert_array_equal(q, [-2, 1, -1, 1])
    M, _ = _load("lcp_deudeu")
    np.testing.assert_array_equal(M, [[2, 1], [1, 2]])


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_auto_solves_every_feasible_siconos_problem(path):
    M, q = read_siconos_lcp(path)
    result = solve_lcp(M, q)
    if path.stem in INFEASIBLE:
        assert not result.success
        assert result.infeasible
        return
    assert result.success, result.message
    assert result.residual <= 1e-10
    assert result.residual == pytest.approx(lcp_residual(M, q, result.z), abs=1e-300)
    np.testing.assert_allclose(result.w, M @ result.z + q)
    assert np.all(result.z >= 0)
    if path.stem in KNOWN:
        distances = [np.max(np.abs(result.z - np.array(z))) for z in KNOWN[path.stem]]
        assert min(distances) <= 1e-9 * max(1.0, float(np.max(np.abs(result.z))))


@pytest.mark.parametrize(
    "path", [p for p in FILES if read_siconos_lcp(p)[0].shape[0] <= 12], ids=lambda p: p.stem
)
def test_enumeration_reproduces_the_inventory(path):
    M, q = read_siconos_lcp(path)
    result = solve_lcp(M, q, method="enumerate", all_solutions=True)
    expected_count = {"lcp_CPS_1": 2, "lcp_CPS_3": 3, "lcp_Pang_isolated_sol_perturbed": 0}
    assert len(result.solutions) == expected_count.get(path.stem, 1)
    for z in KNOWN.get(path.stem, []):
        assert any(np.allclose(s, z, atol=1e-12) for s in result.solutions)
    for s in result.solutions:
        assert lcp_residual(M, q, s) <= 1e-12


def test_named_hard_problems_are_solved_by_auto():
    for name in ["lcp_CPS_3", "lcp_exp_murty2", "lcp_enum_fails", "lcp_mmc", "lcp_tobenna"]:
        M, q = _load(name)
        result = solve_lcp(M, q)
        assert result.success and result.residual <= 1e-10, (name, result.message)


def test_cps3_bimatrix_game_defeats_lemke_but_not_auto():
    M, q = _load("lcp_CPS_3")
    lemke = solve_lcp(M, q, method="lemke")
    assert not lemke.success
    assert "secondary ray" in lemke.message
    assert not lemke.infeasible  # M (zero diagonal) is not known to be copositive-plus
    result = solve_lcp(M, q)
    assert result.success and result.method == "enumerate"
    assert "lemke(covering='ones'): secondary ray" in result.message
    equilibria = solve_lcp(M, q, all_solutions=True).solutions
    assert len(equilibria) == 3
    assert any(np.allclose(s, [0.1, 0, 0.1, 0]) for s in equilibria)


def test_murty_exponential_lemke_path():
    M, q = _load("lcp_exp_murty2")
    assert is_p_matrix(M)
    result = solve_lemke(M, q, covering="ones")
    assert result.success
    assert result.iterations == 2**6  # Murty (1988): 2^n pivots
    assert solve_lemke(M, q, covering="q").iterations < 2**6
    limited = solve_lemke(M, q, max_iter=10)
    assert not limited.success
    assert "max_iter = 10" in limited.message


def test_pang_perturbed_reported_as_having_no_solution():
    M, q = _load("lcp_Pang_isolated_sol_perturbed")
    result = solve_lcp(M, q)
    assert isinstance(result, LCPResult)
    assert not result.success and result.infeasible
    assert result.message.startswith("no solution")
    for tried in ["lemke(covering='ones')", "lemke(covering='random', seed=0)", "enumerate"]:
        assert tried in result.message
    enumeration = solve_lcp(M, q, method="enumerate")
    assert enumeration.infeasible and "infeasible" in enumeration.message


def test_cps1_has_multiple_solutions_and_a_continuum():
    M, q = _load("lcp_CPS_1")
    result = solve_lcp(M, q, method="enumerate", all_solutions=True)
    assert result.success
    assert len(result.solutions) == 2
    assert result.continuum  # the file says: the solution set is z1 + z2 = 1
    assert "continuum" in result.message
    for s in result.solutions:
        assert s.sum() == pytest.approx(1.0)


def test_every_method_on_symmetric_psd_siconos_problem():
    M, q = _load("lcp_mmc")
    reference = solve_lcp(M, q, method="lemke")
    for method in ["pgs", "osqp", "cvxpy"]:
        result = solve_lcp(M, q, method=method)
        assert result.success, (method, result.message)
        assert result.method == method
        np.testing.assert_allclose(result.w, reference.w, atol=1e-9 * np.abs(q).max())


def test_lemke_secondary_ray_proves_infeasibility_for_psd():
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    q = np.array([-1.0, -1.0])  # w1 + w2 = -2 < 0: infeasible
    result = solve_lemke(M, q)
    assert not result.success and result.infeasible
    assert "proves" in result.message
    auto = solve_lcp(M, q)
    assert auto.infeasible and not auto.success


def test_lemke_trivial_and_covering_choices():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    assert solve_lemke(M, [1.0, 2.0]).iterations == 0
    for covering in ["ones", "random", "q", [1.0, 3.0]]:
        result = solve_lemke(M, [-5.0, -6.0], covering=covering)
        np.testing.assert_allclose(result.z, [4 / 3, 7 / 3])


def test_lemke_lexicographic_rule_handles_degenerate_ties():
    # q = -e with the covering vector e: every ratio ties at the first pivot.
    n = 6
    M = np.eye(n) + np.triu(np.ones((n, n)), 1) * 2.0
    result = solve_lemke(M, -np.ones(n))
    assert result.success
    assert lcp_residual(M, -np.ones(n), result.z) <= 1e-14
    M, q = _load("lcp_CPS_4bis")  # degenerate solution (3, 3, 0, 83)
    assert solve_lemke(M, q).success


def test_scaling_of_badly_scaled_problem():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(8, 8))
    scales = np.logspace(-4, 4, 8)
    M = scales[:, None] * (B @ B.T + 8 * np.eye(8)) * scales[None, :]
    q = scales * rng.normal(size=8)
    assert analyze_lcp(M).badly_scaled
    M_s, q_s, d = equilibrate(M, q)
    assert np.max(np.abs(M_s)) / np.min(np.abs(np.diag(M_s))) < 10
    for scale in [True, False, "auto"]:
        result = solve_lcp(M, q, method="lemke", scale=scale)
        assert result.success and result.residual <= 1e-10
    assert "equilibrated" in solve_lcp(M, q, method="pgs", scale=True).message


def test_structure_detection():
    murty, _ = _load("lcp_exp_murty")
    assert is_p_matrix(murty)
    assert not is_p_matrix([[1.0, 3.0], [1.0, 1.0]])  # det = -2
    assert is_p_matrix([[1.0, -4.0], [0.0, 1.0]])  # triangular, not PSD
    assert not is_positive_semidefinite([[1.0, -4.0], [0.0, 1.0]])
    assert not is_p_matrix(_load("lcp_CPS_1")[0])  # singular PSD
    assert is_symmetric_psd(_load("lcp_CPS_1")[0])
    assert is_symmetric_psd(_load("lcp_mmc")[0])
    assert not is_symmetric_psd(_load("lcp_ortiz")[0])
    assert is_positive_semidefinite(_load("lcp_ortiz")[0])
    assert is_copositive_plus([[1.0, 5.0], [0.0, 2.0]])
    assert not is_copositive_plus(_load("lcp_CPS_3")[0])
    structure = analyze_lcp(_load("lcp_trivial")[0])
    assert structure.p_matrix and structure.symmetric_psd
    assert "P-matrix" in structure.describe()
    with pytest.raises(ValueError, match="max_size = 20"):
        rng = np.random.default_rng(0)
        is_p_matrix(np.eye(25) + 3.0 * np.triu(rng.normal(size=(25, 25)), 1))


def test_residual_is_siconos_measure():
    M = np.eye(2)
    q = np.array([-1.0, 2.0])
    # z = (0, 0): w = q, min(z, w) = (-1, 0).
    assert lcp_residual(M, q, [0.0, 0.0]) == pytest.approx(1 / np.sqrt(5))
    assert lcp_residual(M, np.zeros(2), [-1.0, 0.0]) == pytest.approx(1.0)  # no division
    assert lcp_residual(M, q, [1.0, 0.0]) == 0.0
    z = np.array([0.5, 0.2])
    assert hlcp_residual(np.eye(2), M, q, M @ z + q, z) == pytest.approx(lcp_residual(M, q, z))


def test_hlcp_reduces_to_the_lcp_and_matches_enumeration():
    M, q = _load("lcp_ortiz")
    result = solve_hlcp(np.eye(4), M, q, method="lemke")
    assert result.success
    np.testing.assert_allclose(result.y, [2 / 3, 0, 1 / 3, 0])
    enumeration = solve_hlcp(np.eye(4), M, q, method="enumerate", all_solutions=True)
    assert len(enumeration.solutions) == 1
    np.testing.assert_allclose(enumeration.solutions[0][1], result.y, atol=1e-14)


def test_hlcp_with_singular_A_inverts_B():
    rng = np.random.default_rng(1)
    n = 14
    L = rng.normal(size=(n, n - 3))
    A = L @ L.T  # singular PSD: the reduction must invert B
    B = np.eye(n)
    support = rng.random(n) < 0.5
    x_star = np.where(support, rng.uniform(1, 2, n), 0.0)
    y_star = np.where(support, 0.0, rng.uniform(1, 2, n))
    c = A @ x_star - B @ y_star
    result = solve_hlcp(A, B, c)  # n > 10: reduction to an LCP with M = B^-1 A
    assert "inverted B" in result.message
    assert result.success and result.residual <= 1e-10
    assert hlcp_residual(A, B, c, result.x, result.y) == result.residual
    # w = y is unique for a PSD M; compare with the constructed solution's y.
    np.testing.assert_allclose(result.y, y_star, atol=1e-9)
    lone = solve_hlcp(np.zeros((2, 2)), np.zeros((2, 2)), [1.0, 0.0], method="lemke")
    assert not lone.success and "neither A" in lone.message


def test_hlcp_infeasible_and_multiple():
    # Scalar AVE a = 2: (1 - a) x - (1 + a) y = c.
    none = solve_hlcp([[-1.0]], [[3.0]], [1.0])
    assert not none.success and none.infeasible
    two = solve_hlcp([[-1.0]], [[3.0]], [-1.0], all_solutions=True)
    assert two.success and len(two.solutions) == 2


def test_ave_scalar_closed_form_cases():
    assert solve_ave([[0.5]], [1.0]).lam[0] == pytest.approx(2.0)
    assert solve_ave([[0.5]], [-1.0]).lam[0] == pytest.approx(-1 / 1.5)
    assert solve_ave([[-0.5]], [-1.0]).lam[0] == pytest.approx(-2.0)
    for a, c in [(2.0, 1.0), (-2.0, -1.0)]:
        result = solve_ave([[a]], [c], all_solutions=True)
        assert not result.success and result.solutions == [] and result.infeasible
    for a, c in [(2.0, -1.0), (-2.0, 1.0)]:
        result = solve_ave([[a]], [c], all_solutions=True)
        assert result.success and len(result.solutions) == 2
        for lam in result.solutions:
            assert lam[0] == pytest.approx(c + a * abs(lam[0]))
    continuum = solve_ave([[1.0]], [0.0], all_solutions=True)
    assert continuum.continuum and continuum.success


def test_ave_multiplicity_and_agreement_with_enumeration():
    A = np.diag([2.0, 2.0])
    result = solve_ave(A, [-1.0, -1.0], all_solutions=True)
    assert len(result.solutions) == 4  # two roots per decoupled pair
    exact = solve_ave(A, [-1.0, -1.0], all_solutions=True, method="enumerate")
    assert len(exact.solutions) == 4
    singular = solve_ave([[1.0, 0.0], [0.0, 0.5]], [0.0, 1.0], all_solutions=True)
    assert singular.continuum
    assert np.allclose(singular.solutions[0], [0.0, 2.0])


def test_ave_large_contraction_matches_fixed_point():
    rng = np.random.default_rng(7)
    n = 14
    A = rng.uniform(-1, 1, (n, n))
    A *= 0.8 / np.max(np.abs(np.linalg.eigvals(np.abs(A))))  # rho(|A|) = 0.8 < 1
    c = rng.normal(size=n)
    lam = np.zeros(n)
    for _ in range(400):
        lam = c + A @ np.abs(lam)
    result = solve_ave(A, c)
    assert result.success
    np.testing.assert_allclose(result.lam, lam, atol=1e-10)
    np.testing.assert_allclose(result.x - result.y, result.lam)


def test_import_does_not_load_cvxpy_or_osqp():
    code = "import sys, nonsmooth.lcp; print('cvxpy' in sys.modules, 'osqp' in sys.modules)"
    output = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    assert output.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: solve_lcp(np.ones((2, 3)), [1, 1]), "M must be a square matrix"),
        (lambda: solve_lcp(np.eye(2), [1, 1, 1]), "q must be a vector of length 2"),
        (lambda: solve_lcp([[np.nan, 0], [0, 1]], [1, 1]), "M must be finite"),
        (lambda: solve_lcp(np.eye(2), [np.inf, 1]), "q must be finite"),
        (lambda: solve_lcp(np.eye(2), [1, 1], method="simplex"), "method must be 'auto'"),
        (lambda: solve_lcp([[1, 2], [0, 1]], [1, 1], method="osqp"), "symmetric positive"),
        (lambda: solve_lcp([[1, 4], [0, 1]], [1, 1], method="cvxpy"), "positive semidefinite"),
        (lambda: solve_lcp(np.eye(20), np.ones(20), method="enumerate"), "max_size = 16"),
        (lambda: solve_lcp(np.eye(2), [1, 1], bogus=1), "unknown option"),
        (lambda: solve_lcp(np.eye(2), [1, 1], method="pgs", covering="ones"), "do not apply"),
        (
            lambda: solve_lcp(np.eye(2), [1, 1], method="lemke", all_solutions=True),
            "all_solutions=True needs",
        ),
        (lambda: solve_lcp(np.eye(2), [1, 1], scale="yes"), "scale must be"),
        (lambda: solve_lcp(np.eye(2), [1, 1], tol=0.0), "tol must be positive"),
        (lambda: solve_lemke(np.eye(2), [-1, 1], covering=[1, 0]), "covering must be a vector"),
        (lambda: solve_lemke(np.eye(2), [-1, 1], covering="two"), "covering must be 'ones'"),
        (lambda: solve_lcp(np.eye(2), [-1, 1], method="pgs", omega=2.5), "omega must lie"),
        (lambda: solve_hlcp(np.eye(2), np.eye(3), [1, 1]), r"B must have shape \(2, 2\)"),
        (lambda: solve_hlcp(np.eye(2), np.eye(2), [1]), "c must be a vector of length 2"),
        (lambda: solve_hlcp(np.eye(2), np.eye(2), [1, 1], method="x"), "method must be one of"),
        (lambda: solve_ave(np.ones((1, 2)), [1.0]), "A must be a square matrix"),
        (lambda: solve_ave([[0.5]], [np.nan]), "c must be finite"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_read_errors(tmp_path):
    bad = tmp_path / "bad.dat"
    bad.write_text("2\n2\n2\n2\n")
    with pytest.raises(ValueError, match="storage type 2"):
        read_siconos_lcp(bad)
    short = tmp_path / "short.dat"
    short.write_text("2\n0\n2\n2\n2 2\n1 0 0 1\n-1\n")
    with pytest.raises(ValueError, match="unexpected end of file while reading q"):
        read_siconos_lcp(short)


@pytest.mark.parametrize(
    "module_name", ["nonsmooth.lcp", "nonsmooth.lcp.solve", "nonsmooth.lcp.ave"]
)
def test_docstring_examples(module_name):
    import doctest
    import importlib

    outcome = doctest.testmod(importlib.import_module(module_name))
    assert outcome.attempted > 0
    assert outcome.failed == 0
