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
3. ``v_{k+1}`` and the impulses from Newton's impact law ``0 <= W_N v_{k+1} + e W_N v_k _|_
   P_N >= 0``, Coulomb's cone and the joints' velocity rows ``G v_{k+1} + phi_t = 0``, one
   problem over all active points (simultaneous impacts are one problem), by the method's
   ``solver``: ``"lemke"`` :func:`nonsmooth.core.moreau_jean.solve_step` (one mixed LCP on the
   faceted cone, certified), ``"nsgs"`` :func:`nonsmooth.lcp.nsgs.solve_nsgs_blocks` (the
   projected Gauss-Seidel on the round cone, matrix-free over free bodies, warm-started from
   the last step's impulses of the same points; its residual and sweeps reported, a step that
   does not reach the tolerance warned of), ``"auto"`` NSGS for a model of more than
   :data:`AUTO_NSGS_CONTACTS` rigid contacts whose family offers its points as blocks
   (``System.rigid_contact_blocks``: free bodies, no joint), else Lemke;
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
import warnings

import numpy as np

from ..core.moreau_jean import solve_step
from ..errors import IntegrationError, ModelError

__all__ = ["MoreauJeanStepper", "check_model", "ACTIVATION_GAMMA", "AUTO_NSGS_CONTACTS",
           "SOLVERS", "NSGSConvergenceWarning"]

#: The step's impulse solvers (``moreau_jean(solver=...)``; module docstring).
SOLVERS = ("auto", "lemke", "nsgs")

#: ``solver="auto"`` takes NSGS above this many rigid contacts (where the family offers
#: their blocks), Lemke up to it (the small problems, certified).
AUTO_NSGS_CONTACTS = 16

#: NSGS's over-relaxation from its second sweep on (:func:`nonsmooth.lcp.nsgs.
#: solve_nsgs_blocks`): on the 100 spheres' pile 1.5 halves the sweeps (24 000 against 56 000
#: over the second at tol 1e-4; 1.3: 37 000, 1.7: 44 000).
NSGS_RELAX = 1.5

#: The steps whose NSGS warning is shown; the later ones are counted and summed up at the
#: run's end.
NSGS_WARNINGS_SHOWN = 5


class NSGSConvergenceWarning(UserWarning):
    """A Moreau-Jean step whose NSGS sweeps stopped above their tolerance: the message names
    the time, the contacts and the residual."""

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
    rigid = set(system.rigid_contacts)
    compliant = [system.contact_names[c] for c in range(system.n_contacts) if c not in rigid]
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
        self.solver = self._choose_solver(method)
        self.tol, self.max_iter = float(method.tol), int(method.max_iter)
        self._Minv = None  # the bodies' inverse mass blocks (n_bodies, 6, 6), constant mass
        self._warm = (np.zeros(0, np.int64), np.zeros((0, 3)))  # last step's (keys, P)
        self.iterations = []  # each NSGS step's sweeps
        self.unconverged = []  # (t, residual, sweeps, contacts) of the steps above tol

    def _choose_solver(self, method) -> str:
        """The step's solver: the method's, ``"auto"`` resolved (module docstring); an
        explicit ``"nsgs"`` the family cannot take is refused."""
        sysm, L = self.system, self.layout
        q, v = self.y[L.q], self.y[L.v]
        wanted = method.solver
        if wanted == "lemke":
            return "lemke"
        offered = not sysm.n_constraints and \
            sysm.rigid_contact_blocks(self.t, q, v, 0.0) is not None
        M = sysm.constant_mass
        if offered and M is not None and _mass_blocks(M) is None:
            offered = False  # (not block diagonal: geared rotors)
        if wanted == "nsgs" and not offered:
            raise ModelError("method MoreauJean: solver=\"nsgs\" takes free "
                             "rigid bodies (six velocities each, a block-diagonal mass, no "
                             "joint) whose family offers its contacts' blocks; use "
                             "moreau_jean(solver=\"lemke\") for this model")
        if wanted == "nsgs":
            return "nsgs"
        return "nsgs" if offered and len(sysm.rigid_contacts) > AUTO_NSGS_CONTACTS \
            else "lemke"

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
        if self.solver == "nsgs":
            return self._step_nsgs(t_next, T)
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
        if owner:
            self.iterations.append(0)  # (Lemke's: a step with contacts, no sweep)
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

    def _inverse_mass(self, M) -> np.ndarray:
        """The bodies' inverse mass blocks (n_bodies, 6, 6) of ``M`` (the constant mass's
        kept)."""
        if self._Minv is not None:
            return self._Minv
        blocks = _mass_blocks(M)
        if blocks is None:
            raise IntegrationError("Moreau-Jean (NSGS): the mass matrix is not block diagonal "
                                   "by bodies; use moreau_jean(solver=\"lemke\")")
        Minv = np.linalg.inv(blocks)
        if self.system.constant_mass is not None:
            self._Minv = Minv
        return Minv

    def _step_nsgs(self, t_next: float, T) -> None:
        """One step with the impulses by NSGS over the family's contact blocks (module
        docstring, 3): free bodies, no joint."""
        from ..lcp.nsgs import solve_nsgs_blocks

        L, sysm, theta = self.layout, self.system, self.theta
        t, y = self.t, self.y
        h = t_next - t
        q, v = y[L.q], y[L.v]
        B = sysm.rigid_contact_blocks(t, q, v, ACTIVATION_GAMMA * h)
        Minv = self._inverse_mass(T.M)
        n_b = Minv.shape[0]
        v_free = v + np.einsum("kij,kj->ki", Minv, (h * T.f).reshape(n_b, 6)).ravel()
        k = B.contact.size
        c = np.zeros((k, 3))
        c[:, 0] = B.e * B.rate  # (Newton: u_N + e u_N^- >= 0)
        keys = B.contact * 64 + B.point  # (warm start: the last step's impulse of the point)
        old_keys, old_P = self._warm
        r0 = np.zeros((k, 3))
        if k and old_keys.size:
            at = np.minimum(np.searchsorted(old_keys, keys), old_keys.size - 1)
            hit = old_keys[at] == keys
            r0[hit] = old_P[at[hit]]
        out = solve_nsgs_blocks(B.a, B.b, B.Ha, B.Hb, Minv, v_free, c, B.mu, tol=self.tol,
                                max_iter=self.max_iter, r0=r0.ravel(), relax=NSGS_RELAX)
        if not np.all(np.isfinite(out.v)):
            raise IntegrationError(
                f"Moreau-Jean (NSGS): the impulses of the step at t = {t:.6g} s over "
                f"{k} contact point(s) are not finite ({out.message}); reduce dt")
        P = out.r.reshape(k, 3)
        order = np.argsort(keys)
        self._warm = (keys[order], P[order])
        if k:
            self.iterations.append(out.iterations)
        if not out.success:
            self._warn_unconverged(t, out, B)
        v_new = out.v
        v_theta = theta * v_new + (1.0 - theta) * v
        q_new = q + h * (sysm.qdot(q, v_theta) if sysm.has_kinematic_map else v_theta)
        if sysm.has_projection:
            q_new = np.asarray(sysm.project(q_new), dtype=float)
        work = np.array(y[L.work], dtype=float)
        work[1] += h * T.P_applied
        work[2] += h * T.P_damping
        if k:  # the impulses' work at the mean velocity (Kelvin; _work)
            V = np.vstack((0.5 * (v_new + v).reshape(n_b, 6), np.zeros(6)))
            u_mean = np.einsum("kij,kj->ki", B.Ha, V[B.a]) + \
                np.einsum("kij,kj->ki", B.Hb, V[B.b])
            work[3] += float(np.sum(P[:, 1:] * u_mean[:, 1:]))
            work[4] += float(P[:, 0] @ u_mean[:, 0])
        z = np.zeros(L.n_z)
        if self.n_c:
            impulses = np.zeros(self.n_c)
            np.add.at(impulses, B.contact, P[:, 0])
            z[L.n_z - self.n_c:] = impulses
        self.y = L.join(q_new, v_new, work, z)
        self.t = float(t_next)
        residual = out.residual if k else 0.0
        self.max_residual = max(self.max_residual, residual)
        self.last = (h, (v_new - v) / h, np.zeros(0), residual)
        self.run.n_steps += 1

    def _warn_unconverged(self, t, out, B) -> None:
        """Warn of a step whose NSGS stopped above its tolerance (the first
        :data:`NSGS_WARNINGS_SHOWN`; :meth:`finish` sums up the rest)."""
        names = sorted({self.system.contact_names[c] for c in B.contact})
        self.unconverged.append((t, out.residual, out.iterations, len(names)))
        if len(self.unconverged) <= NSGS_WARNINGS_SHOWN:
            shown = ", ".join(repr(n) for n in names[:6]) + (" ..." if len(names) > 6 else "")
            warnings.warn(
                f"Moreau-Jean (NSGS): the step at t = {t:.6g} s over {len(names)} contact(s) "
                f"({shown}) stopped at residual {out.residual:.3g} > tol {self.tol:.3g} after "
                f"{out.iterations} sweeps; raise max_iter or tol, reduce dt, or use "
                "moreau_jean(solver=\"lemke\")", NSGSConvergenceWarning, stacklevel=2)

    def finish(self) -> None:
        """The run's end: the solver's counts into the run (``result.diagnostics
        ["step_solver"]``: the solver, the steps it solved with contacts, their sweeps in all
        and at most, the steps above tolerance, the largest residual); warn of the NSGS steps
        above tolerance beyond the first ones warned of."""
        sweeps = np.array(self.iterations, dtype=np.int64)
        self.run.step_solver = {
            "solver": self.solver, "steps": int(sweeps.size), "sweeps": int(sweeps.sum()),
            "max_sweeps": int(sweeps.max()) if sweeps.size else 0,
            "unconverged": len(self.unconverged), "max_residual": float(self.max_residual)}
        more = len(self.unconverged) - NSGS_WARNINGS_SHOWN
        if more > 0:
            worst = max(u[1] for u in self.unconverged)
            warnings.warn(f"Moreau-Jean (NSGS): {more} more step(s) stopped above tol "
                          f"{self.tol:.3g} ({len(self.unconverged)} in all; the largest "
                          f"residual {worst:.3g})", NSGSConvergenceWarning, stacklevel=2)

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


def _mass_blocks(M) -> np.ndarray | None:
    """The diagonal 6x6 blocks (n_bodies, 6, 6) of ``M`` (6 n_bodies, 6 n_bodies), or None
    when ``M`` has an entry outside them."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if n % 6 or M.shape != (n, n):
        return None
    k = n // 6
    blocks = M.reshape(k, 6, k, 6).transpose(0, 2, 1, 3)[np.arange(k), np.arange(k)]
    if np.count_nonzero(M) != np.count_nonzero(blocks):
        return None
    return np.ascontiguousarray(blocks)

