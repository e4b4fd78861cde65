"""The recording of a run's outputs (:class:`Recording`, a part of ``_Run``): one row with its
evaluation, or the outputs of an adaptive step evaluated together in one compiled call of the
family (``CompiledFamily.evaluate_block``) and checked against the phase's modes and faces (an
output that contradicts them is an event stepped over)."""

from __future__ import annotations

import numpy as np

from ..diagnose import check_mass_matrix
from ..errors import (
    UserFunctionError,
)
from .phase import _kinetic, _potentials


class Recording:
    """Methods of ``nonsmooth.run.state._Run`` (its attributes are set there)."""

    # ---------------------------------------------------------------- recording
    def record(self, t, y, ev, modes):
        if self.check_mass:  # a user's M(q): symmetric positive definite where it is recorded
            problem = check_mass_matrix(ev.M, t)
            if problem:
                raise UserFunctionError(f"GeneralizedSystem: {problem}")
        L = self.layout
        if ev.residual > self.max_residual:
            self.max_residual = ev.residual
        v = y[L.v]
        self.recorder.add_row(t=t, y=np.array(y), dv=ev.dv, lam=ev.lam, lambda_N=ev.lambda_N,
                              N=ev.N, F_T=ev.F_T, v_T=ev.v_T,
                              modes=np.where(self.dyn.smooth, np.nan, modes),
                              residual=ev.residual, phi=ev.phi, dphi=ev.dphi,
                              T=0.5 * float(v @ ev.M @ v), V=self.system.potential(t, y[L.q]))
        if self.progress is not None:
            self.progress(t)

    def outputs(self, times, Y, modes):
        """Evaluate, check and record the outputs of one adaptive step (times (k,), states
        Y (n_y, k)). Returns the index of the first output that contradicts the phase's modes
        or faces (an event stepped over), or None; the outputs before it are recorded."""
        dyn, sl = self.dyn, self.layout
        k = times.size
        if not self.derived and self.system.constant_mass is not None:
            self._record_states(times, Y)
            return None
        if (self.family is None
                or dyn.n_evaluations + k > self.max_evaluations):  # the budget ends in the block
            return self._outputs_one_by_one(times, Y, modes)
        self.charge(float(times[-1]))
        dyn.n_evaluations += k - 1
        L = dyn.evaluation_layout
        Q = np.ascontiguousarray(Y[sl.q].T)
        V = np.ascontiguousarray(Y[sl.v].T)
        Z = np.ascontiguousarray(Y[sl.z].T)
        te = np.minimum(np.asarray(times, dtype=float), self.t_clamp)  # left limit at a stop
        out, T, Vp, good = self._evaluate_block(te, Q, V, Z, modes)

        def col(name):
            a, b = L[name]
            return out[:good, a:b]

        N, F_T, v_T, lam_abs = col("N"), col("F_T"), col("v_T"), col("lam_abs")
        v_tol = 1e-9 * np.maximum(1.0, np.max(np.abs(V[:good]), axis=1, initial=0.0))
        f_tol = 1e-9 * np.maximum(1.0, np.max(np.abs(N), axis=1, initial=0.0))
        bad = np.any(self.faces * lam_abs < -f_tol[:, None], axis=1)
        if self.vector is not None:  # pairs of dim > 1: by their rows
            bad |= self.vector.inconsistent_rows(N, F_T, v_T, modes, v_tol, f_tol)
        for i in ([] if self.vector is not None else self.watched_pairs()):
            if modes[i] == 0.0:
                reserve = self.mu_s[i] * N[:, i]
                bad |= (reserve + F_T[:, i] < -f_tol) | (reserve - F_T[:, i] < -f_tol)
            else:
                bad |= modes[i] * v_T[:, i] < -v_tol
        first = int(np.argmax(bad)) if bad.any() else None
        keep = good if first is None else first
        if keep:
            self.record_block(times[:keep], Y[:, :keep].T, out[:keep], modes, T[:keep].copy(),
                              Vp[:keep].copy())
        if first is not None:
            return first
        if good < k:  # the kernel declined a row (an uncertified HLCP, a singular KKT ...):
            rest = self._outputs_one_by_one(times[good:], Y[:, good:], modes)  # named there
            return None if rest is None else good + rest
        return None

    def _evaluate_block(self, te, Q, V, Z, modes):
        """The evaluations of the rows ``(te, Q, V, Z)`` (k rows) in one compiled call of the
        family: ``(out (k, size), T (k,), V (k,), good)``, the outputs, the kinetic and
        potential energies (J) and the rows before the first one the kernel declined."""
        from ..core.status import OK

        dyn, system = self.dyn, self.system
        k = te.size
        U = None
        if system.has_user_functions:  # the user functions' values at each row, copied (the
            # system may return one buffer it refills)
            U = np.stack([np.array(system.user_values(float(te[r]), Q[r], V[r]))
                          for r in range(k)])
        out, energies, row, status = self.family.evaluate_block(
            dyn.plan, dyn.Wt, np.ascontiguousarray(te), Q, V, Z, np.asarray(modes, dtype=float),
            np.asarray(self.faces, dtype=float), U)
        good = k if status == OK else row
        if energies is not None:
            return out, energies[0], energies[1], good
        return (out, _kinetic(self, V[:good], out[:good]),
                _potentials(self, te[:good], Q[:good]), good)

    def record_block(self, times, Y, out, modes, T, V):
        """Record rows evaluated together (states ``Y`` (k, n_y), evaluations ``out`` (k,
        size), kinetic and potential energies ``T, V`` (k,)), as :meth:`record` does one by
        one."""
        L = self.dyn.evaluation_layout

        def col(name):
            a, b = L[name]
            return out[:, a:b].copy()

        res = out[:, L["residual"][0]].copy()
        self.max_residual = max(self.max_residual, float(res.max()))
        self.recorder.add(
            t=np.array(times, dtype=float), y=np.array(Y), dv=col("dv"), lam=col("lam"),
            lambda_N=col("lambda_N"), N=col("N"), F_T=col("F_T"), v_T=col("v_T"),
            modes=np.tile(np.where(self.dyn.smooth, np.nan, modes), (len(times), 1)),
            residual=res, phi=col("phi"), dphi=col("dphi"), T=T, V=V)
        if self.progress is not None:
            self.progress(float(times[-1]))

    def _record_states(self, times, Y):
        """Record the outputs of one adaptive step without their evaluations (a run with
        ``derived=False``, whose model has no friction pair and no tracked face, so that the
        evaluations would check nothing): the states, the energies (the mass matrix constant)
        and the work; the evaluations' fields NaN (the Result does not expose them)."""
        sl, k = self.layout, times.size
        n, m = sl.n_v, self.system.n_constraints
        te = np.minimum(np.asarray(times, dtype=float), self.t_clamp)  # left limit at a stop
        V = Y[sl.v].T
        self.recorder.add(
            t=np.array(times, dtype=float), y=np.array(Y.T), dv=np.full((k, n), np.nan),
            lam=np.full((k, m), np.nan), lambda_N=np.zeros((k, 0)), N=np.zeros((k, 0)),
            F_T=np.zeros((k, 0)), v_T=np.zeros((k, 0)), modes=np.zeros((k, 0)),
            residual=np.zeros(k), phi=np.full((k, m), np.nan), dphi=np.full((k, m), np.nan),
            T=_kinetic(self, V, None), V=_potentials(self, te, Y[sl.q].T))
        if self.progress is not None:
            self.progress(float(times[-1]))

    def _outputs_one_by_one(self, times, Y, modes):
        for j, tt in enumerate(times):
            yy = np.array(Y[:, j])
            ev = self.ev_at(float(tt), yy, modes)
            if self.inconsistent(yy, ev, modes):
                return j
            self.record(float(tt), yy, ev, modes)
        return None
