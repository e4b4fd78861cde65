"""Side by side with MuJoCo: a box at rest on an incline whose static friction holds it.

The same box (1 kg, 0.1 m cube) on the same plane (15 deg, ``mu = mu_s = 0.5 > tan 15 deg =
0.268``), started at rest: in MuJoCo (MJCF written here: a free box on a tilted plane, the
default soft contact, ``condim="3"``, the default 2 ms step) and in nonsmooth
(``models/contact_box_incline.py``: Coulomb friction with exact stick). After 1 s of settling,
the box's displacement along the slope over the next 2 s: MuJoCo's box creeps down (its contact
is soft in the tangential directions by design: measured 1.94e-3 m over the 2 s with mujoco
3.x, about 1 mm/s); ours holds, to round-off (1e-16 m measured).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

import nonsmooth
from nonsmooth.models import build

SLOPE, HALF, MASS, MU = 15.0, 0.05, 1.0, 0.5  # deg, m, kg, -
SETTLE, HOLD = 1.0, 2.0  # s


def mujoco_creep() -> float:
    """MuJoCo's box: its displacement down the slope (m) over ``HOLD`` s after ``SETTLE``."""
    a = math.radians(SLOPE)
    c, s = math.cos(a), math.sin(a)
    friction = f'friction="{MU} 0.005 0.0001" condim="3"'
    xml = f"""<mujoco>
      <option gravity="0 0 -9.81"/>
      <worldbody>
        <body euler="0 {SLOPE} 0">
          <geom type="plane" size="5 5 0.1" {friction}/>
        </body>
        <body name="box" pos="{HALF * s} 0 {HALF * c}" euler="0 {SLOPE} 0">
          <freejoint/>
          <geom type="box" size="{HALF} {HALF} {HALF}" mass="{MASS}" {friction}/>
        </body>
      </worldbody>
    </mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    down = np.array([c, 0.0, -s])
    while data.time < SETTLE:
        mujoco.mj_step(model, data)
    start = float(data.qpos[:3] @ down)
    while data.time < SETTLE + HOLD:
        mujoco.mj_step(model, data)
    return float(data.qpos[:3] @ down) - start


def our_creep() -> float:
    """nonsmooth's box: the same displacement (m)."""
    model = build("contact_box_incline", m=MASS, a=HALF, slope=SLOPE, mu=MU, mu_s=MU, v0=0.0)
    r = nonsmooth.simulate(model, SETTLE + HOLD, t_eval=[0.0, SETTLE, SETTLE + HOLD])
    assert r.events.filter("slope", ("velocity_zero", "reserve_zero")).t.size == 0
    return float(r["s"][2] - r["s"][1])


def test_a_box_held_by_static_friction_creeps_in_mujoco_and_holds_here():
    assert MU > math.tan(math.radians(SLOPE))  # Coulomb: it must hold
    ours, theirs = our_creep(), mujoco_creep()
    assert abs(ours) < 1e-12, f"ours moved {ours:.3e} m (MuJoCo {mujoco.__version__}: " \
                              f"{theirs:.3e} m)"
    # MuJoCo's soft contact creeps by design (not ours to assert beyond its sign and size)
    assert theirs > 1e-9, f"MuJoCo {mujoco.__version__} crept only {theirs:.3e} m"


def mujoco_puck_stops(dt: float = 1e-4) -> tuple[float, float]:
    """MuJoCo's puck (the ``contact_puck`` defaults: a cylinder on a plane, ``condim="4"``,
    the elliptic cone, torsional coefficient ``2 a mu / 3``, the uniform disc's pure-spin
    torque): when its sliding and its spin stop (s; speeds below 1e-4 m/s)."""
    m, a, h, mu, v0, w0 = 0.17, 0.038, 0.025, 0.2, 1.0, 30.0
    fr = f'friction="{mu} {2.0 * a * mu / 3.0} 0" condim="4"'
    xml = f"""<mujoco><option timestep="{dt}" cone="elliptic"/>
      <worldbody><geom type="plane" size="5 5 0.1" {fr}/>
        <body pos="0 0 {h / 2}"><freejoint/>
          <geom type="cylinder" size="{a} {h / 2}" mass="{m}" {fr}/></body></worldbody>
      </mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[0], data.qvel[5] = v0, w0
    t_v = t_w = math.nan
    for k in range(int(1.0 / dt)):
        mujoco.mj_step(model, data)
        if math.isnan(t_v) and math.hypot(data.qvel[0], data.qvel[1]) < 1e-4:
            t_v = (k + 1) * dt
        if math.isnan(t_w) and a * abs(data.qvel[5]) < 1e-4:
            t_w = (k + 1) * dt
    return t_v, t_w


def test_a_sliding_spinning_puck_stops_both_at_once_where_mujocos_ellipse_parts_them():
    """The puck of ``contact_puck`` (launched at 1 m/s spinning at 30 rad/s): with Coulomb
    friction over its patch (the Contensou coupling) its sliding and its spin stop together, at
    the patch equations' time (``rigid_stop``, 0.7188 s); MuJoCo's elliptic cone with a
    torsional coefficient couples them by an ellipse instead: its spin stops first and its
    sliding more than 10 ms later, both well before the patch equations' time (measured with
    mujoco 3.x: 0.620 s and 0.644 s)."""
    from nonsmooth.models import load

    t_ref, _ = load("contact_puck").rigid_stop(1.0, 30.0, 0.038, 0.2)
    r = nonsmooth.simulate(build("contact_puck"), 1.0, t_eval=np.linspace(0.0, 1.0, 101))
    stop = next(e.t for e in r.events.filter("table") if e.kind not in ("start", "touch"))
    assert abs(stop - t_ref) < 1e-8 * t_ref
    t_v, t_w = mujoco_puck_stops()
    assert t_w < t_v - 0.01  # MuJoCo: the spin stops first, the sliding later
    assert t_v < t_ref - 0.05  # and both well before Coulomb's over the patch
