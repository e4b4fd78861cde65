"""Nothing lost, nothing hidden: failing and interrupted runs keep what they computed, bad input
is one line with exit code 2, budgets end runs cleanly, wrong answers are not passed as success.
"""

from __future__ import annotations

import csv
import math
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from readme_blocks import readme_marked

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.errors import BudgetError, IntegrationError, ModelError, UserFunctionError
from nonsmooth.models import build
from nonsmooth.models import stick_slip_oscillator as belt
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Force, Gravity
from nonsmooth.planar.joints import Translational
from nonsmooth.system import GeneralizedSystem

ROOT = Path(__file__).resolve().parents[2]
XML = ROOT / "models" / "pendulum_joint_friction.xml"

UNSTABLE = ["run", "stick_slip_oscillator", "--set", "k=12000", "--set", "mu_s=0", "--set",
            "mu_d=0", "--t-end", "20", "--dt", "0.03", "--method", "RK4"]


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def read_rows(path):
    with open(path) as fh:
        rows = list(csv.reader(fh))
    return rows[0], np.array(rows[1:], dtype=float) if len(rows) > 1 else np.zeros((0, 0))


def slider(push=None, name="slider"):
    """A block in a frictional slot, pushed by ``push(t, q, v)``."""
    mdl = PlanarModel(name)
    block = mdl.add(Body("block", mass=2.0, inertia=0.1, velocity=(1.0, 0.0)))
    mdl.add(Translational("guide", ground, block, axis=(-1.0, 0.0), mu=0.1))
    mdl.add(Force("push", block, push or (lambda t, q, v: (0.0, 39.24 * t))))
    mdl.add(Gravity(g=9.81))
    return mdl


# ---------------------------------------------------------------------------- 1. nothing lost
def test_failing_run_writes_its_rows_and_events(capsys, tmp_path):
    out, events = tmp_path / "late.csv", tmp_path / "events.csv"
    code, stdout, err = run_cli(capsys, *UNSTABLE, "--out", out, "--events", events)
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("nonsmooth: error: the run failed: ")
    assert "the step dt = 0.03 s is too large" in err and "partial results" in err
    assert str(out) in err
    header, data = read_rows(out)
    assert header[0] == "t" and data.shape[0] > 50  # 63 rows, up to 1.86 s (then it drifts)
    t_last = data[-1, 0]
    assert 1.0 < t_last < 3.0
    assert np.all(np.isfinite(data))
    assert f"t = 0 .. {t_last:g} s" in err
    with open(events) as fh:
        assert next(csv.reader(fh)) == ["t", "pair", "kind", "before", "after"]


def test_simulate_failure_carries_the_partial_result():
    model = belt.build(k=12000, mu_s=0, mu_d=0)
    with pytest.raises(IntegrationError, match="too large for the mechanism") as info:
        nonsmooth.simulate(model, 20.0, method="RK4", dt=0.03)
    partial = info.value.result
    assert partial.status == -1 and 1.0 < partial.t[-1] < 3.0
    again = nonsmooth.simulate(model, 20.0, method="RK4", dt=0.03, throw=False)
    assert again.status == -1 and np.array_equal(again.t, partial.t)


@pytest.mark.parametrize("wrapper", [SystemError, UserFunctionError])
def test_a_signal_inside_a_compiled_call_is_an_interrupt_not_a_model_failure(wrapper):
    """A signal whose handler runs inside a numba call ends that call with ``SystemError:
    CPUDispatcher(...) returned a result with an exception set``, the interrupt its cause (the
    race ``test_interrupted_run_writes_partial_csv`` met once in CI: exit 1, "raised in the
    model"), or an error of ours naming a user function around it: the run ends as
    interrupted, with its partial result."""
    from nonsmooth.cli import _Terminated

    def push(t, q, v):
        if t > 0.5:
            try:
                raise _Terminated()
            except _Terminated as exc:
                raise wrapper("CPUDispatcher(<function planar_terms>) returned a result "
                              "with an exception set") from exc
        return (0.0, 39.24 * t)

    with pytest.raises(_Terminated) as info:
        nonsmooth.simulate(slider(push), 1.0, method="RK4", dt=1e-3)
    r = info.value.result
    assert r.message.startswith("interrupted (SIGTERM) at t = 0.5")
    assert r.status == -1 and 0.49 < r.t[-1] <= 0.5


#: The command line with its progress display reporting, once, the first output rows: a file
#: ``rows.marker`` is made when the run has recorded rows past t = 0.02 s (the display is
#: called as rows are recorded), so a test waits for a state of the run, not for a time.
_CLI_WITH_ROW_MARKER = """
import sys
from pathlib import Path
import nonsmooth.cli as cli

shown = cli._Progress.__call__

def report(self, t):
    if t > 0.02 and not Path("rows.marker").exists():
        Path("rows.marker").write_text(repr(t))
    return shown(self, t)

cli._Progress.__call__ = report
sys.exit(cli.main())
"""


def _wait_for_file(path: Path, proc, limit: float = 600.0) -> None:
    """Wait until ``path`` exists (``limit`` s at most: a run that never gets there)."""
    started = time.perf_counter()
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.perf_counter() - started < limit, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_run_writes_partial_csv(tmp_path, sig, code):
    out, events = tmp_path / "long.csv", tmp_path / "long_events.csv"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLI_WITH_ROW_MARKER, "run", "stick_slip_oscillator",
         "--t-end", "1000", "--dt", "1e-3", "--method", "RK4", "--out", str(out), "--events",
         str(events)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    _wait_for_file(tmp_path / "rows.marker", proc)  # rows recorded (the run needs minutes)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == code, err
    name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
    assert f"interrupted ({name})" in err and "partial results" in err
    assert "Traceback" not in err
    header, data = read_rows(out)
    assert header[:2] == ["t", "x"] and data.shape[0] > 10
    assert np.allclose(np.diff(data[:, 0]), 1e-3)  # every row up to the interrupt
    assert events.exists()


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_outputs_are_written_finishes_them(tmp_path, capsys, monkeypatch,
                                                              sig, code):
    """The signal comes as --out is written: the file is finished (every row of the run),
    the line says so, and the exit code is the interrupt's."""
    from nonsmooth.result import Result

    write = Result.to_csv

    def signalled(self, path, columns=None):
        os.kill(os.getpid(), sig)  # delivered while the file is being written
        return write(self, path, columns)

    monkeypatch.setattr(Result, "to_csv", signalled)
    out = tmp_path / "o.csv"
    code_, stdout, err = run_cli(capsys, "run", "stick_slip_oscillator", "--t-end", "0.5",
                                 "--dt", "1e-3", "--out", out, "--events", tmp_path / "e.csv")
    name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
    assert code_ == code, err
    assert err.startswith(f"nonsmooth: interrupted ({name}) while the outputs were written, "
                          "which were finished first; the run had finished: its 501 rows "
                          "(t = 0 .. 0.5 s, the whole run) written to ")
    assert err.count("\n") == 1 and (tmp_path / "e.csv").exists()
    _, data = read_rows(out)
    assert data.shape[0] == 501 and data[-1, 0] == 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.csv", "o.csv"]  # no temporary


def test_a_second_signal_stops_the_writing_and_leaves_no_cut_file(tmp_path, capsys,
                                                                  monkeypatch):
    from nonsmooth.result import Result

    write = Result.to_csv

    def cut(self, path, columns=None):
        write(self, path, columns)  # the rows are in the (temporary) file, then two Ctrl-C
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)
        return path

    monkeypatch.setattr(Result, "to_csv", cut)
    code, _, err = run_cli(capsys, "run", "stick_slip_oscillator", "--t-end", "0.5", "--out",
                           tmp_path / "o.csv")
    assert code == 130, err
    assert "while the outputs were written: nothing written (501 rows" in err
    assert "no partial file is left" in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_output_paths_are_checked_before_the_run(capsys, tmp_path):
    started = time.perf_counter()
    code, stdout, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "100", "--out",
                                tmp_path / "nope" / "x.csv")
    assert code == 2 and "the folder" in err and "does not exist" in err
    assert stdout == "" and time.perf_counter() - started < 2.0  # refused, not simulated
    code, _, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.01", "--plot", tmp_path)
    assert code == 2 and "is a folder; give a file name" in err


def test_plot_without_suffix_says_the_file_it_wrote(capsys, tmp_path):
    code, stdout, _ = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.05", "--plot",
                              tmp_path / "fig")
    assert code == 0
    assert f"wrote plot to {tmp_path / 'fig.png'}" in stdout
    assert (tmp_path / "fig.png").stat().st_size > 1000


@pytest.mark.parametrize("names", [
    ("--out", "same.csv", "--events", "same.csv"),
    ("--out", "same.csv", "--events", "./sub/../same.csv"),
    ("--out", "pic.csv", "--plot", "fig"),  # a link to fig.png, the plot's (.png added)
    ("--events", "link.csv", "--out", "target.csv"),  # a symbolic link to the other
])
def test_one_file_for_two_outputs_is_refused_before_the_run(capsys, tmp_path, monkeypatch,
                                                             names):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "target.csv").write_text("keep\n")
    (tmp_path / "link.csv").symlink_to(tmp_path / "target.csv")
    (tmp_path / "pic.csv").symlink_to(tmp_path / "fig.png")
    code, out, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.5", *names)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "name the same file" in err and "give each output its own file" in err
    assert not (tmp_path / "same.csv").exists() and not (tmp_path / "fig.png").exists()
    assert (tmp_path / "target.csv").read_text() == "keep\n"


def test_compare_refuses_one_file_for_table_and_plot(capsys, tmp_path):
    (tmp_path / "table.csv").symlink_to(tmp_path / "x.png")
    code, _, err = run_cli(capsys, "compare", "stick_slip_oscillator", "--out",
                           tmp_path / "table.csv", "--plot", tmp_path / "x.png")
    assert code == 2 and "--out and --plot name the same file" in err


@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_a_failed_write_after_the_run_keeps_the_data_and_exits_1(capsys, tmp_path, monkeypatch,
                                                                 option):
    """A write that fails after the run (a full disk: /dev/full) is not "nothing run": the data
    go to a rescue file named in the one error line, exit 1; no /dev/full.png is made."""
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.5", option,
                                "/dev/full")
    assert code == 1 and "status 0" in stdout and err.count("\n") == 1
    what = "data" if option == "--out" else "plot"
    assert f"cannot write the {what} to /dev/full (No space left on device)" in err
    rescued = list(tmp_path.glob("nonsmooth-rescue-crank_rocker-data-*.csv"))
    assert len(rescued) == 1 and f"the data was written to {rescued[0]} instead" in err
    header, data = read_rows(rescued[0])
    assert header[:2] == ["t", "theta1"] and data.shape[0] == 501
    assert not Path("/dev/full.png").exists()


def test_a_failed_write_of_a_failed_run_keeps_its_rows(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *UNSTABLE, "--events", "/dev/full")
    assert code == 1 and err.startswith("nonsmooth: error: the run failed: ")
    assert "cannot write the event log to /dev/full" in err and err.count("\n") == 1
    assert len(list(tmp_path.glob("nonsmooth-rescue-stick_slip_oscillator-event_log-*"))) == 1


def test_parquet_outputs_are_parquet(capsys, tmp_path):
    import pyarrow.parquet as pq

    out, ev, ref = tmp_path / "x.parquet", tmp_path / "e.parquet", tmp_path / "x.csv"
    code, _, _ = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.2", "--out", out,
                         "--events", ev)
    assert code == 0
    code, _, _ = run_cli(capsys, "run", "crank_rocker", "--t-end", "0.2", "--out", ref)
    header, data = read_rows(ref)
    table = pq.read_table(out)
    assert table.column_names == header
    np.testing.assert_allclose(np.column_stack([table[c].to_numpy() for c in header]), data,
                               rtol=1e-11, atol=1e-300)
    assert pq.read_table(ev).column_names == ["t", "pair", "kind", "before", "after"]


@pytest.mark.parametrize("argv, match", [
    (["run", "crank_rocker", "--out", ""], "--out '': the file name is empty"),
    (["run", "crank_rocker", "--events", " "], "--events ' ': the file name is empty"),
    (["run", "crank_rocker", "--plot", ""], "--plot '': the file name is empty"),
    (["compare", "crank_rocker", "--out", ""], "--out '': the file name is empty"),
    (["run", "crank_rocker", "--out", "x.xlsx"], "the data is written as CSV or Parquet, not "
                                                 "'.xlsx'"),
    (["compare", "crank_rocker", "--out", "x.parquet"], "written as CSV, not '.parquet'"),
])
def test_empty_or_unknown_output_names_are_refused(capsys, tmp_path, monkeypatch, argv, match):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and match in err and out == "" and list(tmp_path.iterdir()) == []


def test_compare_keeps_its_table_when_the_write_fails(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, "compare", "stick_slip_oscillator", "--t-end", "0.5",
                           "--out", "/dev/full")
    assert code == 1 and "cannot write the comparison table to /dev/full" in err
    assert len(list(tmp_path.glob("nonsmooth-rescue-*-comparison_table-*.csv"))) == 1


# ---------------------------------------------------------------------------- 2.-4. model files
def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


PLANAR_FILE = """
from nonsmooth.planar import PlanarModel, Body, ground
from nonsmooth.planar import Translational
from nonsmooth.planar import Gravity

def build(m=1.0, n=2, label="block", fixed=False):
    mdl = PlanarModel(label)
    block = mdl.add(Body("block", mass=2 * m * n / 2, inertia=0.1, velocity=(1.0, 0.0)))
    mdl.add(Translational("guide", ground, block, axis=(-1.0, 0.0), mu=0.0 if fixed else 0.1))
    mdl.add(Gravity(g=9.81))
    return mdl
"""


def test_set_values_are_converted_by_the_type_of_the_default(tmp_path):
    path = write(tmp_path, "block.py", PLANAR_FILE)
    model = build(str(path), m="3", n="2", label="sled", fixed="true")
    assert model.name == "sled"
    assert model.system.terms(0.0, model.q0, model.v0).M[0, 0] == pytest.approx(6.0)
    with pytest.raises(ModelError, match="parameter n = '2.5' is not an integer"):
        build(str(path), n="2.5")
    with pytest.raises(ModelError, match="parameter fixed = 'maybe' is not a truth value"):
        build(str(path), fixed="maybe")
    with pytest.raises(ModelError, match="build\\(\\) has no parameter mass; its parameters: m, n"):
        build(str(path), mass="3")


def test_a_parameter_without_default_takes_numbers_only(tmp_path):
    path = write(tmp_path, "kw.py", PLANAR_FILE.replace("def build(m=1.0, n=2, label=\"block\","
                                                        " fixed=False):",
                                                        "def build(**p):\n    m = p['m']; n = 2; "
                                                        "label = 'b'; fixed = False"))
    model = build(str(path), m="3")
    assert model.system.terms(0.0, model.q0, model.v0).M[0, 0] == pytest.approx(6.0)
    with pytest.raises(ModelError, match="only numbers are accepted"):
        build(str(path), m="heavy")


def test_a_build_returning_a_planar_model_runs_and_compares(capsys, tmp_path):
    path = write(tmp_path, "block.py", PLANAR_FILE)
    code, stdout, err = run_cli(capsys, "run", path, "--set", "m=3", "--t-end", "0.2",
                                "--out", tmp_path / "b.csv")
    assert code == 0, err
    header, data = read_rows(tmp_path / "b.csv")
    assert "block.x" in header and data.shape[0] > 10
    comparison = nonsmooth.compare(slider(), ["coulomb", "regularized"], 0.2,
                                   method="RK45", dt=0.01)
    assert [row["law"] for row in comparison.table] == ["coulomb", "regularized"]


@pytest.mark.parametrize("name, text, match", [
    ("notmodel.txt", "hello", "is neither a Python (.py) nor a MotionSolve (.xml) file"),
    ("raises.py", "import math\nx = 1 / 0\n", "raised ZeroDivisionError while being imported: "
                                              "division by zero (line 2)"),
    ("exits.py", "import sys\nsys.exit(3)\n", "called sys.exit(3) while being imported"),
    ("buildraises.py", "def build(**p):\n    raise KeyError('wheel')\n",
     "build() raised KeyError: 'wheel' (line 2)"),
    ("buildint.py", "def build(**p):\n    return 42\n",
     "build() returned int, not a model"),
    ("badparams.py", "PARAMETERS = {'m': 1}\ndef build(**p):\n    return None\n",
     "PARAMETERS must be a list of nonsmooth.model.Parameter"),
])
def test_broken_model_files_are_one_line(capsys, tmp_path, name, text, match):
    path = write(tmp_path, name, text)
    code, _, err = run_cli(capsys, "run", path)
    assert code == 2, err
    assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1
    assert match in err and str(path) in err or match in err
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, match", [
    (["--t-end", "1e308"], "output rows"),
    (["--t-end", "inf"], "--t-end inf is invalid"),
    (["--dt", "nan"], "--dt nan is invalid"),
    (["--max-evaluations", "0"], "--max-evaluations 0 is invalid"),
    (["--timeout", "-1"], "--timeout -1 is invalid"),
    (["--t-end", "1e9", "--dt", "1e-3"], "1e+12 output rows"),
])
def test_extreme_run_options_are_one_line(capsys, argv, match):
    code, _, err = run_cli(capsys, "run", "stick_slip_oscillator", *argv)
    assert code == 2 and match in err and err.count("\n") == 1, err


# ---------------------------------------------------------------------------- 5. memory
def test_huge_output_grids_are_refused_up_front():
    model = belt.build()
    with pytest.raises(ValueError, match=r"asks for 1e\+09 output rows .* max_outputs"):
        nonsmooth.simulate(model, 1e6, dt=1e-3)
    small = nonsmooth.simulate(model, 0.1, dt=1e-3, max_outputs=101, method="RK4")
    assert len(small.t) == 101


def test_motionsolve_num_step_of_1e12_is_refused(capsys, tmp_path):
    huge = 'num_step            = "1000000000000"'
    text = XML.read_text().replace('num_step            = "1000"', huge)
    assert huge in text
    path = write(tmp_path, "huge.xml", text)
    started = time.perf_counter()
    code, _, err = run_cli(capsys, "run", path)
    assert code == 2 and "output rows" in err and "max_outputs" in err, err
    assert time.perf_counter() - started < 10.0


# ---------------------------------------------------------------------------- 6. budgets
def test_evaluation_budget_ends_the_run_with_its_rows():
    model = belt.build()
    with pytest.raises(BudgetError, match="budget of 2,000 evaluations") as info:
        nonsmooth.simulate(model, 5.0, method="RK4", dt=1e-3, max_evaluations=2000)
    r = info.value.result
    assert r.status == -1 and 0.3 < r.t[-1] < 0.6  # 4 evaluations a step
    assert r.diagnostics["n_evaluations"] <= 2000


def test_timeout_ends_the_run_cleanly():
    model = belt.build()
    started = time.perf_counter()
    r = nonsmooth.simulate(model, 1000.0, method="RK4", dt=1e-3, timeout=0.5, throw=False)
    assert time.perf_counter() - started < 5.0
    assert r.status == -1 and "timeout of 0.5 s" in r.message and len(r.t) > 10


class _Clock:
    """A clock that reads 100 s later at every reading (no real time involved)."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 100.0
        return self.t


def test_a_runs_timeout_leaves_numbas_compilation_out(monkeypatch):
    """The wall-clock budget counts the run, not numba compiling its kernels (a first run on a
    new machine, the README's sweep with its 20 s per case): with every second on the clock
    spent compiling the run ends; without, the same run exceeds its timeout at its first
    reading of the clock."""
    from types import SimpleNamespace

    from nonsmooth.run import state

    monkeypatch.setattr(state, "time", SimpleNamespace(perf_counter=_Clock()))
    monkeypatch.setattr(state, "compile_seconds", _Clock())  # all of it compiling
    r = nonsmooth.simulate(belt.build(), 0.2, method="RK4", dt=1e-3, timeout=10.0)
    assert r.status == 0
    monkeypatch.setattr(state, "compile_seconds", lambda: 0.0)  # nothing compiled
    r = nonsmooth.simulate(belt.build(), 0.2, method="RK4", dt=1e-3, timeout=10.0, throw=False)
    assert r.status == -1 and "timeout of 10 s" in r.message


def test_cli_budget_writes_partial_results(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", "stick_slip_oscillator", "--max-evaluations", "1000",
                           "--out", tmp_path / "b.csv")
    assert code == 1 and "budget of 1,000 evaluations" in err and "partial results" in err
    _, data = read_rows(tmp_path / "b.csv")
    assert data.shape[0] > 100


# ---------------------------------------------------------------------------- 7. no false success
def test_unstable_explicit_run_warns_about_its_energy_balance():
    model = belt.build(k=12000, mu_s=0, mu_d=0)
    with pytest.warns(RuntimeWarning, match="energy balance error .* unstable"):
        r = nonsmooth.simulate(model, 1.5, method="RK4", dt=0.03)  # before it drifts
    assert r.diagnostics["energy_balance_scaled"] > 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the accurate run does not warn
        good = nonsmooth.simulate(model, 1.0, method="RK4", dt=1e-4)
    assert good.diagnostics["energy_balance_scaled"] < 1e-6


def _pendulum_like(mass):
    return GeneralizedSystem(["x"], mass, potential=lambda t, q: 0.5 * q[0] ** 2,
                             potential_gradient=lambda t, q: np.array([q[0]]))


@pytest.mark.parametrize("mass, match", [
    (lambda q: np.array([[-1.0]]), "not positive definite"),
    (lambda q: np.array([[1.0, 0.5], [0.0, 1.0]]), "not symmetric"),
])
def test_a_bad_user_mass_matrix_is_reported(mass, match):
    if "symmetric" in match:
        system = GeneralizedSystem(["x", "y"], mass)
        q0 = [0.1, 0.0]
    else:
        system = _pendulum_like(mass)
        q0 = [0.1]
    with pytest.raises(UserFunctionError, match=match):
        nonsmooth.simulate(system, 1.0, q0=q0, method="RK4", dt=0.01)


def test_a_user_event_returning_nan_is_reported():
    def bad(t, q, v):
        return math.nan if t > 0.3 else 1.0

    with pytest.raises(UserFunctionError, match="user event bad returned nan at t = 0.3"):
        nonsmooth.simulate(belt.build(), 1.0, method="RK4", dt=0.01, events=[bad])


# ---------------------------------------------------------------------------- 8. messages
def test_nan_initial_state_names_the_coordinate():
    model = belt.build()
    q0 = model.q0.copy()
    q0[-2] = math.nan
    with pytest.raises(ModelError, match="initial state q0 is not finite at coordinate"):
        nonsmooth.simulate(model, 1.0, q0=q0)


@pytest.mark.parametrize("method", ["RK4", "RK45"])
def test_a_force_returning_nan_is_named_with_its_time(method):
    model = slider(lambda t, q, v: (0.0, math.nan if t >= 0.25 else 1.0))
    with pytest.raises(UserFunctionError, match="the function of force 'push' returned a "
                                                "non-finite value") as info:
        nonsmooth.simulate(model, 1.0, method=method, dt=0.01)
    t_named = float(str(info.value).split(" at t = ")[1].split()[0].rstrip(";"))
    assert 0.25 <= t_named < 1.0  # a time at which the force is NaN
    t_last = info.value.result.t[-1]  # the outputs of every completed step are kept
    assert (0.2 if method == "RK4" else 0.0) < t_last <= 0.25


@pytest.mark.filterwarnings("ignore:lugre friction")
def test_compare_names_the_failing_law(capsys, tmp_path):
    model = belt.build()  # Coulomb takes ~1,100 evaluations, LuGre ~3,700
    with pytest.raises(BudgetError, match="friction law lugre: the run used its budget") as info:
        nonsmooth.compare(model, ["coulomb", "lugre"], 0.5, max_evaluations=2_000)
    assert info.value.comparison.laws == ["coulomb"]
    code, _, err = run_cli(capsys, "compare", "stick_slip_oscillator", "--t-end", "0.5",
                           "--max-evaluations", "2000", "--out", tmp_path / "c.csv")
    assert code == 1 and "friction law lugre" in err and "(coulomb) written to" in err
    assert (tmp_path / "c.csv").read_text().startswith("law,")


def test_reproduce_names_the_file_it_cannot_write(capsys, tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "crank_rocker_c0.csv").mkdir()  # a folder where a file must go
    code, _, err = run_cli(capsys, "reproduce", "crank-rocker", "--outdir", out)
    assert code == 2 and f"cannot write {out / 'crank_rocker_c0.csv'}" in err, err


# ---------------------------------------------------------------------------- 9. throw=False
def test_throw_false_covers_output_functions_and_user_events():
    model = belt.build()
    model.outputs["broken"] = nonsmooth.Output(lambda r: r.q[:, 99], "m")
    r = nonsmooth.simulate(model, 0.2, method="RK4", dt=0.01, throw=False)
    assert r.status == -1 and "output 'broken'" in r.message and "IndexError" in r.message
    assert len(r.t) == 21 and "x" in r.outputs
    with pytest.raises(UserFunctionError, match="output 'broken'"):
        nonsmooth.simulate(model, 0.2, method="RK4", dt=0.01)

    def explode(t, q, v):
        if t > 0.1:
            raise RuntimeError("sensor offline")
        return 1.0

    r = nonsmooth.simulate(belt.build(), 0.3, method="RK4", dt=0.01, events=[explode],
                           throw=False)
    assert r.status == -1 and "RuntimeError: sensor offline" in r.message
    assert "explode" in r.message and 0.09 < r.t[-1] <= 0.11


def test_failures_before_any_output_stay_input_errors(capsys):
    code, _, err = run_cli(capsys, "run", "stick_slip_oscillator", "--max-evaluations", "1")
    assert code == 2 and "budget of 1 evaluations" in err and err.count("\n") == 1


def _readme_bad_inputs():
    block = readme_marked("bad-inputs")
    return [line.split("#")[0].split()[1:] for line in block.splitlines()
            if line.startswith("nonsmooth ")]


def test_the_readme_lists_its_bad_inputs():
    assert len(_readme_bad_inputs()) == 18


@pytest.mark.parametrize("argv", _readme_bad_inputs(), ids=" ".join)
def test_readme_bad_inputs_are_one_line_exit_2(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notmodel.txt").write_text("not a model\n")
    started = time.perf_counter()
    code, out, err = run_cli(capsys, *argv)
    assert code == 2, (argv, err)
    assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1
    assert "Traceback" not in err and out == ""
    assert time.perf_counter() - started < 5.0  # refused before any long run


@pytest.mark.parametrize("exc, code, text", [
    (IntegrationError("the state became non-finite"), 1, "error: the reproduction failed"),
    (KeyboardInterrupt(), 130, "interrupted (SIGINT)"),
])
def test_a_failed_reproduction_keeps_its_files(capsys, tmp_path, monkeypatch, exc, code, text):
    from nonsmooth import reproduce

    def partly(outdir):
        Path(outdir).mkdir(parents=True, exist_ok=True)
        (Path(outdir) / "first.csv").write_text("t\n0\n")
        raise exc

    monkeypatch.setitem(reproduce.REPRODUCTIONS, "crank-rocker", partly)
    got, _, err = run_cli(capsys, "reproduce", "crank-rocker", "--outdir", tmp_path / "rep")
    assert got == code and text in err and err.count("\n") == 1
    assert "the 1 file(s) written before it are kept" in err
    assert (tmp_path / "rep" / "first.csv").exists()


# ---------------------------------------------------------------------------- misleading causes
def _opposing_drivers(kind):
    mdl = PlanarModel("opposing drivers")
    block = mdl.add(Body("block", mass=1.0, inertia=0.1))
    if kind == "translational":
        joint = mdl.add(Translational("slot", ground, block, axis=(1.0, 0.0), mu=0.2))
    else:
        joint = mdl.add(nonsmooth.Revolute("slot", ground, block, mu=0.2, pin_radius=0.01))
    mdl.add(nonsmooth.Driver("push", joint, speed=1.0))
    mdl.add(nonsmooth.Driver("pull", joint, speed=-1.0))
    mdl.add(Gravity(g=9.81))
    return mdl


@pytest.mark.parametrize("kind", ["translational", "revolute"])
def test_two_drivers_on_one_frictional_joint_are_redundant_constraints(kind):
    """Every friction mode fails on the singular KKT matrix of the constraints alone: the cause
    is the redundant drivers, not "mu, mu_s and the geometry"."""
    with pytest.raises(nonsmooth.ConstraintError, match=r"KKT matrix .* is singular: the "
                                                        r"constraints are redundant .*'push', "
                                                        r"'pull'"):
        nonsmooth.simulate(_opposing_drivers(kind), 0.1)


@pytest.mark.parametrize("form", ["lagrange", "planar"])
def test_a_driven_crank_at_rest_holds_the_mechanism_still(capsys, form):
    """omega = 0: the drive holds the crank-rocker (no degree of freedom), the slot's sliding is
    fixed by the constraints and its normal load is zero there, so its friction is zero: the
    run is the mechanism at rest, not "no consistent mode exists"."""
    r = nonsmooth.simulate(build("crank_rocker", omega=0.0, form=form), 1.0)
    assert r.status == 0 and len(r.t) == 1001
    for name in ("theta1", "omega1", "theta2", "v_r", "lambda_N", "F_f", "tau"):
        assert np.max(np.abs(r[name])) < 1e-9, name
    code, out, _ = run_cli(capsys, "run", "crank_rocker", "--set", "omega=0", "--t-end", "0.2")
    assert code == 0 and "status 0" in out


def test_a_loaded_pair_held_by_the_drives_is_named_indeterminate():
    mdl = PlanarModel("held")
    block = mdl.add(Body("block", mass=1.0, inertia=0.1))
    slot = mdl.add(Translational("slot", ground, block, axis=(1.0, 0.0), mu=0.2))
    mdl.add(nonsmooth.Driver("hold", slot, speed=0.0))
    mdl.add(Gravity(g=9.81))
    with pytest.raises(nonsmooth.ModeError, match=r"pairs \['slot'\] are held at rest by the "
                                                  r"constraints .* the friction force is "
                                                  r"statically indeterminate \(anything up to "
                                                  r"mu_s N = 1\.962 N holds them\)"):
        nonsmooth.simulate(mdl, 0.1)


@pytest.mark.parametrize("form", ["lagrange", "planar"])
def test_a_fixed_step_too_large_for_the_mechanism_is_named_and_keeps_no_garbage(capsys, tmp_path,
                                                                                  form):
    """RK4 at dt = 0.3 s on the crank-rocker (period ~2 s) drifts off its constraints in the
    first step: the run fails there with the step as the cause (not friction, jamming or a
    later non-finite state), and the drifted rows (omega1 = -733 rad/s ...) are not kept."""
    out = tmp_path / "coarse.csv"
    code, _, err = run_cli(capsys, "run", "crank_rocker", "--set", f"form={form}", "--method",
                           "RK4", "--dt", "0.3", "--t-end", "2", "--out", out)
    assert code == 1 and err.count("\n") == 1
    assert "the step dt = 0.3 s is too large for the mechanism's time scale" in err
    assert "reduce dt" in err and "adaptive method" in err
    assert "friction" not in err and "mu" not in err and "normal forces" not in err
    _, data = read_rows(out)
    assert data.shape[0] == 1 and data[0, 0] == 0.0  # only the initial state is the motion
    r = nonsmooth.simulate(build("crank_rocker", form=form), 2.0, method="RK4", dt=0.3,
                           throw=False)
    assert r.status == -1 and len(r.t) == 1 and "too large" in r.message
    with pytest.raises(IntegrationError, match="too large for the mechanism's time scale"):
        nonsmooth.simulate(build("crank_rocker", form=form), 2.0, method="RK4", dt=0.3)
    fine = nonsmooth.simulate(build("crank_rocker", form=form), 2.0, method="RK4", dt=0.01)
    assert fine.status == 0 and fine.diagnostics["max_drift_position"] < 1e-4


@pytest.mark.parametrize("method", ["DOP853", "RK4"])
def test_an_interrupt_during_a_compiled_call_keeps_every_row_it_computed(monkeypatch, method):
    """A signal that comes while a compiled phase call runs is handled as the call returns:
    the rows that call computed are recorded first, so the partial result reaches the time
    the interrupt names (the last output at or before the kernel's time)."""
    from nonsmooth.spatial import family

    reached, calls = [], []

    def signalled(real):
        def entry(self, plan, Wt):
            phase, ctx = real(self, plan, Wt)

            def call(*args):
                out = phase(*args)
                calls.append(1)
                if len(calls) == 3:  # the third call: as if Ctrl-C came while it ran
                    state = args[12] if method == "DOP853" else args[11]
                    reached.append(float(state[0]))
                    os.kill(os.getpid(), signal.SIGINT)
                return out

            return call, ctx
        return entry

    for name in ("dop853", "fixed"):
        monkeypatch.setattr(family.SpatialFamily, name,
                            signalled(getattr(family.SpatialFamily, name)))
    dt = 0.002
    with pytest.raises(KeyboardInterrupt) as info:
        nonsmooth.simulate(build("spatial_gyroscope"), 300.0, method=method, dt=dt)
    r = info.value.result
    assert r.message == f"interrupted (SIGINT) at t = {reached[0]:.6g} s"
    assert reached[0] - dt < r.t[-1] <= reached[0]  # every row up to where it stopped
    assert np.allclose(np.diff(r.t), dt)
