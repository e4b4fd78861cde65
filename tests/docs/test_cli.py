"""The command line: outputs of run / models / reproduce and one-line errors with exit code 2."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

import numpy as np
import pytest

from nonsmooth.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, match", [
    (["run", "crank_rocker", "--set", "m1=-1"],
     "parameter m1 = '-1' is out of range; allowed: > 0"),
    (["run", "crank_rocker", "--set", "J2=0"], "parameter J2 = '0' is out of range"),
    (["run", "crank_rocker", "--set", "mu=-0.2"], "parameter mu = '-0.2' is out of range; "
                                                  "allowed: >= 0"),
    (["run", "crank_rocker", "--set", "mass=3"], "unknown parameter(s) mass; valid parameters: J1, "
                                                 "m1, L1"),
    (["run", "crank_rocker", "--set", "mu"], "--set expects NAME=VALUE"),
    (["run", "crank_rocker", "--set", "mu=abc"], "parameter mu = 'abc' is not a number"),
    (["run", "crank_rocker", "--dt", "0"], "--dt 0 is invalid: the step must be > 0 s"),
    (["run", "crank_rocker", "--dt=-1e-3"], "--dt -0.001 is invalid"),
    (["run", "crank_rocker", "--t-end", "0"], "--t-end 0 is invalid: the end time must be > 0 s"),
    (["run", "crank_rocker", "--method", "RK5"], "unknown method 'RK5'; choose one of RK4, Euler"),
    (["run", "four_bar"], "unknown model 'four_bar'; available models: "),
    (["run", "/nonexistent/model.py"], "model file /nonexistent/model.py does not exist"),
    (["run", "crank_rocker", "--set", "form=cartesian"], "allowed: one of lagrange, planar"),
    (["run", "crank_rocker", "--set", "L4=0.4"], "L4 = 0.4 m must exceed L3 = 0.5 m"),
    (["reproduce", "four-bar"], "unknown reproduction 'four-bar'; available: crank-rocker"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
    (["run", "crank_rocker", "--set", "m1=3", "--set", "m1=4"],
     "--set m1 is given twice (m1=3, m1=4); give each parameter once"),
    (["compare", "crank_rocker", "--set", "m1=3", "--set", " m1 = 4"],
     "--set m1 is given twice (m1=3, m1=4)"),
    (["sweep", "stick_slip_oscillator", "--grid", "k=1,2", "--set", "m=1", "--set", "m=2",
      "--metric", "max:x", "--store", "never"], "--set m is given twice"),
    (["sweep", "stick_slip_oscillator", "--grid", "k=1,2", "--metric", "max:x", "--store",
      "never", "--timeout", "0"], "--timeout 0 is invalid: it must be > 0 s"),
    (["sweep", "stick_slip_oscillator", "--grid", "k=1,2", "--metric", "max:x", "--store",
      "never", "--timeout=-3"], "--timeout -3 is invalid: it must be > 0 s"),
    (["sweep", "stick_slip_oscillator", "--grid", "k=1,2", "--metric", "max:x", "--store",
      "never", "--max-evaluations", "0"], "--max-evaluations 0 is invalid: it must be > 0"),
    (["sweep", "stick_slip_oscillator", "--grid", "v_belt=0.1,0.2", "--grid", "v_belt=0.3",
      "--metric", "max:x", "--store", "never"],
     "--grid v_belt is given twice ('v_belt=0.1,0.2', 'v_belt=0.3'); give each parameter one "
     "grid"),
])
def test_user_errors_are_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, match):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.startswith("nonsmooth: error: ")
    assert match in err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert not (tmp_path / "never").exists()  # refused before a sweep's store is made


def test_unreadable_model_files(capsys, tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def build(:\n")
    code, _, err = run_cli(capsys, "run", str(bad))
    assert code == 2 and "could not be read: SyntaxError" in err
    nobuild = tmp_path / "nobuild.py"
    nobuild.write_text("x = 1\n")
    code, _, err = run_cli(capsys, "run", str(nobuild))
    assert code == 2 and "defines no build(**params) function" in err


def test_unwritable_output_is_a_user_error(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.01",
                           "--out", str(tmp_path / "missing" / "out.csv"))
    assert code == 2 and "cannot write the data to" in err


def test_run_writes_csv_events_and_plot(capsys, tmp_path):
    out, ev, png = tmp_path / "cr.csv", tmp_path / "ev.csv", tmp_path / "cr.png"
    code, stdout, _ = run_cli(capsys, "run", "crank-rocker", "--set", "c=8", "--t-end", "1.2",
                              "--dt", "1e-3", "--out", str(out), "--events", str(ev),
                              "--plot", str(png))
    assert code == 0
    assert "max HLCP residual" in stdout
    header = out.read_text().splitlines()[0]
    assert header == "t,theta1,omega1,alpha1,theta2,v_r,lambda_N,F_f,tau,phi"
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape == (1201, 10)
    lines = ev.read_text().splitlines()
    assert lines[0] == "t,pair,kind,before,after"
    assert any(line.split(",")[2:] == ["velocity_zero", "slip-", "slip+"] for line in lines[1:])
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_models_lists_parameters_with_units(capsys):
    code, out, _ = run_cli(capsys, "models")
    assert code == 0
    assert "crank_rocker:" in out
    assert "mu           = 0.2" in out and "[N m s/rad]" in out and "[kg m^2]" in out


def test_user_model_file(capsys, tmp_path):
    path = tmp_path / "my_model.py"
    path.write_text(
        "from nonsmooth.models import crank_rocker\n"
        "def build(**params):\n"
        "    return crank_rocker.build(**params)\n")
    code, out, _ = run_cli(capsys, "run", str(path), "--set", "mu=0.1", "--t-end", "0.05")
    assert code == 0 and "status 0" in out


def test_console_script_and_module_entry_points(tmp_path):
    # The console script need not be on PATH (a venv not activated): run the module with this
    # interpreter, and check that the installed console script points at the same function.
    proc = subprocess.run([sys.executable, "-m", "nonsmooth", "run", "crank_rocker", "--set",
                           "m1=0"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "m1" in proc.stderr
    assert proc.stdout == ""
    scripts = [e for e in entry_points(group="console_scripts") if e.name == "nonsmooth"]
    assert len(scripts) == 1 and scripts[0].value == "nonsmooth.cli:main"
    assert scripts[0].load() is main
