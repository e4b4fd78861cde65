"""Complementarity solvers: LCP, horizontal LCP and the absolute value equation.

Independent of mechanics (like Siconos' numerics library)::

    >>> from nonsmooth.lcp import solve_lcp
    >>> solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0]).z.round(4)
    array([1.3333, 2.3333])

Problems
--------
* LCP(q, M): ``w = M z + q``, ``0 <= z _|_ w >= 0`` -- :func:`solve_lcp`.
* HLCP(A, B, c): ``A x - B y = c``, ``0 <= x _|_ y >= 0`` -- :func:`solve_hlcp`.
* AVE(A, c): ``lam = c + A |lam|`` -- :func:`solve_ave` (normal forces with friction).

Certification is relative to the scale of the data: every solver works on the problem
normalised exactly by powers of two and judges answers by a residual that does not change
when the data are multiplied by a factor, so ``M = 1e-20 I``, ``q = -1e-20 e`` is solved
like ``M = I``, ``q = -e``; data or answers beyond double precision give ``success=False``
and a message saying "too badly scaled to certify in double precision" and what to try
(see :mod:`nonsmooth.lcp.scaling`)::

    >>> solve_lcp([[1e-20, 0.0], [0.0, 1e-20]], [-1e-20, -2e-20]).z
    array([1., 2.])

Modules: ``lemke`` (Lemke, lexicographic), ``enumeration`` (all complementary bases),
``pgs`` (projected Gauss-Seidel), ``osqp_qp`` and ``cvxpy_qp`` (QP formulations),
``solve`` (registry, ``auto``), ``hlcp``, ``ave``, ``structure`` (P-matrix, PSD,
equilibration), ``scaling`` (normalisation, scale-relative certification), ``residual``,
``polish``, ``siconos`` (test-file reader), ``result``.
"""

from .ave import solve_ave
from .base import LCPSolver
from .hlcp import HLCP_METHODS, solve_hlcp
from .residual import hlcp_residual, lcp_residual
from .result import AVEResult, HLCPResult, LCPResult
from .siconos import read_siconos_lcp
from .solve import LCP_METHODS, LCPStructure, analyze_lcp, solve_lcp
from .structure import (
    equilibrate,
    is_copositive_plus,
    is_p_matrix,
    is_positive_semidefinite,
    is_symmetric_psd,
)

__all__ = [
    "solve_lcp",
    "solve_hlcp",
    "solve_ave",
    "LCPResult",
    "HLCPResult",
    "AVEResult",
    "lcp_residual",
    "hlcp_residual",
    "read_siconos_lcp",
    "is_p_matrix",
    "is_positive_semidefinite",
    "is_symmetric_psd",
    "is_copositive_plus",
    "equilibrate",
    "analyze_lcp",
    "LCPStructure",
    "LCPSolver",
    "LCP_METHODS",
    "HLCP_METHODS",
]
