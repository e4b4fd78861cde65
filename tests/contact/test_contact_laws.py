"""The normal force laws of ``nonsmooth.contact.laws`` against references written apart from
them: a numerical integration of the one-degree-of-freedom impact ``m d'' = -f(d, d')``
(scipy's DOP853, the force from the compiled ``normal_force``), the realised restitution solved
in 160-digit decimal arithmetic, the values of the contact specification (asked 0.5: Hunt-Crossley
0.66296, Lankarani-Nikravesh 0.72524, Flores 0.47044, Gonthier 0.48774, Carvalho-Martins
0.50017) and Johnson's closed forms of the elastic Hertz impact (Contact Mechanics, 11.4)."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from nonsmooth.contact import Plane, Sphere
from nonsmooth.contact.laws import (
    DAMPING_RULES,
    HYSTERETIC,
    LINEAR,
    Hertz,
    Linear,
    chi_for,
    normal_force,
    normal_law,
    realised_restitution,
)
from nonsmooth.errors import ModelError

RESTITUTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


def impact(kind, numbers, m, v0):
    """Integrate ``m d'' = -f(d, d')`` from first touch (``d = 0``, ``d' = v0``) to separation.

    Returns
    -------
    dict
        ``e`` (the exit speed over ``v0``), ``T`` (contact duration, s), ``d_max`` (m) and
        ``F_max`` (N, the force at ``d_max``), the force's least value over the impact.
    """
    def rhs(t, y):
        return (y[1], -normal_force(kind, numbers, y[0], y[1], v0) / m)

    def separation(t, y):
        return y[0]
    separation.terminal = True
    separation.direction = -1

    def deepest(t, y):
        return y[1]
    deepest.direction = -1

    # time and length scales of an elastic impact: m v0^2 / 2 = K d^(n+1) / (n + 1)
    K, n = numbers[0], (numbers[1] if kind == HYSTERETIC else 1.0)
    d_scale = ((n + 1.0) * m * v0 * v0 / (2.0 * K)) ** (1.0 / (n + 1.0))
    t_scale = d_scale / v0
    sol = solve_ivp(rhs, (0.0, 50.0 * t_scale), (0.0, v0), method="DOP853", rtol=1e-12,
                    atol=(1e-15 * d_scale, 1e-15 * v0), events=(separation, deepest),
                    dense_output=True)
    assert sol.status == 1, "no separation"
    T = sol.t_events[0][0]
    d_max = sol.y_events[1][0][0]
    ts = np.linspace(0.0, T, 2001)[1:-1]
    forces = [normal_force(kind, numbers, *sol.sol(t), v0) for t in ts]
    return {"e": -sol.y_events[0][0][1] / v0, "T": T, "d_max": d_max,
            "F_max": normal_force(kind, numbers, d_max, 0.0, v0), "f_min": min(forces)}


def decimal_restitution(chi: float) -> float:
    """The realised restitution by bisection in 160-digit decimal arithmetic: with ``y = 1 -
    chi e`` the relation ``chi (1 + e) = ln((1 + chi) / (1 - chi e))`` reads ``ln y - y = ln(1 +
    chi) - (1 + chi)``, whose root in (0, 1) is the one sought (``y = 1 + chi`` the trivial one);
    bisected in ``u = ln y`` (``y`` is as small as ``exp(-chi)`` for large chi)."""
    with localcontext() as ctx:
        ctx.prec = 160
        c = Decimal(chi)
        one = Decimal(1)
        rhs = (one + c).ln() - (one + c)

        def G(u):
            return u - u.exp() - rhs
        lo, hi = rhs - 2, Decimal(0)
        assert G(lo) < 0 < G(hi)
        for _ in range(560):
            mid = (lo + hi) / 2
            if G(mid) < 0:
                lo = mid
            else:
                hi = mid
        return float((one - ((lo + hi) / 2).exp()) / c)


@pytest.mark.parametrize("rule", DAMPING_RULES[1:])
def test_realised_restitution_of_each_rule_against_integration(rule):
    """Each published rule's chi(e), integrated, rebounds at the restitution the closed form
    ``realised_restitution`` gives (not at e: they are approximations)."""
    K, n, m, v0 = 2.0e9, 1.5, 0.05, 0.7
    for e in RESTITUTIONS:
        chi = chi_for(rule, e)
        run = impact(HYSTERETIC, np.array([K, n, chi]), m, v0)
        assert run["e"] == pytest.approx(realised_restitution(chi), rel=1e-9, abs=0.0), (rule, e)
        assert run["f_min"] >= 0.0


def test_rules_asked_one_half_realise_the_specification_values():
    spec = {"hunt-crossley": 0.66296, "lankarani-nikravesh": 0.72524, "flores": 0.47044,
            "gonthier": 0.48774, "carvalho-martins": 0.50017}
    for rule, value in spec.items():
        assert realised_restitution(chi_for(rule, 0.5)) == pytest.approx(value, abs=5e-6), rule
        run = impact(HYSTERETIC, np.array([1e7, 1.5, chi_for(rule, 0.5)]), 1.0, 2.0)
        assert run["e"] == pytest.approx(value, abs=5e-6), rule


def test_rules_in_the_published_forms():
    """chi(e) of each rule as the specification's table writes it."""
    e = 0.37
    assert chi_for("hunt-crossley", e) == pytest.approx(3 * (1 - e) / 2, rel=1e-15)
    assert chi_for("lankarani-nikravesh", e) == pytest.approx(3 * (1 - e ** 2) / 4, rel=1e-15)
    assert chi_for("flores", e) == pytest.approx(8 * (1 - e) / (5 * e), rel=1e-15)
    assert chi_for("gonthier", e) == pytest.approx((1 - e ** 2) / e, rel=1e-15)
    assert chi_for("carvalho-martins", e) == pytest.approx(
        3 * (1 - e) * (11 - e) / (2 * (1 + 9 * e)), rel=1e-15)
    assert chi_for("Hunt_Crossley", e) == chi_for("hunt-crossley", e)


@pytest.mark.parametrize("chi", [1e-9, 1e-6, 3e-5, 1e-3, 0.049, 0.051, 0.3, 0.999, 1.001, 4.0,
                                 30.0, 200.0])
def test_realised_restitution_closed_form_to_rounding(chi):
    """Lambert's W form with its small-chi refinement against 160-digit decimal bisection."""
    assert realised_restitution(chi) == pytest.approx(decimal_restitution(chi), rel=2e-15)


def test_realised_restitution_limit_and_monotone():
    assert realised_restitution(0.0) == 1.0
    chis = np.concatenate(([0.0], np.logspace(-10, 3, 400)))
    es = [realised_restitution(c) for c in chis]
    assert np.all(np.diff(es) < 0.0)
    assert es[1] == pytest.approx(1.0 - 2.0e-10 / 3.0, rel=1e-15)


@pytest.mark.parametrize("n", [1.0, 1.5, 2.0])
@pytest.mark.parametrize("e", [0.1, 0.5, 0.9])
def test_exact_damping_realises_the_restitution(n, e):
    """damping="exact" rebounds at e to 1e-9, whatever the impact speed, exponent, stiffness."""
    chi = chi_for("exact", e)
    for K, m, v0 in ((1e5, 2.0, 0.01), (3e9, 0.03, 5.0), (1e7, 0.5, 1.0)):
        run = impact(HYSTERETIC, np.array([K, n, chi]), m, v0)
        assert run["e"] == pytest.approx(e, rel=1e-9, abs=0.0), (K, m, v0)


def test_exact_chi_over_the_range():
    for e in np.concatenate((np.linspace(0.01, 0.99, 99), [1e-3, 0.999, 1 - 1e-6])):
        chi = chi_for("exact", e)
        assert realised_restitution(chi) == pytest.approx(e, rel=1e-13)
    for e in (1e-3, 0.05, 0.5, 0.95, 1 - 1e-6):
        assert decimal_restitution(chi_for("exact", e)) == pytest.approx(e, rel=1e-13)
    assert chi_for("exact", 1.0) == 0.0
    # near e = 1 the rule tends to Hunt and Crossley's (their form is its first order)
    assert chi_for("exact", 1 - 1e-6) == pytest.approx(1.5e-6, rel=1e-5)


def test_undamped_hertz_impact_against_johnson():
    """A steel ball (R = 10 mm) on a steel half-space at 1 m/s, elastic: duration, deepest
    penetration and largest force against Johnson's closed forms, to 1e-8."""
    E, nu, R, m, v = 210e9, 0.3, 0.01, 0.032882, 1.0
    E_star = E / (2.0 * (1.0 - nu ** 2))
    law = Hertz(E=E, nu=nu)
    K = law.stiffness(Sphere(R), Plane((0, 0, 0), (0, 0, 1)))
    assert K == pytest.approx(4.0 / 3.0 * E_star * math.sqrt(R), rel=1e-15)
    kind, numbers = normal_law(law, shape_a=Sphere(R), shape_b=Plane((0, 0, 0), (0, 0, 1)))
    assert kind == HYSTERETIC and numbers[2] == 0.0
    run = impact(kind, numbers, m, v)
    d_max = (15.0 * m * v ** 2 / (16.0 * E_star * math.sqrt(R))) ** 0.4
    assert run["d_max"] == pytest.approx(d_max, rel=1e-8)
    assert run["T"] == pytest.approx(2.943275184 * d_max / v, rel=1e-8)
    assert run["F_max"] == pytest.approx(K * d_max ** 1.5, rel=1e-8)
    assert run["e"] == pytest.approx(1.0, rel=1e-9)


def test_two_materials_and_radii():
    steel, alu = (210e9, 0.3), (70e9, 0.33)
    law = Hertz(E=steel[0], nu=steel[1], E2=alu[0], nu2=alu[1])
    E_star = 1.0 / ((1 - 0.3 ** 2) / 210e9 + (1 - 0.33 ** 2) / 70e9)
    assert law.effective_modulus() == pytest.approx(E_star, rel=1e-15)
    R = 1.0 / (1 / 0.01 + 1 / 0.03)
    assert law.stiffness(Sphere(0.01), Sphere(0.03)) == pytest.approx(
        4 / 3 * E_star * math.sqrt(R), rel=1e-15)
    assert Hertz(E=1e9, nu=0.3, radius=0.2).effective_radius() == 0.2
    assert Hertz(E=1e9, nu=0.3, E2=1e9).effective_modulus() == pytest.approx(
        Hertz(E=1e9, nu=0.3).effective_modulus(), rel=1e-15)


def test_normal_force_values_and_clamp():
    kind, numbers = normal_law(Hertz(K=1e6), restitution=0.5, damping="hunt-crossley")
    assert kind == HYSTERETIC and tuple(numbers) == (1e6, 1.5, 0.75)
    d, v0 = 1e-4, 2.0
    assert normal_force(kind, numbers, d, 0.3, v0) == pytest.approx(
        1e6 * d ** 1.5 * (1 + 0.75 * 0.3 / 2.0), rel=1e-15)
    assert normal_force(kind, numbers, d, -5.0, v0) == 0.0           # never pulls
    assert normal_force(kind, numbers, 0.0, 1.0, v0) == 0.0
    assert normal_force(kind, numbers, -1e-3, 1.0, v0) == 0.0
    assert normal_force(kind, numbers, d, 0.3, 0.0) == pytest.approx(1e6 * d ** 1.5)
    kind2, numbers2 = Hertz(K=10.0, exponent=2.0).pack()
    assert normal_force(kind2, numbers2, 0.1, 0.0, 1.0) == pytest.approx(0.1, rel=1e-15)
    kind3, numbers3 = normal_law(Linear(1e4, 20.0))
    assert kind3 == LINEAR
    assert normal_force(kind3, numbers3, 1e-3, 0.1, 1.0) == pytest.approx(10.0 + 2.0)
    assert normal_force(kind3, numbers3, 1e-3, -1.0, 1.0) == 0.0
    assert math.isnan(normal_force(99, numbers3, 1e-3, 0.0, 1.0))


def test_default_damping_is_exact():
    kind, numbers = normal_law(Hertz(K=1e6), restitution=0.8)
    assert numbers[2] == chi_for("exact", 0.8)
    assert numbers[2] == normal_law(Hertz(K=1e6), 0.8, "exact")[1][2]


@pytest.mark.parametrize("make, match", [
    (lambda: chi_for("stribeck", 0.5), "not a damping rule; the rules are 'exact', "
                                       "'hunt-crossley'"),
    (lambda: chi_for("exact", 0.0), r"restitution = 0.0 is invalid; it must be a finite number "
                                    r"> 0 and <= 1"),
    (lambda: chi_for("flores", 1.2), r"restitution = 1.2 is invalid"),
    (lambda: chi_for("gonthier", float("nan")), "restitution = nan is invalid"),
    (lambda: realised_restitution(-1.0), "chi = -1.0 is invalid; it must be a finite number >= 0"),
    (lambda: Hertz(E=210e9, nu=0.3, K=1e9), "give either K= or the materials"),
    (lambda: Hertz(), r"give the stiffness K= \(N/m\^n\) or the material"),
    (lambda: Hertz(E=210e9), "give the stiffness K="),
    (lambda: Hertz(E=-1.0, nu=0.3), r"Hertz: E = -1.0 is invalid; it must be a finite number > 0"),
    (lambda: Hertz(E=1e9, nu=0.7), r"Hertz: nu = 0.7 is invalid; .* > -1 and <= 0.5"),
    (lambda: Hertz(E=1e9, nu=0.3, nu2=0.2), "give its modulus E2= too"),
    (lambda: Hertz(E=1e9, nu=0.3, exponent=1.0), "exponent = 1 needs the stiffness K="),
    (lambda: Hertz(K=1e6, exponent=4.0), r"exponent = 4.0 is invalid"),
    (lambda: Hertz(K=0.0), r"Hertz: K = 0.0 is invalid"),
    (lambda: Hertz(E=1e9, nu=0.3, radius=0.0), r"Hertz: radius = 0.0 is invalid"),
    (lambda: Linear(-1.0, 0.0), r"Linear: k = -1.0 is invalid"),
    (lambda: Linear(1.0, -2.0), r"Linear: c = -2.0 is invalid; it must be a finite number >= 0"),
    (lambda: normal_law(Linear(1e4, 1.0), restitution=0.5), "damped by its c"),
    (lambda: normal_law(Hertz(K=1e6), damping="flores"), "give restitution="),
    (lambda: normal_law(Hertz(K=1e6), restitution=0.5, damping="HC"), "not a damping rule"),
    (lambda: normal_law("hertz"), "not a normal force law; use Hertz"),
    (lambda: normal_law(Hertz(K=1e6), 2.0, name="floor"), r"^contact 'floor': restitution = 2.0 "
                                                         "is invalid"),
])
def test_law_errors(make, match):
    with pytest.raises(ModelError, match=match):
        make()


def test_radius_errors():
    from nonsmooth.contact import Box, Circle, Hole
    law = Hertz(E=210e9, nu=0.3)
    with pytest.raises(ModelError, match=r"cannot be taken from shape_a = Box.*give radius="):
        law.stiffness(Box((1, 1, 1)), Plane((0, 0, 0), (0, 0, 1)))
    with pytest.raises(ModelError, match="no positive effective curvature"):
        law.stiffness(Plane((0, 0, 0), (0, 0, 1)), Plane((0, 0, 0), (0, 0, 1)))
    with pytest.raises(ModelError, match="no positive effective curvature"):
        law.stiffness(Circle(0.02), Hole(0.01))
    # a pin in a hole: the conformal radius R_pin R_hole / (R_hole - R_pin)
    R = law.effective_radius(Circle(0.0095), Hole(0.01))
    assert R == pytest.approx(0.0095 * 0.01 / 0.0005, rel=1e-12)
    assert Hertz(E=210e9, nu=0.3, radius=0.05).stiffness(Box((1, 1, 1)), None) > 0


def test_method_table_of_realised_restitutions():
    """The table of ``docs/method.md`` (section 18.4) is what the code computes."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "docs" / "method.md").read_text()
    section = text[text.index("### 18.4"):text.index("## References")]
    header = next(line for line in section.splitlines() if line.startswith("| asked e"))
    rules = [c.strip() for c in header.strip("|").split("|")[2:]]
    assert rules == list(DAMPING_RULES[1:])
    rows = [line for line in section.splitlines() if line.startswith("| 0.")]
    assert len(rows) == 10
    for line in rows:
        cells = [float(c) for c in line.strip("|").split("|")]
        e, chi, realised = cells[0], cells[1], cells[2:]
        assert chi == pytest.approx(chi_for("exact", e), abs=5e-7)
        for rule, value in zip(rules, realised, strict=True):
            assert value == pytest.approx(realised_restitution(chi_for(rule, e)), abs=5e-6)
