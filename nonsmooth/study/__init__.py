"""Studies at scale: one model over many parameter cases (:func:`sweep`).

Modules, one concept each: ``definition`` (the checked sweep: model, cases, run settings;
``SweepError``), ``metrics`` (the metric specs and their computation), ``case`` (one case in a
worker: build, simulate, metrics, series), ``schedulers`` (serial, local processes, Dask),
``store`` (``cases.parquet``, ``sweep.json``, ``series/``), ``table`` (``Study``: the table of
cases), ``sweep`` (the orchestration). pyarrow, tqdm, cloudpickle and dask are imported only
when a sweep runs, so ``import nonsmooth`` stays fast.
"""

from .definition import SweepError, parse_grid
from .metrics import EVENT_KINDS, METRIC_KINDS
from .schedulers import SCHEDULERS
from .sweep import sweep
from .table import Study, open_study

__all__ = ["sweep", "Study", "open_study", "SweepError", "parse_grid", "EVENT_KINDS",
           "METRIC_KINDS", "SCHEDULERS"]
