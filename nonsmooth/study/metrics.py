"""Metrics: one number per case, computed from its run where it ran (the time series stay there).

Specs (the table's column is named by the spec exactly as written):

=========================  ==================================================================
``period:KIND[:PAIR]``     median interval (s) between consecutive events of that kind (of
                           that pair); NaN with fewer than two
``count:KIND[:PAIR]``      number of events of that kind (of that pair)
``stick_fraction[:PAIR]``  fraction of the run's time the pair sticks, from the event log
                           (exact event times); without a pair the mean over the Coulomb pairs
``max:OUTPUT``             largest value of an output over the output grid
``min:OUTPUT``             smallest value
``rms:OUTPUT``             root mean square over the output grid (uniform in time)
``final:OUTPUT``           value at the last output
``poincare:OUTPUT[:...]``  the last ``K`` values of the output on a Poincare section (a list
                           per case: a bifurcation diagram's column), the section
                           stroboscopic (``period``: the model's forcing period; ``period=T``,
                           ``phase=P`` in s) or a crossing (``cross=NAME>V`` upward,
                           ``NAME<V`` downward, ``NAME=V`` both); ``last=K`` (default 50):
                           ``poincare:x``, ``poincare:x:period=0.5:last=20``,
                           ``poincare:v:cross=x>0.01`` (:mod:`nonsmooth.sections`)
=========================  ==================================================================

``KIND`` is an event kind (:data:`EVENT_KINDS`); ``OUTPUT`` anything ``result[name]`` gives: a
model output (``x``, ``lambda_N``), a coordinate (``block.x``), a constraint row, or
``lambda_N:PAIR``, ``F_T:PAIR``, ``v_T:PAIR``. In Python a metric may also be a callable
``f(result) -> float``, its column named by its ``__name__``. Metric values are floats
(``float64`` columns); a ``poincare:`` metric's are lists of floats (a ``list<float64>``
column: one list per case, shorter where the run had fewer points); a failed case has none
(null). A stroboscopic ``poincare:`` metric adds its times to the case's output times
(``t_eval``: the section's points are the integrator's states at exactly those times).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SweepError

__all__ = ["Metric", "parse_metric", "parse_metrics", "check_metrics", "available_outputs",
           "EVENT_KINDS", "METRIC_KINDS", "stick_time"]

#: Event kinds a metric may count (``nonsmooth.run.events``).
EVENT_KINDS = ("start", "velocity_zero", "reserve_zero", "normal_sign", "user")
#: The kinds of metric spec.
METRIC_KINDS = ("period", "count", "stick_fraction", "max", "min", "rms", "final", "poincare")
_EVENT_METRICS = ("period", "count")
_OUTPUT_METRICS = ("max", "min", "rms", "final")
#: Event kinds that change a pair's mode (``before`` / ``after`` are modes).
_MODE_EVENTS = ("start", "velocity_zero", "reserve_zero")

_SPECS = ("period:KIND[:PAIR], count:KIND[:PAIR], stick_fraction[:PAIR], max:OUTPUT, "
          "min:OUTPUT, rms:OUTPUT, final:OUTPUT, poincare:OUTPUT[:period[=T]][:phase=P]"
          "[:cross=NAME>V][:last=K]")


def callable_label(fn: Callable) -> str:
    """How ``sweep.json`` names a function: ``callable:module:qualname``."""
    return (f"callable:{getattr(fn, '__module__', '?')}:"
            f"{getattr(fn, '__qualname__', getattr(fn, '__name__', repr(fn)))}")



@dataclass(frozen=True)
class Metric:
    """One metric: ``metric(result) -> float``.

    Attributes
    ----------
    name : str                  the column name (the spec as written, or the callable's name)
    kind : str                  one of :data:`METRIC_KINDS`, or ``"callable"``
    target : str or None        the event kind (period, count) or output (max, min, rms, final)
    pair : str or None          the frictional pair (period, count, stick_fraction), if given
    function : callable or None the user's ``f(result) -> float``
    section : Section or None   a ``poincare`` metric's section (:mod:`nonsmooth.sections`)
    last : int or None          the points a ``poincare`` metric keeps (the last ones)
    """

    name: str
    kind: str
    target: str | None = None
    pair: str | None = None
    function: Callable | None = None
    section: object = None
    last: int | None = None

    @property
    def list_valued(self) -> bool:
        """Whether the metric's value is a list of floats (``poincare``), not one float."""
        return self.kind == "poincare"

    def output_times(self, model, t0: float, t_end: float):
        """Times (s) the case's run must output for this metric (a stroboscopic section's),
        shape (k,), or None."""
        if self.section is None:
            return None
        return self.section.output_times(model, t0, t_end)

    @property
    def label(self) -> str:
        """How ``sweep.json`` records it: the spec, or ``callable:module:qualname``."""
        return self.name if self.function is None else callable_label(self.function)

    def __call__(self, result) -> float | list[float]:
        if self.function is not None:
            return _as_float(self.name, self.function(result))
        if self.kind == "poincare":
            if len(result.t) < 2:
                return []
            points = self.section.points(result).last(self.last)
            return [float(x) for x in points[self.target]]
        if self.kind in _EVENT_METRICS:
            times = np.array([e.t for e in result.events if e.kind == self.target
                              and (self.pair is None or e.pair == self.pair)], dtype=float)
            if self.kind == "count":
                return float(times.size)
            return float(np.median(np.diff(times))) if times.size >= 2 else math.nan
        if self.kind == "stick_fraction":
            return stick_fraction(result, self.pair)
        values = np.asarray(result[self.target], dtype=float)
        if values.size == 0:
            return math.nan
        if self.kind == "max":
            return float(np.max(values))
        if self.kind == "min":
            return float(np.min(values))
        if self.kind == "rms":
            return float(np.sqrt(np.mean(values * values)))
        return float(values[-1])  # final


def _as_float(name: str, value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"metric {name} returned {type(value).__name__} {value!r}, not a "
                        "number") from None


def stick_time(events, pair: str, t0: float, t1: float) -> float:
    """Time (s) the pair spends sticking within ``[t0, t1]``, from its mode events."""
    mode, since, total = None, t0, 0.0
    for e in events:
        if e.pair != pair or e.kind not in _MODE_EVENTS or e.t > t1:
            continue
        if mode == "stick":
            total += e.t - since
        mode, since = e.after, e.t
    if mode == "stick":
        total += t1 - since
    return total


def stick_fraction(result, pair: str | None = None) -> float:
    """Fraction of the run's time the pair sticks (mean over the Coulomb pairs without one)."""
    if len(result.t) < 2 or result.t[-1] <= result.t[0]:
        return math.nan
    t0, t1 = float(result.t[0]), float(result.t[-1])
    if pair is None:
        pairs = sorted({e.pair for e in result.events if e.kind == "start"})
        if not pairs:
            return math.nan
    else:
        pairs = [pair]
    return float(np.mean([stick_time(result.events, p, t0, t1) for p in pairs]) / (t1 - t0))


def parse_metric(spec) -> Metric:
    """A metric spec (text) or a callable as a :class:`Metric` (the syntax only; the names are
    checked against a model by :func:`check_metrics`)."""
    if callable(spec):
        name = getattr(spec, "__name__", None)
        if not name:
            raise SweepError(f"metric {spec!r}: a callable metric needs a __name__ (its "
                             "column's name); use a def")
        return Metric(name, "callable", function=spec)
    if not isinstance(spec, str) or not spec.strip():
        raise SweepError(f"metric {spec!r}: give a spec ({_SPECS}) or a callable "
                         "f(result) -> float")
    kind, _, rest = spec.partition(":")
    if kind not in METRIC_KINDS:
        raise SweepError(f"unknown metric kind {kind!r} in {spec!r}; metric specs: {_SPECS}")
    if kind == "stick_fraction":
        return Metric(spec, kind, pair=rest or None)
    if kind == "poincare":
        from ..sections import SectionError, parse_section_spec

        try:
            output, section, last = parse_section_spec(rest)
        except SectionError as exc:
            raise SweepError(str(exc)) from None
        return Metric(spec, kind, target=output, section=section, last=last)
    if not rest:
        what = "event kind" if kind in _EVENT_METRICS else "output"
        raise SweepError(f"metric {spec!r} names no {what}: write {kind}:"
                         f"{'KIND' if kind in _EVENT_METRICS else 'OUTPUT'}")
    if kind in _EVENT_METRICS:
        event, _, pair = rest.partition(":")
        if event not in EVENT_KINDS:
            raise SweepError(f"metric {spec!r}: unknown event kind {event!r}; event kinds: "
                             f"{', '.join(EVENT_KINDS)}")
        return Metric(spec, kind, target=event, pair=pair or None)
    return Metric(spec, kind, target=rest)


def parse_metrics(specs: Sequence) -> list[Metric]:
    """Every spec parsed; two metrics with one column name are refused."""
    if isinstance(specs, (str, bytes)) or callable(specs):
        specs = [specs]
    metrics = [parse_metric(s) for s in specs]
    names = [m.name for m in metrics]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SweepError(f"metric column(s) {', '.join(twice)} given twice")
    reserved = {"case", "status", "error", "error_type", "wall_time", "evaluations", "t_reached"}
    clash = sorted(set(names) & reserved)
    if clash:
        raise SweepError(f"metric name(s) {', '.join(clash)} are columns of every sweep; "
                         "rename the function")
    return metrics


def available_outputs(model) -> list[str]:
    """What ``result[name]`` of a run of ``model`` accepts (``Result.available``)."""
    system = model.system
    names = ["t", *model.outputs, *system.coordinate_names, *system.constraint_names]
    for base in ("lambda_N", "F_T", "v_T"):
        names += [f"{base}:{pr.name}" for pr in system.pairs]
        if len(system.pairs) == 1 and base not in names:
            names.append(base)
    return names


def check_metrics(metrics: Sequence[Metric], model) -> None:
    """Refuse specs naming an output or a pair the model does not have."""
    outputs = available_outputs(model)
    pairs = [pr.name for pr in model.system.pairs]
    for m in metrics:
        if m.kind in _OUTPUT_METRICS and m.target not in outputs:
            raise SweepError(f"metric {m.name!r}: model {model.name} has no output "
                             f"{m.target!r}; outputs: {', '.join(outputs)}")
        if m.pair is not None and m.pair not in pairs:
            raise SweepError(f"metric {m.name!r}: model {model.name} has no frictional pair "
                             f"{m.pair!r}; pairs: {', '.join(pairs) or 'none'}")
        if m.kind == "stick_fraction" and not pairs:
            raise SweepError(f"metric {m.name!r}: model {model.name} has no frictional pair")
        if m.kind == "poincare":
            _check_poincare(m, model, outputs)


def _check_poincare(m: Metric, model, outputs: list) -> None:
    """A ``poincare`` metric's output and crossing name the model's outputs, and a
    stroboscopic section has a period (its own or the model's)."""
    section = m.section
    for what, name in (("output", m.target), ("crossing output", section.output)):
        if name is not None and name not in outputs:
            raise SweepError(f"metric {m.name!r}: model {model.name} has no {what} {name!r}; "
                             f"outputs: {', '.join(outputs)}")
    if section.kind == "stroboscopic" and section.period is None and getattr(
            model, "period", None) is None:
        raise SweepError(f"metric {m.name!r}: model {model.name} declares no forcing period "
                         "(Model.period) for a stroboscopic section; give one: "
                         f"{m.name}:period=T (s), or a crossing: poincare:{m.target}:"
                         "cross=NAME>VALUE")
