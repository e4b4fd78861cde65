"""Item 6(b) of docs/seam.md: which way of giving a phase template its right-hand side keeps
numba's on-disk cache (``cache=True``) valid in a new process.

Writes a small module into a temporary folder with one trivial right-hand side ``rhs`` and a
phase template that calls it 1e6 times, instantiated five ways:

* ``arg``: the njit function passed as an argument of a ``cache=True`` kernel;
* ``global_inline``: an ``inline="always"`` template called by a ``cache=True`` kernel with the
  module-level njit function (today's ``fixed_step.planar_fixed_phase``; the generated module);
* ``closure``: a factory returning a ``cache=True`` kernel whose closure holds the njit function;
* ``first_class``: the template typed with a first-class function type (``types.FunctionType``)
  argument, given the njit function;
* ``factory_global``: a factory that writes the function into the kernel's globals
  (``globals()[name]`` before the decoration: what a per-family instantiation at import does).

Then runs the same module in three fresh processes (the same NUMBA_CACHE_DIR) and prints, per
way: the cache hits / misses numba reports in each process, the first call's time (compile or
load) and ns per right-hand side call. Run: python docs/seam_measurements/templates.py
(about 40 s)."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MODULE = textwrap.dedent('''
    import numpy as np
    from numba import njit, types


    @njit(cache=True)
    def rhs(t, y):
        return -0.5 * y + 1e-3 * t


    @njit(cache=True, inline="always")
    def _phase_with(f, y0, n):
        y, h = y0, 1e-6
        for k in range(n):
            y = y + h * f(k * h, y)
        return y


    # 1. the njit function as an argument of a cached kernel
    @njit(cache=True)
    def phase_arg(f, y0, n):
        return _phase_with(f, y0, n)


    # 2. an inlined template around the module-level function (today's pattern)
    @njit(cache=True)
    def phase_global_inline(y0, n):
        return _phase_with(rhs, y0, n)


    # 3. a closure over the njit function
    def make_closure(f):
        @njit(cache=True)
        def phase_closure(y0, n):
            return _phase_with(f, y0, n)
        return phase_closure


    phase_closure = make_closure(rhs)

    # 4. a first-class function type
    FN = types.FunctionType(types.float64(types.float64, types.float64))


    @njit(types.float64(FN, types.float64, types.int64), cache=True)
    def phase_first_class(f, y0, n):
        y, h = y0, 1e-6
        for k in range(n):
            y = y + h * f(k * h, y)
        return y


    # 5. a factory that binds the function as a global of the kernel it makes
    def make_global(f, name):
        globals()[name] = f
        src = (f"def phase_factory_global(y0, n):\\n"
               f"    return _phase_with({name}, y0, n)\\n")
        exec(compile(src, __file__, "exec"), globals())
        return njit(cache=True)(globals()["phase_factory_global"])


    phase_factory_global = make_global(rhs, "_rhs_bound")
''')

DRIVER = textwrap.dedent('''
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import tmpl_mod as m

    N = 1_000_000
    calls = {
        "arg": lambda n: m.phase_arg(m.rhs, 1.0, n),
        "global_inline": lambda n: m.phase_global_inline(1.0, n),
        "closure": lambda n: m.phase_closure(1.0, n),
        "first_class": lambda n: m.phase_first_class(m.rhs, 1.0, n),
        "factory_global": lambda n: m.phase_factory_global(1.0, n),
    }
    disp = {"arg": m.phase_arg, "global_inline": m.phase_global_inline,
            "closure": m.phase_closure, "first_class": m.phase_first_class,
            "factory_global": m.phase_factory_global}
    res = {}
    for name, call in calls.items():
        t0 = time.perf_counter()
        try:
            call(10)
        except Exception as exc:
            res[name] = {"error": type(exc).__name__ + ": " + str(exc).splitlines()[0][:100]}
            continue
        first = time.perf_counter() - t0
        best = min((lambda t: (call(N), time.perf_counter() - t)[1])(time.perf_counter())
                   for _ in range(3))
        st = disp[name].stats
        res[name] = {"hits": sum(st.cache_hits.values()), "misses": sum(st.cache_misses.values()),
                     "first_s": round(first, 3), "ns_per_rhs": round(best / N * 1e9, 2)}
    print(json.dumps(res))
''')


def main():
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "tmpl_mod.py").write_text(MODULE)
        Path(folder, "driver.py").write_text(DRIVER)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(folder, "cache")))
        runs = []
        for _ in range(3):
            done = subprocess.run([sys.executable, "-W", "ignore", str(Path(folder, "driver.py")),
                                   folder], env=env, capture_output=True, text=True, timeout=300)
            if done.returncode:
                print(done.stderr[-2000:])
                return
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    print(f"{'way':16s} {'process 1':>22s} {'process 2':>22s} {'process 3':>22s} {'ns/rhs':>7s}")
    for name in runs[0]:
        cells = []
        for r in runs:
            x = r[name]
            cells.append(x["error"][:22] if "error" in x else
                         f"h{x['hits']} m{x['misses']} {x['first_s']:.3f}s")
        ns = runs[-1][name].get("ns_per_rhs", float("nan"))
        print(f"{name:16s} {cells[0]:>22s} {cells[1]:>22s} {cells[2]:>22s} {ns:7.2f}")
    print("(h hits, m misses of numba's on-disk cache in that process; then the first call's "
          "time: compile or load)")


if __name__ == "__main__":
    main()
