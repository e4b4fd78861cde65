"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/NAME.py``, so this
folder is on the import path)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    """Best wall time (s) of ``repeat`` calls of ``fn`` and the last call's result."""
    best, out = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out
