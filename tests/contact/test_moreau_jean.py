"""Rigid contacts under Moreau-Jean time-stepping (``simulate(method="MoreauJean")``): Siconos'
``BouncingBallTS`` set-up against the scheme written out here in a few lines of numpy (its
equations: docs/design/moreau_jean.md), the impulses' energy, simultaneous impacts (a box
landing flat), Coulomb friction (a ball launched sliding rolls at 5 v0 / 7), a pinned arm
landing on the floor (the joint as an equality of the step's problem), and the named errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Box, Contact, Hertz, Plane, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.run.methods import moreau_jean
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, ground

G = 9.81


def _siconos_bouncing_ball(q0=1.0, v0=0.0, m=1.0, g=G, e=0.9, h=0.005, theta=0.5, t_end=10.0):
    """Siconos' BouncingBallTS scheme for a point mass whose gap is its height ``q``: free
    velocity ``v + h f / m``; the contact active when ``q + h v / 2 <= 0``; then the impulse
    ``P = max(0, -m (v_free + e v))`` (Newton: ``v+ + e v >= 0 _|_ P >= 0``); ``q += h (theta
    v+ + (1 - theta) v)``. Returns the heights, velocities and impulses at ``k h``."""
    n = int(round(t_end / h))
    q, v = q0, v0
    Q, V, P = [q], [v], [0.0]
    for _ in range(n):
        v_free = v + h * (-m * g) / m
        p = max(0.0, -m * (v_free + e * v)) if q + 0.5 * h * v <= 0.0 else 0.0
        v_new = v_free + p / m
        q = q + h * (theta * v_new + (1.0 - theta) * v)
        v = v_new
        Q.append(q)
        V.append(v)
        P.append(p)
    return np.array(Q), np.array(V), np.array(P)


def _ball(z0: float, *, R: float = 0.01, e: float = 0.9, mu=None, vx: float = 0.0,
          floor: float = 0.0) -> SpatialModel:
    """A 1 kg ball of radius ``R`` at height ``z0`` above a rigid floor at ``floor`` (m)."""
    mdl = SpatialModel("ball")
    ball = mdl.add(Body("ball", 1.0, (0.4 * R * R,) * 3, position=(0.0, 0.0, z0),
                        velocity=(vx, 0.0, 0.0)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0, 0, floor), (0, 0, 1)),
                    normal="rigid", restitution=e, mu=mu))
    mdl.add(Gravity(G))
    return mdl


def test_bouncing_ball_ts_is_siconos_scheme_to_rounding():
    """Siconos' BouncingBallTS (m = 1 kg, q0 = 1 m at rest, g = 9.81, e = 0.9, h = 0.005 s,
    theta = 0.5, 0-10 s): a small sphere on a plane lowered by its radius, so that its height
    is its gap, follows the scheme's 2001 heights, velocities and impulses to rounding
    (measured: 2.5e-15 m, 2.2e-14 m/s, 2.7e-14 N s) with the same 345 impulse steps."""
    R = 0.01
    r = nonsmooth.simulate(_ball(1.0, R=R, floor=-R), 10.0, method="MoreauJean", dt=0.005)
    Q, V, P = _siconos_bouncing_ball()
    assert r.success and r.t.size == Q.size == 2001
    np.testing.assert_allclose(r.t, 0.005 * np.arange(2001), rtol=0, atol=1e-12)
    assert np.max(np.abs(r["ball.z"] - Q)) < 1e-13
    assert np.max(np.abs(r["floor.gap"] - Q)) < 1e-13
    assert np.max(np.abs(r["ball.vz"] - V)) < 1e-13
    assert np.max(np.abs(r["floor.impulse"] - P)) < 1e-13
    assert np.array_equal(r["floor.impulse"] > 0, P > 0) and (P > 0).sum() == 345
    np.testing.assert_allclose(r["floor.N"], r["floor.impulse"] / 0.005, rtol=1e-15)
    # the other coordinates stay at rest; the balance of the impulses' work is exact here
    assert np.max(np.abs(r.v[:, [0, 1, 3, 4, 5]])) == 0.0
    assert r.diagnostics["energy_balance_scaled"] < 1e-12


def test_theta_is_the_position_update_weight():
    """theta = 1 (implicit Euler positions) is the same scheme with theta = 1: the reference
    follows, and differs from theta = 0.5; its numerical damping (-g^2 h^2 / 2 per free step)
    is no force's work, so the run warns of its energy balance."""
    R = 0.01
    with pytest.warns(RuntimeWarning, match="energy balance error"):  # its numerical damping
        r = nonsmooth.simulate(_ball(1.0, R=R, floor=-R), 2.0, method=moreau_jean(theta=1.0),
                               dt=0.005)
    Q, V, _ = _siconos_bouncing_ball(theta=1.0, t_end=2.0)
    assert np.max(np.abs(r["ball.z"] - Q)) < 1e-13
    assert np.max(np.abs(r["ball.vz"] - V)) < 1e-13
    Q_half = _siconos_bouncing_ball(theta=0.5, t_end=2.0)[0]
    assert np.max(np.abs(Q - Q_half)) > 1e-3


def _free_velocity(r, k: int) -> np.ndarray:
    """The step k -> k + 1's velocity without contact impulses, ``v_k + h M^-1 f`` with the
    forces at ``(t_k + h / 2, q_k, v_k)`` (no joints here)."""
    h = r.t[k + 1] - r.t[k]
    T = r.system.terms(r.t[k] + 0.5 * h, r.q[k], r.v[k])
    return r.v[k] + h * np.linalg.solve(T.M, T.f)


@pytest.mark.parametrize("scene", ["ball", "box"])
def test_an_impulse_never_creates_kinetic_energy(scene):
    """At every step with an impulse (restitution <= 1, friction) the kinetic energy after it
    is at most the free flight's, ``T(v_{k+1}) <= T(v_free)``; and the mechanical energy never
    rises from one bounce to the next. (The step's ``T + V`` itself may rise by a hair where
    Siconos' rule activates a contact already separating: up to 2.7e-7 J of 9.81 J for the
    bouncing ball.)"""
    if scene == "ball":
        r = nonsmooth.simulate(_ball(1.0, e=0.9, mu=0.3, vx=0.5), 10.0, method="MoreauJean",
                               dt=0.005)
    else:
        r = nonsmooth.simulate(_box(0.2, e=0.6, mu=0.4, vx=0.4, spin=3.0), 1.0,
                               method="MoreauJean", dt=1e-3)
    P = r["floor.impulse"]
    steps = np.flatnonzero(P[1:] > 0)
    assert steps.size > 20
    M = r.system.terms(0.0, r.q[0], r.v[0]).M
    for k in steps:
        v_free = _free_velocity(r, k)
        T_free = 0.5 * v_free @ M @ v_free
        assert 0.5 * r.v[k + 1] @ M @ r.v[k + 1] <= T_free * (1 + 1e-12) + 1e-15, (scene, k)
    E = r.T + r.V
    assert E[-1] < E[0]
    apex = [k for k in range(1, E.size - 1) if r["floor.impulse"][k] == 0.0
            and r.v[k - 1, 2] > 0.0 >= r.v[k, 2]]  # the rising ball turning down
    assert all(E[b] <= E[a] + 1e-12 for a, b in zip(apex, apex[1:], strict=False))


def _box(drop: float, *, a: float = 0.1, m: float = 2.0, e: float = 0.5, mu=0.4,
         vx: float = 0.0, spin: float = 0.0) -> SpatialModel:
    """A cube of half-side ``a`` and mass ``m`` held flat ``drop`` (m) above a rigid floor."""
    mdl = SpatialModel("box")
    box = mdl.add(Body("box", m, (m * (2 * a) ** 2 / 6.0,) * 3, position=(0, 0, a + drop),
                       velocity=(vx, 0, 0), angular_velocity=(0, 0, spin)))
    mdl.add(Contact("floor", box, Box((a, a, a)), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal="rigid", restitution=e, mu=mu))
    mdl.add(Gravity(G))
    return mdl


def test_a_box_landing_flat_on_four_corners_comes_to_rest_without_drift():
    """Four corners touch at once (one impulse problem of 4 points): the box lands flat,
    never tilts, comes to rest, and its penetration stays within h v_impact (the velocity
    level cannot undo it) without growing: at rest each step's impulse is its weight m g h."""
    a, m, h, drop = 0.1, 2.0, 1e-3, 0.2
    r = nonsmooth.simulate(_box(drop, a=a, m=m), 1.0, method="MoreauJean", dt=h)
    v_impact = math.sqrt(2 * G * drop)
    gap = r["floor.gap"]
    assert gap.min() >= -h * v_impact
    assert np.max(np.abs(r.q[:, 4:7])) < 1e-14  # qx, qy, qz: no tilt, no turn
    late = r.t >= 0.8
    assert np.max(np.abs(r.v[late])) < 1e-12
    assert np.ptp(gap[late]) < 1e-15  # no drift at rest
    np.testing.assert_allclose(r["floor.impulse"][late], m * G * h, rtol=1e-12)
    assert r["floor.impulse"][1:].max() > 10 * m * G * h  # the landing's impulse


def test_a_ball_launched_sliding_rolls_at_five_sevenths_of_its_speed():
    """A ball (J = 2/5 m R^2) launched at v0 without spin on a rigid floor with mu = 0.3
    slides, decelerating by mu g exactly at each step (the friction impulse mu m g h on the
    faceted cone's facet along the motion), until it rolls at 5 v0 / 7 at t = 2 v0 / (7 mu g)
    (within one step); then its contact point sticks."""
    R, v0, mu, h = 0.1, 2.0, 0.3, 1e-3
    # (set 1 nm into the floor: resting exactly at gap 0, a roundoff of the impulse may open
    # the contact for one free step)
    r = nonsmooth.simulate(_ball(R - 1e-9, R=R, e=0.0, mu=mu, vx=v0), 0.5, method="MoreauJean",
                           dt=h)
    vx = r["ball.vx"]
    t_roll = 2 * v0 / (7 * mu * G)
    sliding = r.t < t_roll - h
    np.testing.assert_allclose(vx[sliding], v0 - mu * G * r.t[sliding], rtol=0, atol=1e-12)
    rolling = r.t > t_roll + h
    assert np.max(np.abs(vx[rolling] - 5 * v0 / 7)) < 1e-4 * v0
    # the contact point's slip (its lever arm is the centre's height above the contact point)
    arm = r["ball.z"] - r["floor.z"]
    slip = vx - arm * r["ball.wy_world"]
    assert np.max(np.abs(slip[rolling])) < 1e-12
    assert np.min(np.abs(slip[sliding])) > 1e-3


def test_a_pinned_arm_lands_and_rests_on_the_floor_with_its_pin_carrying_half():
    """An arm pinned at one end (a revolute joint, an equality of the step's problem) with a
    ball at the other falls onto the floor (e = 0) and rests: the pin and the floor each carry
    half the weight of the arm (its centre of mass midway), to the penetration's tilt; the
    pin's position drift is removed at each step."""
    L, R, m, h = 0.5, 0.05, 1.0, 1e-3
    mdl = SpatialModel("arm")
    tilt = 0.3
    c, s = math.cos(tilt), math.sin(tilt)
    arm = mdl.add(Body("arm", m, (0.01, m * L * L / 12, m * L * L / 12),
                       position=(0.5 * L * c, 0.0, R + 0.5 * L * s),
                       orientation=(math.cos(-tilt / 2), 0.0, math.sin(-tilt / 2), 0.0)))
    mdl.add(Revolute("pin", ground, arm, point=(0, 0, R), axis=(0, 1, 0)))
    mdl.add(Contact("floor", arm, Sphere(R, position=(0.5 * L, 0.0, 0.0)), ground,
                    Plane((0, 0, 0), (0, 0, 1)), normal="rigid", restitution=0.0, mu=0.5))
    mdl.add(Gravity(G))
    r = nonsmooth.simulate(mdl, 1.0, method="MoreauJean", dt=h)
    late = r.t >= 0.8
    assert r["floor.gap"][0] > 0.1 and r["floor.gap"].min() > -h * math.sqrt(2 * G * L * s)
    assert np.max(np.abs(r.v[late])) < 1e-9
    np.testing.assert_allclose(r["floor.N"][late], 0.5 * m * G, rtol=1e-2)
    np.testing.assert_allclose(r["pin.Fz"][late], 0.5 * m * G, rtol=1e-2)
    assert r.diagnostics["max_drift_position"] < 1e-11  # (positions projected each step)


@pytest.mark.parametrize("e", [1.0, 0.5, 0.0])
def test_two_equal_balls_collide_by_newtons_law(e):
    """A ball at v0 hits an equal ball at rest (no gravity; a contact between two bodies, its
    rows on both): after the impact ``v_a = (1 - e) v0 / 2``, ``v_b = (1 + e) v0 / 2``
    (momentum kept, the kinetic energy lost ``(1 - e^2) m v0^2 / 4``)."""
    R, m, v0, h = 0.05, 0.5, 1.0, 1e-3
    mdl = SpatialModel("two balls")
    a = mdl.add(Body("a", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, 0.0),
                     velocity=(v0, 0.0, 0.0)))
    b = mdl.add(Body("b", m, (0.4 * m * R * R,) * 3, position=(2 * R + 0.0103, 0.0, 0.0)))
    mdl.add(Contact("ab", a, Sphere(R), b, Sphere(R), normal="rigid", restitution=e))
    r = nonsmooth.simulate(mdl, 0.05, method="MoreauJean", dt=h)
    assert np.count_nonzero(r["ab.impulse"]) == 1  # one impact, one step
    np.testing.assert_allclose(r["a.vx"][-1], (1 - e) * v0 / 2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(r["b.vx"][-1], (1 + e) * v0 / 2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(r["ab.impulse"].max(), m * (1 + e) * v0 / 2, rtol=1e-14)
    np.testing.assert_allclose(r.T[-1], 0.5 * m * v0 ** 2 * (1 + e * e) / 2, rtol=1e-13)
    assert r["ab.gap"].min() > -h * v0


# ------------------------------------------------------------------------ named errors
def test_the_compliant_force_of_a_rigid_contact_is_never_evaluated():
    system = _ball(0.005).compile()  # penetrating by 5 mm
    q, v = system.model.initial_state()
    with pytest.raises(ModelError, match="no force law"):
        system.contact_forces(0.0, q, v, np.zeros(1))
    assert system.potential(0.0, q) == pytest.approx(G * 0.005)  # gravity's only
    assert system.pairs == [] and system.rigid_contacts == (0,)


@pytest.mark.parametrize(("options", "match"), [
    ({"dt": None}, r"method MoreauJean needs its time step: give dt="),
    ({"dt": 0.0}, r"dt = 0.0 is invalid"),
    ({"dt": -1e-3}, r"dt = -0.001 is invalid"),
    ({"dt": 1e-3, "t_eval": [0.0, 0.05]}, r"t_eval: method MoreauJean records at its steps"),
    ({"dt": 1e-3, "events": [lambda t, q, v: q[2]]}, r"events: method MoreauJean locates no"),
    ({"dt": 1e-3, "tstops": [0.05]}, r"method MoreauJean takes no time stops"),
])
def test_bad_options_of_a_moreau_jean_run_are_named(options, match):
    with pytest.raises(ValueError, match=match):
        nonsmooth.simulate(_ball(1.0), 0.1, method="MoreauJean", **options)


@pytest.mark.parametrize(("options", "match"), [
    ({"theta": 0.0}, r"theta = 0.0 is invalid; it must be a number in \(0, 1\]"),
    ({"theta": 1.5}, r"theta = 1.5 is invalid"),
    ({"theta": "half"}, r"theta = 'half' is invalid"),
    ({"facets": 2}, r"facets = 2 is invalid; it must be an integer >= 3"),
    ({"facets": 4.5}, r"facets = 4.5 is invalid"),
])
def test_bad_method_options_are_named(options, match):
    with pytest.raises(ValueError, match=match):
        moreau_jean(**options)


def test_a_compliant_contact_under_moreau_jean_is_refused_by_name():
    mdl = _ball(1.0)
    mdl.add(Contact("soft", mdl.bodies[0], Sphere(0.01), ground,
                    Plane((0, 0, 0), (0, 0, 1)), normal=Hertz(K=1e7)))
    with pytest.raises(ModelError, match=r"rigid contacts \(normal=\"rigid\"\) only for now; "
                                         r"the compliant contact\(s\) 'soft'"):
        nonsmooth.simulate(mdl, 0.1, method="MoreauJean", dt=1e-3)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"restitution": 1.5}, r"restitution = 1.5 is invalid for a rigid contact; it must be a "
                           r"number in \[0, 1\]"),
    ({"restitution": -0.1}, r"restitution = -0.1 is invalid"),
    ({"damping": "hunt-crossley"}, r"damping = 'hunt-crossley' sets a compliant law's"),
    ({"mu": 0.3, "mu_s": 0.5}, r"mu_s is not available with normal=\"rigid\""),
    ({"mu": 0.3, "torsion_radius": 0.01}, r"torsion_radius is not available"),
    ({"normal": "stiff"}, r"normal = 'stiff' is not a normal law; use \"rigid\""),
])
def test_bad_rigid_contact_arguments_are_named(kwargs, match):
    ball = Body("ball", 1.0, (0.004,) * 3)
    args = {"normal": "rigid", **kwargs}
    with pytest.raises(ModelError, match=r"contact 'c': " + match):
        Contact("c", ball, Sphere(0.1), ground, Plane((0, 0, 0), (0, 0, 1)), **args)


def test_a_rigid_contact_between_planar_shapes_is_refused():
    from nonsmooth.contact import Circle, Line
    from nonsmooth.planar import Body as PlanarBody
    from nonsmooth.planar import ground as planar_ground

    disc = PlanarBody("disc", 1.0, 0.01)
    with pytest.raises(ModelError, match=r"normal=\"rigid\" is available between spatial "
                                         r"shapes only"):
        Contact("c", disc, Circle(0.1), planar_ground, Line((0, 0), (0, 1)), normal="rigid")
