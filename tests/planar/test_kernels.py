"""The compiled kernels (nonsmooth.planar.kernels over nonsmooth.planar.tables) against the Python
element methods, element kind by element kind; compiling is pure; the kernels load from numba's
cache."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import load
from nonsmooth.planar import Body, PlanarModel, PointMass, ground
from nonsmooth.planar.forces import Damper, Gravity, JointDamper, RotationalSpring, Spring, Torque
from nonsmooth.planar.inertia import RotorInertia
from nonsmooth.planar.joints import Driver, Revolute, Translational
from nonsmooth.planar.tables import KINDS, compile_tables


def every_kind(pin_friction: bool = True) -> PlanarModel:
    """One model with every element kind of the tables (and both body kinds, the ground)."""
    mdl = PlanarModel("every kind")
    bar = mdl.add(Body("bar", 1.0, 1 / 12, position=(0.5, 0.0), angular_velocity=0.8))
    block = mdl.add(Body("block", 0.5, 1e-3, position=(0.7, 0.0), velocity=(0.3, 0.56)))
    ball = mdl.add(PointMass("ball", 0.3, position=(0.2, -0.5), velocity=(0.1, 0.0)))
    wheel = mdl.add(Body("wheel", 2.0, 0.2, position=(-1.0, 0.0)))
    friction = {"mu": 0.1, "mu_s": 0.2, "pin_radius": 0.02} if pin_friction else {}
    pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0), **friction))
    slot = mdl.add(Translational("slot", bar, block, (0.0, 0.0), (1.0, 0.0), mu=0.2,
                                 inputs="1111", force_preload=1.0, initial_overlap=0.1,
                                 overlap_delta="DECREASE"))
    axle = mdl.add(Revolute("axle", ground, wheel, (-1.0, 0.0), (0.0, 0.0)))
    mdl.add(Translational("rail", ground, ball, (0.0, -0.5), (1.0, 0.2), mu=0.3, normal="left"))
    mdl.add(Driver("spin", axle, speed=2.0, initial=0.1))
    mdl.add(Gravity(g=9.81))
    mdl.add(Spring("spring", ground, (0.0, 1.0), block, (0.01, 0.0), k=50.0, length0=0.8))
    mdl.add(Damper("damper", bar, (0.3, 0.0), ball, (0.0, 0.0), c=0.7))
    mdl.add(JointDamper("pin damper", pin, c=0.05))
    mdl.add(JointDamper("slot damper", slot, c=0.4))
    mdl.add(RotationalSpring("pin spring", pin, k=3.0, rest=0.2))
    mdl.add(RotationalSpring("slot spring", slot, k=6.0, rest=0.1))
    mdl.add(nonsmooth.planar.forces.Force("push", block, lambda t, q, v: (math.sin(t), 0.2 * q[0]),
                                   point=(0.01, 0.02)))
    mdl.add(Torque("motor", bar, lambda t, q, v: 0.3 - 0.1 * v[2]))
    mdl.add(RotorInertia("screw", slot, rotor_inertia=1e-4, gear_ratio=100.0, mode="virtual"))
    mdl.add(RotorInertia("gear", pin, rotor_inertia=1e-3, gear_ratio=10.0))
    return mdl


def driven_slot() -> PlanarModel:
    mdl = PlanarModel("driven slot")
    bar = mdl.add(Body("bar", 1.0, 1 / 12, position=(0.5, 0.0), angular_velocity=0.8))
    block = mdl.add(Body("block", 0.5, 1e-3, position=(0.7, 0.0), velocity=(0.3, 0.56)))
    mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    slot = mdl.add(Translational("slot", bar, block, (0.0, 0.0), (1.0, 0.0), mu=0.1))
    mdl.add(Driver("push", slot, motion=(lambda t: 0.2 + 0.1 * math.sin(3 * t),
                                         lambda t: 0.3 * math.cos(3 * t),
                                         lambda t: -0.9 * math.sin(3 * t))))
    mdl.add(RotorInertia("screw", slot, joint_axis_inertia=0.2))
    return mdl


def systems():
    out = {"every kind": every_kind().compile(), "driven slot": driven_slot().compile()}
    for name in ("crank_rocker", "stick_slip_oscillator", "slider_crank", "incline",
                 "pendulum_joint_friction", "block_chain"):
        try:
            module = load(name)
        except nonsmooth.ModelError:  # a model not in this checkout
            continue
        kwargs = {"form": "planar"} if name == "crank_rocker" else {}
        model = module.build(**kwargs)
        if isinstance(model.system, nonsmooth.planar.PlanarSystem):
            out[name] = model.system
    return out


SYSTEMS = systems()


def test_every_kind_is_covered():
    tab = SYSTEMS["every kind"].tables
    assert sorted(set(tab.ints[:, 0].tolist())) == list(range(len(KINDS)))


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_kernels_match_the_element_methods(name):
    system = SYSTEMS[name]
    rng = np.random.default_rng(7)
    for _ in range(5):
        t = float(rng.uniform(0, 3))
        q = rng.normal(0.0, 0.5, system.n_q)
        v = rng.normal(0.0, 1.0, system.n_q)
        got, ref = system.terms(t, q, v), system.reference_terms(t, q, v)
        for field in got._fields:
            if getattr(ref, field) is None:  # (norm_weights of q: none in a planar model)
                assert getattr(got, field) is None, field
                continue
            np.testing.assert_allclose(getattr(got, field), getattr(ref, field), rtol=1e-13,
                                       atol=1e-13, err_msg=f"{name}: {field}")
        np.testing.assert_allclose(system.tangential_bias(t, q, v),
                                   system.reference_bias(t, q, v), rtol=1e-13, atol=1e-13)
        assert system.potential(t, q) == pytest.approx(system.reference_potential(t, q),
                                                       rel=1e-13, abs=1e-13)


def test_compiling_is_pure_a_body_shared_by_two_models():
    shared = Body("shared", 2.0, 0.1, velocity=(1.0, 0.0))
    first = PlanarModel("first")
    first.add(shared)
    first.add(Translational("slot", ground, shared, (0.0, 0.0), (1.0, 0.0), mu=0.1,
                            normal="left"))
    first.add(Gravity(g=9.81))
    second = PlanarModel("second")
    second.add(Body("other", 1.0, 0.1))  # the shared body comes second here: offset 3
    second.add(shared)
    second.add(Gravity(g=9.81))
    sys1 = first.compile()
    sys2 = second.compile()
    assert shared.offset == -1  # nothing written into the user's object
    assert sys1.tables.offsets["shared"] == (0, 3) and sys2.tables.offsets["shared"] == (3, 3)
    r = nonsmooth.simulate(first, 0.5, method="RK4", dt=1e-3)
    # the first model still slides with friction 0.1 m g (decelerates at 0.981 m/s^2)
    np.testing.assert_allclose(r["shared.x"], r.t - 0.5 * 0.981 * r.t ** 2, atol=1e-9)
    # gravity without a body list is not bound to the first model's bodies either
    g = [fe for fe in second.forces if isinstance(fe, Gravity)][0]
    assert g._bodies is None


def test_coincident_spring_points_are_named():
    mdl = PlanarModel("coincident")
    a = mdl.add(PointMass("a", 1.0))
    mdl.add(Spring("tie", ground, (0.0, 0.0), a, (0.0, 0.0), k=1.0, length0=0.0))
    system = mdl.compile()
    with pytest.raises(nonsmooth.ModelError, match="'tie': its two points coincide"):
        system.terms(0.0, np.zeros(2), np.zeros(2))


def test_tables_are_one_table_per_kind():
    tab = compile_tables(every_kind())
    revolute = tab.ints[tab.rows_of(KINDS.index("REVOLUTE"))]
    assert revolute.shape[0] == 2 and list(revolute[:, 1]) == [0, 4]  # pin, slot (+ lock), axle
    assert tab.has_state_mass and tab.n_pairs == 3


def test_a_new_process_loads_the_kernels_from_the_cache():
    code = ("import nonsmooth; from nonsmooth.models import stick_slip_oscillator as m; "
            "nonsmooth.simulate(m.build(), 0.05, method='RK4', dt=1e-3); "
            "from nonsmooth import kernels as k; "
            "print(sum(len(f.stats.cache_misses) for f in "
            "(k.planar_terms, k.planar_bias, k.planar_potential)))")
    for _ in range(2):  # the first run may compile (a fresh checkout), the second must not
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True)
    assert out.stdout.strip() == "0", out.stderr


def _assembled():
    """(system, q0, v0) near an assembled pose, for every system of SYSTEMS and the two-coordinate
    crank-rocker (random poses can make the KKT matrix singular)."""
    out = {"every kind": (every_kind(),), "driven slot": (driven_slot(),),
           "every kind, frictionless pin": (every_kind(pin_friction=False),)}
    out = {k: (mdl[0].compile(), *mdl[0].initial_state()) for k, mdl in out.items()}
    for name in ("crank_rocker", "stick_slip_oscillator", "slider_crank", "incline",
                 "block_chain"):
        try:
            module = load(name)
        except nonsmooth.ModelError:
            continue
        model = module.build(**({"form": "planar"} if name == "crank_rocker" else {}))
        out[name] = (model.system, model.q0, model.v0)
    model = load("crank_rocker").build(c=8.0)
    out["crank_rocker two-coordinate"] = (model.system, model.q0, model.v0)
    return out


ASSEMBLED = _assembled()


@pytest.mark.parametrize("name", sorted(ASSEMBLED))
def test_compiled_evaluation_matches_the_python_path(name):
    """The compiled smooth-phase evaluation (acceleration stage, and for a planar model the
    fused kernel) against Dynamics' Python path, pair modes slip+, slip- and stick."""
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.simulate import project

    system, q0, v0 = ASSEMBLED[name]
    dyn = Dynamics(system)
    if dyn._plan is None:
        assert any(system.pair_radial), name  # a revolute pin's radial load: Python path
        return
    rng = np.random.default_rng(3)
    compared = 0
    for trial in range(6):
        t = float(rng.uniform(0, 2))
        q, v = project(system, t, q0 + rng.normal(0.0, 1e-3, q0.size),
                       v0 + rng.normal(0.0, 0.5, v0.size))
        modes = rng.choice([1.0, -1.0, 0.0], size=system.n_pairs)
        if not dyn.can_stick(t, q, v, np.flatnonzero(modes == 0.0)):
            modes[modes == 0.0] = 1.0  # a stick row the drives make redundant: not a mode
        try:
            free = dyn._evaluate_general(t, q, v, modes, None)
        except nonsmooth.NonsmoothError:
            continue  # a stick row the drives make redundant, a jam: nothing to compare
        faces = np.where(free.lam_abs >= 0, 1.0, -1.0)
        ref = dyn._evaluate_general(t, q, v, modes, faces)
        got = dyn._evaluate_compiled(t, q, v, modes, faces)
        assert got is not None
        compared += 1
        for field in ("dv", "lam", "lambda_N", "F_T", "v_T", "N", "lam_abs", "powers", "phi",
                      "dphi"):
            np.testing.assert_allclose(getattr(got, field), getattr(ref, field), rtol=1e-9,
                                       atol=1e-9 * max(1.0, float(np.max(np.abs(
                                           getattr(ref, field)), initial=0.0))),
                                       err_msg=f"{name} trial {trial}: {field}")
        assert got.residual == pytest.approx(ref.residual, abs=1e-12)
    assert compared >= 2


@pytest.mark.parametrize("name", sorted(ASSEMBLED))
def test_face_free_evaluation_matches_the_hlcp_solution(name):
    """An evaluation without faces (events, initial faces: the HLCP solved outright) by the
    compiled kernel with the last faces found, against the general path's HLCP solution, with
    that guess right and with every face of it wrong (then the general path must decide)."""
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.simulate import project

    system, q0, v0 = ASSEMBLED[name]
    dyn = Dynamics(system)
    if dyn._plan is None:
        return  # a revolute pin's radial load: the Python path only
    rng = np.random.default_rng(7)
    compared, negative = 0, 0
    for trial in range(8):
        t = float(rng.uniform(0, 2))
        q, v = project(system, t, q0 + rng.normal(0.0, 1e-3, q0.size),
                       v0 + rng.normal(0.0, 0.5, v0.size))
        modes = rng.choice([1.0, -1.0], size=system.n_pairs)
        try:
            ref = dyn._evaluate_general(t, q, v, modes, None)
        except nonsmooth.NonsmoothError:
            continue
        right = np.where(ref.lam_abs < 0.0, -1.0, 1.0)
        negative += int(np.any(right < 0))
        for guess in (right, -right):
            dyn._face_guess = guess.copy()
            got = dyn.evaluate(t, q, v, modes, None)
            compared += 1
            for field in ("dv", "lam", "lambda_N", "F_T", "N", "lam_abs", "powers"):
                np.testing.assert_allclose(
                    getattr(got, field), getattr(ref, field), rtol=1e-9,
                    atol=1e-9 * max(1.0, float(np.max(np.abs(getattr(ref, field)),
                                                      initial=0.0))),
                    err_msg=f"{name} trial {trial}: {field}")
            np.testing.assert_array_equal(dyn._face_guess, right)
    assert compared >= 4


@pytest.mark.parametrize("law", ["lugre", "regularized"])
@pytest.mark.parametrize("name", ["every kind", "stick_slip_oscillator", "slider_crank",
                                  "crank_rocker two-coordinate"])
def test_compiled_smooth_laws_match_the_python_path(name, law):
    """LuGre (with its bristle states) and the regularized law in the compiled stage, radial pin
    loads included ("every kind": a frictional revolute pin), against the Python path."""
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.simulate import project, resolve_laws

    system, q0, v0 = ASSEMBLED[name]
    laws = resolve_laws(system, law)
    dyn = Dynamics(system, laws=laws)
    assert dyn._plan is not None
    rng = np.random.default_rng(5)
    compared = 0
    for trial in range(6):
        t = float(rng.uniform(0, 2))
        q, v = project(system, t, q0 + rng.normal(0.0, 1e-3, q0.size),
                       v0 + rng.normal(0.0, 0.05, v0.size))
        v_T = system.terms(t, q, v).W @ v  # bristles near their steady state, perturbed
        z = np.array([s for lw, vt in zip(laws, v_T, strict=True)
                      for s in lw.initial_state(float(vt))]) * (1 + rng.normal(0, 1e-4))
        modes = np.ones(system.n_pairs)
        try:
            free = dyn._evaluate_general(t, q, v, modes, None, z)
        except nonsmooth.NonsmoothError:
            continue  # a random state may jam under the law's coefficients
        faces = np.where(free.lam_abs >= 0, 1.0, -1.0)
        ref = dyn._evaluate_general(t, q, v, modes, faces, z)
        got = dyn._evaluate_compiled(t, q, v, modes, faces, z)
        assert got is not None
        compared += 1
        for field in ("dv", "lam", "lambda_N", "F_T", "N", "powers", "dz"):
            np.testing.assert_allclose(getattr(got, field), getattr(ref, field), rtol=1e-9,
                                       atol=1e-9 * max(1.0, float(np.max(np.abs(
                                           getattr(ref, field)), initial=0.0))),
                                       err_msg=f"{name}, {law}, trial {trial}: {field}")
    assert compared >= 2


@pytest.mark.parametrize("method", ["RK4", "Euler"])
def test_compiled_fixed_step_matches_the_python_step(method, monkeypatch):
    """A whole fixed step in one kernel call (planar models without user functions) against
    the Python step, on a run with stick-slip events (the belt oscillator)."""
    import importlib

    sim = importlib.import_module("nonsmooth.simulate")  # the module, not the function
    model = load("stick_slip_oscillator").build(v_belt=0.2, mu_s=0.5)
    compiled = nonsmooth.simulate(model, 2.0, method=method, dt=1e-3)
    monkeypatch.setattr(sim._FixedStepper, "_compiled_step", lambda self, t_next: False)
    python = nonsmooth.simulate(model, 2.0, method=method, dt=1e-3)
    assert [(e.kind, e.after) for e in compiled.events] == [
        (e.kind, e.after) for e in python.events]
    np.testing.assert_allclose([e.t for e in compiled.events], [e.t for e in python.events],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.q, python.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.F_T, python.F_T, rtol=0, atol=1e-9)
    assert compiled.diagnostics["n_evaluations"] == python.diagnostics["n_evaluations"]


@pytest.mark.parametrize("method", ["RK4", "Euler"])
def test_the_per_step_kernel_matches_the_python_step(method, monkeypatch):
    """With output times (``t_eval``) the fixed-step run takes one compiled call per step
    (``PlanarFamily.step``: ``fixed_step.planar_fixed_step``, the template's RK4) instead of the
    whole phase; its steps equal the Python steps (``run.steppers._rk4_step``)."""
    import importlib

    from nonsmooth.planar import family as planar_family

    sim = importlib.import_module("nonsmooth.simulate")
    model = load("stick_slip_oscillator").build(v_belt=0.2, mu_s=0.5)
    t_eval = np.linspace(0.0, 2.0, 37)  # between step ends (on them: the whole phase compiled)
    calls = []
    step = planar_family.PlanarFamily.step
    monkeypatch.setattr(planar_family.PlanarFamily, "step",
                        lambda self, *a: calls.append(1) or step(self, *a))
    compiled = nonsmooth.simulate(model, 2.0, method=method, dt=1e-3, t_eval=t_eval)
    assert len(calls) > 1900  # the steps were taken by the kernel
    monkeypatch.setattr(sim._FixedStepper, "_compiled_step", lambda self, t_next: False)
    python = nonsmooth.simulate(model, 2.0, method=method, dt=1e-3, t_eval=t_eval)
    assert len(compiled.events) >= 2
    assert [(e.kind, e.after) for e in compiled.events] == [
        (e.kind, e.after) for e in python.events]
    np.testing.assert_allclose([e.t for e in compiled.events], [e.t for e in python.events],
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.q, python.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(compiled.F_T, python.F_T, rtol=0, atol=1e-9)


def test_the_norm_bound_certificate_never_contradicts_the_eigenvalues():
    """``_certify_bound`` (the runtime-free evaluation's certificate: norms, no eigenvalues)
    says ``OK`` only where ``_certify`` (spectral radius, 2-norm, eigenvalues of
    ``I - A diag(faces)``) does, and decides most well-conditioned load equations; one load
    row is decided exactly, as there."""
    from nonsmooth.planar import kernels

    rng = np.random.default_rng(11)
    decided = agreed = 0
    for _ in range(600):
        k = int(rng.integers(1, 7))
        A = rng.normal(0.0, float(rng.choice([0.05, 0.2, 0.5, 1.0])), (k, k))
        faces = rng.choice([1.0, -1.0, 0.0], size=k, p=[0.45, 0.45, 0.1])
        Kf = np.eye(k) - A * faces
        jam = float(rng.choice([1e-6, 0.05, 0.5]))
        exact = kernels._certify(A, Kf, jam)
        bound = kernels._certify_bound(A, Kf, jam)
        if k == 1:
            assert bound == exact, (A, faces, jam)
            continue
        assert bound in (kernels.OK, kernels.GENERAL), bound
        if bound == kernels.OK:
            decided += 1
            agreed += exact == kernels.OK
    assert agreed == decided > 100
