"""Friction elements whose normal force is given, not a joint reaction: clutches, brakes, clamps.

* :class:`Clutch` -- two coaxial rotating bodies (each pinned to the ground at the same point, or
  otherwise kept coaxial) pressed together by a normal force ``N(t)`` (N): dry friction on their
  relative rotation, the torque ``tau = radius * F_T`` acting on ``body_b`` (and ``-tau`` on
  ``body_a``), with ``|F_T| <= mu_s N`` while they stick and ``F_T = -mu N sgn(v_T)`` while
  they slip, ``v_T = radius (omega_b - omega_a)`` (m/s).
* :class:`Brake` -- a clutch against the ground: one rotating body.
* :class:`Clamp` -- a clamp that holds the slider of a translational joint in its guide: dry
  friction on the slider's displacement along the slot under a given clamping force (a second
  friction pair of the joint, beside any friction the joint has itself).

``normal_force`` is a number or a function of time ``N(t)`` (N); where it is <= 0 the element is
open (no friction; with the smooth laws only their viscous term, which does not scale with the
normal load, LuGre's ``sigma2`` or the regularized law's ``viscous``, still acts). Stick and slip
are event-driven exactly like joint friction: a Coulomb pair of the system (static and dynamic
coefficients, the transition problem deciding several elements that stick together), whose normal
load is the given force (the ``preload`` of its :class:`~nonsmooth.system.FrictionPair`) instead of
a constraint reaction. A normal force that crosses zero is an event (``simulate``), so that the
kink where the element opens or closes is a phase boundary; give the times of jumps in ``N(t)`` as
``simulate(..., tstops=...)``.

The Modelica Standard Library's ``Rotational.Components.Clutch`` and ``Brake`` are the models
of this kind (``tau = cgeo * mu * fn``: ``radius`` here is ``cgeo``; ``mu_s = peak * mu``);
Otter, Elmqvist & Mattsson, "Hybrid modeling in Modelica based on the synchronous data flow
principle" (CACSD 1999) describe their variable-structure treatment.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..errors import ModelError
from ..system import FrictionPair
from ..validate import check_name, check_number
from .bodies import Body, Ground, ground, ref, relative_angle
from .joints import JointElement, Translational

__all__ = ["FrictionElement", "Clutch", "Brake", "Clamp"]


def _normal_force(what: str, value) -> float | Callable[[float], float]:
    """A normal force: a finite number (N) or a callable ``N(t)``."""
    if callable(value):
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        raise ModelError(f"{what}: normal_force = {value!r} is invalid; give a finite number "
                         "(N; <= 0 means open) or a function of time N(t)")
    return number


def _coefficients(what: str, mu, mu_s) -> tuple[float, float | None]:
    """The dynamic and static coefficients: finite, in [0, 10], ``mu_s >= mu``."""
    mu = check_number(mu, f"{what}: mu = ", minimum=0.0)
    if mu_s is not None:
        mu_s = check_number(mu_s, f"{what}: mu_s = ", minimum=0.0)
    for label, value in (("mu", mu), ("mu_s", mu_s)):
        if value is not None and value > 10.0:
            raise ModelError(f"{what}: {label} = {value:g} is out of range; a friction "
                             "coefficient is in [0, 10]")
    if mu_s is not None and mu_s < mu:
        raise ModelError(f"{what}: mu_s = {mu_s:g} is below mu = {mu:g}; the static coefficient "
                         "is at least the dynamic one (or leave mu_s out: mu_s = mu)")
    return mu, mu_s


def _pair(name, mu, mu_s, normal_force, law, friction) -> FrictionPair:
    preload = normal_force if callable(normal_force) else max(float(normal_force), 0.0)
    return FrictionPair(name, None, mu, mu_s, law=law, params=dict(friction or {}), load=(),
                        radial=(), preload=preload)


class FrictionElement(JointElement):
    """A friction pair whose normal force is given (the base of :class:`Clutch` and
    :class:`Clamp`): a joint element without constraint rows whose :class:`FrictionPair` has
    the given force ``max(N(t), 0)`` as its preload."""

    n_rows = 0

    def _given(self, what: str, name: str, normal_force, mu, mu_s, law, friction) -> None:
        self.name = check_name(name, type(self).__name__.lower())
        self.normal_force = _normal_force(what, normal_force)
        mu, mu_s = _coefficients(what, mu, mu_s)
        self.friction = _pair(name, mu, mu_s, self.normal_force, law, friction)

    def row_names(self) -> list[str]:
        return []

    def row_kinds(self) -> list[str]:
        return []

    def fill(self, t, q, v, row, phi, phi_t, G, gamma) -> None:
        """No constraint rows."""


class Clutch(FrictionElement):
    """Dry friction between the rotations of two coaxial bodies under a given normal force.

    Parameters
    ----------
    name : str
    body_a, body_b : Body or ground
        The two rotating bodies (rigid bodies: each has an angle); ``tau`` acts on ``body_b``.
    normal_force : float or callable
        The force pressing the plates together (N), or a function ``N(t)``; <= 0: open.
    mu : float
        Dynamic (sliding) coefficient (-), in [0, 10].
    mu_s : float, optional
        Static coefficient (-), >= mu (default: mu).
    radius : float, optional
        Effective friction radius (m; Modelica's ``cgeo``, e.g. ``n_disks (r_o + r_i) / 2``):
        the friction torque is ``radius * F_T``. Default 1.
    law : str, optional
        ``"coulomb"`` (default), ``"lugre"``, ``"regularized"`` or ``"bristle"``; ``friction``
        the law's other parameters (:class:`~nonsmooth.system.FrictionPair`).

    Notes
    -----
    Outputs (``result["<name>.tau"]`` etc.): the friction torque on ``body_b`` (N m), the
    normal force (N) and the mode.
    """

    def __init__(self, name: str, body_a, body_b, normal_force, mu: float,
                 mu_s: float | None = None, *, radius: float = 1.0, law: str = "coulomb",
                 friction: dict | None = None):
        what = f"{type(self).__name__.lower()} '{name}'"
        for label, body in (("body_a", body_a), ("body_b", body_b)):
            if not isinstance(body, (Body, Ground)):
                raise ModelError(f"{what}: {label} must be a rigid Body or the ground (it has "
                                 f"to rotate), got {body!r}")
        if body_a is body_b:
            raise ModelError(f"{what}: body_a and body_b are the same body")
        self.body_a, self.body_b = body_a, body_b
        self.radius = check_number(radius, f"{what}: radius = ", minimum=0.0, exclusive=True)
        self._given(what, name, normal_force, mu, mu_s, law, friction)

    def bodies(self) -> list:
        return [self.body_a, self.body_b]

    def fill_tangential(self, q, v, i, W) -> None:
        """Row i of W: ``radius`` times the gradient of ``theta_b - theta_a``."""
        relative_angle(ref(self.body_a), ref(self.body_b), row=W[i], scale=self.radius)

    def tangential_bias(self, q, v) -> float:
        """``(dW/dt) v = 0``: the relative angle's gradient is constant."""
        return 0.0


class Brake(Clutch):
    """A clutch against the ground: dry friction on one body's rotation under a given normal
    force (Modelica's ``Brake``). ``tau`` is the friction torque on ``body`` (N m).

    Parameters as :class:`Clutch`, with one ``body``."""

    def __init__(self, name: str, body, normal_force, mu: float, mu_s: float | None = None, *,
                 radius: float = 1.0, law: str = "coulomb", friction: dict | None = None):
        super().__init__(name, ground, body, normal_force, mu, mu_s, radius=radius, law=law,
                         friction=friction)


class Clamp(FrictionElement):
    """A clamp holding the slider of a translational joint in its guide: dry friction on the
    slider's displacement along the slot under a given clamping force.

    Parameters
    ----------
    name : str
    joint : Translational
        The joint whose slider is clamped (it must be part of the same model).
    normal_force : float or callable
        The clamping force (N), or a function ``N(t)``; <= 0: released.
    mu, mu_s, law, friction
        As :class:`Clutch`.

    Notes
    -----
    Outputs: the friction force on the slider along the slot (``<name>.F_f``, N), the normal
    force (N) and the mode.
    """

    def __init__(self, name: str, joint: Translational, normal_force, mu: float,
                 mu_s: float | None = None, *, law: str = "coulomb",
                 friction: dict | None = None):
        what = f"clamp '{name}'"
        if not isinstance(joint, Translational):
            raise ModelError(f"{what}: joint must be a Translational joint, got {joint!r}")
        self.joint = joint
        self._given(what, name, normal_force, mu, mu_s, law, friction)

    def bodies(self) -> list:
        return self.joint.bodies()

    def fill_tangential(self, q, v, i, W) -> None:
        """Row i of W: the slot's direction (the joint's own tangential row)."""
        self.joint.fill_tangential(q, v, i, W)

    def tangential_bias(self, q, v) -> float:
        return self.joint.tangential_bias(q, v)
