"""A spatial arm with three frictional joints in stick-slip, 0-5 s: the compiled path against
the Python path.

    python benchmarks/spatial_friction.py [--quick]

Issue 22's target (``docs/design/spatial_friction.md`` section 6.3): a spatial mechanism with 3
frictional joints in stick-slip over 0-5 s in at most 0.5 s of wall time. The mechanism
(:func:`build`): a two-link arm, set-valued Coulomb friction in every joint (MotionSolve's
``Force_JointFriction``, ``nonsmooth.spatial.joint_friction``):

* ``shoulder``: a revolute to the ground about the vertical, carrying the arm (its axial load,
  its bending moment over ``bending_arm``); driven by ``T_1 = 2.2 sin(pi t)`` N m about the
  vertical (the static torque is about 1.8 N m);
* ``elbow``: a revolute about the outer link's own axis (horizontal, along the arm), its
  radial and bending loads from the outer link and the slider; driven by ``T_2 = 0.6 sin(1.4
  pi t)`` N m on the outer link, its reaction on the inner link;
* ``slide``: a translational joint along the outer link carrying a slider (reaction, bending
  over the overlap, torsion), pushed along it by ``F = 1.5 sin(1.8 pi t)`` N.

``nonsmooth.simulate`` 0-5 s with the defaults (DOP853, rtol 1e-11, atol 1e-13), outputs
every 0.01 s. The
compiled path (the spatial kernels write the joints' ``W`` rows and tangential bias, the
compiled stage the norm load terms with their certificate) against the Python path of commit
937dcaa (the family off, the stage in Python: ``Dynamics._compile_plan`` skipped); printed:
wall time (best of 3, ``--quick``: 1; after a warm-up run), evaluations, events, the stick
and slip events per joint, the largest state difference of the two paths, the ratio, and the
verdict against 0.5 s.

Measured (session 8, on a machine 1.5x slower than session 6's): compiled 0.28-0.41 s best of
3, 5198 evaluations, 70 events; the Python path 10 s (25x). Before this session's two changes
(the face-free evaluations at events retried in the kernel with the continuation's signs
instead of the 6 ms general stage; the user functions called unchecked, 39 -> 9 us per
evaluation) 0.67 s.

Measured earlier (commit 68f989c, 2 shared cores): compiled 0.416 s best of 3 (batches of 8 runs:
min 0.38-0.49 s, median about 0.5 s), 5198 evaluations, 70 events, every joint 5-9 stick and
slip events; the Python path 6.3 s (20 s under load), 5517 evaluations: 15x; the two paths'
states agree to 3.5e-10. About a third of the compiled run is the user functions' call-backs
(22 us each, ~5400 of them: the periodic torques and force), a third the events' Python
transition problem; an evaluation 5.7 us sticking, 8.8 us slipping.

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy.
"""

from __future__ import annotations

import argparse
import math
from contextlib import contextmanager

import numpy as np
from _timing import best_of

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.spatial import (
    Body,
    Force,
    Gravity,
    Revolute,
    SpatialModel,
    Torque,
    Translational,
    ground,
)
from nonsmooth.spatial.model import SpatialSystem

T_END, TARGET = 5.0, 0.5  # s, s of wall time
GRID = np.linspace(0.0, T_END, 501)
JOINTS = ("shoulder", "elbow", "slide")


def build() -> SpatialModel:
    """The arm: link 1 (2 kg, 0.5 m along x from the shoulder), link 2 (1 kg, 0.5 m further,
    turning about its own axis x at the elbow), a 0.5 kg slider on link 2 at x = 0.8 m;
    Coulomb ``mu = 0.2``, ``mu_s = 0.25`` in every joint (pin radii 0.02 m, bending arms
    0.05 m, the slide's overlap 0.1 m and reaction arm 0.02 m)."""
    mdl = SpatialModel("three-joint arm")
    link1 = mdl.add(Body("link1", mass=2.0, inertia=(0.005, 0.05, 0.05),
                         position=(0.25, 0.0, 0.0)))
    link2 = mdl.add(Body("link2", mass=1.0, inertia=(0.02, 0.02, 0.02),
                         position=(0.75, 0.0, 0.0)))
    slider = mdl.add(Body("slider", mass=0.5, inertia=(0.001, 0.001, 0.001),
                          position=(0.8, 0.0, 0.0)))
    arms = {"mu": 0.2, "mu_s": 0.25, "pin_radius": 0.02, "friction_arm": 0.02,
            "bending_arm": 0.05}
    mdl.add(Revolute("shoulder", ground, link1, point=(0, 0, 0), axis=(0, 0, 1), **arms))
    mdl.add(Revolute("elbow", link1, link2, point=(0.5, 0, 0), axis=(1, 0, 0), **arms))
    mdl.add(Translational("slide", link2, slider, point=(0.8, 0, 0), axis=(1, 0, 0), mu=0.2,
                          mu_s=0.25, initial_overlap=0.1, reaction_arm=0.02))
    mdl.add(Gravity())
    mdl.add(Torque("T_shoulder", link1, lambda t: (0.0, 0.0, 2.2 * math.sin(math.pi * t))))
    elbow = lambda t: 0.6 * math.sin(1.4 * math.pi * t)  # noqa: E731
    mdl.add(Torque("T_elbow", link2, lambda t: (elbow(t), 0.0, 0.0), frame="body"))
    mdl.add(Torque("T_elbow_reaction", link1, lambda t: (-elbow(t), 0.0, 0.0), frame="body"))
    mdl.add(Force("push", slider, lambda t: (1.5 * math.sin(1.8 * math.pi * t), 0.0, 0.0),
                  frame="body"))
    return mdl


@contextmanager
def python_path():
    """The path of commit 937dcaa for a model with joint friction: no compiled family, no
    compiled stage (every evaluation ``Dynamics._evaluate_general``)."""
    family, plan = SpatialSystem.compiled_family, Dynamics._compile_plan
    SpatialSystem.compiled_family = lambda self, size, **kw: None
    Dynamics._compile_plan = lambda self, tables, packed: None
    try:
        yield
    finally:
        SpatialSystem.compiled_family, Dynamics._compile_plan = family, plan


def run(model):
    return nonsmooth.simulate(model, T_END, t_eval=GRID)


def transitions(r) -> dict:
    """Per joint: ``(stick events, slip events)``."""
    out = {}
    for j in JOINTS:
        ev = [e for e in r.events if e.pair == j]
        out[j] = (sum(e.after == "stick" for e in ev), sum(e.after != "stick" for e in ev))
    return out


def report(label: str, wall: float, r) -> None:
    d = r.diagnostics
    counts = ", ".join(f"{j} {s}/{k}" for j, (s, k) in transitions(r).items())
    print(f"{label:9s} {wall:8.3f} s  {int(d['n_evaluations']):7d} evaluations  "
          f"{len(r.events):4d} events  (stick/slip: {counts})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="one timed run per path")
    args = ap.parse_args()
    repeat = 1 if args.quick else 3
    model = build()
    run(model)  # warm-up (the kernels loaded or compiled)
    wall_c, rc = best_of(lambda: run(model), repeat)
    with python_path():
        run(model)
        wall_p, rp = best_of(lambda: run(model), repeat)
    print(f"three-joint arm, 0-{T_END:g} s, DOP853 rtol 1e-11 (defaults), {GRID.size} outputs")
    report("compiled", wall_c, rc)
    report("python", wall_p, rp)
    same = rc.t.shape == rp.t.shape
    diff = float(np.max(np.abs(rc.y - rp.y))) if same else math.nan
    print(f"largest state difference compiled - python: {diff:.3g}")
    print(f"ratio python / compiled: {wall_p / wall_c:.1f}x")
    slips = all(s > 0 and k > 0 for s, k in transitions(rc).values())
    verdict = "met" if wall_c <= TARGET and slips else "NOT met"
    print(f"target (3 joints in stick-slip, <= {TARGET:g} s wall): {verdict} "
          f"({wall_c:.3f} s; every joint sticks and slips: {slips})")


if __name__ == "__main__":
    main()
