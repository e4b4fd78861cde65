"""The compiled kernels shipped with the package (``nonsmooth/prebuilt.py``) and the compile
notice (``nonsmooth/compile_notice.py``): the shipped cache is current, a first run on a machine
with an empty numba cache compiles nothing, and the notice is printed exactly when numba
compiles one of the package's kernels."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from nonsmooth import generated, prebuilt

REBUILD = "rebuild it with `python tools/prebuild_kernels.py` and commit nonsmooth/_prebuilt/"

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


def child(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new Python process whose numba cache folders are under ``cache``
    (empty the first time: a machine that never ran nonsmooth)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache / "numba"),
           "XDG_CACHE_HOME": str(cache / "xdg")}
    env.pop("NUMBA_CPU_NAME", None)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, timeout=600, cwd=cache)


def test_the_shipped_cache_is_for_this_numba_python_and_platform():
    manifest = json.loads(prebuilt.MANIFEST.read_text())
    import numba

    assert prebuilt.usable(manifest), (
        f"the shipped kernels are for numba {manifest['numba']}, {manifest['python']}, "
        f"{manifest['platform']}; this is numba {numba.__version__}, {prebuilt.python_tag()}, "
        f"{prebuilt.platform_tag()}: {REBUILD}")
    assert len(manifest["indexes"]) > 20


def test_the_shipped_cache_was_built_from_the_current_sources():
    assert prebuilt.stale() == [], f"stale shipped kernels {prebuilt.stale()}: {REBUILD}"
    for name, entry in json.loads(prebuilt.MANIFEST.read_text())["indexes"].items():
        folder = prebuilt.ROOT / entry["folder"]
        assert (folder / name).is_file() and entry["data"], name
        assert all((folder / data).is_file() for data in entry["data"]), name


def test_a_changed_source_makes_the_cache_stale(monkeypatch):
    manifest = json.loads(prebuilt.MANIFEST.read_text())
    name = next(n for n, e in manifest["indexes"].items() if e["source"] == "kernels.py")
    manifest["indexes"][name]["sha256"] = "0" * 64  # made from other sources
    monkeypatch.setattr(prebuilt, "_manifest", lambda: manifest)
    assert prebuilt.stale() == [f"nonsmooth/kernels.py ({name})"]


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


def test_the_bundled_crank_rocker_kernel_module_is_shipped():
    # its name is a hash of the model's and the kernels' sources: an edit of either makes a new
    # module, which must be shipped again
    from nonsmooth.models import crank_rocker

    terms = crank_rocker.build().system.compiled
    name = f"nonsmooth_gen_{generated._key(terms.function, terms.potential)}.py"
    shipped = {p.name: p for p in prebuilt.generated_sources()}
    assert name in shipped, f"{name} is not shipped ({sorted(shipped)}): {REBUILD}"
    indexes = json.loads(prebuilt.MANIFEST.read_text())["indexes"]
    assert {"evaluate", "fixed_phase", "dop853_phase", "evaluate_batch"} <= {
        n.split(".")[1].split("-")[0] for n, e in indexes.items() if e["source"] == name}


def test_a_first_run_on_an_empty_cache_compiles_nothing(tmp_path):
    # the README's main job's model (two-coordinate form, RK4) and planar models under the
    # default DOP853 (with a scalar and a vector atol): every kernel loaded from the shipped
    # cache, no notice; numba is imported before nonsmooth here (nonsmooth still chooses the
    # generic CPU: numba has compiled nothing yet)
    code = COUNTER + """
from nonsmooth.cli import main
assert main(["run", "crank_rocker", "--t-end", "0.2", "--method", "RK4"]) == 0
assert main(["run", "crank_rocker", "--t-end", "0.2"]) == 0  # its generated DOP853 phase
assert main(["run", "stick_slip_oscillator", "--t-end", "2"]) == 0
assert main(["run", "crank_rocker", "--set", "form=planar", "--t-end", "0.2"]) == 0
import nonsmooth
from nonsmooth.models import stick_slip_oscillator
model = stick_slip_oscillator.build()
size = nonsmooth.simulate(model, 0.5).y.shape[0]
nonsmooth.simulate(model, 0.5, atol=[1e-13] * size)  # a vector atol: the same kernels
print("compiled:", compiled)
"""
    proc = child(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "compiled: []" in proc.stdout, proc.stdout
    assert "compiling" not in proc.stderr, proc.stderr
    seeded = list((tmp_path / "numba").rglob("*.nbi"))
    assert seeded, "nothing was seeded into the empty cache folder"


def test_the_notice_is_printed_exactly_when_numba_compiles(tmp_path):
    # a kernel of the package with a signature nobody shipped: compiled, so announced once; the
    # shipped float signature is loaded, not announced; a second process loads the new one
    code = """
import numpy as np
from nonsmooth import kernels
kernels._dot(np.ones(3), np.ones(3))  # shipped: loaded
kernels._dot(np.ones(3, dtype=np.int64), np.ones(3, dtype=np.int64))  # new: compiled
kernels._dot(np.ones(2, dtype=np.int64), np.ones(2, dtype=np.int64))  # the same: no 2nd line
"""
    first = child(code, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("nonsmooth: compiling the kernels") == 1, first.stderr
    second = child(code, tmp_path)
    assert second.returncode == 0 and "compiling" not in second.stderr, second.stderr
    (tmp_path / "other").mkdir()
    loaded_only = child("import numpy as np\nfrom nonsmooth import kernels\n"
                        "kernels._dot(np.ones(3), np.ones(3))\n", tmp_path / "other")
    assert loaded_only.returncode == 0 and loaded_only.stderr == "", loaded_only.stderr


def test_host_means_this_machines_cpu(tmp_path):
    # numba takes an LLVM CPU name; "host" (what a user writes) becomes this machine's, and the
    # shipped (generic) kernels then do not apply: numba compiles natively
    code = ("import os, llvmlite.binding as ll, nonsmooth\nfrom nonsmooth import prebuilt\n"
            "print(os.environ['NUMBA_CPU_NAME'] == ll.get_host_cpu_name(), prebuilt.usable())")
    env = {**os.environ, "NUMBA_CPU_NAME": "host"}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.stdout.split() == ["True", "False"], proc.stderr
