"""Item 6(b), the follow-up of docs/seam.md: two kernels made by one factory (the same source
line, the same qualified name) around two different right-hand sides, both ``cache=True``.
Does a new process load the right machine code for each? Prints each kernel's result in three
processes against the expected values. Run: python docs/seam_measurements/factory_collision.py
(about 10 s)."""
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

MODULE = textwrap.dedent('''
    from numba import njit


    @njit(cache=True)
    def rhs_a(y):
        return 2.0 * y


    @njit(cache=True)
    def rhs_b(y):
        return 3.0 * y


    @njit(cache=True, inline="always")
    def _template(f, y):
        return f(y) + 1.0


    def make(f, name):
        globals()[name] = f
        src = f"def phase(y):\\n    return _template({name}, y)\\n"
        exec(compile(src, __file__, "exec"), globals())
        return njit(cache=True)(globals()["phase"])


    phase_a = make(rhs_a, "_bound_a")
    phase_b = make(rhs_b, "_bound_b")
''')

DRIVER = ("import sys; sys.path.insert(0, sys.argv[1]); import fac_mod as m; "
          "a, b = m.phase_a(1.0), m.phase_b(1.0); "
          "print(f'phase_a(1) = {a} (expected 3.0), phase_b(1) = {b} (expected 4.0), '"
          "f'hits a {sum(m.phase_a.stats.cache_hits.values())} "
          "b {sum(m.phase_b.stats.cache_hits.values())}')")


def main():
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "fac_mod.py").write_text(MODULE)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(folder, "cache")))
        for i in range(3):
            done = subprocess.run([sys.executable, "-W", "ignore", "-c", DRIVER, folder], env=env,
                                  capture_output=True, text=True, timeout=120)
            print(f"process {i + 1}:", done.stdout.strip() or done.stderr[-500:])


if __name__ == "__main__":
    main()
