"""Poincare sections (``nonsmooth.sections``), the ``poincare:`` sweep metric and its
bifurcation diagram, and the named event log (``result.events.filter``).

Closed forms first: a linear damped oscillator forced by ``F0 cos(omega t)`` (no friction) has
the solution ``x(t) = x_p(t) + exp(-sigma t) (C1 cos(omega_d t) + C2 sin(omega_d t))`` with the
steady state ``x_p = A cos(omega t) + B sin(omega t)``; its stroboscopic map (period
``2 pi / omega``) has the fixed point ``(A, B omega)``; its crossings of ``x = 0`` on the steady
state are at ``omega t - phi = -+ pi / 2 (mod 2 pi)`` with speed ``+- R omega``. The belt
oscillator's stick phases last ``2 (F_s - F_d) / (k v_belt)`` (``models/stick_slip_oscillator``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth as ns
from nonsmooth import Section
from nonsmooth.models import build as build_model
from nonsmooth.sections import SectionError, parse_section_spec, section_times

M, K, C, F0, OMEGA = 1.0, 25.0, 0.6, 2.0, 3.0
L = 5.0  # m: the spring's anchor behind the mass


def steady_state():
    """``(A, B)`` of ``x_p = A cos(omega t) + B sin(omega t)``."""
    D = (K - M * OMEGA ** 2) ** 2 + (C * OMEGA) ** 2
    return F0 * (K - M * OMEGA ** 2) / D, F0 * C * OMEGA / D


def exact(t, x0, v0):
    """``(x(t), v(t))`` of the forced damped oscillator from ``(x0, v0)`` at t = 0."""
    A, B = steady_state()
    sigma = C / (2 * M)
    wd = math.sqrt(K / M - sigma ** 2)
    c1 = x0 - A
    c2 = (v0 - B * OMEGA + sigma * c1) / wd
    e = np.exp(-sigma * t)
    x = A * np.cos(OMEGA * t) + B * np.sin(OMEGA * t) + e * (c1 * np.cos(wd * t)
                                                             + c2 * np.sin(wd * t))
    v = (-A * OMEGA * np.sin(OMEGA * t) + B * OMEGA * np.cos(OMEGA * t)
         + e * ((-sigma * c1 + wd * c2) * np.cos(wd * t) + (-sigma * c2 - wd * c1)
                * np.sin(wd * t)))
    return x, v


def forced_oscillator(x0: float, v0: float) -> ns.Model:
    """A point mass on a spring and damper (along x, no friction, no gravity) forced by
    ``F0 cos(omega t)``: ``m x'' + c x' + k x = F0 cos(omega t)`` exactly."""
    mdl = ns.PlanarModel("forced linear oscillator")
    mass = mdl.add(ns.PointMass("mass", M, position=(x0, 0.0), velocity=(v0, 0.0)))
    mdl.add(ns.Spring("spring", ns.ground, (-L, 0.0), mass, (0.0, 0.0), K, L))
    mdl.add(ns.Damper("damper", ns.ground, (-L, 0.0), mass, (0.0, 0.0), C))
    mdl.add(ns.Force("drive", mass, lambda t, q, v: (F0 * math.cos(OMEGA * t), 0.0)))
    outputs = {"spring_force": ns.Output(lambda r: -K * r.q[:, 0], "N", "the spring on the mass"),
               "x_squared": ns.Output(lambda r: r.q[:, 0] ** 2, "m^2", "not linear in q")}
    return ns.Model(mdl.compile(), *mdl.initial_state(), name="forced linear oscillator",
                    t_end=20.0, dt=1e-3, period=2 * math.pi / OMEGA, outputs=outputs)


# ------------------------------------------------------------------------- sections
def test_stroboscopic_points_match_the_closed_form_at_exact_times():
    x0, v0 = 0.3, -0.5
    T = 2 * math.pi / OMEGA
    pts = ns.poincare(forced_oscillator(x0, v0), Section.stroboscopic(), t_span=12 * T,
                      dt=0.01)
    j = np.arange(13)
    assert np.array_equal(pts.t, j * T)  # the times phase + j T, each one product
    assert np.all(np.isin(pts.t, pts.result.t))  # each an output row: the integrator's state
    x, v = exact(pts.t, x0, v0)
    assert np.max(np.abs(pts["mass.x"] - x)) < 1e-8
    assert np.max(np.abs(pts.y[:, pts.result.velocity_names.index("mass.x") + 2] - v)) < 1e-8
    A, B = steady_state()  # the map converges to its fixed point (A, B omega)
    assert abs(pts["mass.x"][-1] - A) < 5e-3 < abs(pts["mass.x"][0] - A)


def test_stroboscopic_fixed_point_with_a_phase():
    A, B = steady_state()
    T = 2 * math.pi / OMEGA
    phase = 0.25 * T  # omega t = pi / 2 there: x_p = B, v_p = -A omega
    pts = ns.poincare(forced_oscillator(A, B * OMEGA), Section.stroboscopic(T, phase),
                      t_span=6 * T, dt=0.01)
    assert np.allclose(pts.t, phase + T * np.arange(6), rtol=0, atol=1e-15)
    assert np.max(np.abs(pts["mass.x"] - B)) < 1e-8
    assert np.max(np.abs(pts.y[:, 2] + A * OMEGA)) < 1e-8


def test_hyperplane_crossings_respect_the_direction():
    A, B = steady_state()
    R, phi = math.hypot(A, B), math.atan2(B, A)
    T = 2 * math.pi / OMEGA
    result = ns.simulate(forced_oscillator(A, B * OMEGA), 4 * T, dt=1e-3)
    up = ns.poincare(result, Section.hyperplane({"mass.x": 1.0}, 0.0, direction=+1))
    down = ns.poincare(result, Section.hyperplane({"mass.x": 1.0}, 0.0, direction=-1))
    both = ns.poincare(result, Section.hyperplane(np.array([1.0, 0, 0, 0]), 0.0, direction=0))
    t_up = ((phi - math.pi / 2) / OMEGA) % T + T * np.arange(4)
    t_down = ((phi + math.pi / 2) / OMEGA) % T + T * np.arange(4)
    assert np.max(np.abs(up.t - t_up[t_up <= 4 * T])) < 1e-8
    assert np.max(np.abs(down.t - t_down[t_down <= 4 * T])) < 1e-8
    assert np.allclose(up.y[:, 2], R * OMEGA, atol=1e-8)  # moving up through x = 0
    assert np.allclose(down.y[:, 2], -R * OMEGA, atol=1e-8)
    assert np.array_equal(both.t, np.sort(np.concatenate([up.t, down.t])))
    assert np.max(np.abs(up["mass.x"])) < 1e-10  # on the section


def test_crossing_of_an_output_and_the_section_spec():
    A, B = steady_state()
    result = ns.simulate(forced_oscillator(A, B * OMEGA), 5.0, dt=1e-3)
    # the spring's force is -k x: an output linear in the state, located on the dense output
    pts = ns.poincare(result, Section.crossing("spring_force", 0.0, direction=-1))
    ref = ns.poincare(result, Section.hyperplane({"mass.x": 1.0}, 0.0, direction=+1))
    assert pts.t.size == ref.t.size > 0
    assert np.max(np.abs(pts.t - ref.t)) < 1e-12
    # x^2 is not linear in the state: located on the cubic through its nearest samples
    R = math.hypot(A, B)
    sq = ns.poincare(result, Section.crossing("x_squared", R * R / 4, direction=+1))
    right = ns.poincare(result, Section.hyperplane({"mass.x": 1.0}, R / 2, direction=+1))
    left = ns.poincare(result, Section.hyperplane({"mass.x": 1.0}, -R / 2, direction=-1))
    assert np.max(np.abs(sq.t - np.sort(np.concatenate([right.t, left.t])))) < 1e-9
    assert np.max(np.abs(sq["x_squared"] - R * R / 4)) < 1e-9
    out, section, last = parse_section_spec("x:period=0.5:phase=0.1:last=7")
    assert (out, section.kind, section.period, section.phase, last) == (
        "x", "stroboscopic", 0.5, 0.1, 7)
    out, section, last = parse_section_spec("v:cross=x<0.01")
    assert (section.kind, section.output, section.value, section.direction) == (
        "crossing", "x", 0.01, -1.0)
    assert np.allclose(section_times(0.5, 0.1, 0.0, 1.2), [0.1, 0.6, 1.1])


@pytest.mark.parametrize("make, match", [
    (lambda: Section.stroboscopic(period=-1.0), r"period = -1\.0 is invalid: it must be a "
                                                r"finite number > 0 \(s\)"),
    (lambda: Section.hyperplane({}), r"normal = \{\} has no component"),
    (lambda: Section.crossing(3), r"output = 3 is invalid"),
    (lambda: parse_section_spec("x:cross=x"), r"cross = 'x' is invalid: write cross=NAME>VALUE"),
    (lambda: parse_section_spec("x:speed=2"), r"unknown field 'speed=2'"),
    (lambda: parse_section_spec("x:last=0"), r"last = '0' is invalid"),
])
def test_bad_sections_are_named(make, match):
    with pytest.raises(SectionError, match=match):
        make()


def test_a_section_of_a_model_without_period_or_name():
    result = ns.simulate(build_model("stick_slip_oscillator"), 0.5)
    with pytest.raises(SectionError, match=r"declares no forcing period \(Model.period\); "
                                           r"give one"):
        ns.poincare(result, Section.stroboscopic())
    with pytest.raises(SectionError, match=r"'v_r' is not a state component .* "
                                           r"Section.crossing\('v_r', value\)"):
        ns.poincare(result, Section.hyperplane({"v_r": 1.0}))
    with pytest.raises(SectionError, match="no output 'nope'"):
        ns.poincare(result, Section.crossing("nope"))


# ------------------------------------------------------------------------- the metric
def test_the_poincare_metric_keeps_the_last_k_points():
    from nonsmooth.models import forced_stick_slip
    from nonsmooth.study.metrics import parse_metric

    model = forced_stick_slip.build(omega=2.3, periods=12)
    metric = parse_metric("poincare:x:last=5")
    assert metric.list_valued and metric.last == 5
    times = metric.output_times(model, 0.0, model.t_end)
    assert np.array_equal(times, model.period * np.arange(13))
    result = ns.simulate(model, t_eval=times, rtol=1e-9, atol=1e-11)
    values = metric(result)
    every = ns.poincare(result, Section.stroboscopic())
    assert len(every) == 13 and values == every["x"][-5:].tolist()
    assert np.array_equal(every.last(5).t, model.period * np.arange(8, 13))
    assert parse_metric("poincare:x:last=50")(result) == every["x"].tolist()  # fewer: all
    # period 2 at omega = 2.3 (Model.period's stroboscopic map): two values alternating
    assert abs(values[0] - values[2]) < 1e-3 < 1e-2 < abs(values[0] - values[1])


def test_the_sweep_command_draws_a_bifurcation_diagram(tmp_path, capsys):
    import pyarrow as pa

    from nonsmooth.cli import main
    from nonsmooth.study import open_study

    store, png = tmp_path / "bif", tmp_path / "diagram.png"
    code = main(["sweep", "forced_stick_slip", "--grid", "omega=2.3,2.6", "--set",
                 "periods=8", "--metric", "poincare:x:last=3", "max:x", "--store", str(store),
                 "--scheduler", "serial", "--rtol", "1e-8", "--atol", "1e-10",
                 "--plot", str(png)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"written to {png}" in out
    assert png.read_bytes()[:4] == b"\x89PNG"
    study = open_study(store)
    schema = study.table.schema
    assert pa.types.is_list(schema.field("poincare:x:last=3").type)
    assert schema.field("max:x").type == pa.float64()  # a scalar metric as before
    assert [len(v) for v in study.table.column("poincare:x:last=3").to_pylist()] == [3, 3]
    p, values = study.bifurcation()
    assert p.tolist() == [2.3] * 3 + [2.6] * 3 and values.size == 6
    assert np.all(values <= study["max:x"].max())
    assert "poincare:x:last=3" in study.summary()


def test_bad_poincare_metrics_are_refused_before_running(tmp_path, capsys):
    from nonsmooth.cli import main

    for metric, match in (("poincare:x", "declares no forcing period"),
                          ("poincare:nope", "has no output 'nope'"),
                          ("poincare:x:cross=y", "cross = 'y' is invalid")):
        code = main(["sweep", "stick_slip_oscillator", "--grid", "k=100", "--metric", metric,
                     "--store", str(tmp_path / "s")])
        _, err = capsys.readouterr()
        assert code == 2 and match in err and err.count("\n") == 1, err
    code = main(["sweep", "stick_slip_oscillator", "--grid", "k=100", "--metric", "max:x",
                 "--store", str(tmp_path / "s"), "--plot", str(tmp_path / "d.png")])
    _, err = capsys.readouterr()
    assert code == 2 and "--plot draws a bifurcation diagram" in err


# ------------------------------------------------------------------------- named events
def two_belt_blocks(k_a: float, k_b: float, v_belt: float = 0.1) -> ns.Model:
    """Two blocks on one belt, each on a spring of its own: their stick phases differ."""
    mdl = ns.PlanarModel("two blocks")
    belt = mdl.add(ns.Body("belt", 1.0, 1.0, velocity=(v_belt, 0.0)))
    track = mdl.add(ns.Translational("track", ns.ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(ns.Driver("belt_drive", track, speed=v_belt))
    for name, k, y in (("a", k_a, 0.0), ("b", k_b, 0.0)):
        block = mdl.add(ns.PointMass(f"block_{name}", 1.0, position=(0.0, y),
                                     velocity=(v_belt, 0.0)))
        mdl.add(ns.Translational(f"contact_{name}", belt, block, (0.0, y), (1.0, 0.0),
                                 mu=0.3, mu_s=0.4, normal="left"))
        mdl.add(ns.Spring(f"spring_{name}", ns.ground, (-1.0, y), block, (0.0, 0.0), k, 1.0))
    mdl.add(ns.Gravity(g=9.81, bodies=[b for b in mdl.bodies if b.name.startswith("block")]))
    return ns.Model(mdl.compile(), *mdl.initial_state(), name="two blocks", t_end=3.0)


@pytest.mark.parametrize("method", ["DOP853", "RK45"])  # compiled phases, Python stepper
def test_events_are_named_by_their_pair(method):
    k_a, k_b, v = 100.0, 400.0, 0.1
    result = ns.simulate(two_belt_blocks(k_a, k_b, v), 1.6, method=method)
    events = result.events
    assert isinstance(events, list) and set(events.names) == {"contact_a", "contact_b"}
    for name, k in (("contact_a", k_a), ("contact_b", k_b)):
        sticks = events.filter(name=name, kind="stick")
        assert len(sticks) >= 2 and all(e.pair == e.name == name and e.after == "stick"
                                        and e.element == "pair" for e in sticks)
        spans = events.intervals(name)
        full = spans[(spans[:, 0] > 0) & (spans[:, 1] < result.t[-1])]
        t_stick = 2 * (0.4 - 0.3) * 9.81 / (k * v)  # 2 (F_s - F_d) / (k v_belt)
        assert full.size and np.allclose(full[:, 1] - full[:, 0], t_stick, rtol=1e-6), name
    slips = events.filter("contact_a", "reserve_zero", after="slip-")
    assert len(slips) == len(events.filter("contact_a", "slip-"))
    assert events.filter(kind="velocity_zero", between=(0.0, 0.5)).t.max() <= 0.5
    with pytest.raises(ValueError, match=r"no element or user event named 'belt' in this run; "
                                         r"names: contact_a, contact_b"):
        events.filter(name="belt")
    with pytest.raises(ValueError, match=r"unknown kind 'stuck'; kinds: start"):
        events.filter(kind="stuck")


def test_user_events_are_named_and_filtered():
    def x_zero(t, q, v):
        return q[3]

    result = ns.simulate(build_model("stick_slip_oscillator"), 2.0, method="RK45",
                         events=[x_zero])
    user = result.events.filter(name="x_zero")
    assert len(user) == len(result.t_events["x_zero"]) > 0
    assert all(e.kind == "user" and e.element == "user" for e in user)
    assert result.events.filter(element="user").t.tolist() == user.t.tolist()


def test_the_readme_example_runs():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from readme_blocks import readme_block

    namespace: dict = {}
    exec(compile(readme_block("poincare"), "README.md", "exec"), namespace)
    points, up, events = namespace["points"], namespace["up"], namespace["events"]
    x = points["x"]
    assert len(points) == 6 and abs(x[0] - x[2]) < 1e-3 < 1e-2 < abs(x[0] - x[1])
    assert len(up) > 0 and np.allclose(up["x"], 0.08, atol=1e-9)
    spans = events.intervals("contact", "stick")
    assert spans.shape[1] == 2 and np.all(spans[:, 1] >= spans[:, 0])
    assert len(events.filter(name="contact", kind="stick")) == len(spans)


def test_a_stroboscopic_section_keeps_the_compiled_phases(monkeypatch):
    """The section's times are outputs (no user event function), so every smooth phase of the
    forced belt runs in the compiled DOP853 phase: the Python stepper is never entered."""
    import nonsmooth.run.phase as phase
    from nonsmooth.models import forced_stick_slip

    def python_stepper(*args, **kwargs):
        raise AssertionError("the Python stepper ran a phase")

    monkeypatch.setattr(phase, "_python_phase", python_stepper)
    pts = ns.poincare(forced_stick_slip.build(omega=2.3, periods=6), Section.stroboscopic(),
                      rtol=1e-9, atol=1e-11)
    assert len(pts) == 7 and pts.result.success
    assert len(pts.result.events.filter(name="contact", kind="stick")) >= 6


# ------------------------------------------------------------------------- degenerate sections
def test_too_many_stroboscopic_points_are_counted_and_refused_before_allocating(monkeypatch):
    """A period of 1e-9 s over a 3 s run is 3e9 points (24 GB a column): refused with the
    count before any time is made (np.arange is never called with it)."""
    import nonsmooth.sections as sections

    result = ns.simulate(build_model("stick_slip_oscillator"), 3.0)

    def made(*args):  # what would allocate the 3e9 times: never reached
        raise AssertionError(f"section_times{args} called before the points were counted")

    monkeypatch.setattr(sections, "section_times", made)
    with pytest.raises(SectionError, match=r"period 1e-09 s over 0 \.\. 3 s has 3e\+09 points, "
                                           r"more than max_points = 2,000,000"):
        ns.poincare(result, Section.stroboscopic(period=1e-9))
    with pytest.raises(SectionError, match=r"has 1\.5e\+03 points, more than max_points = 1,000"):
        ns.poincare(result, Section.stroboscopic(period=2e-3), max_points=1000)
    model = build_model("forced_stick_slip")
    with pytest.raises(SectionError, match=r"more than max_outputs = 2,000,000"):
        ns.poincare(model, Section.stroboscopic(period=1e-7), t_span=30.0)
    with pytest.raises(SectionError, match=r"the run would output .* more than max_outputs = "
                                           r"500: give a larger dt"):
        ns.poincare(model, Section.stroboscopic(), t_span=30.0, dt=0.05, max_outputs=500)
    monkeypatch.undo()
    assert len(ns.poincare(result, Section.stroboscopic(period=0.5))) == 7


@pytest.mark.parametrize("output, direction", [("belt.y", 1), ("block.y", 0)])
def test_a_crossing_of_an_output_identically_on_the_section_is_refused(output, direction):
    """The belt's and the block's y are 0 throughout (rounding flips their sign): no
    crossings to report."""
    result = ns.simulate(build_model("stick_slip_oscillator"), 3.0)
    with pytest.raises(SectionError, match=f"section {output} = 0 .*: the run lies on the "
                                           "section throughout"):
        ns.poincare(result, Section.crossing(output, 0.0, direction))
    with pytest.raises(SectionError, match="the run lies on the section throughout"):
        ns.poincare(result, Section.hyperplane({output: 1.0}, 0.0, direction))
    N = float(np.median(result["contact.N"]))  # the constant weight: not linear in the state
    with pytest.raises(SectionError, match="contact.N = 9.81 .*lies on the section"):
        ns.poincare(result, Section.crossing("contact.N", N, 0))
    assert len(ns.poincare(result, Section.crossing("x", 0.02, 0))) > 0  # a real one still is


def test_a_hyperplane_with_a_zero_normal_is_refused():
    with pytest.raises(SectionError, match=r"normal = \{'block.x': 0.0\} is zero"):
        Section.hyperplane({"block.x": 0.0}, 0.1)
    result = ns.simulate(build_model("stick_slip_oscillator"), 0.5)
    with pytest.raises(SectionError, match=r"the normal 1 x \+ -1 block.x is zero in the state "
                                           r"of model stick_slip_oscillator"):
        ns.poincare(result, Section.hyperplane({"x": 1.0, "block.x": -1.0}, 0.1))
