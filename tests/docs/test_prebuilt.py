"""The compiled kernels built into a wheel (``nonsmooth/prebuilt.py``, ``tools/build_backend.py``)
and the compile notice (``nonsmooth/compile_notice.py``): a cache built from the current sources
is current and seeds an empty cache folder so that nothing is compiled, an edited source makes it
stale, and the notice is printed exactly when numba compiles one of the package's kernels. The
whole wheel (built, unpacked, its first run compiling nothing) is the slow test at the end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nonsmooth import prebuilt

REPO = Path(__file__).resolve().parents[2]

#: Counts numba's compilations of the package's functions in a child process (a cache load is
#: not a compilation), then runs the code given after it.
COUNTER = """
import sys
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev):
        mod = ev.data["dispatcher"].py_func.__module__
        if mod.startswith("nonsmooth"):
            compiled.append(mod + "." + ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
"""

#: A small workload: two of the package's kernels, in seconds.
SMALL = """
import numpy as np
from nonsmooth.planar import kernels  # its import prepares the cache and the notice
kernels._dot(np.ones(3), np.ones(3))
kernels._all_finite(np.ones((2, 3)))
"""


#: A process of a clone: no cache built into the package (a developer may have one locally).
NO_CACHE = ("import pathlib\nfrom nonsmooth import prebuilt\n"
            "prebuilt.ROOT = pathlib.Path('no-cache-here')\n")


def child(code: str, cache: Path, *args: str, env: dict | None = None,
          **kwargs) -> subprocess.CompletedProcess:
    """Run ``code`` in a new Python process whose numba cache folders are under ``cache``
    (empty the first time: a machine that never ran nonsmooth), with the compile notice on."""
    extra = env or {}
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache / "numba"),
           "XDG_CACHE_HOME": str(cache / "xdg")}
    env.pop("NUMBA_CPU_NAME", None)
    env.pop("NONSMOOTH_QUIET_COMPILE", None)
    env.update(extra)
    cache.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=kwargs.get("timeout", 600), cwd=cache)


@pytest.fixture(scope="module")
def small_cache(tmp_path_factory) -> Path:
    """A cache built by :func:`prebuilt.build` from the current sources with :data:`SMALL`."""
    out = tmp_path_factory.mktemp("prebuilt") / "_prebuilt"
    prebuilt.build(out, workload=SMALL)
    return out


def test_a_cache_built_from_the_current_sources_is_current_and_for_this_numba(small_cache):
    manifest = json.loads((small_cache / "manifest.json").read_text())
    assert prebuilt.usable(manifest)
    assert prebuilt.stale(small_cache) == []
    names = {n.split(".")[1].split("-")[0] for n in manifest["indexes"]}
    assert {"_dot", "_all_finite"} <= names, names
    for name, entry in manifest["indexes"].items():
        folder = small_cache / entry["folder"]
        assert (folder / name).is_file() and entry["data"], name
        assert all((folder / data).is_file() for data in entry["data"]), name


def test_a_changed_source_makes_the_cache_stale(small_cache, monkeypatch):
    manifest = json.loads((small_cache / "manifest.json").read_text())
    name = next(n for n, e in manifest["indexes"].items() if e["source"] == "linalg.py")
    manifest["indexes"][name]["sha256"] = "0" * 64  # made from other sources
    monkeypatch.setattr(prebuilt, "_manifest", lambda root=None: manifest)
    assert prebuilt.stale(small_cache)[0] == f"nonsmooth/core/linalg.py ({name})"
    manifest["sources"] = "0" * 64
    assert "the kernel sources as a whole" in prebuilt.stale(small_cache)[-1]


def test_the_built_cache_seeds_an_empty_cache_folder_and_nothing_is_compiled(small_cache,
                                                                            tmp_path):
    code = (f"import pathlib\nfrom nonsmooth import prebuilt\n"
            f"prebuilt.ROOT = pathlib.Path({str(small_cache)!r})\n" + COUNTER + SMALL
            + "print('compiled:', compiled)\n")
    proc = child(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "compiled: []" in proc.stdout, proc.stdout
    assert "compiling" not in proc.stderr, proc.stderr
    assert list((tmp_path / "numba").rglob("*.nbi")), "nothing was seeded"
    # without the cache (a clone), the same run compiles both and says so
    (tmp_path / "clone").mkdir()
    proc = child(NO_CACHE + COUNTER + SMALL + "print('compiled:', compiled)\n",
                 tmp_path / "clone")
    assert proc.returncode == 0, proc.stderr
    assert "linalg._dot" in proc.stdout and "linalg._all_finite" in proc.stdout, proc.stdout


def test_a_kernel_edit_removes_the_cached_functions_of_every_kernel_source(tmp_path,
                                                                            monkeypatch):
    """numba keys a cached function on its own file, but the entry points inline other files'
    functions: an edit of one kernel source must drop the cache of all (``invalidate``), once,
    and a cache of unknown origin (no stamp) too; other modules' caches are kept."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("njit a")
    b.write_text("njit b")
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setattr(prebuilt, "kernel_sources", lambda: [a, b])
    monkeypatch.setattr(prebuilt, "cache_folder", lambda source: cache)
    monkeypatch.setattr(prebuilt, "_SEEDED", set())

    def indexes(*names):
        for name in names:
            (cache / name).write_bytes(b"")
        return sorted(p.name for p in cache.glob("*.nbi"))

    assert indexes("a.f-1.py311.nbi", "b.g-2.py311.nbi", "c.h-3.py311.nbi") == [
        "a.f-1.py311.nbi", "b.g-2.py311.nbi", "c.h-3.py311.nbi"]
    assert prebuilt.invalidate() == 2  # no stamp: of unknown origin
    assert indexes() == ["c.h-3.py311.nbi"]
    assert (cache / prebuilt.STAMP).read_text().strip() == prebuilt.sources_digest()
    indexes("a.f-1.py311.nbi", "b.g-2.py311.nbi")
    monkeypatch.setattr(prebuilt, "_SEEDED", set())
    assert prebuilt.invalidate() == 0  # the same sources: kept
    a.write_text("njit a, edited")
    monkeypatch.setattr(prebuilt, "_SEEDED", set())
    assert prebuilt.invalidate() == 2  # b's functions may inline a's: both dropped
    assert indexes() == ["c.h-3.py311.nbi"]


def test_the_notice_is_printed_exactly_when_numba_compiles(tmp_path):
    # a clone's first run: the kernels compiled, announced once with a progress line for each
    # kernel it compiles; a second process loads them from numba's cache: nothing printed
    code = NO_CACHE + """
import numpy as np
from nonsmooth.planar import kernels  # its import prepares the cache and the notice
kernels._dot(np.ones(3), np.ones(3))
kernels._dot(np.ones(2), np.ones(2))  # the same signature: no second compilation
kernels._dot(np.ones(3, dtype=np.int64), np.ones(3, dtype=np.int64))  # compiled, announced
"""
    first = child(code, tmp_path)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0].startswith("nonsmooth: compiling the kernels this run needs"), lines
    assert lines.count(lines[0]) == 1, lines
    assert sum("compiled _dot (" in line for line in lines) == 2, lines  # two signatures
    second = child(code, tmp_path)
    assert second.returncode == 0 and second.stderr == "", second.stderr
    quiet = child(code, tmp_path / "quiet", env={"NONSMOOTH_QUIET_COMPILE": "1"})  # compiles
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


def test_host_means_this_machines_cpu(tmp_path):
    # numba takes an LLVM CPU name; "host" (what a user writes) becomes this machine's, and the
    # shipped (generic) kernels then do not apply: numba compiles natively
    code = ("import os, llvmlite.binding as ll, nonsmooth\nfrom nonsmooth import prebuilt\n"
            "print(os.environ['NUMBA_CPU_NAME'] == ll.get_host_cpu_name(), prebuilt.usable())")
    env = {**os.environ, "NUMBA_CPU_NAME": "host"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


#: The first runs a new user makes, in a process whose caches are empty.
FIRST_RUNS = """
from nonsmooth.cli import main
assert main(["reproduce", "crank-rocker", "--outdir", "reproduction"]) == 0
assert main(["run", "crank_rocker", "--t-end", "0.2", "--method", "RK4"]) == 0
assert main(["run", "stick_slip_oscillator", "--t-end", "2"]) == 0
assert main(["run", "spatial_double_pendulum", "--t-end", "0.2"]) == 0
print("compiled:", compiled)
"""


@pytest.mark.slow
def test_a_built_wheel_carries_the_kernels_and_its_first_run_compiles_nothing(tmp_path):
    """``python -m build --wheel`` (no isolation: this environment's packages) through the
    package's backend: the wheel carries a current cache with the bundled crank-rocker's
    generated module, and the README's main job from the unpacked wheel compiles nothing."""
    dist = tmp_path / "dist"
    proc = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation",
                           "--outdir", str(dist), str(REPO)], capture_output=True, text=True,
                          timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = dist.glob("nonsmooth-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    root = site / "nonsmooth" / "_prebuilt"
    manifest = json.loads((root / "manifest.json").read_text())
    assert prebuilt.usable(manifest) and prebuilt.stale(root) == []
    from nonsmooth.models import crank_rocker

    name = f"nonsmooth_gen_{crank_rocker.build().system.kernel_key()}.py"
    assert (root / "generated" / name).is_file(), sorted(os.listdir(root / "generated"))
    run = child(COUNTER + FIRST_RUNS, tmp_path / "first", env={"PYTHONPATH": str(site)})
    assert run.returncode == 0, run.stderr[-3000:]
    assert "compiled: []" in run.stdout, run.stdout[-3000:]
    assert "compiling" not in run.stderr, run.stderr
