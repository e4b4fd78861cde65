"""The dense output of a run: its state ``y(t) = [q, v, z]`` at any time of its span.

``Result.sol`` (scipy's ``OdeSolution`` counterpart): piecewise cubic Hermite interpolation on
the knots of the run, which are its output rows (state and accelerations ``dv``) plus the
states at the run's start and end and at every event and time stop with the accelerations on
both sides of it. Between two knots the coordinates ``q`` are interpolated with their
derivatives ``dq/dt = qdot(q, v)`` (``v`` itself unless the family has a kinematic map) and the
velocities ``v`` with theirs ``dv`` (one-sided at events, where the
acceleration jumps), so the interpolant is continuous, follows every kink of ``v`` at a mode
switch, and is accurate to the output spacing: the error of a cubic Hermite interpolant,
``h^4 max|y''''| / 384`` for knots ``h`` apart (with ``dt`` = 1e-3 s about 1e-12 of the motion's
scale; a coarse ``dt`` or ``t_eval`` gives a coarse dense output). The smooth laws' internal
states ``z`` are interpolated linearly. No per-step coefficients are stored.
"""

from __future__ import annotations

import numpy as np

from ..core.layout import StateLayout

__all__ = ["DenseOutput"]


class DenseOutput:
    """``y(t)`` of a run, callable: ``sol(t)`` for a scalar ``t`` returns shape ``(n_states,)``,
    for an array of k times shape ``(n_states, k)`` (as ``scipy.integrate.OdeSolution``);
    ``n_states = n_q + n_v + n_z`` in the order of ``Result.y``.

    Parameters
    ----------
    t : ndarray, shape (N,)
        Output times (s).
    q : ndarray, shape (N, n_q)
        Coordinates at the outputs.
    v, dv : ndarray, shape (N, n_v)
        Velocities and accelerations at the outputs.
    z : ndarray, shape (N, n_z)
        Internal states of smooth friction laws.
    knots : sequence of (t, y, dv_before, dv_after)
        Further states of the run (``y`` the integrated state ``[q, v, work, z]``, ``dv`` on
        either side): its start, end, events and time stops.
    layout : StateLayout, optional
        The integrated state's layout (:class:`nonsmooth.core.layout.StateLayout`); default
        the one of the shapes of ``q``, ``v`` and ``z``.
    qdot : callable (q (n_q,), v (n_v,)) -> ndarray (n_q,), optional
        The kinematic map ``dq/dt = H(q) v`` (``System.qdot``) giving the slopes of ``q`` at
        every knot; default ``dq/dt = v`` (which needs ``n_q = n_v``).
    """

    def __init__(self, t, q, v, dv, z, knots=(), layout: StateLayout | None = None,
                 qdot=None):
        if layout is None:
            layout = StateLayout(q.shape[1], v.shape[1], z.shape[1])
        self.layout = L = layout
        self.n_q, self.n_z = L.n_q, L.n_z

        def slope(qs, vs):  # dq/dt of rows (k, n_q), (k, n_v)
            if qdot is None:
                return vs
            out = np.empty(qs.shape)
            for i in range(qs.shape[0]):
                out[i] = qdot(qs[i], vs[i])
            return out

        times = [np.asarray(t, dtype=float)]
        states = [np.hstack([q, v, z])]
        before = [np.hstack([slope(q, v), dv])]
        after = [before[0]]
        for tk, y, d0, d1 in knots:
            y = np.asarray(y, dtype=float)
            qk, vk, zk = y[L.q], y[L.v], y[L.z]
            dq = slope(qk[None, :], vk[None, :])[0]
            times.append(np.array([tk], dtype=float))
            states.append(np.concatenate((qk, vk, zk))[None, :])
            before.append(np.concatenate((dq, d0))[None, :])
            after.append(np.concatenate((dq, d1))[None, :])
        T = np.concatenate(times)
        is_knot = np.concatenate([np.zeros(times[0].size, bool)]
                                 + [np.ones(1, bool)] * (len(times) - 1))
        Y, D0, D1 = (np.vstack(a) for a in (states, before, after))
        order = np.lexsort((~is_knot, T))  # by time; at equal times the knots first
        T, Y, D0, D1, is_knot = T[order], Y[order], D0[order], D1[order], is_knot[order]
        self.t, self.y, self.d_before, self.d_after = self._merge(T, Y, D0, D1, is_knot)

    @staticmethod
    def _merge(T, Y, D0, D1, is_knot):
        """One knot per instant: an output row at a knot's time is dropped (the knot has both
        one-sided derivatives); repeated knots keep the first's left and the last's right
        derivative and the last state."""
        keep_t, keep_y, keep_d0, keep_d1 = [], [], [], []
        i, K = 0, T.size
        while i < K:
            j = i
            tol = 1e-13 * max(1.0, abs(T[i]))
            while j + 1 < K and T[j + 1] - T[i] <= tol:
                j += 1
            group = np.arange(i, j + 1)
            knots = group[is_knot[group]]
            use = knots if knots.size else group
            keep_t.append(T[i])
            keep_y.append(Y[use[-1]])
            keep_d0.append(D0[use[0]])
            keep_d1.append(D1[use[-1]])
            i = j + 1
        return (np.array(keep_t), np.array(keep_y), np.array(keep_d0), np.array(keep_d1))

    @property
    def t_min(self) -> float:
        return float(self.t[0]) if self.t.size else float("nan")

    @property
    def t_max(self) -> float:
        return float(self.t[-1]) if self.t.size else float("nan")

    def __call__(self, t):
        t_arr = np.asarray(t, dtype=float)
        scalar = t_arr.ndim == 0
        t_arr = t_arr.reshape(-1)
        if self.t.size < 2:
            raise ValueError("the run recorded no interval to interpolate on (fewer than two "
                             "states)")
        lo, hi = self.t_min, self.t_max
        tol = 1e-12 * max(1.0, abs(lo), abs(hi))
        if np.any(~np.isfinite(t_arr)) or np.any(t_arr < lo - tol) or np.any(t_arr > hi + tol):
            bad = t_arr[~np.isfinite(t_arr) | (t_arr < lo - tol) | (t_arr > hi + tol)][0]
            raise ValueError(f"sol(t): t = {float(bad)!r} is outside the run's span {lo:g} .. "
                             f"{hi:g} s; the dense output covers only the times the run went "
                             "through")
        t_arr = np.clip(t_arr, lo, hi)
        i = np.clip(np.searchsorted(self.t, t_arr, side="right") - 1, 0, self.t.size - 2)
        t0, t1 = self.t[i], self.t[i + 1]
        h = t1 - t0
        s = (t_arr - t0) / h
        y0, y1 = self.y[i], self.y[i + 1]
        m = self.layout.n_q + self.layout.n_v  # [q, v]: Hermite with [qdot, dv]; z: linear
        h10 = (s * (1 - s) ** 2)[:, None]
        h01 = (s * s * (3 - 2 * s))[:, None]
        h11 = (s * s * (s - 1))[:, None]
        out = y0 + (s[:, None] * (y1 - y0))  # linear (the states z)
        out[:, :m] = (y0[:, :m] + h01 * (y1[:, :m] - y0[:, :m])
                      + h[:, None] * (h10 * self.d_after[i] + h11 * self.d_before[i + 1]))
        out = out.T
        return out[:, 0] if scalar else out
