"""A ball bouncing to rest on a rigid floor (model ``rigid_bouncing_ball``, Siconos' set-up:
1 m, e = 0.9, 0-10 s), event-driven, against a hand-written event-driven baseline and
Moreau-Jean on the same model.

    python benchmarks/rigid_events.py [--repeat N] [--dt DT]

Target: the bouncing ball to rest, 0-10 s, event-driven: <= 0.05 s wall, fewer than 100 events.

* **nonsmooth, event-driven** (the default method, DOP853): each impact an event, the
  accumulation of impacts passed at its computed limit, outputs every ``--dt`` s (0.01); best
  of ``--repeat`` after a warm-up run.
* **baseline**: the same ball written by hand with ``scipy.integrate.solve_ivp`` (DOP853, the
  same tolerances), a terminal event at the floor, Newton's law applied by hand and the
  integration restarted after each impact, stopped where a bounce would rise less than 1 um
  (what a user without a contact engine writes); the ratio is ours over its time.
* **nonsmooth, Moreau-Jean** (``dt = 0.005``, Siconos' ``BouncingBallTS``).

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from _timing import best_of
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.models import build, load

TARGET_S = 0.05
H, E, G, T_END = 1.0, 0.9, 9.81, 10.0


def by_hand(dt: float, rtol: float, atol: float):
    """The baseline: solve_ivp from impact to impact, Newton's law by hand; returns the
    impact times and the output grid's heights."""
    t, y = 0.0, np.array([H, 0.0])
    impacts = []

    def floor(tt, yy):
        return yy[0]

    floor.terminal, floor.direction = True, -1
    grid = np.arange(0.0, T_END + 0.5 * dt, dt)
    heights = np.zeros_like(grid)
    while t < T_END:
        sol = solve_ivp(lambda tt, yy: (yy[1], -G), (t, T_END), y, method="DOP853",
                        rtol=rtol, atol=atol, events=floor, dense_output=True)
        seg = (grid >= t) & (grid <= sol.t[-1])
        if seg.any():
            heights[seg] = sol.sol(grid[seg])[0]
        if sol.status != 1:
            break
        t = float(sol.t_events[0][0])
        v_plus = -E * float(sol.y_events[0][0][1])
        impacts.append(t)
        if v_plus * v_plus / (2 * G) < 1e-6:  # the rest of the series: at rest
            heights[grid > t] = 0.0
            break
        y = np.array([0.0, v_plus])
    return impacts, heights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dt", type=float, default=0.01, help="output spacing (s)")
    args = parser.parse_args()
    mdl = build("rigid_bouncing_ball", h=H, e=E, t_end=T_END)
    t_inf = load("rigid_bouncing_ball").accumulation_time(H, E, G)
    nonsmooth.simulate(mdl, T_END, dt=args.dt)  # warm-up (compiled terms loaded)
    ours, r = best_of(lambda: nonsmooth.simulate(mdl, T_END, dt=args.dt), args.repeat)
    rtol, atol = r.diagnostics["rtol"], 1e-13
    base, (impacts, heights) = best_of(lambda: by_hand(args.dt, rtol, atol), args.repeat)
    mj_time, mj = best_of(lambda: nonsmooth.simulate(mdl, T_END, method="MoreauJean",
                                                    dt=0.005), 1)
    (acc,) = r.events.filter("floor", kind="accumulation")
    n_impacts = len(r.events.filter("floor", kind="impact"))
    ours_impacts = [ev.t for ev in r.events.filter("floor", kind="impact")]
    k = min(len(impacts), len(ours_impacts))
    print(f"bouncing ball, {H} m, e = {E}, 0-{T_END:g} s, outputs every {args.dt:g} s")
    print(f"{'run':34s} {'wall [s]':>9s} {'events':>7s}  note")
    print(f"{'nonsmooth event-driven (DOP853)':34s} {ours:9.4f} {len(r.events):7d}  "
          f"{n_impacts} impacts, accumulation at {acc.t:.12f} s (Newton: {t_inf:.12f}, "
          f"{abs(acc.t - t_inf):.1e})")
    print(f"{'baseline: solve_ivp by hand':34s} {base:9.4f} {len(impacts):7d}  impact times "
          f"agree to {np.max(np.abs(np.subtract(impacts[:k], ours_impacts[:k]))):.1e} s")
    print(f"{'nonsmooth Moreau-Jean (dt 0.005)':34s} {mj_time:9.4f} {'-':>7s}  final height "
          f"{mj['height'][-1]:.2e} m")
    print(f"ratio ours / baseline: {ours / base:.2f}; target <= {TARGET_S} s wall and < 100 "
          f"events: {'met' if ours <= TARGET_S and len(r.events) < 100 else 'NOT met'} "
          f"({ours:.3f} s, {len(r.events)} events); the run's evaluations: "
          f"{r.diagnostics.get('n_evaluations', math.nan)}")


if __name__ == "__main__":
    main()
