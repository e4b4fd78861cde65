"""Rotations by Euler parameters (unit quaternions ``p = (w, x, y, z)``), numpy only.

Conventions (Nikravesh, *Computer-Aided Analysis of Mechanical Systems*, 1988, ch. 6; Haug,
*Computer Aided Kinematics and Dynamics of Mechanical Systems*, 1989, ch. 9): ``p = (e0, e)``
with ``e0 = cos(phi / 2)``, ``e = sin(phi / 2) u`` for a rotation by ``phi`` about the unit axis
``u``; ``R(p)`` maps body axes to world axes (``x_world = r + R s_body``); with

    E(p) = [-e, e~ + e0 I]   (3, 4)        L(p) = [-e, -e~ + e0 I]   (3, 4)

``R = E L^T``, the angular velocity in world axes ``omega = 2 E dp/dt``, in body axes
``omega' = 2 L dp/dt``, and back ``dp/dt = 1/2 L^T omega' = 1/2 p (x) (0, omega')``
(for unit ``p``; ``e~`` the cross-product matrix).
"""

from __future__ import annotations

import numpy as np

__all__ = ["skew", "quat_multiply", "quat_conjugate", "rotation_matrix", "rotation_matrices",
           "from_rotation_matrix",
           "from_axis_angle", "E_matrix", "L_matrix", "quat_rate", "normalized"]


def skew(a: np.ndarray) -> np.ndarray:
    """The cross-product matrix ``a~`` (3, 3) of ``a`` (3,): ``a~ b = a x b``."""
    x, y, z = a
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The quaternion product ``a (x) b`` of ``(w, x, y, z)`` quaternions, shape (4,)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return np.array([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw])


def quat_conjugate(p: np.ndarray) -> np.ndarray:
    """``(w, -x, -y, -z)``: the inverse rotation of a unit quaternion."""
    return np.array([p[0], -p[1], -p[2], -p[3]])


def normalized(p: np.ndarray) -> np.ndarray:
    """``p / |p|`` (4,); a zero or non-finite quaternion raises ``ValueError``."""
    p = np.asarray(p, dtype=float)
    norm = float(np.sqrt(p @ p))
    if not (np.isfinite(norm) and norm > 0.0):
        raise ValueError(f"the quaternion {p.tolist()} has no direction (norm {norm}); give "
                         "(w, x, y, z) with a nonzero norm")
    return p / norm


def E_matrix(p: np.ndarray) -> np.ndarray:
    """``E(p) = [-e, e~ + e0 I]`` (3, 4): ``omega_world = 2 E dp/dt``."""
    e0, e = p[0], p[1:]
    return np.column_stack((-e, skew(e) + e0 * np.eye(3)))


def L_matrix(p: np.ndarray) -> np.ndarray:
    """``L(p) = [-e, -e~ + e0 I]`` (3, 4): ``omega_body = 2 L dp/dt``,
    ``dp/dt = 1/2 L^T omega_body`` (Nikravesh's ``G``)."""
    e0, e = p[0], p[1:]
    return np.column_stack((-e, -skew(e) + e0 * np.eye(3)))


def rotation_matrix(p: np.ndarray) -> np.ndarray:
    """``R(p)`` (3, 3), body axes to world axes, of ``p / |p|``."""
    w, x, y, z = normalized(p)
    return np.array([
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
        [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
        [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)]])


def rotation_matrices(P: np.ndarray) -> np.ndarray:
    """``R(p / |p|)`` of every quaternion of ``P`` (..., 4): shape (..., 3, 3) (vectorized
    :func:`rotation_matrix`, for the rows of a result)."""
    P = np.asarray(P, dtype=float)
    P = P / np.linalg.norm(P, axis=-1, keepdims=True)
    w, x, y, z = np.moveaxis(P, -1, 0)
    R = np.empty(P.shape[:-1] + (3, 3))
    R[..., 0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[..., 0, 1] = 2.0 * (x * y - w * z)
    R[..., 0, 2] = 2.0 * (x * z + w * y)
    R[..., 1, 0] = 2.0 * (x * y + w * z)
    R[..., 1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[..., 1, 2] = 2.0 * (y * z - w * x)
    R[..., 2, 0] = 2.0 * (x * z - w * y)
    R[..., 2, 1] = 2.0 * (y * z + w * x)
    R[..., 2, 2] = 1.0 - 2.0 * (x * x + y * y)
    return R


def from_rotation_matrix(R: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """The unit quaternion (4,) with ``w >= 0`` of a rotation matrix (Shepperd's method: the
    largest of the four squared components is taken first, so no division by a small number).
    ``ValueError`` if ``R`` is not orthonormal with determinant +1 to ``tol``."""
    R = np.asarray(R, dtype=float)
    if R.shape != (3, 3) or not np.all(np.isfinite(R)):
        raise ValueError(f"a rotation matrix is 3 x 3 and finite; got shape {R.shape}")
    err = float(np.max(np.abs(R.T @ R - np.eye(3))))
    if err > tol or np.linalg.det(R) < 0.0:
        raise ValueError(f"the matrix is not a rotation (|R^T R - I| = {err:.3g}, det = "
                         f"{np.linalg.det(R):.6g}); give an orthonormal matrix with det +1 "
                         "or a unit quaternion (w, x, y, z)")
    t = np.trace(R)
    cand = np.array([t, R[0, 0], R[1, 1], R[2, 2]])
    k = int(np.argmax(cand))
    if k == 0:
        w = 0.5 * np.sqrt(1.0 + t)
        p = np.array([w, (R[2, 1] - R[1, 2]) / (4 * w), (R[0, 2] - R[2, 0]) / (4 * w),
                      (R[1, 0] - R[0, 1]) / (4 * w)])
    elif k == 1:
        x = 0.5 * np.sqrt(1.0 + 2 * R[0, 0] - t)
        p = np.array([(R[2, 1] - R[1, 2]) / (4 * x), x, (R[0, 1] + R[1, 0]) / (4 * x),
                      (R[0, 2] + R[2, 0]) / (4 * x)])
    elif k == 2:
        y = 0.5 * np.sqrt(1.0 + 2 * R[1, 1] - t)
        p = np.array([(R[0, 2] - R[2, 0]) / (4 * y), (R[0, 1] + R[1, 0]) / (4 * y), y,
                      (R[1, 2] + R[2, 1]) / (4 * y)])
    else:
        z = 0.5 * np.sqrt(1.0 + 2 * R[2, 2] - t)
        p = np.array([(R[1, 0] - R[0, 1]) / (4 * z), (R[0, 2] + R[2, 0]) / (4 * z),
                      (R[1, 2] + R[2, 1]) / (4 * z), z])
    p = p / np.sqrt(p @ p)
    return -p if p[0] < 0.0 else p


def from_axis_angle(axis, angle: float) -> np.ndarray:
    """The unit quaternion (4,) of a rotation by ``angle`` (rad) about ``axis`` (3,)."""
    u = np.asarray(axis, dtype=float)
    norm = float(np.sqrt(u @ u))
    if not (np.isfinite(norm) and norm > 0.0):
        raise ValueError(f"the rotation axis {u.tolist()} has no direction; give a nonzero "
                         "3-vector")
    return np.concatenate(([np.cos(0.5 * angle)], np.sin(0.5 * angle) * u / norm))


def quat_rate(p: np.ndarray, omega_body: np.ndarray) -> np.ndarray:
    """``dp/dt = 1/2 p (x) (0, omega_body)`` (4,): the kinematic map of one body's Euler
    parameters with its angular velocity in body axes (rad/s)."""
    w, x, y, z = p
    a, b, c = omega_body
    return 0.5 * np.array([-x * a - y * b - z * c,
                           w * a + y * c - z * b,
                           w * b - x * c + z * a,
                           w * c + x * b - y * a])
