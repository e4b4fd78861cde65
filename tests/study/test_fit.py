"""Identification (``nonsmooth.fit``): synthetic data of the belt oscillator and of the clutch
drivetrain with seeded Gaussian noise give back the truth within two standard errors; parameters
that enter only as a product, or have no effect, are named by an IdentifiabilityWarning with
standard errors inf; bad data get a DataError naming the problem; the command line prints the
table (exit 0) and refuses a bad call in one line."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import nonsmooth as ns
from nonsmooth import DataError, FitError, IdentifiabilityWarning, ModelError
from nonsmooth.cli import main
from nonsmooth.fit import load_data
from nonsmooth.models import build

BELT_TRUTH = {"mu_s": 0.4, "mu_d": 0.3, "k": 100.0}


def belt_data(n=300, t_end=3.0, noise=3e-4, seed=0, **truth):
    t = np.linspace(0.0, t_end, n)
    clean = ns.simulate(build("stick_slip_oscillator", **(truth or BELT_TRUTH)), (0.0, t_end),
                        t_eval=t)
    rng = np.random.default_rng(seed)
    return {"t": t, "x": clean["x"] + noise * rng.standard_normal(n),
            "v": clean["v"] + 10 * noise * rng.standard_normal(n)}


@pytest.fixture(scope="module")
def belt():
    return belt_data()


@pytest.fixture(scope="module")
def belt_fit(belt):
    return ns.fit("stick_slip_oscillator", belt, ["mu_s", "mu_d", "k"], outputs=["x"],
                  x0={"mu_s": 0.42, "mu_d": 0.29, "k": 104.0})


# ============================================================================ the truth back
def test_belt_oscillator_three_parameters_within_two_standard_errors(belt_fit):
    f = belt_fit
    truth = np.array(list(BELT_TRUTH.values()))
    assert f.success and f.parameters == ("mu_s", "mu_d", "k")
    assert np.all(np.abs(f.x - truth) <= 2 * f.standard_errors), (f.x, f.standard_errors)
    assert np.all(f.standard_errors < 0.01 * truth)  # informative data: small errors
    assert np.all(f.identifiable) and math.isfinite(f.condition_number)
    # the noise comes back as the residual, and s^2 (J^T J)^-1 is symmetric with unit diagonal
    assert f.residual_rms["x"] == pytest.approx(3e-4, rel=0.15)
    assert f.dof == 300 - 3
    np.testing.assert_allclose(f.correlation, f.correlation.T)
    np.testing.assert_allclose(np.diag(f.correlation), 1.0)
    np.testing.assert_allclose(np.sqrt(np.diag(f.covariance)), f.standard_errors)
    assert f["k"] == f.estimates["k"] == f.x[2] and f.errors["k"] == f.standard_errors[2]
    assert f.units["k"] == "N/m" and f.units["x"] == "m"
    assert f.n_runs >= 1 + 2 * 3 and f.n_iterations >= 1
    np.testing.assert_allclose(f.fitted[0], f.result["x"])  # the fitted run at the data times
    lo, hi = f.confidence_intervals(0.95)["k"]
    assert lo < f["k"] < hi and hi - lo == pytest.approx(2 * 1.968 * f.errors["k"], rel=1e-3)


def test_the_summary_is_a_table_of_estimates_errors_and_correlations(belt_fit):
    text = repr(belt_fit)
    assert text == belt_fit.summary()
    assert "fit of stick_slip_oscillator to 300 samples of x: 3 parameters" in text
    for name in ("mu_s", "mu_d", "k", "std error", "correlation:", "residual RMS: x",
                 "N/m", "297 degrees of freedom"):
        assert name in text
    row = next(line for line in text.splitlines() if line.startswith("k "))
    assert f"{belt_fit['k']:.7g}" in row


def test_the_plot_shows_data_against_the_fitted_run_with_units(belt_fit, tmp_path):
    fig = belt_fit.plot(tmp_path / "fit.png")
    assert (tmp_path / "fit.png").stat().st_size > 1000
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels[0] == "x [m]" and "fit - data [m]" in labels[1]
    assert fig.axes[-1].get_xlabel() == "t [s]"


def test_the_jacobian_matches_a_finite_difference_of_the_residual(belt, belt_fit):
    """The reported Jacobian (parameters' units) against a coarser central difference."""
    f = belt_fit
    j = 2  # k
    h = 1e-4 * f.x[j]
    runs = []
    for sign in (1, -1):
        p = dict(f.estimates)
        p["k"] += sign * h
        r = ns.simulate(build("stick_slip_oscillator", **p), (0.0, 3.0), t_eval=belt["t"])
        runs.append(f.weights[0] * r["x"])
    column = (runs[0] - runs[1]) / (2 * h)
    np.testing.assert_allclose(f.jacobian[:, j], column, atol=2e-3 * np.abs(column).max())


def test_clutch_drivetrain_within_two_standard_errors():
    """The coupled clutches (Modelica's CoupledClutches): the sliding coefficient and an
    inertia from the four speeds, weighted per output."""
    t = np.linspace(0.0, 1.5, 151)
    clean = ns.simulate(build("coupled_clutches"), t_eval=t)
    rng = np.random.default_rng(3)
    data = {"t": t, **{w: clean[w] + 0.02 * rng.standard_normal(t.size)
                       for w in ("w1", "w2", "w3", "w4")}}
    f = ns.fit("coupled_clutches", data, ["mu", "J4"], x0={"mu": 0.45, "J4": 1.15},
               weights={w: 1 / 0.02 for w in ("w1", "w2", "w3", "w4")},
               absolute_weights=True)
    truth = np.array([0.5, 1.0])
    assert np.all(np.abs(f.x - truth) <= 2 * f.standard_errors), (f.x, f.standard_errors)
    assert f.outputs == ("w1", "w2", "w3", "w4") and f.units["w1"] == "rad/s"
    assert f.s == pytest.approx(1.0, rel=0.1)  # weights 1/sigma: the residual's scale is 1


def test_a_fit_under_the_lugre_law():
    """``law="lugre"``: the runs use LuGre friction (LSODA, rtol 1e-8: difference step 1e-4)."""
    t = np.linspace(0.0, 0.6, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # LuGre's dissipativity note
        clean = ns.simulate(build("stick_slip_oscillator", sigma0=1e4), (0.0, 0.6), t_eval=t,
                            friction="lugre", method="LSODA")
    rng = np.random.default_rng(5)
    data = {"t": t, "x": clean["x"] + 1e-4 * rng.standard_normal(t.size)}
    f = ns.fit("stick_slip_oscillator", data, ["mu_d"], law="lugre", fixed={"sigma0": 1e4},
               x0=[0.31], options={"method": "LSODA"})
    assert f.result.laws == ["lugre"] and f.result.method == "LSODA"
    assert abs(f["mu_d"] - 0.3) <= 2 * f.errors["mu_d"]


# ============================================================================ identifiability
def test_a_product_pair_is_not_identifiable(belt):
    """The belt's motion depends on k / m only: m and k are named, their errors inf."""
    with pytest.warns(IdentifiabilityWarning, match=r"m, k are not identifiable") as rec:
        f = ns.fit("stick_slip_oscillator", belt, ["m", "k"], outputs=["x"],
                   x0={"m": 1.05, "k": 103.0})
    assert rec[0].message.parameters == ("m", "k")
    assert "0.707 dm/m + 0.707 dk/k" in str(rec[0].message)
    assert np.all(np.isinf(f.standard_errors)) and not np.any(f.identifiable)
    assert np.all(np.isnan(f.correlation)) and f.condition_number > 1e5
    assert f["k"] / f["m"] == pytest.approx(100.0, rel=1e-3)  # the ratio is determined
    assert "not ident." in f.summary()


def test_a_parameter_without_effect_is_named_and_the_others_keep_their_errors(belt):
    """sigma0 (LuGre's bristles) does nothing under Coulomb friction."""
    with pytest.warns(IdentifiabilityWarning, match="sigma0 has no effect on the fitted"):
        f = ns.fit("stick_slip_oscillator", belt, ["mu_d", "sigma0"], outputs=["x"],
                   x0={"mu_d": 0.31}, fixed={"mu_s": 0.4})
    assert math.isinf(f.errors["sigma0"]) and math.isfinite(f.errors["mu_d"])
    assert abs(f["mu_d"] - 0.3) <= 2 * f.errors["mu_d"]
    assert list(f.identifiable) == [True, False]


def test_well_determined_parameters_do_not_warn(belt_fit, belt):
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentifiabilityWarning)
        ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], x0=[0.31],
               fixed={"mu_s": 0.4})
    assert not belt_fit.warnings


# ============================================================================ bad data
def test_bad_data_get_named_errors(belt):
    t, x = belt["t"], belt["x"]
    fit = ns.fit
    model = "stick_slip_oscillator"
    with pytest.raises(DataError, match=r"column 'x' has 1 non-finite value\(s\) \(the first, "
                                        r"NaN, in row 5\)"):
        fit(model, {"t": t, "x": np.where(np.arange(t.size) == 5, np.nan, x)}, ["mu_d"])
    swapped = t.copy()
    swapped[[7, 8]] = swapped[[8, 7]]
    with pytest.raises(DataError, match="the times are not sorted .* in row 7"):
        fit(model, {"t": swapped, "x": x}, ["mu_d"])
    repeated = t.copy()
    repeated[9] = repeated[8]
    with pytest.raises(DataError, match="appears twice .rows 8 and 9"):
        fit(model, {"t": repeated, "x": x}, ["mu_d"])
    with pytest.raises(DataError, match="too few samples: 2 sample.s. of 1 output.s. for 2 "
                                        "parameter"):
        fit(model, {"t": t[:2], "x": x[:2]}, ["mu_d", "k"])
    with pytest.raises(DataError, match=r"sample time\(s\) outside the runs' span 0 \.\. 1 s"):
        fit(model, {"t": t, "x": x}, ["mu_d"], t_span=1.0)
    with pytest.raises(DataError, match="outside the runs' span .*the first, t = -0.5 s"):
        fit(model, {"t": t - 0.5, "x": x}, ["mu_d"])
    with pytest.raises(DataError, match="no time column 't' .columns: time, x"):
        fit(model, {"time": t, "x": x}, ["mu_d"])
    with pytest.raises(DataError, match=r"output\(s\) y not in the data \(data columns: x"):
        fit(model, {"t": t, "x": x}, ["mu_d"], outputs=["y"])
    with pytest.raises(DataError, match="column 'x' has 3 values, t has"):
        fit(model, {"t": t, "x": x[:3]}, ["mu_d"])
    with pytest.raises(DataError, match="weights must be finite and >= 0"):
        fit(model, {"t": t, "x": x}, ["mu_d"], weights=-1.0)


def test_unknown_outputs_list_the_models_outputs(belt):
    with pytest.raises(DataError, match=r"unknown output\(s\) y for model "
                                        r"stick_slip_oscillator; its outputs: x, v, v_r"):
        ns.fit("stick_slip_oscillator", {"t": belt["t"][:20], "y": belt["x"][:20]}, ["mu_d"])


def test_unknown_or_unfittable_parameters_list_the_models(belt):
    with pytest.raises(ModelError, match=r"unknown parameter\(s\) mass to fit; the model's "
                                         r"parameters: m, k, c"):
        ns.fit("stick_slip_oscillator", belt, ["mass"])
    with pytest.raises(ModelError, match="parameter friction is not a number"):
        ns.fit("stick_slip_oscillator", belt, ["friction"])
    with pytest.raises(ModelError, match="x0 of k = -5.0 is outside its bounds"):
        ns.fit("stick_slip_oscillator", belt, ["k"], x0={"k": -5.0})
    with pytest.raises(ModelError, match="k both fitted and fixed"):
        ns.fit("stick_slip_oscillator", belt, ["k"], fixed={"k": 3.0})


def test_the_bounds_default_to_the_models_physical_ranges(belt):
    f = ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], fixed={"mu_s": 0.4},
               x0=[0.31], bounds={"mu_d": (0.25, None)})
    assert f.bounds[0][0] == 0.25 and f.bounds[1][0] == 10.0  # the schema's [0, 10]
    g = ns.fit("stick_slip_oscillator", belt, ["k"], outputs=["x"], x0=[101.0])
    assert 0 < g.bounds[0][0] < 1e-300 and g.bounds[1][0] == 1e10  # (0, 1e10] N/m


def test_a_refused_start_is_a_fit_error(belt):
    with pytest.raises((FitError, ModelError), match="mu_s"):
        ns.fit("stick_slip_oscillator", belt, ["mu_d"], x0=[0.45])  # mu_s 0.4 < mu_d


def test_csv_data_and_a_mapping_are_the_same(belt, tmp_path):
    path = tmp_path / "belt.csv"
    np.savetxt(path, np.column_stack([belt["t"], belt["x"]]), delimiter=",", header="t,x",
               comments="")
    loaded = load_data(path)
    np.testing.assert_allclose(loaded["x"], belt["x"])
    bad = tmp_path / "bad.csv"
    bad.write_text("t,x\n0,0.1\n0.1,abc\n")
    with pytest.raises(DataError, match="line 3: x = 'abc' is not a number"):
        load_data(bad)
    bad.write_text("t,x\n0,0.1\n0.1,\n")
    with pytest.raises(DataError, match="NaN, in row 1"):
        load_data(bad)


# ============================================================================ command line
def test_the_command_line_prints_the_table(belt, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    np.savetxt("belt.csv", np.column_stack([belt["t"], belt["x"]]), delimiter=",",
               header="t,x", comments="")
    code = main(["fit", "stick_slip_oscillator", "belt.csv", "--param", "mu_d=0.31",
                 "--set", "mu_s=0.4", "--output", "x", "--plot", "fit.png"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "fit of stick_slip_oscillator to 300 samples of x: 1 parameter," in out
    assert "mu_d" in out and "std error" in out and "wrote plot to fit.png" in out
    assert (tmp_path / "fit.png").is_file()


@pytest.mark.parametrize("argv, match", [
    (["--param", "mass"], r"unknown parameter\(s\) mass to fit"),
    (["--param", "mu_d", "--output", "y"], r"output\(s\) y not in the data"),
    ([], "give at least one --param NAME"),
    (["--param", "mu_d", "--param", "mu_d"], "--param mu_d is given twice"),
    (["--param", "mu_d=abc"], "--param mu_d: 'abc' is not a number"),
    (["--param", "mu_d", "--bounds", "k=1:2"], "--bounds k: not a fitted parameter"),
    (["--param", "mu_d", "--law", "magic"], "unknown friction law 'magic'"),
])
def test_a_bad_fit_call_is_one_line_exit_2(belt, tmp_path, capsys, monkeypatch, argv, match):
    monkeypatch.chdir(tmp_path)
    np.savetxt("belt.csv", np.column_stack([belt["t"], belt["x"]]), delimiter=",",
               header="t,x", comments="")
    code = main(["fit", "stick_slip_oscillator", "belt.csv", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1
    import re

    assert re.search(match, err), err


def test_missing_data_file_and_unknown_model_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "stick_slip_oscillator", "none.csv", "--param", "k"]) == 2
    assert "data file none.csv does not exist" in capsys.readouterr().err
    assert main(["fit", "four_bar", "none.csv", "--param", "k"]) == 2
    assert "unknown model 'four_bar'" in capsys.readouterr().err


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    from readme_blocks import readme_block

    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(readme_block("fit-example"), "README fit-example", "exec"), scope)
    fit = scope["fit"]
    assert abs(fit["mu_d"] - 0.3) <= 2 * fit.errors["mu_d"]
    assert fit.errors["mu_d"] == pytest.approx(6e-4, rel=0.5)  # as the comment says
    assert (tmp_path / "fit.png").is_file()
    assert "fit of stick_slip_oscillator to 300 samples of x" in capsys.readouterr().out


@pytest.mark.slow
def test_the_runs_on_worker_processes_give_the_same_fit(belt):
    """``scheduler="processes"`` (the sweep machinery's pool): the same runs, the same fit."""
    kw = {"outputs": ["x"], "x0": {"mu_s": 0.42, "mu_d": 0.29}}
    serial = ns.fit("stick_slip_oscillator", belt, ["mu_s", "mu_d"], **kw)
    pooled = ns.fit("stick_slip_oscillator", belt, ["mu_s", "mu_d"], scheduler="processes",
                    workers=2, **kw)
    np.testing.assert_allclose(pooled.x, serial.x, rtol=1e-12)
    np.testing.assert_allclose(pooled.standard_errors, serial.standard_errors, rtol=1e-9)
    assert pooled.n_runs == serial.n_runs


# ============================================================================ awkward data files
def test_a_header_only_csv_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty.csv").write_text("t,x\n")
    with pytest.raises(DataError, match="has no samples"):
        load_data(tmp_path / "empty.csv")
    assert main(["fit", "stick_slip_oscillator", "empty.csv", "--param", "mu_d"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nonsmooth: error: data file empty.csv has no samples")
    assert err.count("\n") == 1


def test_a_byte_order_mark_is_read(belt, tmp_path):
    path = tmp_path / "bom.csv"
    pairs = zip(belt["t"][:5].tolist(), belt["x"][:5].tolist(), strict=True)
    rows = "\n".join(f"{t!r},{x!r}" for t, x in pairs)
    path.write_bytes(b"\xef\xbb\xbf" + f"t,x\n{rows}\n".encode())
    loaded = load_data(path)
    assert list(loaded) == ["t", "x"]
    np.testing.assert_array_equal(loaded["x"], belt["x"][:5])


@pytest.mark.parametrize("t", [0.0, 0.5])
def test_a_single_sample_is_too_few(t):
    with pytest.raises(DataError, match="too few samples: 1 sample"):
        ns.fit("stick_slip_oscillator", {"t": [t], "x": [0.1], "v": [0.0]}, ["mu_d"])


# ============================================================================ stopped early
class _FakeClock:
    """``time`` for nonsmooth.fit whose ``time()`` advances 1 s per reading: a fit's timeout
    is reached after a known number of runs, whatever the machine's speed."""

    def __init__(self):
        import time as real

        self.now, self.perf_counter = 0.0, real.perf_counter

    def time(self):
        self.now += 1.0
        return self.now


def _interrupting_build(after: int, exc=KeyboardInterrupt):
    """A build function of the belt oscillator that raises ``exc`` in its ``after``-th call (a
    Ctrl-C arriving while the fit runs)."""
    calls = []

    def build_belt(**params):
        calls.append(params)
        if len(calls) == after:
            raise exc()
        return build("stick_slip_oscillator", **params)

    return build_belt


def test_an_interrupted_fit_carries_its_best_point(belt):
    with pytest.raises(KeyboardInterrupt) as info:
        ns.fit(_interrupting_build(12), belt, ["mu_d"], outputs=["x"], x0=[0.33],
               fixed={"mu_s": 0.4})
    partial = info.value.fit
    assert partial.stopped == "interrupted (SIGINT)" and not partial.success
    assert partial.n_iterations >= 1 and partial.n_runs >= 10
    assert abs(partial["mu_d"] - 0.3) < abs(0.33 - 0.3)  # better than the start
    assert np.isfinite(partial.s) and partial.residual_rms["x"] > 0
    assert np.isnan(partial.standard_errors).all()  # not computed: no Jacobian at the point
    text = partial.summary()
    assert text.startswith("stopped fit of") and "interrupted (SIGINT): the estimates are" in text
    assert partial.plot() is not None


def test_a_fit_interrupted_before_any_run_finished_has_no_best_point(belt):
    with pytest.raises(KeyboardInterrupt) as info:
        ns.fit(_interrupting_build(2), belt, ["mu_d"], outputs=["x"], horizons=2, x0=[0.33],
               fixed={"mu_s": 0.4})
    assert info.value.fit is None


def test_the_timeout_stops_the_fit_with_its_best_point(belt, monkeypatch):
    import sys

    fit_module = sys.modules["nonsmooth.fit"]  # the package's name fit is the function
    monkeypatch.setattr(fit_module, "time", _FakeClock())
    with pytest.raises(FitError, match=r"the fit's timeout of 8 s was reached after \d+ "
                                       r"iterations? and \d+ runs; the best point so far: mu_d"
                       ) as info:
        ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], x0=[0.33],
               fixed={"mu_s": 0.4}, timeout=8)
    partial = info.value.fit
    assert partial.stopped.startswith("the fit's timeout") and partial.n_runs <= 10
    with pytest.raises(ValueError, match="timeout = -1"):
        ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], timeout=-1)


def _write_belt(belt, path):
    np.savetxt(path, np.column_stack([belt["t"], belt["x"]]), delimiter=",", header="t,x",
               comments="")


def test_the_command_line_timeout_prints_the_best_point_and_plots_it(belt, tmp_path, capsys,
                                                                      monkeypatch):
    import sys

    fit_module = sys.modules["nonsmooth.fit"]  # the package's name fit is the function
    monkeypatch.chdir(tmp_path)
    _write_belt(belt, "belt.csv")
    monkeypatch.setattr(fit_module, "time", _FakeClock())
    code = main(["fit", "stick_slip_oscillator", "belt.csv", "--param", "mu_d=0.33", "--set",
                 "mu_s=0.4", "--timeout", "8", "--plot", "fit.png"])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert out.startswith("stopped fit of stick_slip_oscillator") and "mu_d" in out
    assert err.startswith("nonsmooth: error: the fit stopped: the fit's timeout of 8 s")
    assert err.endswith("the best point so far is printed above and plotted to fit.png\n")
    assert err.count("\n") == 1 and (tmp_path / "fit.png").is_file()


def test_the_command_line_budget_of_each_run(belt, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write_belt(belt, "belt.csv")
    code = main(["fit", "stick_slip_oscillator", "belt.csv", "--param", "mu_d",
                 "--max-evaluations", "20"])
    err = capsys.readouterr().err
    assert code == 1 and "budget of 20 evaluations" in err and "(--max-evaluations)" in err
    assert main(["fit", "stick_slip_oscillator", "belt.csv", "--param", "mu_d",
                 "--max-evaluations", "0"]) == 2


def test_fit_messages_advise_only_options_fit_has():
    """Every ``--option`` the messages of a fit and its runs name is an option of
    ``nonsmooth fit``."""
    import re
    from pathlib import Path

    from nonsmooth.cli import build_parser

    root = Path(ns.__file__).parent
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["fit"]
    options = {o for a in sub._actions for o in a.option_strings}
    named = set()
    for module in ("fit.py", "run/state.py", "run/schedule.py"):
        named |= set(re.findall(r"\((--[a-z][a-z-]+)\)", (root / module).read_text()))
    assert named and named <= options, named - options


def test_more_samples_than_a_run_records_are_refused_first():
    t = np.linspace(0.0, 1.0, 50)
    with pytest.raises(DataError, match=r"50 samples, more than a run records \(max_outputs = "
                                        r"10\): thin them \(keep every 5-th sample\)"):
        ns.fit("stick_slip_oscillator", {"t": t, "x": np.zeros(50)}, ["mu_d"],
               options={"max_outputs": 10})


def _fit_script(tmp_path, belt, signal_name: str):
    """A model file whose 12th build sends ``signal_name`` to its own process (a real
    signal arriving while the fit runs), and the data."""
    _write_belt(belt, tmp_path / "belt.csv")
    (tmp_path / "belt_model.py").write_text(  # loaded anew by each build: counts in a file
        "import os, signal\n"
        "from pathlib import Path\n"
        "from nonsmooth.models import build as bundled\n"
        "def build(mu_d=0.3, mu_s=0.4):\n"
        "    with open(Path(__file__).with_suffix('.calls'), 'a+') as fh:\n"
        "        fh.write('.')\n"
        "        fh.seek(0)\n"
        "        calls = len(fh.read())\n"
        "    if calls == 12:\n"
        f"        os.kill(os.getpid(), signal.{signal_name})\n"
        "    return bundled('stick_slip_oscillator', mu_d=mu_d, mu_s=mu_s)\n")
    return tmp_path / "belt_model.py"


@pytest.mark.parametrize("signal_name, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_during_a_fit_prints_the_best_point_so_far(belt, tmp_path, signal_name, code):
    import subprocess
    import sys

    model = _fit_script(tmp_path, belt, signal_name)
    proc = subprocess.run([sys.executable, "-m", "nonsmooth", "fit", str(model), "belt.csv",
                           "--param", "mu_d=0.33", "--plot", "fit.png"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.startswith("stopped fit of belt_model"), proc.stdout
    assert f"interrupted ({signal_name}): the estimates are the best point" in proc.stdout
    assert proc.stderr.startswith(f"nonsmooth: interrupted ({signal_name}); the best point so "
                                  "far is printed above and plotted to fit.png")
    assert proc.stderr.count("\n") == 1 and (tmp_path / "fit.png").is_file()


# ============================================================================ lack of fit
def test_a_residual_far_above_the_noise_of_the_weights_warns(belt):
    """mu_s held at 0.5 (the data's is 0.4): the optimum in mu_d leaves a residual many times
    the noise (3e-4 m) the weights say; the same fit with the true mu_s does not warn."""
    with pytest.warns(ns.LackOfFitWarning, match=r"the weighted residual is \d+(\.\d+)? times "
                                                 "the noise the weights imply") as rec:
        f = ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], weights=1 / 3e-4,
                   fixed={"mu_s": 0.5}, x0=[0.33])
    from nonsmooth.fit import NOISE_RATIO

    assert f.s > NOISE_RATIO and rec[0].message.parameters == ()
    assert any("the weighted residual is" in w for w in f.warnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ns.LackOfFitWarning)
        good = ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"], weights=1 / 3e-4,
                      fixed={"mu_s": 0.4}, x0=[0.33])
    assert good.s < 1.5 and not good.at_bound.any()


def test_an_estimate_at_its_bound_is_reported_as_such(belt):
    with pytest.warns(ns.LackOfFitWarning, match=r"mu_d = 0\.31 ended at its lower bound "
                                                 r"0\.31: the data pull it outside") as rec:
        f = ns.fit("stick_slip_oscillator", belt, ["mu_d"], outputs=["x"],
                   fixed={"mu_s": 0.4}, bounds={"mu_d": (0.31, 0.35)}, x0=[0.33])
    assert rec[0].message.parameters == ("mu_d",)
    assert f.at_bound.tolist() == [-1]
    assert "(at its lower bound)" in f.summary()
