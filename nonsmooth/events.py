"""Event functions, their location on a step, and the event log record.

The engine's event functions (``docs/method.md`` section 7), all terminal and one-sided, and the
kind each is logged under in ``result.events``:

* ``"velocity_zero"`` -- a slipping pair's sliding velocity ``v_T`` reaches zero: the transition
  problem (``docs/method.md`` section 8) decides the new mode;
* ``"reserve_zero"`` -- one of a sticking pair's friction reserves ``mu_s N + F_T``,
  ``mu_s N - F_T`` reaches zero: the transition problem decides, preferring to slip in the
  direction the friction was resisting; also logged for a sticking pair that the transition
  problem at another pair's event sets slipping;
* ``"normal_sign"`` -- a face change: a load row's multiplier (a pair's normal force
  ``lambda_N``, or another load row such as a rotation-lock moment) crosses zero, and the face
  flips (``before``/``after`` ``"+"`` and ``"-"``); or a row on face ``"0"`` (round-off level,
  adding nothing to the load) leaves zero, the ``detach`` event function, and takes the face of
  its sign (``before = "0"``). Faces are also re-derived after every mode change, which can log
  ``normal_sign`` entries at a ``velocity_zero`` / ``reserve_zero`` event. The right-hand side
  is continuous at a face change (only its derivative kinks), but the face-fixed continuation
  of the loads holds on one side only, so the integration restarts from it like from any other
  engine event (``simulate._Run.handle``);
* ``"start"`` -- the mode of each Coulomb pair at the initial time;
* ``"user"`` -- a user event function ``g(t, q, v)`` (scipy convention: attributes ``terminal``
  and ``direction``; ``terminal`` may be a count, as in scipy >= 1.12: the run stops at that
  occurrence; ``name`` names it, default its ``__name__``).

Every engine event is located on the step's dense output, logged, and the integration restarts
from it with nothing cached across it. Modes are spelled ``"slip+"``, ``"slip-"`` and
``"stick"``; faces ``"+"``, ``"-"`` and ``"0"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["EventRecord", "mode_name", "UserEvent", "hermite", "locate", "crossed"]

_MODE_NAMES = {1: "slip+", -1: "slip-", 0: "stick"}


def mode_name(s: float) -> str:
    """``+1 -> "slip+"``, ``-1 -> "slip-"``, ``0 -> "stick"``; ``2 -> "slip"`` (a vector pair
    slipping, :mod:`nonsmooth.vector_friction`)."""
    if s == 2.0:
        return "slip"
    return _MODE_NAMES[int(np.sign(s))]


@dataclass
class EventRecord:
    """One entry of ``result.events``.

    Attributes
    ----------
    t : float           event time (s)
    pair : str          frictional pair name; for a ``normal_sign`` event the pair whose normal
                        row it is, or the constraint row's name for another load row (e.g.
                        ``slot.lock``); for a ``user`` event the function's name
    kind : str          ``velocity_zero``, ``reserve_zero``, ``normal_sign``, ``start`` or
                        ``user`` (the module docstring; a ``detach`` is logged as
                        ``normal_sign`` with ``before = "0"``)
    before, after : str mode of the pair before / after (``slip+``, ``slip-``, ``stick``); for a
                        ``normal_sign`` event the face: ``+``, ``-`` or ``0``; ``before`` is
                        empty for ``start``, both are empty for ``user``
    q, v : ndarray      state at the event
    z : ndarray         internal states of smooth friction laws at the event (user events;
                        empty otherwise)
    """

    t: float
    pair: str
    kind: str
    before: str
    after: str
    q: np.ndarray = field(repr=False)
    v: np.ndarray = field(repr=False)
    z: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)


@dataclass
class UserEvent:
    """A user event normalized from a callable ``g(t, q, v)``.

    Attributes
    ----------
    name : str          the function's ``name`` attribute, else its ``__name__``, else
                        ``event<index>``; made unique within a run (``name_2``, ...): the key
                        of ``result.t_events``
    function : callable
    terminal : int      0: never stops the run; n >= 1: the run stops at the n-th occurrence
                        (scipy >= 1.12; ``True`` is 1)
    direction : float   > 0 upward crossings only, < 0 downward only, 0 both
    """

    name: str
    function: Callable
    terminal: int
    direction: float

    @classmethod
    def wrap(cls, fn, index: int) -> UserEvent:
        if not callable(fn):
            raise ValueError(f"events[{index}] is not callable; an event is a function "
                             "g(t, q, v) -> float with optional attributes terminal, direction")
        name = getattr(fn, "name", None) or getattr(fn, "__name__", None) or f"event{index}"
        if not isinstance(name, str):
            raise ValueError(f"events[{index}].name = {name!r} is invalid: it must be a str "
                             "(the key of result.t_events)")
        terminal = getattr(fn, "terminal", False)
        if isinstance(terminal, (bool, np.bool_)):
            terminal = int(terminal)
        elif not (isinstance(terminal, (int, np.integer)) and terminal >= 0):
            raise ValueError(f"event {name!r}: terminal = {terminal!r} is invalid: give True / "
                             "False or a count >= 0 (the run stops at that occurrence)")
        direction = getattr(fn, "direction", 0.0)
        try:
            direction = float(direction)
        except (TypeError, ValueError):
            raise ValueError(f"event {name!r}: direction = {direction!r} is invalid: give a "
                             "number (> 0 upward, < 0 downward, 0 both)") from None
        return cls(name, fn, int(terminal), direction)

    @staticmethod
    def wrap_all(functions) -> list[UserEvent]:
        """Every event function wrapped, their names made unique (``name``, ``name_2``, ...)."""
        events, used = [], set()
        for i, fn in enumerate(functions):
            ue = UserEvent.wrap(fn, i)
            name, count = ue.name, 1
            while name in used:
                count += 1
                name = f"{ue.name}_{count}"
            used.add(name)
            ue.name = name
            events.append(ue)
        return events


def crossed(g0: float, g1: float, direction: float) -> bool:
    """Did g cross zero from g0 to g1 in the watched direction (scipy's convention)?"""
    up = g0 <= 0 <= g1 and g0 != g1
    down = g0 >= 0 >= g1 and g0 != g1
    if direction > 0:
        return up
    if direction < 0:
        return down
    return up or down


def hermite(t0, y0, f0, t1, y1, f1):
    """Cubic Hermite interpolant of a step, as a function of t (4th-order accurate for RK4)."""
    h = t1 - t0
    dy = y1 - y0

    def y(t):
        s = (t - t0) / h
        h10 = s * (1 - s) ** 2
        h01 = s * s * (3 - 2 * s)
        h11 = s * s * (s - 1)
        return y0 + h01 * dy + h * (h10 * f0 + h11 * f1)

    return y


def locate(g: Callable[[float], float], t0: float, t1: float, g0: float, g1: float,
           xtol: float = 1e-13) -> float:
    """Root of g on [t0, t1] (a sign change is known), to ``xtol`` seconds."""
    if g0 == 0:
        return t0
    if g1 == 0:
        return t1
    from scipy.optimize import brentq  # on first use: 0.1 s of start-up otherwise

    return brentq(g, t0, t1, xtol=xtol, rtol=4 * np.finfo(float).eps)
