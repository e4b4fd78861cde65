"""Boundary checks shared by the LCP/HLCP/AVE entry points.

Every check raises ``ValueError`` naming the offending argument and what was expected. A
non-finite entry is refused with its position; infinite entries are usually magnitudes that
overflowed double precision (beyond 1.8e308), so the message then suggests other units.
Finite data of any scale are accepted: the solvers normalise them
(:mod:`nonsmooth.lcp.scaling`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_square_matrix", "as_vector", "check_finite"]


def check_finite(values: np.ndarray, name: str) -> None:
    """Raise ``ValueError`` naming ``name`` if ``values`` holds NaN or inf entries.

    Parameters
    ----------
    values : ndarray
    name : str
        Argument name used in the message.
    """
    finite = np.isfinite(values)
    if np.all(finite):
        return
    bad = np.argwhere(~finite)
    position = tuple(int(i) for i in bad[0])
    where = f"[{position[0]}]" if len(position) == 1 else str(list(position)).replace(" ", "")
    n_inf = int(np.sum(np.isinf(values)))
    n_nan = int(np.sum(np.isnan(values)))
    counts = ", ".join(
        f"{count} {kind}" for count, kind in ((n_nan, "NaN"), (n_inf, "inf")) if count
    )
    message = (
        f"{name} must be finite (no NaN or inf entries); got {counts} "
        f"(first: {name}{where} = {values[position]})"
    )
    if n_inf:
        message += (
            f". Infinite entries usually mean magnitudes beyond the range of doubles "
            f"(1.8e308): express {name} in other units so that its entries are near 1 "
            "(multiplying all the data of a complementarity problem by a common factor, "
            "e.g. M and q of an LCP, leaves its solution unchanged)"
        )
    raise ValueError(message)


def as_square_matrix(value, name: str, n: int | None = None) -> np.ndarray:
    """Return ``value`` as a finite float square matrix.

    Parameters
    ----------
    value : array_like, shape (n, n)
        The matrix (scalars are accepted as 1 x 1 matrices).
    name : str
        Argument name used in error messages.
    n : int, optional
        Required size.

    Returns
    -------
    ndarray, shape (n, n)
    """
    try:
        matrix = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real square matrix; got {value!r}") from exc
    if matrix.ndim == 0:
        matrix = matrix.reshape(1, 1)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be a square matrix, shape (n, n); got shape {matrix.shape}")
    if n is not None and matrix.shape[0] != n:
        raise ValueError(f"{name} must have shape ({n}, {n}); got shape {matrix.shape}")
    if matrix.shape[0] == 0:
        raise ValueError(f"{name} must not be empty (n >= 1)")
    check_finite(matrix, name)
    return matrix


def as_vector(value, name: str, n: int) -> np.ndarray:
    """Return ``value`` as a finite float vector of length ``n``.

    Parameters
    ----------
    value : array_like, shape (n,)
        The vector (a scalar is accepted when ``n == 1``; an ``(n, 1)`` column too).
    name : str
        Argument name used in error messages.
    n : int
        Required length.

    Returns
    -------
    ndarray, shape (n,)
    """
    try:
        vector = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real vector of length {n}; got {value!r}") from exc
    if vector.ndim == 2 and vector.shape[1] == 1:
        vector = vector[:, 0]
    vector = vector.reshape(-1) if vector.ndim == 0 else vector
    if vector.ndim != 1 or vector.shape[0] != n:
        raise ValueError(
            f"{name} must be a vector of length {n} (matching the matrix); got shape "
            f"{np.shape(value)}"
        )
    check_finite(vector, name)
    return vector
