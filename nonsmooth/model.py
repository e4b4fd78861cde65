"""A runnable model: a compiled system plus initial state, named outputs and parameters.

Benchmark models live in ``models/`` (installed as :mod:`nonsmooth.models`); each module has
``NAME``, ``DESCRIPTION``, ``PARAMETERS`` (a list of :class:`Parameter`) and
``build(**params) -> Model``.

:class:`Parameter` (name, default, unit, range, aliases, description, hint) is defined with the
friction-law schemas in :mod:`nonsmooth.friction.schema` and re-exported here; the friction
parameters the models expose (:data:`FRICTION_PARAMETERS`), their other names
(:data:`PARAMETER_ALIASES`) and the models' friction coefficients
(:func:`friction_coefficient`) are derived from those schemas. Every numeric model parameter
has a physically meaningful range with an upper bound; :func:`check_parameters` refuses a value
outside it, or two names of one parameter, with a one-line ``ModelError``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from .errors import ModelError
from .friction import LAWS
from .friction.schema import (
    BRISTLE_SCHEMA,
    COULOMB_SCHEMA,
    LAW_SCHEMAS,
    LUGRE_SCHEMA,
    REGULARIZED_SCHEMA,
    Parameter,
    check_static_dynamic,
)
from .system import System

__all__ = ["Model", "Parameter", "Output", "check_parameters", "as_model",
           "FRICTION_PARAMETERS", "PARAMETER_ALIASES", "friction_params",
           "check_friction_coefficients", "friction_coefficient", "baumgarte_parameters"]


def friction_coefficient(name: str, default: float | None, description: str, *,
                         static: bool = False) -> Parameter:
    """A model's friction coefficient parameter with the schema's range ([0, 10], -).

    Parameters
    ----------
    name : str
        The model's name for it (``"mu_s"``, ``"mu_d"``, the crank-rocker's ``"mu"``).
    default : float or None
        The model's default (None: optional, e.g. "equal to mu").
    description : str
    static : bool
        True for a static coefficient (the schema's ``mu_s``), False for a dynamic one.
    """
    base = COULOMB_SCHEMA["mu_s" if static else "mu_d"]
    return replace(base, name=name, default=default, description=description)


def baumgarte_parameters(alpha: float, beta: float) -> list[Parameter]:
    """The Baumgarte parameters ``alpha`` (velocity) and ``beta`` (position) of a model that
    exposes them, with their defaults (1/s) and the range [0, 1e6] 1/s: the constraint error
    decays at rates of order alpha and beta, which are useful up to about the inverse of the
    smallest time scale of the motion; far larger values make the equations stiff (an explicit
    method needs steps below 1/alpha) and overflow."""
    hint = ("values of 1 to 100 1/s are usual; an explicit method needs steps well below "
            "1/alpha, 1/beta")
    return [Parameter("alpha", alpha, "1/s", "Baumgarte velocity parameter", 0.0, 1e6, hint=hint),
            Parameter("beta", beta, "1/s", "Baumgarte position parameter", 0.0, 1e6, hint=hint)]


#: The friction description every model with frictional pairs exposes (besides its friction
#: coefficients), derived from the law schemas: the law, LuGre's parameters, the regularized
#: law's (its dry levels ``coulomb`` and ``stiction_extra`` come from the pair's coefficients)
#: and the bristle law's own (``mu_v``, ``tau_dw``; its ``sigma0``, ``sigma1``, ``v_s`` are
#: LuGre's entries).
FRICTION_PARAMETERS = [
    Parameter("friction", "coulomb", "-", "friction law of the pairs", choices=tuple(LAWS)),
    *(replace(p, description=f"LuGre {p.description}") for p in LUGRE_SCHEMA
      if p.name not in COULOMB_SCHEMA),
    *(replace(p, description=f"regularized law: {p.description}") for p in REGULARIZED_SCHEMA
      if p.name not in ("coulomb", "stiction_extra", "normal_load")),
    *(replace(p, description=f"bristle law: {p.description}") for p in BRISTLE_SCHEMA
      if p.name not in COULOMB_SCHEMA and p.name not in LUGRE_SCHEMA),
]

#: Other accepted names (MotionSolve's attribute names, ``mu0``) for our parameter names.
PARAMETER_ALIASES = {alias: p.name for schema in LAW_SCHEMAS.values() for p in schema
                     for alias in p.alias_names if alias != p.name}

_FRICTION_KEYS = tuple(p.name for p in FRICTION_PARAMETERS if p.name != "friction")


def check_friction_coefficients(model_name: str, p: dict,
                                names: tuple[str, str] = ("mu_s", "mu_d")) -> None:
    """A model's static coefficient must not be below its dynamic one (the one check of
    :func:`nonsmooth.friction.schema.check_static_dynamic`); a static coefficient None
    (meaning "equal to the dynamic one") passes."""
    s, d = names
    if p[s] is not None:
        check_static_dynamic(f"model {model_name}", p[s], p[d], names=names)


def friction_params(p: dict) -> dict:
    """The pair ``params`` (``FrictionPair.params``) from checked model parameters."""
    return {k: p[k] for k in _FRICTION_KEYS if k in p}


def check_parameters(model_name: str, parameters: Sequence[Parameter], given: dict) -> dict:
    """Defaults updated with ``given``, every value checked; unknown names list the valid ones.

    Other names of a parameter (``PARAMETER_ALIASES``: MotionSolve's ``bristle_stiffness`` ...)
    are accepted; giving two names of one parameter is an error."""
    where = f"model {model_name}"
    known = {p.name: p for p in parameters}
    canonical: dict[str, str] = {}  # parameter name -> the name it was given as
    values_given = {}
    for key, val in given.items():
        target = PARAMETER_ALIASES.get(key, key) if PARAMETER_ALIASES.get(key) in known else key
        if target in canonical:
            others = [a for a, t in PARAMETER_ALIASES.items() if t == target]
            raise ModelError(f"{where}: {canonical[target]} and {key} are one parameter: "
                             f"{target} (also called {', '.join(others)}); give only one of "
                             "them")
        canonical[target] = key
        values_given[target] = val
    unknown = [canonical[k] for k in values_given if k not in known]
    if unknown:
        valid = (f"valid parameters: {', '.join(known)}" if known
                 else "this model has no parameters to set")
        raise ModelError(f"{where}: unknown parameter(s) {', '.join(unknown)}; {valid}")
    values = {p.name: p.default for p in parameters}
    values.update(values_given)
    return {k: known[k].check(val, where) for k, val in values.items()}


@dataclass(frozen=True)
class Output:
    """A named output column: ``function(result) -> ndarray (N,)`` and its unit; ``label``, if
    given, says what the column is on a plot's axis (a MotionSolve request's expression)."""

    function: Callable
    unit: str
    description: str = ""
    label: str = ""


@dataclass
class Model:
    """What :func:`nonsmooth.simulate` runs.

    Attributes
    ----------
    system : System
    q0, v0 : ndarray, (n_q,), (n_v,) initial state (projected onto the constraints at start)
    name : str
    outputs : dict of str to Output   named output columns, in order
    parameters : dict                 the parameter values the model was built with
    t_end, dt : float                 default end time and output step (s); dt None:
                                      a thousandth of the simulated interval
    plot_outputs : tuple of str       the outputs ``Result.plot()`` shows by default
    motion_outputs : tuple of str     the outputs ``compare()`` treats as the motion
    alpha, beta : float or None       Baumgarte parameters (1/s), None = engine default
    tstops : tuple of float           times at which the model's given inputs jump (a clutch
                                      engaging): ``simulate``'s default ``tstops`` (s)
    period : float or None            the period of the model's forcing (s), if it is forced
                                      periodically: the default period of a stroboscopic
                                      Poincare section (:mod:`nonsmooth.sections`)
    span_note : str                   why ``t_end`` is a default the model file did not give
                                      (a MotionSolve file without ``<Simulate>``): a run on
                                      that span warns with it; "" when the span is the model's
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
    tstops: tuple[float, ...] = ()
    span_note: str = ""
    period: float | None = None

    def __post_init__(self):
        sysm = self.system
        self.q0 = np.asarray(self.q0, dtype=float).reshape(-1)
        self.v0 = np.asarray(self.v0, dtype=float).reshape(-1)
        for nm, arr, n, what, names in (
                ("q0", self.q0, sysm.n_q, "coordinates", sysm.coordinate_names),
                ("v0", self.v0, sysm.n_v, "velocities", sysm.velocity_names)):
            if arr.shape != (n,):
                raise ModelError(f"model {self.name}: {nm} has {arr.size} entries; the system "
                                 f"has {n} {what} {names}")


def refuse_removed_rows(system, redundant: str | None, name: str) -> None:
    """Check ``redundant`` (None, ``"remove"`` or ``"refuse"``) and, with ``"refuse"``,
    raise :class:`ModelError` when ``system`` was compiled with constraint rows removed as
    redundant (its ``removed_rows``, named)."""
    if redundant not in (None, "remove", "refuse"):
        raise ModelError(f"model {name}: redundant = {redundant!r} is invalid; allowed: "
                         "'remove' (drop redundant constraint rows, with a warning) or "
                         "'refuse' (name them in an error)")
    removed = list(getattr(system, "removed_rows", ()) or ())
    if redundant == "refuse" and removed:
        raise ModelError(f"model {name}: redundant='refuse', but the model was compiled with "
                         f"the redundant constraint rows {removed} removed; compile it with "
                         "redundant='refuse' to see why, or run it with redundant='remove'")


def as_model(obj, *, q0=None, v0=None, redundant: str | None = None) -> Model:
    """Accept a Model, a model builder (a PlanarModel, a SpatialModel: anything with
    ``compile()`` and ``initial_state()``) or a System (+ q0, v0) and return a Model.

    ``redundant`` (``"remove"`` or ``"refuse"``; None: the model's own) is handed to a
    builder whose ``compile`` takes it (a SpatialModel); a system already compiled with rows
    removed as redundant is refused with ``"refuse"`` (:func:`refuse_removed_rows`)."""
    if isinstance(obj, Model):
        refuse_removed_rows(obj.system, redundant, obj.name)
        if q0 is None and v0 is None:
            return obj
        return replace(obj, q0=obj.q0 if q0 is None else q0,  # every other field kept
                       v0=obj.v0 if v0 is None else v0)
    if callable(getattr(obj, "compile", None)) and callable(getattr(obj, "initial_state", None)):
        # a builder of any family (PlanarModel, SpatialModel)
        if redundant is not None and "redundant" in inspect.signature(obj.compile).parameters:
            system = obj.compile(redundant=redundant)
        else:
            system = obj.compile()
            refuse_removed_rows(system, redundant, obj.name)
        qi, vi = obj.initial_state()
        return Model(system, qi if q0 is None else q0, vi if v0 is None else v0, obj.name)
    if isinstance(obj, System):
        refuse_removed_rows(obj, redundant, type(obj).__name__)
        if q0 is None:
            raise ModelError("simulating a bare System needs q0 (and v0; default zeros)")
        return Model(obj, q0, np.zeros(obj.n_v) if v0 is None else v0)
    raise ModelError(f"cannot simulate {type(obj).__name__}: expected a nonsmooth.Model, a "
                     "PlanarModel or a System")
