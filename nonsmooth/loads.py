"""The normal loads' absolute value equation (HLCP) ``lambda = c + A |lambda|`` over a system's
load rows: uniqueness certificates, the face-fixed continuation of a smooth phase, pivoting,
enumeration as a certificate for small problems, and the named errors (``docs/method.md``
sections 5 and 6).

``Dynamics`` forms ``A`` and ``c`` from its KKT solve and asks :class:`NormalLoads` for the
magnitudes; the compiled kernels do the face-fixed continuation themselves and come here only
for what they cannot certify.
"""

from __future__ import annotations

import numpy as np

from .errors import InconsistentLCPError, IndeterminateLCPError

__all__ = ["NormalLoads", "JAM_MARGIN"]

#: Within this distance of singular, ``I - A diag(faces)`` is reported as imminent jamming
#: (the normal force ~ c / (1 - a) grows without bound) instead of integrated into.
JAM_MARGIN = 1e-6


class NormalLoads:
    """The HLCP of one system's normal loads.

    Parameters
    ----------
    pair_names : list of str
        The frictional pairs, named in the errors.
    """

    def __init__(self, pair_names):
        self.pair_names = list(pair_names)

    #: Largest HLCP (number of load rows) solved or certified by enumerating its ``2^p`` sign
    #: patterns; larger ones are solved by pivoting (Lemke). Raise it on an instance to request
    #: the enumeration as a certificate (exhaustive: proves uniqueness or finds every solution).
    enumeration_max_size: int = 3

    def magnitudes(self, t, A, c, faces=None) -> np.ndarray:
        """Solve ``lambda_N = c + A |lambda_N|``; return ``|lambda_N|`` (shape (p,)), or with
        ``faces`` the continuation ``faces * lambda_N`` of the face-fixed linear system.

        Parameters
        ----------
        t : float
        A : ndarray, shape (p, p)
        c : ndarray, shape (p,)
        faces : ndarray, shape (p,), optional

        Notes
        -----
        Uniqueness for every ``c`` is certified by ``rho(|A|) < 1`` or ``||A||_2 < 1`` (then
        ``lam -> c + A |lam|`` is a contraction; ``docs/method.md`` section 6). A certified
        problem is solved in closed form (``p = 1``), by sign enumeration (``p <= 3``,
        :attr:`enumeration_max_size`) or else by Lemke's method on the equivalent LCP
        ``x = (I - A)^-1 (I + A) y + (I - A)^-1 c`` (a P-matrix LCP, so pivoting finds the one
        solution; Cottle, Pang & Stone 2009, section 4.4), certified by its residual. An
        uncertified problem goes to :meth:`enumerate_or_raise`.
        """
        size = A.shape[0]
        if faces is None and not A.any():  # no friction feeds back: lam = c
            return np.abs(c)
        unique = self.unique(A)
        if unique and faces is not None:
            K = np.eye(size) - A * faces
            if np.min(np.abs(np.linalg.eigvals(K))) < JAM_MARGIN:
                self.jam(t, A, c)
            return faces * np.linalg.solve(K, c)
        if unique:
            if size <= self.enumeration_max_size:
                from .lcp import solve_ave

                sol = solve_ave(A, c)
                lam = sol.lam if sol.success else None
            else:
                lam = self.pivot(A, c)[0]
            if lam is not None:
                return np.abs(lam)
        return np.abs(self.enumerate_or_raise(t, A, c, unique=unique))

    @staticmethod
    def unique(A) -> bool:
        """Whether ``lam = c + A |lam|`` has exactly one solution for every ``c``: sufficient
        tests ``rho(|A|) < 1`` (Rohn 2009) or ``||A||_2 < 1`` (contraction); shape (p, p)."""
        size = A.shape[0]
        if size == 1:
            return abs(A[0, 0]) < 1.0
        if np.max(np.abs(np.linalg.eigvals(np.abs(A)))) < 1.0:
            return True
        return bool(np.linalg.norm(A, 2) < 1.0)

    @staticmethod
    def pivot(A, c):
        """``lam = c + A |lam|`` by Lemke's method, certified.

        The HLCP ``(I - A) x - (I + A) y = c`` (``lam = x - y``) reduced to the LCP
        ``x = M y + q``, ``M = (I - A)^-1 (I + A)``, ``q = (I - A)^-1 c`` (docs/method.md
        section 4), solved by :func:`nonsmooth.lcp.lemke.solve_lemke` (then by
        :func:`nonsmooth.lcp.solve_lcp` with ``method="lemke"``, polished, other covering
        vectors; then :func:`nonsmooth.lcp.solve_hlcp`, which inverts the better conditioned of
        ``I -+ A``) and accepted only when the HLCP residual
        (:func:`nonsmooth.lcp.hlcp_residual`) of the original data is at most 1e-10.

        Parameters
        ----------
        A : ndarray, shape (p, p)
        c : ndarray, shape (p,)

        Returns
        -------
        (lam, result)
            ``lam`` (p,) or None when pivoting found no certified solution; ``result`` the
            last solver result (its ``infeasible`` flag is a proof of no solution).
        """
        from .lcp import hlcp_residual, solve_hlcp, solve_lcp
        from .lcp.lemke import solve_lemke

        size = A.shape[0]
        eye = np.eye(size)
        P, Q = eye - A, eye + A
        result = None
        try:
            R = np.linalg.solve(P, np.column_stack((Q, c)))
        except np.linalg.LinAlgError:
            R = None
        if R is not None and np.all(np.isfinite(R)):
            M, q = R[:, :size], R[:, size]
            for attempt in (lambda: solve_lemke(M, q),
                            lambda: solve_lcp(M, q, method="lemke"),
                            lambda: solve_lcp(M, q, method="lemke", covering="random")):
                result = attempt()
                y = result.z
                x = np.maximum(M @ y + q, 0.0)
                if hlcp_residual(P, Q, c, x, y) <= 1e-10:
                    return x - y, result
                if result.infeasible:
                    return None, result
        result = solve_hlcp(P, Q, c, method="lemke")
        return (result.x - result.y if result.success else None), result

    def jam(self, t, A, c):
        names = self.pair_names
        raise InconsistentLCPError(
            f"at t = {t:.10g} s the normal forces of pairs {names} grow without bound: "
            f"lambda_N = c + A |lambda_N| with A = {np.array2string(A, precision=6)}, c = "
            f"{np.array2string(c, precision=6)} N is at the edge of solvability (|a| -> 1): "
            "friction self-locking (jamming) is imminent. Try a smaller friction coefficient or "
            "another geometry", t=t, pairs=names, A=A, c=c)

    def enumerate_or_raise(self, t, A, c, *, unique: bool = False) -> np.ndarray:
        """The one solution of ``lam = c + A |lam|``, or the named error.

        Up to :attr:`enumeration_max_size` load rows: exact sign enumeration, and
        anything but exactly one solution raises. Larger problems are not enumerated: Lemke's
        method looks for a solution; if uniqueness is certified (``unique``) it is returned,
        otherwise ``IndeterminateLCPError`` says that uniqueness could not be certified
        (rather than silently picking one root); no solution found raises
        ``InconsistentLCPError`` (stating whether infeasibility was proven).

        Parameters
        ----------
        t : float
        A : ndarray, shape (p, p)
        c : ndarray, shape (p,)
        unique : bool
            Uniqueness already certified (then only pivoting failed).

        Returns
        -------
        ndarray, shape (p,)
        """
        from .lcp import solve_ave

        names = self.pair_names
        detail = (f"lambda_N = c + A |lambda_N| with A = {np.array2string(A, precision=6)}, "
                  f"c = {np.array2string(c, precision=6)} N")
        hint = ("friction self-locking (jamming, the bilateral analogue of Painleve's paradox): "
                "the friction force creates more normal force than it needs. Try a smaller "
                "friction coefficient, another geometry, or check the friction direction")
        size = A.shape[0]
        if size > self.enumeration_max_size:
            lam, result = self.pivot(A, c)
            if lam is not None and unique:
                return lam
            rho = float(np.max(np.abs(np.linalg.eigvals(np.abs(A)))))
            why = (f"uniqueness could not be certified: rho(|A|) = {rho:.6g} >= 1 and "
                   f"||A||_2 = {float(np.linalg.norm(A, 2)):.6g} >= 1, and the {size} load rows "
                   f"exceed hlcp_enumeration_max_size = {self.enumeration_max_size} (the "
                   "2^p sign enumeration that would certify it is not run; raise that "
                   "attribute to request it)")
            if lam is None:
                proof = ("infeasibility is proven (Lemke's secondary ray on a copositive-plus "
                         "LCP)" if result is not None and result.infeasible else
                         f"pivoting (Lemke) found none, which is no proof; {why}")
                raise InconsistentLCPError(
                    f"at t = {t:.10g} s the normal forces of pairs {names} have no solution "
                    f"found: {detail}; {proof}; {hint}", t=t, pairs=names, A=A, c=c)
            raise IndeterminateLCPError(
                f"at t = {t:.10g} s the normal forces of pairs {names}: {detail}; pivoting "
                f"found the solution {lam.tolist()} but {why}; {hint}",
                t=t, pairs=names, A=A, c=c, solutions=[lam])
        found = solve_ave(A, c, all_solutions=True)
        sols = list(found.solutions or [])
        continuum = bool(getattr(found, "continuum", False))
        if not sols:
            raise InconsistentLCPError(
                f"at t = {t:.10g} s the normal forces of pairs {names} have no solution: {detail}; "
                f"{hint}", t=t, pairs=names, A=A, c=c)
        if len(sols) > 1 or continuum:
            how = "infinitely many solutions" if continuum else f"{len(sols)} solutions"
            raise IndeterminateLCPError(
                f"at t = {t:.10g} s the normal forces of pairs {names} have {how} "
                f"{[s.tolist() for s in sols]}: {detail}; {hint}",
                t=t, pairs=names, A=A, c=c, solutions=sols)
        return sols[0]


def one_load_roots(pre: float, terms: list[tuple[float, np.ndarray, np.ndarray]],
                   scale: float = 1.0) -> list[float]:
    """Every root ``N >= 0`` of one slipping pair's load equation with norm terms,
    ``N = pre + sum_g w_g ||c_g + b_g N||`` (``terms``: ``(w_g, c_g, b_g)``, 1-3 rows each; a
    1-row term is ``|c + b N|``), for the uncertified case ``L = sum_g w_g ||b_g|| >= 1``
    (``docs/design/spatial_friction.md`` section 3.3).

    ``G(N) = F(N) - N`` is convex (norms of affine functions minus ``N``), so it has no root,
    one (at the edge: ``min G = 0``) or two: the minimum of ``G`` is found by bracketing and
    Brent's method, the roots by ``brentq`` on each side of it. ``scale`` (N) sets the
    tolerance ``1e-12 scale`` of ``min G = 0``. Returns the roots in increasing order ([] when
    there is none).
    """
    from scipy.optimize import brentq, minimize_scalar

    def G(N):
        return pre + sum(w * float(np.linalg.norm(c + b * N)) for w, c, b in terms) - N

    tol = 1e-12 * max(scale, abs(pre), 1e-300)
    hi = max(1.0, scale)
    for _ in range(200):  # G's right slope L - 1 >= 0 beyond the kinks: grow until it rises
        if G(2.0 * hi) >= G(hi):
            break
        hi *= 2.0
    res = minimize_scalar(G, bounds=(0.0, 2.0 * hi), method="bounded",
                          options={"xatol": 1e-14 * hi})
    N_min, G_min = float(res.x), float(res.fun)
    if G(0.0) < G_min:
        N_min, G_min = 0.0, G(0.0)
    if G_min > tol:
        return []
    if G_min >= -tol:
        return [N_min]
    roots = []
    if G(0.0) > 0.0:
        roots.append(brentq(G, 0.0, N_min, xtol=1e-14 * hi, rtol=1e-15))
    up = max(2.0 * N_min, 1.0)
    for _ in range(200):
        if G(up) > 0.0:
            roots.append(brentq(G, N_min, up, xtol=1e-14 * up, rtol=1e-15))
            break
        up *= 2.0
    return roots
