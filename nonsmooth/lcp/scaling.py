"""Scale-relative certification: every answer is judged relative to the scale of its data.

Why
---
The LCP ``w = M z + q`` keeps its solutions ``z`` when ``M`` and ``q`` are multiplied by the
same factor ``s > 0``, and ``z`` is multiplied by ``s`` when ``q`` alone is. A certificate must
share these invariances: an absolute threshold (Siconos skips its division by ``||q||`` when
``||q|| <= eps``) certifies ``z = 0`` for ``M = 1e-20 I``, ``q = -1e-20 e`` although the
solution is ``z = e``.

The convention of :mod:`nonsmooth.lcp`
---------------------------------------
1. **Normalise** (exactly, by powers of two): ``M = 2^m M_n``, ``q = 2^k q_n`` with
   ``1 <= max|M_n| < 2`` and ``1 <= max|q_n| < 2``, hence ``z = 2^(k - m) z_n`` and
   ``w = 2^k w_n``. Every method, structure test, polishing step and tolerance (pivot and
   tie tolerances, OSQP's ``eps_abs``, enumeration's ``accept_tol``) works on
   ``(M_n, q_n)``. Multiplying by a power of two is exact in floating point, so a problem
   scaled by ``2^j`` is solved bit for bit like the original; any other factor changes the
   data by their rounding only.
2. **Measure**: the residual (:func:`~nonsmooth.lcp.lcp_residual`) is Siconos' measure of the
   normalised problem, ``||min(z, w)||_2 / ||q||_2`` after dividing ``M`` and ``q`` by their
   largest entries, i.e. ``||min(max|M| z, w)||_2 / ||q||_2``: invariant under both
   scalings above and under a change of the units of ``z``.
3. **Restore and check the range**: ``z`` is mapped back exactly, ``w`` and the residual are
   recomputed from the original data, and ``success`` is withdrawn, with a message that
   starts with :data:`TOO_BADLY_SCALED` and says what to try, when double precision cannot
   certify the answer:

   * *imprecise data*: an argument whose largest entry is so deep in the subnormal range
     (below 2.2e-308) that its relative precision ``2^-1074 / max|X|`` exceeds ``tol``
     (e.g. entries ~1e-320 carry about 11 significant bits);
   * *solution out of range*: ``z ~ max|q| / max|M|`` overflows (``inf``) or underflows
     (the restored ``z`` loses the certificate that ``z_n`` had), because the scales of
     ``M`` and ``q`` differ by more than doubles span.

The horizontal LCP ``A x - B y = c`` is normalised alike (``x = 2^(g - a) x_n``,
``y = 2^(g - b) y_n``), the absolute value equation ``lam = c + A |lam|`` through ``c`` alone
(``A`` is dimensionless, ``lam = 2^g lam_n``). Non-finite input is refused by
:mod:`nonsmooth.lcp.validation` before any of this.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from .arithmetic import ldexp, norm2, times_ratio
from .result import HLCPResult, LCPResult

__all__ = [
    "LCPScaling",
    "HLCPScaling",
    "binary_exponent",
    "ldexp",
    "times_ratio",
    "norm2",
    "data_precision_issue",
    "range_issue",
    "DEFAULT_TOL",
    "TOO_BADLY_SCALED",
    "LCP_ADVICE",
    "HLCP_ADVICE",
    "AVE_ADVICE",
]

DEFAULT_TOL = 1e-10
"""Certification tolerance of the methods called directly (``solve_lcp`` has ``tol``)."""

TOO_BADLY_SCALED = "too badly scaled to certify in double precision"
"""Opening words of the message of every answer refused because of its scale."""

_SMALLEST = float(np.finfo(float).smallest_subnormal)  # 2^-1074
_TINY = float(np.finfo(float).tiny)  # 2^-1022, smallest normal double
_LOG10_2 = math.log10(2.0)

LCP_ADVICE = (
    "rescale the units of the problem so that the entries of M and q are near 1: "
    "multiplying M and q by a common factor leaves z unchanged, multiplying M alone by s "
    "divides z by s (z ~ max|q| / max|M|, so choose the units of z to make max|M| and max|q| "
    "comparable)"
)
HLCP_ADVICE = (
    "rescale the units of the problem so that the entries of A, B and c are near 1: "
    "multiplying A, B and c by a common factor leaves x and y unchanged, multiplying A alone "
    "by s divides x by s (and B, y alike)"
)
AVE_ADVICE = "express c in other units (lam is proportional to c)"


def binary_exponent(x) -> int | None:
    """The ``e`` with ``2^e <= max|x| < 2^(e+1)``; None when ``x`` is zero (or empty).

    Parameters
    ----------
    x : array_like
        Finite values.

    Returns
    -------
    int or None
    """
    x = np.asarray(x, dtype=float)
    largest = float(np.max(np.abs(x))) if x.size else 0.0
    if largest == 0.0:
        return None
    return int(np.frexp(largest)[1]) - 1


def _power_of_ten(exponent2: int) -> str:
    """``2^exponent2`` written as a power of ten, e.g. ``1e+300``."""
    return f"1e{round(exponent2 * _LOG10_2):+d}"


def data_precision_issue(arrays: dict[str, np.ndarray], tol: float, advice: str) -> str | None:
    """Why the data are too imprecise to certify at ``tol``, or None.

    An argument whose largest entry lies deep in the subnormal range is known only to a
    relative precision ``2^-1074 / max|X|`` (each double there is a multiple of ``2^-1074``);
    if that exceeds ``tol`` no answer about it can be certified to ``tol``.

    Parameters
    ----------
    arrays : dict of str to ndarray
        The arguments by name.
    tol : float
        The certification tolerance.
    advice : str
        What to try, appended to the message.

    Returns
    -------
    str or None
    """
    for name, values in arrays.items():
        largest = float(np.max(np.abs(values))) if np.size(values) else 0.0
        if largest == 0.0 or largest >= _TINY:
            continue
        precision = _SMALLEST / largest
        if precision > tol:
            bits = max(1, int(np.floor(np.log2(largest / _SMALLEST))) + 1)
            return (
                f"{TOO_BADLY_SCALED}: max|{name}| = {largest:.3g} lies in the subnormal range "
                f"of doubles (below {_TINY:.3g}), where it has only {bits} significant bits "
                f"(relative precision {precision:.1e} > tol = {tol:.1e}); {advice}"
            )
    return None


def range_issue(
    name: str,
    values: np.ndarray,
    exponent: int,
    residual_normalised: float,
    residual: float,
    tol: float,
    why: str,
    advice: str,
) -> str | None:
    """Why the restored unknown ``values = 2^exponent * values_n`` is not certified, or None.

    Parameters
    ----------
    name : str
        The unknown (``"z"``, ``"x"``, ...).
    values : ndarray
        The unknown in the original units.
    exponent : int
        Its binary scale relative to the normalised problem.
    residual_normalised, residual : float
        The residual before and after restoring the units.
    tol : float
    why : str
        What sets the scale of the unknown, e.g. ``"max|q| / max|M|"``.
    advice : str
        What to try.

    Returns
    -------
    str or None
    """
    if np.all(np.isfinite(values)):
        if not residual_normalised <= tol < residual:
            return None
        what = "underflows (falls below the smallest doubles)"
    else:
        what = "overflows (exceeds the largest double, 1.8e+308)"
    return (
        f"{TOO_BADLY_SCALED}: the solution {name} ~ {why} ~ {_power_of_ten(exponent)} {what}, "
        f"so the answer found for the normalised problem (residual {residual_normalised:.1e}) "
        f"cannot be returned in the units given; {advice}"
    )


@dataclasses.dataclass(frozen=True)
class LCPScaling:
    """Exact power-of-two normalisation of LCP(q, M) (see the module docstring).

    Attributes
    ----------
    m_exp, q_exp : int
        ``M = 2^m_exp M_n``, ``q = 2^q_exp q_n`` with ``1 <= max|M_n|, max|q_n| < 2``; a zero
        argument borrows the other's exponent (both zero: 0).
    """

    m_exp: int = 0
    q_exp: int = 0

    @classmethod
    def of(cls, M: np.ndarray, q: np.ndarray) -> LCPScaling:
        """The normalisation of ``(M, q)``."""
        m_exp, q_exp = binary_exponent(M), binary_exponent(q)
        if m_exp is None and q_exp is None:
            return cls()
        return cls(m_exp if m_exp is not None else q_exp, q_exp if q_exp is not None else m_exp)

    @property
    def z_exp(self) -> int:
        """``z = 2^z_exp z_n``."""
        return self.q_exp - self.m_exp

    def normalise(self, M: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(M_n, q_n)``."""
        return ldexp(M, -self.m_exp), ldexp(q, -self.q_exp)

    def z_to_original(self, z_n) -> np.ndarray:
        """``z = 2^z_exp z_n``."""
        return ldexp(z_n, self.z_exp)

    def z_to_normalised(self, z) -> np.ndarray:
        """``z_n = 2^-z_exp z``."""
        return ldexp(z, -self.z_exp)

    def restore(
        self, result: LCPResult, M: np.ndarray, q: np.ndarray, tol: float = DEFAULT_TOL
    ) -> LCPResult:
        """``result`` of the normalised problem expressed for the original ``(M, q)``.

        ``z`` and ``solutions`` are mapped back, ``w`` and the residual recomputed from
        ``(M, q)``; ``success`` is withdrawn (message starting with
        :data:`TOO_BADLY_SCALED`) when the data are too imprecise or ``z`` out of range.

        Parameters
        ----------
        result : LCPResult
            Computed on ``self.normalise(M, q)``.
        M : ndarray, shape (n, n)
        q : ndarray, shape (n,)
        tol : float

        Returns
        -------
        LCPResult
        """
        z = self.z_to_original(result.z)
        solutions = result.solutions
        if solutions is not None:
            solutions = [self.z_to_original(s) for s in solutions]
        restored = LCPResult.from_point(
            M,
            q,
            z,
            success=result.success,
            method=result.method,
            iterations=result.iterations,
            message=result.message,
            solutions=solutions,
            continuum=result.continuum,
            infeasible=result.infeasible,
        )
        reason = data_precision_issue({"M": M, "q": q}, tol, LCP_ADVICE) or range_issue(
            "z", z, self.z_exp, result.residual, restored.residual, tol,
            "max|q| / max|M|", LCP_ADVICE,
        )
        if reason is not None:
            restored.success = False
            restored.message = f"{reason} [{result.message}]"
        return restored


@dataclasses.dataclass(frozen=True)
class HLCPScaling:
    """Exact power-of-two normalisation of the HLCP ``A x - B y = c``.

    Attributes
    ----------
    a_exp, b_exp, c_exp : int
        ``A = 2^a_exp A_n``, ``B = 2^b_exp B_n``, ``c = 2^c_exp c_n``; then
        ``x = 2^(c_exp - a_exp) x_n`` and ``y = 2^(c_exp - b_exp) y_n``. A zero argument
        borrows an exponent (``c`` from ``B`` then ``A``; ``A``, ``B`` from ``c``).
    """

    a_exp: int = 0
    b_exp: int = 0
    c_exp: int = 0

    @classmethod
    def of(cls, A: np.ndarray, B: np.ndarray, c: np.ndarray) -> HLCPScaling:
        """The normalisation of ``(A, B, c)``."""
        a_exp, b_exp, c_exp = binary_exponent(A), binary_exponent(B), binary_exponent(c)
        if c_exp is None:
            c_exp = b_exp if b_exp is not None else (a_exp if a_exp is not None else 0)
        return cls(
            a_exp if a_exp is not None else c_exp, b_exp if b_exp is not None else c_exp, c_exp
        )

    def normalise(self, A, B, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A_n, B_n, c_n)``."""
        return ldexp(A, -self.a_exp), ldexp(B, -self.b_exp), ldexp(c, -self.c_exp)

    def xy_to_original(self, x_n, y_n) -> tuple[np.ndarray, np.ndarray]:
        """``(x, y)`` from ``(x_n, y_n)``."""
        return ldexp(x_n, self.c_exp - self.a_exp), ldexp(y_n, self.c_exp - self.b_exp)

    def restore(
        self,
        result: HLCPResult,
        A: np.ndarray,
        B: np.ndarray,
        c: np.ndarray,
        tol: float,
        residual: Callable[..., float] | None = None,
    ) -> HLCPResult:
        """``result`` of the normalised HLCP expressed for the original ``(A, B, c)``.

        Parameters
        ----------
        result : HLCPResult
            Computed on ``self.normalise(A, B, c)``.
        A, B : ndarray, shape (n, n)
        c : ndarray, shape (n,)
        tol : float
        residual : callable, optional
            ``residual(A, B, c, x, y)``; default :func:`~nonsmooth.lcp.hlcp_residual`.

        Returns
        -------
        HLCPResult
            A copy with ``x``, ``y``, ``solutions``, ``residual`` in the original units and
            ``success`` withdrawn when the problem is too badly scaled.
        """
        from .residual import hlcp_residual

        measure = residual or hlcp_residual
        x, y = self.xy_to_original(result.x, result.y)
        solutions = result.solutions
        if solutions is not None:
            solutions = [self.xy_to_original(*pair) for pair in solutions]
        value = measure(A, B, c, x, y)
        reason = data_precision_issue({"A": A, "B": B, "c": c}, tol, HLCP_ADVICE)
        if reason is None:
            worst = max(self.c_exp - self.a_exp, self.c_exp - self.b_exp, key=abs)
            reason = range_issue(
                "(x, y)", np.concatenate([x, y]), worst, result.residual, value, tol,
                "max|c| / max|A|, max|c| / max|B|", HLCP_ADVICE,
            )
        restored = dataclasses.replace(result, x=x, y=y, solutions=solutions, residual=value)
        if reason is not None:
            restored.success = False
            restored.message = f"{reason} [{result.message}]"
        return restored
