"""The spatial family side by side with MuJoCo (``docs/design/spatial.md`` section 6
check 5).

The same frictionless double pendulum (``models/spatial_double_pendulum.py``: ``build()`` for
nonsmooth, two Euler-parameter bodies and ten constraint rows; ``mjcf()`` for MuJoCo, two
hinges in joint coordinates) run by both over 0-2 s: the rods' centres of mass, orientations
and energies agree to within MuJoCo's own accuracy at a small RK4 step. In the planar case
(``tilt = 0``) both are also checked against the closed-form equations of a compound double
pendulum integrated here by ``scipy``. ``mujoco`` is a test extra (``pip install -e .[test]``).
The work-precision comparison is ``benchmarks/spatial.py``.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonsmooth
from nonsmooth.models import spatial_double_pendulum as sdp
from nonsmooth.spatial.rotation import rotation_matrix

T_END, DT_OUT = 2.0, 0.01
GRID = DT_OUT * np.arange(int(round(T_END / DT_OUT)) + 1)


def nonsmooth_run(**params):
    """Centres of mass (k, 2, 3), rotations (k, 2, 3, 3) and energy (k,) at GRID."""
    r = nonsmooth.simulate(sdp.build(**params), T_END, t_eval=GRID, rtol=1e-12, atol=1e-14)
    q = r.q.reshape(len(r.t), 2, 7)
    R = np.array([[rotation_matrix(row[i, 3:7]) for i in range(2)] for row in q])
    return q[:, :, :3].copy(), R, r.T + r.V


def mujoco_run(timestep, grid=GRID, **params):
    """MuJoCo's RK4 at ``timestep``: the same three at ``grid`` (spaced by DT_OUT; ``xipos``,
    ``ximat``, ``data.energy``)."""
    xml, qpos0, qvel0 = sdp.mjcf(timestep=timestep, integrator="RK4", **params)
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = qpos0, qvel0
    every = int(round(DT_OUT / timestep))
    x, R, E = np.empty((len(grid), 2, 3)), np.empty((len(grid), 2, 3, 3)), np.empty(len(grid))
    for k in range(len(grid)):
        if k:
            for _ in range(every):
                mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)  # positions and energy at the state just reached
        x[k], R[k], E[k] = d.xipos[1:3], d.ximat[1:3].reshape(2, 3, 3), d.energy.sum()
    assert abs(d.time - grid[-1]) < 1e-9
    return x, R, E


@pytest.fixture(scope="module")
def runs():
    return nonsmooth_run(), mujoco_run(1e-4)


def test_the_two_builds_start_in_the_same_state():
    """``mjcf`` places the rods, their inertial frames and their energy where ``build`` does."""
    r = nonsmooth.simulate(sdp.build(), 1e-3, dt=1e-3, rtol=1e-12, atol=1e-14)
    xml, qpos0, qvel0 = sdp.mjcf()
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:] = qpos0, qvel0
    mujoco.mj_forward(m, d)
    q = r.q[0].reshape(2, 7)
    assert np.max(np.abs(d.xipos[1:3] - q[:, :3])) < 1e-15
    for i in range(2):
        assert np.max(np.abs(d.ximat[1 + i].reshape(3, 3) - rotation_matrix(q[i, 3:7]))) < 1e-15
    assert abs(d.energy[0] - r.V[0]) < 1e-14 and abs(d.energy[1] - r.T[0]) < 1e-14
    # MuJoCo's velocities of the centres of mass (world axes) are nonsmooth's
    v = r.v[0].reshape(2, 6)
    for i, body in enumerate(("rod1", "rod2")):
        vel = np.empty(6)
        mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_XBODY, m.body(body).id, vel, 0)
        w_world = vel[:3]
        R = rotation_matrix(q[i, 3:7])
        assert np.max(np.abs(R @ v[i, 3:] - w_world)) < 1e-14
        com_vel = vel[3:] + np.cross(w_world, d.xipos[1 + i] - d.xpos[1 + i])
        assert np.max(np.abs(com_vel - v[i, :3])) < 1e-14


def test_motions_agree_within_mujocos_accuracy(runs):
    """Centres of mass and orientations over 0-2 s: nonsmooth's DOP853 at rtol 1e-12 and
    MuJoCo's RK4 at 1e-4 s agree to 1e-10 (measured 5e-13 m and 7e-13); MuJoCo at its
    default 0.002 s is 3e-10 m away, at 0.001 s 2e-11 m: its RK4 error, falling as h^4
    (ratio measured 16.0)."""
    (x_ns, R_ns, _), (x_mj, R_mj, _) = runs
    err_x = float(np.max(np.abs(x_ns - x_mj)))
    err_R = float(np.max(np.abs(R_ns - R_mj)))
    assert err_x < 1e-10, err_x
    assert err_R < 1e-10, err_R
    assert np.ptp(x_ns[:, 1, 0]) > 0.1  # rod 2 swings out of rod 1's plane: a 3-D motion
    e2 = float(np.max(np.abs(mujoco_run(0.002)[0] - x_ns)))
    e1 = float(np.max(np.abs(mujoco_run(0.001)[0] - x_ns)))
    assert 1e-12 < e1 < e2 < 1e-7, (e1, e2)
    assert 12.0 < e2 / e1 < 20.0, e2 / e1  # fourth order: 16


def test_energies_agree(runs):
    """MuJoCo's ``data.energy`` along its trajectory is nonsmooth's ``T + V`` along its own,
    both constant (frictionless): measured 7e-13 apart relative to |V|, nonsmooth's drift 7e-13
    (rtol 1e-12), MuJoCo's 2e-14."""
    (_, _, E_ns), (_, _, E_mj) = runs
    scale = float(np.max(np.abs(E_ns)))
    assert np.max(np.abs(E_mj - E_ns)) / scale < 1e-10
    assert np.max(np.abs(E_ns - E_ns[0])) / scale < 1e-10
    assert np.max(np.abs(E_mj - E_mj[0])) / scale < 1e-10


def planar_closed_form(p):
    """The planar case (``tilt = 0``, both hinges about x) as a compound double pendulum in
    the absolute angles ``phi1 = theta1``, ``phi2 = theta1 + theta2`` (from hanging down,
    about +x): centres of mass (k, 2, 3) at GRID."""
    m1, m2, L1, L2, g = p["m1"], p["m2"], p["L1"], p["L2"], p["g"]
    a1, a2 = L1 / 2, L2 / 2
    I1 = m1 * L1 ** 2 / 12 + m1 * p["radius"] ** 2 / 4
    I2 = m2 * L2 ** 2 / 12 + m2 * p["radius"] ** 2 / 4
    A, B, C = I1 + m1 * a1 ** 2 + m2 * L1 ** 2, m2 * L1 * a2, I2 + m2 * a2 ** 2

    def rhs(t, y):
        f1, f2, w1, w2 = y
        c, s = math.cos(f1 - f2), math.sin(f1 - f2)
        M = np.array([[A, B * c], [B * c, C]])
        rhs = np.array([-B * s * w2 ** 2 - (m1 * a1 + m2 * L1) * g * math.sin(f1),
                        B * s * w1 ** 2 - m2 * a2 * g * math.sin(f2)])
        return np.concatenate(([w1, w2], np.linalg.solve(M, rhs)))

    y0 = [p["theta1"], p["theta1"] + p["theta2"], p["w1"], p["w1"] + p["w2"]]
    sol = solve_ivp(rhs, (0.0, T_END), y0, method="DOP853", t_eval=GRID, rtol=1e-13,
                    atol=1e-14)
    f1, f2 = sol.y[0], sol.y[1]
    zero = np.zeros_like(f1)
    c1 = np.stack([zero, a1 * np.sin(f1), -a1 * np.cos(f1)], axis=1)
    P = np.stack([zero, L1 * np.sin(f1), -L1 * np.cos(f1)], axis=1)
    c2 = P + np.stack([zero, a2 * np.sin(f2), -a2 * np.cos(f2)], axis=1)
    return np.stack([c1, c2], axis=1)


def test_planar_case_matches_the_closed_form_equations():
    """``tilt = 0``: nonsmooth and MuJoCo both follow the compound double pendulum's
    equations (measured 2e-12 m and 4e-13 m)."""
    params = {"tilt": 0.0, "theta1": 1.2, "theta2": -0.7, "w1": 1.0, "w2": 3.0}
    ref = planar_closed_form({p.name: p.default for p in sdp.PARAMETERS} | params)
    x_ns = nonsmooth_run(**params)[0]
    x_mj = mujoco_run(1e-4, **params)[0]
    assert np.max(np.abs(x_ns - ref)) < 1e-9, np.max(np.abs(x_ns - ref))
    assert np.max(np.abs(x_mj - ref)) < 1e-9, np.max(np.abs(x_mj - ref))
    assert np.max(np.abs(x_ns[:, :, 0])) < 1e-12  # stays in the y-z plane


def test_mjcf_refuses_the_spherical_joint():
    with pytest.raises(ValueError, match="revolute"):
        sdp.mjcf(joint2="spherical")


# ============================================================ joint friction (issue 22 check 13)
def _mujoco_spin_down(Iz: float, w0: float, T: float, timestep: float, t_end: float):
    """MuJoCo's hinge with ``frictionloss = T`` (a constant dry torque, soft constraint),
    Euler at ``timestep``: ``(t (k,), w (k,))``."""
    xml = f"""<mujoco><option timestep="{timestep}" gravity="0 0 0"/>
      <worldbody><body><joint type="hinge" axis="0 0 1" frictionloss="{T}" damping="0"
      armature="0"/><inertial pos="0 0 0" mass="1" diaginertia="0.2 0.2 {Iz}"/></body>
      </worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qvel[0] = w0
    n = int(round(t_end / timestep))
    w = np.empty(n + 1)
    w[0] = w0
    for k in range(n):
        mujoco.mj_step(m, d)
        w[k + 1] = d.qvel[0]
    return timestep * np.arange(n + 1), w


def _stop_time(t, w, w0) -> float:
    """The time the spin falls below 1 % of ``w0`` (s), interpolated."""
    k = int(np.argmax(w < 0.01 * w0))
    return float(np.interp(0.01 * w0, [w[k], w[k - 1]], [t[k], t[k - 1]]))


def test_frictional_hinge_against_mujocos_frictionloss():
    """A free flywheel on a frictional revolute with only a torque preload (``inputs = 1000``,
    ``mu_s = mu_d``: the constant dry torque ``T_pre``, the one joint friction MuJoCo has)
    against MuJoCo's ``frictionloss``: nonsmooth spins down as ``w0 - T t / I`` and stops
    exactly at ``w0 I / T`` (1e-9); MuJoCo's soft constraint agrees with it to its own step
    refinement (the difference of two MuJoCo steps bounds its error; measured 1e-13 s on the
    time the spin falls to 1 %); after the stop MuJoCo's softness leaves a creep that decays
    (3e-7 rad/s 0.1 s after the stop, 9e-12 at the end), nonsmooth's stick holds at once."""
    from nonsmooth.spatial import Body, Revolute, SpatialModel, ground

    Iz, w0, T = 0.05, 4.0, 0.1
    mdl = SpatialModel("flywheel")
    disc = mdl.add(Body("disc", 1.0, (0.2, 0.2, Iz), angular_velocity=(0, 0, w0)))
    mdl.add(Revolute("hinge", ground, disc, point=(0, 0, 0), axis=(0, 0, 1), mu=0.2, mu_s=0.2,
                     pin_radius=0.01, torque_preload=T, inputs="1000"))
    r = nonsmooth.simulate(mdl, 3.0, dt=0.001, rtol=1e-12, atol=1e-14)
    t_star = w0 * Iz / T
    stops = [e.t for e in r.events if e.after == "stick"]
    assert stops and stops[0] == pytest.approx(t_star, abs=1e-9)
    ns = _stop_time(r.t, r["disc.wz"], w0)
    coarse = _stop_time(*_mujoco_spin_down(Iz, w0, T, 2e-3, 3.0), w0)
    t_mj, w_mj = _mujoco_spin_down(Iz, w0, T, 1e-3, 3.0)
    fine = _stop_time(t_mj, w_mj, w0)
    assert abs(fine - ns) <= 2.0 * abs(coarse - fine) + 1e-9
    assert np.max(np.abs(w_mj[t_mj > t_star + 0.1])) < 1e-6
    assert np.max(np.abs(w_mj[t_mj > 2.9])) < 1e-10
    assert np.max(np.abs(r["disc.wz"][r.t > t_star + 1e-6])) < 1e-9


def test_at_its_defaults_nonsmooth_is_1e3_times_more_accurate_than_mujoco_at_its_default_step():
    """Issue 21's accuracy target over 0-10 s (``benchmarks/spatial.py``), both engines measured
    from nonsmooth at rtol 1e-13 (which MuJoCo at 1e-4 s meets to 1e-12 m): MuJoCo's RK4 at its
    default 0.002 s 1.1e-9 m; nonsmooth at its defaults for this frictionless model (DOP853
    rtol 5e-13, atol 5e-15: ``SpatialSystem.default_tolerances``) 5.2e-13 m (2080x), and at
    the engine's general default rtol 1e-11 1.6e-11 m (69x: DOP853's dense output between the
    steps, ``docs/design/spatial.md`` section 6), in 0.72x the evaluations."""
    t_end = 10.0
    grid = DT_OUT * np.arange(int(round(t_end / DT_OUT)) + 1)
    model = sdp.build()

    def run(**tol):
        r = nonsmooth.simulate(model, t_end, t_eval=grid, derived=False, **tol)
        return r.q.reshape(len(r.t), 2, 7)[:, :, :3], r.diagnostics["n_evaluations"]

    ref = run(rtol=1e-13, atol=1e-15)[0]
    err_mj = float(np.max(np.abs(mujoco_run(0.002, grid)[0] - ref)))
    com, n_default = run()
    err_default = float(np.max(np.abs(com - ref)))
    com, n_general = run(rtol=1e-11, atol=1e-13)
    err_general = float(np.max(np.abs(com - ref)))
    assert 5e-10 < err_mj < 5e-9, err_mj
    assert err_mj / err_default >= 1e3, (err_mj, err_default)
    assert 30.0 <= err_mj / err_general < 1e3, (err_mj, err_general)  # the README's 69x
    assert 1.2 < n_default / n_general < 1.6, (n_default, n_general)
