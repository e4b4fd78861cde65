"""Wall time of the crank-rocker benchmark run (0..5 s), in-process.

    python benchmarks/crank_rocker.py [--repeat N]

Prints, for each formulation and method: best wall time over N runs, evaluations, time per
evaluation, and the accuracy against the independent Newton-Euler oracle
(``nonsmooth.models._crank_rocker_newton_euler``). ``DOP853 default`` is ``simulate``'s default
(rtol 1e-11, atol 1e-13): the two-coordinate form's is issue 20's target (<= 0.04 s); both forms
run it in the compiled DOP853 phase (``nonsmooth.core.phases.dop853``). The column ``before``
gives the figures measured on the same machine before the seam (``docs/seam.md``, "Baseline":
the two-coordinate form's DOP853 then ran on scipy's stepper). A benchmark, not a timed test:
figures depend on the machine.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nonsmooth
from nonsmooth.models import crank_rocker
from nonsmooth.models._crank_rocker_newton_euler import newton_euler_forces

#: Wall times (s) measured before the seam (docs/seam.md, "Baseline", 2026-12-01).
BEFORE = {("lagrange", "RK4"): 0.039, ("planar", "RK4"): 0.061,
          ("lagrange", "DOP853 default"): 0.311, ("planar", "DOP853 default"): 0.041}
#: Issue 20's targets (s).
TARGET = {("lagrange", "DOP853 default"): 0.04}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'form':<10}{'method':<16}{'wall [s]':>10}{'evals':>8}{'us/eval':>9}"
          f"{'events':>8}{'max rel. err (F_f)':>20}{'before [s]':>12}{'target [s]':>12}")
    for form in ("lagrange", "planar"):
        for method, kw in (("RK4", {"dt": 1e-3}),
                           ("RK45", {"dt": 1e-3, "rtol": 1e-8, "atol": 1e-10}),
                           ("DOP853", {"dt": 1e-3, "rtol": 1e-8, "atol": 1e-10}),
                           ("DOP853 default", {"dt": 1e-3})):
            model = crank_rocker.build(c=8.0, form=form)
            best = np.inf
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                r = nonsmooth.simulate(model, 5.0, method=method.split()[0], **kw)
                best = min(best, time.perf_counter() - t0)
            ref = newton_euler_forces(r.t, c=8.0)
            ok = np.abs(np.sin(r["theta2"])) > 1e-6
            err = np.max(np.abs(r["F_f"][ok] - ref["F_f"][ok])) / np.max(np.abs(ref["F_f"]))
            n = r.diagnostics["n_evaluations"]
            before = BEFORE.get((form, method))
            target = TARGET.get((form, method))
            print(f"{form:<10}{method:<16}{best:>10.3f}{n:>8d}{1e6 * best / n:>9.1f}"
                  f"{r.diagnostics['n_mode_switches']:>8d}{err:>20.2e}"
                  f"{'-' if before is None else f'{before:.3f}':>12}"
                  f"{'-' if target is None else f'<= {target:.2f}':>12}")


if __name__ == "__main__":
    main()
