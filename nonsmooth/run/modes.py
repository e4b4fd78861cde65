"""The modes, faces and events of a run (:class:`Modes`, a part of ``_Run``): the initial modes
and faces, the event functions of a phase and their values (``core.event_kinds``'s one
definition), the handling of an event (the transition problem, coincident events, the Zeno
guard), the event log and the dense output's one-sided accelerations."""

from __future__ import annotations

import math

import numpy as np

from ..core.event_kinds import EVENT_KINDS as _EVENT_CODES
from ..core.event_kinds import engine_value as _engine_value
from ..errors import (
    IntegrationError,
    UserFunctionError,
)
from ..limits import (
    ZENO_LIMIT,
)
from .events import EventRecord, mode_name
from .schedule import _EVENT_RESOLUTION

_FACE = {1.0: "+", -1.0: "-", 0.0: "0"}


#: The transition's preference order of the modes of a pair after each kind of event: at rest
#: it sticks if static friction can hold it; a reserve that ran out slips the way the friction
#: was resisting (stick only if it cannot).
_TRANSITION_OPTIONS = {"velocity": (0.0, 1.0, -1.0), "reserve+": (1.0, 0.0),
                       "reserve-": (-1.0, 0.0), "reserve": (2.0, 0.0)}


class Modes:
    """Methods of ``nonsmooth.run.state._Run`` (its attributes are set there)."""

    # ---------------------------------------------------------------- modes and events
    def initial_modes(self, t, y):
        L = self.layout
        q, v = y[L.q], y[L.v]
        modes = np.ones(self.system.n_pairs)
        if not self.system.n_pairs:
            return modes
        if self.vector is not None:
            modes = self.vector.initial_modes(t, y)
        else:
            v_T = self.system.terms(t, q, v).W @ v
            scale = self._velocity_scale(v)
            zero = []
            for i in range(self.system.n_pairs):
                if abs(v_T[i]) > 1e-12 * scale or i not in self.friction_pairs:
                    modes[i] = 1.0 if v_T[i] >= 0 else -1.0
                else:
                    zero.append(i)
            if zero:
                modes = self.dyn.transition(t, q, v, modes, zero, z=y[L.z])
        for i in self.friction_pairs:  # smooth-law pairs have no modes
            self.events.append(EventRecord(t, self.system.pairs[i].name, "start", "",
                                           mode_name(modes[i]), q.copy(), v.copy()))
        return modes

    @staticmethod
    def _velocity_scale(v):
        return max(1.0, float(np.max(np.abs(v)))) if v.size else 1.0

    def initial_faces(self, t, y, modes, crossed=()):
        """The face of the slot each slider bears on (sign of each load row, e.g. lambda_N).

        A zero multiplier takes the sign it has just after t (probed along the flow); one that
        stays at roundoff level (a rotation-lock moment that nothing loads) gets face 0: it adds
        nothing to the load until it exceeds ``face_threshold`` (a ``detach`` event). A row in
        ``crossed`` (its ``normal`` event fired at t) that crosses zero within the events' time
        resolution of t takes the face it has just after t: a slider reversing at a dead centre
        (its normal force and sliding velocity vanish at the same instant, and t lies a
        roundoff before the crossing), whose restart would otherwise find its crossing again,
        and again (issue 19)."""
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, None, y[L.z])
        scale = max(1.0, float(np.max(np.abs(ev.lam)))) if ev.lam.size else 1.0
        self.face_threshold = 1e-8 * scale
        faces = np.where(np.abs(ev.lam_abs) <= 1e-10 * scale, 0.0, np.sign(ev.lam_abs))
        crossed = np.asarray(sorted(crossed), dtype=np.int64)
        if np.any(faces == 0) or crossed.size:
            dy = self.rate(y, ev)
            delta = 1e-6
            probe = y + delta * dy
            later = self.dyn.evaluate(t + delta, probe[L.q], probe[L.v], modes, None,
                                      probe[L.z]).lam_abs
            faces = np.where((faces == 0) & (np.abs(later) > 1e-10 * scale), np.sign(later),
                             faces)
            if crossed.size:
                lam, rate = ev.lam_abs[crossed], (later[crossed] - ev.lam_abs[crossed]) / delta
                at_t = (faces[crossed] * rate < 0) & (
                    np.abs(lam) <= np.abs(rate) * _EVENT_RESOLUTION * max(1.0, abs(t)))
                faces[crossed] = np.where(at_t, -faces[crossed], faces[crossed])
        self.faces = faces

    def handle(self, t, y, modes, fired):
        """Terminal engine events at t: flip faces (normal force sign), decide new modes
        (velocity zero), log them; guard against chattering. Returns the modes to go on with."""
        self._zeno_guard(t, fired)
        self._last = None  # nothing is cached across an event
        old_faces = self.faces
        coincident = {(f[0], f[1]) for f in fired if len(f) > 2}
        fired = [(f[0], f[1]) for f in fired]
        self.faces = self._flip_faces(t, y, modes, fired)
        options = {i: _TRANSITION_OPTIONS[kind] for kind, i in fired
                   if kind in _TRANSITION_OPTIONS}
        new = modes
        if options:
            candidates = sorted(set(options) | set(np.flatnonzero(modes == 0.0).tolist()))
            L = self.layout
            new = self.dyn.transition(t, y[L.q], y[L.v], modes, candidates,
                                      options=options, z=y[L.z])
            new = self._run_out(new, fired, coincident)
            # the friction force changed: re-derive every face from the HLCP at the new modes
            self.initial_faces(t, y, new, {i for kind, i in fired if kind == "normal"})
            self._log_modes(t, y, modes, new, fired, coincident, candidates, options)
        for r in np.flatnonzero(self.faces != old_faces):  # one entry per face change
            self._log(t, y, self.abs_names[r], "normal_sign", _FACE[old_faces[r]],
                      _FACE[self.faces[r]], self.abs_elements[r])
        for kind, i in fired:  # a given normal force reached zero: the element opens / closes
            if kind == "given":
                closing = self._given_normal_force(i, t + 1e-9 * max(1.0, abs(t))) > 0
                self._log(t, y, self.system.pairs[i].name, "normal_sign",
                          "0" if closing else "+", "+" if closing else "0")
        return new

    def _run_out(self, new, fired, coincident):
        """A sticking pair whose reserve ran out (a crossing, not a coincident zero) with
        ``mu_s = mu_d`` slips the way its friction was resisting. At that instant sticking and
        slipping are both consistent (the same force, zero relative acceleration), so the
        transition keeps it sticking; but the reserve was decreasing through zero, so sticking
        would end at once, again and again (Modelica's ``peak = 1`` clutches)."""
        out = new
        for kind, i in fired:
            if (kind in ("reserve+", "reserve-") and (kind, i) not in coincident
                    and new[i] == 0.0 and self.degenerate[i]):
                out = out.copy() if out is new else out
                out[i] = 1.0 if kind == "reserve+" else -1.0
        return out

    def _zeno_guard(self, t, fired):
        """Raise on more than ZENO_LIMIT events within 1e-12 (relative) of each other."""
        if t - self._zeno_t < 1e-12 * max(1.0, abs(t)):
            self._zeno_count += 1
            if self._zeno_count > ZENO_LIMIT:
                raise IntegrationError(
                    f"chattering (Zeno) at t = {t:.12g} s: more than {ZENO_LIMIT} events "
                    f"{sorted({f[0] for f in fired})} within 1e-12 x max(1, t) s of each other; "
                    "the motion accumulates events (sticking or a grazing normal force): use a "
                    "smooth friction law or change the parameters")
        else:
            self._zeno_t, self._zeno_count = t, 0

    def _flip_faces(self, t, y, modes, fired):
        """The faces after ``normal`` (the normal force crossed zero: the other face) and
        ``detach`` (a load row left zero: the face of its sign) events."""
        faces = self.faces.copy()
        for kind, i in fired:
            if kind == "normal":
                faces[i] = -faces[i]
            elif kind == "detach":
                L = self.layout
                ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
                faces[i] = 1.0 if ev.lam_abs[i] >= 0 else -1.0
        return faces

    def _log(self, t, y, name, kind, before, after, element="pair"):
        L = self.layout
        self.events.append(EventRecord(t, name, kind, before, after, y[L.q].copy(),
                                       y[L.v].copy(), element=element))

    def _log_modes(self, t, y, modes, new, fired, coincident, candidates, options):
        """One entry per mode change of a fired pair (a coincident one only if it changed) and
        per sticking pair that the transition set slipping."""
        pairs = self.system.pairs
        for kind, i in fired:  # (a vector slip whose sigma root was no stop: nothing to log)
            if kind in _TRANSITION_OPTIONS and ((kind, i) not in coincident
                                                or new[i] != modes[i]) and not (
                    modes[i] == new[i] == 2.0):
                self._log(t, y, pairs[i].name,
                          "velocity_zero" if kind == "velocity" else "reserve_zero",
                          mode_name(modes[i]), mode_name(new[i]))
        for i in candidates:
            if i not in options and new[i] != modes[i]:
                self._log(t, y, pairs[i].name, "reserve_zero", mode_name(modes[i]),
                          mode_name(new[i]))

    def coincident(self, t, y, modes, fired):
        """Add to ``fired`` every other engine event that is at (or just past) its zero at t.

        Root finders report the first of several simultaneous roots only (scipy drops the
        events after the first terminal one), so two pairs that stop at the same instant would
        otherwise leave the second one in a mode it has already left."""
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
        v_scale = self._velocity_scale(y[L.v])
        f_scale = max([1.0, *np.abs(ev.N).tolist(), *np.abs(ev.F_T).tolist()])
        out = list(fired)
        for spec in self.event_specs(modes):
            key = (spec[0], spec[1])
            if spec[0] in ("user", "touch", "leave") or key in out:  # (contacts: all at once)
                continue
            signed = -spec[2] * self.g_value(spec, t, y, ev, modes)  # > 0 before the crossing
            scale = v_scale if spec[0] == "velocity" else f_scale
            if signed <= 1e-9 * scale:
                out.append((*key, "coincident"))
        return out

    def update_contacts(self, t, y, modes, initial=False):
        """Each compliant contact's status just after ``t`` (closed: its gap a moment later,
        ``gap - tau * approach`` with ``tau = 1e-9 max(1, |t|)`` s, is negative, so a contact
        at its touch or leave event takes the side it moves to). A contact that closes stores
        its approach speed as its impact speed in the state and logs a ``touch`` (its
        ``speed``, m/s), one that opens logs a ``leave``. The Coulomb pairs of an open contact
        slip (their load is zero: no force, no friction events,
        :meth:`_open_contact_pairs`); a closing contact's pairs take the mode of their slip
        (a pair at rest: the transition problem's). Returns ``(y, modes)`` (new ones when
        they changed)."""
        n_c = self.system.n_contacts
        if not n_c:
            return y, modes
        L = self.layout
        q, v = y[L.q], y[L.v]
        gap = self.system.contact_gaps(t, q)
        approach = self.system.contact_approach(t, q, v)
        closed = gap - 1e-9 * max(1.0, abs(t)) * approach < 0.0
        if not initial and np.array_equal(closed, self.contact_closed):
            return y, modes
        before = self.contact_closed.copy()
        y = np.array(y, dtype=float)
        z = y[L.z]
        start = z.size - n_c
        for c in range(n_c):
            if closed[c] and (initial or not self.contact_closed[c]):
                z[start + c] = max(float(approach[c]), 0.0)
            if initial or closed[c] != self.contact_closed[c]:
                kind = "start" if initial else ("touch" if closed[c] else "leave")
                self.events.append(EventRecord(
                    t, self.system.contact_names[c], kind,
                    "" if initial else ("open" if closed[c] else "closed"),
                    "closed" if closed[c] else "open", q.copy(), v.copy(), element="contact",
                    speed=float(approach[c])))
        y[L.z] = z
        self.contact_closed = closed
        self._last = None
        changed = [c for c in range(n_c) if initial or closed[c] != before[c]]
        return y, self._contact_modes(t, y, modes, changed)

    def _open_contact_pairs(self) -> set:
        """The Coulomb pairs of the contacts that are open (their load is zero)."""
        return {int(i) for i, c in self.system.contact_pairs
                if not self.contact_closed[c] and int(i) in self.friction_pairs}

    def watched_pairs(self) -> list:
        """The Coulomb pairs whose modes the outputs are checked against (``inconsistent``):
        all but an open contact's (no load: any slip is consistent)."""
        if not self.system.n_contacts:
            return self.friction_pairs
        open_pairs = self._open_contact_pairs()
        return [i for i in self.friction_pairs if i not in open_pairs]

    def _contact_modes(self, t, y, modes, contacts) -> np.ndarray:
        """The modes of the Coulomb pairs of ``contacts`` (whose status just changed): slipping
        the way they move when open or when they move, the transition's when a closed one's
        pair is at rest."""
        pairs = [int(i) for i, c in self.system.contact_pairs
                 if c in contacts and int(i) in self.friction_pairs]
        if not pairs:
            return modes
        L = self.layout
        q, v = y[L.q], y[L.v]
        v_T = self.system.terms(t, q, v).W @ v
        scale = 1e-12 * self._velocity_scale(v)
        modes = np.array(modes, dtype=float)
        at_rest = []
        for i in pairs:
            r = slice(int(self.system.w_row[i]), int(self.system.w_row[i] + self.dyn.dim[i]))
            speed = float(np.linalg.norm(v_T[r]))
            c = dict(self.system.contact_pairs)[i]
            if speed <= scale and self.contact_closed[c]:
                at_rest.append(i)
            elif self.dyn.dim[i] > 1:  # a vector pair slips along its slip (any way at rest)
                from ..vector_friction import SLIP, STOP_FRACTION

                modes[i] = SLIP
                self.dyn.e_ref[r] = v_T[r] / speed if speed > 0 else np.eye(r.stop - r.start)[0]
                self.dyn.stop_speed[i] = STOP_FRACTION[False] * speed
            else:
                modes[i] = 1.0 if v_T[r.start] >= 0 else -1.0
        if at_rest:
            modes = self.dyn.transition(t, q, v, modes, at_rest, z=y[L.z])
        for e in self.events:  # (the initial modes' entries: the modes the run starts in)
            if e.kind == "start" and e.element == "pair" and e.t == t:
                i = self.system.pair_names.index(e.pair)
                if i in pairs:
                    e.after = mode_name(modes[i])
        return modes

    def inconsistent(self, y, ev, modes) -> bool:
        """Whether an output of the current phase contradicts its modes or faces (a slipping
        pair moving against its mode, a sticking pair beyond its friction reserve, a normal
        force on the other face): the sign of an event missed between two steps."""
        v_tol = 1e-9 * self._velocity_scale(y[self.layout.v])
        f_tol = 1e-9 * max(1.0, float(np.max(np.abs(ev.N), initial=0.0)))
        if self.vector is not None:
            return (self.vector.inconsistent(ev, modes, v_tol, f_tol)
                    or bool(np.any(self.faces * ev.lam_abs < -f_tol)))
        for i in self.watched_pairs():
            if modes[i] == 0.0:
                N = self.mu_s[i] * ev.N[i]
                if N + ev.F_T[i] < -f_tol or N - ev.F_T[i] < -f_tol:
                    return True
            elif modes[i] * ev.v_T[i] < -v_tol:
                return True
        return bool(np.any(self.faces * ev.lam_abs < -f_tol))

    def log_user(self, t, y, ue):
        L = self.layout
        self.events.append(EventRecord(t, ue.name, "user", "", "", y[L.q].copy(),
                                       y[L.v].copy(), np.array(y[L.z]), element="user"))

    def event_specs(self, modes, t=None):
        """(kind, index, direction, terminal) of each event function of the current phase
        starting at ``t`` (without ``t``: the modes' and faces' event functions only).

        Engine events are terminal and one-sided (they watch the crossing away from the current
        mode / face), so a restart exactly at an event cannot find it again."""
        if self.vector is not None:  # pairs of dim > 1 (their scalar pairs' as below)
            specs = self.vector.event_specs(modes)
        else:
            specs = []
            for i in self.friction_pairs:
                if modes[i] == 0.0:  # sticking: the reserves mu_s N -+ F_T must stay >= 0
                    specs += [("reserve+", i, -1.0, True), ("reserve-", i, -1.0, True)]
                else:
                    specs.append(("velocity", i, -modes[i], True))
        specs += [("normal", r, -self.faces[r], True) if self.faces[r] else
                  ("detach", r, 1.0, True) for r in range(len(self.faces))]
        if t is not None:  # a clutch's N(t) crossing zero, watched away from its sign just
            after = t + 1e-9 * max(1.0, abs(t))  # after t (a restart at its root: either sign)
            specs += [("given", i, -1.0 if self._given_normal_force(i, after) > 0 else 1.0,
                       True) for i, _ in self.system.preload_functions]
        if self.system.n_contacts:  # an open contact's pairs: no load, no friction events
            open_pairs = self._open_contact_pairs()
            specs = [sp for sp in specs if sp[1] not in open_pairs or sp[0] not in (
                "velocity", "reserve", "reserve+", "reserve-")]
        if t is not None:  # a contact's gap: an open one touches, a closed one leaves
            specs += [("leave", c, 1.0, True) if closed else ("touch", c, -1.0, True)
                      for c, closed in enumerate(self.contact_closed)]
        specs += [("user", k, ue.direction, ue.terminal) for k, ue in enumerate(self.user_events)]
        return specs

    def g_value(self, spec, t, y, ev, modes):
        """The value of the event function ``spec`` at ``(t, y)`` with its evaluation ``ev``:
        an engine event's by ``core.events.engine_value`` (the compiled phases' definition), a
        given normal force's or a user event's by the user's function."""
        kind, i = spec[0], spec[1]
        if self.vector is not None and kind in ("velocity", "reserve", "reserve+", "reserve-"):
            return self.vector.g_value(kind, i, ev)
        if kind in ("normal", "detach"):
            return float(_engine_value(_EVENT_CODES[kind], 0.0, self.face_threshold, 0.0, 0.0,
                                       0.0, float(ev.lam_abs[i])))
        if kind in _EVENT_CODES and kind != "given":
            return float(_engine_value(_EVENT_CODES[kind], float(self.mu_s[i]),
                                       self.face_threshold, float(ev.F_T[i]), float(ev.v_T[i]),
                                       float(ev.N[i]), 0.0))
        if kind == "given":
            return self._given_normal_force(i, t)
        L = self.layout
        if kind in ("touch", "leave"):
            return float(self.system.contact_gaps(t, y[L.q])[i])
        ue = self.user_events[i]
        raw = ue.function(t, y[L.q], y[L.v])
        try:
            if isinstance(raw, (str, bytes)) or np.ndim(raw) != 0:
                raise TypeError
            value = float(raw)
        except (TypeError, ValueError):
            raise UserFunctionError(
                f"user event {ue.name} returned {raw!r} at t = {t:.10g} s: an event function "
                "g(t, q, v) must return a real number (its sign changes at the event)") from None
        if not math.isfinite(value):
            raise UserFunctionError(
                f"user event {ue.name} returned {value} at t = {t:.10g} s: an event function "
                "g(t, q, v) must return a finite number")
        return value

    def step_accepted(self, specs, ev, modes, g, fixed=False) -> list:
        """The event values ``g`` at the end of an accepted step, as the next step starts from
        them (vector slips: ``e_ref`` follows the slip direction,
        :meth:`nonsmooth.vector_friction.VectorEvents.refresh`; ``fixed``: a fixed-step
        method's)."""
        return g if self.vector is None else self.vector.refresh(specs, ev, modes, g, fixed)

    def _given_normal_force(self, i, t) -> float:
        """Pair ``i``'s given normal force ``N(t)`` (N) as the user's function returns it."""
        value = float(dict(self.system.preload_functions)[i](t))
        if not math.isfinite(value):
            raise UserFunctionError(
                f"the normal force of '{self.system.pairs[i].name}' returned {value} at "
                f"t = {t:.10g} s: N(t) must return a finite number (N)")
        return value

    def side(self, t, modes):
        """One side of a knot at ``t`` in the current modes and faces (and slip directions
        ``e_ref`` of vector pairs), evaluated later."""
        if self.vector is not None:
            return (t, np.array(modes, dtype=float), np.array(self.faces, dtype=float),
                    self.dyn.e_ref.copy())
        return (t, np.array(modes, dtype=float), np.array(self.faces, dtype=float))

    def side_acceleration(self, side, y) -> np.ndarray:
        """``dv`` (n_v,) at the state ``y`` on a knot's ``side`` (:meth:`side`)."""
        t, modes, faces = side[:3]
        if len(side) > 3:
            self.dyn.e_ref[:] = side[3]
        L = self.layout
        return self.dyn.evaluate(t, y[L.q], y[L.v], modes, faces, y[L.z]).dv
