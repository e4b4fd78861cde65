"""Marker frames, the plane of motion, and 3-D marker kinematics rebuilt from a planar run.

Markers
-------
A ``Reference_Marker`` orientation is given by ``a00 .. a22`` (x-axis ``(a00, a10, a20)``,
z-axis ``(a02, a12, a22)``, ``y = z x x``, missing entries from the identity) or by the 3-1-3
Euler angles ``psi, theta, phi`` (:func:`marker_axes`).

The plane
---------
The plane normal ``n`` is the z-axis of the J marker of the first revolute joint; every revolute
axis must be parallel to it, translational axes, gravity and the initial velocities perpendicular
to it (without revolute joints ``n`` is the normal of the translational axes and gravity, or the
first global axis perpendicular to all of them). The in-plane basis ``(e1, e2)`` has
``e1 x e2 = n``; with gravity ``e2`` points up (against gravity), so gravity acts along ``-y`` as
in the rest of the package. A 3-D point ``r`` maps to ``(r . e1, r . e2)`` (:func:`find_plane`).

Kinematics of a run
-------------------
:class:`MarkerKinematics` gives the positions, velocities, angular velocities and axes of the
markers at every output time of a planar :class:`nonsmooth.Result` (SI), as the request
expressions (:mod:`.expressions`) measure them. :func:`marker_kinematics` returns the one
instance per (model, result): it is held in a weak-keyed cache here, so nothing is written into
the :class:`~nonsmooth.Result`, and the outputs of one run share the body arrays.

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker, Constraint_Joint)
and its functions DX, VX, WZ.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

import numpy as np

from ...errors import ModelError

__all__ = ["PLANE_TOL", "Plane", "find_plane", "marker_axes", "MarkerKinematics",
           "marker_kinematics"]

#: tolerance of the planarity checks (unit vectors)
PLANE_TOL = 1e-6

_ORIENTATION = ("a00", "a10", "a20", "a01", "a11", "a21", "a02", "a12", "a22")


def vector_text(v) -> str:
    """``(x, y, z)`` with 6 significant digits (for messages)."""
    return "(" + ", ".join(f"{x:.6g}" for x in np.asarray(v, dtype=float) + 0.0) + ")"


# --------------------------------------------------------------------------- marker frames
def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def marker_axes(e) -> np.ndarray:
    """The (3, 3) axes (columns x, y, z) of a Reference_Marker :class:`~.element.Element`:
    from ``a00 .. a22`` (checked orthonormal), the 3-1-3 Euler angles, or the identity."""
    if any(e.has(n) for n in _ORIENTATION):
        return _axes_from_direction_cosines(e)
    if any(e.has(n) for n in ("psi", "theta", "phi")):
        psi, theta, phi = (e.number(n, 0.0) for n in ("psi", "theta", "phi"))
        return _rz(psi) @ _rx(theta) @ _rz(phi)
    return np.eye(3)


def _axes_from_direction_cosines(e) -> np.ndarray:
    x = np.array([e.number("a00", 1.0), e.number("a10", 0.0), e.number("a20", 0.0)])
    z = np.array([e.number("a02", 0.0), e.number("a12", 0.0), e.number("a22", 1.0)])
    if abs(np.linalg.norm(x) - 1) > 1e-3 or abs(np.linalg.norm(z) - 1) > 1e-3 \
            or abs(x @ z) > 1e-3:
        raise e.error(f"the orientation is not orthonormal: x-axis {vector_text(x)} (a00, a10, "
                      f"a20), z-axis {vector_text(z)} (a02, a12, a22) must be perpendicular "
                      "unit vectors")
    x = x / np.linalg.norm(x)
    z = z - (z @ x) * x
    z = z / np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


# --------------------------------------------------------------------------- the plane
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


def _nonplanar(source: str, message: str) -> ModelError:
    return ModelError(f"{source}: {message}; only planar models are supported (every revolute "
                      "axis parallel to the plane normal, translational axes, gravity and initial "
                      "velocities perpendicular to it)")


def find_plane(joints: dict, markers: dict, bodies: dict, gravity, source: str) -> Plane:
    """The plane of motion of the records (see the module docstring), checked: a
    :class:`~nonsmooth.errors.ModelError` (``source``: the file) for a non-planar model."""
    in_plane = _in_plane_vectors(joints, markers, gravity)
    revolutes = [j for j in joints.values() if j.type == "REVOLUTE"]
    if revolutes:
        n, found = _normal_of_revolutes(revolutes, markers, source)
    else:
        n, found = _normal_of_in_plane(in_plane, source)
    for v, what in in_plane:
        if abs(v @ n) > PLANE_TOL:
            raise _nonplanar(source, f"{what} {vector_text(v)} is not perpendicular to the plane "
                             f"normal {vector_text(n)} ({found})")
    _check_initial_velocities(bodies, n, found, source)
    e1, e2 = _in_plane_basis(n, gravity)
    return Plane(n, e1 + 0.0, e2 + 0.0, found)


def _in_plane_vectors(joints, markers, gravity) -> list:
    """``(unit vector, what)`` that must be perpendicular to the normal: the translational
    slide axes and gravity."""
    in_plane = []
    for j in joints.values():
        if j.type == "TRANSLATIONAL":
            in_plane.append((markers[j.j_marker].axes[:, 2],
                             f"Constraint_Joint id={j.id} (TRANSLATIONAL): its slide axis "
                             "(z of the J marker)"))
    g = float(np.linalg.norm(gravity))
    if g > 0:
        in_plane.append((gravity / g, "Force_Gravity: gravity"))
    return in_plane


def _normal_of_revolutes(revolutes, markers, source):
    """The z-axis of the first revolute's J marker, checked parallel to every revolute axis."""
    first = revolutes[0]
    n = markers[first.j_marker].axes[:, 2].copy()
    found = f"the z-axis of the J marker {first.j_marker} of Constraint_Joint id={first.id}"
    for j in revolutes:
        for attr, mid in (("I", j.i_marker), ("J", j.j_marker)):
            axis = markers[mid].axes[:, 2]
            if np.linalg.norm(np.cross(axis, n)) > PLANE_TOL:
                raise _nonplanar(source, f"Constraint_Joint id={j.id} (REVOLUTE): the z-axis "
                                 f"{vector_text(axis)} of its {attr} marker {mid} is not parallel "
                                 f"to the plane normal {vector_text(n)} ({found})")
    return n, found


def _normal_of_in_plane(in_plane, source):
    """Without revolute joints: the normal of two non-parallel in-plane vectors, else the first
    global axis (z, y, x) perpendicular to all of them; its largest component positive."""
    n, found = _cross_normal(in_plane)
    if n is None:
        n, found = _global_axis_normal([v for v, _ in in_plane])
    if n is None:
        raise _nonplanar(source, "the translational axes and gravity do not lie in a plane")
    k = int(np.argmax(np.abs(n)))
    return (n if n[k] > 0 else -n), found


def _cross_normal(in_plane):
    for a in range(len(in_plane)):
        for b in range(a + 1, len(in_plane)):
            c = np.cross(in_plane[a][0], in_plane[b][0])
            if np.linalg.norm(c) > 1e-3:
                return c / np.linalg.norm(c), \
                    f"the normal of {in_plane[a][1]} and {in_plane[b][1]}"
    return None, None


def _global_axis_normal(vecs):
    for k in (2, 1, 0):
        cand = np.eye(3)[k]
        if all(abs(v @ cand) < PLANE_TOL for v in vecs):
            return cand, f"the global {'xyz'[k]}-axis"
    return None, None


def _check_initial_velocities(bodies, n, found, source):
    for b in bodies.values():
        if b.ground:
            continue
        off_plane = abs(b.velocity @ n) > PLANE_TOL * max(1.0, np.linalg.norm(b.velocity))
        tilted = np.linalg.norm(np.cross(b.angular_velocity, n)) > \
            PLANE_TOL * max(1.0, np.linalg.norm(b.angular_velocity))
        if off_plane or tilted:
            raise _nonplanar(source, f"Body_Rigid id={b.id}: its initial velocity leaves the "
                             f"plane with normal {vector_text(n)} ({found})")


def _in_plane_basis(n, gravity):
    """``(e1, e2)`` with ``e1 x e2 = n``; ``e2`` against gravity when there is gravity."""
    g = float(np.linalg.norm(gravity))
    if g > 0:
        e2 = -gravity / g
        return np.cross(e2, n), e2
    ref = np.eye(3)[0] if abs(n[0]) < 0.9 else np.eye(3)[1]
    e1 = ref - (ref @ n) * n
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(n, e1)


# --------------------------------------------------------------------------- kinematics of a run
class RunKinematics:
    """What a run's marker kinematics (planar: :class:`MarkerKinematics`, spatial:
    ``spatial_kinematics.SpatialMarkerKinematics``) hold: the model's records ``info``, the
    output times ``t`` (N,) and a cache; the :class:`nonsmooth.Result` weakly (a cache of
    kinematics must not keep it alive)."""

    def __init__(self, info, result):
        self.info = info
        self._result = weakref.ref(result)
        self.t = result.t
        self.n_t = len(result.t)
        self._cache = {}

    @property
    def result(self):
        """The :class:`nonsmooth.Result` (while it exists)."""
        return self._result()

    def _moving_body(self, marker_id):
        """The ``Body_Rigid`` record of the marker's body, or None for a ground marker."""
        body = self.info.bodies.get(self.info.markers[marker_id].body)
        return None if body is None or body.ground else body


class MarkerKinematics(RunKinematics):
    """3-D marker kinematics rebuilt from a planar :class:`nonsmooth.Result` (SI, cached).

    ``info`` is the :class:`~.records.MotionSolveModel` the run's model was built from. Every
    method returns arrays over the output times: :meth:`position`, :meth:`velocity`,
    :meth:`omega` (N, 3), :meth:`axes` (N, 3, 3), :meth:`pair` the pair's (F_T, N, v_T),
    :meth:`friction_components` the ``FRICTION`` request's 18 components.
    The result is held weakly (the cache of :func:`marker_kinematics` must not keep it alive).
    """

    def _body(self, marker_id):
        """(x, y, theta, vx, vy, w) arrays of the marker's body, or None for the ground."""
        body = self._moving_body(marker_id)
        if body is None:
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

    def friction_components(self, joint, values) -> np.ndarray:
        """The 18 ``FRICTION`` components (:mod:`.expressions`) of a joint's friction pair,
        (N, 18), SI (N, N m, -, m/s), along the J marker's axes: the pair acts about the plane
        normal (a revolute joint: torque ``pin_radius F_T``, rotational slip) or along the J
        marker's z-axis (a translational joint: force ``F_T``, translational slip); the
        coefficients ``|F_T| / N`` times ``|projection|`` (``N`` the pair's normal load,
        :meth:`pair`). ``joint``: the
        :class:`~.records.Joint`, ``values``: its Force_JointFriction's (SI)."""
        key = ("friction", joint.name)
        if key in self._cache:
            return self._cache[key]
        F, N, v = self.pair(joint.name)
        revolute = joint.type == "REVOLUTE"
        axes = self.axes(joint.j_marker)
        d = self.normal_rows() if revolute else axes[:, :, 2]
        zero = np.zeros_like(F)
        mu = np.divide(np.abs(F), N, out=np.zeros_like(F), where=N > 0)
        cols = [zero] * 18
        for c in range(3):
            proj = np.einsum("ij,ij->i", d, axes[:, :, c])
            if revolute:
                cols[3 + c] = values["pin_radius"] * F * proj
                cols[9 + c] = mu * np.abs(proj)
                cols[15 + c] = v * proj
            else:
                cols[c] = F * proj
                cols[6 + c] = mu * np.abs(proj)
                cols[12 + c] = v * proj
        self._cache[key] = np.column_stack(cols)
        return self._cache[key]

    def pair(self, name):
        """(F_T, N, v_T) of a frictional pair (SI): ``N`` the normal load the law multiplies
        (``Result.N``: the reaction ``|lambda_N|`` and the bending and preload terms), so that
        a coefficient ``|F_T| / N`` is the law's (``mu_d`` when sliding fast) and equals the
        spatial reading's (``<joint>.N``)."""
        r = self.result
        if name not in r.pair_names:
            raise ModelError(f"the run has no frictional pair {name!r}; pairs: {r.pair_names}")
        k = r.pair_names.index(name)
        return r.F_T[:, k], r.N[:, k], r.v_T[:, k]


#: result -> its MarkerKinematics (held weakly: an entry goes with its Result)
_KINEMATICS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def marker_kinematics(info, result) -> MarkerKinematics:
    """The :class:`MarkerKinematics` of ``result`` for the model ``info``, made once per
    (model, result) and shared by the outputs of the run; nothing is stored on the result."""
    kin = _KINEMATICS.get(result)
    if kin is None or kin.info is not info:
        kin = MarkerKinematics(info, result)
        _KINEMATICS[result] = kin
    return kin
