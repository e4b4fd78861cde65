"""The transition problem by pivoting and the event-time HLCP without 2^p enumeration.

Oracles: a verbatim copy of the enumeration ``Dynamics.transition`` that the pivoting one
replaced (all 3^k stick / slip+ / slip- combinations, least preference rank wins), exact sign
enumeration (``solve_ave(method="enumerate")``) and the fixed-point iteration of
``lam = c + A |lam|`` (convergent for ``rho(|A|) < 1``).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest

import nonsmooth
from nonsmooth import (
    Constraint,
    ConstraintError,
    FrictionPair,
    GeneralizedSystem,
    InconsistentLCPError,
    IndeterminateLCPError,
    ModeError,
)
from nonsmooth.dynamics import Dynamics
from nonsmooth.errors import NonsmoothError
from nonsmooth.lcp import solve_ave
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Gravity, Spring
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.simulate import project

# --------------------------------------------------------------------------- the oracle


def old_transition(dyn, t, q, v, modes, candidates, *, options=None, z=None, tol=1e-9):  # noqa: C901
    """Verbatim copy of the enumeration ``Dynamics.transition`` (before the pivoting one)."""
    candidates = list(candidates)
    options = options or {}
    choice = [tuple(options.get(i, (0.0, 1.0, -1.0))) for i in candidates]
    mu_s = dyn.mu_s
    ranked = []
    for combo in itertools.product(*[range(len(c)) for c in choice]):
        ranked.append((sum(combo), combo))
    ranked.sort()
    found, best, last_error = [], None, None
    for rank, combo in ranked:
        if best is not None and rank > best:
            break
        trial = np.array(modes, dtype=float)
        for i, j, opts in zip(candidates, combo, choice, strict=True):
            trial[i] = opts[j]
        sticking = np.flatnonzero(trial == 0.0)
        if sticking.size and not dyn.can_stick(t, q, v, sticking):
            continue
        try:
            ev = dyn.evaluate(t, q, v, trial, None, z)
        except (ConstraintError, InconsistentLCPError) as exc:
            last_error = exc
            continue
        a_T = dyn.tangential_acceleration(t, q, v, ev)
        scale = max(1.0, float(np.max(np.abs(ev.dv))))
        ok = True
        for i in candidates:
            if trial[i] == 0.0:
                bound = mu_s[i] * abs(ev.N[i])
                ok &= abs(ev.F_T[i]) <= bound * (1 + 1e-9) + 1e-12 * max(1.0, bound)
            else:
                ok &= trial[i] * a_T[i] > tol * scale
        if ok:
            found.append(trial)
            best = rank
    if len(found) == 1:
        return found[0]
    if not found:
        if isinstance(last_error, InconsistentLCPError):
            raise last_error
        raise ModeError("no consistent mode")
    raise ModeError("several equally admissible modes")


def outcome(fn, *args, **kwargs):
    """The modes returned, or the name of the error raised."""
    try:
        return tuple(fn(*args, **kwargs).tolist())
    except NonsmoothError as exc:
        return type(exc).__name__


def consistent(dyn, t, q, v, modes, candidates, tol=1e-9) -> bool:
    """The consistency conditions of a mode vector (the oracle's test of one combination)."""
    sticking = np.flatnonzero(modes == 0.0)
    if sticking.size and not dyn.can_stick(t, q, v, sticking):
        return False
    ev = dyn.evaluate(t, q, v, modes)
    a_T = dyn.tangential_acceleration(t, q, v, ev)
    scale = max(1.0, float(np.max(np.abs(ev.dv))))
    for i in candidates:
        if modes[i] == 0.0:
            bound = dyn.mu_s[i] * abs(ev.N[i])
            if abs(ev.F_T[i]) > bound * (1 + 1e-9) + 1e-12 * max(1.0, bound):
                return False
        elif not modes[i] * a_T[i] > tol * scale:
            return False
    return True


# --------------------------------------------------------------------------- random cases


def _mu(rng):
    mu_d = rng.uniform(0.05, 0.7)
    return mu_d, mu_d * (1.0 if rng.random() < 0.3 else rng.uniform(1.0, 1.6))


def belt_model(rng, k):
    """k blocks at rest on a driven (possibly inclined) belt, springs to the wall and between
    neighbours; some blocks rigid with bending load and preload; maybe a pendulum on one."""
    mdl = PlanarModel("belt")
    ang = rng.uniform(-0.5, 0.5) if rng.random() < 0.6 else 0.0
    u = (math.cos(ang), math.sin(ang))
    vb = rng.uniform(-0.3, 0.3)
    belt = mdl.add(Body("belt", 2.0, 1.0, angle=ang, velocity=(vb * u[0], vb * u[1])))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), u))
    mdl.add(Driver("drive", track, speed=vb))
    blocks = []
    for i in range(k):
        s, m = float(i + 1), rng.uniform(0.5, 2.0)
        mu_d, mu_s = _mu(rng)
        pos, vel = (s * u[0], s * u[1]), (vb * u[0], vb * u[1])
        if rng.random() < 0.3:
            b = mdl.add(Body(f"b{i}", m, 0.1 * m, position=pos, angle=ang, velocity=vel))
            mdl.add(Translational(f"c{i}", belt, b, (0.0, 0.0), (1.0, 0.0), mu=mu_d, mu_s=mu_s,
                                  normal="left", inputs="1111",
                                  force_preload=rng.uniform(0.0, 1.0),
                                  initial_overlap=rng.uniform(0.05, 0.5)))
        else:
            b = mdl.add(PointMass(f"b{i}", m, position=pos, velocity=vel))
            mdl.add(Translational(f"c{i}", belt, b, (0.0, 0.0), (1.0, 0.0), mu=mu_d, mu_s=mu_s,
                                  normal="left"))
        blocks.append(b)
    mdl.add(Spring("s0", ground, (0.0, 0.0), blocks[0], (0.0, 0.0), rng.uniform(20, 200),
                   1.0 + rng.uniform(-0.08, 0.08)))
    for i in range(k - 1):
        mdl.add(Spring(f"s{i + 1}", blocks[i], (0.0, 0.0), blocks[i + 1], (0.0, 0.0),
                       rng.uniform(20, 200), 1.0 + rng.uniform(-0.08, 0.08)))
    bodies = list(blocks)
    if rng.random() < 0.5:  # mass coupling and velocity terms
        host = blocks[int(rng.integers(k))]
        th, L, w = rng.uniform(-1.2, 1.2) - math.pi / 2, 0.4, rng.uniform(-3, 3)
        p = (host.position[0] + 0.5 * L * math.cos(th), host.position[1] + 0.5 * L * math.sin(th))
        vel = (host.velocity[0] - w * 0.5 * L * math.sin(th),
               host.velocity[1] + w * 0.5 * L * math.cos(th))
        pend = mdl.add(Body("pend", rng.uniform(0.3, 2.0), 0.02, position=p, angle=th,
                            velocity=vel, angular_velocity=w))
        mdl.add(Revolute("pin", host, pend, (0.0, 0.0), (-0.5 * L, 0.0)))
        bodies.append(pend)
    mdl.add(Gravity(g=9.81, bodies=bodies))
    return mdl


def ladder_model(rng, k):
    """A rod with its ends in two ground slots (friction at one or both; strong coupling of
    normal and friction forces, jointly redundant stick rows), plus for k = 3 a block tied to
    it or a pendulum on a frictional pin (radial load)."""
    mdl = PlanarModel("ladder")
    a, b = rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0)
    ell = math.hypot(a, b)
    m = rng.uniform(0.5, 3.0)
    rod = mdl.add(Body("rod", m, m * ell ** 2 / 12, position=(a / 2, b / 2),
                       angle=math.atan2(-b, a)))
    mu1, mu2 = _mu(rng), _mu(rng)
    mdl.add(Translational("A", ground, rod, (0.0, 0.0), (1.0, 0.0), (ell / 2, 0.0),
                          lock_rotation=False, mu=mu1[0], mu_s=mu1[1]))
    friction_b = dict(mu=mu2[0], mu_s=mu2[1]) if k > 1 else {}
    mdl.add(Translational("B", ground, rod, (0.0, 0.0), (0.0, 1.0), (-ell / 2, 0.0),
                          lock_rotation=False, **friction_b))
    bodies = [rod]
    if rng.random() < 0.6:
        mdl.add(Spring("pull", ground, (a + rng.uniform(0.2, 1.0), rng.uniform(-0.5, 0.5)), rod,
                       (ell / 2, 0.0), rng.uniform(5, 80), 0.1))
    if k == 3:
        md, ms = _mu(rng)
        if rng.random() < 0.5:
            blk = mdl.add(PointMass("blk", rng.uniform(0.5, 2.0), position=(a + 1.0, -1.0)))
            mdl.add(Translational("C", ground, blk, (0.0, -1.0), (1.0, 0.0), mu=md, mu_s=ms,
                                  normal="left"))
            mdl.add(Spring("tie", rod, (ell / 2, 0.0), blk, (0.0, 0.0), rng.uniform(10, 100),
                           rng.uniform(0.5, 1.5)))
            bodies.append(blk)
        else:
            pend = mdl.add(Body("pend", rng.uniform(0.3, 1.5), 0.02,
                                position=(a / 2, b / 2 - 0.2), angle=-math.pi / 2))
            mdl.add(Revolute("C", rod, pend, (0.0, 0.0), (-0.2, 0.0), mu=md, mu_s=ms,
                             pin_radius=rng.uniform(0.005, 0.05)))
            bodies.append(pend)
    mdl.add(Gravity(g=9.81, bodies=bodies))
    return mdl


def random_case(seed, k):
    """A random transition problem with k pairs at rest: (dyn, q, v, modes, candidates,
    options); options: default, or a reserve event's (s, 0) for some pairs."""
    rng = np.random.default_rng(seed)
    mdl = belt_model(rng, k) if rng.random() < 0.55 else ladder_model(rng, k)
    system = mdl.compile()
    q, v = mdl.initial_state()
    q, v = project(system, 0.0, q, v)
    options = {}
    for i in range(system.n_pairs):
        r = rng.random()
        if r < 0.15:
            options[i] = (1.0, 0.0)
        elif r < 0.3:
            options[i] = (-1.0, 0.0)
    modes = np.where(rng.random(system.n_pairs) < 0.5, 0.0, 1.0)
    return Dynamics(system), q, v, modes, list(range(system.n_pairs)), options


@pytest.mark.parametrize("k", [1, 2, 3])
def test_pivoting_agrees_with_enumeration_on_random_cases(k):
    """Pivoting alone (no certificate) returns the enumeration's modes whenever the enumeration
    has an answer; the certified default reproduces the enumeration exactly (errors too)."""
    answered = slipping = 0
    for seed in range(120):
        dyn, q, v, modes, cands, options = random_case(seed, k)
        args = (0.0, q, v, modes, cands)
        old = outcome(old_transition, dyn, *args, options=options)
        pivot = outcome(dyn.transition, *args, options=options, certify_max=0)
        certified = outcome(dyn.transition, *args, options=options)
        assert certified == old, (seed, k)
        if isinstance(old, tuple):
            answered += 1
            slipping += any(m != 0.0 for m in old)
            assert pivot == old, (seed, k)
        else:  # no consistent combination: the pivoting search finds none either
            assert isinstance(pivot, str), (seed, k)
    assert answered >= 60 and slipping >= 30  # the cases are not trivial


def coupled_masses(rho=0.5, mu=0.3, mu_s=0.6, f=0.65):
    """Two unit point masses on floors, inertially coupled (``M_x = [[1, rho], [rho, 1]]``),
    pushed by ``f`` each: static friction cannot hold both, but either one holds while the
    other slips with ``mu``: two consistent combinations of equal preference rank."""
    M = np.eye(4)
    M[0, 2] = M[2, 0] = rho
    return GeneralizedSystem(
        ["x1", "y1", "x2", "y2"], M,
        [Constraint("n1", "normal", lambda t, q: q[1], lambda t, q: [0, 1, 0, 0],
                    lambda t, q, v: 0.0),
         Constraint("n2", "normal", lambda t, q: q[3], lambda t, q: [0, 0, 0, 1],
                    lambda t, q, v: 0.0)],
        forces=lambda t, q, v: [f, -1.0, f, -1.0],
        pairs=[FrictionPair("p1", "n1", mu, mu_s), FrictionPair("p2", "n2", mu, mu_s)],
        tangential=lambda t, q: [[1, 0, 0, 0], [0, 0, 1, 0]])


def test_indeterminacy_is_certified_for_few_pairs():
    dyn = Dynamics(coupled_masses())
    q, v, modes = np.zeros(4), np.zeros(4), np.zeros(2)
    with pytest.raises(ModeError, match="several equally admissible"):
        dyn.transition(0.0, q, v, modes, [0, 1])
    with pytest.raises(ModeError, match="several"):
        old_transition(dyn, 0.0, q, v, modes, [0, 1])
    # without the certificate the pivoting answer is one of the two, and consistent
    new = dyn.transition(0.0, q, v, modes, [0, 1], certify_max=0)
    assert sorted(new.tolist()) == [0.0, 1.0]
    assert consistent(dyn, 0.0, q, v, new, [0, 1])


# --------------------------------------------------------------------------- many pairs


def belt_chain(n, *, seed=0, spread=0.05, mu_s=0.5, mu_d=0.3, k_spring=100.0, v_belt=0.1):
    """n blocks on a driven belt, each in its own frictional joint with the belt, springs from
    the wall to block 1 and between neighbours (pre-stretched up to ``spread``), all at rest
    relative to the belt."""
    rng = np.random.default_rng(seed)
    mdl = PlanarModel("belt chain")
    belt = mdl.add(Body("belt", 5.0, 1.0, velocity=(v_belt, 0.0)))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("drive", track, speed=v_belt))
    blocks = []
    for i in range(n):
        blocks.append(mdl.add(PointMass(f"block{i + 1}", 1.0, position=(float(i + 1), 0.0),
                                        velocity=(v_belt, 0.0))))
        mdl.add(Translational(f"contact{i + 1}", belt, blocks[-1], (0.0, 0.0), (1.0, 0.0),
                              mu=mu_d, mu_s=mu_s, normal="left"))
    rest = 1.0 + rng.uniform(-spread, spread, n)
    mdl.add(Spring("wall", ground, (0.0, 0.0), blocks[0], (0.0, 0.0), k_spring, rest[0]))
    for i in range(n - 1):
        mdl.add(Spring(f"spring{i + 1}", blocks[i], (0.0, 0.0), blocks[i + 1], (0.0, 0.0),
                       k_spring, rest[i + 1]))
    mdl.add(Gravity(g=9.81, bodies=blocks))
    system = mdl.compile()
    q, v = mdl.initial_state()
    return system, q, v


def test_thirty_pairs_at_rest_at_once():
    system, q, v = belt_chain(30)
    dyn = Dynamics(system)
    cands = list(range(30))
    modes = np.ones(30)
    dyn.transition(0.0, q, v, modes, cands)  # warm-up (lazy imports)
    before = dyn.n_evaluations
    start = time.perf_counter()
    new = dyn.transition(0.0, q, v, modes, cands)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5
    assert dyn.n_evaluations - before <= 2 * 30 + 5  # no 3^k loop
    assert 0 < np.sum(new != 0.0) < 30  # a mixed answer: some blocks must slip
    # every pair satisfies the consistency conditions ...
    assert consistent(dyn, 0.0, q, v, new, cands)
    ev = dyn.evaluate(0.0, q, v, new)
    a_T = dyn.tangential_acceleration(0.0, q, v, ev)
    stick = new == 0.0
    assert np.all(np.abs(ev.F_T[stick]) <= dyn.mu_s[stick] * ev.N[stick] * (1 + 1e-9))
    assert np.all(new[~stick] * a_T[~stick] > 0.0)
    # ... and its own preference: given the others, the enumeration of each pair alone
    # chooses the same mode
    for i in cands:
        alone = old_transition(dyn, 0.0, q, v, new, [i])
        assert alone[i] == new[i], i


def test_thirty_pairs_as_a_reserve_event():
    """Block 1's reserve has run out (it prefers to slip), the other 29 are sticking."""
    system, q, v = belt_chain(30, seed=3)
    dyn = Dynamics(system)
    modes = np.zeros(30)
    new = dyn.transition(0.0, q, v, modes, list(range(30)), options={0: (-1.0, 0.0)})
    assert consistent(dyn, 0.0, q, v, new, list(range(30)))


def test_run_with_five_pairs_matches_the_enumeration(monkeypatch):
    """A whole event-driven run of a chain of five blocks: the same events and states as with
    the enumeration (pivoting alone decides: k > 3)."""
    system, q, v = belt_chain(5, seed=1)
    kwargs = dict(q0=q, v0=v, method="DOP853", dt=1e-3, rtol=1e-9, atol=1e-11)
    new = nonsmooth.simulate(system, 1.0, **kwargs)
    monkeypatch.setattr(Dynamics, "transition", lambda self, *a, certify_max=None, **kw:
                        old_transition(self, *a, **kw))
    old = nonsmooth.simulate(system, 1.0, **kwargs)
    events = [[(e.t, e.pair, e.kind, e.before, e.after) for e in r.events] for r in (new, old)]
    assert events[0] == events[1]
    assert len(events[0]) > 5 and any(e[2] == "reserve_zero" for e in events[0])
    np.testing.assert_array_equal(new.q, old.q)


# --------------------------------------------------------------------------- the HLCP


@pytest.fixture
def dyn():
    system, _, _ = belt_chain(1)
    return Dynamics(system)


def _random_ave(rng, p, radius):
    A = rng.normal(size=(p, p))
    A *= radius / np.max(np.abs(np.linalg.eigvals(np.abs(A))))
    return A, 10.0 * rng.normal(size=p)


def _fixed_point(A, c, iterations=5000):
    lam = c.copy()
    for _ in range(iterations):
        lam = c + A @ np.abs(lam)
    return lam


def forbid_enumeration(monkeypatch):
    """Fail on any sign-pattern or complementary-basis enumeration in :mod:`nonsmooth.lcp`."""
    import nonsmooth.lcp.ave as ave
    import nonsmooth.lcp.hlcp as hlcp
    import nonsmooth.lcp.solve as solve

    def forbidden(*args, **kwargs):
        raise AssertionError("2^p enumeration on the HLCP path")

    monkeypatch.setattr(ave, "enumerate_complementary_bases", forbidden)
    monkeypatch.setattr(ave, "_fast_patterns", forbidden)
    monkeypatch.setattr(hlcp, "enumerate_complementary_bases", forbidden)
    monkeypatch.setitem(solve.LCP_METHODS, "enumerate", forbidden)


@pytest.fixture
def no_enumeration(monkeypatch):
    forbid_enumeration(monkeypatch)


@pytest.mark.parametrize("p", range(10, 21))
def test_hlcp_by_pivoting_matches_enumeration(dyn, p, monkeypatch):
    rng = np.random.default_rng(p)
    problems = [_random_ave(rng, p, rng.uniform(0.2, 0.95)) for _ in range(4)]
    references = []
    for A, c in problems:
        if p <= 12:  # exact sign enumeration is still feasible
            ref = solve_ave(A, c, method="enumerate")
            assert ref.success
            references.append(ref.lam)
        else:
            references.append(_fixed_point(A, c))
    forbid_enumeration(monkeypatch)
    for (A, c), ref in zip(problems, references, strict=True):
        mag = dyn._normal_magnitudes(0.0, A, c)
        np.testing.assert_allclose(mag, np.abs(ref), rtol=1e-9, atol=1e-9 * np.max(np.abs(c)))


def test_hlcp_uniqueness_by_the_2_norm(dyn, no_enumeration):
    """rho(|A|) >= 1 but ||A||_2 < 1: still certified unique (a contraction), pivoted."""
    block = np.array([[0.6, 0.6], [0.6, -0.6]])
    A = np.kron(np.eye(3), block)
    assert np.max(np.abs(np.linalg.eigvals(np.abs(A)))) >= 1.0 > np.linalg.norm(A, 2)
    c = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.2])
    np.testing.assert_allclose(dyn._normal_magnitudes(0.0, A, c), np.abs(_fixed_point(A, c)),
                               rtol=1e-10)


def _two_roots(p):
    """Block diagonal: one self-locking row (a = 2) and p - 1 benign ones."""
    A = np.diag(np.r_[2.0, np.full(p - 1, 0.3)])
    A[2:, 2:] += 0.05
    return A


def test_hlcp_without_certificate_says_so(dyn, no_enumeration):
    p = 6
    A = _two_roots(p)
    c = np.r_[-1.0, np.ones(p - 1)]  # two roots of the first row: 1 and -1/3
    with pytest.raises(IndeterminateLCPError, match="uniqueness could not be certified"):
        dyn._normal_magnitudes(0.0, A, c)
    c = np.r_[1.0, np.ones(p - 1)]  # no root of the first row
    with pytest.raises(InconsistentLCPError, match="no solution"):
        dyn._normal_magnitudes(0.0, A, c)


def test_hlcp_enumeration_on_request(dyn):
    p = 6
    A = _two_roots(p)
    dyn.hlcp_enumeration_max_size = p
    with pytest.raises(IndeterminateLCPError, match="2 solutions"):
        dyn._normal_magnitudes(0.0, A, np.r_[-1.0, np.ones(p - 1)])
    with pytest.raises(InconsistentLCPError, match="no solution"):
        dyn._normal_magnitudes(0.0, A, np.r_[1.0, np.ones(p - 1)])
    # uncertified by rho(|A|) and ||A||_2, yet unique for this c: the enumeration proves it
    A[:2, :2] = [[-1.2, 1.0], [0.9, -0.8]]
    c = np.r_[2.0, -3.0, np.ones(p - 2)]
    assert min(np.max(np.abs(np.linalg.eigvals(np.abs(A)))), np.linalg.norm(A, 2)) > 1.0
    mag = dyn._normal_magnitudes(0.0, A, c)
    np.testing.assert_allclose(mag, np.abs(solve_ave(A, c, method="enumerate").lam))


def test_tiny_hlcp_keeps_the_exact_enumeration(dyn):
    A = np.array([[2.0, 0.0], [0.0, 0.2]])
    with pytest.raises(IndeterminateLCPError, match="2 solutions"):
        dyn._normal_magnitudes(0.0, A, np.array([-1.0, 1.0]))
