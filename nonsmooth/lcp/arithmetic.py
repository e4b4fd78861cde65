"""Floating-point arithmetic that neither overflows nor underflows where the result is
representable: exact scaling by powers of two, a ratio of scales, the Euclidean norm. Used by the
scale-relative certificates (:mod:`nonsmooth.lcp.scaling`) and the residuals
(:mod:`nonsmooth.lcp.residual`)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ldexp", "times_ratio", "norm2"]


def ldexp(x, exponent: int) -> np.ndarray:
    """``x * 2^exponent``, exact unless the result leaves the range of doubles.

    Parameters
    ----------
    x : array_like
    exponent : int

    Returns
    -------
    ndarray
        Overflow gives ``inf`` and underflow ``0`` or subnormal values, silently.
    """
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(np.asarray(x, dtype=float), int(exponent))


def times_ratio(x, numerator: float, denominator: float) -> np.ndarray:
    """``x * numerator / denominator`` without overflow or underflow of the ratio itself.

    Parameters
    ----------
    x : array_like
    numerator, denominator : float
        Positive finite scales.

    Returns
    -------
    ndarray
    """
    mantissa_n, exponent_n = np.frexp(numerator)
    mantissa_d, exponent_d = np.frexp(denominator)
    with np.errstate(over="ignore", under="ignore"):
        scaled = np.asarray(x, dtype=float) * (float(mantissa_n) / float(mantissa_d))
    return ldexp(scaled, int(exponent_n) - int(exponent_d))


def norm2(x) -> float:
    """Euclidean norm that neither overflows nor underflows for representable results.

    Parameters
    ----------
    x : array_like

    Returns
    -------
    float
        ``nan`` or ``inf`` when ``x`` holds them.
    """
    x = np.asarray(x, dtype=float)
    largest = float(np.max(np.abs(x))) if x.size else 0.0
    if largest == 0.0 or not math.isfinite(largest):
        return largest
    with np.errstate(under="ignore"):
        return largest * float(np.sqrt(np.sum(np.square(x / largest))))
