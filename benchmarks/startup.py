"""Start-up: ``import nonsmooth``, ``nonsmooth --help`` and a whole small run as processes.

Issue 10's targets: ``import nonsmooth`` and ``nonsmooth --help`` in <= 0.25 s; compiled kernels
cached on disk (a new process loads, it does not recompile); a first compilation that takes
over a second says so on the terminal. Printed next to the baseline of a bare
``python -c "import numpy"`` (what any numerical script pays) and a bare ``python -c pass``.

    python benchmarks/startup.py [--repeat 5]

Each figure is the best of ``--repeat`` fresh processes (2 shared cores: noisy).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def best_time(argv: list[str], repeat: int) -> float:
    """Best wall time (s) of ``repeat`` runs of a fresh process."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    py = sys.executable
    rows = [
        ("python -c pass", [py, "-c", "pass"], None),
        ("python -c 'import numpy'", [py, "-c", "import numpy"], None),
        ("python -c 'import nonsmooth'", [py, "-c", "import nonsmooth"], 0.25),
        ("python -m nonsmooth --help", [py, "-m", "nonsmooth", "--help"], 0.25),
        ("kernels loaded from the cache", [py, "-c", "from nonsmooth.planar.warm "
                                           "import warm; warm()"], None),
        ("nonsmooth run stick_slip_oscillator", [py, "-m", "nonsmooth", "run",
                                                 "stick_slip_oscillator", "--t-end", "1"],
         None),
    ]
    subprocess.run(rows[4][1], check=True, capture_output=True)  # compile once if needed
    print(__doc__.splitlines()[0])
    print(f"best of {args.repeat} fresh processes; noisy (2 shared cores)")
    print(f"{'process':<40}{'wall [s]':>10}{'target [s]':>12}")
    for label, argv, target in rows:
        wall = best_time(argv, args.repeat)
        goal = f"{target:.2f}" if target else "-"
        verdict = "" if target is None else ("  met" if wall <= target else "  not met")
        print(f"{label:<40}{wall:>10.3f}{goal:>12}{verdict}")


if __name__ == "__main__":
    main()
