"""Equivalent rotor inertia of geared joints (``docs/method.md`` section 11).

A motor with rotor inertia ``I_r`` behind a reduction of ratio ``G`` adds ``J_eq = G^2 I_r`` about
a revolute joint. Two models:

* ``mode="armature"``: kinetic energy ``J_eq / 2 (dtheta_rel/dt)^2``; only ``J_eq`` matters;
* ``mode="virtual"``: a rotor on the joint's parent body (``body_i``) spinning at ``G`` times the
  joint rate: ``I_r / 2 (omega_parent + G dtheta_rel/dt)^2``; keeps the finite-gear-ratio terms
  (of order ``J_eq / G``), so the split of ``J_eq`` into ``G`` and ``I_r`` matters.

Either adds a constant term to the mass matrix (``J g g^T`` with ``g`` the gradient of the
joint's relative angle), so a driven joint's torque grows by ``J_eq d2theta/dt2``.

On a translational joint (a linear actuator: ``G`` in rad/m, ``J_eq`` in kg) the joint coordinate
is the slider's displacement ``s(q)``, whose gradient ``w`` may depend on q (a moving guide):
the kinetic energy ``J_eq / 2 (ds/dt)^2`` adds ``J_eq w w^T`` to the mass matrix and the velocity
term ``-J_eq w (dw/dt . v)`` to the applied forces (Lagrange's equations; likewise for the
virtual rotor with ``h = e_parent + G w``).
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..validate import check_name, check_number
from .bodies import PointMass, ref, relative_angle
from .joints import Revolute, Translational

__all__ = ["RotorInertia"]


class RotorInertia:
    """Rotor inertia on a revolute joint between rigid bodies (or a body and the ground).

    Parameters
    ----------
    name : str
    joint : Revolute or Translational
    rotor_inertia : float, optional
        ``I_r`` (kg m^2). With ``gear_ratio``: ``J_eq = G^2 I_r``; alone: taken as ``J_eq``.
    gear_ratio : float, optional
        ``G`` (> 0), required for ``mode="virtual"``.
    joint_axis_inertia : float, optional
        ``J_eq`` given directly (kg m^2); exclusive with ``rotor_inertia``.
    mode : {"armature", "virtual"}
    """

    def __init__(self, name, joint, *, rotor_inertia=None, gear_ratio=None,
                 joint_axis_inertia=None, mode="armature"):
        self.name = check_name(name, "rotor inertia")
        if not isinstance(joint, (Revolute, Translational)):
            raise ModelError(f"rotor inertia '{name}': joint must be a Revolute or "
                             "Translational joint")
        if isinstance(joint, Revolute):
            for b in joint.bodies():
                if isinstance(b, PointMass):
                    raise ModelError(f"rotor inertia '{name}': joint '{joint.name}' connects a "
                                     "point mass, which has no rotation")
        if mode == "virtual" and isinstance(joint.body_i, PointMass):
            raise ModelError(f"rotor inertia '{name}': the parent body_i of a virtual rotor "
                             "must be able to rotate")
        if mode not in ("armature", "virtual"):
            raise ModelError(f"rotor inertia '{name}': mode = {mode!r}; use 'armature' or "
                             "'virtual'")
        if (rotor_inertia is None) == (joint_axis_inertia is None):
            raise ModelError(f"rotor inertia '{name}': give rotor_inertia (with or without "
                             "gear_ratio) or joint_axis_inertia, not both or neither")

        def positive(what, x):
            return check_number(x, f"rotor inertia '{name}': {what} = ", minimum=0.0,
                                exclusive=True)

        self.joint, self.mode = joint, mode
        self.gear_ratio = None if gear_ratio is None else positive("gear_ratio", gear_ratio)
        if joint_axis_inertia is not None:
            self.J_eq = positive("joint_axis_inertia", joint_axis_inertia)
            self.rotor_inertia = (None if self.gear_ratio is None
                                  else self.J_eq / self.gear_ratio ** 2)
        else:
            I_r = positive("rotor_inertia", rotor_inertia)
            self.rotor_inertia = I_r
            self.J_eq = I_r if self.gear_ratio is None else self.gear_ratio ** 2 * I_r
        if mode == "virtual" and self.gear_ratio is None:
            raise ModelError(f"rotor inertia '{name}': mode='virtual' needs gear_ratio (the "
                             "rotor spins at gear_ratio times the joint rate)")

    def bodies(self):
        return self.joint.bodies()

    @property
    def constant(self) -> bool:
        """Whether the mass-matrix term is constant (a revolute joint)."""
        return isinstance(self.joint, Revolute)

    def terms(self, q, v) -> tuple[np.ndarray, np.ndarray]:
        """Mass-matrix term (n_q, n_q) and velocity force (n_q,) at a state (translational)."""
        n_q = q.shape[0]
        phi, w = np.zeros(1), np.zeros((1, n_q))
        g = self.joint.coordinate(0.0, q, v, 0, phi, w)  # d2s/dt2 = w a - g, so dw/dt v = -g
        w = w[0]
        if self.mode == "armature":
            return self.J_eq * np.outer(w, w), self.J_eq * g * w
        h = self.gear_ratio * w
        parent = self.joint.body_i
        if parent.ndof == 3:
            h[parent.offset + 2] += 1.0
        return self.rotor_inertia * np.outer(h, h), self.rotor_inertia * self.gear_ratio * g * h

    def mass_matrix(self, n_q: int, refs=None) -> np.ndarray:
        """The constant addition to the mass matrix of a revolute joint, shape (n_q, n_q).

        ``refs``: ``(offset, ndof)`` of the joint's ``body_i`` and ``body_j`` (default their
        bound offsets; the tables pass their own)."""
        i_ref, j_ref = refs if refs is not None else (ref(self.joint.body_i),
                                                      ref(self.joint.body_j))
        g = np.zeros(n_q)
        relative_angle(i_ref, j_ref, row=g)
        if self.mode == "armature":
            return self.J_eq * np.outer(g, g)
        h = self.gear_ratio * g
        if i_ref[1] == 3:  # the virtual rotor turns with the parent body_i
            h[i_ref[0] + 2] += 1.0
        return self.rotor_inertia * np.outer(h, h)
