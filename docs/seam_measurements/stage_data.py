"""Item 6(a) of docs/seam.md: the stage constants as a flat float vector with named integer
offsets, a tuple of arrays, or a numba structref, read by a tiny kernel compiled without numba's
runtime (``_nrt=False``) and called 1e6 times from a compiled loop (the phase's situation: the
caller has the runtime, the evaluation does not).

Prints, per form: whether the kernel compiles with ``_nrt=False``, the NRT_incref/NRT_decref
calls in the LLVM IR of the callee and of the loop, and ns per call (best of 5).
Run: python docs/seam_measurements/stage_data.py  (about 20 s, most of it compilation)."""
import time

import numpy as np
from numba import njit, types
from numba.experimental import structref

N = 1_000_000
# named offsets (what `core/layout.py` would define): header then two per-pair blocks
N_, P_, MU, PRELOAD = 0, 1, 2, 4


# ------------------------------------------------------------------ flat vector + named offsets
@njit(_nrt=False)
def flat_kernel(plan, x):
    p = int(plan[P_])
    acc = 0.0
    for i in range(p):
        acc += plan[MU + i] * x[i] + plan[PRELOAD + i]
    return acc


@njit
def flat_loop(plan, x, n):
    s = 0.0
    for _ in range(n):
        s += flat_kernel(plan, x)
        x[0] += 1e-12
    return s


# ------------------------------------------------- flat float vector + int64 header (counts)
@njit(_nrt=False)
def flat_int_kernel(header, plan, x):
    p = header[P_]
    acc = 0.0
    for i in range(p):
        acc += plan[MU + i] * x[i] + plan[PRELOAD + i]
    return acc


@njit
def flat_int_loop(header, plan, x, n):
    s = 0.0
    for _ in range(n):
        s += flat_int_kernel(header, plan, x)
        x[0] += 1e-12
    return s


# ------------------------------------------------------------------ tuple of arrays (+ an int)
@njit(_nrt=False)
def tuple_kernel(data, x):
    p, mu, preload = data
    acc = 0.0
    for i in range(p):
        acc += mu[i] * x[i] + preload[i]
    return acc


@njit
def tuple_loop(data, x, n):
    s = 0.0
    for _ in range(n):
        s += tuple_kernel(data, x)
        x[0] += 1e-12
    return s


# ------------------------------------------------------------------ structref
@structref.register
class StageType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Stage(structref.StructRefProxy):
    def __new__(cls, p, mu, preload):
        return structref.StructRefProxy.__new__(cls, p, mu, preload)


structref.define_proxy(Stage, StageType, ["p", "mu", "preload"])


def struct_kernel_py(s, x):
    acc = 0.0
    mu, preload = s.mu, s.preload
    for i in range(s.p):
        acc += mu[i] * x[i] + preload[i]
    return acc


struct_kernel_nrt_false = njit(_nrt=False)(struct_kernel_py)
struct_kernel = njit(struct_kernel_py)


@njit
def struct_loop(s, x, n):
    acc = 0.0
    for _ in range(n):
        acc += struct_kernel(s, x)
        x[0] += 1e-12
    return acc


def refcounts(dispatcher):
    ir = "".join(dispatcher.inspect_llvm().values())
    return ir.count("call void @NRT_incref"), ir.count("call void @NRT_decref")


def best(fn, *args):
    fn(*args[:-1], 10)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times) / N * 1e9


def main():
    p = 2
    mu = np.array([0.3, 0.4])
    preload = np.array([1.0, 2.0])
    plan = np.array([3.0, float(p), *mu, *preload])
    x = np.ones(p)
    s = Stage(p, mu, preload)
    try:
        struct_kernel_nrt_false(s, x)
        nrt_false = "compiles"
    except Exception as exc:  # noqa: BLE001 - reported
        nrt_false = f"refused: {type(exc).__name__}: {str(exc).splitlines()[0][:110]}"
    rows = [("flat vector + offsets", flat_kernel, flat_loop, (plan, x, N), "compiles"),
            ("flat + int64 header", flat_int_kernel, flat_int_loop,
             (np.array([3, p]), plan, x, N), "compiles"),
            ("tuple of arrays", tuple_kernel, tuple_loop, ((p, mu, preload), x, N), "compiles"),
            ("structref", struct_kernel, struct_loop, (s, x, N), nrt_false)]
    print(f"{'form':24s} {'_nrt=False':12s} {'callee inc/dec':>15s} {'loop inc/dec':>13s} "
          f"{'ns/call':>8s}")
    for name, kern, loop, args, status in rows:
        ns = best(loop, *args)
        ki, kd = refcounts(kern)
        li, ld = refcounts(loop)
        print(f"{name:24s} {status[:12]:12s} {ki:>7d}/{kd:<7d} {li:>6d}/{ld:<6d} {ns:8.2f}")
    if not nrt_false.startswith("compiles"):
        print("structref with _nrt=False:", nrt_false)
        try:
            struct_kernel_nrt_false(s, x)
        except Exception as exc:  # noqa: BLE001 - reported
            print("  ", " | ".join(str(exc).splitlines()[:3]))


if __name__ == "__main__":
    main()
