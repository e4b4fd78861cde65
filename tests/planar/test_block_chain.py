"""The Burridge-Knopoff block chain (models/block_chain.py): closed-form limit cycle for one
block, stick-slip and energy balance for three, parameter checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from stick_slip_closed_form import belt_cycle

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.models import block_chain

ACCURATE = {"method": "DOP853", "rtol": 1e-12, "atol": 1e-14}


def test_one_block_has_the_closed_form_limit_cycle():
    p = {"m": 1.5, "k": 40.0, "mu_s": 0.5, "mu_d": 0.3, "v_belt": 0.2, "g": 9.81}
    T_stick, T_slip = belt_cycle(**p)
    model = block_chain.build(N=1, seed=3, **p)
    r = nonsmooth.simulate(model, 3.3 * (T_stick + T_slip), dt=1e-2, **ACCURATE)
    breakaway = [e.t for e in r.events if e.kind == "reserve_zero"]
    restick = [e.t for e in r.events if e.kind == "velocity_zero" and e.after == "stick"]
    assert len(breakaway) >= 3 and len(restick) >= 2
    np.testing.assert_allclose(np.diff(breakaway), T_stick + T_slip, rtol=1e-8)
    sticks = [b - s for s, b in zip(restick, breakaway[1:], strict=False)]
    np.testing.assert_allclose(sticks, T_stick, rtol=1e-8)
    # the first breakaway: the spring reaches F_s from the perturbed start, riding the belt
    F_s = p["mu_s"] * p["m"] * p["g"]
    x0 = block_chain.initial_displacements(1, 3, 0.2, F_s, p["k"])[0]
    assert breakaway[0] == pytest.approx((F_s / p["k"] - x0) / p["v_belt"], rel=1e-9)
    assert r.events[0].after == "stick"


def test_three_blocks_stick_and_slip_and_close_the_energy_balance():
    model = block_chain.build(N=3, seed=1)
    r = nonsmooth.simulate(model, 3.3, dt=1e-2, method="DOP853", rtol=1e-10, atol=1e-12)
    assert r.status == 0
    assert [e.after for e in r.events if e.kind == "start"] == ["stick"] * 3
    broke = {e.pair for e in r.events if e.kind == "reserve_zero"}
    stuck = {e.pair for e in r.events if e.kind == "velocity_zero" and e.after == "stick"}
    assert broke == stuck == {"contact1", "contact2", "contact3"}
    assert r.diagnostics["energy_balance_relative"] < 1e-8
    assert r.diagnostics["max_lcp_residual"] < 1e-10
    for i in (1, 2, 3):
        held = r[f"mode{i}"] == 0
        assert held.any() and (~held).any()
        np.testing.assert_allclose(r[f"v{i}"][held], 0.1, atol=1e-9)  # rides the belt
    # the blocks do not move in lockstep
    assert np.max(np.abs(r["x1"] - r["x2"])) > 1e-3


def test_seed_and_spread_perturb_only_the_initial_positions():
    a, b = block_chain.build(N=4, seed=7), block_chain.build(N=4, seed=8)
    ix = [a.system.coordinate_names.index(f"block{i}.x") for i in range(1, 5)]
    rest = np.arange(4) * block_chain.SPACING
    da, db = a.q0[ix] - rest, b.q0[ix] - rest
    assert not np.allclose(da, db)
    assert np.all(np.abs(da) <= 0.2 * 0.4 * 9.81 / 100.0)
    np.testing.assert_array_equal(da, block_chain.build(N=4, seed=7).q0[ix] - rest)
    np.testing.assert_allclose(a.v0[ix], 0.1)
    flat = block_chain.build(N=4, spread=0.0)
    np.testing.assert_allclose(flat.q0[ix], rest)
    assert len(a.outputs) == 12 and list(a.outputs)[:2] == ["x1", "x2"]


@pytest.mark.parametrize("given", [
    {"N": 0}, {"N": 1001}, {"N": 2.5}, {"m": 0.0}, {"m": 2e9}, {"k": -1.0},
    {"mu_s": 0.2, "mu_d": 0.3}, {"mu_d": 11.0, "mu_s": 12.0}, {"v_belt": 2e3}, {"g": 0.0},
    {"seed": -1}, {"seed": 1.5}, {"spread": 0.3}, {"t_end": 0.0}, {"t_end": math.inf},
    {"mass": 1.0},
])
def test_parameters_out_of_range_are_refused(given):
    with pytest.raises(ModelError, match="block_chain"):
        block_chain.build(**given)


def test_a_chain_beyond_what_runs_is_refused_with_the_reason():
    # issue 19: N = 1000 (the old maximum) made no step in 100 s; N = 100 runs in seconds
    from nonsmooth.models import build

    with pytest.raises(ModelError, match=r"N = '101' is out of range; allowed: >= 1 and <= 100 "
                                         r".*N\^2\.6"):
        build("block_chain", N="101")
    assert build("block_chain", N="100").system.n_q == 203
