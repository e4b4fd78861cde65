"""A planar driver along a piecewise polynomial of ``scipy.interpolate``
(``Driver(motion=spline)``): the driving torque of a bar driven along a spline is the closed form
``I_O theta'' + m g (L/2) cos(theta)``, the run restarts at the spline's breakpoints, and a spline
the engine cannot follow is refused with its reason."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.interpolate import BPoly, CubicSpline

import nonsmooth
from nonsmooth import ModelError
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Driver, Revolute

M, L, G = 2.0, 1.0, 9.81


def driven_bar(motion) -> PlanarModel:
    """A uniform bar (M, L) pinned at one end to the ground, hanging (angle -pi/2), its angle
    driven along ``motion``."""
    mdl = PlanarModel("bar")
    bar = mdl.add(Body("bar", M, M * L * L / 12, position=(0.0, -L / 2), angle=-math.pi / 2))
    pin = mdl.add(Revolute("pin", ground, bar, (0.0, 0.0), (-L / 2, 0.0)))
    mdl.add(Driver("drive", pin, motion=motion))
    mdl.add(Gravity(g=G))
    return mdl


def test_a_bar_driven_along_a_spline_takes_the_closed_form_torque():
    theta = BPoly.from_derivatives([0.0, 0.4, 1.0, 1.5], [[-math.pi / 2, 0.0, 0.0],
                                                          [-1.0, 2.0, 0.0],
                                                          [-2.0, -1.0, 3.0],
                                                          [-math.pi / 2, 0.0, 0.0]])
    mdl = driven_bar(theta)
    system = mdl.compile()
    assert np.allclose(system.motion_breaks(0.0, 2.0), [0.4, 1.0, 1.5])
    t = np.linspace(0.0, 2.0, 81)
    r = nonsmooth.simulate(mdl, 2.0, t_eval=t)
    assert np.allclose(r["bar.angle"], theta(t), atol=1e-9)
    tau = M * L * L / 3.0 * theta(t, 2) + M * G * L / 2.0 * np.cos(theta(t))
    assert np.allclose(r["drive"], tau, atol=1e-8 * np.max(np.abs(tau)))


def test_a_spline_the_engine_cannot_follow_is_refused():
    with pytest.raises(ModelError, match="driver 'drive'.*extrapolate=False"):
        driven_bar(CubicSpline([0.0, 1.0, 2.0], [0.0, 1.0, 0.0], extrapolate=False))
