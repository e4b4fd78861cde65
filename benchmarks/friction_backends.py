"""Cost of the friction backends (coulomb, lugre, regularized) on two models, in-process.

    python benchmarks/friction_backends.py [--repeat N] [--t-end T] [--method M]

For the stick-slip oscillator and the crank-rocker (``models.crank_rocker.build()``), each with
its default parameters (LuGre: MotionSolve's defaults in SI), prints per backend: the integrator
used (default: RK45 for Coulomb, Radau for the smooth laws; ``--method`` forces one for all),
best wall time over N runs, right-hand-side evaluations, evaluations per simulated second,
microseconds per evaluation and mode switches. A benchmark, not a timed test: figures depend on
the machine.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import nonsmooth
from nonsmooth.models import crank_rocker
from nonsmooth.models import stick_slip_oscillator as oscillator

BACKENDS = ("coulomb", "lugre", "regularized")
MODELS = {
    "oscillator": oscillator.build,
    "crank_rocker": crank_rocker.build,
}


def run_once(model, law, t_end, method, rtol, atol):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # LuGre defaults: dissipativity note
        start = time.perf_counter()
        r = nonsmooth.simulate(model, t_end, friction=law, method=method, rtol=rtol, atol=atol)
        wall = time.perf_counter() - start
    return wall, r


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best is shown)")
    parser.add_argument("--t-end", type=float, default=5.0, help="simulated time [s]")
    parser.add_argument("--method", default=None,
                        help="integrator for every backend (default: the engine's choice)")
    parser.add_argument("--rtol", type=float, default=1e-8)
    parser.add_argument("--atol", type=float, default=1e-10)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be >= 1")

    print(f"t_end = {args.t_end:g} s, rtol = {args.rtol:g}, atol = {args.atol:g}, "
          f"best of {args.repeat}")
    head = (f"{'model':<14}{'backend':<13}{'method':<8}{'wall [s]':>10}{'evals':>9}"
            f"{'evals/s_sim':>13}{'us/eval':>9}{'switches':>10}")
    print(head)
    print("-" * len(head))
    for name, build in MODELS.items():
        model = build()
        for law in BACKENDS:
            best, r = np.inf, None
            for _ in range(args.repeat):
                wall, r = run_once(model, law, args.t_end, args.method, args.rtol, args.atol)
                best = min(best, wall)
            n = r.diagnostics["n_evaluations"]
            span = r.t[-1] - r.t[0]
            print(f"{name:<14}{law:<13}{r.method:<8}{best:>10.3f}{n:>9d}{n / span:>13.0f}"
                  f"{1e6 * best / n:>9.1f}{r.diagnostics['n_mode_switches']:>10d}")


if __name__ == "__main__":
    main()
