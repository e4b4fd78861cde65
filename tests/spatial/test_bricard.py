"""Bricard's linkage (``models/bricard.py``, IFToMM benchmark A04): a loop whose redundant row
changes along its motion.

Its one redundant row is a different combination of the 30 rows at each configuration: with the
rows removed at the start chosen by the loop's closing joint ``J4``, the rows kept become
dependent at t = 1.24 s while all 30 keep their rank (run with those rows only, the steps
collapse there and the run stops, named). The run chooses the removed row again before that
and goes on for the benchmark's 10 s, through the same configuration every half period: the
energy is conserved, all 30 rows hold, the motion is the one with any other choice of rows, a
warning names the first new choice and ``Result.row_sets`` every one. A genuine singular
configuration still stops the run (``test_spatial_redundancy.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import build
from nonsmooth.spatial.model import RedundancyWarning, SpatialSystem

T_EVAL = np.linspace(0.0, 10.0, 201)


@pytest.fixture(scope="module")
def rechosen():
    """The linkage closed at ``J4`` run for the benchmark's 10 s, with the warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = build("bricard", closing="J4")
        result = nonsmooth.simulate(model, 10.0, t_eval=T_EVAL)
    return model, result, [w for w in caught if issubclass(w.category, RedundancyWarning)]


def test_the_rows_kept_are_chosen_again_before_they_become_dependent(rechosen):
    model, result, caught = rechosen
    assert result.success and result.t[-1] == 10.0
    (t0, first), (t1, second), *_ = result.row_sets
    assert t0 == 0.0 and "J4.perp2" not in first  # removed by compile
    assert 0.5 < t1 < 1.24 and "J4.perp2" in second  # before the kept rows' dependence
    messages = [str(w.message) for w in caught]
    assert "removed the redundant constraint rows ['J4.perp2']" in messages[0]  # compile
    assert len(messages) == 2  # the first choice along the run warns, the others are listed
    removed = sorted(set(first) - set(second))
    assert (f"at t = {t1:.9g} s the rows kept became nearly dependent while all the rows keep "
            f"their rank" in messages[1] and f"removed the rows {removed} instead of "
            "['J4.perp2']" in messages[1] and "Result.row_sets" in messages[1])


def test_energy_is_conserved_and_the_loop_stays_closed(rechosen):
    """What the benchmark checks: the mechanical energy's drift over 10 s (here below 1e-8 of
    the potential energy's swing), and every one of the 30 rows holds (not only those kept)."""
    model, result, _ = rechosen
    energy = result["energy"]
    swing = np.ptp(result.V)
    assert swing > 4.0  # it fell: P3 swings from x = 1 m to -1 m and back
    assert np.ptp(result["P3_x"]) > 1.9
    assert np.max(np.abs(energy - energy[0])) <= 1e-8 * swing
    assert result.diagnostics["energy_balance_scaled"] <= 1e-8
    every_row = SpatialSystem(build("bricard", closing="J4").system.model)
    phi = np.array([every_row.python_terms(t, q, v).phi
                    for t, q, v in zip(result.t, result.q, result.v, strict=True)])
    assert phi.shape[1] == 30 and np.max(np.abs(phi)) <= 1e-9


def test_the_multipliers_are_named_by_row_and_balance_the_motion(rechosen):
    """``lam`` has a column for each row used (30: every row was kept at some time), 0 while
    it was removed; with every row's ``G`` the equations of motion balance at every output."""
    model, result, _ = rechosen
    system = model.system
    assert sorted(result.constraint_names) == sorted(system._all_names)
    for (start, rows), (end, _) in zip(result.row_sets, [*result.row_sets[1:], (11.0, None)],
                                       strict=True):
        during = (result.t >= start) & (result.t < end)
        for name in set(result.constraint_names) - set(rows):
            assert np.all(result[name][during] == 0.0)
    order = [result.constraint_names.index(name) for name in system._all_names]
    for k in range(0, len(result.t), 10):
        t, q, v = result.t[k], result.q[k], result.v[k]
        T = system.terms(t, q, v)
        G = system.all_rows_jacobian(t, q)
        balance = T.M @ result.dv[k] - T.f - G.T @ result.lam[k, order]
        assert np.max(np.abs(balance)) <= 1e-8 * (1.0 + np.max(np.abs(result.lam[k])))
    assert np.all(np.isfinite(result["J3.Fx"])) and np.all(np.isfinite(result["J3.Tz_joint"]))


def test_the_motion_does_not_depend_on_the_rows_removed(rechosen):
    """The IFToMM model as given (closed at ``J5``: its first choice lasts the whole run) and
    the one closed at ``J4`` (chosen again along the run) move alike to 1e-9 m over 10 s."""
    _, result, _ = rechosen
    with pytest.warns(RedundancyWarning, match=r"\['J5.perp2'\]"):
        benchmark = nonsmooth.simulate(build("bricard"), 10.0, t_eval=T_EVAL)
    assert len(benchmark.row_sets) == 1
    assert np.max(np.abs(benchmark.q - result.q)) <= 1e-9
    for name in ("P3_x", "P3_y", "P3_z"):
        assert np.max(np.abs(benchmark[name] - result[name])) <= 1e-9


def test_a_second_run_starts_from_the_rows_compile_chose(rechosen):
    """The model's system is used again: its run starts from the rows removed by compile (not
    the last ones the first run chose) and repeats the first run."""
    model, result, _ = rechosen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundancyWarning)
        again = nonsmooth.simulate(model, 2.0, t_eval=T_EVAL[T_EVAL <= 2.0])
    assert again.row_sets[0][1] == result.row_sets[0][1]
    assert np.allclose([t for t, _ in again.row_sets],
                       [t for t, _ in result.row_sets if t <= 2.0], rtol=0.0, atol=1e-9)
    assert np.max(np.abs(again.q - result.q[:len(again.t)])) <= 1e-12


def test_scipys_steps_choose_the_rows_again_too():
    """The Python stepper (RK45) goes past the former stop at 1.24 s the same way."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundancyWarning)
        result = nonsmooth.simulate(build("bricard", closing="J4"), 2.0, method="RK45",
                                    rtol=1e-8, atol=1e-10)
    assert result.success and len(result.row_sets) > 1
    assert result.row_sets[1][0] < 1.2414
    energy = result["energy"]
    assert np.max(np.abs(energy - energy[0])) <= 1e-6 * np.ptp(result.V)
    every_row = SpatialSystem(build("bricard", closing="J4").system.model)
    assert max(np.max(np.abs(every_row.python_terms(t, q, v).phi))
               for t, q, v in zip(result.t, result.q, result.v, strict=True)) <= 1e-7


@pytest.mark.parametrize(("method", "dt", "closure"), [("RK4", 2e-3, 1e-8), ("Euler", 1e-4, 1e-3)])
def test_fixed_steps_choose_the_rows_again_too(method, dt, closure):
    """A fixed-step run past 1.24 s chooses the rows again as well (the compiled phase's
    pauses): with the first rows kept through their dependence Euler's steps leave the loop
    (all rows off by 0.8 m: the rows kept hold on another branch) and RK4's drift 1e4 times
    more."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RedundancyWarning)
        result = nonsmooth.simulate(build("bricard", closing="J4"), 1.5, method=method, dt=dt)
    assert result.success and 1.1 < result.row_sets[1][0] < 1.2414
    every_row = SpatialSystem(build("bricard", closing="J4").system.model)
    assert max(np.max(np.abs(every_row.python_terms(t, q, v).phi))
               for t, q, v in zip(result.t[::50], result.q[::50], result.v[::50],
                                  strict=True)) <= closure
