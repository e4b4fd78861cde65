"""Coulomb friction over a circular contact patch: the sliding force and the spinning torque,
coupled exactly (Contensou, 1963).

A rigid flat patch of radius ``a`` (m) under a normal load ``N`` (N) slides with velocity ``v``
(m/s, in the patch's plane) and spins at ``omega`` (rad/s) about its normal. Each element of the
patch feels Coulomb's ``-mu p u / |u|``, ``u = v + omega x r`` its own slip velocity, so the
patch's friction force and torque about its centre are

    F = -mu integral p(r) u / |u| dA,        M = -mu integral p(r) r x u / |u| dA.

By symmetry ``F`` is along ``-v`` and ``M`` along ``-omega``, and both depend on the speeds only
through the ratio of the sliding speed to the rim speed, ``eps = |v| / (a |omega|)``:

    |F| = mu N f(eps),        |M| = mu N a t(eps).

Three pressure distributions (``kind``): :data:`UNIFORM`, ``p = N / (pi a^2)`` (a flat patch on
a Winkler foundation), :data:`HERTZ`, ``p = 3 N / (2 pi a^2) sqrt(1 - r^2 / a^2)``, and
:data:`RING`, the load on the rim ``r = a`` alone (a thin ring, a cup's rim). With ``z =
eps^2`` for ``eps <= 1`` (the instantaneous centre of rotation inside the patch) and ``z = 1 /
eps^2`` for ``eps > 1`` (outside), every factor is a Gauss hypergeometric function
(``docs/design/contensou.md`` derives them):

==========  ===============================  ==================================================
kind        eps <= 1                         eps >= 1
==========  ===============================  ==================================================
uniform f   ``eps 2F1(-1/2, 1/2; 2; z)``     ``2F1(-1/2, 1/2; 2; z)``
uniform t   ``2/3 2F1(-3/2, 1/2; 1; z)``     ``2F1(1/2, 1/2; 3; z) / (4 eps)``
Hertz f     ``3 pi / 8 (eps - eps^3 / 4)``   ``2F1(-1/2, 1/2; 5/2; z)``
Hertz t     ``3 pi / 16 (1 - z + 3 z^2/8)``  ``2F1(1/2, 1/2; 7/2; z) / (5 eps)``
==========  ===============================  ==================================================

A thin ring's are, with ``H = 2F1(1/2, 1/2; 2; z)`` and ``P = 2F1(-1/2, -1/2; 1; z)``, ``f = eps
H / 2``, ``t = P - z H / 2`` inside and ``f = P - z H / 2``, ``t = H / (2 eps)`` outside, in
closed form ``f = (2 / pi)(E - (K - E)(1 - eps) / (2 eps))``, ``t = ((1 + eps) E + (1 - eps) K) /
pi`` with ``K``, ``E`` of ``m = 4 eps / (1 + eps)^2`` on both sides (``f = t = 2 / pi`` at ``eps
= 1``, where the derivatives are infinite).

The uniform ones are complete elliptic integrals ``K`` and ``E`` of modulus ``eps`` or ``1 /
eps`` (computed here by the arithmetic-geometric mean), the Hertzian ones are elementary (a
polynomial inside, ``asin(1 / eps)`` and ``sqrt(eps^2 - 1)`` outside). For ``z <= 1/4`` the
hypergeometric series is summed instead of the closed forms, whose terms cancel as ``z -> 0``:
every value is exact to a few units in the last place over ``0 <= eps <= inf``. The derivatives
obey ``dt/deps = -eps df/deps`` (both distributions: ``f`` and ``t`` derive from one potential).

Limits: pure spin (``eps = 0``) ``f = 0``, ``t = 2/3`` (uniform), ``3 pi / 16`` (Hertz) or 1
(ring); pure sliding (``eps -> inf``) ``f = 1``, ``t = 0``; ``f ~ eps`` (uniform), ``3 pi eps /
8`` (Hertz) and ``eps / 2`` (ring) as ``eps -> 0``, ``t ~ 1 / (4 eps)``, ``1 / (5 eps)`` and ``1
/ (2 eps)`` as ``eps -> inf``.

At rest (``v = 0`` and ``omega = 0``) the friction is set-valued: :func:`patch_friction`
returns zero there and the caller decides sticking.

Compiled: :func:`contensou` ``(kind, eps)``, :func:`contensou_speeds` ``(kind, s, w)`` (from the
sliding speed and the rim speed, no division by zero at either limit), :func:`patch_friction`
``(kind, mu, N, a, vx, vy, omega) -> (Fx, Fy, Mz)``, :func:`elliptic_ke` ``(m) -> (K, E)``.
Python: :func:`friction_factors` (arrays, validated arguments).

References: Contensou, "Couplage entre frottement de glissement et frottement de pivotement dans
la theorie de la toupie", Kreiselprobleme/Gyrodynamics, IUTAM 1962 (Springer 1963); Farkas,
Bartels, Unger and Wolf, Phys. Rev. Lett. 90, 248302 (2003); Weidman and Malhotra, Phys. Rev.
Lett. 95, 264303 (2005); Leine and Glocker, Eur. J. Mech. A/Solids 22 (2003) 193-216.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..errors import ModelError

__all__ = [
    "UNIFORM", "HERTZ", "RING", "PRESSURES", "elliptic_ke", "contensou", "contensou_speeds",
    "contensou_vector", "patch_factors", "limit_ratio_of_loads", "limit_gauge",
    "patch_friction",
    "friction_factors",
]

#: Kind codes of the pressure distributions.
UNIFORM, HERTZ, RING = 1, 2, 3
#: The pressure distributions by name.
PRESSURES = {"uniform": UNIFORM, "hertz": HERTZ, "ring": RING}

#: At or below this ``z`` (``eps <= 1/2`` or ``eps >= 2``) the hypergeometric series replaces
#: the closed forms, whose terms cancel as ``z -> 0``.
_SERIES = 0.25


@njit(cache=True)
def elliptic_ke(m):
    """Complete elliptic integrals of the first and second kind by the arithmetic-geometric mean.

    Parameters
    ----------
    m : float
        The parameter ``m = k^2`` (-), in [0, 1].

    Returns
    -------
    K, E : float
        ``K(m) = int_0^(pi/2) dphi / sqrt(1 - m sin^2 phi)`` (``inf`` at ``m = 1``) and
        ``E(m) = int_0^(pi/2) sqrt(1 - m sin^2 phi) dphi``, to a few units in the last place
        (Abramowitz and Stegun 17.6).
    """
    if m >= 1.0:
        return math.inf, 1.0
    return _agm_ke(m, math.sqrt(1.0 - m))


@njit(cache=True)
def _agm_ke(m, b):
    """``K(m)``, ``E(m)`` by the arithmetic-geometric mean from ``a_0 = 1``, ``b_0 = b =
    sqrt(1 - m)`` (given: a caller that knows the complementary modulus better than ``1 - m``,
    near ``m = 1``, passes it)."""
    if b <= 0.0:
        return math.inf, 1.0
    a = 1.0
    total = 0.5 * m  # sum of 2^(n-1) c_n^2 from c_0^2 = m
    power = 0.5
    for _ in range(40):
        c = 0.5 * (a - b)
        a, b = 0.5 * (a + b), math.sqrt(a * b)
        power *= 2.0
        total += power * c * c
        if c <= 1e-17 * a:
            break
    K = 0.5 * math.pi / a
    return K, K * (1.0 - total)


@njit(cache=True)
def _series(a, b, c, z):
    """``S = 2F1(a, b; c; z)`` and ``dS/dz`` by the series, ``0 <= z <= 1/4``."""
    term = 1.0  # h_n z^n
    S = 1.0
    dS = a * b / c  # the series of dS/dz: sum (n + 1) h_(n+1) z^n
    slope = dS
    for n in range(1, 200):
        term *= (a + n - 1.0) * (b + n - 1.0) / ((c + n - 1.0) * n) * z
        slope *= (a + n) * (b + n) / ((c + n) * n) * z
        S += term
        dS += slope
        if abs(slope) <= 1e-17 * abs(dS) and abs(term) <= 1e-17 * abs(S):
            break
    return S, dS


@njit(cache=True)
def _uniform_inside(eps):
    """Uniform pressure, ``0 <= eps <= 1``: ``(f, t, df/deps, dt/deps)``."""
    z = eps * eps
    if z <= _SERIES:
        S, dS = _series(-0.5, 0.5, 2.0, z)
        T, _ = _series(-1.5, 0.5, 1.0, z)
        f = eps * S
        t = 2.0 / 3.0 * T
        df = S + 2.0 * z * dS
    else:
        K, E = elliptic_ke(z)
        kK = (1.0 - z) * K if z < 1.0 else 0.0
        F1 = 4.0 / (3.0 * math.pi * z) * ((1.0 + z) * E - kK)
        f = eps * F1
        t = 4.0 / (9.0 * math.pi) * (2.0 * (2.0 - z) * E - kK)
        df = 4.0 * E / math.pi - F1
    return f, t, df, -eps * df


@njit(cache=True)
def _uniform_outside(x):
    """Uniform pressure, ``x = 1 / eps`` in [0, 1): ``(f, t, df/deps, dt/deps)``."""
    z = x * x
    if z <= _SERIES:
        S, dS = _series(-0.5, 0.5, 2.0, z)
        T, _ = _series(0.5, 0.5, 3.0, z)
        return S, 0.25 * x * T, -2.0 * x * z * dS, 2.0 * z * dS
    K, E = elliptic_ke(z)
    kK = (1.0 - z) * K
    F1 = 4.0 / (3.0 * math.pi * z) * ((1.0 + z) * E - kK)
    L = ((2.0 - 3.0 * z) * kK - 2.0 * (1.0 - 2.0 * z) * E) / (3.0 * z * z)
    df = 4.0 / (math.pi * x) * (E - kK) - x * F1
    return F1, 4.0 * x / (3.0 * math.pi) * L, df, -df / x


@njit(cache=True)
def _hertz_inside(eps):
    """Hertzian pressure, ``0 <= eps <= 1``: ``(f, t, df/deps, dt/deps)``, polynomials."""
    z = eps * eps
    f = 0.375 * math.pi * eps * (1.0 - 0.25 * z)
    t = 0.1875 * math.pi * (1.0 - z + 0.375 * z * z)
    df = 0.375 * math.pi * (1.0 - 0.75 * z)
    return f, t, df, -eps * df


@njit(cache=True)
def _hertz_outside(x):
    """Hertzian pressure, ``x = 1 / eps`` in [0, 1): ``(f, t, df/deps, dt/deps)``."""
    z = x * x
    if z <= _SERIES:
        S, dS = _series(-0.5, 0.5, 2.5, z)
        T, _ = _series(0.5, 0.5, 3.5, z)
        return S, 0.2 * x * T, -2.0 * x * z * dS, 2.0 * z * dS
    eps = 1.0 / x
    e2 = eps * eps
    w = math.sqrt((1.0 - x) * (1.0 + x)) / x  # sqrt(eps^2 - 1)
    s = math.asin(x)
    f = 0.75 / eps * (e2 * (1.0 - 0.25 * e2) * s + 0.25 * (e2 + 2.0) * w)
    t = 0.75 * ((0.5 - 0.5 * e2 + 0.1875 * e2 * e2) * s + 0.1875 * w * (2.0 - e2))
    df = 0.75 * ((2.0 - e2) * s + w) - f / eps
    return f, t, df, -eps * df


@njit(cache=True)
def _ring_closed(eps):
    """A thin ring by ``K`` and ``E`` of ``m = 4 eps / (1 + eps)^2`` (the same on both sides
    of ``eps = 1``; here ``m > 0.88``, so ``K - E`` does not cancel): ``(f, t, df/deps,
    dt/deps)``; at ``eps = 1`` (the instantaneous centre on the ring) ``f = t = 2 / pi`` and
    the derivatives infinite."""
    if eps == 1.0:
        return 2.0 / math.pi, 2.0 / math.pi, math.inf, -math.inf
    m = 4.0 * eps / ((1.0 + eps) * (1.0 + eps))
    K, E = _agm_ke(m, abs(1.0 - eps) / (1.0 + eps))  # (sqrt(1 - m), exact near eps = 1)
    D = K - E
    f = 2.0 / math.pi * (E - D * (1.0 - eps) / (2.0 * eps))
    t = ((1.0 + eps) * E + (1.0 - eps) * K) / math.pi
    df = (D * (1.0 + eps * eps) - 2.0 * eps * E) / (math.pi * eps * eps * (1.0 + eps))
    return f, t, df, -eps * df


@njit(cache=True)
def _ring_inside(eps):
    """A thin ring, ``0 <= eps <= 1``: ``(f, t, df/deps, dt/deps)``; ``f = eps H / 2``, ``t =
    P - z H / 2`` with ``H = 2F1(1/2, 1/2; 2; z)``, ``P = 2F1(-1/2, -1/2; 1; z)``, ``z =
    eps^2``."""
    z = eps * eps
    if z <= _SERIES:
        H, dH = _series(0.5, 0.5, 2.0, z)
        P, _ = _series(-0.5, -0.5, 1.0, z)
        df = 0.5 * H + z * dH
        return 0.5 * eps * H, P - 0.5 * z * H, df, -eps * df
    return _ring_closed(eps)


@njit(cache=True)
def _ring_outside(x):
    """A thin ring, ``x = 1 / eps`` in [0, 1): ``(f, t, df/deps, dt/deps)``; ``f = P - z H /
    2``, ``t = x H / 2`` (``z = x^2``; :func:`_ring_inside`'s functions)."""
    z = x * x
    if z <= _SERIES:
        H, dH = _series(0.5, 0.5, 2.0, z)
        P, _ = _series(-0.5, -0.5, 1.0, z)
        g = 0.5 * H + z * dH
        return P - 0.5 * z * H, 0.5 * x * H, x * z * g, -z * g
    return _ring_closed(1.0 / x)


@njit(cache=True)
def contensou_speeds(kind, s, w):
    """The factors from the sliding speed and the rim speed (no division by zero at the limits).

    Parameters
    ----------
    kind : int
        :data:`UNIFORM`, :data:`HERTZ` or :data:`RING`.
    s : float
        The sliding speed ``|v|`` (m/s), >= 0.
    w : float
        The rim speed ``a |omega|`` (m/s), >= 0; ``eps = s / w``.

    Returns
    -------
    f, t, df, dt : float
        ``|F| / (mu N)``, ``|M| / (mu N a)`` and their derivatives with respect to ``eps``
        (-). At rest (``s = w = 0``) all four are 0 (the friction is set-valued there).
    """
    if s <= w:
        if w == 0.0:
            return 0.0, 0.0, 0.0, 0.0
        if kind == HERTZ:
            return _hertz_inside(s / w)
        if kind == RING:
            return _ring_inside(s / w)
        return _uniform_inside(s / w)
    if kind == HERTZ:
        return _hertz_outside(w / s)
    if kind == RING:
        return _ring_outside(w / s)
    return _uniform_outside(w / s)


@njit(cache=True)
def contensou(kind, eps):
    """The Contensou factors at the ratio ``eps = |v| / (a |omega|)``.

    Parameters
    ----------
    kind : int
        :data:`UNIFORM`, :data:`HERTZ` or :data:`RING`.
    eps : float
        The ratio of the sliding speed to the rim speed (-), in [0, inf].

    Returns
    -------
    f, t, df, dt : float
        ``f = |F| / (mu N)``, ``t = |M| / (mu N a)``, ``df/deps`` and ``dt/deps`` (-).
    """
    if eps <= 1.0:
        return contensou_speeds(kind, eps, 1.0)
    return contensou_speeds(kind, 1.0, 1.0 / eps)


@njit(cache=True)
def patch_friction(kind, mu, N, a, vx, vy, omega):
    """Friction force and spinning torque of a sliding and spinning circular patch.

    Parameters
    ----------
    kind : int
        :data:`UNIFORM`, :data:`HERTZ` or :data:`RING`.
    mu : float
        Coulomb's coefficient (-).
    N : float
        The normal load (N), >= 0.
    a : float
        The patch's radius (m), > 0.
    vx, vy : float
        The sliding velocity of the patch's centre in its plane (m/s).
    omega : float
        The spin about the patch's normal (rad/s).

    Returns
    -------
    Fx, Fy : float
        The friction force (N), ``-mu N f(eps) v / |v|``.
    Mz : float
        The spinning torque about the normal through the centre (N m),
        ``-mu N a t(eps) sign(omega)``. All three are 0 at rest (set-valued there: the caller
        decides sticking).
    """
    s = math.sqrt(vx * vx + vy * vy)
    w = a * abs(omega)
    f, t, _, _ = contensou_speeds(kind, s, w)
    Fx = 0.0
    Fy = 0.0
    if s > 0.0:
        Fx = -mu * N * f * vx / s
        Fy = -mu * N * f * vy / s
    Mz = 0.0
    if omega > 0.0:
        Mz = -mu * N * a * t
    elif omega < 0.0:
        Mz = mu * N * a * t
    return Fx, Fy, Mz


@njit(cache=True)
def contensou_vector(kind, e0, e1, e2):
    """The friction coefficients per unit ``mu N`` (3,) of a patch slipping along ``(e0, e1,
    e2)`` (any length; rows ``(v_x, v_y, a omega)``): ``(f e_xy / |e_xy|, t sgn(e2))`` with
    the factors of ``|e_xy| / |e2|``; on the patch's limit curve, continuous in the direction
    (the law a patch pair starts to slip with from rest along ``e_ref``). Zero for a zero
    direction."""
    s = math.sqrt(e0 * e0 + e1 * e1)
    f, t, _, _ = contensou_speeds(kind, s, abs(e2))
    c0 = f * e0 / s if s > 0.0 else 0.0
    c1 = f * e1 / s if s > 0.0 else 0.0
    return c0, c1, t * (1.0 if e2 > 0.0 else -1.0 if e2 < 0.0 else 0.0)


@njit(cache=True)
def patch_factors(kind, v0, v1, v2):
    """``(k_xy, k_spin)`` of a patch slipping at ``(v0, v1, v2) = (v_x, v_y, a omega)`` (m/s):
    its Contensou coefficients are ``(k_xy (v_x, v_y), k_spin a omega) / |v|``, ``k_xy = f |v|
    / s`` and ``k_spin = t |v| / w`` with ``s`` the sliding and ``w`` the rim speed; their
    limits where ``s`` or ``w`` is 0 (``df/deps`` at 0, ``eps t(eps)`` at infinity); ``(1,
    1)`` at rest. The factors a patch's bristle law (``core.stage._bristle_law``) scales its
    rows by, so that steady sliding gives the coupled force and torque."""
    s = math.sqrt(v0 * v0 + v1 * v1)
    w = abs(v2)
    speed = math.sqrt(s * s + w * w)
    if speed == 0.0:
        return 1.0, 1.0
    f, t, df, _ = contensou_speeds(kind, s, w)
    k_xy = f * speed / s if s > 0.0 else df
    if w > 0.0:
        return k_xy, t * speed / w
    # pure sliding: eps t(eps) as eps -> inf, t ~ 1 / (4 eps), 1 / (5 eps), 1 / (2 eps)
    return k_xy, 0.2 if kind == HERTZ else 0.5 if kind == RING else 0.25


@njit(cache=True)
def limit_ratio_of_loads(kind, p, q):
    """The ratio ``eps`` of the point of the patch's limit curve ``(f(eps), t(eps))`` on the
    ray through the loads ``(p, q)`` (``p = |F| / (mu N)``, ``q = |M| / (mu N a)``, both >=
    0, not both 0): the root of ``p t(eps) = q f(eps)``, found in ``phi = atan(eps)`` on [0,
    pi/2] by the Illinois method (``p t - q f`` falls from ``p t(0)`` to ``-q``), to 1e-15
    rad. ``inf`` for ``q = 0``, 0 for ``p = 0``."""
    if q <= 0.0:
        return math.inf
    if p <= 0.0:
        return 0.0
    lo, hi = 0.0, 0.5 * math.pi
    f, t, _, _ = contensou_speeds(kind, 0.0, 1.0)
    g_lo = p * t - q * f
    f, t, _, _ = contensou_speeds(kind, 1.0, 0.0)
    g_hi = p * t - q * f
    side = 0
    for _ in range(200):
        mid = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)  # (regula falsi, Illinois)
        if not lo < mid < hi:
            mid = 0.5 * (lo + hi)
        f, t, _, _ = contensou_speeds(kind, math.sin(mid), math.cos(mid))
        g = p * t - q * f
        if g == 0.0:
            lo = hi = mid
            break
        if g > 0.0:
            lo, g_lo = mid, g
            if side == 1:
                g_hi *= 0.5
            side = 1
        else:
            hi, g_hi = mid, g
            if side == -1:
                g_lo *= 0.5
            side = -1
        if hi - lo <= 1e-15:
            break
    mid = 0.5 * (lo + hi)
    return math.tan(mid) if mid < 0.5 * math.pi else math.inf


@njit(cache=True)
def limit_gauge(kind, p, q):
    """How far the loads ``(p, q)`` (``p = |F|``, ``q = |M| / a``, N) lie along their ray
    relative to the patch's limit curve, in units of load: ``lambda`` with ``(p, q) = lambda
    (f(eps), t(eps))`` (N; the gauge of the limit set ``{mu N (f, t)}``: a patch holds the
    loads sticking while ``lambda <= mu_s N``). The Euclidean ``|(p, q)|`` bounds it from
    below. 0 at zero loads."""
    if p <= 0.0 and q <= 0.0:
        return 0.0
    eps = limit_ratio_of_loads(kind, p, q)
    if eps == math.inf:
        f, t = 1.0, 0.0
    else:
        f, t, _, _ = contensou(kind, eps)
    return (p * f + q * t) / (f * f + t * t)


def friction_factors(eps, pressure: str = "uniform"):
    """The Contensou factors of a circular patch, elementwise over an array of ratios.

    Parameters
    ----------
    eps : float or array_like
        The ratio of the sliding speed to the rim speed ``|v| / (a |omega|)`` (-), in [0, inf].
    pressure : {"uniform", "hertz", "ring"}
        The pressure distribution over the patch: ``N / (pi a^2)``, ``3 N / (2 pi a^2)
        sqrt(1 - r^2 / a^2)``, or the load on the rim alone (a thin ring).

    Returns
    -------
    f, t, df, dt : float or ndarray, the shape of ``eps``
        ``|F| / (mu N)``, ``|M| / (mu N a)`` and their derivatives with respect to ``eps`` (-).

    Raises
    ------
    ModelError
        An unknown ``pressure`` or a ratio that is negative or NaN.
    """
    kind = PRESSURES.get(pressure) if isinstance(pressure, str) else None
    if kind is None:
        raise ModelError(f"friction_factors: pressure = {pressure!r} is unknown; it must be one "
                         f"of {', '.join(repr(name) for name in PRESSURES)}")
    values = np.asarray(eps, dtype=float)
    bad = np.isnan(values) | (values < 0.0)
    if bad.any():
        first = float(values[bad].flat[0])
        raise ModelError(f"friction_factors: eps = {first!r} is invalid; the ratio of sliding "
                         "speed to rim speed must be >= 0 (inf for pure sliding)")
    out = np.empty((4,) + values.shape)
    flat = values.ravel()
    columns = out.reshape(4, -1)
    for i, value in enumerate(flat):
        columns[:, i] = contensou(kind, float(value))
    if values.ndim == 0:
        return tuple(float(column) for column in out)
    return tuple(out)
