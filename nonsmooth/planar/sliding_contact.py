"""A body point sliding on a table seen from above, with a given normal force: a friction element
of dimension 2 (``docs/seam.md`` section 5.5, ``docs/method.md`` section "Vector slip").

A puck on ice, a part on a vibrating table: the plane of the model is the table, the normal
force ``N(t)`` presses the point P onto it (a number or a function of time, N; <= 0: lifted, no
friction), and dry friction acts on the 2-D velocity of P::

    r = A(theta) s                         (s: P in the body's frame, m)
    v_P = [xdot - omega r_y, ydot + omega r_x]          (m/s)
    W rows (2 x n_q) at the body's coordinates: [1, 0, -r_y] and [0, 1, r_x]
    (dW/dt) v = -omega^2 r                              (m/s^2, the centripetal part)

Slipping, ``F_T = -mu N v_P / |v_P|`` (Coulomb; the force on the body at P, N); sticking, the
two stick rows hold ``v_P = 0`` while ``|F_T| <= mu_s N``. With ``law="lugre"`` a 2-D bristle
state (MotionSolve's N-dimensional form), with ``law="regularized"`` the regularized law on the
vector (:mod:`nonsmooth.vector_friction`).

References: Pfeiffer & Glocker, *Multibody Dynamics with Unilateral Contacts* (1996), ch. 7
(spatial Coulomb friction, the friction disk); Glocker, *Set-Valued Force Laws* (2001).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import ModelError
from ..validate import check_pair
from .bodies import Body, PointMass, add_point_row, point_state
from .clutch import FrictionElement

__all__ = ["SlidingContact"]


class SlidingContact(FrictionElement):
    """Dry friction of a body point on the plane of the model under a given normal force.

    Parameters
    ----------
    name : str
    body : Body or PointMass
        The sliding body (not the ground).
    normal_force : float or callable
        The force pressing P onto the table (N), or a function ``N(t)``; <= 0: no contact.
    mu : float
        Dynamic (sliding) coefficient (-), in [0, 10].
    mu_s : float, optional
        Static coefficient (-), >= mu (default: mu).
    point : (float, float), optional
        P in the body's frame (m; default its centre of mass). A point mass has only its centre.
    law : str, optional
        ``"coulomb"`` (default), ``"lugre"``, ``"regularized"`` or ``"bristle"`` (a 2-D
        bristle vector and a dwell state); ``friction`` the law's other
        parameters (:class:`~nonsmooth.system.FrictionPair`).

    Notes
    -----
    Outputs (``result["<name>.F_x"]`` ...): ``.N`` the normal force (N), ``.F_x``, ``.F_y`` the
    friction force on the body at P (N), ``.F_f`` its magnitude ``|F_T|`` (N), ``.v_x``, ``.v_y``
    the slip velocity of P (m/s), ``.mode`` (0 stick, 2 slip).
    """

    def __init__(self, name: str, body, normal_force, mu: float, mu_s: float | None = None, *,
                 point=(0.0, 0.0), law: str = "coulomb", friction: dict | None = None):
        what = f"sliding contact '{name}'"
        if not isinstance(body, (Body, PointMass)):
            raise ModelError(f"{what}: body must be a Body or PointMass that slides on the "
                             f"table (not the ground), got {body!r}")
        self.body = body
        self.point = check_pair(point, f"{what}: point")
        if isinstance(body, PointMass) and self.point != (0.0, 0.0):
            raise ModelError(f"{what}: point = {point!r}, but a point mass has only its centre; "
                             "leave point out or make the body a rigid Body")
        self._given(what, name, normal_force, mu, mu_s, law, friction)
        self.friction = replace(self.friction, dim=2)

    def bodies(self) -> list:
        return [self.body]

    def _offset(self, q, v):
        """``(ax, ay, omega)``: P's rotated offset ``r = A(theta) s`` (m), the body's rate."""
        _, _, ax, ay, omega, _ = point_state(self.body, self.point, q, v)
        return ax, ay, omega

    def fill_tangential(self, q, v, i, W) -> None:
        """Rows ``i, i + 1`` of W: ``d(r_P)/dq`` along x and y."""
        ax, ay, _ = self._offset(q, v)
        add_point_row(W, i, self.body, ax, ay, 1.0, 0.0)
        add_point_row(W, i + 1, self.body, ax, ay, 0.0, 1.0)

    def tangential_bias(self, q, v) -> np.ndarray:
        """``(dW/dt) v = -omega^2 r``, shape (2,) (m/s^2)."""
        ax, ay, omega = self._offset(q, v)
        return np.array([-omega * omega * ax, -omega * omega * ay])
