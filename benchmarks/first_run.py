"""The first run on a fresh machine: the README's main job (``nonsmooth reproduce crank-rocker``)
in a new process whose numba cache folders are empty, as on a machine that has just installed
the package (the install itself not counted).

Issue 18's target: <= 20 s including every compilation the job needs. Side by side:

* the shipped kernels (``nonsmooth/prebuilt.py``: numba's cache seeded from the package);
* the baseline, compiling them as before they were shipped (``NUMBA_CPU_NAME=host``: numba
  compiles natively, so nothing shipped matches);
* the second run (the cache now filled), for scale.

    python benchmarks/first_run.py [--no-baseline]

Each case counts numba's compilations of the package's functions in the child (a cache load is
not one). One run each (a first run cannot be repeated in the same folders); noisy on 2 shared
cores. A benchmark, not a test: ``tests/docs/test_prebuilt.py`` checks that a first run compiles
nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOB = """
import sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        if ev.data["dispatcher"].py_func.__module__.startswith("nonsmooth"):
            compiled.append(1)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
from nonsmooth.cli import main
code = main(["reproduce", "crank-rocker", "--outdir", sys.argv[1]])
print("COMPILED", len(compiled), "EXIT", code)
"""


def run(folder: Path, cpu: str | None) -> tuple[float, int]:
    """Wall time (s) and number of compilations of the main job with caches under ``folder``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"),
           "XDG_CACHE_HOME": str(folder / "xdg")}
    env.pop("NUMBA_CPU_NAME", None)
    if cpu:
        env["NUMBA_CPU_NAME"] = cpu
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", JOB, str(folder / "reproduction")], env=env,
                          capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - start
    line = [x for x in proc.stdout.splitlines() if x.startswith("COMPILED")]
    if proc.returncode or not line or not line[0].endswith("EXIT 0"):
        sys.exit(f"the main job failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return wall, int(line[0].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the compiling baseline (about a minute)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        shipped = Path(tmp) / "shipped"
        shipped.mkdir()
        rows.append(("first run, shipped kernels", *run(shipped, None), 20.0))
        rows.append(("second run", *run(shipped, None), None))
        if not args.no_baseline:
            native = Path(tmp) / "native"
            native.mkdir()
            rows.append(("first run, compiling (baseline)", *run(native, "host"), None))
    print("nonsmooth reproduce crank-rocker in a new process with empty numba caches "
          "(one run each; noisy, 2 shared cores)")
    print(f"{'case':34s} {'wall [s]':>9s} {'compilations':>13s} {'target [s]':>11s}")
    for name, wall, n, target in rows:
        goal = f"<= {target:g}" if target else "-"
        print(f"{name:34s} {wall:9.1f} {n:13d} {goal:>11s}")
    if len(rows) == 3:
        print(f"shipped / compiling: {rows[0][1] / rows[2][1]:.2f}x")


if __name__ == "__main__":
    main()
