"""The problems of event-driven rigid contact (Pfeiffer & Glocker 1996; Glocker 2001): which
of the touching points of rigid contacts stay closed, stick or slip, decided at the
acceleration level as a linear complementarity problem; the accelerations of a phase whose
closed points are held as constraints; and the impact at a closing point (Newton's law with
friction, :func:`nonsmooth.core.moreau_jean.solve_step` with no force impulse).

Notation (per touching point ``p`` of a rigid contact): the gap ``g_p`` (m, > 0 open), its
normal velocity row ``W_N,p`` (``g'_p = W_N,p v``), two tangent rows ``W_T,p`` (2, n_v) (the
slip velocity ``v_T,p = W_T,p v`` in the tangent plane), the local accelerations ``W a + c``
with the bias ``c = (dW/dt) v`` plus Baumgarte's terms (``2 alpha g' + beta^2 g`` for the
normal row, ``2 alpha v_T`` for a sticking point's tangent rows), so that a closed point's
drift decays as a joint's does. The equations of motion with the joints' rows ``G``::

    M a = f + G^T Lambda + sum_p (W_N,p^T lambda_N,p + W_T,p^T lambda_T,p)
    G a = r_G                                   (the joints' acceleration rows)

A point *sliding* (``|v_T| > 0``) carries the friction ``lambda_T = -mu lambda_N s`` with
``s = v_T / |v_T|`` (one unknown, its column ``W_N^T - mu W_T^T s``: the problem is not
symmetric, Painleve's paradox lives here); a point at rest tangentially is a *stick
candidate* whose friction lies in Coulomb's cone ``|lambda_T| <= mu lambda_N``, here a cone of
``k`` facets as in :mod:`nonsmooth.lcp.friction_contact` (exact for a motion in the plane of
two of its facets, e.g. ``k = 4`` or ``8`` and a tangent along a tangent axis).

The acceleration-level problem (:func:`acceleration_problem`), per touching point::

    0 <= lambda_N  _|_  g''  = W_N a + c_N >= 0                   (Signorini)
    stick candidate: lambda_T = D beta, 0 <= beta_j _|_ d_j . a_T + zeta >= 0,
                     0 <= zeta _|_ mu lambda_N - sum_j beta_j >= 0  (Coulomb, faceted)

one LCP over ``z = [lambda_N, beta, zeta]`` after the joints are eliminated, solved by
Lemke's method; where some point slides the problem is checked for existence and uniqueness of
the accelerations by enumerating its complementary bases (small problems), and a problem with
no solution (inconsistent) or several (indeterminate) is reported with its reason, never
guessed (Painleve 1895; Lotstedt 1981).

Nothing here knows an element kind: the caller gives matrices.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..lcp.enumeration import solve_enumerate
from ..lcp.friction_contact import facet_directions
from ..lcp.lemke import solve_lemke

__all__ = ["AccelerationSolution", "acceleration_problem", "closed_accelerations",
           "independent_rows",
           "SLIDING", "STICKING", "FRICTIONLESS"]

#: A point's friction in a problem: sliding along its given direction, a stick candidate (or
#: sticking, in a phase), or without friction (``mu = 0``).
SLIDING, STICKING, FRICTIONLESS = 0, 1, 2

#: Relative tolerance of the acceleration problem's answers: a normal force or a sliding
#: acceleration at or below it (of the problem's own scale) is zero.
ANSWER_TOL = 1e-9
#: Two solutions' accelerations are distinct when they differ by more than this, relative to
#: their scale (a Painleve problem's differ by the order of the scale itself).
DISTINCT = 1e-6
#: The largest problem whose complementary bases are enumerated to count its solutions
#: (2^10 bases, each a small solve, a singular one a small linear program: under a second);
#: a larger one with sliding points is taken from Lemke's certified solution.
ENUMERATED = 10
#: The LCP's scale-relative residual that certifies a solution.
LCP_TOL = 1e-9


def _kkt(M: np.ndarray, G: np.ndarray) -> np.ndarray:
    n, m = M.shape[0], G.shape[0]
    if not m:
        return M
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = -G.T
    K[n:, :n] = G
    return K


def _columns(W_N, W_T, mu, kind, slip):
    """The force columns (n_v, n_col) and the measured rows (n_row = n_col, n_v) of the
    points, and per point the index of its normal column and of its tangent columns (-1:
    none)."""
    cols, rows, normal, tangent = [], [], [], []
    for p in range(W_N.shape[0]):
        normal.append(len(cols))
        if kind[p] == SLIDING:
            cols.append(W_N[p] - mu[p] * (slip[p, 0] * W_T[p, 0] + slip[p, 1] * W_T[p, 1]))
            rows.append(W_N[p])
            tangent.append(-1)
        elif kind[p] == STICKING:
            cols.append(W_N[p])
            rows.append(W_N[p])
            tangent.append(len(cols))
            cols += [W_T[p, 0], W_T[p, 1]]
            rows += [W_T[p, 0], W_T[p, 1]]
        else:
            cols.append(W_N[p])
            rows.append(W_N[p])
            tangent.append(-1)
    n_v = W_N.shape[1]
    C = np.array(cols).T if cols else np.zeros((n_v, 0))
    H = np.array(rows) if rows else np.zeros((0, n_v))
    return C, H, np.array(normal, dtype=int), np.array(tangent, dtype=int)


def _responses(M, G, f, r_G, C):
    """The free accelerations ``a0`` (n_v,), the joints' ``Lambda0`` (m,), and the responses
    ``X`` (n_v, n_col), ``Y`` (m, n_col) of accelerations and joint forces to unit forces on
    the columns ``C``."""
    n, m = M.shape[0], G.shape[0]
    K = _kkt(M, G)
    rhs = np.zeros((n + m, 1 + C.shape[1]))
    rhs[:n, 0] = f
    rhs[n:, 0] = r_G
    rhs[:n, 1:] = C
    sol = np.linalg.solve(K, rhs)
    return sol[:n, 0], sol[n:, 0], sol[:n, 1:], sol[n:, 1:]


@dataclass
class AccelerationSolution:
    """What :func:`acceleration_problem` and :func:`closed_accelerations` found.

    Attributes
    ----------
    a : ndarray, shape (n_v,)
        The accelerations.
    Lambda : ndarray, shape (m,)
        The joints' multipliers (N, N m).
    lambda_N : ndarray, shape (k,)
        The points' normal forces (N, >= 0 pressing).
    lambda_T : ndarray, shape (k, 2)
        Their friction forces along the tangent rows (N).
    u_N : ndarray, shape (k,)
        Their normal accelerations ``g''`` (m/s^2, with the Baumgarte terms).
    u_T : ndarray, shape (k, 2)
        Their tangential accelerations (m/s^2, with the stabilization of a sticking point).
    sliding : ndarray of bool, shape (k,)
        A stick candidate that starts to slide (the faceted cone's ``zeta > 0``).
    success : bool
        The problem was solved (certified LCP solution, or the phase's linear system).
    reason : str
        Empty on success; else ``"inconsistent"`` (no solution), ``"indeterminate"``
        (several accelerations) or the solver's message.
    residual : float
        The LCP's scale-relative residual.
    n_solutions : int
        The distinct accelerations found where they were enumerated (sliding points), else 1.
    """

    a: np.ndarray
    Lambda: np.ndarray
    lambda_N: np.ndarray
    lambda_T: np.ndarray
    u_N: np.ndarray
    u_T: np.ndarray
    sliding: np.ndarray
    success: bool = True
    reason: str = ""
    residual: float = 0.0
    n_solutions: int = 1
    details: dict = field(default_factory=dict)


def acceleration_problem(M, f, G, r_G, W_N, W_T, c_N, c_T, mu, kind, slip, *,
                         facets: int = 8) -> AccelerationSolution:
    """The touching points' normal forces, friction and the accelerations, by the
    acceleration-level LCP of the module docstring.

    Parameters
    ----------
    M : ndarray, shape (n_v, n_v)
        The mass matrix.
    f : ndarray, shape (n_v,)
        The forces (applied, gyroscopic; N, N m).
    G : ndarray, shape (m, n_v)
        The joints' rows; ``r_G`` (m,) their acceleration right-hand side (``gamma - 2 alpha
        Phi' - beta^2 Phi``).
    W_N : ndarray, shape (k, n_v)
        The touching points' normal rows; ``W_T`` (k, 2, n_v) their tangent rows.
    c_N : ndarray, shape (k,)
        The normal rows' bias (m/s^2); ``c_T`` (k, 2) the tangent rows' (m/s^2).
    mu : ndarray, shape (k,)
        Coulomb's coefficients (-).
    kind : ndarray of int, shape (k,)
        :data:`SLIDING`, :data:`STICKING` (a stick candidate) or :data:`FRICTIONLESS`.
    slip : ndarray, shape (k, 2)
        A sliding point's unit slip direction in its tangent rows' axes (others: ignored).
    facets : int
        The faceted cone's facets (>= 3).

    Returns
    -------
    AccelerationSolution
    """
    k = W_N.shape[0]
    C, H, i_N, i_T = _columns(W_N, W_T, mu, kind, slip)
    a0, L0, X, Y = _responses(M, G, f, r_G, C)
    A = H @ X
    b = H @ a0
    b[i_N] += c_N
    stick = np.flatnonzero(i_T >= 0)
    for p in stick:
        b[i_T[p]:i_T[p] + 2] += c_T[p]
    D = facet_directions(facets)
    s, F = stick.size, facets
    n_z = k + F * s + s
    Mz = np.zeros((n_z, n_z))
    qz = np.zeros(n_z)
    # rows of w_N
    Mz[:k, :k] = A[np.ix_(i_N, i_N)]
    qz[:k] = b[i_N]
    for j, p in enumerate(stick):
        T = slice(i_T[p], i_T[p] + 2)
        Mz[:k, k + F * j:k + F * (j + 1)] = A[i_N, T] @ D
        rows = slice(k + F * j, k + F * (j + 1))
        Mz[rows, :k] = D.T @ A[T][:, i_N]
        for jj, pp in enumerate(stick):
            TT = slice(i_T[pp], i_T[pp] + 2)
            Mz[rows, k + F * jj:k + F * (jj + 1)] = D.T @ A[T, TT] @ D
        Mz[rows, k + F * s + j] = 1.0
        qz[rows] = D.T @ b[T]
        Mz[k + F * s + j, p] = mu[p]
        Mz[k + F * s + j, k + F * j:k + F * (j + 1)] = -1.0
    if not n_z:  # no touching point: the free motion
        return AccelerationSolution(a0, L0, np.zeros(0), np.zeros((0, 2)), np.zeros(0),
                                    np.zeros((0, 2)), np.zeros(0, dtype=bool),
                                    details={"lcp_size": 0, "A_N": np.zeros((0, 0)),
                                             "b_N": np.zeros(0)})
    out = _lemke(Mz, qz)
    n_solutions, reason = 1, ""
    sliding_points = bool(np.any(kind == SLIDING))
    z = out.z
    if sliding_points or not out.success:
        z, n_solutions, reason = _unique(Mz, qz, out, X, i_N, i_T, stick, D, k, F)
    lam = np.zeros(C.shape[1])
    lam[i_N] = z[:k]
    for j, p in enumerate(stick):
        lam[i_T[p]:i_T[p] + 2] = D @ z[k + F * j:k + F * (j + 1)]
    a = a0 + X @ lam
    u = A @ lam + b
    lambda_N = lam[i_N].copy()
    lambda_T = np.zeros((k, 2))
    u_T = np.zeros((k, 2))
    for p in range(k):
        if i_T[p] >= 0:
            lambda_T[p] = lam[i_T[p]:i_T[p] + 2]
            u_T[p] = u[i_T[p]:i_T[p] + 2]
        elif kind[p] == SLIDING:
            lambda_T[p] = -mu[p] * lambda_N[p] * slip[p]
    scale = max(float(np.max(np.abs(qz))) if n_z else 0.0, 1e-300)
    zeta = z[k + F * s:] if s else np.zeros(0)
    sliding = np.zeros(k, dtype=bool)
    sliding[stick] = zeta > ANSWER_TOL * scale
    return AccelerationSolution(a, L0 + Y @ lam, lambda_N, lambda_T, u[i_N], u_T, sliding,
                                success=not reason, reason=reason, residual=out.residual,
                                n_solutions=n_solutions,
                                details={"lcp_size": n_z, "A_N": A[np.ix_(i_N, i_N)],
                                         "b_N": b[i_N]})


def _lemke(Mz, qz):
    """Lemke's path with the standard covering vector, then random ones, the first point
    whose residual certifies it kept (as :func:`~nonsmooth.lcp.friction_contact.
    solve_friction_contact`: the four coplanar corners of a box make the problem degenerate,
    and a path may end on a secondary ray or at a basis too ill-conditioned to certify);
    ``success`` only with a certified residual."""
    tries = []
    for covering, seed in (("ones", 0), ("random", 1), ("random", 2), ("random", 3)):
        out = solve_lemke(Mz, qz, covering=covering, seed=seed, copositive_plus=False)
        tries.append(out)
        if np.all(np.isfinite(out.z)) and out.residual <= LCP_TOL:
            out.success = True
            return out
    out = min(tries, key=lambda o: o.residual if np.isfinite(o.residual) else np.inf)
    out.success = False
    return out


def _unique(Mz, qz, out, X, i_N, i_T, stick, D, k, F):
    """The LCP's solution where it is checked: every complementary basis enumerated (small
    problems) and the distinct accelerations counted; ``(z, n_solutions, reason)``."""
    if Mz.shape[0] > ENUMERATED:
        if out.success:
            return out.z, 1, ""
        return out.z, 0, f"no certified solution ({out.message})"
    every = solve_enumerate(Mz, qz, all_solutions=True)
    sols = every.solutions or []
    if not sols:
        return out.z, 0, "inconsistent"
    every_a = []
    for z in sols:
        lam = np.zeros(X.shape[1])
        lam[i_N] = z[:k]
        for j, p in enumerate(stick):
            lam[i_T[p]:i_T[p] + 2] = D @ z[k + F * j:k + F * (j + 1)]
        every_a.append(X @ lam)
    # distinct accelerations: apart by more than DISTINCT of their scale (the basic solutions
    # of a face's indeterminate forces give one acceleration up to their solves' round-off)
    scale = max(1.0, max(float(np.abs(a).max()) for a in every_a))
    accel = []
    for a in every_a:
        if not any(float(np.abs(a - b).max()) <= DISTINCT * scale for b in accel):
            accel.append(a)
    if len(accel) > 1:
        return sols[0], len(accel), "indeterminate"
    best = out.z if out.success else sols[0]
    return best, 1, ""


def closed_accelerations(M, f, G, r_G, W_N, W_T, c_N, c_T, mu, kind,
                         slip) -> AccelerationSolution:
    """The accelerations of a phase whose points are all held closed: each point's normal row
    ``W_N a + c_N = 0``, a sticking point's tangent rows ``W_T a + c_T = 0``, a sliding
    point's friction ``-mu lambda_N s`` in its column (arguments as
    :func:`acceleration_problem`). The points' forces are the least-norm solution of the
    rows' equations (a box flat on four corners: their forces are not unique, its motion is).
    """
    k = W_N.shape[0]
    C, H, i_N, i_T = _columns(W_N, W_T, mu, kind, slip)
    a0, L0, X, Y = _responses(M, G, f, r_G, C)
    rhs = -(H @ a0)
    rhs[i_N] -= c_N
    for p in range(k):
        if i_T[p] >= 0:
            rhs[i_T[p]:i_T[p] + 2] -= c_T[p]
    A = H @ X
    if A.shape[0]:
        lam = np.linalg.lstsq(A, rhs, rcond=1e-12)[0]
    else:
        lam = np.zeros(0)
    a = a0 + X @ lam
    lambda_N = lam[i_N].copy() if k else np.zeros(0)
    lambda_T = np.zeros((k, 2))
    for p in range(k):
        if i_T[p] >= 0:
            lambda_T[p] = lam[i_T[p]:i_T[p] + 2]
        elif kind[p] == SLIDING:
            lambda_T[p] = -mu[p] * lambda_N[p] * slip[p]
    u = A @ lam - rhs if A.shape[0] else np.zeros(0)
    residual = float(np.max(np.abs(u))) if u.size else 0.0
    return AccelerationSolution(a, L0 + Y @ lam, lambda_N, lambda_T, np.zeros(k),
                                np.zeros((k, 2)), np.zeros(k, dtype=bool), residual=residual)


def independent_rows(M: np.ndarray, G: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Which of ``rows`` (k, n_v) to keep, in order, so that with the joints' rows ``G``
    they are independent in the metric of ``M^-1`` (a row whose squared sine to those
    before it is below 1e-10 is left out): a boolean mask (k,)."""
    keep = np.zeros(rows.shape[0], dtype=bool)
    Minv = np.linalg.inv(M)
    basis = [r for r in G]
    for i, r in enumerate(rows):
        B = np.array(basis) if basis else np.zeros((0, rows.shape[1]))
        norm = float(r @ Minv @ r)
        if B.shape[0]:
            D = B @ Minv @ B.T
            c = B @ Minv @ r
            residual = norm - float(c @ np.linalg.lstsq(D, c, rcond=None)[0])
        else:
            residual = norm
        if residual > 1e-10 * norm:
            keep[i] = True
            basis.append(r)
    return keep
