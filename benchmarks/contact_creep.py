"""A box held on an incline by static friction, side by side: MuJoCo's soft contact creeps,
nonsmooth's Coulomb stick holds.

The same box (1 kg, 0.1 m cube) on a 15 deg plane, ``mu = mu_s = 0.5`` (> tan 15 deg), at
rest: its displacement down the slope over 2 s after 1 s of settling, and each engine's wall
time for the 3 s, in one process (``tests/contact/test_contact_mujoco.py`` builds both).

Run: ``python benchmarks/contact_creep.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "contact"))

import mujoco  # noqa: E402
from test_contact_mujoco import HOLD, SETTLE, mujoco_creep, our_creep  # noqa: E402


def main() -> None:
    rows = []
    for name, run in (("nonsmooth (Coulomb, exact stick)", our_creep),
                      (f"MuJoCo {mujoco.__version__} (soft contact, condim 3)", mujoco_creep)):
        start = time.perf_counter()
        creep = run()
        rows.append((name, creep, time.perf_counter() - start))
    print(f"box on a 15 deg incline, mu = mu_s = 0.5, at rest: displacement over {HOLD:g} s "
          f"after {SETTLE:g} s")
    print(f"{'engine':48s} {'displacement (m)':>18s} {'wall (s)':>10s}")
    for name, creep, wall in rows:
        print(f"{name:48s} {creep:18.3e} {wall:10.3f}")
    ours, theirs = rows[0][1], rows[1][1]
    ratio = abs(theirs) / abs(ours) if ours != 0.0 else float("inf")
    print(f"creep ratio MuJoCo / nonsmooth: {ratio:.3g}; wall ratio nonsmooth / MuJoCo: "
          f"{rows[0][2] / rows[1][2]:.3g}")


if __name__ == "__main__":
    main()
