"""A contact between two bodies: :class:`Contact`, the element a model family compiles.

A contact joins a shape on one body to a shape on another (or on the ground) with a normal force
law (:mod:`nonsmooth.contact.laws`): it has a gap (:mod:`nonsmooth.contact.geometry`), which
the run watches as an event function (``touch`` when it closes, ``leave`` when it opens; the
integrator restarts at both), and one state, its impact speed: the approach speed at its latest
touch, which hysteretic damping is relative to (``docs/method.md``, "Contact: normal force laws
and restitution"). The families compile it (the spatial family: ``nonsmooth.spatial.contact``).

A rigid contact (``normal="rigid"``, law kind :data:`RIGID`) has no force law: a unilateral
constraint ``gap >= 0`` with Newton's impact law of restitution ``e`` at the velocity level, run
by a time-stepping method (``simulate(method="MoreauJean")``, ``docs/design/moreau_jean.md``);
the compliant paths (its force, its friction pair's load) never take it.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..validate import check_name
from .geometry import supported
from .laws import normal_law
from .shapes import PLANE, Shape
from .volumetric import VOLUMETRIC, Volumetric

__all__ = ["Contact", "MIN_IMPACT_SPEED", "RIGID", "VOLUMETRIC", "rigid_contacts_message"]

#: The law kind of a rigid contact (``Contact.law_kind``): no compliant force (the compiled
#: normal laws of :mod:`nonsmooth.contact.laws` are ``LINEAR`` = 1 and ``HYSTERETIC`` = 2; this
#: code is none of theirs, so a compiled force of it is NaN, never a number). Its numbers:
#: ``(e, 0, 0)``.
RIGID = 3

#: The impact speed (m/s) a hysteretic law is relative to at the least: a contact that closed
#: at rest or grazing (approach speed below it) is damped as if it had closed at this speed
#: (its damping coefficient ``chi K d^n / d'_0`` stays finite).
MIN_IMPACT_SPEED = 1e-3


def rigid_contacts_message(model: str, names) -> str:
    """The message of an evaluation that would need the compliant force of rigid contacts
    ``names`` of model ``model``: they have none (the first 8 names and the count)."""
    names = list(names)
    listed = ", ".join(repr(n) for n in names[:8]) + (f" ... ({len(names)} in all)"
                                                       if len(names) > 8 else "")
    return (f"model {model!r}: the rigid contact(s) {listed} (normal=\"rigid\") have no force "
            "law: their forces are a run's (simulate(model, t_end), event-driven, or "
            "method=\"MoreauJean\" with dt=), or give the contacts a compliant law "
            "(normal=Hertz(...) or Linear(k, c))")


class Contact:
    """A point contact between ``shape_a`` on ``body_a`` and ``shape_b`` on ``body_b``: compliant
    (a normal force law) or rigid (``normal="rigid"``).

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
    normal : Hertz or Linear or Volumetric or "rigid"
        The normal force law; :class:`~nonsmooth.contact.Volumetric`: a spatial shape
        against a ``Plane``, its force ``k_v V (1 + a v_cn)`` at the centroid of the volume of
        interference ``V`` and a rolling resistance torque (:mod:`nonsmooth.contact.
        volumetric`; its friction acts at that centroid); ``"rigid"``: a rigid unilateral
        contact (no force law: the gap never closes below zero and an impact follows Newton's
        law with ``restitution``), run with ``simulate(method="MoreauJean")`` only, between
        spatial shapes.
    restitution : float, optional
        The coefficient of restitution ``e`` (-): in (0, 1] with ``Hertz``; in [0, 1] with
        ``"rigid"`` (default 0, a plastic impact).
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
        contact's normal force; with several points (a box or cylinder on a plane) at their
        centre of pressure, without a torsional friction about the normal. A rigid contact:
        Coulomb's coefficient of its impulses (each contact point's friction on a faceted
        cone, in the time step's problem; no friction pair of the compliant run).
    mu_s : float, optional
        The static coefficient (-), >= ``mu`` (default ``mu``): with the Coulomb law the
        contact sticks exactly (no creep) while ``|F_T| <= mu_s N``.
    torsion_radius : float, optional
        Spin (torsional) friction about the normal (m, > 0; needs ``mu``): a set-valued torque
        ``|T| <= mu_s r N`` while the spin sticks, ``mu r N`` against it while it spins, ``r``
        this radius (a patch of radius ``a`` under uniform pressure: ``r = 2 a / 3``). A pair
        ``<name>.spin`` of dimension 1.
    rolling_arm : float, optional
        Rolling resistance (m, > 0): a set-valued torque ``|M| <= eta N`` about the tangents
        against the relative rolling, ``eta`` this arm (Chrono's, MuJoCo's and Siconos'
        rolling friction). A pair ``<name>.rolling`` of dimension 2.
    patch_friction : {"uniform", "hertz", "ring"}, optional
        Coulomb friction integrated over a circular contact patch of radius ``a``: the sliding
        force and the spinning torque about the normal coupled exactly (Contensou: ``|F| = mu
        N f(eps)``, ``|M| = mu N a t(eps)``, ``eps = |v| / (a |omega|)``,
        :mod:`nonsmooth.contact.contensou`) for a uniform or Hertzian pressure, or a thin ring
        of radius ``a`` carrying the load on its rim; one pair
        ``<name>`` of dimension 3 (the sliding velocity, then the rim speed ``a omega``),
        which sticks as a whole (set-valued at rest, while the loads ``(F, M / a)`` lie
        inside the limit set ``mu_s N (f, t)``: ``contensou.limit_gauge``). Needs ``mu``
        (Coulomb); not with ``torsion_radius``.
    patch_radius : float, optional
        The patch's radius ``a`` (m): needed with a point law; a volumetric contact takes
        ``sqrt(A / pi)`` of its contact patch's area ``A`` unless given.
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
                 friction_params: dict | None = None, torsion_radius=None, rolling_arm=None,
                 patch_friction=None, patch_radius=None):
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
        normal, self.law_kind, self.law_numbers = self._law(
            where, normal, restitution, damping, shape_a, shape_b, mu_s, law, torsion_radius,
            rolling_arm)
        self.body_a, self.shape_a, self.body_b, self.shape_b = body_a, shape_a, body_b, shape_b
        self.normal, self.restitution, self.damping = normal, restitution, damping
        self.margin = margin
        self.mu, self.mu_s, self.law = mu, mu_s, law
        self.friction_params = dict(friction_params or {})
        self.torsion_radius, self.rolling_arm = torsion_radius, rolling_arm
        self.patch, self.patch_radius = self._patch(where, patch_friction, patch_radius,
                                                    normal, mu, law, torsion_radius)
        self._check_friction(where)
        if torsion_radius is not None and mu is None:
            raise ModelError(f"{where}: torsion_radius needs mu= (the spin friction is mu r N)")
        self.torque_pairs()  # (checked now)

    @classmethod
    def _law(cls, where: str, normal, restitution, damping, shape_a, shape_b, mu_s, law,
             torsion_radius, rolling_arm) -> tuple[object, int, np.ndarray]:
        """``(normal, kind, numbers)``: the normal law (``"rigid"`` normalised) as the compiled
        kind and numbers, or a :class:`ModelError` naming the contact (``where``)."""
        if isinstance(normal, str) and normal.strip().lower() == "rigid":
            return "rigid", *cls._rigid_law(where, restitution, damping, shape_a, mu_s, law,
                                            torsion_radius, rolling_arm)
        if isinstance(normal, str):
            raise ModelError(f"{where}: normal = {normal!r} is not a normal law; use \"rigid\", "
                             "Hertz(E=, nu=), Hertz(K=) or Linear(k, c)")
        if isinstance(normal, Volumetric):
            return normal, *cls._volumetric_law(where, normal, restitution, damping, shape_a,
                                                shape_b)
        try:
            return normal, *normal_law(normal, restitution, damping, shape_a, shape_b)
        except ModelError as exc:
            raise ModelError(f"{where}: {exc}") from None

    @staticmethod
    def _patch(where: str, patch_friction, patch_radius, normal, mu, law,
               torsion_radius) -> tuple[int, float]:
        """The patch friction's pressure code (0 none, ``contensou.UNIFORM``, ``HERTZ`` or
        ``RING``) and its given radius (m; 0: the volume of interference's patch), checked."""
        from .contensou import PRESSURES

        if patch_friction is None:
            if patch_radius is not None:
                raise ModelError(f"{where}: patch_radius needs patch_friction= (\"uniform\", "
                                 "\"hertz\" or \"ring\")")
            return 0, 0.0
        code = PRESSURES.get(str(patch_friction).strip().lower())
        if code is None:
            raise ModelError(f"{where}: patch_friction = {patch_friction!r} is not a pressure "
                             "distribution; use \"uniform\", \"hertz\" or \"ring\"")
        if mu is None or str(law).strip().lower() not in ("coulomb", "bristle"):
            raise ModelError(f"{where}: patch_friction is Coulomb friction over the patch (or "
                             "its bristle law); it needs mu= (and law=\"coulomb\" or "
                             "\"bristle\")")
        if torsion_radius is not None:
            raise ModelError(f"{where}: patch_friction couples the spin friction to the "
                             "sliding itself; leave torsion_radius out")
        if not isinstance(normal, Volumetric) and patch_radius is None:
            raise ModelError(f"{where}: patch_friction with a point law needs patch_radius= "
                             "(m), the contact patch's radius; the volumetric law takes it "
                             "from its patch")
        radius = 0.0
        if patch_radius is not None:
            try:
                radius = float(patch_radius)
            except (TypeError, ValueError):
                radius = math.nan
            if not (math.isfinite(radius) and 0.0 < radius <= 1.0):
                raise ModelError(f"{where}: patch_radius = {patch_radius!r} is invalid; it "
                                 "must be a number in (0, 1] (m)")
        return code, radius

    @staticmethod
    def _volumetric_law(where: str, law: Volumetric, restitution, damping, shape_a,
                        shape_b) -> tuple[int, np.ndarray]:
        """A volumetric contact's kind and numbers ``(VOLUMETRIC, (k_v, a, 0))``: a spatial
        shape with a volume of interference against a ``Plane``."""
        if shape_a.planar:
            raise ModelError(f"{where}: the volumetric law is available between spatial "
                             "shapes only; planar shapes take Hertz or Linear")
        kinds = {shape_a.kind, shape_b.kind}
        if PLANE not in kinds or len(kinds) != 2:
            raise ModelError(f"{where}: the volumetric law needs a shape against a Plane (its "
                             "volume of interference is that of a sphere, ellipsoid, "
                             "cylinder, capsule or box with a plane); got "
                             f"{type(shape_a).__name__} and {type(shape_b).__name__}")
        for label, value in (("restitution", restitution), ("damping", damping)):
            if value is not None:
                raise ModelError(f"{where}: {label} = {value!r} is not an argument of the "
                                 "volumetric law, whose damping is Volumetric(k_v, "
                                 "damping=a) (s/m); leave it out")
        return VOLUMETRIC, np.array([law.k_v, law.damping, 0.0])

    @staticmethod
    def _rigid_law(where: str, restitution, damping, shape_a, mu_s, law, torsion_radius,
                   rolling_arm) -> tuple[int, np.ndarray]:
        """A rigid contact's kind and numbers ``(RIGID, (e, 0, 0))``, its arguments checked."""
        if shape_a.planar:
            raise ModelError(f"{where}: normal=\"rigid\" is available between spatial shapes "
                             "only for now; use a compliant law (Hertz, Linear) for planar "
                             "shapes")
        if damping is not None:
            raise ModelError(f"{where}: damping = {damping!r} sets a compliant law's damping; "
                             "a rigid contact's impacts follow restitution= (Newton's law)")
        try:
            e = 0.0 if restitution is None else float(restitution)
        except (TypeError, ValueError):
            e = math.nan
        if not (math.isfinite(e) and 0.0 <= e <= 1.0):
            raise ModelError(f"{where}: restitution = {restitution!r} is invalid for a rigid "
                             "contact; it must be a number in [0, 1] (-)")
        for label, value in (("torsion_radius", torsion_radius), ("rolling_arm", rolling_arm),
                             ("mu_s", mu_s)):
            if value is not None:
                raise ModelError(f"{where}: {label} is not available with normal=\"rigid\" "
                                 "yet (its friction is Coulomb's with the one coefficient "
                                 "mu=, in the time step's impulse problem); leave it out")
        if str(law).strip().lower() != "coulomb":
            raise ModelError(f"{where}: law = {law!r}: a rigid contact's friction is Coulomb's "
                             "(law=\"coulomb\")")
        return RIGID, np.array([e, 0.0, 0.0])

    @property
    def rigid(self) -> bool:
        """Whether the contact is rigid (``normal="rigid"``: no force law; Moreau-Jean)."""
        return self.law_kind == RIGID

    @property
    def volumetric(self) -> bool:
        """Whether the normal law is :class:`~nonsmooth.contact.Volumetric` (forces from the
        volume of interference with a plane)."""
        return self.law_kind == VOLUMETRIC

    def _check_friction(self, where: str) -> None:
        """The friction arguments checked (the pair made once)."""
        if self.mu is None:
            if self.mu_s is not None or self.friction_params:
                raise ModelError(f"{where}: mu_s and friction_params need mu= (the dynamic "
                                 "friction coefficient)")
            return
        self.friction_pair()  # (checked now: the coefficients and the law)

    def torque_pairs(self) -> list:
        """The contact's friction torques as ``[(kind, FrictionPair)]``: ``"spin"`` (dimension
        1, coefficients ``mu r`` and ``mu_s r``, m) with ``torsion_radius``, ``"rolling"``
        (dimension 2, coefficient ``eta``, m, static = dynamic) with ``rolling_arm``; their
        loads are the contact's normal force."""
        from ..system import FrictionPair

        where = f"contact '{self.name}'"
        out = []
        for kind, arm, dim in (("spin", self.torsion_radius, 1),
                               ("rolling", self.rolling_arm, 2)):
            if arm is None:
                continue
            try:
                arm = float(arm)
            except (TypeError, ValueError):
                arm = math.nan
            label = "torsion_radius" if kind == "spin" else "rolling_arm"
            if not (math.isfinite(arm) and 0.0 < arm <= 1.0):
                raise ModelError(f"{where}: {label} = {arm!r} is invalid; it must be a number "
                                 "in (0, 1] (m)")
            if self.shape_a.planar:
                raise ModelError(f"{where}: {label}: friction torques at planar contacts are "
                                 "not available")
            mu, mu_s = (self.mu * arm, None if self.mu_s is None else self.mu_s * arm) \
                if kind == "spin" else (arm, None)
            try:
                out.append((kind, FrictionPair(f"{self.name}.{kind}", None, mu, mu_s,
                                               law="coulomb", dim=dim)))
            except ModelError as exc:
                raise ModelError(f"{where}: {exc}") from None
        return out

    def friction_pair(self):
        """The contact's :class:`~nonsmooth.system.FrictionPair` (dimension 2 in the tangent
        plane; planar shapes: 1, along the tangent line; with ``patch_friction`` 3, the
        patch's sliding velocity and rim speed ``a omega``; no load row: its load is the
        contact's normal force), or None without friction."""
        if self.mu is None:
            return None
        from ..system import FrictionPair

        try:
            pair = FrictionPair(self.name, None, self.mu, self.mu_s, law=self.law,
                                params=self.friction_params,
                                dim=1 if self.planar else 3 if self.patch else 2,
                                patch=self.patch)
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

