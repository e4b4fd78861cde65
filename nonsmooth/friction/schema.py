"""The parameter schema of every friction law: one table per law, the single source of truth.

A :class:`Parameter` is one documented, range-checked value (name, default, unit, the physically
meaningful range, MotionSolve's attribute name and other accepted aliases, a description and a
hint on what to try when a value is refused). A :class:`LawSchema` is the ordered table of one
law. Everything else is derived from these tables: the laws' constructor defaults and checks
(:mod:`.coulomb`, :mod:`.lugre`, :mod:`.regularized`), the model parameters
(``nonsmooth.model.FRICTION_PARAMETERS``, ``PARAMETER_ALIASES``), ``FrictionPair.make_law`` and
the MotionSolve reader's ``Force_JointFriction`` defaults and range checks.

Ranges (SI) and why
-------------------
* ``mu_s``, ``mu_d`` (Coulomb): [0, 10]. Measured coefficients of real material pairs lie between
  about 0.001 (lubricated, rolling) and 2 (clean metals); above 10 is a unit or typing error.
  LuGre divides by its Stribeck curve ``g(v) >= mu_d``, so there [1e-4, 10].
* ``sigma0`` (LuGre bristle stiffness per newton of load): [1, 1e10] 1/m. ``mu_s / sigma0`` is the
  presliding displacement: at 1e10 1/m it is below an atomic spacing (more is stiffness without
  physics: the run only slows down), at 1 1/m it is about a metre (no bristle any more).
* ``sigma1`` (bristle damping per newton): [0, 1e8] s/m; critical damping ``2 sqrt(sigma0 m / N)``
  stays below 1e5 s/m over the whole ``sigma0`` range.
* ``sigma2``, ``viscous`` (viscous coefficients): [0, 1e8] N s/m, above the largest hydraulic
  dampers (about 1e7 N s/m). Far larger values make the smooth laws too stiff to integrate
  (``sigma2 = 1e308`` ran for more than ten minutes).
* ``v_s``, ``falloff_vel`` (transition velocities): [1e-9, 1e3] m/s: measured Stribeck velocities
  are 1e-5 to 1e-1 m/s; a nanometre per second is far below anything measurable, and at
  ``falloff_vel = 1e-300`` the integration stalls.
* ``stribeck_vel``: 0 (no Stribeck term) or [1e-9, 1e3] m/s, as above.
* ``coulomb``, ``stiction_extra`` of the regularized law: coefficients of the normal load in
  [0, 10] (as ``mu``), or with ``normal_load=False`` forces in [0, 1e9] N.
* The bristle law (:mod:`.bristle`) shares ``sigma0``, ``sigma1`` and ``v_s`` with LuGre (the
  same meaning, unit, default and range: a pair's one friction description serves both);
  ``mu_v`` (viscous, N s/m) as ``sigma2``; ``tau_dw`` (dwell-time constant): [1e-6, 1e6] s,
  from a microsecond (stiction that matures within a step of any practical run) to about ten
  days (creep of the contact junctions is measured over seconds to hours).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace

from ..errors import ModelError

__all__ = [
    "Parameter",
    "LawSchema",
    "COULOMB_SCHEMA",
    "LUGRE_SCHEMA",
    "REGULARIZED_SCHEMA",
    "REGULARIZED_ABSOLUTE",
    "BRISTLE_SCHEMA",
    "LAW_SCHEMAS",
    "check_static_dynamic",
]


def _g(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Parameter:
    """A documented, range-checked parameter (of a friction law or of a model).

    Parameters
    ----------
    name : str
        The name (keyword argument, model parameter).
    default : float, str, bool or None
        Default value (SI); None: optional (the owner says what it means).
    unit : str
        SI unit text, ``"-"`` for a pure number.
    description : str
        One line of what it is.
    minimum, maximum : float or None
        The physically meaningful range; ``exclusive`` makes the minimum strict (> instead of
        >=). Values outside it (and non-finite values) are refused.
    exclusive : bool
        Strict minimum.
    choices : tuple or None
        The allowed values of a text (or truth-value) parameter.
    motionsolve : str or None
        MotionSolve's attribute name for it (``Force_JointFriction``), accepted as an alias.
    aliases : tuple of str
        Other accepted names.
    zero_allowed : bool
        0 is allowed besides the range (``stribeck_vel = 0``: no Stribeck term).
    hint : str
        What to try when a value is refused (one line).
    """

    name: str
    default: float | str | bool | None
    unit: str
    description: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive: bool = False
    choices: tuple | None = None
    motionsolve: str | None = None
    aliases: tuple[str, ...] = ()
    zero_allowed: bool = False
    hint: str = ""

    # ------------------------------------------------------------------ texts
    @property
    def alias_names(self) -> tuple[str, ...]:
        """Every other name accepted for this parameter (MotionSolve's first)."""
        return ((self.motionsolve,) if self.motionsolve else ()) + tuple(self.aliases)

    def range_text(self) -> str:
        """The allowed values, e.g. ``"> 0 and <= 1e+09"`` (without the unit)."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.default is None and self.minimum is None and self.maximum is None:
            return "optional"
        lo = "" if self.minimum is None else (
            f"{'>' if self.exclusive else '>='} {_g(self.minimum)}")
        hi = "" if self.maximum is None else f"<= {_g(self.maximum)}"
        text = " and ".join(x for x in (lo, hi) if x) or "any finite number"
        if self.zero_allowed:
            text = f"0, or {text}"
        return f"optional, {text}" if self.default is None else text

    def interval_text(self) -> str:
        """The range as an interval with its unit, e.g. ``"[0, 1e+08] N s/m"``."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        lo = "(-inf" if self.minimum is None else (
            f"{'(' if self.exclusive else '['}{_g(self.minimum)}")
        hi = "inf)" if self.maximum is None else f"{_g(self.maximum)}]"
        text = f"{lo}, {hi}"
        if self.zero_allowed:
            text = f"0 or {text}"
        return text if self.unit in ("", "-") else f"{text} {self.unit}"

    def sign_text(self) -> str:
        """``"> 0"``, ``">= 0"`` or ``""``: the sign condition the range implies."""
        if self.minimum is None or self.minimum < 0:
            return ""
        if self.zero_allowed or (self.minimum == 0 and not self.exclusive):
            return ">= 0"
        return "> 0"

    def advice(self) -> str:
        """What to try (the hint, or a generic one)."""
        if self.hint:
            return self.hint
        unit = "" if self.unit in ("", "-") else f" (in {self.unit})"
        return f"give a value in that range{unit}"

    # ------------------------------------------------------------------ checks
    def contains(self, x: float) -> bool:
        """Whether the number ``x`` is finite and inside the range."""
        if not math.isfinite(x):
            return False
        if self.zero_allowed and x == 0:
            return True
        if self.minimum is not None and (x <= self.minimum if self.exclusive
                                         else x < self.minimum):
            return False
        return self.maximum is None or x <= self.maximum

    def check(self, value, where: str):
        """A model parameter: the value converted and checked; a ModelError naming it otherwise.

        ``where`` names the owner (``"model incline"``)."""
        if value is None and self.default is None:
            return None  # an optional parameter left unset
        if self.choices:
            if str(value) not in [str(c) for c in self.choices]:
                raise ModelError(f"{where}: parameter {self.name} = {value!r} is invalid; allowed: "
                                 f"{self.range_text()}")
            return str(value)
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ModelError(f"{where}: parameter {self.name} = {value!r} is not a number "
                             f"({self.unit}); allowed: {self.range_text()}") from None
        if not self.contains(x):
            raise ModelError(f"{where}: parameter {self.name} = {value!r} is out of range; "
                             f"allowed: {self.range_text()} ({self.unit}); {self.advice()}")
        return x

    def validate(self, value, where: str, name: str | None = None):
        """A law's argument: the value as a float (or a choice); a ModelError otherwise.

        ``where`` names the owner (``"lugre friction"``), ``name`` overrides the displayed name
        (``FrictionPair``'s ``mu`` is the schema's ``mu_d``)."""
        name = name or self.name
        if self.choices:
            if value not in self.choices:
                raise ModelError(f"{where}: {name} = {value!r}; allowed: "
                                 f"{', '.join(str(c) for c in self.choices)}")
            return value
        try:
            x = float(value)
        except (TypeError, ValueError, OverflowError):
            raise ModelError(f"{where}: {name} = {value!r} is not a number (allowed: "
                             f"{self.interval_text()})") from None
        if not self.contains(x):
            sign = self.sign_text()
            raise ModelError(f"{where}: {name} = {value!r} is invalid; it must be a finite "
                             f"number {sign + ' ' if sign else ''}within {self.interval_text()} "
                             f"({self.description}); {self.advice()}")
        return x


@dataclass(frozen=True)
class LawSchema:
    """The ordered parameter table of one friction law.

    Parameters
    ----------
    law : str
        The law's registry name (``"lugre"``), used in messages (``"lugre friction: ..."``).
    parameters : tuple of Parameter
    """

    law: str
    parameters: tuple[Parameter, ...]

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self.parameters)

    def __len__(self) -> int:
        return len(self.parameters)

    def __contains__(self, name: str) -> bool:
        return any(p.name == name for p in self.parameters)

    def __getitem__(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"{self.law} friction has no parameter {name!r}; parameters: "
                       f"{', '.join(self.names)}")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    @property
    def where(self) -> str:
        return f"{self.law} friction"

    def defaults(self) -> dict:
        """``{name: default}`` of every parameter."""
        return {p.name: p.default for p in self.parameters}

    def validate(self, name: str, value):
        """``value`` checked against parameter ``name`` (a ModelError naming the law)."""
        return self[name].validate(value, self.where)

    def pick(self, params: Mapping) -> dict:
        """The entries of ``params`` this law takes (a pair's description is a superset)."""
        return {k: params[k] for k in self.names if k in params}


def check_static_dynamic(where: str, mu_s: float, mu_d: float,
                         names: tuple[str, str] = ("mu_s", "mu_d")) -> None:
    """The one ``mu_s >= mu_d`` check (laws, pairs, models, the MotionSolve reader).

    Parameters
    ----------
    where : str
        The owner, e.g. ``"model incline"``.
    mu_s, mu_d : float
        Static and dynamic coefficients (-).
    names : (str, str)
        Their names as the owner calls them (``("mu_static", "mu_dynamic")`` in MotionSolve).
    """
    if mu_s < mu_d:
        s, d = names
        raise ModelError(f"{where}: {s} = {mu_s:g} must be >= {d} = {mu_d:g}: the static "
                         f"coefficient must be >= {d}, the dynamic one (friction at rest is never "
                         f"weaker than sliding friction); raise {s} or lower {d}")


# ----------------------------------------------------------------------------- the tables
_MU_HINT = ("measured friction coefficients lie between about 0.001 (lubricated) and 2 (clean "
            "metals); a larger value is probably a unit or typing error")

MU_S = Parameter(
    "mu_s", None, "-", "static (breakaway) friction coefficient, >= mu_d; None: equal to mu_d",
    0.0, 10.0, motionsolve="mu_static", aliases=("mu0",), hint=_MU_HINT)
MU_D = Parameter(
    "mu_d", 0.3, "-", "dynamic (sliding) friction coefficient", 0.0, 10.0,
    motionsolve="mu_dynamic", hint=_MU_HINT)

COULOMB_SCHEMA = LawSchema("coulomb", (MU_S, MU_D))

_LUGRE_MU_HINT = ("LuGre divides by its Stribeck curve g(v) >= mu_d, so the coefficients must "
                  "be positive; for a frictionless pair use the coulomb law with mu = 0")
_PER_MM = "; a value per mm (MotionSolve models in mm) is {} in SI"

LUGRE_SCHEMA = LawSchema("lugre", (
    replace(MU_S, minimum=1e-4, hint=_LUGRE_MU_HINT),
    replace(MU_D, minimum=1e-4, hint=_LUGRE_MU_HINT),
    Parameter("sigma0", 1e5, "1/m", "bristle stiffness per N of normal load", 1.0, 1e10,
              motionsolve="bristle_stiffness",
              hint="mu_s / sigma0 is the presliding displacement (MotionSolve's default 1e5 1/m "
                   "gives 5 um at mu_s = 0.5): above 1e10 1/m it is below an atomic spacing, "
                   "below 1 1/m above a metre" + _PER_MM.format("1000 times larger")),
    Parameter("sigma1", 316.0, "s/m", "bristle damping per N of normal load", 0.0, 1e8,
              motionsolve="damping_effects",
              hint="critically damped bristles have sigma1 = 2 sqrt(sigma0 m / N) (about 316 "
                   "s/m for the defaults)" + _PER_MM.format("1000 times larger")),
    Parameter("sigma2", 0.4, "N s/m", "viscous coefficient", 0.0, 1e8,
              motionsolve="viscous_effects",
              hint="1e8 N s/m exceeds the largest hydraulic dampers and larger values make the "
                   "law too stiff to integrate; a joint that must not slide is the coulomb law "
                   "(it sticks) or a locked joint"),
    Parameter("v_s", 1e-4, "m/s", "Stribeck (stiction-to-sliding transition) velocity", 1e-9,
              1e3, motionsolve="stiction_trans_vel",
              hint="measured Stribeck velocities lie between about 1e-5 and 0.1 m/s; smaller "
                   "values only make the law stiffer" + _PER_MM.format("1000 times smaller")),
    Parameter("effect", "ALL", "-", "effect switch: ALL, STICTION (static only) or SLIDING "
              "(dynamic only)", choices=("ALL", "STICTION", "SLIDING"),
              motionsolve="effect"),
))

_VISCOUS_HINT = ("1e8 N s/m exceeds the largest hydraulic dampers and larger values make the "
                 "law too stiff to integrate")
_COEFFICIENT_HINT = (_MU_HINT + "; with normal_load=False it is a force in N, up to 1e9 N")
_VELOCITY_HINT = ("1e-6 to 1e-2 m/s are usual; smaller values approximate sticking better but "
                  "make the law stiffer, and far smaller ones stall the integration")

REGULARIZED_SCHEMA = LawSchema("regularized", (
    Parameter("viscous", 0.0, "N s/m", "viscous coefficient", 0.0, 1e8, hint=_VISCOUS_HINT),
    Parameter("coulomb", 0.0, "-", "dynamic dry level: a coefficient of the normal load (a force "
              "in N with normal_load=False); a pair's default is its mu_d", 0.0, 10.0,
              hint=_COEFFICIENT_HINT),
    Parameter("falloff_vel", 1e-3, "m/s", "velocity of the breakaway peak", 1e-9, 1e3,
              hint=_VELOCITY_HINT),
    Parameter("stiction_extra", 0.0, "-", "extra static level above coulomb (a force in N with "
              "normal_load=False); a pair's default is its mu_s - mu_d", 0.0, 10.0,
              hint=_COEFFICIENT_HINT),
    Parameter("stribeck_vel", 0.01, "m/s", "Stribeck decay velocity past the peak (0: none; "
              "then the force jumps at falloff_vel)", 1e-9, 1e3, zero_allowed=True,
              hint="0 switches the Stribeck term off; otherwise " + _VELOCITY_HINT),
    Parameter("normal_load", True, "-", "True: coulomb and stiction_extra multiply the normal "
              "load N; False: they are forces (N)", choices=(True, False)),
))

#: The regularized law's dry levels with ``normal_load=False``: forces, not coefficients.
REGULARIZED_ABSOLUTE = LawSchema("regularized", tuple(
    replace(REGULARIZED_SCHEMA[name], unit="N", maximum=1e9, description=text,
            hint="1e9 N is beyond the friction of any machine joint; check the unit (N)")
    for name, text in (("coulomb", "dynamic dry friction force (normal_load=False)"),
                       ("stiction_extra", "extra static friction force (normal_load=False)"))))

_BRISTLE_MU_HINT = ("the bristle law divides by its stiction level mu_st >= mu_d, so the "
                    "coefficients must be positive; for a frictionless pair use the coulomb law "
                    "with mu = 0")

#: The seven-parameter bristle law with dwell-time stiction (:mod:`.bristle`): ``sigma0``,
#: ``sigma1`` and ``v_s`` are LuGre's entries (one meaning, default and range), renamed only in
#: their descriptions; ``mu_v`` and ``tau_dw`` are its own.
BRISTLE_SCHEMA = LawSchema("bristle", (
    replace(MU_S, minimum=1e-4, description="static coefficient after a long dwell, >= mu_d; "
            "None: equal to mu_d", hint=_BRISTLE_MU_HINT),
    replace(MU_D, minimum=1e-4, description="kinetic (sliding) friction coefficient, also the "
            "stiction level right after a slide", hint=_BRISTLE_MU_HINT),
    Parameter("mu_v", 0.0, "N s/m", "viscous coefficient of the sliding force", 0.0, 1e8,
              hint="1e8 N s/m exceeds the largest hydraulic dampers and larger values make the "
                   "law too stiff to integrate"),
    replace(LUGRE_SCHEMA["v_s"], description="transition velocity of the stiction-to-sliding "
            "blend exp(-(v / v_s)^2)", motionsolve=None,
            hint="measured transition velocities lie between about 1e-5 and 0.1 m/s; smaller "
                 "values only make the law stiffer"),
    replace(LUGRE_SCHEMA["sigma0"], motionsolve=None,
            hint="mu_st / sigma0 is the breakaway (presliding) displacement, the same at every "
                 "load (the default 1e5 1/m gives 5 um at mu_s = 0.5): above 1e10 1/m it is "
                 "below an atomic spacing, below 1 1/m above a metre"),
    replace(LUGRE_SCHEMA["sigma1"], motionsolve=None,
            hint="critically damped bristles have sigma1 = 2 sqrt(sigma0 m / N); keep sigma1 "
                 "v_s <= sqrt(2 e) mu_d so that the bristle damping never injects energy"),
    Parameter("tau_dw", 0.1, "s", "dwell-time constant: the stiction level rises from mu_d "
              "toward mu_s as 1 - exp(-t_stuck / tau_dw)", 1e-6, 1e6,
              hint="measured stiction grows over about 0.01 s to minutes of dwell; a far "
                   "smaller value makes the dwell state stiff (its rate is 1 / tau_dw)"),
))

#: The schema of every law by its registry name.
LAW_SCHEMAS: dict[str, LawSchema] = {s.law: s for s in (COULOMB_SCHEMA, LUGRE_SCHEMA,
                                                        REGULARIZED_SCHEMA, BRISTLE_SCHEMA)}


def apply_effect(mu_d: float, mu_s: float | None, params) -> tuple[float, float | None]:
    """The coefficients a set-valued or regularized law uses under MotionSolve's ``effect``
    (``params["effect"]``, default ``ALL``; ``docs/design/spatial_friction.md`` section 4.3):
    ``STICTION`` the static coefficient everywhere (``mu_d := mu_s``), ``SLIDING`` the dynamic
    one everywhere (``mu_s := mu_d``: the pair sticks at the dynamic level), ``ALL`` both as
    given. Returns ``(mu_d, mu_s)`` (``mu_s`` None: equal to ``mu_d``). LuGre reads ``effect``
    itself (its bristles and viscous term)."""
    effect = str(params.get("effect", "ALL")).upper() if params else "ALL"
    LUGRE_SCHEMA["effect"].validate(effect, "friction", name="effect")
    static = mu_d if mu_s is None else mu_s
    if effect == "STICTION":
        return static, static
    if effect == "SLIDING":
        return mu_d, mu_d
    return mu_d, mu_s
