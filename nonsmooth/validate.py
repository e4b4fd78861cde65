"""Checks of numbers and names given to model elements: one owner of the "is invalid; it must be
a finite number ..." messages (bodies, joints, forces, rotor inertias) and of the element names.

The friction laws' parameters have their own schema with physical ranges
(:mod:`nonsmooth.friction.schema`); model parameters theirs (:class:`nonsmooth.model.Parameter`).
"""

from __future__ import annotations

import math

from .errors import ModelError

__all__ = ["check_name", "check_number", "check_pair"]


def check_number(value, label: str, *, minimum: float | None = None,
                 exclusive: bool = False, maximum: float | None = None,
                 why: str = "") -> float:
    """``value`` as a finite float, at least ``minimum`` (above it with ``exclusive``), at most
    ``maximum`` (``why`` says why, in the message).

    Parameters
    ----------
    value : number
    label : str
        What precedes the value in the message, with its separator: ``"mass of body 'b': "``
        or ``"revolute 'pin': pin_radius = "``.
    minimum : float, optional
    exclusive : bool
    maximum : float, optional
    why : str
        The reason for ``maximum``, appended to the message (``"; beyond it ..."``).

    Raises
    ------
    ModelError
        ``"<label><value> is invalid; it must be a finite number > 0"`` (the range as given).
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{label}{value!r} is not a number") from None
    rng = "" if minimum is None else f" {'>' if exclusive else '>='} {minimum:g}"
    low = minimum is not None and (x <= minimum if exclusive else x < minimum)
    if not math.isfinite(x) or low:
        raise ModelError(f"{label}{x!r} is invalid; it must be a finite number{rng}")
    if maximum is not None and x > maximum:
        raise ModelError(f"{label}{x!r} is out of range; it must be at most {maximum:g}{why}")
    return x


def check_pair(value, what: str) -> tuple[float, float]:
    """``value`` as a pair of finite floats ``(x, y)``; ``what`` names it in the message."""
    try:
        x, y = (float(value[0]), float(value[1]))
    except (TypeError, IndexError, ValueError):
        raise ModelError(f"{what} must be a pair of numbers (x, y), got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ModelError(f"{what} must be finite, got {value!r}")
    return x, y


def check_name(name, kind: str) -> str:
    """``name`` of an element of kind ``kind`` (``"body"``, ``"revolute"``, ...): a non-empty
    string, the prefix of its outputs (``"<name>.x"``) and its name in messages.

    Raises
    ------
    ModelError
        ``"<kind> name 5 is invalid: an element's name is a non-empty string ..."``.
    """
    if isinstance(name, str) and name.strip():
        return name
    raise ModelError(f"{kind} name {name!r} is invalid: an element's name is a non-empty string "
                     f"(it prefixes the element's outputs, e.g. 'crank.x'); give one first, "
                     f"e.g. {kind.capitalize()}('crank', ...)")
