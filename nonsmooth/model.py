"""A runnable model: a compiled system plus initial state, named outputs and parameters.

Benchmark models live in ``models/`` (installed as :mod:`nonsmooth.models`); each module has
``NAME``, ``DESCRIPTION``, ``PARAMETERS`` (a list of :class:`Parameter`) and
``build(**params) -> Model``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import ModelError
from .system import System

__all__ = ["Model", "Parameter", "Output", "check_parameters", "as_model",
           "FRICTION_PARAMETERS", "PARAMETER_ALIASES", "friction_params",
           "check_friction_coefficients"]


@dataclass(frozen=True)
class Parameter:
    """A documented model parameter.

    ``minimum``/``maximum`` bound the value; ``exclusive`` makes the minimum strict (> instead
    of >=). ``choices`` lists the allowed values of a text parameter.
    """

    name: str
    default: float | str | None
    unit: str
    description: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive: bool = False
    choices: tuple[str, ...] | None = None

    def range_text(self) -> str:
        if self.default is None and self.minimum is None:
            return "optional"
        if self.choices:
            return "one of " + ", ".join(self.choices)
        lo = "" if self.minimum is None else (
            f"{'>' if self.exclusive else '>='} {self.minimum:g}")
        hi = "" if self.maximum is None else f"<= {self.maximum:g}"
        return " and ".join(x for x in (lo, hi) if x) or "any finite number"

    def check(self, value, where: str):
        """Return the value converted and checked; raise ModelError naming it otherwise."""
        if value is None and self.default is None:
            return None  # an optional parameter left unset
        if self.choices:
            if str(value) not in self.choices:
                raise ModelError(f"{where}: parameter {self.name} = {value!r} is invalid; allowed: "
                                 f"{self.range_text()}")
            return str(value)
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise ModelError(f"{where}: parameter {self.name} = {value!r} is not a number "
                             f"({self.unit}); allowed: {self.range_text()}") from None
        bad = not math.isfinite(x)
        if self.minimum is not None:
            bad |= x <= self.minimum if self.exclusive else x < self.minimum
        if self.maximum is not None:
            bad |= x > self.maximum
        if bad:
            raise ModelError(f"{where}: parameter {self.name} = {value!r} is out of range; "
                             f"allowed: {self.range_text()} ({self.unit})")
        return x


#: The friction description every model with frictional pairs exposes (besides mu_s, mu_d):
#: LuGre (MotionSolve's defaults in SI) and the regularized law; see nonsmooth.friction.
FRICTION_PARAMETERS = [
    Parameter("friction", "coulomb", "-", "friction law of the pairs",
              choices=("coulomb", "lugre", "regularized")),
    Parameter("sigma0", 1e5, "1/m", "LuGre bristle stiffness per N of normal load", 0.0,
              exclusive=True),
    Parameter("sigma1", 316.0, "s/m", "LuGre bristle damping per N of normal load", 0.0),
    Parameter("sigma2", 0.4, "N s/m", "LuGre viscous coefficient", 0.0),
    Parameter("v_s", 1e-4, "m/s", "LuGre Stribeck (stiction transition) velocity", 0.0,
              exclusive=True),
    Parameter("effect", "ALL", "-", "LuGre effect", choices=("ALL", "STICTION", "SLIDING")),
    Parameter("viscous", 0.0, "N s/m", "regularized law: viscous coefficient", 0.0),
    Parameter("falloff_vel", 1e-3, "m/s", "regularized law: velocity of the breakaway peak",
              0.0, exclusive=True),
    Parameter("stribeck_vel", 0.01, "m/s", "regularized law: Stribeck decay velocity (0: none; "
              "then the force jumps at falloff_vel)", 0.0),
]

#: MotionSolve's attribute names accepted for our parameter names.
PARAMETER_ALIASES = {
    "bristle_stiffness": "sigma0",
    "damping_effects": "sigma1",
    "viscous_effects": "sigma2",
    "stiction_trans_vel": "v_s",
    "mu_static": "mu_s",
    "mu_dynamic": "mu_d",
    "mu0": "mu_s",
}


def check_friction_coefficients(model_name: str, p: dict) -> None:
    """A model's ``mu_s`` must not be below its ``mu_d`` (one message for every model)."""
    if p["mu_s"] < p["mu_d"]:
        raise ModelError(f"model {model_name}: mu_s = {p['mu_s']:g} must be >= mu_d = "
                         f"{p['mu_d']:g}")


def friction_params(p: dict) -> dict:
    """The pair ``params`` (``FrictionPair.params``) from checked model parameters."""
    keys = ("sigma0", "sigma1", "sigma2", "v_s", "effect", "viscous", "falloff_vel",
            "stribeck_vel")
    return {k: p[k] for k in keys if k in p}


def check_parameters(model_name: str, parameters: Sequence[Parameter], given: dict) -> dict:
    """Defaults updated with ``given``, every value checked; unknown names list the valid ones.

    MotionSolve's attribute names (``bristle_stiffness`` ...) are accepted as aliases."""
    known = {p.name: p for p in parameters}
    given = {PARAMETER_ALIASES.get(k, k) if PARAMETER_ALIASES.get(k) in known else k: val
             for k, val in given.items()}
    unknown = [k for k in given if k not in known]
    if unknown:
        valid = (f"valid parameters: {', '.join(known)}" if known
                 else "this model has no parameters to set")
        raise ModelError(f"model {model_name}: unknown parameter(s) {', '.join(unknown)}; {valid}")
    values = {p.name: p.default for p in parameters}
    values.update(given)
    return {k: known[k].check(val, f"model {model_name}") for k, val in values.items()}


@dataclass(frozen=True)
class Output:
    """A named output column: ``function(result) -> ndarray (N,)`` and its unit."""

    function: Callable
    unit: str
    description: str = ""


@dataclass
class Model:
    """What :func:`nonsmooth.simulate` runs.

    Attributes
    ----------
    system : System
    q0, v0 : ndarray, shape (n_q,)   initial state (projected onto the constraints at start)
    name : str
    outputs : dict of str to Output   named output columns, in order
    parameters : dict                 the parameter values the model was built with
    t_end, dt : float                 default end time and output step (s); dt None:
                                      a thousandth of the simulated interval
    plot_outputs : tuple of str       the outputs ``Result.plot()`` shows by default
    motion_outputs : tuple of str     the outputs ``compare()`` treats as the motion
    alpha, beta : float or None       Baumgarte parameters (1/s), None = engine default
    """

    system: System
    q0: np.ndarray
    v0: np.ndarray
    name: str = "model"
    outputs: dict[str, Output] = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)
    t_end: float = 1.0
    dt: float | None = None
    alpha: float | None = None
    beta: float | None = None
    description: str = ""
    plot_outputs: tuple[str, ...] = ()
    motion_outputs: tuple[str, ...] = ()

    def __post_init__(self):
        n = self.system.n_q
        self.q0 = np.asarray(self.q0, dtype=float).reshape(-1)
        self.v0 = np.asarray(self.v0, dtype=float).reshape(-1)
        for nm, arr in (("q0", self.q0), ("v0", self.v0)):
            if arr.shape != (n,):
                raise ModelError(f"model {self.name}: {nm} has {arr.size} entries; the system "
                                 f"has {n} coordinates {self.system.coordinate_names}")


def as_model(obj, *, q0=None, v0=None) -> Model:
    """Accept a Model, a PlanarModel or a System (+ q0, v0) and return a Model."""
    from .planar import PlanarModel

    if isinstance(obj, Model):
        if q0 is None and v0 is None:
            return obj
        return Model(obj.system, obj.q0 if q0 is None else q0, obj.v0 if v0 is None else v0,
                     obj.name, obj.outputs, obj.parameters, obj.t_end, obj.dt, obj.alpha,
                     obj.beta, obj.description, obj.plot_outputs, obj.motion_outputs)
    if isinstance(obj, PlanarModel):
        system = obj.compile()
        qi, vi = obj.initial_state()
        return Model(system, qi if q0 is None else q0, vi if v0 is None else v0, obj.name)
    if isinstance(obj, System):
        if q0 is None:
            raise ModelError("simulating a bare System needs q0 (and v0; default zeros)")
        return Model(obj, q0, np.zeros(obj.n_q) if v0 is None else v0)
    raise ModelError(f"cannot simulate {type(obj).__name__}: expected a nonsmooth.Model, a "
                     "PlanarModel or a System")
