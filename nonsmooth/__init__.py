"""nonsmooth: planar multibody dynamics with dry friction in translational joints.

First-kind Lagrange equations with Baumgarte stabilization; the normal forces of bilateral
translational joints solved as a horizontal LCP each evaluation; Coulomb friction switched event
by event. See ``docs/architecture.md`` for the map of modules.
"""

from .compare import Comparison, compare
from .dynamics import DEFAULT_ALPHA, DEFAULT_BETA, Dynamics, Evaluation
from .errors import (
    ConstraintError,
    FrictionLoadError,
    InconsistentLCPError,
    IndeterminateLCPError,
    IntegrationError,
    ModeError,
    ModelError,
    NonsmoothError,
)
from .events import EventRecord
from .model import Model, Output, Parameter
from .result import Result
from .simulate import METHODS, simulate
from .system import Constraint, FrictionPair, GeneralizedSystem, System

__version__ = "0.1.0"

__all__ = [
    "simulate",
    "compare",
    "Comparison",
    "Result",
    "Model",
    "Output",
    "Parameter",
    "System",
    "GeneralizedSystem",
    "Constraint",
    "FrictionPair",
    "Dynamics",
    "Evaluation",
    "EventRecord",
    "METHODS",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "NonsmoothError",
    "ModelError",
    "ConstraintError",
    "InconsistentLCPError",
    "IndeterminateLCPError",
    "ModeError",
    "FrictionLoadError",
    "IntegrationError",
    "__version__",
]
