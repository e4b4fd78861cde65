"""Certified error measures for LCP and HLCP solutions.

The LCP measure is the one Siconos uses (``numerics/src/LCP/lcp_compute_error.c``):

    err = ||z - max(0, z - w)||_2 / ||q||_2,    w = M z + q recomputed,

with the division skipped when ``||q||_2 <= eps``. Since ``z - max(0, z - w) = min(z, w)``
componentwise, ``err = 0`` exactly when ``z >= 0``, ``w >= 0`` and ``z_i w_i = 0``: it measures
sign violations and complementarity at once (the "natural residual").
"""

from __future__ import annotations

import numpy as np

__all__ = ["lcp_residual", "hlcp_residual"]

_EPS = np.finfo(float).eps


def lcp_residual(M, q, z) -> float:
    """Siconos' LCP error of a candidate ``z``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    z : array_like, shape (n,)

    Returns
    -------
    float
        ``||z - max(0, z - w)||_2 / ||q||_2`` with ``w = M z + q`` (no division when
        ``||q||_2 <= eps``).
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    z = np.asarray(z, dtype=float)
    w = M @ z + q
    err = float(np.linalg.norm(z - np.maximum(0.0, z - w)))
    norm_q = float(np.linalg.norm(q))
    return err / norm_q if norm_q > _EPS else err


def hlcp_residual(A, B, c, x, y) -> float:
    """Relative error of a candidate ``(x, y)`` of the HLCP ``A x - B y = c``, ``0 <= x _|_ y``.

    Parameters
    ----------
    A, B : array_like, shape (n, n)
    c : array_like, shape (n,)
    x, y : array_like, shape (n,)

    Returns
    -------
    float
        ``(||A x - B y - c||_2 + ||min(x, y)||_2) / ||c||_2`` (no division when
        ``||c||_2 <= eps``). The second term is Siconos' LCP measure: it vanishes exactly when
        ``x >= 0``, ``y >= 0`` and ``x_i y_i = 0``. For ``A = I``, ``B = M``, ``c = q``,
        ``x = w = M z + q``, ``y = z`` the measure equals :func:`lcp_residual`.
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    c = np.asarray(c, dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    err = float(np.linalg.norm(A @ x - B @ y - c)) + float(np.linalg.norm(np.minimum(x, y)))
    norm_c = float(np.linalg.norm(c))
    return err / norm_c if norm_c > _EPS else err
