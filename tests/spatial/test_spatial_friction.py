"""Joint friction on spatial joints (``nonsmooth.spatial.joint_friction``,
``docs/design/spatial_friction.md`` section 7), set-valued Coulomb, against closed forms where each
reaction is constant: a ball joint's spin-down, a vertical flywheel loaded axially, an overhung
disc on a horizontal hinge (radial and bending loads), a slider whose centre of mass overhangs
(reaction and bending over the overlap), a shaft sliding and spinning in a cylindrical bearing
(the 2-D slip keeps its direction); the load terms against the joint-frame reactions, the
energy balance, the load certificate and the named errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import (
    FrictionLoadError,
    InconsistentLCPError,
    IndeterminateLCPError,
    LoadBranchWarning,
    ModelError,
)
from nonsmooth.spatial import (
    Body,
    Cylindrical,
    Fixed,
    Gravity,
    Revolute,
    SpatialModel,
    Spherical,
    Translational,
    ground,
)

g = 9.81
TIGHT = {"rtol": 1e-12, "atol": 1e-14}


def _stop(r, pair: str) -> float:
    """The time of the pair's stick event (s)."""
    times = [e.t for e in r.events if e.pair == pair and e.after == "stick"]
    assert times, [str(e) for e in r.events]
    return times[0]


def _balance(r) -> None:
    """Energy balance: the friction work is dissipative and the balance closes."""
    assert r.diagnostics["energy_balance_scaled"] < 1e-9, r.diagnostics
    W_f = r.work[:, 3] if r.work.shape[1] > 3 else None
    assert W_f is not None and np.all(np.diff(W_f) <= 1e-12)


# ============================================================ 1. spherical spin-down
def test_ball_joint_spin_down_closed_form():
    """A symmetric body hanging from a ball joint, spinning about the vertical through the
    ball: ``|F| = m g`` and ``I_z dw/dt = -mu_d r_ball m g``; then stuck with zero creep."""
    m, Iz, rb, mu, w0 = 2.0, 0.05, 0.02, 0.3, 10.0
    mdl = SpatialModel("spin-down")
    top = mdl.add(Body("top", mass=m, inertia=(0.08, 0.08, Iz), position=(0, 0, -0.5),
                       angular_velocity=(0, 0, w0)))
    mdl.add(Spherical("ball", ground, top, point=(0, 0, 0), mu=mu, mu_s=0.4, ball_radius=rb))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 5.0, dt=0.01, **TIGHT)
    t_stop = w0 * Iz / (mu * rb * m * g)
    assert _stop(r, "ball") == pytest.approx(t_stop, abs=1e-9)
    before, after = r.t < t_stop, r.t > t_stop + 1e-9
    np.testing.assert_allclose(r["top.wz"][before], w0 - mu * rb * m * g * r.t[before] / Iz,
                               rtol=1e-9, atol=1e-12)
    assert np.max(np.abs(r["top.wz"][after])) <= 1e-9
    assert np.all(r["ball.mode"][after] == 0)
    np.testing.assert_allclose(r["ball.N"], m * g, rtol=1e-12)
    np.testing.assert_allclose(r["ball.N_reaction"], m * g, rtol=1e-12)
    # the friction torque on the body about the joint frame's h (= world z) axis
    np.testing.assert_allclose(r["ball.Tf_h"][before][1:], -mu * rb * m * g, rtol=1e-9)
    np.testing.assert_allclose(r["ball.slip3"][before], rb * r["top.wz"][before], rtol=1e-12)
    _balance(r)


# ============================================================ 2. vertical flywheel
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_vertical_flywheel_axial_load(sign):
    """A revolute with a vertical axis, the centre of mass on it: only the axial load
    ``m g`` (on the face of the axis' sign), torque ``mu_d r_n m g``."""
    m, Iz, rp, rn, rbend, mu, w0 = 3.0, 0.2, 0.01, 0.05, 0.03, 0.2, 8.0
    mdl = SpatialModel("flywheel")
    disc = mdl.add(Body("disc", mass=m, inertia=(0.1, 0.1, Iz), position=(0, 0, 0.2),
                        angular_velocity=(0, 0, w0)))
    mdl.add(Revolute("hinge", ground, disc, point=(0, 0, 0), axis=(0, 0, sign), mu=mu,
                     mu_s=0.3, pin_radius=rp, friction_arm=rn, bending_arm=rbend))
    mdl.add(Gravity())
    t_stop = w0 * Iz / (mu * rn * m * g)
    r = nonsmooth.simulate(mdl, t_stop + 0.5, dt=0.01, **TIGHT)
    assert _stop(r, "hinge") == pytest.approx(t_stop, abs=1e-9)
    before = r.t < t_stop
    np.testing.assert_allclose(r["disc.wz"][before], w0 - mu * rn * m * g * r.t[before] / Iz,
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r["hinge.N_axial"], m * g * rn / rp, rtol=1e-12)
    assert np.max(np.abs(r["hinge.N_reaction"])) < 1e-9 * m * g
    assert np.max(np.abs(r["hinge.N_bending"])) < 1e-9 * m * g
    # the axial row's multiplier is the joint-frame reaction along h
    np.testing.assert_allclose(r["hinge.h"], r["hinge.Fz_joint"], atol=1e-10)
    np.testing.assert_allclose(r["hinge.Fz_joint"], m * g * sign, rtol=1e-10)
    _balance(r)


# ============================================================ 3. overhung disc
def test_overhung_disc_radial_and_bending():
    """A horizontal hinge to the ground carrying a disc a distance ``d`` along the axis:
    radial ``m g`` and bending ``m g d``, torque ``mu r_p m g (1 + d / r_b)``."""
    m, Ia, rp, rbend, d, mu, w0 = 1.5, 0.04, 0.02, 0.05, 0.12, 0.25, 20.0
    mdl = SpatialModel("overhung disc")
    disc = mdl.add(Body("disc", mass=m, inertia=(Ia, 0.03, 0.03), position=(d, 0, 0),
                        angular_velocity=(w0, 0, 0)))
    mdl.add(Revolute("shaft", ground, disc, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                     mu_s=0.35, pin_radius=rp, friction_arm=0.04, bending_arm=rbend))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 6.0, dt=0.01, **TIGHT)
    N = m * g * (1 + d / rbend)
    t_stop = w0 * Ia / (mu * rp * N)
    assert _stop(r, "shaft") == pytest.approx(t_stop, abs=1e-9)
    before = r.t < t_stop
    np.testing.assert_allclose(r["disc.wx"][before], w0 - mu * rp * N * r.t[before] / Ia,
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r["shaft.N_reaction"], m * g, rtol=1e-12)
    np.testing.assert_allclose(r["shaft.N_bending"], m * g * d / rbend, rtol=1e-12)
    np.testing.assert_allclose(r["shaft.N"], N, rtol=1e-12)
    bend = np.hypot(r["shaft.Tx_joint"], r["shaft.Ty_joint"])  # (f, g) of axis x
    np.testing.assert_allclose(bend / rbend, r["shaft.N_bending"], rtol=1e-10)
    np.testing.assert_allclose(r["shaft.Tf_h"][before][1:], -mu * rp * N, rtol=1e-9)
    _balance(r)


# ============================================================ 4. slider with overhang
def test_slider_overhang_reaction_and_bending():
    """A slider on a horizontal ground guide, its centre of mass ``e`` ahead of the joint
    point on the axis line: ``N = m g (1 + e / x_s)``, deceleration ``mu_d g (1 + e/x_s)``."""
    m, e, xs, mu, v0 = 4.0, 0.1, 0.5, 0.3, 2.0
    mdl = SpatialModel("slider")
    s = mdl.add(Body("slider", mass=m, inertia=(0.01, 0.02, 0.02), position=(e, 0, 0),
                     velocity=(v0, 0, 0)))
    mdl.add(Translational("guide", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                          mu_s=0.4, initial_overlap=xs, reaction_arm=0.05))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 1.0, dt=0.001, **TIGHT)
    a = mu * g * (1 + e / xs)
    t_stop = v0 / a
    assert _stop(r, "guide") == pytest.approx(t_stop, abs=1e-9)
    before = r.t < t_stop
    np.testing.assert_allclose(r["slider.vx"][before], v0 - a * r.t[before], rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(r["guide.N"], m * g * (1 + e / xs), rtol=1e-12)
    np.testing.assert_allclose(r["guide.N_bending"], m * g * e / xs, rtol=1e-12)
    assert np.max(np.abs(r["guide.N_torsion"])) < 1e-9
    np.testing.assert_allclose(r["guide.Ff_h"][before][1:], -mu * m * g * (1 + e / xs),
                               rtol=1e-9)
    assert np.max(np.abs(r["slider.vx"][r.t > t_stop + 1e-9])) < 1e-9
    _balance(r)


# ============================================================ 5. cylindrical shaft
def test_cylindrical_shaft_slip_keeps_direction():
    """A shaft with ``I = m r_p^2`` sliding and spinning in a horizontal bearing: the slip
    ``(r_p w, v_z)`` keeps its direction and both motions stop together at ``|V0| / (mu g)``."""
    m, rp, mu, w0, vz0 = 2.0, 0.05, 0.2, 30.0, 1.0
    J = m * rp * rp
    mdl = SpatialModel("shaft")
    shaft = mdl.add(Body("shaft", mass=m, inertia=(J, 0.1, 0.1), position=(0, 0, 0),
                         velocity=(vz0, 0, 0), angular_velocity=(w0, 0, 0)))
    mdl.add(Cylindrical("bearing", ground, shaft, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                        mu_s=0.3, pin_radius=rp))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 1.0, dt=0.001, **TIGHT)
    V0 = math.hypot(rp * w0, vz0)
    t_stop = V0 / (mu * g)
    assert _stop(r, "bearing") == pytest.approx(t_stop, abs=1e-9)
    before = r.t < t_stop
    s = np.column_stack((r["bearing.slip1"], r["bearing.slip2"]))[before]
    direction = s / np.linalg.norm(s, axis=1)[:, None]
    np.testing.assert_allclose(direction, np.tile([rp * w0, vz0], (before.sum(), 1)) / V0,
                               atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(s, axis=1), V0 - mu * g * r.t[before],
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r["bearing.N"], m * g, rtol=1e-12)
    after = r.t > t_stop + 1e-9
    assert np.max(np.abs(r["shaft.vx"][after])) < 1e-9
    assert np.max(np.abs(r["shaft.wx"][after])) < 1e-9
    _balance(r)


# ============================================================ preload
def test_revolute_preload_holds_and_slides():
    """A free flywheel with only a torque preload (``inputs = 1000``): it decelerates at
    ``(mu_d / mu_s) T_pre / I`` (the preload's load ``T_pre / (mu_s r_p)``)."""
    J, rp, mu, mu_s, T_pre, w0 = 0.3, 0.02, 0.2, 0.25, 0.6, 5.0
    mdl = SpatialModel("preloaded")
    disc = mdl.add(Body("disc", mass=1.0, inertia=(0.2, 0.2, J), angular_velocity=(0, 0, w0)))
    mdl.add(Revolute("hinge", ground, disc, point=(0, 0, 0), axis=(0, 0, 1), mu=mu,
                     mu_s=mu_s, pin_radius=rp, torque_preload=T_pre, inputs="1000"))
    r = nonsmooth.simulate(mdl, 10.0, dt=0.01, **TIGHT)
    decel = mu / mu_s * T_pre / J
    assert _stop(r, "hinge") == pytest.approx(w0 / decel, abs=1e-9)
    np.testing.assert_allclose(r["hinge.N"], T_pre / (mu_s * rp), rtol=1e-12)
    np.testing.assert_allclose(r["hinge.N_preload"], T_pre / (mu_s * rp), rtol=1e-12)


# ============================================================ certificate and errors
def _drawer(mu, xs, e=0.1, e_h=0.2, v0=1.5, t_end=0.6, e_y=0.0, **law):
    mdl = SpatialModel("drawer")
    s = mdl.add(Body("drawer", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(e, e_y, e_h),
                     velocity=(v0, 0, 0)))
    mdl.add(Translational("rail", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                          mu_s=mu, initial_overlap=xs, **law))
    mdl.add(Gravity())
    return nonsmooth.simulate(mdl, t_end, dt=0.001, **TIGHT)


def test_drawer_feedback_closed_form():
    """A slider whose centre of mass sits ``e`` ahead of and ``e_h`` above the joint point,
    moving forward: the friction force's moment about the centre of mass adds to the bending
    load, ``N = m g (1 + e / x_s) / (1 - mu e_h / x_s)`` (the load feeds back on itself by
    ``L = mu e_h / x_s`` newton per newton, certified below 1)."""
    mu, xs, e, e_h = 0.3, 0.5, 0.1, 0.2
    r = _drawer(mu, xs, e, e_h)
    N = 2.0 * g * (1 + e / xs) / (1 - mu * e_h / xs)
    before = r.t < _stop(r, "rail")
    np.testing.assert_allclose(r["rail.N"][before][1:], N, rtol=1e-10)
    np.testing.assert_allclose(r["drawer.vx"][before], 1.5 - mu * N / 2.0 * r.t[before],
                               rtol=1e-9, atol=1e-12)
    _balance(r)


def test_self_locking_drawer_named():
    """The same drawer with ``mu e_h >= x_s`` (``L = 1.25``): moving forward, friction would
    create more load than it needs (self-locking, no load at all): ``InconsistentLCPError``;
    moving backward with ``e > mu e_h`` the bending moment ``e m g - e_h mu N`` changes sign
    and the load has two roots, ``m g (1 + e/x_s) / (1 + mu e_h/x_s)`` and ``m g (e/x_s - 1) /
    (mu e_h/x_s - 1)``: ``IndeterminateLCPError`` with both; never a silent root."""
    mu, xs, e, e_h = 0.5, 0.08, 0.15, 0.2
    with pytest.raises(InconsistentLCPError, match="self-locking") as info:
        _drawer(mu, xs, e, e_h)
    assert not isinstance(info.value, IndeterminateLCPError)
    assert info.value.pairs == ["rail"]
    with pytest.raises(IndeterminateLCPError, match="two solutions") as info:
        _drawer(mu, xs, e, e_h, v0=-1.5)
    mg = 2.0 * g
    roots = sorted(float(x[0]) for x in info.value.solutions)
    np.testing.assert_allclose(roots, [mg * (1 + e / xs) / (1 + mu * e_h / xs),
                                       mg * (e / xs - 1) / (mu * e_h / xs - 1)], rtol=1e-10)


@pytest.mark.parametrize("path", ["compiled", "python"])
def test_a_kilometre_pin_that_jams_is_named_not_overflowed(path, monkeypatch):
    """A pendulum on a frictional hinge whose pin radius is the largest allowed (1 km): the
    friction torque ``mu R |F|`` decelerates the bob (at ``l`` from the pin), which changes
    the radial load by ``L = mu R m l / (J + m l^2)`` newton per newton (198 here):
    self-locking, named with its ``L``. The load iteration that leads to the verdict takes
    the loads past 1e154, whose squares overflow: the norm loads are scaled (an
    ``OverflowError`` at "t = nan s" before)."""
    if path == "python":
        from nonsmooth.spatial.model import SpatialSystem

        monkeypatch.setattr(SpatialSystem, "compiled_family", lambda self, *a, **k: None)
        monkeypatch.setattr(SpatialSystem, "compiled_terms", False)
    m, arm, Jb, mu, R = 1.0, 1.0, 0.01, 0.2, 1e3
    mdl = SpatialModel("kilometre pin")
    bob = mdl.add(Body("bob", mass=m, inertia=(Jb, Jb, Jb), position=(0, 0, -arm),
                       angular_velocity=(3.0, 0, 0)))
    mdl.add(Revolute("pin", ground, bob, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                     pin_radius=R))
    mdl.add(Gravity())
    L = mu * R * m * arm / (Jb + m * arm * arm)
    with pytest.raises(InconsistentLCPError, match=f"L = {L:.2f} newton per newton") as info:
        nonsmooth.simulate(mdl, 1.0, dt=0.01)
    assert info.value.pairs == ["pin"]


def test_two_roots_named_where_the_iteration_converges():
    """The backward drawer with its centre of mass also ``e_y`` to the side: the friction
    force's moment bends the slider about the vertical as well, so the bending load is
    ``||(e m g - e_h mu N, e_y mu N)|| / x_s``, plus the torsion ``e_y m g / (2 r_n)``. With
    ``L = mu ||(e_h, e_y)|| / x_s = 1.40`` the load equation has two roots (75.6 N, 203 N), but
    at the smaller one the map's slope is -0.10 and the frictionless load (143 N) lies between
    them, so the fixed-point iteration from the frictionless load
    converges to it: the converged root is certified too, and the second one named
    (``IndeterminateLCPError`` with both, the roots of ``(x_s^2 - mu^2 (e_h^2 + e_y^2)) N^2 +
    2 (e m g e_h mu - a x_s^2) N + a^2 x_s^2 - e^2 m^2 g^2 = 0``, ``a = m g (1 + e_y / 2)``),
    not a silent pick."""
    mu, xs, e, e_h, e_y = 0.5, 0.08, 0.5, 0.2, 0.1
    with pytest.raises(IndeterminateLCPError, match="two solutions") as info:
        _drawer(mu, xs, e, e_h, v0=-1.5, e_y=e_y)
    roots = sorted(float(x[0]) for x in info.value.solutions)
    np.testing.assert_allclose(roots, _two_roots(mu, xs, e, e_h, e_y), rtol=1e-10)
    assert info.value.t == 0.0 and info.value.pairs == ["rail"]


def _two_roots(mu, xs, e, e_h, e_y):
    """The two loads of the sideways backward drawer (N), increasing."""
    mg = 2.0 * g
    a = mg * (1 + e_y / 2)
    return np.sort(np.roots([xs ** 2 - mu ** 2 * (e_h ** 2 + e_y ** 2),
                             2 * (e * mg * e_h * mu - a * xs ** 2),
                             a ** 2 * xs ** 2 - (e * mg) ** 2]).real)


def test_smooth_law_follows_the_frictionless_branch_and_says_so():
    """The same drawer under the regularized law (its dry level ``mu_d`` above
    ``falloff_vel``): a smooth law's coefficient is a function of the state, so its load
    equation is solved along the branch connected to zero friction (the root the iteration
    reaches from the frictionless load, the smaller one) and the run says so once
    (:class:`~nonsmooth.errors.LoadBranchWarning` with both roots) and counts the
    evaluations: ``N`` is the smaller root, the drawer decelerates by ``mu N / m``."""
    mu, xs, e, e_h, e_y = 0.5, 0.08, 0.5, 0.2, 0.1
    exact = _two_roots(mu, xs, e, e_h, e_y)
    with pytest.warns(LoadBranchWarning, match="branch connected to the frictionless") as ws:
        r = _drawer(mu, xs, e, e_h, v0=-1.5, t_end=0.05, e_y=e_y, law="regularized",
                    friction={"falloff_vel": 1e-3, "stiction_extra": 0.0})
    branch = [w.message for w in ws if isinstance(w.message, LoadBranchWarning)]
    assert len(branch) == 1 and branch[0].pairs == ["rail"] and branch[0].rho > 1.0
    np.testing.assert_allclose(branch[0].roots, exact, rtol=1e-10)
    assert r.status == 0 and r.diagnostics["load_branch"] > 10
    np.testing.assert_allclose(r["rail.N"][1:], exact[0], rtol=1e-10)
    np.testing.assert_allclose(r["drawer.vx"], -1.5 + mu * exact[0] / 2.0 * r.t, rtol=1e-9)


def test_uncertified_loads_of_several_pairs_named():
    """Two slipping joints whose loads feed back by ``rho(L) >= 1``: no exact classification
    exists for norms, so the run is refused with ``rho(L)`` named."""
    mdl = SpatialModel("two drawers")
    a = mdl.add(Body("a", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.1, 0, 0.2),
                     velocity=(1.5, 0, 0)))
    b = mdl.add(Body("b", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.1, 1.0, 0.2),
                     velocity=(1.5, 0, 0)))
    for name, body, y in (("ra", a, 0.0), ("rb", b, 1.0)):
        mdl.add(Translational(name, ground, body, point=(0, y, 0), axis=(1, 0, 0), mu=0.5,
                              initial_overlap=0.08))
    mdl.add(Gravity())
    with pytest.raises(FrictionLoadError, match=r"rho\(L\) = 1.25"):
        nonsmooth.simulate(mdl, 0.1, dt=0.01, **TIGHT)


def test_friction_keywords_errors():
    b = Body("b", mass=1.0, inertia=(1, 1, 1))
    with pytest.raises(ModelError, match="pin_radius = -1"):
        Revolute("r", ground, b, mu=0.1, pin_radius=-1)
    with pytest.raises(ModelError, match="unknown friction parameter"):
        Revolute("r", ground, b, mu=0.1, ball_radius=0.1)
    with pytest.raises(ModelError, match="without mu"):
        Spherical("s", ground, b, ball_radius=0.1)
    with pytest.raises(ModelError, match="inputs"):
        Spherical("s", ground, b, mu=0.1, inputs="12")
    with pytest.raises(ModelError, match="not on a fixed"):
        Fixed("f", ground, b, mu=0.1)
    with pytest.raises(ModelError, match="mu_s"):
        Spherical("s", ground, b, mu=0.3, mu_s=0.1)
    with pytest.raises(ModelError, match="overlap_delta = 'grow' is invalid; allowed"):
        Translational("t", ground, b, mu=0.1, overlap_delta="grow")
    from nonsmooth.spatial import Universal

    with pytest.raises(ModelError, match="yoke_choice = 'k_yoke' is invalid"):
        Universal("u", ground, b, mu=0.1, yoke_choice="K_YOKE")


@pytest.mark.parametrize("make, match", [
    (lambda b: Revolute("r", ground, b, mu=0.1, friction=[1, 2]),
     r"revolute 'r': friction = \[1, 2\] is invalid; give the law's parameters as a dict"),
    (lambda b: Revolute("r", ground, b, mu=0.1, law=None),
     r"revolute 'r': law = None is invalid; allowed: 'coulomb', 'lugre'"),
    (lambda b: Spherical("s", ground, b, mu=0.1, law="lugre", friction={"sigma9": 1.0}),
     r"spherical 's': unknown friction parameter\(s\) \['sigma9'\]; the lugre law takes "
     r"\['sigma0', 'sigma1', 'sigma2', 'v_s', 'effect'\]"),
    (lambda b: Revolute("r", ground, b, mu=0.1, pin_radius=1e6),
     r"revolute 'r': pin_radius = 1000000.0 is invalid; it must be a finite number in "
     r"\(0, 1000\] m"),
    (lambda b: Translational("t", ground, b, mu=0.1, force_preload=1e300),
     r"force_preload = 1e\+300 is invalid; it must be a finite number in \[0, 1e\+09\] \(N\)"),
    (lambda b: Revolute("r", ground, b, mu=0.0, torque_preload=0.5),
     r"revolute 'r': a preload \(torque_preload\) needs a static coefficient mu_s > 0"),
    (lambda b: Revolute("r", ground, b, mu=0.0, law="lugre"),
     r"revolute 'r': lugre friction: mu_d = 0.0 is invalid.*use the coulomb law with mu = 0"),
])
def test_friction_inputs_refused_by_name_where_the_joint_is_made(make, match):
    with pytest.raises(ModelError, match=match):
        make(Body("b", mass=1.0, inertia=(1, 1, 1)))


@pytest.mark.parametrize("law", ["coulomb", "regularized"])
@pytest.mark.parametrize("joint", ["Revolute", "Spherical", "Translational", "Cylindrical"])
def test_a_joint_with_mu_zero_runs_as_the_frictionless_one(joint, law):
    """mu = 0 is inside the coefficients' range [0, 10]: the joint's pair has no preload (no
    division by mu_s = 0) and the motion is the frictionless joint's."""
    kinds = {"Revolute": Revolute, "Spherical": Spherical, "Translational": Translational,
             "Cylindrical": Cylindrical}

    def run(**friction):
        mdl = SpatialModel("free")
        b = mdl.add(Body("b", mass=1.0, inertia=(0.02, 0.03, 0.04), position=(0.3, 0.0, -0.5),
                         velocity=(0.4, 0.0, 0.0), angular_velocity=(1.0, 0.5, 0.2)))
        mdl.add(kinds[joint]("j", ground, b, point=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0),
                             **friction) if joint != "Spherical"
                else Spherical("j", ground, b, point=(0.0, 0.0, 0.0), **friction))
        mdl.add(Gravity(direction=(0.3, 0.2, -1.0)))
        return nonsmooth.simulate(mdl, 0.5, **TIGHT)

    free, zero = run(), run(mu=0.0, law=law)
    assert zero.status == 0 and zero.pair_names == ["j"]
    np.testing.assert_allclose(zero.q, free.q, atol=1e-9)
    assert np.all(zero["j.N_preload"] == 0.0)


# ============================================================ the bundled arm model
def test_friction_arm_model_sticks_slips_and_balances():
    """``models/spatial_friction_arm.py``: the shoulder and the elbow stick and slip, the sleeve
    breaks away; every joint's load is the sum of its terms (each recomputed from the
    multipliers of its rows); the energy balance closes and friction only dissipates; the
    friction torque never exceeds ``mu_s r_p N`` while stuck nor differs from ``mu_d r_p N``
    while slipping."""
    from nonsmooth.models import spatial_friction_arm

    model = spatial_friction_arm.build()
    r = nonsmooth.simulate(model, 1.5)
    assert r.status == 0
    after = {(e.pair, e.after) for e in r.events}
    for joint in ("shoulder", "elbow"):
        assert (joint, "stick") in after and ({(joint, "slip+"), (joint, "slip-")} & after)
        terms = sum(r[f"{joint}.N_{k}"] for k in ("reaction", "axial", "bending", "preload"))
        np.testing.assert_allclose(r[f"{joint}.N"], terms, rtol=1e-9)
        p = model.parameters
        T, N, mode = r[f"{joint}.Tf_h"], r[f"{joint}.N"], r[f"{joint}.mode"]
        rp = p["pin_radius"]
        assert np.all(np.abs(T[mode == 0]) <= p["mu_s"] * rp * N[mode == 0] * (1 + 1e-9))
        slipping = mode != 0
        np.testing.assert_allclose(np.abs(T[slipping]), p["mu_d"] * rp * N[slipping],
                                   rtol=1e-9)
    assert ("sleeve_bearing", "slip") in after
    sleeve = sum(r[f"sleeve_bearing.N_{k}"] for k in ("reaction", "bending", "preload"))
    np.testing.assert_allclose(r["sleeve_bearing.N"], sleeve, rtol=1e-9)
    _balance(r)


# ============================================================ effect
@pytest.mark.parametrize("law", ["coulomb", "regularized"])
@pytest.mark.parametrize("effect, level", [("ALL", 0.3), ("STICTION", 0.4), ("SLIDING", 0.3)])
def test_effect_switches_the_sliding_level(law, effect, level):
    """MotionSolve's ``effect`` on the overhanging slider of check 4: ``STICTION`` slides at the
    static coefficient, ``SLIDING`` and ``ALL`` at the dynamic one: deceleration ``level g (1 +
    e / x_s)`` (the regularized law at a speed far above its fall-off velocity, with no
    stiction excess under STICTION / SLIDING)."""
    m, e, xs, v0 = 4.0, 0.1, 0.5, 2.0
    mdl = SpatialModel("slider")
    s = mdl.add(Body("slider", mass=m, inertia=(0.01, 0.02, 0.02), position=(e, 0, 0),
                     velocity=(v0, 0, 0)))
    params = {"effect": effect, "falloff_vel": 1e-3, "stribeck_vel": 1e-3}
    mdl.add(Translational("guide", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=0.3,
                          mu_s=0.4, law=law, friction=params, initial_overlap=xs))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.2, dt=0.01, **TIGHT)
    a = level * g * (1 + e / xs)
    np.testing.assert_allclose(r["slider.vx"], v0 - a * r.t, rtol=1e-9, atol=1e-12)


def test_effect_named_when_invalid():
    """Named where the joint is made (the law's parameters are checked there)."""
    b = Body("b", mass=1.0, inertia=(1, 1, 1))
    with pytest.raises(ModelError, match="spherical 's': .*effect"):
        Spherical("s", ground, b, mu=0.1, friction={"effect": "SOMETIMES"})


# ============================================================ overlap_delta (check 4b)
@pytest.mark.parametrize("delta, sign", [("increase", 1.0), ("decrease", -1.0)])
def test_slider_overlap_delta_closed_form(delta, sign):
    """The overhanging slider of check 4 with a changing overlap ``x_s = x_s0 + sign s``:
    ``v dv/ds = -mu_d g (1 + e / (x_s0 + sign s))`` integrates to ``v^2 = v0^2 - 2 mu_d g (s
    + sign e ln(1 + sign s / x_s0))``; the stop position is its root (``brentq``)."""
    from scipy.optimize import brentq

    m, e, xs0, mu, v0 = 4.0, 0.1, 0.3, 0.3, 1.5
    mdl = SpatialModel("slider")
    s = mdl.add(Body("slider", mass=m, inertia=(0.01, 0.02, 0.02), position=(e, 0, 0),
                     velocity=(v0, 0, 0)))
    mdl.add(Translational("guide", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=mu,
                          mu_s=0.4, initial_overlap=xs0, overlap_delta=delta))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.8, dt=0.002, **TIGHT)

    def v2(x):
        return v0 ** 2 - 2 * mu * g * (x + sign * e * np.log(1 + sign * x / xs0))

    moving = r["slider.vx"] > 1e-6
    x = r["guide.displacement"][moving]
    np.testing.assert_allclose(r["slider.vx"][moving] ** 2, v2(x), rtol=1e-9, atol=1e-12)
    s_stop = brentq(v2, 0.0, 0.299 if sign < 0 else 2.0, xtol=1e-15)
    assert r["guide.displacement"][-1] == pytest.approx(s_stop, abs=1e-9)
    np.testing.assert_allclose(r["guide.N_bending"][moving],
                               m * g * e / (xs0 + sign * x), rtol=1e-9)


def test_slider_leaving_its_guide_named():
    """``overlap_delta = "decrease"`` until the overlap is gone: a named ``ModelError``."""
    mdl = SpatialModel("slider")
    s = mdl.add(Body("slider", mass=1.0, inertia=(0.01, 0.02, 0.02), velocity=(3.0, 0, 0)))
    mdl.add(Translational("guide", ground, s, point=(0, 0, 0), axis=(1, 0, 0), mu=0.1,
                          initial_overlap=0.2, overlap_delta="decrease"))
    mdl.add(Gravity())
    with pytest.raises(ModelError, match="left its guide"):
        nonsmooth.simulate(mdl, 1.0, dt=0.01, **TIGHT)


# ============================================================ 6. universal joint
def _hooke_or_hinge(kind: str, yoke_choice: str = "both"):
    """A body hanging from the ground by a Hooke joint (cross axes x fixed in the ground, y
    fixed in the body) or by a revolute about x, released from 0.8 rad about x."""
    from nonsmooth.spatial import Universal
    from nonsmooth.spatial.rotation import from_axis_angle, rotation_matrix

    th, arm = 0.8, 0.4
    p = from_axis_angle(np.array([1.0, 0, 0]), th)
    c = rotation_matrix(p) @ np.array([0.0, 0.0, -arm])
    mdl = SpatialModel(kind)
    bob = mdl.add(Body("bob", 1.2, (0.02, 0.03, 0.01), position=c, orientation=p))
    fr = {"mu": 0.3, "mu_s": 0.4, "pin_radius": 0.05, "friction_arm": 0.02, "bending_arm": 0.03}
    if kind == "hooke":
        axis_b = rotation_matrix(p) @ np.array([0.0, 1.0, 0.0])
        mdl.add(Universal("joint", ground, bob, point=(0, 0, 0), axis_a=(1, 0, 0),
                          axis_b=axis_b, yoke_choice=yoke_choice, **fr))
    else:
        mdl.add(Revolute("joint", ground, bob, point=(0, 0, 0), axis=(1, 0, 0), **fr))
    mdl.add(Gravity())
    return nonsmooth.simulate(mdl, 3.0, dt=0.01, **TIGHT)


def test_universal_pendulum_is_the_revolute_one():
    """Check 6: swinging about ``axis_a`` only, gravity and the reaction stay in the plane
    normal to ``axis_a``, so the yoke of ``axis_b`` stays stuck with no friction and the yoke
    of ``axis_a`` is the revolute pendulum's friction: the two runs agree to 1e-9 (the motion,
    every stick/slip event, the load and the friction torque)."""
    hooke, hinge = _hooke_or_hinge("hooke"), _hooke_or_hinge("hinge")
    np.testing.assert_allclose(hooke.q, hinge.q, atol=1e-9)
    events = [(e.t, e.after) for e in hooke.events if e.pair == "joint.yoke_a"]
    want = [(e.t, e.after) for e in hinge.events if e.pair == "joint"]
    assert [a for _, a in events] == [a for _, a in want] and len(want) >= 3
    np.testing.assert_allclose([t for t, _ in events], [t for t, _ in want], atol=1e-9)
    np.testing.assert_allclose(hooke["joint.yoke_a.N"], hinge["joint.N"], rtol=1e-9)
    np.testing.assert_allclose(hooke["joint.yoke_a.Tf_axis"], hinge["joint.Tf_h"], atol=1e-9)
    assert np.all(hooke["joint.yoke_b.mode"] == 0)
    assert np.max(np.abs(hooke["joint.yoke_b.Tf_axis"])) < 1e-9
    np.testing.assert_allclose(hooke["joint.yoke_a.N_bending"], 0.0, atol=1e-9)
    _balance(hooke)
    only_a = _hooke_or_hinge("hooke", "J_YOKE")  # the yoke of axis_a alone: the same motion
    assert [p.name for p in only_a.system.pairs] == ["joint.yoke_a"]
    np.testing.assert_allclose(only_a.q, hinge.q, atol=1e-9)


def _spinning_crank(L, w0=3.0):
    """A body (mass ``m``) whose centre of mass is ``e`` off a vertical frictional revolute's
    axis, spinning at ``w0`` without gravity, with ``I_O = m e mu r_p / L`` about the axis:
    the pin's load is its radial reaction ``m e (w^2, dw/dt)`` with ``I_O dw/dt = -mu r_p N``,
    so ``N = sqrt((m e w^2)^2 + (L N)^2)``: the load feeds back on itself by ``L``, unique for
    ``L < 1``: ``N = m e w^2 / sqrt(1 - L^2)``, ``w(t) = w0 / (1 + k w0 t)``, ``k = L /
    sqrt(1 - L^2)``."""
    m, e, mu, rp = 1.0, 0.1, 0.5, 0.2
    Jc = m * e * mu * rp / L - m * e * e
    mdl = SpatialModel("spinning crank")
    arm = mdl.add(Body("arm", mass=m, inertia=(Jc, Jc, Jc), position=(e, 0, 0),
                       velocity=(0, w0 * e, 0), angular_velocity=(0, 0, w0)))
    mdl.add(Revolute("pin", ground, arm, point=(0, 0, 0), axis=(0, 0, 1), mu=mu, mu_s=mu,
                     pin_radius=rp, friction_arm=0.05, bending_arm=0.05))
    return mdl, m * e


@pytest.mark.parametrize("L, tol, residual", [(0.95, 1e-12, 1e-14), (0.99, 1e-10, 1e-12)])
def test_a_load_feedback_close_to_one_is_solved(L, tol, residual):
    """The load's fixed-point iteration contracts by ``L^2`` per step (0.90 at ``L = 0.95``:
    100 plain steps leave 3e-5 of the error, and the run was refused at t = 0 with "did not
    converge"); the load is unique (``L < 1``, certified), and the accelerated iteration
    (Steffensen's extrapolation after the plain steps) finds it: on the Python stage and the
    compiled one at t = 0, to rounding at ``L = 0.95`` (the equation's residual; at 0.99 to
    the iteration's stopping test, a step of 1e-12), and along a run."""
    from nonsmooth.dynamics import Dynamics

    mdl, me = _spinning_crank(L)
    w0 = 3.0
    N0 = me * w0 ** 2 / math.sqrt(1.0 - L * L)
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    modes, faces = np.ones(1), np.ones(len(system.abs_rows))
    dyn = Dynamics(system)
    python = dyn._evaluate_general(0.0, q0, v0, modes, None)
    compiled = dyn._evaluate_compiled(0.0, q0, v0, modes, faces)
    assert compiled is not None  # (the kernel's iteration converged: not NO_LOAD)
    for ev in (python, compiled):
        N = float(ev.N[0])
        assert abs(N - N0) <= tol * N0
        assert abs(N - math.hypot(me * w0 ** 2, L * N)) <= residual * N0  # (its equation)
    r = nonsmooth.simulate(mdl, 0.5, dt=0.01, **TIGHT)
    k = L / math.sqrt(1.0 - L * L)
    w = w0 / (1.0 + k * w0 * r.t)
    np.testing.assert_allclose(r["arm.wz"], w, rtol=1e-9)
    np.testing.assert_allclose(r["pin.N"], me * w ** 2 / math.sqrt(1.0 - L * L), rtol=1e-9)
