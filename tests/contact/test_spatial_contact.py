"""A compliant contact in the spatial family (``nonsmooth.contact.Contact`` on a
``SpatialModel``), end to end through ``nonsmooth.simulate``: the steel ball of the contact
documentation against Johnson's Hertz impact (duration, force), the exact restitution of
``damping="exact"``, a ball settling at Hertz's static penetration, the outputs, the events and
the errors of a contact that cannot be made."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Box, Circle, Contact, Hertz, Linear, Plane, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.spatial import Body, Force, Gravity, SpatialModel, ground

M, R, J = 0.032882, 0.01, 1.315e-6  # kg, m, kg m^2: a steel ball
E, NU = 210e9, 0.3  # steel on steel


def _ball(z0: float, vz: float, *, gravity: bool, **contact) -> SpatialModel:
    mdl = SpatialModel("steel ball on a steel plate")
    ball = mdl.add(Body("ball", M, (J,) * 3, position=(0, 0, z0), velocity=(0, 0, vz)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(E=E, nu=NU), **contact))
    if gravity:
        mdl.add(Gravity())
    return mdl


def _stiffness() -> float:
    e_star = E / (2.0 * (1.0 - NU * NU))  # one material against itself
    return 4.0 / 3.0 * e_star * math.sqrt(R)  # a sphere on a plane: R the sphere's


def test_hertz_impact_lasts_johnsons_time_with_his_peak_force():
    v = 1.0
    r = nonsmooth.simulate(_ball(R + 1e-4, -v, gravity=False), 4e-4, rtol=1e-12, atol=1e-15,
                           t_eval=np.linspace(0.0, 4e-4, 4001))
    touch, leave = r.events.filter("floor", "touch"), r.events.filter("floor", "leave")
    assert len(touch) == len(leave) == 1
    K = _stiffness()
    d_max = (5.0 * M * v * v / (4.0 * K)) ** 0.4  # Johnson, Contact Mechanics, 11.4
    assert leave.t[0] - touch.t[0] == pytest.approx(2.943275184 * d_max / v, rel=1e-8)
    assert -leave[0].speed == pytest.approx(v, rel=1e-9)  # elastic
    # the outputs on the grid: the deepest sample within (1e-7 s of) the maximum
    assert -r["floor.gap"].min() == pytest.approx(d_max, rel=1e-5)
    assert r["floor.N"].max() == pytest.approx(K * d_max ** 1.5, rel=1e-4)
    assert np.allclose(r["floor.Fz"], r["floor.N"]) and np.all(r["floor.N"] >= 0.0)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-9


@pytest.mark.parametrize("e, v", [(0.8, 1.0), (0.3, 0.05), (0.95, 3.0)])
def test_exact_damping_realises_the_restitution_asked(e, v):
    r = nonsmooth.simulate(_ball(R + 1e-5, -v, gravity=False, restitution=e), 3e-3,
                           rtol=1e-12, atol=1e-15)
    touch, leave = r.events.filter("floor", "touch"), r.events.filter("floor", "leave")
    assert len(touch) == len(leave) == 1
    assert -leave[0].speed / touch[0].speed == pytest.approx(e, rel=1e-9)
    assert r["floor.impact_speed"][-1] == pytest.approx(v, rel=1e-9)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_a_dropped_ball_bounces_then_rests_at_hertz_static_penetration():
    r = nonsmooth.simulate(_ball(R + 2e-3, 0.0, gravity=True, restitution=0.5), 0.3)
    touches = r.events.filter("floor", "touch")
    assert len(touches) >= 2
    assert touches[0].speed == pytest.approx(math.sqrt(2 * 9.81 * 2e-3), rel=1e-8)
    # the second impact: e times the first, less at most the impulse of gravity during the
    # contact (g times its duration)
    first = r.events.filter("floor", ("touch", "leave"))
    duration = first.t[1] - first.t[0]
    assert 0.5 * touches[0].speed - 9.81 * duration < touches[1].speed < 0.5 * touches[0].speed
    d_static = (M * 9.81 / _stiffness()) ** (2.0 / 3.0)
    assert -r["floor.gap"][-1] == pytest.approx(d_static, rel=1e-6)
    assert r["floor.N"][-1] == pytest.approx(M * 9.81, rel=1e-6)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-6


def test_contact_errors_name_the_contact_and_what_to_do():
    ball = Body("ball", M, (J,) * 3)
    with pytest.raises(ModelError, match="contact 'c'.*no closed-form geometry.*Box"):
        Contact("c", ball, Box((1, 1, 1)), ground, Box((1, 1, 1)), normal=Hertz(K=1e6))
    with pytest.raises(ModelError, match="contact 'c'.*Linear"):
        Contact("c", ball, Sphere(R), ground, Plane((0, 0, 0), (0, 0, 1)),
                normal=Linear(1e5, 10.0), restitution=0.5)
    with pytest.raises(ModelError, match="contact 'c'.*same body"):
        Contact("c", ball, Sphere(R), ball, Sphere(R), normal=Hertz(K=1e6))
    mdl = SpatialModel("m")
    mdl.add(ball)
    with pytest.raises(ModelError, match="planar"):
        mdl.add(Contact("c", ball, Circle(R), ground, Circle(2 * R), normal=Hertz(K=1e6)))
    with pytest.raises(ModelError, match="name"):
        mdl.add(Contact("ball", ball, Sphere(R), ground, Plane((0, 0, 0), (0, 0, 1)),
                        normal=Hertz(K=1e6)))


def _sliding_ball(v0: float, mu: float, mu_s: float, slope: float = 0.0) -> SpatialModel:
    """A 0.1 m steel-stiff ball of 1 kg resting (at Hertz's static penetration) on a plane
    inclined by ``slope`` (rad, about y; down the slope is +x), launched at ``v0`` (m/s) along
    +x without spin."""
    m, r = 1.0, 0.1
    K = 4.0 / 3.0 * E / (2.0 * (1.0 - NU * NU)) * math.sqrt(r)
    d = (m * 9.81 * math.cos(slope) / K) ** (2.0 / 3.0)
    n = np.array([math.sin(slope), 0.0, math.cos(slope)])  # the plane's normal
    mdl = SpatialModel("ball on a plane")
    ball = mdl.add(Body("ball", m, (0.4 * m * r * r,) * 3, position=(r - d) * n,
                        velocity=(v0 * math.cos(slope), 0.0, -v0 * math.sin(slope))))
    mdl.add(Contact("floor", ball, Sphere(r), ground, Plane((0, 0, 0), n),
                    normal=Hertz(E=E, nu=NU), restitution=0.5, mu=mu, mu_s=mu_s))
    mdl.add(Gravity())
    return mdl


def test_a_ball_launched_sliding_rolls_from_the_closed_form_time_at_five_sevenths():
    v0, mu, g = 2.0, 0.2, 9.81
    r = nonsmooth.simulate(_sliding_ball(v0, mu, 0.3), 0.35)
    stick = r.events.filter("floor", "stick")
    assert len(stick) == 1  # sliding stops once: it rolls (the contact point at rest)
    assert stick.t[0] == pytest.approx(2.0 * v0 / (7.0 * mu * g), rel=1e-5)  # (compliance)
    assert r["ball.vx"][-1] == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)
    assert r["ball.wy"][-1] * 0.1 == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)  # v = w R
    # while it slides, the friction on the ball is mu N against its slip (-x); rolling, none
    sliding, rolling = r.t < 0.99 * stick.t[0], r.t > 1.01 * stick.t[0]
    assert np.allclose(r["floor.Fx"][sliding], -mu * r["floor.N"][sliding], rtol=1e-9)
    assert np.allclose(r["floor.Fx"][rolling], 0.0, atol=1e-7)  # (1e-8 of N)
    assert np.allclose(r["floor.Fz"], r["floor.N"], rtol=1e-12)
    assert r.diagnostics["energy_balance_scaled"] < 1e-6


@pytest.mark.parametrize("mu_s, rolls", [(0.5, True), (0.05, False)])
def test_a_ball_on_an_incline_rolls_without_slip_or_slides_by_coulomb(mu_s, rolls):
    slope, g, t_end = math.radians(20.0), 9.81, 0.3
    r = nonsmooth.simulate(_sliding_ball(0.0, mu_s, mu_s, slope), t_end)
    down = r["ball.x"] * math.cos(slope) - r["ball.z"] * math.sin(slope)  # along the slope
    s = down[-1] - down[0]
    if rolls:  # rolling needs mu_s >= 2/7 tan(slope) = 0.104: a = 5/7 g sin(slope)
        assert s == pytest.approx(0.5 * 5.0 / 7.0 * g * math.sin(slope) * t_end ** 2, rel=1e-6)
    else:  # slides: a = g (sin - mu cos), the spin from mu N R / J
        assert s == pytest.approx(0.5 * g * (math.sin(slope) - mu_s * math.cos(slope))
                                  * t_end ** 2, rel=1e-6)


def test_a_box_sliding_down_an_incline_stops_at_its_closed_form_time_and_stays_without_creep():
    """Coulomb friction with exact stick at the centre of pressure of the box's four corners:
    it decelerates at ``g (mu cos a - sin a)``, sticks when its velocity reaches zero (at
    ``v0 / (g (mu cos a - sin a))``) and then holds: its position does not change (no creep, as
    compliant-friction engines have by design)."""
    m, h, g, mu, mu_s, v0, k = 1.0, 0.05, 9.81, 0.4, 0.5, 1.0, 1e5
    slope = math.radians(15.0)
    c, s = math.cos(slope), math.sin(slope)
    n = np.array([s, 0.0, c])
    rest = m * g * c / (4.0 * k)  # each corner's compression at rest
    mdl = SpatialModel("box on an incline")
    box = mdl.add(Body("box", m, (m * (2 * h) ** 2 / 6.0,) * 3, position=(h - rest) * n,
                       orientation=np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]),
                       velocity=(v0 * c, 0.0, -v0 * s)))
    mdl.add(Contact("slope", box, Box((h, h, h)), ground, Plane((0, 0, 0), n),
                    normal=Linear(k, math.sqrt(k * m / 4.0)), mu=mu, mu_s=mu_s))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 2.5)
    stick = r.events.filter("slope", "stick")
    assert len(stick) == 1
    assert stick.t[0] == pytest.approx(v0 / (g * (mu * c - s)), rel=1e-9)
    down = r["box.x"] * c - r["box.z"] * s
    held = r.t >= 1.5  # (after the normal transient of the stop has decayed)
    assert abs(down[held][-1] - down[held][0]) < 1e-12
    assert r.events.filter("slope", ("velocity_zero", "reserve_zero")).t.size == 1


def _resting_ball(slope: float = 0.0, v0: float = 0.0, spin: float = 0.0, **contact):
    """A 1 kg ball of radius 0.1 m resting (at its static penetration) on a plane inclined by
    ``slope`` (about y), rolling down it at ``v0`` (m/s, w = v0 / R), spinning at ``spin``
    (rad/s) about the normal; a soft Hertz contact (K = 1e7 N/m^1.5, e = 0.5)."""
    m, r, K = 1.0, 0.1, 1e7
    c, s = math.cos(slope), math.sin(slope)
    d = (m * 9.81 * c / K) ** (2.0 / 3.0)
    n = np.array([s, 0.0, c])
    mdl = SpatialModel("ball resting on a plane")
    ball = mdl.add(Body("ball", m, (0.4 * m * r * r,) * 3, position=(r - d) * n,
                        velocity=(v0 * c, 0.0, -v0 * s),
                        angular_velocity=tuple(spin * n + np.array([0.0, v0 / r, 0.0]))))
    mdl.add(Contact("floor", ball, Sphere(r), ground, Plane((0, 0, 0), n),
                    normal=Hertz(K=K), restitution=0.5, **contact))
    mdl.add(Gravity())
    return mdl


def test_spin_friction_stops_a_spinning_ball_at_its_closed_form_time_and_holds_it():
    w0, mu, r_t, g = 10.0, 0.3, 0.01, 9.81
    J = 0.4 * 1.0 * 0.1 ** 2
    r = nonsmooth.simulate(_resting_ball(spin=w0, mu=mu, torsion_radius=r_t), 1.6)
    stops = r.events.filter("floor.spin", "stick")
    assert len(stops) == 1
    assert stops.t[0] == pytest.approx(w0 * J / (mu * r_t * 1.0 * g), rel=1e-6)
    after = r.t > stops.t[0] + 0.01
    assert np.allclose(r["ball.wz_world"][after], 0.0, atol=1e-12)
    assert np.allclose(r["floor.spin_torque"][r.t < 0.9 * stops.t[0]],
                       mu * r_t * r["floor.N"][r.t < 0.9 * stops.t[0]], rtol=1e-9)


def test_rolling_resistance_decelerates_a_rolling_ball_at_five_sevenths_eta_g_over_r():
    v0, eta, g, R = 0.5, 0.002, 9.81, 0.1
    decel = 5.0 * eta * g / (7.0 * R)  # a solid sphere rolling without slip
    r = nonsmooth.simulate(_resting_ball(v0=v0, mu=0.5, rolling_arm=eta), 0.3)
    # it rolls: the sliding pair sticks throughout (after the first microseconds: the contact
    # point is midway in the penetration, a material point turning at w (R - d/2))
    assert np.all(r.events.filter("floor", ("velocity_zero", "reserve_zero")).t < 1e-4)
    assert r["floor.mode"][-1] == 0.0
    later = r.t > 0.01  # (after the first slip: the speed then falls linearly)
    slope, _ = np.polyfit(r.t[later], r["ball.vx"][later], 1)
    assert -slope == pytest.approx(decel, rel=1e-3)  # (to the compliance: d / R ~ 1e-3)
    assert np.ptp(r["ball.vx"][later] - slope * r.t[later]) < 1e-9  # (uniform)


@pytest.mark.parametrize("eta, holds", [(0.02, True), (0.01, False)])
def test_rolling_resistance_holds_a_ball_on_a_slope_iff_tan_alpha_below_eta_over_r(eta, holds):
    slope = math.atan(0.15)  # eta / R = 0.2 holds it, 0.1 does not
    r = nonsmooth.simulate(_resting_ball(slope=slope, mu=0.5, rolling_arm=eta), 0.3)
    moved = math.hypot(r["ball.x"][-1] - r["ball.x"][0], r["ball.z"][-1] - r["ball.z"][0])
    if holds:
        assert moved < 1e-9  # (the normal transient only: no creep)
    else:  # rolling against eta N: a = 5/7 g (sin - eta/R cos)
        a = 5.0 / 7.0 * 9.81 * (math.sin(slope) - eta / 0.1 * math.cos(slope))
        assert moved == pytest.approx(0.5 * a * 0.3 ** 2, rel=2e-3)  # (compliance d/R)


def test_the_compiled_contacts_are_the_python_reference():
    """``kernels.spatial_contact_terms`` (one compiled call) against the Python reference
    (``spatial.contact``, ``compiled_contacts = False``) at random penetrating states: a ball
    on a plane with sliding, spin and rolling friction, two balls, a box on a plane (several
    points: its friction at the centre of pressure)."""
    rng = np.random.default_rng(5)
    mdl = SpatialModel("scene")
    a = mdl.add(Body("a", 1.0, (0.01, 0.02, 0.03), position=(0, 0, 0.099)))
    b = mdl.add(Body("b", 2.0, (0.02, 0.02, 0.01), position=(0.198, 0.01, 0.1)))
    box = mdl.add(Body("box", 3.0, (0.05, 0.04, 0.03), position=(1, 0, 0.0995)))
    floor = Plane((0, 0, 0), (0, 0, 1))
    mdl.add(Contact("af", a, Sphere(0.1), ground, floor, normal=Hertz(K=1e7), restitution=0.6,
                    mu=0.3, torsion_radius=0.01, rolling_arm=0.002))
    mdl.add(Contact("ab", a, Sphere(0.1), b, Sphere(0.1), normal=Linear(1e5, 30.0), mu=0.2))
    mdl.add(Contact("boxf", box, Box((0.1, 0.2, 0.1)), ground, floor, normal=Hertz(K=1e8),
                    restitution=0.5, mu=0.4, mu_s=0.5, rolling_arm=0.001))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    for _ in range(5):
        q = q0 + rng.normal(scale=2e-3, size=q0.size)
        v = rng.normal(size=v0.size)
        impact = rng.uniform(0.0, 2.0, size=3)
        system.compiled_contacts = True
        got = (system.contact_forces(0.0, q, v, impact), system.contact_gaps(0.0, q),
               system.contact_approach(0.0, q, v), system.terms(0.0, q, v).W,
               system.tangential_bias(0.0, q, v))
        system.compiled_contacts = False
        want = (system.contact_forces(0.0, q, v, impact), system.contact_gaps(0.0, q),
                system.contact_approach(0.0, q, v), system.terms(0.0, q, v).W,
                system.tangential_bias(0.0, q, v))
        (f1, P1, N1), (f2, P2, N2) = got[0], want[0]
        assert np.allclose(f1, f2, rtol=1e-12, atol=1e-9) and np.allclose(N1, N2, rtol=1e-12)
        assert P1 == pytest.approx(P2, rel=1e-12, abs=1e-12)
        assert np.any(N1 > 0.0)
        for x, y in zip(got[1:4], want[1:4], strict=True):
            assert np.allclose(x, y, rtol=1e-10, atol=1e-10)
        # the bias: a central difference of W (step 1e-7 of the motion's time scale) in both
        assert np.allclose(got[4], want[4], rtol=1e-6, atol=1e-6)


def test_an_open_contact_has_no_friction_and_a_leaving_one_lets_go():
    """A ball above a plane pushed sideways (its friction pair, without load, slips: the run does
    not stall at a stick it cannot hold), one whose sideways motion reverses in flight (no event,
    no redo: an open contact's slip is never inconsistent), and a ball stuck on a plane lifted
    straight up (its
    reserve and its normal force vanish together: it leaves, without chattering)."""
    K = 1e7
    mdl = SpatialModel("pushed above the floor")
    ball = mdl.add(Body("ball", 1.0, (0.004,) * 3, position=(0, 0, 0.11)))
    mdl.add(Contact("floor", ball, Sphere(0.1), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(K=K), restitution=0.5, mu=0.3, mu_s=0.4))
    mdl.add(Gravity())
    mdl.add(Force("push", ball, lambda t: (t, 0.0, 0.0)))
    r = nonsmooth.simulate(mdl, 0.1)
    first = r.events.filter("floor")
    assert first[0].kind == "start" and first[0].after == "slip"  # (no load: no stick)
    touch = r.events.filter("floor", "touch").t[0]
    assert touch == pytest.approx(math.sqrt(2 * 0.01 / 9.81), rel=1e-9)  # free fall
    flight = r.t < touch
    assert np.allclose(r["ball.vx"][flight], 0.5 * r.t[flight] ** 2, rtol=1e-9, atol=1e-15)
    mdl = SpatialModel("turning back above the floor")  # its slip reverses in flight
    ball = mdl.add(Body("ball", 1.0, (0.004,) * 3, position=(0, 0, 0.149),
                        velocity=(0.05, 0.0, 0.0)))
    mdl.add(Contact("floor", ball, Sphere(0.1), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(K=K), restitution=0.5, mu=0.3, mu_s=0.4))
    mdl.add(Gravity())
    mdl.add(Force("brake", ball, (-1.0, 0.0, 0.0)))
    r = nonsmooth.simulate(mdl, 0.12)
    touch = r.events.filter("floor", "touch").t[0]
    assert touch == pytest.approx(math.sqrt(2 * 0.049 / 9.81), rel=1e-9)
    flight = r.t < touch
    assert np.allclose(r["ball.vx"][flight], 0.05 - r.t[flight], rtol=0, atol=1e-12)
    d = (9.81 / K) ** (2.0 / 3.0)
    mdl = SpatialModel("lifted off the floor")
    ball = mdl.add(Body("ball", 1.0, (0.004,) * 3, position=(0, 0, 0.1 - d)))
    mdl.add(Contact("floor", ball, Sphere(0.1), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(K=K), restitution=0.5, mu=0.3, mu_s=0.4))
    mdl.add(Gravity())
    mdl.add(Force("lift", ball, lambda t: (0.0, 0.0, 2.0 * 9.81 * t)))
    r = nonsmooth.simulate(mdl, 0.7)
    leave = r.events.filter("floor", "leave")
    assert len(leave) == 1 and 0.5 < leave.t[0] < 0.52  # (the lift equals m g at 0.5 s)
    assert len(r.events.filter("floor")) <= 5


@pytest.mark.parametrize("law", ["lugre", "regularized", "bristle"])
def test_every_friction_law_at_a_contact_ends_a_launched_ball_rolling_at_five_sevenths(law):
    """The smooth laws at a contact (``simulate(friction=law)``): whatever the law, the ball's
    angular momentum about the contact point is conserved, so sliding ends at ``5 v0 / 7``; while
    it slides fast, the friction is ``mu N`` (LuGre's ``mu N + sigma2 v``)."""
    import warnings

    v0, mu = 2.0, 0.2
    with warnings.catch_warnings():  # (MotionSolve's LuGre defaults: not dissipative)
        warnings.simplefilter("ignore", RuntimeWarning)
        r = nonsmooth.simulate(_sliding_ball(v0, mu, 0.3), 0.35, friction=law)
    assert r.laws == [law]
    assert r["ball.vx"][-1] == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)
    assert r["ball.wy"][-1] * 0.1 == pytest.approx(5.0 * v0 / 7.0, rel=1e-5)
    fast = r["floor.slip"] > 0.5
    excess = r["floor.friction"][fast] - mu * r["floor.N"][fast]
    if law == "lugre":  # its steady state: mu N + sigma2 v (the viscous term, N s/m)
        sigma2 = excess / r["floor.slip"][fast]
        assert sigma2.min() > 0.0 and np.ptp(sigma2) < 1e-3 * sigma2.max()
    else:
        assert np.allclose(excess, 0.0, atol=1e-3 * mu * 9.81)


def test_the_bristle_law_at_a_contact_takes_the_contact_force_as_its_load():
    """Gonthier's bristle law at a contact (``law="bristle"``): its presliding stiffness is
    ``sigma0 N`` with ``N`` the contact's normal force, so a box pushed sideways by a force
    ``F`` well below breakaway settles about ``F / (sigma0 N)`` away (more by the slip the
    bristle's hysteresis lets through while it settles), and twice the mass pushed twice as
    hard settles as far (the displacement depends on ``F / N`` only; with a stiffness that does
    not scale with the load it would double)."""
    sigma0 = 2e4  # 1/m
    moved = []
    for m in (1.0, 2.0):
        F = 0.01 * m * 9.81  # N
        mdl = SpatialModel("box pushed on a plane")
        K = 1e8  # N/m^1.5 per corner
        d = (m * 9.81 / 4.0 / K) ** (2.0 / 3.0)
        box = mdl.add(Body("box", m, (0.01, 0.01, 0.01), position=(0, 0, 0.05 - d)))
        mdl.add(Contact("floor", box, Box((0.05, 0.05, 0.05)), ground,
                        Plane((0, 0, 0), (0, 0, 1)), normal=Hertz(K=K), restitution=0.5,
                        mu=0.3, mu_s=0.4, law="bristle",
                        friction_params={"sigma0": sigma0, "sigma1": 20.0, "v_s": 1e-3,
                                         "tau_dw": 0.05}))
        mdl.add(Gravity())
        mdl.add(Force("push", box, (F, 0.0, 0.0), point=(0.0, 0.0, 0.0)))  # at the floor
        r = nonsmooth.simulate(mdl, 0.2)
        x = r["box.x"]
        assert abs(x[-1] - x[-30]) < 1e-4 * abs(x[-1])  # settled
        assert r["floor.N"][-1] == pytest.approx(m * 9.81, rel=1e-6)
        moved.append(x[-1])
        assert x[-1] == pytest.approx(F / (sigma0 * m * 9.81), rel=0.1)
    assert moved[0] == pytest.approx(moved[1], rel=1e-3)
