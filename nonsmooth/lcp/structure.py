"""Structure of an LCP matrix that decides which solvers are sound.

* P-matrix (every principal minor positive): LCP(q, M) has exactly one solution for every
  ``q`` (Samelson, Thrall & Wesler 1958; Cottle-Pang-Stone Thm 3.3.7); Lemke's method and
  principal-pivot enumeration both find it.
* Positive semidefinite (``x^T M x >= 0``, i.e. the symmetric part is PSD): the LCP is
  monotone, convex; ``M`` is copositive-plus, so Lemke's method either solves it or ends on a
  secondary ray which proves there is no solution (Cottle-Pang-Stone Thm 4.4.13).
  Symmetric PSD: the LCP is the KKT system of ``min 1/2 z^T M z + q^T z, z >= 0`` (PGS, OSQP).
* Scaling: ``D_r M D_c`` with positive diagonal ``D_r``, ``D_c`` preserves complementarity;
  symmetric Ruiz equilibration (Ruiz 2001) makes row/column max-norms close to one.

Every test is invariant under ``M -> s M`` (``s > 0``): eigenvalues and determinants are
computed on ``M`` divided by a power of two near ``max|M|`` (exact), so a matrix of entries
~1e-100 is not mistaken for a singular one through underflow.
"""

from __future__ import annotations

import functools

import numpy as np

from .validation import as_square_matrix

__all__ = [
    "is_symmetric",
    "is_positive_semidefinite",
    "is_symmetric_psd",
    "is_p_matrix",
    "is_copositive_plus",
    "equilibrate",
    "needs_scaling",
    "P_MATRIX_MAX_SIZE",
]

P_MATRIX_MAX_SIZE = 20
"""Largest ``n`` for which :func:`is_p_matrix` enumerates principal minors."""


def is_symmetric(M, rtol: float = 1e-12) -> bool:
    """True if ``M`` equals its transpose up to ``rtol * max|M|``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    rtol : float
    """
    M = np.asarray(M, dtype=float)
    scale = float(np.max(np.abs(M))) if M.size else 0.0
    return bool(np.all(np.abs(M - M.T) <= rtol * max(scale, np.finfo(float).tiny)))


def _normalised(M: np.ndarray) -> np.ndarray:
    """``M`` divided by the power of two ``2^e <= max|M| < 2^(e+1)`` (exact)."""
    from .scaling import binary_exponent, ldexp

    exponent = binary_exponent(M)
    return M if exponent is None else ldexp(M, -exponent)


def _min_eig_ratio(S: np.ndarray) -> float:
    """Smallest eigenvalue of the symmetric ``S`` divided by its spectral radius."""
    eigenvalues = np.linalg.eigvalsh(_normalised(S))
    radius = float(np.max(np.abs(eigenvalues)))
    if radius == 0.0:
        return 0.0
    return float(eigenvalues[0]) / radius


def is_positive_semidefinite(M, rtol: float = 1e-10) -> bool:
    """True if ``x^T M x >= 0`` for all ``x`` (symmetric part PSD up to ``rtol``).

    Parameters
    ----------
    M : array_like, shape (n, n)
        Need not be symmetric.
    rtol : float
        Eigenvalues of ``(M + M^T)/2`` down to ``-rtol * spectral radius`` count as zero.
    """
    M = np.asarray(M, dtype=float)
    return _min_eig_ratio(0.5 * (M + M.T)) >= -rtol


def is_symmetric_psd(M, rtol: float = 1e-10) -> bool:
    """True if ``M`` is symmetric and positive semidefinite (the QP-equivalent case).

    Parameters
    ----------
    M : array_like, shape (n, n)
    rtol : float
        Tolerance of the symmetry test and of the eigenvalue sign test.
    """
    return is_symmetric(M, rtol=max(rtol, 1e-12)) and is_positive_semidefinite(M, rtol)


def is_p_matrix(M, rtol: float = 1e-12, max_size: int = P_MATRIX_MAX_SIZE) -> bool:
    """True if every principal minor of ``M`` is positive (unique LCP solution for every q).

    Quick exits: a symmetric ``M`` is a P-matrix iff it is positive definite; a matrix whose
    symmetric part is positive definite is a P-matrix; a non-positive diagonal entry rules it
    out. Otherwise all ``2^n - 1`` principal minors are computed (LU, batched).

    Parameters
    ----------
    M : array_like, shape (n, n)
    rtol : float
        A minor ``det(M_JJ)`` counts as positive when it exceeds ``rtol`` times Hadamard's
        bound ``prod_j ||M_J,j||`` (so nearly singular minors are not trusted).
    max_size : int
        Refuse (``ValueError``) larger ``n``: the test is co-NP-complete
        (Coxson 1994) and enumeration costs ``2^n`` determinants.

    Returns
    -------
    bool
    """
    M = _normalised(as_square_matrix(M, "M"))
    n = M.shape[0]
    if np.any(np.diag(M) <= 0.0):
        return False
    if is_symmetric(M):
        return _min_eig_ratio(M) > rtol
    if _min_eig_ratio(0.5 * (M + M.T)) > rtol:
        return True
    if n > max_size:
        raise ValueError(
            f"M: P-matrix test enumerates 2^n principal minors; n = {n} exceeds "
            f"max_size = {max_size}"
        )
    masks = _subset_masks(n)[1:]
    chunk = max(1, 2**16 // (n * n))
    for start in range(0, len(masks), chunk):
        block = masks[start : start + chunk]
        # Principal submatrix padded with the identity: det equals det(M_JJ).
        outer = block[:, :, None] & block[:, None, :]
        sub = np.where(outer, M[None], np.eye(n)[None])
        determinants = np.linalg.det(sub)
        bound = np.prod(np.linalg.norm(sub, axis=1), axis=1)
        if np.any(determinants <= rtol * bound):
            return False
    return True


def is_copositive_plus(M, rtol: float = 1e-10) -> bool:
    """Sufficient test of copositivity-plus (Lemke's secondary ray then proves infeasibility).

    True when ``M`` is positive semidefinite (:func:`is_positive_semidefinite`) or when ``M``
    is entrywise nonnegative with a positive diagonal (strictly copositive). False means
    "not shown", not "not copositive-plus" (the exact test is co-NP-complete).

    Parameters
    ----------
    M : array_like, shape (n, n)
    rtol : float
    """
    M = np.asarray(M, dtype=float)
    if is_positive_semidefinite(M, rtol):
        return True
    return bool(np.all(M >= 0.0) and np.all(np.diag(M) > 0.0))


@functools.lru_cache(maxsize=32)
def _subset_masks(n: int) -> np.ndarray:
    """All subsets of ``range(n)`` as boolean rows, ordered by size then lexicographically.

    Returns
    -------
    ndarray of bool, shape (2**n, n)
    """
    codes = np.arange(2**n)
    masks = ((codes[:, None] >> np.arange(n)[None, :]) & 1).astype(bool)
    order = np.argsort(masks.sum(axis=1), kind="stable")
    masks = masks[order]
    masks.flags.writeable = False
    return masks


def equilibrate(M, q, iterations: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric Ruiz equilibration ``M_s = D M D``, ``q_s = D q``.

    With ``z = D z_s``, ``w_s = D w``: ``w_s = M_s z_s + q_s`` and complementarity, signs and
    symmetry are preserved. Each iteration divides row and column ``i`` by
    ``sqrt(max(max_j |M_ij|, max_j |M_ji|))``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    iterations : int

    Returns
    -------
    M_s : ndarray, shape (n, n)
    q_s : ndarray, shape (n,)
    d : ndarray, shape (n,)
        The diagonal of ``D``; recover ``z = d * z_s``.
    """
    M_s = np.array(M, dtype=float)
    d = np.ones(M_s.shape[0])
    for _ in range(iterations):
        norms = np.maximum(np.max(np.abs(M_s), axis=1), np.max(np.abs(M_s), axis=0))
        factor = np.where(norms > 0.0, 1.0 / np.sqrt(np.where(norms > 0.0, norms, 1.0)), 1.0)
        if np.all(np.abs(factor - 1.0) < 1e-3):
            break
        M_s = factor[:, None] * M_s * factor[None, :]
        d *= factor
    return M_s, d * np.asarray(q, dtype=float), d


def needs_scaling(M, threshold: float = 1e4) -> bool:
    """True when row max-norms of ``M`` spread over more than ``threshold``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    threshold : float
    """
    norms = np.max(np.abs(np.asarray(M, dtype=float)), axis=1)
    positive = norms[norms > 0.0]
    return bool(positive.size and positive.max() > threshold * positive.min())
