"""The LuGre law as MotionSolve's ``Force_JointFriction`` uses it (``joint_friction.md``).

Canudas de Wit, Olsson, Astrom, Lischinsky, "A new model for control of systems with friction",
IEEE TAC 40 (1995) 419-425, with the bristle force scaled by the joint's normal load N::

    g(v)  = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)
    dz/dt = v - sigma0 |v| z / g(v)
    F     = N (sigma0 z + sigma1 dz/dt) + sigma2 v      (opposing the slip: F_T = -F)

so ``a = sigma0 z + sigma1 dz/dt`` and ``b = sigma2 v``. At constant slip velocity the steady state
is ``z = g(v) sgn(v) / sigma0`` and ``F = N g(v) sgn(v) + sigma2 v``.

Units (SI): sigma0 in 1/m (N/m per newton of normal load), sigma1 in s/m, sigma2 in N s/m, v_s in
m/s. MotionSolve's defaults are per millimetre: sigma0 = 100 /mm, sigma1 = 0.316 s/mm,
sigma2 = 0.0004 N s/mm, v_s = 0.1 mm/s; in SI: 1e5 /m, 316 s/m, 0.4 N s/m, 1e-4 m/s.

``effect``: ``ALL`` (the law above); ``STICTION`` (static friction only: the bristles with
``g = mu_s``, no viscous term: holds a load below ``mu_s N`` with presliding displacement);
``SLIDING`` (dynamic friction only: no bristles and no stiction, ``F = N mu_d tanh(v / v_s) +
sigma2 v``: a load on a slope creeps, it never sticks). This reading of MotionSolve's switch is
ours: its reference says only "stiction + sliding" / "static only" / "dynamic only".
"""

from __future__ import annotations

import math

from ..errors import ModelError
from .base import FrictionLaw, check_nonnegative

__all__ = ["LuGre", "MOTIONSOLVE_DEFAULTS_SI"]

#: MotionSolve's defaults converted from millimetres to metres.
MOTIONSOLVE_DEFAULTS_SI = {"sigma0": 1e5, "sigma1": 316.0, "sigma2": 0.4, "v_s": 1e-4}

EFFECTS = ("ALL", "STICTION", "SLIDING")


class LuGre(FrictionLaw):
    """LuGre friction, one bristle state per pair.

    Parameters
    ----------
    mu_s, mu_d : float
        Static and dynamic coefficients, ``mu_s >= mu_d > 0``.
    sigma0 : float
        Bristle stiffness per newton of normal load (1/m), > 0.
    sigma1 : float
        Bristle damping per newton of normal load (s/m), >= 0.
    sigma2 : float
        Viscous coefficient (N s/m), >= 0.
    v_s : float
        Stribeck (static-to-dynamic transition) velocity (m/s), > 0.
    effect : {"ALL", "STICTION", "SLIDING"}
    """

    name = "lugre"
    smooth = True
    n_states = 1

    def __init__(self, mu_s: float, mu_d: float, sigma0: float = 1e5, sigma1: float = 316.0,
                 sigma2: float = 0.4, v_s: float = 1e-4, effect: str = "ALL"):
        self.mu_s = check_nonnegative("lugre", "mu_s", mu_s, positive=True)
        self.mu_d = check_nonnegative("lugre", "mu_d", mu_d, positive=True)
        if self.mu_s < self.mu_d:
            raise ModelError(f"lugre friction: mu_s = {mu_s} must be >= mu_d = {mu_d}")
        self.sigma0 = check_nonnegative("lugre", "sigma0", sigma0, positive=True)
        self.sigma1 = check_nonnegative("lugre", "sigma1", sigma1)
        self.sigma2 = check_nonnegative("lugre", "sigma2", sigma2)
        self.v_s = check_nonnegative("lugre", "v_s", v_s, positive=True)
        effect = str(effect).upper()
        if effect not in EFFECTS:
            raise ModelError(f"lugre friction: effect = {effect!r}; allowed: {', '.join(EFFECTS)}")
        self.effect = effect
        self._lo = self.mu_s if effect == "STICTION" else self.mu_d
        self._gap = (self.mu_s - self.mu_d) if effect == "ALL" else 0.0
        self._visc = 0.0 if effect == "STICTION" else self.sigma2

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
