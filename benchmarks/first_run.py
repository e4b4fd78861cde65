"""The first run on a fresh machine, in new processes whose numba cache folders are empty:

* from a clone (no compiled kernels in the package): the README's main job, ``nonsmooth
  reproduce crank-rocker``, compiling every kernel it needs (target <= 45 s on 2 cores);
* from a clone, the first run of a spatial model (``nonsmooth run spatial_double_pendulum``;
  target <= 60 s);
* from an installed wheel (``python -m build`` compiles the kernels into it): the main job
  again (target <= 5 s, nothing compiled);
* the second run of the main job (the cache now filled), for scale.

    python benchmarks/first_run.py [--wheel dist/nonsmooth-*.whl | --build-wheel] [--no-clone]

Without ``--wheel`` or ``--build-wheel`` the wheel's case is left out (building one compiles
every bundled model's kernels: minutes). Each case counts numba's compilations of the
package's functions in the child (a cache load is not one) and prints the time of each kernel
compiled. One run each (a first run cannot be repeated in the same folders); noisy on 2 shared
cores. A benchmark, not a test: ``tests/docs/test_prebuilt.py`` checks that a wheel's first run
compiles nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: The child: counts the package's compilations, then runs a command line.
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
import pathlib
from nonsmooth import prebuilt
if sys.argv[1] == "clone":  # no kernels in the package, as in a fresh clone
    prebuilt.ROOT = pathlib.Path("no-compiled-kernels")
from nonsmooth.cli import main
code = main(sys.argv[2:])
print("COMPILED", len(compiled), "EXIT", code)
"""

MAIN_JOB = ["reproduce", "crank-rocker", "--outdir", "reproduction"]
SPATIAL_JOB = ["run", "spatial_double_pendulum", "--t-end", "1"]


def run(folder: Path, argv: list[str], source: str, site: Path | None = None):
    """Wall time (s), number of compilations and the notice's lines of one job in a new process
    with caches under ``folder``; ``source`` ``"clone"`` or ``"wheel"`` (the package in
    ``site``)."""
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "numba"),
           "XDG_CACHE_HOME": str(folder / "xdg")}
    for name in ("NUMBA_CPU_NAME", "NONSMOOTH_QUIET_COMPILE"):
        env.pop(name, None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", JOB, source, *argv], env=env,
                          capture_output=True, text=True, cwd=folder)
    wall = time.perf_counter() - start
    line = [x for x in proc.stdout.splitlines() if x.startswith("COMPILED")]
    if proc.returncode or not line or not line[0].endswith("EXIT 0"):
        sys.exit(f"the job failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    notices = [x.strip() for x in proc.stderr.splitlines() if "compiled " in x]
    return wall, int(line[0].split()[1]), notices


def build_wheel(out: Path) -> Path:
    """``python -m build --wheel`` of this repository into ``out`` (this environment's
    packages, no isolation): the wheel with its compiled kernels."""
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                    str(out), str(REPO)], check=True, stdout=subprocess.DEVNULL)
    return next(out.glob("nonsmooth-*.whl"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="a built wheel to measure")
    parser.add_argument("--build-wheel", action="store_true",
                        help="build the wheel first (minutes: it compiles every bundled model)")
    parser.add_argument("--no-clone", action="store_true",
                        help="leave out the clone's cases (with --wheel: the wheel's alone)")
    args = parser.parse_args()
    rows, details = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if not args.no_clone:
            clone = tmp / "clone"
            wall, n, notes = run(clone, MAIN_JOB, "clone")
            rows.append(("main job, clone, empty cache", wall, n, "<= 45"))
            details["main job"] = notes
            wall, n, _ = run(clone, MAIN_JOB, "clone")
            rows.append(("main job, second run", wall, n, "-"))
            wall, n, notes = run(tmp / "spatial", SPATIAL_JOB, "clone")
            rows.append(("spatial model, clone, empty cache", wall, n, "<= 60"))
            details["spatial model"] = notes
        wheel = args.wheel or (build_wheel(tmp / "dist") if args.build_wheel else None)
        if wheel is not None:
            site = tmp / "site"
            with zipfile.ZipFile(wheel) as zf:
                zf.extractall(site)
            wall, n, _ = run(tmp / "wheel", MAIN_JOB, "wheel", site)
            rows.append(("main job, installed wheel", wall, n, "<= 5, 0 compiled"))
    print("first runs in new processes with empty numba caches (one run each; noisy, 2 shared "
          "cores)")
    print(f"{'case':36s} {'wall [s]':>9s} {'compilations':>13s} {'target [s]':>17s}")
    for name, wall, n, target in rows:
        print(f"{name:36s} {wall:9.1f} {n:13d} {target:>17s}")
    for case, notes in details.items():
        print(f"\n{case}: the kernels compiled (outermost), with their times")
        for note in notes:
            print("  " + note.removeprefix("nonsmooth:").strip())


if __name__ == "__main__":
    main()
