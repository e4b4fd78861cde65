"""Lemke's complementary pivoting method with lexicographic degeneracy resolution.

Lemke (1965), "Bimatrix equilibrium points and mathematical programming"; Cottle, Pang &
Stone (2009), *The Linear Complementarity Problem*, section 4.4 (Scheme I, covering vector
``d``) and section 4.9 (lexicographic pivoting). The augmented system is

    w - M z - d z0 = q,     w, z, z0 >= 0,     w^T z = 0.

Starting from the almost-complementary basis in which ``z0`` has just entered (at the value
making ``q + d z0 >= 0``), each pivot brings in the complement of the variable that left, the
leaving variable being chosen by the minimum-ratio test. Ties (degeneracy) are broken by the
lexicographic rule applied to the rows of ``[B^{-1} q, B^{-1}]``, which makes every pivot
nondegenerate for the lexicographically perturbed problem and so excludes cycling. The path
ends when ``z0`` leaves (a solution) or when no variable blocks the entering one: a
*secondary ray*. For copositive-plus ``M`` (e.g. positive semidefinite) and P-matrices the
secondary ray proves that the LCP has no solution (CPS Thm 4.4.13); in general it does not.

The final point is recomputed from the final basis by a fresh LU solve with the original
data, so the accumulated tableau round-off does not reach the answer.

Scale: the method runs on the exactly normalised problem (:mod:`nonsmooth.lcp.scaling`,
``1 <= max|M|, max|q| < 2``), so its pivot and tie tolerances are relative to the data and a
problem multiplied by any factor follows the same path. A covering vector is used in the
units of the normalised ``q``; a positive multiple of ``d`` gives the same path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .result import LCPResult
from .scaling import LCPScaling
from .validation import as_square_matrix, as_vector

__all__ = ["solve_lemke", "covering_vector"]

_TIE = 1e-11


def covering_vector(covering, n: int, q: np.ndarray, seed: int = 0) -> np.ndarray:
    """Covering vector ``d > 0`` of Lemke's method.

    Parameters
    ----------
    covering : {"ones", "random", "q"} or array_like, shape (n,)
        ``"ones"``: the standard choice ``d = e``. ``"random"``: uniform in [0.5, 1.5]
        (seeded), a generic choice that avoids structural ties. ``"q"``: ``d_i = |q_i|``
        where ``q_i < 0`` else 1 (one pivot makes all negative ``q_i`` vanish together).
        An array is used as given and must be positive.
    n : int
    q : ndarray, shape (n,)
    seed : int
        Seed of the ``"random"`` choice.

    Returns
    -------
    ndarray, shape (n,)
    """
    if isinstance(covering, str):
        if covering == "ones":
            return np.ones(n)
        if covering == "random":
            return np.random.default_rng(seed).uniform(0.5, 1.5, n)
        if covering == "q":
            return np.where(q < 0.0, -q, 1.0)
        raise ValueError(
            f"covering must be 'ones', 'random', 'q' or a positive vector; got {covering!r}"
        )
    d = as_vector(covering, "covering", n)
    if np.any(d <= 0.0):
        raise ValueError("covering must be a vector of positive entries")
    return d


def _lexicographic_min(
    T: np.ndarray,
    rows: np.ndarray,
    column: np.ndarray,
    lex_columns: np.ndarray,
    magnitude: Callable[[int, np.ndarray], np.ndarray],
) -> int:
    """Row of ``rows`` minimizing ``(T[i, lex_columns]) / column[i]`` lexicographically.

    Two ratios tie when they differ by less than ``1e-11`` times the largest round-off scale
    ``magnitude(k, rows) / column[rows]`` of the candidates (invariant under scaling of the rows
    and of the variables).
    """
    candidates = rows
    for k in lex_columns:
        ratios = T[candidates, k] / column[candidates]
        best = ratios.min()
        slack = _TIE * float(np.max(magnitude(k, candidates) / column[candidates]))
        keep = ratios <= best + slack
        candidates = candidates[keep]
        if len(candidates) == 1:
            break
    return int(candidates[0])


def solve_lemke(
    M,
    q,
    *,
    covering="ones",
    max_iter: int | None = None,
    pivot_tol: float = 1e-12,
    seed: int = 0,
    copositive_plus: bool | None = None,
) -> LCPResult:
    """Solve LCP(q, M) by Lemke's method (Scheme I) with lexicographic anti-cycling.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    covering : {"ones", "random", "q"} or array_like, shape (n,)
        Covering vector ``d`` (see :func:`covering_vector`).
    max_iter : int, optional
        Maximum number of pivots (default ``max(1000, 50 n)``; Lemke's path can be
        exponentially long, Murty 1988 ch. 6).
    pivot_tol : float
        An entry of the entering column blocks only when it exceeds ``pivot_tol`` times its
        round-off scale ``(|B^-1| |a|)_i`` (``a`` the entering column of the data, ``B`` the
        basis): a test invariant under scaling of the rows and of the variables, so badly
        scaled rows still block.
    seed : int
        Seed of ``covering="random"``.
    copositive_plus : bool, optional
        Whether ``M`` is known to be copositive-plus (then a secondary ray is reported as
        proof of infeasibility). Tested with :func:`~nonsmooth.lcp.structure.is_copositive_plus`
        when None.

    Returns
    -------
    LCPResult
        ``iterations`` counts pivots; ``success`` is False on secondary-ray termination, when
        the iteration limit is reached, or when the problem is too badly scaled to certify
        in double precision (:mod:`nonsmooth.lcp.scaling`).
    """
    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    scaling = LCPScaling.of(M, q)
    M_n, q_n = scaling.normalise(M, q)
    d = covering_vector(covering, n, q_n, seed)
    if max_iter is None:
        max_iter = max(1000, 50 * n)
    result = _lemke(M_n, q_n, d, max_iter, pivot_tol, copositive_plus)
    return scaling.restore(result, M, q)


def _lemke(M, q, d, max_iter: int, pivot_tol: float, copositive_plus: bool | None) -> LCPResult:
    """Lemke's method on the normalised problem (see :func:`solve_lemke`)."""
    n = M.shape[0]

    def finish(z, success, iterations, message, infeasible=False):
        return LCPResult.from_point(
            M, q, z,
            success=success,
            method="lemke",
            iterations=iterations,
            message=message,
            infeasible=infeasible,
        )

    if np.all(q >= 0.0):
        return finish(np.zeros(n), True, 0, "q >= 0: z = 0 solves the LCP")

    # Columns: w (0..n-1), z (n..2n-1), z0 (2n), right-hand side (2n+1).
    z0 = 2 * n
    rhs = 2 * n + 1
    data = np.hstack([np.eye(n), -M, -d[:, None], q[:, None]])
    T = data.copy()
    abs_data = np.abs(data)
    basis = np.arange(n)
    lex_columns = np.concatenate([[rhs], np.arange(n)])  # [B^{-1} q, B^{-1}]

    abs_inverse: list[np.ndarray] = []  # |B^-1| of the current basis, computed on demand

    def magnitude(col: int, rows: np.ndarray) -> np.ndarray:
        """Round-off scale ``(|B^-1| |data[:, col]|)[rows]`` of ``T[rows, col]``.

        ``T[:, :n] = B^-1`` (the ``w`` columns started as the identity).
        """
        if not abs_inverse:
            abs_inverse.append(np.abs(T[:, :n]))
        return abs_inverse[0][rows] @ abs_data[:, col]

    def pivot(row: int, col: int) -> None:
        pivot_row = T[row] / T[row, col]
        T[:] -= np.outer(T[:, col], pivot_row)
        T[row] = pivot_row
        basis[row] = col
        abs_inverse.clear()

    # Initial pivot: z0 enters at max_i(-q_i / d_i); ties broken lexicographically.
    all_rows = np.arange(n)
    row = _lexicographic_min(T, all_rows, d, lex_columns, magnitude)
    leaving = int(basis[row])
    pivot(row, z0)
    iterations = 1
    while iterations < max_iter:
        entering = leaving + n if leaving < n else leaving - n  # complement
        column = T[:, entering]
        rows = np.flatnonzero(column > pivot_tol * magnitude(entering, all_rows))
        if rows.size == 0:
            z = _basic_solution(M, q, d, basis, n)
            kind = "z" if entering >= n else "w"
            if copositive_plus is None:
                from .structure import is_copositive_plus

                copositive_plus = is_copositive_plus(M)
            note = (
                "M is copositive-plus, so this proves that the LCP has no solution"
                if copositive_plus
                else "the LCP may have no solution (M is not known to be copositive-plus); "
                "try another covering vector or method='enumerate'"
            )
            return finish(
                z,
                False,
                iterations,
                f"secondary ray: entering variable {kind}_{(entering % n) + 1} is unblocked "
                f"after {iterations} pivot{'s' if iterations > 1 else ''}; {note}",
                infeasible=bool(copositive_plus),
            )
        ratios = T[rows, rhs] / column[rows]
        z0_row = np.flatnonzero(basis[rows] == z0)
        slack = _TIE * float(np.max(magnitude(rhs, rows) / column[rows]))
        if z0_row.size and ratios[z0_row[0]] <= ratios.min() + slack:
            row = int(rows[z0_row[0]])  # z0 can leave: take the solution now
        else:
            row = _lexicographic_min(T, rows, column, lex_columns, magnitude)
        leaving = int(basis[row])
        pivot(row, entering)
        iterations += 1
        if leaving == z0:
            z = _basic_solution(M, q, d, basis, n)
            return finish(z, True, iterations, f"solution found after {iterations} pivots")
    z = _basic_solution(M, q, d, basis, n)
    return finish(
        z, False, iterations, f"iteration limit max_iter = {max_iter} reached without a solution"
    )


def _basic_solution(M, q, d, basis, n) -> np.ndarray:
    """``z`` of the current basis, recomputed from the original data by one LU solve."""
    columns = np.hstack([np.eye(n), -M, -d[:, None]])
    B = columns[:, basis]
    try:
        values = np.linalg.solve(B, q)
    except np.linalg.LinAlgError:
        values = np.linalg.lstsq(B, q, rcond=None)[0]
    z = np.zeros(n)
    is_z = (basis >= n) & (basis < 2 * n)
    z[basis[is_z] - n] = values[is_z]
    return np.maximum(z, 0.0)
