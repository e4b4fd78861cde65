"""Regularized dry friction with Stribeck and viscous terms (``friction_laws.md``).

The per-joint parameter set of a robotics articulated-body engine. The dry part rises smoothly
from 0 at ``v = 0`` to its breakaway peak ``coulomb + stiction_extra`` at ``|v| = falloff_vel``
(``peak sin(pi |v| / (2 falloff_vel))``: slight creep below it), then decays to ``coulomb``::

    dry(|v|) = coulomb + stiction_extra exp(-((|v| - falloff_vel) / stribeck_vel)^2)

(``stribeck_vel = 0``: no Stribeck term, the dry part drops to ``coulomb`` past the peak, a
nonsmooth force: warned). Viscous and dry parts add::

    F = dry(|v|) sgn(v) + viscous v              (opposing the slip: F_T = -F)

Either as absolute forces (``normal_load=False``: N or N m; then ``b = F``, ``a = 0``) or as
coefficients of the normal load N (``normal_load=True``: ``coulomb -> mu_d``,
``stiction_extra -> mu_s - mu_d``; then ``a = dry sgn(v)``, ``b = viscous v``).
"""

from __future__ import annotations

import math

from .base import FrictionLaw, check_nonnegative

__all__ = ["Regularized"]


class Regularized(FrictionLaw):
    """Regularized Coulomb / Stribeck / viscous friction (no internal state).

    Parameters
    ----------
    viscous : float          viscous coefficient (N s/m), >= 0
    coulomb : float          dynamic dry level (N, or a coefficient with ``normal_load``), >= 0
    falloff_vel : float      velocity of the breakaway peak (m/s), > 0
    stiction_extra : float   extra static level (same unit as coulomb), >= 0
    stribeck_vel : float     Stribeck decay velocity (m/s), >= 0 (0: none)
    normal_load : bool       True: coulomb and stiction_extra multiply the normal load N
    """

    name = "regularized"
    smooth = True

    def __init__(self, viscous=0.0, coulomb=0.0, falloff_vel=1e-3, stiction_extra=0.0,
                 stribeck_vel=0.0, normal_load=True):
        law = "regularized"
        self.viscous = check_nonnegative(law, "viscous", viscous)
        self.coulomb = check_nonnegative(law, "coulomb", coulomb)
        self.falloff_vel = check_nonnegative(law, "falloff_vel", falloff_vel, positive=True)
        self.stiction_extra = check_nonnegative(law, "stiction_extra", stiction_extra)
        self.stribeck_vel = check_nonnegative(law, "stribeck_vel", stribeck_vel)
        self.normal_load = bool(normal_load)

    def dry(self, speed: float) -> float:
        """Magnitude of the dry part at ``|v| = speed`` (force, or coefficient)."""
        peak = self.coulomb + self.stiction_extra
        if speed <= self.falloff_vel:
            return peak * math.sin(0.5 * math.pi * speed / self.falloff_vel)
        if self.stribeck_vel > 0:
            r = (speed - self.falloff_vel) / self.stribeck_vel
            return self.coulomb + self.stiction_extra * math.exp(-r * r)
        return self.coulomb

    def coefficients(self, v_T, z=()):
        d = math.copysign(self.dry(abs(v_T)), v_T)
        if self.normal_load:
            return d, self.viscous * v_T
        return 0.0, d + self.viscous * v_T

    def warnings(self):
        if self.stiction_extra > 0 and self.stribeck_vel == 0:
            return ["regularized friction: stiction_extra > 0 with stribeck_vel = 0 makes the "
                    "force jump from the peak to coulomb at falloff_vel (a nonsmooth force that "
                    "hurts convergence); give stribeck_vel > 0"]
        return []
