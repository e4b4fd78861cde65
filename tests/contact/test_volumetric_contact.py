"""The volumetric law as the normal law of a spatial ``Contact`` (``normal=Volumetric(...)``),
end to end: the compiled contacts against the Python reference (``spatial.contact``, built on
``nonsmooth.contact.interference``) for every shape on a plane, a plane on a body, with friction
at the centroid; a sphere and a box settling at the depths their weights give (the cap's volume,
``m g / (k_v A)``); the energy of an undamped contact conserved (its elastic energy ``k_v V
h_c``); the outputs; and the contacts the law cannot make, named."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import nonsmooth
from nonsmooth.contact import (
    Box,
    Capsule,
    Circle,
    Contact,
    Cylinder,
    Ellipsoid,
    Line,
    Plane,
    Sphere,
    Volumetric,
)
from nonsmooth.errors import ModelError
from nonsmooth.models import build, load
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial.rotation import from_axis_angle

G = 9.81
FLOOR = Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))


def _scene() -> SpatialModel:
    """Every shape on the floor, tilted into a partial regime (a box on an edge, a cylinder
    and a capsule tilted, an ellipsoid), a sphere under a plate (a plane on body a), with
    friction (sliding, spin and rolling pairs at the centroid; patch friction on the cylinder,
    its radius from the patch, and on the ellipsoid, its radius given)."""
    mdl = SpatialModel("volumetric scene")
    law = Volumetric(k_v=2e8, damping=0.4)
    tilt = from_axis_angle((1.0, 0.3, 0.0), 0.35)
    bodies = {
        "ball": (Sphere(0.05), (0.0, 0.0, 0.046)),
        "box": (Box((0.1, 0.06, 0.04), position=(0.01, 0.0, 0.0)), (0.5, 0.0, 0.09)),
        "can": (Cylinder(0.04, 0.12), (1.0, 0.0, 0.065)),
        "pill": (Capsule(0.03, 0.1), (1.5, 0.0, 0.045)),
        "egg": (Ellipsoid(0.05, 0.04, 0.03), (2.0, 0.0, 0.037)),
    }
    for k, (name, (shape, r0)) in enumerate(bodies.items()):
        body = mdl.add(Body(name, 1.0 + k, (0.01, 0.012, 0.014), position=r0,
                            orientation=tilt))
        mdl.add(Contact(f"{name}_floor", body, shape, ground, FLOOR, normal=law, mu=0.3,
                        torsion_radius=0.01 if k == 0 else None,
                        rolling_arm=0.002 if k == 1 else None,
                        patch_friction="uniform" if k == 2 else "hertz" if k == 4 else None,
                        patch_radius=0.03 if k == 4 else None))
    plate = mdl.add(Body("plate", 3.0, (0.02, 0.02, 0.04), position=(3.0, 0.0, 0.5)))
    ball = mdl.add(Body("ball2", 1.0, (0.001,) * 3, position=(3.0, 0.01, 0.452)))
    mdl.add(Contact("under_plate", plate, Plane((0, 0, -0.05), (0, 0, -1)), ball,
                    Sphere(0.05), normal=Volumetric(k_v=1e8, damping=1.0), mu=0.2))
    return mdl


def test_the_compiled_volumetric_contacts_are_the_python_reference():
    """``kernels.spatial_contact_terms`` (the compiled phases' arithmetic, through
    ``contact.volume.volume_into``) against the Python reference (``compiled_contacts =
    False``: ``nonsmooth.contact.interference`` and the law's formulas) at random penetrating
    states: forces, damping power, normal forces, gaps, friction rows and their bias, and the
    contacts' elastic energy (compiled ``spatial_potentials`` against the reference's)."""
    rng = np.random.default_rng(8)
    mdl = _scene()
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    impact = np.zeros(len(system.contact_names))
    n_pen = 0
    for _ in range(6):
        q = q0 + rng.normal(scale=3e-3, size=q0.size)
        v = rng.normal(size=v0.size)
        system.compiled_contacts = True
        got = (system.contact_forces(0.0, q, v, impact), system.contact_gaps(0.0, q),
               system.terms(0.0, q, v).W, system.tangential_bias(0.0, q, v))
        system.compiled_contacts = False
        want = (system.contact_forces(0.0, q, v, impact), system.contact_gaps(0.0, q),
                system.terms(0.0, q, v).W, system.tangential_bias(0.0, q, v))
        (f1, P1, N1), (f2, P2, N2) = got[0], want[0]
        scale = np.max(np.abs(f2))
        assert np.allclose(f1, f2, rtol=1e-11, atol=1e-11 * scale)
        assert np.allclose(N1, N2, rtol=1e-11, atol=1e-11 * np.max(N2))
        assert P1 == pytest.approx(P2, rel=1e-10, abs=1e-10 * scale)
        n_pen += int(np.count_nonzero(N2 > 0.0))
        assert np.allclose(got[1], want[1], rtol=1e-12, atol=1e-15)
        assert np.allclose(got[2], want[2], rtol=1e-10, atol=1e-10)
        assert np.allclose(got[3], want[3], rtol=1e-6, atol=1e-6)
        reference = system._contact_energy(q)
        assert reference > 0.0
        compiled = _compiled_potential(system, q) - _compiled_potential(system, q, contacts=False)
        assert compiled == pytest.approx(reference, rel=1e-9)
    assert n_pen >= 20  # (most contacts penetrate at most states)


def _compiled_potential(system, q, contacts: bool = True) -> float:
    """The compiled potential energy at ``q`` (``kernels.spatial_potentials``), with or without
    the contacts' rows in the table."""
    from nonsmooth.spatial.contact_kernels import CONTACT
    from nonsmooth.spatial.kernels import spatial_potentials

    fam = system.compiled_family(64)
    it, ft, bt = fam.data[0], fam.data[1], fam.data[2]
    if not contacts:
        keep = it[:, 0] != CONTACT
        it, ft = np.ascontiguousarray(it[keep]), np.ascontiguousarray(ft[keep])
    return float(spatial_potentials(it, ft, bt, q[None])[0])


def _cap_depth(R: float, k_v: float, weight: float) -> float:
    """The depth ``d`` (m) at which ``k_v pi d^2 (3R - d) / 3 = weight``."""
    return brentq(lambda d: k_v * math.pi * d * d * (3.0 * R - d) / 3.0 - weight, 0.0, R,
                  xtol=1e-16, rtol=1e-15)


def test_a_sphere_settles_at_the_depth_where_its_cap_carries_its_weight():
    """A 1 kg ball (R 0.05 m) dropped onto a foundation ``k_v = 1e9 N/m^3`` with damping comes
    to rest where ``k_v V = m g``, ``V`` the spherical cap's volume (``brentq`` on the closed
    form): its depth to 1e-9, ``.V`` to 1e-9, ``.N = m g``, the centroid's height the cap's."""
    R, m, k_v = 0.05, 1.0, 1e9
    mdl = SpatialModel("ball on a foundation")
    ball = mdl.add(Body("ball", m, (0.4 * m * R * R,) * 3, position=(0.0, 0.0, R + 1e-3)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, FLOOR,
                    normal=Volumetric(k_v=k_v, damping=2.0)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 4.0, t_eval=[0.0, 3.9, 4.0], rtol=1e-11, atol=1e-13)
    d = _cap_depth(R, k_v, m * G)
    assert R - r["ball.z"][-1] == pytest.approx(d, rel=1e-9)
    V = m * G / k_v
    assert r["floor.V"][-1] == pytest.approx(V, rel=1e-9)
    assert r["floor.N"][-1] == pytest.approx(m * G, rel=1e-9)
    below = 3.0 * (2.0 * R - d) ** 2 / (4.0 * (3.0 * R - d))  # the cap's centroid below
    assert r["floor.z"][-1] == pytest.approx(r["ball.z"][-1] - below, rel=1e-9)
    assert "touch" in [e.kind for e in r.events.filter("floor")]


@pytest.mark.parametrize("mu", [None, 0.5])
def test_a_box_rests_flat_at_its_weight_over_k_v_a(mu):
    """A box (0.2 x 0.12 m footprint) settles flat at depth ``m g / (k_v A)`` with the volume
    ``m g / k_v``. Without friction its force's point (``.x .y``) is under its centre; with
    friction at that point the pair sticks (mode 0) and the box does not creep (a friction
    force locked in as it settled may tilt it by a micro-radian, which moves the centroid)."""
    hx, hy, hz, m, k_v = 0.1, 0.06, 0.04, 2.0, 5e8
    mdl = SpatialModel("box on a foundation")
    box = mdl.add(Body("box", m, (0.003, 0.004, 0.005), position=(0.3, -0.2, hz + 1e-4)))
    mdl.add(Contact("floor", box, Box((hx, hy, hz)), ground, FLOOR,
                    normal=Volumetric(k_v=k_v, damping=3.0), mu=mu))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 3.0, t_eval=[2.9, 3.0], rtol=1e-11, atol=1e-13)
    A = 4.0 * hx * hy
    assert hz - r["box.z"][-1] == pytest.approx(m * G / (k_v * A), rel=1e-8)
    assert r["floor.V"][-1] == pytest.approx(m * G / k_v, rel=1e-8)
    if mu is None:
        assert (r["floor.x"][-1], r["floor.y"][-1]) == pytest.approx((0.3, -0.2), abs=1e-12)
    else:
        assert r["floor.mode"][-1] == 0.0
        assert abs(r["box.x"][-1] - r["box.x"][0]) < 1e-11
        assert abs(r["box.y"][-1] - r["box.y"][0]) < 1e-11


def test_an_undamped_volumetric_contact_keeps_the_energy():
    """A box dropped on an edge onto an undamped foundation, no friction: it bounces and rocks
    on its edge and face regimes; ``T + V`` (with the contact's ``k_v V h_c``) is constant to
    the integration's tolerance, and the energy balance closes."""
    mdl = SpatialModel("box bouncing on a foundation")
    tilt = from_axis_angle((1.0, 0.0, 0.0), 0.4)
    box = mdl.add(Body("box", 1.0, (0.002, 0.003, 0.004), position=(0.0, 0.0, 0.1),
                       orientation=tilt, velocity=(0.0, 0.0, -0.5)))
    mdl.add(Contact("floor", box, Box((0.08, 0.05, 0.03)), ground, FLOOR,
                    normal=Volumetric(k_v=1e8)))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.4, t_eval=np.linspace(0.0, 0.4, 401), rtol=1e-11,
                           atol=1e-13)
    assert np.max(r["floor.V"]) > 0.0 and np.min(r["floor.V"]) == 0.0  # it bounced
    E = r.T + r.V
    assert np.max(np.abs(E - E[0])) < 1e-8 * (1.0 + abs(E[0]))
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_damping_and_the_rolling_resistance_take_energy_out_as_the_balance_counts():
    """A cylinder rolling on its side on a damped foundation with exact stick at its patch:
    the rolling resistance ``-k_v a J_t omega`` slows it (``.Ty`` opposes the spin) and the
    energy balance, with the contact's damping work, closes."""
    R, L, m = 0.05, 0.1, 1.0
    mdl = SpatialModel("rolling cylinder")
    side = from_axis_angle((1.0, 0.0, 0.0), math.pi / 2)  # the axis along y
    I_ax, I_tr = 0.5 * m * R * R, m * (3 * R * R + L * L) / 12
    can = mdl.add(Body("can", m, (I_tr, I_tr, I_ax), position=(0.0, 0.0, R - 2e-5),
                       orientation=side, velocity=(0.5, 0.0, 0.0)))
    mdl.add(Contact("floor", can, Cylinder(R, L), ground, FLOOR,
                    normal=Volumetric(k_v=2e9, damping=0.5), mu=0.8))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 1.0, t_eval=np.linspace(0.0, 1.0, 101), rtol=1e-10,
                           atol=1e-12)
    assert r["can.vx"][-1] < r["can.vx"][1] < 0.5
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-7


@pytest.mark.parametrize("shapes, words", [
    ((Sphere(0.05), Sphere(0.05)), "needs a shape against a Plane"),
    ((Plane((0, 0, 0), (0, 0, 1)), Plane((0, 0, 0), (0, 0, 1))), "no closed-form geometry"),
    ((Circle(0.05), Line((0, 0), (0, 1))), "between spatial shapes only"),
])
def test_contacts_the_volumetric_law_cannot_make_are_named(shapes, words):
    a = Body("a", 1.0, (1e-3,) * 3, position=(0.0, 0.0, 0.05))
    with pytest.raises(ModelError, match="contact 'c'") as info:
        Contact("c", a, shapes[0], ground, shapes[1], normal=Volumetric(k_v=1e9))
    assert words in str(info.value)


@pytest.mark.parametrize("kwargs", [{"restitution": 0.5}, {"damping": "hunt-crossley"}])
def test_the_point_laws_arguments_are_refused_with_the_volumetric_one(kwargs):
    a = Body("a", 1.0, (1e-3,) * 3, position=(0.0, 0.0, 0.05))
    with pytest.raises(ModelError, match="not an argument of the volumetric law"):
        Contact("c", a, Sphere(0.05), ground, FLOOR, normal=Volumetric(k_v=1e9), **kwargs)


def test_a_sliding_spinning_puck_stops_both_at_once_at_the_independent_stop_time():
    """Model ``contact_puck``: Coulomb friction over the puck's uniformly loaded patch
    (``patch_friction="uniform"``, the Contensou factors) stops its sliding and its spin at the
    same instant: the engine's stop event against ``rigid_stop`` (the patch equations
    integrated by scipy over ``ln(omega0 / omega)``) to 1e-8 relative, its limit ratio ``v /
    (a omega)`` 0.653 (Farkas et al. 2003); the sliding and rim speeds on the way against the
    same equations in time; the ratio falling towards the limit; and after the stop the puck
    stays where it stopped (set-valued friction at rest)."""
    module = load("contact_puck")
    p = {"v0": 1.0, "omega0": 30.0, "a": 0.038, "mu": 0.2, "g": 9.81}
    t_stop, eps = module.rigid_stop(p["v0"], p["omega0"], p["a"], p["mu"], p["g"])
    assert eps == pytest.approx(module.limit_ratio(), rel=1e-9)
    assert eps == pytest.approx(0.653, abs=5e-4)
    r = nonsmooth.simulate(build("contact_puck"), 1.0, t_eval=np.linspace(0.0, 1.0, 201))
    stops = [e.t for e in r.events.filter("table") if e.kind not in ("start", "touch")]
    assert stops, [e.kind for e in r.events.filter("table")]
    assert stops[0] == pytest.approx(t_stop, rel=1e-8)
    # the speeds on the way: the patch equations in time (scipy), to 1e-7 m/s
    from scipy.integrate import solve_ivp

    from nonsmooth.contact.contensou import UNIFORM, contensou

    def rhs(t, y):
        f, tt = contensou(UNIFORM, y[0] / y[1])[:2]
        return [-p["mu"] * p["g"] * f, -2.0 * p["mu"] * p["g"] * tt]

    way = r.t < 0.99 * t_stop
    ref = solve_ivp(rhs, (0.0, r.t[way][-1]), [p["v0"], p["a"] * p["omega0"]],
                    t_eval=r.t[way], method="DOP853", rtol=1e-12, atol=1e-14)
    assert np.max(np.abs(r["v"][way] - ref.y[0])) < 1e-7
    assert np.max(np.abs(r["rim"][way] - ref.y[1])) < 1e-7
    ratio = r["ratio"][way]
    assert np.all(np.diff(ratio[ratio.size // 2:]) < 0.0) and ratio[-1] - eps < 0.015
    after = r.t > t_stop + 0.01
    assert np.all(r["table.mode"][after] == 0.0)
    assert np.ptp(r["puck.x"][after]) < 1e-12 and np.max(np.abs(r["puck.wz"][after])) < 1e-9


def test_a_sliding_spinning_thin_ring_stops_both_at_once_its_ratio_tending_to_one():
    """Model ``contact_puck`` with ``ring=1``: a thin ring (``I = m a^2``) whose load is on its
    rim (``patch_friction="ring"``) stops sliding and spinning at the same instant with ``v /
    (a omega)`` tending to 1 (Farkas et al. 2003: the instantaneous centre reaches the rim):
    the engine's stop against ``rigid_stop`` with the ring's factors to 1e-8 relative
    (measured 2.2e-9), the ratio within 1e-5 of 1 over the last 0.02 s (2.2e-6), at rest
    after the stop."""
    module = load("contact_puck")
    t_stop, eps = module.rigid_stop(1.0, 30.0, 0.038, 0.2, pressure=module.RING)
    assert eps == pytest.approx(1.0, abs=1e-9)
    assert module.limit_ratio(module.RING) == pytest.approx(1.0, abs=1e-12)
    r = nonsmooth.simulate(build("contact_puck", ring=1), 1.0,
                           t_eval=np.linspace(0.0, 1.0, 201))
    stops = [e.t for e in r.events.filter("table") if e.kind not in ("start", "touch")]
    assert stops[0] == pytest.approx(t_stop, rel=1e-8)
    near = (r.t < stops[0]) & (r.t > stops[0] - 0.02)
    assert near.any() and np.max(np.abs(r["ratio"][near] - 1.0)) < 1e-5
    disc = module.rigid_stop(1.0, 30.0, 0.038, 0.2)[0]  # (the disc stops 0.139 s earlier)
    assert t_stop - disc > 0.1
    after = r.t > stops[0] + 0.01
    assert np.all(r["table.mode"][after] == 0.0)
    assert np.max(np.abs(r["puck.wz"][after])) < 1e-9


@pytest.mark.parametrize(("factor", "tips"), [(0.9, False), (1.1, True)])
def test_a_box_rocked_about_its_edge_rocks_back_or_tips_over_at_the_rigid_threshold(factor,
                                                                                    tips):
    """Model ``contact_box_tipping``: a tall box on the volumetric mat set turning about a
    bottom edge at ``factor`` times the rigid critical spin (``critical_spin``: its energy
    about the edge lifts the centre of mass over the edge). The volume of interference goes
    from the face to a wedge under the edge and back, or to the side. At 0.9 it stays below
    the balance angle ``atan(hx / hz)`` (18.4 deg), falls back and rocks over its other edge;
    at 1.1 it passes it and comes to lie on its side (tilt 90 deg within 1 deg at 1.5 s); the
    energy balance closes to 1e-6 of its scale in both."""
    module = load("contact_box_tipping")
    m, hx, hz = 2.0, 0.05, 0.15
    spin = factor * module.critical_spin(m, hx, hz)
    r = nonsmooth.simulate(build("contact_box_tipping", omega0=spin), 1.5, method="DOP853",
                           t_eval=np.linspace(0.0, 1.5, 301))
    tilt, balance = r["tilt"], math.degrees(math.atan2(hx, hz))
    if tips:
        assert tilt.max() > 80.0 and abs(tilt[-1] - 90.0) < 1.0
    else:
        assert 5.0 < tilt.max() < balance and tilt.min() < -5.0
    assert r.diagnostics["energy_balance_scaled"] < 1e-6


# ------------------------------------------------ a patch at rest: its limit curve, exactly
def _resting_puck(torque, force=(0.0, 0.0, 0.0), pressure="uniform", *, m=0.17, a=0.038,
                  h=0.025, k_v=1e8, mu=0.2, mu_s=0.25):
    """``contact_puck``'s puck at rest on its table (a thin ring's inertia for ``pressure``
    ``"ring"``) with a torque and a force (constant or functions of time) about and at its
    centre of mass, which lies in its contact face (nothing tips it)."""
    from nonsmooth.spatial import Force, Torque

    ring = pressure == "ring"
    depth = m * 9.81 / (k_v * math.pi * a * a)
    I_z = (1.0 if ring else 0.5) * m * a * a
    I_x = m * ((6.0 if ring else 3.0) * a * a + h * h) / 12.0
    mdl = SpatialModel("resting puck")
    puck = mdl.add(Body("puck", m, (I_x, I_x, I_z), position=(0.0, 0.0, -depth)))
    mdl.add(Contact("table", puck, Cylinder(a, h, position=(0.0, 0.0, 0.5 * h)), ground,
                    FLOOR, normal=Volumetric(k_v=k_v), mu=mu, mu_s=mu_s,
                    patch_friction=pressure, patch_radius=a))
    mdl.add(Gravity(9.81))
    mdl.add(Torque("twist", puck, torque))
    mdl.add(Force("push", puck, force))
    return mdl, I_z


@pytest.mark.parametrize(("pressure", "spin"), [("uniform", 2.0 / 3.0), ("ring", 1.0)])
def test_a_patch_at_rest_under_a_growing_torque_slips_at_its_limit_curves_pure_spin(pressure,
                                                                                   spin):
    """A puck at rest twisted by ``M = k t``: it sticks until ``M`` reaches ``t(0) mu_s N a``
    (the limit curve's pure spin: 2/3 for a uniform pressure, 1 for a ring; the Euclidean
    bound ``|(F, M / a)| <= mu_s N`` would hold it to ``mu_s N a``), then spins without
    sliding, ``J omega' = k t - t(0) mu N a``: the slip event at ``t* = t(0) mu_s N a / k`` to
    1e-9 relative and ``omega`` at the end from that closed form to 1e-8."""
    m, a, mu, mu_s, k = 0.17, 0.038, 0.2, 0.25, 0.05
    mdl, J = _resting_puck(lambda t: (0.0, 0.0, k * t), pressure=pressure)
    N = m * 9.81
    t_star = spin * mu_s * N * a / k
    t_end = 1.5 * t_star
    r = nonsmooth.simulate(mdl, t_end, t_eval=np.linspace(0.0, t_end, 31))
    slips = [e.t for e in r.events.filter("table") if e.kind not in ("start", "touch")]
    assert slips and slips[0] == pytest.approx(t_star, rel=1e-9)
    held = r.t < 0.99 * t_star  # stuck: the friction torque balances k t, then mu N a t(0)
    np.testing.assert_allclose(r["table.spin_torque"][held], k * r.t[held], rtol=1e-6,
                               atol=1e-12)
    assert r["table.spin_torque"][-1] == pytest.approx(spin * mu * N * a, rel=1e-6)
    omega = (0.5 * k * (t_end ** 2 - t_star ** 2) - spin * mu * N * a * (t_end - t_star)) / J
    assert r["puck.wz"][-1] == pytest.approx(omega, rel=1e-8)
    assert np.max(np.abs(r["puck.vx"])) < 1e-9
    assert np.max(np.abs(r["puck.wz"][r.t < 0.99 * t_star])) < 1e-12


def test_the_python_stage_slips_a_twisted_patch_at_its_limit_curve_too(monkeypatch):
    """The Python path (no compiled phases, evaluations or terms: ``vector_friction``'s
    reserve, the gauge of ``contensou.limit_gauge``, and ``patch_direction`` at rest) slips
    the uniformly loaded puck twisted by ``M = k t`` at ``t* = 2/3 mu_s N a / k`` too, to
    1e-9 relative."""
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.spatial.model import SpatialSystem

    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size, **kw: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)
    monkeypatch.setattr(Dynamics, "_evaluate_compiled", lambda self, *a, **k: None)
    monkeypatch.setattr(Dynamics, "_evaluate_face_free", lambda self, *a, **k: None)
    k, N, a = 0.05, 0.17 * 9.81, 0.038
    t_star = 2.0 / 3.0 * 0.25 * N * a / k
    mdl, _ = _resting_puck(lambda t: (0.0, 0.0, k * t))
    r = nonsmooth.simulate(mdl, 1.2 * t_star, t_eval=[0.0, 1.2 * t_star])
    slips = [e.t for e in r.events.filter("table") if e.kind not in ("start", "touch")]
    assert slips and slips[0] == pytest.approx(t_star, rel=1e-9)


def test_a_patch_at_rest_loaded_inside_the_ball_but_outside_its_limit_curve_slips_exactly():
    """A puck at rest pushed by ``F = 0.5 mu_s N`` and twisted by ``M = 0.6 mu_s N a``:
    inside the Euclidean ball (0.78 mu_s N) but outside the limit curve (its gauge 1.1 mu_s
    N), so it slips from the start, along the one direction consistent with Contensou's
    friction: ``eps = v / (a omega)`` constant with ``m v' = F - mu N f(eps)``, ``J omega' = M -
    mu N a t(eps)`` and ``v' / (a omega') = eps`` (brentq); the velocities at 0.05 s from those
    constant accelerations to 1e-8 relative; the sideways slip under 1e-5 of the sliding
    speed (measured 7e-6: the compliant table lets the puck tilt by 2e-9 rad under its
    friction, which acts 2 um below its centre of mass, and the pressure's centroid, where
    the friction acts, moves off its axis, so its spin adds a sideways slip there)."""
    from nonsmooth.contact.contensou import UNIFORM, contensou, limit_gauge

    m, a, mu, mu_s = 0.17, 0.038, 0.2, 0.25
    N = m * 9.81
    F, M = 0.5 * mu_s * N, 0.6 * mu_s * N * a
    assert math.hypot(F, M / a) < mu_s * N < limit_gauge(UNIFORM, F, M / a)
    mdl, J = _resting_puck((0.0, 0.0, M), force=(F, 0.0, 0.0))

    def accelerations(eps):
        f, t = contensou(UNIFORM, eps)[:2]
        return (F - mu * N * f) / m, a * (M - mu * N * a * t) / J  # (v', a omega')

    eps = brentq(lambda e: accelerations(e)[0] - e * accelerations(e)[1], 1e-6, 50.0,
                 xtol=1e-15, rtol=1e-15)
    dv, dw = accelerations(eps)
    r = nonsmooth.simulate(mdl, 0.05, t_eval=[0.0, 0.025, 0.05])
    assert r["puck.vx"][-1] == pytest.approx(dv * 0.05, rel=1e-8)
    assert a * r["puck.wz"][-1] == pytest.approx(dw * 0.05, rel=1e-8)
    assert np.max(np.abs(r["puck.vy"])) < 1e-5 * r["puck.vx"][-1]


@pytest.mark.parametrize("law", ["lugre", "regularized"])
def test_a_patch_pair_refuses_a_law_without_the_contensou_coupling(law):
    """``simulate(..., friction=law)`` on the puck: its patch pair couples sliding and spin
    with Coulomb's law or the bristle law only; another law is refused by name, not run with
    a circle's coupling."""
    with pytest.raises(ModelError, match="couples its sliding and spin with Coulomb's law or "
                                         "the bristle law"):
        nonsmooth.simulate(build("contact_puck"), 0.01, friction=law)


# ------------------------------------------------ the bristle law over a patch (smooth)
@pytest.mark.parametrize("pressure", [1, 2, 3])
def test_the_patch_bristle_laws_steady_sliding_is_contensous_coupled_friction(pressure):
    """``Bristle.vector_coefficients`` over a patch at its steady state for the slip
    (``vector_initial_state``): the bristles' rates vanish and the friction coefficients are
    ``(beta mu_st + (1 - beta) mu_d) c(v / |v|)``, Contensou's coupled coefficients
    (``contensou_vector``) at the Stribeck level, to 1e-13 over random slips with pure
    sliding and pure spin among them; without the patch, ``v / |v|`` (a circle)."""
    from nonsmooth.contact.contensou import contensou_vector
    from nonsmooth.friction import Bristle

    law = Bristle(mu_d=0.2, mu_s=0.3, v_s=0.01, sigma0=1e4, sigma1=10.0, tau_dw=0.05)
    rng = np.random.default_rng(pressure)
    slips = [*rng.normal(scale=0.02, size=(20, 3)), np.array([0.01, -0.02, 0.0]),
             np.array([0.0, 0.0, -0.03])]
    for v in slips:
        z = law.vector_initial_state(v, pressure)
        a, b, rates = law.vector_coefficients(v, z, pressure)
        speed = float(np.linalg.norm(v))
        beta = math.exp(-(speed / law.v_s) ** 2)
        level = beta * law.stiction(z[3]) + (1.0 - beta) * law.mu_d
        c = np.array(contensou_vector(pressure, *v))
        np.testing.assert_allclose(rates[:3], 0.0, atol=1e-13 * speed)
        np.testing.assert_allclose(a, level * c, rtol=0, atol=1e-13)
        plain = law.vector_coefficients(v, law.vector_initial_state(v), 0)[0]
        np.testing.assert_allclose(plain, level * v / speed, rtol=0, atol=1e-13)


def test_a_puck_with_the_patch_bristle_law_slides_and_spins_as_coulombs_patch_does(
        monkeypatch):
    """The puck sliding and spinning with the bristle law over its patch (``law="bristle"``,
    ``patch_friction="uniform"``, Stribeck speed 1 mm/s, DOP853): while it moves fast its
    sliding and rim speeds follow the Coulomb patch equations (scipy, to 1e-7 m/s over the
    first 0.3 s of its 0.72 s; measured 7e-9: far above the Stribeck speed its force is
    ``mu_d N c``), its ratio falls towards 0.653 as Coulomb's does; the compiled
    and the Python stage agree (to 1e-9 m/s); the plain bristle law with a spin radius does
    not follow them (uncoupled: off by more than 0.01 m/s)."""
    from scipy.integrate import solve_ivp

    from nonsmooth.contact.contensou import UNIFORM, contensou
    from nonsmooth.spatial import Body

    p = {"m": 0.17, "a": 0.038, "h": 0.025, "k_v": 1e8, "mu": 0.2, "v0": 1.0, "omega0": 30.0}

    def puck(patch):
        m, a, h = p["m"], p["a"], p["h"]
        depth = m * 9.81 / (p["k_v"] * math.pi * a * a)
        mdl = SpatialModel("bristle puck")
        body = mdl.add(Body("puck", m, (m * (3 * a * a + h * h) / 12,) * 2 + (0.5 * m * a * a,),
                            position=(0.0, 0.0, -depth), velocity=(p["v0"], 0.0, 0.0),
                            angular_velocity=(0.0, 0.0, p["omega0"])))
        extra = {"patch_friction": "uniform", "patch_radius": a} if patch else \
            {"torsion_radius": 2.0 * a / 3.0}
        mdl.add(Contact("table", body, Cylinder(a, h, position=(0.0, 0.0, 0.5 * h)), ground,
                        FLOOR, normal=Volumetric(k_v=p["k_v"]), mu=p["mu"], law="bristle",
                        friction_params={"sigma0": 1e4, "sigma1": 20.0, "v_s": 1e-3,
                                         "tau_dw": 0.05}, **extra))
        mdl.add(Gravity(9.81))
        return mdl

    grid = np.linspace(0.0, 0.3, 7)
    r = nonsmooth.simulate(puck(True), 0.3, t_eval=grid, method="DOP853")

    def rhs(t, y):
        f, tt = contensou(UNIFORM, y[0] / y[1])[:2]
        return [-p["mu"] * 9.81 * f, -2.0 * p["mu"] * 9.81 * tt]

    ref = solve_ivp(rhs, (0.0, 0.3), [p["v0"], p["a"] * p["omega0"]], t_eval=grid,
                    method="DOP853", rtol=1e-12, atol=1e-14)
    v, rim = np.hypot(r["puck.vx"], r["puck.vy"]), p["a"] * np.abs(r["puck.wz"])
    assert np.max(np.abs(v - ref.y[0])) < 1e-7 and np.max(np.abs(rim - ref.y[1])) < 1e-7
    ratio = v / rim
    assert np.all(np.diff(ratio[len(ratio) // 2:]) < 0.0)
    plain = nonsmooth.simulate(puck(False), 0.2, t_eval=grid[:5], method="DOP853")
    assert np.max(np.abs(np.hypot(plain["puck.vx"], plain["puck.vy"]) - ref.y[0][:5])) > 0.01
    fast = nonsmooth.simulate(puck(True), 0.02, t_eval=[0.0, 0.01, 0.02], method="DOP853")
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.spatial.model import SpatialSystem

    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size, **kw: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)
    monkeypatch.setattr(Dynamics, "_evaluate_compiled", lambda self, *a, **k: None)
    monkeypatch.setattr(Dynamics, "_evaluate_face_free", lambda self, *a, **k: None)
    python = nonsmooth.simulate(puck(True), 0.02, t_eval=[0.0, 0.01, 0.02], method="DOP853")
    np.testing.assert_allclose(python["puck.vx"], fast["puck.vx"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(python["puck.wz"], fast["puck.wz"], rtol=0, atol=1e-7)


def test_radau_runs_a_bristle_puck_through_hundreds_of_jacobians():
    """The puck with the bristle law over its patch under Radau (the smooth law's stiff
    bristles) to 0.5 s: several hundred finite-difference Jacobians, in which scipy's
    ``num_jac`` multiplied the step factor of each column the right-hand side does not change
    with (the contact's impact speed) by 10 each time until it overflowed and the Jacobian
    turned NaN ("array must not contain infs or NaNs" before 0.5 s). With the factor bounded
    (``run.steppers.JAC_FACTOR_MAX``) it runs through and follows the Coulomb patch
    equations (to 1e-7 m/s)."""
    from scipy.integrate import solve_ivp

    from nonsmooth.contact.contensou import UNIFORM, contensou
    from nonsmooth.spatial import Body

    m, a, h, k_v = 0.17, 0.038, 0.025, 1e8
    depth = m * 9.81 / (k_v * math.pi * a * a)
    mdl = SpatialModel("bristle puck")
    puck = mdl.add(Body("puck", m, (m * (3 * a * a + h * h) / 12,) * 2 + (0.5 * m * a * a,),
                        position=(0.0, 0.0, -depth), velocity=(1.0, 0.0, 0.0),
                        angular_velocity=(0.0, 0.0, 30.0)))
    mdl.add(Contact("table", puck, Cylinder(a, h, position=(0.0, 0.0, 0.5 * h)), ground,
                    FLOOR, normal=Volumetric(k_v=k_v), mu=0.2, law="bristle",
                    patch_friction="uniform", patch_radius=a,
                    friction_params={"sigma0": 1e5, "sigma1": 20.0, "v_s": 1e-3,
                                     "tau_dw": 0.05}))
    mdl.add(Gravity(9.81))
    r = nonsmooth.simulate(mdl, 0.5, t_eval=[0.0, 0.25, 0.5], method="Radau")

    def rhs(t, y):
        f, tt = contensou(UNIFORM, y[0] / y[1])[:2]
        return [-0.2 * 9.81 * f, -2.0 * 0.2 * 9.81 * tt]

    ref = solve_ivp(rhs, (0.0, 0.5), [1.0, 30.0 * a], t_eval=[0.0, 0.25, 0.5],
                    method="DOP853", rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r["puck.vx"], ref.y[0], rtol=0, atol=1e-7)


def test_the_puck_on_the_python_stage_stops_where_the_compiled_phases_stop_it(monkeypatch):
    """The patch friction's slip law in the Python stage (``vector_friction.patch_direction``)
    and in the compiled one (``core.stage._patch_direction``): the puck run without the
    compiled phases stops at the same time to 1e-9 relative."""
    import nonsmooth.vector_friction as vf
    from nonsmooth.dynamics import Dynamics
    from nonsmooth.spatial.model import SpatialSystem

    model = build("contact_puck")
    grid = np.linspace(0.0, 1.0, 11)
    compiled = nonsmooth.simulate(model, 1.0, t_eval=grid)
    monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, size, **kw: None)
    monkeypatch.setattr(SpatialSystem, "compiled_terms", False)
    monkeypatch.setattr(Dynamics, "_evaluate_compiled", lambda self, *a, **k: None)
    monkeypatch.setattr(Dynamics, "_evaluate_face_free", lambda self, *a, **k: None)
    calls = []
    real = vf.patch_direction
    monkeypatch.setattr(vf, "patch_direction", lambda *a: calls.append(1) or real(*a))
    python = nonsmooth.simulate(build("contact_puck"), 1.0, t_eval=grid)
    assert calls  # (the Python stage's law ran)

    def stop(r):
        return next(e.t for e in r.events.filter("table") if e.kind not in ("start", "touch"))

    assert stop(python) == pytest.approx(stop(compiled), rel=1e-9)


def test_a_disc_rolls_to_rest_at_the_decay_rate_of_its_volume_of_interference():
    """Model ``contact_rolling_disc``: rolling without slip on a damped mat, the disc's speed
    decays as ``v0 exp(-lambda t)``, ``lambda = k_v a J / (I + m h^2)`` from the volume of
    interference at the static depth (``decay_rate``: ``interference`` of the cylinder, ``J``
    its inertia about the rolling axis), to 1e-8 m/s over 0.2 s; the normal force stays
    ``m g`` and the friction stuck."""
    module = load("contact_rolling_disc")
    model = build("contact_rolling_disc")
    p = model.parameters
    lam = module.decay_rate(p)
    assert 1.0 < lam < 4.0
    r = nonsmooth.simulate(model, 0.2, t_eval=np.linspace(0.0, 0.2, 11))
    assert np.max(np.abs(r["v"] - p["v0"] * np.exp(-lam * r.t))) < 1e-8
    assert np.allclose(r["mat.N"], p["m"] * p["g"], rtol=1e-9)
    assert np.all(r["mat.mode"][1:] == 0.0)
    assert np.all(r["T"] < 0.0)  # against the spin (about +y, rolling along +x)


def test_an_open_contacts_friction_point_of_a_diverged_state_is_nan_not_an_exception():
    """``contact_kernels._lowest_feature`` at geometry rows with NaN gaps (a trial step that
    diverged, which the evaluation reports as not finite and the integrator rejects): NaN,
    where it divided by zero and raised ``ZeroDivisionError`` out of the compiled phase (a box
    rocked over its edge onto its side, at 1.27 s)."""
    from nonsmooth.spatial.contact_kernels import _lowest_feature

    pts = np.full((4, 7), np.nan)
    assert np.all(np.isnan(_lowest_feature(pts, 4)))
    pts = np.array([[1e-3, 0.0, 0.0, 0.0, 0, 0, 1], [1e-3, 1.0, 0.0, 0.0, 0, 0, 1],
                    [2e-3, 5.0, 5.0, 0.0, 0, 0, 1]], dtype=float)
    assert _lowest_feature(pts, 3)[:3] == pytest.approx((0.5, 0.0, 0.0))
