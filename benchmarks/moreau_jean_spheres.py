"""100 spheres settling in an open box (model ``contact_spheres_box``): Moreau-Jean
time-stepping with NSGS against MuJoCo on the same scene, side by side in one process.

    python benchmarks/moreau_jean_spheres.py [--repeat N] [--t-end T] [--n N]

Target (the issue): 1 s at h = 1e-3 in <= 10 s wall on 2 cores, and the comparison with MuJoCo
(time per step, penetration, energy).

* **nonsmooth**: ``simulate(model, t_end, method=moreau_jean(solver="nsgs"), dt=1e-3)``: rigid
  contacts (Newton's restitution e, Coulomb mu on the round cone), the step's impulses by NSGS
  (tol 1e-4), the active points from the broad phase and the vectorised rows
  (``System.rigid_contact_blocks``); wall time of ``simulate`` (results included) best of
  ``--repeat`` after a warm-up run (the compiled kernels loaded from numba's cache).
* **MuJoCo**: the same spheres at the same initial positions (free joints, sphere geoms of the
  same radius and mass: inertia 2/5 m R^2), the floor and the four walls as planes,
  ``timestep=1e-3``, its defaults otherwise (soft contact ``solref="0.02 1"``, Newton solver,
  pyramidal cone), ``condim=3`` and the same mu; no restitution (its contacts are damped springs):
  ``mj_step`` timed over the run.

Printed for each: wall time and time per step, the largest penetration over the run and at the
end, the kinetic energy at the end, the mechanical energy at the end against the start, the
active contacts at the end (ours: the points of the last step's problem; MuJoCo's ``ncon``).

A benchmark, not a test: 2 cores shared with other work, so the figures are noisy by 10-30 %.
"""

from __future__ import annotations

import argparse
import time

from _timing import best_of

import nonsmooth
from nonsmooth.models import load
from nonsmooth.run.methods import moreau_jean

TARGET_S = 10.0
DT = 1e-3


def ours(model, t_end: float, repeat: int) -> dict:
    """Our run's figures."""
    method = moreau_jean(solver="nsgs")
    nonsmooth.simulate(model, 0.2, method=method, dt=DT)  # (warm-up: kernels loaded)
    wall, r = best_of(lambda: nonsmooth.simulate(model, t_end, method=method, dt=DT), repeat)
    sysm = model.system
    B = sysm.rigid_contact_blocks(r.t[-1], r.q[-1], r.v[-1], 0.5 * DT)
    E = r["energy"]
    stats = r.diagnostics["step_solver"]
    return {"wall": wall, "steps": r.t.size - 1, "pen_max": -float(r["min_gap"].min()),
            "pen_end": -float(r["min_gap"][-1]), "T_end": float(r["kinetic"][-1]),
            "E0": float(E[0]), "E_end": float(E[-1]), "active": int(B.contact.size),
            "note": f"NSGS: {stats['sweeps']} sweeps over {stats['steps']} steps (at most "
                    f"{stats['max_sweeps']}), {stats['unconverged']} above tol, largest "
                    f"residual {stats['max_residual']:.2g}"}


def mujoco_xml(model) -> str:
    """MuJoCo's scene of ``model`` (module docstring)."""
    p = model.parameters
    R, m, mu, a = p["R"], p["m"], p["mu"], 0.5 * p["width"]
    n = int(p["n"])
    q0 = model.q0[:7 * n].reshape(n, 7)
    walls = [("0 0 0", "0 0 1"), (f"{-a} 0 0", "1 0 0"), (f"{a} 0 0", "-1 0 0"),
             (f"0 {-a} 0", "0 1 0"), (f"0 {a} 0", "0 -1 0")]
    geoms = "\n".join(f'<geom type="plane" size="0 0 1" pos="{pos}" zaxis="{z}" '
                      f'condim="3" friction="{mu} 0.005 0.0001"/>' for pos, z in walls)
    bodies = "\n".join(
        f'<body pos="{x} {y} {z}"><freejoint/><geom type="sphere" size="{R}" mass="{m}" '
        f'condim="3" friction="{mu} 0.005 0.0001"/></body>' for x, y, z in q0[:, :3])
    return (f'<mujoco><option timestep="{DT}" gravity="0 0 -{p["g"]}">'
            '<flag energy="enable"/></option>'
            f"<size memory=\"64M\"/><worldbody>{geoms}\n{bodies}</worldbody></mujoco>")


def theirs(model, t_end: float, repeat: int) -> dict:
    """MuJoCo's figures on the same scene."""
    import mujoco

    mj = mujoco.MjModel.from_xml_string(mujoco_xml(model))
    steps = int(round(t_end / DT))
    out = {}

    def run():
        d = mujoco.MjData(mj)
        mujoco.mj_forward(mj, d)
        E0 = float(d.energy[0] + d.energy[1])
        pen = 0.0
        t0 = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(mj, d)
            if d.ncon:
                pen = max(pen, -float(d.contact.dist[:d.ncon].min()))
        out["wall_loop"] = time.perf_counter() - t0
        return d, E0, pen

    wall, (d, E0, pen) = best_of(run, repeat)
    mujoco.mj_forward(mj, d)
    end = -float(d.contact.dist[:d.ncon].min()) if d.ncon else 0.0
    # (the loop's time includes reading the contacts' distances: a few percent)
    return {"wall": wall, "steps": steps, "pen_max": pen, "pen_end": end,
            "T_end": float(d.energy[1]), "E0": E0, "E_end": float(d.energy[0] + d.energy[1]),
            "active": int(d.ncon), "note": "MuJoCo defaults: soft contact, Newton solver"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args(argv)
    model = load("contact_spheres_box").build(n=args.n)
    n_c = model.system.n_contacts
    print(f"contact_spheres_box: {args.n} spheres, {n_c} rigid contacts; {args.t_end} s at h = "
          f"{DT}")
    a = ours(model, args.t_end, args.repeat)
    b = theirs(model, args.t_end, args.repeat)
    print(f"{'':24s}{'nonsmooth':>14s}{'MuJoCo':>14s}")
    rows = [("wall (s)", "wall", "{:.3f}"), ("per step (ms)", None, "{:.3f}"),
            ("penetration max (mm)", "pen_max", "{:.3f}"),
            ("penetration end (mm)", "pen_end", "{:.3f}"),
            ("kinetic end (J)", "T_end", "{:.4f}"), ("T + V start (J)", "E0", "{:.3f}"),
            ("T + V end (J)", "E_end", "{:.3f}"), ("active contacts end", "active", "{}")]
    for label, key, fmt in rows:
        if key is None:
            x, y = 1e3 * a["wall"] / a["steps"], 1e3 * b["wall"] / b["steps"]
        elif key.startswith("pen"):
            x, y = 1e3 * a[key], 1e3 * b[key]
        else:
            x, y = a[key], b[key]
        print(f"{label:24s}{fmt.format(x):>14s}{fmt.format(y):>14s}")
    print(f"ratio nonsmooth / MuJoCo wall: {a['wall'] / b['wall']:.1f}")
    print(f"nonsmooth: {a['note']}")
    print(f"MuJoCo: {b['note']}")
    ok = a["wall"] <= TARGET_S * args.t_end
    print(f"target {TARGET_S} s per simulated second: {'met' if ok else 'NOT met'} "
          f"({a['wall']:.2f} s)")


if __name__ == "__main__":
    main()
