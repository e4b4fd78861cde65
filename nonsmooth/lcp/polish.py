"""Active-set polishing: turn an approximate complementary point into an exact basic one.

Given an approximate solution ``z`` of LCP(q, M), guess the basis ``J = {i : s_i z_i > w_i}``
(the components where ``z`` rather than ``w`` is positive; ``s_i = M_ii`` when positive,
else ``max_j |M_ij|``, puts both in the units of ``w``) and solve the principal system
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
    diagonal = np.diag(M)
    units = np.where(diagonal > 0.0, diagonal, np.max(np.abs(M), axis=1))
    units = np.where(units > 0.0, units, 1.0)
    for _ in range(rounds):
        if best_residual == 0.0:
            break
        w = M @ current + q
        basis = units * current > w
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

    The basis takes ``x_i`` where ``||A_:i|| x_i > ||B_:i|| y_i`` (both in units of ``c``).

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
    units_A = np.linalg.norm(A, axis=0)
    units_B = np.linalg.norm(B, axis=0)
    for _ in range(rounds):
        if best_residual == 0.0:
            break
        x_basic = units_A * current[0] > units_B * current[1]
        C = np.where(x_basic[None, :], A, -B)
        u = np.maximum(_solve(C, c), 0.0)
        candidate = (np.where(x_basic, u, 0.0), np.where(x_basic, 0.0, u))
        residual = hlcp_residual(A, B, c, *candidate)
        if residual >= best_residual:
            break
        best, best_residual, current = candidate, residual, candidate
    return best
