"""A cvxpy formulation of the monotone LCP, as an independent reference / cross-check.

For ``M`` positive semidefinite (symmetric part PSD; ``M`` need not be symmetric) the LCP is
equivalent to the convex quadratic program

    minimize z^T (M z + q) = z^T S z + q^T z,   S = (M + M^T)/2,
    subject to z >= 0,  M z + q >= 0,

whose optimal value is zero exactly when the LCP has a solution (Cottle-Pang-Stone 3.1).
``import cvxpy`` (slow, ~2 s) happens only when this solver is called.

Scale: the QP is posed for the exactly normalised problem (:mod:`nonsmooth.lcp.scaling`), so
the conic solver's absolute tolerances act relative to the data.
"""

from __future__ import annotations

import numpy as np

from .result import LCPResult
from .scaling import LCPScaling
from .validation import as_square_matrix, as_vector

__all__ = ["solve_cvxpy"]


def solve_cvxpy(M, q, *, solver: str | None = None, **solver_options) -> LCPResult:
    """Solve a monotone LCP(q, M) through cvxpy.

    Parameters
    ----------
    M : array_like, shape (n, n)
        Positive semidefinite (``x^T M x >= 0``); otherwise the QP is not convex
        (``ValueError``).
    q : array_like, shape (n,)
    solver : str, optional
        cvxpy solver name (default: ``"CLARABEL"`` when installed, else cvxpy's choice).
    **solver_options
        Passed to ``Problem.solve``.

    Returns
    -------
    LCPResult
        ``success`` is withdrawn when the problem is too badly scaled to certify in double
        precision.

    Raises
    ------
    ValueError
        ``M`` is not positive semidefinite.
    """
    from .structure import is_positive_semidefinite

    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    if not is_positive_semidefinite(M):
        raise ValueError(
            "M: method='cvxpy' needs a positive semidefinite M (x^T M x >= 0): its QP "
            "formulation is convex only for monotone LCPs; use method='lemke' or 'auto'"
        )
    scaling = LCPScaling.of(M, q)
    return scaling.restore(_cvxpy(*scaling.normalise(M, q), solver, solver_options), M, q)


def _cvxpy(M, q, solver: str | None, solver_options: dict) -> LCPResult:
    """The cvxpy QP on the normalised problem (see :func:`solve_cvxpy`)."""
    import cvxpy as cp

    n = M.shape[0]

    S = 0.5 * (M + M.T)
    z_var = cp.Variable(n)
    objective = cp.Minimize(cp.quad_form(z_var, cp.psd_wrap(S)) + q @ z_var)
    problem = cp.Problem(objective, [z_var >= 0, M @ z_var + q >= 0])
    if solver is None and "CLARABEL" in cp.installed_solvers():
        solver = "CLARABEL"
    try:
        problem.solve(solver=solver, **solver_options)
    except cp.error.SolverError as exc:
        z = np.zeros(n)
        return LCPResult.from_point(
            M, q, z,
            success=False,
            method="cvxpy",
            iterations=0,
            message=f"cvxpy solver error: {exc}",
        )
    status = problem.status
    iterations = int(getattr(problem.solver_stats, "num_iters", 0) or 0)
    if z_var.value is None:
        z = np.zeros(n)
        return LCPResult.from_point(
            M, q, z,
            success=False,
            method="cvxpy",
            iterations=iterations,
            message=f"cvxpy status: {status}",
            infeasible=status == "infeasible",
        )
    z = np.maximum(np.asarray(z_var.value, dtype=float), 0.0)
    return LCPResult.from_point(
        M, q, z,
        success=status == "optimal",
        method="cvxpy",
        iterations=iterations,
        message=f"cvxpy status: {status} (solver {problem.solver_stats.solver_name})",
    )
