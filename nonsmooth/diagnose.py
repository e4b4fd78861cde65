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

__all__ = ["nonfinite_source", "nonfinite_error", "user_frame", "check_mass_matrix"]

_PACKAGE = Path(__file__).resolve().parent


def _finite(value) -> bool:
    try:
        return bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
    except (TypeError, ValueError):
        return False


def _planar_source(system, t, q, v) -> str | None:
    """Only user-supplied functions are suspects: a built-in element (spring, damper ...) that
    overflows at a finite state is the integration diverging, not the element."""
    for fe in system.model.forces:
        fn = getattr(fe, "function", None)
        if callable(fn) and not _finite(fn(t, q, v)):
            return f"the function of {type(fe).__name__.lower()} '{fe.name}'"
    for j in system.model.joints:
        given = getattr(j, "normal_force", None)  # a clutch's, brake's or clamp's N(t)
        if callable(given) and not _finite(given(t)):
            return f"the normal force of {type(j).__name__.lower()} '{j.name}'"
        parts = [getattr(j, a, None) for a in ("_f", "_df", "_ddf")]
        if all(callable(f) for f in parts) and not all(_finite(f(t)) for f in parts):
            return f"the motion of {type(j).__name__.lower()} '{j.name}'"
    return None


def _generalized_source(system, t, q, v) -> str | None:
    calls = [("forces(t, q, v)", system._forces, (t, q, v)),
             ("inertial(t, q, v)", system._inertial, (t, q, v)),
             ("damping(t, q, v)", system._damping, (t, q, v)),
             ("potential_gradient(t, q)", system._dV, (t, q)),
             ("mass(q)", system._mass_fn, (q,)),
             ("tangential(t, q)", system._W, (t, q))]
    for c in system._constraints:
        calls += [(f"constraint {c.name!r} phi(t, q)", c.phi, (t, q)),
                  (f"constraint {c.name!r} jacobian(t, q)", c.jacobian, (t, q)),
                  (f"constraint {c.name!r} gamma(t, q, v)", c.gamma, (t, q, v)),
                  (f"constraint {c.name!r} phi_t(t, q)", c.phi_t, (t, q))]
    for what, fn, args in calls:
        if fn is not None and not _finite(fn(*args)):
            return f"the GeneralizedSystem's {what}"
    return None


def nonfinite_source(system, t: float, q: np.ndarray, v: np.ndarray) -> str | None:
    """The element or user function whose value at ``(t, q, v)`` is NaN or infinite.

    Returns a description such as ``"the function of force 'push'"`` or
    ``"the GeneralizedSystem's forces(t, q, v)"``, or None when every element is finite there
    (the integration itself diverged). Exceptions raised by user code propagate."""
    if not (_finite(q) and _finite(v) and math.isfinite(t)):
        return None
    from .planar.model import PlanarSystem
    from .system import GeneralizedSystem

    if isinstance(system, PlanarSystem):
        return _planar_source(system, t, q, v)
    if isinstance(system, GeneralizedSystem):
        return _generalized_source(system, t, q, v)
    return None


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
    if not _finite(M):
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
