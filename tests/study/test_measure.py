"""Simulated measurements (``nonsmooth.measure``, ``nonsmooth measure``): the data a first fit
needs, made by the command line from any folder; and the bundled MotionSolve example run by
name from any folder, with the output columns its documentation page explains."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import nonsmooth
from nonsmooth import cli
from nonsmooth.errors import DataError, ModelError
from nonsmooth.fit import load_data
from nonsmooth.measure import simulated_measurements, write_csv

ROOT = Path(__file__).resolve().parents[2]

#: The two commands of the getting-started fit: the data, then the fit (README, docs/index.md).
MEASURE = ("measure stick_slip_oscillator --output x --t-end 3 --noise 3e-4 "
           "--out measured.csv").split()
FIT = ("fit stick_slip_oscillator measured.csv --param mu_s=0.42 --param mu_d=0.29 --output x "
       "--set k=100").split()


def test_measure_then_fit_from_any_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # not the repository: nothing there but what the commands write
    assert cli.main(MEASURE) == 0
    data = load_data(tmp_path / "measured.csv")  # what fit reads: t and x, 300 rows
    assert list(data) == ["t", "x"] and data["t"].size == 300
    assert data["t"][0] == 0.0 and data["t"][-1] == 3.0
    capsys.readouterr()
    assert cli.main(FIT) == 0
    table = capsys.readouterr().out
    for name, truth in (("mu_s", 0.4), ("mu_d", 0.3)):  # the model's defaults made the data
        estimate, error = map(float, re.search(rf"^{name}\s+(\S+)\s+(\S+)", table, re.M).groups())
        assert abs(estimate - truth) < 4 * error, (name, estimate, error, table)


def test_the_documented_fit_commands_are_these():
    """docs/index.md shows the same two commands the test above runs."""
    text = " ".join((ROOT / "docs" / "index.md").read_text().replace("\\\n", " ").split())
    for command in (MEASURE, FIT):
        assert "nonsmooth " + " ".join(command) in text, command


def test_measurements_are_the_run_at_the_sample_times_plus_seeded_noise():
    model = nonsmooth.models.build("stick_slip_oscillator")
    clean = simulated_measurements(model, ["x", "block.vx"], t_end=2.0, samples=201)
    t = np.linspace(0.0, 2.0, 201)
    run = nonsmooth.simulate(nonsmooth.models.build("stick_slip_oscillator"), 2.0, t_eval=t)
    assert np.array_equal(clean["t"], run.t) and np.allclose(clean["t"], t, rtol=0, atol=1e-15)
    assert np.array_equal(clean["x"], run["x"]) and np.array_equal(clean["block.vx"],
                                                                   run["block.vx"])
    noisy = simulated_measurements(model, ["x"], t_end=2.0, samples=201, noise=1e-3, seed=3)
    again = simulated_measurements(model, ["x"], t_end=2.0, samples=201, noise=1e-3, seed=3)
    other = simulated_measurements(model, ["x"], t_end=2.0, samples=201, noise=1e-3, seed=4)
    assert np.array_equal(noisy["x"], again["x"]) and not np.array_equal(noisy["x"], other["x"])
    residual = noisy["x"] - clean["x"]
    assert 0.8e-3 < residual.std() < 1.2e-3 and abs(residual.mean()) < 3e-4  # 201 samples


def test_written_csv_reads_back_exactly(tmp_path):
    data = {"t": np.array([0.0, 0.1, 0.2]), "x": np.array([1 / 3, -2e-17, 7.0])}
    write_csv(data, tmp_path / "d.csv")
    back = load_data(tmp_path / "d.csv")
    assert list(back) == ["t", "x"] and all(np.array_equal(back[k], data[k]) for k in data)


@pytest.mark.parametrize("kwargs, match", [
    ({"samples": 1}, r"samples = 1 is out of range: .* from 2 to"),
    ({"samples": 2.5}, r"samples = 2.5 is out of range"),
    ({"noise": -1e-3}, r"noise = -0.001 is out of range: .* >= 0"),
    ({"noise": float("nan")}, r"noise = nan is out of range"),
    ({"t_end": 0.0}, r"t_end = 0.0 s is out of range: .* > 0 s"),
    ({"outputs": []}, r"no output to measure"),
])
def test_bad_arguments_are_named(kwargs, match):
    args = {"outputs": ["x"], "t_end": 1.0, **kwargs}
    with pytest.raises(ModelError, match=match):
        simulated_measurements("stick_slip_oscillator", args.pop("outputs"), **args)


def test_unknown_output_lists_the_names_the_run_answers():
    with pytest.raises(DataError, match=r"output\(s\) nope cannot be measured: the run of model "
                                        r"'stick_slip_oscillator' answers x, v, .*block\.vx"):
        simulated_measurements("stick_slip_oscillator", ["x", "nope"], t_end=0.1, samples=3)


def test_cli_errors_are_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    cases = [
        ("measure stick_slip_oscillator --output nope --t-end 0.1 --out m.csv",
         "output(s) nope cannot be measured"),
        ("measure stick_slip_oscillator --output x --samples 1 --out m.csv",
         "samples = 1 is out of range"),
        ("measure stick_slip_oscillator --output x --out missing/m.csv",
         "the folder missing does not exist"),
        ("measure no_such_model --output x --out m.csv", "unknown model 'no_such_model'"),
    ]
    for command, message in cases:
        assert cli.main(command.split()) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, (command, err)
    assert not (tmp_path / "m.csv").exists()


def test_bundled_motionsolve_example_runs_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main("run pendulum_joint_friction --t-end 0.05 --out out.csv".split()) == 0
    header = (tmp_path / "out.csv").read_text().splitlines()[0].split(",")
    # the Post_Request columns docs/motionsolve.md explains, in the file's order
    assert header == ["t", "req1.expr2", "req2.expr2", "req2.expr3", "req2.expr4", "req2.expr6",
                      "req2.expr7", "req2.expr8"]
    page = (ROOT / "docs" / "motionsolve.md").read_text()
    for column in header[1:]:
        assert f"`{column}`" in page, column


def test_bundled_xml_file_name_outside_the_repository_says_how_to_run_it(tmp_path,
                                                                         monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main("run pendulum_joint_friction.xml --out out.csv".split()) == 2
    err = capsys.readouterr().err
    assert "the bundled file pendulum_joint_friction.xml is the model pendulum_joint_friction: " \
           "run it by name (nonsmooth run pendulum_joint_friction)" in err, err
    with pytest.raises(ModelError, match="copy .*pendulum_joint_friction.xml to edit it"):
        nonsmooth.models.load("pendulum_joint_friction.xml")
