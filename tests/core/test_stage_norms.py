"""The norm loads of the acceleration stage (a revolute pin's radial load, a spatial joint's
bending and ball loads) do not overflow where the norm is representable: the Python stage's
``GeneralStage.radial_norms`` and the compiled stage's ``_radial_loads`` and ``_norm_loads``
(``nonsmooth.core.stage``) against the exact norm of multipliers past ``1e154``, whose squares
overflow (a joint friction pin of a kilometre, the largest radius allowed, takes its loads
there while the load iteration of a self-locking joint runs to its verdict)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nonsmooth.core import layout
from nonsmooth.core import stage as st
from nonsmooth.core.general import GeneralStage

BIG = 3e200  # its square overflows


def test_the_python_radial_norms_do_not_overflow():
    gs = GeneralStage.__new__(GeneralStage)  # only the norm terms' arithmetic is used
    gs.p, gs.n_v, gs._weights = 2, 1, None
    gs.pair_norms = [[((0, 1), 0.5)], [((2,), 2.0), ((0, 1, 2), 1.0)]]
    x = np.array([0.0, BIG, -BIG, 4.0 * BIG])  # [dv (1) | lambda (3)]
    got = gs.radial_norms(x)
    assert np.all(np.isfinite(got))
    assert got[0] == pytest.approx(0.5 * math.sqrt(2.0) * BIG, rel=1e-15)
    assert got[1] == pytest.approx((8.0 + math.sqrt(18.0)) * BIG, rel=1e-15)


def test_the_compiled_radial_loads_do_not_overflow():
    x = np.array([BIG, -BIG, 1.0, 2.0])
    Rad = np.zeros(2)
    st._radial_loads(x, np.array([0, 1, 2, 3], dtype=np.int64), Rad)
    np.testing.assert_allclose(Rad, [math.sqrt(2.0) * BIG, math.sqrt(5.0)], rtol=1e-15)


def test_the_compiled_norm_loads_do_not_overflow():
    """Two groups of pair 0 (weights 0.5 and 2) over rows of ``x``, one of pair 1."""
    groups = [(0, 0.5, (1, 2)), (0, 2.0, (3,)), (1, 1.0, (0, 1, 3))]
    plan = np.full(layout.N_GROUP * len(groups), -1.0)
    for g, (pair, w, rows) in enumerate(groups):
        o = layout.N_GROUP * g
        plan[o:o + 3] = pair, w, len(rows)
        plan[o + 3:o + 3 + len(rows)] = rows
    x = np.array([1e-300, BIG, BIG, -2.0 * BIG])
    Rad = np.zeros(2)
    st._norm_loads(x, plan, len(groups), 0, Rad)
    np.testing.assert_allclose(Rad, [(0.5 * math.sqrt(2.0) + 4.0) * BIG, math.sqrt(5.0) * BIG],
                               rtol=1e-15)
    zero = np.zeros(2)
    st._norm_loads(np.zeros(4), plan, len(groups), 0, zero)
    assert np.all(zero == 0.0)
