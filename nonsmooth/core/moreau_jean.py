"""The one-step problem of Moreau-Jean time-stepping (``docs/design/moreau_jean.md``): the
velocity at the end of a step and the impulses of its active contacts and of the bilateral
constraints, as one mixed complementarity problem (the equalities eliminated, the rest an LCP
solved by :func:`nonsmooth.lcp.friction_contact.solve_friction_contact`).

With ``M`` the mass matrix, ``f`` the forces (applied, gyroscopic), ``h`` the step, the
bilateral constraints' velocity rows ``G v = g`` at the step's end and the active contacts'
normal rows ``W_N`` and tangent rows ``W_T``::

    M (v+ - v) = h f + G^T Lambda + W_N^T P_N + W_T^T P_T
    G v+ = g
    0 <= W_N v+ + e W_N v  _|_  P_N >= 0                 (Newton's impact law)
    P_T in mu P_N's (faceted) cone, opposite to W_T v+    (Coulomb)

Eliminating the equalities: ``K = [[M, -G^T], [G, 0]]``, the free velocity (no contact
impulse) ``K [v_free; Lambda_0] = [M v + h f; g]`` and each contact row's response ``K [X;
Y] = [H^T; 0]`` (``H`` the contact rows, per contact ``(n, t_1, t_2)``), so that ``v+ =
v_free + X P`` and ``Lambda = Lambda_0 + Y P``; the contacts' problem has the Delassus
operator ``A = H X`` and ``b = H v_free + (e W_N v, 0, 0)``. This module knows no element
kind: it takes matrices and returns the step's solution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..lcp.friction_contact import solve_friction_contact

__all__ = ["StepSolution", "solve_step"]


@dataclass
class StepSolution:
    """The solution of one step's problem (:func:`solve_step`).

    Attributes
    ----------
    v : ndarray, shape (n_v,)
        The velocity at the step's end, ``v+``.
    v_free : ndarray, shape (n_v,)
        The velocity without contact impulses (the bilateral constraints' included).
    P : ndarray, shape (3 n_a,)
        The active contacts' impulses (N s), per contact ``(P_N, P_T1, P_T2)``.
    Lambda : ndarray, shape (m,)
        The bilateral constraints' impulses over the step (N s).
    success : bool
        The contacts' LCP certified (always True without active contacts).
    residual : float
        Its scale-relative residual (0 without active contacts).
    message : str
        The LCP solver's message.
    """

    v: np.ndarray
    v_free: np.ndarray
    P: np.ndarray
    Lambda: np.ndarray
    success: bool = True
    residual: float = 0.0
    message: str = ""


def solve_step(M, v, hf, G, g, W_N, W_T, e, mu, *, facets: int = 8) -> StepSolution:
    """One Moreau-Jean step's velocity and impulses (module docstring).

    Parameters
    ----------
    M : ndarray, shape (n_v, n_v)
        The mass matrix (symmetric positive definite).
    v : ndarray, shape (n_v,)
        The velocity at the step's start.
    hf : ndarray, shape (n_v,)
        The impulse of the smooth forces over the step, ``h f`` (N s).
    G : ndarray, shape (m, n_v)
        The bilateral constraints' velocity rows (m may be 0).
    g : ndarray, shape (m,)
        Their velocities at the step's end, ``G v+ = g`` (``-phi_t``: 0 for scleronomic
        joints).
    W_N : ndarray, shape (n_a, n_v)
        The active contacts' normal rows (a gap's rate, > 0 separating).
    W_T : ndarray, shape (n_a, 2, n_v)
        Their tangent rows.
    e : ndarray, shape (n_a,)
        Newton's coefficients of restitution (-), in [0, 1].
    mu : ndarray, shape (n_a,)
        Coulomb's coefficients (-), >= 0.
    facets : int
        The faceted cone's facets (:func:`~nonsmooth.lcp.friction_contact.
        solve_friction_contact`).

    Returns
    -------
    StepSolution
    """
    n, m = v.size, G.shape[0]
    n_a = W_N.shape[0]
    rhs = M @ v + hf
    if m:
        K = np.zeros((n + m, n + m))
        K[:n, :n] = M
        K[:n, n:] = -G.T
        K[n:, :n] = G
        sol = np.linalg.solve(K, np.concatenate((rhs, g)))
        v_free, Lambda = sol[:n], sol[n:]
    else:
        K = M
        v_free, Lambda = np.linalg.solve(M, rhs), np.zeros(0)
    if not n_a:
        return StepSolution(v_free, v_free, np.zeros(0), Lambda)
    H = np.empty((3 * n_a, n))
    H[0::3] = W_N
    H[1::3] = W_T[:, 0]
    H[2::3] = W_T[:, 1]
    if m:
        XY = np.linalg.solve(K, np.vstack((H.T, np.zeros((m, 3 * n_a)))))
        X, Y = XY[:n], XY[n:]
    else:
        X, Y = np.linalg.solve(M, H.T), np.zeros((0, 3 * n_a))
    A = H @ X
    A = 0.5 * (A + A.T)  # (symmetric: roundoff of the solves removed)
    b = H @ v_free
    b[0::3] += e * (W_N @ v)
    out = solve_friction_contact(A, b, mu, facets=facets)
    return StepSolution(v_free + X @ out.r, v_free, out.r, Lambda + Y @ out.r, out.success,
                        out.residual, out.message)
