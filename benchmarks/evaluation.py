"""Time of one evaluation of the equations of motion, called from Python, against issue 10's
targets.

    python benchmarks/evaluation.py [--quick] [--blas-threads N]

What is timed is the call ``simulate`` makes at every stage of every step
(``nonsmooth/simulate.py``, ``_Run.ev_at`` / ``_Run.fun``)::

    dyn = Dynamics(model.system, alpha=..., beta=..., laws=...)
    dyn.evaluate(t, q, v, modes, faces, z)

with the phase's modes (+1 slip+, -1 slip-, 0 stick per pair), the faces of the load rows fixed
(the sign of each ``lambda_N``, as ``_Run.initial_faces`` derives them) and the smooth laws'
internal states ``z``. Alongside: the model's own part, ``system.terms(t, q, v)`` (mass matrix,
forces, constraints, Jacobians), which ``evaluate`` calls once.

Cases and targets (microseconds per evaluation):

* the 1-DOF block on a belt (``stick_slip_oscillator``, m 1.5, k 4, mu_s 0.4, mu_d 0.25,
  v_belt 0.3) slipping (mode -1) and sticking (mode 0): <= 3 us;
* the crank-rocker in the paper's two-coordinate form (c = 8): <= 3 us;
* the planar-builder crank-rocker and the slider-crank: <= 6 us;
* the MotionSolve pendulum (``pendulum_joint_friction``, LuGre in a revolute joint): <= 30 us;
* the block chain (``block_chain``) with N = 10, 30, 100 blocks, every block sliding: N = 100
  <= 500 us (no target for 10 and 30).

States: the block and the chain are built directly (the chain's blocks at rest while the belt
moves: every pair slip-); the others are the last output of a short run (0.5 s, 0.05 s for the
slider-crank, 0.3 s for the pendulum) with its modes and internal states. Times: ``timeit``
(loop count from ``autorange``, about 0.2 s per repeat), median over 7 repeats (3 with
``--quick``), under the BLAS thread limit ``simulate`` sets (one thread for a system of up to
``limits.SMALL_SYSTEM`` rows: how a run calls the evaluation). ``--blas-threads N`` re-runs the
script with ``OPENBLAS_NUM_THREADS=N`` instead: on this 2-core machine shared with other work,
OpenBLAS's threads make the N = 100 chain's Delassus solve (103 rows, 101 right-hand sides)
several times to 100 times slower than one thread. A benchmark, not a test: the figures are
noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import timeit
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import nonsmooth
from nonsmooth.dynamics import DEFAULT_ALPHA, DEFAULT_BETA, Dynamics
from nonsmooth.model import Model
from nonsmooth.models import block_chain, crank_rocker, load, slider_crank, stick_slip_oscillator
from nonsmooth.simulate import project


@dataclass
class Case:
    """One evaluation to time: the dynamics and the arguments simulate would pass."""

    name: str
    dyn: Dynamics
    t: float
    q: np.ndarray
    v: np.ndarray
    modes: np.ndarray
    faces: np.ndarray
    z: np.ndarray
    target_us: float | None


def dynamics(model: Model) -> Dynamics:
    """``Dynamics`` with the model's Baumgarte parameters, as ``simulate`` builds it."""
    alpha = DEFAULT_ALPHA if model.alpha is None else model.alpha
    beta = DEFAULT_BETA if model.beta is None else model.beta
    return Dynamics(model.system, alpha=alpha, beta=beta)


def faces_of(dyn: Dynamics, t: float, q: np.ndarray, v: np.ndarray, modes: np.ndarray,
             z: np.ndarray) -> np.ndarray:
    """The faces of the load rows at a state, as ``_Run.initial_faces`` derives them."""
    ev = dyn.evaluate(t, q, v, modes, None, z)
    scale = max(1.0, float(np.max(np.abs(ev.lam)))) if ev.lam.size else 1.0
    return np.where(np.abs(ev.lam_abs) <= 1e-10 * scale, 0.0, np.sign(ev.lam_abs))


def built_state(name: str, model: Model, modes: list[float], target: float | None) -> Case:
    """A case at the model's (projected) initial state with the given modes."""
    dyn = dynamics(model)
    q, v = project(model.system, 0.0, np.asarray(model.q0, float), np.asarray(model.v0, float))
    m = np.array(modes, dtype=float)
    z = np.zeros(dyn.n_z)
    return Case(name, dyn, 0.0, q, v, m, faces_of(dyn, 0.0, q, v, m, z), z, target)


def run_state(name: str, model: Model, t_end: float, target: float | None, **kw) -> Case:
    """A case at the last output of a short run, with that run's modes and internal states."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = nonsmooth.simulate(model, t_end, **kw)
    dyn = dynamics(model)
    modes = np.nan_to_num(r.modes[-1], nan=1.0)  # smooth-law pairs: the run passes 1
    t, q, v, z = float(r.t[-1]), r.q[-1].copy(), r.v[-1].copy(), r.z[-1].copy()
    return Case(name, dyn, t, q, v, modes, faces_of(dyn, t, q, v, modes, z), z, target)


def chain_sliding(n_blocks: int, target: float | None) -> Case:
    """The chain with every block at rest while the belt moves at 0.1 m/s: all pairs slip-."""
    model = block_chain.build(N=n_blocks)
    v0 = np.array(model.v0, dtype=float)
    for i in range(n_blocks):
        v0[model.system.coordinate_names.index(f"block{i + 1}.x")] = 0.0
    model.v0 = v0
    return built_state(f"block chain N = {n_blocks}, all sliding", model, [-1.0] * n_blocks,
                       target)


def cases() -> list[Case]:
    """Every case of the table, in order."""
    belt = {"m": 1.5, "k": 4.0, "mu_s": 0.4, "mu_d": 0.25, "v_belt": 0.3}
    return [
        built_state("1-DOF block, slipping", stick_slip_oscillator.build(**belt), [-1.0], 3.0),
        built_state("1-DOF block, sticking",
                    stick_slip_oscillator.build(v0=0.3, **belt), [0.0], 3.0),
        run_state("crank-rocker, two-coordinate", crank_rocker.build(c=8.0), 0.5, 3.0,
                  method="RK4", dt=1e-3),
        run_state("crank-rocker, planar", crank_rocker.build(c=8.0, form="planar"), 0.5, 6.0,
                  method="RK4", dt=1e-3),
        run_state("slider-crank", slider_crank.build(), 0.05, 6.0, method="RK4", dt=1e-4),
        run_state("MotionSolve pendulum (LuGre)", load("pendulum_joint_friction").build(), 0.3,
                  30.0),
        chain_sliding(10, None),
        chain_sliding(30, None),
        chain_sliding(100, 500.0),
    ]


def blas_threads_text() -> str:
    """The BLAS thread setting of this process."""
    value = os.environ.get("OPENBLAS_NUM_THREADS")
    return (f"OPENBLAS_NUM_THREADS={value}" if value else
            "evaluations under simulate's BLAS limit (one thread for a small system)")


def reexec_with_blas_threads(threads: int | None, script: str, argv: list[str]) -> None:
    """Run ``script`` again with the BLAS thread count set (OpenBLAS reads it at start-up)."""
    if threads is None or os.environ.get("OPENBLAS_NUM_THREADS") == str(threads):
        return
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, os.path.abspath(script), *argv], env)


def median_time(fn: Callable[[], object], repeat: int, budget: float, system=None) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` timings of about ``budget`` s each;
    with ``system``, under the BLAS thread limit ``simulate`` sets for it (one thread for a
    small system: as a run calls the evaluation; unless ``--blas-threads`` set one)."""
    import contextlib
    import importlib

    limit = contextlib.nullcontext()
    if system is not None and "OPENBLAS_NUM_THREADS" not in os.environ:
        limit = importlib.import_module("nonsmooth.simulate")._blas_threads(system)
    with limit:
        timer = timeit.Timer(fn)
        number, took = timer.autorange()
        number = max(1, int(number * budget / max(took, 1e-9)))
        return statistics.median(timer.repeat(repeat=repeat, number=number)) / number


def main(argv: list[str] | None = None) -> None:
    """Time every case and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 repeats of ~0.05 s")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="re-run with OPENBLAS_NUM_THREADS set to this")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    reexec_with_blas_threads(args.blas_threads, __file__, argv)
    repeat, budget = (3, 0.05) if args.quick else (7, 0.2)
    print(__doc__.splitlines()[0] + " " + __doc__.splitlines()[1])
    print(f"median of {repeat} timeit repeats; {blas_threads_text()}; noisy (2 shared cores)")
    print(f"{'case':<38}{'n_q':>5}{'m':>5}{'p':>5}{'evaluate [us]':>15}{'terms [us]':>12}"
          f"{'target [us]':>13}{'x target':>10}")
    for case in cases():
        sysm = case.dyn.system
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_eval = median_time(lambda c=case: c.dyn.evaluate(c.t, c.q, c.v, c.modes, c.faces,
                                                               c.z), repeat, budget, sysm)
            t_terms = median_time(lambda c=case: c.dyn.system.terms(c.t, c.q, c.v), repeat,
                                  budget)
        target = "-" if case.target_us is None else f"{case.target_us:g}"
        factor = "-" if case.target_us is None else f"{1e6 * t_eval / case.target_us:.1f}"
        print(f"{case.name:<38}{sysm.n_q:>5}{sysm.n_constraints:>5}{sysm.n_pairs:>5}"
              f"{1e6 * t_eval:>15.1f}{1e6 * t_terms:>12.1f}{target:>13}{factor:>10}")
    print("x target: evaluate / target (<= 1 meets it); terms: the model's own part of evaluate")


if __name__ == "__main__":
    main()
