"""Projected Gauss-Seidel (projected SOR) for symmetric positive semidefinite M.

Each sweep updates, for ``i = 1..n`` in turn,

    z_i <- max(0, z_i - omega (M_i. z + q_i) / M_ii),

i.e. exact minimization of ``f(z) = 1/2 z^T M z + q^T z`` along coordinate ``i`` over
``z_i >= 0`` (``omega = 1``). Cryer (1971) proved convergence for symmetric positive definite
``M`` and ``0 < omega < 2``; for symmetric positive semidefinite ``M`` with a positive
diagonal, the iterates converge to a solution whenever one exists (Luo & Tseng 1992). The rate
is linear and can be slow for badly conditioned ``M``.

Scale: the sweeps run on the exactly normalised problem and stop on the scale-relative
residual (:mod:`nonsmooth.lcp.scaling`); ``z0`` is given in the units of the input.
"""

from __future__ import annotations

import numpy as np

from .polish import polish_lcp
from .residual import lcp_residual
from .result import LCPResult
from .scaling import LCPScaling
from .validation import as_square_matrix, as_vector

__all__ = ["solve_pgs"]


def solve_pgs(
    M,
    q,
    *,
    tol: float = 1e-10,
    max_iter: int = 20000,
    omega: float = 1.0,
    z0=None,
    polish: bool = True,
) -> LCPResult:
    """Solve LCP(q, M) by projected Gauss-Seidel / SOR sweeps.

    Parameters
    ----------
    M : array_like, shape (n, n)
        Symmetric positive semidefinite (not checked here; :func:`solve_lcp` checks it).
        Zero diagonal entries are allowed only for zero rows (then ``z_i = 0``).
    q : array_like, shape (n,)
    tol : float
        Stop when :func:`~nonsmooth.lcp.lcp_residual` (relative to the scale of the data)
        ``<= tol``.
    max_iter : int
        Maximum number of sweeps.
    omega : float
        Relaxation factor, ``0 < omega < 2`` (1: Gauss-Seidel).
    z0 : array_like, shape (n,), optional
        Starting point (default zero).
    polish : bool
        After 10, 20, 40, ... sweeps try :func:`~nonsmooth.lcp.polish.polish_lcp` on the
        iterate and stop when the polished point is certified.

    Returns
    -------
    LCPResult
        ``iterations`` counts sweeps; ``success`` is withdrawn when the problem is too badly
        scaled to certify at ``tol`` (:mod:`nonsmooth.lcp.scaling`).
    """
    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    if not 0.0 < omega < 2.0:
        raise ValueError(f"omega must lie in (0, 2); got {omega}")
    scaling = LCPScaling.of(M, q)
    M_n, q_n = scaling.normalise(M, q)
    start = None if z0 is None else scaling.z_to_normalised(as_vector(z0, "z0", n))
    result = _pgs(M_n, q_n, start, tol, max_iter, omega, polish)
    return scaling.restore(result, M, q, tol=tol)


def _pgs(M, q, z0, tol: float, max_iter: int, omega: float, polish: bool) -> LCPResult:
    """Projected SOR sweeps on the normalised problem (see :func:`solve_pgs`)."""
    n = M.shape[0]
    z = np.zeros(n) if z0 is None else np.maximum(z0, 0.0)
    diagonal = np.diag(M).copy()
    active = np.flatnonzero(diagonal > 0.0)
    inverse_diagonal = np.zeros(n)
    inverse_diagonal[active] = omega / diagonal[active]
    rows = [M[i] for i in range(n)]
    residual = lcp_residual(M, q, z)
    sweeps = 0
    check_every = 1 if n <= 50 else 5
    polished = False
    next_polish = 10
    while residual > tol and sweeps < max_iter:
        for i in active:
            value = z[i] - inverse_diagonal[i] * (rows[i] @ z + q[i])
            z[i] = value if value > 0.0 else 0.0
        sweeps += 1
        if sweeps % check_every == 0 or sweeps == max_iter:
            residual = lcp_residual(M, q, z)
        if polish and sweeps >= next_polish and residual > tol:
            # PGS identifies the active set long before it converges: try to finish exactly.
            next_polish *= 2
            candidate = polish_lcp(M, q, z)
            candidate_residual = lcp_residual(M, q, candidate)
            if candidate_residual <= tol:
                z, residual, polished = candidate, candidate_residual, True
    success = residual <= tol
    if polished:
        message = f"active set identified in {sweeps} sweeps, finished by polishing"
    elif success:
        message = f"converged in {sweeps} sweeps"
    else:
        message = f"not converged after max_iter = {max_iter} sweeps (residual {residual:.2e})"
    return LCPResult.from_point(
        M, q, z,
        success=success,
        method="pgs",
        iterations=sweeps,
        residual=residual,
        message=message,
    )
