"""The absolute value equation ``lam = c + A |lam|`` (normal forces with friction).

With ``lam = x - y``, ``|lam| = x + y``, ``x, y >= 0``, ``x^T y = 0`` it is the HLCP

    (I - A) x - (I + A) y = c

(formulation spec, section 4). Equivalently, for each sign pattern ``s in {+1, -1}^n``,
``(I - A diag(s)) lam = c`` with ``s_i lam_i >= 0``; ``lam_i = 0`` is compatible with both
signs, so solutions are deduplicated. Uniqueness for every ``c`` holds when
``rho(|A|) < 1`` (Mangasarian & Meyer 2006; Rohn 2009); for ``n = 1``: ``|a| < 1`` gives the
unique solution, ``|a| > 1`` none or two (self-locking, formulation spec section 8).

Scale: ``A`` is dimensionless and ``lam`` has the units of ``c``, so ``c -> s c`` gives
``lam -> s lam``. The equation is solved for ``c`` normalised exactly by a power of two
(``1 <= max|c| < 2``, :mod:`nonsmooth.lcp.scaling`), ``lam`` mapped back, and the residual
``||lam - c - A |lam|||_2 / ||c||_2`` recomputed from the input: relative to the scale of
``c`` at every scale (``c = 0``: relative to ``max|lam|``). A ``c`` deep in the subnormal
range, or a ``lam`` beyond the range of doubles, gives ``success=False`` and a message
starting "too badly scaled to certify in double precision".
"""

from __future__ import annotations

import functools

import numpy as np

from .enumeration import enumerate_complementary_bases
from .hlcp import solve_hlcp
from .residual import hlcp_residual
from .result import AVEResult
from .scaling import (
    AVE_ADVICE,
    binary_exponent,
    data_precision_issue,
    ldexp,
    norm2,
    range_issue,
)
from .structure import _subset_masks
from .validation import as_square_matrix, as_vector

__all__ = ["solve_ave", "AUTO_AVE_ENUMERATION_MAX_SIZE"]

AUTO_AVE_ENUMERATION_MAX_SIZE = 10
"""Sign patterns are enumerated up to this size; larger problems go through Lemke."""

AVE_FAST_MAX_SIZE = 6
"""Up to this size a batched determinant/solve path runs first (no SVD, no LP)."""

_SINGULAR = 1e-12


def _ave_residual(A: np.ndarray, c: np.ndarray, lam: np.ndarray) -> float:
    """``||lam - c - A |lam|||_2 / ||c||_2`` (the HLCP residual of ``x = lam+, y = lam-``).

    Computed after dividing ``c`` and ``lam`` by ``max|c|`` (by ``max|lam|`` when ``c = 0``),
    so it neither overflows nor underflows; ``inf`` for a non-finite ``lam``.
    """
    lam = np.asarray(lam, dtype=float)
    if not np.all(np.isfinite(lam)):
        return float("inf")
    scale = float(np.max(np.abs(c)))
    norm_c = 1.0
    if scale > 0.0:
        norm_c = norm2(c / scale)
    else:
        scale = float(np.max(np.abs(lam))) or 1.0
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        lam_n = lam / scale
        err = norm2(lam_n - c / scale - A @ np.abs(lam_n))
    return err / norm_c if np.isfinite(err) else float("inf")


def _scalar(a: float, c: float, all_solutions: bool, tol: float, shown: float) -> AVEResult:
    """Closed form for ``n = 1``: ``lam = c/(1-a)`` if >= 0, ``lam = c/(1+a)`` if <= 0.

    ``shown`` is the value of ``c`` in the user's units, for the message.
    """
    roots: list[float] = []
    continuum = False
    if a != 1.0:
        root = c / (1.0 - a)
        if root >= 0.0:
            roots.append(root)
    elif c == 0.0:
        roots.append(0.0)
        continuum = True  # every lam >= 0 solves
    if a != -1.0:
        root = c / (1.0 + a)
        if root <= 0.0 and not (roots and root == roots[0]):
            roots.append(root)
    elif c == 0.0:
        continuum = True  # every lam <= 0 solves
        if not roots:
            roots.append(0.0)
    if not roots:
        kind = "a >= 1 and c > 0" if c > 0 else "a <= -1 and c < 0"
        zero = np.zeros(1)
        return AVEResult(
            x=zero,
            y=zero,
            success=False,
            method="closed form",
            iterations=0,
            residual=1.0 if c != 0.0 else 0.0,
            message=f"no solution: lam = c + a|lam| with a = {a:g}, c = {shown:g} ({kind})",
            solutions=[] if all_solutions else None,
            infeasible=True,
            lam=zero,
        )
    lam = np.array([roots[0]])
    residual = _ave_residual(np.array([[a]]), np.array([c]), lam)
    count = len(roots)
    if count == 1 and not continuum:
        message = "unique solution" if abs(a) < 1.0 else "one solution"
    else:
        message = f"{count} solutions" + (" and a continuum" if continuum else "")
    return AVEResult(
        x=np.maximum(lam, 0.0),
        y=np.maximum(-lam, 0.0),
        success=residual <= tol,
        method="closed form",
        iterations=1,
        residual=residual,
        message=message,
        solutions=[np.array([r]) for r in roots] if all_solutions else None,
        continuum=continuum,
        lam=lam,
    )


@functools.lru_cache(maxsize=8)
def _sign_patterns(n: int) -> np.ndarray:
    """All ``s in {+1, -1}^n``, fewest ``-1`` first. Shape (2**n, n), read-only."""
    patterns = np.where(_subset_masks(n), -1.0, 1.0)
    patterns.flags.writeable = False
    return patterns


def _fast_patterns(A: np.ndarray, c: np.ndarray, all_solutions: bool, tol: float):
    """Batched sign-pattern solve for small ``n``; None if some pattern is near singular.

    Returns
    -------
    (lams, patterns_examined) or None
    """
    n = A.shape[0]
    signs = _sign_patterns(n)
    matrices = np.eye(n)[None] - A[None] * signs[:, None, :]  # I - A diag(s)
    determinants = np.linalg.det(matrices)
    hadamard = np.prod(np.sqrt(np.einsum("kij,kij->kj", matrices, matrices)), axis=1)
    if np.any(np.abs(determinants) <= _SINGULAR * hadamard):
        return None
    lams = np.linalg.solve(matrices, np.broadcast_to(c, (len(signs), n))[..., None])[..., 0]
    scale = np.max(np.abs(lams), axis=1, keepdims=True)
    feasible = np.flatnonzero(np.all(signs * lams >= -1e-9 * scale, axis=1))
    found: list[np.ndarray] = []
    for k in feasible:
        lam = lams[k]
        if _ave_residual(A, c, lam) > tol:
            continue
        if all(
            np.max(np.abs(lam - other)) > 1e-8 * max(float(np.max(np.abs(other))), 1e-300)
            for other in found
        ):
            found.append(lam.copy())
        if not all_solutions:
            break
    return found, len(signs)


def _from_lams(A, c, lams, examined, all_solutions, continuum, tol) -> AVEResult:
    """AVEResult from the distinct solutions found by sign-pattern enumeration."""
    if not lams:
        zero = np.zeros(A.shape[0])
        return AVEResult(
            x=zero,
            y=zero,
            success=False,
            method="enumerate",
            iterations=examined,
            residual=_ave_residual(A, c, zero),
            message=f"no solution: all {examined} sign patterns examined",
            solutions=[] if all_solutions else None,
            infeasible=True,
            lam=zero,
        )
    lam = lams[0]
    residual = _ave_residual(A, c, lam)
    if all_solutions:
        message = f"{len(lams)} distinct solution{'s' if len(lams) > 1 else ''}"
        if continuum:
            message += " and a continuum"
    else:
        message = "solution found"
    message += f" ({examined} sign patterns examined)"
    return AVEResult(
        x=np.maximum(lam, 0.0),
        y=np.maximum(-lam, 0.0),
        success=residual <= tol,
        method="enumerate",
        iterations=examined,
        residual=residual,
        message=message,
        solutions=list(lams) if all_solutions else None,
        continuum=continuum,
        lam=lam,
    )


def solve_ave(
    A,
    c,
    all_solutions: bool = False,
    *,
    method: str = "auto",
    tol: float = 1e-10,
) -> AVEResult:
    """Solve the absolute value equation ``lam = c + A |lam|``.

    Parameters
    ----------
    A : array_like, shape (n, n)
    c : array_like, shape (n,)
    all_solutions : bool
        List every distinct solution ``lam`` in ``solutions`` (their number is the
        multiplicity: 0 inconsistent, 1 unique, >1 indeterminate; ``continuum`` flags a
        segment of solutions).
    method : {"auto", "enumerate", "lemke", ...}
        ``auto``: closed form for ``n = 1``, sign-pattern enumeration for ``n <= 10``
        (batched determinants and solves for ``n <= 6``, falling back on the exact
        complementary-basis enumeration when a pattern matrix is near singular),
        else :func:`~nonsmooth.lcp.solve_hlcp` with its ``auto``. Other names are passed to
        :func:`~nonsmooth.lcp.solve_hlcp`.
    tol : float
        ``success`` iff the residual ``||lam - c - A|lam|||_2 / ||c||_2 <= tol`` (relative
        to the scale of ``c``) and double precision can represent the answer.

    Returns
    -------
    AVEResult
        ``lam`` (the solution, or the best point), ``x = max(lam, 0)``, ``y = max(-lam, 0)``,
        and with ``all_solutions`` the list of distinct ``lam`` in ``solutions``. A problem
        too badly scaled for double precision gets ``success=False`` (``solutions`` still
        lists what was found) and a message saying so and what to try.

    Examples
    --------
    >>> solve_ave([[0.5]], [1.0]).lam
    array([2.])
    >>> [float(s[0]) for s in solve_ave([[2.0]], [-1.0], all_solutions=True).solutions]
    [1.0, -0.3333333333333333]
    """
    A = as_square_matrix(A, "A")
    n = A.shape[0]
    c = as_vector(c, "c", n)
    exponent = binary_exponent(c) or 0
    result, via_hlcp = _solve_normalised(A, c, exponent, all_solutions, method, tol)
    return _restore(result, A, c, exponent, via_hlcp, tol)


def _restore(
    result: AVEResult, A: np.ndarray, c: np.ndarray, exponent: int, via_hlcp: bool, tol: float
) -> AVEResult:
    """``result`` for ``c_n = 2^-exponent c`` expressed for ``c`` (see the module docstring)."""
    lam = ldexp(result.lam, exponent)
    x, y = ldexp(result.x, exponent), ldexp(result.y, exponent)
    solutions = result.solutions
    if solutions is not None:
        solutions = [ldexp(s, exponent) for s in solutions]
    if via_hlcp:
        identity = np.eye(A.shape[0])
        residual = hlcp_residual(identity - A, identity + A, c, x, y)
    else:
        residual = _ave_residual(A, c, lam)
    reason = data_precision_issue({"c": c}, tol, AVE_ADVICE) or range_issue(
        "lam", lam, exponent + (binary_exponent(result.lam) or 0), result.residual, residual,
        tol, "max|c|", AVE_ADVICE,
    )
    success, message = result.success, result.message
    if reason is not None:
        success, message = False, f"{reason} [{message}]"
    return AVEResult(
        x=x,
        y=y,
        success=success,
        method=result.method,
        iterations=result.iterations,
        residual=residual,
        message=message,
        solutions=solutions,
        continuum=result.continuum,
        infeasible=result.infeasible,
        lam=lam,
    )


def _solve_normalised(A, c_original, exponent, all_solutions, method, tol):
    """:func:`solve_ave` for ``c = 2^-exponent c_original``; also whether the HLCP path answered.

    Returns
    -------
    (AVEResult, bool)
    """
    n = A.shape[0]
    c = ldexp(c_original, -exponent)
    if method == "auto" and n == 1:
        result = _scalar(float(A[0, 0]), float(c[0]), all_solutions, tol, float(c_original[0]))
        return result, False
    if method == "auto" and n <= AVE_FAST_MAX_SIZE:
        fast = _fast_patterns(A, c, all_solutions, tol)
        if fast is not None:
            return _from_lams(A, c, fast[0], fast[1], all_solutions, False, tol), False
    identity = np.eye(n)
    if method == "enumerate" or (method == "auto" and n <= AUTO_AVE_ENUMERATION_MAX_SIZE):
        outcome = enumerate_complementary_bases(
            identity - A, -(identity + A), c, all_solutions=all_solutions, accept_tol=tol
        )
        lams = [x - y for x, y in zip(outcome.first, outcome.second, strict=True)]
        result = _from_lams(A, c, lams, outcome.bases, all_solutions, outcome.continuum, tol)
        return result, False
    hlcp = solve_hlcp(
        identity - A, identity + A, c, method=method, all_solutions=all_solutions, tol=tol
    )
    lam = hlcp.x - hlcp.y
    result = AVEResult(
        x=hlcp.x,
        y=hlcp.y,
        success=hlcp.success,
        method=hlcp.method,
        iterations=hlcp.iterations,
        residual=hlcp.residual,
        message=hlcp.message,
        solutions=None if hlcp.solutions is None else [x - y for x, y in hlcp.solutions],
        continuum=hlcp.continuum,
        infeasible=hlcp.infeasible,
        lam=lam,
    )
    return result, True
