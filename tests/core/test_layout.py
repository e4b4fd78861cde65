"""The layouts' one owner (``nonsmooth.core.layout``) and the status codes
(``nonsmooth.core.status``) against the kernels that use them today: the evaluation buffer, the
plan's blocks, the state's offsets, and the plan vector ``Dynamics`` packs, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from nonsmooth.core import layout, status
from nonsmooth.core.layout import (
    EVAL_FIELDS,
    N_WORK,
    PlanBuilder,
    StateLayout,
    eval_offsets,
    evaluation_layout,
    plan_offsets,
    plan_slices,
)

RNG = np.random.default_rng(20)
SIZES = [tuple(int(x) for x in RNG.integers(0, 9, 5)) + (bool(RNG.integers(2)),)
         for _ in range(40)] + [(0, 0, 0, 0, 0, False), (1, 0, 0, 0, 0, True)]


# ------------------------------------------------------------------------------ evaluation buffer
@pytest.mark.parametrize("n, m, p, k, n_z, state_mass", SIZES)
def test_evaluation_layout_is_the_kernels(n, m, p, k, n_z, state_mass):
    from nonsmooth.planar import kernels

    assert evaluation_layout(n, m, p, k, state_mass, n_z) == kernels.evaluation_layout(
        n, m, p, k, state_mass, n_z)
    offsets = eval_offsets(n, m, p, k, n_z, state_mass)
    assert len(offsets) == len(EVAL_FIELDS) + 1
    assert all(type(o) is int for o in offsets)
    assert offsets[-1] == kernels.evaluation_layout(n, m, p, k, state_mass, n_z)["size"]


def test_the_hand_offsets_of_the_kernels_are_the_layouts():
    """The offsets kernels recompute by hand (``_derivative``, ``_stage_loads``,
    ``dop853``'s event offsets) are those of ``eval_offsets``."""
    n, m, p, k, n_z = 3, 2, 4, 5, 2
    o = dict(zip(EVAL_FIELDS, eval_offsets(n, m, p, k, n_z, False), strict=False))
    assert o["powers"] == n + m + 4 * p + k
    assert o["dz"] == o["powers"] + 6 + 2 * m + k * k + k
    assert o["A"] == n + m + 4 * p + k + 6 + 2 * m
    assert (o["F_T"], o["v_T"], o["N"], o["lam_abs"]) == (n + m + p, n + m + 2 * p,
                                                          n + m + 3 * p, n + m + 4 * p)


# ------------------------------------------------------------------------------ the plan
@pytest.mark.parametrize("n, m, p, k, n_z, state_mass", SIZES[:20])
def test_plan_offsets_are_the_kernels_plan_parts(n, m, p, k, n_z, state_mass):
    from nonsmooth.core import stage

    offsets = plan_offsets(p, k, m)
    plan = np.arange(offsets[-1], dtype=float)
    plan[:layout.N_HEADER] = (n, m, p, k, state_mass, 20.0, 100.0, 1e-6, n_z, 0.0)
    parts = stage._plan_parts.py_func(plan)
    assert parts[:4] == (n, m, p, k)
    views = plan_slices(p, k, m)
    for name, got in zip([b for b, _ in layout.PLAN_BLOCKS], parts[4:], strict=True):
        np.testing.assert_array_equal(plan[views[name]], got, err_msg=name)
    assert layout.N_HEADER == stage.N_HEADER and layout.N_LAW == stage.N_LAW
    header = (layout.H_N, layout.H_M, layout.H_P, layout.H_K, layout.H_STATE_MASS,
              layout.H_2ALPHA, layout.H_BETA2, layout.H_JAM, layout.H_NZ, layout.H_RADIAL)
    assert header == tuple(range(10))


def test_the_plan_builder_refuses_a_missing_field_or_a_wrong_size():
    b = PlanBuilder(2, 1, 1, 1)
    with pytest.raises(ValueError, match="block 'mu' has 2 values"):
        b.block("mu", [1.0, 2.0])
    with pytest.raises(ValueError, match="no header field"):
        b.header(n=3)
    with pytest.raises(ValueError, match="not set"):
        b.build()


def _legacy_plan(dyn) -> np.ndarray:
    """The plan as ``Dynamics._compile_plan`` packed it before ``PlanBuilder`` (a copy of
    that code)."""
    from nonsmooth.loads import JAM_MARGIN
    from nonsmooth.planar import kernels

    sysm = dyn.system
    tables = getattr(sysm, "tables", None)
    n, m, p = dyn.n, dyn.m, dyn.p
    k = len(sysm.abs_rows)
    state_mass = tables is not None and tables.has_state_mass
    drivers = np.zeros(m)
    drivers[sysm.driver_rows] = 1.0
    kinds, params, z_at, radial = [], [], [], []
    for i, law in enumerate(dyn.laws):
        par = np.zeros(kernels.N_LAW)
        if law.name == "lugre":
            kinds.append(kernels.LUGRE)
            effect = {"ALL": 0.0, "STICTION": 1.0, "SLIDING": 2.0}[law.effect]
            par[:8] = (law._lo, law._gap, law.v_s, law.sigma0, law.sigma1, law._visc,
                       effect, law.mu_d)  # (the ninth: a patch pair's pressure code, 0)
        elif law.name == "regularized":
            kinds.append(kernels.REGULARIZED)
            par[:6] = (law.coulomb, law.stiction_extra, law.falloff_vel, law.stribeck_vel,
                       law.viscous, float(law.normal_load))
        else:
            kinds.append(kernels.COULOMB)
        params.append(par)
        z_at.append(dyn.z_slices[i].start if law.n_states else -1)
        rows = sysm.pair_radial[i]
        radial += [n + rows[0], n + rows[1]] if rows else [-1, -1]
    return np.concatenate((
        [n, m, p, k, float(state_mass), dyn._2a, dyn._b2, JAM_MARGIN, dyn.n_z,
         float(dyn._radial)],
        dyn._mu, dyn._preload, kinds, np.concatenate(params) if params else [], z_at,
        radial, n + np.asarray(sysm.abs_rows, dtype=float),
        np.asarray(sysm.normal_rows, dtype=float), drivers)).astype(float)


def _systems():
    """Every bundled model (both crank-rocker forms) and the test models of
    ``test_kernels`` and ``test_clutch``."""
    from nonsmooth import models

    out = {}
    for name in models.available():
        model = models.build(name)
        out[name] = model.system
    out["crank_rocker planar"] = models.build("crank_rocker", form="planar").system
    from test_clutch import _shafts
    from test_kernels import driven_slot, every_kind

    out["every kind"] = every_kind().compile()
    out["every kind, frictionless pin"] = every_kind(pin_friction=False).compile()
    out["driven slot"] = driven_slot().compile()
    out["clutch, constant N"] = _shafts(10.0).system
    out["clutch, N(t)"] = _shafts(lambda t: 10.0 * t).system
    return out


def test_the_plan_is_the_one_packed_before_bit_for_bit():
    """``Dynamics._compile_plan`` by ``PlanBuilder``: the same vector as the hand-packed
    concatenation, for every model and each built-in law, Baumgarte parameters included."""
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.simulate import resolve_laws

    checked = 0
    for name, system in _systems().items():
        for law in (None, "lugre", "regularized"):
            if law is not None and (not system.n_pairs or any(
                    getattr(pair, "patch", 0) for pair in system.pairs)):
                continue  # (a patch pair takes Coulomb's or the bristle law only)
            dyn = Dynamics(system, alpha=7.0, beta=3.0, laws=resolve_laws(system, law))
            if dyn._plan is None:
                continue
            from nonsmooth.core.layout import H_RADIAL

            if dyn._plan[H_RADIAL] == 2.0:  # the norm tail (spatial joint friction) came after
                continue  # the legacy packing: tests/spatial/test_spatial_compiled.py checks it
            if dyn.vector:  # so did the vector tail (a contact's friction in the plane)
                continue
            want = _legacy_plan(dyn)
            assert dyn._plan.dtype == want.dtype and dyn._plan.shape == want.shape, name
            assert np.array_equal(dyn._plan, want), (name, law)
            assert dyn._plan.tobytes() == want.tobytes(), (name, law)
            checked += 1
    assert checked >= 20


# ------------------------------------------------------------------------------ the state
def test_the_state_layout_slices_and_joins():
    L = StateLayout(3, 2, 4)
    assert (L.q, L.v, L.work, L.z) == (slice(0, 3), slice(3, 5), slice(5, 10), slice(10, 14))
    assert L.size == 14 and L.n_states == 9
    assert layout.state_offsets(3, 2) == (3, 5, 5 + N_WORK)
    y = np.arange(14.0)
    q, v, work, z = L.split(y)
    assert q.base is y and z.base is y  # views, not copies
    np.testing.assert_array_equal(L.join(q, v, work, z), y)
    np.testing.assert_array_equal(L.external(y), np.r_[y[:5], y[10:]])
    Y = np.arange(28.0).reshape(2, 14)
    Q, V, WORK, Z = L.rows(Y)
    assert Q.shape == (2, 3) and V.shape == (2, 2) and WORK.shape == (2, 5) and Z.shape == (2, 4)
    assert StateLayout(3, 2, 4) == L and hash(StateLayout(3, 2, 4)) == hash(L)
    with pytest.raises(ValueError):
        StateLayout(-1, 2)


def test_the_state_layout_is_the_kernels_derivative():
    """``core.stage._derivative`` writes ``dy = [v, dv, powers, dz]`` at the layout's offsets."""
    from nonsmooth.core import stage

    n, m, p, k, n_z = 3, 2, 2, 1, 2
    L = StateLayout(n, n, n_z)
    E = evaluation_layout(n, m, p, k, False, n_z)
    y, out, dy = RNG.normal(size=L.size), RNG.normal(size=E["size"]), np.zeros(L.size)
    stage._derivative.py_func(y, out, dy, n, m, p, k, n_z)
    want = np.zeros(L.size)
    want[L.q], want[L.v] = y[L.v], out[slice(*E["dv"])]
    want[L.work], want[L.z] = out[slice(*E["powers"])], out[slice(*E["dz"])]
    np.testing.assert_array_equal(dy, want)


def test_the_absolute_tolerance_of_the_state():
    L = StateLayout(2, 2, 1)
    got = L.atol(1e-9, ("a", "b"), rtol=1e-6, energy=10.0)
    np.testing.assert_array_equal(got, [1e-9] * 4 + [1e-9] * 4 + [1e-6 * 10.0] + [1e-9])
    vec = L.atol([1, 2, 3, 4, 5], ("a", "b"))
    np.testing.assert_array_equal(vec, [1, 2, 3, 4, 1, 1, 1, 1, 1, 5])
    with pytest.raises(ValueError, match=r"y = \[q \(2\), v \(2\), z \(1\)\]: shape \(5,\) "
                                         r"\(coordinates: a, b\)"):
        L.atol([1.0, 2.0], ("a", "b"))
    with pytest.raises(ValueError, match=r"atol\[1\] = -2.0 is invalid"):
        L.atol([1, -2, 3, 4, 5], ("a", "b"))


# ------------------------------------------------------------------------------ status codes
def test_the_status_codes_are_the_kernel_modules():
    from nonsmooth.planar import dop853, fixed_step, kernels

    for name in status.EVALUATION_STATUSES:
        assert getattr(status, name) == getattr(kernels, name), name
    assert status.ERR_COINCIDENT == kernels.ERR_COINCIDENT
    for prefix, module, names in (("DOP853_", dop853, status.DOP853_STATUSES),
                                  ("FIXED_", fixed_step, status.FIXED_STATUSES)):
        for i, name in enumerate(names):
            assert getattr(status, prefix + name) == getattr(module, name) == i, name


# ------------------------------------------------------------------------------ the family contract
def test_both_families_satisfy_the_contract():
    """``System``'s defaults and the planar and generalized families' own parts
    (``nonsmooth.family``): the layout, the names, the identity map, user values, failures'
    words (the messages ``Dynamics`` raised before, byte for byte) and the cache key."""
    from nonsmooth import models
    from nonsmooth.core.status import COINCIDENT, NONFINITE
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.family import Family
    from nonsmooth.simulate import resolve_laws

    planar = models.build("crank_rocker", form="planar").system
    general = models.build("crank_rocker").system
    for system in (planar, general):
        assert isinstance(system, Family)
        n = system.n_q
        assert system.layout == StateLayout(n, n, 0)
        assert system.layout_with(3) == StateLayout(n, n, 3)
        assert system.velocity_names == system.coordinate_names
        assert system.row_names == system.constraint_names
        assert system.pair_names == [pr.name for pr in system.pairs]
        q, v = np.arange(n, dtype=float), np.ones(n)
        assert system.qdot(q, v) is v and system.project(q) is q
        assert system.name_failure(NONFINITE, -1, 1.25, q, v) == (
            "the state became non-finite at t = 1.25 s: the integration is unstable; reduce dt "
            "or use an adaptive method")
        dyn = Dynamics(system, laws=resolve_laws(system, "lugre"))
        assert dyn.layout == system.layout_with(dyn.n_z) and dyn.n_z > 0
    assert planar.kernel_key() == "nonsmooth.planar.kernels"
    assert general.kernel_key() is not None and len(general.kernel_key()) == 20
    assert general.constant_mass is general._M and planar.constant_mass is planar.tables.mass
    assert not general.has_user_functions and general.user_values(0.0, q, v) is None
    row = planar.tables.names.index(planar.tables.names[0])
    assert planar.name_failure(COINCIDENT, row, 0.5, q, v) == (
        f"spring/damper '{planar.tables.names[row]}': its two points coincide at t = 0.5 s; "
        "its direction is undefined")
    family = Dynamics(general).compiled_family()
    assert family is not None and family.data == (general.compiled.parameters,)
    assert hasattr(family.module, "fixed_phase") and hasattr(family.module, "dop853_phase")
    assert not family.calls_back and not family.steps_compiled
    family = Dynamics(planar).compiled_family()  # the planar kernels over its tables
    assert family.data == (planar.tables.ints, planar.tables.floats, planar.tables.mass)
    assert family.pair_velocity and family.steps_compiled


def test_the_offset_functions_compile_runtime_free_and_inline():
    """``eval_offsets``, ``plan_offsets`` and ``state_offsets`` are plain integer arithmetic:
    numba compiles them as the kernels will take them (``inline="always"``, no runtime) and
    they give the Python values."""
    from numba import njit

    ev = njit(inline="always", _nrt=False)(eval_offsets)
    pl = njit(inline="always", _nrt=False)(plan_offsets)
    st = njit(inline="always", _nrt=False)(layout.state_offsets)

    @njit(_nrt=False)
    def offsets(n, m, p, k, n_z, state_mass):
        return ev(n, m, p, k, n_z, state_mass), pl(p, k, m), st(n, n)

    for n, m, p, k, n_z, state_mass in SIZES[:5]:
        got = offsets(n, m, p, k, n_z, state_mass)
        assert got == (eval_offsets(n, m, p, k, n_z, state_mass), plan_offsets(p, k, m),
                       layout.state_offsets(n, n))
