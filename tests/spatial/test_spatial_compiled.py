"""The spatial family's compiled kernels and phases against its Python path (issue 21, item 4).

The kernels (``nonsmooth/spatial/kernels.py``) re-write the Python path's terms element by
element over flat tables; the compiled phases (``nonsmooth/spatial/phases.py``) run them in the
core's DOP853 and RK4 templates. Checked here:

* every term (``f``, ``phi``, ``phi_t``, ``gamma``, ``G``, the powers) against
  ``SpatialSystem.terms`` at random states of every bundled spatial model and of a model with
  every element kind (springs, forces and torques in both frames, constant and given by
  functions, drivers of angles and displacements, a virtual rotor);
* the Delassus solve (``core.linalg._block_schur``) against the LU of the whole KKT system;
* whole runs: compiled DOP853 and RK4 against the Python path (the same method, the family's
  ``compiled_family`` switched off), and that the compiled phase is the one taken;
* redundant rows met during a run are refused, not solved into numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

import nonsmooth
from nonsmooth.core import linalg
from nonsmooth.dynamics import Dynamics
from nonsmooth.errors import UserFunctionError
from nonsmooth.models import (
    spatial_double_pendulum,
    spatial_four_bar,
    spatial_gyroscope,
    spatial_robot_arm,
)
from nonsmooth.spatial import (
    Body,
    Cylindrical,
    Driver,
    Force,
    Gravity,
    Revolute,
    RotationalSpring,
    RotorInertia,
    SpatialModel,
    Spherical,
    Spring,
    Torque,
    Translational,
    Universal,
    ground,
)
from nonsmooth.spatial import kernels as sk
from nonsmooth.spatial.model import SpatialSystem
from nonsmooth.spatial.rotation import from_axis_angle


def every_element() -> SpatialModel:
    """A model with every element kind the kernels know (not a mechanism anyone builds: its
    rows need only be right, not mobile)."""
    mdl = SpatialModel("every element")
    tilt = from_axis_angle((1.0, 2.0, 0.5), 0.7)
    a = mdl.add(Body("a", 2.0, [[0.3, 0.01, 0.02], [0.01, 0.4, 0.03], [0.02, 0.03, 0.5]],
                     position=(0.1, 0.2, -0.3), orientation=tilt, velocity=(0.1, 0, 0),
                     angular_velocity=(0.5, -0.2, 0.3)))
    b = mdl.add(Body("b", 1.0, (0.05, 0.06, 0.07), position=(0.5, -0.1, -0.8),
                     angular_velocity=(0.0, 1.0, 2.0)))
    c = mdl.add(Body("c", 0.7, (0.02, 0.03, 0.04), position=(-0.4, 0.3, -0.5)))
    d = mdl.add(Body("d", 0.4, (0.01, 0.01, 0.015), position=(0.2, 0.6, -1.2)))
    hinge = mdl.add(Revolute("hinge", ground, a, point=(0.0, 0.0, 0.0), axis=(0, 1, 1)))
    mdl.add(Spherical("ball", a, b, point=(0.4, 0.0, -0.6)))
    slide = mdl.add(Translational("slide", a, c, point=(-0.2, 0.2, -0.4), axis=(1, 0, 1)))
    cyl = mdl.add(Cylindrical("cyl", b, d, point=(0.3, 0.3, -1.0), axis=(0, 1, 0)))
    mdl.add(Universal("cross", c, d, point=(0.0, 0.5, -0.9), axis_a=(1, 0, 0),
                      axis_b=(0, 1, 0)))
    mdl.add(Driver("drive", hinge, position=lambda t: 0.3 * math.sin(2.0 * t)))
    mdl.add(Driver("push", slide, speed=0.1, initial=0.02))
    mdl.add(Driver("spin", cyl, coordinate="angle", speed=-0.4))
    mdl.add(Gravity(direction=(0.1, 0.0, -1.0)))
    mdl.add(Spring("k", a, d, (0.1, 0.2, -0.3), (0.2, 0.6, -1.2), stiffness=50.0,
                   rest_length=0.5, damping=2.0))
    mdl.add(Force("push_a", a, (1.0, -2.0, 0.5), point=(0.2, 0.2, -0.3)))
    mdl.add(Force("wind", b, lambda t: (0.5 * t, 1.0, -0.2), frame="body"))
    mdl.add(Torque("twist", c, (0.1, 0.2, 0.3), frame="body"))
    mdl.add(Torque("motor", d, lambda t: (0.0, math.cos(t), 0.1)))
    mdl.add(Force("drag", c, lambda t, q, v: -0.3 * v[12:15] + 0.1 * q[14:17], frame="world"))
    mdl.add(Torque("brake", b, lambda t, q, v: -0.2 * v[9:12], frame="body"))
    mdl.add(RotationalSpring("coil", hinge, stiffness=3.0, damping=0.5, angle0=0.2))
    mdl.add(RotationalSpring("twister", cyl, stiffness=1.5, damping=0.1, angle0=-0.4))
    e = mdl.add(Body("e", 0.3, (0.01, 0.02, 0.02), position=(0.3, -0.3, -0.2),
                     angular_velocity=(0.2, 0.0, 3.0)))
    wheel = mdl.add(Revolute("wheel", a, e, point=(0.3, -0.3, -0.2), axis=(0.2, 0.1, 1.0)))
    mdl.add(RotorInertia("rotor", wheel, rotor_inertia=1e-4, gear_ratio=30.0, mode="virtual"))
    return mdl


def _system(model) -> SpatialSystem:
    """The system of a SpatialModel (unchecked: ``every_element`` is over-constrained) or of a
    bundled model."""
    if isinstance(model, SpatialModel):
        model.validate()
        return SpatialSystem(model)
    return model.system


def _states(system, rng, k=5):
    for _ in range(k):
        q = rng.normal(size=system.n_q)
        for i in range(system.n_bodies):  # non-unit quaternions: the rotation is of p / |p|
            q[7 * i + 3:7 * i + 7] *= 1.0 + 0.1 * rng.random()
        yield rng.uniform(0, 2), q, rng.normal(size=system.n_v)


MODELS = [("every element", every_element), ("double pendulum", spatial_double_pendulum.build),
          ("four-bar", spatial_four_bar.build), ("gyroscope", spatial_gyroscope.build),
          ("robot arm", spatial_robot_arm.build)]


@pytest.mark.parametrize("name, make", MODELS, ids=[m[0] for m in MODELS])
def test_compiled_terms_equal_the_python_terms(name, make):
    system = _system(make())
    tab = system.kernel_tables
    m = system.n_constraints
    rng = np.random.default_rng(1)
    for t, q, v in _states(system, rng):
        U = system.user_values(t, q, v)
        U = np.zeros((tab.ints.shape[0], 3)) if U is None else U
        f, phi, phi_t, gamma, G, P_a, P_d, err = sk.spatial_terms(tab.ints, tab.floats,
                                                                   tab.bodies, U, t, q, v, m)
        ref = system.python_terms(t, q, v)
        assert err == 0
        scale = 1.0 + np.max(np.abs(ref.f))
        assert np.max(np.abs(f - ref.f)) <= 1e-13 * scale
        assert np.max(np.abs(G - ref.G), initial=0.0) <= 1e-13
        assert np.max(np.abs(phi - ref.phi), initial=0.0) <= 1e-13
        assert np.max(np.abs(phi_t - ref.phi_t), initial=0.0) <= 1e-9  # drivers' f by
        # central differences in the Python path's Driver, the same function here
        assert np.max(np.abs(gamma - ref.gamma), initial=0.0) <= 1e-12 * (
            1.0 + np.max(np.abs(ref.gamma), initial=0.0))
        assert P_a == pytest.approx(ref.P_applied, rel=1e-12, abs=1e-12)
        assert P_d == pytest.approx(ref.P_damping, rel=1e-12, abs=1e-12)
        T = system.terms(t, q, v)  # the system's own call: the kernels, the same numbers
        assert np.max(np.abs(T.f - ref.f)) <= 1e-13 * scale
        assert np.max(np.abs(T.G - ref.G), initial=0.0) <= 1e-13
        assert system.potential(t, q) == pytest.approx(system.python_potential(t, q),
                                                       rel=1e-12, abs=1e-12)


def test_every_kind_is_in_the_table():
    from nonsmooth.spatial import tables

    kinds = set(_system(every_element()).kernel_tables.ints[:, 0].tolist())
    assert kinds == {tables.SPH, tables.DOT1, tables.DOT2, tables.DRIVE_ANGLE, tables.DRIVE_DISP,
                     tables.GRAVITY, tables.SPRING, tables.FORCE, tables.TORQUE, tables.VROTOR,
                     tables.ROTSPRING}


def test_a_spring_whose_points_meet_is_named():
    mdl = SpatialModel("meeting")
    a = mdl.add(Body("a", 1.0, 0.1, position=(0, 0, 0)))
    b = mdl.add(Body("b", 1.0, 0.1, position=(1, 0, 0)))
    mdl.add(Spring("k", a, b, (0, 0, 0), (1, 0, 0), stiffness=1.0))
    system = mdl.compile()
    tab = system.kernel_tables
    q = np.array([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0], dtype=float)
    out = sk.spatial_terms(tab.ints, tab.floats, tab.bodies, np.zeros((1, 3)), 0.0, q,
                           np.zeros(12), 0)
    assert out[-1] == 1
    text = system.name_failure(3, 0, 0.5, q, np.zeros(12))  # COINCIDENT, table row 0
    assert "spring 'k'" in text and "coincide" in text


# ------------------------------------------------------------------------ the Delassus solve
def _kkt(rng, n_blocks, m):
    n = 3 * n_blocks
    M = np.zeros((n, n))
    for b in range(n_blocks):
        A = rng.normal(size=(3, 3))
        M[3 * b:3 * b + 3, 3 * b:3 * b + 3] = A @ A.T + 0.5 * np.eye(3)
    C = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.4)
    C[np.arange(m), rng.integers(0, n, m)] += 1.0  # no empty row
    K = np.block([[M, -C.T], [C, np.zeros((m, m))]])
    return K, rng.normal(size=(n + m, 3))


@pytest.mark.parametrize("n_blocks, m", [(2, 3), (8, 20), (12, 30)])
def test_the_delassus_solve_equals_the_lu_of_the_kkt_system(n_blocks, m):
    rng = np.random.default_rng(n_blocks)
    K, R = _kkt(rng, n_blocks, m)
    n = 3 * n_blocks
    X = R.copy()
    scratch = np.empty(linalg._schur_size(n, n + m, R.shape[1]))
    ints = np.empty(linalg._touching_size(n, n + m), dtype=np.int64)
    assert _schur(K.copy(), X, n, scratch, ints, m)
    ref = np.linalg.solve(K, R)
    assert np.max(np.abs(X - ref)) <= 1e-10 * np.max(np.abs(ref))


def test_the_delassus_solve_refuses_dependent_rows():
    rng = np.random.default_rng(3)
    K, R = _kkt(rng, 4, 6)
    n = 12
    K[n + 5, :n] = K[n + 1, :n] - 2.0 * K[n + 2, :n]  # row 5 a combination of rows 1 and 2
    K[:n, n + 5] = -K[n + 5, :n]
    scratch = np.empty(linalg._schur_size(n, n + 6, 3))
    ints = np.empty(linalg._touching_size(n, n + 6), dtype=np.int64)
    assert not _schur(K, R, n, scratch, ints, 6)


def test_the_delassus_solve_tests_the_rows_that_may_depend_on_the_others():
    """Rows from ``first`` on (a sticking contact's) are refused where their part outside the
    span of the rows before them, in the metric of ``M^-1``, is below ``1e-4`` of their size
    (``linalg.ROW_PIVOT_TOL``): the square root of the ratio of the last row's pivot to its
    diagonal entry is that sine. A row ``2e-4`` off the span is solved as the LU solves it, a
    row ``5e-5`` off is refused, and both are solved without the test (``first = m``)."""
    rng = np.random.default_rng(11)
    n_blocks, m = 8, 12
    n = 3 * n_blocks
    K, R = _kkt(rng, n_blocks, m)
    Minv = np.linalg.inv(K[:n, :n])
    L = np.linalg.cholesky(Minv)  # the M^-1 metric: <a, b> = a M^-1 b^T = (a L) . (b L)
    C = K[n:, :n]
    basis = np.linalg.qr((C[:-1] @ L).T)[0]  # the other rows' span, in that metric
    perp = C[-1] @ L - basis @ (basis.T @ (C[-1] @ L))
    perp /= np.linalg.norm(perp)
    inside = (C[0] - 2.0 * C[3]) @ L
    scratch = np.empty(linalg._schur_size(n, n + m, R.shape[1]))
    ints = np.empty(linalg._touching_size(n, n + m), dtype=np.int64)
    for sine, accepted in ((2e-4, True), (5e-5, False)):
        size = np.linalg.norm(inside)
        row = (np.sqrt(1.0 - sine ** 2) * inside + sine * size * perp) @ np.linalg.inv(L)
        K[-1, :n], K[:n, -1] = row, -row
        for first, expect in ((m - 2, accepted), (m, True)):
            X = R.copy()
            assert _schur(K.copy(), X, n, scratch, ints, first) == expect, (sine, first)
            if expect:
                ref = np.linalg.solve(K, R)
                assert np.max(np.abs(X - ref)) <= 1e-6 * np.max(np.abs(ref))


@njit
def _schur(K, R, n, scratch, ints, first):
    """``core.linalg._block_schur`` as a call."""
    return linalg._block_schur(K, R, n, scratch, ints, first)


# ------------------------------------------------------------------------ whole runs
def _python_path(monkeypatch):
    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)


RUNS = [("double pendulum", spatial_double_pendulum.build, 1e-11),
        ("four-bar", spatial_four_bar.build, 1e-10),
        ("robot arm", spatial_robot_arm.build, 1e-11),
        ("gyroscope", spatial_gyroscope.build, 1e-9)]


@pytest.mark.parametrize("name, make, tol", RUNS, ids=[r[0] for r in RUNS])
def test_the_compiled_dop853_phase_equals_the_python_path(name, make, tol, monkeypatch):
    model = make()
    grid = np.linspace(0.0, 1.0, 11)
    compiled = nonsmooth.simulate(model, 1.0, t_eval=grid, rtol=1e-11, atol=1e-13)
    calls = []
    import nonsmooth.spatial.phases as phases

    real = phases.spatial_dop853_phase
    monkeypatch.setattr(phases, "spatial_dop853_phase",
                        lambda *a: calls.append(1) or real(*a))
    again = nonsmooth.simulate(model, 1.0, t_eval=grid, rtol=1e-11, atol=1e-13)
    assert calls, "the compiled DOP853 phase was not taken"
    assert np.array_equal(again.y, compiled.y)
    monkeypatch.undo()
    _python_path(monkeypatch)
    python = nonsmooth.simulate(model, 1.0, t_eval=grid, rtol=1e-11, atol=1e-13)
    scale = 1.0 + np.max(np.abs(python.y))
    assert np.max(np.abs(compiled.y - python.y)) <= tol * scale
    assert np.max(np.abs(compiled.lam - python.lam)) <= 100 * tol * (
        1.0 + np.max(np.abs(python.lam)))


def test_the_compiled_rk4_phase_equals_the_python_path(monkeypatch):
    """RK4 at 1e-3 s: the compiled phase projects the quaternions at the phase's end, the
    Python stepper after every step; ``p / |p|`` evolves alike, so the two agree to the
    steps' round-off."""
    model = spatial_double_pendulum.build()
    compiled = nonsmooth.simulate(model, 1.0, method="RK4", dt=1e-3)
    _python_path(monkeypatch)
    python = nonsmooth.simulate(model, 1.0, method="RK4", dt=1e-3)
    assert compiled.t.shape == python.t.shape
    assert np.max(np.abs(compiled.y - python.y)) <= 1e-10


def test_a_driver_given_as_a_function_is_called_back(monkeypatch):
    """The robot arm's drivers are functions of time: the compiled DOP853 phase calls them
    back (``core.callbacks``), and its driving torques equal the Python path's."""
    model = spatial_robot_arm.build()
    assert model.system.has_user_functions
    compiled = nonsmooth.simulate(model, 0.5, rtol=1e-11, atol=1e-13, t_eval=[0.25, 0.5])
    _python_path(monkeypatch)
    python = nonsmooth.simulate(model, 0.5, rtol=1e-11, atol=1e-13, t_eval=[0.25, 0.5])
    names = [k for k in compiled.available() if k.endswith("_drive.torque")]
    assert names
    for key in names:
        assert np.allclose(compiled[key], python[key], rtol=1e-8, atol=1e-10)


def test_the_family_is_compiled_and_its_mass_block_diagonal():
    dyn = Dynamics(spatial_double_pendulum.build().system)
    family = dyn.compiled_family()
    assert family is not None and family.data[-1] is True  # the Delassus solve
    geared = Dynamics(spatial_robot_arm.build().system).compiled_family()
    assert geared.data[-1] is False  # armature rotors couple two bodies' blocks


# ------------------------------------------------------------------------ redundant rows
def _four_bar(spatial: bool, redundant: str = "remove"):
    """A planar four-bar (crank 0.5 m, coupler 1.2 m, rocker 1.0 m, ground link 1.0 m) under
    gravity along -y, frictionless: in the spatial family with four revolutes about z (20 rows,
    rank 17: three rows redundant), or in the planar family."""
    a, b, c, d, theta = 0.5, 1.2, 1.0, 1.0, 1.0
    O1, O4 = np.array([0.0, 0.0]), np.array([d, 0.0])
    B = O1 + a * np.array([math.cos(theta), math.sin(theta)])
    e = O4 - B
    dist = math.hypot(*e)
    along = (b * b - c * c + dist * dist) / (2 * dist)
    C = B + along * e / dist + math.sqrt(b * b - along * along) * np.array([-e[1], e[0]]) / dist
    links = [("crank", O1, B, 1.0), ("coupler", B, C, 2.0), ("rocker", O4, C, 1.5)]
    if not spatial:
        from nonsmooth.planar import Body as PBody
        from nonsmooth.planar import PlanarModel
        from nonsmooth.planar import ground as pground
        from nonsmooth.planar.forces import Gravity as PGravity
        from nonsmooth.planar.joints import Revolute as PRevolute

        mdl = PlanarModel("four-bar, planar")
        bodies = {}
        for name, P, Q, m in links:
            L = float(np.hypot(*(Q - P)))
            bodies[name] = (mdl.add(PBody(name, m, m * L * L / 12.0, position=tuple((P + Q) / 2),
                                          angle=math.atan2(*(Q - P)[::-1]))), L)
        crank, coupler, rocker = (bodies[k][0] for k in ("crank", "coupler", "rocker"))
        La, Lb, Lc = (bodies[k][1] for k in ("crank", "coupler", "rocker"))
        mdl.add(PRevolute("O1", pground, crank, tuple(O1), (-La / 2, 0.0)))
        mdl.add(PRevolute("B", crank, coupler, (La / 2, 0.0), (-Lb / 2, 0.0)))
        mdl.add(PRevolute("C", coupler, rocker, (Lb / 2, 0.0), (Lc / 2, 0.0)))
        mdl.add(PRevolute("O4", rocker, pground, (-Lc / 2, 0.0), tuple(O4)))
        mdl.add(PGravity(g=9.81))
        return mdl
    mdl = SpatialModel("four-bar, spatial")
    bodies = {}
    for name, P, Q, m in links:
        L = float(np.hypot(*(Q - P)))
        J = m * L * L / 12.0
        mid = (P + Q) / 2
        bodies[name] = mdl.add(Body(name, m, (1e-3 * J, J, J), position=(mid[0], mid[1], 0.0),
                                    orientation=from_axis_angle((0, 0, 1),
                                                                math.atan2(*(Q - P)[::-1]))))
    z = (0.0, 0.0, 1.0)
    mdl.add(Revolute("O1", ground, bodies["crank"], (*O1, 0.0), z))
    mdl.add(Revolute("B", bodies["crank"], bodies["coupler"], (*B, 0.0), z))
    mdl.add(Revolute("C", bodies["coupler"], bodies["rocker"], (*C, 0.0), z))
    mdl.add(Revolute("O4", bodies["rocker"], ground, (*O4, 0.0), z))
    mdl.add(Gravity(direction=(0.0, -1.0, 0.0)))
    return mdl.compile(redundant=redundant)


def test_redundant_rows_are_refused_by_name():
    with pytest.raises(nonsmooth.ModelError, match="redundant.*rank 17.*redundant='remove'"):
        _four_bar(True, redundant="refuse")
    with pytest.raises(nonsmooth.ModelError, match="redundant = 'maybe' is invalid"):
        _four_bar(True, redundant="maybe")


def test_removed_redundant_rows_give_the_planar_motion(monkeypatch):
    """Three rows of the all-revolute four-bar removed (named in a warning): its motion is the
    planar family's, compiled and on the Python path; the kept rows' reactions balance."""
    from nonsmooth.spatial.model import RedundancyWarning

    with pytest.warns(RedundancyWarning, match="removed the redundant constraint rows"):
        system = _four_bar(True)
    assert len(system.removed_rows) == 3 and system.n_constraints == 17
    kw = {"rtol": 1e-11, "atol": 1e-13, "t_eval": np.linspace(0.0, 2.0, 21)}
    planar = nonsmooth.simulate(_four_bar(False), 2.0, **kw)  # (before q0 is added to kw)
    q0, v0 = system.model.initial_state()
    kw.update(q0=q0, v0=v0)
    compiled = nonsmooth.simulate(system, 2.0, **kw)
    for name in ("crank", "coupler", "rocker"):
        for c in "xy":
            assert np.max(np.abs(compiled[f"{name}.{c}"] - planar[f"{name}.{c}"])) <= 1e-9
    _python_path(monkeypatch)
    python = nonsmooth.simulate(system, 2.0, **kw)
    assert np.max(np.abs(python.y - compiled.y)) <= 1e-9
    # the reactions on the crank (the ground's at O1, the coupler's at B: minus B's on the
    # coupler) and gravity balance its mass times its acceleration in the plane
    for r in (compiled, python):
        F = (np.stack([r[f"O1.F{c}"] for c in "xy"]) - np.stack([r[f"B.F{c}"] for c in "xy"]))
        col = {name: k for k, name in enumerate(r.velocity_names)}
        acc = np.stack([r.dv[:, col["crank.vx"]], r.dv[:, col["crank.vy"]]])
        scale = 1.0 + np.max(np.abs(F))
        assert np.max(np.abs(F[0] - acc[0])) <= 1e-8 * scale
        assert np.max(np.abs(F[1] - 9.81 - acc[1])) <= 1e-8 * scale


# ------------------------------------------------------------------------ rotational springs
def _torsion(stiffness=8.0, damping=0.0, angle0=0.3, J=(0.3, 0.3, 0.5)) -> SpatialModel:
    """A disc on a vertical revolute joint held by a rotational spring, released at rest
    ``angle0`` from the spring's free angle."""
    mdl = SpatialModel("torsion pendulum")
    disc = mdl.add(Body("disc", 2.0, J))
    pin = mdl.add(Revolute("pin", ground, disc, point=(0, 0, 0), axis=(0, 0, 1)))
    mdl.add(RotationalSpring("spring", pin, stiffness=stiffness, damping=damping,
                             angle0=angle0))
    return mdl


@pytest.mark.parametrize("path", ["compiled", "python"])
def test_a_rotational_spring_is_the_damped_torsional_oscillator(path, monkeypatch):
    """``J theta'' + c theta' + k (theta - angle0) = 0`` from rest at 0: the closed form,
    the spring's torque output and the energy balance (the damping's work)."""
    if path == "python":
        _python_path(monkeypatch)
    k, c, J, a0 = 8.0, 0.4, 0.5, 0.3
    r = nonsmooth.simulate(_torsion(k, c, a0), 2.0, rtol=1e-11, atol=1e-13)
    wn = math.sqrt(k / J)
    zeta = c / (2.0 * math.sqrt(k * J))
    wd = wn * math.sqrt(1.0 - zeta ** 2)
    decay = np.exp(-zeta * wn * r.t)
    theta = a0 - a0 * decay * (np.cos(wd * r.t) + zeta / math.sqrt(1 - zeta ** 2)
                               * np.sin(wd * r.t))
    assert np.max(np.abs(r["pin.angle"] - theta)) < 1e-9
    rate = a0 * decay * wn / math.sqrt(1 - zeta ** 2) * np.sin(wd * r.t)
    assert np.max(np.abs(r["spring.torque"] - (-k * (theta - a0) - c * rate))) < 1e-8
    assert np.max(np.abs(r["pin.Tz"])) < 1e-8  # about its axis the pin holds no torque
    assert r.diagnostics["energy_balance_scaled"] < 1e-9
    W = r.diagnostics["work"]["W_damping"]
    assert W < 0 and abs(W + (0.5 * k * a0 ** 2 - (r.T[-1] + r.V[-1]))) < 1e-9


def test_a_rotational_spring_between_two_moving_bodies_acts_on_both():
    """A spring in a joint between two free-floating bodies: equal and opposite torques, so
    the total angular momentum (world axes) stays constant and the relative angle oscillates
    at ``sqrt(k (1/J_a + 1/J_b))``."""
    mdl = SpatialModel("two discs")
    Ja, Jb, k = 0.4, 0.1, 2.0
    a = mdl.add(Body("a", 1.0, (0.3, 0.3, Ja), angular_velocity=(0.0, 0.0, 1.0)))
    b = mdl.add(Body("b", 1.0, (0.2, 0.2, Jb), position=(0, 0, -0.5),
                     angular_velocity=(0.0, 0.0, 1.0)))
    pin = mdl.add(Revolute("pin", a, b, point=(0, 0, -0.25), axis=(0, 0, 1)))
    mdl.add(RotationalSpring("spring", pin, stiffness=k, angle0=-0.2))
    r = nonsmooth.simulate(mdl, 3.0, rtol=1e-11, atol=1e-13)
    w = math.sqrt(k * (1.0 / Ja + 1.0 / Jb))
    assert np.max(np.abs(r["pin.angle"] - (-0.2 + 0.2 * np.cos(w * r.t)))) < 1e-9
    Lz = Ja * r["a.wz_world"] + Jb * r["b.wz_world"]
    assert np.max(np.abs(Lz - (Ja + Jb))) < 1e-10


def test_rotational_spring_errors():
    mdl = SpatialModel("m")
    body = mdl.add(Body("b", 1.0, (0.1, 0.1, 0.1)))
    ball = mdl.add(Spherical("ball", ground, body, point=(0, 0, 0)))
    with pytest.raises(nonsmooth.ModelError, match="Revolute or Cylindrical"):
        RotationalSpring("s", ball, stiffness=1.0)
    pin = Revolute("pin", ground, body, point=(0, 0, 0), axis=(0, 0, 1))
    with pytest.raises(nonsmooth.ModelError, match="stiffness"):
        RotationalSpring("s", pin, stiffness=-1.0)
    other = SpatialModel("m2")
    b2 = other.add(Body("b", 1.0, (0.1, 0.1, 0.1)))
    stray = Revolute("stray", ground, b2, point=(0, 0, 0), axis=(0, 0, 1))
    other.add(RotationalSpring("s", stray, stiffness=1.0))
    with pytest.raises(nonsmooth.ModelError, match="not added to the model"):
        other.compile()


# ------------------------------------------------------------------------ f(t, q, v) loads
@pytest.mark.parametrize("path", ["compiled", "python"])
def test_a_torque_of_the_state_is_a_rotary_damper(path, monkeypatch):
    """``Torque(body, lambda t, q, v: -c omega')`` on a body spinning about a principal axis:
    ``omega(t) = omega0 exp(-c t / J)``, the work it does the kinetic energy lost."""
    if path == "python":
        _python_path(monkeypatch)
    c, J, w0 = 0.2, 0.5, 3.0
    mdl = SpatialModel("damped spin")
    body = mdl.add(Body("b", 1.0, (0.3, 0.4, J), angular_velocity=(0.0, 0.0, w0)))
    mdl.add(Torque("damper", body, lambda t, q, v: -c * v[3:6], frame="body"))
    r = nonsmooth.simulate(mdl, 2.0, rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(r["b.wz_world"] - w0 * np.exp(-c * r.t / J))) < 1e-9
    W = r.diagnostics["work"]["W_applied"]
    assert abs(W - (r.T[-1] - r.T[0])) < 1e-10


def test_a_load_function_with_a_wrong_signature_is_named():
    mdl = SpatialModel("m")
    body = mdl.add(Body("b", 1.0, (0.1, 0.1, 0.1)))
    with pytest.raises(nonsmooth.ModelError, match=r"f\(t\) or f\(t, q, v\)"):
        Force("push", body, lambda t, q: (0.0, 0.0, 1.0))


@pytest.mark.parametrize("bad", [
    (math.nan, 0.0, 1.0),  # a non-finite component
    (0.0, 1.0),  # two components
    1.0,  # a scalar: not broadcast to three components
    np.ones((3, 3)),  # a matrix
])
def test_a_load_function_returning_a_wrong_value_is_named_where_it_does(bad):
    """The compiled phase calls the user functions unchecked (``SpatialSystem.user_values``)
    and checks their values together: a wrong value mid-run is still named, with its element
    and time."""
    mdl = SpatialModel("m")
    body = mdl.add(Body("b", 1.0, (0.1, 0.1, 0.1)))
    mdl.add(Force("push", body, lambda t: (0.0, 0.0, 1.0) if t < 0.25 else bad))
    named = r"(?s)push.*at t = 0\.2[5-9]\d* s.*three finite numbers"
    with pytest.raises(UserFunctionError, match=named):
        nonsmooth.simulate(mdl, 1.0)


# ------------------------------------------------------------------------ joint friction
# The frictional joints' rows of W and tangential bias (tables FRIC_TURN / FRIC_SLIDE), the
# compiled stage of the norm load terms (core.stage._stage_body_norms,
# acceleration_stage_norms) and whole runs of the closed-form models of
# tests/spatial/test_spatial_friction.py, against the Python path of the joint friction.
from nonsmooth.errors import FrictionLoadError, InconsistentLCPError  # noqa: E402
from nonsmooth.spatial import tables as st  # noqa: E402

FRICTION = {"Revolute": {"pin_radius": 0.02, "friction_arm": 0.03, "bending_arm": 0.05},
            "Spherical": {"ball_radius": 0.03},
            "Translational": {"initial_overlap": 0.2, "reaction_arm": 0.04},
            "Cylindrical": {"pin_radius": 0.025, "initial_overlap": 0.3},
            "Universal": {"pin_radius": 0.02, "friction_arm": 0.03, "bending_arm": 0.04}}


def friction_chain() -> SpatialModel:
    """Every frictional joint type, each between two moving bodies and each to the ground, in
    tilted frames (the rows need only be right, not mobile)."""
    mdl = SpatialModel("friction chain")
    tilt = from_axis_angle((0.3, -1.0, 0.7), 0.6)
    bodies = [mdl.add(Body(f"b{i}", 1.0 + 0.2 * i, (0.05 + 0.01 * i, 0.06, 0.07),
                           position=(0.3 * i, 0.1 * i, -0.2 * i), orientation=tilt))
              for i in range(6)]
    kinds = {"Revolute": Revolute, "Spherical": Spherical, "Translational": Translational,
             "Cylindrical": Cylindrical, "Universal": Universal}
    for i, (name, cls) in enumerate(kinds.items()):
        axis = {} if cls is Spherical else {"axis": (0.2, 1.0, -0.4 + 0.3 * i)}
        if cls is Universal:  # (its two cross axes, perpendicular; the yoke of axis_b fixed
            axis = {"axis_a": (1.0, 0.0, 0.0), "axis_b": (0.0, 0.6, 0.8)}  # in body_b)
        mdl.add(cls(f"{name.lower()}_pair", bodies[i], bodies[i + 1],
                    point=(0.3 * i + 0.1, 0.05, -0.1 * i), mu=0.2, mu_s=0.3, **axis,
                    **FRICTION[name]))
        mdl.add(cls(f"{name.lower()}_ground", ground, bodies[i], point=(0.1, 0.2 * i, 0.0),
                    mu=0.25, **axis, **FRICTION[name]))
    mdl.add(Gravity())
    return mdl


def test_compiled_friction_rows_equal_the_python_rows():
    """``W`` and the tangential bias of every joint type (both bodies moving, and against the
    ground) by the kernels against ``CompiledJointFriction.fill``, at random states."""
    system = _system(friction_chain())
    tab = system.kernel_tables
    kinds = set(tab.ints[:, 0].tolist())
    assert {st.FRIC_TURN, st.FRIC_SLIDE} <= kinds
    rng = np.random.default_rng(7)
    for t, q, v in _states(system, rng, k=8):
        W, bias = sk.spatial_friction_terms(tab.ints, tab.floats, q, v, system.p_rows)
        W_ref, bias_ref = system.friction_rows(system.kinematics(q, v))
        assert W.shape == (system.p_rows, system.n_v)
        assert np.max(np.abs(W - W_ref)) <= 1e-13
        assert np.max(np.abs(bias - bias_ref)) <= 1e-13 * (1.0 + np.max(np.abs(bias_ref)))
        T = system.terms(t, q, v)  # the system's own calls: the kernels, the same numbers
        assert np.max(np.abs(T.W - W_ref)) <= 1e-13
        assert np.max(np.abs(system.tangential_bias(t, q, v) - bias_ref)) <= 1e-13 * (
            1.0 + np.max(np.abs(bias_ref)))


def _ball(w0=10.0):
    mdl = SpatialModel("spin-down")
    top = mdl.add(Body("top", mass=2.0, inertia=(0.08, 0.08, 0.05), position=(0, 0, -0.5),
                       angular_velocity=(0, 0, w0)))
    mdl.add(Spherical("ball", ground, top, point=(0, 0, 0), mu=0.3, mu_s=0.4, ball_radius=0.02))
    mdl.add(Gravity())
    return mdl


def _flywheel():
    mdl = SpatialModel("flywheel")
    disc = mdl.add(Body("disc", mass=3.0, inertia=(0.1, 0.1, 0.2), position=(0, 0, 0.2),
                        angular_velocity=(0, 0, 8.0)))
    mdl.add(Revolute("hinge", ground, disc, point=(0, 0, 0), axis=(0, 0, 1), mu=0.2,
                     mu_s=0.3, pin_radius=0.01, friction_arm=0.05, bending_arm=0.03))
    mdl.add(Gravity())
    return mdl


def _overhung():
    mdl = SpatialModel("overhung disc")
    disc = mdl.add(Body("disc", mass=1.5, inertia=(0.04, 0.03, 0.03), position=(0.12, 0, 0),
                        angular_velocity=(20.0, 0, 0)))
    mdl.add(Revolute("shaft", ground, disc, point=(0, 0, 0), axis=(1, 0, 0), mu=0.25,
                     mu_s=0.35, pin_radius=0.02, friction_arm=0.04, bending_arm=0.05))
    mdl.add(Gravity())
    return mdl


def _slider(e_h=0.0, v0=2.0):
    mdl = SpatialModel("slider")
    s = mdl.add(Body("slider", mass=4.0, inertia=(0.01, 0.02, 0.02), position=(0.1, 0, e_h),
                     velocity=(v0, 0, 0)))
    mdl.add(Translational("guide", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=0.3,
                          mu_s=0.4, initial_overlap=0.5, reaction_arm=0.05))
    mdl.add(Gravity())
    return mdl


def _shaft():
    mdl = SpatialModel("shaft")
    shaft = mdl.add(Body("shaft", mass=2.0, inertia=(0.005, 0.1, 0.1), position=(0, 0, 0),
                         velocity=(1.0, 0, 0), angular_velocity=(30.0, 0, 0)))
    mdl.add(Cylindrical("bearing", ground, shaft, point=(0, 0, 0), axis=(1, 0, 0), mu=0.2,
                        mu_s=0.3, pin_radius=0.05))
    mdl.add(Gravity())
    return mdl


def _arm():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[2] / "benchmarks" / "spatial_friction.py"
    spec = importlib.util.spec_from_file_location("_bench_spatial_friction", path)
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.path.insert(0, str(path.parent))  # (its _timing import)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module.build()


PAIR_KINDS = [("spherical", _ball, 2.0), ("revolute axial", _flywheel, 1.0),
              ("revolute radial and bending", _overhung, 1.0),
              ("translational", lambda: _slider(0.2), 1.0), ("cylindrical", _shaft, 2.0),
              ("three joints", _arm, 1.0)]


def _python_friction(monkeypatch):
    """The Python path of commit 937dcaa for joint friction: no family, no compiled stage, the
    terms in Python."""
    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size, **kw: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)
    monkeypatch.setattr(Dynamics, "_compile_plan", lambda self, tables, packed: None)


def _assert_same_evaluation(ev, ref, what):
    for name in ("dv", "lam", "N", "F_T", "v_T", "lam_abs"):
        a, b = np.asarray(getattr(ev, name)), np.asarray(getattr(ref, name))
        assert np.max(np.abs(a - b), initial=0.0) <= 1e-11 * (
            1.0 + np.max(np.abs(b), initial=0.0)), (what, name, a, b)


@pytest.mark.parametrize("name, make, slip", PAIR_KINDS, ids=[p[0] for p in PAIR_KINDS])
def test_one_compiled_evaluation_of_each_pair_kind_equals_the_python_path(name, make, slip):
    """Stick and slip: the compiled stage after the system's terms (``Dynamics.evaluate``'s
    kernel, ``acceleration_stage_norms``) and the family's whole compiled evaluation
    (``spatial_evaluate_batch``: the kernels' W, bias and ``_stage_body_norms``) against
    ``Dynamics._evaluate_general``."""
    system = make().compile()
    dyn = Dynamics(system)
    family = dyn.compiled_family()
    assert dyn.plan is not None and family is not None
    q0, v0 = system.model.initial_state()
    rng = np.random.default_rng(3)
    v = v0 + 0.01 * rng.normal(size=v0.size)
    faces = np.ones(len(system.abs_rows))
    U = system.user_values(0.3, q0, v)
    U = None if U is None else U[None]
    for mode in (0.0, slip):
        modes = np.full(system.n_pairs, mode)
        if mode == 2.0:  # a vector pair slips along e_ref
            dyn.e_ref[:] = 0.0
            dyn.e_ref[dyn.w_row] = 1.0
        ref = dyn._evaluate_general(0.3, q0, v, modes, faces)
        ev = dyn._evaluate_compiled(0.3, q0, v, modes, faces)
        assert ev is not None, (name, mode)
        _assert_same_evaluation(ev, ref, (name, mode, "stage"))
        out, _, row, status = family.evaluate_block(
            dyn.plan, dyn.Wt, np.array([0.3]), q0[None], v[None], np.zeros((1, 0)), modes,
            faces, U)
        assert status == 0, (name, mode, status)
        _assert_same_evaluation(dyn.evaluation_from(out[0]), ref, (name, mode, "kernels"))


def test_a_face_free_evaluation_with_every_face_wrong_stays_compiled():
    """At events the HLCP is solved outright (``Dynamics._evaluate_face_free``): with the last
    evaluation's faces all contradicted, the kernel is called again with the continuation's own
    signs, and its certified solution is the general path's (which is not called)."""
    mdl = _arm()
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    modes = np.ones(system.n_pairs)
    ev_g = Dynamics(system)._evaluate_general(0.3, q0, v0, modes, None, None)
    dyn = Dynamics(system)
    dyn._face_guess = np.where(ev_g.lam_abs < 0.0, 1.0, -1.0)  # every face wrong

    def general(*args, **kwargs):
        raise AssertionError("the general path was called")

    dyn._evaluate_general = general
    ev = dyn.evaluate(0.3, q0, v0, modes)
    assert np.max(np.abs(ev.lam_abs - ev_g.lam_abs)) < 1e-12
    assert np.max(np.abs(ev.dv - ev_g.dv)) < 1e-12
    assert np.array_equal(dyn._face_guess, np.where(ev_g.lam_abs < 0.0, -1.0, 1.0))


def test_an_uncertified_load_falls_back_to_the_python_path():
    """The self-locking drawer (``L = mu e_h / x_s = 1.25``): the compiled stage does not
    certify its loads (``UNCERTIFIED``), the evaluation takes the Python path, which names
    the error; a certified drawer is evaluated compiled."""
    from nonsmooth.core.stage import UNCERTIFIED

    def drawer(mu, xs):
        mdl = SpatialModel("drawer")
        s = mdl.add(Body("drawer", mass=2.0, inertia=(0.01, 0.01, 0.01),
                         position=(0.1, 0, 0.2), velocity=(1.5, 0, 0)))
        mdl.add(Translational("rail", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                              mu_s=mu, initial_overlap=xs))
        mdl.add(Gravity())
        return mdl.compile()

    for (mu, xs), certified in (((0.3, 0.5), True), ((0.5, 0.08), False)):
        system = drawer(mu, xs)
        dyn = Dynamics(system)
        q0, v0 = system.model.initial_state()
        modes, faces = np.ones(1), np.ones(len(system.abs_rows))
        out, _, _, status = dyn.compiled_family().evaluate_block(
            dyn.plan, dyn.Wt, np.zeros(1), q0[None], v0[None], np.zeros((1, 0)), modes, faces)
        ev = dyn._evaluate_compiled(0.0, q0, v0, modes, faces)
        if certified:
            assert status == 0 and ev is not None
        else:
            assert status == UNCERTIFIED and ev is None
            # (one slipping load: classified exactly, self-locking here)
            with pytest.raises((FrictionLoadError, InconsistentLCPError),
                               match="newton per newton"):
                dyn.evaluate(0.0, q0, v0, modes, faces)


def _hooke():
    """A body hanging from a frictional Hooke joint, swinging about both cross axes."""
    mdl = SpatialModel("hooke")
    bob = mdl.add(Body("bob", 1.2, (0.02, 0.03, 0.01), position=(0.0, 0.0, -0.4),
                       angular_velocity=(3.0, 2.0, 0.0)))
    mdl.add(Universal("joint", ground, bob, point=(0, 0, 0), axis_a=(1, 0, 0),
                      axis_b=(0, 1, 0), mu=0.3, mu_s=0.4, **FRICTION["Universal"]))
    mdl.add(Gravity())
    return mdl


RUNS_FRICTION = [("spherical", _ball, 3.0), ("revolute axial", _flywheel, 3.0),
                 ("universal", _hooke, 2.0),
                 ("revolute radial and bending", _overhung, 2.0),
                 ("translational", _slider, 1.0),
                 ("translational feedback", lambda: _slider(0.2, 1.5), 0.6),
                 ("cylindrical", _shaft, 1.0), ("three joints", _arm, 1.0)]


@pytest.mark.parametrize("name, make, t_end", RUNS_FRICTION, ids=[r[0] for r in RUNS_FRICTION])
def test_a_compiled_run_with_joint_friction_equals_the_python_path(name, make, t_end,
                                                                   monkeypatch):
    """Whole runs through stick and slip: the compiled DOP853 phase (taken) against the Python
    path of the joint friction, to 1e-10."""
    model = make()
    grid = np.linspace(0.0, t_end, 21)
    options = {"t_eval": grid, "rtol": 1e-11, "atol": 1e-13}
    calls = []
    import nonsmooth.spatial.phases as phases

    real = phases.spatial_dop853_phase
    monkeypatch.setattr(phases, "spatial_dop853_phase", lambda *a: calls.append(1) or real(*a))
    compiled = nonsmooth.simulate(model, t_end, **options)
    assert calls, "the compiled DOP853 phase was not taken"
    monkeypatch.undo()
    _python_friction(monkeypatch)
    python = nonsmooth.simulate(model, t_end, **options)
    assert [(e.pair, e.after) for e in compiled.events] == [
        (e.pair, e.after) for e in python.events]
    assert compiled.t.shape == python.t.shape
    scale = 1.0 + np.max(np.abs(python.y))
    assert np.max(np.abs(compiled.y - python.y)) <= 1e-10 * scale
    assert np.max(np.abs(compiled.N - python.N)) <= 1e-8 * (1.0 + np.max(np.abs(python.N)))


@pytest.mark.parametrize("name, make", [("spherical", _ball), ("translational", _slider)],
                         ids=["spherical", "translational"])
def test_a_compiled_rk4_run_with_joint_friction_equals_the_python_path(name, make,
                                                                       monkeypatch):
    """RK4 at 2e-3 s through the stop: the compiled fixed-step phase against the Python
    path (the compiled phase projects the quaternions at the phase's end only)."""
    model = make()
    compiled = nonsmooth.simulate(model, 1.0, method="RK4", dt=2e-3)
    _python_friction(monkeypatch)
    python = nonsmooth.simulate(model, 1.0, method="RK4", dt=2e-3)
    assert [(e.pair, e.after) for e in compiled.events] == [
        (e.pair, e.after) for e in python.events]
    assert compiled.t.shape == python.t.shape
    assert np.max(np.abs(compiled.y - python.y)) <= 1e-10 * (1.0 + np.max(np.abs(python.y)))


def test_the_perron_certificate_is_an_upper_bound():
    """``core.stage._certify_perron``: ``OK`` only where ``rho(|A|) <= 1 - jam`` (the
    Collatz-Wielandt bound), and it certifies the load equation of a torsion row (``||A|| =
    5``, ``rho = 0.03``) that the norm bound leaves to the eigenvalues."""
    from nonsmooth.core.stage import GENERAL, OK, _certify_bound, _certify_perron

    jam = 1e-6
    A = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, -5.0], [0.0, 1.9e-4, 0.0]])
    Kf = np.eye(3) - A
    assert _certify_bound(A, Kf, jam) == GENERAL
    assert _certify_perron(A, jam, np.empty(3), np.empty(3)) == OK
    rng = np.random.default_rng(11)
    decided = 0
    for _ in range(400):
        k = int(rng.integers(2, 6))
        A = rng.normal(size=(k, k)) * rng.uniform(0.05, 1.0) * (rng.random((k, k)) < 0.6)
        rho = max(abs(np.linalg.eigvals(np.abs(A))))
        status = _certify_perron(A, jam, np.empty(k), np.empty(k))
        assert status in (OK, GENERAL)
        if status == OK:
            decided += 1
            assert rho <= 1.0 - jam + 1e-12
    assert decided > 50


def test_the_friction_arm_at_rest_is_evaluated_compiled():
    """The bundled ``spatial_friction_arm`` at rest: every joint sticks, 14 joint rows and 4
    stick rows (two of them the sleeve's 2-D pair) on 18 velocities, a KKT system of 36 rows
    whose mass the geared rotors couple. Stick rows of a vector pair may depend on each other,
    so the kernels test their rank (``core.linalg._rows_independent``: independent here, the
    smallest singular value of ``[G; W_stick]`` 0.006 against 1.8) and solve the system at any
    size: the compiled stage returns it (not ``SINGULAR``, which sent every evaluation to the
    Python stage) and it equals the Python stage."""
    from nonsmooth.models import build

    model = build("spatial_friction_arm")
    system = model.system
    dyn = Dynamics(system)
    family = dyn.compiled_family()
    q0, v0 = model.q0, model.v0
    modes = np.zeros(system.n_pairs)
    faces = np.ones(len(system.abs_rows))
    U = system.user_values(0.0, q0, v0)
    ref = dyn._evaluate_general(0.0, q0, v0, modes, faces)
    out, _, _, status = family.evaluate_block(
        dyn.plan, dyn.Wt, np.zeros(1), q0[None], v0[None], np.zeros((1, 0)), modes, faces,
        None if U is None else U[None])
    assert status == 0
    _assert_same_evaluation(dyn.evaluation_from(out[0]), ref, "arm at rest (kernels)")
    ev = dyn._evaluate_compiled(0.0, q0, v0, modes, faces)
    assert ev is not None
    _assert_same_evaluation(ev, ref, "arm at rest (stage)")


def test_dependent_stick_rows_are_left_to_the_python_stage():
    """``core.linalg._rows_independent``: rows independent by a margin are accepted, a row
    that is a combination of the others (to round-off, or to 1e-9) and a NaN are refused, and
    its pivots estimate the smallest singular value (a row 1e-4 off the others' span, the
    largest row norm 4.5: accepted with ``tol = 1e-6``, refused with ``1e-4``)."""
    rng = np.random.default_rng(5)
    n, m = 18, 10
    C = rng.normal(size=(m, n))
    K = np.zeros((n + m, n + m))
    K[n:, :n] = C
    Q = np.empty(m * n + 2 * m)
    assert linalg._rows_independent(K, n, Q, linalg.RANK_TOL)
    for off in (0.0, 1e-9):
        K[-1, :n] = 0.3 * C[0] - 2.0 * C[1] + off * rng.normal(size=n)
        assert not linalg._rows_independent(K, n, Q, linalg.RANK_TOL)
    vt = np.linalg.svd(C[:-1], full_matrices=False)[2]  # the others' span
    perp = (np.eye(n) - vt.T @ vt)[:, 0]
    K[-1, :n] = C[0] + 1e-4 * perp / np.linalg.norm(perp)
    assert linalg._rows_independent(K, n, Q, 1e-6)
    assert not linalg._rows_independent(K, n, Q, 1e-4)
    K[n + 2, 3] = np.nan
    assert not linalg._rows_independent(K, n, Q, linalg.RANK_TOL)
    assert not linalg._rows_independent(np.zeros((2 * n + 1, 2 * n + 1)), n,
                                        np.empty((n + 1) * (n + 2)), linalg.RANK_TOL)


def test_the_bundled_friction_arm_runs_on_the_compiled_stage(monkeypatch):
    """``nonsmooth run spatial_friction_arm`` took every phase on the Python stage (the
    compiled DOP853 phase declined at t = 0 and after each event: its sticking KKT system was
    refused): now no compiled phase declines, and the run through its first stick-slip
    events equals the Python stage's to the integration tolerance."""
    from nonsmooth.models import build
    from nonsmooth.run import phase

    model = build("spatial_friction_arm")
    t_end = 0.6
    options = {"t_eval": np.linspace(0.0, t_end, 31), "rtol": 1e-11, "atol": 1e-13}
    outcomes = []
    real = phase._compiled_phase

    def spy(*args, **kwargs):
        outcome = real(*args, **kwargs)
        outcomes.append(outcome[0])
        return outcome

    monkeypatch.setattr(phase, "_compiled_phase", spy)
    compiled = nonsmooth.simulate(model, t_end, **options)
    assert outcomes and "declined" not in outcomes, outcomes
    assert len(compiled.events) >= 2
    monkeypatch.undo()
    _python_friction(monkeypatch)
    python = nonsmooth.simulate(model, t_end, **options)
    assert [(e.pair, e.after) for e in compiled.events] == [
        (e.pair, e.after) for e in python.events]
    times = np.array([[a.t, b.t] for a, b in zip(compiled.events, python.events, strict=True)])
    assert np.max(np.abs(times[:, 0] - times[:, 1])) < 1e-9
    scale = 1.0 + np.max(np.abs(python.y))
    assert np.max(np.abs(compiled.y - python.y)) <= 1e-10 * scale
    assert np.max(np.abs(compiled.N - python.N)) <= 1e-8 * (1.0 + np.max(np.abs(python.N)))


@pytest.mark.parametrize("make", [spatial_double_pendulum.build, _ball, _hooke],
                         ids=["double pendulum", "spherical friction", "universal friction"])
def test_a_single_evaluation_is_the_familys_compiled_evaluation(make, monkeypatch):
    """A model without user functions or contacts is evaluated by the family's own compiled
    evaluation (``SpatialFamily.evaluator``: the phases' code, not the terms and the allocating
    stage), equal to the general path; where its runtime-free stage declines (``GENERAL``),
    the terms and the allocating stage take that evaluation, with the same result."""
    from nonsmooth.core.status import GENERAL

    model = make()
    system = model.compile() if isinstance(model, SpatialModel) else model.system
    q0, v0 = (system.model.initial_state() if isinstance(model, SpatialModel)
              else (model.q0, model.v0))
    dyn = Dynamics(system)
    assert dyn._family_evaluate is not None
    modes, faces = np.ones(system.n_pairs), np.ones(len(system.abs_rows))
    ref = dyn._evaluate_general(0.3, q0, v0, modes, faces)
    _assert_same_evaluation(dyn._evaluate_compiled(0.3, q0, v0, modes, faces), ref, "family")
    called = []
    call, M = dyn._family_evaluate

    def declining(*args):
        called.append(call(*args))
        return GENERAL

    dyn._family_evaluate = (declining, M)
    _assert_same_evaluation(dyn._evaluate_compiled(0.3, q0, v0, modes, faces), ref, "declined")
    assert called == [0]


#: Each model's features the compiled evaluation must keep (``spatial.family.model_flags``:
#: True), by position ``(contacts, norms, vector, lu, pins, friction, general)``; the rest
#: are pruned (None). The double pendulum keeps none. (A spatial joint's radial load is a norm
#: load term: ``pins``, the planar pins' iteration, stays pruned.)
FLAG_NAMES = ("contacts", "norms", "vector", "lu", "pins", "friction", "general")
FLAG_MODELS = [
    ("double pendulum", "spatial_double_pendulum", ()),
    ("friction arm (geared rotors)", "spatial_friction_arm",
     ("norms", "vector", "lu", "friction", "general")),
    ("puck (contact)", "contact_puck", ("contacts", "vector", "friction")),
    ("spherical friction", _ball, ("norms", "vector", "friction")),
    ("revolute pin and arms", _flywheel, ("norms", "friction")),
    ("universal friction", _hooke, ("norms", "friction", "general")),
]


@pytest.mark.parametrize("name, make, kept", FLAG_MODELS, ids=[m[0] for m in FLAG_MODELS])
def test_each_model_compiles_only_the_code_it_reaches(name, make, kept):
    """A spatial model's compiled evaluation prunes what the model cannot reach (its flags,
    ``model_flags``: numba drops the code behind a None flag at compile time). Its evaluations
    equal, bit for bit, those of the evaluation with every path compiled (the defaults), at a
    state where every pair slips and where every pair sticks; a flag wrongly None would leave
    a status or a number different (the contacts' forces, a vector pair's law, the LU stage or
    the allocating path missing)."""
    from nonsmooth.models import build
    from nonsmooth.spatial.family import model_flags

    if isinstance(make, str):
        model = build(make)
        system, q0, v0 = model.system, model.q0, model.v0
    else:
        model = make()
        system = model.compile()
        q0, v0 = system.model.initial_state()
    dyn = Dynamics(system)
    family = dyn.compiled_family()
    it, ft, bt, M, block3 = family.data
    flags = model_flags(it, block3, dyn.plan)
    assert flags == tuple(True if f in kept else None for f in FLAG_NAMES), flags
    n_z = dyn.n_z + system.n_contacts
    U = system.user_values(0.0, q0, v0)
    U = np.zeros((1, it.shape[0], 3)) if U is None else U[None]
    faces = np.ones(len(system.abs_rows))
    for modes in (np.ones(system.n_pairs), np.zeros(system.n_pairs)):
        results = []
        for extra in (flags, ()):
            out = np.full((1, family.size + 2), np.nan)
            row, status = sk.spatial_evaluate_batch(
                it, ft, bt, U, M, block3, dyn.plan, dyn.Wt, np.full(1, 0.3), q0[None],
                v0[None], np.zeros((1, n_z)), modes, faces, np.zeros(1), out, *extra)
            results.append((row, status, out))
        (row, status, out), (row_all, status_all, out_all) = results
        assert (row, status) == (row_all, status_all), (name, modes)
        assert np.array_equal(out, out_all, equal_nan=True), (name, modes)
