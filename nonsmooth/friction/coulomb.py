"""Set-valued Coulomb friction: slip with ``mu`` (dynamic), stick with ``|F_T| <= mu_s N``.

The engine handles it event by event (modes slip+, slip-, stick; see ``docs/architecture.md``):
while slipping in direction ``s``, ``a = mu s`` and ``b = 0``.
"""

from __future__ import annotations

from .base import FrictionLaw, check_nonnegative

__all__ = ["Coulomb"]


class Coulomb(FrictionLaw):
    """Coulomb friction with a static coefficient ``mu_s >= mu_d`` (Pfeiffer & Glocker 1996)."""

    name = "coulomb"
    smooth = False

    def __init__(self, mu_d: float, mu_s: float | None = None):
        self.mu_d = check_nonnegative("coulomb", "mu_d", mu_d)
        self.mu_s = self.mu_d if mu_s is None else check_nonnegative("coulomb", "mu_s", mu_s)

    def coefficients(self, v_T, z=()):
        """Sliding coefficients at velocity ``v_T != 0``."""
        return (self.mu_d if v_T > 0 else -self.mu_d if v_T < 0 else 0.0), 0.0
