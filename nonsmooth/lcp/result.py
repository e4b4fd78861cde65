"""Result objects returned by the complementarity solvers.

Glossary (Cottle, Pang & Stone, *The Linear Complementarity Problem*, 1992/2009):

* LCP(q, M): find ``z, w`` with ``w = M z + q``, ``0 <= z``, ``0 <= w``, ``z^T w = 0``.
* HLCP(A, B, c): find ``x, y`` with ``A x - B y = c``, ``0 <= x``, ``0 <= y``, ``x^T y = 0``.
* AVE(A, c): find ``lam`` with ``lam = c + A |lam|``.

Every ``residual`` is relative to the scale of the data (:mod:`nonsmooth.lcp.scaling`): a
problem and its multiple by any factor get the same verdict, and a problem that double
precision cannot certify says so (``success=False``, message starting with "too badly scaled
to certify in double precision").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["LCPResult", "HLCPResult", "AVEResult"]


@dataclass
class LCPResult:
    """Outcome of :func:`nonsmooth.lcp.solve_lcp`.

    Attributes
    ----------
    z : ndarray, shape (n,)
        The best point found (a solution when ``success``); zeros when nothing was found;
        ``inf`` entries when the solution overflows double precision.
    w : ndarray, shape (n,)
        ``M z + q`` recomputed from the input data.
    success : bool
        True when ``z`` is certified: ``residual <= tol`` (and the problem is within what
        double precision can certify).
    method : str
        The method that produced ``z`` (for ``auto``: the one that succeeded).
    iterations : int
        Pivots (Lemke, enumeration: complementary bases examined) or sweeps/iterations.
    residual : float
        Siconos' error of the normalised problem, ``||min(max|M| z, w)||_2 / ||q||_2``
        (see :func:`~nonsmooth.lcp.lcp_residual`): relative to the scale of ``M`` and ``q``.
    message : str
        What happened, in words; on failure, why (for ``auto``: every method tried).
    solutions : list of ndarray, shape (n,) each, or None
        Every distinct solution found by complementary-basis enumeration when
        ``all_solutions=True`` (``None`` otherwise). Its length is the multiplicity.
    continuum : bool
        True when enumeration met a singular complementary system with more than one
        feasible point, i.e. the solution set contains a segment (``solutions`` then holds
        only representative points).
    infeasible : bool
        True when the method *proved* that the LCP has no solution (exhaustive enumeration,
        or a secondary ray of Lemke's method on a copositive-plus ``M``).
    """

    z: np.ndarray
    w: np.ndarray
    success: bool
    method: str
    iterations: int
    residual: float
    message: str
    solutions: list[np.ndarray] | None = None
    continuum: bool = False
    infeasible: bool = False

    @classmethod
    def from_point(cls, M: np.ndarray, q: np.ndarray, z: np.ndarray, *, residual=None,
                   **fields) -> LCPResult:
        """The result at point ``z``: ``w = M z + q`` and (unless given) the scale-relative
        residual recomputed from the data, so no solver reports a residual it did not
        certify."""
        from .residual import lcp_residual

        if residual is None:
            residual = lcp_residual(M, q, z)
        with np.errstate(over="ignore", invalid="ignore"):
            w = M @ z + q
        return cls(z=z, w=w, residual=residual, **fields)

    def __repr__(self) -> str:
        return (
            f"LCPResult(success={self.success}, method={self.method!r}, "
            f"iterations={self.iterations}, residual={self.residual:.3e}, "
            f"message={self.message!r}, z={np.array2string(self.z, precision=6)})"
        )


@dataclass
class HLCPResult:
    """Outcome of :func:`nonsmooth.lcp.solve_hlcp`.

    Attributes
    ----------
    x, y : ndarray, shape (n,)
        The best point found (a solution when ``success``).
    success : bool
        True when ``(x, y)`` is certified: ``residual <= tol`` (relative to the scale of
        ``A``, ``B`` and ``c``).
    method : str
        The method that produced the answer.
    iterations : int
        Pivots or complementary bases examined.
    residual : float
        See :func:`nonsmooth.lcp.hlcp_residual`.
    message : str
        What happened, in words.
    solutions : list of tuple(ndarray, ndarray), or None
        Every distinct solution ``(x, y)`` found by enumeration when ``all_solutions=True``.
    continuum : bool
        True when the solution set contains a segment (see :class:`LCPResult`).
    infeasible : bool
        True when the method proved that no solution exists.
    """

    x: np.ndarray
    y: np.ndarray
    success: bool
    method: str
    iterations: int
    residual: float
    message: str
    solutions: list | None = None
    continuum: bool = False
    infeasible: bool = False


@dataclass
class AVEResult(HLCPResult):
    """Outcome of :func:`nonsmooth.lcp.solve_ave`: an :class:`HLCPResult` plus ``lam``.

    Attributes
    ----------
    lam : ndarray, shape (n,)
        The solution ``lam = x - y`` of ``lam = c + A |lam|`` (best point when not ``success``).
    solutions : list of ndarray, shape (n,) each, or None
        With ``all_solutions=True``: every distinct solution ``lam`` (note: ``lam`` vectors,
        not ``(x, y)`` pairs as in :class:`HLCPResult`). ``x = max(lam, 0)``,
        ``y = max(-lam, 0)`` recover the HLCP pair.
    """

    lam: np.ndarray = field(default_factory=lambda: np.zeros(0))
