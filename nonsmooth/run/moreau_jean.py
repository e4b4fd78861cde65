"""Moreau-Jean time-stepping (``simulate(method="MoreauJean", dt=h)``): a run of fixed steps
whose impacts, contact and friction are resolved inside each step as one complementarity
problem over the step's impulses (Moreau 1988, Jean 1999; as Siconos' ``MoreauJeanOSI`` with
``TimeStepping`` and ``FrictionContact``; ``docs/design/moreau_jean.md``).

Per step from ``(t_k, q_k, v_k)`` of length ``h``:

1. the terms ``M, f, G, phi_t`` at ``(t_k + theta h, q_k, v_k)`` (the smooth forces
   explicit in ``q`` and ``v``);
2. the active contact points: each rigid contact's points (``System.rigid_contact_rows``)
   whose gap predicted half a step ahead is closed, ``g + h/2 W_N v_k <= 0`` (Siconos'
   activation rule, its ``gamma = 1/2``);
3. :func:`nonsmooth.core.moreau_jean.solve_step`: ``v_{k+1}`` and the impulses from Newton's
   impact law ``0 <= W_N v_{k+1} + e W_N v_k _|_ P_N >= 0``, Coulomb's faceted cone and the
   joints' velocity rows ``G v_{k+1} + phi_t = 0`` (one mixed LCP over all active points:
   simultaneous impacts are one problem);
4. ``q_{k+1} = q_k + h qdot(q_k, theta v_{k+1} + (1 - theta) v_k)``, projected by the family
   (unit quaternions) and, with joints, onto their position constraints (least-norm
   Gauss-Newton: the step keeps their velocity rows only).

The run's loop (:func:`nonsmooth.run.loop._take_time_steps`) takes the steps on the grid
``t0 + k dt`` and records each output as the other methods do; the state's slot of each
contact in ``z`` holds the normal impulse of the step that ended there (``<contact>.impulse``).
No engine event is located.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.moreau_jean import solve_step
from ..errors import IntegrationError, ModelError

__all__ = ["MoreauJeanStepper", "check_model", "ACTIVATION_GAMMA"]

#: The fraction of a step over which a contact's gap is predicted for its activation:
#: active when ``gap + ACTIVATION_GAMMA h gap_rate <= 0`` (Siconos' ``MoreauJeanOSI``).
ACTIVATION_GAMMA = 0.5

#: The joints' position drift left after a step (m or rad), and the most Gauss-Newton
#: corrections that remove it (:meth:`MoreauJeanStepper._onto_constraints`).
PROJECTION_TOL = 1e-12
PROJECTION_ITERATIONS = 4


def check_model(system, model_name: str, *, events=(), t_eval=None, tstops=()) -> None:
    """What a Moreau-Jean run cannot take yet, refused before it starts (a ``ModelError`` or a
    ``ValueError`` naming the element or option and what to do)."""
    compliant = [system.contact_names[c] for c in range(system.n_contacts)
                 if c not in system.rigid_contacts]
    if compliant:
        raise ModelError(f"model {model_name!r}: method MoreauJean takes rigid contacts "
                         f"(normal=\"rigid\") only for now; the compliant contact(s) "
                         f"{', '.join(repr(n) for n in compliant)} need an event-driven method "
                         "(DOP853, RK45) or normal=\"rigid\"")
    if system.n_pairs:
        names = ", ".join(repr(pr.name) for pr in system.pairs)
        raise ModelError(f"model {model_name!r}: method MoreauJean does not take the friction "
                         f"pairs {names} (joint friction) yet: a rigid contact's friction is "
                         "its mu=; run joint friction with an event-driven method (DOP853)")
    if len(events):
        raise ValueError("events: method MoreauJean locates no event (user event functions "
                         "are not taken); run without events=, or with an event-driven method")
    if t_eval is not None:
        raise ValueError("t_eval: method MoreauJean records at its steps t0 + k dt; leave "
                         "t_eval out and choose dt")
    if len(tstops):
        raise ValueError(f"tstops = {list(tstops)}: method MoreauJean takes no time stops "
                         "yet; leave tstops out (or put the discontinuity on the grid t0 + "
                         "k dt)")


class MoreauJeanStepper:
    """The steps of one Moreau-Jean run (module docstring).

    Parameters
    ----------
    run : nonsmooth.run.state._Run
        The run (its system, layout, recorder, budget).
    method : nonsmooth.run.methods.MoreauJeanMethod
        ``theta`` (the position update's weight of ``v_{k+1}``) and ``facets`` (the faceted
        Coulomb cone's).
    t : float
        The start time (s).
    y : ndarray
        The start state ``[q, v, work, z]``.
    """

    #: The steps' ends are the outputs (a fixed-step method).
    fixed = True

    def __init__(self, run, method, t: float, y: np.ndarray):
        self.run, self.system, self.layout = run, run.system, run.layout
        self.theta, self.facets = float(method.theta), int(method.facets)
        self.t = float(t)
        self.y = np.array(y, dtype=float)
        sysm = self.system
        self.n_c = sysm.n_contacts
        self.last = None  # the last step's (h, dv, Lambda, residual)
        self.max_residual = 0.0

    @property
    def dv(self) -> np.ndarray:
        """The last step's mean acceleration ``(v_{k+1} - v_k) / h`` (zeros before the first
        step): the dense output's knot rates."""
        if self.last is None:
            return np.zeros(self.layout.n_v)
        return self.last[1]

    def _terms(self, t, q, v):
        run = self.run
        run.charge(t)
        run.dyn.n_evaluations += 1
        return self.system.terms(t, q, v)

    def step(self, t_next: float) -> None:
        """One step from :attr:`t` to ``t_next`` (s): :attr:`t`, :attr:`y` and :attr:`last`
        updated."""
        L, sysm, theta = self.layout, self.system, self.theta
        t, y = self.t, self.y
        h = t_next - t
        q, v = y[L.q], y[L.v]
        T = self._terms(t + theta * h, q, v)
        active_N, active_T, e, mu, owner = [], [], [], [], []
        for c, e_c, mu_c, gaps, W_N, W_T in sysm.rigid_contact_rows(t, q, math.inf):
            on = gaps + ACTIVATION_GAMMA * h * (W_N @ v) <= 0.0
            if on.any():
                active_N.append(W_N[on])
                active_T.append(W_T[on])
                k = int(on.sum())
                e += [e_c] * k
                mu += [mu_c] * k
                owner += [c] * k
        n = v.size
        W_N = np.vstack(active_N) if active_N else np.zeros((0, n))
        W_T = np.concatenate(active_T) if active_T else np.zeros((0, 2, n))
        g = -T.phi_t if T.phi_t.size else np.zeros(0)
        sol = solve_step(T.M, v, h * T.f, T.G, g, W_N, W_T, np.array(e), np.array(mu),
                         facets=self.facets)
        if not sol.success:
            names = sorted({sysm.contact_names[c] for c in owner})
            raise IntegrationError(
                f"Moreau-Jean: the impulse problem of the step at t = {t:.6g} s over the "
                f"contact(s) {', '.join(repr(s) for s in names)} has no certified solution "
                f"(residual {sol.residual:.3g}; {sol.message}); reduce dt or check the "
                "friction coefficients")
        v_new = sol.v
        v_theta = theta * v_new + (1.0 - theta) * v
        q_new = q + h * (sysm.qdot(q, v_theta) if sysm.has_kinematic_map else v_theta)
        if sysm.has_projection:
            q_new = np.asarray(sysm.project(q_new), dtype=float)
        if sysm.n_constraints:
            q_new = self._onto_constraints(t_next, q_new, v_new)
        work = self._work(y[L.work], T, h, sol, W_N, W_T, 0.5 * (v_new + v))
        z = np.zeros(L.n_z)
        impulses = np.zeros(self.n_c)
        for j, c in enumerate(owner):
            impulses[c] += sol.P[3 * j]
        if self.n_c:
            z[L.n_z - self.n_c:] = impulses
        self.y = L.join(q_new, v_new, work, z)
        self.t = float(t_next)
        self.max_residual = max(self.max_residual, sol.residual)
        self.last = (h, (v_new - v) / h, sol.Lambda / h, sol.residual)
        self.run.n_steps += 1

    def _onto_constraints(self, t, q, v) -> np.ndarray:
        """``q`` moved onto the joints' position constraints ``phi(q, t) = 0`` by least-norm
        Gauss-Newton corrections (``dq = qdot(q, dx)``, ``G dx = phi``; at most
        :data:`PROJECTION_ITERATIONS`, to ``|phi| <= PROJECTION_TOL``): the step keeps the
        velocity rows ``G v = -phi_t`` only, whose drift this removes (as the other methods'
        runs project after an event)."""
        sysm = self.system
        for _ in range(PROJECTION_ITERATIONS):
            T = self._terms(t, q, v)
            if not T.phi.size or float(np.max(np.abs(T.phi))) <= PROJECTION_TOL:
                break
            dx = np.linalg.lstsq(T.G, T.phi, rcond=None)[0]
            q = q - (sysm.qdot(q, dx) if sysm.has_kinematic_map else dx)
            if sysm.has_projection:
                q = np.asarray(sysm.project(q), dtype=float)
        return q

    @staticmethod
    def _work(work, T, h, sol, W_N, W_T, v_mean) -> np.ndarray:
        """The work integrals after the step: the applied forces' and dampers' powers over
        it, the contacts' normal impulses' work and the joints' (``W_constraint``), the
        friction impulses' (``W_friction``), each an impulse times the mean of the velocities
        before and after it, ``v_mean`` (Kelvin's theorem: exact for an impulse; with theta =
        1/2 and constant forces the step's energy balance is then exact)."""
        work = np.array(work, dtype=float)
        work[1] += h * T.P_applied
        work[2] += h * T.P_damping
        if sol.P.size:
            P = sol.P
            work[3] += float(P[1::3] @ (W_T[:, 0] @ v_mean) + P[2::3] @ (W_T[:, 1] @ v_mean))
            work[4] += float(P[0::3] @ (W_N @ v_mean))
        if sol.Lambda.size:
            work[4] += float(sol.Lambda @ (T.G @ v_mean))
        return work

    def record(self) -> None:
        """Record the state at :attr:`t` as an output row (the evaluation's fields from the
        last step: its mean acceleration, the joints' mean reactions ``Lambda / h``)."""
        run, L, sysm = self.run, self.layout, self.system
        t, y = self.t, self.y
        q, v = y[L.q], y[L.v]
        M = sysm.constant_mass
        if sysm.n_constraints or M is None:  # the drift and the mass matrix at the output
            T = self._terms(t, q, v)
            M, phi, dphi = T.M, T.phi, T.G @ v + T.phi_t
        else:  # (no constraint rows, a constant mass: nothing to evaluate)
            phi = dphi = np.zeros(0)
        if self.last is None:
            dv, lam, residual = np.zeros(v.size), np.zeros(sysm.n_constraints), 0.0
        else:
            _, dv, lam, residual = self.last
        run.max_residual = max(run.max_residual, residual)
        run.recorder.add_row(t=t, y=np.array(y), dv=dv, lam=lam, lambda_N=np.zeros(0),
                             N=np.zeros(0), F_T=np.zeros(0), v_T=np.zeros(0),
                             modes=np.zeros(0), residual=residual, phi=phi, dphi=dphi,
                             T=0.5 * float(v @ M @ v), V=sysm.potential(t, q))
        if run.progress is not None:
            run.progress(t)
