"""Time of one evaluation of a spatial mechanism inside numba, side by side with MuJoCo's and
the planar family's.

    python benchmarks/spatial_evaluation.py [--repeat N]

Issue 21's targets: one evaluation of a 4-body spatial mechanism <= 5 us from inside the
compiled phase, and the spatial family no slower per body than the planar family.

Cases:

* a chain of four rods on revolute joints (each hinge axis turned 1 rad from the last about
  the rod, so the motion is spatial), at rest, tilted: 4 bodies, 24 velocities, 20
  constraint rows (the Delassus solve of the block-diagonal mass, ``core.linalg._block_schur``):
  ``spatial.kernels._spatial_dy``, the call the compiled phases make at every stage;
* the same chain in MuJoCo (``mujoco.mj_forward``: four hinges in joint coordinates, the
  forward dynamics of one RK4 stage; called from Python, so about 0.3 us of it is the call);
* the spatial double pendulum (``models/spatial_double_pendulum.py``, 2 bodies, 10 rows);
* the planar crank-rocker (``crank_rocker``, ``form="planar"``, 3 bodies; the planar
  family's ``kernels._evaluate_into``), for the per-body comparison.

Timed by a compiled loop of 100 000 calls (MuJoCo: a Python loop of 20 000), best of N repeats.
A benchmark, not a test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import math
import time

import mujoco
import numpy as np
from numba import njit

from nonsmooth.dynamics import Dynamics
from nonsmooth.models import crank_rocker
from nonsmooth.models import spatial_double_pendulum as sdp
from nonsmooth.planar import kernels
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, ground
from nonsmooth.spatial import kernels as sk
from nonsmooth.spatial.family import model_flags
from nonsmooth.spatial.rotation import from_axis_angle

CALLS = 100_000
N_LINKS, LENGTH, MASS, RADIUS, TWIST, TILT = 4, 0.5, 1.0, 0.02, 1.0, 0.4
TARGET_US = 5.0


def _rod_inertia() -> tuple[float, float, float]:
    """A rod along its body z axis: (J_xx, J_yy, J_zz) about its centre (kg m^2)."""
    side = MASS * (3 * RADIUS ** 2 + LENGTH ** 2) / 12.0
    return side, side, 0.5 * MASS * RADIUS ** 2


def _axes() -> list[np.ndarray]:
    """Hinge k's axis: x turned by ``k TWIST`` about z (world, at the hanging configuration)."""
    return [np.array([math.cos(k * TWIST), math.sin(k * TWIST), 0.0]) for k in range(N_LINKS)]


def chain() -> SpatialModel:
    """The four-rod chain, hanging along -z and then tilted by ``TILT`` about the first
    hinge (every rod rotated alike)."""
    mdl = SpatialModel("four-rod chain")
    turn = from_axis_angle(_axes()[0], TILT)
    from nonsmooth.spatial.rotation import rotation_matrix

    R = rotation_matrix(turn)
    parent = ground
    for k, axis in enumerate(_axes()):
        top = R @ np.array([0.0, 0.0, -k * LENGTH])
        centre = R @ np.array([0.0, 0.0, -(k + 0.5) * LENGTH])
        rod = mdl.add(Body(f"rod{k}", MASS, _rod_inertia(), position=centre, orientation=turn))
        mdl.add(Revolute(f"pin{k}", parent, rod, point=top, axis=R @ axis))
        parent = rod
    mdl.add(Gravity())
    return mdl


def chain_mjcf() -> str:
    """The same chain in MuJoCo's joint coordinates (``qpos[0] = TILT``, the rest 0)."""
    inertia = " ".join(f"{x:.17g}" for x in _rod_inertia())
    body = ""
    for k, axis in reversed(list(enumerate(_axes()))):
        pos = "0 0 0" if k == 0 else f"0 0 {-LENGTH:.17g}"
        body = (f'<body name="rod{k}" pos="{pos}"><joint type="hinge" axis="{axis[0]:.17g} '
                f'{axis[1]:.17g} 0"/><inertial pos="0 0 {-0.5 * LENGTH:.17g}" '
                f'mass="{MASS}" diaginertia="{inertia}"/>{body}</body>')
    return (f'<mujoco><option integrator="RK4"><flag contact="disable" '
            f'constraint="disable"/></option><worldbody>{body}</worldbody></mujoco>')


@njit
def _spatial_loop(it, ft, bt, M, block3, plan, Wt, t, y, modes, faces, out, dy, ws, iw, flags,
                  calls):
    status = 0
    contacts, norms, vector, lu, pins, friction, general = flags  # (the phases' compilation)
    for _ in range(calls):  # (no user functions: their values, zeros, at the workspace's end)
        status |= sk._spatial_dy(it, ft, bt, M, block3, plan, Wt, t, y, modes, faces, out, dy,
                                 ws, iw, contacts, norms, vector, lu, pins, friction, general)
    return status


@njit
def _planar_loop(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out, ws, iw, calls):
    status = 0
    for _ in range(calls):
        status |= kernels._evaluate_into(it, ft, U, M0, plan, Wt, t, q, v, z, modes, faces, out,
                                         ws, iw)
    return status


def spatial_case(model):
    """The arguments of the spatial evaluation at the model's initial state."""
    from nonsmooth.simulate import project

    system = model.compile() if hasattr(model, "compile") else model.system
    dyn = Dynamics(system)
    q0, v0 = (model.initial_state() if hasattr(model, "initial_state")
              else (np.asarray(model.q0, float), np.asarray(model.v0, float)))
    q, v = project(system, 0.0, q0, v0)
    tab = system.kernel_tables
    plan = dyn.plan
    ws, iw = sk.workspace(tab.ints, plan)
    y = np.concatenate((q, v, np.zeros(5)))
    out = np.empty(dyn.buffer_size)
    fam = system.compiled_family(dyn.buffer_size)
    args = (tab.ints, tab.floats, tab.bodies, *fam.data[3:], plan, dyn.Wt, 0.0, y, np.zeros(0),
            np.zeros(0), out, np.empty_like(y), ws, iw,
            model_flags(fam.data[0], fam.data[4], plan))
    return system, args


def planar_case(model):
    system = model.system
    dyn = Dynamics(system)
    tab = system.tables
    q, v = np.array(model.q0, dtype=float), np.array(model.v0, dtype=float)
    modes = np.ones(system.n_pairs)
    ev = dyn.evaluate(0.0, q, v, modes)
    faces = np.where(ev.lam_abs < 0.0, -1.0, 1.0)
    plan = dyn.plan
    ws, iw = kernels.workspace(tab.ints, plan)
    return (tab.ints, tab.floats, np.zeros((tab.ints.shape[0], 3)), tab.mass, plan, dyn.Wt, 0.0,
            q, v, np.zeros(int(plan[8])), modes, faces, np.empty(dyn.buffer_size), ws, iw)


def best(loop, args, repeat, calls=CALLS) -> float:
    assert loop(*args, 10) == 0, "the evaluation was not OK"
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        loop(*args, calls)
        times.append((time.perf_counter() - start) / calls)
    return min(times)


def mujoco_us(repeat: int) -> float:
    m = mujoco.MjModel.from_xml_string(chain_mjcf())
    d = mujoco.MjData(m)
    d.qpos[0] = TILT
    calls = CALLS // 5
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            mujoco.mj_forward(m, d)
        times.append((time.perf_counter() - start) / calls)
    return 1e6 * min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    system, sargs = spatial_case(chain())
    four = 1e6 * best(_spatial_loop, sargs, args.repeat)
    _, dargs = spatial_case(sdp.build())
    two = 1e6 * best(_spatial_loop, dargs, args.repeat)
    planar = 1e6 * best(_planar_loop, planar_case(crank_rocker.build(c=8.0, form="planar")),
                        args.repeat)
    mj = mujoco_us(args.repeat)
    print(f"{'case':<44}{'us/evaluation':>14}{'us/body':>10}{'target':>12}")
    print(f"{'four-rod chain (4 bodies, 20 rows)':<44}{four:>14.2f}{four / 4:>10.2f}"
          f"{f'<= {TARGET_US:g}':>12}")
    print(f"{'  the same in MuJoCo (mj_forward, Python)':<44}{mj:>14.2f}{mj / 4:>10.2f}"
          f"{'-':>12}")
    print(f"{'spatial double pendulum (2 bodies, 10 rows)':<44}{two:>14.2f}{two / 2:>10.2f}"
          f"{'-':>12}")
    print(f"{'planar crank-rocker (3 bodies)':<44}{planar:>14.2f}{planar / 3:>10.2f}{'-':>12}")
    print(f"four-rod chain vs MuJoCo: {four / mj:.2f}x; per body vs planar: "
          f"{(four / 4) / (planar / 3):.2f}x; target <= {TARGET_US:g} us: "
          f"{'met' if four <= TARGET_US else 'NOT met'}")


if __name__ == "__main__":
    main()
