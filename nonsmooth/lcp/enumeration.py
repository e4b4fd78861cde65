"""Complementary-basis (principal-pivot) enumeration: exact, every solution, small n only.

A complementarity problem in "pair" form asks for ``a, b >= 0`` with ``a_i b_i = 0`` and

    P a + Q b = r,                                   P, Q of shape (n, n).

The LCP ``w = M z + q`` is ``P = I, Q = -M, r = q`` with ``(a, b) = (w, z)``; the HLCP
``A x - B y = c`` is ``P = A, Q = -B, r = c`` with ``(a, b) = (x, y)``. A complementary basis
chooses, for each ``i``, either column ``P[:, i]`` (``a_i`` basic, ``b_i = 0``) or ``Q[:, i]``
(``b_i`` basic, ``a_i = 0``): ``C u = r``. Every solution lies in one of the ``2^n`` polyhedra
``{u >= 0 : C u = r}``, so examining all of them is exact:

* nonsingular ``C``: one candidate ``u = C^{-1} r`` (batched LU), kept if ``u >= 0``;
* singular ``C``: the polyhedron may be empty, a point, or contain a segment; a linear program
  (HiGHS) finds a point, and a second small test decides whether it contains a segment
  (then the solution set is a continuum, reported by the ``continuum`` flag).

This is the "ENUM" solver of Siconos and Murty (1988), ch. 1; cost ``O(2^n n^3)``.

Scale: the singularity, feasibility and acceptance tests are relative, but they compare the
columns of ``P`` and ``Q``, so ``P``, ``Q`` and ``r`` should be of comparable size:
:func:`solve_enumerate` (and the HLCP and AVE solvers) pass the exactly normalised problem
(:mod:`nonsmooth.lcp.scaling`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .result import LCPResult
from .scaling import LCPScaling
from .structure import _subset_masks
from .validation import as_square_matrix, as_vector

__all__ = ["enumerate_complementary_bases", "solve_enumerate", "ENUMERATION_MAX_SIZE"]

ENUMERATION_MAX_SIZE = 16
"""Default largest ``n`` accepted by enumeration (``2^16`` bases take a few seconds)."""

_RCOND = 1e-11
_FEASIBILITY = 1e-9


@dataclass
class Enumeration:
    """Raw outcome of :func:`enumerate_complementary_bases`.

    Attributes
    ----------
    first, second : list of ndarray, shape (n,) each
        The distinct solutions ``(a, b)`` found, in order of increasing number of basic
        ``b`` variables.
    continuum : bool
        True when some singular basis holds a segment of solutions.
    bases : int
        Complementary bases examined.
    singular : int
        Singular bases resolved by linear programming.
    complete : bool
        True when all ``2^n`` bases were examined (no solution found => none exists).
    """

    first: list[np.ndarray] = field(default_factory=list)
    second: list[np.ndarray] = field(default_factory=list)
    continuum: bool = False
    bases: int = 0
    singular: int = 0
    complete: bool = False


def _relative_error(C: np.ndarray, u: np.ndarray, r: np.ndarray, norm_r: float) -> float:
    return float(np.linalg.norm(C @ u - r)) / max(norm_r, np.finfo(float).eps)


def _singular_basis(C: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, bool] | None:
    """Point of ``{u >= 0 : C u = r}`` for a singular ``C`` and whether the set has a segment.

    Returns
    -------
    (u, segment) or None when the polyhedron is empty.
    """
    from scipy.optimize import linprog

    n = C.shape[0]
    U, s, Vt = np.linalg.svd(C)
    rank = int(np.sum(s > _RCOND * s[0])) if s[0] > 0 else 0
    norm_r = float(np.linalg.norm(r))
    projected = U[:, :rank] @ (U[:, :rank].T @ r)
    if float(np.linalg.norm(r - projected)) > 1e-9 * max(norm_r, np.finfo(float).tiny):
        return None
    if norm_r == 0.0:
        u = np.zeros(n)
    else:
        lp = linprog(
            np.zeros(n), A_eq=C / norm_r, b_eq=r / norm_r, bounds=(0, None), method="highs"
        )
        if lp.status != 0:
            return None
        u = np.maximum(lp.x, 0.0)
        # Re-solve on the support for full accuracy (the LP point is a vertex).
        support = u > _FEASIBILITY * max(float(np.max(u)), np.finfo(float).tiny)
        if np.any(support):
            u_s = np.linalg.lstsq(C[:, support], r, rcond=None)[0]
            if np.all(u_s >= 0.0):
                u = np.zeros(n)
                u[support] = u_s
    # Segment test: a nonzero d in null(C) with d_i >= 0 wherever u_i = 0.
    null = Vt[rank:].T
    if null.shape[1] == 0:
        return u, False
    at_zero = u <= _FEASIBILITY * max(float(np.max(u)), np.finfo(float).tiny)
    N_zero = null[at_zero]
    if np.linalg.matrix_rank(N_zero, tol=_RCOND) < null.shape[1] if N_zero.size else True:
        return u, True
    lp = linprog(
        np.zeros(null.shape[1]),
        A_ub=-N_zero,
        b_ub=np.zeros(N_zero.shape[0]),
        A_eq=N_zero.sum(axis=0)[None, :],
        b_eq=[1.0],
        bounds=(None, None),
        method="highs",
    )
    return u, lp.status == 0


def _is_new(a: np.ndarray, b: np.ndarray, found_a: list, found_b: list) -> bool:
    for fa, fb in zip(found_a, found_b, strict=True):
        scale = max(
            float(np.max(np.abs(fa))),
            float(np.max(np.abs(fb))),
            float(np.max(np.abs(a))),
            float(np.max(np.abs(b))),
            np.finfo(float).tiny,
        )
        if max(float(np.max(np.abs(fa - a))), float(np.max(np.abs(fb - b)))) <= 1e-8 * scale:
            return False
    return True


def enumerate_complementary_bases(
    P, Q, r, *, all_solutions: bool = True, accept_tol: float = 1e-10
) -> Enumeration:
    """Find solutions of ``P a + Q b = r``, ``0 <= a _|_ b >= 0`` by examining every basis.

    Parameters
    ----------
    P, Q : ndarray, shape (n, n)
        Columns of the first and second variable of each complementary pair.
    r : ndarray, shape (n,)
        Right-hand side.
    all_solutions : bool
        Examine every basis (else stop after the first group of bases yielding a solution).
    accept_tol : float
        A candidate counts when ``||C u - r|| / ||r|| <= accept_tol`` after clipping ``u >= 0``.

    Returns
    -------
    Enumeration
    """
    n = P.shape[0]
    masks = _subset_masks(n)
    norm_r = float(np.linalg.norm(r))
    chunk = max(16, 2**17 // (n * n))
    outcome = Enumeration()
    for start in range(0, len(masks), chunk):
        block = masks[start : start + chunk]
        C = np.where(block[:, None, :], Q[None], P[None])
        outcome.bases += len(block)
        sv = np.linalg.svd(C, compute_uv=False)
        regular = sv[:, -1] > _RCOND * sv[:, 0]
        candidates: list[tuple[int, np.ndarray, bool]] = []
        if np.any(regular):
            index = np.flatnonzero(regular)
            U = np.linalg.solve(C[index], np.broadcast_to(r, (len(index), n))[..., None])[..., 0]
            bound = _FEASIBILITY * np.max(np.abs(U), axis=1, keepdims=True)
            feasible = np.all(U >= -bound, axis=1)
            candidates += [
                (int(k), U[j], False)
                for j, k in zip(np.flatnonzero(feasible), index[feasible], strict=True)
            ]
        for k in np.flatnonzero(~regular):
            outcome.singular += 1
            found = _singular_basis(C[k], r)
            if found is not None:
                candidates.append((int(k), found[0], found[1]))
        for k, u, segment in sorted(candidates, key=lambda item: item[0]):
            u = np.maximum(u, 0.0)
            if _relative_error(C[k], u, r, norm_r) > accept_tol:
                continue
            a = np.where(block[k], 0.0, u)
            b = np.where(block[k], u, 0.0)
            outcome.continuum |= segment
            if _is_new(a, b, outcome.first, outcome.second):
                outcome.first.append(a)
                outcome.second.append(b)
        if outcome.first and not all_solutions:
            return outcome
    outcome.complete = True
    return outcome


def solve_enumerate(
    M,
    q,
    *,
    all_solutions: bool = False,
    max_size: int = ENUMERATION_MAX_SIZE,
    accept_tol: float = 1e-10,
) -> LCPResult:
    """Solve LCP(q, M) by enumerating the ``2^n`` complementary bases.

    Exact: finds a solution whenever one exists (including degenerate and singular cases,
    through linear programming on singular bases), proves infeasibility otherwise, and with
    ``all_solutions=True`` lists every distinct basic solution (the multiplicity).

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    all_solutions : bool
        Examine all bases and fill ``solutions``.
    max_size : int
        Refuse larger problems (``ValueError``): the cost is ``2^n`` small solves.
    accept_tol : float
        Acceptance of a basic candidate (relative equation error after clipping).

    Returns
    -------
    LCPResult
        ``iterations`` counts the bases examined; ``success`` is withdrawn when the problem
        is too badly scaled to certify at ``accept_tol`` (:mod:`nonsmooth.lcp.scaling`).
    """
    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    if n > max_size:
        raise ValueError(
            f"M: method 'enumerate' examines 2^n complementary bases; n = {n} exceeds "
            f"max_size = {max_size} (pass max_size=... to force it)"
        )
    scaling = LCPScaling.of(M, q)
    M_n, q_n = scaling.normalise(M, q)
    outcome = enumerate_complementary_bases(
        np.eye(n), -M_n, q_n, all_solutions=all_solutions, accept_tol=accept_tol
    )
    result = _lcp_result_from_enumeration(M_n, q_n, outcome, all_solutions)
    return scaling.restore(result, M, q, tol=accept_tol)


def _lcp_result_from_enumeration(M, q, outcome: Enumeration, all_solutions: bool) -> LCPResult:

    n = M.shape[0]
    basis_note = f"{outcome.bases} complementary bases examined"
    if outcome.singular:
        basis_note += f" ({outcome.singular} singular, resolved by linear programming)"
    if not outcome.second:
        z = np.zeros(n)
        return LCPResult.from_point(
            M, q, z,
            success=False,
            method="enumerate",
            iterations=outcome.bases,
            message=f"no solution: the LCP is infeasible ({basis_note})",
            solutions=[] if all_solutions else None,
            infeasible=True,
        )
    z = outcome.second[0]
    if all_solutions:
        count = len(outcome.second)
        message = f"{count} distinct solution{'s' if count > 1 else ''} found ({basis_note})"
        if outcome.continuum:
            message += "; the solution set contains a continuum (segment)"
    else:
        message = f"solution found ({basis_note})"
    return LCPResult.from_point(
        M, q, z,
        success=True,
        method="enumerate",
        iterations=outcome.bases,
        message=message,
        solutions=list(outcome.second) if all_solutions else None,
        continuum=outcome.continuum,
    )
