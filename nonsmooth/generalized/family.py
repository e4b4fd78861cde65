"""The generalized family's compiled entry points as the run calls them (``nonsmooth.family``,
obligation 4): a ``GeneralizedSystem`` with compiled terms runs its phases and output blocks
through its generated module (:mod:`nonsmooth.generalized.generated`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..family import CompiledFamily

__all__ = ["GeneratedFamily"]


@dataclass(frozen=True)
class GeneratedFamily(CompiledFamily):
    """:class:`~nonsmooth.family.CompiledFamily` of a ``GeneralizedSystem`` with compiled
    terms: its generated module (``generated.kernel_module``), ``data = (parameters,)``,
    ``size`` the evaluation buffer's length."""

    size: int = 0

    def _ctx(self, plan, Wt):
        from ..core.stage import stage_workspace

        return (*self.data, plan, Wt, *stage_workspace(plan))

    def dop853(self, plan, Wt):
        return self.module.dop853_phase, self._ctx(plan, Wt)

    def fixed(self, plan, Wt):
        return self.module.fixed_phase, self._ctx(plan, Wt)

    def evaluate_block(self, plan, Wt, ts, Q, V, Z, modes, faces, U=None):
        out = np.empty((ts.size, self.size))
        row, status = self.module.evaluate_batch(*self.data, plan, Wt, ts, Q, V, Z, modes, faces,
                                                 out)
        return out, None, row, status

    def potentials(self, times, Q):
        if not hasattr(self.module, "potentials"):
            return None
        V = np.empty(len(times))
        self.module.potentials(*self.data, np.asarray(times, dtype=float),
                               np.ascontiguousarray(Q), Q.shape[1], V)
        return V
