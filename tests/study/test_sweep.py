"""Studies: nonsmooth.sweep and ``nonsmooth sweep`` against the belt's closed form, on local
processes and on a Dask cluster; stores that survive interrupts and resume each case exactly
once; failed cases as rows; bad input as one line."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow.parquet as pq
import pytest
from stick_slip_closed_form import belt_cycle

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.models import stick_slip_oscillator
from nonsmooth.study import SweepError, open_study
from nonsmooth.study.metrics import parse_metric

G = 9.81
ACCURATE = {"rtol": 1e-10, "atol": 1e-12}
#: A belt grid whose slowest cycle (v_belt = 0.1 m/s, mu_s = 0.5: first breakaway 0.49 s,
#: period 0.80 s) breaks away at least three times within T_END.
BELT_GRID = {"v_belt": [0.1, 0.2, 0.3], "mu_s": [0.35, 0.42, 0.5]}
T_END = 3.2


def closed_period(v_belt, mu_s, mu_d=0.3, m=1.0, k=100.0):
    return sum(belt_cycle(m, k, mu_s, mu_d, G, v_belt))


def belt_sweep(store, scheduler, **kw):
    kw = {"grid": BELT_GRID, "t_end": T_END, "dt": 0.01, "method": "DOP853",
          "metrics": ["period:reserve_zero", "count:reserve_zero", "stick_fraction", "max:x"],
          "options": ACCURATE, "progress": False, "store": store, **kw}
    return nonsmooth.sweep("stick_slip_oscillator", scheduler=scheduler, **kw)


def check_belt_rows(study):
    assert len(study) == 9
    assert list(study["status"]) == ["ok"] * 9, study.rows("failed")
    expected = [closed_period(v, mu) for v, mu in zip(study["v_belt"], study["mu_s"],
                                                      strict=True)]
    np.testing.assert_allclose(study["period:reserve_zero"], expected, rtol=1e-8)
    assert np.all(study["count:reserve_zero"] >= 3)
    assert np.all(study["evaluations"] > 0)
    assert np.all((study["stick_fraction"] > 0) & (study["stick_fraction"] < 1))
    # the table's cases are the grid's Cartesian product, in order, once each
    assert list(study["case"]) == list(range(9))
    assert list(zip(study["v_belt"], study["mu_s"], strict=True)) == [
        (v, mu) for v in BELT_GRID["v_belt"] for mu in BELT_GRID["mu_s"]]


# ------------------------------------------------------------------ schedulers vs closed form
def test_belt_periods_match_the_closed_form_on_processes(tmp_path):
    study = belt_sweep(tmp_path / "s", "processes", workers=2)
    check_belt_rows(study)
    assert study.run["scheduler"] == "processes" and study.run["workers"] == 2
    # what is stored is what was returned
    stored = pq.read_table(tmp_path / "s" / "cases.parquet")
    assert stored.column_names == study.columns
    np.testing.assert_array_equal(stored.column("period:reserve_zero").to_numpy(),
                                  study["period:reserve_zero"])


def test_belt_periods_match_the_closed_form_on_a_local_dask_cluster(tmp_path):
    study = belt_sweep(tmp_path / "s", "dask", workers=2)
    check_belt_rows(study)
    assert study.run == {**study.run, "scheduler": "dask", "workers": 2}


def test_an_existing_dask_scheduler_by_address(tmp_path):
    import distributed  # a dependency (issue 13): never skipped
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        study = nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.1, 0.3]}, t_end=T_END,
                                method="DOP853", options=ACCURATE, progress=False,
                                metrics=["period:reserve_zero"], store=tmp_path / "s",
                                scheduler=cluster.scheduler_address)
    assert study.run["workers"] == 2
    np.testing.assert_allclose(study["period:reserve_zero"],
                               [closed_period(0.1, 0.4), closed_period(0.3, 0.4)], rtol=1e-8)


# ------------------------------------------------------------------ failures are rows
def test_failed_cases_are_rows_with_their_message_while_the_others_succeed(tmp_path):
    # k = 12000 with RK4 at dt = 0.03 s is unstable (the step too large); mu_s < mu_d is
    # refused by the model; the third case runs
    cases = [{"k": 100.0, "mu_s": 0.0}, {"k": 12000.0, "mu_s": 0.0}, {"k": 100.0, "mu_s": 0.2}]
    study = nonsmooth.sweep("stick_slip_oscillator", cases=cases, mu_d=0.0, t_end=20.0,
                            dt=0.03, method="RK4", metrics=["max:x", "final:x"],
                            store=tmp_path / "s", workers=2, progress=False)
    assert list(study["status"]) == ["ok", "failed", "ok"]
    row = study.rows()[1]
    assert row["error_type"] == "IntegrationError"
    assert "too large for the mechanism" in row["error"] and "\n" not in row["error"]
    assert 1.0 < row["t_reached"] < 3.0 and row["evaluations"] > 0
    assert math.isnan(study["max:x"][1])  # no metric for a failed case
    assert np.isfinite(study["max:x"][[0, 2]]).all()
    assert "1 failed" in study.summary() and "IntegrationError" in study.summary()

    refused = nonsmooth.sweep("stick_slip_oscillator", cases=[{"mu_s": 0.35}, {"mu_s": 0.2}],
                              t_end=1.0, metrics=["count:velocity_zero"],
                              store=tmp_path / "r", scheduler="serial", progress=False)
    assert list(refused["status"]) == ["ok", "failed"]
    assert refused.rows()[1]["error_type"] == "ModelError"
    assert "mu_s = 0.2 must be >= mu_d = 0.3" in refused.rows()[1]["error"]


def raises_for_fast_belts(result):
    """A metric that fails for one case (in the worker)."""
    if result.model.parameters["v_belt"] > 0.25:
        raise RuntimeError("no metric for fast belts")
    return float(len(result.events))


def test_a_failing_callable_metric_fails_its_case_only(tmp_path):
    """The metric that raises is null and named in the case's error; the case's other
    metrics are kept."""
    study = nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.1, 0.3]}, t_end=1.0,
                            metrics=["max:x", raises_for_fast_belts, "count:reserve_zero"],
                            store=tmp_path / "s", scheduler="serial", progress=False)
    assert list(study["status"]) == ["ok", "failed"]
    assert study["raises_for_fast_belts"][0] >= 2
    failed = study.rows()[1]
    assert failed["error"] == ("metric 'raises_for_fast_belts' raised RuntimeError: no metric "
                               "for fast belts (the run's 2 other metric(s) are kept)")
    assert failed["error_type"] == "MetricError" and failed["raises_for_fast_belts"] is None
    assert failed["max:x"] > 0 and failed["count:reserve_zero"] >= 1
    assert failed["t_reached"] == 1.0


def test_a_t_end_function_that_raises_is_a_named_error(tmp_path):
    def t_end_of(case):
        return {0.1: 1.0}[case["v_belt"]]

    with pytest.raises(SweepError, match=r"the t_end function .*t_end_of raised KeyError: 0\.3 "
                                         r'for the case \{"v_belt": 0\.3\}; it must return a '
                                         r"number > 0 \(s\) for every case"):
        nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.3, 0.1]}, t_end=t_end_of,
                        metrics=["max:x"], store=tmp_path / "s", scheduler="serial",
                        progress=False)


def test_a_sweep_from_a_deleted_working_folder_is_one_line(tmp_path, monkeypatch, capsys):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for scheduler in ("serial", "processes"):
        code = main(["sweep", "stick_slip_oscillator", "--grid", "v_belt=0.1", "--metric",
                     "max:x", "--store", str(tmp_path / "s"), "--scheduler", scheduler])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1, err
        assert err.startswith("nonsmooth: error: the working folder no longer exists")


def test_more_workers_than_cores_are_capped_and_absurd_counts_refused(monkeypatch):
    from nonsmooth.study import schedulers

    monkeypatch.setattr(schedulers, "default_workers", lambda: 2)
    with pytest.warns(UserWarning, match=r"workers = 5 is more than the 2 core\(s\) of this "
                                         r"machine: 2 worker process\(es\) started"):
        assert schedulers.make_scheduler("processes", 5).workers == 2
    with pytest.warns(UserWarning, match="workers = 3"):
        assert schedulers.make_scheduler("dask", 3).workers == 2
    with pytest.raises(SweepError, match=r"workers = 1000 is invalid: this machine has 2 "
                                         r"core\(s\); give at most 2"):
        schedulers.make_scheduler("processes", 1000)
    assert schedulers.make_scheduler("processes", 2).workers == 2
    assert schedulers.make_scheduler("processes", None).workers == 2


def dying_build(v_belt):
    """A build function whose worker process dies at one case (a crash)."""
    if v_belt == 0.2:
        os._exit(3)
    return stick_slip_oscillator.build(v_belt=v_belt)


def test_a_worker_process_that_dies_fails_the_cases_it_ran_only(tmp_path):
    values = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]
    study = nonsmooth.sweep(dying_build, {"v_belt": values}, t_end=0.5, metrics=["max:x"],
                            store=tmp_path / "s", workers=2, progress=False)
    assert list(study["case"]) == list(range(6))
    died = study.rows("failed")
    assert 1 <= len(died) <= 2 and 2 in [r["case"] for r in died]  # it, and its neighbour
    assert all(r["error_type"] == "WorkerDied" and "resume retries it" in r["error"]
               for r in died)
    assert study.n_ok == 6 - len(died)  # the others ran on a new pool


def slow_build(v_belt=0.1):
    """A build function that does not return (for 12 s) at v_belt = 0.2."""
    if v_belt == 0.2:
        end = time.monotonic() + 12.0
        while time.monotonic() < end:
            time.sleep(0.01)
    return stick_slip_oscillator.build(v_belt=v_belt)


@pytest.mark.parametrize("scheduler", ["serial", "processes", "dask"])
def test_a_build_that_never_returns_counts_against_the_case_timeout(tmp_path, scheduler):
    start = time.monotonic()
    study = nonsmooth.sweep(slow_build, {"v_belt": [0.2, 0.1, 0.3]}, t_end=0.5,
                            options={"timeout": 1.0}, metrics=["max:x"], store=tmp_path / "s",
                            scheduler=scheduler, workers=2, progress=False)
    assert time.monotonic() - start < 20.0  # the check's reference build and the case: ~1 s each
    assert list(study["status"]) == ["failed", "ok", "ok"]
    row = study.rows()[0]
    assert row["error_type"] == "BuildTimeoutError"
    assert row["error"].startswith("building the model took longer than the timeout of 1 s")
    assert 1.0 <= row["wall_time"] < 5.0


def test_cli_run_timeout_covers_building_the_model(tmp_path, capsys):
    model = tmp_path / "slow.py"
    model.write_text("import time\n"
                     "from nonsmooth.models import stick_slip_oscillator\n\n"
                     "def build(k=100.0):\n"
                     "    end = time.monotonic() + 12.0\n"
                     "    while time.monotonic() < end:\n"
                     "        pass\n"
                     "    return stick_slip_oscillator.build(k=k)\n")
    start = time.monotonic()
    code = main(["run", str(model), "--t-end", "0.1", "--timeout", "1"])
    err = capsys.readouterr().err
    assert time.monotonic() - start < 10.0
    assert code == 2
    assert err == "nonsmooth: error: building the model took longer than --timeout 1 s\n"


# ------------------------------------------------------------------ interrupts and resume
FINISHED: list = []
INTERRUPT_AT = {"v_belt": None}
FAIL_AT = {"v_belt": None}


def belt_build(v_belt, mu_s=0.4):
    """A build function that raises KeyboardInterrupt at one case (a simulated Ctrl-C), or
    fails at another."""
    if v_belt == INTERRUPT_AT["v_belt"]:
        raise KeyboardInterrupt
    if v_belt == FAIL_AT["v_belt"]:
        raise RuntimeError(f"RuntimeError at v_belt = {v_belt}")
    return stick_slip_oscillator.build(v_belt=v_belt, mu_s=mu_s, v0=v_belt)


def finished(result):
    """A metric that records every case that finished."""
    FINISHED.append(result.model.parameters["v_belt"])
    return 1.0


def test_an_interrupted_sweep_resumed_holds_every_case_exactly_once(tmp_path):
    FINISHED.clear()
    values = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
    kw = {"grid": {"v_belt": values}, "t_end": 1.0, "metrics": [finished, "count:start"],
          "store": tmp_path / "s", "scheduler": "serial", "progress": False}
    INTERRUPT_AT["v_belt"] = 0.2
    with pytest.raises(KeyboardInterrupt) as info:
        nonsmooth.sweep(belt_build, **kw)
    partial = info.value.study
    assert list(partial["case"]) == [0, 1, 2] and partial.n_ok == 3
    assert open_study(tmp_path / "s")["v_belt"].tolist() == values[:3]  # kept on disk
    INTERRUPT_AT["v_belt"] = None
    study = nonsmooth.sweep(belt_build, resume=True, **kw)
    assert list(study["case"]) == list(range(6)) and study.n_ok == 6
    assert study["v_belt"].tolist() == values
    assert sorted(FINISHED) == values  # no case ran twice
    assert study.run["ran"] == 3
    again = nonsmooth.sweep(belt_build, resume=True, **kw)  # nothing left to run
    assert again.run["ran"] == 0 and sorted(FINISHED) == values


def test_resume_reruns_the_failed_cases_only(tmp_path):
    FINISHED.clear()
    kw = {"grid": {"v_belt": [0.1, 0.2, 0.3]}, "t_end": 1.0, "metrics": [finished],
          "store": tmp_path / "s", "scheduler": "serial", "progress": False}
    FAIL_AT["v_belt"] = 0.2
    first = nonsmooth.sweep(belt_build, **kw)
    assert list(first["status"]) == ["ok", "failed", "ok"]
    assert first.rows()[1]["error"] == "RuntimeError at v_belt = 0.2"
    FAIL_AT["v_belt"] = None
    second = nonsmooth.sweep(belt_build, resume=True, **kw)
    assert list(second["status"]) == ["ok"] * 3 and second.run["ran"] == 1
    assert sorted(FINISHED) == [0.1, 0.2, 0.3]


def test_resume_with_a_different_definition_is_refused(tmp_path):
    kw = {"grid": {"v_belt": [0.1, 0.2]}, "t_end": 1.0, "metrics": ["count:start"],
          "store": tmp_path / "s", "scheduler": "serial", "progress": False}
    nonsmooth.sweep("stick_slip_oscillator", **kw)
    with pytest.raises(SweepError, match="already holds a sweep .2 of 2 cases stored.; pass "
                                         "resume=True"):
        nonsmooth.sweep("stick_slip_oscillator", **kw)
    with pytest.raises(SweepError, match=r"definition differs \(t_end: stored 1.0, now 2.0\)"):
        nonsmooth.sweep("stick_slip_oscillator", **{**kw, "t_end": 2.0}, resume=True)
    with pytest.raises(SweepError, match=r"grid: stored \{\"v_belt\": \[0.1, 0.2\]\}, now "
                                         r"\{\"v_belt\": \[0.1, 0.3\]\}"):
        nonsmooth.sweep("stick_slip_oscillator", **{**kw, "grid": {"v_belt": [0.1, 0.3]}},
                        resume=True)
    with pytest.raises(SweepError, match=r"metrics: stored \[\"count:start\"\], now "
                                         r"\[\"max:x\"\]"):
        nonsmooth.sweep("stick_slip_oscillator", **{**kw, "metrics": ["max:x"]}, resume=True)
    saved = json.loads((tmp_path / "s" / "sweep.json").read_text())
    assert saved["definition"]["model"] == "stick_slip_oscillator"
    assert set(saved["versions"]) >= {"nonsmooth", "numpy", "scipy", "python"}


GATE = {"entered": threading.Event(), "open": threading.Event()}


def gated_build(v_belt):
    """A build function whose case v_belt = 0.2 waits (at most 10 s) for the test to open the
    gate."""
    if v_belt == 0.2:
        GATE["entered"].set()
        GATE["open"].wait(timeout=10.0)
    return stick_slip_oscillator.build(v_belt=v_belt)


def test_a_second_sweep_on_a_store_in_use_is_refused_at_once(tmp_path):
    from nonsmooth.study.store import LOCK_NAME, StoreInUseError

    FINISHED.clear()
    GATE["entered"].clear()
    GATE["open"].clear()
    kw = {"grid": {"v_belt": [0.1, 0.2, 0.3]}, "t_end": 0.5, "metrics": [finished],
          "store": tmp_path / "s", "scheduler": "serial", "progress": False, "resume": True}
    first = {}
    thread = threading.Thread(target=lambda: first.update(study=nonsmooth.sweep(gated_build,
                                                                                 **kw)))
    thread.start()
    try:
        assert GATE["entered"].wait(timeout=10.0)  # the first sweep is running case 1
        assert (tmp_path / "s" / LOCK_NAME).read_text().strip() == str(os.getpid())
        start = time.monotonic()
        with pytest.raises(StoreInUseError, match=rf"another sweep \(process {os.getpid()}\) "
                                                  "is using the store .*; wait for it"):
            nonsmooth.sweep(gated_build, **kw)  # a concurrent --resume on the same store
        assert time.monotonic() - start < 2.0
    finally:
        GATE["open"].set()
        thread.join(timeout=20.0)
    assert first["study"].n_ok == 3
    assert sorted(FINISHED) == [0.1, 0.2, 0.3]  # every case ran once, by the first sweep
    assert nonsmooth.sweep(gated_build, **kw).run["ran"] == 0  # the lock was released


def wait_for_rows(path, count, proc, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if path.exists() and pq.read_metadata(path).num_rows >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{count} rows never appeared in {path}")


def test_cli_sweep_interrupted_by_sigint_keeps_its_rows_and_resumes(tmp_path):
    store = tmp_path / "s"
    argv = [sys.executable, "-m", "nonsmooth", "sweep", "stick_slip_oscillator",
            "--grid", "v_belt=0.05:0.3:48", "--t-end", "8", "--method", "DOP853",
            "--metric", "period:reserve_zero", "--store", str(store), "--workers", "2"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_rows(store / "cases.parquet", 2, proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.startswith("nonsmooth: interrupted (SIGINT): ") and "continue with --resume" in err
    kept = pq.read_table(store / "cases.parquet")
    assert 2 <= kept.num_rows < 48
    done = dict(zip(kept.column("case").to_pylist(), kept.column("wall_time").to_pylist(),
                    strict=True))
    resumed = subprocess.run(argv + ["--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({48 - len(done)} run now" in resumed.stdout
    table = pq.read_table(store / "cases.parquet")
    assert table.column("case").to_pylist() == list(range(48))
    assert table.column("status").to_pylist() == ["ok"] * 48
    again = dict(zip(table.column("case").to_pylist(), table.column("wall_time").to_pylist(),
                     strict=True))
    assert all(again[c] == w for c, w in done.items())  # the kept rows were not run again


@pytest.mark.parametrize("scheduler", ["processes", "dask"])
def test_the_workers_end_when_the_sweep_process_is_killed(tmp_path, scheduler):
    import psutil

    store = tmp_path / "s"
    argv = [sys.executable, "-m", "nonsmooth", "sweep", "stick_slip_oscillator",
            "--grid", "v_belt=0.05:0.3:200", "--t-end", "8", "--method", "DOP853",
            "--metric", "max:x", "--store", str(store), "--workers", "2",
            "--scheduler", scheduler]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    children = []
    try:
        wait_for_rows(store / "cases.parquet", 1, proc, timeout=60.0)  # the workers run cases
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len(children) >= 2
        proc.kill()  # SIGKILL: the sweep's process cannot stop its workers
        proc.wait(timeout=10)
        gone, alive = psutil.wait_procs(children, timeout=10.0)
        assert not alive, f"workers left running after their sweep was killed: {alive}"
    finally:
        proc.kill()
        for child in children:
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
        proc.communicate(timeout=10)


# ------------------------------------------------------------------ metrics and the table
def test_metrics_against_the_time_series(tmp_path):
    def samples_stuck(result):
        return float(np.mean(result["mode"] == 0))

    study = nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.1]}, t_end=3.0, dt=1e-3,
                            method="DOP853", options=ACCURATE, scheduler="serial",
                            progress=False, store=tmp_path / "s", save_series=True,
                            metrics=["stick_fraction", "stick_fraction:contact", "min:x",
                                     "max:x", "rms:v_r", "final:F_f", "max:lambda_N:contact",
                                     "count:velocity_zero:contact", samples_stuck])
    series = pq.read_table(tmp_path / "s" / "series" / "case_000000.parquet")
    x, v_r = series.column("x").to_numpy(), series.column("v_r").to_numpy()
    assert series.column("t").to_numpy()[-1] == 3.0 and series.num_rows == 3001
    assert study["min:x"][0] == x.min() and study["max:x"][0] == x.max()
    assert study["rms:v_r"][0] == pytest.approx(np.sqrt(np.mean(v_r ** 2)), rel=1e-12)
    assert study["final:F_f"][0] == series.column("F_f").to_numpy()[-1]
    assert study["max:lambda_N:contact"][0] == pytest.approx(G, rel=1e-12)
    # from the event log (exact times) vs from the 1 ms samples
    assert study["stick_fraction"][0] == study["stick_fraction:contact"][0]
    assert study["stick_fraction"][0] == pytest.approx(study["samples_stuck"][0], abs=2e-3)
    assert study["count:velocity_zero:contact"][0] >= 3


def test_stick_fraction_from_the_event_log_matches_the_closed_form():
    model = stick_slip_oscillator.build(v_belt=0.1, v0=0.1)
    T_stick, T_slip = belt_cycle(1.0, 100.0, 0.4, 0.3, G, 0.1)
    first = 0.4 * G / (100.0 * 0.1)  # stuck from t = 0 to the first breakaway
    t_end = first + 2 * (T_stick + T_slip)  # then two whole cycles
    result = nonsmooth.simulate(model, t_end, method="DOP853", **ACCURATE)
    expected = (first + 2 * T_stick) / t_end
    assert parse_metric("stick_fraction")(result) == pytest.approx(expected, rel=1e-8)
    assert parse_metric("period:reserve_zero")(result) == pytest.approx(T_stick + T_slip,
                                                                        rel=1e-8)


def test_grid_product_cases_and_fixed_values(tmp_path):
    study = nonsmooth.sweep("slider_crank", {"r": [0.05, 0.1]},
                            cases=[{"mu_s": 0.2, "mu_d": 0.2}, {"mu_s": 0.4, "mu_d": 0.3}],
                            t_end=0.05, dt=0.01, method="RK4", omega0=5, metrics=["max:tau"],
                            store=tmp_path / "s", scheduler="serial", progress=False)
    assert study.parameters == ["mu_s", "mu_d", "r"]
    assert study.table.select(["mu_s", "mu_d", "r"]).to_pylist() == [
        {"mu_s": 0.2, "mu_d": 0.2, "r": 0.05}, {"mu_s": 0.2, "mu_d": 0.2, "r": 0.1},
        {"mu_s": 0.4, "mu_d": 0.3, "r": 0.05}, {"mu_s": 0.4, "mu_d": 0.3, "r": 0.1}]
    xs, ys, Z = study.map("max:tau", "r", "mu_d")
    assert xs.tolist() == [0.05, 0.1] and ys.tolist() == [0.2, 0.3]
    assert Z[1, 0] == study["max:tau"][2]
    assert "4 cases (4 ok, 0 failed)" in repr(study)
    assert open_study(tmp_path / "s").table.equals(study.table)


def test_run_settings_as_functions_of_each_case(tmp_path):
    study = nonsmooth.sweep(
        "stick_slip_oscillator", {"v_belt": [0.1, 0.2, 0.3]}, t_end=lambda p: 10 * p["v_belt"],
        dt=lambda p: p["v_belt"] / 10, method="DOP853",
        options=lambda p: {"max_evaluations": 100} if p["v_belt"] > 0.25 else {},
        metrics=["count:start"], store=tmp_path / "s", workers=2, progress=False,
        save_series=True)
    assert list(study["status"]) == ["ok", "ok", "failed"]
    assert study.rows()[2]["error_type"] == "BudgetError"
    np.testing.assert_allclose(study["t_reached"][:2], [1.0, 2.0], rtol=1e-12)
    for case in (0, 1):
        series = pq.read_table(tmp_path / "s" / "series" / f"case_00000{case}.parquet")
        assert series.num_rows == 101
    described = json.loads((tmp_path / "s" / "sweep.json").read_text())["definition"]
    assert described["t_end"].startswith("callable:test_sweep:")
    assert described["t_end"].endswith("<lambda>")


def test_a_build_function_that_cannot_be_pickled_is_refused_before_running(tmp_path):
    lock = threading.Lock()

    def build(v_belt):
        with lock:
            return stick_slip_oscillator.build(v_belt=v_belt)

    with pytest.raises(SweepError, match="cannot be sent to worker processes .* or use "
                                         "scheduler='serial'"):
        nonsmooth.sweep(build, {"v_belt": [0.1]}, t_end=1.0, store=tmp_path / "s",
                        progress=False)
    assert not (tmp_path / "s" / "cases.parquet").exists()


# ------------------------------------------------------------------ size
def test_a_sweep_of_too_many_cases_is_refused_before_any_case_is_made(tmp_path):
    import tracemalloc

    grid = {"v_belt": np.linspace(0.1, 1.0, 1_000_000), "mu_s": np.linspace(0.35, 0.5, 1000)}
    tracemalloc.start()
    start = time.monotonic()
    try:
        with pytest.raises(SweepError, match=r"the sweep has 1,000,000,000 cases \(1,000,000 x "
                                             r"1,000\), more than the limit of 1,000,000 "
                                             r"\(nonsmooth.limits.MAX_CASES\): its table alone "
                                             r"would need about 1e\+03 GB of memory; sweep fewer"):
            nonsmooth.sweep("stick_slip_oscillator", grid, metrics=["max:x"], progress=False,
                            store=tmp_path / "s")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 5.0 and peak < 20e6  # nothing was built
    assert not (tmp_path / "s").exists()
    with pytest.raises(SweepError, match=r"has 4 cases \(2 x 2\), more than the limit of 3"):
        nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.1, 0.2], "mu_s": [0.4, 0.5]},
                        metrics=["max:x"], store=tmp_path / "s", max_cases=3)


def test_the_cases_of_a_large_sweep_are_generated_as_needed_not_held():
    import itertools
    import tracemalloc

    from nonsmooth.study.definition import define

    v_belt, mu_s = np.linspace(0.1, 1.0, 1000).tolist(), np.linspace(0.35, 0.5, 1000).tolist()
    tracemalloc.start()
    try:
        definition, _ = define("stick_slip_oscillator", grid={"v_belt": v_belt, "mu_s": mu_s},
                               t_end=1.0, metrics=["max:x"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cases = definition.cases
    assert len(cases) == 1_000_000 and peak < 20e6  # a million dicts would be ~300 MB
    assert cases[123_456] == {"v_belt": v_belt[123], "mu_s": mu_s[456]}
    assert cases[-1] == {"v_belt": 1.0, "mu_s": 0.5}
    assert list(itertools.islice(cases, 3)) == [{"v_belt": 0.1, "mu_s": m} for m in mu_s[:3]]
    assert definition.describe()["n_cases"] == 1_000_000


@pytest.mark.parametrize("scheduler", ["processes", "dask"])
def test_schedulers_take_cases_as_workers_free_up_not_all_at_once(scheduler):
    from nonsmooth.study.case import CaseRunner
    from nonsmooth.study.definition import define
    from nonsmooth.study.schedulers import make_scheduler
    from nonsmooth.study.sweep import _pickled

    definition, _ = define("stick_slip_oscillator", grid={"v_belt": [0.1, 0.2, 0.3] * 10},
                           t_end=0.05, metrics=["max:x"])
    runner = CaseRunner(definition)
    taken = []

    def cases():
        for i, params in enumerate(definition.cases):
            taken.append(i)
            yield i, params

    with make_scheduler(scheduler, 1) as sched:
        rows = sched.results(runner, _pickled(runner), cases())
        first = next(rows)
        assert len(taken) <= 5  # a few ahead of the one worker, not all 30
        rows = [first, *rows]
    assert sorted(r["case"] for r in rows) == list(range(30))
    assert all(r["status"] == "ok" for r in rows)


@pytest.mark.parametrize("kwargs, match", [
    ({"grid": {"v_belt": []}}, "grid v_belt has no values"),
    ({"grid": {"v_belt": 0.1}}, "grid v_belt: give a sequence of values"),
    ({"grid": {"vbelt": [0.1]}}, r"unknown parameter\(s\) vbelt; valid parameters: m, k"),
    ({"grid": {"m": [1.0, -1.0]}}, "parameter m = -1.0 is out of range"),
    ({"grid": {"v_belt": [0.1]}, "v_belt": 0.2}, "both swept and fixed"),
    ({"metrics": ["perod:reserve_zero"]}, "unknown metric kind 'perod'"),
    ({"metrics": ["max:y"]}, "has no output 'y'; outputs: t, x, v"),
    ({"metrics": ["period"]}, "names no event kind"),
    ({"metrics": ["count:stuck"]}, "unknown event kind 'stuck'"),
    ({"metrics": ["stick_fraction:belt"]}, "has no frictional pair 'belt'; pairs: contact"),
    ({"metrics": ["max:x", "max:x"]}, "given twice"),
    ({"scheduler": "threads"}, "unknown scheduler 'threads'"),
    ({"workers": 0}, "workers = 0 is invalid"),
    ({"method": "RK5"}, "unknown method 'RK5'"),
    ({"t_end": -1.0}, "t_end = -1.0 is invalid"),
    ({"options": {"rtl": 1e-8}}, r"unknown simulate option\(s\) rtl"),
    ({"options": {"timeout": 0}}, r"timeout = 0 is invalid: it must be a finite number > 0"),
    ({"options": {"timeout": -3.0}}, r"timeout = -3.0 is invalid"),
])
def test_bad_input_is_refused_before_anything_runs(tmp_path, kwargs, match):
    kw = {"grid": {"v_belt": [0.1]}, "metrics": ["max:x"], "t_end": 1.0, "progress": False,
          "scheduler": "serial", **kwargs}
    with pytest.raises(ValueError, match=match):
        nonsmooth.sweep("stick_slip_oscillator", store=tmp_path / "s", **kw)
    assert not (tmp_path / "s" / "sweep.json").exists()


# ------------------------------------------------------------------ command line
@pytest.mark.parametrize("argv, match", [
    (["--grid", "vbelt=0.1,0.2"], "unknown parameter(s) vbelt; valid parameters"),
    (["--grid", "v_belt=0.1:0.2"], "a range is START:STOP:NUM"),
    (["--grid", "v_belt=a:0.2:3"], "START and STOP must be numbers and NUM an integer"),
    (["--grid", "v_belt"], "--grid expects NAME=V1,V2,..."),
    (["--grid", "v_belt=0.1,,0.2"], "an empty value"),
    (["--grid", "v_belt=abc"], "parameter v_belt = 'abc' is not a number"),
    (["--grid", "v_belt=0.1", "--metric", "perod:x"], "unknown metric kind 'perod'"),
    (["--grid", "v_belt=0.1", "--metric", "max:y"], "has no output 'y'"),
    (["--grid", "v_belt=0.1", "--scheduler", "threads"], "unknown scheduler 'threads'"),
    (["--grid", "v_belt=0.1", "--dt", "0"], "--dt 0 is invalid"),
    (["--grid", "v_belt=0.1:1:100000", "--grid", "mu_s=0.35:0.5:100"],
     "the sweep has 10,000,000 cases (100,000 x 100), more than the limit of 1,000,000"),
    (["--grid", "v_belt=0.1", "--timeout", "0"], "--timeout 0 is invalid"),
    (["--grid", "v_belt=0.1", "--timeout", "-3"], "--timeout -3 is invalid"),
    (["--grid", "v_belt=0.1", "--set", "mass=2"], "unknown parameter(s) mass"),
    (["--grid", "v_belt=0.1", "--store", "/etc/hostname/sweep"], "cannot write the sweep's "
                                                                 "store to /etc/hostname/sweep"),
    ([], "the following arguments are required: --grid"),
])
def test_cli_sweep_bad_input_is_one_line_exit_2(tmp_path, capsys, argv, match):
    if "--metric" not in argv:
        argv = [*argv, "--metric", "max:x"]
    if "--store" not in argv:
        argv = [*argv, "--store", str(tmp_path / "s")]
    code = main(["sweep", "stick_slip_oscillator", *argv])
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1
    assert match in err and "Traceback" not in err
    assert not (tmp_path / "s" / "sweep.json").exists()


def test_cli_sweep_runs_and_summarizes(tmp_path, capsys):
    store = tmp_path / "s"
    code = main(["sweep", "stick_slip_oscillator", "--grid", "v_belt=0.1,0.3",
                 "--grid", "mu_s=0.2:0.4:2", "--set", "k=100", "--t-end", "3",
                 "--method", "DOP853", "--metric", "period:reserve_zero", "max:x",
                 "--store", str(store), "--scheduler", "serial", "--save-series"])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.startswith("4 cases: 2 ok, 2 failed (4 run now in ")
    assert "failed: 2 ModelError" in out and "period:reserve_zero" in out
    assert f"store: {store / 'cases.parquet'}" in out
    assert "case 0 (v_belt=0.1, mu_s=0.2): ModelError: model stick_slip_oscillator: mu_s" in out
    study = open_study(store)
    assert study["mu_s"].tolist() == [0.2, 0.4, 0.2, 0.4]
    np.testing.assert_allclose(study["period:reserve_zero"][study.ok],
                               [closed_period(0.1, 0.4), closed_period(0.3, 0.4)], rtol=1e-8)
    assert sorted(os.listdir(store / "series")) == ["case_000001.parquet",
                                                    "case_000003.parquet"]
    assert main(["sweep", "stick_slip_oscillator", "--grid", "v_belt=0.1,0.3", "--grid",
                 "mu_s=0.2:0.4:2", "--set", "k=100", "--t-end", "3", "--method", "DOP853",
                 "--metric", "period:reserve_zero", "max:x", "--store", str(store),
                 "--scheduler", "serial", "--save-series", "--resume"]) == 0
    assert "(2 run now in" in capsys.readouterr().out  # only the failed cases again


def test_a_command_line_sweep_resumes_from_python_with_the_same_values(tmp_path, capsys):
    store = tmp_path / "s"
    assert main(["sweep", "stick_slip_oscillator", "--grid", "mu_s=0.35,0.4", "--set", "k=200",
                 "--t-end", "1", "--metric", "max:x", "--store", str(store),
                 "--scheduler", "serial"]) == 0
    capsys.readouterr()
    described = json.loads((store / "sweep.json").read_text())["definition"]
    assert described["grid"] == {"mu_s": [0.35, 0.4]} and described["fixed"] == {"k": 200.0}
    study = nonsmooth.sweep("stick_slip_oscillator", {"mu_s": np.array([0.35, 0.4])}, k=200,
                            t_end=1, metrics=["max:x"], store=store, resume=True,
                            scheduler="serial", progress=False)
    assert study.run["ran"] == 0 and study.n_ok == 2


class _Stream:
    """A text stream that says whether it is a terminal (stands in for stderr)."""

    def __init__(self, tty: bool) -> None:
        self.tty, self.parts = tty, []

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("tty, progress, shown", [
    (False, None, False), (True, None, True), (False, True, True), (True, False, False)])
def test_progress_bar_by_default_only_on_a_terminal(tmp_path, monkeypatch, tty, progress,
                                                    shown):
    """README: the bar shows on a terminal; ``progress=`` overrides."""
    stream = _Stream(tty)
    monkeypatch.setattr(sys, "stderr", stream)
    kw = {} if progress is None else {"progress": progress}
    nonsmooth.sweep("stick_slip_oscillator", {"v_belt": [0.1, 0.2]}, t_end=0.2,
                    metrics=["count:start"], store=tmp_path / "s", scheduler="serial", **kw)
    assert ("sweep stick_slip_oscillator" in "".join(stream.parts)) is shown
