"""The spatial family on the Python path (``nonsmooth.spatial``, ``docs/design/spatial.md``),
checked against references written apart from it: Euler's closed form of a torque-free body (Jacobi
elliptic functions, ``tests/oracles/rigid_body.py``), Newton-Euler equations written here from the
recorded motion, the planar family's crank-rocker, inverse dynamics of driven joints and
finite differences of the constraints along the motion."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from rigid_body import euler_closed_form
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.errors import ModelError
from nonsmooth.spatial import (
    Body,
    Cylindrical,
    Driver,
    Fixed,
    Force,
    Gravity,
    PointOnLine,
    Revolute,
    SpatialModel,
    SpatialSystem,
    Spherical,
    Spring,
    Torque,
    Translational,
    Universal,
    ground,
)
from nonsmooth.spatial import rotation as rot

ROOT = Path(__file__).resolve().parents[2]
G_ACC = 9.81


def _relative(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b)))


def _R(q_row: np.ndarray, i: int) -> np.ndarray:
    return rot.rotation_matrix(q_row[7 * i + 3:7 * i + 7])


# ============================================================ 1. torque-free asymmetric body
J_FREE = np.array([1.0, 2.0, 3.0])  # kg m^2, J1 < J2 < J3
OMEGA_REF = np.array([0.0, 1.0, 0.1])  # rad/s, near the intermediate axis
K_REF = euler_closed_form(J_FREE, OMEGA_REF, 0.0)[2]
TAU0 = 0.3 * K_REF
OMEGA, LAM, _, M_PARAM = euler_closed_form(J_FREE, OMEGA_REF, TAU0)
PERIOD = 4 * K_REF / LAM
P_FREE = rot.from_axis_angle((1.0, -2.0, 0.5), 0.8)  # not the identity: world != body axes


def _flip(t, q, v):
    return v[4]  # omega'_2 (body axes)


@pytest.fixture(scope="module")
def free_body():
    """Three periods (six flips about the intermediate axis) of a free flying body built with
    SpatialModel: its angular velocity given in world axes, its centre of mass moving."""
    mdl = SpatialModel("free body")
    w_world = rot.rotation_matrix(P_FREE) @ OMEGA(0.0)
    mdl.add(Body("b", mass=2.0, inertia=J_FREE, position=(1.0, 2.0, 3.0), orientation=P_FREE,
                 velocity=(0.1, -0.2, 0.3), angular_velocity=w_world))
    return nonsmooth.simulate(mdl, (0.0, 3 * PERIOD), rtol=1e-11, atol=1e-13, dt=0.05,
                              events=[_flip])


def test_free_body_follows_eulers_closed_form(free_body):
    r = free_body
    assert r.success and r.method == "DOP853" and M_PARAM > 0.9
    w = np.column_stack([r["b.wx"], r["b.wy"], r["b.wz"]])
    err = _relative(w.T, OMEGA(r.t))
    assert err < 1e-9, err  # measured 9.2e-11


def test_free_body_flip_times(free_body):
    t_flip = free_body.t_events["_flip"]
    want = (2 * K_REF * np.arange(1, 7) - TAU0) / LAM
    assert t_flip.size == 6
    err = float(np.max(np.abs(t_flip - want) / want))
    assert err < 1e-9, err  # measured 2e-12


def test_free_body_invariants(free_body):
    r = free_body
    E = r.T
    assert _relative(E, np.full_like(E, E[0])) < 1e-10  # measured 3.0e-11
    L = np.array([_R(q, 0) @ (J_FREE * v[3:]) for q, v in zip(r.q, r.v, strict=True)])
    h = np.linalg.norm(L, axis=1)
    assert _relative(h, np.full_like(h, h[0])) < 1e-10  # measured 1.7e-11
    assert _relative(L, np.tile(L[0], (len(L), 1))) < 5e-10  # the world vector itself: 8e-11
    # the world angular velocity output is R omega'
    w_world = np.column_stack([r[f"b.w{c}_world"] for c in "xyz"])
    np.testing.assert_allclose(w_world[0], rot.rotation_matrix(P_FREE) @ OMEGA(0.0),
                               rtol=0, atol=1e-14)
    # free flight of the centre of mass
    np.testing.assert_allclose(r["b.x"], 1.0 + 0.1 * r.t, rtol=0, atol=1e-11)
    np.testing.assert_allclose(r["b.vz"], 0.3, rtol=0, atol=1e-13)
    # |p| = 1 at step ends; the outputs between them from the dense output
    assert np.max(np.abs(np.linalg.norm(r.q[:, 3:], axis=1) - 1.0)) < 1e-10  # 4e-11


# ============================================================ 2. pendulums vs Newton-Euler
def _spherical_pendulum():
    """A heavy asymmetric body on a spherical joint at the origin, started off the vertical
    with a spin and a swing (consistent velocities): a genuinely 3-D motion."""
    mdl = SpatialModel("spherical pendulum")
    c = np.array([0.2, 0.1, -0.8])  # centre of mass (m); the joint at the origin
    w = np.array([1.5, -0.7, 2.0])  # rad/s, world
    p = rot.from_axis_angle((0.3, 1.0, 0.2), 0.4)
    mdl.add(Body("bob", 2.0, (0.05, 0.08, 0.1), position=c, orientation=p,
                 velocity=np.cross(w, c), angular_velocity=w))
    mdl.add(Spherical("pin", ground, mdl.bodies[0], point=(0.0, 0.0, 0.0)))
    mdl.add(Gravity(G_ACC))
    return mdl


def _double_pendulum():
    """Two bodies on revolute joints with crossed axes: the first about world x at the
    origin, the second about the first's long axis (world z at the start) at its end, its
    centre of mass off that axis; both moving at the start."""
    mdl = SpatialModel("double pendulum")
    w1 = np.array([1.2, 0.0, 0.0])
    c1, P2, c2 = np.array([0.0, 0.0, -0.5]), np.array([0.0, 0.0, -1.0]), np.array(
        [0.3, 0.1, -1.1])
    w2 = w1 + np.array([0.0, 0.0, 2.5])
    b1 = mdl.add(Body("b1", 1.0, (0.09, 0.08, 0.01), position=c1, velocity=np.cross(w1, c1),
                      angular_velocity=w1))
    b2 = mdl.add(Body("b2", 0.7, (0.02, 0.03, 0.04), position=c2,
                      orientation=rot.from_axis_angle((0, 0, 1), 0.3),
                      velocity=np.cross(w1, P2) + np.cross(w2, c2 - P2), angular_velocity=w2))
    mdl.add(Revolute("p1", ground, b1, point=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0)))
    mdl.add(Revolute("p2", b1, b2, point=P2, axis=(0.0, 0.0, 1.0)))
    mdl.add(Gravity(G_ACC))
    return mdl


@pytest.fixture(scope="module")
def spherical_run():
    return nonsmooth.simulate(_spherical_pendulum(), 3.0, rtol=1e-11, atol=1e-13, dt=0.01)


@pytest.fixture(scope="module")
def double_run():
    return nonsmooth.simulate(_double_pendulum(), 3.0, rtol=1e-11, atol=1e-13, dt=0.01)


def _newton_euler(body, i, q, v, dv):
    """Body ``i``'s ``(m a - m g (world), J domega' + omega' x J omega' (body axes))`` at a
    recorded row: what the joints' reactions must supply."""
    a, dw, w = dv[6 * i:6 * i + 3], dv[6 * i + 3:6 * i + 6], v[6 * i + 3:6 * i + 6]
    J = body.J
    return (body.mass * a - body.mass * np.array([0.0, 0.0, -G_ACC]),
            J @ dw + np.cross(w, J @ w))


def _reaction(r, joint):
    F = np.column_stack([r[f"{joint}.F{c}"] for c in "xyz"])
    T = np.column_stack([r[f"{joint}.T{c}"] for c in "xyz"])
    return F, T


def test_spherical_pendulum_reactions_are_newton_eulers(spherical_run):
    r = spherical_run
    assert r.success and r.q.shape[1] == 7 and r.v.shape[1] == 6
    bob = r.model.system.model.bodies[0]
    s = bob.local_point(np.zeros(3))  # the joint point in body axes
    F, T = _reaction(r, "pin")
    errF = errM = 0.0
    for k in range(len(r.t)):
        need_F, need_M = _newton_euler(bob, 0, r.q[k], r.v[k], r.dv[k])
        R = _R(r.q[k], 0)
        errF = max(errF, float(np.max(np.abs(F[k] - need_F))))
        # Euler's equations about the centre of mass: the reaction's moment, no couple
        errM = max(errM, float(np.max(np.abs(need_M - np.cross(s, R.T @ F[k])))))
    scale = bob.mass * G_ACC
    assert errF / scale < 1e-8, errF / scale  # measured 0 (roundoff)
    assert errM / scale < 1e-8, errM / scale  # measured 5e-16
    assert np.max(np.abs(T)) / scale < 1e-12  # a ball joint transmits no couple
    assert np.ptp(F[:, 0]) > 1.0  # a genuinely varying 3-D load


def test_double_pendulum_reactions_are_newton_eulers(double_run):
    r = double_run
    b1, b2 = r.model.system.model.bodies
    P2 = np.array([0.0, 0.0, -1.0])
    s1, s12, s2 = b1.local_point(np.zeros(3)), b1.local_point(P2), b2.local_point(P2)
    F1, T1 = _reaction(r, "p1")
    F2, T2 = _reaction(r, "p2")
    errs = []
    for k in range(len(r.t)):
        q, v, dv = r.q[k], r.v[k], r.dv[k]
        R1, R2 = _R(q, 0), _R(q, 1)
        need_F2, need_M2 = _newton_euler(b2, 1, q, v, dv)
        need_F1, need_M1 = _newton_euler(b1, 0, q, v, dv)
        want_F2 = need_F2
        want_T2 = R2 @ (need_M2 - np.cross(s2, R2.T @ want_F2))
        want_F1 = need_F1 + want_F2  # body 1 also feels -F2, -T2 at P2
        want_T1 = R1 @ (need_M1 - np.cross(s1, R1.T @ want_F1)
                        + np.cross(s12, R1.T @ want_F2)) + want_T2
        errs.append([np.max(np.abs(F1[k] - want_F1)), np.max(np.abs(F2[k] - want_F2)),
                     np.max(np.abs(T1[k] - want_T1)), np.max(np.abs(T2[k] - want_T2))])
        # a hinge transmits no couple about its own axis
        assert abs(T1[k] @ (R1 @ np.array([1.0, 0, 0]))) < 1e-10
        assert abs(T2[k] @ (R1 @ np.array([0, 0, 1.0]))) < 1e-10
    err = float(np.max(errs)) / (b1.mass * G_ACC)
    assert err < 1e-8, err  # measured 8e-16
    assert np.ptp(T2[:, 0]) > 0.1 and np.ptp(F1[:, 1]) > 1.0  # loads in 3-D


@pytest.mark.parametrize("which", ["spherical_run", "double_run"])
def test_pendulums_conserve_energy(which, request):
    r = request.getfixturevalue(which)
    E = r.T + r.V
    scale = float(np.max(r.T) + np.max(np.abs(r.V)))
    err = float(np.max(np.abs(E - E[0]))) / scale
    assert err < 1e-9, err  # measured 3e-13 (spherical), 7e-14 (double)
    assert r.diagnostics["max_drift_position"] < 1e-9
    assert np.max(np.abs(np.linalg.norm(r.q.reshape(len(r.t), -1, 7)[:, :, 3:], axis=2)
                         - 1.0)) < 1e-11



def test_inconsistent_initial_velocities_are_projected():
    """A pendulum started with a velocity along its rod: the run starts from the least-norm
    correction onto the joint (as the planar family's), the rod's stretch rate removed."""
    mdl = SpatialModel("pushed")
    bob = mdl.add(Body("bob", 1.0, (0.01, 0.01, 0.01), position=(0.0, 0.0, -1.0),
                       velocity=(0.5, 0.0, -2.0)))
    mdl.add(Spherical("pin", ground, bob, (0.0, 0.0, 0.0)))
    mdl.add(Gravity(G_ACC))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    assert np.max(np.abs(system.terms(0.0, q0, v0).G @ v0)) == pytest.approx(2.0)
    r = nonsmooth.simulate(mdl, 0.5, rtol=1e-10, dt=0.01)
    G = system.terms(0.0, r.q[0], r.v[0]).G
    assert np.max(np.abs(G @ r.v[0])) < 1e-12
    assert r.v[0, 2] == pytest.approx(0.0, abs=1e-12) and r.v[0, 0] != 0.0
    assert r.diagnostics["max_drift_velocity"] < 1e-9

# ============================================================ 3. a planar mechanism, spatially
#: The crank-rocker's parameters (``models/crank_rocker.py``'s defaults), frictionless.
CR = dict(J1=16 / 3, m1=4.0, L1=1.0, J2=1 / 6, m2=2.0, L2=0.25, m3=0.5, L3=0.5, L4=1.0,
          omega=3.0, g=9.81)


def _crank_rocker_planar():
    """``models/crank_rocker.py``'s planar form (``_build_planar``) without the slot's friction
    and damping: rocker and crank rigid bodies, the slider a point mass."""
    from nonsmooth.planar import Body as PlanarBody
    from nonsmooth.planar import PlanarModel, PointMass
    from nonsmooth.planar import ground as planar_ground
    from nonsmooth.planar.forces import Gravity as PlanarGravity
    from nonsmooth.planar.joints import Driver as PlanarDriver
    from nonsmooth.planar.joints import Revolute as PlanarRevolute
    from nonsmooth.planar.joints import Translational as PlanarTranslational

    p = CR
    w1 = p["omega"] * p["L3"] / (p["L3"] + p["L4"])
    mdl = PlanarModel("crank-rocker, planar")
    rocker = mdl.add(PlanarBody("rocker", p["m1"], p["J1"] - p["m1"] * p["L1"] ** 2,
                                position=(0.0, p["L1"]), angle=math.pi / 2,
                                angular_velocity=-w1))
    crank = mdl.add(PlanarBody("crank", p["m2"], p["J2"] - p["m2"] * p["L2"] ** 2,
                               position=(0.0, p["L4"] + p["L2"]), angle=math.pi / 2,
                               angular_velocity=-p["omega"]))
    slider = mdl.add(PointMass("slider", p["m3"], position=(0.0, p["L4"] + p["L3"])))
    mdl.add(PlanarRevolute("O", planar_ground, rocker, (0.0, 0.0), (-p["L1"], 0.0)))
    pin = mdl.add(PlanarRevolute("O1", planar_ground, crank, (0.0, p["L4"]), (-p["L2"], 0.0)))
    mdl.add(PlanarRevolute("B", crank, slider, (p["L3"] - p["L2"], 0.0), (0.0, 0.0)))
    mdl.add(PlanarTranslational("slot", rocker, slider, (-p["L1"], 0.0), (1.0, 0.0)))
    mdl.add(PlanarDriver("drive", pin, speed=-p["omega"], initial=math.pi / 2))
    mdl.add(PlanarGravity(g=p["g"]))
    return mdl


def _crank_rocker_spatial():
    """The same mechanism in space: revolute axes along z, motion in the x-y plane, gravity
    along -y. The slider is a body whose centre of mass is on a line of the rocker (the slot)
    and on the crank's line through B parallel to z (two PointOnLine joints: 15 independent
    rows, no planar loop over-constrained); every force on it acts at its centre of mass, so
    it does not turn, as the planar point mass."""
    p = CR
    w1 = p["omega"] * p["L3"] / (p["L3"] + p["L4"])
    om, L1, L2, L3, L4 = p["omega"], p["L1"], p["L2"], p["L3"], p["L4"]
    Jr, Jc = p["J1"] - p["m1"] * L1 ** 2, p["J2"] - p["m2"] * L2 ** 2
    mdl = SpatialModel("crank-rocker, spatial")
    rocker = mdl.add(Body("rocker", p["m1"], (Jr, 0.1 * Jr, Jr), position=(0.0, L1, 0.0),
                          velocity=(w1 * L1, 0.0, 0.0), angular_velocity=(0.0, 0.0, -w1)))
    crank = mdl.add(Body("crank", p["m2"], (Jc, 0.1 * Jc, Jc), position=(0.0, L4 + L2, 0.0),
                         velocity=(om * L2, 0.0, 0.0), angular_velocity=(0.0, 0.0, -om)))
    slider = mdl.add(Body("slider", p["m3"], 1e-3, position=(0.0, L4 + L3, 0.0),
                          velocity=(om * L3, 0.0, 0.0)))
    z = (0.0, 0.0, 1.0)
    mdl.add(Revolute("O", ground, rocker, (0.0, 0.0, 0.0), z))
    pin = mdl.add(Revolute("O1", ground, crank, (0.0, L4, 0.0), z))
    mdl.add(PointOnLine("B", crank, slider, (0.0, L4 + L3, 0.0), z))
    mdl.add(PointOnLine("slot", rocker, slider, (0.0, L4 + L3, 0.0), (0.0, 1.0, 0.0)))
    mdl.add(Driver("drive", pin, speed=-om))
    mdl.add(Gravity(p["g"], direction=(0.0, -1.0, 0.0)))
    return mdl


def test_crank_rocker_built_spatially_is_the_planar_one():
    """Angles, the driving torque and the reactions at O, B and in the slot over a whole crank
    turn (2.5 s at 3 rad/s: the driver's angle wraps past -pi)."""
    kw = dict(rtol=1e-12, atol=1e-13, dt=0.01)
    rp = nonsmooth.simulate(_crank_rocker_planar(), 2.5, **kw)
    rs = nonsmooth.simulate(_crank_rocker_spatial(), 2.5, **kw)
    assert rp.success and rs.success and rs.q.shape[1] == 21
    np.testing.assert_array_equal(rp.t, rs.t)
    th_r = rp["rocker.angle"]
    assert abs(rs["O1.angle"][-1] + 7.5) < 1e-9  # a whole turn and more, unwrapped
    err_angle = max(float(np.max(np.abs(rs["O.angle"] + math.pi / 2 - th_r))),
                    float(np.max(np.abs(rs["O1.angle"] + math.pi / 2 - rp["crank.angle"]))))
    assert err_angle < 1e-9, err_angle  # measured 9e-13
    torque = rp["drive.torque"]
    assert _relative(rs["drive.torque"], torque) < 1e-9  # measured 3e-12
    # the planar slot force: lambda_N along the slot normal (the axis turned clockwise)
    slot = rp["slot.normal"][:, None] * np.column_stack([np.sin(th_r), -np.cos(th_r)])
    want = {"O": (rp["O.x"], rp["O.y"]), "B": (rp["B.x"], rp["B.y"]),
            "slot": (slot[:, 0], slot[:, 1])}
    scale = max(float(np.max(np.abs(np.concatenate(w)))) for w in want.values())
    for name, (fx, fy) in want.items():
        err = max(float(np.max(np.abs(rs[f"{name}.Fx"] - fx))),
                  float(np.max(np.abs(rs[f"{name}.Fy"] - fy)))) / scale
        assert err < 1e-9, (name, err)  # measured O 5e-12, B 6e-12, slot 6e-12
        assert np.max(np.abs(rs[f"{name}.Fz"])) < 1e-12 * scale  # nothing out of the plane
    assert np.max(np.abs(rs["slider.wz"])) < 1e-12  # the slider does not turn


# ============================================================ 4. inputs, drivers, forces
def _box(name="b", **kw):
    return Body(name, 1.0, (0.1, 0.2, 0.25), **kw)


@pytest.mark.parametrize("make, match", [
    (lambda: Body("b", -1.0, 1.0), r"mass of body 'b': -1.0 is invalid; it must be a finite "
                                   r"number > 0"),
    (lambda: Body("b", 1.0, (1.0, 1.0, 3.0)), r"violate the triangle inequality J1 \+ J2 >= J3"),
    (lambda: Body("b", 1.0, (1.0, -1.0, 1.0)), r"must all be > 0 \(the tensor must be "
                                               r"symmetric positive definite\)"),
    (lambda: Body("b", 1.0, [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "is not symmetric"),
    (lambda: Body("b", 1.0, (1, 2)), r"shape \(2,\) is invalid"),
    (lambda: _box(orientation=(1.0, 0.0, 0.0, 0.1)), r"orientation of body 'b': .* is not a "
                                                     r"unit quaternion \(\|p\| = 1.00498756"),
    (lambda: _box(orientation=np.diag([1.0, 1.0, -1.0])), "the matrix is not a rotation"),
    (lambda: _box(position=(0.0, np.nan, 0.0)), "position of body 'b' must be finite"),
    (lambda: Body("", 1.0, 1.0), "body name '' is invalid"),
    (lambda: Revolute("r", ground, _box(), axis=(0.0, 0.0, 0.0)),
     r"revolute 'r': axis = \[0.0, 0.0, 0.0\] has no direction"),
    (lambda: (lambda b: Spherical("s", b, b))(_box()), "spherical 's': body_a and body_b are "
                                                       "the same body"),
    (lambda: Spherical("s", ground, "b"), "body_b must be a nonsmooth.spatial.Body"),
    (lambda: Universal("u", ground, _box(), axis_a=(1, 0, 0), axis_b=(1, 1, 0)),
     "axis_a and axis_b must be perpendicular"),
    (lambda: Driver("d", Spherical("s", ground, _box())), "driver 'd': joint must be a spatial "
                                                          "Revolute, Translational"),
    (lambda: Driver("d", Cylindrical("c", ground, _box()), speed=1.0), "give coordinate="),
    (lambda: Driver("d", Revolute("r", ground, _box())), "give exactly one of position"),
    (lambda: Force("f", _box(), (1.0, 2.0)), r"force 'f': force must be three numbers"),
    (lambda: Torque("t", _box(), (1.0, 0, 0), frame="local"), "frame = 'local' is invalid"),
    # values far beyond any mechanism (1e300 overflowed in the first steps): refused with the
    # allowed range
    (lambda: Driver("d", Revolute("r", ground, _box()), speed=1e300),
     r"driver 'd': speed = 1e\+300 is out of range; it must be at most 1e\+06 rad/s"),
    (lambda: Driver("d", Translational("p", ground, _box()), speed=-1e300),
     r"driver 'd': speed = -1e\+300 is invalid; it must be a finite number >= -1e\+06"),
    (lambda: Driver("d", Revolute("r", ground, _box()), speed=1.0, initial=1e300),
     r"driver 'd': initial = 1e\+300 is out of range; it must be at most 1e\+06 rad"),
    (lambda: Spring("k", ground, _box(), (0, 0, 0), (0, 0, 1), 1.0, rest_length=1e300),
     r"spring 'k': rest_length = 1e\+300 is out of range; it must be at most 1e\+06 m"),
    (lambda: Force("f", _box(), (0.0, 1e300, 0.0)),
     r"force 'f': force = \[0.0, 1e\+300, 0.0\] is out of range; each component must be "
     r"within \+-1e\+15 N"),
    (lambda: Torque("t", _box(), (-1e300, 0.0, 0.0)), r"within \+-1e\+15 N m"),
    (lambda: _box(velocity=(1e300, 0.0, 0.0)), r"velocity of body 'b' = .* within \+-1e\+08 m/s"),
    (lambda: _box(angular_velocity=(0.0, 0.0, -1e300)), r"within \+-1e\+08 rad/s"),
    (lambda: Spring("k", ground, _box(), (0, 0, 0), (0, 0, 1), stiffness=-1.0),
     r"spring 'k': stiffness = -1.0 is invalid"),
])
def test_bad_inputs_raise_named_errors(make, match):
    with pytest.raises(ModelError, match=match):
        make()


def test_model_level_errors():
    mdl = SpatialModel("m")
    b, stray = mdl.add(_box()), _box("stray")
    mdl.add(Spherical("s", b, stray))
    with pytest.raises(ModelError, match="Spherical 's' uses body 'stray', which was not added"):
        mdl.compile()
    with pytest.raises(ModelError, match="body 'b': the name is taken by a body"):
        mdl.add(_box())
    with pytest.raises(ModelError, match="cannot add str"):
        mdl.add("b")
    with pytest.raises(ModelError, match="the model has no bodies"):
        SpatialModel("empty").compile()


@pytest.mark.parametrize("make", [
    lambda b: Spherical("b", ground, b),  # a joint named like a body: b.x would be both
    lambda b: Gravity(name="b"),
    lambda b: Force("b", b, (0.0, 0.0, 1.0)),
])
def test_a_name_taken_by_another_element_is_refused(make):
    """One name space for bodies, joints, drivers, forces and rotors: a joint named like a
    body would have its rows ``b.x ...`` shadowed by the body's coordinates."""
    mdl = SpatialModel("m")
    b = mdl.add(_box())
    element = make(b)
    with pytest.raises(ModelError, match=r"'b': the name is taken by a body added before"):
        mdl.add(element)
    # appended around add(): compile's validation names it too
    (mdl.joints if isinstance(element, Spherical) else mdl.forces).append(element)
    with pytest.raises(ModelError, match=r"duplicate names \['b'\]"):
        mdl.compile()


def test_redundant_constraints_are_refused_by_name():
    """A planar four-bar with five-row revolutes everywhere: 20 rows, rank 17 (three loop
    rows over-constrained), and a body held twice at one point."""
    mdl = SpatialModel("four-bar")
    z = (0.0, 0.0, 1.0)
    crank = mdl.add(_box("crank", position=(0.0, 0.5, 0.0)))
    coupler = mdl.add(_box("coupler", position=(1.0, 1.0, 0.0)))
    rocker = mdl.add(_box("rocker", position=(2.0, 0.5, 0.0)))
    for name, a, b, P in (("A", ground, crank, (0, 0, 0)), ("B", crank, coupler, (0, 1, 0)),
                          ("C", coupler, rocker, (2, 1, 0)), ("D", rocker, ground, (2, 0, 0))):
        mdl.add(Revolute(name, a, b, P, z))
    with pytest.raises(ModelError, match=r"20 rows but rank 17 .* rows \[.*\] are combinations") \
            as info:
        mdl.compile(redundant="refuse")
    rows = eval(str(info.value).split("rows ")[2].split(" are")[0])  # the list it names
    assert len(rows) == 3 and all(r.split(".")[1] in ("z", "perp1", "perp2") for r in rows)
    twice = SpatialModel("twice", redundant="refuse")
    b = twice.add(_box())
    twice.add(Spherical("s1", ground, b, (0, 0, 1)))
    twice.add(Spherical("s2", ground, b, (0, 0, 1)))
    with pytest.raises(ModelError, match=r"6 rows but rank 3"):
        twice.compile()


def test_revolute_driver_torque_is_inverse_dynamics():
    """A bar turned at constant speed about a horizontal principal axis through the pivot:
    the driving torque is the weight's moment, ``m g d sin(omega t)``."""
    m, d, om = 2.0, 0.4, 1.7
    mdl = SpatialModel("driven bar")
    bar = mdl.add(Body("bar", m, (0.05, 0.06, 0.02), position=(0.0, 0.0, -d),
                       velocity=(0.0, om * d, 0.0), angular_velocity=(om, 0.0, 0.0)))
    pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0)))
    mdl.add(Driver("motor", pin, speed=om))
    mdl.add(Gravity(G_ACC))
    r = nonsmooth.simulate(mdl, 5.0, rtol=1e-11, atol=1e-13, dt=0.01)  # more than a turn
    want = m * G_ACC * d * np.sin(om * r.t)
    assert r.units["motor.torque"] == "N m"
    err = float(np.max(np.abs(r["motor.torque"] - want))) / (m * G_ACC * d)
    assert err < 1e-9, err  # measured 4e-14
    np.testing.assert_allclose(r["pin.angle"], om * r.t, rtol=0, atol=1e-10)
    assert r.diagnostics["work"]["W_drive"] == pytest.approx(r.V[-1] - r.V[0], abs=1e-8)


def test_translational_driver_force_is_inverse_dynamics():
    """A block driven up and down a vertical slide by ``f(t) = A sin(w t)``: the driving force
    ``m (f'' + g)``; with the motion given alone (central differences) to 1e-6."""
    m, A, w = 1.5, 0.1, 3.0
    for position, tol in (((lambda t: A * np.sin(w * t), lambda t: A * w * np.cos(w * t),
                            lambda t: -A * w * w * np.sin(w * t)), 1e-9),
                          (lambda t: A * np.sin(w * t), 1e-6)):
        mdl = SpatialModel("driven block")
        block = mdl.add(Body("block", m, (0.1, 0.1, 0.1), position=(0.3, 0.0, 1.0),
                             velocity=(0.0, 0.0, A * w)))
        slide = mdl.add(Translational("slide", ground, block, (0.3, 0.0, 1.0), (0.0, 0.0, 1.0)))
        mdl.add(Driver("lift", slide, position=position))
        mdl.add(Gravity(G_ACC))
        r = nonsmooth.simulate(mdl, 3.0, rtol=1e-11, atol=1e-13, dt=0.01)
        want = m * (-A * w * w * np.sin(w * r.t) + G_ACC)
        err = float(np.max(np.abs(r["lift.force"] - want))) / (m * G_ACC)
        assert err < tol, err  # measured 8e-13 (derivatives given), 2e-9 (differences)
        np.testing.assert_allclose(r["slide.displacement"], A * np.sin(w * r.t), atol=1e-9)
        np.testing.assert_allclose(r["block.z"], 1.0 + A * np.sin(w * r.t), atol=1e-9)


def test_forces_and_torques_closed_forms():
    """A constant world force at the centre of mass (uniform acceleration), a world torque on
    an isotropic body at rest (uniform angular acceleration about a fixed axis) and a
    body-axes torque about a principal axis."""
    mdl = SpatialModel("loads")
    a = mdl.add(Body("a", 2.0, (0.1, 0.2, 0.25)))
    b = mdl.add(Body("b", 1.0, 0.5, position=(5.0, 0.0, 0.0),
                     orientation=rot.from_axis_angle((1, 1, 0), 0.7)))
    c = mdl.add(Body("c", 1.0, (0.1, 0.2, 0.25), position=(-5.0, 0.0, 0.0),
                     orientation=rot.from_axis_angle((0, 1, 1), 1.1)))
    mdl.add(Force("push", a, (1.0, -2.0, 0.5)))
    mdl.add(Torque("twist", b, lambda t: (0.0, 0.0, 0.3)))
    mdl.add(Torque("spin", c, (0.0, 0.0, 0.25), frame="body"))
    r = nonsmooth.simulate(mdl, 2.0, rtol=1e-11, atol=1e-13, dt=0.01)
    t = r.t
    np.testing.assert_allclose(np.column_stack([r["a.x"], r["a.y"], r["a.z"]]),
                               np.outer(t ** 2 / 4.0, (1.0, -2.0, 0.5)), atol=1e-10)
    np.testing.assert_allclose(r["b.wz_world"], 0.6 * t, atol=1e-10)
    np.testing.assert_allclose(r["c.wz"], t, atol=1e-10)  # 0.25 N m / 0.25 kg m^2
    W = r.diagnostics["work"]["W_applied"]
    assert W == pytest.approx(float(r.T[-1]), rel=1e-9)  # all applied work became kinetic


def test_spring_damper_energy_balance():
    """A body on a damped spring from the ground, swinging in 3-D: the run's energy balance
    (kinetic + potential = applied + damping work) closes."""
    mdl = SpatialModel("spring")
    b = mdl.add(Body("b", 1.0, (0.02, 0.03, 0.04), position=(0.3, 0.0, -1.0),
                     velocity=(0.0, 0.5, 0.0), angular_velocity=(0.5, 0.2, 0.1)))
    mdl.add(Spring("k", ground, b, (0.0, 0.0, 0.0), (0.3, 0.05, -0.9), stiffness=50.0,
                   rest_length=0.8, damping=0.5))
    mdl.add(Gravity(G_ACC))
    r = nonsmooth.simulate(mdl, 3.0, rtol=1e-11, atol=1e-13, dt=0.01)
    assert r.diagnostics["work"]["W_damping"] < -0.01  # it does dissipate (-0.047 J)
    assert r.diagnostics["energy_balance_scaled"] < 1e-9  # measured 1.1e-11


def test_primitives_against_finite_differences():
    """Every joint's and driver's ``G v + phi_t`` and ``-gamma`` against the first and second
    derivatives of ``phi`` along ``dq/dt = qdot(q, v)`` at a random state off the joints'
    manifolds (fourth-order differences of an accurate integration)."""
    rng = np.random.default_rng(1)

    def quat():
        return rot.normalized(rng.normal(size=4))

    mdl = SpatialModel("every joint")
    A = mdl.add(Body("A", 1.0, (1, 2, 2.5), position=(0.1, 0.2, 0.3), orientation=quat()))
    B = mdl.add(Body("B", 2.0, (1, 1.5, 2), position=(0.5, -0.2, 0.1), orientation=quat()))
    C = mdl.add(Body("C", 2.0, (1, 1.5, 2), position=(-0.5, 0.4, 0.1), orientation=quat()))
    r = mdl.add(Revolute("r", B, C, (0, 0.1, 0), (1, 2, 3)))
    c = mdl.add(Cylindrical("c", A, C, (0.2, 0.1, 0), (0, 1, 1)))
    t = mdl.add(Translational("t", ground, A, (0, 0, 0), (1, 0, 1)))
    for j in (Spherical("s", A, B, (0.3, 0, 0.2)), Universal("u", C, B, (0.1, 0.1, 0.1)),
              Fixed("f", B, ground, (0, 0, 1)), PointOnLine("l", C, A, (1, 1, 0), (0, 0, 1))):
        mdl.add(j)
    mdl.add(Driver("dr", r, position=(lambda t: 0.3 * np.sin(2 * t),
                                      lambda t: 0.6 * np.cos(2 * t),
                                      lambda t: -1.2 * np.sin(2 * t))))
    mdl.add(Driver("dt", t, speed=0.7, initial=0.1))
    mdl.add(Driver("dc", c, speed=0.3, coordinate="angle"))
    S = SpatialSystem(mdl)  # without the redundancy check: this one is over-constrained
    q = mdl.initial_state()[0]
    q[:3] += 0.05
    for i in range(3):
        q[7 * i + 3:7 * i + 7] = quat()
    v = rng.normal(size=S.n_v)
    t0, h = 0.4, 1e-3

    def phi_at(k):
        y = q if k == 0 else solve_ivp(lambda _, y: S.qdot(y, v), (0, k * h), q,
                                       method="DOP853", rtol=1e-13, atol=1e-15).y[:, -1]
        return S.terms(t0 + k * h, y, v).phi

    ph = {k: phi_at(k) for k in (-2, -1, 0, 1, 2)}
    d1 = (ph[-2] - 8 * ph[-1] + 8 * ph[1] - ph[2]) / (12 * h)
    d2 = (-ph[-2] + 16 * ph[-1] - 30 * ph[0] + 16 * ph[1] - ph[2]) / (12 * h * h)
    T0 = S.terms(t0, q, v)
    assert len(T0.phi) == 32
    assert np.max(np.abs(d1 - (T0.G @ v + T0.phi_t))) < 1e-10  # measured 3e-11
    assert np.max(np.abs(d2 + T0.gamma)) < 1e-8  # measured 1.3e-9 (roundoff / h^2)


# ============================================================ 5. a bundled model, the CLI
def test_bundled_model_runs_from_the_command_line(capsys, tmp_path):
    """``nonsmooth run models/spatial_double_pendulum.py`` (the file and the bundled name)
    runs end to end, prints its summary and writes its outputs; its energy is conserved."""
    from nonsmooth.cli import main
    from nonsmooth.models import build

    path = ROOT / "models" / "spatial_double_pendulum.py"
    out = tmp_path / "out.csv"
    assert main(["run", str(path), "--t-end", "1", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "status 0: the simulation reached the end time" in text
    assert "energy balance error" in text and "method DOP853" in text
    header = out.read_text().splitlines()[0].split(",")
    assert header == ["t", "theta1", "tip_x", "tip_y", "tip_z", "energy", "F_pin1"]
    assert main(["run", "spatial_double_pendulum", "--set", "joint2=spherical", "--t-end",
                 "0.5"]) == 0
    assert "status 0" in capsys.readouterr().out
    r = nonsmooth.simulate(build("spatial_double_pendulum"), 2.0, rtol=1e-11, atol=1e-13)
    E = r["energy"]
    assert np.max(np.abs(E - E[0])) / np.max(np.abs(r.V)) < 1e-9
    assert np.ptp(r["tip_x"]) > 0.1  # out of pin1's plane: a 3-D motion
    assert r["theta1"][0] == pytest.approx(1.0)
    # names: coordinates, velocities, element outputs
    assert r.coordinate_names[:7] == [f"rod1.{c}" for c in ("x", "y", "z", "qw", "qx", "qy",
                                                            "qz")]
    assert r.velocity_names[6:] == [f"rod2.{c}" for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
    assert r.constraint_names[:5] == ["pin1.x", "pin1.y", "pin1.z", "pin1.perp1", "pin1.perp2"]
    np.testing.assert_array_equal(r["rod2.wz"], r.v[:, 11])
    np.testing.assert_array_equal(r["rod1.qw"], r.q[:, 3])
    assert r.units["pin2.Fx"] == "N" and r.units["pin2.Tz"] == "N m"
    assert {"rod1.wx_world", "pin1.angle", "pin2.angle", "pin1.Fz"} <= set(r.available())


def test_the_csv_of_a_model_without_declared_outputs_has_every_body_then_the_elements(
        tmp_path, capsys):
    """As the planar family's: each body's position, quaternion and velocities (world, body
    axes), then the elements' outputs; the values are the run's ``q`` and ``v``."""
    from nonsmooth.cli import main

    mdl = SpatialModel("chain")
    a = mdl.add(_box("a", position=(0.0, 0.0, -0.5), angular_velocity=(1.0, 0.0, 0.0)))
    b = mdl.add(_box("b", position=(0.0, 0.0, -1.5)))
    mdl.add(Revolute("hinge", ground, a, point=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0)))
    mdl.add(Spherical("ball", a, b, point=(0.0, 0.0, -1.0)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.2)
    header = r.to_csv(tmp_path / "r.csv").read_text().splitlines()[0].split(",")
    body = [f"{n}.{c}" for n in "ab" for c in ("x", "y", "z", "qw", "qx", "qy", "qz", "vx",
                                               "vy", "vz", "wx", "wy", "wz", "wx_world",
                                               "wy_world", "wz_world")]
    assert header[:1 + len(body)] == ["t", *body]
    assert header[1 + len(body)] == "hinge.Fx" and "ball.Tz_joint" in header
    data = np.loadtxt(tmp_path / "r.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(data[:, 1:8], r.q[:, :7], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(data[:, 8:14], r.v[:, :6], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(data[:, 17:24], r.q[:, 7:], rtol=1e-11, atol=1e-12)
    assert r.units["b.qw"] == "-" and r.units["a.vz"] == "m/s" and r.units["b.wy"] == "rad/s"
    model_file = tmp_path / "chain.py"  # the command line's --out writes the same columns
    model_file.write_text("from nonsmooth.spatial import *\n"
                          "def build():\n"
                          "    m = SpatialModel('m')\n"
                          "    a = m.add(Body('a', 1.0, 0.1, position=(0, 0, -0.5)))\n"
                          "    m.add(Spherical('pin', ground, a))\n"
                          "    m.add(Gravity())\n"
                          "    return m\n")
    out = tmp_path / "cli.csv"
    assert main(["run", str(model_file), "--t-end", "0.1", "--out", str(out)]) == 0
    capsys.readouterr()
    assert out.read_text().splitlines()[0].startswith(
        "t,a.x,a.y,a.z,a.qw,a.qx,a.qy,a.qz,a.vx,a.vy,a.vz,a.wx,a.wy,a.wz,a.wx_world,")


# ============================================================ reactions in the joint frame
def test_an_overhung_disc_loads_its_hinge_radially_and_in_bending():
    """A disc hanging at rest on a horizontal hinge (axis x through the origin) with its centre
    of mass on the axis at ``d``: in the joint frame ``(f, g, h) = (y, z, x)`` the force is the
    radial load ``m g`` along ``g``, no axial load, and the moment is the bending ``m g d``
    about ``f`` with no torque about the axis (the loads of joint friction, issue 22)."""
    m, d = 3.0, 0.4
    mdl = SpatialModel("overhung")
    disc = mdl.add(Body("disc", m, (0.2, 0.1, 0.1), position=(d, 0.0, 0.0)))
    mdl.add(Revolute("hinge", ground, disc, point=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0)))
    mdl.add(Gravity(G_ACC))
    r = nonsmooth.simulate(mdl, 0.5, rtol=1e-11, atol=1e-13)
    F = np.column_stack([r[f"hinge.F{c}_joint"] for c in "xyz"])
    T = np.column_stack([r[f"hinge.T{c}_joint"] for c in "xyz"])
    np.testing.assert_allclose(F, np.tile([0.0, m * G_ACC, 0.0], (r.t.size, 1)),
                               rtol=0, atol=1e-9 * m * G_ACC)
    np.testing.assert_allclose(T, np.tile([-m * G_ACC * d, 0.0, 0.0], (r.t.size, 1)),
                               rtol=0, atol=1e-9 * m * G_ACC)


def test_the_joint_frame_turns_with_its_carrier():
    """A load welded to a turntable that turns at a constant rate about the vertical: in the
    weld's frame (fixed in the turntable) its reaction is constant, the centripetal
    ``-m Omega^2 r`` along the radius and ``m g`` up, while its world components turn; no
    moment (a principal axis, constant rate)."""
    m, radius, rate = 2.0, 0.5, 3.0
    mdl = SpatialModel("turntable")
    table = mdl.add(Body("table", 5.0, (1.0, 1.0, 2.0), angular_velocity=(0.0, 0.0, rate)))
    load = mdl.add(Body("load", m, (0.01, 0.01, 0.01), position=(radius, 0.0, 0.0),
                        velocity=(0.0, rate * radius, 0.0), angular_velocity=(0.0, 0.0, rate)))
    spin = mdl.add(Revolute("spin", ground, table, axis=(0.0, 0.0, 1.0)))
    mdl.add(Driver("motor", spin, speed=rate))
    mdl.add(Fixed("weld", table, load, point=(radius, 0.0, 0.0)))
    mdl.add(Gravity(G_ACC))
    r = nonsmooth.simulate(mdl, 2.0, rtol=1e-11, atol=1e-13)
    F = np.column_stack([r[f"weld.F{c}_joint"] for c in "xyz"])
    T = np.column_stack([r[f"weld.T{c}_joint"] for c in "xyz"])
    scale = m * G_ACC
    np.testing.assert_allclose(F, np.tile([-m * rate ** 2 * radius, 0.0, m * G_ACC],
                                          (r.t.size, 1)), rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(T, 0.0, atol=1e-8 * scale)
    Fw = np.column_stack([r[f"weld.F{c}"] for c in "xy"])  # the world components turn
    np.testing.assert_allclose(Fw[:, 0], -m * rate ** 2 * radius * np.cos(rate * r.t),
                               rtol=0, atol=1e-7 * scale)


def _driven_disc(position):
    mdl = SpatialModel("driven disc")
    disc = mdl.add(_box("disc"))
    pin = mdl.add(Revolute("pin", ground, disc, point=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0)))
    mdl.add(Driver("turn", pin, position=position))
    return mdl.compile()


def test_the_family_default_tolerances_only_where_the_right_hand_side_is_smooth():
    """``SpatialSystem.default_tolerances`` (obligation 11): DOP853 on a frictionless model
    whose drivers' derivatives are given takes 5e-13; a friction pair, a central-differenced
    driver or another method keeps the engine's (None), and simulate uses what it says."""
    from nonsmooth.models import spatial_double_pendulum, spatial_friction_arm
    from nonsmooth.spatial.model import FRICTIONLESS_TOLERANCES

    smooth = spatial_double_pendulum.build().system
    assert smooth.default_tolerances("DOP853") == FRICTIONLESS_TOLERANCES
    assert smooth.default_tolerances("RK45") is None
    assert spatial_friction_arm.build().system.default_tolerances("DOP853") is None
    given = _driven_disc((np.sin, np.cos, lambda t: -np.sin(t)))
    assert given.default_tolerances("DOP853") == FRICTIONLESS_TOLERANCES
    assert _driven_disc(np.sin).default_tolerances("DOP853") is None
    # the fit's finite-difference step follows the runs' rtol: the family's where it has one
    from nonsmooth.fit import _default_rtol
    from nonsmooth.models import stick_slip_oscillator

    assert _default_rtol({}, smooth, "DOP853") == FRICTIONLESS_TOLERANCES[0]
    assert _default_rtol({}, stick_slip_oscillator.build().system, "DOP853") == 1e-11
    assert _default_rtol({"rtol": 1e-9}, smooth, "DOP853") == 1e-9
    # simulate takes the family's default: the same run as with it given, not as with 1e-11
    model = spatial_double_pendulum.build()
    r = nonsmooth.simulate(model, 0.5, derived=False)
    rtol, atol = FRICTIONLESS_TOLERANCES
    tight = nonsmooth.simulate(model, 0.5, rtol=rtol, atol=atol, derived=False)
    np.testing.assert_array_equal(r.q, tight.q)
    assert r.diagnostics["n_evaluations"] > nonsmooth.simulate(
        model, 0.5, rtol=1e-11, atol=1e-13, derived=False).diagnostics["n_evaluations"]


# ============================================================ user functions
from nonsmooth.errors import UserFunctionError  # noqa: E402

RAISED = [ZeroDivisionError, KeyError, TypeError, AttributeError, IndexError, RuntimeError,
          AssertionError]


def _pendulum(element=None) -> SpatialModel:
    """A bob on a revolute about x, with ``element(bob, pin)`` added if given."""
    mdl = SpatialModel("pendulum")
    bob = mdl.add(_box("bob", position=(0.0, 0.0, -1.0), angular_velocity=(2.0, 0.0, 0.0)))
    pin = mdl.add(Revolute("pin", ground, bob, axis=(1.0, 0.0, 0.0)))
    mdl.add(Gravity())
    if element is not None:
        mdl.add(element(bob, pin))
    return mdl


def _raiser(kind):
    def load_law(t, *state):
        raise kind("no value here")
    return load_law


@pytest.mark.parametrize("kind", RAISED)
@pytest.mark.parametrize("element, name", [
    (lambda f: lambda bob, pin: Force("push", bob, f), "force 'push'"),
    (lambda f: lambda bob, pin: Torque("twist", bob, f), "torque 'twist'"),
    (lambda f: lambda bob, pin: Driver("motor", pin, position=f), "driver 'motor'"),
    (lambda f: lambda bob, pin: Driver("motor", pin, position=(lambda t: 0.0, f, f)),
     "driver 'motor'"),
])
def test_a_user_function_that_raises_while_compiling_is_named(kind, element, name):
    """compile() evaluates the model at t = 0 (the rank test): the error names the element,
    the function and its file, the exception and the time."""
    mdl = _pendulum(element(_raiser(kind)))
    with pytest.raises(UserFunctionError, match=rf"^{name}: the function "
                       rf"load_law \(test_spatial.py:\d+\) raised {kind.__name__}: .* at "
                       r"t = 0 s"):
        mdl.compile()


@pytest.mark.parametrize("value, shown", [("abc", "'abc'"),
                                          ([1.0, [2.0, 3.0], 4.0], r"\[1.0, \[2.0, 3.0\], 4.0\]"),
                                          ((1.0, 2.0), r"\(1.0, 2.0\)"), (None, "None")])
def test_a_force_returning_no_three_numbers_is_named_while_compiling(value, shown):
    mdl = _pendulum(lambda bob, pin: Force("push", bob, lambda t: value))
    with pytest.raises(UserFunctionError, match=rf"force 'push': the function <lambda> "
                       rf"\(test_spatial.py:\d+\) returned {shown} at t = 0 s; it must return "
                       r"three finite numbers \(N\)"):
        mdl.compile()


def test_a_force_indexing_q_out_of_range_is_named_with_the_layout():
    mdl = _pendulum(lambda bob, pin: Torque("twist", bob, lambda t, q, v: (q[7], 0.0, 0.0)))
    with pytest.raises(UserFunctionError, match=r"torque 'twist': .* raised IndexError.*q "
                       r"holds 7 numbers per body \(x, y, z, qw, qx, qy, qz\)"):
        mdl.compile()


def test_the_command_line_names_a_user_function_that_raises_in_one_line(tmp_path, capsys):
    from nonsmooth.cli import main

    model_file = tmp_path / "model.py"
    model_file.write_text("from nonsmooth.spatial import *\n"
                          "def push(t):\n"
                          "    return (1.0 / t, 0.0, 0.0)\n"
                          "def build():\n"
                          "    m = SpatialModel('m')\n"
                          "    a = m.add(Body('a', 1.0, 0.1, position=(0, 0, -0.5)))\n"
                          "    m.add(Spherical('pin', ground, a))\n"
                          "    m.add(Force('push', a, push))\n"
                          "    return m\n")
    assert main(["run", str(model_file), "--t-end", "0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["nonsmooth: error: force 'push': the function push (model.py:2) raised "
                   "ZeroDivisionError: float division by zero at t = 0 s; raised in push "
                   "(model.py:3)"]


@pytest.mark.parametrize("method", ["DOP853", "RK45", "RK4"])
def test_a_force_that_writes_into_q_and_v_does_not_change_the_motion(method):
    """The user functions get copies of ``q`` and ``v``: the run is the same as without the
    writes (compiled DOP853 phases call them back; RK45 and RK4 through the Python path)."""
    def clean(t, q, v):
        return (0.0, 0.1 * q[2], 0.0)

    def scribbling(t, q, v):
        out = clean(t, q, v)
        q[:] = 5.0
        v[:] = -3.0
        return out

    runs = [nonsmooth.simulate(_pendulum(lambda bob, pin, f=f: Force("push", bob, f)), 0.3,
                               method=method, dt=1e-3) for f in (clean, scribbling)]
    assert runs[1].status == 0
    np.testing.assert_array_equal(runs[1].q, runs[0].q)
    np.testing.assert_array_equal(runs[1].v, runs[0].v)


@pytest.mark.parametrize("method", ["DOP853", "RK45", "RK4"])
def test_a_driver_that_returns_nan_mid_run_is_named_with_the_time(method):
    """Not "the integration is unstable": the driver, its function and the time."""
    def angle(t):
        return math.nan if t > 0.05 else 2.0 * t

    mdl = _pendulum(lambda bob, pin: Driver("motor", pin, position=(angle, lambda t: 2.0,
                                                                     lambda t: 0.0)))
    with pytest.raises(UserFunctionError, match=r"driver 'motor': the function angle "
                       r"\(test_spatial.py:\d+\) gave f = nan at t = 0\.05\d* s"):
        nonsmooth.simulate(mdl, 0.2, method=method, dt=1e-3)
