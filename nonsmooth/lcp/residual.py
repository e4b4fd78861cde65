"""Certified error measures for LCP and HLCP solutions, relative to the scale of the data.

The LCP measure is Siconos' (``numerics/src/LCP/lcp_compute_error.c``),

    err = ||z - max(0, z - w)||_2 / ||q||_2,    w = M z + q recomputed,

applied to the *normalised* problem ``M / max|M|``, ``q / max|q|`` (whose solution is
``z max|M| / max|q|``), that is

    err = ||min(max|M| z, w)||_2 / ||q||_2.

Since ``z - max(0, z - w) = min(z, w)`` componentwise, ``err = 0`` exactly when ``z >= 0``,
``w >= 0`` and ``z_i w_i = 0``: it measures sign violations and complementarity at once (the
"natural residual"). Unlike Siconos' raw formula, which skips its division when
``||q||_2 <= eps`` and so certifies ``z = 0`` for ``M = 1e-20 I``, ``q = -1e-20 e``, it is
invariant under ``(M, q) -> (s M, s q)`` (same ``z``), ``q -> s q`` (``z -> s z``) and a change
of the units of ``z`` (``M -> M / s``, ``z -> s z``); see :mod:`nonsmooth.lcp.scaling`.
Everything is computed on normalised quantities, so nothing overflows or underflows on the
way. ``relative=False`` gives Siconos' raw formula (to compare with Siconos' output).

A zero ``q`` has no scale: then ``z`` sets it, ``err = ||min(max|M| z, w)||_2 / u`` with
``u = max(max|M| max|z|, max|w|)``, so a candidate is judged relative to its own size.
"""

from __future__ import annotations

import numpy as np

from .arithmetic import norm2, times_ratio

__all__ = ["lcp_residual", "hlcp_residual"]

_EPS = np.finfo(float).eps


def _largest(x: np.ndarray) -> float:
    return float(np.max(np.abs(x))) if x.size else 0.0


def _finite(value: float) -> float:
    return value if np.isfinite(value) else float("inf")


def _in_units(v: np.ndarray, matrix_scale: float, unit: float) -> np.ndarray:
    """``v * matrix_scale / unit``; a zero matrix leaves ``v`` in its own scale."""
    if matrix_scale == 0.0:
        largest = _largest(v)
        return v / largest if largest > 0.0 else v
    return times_ratio(v, matrix_scale, unit)


def lcp_residual(M, q, z, *, relative: bool = True) -> float:
    """Siconos' LCP error of a candidate ``z``, relative to the scale of ``(M, q)``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    z : array_like, shape (n,)
    relative : bool
        True (the certificate of every solver): the measure of the normalised problem, see
        the module docstring. False: Siconos' raw ``||min(z, w)||_2 / ||q||_2`` (no division
        when ``||q||_2 <= eps``), which depends on the units.

    Returns
    -------
    float
        ``||min(max|M| z, w)||_2 / ||q||_2`` with ``w = M z + q``; ``inf`` when ``z`` is not
        finite.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    z = np.asarray(z, dtype=float)
    if not np.all(np.isfinite(z)):
        return float("inf")
    if not relative:
        with np.errstate(over="ignore", invalid="ignore"):
            w = M @ z + q
            err = float(np.linalg.norm(z - np.maximum(0.0, z - w)))
        norm_q = float(np.linalg.norm(q))
        return _finite(err / norm_q if norm_q > _EPS else err)
    mu, sigma = _largest(M), _largest(q)
    M_n = M / mu if mu > 0.0 else M
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if sigma > 0.0:
            z_n = _in_units(z, mu, sigma)
            w_n = M_n @ z_n + q / sigma
            denominator = norm2(q / sigma)
        else:
            # No scale in q: measure relative to the candidate's own size.
            unit = max(mu * _largest(z), _largest(M @ z))
            z_n = _in_units(z, mu, unit if unit > 0.0 else 1.0)
            w_n = M_n @ z_n
            denominator = 1.0
        return _finite(norm2(np.minimum(z_n, w_n)) / denominator)


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
        ``(||A x - B y - c||_2 + ||min(max|A| x, max|B| y)||_2) / ||c||_2``, computed on the
        normalised problem (``A / max|A|``, ``B / max|B|``, ``c / max|c|``), so invariant under
        ``(A, B, c) -> s (A, B, c)``, ``c -> s c`` and changes of the units of ``x`` or ``y``.
        The second term vanishes exactly when ``x >= 0``, ``y >= 0`` and ``x_i y_i = 0``. For
        ``A = I``, ``B = M``, ``c = q``, ``x = w = M z + q``, ``y = z`` the measure equals
        :func:`lcp_residual`. A zero ``c`` takes the scale of the candidate,
        ``max(max|A| max|x|, max|B| max|y|)``; ``inf`` when ``x`` or ``y`` is not finite.
    """
    A = np.asarray(A, dtype=float)
    B = np.asarray(B, dtype=float)
    c = np.asarray(c, dtype=float)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return float("inf")
    alpha, beta, gamma = _largest(A), _largest(B), _largest(c)
    A_n = A / alpha if alpha > 0.0 else A
    B_n = B / beta if beta > 0.0 else B
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if gamma > 0.0:
            unit, c_n, denominator = gamma, c / gamma, norm2(c / gamma)
        else:
            unit = max(alpha * _largest(x), beta * _largest(y))
            unit = unit if unit > 0.0 else 1.0
            c_n, denominator = c, 1.0
        x_n = _in_units(x, alpha, unit)
        y_n = _in_units(y, beta, unit)
        err = norm2(A_n @ x_n - B_n @ y_n - c_n) + norm2(np.minimum(x_n, y_n))
        return _finite(err / denominator)
