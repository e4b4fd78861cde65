"""The payload on a plate (model ``contact_payload_plate``), 0-5 s with stick-slip at the
contact: the arm's trajectories evaluated in the compiled phase against the same trajectories
called back into Python at every evaluation.

    python benchmarks/contact_payload.py [--repeat N]

Target: the payload-on-a-plate model, 0-5 s with stick-slip at the contact, <= 2 s wall on 2
cores.

Side by side, in this process, best of ``--repeat`` after a warm-up run:

* **compiled trajectories** (the bundled model): each joint's motion a quintic
  ``scipy.interpolate.BPoly`` (``Driver(position=spline)``), evaluated by the kernels;
* **Python trajectories**: the same splines given as three Python functions ``(f, df/dt,
  d2f/dt2)`` per joint, called back from the compiled phase at every evaluation (how a motion
  that is no spline is given; the model's ``arm_and_plate(python_drivers=True)``), with the
  splines' breakpoints given as ``tstops`` (what the engine does by itself for a spline), so
  that the two differ by the call back alone.

Printed: wall time, right-hand-side evaluations, time per evaluation, the ratios, the target,
and that both runs give the same contact force history (they evaluate the same polynomials,
scipy's way and the kernels' way: they differ by rounding). The numbers of evaluations differ:
most of them go to the slow slide before the payload sticks at the end of the drag, where the
friction force's direction turns fast for a small change of the slip and an explicit
integrator's steps shrink with the slip; how many it takes depends on how close the stage's
load is to ``mu N`` as the slip dies out, which a rounding difference moves (36 000 and 474 000
evaluations measured for the two forms). The time per evaluation is the cost of the call
back; the wall time is what a user waits.
A benchmark, not a test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of

import nonsmooth
from nonsmooth.model import check_parameters
from nonsmooth.models import load

T_END = 5.0
TARGET_S = 2.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    module = load("contact_payload_plate")
    p = check_parameters(module.NAME, module.PARAMETERS, {})
    t_eval = np.linspace(0.0, T_END, 501)
    runs = {}
    for label, python in (("compiled trajectories", False), ("Python trajectories", True)):
        model = module.model_of(module.arm_and_plate(p, python_drivers=python), p)
        nonsmooth.simulate(model, 0.1)  # compile / warm up

        stops = None
        if python:  # the breakpoints, where the spline's derivatives jump
            knots = np.unique(np.concatenate([s.x for s in module.joint_trajectories(p).values()]))
            stops = knots[(knots > 0.0) & (knots < T_END)]

        def run(model=model, stops=stops):
            return nonsmooth.simulate(model, T_END, t_eval=t_eval, tstops=stops)

        wall, r = best_of(run, args.repeat)
        runs[label] = (wall, r)
        print(f"{label:24s} {wall:7.2f} s  {r.nfev:7d} evaluations  "
              f"{1e6 * wall / r.nfev:6.1f} us/evaluation  "
              f"{len(r.events.intervals('plate', 'stick'))} stick intervals")
    fast, slow = runs["compiled trajectories"], runs["Python trajectories"]
    same = np.max(np.abs(fast[1]["N"] - slow[1]["N"]))
    per = (slow[0] / slow[1].nfev) / (fast[0] / fast[1].nfev)
    print(f"ratio (Python / compiled): {slow[0] / fast[0]:.2f}x in wall time, {per:.2f}x per "
          f"evaluation; contact force histories agree to {same:.1e} N")
    print(f"target: 0-5 s <= {TARGET_S:g} s wall: {fast[0]:.2f} s "
          f"({'met' if fast[0] <= TARGET_S else 'not met'})")


if __name__ == "__main__":
    main()
