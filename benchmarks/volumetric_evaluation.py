"""Time of one evaluation of a box on a plane in its edge regime with the volumetric contact
law, inside numba, beside the same box with a point contact (Hertz at its corners) and
MuJoCo's forward dynamics of the same scene.

    python benchmarks/volumetric_evaluation.py [--repeat N]

Target: one evaluation of a box on a plane in its edge regime <= 5 us inside the compiled
phase.

The scene: a box (0.2 x 0.12 x 0.08 m, 2 kg) turned by 30 degrees about its long axis so that
one long edge presses 0.1 mm into the plane (the volume of interference is a prism under the
edge: the edge regime), moving and turning, Coulomb friction sliding. Timed:
``spatial.kernels._spatial_dy`` (the call the compiled DOP853 and RK4 phases make at every
stage: kinematics, the contact's volume, force, rolling resistance, friction rows, the
acceleration stage), in a compiled loop of 100 000 calls, best of N repeats; the same with
``Hertz(K=...)`` at the box's corners (two points in the edge regime); MuJoCo's ``mj_forward``
of the box on a plane from Python (about 0.3 us of each call is Python's). A benchmark, not a
test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import math

import mujoco
from contact_evaluation import CALLS, compiled_args, mj_forward_us
from spatial_evaluation import _spatial_loop, best

from nonsmooth.contact import Box, Contact, Hertz, Plane, Volumetric
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial.rotation import from_axis_angle

HALF = (0.1, 0.06, 0.04)
MASS, TILT, DEPTH = 2.0, math.radians(30.0), 1e-4
TARGET_US = 5.0


def _pose():
    """The box's centre height (m) and orientation: turned by TILT about x, its lowest edge
    DEPTH below the plane."""
    hy, hz = HALF[1], HALF[2]
    lowest = hy * math.sin(TILT) + hz * math.cos(TILT)
    return lowest - DEPTH, from_axis_angle((1.0, 0.0, 0.0), TILT)


def scene(volumetric: bool) -> SpatialModel:
    mdl = SpatialModel("box on an edge")
    z, q = _pose()
    box = mdl.add(Body("box", MASS, (0.003, 0.004, 0.005), position=(0.0, 0.0, z),
                       orientation=q, velocity=(0.3, 0.1, -0.01),
                       angular_velocity=(0.5, 0.0, 0.2)))
    normal = Volumetric(k_v=1e9, damping=1.0) if volumetric else Hertz(K=1e9)
    mdl.add(Contact("floor", box, Box(HALF), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=normal, mu=0.3, restitution=None if volumetric else 0.5))
    mdl.add(Gravity())
    return mdl


def case(volumetric: bool):
    """The compiled evaluation's arguments at the scene's initial state (its friction
    sliding)."""
    return compiled_args(scene(volumetric), 2.0)


def mujoco_us(repeat: int) -> float:
    """``mj_forward`` of the box on a plane in the same pose (us per call, from Python)."""
    z, q = _pose()
    xml = (f'<mujoco><worldbody><geom type="plane" size="10 10 0.1"/><body pos="0 0 {z:.17g}" '
           f'quat="{q[0]:.17g} {q[1]:.17g} {q[2]:.17g} {q[3]:.17g}"><freejoint/><geom type="box" '
           f'size="{HALF[0]} {HALF[1]} {HALF[2]}" mass="{MASS}" friction="0.3 0 0"/></body>'
           f'</worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qvel[:3] = 0.3, 0.1, -0.01
    mujoco.mj_forward(m, d)
    assert d.ncon >= 1, d.ncon
    return mj_forward_us(m, d, repeat)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    rows = []
    for label, volumetric in (("volumetric (edge regime)", True),
                              ("Hertz at the corners", False)):
        cargs, o_gap = case(volumetric)
        us = 1e6 * best(_spatial_loop, cargs, args.repeat, CALLS)
        assert cargs[11][o_gap] < 0.0, "the contact is not closed"
        rows.append((label, us))
    mj = mujoco_us(args.repeat)
    print(f"{'case':<30}{'us/evaluation':>14}{'/ MuJoCo':>10}")
    for label, us in rows:
        print(f"{label:<30}{us:>14.2f}{us / mj:>10.2f}")
    print(f"{'MuJoCo mj_forward':<30}{mj:>14.2f}{1.0:>10.2f}")
    vol = rows[0][1]
    print(f"target (a box on a plane in its edge regime <= {TARGET_US:g} us): "
          f"{'met' if vol <= TARGET_US else 'NOT met'} ({vol:.2f} us)")


if __name__ == "__main__":
    main()
