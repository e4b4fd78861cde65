"""Reader of Siconos numerics LCP test files (``lcp_*.dat``).

Format (Siconos ``linearComplementarity_newFromFile`` and ``NM_new_from_file``): a
whitespace-separated token stream ``n``, a NumericsMatrix ``M``, then ``q`` (n values);
anything after the last value is a free comment and ignored. ``M`` starts with its storage
type (0 dense, 1 sparse-block "SBM"; 2, CSparse, is not supported) and its sizes.

* Dense: ``size0 size1`` repeated, then ``size0*size1`` values in **column-major** order
  (each text line of a square matrix is one column of ``M``).
* SBM: ``nbblocks``, block-row and block-column counts, cumulative row and column offsets,
  ``filled1``, ``filled2``, the CSR-like block row pointer and the block column indices,
  then for each stored block its number followed by its values in column-major order.

Reference: Siconos (INRIA, Apache-2.0), ``numerics/src/LCP/LinearComplementarityProblem.c``,
``numerics/src/linalg/NumericsMatrix.c``, ``numerics/src/linalg/SparseBlockMatrix.c``.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["read_siconos_lcp", "read_numerics_matrix"]


class _Tokens:
    """Sequential reader over the whitespace-separated tokens of a file."""

    def __init__(self, text: str, source: str):
        self._tokens = text.split()
        self._pos = 0
        self._source = source

    def _next(self, what: str) -> str:
        if self._pos >= len(self._tokens):
            raise ValueError(f"{self._source}: unexpected end of file while reading {what}")
        token = self._tokens[self._pos]
        self._pos += 1
        return token

    def int(self, what: str) -> int:
        token = self._next(what)
        try:
            return int(token)
        except ValueError:
            raise ValueError(
                f"{self._source}: expected an integer for {what}, got {token!r}"
            ) from None

    def floats(self, count: int, what: str) -> np.ndarray:
        values = [self._next(what) for _ in range(count)]
        try:
            return np.array([float(v) for v in values])
        except ValueError:
            raise ValueError(f"{self._source}: expected {count} numbers for {what}") from None


def read_numerics_matrix(tokens: _Tokens) -> np.ndarray:
    """Read one NumericsMatrix (dense or SBM) from a token stream into a dense array.

    Parameters
    ----------
    tokens : _Tokens
        Token stream positioned at the storage type.

    Returns
    -------
    ndarray, shape (size0, size1)
    """
    storage = tokens.int("the storage type of M")
    size0 = tokens.int("M.size0")
    size1 = tokens.int("M.size1")
    if storage == 0:
        tokens.int("M.size0 (repeated)")
        tokens.int("M.size1 (repeated)")
        values = tokens.floats(size0 * size1, "the dense values of M")
        return values.reshape(size1, size0).T.copy()
    if storage == 1:
        nbblocks = tokens.int("SBM nbblocks")
        blocknumber0 = tokens.int("SBM blocknumber0")
        blocknumber1 = tokens.int("SBM blocknumber1")
        row_ends = [tokens.int("SBM blocksize0") for _ in range(blocknumber0)]
        col_ends = [tokens.int("SBM blocksize1") for _ in range(blocknumber1)]
        filled1 = tokens.int("SBM filled1")
        filled2 = tokens.int("SBM filled2")
        index1 = [tokens.int("SBM index1_data") for _ in range(filled1)]
        index2 = [tokens.int("SBM index2_data") for _ in range(filled2)]
        if filled2 != nbblocks or filled1 != blocknumber0 + 1:
            raise ValueError(f"{tokens._source}: inconsistent SBM header")
        row_starts = [0, *row_ends[:-1]]
        col_starts = [0, *col_ends[:-1]]
        matrix = np.zeros((size0, size1))
        for r in range(blocknumber0):
            for b in range(index1[r], index1[r + 1]):
                number = tokens.int("SBM block number")
                if number != b:
                    raise ValueError(f"{tokens._source}: SBM block {b} labelled {number}")
                c = index2[b]
                nr = row_ends[r] - row_starts[r]
                nc = col_ends[c] - col_starts[c]
                block = tokens.floats(nr * nc, f"SBM block {b}").reshape(nc, nr).T
                matrix[row_starts[r] : row_ends[r], col_starts[c] : col_ends[c]] = block
        return matrix
    raise ValueError(
        f"{tokens._source}: unsupported NumericsMatrix storage type {storage} "
        "(0 dense and 1 sparse-block are supported)"
    )


def read_siconos_lcp(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Read a Siconos LCP test problem ``w = M z + q``.

    Parameters
    ----------
    path : str or path-like
        A ``lcp_*.dat`` file (dense or ``*_block.dat`` sparse-block storage).

    Returns
    -------
    M : ndarray, shape (n, n)
    q : ndarray, shape (n,)

    Examples
    --------
    >>> M, q = read_siconos_lcp("lcp_deudeu.dat")  # doctest: +SKIP
    """
    with open(path, encoding="utf-8", errors="replace") as handle:
        tokens = _Tokens(handle.read(), os.fspath(path))
    n = tokens.int("the problem size n")
    M = read_numerics_matrix(tokens)
    if M.shape != (n, n):
        raise ValueError(f"{os.fspath(path)}: M has shape {M.shape}, expected ({n}, {n})")
    q = tokens.floats(n, "q")
    return M, q
