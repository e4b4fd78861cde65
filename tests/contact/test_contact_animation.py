"""``Result.animate`` draws the contact shapes: their wire outlines
(``spatial.animation.shape_outline``) lie on the shapes, move with their bodies, and a contact
model's animation is written."""

from __future__ import annotations

import numpy as np
from PIL import Image

import nonsmooth
from nonsmooth.contact import Box, Capsule, Contact, Cylinder, Ellipsoid, Hertz, Plane, Sphere
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial.animation import _contact_outlines, _poses, shape_outline


def test_outlines_lie_on_their_shapes():
    for line in shape_outline(Sphere(0.3)):
        assert np.allclose(np.linalg.norm(line, axis=1), 0.3)
    for line in shape_outline(Ellipsoid(0.1, 0.2, 0.3)):
        assert np.allclose(np.sum((line / (0.1, 0.2, 0.3)) ** 2, axis=1), 1.0)
    edges = shape_outline(Box((0.1, 0.2, 0.3)))
    assert len(edges) == 12
    corners = {tuple(p) for e in edges for p in np.round(e, 12)}
    assert corners == {(x, y, z) for x in (-0.1, 0.1) for y in (-0.2, 0.2) for z in (-0.3, 0.3)}
    for shape in (Cylinder(0.1, 0.4), Capsule(0.1, 0.4)):
        for line in shape_outline(shape):
            radial = np.linalg.norm(line[:, :2], axis=1)
            beyond = np.maximum(np.abs(line[:, 2]) - 0.2, 0.0)  # (a capsule's caps)
            assert np.allclose(np.hypot(radial, beyond), 0.1) or np.allclose(radial, 0.1)
    n = np.array([0.0, 0.6, 0.8])
    for line in shape_outline(Plane((1, 2, 3), n), extent=2.0):
        assert np.allclose((line - (1, 2, 3)) @ n, 0.0)
    square = shape_outline(Plane((1, 2, 3), n), extent=2.0)[0]
    assert np.allclose(np.linalg.norm(square - (1, 2, 3), axis=1), 2.0 * np.sqrt(2.0))


def test_a_bouncing_ball_is_drawn_with_its_sphere_and_its_floor(tmp_path):
    mdl = SpatialModel("ball")
    ball = mdl.add(Body("ball", 0.1, (1e-4,) * 3, position=(0, 0, 0.06),
                        angular_velocity=(0, 0, 20.0)))
    mdl.add(Contact("floor", ball, Sphere(0.05), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(K=1e6), restitution=0.5))
    mdl.add(Gravity())
    r = nonsmooth.simulate(mdl, 0.2)
    system = r.model.system
    times = np.linspace(0.0, 0.2, 5)
    c, R = _poses(r, system, times)
    outlines = _contact_outlines(system, c, R, extent=0.1)
    assert len(outlines) == 3 + 3  # the sphere's circles, the plane's square and diagonals
    for k in range(len(times)):
        for line in outlines[:3]:  # on the ball, wherever it is
            assert np.allclose(np.linalg.norm(line[k] - c[k, 0], axis=1), 0.05)
        assert np.allclose(outlines[3][k][:, 2], 0.0)  # the floor stays put
    path = r.animate(tmp_path / "ball.gif", fps=20)
    with Image.open(path) as gif:
        assert gif.n_frames == 5
