"""One evaluation: the normal-force HLCP, jamming errors, singular KKT, transition problem."""

from __future__ import annotations

import math

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
)
from nonsmooth.dynamics import Dynamics

MASS = 2.0


def coupled_slider(k, mu, fy, fx=0.0):
    """A point mass on the line y = 0 whose tangential row is W = [1, k].

    The y equation gives lambda_N = -fy - k F_T with F_T = -mu s |lambda_N|, i.e. the scalar
    absolute value equation lambda_N = c + a |lambda_N| with c = -fy and a = k mu s.
    """
    return GeneralizedSystem(
        ["x", "y"], np.eye(2) * MASS,
        [Constraint("guide", "normal", lambda t, q: q[1], lambda t, q: [0.0, 1.0],
                    lambda t, q, v: 0.0)],
        forces=lambda t, q, v: [fx, fy],
        pairs=[FrictionPair("guide", "guide", mu)],
        tangential=lambda t, q: [[1.0, k]])


@pytest.mark.parametrize("a, c", [(0.5, 10.0), (0.5, -10.0), (-0.9, 3.0), (-0.9, -3.0),
                                  (0.0, 4.0)])
def test_scalar_hlcp_solution_and_residual(a, c):
    system = coupled_slider(k=a / 0.5, mu=0.5, fy=-c)
    dyn = Dynamics(system)
    ev = dyn.evaluate(0.0, np.zeros(2), np.array([1.0, 0.0]), np.array([1.0]))
    expected = c / (1 - a) if c >= 0 else c / (1 + a)
    assert ev.lambda_N[0] == pytest.approx(expected, rel=1e-13)
    assert ev.F_T[0] == pytest.approx(-0.5 * abs(expected), rel=1e-13)
    assert ev.residual < 1e-14
    A, cc = dyn.normal_equation(0.0, np.zeros(2), np.array([1.0, 0.0]), np.array([1.0]))
    assert A[0, 0] == pytest.approx(a) and cc[0] == pytest.approx(c)


def test_jamming_without_solution_is_named():
    system = coupled_slider(k=4.0, mu=0.5, fy=-10.0)  # a = 2 > 1, c = 10 > 0: no solution
    with pytest.raises(InconsistentLCPError, match=r"at t = 0 s the normal forces of pairs "
                       r"\['guide'\] have no solution.*self-locking") as info:
        nonsmooth.simulate(system, 1.0, q0=[0, 0], v0=[1, 0])
    err = info.value
    assert err.t == 0 and err.pairs == ["guide"]
    assert err.A[0, 0] == pytest.approx(2.0) and err.c[0] == pytest.approx(10.0)
    assert not isinstance(err, IndeterminateLCPError)


def test_jamming_with_two_solutions_is_named():
    system = coupled_slider(k=4.0, mu=0.5, fy=10.0)  # a = 2 > 1, c = -10 < 0: two solutions
    with pytest.raises(IndeterminateLCPError, match=r"have 2 solutions") as info:
        nonsmooth.simulate(system, 1.0, q0=[0, 0], v0=[1, 0])
    lams = sorted(s[0] for s in info.value.solutions)
    assert lams == pytest.approx([-10 / 3, 10.0])  # c/(1+a) and c/(1-a)


def test_failed_run_without_throw_reports_status():
    system = coupled_slider(k=4.0, mu=0.5, fy=-10.0)
    r = nonsmooth.simulate(system, 1.0, q0=[0, 0], v0=[1, 0], throw=False)
    assert r.status == -1 and not r.success
    assert "no solution" in r.message


def test_two_coupled_pairs_match_enumeration():
    """Two pairs coupled through the mass matrix: the HLCP solution is the unique root."""
    M = np.array([[2.0, 0.3, 0.1, 0.0], [0.3, 1.5, 0.0, 0.2], [0.1, 0.0, 1.0, 0.1],
                  [0.0, 0.2, 0.1, 1.2]])
    system = GeneralizedSystem(
        ["x1", "y1", "x2", "y2"], M,
        [Constraint("n1", "normal", lambda t, q: q[1], lambda t, q: [0, 1, 0, 0],
                    lambda t, q, v: 0.0),
         Constraint("n2", "normal", lambda t, q: q[3] - q[1], lambda t, q: [0, -1, 0, 1],
                    lambda t, q, v: 0.0)],
        forces=lambda t, q, v: [0.0, -9.81, 1.0, -5.0],
        pairs=[FrictionPair("p1", "n1", 0.4), FrictionPair("p2", "n2", 0.6)],
        tangential=lambda t, q: [[1, 0.2, 0, 0], [-1, 0, 1, 0.3]])
    dyn = Dynamics(system)
    q, v, modes = np.zeros(4), np.array([1.0, 0, -1.0, 0]), np.array([1.0, -1.0])
    ev = dyn.evaluate(0.0, q, v, modes)
    A, c = dyn.normal_equation(0.0, q, v, modes)
    np.testing.assert_allclose(ev.lambda_N, c + A @ np.abs(ev.lambda_N), atol=1e-12)
    assert ev.residual < 1e-12
    # the equations of motion hold with these forces
    T = system.terms(0.0, q, v)
    lhs = M @ ev.dv
    rhs = T.f + T.G.T @ ev.lam + T.W.T @ ev.F_T
    np.testing.assert_allclose(lhs, rhs, atol=1e-12)
    np.testing.assert_allclose(ev.F_T, -system.mu * modes * np.abs(ev.lambda_N), atol=1e-14)


def test_redundant_constraints_raise_constraint_error():
    system = GeneralizedSystem(
        ["x"], [[1.0]],
        [Constraint(["a", "b"], "joint", lambda t, q: [q[0], q[0]],
                    lambda t, q: [[1.0], [1.0]], lambda t, q, v: [0.0, 0.0])])
    with pytest.raises(ConstraintError, match="KKT matrix .* is singular"):
        nonsmooth.simulate(system, 1.0, q0=[0.0])


def test_block_slides_to_rest_and_sticks():
    """A block sliding on a rough floor stops at v0 / (mu g) after v0^2 / (2 mu g) and stays."""
    g, mu, v0 = 9.81, 0.5, 1.0
    system = GeneralizedSystem(
        ["x", "y"], np.eye(2),
        [Constraint("floor", "normal", lambda t, q: q[1], lambda t, q: [0.0, 1.0],
                    lambda t, q, v: 0.0)],
        forces=lambda t, q, v: [0.0, -g], pairs=[FrictionPair("floor", "floor", mu)],
        tangential=lambda t, q: [[1.0, 0.0]])
    r = nonsmooth.simulate(system, 1.0, q0=[0, 0], v0=[v0, 0], method="RK4", dt=1e-3)
    stops = [e for e in r.events if e.kind == "velocity_zero"]
    assert len(stops) == 1 and (stops[0].before, stops[0].after) == ("slip+", "stick")
    assert abs(stops[0].t - v0 / (mu * g)) < 1e-10
    assert abs(stops[0].q[0] - v0 ** 2 / (2 * mu * g)) < 1e-10
    after = r.t > stops[0].t
    assert np.all(r.modes[after, 0] == 0)
    np.testing.assert_allclose(r.q[after, 0], v0 ** 2 / (2 * mu * g), atol=1e-10)
    np.testing.assert_allclose(r["F_T"][after], 0.0, atol=1e-10)


def test_baumgarte_parameters_are_checked():
    with pytest.raises(ValueError, match=r"Baumgarte parameter alpha = -1 is invalid"):
        Dynamics(coupled_slider(0.0, 0.1, -1.0), alpha=-1)
    with pytest.raises(ValueError, match=r"beta = nan"):
        Dynamics(coupled_slider(0.0, 0.1, -1.0), beta=math.nan)
