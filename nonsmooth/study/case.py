"""One case, where it runs (a worker process, a Dask worker or the caller): build, simulate,
compute the metrics, optionally write the time series, and return one table row.

Only the row (a few numbers) travels back: the time series never leave the worker. Every
failure of the case (the model refusing its parameters, jamming, a non-finite state, a used-up
budget, an exception in a user function or metric) is caught and becomes a row with
``status = "failed"``, its one-line ``error`` and ``error_type``; a metric that raises is
null in the row and named in its error (``MetricError``), the run's other metrics are kept
(``resume`` runs the case again). The first warning of a run (an energy balance error, a
dissipativity condition) goes to ``warning``. The case's
``timeout`` covers building its model too (a ``BuildTimeoutError`` row when ``build()`` takes
longer; the run gets what is left). Only an interrupt
(``KeyboardInterrupt``) propagates, to stop the sweep.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["CaseRunner", "run_pickled", "series_path", "build_within"]


def series_path(folder, index: int) -> Path:
    """``folder/<case id>.parquet``: the series file of case ``index``."""
    return Path(folder) / f"case_{index:06d}.parquet"


@dataclass
class CaseRunner:
    """Runs the cases of one sweep definition (picklable: sent once to each worker).

    Attributes
    ----------
    definition : SweepDefinition
    series_dir : str or None   where ``--save-series`` files go (must be reachable by the
                               workers: a shared file system for a remote Dask cluster)
    """

    definition: object
    series_dir: str | None = None

    def __call__(self, index: int, params: dict) -> dict:
        """The row of case ``index`` with swept values ``params``."""
        d = self.definition
        row = {"case": index, **params}
        start = time.perf_counter()
        result, error = None, None
        with warnings.catch_warnings(record=True) as caught:  # kept in the row, not printed
            warnings.simplefilter("always")
            try:
                case = {**d.fixed, **params}
                t_end, dt, options = d.settings(case)
                model = build_within(d.model, case, options.get("timeout"))
                if options.get("timeout") is not None:  # the build counts against the timeout
                    spent = time.perf_counter() - start
                    options = {**options, "timeout": max(options["timeout"] - spent, 1e-3)}
                result = self._simulate(model, t_end, dt, options)
            except Exception as exc:  # every failure of one case is a row
                error = exc
                result = getattr(exc, "result", result)
                metrics = {m.name: None for m in d.metrics}
            else:
                metrics, error = _metrics(d.metrics, result)
        row.update(status="ok" if error is None else "failed",
                   error=None if error is None else one_line(error),
                   error_type=None if error is None else type(error).__name__,
                   warning=one_line(caught[0].message) if caught else None,
                   wall_time=time.perf_counter() - start,
                   evaluations=_evaluations(result),
                   t_reached=_t_reached(result), **metrics)
        if self.series_dir is not None and result is not None and len(result.t):
            write_series(result, series_path(self.series_dir, index))
        return row

    def _simulate(self, model, t_end, dt, options: dict):
        from nonsmooth.simulate import simulate

        t_end = model.t_end if t_end is None else t_end
        dt = dt if dt is not None else (model.dt or t_end / 1000.0)
        dt = min(dt, t_end)
        extra = [times for m in self.definition.metrics
                 if (times := m.output_times(model, 0.0, t_end)) is not None]
        if extra:  # a stroboscopic section's times among the outputs, exactly
            from nonsmooth.run.schedule import _grid
            from nonsmooth.sections import merge_times

            t_eval = merge_times(_grid(0.0, t_end, dt), np.concatenate(extra))
            return simulate(model, t_end, method=self.definition.method, dt=dt,
                            t_eval=t_eval, throw=True, **options)
        return simulate(model, t_end, method=self.definition.method, dt=dt,
                        throw=True, **options)


class MetricError(Exception):
    """One or more metrics of a case raised (the run and the other metrics are kept): the
    message names each failed metric and its exception."""


def _metrics(metrics, result) -> tuple[dict, Exception | None]:
    """Each metric of ``result`` computed on its own: a metric that raises is None in the row
    and named in the case's error (a :class:`MetricError`: the metric, its exception's type and
    message); the others keep their values."""
    values, failed = {}, []
    for m in metrics:
        try:
            values[m.name] = m(result)
        except Exception as exc:
            values[m.name] = None
            failed.append(f"metric {m.name!r} raised {type(exc).__name__}: {one_line(exc)}")
    if not failed:
        return values, None
    kept = len(metrics) - len(failed)
    return values, MetricError("; ".join(failed) + (f" (the run's {kept} other metric(s) are "
                                                     "kept)" if kept else ""))


def build_within(source, params: dict, timeout: float | None):
    """``source.build(params)`` (a :class:`~nonsmooth.study.definition.ModelSource`), ended
    with a :class:`~nonsmooth.errors.BuildTimeoutError` after ``timeout`` s (None: no limit)."""
    from nonsmooth.timelimit import time_limit

    message = "" if timeout is None else (
        f"building the model took longer than the timeout of {timeout:g} s (--timeout, "
        "options['timeout']); build() never returned or is too slow")
    with time_limit(timeout, message):
        return source.build(params)


def one_line(exc: BaseException) -> str:
    """``exc``'s message on one line (whitespace runs collapsed)."""
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _evaluations(result) -> int | None:
    if result is None:
        return None
    return int(result.diagnostics.get("n_evaluations", 0))


def _t_reached(result) -> float | None:
    if result is None or not len(result.t):
        return None
    t = float(result.t[-1])
    return t if math.isfinite(t) else None


def write_series(result, path: Path) -> None:
    """The run's output columns (``Result.columns()``: t and the model's outputs) as Parquet,
    written to a temporary name and moved into place (a reader never sees half a file)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({c: result[c] for c in result.columns()})
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


# ------------------------------------------------------------------------------ in a worker
_RUNNERS: dict[str, CaseRunner] = {}


def run_pickled(payload: bytes, index: int, params: dict) -> dict:
    """Run case ``index`` of the :class:`CaseRunner` pickled (cloudpickle) in ``payload``;
    the runner is unpickled once per worker process and kept."""
    key = hashlib.sha1(payload).hexdigest()
    runner = _RUNNERS.get(key)
    if runner is None:
        import cloudpickle

        runner = _RUNNERS[key] = cloudpickle.loads(payload)
    return runner(index, params)
