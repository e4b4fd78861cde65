"""compare(): one model under several friction laws; the table recomputed from the results; CLI."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

from nonsmooth.cli import main
from nonsmooth.compare import Comparison, compare
from nonsmooth.errors import IndeterminateLCPError
from nonsmooth.models import crank_rocker, slider_crank
from nonsmooth.models import stick_slip_oscillator as oscillator

LAWS = ["coulomb", "lugre", "regularized"]
DIFF_KEYS = ("max_dF", "rms_dF", "max_dx", "rms_dx", "max_dv", "rms_dv")


@pytest.fixture(scope="module")
def oscillator_comparison() -> Comparison:
    # sigma1 = 1 s/m keeps LuGre dissipative (sigma1 < sigma2 mu_d / (mu_s - mu_d) = 1.2)
    model = oscillator.build(sigma1=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no parameter warning expected
        return compare(model, LAWS, 1.0)


def test_table_rows_methods_and_reference_row(oscillator_comparison):
    c = oscillator_comparison
    assert [row["law"] for row in c.table] == LAWS
    assert c.motion == ["x", "v"]
    assert [row["method"] for row in c.table] == ["DOP853", "Radau", "Radau"]  # the defaults
    for law in LAWS:  # every run on the same output grid, each with its own law
        np.testing.assert_array_equal(c.results[law].t, c.results["coulomb"].t)
        assert c.results[law].laws == [law]
        assert c.results[law].t[-1] == pytest.approx(1.0)
    ref = c.table[0]
    for key in DIFF_KEYS:
        assert ref[key] == 0.0
    for row in c.table[1:]:  # the smooth laws do differ from Coulomb
        assert row["max_dF"] > 0.1 and row["max_dx"] > 1e-4


def test_differences_recomputed_from_the_results(oscillator_comparison):
    c = oscillator_comparison
    ref = c.results["coulomb"]
    for row in c.table[1:]:
        r = c.results[row["law"]]
        dF = r["F_f"] - ref["F_f"]
        assert row["max_dF"] == pytest.approx(np.max(np.abs(dF)), rel=1e-12)
        assert row["rms_dF"] == pytest.approx(math.sqrt(np.mean(dF ** 2)), rel=1e-12)
        dx = r["x"] - ref["x"]
        assert row["max_dx"] == pytest.approx(np.max(np.abs(dx)), rel=1e-12)
        assert row["rms_dx"] == pytest.approx(math.sqrt(np.mean(dx ** 2)), rel=1e-12)
        dv = r["v"] - ref["v"]
        assert row["rms_dv"] == pytest.approx(math.sqrt(np.mean(dv ** 2)), rel=1e-12)
        assert row["evals"] == r.diagnostics["n_evaluations"]
        assert row["wall"] == r.diagnostics["wall_time"]


def test_stuck_fraction_and_events(oscillator_comparison):
    c = oscillator_comparison
    rows = {row["law"]: row for row in c.table}
    coulomb = c.results["coulomb"]
    stuck = float(np.mean(coulomb["mode"] == 0))
    assert 0.2 < stuck < 0.8  # a real stick-slip run
    assert rows["coulomb"]["stuck"] == stuck
    switches = [e for e in coulomb.events if e.kind in ("velocity_zero", "reserve_zero")]
    assert rows["coulomb"]["events"] == len(switches) >= 2
    for law in ("lugre", "regularized"):  # smooth laws: |v_r| below 1e-3 of its maximum
        v_r = np.abs(c.results[law]["v_r"])
        assert rows[law]["stuck"] == float(np.mean(v_r < 1e-3 * v_r.max()))
        assert rows[law]["events"] == 0


def test_summary_csv_and_plot(oscillator_comparison, tmp_path):
    c = oscillator_comparison
    text = c.summary().splitlines()
    assert len(text) == 1 + len(LAWS)
    assert "max |dx| [m]" in text[0] and "rms dv [m/s]" in text[0]
    for line, law in zip(text[1:], LAWS, strict=True):
        assert line.split()[0] == law
    lines = c.to_csv(tmp_path / "table.csv").read_text().splitlines()
    assert lines[0].split(",") == ["law", "method", "wall", "evals", "events", "stuck",
                                   *DIFF_KEYS]
    lugre = dict(zip(lines[0].split(","), lines[2].split(","), strict=True))
    assert float(lugre["max_dF"]) == c.table[1]["max_dF"]
    c.plot(tmp_path / "overlay.png")
    assert (tmp_path / "overlay.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_rejects_bad_law_lists():
    model = oscillator.build()
    with pytest.raises(ValueError, match="at least two friction laws"):
        compare(model, ["coulomb"], 0.1)
    with pytest.raises(ValueError, match="friction laws repeated"):
        compare(model, ["lugre", "lugre"], 0.1)


@pytest.mark.parametrize("build, t_end, motion", [
    (lambda: crank_rocker.build(sigma1=1.0), 0.3, ["theta1", "omega1"]),
    (lambda: crank_rocker.build(form="planar", sigma1=1.0), 0.2, ["theta1", "omega1"]),
    (slider_crank.build, 0.05, ["theta", "omega"]),
])
def test_compare_other_models_short_runs(build, t_end, motion):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # slider_crank: LuGre defaults
        c = compare(build(), LAWS, t_end)
    assert c.motion == motion
    assert [row["law"] for row in c.table] == LAWS
    assert all(r.success and r.t[-1] == pytest.approx(t_end) for r in c.results.values())
    for key in ("max_dF", "rms_dF", f"max_d{motion[0]}", f"rms_d{motion[1]}"):
        assert c.table[0][key] == 0.0
        assert all(math.isfinite(row[key]) for row in c.table)
    ref = c.results["coulomb"]
    for row in c.table[1:]:
        dF = c.results[row["law"]]["F_f"] - ref["F_f"]
        assert row["max_dF"] == pytest.approx(np.max(np.abs(dF)), rel=1e-12)
    # crank-driven motion: the motion hardly depends on the law, the friction force does
    assert c.table[1]["max_dF"] > 1e-3


def test_slider_crank_lugre_through_a_velocity_reversal():
    """LuGre's coefficient a = sigma0 z + sigma1 dz/dt is unbounded: with MotionSolve's heavy
    default sigma1 = 316 s/m it exceeds 1 at the slider's first velocity reversal and, through
    the rod, the normal-force equation gets two solutions: reported by name, not guessed. With
    a lighter bristle damping (a model parameter) the run goes through."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(IndeterminateLCPError, match=r"have 2 solutions"):
            compare(slider_crank.build(), ["coulomb", "lugre"], 0.2)
        c = compare(slider_crank.build(sigma1=3.0), ["coulomb", "lugre"], 0.2)
    assert c.table[1]["max_dF"] > 0


# ----------------------------------------------------------------------------- CLI
def test_cli_compare_writes_table_and_plot(tmp_path):
    csv, png = tmp_path / "F.csv", tmp_path / "F.png"
    proc = subprocess.run(
        [sys.executable, "-m", "nonsmooth", "compare", "stick_slip_oscillator", "--friction",
         "coulomb", "lugre", "--t-end", "1", "--out", str(csv), "--plot", str(png)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    assert rows[0][0] == "law" and [row[0] for row in rows[1:]] == ["coulomb", "lugre"]
    header = rows[0]
    assert float(rows[1][header.index("max_dF")]) == 0.0
    assert float(rows[2][header.index("max_dF")]) > 0.1
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote comparison table to {csv}" in proc.stdout
    assert f"wrote overlay plot to {png}" in proc.stdout


@pytest.mark.parametrize("argv, match", [
    (["compare", "stick_slip_oscillator", "--friction", "coulomb", "lugra"],
     "unknown friction law 'lugra'; choose from coulomb, lugre, regularized, bristle"),
    (["run", "stick_slip_oscillator", "--friction", "stribeck"],
     "unknown friction law 'stribeck'; choose from coulomb, lugre, regularized, bristle"),
    (["compare", "stick_slip_oscillator", "--friction", "coulomb", "coulomb"],
     "--friction needs at least two different laws, got coulomb coulomb"),
])
def test_cli_bad_law_is_one_line_exit_2(capsys, argv, match):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("nonsmooth: error: ") and match in err
    assert err.count("\n") == 1


def test_cli_run_with_lugre(capsys):
    code = main(["run", "stick_slip_oscillator", "--friction", "lugre", "--set", "sigma0=1e4",
                 "--t-end", "0.5"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "status 0: the simulation reached the end time" in out
    assert "t = 0 .. 0.5 s, 501 outputs, method Radau" in out
