"""The crank-rocker's two-coordinate terms as one numba function (``crank_rocker.py``,
``form="lagrange"``), for the engine's generated kernel (:mod:`nonsmooth.generalized.generated`).

The same expressions, in the same order, as the model's callables (``simulate`` checks the two
against each other at the initial state; ``tests/planar/test_crank_rocker.py`` at random states), so
that both give the same numbers to the last bit. Kept out of ``crank_rocker.py`` so that listing
or building the models does not import numba.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Order of the parameter vector ``par``.
PARAMETERS = ("J1", "m1", "L1", "J2", "m2", "L2", "m3", "L3", "L4", "g", "c", "omega")


def parameters(p: dict) -> np.ndarray:
    """``par`` from the model's parameter values (SI)."""
    return np.array([float(p[name]) for name in PARAMETERS])


@njit(cache=True)
def terms(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias):
    """``M (2, 2), f (2,)``, the slot and drive rows ``phi, phi_t, gamma (2,), G (2, 2)``, the
    slot's tangential row ``W (1, 2)`` and ``bias = (dW/dt) v (1,)`` into the zeroed arrays;
    returns ``(P_applied, P_damping)`` (W). ``docs/method.md`` section 12."""
    J1, m1, L1, J2, m2, L2, m3, L3, L4, g, c, omega = (
        par[0], par[1], par[2], par[3], par[4], par[5], par[6], par[7], par[8], par[9],
        par[10], par[11])
    sin, cos = math.sin, math.cos
    grav2 = (m2 * L2 + m3 * L3) * g
    M[0, 0] = J1
    M[1, 1] = J2 + m3 * L3 ** 2
    f[0] -= -m1 * g * L1 * sin(q[0])  # f = -dV/dq + damping, as GeneralizedSystem.terms
    f[1] -= -grav2 * sin(q[1])
    f[0] += -c * v[0]
    f[1] += 0.0
    P_damping = -c * v[0] * v[0] + 0.0 * v[1]
    phi[0] = L3 * sin(q[1] - q[0]) - L4 * sin(q[0])  # the slot
    c21 = cos(q[1] - q[0])
    G[0, 0] = -L3 * c21 - L4 * cos(q[0])
    G[0, 1] = L3 * c21
    gamma[0] = L3 * sin(q[1] - q[0]) * (v[1] - v[0]) ** 2 - L4 * sin(q[0]) * v[0] ** 2
    phi[1] = q[1] - omega * t  # the drive
    G[1, 1] = 1.0
    phi_t[1] = -omega
    W[0, 1] = -L3 * sin(q[1] - q[0])
    bias[0] = -L3 * cos(q[1] - q[0]) * (v[1] - v[0]) * v[1]
    return 0.0, P_damping


@njit(cache=True)
def potential(t, q, par):
    """The potential energy of gravity (J), as the model's ``potential(t, q)``."""
    m1, L1, m2, L2, m3, L3, L4, g = par[1], par[2], par[4], par[5], par[6], par[7], par[8], par[9]
    return (m1 * g * L1 * math.cos(q[0]) + (m2 * L2 + m3 * L3) * g * math.cos(q[1])
            + (m2 + m3) * g * L4)
