"""The LuGre law as MotionSolve's ``Force_JointFriction`` uses it (``docs/method.md`` section 4.2).

Canudas de Wit, Olsson, Astrom, Lischinsky, "A new model for control of systems with friction",
IEEE TAC 40 (1995) 419-425, with the bristle force scaled by the joint's normal load N::

    g(v)  = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)
    dz/dt = v - sigma0 |v| z / g(v)
    F     = N (sigma0 z + sigma1 dz/dt) + sigma2 v      (opposing the slip: F_T = -F)

so ``a = sigma0 z + sigma1 dz/dt`` and ``b = sigma2 v``. At constant slip velocity the steady state
is ``z = g(v) sgn(v) / sigma0`` and ``F = N g(v) sgn(v) + sigma2 v``.

Units (SI): sigma0 in 1/m (N/m per newton of normal load), sigma1 in s/m, sigma2 in N s/m, v_s in
m/s. The defaults are MotionSolve's, which are per millimetre: sigma0 = 100 /mm, sigma1 = 0.316
s/mm, sigma2 = 0.0004 N s/mm, v_s = 0.1 mm/s; in SI: 1e5 /m, 316 s/m, 0.4 N s/m, 1e-4 m/s.
Parameters, defaults and ranges: :data:`~nonsmooth.friction.schema.LUGRE_SCHEMA`.

``effect``: ``ALL`` (the law above); ``STICTION`` (static friction only: the bristles with
``g = mu_s``, no viscous term: holds a load below ``mu_s N`` with presliding displacement);
``SLIDING`` (dynamic friction only: no bristles and no stiction, ``F = N mu_d tanh(v / v_s) +
sigma2 v``: a load on a slope creeps, it never sticks). This reading of MotionSolve's switch is
ours: its reference says only "stiction + sliding" / "static only" / "dynamic only".
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .base import FrictionLaw
from .schema import LUGRE_SCHEMA, check_static_dynamic

__all__ = ["LuGre"]

_S = LUGRE_SCHEMA


EFFECTS = _S["effect"].choices


class LuGre(FrictionLaw):
    """LuGre friction, one bristle state per pair.

    Parameters
    ----------
    mu_d : float
        Dynamic coefficient (-), in [1e-4, 10].
    mu_s : float or None
        Static coefficient (-), in [1e-4, 10] and ``>= mu_d``; None: equal to ``mu_d``.
        (Every law takes ``(mu_d, mu_s)`` in this order, as :class:`~.coulomb.Coulomb` does.)
    sigma0 : float
        Bristle stiffness per newton of normal load (1/m), in [1, 1e10].
    sigma1 : float
        Bristle damping per newton of normal load (s/m), in [0, 1e8].
    sigma2 : float
        Viscous coefficient (N s/m), in [0, 1e8].
    v_s : float
        Stribeck (static-to-dynamic transition) velocity (m/s), in [1e-9, 1e3].
    effect : {"ALL", "STICTION", "SLIDING"}
        Case-insensitive.
    """

    name = "lugre"
    smooth = True
    n_states = 1
    schema = LUGRE_SCHEMA

    def __init__(self, mu_d: float = _S["mu_d"].default, mu_s: float | None = _S["mu_s"].default,
                 sigma0: float = _S["sigma0"].default, sigma1: float = _S["sigma1"].default,
                 sigma2: float = _S["sigma2"].default, v_s: float = _S["v_s"].default,
                 effect: str = _S["effect"].default):
        self.mu_d = _S.validate("mu_d", mu_d)
        self.mu_s = self.mu_d if mu_s is None else _S.validate("mu_s", mu_s)
        check_static_dynamic(_S.where, self.mu_s, self.mu_d)
        self.sigma0 = _S.validate("sigma0", sigma0)
        self.sigma1 = _S.validate("sigma1", sigma1)
        self.sigma2 = _S.validate("sigma2", sigma2)
        self.v_s = _S.validate("v_s", v_s)
        self.effect = effect = _S.validate("effect", str(effect).upper())
        self._lo = self.mu_s if effect == "STICTION" else self.mu_d
        self._gap = (self.mu_s - self.mu_d) if effect == "ALL" else 0.0
        self._visc = 0.0 if effect == "STICTION" else self.sigma2

    @classmethod
    def from_pair(cls, mu_d: float, mu_s: float | None, params: Mapping) -> LuGre:
        kw = {k: v for k, v in _S.pick(params).items() if k not in ("mu_s", "mu_d")}
        return cls(mu_d, mu_s, **kw)  # the pair's own coefficients rule

    def pack(self) -> tuple[int, tuple[float, ...]]:
        """The compiled stage's kind ``LUGRE`` (1) and its numbers: ``g``'s floor and gap, the
        Stribeck velocity, ``sigma0``, ``sigma1``, the viscous coefficient, the effect (0 ALL,
        1 STICTION, 2 SLIDING) and ``mu_d`` (``core.stage._smooth_law`` reads them)."""
        effect = {"ALL": 0.0, "STICTION": 1.0, "SLIDING": 2.0}[self.effect]
        return 1, (self._lo, self._gap, self.v_s, self.sigma0, self.sigma1, self._visc, effect,
                   self.mu_d)

    def g(self, v: float) -> float:
        """The Stribeck curve ``mu_d + (mu_s - mu_d) exp(-(v/v_s)^2)`` (dimensionless)."""
        r = v / self.v_s
        return self._lo + self._gap * math.exp(-r * r)

    def state_derivative(self, v_T, z):
        if self.effect == "SLIDING":
            return (0.0,)
        return (v_T - self.sigma0 * abs(v_T) * z[0] / self.g(v_T),)

    def coefficients(self, v_T, z):
        if self.effect == "SLIDING":
            return self.mu_d * math.tanh(v_T / self.v_s), self._visc * v_T
        dz = v_T - self.sigma0 * abs(v_T) * z[0] / self.g(v_T)
        return self.sigma0 * z[0] + self.sigma1 * dz, self._visc * v_T

    def initial_state(self, v_T):
        """The steady state at ``v_T`` (zero deflection at rest)."""
        if v_T == 0:
            return (0.0,)
        return (math.copysign(self.g(v_T), v_T) / self.sigma0,)

    def steady_force(self, v: float, N: float) -> float:
        """Steady-state friction (opposing the slip) ``N g(v) sgn(v) + sigma2 v`` (N)."""
        if self.effect == "SLIDING":
            return N * self.mu_d * math.tanh(v / self.v_s) + self._visc * v
        return N * math.copysign(self.g(v), v) * (v != 0) + self._visc * v

    def warnings(self):
        out = []
        gap = self.mu_s - self.mu_d
        if gap > 0 and self.sigma1 >= self.sigma2 * self.mu_d / gap:
            out.append(
                f"lugre friction: sigma1 = {self.sigma1:g} >= sigma2 mu_d / (mu_s - mu_d) = "
                f"{self.sigma2 * self.mu_d / gap:g}: the law is not guaranteed to dissipate "
                "energy (MotionSolve's dissipativity condition); lower sigma1 or raise sigma2")
        return out
