"""Time of one evaluation of a planar model inside numba: the call a compiled phase makes at
every stage of every step (``kernels._evaluate_into`` in its workspace), without Python.

    python benchmarks/evaluation_in_numba.py [--repeat N]

Cases: the 1-DOF block on a belt (``stick_slip_oscillator``, m 1.5, k 4, mu_s 0.4, mu_d 0.25,
v_belt 0.3) slipping (mode -1) and sticking (mode 0), and the planar crank-rocker, each at its
initial state with its faces. Issue 20's target: the belt's evaluation <= 0.9 us (before the
seam: 0.86 us, ``docs/fast_core.md`` increment 12). Timed by a compiled loop of 200 000 calls,
best of N repeats. A benchmark, not a test: the figures depend on the machine (noisy here by
10-30 %); compare with a run of the old code interleaved.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from nonsmooth.dynamics import Dynamics
from nonsmooth.models import crank_rocker, stick_slip_oscillator
from nonsmooth.planar import kernels

CALLS = 200_000


@njit
def _loop(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw, calls):
    status = 0
    for _ in range(calls):
        status |= kernels._evaluate_into(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out,
                                         ws, iw)
    return status


def case(model, modes):
    """The arguments of the evaluation at the model's initial state (faces from a face-free
    evaluation)."""
    system = model.system
    dyn = Dynamics(system)
    tab = system.tables
    q, v = np.array(model.q0, dtype=float), np.array(model.v0, dtype=float)
    modes = np.array(modes, dtype=float)
    ev = dyn.evaluate(0.0, q, v, modes)
    faces = np.where(ev.lam_abs < 0.0, -1.0, 1.0)
    plan = dyn._plan
    ws, iw = kernels.workspace(tab.ints, plan)
    out = np.empty(kernels.evaluation_layout(*(int(x) for x in plan[:4]), bool(plan[4]),
                                             int(plan[8]))["size"])
    return (tab.ints, tab.floats, np.zeros((tab.ints.shape[0], 3)), tab.mass, plan, dyn._Wt,
            0.0, q, v, np.zeros(int(plan[8])), modes, faces, out, ws, iw)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    belt = {"m": 1.5, "k": 4.0, "mu_s": 0.4, "mu_d": 0.25, "v_belt": 0.3}
    cases = [("1-DOF block, slipping", stick_slip_oscillator.build(**belt), [-1.0], 0.9),
             ("1-DOF block, sticking", stick_slip_oscillator.build(v0=0.3, **belt), [0.0], 0.9),
             ("crank-rocker, planar", crank_rocker.build(c=8.0, form="planar"), None, None)]
    print(f"{'case':<28}{'us/evaluation':>15}{'target':>10}")
    for name, model, modes, target in cases:
        if modes is None:
            modes = [1.0] * model.system.n_pairs
        arguments = case(model, modes)
        assert _loop(*arguments, 10) == 0, "the evaluation was not OK"
        best = np.inf
        for _ in range(args.repeat):
            start = time.perf_counter()
            _loop(*arguments, CALLS)
            best = min(best, (time.perf_counter() - start) / CALLS)
        print(f"{name:<28}{1e6 * best:>15.3f}{'-' if target is None else f'<= {target}':>10}")


if __name__ == "__main__":
    main()
