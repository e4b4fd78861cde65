"""The command line: ``nonsmooth run | compare | sweep | fit | models | reproduce``.

User errors print one line (``nonsmooth: error: ...``) and exit with code 2, never a traceback.
A run that fails or is interrupted writes what it computed to its output files and says so in
one line. Exit codes:

* 0 -- done;
* 1 -- the run failed partway (non-finite state, jamming, budget used up ...): the rows up to the
  failure and the event log so far are written to ``--out`` / ``--events``;
  or an output could not be written after the run (a full disk): the data / event log go to a
  rescue file (``nonsmooth-rescue-<model>-<what>-*.csv`` in the working or temporary folder)
  named in the error line;
* 2 -- bad input (unknown model or parameter, out-of-range value, unwritable output path,
  broken model file ...), or a run that failed before its first output;
* 130 -- interrupted by Ctrl-C (SIGINT), 143 -- terminated (SIGTERM): partial outputs written.

``nonsmooth sweep`` exits with 0 when every case has a row (failed cases are rows: the summary
counts them), 2 on bad input (nothing run), 130 / 143 when interrupted (the finished cases are
kept in the store; ``--resume`` continues).

``nonsmooth fit`` prints the table of estimates and exits with 0 (an identifiability or
lack-of-fit warning is one ``nonsmooth: warning:`` line on stderr), 2 on bad input or bad data
(``DataError``), 1 when the runs the fit needs fail or its ``--timeout`` is reached
(``FitError``), 130 / 143 when interrupted; a fit stopped early (timeout, interrupt) prints the
best estimates its runs reached, their residual and the iterations, and draws ``--plot``.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from pathlib import Path

from .errors import ModelError, NonsmoothError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise _UserError(f"{message} (see '{self.prog} --help')")


class _UserError(Exception):
    pass


EXIT_FAILED, EXIT_USAGE, EXIT_SIGINT, EXIT_SIGTERM = 1, 2, 130, 143


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that a run ends like an interrupt (partial
    outputs written) and the process exits with 143."""

    signal_name = "SIGTERM"


def _on_sigterm(signum, frame):
    raise _Terminated()


class _DeferredSignals:
    """While a run's outputs are written: a first SIGINT / SIGTERM is recorded and the writing
    goes on, so that no file is left cut short; a second one stops the writing (each file is
    written under a temporary name and renamed when complete: :func:`_atomic`, so a file
    stopped halfway is not left either). Main thread only (elsewhere signals are not ours)."""

    def __init__(self):
        self.received: int | None = None
        self._saved: dict = {}

    def __enter__(self):
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._saved[sig] = signal.signal(sig, self._on_signal)
        return self

    def _on_signal(self, signum, frame):
        if self.received is not None:  # the second signal: stop writing
            raise _Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
        self.received = signum

    def __exit__(self, *exc):
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        return False

    def interrupt(self) -> KeyboardInterrupt | None:
        """The interrupt a recorded signal stands for (None if none came)."""
        if self.received is None:
            return None
        return _Terminated() if self.received == signal.SIGTERM else KeyboardInterrupt()


def _atomic(write, path: str) -> None:
    """``write(path)`` through a temporary file beside ``path`` (same suffix: the format is
    chosen by it), renamed into place when complete: a write that is stopped leaves no file
    that looks complete. A device or a pipe (``/dev/null``) is written as it is."""
    p = Path(path)
    if p.exists() and not p.is_file():
        write(path)
        return
    tmp = p.with_name(f".{p.stem}.{os.getpid()}.partial{p.suffix}")
    try:
        write(str(tmp))
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _interrupted(exc: KeyboardInterrupt, text: str = "", detail: str = "") -> int:
    """Say one line about an interrupt (``text``, default "interrupted (SIGINT)", then
    ``detail``) and return its exit code: 130 for SIGINT, 143 for SIGTERM."""
    name = getattr(exc, "signal_name", "SIGINT")
    print(f"nonsmooth: {text or f'interrupted ({name})'}{detail}", file=sys.stderr)
    return EXIT_SIGTERM if name == "SIGTERM" else EXIT_SIGINT


#: File formats matplotlib writes (by the plot file's suffix).
PLOT_FORMATS = (".png", ".pdf", ".svg", ".svgz", ".eps", ".ps", ".jpg", ".jpeg", ".tif",
                ".tiff", ".webp", ".pgf")


#: Table formats of ``run --out`` / ``--events`` (by the file's suffix; none: CSV).
TABLE_FORMATS = {"": "csv", ".csv": "csv", ".txt": "csv", ".dat": "csv", ".parquet": "parquet",
                 ".pq": "parquet"}
_FORMAT_NAMES = {"csv": "CSV", "parquet": "Parquet"}


def _output_path(path: str, option: str, what: str, example: str,
                 tables: tuple[str, ...] = ("csv",)) -> str:
    """Check before the run that ``path`` can be written (a non-empty name, not a folder, its
    folder exists and is writable, a table's suffix names one of the ``tables`` formats); a
    plot path without a suffix gets ``.png`` unless it exists as a device (``/dev/null``)."""
    if not path.strip():
        raise _UserError(f"{option} {path!r}: the file name is empty; give a file name, e.g. "
                         f"{option} {example}")
    p = Path(path)
    if p.is_dir():
        raise _UserError(f"{option} {path} is a folder; give a file name, e.g. "
                         f"{p / example}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise _UserError(f"cannot write the {what} to {path} ({option}): the folder {folder} "
                         "does not exist; create it first")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise _UserError(f"cannot write the {what} to {path} ({option}): permission denied; "
                         "choose another location")
    if option == "--plot":
        if not p.suffix:
            device = p.exists() and not p.is_file()  # /dev/null, a pipe: written as it is
            return path if device else str(p.with_suffix(".png"))
        if p.suffix.lower() not in PLOT_FORMATS:
            raise _UserError(f"--plot {path}: unknown image format {p.suffix!r}; use one of "
                             f"{', '.join(PLOT_FORMATS)}")
        return path
    if option == "--animate":  # its formats: nonsmooth.spatial.animation.check_path
        return path
    if TABLE_FORMATS.get(p.suffix.lower()) not in tables:
        known = [s for s, f in TABLE_FORMATS.items() if s and f in tables]
        formats = " or ".join(_FORMAT_NAMES[f] for f in tables)
        raise _UserError(f"{option} {path}: the {what} is written as {formats}, not "
                         f"{p.suffix!r}; name the file with one of the suffixes "
                         f"{', '.join(known)}")
    return path


def _distinct_outputs(*named: tuple[str, str | None]) -> None:
    """Refuse one file for two outputs (``("--out", path), ("--events", path), ...``): the
    paths are compared resolved (``./a.csv``, ``a.csv`` and a symbolic link to it are one)."""
    seen: dict[Path, str] = {}
    for option, path in named:
        if not path:
            continue
        resolved = Path(path).resolve()
        for other, where in seen.items():
            same = other == resolved or (other.exists() and resolved.exists()
                                         and os.path.samefile(other, resolved))
            if same:
                raise _UserError(f"{where} and {option} name the same file {path}: the second "
                                 "would overwrite the first; give each output its own file")
        seen[resolved] = option


class _Progress:
    """A one-line progress display on stderr for runs longer than a second (tty only)."""

    def __init__(self, t0, t_end, stream=None):
        stream = sys.stderr if stream is None else stream  # the current one, not the import's
        self.t0, self.t_end, self.stream = t0, t_end, stream
        self.start = self.last = time.perf_counter()
        self.active = stream.isatty()
        self.shown = False

    def __call__(self, t):
        if not self.active:
            return
        now = time.perf_counter()
        if now - self.last < 0.25 or now - self.start < 1.0:
            return
        self.last = now
        frac = (t - self.t0) / (self.t_end - self.t0)
        self.stream.write(f"\r  t = {t:.4g} / {self.t_end:g} s ({100 * frac:5.1f} %)")
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\r" + " " * 40 + "\r")
            self.stream.flush()


def _parse_set(items) -> dict[str, str]:
    """``--set NAME=VALUE`` (repeatable) as ``{name: value}``; a name given twice is refused
    (the last would silently win)."""
    values: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise _UserError(f"--set expects NAME=VALUE, got {item!r}")
        name = name.strip()
        if name in values:
            raise _UserError(f"--set {name} is given twice ({name}={values[name]}, "
                             f"{name}={value.strip()}); give each parameter once")
        values[name] = value.strip()
    return values


def _parse_grids(items) -> dict[str, list]:
    """``--grid NAME=VALUES`` (repeatable) as ``{name: values}``; a name given twice is refused
    (the first grid would silently be dropped)."""
    from .study import parse_grid

    grid: dict[str, list] = {}
    given: dict[str, str] = {}
    for text in items or ():
        name, values = parse_grid(text)
        if name in grid:
            raise _UserError(f"--grid {name} is given twice ({given[name]!r}, {text!r}); give "
                             f"each parameter one grid, e.g. --grid {name}=V1,V2,V3")
        grid[name], given[name] = values, text
    return grid


def _cmd_models(args):
    from .models import available, load

    for name in available():
        mod = load(name)
        print(f"{name}: {mod.DESCRIPTION}")
        for p in mod.PARAMETERS:
            default = (p.default if isinstance(p.default, str) else "-" if p.default is None
                       else f"{p.default:.6g}")
            unit = f"[{p.unit}]"
            print(f"    {p.name:<12} = {default:<9} {unit:<12} {p.description} "
                  f"({p.range_text()})")
    return 0


def _build(args):
    """The model of ``args``; ``--timeout`` covers building it (a ``build()`` that never
    returns is interrupted: BuildTimeoutError), and the run gets the time left."""
    from .models import build
    from .timelimit import time_limit

    timeout = getattr(args, "timeout", None)
    if timeout is None:
        return build(args.model, **_parse_set(args.set))
    if not (math.isfinite(timeout) and timeout > 0):
        raise _UserError(f"--timeout {timeout:g} is invalid: it must be > 0 s")
    start = time.perf_counter()
    with time_limit(timeout, f"building the model took longer than --timeout {timeout:g} s"):
        model = build(args.model, **_parse_set(args.set))
    args.timeout = max(timeout - (time.perf_counter() - start), 1e-3)
    return model


def _tstops(text: str) -> list[float]:
    """``--tstops 0.4,0.9``: the time stops (s), comma separated, increasing (the run checks
    that they lie inside its span)."""
    try:
        times = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--tstops {text!r}: give times in s separated by commas (no empty item), e.g. "
            "--tstops 0.4,0.9") from None
    bad = [t for t in times if not math.isfinite(t)]
    if bad or not times:
        raise argparse.ArgumentTypeError(f"--tstops {text!r}: every time must be a finite "
                                         "number of seconds, e.g. --tstops 0.4,0.9")
    for a, b in zip(times, times[1:], strict=False):
        if b <= a:
            raise argparse.ArgumentTypeError(
                f"--tstops {text!r}: the times must increase ({a:g} is followed by {b:g}); "
                f"give them in increasing order, e.g. --tstops "
                f"{','.join(f'{t:g}' for t in sorted(set(times)))}")
    return times


def _check_method(method):
    from .errors import UnknownMethodError
    from .run.methods import method_for

    if method is not None:
        try:
            method_for(method)
        except UnknownMethodError as error:
            raise _UserError(str(error)) from None


def _check_laws(laws):
    from .friction import LAWS

    for law in laws:
        if law not in LAWS:
            raise _UserError(f"unknown friction law {law!r}; choose from {', '.join(LAWS)}")


def _run_options(args, model):
    """End time, step and budget of a run from the command line and the model's defaults."""
    t_end = model.t_end if args.t_end is None else args.t_end
    dt = args.dt if args.dt is not None else (model.dt or t_end / 1000.0)
    if not (math.isfinite(t_end) and t_end > 0):
        raise _UserError(f"--t-end {t_end:g} is invalid: the end time must be > 0 s and finite")
    if not (math.isfinite(dt) and dt > 0):
        raise _UserError(f"--dt {dt:g} is invalid: the step must be > 0 s and finite")
    if args.max_evaluations is not None and args.max_evaluations <= 0:
        raise _UserError(f"--max-evaluations {args.max_evaluations} is invalid: it must be > 0")
    if args.timeout is not None and not (math.isfinite(args.timeout) and args.timeout > 0):
        raise _UserError(f"--timeout {args.timeout:g} is invalid: it must be > 0 s")
    budget = {"timeout": args.timeout}
    if args.max_evaluations is not None:
        budget["max_evaluations"] = args.max_evaluations
    return t_end, dt, budget


def _cmd_run(args):
    from .simulate import simulate

    model = _build(args)
    _check_method(args.method)
    if args.friction:
        _check_laws([args.friction])
    method = args.method  # None: simulate's own default (the summary says which ran)
    t_end, dt, budget = _run_options(args, model)
    if args.t_end is None and model.span_note:  # a default span (simulate is given t_end)
        import warnings

        warnings.warn(model.span_note, UserWarning, stacklevel=2)
    both = ("csv", "parquet")
    out = _given(args.out, "--out", "data", "out.csv", both)
    events = _given(args.events, "--events", "event log", "events.csv", both)
    plot = _given(args.plot, "--plot", "plot", "plot.png")
    anim = _animation_path(args.animate, model, t_end)
    _distinct_outputs(("--out", out), ("--events", events), ("--plot", plot),
                      ("--animate", anim))
    progress = _Progress(0.0, t_end)
    interrupt = None
    try:
        result = simulate(model, t_end, method=method, dt=dt, progress=progress,
                          friction=args.friction, tstops=args.tstops, throw=False, **budget)
    except KeyboardInterrupt as exc:
        interrupt, result = exc, getattr(exc, "result", None)
    finally:
        progress.close()
    if interrupt is None and result.status >= 0:
        print(result.summary())
    rows = 0 if result is None else len(result.t)
    if interrupt is None and result.status < 0 and rows == 0:
        raise _UserError(result.message)  # nothing was computed: the input is at fault
    partial = interrupt is not None or result.status < 0
    try:
        with _DeferredSignals() as deferred:  # a signal now: the files are finished first
            written, lost = _write_run_outputs(result, model, out, events, plot, quiet=partial,
                                               animation=anim) if rows else ([], "")
    except KeyboardInterrupt as exc:  # a second signal: the file being written is dropped
        done = getattr(exc, "written", [])
        return _interrupted(exc, detail=(
            f" while the outputs were written: {', '.join(done) or 'nothing'} written "
            f"({rows} rows, t = {result.t[0]:g} .. {result.t[-1]:g} s); the file being "
            "written when it came was not kept (no partial file is left)"))
    if deferred.received is not None and not partial:  # the run had finished
        whole = (f"; the run had finished: its {rows} rows (t = {result.t[0]:g} .. "
                 f"{result.t[-1]:g} s, the whole run) written to {', '.join(written)}"
                 if written else "; the run had finished") + (f"; {lost}" if lost else "")
        return _interrupted(deferred.interrupt(), "interrupted "
                            f"({signal.Signals(deferred.received).name}) while the outputs "
                            "were written, which were finished first", whole)
    if interrupt is None and deferred.received is not None:  # a failed run, then a signal
        interrupt = deferred.interrupt()
    if not partial:
        if lost:
            print(f"nonsmooth: error: the run finished but {lost}".replace("\n", " "),
                  file=sys.stderr)
            return EXIT_FAILED
        return 0
    where = (f"; partial results ({rows} rows, t = {result.t[0]:g} .. {result.t[-1]:g} s) "
             f"written to {', '.join(written)}" if written else
             "; nothing written (no --out/--events/--plot given)" if rows and not lost else "")
    where += f"; {lost}" if lost else ""
    if interrupt is not None:
        return _interrupted(interrupt, result.message if result is not None else "", where)
    print(f"nonsmooth: error: the run failed: {result.message}{where}".replace("\n", " "),
          file=sys.stderr)
    return EXIT_FAILED


def _given(path: str | None, option: str, what: str, example: str,
           tables: tuple[str, ...] = ("csv",)) -> str | None:
    """``_output_path`` of an option that was given (an empty name included), else None."""
    return None if path is None else _output_path(path, option, what, example, tables)


def _table(path: str) -> str:
    """The table format of ``path`` by its suffix (``TABLE_FORMATS``)."""
    return TABLE_FORMATS.get(Path(path).suffix.lower(), "csv")


def _rescue_file(model_name: str, what: str) -> Path:
    """A new file for output that could not be written where asked: in the working folder,
    else the temporary folder (``nonsmooth-rescue-<model>-<what>-XXXX.csv``)."""
    import re
    import tempfile

    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"nonsmooth-rescue-{model_name}-{what}-")
    for folder in (os.getcwd(), tempfile.gettempdir()):
        try:
            fd, name = tempfile.mkstemp(prefix=stem, suffix=".csv", dir=folder)
        except OSError:
            continue
        os.close(fd)
        return Path(name)
    raise OSError("no writable folder for a rescue file")


def _write_each(targets, quiet: bool) -> tuple[list[str], list[str]]:
    """Write each ``(path, write(path), what)`` whose path is given, going on past a failed
    one; returns the paths written and a sentence per failed write."""
    written, failed = [], []
    for path, fn, what in targets:
        if not path:
            continue
        try:
            _atomic(fn, path)
        except KeyboardInterrupt as exc:  # stopped while writing: say what was written
            exc.written = written
            raise
        except OSError as exc:
            failed.append(f"cannot write the {what} to {path} ({exc.strerror or exc})")
            continue
        written.append(path)
        if not quiet:
            print(f"wrote {what} to {path}")
    return written, failed


def _animation_path(path: str | None, model, t_end: float) -> str | None:
    """``--animate``'s path, checked before the run: a spatial model, a ``.gif`` (``.mp4``
    with ffmpeg) in an existing, writable folder, and at most ``MAX_FRAMES`` frames for a run
    to ``t_end`` (s) (:mod:`nonsmooth.spatial.animation`)."""
    if path is None:
        return None
    from .spatial.animation import (
        MAX_FRAMES,
        check_frames,
        check_path,
        frame_count,
        spatial_system,
    )

    spatial_system(model)
    _output_path(path, "--animate", "animation", "run.gif")
    check_path(path)
    try:
        check_frames(0.0, t_end)
    except ModelError:
        raise _UserError(f"--animate {path}: a run to --t-end {t_end:g} s is "
                         f"{frame_count(0.0, t_end)} frames at 30 per second, more "
                         f"than the {MAX_FRAMES} allowed; give --t-end "
                         f"{(MAX_FRAMES - 1) / 30.0:g} or less, or animate part of the result "
                         "in Python (result.animate(path, fps, speed=...))") from None
    return path


def _write_run_outputs(result, model, out, events, plot, quiet: bool,
                       animation: str | None = None) -> tuple[list[str], str]:
    """Write a run's outputs after it; returns the paths written and a sentence on those that
    failed ("" if none did). The data and the event log of a failed write (the data too when
    only the plot failed and no --out was written) go to a rescue file named there: a failed
    write loses nothing that was computed."""
    def data(path):
        return result.to_parquet(path) if _table(path) == "parquet" else result.to_csv(path)

    def log(path):
        return (result.events_to_parquet(path) if _table(path) == "parquet"
                else result.events_to_csv(path))

    targets = [(out, data, "data"), (events, log, "event log")]
    if len(result.t) > 1:
        fmt = "png" if plot and not Path(plot).suffix else None
        targets.append((plot, lambda p: result.plot(path=p, format=fmt), "plot"))
        targets.append((animation, lambda p: result.animate(p), "animation"))
    written, failed = _write_each(targets, quiet)
    if not failed:
        return written, ""
    rescue = {what: csv for path, _, what, csv in
              ((out, None, "data", result.to_csv), (events, None, "event log",
                                                   result.events_to_csv))
              if path and path not in written}
    drawn = [p for p in (plot, animation) if p]
    if any(p not in written for p in drawn) and not (out and out in written):
        rescue.setdefault("data", result.to_csv)  # the plot's data: it can be redrawn
    saved = [_rescue(getattr(model, "name", "model"), what, csv, written)
             for what, csv in rescue.items()]
    return written, "; ".join(failed + saved)


def _rescue(name: str, what: str, write, written: list) -> str:
    """Write ``what`` with ``write(path)`` to a rescue file (appended to ``written``); the
    sentence saying where, or that it could not be saved."""
    try:
        path = _rescue_file(name, what.replace(" ", "_"))
        write(path)
    except OSError as exc:
        return f"the {what} could not be saved elsewhere either ({exc.strerror or exc})"
    written.append(str(path))
    return f"the {what} was written to {path} instead"





def _cmd_compare(args):
    from .compare import compare

    _check_laws(args.friction)
    if len(args.friction) < 2 or len(set(args.friction)) != len(args.friction):
        raise _UserError(f"--friction needs at least two different laws, got "
                         f"{' '.join(args.friction)}")
    model = _build(args)
    _check_method(args.method)
    if args.t_end is not None and not (math.isfinite(args.t_end) and args.t_end > 0):
        raise _UserError(f"--t-end {args.t_end:g} is invalid: the end time must be > 0 s")
    if args.dt is not None and not (math.isfinite(args.dt) and args.dt > 0):
        raise _UserError(f"--dt {args.dt:g} is invalid: the step must be > 0 s")
    _, _, budget = _run_options(args, model)
    out = _given(args.out, "--out", "comparison table", "compare.csv")
    plot = _given(args.plot, "--plot", "overlay plot", "compare.png")
    _distinct_outputs(("--out", out), ("--plot", plot))
    print(f"comparing {model.name} under {', '.join(args.friction)} ...", file=sys.stderr)
    try:
        comparison = compare(model, args.friction, args.t_end, method=args.method, dt=args.dt,
                             tstops=args.tstops, **budget)
    except (NonsmoothError, ValueError, KeyboardInterrupt) as exc:
        done = getattr(exc, "comparison", None)
        written = []
        if done is not None and len(done.laws) >= 1:  # the laws that finished
            for path, fn, what in ((out, done.to_csv, "comparison table"),
                                   (plot, done.plot, "overlay plot")):
                if path:
                    _write(lambda fn=fn, path=path: fn(path), path, what, quiet=True)
                    written.append(path)
        where = (f"; the table of the laws that finished ({', '.join(done.laws)}) written to "
                 f"{', '.join(written)}" if written else "")
        if isinstance(exc, KeyboardInterrupt):
            return _interrupted(exc, detail=where)
        if done is None or not done.laws and getattr(exc, "result", None) is None:
            raise
        print(f"nonsmooth: error: {exc}{where}".replace("\n", " "), file=sys.stderr)
        return EXIT_FAILED
    print(comparison.summary())
    return _write_comparison(comparison, model, out, plot)


def _write_comparison(comparison, model, out, plot) -> int:
    """Write a finished comparison's table and plot; a failed write keeps the table in a rescue
    file (named in the error line) and returns 1."""
    fmt = "png" if plot and not Path(plot).suffix else None
    written, failed = _write_each(
        [(out, comparison.to_csv, "comparison table"),
         (plot, lambda p: comparison.plot(path=p, format=fmt), "overlay plot")], quiet=False)
    if failed:  # the table is the result: kept in a rescue file
        if out not in written:
            failed.append(_rescue(model.name, "comparison table", comparison.to_csv, written))
        print(f"nonsmooth: error: the comparison finished but {'; '.join(failed)}",
              file=sys.stderr)
        return EXIT_FAILED
    return 0


def _write(fn, path, what, quiet=False):
    try:
        fn()
    except OSError as exc:
        raise _UserError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None
    if not quiet:
        print(f"wrote {what} to {path}")


def _cmd_reproduce(args):
    from .reproduce import REPRODUCTIONS

    name = args.name.replace("_", "-")
    if name not in REPRODUCTIONS:
        raise _UserError(f"unknown reproduction {args.name!r}; available: "
                         f"{', '.join(REPRODUCTIONS)}")
    out = Path(args.outdir)
    if out.exists() and not out.is_dir():
        raise _UserError(f"--outdir {out} is a file; give a folder")
    before = set(out.iterdir()) if out.is_dir() else set()
    try:
        REPRODUCTIONS[name](args.outdir)
    except OSError as exc:
        raise _UserError(f"cannot write {exc.filename or args.outdir}: "
                         f"{exc.strerror or exc}") from None
    except (NonsmoothError, KeyboardInterrupt) as exc:
        made = sorted(set(out.iterdir()) - before) if out.is_dir() else []
        kept = (f"; the {len(made)} file(s) written before it are kept in {out}" if made
                else "; nothing was written")
        if isinstance(exc, KeyboardInterrupt):
            return _interrupted(exc, detail=kept)
        print(f"nonsmooth: error: the reproduction failed: {exc}{kept}".replace("\n", " "),
              file=sys.stderr)
        return EXIT_FAILED
    return 0


def _cmd_sweep(args):
    from .study import sweep

    grid = _parse_grids(args.grid)
    if not grid:
        raise _UserError("give at least one --grid NAME=V1,V2,... or NAME=START:STOP:NUM")
    if not args.metric:
        raise _UserError("give at least one --metric SPEC (e.g. period:reserve_zero, max:x, "
                         "stick_fraction)")
    options = _sweep_options(args)
    plot = _sweep_plot(args)
    try:
        study = sweep(args.model, grid, store=args.store, t_end=args.t_end, dt=args.dt,
                      method=args.method, metrics=args.metric, scheduler=args.scheduler,
                      workers=args.workers, resume=args.resume, save_series=args.save_series,
                      progress=sys.stderr.isatty(),
                      options=options, **_parse_set(args.set))
    except KeyboardInterrupt as exc:
        study = getattr(exc, "study", None)
        kept = (f": {len(study)} of {study.run.get('cases', len(study))} cases stored in "
                f"{study.folder / 'cases.parquet'}; continue with --resume"
                if study is not None else "")
        return _interrupted(exc, detail=kept)
    print(study.summary())
    if plot is not None:
        metric = next(m for m in args.metric if m.startswith("poincare:"))
        fmt = "png" if not Path(plot).suffix else None
        study.plot_bifurcation(metric, path=plot, format=fmt)
        print(f"bifurcation diagram ({metric} against {study.parameters[0]}) written to {plot}")
    failed = study.rows("failed")
    for row in failed[:5]:
        values = ", ".join(f"{k}={row[k]}" for k in study.parameters)
        print(f"  case {row['case']} ({values}): {row['error_type']}: {row['error']}"[:300])
    if len(failed) > 5:
        print(f"  ... {len(failed) - 5} more failed cases (status 'failed' in the table)")
    return 0


def _parse_fit_params(items) -> tuple[list[str], dict[str, float]]:
    """``--param NAME`` or ``--param NAME=X0`` (repeatable): the names and the initial values
    given."""
    names, x0 = [], {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        if not name:
            raise _UserError(f"--param expects NAME or NAME=INITIAL, got {item!r}")
        if name in names:
            raise _UserError(f"--param {name} is given twice; give each parameter once")
        names.append(name)
        if sep:
            x0[name] = _number(value, f"--param {name}")
    return names, x0


def _number(text: str, option: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _UserError(f"{option}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise _UserError(f"{option}: {text.strip()!r} must be a finite number")
    return value


def _parse_bounds(items, names) -> dict[str, tuple]:
    """``--bounds NAME=LOWER:UPPER`` (either side may be empty: the model's range)."""
    bounds: dict[str, tuple] = {}
    for item in items or ():
        name, sep, spec = item.partition("=")
        name = name.strip()
        lo, colon, hi = spec.partition(":")
        if not sep or not colon or not name:
            raise _UserError(f"--bounds expects NAME=LOWER:UPPER (a side may be empty), got "
                             f"{item!r}")
        if name not in names:
            raise _UserError(f"--bounds {name}: not a fitted parameter (--param: "
                             f"{', '.join(names) or 'none'})")
        bounds[name] = tuple(None if not v.strip() else _number(v, f"--bounds {name}")
                             for v in (lo, hi))
    return bounds


def _cmd_fit(args):
    from .errors import FitError
    from .fit import fit

    names, x0 = _parse_fit_params(args.param)
    if not names:
        raise _UserError("give at least one --param NAME (a model parameter to fit)")
    bounds = _parse_bounds(args.bounds, names)
    _check_method(args.method)
    if args.law:
        _check_laws([args.law])
    for option, value in (("--t-end", args.t_end), ("--rtol", args.rtol),
                          ("--timeout", args.timeout)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise _UserError(f"{option} {value:g} is invalid: it must be > 0 and finite")
    if args.max_evaluations is not None and args.max_evaluations <= 0:
        raise _UserError(f"--max-evaluations {args.max_evaluations} is invalid: it must be > 0")
    plot = _given(args.plot, "--plot", "plot", "fit.png")
    options = {k: v for k, v in (("method", args.method), ("rtol", args.rtol),
                                 ("max_evaluations", args.max_evaluations)) if v is not None}
    from .models import load

    load(args.model)  # an unknown model is named before the data are read
    if not Path(args.data).is_file():
        raise _UserError(f"data file {args.data} does not exist (give a CSV file with a header "
                         "row: t and the measured outputs)")
    try:
        result = fit(args.model, args.data, names, law=args.law, outputs=args.output or None,
                     x0=x0 or None, bounds=bounds or None, fixed=_parse_set(args.set),
                     t_span=args.t_end, options=options, scheduler=args.scheduler,
                     workers=args.workers, timeout=args.timeout)
    except (FitError, KeyboardInterrupt) as exc:
        partial = getattr(exc, "fit", None)  # the best point so far of a stopped fit
        where = _partial_fit_report(partial, plot)
        if isinstance(exc, KeyboardInterrupt):
            return _interrupted(exc, detail=where)
        text = "the fit stopped" if partial is not None else "the fit failed"
        print(f"nonsmooth: error: {text}: {exc}{where}".replace("\n", " "), file=sys.stderr)
        return EXIT_FAILED
    print(result.summary(notes=False))  # the identifiability warnings went to stderr
    if plot:
        fmt = "png" if not Path(plot).suffix else None
        _write(lambda: result.plot(plot, format=fmt), plot, "plot")
    return 0


def _cmd_measure(args):
    from .measure import simulated_measurements, write_csv

    out = _output_path(args.out, "--out", "data", "measured.csv")
    _check_method(args.method)
    options = {"method": args.method} if args.method else {}
    data = simulated_measurements(args.model, args.output, t_end=args.t_end,
                                  samples=args.samples, noise=args.noise, seed=args.seed,
                                  params=_parse_set(args.set), **options)
    _write(lambda: write_csv(data, out), out, "data")
    return 0


def _partial_fit_report(partial, plot: str | None) -> str:
    """Print a stopped fit's best point so far (its table) and draw its plot; the clause the
    error line ends with ("" when nothing was reached)."""
    if partial is None:
        return "; no run had finished: no estimate to report"
    print(partial.summary(notes=False))
    said = "; the best point so far is printed above"
    if not plot:
        return said
    fmt = "png" if not Path(plot).suffix else None
    try:
        partial.plot(plot, format=fmt)
    except OSError as exc:
        return f"{said}; cannot write the plot to {plot} ({exc.strerror or exc})"
    return f"{said} and plotted to {plot}"


def _sweep_options(args) -> dict:
    """The simulate options of ``sweep``'s arguments, checked (one-line errors)."""
    _check_method(args.method)
    for option, value in (("--t-end", args.t_end), ("--dt", args.dt),
                          ("--timeout", args.timeout)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise _UserError(f"{option} {value:g} is invalid: it must be > 0 s and finite")
    if args.max_evaluations is not None and args.max_evaluations <= 0:
        raise _UserError(f"--max-evaluations {args.max_evaluations} is invalid: it must be > 0")
    for option, value in (("--rtol", args.rtol), ("--atol", args.atol)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise _UserError(f"{option} {value:g} is invalid: it must be a finite number > 0")
    if args.friction:
        _check_laws([args.friction])
    options = {"max_evaluations": args.max_evaluations, "timeout": args.timeout,
               "friction": args.friction, "rtol": args.rtol, "atol": args.atol}
    return {k: v for k, v in options.items() if v is not None}


def _sweep_plot(args) -> str | None:
    """``sweep --plot``'s path, checked before anything runs: it needs a ``poincare:``
    metric (the bifurcation diagram's values)."""
    if args.plot is None:
        return None
    if not any(m.startswith("poincare:") for m in args.metric):
        raise _UserError("--plot draws a bifurcation diagram: give a --metric poincare:OUTPUT "
                         "(e.g. poincare:x, the output once per forcing period) to plot against "
                         "the first --grid parameter")
    return _output_path(args.plot, "--plot", "bifurcation diagram", "bifurcation.png")


def _tstops_option(parser):
    parser.add_argument("--tstops", type=_tstops, default=None, metavar="T1,T2,...",
                        help="time stops [s]: the integration restarts exactly at each (put one "
                             "at every jump of a force or normal force in time), e.g. 0.4,0.9")


def _budget_options(parser):
    from .limits import MAX_EVALUATIONS

    parser.add_argument("--max-evaluations", type=int, default=None, metavar="N",
                        help="end the run after N right-hand-side evaluations, keeping its "
                             f"partial results (default {MAX_EVALUATIONS:,})")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="end the run after this wall-clock time [s], keeping its partial "
                             "results; compiling kernels is not counted (default: none)")


class _Version(argparse.Action):
    """``--version``: prints ``nonsmooth X.Y.Z`` and exits with 0; the version is looked up
    (``importlib.metadata``) only when asked, not for every command line."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the version and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from . import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="nonsmooth",
                     description="Planar multibody dynamics with dry friction in joints.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    run = sub.add_parser("run", help="simulate a model", description=(
        "Simulate MODEL (a name from 'nonsmooth models', a path to a .py file with "
        "build(**params), or a MotionSolve .xml file). Units are SI unless the model says "
        "otherwise."))
    run.add_argument("model")
    run.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="set a model parameter (repeatable)")
    run.add_argument("--t-end", type=float, help="end time [s] (default: the model's)")
    run.add_argument("--dt", type=float, help="step / output spacing [s] (default: the model's)")
    run.add_argument("--method", default=None,
                     help="RK4, Euler (fixed step) or RK45, DOP853, RK23, Radau, BDF, LSODA "
                          "(default, as in simulate(): the adaptive event-driven DOP853 with "
                          "Coulomb friction, Radau with smooth laws)")
    run.add_argument("--friction", default=None,
                     help="friction law of every pair: coulomb, lugre, regularized or bristle "
                          "(default: the model's)")
    run.add_argument("--out", metavar="FILE.csv", help="write the output columns as CSV (a "
                     "model's declared outputs; for a model without: every body's coordinates "
                     "and velocities (planar x, y, angle, vx, vy, w; spatial x, y, z, qw, qx, "
                     "qy, qz, vx, vy, vz, wx, wy, wz), then every frictional element's N, F_f "
                     "or tau, mode, every driver's force or torque, a spatial joint's "
                     "reactions)")
    run.add_argument("--events", metavar="FILE.csv", help="write the event log as CSV")
    run.add_argument("--plot", metavar="FILE.png", help="plot the outputs to an image file "
                     "(format by suffix; none: .png)")
    run.add_argument("--animate", metavar="FILE.gif", help="animate the motion of a spatial "
                     "model (nonsmooth.spatial: bodies, joints, body axes; 30 frames per "
                     "simulated second) to a GIF, or an MP4 if ffmpeg is installed")
    _tstops_option(run)
    _budget_options(run)
    run.set_defaults(func=_cmd_run)
    cmp = sub.add_parser("compare", help="the same model under several friction laws",
                         description="Simulate MODEL once per friction law and print a table "
                                     "of the differences (the first law is the reference).")
    cmp.add_argument("model")
    cmp.add_argument("--friction", nargs="+", default=["coulomb", "lugre"],
                     help="laws to compare (default: coulomb lugre)")
    cmp.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="set a model parameter (repeatable)")
    cmp.add_argument("--t-end", type=float, help="end time [s] (default: the model's)")
    cmp.add_argument("--dt", type=float, help="output spacing [s]")
    cmp.add_argument("--method", default=None, help="integrator for every law (default: DOP853 "
                                                      "for Coulomb, Radau for smooth laws)")
    cmp.add_argument("--out", metavar="FILE.csv", help="write the comparison table as CSV")
    cmp.add_argument("--plot", metavar="FILE.png", help="overlay plot of the runs")
    _tstops_option(cmp)
    _budget_options(cmp)
    cmp.set_defaults(func=_cmd_compare)
    swp = sub.add_parser("sweep", help="run a model over a grid of parameters",
                         description=(
                             "Run MODEL (a name, a .py or .xml model file) for every case of the "
                             "Cartesian product of the --grid values, on every core (or a Dask "
                             "cluster), computing the --metric values of each run where it runs "
                             "and storing one row per case in STORE/cases.parquet as cases "
                             "finish (definition and versions in STORE/sweep.json). A failed "
                             "case (jamming, non-finite state, budget) is a row with its error. "
                             "Metrics: period:KIND[:PAIR], count:KIND[:PAIR] (KIND: "
                             "velocity_zero, reserve_zero, normal_sign, start, user), "
                             "stick_fraction[:PAIR], max:OUTPUT, min:OUTPUT, rms:OUTPUT, "
                             "final:OUTPUT, poincare:OUTPUT[:period[=T]][:phase=P]"
                             "[:cross=NAME>V][:last=K] (the last K values on a Poincare section: "
                             "a bifurcation diagram with --plot)."))
    swp.add_argument("model")
    swp.add_argument("--grid", action="append", metavar="NAME=VALUES", required=True,
                     help="swept parameter: NAME=V1,V2,... or NAME=START:STOP:NUM (NUM values "
                          "from START to STOP inclusive; append :log for a log scale); "
                          "repeatable, the cases are the Cartesian product")
    swp.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="a model parameter every case shares (repeatable)")
    swp.add_argument("--t-end", type=float, help="end time of every run [s] (default: the "
                                                 "model's)")
    swp.add_argument("--dt", type=float, help="output spacing / step [s] (default: the model's)")
    swp.add_argument("--method", default=None, help="integrator (default as for run)")
    swp.add_argument("--friction", default=None, help="friction law of every pair")
    swp.add_argument("--metric", action="extend", nargs="+", metavar="SPEC",
                     help="a metric column (repeatable), e.g. period:reserve_zero max:x")
    swp.add_argument("--store", required=True, metavar="DIR",
                     help="the sweep's folder (cases.parquet, sweep.json, series/)")
    swp.add_argument("--scheduler", default="processes",
                     help="processes (default: local processes), serial, dask (a local Dask "
                          "cluster) or a Dask scheduler address tcp://host:port")
    swp.add_argument("--workers", type=int, default=None, metavar="N",
                     help="worker processes (default: every core; more than the cores are "
                          "capped at their number with a warning)")
    swp.add_argument("--resume", action="store_true",
                     help="continue the sweep in --store: run only missing or failed cases")
    swp.add_argument("--save-series", action="store_true",
                     help="also write each case's outputs to STORE/series/case_<id>.parquet")
    swp.add_argument("--rtol", type=float, default=None,
                     help="relative tolerance of the adaptive methods (default: simulate's)")
    swp.add_argument("--atol", type=float, default=None,
                     help="absolute tolerance of the adaptive methods (default: simulate's)")
    swp.add_argument("--plot", metavar="FILE.png",
                     help="draw the bifurcation diagram of the first poincare: metric against "
                          "the first --grid parameter to an image file")
    _budget_options(swp)
    swp.set_defaults(func=_cmd_sweep)
    fit = sub.add_parser("fit", help="fit model parameters to measured time series",
                         description=(
                             "Fit parameters of MODEL (a name, a .py or .xml model file) to the "
                             "measured series in DATA (CSV: a header row naming t [s] and "
                             "outputs, one row per sample) by bounded least squares, and print "
                             "the estimates, their standard errors and correlations. Bounds "
                             "default to the model's physical ranges; an output is any name a "
                             "run's result answers (x, block.vx, contact.F_f ...)."))
    fit.add_argument("model")
    fit.add_argument("data", metavar="DATA.csv")
    fit.add_argument("--param", action="append", metavar="NAME[=INITIAL]",
                     help="a parameter to fit, optionally with its initial value (repeatable; "
                          "default initial value: the model's)")
    fit.add_argument("--output", action="append", metavar="NAME",
                     help="a fitted output, a column of DATA (repeatable; default: every "
                          "column but t)")
    fit.add_argument("--law", default=None,
                     help="friction law of the runs: coulomb, lugre or regularized (default: "
                          "the model's)")
    fit.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="a model parameter held fixed (repeatable)")
    fit.add_argument("--bounds", action="append", metavar="NAME=LOWER:UPPER",
                     help="bounds of a fitted parameter (a side may be empty; default: the "
                          "model's range)")
    fit.add_argument("--t-end", type=float, help="end time of the runs [s] (default: the last "
                                                 "sample's time)")
    fit.add_argument("--method", default=None, help="integrator of the runs (default as for "
                                                    "run)")
    fit.add_argument("--rtol", type=float, default=None,
                     help="relative tolerance of the runs (default: the method's; the "
                          "derivatives' step is its square root)")
    fit.add_argument("--plot", metavar="FILE.png",
                     help="plot the data against the fitted run (format by suffix)")
    fit.add_argument("--scheduler", default="serial",
                     help="where the runs of a derivative go: serial (default), processes or "
                          "dask")
    fit.add_argument("--workers", type=int, default=None, metavar="N",
                     help="worker processes (with --scheduler processes; default: every core)")
    fit.add_argument("--max-evaluations", type=int, default=None, metavar="N",
                     help="end each run of the fit after N right-hand-side evaluations (a trial "
                          "point whose run uses them up counts as failed; default "
                          "as for run)")
    fit.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                     help="end the whole fit after this wall-clock time [s], printing the best "
                          "estimates so far (and plotting them with --plot); exit code 1 "
                          "(default: none)")
    fit.set_defaults(func=_cmd_fit)
    from .measure import DEFAULT_SAMPLES

    msr = sub.add_parser("measure", help="simulated measurements to try a fit on",
                         description=(
                             "Run MODEL (a name, a .py or .xml model file) and write the "
                             "outputs named by --output at equally spaced times, with Gaussian "
                             "noise of standard deviation --noise (in each output's units), "
                             "as the CSV file that `nonsmooth fit` reads (a header row t,"
                             "OUTPUT,...). A stand-in for measured data: the values are the "
                             "model's at its parameters (--set) and the noise is reproducible "
                             "(--seed)."))
    msr.add_argument("model")
    msr.add_argument("--output", action="append", required=True, metavar="NAME",
                     help="an output to measure, a name the run answers (repeatable)")
    msr.add_argument("--out", required=True, metavar="FILE.csv", help="the CSV file to write")
    msr.add_argument("--t-end", type=float, default=None,
                     help="end time [s] (default: the model's)")
    msr.add_argument("--samples", type=int, default=DEFAULT_SAMPLES,
                     help="number of sample times from t = 0 to --t-end (default: "
                          "%(default)s)")
    msr.add_argument("--noise", type=float, default=0.0, metavar="SIGMA",
                     help="standard deviation of the noise, in each output's units (default: "
                          "0, none)")
    msr.add_argument("--seed", type=int, default=0, help="seed of the noise (default: 0)")
    msr.add_argument("--set", action="append", metavar="NAME=VALUE",
                     help="a model parameter (repeatable)")
    msr.add_argument("--method", default=None, help="integrator (default as for run)")
    msr.set_defaults(func=_cmd_measure)
    models = sub.add_parser("models", help="list the models with their parameters")
    models.set_defaults(func=_cmd_models)
    rep = sub.add_parser("reproduce", help="reproduce a published benchmark")
    rep.add_argument("name", help="crank-rocker")
    rep.add_argument("--outdir", default="reproduction",
                     help="output folder (default: %(default)s)")
    rep.set_defaults(func=_cmd_reproduce)
    return parser


def _warning_line(message, category, filename, lineno, file=None, line=None):
    print(f"nonsmooth: warning: {message}", file=sys.stderr)


def main(argv=None) -> int:
    import gc
    import warnings

    parser = build_parser()
    saved = warnings.showwarning
    warnings.showwarning = _warning_line  # one line per warning, no source excerpt
    saved_term = None
    try:  # SIGTERM ends a run like Ctrl-C: partial outputs written, exit 143
        saved_term = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread: leave signals alone
        pass
    own_process = argv is None and gc.isenabled()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        if own_process and args.func is not _cmd_sweep:
            # a bounded run in a process of its own: numba's ~10^5 objects are not scanned
            # by cyclic collections (measured 65-140 ms of a 1 s `nonsmooth run`); a sweep
            # keeps collecting (its in-process cases are unbounded)
            gc.disable()
        return args.func(args)
    except (_UserError, NonsmoothError, ValueError, OverflowError) as exc:
        print(f"nonsmooth: error: {exc}".replace("\n", " "), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        return _interrupted(exc)
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        warnings.showwarning = saved
        if saved_term is not None:
            signal.signal(signal.SIGTERM, saved_term)
        if own_process:  # the interpreter's exit then does not scan what is left (~75 ms)
            gc.freeze()
            gc.enable()
