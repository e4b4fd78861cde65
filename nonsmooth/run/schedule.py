"""The run's options and schedule: the output grid and times (``t_eval``), the fixed-step grid,
the time stops (``tstops``) and the checks of the options (one-line errors that name the
option, its allowed range and what to try). The methods (``method`` below: a
:class:`~nonsmooth.run.methods.Method`) are in :mod:`nonsmooth.run.methods`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def _tol(t: float) -> float:
    """Times closer than this to ``t`` are the same instant (s)."""
    return 1e-13 * max(1.0, abs(t))


#: The time resolution of an engine event (relative to max(1, |t|)): a root is located to 1e-13 s
#: (``events.locate``, the compiled phases' Brent search); a zero within twice that is at t.
_EVENT_RESOLUTION = 2e-13


def _grid(t0, t_end, dt):
    """Output times ``t0, t0 + dt, ...``, never beyond ``t_end``, ending at ``t_end``."""
    n_grid = int(math.floor((t_end - t0) / dt + 1e-9))
    grid = np.minimum(t0 + dt * np.arange(n_grid + 1), t_end)
    if t_end - grid[-1] > 1e-12 * max(1.0, abs(t_end)):
        grid = np.append(grid, t_end)
    return grid


# ------------------------------------------------------------------------------- the event loop
@dataclass
class _Schedule:
    """Where a run records and where its phases must end.

    ``grid``: the output times (the uniform grid ``t0 + k dt``, or ``t_eval``); ``steps``: the
    fixed-step methods' step grid ``t0 + k dt``; ``stops``: the time stops (sorted, inside the
    span), where a phase ends and the next starts fresh; ``t_eval``: True when the outputs
    were given (then the run goes on to ``t_end`` after the last one, as ``solve_ivp`` does,
    and the fixed-step outputs come from the steps' interpolant)."""

    grid: np.ndarray
    steps: np.ndarray
    stops: np.ndarray
    t_end: float
    t_eval: bool = False

    def phase_end(self, t: float) -> float:
        """The end of a phase that starts at ``t``: the next time stop, else ``t_end``."""
        k = int(np.searchsorted(self.stops, t + _tol(t), side="right"))
        return float(self.stops[k]) if k < len(self.stops) else self.t_end

    def k_cap(self, t_bound: float) -> int:
        """The outputs a phase that ends at ``t_bound`` records: ``grid[:k_cap]``; an output at
        a time stop is the next phase's (the right-hand side's value from the stop on)."""
        if t_bound >= self.t_end:
            return len(self.grid)
        return int(np.searchsorted(self.grid, t_bound - _tol(t_bound), side="left"))


def _time_span(t_span) -> tuple[float, float]:
    if np.ndim(t_span) == 0:
        t0, t_end = 0.0, float(t_span)
    else:
        if len(t_span) != 2:
            raise ValueError(f"t_span must be t_end or (t0, t_end), got {t_span!r}")
        t0, t_end = float(t_span[0]), float(t_span[1])
    if not (math.isfinite(t0) and math.isfinite(t_end) and t_end > t0):
        raise ValueError(f"t_span = ({t0}, {t_end}) is invalid: the end time must be finite and "
                         "greater than the start time (s)")
    return t0, t_end


def _check_options(t0, t_end, dt, rtol, atol, max_evaluations, timeout, max_outputs,
                   method, on_grid=True) -> float:
    """Every numeric option checked, named, with its range; returns ``dt``. ``on_grid``: the
    outputs are the grid ``t0 + k dt`` (no ``t_eval``)."""
    dt = (t_end - t0) / 1000.0 if dt is None else float(dt)
    if not (math.isfinite(dt) and dt > 0):
        raise ValueError(f"dt = {dt!r} is invalid: the step must be a finite number > 0 (s)")
    if dt > t_end - t0:
        raise ValueError(f"dt = {dt:g} s is longer than the simulated interval "
                         f"{t_end - t0:g} s; choose dt <= t_end - t0")
    if on_grid or method.fixed:
        _check_outputs(t0, t_end, dt, max_outputs, method)
    if np.ndim(rtol) != 0:
        raise ValueError(f"rtol = {rtol!r} is invalid: give one number (a vector atol sets "
                         "per-component tolerances)")
    for name, val in (("rtol", rtol), ("atol", atol)):
        if np.ndim(val) == 0 and not (math.isfinite(val) and val > 0):
            raise ValueError(f"{name} = {val!r} is invalid: it must be a finite number > 0")
    if not (isinstance(max_evaluations, (int, np.integer)) and max_evaluations > 0):
        raise ValueError(f"max_evaluations = {max_evaluations!r} is invalid: it must be an "
                         "integer > 0")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout = {timeout!r} is invalid: it must be a finite number > 0 (s)")
    return dt


def _schedule(t0, t_end, dt, t_eval, tstops, max_outputs, method,
              given: bool = True) -> _Schedule:
    """The output times, the fixed-step grid and the time stops of a run, checked."""
    steps = _grid(t0, t_end, dt) if method.fixed or t_eval is None else np.zeros(0)
    grid = steps if t_eval is None else _check_t_eval(t_eval, t0, t_end, max_outputs)
    return _Schedule(grid, steps, _check_tstops(tstops, t0, t_end, given), t_end,
                     t_eval is not None)


def _times(value, name: str, example: str) -> np.ndarray:
    """``value`` as a 1-D array of finite times (s), or a ValueError naming ``name``."""
    if isinstance(value, (str, bytes)):
        arr = None
    else:
        try:
            raw = np.asarray(value)
            arr = (np.asarray(raw, dtype=float).reshape(-1) if raw.dtype.kind in "iuf"
                   else None)  # not None, a string, a bool
        except (TypeError, ValueError):  # ragged
            arr = None
    if arr is None:
        raise ValueError(f"{name} = {value!r} is invalid: give a sequence of times in s, e.g. "
                         f"{name}={example}")
    bad = arr[~np.isfinite(arr)]
    if bad.size:
        raise ValueError(f"{name} holds {float(bad[0])!r}: every time must be a finite number "
                         "(s)")
    return arr


def _check_t_eval(t_eval, t0, t_end, max_outputs) -> np.ndarray:
    times = _times(t_eval, "t_eval", "np.linspace(0, 1, 101)")
    if times.size == 0:
        raise ValueError("t_eval is empty: give at least one output time (s)")
    if np.any(np.diff(times) <= 0):
        raise ValueError("t_eval must be strictly increasing (s); sort it and drop repeated "
                         "times (np.unique)")
    if times[0] < t0 - _tol(t0) or times[-1] > t_end + _tol(t_end):
        raise ValueError(f"t_eval spans {times[0]:g} .. {times[-1]:g} s, outside t_span = "
                         f"({t0:g}, {t_end:g}) s: every output time must lie within the span")
    if times.size > max_outputs:
        raise ValueError(f"t_eval asks for {times.size:,} output rows, more than max_outputs "
                         f"= {max_outputs:,}: give fewer times or raise max_outputs")
    return np.clip(times, t0, t_end)


def _check_tstops(tstops, t0, t_end, given: bool = True) -> np.ndarray:
    """The time stops inside the open span ``(t0, t_end)``, increasing. Stops the caller gave
    (``given``) must be strictly increasing and inside the span (a ValueError naming it); a
    model's own (``Model.tstops``) outside a shorter run's span are left out."""
    if tstops is None:
        return np.zeros(0)
    times = _times(tstops, "tstops", "[0.4, 0.9]")
    inside = (times > t0 + _tol(t0)) & (times < t_end - _tol(t_end))
    if not given:
        return np.unique(times[inside])
    if np.any(np.diff(times) <= 0):
        k = int(np.flatnonzero(np.diff(times) <= 0)[0])
        raise ValueError(f"tstops must be strictly increasing (s): {times[k]:g} is followed by "
                         f"{times[k + 1]:g}; give them in increasing order without repeats, e.g. "
                         f"tstops={sorted(set(times.tolist()))}")
    if not np.all(inside):
        bad = times[~inside]
        raise ValueError(f"tstops holds {', '.join(f'{t:g}' for t in bad)} s, outside the span "
                         f"({t0:g}, {t_end:g}) s: every time stop must lie strictly between "
                         "t0 and t_end")
    return times


def _check_outputs(t0, t_end, dt, max_outputs, method):
    """Refuse a run whose output grid would not fit in memory (before anything is allocated)."""
    rows = (t_end - t0) / dt + 1.0
    if not math.isfinite(rows) or rows > max_outputs:
        gb = rows * 1.5e3 / 1e9
        hint = (f"use a larger dt (at least {(t_end - t0) / max_outputs:.3g} s)"
                if not method.fixed else
                "use an adaptive method (RK45, DOP853) with a larger dt (output spacing), or a "
                "larger step")
        count = f"{rows:.3g}" if math.isfinite(rows) else "more than 1e308"
        memory = f"about {gb:.3g} GB of memory" if math.isfinite(gb) else "beyond any memory"
        raise ValueError(
            f"the run asks for {count} output rows ((t_end - t0) / dt + 1 with dt = {dt:g} s; "
            f"{memory}), more than max_outputs = {max_outputs:,}: {hint}, a shorter t_end, or "
            "raise max_outputs")
