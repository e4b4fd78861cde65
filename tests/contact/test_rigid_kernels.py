"""The rigid contacts' compiled rows (``spatial.rigid_kernels``) against their Python
reference (``spatial.contact.CompiledContact.rigid_rows`` and ``rigid_bias``,
``compiled_contacts = False``), and the contacts' deepest points at many states against the
contacts' own geometry, row by row."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nonsmooth.contact import Box, Capsule, Contact, Plane, Sphere
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground
from nonsmooth.spatial.primitives import Kinematics


def _scene():
    """A ball off its body's origin and a box on the ground's plane, a capsule on a tilted
    plane carried by a body (no closed-form bias), and two balls against each other."""
    mdl = SpatialModel("rigid scene")
    ball = mdl.add(Body("ball", 1.0, (0.004,) * 3, position=(0.0, 0.0, 0.11)))
    box = mdl.add(Body("box", 2.0, (0.02, 0.03, 0.04), position=(1.0, 0.0, 0.1005)))
    cap = mdl.add(Body("cap", 0.5, (0.001, 0.002, 0.002), position=(2.0, 0.0, 0.06)))
    tray = mdl.add(Body("tray", 3.0, (0.1, 0.1, 0.2), position=(2.0, 0.0, 0.0)))
    other = mdl.add(Body("other", 1.0, (0.004,) * 3, position=(0.0, 0.21, 0.11)))
    floor = Plane((0, 0, 0), (0, 0, 1))
    mdl.add(Contact("ball on floor", ball, Sphere(0.1, position=(0.0, 0.0, -0.01)), ground,
                    floor, normal="rigid", restitution=0.5, mu=0.3))
    mdl.add(Contact("box on floor", box, Box((0.1, 0.2, 0.1)), ground, floor, normal="rigid",
                    restitution=0.0, mu=0.6))
    mdl.add(Contact("cap on tray", tray, Plane((0, 0, 0.02), (0.1, 0.0, 1.0)), cap,
                    Capsule(0.03, 0.2), normal="rigid", restitution=0.2))
    mdl.add(Contact("pair", ball, Sphere(0.1), other, Sphere(0.1), normal="rigid",
                    restitution=1.0))
    mdl.add(Gravity(9.81))
    return mdl


@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_rigid_rows_and_bias_are_the_python_reference(seed):
    """Gaps, normal and tangent rows of every point (all points, and within each contact's
    margin) and the closed-form bias (the ball and the box on the ground; none for the
    scene, whose capsule has none) at random states: agreement to 1e-15 of their scale."""
    mdl = _scene()
    system = mdl.compile()
    rng = np.random.default_rng(seed)
    q0, v0 = mdl.initial_state()
    q = q0 + rng.normal(scale=3e-3, size=q0.size)
    v = rng.normal(size=v0.size)
    for margin in (math.inf, None):
        system.compiled_contacts = True
        got = system.rigid_contact_rows(0.0, q, margin)
        system.compiled_contacts = False
        want = system.rigid_contact_rows(0.0, q, margin)
        assert len(got) == len(want) == 4
        for g, w in zip(got, want, strict=True):
            assert g[:3] == w[:3]
            for a, b in zip(g[3:], w[3:], strict=True):
                assert a.shape == b.shape
                np.testing.assert_allclose(a, b, rtol=0, atol=1e-15 * max(1.0, np.abs(b).max()))
    for system.compiled_contacts in (True, False):
        assert system.rigid_contact_bias(0.0, q, v) is None  # (the capsule's)
    # the ground's ball and box alone: the closed form, compiled and in Python
    only = SpatialModel("ground pairs")
    for body in mdl.bodies[:2]:
        only.add(body)
    for contact in mdl.contacts[:2]:
        only.add(contact)
    sub = only.compile()
    qs, vs = q[:14], v[:12]
    sub.compiled_contacts = True
    got = sub.rigid_contact_bias(0.0, qs, vs)
    sub.compiled_contacts = False
    want = sub.rigid_contact_bias(0.0, qs, vs)
    assert got[0].shape == (9,) and got[1].shape == (9, 2)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-15 * max(1.0, np.abs(b).max()))


def test_the_deepest_points_of_many_states_are_each_states_own():
    """``rigid_kernels.deepest_points`` over 20 states: each contact's deepest row (gap,
    point, normal) that its geometry gives at that state (``CompiledContact.points``)."""
    from nonsmooth.spatial.rigid_kernels import deepest_points

    mdl = _scene()
    system = mdl.compile()
    rng = np.random.default_rng(7)
    q0, _ = mdl.initial_state()
    Q = q0 + rng.normal(scale=5e-3, size=(20, q0.size))
    ci, cf = system.contact_tables
    out = np.empty((20, 4, 7))
    deepest_points(ci, cf, system.n_bodies, Q, out)
    for k in range(20):
        K = system.kinematics(Q[k], np.zeros(system.n_v))
        for c, cc in enumerate(system._contacts):
            pts = cc.points(K)
            np.testing.assert_allclose(out[k, c], pts[int(np.argmin(pts[:, 0]))], rtol=0,
                                       atol=1e-15)


@pytest.mark.parametrize("n_bodies", [1, 3])
def test_the_kinematics_of_many_rows_are_each_rows_own(n_bodies):
    """``Kinematics.rows`` (the results' contact outputs) gives, bit for bit, what
    ``Kinematics`` gives one state at a time (rotations of unnormalized quaternions,
    positions, velocities, both angular velocities)."""
    rng = np.random.default_rng(n_bodies)
    Q = rng.normal(size=(30, 7 * n_bodies + 2))  # (winding coordinates after the bodies')
    V = rng.normal(size=(30, 6 * n_bodies))
    for K, q, v in zip(Kinematics.rows(n_bodies, Q, V), Q, V, strict=True):
        one = Kinematics(n_bodies, q, v)
        for name in ("R", "r", "u", "w", "wb"):
            assert np.array_equal(getattr(K, name), getattr(one, name))
