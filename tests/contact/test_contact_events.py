"""The run's compliant-contact mechanism (the model-family contract's obligation 12): a contact's
gap is an event function (``touch`` downwards, ``leave`` upwards, the integrator restarting at
each), its impact speed is a state of the run set at the touch, and the contact force enters the
terms and the energy balance. Checked on a point mass in generalized coordinates against closed
forms nobody here wrote: Johnson's Hertz impact duration and the realised restitution of
hysteretic damping (Lambert W)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import lambertw

import nonsmooth
from nonsmooth.system import GeneralizedSystem

MASS = 0.032882  # kg: a steel ball of radius 10 mm
K = 1.2e9  # N/m^1.5: a Hertz stiffness of that ball on a steel plate (order of magnitude)


def realised_restitution(chi: float) -> float:
    """The restitution of ``f = K d^n (1 + chi d'/d'_0)`` (independent of K, n, m, d'_0)."""
    a = 1.0 + chi
    return float(np.real(1.0 + lambertw(-a * math.exp(-a), 0)) / chi)


class Ball(GeneralizedSystem):
    """A point mass above a floor at height 0 (its coordinate the height, the gap), with the
    hysteretic Hertz force ``K d^n (1 + chi d'/d'_0)`` below it; ``g`` gravity (m/s^2)."""

    contact_names = ("floor",)

    def __init__(self, chi: float, n: float = 1.5, g: float = 0.0, stiffness: float = K):
        self.chi, self.n, self.K = chi, n, stiffness
        super().__init__(["h"], np.array([[MASS]]),
                         potential=lambda t, q: MASS * g * q[0] + self._elastic_energy(q[0]),
                         potential_gradient=lambda t, q: np.array([MASS * g]))

    def _elastic_energy(self, h: float) -> float:
        return self.K * (-h) ** (self.n + 1) / (self.n + 1) if h < 0 else 0.0

    def contact_gaps(self, t, q):
        return np.array([q[0]])

    def contact_approach(self, t, q, v):
        return np.array([-v[0]])

    def contact_forces(self, t, q, v, impact):
        d, rate = -q[0], -v[0]
        if d <= 0.0:
            return np.zeros(1), 0.0, np.zeros(1)
        elastic = self.K * d ** self.n
        # (an open contact has impact speed 0 until its touch is located: a trial step past
        # it takes a floor, as the families' laws do)
        f = max(0.0, elastic * (1.0 + self.chi * rate / max(impact[0], 1e-6)))
        return np.array([f]), -(f - elastic) * rate, np.array([f])


def _impacts(r):
    touch = r.events.filter("floor", "touch")
    leave = r.events.filter("floor", "leave")
    return touch, leave


def test_undamped_hertz_impact_lasts_johnsons_time():
    v = 0.7  # m/s
    r = nonsmooth.simulate(Ball(chi=0.0), 0.004, q0=[0.5e-3], v0=[-v], rtol=1e-12, atol=1e-15)
    touch, leave = _impacts(r)
    assert len(touch) == len(leave) == 1
    d_max = (5.0 * MASS * v * v / (4.0 * K)) ** 0.4  # Johnson, Contact Mechanics, 11.4
    duration = 2.943275184 * d_max / v
    assert leave.t[0] - touch.t[0] == pytest.approx(duration, rel=1e-8)
    assert touch[0].speed == pytest.approx(v, rel=1e-10)  # the impact speed logged
    assert -leave[0].speed == pytest.approx(v, rel=1e-9)  # elastic: it leaves as fast
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


@pytest.mark.parametrize("chi, n, v", [(0.2, 1.5, 1.0), (0.9, 1.0, 0.3), (0.05, 2.0, 2.5)])
def test_hysteretic_damping_realises_the_lambert_w_restitution(chi, n, v):
    r = nonsmooth.simulate(Ball(chi=chi, n=n, stiffness=K if n == 1.5 else 1e7), 0.02,
                           q0=[1e-4], v0=[-v], rtol=1e-12, atol=1e-15)
    touch, leave = _impacts(r)
    assert len(touch) == len(leave) == 1
    assert -leave[0].speed / touch[0].speed == pytest.approx(realised_restitution(chi),
                                                             rel=1e-9)
    # the damping's work is the kinetic energy lost (the energy balance closes)
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-8


def test_a_ball_bounces_with_gravity_and_every_touch_stores_its_impact_speed():
    r = nonsmooth.simulate(Ball(chi=0.3, g=9.81), 0.6, q0=[0.1], v0=[0.0], rtol=1e-11,
                           atol=1e-14)
    touch, leave = _impacts(r)
    assert len(touch) >= 3 and len(leave) >= 3
    first = math.sqrt(2.0 * 9.81 * 0.1)  # m/s at the first touch (free fall from 0.1 m)
    assert touch[0].speed == pytest.approx(first, rel=1e-9)
    assert touch.t[0] == pytest.approx(math.sqrt(2.0 * 0.1 / 9.81), rel=1e-9)
    # each touch after a leave: the approach speed equals the previous leave's (free flight)
    for k in range(1, 3):
        assert touch[k].speed == pytest.approx(-leave[k - 1].speed, rel=1e-8)
    assert [e.kind for e in r.events.filter("floor")][:3] == ["start", "touch", "leave"]
    assert r.events.filter("floor", "start")[0].after == "open"


def test_a_contact_name_given_as_the_element_kind_is_named_with_the_way_to_filter_by_name():
    """``events.filter(element="floor")`` (a name where a kind goes) says how to filter by
    name."""
    from nonsmooth.models import build

    r = nonsmooth.simulate(build("contact_bouncing_ball"), 0.12)
    with pytest.raises(ValueError, match=r"give it first: events.filter\('floor'\)"):
        r.events.filter(element="floor")
    assert len(r.events.filter("floor")) == 3
