"""The horizontal LCP: find ``x, y >= 0``, ``x^T y = 0`` with ``A x - B y = c``.

Methods:

* ``enumerate``: all ``2^n`` complementary bases ``[A_S, -B_{S^c}]`` (exact, every solution,
  singular bases by linear programming; :mod:`nonsmooth.lcp.enumeration`).
* reduction to an LCP, then any LCP method (``lemke``, ``pgs``, ``osqp``, ``cvxpy`` and
  ``auto`` of :func:`~nonsmooth.lcp.solve_lcp`):

  - ``A`` invertible: ``x = A^{-1} B y + A^{-1} c``, i.e. LCP with ``z = y``, ``w = x``,
    ``M = A^{-1} B``, ``q = A^{-1} c``;
  - ``B`` invertible: ``y = B^{-1} A x - B^{-1} c``, i.e. ``z = x``, ``w = y``,
    ``M = B^{-1} A``, ``q = -B^{-1} c``.

  The better conditioned of ``A`` and ``B`` is inverted. The reduction is an equivalence, so
  an infeasibility proof for the LCP is one for the HLCP.
* ``auto``: enumeration for ``n <= 10``; otherwise the reduction with LCP ``auto``, then
  enumeration (``n <= 16``) if that fails.

Every answer is polished on its basis and certified with :func:`~nonsmooth.lcp.hlcp_residual`,
which is relative to the scale of the data. As for the LCP (:mod:`nonsmooth.lcp.scaling`),
the whole solve runs on the problem normalised exactly by powers of two
(``1 <= max|A|, max|B|, max|c| < 2``; ``x = 2^(g - a) x_n``, ``y = 2^(g - b) y_n``); the
answer is mapped back, its residual recomputed from the input, and a problem that double
precision cannot certify gets ``success=False`` with a message saying so.
Reference: Cottle, Pang & Stone (2009), section 2.7 (horizontal LCP); Pfeiffer & Glocker
(1996), *Multibody Dynamics with Unilateral Contacts*.
"""

from __future__ import annotations

import numpy as np

from .enumeration import ENUMERATION_MAX_SIZE, enumerate_complementary_bases
from .polish import polish_hlcp
from .residual import hlcp_residual
from .result import HLCPResult
from .scaling import HLCPScaling
from .validation import as_square_matrix, as_vector

__all__ = ["solve_hlcp", "hlcp_to_lcp", "HLCP_METHODS", "AUTO_HLCP_ENUMERATION_MAX_SIZE"]

HLCP_METHODS = ("auto", "enumerate", "lemke", "pgs", "osqp", "cvxpy")
"""Method names accepted by :func:`solve_hlcp`."""

AUTO_HLCP_ENUMERATION_MAX_SIZE = 10
"""``auto`` enumerates up to this size (1024 bases), else reduces to an LCP."""

_SINGULAR_CONDITION = 1e12


def hlcp_to_lcp(A, B, c) -> tuple[np.ndarray, np.ndarray, str]:
    """Reduce the HLCP ``A x - B y = c`` to an LCP ``w = M z + q`` by inverting A or B.

    Parameters
    ----------
    A, B : ndarray, shape (n, n)
    c : ndarray, shape (n,)

    Returns
    -------
    M : ndarray, shape (n, n)
    q : ndarray, shape (n,)
    z_is : {"y", "x"}
        ``"y"``: ``z = y, w = x`` (A inverted); ``"x"``: ``z = x, w = y`` (B inverted).

    Raises
    ------
    numpy.linalg.LinAlgError
        When both ``A`` and ``B`` are (numerically) singular.
    """
    cond_A = np.linalg.cond(A)
    cond_B = np.linalg.cond(B)
    if min(cond_A, cond_B) > _SINGULAR_CONDITION:
        raise np.linalg.LinAlgError(
            f"neither A (cond {cond_A:.1e}) nor B (cond {cond_B:.1e}) is invertible"
        )
    if cond_A <= cond_B:
        return np.linalg.solve(A, B), np.linalg.solve(A, c), "y"
    return np.linalg.solve(B, A), -np.linalg.solve(B, c), "x"


def _result(
    A,
    B,
    c,
    x,
    y,
    method,
    iterations,
    message,
    tol,
    *,
    solutions=None,
    continuum=False,
    infeasible=False,
    polish=True,
) -> HLCPResult:
    if polish:
        x, y = polish_hlcp(A, B, c, x, y)
    residual = hlcp_residual(A, B, c, x, y)
    success = residual <= tol
    if not success and not infeasible and "exceeds" not in message:
        message += f" (residual {residual:.2e} exceeds tol = {tol:.1e})"
    return HLCPResult(
        x=x,
        y=y,
        success=success,
        method=method,
        iterations=iterations,
        residual=residual,
        message=message,
        solutions=solutions,
        continuum=continuum,
        infeasible=infeasible and not success,
    )


def _enumerate(A, B, c, all_solutions, tol, max_size) -> HLCPResult:
    n = A.shape[0]
    if n > max_size:
        raise ValueError(
            f"A: method 'enumerate' examines 2^n complementary bases; n = {n} exceeds "
            f"max_size = {max_size} (pass max_size=... to force it)"
        )
    outcome = enumerate_complementary_bases(A, -B, c, all_solutions=all_solutions, accept_tol=tol)
    note = f"{outcome.bases} complementary bases examined"
    if outcome.singular:
        note += f" ({outcome.singular} singular, resolved by linear programming)"
    pairs = list(zip(outcome.first, outcome.second, strict=True))
    if not pairs:
        zero = np.zeros(n)
        return _result(
            A,
            B,
            c,
            zero,
            zero,
            "enumerate",
            outcome.bases,
            f"no solution: the HLCP is infeasible ({note})",
            tol,
            solutions=[] if all_solutions else None,
            infeasible=True,
            polish=False,
        )
    if all_solutions:
        message = f"{len(pairs)} distinct solution{'s' if len(pairs) > 1 else ''} found ({note})"
        if outcome.continuum:
            message += "; the solution set contains a continuum (segment)"
    else:
        message = f"solution found ({note})"
    return _result(
        A,
        B,
        c,
        *pairs[0],
        "enumerate",
        outcome.bases,
        message,
        tol,
        solutions=pairs if all_solutions else None,
        continuum=outcome.continuum,
        polish=False,
    )


def _reduce(A, B, c, lcp_method, tol, options) -> HLCPResult:
    from .solve import solve_lcp

    n = A.shape[0]
    try:
        M, q, z_is = hlcp_to_lcp(A, B, c)
    except np.linalg.LinAlgError as exc:
        zero = np.zeros(n)
        return _result(
            A,
            B,
            c,
            zero,
            zero,
            lcp_method,
            0,
            f"reduction to an LCP impossible: {exc}; use method='enumerate'",
            tol,
            polish=False,
        )
    lcp = solve_lcp(M, q, method=lcp_method, tol=tol, **options)
    x, y = (lcp.w, lcp.z) if z_is == "y" else (lcp.z, lcp.w)
    x, y = np.maximum(x, 0.0), np.maximum(y, 0.0)
    inverted = "A" if z_is == "y" else "B"
    return _result(
        A,
        B,
        c,
        x,
        y,
        lcp.method,
        lcp.iterations,
        f"LCP reduction (inverted {inverted}): {lcp.message}",
        tol,
        infeasible=lcp.infeasible,
    )


def solve_hlcp(
    A,
    B,
    c,
    method: str = "auto",
    all_solutions: bool = False,
    *,
    tol: float = 1e-10,
    max_size: int = ENUMERATION_MAX_SIZE,
    **options,
) -> HLCPResult:
    """Solve the horizontal LCP ``A x - B y = c``, ``x >= 0``, ``y >= 0``, ``x^T y = 0``.

    Parameters
    ----------
    A, B : array_like, shape (n, n)
    c : array_like, shape (n,)
    method : {"auto", "enumerate", "lemke", "pgs", "osqp", "cvxpy"}
        See the module docstring; LCP methods run on the reduced LCP.
    all_solutions : bool
        Enumerate every basis and list all distinct solutions ``(x, y)`` in ``solutions``
        (needs ``method`` "auto" or "enumerate").
    tol : float
        ``success`` iff :func:`~nonsmooth.lcp.hlcp_residual` (relative to the scale of
        ``A``, ``B`` and ``c``) ``<= tol`` and double precision can represent the answer.
    max_size : int
        Largest ``n`` for enumeration.
    **options
        Passed to :func:`~nonsmooth.lcp.solve_lcp` for the reduced LCP.

    Returns
    -------
    HLCPResult
        Never raises for "no solution" (``success=False``, ``infeasible`` when proven). A
        problem too badly scaled for double precision gets ``success=False`` and a message
        saying so and what to try.

    Raises
    ------
    ValueError
        Bad input (shapes, non-finite values, unknown method).
    """
    A = as_square_matrix(A, "A")
    n = A.shape[0]
    B = as_square_matrix(B, "B", n)
    c = as_vector(c, "c", n)
    if method not in HLCP_METHODS:
        raise ValueError(f"method must be one of {list(HLCP_METHODS)}; got {method!r}")
    if all_solutions and method not in ("auto", "enumerate"):
        raise ValueError(f"all_solutions=True needs method='enumerate' (or 'auto'); got {method!r}")
    scaling = HLCPScaling.of(A, B, c)
    result = _solve_normalised(
        *scaling.normalise(A, B, c), method, all_solutions, tol, max_size, options
    )
    return scaling.restore(result, A, B, c, tol)


def _solve_normalised(A, B, c, method, all_solutions, tol, max_size, options) -> HLCPResult:
    """:func:`solve_hlcp` on the normalised problem."""
    n = A.shape[0]
    if method == "enumerate" or (
        method == "auto" and (all_solutions or n <= AUTO_HLCP_ENUMERATION_MAX_SIZE)
    ):
        return _enumerate(A, B, c, all_solutions, tol, max_size)
    if method != "auto":
        return _reduce(A, B, c, method, tol, options)
    result = _reduce(A, B, c, "auto", tol, options)
    if result.success or result.infeasible or n > max_size:
        return result
    fallback = _enumerate(A, B, c, False, tol, max_size)
    fallback.message = f"{fallback.message}; after LCP reduction failed: {result.message}"
    return fallback
