"""Simulated measurements: a run's outputs sampled at equally spaced times, with Gaussian noise
of a given standard deviation, written as the CSV file that :func:`nonsmooth.fit.fit` and
``nonsmooth fit`` read (a header row ``t,<output>,...``, one row per sample).

They stand in for measured data: to try an identification before measurements exist, to check
that parameters can be identified from the outputs one plans to measure, or to see how the
standard errors grow with the noise. ``nonsmooth measure MODEL --output x --out measured.csv``
on the command line; every value is the model's (its default parameters unless ``params`` says
otherwise) and the noise is reproducible (``seed``).
"""

from __future__ import annotations

import math
from pathlib import Path

from .errors import DataError, ModelError

#: Samples of a simulated measurement unless asked otherwise.
DEFAULT_SAMPLES = 300
#: Most samples one simulated measurement may have (a CSV of ~40 MB per output).
MAX_SAMPLES = 1_000_000


def simulated_measurements(model, outputs, *, t_end: float | None = None,
                           samples: int = DEFAULT_SAMPLES, noise: float = 0.0, seed: int = 0,
                           params: dict | None = None, **options) -> dict:
    """A run's outputs at ``samples`` equally spaced times from the start to ``t_end``, each
    with independent Gaussian noise.

    Parameters
    ----------
    model : str or Model
        A bundled model's name, a model file (``.py`` or MotionSolve ``.xml``) or a built
        model.
    outputs : sequence of str
        Names the run's result answers (``"x"``, ``"block.vx"``, ``"contact.F_f"``).
    t_end : float, optional
        End time [s]; default: the model's ``t_end``.
    samples : int
        Number of sample times, 2 to :data:`MAX_SAMPLES`, the first at t = 0.
    noise : float
        Standard deviation of the noise added to every output, in each output's units (0: the
        run's values).
    seed : int
        Seed of the noise (``numpy.random.default_rng``): equal seeds give equal data.
    params : dict, optional
        Model parameters (``{name: value}``) for a model given by name or file.
    **options
        Passed to :func:`nonsmooth.simulate` (``method``, ``rtol`` ...).

    Returns
    -------
    dict of str to ndarray, each shape (samples,)
        ``"t"`` [s] and one column per output.

    Raises
    ------
    ModelError
        ``samples``, ``noise`` or ``t_end`` out of range, an unknown model or parameter.
    DataError
        An output the run does not answer (the message lists the names it does).
    """
    import numpy as np

    from .models import build
    from .simulate import simulate

    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or not (
            2 <= samples <= MAX_SAMPLES):
        raise ModelError(f"samples = {samples!r} is out of range: give a whole number of sample "
                         f"times from 2 to {MAX_SAMPLES}")
    if not (isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0):
        raise ModelError(f"noise = {noise!r} is out of range: give the standard deviation of "
                         "the measurement noise, a finite number >= 0 (0: no noise)")
    outputs = list(outputs)
    if not outputs:
        raise ModelError("no output to measure: name at least one (e.g. 'x', 'block.vx')")
    if isinstance(model, (str, Path)):
        model = build(str(model), **(params or {}))
    elif params:
        raise ModelError("params apply to a model given by name or file; a built model has "
                         "its parameters already")
    t_end = model.t_end if t_end is None else t_end
    if not (isinstance(t_end, (int, float)) and math.isfinite(t_end) and t_end > 0):
        raise ModelError(f"t_end = {t_end!r} s is out of range: it must be a finite time > 0 s "
                         "(the runs start at t = 0)")
    t = np.linspace(0.0, float(t_end), samples)
    result = simulate(model, float(t_end), t_eval=t, **options)
    names = [name for name in result.available() if name != "t"]
    unknown = [name for name in outputs if name not in names]
    if unknown:
        raise DataError(f"output(s) {', '.join(unknown)} cannot be measured: the run of model "
                        f"{model.name!r} answers {', '.join(names)}")
    rng = np.random.default_rng(seed)
    data = {"t": np.asarray(result.t, dtype=float)}
    for name in outputs:
        values = np.asarray(result[name], dtype=float)
        data[name] = values + noise * rng.standard_normal(values.shape) if noise else values
    return data


def write_csv(data: dict, path) -> None:
    """Write the columns of ``data`` (``"t"`` first) as a CSV file with a header row, every
    value to full precision (``repr`` of the float)."""
    import numpy as np

    names = list(data)
    columns = [np.asarray(data[k], dtype=float) for k in names]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(",".join(names) + "\n")
        for row in zip(*columns, strict=True):
            f.write(",".join(repr(float(v)) for v in row) + "\n")
