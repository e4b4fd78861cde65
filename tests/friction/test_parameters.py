"""Friction-law parameter schemas and model parameter ranges (nonsmooth.friction.schema).

One table per law is the single source of the laws' defaults and checks, the models' friction
parameters and aliases, ``FrictionPair.make_law`` and the MotionSolve reader's defaults; every
model parameter has a physically meaningful range with an upper bound, and extreme values are
refused at once with a message naming the parameter and its range."""

from __future__ import annotations

import math
import time
import warnings

import pytest

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.errors import ModelError
from nonsmooth.friction import (
    BRISTLE_SCHEMA,
    LAW_SCHEMAS,
    LAWS,
    LUGRE_SCHEMA,
    REGULARIZED_SCHEMA,
    Coulomb,
    LuGre,
    Regularized,
)
from nonsmooth.io.motionsolve import JOINT_FRICTION_DEFAULTS, loads_motionsolve, read_motionsolve
from nonsmooth.model import FRICTION_PARAMETERS, PARAMETER_ALIASES, Parameter, check_parameters
from nonsmooth.models import available, crank_rocker, load, slider_crank
from nonsmooth.models import stick_slip_oscillator as oscillator
from nonsmooth.planar import PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.system import FrictionPair

QUICK = 2.0  # s: a refusal comes before any run, so far within this


def refused_quickly(build, match):
    """``build()`` raises a ModelError matching ``match`` within QUICK seconds."""
    start = time.perf_counter()
    with pytest.raises(ModelError, match=match) as info:
        build()
    assert time.perf_counter() - start < QUICK
    assert "\n" not in str(info.value)  # one line
    return str(info.value)


def slider(law, friction, *, mu=0.3, mu_s=0.4, speed=0.05):
    """A point mass driven along a horizontal frictional slot of the ground (load m g)."""
    mdl = PlanarModel("slider")
    mass = mdl.add(PointMass("mass", 1.0, velocity=(speed, 0.0)))
    slot = mdl.add(Translational("slot", ground, mass, (0.0, 0.0), (1.0, 0.0), mu=mu, mu_s=mu_s,
                                 normal="left", law=law, friction=friction))
    mdl.add(Driver("drive", slot, speed=speed))
    mdl.add(Gravity(g=9.81))
    return mdl


# ============================================================================ extreme values
@pytest.mark.parametrize("build, match", [
    (lambda: oscillator.build(friction="lugre", sigma2="1e308"),
     r"stick_slip_oscillator: parameter sigma2 = '1e308' is out of range; allowed: >= 0 and "
     r"<= 1e\+08 \(N s/m\); "),
    (lambda: oscillator.build(friction="regularized", falloff_vel=1e-300),
     r"parameter falloff_vel = 1e-300 is out of range; allowed: >= 1e-09 and <= 1000 \(m/s\)"),
    (lambda: oscillator.build(friction="regularized", viscous=1e308),
     r"parameter viscous = 1e\+308 is out of range; allowed: >= 0 and <= 1e\+08 \(N s/m\)"),
    (lambda: oscillator.build(m="1e308"),
     r"parameter m = '1e308' is out of range; allowed: > 0 and <= 1e\+09 \(kg\)"),
    (lambda: crank_rocker.build(beta="1e308"),
     r"crank_rocker: parameter beta = '1e308' is out of range; allowed: >= 0 and <= 1e\+06 "
     r"\(1/s\)"),
    (lambda: crank_rocker.build(alpha=1e308),
     r"parameter alpha = 1e\+308 is out of range; allowed: >= 0 and <= 1e\+06 \(1/s\)"),
    (lambda: slider_crank.build(beta=1e308), r"slider_crank: parameter beta = 1e\+308"),
    (lambda: oscillator.build(friction="lugre", sigma0=1e308), r"parameter sigma0 = 1e\+308"),
    (lambda: oscillator.build(friction="lugre", v_s=1e-300), r"parameter v_s = 1e-300"),
    (lambda: oscillator.build(k=1e308), r"parameter k = 1e\+308 .*<= 1e\+10 \(N/m\)"),
    (lambda: oscillator.build(t_end=1e308), r"parameter t_end = 1e\+308 .*<= 1000 \(s\)"),
    (lambda: slider_crank.build(m2=1e308), r"parameter m2 = 1e\+308 .*<= 1e\+09 \(kg\)"),
    (lambda: crank_rocker.build(mu=1e308), r"parameter mu = 1e\+308 .*<= 10 \(-\)"),
])
def test_extreme_model_parameters_are_refused_before_any_run(build, match):
    refused_quickly(build, match)


@pytest.mark.parametrize("argv, name", [
    (["stick_slip_oscillator", "--friction", "lugre", "--set", "sigma2=1e308"], "sigma2"),
    (["stick_slip_oscillator", "--friction", "regularized", "--set", "falloff_vel=1e-300"],
     "falloff_vel"),
    (["stick_slip_oscillator", "--friction", "regularized", "--set", "viscous=1e308"],
     "viscous"),
    (["stick_slip_oscillator", "--set", "m=1e308"], "m"),
    (["crank_rocker", "--set", "beta=1e308"], "beta"),
])
def test_extreme_values_on_the_command_line_are_one_line_errors(capsys, argv, name):
    start = time.perf_counter()
    code = main(["run", *argv])
    assert time.perf_counter() - start < QUICK
    _, err = capsys.readouterr()
    assert code == 2
    assert f"parameter {name} = '{argv[-1].split('=')[1]}' is out of range; allowed: " in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "mu, mu_s" not in err  # not the old misleading message


@pytest.mark.parametrize("make, match", [
    (lambda: LuGre(sigma2=1e308),
     r"lugre friction: sigma2 = 1e\+308 is invalid; it must be a finite number >= 0 within "
     r"\[0, 1e\+08\] N s/m \(viscous coefficient\); "),
    (lambda: Regularized(falloff_vel=1e-300),
     r"regularized friction: falloff_vel = 1e-300 is invalid; it must be a finite number > 0 "
     r"within \[1e-09, 1000\] m/s"),
    (lambda: Regularized(viscous=1e308), r"regularized friction: viscous = 1e\+308 is invalid"),
    (lambda: LuGre(sigma0=1e308), r"sigma0 = 1e\+308 is invalid.*\[1, 1e\+10\] 1/m"),
    (lambda: LuGre(0.0, 0.5), r"lugre friction: mu_d = 0\.0 is invalid; it must be a finite "
                              r"number > 0 within \[0\.0001, 10\]"),
    (lambda: Coulomb(1e308), r"coulomb friction: mu_d = 1e\+308 is invalid.*\[0, 10\]"),
    (lambda: Coulomb(0.3, 0.2), r"coulomb friction: mu_s = 0\.2 must be >= mu_d = 0\.3"),
    (lambda: Regularized(stribeck_vel=1e-300), r"stribeck_vel = 1e-300 is invalid.*0 or "
                                               r"\[1e-09, 1000\] m/s"),
    (lambda: Regularized(coulomb=11.0), r"coulomb = 11\.0 is invalid.*\[0, 10\]"),
    (lambda: Regularized(coulomb=2e9, normal_load=False), r"coulomb = 2000000000\.0 is invalid.*"
                                                          r"\[0, 1e\+09\] N"),
    (lambda: Regularized(normal_load="False"), r"normal_load = 'False'; allowed: True, False"),
    (lambda: FrictionPair("p", "n", 1e308), r"friction pair 'p': mu = 1e\+308 is invalid"),
])
def test_extreme_law_arguments_are_refused(make, match):
    refused_quickly(make, match)


@pytest.mark.parametrize("law, friction, name", [
    ("lugre", {"sigma2": 1e308}, "sigma2"),
    ("regularized", {"falloff_vel": 1e-300}, "falloff_vel"),
    ("regularized", {"viscous": 1e308}, "viscous"),
])
def test_extreme_pair_descriptions_are_refused_when_the_run_starts(law, friction, name):
    mdl = slider(law, friction)
    refused_quickly(lambda: nonsmooth.simulate(mdl, 1.0),
                    rf"{law} friction: {name} = 1e[-+]?\d+ is invalid")


def test_values_at_the_bounds_are_accepted_just_beyond_refused():
    for p in (*LUGRE_SCHEMA, *REGULARIZED_SCHEMA):
        if p.choices:
            continue
        assert p.contains(p.maximum) and not p.contains(p.maximum * (1 + 1e-9)), p.name
        assert p.contains(p.minimum) == (not p.exclusive), p.name
        below = p.minimum * (1 - 1e-9) if p.minimum > 0 else -1e-12
        assert not p.contains(below) or (p.zero_allowed and below == 0), p.name
        for bad in (math.inf, -math.inf, math.nan):
            assert not p.contains(bad)
    assert REGULARIZED_SCHEMA["stribeck_vel"].contains(0.0)
    assert not REGULARIZED_SCHEMA["stribeck_vel"].contains(1e-12)
    assert LuGre(sigma2=1e8, sigma0=1e10, v_s=1e-9).sigma2 == 1e8
    assert oscillator.build(m=1e9).parameters["m"] == 1e9


def test_the_motionsolve_reader_checks_the_ranges():
    friction = ('<Force_JointFriction id="1" joint_id="100" mu_static="0.5" mu_dynamic="0.3" '
                'bristle_stiffness="1e20"/>')
    with pytest.raises(ModelError, match=r"Force_JointFriction id=1: bristle_stiffness = 1e20 "
                                         r"1/mm \(sigma0 = 1e\+23 1/m in SI\) is out of range; "
                                         r"allowed: \[1, 1e\+10\] 1/m"):
        loads_motionsolve(_xml(friction))
    friction = ('<Force_JointFriction id="1" joint_id="100" mu_static="0.5" mu_dynamic="0.3" '
                'viscous_effects="1e308"/>')
    with pytest.raises(ModelError, match=r"viscous_effects = 1e308 N s/mm"):
        loads_motionsolve(_xml(friction))


# ============================================================================ one schema
@pytest.mark.parametrize("name", sorted(LAWS))
def test_law_defaults_are_the_schema(name):
    cls = LAWS[name]
    assert cls.schema is LAW_SCHEMAS[name]
    law = cls()  # every parameter from the schema
    expected = cls.schema.defaults()
    if "mu_s" in expected and expected["mu_s"] is None:  # None: equal to mu_d
        expected["mu_s"] = expected["mu_d"]
    assert law.parameters() == expected
    assert set(law.parameters()) == set(cls.schema.names)


def test_model_friction_parameters_are_the_schema():
    """The models' friction parameters carry the laws' defaults, ranges and units."""
    model = {p.name: p for p in FRICTION_PARAMETERS}
    assert model["friction"].choices == tuple(LAWS)
    for schema in (LUGRE_SCHEMA, REGULARIZED_SCHEMA, BRISTLE_SCHEMA):
        for p in schema:
            if p.name not in model:
                continue
            m = model[p.name]
            assert (m.default, m.unit, m.minimum, m.maximum, m.exclusive, m.zero_allowed,
                    m.choices) == (p.default, p.unit, p.minimum, p.maximum, p.exclusive,
                                   p.zero_allowed, p.choices), p.name
    assert set(model) == {"friction", "sigma0", "sigma1", "sigma2", "v_s", "effect", "viscous",
                          "falloff_vel", "stribeck_vel", "mu_v", "tau_dw"}
    # one default for the regularized law: the law's, the models' and a pair's agree
    assert model["stribeck_vel"].default == Regularized().stribeck_vel > 0
    law = FrictionPair("p", "n", 0.3, 0.4).make_law("regularized")
    assert law.stribeck_vel == Regularized().stribeck_vel and law.warnings() == []
    assert (law.coulomb, law.stiction_extra) == (0.3, pytest.approx(0.1))
    assert FrictionPair("p", "n", 0.3, 0.4).make_law("lugre").parameters() == \
        LuGre(0.3, 0.4).parameters()
    assert {k: LUGRE_SCHEMA[k].default for k in ("sigma0", "sigma1", "sigma2", "v_s")} == {
        "sigma0": 1e5, "sigma1": 316.0, "sigma2": 0.4, "v_s": 1e-4}  # MotionSolve's, in SI


def test_aliases_come_from_the_schema():
    assert PARAMETER_ALIASES == {"bristle_stiffness": "sigma0", "damping_effects": "sigma1",
                                 "viscous_effects": "sigma2", "stiction_trans_vel": "v_s",
                                 "mu_static": "mu_s", "mu_dynamic": "mu_d", "mu0": "mu_s"}


def test_motionsolve_defaults_are_the_schema():
    """MotionSolve documents its defaults per model unit (docs/method.md section 4.2): 100, 0.316,
    0.0004, 0.1; in a model in mm they are the schema's SI defaults."""
    assert JOINT_FRICTION_DEFAULTS == {
        "mu_static": None, "mu_dynamic": None, "bristle_stiffness": pytest.approx(100.0),
        "damping_effects": pytest.approx(0.316), "viscous_effects": pytest.approx(0.0004),
        "stiction_trans_vel": pytest.approx(0.1), "effect": "ALL"}
    friction = '<Force_JointFriction id="1" joint_id="100" mu_static="0.5" mu_dynamic="0.3"/>'
    (pair,) = loads_motionsolve(_xml(friction)).system.pairs
    law = pair.make_law()
    defaults = LuGre().parameters()
    for name in ("sigma0", "sigma1", "sigma2", "v_s", "effect"):
        assert getattr(law, name) == pytest.approx(defaults[name]), name
    assert (law.mu_s, law.mu_d) == (0.5, 0.3)


def test_the_motionsolve_example_lies_inside_the_ranges():
    from nonsmooth.models.pendulum_joint_friction import XML

    (fr,) = read_motionsolve(XML).frictions.values()
    for p in LUGRE_SCHEMA:
        if p.motionsolve and not p.choices:
            assert p.contains(fr.values[p.motionsolve]), p.name


def test_every_bundled_model_has_bounded_parameters_and_valid_defaults():
    for name in available():
        module = load(name)
        for p in module.PARAMETERS:
            assert isinstance(p, Parameter)
            if p.choices:
                continue
            assert p.minimum is not None and p.maximum is not None, (name, p.name)
            assert p.unit, (name, p.name)
            if p.default is not None:
                assert p.contains(p.default), (name, p.name)
        module.build()  # the defaults pass every check


def test_the_models_listing_prints_the_ranges(capsys):
    assert main(["models"]) == 0
    out, _ = capsys.readouterr()
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("    ")}
    assert "(> 0 and <= 1e+09)" in lines["m"]
    assert "(>= 0 and <= 1e+08)" in lines["sigma2"]
    assert "(0, or >= 1e-09 and <= 1000)" in lines["stribeck_vel"]
    assert "(>= 0 and <= 1e+06)" in lines["beta"]


# ============================================================================ no warning
def test_a_planar_model_under_the_regularized_law_does_not_warn():
    """mu_s > mu_d with the regularized law's defaults: a smooth Stribeck decay, no warning
    (before the schema the law's default stribeck_vel = 0 made the force jump and warned)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = nonsmooth.simulate(slider("coulomb", {}), 0.05, method="LSODA",
                               friction="regularized")
        nonsmooth.simulate(oscillator.build(friction="regularized"), 0.05, method="LSODA")
    assert r.status == 0


# ============================================================================ aliases
@pytest.mark.parametrize("given", [
    {"sigma0": 1e5, "bristle_stiffness": 1e5},
    {"bristle_stiffness": 1e5, "sigma0": 2e5},
    {"sigma1": 1.0, "damping_effects": 1.0},
    {"sigma2": 0.4, "viscous_effects": 0.5},
    {"v_s": 1e-3, "stiction_trans_vel": 1e-3},
    {"mu_s": 0.5, "mu_static": 0.5},
    {"mu_d": 0.3, "mu_dynamic": 0.2},
    {"mu_static": 0.5, "mu0": 0.6},
])
def test_a_name_and_its_alias_together_are_refused(given):
    a, b = given
    target = PARAMETER_ALIASES.get(a, a)
    match = rf"model stick_slip_oscillator: {a} and {b} are one parameter: {target} "
    refused_quickly(lambda: oscillator.build(**given), match)
    refused_quickly(lambda: check_parameters("stick_slip_oscillator", oscillator.PARAMETERS,
                                             given), match)


def test_an_alias_alone_is_accepted():
    p = oscillator.build(bristle_stiffness=2e5, mu0=0.45).parameters
    assert (p["sigma0"], p["mu_s"]) == (2e5, 0.45)


def test_alias_and_name_on_the_command_line(capsys):
    code = main(["run", "stick_slip_oscillator", "--friction", "lugre", "--set", "sigma0=1e5",
                 "--set", "bristle_stiffness=2e5"])
    _, err = capsys.readouterr()
    assert code == 2 and "sigma0 and bristle_stiffness are one parameter" in err


# ============================================================================ mu_s >= mu_d
@pytest.mark.parametrize("make, match", [
    (lambda: LuGre(0.3, 0.2), r"lugre friction: mu_s = 0\.2 must be >= mu_d = 0\.3"),
    (lambda: Coulomb(0.3, 0.2), r"coulomb friction: mu_s = 0\.2 must be >= mu_d = 0\.3"),
    (lambda: FrictionPair("p", "n", 0.3, 0.2), r"friction pair 'p': mu_s = 0\.2 must be >= "
                                               r"mu = 0\.3"),
    (lambda: oscillator.build(mu_s=0.2), r"model stick_slip_oscillator: mu_s = 0\.2 must be >= "
                                         r"mu_d = 0\.3"),
    (lambda: crank_rocker.build(mu_s=0.1), r"model crank_rocker: mu_s = 0\.1 must be >= "
                                           r"mu = 0\.2"),
    (lambda: loads_motionsolve(_xml('<Force_JointFriction id="1" joint_id="100" '
                                    'mu_static="0.2" mu_dynamic="0.3"/>')),
     r"Force_JointFriction id=1: mu_static = 0\.2 must be >= mu_dynamic = 0\.3"),
])
def test_one_static_dynamic_check(make, match):
    msg = refused_quickly(make, match)
    assert "the static coefficient must be >= " in msg and "raise " in msg


# ----------------------------------------------------------------------------- helpers
def _xml(friction: str) -> str:
    """A pendulum in N, kg, mm, s (joint axis along y) with the given Force_JointFriction."""
    return f"""<?xml version="1.0"?>
<MultiBodySystem>
 <Model>
  <Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="MILLIMETER"
              time_unit="SECOND"/>
  <Reference_Marker id="1" body_id="10"/>
  <Reference_Marker id="2" body_id="10" a00="-1" a10="0" a20="0" a02="0" a12="1" a22="0"/>
  <Reference_Marker id="3" body_id="20" a00="-1" a10="0" a20="0" a02="0" a12="1" a22="0"/>
  <Reference_Marker id="4" body_id="20" pos_x="-100" pos_y="0" pos_z="0"/>
  <Body_Rigid id="10" label="Ground" IsGround="TRUE"/>
  <Body_Rigid id="20" label="bob" cg_id="4" mass="1" inertia_xx="1000" inertia_yy="1000"
              inertia_zz="1000"/>
  <Constraint_Joint id="100" label="pin" type="REVOLUTE" i_marker_id="3" j_marker_id="2"/>
  <Force_Gravity grav_x="0" grav_y="0" grav_z="-9810"/>
  {friction}
 </Model>
 <Command><Simulate analysis_type="Transient" end_time="1" num_step="100"/></Command>
</MultiBodySystem>
"""
