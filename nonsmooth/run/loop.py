"""The one event loop of a run (:func:`_integrate_phases`): smooth phases between events and
time stops (each by :func:`nonsmooth.run.phase._smooth_phase`), the transition at each event
(:func:`_handle_event`), and the event functions compared across a time stop
(:func:`_restart_at_stop`); a time-stepping method's steps without events
(:func:`_take_time_steps`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .events import crossed
from .phase import _smooth_phase
from .schedule import _Schedule, _tol

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from .state import _Run


def _integrate_phases(run: _Run, method, sched: _Schedule, t0, y, dt, modes, rtol, atol,
                      max_step):
    """One event loop for every method: smooth phases (:func:`_phase`) between events and time
    stops, a fresh stepper after each (nothing is cached across it), the transition at each
    event; where the constraint rows kept of a system that removed redundant rows are to be
    chosen again (``"rows"``: :class:`~nonsmooth.run.singular.StepWatch`), a fresh phase with
    them from the same state. The state at an engine event or a time stop has its ``q``
    projected by the family
    (:meth:`_Run.projected`, ``System.project``) before the event is handled and the next
    phase starts from it (the initial state is projected by ``simulate``)."""
    grid, t_end = sched.grid, sched.t_end
    y, modes = run.update_contacts(t0, y, modes, initial=not run.events_started)
    run.events_started = True
    ev = run.ev_at(t0, y, modes)
    run.knots.append((t0, np.array(y), ev.dv, ev.dv))
    next_k = 0
    if grid[0] - t0 <= _tol(t0):
        run.record(t0, y, ev, modes)
        next_k = 1
    t = t0
    phase_max_step = max_step
    redo = False
    while t < t_end and (next_k < len(grid) or sched.t_eval):
        t_bound = sched.phase_end(t)
        run.t_clamp = math.inf if t_bound >= t_end else float(np.nextafter(t_bound, -math.inf))
        run.n_phases += not redo
        specs = run.event_specs(modes, t)
        outcome = _smooth_phase(run, method, specs, modes, t, y, t_bound, grid, next_k, rtol,
                                atol, phase_max_step, dt, sched)
        kind, next_k, t, y = outcome[:4]
        redo = kind == "redo"
        if redo:  # an event was stepped over: redo from the last output, shorter steps
            phase_max_step = min(phase_max_step, outcome[4])
            run._last = None
            continue
        phase_max_step = max_step
        if kind == "rows":  # the rows kept nearly dependent: chosen again, a fresh phase
            y = run.projected(y)
            ev = run.ev_at(t, y, modes)
            run.use_rows(t, outcome[4])
            run._last = None  # nothing is cached across the change
            run.knots.append((t, np.array(y), ev.dv, run.ev_at(t, y, modes).dv))
            continue
        if kind == "done":
            if t_bound >= t_end:
                break
            y = run.projected(y)
            modes = _restart_at_stop(run, specs, t, y, modes)
            y, modes = run.update_contacts(t, y, modes)
        else:
            fired = outcome[4]
            users = [j for j in fired if specs[j][0] == "user"]
            if users:
                for j in users:
                    run.log_user(t, y, run.user_events[specs[j][1]])
                ev = run.ev_at(t, y, modes)
                if not sched.t_eval or (next_k < len(grid) and grid[next_k] - t <= _tol(t)):
                    run.record(t, y, ev, modes)  # with t_eval: only its rows (solve_ivp's)
                run.knots.append((t, np.array(y), ev.dv, ev.dv))
                return "user", t
            y = run.projected(y)
            y, modes = run.update_contacts(t, y, modes)
            modes = _handle_event(run, specs, fired, t, y, modes)
        if next_k < len(grid) and grid[next_k] - t <= _tol(t):
            run.record(t, y, run.ev_at(t, y, modes), modes)
            next_k += 1
    ev = run.ev_at(t, y, modes)
    run.knots.append((t, np.array(y), ev.dv, ev.dv))
    return "done", t


def _handle_event(run: _Run, specs, fired, t, y, modes):
    """The engine events ``fired`` at ``t``: the transition (:meth:`_Run.handle`); both sides
    kept as a knot of the dense output."""
    before = run.side(t, modes)
    new = run.handle(t, y, modes, run.coincident(
        t, y, modes, [(specs[j][0], specs[j][1]) for j in fired]))
    run.knots.append((t, np.array(y), before, run.side(t, new)))
    return new


def _restart_at_stop(run: _Run, specs, t, y, modes):
    """A phase ended at the time stop ``t``: compare the engine's event functions on both sides
    of it (the left limit of the right-hand side, evaluated just before ``t``, and its value
    at ``t``); those that changed sign across it in their watched direction (a sticking pair
    whose reserve a step in a load used up, a normal force that jumped to the other face, a
    given normal force that became positive) fire at ``t`` as events. Returns the modes of the
    next phase."""
    t_left = run.t_clamp
    before = run.side(t_left, modes)
    engine = [spec for spec in specs if spec[0] != "user"]
    if engine:
        ev_before = run.ev_at(t, y, modes)  # the left limit (the phase's clamp)
        g_before = [run.g_value(spec, t_left, y, ev_before, modes) for spec in engine]
    run.t_clamp = math.inf
    run._last = None  # nothing is cached across the stop
    new = modes
    if engine:
        ev_after = run.ev_at(t, y, modes)
        fired = [(spec[0], spec[1]) for spec, g0 in zip(engine, g_before, strict=True)
                 if crossed(g0, run.g_value(spec, t, y, ev_after, modes), spec[2])]
        if fired:
            new = run.handle(t, y, modes, run.coincident(t, y, modes, fired))
    run.knots.append((t, np.array(y), before, run.side(t, new)))
    return new


def _take_time_steps(run: _Run, method, sched: _Schedule, t0, y):
    """The loop of a time-stepping method (``Method.time_stepping``, e.g. Moreau-Jean): its
    stepper (``method.stepper(run, method, t0, y)``) takes one step to each time of the grid
    ``t0 + k dt`` (``step(t_next)``) and records it (``record()``); impacts and friction are
    resolved inside the steps, so no engine event is located and no mode or face is kept.
    The first and last states are knots of the dense output, as in
    :func:`_integrate_phases`."""
    stepper = method.stepper(run, method, t0, y)
    stepper.record()
    run.knots.append((t0, np.array(y), stepper.dv, stepper.dv))
    for t_next in sched.steps[1:]:
        stepper.step(float(t_next))
        stepper.record()
    stepper.finish()
    run.knots.append((stepper.t, np.array(stepper.y), stepper.dv, stepper.dv))
    return "done", stepper.t
