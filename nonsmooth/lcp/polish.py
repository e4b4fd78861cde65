"""Active-set polishing: turn an approximate complementary point into an exact basic one.

Given an approximate solution ``z`` of LCP(q, M), guess the basis ``J = {i : z_i > w_i}``
(the components where ``z`` rather than ``w`` is positive) and solve the principal system
``M_JJ z_J = -q_J``, ``z_i = 0`` elsewhere, with the original data. When the guess is right
this is the exact solution up to one LU solve's round-off (the same step ends Lemke's method
and is the "polishing" of OSQP, Stellato et al. 2020). The polished point is kept only if its
residual is smaller.
"""

from __future__ import annotations

import numpy as np

from .residual import hlcp_residual, lcp_residual

__all__ = ["polish_lcp", "polish_hlcp"]


def _solve(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(matrix, rhs)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(matrix, rhs, rcond=None)[0]


def polish_lcp(M: np.ndarray, q: np.ndarray, z: np.ndarray, rounds: int = 2) -> np.ndarray:
    """Refine ``z`` by solving the principal system of its guessed basis.

    Parameters
    ----------
    M : ndarray, shape (n, n)
    q : ndarray, shape (n,)
    z : ndarray, shape (n,)
        Approximate solution.
    rounds : int
        Maximum number of basis re-guesses.

    Returns
    -------
    ndarray, shape (n,)
        The point with the smaller :func:`lcp_residual` (``z`` itself if no improvement).
    """
    best = np.maximum(z, 0.0)
    best_residual = lcp_residual(M, q, best)
    current = best
    for _ in range(rounds):
        if best_residual == 0.0:
            break
        w = M @ current + q
        basis = current > w
        candidate = np.zeros_like(current)
        if np.any(basis):
            candidate[basis] = _solve(M[np.ix_(basis, basis)], -q[basis])
        candidate = np.maximum(candidate, 0.0)
        residual = lcp_residual(M, q, candidate)
        if residual >= best_residual:
            break
        best, best_residual, current = candidate, residual, candidate
    return best


def polish_hlcp(A: np.ndarray, B: np.ndarray, c: np.ndarray, x: np.ndarray, y: np.ndarray,
                rounds: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Refine ``(x, y)`` of the HLCP ``A x - B y = c`` by solving its guessed basis.

    Parameters
    ----------
    A, B : ndarray, shape (n, n)
    c : ndarray, shape (n,)
    x, y : ndarray, shape (n,)

    Returns
    -------
    x, y : ndarray, shape (n,)
        The pair with the smaller :func:`hlcp_residual`.
    """
    best = (np.maximum(x, 0.0), np.maximum(y, 0.0))
    best_residual = hlcp_residual(A, B, c, *best)
    current = best
    for _ in range(rounds):
        if best_residual == 0.0:
            break
        x_basic = current[0] > current[1]
        C = np.where(x_basic[None, :], A, -B)
        u = np.maximum(_solve(C, c), 0.0)
        candidate = (np.where(x_basic, u, 0.0), np.where(x_basic, 0.0, u))
        residual = hlcp_residual(A, B, c, *candidate)
        if residual >= best_residual:
            break
        best, best_residual, current = candidate, residual, candidate
    return best
