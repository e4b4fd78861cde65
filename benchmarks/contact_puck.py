"""A puck sliding and spinning on a table to rest (model ``contact_puck``): the engine against
the independent integration of the patch equations, and MuJoCo's torsional friction on the same
puck side by side.

    python benchmarks/contact_puck.py [--repeat N]

Target: a sliding-spinning puck, 0 to rest, stop time to 1e-8 relative of an independent
integration of the patch integrals, in <= 0.2 s wall.

* **nonsmooth**: volumetric contact with Coulomb friction over the uniformly loaded patch
  (``patch_friction="uniform"``: the sliding force and the spinning torque coupled exactly by
  the Contensou factors); the stop is the friction's event; wall time best of ``--repeat``
  after a warm-up run.
* **reference**: ``contact_puck.rigid_stop``, the rigid disc's ``dv/dt = -mu g f(eps)``,
  ``d(a omega)/dt = -2 mu g t(eps)`` integrated by scipy over ``ln(omega0 / omega)`` (no
  engine code).
* **MuJoCo**: the same puck (a cylinder geom on a plane, free joint), ``condim="4"`` (sliding
  and torsional friction) on the elliptic cone, the torsional coefficient ``2 a mu / 3`` (a
  uniform disc's pure-spin torque ``mu N 2a/3``), time step 1e-4 s: when its sliding and its
  spin stop, and its ratio ``v / (a omega)`` on the way (an ellipse couples the two where
  Coulomb's law over the patch gives the Contensou curve).

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from _timing import best_of

import nonsmooth
from nonsmooth.models import build, load

TARGET_S = 0.2
P = {"m": 0.17, "a": 0.038, "h": 0.025, "mu": 0.2, "v0": 1.0, "omega0": 30.0, "g": 9.81}


def mujoco_puck(dt: float = 1e-4, t_end: float = 1.0):
    """MuJoCo's puck: ``(t_slide_stop, t_spin_stop, ratio near the first stop)``."""
    import mujoco

    a, h, m, mu = P["a"], P["h"], P["m"], P["mu"]
    xml = f"""<mujoco><option timestep="{dt}" cone="elliptic" gravity="0 0 -{P['g']}"/>
      <worldbody><geom type="plane" size="5 5 0.1" condim="4"
                       friction="{mu} {2.0 * a * mu / 3.0} 0"/>
        <body pos="0 0 {h / 2}"><freejoint/>
          <geom type="cylinder" size="{a} {h / 2}" mass="{m}" condim="4"
                friction="{mu} {2.0 * a * mu / 3.0} 0"/></body></worldbody></mujoco>"""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qvel[0] = P["v0"]
    data.qvel[5] = P["omega0"]
    mujoco.mj_forward(model, data)
    t_v = t_w = math.nan
    ratios = []
    for k in range(int(t_end / dt)):
        mujoco.mj_step(model, data)
        v, w = math.hypot(data.qvel[0], data.qvel[1]), a * abs(data.qvel[5])
        if v > 1e-3 and w > 1e-3:
            ratios.append((k * dt, v / w))
        if math.isnan(t_v) and v < 1e-4:
            t_v = (k + 1) * dt
        if math.isnan(t_w) and w < 1e-4:
            t_w = (k + 1) * dt
    ratio = ratios[-1][1] if ratios else math.nan
    return t_v, t_w, ratio


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    module = load("contact_puck")
    t_ref, eps = module.rigid_stop(P["v0"], P["omega0"], P["a"], P["mu"], P["g"])
    model = build("contact_puck")
    nonsmooth.simulate(model, 1.0)  # compile / warm up

    def run():
        return nonsmooth.simulate(model, 1.0, t_eval=np.linspace(0.0, 1.0, 101))

    wall, r = best_of(run, args.repeat)
    stop = next(e.t for e in r.events.filter("table") if e.kind not in ("start", "touch"))
    print(f"reference (patch equations, scipy): stop at {t_ref:.12f} s, v / (a omega) -> "
          f"{eps:.6f}")
    rel = abs(stop - t_ref) / t_ref
    print(f"nonsmooth (patch friction): stop at {stop:.12f} s (relative {rel:.1e}), "
          f"{wall:.3f} s wall, {r.nfev} evaluations; target <= {TARGET_S:g} s: "
          f"{'met' if wall <= TARGET_S else 'not met'}")
    try:
        t_v, t_w, ratio = mujoco_puck()
    except ImportError:
        print("MuJoCo: not installed (pip install mujoco)")
        return
    print(f"MuJoCo (condim 4, elliptic cone, dt 1e-4): sliding stops at {t_v:.4f} s, spin at "
          f"{t_w:.4f} s (apart by {abs(t_v - t_w):.4f} s); v / (a omega) near the stop "
          f"{ratio:.3f} (Coulomb over the patch: {eps:.3f}, both at {t_ref:.4f} s)")


if __name__ == "__main__":
    main()
