"""Friction laws, chosen by name: ``coulomb`` (set-valued, event-driven), ``lugre`` and
``regularized`` (smooth). Each law gives ``F_T = -a N - b`` (``base.FrictionLaw``)."""

from .base import FrictionLaw
from .coulomb import Coulomb
from .lugre import MOTIONSOLVE_DEFAULTS_SI, LuGre
from .regularized import Regularized

LAWS = {"coulomb": Coulomb, "lugre": LuGre, "regularized": Regularized}

__all__ = ["FrictionLaw", "Coulomb", "LuGre", "Regularized", "LAWS", "MOTIONSOLVE_DEFAULTS_SI"]
