"""The limits of a run, in one place (the command line's help quotes them without importing the
engine).

MAX_EVALUATIONS : int
    Default run budget: right-hand-side evaluations before a run is ended with its partial
    result (``simulate(max_evaluations=...)``, ``--max-evaluations``); about 5-15 minutes of
    evaluations.
MAX_OUTPUTS : int
    Most output rows ``(t_end - t0) / dt + 1`` a run may ask for; a row costs about 1-2 kB while
    the run is recorded, so this bounds the memory to a few GB (``simulate(max_outputs=...)``).
MAX_CASES : int
    Most cases a sweep may have (``sweep(max_cases=...)``); the store keeps a row of about 1 kB
    per case while the sweep runs (``cases.parquet`` is rewritten from them), so this bounds
    the memory to about 1 GB. The cases themselves are generated one at a time, never held.
ENERGY_WARNING : float
    A successful run warns when its energy balance error exceeds this fraction of its energy
    scale (largest kinetic energy, energy change or work term; at least 1e-6 of the largest
    potential energy and 1e-12 J, the roundoff level): the integration is inaccurate or
    unstable (an explicit method with too large a step).
DRIFT_LIMIT : float
    A fixed-step run (RK4, Euler) whose position constraints are violated by more than this
    (``|Phi|``, m or rad) at an output has taken too large a step for the mechanism's time
    scale: it fails there, and that row and those after it are not kept (Baumgarte's
    stabilization holds an adequate step's drift orders of magnitude below).
ZENO_LIMIT : int
    Most events within 1e-12 s (relative) of each other before a chattering (Zeno) error.
SMALL_SYSTEM : int
    A run whose KKT system (coordinates + constraints + pairs) is at most this size limits BLAS to
    one thread (threadpoolctl): on small matrices multi-threaded BLAS is 4-100x slower.
"""

from __future__ import annotations

__all__ = ["MAX_EVALUATIONS", "MAX_OUTPUTS", "MAX_CASES", "ENERGY_WARNING", "DRIFT_LIMIT",
           "ZENO_LIMIT", "SMALL_SYSTEM"]

MAX_EVALUATIONS = 10_000_000
MAX_OUTPUTS = 2_000_000
MAX_CASES = 1_000_000
ENERGY_WARNING = 0.01
DRIFT_LIMIT = 1e-2
ZENO_LIMIT = 50
SMALL_SYSTEM = 1000
