"""Regularized dry friction with Stribeck and viscous terms (``docs/method.md`` section 4.3).

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

Parameters, defaults and ranges: :data:`~nonsmooth.friction.schema.REGULARIZED_SCHEMA` (and
:data:`~nonsmooth.friction.schema.REGULARIZED_ABSOLUTE` for the dry levels as forces). One
deliberate difference from the source engine: ``stribeck_vel`` defaults to 0.01 m/s, not 0, so
that a pair with ``mu_s > mu_d`` gets a smooth Stribeck decay instead of a force jump.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .base import FrictionLaw
from .schema import REGULARIZED_ABSOLUTE, REGULARIZED_SCHEMA

__all__ = ["Regularized"]

_S = REGULARIZED_SCHEMA


class Regularized(FrictionLaw):
    """Regularized Coulomb / Stribeck / viscous friction (no internal state).

    Parameters
    ----------
    viscous : float
        Viscous coefficient (N s/m), in [0, 1e8].
    coulomb : float
        Dynamic dry level: a coefficient of the normal load in [0, 10] (``normal_load``), else a
        force in [0, 1e9] N.
    falloff_vel : float
        Velocity of the breakaway peak (m/s), in [1e-9, 1e3].
    stiction_extra : float
        Extra static level (as ``coulomb``).
    stribeck_vel : float
        Stribeck decay velocity (m/s): 0 (none) or in [1e-9, 1e3].
    normal_load : bool
        True: ``coulomb`` and ``stiction_extra`` multiply the normal load N.
    """

    name = "regularized"
    smooth = True
    schema = REGULARIZED_SCHEMA

    def __init__(self, viscous: float = _S["viscous"].default,
                 coulomb: float = _S["coulomb"].default,
                 falloff_vel: float = _S["falloff_vel"].default,
                 stiction_extra: float = _S["stiction_extra"].default,
                 stribeck_vel: float = _S["stribeck_vel"].default,
                 normal_load: bool = _S["normal_load"].default):
        self.normal_load = _S.validate("normal_load", normal_load)
        dry = _S if self.normal_load else REGULARIZED_ABSOLUTE
        self.viscous = _S.validate("viscous", viscous)
        self.coulomb = dry.validate("coulomb", coulomb)
        self.falloff_vel = _S.validate("falloff_vel", falloff_vel)
        self.stiction_extra = dry.validate("stiction_extra", stiction_extra)
        self.stribeck_vel = _S.validate("stribeck_vel", stribeck_vel)

    @classmethod
    def from_pair(cls, mu_d: float, mu_s: float | None, params: Mapping) -> Regularized:
        """``coulomb`` and ``stiction_extra`` default to the pair's ``mu_d`` and
        ``mu_s - mu_d`` (as coefficients of the normal load)."""
        from .schema import apply_effect

        mu_d, mu_s = apply_effect(mu_d, mu_s, params)  # STICTION / SLIDING: one level
        kw = _S.pick(params)
        if kw.get("normal_load", _S["normal_load"].default):
            kw.setdefault("coulomb", mu_d)
            kw.setdefault("stiction_extra", (mu_d if mu_s is None else mu_s) - mu_d)
        return cls(**kw)

    def dry(self, speed: float) -> float:
        """Magnitude of the dry part at ``|v| = speed`` (force, or coefficient)."""
        peak = self.coulomb + self.stiction_extra
        if speed <= self.falloff_vel:
            return peak * math.sin(0.5 * math.pi * speed / self.falloff_vel)
        if self.stribeck_vel > 0:
            r = (speed - self.falloff_vel) / self.stribeck_vel
            return self.coulomb + self.stiction_extra * math.exp(-r * r)
        return self.coulomb

    def pack(self) -> tuple[int, tuple[float, ...]]:
        """The compiled stage's kind ``REGULARIZED`` (2) and its numbers: the Coulomb level,
        the stiction excess, the fall-off and Stribeck velocities, the viscous coefficient and
        the normal load (``core.stage._smooth_law`` reads them)."""
        return 2, (self.coulomb, self.stiction_extra, self.falloff_vel, self.stribeck_vel,
                   self.viscous, float(self.normal_load))

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
