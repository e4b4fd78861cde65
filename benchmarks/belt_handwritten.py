"""The belt stick-slip oscillator: nonsmooth against a hand-written event-driven solver.

    python benchmarks/belt_handwritten.py [--quick] [--no-process]

Problem (issue 10's baseline): block m = 1.5 kg on a belt at v_belt = 0.3 m/s, spring k = 4 N/m
to the wall, mu_s = 0.4, mu_d = 0.25, g = 9.81 m/s^2, x(0) = 0, v(0) = 0.1 m/s (the model's
default), 0-40 s, outputs every 0.01 s.

Measured, in one process (best of 3 each, the same machine state):

* the hand-written solver below (about 60 lines): scipy ``solve_ivp`` DOP853 (rtol 1e-10, atol
  1e-12) for the slip phases with a terminal event at ``v_r = 0``, the stick phase solved
  analytically (``x = x_e + v_belt (t - t_e)``) up to ``|k x| = F_s``;
* ``nonsmooth.simulate(stick_slip_oscillator.build(...), 40.0, dt=0.01)`` with default settings
  (``simulate``'s default method and tolerances: DOP853, rtol 1e-11, atol 1e-13; each smooth
  phase in compiled calls, ``nonsmooth/dop853.py``), and for
  reference with the baseline's DOP853 tolerances;

their wall times, the ratio engine / baseline, and both solutions' limit-cycle period error
against the closed form ``T = T_stick + T_slip`` (``models/stick_slip_oscillator.py``), from
the breakaway times (max over the cycles).

Then as whole processes (start-up and imports included, best of 2): ``nonsmooth run
stick_slip_oscillator --set ... --t-end 40 --dt 0.01 --out ... --events ...`` (the command line's
default method, the same DOP853, outputs every 0.01 s) against this script's own ``--regularized``
mode, the tanh-Stribeck regularized law of ``benchmarks/stick_slip.py`` integrated by scipy's LSODA
(``benchmarks/stick_slip.py`` itself runs a fixed table of other cases and cannot run one case
standalone), and ``--handwritten`` mode (the solver above as a process). The regularized period is
measured between successive maxima of x (events ``v = 0`` going down), since it has no breakaway
event.

A benchmark, not a test: the machine has 2 cores shared with other work, so the figures are
noisy (repeat a run before trusting a ratio to better than about 20 %).
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_of
from scipy.integrate import solve_ivp

M, K, MU_S, MU_D, V_BELT, G = 1.5, 4.0, 0.4, 0.25, 0.3, 9.81
X0, V0 = 0.0, 0.1  # the model's defaults (x0 = 0 m, v0 = 0.1 m/s): the block starts slipping
T_END, DT = 40.0, 0.01
RTOL, ATOL = 1e-10, 1e-12
EPS = 1e-4  # m/s: width of the tanh regularization (--regularized)
MODEL_SET = {"m": M, "k": K, "mu_s": MU_S, "mu_d": MU_D, "v_belt": V_BELT}


def closed_form_period() -> float:
    """``T_stick + T_slip`` of the belt limit cycle (s)."""
    F_s, F_d, omega = MU_S * M * G, MU_D * M * G, math.sqrt(K / M)
    D = (F_s - F_d) / K
    t_slip = (2 * math.pi - 2 * math.atan2(omega * D, V_BELT)) / omega
    return 2 * (F_s - F_d) / (K * V_BELT) + t_slip


def grid() -> np.ndarray:
    """The output times 0, 0.01, ..., 40 s."""
    return np.linspace(0.0, T_END, int(round(T_END / DT)) + 1)


# ------------------------------------------------------------------ the hand-written baseline
def handwritten() -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float]]:
    """Event-driven Coulomb solution by hand: DOP853 slip phases, analytic stick phases.

    Returns
    -------
    t, x, v : ndarray, shape (4001,)
        Outputs on the 0.01 s grid.
    breakaway : list of float
        Times at which the block leaves the belt (``|k x| = F_s`` while sticking).
    """
    F_s, F_d = MU_S * M * G, MU_D * M * G
    tt = grid()
    x_out, v_out = np.empty_like(tt), np.empty_like(tt)
    t, x, v, i = 0.0, X0, V0, 0
    mode = np.sign(V0 - V_BELT) or (0.0 if abs(K * X0) <= F_s else -np.sign(K * X0))
    breakaway = []
    while t < T_END:
        if mode == 0.0:  # stick: ride the belt until the spring exceeds static friction
            x_b = math.copysign(F_s, V_BELT) / K
            t_b = t + (x_b - x) / V_BELT
            j = np.searchsorted(tt, min(t_b, T_END), side="right")
            x_out[i:j] = x + V_BELT * (tt[i:j] - t)
            v_out[i:j] = V_BELT
            i = j
            if t_b >= T_END:
                break
            t, x, v, mode = t_b, x_b, V_BELT, -math.copysign(1.0, V_BELT)
            breakaway.append(t)
            continue
        s = mode

        def rhs(_t, y, s=s):
            return (y[1], (-K * y[0] - s * F_d) / M)

        def v_zero(_t, y):
            return y[1] - V_BELT

        v_zero.terminal, v_zero.direction = True, -s
        j = np.searchsorted(tt, T_END, side="right")
        sol = solve_ivp(rhs, (t, T_END), (x, v), method="DOP853", t_eval=tt[i:j],
                        events=v_zero, rtol=RTOL, atol=ATOL)
        n = sol.t.size
        x_out[i:i + n], v_out[i:i + n] = sol.y
        i += n
        if sol.status != 1:
            break
        t, x = float(sol.t_events[0][0]), float(sol.y_events[0][0][0])
        v = V_BELT
        mode = 0.0 if abs(K * x) <= F_s else -math.copysign(1.0, K * x)  # stick, or reverse
    return tt, x_out, v_out, breakaway


# ------------------------------------------------------------------ the regularized baseline
def regularized(eps: float = EPS) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float]]:
    """The tanh-Stribeck regularized law of ``benchmarks/stick_slip.py`` by scipy's LSODA.

    Returns
    -------
    t, x, v : ndarray
        Outputs on the 0.01 s grid.
    maxima : list of float
        Times of the maxima of x (``v = 0`` going down).
    """
    F_s, F_d = MU_S * M * G, MU_D * M * G

    def rhs(_t, y):
        vr = y[1] - V_BELT
        friction = -(F_d + (F_s - F_d) * math.exp(-(vr / (10 * eps)) ** 2)) * math.tanh(vr / eps)
        return (y[1], (-K * y[0] + friction) / M)

    def v_zero(_t, y):
        return y[1]

    v_zero.direction = -1.0
    tt = grid()
    sol = solve_ivp(rhs, (0.0, T_END), (X0, V0), method="LSODA", t_eval=tt, events=v_zero,
                    rtol=RTOL, atol=ATOL)
    return sol.t, sol.y[0], sol.y[1], list(sol.t_events[0])


def period_error(times: list[float]) -> float:
    """Largest relative deviation of successive intervals of ``times`` from the closed form."""
    if len(times) < 2:
        return math.nan
    T = closed_form_period()
    return float(np.max(np.abs(np.diff(times) - T)) / T)


# ------------------------------------------------------------------ timing
def in_process(repeat: int) -> None:
    """Hand-written baseline vs the engine in this process; prints times, ratios, errors."""
    import nonsmooth
    from nonsmooth.models import stick_slip_oscillator

    model = stick_slip_oscillator.build(**MODEL_SET)
    nonsmooth.simulate(model, 0.1, dt=DT)  # warm-up: the engine's lazy imports
    wall_hw, (tt, x_hw, _, brk_hw) = best_of(handwritten, repeat)
    runs = [("engine, default (DOP853, rtol 1e-11)", {}),
            ("engine, DOP853 rtol 1e-10 atol 1e-12",
             {"method": "DOP853", "rtol": RTOL, "atol": ATOL})]
    print(f"in one process, best of {repeat}; closed-form period T = {closed_form_period():.12g} s")
    print(f"{'solver':<40}{'wall [s]':>10}{'ratio':>8}{'evals':>8}{'period err':>12}"
          f"{'max|x - x_hw| [m]':>19}")
    print(f"{'hand-written (DOP853 + analytic stick)':<40}{wall_hw:>10.3f}{1.0:>8.2f}{'':>8}"
          f"{period_error(brk_hw):>12.2e}{'':>19}")
    for label, kw in runs:
        wall, r = best_of(lambda kw=kw: nonsmooth.simulate(model, T_END, dt=DT, **kw), repeat)
        brk = [e.t for e in r.events if e.kind == "reserve_zero"]
        dx = float(np.max(np.abs(r["x"] - x_hw))) if r.t.size == tt.size else math.nan
        print(f"{label:<40}{wall:>10.3f}{wall / wall_hw:>8.2f}"
              f"{r.diagnostics['n_evaluations']:>8d}{period_error(brk):>12.2e}{dx:>19.2e}")


def _cli_command(out: Path, events: Path) -> list[str]:
    exe = shutil.which("nonsmooth")
    head = [exe] if exe else [sys.executable, "-m", "nonsmooth"]
    sets = [a for name, val in MODEL_SET.items() for a in ("--set", f"{name}={val:g}")]
    return [*head, "run", "stick_slip_oscillator", *sets, "--t-end", f"{T_END:g}",
            "--dt", f"{DT:g}", "--out", str(out), "--events", str(events)]


def _events_period_error(path: Path) -> float:
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    return period_error([float(r[0]) for r in rows if r[2] == "reserve_zero"])


def as_processes(repeat: int) -> None:
    """The command line run against this script's baselines, each as a whole process."""
    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as tmp:
        out, ev = Path(tmp) / "tmp.csv", Path(tmp) / "tmp_events.csv"
        cases = [
            ("nonsmooth run (default method)", _cli_command(out, ev)),
            ("regularized tanh, LSODA (--regularized)",
             [sys.executable, script, "--regularized", "--out", str(out)]),
            ("hand-written (--handwritten)",
             [sys.executable, script, "--handwritten", "--out", str(out)]),
        ]
        print(f"\nas whole processes (start-up and imports included), best of {repeat}")
        print(f"{'process':<42}{'wall [s]':>10}{'CLI / this':>14}{'period err':>12}")
        walls = []
        for label, cmd in cases:
            best, err = math.inf, math.nan
            for _ in range(repeat):
                t0 = time.perf_counter()
                done = subprocess.run(cmd, capture_output=True, text=True)
                best = min(best, time.perf_counter() - t0)
                if done.returncode != 0:
                    print(f"{label}: failed (exit {done.returncode}): {done.stderr.strip()}")
                    break
                err = (_events_period_error(ev) if label.startswith("nonsmooth")
                       else float(done.stdout.split("period error")[-1].split()[0]))
            walls.append(best)
            print(f"{label:<42}{best:>10.3f}{walls[0] / best:>14.2f}{err:>12.2e}")


def main(argv: list[str] | None = None) -> None:
    """Command line: the in-process and process comparisons, or one baseline as a process."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition instead of 3 / 2")
    parser.add_argument("--no-process", action="store_true", help="skip the process timings")
    parser.add_argument("--regularized", action="store_true",
                        help="only run the regularized LSODA baseline (used as a process)")
    parser.add_argument("--handwritten", action="store_true",
                        help="only run the hand-written baseline (used as a process)")
    parser.add_argument("--eps", type=float, default=EPS, help="tanh width (m/s)")
    parser.add_argument("--out", help="CSV of t, x, v (with --regularized / --handwritten)")
    args = parser.parse_args(argv)
    if args.regularized or args.handwritten:
        t, x, v, times = regularized(args.eps) if args.regularized else handwritten()
        if args.out:
            np.savetxt(args.out, np.column_stack((t, x, v)), delimiter=",", header="t,x,v",
                       comments="")
        print(f"period error {period_error(times):.6e}")
        return
    print(__doc__.split("\n\n")[0])
    in_process(1 if args.quick else 3)
    if not args.no_process:
        as_processes(1 if args.quick else 2)
    print("\nnoisy (2 shared cores); ratios are engine / baseline wall time (> 1: the engine is "
          "slower); process times include interpreter start-up and imports")


if __name__ == "__main__":
    main()
