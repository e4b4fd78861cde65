"""Build the compiled kernels into this working tree (``nonsmooth/_prebuilt/``, ignored by git).

    python tools/prebuild_kernels.py

Optional: a clone compiles the kernels a run needs on first use and caches them, and
``python -m build`` compiles them into the wheel by itself (``tools/build_backend.py``). This
builds the same cache into the tree, so that a clone's first run in a fresh numba cache folder
(another machine sharing the tree, a container) loads them instead: every kernel a new user's
first runs need (the README's main job, every bundled model under DOP853 and RK4, a comparison
of the laws: ``nonsmooth.prebuilt.WORKLOAD``) compiled in a fresh numba cache folder for numba's
generic CPU, numba's files copied with a manifest (numba and Python version, platform, CPU, the
SHA-256 of each source). Minutes on two cores. ``tests/docs/test_prebuilt.py`` checks a built
wheel's cache (its slow test).
"""

from __future__ import annotations

import time

from nonsmooth import prebuilt

if __name__ == "__main__":
    start = time.perf_counter()
    manifest = prebuilt.build()
    size = sum(p.stat().st_size for p in prebuilt.ROOT.rglob("*") if p.is_file())
    print(f"wrote {len(manifest['indexes'])} cached functions ({size / 1e6:.1f} MB; numba "
          f"{manifest['numba']}, {manifest['python']}, {manifest['platform']}) to "
          f"{prebuilt.ROOT} in {time.perf_counter() - start:.0f} s")
