"""Closed forms of the Coulomb oscillator (``models/stick_slip_oscillator.py``), shared by the
tests (``test_stick_slip.py``, ``test_sweep.py``)."""

from __future__ import annotations

import math


def free_vibration_stop(m, k, mu_s, mu_d, g, x0):
    """Closed form: half-cycles of pi/omega about +-F_d/k until |k x| <= F_s at a turning point."""
    F_s, F_d, omega = mu_s * m * g, mu_d * m * g, math.sqrt(k / m)
    x, t, direction = x0, 0.0, -math.copysign(1.0, x0)
    while abs(k * x) > F_s:
        centre = -direction * F_d / k  # friction -direction F_d shifts the equilibrium
        x = 2 * centre - x
        t += math.pi / omega
        direction = -direction
    return t, x


def belt_cycle(m, k, mu_s, mu_d, g, v_belt):
    """``(T_stick, T_slip)`` of the belt's stick-slip limit cycle (s), no damper."""
    F_s, F_d, omega = mu_s * m * g, mu_d * m * g, math.sqrt(k / m)
    D = (F_s - F_d) / k
    return 2 * (F_s - F_d) / (k * v_belt), (2 * math.pi - 2 * math.atan2(omega * D, v_belt)) / omega
