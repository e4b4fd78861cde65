"""Compliant contacts in the planar family (``nonsmooth.contact.Contact`` of ``Circle``,
``Hole``, ``Line`` on a ``PlanarModel``, and ``nonsmooth.planar.Clearance``), end to end through
``nonsmooth.simulate``, against closed forms nobody here wrote: Johnson's Hertz impact duration
(the same one-degree-of-freedom impact as a sphere's), the half period of a linear spring, the
exact restitution, a disc launched sliding that rolls at ``t = v0 / (3 mu g)`` with ``v = 2 v0 /
3`` (a uniform disc, ``J = m r^2 / 2``), and a pin flying across a clearance and bouncing off the
hole's wall."""

from __future__ import annotations

import math

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Circle, Contact, Hertz, Hole, Line, Linear, Plane, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.planar import Body, Clearance, Gravity, PlanarModel, PointMass, ground

M, R = 0.5, 0.02  # kg, m: a disc
J = 0.5 * M * R * R  # kg m^2: uniform
K = 1e9  # N/m^1.5


def _disc(y0: float, vy: float, *, gravity: bool = False, normal=None, **contact):
    mdl = PlanarModel("disc on a line")
    disc = mdl.add(Body("disc", M, J, position=(0.0, y0), velocity=(0.0, vy)))
    mdl.add(Contact("floor", disc, Circle(R), ground, Line((0.0, 0.0), (0.0, 1.0)),
                    normal=Hertz(K=K) if normal is None else normal, **contact))
    if gravity:
        mdl.add(Gravity())
    return mdl


def _impacts(r, name="floor"):
    return r.events.filter(name, "touch"), r.events.filter(name, "leave")


def test_an_undamped_disc_impact_lasts_johnsons_hertz_time():
    v = 1.5
    r = nonsmooth.simulate(_disc(R + 1e-4, -v), 1e-3, rtol=1e-12, atol=1e-15,
                           t_eval=np.linspace(0.0, 1e-3, 4001))
    touch, leave = _impacts(r)
    assert len(touch) == len(leave) == 1
    assert touch.t[0] == pytest.approx(1e-4 / v, rel=1e-10)  # free flight to the line
    d_max = (5.0 * M * v * v / (4.0 * K)) ** 0.4  # Johnson, Contact Mechanics, 11.4
    assert leave.t[0] - touch.t[0] == pytest.approx(2.943275184 * d_max / v, rel=1e-8)
    assert -leave[0].speed == pytest.approx(v, rel=1e-9)
    assert -r["floor.gap"].min() == pytest.approx(d_max, rel=1e-5)
    assert r["floor.N"].max() == pytest.approx(K * d_max ** 1.5, rel=1e-4)
    # the force on body_a (the disc) is +N y; no torque (through the centre): no spin
    assert np.allclose(r["floor.Fy"], r["floor.N"]) and np.all(r["floor.Fx"] == 0.0)
    assert np.all(r["disc.w"] == 0.0)
    # the contact point midway between the disc's lowest point and the line
    assert np.allclose(r["floor.y"], 0.5 * (r["disc.y"] - R), rtol=0, atol=1e-15)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-9


def test_a_linear_contact_lasts_half_a_period():
    k, v = 1e6, 0.3
    r = nonsmooth.simulate(_disc(R + 1e-5, -v, normal=Linear(k, 0.0)), 5e-3, rtol=1e-12,
                           atol=1e-15)
    touch, leave = _impacts(r)
    assert leave.t[0] - touch.t[0] == pytest.approx(math.pi * math.sqrt(M / k), rel=1e-9)


@pytest.mark.parametrize("e, v", [(0.7, 1.0), (0.3, 0.05), (0.95, 4.0)])
def test_exact_damping_realises_the_restitution_asked(e, v):
    r = nonsmooth.simulate(_disc(R + 1e-5, -v, restitution=e), 5e-3, rtol=1e-12, atol=1e-15)
    touch, leave = _impacts(r)
    assert len(touch) == len(leave) == 1
    assert -leave[0].speed / touch[0].speed == pytest.approx(e, rel=1e-9)
    assert r["floor.impact_speed"][-1] == pytest.approx(v, rel=1e-9)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def _sliding_disc(v0: float, mu: float, mu_s: float, stiffness: float = 1e11):
    """A uniform disc of 1 kg and radius 0.1 m resting (at Hertz's static penetration) on a
    line, launched at ``v0`` (m/s) along +x without spin; gravity 9.81 m/s^2."""
    m, r = 1.0, 0.1
    d = (m * 9.81 / stiffness) ** (2.0 / 3.0)
    mdl = PlanarModel("disc on a line")
    disc = mdl.add(Body("disc", m, 0.5 * m * r * r, position=(0.0, r - d), velocity=(v0, 0.0)))
    mdl.add(Contact("floor", disc, Circle(r), ground, Line((0.0, 0.0), (0.0, 1.0)),
                    normal=Hertz(K=stiffness), restitution=0.5, mu=mu, mu_s=mu_s))
    mdl.add(Gravity(g=9.81))
    return mdl, d


def test_a_disc_launched_sliding_rolls_from_the_closed_form_time_at_two_thirds():
    v0, mu, g, r0 = 2.0, 0.2, 9.81, 0.1
    mdl, d = _sliding_disc(v0, mu, 0.3)
    r = nonsmooth.simulate(mdl, 0.6)
    stick = r.events.filter("floor", "stick")
    assert len(stick) == 1  # sliding stops once: it rolls (the contact point at rest)
    # textbook (rigid): t = v0 / (3 mu g), v = 2 v0 / 3 = -w r (to the compliance, d/r 1e-6)
    assert stick.t[0] == pytest.approx(v0 / (3.0 * mu * g), rel=1e-5)
    assert r["disc.vx"][-1] == pytest.approx(2.0 * v0 / 3.0, rel=1e-5)
    assert -r["disc.w"][-1] * r0 == pytest.approx(2.0 * v0 / 3.0, rel=1e-5)
    # with the compliance: the contact point at r' = r - d/2 below the centre, the friction's
    # arm, so t = v0 / (mu g (1 + m r'^2 / J))
    arm = r0 - 0.5 * d
    assert stick.t[0] == pytest.approx(v0 / (mu * g * (1.0 + 2.0 * arm ** 2 / r0 ** 2)),
                                       rel=1e-8)
    assert r["disc.vx"][-1] == pytest.approx(-r["disc.w"][-1] * arm, rel=1e-9)
    # sliding: the friction on the disc is mu N against its slip (-x); rolling, none
    sliding, rolling = r.t < 0.99 * stick.t[0], r.t > 1.01 * stick.t[0]
    assert np.allclose(r["floor.Fx"][sliding], -mu * r["floor.N"][sliding], rtol=1e-9)
    assert np.allclose(r["floor.Fx"][rolling], 0.0, atol=1e-8)
    assert np.allclose(r["floor.N"], 9.81, rtol=1e-6)  # it never leaves the line
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-6


def _pin_in_hole(v: float, e: float, c: float = 5e-4, angle: float = 0.3, hole_on=None):
    """A pin (a disc of radius 10 mm) launched at ``v`` (m/s) from the centre of a hole of
    radius ``10 mm + c``, along ``angle`` (rad) from x; no gravity."""
    mdl = PlanarModel("pin in a hole")
    u = (v * math.cos(angle), v * math.sin(angle))
    pin = mdl.add(Body("pin", 0.1, 1e-5, position=(0.2, 0.1), angle=0.4, velocity=u))
    mdl.add(Clearance("joint", ground if hole_on is None else mdl.add(hole_on), pin,
                      (0.2, 0.1), 0.01, 0.01 + c, normal=Hertz(E=207e9, nu=0.3),
                      restitution=e))
    return mdl


@pytest.mark.parametrize("e", [0.9, 0.4])
def test_a_pin_flies_across_the_clearance_and_bounces_with_the_exact_restitution(e):
    v, c = 0.8, 5e-4
    r = nonsmooth.simulate(_pin_in_hole(v, e, c), 3.0 * c / v + 2.0 * c / (e * v),
                           rtol=1e-12, atol=1e-15, t_eval=np.linspace(0.0, 2.0 * c / v, 101))
    touch, leave = _impacts(r, "joint")
    assert len(touch) >= 2 and len(leave) >= 1
    assert touch.t[0] == pytest.approx(c / v, rel=1e-10)  # the flight across the clearance
    assert touch[0].speed == pytest.approx(v, rel=1e-8)
    assert -leave[0].speed / touch[0].speed == pytest.approx(e, rel=1e-9)
    # the rebound through the centre to the opposite wall: 2 c at e v
    assert touch.t[1] - leave.t[0] == pytest.approx(2.0 * c / (e * v), rel=1e-6)
    assert touch[1].speed == pytest.approx(e * v, rel=1e-9)
    # free flight: no force, the gap the clearance less the distance from the centre
    free = r.t < touch.t[0]
    assert np.all(r["joint.N"][free] == 0.0)
    dist = np.hypot(r["pin.x"] - 0.2, r["pin.y"] - 0.1)
    assert np.allclose(r["joint.gap"], c - dist, rtol=0, atol=1e-15)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_a_clearance_between_two_free_bodies_keeps_the_momentum():
    """The hole on a free body (its centre of mass away from the hole, turned): the contact's
    forces are internal, so the total momentum stays what it was (to round-off) through the
    impacts, and a pin that hits the wall off the line of the hole's centre of mass spins the
    hole's body."""
    hole = Body("bearing", 0.3, 2e-4, position=(0.25, 0.12), angle=-0.7)
    r = nonsmooth.simulate(_pin_in_hole(0.8, 0.7, hole_on=hole), 3e-3, rtol=1e-12, atol=1e-15)
    assert len(r.events.filter("joint", "touch")) >= 1
    px = 0.1 * r["pin.vx"] + 0.3 * r["bearing.vx"]
    py = 0.1 * r["pin.vy"] + 0.3 * r["bearing.vy"]
    assert np.allclose(px, px[0], rtol=0, atol=1e-14) and np.allclose(py, py[0], atol=1e-14)
    assert abs(r["bearing.w"][-1]) > 1.0  # (rad/s: the impulse's moment about its centre)
    # angular momentum about the origin (no external force): conserved
    L = (0.1 * (r["pin.x"] * r["pin.vy"] - r["pin.y"] * r["pin.vx"]) + 1e-5 * r["pin.w"]
         + 0.3 * (r["bearing.x"] * r["bearing.vy"] - r["bearing.y"] * r["bearing.vx"])
         + 2e-4 * r["bearing.w"])
    assert np.allclose(L, L[0], rtol=0, atol=1e-14)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_a_point_mass_bounces_on_a_line_on_a_body():
    """A point mass carrying a circle falls onto a tilted line on a fixed-free body: the
    line's frame turns with its body."""
    mdl = PlanarModel("point on a ramp")
    ball = mdl.add(PointMass("ball", 0.2, position=(0.0, 0.05), velocity=(0.0, -1.0)))
    ramp = mdl.add(Body("ramp", 1e6, 1e6, position=(0.0, 0.0), angle=0.5))
    mdl.add(Contact("c", ball, Circle(0.01), ramp, Line((0.0, 0.0), (0.0, 1.0)),
                    normal=Hertz(K=1e8), restitution=1.0))
    r = nonsmooth.simulate(mdl, 0.06, rtol=1e-12, atol=1e-15)
    touch, leave = _impacts(r, "c")
    assert len(touch) == 1 and len(leave) == 1
    # the ball reaches the line's normal distance 0.01 along -y: (0.05 cos 0.5 - 0.01) / cos
    n = np.array((-math.sin(0.5), math.cos(0.5)))
    assert touch.t[0] == pytest.approx(0.05 - 0.01 / n[1], rel=1e-10)
    # leaves reflected about the line's normal (the ramp's mass 1e6 kg barely moves)
    v = np.array((r["ball.vx"][-1], r["ball.vy"][-1]))
    v_in = np.array((0.0, -1.0))
    assert np.allclose(v, v_in - 2.0 * (v_in @ n) * n, atol=1e-6)


def test_planar_contact_errors_name_the_contact_and_what_to_do():
    mdl = PlanarModel("m")
    disc = mdl.add(Body("disc", M, J))
    with pytest.raises(ModelError, match="contact 'c'.*spatial shapes.*Circle, Hole and Line"):
        mdl.add(Contact("c", disc, Sphere(R), ground, Plane((0, 0, 0), (0, 0, 1)),
                        normal=Hertz(K=1e6)))
    with pytest.raises(ModelError, match="contact 'disc'.*taken by a body"):
        mdl.add(Contact("disc", disc, Circle(R), ground, Line((0, 0), (0, 1)),
                        normal=Hertz(K=1e6)))
    with pytest.raises(ModelError, match="no closed-form geometry"):
        Contact("c", disc, Line((0, 0), (0, 1)), ground, Hole(R), normal=Hertz(K=1e6))
    with pytest.raises(ModelError, match="clearance 'j'.*0 < radius_pin < radius_hole"):
        Clearance("j", ground, disc, (0, 0), 0.01, 0.01, normal=Hertz(K=1e6))
    with pytest.raises(ModelError, match="clearance 'j'.*point"):
        Clearance("j", ground, disc, (0, "x"), 0.01, 0.02, normal=Hertz(K=1e6))
    other = Body("other", M, J)
    mdl.add(Contact("c", other, Circle(R), ground, Line((0, 0), (0, 1)), normal=Hertz(K=1e6)))
    with pytest.raises(ModelError, match="'other'.*not added"):
        mdl.compile()


def test_a_model_without_contacts_keeps_the_planar_kernels():
    """Only a model with contacts declines the planar tables' one kernel."""
    from nonsmooth.dynamics import Dynamics

    plain = PlanarModel("plain")
    plain.add(Body("disc", M, J))
    plain.add(Gravity())
    dyn = Dynamics(plain.compile())
    assert dyn._fast is not None and dyn.compiled_family() is not None
    dyn = Dynamics(_disc(R, 0.0, gravity=True).compile())
    assert dyn._fast is None and dyn.compiled_family() is None


def test_the_slider_crank_with_a_clearance_joint_balances_the_drive_and_the_contact():
    """The bundled model after Flores et al.: a crank driven at 5000 rpm, the pin of the rod
    flying in the slider's bearing and hitting its wall. What can be checked exactly: the
    energy balance (the drive's work against the kinetic, potential and elastic energy and the
    contact's damping), no contact force while the pin flies free, the gap the clearance less
    the eccentricity computed from the bodies' coordinates."""
    from nonsmooth import models

    mdl = models.build("slider_crank_clearance")
    # (max_step: a step begun at a touch with the contact force still zero may otherwise
    # reach deep into the wall, where the stiff force overflows)
    r = nonsmooth.simulate(mdl, 0.006, max_step=1e-5)
    touch, leave = _impacts(r, "clearance")
    assert len(touch) >= 5 and len(leave) >= 5  # impacts, not a permanent contact
    w = r.diagnostics["work"]
    assert w["W_drive"] != 0.0 and w["W_damping"] < 0.0
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8
    gap, N = r["clearance.gap"], r["clearance.N"]
    assert np.all(N[gap > 0.0] == 0.0) and np.all(N[gap < 0.0] > 0.0)
    assert np.allclose(r["ecc"], 5e-4 - gap, rtol=0, atol=1e-15)
    # the force on the slider (body_a) is along the eccentricity, away from the pin's side
    assert np.allclose(np.hypot(r["clearance.Fx"], r["clearance.Fy"]), N, rtol=1e-12)
    # the pin penetrates the wall by much less than the clearance (stiff steel)
    assert 0.0 < -gap.min() < 0.2 * 5e-4
    # the crank turns at the driven speed
    assert np.allclose(np.diff(r["theta"]) / np.diff(r.t), 5000 * math.pi / 30, rtol=1e-9)
