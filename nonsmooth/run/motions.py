"""The check of prescribed motions given with their derivatives, before a run.

A driver given as ``(f, df/dt, d2f/dt2)`` writes ``-df`` into its row's ``phi_t`` and ``ddf``
into ``gamma``: if they are not the derivatives of ``f``, the run integrates another motion than
the one whose position row it reports, and the row drifts while every solver step succeeds.
:func:`check_given_motions` compares the given derivatives with finite differences of the given
functions at a few times of the run's span, before the run, and raises a
:class:`~nonsmooth.errors.ModelError` naming the driver when the drift they cause would pass
:data:`~nonsmooth.limits.DRIFT_LIMIT` (the drift at which the run's rows are no longer the
motion), or warns (:class:`~nonsmooth.errors.DriverMotionWarning`) when the mismatch is
resolved by the differences but the drift stays below it (and above
:data:`DRIFT_NEGLIGIBLE`, the drift of round-off).

The differences. At a time ``t`` the derivative of ``g`` is estimated by the central, the
forward and the backward second-order differences whose points lie in the run's span (the
functions are not called outside it), each at steps ``h_k = 2^-k T / 16`` (``T`` the span),
down to ``1e-7 max(1, |t|)`` s. The error of a second-order difference at ``h/2`` is about a
third of its change from ``h`` (Richardson); with the rounding error ``4 eps max|g| / h``
added, the step with the smallest error bound ``u`` gives the estimate ``D``. A given
derivative ``d`` disagrees with ``g`` at ``t`` when ``|d - D| > 10 u + 1e-9 (|d| + |D|)`` for
every difference taken (a one-sided difference agreeing is enough: a motion made of pieces
has a kink where its derivative is one side's). The factor 10 covers the error bound's own
uncertainty; 1e-9 relative is the accuracy of derivatives differenced by the engine itself
(a driver given by ``f`` alone).

The drift. Within the run a derivative error ``e = df - f'`` (rad/s or m/s) and ``e2 = ddf -
f''`` drive the row's drift ``phi`` by Baumgarte's stabilized equation ``phi'' + 2 alpha phi' +
beta^2 phi = e2 + 2 alpha e`` from ``phi' = e`` at the start. Without stabilization it grows to
``|e| T + |e2| T^2 / 2``; with it, it stays near ``(|e2| + 2 alpha |e|) / beta^2``. The smaller
of the two, with the largest ``|e|`` and ``|e2|`` found, is the drift the check predicts.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from ..errors import DriverMotionWarning, ModelError
from ..limits import DRIFT_LIMIT

__all__ = ["check_given_motions", "derivative_mismatch", "SAMPLES"]

#: Times of the span at which the derivatives are checked: ``t0 + k (t_end - t0) / SAMPLES``,
#: ``k = 0 ... SAMPLES`` (the start first).
SAMPLES = 8
#: Safety factor on the differences' error bound (the bound is itself an estimate).
SAFETY = 10.0
#: Relative accuracy below which a given derivative is taken as the derivative (the engine's
#: own differenced derivatives are about this accurate).
RELATIVE_FLOOR = 1e-9
#: A predicted drift (rad or m) below which a mismatch is the round-off of derivatives computed
#: exactly in floating point (an inverse kinematics' differenced: 1e-11 rad/s): no warning.
DRIFT_NEGLIGIBLE = 1e-9
_EPS = np.finfo(float).eps

# second-order stencils: (offsets in h, weights / h)
_STENCILS = {
    "central": ((-1.0, 1.0), (-0.5, 0.5)),
    "forward": ((0.0, 1.0, 2.0), (-1.5, 2.0, -0.5)),
    "backward": ((-2.0, -1.0, 0.0), (0.5, -2.0, 1.5)),
}


def _estimate(g: Callable[[float], float], t: float, a: float, b: float,
              offsets, weights) -> tuple[float, float] | None:
    """``(D, u)``: the difference of ``g`` at ``t`` over the stencil ``offsets``/``weights``
    at the step with the smallest error bound ``u``, points within ``[a, b]``; None when no
    step fits or ``g`` is not finite there."""
    span = b - a
    h = span / 16.0
    h_min = 1e-7 * max(1.0, abs(t))
    lo, hi = min(offsets), max(offsets)
    while h > h_min and (t + lo * h < a or t + hi * h > b):
        h /= 2.0
    best, previous = None, None
    while h >= h_min:
        values = [float(g(t + o * h)) for o in offsets]
        if not all(math.isfinite(x) for x in values):
            return best
        D = sum(w * x for w, x in zip(weights, values, strict=True)) / h
        if previous is not None:
            u = abs(previous - D) / 3.0 + 4.0 * _EPS * max(abs(x) for x in values) / h
            if best is None or u < best[1]:
                best = (D, u)
        previous = D
        h /= 2.0
    return best


def derivative_mismatch(g: Callable[[float], float], dg: Callable[[float], float], t: float,
                        a: float, b: float) -> float:
    """How far the given derivative ``dg(t)`` is from the derivative of ``g`` at ``t``
    (``g``'s units per s): 0 when some difference of ``g`` within ``[a, b]`` agrees with it
    within its error bound (module docstring), else the smallest disagreement."""
    given = float(dg(t))
    if not math.isfinite(given):
        return 0.0  # a non-finite value is named by the run, at the time it is met
    mismatch = math.inf
    for offsets, weights in _STENCILS.values():
        est = _estimate(g, t, a, b, offsets, weights)
        if est is None:
            continue
        D, u = est
        d = abs(given - D)
        if d <= SAFETY * u + RELATIVE_FLOOR * (abs(given) + abs(D)):
            return 0.0
        mismatch = min(mismatch, d)
    return 0.0 if math.isinf(mismatch) else mismatch


def check_given_motions(system, t0: float, t_end: float, alpha: float, beta: float) -> None:
    """Check the derivatives of every motion the system's drivers were given
    (``System.given_motions``) over the run's span ``[t0, t_end]`` (s) with Baumgarte's
    ``alpha``, ``beta`` (1/s) (module docstring). Raises :class:`ModelError` naming the driver
    when the predicted drift passes :data:`DRIFT_LIMIT`; warns
    (:class:`DriverMotionWarning`) when it does not. A function that raises is left to the
    run, which names it at the time it is met."""
    motions = system.given_motions()
    if not motions or not t_end > t0:
        return
    T = t_end - t0
    times = t0 + T * np.arange(SAMPLES + 1) / SAMPLES
    for name, unit, f, df, ddf in motions:
        worst = [0.0, 0.0]  # max |e|, max |e2|
        where = [None, None]  # (t, the given value) of each
        try:
            for t in times:
                t = float(t)
                for k, (g, dg) in enumerate(((f, df), (df, ddf))):
                    e = derivative_mismatch(g, dg, t, t0, t_end)
                    if e > worst[k]:
                        worst[k], where[k] = e, (t, float(dg(t)))
        except Exception:  # noqa: BLE001 - the run calls it again and names the failure
            continue
        if not any(worst):
            continue
        e, e2 = worst
        drift = e * T + 0.5 * e2 * T * T
        if beta > 0.0:
            drift = min(drift, (e2 + 2.0 * alpha * e) / beta ** 2)
        if drift <= DRIFT_NEGLIGIBLE:
            continue
        which = 0 if where[0] is not None else 1
        t_bad, given = where[which]
        label = ("df/dt", f"{unit}/s") if which == 0 else ("d2f/dt2", f"{unit}/s^2")
        text = (f"driver '{name}': the given {label[0]} is not the derivative of its "
                f"{'position f' if which == 0 else 'df/dt'}: at t = {t_bad:.6g} s it is "
                f"{given:.6g} {label[1]}, {worst[which]:.3g} {label[1]} from the finite "
                f"difference; the driven row would drift by about {drift:.3g} {unit}")
        if drift > DRIFT_LIMIT:
            raise ModelError(
                f"{text} (more than {DRIFT_LIMIT:g} {unit}, over t = {t0:g} .. {t_end:g} s). "
                "Give the derivatives of f (a spatial Driver given position=f alone "
                "differences f itself)")
        warnings.warn(DriverMotionWarning(
            f"{text} (below {DRIFT_LIMIT:g} {unit}): give the derivatives of f", name),
            stacklevel=3)
