"""The contract every LCP method of :data:`nonsmooth.lcp.LCP_METHODS` meets."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .result import LCPResult

__all__ = ["LCPSolver"]


class LCPSolver(Protocol):
    """A function ``solver(M, q, **options) -> LCPResult`` solving LCP(q, M).

    Obligations (as scipy's ``OdeSolver`` states its own):

    1. Accept ``M`` (n x n) and ``q`` (n,) as array_like, validate them with
       :mod:`nonsmooth.lcp.validation` (``ValueError`` naming the argument) and accept only
       keyword options, each documented in the numpydoc docstring.
    2. Never raise because the problem has no solution or the method failed: return
       ``success=False`` and say why in ``message``. Set ``infeasible=True`` only with a proof.
    3. Work on the exactly normalised problem and map the answer back
       (:class:`nonsmooth.lcp.scaling.LCPScaling`: ``normalise`` then ``restore``), so that
       every tolerance is relative to the data and ``M -> s M``, ``q -> s q`` changes nothing.
    4. Return ``z >= 0`` (clipped), ``w = M z + q`` recomputed from the input, the
       scale-relative residual of ``z`` (:func:`nonsmooth.lcp.lcp_residual`), ``method`` (its
       registry name) and ``iterations`` (pivots, bases, sweeps, ...); ``success=False`` with
       a message starting "too badly scaled to certify in double precision" when the data or
       the answer lie beyond what doubles can certify.
    5. Know nothing of mechanics; import optional heavy dependencies (cvxpy, osqp) inside
       the function.
    6. Be deterministic (seeded randomness only).

    :func:`nonsmooth.lcp.solve_lcp` adds what is common: optional equilibration, active-set
    polishing, and certification (``success`` iff the scale-relative residual <= tol and the
    problem is within double precision).
    """

    def __call__(self, M: np.ndarray, q: np.ndarray, **options) -> LCPResult: ...
