"""The seven-parameter bristle law with dwell-time stiction (``docs/method.md`` section 4.4).

After the description in Y. Gonthier's thesis (Waterloo, 2007) and Y. Gonthier, J. McPhee,
C. Lange, J.-C. Piedboeuf, "A regularized contact model with asymmetric damping and dwell-time
dependent friction", Multibody System Dynamics 11 (2004) 209-233: a bristle (stiction) force
whose stiffness and damping scale with the normal load, blended with a sliding force, and a
stiction level that grows with the time spent stuck. The equations are the project's own
specification of a law with those properties (written out in ``docs/method.md`` section
4.4), not Gonthier's equations, which we do not have::

    beta(v) = exp(-(|v| / v_s)^2)                  blend: 1 at rest, 0 when sliding
    mu_st   = mu_d + (mu_s - mu_d) w               the current stiction level
    dz/dt   = v - sigma0 |v| z / mu_st             bristle deflection (m; load-free)
    dw/dt   = (beta(v) - w) / tau_dw               dwell state in [0, 1]
    F_stick = -N (sigma0 z + sigma1 dz/dt)         stiffness sigma0 N, damping sigma1 N
    F_slide = -N mu_d v / max(|v|, eps) - mu_v v
    F       = beta F_stick + (1 - beta) F_slide

so, as ``F_T = -a N - b``: ``a = beta (sigma0 z + sigma1 dz/dt) + (1 - beta) mu_d v /
max(|v|, eps)`` and ``b = (1 - beta) mu_v v``. On a pair of dimension d the slip ``v`` and
the bristle ``z`` are d-vectors and ``|v|`` the slip speed; the dwell state ``w`` is one number.
The states of a pair are ``(z_1 .. z_d, w)``: ``d + 1`` (:meth:`Bristle.state_size`).

Our choices where the specification is silent:

* ``eps = 1e-6 v_s`` (:data:`EPS_FRACTION`): below it the sliding direction is ``v / eps``;
  its weight ``1 - beta ~ (|v| / v_s)^2`` makes the difference from ``sgn(v)`` at most 1e-12
  of ``mu_d N``;
* ``1 - beta`` is evaluated as ``-expm1(-(|v| / v_s)^2)`` (accurate at small slip);
* the state at the start of a run is the steady state of the slip velocity there: at rest
  ``z = 0`` and ``w = 1`` (a pair at rest has dwelt long: full stiction ``mu_s``), sliding at
  ``v`` ``w = beta(v)`` and ``z = mu_st(w) v / (sigma0 |v|)``;
* ``mu_v`` defaults to 0 (the sliding force is Coulomb's ``mu_d N``; LuGre's ``sigma2``
  defaults to MotionSolve's 0.4 N s/m), ``tau_dw`` to 0.1 s.

The breakaway force is ``mu_st N`` for a load that rises slowly against the presliding time
``mu_st / (sigma0 v_s)``; a faster one breaks away earlier (the creep it drives enters the
blend: ``docs/method.md`` section 4.4).

Dissipativity (derived in ``docs/method.md`` section 4.4). At a constant load the power of the
law on the slip plus the rate of the bristle's stored energy ``E = N sigma0 |z|^2 / 2`` is
``N |v| Q`` with, for ``u = sigma0 (z . v / |v|) / mu_st`` and ``r = sigma0 |z| / mu_st``::

    Q = (1 - beta) mu_st u - mu_st r^2 - beta sigma1 |v| (1 - u) - (1 - beta) (mu_d + mu_v |v| / N)

``Q <= 0`` in every state (the law never returns more energy than the bristle stored) when
``mu_s <= 4 mu_d`` (the bristle charged while the blend slides: ``(1 - beta) mu_st u - mu_st
u^2 <= (1 - beta)^2 mu_st / 4``) and ``sigma1 v_s <= sqrt(2 e) mu_d`` (where ``u > 1``, after the
stiction level dropped, the damping term pushes; ``beta |v| <= v_s / sqrt(2 e)``). Both are
sufficient conditions; :meth:`Bristle.warnings` names a violated one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .base import FrictionLaw
from .schema import BRISTLE_SCHEMA, check_static_dynamic

__all__ = ["Bristle", "EPS_FRACTION", "DAMPING_LIMIT"]

_S = BRISTLE_SCHEMA

#: ``eps`` of the sliding direction ``v / max(|v|, eps)``, as a fraction of ``v_s``.
EPS_FRACTION = 1e-6
#: ``max_v beta(v) |v| / v_s = 1 / sqrt(2 e)``: the bristle damping never pushes while
#: ``sigma1 v_s <= DAMPING_LIMIT mu_d``.
DAMPING_LIMIT = math.sqrt(2.0 * math.e)


class Bristle(FrictionLaw):
    """Bristle friction with load-proportional stiffness and dwell-time stiction (after
    Gonthier et al. 2004): per pair a bristle deflection (m, one per slip dimension) and a
    dwell state ``w`` in [0, 1].

    Parameters
    ----------
    mu_d : float
        Kinetic coefficient (-), in [1e-4, 10]; also the stiction level right after a slide.
    mu_s : float or None
        Static coefficient after a long dwell (-), in [1e-4, 10] and ``>= mu_d``; None: equal
        to ``mu_d`` (then the dwell state changes nothing).
    mu_v : float
        Viscous coefficient of the sliding force (N s/m), in [0, 1e8].
    v_s : float
        Transition velocity of the blend ``beta = exp(-(v / v_s)^2)`` (m/s), in [1e-9, 1e3].
    sigma0 : float
        Bristle stiffness per newton of normal load (1/m), in [1, 1e10]: the presliding
        stiffness is ``sigma0 N`` (N/m), the breakaway displacement about ``mu_st / sigma0``.
    sigma1 : float
        Bristle damping per newton of normal load (s/m), in [0, 1e8].
    tau_dw : float
        Dwell-time constant (s), in [1e-6, 1e6].

    Examples
    --------
    >>> from nonsmooth.friction import Bristle
    >>> law = Bristle(0.3, 0.5, tau_dw=0.2)
    >>> law.state_size(1), law.state_size(2)
    (2, 3)
    """

    name = "bristle"
    smooth = True
    n_states = 2
    n_scalar_states = 1  # the dwell state w: one per pair, whatever its dimension
    schema = BRISTLE_SCHEMA

    def __init__(self, mu_d: float = _S["mu_d"].default, mu_s: float | None = _S["mu_s"].default,
                 mu_v: float = _S["mu_v"].default, v_s: float = _S["v_s"].default,
                 sigma0: float = _S["sigma0"].default, sigma1: float = _S["sigma1"].default,
                 tau_dw: float = _S["tau_dw"].default):
        self.mu_d = _S.validate("mu_d", mu_d)
        self.mu_s = self.mu_d if mu_s is None else _S.validate("mu_s", mu_s)
        check_static_dynamic(_S.where, self.mu_s, self.mu_d)
        self.mu_v = _S.validate("mu_v", mu_v)
        self.v_s = _S.validate("v_s", v_s)
        self.sigma0 = _S.validate("sigma0", sigma0)
        self.sigma1 = _S.validate("sigma1", sigma1)
        self.tau_dw = _S.validate("tau_dw", tau_dw)
        self.eps = EPS_FRACTION * self.v_s

    @classmethod
    def from_pair(cls, mu_d: float, mu_s: float | None, params: Mapping) -> Bristle:
        from .schema import apply_effect

        kw = {k: v for k, v in _S.pick(params).items() if k not in ("mu_s", "mu_d")}
        return cls(*apply_effect(mu_d, mu_s, params), **kw)  # the pair's own coefficients

    def pack(self) -> tuple[int, tuple[float, ...]]:
        """The compiled stage's kind ``BRISTLE`` (3) and its numbers ``mu_s, mu_d, mu_v, v_s,
        sigma0, sigma1, tau_dw, eps`` (``core.stage._bristle_law`` reads them)."""
        return 3, (self.mu_s, self.mu_d, self.mu_v, self.v_s, self.sigma0, self.sigma1,
                   self.tau_dw, self.eps)

    # ------------------------------------------------------------------ the law
    def beta(self, speed: float) -> float:
        """The blend ``exp(-(|v| / v_s)^2)`` (-): 1 at rest, 0 when sliding."""
        x = speed / self.v_s
        return math.exp(-x * x)

    def stiction(self, w: float) -> float:
        """The stiction level ``mu_st = mu_d + (mu_s - mu_d) w`` (-) at dwell state ``w``."""
        return self.mu_d + (self.mu_s - self.mu_d) * w

    def coefficients(self, v_T, z):
        """``(a, b)`` of ``F_T = -a N - b`` at slip velocity ``v_T`` (m/s) and states ``z =
        (bristle deflection (m), w)``."""
        a, b, _, _ = self._scalar(float(v_T), float(z[0]), float(z[1]))
        return a, b

    def state_derivative(self, v_T, z):
        """``(dz/dt (m/s), dw/dt (1/s))`` at slip velocity ``v_T`` and states ``z = (z, w)``."""
        _, _, rate, dw = self._scalar(float(v_T), float(z[0]), float(z[1]))
        return rate, dw

    def _scalar(self, v: float, z: float, w: float) -> tuple[float, float, float, float]:
        """``(a, b, dz/dt, dw/dt)`` of a scalar pair, in the compiled stage's order of
        operations (``core.stage._bristle_law``), so that both give the same numbers."""
        speed = math.sqrt(v * v)
        x = speed / self.v_s
        beta = math.exp(-x * x)
        slide = -math.expm1(-x * x)
        mu_st = self.mu_d + (self.mu_s - self.mu_d) * w
        unit = self.mu_d / max(speed, self.eps)
        rate = v - self.sigma0 * speed * z / mu_st
        a = beta * (self.sigma0 * z + self.sigma1 * rate) + slide * unit * v
        b = slide * self.mu_v * v
        return a, b, rate, (beta - w) / self.tau_dw

    def vector_coefficients(self, v_T: np.ndarray, z, patch: int = 0
                            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a (d,), b (d,), rates (d + 1,))`` on a slip velocity vector ``v_T`` (d,; m/s)
        with the states ``z = (z_1 .. z_d (m), w)`` (d + 1,). ``patch``: a contact patch's
        pressure code (rows ``(v_x, v_y, a omega)``, a sliding and a spinning bristle): each
        row scaled by the factor ``k_r`` of the slip direction's Contensou coefficients
        (``contensou.patch_factors``) in its bristle's rate and its sliding part, so that steady
        sliding gives the coupled force and torque ``mu N c(v / |v|)``."""
        v_T = np.asarray(v_T, dtype=float)
        z = np.asarray(z, dtype=float)
        d = v_T.shape[0]
        acc = 0.0
        for r in range(d):
            acc += float(v_T[r]) * float(v_T[r])
        speed = math.sqrt(acc)
        x = speed / self.v_s
        beta = math.exp(-x * x)
        slide = -math.expm1(-x * x)
        w = float(z[d])
        mu_st = self.mu_d + (self.mu_s - self.mu_d) * w
        unit = self.mu_d / max(speed, self.eps)
        k = self._patch_rows(patch, v_T)
        rates = np.empty(d + 1)
        rates[:d] = v_T - self.sigma0 * speed * z[:d] / (k * mu_st)
        a = beta * (self.sigma0 * z[:d] + self.sigma1 * rates[:d]) + slide * unit * k * v_T
        b = slide * self.mu_v * v_T
        rates[d] = (beta - w) / self.tau_dw
        return a, b, rates

    def initial_state(self, v_T):
        """The steady state at ``v_T`` (m/s): ``(z, w) = (mu_st(beta) sgn(v) / sigma0,
        beta(v))``; at rest ``(0, 1)`` (a long dwell)."""
        return tuple(float(s) for s in self.vector_initial_state(np.array([float(v_T)])))

    @staticmethod
    def _patch_rows(patch: int, v_T: np.ndarray) -> np.ndarray:
        """Each row's factor ``k_r`` (d,): 1, or a patch pair's ``(k_xy, k_xy, k_spin)``
        (``contensou.patch_factors``)."""
        d = v_T.shape[0]
        if not patch or d != 3:
            return np.ones(d)
        from ..contact.contensou import patch_factors

        k_xy, k_spin = patch_factors(int(patch), float(v_T[0]), float(v_T[1]), float(v_T[2]))
        return np.array([k_xy, k_xy, k_spin])

    def vector_initial_state(self, v_T: np.ndarray, patch: int = 0) -> np.ndarray:
        """The steady states (d + 1,) at the slip velocity ``v_T`` (d,): ``w = beta(|v|)``,
        ``z = mu_st(w) k v / (sigma0 |v|)`` (``k`` each row's patch factor, 1 without a
        patch); at rest ``z = 0``, ``w = 1``."""
        v_T = np.asarray(v_T, dtype=float)
        speed = math.sqrt(float(v_T @ v_T))
        out = np.zeros(v_T.shape[0] + 1)
        if speed == 0.0:
            out[-1] = 1.0
            return out
        w = self.beta(speed)
        out[:-1] = self.stiction(w) * self._patch_rows(patch, v_T) * v_T / (speed * self.sigma0)
        out[-1] = w
        return out

    def steady_force(self, v: float, N: float) -> float:
        """Steady friction (opposing the slip) at constant slip velocity ``v`` (m/s) and load
        ``N`` (N): ``beta N mu_st(beta) sgn(v) + (1 - beta) (N mu_d sgn(v) + mu_v v)`` (the
        bristle at rest in its deflection, ``w = beta``); ``mu_d N sgn(v) + mu_v v`` for
        ``|v| >> v_s``."""
        if v == 0.0:
            return 0.0
        beta = self.beta(abs(v))
        return (beta * N * math.copysign(self.stiction(beta), v)
                + (1.0 - beta) * (N * math.copysign(self.mu_d, v) + self.mu_v * v))

    def breakaway_level(self, t_dwell: float, w0: float = 0.0) -> float:
        """The stiction level ``mu_st`` (-) after a dwell of ``t_dwell`` (s) at rest from
        dwell state ``w0``: ``mu_d + (mu_s - mu_d) (1 - (1 - w0) exp(-t_dwell / tau_dw))``."""
        return self.stiction(1.0 - (1.0 - w0) * math.exp(-t_dwell / self.tau_dw))

    def warnings(self):
        out = []
        if self.mu_s > 4.0 * self.mu_d:
            out.append(
                f"bristle friction: mu_s = {self.mu_s:g} > 4 mu_d = {4.0 * self.mu_d:g}: the "
                "law is not guaranteed to dissipate energy (a bristle charged while the blend "
                "slides may return more than it took); raise mu_d or lower mu_s")
        limit = DAMPING_LIMIT * self.mu_d / self.v_s
        if self.sigma1 > limit:
            out.append(
                f"bristle friction: sigma1 = {self.sigma1:g} > sqrt(2 e) mu_d / v_s = "
                f"{limit:g}: the bristle damping is not guaranteed to dissipate energy (after "
                "the stiction level drops it may push the slip); lower sigma1 or raise v_s")
        return out
