"""Active-set polishing: turn an approximate complementary point into an exact basic one.

Given an approximate solution ``z`` of LCP(q, M), guess the basis ``J = {i : s_i z_i > w_i}``
(the components where ``z`` rather than ``w`` is positive; ``s_i = M_ii`` when positive,
else ``max_j |M_ij|``, puts both in the units of ``w``), set ``z_i = 0`` off ``J`` and take a
Newton step on the principal system ``M_JJ z_J = -q_J`` from the current point (LU solve, and
the minimum-norm least-squares step, which matters for singular ``M_JJ``), with the original
data. When the guess is right
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


def _least_squares(matrix: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    return np.linalg.lstsq(matrix, rhs, rcond=1e-13)[0]


def polish_lcp(M: np.ndarray, q: np.ndarray, z: np.ndarray, rounds: int = 4) -> np.ndarray:
    """Refine ``z`` by Newton steps on its guessed basis, corrected by block pivoting.

    After each step the basis is updated by sign (Kostreva 1978; Judice & Pires 1994 block
    principal pivoting): indices of ``J`` whose ``z_i`` came out negative leave, indices off
    ``J`` whose ``w_i`` came out negative enter.

    Parameters
    ----------
    M : ndarray, shape (n, n)
    q : ndarray, shape (n,)
    z : ndarray, shape (n,)
        Approximate solution.
    rounds : int
        Maximum number of basis updates.

    Returns
    -------
    ndarray, shape (n,)
        The point with the smallest :func:`lcp_residual` (``z`` itself if no improvement).
    """
    best = np.maximum(z, 0.0)
    best_residual = lcp_residual(M, q, best)
    if best_residual == 0.0:
        return best
    diagonal = np.diag(M)
    units = np.where(diagonal > 0.0, diagonal, np.max(np.abs(M), axis=1))
    units = np.where(units > 0.0, units, 1.0)
    current = best
    basis = units * current > M @ current + q
    seen: set[bytes] = set()
    for _ in range(rounds):
        key = basis.tobytes()
        if key in seen or best_residual == 0.0:
            break
        seen.add(key)
        start = np.where(basis, current, 0.0)
        if np.any(basis):
            # Newton step from the current point: for a singular M_JJ (PSD M of low rank)
            # the minimum-norm correction stays near the iterate.
            M_JJ = M[np.ix_(basis, basis)]
            defect = -(M @ start + q)[basis]
            steps = []
            for step in (_solve, _least_squares):
                candidate = start.copy()
                candidate[basis] += step(M_JJ, defect)
                steps.append(candidate)
        else:
            steps = [start]
        residuals = [lcp_residual(M, q, np.maximum(c, 0.0)) for c in steps]
        k = int(np.argmin(residuals))
        raw = steps[k]
        if residuals[k] < best_residual:
            best, best_residual = np.maximum(raw, 0.0), residuals[k]
        w = M @ raw + q
        scale_z = np.finfo(float).eps * max(float(np.max(np.abs(raw))), 1e-300)
        scale_w = np.finfo(float).eps * max(float(np.max(np.abs(w))), 1e-300)
        basis = (basis & (raw > -scale_z)) | (~basis & (w < -scale_w))
        current = np.maximum(raw, 0.0)
    return best


def polish_hlcp(
    A: np.ndarray, B: np.ndarray, c: np.ndarray, x: np.ndarray, y: np.ndarray, rounds: int = 2
) -> tuple[np.ndarray, np.ndarray]:
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
