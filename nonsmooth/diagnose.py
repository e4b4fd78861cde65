"""Name the source of a failure: the model element or user function behind a non-finite value,
the user code behind an exception.

Used only after something went wrong (never on the per-evaluation path), so it may evaluate the
model element by element.
"""

from __future__ import annotations

import math
import traceback
from pathlib import Path

import numpy as np

__all__ = ["nonfinite_source", "nonfinite_error", "user_frame", "check_mass_matrix", "finite"]

_PACKAGE = Path(__file__).resolve().parent


def finite(value) -> bool:
    """Whether ``value`` is numbers, all finite (False for what is not numbers)."""
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return False


def nonfinite_source(system, t: float, q: np.ndarray, v: np.ndarray) -> str | None:
    """The element or user function whose value at ``(t, q, v)`` is NaN or infinite.

    Returns a description such as ``"the function of force 'push'"`` or
    ``"the GeneralizedSystem's forces(t, q, v)"``, or None when every element is finite there
    (the integration itself diverged). Exceptions raised by user code propagate."""
    if not (finite(q) and finite(v) and math.isfinite(t)):
        return None
    return system.nonfinite_source(t, q, v)  # the family's own (System.nonfinite_source)


def nonfinite_error(system, times, q, v):
    """The named :class:`~nonsmooth.errors.UserFunctionError` for the first of ``times`` at
    which a user function returns NaN/inf at ``(q, v)``, or None (the integration itself
    diverged: the caller says so with its own context)."""
    from .errors import UserFunctionError

    for t in times:
        source = nonfinite_source(system, t, q, v)
        if source:
            return UserFunctionError(f"{source} returned a non-finite value (NaN or inf) at "
                                     f"t = {t:.10g} s; the state became non-finite there")
    return None


def user_frame(exc: BaseException) -> str:
    """``"function (file:line)"`` of the innermost traceback frame outside this package (the
    user's code that raised), or ``""`` when every frame is the package's own."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        path = Path(frame.filename).resolve()
        if _PACKAGE not in path.parents and "site-packages" not in path.parts:
            return f"{frame.name} ({path.name}:{frame.lineno})"
    return ""


def check_mass_matrix(M: np.ndarray, t: float | None = None) -> str | None:
    """Why ``M`` is not a valid mass matrix (not symmetric, not positive definite), or None;
    ``t`` the time of a configuration-dependent one (None: a constant mass matrix)."""
    M = np.asarray(M, dtype=float)
    at = "" if t is None else f"(q) at t = {t:.10g} s"
    hint = "" if t is None else "; check the mass(q) function"
    if not finite(M):
        return f"mass matrix M{at} has non-finite entries"
    scale = float(np.max(np.abs(M))) if M.size else 0.0
    asym = float(np.max(np.abs(M - M.T))) if M.size else 0.0
    if asym > 1e-10 * scale:
        return (f"mass matrix M{at} is not symmetric (max |M - M^T| = "
                f"{asym:.3g}){hint}")
    try:
        np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        low = float(np.min(np.linalg.eigvalsh(M)))
        return (f"mass matrix M{at} is not positive definite (smallest "
                f"eigenvalue {low:.3g}){hint}")
    return None
