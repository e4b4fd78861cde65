"""The bundled models of rigid contact, event-driven and with Moreau-Jean side by side:
``rigid_bouncing_ball``, ``rocking_block``, ``painleve_rod``, ``newtons_cradle`` and
``slider_crank_stop``, each against its closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth import models
from nonsmooth.errors import IntegrationError


def test_the_rigid_ball_rests_from_newtons_accumulation_time_in_both_methods():
    """Event-driven: the closure at ``accumulation_time(h, e, g)`` to 1e-10 s; Moreau-Jean
    (h = 1e-3, e = 0.5): at rest after it, within ``g h^2`` of the floor and ``g h`` of rest."""
    mod = models.load("rigid_bouncing_ball")
    r = nonsmooth.simulate(models.build("rigid_bouncing_ball"), 6.0)
    (acc,) = r.events.filter("floor", kind="accumulation")
    assert abs(acc.t - mod.accumulation_time(1.0, 0.8, 9.81)) < 1e-10
    assert np.max(np.abs(r["height"][r.t > acc.t])) < 1e-9
    t_inf = mod.accumulation_time(1.0, 0.5, 9.81)
    mj = nonsmooth.simulate(models.build("rigid_bouncing_ball", e=0.5), 2.0,
                            method="MoreauJean", dt=1e-3)
    late = mj.t > t_inf + 0.05  # (the last 0.6 s of the run)
    assert np.max(np.abs(mj["height"][late])) < 9.81 * 1e-6
    assert np.max(np.abs(mj["vz"][late])) < 9.81 * 1e-3 * 1.01


def test_the_painleve_rod_model_runs_below_and_stops_above_its_critical_mu():
    mod = models.load("painleve_rod")
    theta = math.atan(2.0)
    assert mod.critical_mu(theta) == pytest.approx(4.0 / 3.0, rel=1e-14)
    r = nonsmooth.simulate(models.build("painleve_rod", mu=1.3), 0.05)
    assert r.success
    assert np.all(r["N"] > 0.0)  # sliding on its end all along
    with pytest.raises(IntegrationError, match=r"'tip' .*inconsistent.* mu = 1.5"):
        nonsmooth.simulate(models.build("painleve_rod", mu=1.5), 0.05)
    assert mod.normal_response(1.5, theta) < 0.0 < mod.normal_response(1.3, theta)


def test_newtons_cradle_sequential_and_simultaneous():
    """With gaps (1e-4 m) the impacts are sequential: the last ball leaves at v0 and the others
    stop (to 1e-12); touching balls (gap 0) make one simultaneous impact, whose Newton law
    with e = 1 spreads the momentum (first ball -0.6 v0, the others 0.4 v0 for five balls),
    momentum and energy conserved both ways."""
    v0, m = 1.0, 0.1
    seq = nonsmooth.simulate(models.build("newtons_cradle"), 0.05)
    V = seq.v[-1].reshape(5, 6)[:, 0]
    np.testing.assert_allclose(V, [0, 0, 0, 0, v0], atol=1e-12)
    assert len(seq.events.filter(kind="impact")) == 4
    sim = nonsmooth.simulate(models.build("newtons_cradle", gap=0.0), 0.05)
    V = sim.v[-1].reshape(5, 6)[:, 0]
    np.testing.assert_allclose(V, [-0.6, 0.4, 0.4, 0.4, 0.4], atol=1e-12)
    for r in (seq, sim):
        np.testing.assert_allclose(r["energy"], 0.5 * m * v0 ** 2, rtol=1e-12)
        np.testing.assert_allclose(r.v[-1].reshape(5, 6)[:, 0].sum() * m, m * v0, rtol=1e-12)


def test_the_slider_crank_bounces_off_its_stop_with_newtons_restitution():
    """No force between the impacts, so the mechanism returns to the stop at the speed it left
    it: each impact's approach speed is ``e`` times the last (to 1e-8); the kinetic energy is
    constant between impacts and drops at each; the slider never passes the stop."""
    r = nonsmooth.simulate(models.build("slider_crank_stop"), 1.0)
    impacts = r.events.filter("stop", kind="impact")
    assert len(impacts) == 2
    assert impacts[1].speed / impacts[0].speed == pytest.approx(0.5, rel=1e-8)
    assert r["stop_gap"].min() > -1e-9
    t1, t2 = impacts[0].t, impacts[1].t
    between = (r.t > t1) & (r.t < t2)
    np.testing.assert_allclose(r["energy"][between], r["energy"][between][0], rtol=1e-8)
    assert r["energy"][r.t > t2][0] < r["energy"][between][0] < r["energy"][0]
    assert np.max(np.abs(r.phi)) < 1e-8


def test_the_rocking_block_comes_to_rest_flat_at_its_accumulation():
    """Released at 5 % of its slenderness angle, the block rocks, each impact multiplying
    its angular velocity by Housner's factor (to 1e-10, the first ten), and its impacts
    accumulate: the run closes the contact there (an ``accumulation`` event, before 2 s) and
    the block rests flat: its energy ``m g h`` (7.848 J) to 1e-9, never rising, no corner
    below the floor."""
    r = nonsmooth.simulate(models.build("rocking_block", tilt=0.05), 2.0)
    factor = models.load("rocking_block").housner_factor(0.1, 0.4)
    for ev in r.events.filter("floor", kind="impact")[:10]:  # (before the lifts shrink to
        assert abs(ev.v_after[4] / ev.v[4] - factor) < 1e-10  # round-off)
    np.testing.assert_allclose(r["angle"][0], 0.05 * math.atan(0.25), rtol=1e-12)
    (acc,) = r.events.filter("floor", kind="accumulation")
    assert acc.t < 1.9
    assert len(r.events.filter("floor", kind="impact")) < 60
    rest = r.t > acc.t + 0.01
    np.testing.assert_allclose(r["energy"][rest], 2.0 * 9.81 * 0.4, rtol=0, atol=1e-9)
    assert np.max(np.diff(r["energy"])) < 1e-9
    assert np.max(np.abs(r["angle"][rest])) < 1e-9
    assert r["floor.gap"].min() > -1e-9


def test_the_event_log_file_has_the_impacts_impulses(tmp_path):
    """The command line's event log of Newton's cradle: each impact with its approach speed
    and impulse (m v0 for equal balls with e = 1)."""
    import csv

    r = nonsmooth.simulate(models.build("newtons_cradle"), 0.05)
    rows = list(csv.DictReader(r.events_to_csv(tmp_path / "events.csv").open()))
    impacts = [row for row in rows if row["kind"] == "impact"]
    assert len(impacts) == 4
    for row in impacts:
        assert float(row["speed"]) == pytest.approx(1.0, rel=1e-12)
        assert float(row["impulse"]) == pytest.approx(0.1, rel=1e-12)
