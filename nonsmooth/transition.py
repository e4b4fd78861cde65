"""The transition problem at a stick/slip event, by pivoting (no ``3^k`` enumeration).

At an event the pairs at zero sliding velocity (the *candidates*) each take a mode: stick
(``0``), slip+ (``+1``) or slip- (``-1``). The engine's semantics (``docs/method.md`` section 8,
:meth:`nonsmooth.dynamics.Dynamics.transition`) call a mode combination *consistent* when, in
the full evaluation at those modes,

* every sticking pair holds: ``|F_T,i| <= mu_s,i |N_i|`` (and the stick rows are admissible:
  not made redundant by the drives, :meth:`~nonsmooth.dynamics.Dynamics.can_stick`);
* every slipping pair accelerates the way it slips: ``s_i a_T,i > 0`` (its friction is the
  dynamic one, ``F_T,i = -mu_d,i s_i N_i``),

and choose, among the consistent combinations, the one of least total preference rank (each
candidate's modes in the order of ``options``, default stick, slip+, slip-).

Formulation (Pfeiffer & Glocker 1996, ch. 7, the friction-saturation LCP of the transition)
--------------------------------------------------------------------------------------------
Let ``F`` (k) be the friction forces of the ``k`` free candidates, applied as external forces
(``M dv/dt = f + G^T lambda + W^T F_T``). One KKT solve with ``1 + p_slip + k`` right-hand
sides, the loads' absolute values linearized on their current faces
``|lambda_abs| = Phi lambda_abs`` (``Phi = diag(faces)``, from the current evaluation) and
the radial (revolute) loads frozen, makes everything affine in ``F``::

    a_T = a0 + D F            tangential accelerations (+ 2 alpha v_T, the stick rows' damping)
    N   = n0 + Nf F           normal loads of the candidates
    lambda_abs = l0 + L F     load rows (their signs are checked against Phi)

With the saturation variables ``r = mu_s N + F >= 0`` (reserve towards slip-) and the split
``a_T = a+ - a-`` the transition is the LCP (``E = (I + mu_s Nf)^-1``)::

    a+             = (a0 - D E mu_s n0) + D E r + a-           >= 0  _|_  r  >= 0
    2 mu_s N - r   = 2 mu_s (n0 - Nf E mu_s n0) + (2 mu_s Nf E - I) r   >= 0  _|_  a- >= 0

i.e. ``w = [[D E, I], [2 mu_s Nf E - I, 0]] z + q`` with ``z = (r, a-)``, ``w = (a+, 2 mu_s N -
r)``; ``F = E (r - mu_s n0)``. Without load coupling (``Nf = 0``) the matrix is
``[[D, I], [-I, 0]]``, positive semidefinite for the (symmetric PSD) Delassus matrix ``D``, and
Lemke's method solves it or proves it infeasible (Cottle, Pang & Stone 2009, Thm 4.4.13). A pair
with ``a_T = 0`` sticks; otherwise it slips in the sign of ``a_T``.

Static and dynamic coefficients (``mu_s > mu_d``): a pair that slips at the static bound slips
with ``mu_d`` after the event, which may overload its neighbours. The *cascade* moves the pairs
found slipping into a fixed slipping set (``F_i = -mu_d s_i N_i``, an affine constraint on
``F``) and solves the LCP of the remaining ones again, until no further pair breaks loose (at
most ``k`` LCPs, no KKT solve). Candidates whose first preference is to slip (a pair whose
friction reserve just ran out: ``options = (s, 0)``) start in that set.

Verification and local search
-----------------------------
The linearization is exact for fixed faces and without radial loads, but the LCP's answer is
a *proposal*: it is accepted only after a full :meth:`~nonsmooth.dynamics.Dynamics.evaluate`
at the proposed modes passes the consistency checks above. A failed check is repaired locally
(bounded, not ``3^k``): a sticking pair beyond its bound is set to slip against its friction
force; a slipping pair that does not accelerate its way is set to stick (or to the other
direction), unless it is held by sticking pairs (its row depends on theirs), which then slip
the way they tend to without friction; stick rows found redundant by a rank-revealing
factorization of ``[G; W_stick]`` (one SVD, then Gram-Schmidt) slip with their dependency
group. The repaired pairs are fixed and the LCP of the others is solved again at the new
loads (at most ``2 k + 4`` rounds). A consistent answer is then improved greedily in
preference rank: a candidate moves to a more preferred mode when the linearization at the
answer's loads predicts the result consistent (one ``k x k`` solve per move tried) and a full
evaluation confirms it (this finds, e.g., one pair holding while its inertially coupled
neighbour slips instead of both slipping). Without an answer: ``ModeError`` (or the jamming
error met on the way), saying that the search is not exhaustive.

For ``k <= certify_max`` (default 3) the answer is then certified by enumerating the
combinations of rank not above it (at most ``3^3 = 27`` evaluations, most of them cached):
this reproduces the enumeration's answer exactly, including the indeterminacy (``ModeError``
for two equally preferred consistent combinations). For larger ``k`` the answer is consistent
(it passed the checks) and no single candidate can move to a more preferred consistent mode
(predicted by the linearization), but its preference is not certified against every other
consistent combination: with ``mu_s > mu_d`` the law is not monotone and the consistent
combinations of least rank are a combinatorial question. (Measured: on random inertially
coupled problems with 3-5 pairs about 1 % of the answers are consistent combinations of higher
rank than the enumeration's; on blocks on belts and rods in slots, none.)

References
----------
Pfeiffer F., Glocker C., *Multibody Dynamics with Unilateral Contacts*, Wiley (1996), ch. 7
(transitions stick-slip, friction saturation); Glocker C., *Set-Valued Force Laws*, Springer
(2001); Cottle R.W., Pang J.-S., Stone R.E., *The Linear Complementarity Problem* (2009),
section 4.4 (Lemke's method).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .errors import ConstraintError, InconsistentLCPError, ModeError, NonsmoothError

__all__ = ["solve_transition", "enumerate_transition", "saturation_lcp", "Linearization",
           "TRANSITION_CERTIFY_MAX", "mode_text"]

TRANSITION_CERTIFY_MAX = 3
"""Up to this many candidates the pivoting answer is certified by (rank-bounded) enumeration."""

DEFAULT_OPTIONS = (0.0, 1.0, -1.0)
"""Default preference of a candidate: stick, then slip+, then slip-."""

_CLASSIFY = 1e-9  # |a_T| below this (relative) counts as zero in the LCP's answer


def mode_text(m: float) -> str:
    """``"slip+"``, ``"slip-"`` or ``"stick"``."""
    return {1.0: "slip+", -1.0: "slip-", 0.0: "stick"}[float(m)]


@dataclass
class Linearization:
    """The transition problem made affine in the free candidates' friction forces ``F`` (k).

    Attributes
    ----------
    a0 : ndarray, shape (k,)
        Tangential accelerations plus ``2 alpha v_T`` at ``F = 0`` (m/s^2).
    D : ndarray, shape (k, k)
        ``d a_T / d F`` (the Delassus matrix of the candidates, plus load coupling).
    n0 : ndarray, shape (k,)
        Normal loads of the candidates at ``F = 0`` (N).
    Nf : ndarray, shape (k, k)
        ``d N / d F`` on the current faces.
    lam0 : ndarray, shape (r,)
        The load rows ``lambda_abs`` at ``F = 0``.
    L : ndarray, shape (r, k)
        ``d lambda_abs / d F``.
    faces : ndarray, shape (r,)
        The faces (+1 / -1) the linearization assumed.
    """

    a0: np.ndarray
    D: np.ndarray
    n0: np.ndarray
    Nf: np.ndarray
    lam0: np.ndarray
    L: np.ndarray
    faces: np.ndarray


def saturation_lcp(lin: Linearization, mu_s: np.ndarray, mu_d: np.ndarray, free, slipping,
                   signs, *, couple: bool = True):
    """Solve the friction-saturation LCP for the pairs ``free``, the pairs ``slipping`` fixed.

    Parameters
    ----------
    lin : Linearization
        Affine model over ``k`` friction forces.
    mu_s, mu_d : ndarray, shape (k,)
        Static and dynamic coefficients of the ``k`` pairs.
    free : sequence of int
        Positions (in ``0..k-1``) decided by the LCP (bounds ``|F| <= mu_s N``).
    slipping : sequence of int
        Positions slipping with ``F = -mu_d s N``.
    signs : sequence of float
        Slip direction ``s`` of each of ``slipping``.
    couple : bool
        Keep the load coupling ``Nf``; False freezes the loads at ``n0`` (positive
        semidefinite LCP matrix for a symmetric PSD ``D``).

    Returns
    -------
    (F, a) or None
        Friction forces (k,) and accelerations ``a0 + D F`` (k,) at the LCP's certified
        solution (Lemke, residual <= 1e-10); None when pivoting found none.
    """
    from .lcp import solve_lcp

    k = lin.a0.size
    R = np.asarray(free, dtype=int)
    S = np.asarray(slipping, dtype=int)
    D = lin.D
    Nf = lin.Nf if couple else np.zeros_like(lin.Nf)
    n0 = lin.n0 if couple else np.maximum(lin.n0, 0.0)
    if S.size:  # F_S = -mu_d s (n0_S + Nf_S F) solved for F_S: F_S = g0 + g1 F_R
        sig = mu_d[S] * np.asarray(signs, dtype=float)
        H = np.eye(S.size) + sig[:, None] * Nf[np.ix_(S, S)]
        rhs = -sig[:, None] * np.column_stack((n0[S], Nf[np.ix_(S, R)]))
        try:
            g = np.linalg.solve(H, rhs)
        except np.linalg.LinAlgError:
            return None
        g0, g1 = g[:, 0], g[:, 1:]
    else:
        g0, g1 = np.zeros(0), np.zeros((0, R.size))
    F = np.zeros(k)
    if R.size:
        a0h = lin.a0[R] + D[np.ix_(R, S)] @ g0
        Dh = D[np.ix_(R, R)] + D[np.ix_(R, S)] @ g1
        n0h = n0[R] + Nf[np.ix_(R, S)] @ g0
        Nfh = Nf[np.ix_(R, R)] + Nf[np.ix_(R, S)] @ g1
        mu = mu_s[R]
        kr = R.size
        eye = np.eye(kr)
        try:
            E = np.linalg.inv(eye + mu[:, None] * Nfh)
        except np.linalg.LinAlgError:
            return None
        DE = Dh @ E
        mun = mu * n0h
        M = np.block([[DE, eye], [2.0 * mu[:, None] * (Nfh @ E) - eye, np.zeros((kr, kr))]])
        q = np.concatenate((a0h - DE @ mun, 2.0 * mu * (n0h - Nfh @ (E @ mun))))
        res = solve_lcp(M, q, method="lemke")
        if not res.success:
            res = solve_lcp(M, q, method="lemke", covering="random")
            if not res.success:
                return None
        F[R] = E @ (res.z[:kr] - mun)
    if S.size:
        F[S] = g0 + g1 @ F[R]
    return F, lin.a0 + D @ F


#: Velocities and accelerations below this (times max(1, |q|)) are a mechanism at rest.
_AT_REST = 1e-8


@dataclass
class _Check:
    """Outcome of the consistency check of one mode combination."""

    ok: bool
    ev: object = None          # the Evaluation (None when it raised or was not admissible)
    a_T: np.ndarray | None = None
    error: Exception | None = None
    stick_inadmissible: bool = False
    violations: tuple = ()     # (candidate, kind) with kind "bound" or "accel"


class _Transition:
    """One transition problem: the candidates, their options, the checks and their cache."""

    def __init__(self, dyn, t, q, v, modes, candidates, options, z, tol):
        self.dyn, self.t, self.q, self.v, self.z, self.tol = dyn, t, q, v, z, tol
        self.modes = np.array(modes, dtype=float)
        self.candidates = list(candidates)
        options = options or {}
        self.choice = [tuple(float(m) for m in options.get(i, DEFAULT_OPTIONS))
                       for i in self.candidates]
        self.cache: dict[tuple, _Check] = {}
        self.last_error: Exception | None = None
        self.evaluations = 0

    # ---------------------------------------------------------------- consistency
    def trial(self, combo_modes) -> np.ndarray:
        trial = self.modes.copy()
        trial[self.candidates] = combo_modes
        return trial

    def check(self, combo_modes) -> _Check:
        """The enumeration's consistency test of one combination (cached)."""
        key = tuple(float(m) for m in combo_modes)
        if key in self.cache:
            return self.cache[key]
        dyn, t, q, v = self.dyn, self.t, self.q, self.v
        trial = self.trial(key)
        sticking = np.flatnonzero(trial == 0.0)
        if sticking.size and not dyn.can_stick(t, q, v, sticking):
            out = _Check(False, stick_inadmissible=True)
            self.cache[key] = out
            return out
        self.evaluations += 1
        try:
            ev = dyn.evaluate(t, q, v, trial, None, self.z)
        except (ConstraintError, InconsistentLCPError) as exc:
            self.last_error = exc
            out = _Check(False, error=exc)
            self.cache[key] = out
            return out
        a_T = dyn.tangential_acceleration(t, q, v, ev)
        scale = max(1.0, float(np.max(np.abs(ev.dv))))
        mu_s = dyn.mu_s
        violations = []
        for i in self.candidates:
            if trial[i] == 0.0:
                bound = mu_s[i] * abs(ev.N[i])
                if not abs(ev.F_T[i]) <= bound * (1 + 1e-9) + 1e-12 * max(1.0, bound):
                    violations.append((i, "bound"))
            elif not trial[i] * a_T[i] > self.tol * scale:
                violations.append((i, "accel"))
        out = _Check(not violations, ev, a_T, violations=tuple(violations))
        self.cache[key] = out
        return out

    # ---------------------------------------------------------------- the pivoting search
    def reference(self, ev):
        """Faces and radial loads of an evaluation (the point of linearization)."""
        dyn = self.dyn
        faces = np.where(ev.lam_abs >= 0.0, 1.0, -1.0)
        rad = (dyn._radial_norms(np.concatenate((ev.dv, ev.lam))) if dyn._radial
               else np.zeros(dyn.p))
        return faces, rad

    def propose(self, fixed: dict, faces, rad):
        """Modes of all candidates: ``fixed`` as given, the others from the LCP cascade.

        Returns (combo modes, predicted accelerations of the free candidates by candidate) or
        None when the linearization or the LCP failed."""
        dyn, cands = self.dyn, self.candidates
        free = [i for i in cands if i not in fixed]
        base = self.modes.copy()
        for i, m in fixed.items():
            base[i] = m
        combo = {i: fixed.get(i, 0.0) for i in cands}
        if not free:
            return [combo[i] for i in cands], {}
        lin = None
        for _ in range(4):  # faces of the linearization consistent with its answer
            try:
                lin = dyn._transition_linearization(self.t, self.q, self.v, base, free,
                                                    self.z, faces, rad)
            except (ConstraintError, np.linalg.LinAlgError):
                return None
            out = self.cascade(lin, free)
            if out is None:
                return None
            F, a, slips = out
            if not lin.lam0.size:
                break
            lam = lin.lam0 + lin.L @ F
            thr = 1e-9 * max(1.0, float(np.max(np.abs(lam))))
            wrong = (np.sign(lam) != faces) & (np.abs(lam) > thr)
            if not np.any(wrong):
                break
            faces = np.where(wrong, -faces, faces)
        pos = {i: j for j, i in enumerate(free)}
        thr = _CLASSIFY * max(1.0, float(np.max(np.abs(lin.a0))), float(np.max(np.abs(a))))
        pred = {i: (float(a[pos[i]]) if abs(a[pos[i]]) > thr else 0.0, float(lin.a0[pos[i]]))
                for i in free}
        for i in free:
            combo[i] = slips.get(pos[i], 0.0)
        return [combo[i] for i in cands], pred

    def cascade(self, lin: Linearization, free):
        """The LCP at static bounds, then again with the pairs found slipping at ``mu_d``."""
        dyn = self.dyn
        mu_s, mu_d = dyn.mu_s[free], dyn._mu[free]
        allowed = [self.choice[self.candidates.index(i)] for i in free]
        R = list(range(len(free)))
        slips: dict[int, float] = {}
        out = None
        for _ in range(len(free) + 1):
            S = sorted(slips)
            args = (lin, mu_s, mu_d, R, S, [slips[j] for j in S])
            out = saturation_lcp(*args) or saturation_lcp(*args, couple=False)
            if out is None:
                return None
            F, a = out
            thr = _CLASSIFY * max(1.0, float(np.max(np.abs(lin.a0))), float(np.max(np.abs(a))))
            new = [j for j in R if abs(a[j]) > thr and float(np.sign(a[j])) in allowed[j]]
            if not new:
                break
            for j in new:
                slips[j] = float(np.sign(a[j]))
                R.remove(j)
        F, a = out
        return F, a, slips

    def _stick_basis(self, combo):
        """Rows of ``G`` and of the non-candidate sticking pairs, an orthonormal basis of
        their span (one SVD), the sticking candidates (most preferred stickers first), ``W``."""
        T = self.dyn.terms(self.t, self.q, self.v)
        trial = self.trial(combo)
        cands = set(self.candidates)
        others = [i for i in np.flatnonzero(trial == 0.0) if i not in cands]
        base = np.vstack((T.G, T.W[others])) if others else T.G
        if base.shape[0]:
            _, s, vt = np.linalg.svd(base, full_matrices=False)
            top = float(s[0]) if s.size else 0.0
            basis = list(vt[s > 1e-9 * max(1.0, top)])
        else:
            top, basis = 0.0, []
        order = sorted((i for i in self.candidates if trial[i] == 0.0),
                       key=lambda i: self.choice[self.candidates.index(i)].index(0.0))
        return base, top, basis, order, T.W

    @staticmethod
    def _group(row, base, kept, W) -> list[int]:
        """The candidates in ``kept`` whose stick rows ``row`` depends on (least squares on
        ``[base; W[kept]]``, significant coefficients)."""
        if not kept:
            return []
        rows = np.vstack((base, W[kept])) if base.shape[0] else W[kept]
        coef = np.linalg.lstsq(rows.T, row, rcond=None)[0][-len(kept):]
        norms = np.linalg.norm(W[kept], axis=1)
        size = max(1.0, float(np.linalg.norm(row)))
        return [j for j, cj, nj in zip(kept, coef, norms, strict=True)
                if abs(cj) * nj > 1e-9 * size]

    def redundant_sticks(self, combo) -> list[int]:
        """Candidates to unstick when the stick rows of ``combo`` are dependent.

        Rank-revealing: one SVD of ``[G; W of the non-candidate sticking pairs]``, then
        Gram-Schmidt over the sticking candidates' rows, the most preferred stickers first. A
        row found dependent is returned with the candidates whose rows it depends on (its
        dependency group): sticking any of them immobilizes the others, so the group slips."""
        base, top, basis, order, W = self._stick_basis(combo)
        kept: list[int] = []
        out: list[int] = []
        for i in order:
            w = W[i].copy()
            for b in basis:
                w -= (w @ b) * b
            norm = float(np.linalg.norm(w))
            if norm > 1e-9 * max(1.0, top, float(np.linalg.norm(W[i]))):
                basis.append(w / norm)
                kept.append(i)
                continue
            out += [j for j in [i, *self._group(W[i], base, kept, W)] if j not in out]
        return out

    def locking(self, i, combo) -> list[int]:
        """The sticking candidates that lock the slipping pair ``i`` (its row depends on
        theirs and the constraints: it cannot move while they stick)."""
        base, top, basis, order, W = self._stick_basis(combo)
        if not order:
            return []
        B = np.array(basis).reshape(-1, W.shape[1])
        w = W[i] - (W[i] @ B.T) @ B  # the parts off the span of G and the fixed stick rows
        stick = W[order] - (W[order] @ B.T) @ B
        coef, *_ = np.linalg.lstsq(stick.T, w, rcond=None)
        if np.linalg.norm(stick.T @ coef - w) > 1e-9 * max(1.0, top, float(np.linalg.norm(W[i]))):
            return []
        return self._group(W[i], base, order, W)

    def search(self):
        """LCP proposal, full check, bounded local repair. Returns combo modes or None."""
        cands, choice = self.candidates, self.choice
        k = len(cands)
        index = {i: j for j, i in enumerate(cands)}
        fixed = {i: choice[j][0] for j, i in enumerate(cands) if choice[j][0] != 0.0}
        tried: dict[int, set] = {i: set() for i in cands}
        try:
            faces, rad = self.reference(self.dyn.evaluate(self.t, self.q, self.v, self.modes,
                                                          None, self.z))
        except (NonsmoothError, np.linalg.LinAlgError):  # the incoming modes may not evaluate
            faces = np.ones(self.dyn.system.abs_rows.size)
            rad = np.zeros(self.dyn.p)
        budget = 2 * k + 4
        pred: dict[int, tuple] = {}  # candidate -> (LCP's a_T, frictionless a_T)
        while budget > 0:
            proposal = self.propose(fixed, faces, rad)
            if proposal is None:
                combo = [fixed.get(i, choice[index[i]][0]) for i in cands]
            else:
                combo, new_pred = proposal
                pred.update(new_pred)
            key = tuple(combo)
            seen = key in self.cache
            result = self.check(combo)
            budget -= 1
            if result.ok:
                return self.improve(combo)
            if seen and not (result.stick_inadmissible or result.error is not None):
                return None  # the repair went round in a circle
            if result.ev is not None:
                faces, rad = self.reference(result.ev)
            changes = self.repairs(combo, result, tried, pred)
            if result.error is not None and not changes:
                changes = self.neighbour_without_error(combo, tried)
                budget -= k
            if not changes:
                return None
            for i, m in changes.items():
                tried[i].add(combo[index[i]])
                fixed[i] = m
        return None

    def predict(self, lin: Linearization, combo) -> bool:
        """Whether ``combo`` (modes of all candidates, all free in ``lin``) looks consistent
        in the linearization: stick rows ``a_T = 0``, slip rows ``F = -mu_d s N`` solved
        together (one k x k system), then the bounds and the slip directions checked with a
        margin (the full check decides)."""
        dyn, cands = self.dyn, self.candidates
        m = np.asarray(combo, dtype=float)
        st, sl = m == 0.0, m != 0.0
        k = m.size
        sig = dyn._mu[cands] * m
        mat = np.where(st[:, None], lin.D, np.eye(k) + sig[:, None] * lin.Nf)
        rhs = np.where(st, -lin.a0, -sig * lin.n0)
        try:
            F = np.linalg.solve(mat, rhs)
        except np.linalg.LinAlgError:
            return False  # dependent stick rows: not admissible
        a = lin.a0 + lin.D @ F
        N = np.abs(lin.n0 + lin.Nf @ F)
        margin = 1e-6
        f_scale = max(1.0, float(np.max(np.abs(F))))
        a_scale = max(1.0, float(np.max(np.abs(lin.a0))))
        bound = dyn.mu_s[cands] * N * (1 + margin) + margin * f_scale
        return bool(np.all(np.abs(F[st]) <= bound[st])
                    and np.all(m[sl] * a[sl] > -margin * a_scale))

    def improve(self, combo):
        """Greedy descent in preference rank from a consistent combination: a candidate moves
        to a more preferred mode when the linearization at the current loads predicts the
        result consistent and the full check confirms it (each move lowers the rank, so at
        most ``2 k`` moves; each pass is one KKT solve and ``<= 2 k`` small solves)."""
        cands, choice = self.candidates, self.choice
        while True:
            result = self.check(combo)
            faces, rad = self.reference(result.ev)
            try:
                lin = self.dyn._transition_linearization(self.t, self.q, self.v, self.modes,
                                                         cands, self.z, faces, rad)
            except (ConstraintError, np.linalg.LinAlgError):
                return combo
            better = None
            for j in range(len(cands)):
                for option in choice[j][:choice[j].index(combo[j])]:
                    trial = list(combo)
                    trial[j] = option
                    if self.predict(lin, trial) and self.check(trial).ok:
                        better = trial
                        break
                if better is not None:
                    break
            if better is None:
                return combo
            combo = better

    def next_option(self, i, current, tried, prefer=None):
        """The mode to try next for candidate ``i`` (``prefer`` first if allowed)."""
        opts = self.choice[self.candidates.index(i)]
        used = tried[i] | {current}
        if prefer is not None and prefer in opts and prefer not in used:
            return prefer
        for m in opts:
            if m not in used:
                return m
        return None

    def repairs(self, combo, result: _Check, tried, pred) -> dict:
        """Local changes that address the violations of a failed check."""
        cands = self.candidates
        mode = dict(zip(cands, combo, strict=True))
        changes = {}
        if result.stick_inadmissible:
            for i in self.redundant_sticks(combo):
                a = pred.get(i, (0.0, 0.0))
                a = a[0] if a[0] != 0.0 else a[1]  # predicted, else frictionless tendency
                prefer = float(np.sign(a)) if a != 0.0 else None
                m = self.next_option(i, 0.0, tried, prefer)
                if m is not None:
                    changes[i] = m
            return changes
        scale = max(1.0, float(np.max(np.abs(result.ev.dv)))) if result.violations else 1.0
        unlock: dict = {}
        for i, kind in result.violations:
            if kind == "bound":  # slips against its friction force
                prefer = -float(np.sign(result.ev.F_T[i])) or None
            elif abs(result.a_T[i]) <= self.tol * scale and (lock := self.locking(i, combo)):
                for j in lock:  # held by sticking pairs: they slip (frictionless tendency)
                    a = pred.get(j, (0.0, 0.0))
                    a = a[0] if a[0] != 0.0 else a[1]
                    m = self.next_option(j, 0.0, tried, float(np.sign(a)) if a else None)
                    if m is not None:
                        unlock[j] = m
                continue
            else:  # does not accelerate its way: stick, else the other way
                prefer = 0.0
            m = self.next_option(i, mode[i], tried, prefer)
            if m is not None:
                changes[i] = m
        # a pair held by others says nothing about the rest: free it first, then re-check
        return unlock or changes

    def neighbour_without_error(self, combo, tried) -> dict:
        """After an evaluation error: the first single change of a slipping candidate that
        evaluates (the error, e.g. jamming, came with one of the slip directions)."""
        for j, i in enumerate(self.candidates):
            if combo[j] == 0.0:
                continue
            m = self.next_option(i, combo[j], tried)
            if m is None:
                continue
            trial = list(combo)
            trial[j] = m
            if self.check(trial).error is None:
                return {i: m}
        return {}

    # ---------------------------------------------------------------- enumeration
    def enumerate(self, max_rank=None):
        """The enumeration's answer over the combinations of rank <= ``max_rank``: the
        consistent combinations of least rank (a list; several = indeterminacy)."""
        ranges = [range(len(c)) for c in self.choice]
        ranked = sorted((sum(combo), combo) for combo in itertools.product(*ranges)
                        if max_rank is None or sum(combo) <= max_rank)
        found, best, last_error = [], None, None
        for rank, combo in ranked:
            if best is not None and rank > best:
                break
            modes = [opts[j] for opts, j in zip(self.choice, combo, strict=True)]
            result = self.check(modes)
            if result.error is not None:
                last_error = result.error
            if result.ok:
                found.append(modes)
                best = rank
        self.last_error = last_error
        return found

    def rank(self, combo) -> int:
        return sum(opts.index(m) for opts, m in zip(self.choice, combo, strict=True))

    def raise_none(self, exhaustive: bool):
        if isinstance(self.last_error, InconsistentLCPError):
            raise self.last_error
        singular = self._singular_without_sticking()
        if singular is not None:  # redundant constraints, whatever the friction does
            raise singular
        names = [self.dyn.system.pairs[i].name for i in self.candidates]
        how = ("" if exhaustive else
               f" (found by the pivoting transition and a local search of {self.evaluations} "
               f"evaluations; not exhaustive for more than {TRANSITION_CERTIFY_MAX} pairs)")
        raise ModeError(
            f"at t = {self.t:.10g} s no consistent mode (stick, slip+, slip-) exists for pairs "
            f"{names}{how}: the contact problem has no solution here; check mu, mu_s and the "
            "geometry")

    def held_by_constraints(self) -> list | None:
        """The modes of candidates the constraints hold at rest, or None.

        A candidate whose stick row is a combination of the constraint rows (a driven
        mechanism without a degree of freedom: :meth:`Dynamics.can_stick` is False) cannot
        stick, and when the drives keep it at rest (``a_T = 0`` in its slip modes) it cannot
        slip either: no combination passes the checks although the motion is determined. With
        no normal load its friction force is zero whatever its mode, and the first slip option
        is the answer; with a load the force is anywhere in ``[-mu_s N, mu_s N]`` (statically
        indeterminate) and a :class:`ModeError` says so."""
        dyn, t, q, v, cands = self.dyn, self.t, self.q, self.v, self.candidates
        if not cands or any(dyn.can_stick(t, q, v, [i]) for i in cands):
            return None
        combo = [next((m for m in opts if m != 0.0), 1.0) for opts in self.choice]
        out = self.check(combo)
        if out.ev is None or out.a_T is None:
            return None
        at_rest = _AT_REST * max(1.0, float(np.max(np.abs(q))) if q.size else 1.0)
        if np.any(np.abs(v) > at_rest) or np.any(np.abs(out.ev.dv) > at_rest):
            return None  # moving: the drives do not hold the mechanism still
        scale = max(1.0, float(np.max(np.abs(out.ev.dv))))
        if any(abs(out.a_T[i]) > self.tol * scale or kind != "accel"
               for i, kind in out.violations):
            return None
        if out.ok:
            return combo
        loaded = [i for i in cands
                  if dyn.mu_s[i] * abs(out.ev.N[i]) > 1e-12 * max(1.0, scale)]
        if loaded:
            names = [dyn.system.pairs[i].name for i in loaded]
            bounds = ", ".join(f"{dyn.mu_s[i] * abs(out.ev.N[i]):.6g} N" for i in loaded)
            raise ModeError(
                f"at t = {self.t:.10g} s pairs {names} are held at rest by the constraints "
                f"(their sliding is fixed by {dyn.system.constraint_names}: the driven "
                "mechanism has no degree of freedom) under a normal load: the friction force is "
                f"statically indeterminate (anything up to mu_s N = {bounds} holds them); "
                "give the drive a nonzero speed or free a degree of freedom")
        return combo

    def _singular_without_sticking(self) -> ConstraintError | None:
        """The :class:`ConstraintError` of a combination in which no pair sticks: the KKT
        matrix of the constraints alone is singular (redundant constraints, e.g. two drivers
        on one joint), so no friction mode can help and the cause is not the friction."""
        for key, out in self.cache.items():
            if isinstance(out.error, ConstraintError) and not np.any(self.trial(key) == 0.0):
                return out.error
        return None

    def raise_several(self, found):
        names = [self.dyn.system.pairs[i].name for i in self.candidates]
        raise ModeError(
            f"at t = {self.t:.10g} s pairs {names} have several equally admissible modes "
            f"{[[mode_text(m) for m in f] for f in found]} (friction-induced "
            "indeterminacy); reduce mu")


def solve_transition(dyn, t, q, v, modes, candidates, *, options=None, z=None, tol=1e-9,
                     certify_max: int | None = None) -> np.ndarray:
    """The modes after a stick/slip event: friction-saturation LCP, verified (module docstring).

    Parameters
    ----------
    dyn : nonsmooth.dynamics.Dynamics
    t : float
    q, v : ndarray, shape (n_q,)
    modes : ndarray, shape (p,)
        Current modes; non-candidates keep theirs.
    candidates : sequence of int
        The pairs at rest to decide.
    options : dict int -> tuple, optional
        Preference order of the modes of a candidate (default stick, slip+, slip-).
    z : ndarray, optional
        Internal states of the smooth laws.
    tol : float
        A slipping pair must have ``s a_T > tol max(1, |dv/dt|)``.
    certify_max : int, optional
        Certify by enumeration up to this many candidates (default
        :data:`TRANSITION_CERTIFY_MAX`; 0: never).

    Returns
    -------
    ndarray, shape (p,)
        The new modes.

    Raises
    ------
    ModeError
        No consistent combination (found), or two equally preferred ones (certified cases).
    InconsistentLCPError
        The jamming error met on the way when nothing consistent was found.
    """
    problem = _Transition(dyn, t, q, v, modes, candidates, options, z, tol)
    k = len(problem.candidates)
    limit = TRANSITION_CERTIFY_MAX if certify_max is None else int(certify_max)
    if k == 1 and limit >= 1:  # one pair: its options in preference order (at most three
        found = None           # evaluations) are the answer, no pivoting needed
    else:
        found = problem.search() if k else [] if problem.check([]).ok else None
    if k <= limit:
        answers = problem.enumerate(None if found is None else problem.rank(found))
        if not answers:
            answers = [_held_or_none(problem, exhaustive=True)]
        if len(answers) > 1:
            problem.raise_several(answers)
        found = answers[0]
    if found is None:
        found = _held_or_none(problem, exhaustive=False)
    return problem.trial(found)


def _held_or_none(problem: _Transition, exhaustive: bool) -> list:
    """No combination passed: the modes of pairs the constraints hold at rest
    (:meth:`_Transition.held_by_constraints`), else the error saying why none exists."""
    held = problem.held_by_constraints()
    if held is None:
        problem.raise_none(exhaustive=exhaustive)
    return held


def enumerate_transition(dyn, t, q, v, modes, candidates, *, options=None, z=None,
                         tol=1e-9) -> np.ndarray:
    """The transition by exhaustive enumeration of the ``3^k`` combinations (a certificate
    for small ``k``; same arguments, result and errors as :func:`solve_transition`)."""
    problem = _Transition(dyn, t, q, v, modes, candidates, options, z, tol)
    answers = problem.enumerate()
    if not answers:
        answers = [_held_or_none(problem, exhaustive=True)]
    if len(answers) > 1:
        problem.raise_several(answers)
    return problem.trial(answers[0])
