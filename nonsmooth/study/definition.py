"""A sweep's definition: the model, its cases, the run settings and the metrics, checked.

Everything here is checked before any case runs, so that a mistake (an unknown parameter, an
out-of-range value, a malformed grid or metric) costs nothing but one message
(:class:`SweepError`, or the model's own :class:`~nonsmooth.errors.ModelError`). A combination
of individually valid values that the model refuses (``mu_s < mu_d``, ``r + |e| >= l``) is not
an input error: that case becomes a failed row.

The definition is what ``DIR/sweep.json`` records and what a resume must repeat exactly
(:meth:`SweepDefinition.describe`, :func:`differences`); the scheduler, the number of workers
and the progress bar are not part of it.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SweepError
from .metrics import callable_label

__all__ = ["SweepError", "callable_label", "ModelSource", "SweepDefinition", "define", "parse_grid",
           "differences", "SIMULATE_OPTIONS"]

#: ``simulate`` keyword arguments a sweep passes through unchanged (``options=``).
SIMULATE_OPTIONS = ("rtol", "atol", "max_step", "friction", "alpha", "beta", "max_evaluations",
                    "timeout", "max_outputs")


# ------------------------------------------------------------------------------ the model
@dataclass(frozen=True)
class ModelSource:
    """What every case builds: a bundled model (its name), a model file (``.py`` with
    ``build(**params)``, or MotionSolve ``.xml``) or a Python build function
    ``f(**params) -> Model``.

    A build function is sent to the worker processes by cloudpickle: a function defined at
    module level (in an importable file, a script or a notebook) works; one that holds an open
    file, a lock or a live connection does not (:func:`define` says so before anything runs).
    """

    source: str | Callable

    @property
    def label(self) -> str:
        """The model in ``sweep.json``: a name, an absolute file path, or
        ``callable:module:qualname`` of a build function."""
        return callable_label(self.source) if callable(self.source) else self.source

    def module(self):
        """The model module (bundled or file), or None for a build function."""
        if callable(self.source):
            return None
        from nonsmooth.models import load

        return load(self.source)

    def build(self, params: Mapping):
        """The :class:`nonsmooth.Model` of one case (text values converted as ``--set``)."""
        if callable(self.source):
            from nonsmooth.model import as_model

            return as_model(self.source(**params))
        from nonsmooth.models import build

        return build(self.source, **params)


def _source(model) -> ModelSource:
    if callable(model):
        return ModelSource(model)
    if not isinstance(model, (str, Path)):
        raise SweepError(f"model = {model!r}: give a bundled model's name, the path of a model "
                         "file (.py or .xml), or a build function f(**params) -> Model")
    text = str(model)
    if text.endswith((".py", ".xml")) or "/" in text or "\\" in text:
        text = str(Path(text).resolve())  # a resume from another folder finds the same file
    return ModelSource(text)


# ------------------------------------------------------------------------------ values
def _scalar(name: str, value):
    """A JSON-able Python scalar (numpy scalars unwrapped), or SweepError."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, bool) or isinstance(value, (str, int)):
        return value
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isfinite(value):
            return value
    raise SweepError(f"parameter {name} = {value!r} is not a finite number, text or truth "
                     "value; a case's parameters are scalars")


def _values(name: str, values) -> list:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise SweepError(f"grid {name}: give a sequence of values (a list or a 1-D array), "
                         f"got {values!r}")
    out = [_scalar(name, v) for v in values]
    if not out:
        raise SweepError(f"grid {name} has no values; give at least one")
    return out


def parse_grid(text: str) -> tuple[str, list]:
    """A command-line grid ``NAME=V1,V2,...`` or ``NAME=START:STOP:NUM[:log]`` as
    ``(name, values)``: listed values stay text (the model converts them as ``--set``); a range
    is ``NUM`` numbers from ``START`` to ``STOP`` inclusive, evenly spaced (``log``: evenly on
    a log scale, both ends > 0)."""
    name, sep, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    usage = "NAME=V1,V2,... or NAME=START:STOP:NUM (NUM values, START and STOP included)"
    if not sep or not name or not spec:
        raise SweepError(f"--grid expects {usage}, got {text!r}")
    if ":" not in spec:
        values = [v.strip() for v in spec.split(",")]
        if any(not v for v in values):
            raise SweepError(f"--grid {text!r}: an empty value; expected {usage}")
        return name, values
    parts = [p.strip() for p in spec.split(":")]
    log = len(parts) == 4 and parts[3].lower() == "log"
    if len(parts) != 3 and not log:
        raise SweepError(f"--grid {text!r}: a range is START:STOP:NUM or START:STOP:NUM:log")
    try:
        start, stop, num = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise SweepError(f"--grid {text!r}: START and STOP must be numbers and NUM an integer "
                         f"(expected {usage})") from None
    if not (math.isfinite(start) and math.isfinite(stop)) or num < 1:
        raise SweepError(f"--grid {text!r}: START and STOP must be finite and NUM >= 1")
    if log and (start <= 0 or stop <= 0):
        raise SweepError(f"--grid {text!r}: a log range needs START > 0 and STOP > 0")
    import numpy as np

    values = (np.geomspace(start, stop, num) if log else np.linspace(start, stop, num))
    return name, [float(v) for v in values]


def _checked_grid(grid: Mapping | None) -> dict:
    if grid is not None and not isinstance(grid, Mapping):
        raise SweepError(f"grid = {grid!r}: give a dict {{name: values}}")
    return {str(k): _values(str(k), v) for k, v in (grid or {}).items()}


def _checked_cases(cases: Sequence[Mapping] | None) -> list | None:
    if cases is None:
        return None
    if isinstance(cases, Mapping) or not isinstance(cases, Iterable):
        raise SweepError("cases must be a list of dicts {name: value}")
    cases = list(cases)
    if not cases:
        raise SweepError("cases is empty; give at least one case")
    names = list(cases[0]) if isinstance(cases[0], Mapping) else []
    for i, case in enumerate(cases):
        if not isinstance(case, Mapping) or set(case) != set(names):
            raise SweepError(f"case {i} = {case!r}: every case must set the same parameters "
                             f"({', '.join(map(str, names)) or 'none'}) as a dict")
    return [{str(k): _scalar(str(k), case[k]) for k in names} for case in cases]


#: Memory (bytes) a case's row takes while the sweep runs (the store keeps every row).
CASE_BYTES = 1_000


def _check_count(grid, cases, max_cases: int) -> None:
    """Refuse a sweep of more than ``max_cases`` cases before any value is checked or any case
    generated: the count is the product of the grid's and the cases' lengths."""
    from collections.abc import Sized

    if not (isinstance(max_cases, numbers.Integral) and max_cases >= 1):
        raise SweepError(f"max_cases = {max_cases!r} is invalid: give an integer >= 1")
    sizes = [len(v) for v in (grid.values() if isinstance(grid, Mapping) else ())
             if isinstance(v, Sized) and not isinstance(v, (str, bytes))]
    if isinstance(cases, Sized) and not isinstance(cases, Mapping):
        sizes.append(len(cases))
    count = math.prod(sizes)
    if count > max_cases:
        shape = " x ".join(f"{n:,}" for n in sizes)
        raise SweepError(
            f"the sweep has {count:,} cases ({shape}), more than the limit of {max_cases:,} "
            f"(nonsmooth.limits.MAX_CASES): its table alone would need about "
            f"{count * CASE_BYTES / 1e9:.3g} GB of memory; sweep fewer values (a coarse grid "
            "first, then a finer one where it matters), split it into sweeps with stores of "
            "their own, or raise the limit with sweep(max_cases=...)")


class Cases(Sequence):
    """Every case's swept values, generated when asked for (never all held in memory): entry
    ``i`` is given case ``i // n_points`` combined with point ``i % n_points`` of the grid's
    Cartesian product (the last grid name varying fastest).

    Parameters
    ----------
    grid : dict {name: list}   the swept values of each grid name
    cases : list of dict or None   the given cases (None: one empty case)
    """

    def __init__(self, grid: dict, cases: list | None):
        self.grid = grid
        self.given = cases if cases is not None else [{}]
        self.names = list(self.given[0]) + list(grid)
        self._points = math.prod(len(v) for v in grid.values())

    def __len__(self) -> int:
        return len(self.given) * self._points

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"case {index} of {n}")
        given, point = divmod(i, self._points)
        values = {}
        for name in reversed(self.grid):
            point, k = divmod(point, len(self.grid[name]))
            values[name] = self.grid[name][k]
        return {**self.given[given], **{name: values[name] for name in self.grid}}

    def __iter__(self):
        for case in self.given:
            for point in itertools.product(*self.grid.values()):
                yield {**case, **dict(zip(self.grid, point, strict=True))}

    def column(self, name: str) -> list:
        """The values parameter ``name`` takes (each grid value once, or every given case's)."""
        if name in self.grid:
            return list(self.grid[name])
        return [case[name] for case in self.given]


def _expand(grid: dict, cases: list | None) -> tuple[list, Cases]:
    """The swept names (column order) and every case's values (generated as needed): each
    entry of ``cases`` combined with every point of the grid's Cartesian product."""
    if not grid and cases is None:
        raise SweepError("give grid={name: values} and/or cases=[{name: value, ...}, ...]")
    names = list(cases[0]) if cases is not None else []
    both = sorted(set(names) & set(grid))
    if both:
        raise SweepError(f"parameter(s) {', '.join(both)} given both in grid and in cases")
    rows = Cases(grid, cases)
    return rows.names, rows


def _converter(source: ModelSource) -> Callable[[str, object], object]:
    """``convert(name, value)``: one value checked and converted as the model will see it
    (range checks of a ``PARAMETERS`` table, types of ``build()``'s defaults)."""
    if callable(source.source):
        return _signature_check(source.source)
    module = source.module()
    table = getattr(module, "PARAMETERS", None)
    if table is not None:
        from nonsmooth.model import PARAMETER_ALIASES, check_parameters

        model_name = getattr(module, "NAME", source.label)

        def convert(name, value):
            checked = check_parameters(model_name, table, {name: value})
            return checked[PARAMETER_ALIASES.get(name, name) if name not in checked else name]

        return convert
    from nonsmooth.models import _convert_for_build

    where = f"model {getattr(module, 'NAME', source.label)}"
    return lambda name, value: _convert_for_build(where, module.build, {name: value})[name]


def _memoized(convert: Callable) -> Callable[[str, object], object]:
    """``convert`` once per distinct (name, value), its result a JSON-able scalar."""
    done: dict[tuple, object] = {}

    def memo(name, value):
        key = (name, type(value).__name__, value)
        if key not in done:
            done[key] = _scalar(name, convert(name, value))
        return done[key]

    return memo


def _signature_check(fn: Callable) -> Callable[[str, object], object]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return lambda name, value: value
    params = sig.parameters.values()
    takes_any = any(p.kind == p.VAR_KEYWORD for p in params)
    named = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    def convert(name, value):
        if name not in named and not takes_any:
            raise SweepError(f"the build function {getattr(fn, '__name__', fn)} has no "
                             f"parameter {name}; its parameters: {', '.join(named) or 'none'}")
        return value

    return convert


def _check_time(name: str, value):
    """``t_end`` / ``dt``: None, a function of the case's parameters, or a number > 0 (s)."""
    if value is None or callable(value):
        return value
    if not (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0):
        raise SweepError(f"{name} = {value!r} is invalid: it must be a finite number > 0 (s), "
                         "a function of the case's parameters, or None for the model's own")
    return float(value)


def _check_options(options):
    """``options``: a dict of :data:`SIMULATE_OPTIONS` (or a function of the case's
    parameters returning one)."""
    if options is None:
        return {}
    if callable(options):
        return options
    if not isinstance(options, Mapping):
        raise SweepError(f"options = {options!r}: give a dict of simulate options "
                         f"({', '.join(SIMULATE_OPTIONS)}) or a function of the case's "
                         "parameters returning one")
    unknown = sorted(set(options) - set(SIMULATE_OPTIONS))
    if unknown:
        raise SweepError(f"options: unknown simulate option(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(SIMULATE_OPTIONS)}")
    checked = {k: _scalar(k, v) for k, v in options.items()}
    timeout = checked.get("timeout")
    if timeout is not None and not (isinstance(timeout, (int, float))
                                    and not isinstance(timeout, bool) and timeout > 0):
        raise SweepError(f"options: timeout = {timeout!r} is invalid: it must be a finite "
                         "number > 0 (s), the wall-clock time each case may take")
    return checked


def _check_method(method):
    """The sweep's method by name (stored with the study and sent to the workers): a name of
    ``nonsmooth.METHODS``, or a registered ``Method`` (its name); None: ``simulate``'s
    default."""
    from nonsmooth.errors import UnknownMethodError
    from nonsmooth.run.methods import METHODS, method_for

    if method is None:
        return None
    try:
        checked = method_for(method)
    except UnknownMethodError as error:
        raise SweepError(str(error)) from None
    if METHODS.get(checked.name) is not checked:
        raise SweepError(f"method {checked.name!r} is not one of nonsmooth.METHODS: a sweep "
                         "stores its method by name and its workers look it up; give one of "
                         + ", ".join(METHODS))
    return checked.name


def _label(value):
    return callable_label(value) if callable(value) else value


# ------------------------------------------------------------------------------ definition
@dataclass
class SweepDefinition:
    """A checked sweep.

    Attributes
    ----------
    model : ModelSource
    parameters : list of str        the swept names (the table's parameter columns, in order)
    cases : Cases                   every case's swept values (the case id is its index), a
                                    sequence of dicts generated as needed
    fixed : dict                    values every case shares (``--set``)
    t_end, dt : float, callable or None
                                    end time and output spacing / step (s); None: the model's;
                                    a callable: ``f(params) -> float`` of the case's parameters
                                    (fixed and swept, as given)
    method : str or None            None: simulate's default
    options : dict or callable      other ``simulate`` keywords (:data:`SIMULATE_OPTIONS`), or
                                    ``f(params) -> dict``
    metrics : list of Metric        one column each (:mod:`nonsmooth.study.metrics`)
    save_series : bool              each case's outputs to ``DIR/series/<case>.parquet``
    grid, given_cases               the grid and the cases, values converted (``sweep.json``)
    """

    model: ModelSource
    parameters: list
    cases: Cases
    fixed: dict
    t_end: float | Callable | None
    dt: float | Callable | None
    method: str | None
    options: dict | Callable
    metrics: list
    save_series: bool = False
    grid: dict = field(default_factory=dict)
    given_cases: list | None = None

    def describe(self) -> dict:
        """The JSON-able definition: what ``sweep.json`` holds and a resume must repeat."""
        text = {
            "model": self.model.label,
            "grid": self.grid,
            "cases": self.given_cases,
            "fixed": self.fixed,
            "t_end": _label(self.t_end),
            "dt": _label(self.dt),
            "method": self.method,
            "options": _label(self.options),
            "metrics": [m.label for m in self.metrics],
            "save_series": self.save_series,
            "n_cases": len(self.cases),
        }
        return json.loads(json.dumps(text))  # tuples -> lists, as read back from the file

    def settings(self, params: Mapping) -> tuple:
        """``(t_end, dt, options)`` of the case with parameters ``params`` (fixed and swept):
        the functions among them evaluated and their values checked (None: the model's)."""
        values = []
        for name, value in (("t_end", self.t_end), ("dt", self.dt)):
            if callable(value):
                value = _check_time(f"{name}({_short(dict(params), 60)})",
                                    _call(name, value, params))
                if value is None:
                    raise SweepError(f"the {name} function returned None; return a number > 0")
            values.append(value)
        options = self.options
        if callable(options):
            options = _check_options(_call("options", options, params))
            if callable(options):
                raise SweepError("the options function returned a function; return a dict")
        return values[0], values[1], options


def _call(name: str, function: Callable, params: Mapping):
    """``function(params)`` of a case's setting (``t_end``, ``dt``, ``options``); an exception
    it raises is a SweepError naming the function and the case."""
    try:
        return function(dict(params))
    except Exception as exc:
        raise SweepError(f"the {name} function {callable_label(function)} raised "
                         f"{type(exc).__name__}: {' '.join(str(exc).split()) or '(no message)'} "
                         f"for the case {_short(dict(params), 60)}; it must return a "
                         f"{'dict' if name == 'options' else 'number > 0 (s)'} for every "
                         "case") from None


def differences(stored: Mapping, new: Mapping) -> list[str]:
    """What differs between two :meth:`SweepDefinition.describe` dicts, one phrase per key."""
    out = []
    for key in dict.fromkeys([*stored, *new]):
        a, b = stored.get(key), new.get(key)
        if a != b:
            out.append(f"{key}: stored {_short(a)}, now {_short(b)}")
    return out


def _short(value, limit: int = 80) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def define(model, *, grid=None, cases=None, fixed=None, t_end=None, dt=None, method=None,
           options=None, metrics=(), save_series=False,
           max_cases: int | None = None) -> tuple[SweepDefinition, object]:
    """Check a sweep and return ``(definition, reference model)``.

    A sweep of more than ``max_cases`` cases (default :data:`nonsmooth.limits.MAX_CASES`) is
    refused first, before any value is checked or any case generated.

    Every swept and fixed value is converted and range-checked one by one as the model will
    see it (unknown names, out-of-range values: an error here); the reference model (built
    from the first case that builds, or from the fixed values alone) is what the metric specs
    are checked against (its outputs and frictional pairs).
    """
    from nonsmooth.limits import MAX_CASES

    from .metrics import check_metrics, parse_metrics

    limit = MAX_CASES if max_cases is None else max_cases
    _check_count(grid, cases, limit)  # from the lengths given, before any value is looked at
    source = _source(model)
    convert = _memoized(_converter(source))
    grid, cases = _checked_grid(grid), _checked_cases(cases)
    _check_count(grid, cases, limit)  # again: cases or values given as iterators
    grid = {k: [convert(k, v) for v in vs] for k, vs in grid.items()}
    if cases is not None:
        cases = [{k: convert(k, v) for k, v in case.items()} for case in cases]
    columns, rows = _expand(grid, cases)
    fixed = {str(k): _scalar(str(k), v) for k, v in (fixed or {}).items()}
    clash = sorted(set(fixed) & set(columns))
    if clash:
        raise SweepError(f"parameter(s) {', '.join(clash)} both swept and fixed (--set)")
    fixed = {k: convert(k, v) for k, v in fixed.items()}
    t_end, dt = _check_time("t_end", t_end), _check_time("dt", dt)
    options, method = _check_options(options), _check_method(method)
    parsed = parse_metrics(metrics)
    reference = _reference_model(source, rows, fixed, options)
    check_metrics(parsed, reference)
    definition = SweepDefinition(
        model=source, parameters=columns, cases=rows, fixed=fixed,
        t_end=t_end, dt=dt, method=method, options=options, metrics=parsed,
        save_series=bool(save_series),
        grid=grid, given_cases=cases)
    definition.settings({**fixed, **rows[0]})  # the functions, tried on the first case
    return definition, reference


def _reference_model(source: ModelSource, rows: Sequence, fixed: dict, options):
    """A model to check the metrics against: the first case that builds (of the first few),
    else the model with the fixed values only. Each build is limited by the case's timeout;
    after one that times out, only the fixed values are tried."""
    from nonsmooth.errors import BuildTimeoutError

    from .case import build_within

    first = None
    for row in itertools.islice(rows, 8):
        params = {**fixed, **row}
        try:
            return build_within(source, params, _timeout(options, params))
        except BuildTimeoutError as exc:
            first = first or exc
            break
        except Exception as exc:  # a refused combination, or a build function's own error
            first = first or exc
    try:
        return build_within(source, fixed, _timeout(options, fixed))
    except Exception as exc:
        raise SweepError(f"no case of the sweep builds a model: {first or exc}") from None


def _timeout(options, params: dict) -> float | None:
    """The ``timeout`` of the case with ``params`` (None: none, or not known yet)."""
    if callable(options):
        try:
            options = _check_options(options(dict(params)))
        except Exception:  # the case's own row will say what is wrong
            return None
    return options.get("timeout") if isinstance(options, Mapping) else None
