"""The spatial double pendulum side by side with MuJoCo: wall time against error for both.

    python benchmarks/spatial.py [--quick] [--plot FILE]

Issue 21, check 5 (``docs/design/spatial.md`` section 6). The mechanism: ``spatial_double_pendulum``
at its defaults (two rods on revolute joints, the second hinge tilted by 1 rad from the first
about rod 1: a genuinely 3-D motion), frictionless, 0-10 s. nonsmooth builds it as two
Euler-parameter bodies with five constraint rows each (``build()``, Baumgarte 10 1/s); MuJoCo
from the same numbers in joint coordinates (``mjcf()``: two hinges, contact and constraints
disabled). Error: the largest difference of either rod's centre-of-mass position (m, any
component) from the reference at the 1001 times ``0, 0.01, ..., 10`` s; also the largest
difference of the rods' rotation matrices (MuJoCo's ``ximat``, nonsmooth's ``R(p)``).

Reference: nonsmooth's DOP853 at rtol 1e-13, atol 1e-15, cross-checked against MuJoCo's RK4
at 2.5e-5 and 1.25e-5 s (printed: the two references agree to about 2e-13 m).

Runs: MuJoCo's RK4 at steps 0.01 ... 5e-5 s (0.002 s its default), timed two ways, the faster
kept and named: ``mujoco.rollout.rollout`` (MuJoCo's own C loop over ``mj_step``, the state
recorded at every step) and ``mujoco.mj_step`` called from Python (qpos kept at the output
times; on this machine the faster, by about 2x, up to 1e5 steps);
nonsmooth's DOP853 at rtol 1e-6 ... 5e-13 (atol = rtol / 100; 5e-13 / 5e-15 its default
here, 1e-11 / 1e-13 the engine-wide one) and
its RK4 at 0.01 ... 0.002 s (``nonsmooth.simulate``, outputs at the same times). Wall time:
best of 3 (``--quick``: 1, fewer runs), one process, after a warm-up; each engine's run alone
is timed (its own recording of the outputs included), the frames compared afterwards. Both
engines record the state at the outputs: MuJoCo's rollout the physics state after each step,
nonsmooth ``simulate(..., derived=False)`` the states, energies and work (its default,
``derived=True``, also evaluates every output for the multipliers, accelerations and the
model's reaction outputs: printed as ``nonsmooth*`` and its wall at 1e-8 beside the target,
about 1.3x the states-only run's at 1001 outputs).

Targets (issue 21): at equal accuracy (error <= 1e-8 over 0-10 s) nonsmooth no slower than
MuJoCo's RK4 (each engine's wall time at 1e-8 read off its work-precision line, log-log
interpolation between the bracketing runs); at MuJoCo's default step (0.002 s) nonsmooth 1e3
times more accurate (nonsmooth at its defaults for this frictionless model, DOP853 rtol
5e-13, atol 5e-15 (``SpatialSystem.default_tolerances``), against MuJoCo's RK4 at 0.002 s;
the same step in nonsmooth's RK4 printed too, and the engine-wide default rtol 1e-11, at
which the error at the outputs is DOP853's 7th-order dense output's, 10-20x its steps' own:
``docs/design/spatial.md`` section 6).

The spatial family runs in its compiled kernels (``nonsmooth/spatial/kernels.py``, about
3-5 us per evaluation inside the DOP853 phase, its arithmetic and dense output included),
MuJoCo in C at about 1.6-2.4 us per evaluation (one of RK4's four stages); the script prints
the ratio of evaluations at 1e-8 too, the part the method decides
(``benchmarks/spatial_evaluation.py`` times one evaluation of each engine alone).

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy.
"""

from __future__ import annotations

import argparse
import math
import time

import mujoco
import numpy as np
from _timing import best_of
from mujoco import rollout

import nonsmooth
from nonsmooth.models import spatial_double_pendulum as sdp
from nonsmooth.spatial.rotation import rotation_matrices

T_END, DT_OUT = 10.0, 0.01
GRID = DT_OUT * np.arange(int(round(T_END / DT_OUT)) + 1)
ACCURACY = 1e-8  # the equal-accuracy target's error (m)
GAIN = 1e3  # the accuracy target at MuJoCo's default step
MJ_DEFAULT = 0.002


def ns_frames(r) -> tuple[np.ndarray, np.ndarray]:
    """Centres of mass (k, 2, 3) and rotation matrices (k, 2, 3, 3) of a nonsmooth result."""
    q = r.q.reshape(len(r.t), 2, 7)
    return q[:, :, :3].copy(), rotation_matrices(q[:, :, 3:7])


def run_nonsmooth(model, repeat: int = 1, derived: bool = False,
                  **options) -> tuple[float, np.ndarray, np.ndarray, int]:
    """Best wall time of ``repeat`` runs of ``nonsmooth.simulate`` (the run alone, as MuJoCo's
    is timed: the frames are computed after the clock stops), the frames and the evaluations.
    ``derived`` False (the default here): the states at the outputs only, as MuJoCo's rollout
    records them; True: each output evaluated too (multipliers, accelerations, the model's
    reaction outputs), nonsmooth's own default."""
    wall, r = best_of(lambda: nonsmooth.simulate(model, T_END, t_eval=GRID, derived=derived,
                                                 **options), repeat)
    x, R = ns_frames(r)
    return wall, x, R, int(r.diagnostics["n_evaluations"])


class MuJoCoRun:
    """One MuJoCo model at one step: the rollout and the frames at the output times."""

    def __init__(self, timestep: float) -> None:
        xml, self.qpos0, self.qvel0 = sdp.mjcf(timestep=timestep, integrator="RK4")
        self.m = mujoco.MjModel.from_xml_string(xml)
        self.d = mujoco.MjData(self.m)
        self.nstep = int(round(T_END / timestep))
        self.every = int(round(DT_OUT / timestep))
        if abs(self.every * timestep - DT_OUT) > 1e-12 or abs(
                self.nstep * timestep - T_END) > 1e-9:
            raise ValueError(f"step {timestep:g} s does not divide {DT_OUT:g} s")
        self.spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
        mujoco.mj_resetData(self.m, self.d)
        self.d.qpos[:], self.d.qvel[:] = self.qpos0, self.qvel0
        self.state0 = np.empty(mujoco.mj_stateSize(self.m, self.spec))
        mujoco.mj_getState(self.m, self.d, self.state0, self.spec)

    def roll(self) -> np.ndarray:
        """States after each step (nstep, nstate), by MuJoCo's rollout (its C loop)."""
        state, _ = rollout.rollout(self.m, self.d, self.state0[None, :], nstep=self.nstep)
        return state[0]

    def python_loop(self) -> np.ndarray:
        """The same run by ``mujoco.mj_step`` called from Python, qpos at the output times."""
        mujoco.mj_setState(self.m, self.d, self.state0, self.spec)
        out = np.empty((len(GRID), self.m.nq))
        out[0] = self.d.qpos
        k = 0
        for i in range(1, self.nstep + 1):
            mujoco.mj_step(self.m, self.d)
            if i % self.every == 0:
                k += 1
                out[k] = self.d.qpos
        return out

    def frames(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Centres of mass and inertial-frame rotations at the output times."""
        nq = self.m.nq
        qpos = np.vstack([self.qpos0, states[self.every - 1::self.every, 1:1 + nq]])
        return self.frames_of(qpos)

    def frames_of(self, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.empty((len(qpos), 2, 3))
        R = np.empty((len(qpos), 2, 3, 3))
        for k, q in enumerate(qpos):
            self.d.qpos[:] = q
            mujoco.mj_kinematics(self.m, self.d)
            x[k] = self.d.xipos[1:3]
            R[k] = self.d.ximat[1:3].reshape(2, 3, 3)
        return x, R


def error(frames, ref) -> tuple[float, float]:
    """Largest centre-of-mass difference (m) and rotation-matrix difference from ``ref``."""
    return (float(np.max(np.abs(frames[0] - ref[0]))),
            float(np.max(np.abs(frames[1] - ref[1]))))


def wall_at(points: list[tuple[float, float]], target: float) -> float:
    """Wall time at error ``target`` on a work-precision line ``[(error, wall), ...]``:
    log-log interpolation between the cheapest run at or below it and the most accurate run
    above it; nan when no run reaches it or none is above it."""
    below = [p for p in points if p[0] <= target]
    above = [p for p in points if p[0] > target]
    if not below:
        return math.nan
    lo = min(below, key=lambda p: p[1])  # the cheapest run accurate enough
    if not above:
        return lo[1]
    hi = min(above, key=lambda p: p[0])  # the most accurate run not accurate enough
    if hi[1] >= lo[1] or hi[0] == lo[0]:
        return lo[1]
    u = (math.log(target) - math.log(hi[0])) / (math.log(lo[0]) - math.log(hi[0]))
    return math.exp(math.log(hi[1]) + u * (math.log(lo[1]) - math.log(hi[1])))


def main(argv: list[str] | None = None) -> None:
    """Reference, runs, table, verdicts (and the plot)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition, fewer runs")
    parser.add_argument("--plot", metavar="FILE", help="save a log-log work-precision plot")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 3
    model = sdp.build()
    # warm-up: the engine's lazy imports, and its kernels where the shipped cache does not
    # hold them (after a kernel edit: a first RK4 run would otherwise time its compilation)
    nonsmooth.simulate(model, 0.05, dt=DT_OUT)
    nonsmooth.simulate(model, 0.05, method="RK4", dt=DT_OUT)
    print(__doc__.splitlines()[0])
    print(f"spatial_double_pendulum defaults, 0-{T_END:g} s, errors at {len(GRID)} times; "
          f"mujoco {mujoco.__version__}, nonsmooth {nonsmooth.__version__}; best of {repeat}")

    t0 = time.perf_counter()
    _, x_ref, R_ref, n_ref = run_nonsmooth(model, rtol=1e-13, atol=1e-15)
    ref = (x_ref, R_ref)
    print(f"reference: nonsmooth DOP853 rtol 1e-13 ({n_ref} evaluations, "
          f"{time.perf_counter() - t0:.1f} s)")
    for h in ((2.5e-5,) if args.quick else (2.5e-5, 1.25e-5)):
        run = MuJoCoRun(h)
        e = error(run.frames(run.roll()), ref)
        print(f"  cross-check: MuJoCo RK4 h = {h:g} s against it: COM {e[0]:.1e} m, "
              f"R {e[1]:.1e}")

    rows = []  # (engine, run, wall, evals, err_x, err_R)
    mj_steps = ((0.01, 0.002, 5e-4, 1e-4) if args.quick
                else (0.01, 0.005, 0.002, 0.001, 5e-4, 2.5e-4, 1e-4, 5e-5))
    for h in mj_steps:
        run = MuJoCoRun(h)
        wall_c, states = best_of(run.roll, repeat)
        wall_py, qpos = best_of(run.python_loop, repeat)
        e = error(run.frames(states), ref)
        e_py = error(run.frames_of(qpos), ref)
        if max(abs(e[0] - e_py[0]), abs(e[1] - e_py[1])) > 1e-15:
            raise RuntimeError(f"h = {h:g}: rollout and mj_step loop differ")
        via = "rollout" if wall_c <= wall_py else "mj_step loop"
        rows.append(("MuJoCo", f"RK4 h = {h:g} s ({via})", min(wall_c, wall_py),
                     4 * run.nstep, *e))
    rtols = ((1e-6, 1e-8, 1e-11, 5e-13) if args.quick
             else (1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 5e-13))
    for rtol in rtols:
        atol = 1e-13 if rtol == 1e-11 else rtol / 100
        wall, x, R, n = run_nonsmooth(model, repeat, rtol=rtol, atol=atol)
        note = {5e-13: " (default)", 1e-11: " (engine-wide)"}.get(rtol, "")
        rows.append(("nonsmooth", f"DOP853 rtol {rtol:g}{note}", wall, n, *error((x, R), ref)))
    for rtol in (1e-6, 1e-8, 1e-11):  # nonsmooth's default recording: every output evaluated
        atol = 1e-13 if rtol == 1e-11 else rtol / 100
        wall, x, R, n = run_nonsmooth(model, repeat, derived=True, rtol=rtol, atol=atol)
        rows.append(("nonsmooth*", f"DOP853 rtol {rtol:g}, outputs evaluated", wall, n,
                     *error((x, R), ref)))
    for h in ((0.01,) if args.quick else (0.01, 0.005, 0.002)):
        wall, x, R, n = run_nonsmooth(model, 1 if h < 0.005 else repeat, method="RK4", dt=h)
        rows.append(("nonsmooth", f"RK4 h = {h:g} s", wall, n, *error((x, R), ref)))

    print(f"{'engine':<10}{'run':<38}{'wall [s]':>10}{'evals':>9}{'us/eval':>9}"
          f"{'COM err [m]':>13}{'R err':>10}")
    for eng, name, wall, n, ex, eR in rows:
        print(f"{eng:<10}{name:<38}{wall:>10.4f}{n:>9d}{1e6 * wall / n:>9.2f}"
              f"{ex:>13.2e}{eR:>10.2e}")

    def line(engine, prefix):
        return [(r[4], r[2]) for r in rows if r[0] == engine and r[1].startswith(prefix)]

    mj_line = line("MuJoCo", "RK4")
    ns_lines = {"DOP853": line("nonsmooth", "DOP853"), "RK4": line("nonsmooth", "RK4")}
    w_mj = wall_at(mj_line, ACCURACY)
    w_ns = {k: wall_at(v, ACCURACY) for k, v in ns_lines.items()}
    best_ns = min((v, k) for k, v in w_ns.items() if not math.isnan(v)) if any(
        not math.isnan(v) for v in w_ns.values()) else (math.nan, "-")
    speed = best_ns[0] / w_mj
    err_mj = next(r[4] for r in rows if r[1].startswith(f"RK4 h = {MJ_DEFAULT:g} s"))
    err_def = next(r[4] for r in rows if r[0] == "nonsmooth" and r[1].endswith("(default)"))
    err_rk4 = next((r[4] for r in rows if r[0] == "nonsmooth" and r[1] == f"RK4 h = "
                    f"{MJ_DEFAULT:g} s"), math.nan)
    gain = err_mj / err_def
    print()
    print(f"{'target (issue 21)':<58}{'measured':>22}{'target':>10}  verdict")
    print(f"{'wall at COM error 1e-8: nonsmooth (' + best_ns[1] + ') / MuJoCo RK4':<58}"
          f"{speed:>22.1f}{'<= 1':>10}  {verdict(speed <= 1.0, speed)}")
    print(f"{'  (wall at 1e-8 [s]: MuJoCo RK4':<58}{w_mj:>22.4f}")
    for k, v in w_ns.items():
        print(f"{'   nonsmooth ' + k:<58}{v:>22.4f}")
    w_all = wall_at(line("nonsmooth*", "DOP853"), ACCURACY)
    print(f"{'   nonsmooth DOP853, every output evaluated (derived=True)':<58}{w_all:>22.4f}"
          f"  ({w_all / w_mj:.2f}x)")
    print(f"{'error at h = 0.002 s: MuJoCo RK4 / nonsmooth defaults':<58}{gain:>22.2e}"
          f"{'>= 1e3':>10}  {verdict(gain >= GAIN, gain)}")
    wall_mj = next(r[2] for r in rows if r[1].startswith(f"RK4 h = {MJ_DEFAULT:g} s"))
    tight = next(r for r in rows if r[1] == "DOP853 rtol 5e-13 (default)")
    wide = next(r for r in rows if r[1] == "DOP853 rtol 1e-11 (engine-wide)")
    print(f"{'  (at the defaults: the wall ratio to MuJoCo at 0.002 s)':<58}"
          f"{tight[2] / wall_mj:>22.2f}")
    print(f"{'  (at rtol 1e-11, the engine-wide default: MuJoCo error / its)':<58}"
          f"{err_mj / wide[4]:>22.2e}")
    print(f"{'  (the same step in both, MuJoCo RK4 / nonsmooth RK4)':<58}"
          f"{err_mj / err_rk4:>22.2e}")
    us_mj = float(np.median([1e6 * r[2] / r[3] for r in rows if r[0] == "MuJoCo"]))
    us_ns = float(np.median([1e6 * r[2] / r[3] for r in rows if r[0] == "nonsmooth"]))
    # (evaluations: the right-hand side's in the run; derived=False evaluates no output)
    n_mj = wall_at([(r[4], r[3]) for r in rows if r[0] == "MuJoCo"], ACCURACY)
    n_ns = wall_at([(r[4], r[3]) for r in rows if r[0] == "nonsmooth"
                    and r[1].startswith("DOP853")], ACCURACY)
    print(f"{'evaluations at 1e-8: nonsmooth DOP853 / MuJoCo RK4':<58}{n_ns / n_mj:>22.2f}")
    print(f"{'us per evaluation (median): nonsmooth / MuJoCo':<58}"
          f"{us_ns:>13.0f} / {us_mj:<6.1f}")
    tol = next((r[1] for r in rows if r[0] == "nonsmooth" and r[1].startswith("DOP853")
                and r[4] <= err_mj / GAIN), None)
    print(f"1e3 x MuJoCo's accuracy at 0.002 s first reached by nonsmooth {tol or '(none run)'}")
    print(f"The speed target is NOT met: {speed:.1f}x MuJoCo's wall time at 1e-8 (~{us_ns:.0f} "
          f"us per evaluation of the whole run, set-up and outputs included, against MuJoCo's "
          f"~{us_mj:.1f} us in C)." if not speed <= 1.0 else "The speed target is met.")
    print("noisy: 2 shared cores; repeat before trusting a ratio to better than ~20 %")
    if args.plot:
        plot(rows, args.plot)


def verdict(ok: bool, value: float) -> str:
    if math.isnan(value):
        return "not measured"
    return "met" if ok else "NOT met"


def plot(rows, path: str) -> None:
    """Log-log work-precision plot: wall time against COM error, one line per series."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    series = {}
    for eng, name, wall, _, ex, _ in rows:
        key = f"{eng} {name.split()[0]}"
        series.setdefault(key, []).append((max(ex, 1e-16), wall))
    for key, pts in series.items():
        pts.sort()
        ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", label=key)
    ax.axvline(ACCURACY, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("max COM position error over 0-10 s [m]")
    ax.set_ylabel("wall time [s]")
    ax.set_title("spatial double pendulum: work-precision")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
