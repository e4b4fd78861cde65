"""MotionSolve XML to plain records: :func:`read_motionsolve` gives a :class:`MotionSolveModel`.

The reader walks ``<MultiBodySystem>``: ``<Model>`` (``Param_Unit``, ``Reference_Marker``,
``Body_Rigid``, ``Constraint_Joint``, ``Motion_Joint``, ``Force_Gravity``,
``Force_JointFriction``, ``Post_Request``) and ``<Command>`` (``Simulate``), converts every value
to SI as it is read (:mod:`.units`), resolves markers given relative to other markers
(``rm_id``), checks every reference, chooses the model family, finds the plane of motion of a
planar one (:mod:`.kinematics`) and compiles the motions (:mod:`.motion`) and the requests
(:mod:`.expressions`).

The family
----------
``family="planar"``: the planar subset only (joints REVOLUTE and TRANSLATIONAL, the plane found
or a :class:`~nonsmooth.errors.ModelError` saying why not; no Motion_Joint).
``family="spatial"``: every model is built in 3-D (:mod:`.spatial_builder`).
``family="auto"``: planar when the model has only planar joint types, no Motion_Joint and its
plane is found, else spatial. A ``Force_JointFriction`` is read in either family (the spatial
one builds it on revolute, spherical, translational and cylindrical joints,
:mod:`.spatial_builder`).

Solver settings and presentation (``Param_Transient``, ``Post_Graphic``, ``Messaging``,
``H3DOutput``, ``ResOutput``) are recorded in ``MotionSolveModel.ignored``; any other element is
a :class:`~nonsmooth.errors.ModelError` naming it, its id and what is supported.

Reference: Altair MotionSolve Reference Guide, XML format (Param_Unit, Reference_Marker,
Body_Rigid, Constraint_Joint, Motion_Joint, Force_Gravity, Force_JointFriction, Post_Request,
Simulate).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ...errors import ModelError
from .element import Element
from .expressions import Expression
from .joint_friction import joint_friction_values
from .kinematics import find_plane, marker_axes
from .motion import read_motion
from .records import Joint, JointFriction, Marker, MotionSolveModel, Request, RigidBody
from .units import ACCELERATION, INERTIA, LENGTH, MASS, RATE, TIME, UNIT_TABLES, VELOCITY, Units

__all__ = ["read_motionsolve", "Reader", "SUPPORTED_ELEMENTS", "IGNORED_ELEMENTS",
           "JOINT_TYPES", "SPATIAL_JOINT_TYPES", "FAMILIES"]

SUPPORTED_ELEMENTS = ("Param_Unit", "Reference_Marker", "Body_Rigid", "Constraint_Joint",
                      "Force_Gravity", "Force_JointFriction", "Post_Request", "Motion_Joint",
                      "Simulate")
IGNORED_ELEMENTS = ("Param_Transient", "Post_Graphic", "Messaging", "H3DOutput", "ResOutput")
#: the joint types of the planar family
JOINT_TYPES = ("REVOLUTE", "TRANSLATIONAL")
#: ... and of the spatial family (HOOKE: MotionSolve's second universal joint, see
#: :mod:`.spatial_builder`)
SPATIAL_JOINT_TYPES = ("REVOLUTE", "TRANSLATIONAL", "SPHERICAL", "CYLINDRICAL", "UNIVERSAL",
                       "HOOKE", "FIXED")
#: the ``family`` arguments (see the module docstring)
FAMILIES = ("planar", "spatial", "auto")

_MODEL_ELEMENTS = SUPPORTED_ELEMENTS[:-1]
_IGNORED_IN_MODEL = ("Param_Transient", "Post_Graphic")
_IGNORED_IN_COMMAND = ("H3DOutput", "ResOutput", "Param_Transient")
_IGNORED_AT_ROOT = ("Messaging",)


def read_motionsolve(path, family: str = "auto") -> MotionSolveModel:
    """Parse a MotionSolve XML file into a :class:`MotionSolveModel` (SI; ``family``:
    ``"planar"``, ``"spatial"`` or ``"auto"``, see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"MotionSolve file {path} does not exist (or is not a file)")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"MotionSolve file {path} could not be read: {exc}") from None
    return Reader(text, str(path), path.stem, family).read()


def _identifier(label: str) -> str:
    """A label made an identifier (runs of non-word characters to ``_``)."""
    return re.sub(r"\W+", "_", label).strip("_")


class Reader:
    """One MotionSolve XML text (``source``: the file, for messages) to a
    :class:`MotionSolveModel` named ``name`` (:meth:`read`) of the model ``family``."""

    def __init__(self, text, source: str, name: str, family: str = "auto"):
        if family not in FAMILIES:
            raise ModelError(f"{source}: family = {family!r} is invalid; allowed: "
                             f"{', '.join(FAMILIES)}")
        self.text, self.source, self.name, self.family = text, source, name, family
        self.ignored: list[str] = []
        self.units: Units | None = None

    def error(self, message):
        return ModelError(f"{self.source}: {message}")

    # ------------------------------------------------------------------ top level
    def read(self) -> MotionSolveModel:
        model_el, command_el = self._sections(self._root())
        groups = self._model_groups(model_el)
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
        family, plane = self._family(joints, markers, bodies, gravity, groups["Motion_Joint"])
        t_end, dt = self._command(command_el)
        info = MotionSolveModel(self.name, self.source, units, markers, bodies, joints,
                                frictions, gravity, [], plane, t_end, dt, self.ignored, family)
        info.motions = self._motions(groups["Motion_Joint"], info)
        info.requests = self._requests(groups["Post_Request"], info)
        return info

    def _family(self, joints, markers, bodies, gravity, motions) -> tuple:
        """``("planar", plane)`` or ``("spatial", None)`` (see the module docstring)."""
        if self.family == "spatial":
            return "spatial", None
        if self.family == "planar":
            plane = find_plane(joints, markers, bodies, gravity, self.source)
            if motions:
                raise self._el(motions[0]).error(
                    "Motion_Joint is built in the spatial family only; load the model with "
                    "family='spatial' (or 'auto')")
            return "planar", plane
        if not motions and all(j.type in JOINT_TYPES for j in joints.values()):
            try:
                return "planar", find_plane(joints, markers, bodies, gravity, self.source)
            except ModelError:
                pass
        return "spatial", None

    def _motions(self, elements, info) -> list:
        out, ids, names, driven = [], set(), set(), {}
        for el in elements:
            e = self._el(el)
            mid = e.ident()
            if mid in ids:
                raise e.error("duplicate Motion_Joint id")
            ids.add(mid)
            motion = read_motion(e, info, names)
            key = (motion.joint, motion.dof)
            if key in driven:
                raise e.error(f"joint {motion.joint} already has the {motion.dof} motion "
                              f"Motion_Joint id={driven[key]}")
            driven[key] = mid
            out.append(motion)
        return out

    def _root(self) -> ET.Element:
        try:
            root = ET.fromstring(self.text)
        except ET.ParseError as exc:
            raise self.error(f"malformed XML: {exc}") from None
        if root.tag != "MultiBodySystem":
            raise self.error(f"the root element is <{root.tag}>; a MotionSolve model file has "
                             "<MultiBodySystem>")
        return root

    def _sections(self, root):
        """The ``<Model>`` and ``<Command>`` (or None) elements of the root."""
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
        return model_el, command_el

    def _model_groups(self, model_el) -> dict:
        """The ``<Model>`` children by tag (every supported tag present, maybe empty)."""
        groups = {tag: [] for tag in _MODEL_ELEMENTS}
        for child in model_el:
            if child.tag in groups:
                groups[child.tag].append(child)
            elif child.tag in _IGNORED_IN_MODEL:
                self.ignored.append(child.tag)
            elif isinstance(child.tag, str):
                raise self._unsupported(child, "Model")
        return groups

    def _unsupported(self, el, parent):
        ident = el.get("id")
        where = f"{el.tag}" + (f" id={ident}" if ident is not None else "")
        return self.error(f"{where}: element <{el.tag}> in <{parent}> is not supported; supported:"
                          f" {', '.join(SUPPORTED_ELEMENTS)} (ignored: "
                          f"{', '.join(IGNORED_ELEMENTS)})")

    def _el(self, el):
        return Element(el, self.source, self.units)

    # ------------------------------------------------------------------ elements
    def _units(self, elements) -> Units:
        if len(elements) > 1:
            raise self.error("more than one Param_Unit element")
        if not elements:
            return Units()
        e = Element(elements[0], self.source)
        if e.has("mass_mult_factor") and e.number("mass_mult_factor") != 1.0:
            raise e.error("mass_mult_factor is not supported; give force_unit, mass_unit, "
                          "length_unit and time_unit instead")
        kw = {}
        for attr, table in UNIT_TABLES.items():
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
            raw[mid] = (e, e.ident("body_id"), origin, marker_axes(e), e.ident("rm_id", None))
        return _resolve_markers(raw)

    def _bodies(self, elements, markers) -> dict:
        bodies, names = {}, set()
        for el in elements:
            e = self._el(el)
            bid = e.ident()
            if bid in bodies:
                raise e.error("duplicate Body_Rigid id")
            label = _identifier(e.text("label", ""))
            name = label if label and label not in names and label != "ground" else f"body{bid}"
            names.add(name)
            if e.text("isground", "FALSE").upper() == "TRUE":
                bodies[bid] = RigidBody(bid, "ground", True)
                continue
            bodies[bid] = _rigid_body(e, bid, name, markers)
        return bodies

    def _joints(self, elements, markers) -> dict:
        joints, names = {}, set()
        for el in elements:
            e = self._el(el)
            jid = e.ident()
            if jid in joints:
                raise e.error("duplicate Constraint_Joint id")
            jtype = e.text("type").upper()
            allowed = JOINT_TYPES if self.family == "planar" else SPATIAL_JOINT_TYPES
            if jtype not in allowed:
                raise e.error(f"type = {jtype!r} is not supported; supported joint types: "
                              f"{', '.join(allowed)}"
                              + (" (planar; more with family='spatial' or 'auto')"
                                 if self.family == "planar" else ""))
            mi, mj = (markers[_marker_ref(e, attr, markers)]
                      for attr in ("i_marker_id", "j_marker_id"))
            if mi.body == mj.body:
                raise e.error("the I and J markers are on the same body")
            label = _identifier(e.text("label", ""))
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
                raise e.error(f"joint_id {jid} refers to no Constraint_Joint")
            if jid in out:
                raise e.error(f"joint {jid} already has Force_JointFriction id={out[jid].id}")
            out[jid] = JointFriction(fid, jid, joint_friction_values(e))
        return out

    def _command(self, command_el):
        """``(t_end, dt)`` of the Simulate command (None where not given)."""
        sims = self._simulate_elements(command_el)
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

    def _simulate_elements(self, command_el) -> list:
        if command_el is None:
            return []
        sims = []
        for child in command_el:
            if child.tag == "Simulate":
                sims.append(child)
            elif child.tag in _IGNORED_IN_COMMAND:
                self.ignored.append(child.tag)
            elif isinstance(child.tag, str):
                raise self._unsupported(child, "Command")
        return sims

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
                fn, unit = Expression(e, f"expr{k}", text, info).compile()
                exprs.append((k, text, fn, unit))
            out.append(Request(rid, e.text("comment", ""), exprs))
        return out


def _resolve_markers(raw: dict) -> dict:
    """Markers in global coordinates (marker 0: the global frame) from
    ``{id: (element, body, origin, axes, rm_id)}``, following ``rm_id`` chains."""
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


def _marker_ref(e: Element, attr: str, markers: dict) -> int:
    """The marker id in attribute ``attr`` (required), checked to exist."""
    mid = e.ident(attr)
    if mid not in markers:
        raise e.error(f"{attr} {mid} refers to no Reference_Marker")
    return mid


def _rigid_body(e: Element, bid: int, name: str, markers: dict) -> RigidBody:
    """A moving Body_Rigid: mass, inertia about the CM in global axes, initial velocities."""
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
    return RigidBody(bid, name, False, mass, tensor, cg, markers[vm].axes @ v,
                     markers[wm].axes @ w)
