"""The recorder: the output rows of a run, kept as blocks of arrays.

A run records one row at a time (fixed-step methods, events) or a whole block of rows at once
(an adaptive step's outputs, evaluated together by one compiled call: ``docs/fast_core.md``).
Each ``add``/``add_row`` appends one tuple to a list, a single atomic operation, so an interrupt
(Ctrl-C) never leaves a half-written row; :meth:`Recorder.arrays` joins the rows and blocks for
the :class:`~nonsmooth.result.Result` (consecutive single rows in one conversion each field).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Recorder", "FIELDS", "SCALARS"]

#: The fields that are one number per row.
SCALARS = ("t", "residual", "T", "V")

#: What one output row holds: time (s), state ``y = [q, v, work, z]``, accelerations,
#: multipliers, per-pair normal multiplier ``lambda_N``, normal load ``N`` (the magnitude the
#: friction law sees: reaction, bending, preload or a given normal force), friction force,
#: sliding velocity, mode (NaN for a smooth law), HLCP residual, constraint values and their
#: rates, kinetic and potential energy (J).
FIELDS = ("t", "y", "dv", "lam", "lambda_N", "N", "F_T", "v_T", "modes", "residual", "phi",
          "dphi", "T", "V")


class Recorder:
    """Output rows of a run.

    Parameters
    ----------
    widths : dict of str to int
        The width of each vector field of :data:`FIELDS` (the :data:`SCALARS` need none).
    """

    def __init__(self, widths: dict):
        self.widths = {f: widths.get(f, 0) for f in FIELDS}
        self._entries: list[tuple] = []  # ("row", values) or ("block", arrays), in time order
        self.n_rows = 0
        self.last_t: float | None = None
        self.last_y: np.ndarray | None = None

    def add(self, **block) -> None:
        """Append rows: each field an array with the rows on the first axis (a scalar field a
        1-D array)."""
        rows = np.shape(block["t"])[0]
        self._entries.append(("block", tuple(block[f] for f in FIELDS)))
        self.n_rows += rows
        self.last_t = float(block["t"][-1])
        self.last_y = np.asarray(block["y"][-1])

    def add_row(self, **row) -> None:
        """Append one row (scalars and 1-D arrays; joined with its neighbours at the end)."""
        self._entries.append(("row", tuple(row[f] for f in FIELDS)))
        self.n_rows += 1
        self.last_t = float(row["t"])
        self.last_y = row["y"]

    def _groups(self):
        """The entries as blocks: consecutive single rows joined into one block."""
        rows = []
        for kind, values in self._entries:
            if kind == "row":
                rows.append(values)
                continue
            if rows:
                yield self._join(rows)
                rows = []
            yield values
        if rows:
            yield self._join(rows)

    def _join(self, rows):
        out = []
        for j, f in enumerate(FIELDS):
            col = [r[j] for r in rows]
            if f in SCALARS:
                out.append(np.array(col, dtype=float))
            else:
                out.append(np.array(col, dtype=float).reshape(len(rows), self.widths[f]))
        return tuple(out)

    def arrays(self) -> dict:
        """Every field joined over the rows and blocks: shape (N,) or (N, width)."""
        blocks = list(self._groups())
        out = {}
        for j, f in enumerate(FIELDS):
            width = self.widths[f]
            parts = [b[j] for b in blocks]
            if f in SCALARS:
                out[f] = (np.concatenate([np.asarray(p, dtype=float).reshape(-1) for p in parts])
                          if parts else np.zeros(0))
            else:
                rows = [np.shape(b[0])[0] for b in blocks]
                out[f] = (np.concatenate([np.asarray(p, dtype=float).reshape(r, width)
                                          for p, r in zip(parts, rows, strict=True)])
                          if parts else np.zeros((0, width)))
        return out
