"""The crank-rocker run: nonsmooth against a plain numpy implementation of the same method.

    python benchmarks/crank_rocker_numpy.py [--quick]

Baseline (issue 10): the paper's two-coordinate form ``q = [theta1, theta2]`` written out by
hand (``models/crank_rocker.py`` ``form="lagrange"``, ``docs/method.md`` section 12, c = 8
N m s/rad, alpha = beta = 10 1/s): each evaluation assembles ``M``, ``f``, ``G``, ``gamma``,
``W`` with ``math`` and small numpy arrays, solves the KKT system
``[[M, -G^T], [G, 0]] x = [f, gamma - 2 alpha dphi - beta^2 phi | -mu s W^T, 0]`` (two
right-hand sides) by ``np.linalg.solve`` and the scalar HLCP ``lambda_N = c + a |lambda_N|`` by
its closed form (``c / (1 - a)`` for ``c >= 0``, else ``c / (1 + a)``); fixed-step RK4,
h = 1e-3 s over 0-5 s, the slider's reversals (``v_r = 0``, where the sliding direction ``s``
flips) located on the step's cubic Hermite interpolant and the step split there, as the engine
does. It keeps no work integrals, event log or records beyond ``lambda_N``, ``F_f``, ``tau``.

Engine: ``nonsmooth.simulate(crank_rocker.build(c=8.0), 5.0, method="RK4", dt=1e-3)``.

Printed: both wall times (best of 3, one process), the ratio engine / baseline (issue 10's
target: <= 0.1), and the agreement of ``lambda_N``, ``F_f`` and ``tau`` on the 5001 output
times (max difference relative to the largest value; the check is 1e-8 for lambda_N).

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np
from _timing import best_of
from scipy.optimize import brentq

# docs/method.md section 12 (SI)
J1, M1, L1, J2, M2, L2, M3, L3, L4 = 16 / 3, 4.0, 1.0, 1 / 6, 2.0, 0.25, 0.5, 0.5, 1.0
MU, OMEGA, C, G_ACC, ALPHA, BETA = 0.2, 3.0, 8.0, 9.81, 10.0, 10.0
T_END, H = 5.0, 1e-3
TARGET = 0.1  # issue 10: the engine's run at <= 0.1 x this baseline's wall time

MASS = np.diag([J1, J2 + M3 * L3 ** 2])
GRAV1, GRAV2 = M1 * G_ACC * L1, (M2 * L2 + M3 * L3) * G_ACC
CALLS = [0]  # evaluations made (one list item: cheaper to bump than a global statement)


def evaluate(t: float, y: np.ndarray, s: float) -> tuple[np.ndarray, float, float]:
    """One evaluation in sliding direction ``s`` (+1 / -1).

    Parameters
    ----------
    t : float
    y : ndarray, shape (4,)
        ``[theta1, theta2, omega1, omega2]``.
    s : float
        Sign of the sliding velocity ``v_r`` in this phase.

    Returns
    -------
    dy : ndarray, shape (4,)
        ``[omega1, omega2, alpha1, alpha2]``.
    lambda_N : float
        Normal force of the rocker on the slider (N).
    tau : float
        Driving torque on the crank (N m).
    """
    CALLS[0] += 1
    th1, th2, w1, w2 = y
    s21, c21 = math.sin(th2 - th1), math.cos(th2 - th1)
    s1, c1 = math.sin(th1), math.cos(th1)
    G = np.array([[-L3 * c21 - L4 * c1, L3 * c21], [0.0, 1.0]])
    phi = np.array([L3 * s21 - L4 * s1, th2 - OMEGA * t])
    dphi = G @ y[2:] + np.array([0.0, -OMEGA])
    gamma = np.array([L3 * s21 * (w2 - w1) ** 2 - L4 * s1 * w1 ** 2, 0.0])
    f = np.array([GRAV1 * math.sin(th1) - C * w1, GRAV2 * math.sin(th2)])
    W = np.array([0.0, -L3 * s21])
    K = np.zeros((4, 4))
    K[:2, :2] = MASS
    K[2:, :2] = G
    K[:2, 2:] = -G.T
    R = np.zeros((4, 2))
    R[:2, 0] = f
    R[2:, 0] = gamma - 2 * ALPHA * dphi - BETA ** 2 * phi
    R[:2, 1] = -MU * s * W
    X = np.linalg.solve(K, R)
    c, a = X[2, 0], X[2, 1]
    if abs(a) >= 1.0:
        raise RuntimeError(f"t = {t}: |a| = {abs(a)} >= 1 (jamming)")
    lam = c / (1.0 - a) if c >= 0 else c / (1.0 + a)
    x = X[:, 0] + X[:, 1] * abs(lam)
    return np.concatenate((y[2:], x[:2])), lam, x[3]


def sliding_velocity(y: np.ndarray) -> float:
    """``v_r = W v = -L3 sin(theta2 - theta1) omega2`` (m/s)."""
    return -L3 * math.sin(y[1] - y[0]) * y[3]


def rk4_step(t: float, y: np.ndarray, f0: np.ndarray, h: float, s: float) -> np.ndarray:
    """One classical RK4 step from ``(t, y)`` with ``f0 = dy(t, y)`` given."""
    k2 = evaluate(t + h / 2, y + h / 2 * f0, s)[0]
    k3 = evaluate(t + h / 2, y + h / 2 * k2, s)[0]
    k4 = evaluate(t + h, y + h * k3, s)[0]
    return y + h / 6 * (f0 + 2 * k2 + 2 * k3 + k4)


def hermite(t0: float, y0: np.ndarray, f0: np.ndarray, t1: float, y1: np.ndarray,
            f1: np.ndarray) -> Callable[[float], np.ndarray]:
    """Cubic Hermite interpolant of one step."""
    h, dy = t1 - t0, y1 - y0

    def y(t: float) -> np.ndarray:
        u = (t - t0) / h
        return y0 + u * u * (3 - 2 * u) * dy + h * (u * (1 - u) ** 2 * f0 + u * u * (u - 1) * f1)

    return y


def run_numpy() -> dict[str, np.ndarray]:
    """RK4 over 0-5 s, h = 1e-3, reversals of the slider located and stepped to.

    Returns
    -------
    dict
        ``t``, ``lambda_N``, ``F_f``, ``tau`` on the output grid, ``n_events``, ``n_evals``.
    """
    CALLS[0] = 0
    y = np.array([0.0, 0.0, OMEGA * L3 / (L3 + L4), OMEGA])
    t = 0.0
    v_r = sliding_velocity(y)
    if v_r != 0.0:
        s = math.copysign(1.0, v_r)
    else:  # at rest relative to the rocker: it slides the way it accelerates (cannot stick)
        s = next(sign for sign in (1.0, -1.0)
                 if sign * (-L3 * math.cos(y[1] - y[0]) * (y[3] - y[2]) * y[3]
                            - L3 * math.sin(y[1] - y[0]) * evaluate(t, y, sign)[0][3]) > 0)
    n = int(round(T_END / H))
    grid = H * np.arange(n + 1)
    lam_out, tau_out, F_out = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1)
    f, lam, tau = evaluate(t, y, s)
    lam_out[0], tau_out[0], F_out[0] = lam, tau, -MU * s * abs(lam)
    k, n_events = 0, 0
    while k < n:
        t1 = grid[k + 1]
        y1 = rk4_step(t, y, f, t1 - t, s)
        f1, lam, tau = evaluate(t1, y1, s)
        g0, g1 = sliding_velocity(y), sliding_velocity(y1)
        if g0 != 0.0 and s * g1 <= 0.0 and g0 != g1:  # v_r crossed zero: the slider reverses
            interp = hermite(t, y, f, t1, y1, f1)
            t_e = brentq(lambda tt, y_at=interp: sliding_velocity(y_at(tt)), t, t1, xtol=1e-13,
                         rtol=4 * np.finfo(float).eps) if g1 != 0.0 else t1
            y = rk4_step(t, y, f, t_e - t, s) if t_e > t else y
            t, s, n_events = t_e, -s, n_events + 1
            f = evaluate(t, y, s)[0]
            continue
        t, y, f, k = t1, y1, f1, k + 1
        lam_out[k], tau_out[k], F_out[k] = lam, tau, -MU * s * abs(lam)
    return {"t": grid, "lambda_N": lam_out, "F_f": F_out, "tau": tau_out,
            "n_events": np.array(n_events), "n_evals": np.array(CALLS[0])}


def main(argv: list[str] | None = None) -> None:
    """Time both, check agreement, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition instead of 3")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 3
    import nonsmooth
    from nonsmooth.models import crank_rocker

    model = crank_rocker.build(c=C)
    nonsmooth.simulate(model, 0.01, method="RK4", dt=H)  # warm-up: the engine's lazy imports
    wall_np, ref = best_of(run_numpy, repeat)
    wall_en, r = best_of(lambda: nonsmooth.simulate(model, T_END, method="RK4", dt=H), repeat)
    print(__doc__.splitlines()[0])
    print(f"0-{T_END:g} s, RK4 h = {H:g} s, c = {C:g}; best of {repeat} in one process")
    print(f"{'run':<34}{'wall [s]':>10}{'evals':>8}{'us/eval':>9}{'reversals':>11}")
    n_np = int(ref["n_evals"])
    print(f"{'numpy baseline (np.linalg.solve)':<34}{wall_np:>10.3f}{n_np:>8d}"
          f"{1e6 * wall_np / n_np:>9.1f}{int(ref['n_events']):>11d}")
    n_en = r.diagnostics["n_evaluations"]
    reversals = sum(e.kind == "velocity_zero" for e in r.events)
    print(f"{'nonsmooth.simulate':<34}{wall_en:>10.3f}{n_en:>8d}{1e6 * wall_en / n_en:>9.1f}"
          f"{reversals:>11d}")
    ratio = wall_en / wall_np
    print(f"ratio engine / baseline = {ratio:.2f} (target <= {TARGET:g}: "
          f"{'met' if ratio <= TARGET else 'not met'})")
    if r.t.size != ref["t"].size or np.max(np.abs(r.t - ref["t"])) > 1e-12:
        print("the output grids differ; no agreement check")
        return
    for name in ("lambda_N", "F_f", "tau"):
        scale = float(np.max(np.abs(ref[name])))
        diff = np.abs(r[name] - ref[name])
        if name == "F_f":  # F_f jumps at the reversals (v_r = 0): compare away from them
            diff = diff[np.abs(np.sin(r["theta2"])) > 1e-6]
        err = float(np.max(diff)) / scale
        check = f"  ({'ok' if err <= 1e-8 else 'FAILS'} at 1e-8)" if name == "lambda_N" else ""
        print(f"agreement {name:<9} max |engine - baseline| / max |baseline| = {err:.2e}{check}")
    print("noisy: 2 shared cores; repeat before trusting the ratio to better than ~20 %")


if __name__ == "__main__":
    main()
