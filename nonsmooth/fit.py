"""Identification: friction and model parameters fitted to measured time series (:func:`fit`).

One concept: weighted nonlinear least squares over runs of a model. The residual of a parameter
vector ``p`` (k,) is ``r(p) = w * (y(t_i; p) - y_i)`` over the data's samples ``(t_i, y_i)``
and outputs (any name ``result[...]`` answers: ``x``, ``block.vx``, ``contact.F_f`` ...), each
sample's ``y(t_i; p)`` from one run of the model built with ``p`` (``simulate(...,
t_eval=t)``: the run's dense output at the data's times). ``scipy.optimize.least_squares``
(``method="trf"``, a trust-region reflective method that keeps every iterate strictly inside
the bounds) minimizes ``0.5 |r|^2``; the bounds default to the model's physical ranges
(``PARAMETERS``, :mod:`nonsmooth.friction.schema`).

Derivatives. An event-driven run is piecewise smooth in its parameters: the event times move
with them, and a sample's value has a kink where an event crosses it (the velocity's slope
jumps at a stick onset; the position stays continuously differentiable). The Jacobian is taken
by central differences of runs (:func:`_jacobian`), in parameters scaled by their initial
values, with the relative step ``diff_step = sqrt(rtol)`` of the runs' tolerance (the default
runs' DOP853 at rtol 1e-11: steps of 3.2e-6): the truncation error of a central difference is
of order ``h^2`` times the output's curvature in ``p`` (large: an event that moves shifts
everything after it), the run's own error of order ``rtol / h``; on the belt oscillator the
derivative of the position changes by 5e-4 between ``h = 1e-3`` and ``1e-4``, by 1.5e-6 between
1e-4 and 1e-5 and by 1e-7 between 1e-5 and 1e-6 (``docs/method.md``, section 16.1).
A step that would leave the bounds becomes one-sided.

Uncertainty. At the optimum ``p*`` with Jacobian ``J`` (n, k) of the weighted residual, the
covariance is ``cov = s^2 (J^T J)^-1`` with ``s^2 = |r|^2 / (n - k)`` (Bates & Watts,
*Nonlinear Regression Analysis and Its Applications*, 1988, section 2.3; Seber & Wild,
*Nonlinear Regression*, 1989, section 2.1), the standard errors its diagonal's square roots,
the correlation ``cov_ij / (se_i se_j)``; with ``absolute_weights=True`` (weights ``1 /
sigma_i`` of known noise) ``cov = (J^T J)^-1``, as ``scipy.optimize.curve_fit``'s
``absolute_sigma``. The inverse is taken through the singular value decomposition of the
column-equilibrated Jacobian (each column scaled to unit length: Belsley, Kuh & Welsch,
*Regression Diagnostics*, 1980, chapter 3). A singular value below ``rcond`` times the
largest (default :data:`RCOND`: ~100 times the difference step, what the Jacobian's own
error cannot tell from zero) is a direction of parameter space the data do not determine: the
parameters that take part in it (their share of the singular vector above
:data:`NULL_SHARE`) and those with no effect on the outputs get the standard error ``inf`` and
correlations ``nan``, and an :class:`IdentifiabilityWarning` names them; the others keep their
standard errors (estimable functions: Seber & Wild section 3.6). Correlations above
:data:`CORRELATION_LIMIT` in magnitude (the data barely separate the two) warn too.

Runs. The ``2 k`` runs of a Jacobian are independent: ``scheduler="processes"`` runs them on
worker processes through the sweep machinery's schedulers (:mod:`nonsmooth.study.schedulers`);
the default ``"serial"`` runs them here (on the belt oscillator's 0.05 s runs the processes'
start and the traffic cost more than they save on 2 cores: ``benchmarks/fit.py`` measures it).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .errors import DataError, FitError, ModelError, NonsmoothError

__all__ = ["fit", "Fit", "IdentifiabilityWarning", "LackOfFitWarning", "load_data", "RCOND",
           "CORRELATION_LIMIT", "NULL_SHARE", "NOISE_RATIO"]

#: Correlations of two estimates above this in magnitude warn (IdentifiabilityWarning): the
#: data barely tell the two apart (condition number of the pair ``sqrt((1+rho)/(1-rho))``
#: above 45).
CORRELATION_LIMIT = 0.999
#: Default ``rcond`` relative to the difference step: singular values of the
#: column-equilibrated Jacobian below ``RCOND * diff_step`` times the largest are taken as zero
#: (the Jacobian's own relative error is of order ``diff_step``).
RCOND = 100.0
#: A parameter takes part in an undetermined direction when its component in the direction's
#: unit singular vector exceeds this in magnitude.
NULL_SHARE = 0.05

#: Given weights (``1 / sigma`` of the samples' noise), a fit whose weighted residual's scale
#: ``s`` exceeds this (the residual this many times the noise the weights imply) warns
#: (:class:`LackOfFitWarning`), when the chi-square test of ``s^2 dof`` also rejects the
#: noise level at :data:`LACK_OF_FIT_LEVEL`.
NOISE_RATIO = 3.0
#: Significance level of the lack-of-fit test (``P(chi2_dof > s^2 dof)`` below it).
LACK_OF_FIT_LEVEL = 1e-3

#: ``simulate`` keyword arguments ``fit`` passes to every run (``options=``).
RUN_OPTIONS = ("method", "rtol", "atol", "max_step", "alpha", "beta", "max_evaluations",
               "timeout", "tstops", "max_outputs")


class IdentifiabilityWarning(UserWarning):
    """The data do not determine some fitted parameters: the (column-equilibrated) Jacobian of
    the residual at the optimum is near singular (a parameter with no effect on the outputs,
    parameters that enter only in a combination such as a product or a ratio), or two
    estimates are correlated beyond :data:`CORRELATION_LIMIT`. ``parameters`` names them."""

    def __init__(self, message: str, parameters: Sequence[str] = ()):
        super().__init__(message)
        self.parameters = tuple(parameters)


class LackOfFitWarning(UserWarning):
    """The fit's optimum does not explain the data: the weighted residual is far above the
    noise the given weights imply (a local minimum, bounds that exclude the truth, or a model
    that cannot produce the data), or an estimate ended at one of its bounds (the data pull it
    outside; its standard error assumes an interior optimum). ``parameters`` names the
    estimates at a bound."""

    def __init__(self, message: str, parameters: Sequence[str] = ()):
        super().__init__(message)
        self.parameters = tuple(parameters)


class _Stopped(Exception):
    """The fit's wall-clock ``timeout`` was reached (raised between runs, or by a run that the
    time left ended)."""


# ------------------------------------------------------------------------------ the data
def load_data(data) -> dict[str, np.ndarray]:
    """The measured series as ``{"t": (n,), name: (n,), ...}`` float arrays, from a mapping of
    array-likes or the path of a CSV file (a header row naming ``t`` and the outputs, one row
    per sample, comma separated). Checked: a ``t`` column, equal lengths, numbers only, no NaN
    or inf, strictly increasing times (:class:`~nonsmooth.errors.DataError` naming the column
    and the row otherwise)."""
    columns, where = _columns(data)
    if "t" not in columns:
        raise DataError(f"{where} has no time column 't' (columns: "
                        f"{', '.join(columns) or 'none'}); name the sample times t (s)")
    n = columns["t"].size
    if n == 0:
        raise DataError(f"{where} has no samples (a header row {', '.join(columns)} and no "
                        "values); give one row per sample below the header")
    for key, arr in columns.items():
        if arr.size != n:
            raise DataError(f"{where}: column {key!r} has {arr.size} values, t has {n}; give one "
                            "value per sample in every column")
    if len(columns) < 2:
        raise DataError(f"{where} has only the time column; add a column per measured output")
    for key, arr in columns.items():
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            kind = "NaN" if np.isnan(arr[bad[0]]) else "inf"
            raise DataError(f"{where}: column {key!r} has {bad.size} non-finite value(s) (the "
                            f"first, {kind}, in row {bad[0]}); remove those samples or fill them")
    t = columns["t"]
    steps = np.diff(t)
    if steps.size and np.any(steps <= 0):
        i = int(np.flatnonzero(steps <= 0)[0])
        if steps[i] == 0:
            raise DataError(f"{where}: the time t = {t[i]:g} s appears twice (rows {i} and "
                            f"{i + 1}); give each sample time once (average duplicates)")
        raise DataError(f"{where}: the times are not sorted (t = {t[i]:g} s in row {i} is "
                        f"followed by t = {t[i + 1]:g} s); sort the samples by time")
    return columns


def _columns(data) -> tuple[dict[str, np.ndarray], str]:
    """The columns of ``data`` (a mapping or a CSV path) as float arrays, and how the messages
    name the data."""
    if isinstance(data, (str, Path)):
        return _read_csv(Path(data)), f"data file {data}"
    if not isinstance(data, Mapping):
        raise DataError(f"data = {type(data).__name__}: give a mapping {{'t': times, "
                        "'<output>': values, ...}} or the path of a CSV file with a header row")
    columns = {}
    for key, values in data.items():
        try:
            arr = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise DataError(f"data: column {key!r} is not numeric; give numbers (an array of "
                            "floats) for t and each output") from None
        if arr.ndim != 1:
            raise DataError(f"data: column {key!r} has shape {arr.shape}; give one value per "
                            "sample (a 1-D array)")
        columns[str(key)] = arr
    return columns, "data"


def _read_csv(path: Path) -> dict[str, np.ndarray]:
    import csv

    where = f"data file {path}"
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:  # a spreadsheet's BOM
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise DataError(f"cannot read the {where}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"the {where} is not a text CSV file: {exc}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise DataError(f"the {where} is empty; give a header row (t, outputs) and one row per "
                        "sample")
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        twice = sorted({h for h in header if header.count(h) > 1})
        raise DataError(f"{where}: the column(s) {', '.join(twice)} appear twice in the header")
    values = np.empty((len(rows) - 1, len(header)))
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise DataError(f"{where}, line {i}: {len(row)} values for {len(header)} columns "
                            f"({', '.join(header)})")
        for j, cell in enumerate(row):
            text = cell.strip()
            try:
                values[i - 2, j] = float(text) if text else math.nan
            except ValueError:
                raise DataError(f"{where}, line {i}: {header[j]} = {text!r} is not a number"
                                ) from None
    return {h: values[:, j].copy() for j, h in enumerate(header)}


def _weights(weights, outputs: Sequence[str], data: dict) -> np.ndarray:
    """The weight of every sample and output, (m, n), from ``fit``'s ``weights``."""
    n = data["t"].size
    default = {}
    for name in outputs:
        spread = float(np.std(data[name]))
        default[name] = 1.0 / spread if spread > 0 else 1.0
    if weights is None:
        w = np.array([np.full(n, default[name]) for name in outputs])
    elif isinstance(weights, Mapping):
        unknown = [k for k in weights if k not in outputs]
        if unknown:
            raise DataError(f"weights: {', '.join(map(str, unknown))} not among the fitted "
                            f"outputs ({', '.join(outputs)})")
        missing = [k for k in outputs if k not in weights]
        if missing:
            raise DataError(f"weights: give a weight for every fitted output (missing: "
                            f"{', '.join(missing)})")
        w = np.array([np.broadcast_to(_weight_array(weights[k], n, k), (n,)) for k in outputs])
    else:
        arr = _weight_array(weights, n, None, len(outputs))
        w = np.broadcast_to(arr, (len(outputs), n)).copy()
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise DataError("weights must be finite and >= 0 (a weight is 1 / the sample's standard "
                        "deviation)")
    if not np.any(w > 0):
        raise DataError("weights are all zero: nothing would be fitted")
    return w


def _weight_array(value, n: int, name: str | None, m: int = 1) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise DataError(f"weights{f'[{name!r}]' if name else ''} = {value!r}: give a number or "
                        "an array of numbers") from None
    if arr.ndim == 0 or arr.shape in ((n,), (m, n)):
        return arr
    shapes = "a number, (n,)" + (f" or (m, n) = ({m}, {n})" if m > 1 else f" with n = {n}")
    raise DataError(f"weights{f'[{name!r}]' if name else ''} has shape {arr.shape}; give "
                    f"{shapes}")


# ------------------------------------------------------------------------------ the runs
@dataclass
class _Runner:
    """One run of the model at given parameter values: the outputs at the data's times
    (picklable: sent to worker processes as the sweep's ``CaseRunner`` is).

    Attributes
    ----------
    source : ModelSource        what is built (a name, a file, a build function)
    fixed : dict                model parameters held fixed
    t_span : (float, float)     the runs' span (s)
    t_eval : ndarray, (n,)      the data's times (s)
    outputs : tuple of str      the fitted outputs
    options : dict              ``simulate`` options (method, rtol, friction ...)
    """

    source: object
    fixed: dict
    t_span: tuple
    t_eval: np.ndarray
    outputs: tuple
    options: dict
    deadline: float | None = None  # the fit's end (``time.time()``, s); None: no limit

    #: What the study schedulers read of a sweep's runner (the metrics of a failed row).
    definition = SimpleNamespace(metrics=())

    def result(self, params: Mapping):
        """The :class:`~nonsmooth.result.Result` of a run with ``params`` (raises)."""
        from .simulate import simulate

        options = self.options
        if self.deadline is not None:  # a run ends by the fit's timeout at the latest
            left = self.deadline - time.time()
            if left <= 0:
                raise _Stopped()
            options = {**options, "timeout": min(options.get("timeout") or math.inf, left)}
        model = self.source.build({**self.fixed, **params})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # energy-balance notes of trials
            return simulate(model, self.t_span, t_eval=self.t_eval, **options)

    def values(self, result) -> np.ndarray:
        """The fitted outputs of ``result``, (m, n)."""
        return np.array([np.asarray(result[name], dtype=float) for name in self.outputs])

    def __call__(self, index: int, params: dict) -> dict:
        """The row of run ``index``: ``status`` "ok" and ``values`` (m, n), or "failed" with
        ``error`` and ``error_type`` (a model that refuses the values, a failed run)."""
        try:
            values = self.values(self.result(params))
        except _Stopped:
            return {"case": index, "status": "timeout"}
        except (NonsmoothError, ValueError, ArithmeticError) as exc:
            if self.deadline is not None and time.time() >= self.deadline:
                return {"case": index, "status": "timeout"}  # ended by the fit's timeout
            return {"case": index, "status": "failed", "error": " ".join(str(exc).split()),
                    "error_type": type(exc).__name__}
        return {"case": index, "status": "ok", "values": values}


class _Runs:
    """Runs parameter vectors, in this process or on a study scheduler, counting them."""

    def __init__(self, runner: _Runner, names: Sequence[str], scheduler: str,
                 workers: int | None):
        self.runner, self.names = runner, list(names)
        self.count = 0  # runs made
        self.jacobians = 0  # Jacobians evaluated (the iterations, over every stage)
        self._scheduler = None
        self._payload = None
        if scheduler != "serial":
            import cloudpickle

            from .study.schedulers import make_scheduler

            self._scheduler = make_scheduler(scheduler, workers)
            try:
                self._payload = cloudpickle.dumps(runner)
            except Exception as exc:
                raise FitError(f"the fit cannot be sent to worker processes ({type(exc).__name__}"
                               f": {exc}): a build function must be picklable (defined at module "
                               "level); or use scheduler='serial'") from None

    def use(self, runner: _Runner) -> None:
        """Run ``runner`` from now on (a fit over a shorter span of the data)."""
        if runner is self.runner:
            return
        self.runner = runner
        if self._scheduler is not None:
            import cloudpickle

            self._payload = cloudpickle.dumps(runner)

    def __enter__(self):
        if self._scheduler is not None:
            self._scheduler.__enter__()
        return self

    def __exit__(self, *exc):
        if self._scheduler is not None:
            self._scheduler.__exit__(*exc)
        return False

    def rows(self, points: Sequence[np.ndarray]) -> list[dict]:
        """One row per parameter vector of ``points`` (each (k,)), in their order."""
        cases = [(i, dict(zip(self.names, map(float, p), strict=True)))
                 for i, p in enumerate(points)]
        self.count += len(cases)
        if self._scheduler is None or len(cases) == 1:
            return [self.runner(i, c) for i, c in cases]
        rows = {row["case"]: row for row in self._scheduler.results(self.runner, self._payload,
                                                                    cases)}
        return [rows[i] for i in range(len(cases))]


# ------------------------------------------------------------------------------ the result
@dataclass(repr=False)
class Fit:
    """The outcome of :func:`fit`.

    Attributes
    ----------
    model : str                     the model (its name, file or build function)
    parameters : tuple of str       the fitted parameters, in order (k of them)
    x : ndarray, (k,)               the estimates (the parameters' units)
    standard_errors : ndarray, (k,) their standard errors (inf: not identifiable)
    covariance : ndarray, (k, k)    ``s^2 (J^T J)^-1`` (inf / nan rows of unidentifiable ones)
    correlation : ndarray, (k, k)   the estimates' correlations (nan: not identifiable)
    x0 : ndarray, (k,)              the initial values
    bounds : (ndarray, ndarray)     the lower and upper bounds used, each (k,)
    units : dict of str to str      each parameter's and output's unit
    outputs : tuple of str          the fitted outputs
    data : dict of str to ndarray   the data (``t`` and the outputs, each (n,))
    weights : ndarray, (m, n)       the weights of the residual (per output and sample)
    fitted : ndarray, (m, n)        the fitted run's outputs at the data's times
    residual_rms : dict             per output, the RMS of fitted - data (the output's unit)
    s : float                       ``sqrt(|r|^2 / (n m - k))``, the weighted residual's scale
    dof : int                       degrees of freedom ``n m - k``
    condition_number : float        of the column-equilibrated Jacobian at the optimum
    identifiable : ndarray of bool  per parameter
    jacobian : ndarray, (n m, k)    of the weighted residual in the parameters' units
    result : Result                 the run at the estimates (``result[name]`` at the data's
                                    times)
    n_runs : int                    runs made (residuals and Jacobian columns)
    n_iterations : int              Jacobians ``least_squares`` evaluated (``njev``; the last
                                    stage's with ``horizons``)
    wall_time : float               s
    success : bool, status : int, message : str   ``least_squares``' own (a fit stopped early:
                                    False, -2, why it stopped)
    warnings : list of str          the identifiability and lack-of-fit warnings' texts
    at_bound : ndarray of int, (k,) -1 where an estimate ended at its lower bound, +1 at its
                                    upper, 0 inside (``least_squares``' ``active_mask``)
    stopped : str                   "" for a finished fit; else why it stopped early (an
                                    interrupt, its ``timeout``): ``x`` is then the best point
                                    the runs reached (lowest residual), ``result`` None and the
                                    statistics (standard errors, covariance, correlation,
                                    condition number, Jacobian) ``nan``: not computed
    """

    model: str
    parameters: tuple
    x: np.ndarray
    standard_errors: np.ndarray
    covariance: np.ndarray
    correlation: np.ndarray
    x0: np.ndarray
    bounds: tuple
    units: dict
    outputs: tuple
    data: dict
    weights: np.ndarray
    fitted: np.ndarray
    residual_rms: dict
    s: float
    dof: int
    condition_number: float
    identifiable: np.ndarray
    jacobian: np.ndarray
    result: object
    n_runs: int
    n_iterations: int
    wall_time: float
    success: bool
    status: int
    message: str
    warnings: list = field(default_factory=list)
    at_bound: np.ndarray | None = None
    stopped: str = ""

    @property
    def estimates(self) -> dict[str, float]:
        """``{parameter: estimate}``."""
        return dict(zip(self.parameters, self.x.tolist(), strict=True))

    @property
    def errors(self) -> dict[str, float]:
        """``{parameter: standard error}``."""
        return dict(zip(self.parameters, self.standard_errors.tolist(), strict=True))

    def __getitem__(self, name: str) -> float:
        """The estimate of parameter ``name``."""
        try:
            return float(self.x[self.parameters.index(name)])
        except ValueError:
            raise KeyError(f"no fitted parameter {name!r}; fitted: "
                           f"{', '.join(self.parameters)}") from None

    def confidence_intervals(self, level: float = 0.95) -> dict[str, tuple[float, float]]:
        """Linearized confidence intervals ``estimate -+ t_{dof, (1+level)/2} se`` of each
        parameter (Student's t; Bates & Watts section 2.3.1)."""
        if not 0 < level < 1:
            raise ValueError(f"level = {level!r}: give a probability in (0, 1), e.g. 0.95")
        from scipy.stats import t as student

        q = float(student.ppf(0.5 + level / 2, max(self.dof, 1)))
        return {n: (x - q * e, x + q * e) for n, x, e in
                zip(self.parameters, self.x.tolist(), self.standard_errors.tolist(), strict=True)}

    def summary(self, notes: bool = True) -> str:
        """The table of estimates, standard errors and correlations, the residual and the cost
        (a few lines); with ``notes`` the identifiability warnings too (one line each)."""
        n = self.data["t"].size
        head = (f"{'stopped ' if self.stopped else ''}fit of {self.model} to {n} samples of "
                f"{', '.join(self.outputs)}: "
                f"{_count(len(self.parameters), 'parameter')}, "
                f"{_count(self.n_iterations, 'iteration')}, {self.n_runs} runs, "
                f"{self.wall_time:.1f} s")
        width = max(9, *(len(p) for p in self.parameters))
        lines = [head, f"{'parameter':<{width}}  {'estimate':>13}  {'std error':>10}  "
                       f"{'rel. error':>10}  {'initial':>11}  unit"]
        at = np.zeros(len(self.parameters), int) if self.at_bound is None else self.at_bound
        for i, (name, x, e, x0) in enumerate(zip(self.parameters, self.x, self.standard_errors,
                                                 self.x0, strict=True)):
            rel = (f"{abs(e / x):10.2e}" if math.isfinite(e) and x != 0 else
                   f"{'-':>10}" if math.isnan(e) or x == 0 else f"{'not ident.':>10}")
            error = f"{'-':>10}" if math.isnan(e) else f"{e:10.3g}"
            side = ("" if not at[i] else
                    f"  (at its {'lower' if at[i] < 0 else 'upper'} bound)")
            lines.append(f"{name:<{width}}  {x:13.7g}  {error}  {rel}  {x0:11.5g}  "
                         f"{self.units.get(name, '')}".rstrip() + side)
        rms = "; ".join(f"{k} {v:.3g} {self.units.get(k, '')}".rstrip()
                        for k, v in self.residual_rms.items())
        lines.append(f"residual RMS: {rms} (s = {self.s:.4g} weighted, {self.dof} degrees of "
                     f"freedom)" + ("" if self.stopped else
                                    f"; condition number {self.condition_number:.3g}"))
        if self.stopped:
            lines.append(f"{self.stopped}: the estimates are the best point the runs reached "
                         "(the lowest residual so far), not a converged optimum; standard "
                         "errors and correlations not computed")
        elif len(self.parameters) > 1:
            lines.append("correlation:")
            lines.append(" " * (width + 2) + "".join(f"{p[:8]:>9}" for p in self.parameters))
            for i, name in enumerate(self.parameters):
                cells = "".join(f"{self.correlation[i, j]:9.4f}" if j <= i else " " * 9
                                for j in range(len(self.parameters)))
                lines.append(f"{name:<{width}}  {cells.rstrip()}")
        if not self.success and not self.stopped:
            lines.append(f"least_squares did not converge: {self.message}")
        lines += [f"warning: {w}" for w in self.warnings] if notes else []
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()

    def plot(self, path=None, *, title: str | None = None, format: str | None = None):
        """The data against the fitted run, one panel per output (the residual below it), with
        units on the axes; saved to ``path`` if given (format by suffix or ``format``).
        Returns the matplotlib Figure."""
        m = len(self.outputs)
        size = (8, 2.6 * m + 0.6)
        if path is None:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size)
        else:
            from matplotlib.figure import Figure

            fig = Figure(figsize=size)
        axes = fig.subplots(2 * m, 1, sharex=True, squeeze=False,
                            gridspec_kw={"height_ratios": [3, 1] * m})[:, 0]
        t = self.data["t"]
        for i, name in enumerate(self.outputs):
            unit = self.units.get(name, "")
            label = f"{name} [{unit}]" if unit else name
            ax, res = axes[2 * i], axes[2 * i + 1]
            ax.plot(t, self.data[name], ".", ms=2.5, color="0.45", label="data")
            ax.plot(t, self.fitted[i], lw=1.2, color="C0", label="fitted run")
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
            ax.legend(loc="upper right", fontsize=8)
            res.plot(t, self.fitted[i] - self.data[name], ".", ms=2, color="C3")
            res.axhline(0.0, color="0.3", lw=0.8)
            res.set_ylabel(f"fit - data [{unit}]" if unit else "fit - data", fontsize=8)
            res.grid(alpha=0.3)
        axes[-1].set_xlabel("t [s]")
        text = ", ".join(f"{p} = {x:.5g}" + ("" if math.isnan(e) else f" \u00b1 {e:.2g}")
                         for p, x, e in zip(self.parameters, self.x, self.standard_errors,
                                            strict=True))
        text += " (stopped early: the best point so far)" if self.stopped else ""
        fig.suptitle(title or f"{self.model}: {text}", fontsize=10)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=120, format=format)
        return fig


# ------------------------------------------------------------------------------ the fit
def fit(model, data, parameters: Sequence[str], *, law=None,
        outputs: Sequence[str] | None = None, weights=None, x0=None, bounds=None,
        fixed: Mapping | None = None, t_span=None, absolute_weights: bool = False,
        diff_step: float | None = None, rcond: float | None = None,
        options: Mapping | None = None, scheduler: str = "serial", workers: int | None = None,
        horizons=None, ftol: float = 1e-8, xtol: float = 1e-8, gtol: float = 1e-8,
        max_nfev: int | None = None, verbose: int = 0, timeout: float | None = None) -> Fit:
    """Fit model parameters to measured time series by bounded nonlinear least squares.

    Parameters
    ----------
    model : str, path or callable
        A bundled model's name (``"stick_slip_oscillator"``), a model file (``.py`` with
        ``build(**params)``, or ``.xml``) or a build function ``f(**params) -> Model``.
    data : mapping or path
        The measurements: ``{"t": (n,) s, "<output>": (n,), ...}`` or a CSV file with a header
        row naming ``t`` and the outputs (:func:`load_data`). Times strictly increasing, within
        the runs' span; no NaN.
    parameters : sequence of str
        The model parameters to fit (names of the model's ``PARAMETERS`` or ``build()``
        arguments: ``mu_s``, ``mu_d``, ``k``, the LuGre ``sigma0`` ...), k of them.
    law : str, FrictionLaw or dict, optional
        The friction law of the runs (``simulate``'s ``friction``: ``"coulomb"``, ``"lugre"``,
        ``"regularized"``, or ``{pair: law}``); default each pair's own.
    outputs : sequence of str, optional
        The fitted outputs, each a data column and a name ``result[...]`` answers; default
        every data column but ``t``.
    weights : float, array or mapping, optional
        The weight of each residual (``1 / sigma`` of the sample's noise): a number, an array
        (n,) or (m, n), or ``{output: number or (n,)}``; default ``1 / std(data column)`` per
        output (one output: any constant gives the same estimates and standard errors).
    x0 : mapping or sequence, optional
        Initial values (``{name: value}`` or k numbers); default the model's defaults (with
        ``fixed`` applied).
    bounds : mapping or (sequence, sequence), optional
        ``{name: (lower, upper)}`` (None for a side: the model's) or scipy's ``(lower,
        upper)``; default the model's physical ranges (``Parameter.minimum``, ``maximum``).
    fixed : mapping, optional
        Other model parameters, held at these values (the command line's ``--set``).
    t_span : float or (float, float), optional
        The runs' span (s); default ``(0, last data time)``. Data outside it are refused.
    absolute_weights : bool
        The weights are ``1 / sigma`` of known noise: ``cov = (J^T J)^-1`` (not scaled by the
        residual's ``s^2``).
    diff_step : float, optional
        Relative step of the central differences (in parameters scaled by their initial
        values); default ``sqrt(rtol)`` of the runs.
    rcond : float, optional
        Singular values of the column-equilibrated Jacobian below ``rcond`` times the largest
        are zero (those directions not identifiable); default ``RCOND * diff_step``.
    options : mapping, optional
        ``simulate`` options of every run: ``method``, ``rtol``, ``atol``, ``max_step``,
        ``alpha``, ``beta``, ``max_evaluations``, ``timeout``, ``tstops``.
    scheduler : str
        Where the runs of a Jacobian go: ``"serial"`` (default, this process), ``"processes"``
        or ``"dask"`` (:func:`nonsmooth.sweep`'s schedulers).
    workers : int, optional
        Worker processes (default every core).
    horizons : int or sequence of float, optional
        Fit growing spans of the data first, each from the last one's estimates: ``n`` stages
        ending at equal steps to the last sample (``n = 1``, the default: the whole record at
        once), or the stages' end times (s). A long record of a stick-slip cycle from a start a
        few percent off has local minima (a wrong period slips the phase by whole cycles by the
        end); its first cycles do not, and their estimates start the next stage close enough.
        The standard errors are those of the last stage (all the data).
    ftol, xtol, gtol, max_nfev, verbose
        ``scipy.optimize.least_squares``' (``max_nfev`` default ``100 k``).
    timeout : float, optional
        Wall-clock limit of the whole fit (s; default none): reached, the fit stops with a
        :class:`~nonsmooth.errors.FitError` that carries the best point so far as ``exc.fit``
        (a :class:`Fit` with ``stopped`` set). Each run's own limit is ``options``'
        ``timeout``, its budget ``options``' ``max_evaluations``.

    Returns
    -------
    Fit
        Estimates, standard errors, correlation, residual, the fitted run; ``print(fit)``
        shows the table.

    Raises
    ------
    DataError
        Unusable data: NaN, unsorted or repeated times, unknown output names, fewer samples
        than parameters, times outside the runs' span, malformed weights.
    ModelError
        Unknown or non-numeric parameters, values outside the model's ranges, bad bounds.
    FitError
        The run at the initial values, or a run a Jacobian needs, failed; or the ``timeout``
        was reached (``exc.fit``: the best point so far). An interrupt (``KeyboardInterrupt``)
        carries the best point so far as ``exc.fit`` too (None before any run finished).

    Warns
    -----
    IdentifiabilityWarning
        Parameters the data do not determine (their standard errors are ``inf``), or
        correlations beyond :data:`CORRELATION_LIMIT`.
    LackOfFitWarning
        An estimate ended at one of its bounds (``Fit.at_bound``); or, with given ``weights``,
        the weighted residual's scale ``s`` is above :data:`NOISE_RATIO` (and the chi-square
        test rejects the noise the weights imply): the optimum does not explain the data.

    References
    ----------
    Bates, D. M. & Watts, D. G., *Nonlinear Regression Analysis and Its Applications*, Wiley,
    1988. Seber, G. A. F. & Wild, C. J., *Nonlinear Regression*, Wiley, 1989. Branch, M. A.,
    Coleman, T. F. & Li, Y., "A subspace, interior, and conjugate gradient method for
    large-scale bound-constrained minimization problems", SIAM J. Sci. Comput. 21 (1999)
    (the trust-region reflective method).
    """
    from scipy.optimize import least_squares

    from .study.definition import _source

    start = time.perf_counter()
    columns = load_data(data)
    names = _parameter_names(parameters)
    source = _source(model)
    table = _parameter_table(source)
    fixed = dict(fixed or {})
    names = [_canonical(n, table) for n in names]
    _check_names(names, table, source, fixed)
    lower, upper = _bounds(names, table, bounds)
    start_values = _initial(names, table, fixed, source, x0, lower, upper)
    out = _outputs(outputs, columns)
    t = columns["t"]
    n_values = t.size * len(out)
    if n_values <= len(names) or t.size < 2:
        raise DataError(f"too few samples: {t.size} sample(s) of {len(out)} output(s) for "
                        f"{len(names)} parameter(s); a fit needs at least 2 sample times and "
                        f"more values than parameters (at least {len(names) + 1})")
    span = _span(t_span, t)
    w = _weights(weights, out, columns)
    run_options = _run_options(options, law)
    _check_sample_count(t.size, run_options)
    if diff_step is not None and not (math.isfinite(diff_step) and 0 < diff_step < 1):
        raise ValueError(f"diff_step = {diff_step!r}: give a relative step in (0, 1), e.g. 1e-5")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout = {timeout!r}: give the fit's wall-clock limit in s (> 0)")
    deadline = None if timeout is None else time.time() + timeout
    runner = _Runner(source, fixed, span, t, tuple(out), run_options, deadline)
    where = getattr(source, "label", str(model))
    first = _first_run(runner, names, start_values, timeout)
    _check_outputs(out, first, where)
    step = (math.sqrt(_default_rtol(run_options, first.system, first.method)) if diff_step is None
            else float(diff_step))
    rcond = RCOND * step if rcond is None else float(rcond)
    data_values = np.array([columns[name] for name in out])
    scale = np.where(start_values != 0, np.abs(start_values), 1.0)
    z = start_values / scale
    lsq = {"bounds": (lower / scale, upper / scale), "method": "trf", "x_scale": 1.0,
           "ftol": ftol, "xtol": xtol, "gtol": gtol, "max_nfev": max_nfev or 100 * len(names),
           "verbose": verbose}
    ends = _horizons(horizons, t, span)
    units = {name: table[name].unit for name in names if name in table}
    units.update({name: first.units.get(name, "") for name in out})
    runs = _Runs(runner, names, scheduler, workers)
    problem = None
    try:
        with runs:
            for end in ends[:-1]:  # the growing spans first: each from the last one's estimates
                keep = t <= end
                runs.use(_Runner(source, fixed, (span[0], end), t[keep], tuple(out), run_options,
                                 deadline))
                problem = _Problem(names, scale, data_values[:, keep], w[:, keep], lower, upper,
                                   step, runs, keep)
                z = least_squares(problem.residual, z, jac=problem.jacobian, **lsq).x
            runs.use(runner)
            problem = _Problem(names, scale, data_values, w, lower, upper, step, runs)
            if len(ends) == 1:
                problem.remember(z, runner.values(first))
            runs.count += 1
            solution = least_squares(problem.residual, z, jac=problem.jacobian, **lsq)
            z = solution.x
            jac_z = problem.jacobian(z)
            residual = problem.residual(z)
        if not np.all(np.isfinite(residual)):
            raise FitError(f"the fit of {where} ended where the run fails "
                           f"({_values_text(names, z * scale)}): {problem.last_error}")
        x = z * scale
        best = runner.result(dict(zip(names, x.tolist(), strict=True)))
    except (KeyboardInterrupt, _Stopped) as exc:
        why = (f"interrupted ({getattr(exc, 'signal_name', 'SIGINT')})"
               if isinstance(exc, KeyboardInterrupt) else
               f"the fit's timeout of {timeout:g} s was reached")
        partial = _partial_fit(problem, where, names, scale, start_values, (lower, upper), units,
                               tuple(out), t, columns, runs, start, why, xtol)
        _stop(exc, partial, why, runs, names)
    fitted = runner.values(best)
    stats = _statistics(jac_z, residual, x, scale, n_values, rcond, absolute_weights)
    units.update({name: best.units.get(name, "") for name in out})
    at_bound = _at_bound(z, lower / scale, upper / scale, xtol)
    notes = _identifiability(names, stats, rcond)
    fit_result = Fit(
        model=where.rsplit("/", 1)[-1], parameters=tuple(names), x=x,
        standard_errors=stats["se"], covariance=stats["cov"], correlation=stats["corr"],
        x0=start_values, bounds=(lower, upper), units=units, outputs=tuple(out),
        data={"t": t, **{name: columns[name] for name in out}}, weights=w, fitted=fitted,
        residual_rms={name: float(np.sqrt(np.mean((fitted[i] - data_values[i]) ** 2)))
                      for i, name in enumerate(out)},
        s=stats["s"], dof=stats["dof"], condition_number=stats["cond"],
        identifiable=stats["identifiable"], jacobian=jac_z / scale, result=best,
        n_runs=runs.count + 1, n_iterations=int(solution.njev or 0),
        wall_time=time.perf_counter() - start, success=bool(solution.success),
        status=int(solution.status), message=str(solution.message), at_bound=at_bound)
    quality = _lack_of_fit(fit_result, weights is not None)
    for text, involved in notes:
        warnings.warn(IdentifiabilityWarning(text, involved), stacklevel=2)
    for text, involved in quality:
        warnings.warn(LackOfFitWarning(text, involved), stacklevel=2)
    fit_result.warnings = [text for text, _ in (*notes, *quality)]
    return fit_result


def _first_run(runner: _Runner, names, start_values: np.ndarray, timeout: float | None):
    """The run at the initial values (a failure: FitError, a model's refusal: ModelError)."""
    try:
        return runner.result(dict(zip(names, start_values.tolist(), strict=True)))
    except _Stopped:
        raise FitError(f"the fit's timeout of {timeout:g} s was reached before the run at the "
                       "initial values started") from None
    except (NonsmoothError, ValueError) as exc:
        if isinstance(exc, ModelError):
            raise
        raise FitError(f"the run at the initial values ({_values_text(names, start_values)}) "
                       f"failed: {exc}") from exc


def _stop(exc: BaseException, partial: Fit | None, why: str, runs: _Runs, names) -> None:
    """End a fit stopped early: an interrupt goes on with the best point so far as
    ``exc.fit`` (as simulate's carries its partial Result), a timeout is a FitError with it."""
    if isinstance(exc, KeyboardInterrupt):
        exc.fit = partial
        raise exc
    best = (f"; the best point so far: {_values_text(names, partial.x)} (s = {partial.s:.4g} "
            "weighted)" if partial is not None else "")
    error = FitError(f"{why} after {_count(runs.jacobians, 'iteration')} and {runs.count + 1} "
                     f"runs{best}; give a longer timeout, fewer parameters or initial values "
                     "closer to the optimum")
    error.fit = partial
    raise error from None


def _check_sample_count(n: int, run_options: Mapping) -> None:
    """Refuse more samples than a run records (``max_outputs``) before any run."""
    from .limits import MAX_OUTPUTS

    limit = int(run_options.get("max_outputs") or MAX_OUTPUTS)
    if n > limit:
        k = math.ceil(n / limit)
        raise DataError(f"the data have {n:,} samples, more than a run records (max_outputs = "
                        f"{limit:,}): thin them (keep every {k}-th sample); in Python, "
                        f"fit(options={{'max_outputs': {n}}}) raises the limit")


def _at_bound(z: np.ndarray, lower: np.ndarray, upper: np.ndarray, rtol: float) -> np.ndarray:
    """-1 where ``z`` lies at its lower bound, +1 at its upper, 0 inside (within ``rtol`` of
    the bound's magnitude, at least 1: ``least_squares``' own test of an active bound)."""
    at = np.zeros(z.size, dtype=int)
    with np.errstate(invalid="ignore"):  # an infinite bound is never reached
        at[np.isfinite(lower) & ((z - lower) <= rtol * np.maximum(1.0, np.abs(lower)))] = -1
        at[np.isfinite(upper) & ((upper - z) <= rtol * np.maximum(1.0, np.abs(upper)))] = 1
    return at


def _lack_of_fit(f: Fit, weighted: bool) -> list[tuple[str, list[str]]]:
    """The warnings of a fit that does not explain its data: estimates at a bound, and (with
    given weights) a weighted residual far above the noise the weights imply."""
    notes = []
    lower, upper = f.bounds
    at = [(name, x, lower[i] if f.at_bound[i] < 0 else upper[i], f.at_bound[i])
          for i, (name, x) in enumerate(zip(f.parameters, f.x, strict=True)) if f.at_bound[i]]
    for name, x, bound, side in at:
        notes.append((f"{name} = {x:.6g} ended at its {'lower' if side < 0 else 'upper'} bound "
                      f"{bound:g}: the data pull it outside the bounds, so the optimum is "
                      "constrained and its standard error (which assumes an interior optimum) "
                      "does not describe it; widen the bounds if they are not physical limits",
                      [name]))
    if weighted and f.dof > 0:
        from scipy.stats import chi2

        if f.s > NOISE_RATIO and chi2.sf(f.s ** 2 * f.dof, f.dof) < LACK_OF_FIT_LEVEL:
            rms = "; ".join(f"{k} {v:.3g} {f.units.get(k, '')}".rstrip()
                            for k, v in f.residual_rms.items())
            bound = (f"; {', '.join(n for n, *_ in at)} at a bound" if at else "")
            notes.append((f"the weighted residual is {f.s:.3g} times the noise the weights "
                          f"imply (s = {f.s:.4g}, about 1 when the weights are 1 / sigma of the "
                          f"samples' noise; residual RMS {rms}): the fit does not explain the "
                          "data (a local minimum: try other initial values or horizons; bounds "
                          f"that exclude the parameters' values{bound}; or a model that cannot "
                          "produce the data); the standard errors assume a fit that does",
                          [n for n, *_ in at]))
    return notes


def _partial_fit(problem, where: str, names, scale, start_values, bounds, units, out, t,
                 columns, runs, start: float, why: str, xtol: float) -> Fit | None:
    """The :class:`Fit` of a fit stopped early: the best point its runs reached (None if no
    run finished), the data of its stage; the statistics not computed (``nan``)."""
    if problem is None or problem.best is None:
        return None
    z, values, cost = problem.best
    keep = slice(None) if problem.keep is None else problem.keep
    data = {"t": t[keep], **{name: columns[name][keep] for name in out}}
    k = len(names)
    dof = values.size - k
    nan_k, nan_kk = np.full(k, np.nan), np.full((k, k), np.nan)
    lower, upper = bounds
    return Fit(
        model=where.rsplit("/", 1)[-1], parameters=tuple(names), x=z * scale,
        standard_errors=nan_k, covariance=nan_kk, correlation=nan_kk.copy(), x0=start_values,
        bounds=bounds, units=units, outputs=out, data=data, weights=problem.w, fitted=values,
        residual_rms={name: float(np.sqrt(np.mean((values[i] - data[name]) ** 2)))
                      for i, name in enumerate(out)},
        s=math.sqrt(cost / dof) if dof > 0 else math.nan, dof=dof, condition_number=math.nan,
        identifiable=np.zeros(k, dtype=bool), jacobian=np.full((values.size, k), np.nan),
        result=None, n_runs=runs.count + 1, n_iterations=runs.jacobians,
        wall_time=time.perf_counter() - start, success=False, status=-2, message=why,
        at_bound=_at_bound(z, lower / scale, upper / scale, xtol), stopped=why)


class _Problem:
    """The residual and its Jacobian in scaled parameters ``z = p / scale`` (the runs
    cached by ``z``)."""

    def __init__(self, names, scale, data_values, w, lower, upper, step, runs: _Runs,
                 keep: np.ndarray | None = None):
        self.names, self.scale = names, scale
        self.keep = keep  # the samples of a stage (horizons); None: all
        self.best: tuple | None = None  # (z, values, |r|^2) of the lowest residual so far
        self.data_values, self.w = data_values, w
        self.lower, self.upper = lower / scale, upper / scale
        self.step = step
        self.runs = runs
        self._cache: dict[bytes, np.ndarray] = {}
        self.last_error = ""

    def remember(self, z: np.ndarray, values: np.ndarray) -> None:
        z = np.array(z, dtype=float)
        r = self._residual_of(values)
        self._cache[z.tobytes()] = r
        cost = float(r @ r)
        if self.best is None or cost < self.best[2]:
            self.best = (z, np.array(values, dtype=float), cost)
        if len(self._cache) > 64:
            self._cache.pop(next(iter(self._cache)))

    def _residual_of(self, values: np.ndarray) -> np.ndarray:
        return (self.w * (values - self.data_values)).ravel()

    def _evaluate(self, points: Sequence[np.ndarray]) -> list[np.ndarray | None]:
        """The residuals at the scaled points (None where the run failed), cached."""
        todo = [z for z in points if z.tobytes() not in self._cache]
        unique = list({z.tobytes(): z for z in todo}.values())
        if unique:
            rows = self.runs.rows([z * self.scale for z in unique])
            if any(row["status"] == "timeout" for row in rows):
                for z, row in zip(unique, rows, strict=True):  # what finished counts as best
                    if row["status"] == "ok" and np.all(np.isfinite(row["values"])):
                        self.remember(z, row["values"])
                raise _Stopped()
            for z, row in zip(unique, rows, strict=True):
                if row["status"] == "ok" and np.all(np.isfinite(row["values"])):
                    self.remember(z, row["values"])
                else:
                    self.last_error = row.get("error") or "the run's outputs are not finite"
                    self._cache[z.tobytes()] = None
        return [self._cache[z.tobytes()] for z in points]

    def residual(self, z: np.ndarray) -> np.ndarray:
        """The weighted residual (m n,) at ``z``; inf where the run fails or the model refuses
        the values (``least_squares``' trust region then shrinks)."""
        (r,) = self._evaluate([np.array(z, dtype=float)])
        return np.full(self.data_values.size, np.inf) if r is None else r

    def jacobian(self, z: np.ndarray) -> np.ndarray:
        """Central differences of the residual in ``z`` (one-sided where a step would leave
        the bounds or the model refuses the value), (m n, k)."""
        z = np.array(z, dtype=float)
        self.runs.jacobians += 1
        h = self.step * np.maximum(np.abs(z), 1.0)
        plus, minus = [], []
        for j in range(z.size):
            zp, zm = z.copy(), z.copy()
            zp[j] += h[j]
            zm[j] -= h[j]
            plus.append(zp if zp[j] <= self.upper[j] else None)
            minus.append(zm if zm[j] >= self.lower[j] else None)
        wanted = [p for p in (*plus, *minus) if p is not None]
        self._evaluate([z, *wanted])
        columns = []
        for j in range(z.size):
            rp = self._evaluate([plus[j]])[0] if plus[j] is not None else None
            rm = self._evaluate([minus[j]])[0] if minus[j] is not None else None
            r0 = self._evaluate([z])[0]
            if rp is not None and rm is not None:
                columns.append((rp - rm) / (2 * h[j]))
            elif rp is not None and r0 is not None:
                columns.append((rp - r0) / h[j])
            elif rm is not None and r0 is not None:
                columns.append((r0 - rm) / h[j])
            else:
                raise FitError(
                    f"the runs for the derivative in {self.names[j]} at "
                    f"({_values_text(self.names, z * self.scale)}) failed: {self.last_error}; "
                    "give bounds that keep the parameters where the model runs")
        return np.column_stack(columns)


def _statistics(jac_z: np.ndarray, residual: np.ndarray, x: np.ndarray, scale: np.ndarray,
                n_values: int, rcond: float, absolute: bool) -> dict:
    """Standard errors, covariance and correlation (parameters' units) from the Jacobian in
    scaled parameters, through the SVD of its column-equilibrated form."""
    k = jac_z.shape[1]
    dof = n_values - k
    ssq = float(residual @ residual)
    s2 = 1.0 if absolute else ssq / dof
    norms = np.linalg.norm(jac_z, axis=0)
    top = float(norms.max()) if norms.size else 0.0
    effect = norms > rcond * top if top > 0 else np.zeros(k, dtype=bool)
    identifiable = effect.copy()
    cov_z = np.full((k, k), np.nan)
    cond = math.inf
    null, null_ratio = np.zeros((0, k)), np.zeros(0)
    idx = np.flatnonzero(effect)
    if idx.size:
        Jn = jac_z[:, idx] / norms[idx]
        _, sv, vt = np.linalg.svd(Jn, full_matrices=False)
        keep = sv > rcond * sv[0]
        cond = float(sv[0] / sv[-1]) if sv[-1] > 0 else math.inf
        small = vt[~keep] / norms[idx]  # the undetermined directions, in z = p / scale
        if small.size:
            nonzero = x[idx] != 0
            small[:, nonzero] *= (scale[idx] / np.abs(x[idx]))[nonzero]  # relative changes
            small /= np.linalg.norm(small, axis=1, keepdims=True)
            null = np.zeros((small.shape[0], k))
            null[:, idx] = small
            null_ratio = sv[~keep] / sv[0]
            involved = np.any(np.abs(small) > NULL_SHARE, axis=0)
            identifiable[idx[involved]] = False
        inv = (vt[keep].T / sv[keep] ** 2) @ vt[keep]  # pseudo-inverse of Jn^T Jn
        sub = inv / np.outer(norms[idx], norms[idx])
        cov_z[np.ix_(idx, idx)] = sub
    if not np.all(effect):
        cond = math.inf
    cov = s2 * cov_z * np.outer(scale, scale)
    bad = ~identifiable
    cov[bad, :] = np.nan
    cov[:, bad] = np.nan
    cov[bad, bad] = np.inf
    se = np.sqrt(np.where(identifiable, np.diag(cov), np.inf))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(se, se)
    corr[bad, :] = np.nan
    corr[:, bad] = np.nan
    good = np.flatnonzero(identifiable)
    corr[good, good] = 1.0
    return {"se": se, "cov": cov, "corr": corr, "s": math.sqrt(ssq / dof), "dof": dof,
            "cond": cond, "identifiable": identifiable, "no_effect": ~effect, "null": null,
            "null_ratio": null_ratio}


def _identifiability(names: Sequence[str], stats: dict, rcond: float) -> list[tuple]:
    """The warnings' texts and the parameters each names."""
    notes = []
    none = [n for n, e in zip(names, stats["no_effect"], strict=True) if e]
    if none:
        notes.append((f"{', '.join(none)} {'has' if len(none) == 1 else 'have'} no effect on "
                      "the fitted outputs (a zero column of the Jacobian): not identifiable "
                      "from these data; standard error inf (fix it, or fit an output it "
                      "changes)", none))
    for vec, ratio in zip(stats["null"], stats["null_ratio"], strict=True):
        chosen = np.flatnonzero(np.abs(vec) > NULL_SHARE)
        vec = vec * np.sign(vec[chosen[0]])
        part = [names[i] for i in chosen]
        combo = " ".join(f"{'-' if vec[i] < 0 else '+' if n else ''} {abs(vec[i]):.3g} "
                         f"d{names[i]}/{names[i]}" for n, i in enumerate(chosen)).strip()
        notes.append((f"{', '.join(part)} are not identifiable from these data: only a "
                      "combination of them (a product, a ratio, a sum ...) is determined; the "
                      f"outputs do not change along {combo} (the Jacobian's singular value "
                      f"there is {ratio:.2g} of the largest, below rcond = {rcond:.2g}; "
                      f"condition number {stats['cond']:.3g}); their standard errors are inf "
                      "(fix all but one of them)", part))
    corr = stats["corr"]
    k = len(names)
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)
             if np.isfinite(corr[i, j]) and abs(corr[i, j]) > CORRELATION_LIMIT]
    for i, j in pairs:
        notes.append((f"{names[i]} and {names[j]} are poorly identifiable from these data: "
                      f"their estimates are correlated by {corr[i, j]:.5f} (beyond "
                      f"{CORRELATION_LIMIT}); their standard errors are large and the "
                      "linearization may not hold (more data, another output, or fix one)",
                      [names[i], names[j]]))
    return notes


# ------------------------------------------------------------------------------ checks
def _parameter_names(parameters) -> list[str]:
    if isinstance(parameters, str):
        parameters = [parameters]
    try:
        names = [str(p) for p in parameters]
    except TypeError:
        raise ModelError(f"parameters = {parameters!r}: give a list of parameter names, e.g. "
                         "['mu_s', 'mu_d']") from None
    if not names:
        raise ModelError("parameters: give at least one parameter to fit")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ModelError(f"parameters: {', '.join(twice)} given twice; give each once")
    return names


def _parameter_table(source) -> dict:
    """``{name: Parameter}`` of the model's ``PARAMETERS`` ({} for a build function or a
    model file without one)."""
    module = source.module()
    table = getattr(module, "PARAMETERS", None) if module is not None else None
    return {p.name: p for p in table or ()}


def _canonical(name: str, table: dict) -> str:
    from .model import PARAMETER_ALIASES

    target = PARAMETER_ALIASES.get(name)
    return target if target in table and name not in table else name


def _build_signature(source) -> dict:
    """``{name: default}`` of a build function's (or a model file's) keyword arguments."""
    import inspect

    fn = source.source if callable(source.source) else getattr(source.module(), "build", None)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return {}
    return {k: (None if p.default is inspect.Parameter.empty else p.default)
            for k, p in sig.parameters.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _check_names(names, table: dict, source, fixed: Mapping) -> None:
    known = list(table) or list(_build_signature(source))
    label = getattr(source, "label", "the model")
    if known:
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ModelError(f"model {label}: unknown parameter(s) {', '.join(unknown)} to fit; "
                             f"the model's parameters: {', '.join(known)}")
    for name in names:
        p = table.get(name)
        if p is not None and (p.choices or isinstance(p.default, (str, bool))):
            raise ModelError(f"model {label}: parameter {name} is not a number "
                             f"({p.range_text()}) and cannot be fitted")
    both = [n for n in names if n in fixed]
    if both:
        raise ModelError(f"{', '.join(both)} both fitted and fixed; give each either in "
                         "parameters or in fixed (--set)")


def _bounds(names, table: dict, bounds) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds (k,), each: given, else the model's range, else infinite."""
    k = len(names)
    lower = np.full(k, -np.inf)
    upper = np.full(k, np.inf)
    for i, name in enumerate(names):
        p = table.get(name)
        if p is None:
            continue
        if p.minimum is not None:
            lower[i] = np.nextafter(p.minimum, np.inf) if p.exclusive else p.minimum
        if p.maximum is not None:
            upper[i] = p.maximum
    if isinstance(bounds, Mapping):
        _bounds_by_name(names, bounds, lower, upper)
    elif bounds is not None:
        try:
            lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (k,)) for b in bounds)
        except (TypeError, ValueError):
            raise ModelError(f"bounds = {bounds!r}: give {{name: (lower, upper)}} or (lower, "
                             f"upper) with {k} value(s) each") from None
        lower, upper = lo.copy(), hi.copy()
    for i, name in enumerate(names):
        if np.isnan(lower[i]) or np.isnan(upper[i]) or not lower[i] < upper[i]:
            raise ModelError(f"bounds of {name}: [{lower[i]:g}, {upper[i]:g}] is empty; the "
                             "lower bound must be below the upper")
    return lower, upper


def _bounds_by_name(names, bounds: Mapping, lower: np.ndarray, upper: np.ndarray) -> None:
    """``bounds = {name: (lower, upper)}`` into ``lower``, ``upper`` (None: left as is)."""
    unknown = [b for b in bounds if b not in names]
    if unknown:
        raise ModelError(f"bounds: {', '.join(map(str, unknown))} not among the fitted "
                         f"parameters ({', '.join(names)})")
    for name, pair in bounds.items():
        i = names.index(name)
        try:
            lo, hi = pair
        except (TypeError, ValueError):
            raise ModelError(f"bounds[{name!r}] = {pair!r}: give (lower, upper), None for a side "
                             "left at the model's range") from None
        lower[i] = lower[i] if lo is None else float(lo)
        upper[i] = upper[i] if hi is None else float(hi)


def _initial(names, table: dict, fixed: Mapping, source, x0, lower, upper) -> np.ndarray:
    """The initial values (k,): given, else the model's defaults."""
    k = len(names)
    if x0 is None:
        defaults = {n: p.default for n, p in table.items()} or _build_signature(source)
        values = [defaults.get(n) for n in names]
    elif isinstance(x0, Mapping):
        unknown = [n for n in x0 if n not in names]
        if unknown:
            raise ModelError(f"x0: {', '.join(map(str, unknown))} not among the fitted "
                             f"parameters ({', '.join(names)})")
        defaults = {n: p.default for n, p in table.items()} or _build_signature(source)
        values = [x0.get(n, defaults.get(n)) for n in names]
    else:
        values = list(np.atleast_1d(np.asarray(x0, dtype=float)))
        if len(values) != k:
            raise ModelError(f"x0 has {len(values)} value(s) for {k} parameter(s) "
                             f"({', '.join(names)})")
    out = np.empty(k)
    for i, (name, value) in enumerate(zip(names, values, strict=True)):
        if value is None:
            raise ModelError(f"parameter {name} has no default: give its initial value in x0")
        try:
            out[i] = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"x0 of {name} = {value!r} is not a number") from None
        if not (math.isfinite(out[i]) and lower[i] <= out[i] <= upper[i]):
            raise ModelError(f"x0 of {name} = {value!r} is outside its bounds "
                             f"[{lower[i]:g}, {upper[i]:g}]")
    return out


def _outputs(outputs, columns: dict) -> list[str]:
    available = [c for c in columns if c != "t"]
    if outputs is None:
        return available
    if isinstance(outputs, str):
        outputs = [outputs]
    out = [str(o) for o in outputs]
    if not out:
        raise DataError("outputs: give at least one output to fit")
    missing = [o for o in out if o not in columns]
    if missing:
        raise DataError(f"output(s) {', '.join(missing)} not in the data (data columns: "
                        f"{', '.join(available)})")
    twice = sorted({o for o in out if out.count(o) > 1})
    if twice:
        raise DataError(f"outputs: {', '.join(twice)} given twice")
    return out


def _check_outputs(out, result, label: str) -> None:
    known = result.available()
    unknown = [o for o in out if o not in known]
    if unknown:
        raise DataError(f"unknown output(s) {', '.join(unknown)} for model {label}; its outputs: "
                        f"{', '.join(n for n in known if n != 't')}")
    for name in out:
        shape = np.shape(result[name])
        if len(shape) != 1:
            raise DataError(f"output {name} has {shape[1]} columns (one per frictional pair); "
                            f"fit one of them by name, e.g. {name}:{result.pair_names[0]}")


def _span(t_span, t: np.ndarray) -> tuple[float, float]:
    if t_span is None:
        t0, t1 = 0.0, float(t[-1])
    elif np.ndim(t_span) == 0:
        t0, t1 = 0.0, float(t_span)
    else:
        t0, t1 = (float(v) for v in t_span)
    if not (math.isfinite(t0) and math.isfinite(t1) and t1 > t0):
        raise DataError(f"t_span = {t_span!r}: the runs need an end time after their start")
    outside = np.flatnonzero((t < t0) | (t > t1))
    if outside.size:
        i = int(outside[0])
        raise DataError(f"{outside.size} sample time(s) outside the runs' span {t0:g} .. "
                        f"{t1:g} s (the first, t = {t[i]:g} s, in row {i}); the runs start at "
                        f"{t0:g} s: shift the times or give t_span")
    return t0, t1


def _horizons(horizons, t: np.ndarray, span: tuple) -> list[float]:
    """The end times of the fit's stages: ``horizons`` growing spans (an int: equal steps to
    the data's last time) or the given times, then the whole span."""
    if horizons is None or (np.ndim(horizons) == 0 and int(horizons) <= 1):
        return [span[1]]
    if np.ndim(horizons) == 0:
        if int(horizons) != horizons or horizons < 1:
            raise ValueError(f"horizons = {horizons!r}: give a whole number of stages >= 1 or "
                             "the stages' end times (s)")
        n = int(horizons)
        ends = [span[0] + (t[-1] - span[0]) * j / n for j in range(1, n)]
    else:
        ends = [float(e) for e in horizons]
        if any(not (span[0] < e < span[1]) for e in ends) or ends != sorted(set(ends)):
            raise ValueError(f"horizons = {horizons!r}: give increasing end times inside the "
                             f"runs' span {span[0]:g} .. {span[1]:g} s")
    short = [e for e in ends if np.count_nonzero(t <= e) < 2]
    if short:
        raise DataError(f"horizons: the stage ending at {short[0]:g} s has fewer than 2 samples")
    return [*ends, span[1]]


def _run_options(options, law) -> dict:
    out = dict(options or {})
    unknown = sorted(set(out) - set(RUN_OPTIONS))
    if unknown:
        raise ValueError(f"options: unknown run option(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(RUN_OPTIONS)}")
    if law is not None:
        out["friction"] = law
    return out


def _default_rtol(options: dict, system, method: str) -> float:
    """The runs' relative tolerance: the given one, else ``simulate``'s default for the
    system and the method that ran (``method``, the first run's name; the ``Method`` object
    of the options where they give one, which need not be registered under its name)."""
    from .run.methods import Method, default_tolerances

    if options.get("rtol") is not None:
        return float(options["rtol"])
    given = options.get("method")
    return default_tolerances(system, given if isinstance(given, Method) else method)[0]


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _values_text(names, values) -> str:
    return ", ".join(f"{n} = {v:.6g}" for n, v in zip(names, values, strict=True))

