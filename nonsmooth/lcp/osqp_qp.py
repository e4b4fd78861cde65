"""OSQP on the quadratic program equivalent to an LCP with symmetric PSD M.

For symmetric positive semidefinite ``M`` the LCP is the KKT system of

    minimize 1/2 z^T M z + q^T z   subject to  z >= 0,

whose multiplier of ``z >= 0`` is ``w = M z + q``. OSQP (Stellato et al. 2020, ADMM with
solution polishing) solves it; ``import osqp`` happens only when this solver is called.

Scale: OSQP runs on the exactly normalised problem (:mod:`nonsmooth.lcp.scaling`), so
``eps_abs`` is in effect relative to the data; the answer is mapped back and its residual
recomputed from the input.
"""

from __future__ import annotations

import numpy as np

from .result import LCPResult
from .scaling import LCPScaling
from .validation import as_square_matrix, as_vector

__all__ = ["solve_osqp"]


def solve_osqp(
    M,
    q,
    *,
    eps_abs: float = 1e-12,
    eps_rel: float = 1e-12,
    eps_dual_inf: float = 1e-14,
    max_iter: int = 20000,
) -> LCPResult:
    """Solve LCP(q, M), ``M`` symmetric PSD, as a QP with OSQP.

    Parameters
    ----------
    M : array_like, shape (n, n)
        Symmetric positive semidefinite (the QP is otherwise not equivalent / not convex).
    q : array_like, shape (n,)
    eps_abs, eps_rel : float
        OSQP tolerances (on the normalised problem, ``1 <= max|M|, max|q| < 2``).
    eps_dual_inf : float
        OSQP's unboundedness ("dual infeasible") detection tolerance. OSQP's default 1e-4
        falsely declares nearly singular feasible problems unbounded.
    max_iter : int
        OSQP iteration limit.

    Returns
    -------
    LCPResult
        ``iterations`` is OSQP's ADMM iteration count; ``success`` is withdrawn when the
        problem is too badly scaled to certify in double precision.

    Raises
    ------
    ValueError
        ``M`` is not symmetric positive semidefinite.
    """
    from .structure import is_symmetric_psd

    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    if not is_symmetric_psd(M):
        raise ValueError(
            "M: method='osqp' solves the equivalent QP, which needs a symmetric positive "
            "semidefinite M; use method='lemke' or 'auto'"
        )
    scaling = LCPScaling.of(M, q)
    return scaling.restore(
        _osqp(*scaling.normalise(M, q), eps_abs, eps_rel, eps_dual_inf, max_iter), M, q
    )


def _osqp(M, q, eps_abs, eps_rel, eps_dual_inf, max_iter) -> LCPResult:
    """OSQP on the normalised problem (see :func:`solve_osqp`)."""
    import osqp
    from scipy import sparse

    n = M.shape[0]
    P = sparse.csc_matrix(np.triu(0.5 * (M + M.T)))
    solver = osqp.OSQP()
    settings = dict(
        verbose=False,
        eps_abs=eps_abs,
        eps_rel=eps_rel,
        eps_dual_inf=eps_dual_inf,
        max_iter=max_iter,
    )
    polish_key = "polishing" if int(osqp.__version__.split(".")[0]) >= 1 else "polish"
    settings[polish_key] = False  # solve_lcp polishes on the active set itself
    solver.setup(
        P=P,
        q=q,
        A=sparse.identity(n, format="csc"),
        l=np.zeros(n),
        u=np.full(n, np.inf),
        **settings,
    )
    try:
        output = solver.solve(raise_error=False)
    except TypeError:  # osqp < 1.0
        output = solver.solve()
    status = str(output.info.status)
    x = output.x
    if x is None or not np.all(np.isfinite(x)):
        z = np.zeros(n)
        return LCPResult.from_point(
            M, q, z,
            success=False,
            method="osqp",
            iterations=int(output.info.iter),
            message=f"OSQP returned no point (status: {status})",
            infeasible="dual infeasible" in status,
        )
    z = np.maximum(np.asarray(x, dtype=float), 0.0)
    solved = status.startswith("solved") and "inaccurate" not in status
    return LCPResult.from_point(
        M, q, z,
        success=solved,
        method="osqp",
        iterations=int(output.info.iter),
        message=f"OSQP status: {status}",
    )
