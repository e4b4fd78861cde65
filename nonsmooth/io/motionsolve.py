"""Altair MotionSolve XML models (planar subset) as :class:`nonsmooth.Model`.

:func:`load_motionsolve` reads a MotionSolve ``.xml`` model, converts it to SI, finds the plane of
motion, builds the planar model (:mod:`nonsmooth.planar`, :mod:`nonsmooth.joints`) and declares
the ``Post_Request`` expressions as named outputs in the *model's* units.

Supported elements
------------------
``<Model>``: ``Param_Unit`` (force/mass/length/time units), ``Reference_Marker`` (``pos_x/y/z``;
orientation from ``a00 .. a22`` -- x-axis ``(a00, a10, a20)``, z-axis ``(a02, a12, a22)``,
``y = z x x``, missing entries from the identity -- or the 3-1-3 Euler angles ``psi, theta, phi``;
``rm_id`` for a marker given relative to another), ``Body_Rigid`` (``IsGround``, ``mass``,
``cg_id``, ``im_id``, ``inertia_xx .. inertia_xz`` in the IM marker axes, ``v_ic_*``/``w_ic_*``
initial velocities), ``Constraint_Joint`` of type ``REVOLUTE`` (axis: the z-axis of the I and J
markers) or ``TRANSLATIONAL`` (slide axis: the z-axis of the J marker), ``Force_Gravity``,
``Force_JointFriction`` (every attribute of ``shared/spec/joint_friction.md`` with MotionSolve's
defaults) and ``Post_Request`` of type ``EXPRESSION``. ``<Command>``: ``Simulate`` (transient:
``end_time`` and ``num_step`` or ``print_interval``).

Ignored (solver settings and presentation, without effect on the physics here):
``Param_Transient``, ``Post_Graphic``, ``Messaging``, ``H3DOutput``, ``ResOutput``; the model
records them in :attr:`MotionSolveModel.ignored` and in its description. Any other element is a
:class:`~nonsmooth.errors.ModelError` naming it, its id and what is supported.

Units
-----
Every value is converted to SI as read; MotionSolve's unit systems need not be consistent
(N, kg, mm, s is the common one), converting each quantity separately makes them so. The
Force_JointFriction defaults are per model unit (``bristle_stiffness = 100`` per length unit,
``damping_effects = 0.316`` time/length, ``viscous_effects = 0.0004`` force time/length,
``stiction_trans_vel = 0.1`` length/time ...). Outputs are converted back to the model's units;
the time column ``t`` stays in seconds.

The plane
---------
The plane normal ``n`` is the z-axis of the J marker of the first revolute joint; every revolute
axis must be parallel to it, translational axes, gravity and the initial velocities perpendicular
to it (without revolute joints ``n`` is the normal of the translational axes and gravity, or the
first global axis perpendicular to all of them). The in-plane basis ``(e1, e2)`` has
``e1 x e2 = n``; with gravity ``e2`` points up (against gravity), so gravity acts along ``-y`` as
in the rest of the package. A 3-D point ``r`` maps to ``(r . e1, r . e2)``. Each body's planar
frame is aligned with ``(e1, e2)`` at t = 0 (``theta = 0``): ``<body>.theta`` is its rotation
about ``n`` since the start.

Joints
------
A MotionSolve joint acts between the I marker's body and the J marker's body; here
``body_i`` is the J body and ``body_j`` the I body, so the multipliers ``<joint>.x, .y`` are the
reaction on the I body and the slip velocity is that of I relative to J, as MotionSolve reports
them. A ``Force_JointFriction`` makes the joint a LuGre frictional pair of the same name
(``law="lugre"``). In a planar model a revolute joint has no axial load and no bending moment,
so ``friction_arm`` and ``bending_reaction_arm`` are read and checked but have no effect;
``max_stiction_deform``, ``ball_radius`` and ``yoke_choice`` do not apply to planar revolute and
translational joints, and ``inactive = STATIC`` only concerns static analyses.

Outputs
-------
Column ``req<id>.expr<k>`` for each non-NULL ``expr<k>`` of ``Post_Request id``. Expressions may
combine numbers, ``PI``, ``TIME``, ``+ - * / **``, ``ABS SIN COS TAN ASIN ACOS ATAN ATAN2 SQRT EXP
LOG LOG10 SINH COSH TANH MIN MAX SIGN`` and the measures

* ``DX, DY, DZ(I[, J[, K]])``: displacement of marker I relative to J along K's axes,
  ``DM(I[, J])``;
* ``VX, VY, VZ(I[, J[, K[, L]]])``: velocity of I relative to J (time derivative in the ground
  frame, ``L = 0`` only) along K's axes, ``VM(I[, J])``;
* ``WX, WY, WZ(I[, J[, K]])``: angular velocity of I relative to J along K's axes, ``WM(I[, J])``;
* ``FRICTION(id, comp)``: of ``Force_JointFriction id`` -- 1-3 friction force along the J marker
  axes (on the I body), 4-6 friction torque about them, 7-9 translational and 10-12 rotational
  friction coefficient (``|friction| / N`` along the axis: our reading), 13-15 translational
  slip velocity, 16-18 rotational slip velocity (``pin_radius * w``, length/time, as the LuGre
  law sees it: our reading).

J, K default to the ground origin and the global axes (marker 0).

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker, Body_Rigid,
Constraint_Joint, Force_JointFriction, Post_Request, Param_Unit, Simulate) and its functions
DX, VX, WZ, FRICTION.
"""

from __future__ import annotations

import ast
import math
import re
import types
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError
from ..friction.schema import LUGRE_SCHEMA, check_static_dynamic

if TYPE_CHECKING:
    from ..model import Model

__all__ = [
    "MotionSolveModel",
    "Units",
    "Plane",
    "load_motionsolve",
    "loads_motionsolve",
    "read_motionsolve",
    "motionsolve_module",
    "SUPPORTED_ELEMENTS",
    "IGNORED_ELEMENTS",
    "JOINT_TYPES",
]

SUPPORTED_ELEMENTS = ("Param_Unit", "Reference_Marker", "Body_Rigid", "Constraint_Joint",
                      "Force_Gravity", "Force_JointFriction", "Post_Request", "Simulate")
IGNORED_ELEMENTS = ("Param_Transient", "Post_Graphic", "Messaging", "H3DOutput", "ResOutput")
JOINT_TYPES = ("REVOLUTE", "TRANSLATIONAL")

_MODEL_ELEMENTS = SUPPORTED_ELEMENTS[:-1]
_IGNORED_IN_MODEL = ("Param_Transient", "Post_Graphic")
_IGNORED_IN_COMMAND = ("H3DOutput", "ResOutput", "Param_Transient")
_IGNORED_AT_ROOT = ("Messaging",)

#: tolerance of the planarity checks (unit vectors)
PLANE_TOL = 1e-6

# --------------------------------------------------------------------------- units
_FORCE = {"NEWTON": (1.0, "N"), "KNEWTON": (1e3, "kN"), "KILONEWTON": (1e3, "kN"),
          "MEGANEWTON": (1e6, "MN"), "CENTINEWTON": (1e-2, "cN"), "MILLINEWTON": (1e-3, "mN"),
          "MICRONEWTON": (1e-6, "uN"), "NANONEWTON": (1e-9, "nN"), "DYNE": (1e-5, "dyn"),
          "KILOGRAM_FORCE": (9.80665, "kgf"), "POUND_FORCE": (4.4482216152605, "lbf"),
          "KPOUND_FORCE": (4448.2216152605, "klbf"), "OUNCE_FORCE": (0.27801385095378125, "ozf"),
          "POUNDAL": (0.138254954376, "pdl")}
_MASS = {"KILOGRAM": (1.0, "kg"), "GRAM": (1e-3, "g"), "MILLIGRAM": (1e-6, "mg"),
         "MICROGRAM": (1e-9, "ug"), "NANOGRAM": (1e-12, "ng"), "MEGAGRAM": (1e3, "Mg"),
         "TONNE": (1e3, "t"), "POUND_MASS": (0.45359237, "lbm"), "KPOUND_MASS": (453.59237, "klbm"),
         "OUNCE_MASS": (0.028349523125, "ozm"), "SLUG": (14.593902937206364, "slug"),
         "US_TON": (907.18474, "ton"), "SLINCH": (4.4482216152605 / 0.0254, "slinch")}
_LENGTH = {"METER": (1.0, "m"), "MILLIMETER": (1e-3, "mm"), "CENTIMETER": (1e-2, "cm"),
           "KILOMETER": (1e3, "km"), "MICROMETER": (1e-6, "um"), "NANOMETER": (1e-9, "nm"),
           "ANGSTROM": (1e-10, "A"), "INCH": (0.0254, "in"), "FOOT": (0.3048, "ft"),
           "YARD": (0.9144, "yd"), "MILE": (1609.344, "mi"), "MILLIINCH": (2.54e-5, "mil"),
           "MILS": (2.54e-5, "mil"), "MILLS": (2.54e-5, "mil"), "MICROINCH": (2.54e-8, "uin")}
_TIME = {"SECOND": (1.0, "s"), "MILLISECOND": (1e-3, "ms"), "MICROSECOND": (1e-6, "us"),
         "NANOSECOND": (1e-9, "ns"), "MINUTE": (60.0, "min"), "HOUR": (3600.0, "h"),
         "DAY": (86400.0, "d")}
_UNIT_TABLES = {"force_unit": _FORCE, "mass_unit": _MASS, "length_unit": _LENGTH,
                "time_unit": _TIME}

# dimensions as exponents of (force, mass, length, time)
NONE = (0, 0, 0, 0)
LENGTH = (0, 0, 1, 0)
TIME = (0, 0, 0, 1)
MASS = (0, 1, 0, 0)
FORCE = (1, 0, 0, 0)
TORQUE = (1, 0, 1, 0)
VELOCITY = (0, 0, 1, -1)
ACCELERATION = (0, 0, 1, -2)
INERTIA = (0, 1, 2, 0)
RATE = (0, 0, 0, -1)  # angular velocity (rad per time unit)
PER_LENGTH = (0, 0, -1, 0)
TIME_PER_LENGTH = (0, 0, -1, 1)
VISCOUS = (1, 0, -1, 1)


@dataclass(frozen=True)
class Units:
    """A MotionSolve unit system (``Param_Unit``); defaults are MotionSolve's (SI)."""

    force: str = "NEWTON"
    mass: str = "KILOGRAM"
    length: str = "METER"
    time: str = "SECOND"

    def _entries(self):
        return (_FORCE[self.force], _MASS[self.mass], _LENGTH[self.length], _TIME[self.time])

    def factor(self, dim) -> float:
        """SI value of one model unit of dimension ``dim`` (exponents of F, M, L, T)."""
        out = 1.0
        for (f, _), e in zip(self._entries(), dim, strict=True):
            out *= f ** e
        return out

    def label(self, dim, numerator: str = "") -> str:
        """Unit text, e.g. ``"N s/mm"``; ``"-"`` for a pure number."""
        top = [numerator] if numerator else []
        bottom = []
        for (_, sym), e in zip(self._entries(), dim, strict=True):
            part = sym if abs(e) == 1 else f"{sym}^{abs(e)}"
            if e > 0:
                top.append(part)
            elif e < 0:
                bottom.append(part)
        text = " ".join(top) or ("1" if bottom else "-")
        if bottom:
            text += "/" + (bottom[0] if len(bottom) == 1 else "(" + " ".join(bottom) + ")")
        return text

    def describe(self) -> str:
        return ", ".join(e[1] for e in self._entries())


# --------------------------------------------------------------------------- parsed model
@dataclass
class Marker:
    """A Reference_Marker in SI: ``origin`` (3,) m, ``axes`` (3, 3) with columns x, y, z."""

    id: int
    body: int | None  # Body_Rigid id; None: the global frame (marker 0)
    origin: np.ndarray
    axes: np.ndarray


@dataclass
class RigidBody:
    id: int
    name: str
    ground: bool
    mass: float = 0.0
    inertia: np.ndarray | None = None  # (3, 3) about the CM, global axes, kg m^2
    cg: int | None = None
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    angular_velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass
class Joint:
    id: int
    name: str
    type: str
    i_marker: int
    j_marker: int


@dataclass
class JointFriction:
    """A Force_JointFriction with every attribute in SI (``values``: name -> value)."""

    id: int
    joint: int
    values: dict


@dataclass
class Request:
    id: int
    comment: str
    expressions: list  # (k, text, compiled, unit)


@dataclass(frozen=True)
class Plane:
    """The plane of motion: unit normal ``n`` and in-plane basis ``e1, e2`` (e1 x e2 = n)."""

    normal: np.ndarray
    e1: np.ndarray
    e2: np.ndarray
    source: str

    def to_planar(self, r) -> tuple[float, float]:
        r = np.asarray(r, dtype=float)
        return float(r @ self.e1), float(r @ self.e2)


@dataclass
class MotionSolveModel:
    """A parsed MotionSolve model in SI (the planar model is made by :meth:`build`)."""

    name: str
    source: str
    units: Units
    markers: dict
    bodies: dict
    joints: dict
    frictions: dict  # by joint id
    gravity: np.ndarray
    requests: list
    plane: Plane
    t_end: float | None
    dt: float | None
    ignored: list

    # ---------------------------------------------------------------- geometry
    def planar_position(self, marker_id: int) -> tuple[float, float]:
        """Planar global position (m) of a marker at t = 0."""
        return self.plane.to_planar(self.markers[marker_id].origin)

    def local_point(self, marker_id: int) -> tuple[float, float]:
        """The marker origin in its body's planar frame (m; global for the ground)."""
        mk = self.markers[marker_id]
        x, y = self.planar_position(marker_id)
        body = self.bodies.get(mk.body)
        if body is None or body.ground:
            return x, y
        cx, cy = self.planar_position(body.cg)
        return x - cx, y - cy

    def inertia_about_normal(self, body_id: int) -> float:
        """Moment of inertia (kg m^2) of a body about the plane normal through its CM."""
        n = self.plane.normal
        return float(n @ self.bodies[body_id].inertia @ n)

    def description(self) -> str:
        n_bodies = sum(not b.ground for b in self.bodies.values())
        kinds = ", ".join(f"{j.type.lower()} '{j.name}'" for j in self.joints.values()) or "none"
        text = (f"MotionSolve model {self.source} (units {self.units.describe()}): {n_bodies} "
                f"moving bod{'y' if n_bodies == 1 else 'ies'}, joints: {kinds}, "
                f"{len(self.frictions)} joint friction element(s), plane normal "
                f"{_vec(self.plane.normal)}")
        if self.ignored:
            text += f"; ignored (no effect here): {', '.join(_count(self.ignored))}"
        return text

    # ---------------------------------------------------------------- building
    def build(self) -> Model:
        """The runnable :class:`nonsmooth.Model` (SI inside, outputs in the model's units)."""
        from ..forces import Gravity
        from ..joints import Revolute, Translational
        from ..model import Model, Output
        from ..planar import Body, PlanarModel, ground

        mdl = PlanarModel(self.name)
        plane = self.plane
        engine = {}
        for body in self.bodies.values():
            if body.ground:
                engine[body.id] = ground
                continue
            where = f"{self.source}: Body_Rigid id={body.id}"
            v = body.velocity
            try:
                engine[body.id] = mdl.add(Body(
                    body.name, body.mass, self.inertia_about_normal(body.id),
                    position=self.planar_position(body.cg), angle=0.0,
                    velocity=plane.to_planar(v),
                    angular_velocity=float(body.angular_velocity @ plane.normal)))
            except ModelError as exc:
                raise ModelError(f"{where}: {exc}") from None
        for joint in self.joints.values():
            where = f"{self.source}: Constraint_Joint id={joint.id}"
            mi, mj = self.markers[joint.i_marker], self.markers[joint.j_marker]
            body_i, body_j = _engine_body(engine, mj), _engine_body(engine, mi)
            point_i, point_j = self.local_point(mj.id), self.local_point(mi.id)
            fr = self.frictions.get(joint.id)
            kw = {}
            if fr is not None:
                p = fr.values
                kw = dict(mu=p["mu_dynamic"], mu_s=p["mu_static"], law="lugre",
                          friction={q.name: p[q.motionsolve] for q in LUGRE_SCHEMA
                                    if q.motionsolve and q.name not in ("mu_s", "mu_d")},
                          inputs=p["inputs"])
            try:
                if joint.type == "REVOLUTE":
                    if fr is not None:
                        kw.update(pin_radius=fr.values["pin_radius"],
                                  torque_preload=fr.values["torque_preload"])
                    mdl.add(Revolute(joint.name, body_i, body_j, point_i, point_j, **kw))
                else:
                    axis = plane.to_planar(mj.axes[:, 2])
                    if fr is not None:
                        kw.update(force_preload=fr.values["force_preload"],
                                  reaction_arm=fr.values["reaction_arm"],
                                  initial_overlap=fr.values["initial_overlap"],
                                  overlap_delta=fr.values["overlap_delta"])
                    mdl.add(Translational(joint.name, body_i, body_j, point_i, axis, point_j,
                                          **kw))
            except ModelError as exc:
                raise ModelError(f"{where}: {exc}") from None
        g = float(np.linalg.norm(self.gravity))
        if g > 0:
            mdl.add(Gravity(g, plane.to_planar(self.gravity / g)))
        system = mdl.compile()
        q0, v0 = mdl.initial_state()
        outputs = {}
        for req in self.requests:
            for k, text, fn, unit in req.expressions:
                desc = f"Post_Request {req.id}" + (f" ({req.comment})" if req.comment else "")
                outputs[f"req{req.id}.expr{k}"] = Output(
                    _bind(self, fn), unit or "", f"{desc}: {text} [{unit or 'model units'}]")
        kinematic = tuple(name for name, out in outputs.items()
                          if "FRICTION" not in out.description)
        return Model(system, q0, v0, name=self.name, outputs=outputs,
                     parameters={"source": self.source, "units": self.units.describe()},
                     t_end=self.t_end if self.t_end is not None else 1.0, dt=self.dt,
                     description=self.description(), plot_outputs=tuple(outputs)[:8],
                     motion_outputs=kinematic)


def _engine_body(engine, marker):
    from ..planar import ground

    return ground if marker.body is None else engine[marker.body]


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:.6g}" for x in np.asarray(v, dtype=float) + 0.0) + ")"


def _count(names):
    out = []
    for n in dict.fromkeys(names):
        c = names.count(n)
        out.append(n if c == 1 else f"{n} x{c}")
    return out


# --------------------------------------------------------------------------- reading
_REQUIRED = object()


class _Element:
    """An XML element with case-insensitive attributes and located error messages."""

    def __init__(self, el: ET.Element, source: str, units: Units | None = None):
        self.tag = el.tag
        self.attrs = {k.lower(): v.strip() for k, v in el.attrib.items()}
        self.source = source
        self.units = units
        ident = self.attrs.get("id")
        self.where = f"{self.tag}" + (f" id={ident}" if ident is not None else "")

    def error(self, message: str) -> ModelError:
        return ModelError(f"{self.source}: {self.where}: {message}")

    def has(self, name):
        return name in self.attrs

    def text(self, name, default=_REQUIRED, choices=None) -> str:
        if name not in self.attrs:
            if default is _REQUIRED:
                raise self.error(f"the attribute {name} is required")
            return default
        value = self.attrs[name]
        if choices is not None:
            value = value.upper()
            if value not in choices:
                raise self.error(f"{name} = {self.attrs[name]!r} is not supported; allowed: "
                                 f"{', '.join(choices)}")
        return value

    def number(self, name, default=_REQUIRED, dim=NONE, minimum=None, positive=False) -> float:
        """The attribute as a float converted to SI (``dim``: exponents of F, M, L, T)."""
        if name not in self.attrs:
            if default is _REQUIRED:
                raise self.error(f"the attribute {name} is required")
            value = float(default)
        else:
            raw = self.attrs[name]
            try:
                value = float(raw.replace("D", "E").replace("d", "e"))
            except ValueError:
                raise self.error(f"{name} = {raw!r} is not a number") from None
            if not math.isfinite(value):
                raise self.error(f"{name} = {raw!r} must be finite")
        if (minimum is not None and value < minimum) or (positive and value <= 0):
            rng = "> 0" if positive else f">= {minimum:g}"
            raise self.error(f"{name} = {value:g} is out of range; allowed: {rng}")
        if dim != NONE and self.units is not None:
            value *= self.units.factor(dim)
        return value

    def ident(self, name="id", default=_REQUIRED) -> int:
        if name not in self.attrs:
            if default is _REQUIRED:
                raise self.error(f"the attribute {name} is required")
            return default
        raw = self.attrs[name]
        try:
            return int(raw)
        except ValueError:
            raise self.error(f"{name} = {raw!r} is not an integer id") from None


# --------------------------------------------------------------------------- joint friction
#: The unit dimension of each LuGre parameter with a MotionSolve attribute (see LUGRE_SCHEMA).
_LUGRE_DIMS = {"mu_s": NONE, "mu_d": NONE, "sigma0": PER_LENGTH, "sigma1": TIME_PER_LENGTH,
               "sigma2": VISCOUS, "v_s": VELOCITY}

#: MotionSolve's documented defaults are numbers per model unit (``bristle_stiffness = 100``
#: per length unit ...); they are our SI defaults expressed in N, kg, mm, s.
_DEFAULT_UNITS = Units(length="MILLIMETER")


def _joint_friction_defaults() -> dict:
    """``{MotionSolve attribute: default}`` of the Force_JointFriction LuGre attributes, in
    the model's units (None: required), derived from :data:`LUGRE_SCHEMA`."""
    out = {}
    for q in LUGRE_SCHEMA:
        if q.motionsolve is None:
            continue
        if q.choices:
            out[q.motionsolve] = q.default
        elif q.name in ("mu_s", "mu_d"):
            out[q.motionsolve] = None  # MotionSolve requires the coefficients
        else:
            out[q.motionsolve] = q.default / _DEFAULT_UNITS.factor(_LUGRE_DIMS[q.name])
    return out


#: Force_JointFriction's LuGre defaults (model units); mu_static and mu_dynamic are required.
JOINT_FRICTION_DEFAULTS = _joint_friction_defaults()


def _lugre_values(e: _Element) -> dict:
    """The LuGre attributes of a Force_JointFriction in SI (by MotionSolve name), checked
    against the schema's ranges and ``mu_static >= mu_dynamic``."""
    out = {}
    for q in LUGRE_SCHEMA:
        ms = q.motionsolve
        if ms is None:
            continue
        default = JOINT_FRICTION_DEFAULTS[ms]
        if q.choices:
            out[ms] = e.text(ms, default, q.choices)
            continue
        dim = _LUGRE_DIMS[q.name]
        value = e.number(ms, _REQUIRED if default is None else default, dim)
        if not q.contains(value):
            unit = e.units.label(dim) if e.units is not None else q.unit
            unit = "" if unit == "-" else f" {unit}"
            si = "" if q.unit == "-" else f" {q.unit}"
            raise e.error(f"{ms} = {e.attrs[ms]}{unit} ({q.name} = {value:g}{si} in SI) is out of "
                          f"range; allowed: {q.interval_text()} ({q.description}); "
                          f"{q.advice()}")
        out[ms] = value
    check_static_dynamic(f"{e.source}: {e.where}", out["mu_static"], out["mu_dynamic"],
                         names=("mu_static", "mu_dynamic"))
    return out


def read_motionsolve(path) -> MotionSolveModel:
    """Parse a MotionSolve XML file into a :class:`MotionSolveModel` (SI, plane found)."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"MotionSolve file {path} does not exist (or is not a file)")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"MotionSolve file {path} could not be read: {exc}") from None
    return _Reader(text, str(path), path.stem).read()


def loads_motionsolve(text: str | bytes, name: str = "motionsolve_model") -> Model:
    """:func:`load_motionsolve` for XML given as a string."""
    return _Reader(text, f"<{name}>", name).read().build()


def load_motionsolve(path) -> Model:
    """Read a MotionSolve XML model and return a runnable :class:`nonsmooth.Model`.

    Raises :class:`~nonsmooth.errors.ModelError` (one line naming the element and its id) for
    malformed XML, missing references, unsupported elements and non-planar models.
    """
    return read_motionsolve(path).build()


def motionsolve_module(path) -> types.ModuleType:
    """A model module (``NAME``, ``DESCRIPTION``, ``PARAMETERS = []``, ``build()``) for
    :func:`nonsmooth.models.load`; the file is read (and checked) now."""
    info = read_motionsolve(path)
    module = types.ModuleType(f"nonsmooth_motionsolve_{re.sub(r'[^0-9a-zA-Z_]', '_', info.name)}")
    module.__file__ = str(path)
    module.NAME = info.name
    module.DESCRIPTION = info.description()
    module.PARAMETERS = []

    def build(**params):
        if params:
            raise ModelError(f"model {info.name}: unknown parameter(s) {', '.join(params)}; a "
                             "MotionSolve model has no parameters (edit the XML file)")
        return read_motionsolve(path).build()

    module.build = build
    return module


class _Reader:
    def __init__(self, text, source: str, name: str):
        self.text, self.source, self.name = text, source, name
        self.ignored: list[str] = []

    def error(self, message):
        return ModelError(f"{self.source}: {message}")

    # ------------------------------------------------------------------ top level
    def read(self) -> MotionSolveModel:
        try:
            root = ET.fromstring(self.text)
        except ET.ParseError as exc:
            raise self.error(f"malformed XML: {exc}") from None
        if root.tag != "MultiBodySystem":
            raise self.error(f"the root element is <{root.tag}>; a MotionSolve model file has "
                             "<MultiBodySystem>")
        model_el, command_el = None, None
        for child in root:
            if child.tag == "Model":
                if model_el is not None:
                    raise self.error("more than one <Model> element")
                model_el = child
            elif child.tag == "Command":
                command_el = child
            elif child.tag in _IGNORED_AT_ROOT:
                self.ignored.append(child.tag)
            elif isinstance(child.tag, str):
                raise self._unsupported(child, "MultiBodySystem")
        if model_el is None:
            raise self.error("no <Model> element")
        groups = {tag: [] for tag in _MODEL_ELEMENTS}
        for child in model_el:
            if child.tag in groups:
                groups[child.tag].append(child)
            elif child.tag in _IGNORED_IN_MODEL:
                self.ignored.append(child.tag)
            elif isinstance(child.tag, str):
                raise self._unsupported(child, "Model")
        units = self._units(groups["Param_Unit"])
        self.units = units
        markers = self._markers(groups["Reference_Marker"])
        bodies = self._bodies(groups["Body_Rigid"], markers)
        for mk in markers.values():
            if mk.body is not None and mk.body not in bodies:
                raise ModelError(f"{self.source}: Reference_Marker id={mk.id}: body_id {mk.body} "
                                 "refers to no Body_Rigid")
        joints = self._joints(groups["Constraint_Joint"], markers)
        gravity = self._gravity(groups["Force_Gravity"])
        frictions = self._frictions(groups["Force_JointFriction"], joints)
        plane = self._plane(joints, markers, bodies, gravity)
        t_end, dt = self._command(command_el)
        info = MotionSolveModel(self.name, self.source, units, markers, bodies, joints,
                                frictions, gravity, [], plane, t_end, dt, self.ignored)
        info.requests = self._requests(groups["Post_Request"], info)
        return info

    def _unsupported(self, el, parent):
        ident = el.get("id")
        where = f"{el.tag}" + (f" id={ident}" if ident is not None else "")
        return self.error(f"{where}: element <{el.tag}> in <{parent}> is not supported; supported:"
                          f" {', '.join(SUPPORTED_ELEMENTS)} (ignored: "
                          f"{', '.join(IGNORED_ELEMENTS)})")

    def _el(self, el):
        return _Element(el, self.source, getattr(self, "units", None))

    # ------------------------------------------------------------------ elements
    def _units(self, elements) -> Units:
        if len(elements) > 1:
            raise self.error("more than one Param_Unit element")
        if not elements:
            return Units()
        e = _Element(elements[0], self.source)
        if e.has("mass_mult_factor") and e.number("mass_mult_factor") != 1.0:
            raise e.error("mass_mult_factor is not supported; give force_unit, mass_unit, "
                          "length_unit and time_unit instead")
        kw = {}
        for attr, table in _UNIT_TABLES.items():
            kw[attr.removesuffix("_unit")] = e.text(attr, Units.__dataclass_fields__[
                attr.removesuffix("_unit")].default, tuple(table))
        return Units(**kw)

    def _markers(self, elements) -> dict:
        raw = {}
        for el in elements:
            e = self._el(el)
            mid = e.ident()
            if mid in raw or mid == 0:
                raise e.error("duplicate Reference_Marker id" if mid else
                              "id 0 is reserved for the global frame")
            btype = e.text("body_type", "RIGIDBODY").upper()
            if btype != "RIGIDBODY":
                raise e.error(f"body_type = {btype!r} is not supported; only RigidBody")
            if e.has("node_id"):
                raise e.error("node_id (flexible bodies) is not supported")
            origin = np.array([e.number(f"pos_{c}", 0.0, LENGTH) for c in "xyz"])
            axes = self._orientation(e)
            raw[mid] = (e, e.ident("body_id"), origin, axes, e.ident("rm_id", None))
        markers = {0: Marker(0, None, np.zeros(3), np.eye(3))}

        def resolve(mid, chain):
            if mid in markers:
                return markers[mid]
            e, body, origin, axes, rm = raw[mid]
            if rm is not None and rm != 0:
                if rm not in raw:
                    raise e.error(f"rm_id {rm} refers to no Reference_Marker")
                if rm in chain:
                    raise e.error(f"rm_id {rm}: the markers refer to each other in a cycle")
                ref = resolve(rm, chain | {mid})
                origin = ref.origin + ref.axes @ origin
                axes = ref.axes @ axes
            markers[mid] = Marker(mid, body, origin, axes)
            return markers[mid]

        for mid in raw:
            resolve(mid, frozenset())
        return markers

    @staticmethod
    def _orientation(e: _Element) -> np.ndarray:
        names = ("a00", "a10", "a20", "a01", "a11", "a21", "a02", "a12", "a22")
        if any(e.has(n) for n in names):
            x = np.array([e.number("a00", 1.0), e.number("a10", 0.0), e.number("a20", 0.0)])
            z = np.array([e.number("a02", 0.0), e.number("a12", 0.0), e.number("a22", 1.0)])
            if abs(np.linalg.norm(x) - 1) > 1e-3 or abs(np.linalg.norm(z) - 1) > 1e-3 \
                    or abs(x @ z) > 1e-3:
                raise e.error(f"the orientation is not orthonormal: x-axis {_vec(x)} (a00, a10, "
                              f"a20), z-axis {_vec(z)} (a02, a12, a22) must be perpendicular "
                              "unit vectors")
            x = x / np.linalg.norm(x)
            z = z - (z @ x) * x
            z = z / np.linalg.norm(z)
            return np.column_stack([x, np.cross(z, x), z])
        if any(e.has(n) for n in ("psi", "theta", "phi")):
            psi, theta, phi = (e.number(n, 0.0) for n in ("psi", "theta", "phi"))
            return _rz(psi) @ _rx(theta) @ _rz(phi)
        return np.eye(3)

    def _bodies(self, elements, markers) -> dict:
        bodies, names = {}, set()
        for el in elements:
            e = self._el(el)
            bid = e.ident()
            if bid in bodies:
                raise e.error("duplicate Body_Rigid id")
            label = re.sub(r"\W+", "_", e.text("label", "")).strip("_")
            name = label if label and label not in names and label != "ground" else f"body{bid}"
            names.add(name)
            if e.text("isground", "FALSE").upper() == "TRUE":
                bodies[bid] = RigidBody(bid, "ground", True)
                continue
            cg = e.ident("cg_id")
            im = e.ident("im_id", cg)
            for attr, mid in (("cg_id", cg), ("im_id", im)):
                if mid not in markers or mid == 0:
                    raise e.error(f"{attr} {mid} refers to no Reference_Marker")
                if markers[mid].body != bid:
                    raise e.error(f"{attr} {mid} is a marker of body {markers[mid].body}, not of "
                                  "this body")
            mass = e.number("mass", dim=MASS, positive=True)
            ixx, iyy, izz = (e.number(f"inertia_{c}", 0.0, INERTIA) for c in ("xx", "yy", "zz"))
            ixy, iyz, ixz = (e.number(f"inertia_{c}", 0.0, INERTIA) for c in ("xy", "yz", "xz"))
            tensor_im = np.array([[ixx, -ixy, -ixz], [-ixy, iyy, -iyz], [-ixz, -iyz, izz]])
            A = markers[im].axes
            tensor = A @ tensor_im @ A.T
            d = markers[cg].origin - markers[im].origin  # parallel axes back to the CM
            tensor = tensor - mass * ((d @ d) * np.eye(3) - np.outer(d, d))
            v = np.array([e.number(f"v_ic_{c}", 0.0, VELOCITY) for c in "xyz"])
            w = np.array([e.number(f"w_ic_{c}", 0.0, RATE) for c in "xyz"])
            vm, wm = e.ident("vm_id", 0), e.ident("wm_id", cg)
            for attr, mid in (("vm_id", vm), ("wm_id", wm)):
                if mid not in markers:
                    raise e.error(f"{attr} {mid} refers to no Reference_Marker")
            bodies[bid] = RigidBody(bid, name, False, mass, tensor, cg, markers[vm].axes @ v,
                                    markers[wm].axes @ w)
        return bodies

    def _joints(self, elements, markers) -> dict:
        joints, names = {}, set()
        for el in elements:
            e = self._el(el)
            jid = e.ident()
            if jid in joints:
                raise e.error("duplicate Constraint_Joint id")
            jtype = e.text("type").upper()
            if jtype not in JOINT_TYPES:
                raise e.error(f"type = {jtype!r} is not supported; supported joint types: "
                              f"{', '.join(JOINT_TYPES)}")
            refs = {}
            for attr in ("i_marker_id", "j_marker_id"):
                mid = e.ident(attr)
                if mid not in markers:
                    raise e.error(f"{attr} {mid} refers to no Reference_Marker")
                refs[attr] = mid
            mi, mj = markers[refs["i_marker_id"]], markers[refs["j_marker_id"]]
            if mi.body == mj.body:
                raise e.error("the I and J markers are on the same body")
            label = re.sub(r"\W+", "_", e.text("label", "")).strip("_")
            name = label if label and label not in names else f"joint{jid}"
            names.add(name)
            joints[jid] = Joint(jid, name, jtype, mi.id, mj.id)
        return joints

    def _gravity(self, elements) -> np.ndarray:
        if len(elements) > 1:
            raise self._el(elements[1]).error("more than one Force_Gravity element")
        if not elements:
            return np.zeros(3)
        e = self._el(elements[0])
        return np.array([e.number(f"grav_{c}", 0.0, ACCELERATION) for c in "xyz"])

    def _frictions(self, elements, joints) -> dict:
        out, ids = {}, set()
        for el in elements:
            e = self._el(el)
            fid = e.ident()
            if fid in ids:
                raise e.error("duplicate Force_JointFriction id")
            ids.add(fid)
            jid = e.ident("joint_id")
            if jid not in joints:
                raise e.error(f"joint_id {jid} refers to no Constraint_Joint (supported joint "
                              f"types: {', '.join(JOINT_TYPES)})")
            if jid in out:
                raise e.error(f"joint {jid} already has Force_JointFriction id={out[jid].id}")
            v = _lugre_values(e)
            v.update({
                "max_stiction_deform": e.number("max_stiction_deform", 0.01, LENGTH, 0.0),
                "inactive": e.text("inactive", "NONE", ("NONE", "STATIC")),
                "inputs": e.text("inputs", "1111"),
                "force_preload": e.number("force_preload", 0.0, FORCE, 0.0),
                "torque_preload": e.number("torque_preload", 0.0, TORQUE, 0.0),
                "friction_arm": e.number("friction_arm", 1.0, LENGTH, positive=True),
                "reaction_arm": e.number("reaction_arm", 1.0, LENGTH, positive=True),
                "bending_reaction_arm": e.number("bending_reaction_arm", 1.0, LENGTH,
                                                 positive=True),
                "pin_radius": e.number("pin_radius", 1.0, LENGTH, positive=True),
                "ball_radius": e.number("ball_radius", 1.0, LENGTH, positive=True),
                "initial_overlap": e.number("initial_overlap", 1000.0, LENGTH, positive=True),
                "overlap_delta": e.text("overlap_delta", "CONSTANT",
                                        ("CONSTANT", "INCREASE", "DECREASE")),
                "yoke_choice": e.text("yoke_choice", None),
            })
            if not re.fullmatch(r"[01]{4}", v["inputs"]):
                raise e.error(f"inputs = {v['inputs']!r}: give 4 bits (Preload, Reaction_Force,"
                              " Bending_Moment, Torsional_Moment), e.g. 1111 or 1101")
            out[jid] = JointFriction(fid, jid, v)
        return out

    def _plane(self, joints, markers, bodies, gravity) -> Plane:
        revolutes = [j for j in joints.values() if j.type == "REVOLUTE"]
        in_plane = []  # (vector, what) that must be perpendicular to n
        for j in joints.values():
            if j.type == "TRANSLATIONAL":
                in_plane.append((markers[j.j_marker].axes[:, 2],
                                 f"Constraint_Joint id={j.id} (TRANSLATIONAL): its slide axis "
                                 "(z of the J marker)"))
        g = float(np.linalg.norm(gravity))
        if g > 0:
            in_plane.append((gravity / g, "Force_Gravity: gravity"))
        if revolutes:
            first = revolutes[0]
            n = markers[first.j_marker].axes[:, 2].copy()
            source = (f"the z-axis of the J marker {first.j_marker} of Constraint_Joint "
                      f"id={first.id}")
            for j in revolutes:
                for attr, mid in (("I", j.i_marker), ("J", j.j_marker)):
                    axis = markers[mid].axes[:, 2]
                    if np.linalg.norm(np.cross(axis, n)) > PLANE_TOL:
                        raise self._nonplanar(
                            f"Constraint_Joint id={j.id} (REVOLUTE): the z-axis {_vec(axis)} of "
                            f"its {attr} marker {mid} is not parallel to the plane normal "
                            f"{_vec(n)} ({source})")
        else:
            n, source = None, None
            vecs = [v for v, _ in in_plane]
            for a in range(len(vecs)):
                for b in range(a + 1, len(vecs)):
                    c = np.cross(vecs[a], vecs[b])
                    if np.linalg.norm(c) > 1e-3:
                        n = c / np.linalg.norm(c)
                        source = f"the normal of {in_plane[a][1]} and {in_plane[b][1]}"
                        break
                if n is not None:
                    break
            if n is None:
                for k in (2, 1, 0):
                    cand = np.eye(3)[k]
                    if all(abs(v @ cand) < PLANE_TOL for v in vecs):
                        n, source = cand, f"the global {'xyz'[k]}-axis"
                        break
            if n is None:
                raise self._nonplanar("the translational axes and gravity do not lie in a plane")
            k = int(np.argmax(np.abs(n)))
            n = n if n[k] > 0 else -n
        for v, what in in_plane:
            if abs(v @ n) > PLANE_TOL:
                raise self._nonplanar(f"{what} {_vec(v)} is not perpendicular to the plane normal"
                                      f" {_vec(n)} ({source})")
        for b in bodies.values():
            if b.ground:
                continue
            if abs(b.velocity @ n) > PLANE_TOL * max(1.0, np.linalg.norm(b.velocity)) or \
                    np.linalg.norm(np.cross(b.angular_velocity, n)) > \
                    PLANE_TOL * max(1.0, np.linalg.norm(b.angular_velocity)):
                raise self._nonplanar(f"Body_Rigid id={b.id}: its initial velocity leaves the "
                                      f"plane with normal {_vec(n)} ({source})")
        if g > 0:
            e2 = -gravity / g
            e1 = np.cross(e2, n)
        else:
            ref = np.eye(3)[0] if abs(n[0]) < 0.9 else np.eye(3)[1]
            e1 = ref - (ref @ n) * n
            e1 /= np.linalg.norm(e1)
            e2 = np.cross(n, e1)
        return Plane(n, e1 + 0.0, e2 + 0.0, source)

    def _nonplanar(self, message):
        return self.error(f"{message}; only planar models are supported (every revolute axis "
                          "parallel to the plane normal, translational axes, gravity and initial "
                          "velocities perpendicular to it)")

    def _command(self, command_el):
        if command_el is None:
            return None, None
        sims = []
        for child in command_el:
            if child.tag == "Simulate":
                sims.append(child)
            elif child.tag in _IGNORED_IN_COMMAND:
                self.ignored.append(child.tag)
            elif isinstance(child.tag, str):
                raise self._unsupported(child, "Command")
        if not sims:
            return None, None
        if len(sims) > 1:
            raise self._el(sims[1]).error("more than one Simulate command; only a single "
                                          "transient run is supported")
        e = self._el(sims[0])
        e.text("analysis_type", "TRANSIENT", ("TRANSIENT",))
        t_end = e.number("end_time", dim=TIME, positive=True)
        if e.has("num_step"):
            n = e.ident("num_step")
            if n < 1:
                raise e.error(f"num_step = {n} must be >= 1")
            return t_end, t_end / n
        if e.has("print_interval"):
            return t_end, e.number("print_interval", dim=TIME, positive=True)
        return t_end, None

    def _requests(self, elements, info) -> list:
        out, ids = [], set()
        for el in elements:
            e = self._el(el)
            rid = e.ident()
            if rid in ids:
                raise e.error("duplicate Post_Request id")
            ids.add(rid)
            rtype = e.text("type", "EXPRESSION").upper()
            if rtype != "EXPRESSION":
                raise e.error(f"type = {rtype!r} is not supported; only EXPRESSION requests")
            exprs = []
            keys = sorted((int(m.group(1)), k) for k in e.attrs
                          if (m := re.fullmatch(r"expr(\d+)", k)))
            for k, key in keys:
                text = e.attrs[key]
                if text.upper() in ("", "NULL"):
                    continue
                fn, unit = _Expression(e, f"expr{k}", text, info).compile()
                exprs.append((k, text, fn, unit))
            out.append(Request(rid, e.text("comment", ""), exprs))
        return out


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


# --------------------------------------------------------------------------- expressions
_MATH = {
    "ABS": (1, np.abs, True), "SIN": (1, np.sin, False), "COS": (1, np.cos, False),
    "TAN": (1, np.tan, False), "ASIN": (1, np.arcsin, False), "ACOS": (1, np.arccos, False),
    "ATAN": (1, np.arctan, False), "ATAN2": (2, np.arctan2, False), "SQRT": (1, np.sqrt, False),
    "EXP": (1, np.exp, False), "LOG": (1, np.log, False), "LOG10": (1, np.log10, False),
    "SINH": (1, np.sinh, False), "COSH": (1, np.cosh, False), "TANH": (1, np.tanh, False),
    "MIN": (2, np.minimum, True), "MAX": (2, np.maximum, True),
    "SIGN": (2, lambda a, b: np.abs(a) * np.where(np.asarray(b) >= 0, 1.0, -1.0), True),
}
# name: (dimension, numerator, min args, max args)
_MEASURES = {
    **{f"D{c}": (LENGTH, "", 1, 3) for c in "XYZ"}, "DM": (LENGTH, "", 1, 2),
    **{f"V{c}": (VELOCITY, "", 1, 4) for c in "XYZ"}, "VM": (VELOCITY, "", 1, 3),
    **{f"W{c}": (RATE, "rad", 1, 3) for c in "XYZ"}, "WM": (RATE, "rad", 1, 2),
}
_FRICTION_DIMS = [FORCE] * 3 + [TORQUE] * 3 + [NONE] * 6 + [VELOCITY] * 6


class _Expression:
    """Compile one MotionSolve expression into ``fn(kinematics) -> ndarray`` (model units)."""

    def __init__(self, e: _Element, attr: str, text: str, info: MotionSolveModel):
        self.e, self.attr, self.text, self.info = e, attr, text, info

    def error(self, message):
        return self.e.error(f"{self.attr} = {self.text!r}: {message}")

    def compile(self):
        src = self.text.replace("`", "").strip().upper()
        try:
            tree = ast.parse(src, mode="eval")
        except SyntaxError:
            raise self.error("cannot parse the expression") from None
        return self._node(tree.body)

    def _node(self, node):
        units = self.info.units
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            value = float(node.value)
            return (lambda k: value), None
        if isinstance(node, ast.Name):
            if node.id == "PI":
                return (lambda k: math.pi), None
            if node.id == "TIME":
                scale = units.factor(TIME)
                return (lambda k: k.result.t / scale), units.label(TIME)
            raise self.error(f"unknown name {node.id}; known: PI, TIME")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            fn, unit = self._node(node.operand)
            sign = -1.0 if isinstance(node.op, ast.USub) else 1.0
            return (lambda k: sign * fn(k)), unit
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: np.add, ast.Sub: np.subtract, ast.Mult: np.multiply,
                   ast.Div: np.divide, ast.Pow: np.power}
            op = ops.get(type(node.op))
            if op is None:
                raise self.error("only + - * / ** are supported")
            fa, ua = self._node(node.left)
            fb, ub = self._node(node.right)
            if isinstance(node.op, (ast.Add, ast.Sub)):
                unit = ua if ua == ub else None
            elif isinstance(node.op, ast.Mult):
                unit = ua if ub is None and isinstance(node.right, ast.Constant) else (
                    ub if ua is None and isinstance(node.left, ast.Constant) else None)
            elif isinstance(node.op, ast.Div):
                unit = ua if isinstance(node.right, ast.Constant) else None
            else:
                unit = None
            return (lambda k: op(fa(k), fb(k))), unit
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            return self._call(node.func.id, node.args)
        raise self.error("unsupported syntax")

    def _int_arg(self, node, fname):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        raise self.error(f"{fname}: the arguments must be integer ids")

    def _marker(self, mid, fname):
        if mid not in self.info.markers:
            raise self.error(f"{fname}: marker {mid} refers to no Reference_Marker")
        return mid

    def _call(self, fname, args):
        units = self.info.units
        if fname in _MATH:
            nargs, fn, keeps_unit = _MATH[fname]
            if len(args) != nargs:
                raise self.error(f"{fname} takes {nargs} argument(s)")
            compiled = [self._node(a) for a in args]
            fns = [c[0] for c in compiled]
            unit = compiled[0][1] if keeps_unit else None
            return (lambda k: fn(*(f(k) for f in fns))), unit
        if fname in _MEASURES:
            dim, numerator, lo, hi = _MEASURES[fname]
            if not lo <= len(args) <= hi:
                raise self.error(f"{fname} takes {lo} to {hi} marker ids")
            ids = [self._marker(self._int_arg(a, fname), fname) for a in args]
            if fname[0] == "V" and len(ids) == (4 if fname != "VM" else 3) and ids[-1] != 0:
                raise self.error(f"{fname}: only velocities seen from the ground (L = 0) are "
                                 "supported")
            scale = units.factor(dim)
            i = ids[0]
            j = ids[1] if len(ids) > 1 else 0
            kk = ids[2] if len(ids) > 2 and fname[1] != "M" else 0
            kind, comp = fname[0], fname[1]

            def measure(k):
                if kind == "D":
                    vec = k.position(i) - k.position(j)
                elif kind == "V":
                    vec = k.velocity(i) - k.velocity(j)
                else:
                    vec = k.omega(i) - k.omega(j)
                if comp == "M":
                    return np.linalg.norm(vec, axis=1) / scale
                axis = k.axes(kk)[:, :, "XYZ".index(comp)]
                return np.einsum("ij,ij->i", vec, axis) / scale

            return measure, units.label(dim, numerator)
        if fname == "FRICTION":
            if len(args) != 2:
                raise self.error("FRICTION takes (id, component)")
            fid, comp = (self._int_arg(a, fname) for a in args)
            match = [f for f in self.info.frictions.values() if f.id == fid]
            if not match:
                raise self.error(f"FRICTION: {fid} refers to no Force_JointFriction")
            if not 1 <= comp <= 18:
                raise self.error(f"FRICTION: component {comp} is out of range; allowed: 1 to 18")
            fr = match[0]
            joint = self.info.joints[fr.joint]
            dim = _FRICTION_DIMS[comp - 1]
            scale = units.factor(dim)
            group, axis_index = divmod(comp - 1, 3)
            revolute = joint.type == "REVOLUTE"
            r_p = fr.values["pin_radius"]

            def friction(k):
                F, N, v = k.pair(joint.name)
                axis = k.axes(joint.j_marker)[:, :, axis_index]
                # the direction the pair acts along: the normal (revolute) or slide axis
                d = k.normal_rows() if revolute else k.axes(joint.j_marker)[:, :, 2]
                proj = np.einsum("ij,ij->i", d, axis)
                zero = np.zeros_like(F)
                if group == 0:  # force
                    return zero if revolute else F * proj / scale
                if group == 1:  # torque
                    return r_p * F * proj / scale if revolute else zero
                if group in (2, 3):  # coefficients
                    if revolute != (group == 3):
                        return zero
                    mu = np.divide(np.abs(F), N, out=np.zeros_like(F), where=N > 0)
                    return mu * np.abs(proj)
                if revolute != (group == 5):  # slip velocities
                    return zero
                return v * proj / scale

            return friction, units.label(dim)
        raise self.error(f"unknown function {fname}; supported: {', '.join(_MEASURES)}, "
                         f"FRICTION, {', '.join(_MATH)}")


class _Kinematics:
    """3-D marker kinematics rebuilt from a planar :class:`nonsmooth.Result` (SI, cached)."""

    def __init__(self, info: MotionSolveModel, result):
        self.info, self.result = info, result
        self.n_t = len(result.t)
        self._cache = {}

    def _body(self, marker_id):
        """(x, y, theta, vx, vy, w) arrays of the marker's body, or None for the ground."""
        mk = self.info.markers[marker_id]
        body = self.info.bodies.get(mk.body)
        if body is None or body.ground:
            return None
        key = ("body", body.id)
        if key not in self._cache:
            names = self.result.coordinate_names
            ix = [names.index(f"{body.name}.{c}") for c in ("x", "y", "theta")]
            q, v = self.result.q, self.result.v
            self._cache[key] = (q[:, ix[0]], q[:, ix[1]], q[:, ix[2]], v[:, ix[0]], v[:, ix[1]],
                                v[:, ix[2]])
        return self._cache[key]

    def _to3(self, x, y, h=0.0):
        p = self.info.plane
        return x[:, None] * p.e1 + y[:, None] * p.e2 + h * p.normal

    def position(self, marker_id):
        mk = self.info.markers[marker_id]
        b = self._body(marker_id)
        if b is None:
            return np.broadcast_to(mk.origin, (self.n_t, 3))
        sx, sy = self.info.local_point(marker_id)
        x, y, th = b[0], b[1], b[2]
        c, s = np.cos(th), np.sin(th)
        return self._to3(x + c * sx - s * sy, y + s * sx + c * sy,
                         float(mk.origin @ self.info.plane.normal))

    def velocity(self, marker_id):
        b = self._body(marker_id)
        if b is None:
            return np.zeros((self.n_t, 3))
        sx, sy = self.info.local_point(marker_id)
        th, vx, vy, w = b[2], b[3], b[4], b[5]
        c, s = np.cos(th), np.sin(th)
        ax, ay = c * sx - s * sy, s * sx + c * sy
        return self._to3(vx - w * ay, vy + w * ax)

    def omega(self, marker_id):
        b = self._body(marker_id)
        if b is None:
            return np.zeros((self.n_t, 3))
        return b[5][:, None] * self.info.plane.normal

    def axes(self, marker_id):
        """Marker axes at every output time, shape (N, 3, 3), columns x, y, z."""
        mk = self.info.markers[marker_id]
        b = self._body(marker_id)
        if b is None:
            return np.broadcast_to(mk.axes, (self.n_t, 3, 3))
        n = self.info.plane.normal
        c, s = np.cos(b[2])[:, None, None], np.sin(b[2])[:, None, None]
        par = np.outer(n, n) @ mk.axes
        perp = mk.axes - par
        cross = np.cross(n[:, None], perp, axis=0)
        return par + c * perp + s * cross

    def normal_rows(self):
        return np.broadcast_to(self.info.plane.normal, (self.n_t, 3))

    def pair(self, name):
        """(F_T, lambda_N, v_T) of a frictional pair (SI)."""
        r = self.result
        if name not in r.pair_names:
            raise ModelError(f"the run has no frictional pair {name!r}; pairs: {r.pair_names}")
        k = r.pair_names.index(name)
        return r.F_T[:, k], r.lambda_N[:, k], r.v_T[:, k]


def _bind(info: MotionSolveModel, fn):
    """An Output function ``result -> ndarray`` for a compiled expression."""

    def output(result):
        kin = getattr(result, "_motionsolve_kinematics", None)
        if kin is None or kin.info is not info:
            kin = _Kinematics(info, result)
            result._motionsolve_kinematics = kin
        value = fn(kin)
        return np.broadcast_to(np.asarray(value, dtype=float), (len(result.t),)) + 0.0

    return output
