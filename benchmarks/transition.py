"""The transition problem at a stick/slip event: pivoting (LCP) against the 3^k enumeration.

    python benchmarks/transition.py [--sizes 5 10 13 30] [--old-max 12] [--repeats 5]

Problem: a chain of k blocks on a belt driven at 0.1 m/s (each block in its own frictional
translational joint with the belt, mu_s = 0.5 > mu_d = 0.3, springs from the wall to block 1
and between neighbours, pre-stretched by a few millimetres so that some blocks must slip), all
k pairs at rest relative to the belt at once: ``Dynamics.transition`` decides k modes.

Columns: the new method (:mod:`nonsmooth.transition`: friction-saturation LCP by Lemke, verified
by a full evaluation; the median of ``--repeats`` runs), the enumeration of all 3^k
combinations (``nonsmooth.transition.enumerate_transition``, the method the pivoting one
replaced, kept as a certificate; run in the same process for ``k <= --old-max`` only: 13 pairs
take seconds), their ratio, the
modes found (sticking / slipping) and whether both agree. Target: <= 50 ms for k = 30.

Reference: Pfeiffer F., Glocker C., *Multibody Dynamics with Unilateral Contacts* (1996), ch. 7.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from nonsmooth.dynamics import Dynamics
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Gravity, Spring
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.transition import enumerate_transition

V_BELT, MU_S, MU_D, K_SPRING = 0.1, 0.5, 0.3, 100.0


def belt_chain(k: int, *, seed: int = 0, spread: float = 0.05):
    """The chain of ``k`` blocks at rest on the belt: ``(system, q, v)``.

    Parameters
    ----------
    k : int
        Number of blocks (frictional pairs).
    seed : int
        Seed of the springs' pre-stretch.
    spread : float
        Largest pre-stretch of a spring (m); ``K_SPRING spread`` against ``mu_s m g = 4.9 N``.
    """
    rng = np.random.default_rng(seed)
    mdl = PlanarModel(f"belt chain {k}")
    belt = mdl.add(Body("belt", 5.0, 1.0, velocity=(V_BELT, 0.0)))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("belt_drive", track, speed=V_BELT))
    blocks = []
    for i in range(k):
        block = mdl.add(PointMass(f"block{i + 1}", 1.0, position=(float(i + 1), 0.0),
                                  velocity=(V_BELT, 0.0)))
        mdl.add(Translational(f"contact{i + 1}", belt, block, (0.0, 0.0), (1.0, 0.0), mu=MU_D,
                              mu_s=MU_S, normal="left"))
        blocks.append(block)
    rest = 1.0 + rng.uniform(-spread, spread, k)
    mdl.add(Spring("wall", ground, (0.0, 0.0), blocks[0], (0.0, 0.0), K_SPRING, rest[0]))
    for i in range(k - 1):
        mdl.add(Spring(f"spring{i + 1}", blocks[i], (0.0, 0.0), blocks[i + 1], (0.0, 0.0),
                       K_SPRING, rest[i + 1]))
    mdl.add(Gravity(g=9.81, bodies=blocks))
    system = mdl.compile()
    q, v = mdl.initial_state()
    return system, q, v


def measure(k: int, *, old_max: int = 12, repeats: int = 5) -> dict:
    """Time both methods on the chain of ``k`` blocks.

    Returns
    -------
    dict
        ``k``, ``new`` and ``old`` (seconds; ``old`` nan when skipped), ``stick``, ``slip``
        (counts in the new answer), ``agree`` (None when the old one was not run).
    """
    system, q, v = belt_chain(k)
    dyn = Dynamics(system)
    modes = np.ones(k)  # before the event: all slipping; now all at rest
    candidates = list(range(k))
    dyn.transition(0.0, q, v, modes, candidates)  # warm-up (lazy imports)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        new = dyn.transition(0.0, q, v, modes, candidates)
        times.append(time.perf_counter() - start)
    row = dict(k=k, new=statistics.median(times), old=float("nan"), agree=None,
               stick=int(np.sum(new == 0.0)), slip=int(np.sum(new != 0.0)))
    if k <= old_max:
        start = time.perf_counter()
        old = enumerate_transition(dyn, 0.0, q, v, modes, candidates)
        row["old"] = time.perf_counter() - start
        row["agree"] = bool(np.array_equal(old, new))
    return row


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10, 13, 30])
    parser.add_argument("--old-max", type=int, default=12,
                        help="run the old enumeration only up to this many pairs")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    rows = [measure(k, old_max=args.old_max, repeats=args.repeats) for k in args.sizes]
    print("transition with k pairs at rest at once (chain of blocks on a belt)")
    print(f"{'k':>4} {'new (ms)':>10} {'old (ms)':>10} {'old/new':>9} {'stick':>6} {'slip':>5} "
          f"{'agree':>6}")
    for r in rows:
        old = "-" if np.isnan(r["old"]) else f"{1e3 * r['old']:.1f}"
        ratio = "-" if np.isnan(r["old"]) else f"{r['old'] / r['new']:.0f}x"
        agree = "-" if r["agree"] is None else ("yes" if r["agree"] else "NO")
        print(f"{r['k']:>4} {1e3 * r['new']:>10.2f} {old:>10} {ratio:>9} {r['stick']:>6} "
              f"{r['slip']:>5} {agree:>6}")
    return rows


if __name__ == "__main__":
    main()
