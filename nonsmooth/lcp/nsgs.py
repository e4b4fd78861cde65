"""The frictional contact problem on the exact Coulomb cone, by a nonsmooth (projected)
Gauss-Seidel: Jean's NSCD (Jean 1999), Siconos numerics' ``fc3d_nsgs`` (Acary & Brogliato 2008,
chapter 13), with an exact local solver of each contact's 3x3 problem.

For ``n_c`` contacts with the local velocities ``u = A r + b`` (``A`` the Delassus operator,
(3 n_c, 3 n_c), symmetric positive semidefinite; contact ``i``'s entries ``3 i`` (normal),
``3 i + 1``, ``3 i + 2`` (tangents)), find the reactions (impulses) ``r`` with, per contact,
De Saxce's complementarity on the second-order cone (De Saxce & Feng 1998)::

    K_mu = {r : |r_T| <= mu r_N}  contains r  _|_  u_hat = u + mu |u_T| e_N  in K_mu*

which is Signorini (``0 <= u_N _|_ r_N >= 0``) with Coulomb's law (stick ``u_T = 0`` inside the
cone, slip ``r_T = -mu r_N u_T / |u_T|`` on its boundary). Unlike
:func:`~nonsmooth.lcp.friction_contact.solve_friction_contact` (Lemke on a faceted cone, which
certifies a solution), the cone is the round one and the answer is an iterate whose residual is
reported: the method converges linearly and is not certified.

The sweeps visit each contact in turn and solve its local problem exactly with the others'
reactions fixed (:func:`local_solve`): ``u_i = A_ii r_i + (b_i + sum_j!=i A_ij r_j)``. Two
forms:

* :func:`solve_nsgs`: a dense ``A`` (small problems, tests against Lemke);
* :func:`solve_nsgs_blocks`: matrix-free over bodies of six velocities with a block-diagonal
  inverse mass (free rigid bodies): each contact's rows ``H_i`` touch two bodies, ``u = H v +
  c``, ``v = v_free + M^-1 H^T r`` kept up to date after each local solve, so that a sweep
  costs O(n_c) and the Delassus operator ``H M^-1 H^T`` is never formed (its diagonal blocks
  only).

The residual (:func:`residual`) is the natural map's, ``|r - P_K(r - rho u_hat)|``, with
``rho_i = 1 / A_ii,NN`` per contact (impulse units), over all contacts (2-norm), relative to
``max(|r|, |r_0|)`` with ``r_0`` the contacts' "free" impulses ``|b_i| rho_i``: 0 exactly at a
solution (Siconos' ``fc3d_compute_error`` up to the scaling).

The local solver (a 3x3 problem ``u = W r + q``, ``W`` symmetric positive definite) takes, in
order, the first case that holds: take-off (``q_N >= 0``: ``r = 0``); stick (``r = -W^-1 q``
inside the cone); slip: ``r = r_N (1, mu cos t, mu sin t)`` with ``u_N = 0`` and the tangential
velocity opposite the tangential reaction, one scalar equation in the angle ``t`` (a
trigonometric polynomial of degree 2, at most 4 roots: the quartic of Siconos'
``fc3d_QuarticSolver``), solved by Newton from the stick solution's direction, else by
bracketing over the circle and bisection, to rounding. Alart & Curnier's Newton (Alart &
Curnier 1991) is the usual alternative; this one is exact in one dimension.

References
----------
Jean, M. (1999). The non-smooth contact dynamics method. CMAME 177, 235-257.
Acary, V., Brogliato, B. (2008). Numerical Methods for Nonsmooth Dynamical Systems, chapter 13.
De Saxce, G., Feng, Z.-Q. (1998). The bipotential method. Math. Comput. Modelling 28, 225-245.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["NSGSResult", "solve_nsgs", "solve_nsgs_blocks", "local_solve", "residual",
           "DEFAULT_TOL", "DEFAULT_MAX_ITER"]

#: The default relative residual at which the sweeps stop (Siconos' ``fc3d_nsgs`` default,
#: 1e-4), and the most sweeps.
DEFAULT_TOL = 1e-4
DEFAULT_MAX_ITER = 2000

#: The block sweeps compute the residual after the first sweep and then every this many.
RESIDUAL_EVERY = 4


@dataclass
class NSGSResult:
    """The outcome of :func:`solve_nsgs` / :func:`solve_nsgs_blocks`.

    Attributes
    ----------
    r : ndarray, shape (3 n_c,)
        The reactions (impulses, N s), per contact ``(r_N, r_T1, r_T2)``.
    u : ndarray, shape (3 n_c,)
        The local velocities ``A r + b`` (m/s).
    v : ndarray, shape (n_v,) or None
        :func:`solve_nsgs_blocks`: the velocities ``v_free + M^-1 H^T r``.
    success : bool
        Whether the relative residual reached ``tol``.
    residual : float
        The relative residual (module docstring).
    iterations : int
        The sweeps taken.
    message : str
    """

    r: np.ndarray
    u: np.ndarray
    v: np.ndarray | None
    success: bool
    residual: float
    iterations: int
    message: str


# ---------------------------------------------------------------------------- local problem
@njit(cache=True)
def _slip_g(W, q, mu, t):
    """The slip equation's value ``g(t) = F x d`` and ``F . d`` at the angle ``t``: ``d =
    (cos t, sin t)``, ``F = D u_T`` (``D = W_NN + mu W_NT . d``, ``r_N = -q_N / D``), and its
    derivative ``g'(t)``."""
    c = math.cos(t)
    s = math.sin(t)
    D = W[0, 0] + mu * (W[0, 1] * c + W[0, 2] * s)
    F1 = -q[0] * (W[1, 0] + mu * (W[1, 1] * c + W[1, 2] * s)) + D * q[1]
    F2 = -q[0] * (W[2, 0] + mu * (W[2, 1] * c + W[2, 2] * s)) + D * q[2]
    dD = mu * (-W[0, 1] * s + W[0, 2] * c)
    dF1 = -q[0] * mu * (-W[1, 1] * s + W[1, 2] * c) + dD * q[1]
    dF2 = -q[0] * mu * (-W[2, 1] * s + W[2, 2] * c) + dD * q[2]
    g = F1 * s - F2 * c
    dg = dF1 * s + F1 * c - dF2 * c + F2 * s
    return g, F1 * c + F2 * s, D, dg


@njit(cache=True)
def _slip_valid(W, q, mu, t):
    g, Fd, D, _ = _slip_g(W, q, mu, t)
    return D > 0.0 and Fd <= 1e-14 * (abs(q[1]) + abs(q[2]) + abs(q[0])) * (
        abs(W[0, 0]) + abs(W[1, 1]) + abs(W[2, 2]))


@njit(cache=True)
def _stick(W, q, out):
    """``out = -W^-1 q`` (Cramer's rule on the symmetric 3x3)."""
    a, b, c = W[0, 0], W[0, 1], W[0, 2]
    d, e, f = W[1, 1], W[1, 2], W[2, 2]
    c00 = d * f - e * e
    c01 = c * e - b * f
    c02 = b * e - c * d
    c11 = a * f - c * c
    c12 = b * c - a * e
    c22 = a * d - b * b
    det = a * c00 + b * c01 + c * c02
    out[0] = -(c00 * q[0] + c01 * q[1] + c02 * q[2]) / det
    out[1] = -(c01 * q[0] + c11 * q[1] + c12 * q[2]) / det
    out[2] = -(c02 * q[0] + c12 * q[1] + c22 * q[2]) / det


@njit(cache=True)
def _slip_newton(W, q, mu, t0):
    """Newton on the slip equation from the angle ``t0``: ``(t, converged)``."""
    t = t0
    for _ in range(40):
        g, _, _, dg = _slip_g(W, q, mu, t)
        if dg == 0.0 or not math.isfinite(g):
            return t, False
        step = g / dg
        t -= step
        if abs(step) <= 1e-13 * (1.0 + abs(t)):
            return t, _slip_valid(W, q, mu, t)
    return t, False


@njit(cache=True)
def _bisect(W, q, mu, lo, hi, glo):
    """A root of the slip equation in ``[lo, hi]`` where it changes sign (``glo`` its value
    at ``lo``), by bisection to rounding."""
    if glo == 0.0:
        return lo
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        gm = _slip_g(W, q, mu, mid)[0]
        if gm == 0.0:
            return mid
        if (gm < 0.0) == (glo < 0.0):
            lo, glo = mid, gm
        else:
            hi = mid
    return 0.5 * (lo + hi)


@njit(cache=True)
def _slip_bracket(W, q, mu, t0):
    """The valid root of the slip equation nearest ``t0``, by sign changes over 64 arcs of
    the circle and bisection: ``(t, found)``."""
    n = 64
    best = 1e300
    t = t0
    found = False
    ta = t0 - math.pi
    ga = _slip_g(W, q, mu, ta)[0]
    for k in range(1, n + 1):
        tb = t0 - math.pi + 2.0 * math.pi * k / n
        gb = _slip_g(W, q, mu, tb)[0]
        if ga == 0.0 or ga * gb < 0.0:
            root = _bisect(W, q, mu, ta, tb, ga)
            if _slip_valid(W, q, mu, root) and abs(root - t0) < best:
                best, t, found = abs(root - t0), root, True  # (root in [t0 - pi, t0 + pi])
        ta, ga = tb, gb
    return t, found


@njit(cache=True)
def _local(W, q, mu, out):
    """Solve the 3x3 problem into ``out`` (3,); returns 0 take-off, 1 stick, 2 slip, -1
    failure (no root of the slip equation: ``out`` the stick solution projected on the
    cone)."""
    if q[0] >= 0.0:  # take-off
        out[0] = 0.0
        out[1] = 0.0
        out[2] = 0.0
        return 0
    if mu == 0.0:  # frictionless
        out[0] = -q[0] / W[0, 0]
        out[1] = 0.0
        out[2] = 0.0
        return 1
    _stick(W, q, out)
    r0, r1, r2 = out[0], out[1], out[2]
    rT = math.sqrt(r1 * r1 + r2 * r2)
    if r0 >= 0.0 and rT <= mu * r0:
        return 1
    # slip: Newton on the angle from the stick reaction's tangential direction, else the
    # bracketing over the circle
    t0 = math.atan2(r2, r1) if rT > 0.0 else math.atan2(-q[2], -q[1])
    t, found = _slip_newton(W, q, mu, t0)
    if not found:
        t, found = _slip_bracket(W, q, mu, t0)
    if not found:
        _project(mu, r0, r1, r2, out)
        return -1
    D = _slip_g(W, q, mu, t)[2]
    rN = -q[0] / D
    out[0] = rN
    out[1] = mu * rN * math.cos(t)
    out[2] = mu * rN * math.sin(t)
    return 2


@njit(cache=True)
def _project(mu, zN, z1, z2, out):
    """The projection of ``z`` onto the cone ``K_mu`` into ``out`` (3,)."""
    zT = math.sqrt(z1 * z1 + z2 * z2)
    if zN >= 0.0 and zT <= mu * zN:
        out[0], out[1], out[2] = zN, z1, z2
    elif mu * zT <= -zN:
        out[0], out[1], out[2] = 0.0, 0.0, 0.0
    else:
        a = (zN + mu * zT) / (1.0 + mu * mu)
        out[0], out[1], out[2] = a, mu * a * z1 / zT, mu * a * z2 / zT


@njit(cache=True)
def _contact_error(mu, rho, r, u, tmp):
    """``|r - P_K(r - rho u_hat)|^2`` of one contact."""
    uT = math.sqrt(u[1] * u[1] + u[2] * u[2])
    _project(mu, r[0] - rho * (u[0] + mu * uT), r[1] - rho * u[1], r[2] - rho * u[2], tmp)
    return (r[0] - tmp[0]) ** 2 + (r[1] - tmp[1]) ** 2 + (r[2] - tmp[2]) ** 2


# ---------------------------------------------------------------------------- dense sweeps
@njit(cache=True)
def _dense(A, b, mu, r, tol, max_iter, scale0):
    n_c = mu.size
    W = np.empty((3, 3))
    q = np.empty(3)
    loc = np.empty(3)
    tmp = np.empty(3)
    u = A @ r + b
    res = np.inf
    it = 0
    failures = 0
    while it < max_iter:
        it += 1
        failures = 0
        for i in range(n_c):
            s = 3 * i
            for j in range(3):
                q[j] = u[s + j]
                for k in range(3):
                    W[j, k] = A[s + j, s + k]
            for j in range(3):
                for k in range(3):
                    q[j] -= W[j, k] * r[s + k]
            if _local(W, q, mu[i], loc) < 0:
                failures += 1
            for k in range(3):
                dr = loc[k] - r[s + k]
                if dr != 0.0:
                    r[s + k] = loc[k]
                    u += A[:, s + k] * dr
        err = 0.0
        for i in range(n_c):
            s = 3 * i
            err += _contact_error(mu[i], 1.0 / A[s, s], r[s:s + 3], u[s:s + 3], tmp)
        res = math.sqrt(err) / max(math.sqrt(np.sum(r * r)), scale0, 1e-300)
        if res <= tol:
            break
    return u, res, it, failures


def _check(name, mu, tol, max_iter):
    if not np.all(np.isfinite(mu) & (mu >= 0.0)):
        raise ValueError(f"{name}: mu = {mu} must be finite and >= 0")
    if not (math.isfinite(tol) and tol > 0.0):
        raise ValueError(f"{name}: tol = {tol!r} must be a number > 0")
    if isinstance(max_iter, bool) or int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"{name}: max_iter = {max_iter!r} must be an integer >= 1")


def solve_nsgs(A, b, mu, *, tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
               r0=None) -> NSGSResult:
    """Solve the frictional contact problem on the round cone with a dense Delassus operator
    (module docstring).

    Parameters
    ----------
    A : array_like, shape (3 n_c, 3 n_c)
        The Delassus operator (s/kg), symmetric, with positive definite 3x3 diagonal blocks.
    b : array_like, shape (3 n_c,)
        The local velocities without reactions (m/s; the restitution term in the normal
        entries).
    mu : array_like, shape (n_c,)
        Coulomb's coefficients (-), >= 0.
    tol : float
        The relative residual at which the sweeps stop.
    max_iter : int
        The most sweeps.
    r0 : array_like, shape (3 n_c,), optional
        The start (a warm start; zeros by default).

    Returns
    -------
    NSGSResult
        ``success`` False when ``max_iter`` sweeps did not reach ``tol``.
    """
    A = np.ascontiguousarray(A, dtype=float)
    b = np.asarray(b, dtype=float).reshape(-1)
    mu = np.ascontiguousarray(mu, dtype=float).reshape(-1)
    n_c = mu.size
    if A.shape != (3 * n_c, 3 * n_c) or b.size != 3 * n_c:
        raise ValueError(f"solve_nsgs: A {A.shape} and b ({b.size},) must be (3 n_c, 3 n_c) "
                         f"and (3 n_c,) for the {n_c} coefficients mu")
    _check("solve_nsgs", mu, tol, max_iter)
    r = np.zeros(3 * n_c) if r0 is None else np.array(r0, dtype=float).reshape(-1)
    if n_c == 0:
        return NSGSResult(r, b.copy(), None, True, 0.0, 0, "no contact")
    diag = A[3 * np.arange(n_c), 3 * np.arange(n_c)]
    scale0 = float(np.linalg.norm(np.abs(b).reshape(n_c, 3).max(axis=1) / diag))
    u, res, it, failures = _dense(A, b, mu, r, float(tol), int(max_iter), scale0)
    return _result(r, u, None, res, it, failures, tol)


def _result(r, u, v, res, it, failures, tol) -> NSGSResult:
    ok = bool(res <= tol)
    msg = (f"converged: residual {res:.3g} <= {tol:.3g} after {it} sweep(s)" if ok else
           f"not converged: residual {res:.3g} > {tol:.3g} after {it} sweep(s)")
    if failures:
        msg += f"; {failures} local problem(s) without a slip root in the last sweep"
    return NSGSResult(r, u, v, ok, float(res), int(it), msg)


# ---------------------------------------------------------------------------- block sweeps
@njit(cache=True)
def _local_velocity(i, a, b, Ha, Hb, v, c, out):
    """``out = Ha_i v_a + Hb_i v_b + c_i`` (3,): contact ``i``'s local velocity."""
    ai, bi = a[i], b[i]
    for j in range(3):
        s = c[i, j]
        if ai >= 0:
            for k in range(6):
                s += Ha[i, j, k] * v[6 * ai + k]
        if bi >= 0:
            for k in range(6):
                s += Hb[i, j, k] * v[6 * bi + k]
        out[j] = s


@njit(cache=True)
def _push(i, a, b, Ga, Gb, v, dr):
    """``v += M^-1 H_i^T dr``: contact ``i``'s reaction change ``dr`` (3,) on its bodies."""
    for j in range(3):
        if dr[j] != 0.0:
            if a[i] >= 0:
                for k in range(6):
                    v[6 * a[i] + k] += Ga[i, k, j] * dr[j]
            if b[i] >= 0:
                for k in range(6):
                    v[6 * b[i] + k] += Gb[i, k, j] * dr[j]


@njit(cache=True)
def _delassus_blocks(a, b, Ha, Hb, Minv):
    """Per contact ``M^-1 H^T`` on each body, (n_c, 6, 3) twice, and the diagonal block of
    the Delassus operator ``W_ii`` (n_c, 3, 3)."""
    n_c = a.size
    Ga = np.zeros((n_c, 6, 3))
    Gb = np.zeros((n_c, 6, 3))
    Wd = np.zeros((n_c, 3, 3))
    for i in range(n_c):
        if a[i] >= 0:
            Ga[i] = Minv[a[i]] @ Ha[i].T
            Wd[i] += Ha[i] @ Ga[i]
        if b[i] >= 0:
            Gb[i] = Minv[b[i]] @ Hb[i].T
            Wd[i] += Hb[i] @ Gb[i]
    return Ga, Gb, Wd


@njit(cache=True)
def _block_residual(a, b, Ha, Hb, v, c, mu, r, Wd, u, scale0):
    """The relative residual (module docstring) at ``(r, v)``; ``u`` (3 n_c,) receives the
    local velocities."""
    tmp = np.empty(3)
    err = 0.0
    for i in range(mu.size):
        _local_velocity(i, a, b, Ha, Hb, v, c, u[3 * i:3 * i + 3])
        err += _contact_error(mu[i], 1.0 / Wd[i, 0, 0], r[3 * i:3 * i + 3],
                              u[3 * i:3 * i + 3], tmp)
    return math.sqrt(err) / max(math.sqrt(np.sum(r * r)), scale0, 1e-300)


@njit(cache=True)
def _blocks(a, b, Ha, Hb, Minv, v, c, mu, r, tol, max_iter, scale0, relax):
    """Matrix-free sweeps (:func:`solve_nsgs_blocks`); ``v`` and ``r`` updated in place.
    Returns ``(u, residual, sweeps, local failures in the last sweep)``."""
    n_c = mu.size
    Ga, Gb, Wd = _delassus_blocks(a, b, Ha, Hb, Minv)
    for i in range(n_c):  # the start: v = v_free + M^-1 H^T r0
        _push(i, a, b, Ga, Gb, v, r[3 * i:3 * i + 3])
    q = np.empty(3)
    loc = np.empty(3)
    u = np.empty(3 * n_c)
    res = np.inf
    it = 0
    failures = 0
    while it < max_iter:
        it += 1
        failures = 0
        for i in range(n_c):
            _local_velocity(i, a, b, Ha, Hb, v, c, q)
            for j in range(3):  # (the others' part: q = u_i - W_ii r_i)
                for k in range(3):
                    q[j] -= Wd[i, j, k] * r[3 * i + k]
            if _local(Wd[i], q, mu[i], loc) < 0:
                failures += 1
            if relax != 1.0 and it > 1:  # (over-relaxed, back onto the cone)
                _project(mu[i], r[3 * i] + relax * (loc[0] - r[3 * i]),
                         r[3 * i + 1] + relax * (loc[1] - r[3 * i + 1]),
                         r[3 * i + 2] + relax * (loc[2] - r[3 * i + 2]), loc)
            for j in range(3):
                loc[j] -= r[3 * i + j]  # (the change)
                r[3 * i + j] += loc[j]
            _push(i, a, b, Ga, Gb, v, loc)
        if it % RESIDUAL_EVERY and it < max_iter and it > 1:
            continue
        # the residual at the sweep's end (every RESIDUAL_EVERY sweeps: a third of one's cost)
        res = _block_residual(a, b, Ha, Hb, v, c, mu, r, Wd, u, scale0)
        if res <= tol:
            break
    return u, res, it, failures


@njit(cache=True)
def _free_scale(a, b, Ha, Hb, Minv, v, c):
    """``|(|H_i v + c_i| / W_ii,NN)_i|``: the problem's impulse scale at ``r = 0``."""
    n_c = a.size
    s2 = 0.0
    for i in range(n_c):
        w = 0.0
        m = 0.0
        for j in range(3):
            s = c[i, j]
            if a[i] >= 0:
                for k in range(6):
                    s += Ha[i, j, k] * v[6 * a[i] + k]
            if b[i] >= 0:
                for k in range(6):
                    s += Hb[i, j, k] * v[6 * b[i] + k]
            m = max(m, abs(s))
        if a[i] >= 0:
            w += Ha[i, 0] @ Minv[a[i]] @ Ha[i, 0]
        if b[i] >= 0:
            w += Hb[i, 0] @ Minv[b[i]] @ Hb[i, 0]
        s2 += (m / w) ** 2
    return math.sqrt(s2)


def solve_nsgs_blocks(a, b, Ha, Hb, Minv, v_free, c, mu, *, tol: float = DEFAULT_TOL,
                      max_iter: int = DEFAULT_MAX_ITER, r0=None,
                      relax: float = 1.0) -> NSGSResult:
    """Solve the frictional contact problem of contacts between bodies of six velocities each
    with a block-diagonal inverse mass, without forming the Delassus operator (module
    docstring): ``u = H v + c``, ``v = v_free + M^-1 H^T r``.

    Parameters
    ----------
    a, b : array_like of int, shape (n_c,)
        Each contact's two bodies (their velocities ``v[6 a:6 a + 6]``); -1 a fixed body (the
        ground: no columns).
    Ha, Hb : array_like, shape (n_c, 3, 6)
        The contact's rows (normal, tangent 1, tangent 2) on body a's and body b's velocities
        (the signs included: ``u_i = Ha_i v_a + Hb_i v_b + c_i``).
    Minv : array_like, shape (n_bodies, 6, 6)
        Each body's inverse mass matrix (1/kg, 1/(kg m^2)).
    v_free : array_like, shape (6 n_bodies,)
        The velocities without reactions (m/s, rad/s).
    c : array_like, shape (n_c, 3)
        The local velocities' constant terms (m/s; the restitution term ``e u_N^-`` in the
        normal entries).
    mu : array_like, shape (n_c,)
        Coulomb's coefficients (-), >= 0.
    tol, max_iter, r0
        As :func:`solve_nsgs` (``r0`` shape (3 n_c,), a warm start).
    relax : float
        Over-relaxation from the second sweep on, in (0, 2): each contact's reaction moves
        ``relax`` times to its local solution and is projected back onto the cone (a projected
        over-relaxation, as Siconos' ``fc3d_nsgs`` relaxation option; 1 plain Gauss-Seidel;
        the first sweep is always plain, so that uncoupled contacts are solved exactly in
        one). The stopping residual is the natural map's whatever ``relax``.

    Returns
    -------
    NSGSResult
        ``v`` the velocities ``v_free + M^-1 H^T r``.
    """
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    Ha = np.ascontiguousarray(Ha, dtype=float)
    Hb = np.ascontiguousarray(Hb, dtype=float)
    Minv = np.ascontiguousarray(Minv, dtype=float)
    c = np.ascontiguousarray(c, dtype=float)
    mu = np.ascontiguousarray(mu, dtype=float).reshape(-1)
    n_c = mu.size
    if Ha.shape != (n_c, 3, 6) or Hb.shape != (n_c, 3, 6) or c.shape != (n_c, 3) \
            or a.shape != (n_c,) or b.shape != (n_c,):
        raise ValueError(f"solve_nsgs_blocks: a, b ({n_c},), Ha, Hb ({n_c}, 3, 6) and c "
                         f"({n_c}, 3) expected for the {n_c} coefficients mu")
    _check("solve_nsgs_blocks", mu, tol, max_iter)
    if not 0.0 < relax < 2.0:
        raise ValueError(f"solve_nsgs_blocks: relax = {relax!r} must be in (0, 2)")
    v = np.array(v_free, dtype=float)
    r = np.zeros(3 * n_c) if r0 is None else np.array(r0, dtype=float).reshape(-1)
    if n_c == 0:
        return NSGSResult(r, np.zeros(0), v, True, 0.0, 0, "no contact")
    scale0 = _free_scale(a, b, Ha, Hb, Minv, v, c)
    u, res, it, failures = _blocks(a, b, Ha, Hb, Minv, v, c, mu, r, float(tol),
                                   int(max_iter), scale0, float(relax))
    return _result(r, u, v, res, it, failures, tol)


def local_solve(W, q, mu) -> tuple[np.ndarray, str]:
    """The exact solution of one contact's problem ``u = W r + q`` on the cone ``K_mu``
    (module docstring).

    Parameters
    ----------
    W : array_like, shape (3, 3)
        The contact's Delassus block (s/kg), symmetric positive definite.
    q : array_like, shape (3,)
        Its local velocity without reaction (m/s).
    mu : float
        Coulomb's coefficient (-), >= 0.

    Returns
    -------
    r : ndarray, shape (3,)
        The reaction (N s), ``(r_N, r_T1, r_T2)``.
    case : {"take-off", "stick", "slip", "failed"}
    """
    out = np.zeros(3)
    k = _local(np.ascontiguousarray(W, dtype=float), np.asarray(q, dtype=float).reshape(3),
               float(mu), out)
    return out, {0: "take-off", 1: "stick", 2: "slip", -1: "failed"}[k]


def residual(A, b, mu, r) -> float:
    """The relative natural-map residual of ``r`` for the dense problem ``(A, b, mu)``
    (module docstring): 0 at a solution."""
    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float).reshape(-1)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    r = np.asarray(r, dtype=float).reshape(-1)
    u = A @ r + b
    tmp = np.empty(3)
    err = 0.0
    n_c = mu.size
    for i in range(n_c):
        s = 3 * i
        err += _contact_error(float(mu[i]), 1.0 / A[s, s], r[s:s + 3], u[s:s + 3], tmp)
    diag = A[3 * np.arange(n_c), 3 * np.arange(n_c)]
    scale0 = float(np.linalg.norm(np.abs(b).reshape(n_c, 3).max(axis=1) / diag)) if n_c else 0
    return math.sqrt(err) / max(float(np.linalg.norm(r)), scale0, 1e-300)
