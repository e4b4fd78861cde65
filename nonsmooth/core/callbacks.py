"""User functions called back from compiled phases through numba's object mode.

The Python side of the runs in progress whose models have user functions (given forces and
torques, driver motions f(t), given normal forces N(t)), by token: ``[values, given, error]``
with ``values(t, y, U)`` filling the user values ``U`` (n_el, 3) at the state ``y``,
``given(i, t)`` pair ``i``'s given normal force as the user's function returns it (N), and the
first exception either raised (None while there is none). A kernel reaches them through
numba's object mode (about a microsecond per call). An exception is not raised through the
kernel (the outputs of its call would be lost): the values become NaN, the kernel returns a
declining status with what it has, and the caller raises it (:func:`user_error`).

The token and the time the right-hand side is clamped to travel as the last two entries of
the phase's plan (:func:`extended_plan`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, objmode

__all__ = ["register_user", "user_error", "unregister_user", "extended_plan", "fill_user",
           "given"]

_USER: dict[int, list] = {}


def register_user(values, given) -> int:
    """Make a run's user functions reachable from the kernels (``values`` may be None for a
    family whose compiled terms call no user function); returns the token that goes into the
    plan (:func:`extended_plan`). Undo with :func:`unregister_user`."""
    token = 0
    while token in _USER:
        token += 1
    _USER[token] = [values, given, None]
    return token


def user_error(token: int) -> BaseException | None:
    """The exception a user function raised inside a kernel call of this run, if any."""
    return _USER[token][2] if token in _USER else None


def unregister_user(token: int) -> None:
    _USER.pop(token, None)


def extended_plan(plan: np.ndarray, token: int, t_clamp: float) -> np.ndarray:
    """``plan`` with the two entries a compiled phase reads from its end: the user-function
    token (-1: none) and the time the evaluations are clamped to (s; inf: none)."""
    return np.concatenate((plan, (float(token), float(t_clamp))))


def _user_values(token, t, y, U):
    entry = _USER[token]
    if entry[2] is None:
        try:
            entry[0](t, y, U)
            return
        except BaseException as exc:  # kept for the caller (a KeyboardInterrupt too)
            entry[2] = exc
    U[:] = np.nan


def _given_value(token, i, t) -> float:
    entry = _USER[token]
    if entry[2] is None:
        try:
            return float(entry[1](i, t))
        except BaseException as exc:  # kept for the caller
            entry[2] = exc
    return math.nan


@njit(cache=True)
def fill_user(token, t, y, ws, n_el):
    """The user values at ``(t, y)`` into ``U`` (n_el, 3), the end of the workspace ``ws`` (a
    call back into Python)."""
    U = ws[ws.size - 3 * n_el:].reshape(n_el, 3)
    with objmode():
        _user_values(token, t, y, U)


@njit(cache=True)
def given(token, i, t):
    """Pair ``i``'s given normal force ``N(t)`` (N; a call back into Python)."""
    with objmode(value="float64"):
        value = _given_value(token, i, t)
    return value
