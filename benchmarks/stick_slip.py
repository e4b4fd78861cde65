"""Event-driven Coulomb friction against a regularized (tanh) solution of the same problems.

    python benchmarks/stick_slip.py [--quick]

Problems (closed forms in tests/friction/test_stick_slip.py):

* Coulomb free vibration (m = 1 kg, k = 100 N/m, mu_s = 0.4, mu_d = 0.3, x0 = 0.3 m): the error
  is that of the stop position (|x(t_end) - x_stop|, t_end = t_stop + 0.5 s);
* belt stick-slip (same block on a belt at 0.1 m/s): the error is that of the limit-cycle
  period (relative), measured between the last two maxima of x.

The event-driven runs use nonsmooth (models/stick_slip_oscillator, DOP853 at several
tolerances). The regularized runs integrate m x'' = -k x + F(v_r) with scipy's Radau, F the
Stribeck-tanh law F = -(F_d + (F_s - F_d) exp(-(v_r / (10 eps))^2)) tanh(v_r / eps) at several
widths eps. "Equal accuracy": for each regularized run, the cheapest event-driven run at least
as accurate, and the ratio of their wall times.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.models import stick_slip_oscillator as oscillator

M, K, MU_S, MU_D, G = 1.0, 100.0, 0.4, 0.3, 9.81
F_S, F_D, OMEGA = MU_S * M * G, MU_D * M * G, math.sqrt(K / M)
X0, V_BELT = 0.3, 0.1


def free_vibration_stop():
    x, t, direction = X0, 0.0, -1.0
    while abs(K * x) > F_S:
        centre = -direction * F_D / K
        x, t, direction = 2 * centre - x, t + math.pi / OMEGA, -direction
    return t, x


def belt_period():
    D = (F_S - F_D) / K
    t_slip = (2 * math.pi - 2 * math.atan2(OMEGA * D, V_BELT)) / OMEGA
    return 2 * (F_S - F_D) / (K * V_BELT) + t_slip


def tanh_run(eps, v_belt, x0, v0, t_end):
    def rhs(t, y):
        vr = y[1] - v_belt
        friction = -(F_D + (F_S - F_D) * math.exp(-(vr / (10 * eps)) ** 2)) * math.tanh(vr / eps)
        return [y[1], (-K * y[0] + friction) / M]

    t0 = time.perf_counter()
    sol = solve_ivp(rhs, (0.0, t_end), [x0, v0], method="Radau", rtol=1e-10, atol=1e-12,
                    dense_output=True)
    return sol, time.perf_counter() - t0


def last_period(t, x):
    i = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:])) + 1
    return t[i[-1]] - t[i[-2]] if len(i) >= 2 else math.nan


def measure(quick=False):
    t_stop, x_stop = free_vibration_stop()
    T = belt_period()
    rows = []
    tols = (1e-6, 1e-8, 1e-10) if quick else (1e-5, 1e-6, 1e-8, 1e-10, 1e-12)
    widths = (1e-2, 1e-3, 1e-4) if quick else (1e-2, 1e-3, 1e-4, 1e-5)
    # free vibration
    t_end = t_stop + 0.5
    for rtol in tols:
        model = oscillator.build(v_belt=0.0, x0=X0, v0=0.0)
        r = nonsmooth.simulate(model, t_end, method="DOP853", rtol=rtol, atol=rtol * 1e-2)
        rows.append(("free vibration", "event-driven", f"rtol {rtol:g}",
                     abs(r["x"][-1] - x_stop), r.diagnostics["wall_time"]))
    for eps in widths:
        sol, wall = tanh_run(eps, 0.0, X0, 0.0, t_end)
        rows.append(("free vibration", "tanh", f"eps {eps:g} m/s", abs(sol.y[0, -1] - x_stop),
                     wall))
    # belt stick-slip: 4 cycles, period from the last two maxima of x
    t_end = 4.2 * T
    grid = np.linspace(0.0, t_end, 40001)
    for rtol in tols:
        model = oscillator.build(v_belt=V_BELT, x0=0.0, v0=V_BELT)
        r = nonsmooth.simulate(model, t_end, method="DOP853", rtol=rtol, atol=rtol * 1e-2)
        breakaway = [e.t for e in r.events if e.kind == "reserve_zero"]
        period = breakaway[-1] - breakaway[-2]
        rows.append(("belt stick-slip", "event-driven", f"rtol {rtol:g}", abs(period - T) / T,
                     r.diagnostics["wall_time"]))
    for eps in widths:
        sol, wall = tanh_run(eps, V_BELT, 0.0, V_BELT, t_end)
        period = last_period(grid, sol.sol(grid)[0])
        rows.append(("belt stick-slip", "tanh", f"eps {eps:g} m/s", abs(period - T) / T, wall))
    return rows


def report(rows) -> str:
    lines = [f"{'problem':<17}{'method':<14}{'setting':<16}{'error':>11}{'wall [s]':>10}"
             f"{'ratio at equal accuracy':>26}"]
    for problem, method, setting, err, wall in rows:
        ratio = ""
        if method == "tanh":
            better = [w for p, m, _, e, w in rows
                      if p == problem and m == "event-driven" and e <= err]
            ratio = (f"{wall / min(better):.1f} x slower" if better
                     else "event-driven not that coarse")
        lines.append(f"{problem:<17}{method:<14}{setting:<16}{err:>11.2e}{wall:>10.3f}"
                     f"{ratio:>26}")
    lines.append("errors: free vibration = |x(t_end) - x_stop| (m); belt = relative period error")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tolerances and widths")
    args = parser.parse_args(argv)
    print(report(measure(args.quick)))


if __name__ == "__main__":
    main()
