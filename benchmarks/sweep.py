"""Sweep throughput: cases per second serial, on local processes and on a local Dask cluster.

    python benchmarks/sweep.py [--cases 200] [--workers N] [--t-end 10]

The belt oscillator (``stick_slip_oscillator``, DOP853 at its default tolerances) over a grid
of belt speeds and static coefficients, one ``period:reserve_zero`` and one ``stick_fraction``
metric per case, stored in a temporary folder. Each scheduler runs the same cases in one
``nonsmooth.sweep`` call; the wall time includes starting the workers (spawned processes that
import nonsmooth and load the compiled kernels). Printed side by side:

* cases/s -- cases divided by the sweep's wall time;
* efficiency -- (cases/s) / (serial cases/s x workers): 1 is a perfect speed-up;
* overhead -- wall time minus the cases' own run time divided by the workers (start-up,
  scheduling, writing the table).

Noisy on a shared 2-core machine; the serial run is warmed (kernels loaded) first.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

import nonsmooth
from nonsmooth.models import build
from nonsmooth.study.schedulers import default_workers


def grid(cases: int) -> dict:
    """About ``cases`` belt cases: belt speeds x static coefficients (mu_d = 0.3)."""
    n_speed = max(1, int(round(math.sqrt(cases))))
    n_mu = max(1, int(math.ceil(cases / n_speed)))
    return {"v_belt": np.geomspace(0.05, 0.5, n_speed).tolist(),
            "mu_s": np.linspace(0.32, 0.6, n_mu).tolist()}


def run(scheduler: str, workers: int | None, cases: int, t_end: float, folder: Path) -> dict:
    start = time.perf_counter()
    study = nonsmooth.sweep("stick_slip_oscillator", grid(cases), t_end=t_end, dt=0.01,
                            metrics=["period:reserve_zero", "stick_fraction"],
                            store=folder / scheduler, scheduler=scheduler, workers=workers,
                            progress=False)
    wall = time.perf_counter() - start
    used = study.run["workers"]
    return {"scheduler": scheduler, "workers": used, "cases": len(study), "ok": study.n_ok,
            "wall": wall, "rate": len(study) / wall,
            "overhead": wall - float(np.nansum(study["wall_time"])) / used}


def report(rows: list[dict]) -> str:
    serial = next(r["rate"] for r in rows if r["scheduler"] == "serial")
    lines = [f"{'scheduler':<12}{'workers':>8}{'cases':>7}{'ok':>6}{'wall [s]':>10}"
             f"{'cases/s':>10}{'efficiency':>12}{'overhead [s]':>14}"]
    for r in rows:
        eff = r["rate"] / (serial * r["workers"])
        lines.append(f"{r['scheduler']:<12}{r['workers']:>8}{r['cases']:>7}{r['ok']:>6}"
                     f"{r['wall']:>10.2f}{r['rate']:>10.1f}{eff:>12.2f}{r['overhead']:>14.2f}")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200, help="about this many cases")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"processes / Dask workers (default: every core, "
                             f"{default_workers()} here)")
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time per case [s]")
    args = parser.parse_args(argv)
    nonsmooth.simulate(build("stick_slip_oscillator"), 1.0)  # load the kernels
    print(__doc__.splitlines()[0])
    print(f"belt oscillator, t_end = {args.t_end:g} s per case, DOP853 (default tolerances)")
    with tempfile.TemporaryDirectory(prefix="sweep-bench-") as tmp:
        rows = [run(s, args.workers, args.cases, args.t_end, Path(tmp))
                for s in ("serial", "processes", "dask")]
    print(report(rows))


if __name__ == "__main__":
    main()
