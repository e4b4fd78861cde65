"""The rattleback (model ``contact_rattleback``): a compliant Hertz contact with exact Coulomb
stick against the rigid no-slip equations of Garcia and Hubbard (Proc. R. Soc. Lond. A 418,
1988), written in Newton-Euler form in the model module (:func:`rigid_rolling`, integrated by
scipy): a different formulation (no constraint rows, no compliance, no friction law), whose
own energy is constant. Spun the unstable way, the body pitches and spins the other way; spun
the other way, it spins on."""

from __future__ import annotations

import numpy as np
import pytest

import nonsmooth
from nonsmooth.models import build, load

T_END = 6.0


@pytest.fixture(scope="module")
def reversal():
    """The default model (spun at -3 rad/s) and the rigid reference over 0-6 s."""
    module = load("contact_rattleback")
    model = build("contact_rattleback")
    t = np.linspace(0.0, T_END, 301)
    r = nonsmooth.simulate(model, T_END, t_eval=t)
    ref = module.rigid_rolling(model.parameters, T_END, t, rtol=1e-9)
    return module, model, r, ref


def test_the_rigid_reference_keeps_its_energy_and_its_contact_could_stick(reversal):
    module, model, r, ref = reversal
    E = ref["energy"]
    assert np.ptp(E) < 1e-8 * abs(E[0])  # no work of a rolling contact, no dissipation
    F = ref["F"]
    assert np.all(F[2] > 0.0)  # it never lifts off ...
    assert np.max(np.hypot(F[0], F[1]) / F[2]) < model.parameters["mu"]  # ... nor slips


def test_spun_the_unstable_way_it_reverses_rolling_on_exact_stick(reversal):
    module, model, r, ref = reversal
    spin = r["spin"]
    assert spin[0] == pytest.approx(-3.0, rel=1e-9)
    crossing = r.t[np.argmax(spin > 0.0)]
    assert 4.5 < crossing < 5.5 and np.all(spin[r.t > 5.5] > 1.0)  # reversed, as the rigid
    assert 4.5 < ref["t"][np.argmax(ref["omega"][2] > 0.0)] < 5.5  # body does
    # the contact stays closed and stuck: no slip event, the contact point does not move
    kinds = {e.kind for e in r.events.filter("table")}
    assert not kinds & {"leave", "reserve_zero"}
    assert np.all(r["table.mode"] == 0.0)
    assert np.max(r["slip"]) < 1e-9
    assert np.all(r["F_t"] <= model.parameters["mu_s"] * r["N"])
    assert abs(r.diagnostics["energy_balance_scaled"]) < 1e-9


def test_it_follows_the_rigid_no_slip_equations_to_the_contact_s_compliance(reversal):
    """The spin, the pitch, the roll and the centre's path against the rigid reference over
    the growth of the pitching (0-3.5 s): they differ by the contact's compliance, not by
    creep: at the default plastic (a static penetration of 5e-6 m) by 3e-2 rad/s, and 100
    times stiffer (steel, 2.4e-7 m) by 4e-4 rad/s."""
    module, model, r, ref = reversal
    k = np.count_nonzero(r.t <= 3.5)  # the first k rows
    pitch, roll = module.angles(ref["R"][:k])
    scale = np.max(np.abs(pitch)), np.max(np.abs(roll))

    def differences(run):
        return (np.max(np.abs(run["spin"][:k] - ref["omega"][2][:k])),
                np.max(np.abs(run["pitch"][:k] - pitch)) / scale[0],
                np.max(np.abs(run["roll"][:k] - roll)) / scale[1],
                np.max(np.abs(np.stack([run["celt.x"][:k], run["celt.y"][:k]])
                              - ref["position"][:2, :k])))

    soft = differences(r)
    assert soft[0] < 0.05 and soft[1] < 0.15 and soft[2] < 0.15 and soft[3] < 5e-5
    stiff_model = build("contact_rattleback", E=2e11)
    stiff = differences(nonsmooth.simulate(stiff_model, r.t[k - 1], t_eval=r.t[:k]))
    assert stiff[0] < 1e-3 and stiff[1] < 3e-3 and stiff[2] < 3e-3 and stiff[3] < 2e-6
    assert stiff[0] < soft[0] / 20  # converging on the rigid body as the contact stiffens


def test_spun_the_stable_way_it_spins_on():
    module = load("contact_rattleback")
    model = build("contact_rattleback", omega0=3.0)
    t = np.linspace(0.0, 2.0, 101)
    r = nonsmooth.simulate(model, 2.0, t_eval=t)
    ref = module.rigid_rolling(model.parameters, 2.0, t, rtol=1e-9)
    assert np.min(r["spin"]) > 2.9 and np.min(ref["omega"][2]) > 2.9
    assert np.max(np.abs(r["spin"] - ref["omega"][2])) < 1e-3
