"""A driver's trajectory as a piecewise polynomial of ``scipy.interpolate``: what the families'
drivers accept as a motion (``Driver(position=spline)`` in the spatial family,
``Driver(motion=spline)`` in the planar one) and how the spatial kernels read it.

:class:`DriverSpline` turns a ``PPoly`` (``CubicSpline``, ``PchipInterpolator``,
``Akima1DInterpolator`` are ones), a ``BPoly`` or a ``BSpline`` into its pieces in the power
basis, checked (scalar, real, finite, increasing breakpoints, degree at most
:data:`MAX_SPLINE_DEGREE`, ``extrapolate`` True or ``"periodic"``); its breakpoints are where
its derivatives jump, which the run makes time stops (``System.motion_breaks``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ModelError

__all__ = ["MAX_SPLINE_DEGREE", "DriverSpline", "is_piecewise_polynomial", "spline_breaks"]


#: The highest degree of a driver's piecewise polynomial (its pieces' coefficients fill one
#: row of the compiled tables each: ``tables.N_FLOATS - 1`` of them).
MAX_SPLINE_DEGREE = 10


def is_piecewise_polynomial(position) -> bool:
    """Whether ``position`` is a piecewise polynomial of ``scipy.interpolate`` (imported only
    if scipy's interpolation module is loaded already: anything else is not one)."""
    import sys

    interp = sys.modules.get("scipy.interpolate")
    if interp is None:
        return False
    return isinstance(position, (interp.PPoly, interp.BPoly, interp.BSpline))


def _power_basis(position, where: str):
    """A ``PPoly``, ``BPoly`` or ``BSpline`` as a ``PPoly`` (the power basis)."""
    from scipy.interpolate import BPoly, BSpline, PPoly

    if isinstance(position, BSpline):
        if np.ndim(position.c) != 1:
            raise ModelError(f"{where}: position = {type(position).__name__} has vector values "
                             f"(its coefficients' shape {np.shape(position.c)}); a driver "
                             "follows one coordinate: give a scalar spline")
        return PPoly.from_spline(position, extrapolate=position.extrapolate)
    if isinstance(position, BPoly):
        return PPoly.from_bernstein_basis(position, extrapolate=position.extrapolate)
    return position


@dataclass(frozen=True)
class DriverSpline:
    """A driver's trajectory as a scalar piecewise polynomial, as the compiled phases read it.

    ``ppoly`` is the ``scipy.interpolate.PPoly`` (in the power basis), ``breaks`` (n + 1,) its
    breakpoints (s, increasing), ``coefficients`` (n, k + 1) each piece's coefficients of
    ``(t - breaks[i])^(k - j)`` (scipy's order, highest power first), ``periodic`` whether it
    repeats with the period ``breaks[-1] - breaks[0]``."""

    ppoly: object
    breaks: np.ndarray
    coefficients: np.ndarray
    periodic: bool

    @classmethod
    def of(cls, position, where: str) -> DriverSpline:
        """From a ``PPoly``, ``BPoly`` or ``BSpline`` (its ``extrapolate`` True or
        ``"periodic"``); a :class:`ModelError` for anything the kernels cannot evaluate."""
        from scipy.interpolate import PPoly

        kind = type(position).__name__
        pp = _power_basis(position, where)
        c = np.asarray(pp.c)
        x = np.asarray(pp.x, dtype=float)
        if c.ndim != 2:
            raise ModelError(f"{where}: position = {kind} has vector values (coefficients of "
                             f"shape {c.shape}); a driver follows one coordinate: give a "
                             "scalar piecewise polynomial")
        if np.iscomplexobj(c):
            raise ModelError(f"{where}: position = {kind} has complex coefficients; a "
                             "driver's trajectory is real")
        c = np.array(c, dtype=float).T  # (n pieces, k + 1)
        if x.size > 2:  # a B-spline's repeated knots: pieces of zero length, never evaluated
            kept = np.flatnonzero(np.diff(x) > 0.0)
            if kept.size:
                c, x = c[kept], np.append(x[kept], x[kept[-1] + 1])
        degree = c.shape[1] - 1
        if degree > MAX_SPLINE_DEGREE:
            raise ModelError(f"{where}: position = {kind} of degree {degree}; a driver's "
                             f"piecewise polynomial has degree <= {MAX_SPLINE_DEGREE} (more "
                             "pieces of a lower degree: e.g. a quintic BPoly.from_derivatives "
                             "on more breakpoints)")
        if not (np.all(np.isfinite(c)) and np.all(np.isfinite(x))):
            raise ModelError(f"{where}: position = {kind} has coefficients or breakpoints "
                             "that are not finite numbers")
        if x.size < 2 or not np.all(np.diff(x) > 0.0):
            raise ModelError(f"{where}: position = {kind} must have increasing breakpoints "
                             f"(got {x.size} of them{', decreasing' if x.size > 1 else ''}); "
                             "make it over increasing times")
        ext = pp.extrapolate
        if ext is False or ext is None:
            raise ModelError(f"{where}: position = {kind} with extrapolate={ext!r} has no "
                             f"value outside [{x[0]:g}, {x[-1]:g}] s, and a run may step "
                             "past its ends; make it with extrapolate=True (its end pieces go "
                             "on) or extrapolate='periodic'")
        periodic = ext == "periodic"
        # the kernels read the pieces in the power basis (and scipy evaluates the same one)
        if type(pp) is not PPoly or x.size != pp.x.size:
            pp = PPoly(c.T.copy(), x.copy(), extrapolate=ext)
        return cls(pp, x, c, periodic)


def spline_breaks(spline: DriverSpline, t0: float, t_end: float) -> np.ndarray:
    """The breakpoints (s) of ``spline`` inside ``(t0, t_end)``, repeated over the periods of a
    periodic one."""
    import math

    x = spline.breaks
    if spline.periodic:
        period = x[-1] - x[0]
        first = math.floor((t0 - x[0]) / period)
        last = math.ceil((t_end - x[0]) / period)
        x = (x[:-1][None, :] + period * np.arange(first, last + 1)[:, None]).ravel()
    return x[(x > t0) & (x < t_end)]
