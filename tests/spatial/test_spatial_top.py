"""The heavy symmetric top (issue 21, check 2; ``docs/design/spatial.md`` section 6): a symmetric
body on a spherical joint at the ground, simulated with the spatial family, against the closed
form of its nutation (Goldstein, *Classical Mechanics*, section 5.7: the bounds are two roots
of the cubic ``f(u)``, ``u = cos(theta)``, the period an elliptic integral of its roots;
``models/spatial_gyroscope.py``'s :func:`nutation`, written from the conserved quantities, not
from the simulation)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import quad

import nonsmooth
from nonsmooth.models.spatial_gyroscope import build, nutation
from nonsmooth.spatial.rotation import rotation_matrix

CASES = {  # m kg, J1 J3 kg m^2, L m, theta0 rad, spin/precession rad/s, g m/s^2
    "precessing": dict(m=1.0, J1=0.01, J3=0.015, L=0.1, theta0=0.5, spin=50.0, precession=1.0,
                       g=9.81),
    "cusp": dict(m=2.0, J1=0.02, J3=0.03, L=0.15, theta0=1.0, spin=40.0, precession=0.0,
                 g=9.81),
    "looping": dict(m=1.0, J1=0.01, J3=0.012, L=0.1, theta0=0.8, spin=30.0, precession=-3.0,
                    g=9.81),
}


def _u_dot(t, q, v):
    """d/dt cos(theta) = z . (omega x e3) = (R (omega' x z'))_z: zero at the nutation bounds."""
    return (rotation_matrix(q[3:7]) @ np.cross(v[3:6], (0.0, 0.0, 1.0)))[2]


@pytest.fixture(scope="module", params=sorted(CASES))
def top(request):
    P = CASES[request.param]
    ref = nutation(**P)
    r = nonsmooth.simulate(build(**P), 8 * ref["period"], rtol=1e-11, atol=1e-13, dt=0.005,
                           events=[_u_dot])
    return P, ref, r


def test_closed_form_is_its_integral():
    """The elliptic-integral period is ``2 int du / sqrt(f)`` by quadrature (``scipy``)."""
    ref = nutation(**CASES["precessing"])
    beta = 2 * 1.0 * 9.81 * 0.1 / ref["I1"]
    u1, u2, u3 = ref["u1"], ref["u2"], ref["u3"]
    # u = u2 + (u1 - u2) sin^2(s): the integrand's end singularities removed
    val = quad(lambda s: 2.0 / math.sqrt(beta * (u3 - u2 - (u1 - u2) * math.sin(s) ** 2)),
               0.0, math.pi / 2, epsabs=0, epsrel=1e-13)[0]
    assert 2 * val == pytest.approx(ref["period"], rel=1e-12)
    assert -1 < u2 < u1 < 1 < u3


def test_nutation_bounds(top):
    P, ref, r = top
    assert r.success and r.method == "DOP853"
    u = np.array([rotation_matrix(y[3:7])[2, 2] for y in r.y_events["_u_dot"]])
    assert u.size >= 15  # 8 periods: two bounds each
    mid = 0.5 * (ref["u1"] + ref["u2"])
    theta = np.arccos(u)
    err_min = float(np.max(np.abs(theta[u > mid] - ref["theta_min"])))
    err_max = float(np.max(np.abs(theta[u < mid] - ref["theta_max"])))
    assert err_min < 1e-8 and err_max < 1e-8, (err_min, err_max)  # measured <= 2.1e-11 (looping)
    assert ref["theta_max"] - ref["theta_min"] > 1e-3  # a visible nutation
    # the output column follows: theta within the bounds throughout
    assert np.min(r["theta"]) > ref["theta_min"] - 1e-8
    assert np.max(r["theta"]) < ref["theta_max"] + 1e-8


def test_nutation_period(top):
    P, ref, r = top
    te = r.t_events["_u_dot"]
    u = np.array([rotation_matrix(y[3:7])[2, 2] for y in r.y_events["_u_dot"]])
    t_max = te[u < 0.5 * (ref["u1"] + ref["u2"])]  # successive theta maxima
    assert t_max.size >= 7
    err = float(np.max(np.abs(np.diff(t_max) / ref["period"] - 1.0)))
    assert err < 1e-8, err  # measured <= 5.4e-12


def test_conserved_quantities(top):
    P, ref, r = top
    scale = P["m"] * P["g"] * P["L"]  # J: the potential energy's scale
    E = r["energy"]
    assert np.max(np.abs(E - ref["energy"])) / max(scale, abs(ref["energy"])) < 1e-10  # 4e-12
    p_phi = r["p_phi"]
    assert np.max(np.abs(p_phi - ref["p_phi"])) / abs(ref["p_psi"]) < 1e-10  # 3e-11
    p_psi = P["J3"] * r["omega3"]
    assert np.max(np.abs(p_psi - ref["p_psi"])) / abs(ref["p_psi"]) < 1e-10  # 2e-16
    # the pivot stays at the origin
    tip = np.array([q[:3] - P["L"] * rotation_matrix(q[3:7])[:, 2] for q in r.q])
    assert np.max(np.abs(tip)) < 1e-10
