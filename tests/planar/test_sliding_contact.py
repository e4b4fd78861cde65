"""The planar sliding contact (nonsmooth/sliding_contact.py): a friction element of dimension 2
(nonsmooth/vector_friction.py), against closed forms and a fine scipy solution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.dynamics import Dynamics
from nonsmooth.errors import ModelError
from nonsmooth.model import Model
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.clutch import Brake
from nonsmooth.planar.forces import Force
from nonsmooth.planar.joints import Revolute
from nonsmooth.planar.sliding_contact import SlidingContact
from nonsmooth.system import FrictionPair, GeneralizedSystem

ACCURATE = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}
M_PUCK, G, MU, MU_S = 2.0, 9.81, 0.3, 0.4
N = M_PUCK * G


def _puck(v0=(0.0, 0.0), force=None, *, point=(0.0, 0.0), w0=0.0, mu_s=MU_S, law="coulomb",
          friction=None, normal_force=N, inertia=0.01):
    """A puck on a table: a rigid body, a sliding contact at ``point``, an optional force at its
    centre."""
    mdl = PlanarModel("puck")
    puck = mdl.add(Body("puck", M_PUCK, inertia, velocity=v0, angular_velocity=w0))
    mdl.add(SlidingContact("contact", puck, normal_force, MU, mu_s, point=point, law=law,
                           friction=friction))
    if force is not None:
        mdl.add(Force("push", puck, force))
    return Model(mdl.compile(), *mdl.initial_state(), name="puck")


def _stops(result):
    return [e for e in result.events if e.kind == "velocity_zero"]


@pytest.mark.parametrize("v0", [(3.0, 0.0), (2.0, -1.5)])
def test_a_straight_slip_stops_at_the_closed_form_time_and_stays_stuck(v0):
    """``F_T = -mu N v / |v|``: the speed falls at ``mu g`` and the slip stops at
    ``|v0| / (mu g)`` (to 1e-9), along the initial direction; then it sticks with no force."""
    speed = math.hypot(*v0)
    t_stop = speed / (MU * G)
    r = nonsmooth.simulate(_puck(v0), t_stop + 0.5, dt=1e-2, **ACCURATE)
    stops = _stops(r)
    assert len(stops) == 1 and (stops[0].before, stops[0].after) == ("slip", "stick")
    assert abs(stops[0].t - t_stop) <= 1e-9
    before, after = r.t < t_stop, r.t > t_stop
    e = np.array(v0) / speed
    fall = (speed - MU * G * r.t[before])[:, None] * e
    np.testing.assert_allclose(np.column_stack((r["contact.v_x"], r["contact.v_y"]))[before],
                               fall, atol=1e-10)
    np.testing.assert_allclose(r["contact.F_x"][before], -MU * N * e[0], rtol=1e-10)
    np.testing.assert_allclose(r["contact.F_y"][before], -MU * N * e[1], rtol=1e-10)
    np.testing.assert_allclose(r["contact.F_f"][before], MU * N, rtol=1e-12)
    assert np.all(r["contact.mode"][before] == 2) and np.all(r["contact.mode"][after] == 0)
    assert np.max(np.abs(r.v[after])) <= 1e-9
    assert np.max(np.abs(r["contact.F_f"][after])) <= 1e-9
    assert np.max(np.abs(r.energy_error)) < 1e-9


def test_a_lateral_force_below_the_static_limit_holds_without_creep():
    """A constant force of 0.9 mu_s N at 53 degrees from rest: it sticks from the start, the
    stick force balances it, and the puck does not move (``|x - x0| <= 1e-12``)."""
    F = 0.9 * MU_S * N
    r = nonsmooth.simulate(_puck(force=(0.6 * F, 0.8 * F)), 2.0, dt=1e-2, **ACCURATE)
    assert [(e.kind, e.after) for e in r.events] == [("start", "stick")]
    assert np.max(np.abs(r.q[:, :2] - r.q[0, :2])) <= 1e-12
    np.testing.assert_allclose(r["contact.F_x"], -0.6 * F, rtol=1e-12)
    np.testing.assert_allclose(r["contact.F_y"], -0.8 * F, rtol=1e-12)


def test_a_ramp_force_breaks_away_at_the_closed_form_time():
    """``F(t) = c t`` along x from rest: stuck until ``c t = mu_s N`` (the reserve event, to
    1e-9), then ``m x'' = c t - mu_d N`` (the closed form, to 1e-9)."""
    c = 5.0
    t_b = MU_S * N / c
    r = nonsmooth.simulate(_puck(force=lambda t, q, v: (c * t, 0.0)), 3.0, dt=1e-2, **ACCURATE)
    breaks = [e for e in r.events if e.kind == "reserve_zero"]
    assert len(breaks) == 1 and (breaks[0].before, breaks[0].after) == ("stick", "slip")
    assert abs(breaks[0].t - t_b) <= 1e-9
    t = r.t
    x = (c * ((t ** 3 - t_b ** 3) / 6 - t_b ** 2 * (t - t_b) / 2)
         - MU * N * (t - t_b) ** 2 / 2) / M_PUCK
    after = t > t_b
    np.testing.assert_allclose(r.q[after, 0], x[after], atol=1e-9)
    assert np.max(np.abs(r.q[~after, :2])) <= 1e-12
    np.testing.assert_allclose(r.q[:, 1], 0.0, atol=1e-12)


def test_a_force_above_the_static_limit_breaks_away_at_once():
    """``F > mu_s N`` from rest: slip from the start, ``x = (F - mu_d N) t^2 / (2 m)``."""
    F = 1.2 * MU_S * N
    r = nonsmooth.simulate(_puck(force=(0.0, -F)), 1.0, dt=1e-2, **ACCURATE)
    assert [(e.kind, e.after) for e in r.events] == [("start", "slip")]
    np.testing.assert_allclose(r.q[:, 1], -(F - MU * N) * r.t ** 2 / (2 * M_PUCK), atol=1e-10)
    np.testing.assert_allclose(r.q[:, 0], 0.0, atol=1e-12)


def _scipy_stop(v0, b, k, eps):
    """The stop of ``dv/dt = -k v / |v| + b`` by a fine-tolerance scipy DOP853 run to
    ``|v| = eps``, extrapolated to zero at the arrival rate ``k - |b|``."""
    def rhs(t, v):
        s = math.hypot(*v)
        return [-k * v[0] / s + b[0], -k * v[1] / s + b[1]]

    def near(t, v):
        return math.hypot(*v) - eps

    near.terminal = True
    sol = solve_ivp(rhs, (0.0, 10.0), list(v0), method="DOP853", rtol=1e-13, atol=1e-15,
                    events=near)
    return sol.t_events[0][0] + eps / (k - math.hypot(*b))


def test_a_curved_slip_stops_when_a_fine_scipy_solution_does():
    """Initial velocity along x, a constant force along y below ``mu N``: the slip curves,
    its direction turning smoothly, and stops (arriving along the force) at the time of a
    fine-tolerance scipy solution of the 2-D ODE (to 1e-9); the stop is one event, the
    stuck puck then stays."""
    v0, Fy = 2.0, 0.5 * MU * N
    r = nonsmooth.simulate(_puck((v0, 0.0), (0.0, Fy)), 2.0, dt=1e-2, **ACCURATE)
    stops = _stops(r)
    assert len(stops) == 1
    want = _scipy_stop((v0, 0.0), (0.0, Fy / M_PUCK), MU * G, 1e-6)
    assert abs(stops[0].t - want) <= 1e-9
    before = r.t < stops[0].t
    v = np.column_stack((r["contact.v_x"], r["contact.v_y"]))[before]
    F = np.column_stack((r["contact.F_x"], r["contact.F_y"]))[before]
    cos = np.sum(v * F, axis=1) / (np.linalg.norm(v, axis=1) * np.linalg.norm(F, axis=1))
    np.testing.assert_allclose(cos, -1.0, atol=1e-12)  # friction against the slip
    assert np.max(np.abs(r.v[r.t > stops[0].t + 1e-6, :2])) <= 1e-9


def test_an_off_centre_contact_breaks_away_along_the_maximal_dissipation_direction():
    """A contact point off the centre of a light disc, a force at the centre at 45 degrees
    above the static limit: the Delassus block is anisotropic, the breakaway direction is the
    root of ``a_T(e) = alpha e`` (not the force's), and the friction opposes the slip at every
    output; the point stops while the disc turns, sticks, and breaks away again."""
    F = 1.5 * MU_S * N
    r = nonsmooth.simulate(_puck(force=(F / math.sqrt(2), F / math.sqrt(2)), point=(0.3, 0.1)),
                           0.5, dt=1e-2, **ACCURATE)
    assert [e.after for e in r.events] == ["slip", "stick", "slip"]
    v = np.column_stack((r["contact.v_x"], r["contact.v_y"]))
    F_T = np.column_stack((r["contact.F_x"], r["contact.F_y"]))
    slipping = (r["contact.mode"] == 2) & (np.linalg.norm(v, axis=1) > 1e-6)
    cos = np.sum(v * F_T, axis=1)[slipping] / (np.linalg.norm(v, axis=1)
                                               * np.linalg.norm(F_T, axis=1))[slipping]
    np.testing.assert_allclose(cos, -1.0, atol=1e-9)
    direction = v[1] / np.linalg.norm(v[1])
    assert abs(direction @ np.array([1.0, 1.0]) / math.sqrt(2)) < 0.999  # not the force's
    assert np.max(np.abs(r.energy_error)) < 1e-9


def test_lugre_and_regularized_stop_times_converge_to_the_set_valued_one():
    """LuGre with a growing bristle stiffness ``sigma0`` and the regularized law with a
    shrinking ``falloff_vel``: the time the slip speed falls to 1 mm/s (Brent on the dense
    output) approaches the set-valued law's, ``(|v0| - 1e-3) / (mu g)``; the differences
    (measured 0.053, 0.010, 4e-7 s and 0.071, 2.4e-3, 1.9e-5 s) decrease."""
    from scipy.optimize import brentq

    v0, level = (3.0, 1.0), 1e-3
    want = (math.hypot(*v0) - level) / (MU * G)

    def stop(**kw):
        r = nonsmooth.simulate(_puck(v0, mu_s=MU, **kw), want + 0.2, dt=1e-3, method="Radau")
        k = int(np.argmax(np.hypot(r["contact.v_x"], r["contact.v_y"]) <= level))
        return brentq(lambda t: math.hypot(*r.sol(t)[3:5]) - level, r.t[k - 1], r.t[k],
                      xtol=1e-14)

    lugre = [abs(stop(law="lugre", friction={
        "sigma0": s0, "sigma1": 2 * math.sqrt(s0 * M_PUCK / N), "sigma2": 0.0, "v_s": 1e-3})
        - want) for s0 in (1e3, 1e4, 1e5)]
    regularized = [abs(stop(law="regularized", friction={"falloff_vel": eps}) - want)
                   for eps in (1e-1, 1e-2, 1e-3)]
    for diffs in (lugre, regularized):
        assert diffs[0] > 2 * diffs[1] > 4 * diffs[2], diffs
        assert diffs[2] < 1e-4, diffs


def test_a_shaken_puck_sticks_and_slips_as_with_short_steps():
    """A puck shaken along x (``1.3 mu_s N sin(4 pi t)``) under a slower lateral force,
    contact off its centre: stick and slip alternate (reserve and stop events); the events are
    those of a run with ``max_step = 1e-3`` (measured within 1e-11 s) and the energy balances."""
    A, w = 1.3 * MU_S * N, 4 * math.pi

    def force(t, q, v):
        return A * math.sin(w * t), 0.3 * MU * N * math.cos(0.5 * w * t)

    runs = [nonsmooth.simulate(_puck(force=force, point=(0.05, 0.02)), 1.2, dt=1e-2,
                               **ACCURATE, **kw) for kw in ({}, {"max_step": 1e-3})]
    kinds = [[(e.kind, e.after) for e in r.events] for r in runs]
    assert kinds[0] == kinds[1] and len(kinds[0]) >= 7
    assert {"reserve_zero", "velocity_zero"} <= {k for k, _ in kinds[0]}
    np.testing.assert_allclose([e.t for e in runs[0].events], [e.t for e in runs[1].events],
                               atol=1e-9)
    assert max(np.max(np.abs(r.energy_error)) for r in runs) < 1e-9


def _sled(v0=(0.0, 0.0), w0=0.0, force=None):
    """A bar on two sliding contacts at its ends, each carrying half the weight."""
    mdl = PlanarModel("sled")
    bar = mdl.add(Body("bar", M_PUCK, M_PUCK / 12, velocity=v0, angular_velocity=w0))
    for name, x in (("front", 0.5), ("back", -0.5)):
        mdl.add(SlidingContact(name, bar, N / 2, MU, MU_S, point=(x, 0.0)))
    if force is not None:
        mdl.add(Force("push", bar, force))
    return Model(mdl.compile(), *mdl.initial_state(), name="sled")


def test_two_contacts_on_one_body_stop_hold_and_break_away_together():
    """Two sticking contacts on one rigid body have dependent stick rows (statically
    indeterminate friction): the stage takes the least-norm friction forces. A sliding,
    turning bar stops at both ends at once and stays; pushed across by ``F = c t`` at its
    centre it breaks away at both ends at ``mu_s N / c``."""
    r = nonsmooth.simulate(_sled((1.0, 0.5), 2.0), 1.0, dt=1e-2, **ACCURATE)
    stops = _stops(r)
    assert sorted(e.pair for e in stops) == ["back", "front"]
    assert abs(stops[0].t - stops[1].t) <= 1e-12
    assert np.max(np.abs(r.v[r.t > stops[0].t])) <= 1e-9
    assert np.max(np.abs(r.energy_error)) < 1e-9
    c = 3.0
    r = nonsmooth.simulate(_sled(force=lambda t, q, v: (0.0, c * t)), 3.0, dt=1e-2, **ACCURATE)
    breaks = [e for e in r.events if e.kind == "reserve_zero"]
    assert sorted(e.pair for e in breaks) == ["back", "front"]
    assert all(abs(e.t - MU_S * N / c) <= 1e-9 for e in breaks)
    held = r.t < MU_S * N / c
    np.testing.assert_allclose(r["front.F_y"][held], r["back.F_y"][held], atol=1e-9)


def _mixed_system():
    """A sliding contact (rows 0, 1 of W) and a brake on another disc (row 2): a vector pair
    before a scalar one."""
    mdl = PlanarModel("mixed")
    puck = mdl.add(Body("puck", M_PUCK, 0.05))
    disc = mdl.add(Body("disc", 1.0, 0.5))
    mdl.add(SlidingContact("contact", puck, N, MU, MU_S, point=(0.2, -0.1)))
    mdl.add(Revolute("bearing", ground, disc, (1.0, 0.0), (0.0, 0.0)))
    mdl.add(Brake("brake", disc, 10.0, mu=0.2, radius=0.1))
    return mdl.compile()


def test_the_compiled_terms_equal_the_python_elements_on_random_states():
    """The kernels' rows of W and tangential bias (kernels._pair_row, _bias_into, joint kind
    3) equal the element's Python methods (SlidingContact.fill_tangential, tangential_bias) at
    random states, a scalar pair's row after the vector pair's two included."""
    system = _mixed_system()
    assert list(system.w_row) == [0, 2] and system.p_rows == 3
    rng = np.random.default_rng(7)
    for _ in range(20):
        q, v = rng.normal(size=system.n_q), rng.normal(size=system.n_q)
        np.testing.assert_allclose(system.terms(0.0, q, v).W,
                                   system.reference_terms(0.0, q, v).W, rtol=0, atol=1e-15)
        np.testing.assert_allclose(system.tangential_bias(0.0, q, v),
                                   system.reference_bias(0.0, q, v), rtol=1e-14, atol=1e-14)
        theta, w = q[2], v[2]
        r = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        r = r @ np.array([0.2, -0.1])
        np.testing.assert_allclose(system.tangential_bias(0.0, q, v)[:2], -w * w * r,
                                   rtol=1e-13, atol=1e-14)


def test_the_stage_of_a_vector_pair_on_random_states():
    """The stage of a model with a vector pair (the compiled stage: ``Dynamics._plan`` has the
    vector tail; the Python path is compared with it in ``test_sliding_contact_compiled.py``)
    against the equations solved by hand:
    slipping, ``F_T = -mu N e`` with ``e = v_T / |v_T|`` and ``M dv = f + W^T F_T``; sticking,
    ``W dv + (dW/dt) v + 2 alpha v_T = 0`` with ``F_T`` the multipliers; the scalar brake in
    its mode alongside."""
    system = _mixed_system()
    dyn = Dynamics(system)
    assert dyn._plan is not None and dyn.vector
    rng = np.random.default_rng(11)
    M = system.tables.mass
    for _ in range(20):
        q, v = rng.normal(size=system.n_q), rng.normal(size=system.n_q)
        T = system.terms(0.0, q, v)
        W, v_T = T.W, T.W @ v
        dyn.e_ref[:2] = v_T[:2] / np.linalg.norm(v_T[:2])
        ev = dyn.evaluate(0.0, q, v, np.array([2.0, 1.0]))
        e = v_T[:2] / np.linalg.norm(v_T[:2])
        np.testing.assert_allclose(ev.F_T[:2], -MU * N * e, rtol=1e-13)
        np.testing.assert_allclose(ev.F_T[2], -0.2 * 10.0, rtol=1e-13)
        # the revolute bearing's reactions: dv from the KKT system by hand
        K = np.block([[M, -T.G.T], [T.G, np.zeros((T.G.shape[0], T.G.shape[0]))]])
        rhs = np.concatenate((T.f + W.T @ ev.F_T,
                              T.gamma - 2 * dyn.alpha * (T.G @ v + T.phi_t)
                              - dyn.beta ** 2 * T.phi))
        np.testing.assert_allclose(ev.dv, np.linalg.solve(K, rhs)[:system.n_q], rtol=1e-12,
                                   atol=1e-12)
        stuck = dyn.evaluate(0.0, q, v, np.array([0.0, 1.0]))
        a_T = W @ stuck.dv + system.tangential_bias(0.0, q, v)
        np.testing.assert_allclose(a_T[:2] + 2 * dyn.alpha * v_T[:2], 0.0, atol=1e-11)
        np.testing.assert_allclose(stuck.powers[3], stuck.F_T @ v_T, rtol=1e-12)


def test_a_vector_model_takes_the_compiled_phases_as_scalar_models_do():
    """A model with a pair of dim 2 runs in the compiled DOP853 and RK4 phases (their event
    functions, sigma and the reserve, in ``core.events``); a model of scalar pairs keeps its
    compiled plan."""
    from nonsmooth.simulate import _Run

    vector = _puck((1.0, 0.0))
    run = _Run(vector.system, Dynamics(vector.system), [], None)
    assert run.compiled and run.family is not None and run.vector is not None
    mdl = PlanarModel("disc")
    disc = mdl.add(Body("disc", 1.0, 0.5, angular_velocity=1.0))
    mdl.add(Revolute("bearing", ground, disc, (0.0, 0.0), (0.0, 0.0)))
    mdl.add(Brake("brake", disc, 10.0, mu=0.2, radius=0.1))
    scalar = Dynamics(mdl.compile())
    assert scalar._plan is not None and not scalar.vector
    r = nonsmooth.simulate(vector, 1.0, dt=1e-3, method="RK4")
    assert abs(_stops(r)[0].t - 1.0 / (MU * G)) <= 1e-9


def test_a_normal_force_that_falls_to_zero_opens_the_contact():
    """``N(t) = m g (1 - t / T)``, then 0: the slip decelerates by ``mu g (t - t^2 / (2 T))``
    until T, then coasts (the contact is open)."""
    T, v0 = 0.4, 5.0
    model = _puck((v0, 0.0), normal_force=lambda t: N * (1.0 - t / T))
    r = nonsmooth.simulate(model, 1.0, dt=1e-2, **ACCURATE)
    assert any(e.kind == "normal_sign" for e in r.events)
    t = r.t
    want = np.where(t < T, v0 - MU * G * (t - t ** 2 / (2 * T)), v0 - MU * G * T / 2)
    np.testing.assert_allclose(r["contact.v_x"], want, atol=1e-9)
    np.testing.assert_allclose(r["contact.N"], np.maximum(N * (1 - t / T), 0.0), atol=1e-9)


def test_a_pair_of_dimension_three_stops_and_holds():
    """A point mass in space (``GeneralizedSystem``, W = I) with a given normal load and a
    friction pair of dim 3: a straight slip stops at ``|v0| / (mu g)``; a force below the
    static limit, applied from rest, is held."""
    m, mu, mu_s = 1.5, 0.25, 0.35
    load = m * G

    def system(force=(0.0, 0.0, 0.0)):
        pair = FrictionPair("ball", None, mu, mu_s, load=(), preload=load, dim=3)
        return GeneralizedSystem(["x", "y", "z"], m * np.eye(3), pairs=[pair],
                                 forces=lambda t, q, v: np.array(force, dtype=float),
                                 tangential=lambda t, q: np.eye(3),
                                 tangential_bias=lambda t, q, v: np.zeros(3))

    v0 = np.array([1.0, -2.0, 0.5])
    t_stop = float(np.linalg.norm(v0)) / (mu * G)
    r = nonsmooth.simulate(Model(system(), np.zeros(3), v0), t_stop + 0.3, dt=1e-2, **ACCURATE)
    stops = _stops(r)
    assert len(stops) == 1 and abs(stops[0].t - t_stop) <= 1e-9
    assert r.F_T.shape[1] == 3
    np.testing.assert_allclose(r.v[r.t > t_stop], 0.0, atol=1e-9)
    F = 0.9 * mu_s * load * np.array([0.0, 0.6, 0.8])
    r = nonsmooth.simulate(Model(system(F), np.zeros(3), np.zeros(3)), 1.0, dt=1e-2, **ACCURATE)
    assert [e.after for e in r.events] == ["stick"]
    assert np.max(np.abs(r.q)) <= 1e-12


def test_the_outputs_are_named_with_units():
    r = nonsmooth.simulate(_puck((1.0, 0.5)), 0.1, dt=1e-2, **ACCURATE)
    units = {name: r.named[name][1] for name in r.named if name.startswith("contact.")}
    assert units == {"contact.N": "N", "contact.F_x": "N", "contact.F_y": "N",
                     "contact.F_f": "N", "contact.v_x": "m/s", "contact.v_y": "m/s",
                     "contact.mode": "-"}
    np.testing.assert_allclose(r["contact.N"], N)
    np.testing.assert_allclose(r["F_T:contact"][:, 0], r["contact.F_x"])  # rows x, y


@pytest.mark.parametrize("kwargs, match", [
    ({"body": ground}, "must be a Body or PointMass"),
    ({"point": (0.1, math.nan)}, "point must be finite"),
    ({"point": "centre"}, "point must be a pair of numbers"),
    ({"normal_force": math.inf}, "normal_force = inf is invalid"),
    ({"mu": -0.1}, "mu = -0.1 is invalid"),
    ({"mu_s": 0.1}, "mu_s = 0.1 is below mu"),
    ({"name": ""}, "name '' is invalid"),
])
def test_bad_input_is_a_named_error(kwargs, match):
    puck = Body("puck", 1.0, 0.1)
    args = {"name": "contact", "body": puck, "normal_force": 10.0, "mu": 0.3, **kwargs}
    with pytest.raises(ModelError, match=match):
        SlidingContact(args.pop("name"), args.pop("body"), args.pop("normal_force"),
                       args.pop("mu"), **args)


def test_a_point_mass_has_only_its_centre_and_a_pair_dimension_is_checked():
    with pytest.raises(ModelError, match="a point mass has only its centre"):
        SlidingContact("contact", PointMass("p", 1.0), 10.0, 0.3, point=(0.1, 0.0))
    with pytest.raises(ModelError, match="dim = 4 is invalid"):
        FrictionPair("p", None, 0.3, dim=4)
    assert nonsmooth.SlidingContact is SlidingContact
