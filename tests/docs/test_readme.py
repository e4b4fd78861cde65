"""The README and the user guide (``docs/guide.md``) tell the truth: every example output and
figure they quote is produced here and compared (numbers to the precision they print them).

The marked blocks (``<!-- name -->`` ... ``<!-- /name -->``, read by ``readme_blocks``): the
failure example's message, the sweep's summary, the crank-rocker reproduction's summary table,
the ``solve_lcp`` example; and the figures in the prose: the Baumgarte drifts, the Newton-Euler
agreement and the event times of the crank-rocker, the default tolerances, budgets and LuGre
parameters. Timing figures are not checked here (the benchmarks measure them).
"""

from __future__ import annotations

import math
import re
import shlex
import subprocess
import sys

import numpy as np
import pytest
from newton_euler import newton_euler_forces
from readme_blocks import (
    GUIDE,
    README,
    at_precision,
    readme_block,
    readme_prose,
    readme_text_block,
    same_output,
)

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.models import crank_rocker
from nonsmooth.reproduce import reproduce_crank_rocker


def _command(quoted: str) -> tuple[list[str], str]:
    """The ``$ nonsmooth ...`` command of a quoted block (continued lines joined) as argv, and
    the output lines after it."""
    lines = quoted.splitlines()
    command, rest = lines[0], lines[1:]
    while command.endswith("\\"):
        command = command[:-1] + rest.pop(0)
    argv = shlex.split(command.removeprefix("$ "))
    assert argv[0] == "nonsmooth", command
    return argv[1:], "\n".join(rest)


def _claim(pattern: str) -> re.Match:
    """The README's prose matched by ``pattern`` (whitespace collapsed); the test fails when the
    sentence is gone or reworded."""
    found = re.search(pattern, readme_prose())
    assert found, f"README: no sentence matching {pattern!r}"
    return found


def test_failure_example_prints_what_the_readme_quotes(tmp_path):
    """The failing run's one-line error (19.95 s, 666 rows) and its exit code 1, as a process."""
    argv, quoted = _command(readme_text_block("failure-example"))
    # (the timeout guards a hang only: with an empty cache the run compiles for minutes)
    proc = subprocess.run([sys.executable, "-m", "nonsmooth", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=3000)
    assert proc.returncode == 1, proc.stderr
    error = [line for line in proc.stderr.splitlines() if line.startswith("nonsmooth: error:")]
    assert len(error) == 1, proc.stderr
    assert same_output(quoted, error[0]) is None, same_output(quoted, error[0])
    rows = int(re.search(r"\((\d+) rows", error[0]).group(1))
    assert len((tmp_path / "late.csv").read_text().splitlines()) == rows + 1  # and a header


def test_sweep_summary_is_what_the_readme_quotes(tmp_path, monkeypatch, capsys):
    """The README's sweep command prints the quoted summary (run here on one process: the wall
    time, scheduler and worker count in the first line's parentheses are not compared)."""
    blocks = re.findall(r"```bash\n(nonsmooth sweep .*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 1
    argv, _ = _command("$ " + blocks[0].strip())
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--scheduler", "serial"]) == 0
    produced = capsys.readouterr().out
    quoted = readme_text_block("sweep-output")
    mask = re.compile(r"\(\d+ run now in .*?\)")
    assert mask.search(quoted) and mask.search(produced)
    diff = same_output(mask.sub("(...)", quoted), mask.sub("(...)", produced))
    assert diff is None, diff


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory) -> dict:
    """``nonsmooth reproduce crank-rocker``'s runs and files (into a temporary folder)."""
    out = tmp_path_factory.mktemp("reproduction")
    return {**reproduce_crank_rocker(out, echo=lambda line: None), "folder": out}


def test_reproduction_summary_is_what_the_readme_quotes(reproduction):
    """``summary.txt`` (written by the reproduction) is the README's table; drifts below 1e-9 m
    are roundoff and compared to their order of magnitude."""
    written = (reproduction["folder"] / "summary.txt").read_text()
    diff = same_output(readme_text_block("reproduction-summary"), written, roundoff=1e-9)
    assert diff is None, diff


def test_baumgarte_figures_in_the_prose(reproduction):
    """The Baumgarte bullet's drifts (RK4 below 1e-9 m, ~1e-11 m at alpha = beta = 0 and 10,
    8.4e-10 m at 100; Euler ~3e-3, ~6e-4, ~7e-5 m, velocity drift ~4e-3 m/s)."""
    study = reproduction["study"]

    def drift(method, ab):
        return float(np.max(np.abs(study[method, ab]["phi"])))

    m = _claim(r"with RK4 the drift stays below (\S+) m \*\*with and without\*\* stabilization "
               r"\((~\S+) m for alpha = beta = 0 and 10 s\^-1, (\S+) m for 100 s\^-1\)")
    below, small, large = m.groups()
    assert all(drift("RK4", ab) < float(below) for ab in (0.0, 10.0, 100.0))
    for ab in (0.0, 10.0):  # roundoff: its order of magnitude
        assert abs(math.log10(drift("RK4", ab) / float(small[1:]))) < 1, drift("RK4", ab)
    assert at_precision(large, drift("RK4", 100.0))
    m = _claim(r"explicit Euler the unstabilized drift reaches (~\S+) m .*? alpha = beta = 10 and "
               r"100 s\^-1 lower it to (~\S+) and (~\S+) m \(the velocity-level drift, Euler's "
               r"own truncation error, stays (~\S+) m/s\)")
    for quoted, ab in zip(m.groups()[:3], (0.0, 10.0, 100.0), strict=True):
        assert at_precision(quoted, drift("Euler", ab)), (quoted, drift("Euler", ab))
    for ab in (0.0, 10.0, 100.0):
        velocity = study["Euler", ab].diagnostics["max_drift_velocity"]
        assert at_precision(m.group(4), velocity), (m.group(4), velocity)


def _bound(stated: str, measured: float) -> bool:
    """A stated bound ("to within 1e-9") holds and is not loose by more than a factor 10."""
    return measured <= float(stated) < 10 * measured


def test_crank_rocker_agreement_in_the_prose():
    """Newton-Euler agreement (both forms, c = 0 and 8) and the events at theta2 = k pi as the
    README states them."""
    forces = _claim(r"Newton-Euler computation \(`tests/(?:oracles/)?newton_euler.py`\) to within "
                    r"(\S+) relative, for c = 0 and c = 8, in both")
    events = _claim(r"\(events located to within (\S+) s\)")
    force_err, event_err = 0.0, 0.0
    for form in ("lagrange", "planar"):
        for c in (0.0, 8.0):
            r = nonsmooth.simulate(crank_rocker.build(c=c, form=form), 5.0, method="RK4",
                                   dt=1e-3)
            ref = newton_euler_forces(r.t, c=c)
            ok = np.abs(np.sin(r["theta2"])) > 1e-6  # F_f jumps where v_r = 0
            for name in ("lambda_N", "F_f", "tau"):
                err = np.max(np.abs(r[name][ok] - ref[name][ok])) / np.max(np.abs(ref[name]))
                force_err = max(force_err, err)
            # v_r = 0 where theta2 = k pi: the crank turns at 3 rad/s from 0 (t = k pi / 3)
            times = np.array([e.t for e in r.events if e.kind == "velocity_zero"])
            assert len(times) == 4
            event_err = max(event_err, np.max(np.abs(times - np.round(times / (math.pi / 3))
                                                     * math.pi / 3)))
    assert _bound(forces.group(1), force_err), force_err
    assert _bound(events.group(1), event_err), event_err


def test_solve_lcp_example_runs():
    """The README's ``solve_lcp`` block: a result object with the attributes it names, the
    solution its comment states."""
    namespace: dict = {}
    exec(compile(readme_block("solve-lcp"), "README.md", "exec"), namespace)
    result = namespace["result"]
    assert result.success and result.method == "lemke"
    np.testing.assert_allclose(result.z, [4 / 3, 7 / 3], rtol=1e-12)
    np.testing.assert_allclose(result.w, 0.0, atol=1e-12)
    with pytest.raises(TypeError):
        z, w, success, *_ = result  # not a tuple (the README once said it was)


def test_default_settings_in_the_prose():
    """Tolerances, budgets and LuGre defaults the README states are the code's."""
    from nonsmooth.friction.schema import LUGRE_SCHEMA
    from nonsmooth.limits import MAX_EVALUATIONS, MAX_OUTPUTS
    from nonsmooth.simulate import DEFAULT_TOLERANCES

    m = _claim(r"the adaptive event-driven `DOP853` \(rtol (\S+), atol (\S+)\) with Coulomb "
               r"friction and `Radau` \(rtol (\S+), atol (\S+)\) with the smooth laws")
    assert tuple(map(float, m.groups())) == (*DEFAULT_TOLERANCES["explicit"],
                                              *DEFAULT_TOLERANCES["implicit"])
    m = _claim(r"runs with them use scipy's `Radau` \(rtol (\S+), atol ([^)\s]+)\)")
    assert tuple(map(float, m.groups())) == DEFAULT_TOLERANCES["implicit"]
    m = _claim(r"Coulomb runs use DOP853 \(rtol ([^)\s]+)\)")
    assert float(m.group(1)) == DEFAULT_TOLERANCES["explicit"][0]
    m = _claim(r"`--max-evaluations`, default ([\d,]+)\)")
    assert int(m.group(1).replace(",", "")) == MAX_EVALUATIONS
    m = _claim(r"`\(t_end - t0\) / dt \+ 1`, default ([\d,]+)\)")
    assert int(m.group(1).replace(",", "")) == MAX_OUTPUTS
    m = _claim(r"\(sigma0 = (\S+) /m, sigma1 = (\S+) s/m, sigma2 = (\S+) N s/m, v_s = (\S+) m/s\)")
    defaults = {p.name: p.default for p in LUGRE_SCHEMA}
    stated = dict(zip(("sigma0", "sigma1", "sigma2", "v_s"), map(float, m.groups()), strict=True))
    assert stated == {k: defaults[k] for k in stated}


def test_the_spatial_example_is_the_damped_torsion_pendulum(capsys):
    """The README's spatial example runs and its disc follows the damped oscillator's closed
    form (``J theta'' + c theta' + k (theta - angle0) = 0``, ``J = 0.5``, ``k = 8``, ``c =
    0.4``, released at rest ``angle0 = 0.3`` rad from the spring's free angle)."""
    namespace = {}
    exec(readme_block("spatial-example"), namespace)
    r = namespace["r"]
    J, k, c, a0 = 0.5, 8.0, 0.4, 0.3
    wn, zeta = math.sqrt(k / J), c / (2.0 * math.sqrt(k * J))
    wd = wn * math.sqrt(1.0 - zeta ** 2)
    theta = a0 - a0 * np.exp(-zeta * wn * r.t) * (np.cos(wd * r.t) + zeta / math.sqrt(
        1.0 - zeta ** 2) * np.sin(wd * r.t))
    assert np.max(np.abs(r["pin.angle"] - theta)) < 1e-9
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) == pytest.approx(theta[-1], abs=1e-9)


def test_spatial_friction_example(capsys):
    """The README's ball-joint spin-down against its closed form: ``w = w0 - mu_d r_ball m g t
    / I_z`` until the stop at ``w0 I_z / (mu_d r_ball m g)``, the load ``m g``."""
    namespace = {}
    exec(readme_block("spatial-friction-example"), namespace)
    r = namespace["r"]
    m, Iz, rb, mu, w0, g = 2.0, 0.05, 0.02, 0.3, 10.0, 9.81
    t_stop = w0 * Iz / (mu * rb * m * g)
    before = r.t < t_stop
    assert np.max(np.abs(r["top.wz"][before] - (w0 - mu * rb * m * g * r.t[before] / Iz))) \
        < 1e-8
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) == pytest.approx(t_stop, abs=1e-8)
    assert float(printed[1]) == pytest.approx(m * g, rel=1e-12)


def test_contact_example_rebounds_at_the_restitution_asked(capsys):
    """The guide's steel ball: one impact without gravity, its rebound exactly ``e = 0.8`` (the
    exact damping), its peak force below the undamped Hertz peak ``K d_max^1.5`` (Johnson)."""
    namespace = {}
    exec(readme_block("contact-example"), namespace)
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) == pytest.approx(0.8, rel=1e-9)
    m, v, K = 0.032882, 1.0, 4.0 / 3.0 * 210e9 / (2.0 * (1.0 - 0.3 ** 2)) * math.sqrt(0.01)
    d_max = (5.0 * m * v * v / (4.0 * K)) ** 0.4
    assert 0.5 * K * d_max ** 1.5 < float(printed[1]) < K * d_max ** 1.5


def test_volumetric_example_rests_where_the_foundation_carries_the_weight(capsys):
    """The guide's box on a rubber mat: at rest ``k_v V = N = m g`` (the volumetric law's
    force is the foundation's stiffness times the volume of interference)."""
    namespace = {}
    exec(readme_block("volumetric-example"), namespace)
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) == pytest.approx(2.0 * 9.81, rel=1e-6)
    assert float(printed[1]) == pytest.approx(2.0 * 9.81, rel=1e-6)


# ============================================================================ the README's examples
def test_the_readme_planar_example_reaches_the_belts_closed_form_limit_cycle(tmp_path,
                                                                             monkeypatch):
    """The block on the belt: after its first stick, every stick lasts ``2 (F_s - F_d) / (k v)``
    and every slip the closed form's (``stick_slip_closed_form.belt_cycle``), to 1e-8 s; the
    plot is written."""
    from stick_slip_closed_form import belt_cycle

    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(readme_block("readme-planar"), "README.md", "exec"), namespace)
    r = namespace["r"]
    assert r.status == 0 and (tmp_path / "belt.png").is_file()
    events = [(e.t, e.kind) for e in r.events if e.kind in ("velocity_zero", "reserve_zero")]
    sticks = [t for t, kind in events if kind == "velocity_zero"]
    slips = [t for t, kind in events if kind == "reserve_zero"]
    assert len(sticks) >= 4 and len(slips) >= 4, events
    t_stick, t_slip = belt_cycle(1.0, 100.0, 0.4, 0.3, 9.81, 0.2)
    for k in range(1, min(len(sticks), len(slips)) - 1):
        assert abs((slips[k] - sticks[k]) - t_stick) < 1e-8, (k, events)
        assert abs((sticks[k + 1] - slips[k]) - t_slip) < 1e-8, (k, events)


def test_the_readme_spatial_example_stops_at_the_closed_form_time(tmp_path, monkeypatch):
    """The ball joint's spin-down stops at ``w0 I_z / (mu_d r_ball m g)``, its load is ``m g``
    and the animation is written."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(readme_block("readme-spatial"), "README.md", "exec"), namespace)
    r = namespace["r"]
    m, g, i_z, r_ball, mu_d, w0 = 2.0, 9.81, 0.05, 0.02, 0.3, 10.0
    assert abs(r.events[-1].t - w0 * i_z / (mu_d * r_ball * m * g)) < 1e-6
    assert abs(r["ball.N"][0] - m * g) < 1e-9
    assert (tmp_path / "spin_down.gif").read_bytes()[:6] == b"GIF89a"


def test_the_readme_speaks_to_users():
    """No development log in what a new user reads first: no issue or session numbers."""
    text = README.read_text()
    assert not re.findall(r"\bissues?\s*#?\d+|\bsessions?\b", text, re.I)
    assert len(text) < 12_000  # a front page: the rest is in the user guide
