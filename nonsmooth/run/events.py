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
* ``"touch"``, ``"leave"`` -- a compliant contact's gap crosses zero downwards (its impact
  speed, the approach speed then, is stored for its damping and logged as ``speed``, m/s) or
  upwards; ``"start"`` also gives each contact's status at the initial time (``after``:
  ``"closed"`` or ``"open"``); a rigid contact (``normal="rigid"``, event-driven:
  :mod:`nonsmooth.run.rigid_events`) ``"touch"``-es when a point closes without an impact
  and ``"leave"``-s when its last closed point's normal force reaches zero;
* ``"impact"`` -- a rigid contact's point reaches the other body approaching: Newton's impact
  law with friction over every touching point (``speed``: the approach speed, m/s;
  ``impulse``: the contact's normal impulse, N s; ``v`` and ``v_after``: the velocities
  before and after);
* ``"accumulation"`` -- a rigid contact's impacts accumulate (a ball bouncing to rest): the
  series' limit time, where the contact closes;
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

__all__ = ["EventRecord", "EventLog", "mode_name", "UserEvent", "hermite", "locate",
           "crossed", "EVENT_KINDS", "MODES", "ELEMENTS"]

_MODE_NAMES = {1: "slip+", -1: "slip-", 0: "stick"}

#: The kinds of ``result.events`` entries (module docstring).
EVENT_KINDS = ("start", "velocity_zero", "reserve_zero", "normal_sign", "user", "touch",
               "leave", "impact", "accumulation")
#: The modes a frictional pair enters (``EventRecord.after`` of a mode event).
MODES = ("stick", "slip+", "slip-", "slip")
#: What an event's ``name`` names (``EventRecord.element``).
ELEMENTS = ("pair", "load row", "user", "contact")
#: The kinds whose ``before`` / ``after`` are modes.
MODE_KINDS = ("start", "velocity_zero", "reserve_zero")


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
    pair : str          the name of the element the event belongs to (also ``name``): the
                        frictional pair; for a ``normal_sign`` event the pair whose normal
                        row it is, or the constraint row's name for another load row (e.g.
                        ``slot.lock``: its joint's name, a dot, the row); for a ``user`` event
                        the function's name (``UserEvent.name``)
    kind : str          ``velocity_zero``, ``reserve_zero``, ``normal_sign``, ``start`` or
                        ``user`` (the module docstring; a ``detach`` is logged as
                        ``normal_sign`` with ``before = "0"``)
    before, after : str mode of the pair before / after (``slip+``, ``slip-``, ``stick``); for a
                        ``normal_sign`` event the face: ``+``, ``-`` or ``0``; ``before`` is
                        empty for ``start``, both are empty for ``user``
    q, v : ndarray      state at the event
    z : ndarray         internal states of smooth friction laws at the event (user events;
                        empty otherwise)
    element : str       what ``name`` names (:data:`ELEMENTS`): ``"pair"`` (a frictional
                        pair), ``"load row"`` (a constraint row whose sign is tracked, not a
                        pair's normal row), ``"user"`` (a user event function)
    """

    t: float
    pair: str
    kind: str
    before: str
    after: str
    q: np.ndarray = field(repr=False)
    v: np.ndarray = field(repr=False)
    z: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    element: str = field(default="pair", repr=False)
    #: a contact's approach speed at its ``touch``, ``leave`` or ``start`` (m/s, > 0
    #: approaching: at a touch its impact speed); NaN for other events
    speed: float = field(default=float("nan"), repr=False)
    #: a rigid contact's normal impulse at its ``impact`` (N s, the sum over its points); NaN
    #: for other events
    impulse: float = field(default=float("nan"), repr=False)
    #: the velocities just after an ``impact`` (``v`` holds those just before); empty for
    #: other events
    v_after: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)

    @property
    def name(self) -> str:
        """The name of the event's element or user event function (``pair``)."""
        return self.pair


def _choices(value, what: str) -> tuple | None:
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(f"{what} = {value!r} is invalid: give a str or a sequence of str"
                         ) from None
    if not all(isinstance(v, str) for v in values):
        raise ValueError(f"{what} = {value!r} is invalid: give a str or a sequence of str")
    return values


class EventLog(list):
    """``result.events``: the run's event log, a list of :class:`EventRecord` in time order,
    which can be filtered by name and kind.

    It is a ``list`` (indexing, ``len``, iteration as before); :meth:`filter` returns another
    ``EventLog``; :attr:`t`, :attr:`names`, :attr:`kinds` are its columns; :meth:`intervals`
    the time intervals a pair spends in one mode (its stick phases).

    Parameters
    ----------
    records : iterable of EventRecord
    names : sequence of str, optional
        Every name an event of this run may carry (the model's frictional pairs and tracked
        load rows, the user event functions): a filter by another name is a mistake
        (ValueError naming the known ones), not an empty log.
    t_end : float, optional
        The run's end time (s): where the last interval of :meth:`intervals` ends.
    """

    def __init__(self, records=(), *, names=None, t_end: float | None = None):
        super().__init__(records)
        self.known = None if names is None else tuple(dict.fromkeys(names))
        self.t_end = t_end

    def _same(self, records) -> EventLog:
        return EventLog(records, names=self.known, t_end=self.t_end)

    @property
    def t(self) -> np.ndarray:
        """The events' times (s), shape (k,)."""
        return np.array([e.t for e in self], dtype=float)

    @property
    def names(self) -> list[str]:
        """The distinct names in the log, in order of first appearance."""
        return list(dict.fromkeys(e.pair for e in self))

    @property
    def kinds(self) -> list[str]:
        """The distinct kinds in the log, in order of first appearance."""
        return list(dict.fromkeys(e.kind for e in self))

    def filter(self, name=None, kind=None, *, element=None, before=None, after=None,
               between: tuple[float, float] | None = None) -> EventLog:
        """The events matching every condition given, in time order.

        Parameters
        ----------
        name : str or sequence of str, optional
            The element's (a frictional pair's, a load row's) or user event function's name.
        kind : str or sequence of str, optional
            An event kind (:data:`EVENT_KINDS`), or a mode (:data:`MODES`: ``"stick"``,
            ``"slip+"``, ``"slip-"``, ``"slip"``): the mode events (start, velocity_zero,
            reserve_zero) that enter it (``result.events.filter("belt", "stick")``: every
            start of a stick phase of pair ``belt``).
        element : str, optional
            What the name names (:data:`ELEMENTS`).
        before, after : str, optional
            The mode or face before / after the event.
        between : (float, float), optional
            Times ``t0 <= t <= t1`` (s).

        Raises
        ------
        ValueError
            A name the run has no element or user event of, or an unknown kind or element
            (the message lists the allowed ones).
        """
        names, kinds = _choices(name, "name"), _choices(kind, "kind")
        if names is not None and self.known is not None:
            unknown = [n for n in names if n not in self.known]
            if unknown:
                raise ValueError(f"events.filter: no element or user event named "
                                 f"{', '.join(map(repr, unknown))} in this run; names: "
                                 f"{', '.join(self.known) or 'none'}")
        if kinds is not None:
            bad = [k for k in kinds if k not in EVENT_KINDS and k not in MODES]
            if bad:
                raise ValueError(f"events.filter: unknown kind {', '.join(map(repr, bad))}; "
                                 f"kinds: {', '.join(EVENT_KINDS)}, or a mode entered: "
                                 f"{', '.join(MODES)}")
        if element is not None and element not in ELEMENTS:
            hint = (f"; to filter by name, give it first: events.filter({element!r})"
                    if self.known and element in self.known else "")
            raise ValueError(f"events.filter: unknown element {element!r}; elements: "
                             f"{', '.join(ELEMENTS)}{hint}")

        def kind_ok(e):
            return kinds is None or e.kind in kinds or (e.kind in MODE_KINDS
                                                        and e.after in kinds)

        out = [e for e in self
               if (names is None or e.pair in names) and kind_ok(e)
               and (element is None or e.element == element)
               and (before is None or e.before == before)
               and (after is None or e.after == after)
               and (between is None or between[0] <= e.t <= between[1])]
        return self._same(out)

    def intervals(self, name: str, mode: str = "stick", t_end: float | None = None) -> np.ndarray:
        """The time intervals pair ``name`` spends in ``mode`` (default its stick phases),
        from its mode events: shape (k, 2), rows ``(start, end)`` in s; the last one ends at
        ``t_end`` (default the run's end) if the pair is still in the mode there."""
        if mode not in MODES:
            raise ValueError(f"events.intervals: unknown mode {mode!r}; modes: "
                             f"{', '.join(MODES)}")
        events = self.filter(name=name, kind=MODE_KINDS)
        end = self.t_end if t_end is None else t_end
        rows, since = [], None
        for e in events:
            if since is not None and e.after != mode:
                rows.append((since, e.t))
                since = None
            elif since is None and e.after == mode:
                since = e.t
        if since is not None:
            rows.append((since, since if end is None else max(float(end), since)))
        return np.array(rows, dtype=float).reshape(-1, 2)

    def __repr__(self) -> str:
        return f"EventLog({list.__repr__(self)})"


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
