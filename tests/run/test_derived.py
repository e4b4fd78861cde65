"""``simulate(..., derived=False)``: the states, energies and work at the outputs without their
evaluations (the recording MuJoCo's rollout makes), checked against the default run's rows."""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth import NotRecordedError
from nonsmooth.models import spatial_double_pendulum as sdp
from nonsmooth.models import spatial_friction_arm
from nonsmooth.planar import Body, PlanarModel, ground
from nonsmooth.planar.forces import Gravity
from nonsmooth.planar.joints import Revolute

GRID = np.linspace(0.0, 2.0, 201)


@pytest.fixture(scope="module")
def pendulum_runs():
    model = sdp.build()
    return (nonsmooth.simulate(model, 2.0, t_eval=GRID),
            nonsmooth.simulate(model, 2.0, t_eval=GRID, derived=False))


def test_the_states_energies_and_work_are_the_default_runs(pendulum_runs):
    full, states = pendulum_runs
    np.testing.assert_array_equal(states.t, full.t)
    np.testing.assert_array_equal(states.q, full.q)  # the outputs do not change the steps
    np.testing.assert_array_equal(states.v, full.v)
    np.testing.assert_array_equal(states.work, full.work)
    scale = float(np.max(np.abs(full.V)))
    np.testing.assert_allclose(states.T, full.T, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(states.V, full.V, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(states.energy_error, full.energy_error, rtol=0,
                               atol=1e-12 * scale)
    # the model's outputs of the states are kept; those of the multipliers are named
    np.testing.assert_array_equal(states["tip_x"], full["tip_x"])
    assert states.not_recorded and set(states.not_recorded) <= set(full.outputs)
    assert set(states.outputs) | set(states.not_recorded) == set(full.outputs)


def test_the_outputs_are_not_evaluated(pendulum_runs):
    full, states = pendulum_runs
    n_full = full.diagnostics["n_evaluations"]
    n_states = states.diagnostics["n_evaluations"]
    # the default run evaluates every output row but the first and the last (the states at
    # the start and the end, evaluated by the run itself either way)
    assert n_full - n_states == len(GRID) - 2


@pytest.mark.parametrize("field", ["dv", "lam", "phi", "dphi"])
def test_a_field_it_leaves_out_raises_a_named_error(pendulum_runs, field):
    _, states = pendulum_runs
    with pytest.raises(NotRecordedError, match=rf"Result\.{field} was not computed.*"
                                               r"derived=False.*derived=True"):
        getattr(states, field)
    assert not hasattr(states, field)  # an AttributeError: hasattr and getattr answer it


def test_an_output_of_the_multipliers_raises_a_named_error(pendulum_runs):
    _, states = pendulum_runs
    name = states.not_recorded[0]
    with pytest.raises(NotRecordedError, match=rf"output '{name}' was not computed"):
        states[name]
    with pytest.raises(NotRecordedError, match=r"Result\.lam"):
        states[states.constraint_names[0]]


def test_the_drift_is_reported_as_not_measured(pendulum_runs):
    full, states = pendulum_runs
    assert full.diagnostics["max_drift_position"] < 1e-6
    assert np.isnan(states.diagnostics["max_drift_position"])
    assert np.isnan(states.diagnostics["max_drift_velocity"])


def test_a_model_with_friction_pairs_is_refused():
    with pytest.raises(ValueError, match=r"derived=False: model .* friction pair.*modes and "
                                         r"faces.*derived=True"):
        nonsmooth.simulate(spatial_friction_arm.build(), 0.1, derived=False)


def test_derived_must_be_a_bool():
    with pytest.raises(ValueError, match=r"derived must be True or False, got 'no'"):
        nonsmooth.simulate(sdp.build(), 0.1, derived="no")


def test_a_planar_model_whose_mass_is_in_its_evaluations():
    """A planar pendulum (no constant mass matrix: the outputs are evaluated for their kinetic
    energy all the same): the same states and energies, the fields left out alike."""
    m = PlanarModel("pendulum")
    rod = m.add(Body("rod", 1.0, 0.02, position=(0.25, 0.0), angle=0.0))
    m.add(Revolute("pin", ground, rod, (0.0, 0.0), (-0.25, 0.0)))
    m.add(Gravity())
    full = nonsmooth.simulate(m, 1.0, dt=0.01)
    states = nonsmooth.simulate(m, 1.0, dt=0.01, derived=False)
    np.testing.assert_array_equal(states.q, full.q)
    np.testing.assert_allclose(states.T, full.T, rtol=0, atol=1e-12)
    with pytest.raises(NotRecordedError):
        _ = states.dv


def test_the_summary_says_what_was_not_recorded_and_the_rtol_that_ran(pendulum_runs):
    full, states = pendulum_runs
    assert "max drift not recorded (derived=False)" in states.summary()
    assert "max drift |Phi|" in full.summary()
    # this frictionless spatial model's own default rtol (the family's), not the engine's
    assert "outputs, method DOP853 (rtol 5e-13)" in full.summary()
    fixed = nonsmooth.simulate(sdp.build(), 0.1, method="RK4", dt=1e-3)
    assert "method RK4\n" in fixed.summary()
