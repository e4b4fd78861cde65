"""Rigid bodies in unit quaternions for the tests (``import rigid_body``): systems whose
coordinates and velocities differ (``n_q != n_v``), written as ``System`` subclasses with Python
terms, and the closed forms they are checked against.

Conventions (the ones a spatial family uses): the attitude is the unit quaternion
``p = (w, x, y, z)`` that turns body axes into inertial ones (``R(p)``), the angular velocity
``omega`` (rad/s) is in body axes, so ``dp/dt = p (x) (0, omega) / 2`` (Hamilton product); the
inertia tensor in body axes is ``diag(J)`` (kg m^2).

* :class:`FreeBody`: a torque-free body, ``q = p`` (n_q = 4), ``v = omega`` (n_v = 3), no
  constraints: Euler's equations ``J domega/dt = -omega x (J omega)``; closed form
  :func:`euler_closed_form` (Jacobi elliptic functions).
* :class:`PivotedBody`: a heavy body with a body point held at the inertial origin (a
  spherical joint), ``q = [x (3), p (4)]`` (n_q = 7; ``x`` the centre of mass, m), ``v = [u
  (3, the centre of mass's inertial velocity, m/s), omega (3)]`` (n_v = 6), three constraint
  rows ``x + R(p) r = 0`` with the velocity-level Jacobian ``G = [I, -R [r]x]``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ellipj, ellipk

from nonsmooth.system import System, Terms

__all__ = ["FreeBody", "UnprojectedFreeBody", "PivotedBody", "quaternion_rate", "rotation",
           "euler_closed_form", "pendulum_closed_form"]


def quaternion_rate(p: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``dp/dt = p (x) (0, omega) / 2`` (4,) for the unit quaternion ``p`` (4,) and the body-axes
    angular velocity ``omega`` (3,) (rad/s): linear in ``omega``."""
    out = np.empty(4)
    out[0] = -0.5 * (p[1:] @ omega)
    out[1:] = 0.5 * (p[0] * omega + np.cross(p[1:], omega))
    return out


def rotation(p: np.ndarray) -> np.ndarray:
    """The rotation matrix (3, 3) of the unit quaternion ``p = (w, x, y, z)``: body to
    inertial axes."""
    w, x, y, z = p
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _skew(r: np.ndarray) -> np.ndarray:
    """``[r]x`` (3, 3): ``[r]x a = r x a``."""
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


class FreeBody(System):
    """A torque-free rigid body: ``q = p`` the unit quaternion (n_q = 4), ``v = omega`` (n_v =
    3, rad/s, body axes), ``M = diag(J)`` (kg m^2), ``f = -omega x (J omega)`` (N m: no work,
    so ``P_applied = 0``), no constraints and no pairs; ``qdot`` the quaternion rate,
    ``project`` the normalization ``p / |p|``."""

    def __init__(self, J):
        self.J = np.asarray(J, dtype=float)
        self.coordinate_names = ["p.w", "p.x", "p.y", "p.z"]
        self.n_q, self.n_v = 4, 3
        self.velocity_names = ["omega.1", "omega.2", "omega.3"]
        self.constraint_names, self.constraint_kinds, self.pairs = [], [], []
        self._finish()
        self._M = np.diag(self.J)
        self._none, self._rows = np.zeros(0), np.zeros((0, 3))

    def qdot(self, q, v):
        return quaternion_rate(q, v)

    def project(self, q):
        return q / np.linalg.norm(q)

    def terms(self, t, q, v):
        f = -np.cross(v, self.J * v)
        e = self._none
        return Terms(self._M, f, e, e, self._rows, e, self._rows, 0.0, 0.0)

    def potential(self, t, q):
        return 0.0

    @property
    def constant_mass(self):
        return self._M


class UnprojectedFreeBody(FreeBody):
    """:class:`FreeBody` without its projection (``project`` the base class's identity: the
    run never projects ``p``)."""

    project = System.project


class PivotedBody(System):
    """A heavy rigid body of mass ``mass`` (kg) and central inertia ``diag(J)`` (kg m^2) whose
    body point ``r`` (3,) (m, from the centre of mass, body axes) is held at the inertial origin;
    gravity ``g`` (m/s^2) along -z. ``q = [x, p]`` (7), ``v = [u, omega]`` (6); constraint rows
    ``pivot.x/.y/.z``: ``phi = x + R(p) r``, ``G = [I, -R [r]x]``, ``gamma = -R (omega x
    (omega x r))``; potential ``V = mass g z``."""

    def __init__(self, mass, J, r, g=9.81):
        self.mass, self.g = float(mass), float(g)
        self.J, self.r = np.asarray(J, dtype=float), np.asarray(r, dtype=float)
        self.coordinate_names = ["x", "y", "z", "p.w", "p.x", "p.y", "p.z"]
        self.n_q, self.n_v = 7, 6
        self.velocity_names = ["u.x", "u.y", "u.z", "omega.1", "omega.2", "omega.3"]
        self.constraint_names = ["pivot.x", "pivot.y", "pivot.z"]
        self.constraint_kinds = ["joint"] * 3
        self.pairs = []
        self._finish()
        self._M = np.diag(np.concatenate((np.full(3, self.mass), self.J)))
        self._W, self._zero = np.zeros((0, 6)), np.zeros(3)
        self._rx = _skew(self.r)
        self._weight = np.array([0.0, 0.0, -self.mass * self.g])

    def qdot(self, q, v):
        return np.concatenate((v[:3], quaternion_rate(q[3:], v[3:])))

    def project(self, q):
        return np.concatenate((q[:3], q[3:] / np.linalg.norm(q[3:])))

    def terms(self, t, q, v):
        R = rotation(q[3:])
        w = v[3:]
        f = np.concatenate((self._weight, -np.cross(w, self.J * w)))
        phi = q[:3] + R @ self.r
        G = np.hstack((np.eye(3), -R @ self._rx))
        gamma = -R @ np.cross(w, np.cross(w, self.r))
        return Terms(self._M, f, phi, self._zero, G, gamma, self._W, 0.0, 0.0)

    def potential(self, t, q):
        return self.mass * self.g * float(q[2])

    @property
    def constant_mass(self):
        return self._M

    def angular_momentum(self, q, v) -> np.ndarray:
        """The angular momentum about the pivot (3,), inertial axes (kg m^2/s)."""
        return self.mass * np.cross(q[:3], v[:3]) + rotation(q[3:]) @ (self.J * v[3:])


def euler_closed_form(J, omega_ref, tau0):
    """Euler's equations' solution for ``J1 < J2 < J3`` with ``M^2 > 2 E J2`` (Landau &
    Lifshitz, *Mechanics*, section 37): ``omega(t) = (A1 cn, A2 sn, A3 dn)(lam t + tau0 | m)``,
    the energy ``E`` and momentum ``M`` of the state ``omega_ref`` (3,) (rad/s; taken at
    ``tau = K``, where ``omega_1 = 0``). ``omega_2`` changes sign at ``lam t + tau0 = 2 j K``:
    the flips about the intermediate axis. Returns ``(omega(t) -> (3, k), lam (1/s), K,
    m)``."""
    J = np.asarray(J, dtype=float)
    two_E, M2 = J @ omega_ref ** 2, (J * J) @ omega_ref ** 2
    assert J[0] < J[1] < J[2] and M2 > two_E * J[1]
    A = np.sqrt([(two_E * J[2] - M2) / (J[0] * (J[2] - J[0])),
                 (two_E * J[2] - M2) / (J[1] * (J[2] - J[1])),
                 (M2 - two_E * J[0]) / (J[2] * (J[2] - J[0]))])
    lam = np.sqrt((J[2] - J[1]) * (M2 - two_E * J[0]) / np.prod(J))
    m = (J[1] - J[0]) * (two_E * J[2] - M2) / ((J[2] - J[1]) * (M2 - two_E * J[0]))

    def omega(t):
        sn, cn, dn, _ = ellipj(lam * np.asarray(t, dtype=float) + tau0, m)
        return np.array([A[0] * cn, A[1] * sn, A[2] * dn])

    return omega, float(lam), float(ellipk(m)), float(m)


def pendulum_closed_form(theta0, inertia, mass, g, d):
    """A physical pendulum (pivot inertia ``inertia``, kg m^2; centre of mass ``d`` m from the
    pivot) released at rest from ``theta0`` (rad): ``sin(theta / 2) = k sn(K - w0 t | k^2)``
    with ``k = sin(theta0 / 2)``, ``w0 = sqrt(mass g d / inertia)``. Returns ``(theta_dot(t),
    period (s), K, w0)``: ``theta_dot = -2 k w0 cn(K - w0 t)``, period ``4 K / w0``; the
    pendulum passes the bottom at ``t = (2 j + 1) K / w0``."""
    k = np.sin(theta0 / 2)
    w0 = np.sqrt(mass * g * d / inertia)
    K = float(ellipk(k * k))

    def theta_dot(t):
        return -2 * k * w0 * ellipj(K - w0 * np.asarray(t, dtype=float), k * k)[1]

    return theta_dot, 4 * K / w0, K, float(w0)
