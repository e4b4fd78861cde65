"""The frictional contact problem of an impulse (Siconos numerics' ``FrictionContact``, with a
faceted Coulomb cone): an LCP solved by Lemke's method (:func:`~nonsmooth.lcp.lemke.solve_lemke`).

For ``n_c`` contacts, each with a normal and two tangent directions, the local velocities
``u = A r + b`` (``A`` (3 n_c, 3 n_c) the Delassus operator, symmetric positive semidefinite;
``b`` (3 n_c,); contact ``i``'s entries ``3 i`` (normal), ``3 i + 1``, ``3 i + 2``
(tangents)) and the reactions ``r`` (impulses) satisfy, per contact,

* Signorini at the velocity level: ``0 <= u_N _|_ r_N >= 0``;
* Coulomb's law on a cone of ``k`` facets (Stewart & Trinkle 1996, Anitescu & Potra 1997):
  ``r_T = D beta`` with the unit directions ``d_j = (cos(2 pi j / k), sin(2 pi j / k))``,
  ``0 <= beta_j _|_ d_j . u_T + lambda >= 0`` and ``0 <= lambda _|_ mu r_N - sum_j beta_j
  >= 0`` (``lambda`` the sliding speed along the facet: stick ``u_T = 0`` inside the
  pyramid, slip opposite to ``u_T``'s facet direction on its edge). A contact with ``mu = 0``
  has no tangent unknowns.

The unknowns ``z = [r_N (n_c), beta (k n_f), lambda (n_f)]`` (``n_f`` the contacts with
friction) solve one LCP ``w = M z + q``, ``0 <= z _|_ w >= 0``::

    M = [[A_NN,      A_NT D,      0],      q = [b_N,
         [D^T A_TN,  D^T A_TT D,  E],           D^T b_T,
         [diag(mu),  -E^T,        0]]           0]

(``E`` sums each contact's facets), which Lemke's method processes (the matrix is copositive,
Anitescu & Potra 1997, Theorem 1: the method ends at a solution for ``A`` positive
semidefinite). The normal impact law of restitution ``e`` enters through ``b_N = W_N v_free +
e u_N^-`` (the caller's). Nothing here knows mechanics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .lemke import solve_lemke

__all__ = ["FrictionContactResult", "solve_friction_contact", "facet_directions"]


def facet_directions(k: int) -> np.ndarray:
    """The ``k`` unit directions ``d_j = (cos(2 pi j / k), sin(2 pi j / k))`` of the faceted
    cone, shape (2, k)."""
    angle = 2.0 * np.pi * np.arange(k) / k
    D = np.vstack((np.cos(angle), np.sin(angle)))
    D[np.abs(D) < 1e-15] = 0.0  # (exact zeros on the axes: cos(pi / 2))
    return D


@dataclass
class FrictionContactResult:
    """The solution of :func:`solve_friction_contact`.

    Attributes
    ----------
    r : ndarray, shape (3 n_c,)
        The reactions (impulses, N s), per contact ``(r_N, r_T1, r_T2)``.
    u : ndarray, shape (3 n_c,)
        The local velocities ``A r + b`` (m/s).
    success : bool
        Whether the LCP's solution is certified: its scale-relative residual within the
        tolerance (``min(z, w) = 0`` to it: feasible and complementary), whichever way
        Lemke's path ended.
    residual : float
        The LCP's scale-relative residual (:func:`~nonsmooth.lcp.lcp_residual`).
    iterations : int
        Lemke's pivots (over every path tried).
    message : str
        What happened (the LCP solver's message on failure).
    """

    r: np.ndarray
    u: np.ndarray
    success: bool
    residual: float
    iterations: int
    message: str


def solve_friction_contact(A, b, mu, *, facets: int = 8,
                           tol: float = 1e-9) -> FrictionContactResult:
    """Solve the faceted frictional contact problem (module docstring).

    Parameters
    ----------
    A : array_like, shape (3 n_c, 3 n_c)
        The Delassus operator (s/kg in impulse units: velocity per impulse), positive
        semidefinite.
    b : array_like, shape (3 n_c,)
        The local velocities without reactions (m/s), with the restitution term in the normal
        entries.
    mu : array_like, shape (n_c,)
        Each contact's friction coefficient (-), >= 0 (0: frictionless, no tangent unknowns).
    facets : int
        The cone's facets ``k`` (>= 3; 4: a square pyramid along the tangents, 8 default).
    tol : float
        The certificate's residual tolerance.

    Returns
    -------
    FrictionContactResult

    Raises
    ------
    ValueError
        Shapes that disagree, a negative or non-finite ``mu``, fewer than 3 facets.
    """
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float).reshape(-1)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    n_c = mu.size
    if A.shape != (3 * n_c, 3 * n_c) or b.size != 3 * n_c:
        raise ValueError(f"solve_friction_contact: A {A.shape} and b ({b.size},) must be "
                         f"(3 n_c, 3 n_c) and (3 n_c,) for the {n_c} coefficients mu")
    if not np.all(np.isfinite(mu) & (mu >= 0.0)):
        raise ValueError(f"solve_friction_contact: mu = {mu} must be finite and >= 0")
    if int(facets) != facets or facets < 3:
        raise ValueError(f"solve_friction_contact: facets = {facets!r} must be an integer "
                         ">= 3")
    k = int(facets)
    if n_c == 1 and mu[0] == 0.0 and b[0] < 0.0 < A[0, 0]:  # one frictionless contact
        # pressed: r_N = -b_N / A_NN, its normal velocity zero (the LCP's one solution)
        r = np.array([-b[0] / A[0, 0], 0.0, 0.0])
        u = A @ r + b
        return FrictionContactResult(r, u, True, abs(float(u[0])), 0,
                                     "one frictionless contact: r_N = -b_N / A_NN")
    N = 3 * np.arange(n_c)
    rough = np.flatnonzero(mu > 0.0)
    n_f = rough.size
    D2 = facet_directions(k)
    # D: the tangent reactions (3 n_c rows) from the facets' beta (k n_f columns)
    D = np.zeros((3 * n_c, k * n_f))
    E = np.zeros((k * n_f, n_f))
    for f, i in enumerate(rough):
        D[3 * i + 1:3 * i + 3, k * f:k * (f + 1)] = D2
        E[k * f:k * (f + 1), f] = 1.0
    A_N = A[N]  # (n_c, 3 n_c) the normal rows
    size = n_c + k * n_f + n_f
    M = np.zeros((size, size))
    q = np.zeros(size)
    nb = slice(n_c, n_c + k * n_f)
    nl = slice(n_c + k * n_f, size)
    M[:n_c, :n_c] = A_N[:, N]
    M[:n_c, nb] = A_N @ D
    M[nb, :n_c] = D.T @ A[:, N]
    M[nb, nb] = D.T @ A @ D
    M[nb, nl] = E
    M[n_c + k * n_f + np.arange(n_f), rough] = mu[rough]
    M[nl, nb] = -E.T
    q[:n_c] = b[N]
    q[nb] = D.T @ b
    if np.all(b[N] >= 0.0):  # no contact is pressed: r = 0 (with beta = 0 and lambda =
        # max(0, -min_j d_j . b_T) the LCP's complementary point)
        return FrictionContactResult(np.zeros(3 * n_c), b.copy(), True, 0.0, 0,
                                     "no contact is pressed: zero reactions")
    # Lemke's path with the standard covering vector, then random ones: a degenerate
    # problem (four coplanar points of a box: the normal rows of A dependent) may end on a
    # secondary ray; the point is kept when its residual certifies it
    tries = []
    for covering, seed in (("ones", 0), ("random", 1), ("random", 2)):
        out = solve_lemke(M, q, covering=covering, seed=seed, copositive_plus=False)
        tries.append(out)
        if np.all(np.isfinite(out.z)) and out.residual <= tol:
            break
    else:
        out = min(tries, key=lambda o: o.residual if np.isfinite(o.residual) else np.inf)
    z = out.z
    r = D @ z[nb]
    r[N] = z[:n_c]
    u = A @ r + b
    success = bool(np.all(np.isfinite(z)) and out.residual <= tol)
    message = out.message if not success else \
        f"certified (residual {out.residual:.3g}) after {len(tries)} Lemke path(s)"
    return FrictionContactResult(r, u, success, float(out.residual),
                                 int(sum(o.iterations for o in tries)), message)
