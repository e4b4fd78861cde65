"""``solve_lcp``: method registry, structure analysis and the certified ``auto`` strategy.

``auto`` chooses a sound order for the problem at hand and certifies every answer by its
Siconos residual, falling back to the next method on failure:

1. Lemke's method, covering vector ``e`` (finite, exact pivoting; solves every P-matrix
   problem and every feasible copositive-plus problem, CPS Thm 4.4.9/4.4.13);
2. Lemke's method with two random positive covering vectors (different paths: rescues
   problems such as bimatrix games where the ``e``-path ends on a secondary ray);
3. complementary-basis enumeration for ``n <= AUTO_ENUMERATION_MAX_SIZE`` (exact: finds a
   solution if one exists, otherwise proves infeasibility);
4. for symmetric PSD ``M``: projected Gauss-Seidel, then OSQP on the equivalent QP; for
   nonsymmetric PSD ``M``: the cvxpy monotone-LCP formulation.

Each answer is polished (:mod:`nonsmooth.lcp.polish`) and accepted when its residual is at
most ``tol``. A proof of infeasibility (exhaustive enumeration; a secondary ray with
copositive-plus ``M``) stops the search: ``success=False, infeasible=True``.

Certification is relative to the scale of the data (:mod:`nonsmooth.lcp.scaling`): the
whole search (structure analysis, methods, polishing, certification) runs on the problem
normalised exactly by powers of two, ``1 <= max|M|, max|q| < 2``, and the residual is
Siconos' measure of that normalised problem, ``||min(max|M| z, w)||_2 / ||q||_2``. Hence
``M -> s M``, ``q -> s q`` gives the same ``z`` and the same verdict for every ``s > 0``
(bit for bit when ``s`` is a power of two). ``z`` is mapped back exactly and ``w`` and the
residual recomputed from the input; a problem that double precision cannot certify (data
deep in the subnormal range, or ``z ~ max|q| / max|M|`` outside the range of doubles) gets
``success=False`` and a message starting "too badly scaled to certify in double precision".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cvxpy_qp import solve_cvxpy
from .enumeration import solve_enumerate
from .lemke import solve_lemke
from .osqp_qp import solve_osqp
from .pgs import solve_pgs
from .polish import polish_lcp
from .residual import lcp_residual
from .result import LCPResult
from .scaling import LCPScaling
from .structure import (
    equilibrate,
    is_copositive_plus,
    is_p_matrix,
    is_positive_semidefinite,
    is_symmetric,
    needs_scaling,
)
from .validation import as_square_matrix, as_vector

__all__ = ["solve_lcp", "analyze_lcp", "LCPStructure", "LCP_METHODS", "AUTO_ENUMERATION_MAX_SIZE"]

LCP_METHODS = {
    "lemke": solve_lemke,
    "enumerate": solve_enumerate,
    "pgs": solve_pgs,
    "osqp": solve_osqp,
    "cvxpy": solve_cvxpy,
}
"""Registry of LCP methods by name; each meets :class:`nonsmooth.lcp.base.LCPSolver`."""

AUTO_ENUMERATION_MAX_SIZE = 12
"""``auto`` falls back on enumeration up to this size (4096 bases)."""

_P_MATRIX_CHECK_MAX_SIZE = 10
_ITERATIVE = ("pgs", "osqp", "cvxpy")


@dataclass(frozen=True)
class LCPStructure:
    """What ``auto`` knows about ``M``.

    Attributes
    ----------
    n : int
    symmetric : bool
    positive_semidefinite : bool
        ``x^T M x >= 0`` (symmetric part PSD): monotone LCP, copositive-plus.
    copositive_plus : bool
        Shown copositive-plus (PSD, or nonnegative with positive diagonal).
    p_matrix : bool or None
        Every principal minor positive (unique solution); None when not tested (large n).
    badly_scaled : bool
        Row norms spread over more than 1e4 (equilibration advised).
    """

    n: int
    symmetric: bool
    positive_semidefinite: bool
    copositive_plus: bool
    p_matrix: bool | None
    badly_scaled: bool

    @property
    def symmetric_psd(self) -> bool:
        """Symmetric and positive semidefinite: the LCP is a convex QP's KKT system."""
        return self.symmetric and self.positive_semidefinite

    def describe(self) -> str:
        """Short description for messages."""
        words = []
        if self.p_matrix:
            words.append("P-matrix (unique solution)")
        if self.symmetric_psd:
            words.append("symmetric PSD")
        elif self.positive_semidefinite:
            words.append("PSD (monotone)")
        elif self.symmetric:
            words.append("symmetric indefinite")
        if self.badly_scaled:
            words.append("badly scaled")
        return f"n = {self.n}" + (", " + ", ".join(words) if words else "")


def analyze_lcp(M) -> LCPStructure:
    """Detect the structure of ``M`` that decides which LCP methods are sound.

    Parameters
    ----------
    M : array_like, shape (n, n)

    Returns
    -------
    LCPStructure
    """
    M = as_square_matrix(M, "M")
    n = M.shape[0]
    psd = is_positive_semidefinite(M)
    p_matrix = is_p_matrix(M) if n <= _P_MATRIX_CHECK_MAX_SIZE else None
    return LCPStructure(
        n=n,
        symmetric=is_symmetric(M),
        positive_semidefinite=psd,
        copositive_plus=psd or is_copositive_plus(M),
        p_matrix=p_matrix,
        badly_scaled=needs_scaling(M),
    )


def _run(name: str, M, q, options: dict, scale: bool, polish: bool, tol: float) -> LCPResult:
    """Run one method (optionally on the equilibrated problem), polish and certify."""
    solver = LCP_METHODS[name]
    if name == "pgs":
        options = {"polish": polish, **options}
    if scale:
        M_s, q_s, d = equilibrate(M, q)
        raw = solver(M_s, q_s, **options)
        z = d * raw.z
        solutions = None if raw.solutions is None else [d * s for s in raw.solutions]
    else:
        raw = solver(M, q, **options)
        z = raw.z
        solutions = raw.solutions
    z = np.maximum(z, 0.0)
    # A failed pivoting method leaves a meaningless point: polish only converged answers and
    # the iterates of the iterative methods.
    if polish and (raw.success or name in _ITERATIVE):
        z = polish_lcp(M, q, z)
    residual = lcp_residual(M, q, z)
    success = residual <= tol
    message = raw.message
    if scale:
        message += " (on the equilibrated problem)"
    if success and not raw.success:
        message += "; the polished point is nevertheless certified"
    if not success and raw.success:
        message += f"; but the residual {residual:.2e} exceeds tol = {tol:.1e}"
    return LCPResult(
        z=z,
        w=M @ z + q,
        success=success,
        method=name,
        iterations=raw.iterations,
        residual=residual,
        message=message,
        solutions=solutions,
        continuum=raw.continuum,
        infeasible=raw.infeasible and not success,
    )


def solve_lcp(
    M,
    q,
    method: str = "auto",
    *,
    tol: float = 1e-10,
    scale: bool | str = "auto",
    polish: bool = True,
    all_solutions: bool = False,
    **options,
) -> LCPResult:
    """Solve the linear complementarity problem LCP(q, M).

    Find ``z, w`` with ``w = M z + q``, ``z >= 0``, ``w >= 0``, ``z^T w = 0``.

    Parameters
    ----------
    M : array_like, shape (n, n)
    q : array_like, shape (n,)
    method : {"auto", "lemke", "enumerate", "pgs", "osqp", "cvxpy"}
        ``auto`` tries a sound order of methods (see module docstring) and certifies each
        answer. ``osqp`` requires symmetric positive semidefinite ``M``; ``cvxpy`` a
        positive semidefinite one; ``enumerate`` ``n <= 16`` unless ``max_size`` is passed.
    tol : float
        Certification: ``success`` iff the residual (Siconos' measure of the normalised
        problem, :func:`~nonsmooth.lcp.lcp_residual`, relative to the scale of ``M`` and
        ``q``) is at most ``tol`` and double precision can represent the answer. Also the
        stopping tolerance of ``pgs``.
    scale : bool or "auto"
        Solve the symmetrically equilibrated problem ``D M D`` (Ruiz) and map back; "auto"
        scales when the row norms of ``M`` spread over more than 1e4.
    polish : bool
        Refine the answer by solving the principal system of its basis (cheap, exact).
    all_solutions : bool
        Enumerate every complementary basis and list the distinct solutions in
        ``solutions`` (their number is the multiplicity). Implies ``method="enumerate"``
        under ``auto``.
    **options
        Passed to the method: ``covering``, ``max_iter``, ``pivot_tol`` (lemke),
        ``max_size`` (enumerate), ``max_iter``, ``omega`` (pgs), ``eps_abs``, ``eps_rel``,
        ``max_iter`` (osqp), ``solver`` (cvxpy). ``z0`` (pgs) is in the units of the input.

    Returns
    -------
    LCPResult
        Never raises because there is no solution: ``success=False`` and ``message`` (for
        ``auto``: every method tried and why it failed; ``infeasible=True`` with a proof).
        A problem too badly scaled for double precision also gets ``success=False``, with
        the best point found and a message saying so and what to try (rescale units).

    Raises
    ------
    ValueError
        Bad input: non-square or non-finite ``M``, ``q`` of the wrong length or non-finite
        (the message names the argument and, for infinite entries, suggests other units),
        unknown ``method``, a method not applicable to ``M`` (``osqp``).

    Examples
    --------
    >>> res = solve_lcp([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0])
    >>> res.success, res.z.round(6)
    (True, array([1.333333, 2.333333]))
    >>> res = solve_lcp(1e-20 * np.eye(3), -1e-20 * np.ones(3))  # scale-relative
    >>> res.success, res.z
    (True, array([1., 1., 1.]))
    """
    M = as_square_matrix(M, "M")
    n = M.shape[0]
    q = as_vector(q, "q", n)
    if scale not in (True, False, "auto"):
        raise ValueError(f"scale must be True, False or 'auto'; got {scale!r}")
    if not tol > 0.0:
        raise ValueError(f"tol must be positive; got {tol}")
    known = set().union(*_OPTION_OWNERS.values())
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; known options: {sorted(known)}")
    if all_solutions and method not in ("auto", "enumerate"):
        raise ValueError(
            f"all_solutions=True needs method='enumerate' (or 'auto'); got {method!r}"
        )
    if method != "auto" and method not in LCP_METHODS:
        raise ValueError(f"method must be 'auto' or one of {sorted(LCP_METHODS)}; got {method!r}")
    if method != "auto" and not all_solutions:
        foreign = sorted(set(options) - _OPTION_OWNERS[method])
        if foreign:
            raise ValueError(
                f"option(s) {foreign} do not apply to method={method!r}; it accepts "
                f"{sorted(_OPTION_OWNERS[method])}"
            )
    scaling = LCPScaling.of(M, q)
    M_n, q_n = scaling.normalise(M, q)
    if options.get("z0") is not None:
        options = {**options, "z0": scaling.z_to_normalised(as_vector(options["z0"], "z0", n))}
    result = _solve_normalised(
        M_n, q_n, method, tol=tol, scale=scale, polish=polish, all_solutions=all_solutions,
        options=options,
    )
    return scaling.restore(result, M, q, tol=tol)


def _solve_normalised(
    M, q, method: str, *, tol: float, scale, polish: bool, all_solutions: bool, options: dict
) -> LCPResult:
    """:func:`solve_lcp` on the normalised problem."""
    do_scale = bool(needs_scaling(M)) if scale == "auto" else bool(scale)
    if all_solutions:
        return _run("enumerate", M, q, {**options, "all_solutions": True}, False, polish, tol)
    if method == "auto":
        return _solve_auto(M, q, tol=tol, scale=do_scale, polish=polish, options=options)
    if method == "pgs":
        options = {**options, "tol": tol}
    return _run(method, M, q, options, do_scale, polish, tol)


def _plan(structure: LCPStructure) -> list[tuple[str, dict]]:
    """The ordered list of (method, options) that ``auto`` tries."""
    plan: list[tuple[str, dict]] = [
        ("lemke", {"covering": "ones"}),
        ("lemke", {"covering": "random", "seed": 0}),
        ("lemke", {"covering": "random", "seed": 1}),
    ]
    if structure.n <= AUTO_ENUMERATION_MAX_SIZE:
        plan.append(("enumerate", {}))
    if structure.symmetric_psd:
        plan += [("pgs", {}), ("osqp", {})]
    elif structure.positive_semidefinite:
        plan.append(("cvxpy", {}))
    return plan


def _label(name: str, options: dict) -> str:
    if name == "lemke":
        label = f"lemke(covering={options['covering']!r}"
        return label + (f", seed={options['seed']})" if "seed" in options else ")")
    return name


def _solve_auto(M, q, *, tol, scale, polish, options) -> LCPResult:
    structure = analyze_lcp(M)
    attempts: list[str] = []
    best: LCPResult | None = None
    total_iterations = 0
    proof: str | None = None
    for name, plan_options in _plan(structure):
        if proof is not None and name != "enumerate":
            continue
        method_options = {**_relevant(name, options), **plan_options}
        if name == "lemke":
            method_options.setdefault("copositive_plus", structure.copositive_plus)
        if name == "pgs":
            method_options.setdefault("tol", tol)
        try:
            result = _run(name, M, q, method_options, scale, polish, tol)
        except Exception as exc:  # a backend crash must not hide the other methods
            attempts.append(f"{_label(name, plan_options)}: raised {type(exc).__name__}: {exc}")
            continue
        total_iterations += result.iterations
        if result.success:
            result.message = (
                f"{_label(name, plan_options)}: {result.message} "
                f"[auto, {structure.describe()}"
                + (f"; after: {' | '.join(attempts)}]" if attempts else "]")
            )
            return result
        attempts.append(f"{_label(name, plan_options)}: {result.message}")
        if best is None or result.residual < best.residual:
            best = result
        if result.infeasible:
            proof = result.message
            if name == "enumerate":
                break
    if best is None:
        z = np.zeros(M.shape[0])
        best = LCPResult(
            z=z,
            w=M @ z + q,
            success=False,
            method="auto",
            iterations=0,
            residual=lcp_residual(M, q, z),
            message="",
        )
    tried = " | ".join(attempts)
    if proof is not None:
        message = (
            f"no solution: the LCP is infeasible [{structure.describe()}]; methods tried: {tried}"
        )
    else:
        message = (
            f"no certified solution (best residual {best.residual:.2e} > tol = {tol:.1e}) "
            f"[{structure.describe()}]; methods tried: {tried}"
        )
    return LCPResult(
        z=best.z,
        w=best.w,
        success=False,
        method="auto",
        iterations=total_iterations,
        residual=best.residual,
        message=message,
        infeasible=proof is not None,
    )


_OPTION_OWNERS = {
    "lemke": {"covering", "max_iter", "pivot_tol", "seed"},
    "enumerate": {"max_size", "accept_tol"},
    "pgs": {"max_iter", "omega", "z0"},
    "osqp": {"eps_abs", "eps_rel", "eps_dual_inf", "max_iter"},
    "cvxpy": {"solver"},
}


def _relevant(name: str, options: dict) -> dict:
    """Options a user passed to ``auto`` that the method ``name`` understands."""
    return {k: v for k, v in options.items() if k in _OPTION_OWNERS[name]}
