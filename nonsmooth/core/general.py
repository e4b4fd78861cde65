"""The acceleration stage in Python: the reference path over a model's terms arrays, for any
model family (it knows no element kind and no space dimension, like its compiled twin
:mod:`nonsmooth.core.stage`).

First-kind Lagrange equations with Baumgarte stabilization (``docs/method.md`` sections 1-3)::

    M dv/dt - G^T lambda = f + W^T F_T
    G dv/dt              = gamma - 2 alpha (G v + phi_t) - beta^2 phi

plus one row ``W_i dv/dt = -(dW_i/dt) v - 2 alpha v_T,i`` per sticking row of ``W`` (its
multiplier is the friction force). Every friction law is linear in the pair's normal load,
``F_T,i = -a_i N_i - b_i``, so the KKT matrix ``K = [[M, -G^T], [G, 0]]`` (with the stick rows,
:meth:`GeneralStage.kkt`: the one place that assembles it) is factored once and solved for
``1 + p_slip`` right-hand sides, which makes the load rows' multipliers affine in their absolute
values: ``lambda_abs = c + A |lambda_abs|`` (an HLCP, :class:`nonsmooth.loads.NormalLoads`).

What a family hands this stage is a terms object with the arrays ``M (n_v, n_v)``, ``f (n_v,)``,
``G (m, n_v)``, ``phi, phi_t, gamma (m,)``, ``W (p_rows, n_v)`` and the powers ``P_applied``,
``P_damping`` (``nonsmooth.system.Terms``), and the friction part of the evaluation (the
sticking and slipping pairs and their coefficients: :meth:`GeneralStage.scalar_friction`, or
``nonsmooth.vector_friction.stage_friction`` for pairs of dim > 1). This is the path of events
and initial times (the HLCP solved outright), of user-defined friction laws and of anything the
compiled stage declines; ``tests/planar/test_kernels.py`` checks that the two agree.

References: Baumgarte, Comput. Methods Appl. Mech. Eng. 1 (1972) 1-16; Wang X.J., Wang Q.,
Zhuang F.F.; Wang, Peng & Zhuang, DCDS-B 16 (2011) 589-605.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import ConstraintError, FrictionLoadError, LoadBranchWarning
from .layout import kkt_slices

__all__ = ["Evaluation", "GeneralStage", "kkt_solve", "LOAD_ITERATIONS", "LOAD_ROUNDS"]

_EMPTY = np.zeros(0)

#: Largest number of fixed-point iterations for radial (revolute) loads.
LOAD_ITERATIONS = 100
#: Rounds of the accelerated iteration after them, for a map certified a contraction
#: (:meth:`GeneralStage.accelerated_loads`; the kernels' ``core.stage.LOAD_ROUNDS``).
LOAD_ROUNDS = 1000

_dgesv = None


def kkt_solve(K: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, int]:
    """LU solve ``K X = R`` (LAPACK dgesv; far less call overhead than numpy's solve):
    ``(X, info)``, ``info != 0`` for a singular ``K``. scipy.linalg is imported on first use
    (it costs 0.17 s of start-up)."""
    global _dgesv
    if _dgesv is None:
        from scipy.linalg.lapack import dgesv as _dgesv
    lu, piv, X, info = _dgesv(K, R)
    return X, info


class Evaluation:
    """What one evaluation found.

    Every array is new to this evaluation (on the compiled path, views into one buffer made
    for it), so it is safe to keep, except ``M``, which is the system's own.

    Attributes
    ----------
    dv : ndarray, shape (n_v,)      accelerations dv/dt
    lam : ndarray, shape (m,)       all constraint multipliers (N, N m), in the system's row order
    lambda_N : ndarray, shape (p,)  per pair: its normal row's multiplier (signed normal force,
                                    N), or its load ``N`` for a pair without a normal row (a
                                    revolute joint)
    F_T : ndarray, shape (p_rows,)  friction force of each pair's rows (N): on the slider along
                                    its slot, or at the pin radius of a revolute joint (torque
                                    ``pin_radius * F_T``); a sticking pair's stick-row multiplier
    v_T : ndarray, shape (p_rows,)  sliding velocity ``W v`` (m/s; a revolute joint's
                                    ``pin_radius`` times its relative angular velocity)
    residual : float                HLCP residual ``max|lam_abs - c - A|lam_abs|| /
                                    max(1, max|c|, max|lam_abs|)`` (0 without load rows); within
                                    a phase ``lam_abs`` is the face-fixed continuation, so a
                                    nonzero residual means a face is wrong
    powers : ndarray, shape (5,)    drive, applied, damping, friction, constraint power (W), in
                                    the order of ``core.layout.WORK_NAMES``
    A, c : ndarray                  the absolute value equation ``lam_abs = c + A |lam_abs|``
                                    over the load rows, shapes (k, k) and (k,) (k may be 0); set
                                    on both paths, with the radial loads of the last iteration in
                                    ``c`` (any state: ``Dynamics.normal_equation``)
    M : ndarray, shape (n_v, n_v)   mass matrix at the state (not copied: on the compiled path
                                    a constant one is the family's own array)
    phi, dphi : ndarray, shape (m,) constraint values and ``G v + phi_t`` (the drift)
    dz : ndarray, shape (n_z,)      time derivatives of the smooth laws' internal states
    N : ndarray, shape (p,)         normal load of each pair (N), ``Wt |lam_abs| + radial +
                                    preload``; within a phase with ``faces * lam_abs`` in place of
                                    ``|lam_abs|`` (the continuation)
    lam_abs : ndarray, shape (k,)   the signed multipliers of the load rows, whose absolute
                                    values enter the loads: the HLCP's unknowns

    The constructor takes the first twelve; ``dz``, ``N`` and ``lam_abs`` start empty and are
    set by the evaluation that makes the object.
    """

    __slots__ = ("dv", "lam", "lambda_N", "F_T", "v_T", "residual", "powers", "A", "c",
                 "M", "phi", "dphi", "dz", "N", "lam_abs")

    def __init__(self, dv, lam, lambda_N, F_T, v_T, residual, powers, A, c, M, phi, dphi):
        self.dv, self.lam, self.lambda_N, self.F_T, self.v_T = dv, lam, lambda_N, F_T, v_T
        self.residual, self.powers, self.A, self.c = residual, powers, A, c
        self.M, self.phi, self.dphi = M, phi, dphi
        self.dz = self.N = self.lam_abs = _EMPTY


@dataclass
class Friction:
    """The friction part of one evaluation, as the stage needs it.

    Attributes
    ----------
    stick : ndarray of int, (k,)    the sticking rows of ``W`` (the pairs when every pair is
                                    scalar)
    slip : ndarray of int, (s,)     the slipping (or smooth-law) pairs: one KKT column each
    a : ndarray                     ``F_T = -a N - b``: per pair (p,) for scalar pairs, per row
                                    (p_rows,) with ``cols`` for vector pairs
    b : ndarray, (p_rows,)          the load-independent part of the friction force (N)
    dz : ndarray, (n_z,)            the smooth laws' state rates
    cols : ndarray or None          vector pairs: the slipping pairs' generalized force columns
                                    ``-W_i^T a_i`` (n_v, s)
    """

    stick: np.ndarray
    slip: np.ndarray
    a: np.ndarray
    b: np.ndarray
    dz: np.ndarray
    cols: np.ndarray | None = None


class GeneralStage:
    """The Python acceleration stage of one model with its friction laws and loads.

    Parameters
    ----------
    n_v, m, p : int                 velocity coordinates, constraint rows, frictional pairs
    two_alpha, beta2 : float        ``2 alpha`` (1/s) and ``beta^2`` (1/s^2), Baumgarte's
    mu : ndarray, (p,)              dynamic coefficient of each Coulomb pair (0 for smooth laws)
    laws : list of FrictionLaw      one per pair
    z_slices : list of slice        each pair's internal states in ``z``; ``n_z`` their number
    abs_rows : ndarray of int, (k,) the constraint rows whose ``|lambda|`` enters a load
    normal_rows : ndarray of int, (p,)  each pair's normal row (-1: none; its lambda_N is N)
    driver_rows : sequence of int   the drivers' rows (their power is the drive power)
    pair_norms : list of list       each pair's norm load terms ``([rows], weight)``: a
                                    revolute pin's radial rows, a spatial joint's bending or
                                    ball load (``System.pair_norms``; empty: none)
    dim, w_row : ndarray of int, (p,)  each pair's dimension and first row of ``W``
    loads : NormalLoads             the HLCP of the normal loads
    pair_names, constraint_names : list of str   for the errors' messages
    """

    def __init__(self, n_v, m, p, *, two_alpha, beta2, mu, laws, z_slices, n_z, abs_rows,
                 normal_rows, driver_rows, pair_norms, dim, w_row, loads, pair_names,
                 constraint_names):
        self.n_v, self.m, self.p = n_v, m, p
        self.two_alpha, self.beta2 = two_alpha, beta2
        self.mu, self.laws, self.z_slices, self.n_z = mu, laws, z_slices, n_z
        self.smooth = np.array([law.smooth for law in laws], dtype=bool)
        self.any_smooth = bool(self.smooth.any())
        self.abs_rows = np.asarray(abs_rows, dtype=int)
        self.pair_norms = pair_norms
        self._weights = None  # the norm terms' weights of the current evaluation (flat), or None
        self.branch = None  # [LoadBranchWarning, evaluations] once a smooth law's load branched
        self.has_radial = np.array([bool(g) for g in pair_norms], dtype=bool)
        self.radial = bool(self.has_radial.any())
        self.dim, self.w_row = dim, w_row
        self.loads = loads
        self.pair_names, self.constraint_names = pair_names, constraint_names
        self.power_rows = np.zeros((m, 2))  # columns: all constraint rows, driver rows
        self.power_rows[:, 0] = 1.0
        self.power_rows[list(driver_rows), 1] = 1.0
        normal_rows = np.asarray(normal_rows, dtype=int)
        self.has_normal = normal_rows >= 0
        self.normal_idx = np.where(self.has_normal, normal_rows, 0)

    # ------------------------------------------------------------------ the KKT system
    def kkt(self, T, dphi, Ws, stick_rhs, b, n_cols):
        """The KKT system ``K x = R`` of the terms ``T`` with the drift ``dphi = G v + phi_t``
        (m,), the stick rows ``Ws`` (k, n_v) and their right-hand sides ``stick_rhs`` (k,), the
        load-independent friction forces ``b`` (p_rows,) in the first right-hand side and
        ``n_cols`` more columns left zero for the caller: ``(K, R)``, shapes
        ``(n_v + m + k,) * 2`` and ``(n_v + m + k, 1 + n_cols)``.
        ``x = [dv | lambda | stick multipliers]`` (``core.layout.kkt_slices``). The one
        assembly of ``K`` in Python (the compiled one: ``core.stage._kkt``)."""
        n, m = self.n_v, self.m
        G = T.G
        k = Ws.shape[0]
        size = n + m + k
        K = np.zeros((size, size))
        K[:n, :n] = T.M
        K[n:n + m, :n] = G
        K[:n, n:n + m] = -G.T
        R = np.zeros((size, 1 + n_cols))
        R[:n, 0] = T.f - T.W.T @ b
        R[n:n + m, 0] = T.gamma - self.two_alpha * dphi - self.beta2 * T.phi
        if k:
            K[n + m:, :n] = Ws
            K[:n, n + m:] = -Ws.T
            R[n + m:, 0] = stick_rhs
        return K, R

    def singular(self, t, sticking=()):
        """Raise the named ``ConstraintError`` of a singular KKT matrix at ``t`` (s)."""
        extra = f" with sticking pairs {list(sticking)}" if sticking else ""
        raise ConstraintError(
            f"at t = {t:.10g} s the KKT matrix [[M, -G^T], [G, 0]]{extra} is singular: the "
            "constraints are redundant or the mechanism is at a singular position "
            f"(constraints: {self.constraint_names}); remove redundant constraints or "
            "start away from the singular configuration")

    def sticking_names(self, modes) -> list[str]:
        """The names of the sticking Coulomb pairs at ``modes`` (p,)."""
        return [self.pair_names[i]
                for i in np.flatnonzero((np.asarray(modes) == 0.0) & ~self.smooth)]

    # ------------------------------------------------------------------ friction
    def scalar_friction(self, v_T, modes, z) -> Friction:
        """The friction part of :meth:`evaluate` when every pair is scalar: the sticking and
        the slipping (or smooth) pairs, the coefficients ``F_T = -a N - b`` (p each) and the
        smooth laws' state rates."""
        smooth = self.smooth
        stick = np.flatnonzero((modes == 0.0) & ~smooth)
        slip = np.flatnonzero((modes != 0.0) | smooth)
        a_all = self.mu * modes
        b_all = np.zeros(self.p)
        dz = np.empty(self.n_z)
        if self.any_smooth:
            for i in np.flatnonzero(smooth):
                law, sl = self.laws[i], self.z_slices[i]
                zi = z[sl] if z is not None else law.initial_state(float(v_T[i]))
                a_all[i], b_all[i] = law.coefficients(float(v_T[i]), zi)
                if law.n_states:
                    dz[sl] = law.state_derivative(float(v_T[i]), zi)
        return Friction(stick, slip, a_all, b_all, dz)

    def vector_solve(self, K, R, G, Ws, t, modes) -> np.ndarray:
        """The KKT solve of a system with vector pairs. Stick rows that depend on each other
        and the constraints (two sticking contacts on one rigid body: statically indeterminate
        friction) take the least-squares solution of least norm, whose friction forces are the
        smallest that hold (``numpy.linalg.lstsq``; the residual must vanish, else the rows
        contradict each other: ``ConstraintError``); otherwise the LU solve."""
        stacked = np.vstack((G, Ws))
        redundant = False
        if Ws.shape[0]:
            s = np.linalg.svd(stacked, compute_uv=False)
            full = min(stacked.shape)
            redundant = stacked.shape[0] > self.n_v or s[full - 1] <= 1e-9 * max(1.0, s[0])
            if redundant and G.shape[0]:  # the constraints alone redundant: the model's error
                sg = np.linalg.svd(G, compute_uv=False)
                redundant = sg[-1] > 1e-9 * max(1.0, sg[0])
        if not redundant:
            X, info = kkt_solve(K, R)
            if info:
                self.singular(t, self.sticking_names(modes))
            return X
        X = np.linalg.lstsq(K, R, rcond=None)[0]
        if not np.max(np.abs(K @ X - R)) <= 1e-8 * max(1.0, float(np.max(np.abs(R)))):
            self.singular(t, self.sticking_names(modes))
        return X

    def vector_forces(self, slip, a_rows, b_rows, N_slip) -> np.ndarray:
        """``F_T = -a N - b`` by row (p_rows) of the slipping pairs of a system with vector
        pairs (the sticking rows are set by the caller)."""
        F_T = -b_rows
        for c_, i in enumerate(slip):
            r = slice(self.w_row[i], self.w_row[i] + self.dim[i])
            F_T[r] -= a_rows[r] * N_slip[c_]
        return F_T

    # ------------------------------------------------------------------ loads
    def radial_norms(self, x) -> np.ndarray:
        """Each pair's norm loads ``sum_g w_g ||lambda_g||`` (N, p) from a KKT solution ``x``
        (a revolute pin's radial reaction, a spatial joint's bending and ball loads)."""
        out = np.zeros(self.p)
        for i, rows, w in self.norm_terms():
            out[i] += w * math.hypot(*(float(x[self.n_v + r]) for r in rows))
        return out

    def norm_terms(self, pair: int | None = None) -> list:
        """``[(pair, rows, weight)]`` of every norm load term (of ``pair`` only, if given) with
        the weights of the current evaluation (``Terms.norm_weights``) where the family gives
        them."""
        out, g = [], 0
        for i, groups in enumerate(self.pair_norms):
            for rows, w in groups:
                if pair is None or i == pair:
                    out.append((i, rows, w if self._weights is None else
                                float(self._weights[g])))
                g += 1
        return out

    def load_lipschitz(self, X1, Wt, slip) -> np.ndarray:
        """The Lipschitz matrix ``L`` (n_s, n_s) of the slipping pairs' loads as a function of
        their own loads (``docs/design/spatial_friction.md`` section 3.2): ``L_ij = sum_g w_g
        ||X1[r_g, j]|| + sum_r Wt_ir |X1[r, j]|``; ``rho(L) < 1`` certifies one solution of
        the load equation and the convergence of its iteration."""
        n = self.n_v
        L = np.abs(Wt[slip]) @ np.abs(X1[n + self.abs_rows]) if self.abs_rows.size else \
            np.zeros((slip.size, X1.shape[1]))
        for a, i in enumerate(slip):
            for _, rows, w in self.norm_terms(i):
                L[a] += w * np.hypot.reduce(X1[n + np.asarray(rows)], axis=0)
        return L

    def certify_loads(self, t, X1, Wt, slip, X0=None, preload=None) -> None:
        """Raise :class:`~nonsmooth.errors.FrictionLoadError` unless the load equation with norm
        terms has exactly one solution: ``rho(L) < 1`` (:meth:`load_lipschitz`; the Perron root
        of a nonnegative matrix). With ``rho(L) >= 1`` friction creates at least as much load
        as it needs (self-locking, or several solutions): never a silent root."""
        L = self.load_lipschitz(X1, Wt, slip)
        rho = float(np.max(np.abs(np.linalg.eigvals(L)))) if L.size else 0.0
        if rho < 1.0 - 1e-9:
            return
        names = [self.pair_names[i] for i in slip]
        if slip.size == 1 and X0 is not None:  # one load: the exact classification
            self.classify_one_load(t, X0, X1, Wt, slip[0], preload, rho)
        raise FrictionLoadError(
            f"at t = {t:.10g} s the normal loads of the joint(s) {names} are not unique: "
            f"friction feeds back into the joints' reactions by rho(L) = {rho:.6g} newton per "
            "newton (>= 1: self-locking or several solutions, docs/design/spatial_friction.md "
            "section 3.3); reduce mu, the pin or ball radius, or lengthen the overlap or bending "
            "arm")

    def certify_converged(self, t, X0, X1, Wt, slip, preload, N_slip) -> None:
        """A converged load iteration is the only solution when ``rho(L) < 1``. Otherwise the
        equation has another solution or it is not certified: with a set-valued law among the
        slipping pairs :meth:`certify_loads` names it (the exact classification of one load:
        two roots, ``IndeterminateLCPError``); when every slipping pair has a smooth law (a
        presliding coefficient, LuGre's ``sigma_1 dz/dt``, can exceed ``1 / L`` for a moment)
        the run keeps the root the iteration reached from the frictionless loads (the branch
        connected to zero friction, the smaller one) and says so once per run
        (:class:`~nonsmooth.errors.LoadBranchWarning`, with both roots for one load)."""
        L = self.load_lipschitz(X1, Wt, slip)
        rho = float(np.max(np.abs(np.linalg.eigvals(L)))) if L.size else 0.0
        if rho < 1.0 - 1e-9:
            return
        if not self.smooth[slip].all():
            self.certify_loads(t, X1, Wt, slip, X0, preload)
        if self.branch is not None:
            self.branch[1] += 1
            return
        names = [self.pair_names[i] for i in slip]
        roots: list[float] = []
        if slip.size == 1:
            from ..loads import one_load_roots

            roots = one_load_roots(float(preload[slip[0]]), self._load_terms(X0, X1, Wt,
                                                                              slip[0]),
                                   max(float(N_slip[0]), 1.0))
        others = [r for r in roots if abs(r - float(N_slip[0])) > 1e-6 * max(1.0, r)]
        also = (f"; the other solution is N = {others[0]:.6g} N" if others else
                "; the other solutions are not enumerated (several loads)")
        text = (f"at t = {t:.10g} s the smooth friction law of joint(s) {names} feeds back "
                f"into the reaction by rho(L) = {rho:.6g} newton per newton (>= 1), so the load "
                "equation has more than one solution: the run follows the branch connected to "
                f"the frictionless load, N = {[round(float(n), 9) for n in N_slip]} N{also} "
                "(docs/design/spatial_friction.md section 3.3); result.diagnostics['load_branch'] "
                "counts the evaluations")
        self.branch = [LoadBranchWarning(text, t, names, roots, rho), 1]
        warnings.warn(self.branch[0], stacklevel=2)

    def _load_terms(self, X0, X1, Wt, i) -> list:
        """One slipping pair's load terms ``(w, c, b)`` (:func:`nonsmooth.loads.
        one_load_roots`): its norm groups and its weighted 1-row loads."""
        n = self.n_v
        terms = [(w, X0[n + np.asarray(r)], X1[n + np.asarray(r), 0])
                 for _, r, w in self.norm_terms(i)]
        terms += [(float(Wt[i, a]), X0[n + r:n + r + 1], X1[n + r:n + r + 1, 0])
                  for a, r in enumerate(self.abs_rows) if Wt[i, a] != 0.0]
        return terms

    def classify_one_load(self, t, X0, X1, Wt, i, preload, rho) -> None:
        """One slipping pair whose load is not certified (``L = rho >= 1``): every row is affine
        in its load, ``x = X0 + X1 N``, so the load equation is one convex scalar equation
        (:func:`nonsmooth.loads.one_load_roots`); raise ``InconsistentLCPError`` (no load:
        self-locking, or at its edge) or ``IndeterminateLCPError`` (two loads, both given)."""
        from ..errors import InconsistentLCPError, IndeterminateLCPError
        from ..loads import one_load_roots

        n = self.n_v
        terms = self._load_terms(X0, X1, Wt, i)
        pre = float(preload[i])
        scale = max(pre, float(np.max(np.abs(X0[n:]), initial=0.0)), 1.0)
        roots = one_load_roots(pre, terms, scale)
        name = self.pair_names[i]
        where = (f"at t = {t:.10g} s the normal load of joint '{name}' feeds back on itself by "
                 f"L = {rho:.6g} newton per newton (>= 1)")
        if len(roots) >= 2:
            raise IndeterminateLCPError(
                f"{where} and has two solutions, N = {roots[0]:.10g} N and {roots[1]:.10g} N "
                "(indeterminate: both are physical); reduce mu or lengthen the overlap or "
                "bending arm", t=t, pairs=[name], solutions=[np.array([r]) for r in roots])
        cause = ("self-locking: friction creates more load than it needs, the joint jams); "
                 "reduce mu or lengthen the overlap or bending arm")
        if self.smooth[i]:  # the coefficient is the law's state, not the geometry's
            cause = (f"the {self.laws[i].name} law's coefficient comes from its state, so "
                     "either the joint self-locks or the state ran away: a fixed step (RK4, "
                     "Euler) too long for the law's stiffness makes its bristle deflection "
                     "grow without bound); reduce dt or use an adaptive method (Radau)")
        raise InconsistentLCPError(
            f"{where} and has {'no solution' if not roots else 'a solution only at the edge'}"
            f" ({cause}", t=t, pairs=[name])

    def _slow_loads(self, t, Rad, X0, X1, AR, A, c_fixed, Wt, slip, preload, faces):
        """:meth:`evaluate`'s loads where the plain iteration did not converge: a map that is
        not a contraction named (:meth:`certify_loads`), else :meth:`accelerated_loads`, or
        ``FrictionLoadError``. Returns ``(Rad, c, N_slip, x)``."""
        if slip.size:  # a map with rho(L) >= 1 named as such
            self.certify_loads(t, X1, Wt, slip, X0, preload)

        def load_map(R):  # evaluate's arithmetic at the norm loads R
            c = c_fixed + X1[AR] @ R[slip]
            mag = self.loads.magnitudes(t, A, c, faces) if AR.size else _EMPTY
            N_slip = Wt[slip] @ mag + R[slip] + preload[slip]
            return c, N_slip, X0 + X1 @ N_slip

        found = self.accelerated_loads(Rad, load_map)
        if found is None:
            names = [self.pair_names[i] for i in np.flatnonzero(self.has_radial)]
            raise FrictionLoadError(
                f"at t = {t:.10g} s the radial load of the revolute joint(s) {names} did not "
                f"converge in {LOAD_ITERATIONS} fixed-point iterations and {LOAD_ROUNDS} "
                "accelerated rounds (friction feeds back into the pin reaction too "
                "strongly); reduce mu or the pin radius")
        return found

    def accelerated_loads(self, Rad, load_map):
        """The norm loads' fixed point ``Rad = g(Rad)`` after :data:`LOAD_ITERATIONS` plain
        steps did not reach it, for a map certified a contraction (``rho(L) < 1``: one fixed
        point, which the plain steps reach at the rate ``rho``; 0.95 needs ~500 of them): up to
        :data:`LOAD_ROUNDS` rounds of two plain steps and Aitken's extrapolation of each load
        from them (Steffensen's method: superlinear on a scalar load), the extrapolated point
        kept only when its step is smaller than the last plain one, so that the plain steps'
        convergence is kept (the kernels' ``core.stage._load_iteration``, the same arithmetic).
        ``load_map(R) -> (c, N_slip, x)`` is the map's affine part at the norm loads ``R``
        (p,). Returns ``(Rad, c, N_slip, x)`` with ``c, N_slip, x`` at the fixed point, or None
        when it was not reached."""
        def g(R):
            parts = load_map(R)
            new = self.radial_norms(parts[2])
            return parts, new, bool(np.all(np.abs(new - R) <= 1e-12
                                           * np.maximum(1.0, np.abs(new))))

        for _round in range(LOAD_ROUNDS):
            parts, R1, done = g(Rad)
            if done:
                return (R1, *parts)
            parts, R2, done = g(R1)
            if done:
                return (R2, *parts)
            d1, d2 = R1 - Rad, R2 - R1
            with np.errstate(all="ignore"):
                e = R2 - d2 * d2 / (d2 - d1)
            extrapolated = np.where((d2 != d1) & np.isfinite(e), e, R2)
            parts, R3, done = g(extrapolated)
            if done:
                return (R3, *parts)
            plain = float(np.max(np.abs(d2), initial=0.0))
            step = float(np.max(np.abs(R3 - extrapolated), initial=0.0))
            Rad = R3 if step < plain else R2
        return None

    # ------------------------------------------------------------------ the evaluation
    def evaluate(self, t, T, v, v_T, modes, fr: Friction, bias, Wt, preload, faces,
                 vector=False) -> Evaluation:
        """Any pairs: slipping, sticking or with a smooth law (``F_T = -a(v_T, z) N -
        b(v_T, z)``), with any normal load ``N = sum_r w_r |lambda_r| + ||lambda_radial|| +
        preload``.

        A sticking pair adds the row ``W_i dv/dt = -(dW_i/dt) v - 2 alpha v_T,i`` (zero
        tangential acceleration, velocity drift damped) to the KKT system; its multiplier is the
        friction force ``F_T,i``, bounded by ``mu_s N_i`` (checked by the events). The rows whose
        ``|.|`` enters a load solve one absolute value equation (the HLCP); a radial (revolute)
        load is not piecewise linear and is found by fixed-point iteration around it (the KKT
        system is factored once; each iteration is a small AVE solve).

        Parameters
        ----------
        t : float                       time (s)
        T : Terms                       the terms at ``(t, q, v)``
        v, v_T : ndarray, (n_v,), (p_rows,)  velocities and sliding velocities ``W v``
        modes : ndarray, (p,)           the pairs' modes (for the errors' names)
        fr : Friction                   the friction part (:meth:`scalar_friction`, or the
                                        vector pairs' ``stage_friction``)
        bias : callable () -> ndarray, (p_rows,)  the tangential bias ``(dW/dt) v`` (called
                                        only with stick rows)
        Wt : ndarray, (p, k)            the load weights at ``q``
        preload : ndarray, (p,)         the preloads at ``t`` (N)
        faces : ndarray, (k,) or None   fixed faces of the load rows (a phase's continuation);
                                        None: the HLCP solved outright
        vector : bool                   some pair has dim > 1 (``fr.cols`` given)
        """
        n, m = self.n_v, self.m
        W = T.W
        self._weights = T.norm_weights
        stick, slip = fr.stick, fr.slip
        k = stick.size
        Ws = W[stick]
        stick_rhs = (-bias()[stick] - self.two_alpha * v_T[stick]) if k else None
        Gv = T.G @ v
        dphi = Gv + T.phi_t
        K, R = self.kkt(T, dphi, Ws, stick_rhs, fr.b, slip.size)
        if vector:
            R[:n, 1:] = fr.cols
            X = self.vector_solve(K, R, T.G, Ws, t, modes)
        else:
            a = fr.a[slip]
            R[:n, 1:] = W[slip].T * (-a)
            X, info = kkt_solve(K, R)
            if info:
                self.singular(t, self.sticking_names(modes))
        X0, X1 = X[:, 0], X[:, 1:]
        s_dv, s_lam, s_stick = kkt_slices(n, m)  # x = [dv | lam | stick multipliers]
        # loads: N = Wt |lambda_abs| + radial + preload
        AR = n + self.abs_rows
        A = X1[AR] @ Wt[slip]
        c_fixed = X0[AR] + X1[AR] @ preload[slip]
        Rad = np.zeros(self.p)
        if self.radial:
            Rad = self.radial_norms(X0)  # start: the loads without friction
        for _iteration in range(LOAD_ITERATIONS):
            c = c_fixed + X1[AR] @ Rad[slip]
            mag = self.loads.magnitudes(t, A, c, faces) if AR.size else _EMPTY
            N_slip = Wt[slip] @ mag + Rad[slip] + preload[slip]
            x = X0 + X1 @ N_slip
            if not self.radial:
                break
            new = self.radial_norms(x)
            done = np.all(np.abs(new - Rad) <= 1e-12 * np.maximum(1.0, np.abs(new)))
            Rad = new
            if done:
                break
        else:
            Rad, c, N_slip, x = self._slow_loads(t, Rad, X0, X1, AR, A, c_fixed, Wt, slip,
                                                 preload, faces)
        if self.radial and slip.size:  # the converged root certified, or its branch named
            self.certify_converged(t, X0, X1, Wt, slip, preload, N_slip)
        lam_abs = x[AR]
        signed = lam_abs if faces is None else faces * lam_abs
        N = Wt @ (np.abs(lam_abs) if faces is None else signed) + Rad + preload
        if vector:
            F_T = self.vector_forces(slip, fr.a, fr.b, N_slip)
        else:
            F_T = np.empty(self.p)
            F_T[slip] = -a * N_slip - fr.b[slip]
        F_T[stick] = x[s_stick]
        if AR.size:
            res = float(np.max(np.abs(lam_abs - c - A @ np.abs(lam_abs))))
            res /= max(1.0, float(np.max(np.abs(c))), float(np.max(np.abs(lam_abs))))
        else:
            res = 0.0
        lam = x[s_lam]
        # (no constraint rows at all: every pair's load is given, a sliding contact's)
        lambda_N = np.where(self.has_normal, lam[self.normal_idx], N) if m else N.copy()
        P_total, P_drive = (lam * Gv) @ self.power_rows
        powers = np.array((P_drive, T.P_applied, T.P_damping, float(F_T @ v_T),
                           P_total - P_drive))
        ev = Evaluation(x[s_dv], lam, lambda_N, F_T, v_T, res, powers, A, c, T.M, T.phi, dphi)
        ev.dz, ev.N, ev.lam_abs = fr.dz, N, lam_abs
        return ev

    # ------------------------------------------------------------------ events
    def linearize(self, t, T, v, bias, modes, free, z, faces, rad, Wt, preload):
        """The evaluation made affine in the friction forces ``F`` of the pairs ``free``
        (the transition problem's linearization, ``Dynamics._transition_linearization``).

        The ``free`` pairs' forces are external forces (one KKT right-hand side each); the
        other pairs keep ``modes`` (stick rows, slipping or smooth-law friction); the load
        rows' absolute values are taken on ``faces`` (``|lambda_abs| = faces * lambda_abs``)
        and the radial loads ``rad`` (p,) are frozen; ``bias`` (p,) the tangential bias, ``Wt``
        (p, k) the load weights, ``preload`` (p,) the preloads (N).

        Returns ``(a0, D, n0, Nf, lam0, L)``: ``a_T + 2 alpha v_T = a0 + D F`` (k), loads
        ``N = n0 + Nf F`` (k), load rows ``lambda_abs = lam0 + L F`` (r). Raises
        ``ConstraintError`` for a singular KKT matrix (stick rows made redundant by the
        constraints), ``numpy.linalg.LinAlgError`` for a singular ``I - A diag(faces)``
        (jamming on these faces).
        """
        n, p = self.n_v, self.p
        free = np.asarray(free, dtype=int)
        k = free.size
        is_free = np.zeros(p, dtype=bool)
        is_free[free] = True
        smooth = self.smooth
        stick = np.flatnonzero((modes == 0.0) & ~smooth & ~is_free)
        slip = np.flatnonzero(((modes != 0.0) | smooth) & ~is_free)
        W = T.W
        v_T = W @ v
        a_all = self.mu * modes
        b_all = np.zeros(p)
        if self.any_smooth:
            for i in np.flatnonzero(smooth):
                law, sl = self.laws[i], self.z_slices[i]
                zi = z[sl] if z is not None else law.initial_state(float(v_T[i]))
                a_all[i], b_all[i] = law.coefficients(float(v_T[i]), zi)
        ns = slip.size
        stick_rhs = -bias[stick] - self.two_alpha * v_T[stick]
        K, R = self.kkt(T, T.G @ v + T.phi_t, W[stick], stick_rhs, b_all, ns + k)
        R[:n, 1:1 + ns] = W[slip].T * (-a_all[slip])
        R[:n, 1 + ns:] = W[free].T
        X, info = kkt_solve(K, R)
        if info:
            self.singular(t, [self.pair_names[i] for i in stick])
        X0, X1, XF = X[:, 0], X[:, 1:1 + ns], X[:, 1 + ns:]
        AR = n + self.abs_rows
        rest = rad + preload
        if AR.size:
            A = X1[AR] @ Wt[slip]
            c = X0[AR] + X1[AR] @ rest[slip]
            sol = np.linalg.solve(np.eye(AR.size) - A * faces, np.column_stack((c, XF[AR])))
            lam0, L = sol[:, 0], sol[:, 1:]
            signed0, signed1 = faces * lam0, faces[:, None] * L
            ns0 = Wt[slip] @ signed0 + rest[slip]
            ns1 = Wt[slip] @ signed1
            n0 = Wt[free] @ signed0 + rest[free]
            Nf = Wt[free] @ signed1
        else:
            lam0, L = _EMPTY, np.zeros((0, k))
            ns0, ns1 = rest[slip], np.zeros((ns, k))
            n0, Nf = rest[free], np.zeros((k, k))
        x0 = X0 + X1 @ ns0
        x1 = XF + X1 @ ns1
        s_dv = kkt_slices(n, self.m)[0]
        a0 = W[free] @ x0[s_dv] + bias[free] + self.two_alpha * v_T[free]
        D = W[free] @ x1[s_dv]
        return a0, D, n0, Nf, lam0, L

    def normal_equation(self, T, v, modes, Wt, preload) -> tuple[np.ndarray, np.ndarray]:
        """The absolute value equation ``lambda_abs = c + A |lambda_abs|`` of the normal forces
        at the terms ``T`` (no smooth laws, no radial loads; ``modes`` (p,), ``Wt`` (p, k),
        ``preload`` (p,) N): ``(A, c)``, shapes (k, k) and (k,) over the load rows."""
        n = self.n_v
        modes = np.asarray(modes, dtype=float)
        slip = np.flatnonzero(modes != 0.0)
        K, R = self.kkt(T, T.G @ v + T.phi_t, T.W[:0], None, np.zeros(T.W.shape[0]),
                        slip.size)
        R[:n, 1:] = T.W[slip].T * (-(self.mu[slip] * modes[slip]))
        X = np.linalg.solve(K, R)
        AR = n + self.abs_rows
        return X[AR, 1:] @ Wt[slip], X[AR, 0] + X[AR, 1:] @ preload[slip]
