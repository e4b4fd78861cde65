"""Where the cases run: in this process, on local worker processes, or on a Dask cluster.

Each scheduler is a context manager (started before the first case, stopped however the sweep
ends) whose :meth:`Scheduler.results` yields one row per case as the cases finish, in the order
they finish:

* ``"serial"`` (:class:`Serial`) -- one after another in this process (debugging: breakpoints
  and tracebacks work, a ``KeyboardInterrupt`` raised by a case stops the sweep);
* ``"processes"`` (:class:`Processes`, the default) -- a ``ProcessPoolExecutor`` of ``workers``
  processes (default: every core), started with ``spawn`` (clean interpreters: nothing is
  inherited from the caller's threads);
* ``"dask"`` (:class:`Dask`) -- a ``dask.distributed.LocalCluster`` of ``workers`` single-threaded
  worker processes, started for the sweep and closed after it (its worker processes end with
  the sweep's process however it ends: distributed's own watch of the parent);
* an address (``tcp://host:port``, :class:`Dask`) -- an existing Dask scheduler: its workers run
  the cases (they need nonsmooth installed, and for ``save_series`` the store's folder).

Workers receive the sweep's :class:`~nonsmooth.study.case.CaseRunner` pickled by cloudpickle
(once per worker) and return only rows. A case whose worker dies (a crash, the pool broken,
a Dask ``KilledWorker``) is a failed row naming that, like any failed case.
Scripts that use ``processes`` or ``dask`` need the usual ``if __name__ == "__main__":`` guard
(worker processes are spawned, and spawning imports the main module).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from .definition import SweepError

__all__ = ["Scheduler", "Serial", "Processes", "Dask", "make_scheduler", "SCHEDULERS",
           "WORKER_DIED"]

SCHEDULERS = ("serial", "processes", "dask")


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _failed_row(index: int, params: dict, exc: BaseException | None, metrics,
                error_type: str | None = None, message: str = "") -> dict:
    """The row of a case whose worker failed (``exc``), or with ``error_type`` and
    ``message``."""
    from .case import one_line

    if exc is not None:
        error_type = type(exc).__name__
        message = f"the worker running this case failed: {error_type}: {one_line(exc)}"
    return {"case": index, **params, "status": "failed", "error": message,
            "error_type": error_type, "warning": None, "wall_time": None,
            "evaluations": None, "t_reached": None, **{m: None for m in metrics}}


#: ``error_type`` of a case whose worker process died under it.
WORKER_DIED = "WorkerDied"


class Scheduler:
    """Runs cases. Subclasses implement :meth:`results` and, if they hold resources,
    ``__enter__`` / ``__exit__``.

    Attributes
    ----------
    name : str        how the summary names it
    workers : int     cases run at once
    """

    name = "scheduler"
    workers = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def results(self, runner, payload: bytes,
                cases: Iterable[tuple[int, dict]]) -> Iterator[dict]:
        """One row per ``(index, params)`` of ``cases`` as each finishes. ``runner`` is the
        :class:`~nonsmooth.study.case.CaseRunner`, ``payload`` the same pickled; ``cases`` is
        taken from as workers become free (a few cases ahead), never all at once."""
        raise NotImplementedError


class Serial(Scheduler):
    """One case after another in this process."""

    name = "serial"

    def results(self, runner, payload, cases):
        for index, params in cases:
            yield runner(index, params)


#: In a worker process: where it says which case it starts (the parent's queue).
_STARTED = None


def _init_worker(started, parent: int | None = None) -> None:
    """Worker initializer: Ctrl-C reaches the whole process group but the parent handles it;
    ``started`` is the queue the worker announces each case on before running it; the worker
    ends when its parent process (``parent``, the sweep's) does."""
    import signal

    global _STARTED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STARTED = started
    if parent is not None:
        _end_with_parent(parent)


#: Seconds between two looks of a worker's watcher thread at its parent process.
PARENT_POLL = 0.5


def _end_with_parent(parent: int) -> None:
    """End this process when process ``parent`` ends (a sweep killed by SIGKILL or the
    out-of-memory killer cannot stop its workers): on Linux at once (``prctl(PR_SET_PDEATHSIG,
    SIGKILL)``); everywhere, a daemon thread that looks every :data:`PARENT_POLL` s whether the
    parent is gone (this process re-parented, or on Windows the parent's id no longer alive)
    and exits."""
    import signal
    import sys
    import threading

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if not _parent_alive(parent):  # it died before the line above
        os._exit(1)

    def watch() -> None:
        import time

        while _parent_alive(parent):
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="nonsmooth-parent-watch", daemon=True).start()


def _parent_alive(parent: int) -> bool:
    """Whether process ``parent`` is still this process's parent."""
    if os.getppid() != parent:  # POSIX: an orphan is re-parented (to 1 or a subreaper)
        return False
    if os.name == "nt":  # Windows keeps the parent's id: ask whether it still runs
        try:
            import psutil
        except ImportError:
            return True
        return psutil.pid_exists(parent)
    return True


def _run_announced(payload: bytes, index: int, params: dict) -> dict:
    from .case import run_pickled

    if _STARTED is not None:
        _STARTED.put(index)  # written at once (a SimpleQueue): seen even if the worker dies
    row = run_pickled(payload, index, params)
    if _STARTED is not None:  # done: if its row is lost with a broken pool, it ran again
        _STARTED.put(-index - 1)
    return row


class Processes(Scheduler):
    """A pool of local worker processes (``spawn``).

    A worker that dies (a crash, ``os._exit``, the out-of-memory killer) breaks the pool: the
    cases it and the other workers were running become failed rows saying so (``resume``
    retries them), and the cases not started yet run on a new pool. The workers end when the
    sweep's process does, however it ends (:func:`_end_with_parent`: killed, they would
    otherwise wait for work forever, holding the caller's pipes).
    """

    name = "processes"

    def __init__(self, workers: int | None = None):
        self.workers = workers or default_workers()
        self._pool = self._started = None

    def __enter__(self):
        import multiprocessing

        self._context = multiprocessing.get_context("spawn")
        self._started = self._context.SimpleQueue()
        self._announced: set[int] = set()  # started, and not (known to be) finished
        self._start_pool()
        return self

    def _start_pool(self) -> None:
        from concurrent.futures import ProcessPoolExecutor

        self._pool = ProcessPoolExecutor(self.workers, mp_context=self._context,
                                         initializer=_init_worker,
                                         initargs=(self._started, os.getpid()))

    def __exit__(self, exc_type, exc, tb):
        pool, self._pool = self._pool, None
        if pool is None:
            return False
        if exc_type is None:
            pool.shutdown(wait=True)
            return False
        self._stop(pool)  # interrupted or failed: drop the queued cases, stop the running ones
        return False

    @staticmethod
    def _stop(pool) -> None:
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:
            if proc.is_alive():
                proc.terminate()
        for proc in processes:
            proc.join(timeout=5)

    def results(self, runner, payload, cases):
        import itertools

        source = iter(cases)
        metrics = [m.name for m in runner.definition.metrics]
        while True:
            lost = yield from self._round(payload, source, metrics)
            if lost is None:
                return
            running = self._announced & set(lost)
            if not running:  # nothing known to be running: do not retry forever
                running = set(lost)
            for i in sorted(running):
                self._announced.discard(i)
                yield _failed_row(
                    i, lost.pop(i), None, metrics, WORKER_DIED,
                    "a worker process died while this case was running (this case or another "
                    "running beside it crashed, called os._exit or ran out of memory); resume "
                    "retries it")
            self._stop(self._pool)
            self._start_pool()
            source = itertools.chain(list(lost.items()), source)  # not started: run again

    def _round(self, payload, source: Iterator, metrics):
        """Run the cases of ``source`` with at most :attr:`window` submitted at once (taken
        from ``source`` as others finish) and yield their rows; on a broken pool return the
        submitted cases that did not finish, ``{index: params}`` (None when ``source`` is
        exhausted and every case finished)."""
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        running: dict = {}  # future -> (index, params)
        exhausted = broken = False
        while True:
            while not (exhausted or broken) and len(running) < self.window:
                item = next(source, None)
                if item is None:
                    exhausted = True
                    break
                try:
                    future = self._pool.submit(_run_announced, payload, *item)
                except BrokenProcessPool:
                    return {**dict(running.values()), item[0]: item[1]}
                running[future] = item
            if not running:
                return None
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                i, params = running[future]
                try:
                    row = future.result()
                except BrokenProcessPool:
                    broken = True
                    continue
                except Exception as exc:  # the case's result could not come back (pickling ...)
                    row = _failed_row(i, params, exc, metrics)
                del running[future]
                self._drain()
                self._announced.discard(i)
                yield row
            if broken:
                self._drain()
                return dict(running.values())

    @property
    def window(self) -> int:
        """Cases submitted to the pool at once: a few per worker, so that no worker waits and
        the cases are generated as they are taken (a sweep's cases are never all held)."""
        return 4 * self.workers

    def _drain(self) -> None:
        """Read the cases the workers announced (the queue's pipe must never fill up): a
        start (the case's index) or an end (``-index - 1``: it finished, so a broken pool that
        loses its row did not die under it, and it runs again)."""
        while not self._started.empty():
            i = self._started.get()
            if i >= 0:
                self._announced.add(i)
            else:
                self._announced.discard(-i - 1)


class Dask(Scheduler):
    """A Dask cluster: a ``LocalCluster`` started for the sweep (``address=None``) or an
    existing scheduler at ``address``."""

    def __init__(self, address: str | None = None, workers: int | None = None):
        self.address = address
        self.workers = workers or default_workers()
        self.name = "dask" if address is None else f"dask at {address}"
        self._client = self._cluster = None

    def __enter__(self):
        import logging

        from distributed import Client, LocalCluster

        if self.address is None:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         silence_logs=logging.ERROR)
            self._client = Client(self._cluster)
            return self
        try:
            self._client = Client(self.address, timeout="10s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise SweepError(f"cannot connect to the Dask scheduler at {self.address} "
                             f"({type(exc).__name__}: {exc}); start one (dask scheduler; dask "
                             "worker ADDRESS) or use scheduler='processes'") from None
        self._check_workers()
        return self

    def _check_workers(self) -> None:
        try:
            found = self._client.run(_worker_version)
        except Exception as exc:
            raise SweepError(f"the Dask workers at {self.address} cannot run nonsmooth "
                             f"({type(exc).__name__}: {exc}); install it where they run") from None
        if not found:
            self.__exit__(None, None, None)
            raise SweepError(f"the Dask scheduler at {self.address} has no workers; start some "
                             f"(dask worker {self.address})")
        self.workers = len(found)

    def __exit__(self, *exc):
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        return False

    def results(self, runner, payload, cases):
        from distributed import as_completed

        from .case import run_pickled

        metrics = [m.name for m in runner.definition.metrics]
        source = iter(cases)
        futures: dict = {}  # submitted, not yet yielded: future -> (index, params)
        finished = as_completed()

        def submit() -> None:  # the next case, generated as it is taken
            item = next(source, None)
            if item is not None:
                future = self._client.submit(run_pickled, payload, *item, pure=False)
                futures[future] = item
                finished.add(future)

        try:
            for _ in range(4 * self.workers):  # a few per worker: none waits
                submit()
            for future in finished:
                item = futures.pop(future)
                submit()
                try:
                    yield future.result()
                except Exception as exc:  # KilledWorker, a lost connection ...
                    yield _failed_row(*item, exc, metrics)
        finally:
            self._client.cancel([f for f in futures if not f.done()])


def _worker_version() -> str:
    from .._distribution import version

    return version()


#: More local workers than this many per core are refused (a typo such as ``--workers 1000``:
#: each worker is a process of ~200 MB); between one and this many per core they are capped at
#: the core count, with a warning (a CPU-bound case gains nothing from a second process on a
#: core).
MAX_WORKERS_PER_CORE = 8


def check_cwd() -> None:
    """Refuse to start from a working folder that no longer exists (deleted after the shell
    entered it): spawned workers and relative paths need it (SweepError, one line)."""
    try:
        os.getcwd()
    except FileNotFoundError:
        raise SweepError("the working folder no longer exists (it was deleted or moved after "
                         "this shell entered it); cd into an existing folder and start again"
                         ) from None


def local_workers(workers: int | None) -> int:
    """The worker processes to start on this machine: ``workers`` (None: every core), capped
    at the core count with a warning; more than :data:`MAX_WORKERS_PER_CORE` per core are
    refused (SweepError)."""
    cores = default_workers()
    if workers is None:
        return cores
    if workers > MAX_WORKERS_PER_CORE * cores:
        raise SweepError(f"workers = {workers} is invalid: this machine has {cores} core(s); "
                         f"give at most {cores} (more than {MAX_WORKERS_PER_CORE} per core, "
                         "each a process of its own, is refused), or leave it out for every "
                         "core")
    if workers > cores:
        import warnings

        warnings.warn(f"workers = {workers} is more than the {cores} core(s) of this machine: "
                      f"{cores} worker process(es) started (a case uses one core; more "
                      "processes would only share them and use more memory)", UserWarning,
                      stacklevel=3)
        return cores
    return workers


def make_scheduler(scheduler: str, workers: int | None) -> Scheduler:
    """The scheduler named ``scheduler`` (:data:`SCHEDULERS` or an address ``tcp://...``),
    not yet started. Local workers (``processes``, ``dask``) are capped at the core count
    (:func:`local_workers`)."""
    if workers is not None and not (isinstance(workers, int) and workers >= 1):
        raise SweepError(f"workers = {workers!r} is invalid: give an integer >= 1, or None for "
                         f"every core ({default_workers()} here)")
    if not isinstance(scheduler, str):
        raise SweepError(f"scheduler = {scheduler!r}: give one of {', '.join(SCHEDULERS)} or a "
                         "Dask scheduler address (tcp://host:port)")
    if scheduler == "serial":
        return Serial()
    if scheduler in ("processes", "dask"):
        check_cwd()
    if scheduler == "processes":
        return Processes(local_workers(workers))
    if scheduler == "dask":
        return Dask(None, local_workers(workers))
    if "://" in scheduler:
        return Dask(scheduler, workers)
    raise SweepError(f"unknown scheduler {scheduler!r}; choose {', '.join(SCHEDULERS)} or a "
                     "Dask scheduler address (tcp://host:port)")
