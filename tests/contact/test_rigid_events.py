"""Event-driven rigid contact (``simulate`` with an adaptive method on ``normal="rigid"``
contacts): impacts, closures and openings as events, against closed forms nobody here wrote --
Newton's bouncing ball and its accumulation time, Housner's rocking block, Painleve's rod,
a ball launched sliding that rolls at 5 v0 / 7 (Routh), a block on an incline -- and the
kinetic energy at every impact."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Box, Contact, Hertz, Plane, Sphere
from nonsmooth.contact.rigid import SLIDING, STICKING, acceleration_problem
from nonsmooth.errors import IntegrationError, ModelError
from nonsmooth.run.rigid_events import RigidFaceWarning
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

G = 9.81


def _ball(z0=1.0, *, R=0.01, e=0.9, mu=None, vx=0.0, m=1.0):
    """A ball of radius ``R`` whose centre starts ``z0`` above a rigid floor at ``z = -R``:
    its height is its gap."""
    mdl = SpatialModel("ball")
    ball = mdl.add(Body("ball", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, z0),
                        velocity=(vx, 0.0, 0.0)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0, 0, -R), (0, 0, 1)),
                    normal="rigid", restitution=e, mu=mu))
    mdl.add(Gravity(G))
    return mdl


def _kinetic(mdl, v):
    M = mdl.compile().terms(0.0, *mdl.initial_state()).M
    return 0.5 * float(v @ M @ v)


# ------------------------------------------------------------------- Newton's bouncing ball
@pytest.fixture(scope="module")
def bouncing():
    return nonsmooth.simulate(_ball(1.0), 10.0, dt=0.01)


def test_the_bouncing_balls_impacts_follow_the_geometric_series(bouncing):
    """From rest at q0 = 1 m with e = 0.9: the k-th impact at ``t1 + 2 v1 (e + ... + e^k) / g``
    with the speed ``v1 e^k`` (``t1 = sqrt(2 q0 / g)``, ``v1 = g t1``); each impulse ``m (1 + e)``
    times it (measured: times to 2e-14 s, speeds to 2e-14 m/s over the first 20)."""
    e, t1 = 0.9, math.sqrt(2.0 / G)
    v1 = G * t1
    impacts = bouncing.events.filter("floor", kind="impact")
    assert len(impacts) > 20
    for k, ev in enumerate(impacts[:20]):
        t_k = t1 + sum(2.0 * v1 * e ** j / G for j in range(1, k + 1))
        assert abs(ev.t - t_k) < 1e-12
        assert abs(ev.speed - v1 * e ** k) < 1e-12
        assert abs(ev.impulse - (1.0 + e) * v1 * e ** k) < 1e-12
        assert abs(ev.v_after[2] - e * v1 * e ** k) < 1e-12


def test_the_accumulation_of_impacts_is_passed_at_its_computed_time(bouncing):
    """The impacts accumulate at ``t_inf = t1 + 2 v1 e / (g (1 - e))`` (8.5789 s): the run
    computes it (to 1e-10; measured 1.3e-13), closes the contact there after fewer than 100
    events, and the ball rests on the floor to the end (gap, speed and normal force m g)."""
    e, t1 = 0.9, math.sqrt(2.0 / G)
    v1 = G * t1
    t_inf = t1 + 2.0 * v1 * e / (G * (1.0 - e))
    acc = bouncing.events.filter("floor", kind="accumulation")
    assert len(acc) == 1
    assert abs(acc[0].t - t_inf) < 1e-10
    assert len(bouncing.events) < 100
    rest = bouncing.t > t_inf + 1e-3
    assert np.max(np.abs(bouncing["floor.gap"][rest])) < 1e-9
    assert np.max(np.abs(bouncing["ball.vz"][rest])) < 1e-9
    np.testing.assert_allclose(bouncing["floor.N"][rest], G, rtol=1e-9)
    assert np.all(bouncing["floor.N"][bouncing.t < t1] == 0.0)  # in flight: no force


def test_no_impact_of_the_bouncing_ball_creates_energy(bouncing):
    mdl = _ball(1.0)
    for ev in bouncing.events.filter("floor", kind="impact"):
        assert _kinetic(mdl, ev.v_after) <= _kinetic(mdl, ev.v)


# ------------------------------------------------- compiled phases of flight, phases at rest
@pytest.mark.parametrize(("name", "t_end"), [("rigid_bouncing_ball", 3.0),
                                             ("slider_crank_stop", 1.0)])
def test_phases_of_flight_run_compiled_and_agree_with_the_python_phases(name, t_end,
                                                                        monkeypatch):
    """A phase in which every rigid contact is open (a ball's flight, a slider-crank's motion
    between its end stop's impacts) runs in the family's compiled DOP853 phase, its contacts'
    gaps as touch events; the same runs with scipy's DOP853 in every phase have the same
    events (to 1e-12 s) and states (to 1e-11; measured 8e-14 s, 3e-14 m, 6e-13 m/s)."""
    from nonsmooth import models
    from nonsmooth.run import phase
    from nonsmooth.run.rigid_events import RigidContactRun

    mdl = models.build(name)
    starts = []
    compiled_phase = phase._compiled_phase

    def counted(run, method, specs, *args, **kwargs):
        starts.append(args[1])  # (the phase's start time)
        assert all(spec[0] == "touch" for spec in specs)
        return compiled_phase(run, method, specs, *args, **kwargs)

    monkeypatch.setattr(phase, "_compiled_phase", counted)
    fast = nonsmooth.simulate(mdl, t_end)
    impacts = fast.events.filter(kind="impact")
    assert len(impacts) >= 2 and len(starts) >= len(impacts)
    monkeypatch.setattr(RigidContactRun, "_compiled_flight", lambda self, *args: None)
    starts.clear()
    slow = nonsmooth.simulate(mdl, t_end)
    assert not starts
    assert [(e.element, e.kind) for e in fast.events] == [(e.element, e.kind)
                                                           for e in slow.events]
    np.testing.assert_allclose([e.t for e in fast.events], [e.t for e in slow.events],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast.t, slow.t, rtol=0, atol=0)
    np.testing.assert_allclose(fast.q, slow.q, rtol=0, atol=1e-11)
    np.testing.assert_allclose(fast.v, slow.v, rtol=0, atol=1e-11)
    np.testing.assert_allclose(fast.T + fast.V, slow.T + slow.V, rtol=0, atol=1e-11)


def test_a_body_at_rest_is_not_stepped_and_is_where_steps_would_keep_it():
    """After its accumulation (0.30 s) the ball rests: the phase at rest of an autonomous
    model is taken whole, its state unchanged at every output, in one step; the same ball
    with a force given as a function of time (zero: the same motion), which is not
    autonomous, is stepped through it and is as still (to 1e-12 m and m/s)."""
    from nonsmooth.spatial import Force

    resting = nonsmooth.simulate(_ball(0.05, e=0.5), 1.0)
    mdl = _ball(0.05, e=0.5)
    mdl.add(Force("nothing", mdl.bodies[0], lambda t: (0.0, 0.0, 0.0)))
    assert _ball().compile().autonomous and not mdl.compile().autonomous
    stepped = nonsmooth.simulate(mdl, 1.0)
    (acc,) = resting.events.filter("floor", kind="accumulation")
    rest = resting.t > acc.t
    assert rest.sum() > 50
    assert np.ptp(resting.q[rest], axis=0).max() == 0.0
    assert np.ptp(resting.v[rest], axis=0).max() == 0.0
    np.testing.assert_allclose(stepped.q[rest], resting.q[rest], rtol=0, atol=1e-12)
    np.testing.assert_allclose(stepped.v[rest], resting.v[rest], rtol=0, atol=1e-12)
    assert resting.diagnostics["n_steps"] < stepped.diagnostics["n_steps"]


def test_a_corner_that_starts_a_phase_a_hair_inside_is_caught_within_a_micron():
    """A box thrown tumbling onto a rigid floor (mu 0.5, e 0.3; a fuzz case): after a run of
    accumulations one corner starts a phase 2e-8 m inside the floor and sinks. Its event
    function, zero at the phase's start, fired only at the end of a 3 ms step, 13 um deep;
    it now fires where the corner passes 1e3 times its tolerance (1 um). The gap never goes
    below -1e-6 m (measured -1.0e-6; -1.34e-5 before)."""
    mdl = SpatialModel("tumbling box")
    hx, hy, hz = 0.03635968994529805, 0.07623500471995265, 0.09520246983189481
    inertia = ((hy * hy + hz * hz) / 3.0, (hx * hx + hz * hz) / 3.0, (hx * hx + hy * hy) / 3.0)
    box = mdl.add(Body("box", 1.0, inertia, position=(0.0, 0.0, 0.36215735042430036),
                       orientation=(0.02969352593753197, 0.2174221789825946,
                                    -0.9176260485992573, 0.3313733929209934),
                       velocity=(-0.47982237990407084, -0.8343099213279848,
                                 0.13822287976049982),
                       angular_velocity=(1.4010897706987802, -0.8895349113655682,
                                         -2.1528116802016153)))
    mdl.add(Contact("floor", box, Box((hx, hy, hz)), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal="rigid", restitution=0.3, mu=0.5))
    mdl.add(Gravity(G))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RigidFaceWarning)
        r = nonsmooth.simulate(mdl, 0.86, dt=1e-3)
    assert r["floor.gap"].min() > -1.01e-6


# ---------------------------------------------------------------- Housner's rocking block
def _block(theta, *, b=0.1, h=0.4, d=0.05, m=2.0, mu=1.0):
    """A block of half-width ``b``, half-height ``h`` and half-depth ``d`` (m) resting on its
    edge ``x = +b`` tilted by ``theta`` (rad) about it, released at rest; the landing corners
    plastic (``e = 0``) and sticking."""
    mdl = SpatialModel("block")
    c, s = math.cos(theta), math.sin(theta)
    Ry = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    pos = -(Ry @ np.array([b, 0.0, -h]))
    inertia = (m / 3 * (d * d + h * h), m / 3 * (b * b + h * h), m / 3 * (b * b + d * d))
    block = mdl.add(Body("block", m, inertia, position=tuple(pos), orientation=Ry))
    mdl.add(Contact("floor", block, Box((b, d, h)), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal="rigid", restitution=0.0, mu=mu))
    mdl.add(Gravity(G))
    return mdl


def test_housners_rocking_block_loses_angular_velocity_by_his_factor():
    """Each impact of the rocking block multiplies its angular velocity by ``1 - 3/2
    sin^2(alpha)`` (Housner 1963; ``tan(alpha) = b / h``) to 1e-10 (measured 2e-13), the
    other edge lifting off; the angular velocity changes sign between impacts."""
    b, h = 0.1, 0.4
    alpha = math.atan(b / h)
    factor = 1.0 - 1.5 * math.sin(alpha) ** 2
    mdl = _block(0.5 * alpha)
    r = nonsmooth.simulate(mdl, 0.9, dt=1e-3)
    impacts = r.events.filter("floor", kind="impact")
    assert len(impacts) >= 2
    for ev in impacts:
        assert abs(ev.v_after[4] / ev.v[4] - factor) < 1e-10
        assert _kinetic(mdl, ev.v_after) <= _kinetic(mdl, ev.v)
    for a, b_ in zip(impacts, impacts[1:], strict=False):
        assert a.v_after[4] * b_.v[4] < 0.0


# ------------------------------------------------------------------------- Painleve's rod
TAN_2 = math.atan(2.0)


def _rod(mu, v0, *, theta=TAN_2, half=0.5, m=1.0, rho=1e-6, omega=0.0):
    """A uniform rod of length ``2 half`` (m) at ``theta`` to the floor, its lower end (a
    sphere of radius ``rho``) on the floor, sliding at ``v0`` (m/s) along x; turning at
    ``omega`` (rad/s) about y, its centre's vertical velocity such that the end's is zero."""
    mdl = SpatialModel("rod")
    c, s = math.cos(theta), math.sin(theta)
    phi = 0.5 * math.pi - theta
    Ry = np.array([[math.cos(phi), 0, math.sin(phi)], [0, 1, 0],
                   [-math.sin(phi), 0, math.cos(phi)]])
    centre = np.array([0.0, 0.0, rho]) + half * np.array([c, 0.0, s])
    inertia = m * (2 * half) ** 2 / 12
    w = np.array([0.0, omega, 0.0])
    vz = -np.cross(w, -half * np.array([c, 0.0, s]))[2]
    rod = mdl.add(Body("rod", m, (inertia, inertia, 1e-6 * inertia), position=tuple(centre),
                       orientation=Ry, velocity=(v0, 0.0, vz), angular_velocity=tuple(w)))
    mdl.add(Contact("tip", rod, Sphere(rho, position=(0, 0, -half)), ground,
                    Plane((0, 0, 0), (0, 0, 1)), normal="rigid", restitution=0.0, mu=mu))
    mdl.add(Gravity(G))
    return mdl


@pytest.mark.parametrize("v0", [1.0, -1.0])
def test_painleves_rod_slides_consistently_below_mu_four_thirds(v0):
    """At ``tan(theta) = 2`` the rod's problem has a unique solution for ``mu < 4/3`` whichever
    way it slides."""
    r = nonsmooth.simulate(_rod(1.3, v0), 0.02, throw=False)
    assert r.success, r.message


def test_painleves_rod_above_mu_four_thirds_is_diagnosed_not_guessed():
    """Above ``mu = 4/3`` (``mu > (1 + 3 cos^2) / (3 sin cos)``), sliding so that friction
    turns the rod into the floor, no contact force keeps the end on the floor and none lets it
    leave: the run stops with the contact, mu, the configuration and the reason, and the
    sliding point's normal response ``(1 + 3 cos^2 - 3 mu sin cos) / m`` that it names
    (-0.08 1/kg at mu = 1.4)."""
    mu, theta = 1.4, math.atan(2.0)
    response = 1.0 + 3 * math.cos(theta) ** 2 - 3 * mu * math.sin(theta) * math.cos(theta)
    with pytest.raises(IntegrationError) as info:
        nonsmooth.simulate(_rod(mu, -1.0), 0.02)
    text = str(info.value)
    assert "'tip'" in text and "mu = 1.4" in text and "inconsistent" in text
    assert "Painleve" in text and "q = [" in text
    assert f"[{response:.2f}]" in text


def test_painleves_rod_turning_fast_is_indeterminate_and_said_so():
    """Turning at 8 rad/s its end's free normal acceleration is upward (centripetal ``omega^2 l
    sin`` beats ``g``) while its normal response is negative (mu = 1.5): two solutions, leave
    the floor or stay on it pressed; the run stops and says so."""
    with pytest.raises(IntegrationError, match=r"'tip' has 2 solutions \(indeterminate"):
        nonsmooth.simulate(_rod(1.5, -1.0, omega=8.0), 0.02)


def test_the_acceleration_problem_counts_the_solutions_of_an_indeterminate_rod():
    """One sliding point whose normal response is negative and whose free normal acceleration
    is positive has two solutions (separate, or stay with ``lambda = -b / a``): reported as
    indeterminate with both counted."""
    # a coupled mass: the friction column W_N - mu s W_T = (1, 3) gives the normal response
    # a = W_N Mc^-1 (1, 3) = -1.7 / 0.19 < 0, and the free normal acceleration is b = 1 / 0.19
    Mc = np.array([[1.0, 0.9], [0.9, 1.0]])
    W_N = np.array([[1.0, 0.0]])
    W_T = np.array([[[0.0, 1.0], [0.0, 0.0]]])
    slip = np.array([[-1.0, 0.0]])
    sol = acceleration_problem(Mc, np.array([1.0, 0.0]), np.zeros((0, 2)), np.zeros(0), W_N,
                               W_T, np.zeros(1), np.zeros((1, 2)), np.array([3.0]),
                               np.array([SLIDING]), slip)
    assert not sol.success and sol.reason == "indeterminate" and sol.n_solutions == 2


def test_a_sticking_point_in_the_acceleration_problem_is_coulombs_closed_form():
    """A unit mass pressed by 10 N and pulled by 3 N along a tangent on a plane with mu = 0.5:
    it sticks (friction 3 N, normal 10 N); pulled by 6 N it slides, friction ``mu N`` = 5 N and
    acceleration 1 m/s^2 (the 4-facet and 8-facet cones are exact along a tangent axis)."""
    M = np.eye(3)
    W_N = np.array([[0.0, 0.0, 1.0]])
    W_T = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    for pull, stick in ((3.0, True), (6.0, False)):
        sol = acceleration_problem(M, np.array([pull, 0.0, -10.0]), np.zeros((0, 3)),
                                   np.zeros(0), W_N, W_T, np.zeros(1), np.zeros((1, 2)),
                                   np.array([0.5]), np.array([STICKING]), np.zeros((1, 2)))
        assert sol.success
        np.testing.assert_allclose(sol.lambda_N, [10.0], rtol=1e-12)
        assert bool(sol.sliding[0]) is not stick
        if stick:
            np.testing.assert_allclose(sol.lambda_T[0], [-3.0, 0.0], atol=1e-12)
            np.testing.assert_allclose(sol.a, 0.0, atol=1e-12)
        else:
            np.testing.assert_allclose(sol.lambda_T[0], [-5.0, 0.0], atol=1e-12)
            np.testing.assert_allclose(sol.a, [1.0, 0.0, 0.0], atol=1e-12)


# ------------------------------------------------------------------- friction in a phase
def test_a_ball_launched_sliding_rolls_at_five_sevenths_from_rouths_time():
    """A ball (J = 2/5 m R^2) launched at v0 without spin on a rigid floor with mu = 0.3:
    its centre decelerates by mu g while it slides; its contact point stops sliding at ``t* =
    2 v0 / (7 mu g)`` (an event, to 1e-9 s) and it rolls on at ``5 v0 / 7`` (to 1e-9)."""
    v0, mu, R = 2.0, 0.3, 0.05
    r = nonsmooth.simulate(_ball(0.0, R=R, e=0.0, mu=mu, vx=v0), 1.0, dt=1e-2)
    assert r.success, r.message
    t_star = 2.0 * v0 / (7.0 * mu * G)
    stops = [ev for ev in r.events if ev.kind == "velocity_zero"]
    assert len(stops) == 1 and abs(stops[0].t - t_star) < 1e-9
    sliding = r.t < t_star
    np.testing.assert_allclose(r["ball.vx"][sliding], v0 - mu * G * r.t[sliding], rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(r["ball.vx"][r.t > t_star], 5 * v0 / 7, rtol=0, atol=1e-9)
    assert np.max(np.abs(r["floor.gap"])) < 1e-9
    np.testing.assert_allclose(r["floor.N"], G, rtol=1e-9)


def _incline(slope, mu, *, a=0.1):
    """A cube of half-side ``a`` resting flat on a rigid plane through the origin inclined by
    ``slope`` (rad) about y: four corners touching."""
    mdl = SpatialModel("incline")
    c, s = math.cos(slope), math.sin(slope)
    Ry = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    n = Ry @ np.array([0.0, 0.0, 1.0])
    cube = mdl.add(Body("cube", 1.0, (2 * a * a / 3,) * 3, position=tuple(a * n),
                        orientation=Ry))
    mdl.add(Contact("plane", cube, Box((a, a, a)), ground, Plane((0, 0, 0), tuple(n)),
                    normal="rigid", restitution=0.0, mu=mu))
    mdl.add(Gravity(G))
    return mdl, n


@pytest.mark.parametrize("mu", [0.2, 0.8])
def test_a_cube_on_an_incline_sticks_or_slides_at_g_sin_minus_mu_g_cos(mu):
    """Four corners on a 30 degree incline: with mu = 0.8 > tan 30 it stays at rest (to
    1e-9 m); with mu = 0.2 it slides down the slope from rest with the acceleration ``g (sin -
    mu cos)`` (to 1e-9), its normal forces summing to ``m g cos``."""
    slope = math.radians(30.0)
    mdl, n = _incline(slope, mu)
    r = nonsmooth.simulate(mdl, 0.5, dt=0.05)
    assert r.success, r.message
    x = np.stack((r["cube.x"], r["cube.y"], r["cube.z"]), axis=1) - r.q[0, :3]
    down = np.array([math.cos(slope), 0.0, -math.sin(slope)])  # along the slope, downwards
    travel = x @ down
    expected = 0.0 if mu > math.tan(slope) else \
        0.5 * G * (math.sin(slope) - mu * math.cos(slope)) * r.t ** 2
    np.testing.assert_allclose(travel, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(x @ n, 0.0, atol=1e-9)
    np.testing.assert_allclose(r["plane.N"][1:], G * math.cos(slope), rtol=1e-9)


# --------------------------------------------------------------------------- named errors
def test_a_fixed_step_method_is_refused_for_rigid_contacts():
    with pytest.raises(ModelError, match=r"rigid contact\(s\) 'floor' need an adaptive "
                                         r"method .* or method \"MoreauJean\""):
        nonsmooth.simulate(_ball(1.0), 0.1, method="RK4", dt=1e-3)


def test_rigid_and_compliant_contacts_in_one_run_are_refused():
    mdl = _ball(1.0)
    ball = mdl.bodies[0] if hasattr(mdl, "bodies") else None
    other = mdl.add(Body("other", 1.0, (1e-4,) * 3, position=(1.0, 0.0, 1.0)))
    mdl.add(Contact("soft", other, Sphere(0.01), ground, Plane((0, 0, -0.01), (0, 0, 1)),
                    normal=Hertz(K=1e7)))
    del ball
    with pytest.raises(ModelError, match=r"rigid contacts and compliant contacts \('soft'\)"):
        nonsmooth.simulate(mdl, 0.1)


def test_an_initial_penetration_is_named():
    with pytest.raises(ModelError, match=r"initial state penetrates the rigid contact\(s\) "
                                         r"'floor' \(gap -0.005"):
        nonsmooth.simulate(_ball(-0.005), 0.1)


def test_user_events_in_a_run_of_rigid_contacts():
    """A user event on the ball's height (downward through 0.5 m) is located on each flight
    that passes it, at the time of the free fall's closed form (to 1e-12 s); as a terminal
    event its second occurrence ends the run there."""
    def half_metre(t, q, v):
        return q[2] - 0.5

    half_metre.direction = -1.0
    r = nonsmooth.simulate(_ball(1.0), 3.0, events=[half_metre])
    hits = r.events.filter("half_metre", kind="user")
    first = math.sqrt(2 * 0.5 / G)
    assert abs(hits[0].t - first) < 1e-12
    assert len(hits) == len(r.t_events["half_metre"]) >= 2
    half_metre.terminal = 2
    stopped = nonsmooth.simulate(_ball(1.0), 3.0, events=[half_metre])
    assert stopped.status == 1 and stopped.t[-1] <= hits[1].t + 1e-12
    assert abs(stopped.events.filter("half_metre", kind="user")[-1].t - hits[1].t) < 1e-12


@pytest.mark.parametrize("model", ["rocking_block", "rigid_bouncing_ball", "painleve_rod"])
def test_the_closed_form_bias_of_the_rows_is_their_rate_along_the_motion(model):
    """``rigid_contact_bias`` (a box's corners, a sphere at the body's origin or off it, on
    the ground's plane) against the
    rows' central differences along ``dq = qdot(q, v)`` at a random velocity, combined by
    Richardson's extrapolation (agreement measured 2e-13 relative)."""
    from nonsmooth import models

    mdl = models.build(model)
    system = mdl.system
    q, v = np.array(mdl.q0), np.random.default_rng(1).normal(size=6)
    dq = system.qdot(q, v)
    N, T = system.rigid_contact_bias(0.0, q, v)

    def central(h):
        (_, _, _, _, Np, Tp), = system.rigid_contact_rows(0.0, q + h * dq, math.inf)
        (_, _, _, _, Nm, Tm), = system.rigid_contact_rows(0.0, q - h * dq, math.inf)
        return (Np - Nm) @ v / (2 * h), np.einsum("kij,j->ki", Tp - Tm, v) / (2 * h)

    (n1, t1), (n2, t2) = central(1e-3), central(5e-4)
    scale = max(1.0, float(np.max(np.abs(N))))
    np.testing.assert_allclose(N, (4 * n2 - n1) / 3, rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(T, (4 * t2 - t1) / 3, rtol=0, atol=1e-11 * scale)


def test_a_scene_with_many_rigid_contacts_is_sent_to_moreau_jean():
    from nonsmooth.contact import contacts

    mdl = SpatialModel("pile")
    balls = {mdl.add(Body(f"b{i}", 1.0, (1e-4,) * 3, position=(0.03 * i, 0.0, 0.1))):
             Sphere(0.01) for i in range(21)}
    contacts(mdl, balls, normal="rigid")  # 210 pairs
    mdl.add(Gravity(G))
    with pytest.raises(ModelError, match=r"210 rigid contacts are more than an event-driven "
                                         r"run takes \(200.*method=\"MoreauJean\""):
        nonsmooth.simulate(mdl, 0.1)


def test_time_stops_restart_a_run_of_rigid_contacts_without_changing_it():
    """Time stops end a phase and start the next from the same state: the bouncing ball's
    impacts are the same to 1e-12 s with and without them."""
    plain = nonsmooth.simulate(_ball(1.0), 2.0)
    stopped = nonsmooth.simulate(_ball(1.0), 2.0, tstops=[0.3, 0.7, 1.1])
    a = [ev.t for ev in plain.events.filter("floor", kind="impact")]
    b = [ev.t for ev in stopped.events.filter("floor", kind="impact")]
    assert len(a) == len(b) >= 2
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_a_face_sliding_and_spinning_shares_its_load_by_least_norm_and_says_so():
    """A cube sliding and spinning flat on a rigid floor: its four corners slide in different
    directions, and rigid contact does not decide how they share the weight. The run says so
    once (``RigidFaceWarning``) and goes on with the least-norm sharing (equal by the cube's
    symmetry): the cube stays flat on the floor, its energy only falls, it slows down more
    slowly than the slide alone would (``mu g``: part of the friction turns the spin) and it
    comes to rest, sliding and spin stopped."""
    from nonsmooth.run.rigid_events import RigidFaceWarning

    a, mu, v0 = 0.05, 0.4, 1.0
    mdl = SpatialModel("spinning_cube")
    cube = mdl.add(Body("cube", 1.0, (2 * a * a / 3,) * 3, position=(0.0, 0.0, a),
                        velocity=(v0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 20.0)))
    mdl.add(Contact("floor", cube, Box((a, a, a)), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal="rigid", restitution=0.0, mu=mu))
    mdl.add(Gravity(G))
    with pytest.warns(RigidFaceWarning, match=r"4 points slide on 3 independent normal rows"):
        r = nonsmooth.simulate(mdl, 0.6, dt=0.01)
    assert r.success, r.message
    assert np.max(np.abs(r["floor.gap"])) < 1e-9
    assert np.max(np.diff(r.T + r.V)) < 1e-9
    assert r["cube.vx"][r.t <= v0 / (mu * G)][-1] > 0.05  # still sliding where mu g stops
    assert np.max(np.abs(r.v[-10:])) < 1e-9
    np.testing.assert_allclose(r["floor.N"], G, rtol=1e-9)
