"""How the engine scales with the number of frictional pairs: the block chain, N = 1 .. 100.

    python benchmarks/scaling.py [--quick] [--plot benchmarks/scaling.png] [--timeout 40]
                                 [--blas-threads N]

For the Burridge-Knopoff chain (``models/block_chain.py``: N blocks on a belt at 0.1 m/s,
m = 1 kg, k = 100 N/m, mu_s = 0.4, mu_d = 0.3, initial positions perturbed with seed 0, every
block starting stuck) with N = 1, 3, 10, 30, 100, measured against issue 10's targets:

1. stick-slip run: wall time per simulated second of ``nonsmooth.simulate(model, 5.0,
   dt=0.01)`` (default settings: DOP853, rtol 1e-11), one run each; a run that exceeds its
   wall-clock budget (``--timeout``, default 40 s) is stopped by ``simulate(timeout=...)`` and
   reported as "did not finish" with the rate it had reached. Target: N = 30 at <= 1 s of wall
   time per simulated second.
2. evaluation, every block sliding: ``Dynamics.evaluate`` as ``simulate`` calls it
   (``benchmarks/evaluation.py``), median of ``timeit`` repeats. Target: N = 100 at <= 0.5 ms.
3. one transition event at which all N pairs stick at once: ``Dynamics.transition`` at the
   initial state (every block moving with the belt, every spring force below static friction:
   the answer is "all stick"), each of the N pairs a candidate with the preference stick,
   slip+, slip- (a ``velocity_zero`` event of all N); best of 3. Beside it the ``3^k``
   enumeration (``nonsmooth.transition.enumerate_transition``, if present) for N <= 12: it
   orders all ``3^N`` combinations by preference and evaluates them until the first
   consistent one, which here is the first (all stick), so this is its cheapest case. Each
   call is stopped after ``--timeout`` s and printed as "did not finish". Target: 30 pairs
   sticking at once in <= 50 ms.

The figure (matplotlib, three log-log panels with the targets) goes to ``--plot`` (default
``benchmarks/scaling.png``, not committed). ``--blas-threads N`` re-runs the script with
``OPENBLAS_NUM_THREADS=N`` (and the OpenMP / MKL equivalents): on this 2-core machine shared
with other work, OpenBLAS's threads make the KKT solves of a few hundred rows (N = 100) about
100 times slower than one thread does. A benchmark, not a test: noisy figures.
"""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.models import block_chain
from nonsmooth.simulate import project

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluation import (  # noqa: E402
    blas_threads_text,
    chain_sliding,
    median_time,
    reexec_with_blas_threads,
)

SIZES = (1, 3, 10, 30, 100)
T_END = 5.0
ENUMERATION_MAX = 12  # 3^12 = 531,441 combinations
TARGETS = {"run": (30, 1.0), "evaluation": (100, 0.5e-3), "transition": (30, 50e-3)}
DEFAULT_PLOT = Path(__file__).resolve().parent / "scaling.png"


class _Timeout(BaseException):
    """Raised by the alarm inside a call that exceeded its budget (not an ``Exception``, so
    that no ``except Exception`` in the engine swallows it)."""


def with_timeout(fn: Callable[[], object], seconds: float) -> tuple[float, object]:
    """``(wall time, result)`` of ``fn()``; ``(nan, None)`` if it ran out of ``seconds``."""
    def alarm(signum, frame):
        raise _Timeout

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    t0 = time.perf_counter()
    try:
        out = fn()
        return time.perf_counter() - t0, out
    except _Timeout:
        return math.nan, None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, old)


def best_of_3(fn: Callable[[], object], seconds: float) -> tuple[float, object]:
    """Best of 3 calls of ``fn`` (1 if the first takes over a second), each within ``seconds``;
    ``(nan, None)`` if the first runs out of time."""
    wall, out = with_timeout(fn, seconds)
    for _ in range(2 if wall < 1.0 else 0):
        again, _ = with_timeout(fn, seconds)
        wall = min(wall, again)
    return wall, out


# ------------------------------------------------------------------ the three measurements
def stick_slip_runs(sizes: tuple[int, ...], t_end: float, timeout: float) -> list[dict]:
    """One simulate run per N with a wall-clock budget; wall time per simulated second."""
    nonsmooth.simulate(block_chain.build(N=2), 0.05, dt=0.01)  # warm-up: lazy imports
    rows = []
    for n in sizes:
        model = block_chain.build(N=n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            r = nonsmooth.simulate(model, t_end, dt=0.01, timeout=timeout, throw=False)
            wall = time.perf_counter() - t0
        reached = float(r.t[-1]) if r.t.size else 0.0
        rows.append({"N": n, "wall": wall, "reached": reached, "done": r.status >= 0,
                     "rate": wall / reached if reached > 0 else math.inf,
                     "evals": r.diagnostics["n_evaluations"],
                     "switches": r.diagnostics["n_mode_switches"], "message": r.message})
        print(f"  N = {n:>3}: {wall:7.2f} s wall for {reached:.3g} of {t_end:g} s"
              f"{'' if r.status >= 0 else ' (did not finish: ' + r.message[:70] + '...)'}",
              flush=True)
    return rows


def evaluation_times(sizes: tuple[int, ...], quick: bool) -> list[float]:
    """Median seconds per evaluation with every block sliding."""
    repeat, budget = (3, 0.05) if quick else (5, 0.2)
    out = []
    for n in sizes:
        case = chain_sliding(n, None)
        out.append(median_time(lambda c=case: c.dyn.evaluate(c.t, c.q, c.v, c.modes, c.faces,
                                                             c.z), repeat, budget,
                               case.dyn.system))
    return out


def transition_times(sizes: tuple[int, ...], timeout: float) -> list[dict]:
    """Time of ``Dynamics.transition`` (and of the 3^k enumeration for N <= 12) when all N
    pairs come to rest at once and stick."""
    try:
        from nonsmooth.transition import enumerate_transition
    except ImportError:
        enumerate_transition = None
    rows = []
    for n in sizes:
        model = block_chain.build(N=n)
        dyn = Dynamics(model.system)
        q, v = project(model.system, 0.0, np.asarray(model.q0, float),
                       np.asarray(model.v0, float))
        before = -np.ones(n)  # slipping just before the event
        pairs = list(range(n))
        options = {i: (0.0, 1.0, -1.0) for i in pairs}
        dyn.transition(0.0, q, v, before, pairs[:1], options={0: options[0]})  # warm-up
        wall, new = best_of_3(lambda dyn=dyn, q=q, v=v, before=before, pairs=pairs,
                              options=options: dyn.transition(0.0, q, v, before, pairs,
                                                              options=options), timeout)
        row = {"N": n, "engine": wall, "all_stick": None if new is None else
               bool(np.all(new == 0.0)), "enumeration": math.nan, "enum_note": "-"}
        if enumerate_transition is None:
            row["enum_note"] = "not available"
        elif n > ENUMERATION_MAX:
            row["enum_note"] = f"skipped (3^{n} combinations)"
        else:
            wall_e, new_e = best_of_3(
                lambda dyn=dyn, q=q, v=v, before=before, pairs=pairs, options=options:
                enumerate_transition(dyn, 0.0, q, v, before, pairs, options=options), timeout)
            row["enumeration"] = wall_e
            row["enum_note"] = ("did not finish" if new_e is None else
                                f"{1e3 * wall_e:.1f} ms")
        rows.append(row)
        print(f"  N = {n:>3}: engine "
              f"{'did not finish' if new is None else f'{1e3 * wall:.2f} ms'}, "
              f"enumeration {row['enum_note']}", flush=True)
    return rows


# ------------------------------------------------------------------ output
def _target_text(kind: str, n: int, value: float, unit_scale: float, unit: str) -> str:
    n_target, limit = TARGETS[kind]
    if n != n_target:
        return ""
    if not math.isfinite(value):
        return f"target <= {limit * unit_scale:g} {unit}: not met (did not finish)"
    return (f"target <= {limit * unit_scale:g} {unit}: "
            f"{'met' if value <= limit else 'not met'} ({value / limit:.2g} x)")


def report(runs: list[dict], evals: list[float], transitions: list[dict], t_end: float) -> None:
    """Print the three tables with the targets."""
    print(f"\n1. stick-slip run 0-{t_end:g} s (simulate defaults: DOP853, rtol 1e-11, dt 0.01)")
    print(f"{'N':>5}{'wall [s]':>10}{'wall / sim. s':>15}{'evals':>9}{'switches':>10}  note")
    for row in runs:
        rate = row["rate"] if row["done"] else math.nan
        note = _target_text("run", row["N"], rate, 1.0, "s wall per simulated s")
        if not row["done"]:
            note = (f"did not finish: reached {row['reached']:.3g} s, >= "
                    f"{row['rate']:.3g} s wall per simulated s; " + note)
        print(f"{row['N']:>5}{row['wall']:>10.2f}{row['rate']:>15.3g}{row['evals']:>9d}"
              f"{row['switches']:>10d}  {note}")
    print("\n2. one evaluation, every block sliding (median)")
    print(f"{'N':>5}{'evaluate [us]':>15}  note")
    for n, sec in zip(SIZES, evals, strict=True):
        print(f"{n:>5}{1e6 * sec:>15.1f}  {_target_text('evaluation', n, sec, 1e3, 'ms')}")
    print("\n3. one transition event, all N pairs sticking at once")
    print(f"{'N':>5}{'engine [ms]':>13}{'all stick':>11}{'3^k enumeration':>30}  note")
    for row in transitions:
        eng = "did not finish" if not math.isfinite(row["engine"]) else f"{1e3 * row['engine']:.2f}"
        stick = "-" if row["all_stick"] is None else ("yes" if row["all_stick"] else "NO")
        note = _target_text("transition", row["N"], row["engine"], 1e3, "ms")
        print(f"{row['N']:>5}{eng:>13}{stick:>11}{row['enum_note']:>30}  {note}")


def plot(runs: list[dict], evals: list[float], transitions: list[dict], path: Path) -> None:
    """Three log-log panels against N with the targets marked; saved to ``path``."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 4.2), layout="constrained")
    axes = fig.subplots(1, 3)
    n_run = [r["N"] for r in runs]
    done = [r["rate"] if r["done"] else math.nan for r in runs]
    partial = [r["rate"] if not r["done"] else math.nan for r in runs]
    axes[0].loglog(n_run, done, "o-", label="finished")
    axes[0].loglog(n_run, partial, "v", color="C3", label="did not finish (lower bound)")
    axes[0].set_ylabel("wall time per simulated second [s]")
    axes[0].set_title("stick-slip run (DOP853, rtol 1e-11)")
    axes[1].loglog(SIZES, [1e6 * e for e in evals], "o-")
    axes[1].set_ylabel("one evaluation, all sliding [us]")
    axes[1].set_title("Dynamics.evaluate")
    axes[2].loglog([t["N"] for t in transitions], [1e3 * t["engine"] for t in transitions],
                   "o-", label="engine (Dynamics.transition)")
    enum = [1e3 * t["enumeration"] for t in transitions]
    if np.any(np.isfinite(enum)):
        axes[2].loglog([t["N"] for t in transitions], enum, "s--", label="3^k enumeration")
    axes[2].set_ylabel("one transition, all N sticking [ms]")
    axes[2].set_title("transition event")
    for ax, (kind, scale) in zip(axes, (("run", 1.0), ("evaluation", 1e6),
                                        ("transition", 1e3)), strict=True):
        n_t, limit = TARGETS[kind]
        ax.plot([n_t], [limit * scale], "*", color="k", markersize=14, label=f"target (N={n_t})")
        ax.set_xlabel("number of blocks N")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"block chain scaling ({blas_threads_text()}; noisy: 2 shared cores)")
    fig.savefig(path, dpi=110)
    print(f"\nfigure: {path}")


def main(argv: list[str] | None = None) -> None:
    """Command line."""
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="0-1 s runs, 15 s budgets, fewer timing repeats")
    parser.add_argument("--plot", type=Path, default=DEFAULT_PLOT, help="PNG of the figure")
    parser.add_argument("--timeout", type=float, default=None,
                        help="wall-clock budget of each run / transition (s; default 40, "
                             "15 with --quick)")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="re-run with OPENBLAS_NUM_THREADS set to this")
    args = parser.parse_args(argv)
    reexec_with_blas_threads(args.blas_threads, __file__, argv)
    timeout = args.timeout or (15.0 if args.quick else 40.0)
    t_end = 1.0 if args.quick else T_END
    print(__doc__.splitlines()[0])
    print(f"{blas_threads_text()}; budget {timeout:g} s per run / transition; noisy figures "
          "(2 cores shared with other work)")
    print("1. stick-slip runs ...", flush=True)
    runs = stick_slip_runs(SIZES, t_end, timeout)
    print("2. evaluations ...", flush=True)
    evals = evaluation_times(SIZES, args.quick)
    print("3. transitions ...", flush=True)
    transitions = transition_times(SIZES, timeout)
    report(runs, evals, transitions, t_end)
    if args.plot:
        plot(runs, evals, transitions, args.plot)


if __name__ == "__main__":
    main()
