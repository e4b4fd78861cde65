"""Small dense linear algebra for the compiled stage, by loops: a BLAS or LAPACK call costs
more than it computes on the engine's systems (tens of unknowns), and these run without numba's
runtime (``_nrt=False``: no reference counts) where they allocate nothing.

* :func:`_lu_solve`: Gaussian elimination with partial pivoting (LAPACK's ``dgesv``; Golub &
  Van Loan, *Matrix Computations*, 4th ed., 2013, algorithm 3.4.1) for the KKT systems up to
  ``kernels.SMALL_LU`` rows;
* :func:`_schur_solve`: the KKT system of a large model with a diagonal mass matrix through
  its Delassus matrix ``D = C M^-1 C^T`` (the Schur complement), formed over the rows that touch
  each coordinate;
* :func:`_block_schur`: the same Schur complement without numba's runtime, for a mass matrix
  that is block diagonal in 3 x 3 blocks (a spatial body's ``m I`` and ``J``; a planar
  body's ``(m, m, J)``): the blocks inverted by their adjugates, ``D`` and its solve by the
  in-kernel Cholesky, in a caller's scratch (:func:`_schur_size`), with a pivot test for rows
  that may depend on the others (sticking contacts, :data:`ROW_PIVOT_TOL`);
* :func:`_rows_independent`: whether the constraint and stick rows below ``M`` are
  independent with a margin (rank-revealing: the QR factorization of ``C^T`` with column
  pivoting), the kernels' decision where stick rows may depend on each other;
* :func:`_dot`, :func:`_all_finite`, :func:`_is_diagonal`, :func:`_is_block3`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["_dot", "_pivot", "_lu_solve", "_independent_lu", "_is_diagonal", "_schur_solve",
           "_is_block3", "_block_schur", "_schur_size", "_touching_size",
           "_rows_touching", "_all_finite", "_rows_independent", "RANK_TOL",
           "ROW_PIVOT_TOL"]


@njit(cache=True, _nrt=False)
def _dot(a, b):
    """``a . b`` of two short vectors by a loop (a BLAS call costs more than it computes)."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@njit(cache=True, _nrt=False, inline="always")
def _pivot(K, R, col):
    """Partial pivoting for column ``col``: swap the row of the largest entry into place.
    Returns False for a zero (or NaN) pivot."""
    size = K.shape[0]
    piv = col
    best = abs(K[col, col])
    for r in range(col + 1, size):
        if abs(K[r, col]) > best:
            best = abs(K[r, col])
            piv = r
    if not best > 0.0:  # zero, or NaN
        return False
    if piv != col:
        for j in range(size):
            K[col, j], K[piv, j] = K[piv, j], K[col, j]
        for j in range(R.shape[1]):
            R[col, j], R[piv, j] = R[piv, j], R[col, j]
    return True


@njit(cache=True, _nrt=False, inline="always")
def _lu_with(K, R, tol):
    """Gaussian elimination with partial pivoting of ``K X = R`` in place (``R`` becomes
    ``X``), refusing a pivot whose magnitude is not above ``tol`` (0: only an exactly zero or
    non-finite one). Returns False for a refused pivot."""
    size = K.shape[0]
    nr = R.shape[1]
    for col in range(size):
        if not _pivot(K, R, col) or not abs(K[col, col]) > tol:
            return False
        d = K[col, col]
        for r in range(col + 1, size):
            f = K[r, col] / d
            if f != 0.0:
                for j in range(col + 1, size):
                    K[r, j] -= f * K[col, j]
                for j in range(nr):
                    R[r, j] -= f * R[col, j]
    for col in range(size - 1, -1, -1):
        d = K[col, col]
        for j in range(nr):
            acc = R[col, j]
            for c in range(col + 1, size):
                acc -= K[col, c] * R[c, j]
            R[col, j] = acc / d
    return True


@njit(cache=True, _nrt=False)
def _independent_lu(K, R):
    """:func:`_lu_solve` that also refuses a pivot at or below ``1e-9`` times the largest
    entry of ``K`` (rows that depend on each other to round-off: two sticking contacts on one
    rigid body), so that no such solve returns numbers. Returns False then (``K``, ``R``
    overwritten: the caller solves again by another method)."""
    size = K.shape[0]
    scale = 0.0
    for a in range(size):
        for b in range(size):
            scale = max(scale, abs(K[a, b]))
    return _lu_with(K, R, 1e-9 * scale)


@njit(cache=True, _nrt=False)
def _lu_solve(K, R):
    """Solve ``K X = R`` in place (``R`` becomes ``X``; ``K`` is overwritten) by Gaussian
    elimination with partial pivoting, as LAPACK's dgesv does. Returns False for an exactly
    zero pivot (a singular matrix) or a non-finite one (NaN input), True otherwise."""
    return _lu_with(K, R, 0.0)


@njit(cache=True)
def _is_diagonal(M):
    n = M.shape[0]
    for a in range(n):
        for b in range(n):
            if a != b and M[a, b] != 0.0:
                return False
    return True


@njit(cache=True)
def _schur_solve(M, K, R, n):
    """``K X = R`` for ``K = [[M, -C^T], [C, 0]]`` with a diagonal ``M`` (a large planar
    model): through the Delassus matrix ``D = C M^-1 C^T`` (``lambda = D^-1 (r2 - C M^-1 r1)``,
    ``dv = M^-1 (r1 + C^T lambda)``). ``C`` is sparse (a row touches the coordinates of two
    bodies): ``D``, the right-hand side and ``dv`` are formed coordinate by coordinate over the
    rows that touch it, and only ``D``'s solve is dense (LAPACK). Raises LinAlgError (from the
    solve) when ``D`` is singular: redundant constraints."""
    mr = K.shape[0] - n
    ncol = R.shape[1]
    D = np.zeros((mr, mr))
    rhs = R[n:].copy()
    touching = np.empty(mr, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    for b in range(n):
        cnt = _rows_touching(K, n, b, touching)
        counts[b] = cnt
        mb = 1.0 / M[b, b]
        for a in range(cnt):
            ra = touching[a]
            ca = K[n + ra, b] * mb
            for c in range(cnt):
                D[ra, touching[c]] += ca * K[n + touching[c], b]
            for j in range(ncol):
                rhs[ra, j] -= ca * R[b, j]
    lam = np.linalg.solve(D, rhs)
    X = np.empty_like(R)
    X[n:] = lam
    for b in range(n):
        mb = 1.0 / M[b, b]
        for j in range(ncol):
            X[b, j] = R[b, j]
        if counts[b]:
            cnt = _rows_touching(K, n, b, touching)
            for a in range(cnt):
                ca = K[n + touching[a], b]
                for j in range(ncol):
                    X[b, j] += ca * lam[touching[a], j]
        for j in range(ncol):
            X[b, j] *= mb
    return X


@njit(cache=True, _nrt=False, inline="always")
def _is_block3(M):
    """Whether ``M`` (n, n) is block diagonal in 3 x 3 blocks (``n`` a multiple of 3; every
    entry outside the blocks exactly zero)."""
    n = M.shape[0]
    if n % 3 != 0:
        return False
    for a in range(n):
        block = a // 3
        for b in range(n):
            if b // 3 != block and M[a, b] != 0.0:
                return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def _schur_size(n, size, ncol):
    """Floats of :func:`_block_schur`'s scratch for ``K`` (size, size) with ``n`` velocity
    rows and ``R`` (size, ncol): the inverted blocks ``3 n``, ``Y = M^-1 C^T`` (n, m),
    ``D`` (m, m) and ``Z = M^-1 r1`` (n, ncol), ``m = size - n``."""
    mr = size - n
    return 3 * n + n * mr + mr * mr + n * ncol


@njit(cache=True, _nrt=False, inline="always")
def _touching_size(n, size):
    """Integers of :func:`_block_schur`'s index scratch: the rows touching each 3-block of
    columns and their counts, ``(n / 3) (size - n + 1)``."""
    return (n // 3) * (size - n + 1)


@njit(cache=True, _nrt=False, inline="always")
def _invert_blocks(K, n, Bi):
    """The inverses of the 3 x 3 diagonal blocks of ``K[:n, :n]`` by their adjugates, row
    ``a`` of ``Bi`` (n, 3) the row ``a % 3`` of its block's. False for a block that is not
    positive definite (or NaN)."""
    for b0 in range(0, n, 3):
        a00, a01, a02 = K[b0, b0], K[b0, b0 + 1], K[b0, b0 + 2]
        a10, a11, a12 = K[b0 + 1, b0], K[b0 + 1, b0 + 1], K[b0 + 1, b0 + 2]
        a20, a21, a22 = K[b0 + 2, b0], K[b0 + 2, b0 + 1], K[b0 + 2, b0 + 2]
        c00, c01, c02 = a11 * a22 - a12 * a21, a02 * a21 - a01 * a22, a01 * a12 - a02 * a11
        det = a00 * c00 + a10 * c01 + a20 * c02
        if not det > 0.0:  # not positive definite, or NaN
            return False
        inv = 1.0 / det
        Bi[b0, 0], Bi[b0, 1], Bi[b0, 2] = c00 * inv, c01 * inv, c02 * inv
        Bi[b0 + 1, 0] = (a12 * a20 - a10 * a22) * inv
        Bi[b0 + 1, 1] = (a00 * a22 - a02 * a20) * inv
        Bi[b0 + 1, 2] = (a02 * a10 - a00 * a12) * inv
        Bi[b0 + 2, 0] = (a10 * a21 - a11 * a20) * inv
        Bi[b0 + 2, 1] = (a01 * a20 - a00 * a21) * inv
        Bi[b0 + 2, 2] = (a00 * a11 - a01 * a10) * inv
    return True


@njit(cache=True, _nrt=False, inline="always")
def _touching(K, n, T):
    """The rows of ``C = K[n:, :n]`` touching each 3-block of columns: block ``b``'s in
    ``T[b, 1:1 + count]``, ``count`` in ``T[b, 0]`` (``T`` (n / 3, m + 1) int64)."""
    mr = K.shape[0] - n
    for b in range(n // 3):
        c = 0
        for r in range(mr):
            if K[n + r, 3 * b] != 0.0 or K[n + r, 3 * b + 1] != 0.0 or K[n + r, 3 * b + 2] != 0.0:
                c += 1
                T[b, c] = r
        T[b, 0] = c


@njit(cache=True, _nrt=False, inline="always")
def _delassus_block(K, R, n, b, Bi, Y, Z, D, T):
    """Block ``b``'s part of the Delassus matrix and right-hand side: ``Y`` and ``Z`` on its
    rows (``M_b^-1 C_b^T``, ``M_b^-1 r1_b``), ``D[r, s] += C_rb Y_bs`` (``r <= s``, the rows
    in increasing order) and ``r2_r -= C_rb Z_b`` over the rows touching it."""
    cnt = T[b, 0]
    b0 = 3 * b
    for i in range(3):
        a = b0 + i
        i0, i1, i2 = Bi[a, 0], Bi[a, 1], Bi[a, 2]
        for jj in range(1, cnt + 1):
            r = T[b, jj]
            Y[a, r] = i0 * K[n + r, b0] + i1 * K[n + r, b0 + 1] + i2 * K[n + r, b0 + 2]
        for j in range(R.shape[1]):
            Z[a, j] = i0 * R[b0, j] + i1 * R[b0 + 1, j] + i2 * R[b0 + 2, j]
    for j1 in range(1, cnt + 1):
        r = T[b, j1]
        c0, c1, c2 = K[n + r, b0], K[n + r, b0 + 1], K[n + r, b0 + 2]
        for j2 in range(j1, cnt + 1):
            s = T[b, j2]
            D[r, s] += c0 * Y[b0, s] + c1 * Y[b0 + 1, s] + c2 * Y[b0 + 2, s]
        for j in range(R.shape[1]):
            R[n + r, j] -= c0 * Z[b0, j] + c1 * Z[b0 + 1, j] + c2 * Z[b0 + 2, j]


@njit(cache=True, _nrt=False, inline="always")
def _cholesky_solve(D, X, rel_tol, first, row_tol):
    """``D X = B`` in place (``X`` holds ``B``, becomes the solution) for a symmetric
    positive definite ``D`` given by its upper triangle, by Cholesky ``D = U^T U`` (``U``
    over ``D``'s upper triangle; the outer-product form, whose inner loops run along rows).
    Each step works up to the last nonzero of its row (``hi``: the envelope, which a banded
    ``D`` keeps, as a chain's is), so only products with exact zeros are left out. False for
    a pivot at or below ``rel_tol`` times the largest diagonal entry (``D`` singular to
    round-off: dependent rows), or not finite; and for a row ``k >= first`` whose pivot is at
    or below ``row_tol`` times its own diagonal entry (for ``D = C M^-1 C^T``: the squared
    sine of the angle between row ``k`` of ``C`` and the span of the rows before it, in the
    metric of ``M^-1``; the entries are kept in ``D``'s lower triangle, which is not read)."""
    m = D.shape[0]
    scale = 0.0
    for i in range(m):
        scale = max(scale, D[i, i])
    tol = rel_tol * scale
    for k in range(max(first, 1), m):
        D[k, k - 1] = D[k, k]
    for k in range(m):
        d = D[k, k]
        if not d > tol:
            return False
        if k >= first and not d > row_tol * (D[k, k - 1] if k > 0 else d):
            return False
        d = math.sqrt(d)
        D[k, k] = d
        inv = 1.0 / d
        hi = m - 1
        while hi > k and D[k, hi] == 0.0:
            hi -= 1
        for j in range(k + 1, hi + 1):
            D[k, j] *= inv
        for i in range(k + 1, hi + 1):
            f = D[k, i]
            if f != 0.0:
                for j in range(i, hi + 1):
                    D[i, j] -= f * D[k, j]
    _triangular_solves(D, X)
    return True


@njit(cache=True, _nrt=False, inline="always")
def _triangular_solves(U, X):
    """``U^T U X = B`` in place (``X`` holds ``B``) for ``U`` upper triangular (its upper
    triangle read): ``U^T y = b`` by the rows of ``U``, then ``U x = y``."""
    m = U.shape[0]
    for c in range(X.shape[1]):
        for k in range(m):
            x = X[k, c] / U[k, k]
            X[k, c] = x
            for i in range(k + 1, m):
                X[i, c] -= U[k, i] * x
        for i in range(m - 1, -1, -1):
            acc = X[i, c]
            for k in range(i + 1, m):
                acc -= U[i, k] * X[k, c]
            X[i, c] = acc / U[i, i]


#: Pivots of the Delassus matrix at or below this fraction of its largest diagonal entry are
#: refused (:func:`_block_schur`): the constraint rows depend on each other.
DELASSUS_TOL = 1e-13

#: The Delassus solve accepts a row that may depend on the others (a sticking contact's) where
#: its pivot exceeds this fraction of its diagonal entry: the row's part outside the span of
#: the rows before it at least ``1e-4`` of its size in the metric of ``M^-1``
#: (:func:`_cholesky_solve`), a test that costs nothing beside the factorization, where a
#: rank test of ``C`` (:func:`_rows_independent`) costs ``O(m^2 n)``.
ROW_PIVOT_TOL = 1e-8


@njit(cache=True, _nrt=False)  # a call, not inlined: the stage of a small system stays small
def _block_schur(K, R, n, scratch, T, first):
    """Solve ``K X = R`` in place (``R`` becomes ``X``) for ``K = [[M, -C^T], [C, 0]]`` with
    ``M = K[:n, :n]`` block diagonal in 3 x 3 symmetric positive definite blocks
    (:func:`_is_block3`; only ``K[:, :n]`` is read), through the Delassus matrix ``D = C M^-1
    C^T`` (symmetric positive definite for independent rows): ``D lambda = r2 - C M^-1 r1``,
    ``dv = M^-1 (r1 + C^T lambda)`` (as :func:`_schur_solve`), without numba's runtime in
    ``scratch`` (:func:`_schur_size` floats) and ``T`` (:func:`_touching_size` int64). ``D`` is
    formed block by block over the rows that touch each block (a joint's rows touch two
    bodies) and solved by Cholesky: work ``O(m^3 / 6)`` and the blocks' ``O(rows^2)``, against
    ``(n + m)^3 / 3`` for the LU of ``K``. Returns False for a block that is not positive
    definite or a Delassus pivot at or below :data:`DELASSUS_TOL` of its largest diagonal
    entry (redundant constraints: the caller takes a path that names them), or, for the rows
    of ``C`` from ``first`` on (rows that may depend on the others: sticking contacts), a
    pivot at or below :data:`ROW_PIVOT_TOL` of the row's diagonal entry (the row's part
    outside the span of the rows before it below ``1e-4`` of its size, in the metric of
    ``M^-1``: :func:`_cholesky_solve`)."""
    size = K.shape[0]
    mr = size - n
    ncol = R.shape[1]
    Bi = scratch[:3 * n].reshape(n, 3)  # row a: the inverse block's row a % 3
    o = 3 * n
    Y = scratch[o:o + n * mr].reshape(n, mr)
    o += n * mr
    D = scratch[o:o + mr * mr].reshape(mr, mr)
    o += mr * mr
    Z = scratch[o:o + n * ncol].reshape(n, ncol)
    Tb = T[:_touching_size(n, size)].reshape(n // 3, mr + 1)
    if not _invert_blocks(K, n, Bi):
        return False
    _touching(K, n, Tb)
    for r in range(mr):
        for c in range(r, mr):  # the upper triangle (all that is read)
            D[r, c] = 0.0
    for b in range(n // 3):
        _delassus_block(K, R, n, b, Bi, Y, Z, D, Tb)
    if not _cholesky_solve(D, R[n:], DELASSUS_TOL, first, ROW_PIVOT_TOL):
        return False
    for b in range(n // 3):  # dv = Z + Y lambda over the rows touching each block
        cnt = Tb[b, 0]
        for a in range(3 * b, 3 * b + 3):
            for j in range(ncol):
                acc = Z[a, j]
                for jj in range(1, cnt + 1):
                    r = Tb[b, jj]
                    acc += Y[a, r] * R[n + r, j]
                R[a, j] = acc
    return True


@njit(cache=True, _nrt=False)
def _rows_touching(K, n, b, touching):
    """The rows ``r`` of ``C = K[n:, :n]`` with ``C[r, b] != 0`` into ``touching``; returns
    their number."""
    cnt = 0
    for r in range(K.shape[0] - n):
        if K[n + r, b] != 0.0:
            touching[cnt] = r
            cnt += 1
    return cnt


@njit(cache=True, _nrt=False, inline="always")
def _all_finite(U):
    for e in range(U.shape[0]):
        for j in range(U.shape[1]):
            if not np.isfinite(U[e, j]):
                return False
    return True


#: :func:`_rows_independent` accepts rows whose pivoted Gram-Schmidt norms all exceed this
#: fraction of ``max(1, the largest row norm)``: 100 times the Python stage's test (a singular
#: value of ``[G; W_stick]`` at or below ``1e-9 max(1, s_max)``, ``numpy.linalg.svd``), so
#: that every system the kernels solve the Python stage solves by its LU as well; between the
#: two, and for dependent rows, the kernels decline and the Python stage decides (least squares
#: or the named error).
RANK_TOL = 1e-7


@njit(cache=True, _nrt=False, inline="always")
def _pivot_row(Q, k, lo, hi):
    """Swap the remaining row (``k`` on) of largest norm into row ``k`` (with its support
    ``[lo, hi)``); returns its norm (NaN for a row with a NaN)."""
    mr = Q.shape[0]
    best, piv = -1.0, k
    for r in range(k, mr):
        acc = 0.0
        for b in range(int(lo[r]), int(hi[r])):
            acc += Q[r, b] * Q[r, b]
        if acc > best or not acc == acc:  # (a NaN row is taken, and refused by the caller)
            best, piv = acc, r
    if piv != k:
        a, b_ = int(min(lo[k], lo[piv])), int(max(hi[k], hi[piv]))
        for b in range(a, b_):
            Q[k, b], Q[piv, b] = Q[piv, b], Q[k, b]
        lo[k], lo[piv] = lo[piv], lo[k]
        hi[k], hi[piv] = hi[piv], hi[k]
    return math.sqrt(best)


@njit(cache=True, _nrt=False, inline="always")
def _orthogonalize(Q, k, lo, hi):
    """The rows after ``k`` made orthogonal to the unit row ``k``, twice ("twice is enough":
    Giraud, Langou & Rozloznik 2005); a row whose support ``[lo, hi)`` does not meet row
    ``k``'s is orthogonal to it already (two contacts on two bodies), and left as it is."""
    mr = Q.shape[0]
    lk, hk = int(lo[k]), int(hi[k])
    for r in range(k + 1, mr):
        a, b_ = max(int(lo[r]), lk), min(int(hi[r]), hk)
        if a >= b_:
            continue
        for _ in range(2):
            d = 0.0
            for b in range(a, b_):
                d += Q[r, b] * Q[k, b]
            for b in range(lk, hk):
                Q[r, b] -= d * Q[k, b]
        lo[r], hi[r] = min(lo[r], lk), max(hi[r], hk)


@njit(cache=True, _nrt=False)
def _rows_independent(K, n, work, tol):
    """Whether the rows of ``C = K[n:, :n]`` (``m`` of them) are linearly independent with a
    margin: modified Gram-Schmidt with row pivoting (the QR factorization of ``C^T`` with
    column pivoting, Businger & Golub 1965; Golub & Van Loan, *Matrix Computations*, 4th ed.,
    2013, section 5.4.2), each remaining row orthogonalized twice against each accepted one.
    The pivots' norms ``|r_kk|`` (decreasing) estimate the singular values of ``C``; True when
    every one exceeds ``tol * max(1, |r_11|)``, False for a smaller one, more rows than
    columns or a non-finite entry. ``work`` (``m n + 2 m``,) scratch: the rows and their
    supports (the columns from the first to the last nonzero entry), over which alone the
    products run (the same numbers: only exact zeros are left out). Work ``O(m^2 n)`` at most,
    ``O(m n)`` for rows on separate bodies."""
    mr = K.shape[0] - n
    if mr > n:
        return False
    Q = work[:mr * n].reshape(mr, n)
    lo, hi = work[mr * n:mr * n + mr], work[mr * n + mr:mr * n + 2 * mr]
    for r in range(mr):
        a, b_ = n, 0
        for b in range(n):
            x = K[n + r, b]
            Q[r, b] = x
            if x != 0.0:  # (a NaN too)
                a = min(a, b)
                b_ = b + 1
        lo[r], hi[r] = (a, b_) if a < b_ else (0, 0)
    first = 1.0
    for k in range(mr):
        norm = _pivot_row(Q, k, lo, hi)
        if k == 0:
            first = max(1.0, norm)
        if not norm > tol * first:  # small, or NaN
            return False
        inv = 1.0 / norm
        for b in range(int(lo[k]), int(hi[k])):
            Q[k, b] *= inv
        _orthogonalize(Q, k, lo, hi)
    return True
