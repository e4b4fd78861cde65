"""Redundant rows and singular configurations of spatial models.

* an over-constrained loop (a planar four-bar of five-row revolutes) runs by default with
  ``simulate(model)``: its redundant rows are removed with a warning naming them; the motion is
  the model's and the reactions satisfy the equations of motion; ``redundant="refuse"`` on the
  model or in ``simulate`` refuses them by name;
* the rank test is scaled: a pendulum 1e9-1e12 m long is not redundant, and its reaction is its
  weight;
* a configuration where rows are dependent only there (a parallelogram started flat: a change
  point) is named a singular configuration, not redundant rows.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, Spherical, ground
from nonsmooth.spatial.model import RedundancyWarning
from nonsmooth.spatial.rotation import from_axis_angle


def _four_bar(O1, B, C, O4, redundant="remove") -> SpatialModel:
    """A four-bar of spatial revolutes about z (20 rows, rank 17), points in the xy plane
    (m), gravity along -y."""
    mdl = SpatialModel("four-bar", redundant=redundant)
    z = (0.0, 0.0, 1.0)
    bodies = {}
    for name, P, Q, m in (("crank", O1, B, 1.0), ("coupler", B, C, 2.0),
                          ("rocker", O4, C, 1.5)):
        P, Q = np.array(P, float), np.array(Q, float)
        L = float(np.hypot(*(Q - P)))
        J = m * L * L / 12.0
        mid = (P + Q) / 2
        bodies[name] = mdl.add(Body(name, m, (1e-3 * J, J, J), position=(mid[0], mid[1], 0.0),
                                    orientation=from_axis_angle(z, math.atan2(*(Q - P)[::-1]))))
    mdl.add(Revolute("O1", ground, bodies["crank"], (*O1, 0.0), z))
    mdl.add(Revolute("B", bodies["crank"], bodies["coupler"], (*B, 0.0), z))
    mdl.add(Revolute("C", bodies["coupler"], bodies["rocker"], (*C, 0.0), z))
    mdl.add(Revolute("O4", bodies["rocker"], ground, (*O4, 0.0), z))
    mdl.add(Gravity(direction=(0.0, -1.0, 0.0)))
    return mdl


def _parallelogram(angle: float, redundant="remove") -> SpatialModel:
    """Crank and rocker 1 m, coupler and ground 2 m, the crank at ``angle`` (rad) from the
    ground line (0: flat, a change point)."""
    B = (-math.cos(angle), math.sin(angle))
    return _four_bar((0.0, 0.0), B, (B[0] + 2.0, B[1]), (2.0, 0.0), redundant)


def _crank_rocker(redundant="remove") -> SpatialModel:
    a, b, c, d, theta = 0.5, 1.2, 1.0, 1.0, 1.0
    O1, O4 = np.array([0.0, 0.0]), np.array([d, 0.0])
    B = O1 + a * np.array([math.cos(theta), math.sin(theta)])
    e = O4 - B
    dist = math.hypot(*e)
    along = (b * b - c * c + dist * dist) / (2 * dist)
    C = B + along * e / dist + math.sqrt(b * b - along * along) * np.array([-e[1], e[0]]) / dist
    return _four_bar(tuple(O1), tuple(B), tuple(C), tuple(O4), redundant)


def test_a_redundant_loop_runs_by_default_and_its_reactions_balance():
    """``simulate(model)`` of the four-bar: warned rows removed; the same motion as the model
    compiled with ``redundant="remove"``; at every output ``M dv = f + G^T lambda`` and the
    kept rows hold (the reactions are one solution of the loop's equations)."""
    kw = {"rtol": 1e-11, "atol": 1e-13, "t_eval": np.linspace(0.0, 1.0, 11)}
    with pytest.warns(RedundancyWarning, match=r"removed the redundant constraint rows "
                                               r"\['O4.z', 'O4.perp1', 'O4.perp2'\].*one of "
                                               r"the set"):
        result = nonsmooth.simulate(_crank_rocker(), 1.0, **kw)
    assert result.success
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundancyWarning)
        system = _crank_rocker().compile()
    assert system.removed_rows == ["O4.z", "O4.perp1", "O4.perp2"]
    assert result.lam.shape[1] == 17
    for k in range(len(result.t)):
        T = system.terms(result.t[k], result.q[k], result.v[k])
        balance = T.M @ result.dv[k] - T.f - T.G.T @ result.lam[k]
        assert np.max(np.abs(balance)) <= 1e-8 * (1.0 + np.max(np.abs(result.lam[k])))
        assert np.max(np.abs(T.phi)) <= 1e-9
    # the removed rows hold too: the loop closes in 3-D (z, and the axes stay parallel)
    full = nonsmooth.spatial.model.SpatialSystem(_crank_rocker())
    phi = np.array([full.python_terms(t, q, v).phi for t, q, v in
                    zip(result.t, result.q, result.v, strict=True)])
    assert np.max(np.abs(phi)) <= 1e-9
    assert np.ptp(result["crank.x"]) > 0.1  # it moved


def test_redundant_refuse_on_the_model_and_in_simulate():
    rows = r"\['O4.z', 'O4.perp1', 'O4.perp2'\] are combinations of the others"
    with pytest.raises(ModelError, match=rows):
        nonsmooth.simulate(_crank_rocker(redundant="refuse"), 0.1)
    with pytest.raises(ModelError, match=rows):
        nonsmooth.simulate(_crank_rocker(), 0.1, redundant="refuse")
    with pytest.warns(RedundancyWarning):
        compiled = nonsmooth.Model(_crank_rocker().compile(), *_crank_rocker().initial_state())
    with pytest.raises(ModelError, match=r"compiled with the redundant constraint rows "
                                         r"\['O4.z', 'O4.perp1', 'O4.perp2'\] removed"):
        nonsmooth.simulate(compiled, 0.1, redundant="refuse")
    with pytest.raises(ModelError, match="redundant = 'maybe' is invalid"):
        SpatialModel("m", redundant="maybe")
    with pytest.raises(ModelError, match="redundant = 'maybe' is invalid"):
        nonsmooth.simulate(_crank_rocker(), 0.1, redundant="maybe")


@pytest.mark.parametrize("length", [1e9, 1e12])
def test_a_very_long_pendulum_is_not_redundant(length):
    """The bob at the origin hangs from a spherical joint ``length`` m above it: three
    independent rows (unscaled, ``G``'s singular values are ``length`` and 1); at rest its
    reaction is its weight."""
    mdl = SpatialModel("long pendulum", redundant="refuse")
    bob = mdl.add(Body("bob", 2.0, (0.01, 0.01, 0.01)))
    mdl.add(Spherical("pin", ground, bob, point=(0.0, 0.0, length)))
    mdl.add(Gravity())
    system = mdl.compile()
    assert system.n_constraints == 3 and not system.removed_rows
    result = nonsmooth.simulate(mdl, 1.0, t_eval=[0.0, 0.5, 1.0])
    assert np.allclose(result["pin.Fz"], 2.0 * 9.81, rtol=1e-9)
    assert np.max(np.abs(result["bob.z"])) < 1e-6


def test_a_flat_parallelogram_is_a_singular_configuration_not_redundant():
    """Started flat (all links on one line: a change point) the rows of ``O4`` lose one more
    rank than the loop's three redundant rows: named a singular configuration at t = 0, with
    the rank here and next to it; 0.2 rad away it is only redundant and runs."""
    with pytest.raises(ModelError, match=r"configuration at t = 0 s is singular \(a dead "
                                         r"point, lock-up or change point.*\['O4.x'\].*"
                                         r"rank 16 here, 17 next to it") as info:
        _parallelogram(0.0).compile()
    assert "Replace a joint" not in str(info.value)  # not the redundancy's advice
    with pytest.raises(ModelError, match="is singular"):  # whatever redundant says
        _parallelogram(0.0, redundant="refuse").compile()
    with pytest.warns(RedundancyWarning):
        system = _parallelogram(0.2).compile()
    assert system.removed_rows == ["O4.z", "O4.perp1", "O4.perp2"]


def test_a_run_into_a_change_point_stops_with_the_singular_configuration_named():
    """The parallelogram released 0.2 rad above flat swings down to the flat change point,
    where its rows lose rank and the steps collapse: the run stops there, in well under a
    second of evaluations, naming the singular configuration, the time and the rows (not a
    budget or step-size error after minutes); the outputs up to it are kept."""
    with pytest.warns(RedundancyWarning):
        result = nonsmooth.simulate(_parallelogram(0.2), 1.0, throw=False)
    assert result.status == -1
    assert "singular configuration (a lock-up, dead point or change point)" in result.message
    assert "'O4.x'" in result.message
    t_stop = float(result.message.split("collapsed at t = ")[1].split(" s")[0])
    assert result.t[-1] <= t_stop < result.t[-1] + 0.002
    # where it stopped the crank is flat: its tip B = 0.5 (crank.y) from the line, 1e-3 of 1 m
    assert abs(result["crank.y"][-1]) < 1e-3 < abs(result["crank.y"][0])
    assert result.diagnostics["n_evaluations"] < 1_000_000
