"""The planar family's compiled entry points as the run calls them (``nonsmooth.family``,
obligation 4): the planar kernels over the tables (``kernels.planar_evaluate_batch``,
``kernels.planar_potentials``), the DOP853 phase with the grazing search
(``dop853.planar_dop853_phase``) and the RK4/Euler phase (``fixed_step.planar_fixed_phase``).
The tables stay here: the run sees only :class:`~nonsmooth.family.CompiledFamily`'s methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..family import CompiledFamily

__all__ = ["PlanarFamily", "planar_family"]


@dataclass(frozen=True)
class PlanarFamily(CompiledFamily):
    """:class:`~nonsmooth.family.CompiledFamily` of a compiled planar model: ``data = (ints,
    floats, mass)`` (``tables.PlanarTables``), ``pair_rows`` (p,) the table row of each pair
    (its sliding velocity on a step's dense output, for the grazing search), ``size`` the
    evaluation buffer's length."""

    pair_rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    size: int = 0
    #: what is made once and reused (the fixed step's ``ctx`` for the last plan)
    cache: dict = field(default_factory=dict, compare=False, repr=False)
    #: With vector pairs: the plan's blocks the run reads back after a DOP853 call (``e_ref``,
    #: ``stop_speed``: slices) and the run's own plan they go to (``Dynamics.plan``).
    run_blocks: tuple | None = None
    home: np.ndarray | None = None

    def dop853(self, plan, Wt):
        from . import dop853
        from .kernels import workspace

        it, ft, M0 = self.data
        ctx = (it, ft, M0, plan, Wt, *workspace(it, plan), self.pair_rows)
        if self.run_blocks is None:
            return dop853.planar_dop853_phase, ctx
        return self._reading_back(dop853.planar_dop853_phase), ctx

    def _reading_back(self, phase):
        """``phase`` followed by the copy of the slip directions it refreshed (``e_ref``,
        ``stop_speed``) from the phase's plan (a copy: ``core.callbacks.extended_plan``) into
        the run's, which the run's evaluations of the outputs and its transition read."""
        home, blocks = self.home, self.run_blocks

        def call(ctx, plan, *args):
            result = phase(ctx, plan, *args)
            for block in blocks:
                home[block] = plan[block]
            return result

        return call

    def fixed(self, plan, Wt):
        from . import fixed_step
        from .kernels import workspace

        it, ft, M0 = self.data
        return fixed_step.planar_fixed_phase, (it, ft, M0, plan, Wt, *workspace(it, plan))

    def evaluate_block(self, plan, Wt, ts, Q, V, Z, modes, faces, U=None):
        from .kernels import planar_evaluate_batch

        it, ft, M0 = self.data
        k = ts.size
        if U is None:
            U = np.zeros((k, it.shape[0], 3))
        out = np.empty((k, self.size + 2))
        row, status = planar_evaluate_batch(it, ft, U, M0, plan, Wt, ts, Q, V, Z, modes, faces,
                                            out)  # each row: the evaluation, then T and V
        return out[:, :-2], (out[:, -2], out[:, -1]), row, status

    steps_compiled = True

    def step(self, plan, Wt, t, y, f, h, t_next, modes, faces, rk4, y_new, f_new, out):
        from .fixed_step import planar_fixed_step
        from .kernels import workspace

        ctx = self.cache.get("step")
        if ctx is None or ctx[3] is not plan or ctx[4] is not Wt:  # made once per plan
            it, ft, M0 = self.data
            ctx = self.cache["step"] = (it, ft, M0, plan, Wt, *workspace(it, plan))
        return planar_fixed_step(ctx, t, y, f, h, t_next, modes, faces, rk4, y_new, f_new, out)

    def potentials(self, times, Q):
        from .kernels import planar_potentials

        it, ft, _ = self.data
        return planar_potentials(it, ft, np.ascontiguousarray(Q))

    def warm(self, what):
        from .warm import warm

        warm(what)


def planar_family(system, size: int, run_blocks=None, home=None) -> PlanarFamily:
    """The compiled family of a :class:`~nonsmooth.planar.PlanarSystem` (its tables; ``size``
    the evaluation buffer's length; with vector pairs ``run_blocks``, the slices of the plan's
    ``e_ref`` and ``stop_speed``, and ``home``, the run's plan: :attr:`PlanarFamily.home`)."""
    tab = system.tables
    return PlanarFamily(module=_kernels(), data=(tab.ints, tab.floats, tab.mass),
                        pair_velocity=True, calls_back=system.has_user_functions,
                        pair_rows=tab.pair_rows, size=size, run_blocks=run_blocks, home=home)


def _kernels():
    from . import kernels

    return kernels
