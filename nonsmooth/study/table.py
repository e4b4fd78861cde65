"""The result of a sweep: :class:`Study`, its table of cases (one row per case) and views of it.

The table is a ``pyarrow.Table`` (``study.table``); ``study["name"]`` is one column as a numpy
array (floats with NaN where a value is missing, text as objects), ``study.to_dict()`` all of
them, ``study.to_pandas()`` a DataFrame where pandas is installed (it is not a dependency).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

__all__ = ["Study", "open_study"]


class Study:
    """A sweep's cases and where they are stored.

    Attributes
    ----------
    table : pyarrow.Table   one row per case: ``case``, the swept parameters, ``status`` ("ok"
                            or "failed"), ``error``, ``error_type``, ``warning``, ``wall_time``
                            (s), ``evaluations``, ``t_reached`` (s, the last output), then one
                            column per metric, named by its spec
    folder : Path or None   the store (``cases.parquet``, ``sweep.json``, ``series/``)
    parameters : list       the swept parameters' names
    metrics : list          the metric columns' names
    run : dict              the last run's scheduler, workers, cases run and wall time (s)
    """

    def __init__(self, table, *, folder=None, parameters=(), metrics=(), run=None):
        self.table = table
        self.folder = None if folder is None else Path(folder)
        self.parameters = list(parameters)
        self.metrics = list(metrics)
        self.run = dict(run or {})

    # ------------------------------------------------------------------ access
    @property
    def columns(self) -> list[str]:
        return list(self.table.column_names)

    def __len__(self) -> int:
        return self.table.num_rows

    def __getitem__(self, name: str) -> np.ndarray:
        """One column as a numpy array, shape (n_cases,)."""
        if name not in self.table.column_names:
            raise KeyError(f"no column {name!r}; columns: {', '.join(self.columns)}")
        return self.table.column(name).to_numpy()

    def to_dict(self) -> dict[str, np.ndarray]:
        """Every column as a numpy array."""
        return {name: self[name] for name in self.columns}

    def to_pandas(self):
        """The table as a pandas DataFrame (needs pandas, which nonsmooth does not install)."""
        return self.table.to_pandas()

    @property
    def ok(self) -> np.ndarray:
        """Boolean mask of the cases that ran to their end, shape (n_cases,)."""
        return self["status"] == "ok"

    @property
    def n_ok(self) -> int:
        return int(np.count_nonzero(self.ok))

    @property
    def n_failed(self) -> int:
        return len(self) - self.n_ok

    def rows(self, status: str | None = None) -> list[dict]:
        """The cases as dicts (only those with ``status`` "ok" or "failed", if given)."""
        rows = self.table.to_pylist()
        return rows if status is None else [r for r in rows if r["status"] == status]

    def map(self, value, x: str, y: str):
        """A 2-D view for maps: ``(xs, ys, Z)`` with ``xs``, ``ys`` the sorted distinct values
        of parameters ``x`` and ``y`` and ``Z[j, i]`` the ``value`` (a column name, or an
        array of one value per case) of the case at ``(xs[i], ys[j])``, NaN where no case is.
        Each ``(x, y)`` must be one case (other swept parameters fixed)."""
        vals = np.asarray(self[value] if isinstance(value, str) else value, dtype=float)
        if vals.shape != (len(self),):
            raise ValueError(f"map: value has shape {vals.shape}, expected ({len(self)},)")
        xc, yc = self[x], self[y]
        xs, ys = np.unique(xc), np.unique(yc)
        Z = np.full((ys.size, xs.size), np.nan)
        seen = np.zeros(Z.shape, dtype=bool)
        for xv, yv, v in zip(xc, yc, vals, strict=True):
            i, j = np.searchsorted(xs, xv), np.searchsorted(ys, yv)
            if seen[j, i]:
                raise ValueError(f"map: more than one case at {x} = {xv!r}, {y} = {yv!r}; the "
                                 "other swept parameters must be fixed for a map")
            seen[j, i] = True
            Z[j, i] = v
        return xs, ys, Z

    def _list_valued(self, name: str) -> bool:
        import pyarrow as pa

        return pa.types.is_list(self.table.schema.field(name).type)

    # ------------------------------------------------------------------ bifurcation diagrams
    def bifurcation(self, metric: str | None = None,
                    parameter: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """A bifurcation diagram's points: ``(p, values)``, both shape (n_points,), every
        section value of the ok cases of a ``poincare:`` metric (default: the first) against
        the case's value of ``parameter`` (default: the first swept parameter), one entry per
        point (a period-n orbit: n values at its parameter; chaos: a band)."""
        metric, parameter = self._bifurcation_names(metric, parameter)
        xs, ys = [], []
        for x, points, status in zip(self[parameter], self.table.column(metric).to_pylist(),
                                     self["status"], strict=True):
            if status != "ok" or not points:
                continue
            xs.append(np.full(len(points), float(x)))
            ys.append(np.asarray(points, dtype=float))
        if not xs:
            return np.zeros(0), np.zeros(0)
        return np.concatenate(xs), np.concatenate(ys)

    def _bifurcation_names(self, metric, parameter) -> tuple[str, str]:
        lists = [m for m in self.metrics if self._list_valued(m)]
        if metric is None:
            if not lists:
                raise ValueError("bifurcation: the study has no poincare: metric (a list of "
                                 "section values per case); sweep with e.g. --metric "
                                 "poincare:x")
            metric = lists[0]
        elif metric not in lists:
            raise ValueError(f"bifurcation: {metric!r} is not a poincare: metric of the study; "
                             f"its poincare: metrics: {', '.join(lists) or 'none'}")
        if parameter is None:
            if not self.parameters:
                raise ValueError("bifurcation: the study has no swept parameter")
            parameter = self.parameters[0]
        elif parameter not in self.parameters:
            raise ValueError(f"bifurcation: {parameter!r} is not a swept parameter; "
                             f"parameters: {', '.join(self.parameters)}")
        return metric, parameter

    def plot_bifurcation(self, metric: str | None = None, parameter: str | None = None,
                         path=None, *, ax=None, title: str | None = None, format=None,
                         marker_size: float = 2.0):
        """Plot the bifurcation diagram (:meth:`bifurcation`): the section values against the
        parameter, one dot per point; save to ``path`` (format by suffix, or ``format``) if
        given. ``ax``: draw into these matplotlib axes. Returns the figure."""
        metric, parameter = self._bifurcation_names(metric, parameter)
        x, y = self.bifurcation(metric, parameter)
        if ax is None:
            if path is None:
                import matplotlib.pyplot as plt

                fig = plt.figure(figsize=(8, 4.5))
            else:  # to a file: no pyplot, no backend switch
                from matplotlib.figure import Figure

                fig = Figure(figsize=(8, 4.5))
            ax = fig.subplots()
        else:
            fig = ax.figure
        ax.plot(x, y, ",k" if marker_size <= 0 else ".k", markersize=max(marker_size, 0.1),
                alpha=0.6, linestyle="none")
        ax.set_xlabel(parameter)
        output = metric.split(":")[1] if ":" in metric else metric
        ax.set_ylabel(f"{output} on the section")
        ax.set_title(title or f"bifurcation diagram: {metric}", loc="left", fontsize=10)
        ax.grid(alpha=0.3)
        if path is not None:
            fig.tight_layout()
            fig.savefig(path, dpi=120, format=format)
        return fig

    # ------------------------------------------------------------------ text
    def summary(self) -> str:
        """Cases ok / failed (failures by error type), the metrics' ranges, the store."""
        lines = [f"{len(self)} cases: {self.n_ok} ok, {self.n_failed} failed"]
        if self.run:
            r = self.run
            workers = r.get("workers", 1)
            lines[0] += (f" ({r.get('ran', 0)} run now in {r.get('wall_time', 0.0):.1f} s, "
                         f"{r.get('scheduler', '?')}, {workers} worker{'s' * (workers != 1)})")
        if self.n_failed:
            kinds = Counter(t for t, s in zip(self["error_type"], self["status"], strict=True)
                            if s == "failed")
            lines.append("failed: " + ", ".join(f"{n} {k}" for k, n in kinds.most_common()))
        ok = self.ok
        if self.metrics and ok.any():
            lines.append(f"{'metric (ok cases)':<28}{'min':>14}{'median':>14}{'max':>14}")
            for name in self.metrics:
                if self._list_valued(name):  # a poincare: metric: every point of the ok cases
                    v = np.concatenate([np.asarray(x, dtype=float) for x, good in zip(
                        self.table.column(name).to_pylist(), ok, strict=True)
                        if good and x is not None] + [np.zeros(0)])
                else:
                    v = np.asarray(self[name], dtype=float)[ok]
                v = v[np.isfinite(v)]
                if v.size:
                    lines.append(f"{name:<28}{v.min():>14.6g}{np.median(v):>14.6g}"
                                 f"{v.max():>14.6g}")
                else:
                    lines.append(f"{name:<28}{'-':>14}{'-':>14}{'-':>14}")
        if self.folder is not None:
            lines.append(f"store: {self.folder / 'cases.parquet'} (definition: "
                         f"{self.folder / 'sweep.json'})")
        return "\n".join(lines)

    def __repr__(self) -> str:
        shown = ["case", *self.parameters, "status", *self.metrics]
        shown = [c for c in shown if c in self.table.column_names][:8]
        head = self.table.slice(0, 6).select(shown).to_pylist()
        cells = [[_cell(r[c]) for c in shown] for r in head]
        widths = [max([len(c), *(len(row[k]) for row in cells)]) for k, c in enumerate(shown)]
        lines = [f"Study: {len(self)} cases ({self.n_ok} ok, {self.n_failed} failed)"
                 + (f" in {self.folder}" if self.folder else ""),
                 "  ".join(c.rjust(w) for c, w in zip(shown, widths, strict=True))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True))
                  for row in cells]
        if len(self) > len(head):
            lines.append(f"... {len(self) - len(head)} more rows (study.table, study[name])")
        return "\n".join(lines)


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):  # a poincare: metric's section values
        return f"[{len(value)} points]"
    text = str(value)
    return text if len(text) <= 24 else text[:21] + "..."


def open_study(folder) -> Study:
    """The :class:`Study` stored in ``folder`` (a sweep's ``store``), finished or not."""
    from .store import FIXED_COLUMNS, Store

    store = Store(folder)
    store.definition()  # a sweep's folder, or SweepError
    table = store.read()
    names = table.column_names  # case, the parameters, the fixed columns, the metrics
    first, last = names.index(FIXED_COLUMNS[0][0]), names.index(FIXED_COLUMNS[-1][0])
    return Study(table, folder=folder, parameters=names[1:first], metrics=names[last + 1:])
