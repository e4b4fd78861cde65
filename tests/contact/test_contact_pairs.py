"""``nonsmooth.contact.contacts``: the pairs it makes for many shapes (every pair with a closed
form, none between joined bodies or excluded ones), and a head-on collision of two of its
balls against the closed form of an elastic impact of equal masses (the velocities exchange)."""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth.contact import Box, Hertz, Plane, Sphere, contacts
from nonsmooth.errors import ModelError
from nonsmooth.spatial import Body, SpatialModel, Spherical, ground

R, M = 0.02, 0.26  # m, kg


def _balls(n: int, spacing: float = 0.1, v0: float = 0.0) -> tuple[SpatialModel, list]:
    mdl = SpatialModel("balls")
    balls = [mdl.add(Body(f"b{i}", M, (0.4 * M * R * R,) * 3, position=(i * spacing, 0, 0.1),
                          velocity=(v0 if i == 0 else 0.0, 0, 0))) for i in range(n)]
    return mdl, balls


def test_contacts_makes_every_pair_with_a_closed_form_but_joined_and_excluded_ones():
    mdl, (a, b, c) = _balls(3)
    box = mdl.add(Body("box", 1.0, (0.01,) * 3, position=(0, 1, 0.1)))
    mdl.add(Spherical("link", a, b, point=(0.05, 0, 0.1)))
    made = contacts(mdl, {a: Sphere(R), b: Sphere(R), c: Sphere(R), box: Box((0.1, 0.1, 0.1)),
                          ground: Plane((0, 0, 0), (0, 0, 1))}, normal=Hertz(K=1e8))
    names = sorted(x.name for x in made)
    # a-b joined; box-sphere has no closed form; box-ground does
    assert names == ["b0-b2", "b0-ground", "b1-b2", "b1-ground", "b2-ground", "box-ground"]
    assert all(x in mdl.contacts for x in made)
    mdl2, (a, b, c) = _balls(3)
    made = contacts(mdl2, {a: [Sphere(R), Sphere(R / 2)], b: Sphere(R)}, exclude=None,
                    normal=Hertz(K=1e8))
    assert sorted(x.name for x in made) == ["b0-b1#0", "b0-b1#1"]
    mdl3, (a, b, c) = _balls(3)
    made = contacts(mdl3, {a: Sphere(R), b: Sphere(R), c: Sphere(R)}, exclude=[(a, c)],
                    normal=Hertz(K=1e8))
    assert sorted(x.name for x in made) == ["b0-b1", "b1-b2"]
    with pytest.raises(ModelError, match="not a contact shape"):
        contacts(mdl3, {a: 0.02}, normal=Hertz(K=1e8))
    with pytest.raises(ModelError, match="exclude"):
        contacts(mdl3, {a: Sphere(R)}, exclude=3, normal=Hertz(K=1e8))


def test_two_equal_balls_exchange_their_velocities_in_an_elastic_head_on_impact():
    v0 = 0.5
    mdl, balls = _balls(2, spacing=2 * R + 1e-4, v0=v0)
    contacts(mdl, {b: Sphere(R) for b in balls}, normal=Hertz(E=200e9, nu=0.3))
    r = nonsmooth.simulate(mdl, 5e-4, rtol=1e-12, atol=1e-15)
    assert len(r.events.filter("b0-b1", "touch")) == 1
    assert len(r.events.filter("b0-b1", "leave")) == 1
    assert r["b0.vx"][-1] == pytest.approx(0.0, abs=1e-9)
    assert r["b1.vx"][-1] == pytest.approx(v0, rel=1e-9)
    assert np.allclose(r["b0.vx"] + r["b1.vx"], v0, rtol=1e-12)  # momentum
