"""Normal force laws of a point contact: Hertz, a linear spring-damper, and hysteretic damping
set from a coefficient of restitution (``docs/method.md``, "Contact: normal force laws and
restitution").

With ``d = -gap >= 0`` the penetration (m), ``d_dot`` its rate (m/s) and ``d_dot0 > 0`` the
approach speed at first touch (m/s), kept by the run from the impact's event:

* :class:`Hertz`: ``f = K d^n``, ``n = 3/2``, ``K = 4/3 E* sqrt(R)`` with ``1/E* = (1 - nu1^2) / E1
  + (1 - nu2^2) / E2`` and ``1/R = 1/R1 + 1/R2`` (Johnson, Contact Mechanics, 1985, 4.2);
  with a restitution, the hysteretic damping ``f = K d^n (1 + chi d_dot / d_dot0)`` of one of
  the rules of :data:`DAMPING_RULES` (Hunt & Crossley 1975, Lankarani & Nikravesh 1990,
  Flores et al. 2011, Gonthier et al. 2004, Carvalho & Martins 2019) or ``"exact"``: the
  ``chi`` whose realised restitution is exactly the one asked.
* :class:`Linear`: ``f = k d + c d_dot``.

Every force is clamped at ``f >= 0`` (a contact pushes, never pulls) and is 0 for ``d <= 0``.

Compiled: :func:`normal_force` ``(kind, numbers, d, d_dot, d_dot0) -> f`` with ``kind`` one of
:data:`LINEAR` (numbers ``(k, c, 0)``) and :data:`HYSTERETIC` (numbers ``(K, n, chi)``; ``chi =
0`` is the elastic law); :func:`normal_law` resolves a contact's ``normal=``, ``restitution=``
and ``damping=`` into that kind and those numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import ModelError
from .shapes import Capsule, Circle, Hole, Line, Plane, Shape, Sphere

__all__ = [
    "LINEAR", "HYSTERETIC", "N_LAW_NUMBERS", "DAMPING_RULES", "Hertz", "Linear", "chi_for",
    "realised_restitution", "normal_law", "normal_force",
]

#: Kind codes of the compiled normal laws.
LINEAR, HYSTERETIC = 1, 2
#: Numbers per law in the compiled tables: ``(k, c, 0)`` or ``(K, n, chi)``.
N_LAW_NUMBERS = 3

#: The damping rules ``damping=`` names: ``"exact"`` (the default with a restitution) and the
#: published ``chi(e)`` of the hysteretic force (``docs/method.md``).
DAMPING_RULES = ("exact", "hunt-crossley", "lankarani-nikravesh", "flores", "gonthier",
                 "carvalho-martins")

#: Below this chi the relation's series replaces its logarithms (no cancellation).
_SERIES = 0.05


def _number(value, label: str, unit: str, *, low: float, inclusive: bool = False,
            high: float | None = None) -> float:
    """``value`` as a finite float in the range, or a :class:`ModelError` saying which."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{label} must be a number ({unit}), got {value!r}") from None
    below = x < low if inclusive else x <= low
    above = high is not None and x > high
    if not math.isfinite(x) or below or above:
        rng = f"{'>=' if inclusive else '>'} {low:g}" + ("" if high is None else
                                                          f" and <= {high:g}")
        raise ModelError(f"{label} = {x!r} is invalid; it must be a finite number {rng} ({unit})")
    return x


def _curvature(shape) -> float | None:
    """The curvature (1/m) a Hertz contact sees on the shape: a sphere's, a capsule's or a
    circle's ``1/r``, a hole's ``-1/r`` (concave), a plane's or a line's 0; None for shapes
    whose contact is at a corner or a rim (box, cylinder) or of varying curvature (ellipsoid)."""
    if isinstance(shape, (Sphere, Capsule, Circle)):
        return 1.0 / shape.radius
    if isinstance(shape, Hole):
        return -1.0 / shape.radius
    if isinstance(shape, (Plane, Line)):
        return 0.0
    return None


@dataclass(frozen=True, kw_only=True)
class Hertz:
    """Hertz's point contact ``f = K d^(3/2)``, from the materials or with ``K`` given.

    Parameters
    ----------
    E : float, optional
        Young's modulus of body a (Pa), > 0; with ``E2=None`` both bodies are of this material
        (``E* = E / (2 (1 - nu^2))``).
    nu : float, optional
        Poisson's ratio of body a (-), in (-1, 0.5]; needed with ``E``.
    E2, nu2 : float, optional
        Body b's modulus (Pa) and ratio (-); ``nu2`` defaults to ``nu``.
    radius : float, optional
        The effective radius ``R`` (m), > 0; by default taken from the shapes
        (:meth:`stiffness`).
    K : float, optional
        The stiffness (N/m^n), > 0, instead of the materials and radius.
    exponent : float
        ``n`` (-), in [1, 3]; 3/2 is Hertz's. Another exponent needs ``K``.
    """

    E: float | None = None
    nu: float | None = None
    E2: float | None = None
    nu2: float | None = None
    radius: float | None = None
    K: float | None = None
    exponent: float = 1.5

    def __post_init__(self):
        materials = [name for name in ("E", "nu", "E2", "nu2", "radius")
                     if getattr(self, name) is not None]
        set_ = object.__setattr__
        set_(self, "exponent", _number(self.exponent, "Hertz: exponent", "-", low=1.0,
                                       inclusive=True, high=3.0))
        if self.K is not None:
            if materials:
                raise ModelError(f"Hertz: give either K= or the materials (E=, nu=, E2=, nu2=, "
                                 f"radius=), not both; got K and {', '.join(materials)}")
            set_(self, "K", _number(self.K, "Hertz: K", "N/m^n", low=0.0))
            return
        if self.E is None or self.nu is None:
            raise ModelError("Hertz: give the stiffness K= (N/m^n) or the material: E= (Pa) "
                             "and nu= (-), and for a second material E2=, nu2=")
        if self.exponent != 1.5:
            raise ModelError(f"Hertz: exponent = {self.exponent:g} needs the stiffness K=; "
                             "K = 4/3 E* sqrt(R) from the materials holds for 3/2")
        set_(self, "E", _number(self.E, "Hertz: E", "Pa", low=0.0))
        set_(self, "nu", _number(self.nu, "Hertz: nu", "-", low=-1.0, high=0.5))
        if self.nu2 is not None and self.E2 is None:
            raise ModelError("Hertz: nu2= is body b's Poisson ratio; give its modulus E2= too")
        if self.E2 is not None:
            set_(self, "E2", _number(self.E2, "Hertz: E2", "Pa", low=0.0))
            set_(self, "nu2", self.nu if self.nu2 is None else
                 _number(self.nu2, "Hertz: nu2", "-", low=-1.0, high=0.5))
        if self.radius is not None:
            set_(self, "radius", _number(self.radius, "Hertz: radius", "m", low=0.0))

    def effective_modulus(self) -> float:
        """``E*`` (Pa): ``1 / E* = (1 - nu^2) / E + (1 - nu2^2) / E2`` (one material:
        ``E / (2 (1 - nu^2))``). A :class:`ModelError` when ``K`` was given instead."""
        if self.E is None:
            raise ModelError("Hertz: K was given, so there is no effective modulus")
        E2, nu2 = (self.E, self.nu) if self.E2 is None else (self.E2, self.nu2)
        return 1.0 / ((1.0 - self.nu ** 2) / self.E + (1.0 - nu2 ** 2) / E2)

    def effective_radius(self, shape_a: Shape | None = None,
                         shape_b: Shape | None = None) -> float:
        """``R`` (m): ``radius`` if given, else ``1/R = 1/R_a + 1/R_b`` from the shapes' radii
        (a plane's or a line's is infinite, a hole's negative: a pin in a hole is a conformal
        contact; a capsule counts as a sphere of its radius, exact at its caps)."""
        if self.radius is not None:
            return self.radius
        curv = []
        for which, shape in (("a", shape_a), ("b", shape_b)):
            k = _curvature(shape)
            if k is None:
                raise ModelError(f"Hertz: the effective radius cannot be taken from shape_{which}"
                                 f" = {shape!r} (the shapes with a radius: Sphere, Capsule, "
                                 "Circle, Hole; Plane and Line are flat); give radius= (m)")
            curv.append(k)
        total = curv[0] + curv[1]
        if not total > 0.0:
            raise ModelError(f"Hertz: {shape_a!r} against {shape_b!r} has no positive effective "
                             "curvature (1/R_a + 1/R_b <= 0); give radius= (m)")
        return 1.0 / total

    def stiffness(self, shape_a: Shape | None = None, shape_b: Shape | None = None) -> float:
        """``K`` (N/m^n): as given, or ``4/3 E* sqrt(R)`` with :meth:`effective_radius`."""
        if self.K is not None:
            return self.K
        return 4.0 / 3.0 * self.effective_modulus() * math.sqrt(
            self.effective_radius(shape_a, shape_b))

    def pack(self, shape_a: Shape | None = None,
             shape_b: Shape | None = None) -> tuple[int, np.ndarray]:
        """The elastic law's kind and numbers ``(HYSTERETIC, (K, n, 0))``."""
        return HYSTERETIC, np.array([self.stiffness(shape_a, shape_b), self.exponent, 0.0])


@dataclass(frozen=True)
class Linear:
    """A linear spring-damper ``f = k d + c d_dot``, clamped at ``f >= 0``.

    Parameters
    ----------
    k : float
        Stiffness (N/m), > 0.
    c : float
        Damping (N s/m), >= 0.
    """

    k: float
    c: float = 0.0

    def __post_init__(self):
        object.__setattr__(self, "k", _number(self.k, "Linear: k", "N/m", low=0.0))
        object.__setattr__(self, "c", _number(self.c, "Linear: c", "N s/m", low=0.0,
                                              inclusive=True))

    def pack(self, shape_a: Shape | None = None,
             shape_b: Shape | None = None) -> tuple[int, np.ndarray]:
        """The law's kind and numbers ``(LINEAR, (k, c, 0))``."""
        return LINEAR, np.array([self.k, self.c, 0.0])


def _restitution(e) -> float:
    return _number(e, "restitution", "-", low=0.0, high=1.0)


def _rule(damping) -> str:
    name = str(damping).strip().lower().replace("_", "-")
    if name not in DAMPING_RULES:
        raise ModelError(f"damping = {damping!r} is not a damping rule; the rules are "
                         f"{', '.join(repr(r) for r in DAMPING_RULES)}")
    return name


def _relation(chi: float, e: float, t: float | None = None) -> float:
    """``h(chi, e) = [ln(1 + chi) - ln(1 - chi e) - chi (1 + e)] / chi^2``, zero at the realised
    restitution; ``t = -ln(1 - chi e)`` if known (accurate when ``chi e`` is near 1). Below
    chi = 0.05 its series ``sum_{k>=2} chi^(k-2) ((-1)^(k+1) + e^k) / k`` (no cancellation)."""
    if chi < _SERIES:
        total = 0.0
        log_e = math.log(e)
        for k in range(40, 1, -1):       # e^k - 1 by expm1 for even k: no cancellation
            c = math.expm1(k * log_e) if k % 2 == 0 else 1.0 + e ** k
            total = total * chi + c / k
        return total
    if t is None:
        t = -math.log1p(-chi * e)
    return (math.log1p(chi) + t - chi * (1.0 + e)) / chi ** 2


def _exact_chi(e: float) -> float:
    """The chi whose realised restitution is ``e``: the root of ``h(chi, e)`` (chi > 0).

    Solved in ``t = -ln(1 - chi e)``, ``chi = (1 - exp(-t)) / e`` (so that a root near chi =
    1/e, where small ``e`` puts it, is resolved), by Brent's method on the bracket ``[0, 1 +
    (1 + e) / e]``: ``h = -(1 - e^2) / 2 < 0`` at ``t = 0`` and ``h > 0`` at its upper end, where
    ``t > chi (1 + e)``."""
    from scipy.optimize import brentq

    if e == 1.0:
        return 0.0

    def h(t):
        return _relation(-math.expm1(-t) / e, e, t)

    t = brentq(h, 0.0, 1.0 + (1.0 + e) / e, xtol=1e-300, rtol=8.9e-16, maxiter=500)
    return -math.expm1(-t) / e


def chi_for(rule: str, e: float) -> float:
    """The damping factor ``chi`` (-) of a rule for the restitution ``e``.

    Parameters
    ----------
    rule : str
        One of :data:`DAMPING_RULES`: ``"exact"`` (the chi realising ``e``, see
        :func:`realised_restitution`), ``"hunt-crossley"`` ``3 (1 - e) / 2``,
        ``"lankarani-nikravesh"`` ``3 (1 - e^2) / 4``, ``"flores"`` ``8 (1 - e) / (5 e)``,
        ``"gonthier"`` ``(1 - e^2) / e``, ``"carvalho-martins"``
        ``3 (1 - e) (11 - e) / (2 (1 + 9 e))``.
    e : float
        The coefficient of restitution (-), in (0, 1].

    Returns
    -------
    float
        ``chi >= 0``; 0 for ``e = 1``.
    """
    rule = _rule(rule)
    e = _restitution(e)
    if rule == "exact":
        return _exact_chi(e)
    if rule == "hunt-crossley":
        return 1.5 * (1.0 - e)
    if rule == "lankarani-nikravesh":
        return 0.75 * (1.0 - e * e)
    if rule == "flores":
        return 1.6 * (1.0 - e) / e
    if rule == "gonthier":
        return (1.0 - e * e) / e
    return 1.5 * (1.0 - e) * (11.0 - e) / (1.0 + 9.0 * e)


def realised_restitution(chi: float) -> float:
    """The coefficient of restitution (-) that the force ``K d^n (1 + chi d_dot / d_dot0)``
    realises: the root ``e`` of ``chi (1 + e) = ln((1 + chi) / (1 - chi e))``, in closed form
    ``e = (1 + W0(-(1 + chi) exp(-(1 + chi)))) / chi`` (W0 the principal branch of Lambert's W),
    for any exponent, stiffness, mass and impact speed.

    Parameters
    ----------
    chi : float
        The damping factor (-), >= 0 (0 gives 1, the limit).

    Returns
    -------
    float
        ``e`` in (0, 1]. Near chi = 0, where W0 is evaluated next to its branch point, the
        value is refined by Newton's method on the relation (its series form, exact to
        rounding); for chi > 1 Lambert's W is used as it is.
    """
    from scipy.special import lambertw

    chi = _number(chi, "chi", "-", low=0.0, inclusive=True)
    if chi == 0.0:
        return 1.0
    if chi > 1.0:
        y = -lambertw(-(1.0 + chi) * math.exp(-(1.0 + chi)), 0).real   # y = 1 - chi e
        return (1.0 - y) / chi
    e = 1.0 - 2.0 * chi / 3.0 if chi < 1e-4 else \
        (1.0 + lambertw(-(1.0 + chi) * math.exp(-(1.0 + chi)), 0).real) / chi
    for _ in range(6):
        step = _relation(chi, e) * (1.0 - chi * e) / e      # h / (dh/de)
        e -= step
        if abs(step) <= 1e-17:
            break
    return e


def normal_law(normal, restitution: float | None = None, damping: str | None = None,
               shape_a: Shape | None = None, shape_b: Shape | None = None, *,
               name: str | None = None) -> tuple[int, np.ndarray]:
    """A contact's normal law as the compiled kind and numbers for :func:`normal_force`.

    Parameters
    ----------
    normal : Hertz or Linear
        The force law.
    restitution : float, optional
        With :class:`Hertz`: the coefficient of restitution (-), in (0, 1], which sets ``chi``
        by the damping rule; None: no damping (elastic).
    damping : str, optional
        The rule (:data:`DAMPING_RULES`); ``"exact"`` by default with a restitution.
    shape_a, shape_b : Shape, optional
        The pair's shapes, for Hertz's effective radius.
    name : str, optional
        The contact element's name, put before every error message (``contact 'floor': ...``).

    Returns
    -------
    kind : int
        :data:`HYSTERETIC` or :data:`LINEAR`.
    numbers : ndarray, shape (3,)
        ``(K, n, chi)`` or ``(k, c, 0)``.

    Raises
    ------
    ModelError
        An unknown law or rule, a restitution out of range, a damping rule without a
        restitution, a restitution with :class:`Linear` (its damping is ``c``), a radius
        Hertz cannot take from the shapes.
    """
    try:
        return _resolve(normal, restitution, damping, shape_a, shape_b)
    except ModelError as exc:
        if name is None:
            raise
        raise ModelError(f"contact {name!r}: {exc}") from None


def _resolve(normal, restitution, damping, shape_a, shape_b) -> tuple[int, np.ndarray]:
    """:func:`normal_law` without the element's name."""
    if isinstance(normal, Linear):
        if restitution is not None or damping is not None:
            raise ModelError("normal=Linear(k, c) is damped by its c (N s/m); restitution= and "
                             "damping= set the hysteretic damping of normal=Hertz(...)")
        return normal.pack()
    if not isinstance(normal, Hertz):
        raise ModelError(f"normal = {normal!r} is not a normal force law; use Hertz(E=, nu=) "
                         "or Hertz(K=), or Linear(k, c)")
    kind, numbers = normal.pack(shape_a, shape_b)
    if restitution is None:
        if damping is not None:
            raise ModelError(f"damping = {damping!r} sets chi from the restitution; give "
                             "restitution= (in (0, 1]) as well")
        return kind, numbers
    numbers[2] = chi_for("exact" if damping is None else damping, restitution)
    return kind, numbers


@njit(cache=True)
def normal_force(kind, numbers, d, d_dot, d_dot0):
    """The normal force (N) of a compiled law at penetration ``d`` (m, ``-gap``), its rate
    ``d_dot`` (m/s) and the impact's approach speed ``d_dot0`` (m/s, > 0).

    ``LINEAR``: ``k d + c d_dot`` (numbers ``k, c``); ``HYSTERETIC``: ``K d^n (1 + chi d_dot /
    d_dot0)`` (numbers ``K, n, chi``), without the damping term when ``d_dot0 <= 0`` (a contact
    that began at rest has no impact speed: the family must supply one). 0 for ``d <= 0``,
    clamped at ``>= 0``; NaN for an unknown kind.
    """
    if d <= 0.0:
        return 0.0
    if kind == HYSTERETIC:
        n = numbers[1]
        f = numbers[0] * (d * math.sqrt(d) if n == 1.5 else d ** n)
        if numbers[2] != 0.0 and d_dot0 > 0.0:
            f *= 1.0 + numbers[2] * d_dot / d_dot0
    elif kind == LINEAR:
        f = numbers[0] * d + numbers[1] * d_dot
    else:
        return np.nan
    return f if f > 0.0 else 0.0
