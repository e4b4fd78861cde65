"""What a run compiles (its first run on a machine costs what it compiles): a spatial model
without contacts and the crank-rocker's generated kernel call neither the allocating stage
(``core.stage.acceleration_stage``: the runtime-free stage's ``GENERAL`` fallback) nor the
contacts' kernels; and no kernel of the package is compiled twice for one run (a literal
argument or a second array layout would make numba compile a callee again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: The child: runs a command line, then reports which entry points Python called (a
#: dispatcher's signatures fill when it is called, whether compiled or loaded from the cache).
_CALLED = """
import json, sys
from nonsmooth.cli import main
code = main(sys.argv[1:])
from nonsmooth.core import stage
from nonsmooth.spatial import kernels
print("CALLED " + json.dumps({
    "code": code,
    "acceleration_stage": len(stage.acceleration_stage.signatures),
    "acceleration_stage_norms": len(stage.acceleration_stage_norms.signatures),
    "contact_potentials": len(kernels.spatial_contact_potentials.signatures),
    "potentials": len(kernels.spatial_potentials.signatures),
}))
"""

#: The child: counts the package's compilations (numba's ``numba:compile`` event) by function.
_COMPILED = """
import json, sys
from numba.core import event
seen = {}
class Count(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("nonsmooth"):
            seen.setdefault(f.__module__ + "." + f.__qualname__, []).append(str(ev.data["args"]))
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
from nonsmooth.cli import main
code = main(sys.argv[1:])
print("COMPILED " + json.dumps({"code": code, "seen": seen}))
"""


def _child(source: str, argv: list[str], tmp_path, env=None) -> dict:
    proc = subprocess.run([sys.executable, "-c", source, *argv], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=3000)
    lines = [x for x in proc.stdout.splitlines() if x.startswith(("CALLED ", "COMPILED "))]
    assert proc.returncode == 0 and lines, proc.stderr[-3000:]
    report = json.loads(lines[0].split(" ", 1)[1])
    assert report["code"] == 0, proc.stderr[-3000:]
    return report


@pytest.mark.parametrize("argv", [["run", "spatial_double_pendulum", "--t-end", "0.05"],
                                  ["run", "crank_rocker", "--t-end", "0.05"]],
                         ids=["spatial double pendulum", "crank-rocker (generated kernel)"])
def test_a_run_calls_neither_the_allocating_stage_nor_the_contact_kernels(argv, tmp_path):
    report = _child(_CALLED, argv, tmp_path)
    assert report["acceleration_stage"] == 0
    assert report["acceleration_stage_norms"] == 0
    assert report["contact_potentials"] == 0 and report["potentials"] == 0


@pytest.mark.slow
def test_no_kernel_is_compiled_twice_in_a_first_run(tmp_path):
    """A first run of the crank-rocker on empty caches (about a minute) compiles each of the
    package's functions once (numba compiles the object-mode call back ``callbacks.given``
    twice by design)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
           "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    code = ("from nonsmooth import prebuilt; import pathlib; "
            "prebuilt.ROOT = pathlib.Path('no-compiled-kernels')\n")
    report = _child(code + _COMPILED, ["run", "crank_rocker", "--t-end", "0.05"], tmp_path, env)
    twice = {name: args for name, args in report["seen"].items()
             if len(args) > 1 and name != "nonsmooth.core.callbacks.given"}
    assert not twice
    assert "nonsmooth.core.stage.acceleration_stage" not in report["seen"]
