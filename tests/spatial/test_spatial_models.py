"""The bundled spatial models ``models/spatial_gyroscope.py`` and ``models/spatial_four_bar.py``:
they build, run 1 s with the invariants they must keep (energy, constraint drift, the loop's
lengths) and run from the command line; ``models/spatial_belt_block.py`` against the planar
``models/stick_slip_oscillator.py`` (positions, loads, friction, every event to 1e-9)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.models import (
    spatial_belt_block,
    spatial_four_bar,
    spatial_gyroscope,
    stick_slip_oscillator,
)
from nonsmooth.spatial.rotation import rotation_matrix

ROOT = Path(__file__).resolve().parents[2]

KW = dict(rtol=1e-11, atol=1e-13)


def test_gyroscope_runs_one_second():
    r = nonsmooth.simulate(spatial_gyroscope.build(), 1.0, dt=0.005, **KW)
    assert r.success
    E = r["energy"]
    assert np.max(np.abs(E - E[0])) / abs(E[0]) < 1e-10
    assert r.diagnostics["max_drift_position"] < 1e-10
    assert np.ptp(r["phi"]) > 0.5  # it precesses
    ref = spatial_gyroscope.nutation(**{k: r.model.parameters[k] for k in (
        "m", "J1", "J3", "L", "theta0", "spin", "precession", "g")})
    assert np.max(r["theta"]) == pytest.approx(ref["theta_max"], abs=1e-4)  # sampled at 5 ms


def test_four_bar_runs_one_second():
    m = spatial_four_bar.build()
    r = nonsmooth.simulate(m, 1.0, dt=0.01, **KW)
    assert r.success and r.q.shape[1] == 21
    d = r.diagnostics
    assert d["energy_balance_scaled"] < 1e-9, d["energy_balance_scaled"]  # measured 7e-13
    assert d["max_drift_position"] < 1e-10 and d["max_drift_velocity"] < 1e-9
    assert r["crank_angle"][-1] == pytest.approx(2 * np.pi, abs=1e-9)  # one turn in 1 s
    assert np.ptp(r["rocker_angle"]) > 0.5 and np.ptp(r["torque"]) > 0.05
    # the coupler's length |B - A|: A on the crank, B on the rocker's arm
    p = r.model.parameters
    D = np.array([p["Dx"], p["Dy"], p["Dz"]])
    A = np.array([rotation_matrix(q[3:7]) @ [p["a"], 0.0, 0.0] for q in r.q])
    rocker = m.system.model.bodies[2]
    sB = rocker.local_point(D + (2 * rocker.position - 2 * D))  # B = 2 c_rocker - D at t = 0
    B = np.array([q[14:17] + rotation_matrix(q[17:21]) @ sB for q in r.q])
    assert np.max(np.abs(np.linalg.norm(B - A, axis=1) - p["b"])) < 1e-10
    assert np.max(np.abs(np.linalg.norm(B - D, axis=1) - p["c"])) < 1e-10


def test_four_bar_refuses_an_open_loop():
    with pytest.raises(ModelError, match="cannot close the loop at every crank angle"):
        spatial_four_bar.build(b=0.3)


@pytest.mark.parametrize("name", ["spatial_gyroscope", "spatial_four_bar",
                                  "spatial_belt_block"])
def test_models_run_from_the_command_line(name, capsys):
    from nonsmooth.cli import main

    assert main(["run", str(ROOT / "models" / f"{name}.py"), "--t-end", "0.5"]) == 0
    assert "status 0: the simulation reached the end time" in capsys.readouterr().out


def test_a_spatial_model_sweeps_in_worker_processes(tmp_path):
    """``nonsmooth.sweep`` over a spatial model in worker processes: every case runs, and its
    metrics equal a direct run's."""
    study = nonsmooth.sweep("spatial_double_pendulum", {"tilt": [0.0, 0.5, 1.0]}, t_end=0.5,
                            metrics=["max:rod2.z", "final:rod2.x"], store=tmp_path / "s",
                            workers=2, progress=False)
    assert list(study["status"]) == ["ok", "ok", "ok"]
    direct = nonsmooth.simulate(nonsmooth.models.build("spatial_double_pendulum", tilt=0.5),
                                0.5)
    assert study["max:rod2.z"][1] == pytest.approx(float(np.max(direct["rod2.z"])),
                                                    rel=1e-12)
    assert study["final:rod2.x"][1] == pytest.approx(float(direct["rod2.x"][-1]), rel=1e-12)
    assert len(set(np.round(study["final:rod2.x"], 9))) == 3  # the tilt changes the motion


# ============================================================ the belt block, spatial vs planar
TIGHT = dict(rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("params", [
    {},  # the belt's limit cycle: 7 breakaways and resticks in 5 s
    {"c": 0.5},  # with the damper
    {"v_belt": -0.2, "v0": 0.3, "x0": 0.05},  # the belt backwards: slip+, starting in slip
    {"v_belt": 0.0, "v0": 0.0, "x0": 0.3},  # Coulomb free vibration: reversals, then stuck
], ids=["limit-cycle", "damped", "reversed-belt", "free-vibration"])
def test_spatial_belt_block_equals_the_planar_model(params):
    """The spatial belt block and the planar ``stick_slip_oscillator`` with the same
    parameters over the planar model's span (5 s): the same events (kinds, modes) at the same
    times to 1e-9 s, and the position (m), velocities (m/s), normal load and support force,
    friction force (N) and modes on the output grid to 1e-9. Measured (this machine): events
    1.6e-12 s, x 1.5e-12 m, v 1.8e-11 m/s, N 3.8e-12 N, F_f 1.1e-10 N (stuck: the two
    integrators' different steps leave different 1e-12 drifts for the stabilization)."""
    spatial = spatial_belt_block.build(**params)
    planar = stick_slip_oscillator.build(**params)
    assert spatial.t_end == planar.t_end == 5.0
    rs = nonsmooth.simulate(spatial, dt=0.01, **TIGHT)
    rp = nonsmooth.simulate(planar, dt=0.01, **TIGHT)
    assert rs.success and rp.success
    np.testing.assert_array_equal(rs.t, rp.t)
    # every event: the same kind and modes, at the same time and block position
    assert [(e.kind, e.pair, e.before, e.after) for e in rs.events] == [
        (e.kind, e.pair, e.before, e.after) for e in rp.events]
    assert len(rs.events) >= 6
    xs = spatial.system.coordinate_names.index("block.x")
    xp = planar.system.coordinate_names.index("block.x")
    for es, ep in zip(rs.events, rp.events, strict=True):
        assert abs(es.t - ep.t) <= 1e-9, (es, ep)
        assert abs(es.q[xs] - ep.q[xp]) <= 1e-9, (es, ep)
    # the signals on the output grid (forces of order m g = 9.81 N: 1e-9 N is 1e-10 relative)
    for name in ("x", "v", "v_r", "lambda_N", "F_f"):
        np.testing.assert_allclose(rs[name], rp[name], rtol=0.0, atol=1e-9, err_msg=name)
    np.testing.assert_array_equal(rs["mode"], rp["mode"])
    np.testing.assert_allclose(rs["contact.N"], np.abs(rp["lambda_N"]), rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(rs["contact.N_reaction"], rs["contact.N"], rtol=1e-15)
    np.testing.assert_allclose(rs["contact.Ff_h"], rp["F_f"], rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(rs["contact.Fy"], rp["lambda_N"], rtol=0.0, atol=1e-9)
    # the block stays on the belt's line and does not turn
    for c in ("y", "z"):
        assert np.max(np.abs(rs[f"block.{c}"])) < 1e-12
    assert np.max(np.abs(rs.q[:, 11:14])) < 1e-12  # the block's quaternion's vector part
