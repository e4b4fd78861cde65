"""``sweep()``: one model over many parameter cases, on all cores or a Dask cluster, stored as
it goes and resumable.

The steps, each in its own module: check the definition (:mod:`.definition`, metric specs in
:mod:`.metrics`) and the store (:mod:`.store`) before anything runs; start the scheduler
(:mod:`.schedulers`); run the cases that are missing or failed (:mod:`.case`, in the workers),
writing each row to ``DIR/cases.parquet`` as it arrives; return the :class:`~.table.Study`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from .case import CaseRunner
from .definition import SweepError, define
from .schedulers import check_cwd, make_scheduler
from .store import Store
from .table import Study

__all__ = ["sweep"]


def sweep(model, grid: Mapping[str, Sequence] | None = None,
          cases: Sequence[Mapping] | None = None, *, store, t_end: float | None = None,
          method: str | None = None, dt: float | None = None,
          metrics: Sequence[str | Callable] = (), scheduler: str = "processes",
          workers: int | None = None, resume: bool = False, progress: bool | None = None,
          save_series: bool = False, options: Mapping | None = None,
          max_cases: int | None = None, **params) -> Study:
    """Run ``model`` for every case of a parameter study and return the table of cases.

    Parameters
    ----------
    model : str, path or callable
        A bundled model's name (``"stick_slip_oscillator"``), a model file (``.py`` with
        ``build(**params)``, or ``.xml``), or a build function ``f(**params) -> Model``. A build
        function (like a callable metric) is sent to the workers by cloudpickle: define it at
        module level; one that cannot be pickled is refused before anything runs.
    grid : dict {name: sequence}, optional
        Values of each swept parameter; the cases are the Cartesian product.
    cases : list of dict, optional
        Explicit cases ``{name: value}`` (each with the same names); with ``grid`` too, every
        case is combined with every grid point. Case ids are the positions in this order.
    store : path
        The sweep's folder: ``cases.parquet`` (written as cases finish), ``sweep.json``
        (definition, versions), ``series/``. Created if missing; a folder that holds another
        sweep is refused unless ``resume``.
    t_end, dt : float, optional
        End time and output spacing (fixed-step methods: the step) in s; default each case's
        model's own (``t_end`` may then be a swept parameter, as the bundled models have one).
    method : str, optional
        The integrator (``simulate``'s ``method``; default simulate's).
    metrics : sequence of str or callable
        One column each, computed in the worker from the run (:mod:`nonsmooth.study.metrics`:
        ``period:KIND``, ``count:KIND``, ``stick_fraction[:PAIR]``, ``max|min|rms|final:OUTPUT``;
        a callable ``f(result) -> float`` named by its ``__name__``).
    scheduler : str
        ``"processes"`` (default: every core), ``"serial"``, ``"dask"`` (a local Dask cluster)
        or the address of a Dask scheduler (``"tcp://host:port"``).
    workers : int, optional
        Processes / Dask workers (default: every core; an existing cluster: its workers).
        Local workers above the core count are capped at it with a warning; more than
        ``MAX_WORKERS_PER_CORE`` (8) per core are refused.
    resume : bool
        Continue the sweep stored in ``store``: run only the cases that are missing or failed
        (a finished case is never run again). The definition must be the stored one; what
        differs is named.
    progress : bool, optional
        A progress bar on stderr (cases done and failed, rate, ETA); default (None): only when
        stderr is a terminal.
    save_series : bool
        Also write each case's outputs to ``store/series/case_<id>.parquet``.
    options : dict, optional
        Other ``simulate`` options for every case (``rtol``, ``atol``, ``max_step``,
        ``friction``, ``max_evaluations``, ``timeout`` ...).
    max_cases : int, optional
        Most cases the sweep may have (default :data:`nonsmooth.limits.MAX_CASES`, 10^6: the
        store keeps about 1 kB per case while it runs); a larger sweep is refused before any
        case is generated. The cases are generated one at a time as the workers take them.
    **params
        Model parameters every case shares (the command line's ``--set``).

    Returns
    -------
    Study
        ``study.table`` (pyarrow), ``study[column]`` (numpy), ``study.summary()``.

    Raises
    ------
    SweepError, ModelError
        Bad input, before any case runs. A case that fails is a row (``status`` "failed",
        ``error``), never an exception. ``StoreInUseError`` (a SweepError): another sweep is
        using ``store`` (each sweep holds the store's lock file ``.sweep.lock`` while it runs).
    KeyboardInterrupt
        Interrupted: the cases finished so far are stored (``resume=True`` continues); the
        exception carries the partial study as ``exc.study``.
    """
    check_cwd()  # relative paths and spawned workers need it
    definition, _ = define(model, grid=grid, cases=cases, fixed=params, t_end=t_end, dt=dt,
                           method=method, options=options, metrics=metrics,
                           save_series=save_series, max_cases=max_cases)
    sched = make_scheduler(scheduler, workers)
    st = Store(store)
    st.lock()  # one sweep per store at a time (StoreInUseError), until this one ends
    try:
        st.check(definition, resume=resume)
        runner = CaseRunner(definition, str(st.series_dir) if save_series else None)
        payload = None if sched.name == "serial" else _pickled(runner)
        start = time.perf_counter()
        todo = 0
        try:
            with sched:
                stored = st.begin(definition)
                todo = len(definition.cases) - sum(r.get("status") == "ok"
                                                   for r in stored.values())
                pending = ((i, c) for i, c in enumerate(definition.cases)  # generated lazily
                           if stored.get(i, {}).get("status") != "ok")
                _run(sched, runner, payload, pending, todo, st, definition, progress)
        except KeyboardInterrupt as exc:  # also while the scheduler starts or stops
            if st.began:
                exc.study = _study(st, definition, sched, todo, start)
            raise
        return _study(st, definition, sched, todo, start)
    finally:
        st.unlock()


def _run(sched, runner, payload, pending: Iterator, todo: int, st: Store, definition,
         progress) -> None:
    """Run the ``todo`` pending cases (an iterator of ``(index, params)``), each row stored as
    it arrives (the table written however this ends)."""
    bar = _progress_bar(progress, todo, len(definition.cases), definition)
    failed = 0
    try:
        for row in sched.results(runner, payload, pending):
            st.add(row)
            failed += row["status"] != "ok"
            if bar is not None:
                bar.set_postfix_str(f"failed {failed}", refresh=False)
                bar.update()
    finally:
        st.flush()
        if bar is not None:
            bar.close()


def _study(st: Store, definition, sched, ran: int, start: float) -> Study:
    return Study(st.read(), folder=st.folder, parameters=definition.parameters,
                 metrics=[m.name for m in definition.metrics],
                 run={"scheduler": sched.name, "workers": sched.workers, "ran": ran,
                      "cases": len(definition.cases),
                      "wall_time": time.perf_counter() - start})


def _pickled(runner: CaseRunner) -> bytes:
    """The runner for the workers, or a SweepError saying what cannot be sent."""
    import cloudpickle

    try:
        return cloudpickle.dumps(runner)
    except Exception as exc:
        raise SweepError(
            f"the sweep cannot be sent to worker processes ({type(exc).__name__}: {exc}): a "
            "build function and callable metrics must be picklable (defined at module level, "
            "holding no open file, lock or connection); or use scheduler='serial'") from None


def _progress_bar(progress: bool | None, todo: int, total: int, definition):
    """The tqdm bar on stderr, or None (no bar: ``progress`` false, or None and stderr not a
    terminal; nothing to run)."""
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress or not todo:
        return None
    from tqdm import tqdm

    stored = total - todo
    name = definition.model.label.rsplit("/", 1)[-1]
    desc = f"sweep {name}" + (f" ({stored} stored)" if stored else "")
    return tqdm(total=todo, desc=desc, unit="case", file=sys.stderr, dynamic_ncols=True,
                smoothing=0.1)
