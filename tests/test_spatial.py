"""The spatial family on the Python path (``nonsmooth.spatial``, ``docs/spatial.md``), checked
against references written apart from it: Euler's closed form of a torque-free body (Jacobi
elliptic functions, ``tests/rigid_body.py``), Newton-Euler equations written here from the
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

ROOT = Path(__file__).resolve().parents[1]
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
    assert errF / scale < 1e-8, errF / scale  # measured 4e-15
    assert errM / scale < 1e-8, errM / scale  # measured 3e-15
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
    assert err < 1e-8, err  # measured 5e-15
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
