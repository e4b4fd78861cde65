"""Hertz impacts with hysteretic damping side by side with Exudyn's sphere contact.

Exudyn's ``ObjectContactSphereSphere`` (made by ``MainSystem.CreateSphereSphereContact``) has
the normal force ``f = k d^n + lambda d^n v_gap`` with ``lambda = -(k / d'_-) chi(e)``: the
hysteretic form ``K d^n (1 + chi d' / d'_0)`` of ``nonsmooth.contact`` with ``d'_-`` the
approach speed it stores at the end of the first step in contact. Its ``impactModel=1`` takes
Hunt and Crossley's ``chi = 3 (1 - e) / 2``, ``impactModel=2`` Carvalho and Martins' ``3 (1 -
e)(11 - e) / (2 (1 + 9 e))`` for ``e > 1/3`` and Gonthier's ``(1 - e^2) / e`` below (its
``CObjectContactSphereSphere.cpp``). The scene, the same in both engines: a steel ball of 10 mm
(Exudyn: a mass point) at 1 m/s, no gravity, onto a fixed body (here a plane, in Exudyn a
ground sphere of 1 m: the motion is along the line of centres, so both gaps are the same
function of the ball's height) with the same stiffness ``K`` and exponent 3/2. Both realise
the closed form ``realised_restitution(chi_for(rule, e))`` of the rule; Exudyn to its step
(generalised-alpha, 2nd order), we to the integrator's tolerance; ``damping="exact"`` realises
the ``e`` asked. ``exudyn`` is a test extra (``pip install -e .[test]``); the timing of the
two is ``benchmarks/contact_rebound.py``.
"""

from __future__ import annotations

import math

import exudyn
import pytest

import nonsmooth
from nonsmooth.contact import Contact, Hertz, Plane, Sphere, chi_for, realised_restitution
from nonsmooth.spatial import Body, SpatialModel, ground

M, R, J = 0.032882, 0.01, 1.315e-6  # kg, m, kg m^2: a steel ball
E, NU = 210e9, 0.3  # Pa, -: steel on steel
K = 4.0 / 3.0 * E / (2.0 * (1.0 - NU * NU)) * math.sqrt(R)  # N/m^1.5, a sphere on a plane
V = 1.0  # m/s, the approach speed
GAP0 = 1.1e-6  # m, the initial gap (not a multiple of Exudyn's steps)
T_END = 1.2e-4  # s, after the ball has left (contact ~7.3e-5 s)
R_GROUND = 1.0  # m, Exudyn's fixed sphere
EXUDYN_RULE = {1: "hunt-crossley", 2: "carvalho-martins"}  # impactModel -> our rule, e > 1/3


def exudyn_rule(model: int, e: float) -> str:
    """Our name for the damping rule of Exudyn's ``impactModel`` at restitution ``e``."""
    if model == 2 and e <= 1.0 / 3.0:
        return "gonthier"
    return EXUDYN_RULE[model]


def exudyn_rebound(e: float, model: int, h: float,
                   solver=exudyn.DynamicSolverType.GeneralizedAlpha,
                   gap0: float = GAP0) -> tuple[float, float]:
    """Exudyn's run of the scene at the fixed step ``h`` (s) from the initial gap ``gap0`` (m):
    the rebound speed (m/s) and the ball's height (m) at ``T_END`` (also
    ``benchmarks/contact_rebound.py``'s)."""
    sc = exudyn.SystemContainer()
    mbs = sc.AddSystem()
    ball = mbs.CreateMassPoint(referencePosition=[0.0, 0.0, R + gap0],
                               initialVelocity=[0.0, 0.0, -V], mass=M, gravity=[0.0, 0.0, 0.0])
    base = mbs.CreateGround(referencePosition=[0.0, 0.0, -R_GROUND])
    mbs.CreateSphereSphereContact(itemNumbers=[base, ball], spheresRadii=[R_GROUND, R],
                                  contactStiffness=K, contactStiffnessExponent=1.5,
                                  impactModel=model, restitutionCoefficient=e,
                                  dataInitialCoordinates=[gap0, 0.0, 0.0, 0.0])
    mbs.Assemble()
    s = exudyn.SimulationSettings()
    s.solution.file.write = False
    s.show.statistics = False
    ti = s.timeIntegration
    ti.numberOfSteps, ti.endTime = int(round(T_END / h)), T_END
    ti.minimumStepSize = 1e-15  # its step reduction at the touch may go below the default 1e-8
    ti.verboseMode = 0
    ti.newton.useModifiedNewton = True
    ti.generalizedAlpha.spectralRadius = 1.0  # no numerical damping
    mbs.SolveDynamic(s, solverType=solver)
    node = mbs.GetObject(ball)["nodeNumber"]
    vz = mbs.GetNodeOutput(node, exudyn.OutputVariableType.Velocity)[2]
    z = mbs.GetNodeOutput(node, exudyn.OutputVariableType.Position)[2]
    return float(vz), float(z)


def ours(e: float, rule: str, gap0: float = GAP0, **tolerances) -> tuple[float, float, float]:
    """Our run of the scene from the initial gap ``gap0`` (m): the approach and rebound speeds
    (m/s) of the events and the ball's height (m) at ``T_END``."""
    mdl = SpatialModel("steel ball onto a plate")
    ball = mdl.add(Body("ball", M, (J,) * 3, position=(0.0, 0.0, R + gap0),
                        velocity=(0.0, 0.0, -V)))
    mdl.add(Contact("floor", ball, Sphere(R), ground, Plane((0, 0, 0), (0, 0, 1)),
                    normal=Hertz(K=K), restitution=e, damping=rule))
    r = nonsmooth.simulate(mdl, T_END, t_eval=[0.0, T_END], **tolerances)
    touch, leave = r.events.filter("floor", "touch"), r.events.filter("floor", "leave")
    assert len(touch) == len(leave) == 1
    return touch[0].speed, -leave[0].speed, float(r["ball.z"][-1])


@pytest.mark.parametrize("model, e", [(1, 0.5), (1, 0.9), (2, 0.5), (2, 0.2)])
def test_exudyn_realises_the_closed_form_of_its_rule_to_its_step(model, e):
    closed = realised_restitution(chi_for(exudyn_rule(model, e), e))
    errors = []
    for h in (5e-7, 2.5e-7, 1.25e-7):
        vz, _ = exudyn_rebound(e, model, h)
        errors.append(abs(vz / V / closed - 1.0))
    # its second-order step: 1e-4 at 5e-7 s (150 steps in contact), then converging
    assert errors[0] < 3e-4
    assert errors[2] < errors[1] < errors[0]
    assert errors[2] < 1e-5


@pytest.mark.parametrize("model, e", [(1, 0.5), (1, 0.9), (2, 0.5), (2, 0.2)])
def test_ours_realises_the_same_closed_form_to_1e_9(model, e):
    rule = exudyn_rule(model, e)
    v_in, v_out, _ = ours(e, rule, rtol=1e-12, atol=1e-15)
    assert v_in == pytest.approx(V, rel=1e-10)
    assert v_out / v_in == pytest.approx(realised_restitution(chi_for(rule, e)), rel=1e-9)


@pytest.mark.parametrize("model, e", [(1, 0.5), (2, 0.2)])
def test_both_engines_follow_the_same_contact(model, e):
    """The whole contact, not only its end: the ball's height after it has left (the contact's
    duration and the rebound speed together) agrees between the engines to Exudyn's step."""
    _, _, z_ours = ours(e, exudyn_rule(model, e), rtol=1e-12, atol=1e-15)
    dz = [abs(exudyn_rebound(e, model, h)[1] - z_ours) for h in (2.5e-7, 1.25e-7)]
    assert dz[1] < dz[0] < 1e-9  # m: against a flight of ~3e-5 m after the contact


def test_exact_damping_realises_the_restitution_exudyns_rules_miss():
    e = 0.5
    v_in, v_out, _ = ours(e, "exact", rtol=1e-12, atol=1e-15)
    assert v_out / v_in == pytest.approx(e, rel=1e-9)
    hc, _ = exudyn_rebound(e, 1, 1.25e-7)  # Hunt-Crossley: 0.66296 for 0.5 asked
    cm, _ = exudyn_rebound(e, 2, 1.25e-7)  # Carvalho-Martins: 0.50017
    assert hc / V == pytest.approx(0.66296, abs=1e-4)
    assert abs(cm / V - e) > 1e-4
