"""Events: several pairs switching at one instant, the chattering guard, Hermite location."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth import Constraint, FrictionPair, GeneralizedSystem, IntegrationError
from nonsmooth.dynamics import Dynamics
from nonsmooth.run.events import crossed, hermite, locate
from nonsmooth.simulate import _Run

M, K, G, MU_S, MU_D = 1.0, 100.0, 9.81, 0.4, 0.3


def two_blocks(k2=K):
    """Two blocks on a rough floor, each on its own spring to the wall (independent)."""
    return GeneralizedSystem(
        ["x1", "y1", "x2", "y2"], np.eye(4) * M,
        [Constraint("floor1", "normal", lambda t, q: q[1], lambda t, q: [0, 1, 0, 0],
                    lambda t, q, v: 0.0),
         Constraint("floor2", "normal", lambda t, q: q[3], lambda t, q: [0, 0, 0, 1],
                    lambda t, q, v: 0.0)],
        potential=lambda t, q: 0.5 * K * q[0] ** 2 + 0.5 * k2 * q[2] ** 2 + M * G * (q[1] + q[3]),
        potential_gradient=lambda t, q: [K * q[0], M * G, k2 * q[2], M * G],
        pairs=[FrictionPair("block1", "floor1", MU_D, MU_S),
               FrictionPair("block2", "floor2", MU_D, MU_S)],
        tangential=lambda t, q: [[1, 0, 0, 0], [0, 0, 1, 0]])


@pytest.mark.parametrize("method", ["RK4", "DOP853"])
def test_two_pairs_switching_at_one_instant(method):
    kw = {"dt": 1e-4} if method == "RK4" else {"dt": 1e-3, "rtol": 1e-12, "atol": 1e-14}
    x0 = 0.08  # k x0 > F_s; after one half-cycle |k x1| <= F_s: both stop at pi / omega
    r = nonsmooth.simulate(two_blocks(), 0.8, q0=[x0, 0, x0, 0], v0=[0, 0, 0, 0],
                           method=method, **kw)
    stops = [e for e in r.events if e.after == "stick"]
    assert sorted(e.pair for e in stops) == ["block1", "block2"]
    omega = math.sqrt(K / M)
    x1 = 2 * MU_D * M * G / K - x0
    assert abs(K * x1) <= MU_S * M * G
    for e in stops:
        assert abs(e.t - math.pi / omega) < 1e-9
    assert stops[0].t == stops[1].t  # handled together, one restart
    np.testing.assert_allclose(r.q[-1, [0, 2]], x1, atol=1e-9)


def test_chattering_is_reported_not_looped():
    system = two_blocks()
    run = _Run(system, Dynamics(system), [], None)
    y = np.zeros(4 * 2 + 5)
    modes = np.array([0.0, 0.0])
    run.faces = np.array([1.0, 1.0])
    with pytest.raises(IntegrationError, match=r"chattering \(Zeno\) at t = 1 s: more than 50 "
                                               r"events \['normal'\] within 1e-12 x "
                                               r"max\(1, t\) s of each other"):
        for _ in range(60):
            modes = run.handle(1.0, y, modes, [("normal", 0)])


def test_hermite_interpolant_and_location():
    # y = t^3 is reproduced exactly by the cubic Hermite interpolant of a step
    t0, t1 = 0.5, 1.5
    interp = hermite(t0, np.array([t0 ** 3]), np.array([3 * t0 ** 2]), t1, np.array([t1 ** 3]),
                     np.array([3 * t1 ** 2]))
    for t in np.linspace(t0, t1, 7):
        assert interp(t)[0] == pytest.approx(t ** 3, abs=1e-14)
    root = locate(lambda t: interp(t)[0] - 1.0, t0, t1, t0 ** 3 - 1, t1 ** 3 - 1)
    assert abs(root - 1.0) < 1e-13
    assert crossed(1.0, -1.0, -1) and not crossed(1.0, -1.0, 1) and crossed(-1.0, 1.0, 0)
    assert not crossed(0.0, 0.0, 0)


@pytest.mark.parametrize("method", ["RK4", "DOP853"])
def test_simultaneous_reversals_keep_identical_blocks_identical(method):
    """Identical blocks reverse at the same instants; the second root of a pair of simultaneous
    events must not be lost (it would leave that block slipping the wrong way)."""
    kw = {"dt": 1e-4} if method == "RK4" else {"dt": 1e-3, "rtol": 1e-12, "atol": 1e-14}
    r = nonsmooth.simulate(two_blocks(), 1.0, q0=[0.2, 0, 0.2, 0], v0=[0, 0, 0, 0],
                           method=method, **kw)
    np.testing.assert_allclose(r.q[:, 0], r.q[:, 2], atol=1e-12)
    per_pair = {name: [e.t for e in r.events if e.pair == name and e.kind == "velocity_zero"]
                for name in ("block1", "block2")}
    assert len(per_pair["block1"]) >= 2
    assert per_pair["block1"] == per_pair["block2"]
