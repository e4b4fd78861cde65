"""The recorder: the output rows of a run, kept as blocks of arrays.

A run records one row at a time (fixed-step methods, events) or a whole block of rows at once
(an adaptive step's outputs, evaluated together by one compiled call: ``docs/fast_core.md``).
Each ``add`` appends one tuple to a list, a single atomic operation, so an interrupt (Ctrl-C)
never leaves a half-written row; :meth:`arrays` joins the blocks for the
:class:`~nonsmooth.result.Result`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Recorder", "FIELDS", "SCALARS"]

#: The fields that are one number per row.
SCALARS = ("t", "residual", "T", "V")

#: What one output row holds: time (s), state ``y = [q, v, work, z]``, accelerations,
#: multipliers, per-pair normal force, friction force, sliding velocity, mode (NaN for a smooth
#: law), HLCP residual, constraint values and their rates, kinetic and potential energy (J).
FIELDS = ("t", "y", "dv", "lam", "lambda_N", "F_T", "v_T", "modes", "residual", "phi", "dphi",
          "T", "V")


class Recorder:
    """Output rows of a run.

    Parameters
    ----------
    widths : dict of str to int
        The width of each vector field of :data:`FIELDS` (the :data:`SCALARS` need none).
    """

    def __init__(self, widths: dict):
        self.widths = {f: widths.get(f, 0) for f in FIELDS}
        self._blocks: list[tuple] = []
        self.n_rows = 0
        self.last_t: float | None = None
        self.last_y: np.ndarray | None = None

    def add(self, **block) -> None:
        """Append rows: each field an array with the rows on the first axis (a scalar field a
        1-D array); one row may be given with scalars and 1-D arrays (``add_row``)."""
        rows = np.shape(block["t"])[0]
        self._blocks.append(tuple(block[f] for f in FIELDS))
        self.n_rows += rows
        self.last_t = float(block["t"][-1])
        self.last_y = np.asarray(block["y"][-1])

    def add_row(self, **row) -> None:
        """Append one row (scalars and 1-D arrays)."""
        self.add(**{f: (np.array([row[f]], dtype=float) if f in SCALARS
                        else np.asarray(row[f], dtype=float).reshape(1, -1)) for f in FIELDS})

    def arrays(self) -> dict:
        """Every field joined over the blocks: shape (N,) or (N, width)."""
        out = {}
        for j, f in enumerate(FIELDS):
            width = self.widths[f]
            parts = [b[j] for b in self._blocks]
            if f in SCALARS:
                out[f] = (np.concatenate([np.asarray(p, dtype=float).reshape(-1) for p in parts])
                          if parts else np.zeros(0))
            else:
                rows = [np.shape(b[0])[0] for b in self._blocks]
                out[f] = (np.concatenate([np.asarray(p, dtype=float).reshape(r, width)
                                          for p, r in zip(parts, rows, strict=True)])
                          if parts else np.zeros((0, width)))
        return out
