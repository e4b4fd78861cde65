"""Friction laws, chosen by name: ``coulomb`` (set-valued, event-driven), ``lugre``,
``regularized`` and ``bristle`` (smooth; the bristle law with dwell-time stiction, after
Gonthier et al. 2004). Each law gives ``F_T = -a N - b`` (``base.FrictionLaw``).

Parameters: one schema per law (:mod:`.schema`). Every law's parameters are listed once, in its
:class:`~.schema.LawSchema` (``COULOMB_SCHEMA``: mu_s, mu_d; ``LUGRE_SCHEMA``: mu_s, mu_d,
sigma0, sigma1, sigma2, v_s, effect; ``REGULARIZED_SCHEMA``: viscous, coulomb, falloff_vel,
stiction_extra, stribeck_vel, normal_load; ``BRISTLE_SCHEMA``: mu_s, mu_d, mu_v, v_s, sigma0,
sigma1, tau_dw), as :class:`~.schema.Parameter` entries: name, SI
default, unit, physically meaningful range ``[minimum, maximum]``, MotionSolve's attribute name
and other aliases, description and a hint on what to try. Everything else is derived from these
tables: the law's constructor defaults and checks (``LuGre()`` is the schema's defaults), the
model parameters (``nonsmooth.model.FRICTION_PARAMETERS``, ``PARAMETER_ALIASES``),
``FrictionPair.make_law`` (each law's ``from_pair``) and the MotionSolve reader's
``Force_JointFriction`` defaults (our SI defaults expressed in N, kg, mm, s) and range checks. A
value outside its range raises a ``ModelError`` naming the parameter, the value, the range with
its unit and what to try; ``mu_s >= mu_d`` is checked in one place
(:func:`~.schema.check_static_dynamic`).
"""

from .base import FrictionLaw
from .bristle import Bristle
from .coulomb import Coulomb
from .lugre import LuGre
from .regularized import Regularized
from .schema import (
    BRISTLE_SCHEMA,
    COULOMB_SCHEMA,
    LAW_SCHEMAS,
    LUGRE_SCHEMA,
    REGULARIZED_SCHEMA,
    LawSchema,
    Parameter,
    check_static_dynamic,
)

LAWS = {"coulomb": Coulomb, "lugre": LuGre, "regularized": Regularized, "bristle": Bristle}

__all__ = ["FrictionLaw", "Coulomb", "LuGre", "Regularized", "Bristle", "LAWS",
           "Parameter", "LawSchema", "COULOMB_SCHEMA", "LUGRE_SCHEMA", "REGULARIZED_SCHEMA",
           "BRISTLE_SCHEMA", "LAW_SCHEMAS", "check_static_dynamic"]
