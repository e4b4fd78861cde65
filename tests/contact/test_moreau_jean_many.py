"""Many rigid contacts under Moreau-Jean time-stepping: the projected Gauss-Seidel on the
round Coulomb cone (``nonsmooth.lcp.nsgs``) against Lemke where both have the same unique
solution, its exact local 3x3 solve against closed forms, the matrix-free block form against
the dense one, the broad phase and vectorised rows (``System.rigid_contact_blocks``) against
the exhaustive rows of every contact, and a small box of spheres settling
(``docs/design/moreau_jean.md``). No wall-clock assertion: the speed is the benchmark's
(``benchmarks/moreau_jean_spheres.py``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Box, Contact, Plane, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.lcp.friction_contact import solve_friction_contact
from nonsmooth.lcp.nsgs import local_solve, residual, solve_nsgs, solve_nsgs_blocks
from nonsmooth.models import load
from nonsmooth.run.methods import moreau_jean
from nonsmooth.run.moreau_jean import NSGSConvergenceWarning
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, ground

G = 9.81


def _spd(rng, n):
    B = rng.normal(size=(n, n + 2))
    return B @ B.T / n


# ------------------------------------------------------------------------- NSGS vs Lemke
def test_nsgs_matches_lemke_on_random_frictionless_problems():
    """Frictionless (mu = 0) with a positive definite Delassus operator: the LCP's solution is
    unique, so NSGS (tol 1e-12) and Lemke give the same reactions and velocities (measured
    3e-13 s/kg-scaled; asserted 1e-8) on 100 random problems of 1-6 contacts."""
    rng = np.random.default_rng(0)
    pressed = 0
    for _ in range(100):
        n = int(rng.integers(1, 7))
        A = _spd(rng, 3 * n)
        b = rng.normal(size=3 * n)
        mu = np.zeros(n)
        ours = solve_nsgs(A, b, mu, tol=1e-12, max_iter=100000)
        ref = solve_friction_contact(A, b, mu)
        assert ours.success and ref.success
        np.testing.assert_allclose(ours.r, ref.r, rtol=0, atol=1e-8)
        np.testing.assert_allclose(ours.u[0::3], ref.u[0::3], rtol=0, atol=1e-8)
        pressed += int(np.count_nonzero(ours.r[0::3] > 0))
    assert pressed > 100  # (the problems are not all take-offs)


@pytest.mark.parametrize("case", ["stick", "slide"])
def test_nsgs_matches_lemke_on_one_frictional_contact(case):
    """One contact whose Delassus block is isotropic in the tangent plane (a sphere on a
    plane's): sticking well inside the cone, or sliding along the first tangent (a facet
    direction of Lemke's pyramid), the round and the faceted cones give the same solution."""
    rng = np.random.default_rng(1)
    for _ in range(50):
        w_n, w_t = rng.uniform(0.5, 2.0, size=2)
        A = np.diag([w_n, w_t, w_t])
        mu = rng.uniform(0.1, 1.0)
        q_n = -rng.uniform(0.5, 2.0)
        if case == "stick":  # |r_T| = |q_T| / w_t below mu r_N / 2
            d = rng.normal(size=2)
            q_t = 0.5 * mu * (-q_n / w_n) * w_t * d / np.linalg.norm(d) * rng.uniform(0, 1)
        else:
            q_t = np.array([rng.uniform(2.0, 5.0) * mu * (-q_n / w_n) * w_t, 0.0])
        b = np.array([q_n, *q_t])
        ours = solve_nsgs(A, b, [mu], tol=1e-13)
        ref = solve_friction_contact(A, b, [mu])
        assert ours.success and ref.success
        np.testing.assert_allclose(ours.r, ref.r, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours.u, ref.u, rtol=0, atol=1e-12)


def test_the_block_form_is_the_dense_form_without_the_delassus_matrix():
    """Random contacts between random free bodies (and the ground): the matrix-free sweeps
    over ``u = H v + c``, ``v = v_free + M^-1 H^T r`` give the dense form's reactions on ``A =
    H M^-1 H^T`` (the same sweeps; to rounding) and ``v = v_free + M^-1 H^T r``."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        n_b, n_c = 4, 7
        Minv = np.linalg.inv(np.array([_spd(rng, 6) + np.eye(6) for _ in range(n_b)]))
        a = rng.integers(-1, n_b, size=n_c)
        b = (a + 1 + rng.integers(0, n_b - 1, size=n_c)) % n_b  # (b != a, never the ground)
        Ha, Hb = rng.normal(size=(n_c, 3, 6)), rng.normal(size=(n_c, 3, 6))
        Ha[a < 0] = 0.0
        H = np.zeros((3 * n_c, 6 * n_b))
        for i in range(n_c):
            if a[i] >= 0:
                H[3 * i:3 * i + 3, 6 * a[i]:6 * a[i] + 6] = Ha[i]
            H[3 * i:3 * i + 3, 6 * b[i]:6 * b[i] + 6] = Hb[i]
        Mi = np.zeros((6 * n_b, 6 * n_b))
        for k in range(n_b):
            Mi[6 * k:6 * k + 6, 6 * k:6 * k + 6] = Minv[k]
        v_free = rng.normal(size=6 * n_b)
        c = rng.normal(size=(n_c, 3))
        mu = rng.uniform(0.0, 0.8, size=n_c)
        blocks = solve_nsgs_blocks(a, b, Ha, Hb, Minv, v_free, c, mu, tol=1e-10,
                                   max_iter=20000)
        dense = solve_nsgs(H @ Mi @ H.T, H @ v_free + c.ravel(), mu, tol=1e-10,
                           max_iter=20000)
        assert blocks.success and dense.success, (blocks.message, dense.message)
        np.testing.assert_allclose(blocks.r, dense.r, rtol=0, atol=1e-7)
        np.testing.assert_allclose(blocks.v, v_free + Mi @ H.T @ blocks.r, rtol=0, atol=1e-10)
        assert residual(H @ Mi @ H.T, H @ v_free + c.ravel(), mu, blocks.r) < 1e-9
        # over-relaxed sweeps stop at a solution too (the residual is the natural map's)
        sor = solve_nsgs_blocks(a, b, Ha, Hb, Minv, v_free, c, mu, tol=1e-10,
                                max_iter=20000, relax=1.5)
        assert sor.success
        assert residual(H @ Mi @ H.T, H @ v_free + c.ravel(), mu, sor.r) < 1e-9
    with pytest.raises(ValueError, match="relax = 2.0 must be in"):
        solve_nsgs_blocks(a, b, Ha, Hb, Minv, v_free, c, mu, relax=2.0)


# ------------------------------------------------------------------------- the local solve
@pytest.mark.parametrize("slip", [0.0, 0.5, 1.2, 5.0])
def test_the_local_solve_of_a_sphere_on_a_plane_is_the_closed_form(slip):
    """A sphere (m, J = 2/5 m R^2) hitting a plane at the approach speed ``v_n`` with the
    contact point slipping at ``v_t`` (in units of 7/2 mu v_n): its Delassus block is ``diag(1
    / m, 7 / (2 m), 7 / (2 m))``; it sticks (``r_T = -2 m v_t / 7``) while ``|v_t| <= 7/2 mu
    v_n`` and slides (``r_T = -mu m v_n v_t / |v_t|``) beyond; ``r_N = m v_n`` either way;
    separating (``q_N > 0``) it takes off (``r = 0``)."""
    m, mu, v_n = 2.0, 0.4, 1.5
    W = np.diag([1.0 / m, 3.5 / m, 3.5 / m])
    direction = np.array([0.6, -0.8])
    v_t = slip * 3.5 * mu * v_n * direction
    r, kind = local_solve(W, [-v_n, *v_t], mu)
    assert r[0] == pytest.approx(m * v_n, rel=1e-14)
    if slip <= 1.0:
        assert kind == "stick"
        np.testing.assert_allclose(r[1:], -v_t * m / 3.5, rtol=0, atol=1e-14)
    else:
        assert kind == "slip"
        np.testing.assert_allclose(r[1:], -mu * m * v_n * direction, rtol=0, atol=1e-14)
    r, kind = local_solve(W, [v_n, *v_t], mu)
    assert kind == "take-off" and not r.any()


def test_the_local_solve_solves_random_coupled_problems_exactly():
    """2000 random 3x3 problems (coupled normal and tangent rows, mu in [0, 2]): every local
    solution's natural-map residual is at rounding (measured < 1e-13; asserted 1e-10), and
    each case occurs (hundreds of slips: the slip equation's root found)."""
    rng = np.random.default_rng(3)
    kinds = {"take-off": 0, "stick": 0, "slip": 0, "failed": 0}
    for _ in range(2000):
        W = _spd(rng, 3)
        q = rng.normal(size=3)
        mu = float(rng.uniform(0.0, 2.0))
        r, kind = local_solve(W, q, mu)
        kinds[kind] += 1
        assert residual(W, q, [mu], r) < 1e-10, (W, q, mu, kind)
    assert kinds["failed"] == 0
    assert kinds["stick"] > 100 and kinds["slip"] > 300 and kinds["take-off"] > 500


# ------------------------------------------------------------------------- broad phase, rows
def _exhaustive(system, q, v, horizon):
    """``{(contact, point): (gap, rows (3, n_v))}`` of every rigid contact's points with
    ``gap + horizon W_N v <= 0``, from ``rigid_contact_rows`` (all contacts, no broad
    phase)."""
    out = {}
    for c, _e, _mu, gaps, W_N, W_T in system.rigid_contact_rows(0.0, q, None):
        for p in np.flatnonzero(gaps + horizon * (W_N @ v) <= 0.0):
            out[(int(c), int(p))] = (gaps[p], np.vstack((W_N[p], W_T[p])))
    return out


def _from_blocks(system, B):
    out = {}
    for i in range(B.contact.size):
        rows = np.zeros((3, system.n_v))
        if B.a[i] >= 0:
            rows[:, 6 * B.a[i]:6 * B.a[i] + 6] += B.Ha[i]
        if B.b[i] >= 0:
            rows[:, 6 * B.b[i]:6 * B.b[i] + 6] += B.Hb[i]
        out[(int(B.contact[i]), int(B.point[i]))] = (B.gap[i], rows)
    return out


def _mixed_model():
    """Three spheres (one off its body's origin) and a box over a floor and a wall:
    sphere-sphere, sphere-plane (both orders: the plane as shape a or b) and box-plane (eight
    candidate corners: the per-contact path) pairs."""
    mdl = SpatialModel("mixed")
    bodies = []
    for i, x in enumerate((0.0, 0.09, 0.2)):
        bodies.append(mdl.add(Body(f"s{i}", 1.0, (0.001,) * 3, position=(x, 0.0, 0.05))))
    box = mdl.add(Body("box", 2.0, (0.01,) * 3, position=(0.1, 0.12, 0.06)))
    floor, wall = Plane((0, 0, 0), (0, 0, 1)), Plane((0.3, 0, 0), (-1, 0, 0))
    shapes = {bodies[0]: Sphere(0.05), bodies[1]: Sphere(0.04, position=(0.0, 0.0, 0.01)),
              bodies[2]: Sphere(0.05), box: Box((0.05, 0.05, 0.06))}
    for i, (body, shape) in enumerate(shapes.items()):
        mdl.add(Contact(f"floor{i}", ground, floor, body, shape, normal="rigid",
                        restitution=0.3, mu=0.2))  # (the plane first: shape a)
        mdl.add(Contact(f"wall{i}", body, shape, ground, wall, normal="rigid", mu=0.2))
    spheres = list(shapes.items())[:3]
    for i in range(3):
        for j in range(i + 1, 3):
            mdl.add(Contact(f"p{i}{j}", spheres[i][0], spheres[i][1], spheres[j][0],
                            spheres[j][1], normal="rigid", mu=0.5))
    mdl.add(Gravity(G))
    return mdl.compile(), mdl


@pytest.mark.parametrize("scene", ["spheres", "mixed"])
def test_the_broad_phase_finds_every_point_the_exhaustive_rows_find(scene):
    """At random states (positions jittered, random orientations and velocities) the blocks
    hold exactly the points whose predicted gap closes among all contacts' exhaustive rows
    (``rigid_contact_rows``: no broad phase), with the same gaps and rows to rounding
    (measured 2.2e-16); and the horizon matters (more points for a longer one)."""
    rng = np.random.default_rng(4)
    if scene == "spheres":
        model = load("contact_spheres_box").build(n=30, width=0.5, spacing=2.2, h=0.0)
        system, q0 = model.system, model.q0
    else:
        system, mdl = _mixed_model()
        q0 = mdl.initial_state()[0]
    n_b = system.n_bodies
    counts = []
    for trial in range(6):
        q = np.array(q0, dtype=float)
        Q = q[:7 * n_b].reshape(n_b, 7)
        Q[:, :3] += rng.normal(size=(n_b, 3)) * 0.01
        quat = rng.normal(size=(n_b, 4))
        Q[:, 3:] = quat / np.linalg.norm(quat, axis=1)[:, None]
        v = rng.normal(size=system.n_v) * (0.5 if trial % 2 else 5.0)
        for horizon in (0.0, 5e-4, 0.02):
            ref = _exhaustive(system, q, v, horizon)
            B = system.rigid_contact_blocks(0.0, q, v, horizon)
            got = _from_blocks(system, B)
            assert set(got) == set(ref), (trial, horizon, set(got) ^ set(ref))
            for key, (gap, rows) in ref.items():
                assert abs(got[key][0] - gap) < 1e-14
                np.testing.assert_allclose(got[key][1], rows, rtol=0, atol=1e-13)
            counts.append(len(ref))
    assert max(counts) >= (10 if scene == "spheres" else 3) and counts[2] >= counts[0]


# ------------------------------------------------------------------------- a settling scene
def test_a_small_box_of_spheres_settles():
    """8 spheres (R = 5 cm, 0.5 kg; a 2 x 2 x 2 lattice 5 mm above the floor, e = 0, mu =
    0.3) in a box 4.4 R wide, 0.3 s at h = 1e-3 (NSGS, chosen by size: 68 contacts): every
    step converged; the largest penetration below 1 mm (measured 0.37 mm: the scheme's h v /
    2 at the landing speed); no sphere leaves the box; the kinetic energy at the end below 1%
    of n m g R (measured 0.4%: the upper spheres slowly rolling off the lower ones); the
    impulses' work is the energy's loss."""
    n, R, m, width = 8, 0.05, 0.5, 0.22
    model = load("contact_spheres_box").build(n=n, R=R, m=m, width=width, e=0.0, h=0.005,
                                              spacing=2.1, jitter=0.05)
    r = nonsmooth.simulate(model, 0.3, method="MoreauJean", dt=1e-3)
    assert r.success
    stats = r.diagnostics["step_solver"]
    assert stats["solver"] == "nsgs" and stats["unconverged"] == 0 and stats["steps"] > 200
    assert stats["max_residual"] <= 1e-4
    assert r["min_gap"].min() > -1e-3
    Q = r.q[:, :7 * n].reshape(r.t.size, n, 7)[:, :, :3]
    assert np.abs(Q[:, :, :2]).max() <= 0.5 * width - R + 1e-3
    assert Q[:, :, 2].min() >= R - 1e-3
    assert r["kinetic"].max() > 0.05 * n * m * G * R  # (it fell)
    assert r["kinetic"][-1] < 0.01 * n * m * G * R
    assert r.diagnostics["energy_balance_scaled"] < 1e-3


def test_nsgs_runs_the_bouncing_ball_as_lemke_does():
    """Siconos' BouncingBallTS (one contact, frictionless): NSGS's exact local solve is
    Newton's impulse, so ``solver="nsgs"`` follows ``"lemke"``'s heights and impulses to
    rounding; the default for one contact is Lemke."""
    def ball():
        mdl = SpatialModel("ball")
        b = mdl.add(Body("ball", 1.0, (4e-5,) * 3, position=(0.0, 0.0, 1.0)))
        mdl.add(Contact("floor", b, Sphere(0.01), ground, Plane((0, 0, -0.01), (0, 0, 1)),
                        normal="rigid", restitution=0.9))
        mdl.add(Gravity(G))
        return mdl

    ref = nonsmooth.simulate(ball(), 10.0, method="MoreauJean", dt=0.005)
    ours = nonsmooth.simulate(ball(), 10.0, method=moreau_jean(solver="nsgs"), dt=0.005)
    assert ref.diagnostics["step_solver"]["solver"] == "lemke"
    assert ours.diagnostics["step_solver"]["solver"] == "nsgs"
    assert np.max(np.abs(ours["ball.z"] - ref["ball.z"])) < 1e-12
    assert np.max(np.abs(ours["floor.impulse"] - ref["floor.impulse"])) < 1e-12
    assert (ref["floor.impulse"] > 0).sum() == 345


def test_an_unconverged_nsgs_step_is_warned_of_with_time_contacts_and_residual():
    """One sweep per step cannot reach 1e-12: the first steps are each warned of (time,
    contacts, residual, sweeps), the rest summed up at the run's end, and counted in the
    diagnostics."""
    model = load("contact_spheres_box").build(n=8, width=0.22, e=0.0, h=0.005, spacing=2.1,
                                              jitter=0.05)
    with pytest.warns(NSGSConvergenceWarning) as caught:
        r = nonsmooth.simulate(model, 0.25, method=moreau_jean(tol=1e-12, max_iter=1),
                               dt=1e-3)
    messages = [str(w.message) for w in caught]
    assert re.search(r"step at t = 0\.\d+ s over \d+ contact\(s\) \('ball.*\) stopped at "
                     r"residual \S+ > tol 1e-12 after 1 sweeps", messages[0])
    assert sum("stopped at residual" in m for m in messages) == 5
    more = r.diagnostics["step_solver"]["unconverged"] - 5
    assert more > 5 and f"{more} more step(s) stopped above tol 1e-12" in messages[-1]


@pytest.mark.parametrize("options, match", [
    ({"solver": "pgs"}, "solver = 'pgs' is invalid; choose one of 'auto', 'lemke', 'nsgs'"),
    ({"tol": 0.0}, "tol = 0.0 is invalid"),
    ({"max_iter": 0}, "max_iter = 0 is invalid"),
    ({"max_iter": 2.5}, "max_iter = 2.5 is invalid"),
])
def test_bad_solver_options_are_named(options, match):
    with pytest.raises(ValueError, match=match):
        moreau_jean(**options)


def test_nsgs_is_refused_for_a_model_with_a_joint():
    mdl = SpatialModel("arm")
    arm = mdl.add(Body("arm", 1.0, (0.01, 0.02, 0.02), position=(0.25, 0.0, 0.1)))
    mdl.add(Revolute("pin", ground, arm, point=(0, 0, 0.1), axis=(0, 1, 0)))
    mdl.add(Contact("floor", arm, Sphere(0.05, position=(0.25, 0.0, 0.0)), ground,
                    Plane((0, 0, 0), (0, 0, 1)), normal="rigid", restitution=0.0))
    mdl.add(Gravity(G))
    with pytest.raises(ModelError, match="solver=\"nsgs\" takes free rigid bodies"):
        nonsmooth.simulate(mdl, 0.01, method=moreau_jean(solver="nsgs"), dt=1e-3,
                           throw=True)
    r = nonsmooth.simulate(mdl, 0.01, method="MoreauJean", dt=1e-3)
    assert r.success and r.diagnostics["step_solver"]["solver"] == "lemke"
