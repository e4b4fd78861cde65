"""Poincare sections of a run: the points where the motion pierces a surface, or its state
once per forcing period (stroboscopic).

A Poincare map reduces a flow to a map on a section of the state space (Guckenheimer & Holmes,
*Nonlinear Oscillations, Dynamical Systems, and Bifurcations of Vector Fields*, Springer 1983,
section 1.5); for a system forced with period ``T`` the natural section is stroboscopic, the
state at ``t = phase + j T``. For non-smooth mechanical systems (stick-slip, impacts) the map
is piecewise smooth and its fixed points, period-n orbits and their bifurcations are those of
Leine & Nijmeijer, *Dynamics and Bifurcations of Non-Smooth Mechanical Systems* (Springer
2004), chapters 2 and 7. A :class:`Section` is one of

* ``Section.stroboscopic(period=None, phase=0.0)``: the times ``phase + j period`` (s; default
  period: the model's forcing period ``Model.period``);
* ``Section.hyperplane(normal, offset=0.0, direction=1)``: ``n . y = c`` in the state,
  ``normal`` a dict ``{name: coefficient}`` of outputs that are state components (a coordinate
  such as ``block.x``, or a model output equal to one, such as the belt block's ``x``), or an
  array over ``Result.y``'s rows ``[q, v, z]``;
* ``Section.crossing(output, value=0.0, direction=1)``: any output ``result[output]`` crossing
  ``value``.

``direction`` follows scipy's events: > 0 upward crossings only (``g`` from negative to
positive), < 0 downward only, 0 both.

Accuracy. :func:`poincare` of a model runs it with the stroboscopic times among its outputs
(``t_eval``: the adaptive methods give them from the integrator's own dense output, at exactly
those times, without changing a step); a crossing is located by Brent's method on the run's
dense output (``Result.sol``: cubic Hermite on the outputs, events and time stops with the
exact derivatives there, error ``h^4 max|y''''| / 384`` for outputs ``h`` apart) wherever the
section's function is linear in the state (a hyperplane; an output that is, e.g. a relative
velocity ``v_r = v - v_belt``: recognized from the run's rows); another output (a friction
force) is located on the cubic through its four nearest samples. A crossing pair within one
output interval (a short excursion through the section) is not seen: refine the output spacing
``dt``. Sections of a :class:`~nonsmooth.result.Result` read the run as it is (a stroboscopic
time between outputs from the dense output).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .errors import NonsmoothError

__all__ = ["Section", "SectionPoints", "SectionError", "poincare", "parse_section_spec",
           "section_times", "section_count", "DEFAULT_LAST", "ON_SECTION"]

#: Points a ``poincare:`` sweep metric keeps per case when its spec does not say.
DEFAULT_LAST = 50
#: A section's function ``g`` (an output minus its value, ``n . y - c``) that stays within this
#: of zero over the whole run, relative to ``max(1, |c|, max |terms|)``, is identically on the
#: section: its sign changes are rounding, not crossings, and the section is refused.
ON_SECTION = 1e-12

_KINDS = ("stroboscopic", "hyperplane", "crossing")
_SPEC = ("poincare:OUTPUT[:period[=T]][:phase=P][:cross=NAME>V|NAME<V|NAME=V][:last=K], e.g. "
         "poincare:x, poincare:x:period=0.5:last=20, poincare:v:cross=x>0.01")


class SectionError(NonsmoothError, ValueError):
    """A Poincare section that cannot be taken: a malformed section or spec, a name the run
    does not answer, a stroboscopic section of a model without a forcing period."""


@dataclass(frozen=True, eq=False)
class Section:
    """A Poincare section (module docstring); build one with :meth:`stroboscopic`,
    :meth:`hyperplane` or :meth:`crossing`.

    Attributes
    ----------
    kind : str                  ``"stroboscopic"``, ``"hyperplane"`` or ``"crossing"``
    period : float or None      stroboscopic period (s); None: the model's ``Model.period``
    phase : float               stroboscopic phase (s): the times ``phase + j period``
    normal : dict or ndarray    hyperplane coefficients: ``{name: coefficient}`` or shape
                                (n_states,) over ``[q, v, z]``
    offset : float              hyperplane offset ``c`` (units of ``n . y``)
    output : str or None        the crossing's output
    value : float               the value it crosses
    direction : float           > 0 upward crossings, < 0 downward, 0 both
    """

    kind: str
    period: float | None = None
    phase: float = 0.0
    normal: object = None
    offset: float = 0.0
    output: str | None = None
    value: float = 0.0
    direction: float = 1.0

    # ------------------------------------------------------------------ constructors
    @classmethod
    def stroboscopic(cls, period: float | None = None, phase: float = 0.0) -> Section:
        """The state at ``t = phase + j period`` (s), ``j = 0, 1, ...`` within the run's span;
        ``period`` None: the model's forcing period (``Model.period``)."""
        if period is not None:
            period = _number("period", period, positive=True, unit="s")
        return cls("stroboscopic", period=period, phase=_number("phase", phase, unit="s"))

    @classmethod
    def hyperplane(cls, normal, offset: float = 0.0, direction: float = 1.0) -> Section:
        """Where ``sum_i normal[i] y_i = offset`` is crossed in ``direction``; ``normal`` a
        dict ``{name: coefficient}`` of state components by name (``block.x``, or a model
        output equal to one) or an array, shape (n_states,), over ``[q, v, z]``."""
        if isinstance(normal, Mapping):
            if not normal:
                raise SectionError("Section.hyperplane: normal = {} has no component; give "
                                   "{name: coefficient}, e.g. {'block.x': 1.0}")
            normal = {str(k): _number(f"normal[{k!r}]", v) for k, v in normal.items()}
            if not any(normal.values()):
                raise SectionError(f"Section.hyperplane: normal = {normal!r} is zero: no "
                                   "motion can cross it; give a non-zero coefficient, e.g. "
                                   "{'block.x': 1.0}")
        else:
            arr = np.asarray(normal, dtype=float).reshape(-1) if not isinstance(
                normal, (str, bytes)) else np.zeros(0)
            if arr.size == 0 or not np.all(np.isfinite(arr)) or not np.any(arr):
                raise SectionError(f"Section.hyperplane: normal = {normal!r} is invalid: give "
                                   "a dict {name: coefficient} or a finite, non-zero array "
                                   "over the state [q, v, z]")
            normal = arr
        return cls("hyperplane", normal=normal, offset=_number("offset", offset),
                   direction=_direction(direction))

    @classmethod
    def crossing(cls, output: str, value: float = 0.0, direction: float = 1.0) -> Section:
        """Where the output ``result[output]`` crosses ``value`` in ``direction``."""
        if not isinstance(output, str) or not output:
            raise SectionError(f"Section.crossing: output = {output!r} is invalid: give an "
                               "output's name (a str that result[name] answers, e.g. 'x')")
        return cls("crossing", output=output, value=_number("value", value),
                   direction=_direction(direction))

    # ------------------------------------------------------------------ use
    def resolved_period(self, model) -> float:
        """The stroboscopic period (s): its own, else ``model.period``."""
        period = self.period if self.period is not None else getattr(model, "period", None)
        if period is None:
            raise SectionError(
                f"a stroboscopic section of model {getattr(model, 'name', '?')} needs a period: "
                "the model declares no forcing period (Model.period); give one "
                "(Section.stroboscopic(period=T), or period=T in a poincare: spec)")
        return float(period)

    def output_times(self, model, t0: float, t_end: float,
                     limit: int | None = None) -> np.ndarray | None:
        """The times a run must output for this section to be exact: the stroboscopic times
        within ``[t0, t_end]`` (s), shape (k,); None for an event section. More than ``limit``
        times (default :data:`nonsmooth.limits.MAX_OUTPUTS`) are refused before any is made
        (:class:`SectionError`)."""
        if self.kind != "stroboscopic":
            return None
        period = self.resolved_period(model)
        self._check_count(period, t0, t_end, limit, "max_points")
        return section_times(period, self.phase, t0, t_end)

    def _check_count(self, period: float, t0: float, t_end: float, limit: int | None,
                     option: str) -> int:
        """The number of stroboscopic times in ``[t0, t_end]``, refused above ``limit``."""
        from .limits import MAX_OUTPUTS

        limit = MAX_OUTPUTS if limit is None else int(limit)
        count = section_count(period, self.phase, t0, t_end)
        if count > limit:
            raise SectionError(
                f"a stroboscopic section of period {period:g} s over {t0:g} .. {t_end:g} s has "
                f"{count:.3g} points, more than {option} = {limit:,} (about "
                f"{count * 8e-9:.3g} GB per column): give a longer period (at least "
                f"{(t_end - t0) / limit:.3g} s) or a shorter span, or raise {option}")
        return count

    def points(self, result, max_points: int | None = None) -> SectionPoints:
        """The section's points in ``result`` (a :class:`~nonsmooth.result.Result`); a
        stroboscopic section with more than ``max_points`` times (default
        :data:`nonsmooth.limits.MAX_OUTPUTS`) is refused before any is made."""
        if len(result.t) < 2:
            raise SectionError("the run has fewer than two outputs: no interval to take a "
                               "section in")
        if self.kind == "stroboscopic":
            period = self.resolved_period(result.model)
            span = _span(result)
            self._check_count(period, *span, max_points, "max_points")
            times = section_times(period, self.phase, *span)
            return SectionPoints(times, self, result)
        if self.kind == "hyperplane":
            coef = self._coefficients(result)
            return SectionPoints(_crossings(result, coef, self.offset, self.direction,
                                            self.describe()), self, result)
        linear = _linear_in_state(result, self.output)
        if linear is not None:
            coef, const = linear
            times = _crossings(result, coef, self.value - const, self.direction,
                               self.describe())
        else:
            times = _sample_crossings(result, self.output, self.value, self.direction)
        return SectionPoints(times, self, result)

    def _coefficients(self, result) -> np.ndarray:
        n = result.layout.n_states
        if isinstance(self.normal, np.ndarray):
            if self.normal.size != n:
                raise SectionError(
                    f"Section.hyperplane: normal has {self.normal.size} entries; the state "
                    f"[q, v, z] of model {result.model.name} has {n} ({_state_names(result)})")
            return self.normal
        coef = np.zeros(n)
        for name, c in self.normal.items():
            column = _state_column(result, name)
            if column is None:
                raise SectionError(
                    f"Section.hyperplane: {name!r} is not a state component of model "
                    f"{result.model.name} (a coordinate, a velocity, or an output equal to "
                    f"one: {', '.join(_state_names(result))}); a section on any output is "
                    f"Section.crossing({name!r}, value)")
            coef[column] += c
        if not np.any(coef):
            terms = " + ".join(f"{c:g} {k}" for k, c in self.normal.items())
            raise SectionError(
                f"Section.hyperplane: the normal {terms} is zero in the state of model "
                f"{result.model.name} (its coefficients cancel or are all 0): no motion can "
                "cross it; give a non-zero coefficient of a state component")
        return coef

    def describe(self) -> str:
        """The section in words (a plot's label)."""
        if self.kind == "stroboscopic":
            period = "the forcing period" if self.period is None else f"{self.period:g} s"
            return f"stroboscopic, period {period}" + (
                f", phase {self.phase:g} s" if self.phase else "")
        arrow = {1.0: "upward", -1.0: "downward", 0.0: "either way"}[self.direction]
        if self.kind == "crossing":
            return f"{self.output} = {self.value:g} ({arrow})"
        terms = (" + ".join(f"{c:g} {k}" for k, c in self.normal.items())
                 if isinstance(self.normal, dict) else "n . y")
        return f"{terms} = {self.offset:g} ({arrow})"


def _number(name: str, value, *, positive: bool = False, unit: str = "") -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if isinstance(value, bool) or not math.isfinite(x) or (positive and x <= 0):
        need = "a finite number > 0" if positive else "a finite number"
        raise SectionError(f"section: {name} = {value!r} is invalid: it must be {need}"
                           + (f" ({unit})" if unit else ""))
    return x


def _direction(value) -> float:
    x = _number("direction", value)
    return float(np.sign(x))


def section_count(period: float, phase: float, t0: float, t_end: float) -> int:
    """How many stroboscopic times ``phase + j period`` lie within ``[t0, t_end]`` (counted,
    not made: :func:`section_times` makes them)."""
    tol = 1e-12 * max(1.0, abs(t0), abs(t_end))
    j0 = math.ceil((t0 - phase - tol) / period)
    j1 = math.floor((t_end - phase + tol) / period)
    return max(0, j1 - j0 + 1)


def section_times(period: float, phase: float, t0: float, t_end: float) -> np.ndarray:
    """The stroboscopic times ``phase + j period`` within ``[t0, t_end]`` (s), shape (k,);
    each computed as one product (no accumulated sum), so a time is exact to one rounding."""
    tol = 1e-12 * max(1.0, abs(t0), abs(t_end))
    j0 = math.ceil((t0 - phase - tol) / period)
    j1 = math.floor((t_end - phase + tol) / period)
    if j1 < j0:
        return np.zeros(0)
    times = phase + period * np.arange(j0, j1 + 1, dtype=float)
    return np.clip(times, t0, t_end)


def _span(result) -> tuple[float, float]:
    """The times the run went through (s): its first output to its last state (a knot of
    its dense output: the end reached, or the terminal event)."""
    ends = [float(result.t[-1])] + [float(k[0]) for k in result._knots[-1:]]
    starts = [float(result.t[0])] + [float(k[0]) for k in result._knots[:1]]
    return min(starts), max(ends)


# ---------------------------------------------------------------------- the state by name
def _state_names(result) -> list[str]:
    z = [f"z[{i}]" for i in range(result.layout.n_z)]
    coords = list(result.coordinate_names)
    vels = [f"d/dt {n}" if n in coords else n for n in result.velocity_names]
    return coords + vels + z


def _state_column(result, name: str) -> int | None:
    """The row of ``Result.y`` that ``name`` is (a coordinate, a velocity named apart, or any
    output whose values equal one row exactly at every output), or None."""
    coords = list(result.coordinate_names)
    if name in coords:
        return coords.index(name)
    try:
        values = np.asarray(result[name], dtype=float)
    except KeyError as exc:
        raise SectionError(f"section: {exc.args[0]}") from None
    if values.shape != result.t.shape:
        return None
    Y = result.y
    for row in range(Y.shape[0]):
        if np.array_equal(Y[row], values):
            return row
    return None


def _linear_in_state(result, name: str) -> tuple[np.ndarray, float] | None:
    """``(coef (n_states,), const)`` with ``result[name] = coef . y + const`` at every output
    (to 1e-12 of its scale: a state component, a relative velocity ...), or None."""
    column = _state_column(result, name)
    n = result.layout.n_states
    if column is not None:
        coef = np.zeros(n)
        coef[column] = 1.0
        return coef, 0.0
    values = np.asarray(result[name], dtype=float)
    if values.shape != result.t.shape or not np.all(np.isfinite(values)):
        return None
    A = np.column_stack([result.y.T, np.ones(values.size)])
    if A.shape[0] <= A.shape[1]:
        return None
    sol, *_ = np.linalg.lstsq(A, values, rcond=None)
    scale = max(float(np.max(np.abs(values))), 1e-300)
    if float(np.max(np.abs(A @ sol - values))) > 1e-11 * scale:
        return None
    return sol[:-1], float(sol[-1])


# ---------------------------------------------------------------------- locating crossings
def _watched(g0: np.ndarray, g1: np.ndarray, direction: float) -> np.ndarray:
    """Intervals where ``g`` crosses zero from ``g0`` to ``g1`` in ``direction`` (a zero at
    the start of an interval counts once: at the interval it enters)."""
    up = (g0 < 0) & (g1 >= 0)
    down = (g0 > 0) & (g1 <= 0)
    if direction > 0:
        return up
    if direction < 0:
        return down
    return up | down


def _refuse_identical(g: np.ndarray, scale: float, what: str) -> None:
    """Refuse a section whose function ``g`` (its values over the run) stays within
    :data:`ON_SECTION` times ``scale`` of zero: the run lies on the section throughout."""
    if g.size and float(np.max(np.abs(g))) <= ON_SECTION * max(1.0, scale):
        raise SectionError(
            f"section {what}: the run lies on the section throughout (the difference stays "
            f"within {float(np.max(np.abs(g))):.3g} of zero, rounding): its sign changes are "
            "not crossings; choose an output or a value the motion crosses")


def _crossings(result, coef: np.ndarray, offset: float, direction: float,
               what: str = "") -> np.ndarray:
    """Times (s) where ``coef . y(t) = offset`` is crossed, located by Brent's method on the
    run's dense output (cubic Hermite between its knots: the outputs, events and stops)."""
    from scipy.optimize import brentq

    sol = result.sol
    knots_t, knots_y = sol.t, sol.y
    g = knots_y @ coef - offset
    _refuse_identical(g, max(abs(offset), float(np.max(np.abs(knots_y) @ np.abs(coef),
                                                       initial=0.0))), what)
    hits = np.flatnonzero(_watched(g[:-1], g[1:], direction))

    def fn(t):
        return float(coef @ sol(t) - offset)

    times = []
    for i in hits:
        a, b = float(knots_t[i]), float(knots_t[i + 1])
        if g[i + 1] == 0.0:
            times.append(b)
            continue
        times.append(brentq(fn, a, b, xtol=1e-14 * max(1.0, abs(b)),
                            rtol=4 * np.finfo(float).eps))
    return np.array(times, dtype=float)


def _sample_crossings(result, name: str, value: float, direction: float) -> np.ndarray:
    """Times (s) where the output ``name`` (not linear in the state) crosses ``value``: on the
    cubic through the four samples around each sign change (two at the ends of the run)."""
    from scipy.optimize import brentq

    t = result.t
    values = np.asarray(result[name], dtype=float)
    g = values - value
    _refuse_identical(g, max(abs(value), float(np.max(np.abs(values), initial=0.0))),
                      f"{name} = {value:g}")
    hits = np.flatnonzero(_watched(g[:-1], g[1:], direction))
    times = []
    for i in hits:
        if g[i + 1] == 0.0:
            times.append(float(t[i + 1]))
            continue
        lo, hi = max(0, i - 1), min(t.size, i + 3)
        if hi - lo < 4:
            lo, hi = max(0, hi - 4), min(t.size, lo + 4)
        poly = np.polynomial.Polynomial.fit(t[lo:hi], g[lo:hi], min(3, hi - lo - 1))
        a, b = float(t[i]), float(t[i + 1])
        pa, pb = poly(a), poly(b)
        if pa * pb > 0:  # the cubic misses the sign change: fall back to the chord
            times.append(a + (b - a) * g[i] / (g[i] - g[i + 1]))
        else:
            times.append(brentq(poly, a, b, xtol=1e-14 * max(1.0, abs(b))))
    return np.array(times, dtype=float)


# ---------------------------------------------------------------------- the points
class SectionPoints:
    """The points of a Poincare section in one run.

    Attributes
    ----------
    t : ndarray, shape (k,)          the times of the points (s)
    y : ndarray, shape (k, n_states) the state ``[q, v, z]`` there (``Result.y``'s rows, from
                                     the output rows where a point is one, else the dense
                                     output)
    section : Section
    result : Result                  the run the points are of

    ``points[name]`` is an output at the points, shape (k,): any name ``result[name]``
    answers (from the run's row at a point that is an output, else from the dense output where
    the output is linear in the state, else the cubic through its four nearest samples);
    ``points.last(k)`` the last ``k`` points.
    """

    def __init__(self, t, section: Section, result, *, _rows=None):
        self.t = np.asarray(t, dtype=float).reshape(-1)
        self.section = section
        self.result = result
        rows = _rows if _rows is not None else _output_rows(result.t, self.t)
        self._rows = rows
        exact = rows >= 0
        Y = np.zeros((self.t.size, result.layout.n_states))
        if exact.any():  # output rows: the integrator's states there
            Y[exact] = np.hstack([result.q[rows[exact]], result.v[rows[exact]],
                                  result.z[rows[exact]]])
        if (~exact).any():  # between outputs: the dense output
            Y[~exact] = result.sol(self.t[~exact]).T.reshape(-1, Y.shape[1])
        self.y = Y

    def __len__(self) -> int:
        return self.t.size

    def __repr__(self) -> str:
        return (f"SectionPoints({self.t.size} points of {self.section.describe()}, model "
                f"{getattr(self.result.model, 'name', '?')!r})")

    def last(self, k: int) -> SectionPoints:
        """The last ``k`` points (all of them when there are fewer)."""
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
            raise SectionError(f"last = {k!r} is invalid: give a number of points >= 1")
        keep = slice(max(0, self.t.size - int(k)), None)
        out = SectionPoints.__new__(SectionPoints)
        out.t, out.y, out._rows = self.t[keep], self.y[keep], self._rows[keep]
        out.section, out.result = self.section, self.result
        return out

    def __getitem__(self, name: str) -> np.ndarray:
        if not isinstance(name, str):
            raise TypeError(f"points[{name!r}]: the points are indexed by an output's name, "
                            "e.g. points['x']; their times: points.t, states: points.y")
        result = self.result
        if name == "t":
            return self.t.copy()
        try:
            values = np.asarray(result[name], dtype=float)
        except KeyError as exc:
            raise SectionError(f"section points: {exc.args[0]}") from None
        if values.shape != result.t.shape:
            raise SectionError(f"section points: {name!r} is not one column (shape "
                               f"{values.shape}); name one pair's column, e.g. "
                               f"'{name}:{(result.pair_names or ['PAIR'])[0]}'")
        out = np.empty(self.t.size)
        exact = self._rows >= 0
        out[exact] = values[self._rows[exact]]
        if (~exact).any():
            linear = _linear_in_state(result, name)
            if linear is not None:
                out[~exact] = self.y[~exact] @ linear[0] + linear[1]
            else:
                out[~exact] = _cubic_at(result.t, values, self.t[~exact])
        return out


def _output_rows(t_out: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The output row at each time (within 1e-13 s relative), -1 where none is."""
    if not times.size or not t_out.size:
        return np.full(times.size, -1, dtype=np.int64)
    i = np.clip(np.searchsorted(t_out, times), 0, t_out.size - 1)
    j = np.clip(i - 1, 0, t_out.size - 1)
    best = np.where(np.abs(t_out[j] - times) < np.abs(t_out[i] - times), j, i)
    tol = 1e-13 * np.maximum(1.0, np.abs(times))
    return np.where(np.abs(t_out[best] - times) <= tol, best, -1).astype(np.int64)


def _cubic_at(t: np.ndarray, values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """The cubic through the four samples around each of ``times``."""
    out = np.empty(times.size)
    for k, tk in enumerate(times):
        i = int(np.clip(np.searchsorted(t, tk) - 1, 0, t.size - 1))
        lo, hi = max(0, i - 1), min(t.size, i + 3)
        if hi - lo < 4:
            lo, hi = max(0, hi - 4), min(t.size, lo + 4)
        poly = np.polynomial.Polynomial.fit(t[lo:hi], values[lo:hi], min(3, hi - lo - 1))
        out[k] = poly(tk)
    return out


# ---------------------------------------------------------------------- entry point
def poincare(source, section: Section, *, t_span=None, last: int | None = None,
             max_points: int | None = None, **options) -> SectionPoints:
    """The points of a Poincare ``section`` of a run.

    Parameters
    ----------
    source : Result or model
        A finished run (:class:`~nonsmooth.result.Result`: its section as it is), or anything
        :func:`nonsmooth.simulate` runs (a ``Model``, a ``PlanarModel`` ...), which is run
        over ``t_span`` with ``options``, a stroboscopic section's times among its outputs.
    section : Section
        :meth:`Section.stroboscopic`, :meth:`Section.hyperplane` or :meth:`Section.crossing`.
    t_span : float or (float, float), optional
        A model's run span (s); default the model's.
    last : int, optional
        Keep only the last ``last`` points (the transient left out).
    max_points : int, optional
        Most points a stroboscopic section of a :class:`~nonsmooth.result.Result` may have
        (default :data:`nonsmooth.limits.MAX_OUTPUTS`); a model's run is bounded by its
        ``max_outputs`` (its section times and output grid together). Counted before
        anything is made: more are refused (:class:`SectionError` with the count).
    **options
        Other :func:`nonsmooth.simulate` options (``dt``, ``rtol``, ``method`` ...).

    Returns
    -------
    SectionPoints
        ``points.t`` (k,), ``points.y`` (k, n_states), ``points["x"]`` (k,).

    Examples
    --------
    >>> from nonsmooth.models import forced_stick_slip                   # doctest: +SKIP
    >>> pts = poincare(forced_stick_slip.build(omega=2.4), Section.stroboscopic(), last=20)
    >>> pts["x"]  # the block's position once per forcing period (m)
    """
    if not isinstance(section, Section):
        raise SectionError(f"section = {section!r} is invalid: give a Section "
                           "(Section.stroboscopic(period), Section.hyperplane({name: c}, "
                           "offset), Section.crossing(output, value))")
    from .result import Result

    if isinstance(source, Result):
        if t_span is not None or options:
            raise SectionError("poincare(result, ...): the run is done; t_span and simulate "
                               "options apply to a model only")
        points = section.points(source, max_points)
    else:
        result = _run_for(source, section, t_span, options)
        points = section.points(result)
    return points if last is None else points.last(last)


def _run_for(source, section: Section, t_span, options: dict):
    """Run a model with the section's times among its outputs (``t_eval``)."""
    from .model import as_model
    from .run.schedule import _grid, _time_span
    from .simulate import simulate

    model = as_model(source)
    if "t_eval" in options and section.kind == "stroboscopic":
        raise SectionError("poincare: a stroboscopic section sets the run's output times "
                           "itself; give dt (the spacing of the other outputs), not t_eval")
    t0, t_end = _time_span(model.t_end if t_span is None else t_span)
    if section.kind == "stroboscopic":
        from .limits import MAX_OUTPUTS

        limit = int(options.get("max_outputs") or MAX_OUTPUTS)
        dt = options.pop("dt", None) or model.dt or (t_end - t0) / 1000.0
        count = section._check_count(section.resolved_period(model), t0, t_end, limit,
                                     "max_outputs")
        rows = (t_end - t0) / dt + 1.0
        if count + rows > limit:  # counted before the grid or the times are made
            raise SectionError(
                f"poincare: the run would output {count + rows:.3g} rows (the section's "
                f"{count:,} times and {rows:.3g} of the grid dt = {dt:g} s), more than "
                f"max_outputs = {limit:,}: give a larger dt, a longer period or a shorter span")
        extra = section.output_times(model, t0, t_end, limit)
        options["t_eval"] = merge_times(_grid(t0, t_end, dt), extra)
    return simulate(model, (t0, t_end), **options)


def merge_times(grid: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """The output grid with the section's times added, sorted; a grid time within 1e-13 s
    (relative) of a section time is replaced by it."""
    grid = np.asarray(grid, dtype=float)
    extra = np.asarray(extra, dtype=float)
    if not extra.size:
        return grid
    near = _output_rows(extra, grid) >= 0
    return np.union1d(grid[~near], extra)


# ---------------------------------------------------------------------- the text spec
def parse_section_spec(text: str) -> tuple[str, Section, int]:
    """A ``poincare:`` metric spec (without the ``poincare:`` prefix):
    ``OUTPUT[:period[=T]][:phase=P][:cross=NAME>V|NAME<V|NAME=V][:last=K]`` as
    ``(output, section, last)``. Without ``cross`` the section is stroboscopic (default
    period: the model's); ``>`` is an upward crossing, ``<`` downward, ``=`` both."""
    parts = [p.strip() for p in text.split(":")]
    output = parts[0]
    if not output:
        raise SectionError(f"metric 'poincare:{text}' names no output; write {_SPEC}")
    fields = _spec_fields(text, parts[1:])
    last = fields.get("last", DEFAULT_LAST)
    cross = fields.get("cross")
    if cross is None:
        return output, Section.stroboscopic(fields.get("period"), fields.get("phase", 0.0)), last
    if "period" in fields or "phase" in fields:
        raise SectionError(f"metric 'poincare:{text}': give either a stroboscopic period or a "
                           "crossing (cross=...), not both")
    for op, direction in ((">", 1.0), ("<", -1.0), ("=", 0.0)):
        name, found, level = cross.partition(op)
        if found and name.strip():
            return output, Section.crossing(name.strip(), _spec_number(
                text, "cross value", level), direction), last
    raise SectionError(f"metric 'poincare:{text}': cross = {cross!r} is invalid: write "
                       "cross=NAME>VALUE (upward), NAME<VALUE (downward) or NAME=VALUE (both)")


def _spec_fields(text: str, parts: list[str]) -> dict:
    """The fields after the output: ``period`` (None: the model's), ``phase``, ``cross`` (its
    text), ``last``; each at most once."""
    fields: dict = {}
    for part in parts:
        key, eq, value = part.partition("=")
        key = key.strip()
        if key in fields:
            raise SectionError(f"metric 'poincare:{text}': {key} given twice; write {_SPEC}")
        if key == "period":
            fields[key] = None if not eq else _spec_number(text, "period", value, positive=True)
        elif key == "phase" and eq:
            fields[key] = _spec_number(text, "phase", value)
        elif key == "last" and eq:
            fields[key] = int(value) if value.strip().isdigit() else 0
            if fields[key] < 1:
                raise SectionError(f"metric 'poincare:{text}': last = {value!r} is invalid: "
                                   "give a number of points >= 1")
        elif key == "cross" and eq:
            fields[key] = value
        else:
            raise SectionError(f"metric 'poincare:{text}': unknown field {part!r}; write "
                               f"{_SPEC}")
    return fields


def _spec_number(text: str, what: str, value: str, positive: bool = False) -> float:
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not math.isfinite(x) or (positive and x <= 0):
        raise SectionError(f"metric 'poincare:{text}': {what} = {value!r} is invalid: it must "
                           f"be a finite number{' > 0' if positive else ''}")
    return x
