"""The command line: ``nonsmooth run | compare | models | reproduce``.

User errors print one line (``nonsmooth: error: ...``) and exit with code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import time

from .errors import NonsmoothError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise _UserError(f"{message} (see '{self.prog} --help')")


class _UserError(Exception):
    pass


class _Progress:
    """A one-line progress display on stderr for runs longer than a second (tty only)."""

    def __init__(self, t0, t_end, stream=sys.stderr):
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


def _parse_set(items):
    values = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise _UserError(f"--set expects NAME=VALUE, got {item!r}")
        values[name.strip()] = value.strip()
    return values


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
    from .models import load

    module = load(args.model)
    params = _parse_set(args.set)
    if hasattr(module, "PARAMETERS"):
        from .model import check_parameters

        check_parameters(getattr(module, "NAME", args.model), module.PARAMETERS, params)
    return module.build(**params)


def _check_method(method):
    from .simulate import METHODS

    if method is not None and method not in METHODS:
        raise _UserError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")


def _check_laws(laws):
    from .friction import LAWS

    for law in laws:
        if law not in LAWS:
            raise _UserError(f"unknown friction law {law!r}; choose from {', '.join(LAWS)}")


def _cmd_run(args):
    from .simulate import simulate

    model = _build(args)
    _check_method(args.method)
    if args.friction:
        _check_laws([args.friction])
    method = args.method
    if method is None:  # RK4 for Coulomb friction, an implicit method for the stiff smooth laws
        laws = [args.friction or pr.law for pr in model.system.pairs]
        method = "RK4" if all(law == "coulomb" for law in laws) else None
    t_end = model.t_end if args.t_end is None else args.t_end
    dt = args.dt if args.dt is not None else (model.dt or t_end / 1000.0)
    if t_end <= 0:
        raise _UserError(f"--t-end {t_end:g} is invalid: the end time must be > 0 s")
    if dt <= 0:
        raise _UserError(f"--dt {dt:g} is invalid: the step must be > 0 s")
    progress = _Progress(0.0, t_end)
    try:
        result = simulate(model, t_end, method=method, dt=dt, progress=progress,
                          friction=args.friction)
    finally:
        progress.close()
    print(result.summary())
    if args.out:
        _write(lambda: result.to_csv(args.out), args.out, "data")
    if args.events:
        _write(lambda: result.events_to_csv(args.events), args.events, "event log")
    if args.plot:
        _write(lambda: result.plot(path=args.plot), args.plot, "plot")
    return 0


def _cmd_compare(args):
    from .compare import compare

    _check_laws(args.friction)
    if len(args.friction) < 2 or len(set(args.friction)) != len(args.friction):
        raise _UserError(f"--friction needs at least two different laws, got "
                         f"{' '.join(args.friction)}")
    model = _build(args)
    _check_method(args.method)
    if args.t_end is not None and args.t_end <= 0:
        raise _UserError(f"--t-end {args.t_end:g} is invalid: the end time must be > 0 s")
    if args.dt is not None and args.dt <= 0:
        raise _UserError(f"--dt {args.dt:g} is invalid: the step must be > 0 s")
    print(f"comparing {model.name} under {', '.join(args.friction)} ...", file=sys.stderr)
    comparison = compare(model, args.friction, args.t_end, method=args.method, dt=args.dt)
    print(comparison.summary())
    if args.out:
        _write(lambda: comparison.to_csv(args.out), args.out, "comparison table")
    if args.plot:
        _write(lambda: comparison.plot(path=args.plot), args.plot, "overlay plot")
    return 0


def _write(fn, path, what):
    try:
        fn()
    except OSError as exc:
        raise _UserError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None
    print(f"wrote {what} to {path}")


def _cmd_reproduce(args):
    from .reproduce import REPRODUCTIONS

    name = args.name.replace("_", "-")
    if name not in REPRODUCTIONS:
        raise _UserError(f"unknown reproduction {args.name!r}; available: "
                         f"{', '.join(REPRODUCTIONS)}")
    try:
        REPRODUCTIONS[name](args.outdir)
    except OSError as exc:
        raise _UserError(f"cannot write to {args.outdir}: {exc.strerror or exc}") from None
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="nonsmooth",
                     description="Planar multibody dynamics with dry friction in joints.")
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
                          "(default: RK4 with Coulomb friction, Radau with smooth laws)")
    run.add_argument("--friction", default=None,
                     help="friction law of every pair: coulomb, lugre or regularized "
                          "(default: the model's)")
    run.add_argument("--out", metavar="FILE.csv", help="write the output columns as CSV")
    run.add_argument("--events", metavar="FILE.csv", help="write the event log as CSV")
    run.add_argument("--plot", metavar="FILE.png", help="plot the outputs to a PNG file")
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
    cmp.add_argument("--method", default=None, help="integrator for every law (default: RK45 "
                                                      "for Coulomb, Radau for smooth laws)")
    cmp.add_argument("--out", metavar="FILE.csv", help="write the comparison table as CSV")
    cmp.add_argument("--plot", metavar="FILE.png", help="overlay plot of the runs")
    cmp.set_defaults(func=_cmd_compare)
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
    import warnings

    parser = build_parser()
    saved = warnings.showwarning
    warnings.showwarning = _warning_line  # one line per warning, no source excerpt
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except (_UserError, NonsmoothError, ValueError) as exc:
        print(f"nonsmooth: error: {exc}".replace("\n", " "), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nonsmooth: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        warnings.showwarning = saved
