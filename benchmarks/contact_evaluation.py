"""Time of one evaluation of a scene with ten closed point contacts inside numba, side by side
with MuJoCo's forward dynamics of the same scene.

    python benchmarks/contact_evaluation.py [--repeat N]

Target: one evaluation of a scene with 10 active point contacts <= 10 us inside the compiled
phase.

The scene: ten steel balls (radius 0.05 m, 1 kg) resting on a ground plane, each its own
``Contact`` (Hertz with exact restitution 0.5, Coulomb friction mu 0.3, mu_s 0.4 with exact
stick), at Hertz's static penetration:

* **sliding**: every ball launched at 1 m/s in its own direction (each contact's friction
  slips: the friction force along the slip, no stick rows);
* **sticking**: every ball at rest, every contact stuck (20 stick rows, and the friction rows'
  bias by the contact point's motion, a central difference: two more geometry evaluations per
  contact).

Timed: ``spatial.kernels._spatial_dy``, the call the compiled DOP853 and RK4 phases make
at every stage (kinematics, the contacts' forces, rows and gaps, the acceleration stage with
the friction), in a compiled loop of 100 000 calls, best of N repeats. Side by side: MuJoCo on
the same ten balls on a plane (``mj_forward`` from Python, its pyramidal friction cones and
soft contacts; about 0.3 us of each call is Python's). A benchmark, not a test: 2 cores shared
with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import math
import time

import mujoco
import numpy as np
from spatial_evaluation import _spatial_loop, best

from nonsmooth.contact import Contact, Hertz, Plane, Sphere
from nonsmooth.dynamics import Dynamics
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial import kernels as sk
from nonsmooth.spatial.family import model_flags

CALLS = 100_000
N_BALLS, R, MASS, E, NU = 10, 0.05, 1.0, 210e9, 0.3
TARGET_US = 10.0


def _penetration() -> float:
    """Hertz's static penetration (m) of a ball under its weight."""
    K = 4.0 / 3.0 * E / (2.0 * (1.0 - NU ** 2)) * math.sqrt(R)
    return (MASS * 9.81 / K) ** (2.0 / 3.0)


def scene(speed: float) -> SpatialModel:
    """The ten balls on the plane, each at ``speed`` (m/s) in its own direction."""
    mdl = SpatialModel("ten balls")
    floor = Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    d = _penetration()
    for k in range(N_BALLS):
        a = 2.0 * math.pi * k / N_BALLS
        ball = mdl.add(Body(f"ball{k}", MASS, (0.4 * MASS * R * R,) * 3,
                            position=(3 * R * k, 0.0, R - d),
                            velocity=(speed * math.cos(a), speed * math.sin(a), 0.0)))
        mdl.add(Contact(f"c{k}", ball, Sphere(R), ground, floor, normal=Hertz(E=E, nu=NU),
                        restitution=0.5, mu=0.3, mu_s=0.4))
    mdl.add(Gravity())
    return mdl


def compiled_args(mdl: SpatialModel, mode: float):
    """``(args, gap_offset)``: the arguments of ``spatial.kernels._spatial_dy`` at the
    model's initial state, every contact closed at rest (impact speed 0) and every friction
    pair in ``mode`` (0 stick, 1 or 2 slip), and where the contacts' gaps sit in its buffer;
    the model's flags last (``spatial.family.model_flags``: the phases' own compilation)."""
    system = mdl.compile()
    dyn = Dynamics(system)
    q, v = mdl.initial_state()
    fam = system.compiled_family(dyn.buffer_size)
    it, ft = fam.data[0], fam.data[1]
    plan = dyn.plan
    ws, iw = sk.workspace(it, plan)
    y = np.concatenate((q, v, np.zeros(5), np.zeros(len(system.contact_names))))
    out = np.empty(dyn.buffer_size)
    modes = np.full(len(system.pairs), mode)
    args = (it, ft, fam.data[2], *fam.data[3:], plan, dyn.Wt, 0.0, y, modes, np.zeros(0), out,
            np.empty_like(y), ws, iw, model_flags(it, fam.data[4], plan))
    return args, dyn.gap_offset


def case(speed: float, mode: float):
    """The compiled evaluation's arguments at the scene's initial state, every contact closed
    (impact speed 0: it closed at rest) with its friction in ``mode`` (0 stick, 1 slip)."""
    return compiled_args(scene(speed), mode)


def mj_forward_us(m, d, repeat: int) -> float:
    """``mj_forward(m, d)`` from Python: us per call, best of ``repeat``."""
    calls = CALLS // 5
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            mujoco.mj_forward(m, d)
        times.append((time.perf_counter() - start) / calls)
    return 1e6 * min(times)


def mujoco_us(repeat: int, speed: float) -> float:
    """``mj_forward`` of the ten balls on a plane (us per call, from Python)."""
    bodies = "".join(
        f'<body pos="{3 * R * k:.17g} 0 {R:.17g}"><freejoint/><geom type="sphere" '
        f'size="{R:.17g}" mass="{MASS}" friction="0.3 0 0"/></body>' for k in range(N_BALLS))
    xml = (f'<mujoco><worldbody><geom type="plane" size="10 10 0.1"/>{bodies}</worldbody>'
           f'</mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    for k in range(N_BALLS):
        a = 2.0 * math.pi * k / N_BALLS
        d.qvel[6 * k:6 * k + 2] = speed * math.cos(a), speed * math.sin(a)
    mujoco.mj_forward(m, d)
    assert d.ncon == N_BALLS, d.ncon
    return mj_forward_us(m, d, repeat)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    for label, speed, mode in (("sliding (10 contacts slipping)", 1.0, 1.0),
                               ("sticking (10 contacts stuck)", 0.0, 0.0)):
        cargs, o_gap = case(speed, mode)
        us = 1e6 * best(_spatial_loop, cargs, args.repeat, CALLS)
        gaps = cargs[11][o_gap:o_gap + N_BALLS]
        assert np.all(gaps < 0.0), "the contacts are not closed"
        rows.append((label, us, mujoco_us(args.repeat, speed)))
    print(f"{'case':<36}{'nonsmooth us':>14}{'MuJoCo us':>12}{'ratio':>8}{'target':>10}")
    for label, us, mj in rows:
        print(f"{label:<36}{us:>14.2f}{mj:>12.2f}{us / mj:>8.2f}{f'<= {TARGET_US:g}':>10}")
    worst = max(us for _, us, _ in rows)
    print(f"target (one evaluation of 10 active contacts <= {TARGET_US:g} us): "
          f"{'met' if worst <= TARGET_US else 'NOT met'} (worst {worst:.2f} us)")


if __name__ == "__main__":
    main()
