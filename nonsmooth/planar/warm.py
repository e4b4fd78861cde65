"""Loading (or, where numba's cache has them not, compiling) the planar kernels a use needs, by
family (:data:`FAMILIES`), before the first call that times or needs them: each kernel called
once with arguments of the types the engine passes, so that the signature loaded is the one
used. Loading a cached kernel costs 30-50 ms; a compilation is announced
(:mod:`nonsmooth.compile_notice`)."""

from __future__ import annotations

import numpy as np

from ..core.stage import N_HEADER, acceleration_stage
from .kernels import (
    planar_bias,
    planar_evaluate,
    planar_evaluate_batch,
    planar_potential,
    planar_potentials,
    planar_slot_displacement,
    planar_terms,
    workspace,
)

__all__ = ["FAMILIES", "warm"]


_WARM: set = set()

#: The kernels a use needs, by family: a planar model (its terms, evaluation and outputs), its
#: compiled DOP853 phases, its compiled fixed steps, and any other system (the acceleration stage
#: alone). Each is loaded when first needed: a cached kernel's load costs 30-50 ms.
FAMILIES = {"planar": ("planar_terms", "planar_bias", "planar_potential",
                       "planar_slot_displacement", "planar_evaluate", "planar_evaluate_batch"),
            "dop853": ("planar_dop853_phase",),
            "fixed": ("planar_fixed_step", "planar_fixed_phase", "planar_potentials"),
            "stage": ("acceleration_stage",)}


def _warm_calls():
    """One call per kernel with arguments of the types the engine passes (so that the
    signature compiled or loaded here is the one used)."""
    it = np.zeros((0, 8), dtype=np.int64)
    ft = np.zeros((0, 11))
    q = np.zeros(1)
    e0 = np.zeros(0)
    plan = np.zeros(N_HEADER)
    z2 = np.zeros((0, 1))
    y7 = np.zeros(7)  # n = 1: [q, v, work (5)]
    plan1 = np.zeros(N_HEADER + 1)
    plan1[0] = 1.0
    return {
        "planar_terms": lambda: planar_terms(it, ft, np.zeros((0, 3)), np.eye(1), 0, 0, 0.0, q,
                                             q),
        "planar_bias": lambda: planar_bias(it, ft, 0, q, q),
        "planar_potential": lambda: planar_potential(it, ft, q),
        "planar_slot_displacement": lambda: planar_slot_displacement(
            np.zeros((1, 8), dtype=np.int64), np.zeros((1, 11)), 0, q),
        "planar_evaluate": lambda: planar_evaluate(it, ft, np.zeros((0, 3)), np.eye(1), plan,
                                                   np.zeros((0, 0)), 0.0, q, q, e0, e0, e0,
                                                   np.zeros(32)),
        "acceleration_stage": lambda: acceleration_stage(np.eye(1), q, e0, e0, z2, e0, z2, e0,
                                                         0.0, 0.0, plan, np.zeros((0, 0)), q,
                                                         e0, e0, e0, np.zeros(32)),
        "planar_evaluate_batch": lambda: planar_evaluate_batch(
            it, ft, np.zeros((1, 0, 3)), np.eye(1), plan, np.zeros((0, 0)), np.zeros(1),
            np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 0)), e0, e0, np.zeros((1, 34))),
        "planar_dop853_phase": lambda: _warm_dop853(it, ft, plan1, y7),
        "planar_fixed_step": lambda: _warm_fixed_step(it, ft, plan1, y7),
        "planar_fixed_phase": lambda: _warm_fixed_phase(it, ft, plan1, y7),
        "planar_potentials": lambda: planar_potentials(it, ft, np.zeros((1, 1))),
    }


def _warm_fixed_step(it, ft, plan1, y7):
    """:func:`nonsmooth.planar.fixed_step.planar_fixed_step` with the argument types
    ``planar_family.PlanarFamily.step`` passes."""
    from .fixed_step import planar_fixed_step

    e0 = np.zeros(0)
    ctx = (it, ft, np.eye(1), plan1, np.zeros((0, 0)), *workspace(it, plan1))
    planar_fixed_step(ctx, 0.0, y7, y7, 0.0, 0.0, e0, e0, True, y7.copy(), y7.copy(),
                      np.zeros(40))


def _warm_fixed_phase(it, ft, plan1, y7):
    """:func:`nonsmooth.planar.fixed_step.planar_fixed_phase` with the argument types
    ``run.phase._compiled_fixed_phase`` passes (a call that pauses at once)."""
    from .fixed_step import planar_fixed_phase

    e0, i0 = np.zeros(0), np.zeros(0, dtype=np.int64)
    Wt = np.zeros((0, 0))
    ctx = (it, ft, np.eye(1), plan1, Wt, *workspace(it, plan1))
    planar_fixed_phase(ctx, plan1, e0, e0, i0, i0, e0, e0, np.zeros(1), np.zeros(1),
                       np.zeros(9, dtype=np.int64), np.zeros(4), y7.copy(), y7.copy(), e0.copy(),
                       np.zeros(0, dtype=np.int8), np.zeros(1), np.zeros((1, 7)),
                       np.zeros((1, 40)))


def _warm_dop853(it, ft, plan1, y7):
    """:func:`nonsmooth.planar.dop853.planar_dop853_phase` with the argument types
    ``run.phase._compiled_phase`` passes (a phase that is already at its end)."""
    from .dop853 import coefficients, extended_plan, planar_dop853_phase

    e0, i0 = np.zeros(0), np.zeros(0, dtype=np.int64)
    plan1 = extended_plan(plan1[:N_HEADER], -1, np.inf)
    Wt = np.zeros((1, 0))
    ctx = (it, ft, np.eye(1), plan1, Wt, *workspace(it, plan1), i0)
    planar_dop853_phase(ctx, plan1, e0, e0, i0, i0, e0, e0, np.array([0.0, 1e-3, np.inf, 0.0]),
                        np.ones(7), np.zeros(1), 1, np.array([0.0, 1.0, 0.0]), y7.copy(),
                        y7.copy(), e0.copy(), np.zeros(0, dtype=np.int8), np.zeros((1, 7)),
                        np.array([100, 100], dtype=np.int64), coefficients(), np.zeros(40))


def warm(family: str | None = None) -> None:
    """Load (or, the first time on a machine, compile) the kernels of a family (``"planar"``,
    ``"dop853"``, ``"fixed"``, ``"stage"``; None: all) once per process.

    Loading from numba's on-disk cache (seeded from the package's shipped cache,
    :mod:`nonsmooth.prebuilt`) takes a fraction of a second; a compilation (another numba
    version, a native CPU, an edited kernel) takes about a minute and is announced on stderr
    when numba starts it (:mod:`nonsmooth.compile_notice`)."""
    names = [n for fam, members in FAMILIES.items() if family in (None, fam) for n in members]
    names = [n for n in names if n not in _WARM]
    if not names:
        return
    calls = _warm_calls()
    for name in names:
        calls[name]()
        _WARM.add(name)
