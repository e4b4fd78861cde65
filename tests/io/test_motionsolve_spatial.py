"""MotionSolve XML in 3-D (nonsmooth.io.motionsolve, family "spatial" / "auto"): the planar
pendulum read both ways, a spherical pendulum the planar reader refuses, the inertia tensor of a
rotated IM marker, every joint type, Motion_Joint drivers against Newton-Euler, joint friction
(the frictional pendulum and a slide read both ways, each frictional joint type, FRICTION
requests in the J marker's axes, the refusals), the errors."""

from __future__ import annotations

import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import nonsmooth
from nonsmooth.cli import main
from nonsmooth.errors import ModelError
from nonsmooth.io.motionsolve import load_motionsolve, loads_motionsolve, read_motionsolve
from nonsmooth.io.motionsolve.kinematics import _rx, _rz

EXAMPLE = Path(__file__).resolve().parents[2] / "models" / "pendulum_joint_friction.xml"

SI_UNITS = ('<Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="METER" '
            'time_unit="SECOND"/>')
GROUND = '<Body_Rigid id="10" label="Ground" IsGround="TRUE"/>'
GRAVITY = '<Force_Gravity grav_x="0" grav_y="0" grav_z="-9.81"/>'


def xml(markers, bodies, joints, extra="", gravity=GRAVITY, t_end="1", steps="100"):
    return (f'<?xml version="1.0"?>\n<MultiBodySystem>\n <Model>\n{SI_UNITS}\n{markers}\n'
            f'{GROUND}\n{bodies}\n{joints}\n{gravity}\n{extra}\n </Model>\n <Command>'
            f'<Simulate analysis_type="Transient" end_time="{t_end}" num_step="{steps}"/>'
            '</Command>\n</MultiBodySystem>\n')


def euler(psi, theta, phi):
    """MotionSolve's 3-1-3 marker axes (independent of the reader: scipy's intrinsic zxz)."""
    return Rotation.from_euler("ZXZ", [psi, theta, phi]).as_matrix()


# --------------------------------------------------------------------------- planar vs spatial
def _frictionless_pendulum() -> str:
    text = EXAMPLE.read_text()
    text = re.sub(r"<Force_JointFriction.*?/>", "", text, flags=re.S)
    text = re.sub(r'<Post_Request\s+id\s*=\s*"2".*?/>', "", text, flags=re.S)  # FRICTION(...)
    extra = ('<Post_Request id="3" type="EXPRESSION" expr1="DX(30102030)" expr2="DZ(30102030)" '
             'expr3="VX(30102030)" expr4="DY(90000012, 30101020, 30101020)"/>')
    return text.replace("</Model>", extra + "\n</Model>")


def test_planar_pendulum_read_spatially_matches_the_planar_reading():
    text = _frictionless_pendulum()
    planar = loads_motionsolve(text, "pendulum")
    spatial = loads_motionsolve(text, "pendulum", family="spatial")
    assert spatial.system.constraint_names == [f"Joint_0.{c}" for c in
                                               ("x", "y", "z", "perp1", "perp2")]
    assert list(spatial.outputs) == list(planar.outputs)
    rp = nonsmooth.simulate(planar, 2.0, rtol=1e-11, dt=0.01)
    rs = nonsmooth.simulate(spatial, 2.0, rtol=1e-11, dt=0.01)
    assert rp.status == 0 and rs.status == 0 and np.max(np.abs(rp["bob.theta"])) > 3.0
    for name in planar.outputs:  # angular velocity (rad/s), marker positions (mm), mm/s
        assert np.max(np.abs(rp[name] - rs[name])) < 1e-9 * max(1.0, np.max(np.abs(rp[name])))
    plane = read_motionsolve(EXAMPLE).plane
    F = np.column_stack([rs[f"Joint_0.F{c}"] for c in "xyz"])  # on the I body (the bob), N
    np.testing.assert_allclose(F @ plane.e1, rp["Joint_0.x"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(F @ plane.e2, rp["Joint_0.y"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(F @ plane.normal, 0.0, atol=1e-12)


# --------------------------------------------------------------------------- spherical pendulum
A_CM = (0.3, 0.4, 0.5)  # Euler angles of the bob's CM marker
A_MK = (1.1, -0.7, 0.2)  # ... of the measured marker
SPHERICAL_MARKERS = f"""
<Reference_Marker id="1" body_id="10"/>
<Reference_Marker id="2" body_id="20" pos_x="1" pos_y="0" pos_z="-0.2"
                  psi="{A_CM[0]}" theta="{A_CM[1]}" phi="{A_CM[2]}"/>
<Reference_Marker id="3" body_id="20"/>
<Reference_Marker id="4" body_id="20" pos_x="1.2" pos_y="0.1" pos_z="-0.05"
                  psi="{A_MK[0]}" theta="{A_MK[1]}" phi="{A_MK[2]}"/>
"""
# initial velocities consistent with the ball joint: w_ic along the CM marker's axes,
# v_ic = w x c in global axes
W_IC = np.array([0.0, 0.3, 2.0])
V_IC = np.cross(euler(*A_CM) @ W_IC, [1.0, 0.0, -0.2])
SPHERICAL_BODY = ('<Body_Rigid id="20" label="bob" cg_id="2" mass="2" inertia_xx="0.02" '
                  'inertia_yy="0.03" inertia_zz="0.04" inertia_xy="0.001" '
                  + " ".join(f'v_ic_{c}="{float(V_IC[k])!r}" w_ic_{c}="{float(W_IC[k])!r}"'
                             for k, c in enumerate("xyz")) + "/>")
SPHERICAL_JOINT = ('<Constraint_Joint id="100" label="ball" type="SPHERICAL" i_marker_id="3" '
                   'j_marker_id="1"/>')
SPHERICAL_REQUEST = ('<Post_Request id="7" type="EXPRESSION" expr1="DX(4)" expr2="DY(4)" '
                     'expr3="DZ(4)" expr4="VZ(4)" expr5="WX(4, 0, 4)"/>')


def test_spherical_pendulum_loads_spatially_runs_and_measures_its_markers(tmp_path):
    path = tmp_path / "spherical.xml"
    path.write_text(xml(SPHERICAL_MARKERS, SPHERICAL_BODY, SPHERICAL_JOINT, SPHERICAL_REQUEST))
    with pytest.raises(ModelError, match=r"type = 'SPHERICAL' is not supported"):
        load_motionsolve(path, family="planar")  # the planar reading refuses it
    info = read_motionsolve(path)  # the default: auto
    assert info.family == "spatial" and info.plane is None
    model = load_motionsolve(path)
    assert model.system.constraint_names == ["ball.x", "ball.y", "ball.z"]
    r = nonsmooth.simulate(model, 1.0, dt=0.01)
    assert r.status == 0
    assert r.diagnostics["energy_balance_scaled"] < 1e-9
    # the marker from the result's q: r + R s, s the marker origin in the CM marker's axes
    c, A = np.array([1.0, 0.0, -0.2]), euler(*A_CM)
    s = A.T @ (np.array([1.2, 0.1, -0.05]) - c)
    R = Rotation.from_quat(r.q[:, [4, 5, 6, 3]]).as_matrix()
    pos = r.q[:, :3] + R @ s
    for k, name in enumerate(("req7.expr1", "req7.expr2", "req7.expr3")):
        np.testing.assert_allclose(r[name], pos[:, k], rtol=0, atol=1e-12)
    w_world = np.einsum("kij,kj->ki", R, r.v[:, 3:6])
    vz = r.v[:, 2] + np.cross(w_world, R @ s)[:, 2]
    np.testing.assert_allclose(r["req7.expr4"], vz, rtol=0, atol=1e-12)
    x_marker = R @ (A.T @ euler(*A_MK)[:, 0])  # the marker's x-axis now
    np.testing.assert_allclose(r["req7.expr5"], np.einsum("ki,ki->k", w_world, x_marker),
                               rtol=0, atol=1e-12)
    # the start: v_ic in global axes, w_ic in the CM marker's axes
    np.testing.assert_allclose(w_world[0], A @ W_IC, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.v[0, :3], V_IC, rtol=0, atol=1e-12)
    assert np.max(np.abs(r["req7.expr3"] - r["req7.expr3"][0])) > 0.1  # it swings


def test_cli_runs_a_spatial_file(tmp_path, capsys):
    path = tmp_path / "spherical.xml"
    path.write_text(xml(SPHERICAL_MARKERS, SPHERICAL_BODY, SPHERICAL_JOINT, SPHERICAL_REQUEST))
    out = tmp_path / "out.csv"
    assert main(["run", str(path), "--t-end", "0.05", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[0].startswith("t,req7.expr1,req7.expr2,req7.expr3")


# --------------------------------------------------------------------------- inertia
def test_inertia_of_a_rotated_im_marker_in_the_body_axes(tmp_path):
    markers = """
<Reference_Marker id="1" body_id="10" pos_x="0.5"/>
<Reference_Marker id="2" body_id="20" pos_x="0.5" psi="0.2" theta="0.9" phi="-0.4"/>
<Reference_Marker id="3" body_id="20" pos_x="0.5" psi="-1.0" theta="0.3" phi="0.6"/>
<Reference_Marker id="5" body_id="20" pos_x="0.6" pos_y="0.1" psi="0.5" theta="0.2"/>
"""
    body = ('<Body_Rigid id="20" label="plate" cg_id="2" im_id="{im}" mass="3" '
            'inertia_xx="0.5" inertia_yy="0.4" inertia_zz="0.6" inertia_xy="0.05" '
            'inertia_yz="-0.03" inertia_xz="0.02"/>')
    joint = '<Constraint_Joint id="100" type="SPHERICAL" i_marker_id="3" j_marker_id="1"/>'
    J_im = np.array([[0.5, -0.05, -0.02], [-0.05, 0.4, 0.03], [-0.02, 0.03, 0.6]])
    A_cm = euler(0.2, 0.9, -0.4)
    for im, A_im, d in ((3, euler(-1.0, 0.3, 0.6), np.zeros(3)),
                        (5, euler(0.5, 0.2, 0.0), np.array([-0.1, -0.1, 0.0]))):
        path = tmp_path / f"inertia{im}.xml"
        path.write_text(xml(markers, body.format(im=im), joint))
        built = load_motionsolve(path, family="spatial").system.model.bodies[0]
        J_world = A_im @ J_im @ A_im.T - 3.0 * ((d @ d) * np.eye(3) - np.outer(d, d))
        np.testing.assert_allclose(built.J, A_cm.T @ J_world @ A_cm, rtol=0, atol=1e-14)
        np.testing.assert_allclose(built.R0, A_cm, atol=1e-15)
        np.testing.assert_allclose(built.position, [0.5, 0.0, 0.0], atol=1e-15)


# --------------------------------------------------------------------------- joint types
# J marker 1 on the ground, I marker 3 on the body; both at the origin
_I_AXES = {"UNIVERSAL": ' a00="0" a10="1" a20="0" a02="1" a12="0" a22="0"'}  # z_I = global x
JOINT_ROWS = {
    "REVOLUTE": ["x", "y", "z", "perp1", "perp2"],
    "SPHERICAL": ["x", "y", "z"],
    "CYLINDRICAL": ["perp1", "perp2", "line1", "line2"],
    "TRANSLATIONAL": ["perp1", "perp2", "line1", "line2", "lock"],
    "UNIVERSAL": ["x", "y", "z", "cross"],
    "HOOKE": ["x", "y", "z", "cross"],
    "FIXED": ["x", "y", "z", "perp1", "perp2", "lock"],
}


def _one_joint(jtype, extra=""):
    markers = f"""
<Reference_Marker id="1" body_id="10"/>
<Reference_Marker id="2" body_id="20" pos_x="0.5"/>
<Reference_Marker id="3" body_id="20"{_I_AXES.get(jtype, "")}/>
"""
    body = ('<Body_Rigid id="20" label="arm" cg_id="2" mass="2" inertia_xx="0.01" '
            'inertia_yy="0.05" inertia_zz="0.05"/>')
    joint = (f'<Constraint_Joint id="100" label="j" type="{jtype}" i_marker_id="3" '
             'j_marker_id="1"/>')
    return xml(markers, body, joint, extra)


@pytest.mark.parametrize("jtype", list(JOINT_ROWS))
def test_each_joint_type_reads_into_its_spatial_joint(jtype):
    model = loads_motionsolve(_one_joint(jtype), "one", family="spatial")
    assert model.system.constraint_names == [f"j.{c}" for c in JOINT_ROWS[jtype]]
    joint = model.system.model.joints[0]
    assert joint.body_b.name == "arm" and joint.body_a.name == "ground"
    if jtype == "UNIVERSAL":  # the cross axes: z of J, z of I
        np.testing.assert_allclose([joint.axis_a, joint.axis_b], [[0, 0, 1], [1, 0, 0]])
    if jtype == "HOOKE":  # y of J, x of I
        np.testing.assert_allclose([joint.axis_a, joint.axis_b], [[0, 1, 0], [1, 0, 0]])
    if jtype in ("REVOLUTE", "CYLINDRICAL", "TRANSLATIONAL"):
        np.testing.assert_allclose(joint.axis, [0, 0, 1])
    r = nonsmooth.simulate(model, 0.05, dt=0.01)
    assert r.status == 0


def test_auto_keeps_a_planar_model_planar():
    text = _frictionless_pendulum()
    assert read_motionsolve_text(text, "auto").family == "planar"
    assert read_motionsolve_text(text, "spatial").family == "spatial"


def read_motionsolve_text(text, family):
    from nonsmooth.io.motionsolve import Reader

    return Reader(text, "<t>", "t", family).read()


# --------------------------------------------------------------------------- motions
def test_revolute_motion_torque_is_newton_euler():
    """A bar on a vertical hinge (gravity along the axis) driven at theta = 0.5 t^2 + 0.3 t:
    the driving torque is (J_zz + m r^2) theta'' = (0.05 + 2 * 0.25) * 1."""
    motion = '<Motion_Joint id="9" label="spin" joint_id="100" expr="0.5*TIME**2 + 0.3*TIME"/>'
    model = loads_motionsolve(_one_joint("REVOLUTE", motion), "driven", family="auto")
    r = nonsmooth.simulate(model, 1.0, dt=0.05)
    t = r.t
    np.testing.assert_allclose(r["j.angle"], 0.5 * t ** 2 + 0.3 * t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r["spin.torque"], 0.55, rtol=1e-6)


def test_translational_and_cylindrical_motions():
    """Vertical slide x = 0.1 sin(2 t): the driving force m (x'' + g) on a 2 kg body."""
    motion = ('<Motion_Joint id="9" label="lift" joint_id="100" motion_type="T" '
              'expr="0.1*SIN(2*TIME)"/>')
    for jtype in ("TRANSLATIONAL", "CYLINDRICAL"):
        model = loads_motionsolve(_one_joint(jtype, motion), "slide", family="auto")
        r = nonsmooth.simulate(model, 1.0, dt=0.05)
        np.testing.assert_allclose(r["j.displacement"], 0.1 * np.sin(2 * r.t), rtol=0,
                                   atol=1e-9)
        np.testing.assert_allclose(r["lift.force"], 2 * (9.81 - 0.4 * np.sin(2 * r.t)),
                                   rtol=1e-6)


def test_velocity_motion_and_degrees():
    speed = '<Motion_Joint id="9" joint_id="100" val_type="V" expr="90D"/>'
    model = loads_motionsolve(_one_joint("REVOLUTE", speed), "v", family="auto")
    r = nonsmooth.simulate(model, 1.0, dt=0.1)
    np.testing.assert_allclose(r["j.angle"], 0.5 * math.pi * r.t, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r["motion9.torque"], 0.0, atol=1e-9)


def test_motion_starts_from_the_markers_angle():
    """AZ(I, J) at t = 0 is 0.4 rad (the I marker turned about z): a motion 0.4 + TIME."""
    text = _one_joint("REVOLUTE", '<Motion_Joint id="9" joint_id="100" expr="0.4 + TIME"/>')
    text = text.replace('<Reference_Marker id="3" body_id="20"/>',
                        '<Reference_Marker id="3" body_id="20" psi="0.4"/>')
    r = nonsmooth.simulate(loads_motionsolve(text, "m", family="auto"), 0.5, dt=0.1)
    np.testing.assert_allclose(r["j.angle"], r.t, rtol=0, atol=1e-9)  # from the start
    with pytest.raises(ModelError, match=r"Motion_Joint id=9: the motion starts at 0\.5 rad "
                                         r"but the joint's markers give 0\.4"):
        loads_motionsolve(text.replace("0.4 + TIME", "0.5 + TIME"), "m", family="auto")


# --------------------------------------------------------------------------- errors
def _one_line(text, match, family="auto"):
    with pytest.raises(ModelError, match=match) as info:
        loads_motionsolve(text, "bad", family=family)
    assert "\n" not in str(info.value) and str(info.value).startswith("<bad>: ")


def test_errors_name_the_element_and_its_id():
    _one_line(_one_joint("PLANAR"), r"Constraint_Joint id=100: type = 'PLANAR' is not "
              "supported; supported joint types: REVOLUTE, TRANSLATIONAL, SPHERICAL, "
              "CYLINDRICAL, UNIVERSAL, HOOKE, FIXED")
    _one_line(_one_joint("SPHERICAL").replace('<Reference_Marker id="1" body_id="10"/>',
                                              '<Reference_Marker id="1" body_id="10"/>'
                                              '<Reference_Marker id="8" body_id="77"/>'),
              r"Reference_Marker id=8: body_id 77 refers to no Body_Rigid")
    _one_line(_frictionless_pendulum().replace(
        "</Model>", '<Motion_Joint id="9" joint_id="301001" expr="TIME"/></Model>'),
        r"Motion_Joint id=9: Motion_Joint is built in the spatial family only", family="planar")
    _one_line(_one_joint("SPHERICAL", '<Motion_Joint id="9" joint_id="100" expr="TIME"/>'),
              r"Motion_Joint id=9: motion_type is required on the SPHERICAL joint 100")
    _one_line(_one_joint("REVOLUTE", '<Motion_Joint id="9" joint_id="100" expr="DX(3)"/>'),
              r"Motion_Joint id=9: expr = 'DX\(3\)': a motion must be a function of TIME only")
    _one_line(_one_joint("REVOLUTE", '<Motion_Joint id="9" joint_id="100" val_type="A" '
                                     'expr="1"/>'),
              r"Motion_Joint id=9: val_type = 'A' is not supported")
    _one_line(_one_joint("REVOLUTE").replace('<Reference_Marker id="3" body_id="20"/>',
                                             '<Reference_Marker id="3" body_id="20" '
                                             'pos_y="0.01"/>'),
              r"Constraint_Joint id=100: the origins of the I marker 3 and the J marker 1 are "
              "0.01 m apart", family="spatial")
    _one_line(_one_joint("UNIVERSAL").replace(_I_AXES["UNIVERSAL"], ""),
              r"Constraint_Joint id=100: universal 'j': axis_a and axis_b must be "
              "perpendicular")
    _one_line(_one_joint("REVOLUTE"), r"family = 'flat' is invalid", family="flat")


def test_unrotated_marker_helpers_agree_with_scipy():
    """The test's independent 3-1-3 axes agree with the reader's (same convention)."""
    np.testing.assert_allclose(euler(0.3, 0.4, 0.5), _rz(0.3) @ _rx(0.4) @ _rz(0.5),
                               atol=1e-15)


# --------------------------------------------------------------------------- joint friction
def _both(text, t_end, rtol=1e-11, atol_z=1e-15):
    """The planar and the spatial reading of ``text`` run to ``t_end`` (s) at ``rtol``; the
    LuGre bristle state (~5e-6 m) is held to ``atol_z`` (m), q and v to the default 1e-13:
    with the default atol on it as well its error, ~1e-13 m times sigma0 = 1e5 1/m, reaches
    the friction force at ~5e-8 relative and that, not a convention, is then the difference
    between the two readings."""
    out = []
    for family in ("planar", "spatial"):
        model = loads_motionsolve(text, "both", family=family)
        n = model.system.n_q + model.system.n_v
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the per-mm LuGre defaults fail dissipativity
            r = nonsmooth.simulate(model, t_end, rtol=rtol, atol=[1e-13] * n + [atol_z])
        assert r.status == 0, r.message
        out.append((model, r))
    return out


def _agree(rp, rs, names, rel=1e-9, floor=1e-9):
    """``|planar - spatial| <= rel * max|planar| + floor`` per output (model units); the
    worst relative difference of each."""
    worst = {}
    for name in names:
        a, b = rp[name], rs[name]
        scale = float(np.max(np.abs(a)))
        err = float(np.max(np.abs(a - b)))
        assert err <= rel * scale + floor, (name, err, scale)
        worst[name] = err / scale if scale > 0 else err
    return worst


@pytest.mark.parametrize("t_end", [0.5, pytest.param(5.0, marks=pytest.mark.slow)])
def test_frictional_pendulum_spatial_reading_matches_the_planar_one(t_end):
    """The shipped example (LuGre revolute, pin_radius 5 mm, friction_arm 7, bending arm 5,
    N mm s units) read both ways: WZ and every FRICTION(1, k) request, the normal load and
    the slip. By default over 0.5 s (the first swing and its turn; the spatial Python path
    takes ~12-30 ms a step and the held bristle state ~3700 steps a second), the model's
    5 s as a slow test. The planar reading's axial load and bending moment are exactly zero
    in the plane; the spatial reading's are zero to round-off, so the loads agree."""
    text = EXAMPLE.read_text()
    comps = "".join(f' expr{k}="FRICTION(1,{k + 8})"' for k in range(1, 11))
    extra = (f'<Post_Request id="3" type="EXPRESSION"{comps}/>'
             '<Post_Request id="4" type="EXPRESSION" expr1="FRICTION(1,1)"'
             ' expr2="FRICTION(1,2)" expr3="FRICTION(1,3)" expr4="FRICTION(1,4)"'
             ' expr5="FRICTION(1,5)" expr6="FRICTION(1,6)" expr7="FRICTION(1,7)"'
             ' expr8="FRICTION(1,8)"/>')
    text = text.replace("</Model>", extra + "\n</Model>")
    # over 5 s the two readings' own integration errors at rtol 1e-11 reach 1.0e-9 relative
    # in a FRICTION component (measured on an AMD EPYC): the model's equivalence is checked at
    # rtol 1e-12 there
    (mp, rp), (ms, rs) = _both(text, t_end, rtol=1e-11 if t_end < 1.0 else 1e-12)
    assert ms.system.constraint_names == [f"Joint_0.{c}" for c in
                                          ("f", "g", "h", "perp1", "perp2")]
    assert list(ms.outputs) == list(mp.outputs)
    worst = _agree(rp, rs, mp.outputs)
    assert np.max(np.abs(rp["req1.expr2"])) > 10  # it swings
    assert np.max(np.abs(rp["req2.expr8"])) > 30  # N mm about the J z-axis
    # the nonzero components: 6 (torque about J z), 12 (rotational coefficient), 18 (slip)
    for name in ("req2.expr8", "req3.expr4", "req3.expr10"):
        assert np.max(np.abs(rs[name])) > 0.1, name
    np.testing.assert_allclose(rs["Joint_0.N"], rp["N"], rtol=1e-9)
    np.testing.assert_allclose(rs["Joint_0.slip"], rp["v_T"], rtol=0, atol=1e-12)
    assert np.max(np.abs(rs["Joint_0.N_axial"])) < 1e-9 and np.max(
        np.abs(rs["Joint_0.N_bending"])) < 1e-9
    # the rotational slip (mm/s) is pin_radius * WZ(I, J, J)
    np.testing.assert_allclose(rs["req3.expr10"], 5.0 * rs["req1.expr2"], rtol=1e-12,
                               atol=1e-9)
    assert max(worst.values()) < 1e-9, worst


SLIDE = """<MultiBodySystem><Model>
<Param_Unit force_unit="NEWTON" mass_unit="KILOGRAM" length_unit="MILLIMETER" time_unit="SECOND"/>
<Reference_Marker id="2" body_id="10" a00="{s}" a10="0" a20="{mc}" a02="{c}" a12="0" a22="{s}"/>
<Reference_Marker id="3" body_id="20" a00="{s}" a10="0" a20="{mc}" a02="{c}" a12="0" a22="{s}"/>
<Reference_Marker id="4" body_id="20" pos_x="10" pos_z="5"/>
<Body_Rigid id="10" IsGround="TRUE"/>
<Body_Rigid id="20" label="block" cg_id="4" mass="2" inertia_xx="100" inertia_yy="100"
            inertia_zz="100"/>
<Constraint_Joint id="100" label="slide" type="TRANSLATIONAL" i_marker_id="3" j_marker_id="2"/>
<Force_Gravity grav_z="-9810"/>
<Force_JointFriction id="7" joint_id="100" mu_static="0.3" mu_dynamic="0.2"
                     initial_overlap="50" force_preload="0.5"/>
<Post_Request id="1" expr1="DZ(3,2,2)" expr2="VZ(3,2,2)" expr3="FRICTION(7,1)"
              expr4="FRICTION(7,2)" expr5="FRICTION(7,3)" expr6="FRICTION(7,9)"
              expr7="FRICTION(7,15)" expr8="FRICTION(7,6)"/>
</Model><Command><Simulate end_time="0.3" num_step="30"/></Command></MultiBodySystem>"""


def test_frictional_slide_spatial_reading_matches_the_planar_one():
    """A block on a 30 degree slide whose centre of mass overhangs the joint (a bending load
    over the 50 mm overlap) with a force preload, read both ways: the friction force along J
    z, its coefficient and the slip (the translational sign convention of both readings). The
    coefficient is ``|F| / N`` with ``N`` the whole normal load in both readings (reaction,
    bending, preload: the planar one divided by the reaction alone before, 0.283 against the
    spatial 0.214 here)."""
    c, s = math.cos(math.pi / 6), math.sin(math.pi / 6)
    text = SLIDE.format(s=s, c=c, mc=-c)
    (mp, rp), (ms, rs) = _both(text, 0.3)
    worst = _agree(rp, rs, mp.outputs)
    assert np.max(np.abs(rs["req1.expr5"])) > 1.0  # N along the slide
    assert np.max(np.abs(rs["slide.N_bending"])) > 0.1
    np.testing.assert_allclose(rs["req1.expr7"], rs["req1.expr2"], rtol=1e-12, atol=1e-9)
    assert max(worst.values()) < 1e-9, worst


# the frictional joint types on their own: J marker 1 (ground, turned), I marker 3 and the
# CM marker 2 on the body (its axes those of the J marker; the ball's the global axes: it
# spins about the vertical)
_TURN = ' psi="0.3" theta="0.7" phi="-0.2"'
_ALONG_X = ' a00="0" a10="1" a20="0" a02="1" a12="0" a22="0"'  # z along global x
FRICTION_CASES = {
    # type: (J axes, CM position, velocity attributes, friction attributes)
    "SPHERICAL": (_TURN, ' pos_z="-0.5"', 'w_ic_z="10"', 'ball_radius="0.02"'),
    "REVOLUTE": (_ALONG_X, ' pos_x="0.12"', 'w_ic_z="20"',
                 'pin_radius="0.02" friction_arm="0.04" bending_reaction_arm="0.05"'),
    "TRANSLATIONAL": (_ALONG_X, "", 'v_ic_x="2"',
                      'initial_overlap="0.5" reaction_arm="0.05" force_preload="1"'),
    "CYLINDRICAL": (_ALONG_X, "", 'v_ic_x="1" w_ic_z="30"',
                    'pin_radius="0.05" initial_overlap="0.5" torque_preload="0.01"'),
}


def _frictional_joint(jtype, friction="", extra=""):
    axes, cm, vel, arms = FRICTION_CASES.get(jtype, ("", "", "", ""))
    markers = f"""
<Reference_Marker id="1" body_id="10"{axes}/>
<Reference_Marker id="2" body_id="20"{cm}{"" if jtype == "SPHERICAL" else axes}/>
<Reference_Marker id="3" body_id="20"{axes}/>
"""
    body = ('<Body_Rigid id="20" label="arm" cg_id="2" mass="2" inertia_xx="0.03" '
            f'inertia_yy="0.03" inertia_zz="0.005" {vel}/>')
    joint = (f'<Constraint_Joint id="100" label="j" type="{jtype}" i_marker_id="3" '
             'j_marker_id="1"/>')
    fr = friction or (f'<Force_JointFriction id="4" joint_id="100" mu_static="0.4" '
                      f'mu_dynamic="0.3" bristle_stiffness="1e5" damping_effects="10" '
                      f'{arms}/>')
    req = ('<Post_Request id="5" type="EXPRESSION"'
           + "".join(f' expr{k}="FRICTION(4,{k})"' for k in range(1, 19))
           + ' expr19="WX(3,1,1)" expr20="WY(3,1,1)" expr21="WZ(3,1,1)"'
           ' expr22="VZ(3,1,1)"/>')
    return xml(markers, body, joint, fr + req + extra, t_end="0.02", steps="2")


@pytest.mark.parametrize("jtype", list(FRICTION_CASES))
def test_each_frictional_joint_type_is_read_and_runs(jtype):
    """A Force_JointFriction on each supported type becomes the spatial joint's LuGre
    friction with the attributes under the joint's keywords (SI); a short run; the FRICTION
    components along the J marker's axes against the joint frame's outputs and the measured
    slips (``r WX/WY/WZ(I, J, J)``, ``VZ(I, J, J)``)."""
    model = loads_motionsolve(_frictional_joint(jtype), "fr", family="spatial")
    joint = model.system.model.joints[0]
    spec = joint.friction
    assert spec is not None and spec.law == "lugre" and (spec.mu, spec.mu_s) == (0.3, 0.4)
    assert spec.params["sigma0"] == 1e5 and spec.params["sigma1"] == 10.0
    expected = {"SPHERICAL": {"ball_radius": 0.02},
                "REVOLUTE": {"pin_radius": 0.02, "friction_arm": 0.04, "bending_arm": 0.05},
                "TRANSLATIONAL": {"initial_overlap": 0.5, "reaction_arm": 0.05,
                                  "force_preload": 1.0},
                "CYLINDRICAL": {"pin_radius": 0.05, "initial_overlap": 0.5,
                                "torque_preload": 0.01}}[jtype]
    for key, value in expected.items():
        assert spec.arms[key] == value, key
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = nonsmooth.simulate(model, 0.02, dt=0.01)
    assert r.status == 0, r.message
    assert np.all(r["j.N"] > 0)
    comps = np.column_stack([r[f"req5.expr{k}"] for k in range(1, 19)])
    A_J = read_motionsolve_text(_frictional_joint(jtype), "spatial").markers[1].axes
    P = A_J.T @ joint.world_frame()  # J axes <- the joint frame (f, g, h)
    F = np.column_stack([r[f"j.Ff_{c}"] for c in "fgh"])
    T = np.column_stack([r[f"j.Tf_{c}"] for c in "fgh"])
    np.testing.assert_allclose(comps[:, 0:3], F @ P.T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(comps[:, 3:6], T @ P.T, rtol=0, atol=1e-12)
    w = np.column_stack([r[f"req5.expr{k}"] for k in (19, 20, 21)])  # rad/s, J axes
    radius = expected.get("ball_radius", expected.get("pin_radius"))
    if jtype == "SPHERICAL":
        np.testing.assert_allclose(comps[:, 15:18], radius * w, rtol=1e-12, atol=1e-12)
        # the spin is about the world vertical: so is the friction torque
        world = comps[:, 3:6] @ A_J.T
        assert np.max(np.abs(world[1:, :2])) < 1e-9 * np.max(np.abs(world[1:, 2]))
        assert np.all(world[1:, 2] < 0)  # against the spin
    if jtype in ("REVOLUTE", "CYLINDRICAL"):
        np.testing.assert_allclose(comps[:, 17], radius * w[:, 2], rtol=1e-12, atol=1e-12)
        assert np.all(comps[:, [0, 1, 3, 4, 15, 16]] == 0)
        np.testing.assert_allclose(comps[:, 11], np.abs(comps[:, 5]) / (radius * r["j.N"]),
                                   rtol=1e-12)
    if jtype in ("TRANSLATIONAL", "CYLINDRICAL"):
        np.testing.assert_allclose(comps[:, 14], r["req5.expr22"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(comps[:, 8], np.abs(comps[:, 2]) / r["j.N"], rtol=1e-12)
        assert np.all(comps[1:, 2] < 0)  # it slides forward: friction backward
        assert np.all(comps[:, [0, 1, 12, 13]] == 0)


@pytest.mark.parametrize("jtype", ["UNIVERSAL", "HOOKE"])
@pytest.mark.parametrize("yoke, pairs", [(None, ["j.yoke_a", "j.yoke_b"]),
                                         ("I_YOKE", ["j.yoke_b"]), ("J_YOKE", ["j.yoke_a"])])
def test_universal_joint_friction_is_read(jtype, yoke, pairs):
    """A Force_JointFriction on a universal or Hooke joint: one pair per cross axis, or the
    one ``yoke_choice`` names (I_YOKE: the cross axis of the I body, ``body_b``); a short run."""
    extra = f' yoke_choice="{yoke}"' if yoke else ""
    friction = ('<Force_JointFriction id="4" joint_id="100" mu_static="0.2" '
                f'mu_dynamic="0.1" pin_radius="0.005"{extra}/>')
    model = loads_motionsolve(_one_joint(jtype, friction), "u", family="spatial")
    assert [p.name for p in model.system.pairs] == pairs
    assert model.system.model.joints[0].friction.arms["pin_radius"] == 0.005
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = nonsmooth.simulate(model, 0.01, dt=0.005)
    assert r.status == 0, r.message
    assert np.all(r[f"{pairs[0]}.N"] >= 0)


def test_other_friction_refusals():
    friction = ('<Force_JointFriction id="4" joint_id="100" mu_static="0.2" '
                'mu_dynamic="0.1"{}/>')
    _one_line(_one_joint("FIXED", friction.format("")), r"Force_JointFriction id=4: joint "
              "friction on a FIXED joint does not exist")
    model = loads_motionsolve(_one_joint("TRANSLATIONAL",
                                         friction.format(' overlap_delta="INCREASE"')), "t",
                              family="spatial")
    assert model.system.model.joints[0].friction.arms["overlap_delta"] == "increase"
    assert model.system.variable_norm_weights
    _one_line(_one_joint("SPHERICAL", friction.format(' inputs="12"')),
              r"Force_JointFriction id=4: inputs = '12': give 4 bits")
    # a frictional pendulum read spatially is no longer refused
    text = _frictionless_pendulum().replace(
        "</Model>", friction.format("").replace('"100"', '"301001"') + "</Model>")
    model = loads_motionsolve(text, "p", family="spatial")
    assert model.system.model.joints[0].friction.law == "lugre"
