"""The numerical rank of a constraint Jacobian, scaled: :func:`equilibrate` (used by the
redundancy check of a spatial model and by the run's check of a singular configuration,
:mod:`nonsmooth.run.singular`)."""

from __future__ import annotations

import numpy as np

__all__ = ["equilibrate"]


def equilibrate(G: np.ndarray, sweeps: int = 20) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(D_r G D_c, D_r, D_c)``: ``G`` (m, n) with its rows and columns scaled to largest
    entries near 1 (Ruiz's equilibration, *A scaling algorithm to equilibrate both rows and
    columns norms in matrices*, RAL-TR-2001-034: each sweep divides every row and column by
    the square root of its largest entry). The rank is unchanged; the numerical rank no longer
    depends on the rows' units (m, rad) nor on a lever arm of 1e9 m against a pin's
    dimensionless rows. Zero rows and columns stay zero."""
    A = np.array(G, dtype=float)
    dr, dc = np.ones(A.shape[0]), np.ones(A.shape[1])
    for _ in range(sweeps):
        r = np.sqrt(np.max(np.abs(A), axis=1, initial=0.0))
        c = np.sqrt(np.max(np.abs(A), axis=0, initial=0.0))
        r[r == 0.0], c[c == 0.0] = 1.0, 1.0
        if np.all(np.abs(r - 1.0) < 1e-3) and np.all(np.abs(c - 1.0) < 1e-3):
            break
        A /= r[:, None] * c[None, :]
        dr /= r
        dc /= c
    return A, dr, dc
