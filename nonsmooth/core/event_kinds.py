"""The engine's event kinds and their values: one definition, in plain Python (no numba), for
the Python event loop (``run.modes.Modes.g_value``) and, compiled, for the compiled phases
(:mod:`nonsmooth.core.events`)."""

from __future__ import annotations

__all__ = ["EVENT_KINDS", "GAP", "GAP_KINDS", "engine_value"]

#: Codes of the engine's event functions (``run.modes.Modes.event_specs``).
#: ``reserve`` is a sticking vector pair's ``mu_s N - |F_T|`` (``vector_friction``; its
#: ``velocity`` the slip speed along the reference direction, ``sigma = v_T . e_ref``).
EVENT_KINDS = {"velocity": 0, "normal": 1, "detach": 2, "reserve+": 3, "reserve-": 4,
               "given": 5, "reserve": 6}
VELOCITY, NORMAL, DETACH, RESERVE_PLUS, RESERVE_MINUS, GIVEN, RESERVE = 0, 1, 2, 3, 4, 5, 6
#: The compiled phases' code of a compliant contact's ``touch`` and ``leave`` events: the
#: value is the evaluation buffer's number at the event's index (the contact's gap, which the
#: family's kernel writes after the buffer's fields; ``run.phase.event_codes``).
GAP = 7
#: The run's event kinds that a compiled phase evaluates as :data:`GAP`.
GAP_KINDS = ("touch", "leave")


def engine_value(kind, mu_s, threshold, F_T, v_T, N, lam_abs):
    """The value of an engine event function of code ``kind`` (:data:`EVENT_KINDS`, but
    ``given``) from the numbers it reads: a pair's friction force ``F_T`` (N), sliding velocity
    ``v_T`` (m/s or rad/s), normal load ``N`` (N) and static coefficient ``mu_s``, or a load
    row's multiplier ``lam_abs`` (N) and the detach threshold (N); for a vector pair ``v_T``
    is ``sigma = v_T . e_ref`` and ``F_T`` its magnitude ``|F_T|`` (``reserve``). The one
    definition of the engine's event values: the compiled phases call it
    (:func:`event_value`), and the Python event loop calls its Python function
    (``run.modes.Modes.g_value``)."""
    if kind == VELOCITY:
        return v_T
    if kind == NORMAL:
        return lam_abs
    if kind == DETACH:
        return abs(lam_abs) - threshold
    reserve = mu_s * N
    if kind == RESERVE_PLUS:
        return reserve + F_T
    return reserve - F_T  # reserve-, and a vector pair's reserve (F_T its magnitude)
