"""A driver given ``(f, df/dt, d2f/dt2)`` is checked before the run (``nonsmooth.run.motions``):
derivatives that are not those of ``f`` make the driven row drift while every step succeeds,
so they are refused by name (a drift past the run's drift limit) or warned about (below it),
and the predicted drift is the one the run shows."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import nonsmooth
from nonsmooth.errors import DriverMotionWarning, ModelError
from nonsmooth.spatial import Body, Driver, Gravity, Revolute, SpatialModel, ground


def _arm(motion) -> SpatialModel:
    """A bar on a revolute about z at the origin, its angle driven by ``motion``."""
    mdl = SpatialModel("driven bar")
    bar = mdl.add(Body("bar", 1.0, (0.01, 0.1, 0.1), position=(0.5, 0.0, 0.0)))
    pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    mdl.add(Driver("motor", pin, position=motion))
    mdl.add(Gravity(direction=(0.0, -1.0, 0.0)))
    return mdl


def _planar_arm(motion):
    from nonsmooth.planar import Body as PlanarBody
    from nonsmooth.planar import Driver as PlanarDriver
    from nonsmooth.planar import PlanarModel
    from nonsmooth.planar import Revolute as PlanarRevolute
    from nonsmooth.planar import ground as planar_ground

    mdl = PlanarModel("driven bar, planar")
    bar = mdl.add(PlanarBody("bar", 1.0, 0.1, position=(0.5, 0.0)))
    pin = mdl.add(PlanarRevolute("pin", planar_ground, bar, (0.0, 0.0), (-0.5, 0.0)))
    mdl.add(PlanarDriver("motor", pin, motion=motion))
    return mdl


WRONG_SPEED = (math.sin, lambda t: 0.2 * math.cos(t), lambda t: -math.sin(t))


@pytest.mark.parametrize("make", [_arm, _planar_arm], ids=["spatial", "planar"])
def test_derivatives_that_are_not_the_positions_are_refused_by_name(make):
    """``df = 0.2 cos t`` for ``f = sin t``: the row would drift by ~0.16 rad (Baumgarte's
    ``2 alpha e / beta^2`` with ``e = 0.8``): refused before the run, at t = 0."""
    with pytest.raises(ModelError, match=r"driver 'motor': the given df/dt is not the "
                                         r"derivative .* at t = 0 s it is 0\.2 rad/s, 0\.8 "
                                         r"rad/s from the finite difference.*drift by about "
                                         r"0\.1\d+ rad \(more than 0\.01 rad"):
        nonsmooth.simulate(make(WRONG_SPEED), 1.0)


@pytest.mark.parametrize("motion, which", [
    ((math.sin, lambda t: math.cos(t) + 1e-3, lambda t: -math.sin(t)), "df/dt"),
    ((math.sin, math.cos, lambda t: -1.01 * math.sin(t)), "d2f/dt2"),
], ids=["speed", "acceleration"])
def test_a_small_mismatch_warns_with_the_drift_the_run_shows(motion, which):
    """A mismatch the differences resolve but whose drift stays below the limit warns, naming
    the driver; the drift it predicts is the run's ``max_drift_position`` within a factor 2."""
    with pytest.warns(DriverMotionWarning, match=f"driver 'motor': the given {which}") as rec:
        result = nonsmooth.simulate(_arm(motion), 2.0)
    assert result.success
    text = str(next(w.message for w in rec if isinstance(w.message, DriverMotionWarning)))
    predicted = float(re.search(r"drift by about ([0-9.e+-]+) rad", text).group(1))
    drift = result.diagnostics["max_drift_position"]
    assert 0.5 * predicted <= drift <= 2.0 * predicted


def _kinked(t):
    """A smoothstep-free ramp: ``t^2`` up to 0.5 s, then constant speed 1 (``f'`` continuous,
    ``f''`` jumps at 0.5 s, one of the checked times)."""
    return t * t if t < 0.5 else 0.25 + (t - 0.5)


CONSISTENT = {
    "fast sine": (lambda t: math.sin(300 * t), lambda t: 300 * math.cos(300 * t),
                  lambda t: -9e4 * math.sin(300 * t)),
    "kink at a checked time": (_kinked, lambda t: 2 * t if t < 0.5 else 1.0,
                               lambda t: 2.0 if t < 0.5 else 0.0),
    "large offset": (lambda t: 1e4 + t ** 3, lambda t: 3 * t * t, lambda t: 6 * t),
    "square root (steep at the start)": (
        lambda t: math.sqrt(t + 1e-4), lambda t: 0.5 / math.sqrt(t + 1e-4),
        lambda t: -0.25 * (t + 1e-4) ** -1.5),
}


@pytest.mark.parametrize("motion", CONSISTENT.values(), ids=CONSISTENT.keys())
def test_consistent_derivatives_pass_silently(motion):
    from nonsmooth.run.motions import check_given_motions

    system = _arm(motion).compile()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_given_motions(system, 0.0, 1.0, 10.0, 10.0)


def test_the_check_reaches_the_mismatch_where_it_is():
    """Derivatives right at the start but wrong from 0.6 s on are found at a later checked
    time, named in the message."""
    def df(t):
        return math.cos(t) if t < 0.6 else 2.0 * math.cos(t)

    with pytest.raises(ModelError, match=r"at t = (0\.625|0\.75|0\.875|1) s it is"):
        nonsmooth.simulate(_arm((math.sin, df, lambda t: -math.sin(t))), 1.0)


def test_the_unchecked_run_drifts_as_predicted(monkeypatch):
    """Without the check the refused driver runs to the end with status 0 and its row drifts
    by about the predicted 0.16 rad: the failure the check prevents."""
    import sys

    monkeypatch.setattr(sys.modules["nonsmooth.simulate"], "check_given_motions", lambda *a: None)
    result = nonsmooth.simulate(_arm(WRONG_SPEED), 1.0)
    assert result.success
    assert 0.08 < result.diagnostics["max_drift_position"] < 0.32
    assert np.isfinite(result.y).all()
