"""Independent Newton-Euler reference solution for the crank-rocker benchmark.

Test oracle for the multibody engine; it deliberately imports nothing from
``nonsmooth``.  It lives beside the model (installed as
``nonsmooth.models._crank_rocker_newton_euler``) so that the tests and the notebooks import it
without a path into ``tests/`` (``tests/oracles/newton_euler.py`` re-exports it for the tests).
Geometry and sign conventions follow ``docs/method.md`` section 12:

* O = (0, 0), O1 = (0, L4), y up, gravity along -y.
* Angles are measured from +y, clockwise positive; a bar at angle th points
  along (sin th, cos th).
* Crank O1B driven: theta2 = omega t.  Slider B (point mass m3) is pinned at the
  crank tip, B = O1 + L3 (sin theta2, cos theta2), and slides in the rocker slot.
* Rocker OA pivots at O: u = (sin theta1, cos theta1), n = (cos theta1, -sin theta1).
* lambda_N: force of the rocker on the slider along n.  F_f: friction force on
  the slider along u, F_f = -mu |lambda_N| sgn(v_r), v_r = d|OB|/dt.  The rocker
  receives -lambda_N n - F_f u at B.
* Damping torque -c dtheta1/dt on the rocker; tau = driving torque on the crank
  (clockwise positive, like theta2).

Clockwise moment of a force F applied at r (relative to the pivot):
``-(r_x F_y - r_y F_x)``.

Useful closed forms (D = s^2 = L3^2 + L4^2 + 2 L3 L4 cos theta2)::

    tan theta1 = L3 sin theta2 / (L4 + L3 cos theta2)
    omega1     = omega L3 (L3 + L4 cos theta2) / D
    alpha1     = -omega^2 L3 L4 (L4^2 - L3^2) sin theta2 / D^2
    v_r        = -omega L3 L4 sin theta2 / s

Physical remark (an oracle fact worth testing in the engine): the friction force
acts along u, i.e. through the rocker pivot O, so it has no moment about O.  The
rocker's Euler equation therefore gives lambda_N independently of friction:
``lambda_N = (m1 g L1 sin theta1 - c omega1 - J1 alpha1) / s``.  The scalar HLCP
coefficient ``a`` of ``lambda_N = c + a |lambda_N|`` is exactly 0 for this
mechanism; friction only changes F_f, the pin reactions and tau.  The code below
nevertheless solves the full coupled linear system with sign enumeration, as a
generic Newton-Euler solution would.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULTS", "UNKNOWNS", "kinematics", "newton_euler_branch", "newton_euler_forces",
           "energy"]

DEFAULTS: dict[str, float] = {
    "J1": 16.0 / 3.0,  # rocker inertia about O [kg m^2]
    "m1": 4.0,  # rocker mass [kg]
    "L1": 1.0,  # O -> rocker centre of mass [m]
    "J2": 1.0 / 6.0,  # crank inertia about O1 [kg m^2]
    "m2": 2.0,  # crank mass [kg]
    "L2": 0.25,  # O1 -> crank centre of mass [m]
    "m3": 0.5,  # slider mass [kg]
    "L3": 0.5,  # O1 -> B [m]
    "L4": 1.0,  # O -> O1 [m]
    "mu": 0.2,  # sliding friction coefficient
    "omega": 3.0,  # crank speed [rad/s]
    "c": 0.0,  # rocker damping [N m s/rad]
    "g": 9.81,  # gravity [m/s^2]
}

# Order of the unknowns in the Newton-Euler linear system.
UNKNOWNS = (
    "lambda_N",  # rocker -> slider, along n
    "F_f",  # friction on slider, along u
    "tau",  # driving torque on crank (clockwise)
    "R_Ox",  # ground -> rocker at O
    "R_Oy",
    "R_O1x",  # ground -> crank at O1
    "R_O1y",
    "P_Bx",  # crank -> slider at B (slider -> crank is -P_B)
    "P_By",
)


def _params(params: dict) -> dict[str, float]:
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise TypeError(f"unknown parameter(s): {sorted(unknown)}")
    p = dict(DEFAULTS)
    p.update({k: float(v) for k, v in params.items()})
    if not p["L4"] > p["L3"] > 0.0:
        raise ValueError("crank-rocker geometry requires L4 > L3 > 0")
    return p


def _moment(rx, ry, fx, fy):
    """Clockwise-positive moment of force (fx, fy) applied at (rx, ry)."""
    return -(rx * fy - ry * fx)


def _kin_scalar(t: float, p: dict[str, float]) -> dict[str, float]:
    L3, L4, w = p["L3"], p["L4"], p["omega"]
    th2 = w * t
    s2, c2 = np.sin(th2), np.cos(th2)
    bx, by = L3 * s2, L4 + L3 * c2  # slider position B
    D = L3 * L3 + L4 * L4 + 2.0 * L3 * L4 * c2  # = |OB|^2
    s = np.sqrt(D)
    K = L3 * L4
    th1 = np.arctan2(bx, by)  # by > 0 since L4 > L3

    omega1 = w * L3 * (L3 + L4 * c2) / D
    alpha1 = -w * w * K * (L4 * L4 - L3 * L3) * s2 / D**2
    jerk1 = -(w**3) * K * (L4 * L4 - L3 * L3) * (c2 / D**2 + 4.0 * K * s2 * s2 / D**3)

    v_r = -w * K * s2 / s
    a_r = -w * w * K * (c2 / s + K * s2 * s2 / s**3)
    jerk_r = (
        -(w**3) * K * (-s2 / s + 3.0 * K * s2 * c2 / s**3 + 3.0 * K * K * s2**3 / s**5)
    )

    return {
        "t": float(t),
        "theta2": th2,
        "omega2": w,
        "alpha2": 0.0,
        "theta1": th1,
        "omega1": omega1,
        "alpha1": alpha1,
        "jerk1": jerk1,  # d alpha1 / dt
        "s": s,  # |OB|
        "v_r": v_r,  # ds/dt
        "a_r": a_r,  # d v_r / dt
        "jerk_r": jerk_r,  # d a_r / dt
        "Bx": bx,
        "By": by,
        "vBx": w * L3 * c2,
        "vBy": -w * L3 * s2,
        "aBx": -w * w * L3 * s2,
        "aBy": -w * w * L3 * c2,
    }


def _vectorize(fun, t, p):
    t_arr = np.asarray(t, dtype=float)
    if t_arr.ndim == 0:
        return fun(float(t_arr), p)
    flat = [fun(float(ti), p) for ti in t_arr.ravel()]
    out = {}
    for key in flat[0]:
        vals = [d[key] for d in flat]
        if isinstance(vals[0], (int, float, np.floating, np.integer)):
            out[key] = np.asarray(vals, dtype=float).reshape(t_arr.shape)
        else:
            out[key] = np.asarray(vals, dtype=object).reshape(t_arr.shape)
    return out


def kinematics(t, **params) -> dict:
    """Exact closed-form kinematics of the crank-rocker at time(s) ``t``.

    Returns a dict (scalars for scalar ``t``, arrays of ``t``'s shape otherwise):
    theta2, omega2, alpha2 (crank, theta2 = omega t); theta1, omega1, alpha1,
    jerk1 (rocker angle and its first three time derivatives); s = |OB|,
    v_r = ds/dt (slider velocity relative to the rocker along u), a_r, jerk_r;
    Bx, By, vBx, vBy, aBx, aBy (absolute slider position, velocity, acceleration).
    """
    p = _params(params)
    return _vectorize(_kin_scalar, t, p)


def _sgn(x: float) -> float:
    return 1.0 if x > 0.0 else (-1.0 if x < 0.0 else 0.0)


def _assemble(k: dict[str, float], p: dict[str, float], branch: float):
    """Newton-Euler equations of the three bodies as A x = b (x in UNKNOWNS order).

    ``branch`` = +1 assumes lambda_N >= 0, -1 assumes lambda_N <= 0, so that
    |lambda_N| = branch * lambda_N and F_f = -mu * branch * sgn(v_r) * lambda_N.
    """
    g, m1, m2, m3 = p["g"], p["m1"], p["m2"], p["m3"]
    J1, J2, L1, L2, L3 = p["J1"], p["J2"], p["L1"], p["L2"], p["L3"]
    th1, w1, a1 = k["theta1"], k["omega1"], k["alpha1"]
    th2, w2, a2 = k["theta2"], k["omega2"], k["alpha2"]
    ux, uy = np.sin(th1), np.cos(th1)
    nx, ny = np.cos(th1), -np.sin(th1)
    e2x, e2y = np.sin(th2), np.cos(th2)  # crank direction
    n2x, n2y = np.cos(th2), -np.sin(th2)
    Bx, By = k["Bx"], k["By"]  # B relative to O
    rBx, rBy = L3 * e2x, L3 * e2y  # B relative to O1

    A = np.zeros((9, 9))
    b = np.zeros(9)
    iL, iF, iT, iROx, iROy, iR1x, iR1y, iPx, iPy = range(9)

    # --- rocker, Euler about O:  J1 alpha1 = sum of clockwise moments
    # contact force on rocker: -lambda_N n - F_f u at B
    r = 0
    A[r, iL] = _moment(Bx, By, -nx, -ny)
    A[r, iF] = _moment(Bx, By, -ux, -uy)
    b[r] = J1 * a1 - _moment(L1 * ux, L1 * uy, 0.0, -m1 * g) + p["c"] * w1
    # --- rocker, Newton:  m1 a_G1 = R_O - lambda_N n - F_f u + m1 g
    aG1x = L1 * (a1 * nx - w1 * w1 * ux)
    aG1y = L1 * (a1 * ny - w1 * w1 * uy)
    r = 1
    A[r, iROx], A[r, iL], A[r, iF] = 1.0, -nx, -ux
    b[r] = m1 * aG1x
    r = 2
    A[r, iROy], A[r, iL], A[r, iF] = 1.0, -ny, -uy
    b[r] = m1 * aG1y + m1 * g

    # --- crank, Euler about O1:  J2 alpha2 = tau + M(-P_B at B) + M(gravity at G2)
    r = 3
    A[r, iT] = 1.0
    A[r, iPx] = _moment(rBx, rBy, -1.0, 0.0)
    A[r, iPy] = _moment(rBx, rBy, 0.0, -1.0)
    b[r] = J2 * a2 - _moment(L2 * e2x, L2 * e2y, 0.0, -m2 * g)
    # --- crank, Newton:  m2 a_G2 = R_O1 - P_B + m2 g
    aG2x = L2 * (a2 * n2x - w2 * w2 * e2x)
    aG2y = L2 * (a2 * n2y - w2 * w2 * e2y)
    r = 4
    A[r, iR1x], A[r, iPx] = 1.0, -1.0
    b[r] = m2 * aG2x
    r = 5
    A[r, iR1y], A[r, iPy] = 1.0, -1.0
    b[r] = m2 * aG2y + m2 * g

    # --- slider, Newton:  m3 a_B = P_B + lambda_N n + F_f u + m3 g
    r = 6
    A[r, iPx], A[r, iL], A[r, iF] = 1.0, nx, ux
    b[r] = m3 * k["aBx"]
    r = 7
    A[r, iPy], A[r, iL], A[r, iF] = 1.0, ny, uy
    b[r] = m3 * k["aBy"] + m3 * g

    # --- Coulomb sliding law on the assumed branch:
    #     F_f + mu * branch * sgn(v_r) * lambda_N = 0
    r = 8
    A[r, iF] = 1.0
    A[r, iL] = p["mu"] * branch * _sgn(k["v_r"])
    b[r] = 0.0
    return A, b


def _solve_branch_scalar(t: float, p: dict[str, float], branch: float) -> dict:
    k = _kin_scalar(t, p)
    A, b = _assemble(k, p, branch)
    x = np.linalg.solve(A, b)
    out = {name: float(v) for name, v in zip(UNKNOWNS, x, strict=True)}
    out["consistent"] = bool(branch * out["lambda_N"] >= 0.0)
    out["residual"] = float(np.max(np.abs(A @ x - b)))
    return out


def newton_euler_branch(t, branch: int, **params) -> dict:
    """Solve the Newton-Euler system on a *given* sign branch, without checking it.

    ``branch`` = +1 assumes lambda_N >= 0, -1 assumes lambda_N <= 0.  The returned
    dict has the UNKNOWNS plus ``consistent`` (branch * lambda_N >= 0) and
    ``residual`` (max |A x - b|).  Exposed for tests; use :func:`newton_euler_forces`.
    """
    if branch not in (1, -1):
        raise ValueError("branch must be +1 or -1")
    p = _params(params)
    return _vectorize(lambda ti, pp: _solve_branch_scalar(ti, pp, float(branch)), t, p)


def _forces_scalar(t: float, p: dict[str, float]) -> dict:
    sols = {br: _solve_branch_scalar(t, p, float(br)) for br in (1, -1)}
    ok = [br for br, s in sols.items() if s["consistent"]]
    if not ok:
        raise RuntimeError(f"no consistent friction sign branch at t={t!r}: {sols}")
    if len(ok) == 2:
        # Only possible with lambda_N == 0 on both branches; then F_f = 0 on both
        # and the two solutions coincide.  Anything else is an indeterminacy.
        a, b = sols[1], sols[-1]
        scale = 1.0 + max(abs(a[n]) for n in UNKNOWNS)
        if any(abs(a[n] - b[n]) > 1e-12 * scale for n in UNKNOWNS):
            raise RuntimeError(
                f"two distinct consistent sign branches at t={t!r}: {sols}"
            )
    br = ok[0]
    s = sols[br]
    k = _kin_scalar(t, p)
    out = {name: s[name] for name in UNKNOWNS}
    out["N"] = abs(s["lambda_N"])
    out["branch"] = float(br)
    out["sgn_v_r"] = _sgn(k["v_r"])
    out["residual"] = s["residual"]
    for key in ("theta1", "omega1", "alpha1", "theta2", "s", "v_r"):
        out[key] = k[key]
    return out


def newton_euler_forces(t, **params) -> dict:
    """Newton-Euler forces of the crank-rocker at time(s) ``t`` (scalar or array).

    Each body is treated separately (rocker: Euler about O + Newton; crank: Euler
    about O1 + Newton; slider: Newton for a point mass), giving 8 linear equations
    in 9 unknown forces; the Coulomb law F_f = -mu |lambda_N| sgn(v_r) closes the
    system.  Its |lambda_N| dependence is handled by exact sign enumeration: the
    system is solved with |lambda_N| = +lambda_N and with |lambda_N| = -lambda_N,
    and the branch whose lambda_N has the assumed sign is kept.  Exactly one branch
    must be consistent (if lambda_N == 0 exactly both are, with identical
    solutions, which is accepted); otherwise RuntimeError is raised.

    At v_r == 0 exactly (theta2 = omega t equal to 0 or pi in floating point, in
    practice t == 0) sgn(v_r) = 0 is used, i.e. F_f = 0.  For t near pi/omega the
    floating-point sign of v_r decides the side of the friction jump.

    Returns (scalars or arrays): lambda_N (force of rocker on slider along n, N),
    F_f (friction on slider along u, N), tau (driving torque on crank, N m,
    clockwise), R_Ox, R_Oy (ground on rocker at O), R_O1x, R_O1y (ground on crank
    at O1), P_Bx, P_By (crank on slider through the pin at B), N = |lambda_N|,
    branch (+1/-1), sgn_v_r, residual, and the kinematic quantities theta1,
    omega1, alpha1, theta2, s, v_r.
    """
    p = _params(params)
    return _vectorize(_forces_scalar, t, p)


def energy(t, **params) -> dict:
    """Kinetic and potential energy of the three bodies (V = 0 at y = 0)."""
    p = _params(params)
    k = kinematics(t, **params)
    T = 0.5 * (
        p["J1"] * k["omega1"] ** 2
        + p["J2"] * k["omega2"] ** 2
        + p["m3"] * (k["vBx"] ** 2 + k["vBy"] ** 2)
    )
    V = p["g"] * (
        p["m1"] * p["L1"] * np.cos(k["theta1"])
        + p["m2"] * (p["L4"] + p["L2"] * np.cos(k["theta2"]))
        + p["m3"] * k["By"]
    )
    return {"T": T, "V": V, "E": T + V}


if __name__ == "__main__":  # pragma: no cover - table for humans
    for c in (0.0, 8.0):
        for t in (0.1, 0.5, 1.0):
            f = newton_euler_forces(t, c=c)
            print(
                f"c={c:3.0f} t={t:4.2f} lambda_N={f['lambda_N']: .10f} "
                f"F_f={f['F_f']: .10f} tau={f['tau']: .10f}"
            )
