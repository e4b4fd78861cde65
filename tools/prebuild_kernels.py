"""Build the compiled kernels shipped with the package (``nonsmooth/_prebuilt/``).

    python tools/prebuild_kernels.py

Run it after a change to a kernel source (``nonsmooth.prebuilt.kernel_sources()``: the files
with numba functions, ``nonsmooth/core/``, ``models/_crank_rocker_terms.py``) or an upgrade of
numba, and commit ``nonsmooth/_prebuilt/``: ``tests/test_prebuilt.py`` fails while the shipped
cache is stale. It compiles every kernel a new user's first runs need (the README's main job,
every bundled model under DOP853 and RK4, a comparison of the laws:
``nonsmooth.prebuilt.WORKLOAD``) in a fresh numba cache folder, for numba's generic CPU, and
copies numba's files with a manifest (numba and Python version, platform, CPU, the SHA-256 of
each source). About four minutes.
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
