"""The Contensou factors of ``nonsmooth.contact.contensou`` against references written apart from
them: the patch integrals ``-mu int p u / |u| dA`` and ``-mu int p r x u / |u| dA`` integrated
numerically in two dimensions (scipy's adaptive quadrature, nested in polar coordinates about
the patch's centre, the slip's zero given to both levels as a break point), scipy's Gauss
hypergeometric function and complete elliptic integrals, scipy's DOP853 for the sliding and
spinning disc and ring, and the published limit of that motion: a uniform disc stops sliding
and spinning at the same instant, the ratio of sliding speed to rim speed tending to 0.653, a
thin ring to 1 (Farkas, Bartels, Unger and Wolf, Phys. Rev. Lett. 90, 248302, 2003; Weidman and
Malhotra, Phys. Rev. Lett. 95, 264303, 2005)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq
from scipy.special import ellipe, ellipk, hyp2f1

import nonsmooth.contact
from nonsmooth.contact.contensou import (
    HERTZ,
    RING,
    UNIFORM,
    contensou,
    contensou_speeds,
    elliptic_ke,
    friction_factors,
    patch_friction,
)
from nonsmooth.errors import ModelError

# the references' quadratures reach the limit of double precision (scipy says so); their
# accuracy is what the comparisons check
pytestmark = pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")

KINDS = {"uniform": UNIFORM, "hertz": HERTZ}
RATIOS = tuple(np.geomspace(1e-4, 1e4, 17)) + (0.3, 0.5, 0.9, 1.1, 2.0, 3.0)


def pressure(kind, N, a):
    """The pressure (Pa) at radius r of a patch under the load N."""
    if kind == UNIFORM:
        return lambda r: N / (math.pi * a * a)
    return lambda r: 1.5 * N / (math.pi * a * a) * math.sqrt(max(0.0, 1.0 - (r / a) ** 2))


def patch_quadrature(kind, mu, N, a, vx, vy, omega, components=(0, 1, 2), epsabs=0.0):
    """``(Fx, Fy, Mz)`` of Coulomb friction ``-mu p u / |u|`` over the patch, ``u = v + omega x
    r``, integrated in polar coordinates ``(r, phi)`` about the centre; the slip vanishes at the
    instantaneous centre ``(-vy, vx) / omega``, a break point of both integrals. ``epsabs`` (N,
    N m) bounds the error of a component that may vanish."""
    p = pressure(kind, N, a)
    if omega != 0.0:
        cx, cy = -vy / omega, vx / omega
        r_c, phi_c = math.hypot(cx, cy), math.atan2(cy, cx)
    else:
        r_c, phi_c = math.inf, 0.0
    options = dict(epsabs=0.0, epsrel=1e-13, limit=400)
    outer = dict(options, epsabs=epsabs)

    def inner(r, component):
        def integrand(phi):
            x, y = r * math.cos(phi), r * math.sin(phi)
            ux, uy = vx - omega * y, vy + omega * x
            speed = math.hypot(ux, uy)
            if speed == 0.0:
                return 0.0
            return (ux, uy, x * uy - y * ux)[component] / speed

        # phi over a period centred on the slip's zero's direction, that direction a break point
        scale = -mu * p(r) * r
        if scale == 0.0:
            return 0.0
        value = quad(integrand, phi_c - math.pi, phi_c + math.pi, points=[phi_c],
                     **dict(options, epsabs=epsabs / abs(scale * a)))[0]
        return scale * value

    points = [r_c] if r_c < a else None
    return tuple(quad(inner, 0.0, a, args=(i,), points=points, **outer)[0] for i in components)


def reference_factors(kind, eps):
    """``(f, t)`` from the patch quadrature: unit load, radius and spin, ``v = eps`` along x."""
    Fx, Mz = patch_quadrature(kind, 1.0, 1.0, 1.0, eps, 0.0, 1.0, components=(0, 2))
    return -Fx, -Mz


@pytest.mark.parametrize("eps", RATIOS)
@pytest.mark.parametrize("name", KINDS)
def test_factors_against_patch_quadrature(name, eps):
    f_ref, t_ref = reference_factors(KINDS[name], eps)
    f, t, _, _ = contensou(KINDS[name], eps)
    assert f == pytest.approx(f_ref, rel=1e-10, abs=0.0)
    assert t == pytest.approx(t_ref, rel=1e-10, abs=0.0)


def test_against_hypergeometric_functions():
    """To a few units in the last place over eps in [1e-6, 1e6], both sides of the switches
    between the series and the closed forms (eps = 1/2 and 2) and at eps = 1."""
    ratios = np.concatenate([np.geomspace(1e-6, 1e6, 1001),
                             [0.5 - 1e-9, 0.5, 0.5 + 1e-9, 1.0, 2.0 - 1e-9, 2.0, 2.0 + 1e-9]])
    worst = 0.0
    for eps in ratios:
        if eps <= 1.0:
            z = eps * eps
            expected = (eps * hyp2f1(-0.5, 0.5, 2.0, z), 2.0 / 3.0 * hyp2f1(-1.5, 0.5, 1.0, z),
                        3.0 * math.pi / 8.0 * eps * (1.0 - z / 4.0),
                        3.0 * math.pi / 16.0 * (1.0 - z + 3.0 * z * z / 8.0))
        else:
            z = 1.0 / (eps * eps)
            expected = (hyp2f1(-0.5, 0.5, 2.0, z), hyp2f1(0.5, 0.5, 3.0, z) / (4.0 * eps),
                        hyp2f1(-0.5, 0.5, 2.5, z), hyp2f1(0.5, 0.5, 3.5, z) / (5.0 * eps))
        got = contensou(UNIFORM, eps)[:2] + contensou(HERTZ, eps)[:2]
        worst = max(worst, max(abs(g / e - 1.0) for g, e in zip(got, expected, strict=True)))
    assert worst < 1e-14


def test_hypergeometric_forms_at_eps_one():
    """The closed values at eps = 1: 8 / (3 pi), 8 / (9 pi) (uniform), 9 pi / 32, 9 pi / 128
    (Hertz), from either side."""
    for eps in (1.0, 1.0 - 1e-15, 1.0 + 1e-15):
        assert contensou(UNIFORM, eps)[:2] == pytest.approx((8 / (3 * math.pi),
                                                            8 / (9 * math.pi)), rel=1e-14)
        assert contensou(HERTZ, eps)[:2] == pytest.approx((9 * math.pi / 32,
                                                          9 * math.pi / 128), rel=1e-14)


@pytest.mark.parametrize("m", [0.0, 1e-10, 0.1, 0.25, 0.5, 0.9, 0.999, 1.0 - 1e-12])
def test_elliptic_integrals_against_scipy(m):
    K, E = elliptic_ke(m)
    assert K == pytest.approx(ellipk(m), rel=2e-15, abs=0.0)
    assert E == pytest.approx(ellipe(m), rel=2e-15, abs=0.0)


def test_elliptic_integrals_at_one():
    assert elliptic_ke(1.0) == (math.inf, 1.0)


@pytest.mark.parametrize("name, spin", [("uniform", 2.0 / 3.0), ("hertz", 3.0 * math.pi / 16.0)])
def test_limits(name, spin):
    kind = KINDS[name]
    # pure spin and pure sliding, exactly
    assert contensou(kind, 0.0)[:2] == (0.0, pytest.approx(spin, rel=1e-15))
    assert contensou(kind, math.inf) == (1.0, 0.0, 0.0, 0.0)
    assert contensou_speeds(kind, 0.0, 3.0)[:2] == (0.0, pytest.approx(spin, rel=1e-15))
    assert contensou_speeds(kind, 3.0, 0.0) == (1.0, 0.0, 0.0, 0.0)
    # the leading terms, no loss of accuracy as eps -> 0 or inf
    slope, decay = (1.0, 0.25) if kind == UNIFORM else (3.0 * math.pi / 8.0, 0.2)
    for small in (1e-8, 1e-100, 1e-300):
        f, t, df, dt = contensou(kind, small)
        assert f / small == pytest.approx(slope, rel=1e-14)
        assert df == pytest.approx(slope, rel=1e-14)
        assert t == pytest.approx(spin, rel=1e-14)
    for large in (1e8, 1e100, 1e300):
        f, t, df, dt = contensou(kind, large)
        assert f == pytest.approx(1.0, rel=1e-15)
        assert t * large == pytest.approx(decay, rel=1e-14)
        if large < 1e150:  # dt ~ -decay / eps^2 underflows beyond
            assert dt * large * large == pytest.approx(-decay, rel=1e-14)
    # the next terms: f = eps (1 - eps^2 / 8), t ~ 2/3 (1 - 3 eps^2 / 4) (uniform), f = 1 -
    # eps^-2 / 8 resp. 1 - eps^-2 / 10 at large eps
    eps = 1e-4
    if kind == UNIFORM:
        assert contensou(kind, eps)[0] == pytest.approx(eps * (1.0 - eps * eps / 8.0),
                                                        rel=1e-15)
        assert contensou(kind, eps)[1] == pytest.approx(2.0 / 3.0 * (1.0 - 0.75 * eps * eps),
                                                        rel=1e-15)
    assert 1.0 - contensou(kind, 1e4)[0] == pytest.approx(1e-8 / (8.0 if kind == UNIFORM
                                                                  else 10.0), rel=1e-6)


def test_at_rest_zero():
    for kind in (UNIFORM, HERTZ):
        assert contensou_speeds(kind, 0.0, 0.0) == (0.0, 0.0, 0.0, 0.0)
        assert patch_friction(kind, 0.5, 10.0, 0.1, 0.0, 0.0, 0.0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("eps", [1e-3, 0.2, 0.5, 0.7, 1.0 - 1e-3, 1.0 + 1e-3, 1.5, 2.0, 5.0,
                                 1e3])
@pytest.mark.parametrize("name", KINDS)
def test_derivatives_against_differences(name, eps):
    """df/deps and dt/deps against a Richardson-extrapolated central difference (to its
    truncation, 1e-8, and its rounding, a few ulps of the value over the step)."""
    kind = KINDS[name]

    def difference(i, h):
        return (contensou(kind, eps + h)[i] - contensou(kind, eps - h)[i]) / (2.0 * h)

    h = 1e-4 * eps
    factors = contensou(kind, eps)
    for i in (0, 1):
        value = factors[2 + i]
        estimate = (4.0 * difference(i, h / 2.0) - difference(i, h)) / 3.0
        rounding = 1e-15 * abs(factors[i]) / h
        assert abs(value - estimate) <= 1e-8 * abs(value) + rounding


@pytest.mark.parametrize("name", KINDS)
@pytest.mark.parametrize("vx, vy, omega", [(0.3, -0.4, -2.0), (-0.02, 0.01, 3.0),
                                           (1.5, 2.0, 0.7), (0.0, 0.2, -5.0)])
def test_patch_friction_against_quadrature(name, vx, vy, omega):
    """The force's and torque's directions and magnitudes for a patch of radius 0.1 m under 40 N
    with mu = 0.3, against the 2-D quadrature of the vector integrals."""
    kind = KINDS[name]
    mu, N, a = 0.3, 40.0, 0.1
    Fx, Fy, Mz = patch_friction(kind, mu, N, a, vx, vy, omega)
    scale = mu * N
    Fx_ref, Fy_ref, Mz_ref = patch_quadrature(kind, mu, N, a, vx, vy, omega,
                                              epsabs=1e-14 * scale * a)
    assert Fx == pytest.approx(Fx_ref, rel=1e-10, abs=1e-12 * scale)
    assert Fy == pytest.approx(Fy_ref, rel=1e-10, abs=1e-12 * scale)
    assert Mz == pytest.approx(Mz_ref, rel=1e-10, abs=1e-12 * scale * a)


def test_patch_friction_pure_motions():
    mu, N, a = 0.5, 10.0, 0.2
    assert patch_friction(UNIFORM, mu, N, a, 3.0, -4.0, 0.0) == pytest.approx(
        (-mu * N * 0.6, mu * N * 0.8, 0.0), rel=1e-15)
    assert patch_friction(HERTZ, mu, N, a, 0.0, 0.0, -1.0) == pytest.approx(
        (0.0, 0.0, mu * N * a * 3.0 * math.pi / 16.0), rel=1e-15)


def sliding_spinning(factors, J, v0, w0, stop, rtol=1e-13, atol=1e-16):
    """Integrate ``m dv/dt = -mu N f``, ``J domega/dt = -mu N a t`` (m = a = mu g = 1, ``w = a
    omega`` the rim speed) with DOP853 until the event ``stop(v, w)``; the state at the end."""
    def rhs(_, y):
        f, t = factors(y[0], y[1])
        return (-f, -t / J)

    def event(_, y):
        return stop(y[0], y[1])
    event.terminal = True
    solution = solve_ivp(rhs, (0.0, 100.0), (v0, w0), method="DOP853", rtol=rtol, atol=atol,
                         events=event)
    assert solution.status == 1
    return solution.t[-1], solution.y[:, -1]


@pytest.mark.parametrize("v0, w0", [(1.0, 1.0), (1.0, 0.1), (0.1, 1.0), (3.0, 1.0)])
def test_uniform_disc_stops_sliding_and_spinning_together(v0, w0):
    """Farkas et al. (2003): eps = v / (a omega) -> 0.653 whatever the start, both speeds
    vanishing together; the limit is the root of f = 2 eps t (J = m a^2 / 2), here found from
    the patch quadrature."""
    def factors(v, w):
        return contensou_speeds(UNIFORM, max(v, 0.0), max(w, 0.0))[:2]

    scale = v0 + w0
    # the ratio approaches its limit as about (speed / initial speed)^0.6: stop at 1e-14
    _, (v, w) = sliding_spinning(factors, 0.5, v0, w0, lambda v, w: v + w - 1e-14 * scale,
                                 atol=1e-21 * scale)
    ratio = v / w
    assert abs(ratio - 0.653) < 5e-4          # the published value, to its three digits
    assert v > 0.3e-14 * scale and w > 0.3e-14 * scale  # neither stopped before the other

    def balance(eps):
        f, t = reference_factors(UNIFORM, eps)
        return f - 2.0 * eps * t
    limit = brentq(balance, 0.6, 0.7, xtol=1e-13)
    assert limit == pytest.approx(0.6530017892, abs=1e-9)
    assert ratio == pytest.approx(limit, abs=2e-7)


def ring_factors(v, w):
    """``(f, t)`` of a thin ring (load and mass at radius a = 1) by quadrature over the rim."""
    if w == 0.0:
        return 1.0, 0.0
    eps = v / w

    def integrand(phi, component):
        ux, uy = eps - math.sin(phi), math.cos(phi)
        speed = math.hypot(ux, uy)
        if speed == 0.0:
            return 0.0
        return (ux if component == 0 else math.cos(phi) * uy - math.sin(phi) * ux) / speed

    options = dict(points=[math.pi / 2.0], epsabs=1e-15, epsrel=1e-13, limit=200)
    return tuple(quad(integrand, -0.5 * math.pi, 1.5 * math.pi, args=(i,), **options)[0]
                 / (2.0 * math.pi) for i in range(2))


@pytest.mark.parametrize("v0, w0", [(1.0, 0.3), (0.3, 1.0)])
def test_ring_tends_to_one(v0, w0):
    """A thin ring (J = m a^2) reaches eps = 1 while both speeds are still finite and stays
    there (f = t = 2 / pi at eps = 1: the line v = a omega is invariant)."""
    _, (v, w) = sliding_spinning(ring_factors, 1.0, v0, w0,
                                   lambda v, w: abs(v / w - 1.0) - 1e-6, rtol=1e-10)
    assert min(v, w) > 1e-3 * (v0 + w0)
    assert ring_factors(1.0, 1.0) == pytest.approx((2.0 / math.pi, 2.0 / math.pi), rel=1e-12)


@pytest.mark.parametrize("eps", RATIOS + (0.25, 0.49, 0.51, 0.99, 1.0, 1.01, 1.99, 2.01))
def test_ring_factors_against_rim_quadrature(eps):
    """``contensou(RING, eps)`` against the rim integrals by quadrature (``ring_factors``), on
    both sides of the switches between the series and the closed forms (eps = 1/2 and 2) and
    near eps = 1 (measured: 1e-15 relative, 2.4e-14 at 1.01 where the quadrature is at its
    limit); at eps = 1 exactly f = t = 2 / pi."""
    f, t, _, _ = contensou(RING, eps)
    f_ref, t_ref = ring_factors(eps, 1.0)
    assert f == pytest.approx(f_ref, rel=1e-12, abs=1e-15)
    assert t == pytest.approx(t_ref, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9, 1e-12, 1e-15])
def test_ring_factors_near_one_against_the_complementary_elliptic_integral(delta):
    """Within ``delta`` of eps = 1, where ``1 - m`` rounds away (the quadrature too): the
    closed forms with scipy's ``ellipkm1`` of the complementary parameter ``((1 - eps) / (1 +
    eps))^2`` (to 1e-14), both sides, the factors tending to 2 / pi."""
    from scipy.special import ellipkm1

    for eps in (1.0 - delta, 1.0 + delta):
        p = ((1.0 - eps) / (1.0 + eps)) ** 2
        K, E = ellipkm1(p), ellipe(1.0 - p)
        f_ref = 2.0 / math.pi * (E - (K - E) * (1.0 - eps) / (2.0 * eps))
        t_ref = ((1.0 + eps) * E + (1.0 - eps) * K) / math.pi
        f, t, _, _ = contensou(RING, eps)
        assert f == pytest.approx(f_ref, rel=1e-14) and t == pytest.approx(t_ref, rel=1e-14)
        assert abs(f - 2.0 / math.pi) < 10.0 * delta * (1.0 + abs(math.log(delta)))


def test_ring_factors_against_hypergeometric_and_elliptic_forms():
    """The ring's ``f = eps H / 2``, ``t = P - z H / 2`` inside, ``f = P - z H / 2``, ``t = H /
    (2 eps)`` outside (scipy's ``hyp2f1``), and the closed forms in scipy's ``ellipk``,
    ``ellipe``, over eps in [1e-6, 1e6] (to 4e-15); its limits and derivatives."""
    for eps in np.geomspace(1e-6, 1e6, 97):
        f, t, df, dt = contensou(RING, eps)
        z = eps * eps if eps <= 1.0 else 1.0 / (eps * eps)
        H, P = hyp2f1(0.5, 0.5, 2.0, z), hyp2f1(-0.5, -0.5, 1.0, z)
        want = (0.5 * eps * H, P - 0.5 * z * H) if eps <= 1.0 else (P - 0.5 * z * H,
                                                                      0.5 * H / eps)
        assert f == pytest.approx(want[0], rel=4e-15) and t == pytest.approx(want[1], rel=4e-15)
        if 0.3 < eps < 3.0 and eps != 1.0:
            m = 4.0 * eps / (1.0 + eps) ** 2
            K, E = ellipk(m), ellipe(m)
            assert f == pytest.approx(2.0 / math.pi * (E - (K - E) * (1.0 - eps) / (2.0 * eps)),
                                      rel=1e-13)
            assert t == pytest.approx(((1.0 + eps) * E + (1.0 - eps) * K) / math.pi, rel=1e-13)
        assert dt == pytest.approx(-eps * df, rel=1e-15)
    assert contensou(RING, 0.0)[:2] == (0.0, 1.0) and contensou(RING, math.inf)[:2] == (1.0, 0.0)
    assert contensou(RING, 1e-8)[0] / 1e-8 == pytest.approx(0.5, rel=1e-14)
    assert contensou(RING, 1e8)[1] * 1e8 == pytest.approx(0.5, rel=1e-14)
    assert contensou(RING, 1.0)[:2] == (2.0 / math.pi, 2.0 / math.pi)
    assert contensou(RING, 1.0)[2] == math.inf  # (the instantaneous centre on the rim)
    for eps in (1e-3, 0.3, 0.7, 0.999, 1.001, 1.5, 3.0, 1e3):
        h = 1e-5 * min(eps, abs(eps - 1.0) + 1e-3)
        estimate = (contensou(RING, eps + h)[0] - contensou(RING, eps - h)[0]) / (2.0 * h)
        assert contensou(RING, eps)[2] == pytest.approx(estimate, rel=1e-7)
    assert friction_factors([0.5, 2.0], "ring")[0] == pytest.approx(
        [contensou(RING, 0.5)[0], contensou(RING, 2.0)[0]], rel=0)


@pytest.mark.parametrize("kind", [UNIFORM, HERTZ, RING])
def test_the_limit_sets_gauge_is_one_on_the_curve_and_scales_with_the_loads(kind):
    """``limit_gauge`` of a point of the limit curve ``lambda (f(eps), t(eps))`` is lambda (to
    1e-14), at pure spin ``q / t(0)``, at pure sliding ``p``, never below the Euclidean norm
    (the ball the curve lies in), and ``limit_ratio_of_loads`` gives back eps (found in
    ``atan(eps)`` to 1e-15: relative ``1e-15 (1 + eps)``);
    ``contensou_vector`` of a direction is its factors on that direction."""
    from nonsmooth.contact.contensou import contensou_vector, limit_gauge, limit_ratio_of_loads

    spin = contensou(kind, 0.0)[1]
    for eps in (1e-6, 0.05, 0.3, 0.653, 1.0, 1.7, 4.0, 1e5):
        f, t = contensou(kind, eps)[:2]
        assert limit_gauge(kind, 2.5 * f, 2.5 * t) == pytest.approx(2.5, rel=1e-14)
        assert limit_ratio_of_loads(kind, f, t) == pytest.approx(eps, rel=1e-12 * (1.0 + eps))
        phi = 0.7
        c = contensou_vector(kind, eps * math.cos(phi), eps * math.sin(phi), -1.0)
        assert c == pytest.approx((f * math.cos(phi), f * math.sin(phi), -t), rel=1e-15)
    assert limit_gauge(kind, 0.0, 3.0) == pytest.approx(3.0 / spin, rel=1e-15)
    assert limit_gauge(kind, 3.0, 0.0) == 3.0 and limit_gauge(kind, 0.0, 0.0) == 0.0
    rng = np.random.default_rng(kind)
    for p, q in rng.uniform(0.0, 2.0, size=(50, 2)):
        assert limit_gauge(kind, p, q) >= math.hypot(p, q) * (1.0 - 1e-15)


def test_hertz_disc_has_no_interior_limit():
    """With Hertz's pressure f - 2 eps t > 0 for every eps > 0 (of order eps^3 as eps -> 0): a
    disc of J = m a^2 / 2 under it stops sliding before spinning."""
    for eps in np.geomspace(1e-3, 1e3, 61):
        f, t, _, _ = contensou(HERTZ, eps)
        assert f - 2.0 * eps * t > 0.0
    f, t, _, _ = contensou(HERTZ, 1e-2)
    assert (f - 2e-2 * t) / 1e-6 == pytest.approx(9.0 * math.pi / 32.0, rel=1e-3)


def test_friction_factors_arrays_and_errors():
    eps = np.array([[0.0, 0.5], [2.0, np.inf]])
    f, t, df, dt = friction_factors(eps, pressure="hertz")
    assert f.shape == (2, 2)
    assert f[1, 0] == contensou(HERTZ, 2.0)[0] and t[0, 0] == contensou(HERTZ, 0.0)[1]
    assert friction_factors(0.5) == contensou(UNIFORM, 0.5)
    assert nonsmooth.contact.friction_factors is friction_factors
    with pytest.raises(ModelError, match="pressure = 'elliptic' is unknown.*'uniform', 'hertz'"):
        friction_factors(1.0, pressure="elliptic")
    with pytest.raises(ModelError, match="eps = -1.0 is invalid.*must be >= 0"):
        friction_factors([1.0, -1.0])
    with pytest.raises(ModelError, match="eps = nan is invalid"):
        friction_factors(np.nan)
