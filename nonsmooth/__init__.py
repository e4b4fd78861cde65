"""nonsmooth: planar multibody dynamics with dry friction in joints (translational and revolute).

First-kind Lagrange equations with Baumgarte stabilization; the normal loads of the frictional
joints (a translational joint's normal force and its rotation lock's bending moment, a revolute
pin's radial reaction, preloads: MotionSolve's joint-friction inputs) solved at each evaluation
as a horizontal LCP (the radial reaction by fixed-point iteration around it); Coulomb friction
with static and dynamic coefficients switched event by event (stick/slip by a transition
problem), or the smooth LuGre and regularized laws. The method: ``docs/method.md``; the map of
modules: ``docs/architecture.md``.
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
    "sweep",
    "Study",
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


def __getattr__(name: str):
    """``nonsmooth.sweep``, ``nonsmooth.Study``: imported on first use (``nonsmooth.study``), so
    that ``import nonsmooth`` does not pay for the study machinery."""
    if name in ("sweep", "Study"):
        from . import study

        return getattr(study, name)
    raise AttributeError(f"module 'nonsmooth' has no attribute {name!r}")
