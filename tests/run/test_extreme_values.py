"""Valid models at the edges of double precision (issue 19, item 2): a very heavy body or a very
large force either runs to the closed form or is refused up front with the physical range; never
an internal error (``ZeroDivisionError`` from the compiled phase's step-size selection, whose
root mean square overflowed)."""

from __future__ import annotations

import pytest

import nonsmooth as ns
from nonsmooth.errors import ModelError


def block(mass: float, force: float, inertia: float = 0.1) -> ns.PlanarModel:
    """A block sliding at 1 m/s on a horizontal guide (mu = 0.1), pushed along it by a user
    force function."""
    mdl = ns.PlanarModel("heavy block")
    b = mdl.add(ns.Body("block", mass=mass, inertia=inertia, velocity=(1.0, 0.0)))
    mdl.add(ns.Translational("guide", ns.ground, b, axis=(-1.0, 0.0), mu=0.1))
    mdl.add(ns.Force("push", b, lambda t, q, v: (force, 0.0)))
    mdl.add(ns.Gravity(g=9.81))
    return mdl


@pytest.mark.parametrize("mass", [1e20, 1e60, 1e100])
@pytest.mark.parametrize("method", ["DOP853", "RK4"])
def test_a_heavy_block_decelerates_as_the_closed_form_says(mass, method):
    # the push (1 N) is nothing to it: v = 1 - mu g t while it slides
    r = ns.simulate(block(mass, 1.0), 0.5, method=method, dt=1e-3)
    assert r.status == 0, r.message
    assert r["block.vx"][-1] == pytest.approx(1.0 - 0.981 * 0.5 + 0.5 / mass, rel=1e-9)


@pytest.mark.parametrize("force", [1e150, 1e20])
def test_a_huge_force_accelerates_as_the_closed_form_says(force):
    r = ns.simulate(block(1.0, force), 0.5)
    assert r.status == 0, r.message
    assert r["block.vx"][-1] == pytest.approx(1.0 + (force - 0.981) * 0.5, rel=1e-9)


@pytest.mark.parametrize("what", ["mass", "inertia"])
def test_a_mass_beyond_the_physical_range_is_refused_with_the_range(what):
    kwargs = {"mass": 1.0, "inertia": 0.1, what: 1e300}
    with pytest.raises(ModelError, match=rf"{what} of body 'block': 1e\+300 is out of range; "
                                         r"it must be at most 1e\+100"):
        block(kwargs["mass"], 1.0, kwargs["inertia"])
