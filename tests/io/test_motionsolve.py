"""MotionSolve XML import (nonsmooth.io.motionsolve): units, markers, the plane, errors, and
the reference's Force_JointFriction example against an independent one-degree-of-freedom
computation of the same physics."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.errors import ModelError
from nonsmooth.io.motionsolve import (
    Units,
    load_motionsolve,
    loads_motionsolve,
    motionsolve_module,
    read_motionsolve,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "models" / "pendulum_joint_friction.xml"

SI_UNITS = ('<Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="METER" '
            'time_unit="SECOND"/>')
# ground markers 1 (origin) and 2 (joint J, z along global y); bob markers 3 (joint I), 4 (CM)
MARKERS = """
<Reference_Marker id="1" body_id="10"/>
<Reference_Marker id="2" body_id="10" a00="-1" a10="0" a20="0" a02="0" a12="1" a22="0"/>
<Reference_Marker id="3" body_id="20" a00="-1" a10="0" a20="0" a02="0" a12="1" a22="0"/>
<Reference_Marker id="4" body_id="20" pos_x="-1" pos_y="0" pos_z="0"/>
"""
BODIES = """
<Body_Rigid id="10" label="Ground" IsGround="TRUE"/>
<Body_Rigid id="20" label="bob" cg_id="4" mass="2" inertia_xx="0.1" inertia_yy="0.2"
            inertia_zz="0.3"/>
"""
JOINT = '<Constraint_Joint id="100" label="pin" type="REVOLUTE" i_marker_id="3" j_marker_id="2"/>'
GRAVITY = '<Force_Gravity grav_x="0" grav_y="0" grav_z="-9.81"/>'


def xml(*, units=SI_UNITS, markers=MARKERS, bodies=BODIES, joints=JOINT, gravity=GRAVITY,
        extra="", command='<Simulate analysis_type="Transient" end_time="1" num_step="100"/>'):
    return (f'<?xml version="1.0"?>\n<MultiBodySystem>\n <Model>\n{units}\n{markers}\n{bodies}\n'
            f'{joints}\n{gravity}\n{extra}\n </Model>\n <Command>{command}</Command>\n'
            '</MultiBodySystem>\n')


def read(tmp_path, text, name="m.xml"):
    path = tmp_path / name
    path.write_text(text)
    return read_motionsolve(path)


# --------------------------------------------------------------------------- the example
def test_example_units_markers_and_plane():
    info = read_motionsolve(EXAMPLE)
    assert (info.units.force, info.units.mass, info.units.length, info.units.time) == (
        "NEWTON", "KILOGRAM", "MILLIMETER", "SECOND")
    plane = info.plane
    # joint axis along global y -> the plane is x-z; gravity -z is "down" (-e2)
    np.testing.assert_allclose(abs(plane.normal), [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(np.cross(plane.e1, plane.e2), plane.normal, atol=1e-15)
    np.testing.assert_allclose(plane.e2, [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(info.gravity, [0, 0, -9.81], rtol=1e-15)
    # the bob's CM 100 mm from the joint, the joint at the origin
    cm = np.array(info.planar_position(30102030))
    pin = np.array(info.planar_position(30102020))
    assert np.linalg.norm(cm - pin) == pytest.approx(0.1, rel=1e-15)
    np.testing.assert_allclose(info.local_point(30102020), [-0.1, 0.0], atol=1e-15)
    assert info.bodies[30102].mass == 1.0
    assert info.inertia_about_normal(30102) == pytest.approx(1e-3, rel=1e-14)  # 1000 kg mm^2
    assert (info.t_end, info.dt) == (5.0, pytest.approx(0.005, rel=1e-15))
    fr = info.frictions[301001].values
    expected = {"mu_static": 0.5, "mu_dynamic": 0.3, "stiction_trans_vel": 0.01,
                "pin_radius": 0.005, "friction_arm": 0.007, "bending_reaction_arm": 0.005,
                # MotionSolve's defaults are per mm: 100 /mm, 0.316 s/mm, 0.0004 N s/mm ...
                "bristle_stiffness": 1e5, "damping_effects": 316.0, "viscous_effects": 0.4,
                "max_stiction_deform": 1e-5, "reaction_arm": 1e-3, "initial_overlap": 1.0,
                "torque_preload": 0.0, "effect": "ALL", "inputs": "1111"}
    for key, value in expected.items():
        assert fr[key] == (pytest.approx(value, rel=1e-12) if isinstance(value, float)
                           else value), key
    assert sorted(set(info.ignored)) == ["H3DOutput", "Messaging", "Param_Transient",
                                         "Post_Graphic", "ResOutput"]
    assert info.ignored.count("Post_Graphic") == 4
    assert "ignored (no effect here): Messaging, Param_Transient, Post_Graphic x4" in \
        info.description()
    exprs = {(r.id, k): (text, unit) for r in info.requests for k, text, _, unit in r.expressions}
    assert exprs[(1, 2)] == ("WZ(30102020,30101020,30101020)", "rad/s")
    assert exprs[(2, 2)][1] == "N" and exprs[(2, 6)][1] == "N mm"
    assert sorted(exprs) == [(1, 2), (2, 2), (2, 3), (2, 4), (2, 6), (2, 7), (2, 8)]


def test_example_model_assembly():
    model = load_motionsolve(EXAMPLE)
    assert model.system.coordinate_names == ["bob.x", "bob.y", "bob.theta"]
    np.testing.assert_allclose(model.q0, [0.1, 0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(model.v0, 0.0)
    assert model.system.constraint_names == ["Joint_0.x", "Joint_0.y"]
    (pair,) = model.system.pairs
    assert (pair.name, pair.law, pair.mu, pair.mu_s) == ("Joint_0", "lugre", 0.3, 0.5)
    assert pair.params == {"sigma0": 1e5, "sigma1": 316.0, "sigma2": 0.4,
                           "v_s": pytest.approx(0.01), "effect": "ALL"}
    assert list(model.outputs) == ["req1.expr2", "req2.expr2", "req2.expr3", "req2.expr4",
                                   "req2.expr6", "req2.expr7", "req2.expr8"]
    assert [model.outputs[k].unit for k in model.outputs] == ["rad/s"] + ["N"] * 3 + ["N mm"] * 3
    assert (model.t_end, model.dt) == (5.0, pytest.approx(0.005))


def test_bundled_model_module():
    from nonsmooth.models import load

    mod = load("pendulum_joint_friction")
    assert mod.NAME == "pendulum_joint_friction" and mod.PARAMETERS == []
    assert "MotionSolve" in mod.DESCRIPTION and "bundled" in mod.DESCRIPTION
    assert mod.XML.read_bytes() == EXAMPLE.read_bytes()
    assert mod.build().system.coordinate_names == ["bob.x", "bob.y", "bob.theta"]
    with pytest.raises(ModelError, match="unknown parameter"):
        mod.build(mu=0.1)


def test_motionsolve_module_for_the_loader():
    mod = motionsolve_module(EXAMPLE)
    assert mod.NAME == "pendulum_joint_friction" and mod.PARAMETERS == []
    assert mod.DESCRIPTION.startswith("MotionSolve model") and "units N, kg, mm, s" in \
        mod.DESCRIPTION
    assert mod.build().outputs.keys() == load_motionsolve(EXAMPLE).outputs.keys()
    with pytest.raises(ModelError, match="unknown parameter.*sigma0"):
        mod.build(sigma0=1.0)
    with pytest.raises(ModelError, match="does not exist"):
        motionsolve_module("/nonexistent/model.xml")


# --------------------------------------------------------------------------- units, markers
def test_unit_labels_and_factors():
    u = Units("POUND_FORCE", "POUND_MASS", "INCH", "MILLISECOND")
    assert u.factor((1, 0, -1, 1)) == pytest.approx(4.4482216152605 / 0.0254 * 1e-3)
    assert Units(length="MILLIMETER").label((1, 0, -1, 1)) == "N s/mm"
    assert Units(length="MILLIMETER").label((0, 0, 1, -2)) == "mm/s^2"
    assert Units().label((0, 0, 0, -1), "rad") == "rad/s"
    assert Units().label((0, 0, 0, 0)) == "-"


def test_unit_conversion_of_every_quantity(tmp_path):
    units = ('<Param_Unit force_unit="POUND_FORCE" mass_unit="POUND_MASS" length_unit="INCH" '
             'time_unit="MILLISECOND"/>')
    friction = ('<Force_JointFriction id="7" joint_id="100" mu_static="0.4" mu_dynamic="0.2" '
                'torque_preload="2" pin_radius="0.5"/>')
    info = read(tmp_path, xml(units=units, gravity='<Force_Gravity grav_z="-0.000386088"/>',
                              extra=friction,
                              command='<Simulate end_time="500" num_step="100"/>'))
    inch, lbm, lbf, ms = 0.0254, 0.45359237, 4.4482216152605, 1e-3
    np.testing.assert_allclose(info.markers[4].origin, [-inch, 0, 0], rtol=1e-15)
    assert info.bodies[20].mass == pytest.approx(2 * lbm, rel=1e-15)
    assert info.inertia_about_normal(20) == pytest.approx(0.2 * lbm * inch ** 2, rel=1e-14)
    np.testing.assert_allclose(info.gravity, [0, 0, -0.000386088 * inch / ms ** 2], rtol=1e-15)
    assert (info.t_end, info.dt) == (pytest.approx(0.5), pytest.approx(0.005))
    v = info.frictions[100].values
    assert v["bristle_stiffness"] == pytest.approx(100 / inch)
    assert v["damping_effects"] == pytest.approx(0.316 * ms / inch)
    assert v["viscous_effects"] == pytest.approx(0.0004 * lbf * ms / inch)
    assert v["stiction_trans_vel"] == pytest.approx(0.1 * inch / ms)
    assert v["max_stiction_deform"] == pytest.approx(0.01 * inch)
    assert v["torque_preload"] == pytest.approx(2 * lbf * inch)
    assert v["pin_radius"] == pytest.approx(0.5 * inch)
    assert v["initial_overlap"] == pytest.approx(1000 * inch)
    assert v["force_preload"] == 0.0 and v["overlap_delta"] == "CONSTANT"


def test_marker_orientation_euler_angles_and_rm_id(tmp_path):
    markers = MARKERS + """
<Reference_Marker id="5" body_id="20" pos_x="1" pos_y="2" pos_z="3" psi="1.5707963267948966"/>
<Reference_Marker id="6" body_id="20" rm_id="5" pos_x="1" a00="0" a10="0" a20="1"
                  a02="-1" a12="0" a22="0"/>
"""
    info = read(tmp_path, xml(markers=markers))
    # a00..a22: x = (-1, 0, 0), z = (0, 1, 0), y = z x x = (0, 0, 1)
    np.testing.assert_allclose(info.markers[2].axes, [[-1, 0, 0], [0, 0, 1], [0, 1, 0]],
                               atol=1e-15)
    np.testing.assert_allclose(info.markers[1].axes, np.eye(3))
    # psi = 90 deg about z: x -> y
    np.testing.assert_allclose(info.markers[5].axes[:, 0], [0, 1, 0], atol=1e-15)
    # rm_id: position and axes given in marker 5's frame
    np.testing.assert_allclose(info.markers[6].origin, [1, 3, 3], atol=1e-15)
    np.testing.assert_allclose(info.markers[6].axes[:, 0], [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(info.markers[6].axes[:, 2], [0, -1, 0], atol=1e-15)


def test_inertia_from_the_im_marker_frame_and_origin(tmp_path):
    # IM marker: its z-axis along global y (the plane normal), origin 0.2 m from the CM in plane
    markers = MARKERS + ('<Reference_Marker id="5" body_id="20" pos_x="-1.2" a00="1" a10="0" '
                         'a20="0" a02="0" a12="1" a22="0"/>')
    bodies = BODIES.replace('cg_id="4"', 'cg_id="4" im_id="5"')
    info = read(tmp_path, xml(markers=markers, bodies=bodies))
    # inertia_zz about the IM marker's z (= the normal), moved to the CM: 0.3 - m d^2
    assert info.inertia_about_normal(20) == pytest.approx(0.3 - 2 * 0.2 ** 2, rel=1e-14)
    # IM axes turned about global z: x = (0.8, 0.6, 0); the normal y has IM components
    # (0.6, 0.8, 0): I_n = 0.36 Ixx + 0.64 Iyy - 2 (0.6)(0.8) Ixy (products are integrals xy dm)
    markers = MARKERS + ('<Reference_Marker id="5" body_id="20" pos_x="-1" a00="0.8" a10="0.6" '
                         'a20="0"/>')
    bodies = bodies.replace('inertia_zz="0.3"', 'inertia_zz="0.3" inertia_xy="0.05"')
    info = read(tmp_path, xml(markers=markers, bodies=bodies), "rotated.xml")
    assert info.inertia_about_normal(20) == pytest.approx(0.036 + 0.128 - 0.048, rel=1e-14)


def test_outputs_are_in_the_model_units(tmp_path):
    """Frictionless pendulum in mm: DX/DZ in mm, VX in mm/s, WZ in rad/s, from the run."""
    units = SI_UNITS.replace("METER", "MILLIMETER")
    markers = MARKERS.replace('pos_x="-1"', 'pos_x="-100"')
    bodies = BODIES.replace('inertia_yy="0.2"', 'inertia_yy="200"')
    req = ('<Post_Request id="3" type="EXPRESSION" expr1="DX(4, 2, 2)" expr2="DZ(4)" '
           'expr3="VX(4,0,0)" expr4="WZ(3, 2, 2)" expr5="NULL" expr6="2*DM(4, 1) + 1" '
           'expr7="-WZ(3,2,1)"/>')
    model = loads_motionsolve(xml(units=units, markers=markers, bodies=bodies,
                                  gravity='<Force_Gravity grav_z="-9810"/>', extra=req))
    assert {k: o.unit for k, o in model.outputs.items()} == {
        "req3.expr1": "mm", "req3.expr2": "mm", "req3.expr3": "mm/s", "req3.expr4": "rad/s",
        "req3.expr6": "", "req3.expr7": "rad/s"}
    r = nonsmooth.simulate(model, 0.2, method="Radau", rtol=1e-9, atol=1e-12, dt=0.01)
    th, w = r["bob.theta"], r.v[:, 2]
    assert np.ptp(th) > 0.5  # it swings
    # bob at planar (0.1 cos th, 0.1 sin th) m; e1 = -x, e2 = +z; J marker x-axis = -x
    np.testing.assert_allclose(r["req3.expr1"], 100 * np.cos(th), atol=1e-6)
    np.testing.assert_allclose(r["req3.expr2"], 100 * np.sin(th), atol=1e-6)
    np.testing.assert_allclose(r["req3.expr3"], 100 * np.sin(th) * w, atol=1e-5)
    np.testing.assert_allclose(r["req3.expr4"], w, atol=1e-12)
    np.testing.assert_allclose(r["req3.expr6"], 201.0, atol=1e-6)
    np.testing.assert_allclose(r["req3.expr7"], 0.0, atol=1e-12)  # global z is in the plane
    assert r.units["req3.expr1"] == "mm"


# --------------------------------------------------------------------------- errors
def _one_line_error(tmp_path, text, match, name="bad.xml", family="auto"):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ModelError, match=match) as info:
        load_motionsolve(path, family=family)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


def test_malformed_xml(tmp_path):
    _one_line_error(tmp_path, xml().replace("</Model>", "</Modle>"), r"malformed XML: .*line 1\d")


def test_unknown_element(tmp_path):
    msg = _one_line_error(tmp_path, xml(extra='<Force_Spring id="55" i_marker_id="1"/>'),
                          r"Force_Spring id=55: element <Force_Spring> in <Model> is not "
                          r"supported; supported: Param_Unit, Reference_Marker, Body_Rigid")
    assert "ignored: Param_Transient, Post_Graphic" in msg


def test_unsupported_joint_type(tmp_path):
    """The planar reading names a joint type it has not (the default reading builds it in the
    spatial family: tests/io/test_motionsolve_spatial.py)."""
    _one_line_error(tmp_path, xml(joints=JOINT.replace("REVOLUTE", "SPHERICAL")),
                    r"Constraint_Joint id=100: type = 'SPHERICAL' is not supported; supported "
                    "joint types: REVOLUTE, TRANSLATIONAL", family="planar")


def test_missing_marker_id(tmp_path):
    _one_line_error(tmp_path, xml(joints=JOINT.replace('i_marker_id="3"', 'i_marker_id="99"')),
                    r"Constraint_Joint id=100: i_marker_id 99 refers to no Reference_Marker")
    _one_line_error(tmp_path, xml(bodies=BODIES.replace('cg_id="4"', 'cg_id="44"')),
                    r"Body_Rigid id=20: cg_id 44 refers to no Reference_Marker", "b.xml")
    _one_line_error(tmp_path, xml(extra='<Post_Request id="8" expr1="DX(4, 77)"/>'),
                    r"Post_Request id=8: expr1 = 'DX\(4, 77\)': DX: marker 77 refers to no "
                    "Reference_Marker", "c.xml")
    _one_line_error(tmp_path, xml(extra='<Force_JointFriction id="3" joint_id="5" '
                                        'mu_static="0.2" mu_dynamic="0.1"/>'),
                    r"Force_JointFriction id=3: joint_id 5 refers to no Constraint_Joint", "d.xml")
    _one_line_error(tmp_path, xml(extra='<Post_Request id="9" expr1="FRICTION(4, 6)"/>'),
                    r"Post_Request id=9: .*FRICTION: 4 refers to no Force_JointFriction", "e.xml")


def test_non_planar_models(tmp_path):
    """The planar reading names what leaves the plane; the default reading ("auto") builds the
    same files in the spatial family."""
    # a second pendulum whose joint axis is the global z-axis
    markers = MARKERS + """
<Reference_Marker id="5" body_id="10" pos_x="3"/>
<Reference_Marker id="6" body_id="30" pos_x="3"/>
<Reference_Marker id="7" body_id="30" pos_x="4"/>
"""
    bodies = BODIES + '<Body_Rigid id="30" cg_id="7" mass="1" inertia_xx="1" inertia_yy="1" ' \
                      'inertia_zz="1"/>'
    joints = JOINT + '<Constraint_Joint id="200" type="REVOLUTE" i_marker_id="6" j_marker_id="5"/>'
    _one_line_error(tmp_path, xml(markers=markers, bodies=bodies, joints=joints),
                    r"Constraint_Joint id=200 \(REVOLUTE\): the z-axis \(0, 0, 1\) of its I marker"
                    r" 6 is not parallel to the plane normal \(0, 1, 0\).*only planar models are "
                    "supported", family="planar")
    _one_line_error(tmp_path, xml(gravity='<Force_Gravity grav_y="-9.81"/>'),
                    r"Force_Gravity: gravity \(0, -1, 0\) is not perpendicular to the plane "
                    r"normal \(0, 1, 0\)", "g.xml", family="planar")
    _one_line_error(tmp_path, xml(bodies=BODIES.replace('mass="2"', 'mass="2" v_ic_y="1"')),
                    r"Body_Rigid id=20: its initial velocity leaves the plane", "v.xml",
                    family="planar")
    for name in ("bad.xml", "g.xml", "v.xml"):
        model = load_motionsolve(tmp_path / name)
        assert type(model.system).__name__ == "SpatialSystem"


def test_other_reading_errors(tmp_path):
    _one_line_error(tmp_path, xml(units=SI_UNITS.replace("METER", "FURLONG")),
                    "Param_Unit: length_unit = 'FURLONG' is not supported; allowed: METER")
    _one_line_error(tmp_path, xml(bodies=BODIES.replace('mass="2"', 'mass="heavy"')),
                    r"Body_Rigid id=20: mass = 'heavy' is not a number", "m.xml")
    _one_line_error(tmp_path, xml(extra='<Force_JointFriction id="3" joint_id="100" '
                                        'mu_static="0.1" mu_dynamic="0.2"/>'),
                    r"Force_JointFriction id=3: mu_static = 0.1 must be >= mu_dynamic", "f.xml")
    _one_line_error(tmp_path, xml(extra='<Force_JointFriction id="3" joint_id="100" '
                                        'mu_static="0.3" mu_dynamic="0.2" inputs="12"/>'),
                    r"Force_JointFriction id=3: inputs = '12': give 4 bits", "i.xml")
    _one_line_error(tmp_path, xml(extra='<Post_Request id="4" type="DISPLACEMENT"/>'),
                    r"Post_Request id=4: type = 'DISPLACEMENT' is not supported", "p.xml")
    _one_line_error(tmp_path, xml(extra='<Post_Request id="4" expr1="FOO(1)"/>'),
                    r"Post_Request id=4: expr1 = 'FOO\(1\)': unknown function FOO", "q.xml")
    _one_line_error(tmp_path, xml(command='<Simulate analysis_type="Static" end_time="1"/>'),
                    r"Simulate: analysis_type = 'Static' is not supported", "s.xml")


def test_cli_bad_xml_exits_2_with_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text(xml(joints=JOINT.replace('j_marker_id="2"', 'j_marker_id="98"')))
    code = main(["run", str(bad)])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("nonsmooth: error: ") and err.count("\n") == 1
    assert "Constraint_Joint id=100: j_marker_id 98 refers to no Reference_Marker" in err
    bad.write_text("<MultiBodySystem><Model>")
    code = main(["run", str(bad)])
    _, err = capsys.readouterr()
    assert code == 2 and "malformed XML" in err and err.count("\n") == 1


def test_cli_runs_an_xml_file(tmp_path, capsys):
    out, png = tmp_path / "out.csv", tmp_path / "out.png"
    code = main(["run", str(EXAMPLE), "--t-end", "0.05", "--out", str(out), "--plot", str(png)])
    assert code == 0
    assert out.read_text().splitlines()[0] == ("t,req1.expr2,req2.expr2,req2.expr3,req2.expr4,"
                                               "req2.expr6,req2.expr7,req2.expr8")
    assert np.loadtxt(out, delimiter=",", skiprows=1).shape == (11, 8)
    assert png.read_bytes()[:4] == b"\x89PNG"



def test_default_plot_leaves_out_the_all_zero_requests_and_labels_the_panels(tmp_path):
    # the example's FRICTION(1,1..5) (forces and in-plane torques of a planar revolute joint)
    # are zero throughout: no empty panel for them, a line names them; each panel says what it is
    with pytest.warns(RuntimeWarning, match="dissipate"):  # MotionSolve's LuGre defaults
        r = nonsmooth.simulate(load_motionsolve(EXAMPLE), 0.05, dt=0.005, method="LSODA")
    zero = ["req2.expr2", "req2.expr3", "req2.expr4", "req2.expr6", "req2.expr7"]
    assert all(np.all(r[n] == 0) for n in zero) and np.any(r["req2.expr8"] != 0)
    fig = r.plot(path=tmp_path / "out.png")
    axes = fig.get_axes()
    assert [ax.get_ylabel() for ax in axes] == ["req1.expr2 [rad/s]", "req2.expr8 [N mm]"]
    assert [ax.get_title(loc="left") for ax in axes] == ["WZ(30102020,30101020,30101020)",
                                                        "FRICTION(1,6)"]
    note = " ".join(t.get_text() for t in fig.texts)
    assert note.startswith("zero throughout, not shown: ")
    assert all(f"{n} (FRICTION(1," in note for n in zero)
    # names given explicitly are plotted as asked, zero or not
    assert len(r.plot(["req2.expr2", "req2.expr8"], path=tmp_path / "two.png").get_axes()) == 2


# --------------------------------------------------------------------------- end to end
def pendulum_reference(t_eval):
    """The example as one degree of freedom, written independently of the engine (SI).

    phi: angle of the arm from e1 (horizontal), w = dphi/dt; LuGre bristle state z on the slip
    v = r_p w; N = |R| with R the pin reaction on the bob, m a_cm = R + m g. The friction torque
    changes dw/dt, hence a_cm, hence N: solved per evaluation by fixed-point iteration.
    """
    m, arm, g = 1.0, 0.1, 9.81
    I_O = 1e-3 + m * arm * arm  # 1000 kg mm^2 about the CM + m l^2
    r_p, mu_s, mu_d = 0.005, 0.5, 0.3
    sigma0, sigma1, sigma2, v_s = 1e5, 316.0, 0.4, 0.01

    def rhs(t, y):
        phi, w, z = y
        v = r_p * w
        g_v = mu_d + (mu_s - mu_d) * math.exp(-(v / v_s) ** 2)
        dz = v - sigma0 * abs(v) * z / g_v
        a = sigma0 * z + sigma1 * dz
        c, s = math.cos(phi), math.sin(phi)
        N = 0.0
        for _ in range(200):
            dw = (-m * g * arm * c - r_p * (a * N + sigma2 * v)) / I_O
            Rx = m * (-arm * dw * s - arm * w * w * c)
            Ry = m * (arm * dw * c - arm * w * w * s) + m * g
            N, N_old = math.hypot(Rx, Ry), N
            if abs(N - N_old) <= 1e-15 * max(1.0, N):
                break
        dw = (-m * g * arm * c - r_p * (a * N + sigma2 * v)) / I_O
        return [w, dw, dz]

    sol = solve_ivp(rhs, (0.0, t_eval[-1]), [0.0, 0.0, 0.0], method="Radau", rtol=1e-11,
                    atol=1e-13, t_eval=t_eval)
    assert sol.success
    return sol.y


def test_example_runs_and_matches_a_one_dof_computation():
    model = load_motionsolve(EXAMPLE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the example's sigma1 breaks the dissipativity test
        r = nonsmooth.simulate(model, model.t_end, method="Radau", rtol=1e-8, atol=1e-10,
                               dt=model.dt)
    assert r.status == 0 and len(r.t) == 1001 and r.t[-1] == pytest.approx(5.0)
    phi, w, _ = pendulum_reference(r.t)
    wz = r["req1.expr2"]
    scale = np.max(np.abs(w))
    assert scale > 10  # it swings (about 13 rad/s at the bottom)
    assert np.max(np.abs(wz - w)) < 1e-4 * scale
    np.testing.assert_allclose(r["bob.theta"], phi, atol=1e-4 * np.max(np.abs(phi)))
    # the friction torque on the bob about the joint axis, in N mm; no friction force
    torque = r["req2.expr8"]
    np.testing.assert_allclose(torque, 1e3 * 0.005 * r["F_T:Joint_0"], rtol=1e-12)
    assert np.max(np.abs(torque)) > 1.0
    for k in ("req2.expr2", "req2.expr3", "req2.expr4", "req2.expr6", "req2.expr7"):
        assert np.all(r[k] == 0.0), k
    # friction opposes the slip wherever it slides fast
    fast = np.abs(wz) > 2.0
    assert np.all(np.sign(torque[fast]) == -np.sign(wz[fast]))
    # the normal load is the pin reaction
    np.testing.assert_allclose(r["lambda_N:Joint_0"], np.hypot(r["Joint_0.x"], r["Joint_0.y"]),
                               rtol=1e-12)


SLIDE = """<MultiBodySystem><Model>
<Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="MILLIMETER" time_unit="SECOND"/>
<Reference_Marker id="2" body_id="10" a00="{s}" a10="0" a20="{mc}" a02="{c}" a12="0" a22="{s}"/>
<Reference_Marker id="3" body_id="20" a00="{s}" a10="0" a20="{mc}" a02="{c}" a12="0" a22="{s}"/>
<Reference_Marker id="4" body_id="20"/>
<Body_Rigid id="10" IsGround="TRUE"/>
<Body_Rigid id="20" label="block" cg_id="4" mass="2" inertia_xx="100" inertia_yy="100"
            inertia_zz="100"/>
<Constraint_Joint id="100" label="slide" type="TRANSLATIONAL" i_marker_id="3" j_marker_id="2"/>
<Force_Gravity grav_z="-9810"/>
<Force_JointFriction id="7" joint_id="100" mu_static="0.3" mu_dynamic="0.2" inputs="{inputs}"/>
<Post_Request id="1" expr1="DZ(3,2,2)" expr2="VZ(3,2,2)" expr3="FRICTION(7,3)"
              expr4="FRICTION(7,1)" expr5="FRICTION(7,15)" expr6="FRICTION(7,6)"/>
</Model><Command><Simulate end_time="0.5" num_step="50"/></Command></MultiBodySystem>"""


@pytest.mark.parametrize("inputs", [
    "0100",
    "1111",
])
def test_translational_joint_friction_on_an_incline(inputs):
    """A block sliding down a 30 degree slide (axis = z of the J marker, in the x-z plane) with
    LuGre friction (MotionSolve's per-mm defaults) against a 1-DOF computation."""
    c, s = math.cos(math.pi / 6), math.sin(math.pi / 6)
    model = loads_motionsolve(SLIDE.format(s=s, c=c, mc=-c, inputs=inputs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = nonsmooth.simulate(model, model.t_end, method="Radau", rtol=1e-8, atol=1e-10,
                               dt=model.dt)
    m, g, mu_s, mu_d = 2.0, 9.81, 0.3, 0.2
    sigma0, sigma1, sigma2, v_s = 1e5, 316.0, 0.4, 1e-4
    N = m * g * c

    def rhs(t, y):
        x, v, z = y
        g_v = mu_d + (mu_s - mu_d) * math.exp(-(v / v_s) ** 2)
        dz = v - sigma0 * abs(v) * z / g_v
        F = -((sigma0 * z + sigma1 * dz) * N + sigma2 * v)
        return [v, -g * s + F / m, dz]

    ref = solve_ivp(rhs, (0, 0.5), [0, 0, 0], method="Radau", rtol=1e-11, atol=1e-14,
                    t_eval=r.t)
    vz = r["req1.expr2"]  # mm/s along the slide axis
    assert np.max(np.abs(vz - 1e3 * ref.y[1])) < 1e-4 * np.max(np.abs(1e3 * ref.y[1]))
    np.testing.assert_allclose(r["req1.expr1"], 1e3 * ref.y[0], atol=1e-4 * 386)
    np.testing.assert_allclose(r["req1.expr3"], r["F_T:slide"], rtol=1e-12)  # N, along J z
    np.testing.assert_allclose(r["req1.expr5"], vz, rtol=1e-12)  # slip velocity, mm/s
    assert np.all(r["req1.expr4"] == 0) and np.all(r["req1.expr6"] == 0)
    assert r["req1.expr3"][-1] == pytest.approx(mu_d * N - sigma2 * ref.y[1][-1], rel=1e-3)


def _without_simulate(tmp_path) -> Path:
    import re

    path = tmp_path / "nosim.xml"
    path.write_text(re.sub(r"<Simulate.*?/>", "", EXAMPLE.read_text(), flags=re.S))
    return path


def test_a_file_without_simulate_says_it_runs_the_default_span(capsys, tmp_path):
    """No <Simulate>: the run is 0 .. 1 s, and says so (one warning naming the span and how to
    set it); an end time given (--t-end, simulate's t_span) is no default and says nothing."""
    path = _without_simulate(tmp_path)
    code = main(["run", str(path), "--dt", "0.01"])
    out, err = capsys.readouterr()
    assert code == 0 and "t = 0 .. 1 s" in out
    assert err.count("<Simulate>") == 1  # once (the other warning: the file's LuGre values)
    assert (f"warning: {path} has no <Simulate> command: the run uses the default span 0 .. 1 s; "
            "give the end time (--t-end, simulate(model, t_end))") in err
    assert main(["run", str(path), "--t-end", "0.1", "--dt", "0.01"]) == 0
    assert "Simulate" not in capsys.readouterr().err
    model = load_motionsolve(path)
    with pytest.warns(UserWarning, match=r"has no <Simulate> command: the run uses the default "
                                         r"span 0 \.\. 1 s"):
        nonsmooth.simulate(model, dt=0.01)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*<Simulate>")
        nonsmooth.simulate(model, 0.1, dt=0.01)
        nonsmooth.simulate(load_motionsolve(EXAMPLE), 0.01, dt=0.001)
    assert load_motionsolve(EXAMPLE).span_note == ""
