"""Event-driven rigid contact: smooth phases between impacts, closures and openings, each
decided by a complementarity problem (Pfeiffer & Glocker 1996; Glocker 2001; Acary &
Brogliato 2008, chapter 7). ``simulate(model, t_end)`` with an adaptive method (DOP853, RK45,
...) runs a model with rigid contacts (``Contact(..., normal="rigid")``) this way.

The touching points and their modes: every point of every rigid contact
(``System.rigid_contact_rows``; a box on a plane has its eight corners) is *open* or
*closed*; a closed point *sticks*, *slides* along a direction, or is frictionless. In a smooth
phase the modes are fixed: a closed point's normal row is a constraint (``g'' = 0`` with
Baumgarte's terms, as a joint's), a sticking point's tangent rows too, a sliding point carries
``-mu lambda_N s`` (:func:`nonsmooth.contact.rigid.closed_accelerations`). The phase ends at
the first of these events, located on the integrator's dense output by Brent's method:

* ``impact``: an open point's gap reaches zero;
* ``leave``: a closed point's normal force reaches zero;
* ``velocity_zero``: a sliding point's slip speed along its direction reaches zero;
* ``reserve_zero``: a contact's sticking points' friction reaches ``mu`` times their normal
  force (summed over the points: a face's forces are not unique, their sums are).

At an event (:meth:`RigidContactRun.transition`) the points touching there (gap within
:data:`GAP_TOL`) approaching faster than :data:`SPEED_TOL` have an impact: Newton's impact
law with Coulomb friction over all touching points at once (simultaneous impacts are one
problem: :func:`nonsmooth.core.moreau_jean.solve_step` with no force impulse, its faceted
cone); its impulses are logged (``EventRecord.impulse``) and its kinetic energy is checked
(never more after than before). Then the touching points that do not separate have their modes
decided by the acceleration-level LCP (:func:`nonsmooth.contact.rigid.acceleration_problem`);
a problem with no solution or several (Painleve's paradox) stops the run with the
contacts, their friction coefficients, the configuration and the reason.

An accumulation of impacts (a ball bouncing to rest, ``e < 1``): after an impact whose point
would rise less than :data:`ACCUMULATION_RISE` before landing again under its present normal
acceleration ``g''``, the remaining impacts form a geometric series whose limit is computed,
``t_inf = t + 2 g'_+ / (|g''| (1 - e))``, and the contact closes, held at rest by the closing
impulse (:meth:`RigidContactRun._close`): the event log records the closure at ``t_inf``
(``kind="accumulation"``), the motion goes on with the contact closed, never thousands of
ever-smaller phases. A point lifted by another point's impact (a rocking block's edge) ends
its accumulation the same way, its series' ratio that of its contact's last impact speeds.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.optimize import brentq

from ..contact.rigid import (
    FRICTIONLESS,
    SLIDING,
    STICKING,
    AccelerationSolution,
    acceleration_problem,
    closed_accelerations,
    independent_rows,
)
from ..core.moreau_jean import solve_step
from ..errors import IntegrationError, ModelError
from ..limits import ZENO_LIMIT
from .events import EventRecord
from .steppers import bound_jacobian_factor

__all__ = ["RigidContactRun", "RigidFaceWarning", "check_model", "GAP_TOL", "SPEED_TOL",
           "ACCUMULATION_RISE"]

#: The most rigid contacts an event-driven run takes (a scene with more is Moreau-Jean's).
MAX_CONTACTS = 200
#: A point is touching when its gap is at most this (m).
GAP_TOL = 1e-9
#: A touching point approaching faster than this (m/s) has an impact; slower, it closes.
SPEED_TOL = 1e-9
#: An impact after which the point would rise less than this (m) before landing again ends
#: an accumulation of impacts (the series' limit computed, the point closed).
ACCUMULATION_RISE = 1e-6
#: A sliding point's friction is along ``v_T + SLIP_DIRECTION_SPEED s_0`` (m/s), ``s_0`` the
#: direction it started to slide in: its slip's direction once it moves, continuously from
#: ``s_0`` at rest (a switch at a threshold would be a jump an adaptive step cannot cross).
SLIP_DIRECTION_SPEED = 1e-9
#: Points of a step's dense output where an event function that was zero at the phase's
#: start is looked at for having risen above its scale (then its crossing back is located).
ARMING_SAMPLES = 8
#: A phase of flight that starts with a point touching (just after its impact) takes steps
#: of at most this fraction of its flight, so that its first step ends in the air
#: (:meth:`RigidContactRun._flight_step`).
FLIGHT_STEPS = 2
#: The rows' central differences' step, relative to the time scale ``|q| / |dq|``.
BIAS_STEP = 1e-3
#: The most rounds of the map that makes a starting slip's direction exact.
DIRECTION_ITERATIONS = 50
#: Brent's tolerance on an event's time (relative to the time, s).
EVENT_XTOL = 4.0 * np.finfo(float).eps


class RigidFaceWarning(RuntimeWarning):
    """A rigid face's points slide in different directions and rigid contact does not decide
    how they share the load: the run goes on with the least-norm sharing."""


def check_model(system, model_name: str, method, *, events=(), t_eval=None,
                tstops=()) -> None:
    """What an event-driven run of rigid contacts cannot take yet, refused before it starts
    (``ModelError`` or ``ValueError`` naming the element or option and what to do)."""
    rigid = system.rigid_contacts
    if len(rigid) > MAX_CONTACTS:
        raise ModelError(f"model {model_name!r}: {len(rigid)} rigid contacts are more than an "
                         f"event-driven run takes ({MAX_CONTACTS}: it evaluates every contact "
                         "at every step and locates each impact); run a scene with many "
                         "contacts with method=\"MoreauJean\" and dt= (e.g. dt=1e-3)")
    names = ", ".join(repr(system.contact_names[c]) for c in rigid)
    if method.fixed:
        raise ModelError(f"model {model_name!r}: the rigid contact(s) {names} need an adaptive "
                         f"method (DOP853, RK45), whose events are located, or method "
                         f"\"MoreauJean\" with dt=; method {method.name} steps on a fixed "
                         "grid and cannot locate an impact")
    compliant = [system.contact_names[c] for c in range(system.n_contacts)
                 if c not in system.rigid_contacts]
    if compliant:
        raise ModelError(f"model {model_name!r}: rigid contacts and compliant contacts "
                         f"({', '.join(repr(n) for n in compliant)}) in one run are not "
                         "available yet; make every contact rigid (normal=\"rigid\") or "
                         "compliant")
    if system.n_pairs:
        pairs = ", ".join(repr(pr.name) for pr in system.pairs)
        raise ModelError(f"model {model_name!r}: rigid contacts with joint friction pairs "
                         f"({pairs}) are not available yet; a rigid contact's friction is its "
                         "mu=; remove the joints' friction or use compliant contacts")


class RigidContactRun:
    """One event-driven run of a model with rigid contacts (module docstring).

    Parameters
    ----------
    run : nonsmooth.run.state._Run
        The run (system, layout, recorder, budget, event log).
    method : nonsmooth.run.methods.ScipyMethod
        The adaptive method (its scipy solver class).
    rtol, atol : float, ndarray
        The integration tolerances (``atol`` per state entry).
    max_step : float
        The largest step (s).
    """

    def __init__(self, run, method, rtol, atol, max_step):
        self.run, self.method, self.system, self.layout = run, method, run.system, run.layout
        self.rtol, self.atol, self.max_step = rtol, atol, max_step
        dyn = run.dyn
        self.two_alpha, self.beta2 = 2.0 * dyn.alpha, dyn.beta ** 2
        sysm = self.system
        self.driver_rows = np.zeros(sysm.n_constraints, dtype=bool)
        self.driver_rows[np.asarray(sysm.driver_rows, dtype=int)] = True
        self.owner = None  # each point's contact (set by the first _points)
        M = sysm.constant_mass
        self._inverse_mass = None if M is None else np.linalg.inv(M)
        self._lean = self._inverse_mass is not None and not sysm.n_constraints
        self._any_closed = False
        self.closed = None
        self._modes_version = 0  # the last evaluation, for the same state and modes
        self._last_key, self._last = None, None
        self._points_key = self._points_last = None  # (the last _points and closed-form
        self._exact_key = self._exact = None  # bias, by their state)
        self._lean_key = self._lean_dy = None  # (the last free motion's fun)
        self._face_warned = False  # (a face's load shared by convention: said once)
        self._support: dict = {}  # a point's contact's mean normal force (N), _accumulating
        self._last_speed: dict = {}  # each contact's last impact speed (m/s) and the ratio
        self._speed_ratio: dict = {}  # of the last two

    # ------------------------------------------------------------------ points and rows
    def _points(self, t, q):
        """Every point's gap (P,), normal rows (P, n_v), tangent rows (P, 2, n_v), and, on
        first use, each point's contact, restitution and friction coefficient. The last
        ``(t, q)``'s are kept (an event's transition asks several times; read-only)."""
        key = (float(t), np.asarray(q, dtype=float).tobytes())
        if key != self._points_key:
            self._points_key, self._points_last = key, self._points_at(t, q)
        return self._points_last

    def _points_at(self, t, q):
        out = self.system.rigid_contact_rows(t, q, math.inf)
        n_v = self.layout.n_v
        gaps = [g for *_, g, _, _ in out]
        P = sum(g.size for g in gaps)
        if self.owner is None:
            self.owner = np.concatenate([np.full(r[3].size, r[0]) for r in out]).astype(int) \
                if P else np.zeros(0, dtype=int)
            self.e = np.concatenate([np.full(r[3].size, r[1]) for r in out]) if P else \
                np.zeros(0)
            self.mu = np.concatenate([np.full(r[3].size, r[2]) for r in out]) if P else \
                np.zeros(0)
            self.closed = np.zeros(P, dtype=bool)
            self.kind = np.full(P, FRICTIONLESS)
            self.slip_ref = np.zeros((P, 2))
        elif P != self.owner.size:
            raise IntegrationError(f"the rigid contacts' points changed in number at t = "
                                   f"{t:.9g} s ({self.owner.size} -> {P})")
        if not P:
            return np.zeros(0), np.zeros((0, n_v)), np.zeros((0, 2, n_v))
        return (np.concatenate(gaps), np.vstack([r[4] for r in out]),
                np.concatenate([r[5] for r in out]))

    def _bias(self, t, q, v, idx):
        """``(dW/dt) v`` of the points ``idx``' normal rows (k,) and tangent rows (k, 2):
        the family's closed form (``System.rigid_contact_bias``) where it has one, else
        central differences of the rows along the motion ``dq = qdot(q, v)`` at the steps
        ``h`` and ``h / 2`` combined by Richardson's extrapolation (error ``O(h^4)``), ``h``
        :data:`BIAS_STEP` of the time ``|q| / |dq|``: a smooth error of about 1e-12 relative
        and round-off of about 1e-13, which an adaptive step control does not mistake for
        stiffness (a plain difference at a tiny step is noise of 1e-9)."""
        sysm = self.system
        key = (float(t), np.asarray(q, dtype=float).tobytes(),
               np.asarray(v, dtype=float).tobytes())
        if key != self._exact_key:  # (the last state's kept: a transition asks again)
            self._exact_key, self._exact = key, sysm.rigid_contact_bias(t, q, v)
        exact = self._exact
        if exact is not None:  # the family's closed form
            return exact[0][idx], exact[1][idx]
        dq = sysm.qdot(q, v) if sysm.has_kinematic_map else v
        rate = float(np.max(np.abs(dq))) if dq.size else 0.0
        if rate <= 0.0:
            return np.zeros(idx.size), np.zeros((idx.size, 2))
        h = BIAS_STEP * max(1e-3, float(np.max(np.abs(q)))) / rate

        def central(hh):
            _, Np, Tp = self._points(t, q + hh * dq)
            _, Nm, Tm = self._points(t, q - hh * dq)
            return ((Np[idx] - Nm[idx]) @ v / (2.0 * hh),
                    np.einsum("kij,j->ki", Tp[idx] - Tm[idx], v) / (2.0 * hh))

        (n1, t1), (n2, t2) = central(h), central(0.5 * h)
        return (4.0 * n2 - n1) / 3.0, (4.0 * t2 - t1) / 3.0

    def _stabilized_bias(self, t, q, v, idx, gaps, W_N, v_T):
        """The points ``idx``' local accelerations without forces, less ``W a``: ``(c_N (k,),
        c_T (k, 2))``, the rows' ``(dW/dt) v`` with Baumgarte's terms (``2 alpha g' + beta^2
        g``; ``2 alpha v_T``, ``v_T`` (k, 2) their slip velocities)."""
        if not idx.size:
            return np.zeros(0), np.zeros((0, 2))
        b_N, b_T = self._bias(t, q, v, idx)
        return (b_N + self.two_alpha * (W_N[idx] @ v) + self.beta2 * gaps[idx],
                b_T + self.two_alpha * v_T)

    def _joint_rhs(self, T, v):
        """The joints' acceleration right-hand side ``gamma - 2 alpha Phi' - beta^2 Phi``."""
        if not T.G.shape[0]:
            return np.zeros(0)
        return T.gamma - self.two_alpha * (T.G @ v + T.phi_t) - self.beta2 * T.phi

    def _terms(self, t, q, v):
        self.run.charge(t)
        self.run.dyn.n_evaluations += 1
        return self.system.terms(t, q, v)

    # ------------------------------------------------------------------------- evaluation
    def evaluate(self, t, y):
        """The phase's accelerations at ``(t, y)`` with the present modes: ``(dy, sol, T,
        rows)`` (``sol`` :class:`~nonsmooth.contact.rigid.AccelerationSolution` over the
        closed points, in the order of ``np.flatnonzero(self.closed)``)."""
        key = (float(t), np.asarray(y).tobytes(), self._modes_version)
        if key == self._last_key:  # (a step's end: the solver's stage, then the events')
            return self._last
        self._last_key, self._last = key, self._evaluate(t, y)
        return self._last

    def _evaluate(self, t, y):
        L, sysm = self.layout, self.system
        q, v = y[L.q], y[L.v]
        T = self._terms(t, q, v)
        idx = np.flatnonzero(self.closed)
        if not idx.size:  # no closed point: the rows are not needed
            return self._free(t, y, T)
        gaps, W_N, W_T = self._points(t, q)
        kind = self.kind[idx]
        slip = self.slip_ref[idx].copy()
        v_T = np.einsum("kij,j->ki", W_T[idx], v)
        sliding = kind == SLIDING  # along v_T, from its starting direction at rest:
        along = v_T[sliding] + SLIP_DIRECTION_SPEED * slip[sliding]  # continuous in v_T
        slip[sliding] = along / np.linalg.norm(along, axis=1)[:, None]
        c_N, c_T = self._stabilized_bias(t, q, v, idx, gaps, W_N, v_T)
        sol = closed_accelerations(T.M, T.f, T.G, self._joint_rhs(T, v), W_N[idx], W_T[idx],
                                   c_N, c_T, self.mu[idx], kind, slip)
        dq = sysm.qdot(q, v) if sysm.has_kinematic_map else v
        Gv = T.G @ v
        P_joints = sol.Lambda * Gv
        P_drive = float(P_joints[self.driver_rows].sum()) if P_joints.size else 0.0
        P_friction = float(np.sum(sol.lambda_T * v_T)) if idx.size else 0.0
        P_normal = float(sol.lambda_N @ (W_N[idx] @ v)) if idx.size else 0.0
        work = (P_drive, T.P_applied, T.P_damping, P_friction,
                float(P_joints.sum()) - P_drive + P_normal)
        dy = np.zeros_like(y)
        dy[L.q] = dq
        dy[L.v] = sol.a
        dy[L.work] = work
        return dy, sol, T, (gaps, W_N, W_T, idx, v_T, slip)

    def _free(self, t, y, T):
        """:meth:`evaluate` with every point open (the rows' part ``None``)."""
        L, sysm = self.layout, self.system
        q, v = y[L.q], y[L.v]
        sol = self._free_motion(T, v)
        m = T.G.shape[0]
        P_joints = sol.Lambda * (T.G @ v) if m else np.zeros(0)
        P_drive = float(P_joints[self.driver_rows].sum()) if m else 0.0
        dy = np.zeros_like(y)
        dy[L.q] = sysm.qdot(q, v) if sysm.has_kinematic_map else v
        dy[L.v] = sol.a
        dy[L.work] = (P_drive, T.P_applied, T.P_damping, 0.0,
                      float(P_joints.sum()) - P_drive)
        return dy, sol, T, None

    def _free_motion(self, T, v) -> AccelerationSolution:
        """The accelerations and joint forces with every point open, at the velocities
        ``v`` (the terms ``T``)."""
        if not T.G.shape[0] and self._inverse_mass is not None:
            a, Lam = self._inverse_mass @ T.f, np.zeros(0)
        else:
            none = np.zeros((0, v.size))
            sol = closed_accelerations(T.M, T.f, T.G, self._joint_rhs(T, v), none,
                                       np.zeros((0, 2, v.size)), np.zeros(0),
                                       np.zeros((0, 2)), np.zeros(0), np.zeros(0, dtype=int),
                                       np.zeros((0, 2)))
            a, Lam = sol.a, sol.Lambda
        return AccelerationSolution(a, Lam, np.zeros(0), np.zeros((0, 2)), np.zeros(0),
                                    np.zeros((0, 2)), np.zeros(0, dtype=bool))

    def fun(self, t, y):
        """The phase's right-hand side ``dy/dt`` at ``(t, y)`` (scipy's ``fun``): with every
        point open and neither joints nor a varying mass, the free motion in a few array
        operations (the phases of flight), else :meth:`evaluate`'s; the last state's kept
        (an event's knot, then the next phase's start, ask again; read-only)."""
        if self._lean and not self._any_closed:
            key = (float(t), np.asarray(y).tobytes(), self._modes_version)
            if key == self._lean_key:
                return self._lean_dy
            run, L, sysm = self.run, self.layout, self.system
            run.charge(t)
            run.dyn.n_evaluations += 1
            q, v = y[L.q], y[L.v]
            T = sysm.terms(t, q, v)
            dy = np.empty_like(y)
            dy[L.q] = sysm.qdot(q, v) if sysm.has_kinematic_map else v
            dy[L.v] = self._inverse_mass @ T.f
            dy[L.work] = (0.0, T.P_applied, T.P_damping, 0.0, 0.0)
            dy[L.z] = 0.0
            self._lean_key, self._lean_dy = key, dy
            return dy
        return self.evaluate(t, y)[0]

    # ----------------------------------------------------------------------------- events
    def _specs(self, gaps):
        """The phase's event functions: ``[(kind, point)]`` (``gaps`` (P,), m, the points'
        at the phase's start). A contact whose points are all open and clear of the other body
        (gap above :data:`GAP_TOL`), or open with one point, is watched by its smallest gap
        (``("gap", contact)``, compiled, cheap); the others point by point (a corner that
        starts touching, at zero or a hair below, would hide a neighbour's approach in their
        minimum)."""
        specs = []
        clear = {c for c in set(self.owner.tolist())  # (a one-point contact's smallest gap
                 if not self.closed[self.owner == c].any()  # is its point's)
                 and (np.all(gaps[self.owner == c] > GAP_TOL)
                      or np.count_nonzero(self.owner == c) == 1)}
        specs += [("gap", c) for c in sorted(clear)]
        sticking = set()
        for p in range(self.owner.size):
            if int(self.owner[p]) in clear:
                continue
            if not self.closed[p]:
                specs.append(("impact", p))
                continue
            specs.append(("leave", p))
            if self.kind[p] == SLIDING:
                specs.append(("velocity_zero", p))
            elif self.kind[p] == STICKING and self.owner[p] not in sticking:
                sticking.add(self.owner[p])  # one per contact, over its sticking points
                specs.append(("reserve_zero", p))
        return specs

    def _values(self, t, y, specs):
        """The event functions' values at ``(t, y)`` (each > 0 inside its mode) and their
        scales (what counts as zero)."""
        out, scale = np.empty(len(specs)), np.empty(len(specs))
        if any(kind == "gap" for kind, _ in specs):  # clear contacts: smallest gaps (compiled)
            smallest = self.system.contact_gaps(t, y[self.layout.q])
            for i, (kind, c) in enumerate(specs):
                if kind == "gap":
                    out[i], scale[i] = smallest[c], GAP_TOL
            if all(kind == "gap" for kind, _ in specs):
                return out, scale
        if not self.closed.any():  # open points only: their gaps
            gaps = self._points(t, y[self.layout.q])[0]
            for i, (kind, p) in enumerate(specs):
                if kind == "impact":
                    out[i], scale[i] = gaps[p], GAP_TOL
            return out, scale
        self._closed_values(t, y, specs, out, scale)
        return out, scale

    def _closed_values(self, t, y, specs, out, scale) -> None:
        """:meth:`_values` of a phase with closed points (one evaluation at ``(t, y)``),
        written into ``out`` and ``scale`` (the ``gap`` entries left as they are)."""
        _, sol, T, (gaps, W_N, W_T, idx, v_T, slip) = self.evaluate(t, y)
        where = {p: j for j, p in enumerate(idx)}
        force = max(1e-300, float(np.max(np.abs(T.f))) if T.f.size else 0.0,
                    float(np.max(np.abs(sol.lambda_N))) if sol.lambda_N.size else 0.0)
        for i, (kind, p) in enumerate(specs):
            if kind == "gap":
                continue
            if kind == "impact":
                out[i], scale[i] = gaps[p], GAP_TOL
            elif kind == "leave":
                out[i], scale[i] = sol.lambda_N[where[p]], 1e-9 * force
            elif kind == "velocity_zero":
                j = where[p]
                out[i], scale[i] = float(v_T[j] @ self.slip_ref[p]), SPEED_TOL
            else:  # the contact's sticking points together (a face's forces are not
                # unique, its friction's sum is): mu sum(lambda_N) - |sum(lambda_T)|
                js = [where[pp] for pp in idx if self.owner[pp] == self.owner[p]
                      and self.kind[pp] == STICKING]
                out[i] = self.mu[p] * float(sol.lambda_N[js].sum()) - float(
                    np.linalg.norm(sol.lambda_T[js].sum(axis=0)))
                scale[i] = 1e-9 * force

    # ------------------------------------------------------------------------- transition
    def _mode(self, p) -> str:
        if not self.closed[p]:
            return "open"
        return {SLIDING: "slip", STICKING: "stick"}.get(int(self.kind[p]), "closed")

    def transition(self, t, y, initial=False, fired=()):
        """The impact (if any) and the new modes at an event (``fired``: the phase's event
        functions that fired, ``[(kind, point)]``, whose mode changes are logged): returns
        the state after it."""
        before = {p: self._mode(p) for kind, p in fired
                  if kind in ("velocity_zero", "reserve_zero")}
        L, sysm, run = self.layout, self.system, self.run
        y = np.array(y, dtype=float)
        if sysm.has_projection:
            y[L.q] = np.asarray(sysm.project(y[L.q]), dtype=float)
        q, v = y[L.q], y[L.v]
        gaps, W_N, W_T = self._points(t, q)
        P = gaps.size
        if not P:
            return y
        touching = self.closed | (gaps <= GAP_TOL)
        deep = np.flatnonzero(gaps < -GAP_TOL)
        u_N = W_N @ v
        impacting = touching & (u_N < -SPEED_TOL)
        if initial and deep.size:
            names = sorted({sysm.contact_names[self.owner[p]] for p in deep})
            raise ModelError(f"the initial state penetrates the rigid contact(s) "
                             f"{', '.join(repr(n) for n in names)} (gap {gaps[deep].min():.3g} "
                             "m); start the bodies apart or touching")
        T = self._terms(t, q, v)
        self.accumulated = set()
        if impacting.any():
            v, y = self._impact(t, y, T, touching, impacting, gaps, W_N, W_T, u_N)
        self._decide(t, y, T, touching, gaps, W_N, W_T)
        for kind, p in fired:
            if kind in ("velocity_zero", "reserve_zero"):
                run.events.append(EventRecord(
                    t, sysm.contact_names[self.owner[p]], kind, before[p], self._mode(p),
                    y[L.q].copy(), y[L.v].copy(), element="contact"))
        return y

    def _impact(self, t, y, T, touching, impacting, gaps, W_N, W_T, u_N):
        """Newton's impact law with friction over the touching points; the accumulation
        check; the impulses logged. Returns ``(v+, y)``."""
        L, sysm, run = self.layout, self.system, self.run
        q, v = y[L.q], y[L.v]
        idx = np.flatnonzero(touching)
        e = self.e[idx].copy()
        mu = self.mu[idx]
        g = -T.phi_t if T.phi_t.size else np.zeros(0)
        sol = solve_step(T.M, v, np.zeros_like(v), T.G, g, W_N[idx], W_T[idx], e, mu)
        if not sol.success:
            self._fail(t, q, idx, f"the impact problem has no certified solution "
                       f"(residual {sol.residual:.3g}; {sol.message})")
        accumulating = self._accumulating(t, q, sol.v, T, idx, impacting, e, gaps, W_N, W_T,
                                          u_N)
        if accumulating:  # the series' limit: the contacts close, held from here
            sol = self._close(t, q, v, T, g, idx, accumulating, sol, e, mu, W_N, W_T)
        T_before, T_after = 0.5 * v @ T.M @ v, 0.5 * sol.v @ T.M @ sol.v
        if T_after > T_before * (1.0 + 1e-12) + 1e-300:
            self._fail(t, q, idx, f"the impact would create kinetic energy ({T_before:.12g} "
                       f"J -> {T_after:.12g} J)")
        impulse = np.zeros(sysm.n_contacts)
        speed = np.zeros(sysm.n_contacts)
        for j, p in enumerate(idx):
            impulse[self.owner[p]] += sol.P[3 * j]
            speed[self.owner[p]] = max(speed[self.owner[p]], -float(u_N[p]))
        v_mean = 0.5 * (v + sol.v)
        work = y[L.work]
        P = sol.P
        work[3] += float(P[1::3] @ (W_T[idx, 0] @ v_mean) + P[2::3] @ (W_T[idx, 1] @ v_mean))
        work[4] += float(P[0::3] @ (W_N[idx] @ v_mean))
        if sol.Lambda.size:
            work[4] += float(sol.Lambda @ (T.G @ v_mean))
        y[L.work] = work
        for c in sorted({int(self.owner[p]) for p in idx if impacting[p]}):
            last = self._last_speed.get(c)
            if last:
                self._speed_ratio[c] = float(speed[c]) / last
            self._last_speed[c] = float(speed[c])
            run.events.append(EventRecord(
                t, sysm.contact_names[c], "impact", "open", "", q.copy(), v.copy(),
                element="contact", speed=float(speed[c]), impulse=float(impulse[c]),
                v_after=sol.v.copy()))
        limit: dict = {}  # each accumulating contact's limit time (the latest of its points)
        for _j, p, t_inf in accumulating:
            c = int(self.owner[p])
            limit[c] = max(limit.get(c, -math.inf), float(t_inf))
        self.accumulated = set(limit)
        for c, t_inf in sorted(limit.items()):
            run.events.append(EventRecord(
                t_inf, sysm.contact_names[c], "accumulation", "open", "closed", q.copy(),
                sol.v.copy(), element="contact", speed=float(speed[c])))
        y[L.v] = sol.v
        return sol.v, y

    def _close(self, t, q, v, T, g, idx, accumulating, sol, e, mu, W_N, W_T):
        """The impact that ends an accumulation: every touching point of an accumulating
        contact held at zero normal velocity (the limit of the remaining impacts, whose
        kinetic energy they dissipate), and at zero slip where the friction impulse that
        takes is within the cone of the impulse plus the contact's mean normal force over the
        remaining time, ``mu (P_N + N (t_inf - t))`` (a rocking block comes to rest flat; a
        ball sliding fast keeps sliding); the other touching points by Newton's law as
        before. Equality rows that depend on the others (four corners of a face) are left
        out; their impulses are zero."""
        contacts = {int(self.owner[p]) for _j, p, _t in accumulating}
        held = np.array([int(self.owner[p]) in contacts for p in idx])
        free = ~held
        m = T.G.shape[0]

        def solve(stick):
            rows, where = [], []
            for j, p in enumerate(idx):
                if held[j]:
                    rows.append(W_N[p])
                    where.append(3 * j)
                    if stick[j]:
                        rows += [W_T[p, 0], W_T[p, 1]]
                        where += [3 * j + 1, 3 * j + 2]
            keep = independent_rows(T.M, T.G, np.array(rows))
            G = np.vstack((T.G, np.array(rows)[keep]))
            out = solve_step(T.M, v, np.zeros_like(v), G, np.concatenate(
                (g, np.zeros(int(keep.sum())))), W_N[idx[free]], W_T[idx[free]], e[free],
                mu[free])
            if not out.success:
                self._fail(t, q, idx, f"the impact closing an accumulation has no certified "
                           f"solution (residual {out.residual:.3g})")
            P = np.zeros(3 * idx.size)  # (the held points' impulses: their multipliers)
            P[np.repeat(free, 3)] = out.P
            P[np.array(where)[keep]] = out.Lambda[m:]
            out.P, out.Lambda = P, out.Lambda[:m]
            return out

        stick = held & (self.mu[idx] > 0.0)
        out = solve(stick)
        for c in contacts:  # each contact's friction impulse within what its cone gives
            mine = held & (self.owner[idx] == c)  # over the remaining impacts, else sliding
            remaining = max(self._support.get(int(p), 0.0) * (t_inf - t)
                            for _j, p, t_inf in accumulating if int(self.owner[p]) == c)
            P_N = out.P[0::3][mine].sum() + remaining
            P_T = np.hypot(out.P[1::3][mine].sum(), out.P[2::3][mine].sum())
            if P_T > self.mu[idx][mine].max() * max(P_N, 0.0) * (1.0 + 1e-9):
                stick[mine] = False
        if (stick != (held & (self.mu[idx] > 0.0))).any():
            out = solve(stick)
        return out

    def _accumulating(self, t, q, v, T, idx, impacting, e, gaps, W_N, W_T, u_N) -> list:
        """The touching points leaving an impact (at ``g'_+ > 0``) that would rise less than
        :data:`ACCUMULATION_RISE` before landing again under their normal acceleration ``g''
        < 0``: ``[(j, point, t_inf)]`` (``j`` the index in ``idx``; ``t_inf`` the limit of the
        remaining impacts, s). A point bouncing on its own restitution ``e`` (a ball): its
        flights shrink by ``e``, ``t_inf = t + 2 g'_+ / (|g''| (1 - e))``; a point lifted by
        another's impact (a rocking block's edge): its flights shrink as its contact's impact
        speeds do, by their last ratio ``r``, ``t_inf = t + 2 g'_+ / (|g''| (1 - r))`` (the
        present time when no ratio is known yet)."""
        out = []
        for j, p in enumerate(idx):
            u_plus = float(W_N[p] @ v)
            if u_plus <= SPEED_TOL or (impacting[p] and e[j] >= 1.0):
                continue
            g_dd = self._free_normal_acceleration(t, q, v, T, p, idx, gaps, W_N, W_T)
            if g_dd >= 0.0 or u_plus * u_plus / (-2.0 * g_dd) > ACCUMULATION_RISE:
                continue
            flight = 2.0 * u_plus / -g_dd
            c = int(self.owner[p])
            ratio = e[j] if impacting[p] else self._speed_ratio.get(c, 1.0)
            out.append((j, p, t + flight / (1.0 - ratio) if ratio < 1.0 else t))
        return out

    def _free_normal_acceleration(self, t, q, v, T, p, idx, gaps, W_N, W_T):
        """The normal acceleration ``g''`` (m/s^2) of point ``p`` after an impact, with it
        open and the other touching points as the acceleration problem decides."""
        others = np.array([i for i in idx if i != p and float(W_N[i] @ v) <= SPEED_TOL],
                          dtype=int)
        sol = self._acceleration(t, q, v, T, others, gaps, W_N, W_T)
        b_N, _ = self._bias(t, q, v, np.array([p]))
        g_dd = float(W_N[p] @ sol.a + b_N[0])
        # the contact's mean normal force over the remaining impacts: what holds it up (its
        # other points' forces), at least the point's own weight, |g''| / (W_N M^-1 W_N^T)
        mine = self.owner[others] == self.owner[p] if others.size else np.zeros(0, bool)
        M_inv_W = self._inverse_mass @ W_N[p] if self._inverse_mass is not None else \
            np.linalg.solve(T.M, W_N[p])
        own = abs(g_dd) / float(W_N[p] @ M_inv_W)
        self._support[int(p)] = max(float(sol.lambda_N[mine].sum()) if mine.any() else 0.0,
                                    own)
        return g_dd

    def _acceleration(self, t, q, v, T, cand, gaps, W_N, W_T):
        """The acceleration problem over the touching points ``cand``
        (:func:`~nonsmooth.contact.rigid.acceleration_problem`; with none, the free motion),
        its ``details`` with each point's ``kind`` and ``slip``."""
        if not cand.size:  # no touching point: the free motion (no LCP)
            sol = self._free_motion(T, v)
            sol.details = {"lcp_size": 0, "A_N": np.zeros((0, 0)), "b_N": np.zeros(0),
                           "kind": np.zeros(0, dtype=int), "slip": np.zeros((0, 2))}
            return sol
        kind = np.where(self.mu[cand] > 0.0, STICKING, FRICTIONLESS)
        v_T = np.einsum("kij,j->ki", W_T[cand], v)
        speed = np.linalg.norm(v_T, axis=1)
        moving = (self.mu[cand] > 0.0) & (speed > SPEED_TOL)
        kind[moving] = SLIDING
        slip = np.zeros((cand.size, 2))
        slip[moving] = v_T[moving] / speed[moving, None]
        c_N, c_T = self._stabilized_bias(t, q, v, cand, gaps, W_N, v_T)
        sol = acceleration_problem(T.M, T.f, T.G, self._joint_rhs(T, v), W_N[cand], W_T[cand],
                                   c_N, c_T, self.mu[cand], kind, slip)
        sol.details.update(kind=kind, slip=slip)
        return sol

    def _decide(self, t, y, T, touching, gaps, W_N, W_T):
        """The modes from the acceleration-level problem over the touching points that do not
        separate."""
        L = self.layout
        q, v = y[L.q], y[L.v]
        cand = np.flatnonzero(touching & (W_N @ v <= SPEED_TOL))
        sol = self._acceleration(t, q, v, T, cand, gaps, W_N, W_T)
        if not sol.success:
            sol = self._face_load(t, q, v, T, cand, gaps, W_N, W_T, sol)
        force = max(1e-300, float(np.max(np.abs(T.f))) if T.f.size else 0.0,
                    float(np.max(np.abs(sol.lambda_N))) if sol.lambda_N.size else 0.0)
        before = self.closed.copy()
        self.closed[:] = False
        kind, slip = sol.details["kind"], sol.details["slip"]
        accel = 1e-9 * max(1.0, float(np.max(np.abs(sol.details["b_N"]))) if cand.size else 0.0)
        pressed = sol.lambda_N > 1e-9 * force
        loaded = {int(self.owner[p]) for j, p in enumerate(cand) if pressed[j]}
        for j, p in enumerate(cand):
            # closed: pressed, or at zero force and zero normal acceleration beside a pressed
            # point of its contact (a face's fourth corner: the forces are not unique)
            if not pressed[j] and not (abs(sol.u_N[j]) <= accel and int(self.owner[p]) in
                                       loaded):
                continue
            self.closed[p] = True
            if kind[j] == SLIDING:
                self.kind[p], self.slip_ref[p] = SLIDING, slip[j]
            elif kind[j] == STICKING and sol.sliding[j]:
                u_T = sol.u_T[j]
                self.kind[p] = SLIDING
                self.slip_ref[p] = u_T / max(np.linalg.norm(u_T), 1e-300)
            else:
                self.kind[p] = kind[j]
        self._start_directions(t, q, v, T, cand, gaps, W_N, W_T, kind, sol)
        self._any_closed = bool(self.closed.any())
        self._modes_version += 1  # (evaluations before this are another phase's)
        self._log_modes(t, y, before)

    def _start_directions(self, t, q, v, T, cand, gaps, W_N, W_T, kind, sol):
        """The directions in which points that were at rest start to slide, made exact: the
        faceted cone gives a facet's direction, while Coulomb's law needs the slip to start
        along the tangential acceleration its own friction leaves, ``s = a_T(s) / |a_T(s)|``
        (maximal dissipation). Found by iterating that map from the facet's direction (to
        1e-12 rad, at most :data:`DIRECTION_ITERATIONS` rounds); a point whose map does not
        settle keeps the last direction."""
        starting = [j for j, p in enumerate(cand)
                    if self.closed[p] and kind[j] == STICKING and sol.sliding[j]]
        if not starting:
            return
        closed = np.array([j for j, p in enumerate(cand) if self.closed[p]], dtype=int)
        pts = cand[closed]
        v_T = np.einsum("kij,j->ki", W_T[pts], v)
        c_N, c_T = self._stabilized_bias(t, q, v, pts, gaps, W_N, v_T)
        r_G = self._joint_rhs(T, v)
        # the exact cone first: where the faceted one (inscribed in it) says slide but the
        # sticking forces lie within the circle |F_T| <= mu N, the contact sticks
        kinds = self.kind[pts].copy()
        kinds[[int(np.flatnonzero(closed == j)[0]) for j in starting]] = STICKING
        held = closed_accelerations(T.M, T.f, T.G, r_G, W_N[pts], W_T[pts], c_N, c_T,
                                    self.mu[pts], kinds, self.slip_ref[pts])
        force = max(1e-300, float(np.max(np.abs(held.lambda_N))))
        for c in {int(self.owner[cand[j]]) for j in starting}:
            mine = (self.owner[pts] == c) & (kinds == STICKING)
            reserve = self.mu[pts][mine].max() * held.lambda_N[mine].sum() - np.linalg.norm(
                held.lambda_T[mine].sum(axis=0))
            if reserve >= -1e-9 * force and np.all(held.lambda_N[mine] >= -1e-9 * force):
                for j in starting:
                    if int(self.owner[cand[j]]) == c:
                        self.kind[cand[j]] = STICKING
        starting = [j for j in starting if self.kind[cand[j]] == SLIDING]
        if not starting:
            return
        for _ in range(DIRECTION_ITERATIONS):
            kinds = self.kind[pts].copy()
            slips = self.slip_ref[pts].copy()
            out = closed_accelerations(T.M, T.f, T.G, r_G, W_N[pts], W_T[pts], c_N, c_T,
                                       self.mu[pts], kinds, slips)
            change = 0.0
            for j in starting:
                i = int(np.flatnonzero(closed == j)[0])
                p = cand[j]
                a_T = W_T[p] @ out.a + c_T[i]
                norm = float(np.linalg.norm(a_T))
                if norm <= 0.0:
                    continue
                s_new = a_T / norm
                change = max(change, float(np.linalg.norm(s_new - self.slip_ref[p])))
                self.slip_ref[p] = s_new
            if change <= 1e-12:
                break

    def _log_modes(self, t, y, before):
        L, sysm, run = self.layout, self.system, self.run
        for c in sorted(set(self.owner.tolist())):
            mine = self.owner == c
            was, now = bool(before[mine].any()), bool(self.closed[mine].any())
            if c in self.accumulated:  # (its closure is the accumulation's entry)
                continue
            if was and not now:
                run.events.append(EventRecord(t, sysm.contact_names[c], "leave", "closed",
                                              "open", y[L.q].copy(), y[L.v].copy(),
                                              element="contact"))
            elif now and not was:
                run.events.append(EventRecord(t, sysm.contact_names[c], "touch", "open",
                                              "closed", y[L.q].copy(), y[L.v].copy(),
                                              element="contact"))

    def _face_load(self, t, q, v, T, cand, gaps, W_N, W_T, sol):
        """Where the acceleration problem has several solutions only because a face's
        points share their load in many ways (their normal rows dependent, every sliding
        point's normal response positive): the convention that its load is shared by the
        least-norm forces, the phase's own (:func:`~nonsmooth.contact.rigid.
        closed_accelerations`), when they press every point; said once per run by a
        :class:`RigidFaceWarning`. Anything else stops the run (:meth:`_painleve`)."""
        A_N = sol.details.get("A_N")
        kind, slip = sol.details["kind"], sol.details["slip"]
        if sol.reason == "indeterminate" and A_N is not None and np.all(np.diag(A_N) > 0.0):
            rows = W_N[cand]
            D = rows @ np.linalg.solve(T.M, rows.T)
            rank = np.linalg.matrix_rank(D, tol=1e-10 * max(float(np.abs(D).max()), 1e-300))
            if rank < cand.size:
                v_T = np.einsum("kij,j->ki", W_T[cand], v)
                c_N, c_T = self._stabilized_bias(t, q, v, cand, gaps, W_N, v_T)
                held = closed_accelerations(T.M, T.f, T.G, self._joint_rhs(T, v), W_N[cand],
                                            W_T[cand], c_N, c_T, self.mu[cand], kind, slip)
                scale = max(1e-300, float(np.abs(held.lambda_N).max()))
                if np.all(held.lambda_N > 1e-9 * scale):
                    if not self._face_warned:
                        self._face_warned = True
                        names = sorted({self.system.contact_names[self.owner[p]]
                                        for p in cand})
                        warnings.warn(
                            f"rigid contact(s) {', '.join(map(repr, names))} at t = {t:.9g} s: "
                            f"{cand.size} points slide on {rank} independent normal rows (a "
                            "face), so how they share the load, which their friction "
                            "depends on, is not decided by rigid contact; shared by the "
                            "least-norm forces from here on (said once per run); use a "
                            "compliant contact for the pressure under a face",
                            RigidFaceWarning, stacklevel=2)
                    held.details = dict(sol.details)
                    held.u_N = np.zeros(cand.size)
                    held.u_T = np.zeros((cand.size, 2))
                    held.success = True
                    return held
        self._painleve(t, q, cand, sol, W_N, T.M)
        return sol

    def _painleve(self, t, q, cand, sol, W_N=None, M=None):
        """Stop the run: the acceleration problem of the touching points ``cand`` has no
        solution or several (``sol.reason``). Named: Painleve's paradox where a sliding
        point's normal response is negative; a face's statically indeterminate forces (its
        points' normal rows dependent) where they are not, since then the friction of points
        sliding in different directions depends on how the load is shared."""
        sysm = self.system
        names = sorted({sysm.contact_names[self.owner[p]] for p in cand})
        A_N = sol.details.get("A_N")
        if (sol.reason == "indeterminate" and W_N is not None and A_N is not None
                and np.all(np.diag(A_N) > 0.0)):
            rows = W_N[cand]
            D = rows @ np.linalg.solve(M, rows.T)
            rank = np.linalg.matrix_rank(D, tol=1e-10 * max(float(np.abs(D).max()), 1e-300))
            if rank < cand.size:
                self._fail(t, q, cand,
                           f"{cand.size} points slide with {rank} independent normal rows (a "
                           f"face's forces are statically indeterminate) and their friction, "
                           f"sliding in different directions, depends on how they share the "
                           f"load: {sol.n_solutions} motions fit rigid contact with Coulomb "
                           "friction, and the least-norm sharing would pull a point; use a "
                           "compliant contact for a face that slides and spins "
                           "(normal=Hertz(...) at its corners, or the volumetric law)",
                           names=names)
        mus = ", ".join(f"mu = {self.mu[p]:g}" for p in cand)
        kind = sol.details["kind"]
        sliding = [sysm.contact_names[self.owner[p]] for j, p in enumerate(cand)
                   if kind[j] == SLIDING]
        diag = "" if A_N is None or not A_N.size else \
            f"; the sliding points' normal response W_N M^-1 (W_N - mu s W_T)^T = " \
            f"{np.array2string(np.diag(A_N), precision=4)}" + \
            (" (<= 0: Painleve's paradox)" if np.any(np.diag(A_N) <= 0.0) else "")
        what = {"inconsistent": "has no solution (inconsistent: no contact force keeps "
                                "the bodies apart and none lets them separate)",
                "indeterminate": f"has {sol.n_solutions} solutions (indeterminate: the motion "
                                 "may separate or stay in contact)"}.get(sol.reason,
                                                                          sol.reason)
        which = ", ".join(map(repr, sliding)) or "none"
        self._fail(t, q, cand,
                   f"the contact problem of the sliding point(s) of {which} {what} with "
                   f"{mus}{diag}; Coulomb friction this large is not compatible with rigid "
                   "contact in this configuration: lower mu, or use a compliant contact",
                   names=names)

    def _fail(self, t, q, idx, why, names=None):
        sysm = self.system
        names = names or sorted({sysm.contact_names[self.owner[p]] for p in idx})
        raise IntegrationError(
            f"rigid contact(s) {', '.join(repr(n) for n in names)} at t = {t:.9g} s "
            f"(q = {np.array2string(np.asarray(q), precision=6, max_line_width=10**6)}): "
            f"{why}")

    # -------------------------------------------------------------------------- the loop
    def integrate(self, sched, t0, y0):
        """The run from ``(t0, y0)`` to ``sched.t_end``, recording at ``sched.grid``."""
        run, L = self.run, self.layout
        t = float(t0)
        y, k = self._start(t, y0, sched.grid)
        grid, t_end = sched.grid, sched.t_end
        while t < t_end:
            specs = self._specs(self._points(t, y[L.q])[0])
            t_bound = sched.phase_end(t)  # the next time stop (an input's jump), or the end
            outcome = self._rest(t, y, t_bound, grid, k)
            if outcome is None:
                outcome = self._compiled_flight(specs, t, y, t_bound, sched, k)
            if outcome is None or outcome[0] == "declined":  # (from where it declined)
                if outcome is not None:
                    _, k, t, y = outcome
                outcome = self._python_phase(specs, t, y, t_bound, grid, k)
            if outcome[0] == "user":  # a terminal user event: the run ends there
                run.events.sort(key=lambda e: e.t)
                return "user", outcome[1]
            if outcome[0] == "done":
                _, k, t, y = outcome
                if t_bound >= t_end:
                    break
                before = self.fun(t, y)[L.v]  # a time stop: the modes decided again there
                y = self.transition(t, y)
                run.knots.append((t, np.array(y), before, self.fun(t, y)[L.v]))
                run.n_phases += 1
                continue
            _, k, t, y_e, fired = outcome
            before = self.fun(t, y_e)[L.v]
            self._chatter_guard(t, fired)
            y = self.transition(t, y_e, fired=fired)
            run.knots.append((t, np.array(y), before, self.fun(t, y)[L.v]))
            run.n_phases += 1
            if k < len(grid) and grid[k] - t <= 1e-12 * max(1.0, abs(t)):
                self.record(grid[k], y)
                k += 1
        while k < len(grid):
            self.record(grid[k], y)
            k += 1
        rate = self.fun(t, y)[L.v]
        run.knots.append((t, np.array(y), rate, rate))
        run.events.sort(key=lambda e: e.t)
        return "done", t

    def _python_phase(self, specs, t, y, t_bound, grid, k):
        """One phase from ``(t, y)`` to ``t_bound`` by the method's scipy solver, its outputs
        recorded from ``grid[k]`` on: ``("event", k, t_e, y_e, fired specs)``, ``("done", k,
        t, y)`` or ``("user", t_stop)`` (a terminal user event)."""
        run, L = self.run, self.layout
        g0, scale = self._values(t, y, specs)
        armed = g0 > scale
        solver = self.method.solver_class()(self.fun, t, y, t_bound, rtol=self.rtol,
                                            atol=self.atol, max_step=self.max_step)
        u0 = self._user_values(t, y)
        while solver.status == "running":
            t_old = solver.t
            bound_jacobian_factor(solver)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                message = solver.step()
            if solver.status == "failed" or not np.all(np.isfinite(solver.y)):
                raise IntegrationError(f"{self.method.name} failed after t = {t_old:.6g} "
                                       f"s: {message}")
            run.n_steps += 1
            dense = solver.dense_output()
            g1, scale1 = self._values(solver.t, solver.y, specs)
            event = self._first_crossing(specs, armed, g0, g1, scale1, t_old, solver.t, dense)
            t_stop = solver.t if event is None else event[0]
            u1 = self._user_values(solver.t, solver.y)
            stop = self._user_events(u0, u1, t_old, t_stop if event is None else solver.t,
                                     t_stop, dense)
            u0 = u1
            if stop is not None:  # a terminal user event: the run ends there
                while k < len(grid) and grid[k] <= stop:
                    self.record(grid[k], np.array(dense(grid[k])))
                    k += 1
                y_stop = np.array(dense(stop))
                rate = self.fun(stop, y_stop)[L.v]
                run.knots.append((stop, y_stop, rate, rate))
                return "user", stop
            while k < len(grid) and grid[k] <= t_stop:
                self.record(grid[k], np.array(dense(grid[k])))
                k += 1
            if event is not None:
                t_e, fired = event
                return ("event", k, float(t_e), np.array(dense(float(t_e))),
                        [specs[i] for i in fired])
            armed |= g1 > scale1
            g0 = g1
        return "done", k, solver.t, np.array(solver.y)

    def _rest(self, t, y, t_bound, grid, k):
        """A phase that starts at rest and stays there: ``("done", k, t_bound, y)`` with the
        outputs to ``t_bound`` recorded (each the evaluation at ``(t, y)``), or None. At rest:
        the system is autonomous (``System.autonomous``: no driver, no function of time), the
        run has no user event functions, and every state entry's first-order change over the
        phase, ``|dy/dt| (t_bound - t)``, and the velocities' second-order change of the
        coordinates, ``max |dv/dt| (t_bound - t)^2 / 2``, are within the integration's
        absolute tolerance. The motion an integrator would take is then below what it
        resolves, and the state of rest is the exact solution where the accelerations vanish
        (as a sleeping body of a game engine, but decided by the tolerance)."""
        run, L = self.run, self.layout
        if run.user_events or not self.system.autonomous:
            return None
        H = t_bound - t
        atol = np.broadcast_to(np.asarray(self.atol, dtype=float), y.shape)
        if float(np.max(np.abs(y[L.v]), initial=0.0)) * H > float(np.max(atol)):
            return None  # (moving: a cheap look first)
        dy = self.fun(t, y)
        a_max = float(np.max(np.abs(dy[L.v]), initial=0.0))
        if (np.any(np.abs(dy) * H > atol)
                or 0.5 * a_max * H * H > float(np.min(atol[L.q], initial=np.inf))):
            return None
        times = [tt for tt in grid[k:] if tt <= t_bound]
        if times:
            self.record(np.array(times), y)
        run.n_steps += 1
        return "done", k + len(times), t_bound, np.array(y)

    def _compiled_flight(self, specs, t, y, t_bound, sched, k):
        """A phase of flight (every rigid contact open and watched by its smallest gap) in the
        family's compiled DOP853 phase (:func:`nonsmooth.run.phase._compiled_phase`: each
        contact's gap a ``touch`` event, the outputs evaluated and recorded in blocks): the
        outcome of :meth:`_python_phase` (``"user"`` aside: a run with user events has no
        compiled phases) or ``("declined", k, t, y)`` (the Python phase goes on from there),
        or None where the phase is not one the compiled run takes."""
        run = self.run
        if not (run.compiled and self.method.compiled_phase == "dop853" and specs
                and all(kind == "gap" for kind, _ in specs) and not len(self.system.abs_rows)):
            return None
        max_step = self._flight_step(t, y, specs)
        if max_step is None:
            return None
        from .phase import _compiled_phase

        if run.faces is None:
            run.faces = np.zeros(0)
        touch = [("touch", c, -1.0, True) for _, c in specs]
        outcome = _compiled_phase(run, self.method, touch, np.zeros(0), t, y, t_bound,
                                  sched.grid[:sched.k_cap(t_bound)], k, self.rtol, self.atol,
                                  max_step, None)
        if outcome[0] == "event":
            _, k, t_e, y_e, fired = outcome
            return "event", k, t_e, np.array(y_e), [specs[i] for i in fired]
        if outcome[0] not in ("done", "declined"):  # ("rows", "redo": a phase with modes)
            raise IntegrationError(f"the compiled phase of flight from t = {t:.9g} s ended "
                                   f"with {outcome[0]!r}, which a phase of flight cannot")
        return outcome

    def _flight_step(self, t, y, specs):
        """The largest step of a phase of flight from ``(t, y)``: the run's, or half
        (:data:`FLIGHT_STEPS`) the flight of a one-point contact that starts touching
        (gap at most :data:`GAP_TOL`: just after its impact) and would land again under its
        present normal acceleration (``2 g' / |g''|``), so that the first step ends in the
        air (a crossing from a zero start would not be seen); None where such a point is not
        leaving (the Python phase watches it)."""
        L = self.layout
        q, v = y[L.q], y[L.v]
        gaps, W_N, _ = self._points(t, q)
        step, a = self.max_step, None
        for _, c in specs:
            (p,) = np.flatnonzero(self.owner == c)[:1]
            if gaps[p] > GAP_TOL:
                continue
            rate = float(W_N[p] @ v)
            if rate <= SPEED_TOL:
                return None
            if a is None:
                a = self.fun(t, y)[L.v]
            acc = float(W_N[p] @ a) + float(self._bias(t, q, v, np.array([p]))[0][0])
            if acc < 0.0:
                step = min(step, 2.0 * rate / -acc / FLIGHT_STEPS)
        return step

    def _start(self, t, y0, grid):
        """The initial state's contacts logged, its impacts and modes, the outputs at ``t``:
        ``(y, the next output's index)``."""
        run, L = self.run, self.layout
        y = np.array(y0, dtype=float)
        self._points(t, y[L.q])
        for c in sorted(set(self.owner.tolist())):
            run.events.append(EventRecord(t, self.system.contact_names[c], "start", "",
                                          "open", y[L.q].copy(), y[L.v].copy(),
                                          element="contact"))
        y = self.transition(t, y, initial=True)
        k = 0
        while k < len(grid) and grid[k] <= t + 1e-15 * max(1.0, abs(t)):
            self.record(grid[k], y)
            k += 1
        rate = self.fun(t, y)[L.v]
        run.knots.append((t, np.array(y), rate, rate))
        return y, k

    def _user_values(self, t, y) -> np.ndarray:
        """The user event functions' values ``g(t, q, v)`` at ``(t, y)``."""
        L = self.layout
        return np.array([float(ue.function(t, y[L.q], y[L.v]))
                         for ue in self.run.user_events])

    def _user_events(self, u0, u1, t0, t1, t_stop, dense):
        """The user events crossed on the step ``[t0, t1]`` up to ``t_stop`` (an engine
        event's time, or the step's end), in time order (scipy's convention of direction;
        Brent's roots on the dense output), each logged; returns the time of the one that ends
        the run (a terminal event's n-th occurrence), else None."""
        from .events import crossed

        run, L = self.run, self.layout
        hits = []
        for i, ue in enumerate(run.user_events):
            if not crossed(u0[i], u1[i], ue.direction):
                continue

            def g(tt, ue=ue):
                yy = np.array(dense(tt))
                return float(ue.function(tt, yy[L.q], yy[L.v]))

            try:
                root = brentq(g, t0, t1, xtol=EVENT_XTOL * max(1.0, abs(t1)),
                              rtol=EVENT_XTOL)
            except ValueError:
                root = t1
            if root <= t_stop:
                hits.append((root, i))
        for root, i in sorted(hits):
            ue = run.user_events[i]
            run.log_user(root, np.array(dense(root)), ue)
            seen = sum(1 for e in run.events if e.kind == "user" and e.pair == ue.name)
            if ue.terminal and seen >= ue.terminal:
                return float(root)
        return None

    def _first_crossing(self, specs, armed, g0, g1, scale, t0, t1, dense):
        """The earliest event on the step ``[t0, t1]``: ``(t_e, [spec indices])`` or None.
        An armed function crosses from > 0 to <= 0 (Brent's root on the dense output); one not
        armed yet (zero at the phase's start) fires at the step's end if it goes below
        ``-1e3`` of its scale there (its mode was wrong)."""
        hits = []
        for i in range(len(specs)):
            def g(tt, i=i):
                return self._values(tt, np.array(dense(tt)), [specs[i]])[0][0]

            start = t0 if armed[i] and g0[i] > 0.0 else None
            if start is None and g1[i] <= 0.0:  # zero at the phase's start: did it rise
                for tt in np.linspace(t0, t1, ARMING_SAMPLES + 2)[1:-1]:  # on this step?
                    if g(tt) > scale[i]:
                        start = tt  # (the last sample above its scale)
            if start is not None and g1[i] <= 0.0:
                try:
                    root = brentq(g, start, t1, xtol=EVENT_XTOL * max(1.0, abs(t1)),
                                  rtol=EVENT_XTOL)
                except ValueError:
                    root = t1
                hits.append((root, i))
            elif start is None and g1[i] < -1e3 * scale[i]:  # its mode was wrong: where it
                # passed -10 times its scale, or, already below that where the step starts,
                # -1e3 times (a point that starts the phase a hair inside: not at the step's
                # end, which let a long step carry it microns deep)
                depth = 10.0 * scale[i] if g(t0) + 10.0 * scale[i] > 0.0 else 1e3 * scale[i]

                def past(tt, i=i, depth=depth):
                    return g(tt) + depth

                try:  # (already past even that where the step starts: at the step's end)
                    root = brentq(past, t0, t1, xtol=EVENT_XTOL * max(1.0, abs(t1)),
                                  rtol=EVENT_XTOL) if past(t0) > 0.0 else t1
                except ValueError:
                    root = t1
                hits.append((root, i))
        if not hits:
            return None
        t_e = min(h[0] for h in hits)
        # the root where the function is at or past zero (Brent returns a bracket's end)
        tol = 1e-12 * max(1.0, abs(t_e))
        return t_e, [i for tt, i in hits if tt <= t_e + tol]

    def _chatter_guard(self, t, fired):
        run = self.run
        if t - run._zeno_t <= 1e-12 * max(1.0, abs(t)):
            run._zeno_count += 1
        else:
            run._zeno_t, run._zeno_count = t, 1
        if run._zeno_count > ZENO_LIMIT:
            names = sorted({self.system.contact_names[p if kind == "gap" else self.owner[p]]
                            for kind, p in fired})
            raise IntegrationError(
                f"{run._zeno_count} events of the rigid contact(s) "
                f"{', '.join(map(repr, names))} at t = {t:.12g} s without the time advancing "
                "(chattering): their modes cannot be decided; check the model's contacts")

    # --------------------------------------------------------------------------- records
    def record(self, t, y):
        """An output row at ``(t, y)``, or rows at the times ``t`` (k,) all of the state ``y``
        (a phase at rest: :meth:`_rest`): each rigid contact's slot of ``z`` holds its normal
        force there (N, the sum over its closed points)."""
        run, L, sysm = self.run, self.layout, self.system
        y = np.array(y, dtype=float)
        times = np.atleast_1d(np.asarray(t, dtype=float))
        t = float(times[0])
        dy, sol, T, rows = self.evaluate(t, y)
        idx = rows[3] if rows is not None else ()
        q, v = y[L.q], y[L.v]
        n_c = sysm.n_contacts
        if n_c:
            N = np.zeros(n_c)
            for j, p in enumerate(idx):
                N[self.owner[p]] += sol.lambda_N[j]
            z = y[L.z]
            z[z.size - n_c:] = N
            y[L.z] = z
        row = dict(y=y, dv=dy[L.v], lam=sol.Lambda, lambda_N=np.zeros(0), N=np.zeros(0),
                   F_T=np.zeros(0), v_T=np.zeros(0), modes=np.zeros(0),
                   residual=sol.residual, phi=T.phi, dphi=T.G @ v + T.phi_t,
                   T=0.5 * float(v @ T.M @ v), V=sysm.potential(t, q))
        if times.size == 1:
            run.recorder.add_row(t=t, **row)
        else:  # the same row at each time
            run.recorder.add(t=times, **{name: np.repeat(np.asarray(value)[None],
                                                         times.size, axis=0)
                                          for name, value in row.items()})
        run.max_residual = max(run.max_residual, sol.residual)
        if run.progress is not None:
            run.progress(float(times[-1]))
