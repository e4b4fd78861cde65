"""A compliant contact between two bodies: :class:`Contact`, the element a model family compiles.

A contact joins a shape on one body to a shape on another (or on the ground) with a normal force
law (:mod:`nonsmooth.contact.laws`): it has a gap (:mod:`nonsmooth.contact.geometry`), which
the run watches as an event function (``touch`` when it closes, ``leave`` when it opens; the
integrator restarts at both), and one state, its impact speed: the approach speed at its latest
touch, which hysteretic damping is relative to (``docs/method.md``, "Contact: normal force laws
and restitution"). The families compile it (the spatial family: ``nonsmooth.spatial.contact``).
"""

from __future__ import annotations

import math

from ..errors import ModelError
from ..validate import check_name
from .geometry import supported
from .laws import normal_law
from .shapes import BOX, CAPSULE, CYLINDER, Shape

__all__ = ["Contact", "MIN_IMPACT_SPEED"]

#: The shape kinds that touch a plane at several points (friction there is not available).
_SEVERAL_POINTS = frozenset((CAPSULE, BOX, CYLINDER))

#: The impact speed (m/s) a hysteretic law is relative to at the least: a contact that closed
#: at rest or grazing (approach speed below it) is damped as if it had closed at this speed
#: (its damping coefficient ``chi K d^n / d'_0`` stays finite).
MIN_IMPACT_SPEED = 1e-3


class Contact:
    """A compliant point contact between ``shape_a`` on ``body_a`` and ``shape_b`` on ``body_b``.

    The normal force acts at each contact point of the pair's geometry, along its normal
    (pushing the bodies apart, never pulling): ``f = K d^n (1 + chi d'/d'_0)`` of
    :class:`~nonsmooth.contact.laws.Hertz` (with ``restitution=e`` the damping ``chi`` that
    realises ``e`` exactly, or a published rule by ``damping=``), or ``k d + c d'`` of
    :class:`~nonsmooth.contact.laws.Linear`; ``d = -gap`` the penetration (m), ``d'`` its rate,
    ``d'_0`` the impact speed of the contact's latest touch (at least
    :data:`MIN_IMPACT_SPEED`).

    Parameters
    ----------
    name : str
        Prefixes the outputs (``<name>.gap``, ``.N``, ``.Fx`` ...) and names the events.
    body_a, shape_a, body_b, shape_b
        The bodies (the family's bodies or its ground) and the shapes attached to them, each in
        its body's frame (origin at the centre of mass, body axes); a ``Plane`` on the ground
        is given in world coordinates.
    normal : Hertz or Linear
        The normal force law.
    restitution : float, optional
        The coefficient of restitution ``e`` (-), in (0, 1], with ``Hertz``.
    damping : str, optional
        The rule that turns ``restitution`` into ``chi``: ``"exact"`` (default),
        ``"hunt-crossley"``, ``"lankarani-nikravesh"``, ``"flores"``, ``"gonthier"``,
        ``"carvalho-martins"`` (``nonsmooth.contact.laws.DAMPING_RULES``).
    margin : float
        For shapes that touch at several points (a box's corners, a cylinder's rim): the points
        closer than this (m) carry force when they penetrate; default 1 mm.
    mu : float, optional
        Friction at the contact: the dynamic (sliding) coefficient (-), in [0, 10]; None:
        frictionless. The friction acts in the tangent plane at the contact point (a pair of
        dimension 2; planar shapes: along the tangent, dimension 1) and its normal load is the
        contact's normal force.
    mu_s : float, optional
        The static coefficient (-), >= ``mu`` (default ``mu``): with the Coulomb law the
        contact sticks exactly (no creep) while ``|F_T| <= mu_s N``.
    law : {"coulomb", "lugre", "regularized", "bristle"}
        The friction law (``simulate(friction=...)`` may override it); ``friction_params`` its
        other parameters (:class:`nonsmooth.system.FrictionPair`'s ``params``).

    Notes
    -----
    The contact's events watch its smallest gap (its deepest point): a box landing on one
    corner and then on a second one restarts the integrator at the first touch only (the force
    of the second corner enters smoothly, from zero).
    """

    def __init__(self, name, body_a, shape_a, body_b, shape_b, *, normal, restitution=None,
                 damping=None, margin: float = 1e-3, mu=None, mu_s=None, law: str = "coulomb",
                 friction_params: dict | None = None):
        self.name = check_name(name, "contact")
        where = f"contact '{self.name}'"
        for label, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
            if not isinstance(shape, Shape):
                raise ModelError(f"{where}: {label} = {shape!r} is not a contact shape; use "
                                 "nonsmooth.contact.Sphere, Box, Capsule, Cylinder, Ellipsoid, "
                                 "Plane (spatial) or Circle, Hole, Line (planar)")
        if shape_a.planar != shape_b.planar:
            raise ModelError(f"{where}: a planar shape ({shape_a if shape_a.planar else shape_b!r})"
                             " cannot touch a spatial one")
        if not supported(shape_a.kind, shape_b.kind):
            raise ModelError(f"{where}: no closed-form geometry for {type(shape_a).__name__} "
                             f"against {type(shape_b).__name__}; pairs: sphere with sphere, "
                             "capsule or plane, capsule with capsule or plane, ellipsoid, box "
                             "or cylinder with a plane; circle with circle, hole or line")
        if body_a is body_b:
            raise ModelError(f"{where}: body_a and body_b are the same body; a contact joins "
                             "two bodies (or a body and the ground)")
        try:
            margin = float(margin)
        except (TypeError, ValueError):
            margin = math.nan
        if not (math.isfinite(margin) and margin >= 0.0):
            raise ModelError(f"{where}: margin = {margin!r} is invalid; it must be a finite "
                             "number >= 0 (m)")
        try:
            self.law_kind, self.law_numbers = normal_law(normal, restitution, damping, shape_a,
                                                         shape_b)
        except ModelError as exc:
            raise ModelError(f"{where}: {exc}") from None
        self.body_a, self.shape_a, self.body_b, self.shape_b = body_a, shape_a, body_b, shape_b
        self.normal, self.restitution, self.damping = normal, restitution, damping
        self.margin = margin
        self.mu, self.mu_s, self.law = mu, mu_s, law
        self.friction_params = dict(friction_params or {})
        self._check_friction(where)

    def _check_friction(self, where: str) -> None:
        """The friction arguments checked (the pair made once)."""
        if self.mu is None:
            if self.mu_s is not None or self.friction_params:
                raise ModelError(f"{where}: mu_s and friction_params need mu= (the dynamic "
                                 "friction coefficient)")
            return
        a, b = self.shape_a, self.shape_b
        if frozenset((a.kind, b.kind)) & _SEVERAL_POINTS:
            raise ModelError(
                f"{where}: friction at a contact of several points ({type(a).__name__} on "
                f"{type(b).__name__}) is not available; friction acts at single-point contacts "
                "(a sphere with a sphere, capsule or plane, an ellipsoid on a plane): give the "
                "shape spheres at its corners")
        self.friction_pair()  # (checked now: the coefficients and the law)

    def friction_pair(self):
        """The contact's :class:`~nonsmooth.system.FrictionPair` (dimension 2 in the tangent
        plane; planar shapes: 1, along the tangent line; no load row: its load is the contact's
        normal force), or None without friction."""
        if self.mu is None:
            return None
        from ..system import FrictionPair

        try:
            pair = FrictionPair(self.name, None, self.mu, self.mu_s, law=self.law,
                                params=self.friction_params, dim=1 if self.planar else 2)
            pair.make_law()
        except ModelError as exc:
            raise ModelError(f"contact '{self.name}': {exc}") from None
        return pair

    def bodies(self) -> list:
        return [self.body_a, self.body_b]

    @property
    def planar(self) -> bool:
        """Whether the contact's shapes are planar (the planar family's)."""
        return bool(self.shape_a.planar)

    def __repr__(self) -> str:
        return (f"Contact({self.name!r}, {getattr(self.body_a, 'name', self.body_a)!r}, "
                f"{self.shape_a!r}, {getattr(self.body_b, 'name', self.body_b)!r}, "
                f"{self.shape_b!r}, normal={self.normal!r}, restitution={self.restitution!r})")

