"""The integrators as objects (``nonsmooth/run/methods.py``): the registry and its look-up, a
``Method`` passed to ``simulate`` in place of its name, an integrator added as one object, and
no test of a method's name anywhere else in the package (checked on the source's AST)."""

from __future__ import annotations

import ast
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.errors import NonsmoothError, UnknownMethodError
from nonsmooth.models import stick_slip_oscillator
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Revolute
from nonsmooth.run import methods
from nonsmooth.run.methods import METHODS, FixedStepMethod, Method, method_for

PACKAGE = Path(__file__).resolve().parents[2] / "nonsmooth"
#: The one module that may name the methods in a test.
OWNER = PACKAGE / "run" / "methods.py"
#: The groups of names a membership test could use in place of a method's attributes.
NAME_GROUPS = ("METHODS", "FIXED_STEP_METHODS", "ADAPTIVE_METHODS", "IMPLICIT_METHODS",
               "_PROJECTABLE")


def _is_name(node, names) -> bool:
    """A string constant naming a method, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in names
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_name(e, names) for e in node.elts)
    return False


def _is_group(node) -> bool:
    name = (node.id if isinstance(node, ast.Name)
            else node.attr if isinstance(node, ast.Attribute) else None)
    return name in NAME_GROUPS


def method_name_tests(path: Path, names=tuple(METHODS)) -> list[str]:
    """The tests of a method's name in the file, as ``file:line: source``: a comparison with a
    method's name (``method == "RK4"``, ``m in ("RK23", "RK45")``), a membership test in a
    group of names (``method in FIXED_STEP_METHODS``), a ``case "RK4":`` pattern."""
    text = path.read_text()
    tree = ast.parse(text, filename=str(path))
    found = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            hit = (any(_is_name(x, names) for x in operands)
                   or any(isinstance(op, (ast.In, ast.NotIn)) and _is_group(right)
                          for op, right in zip(node.ops, node.comparators, strict=True)))
        elif isinstance(node, ast.MatchValue):
            hit = _is_name(node.value, names)
        if hit:
            found.append(f"{path.name}:{node.lineno}: {ast.get_source_segment(text, node)}")
    return found


def test_no_method_name_is_tested_outside_the_methods_module():
    """What a method decides is an attribute of its ``Method``: the run, the checks, the
    command line and the families read it, never compare the name."""
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path != OWNER
             for hit in method_name_tests(path)]
    assert found == []


def test_the_name_check_finds_every_kind_of_name_test(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('def f(method, m):\n'
                   '    a = method == "RK4"\n'
                   '    b = m not in ("RK23", "RK45")\n'
                   '    c = method in FIXED_STEP_METHODS or method in schedule.METHODS\n'
                   '    match method:\n'
                   '        case "Euler":\n'
                   '            return a\n'
                   '    return "DOP853" != m, method == "enumerate", {"RK4": 1}["RK4"]\n')
    lines = sorted(int(hit.split(":")[1]) for hit in method_name_tests(bad))
    assert lines == [2, 3, 4, 4, 6, 8]


# ------------------------------------------------------------------------------- the registry
def test_method_for_gives_the_registered_method_or_the_object_itself():
    assert all(method_for(name) is m and m.name == name == str(m)
               for name, m in METHODS.items())
    assert nonsmooth.METHODS is METHODS
    heun = FixedStepMethod(name="Heun", rule=lambda rhs, t, y, f, h: y, stages=2)
    assert method_for(heun) is heun


@pytest.mark.parametrize("bad", ["rk4", "RK5", "", 3, None])
def test_an_unknown_method_is_named_with_the_valid_names(bad):
    with pytest.raises(UnknownMethodError, match=rf"unknown method {re_repr(bad)}; choose one "
                                                 r"of RK4, Euler, RK45, DOP853, RK23, Radau, "
                                                 r"BDF, LSODA, MoreauJean$") as info:
        method_for(bad)
    assert isinstance(info.value, ValueError) and isinstance(info.value, NonsmoothError)


def re_repr(value) -> str:
    import re

    return re.escape(repr(value))


def test_the_name_groups_follow_the_methods_attributes():
    """The public name tuples are the registry's methods by their attributes; a scipy
    method's solver is scipy's class, its tolerances the engine's explicit or implicit pair
    and only the explicit ones project after each step."""
    import scipy.integrate

    assert methods.FIXED_STEP_METHODS == ("RK4", "Euler")
    assert methods.ADAPTIVE_METHODS == ("RK45", "DOP853", "RK23", "Radau", "BDF", "LSODA")
    assert methods.IMPLICIT_METHODS == ("Radau", "BDF", "LSODA")
    assert methods.TIME_STEPPING_METHODS == ("MoreauJean",)
    assert [n for n, m in METHODS.items() if m.time_stepping] == ["MoreauJean"]
    for name in methods.ADAPTIVE_METHODS:
        m = METHODS[name]
        assert m.solver_class() is getattr(scipy.integrate, name)
        kind = "implicit" if name in methods.IMPLICIT_METHODS else "explicit"
        assert m.tolerances == methods.DEFAULT_TOLERANCES[kind]
        assert m.projects_steps == (kind == "explicit") and m.adaptive
    assert [n for n, m in METHODS.items() if m.compiled_phase] == ["RK4", "Euler", "DOP853"]
    assert methods.RK4.stages == 4 and methods.EULER.stages == 1
    assert methods.default_method(True) is methods.RADAU
    assert methods.default_method(False) is methods.DOP853


# ------------------------------------------------------------------------------ simulate
@pytest.mark.parametrize("name", ["RK4", "DOP853", "Radau"])
def test_a_method_object_runs_as_its_name(name):
    """``simulate(method=Method)`` is the run of its name, to the bit; the result names it."""
    model = stick_slip_oscillator.build(t_end=0.5)
    a = nonsmooth.simulate(model, method=name, dt=1e-3)
    b = nonsmooth.simulate(model, method=METHODS[name], dt=1e-3)
    assert b.method == a.method == name
    np.testing.assert_array_equal(a.t, b.t)
    np.testing.assert_array_equal(a.y, b.y)
    assert [e.t for e in a.events] == [e.t for e in b.events]
    assert a.diagnostics["n_evaluations"] == b.diagnostics["n_evaluations"]


def _heun_step(rhs, t, y, f0, h):
    """Heun's method (explicit trapezoidal rule, 2nd order)."""
    return y + 0.5 * h * (f0 + rhs(t + h, y + h * f0))


#: An integrator the package does not have, added as one object (no compiled phase: its
#: Python rule takes every step).
HEUN = FixedStepMethod(name="Heun", rule=_heun_step, stages=2,
                       description="Heun's method, 2nd order, fixed step dt")


def _pendulum(theta0=0.5):
    """A uniform bar pinned at one end (no friction)."""
    mdl = PlanarModel("pendulum")
    c, s = math.cos(theta0 - math.pi / 2), math.sin(theta0 - math.pi / 2)
    bar = mdl.add(Body("bar", 1.0, 1.0 / 12, position=(0.5 * c, 0.5 * s),
                       angle=theta0 - math.pi / 2))
    mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    mdl.add(Gravity(g=9.81))
    return mdl


def test_an_integrator_added_as_one_object_runs_at_its_order(monkeypatch):
    """Heun's method, a ``FixedStepMethod`` with its rule and no compiled phase: the run takes
    its steps by the rule (the compiled fixed-step phase is never entered) and converges at
    second order; registered in ``METHODS``, its name works as the bundled ones'."""
    import nonsmooth.run.phase as phase

    compiled = phase._compiled_fixed_phase

    def checked(run, method, *args, **kwargs):
        assert method is not HEUN, "the compiled fixed-step phase ran a rule it does not have"
        return compiled(run, method, *args, **kwargs)

    monkeypatch.setattr(phase, "_compiled_fixed_phase", checked)
    t_end = 1.0
    exact = nonsmooth.simulate(_pendulum(), t_end, method="DOP853", rtol=1e-13, atol=1e-15)
    errors = []
    for dt in (0.02, 0.01):
        r = nonsmooth.simulate(_pendulum(), t_end, method=HEUN, dt=dt)
        assert r.success and r.method == "Heun" and math.isnan(r.diagnostics["rtol"])
        assert r.diagnostics["n_evaluations"] >= 2 * t_end / dt
        errors.append(float(np.max(np.abs(r.q[-1] - exact.q[-1]))))
    assert 3.0 < errors[0] / errors[1] < 5.0, errors  # 2nd order: a quarter of the error
    with pytest.warns(RuntimeWarning, match="energy balance error"):  # Euler's, at 1st order
        euler = nonsmooth.simulate(_pendulum(), t_end, method="Euler", dt=0.01)
    assert errors[1] < 0.1 * float(np.max(np.abs(euler.q[-1] - exact.q[-1])))
    monkeypatch.setitem(METHODS, "Heun", HEUN)
    r = nonsmooth.simulate(_pendulum(), t_end, method="Heun", dt=0.01)
    np.testing.assert_allclose(r.q[-1], exact.q[-1], atol=2 * errors[1])


def test_an_unknown_method_is_refused_by_simulate_and_the_command_line(capsys):
    with pytest.raises(UnknownMethodError, match=r"unknown method 'Heun'; choose one of RK4"):
        nonsmooth.simulate(_pendulum(), 0.1, method="Heun")
    assert main(["run", "crank_rocker", "--method", "Heun"]) == 2
    assert "unknown method 'Heun'; choose one of RK4, Euler" in capsys.readouterr().err


def test_a_method_is_frozen_and_its_variants_are_new_objects():
    with pytest.raises(AttributeError):
        methods.RK4.stages = 1  # type: ignore[misc]
    loose = replace(methods.DOP853, name="DOP853-loose", tolerances=(1e-6, 1e-9))
    assert isinstance(loose, Method) and methods.DOP853.tolerances == (1e-11, 1e-13)
    r = nonsmooth.simulate(stick_slip_oscillator.build(t_end=0.5), method=loose)
    assert r.method == "DOP853-loose" and r.diagnostics["rtol"] == 1e-6
    # a fit's finite-difference step follows the runs' tolerance: the object's, unregistered
    from nonsmooth.fit import _default_rtol

    assert _default_rtol({"method": loose}, r.system, r.method) == 1e-6


def test_a_sweep_stores_its_method_by_name(tmp_path):
    """A sweep's method goes to its store and its workers by name: a registered ``Method``
    is stored as its name; one that is not registered is refused before anything runs."""
    from nonsmooth.errors import SweepError

    kw = {"grid": {"v_belt": [0.1]}, "metrics": ["max:x"], "t_end": 0.2, "progress": False,
          "scheduler": "serial"}
    with pytest.raises(SweepError, match=r"method 'Heun' is not one of nonsmooth.METHODS: a "
                                         r"sweep stores its method by name"):
        nonsmooth.sweep("stick_slip_oscillator", store=tmp_path / "heun", method=HEUN, **kw)
    assert not (tmp_path / "heun" / "sweep.json").exists()
    study = nonsmooth.sweep("stick_slip_oscillator", store=tmp_path / "rk4",
                            method=methods.RK4, dt=1e-3, **kw)
    assert study.n_ok == 1, study.run
    assert '"method": "RK4"' in (tmp_path / "rk4" / "sweep.json").read_text()
