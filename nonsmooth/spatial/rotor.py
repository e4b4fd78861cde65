"""Rotor inertia of a geared revolute joint in the spatial family (``docs/design/spatial.md``
section 3, ``docs/method.md`` section 15.1).

A motor of rotor inertia ``I_r`` (kg m^2, about its spin axis) drives a :class:`Revolute` joint
through a reduction of ratio ``G`` (rotor turns per joint turn): the rotor turns about the
joint axis ``h`` at ``G theta_dot`` relative to the carrier ``body_a`` (or the ground), with
``theta_dot = h . (omega_b - omega_a)`` the joint rate. In the body-axes velocity coordinates of
:class:`~nonsmooth.spatial.model.SpatialSystem` the axis is constant in both bodies' axes
(``h'_a``, ``h'_b``), so ``theta_dot = h'_b . omega'_b - h'_a . omega'_a = g . v`` with a
constant row ``g`` (6 N,). Two models:

* ``mode="armature"``: kinetic energy ``1/2 G^2 I_r theta_dot^2``: the constant rank-one mass
  term ``G^2 I_r g g^T`` and no velocity term (MuJoCo's ``armature``, Choreonoid's
  ``gearRatio^2 rotorInertia``: the reflected-inertia approximation);
* ``mode="virtual"``: a rotor body carried by ``body_a`` spinning at ``s = h . omega_a + G
  theta_dot`` about ``h`` (absolute spin, ``s = k . v`` with the constant row ``k``:
  ``(1 - G) h'_a`` on ``omega'_a``, ``G h'_b`` on ``omega'_b``): the mass term ``I_r k k^T``
  and, on the carrier, the gyroscopic torque ``- omega'_a x (I_r s h'_a)`` (body axes) of
  the rotor's angular momentum turning with the carrier (the rotor as a body geared to the
  joint, Featherstone, *Rigid Body Dynamics Algorithms* (2008), section 9.6, without its own
  coordinates; the rotor's transverse inertia and its mass are part of the carrier's
  ``Body``, the user's to include). It keeps the terms of order ``G^2 I_r / G`` the armature
  drops.

Either mass term is constant, so :attr:`SpatialSystem.constant_mass` includes it (no longer
block diagonal) and the run's kinetic energy ``v M v / 2`` counts the rotor's; the gyroscopic
torque is normal to ``omega'_a`` and does no work.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..validate import check_name, check_number
from .elements import Revolute
from .primitives import Kinematics, _cross

__all__ = ["RotorInertia", "MODES"]

#: The rotor models.
MODES = ("armature", "virtual")


class RotorInertia:
    """A geared rotor on a spatial :class:`~nonsmooth.spatial.elements.Revolute` joint.

    Parameters
    ----------
    name : str
        Prefix of its outputs (``<name>.spin``, rad/s: the rotor's spin relative to the
        carrier, ``G theta_dot``).
    joint : Revolute
        The geared joint; its ``body_a`` (a Body or the ground) carries the rotor, its
        ``body_b`` is driven.
    rotor_inertia : float
        ``I_r`` (kg m^2, > 0): the rotor's moment of inertia about its spin axis.
    gear_ratio : float
        ``G`` (> 0, dimensionless): rotor turns per joint turn. The joint sees ``G^2 I_r``.
    mode : {"armature", "virtual"}
        ``"armature"`` (default, as the planar :class:`nonsmooth.planar.inertia.RotorInertia`):
        ``G^2 I_r`` on the joint's relative rotation alone; ``"virtual"``: the rotor's
        absolute spin and its gyroscopic reaction on the carrier (module docstring;
        ``docs/method.md`` section 15.1).

    Examples
    --------
    >>> from nonsmooth.spatial import Body, Revolute, RotorInertia, SpatialModel, ground
    >>> mdl = SpatialModel("geared")
    >>> arm = mdl.add(Body("arm", 1.0, (0.1, 0.1, 0.01)))
    >>> pin = mdl.add(Revolute("pin", ground, arm, axis=(0, 0, 1)))
    >>> motor = mdl.add(RotorInertia("motor", pin, rotor_inertia=1e-5, gear_ratio=100.0))
    >>> float(mdl.compile().constant_mass[5, 5])  # 0.01 + 100^2 1e-5
    0.11
    """

    def __init__(self, name: str, joint: Revolute, *, rotor_inertia: float, gear_ratio: float,
                 mode: str = "armature"):
        self.name = check_name(name, "rotor inertia")
        where = f"rotor inertia '{self.name}'"
        if not isinstance(joint, Revolute):
            raise ModelError(f"{where}: joint must be a nonsmooth.spatial.Revolute, got "
                             f"{type(joint).__name__} {getattr(joint, 'name', joint)!r} (a "
                             "geared rotor turns with a revolute joint's rotation)")
        if mode not in MODES:
            raise ModelError(f"{where}: mode = {mode!r} is invalid; allowed: 'armature' (G^2 "
                             "I_r on the joint rate) or 'virtual' (a spinning rotor on body_a)")
        self.joint, self.mode = joint, mode
        self.rotor_inertia = check_number(
            rotor_inertia, f"{where}: rotor_inertia = ", minimum=0.0, exclusive=True,
            maximum=1e100, why=" kg m^2 (the rotor's moment about its spin axis)")
        self.gear_ratio = check_number(
            gear_ratio, f"{where}: gear_ratio = ", minimum=0.0, exclusive=True, maximum=1e12,
            why=" (rotor turns per joint turn; a reversed rotor: turn the joint axis)")

    @property
    def reflected_inertia(self) -> float:
        """``G^2 I_r`` (kg m^2): the inertia the joint sees."""
        return self.gear_ratio ** 2 * self.rotor_inertia

    def bodies(self) -> list:
        return self.joint.bodies()

    def compile(self, index_of) -> _CompiledRotor:
        """The constant rows ``g`` (joint rate) and ``k`` (the rotor's absolute spin), (6 N,)
        each once ``n_v`` is known (:meth:`_CompiledRotor.rows`)."""
        j = self.joint
        a, b = index_of(j.body_a), index_of(j.body_b)
        return _CompiledRotor(self, a, b, j.body_a.local_vector(j.axis),
                              j.body_b.local_vector(j.axis))


class _CompiledRotor:
    """A :class:`RotorInertia` against the model's body indices ``a``, ``b`` (-1: ground),
    with the joint axis in each body's axes ``h_a``, ``h_b`` (3,)."""

    def __init__(self, rotor: RotorInertia, a: int, b: int, h_a: np.ndarray, h_b: np.ndarray):
        self.rotor, self.a, self.b, self.h_a, self.h_b = rotor, a, b, h_a, h_b
        self.virtual = rotor.mode == "virtual" and a >= 0

    def rows(self, n_v: int) -> tuple[np.ndarray, np.ndarray]:
        """``(g, k)`` (n_v,) each: ``theta_dot = g . v`` (rad/s) and the rotor's absolute spin
        ``s = k . v = h . omega_a + G theta_dot`` (rad/s)."""
        G = self.rotor.gear_ratio
        g, k = np.zeros(n_v), np.zeros(n_v)
        if self.a >= 0:
            g[6 * self.a + 3:6 * self.a + 6] -= self.h_a
            k[6 * self.a + 3:6 * self.a + 6] += (1.0 - G) * self.h_a
        g[6 * self.b + 3:6 * self.b + 6] += self.h_b
        k[6 * self.b + 3:6 * self.b + 6] += G * self.h_b
        return g, k

    def mass_matrix(self, n_v: int) -> np.ndarray:
        """The constant addition to the mass matrix (n_v, n_v), kg m^2: ``G^2 I_r g g^T``
        (armature) or ``I_r k k^T`` (virtual)."""
        g, k = self.rows(n_v)
        if self.rotor.mode == "armature":
            return self.rotor.reflected_inertia * np.outer(g, g)
        return self.rotor.rotor_inertia * np.outer(k, k)

    def apply(self, K: Kinematics, v: np.ndarray, f: np.ndarray, k_row: np.ndarray) -> None:
        """Add the virtual rotor's gyroscopic torque ``- omega'_a x (I_r s h'_a)`` (N m, body
        axes of the carrier) at the velocities ``v`` (n_v,) into ``f`` (n_v,); ``k_row`` the
        spin row of :meth:`rows`. Nothing for the armature or a ground carrier."""
        if not self.virtual:
            return
        s = float(k_row @ v)
        i = self.a
        f[6 * i + 3:6 * i + 6] -= _cross(K.wb[i], self.rotor.rotor_inertia * s * self.h_a)


def spin(rotor: _CompiledRotor, V: np.ndarray) -> np.ndarray:
    """The rotor's spin relative to its carrier, ``G theta_dot`` (rad/s), at the rows
    ``V`` (k, n_v)."""
    g, _ = rotor.rows(V.shape[1])
    return rotor.rotor.gear_ratio * (V @ g)
