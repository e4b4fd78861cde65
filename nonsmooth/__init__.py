"""nonsmooth: planar and spatial multibody dynamics with exact dry friction, event-driven.

The model families are packages: :mod:`nonsmooth.planar`, :mod:`nonsmooth.spatial` and
:mod:`nonsmooth.generalized` (a system given by its functions).

First-kind Lagrange equations with Baumgarte stabilization; the normal loads of the frictional
joints (a translational joint's normal force and its rotation lock's bending moment, a revolute
pin's radial reaction, preloads: MotionSolve's joint-friction inputs) solved at each evaluation
as a horizontal LCP (the radial reaction by fixed-point iteration around it); Coulomb friction
with static and dynamic coefficients switched event by event (stick/slip by a transition
problem), or the smooth LuGre and regularized laws. The method: ``docs/method.md``; the map of
modules: ``docs/architecture.md``.
"""

from . import prebuilt  # noqa: F401 - first: it chooses numba's CPU target (see there)
from ._distribution import version as _version
from .compare import Comparison, compare
from .dynamics import DEFAULT_ALPHA, DEFAULT_BETA
from .errors import (
    ConstraintError,
    DataError,
    FitError,
    FrictionLoadError,
    InconsistentLCPError,
    IndeterminateLCPError,
    IntegrationError,
    ModeError,
    ModelError,
    NonsmoothError,
    NotRecordedError,
    UnknownMethodError,
)
from .fit import (  # eager: the function shadows the module
    Fit,
    IdentifiabilityWarning,
    LackOfFitWarning,
    fit,
)
from .model import Model, Output, Parameter
from .result import Result
from .run.events import EventLog, EventRecord
from .simulate import METHODS, simulate
from .system import Constraint, FrictionPair, GeneralizedSystem, System

#: The model-building names, imported on first use (``nonsmooth.Body`` ...): the builder's
#: modules are not needed to run a bundled model, and ``import nonsmooth`` stays fast
#: (``benchmarks/startup.py``). Name -> module.
#: The planar family's builder names (``nonsmooth.planar``), at the top level too.
_BUILDER = dict.fromkeys(
    ["PlanarModel", "Body", "PointMass", "ground", "Revolute", "Translational", "Driver",
     "Spring", "Damper", "JointDamper", "RotationalSpring", "Force", "Torque", "Gravity",
     "RotorInertia", "Clutch", "Brake", "Clamp", "SlidingContact"], "planar")

#: Lazily imported entry points besides the builder (name -> module).
_LAZY = {**_BUILDER, "sweep": "study", "Study": "study", "CompiledTerms": "generalized",
         "SpatialModel": "spatial",  # the spatial family's builder (nonsmooth.spatial)
         "poincare": "sections", "Section": "sections"}  # Poincare sections

#: Internals that used to be exported at the top level: still reachable (with a
#: DeprecationWarning) for old scripts; import them from ``nonsmooth.dynamics``.
_MOVED = {"Dynamics": "dynamics", "Evaluation": "dynamics"}

__all__ = [
    "simulate",
    "sweep",
    "Study",
    "compare",
    "Comparison",
    "fit",
    "Fit",
    "IdentifiabilityWarning",
    "LackOfFitWarning",
    "Result",
    "Model",
    "Output",
    "Parameter",
    *_BUILDER,
    "System",
    "GeneralizedSystem",
    "CompiledTerms",
    "SpatialModel",
    "Constraint",
    "FrictionPair",
    "EventRecord",
    "EventLog",
    "poincare",
    "Section",
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
    "DataError",
    "FitError",
    "NotRecordedError",
    "UnknownMethodError",
    "__version__",
]


def __getattr__(name: str):
    """The model-building names (:data:`_BUILDER`: ``nonsmooth.PlanarModel``, ``Body`` ...),
    ``nonsmooth.sweep``, ``nonsmooth.Study`` and ``nonsmooth.__version__``: imported on first
    use, so that ``import nonsmooth`` does not pay for them (``importlib.metadata`` included)."""
    import importlib

    if name == "__version__":
        globals()[name] = value = _version()
        return value
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # the next access is a plain attribute
        return value
    if name in _MOVED:
        import warnings

        warnings.warn(f"nonsmooth.{name} is an internal and no longer exported; use "
                      f"'from nonsmooth.{_MOVED[name]} import {name}'", DeprecationWarning,
                      stacklevel=2)
        return getattr(importlib.import_module(f".{_MOVED[name]}", __name__), name)
    raise AttributeError(f"module 'nonsmooth' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
