"""3-D marker kinematics of a spatial run, as the ``Post_Request`` expressions measure them.

:class:`SpatialMarkerKinematics` has the interface of :class:`~.kinematics.MarkerKinematics`
(``t``, :meth:`position`, :meth:`velocity`, :meth:`omega` (N, 3), :meth:`axes` (N, 3, 3),
world axes, SI) for a :class:`nonsmooth.Result` of a model built by :mod:`.spatial_builder`.
Per body the result's ``q`` holds ``[x, y, z, qw, qx, qy, qz]`` (centre of mass, world; Euler
parameters, body to world) and ``v`` holds ``[vx, vy, vz, wx', wy', wz']`` (centre-of-mass
velocity, world axes; angular velocity, **body** axes). A marker is fixed in its body: its
origin ``s`` and axes ``A`` in body axes come from the t = 0 configuration (body axes: those of
the body's CM marker, :func:`body_frame`), so

    position = r + R s,   velocity = u + R (w' x s),   omega = R w',   axes = R A.

Ground markers (and marker 0) are constant. :func:`spatial_marker_kinematics` returns one
instance per (model, result) from a weak-keyed cache, so the outputs of a run share the body
arrays and nothing is stored on the :class:`~nonsmooth.Result`.

Reference: Altair MotionSolve Reference Guide, XML format (Reference_Marker) and its functions
DX, VX, WZ.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...spatial.rotation import rotation_matrices
from .kinematics import RunKinematics

__all__ = ["SpatialMarkerKinematics", "spatial_marker_kinematics", "body_frame"]


def body_frame(info, body_id: int) -> tuple[np.ndarray, np.ndarray]:
    """``(c (3,), A0 (3, 3))``: a moving body's centre of mass (m, world) and its body axes at
    t = 0 (columns, world): the axes of its CM marker."""
    cg = info.markers[info.bodies[body_id].cg]
    return cg.origin, cg.axes


class SpatialMarkerKinematics(RunKinematics):
    """Marker kinematics rebuilt from a spatial :class:`nonsmooth.Result` (SI, cached); ``info``
    is the :class:`~.records.MotionSolveModel` the run's model was built from. The result is
    held weakly."""

    def _body(self, marker_id):
        """``(r (N, 3), R (N, 3, 3), u (N, 3), w' (N, 3), s (3,), A (3, 3))`` of the marker's
        body and the marker in body axes, or None for a ground marker."""
        body = self._moving_body(marker_id)
        if body is None:
            return None
        key = ("body", body.id)
        if key not in self._cache:
            r = self.result
            i = r.coordinate_names.index(f"{body.name}.x")
            j = 6 * (i // 7)  # 7 coordinates and 6 velocities per body, in body order
            q = np.ascontiguousarray(r.q[:, i:i + 7])
            self._cache[key] = (q[:, :3], rotation_matrices(q[:, 3:]), r.v[:, j:j + 3],
                                r.v[:, j + 3:j + 6])
        c, A0 = body_frame(self.info, body.id)
        mk = self.info.markers[marker_id]
        return (*self._cache[key], A0.T @ (mk.origin - c), A0.T @ mk.axes)

    def position(self, marker_id):
        b = self._body(marker_id)
        if b is None:
            return np.broadcast_to(self.info.markers[marker_id].origin, (self.n_t, 3))
        r, R, _, _, s, _ = b
        return r + R @ s

    def velocity(self, marker_id):
        b = self._body(marker_id)
        if b is None:
            return np.zeros((self.n_t, 3))
        _, R, u, w, s, _ = b
        return u + np.einsum("kij,kj->ki", R, np.cross(w, s))

    def omega(self, marker_id):
        b = self._body(marker_id)
        if b is None:
            return np.zeros((self.n_t, 3))
        _, R, _, w, _, _ = b
        return np.einsum("kij,kj->ki", R, w)

    def axes(self, marker_id):
        """Marker axes at every output time, shape (N, 3, 3), columns x, y, z (world)."""
        b = self._body(marker_id)
        if b is None:
            return np.broadcast_to(self.info.markers[marker_id].axes, (self.n_t, 3, 3))
        _, R, _, _, _, A = b
        return R @ A

    def friction_components(self, joint, values) -> np.ndarray:
        """The 18 ``FRICTION`` components (:mod:`.expressions`) of a frictional joint, (N, 18),
        SI (N, N m, -, m/s), along the J marker's axes, from the joint's friction outputs
        (:func:`nonsmooth.spatial.joint_friction.friction_outputs`: the friction on ``body_b``,
        the I body, in the joint frame ``(f, g, h)`` fixed in ``body_a``, the J body). The J
        marker is fixed in the J body too, so the frame's components turn into the marker's by
        the constant ``A_J^T C`` (``A_J`` the marker's axes, ``C`` the joint frame, world axes at
        t = 0). Coefficients: ``|F . axis| / N`` and ``|T . axis| / (r N)`` (``r`` the pin or
        ball radius); slips: the translational slip along ``h`` (translational, cylindrical),
        the rotational ``r h . dw`` (revolute, cylindrical) or ``r_ball dw`` (spherical)."""
        key = ("friction", joint.name)
        if key in self._cache:
            return self._cache[key]
        r, name = self.result, joint.name
        built = next(j for j in r.system.model.joints if j.name == name)
        P = self.info.markers[joint.j_marker].axes.T @ built.world_frame()  # J <- (f, g, h)
        F = np.column_stack([r[f"{name}.Ff_{c}"] for c in "fgh"]) @ P.T
        T = np.column_stack([r[f"{name}.Tf_{c}"] for c in "fgh"]) @ P.T
        N = r[f"{name}.N"][:, None]
        radius = values["ball_radius" if joint.type == "SPHERICAL" else "pin_radius"]
        slip_t, slip_r = np.zeros((self.n_t, 3)), np.zeros((self.n_t, 3))
        if joint.type == "SPHERICAL":
            slip_r[:] = np.column_stack([r[f"{name}.slip{k}"] for k in (1, 2, 3)])
        elif joint.type == "CYLINDRICAL":
            slip_r[:, 2], slip_t[:, 2] = r[f"{name}.slip1"], r[f"{name}.slip2"]
        elif joint.type == "REVOLUTE":
            slip_r[:, 2] = r[f"{name}.slip"]
        else:
            slip_t[:, 2] = r[f"{name}.slip"]
        mu_t = np.divide(np.abs(F), N, out=np.zeros_like(F), where=N > 0)
        mu_r = np.divide(np.abs(T), radius * N, out=np.zeros_like(T), where=N > 0)
        self._cache[key] = np.hstack([F, T, mu_t, mu_r, slip_t @ P.T, slip_r @ P.T])
        return self._cache[key]


#: result -> its SpatialMarkerKinematics (held weakly: an entry goes with its Result)
_KINEMATICS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def spatial_marker_kinematics(info, result) -> SpatialMarkerKinematics:
    """The :class:`SpatialMarkerKinematics` of ``result`` for the model ``info``, made once per
    (model, result); nothing is stored on the result."""
    kin = _KINEMATICS.get(result)
    if kin is None or kin.info is not info:
        kin = SpatialMarkerKinematics(info, result)
        _KINEMATICS[result] = kin
    return kin
