"""The spatial family's compiled entry points as the run calls them (``nonsmooth.family``,
obligation 4): the kernels over the tables (:mod:`nonsmooth.spatial.kernels`,
:mod:`nonsmooth.spatial.tables`) and the phases instantiated over them
(:mod:`nonsmooth.spatial.phases`). The tables stay here: the run sees only
:class:`~nonsmooth.family.CompiledFamily`'s methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..family import CompiledFamily

__all__ = ["SpatialFamily", "spatial_family"]


@dataclass(frozen=True)
class SpatialFamily(CompiledFamily):
    """:class:`~nonsmooth.family.CompiledFamily` of a spatial model: ``data = (ints, floats,
    bodies, M, block3)`` (:class:`~nonsmooth.spatial.tables.SpatialTables`, the constant mass
    matrix and whether it is block diagonal in 3 x 3 blocks: then every evaluation takes the
    Delassus solve, ``core.linalg._block_schur``; an armature rotor couples two bodies' blocks),
    ``size`` the evaluation buffer's length."""

    size: int = 0
    #: what is made once and reused (the step's ``ctx`` for the last plan)
    cache: dict = field(default_factory=dict, compare=False, repr=False)
    #: With vector pairs: the plan's blocks the run reads back after a DOP853 call (``e_ref``,
    #: ``stop_speed``: slices) and the run's own plan they go to (``Dynamics.plan``), as
    #: ``planar_family.PlanarFamily``'s.
    run_blocks: tuple | None = None
    home: np.ndarray | None = None

    def _ctx(self, plan, Wt):
        from .kernels import workspace

        it = self.data[0]
        return (*self.data, plan, Wt, *workspace(it, plan), self._flags(plan))

    def _flags(self, plan) -> tuple:
        """The model's :func:`model_flags` for ``plan`` (made once per plan)."""
        flags = self.cache.get("flags")
        if flags is None or flags[0] is not plan:
            flags = self.cache["flags"] = (plan, model_flags(self.data[0], self.data[4], plan))
        return flags[1]

    def dop853(self, plan, Wt):
        from .phases import spatial_dop853_phase

        if self.run_blocks is None:
            return spatial_dop853_phase, self._ctx(plan, Wt)
        return self._reading_back(spatial_dop853_phase), self._ctx(plan, Wt)

    def _reading_back(self, phase):
        """``phase`` followed by the copy of the slip directions it refreshed (``e_ref``,
        ``stop_speed``) from the phase's plan (a copy: ``core.callbacks.extended_plan``) into
        the run's (``PlanarFamily._reading_back``)."""
        home, blocks = self.home, self.run_blocks

        def call(ctx, plan, *args):
            result = phase(ctx, plan, *args)
            for block in blocks:
                home[block] = plan[block]
            return result

        return call

    def fixed(self, plan, Wt):
        from .phases import spatial_fixed_phase

        return spatial_fixed_phase, self._ctx(plan, Wt)

    def evaluate_block(self, plan, Wt, ts, Q, V, Z, modes, faces, U=None):
        from .kernels import spatial_evaluate_batch

        it = self.data[0]
        k = ts.size
        if U is None:
            U = np.zeros((k, it.shape[0], 3))
        out = np.empty((k, self.size + 2))
        Q = np.ascontiguousarray(Q)
        row, status = spatial_evaluate_batch(*self.data[:3], U, *self.data[3:], plan, Wt, ts, Q,
                                             np.ascontiguousarray(V), np.ascontiguousarray(Z),
                                             modes, faces, self._contact_potentials(Q), out,
                                             *self._flags(plan))
        return out[:, :-2], (out[:, -2], out[:, -1]), row, status

    steps_compiled = True

    def step(self, plan, Wt, t, y, f, h, t_next, modes, faces, rk4, y_new, f_new, out):
        from .phases import spatial_fixed_step

        ctx = self.cache.get("step")
        if ctx is None or ctx[5] is not plan or ctx[6] is not Wt:  # made once per plan
            ctx = self.cache["step"] = self._ctx(plan, Wt)
        return spatial_fixed_step(ctx, t, y, f, h, t_next, modes, faces, rk4, y_new, f_new, out)

    def evaluator(self, plan, Wt):
        """The phases' evaluation (``kernels._evaluate_into``, the compilation they use) over
        the family's tables, in a workspace made once for ``plan``: a model without user
        functions or contacts (whose Python path names their values and preloads)."""
        from .kernels import _evaluate_into, workspace

        it = self.data[0]
        if self.calls_back or self._has_contacts():
            return None
        ft, bt, M, block3 = self.data[1:]
        U = np.zeros((it.shape[0], 3))
        ws, iw = workspace(it, plan)
        contacts, norms, vector, lu, pins, friction, _ = self._flags(plan)

        def call(t, q, v, z, modes, faces, out):
            return _evaluate_into(it, ft, bt, U, M, block3, plan, Wt, t, q, v, z, modes, faces,
                                  out, ws, iw, contacts, norms, vector, lu, pins, friction)

        return call

    def potentials(self, times, Q):
        from .kernels import spatial_element_potentials

        Q = np.ascontiguousarray(Q)
        return spatial_element_potentials(*self.data[:3], Q, self._contact_potentials(Q))

    def _contact_potentials(self, Q) -> np.ndarray:
        """The contacts' elastic energy (J) at the rows ``Q`` (k, n_q), zeros without contacts
        (whose kernels are then not compiled)."""
        from .kernels import spatial_contact_potentials

        if not self._has_contacts():
            return np.zeros(Q.shape[0])
        return spatial_contact_potentials(*self.data[:3], Q)

    def _has_contacts(self) -> bool:
        """Whether the tables have contact rows (``contact_kernels.CONTACT``)."""
        from .contact_kernels import CONTACT

        return bool(np.any(self.data[0][:, 0] == CONTACT))

    def warm(self, what):
        from . import phases  # noqa: F401 - loads (or compiles, announced) the entry points


def spatial_family(system, size: int, run_blocks=None, home=None) -> SpatialFamily:
    """The compiled family of a :class:`~nonsmooth.spatial.model.SpatialSystem` (``size`` the
    evaluation buffer's length; with vector pairs ``run_blocks`` and ``home``:
    :attr:`SpatialFamily.run_blocks`)."""
    from . import kernels

    tab = system.kernel_tables
    ints, floats = tab.ints, tab.floats
    if system.n_contacts:  # the contacts' rows after the elements' (contact_kernels.CONTACT)
        ints, floats = _with_rows(ints, floats, *system.contact_tables)
    M = np.ascontiguousarray(system.constant_mass)
    return SpatialFamily(module=kernels, data=(ints, floats, tab.bodies, M, _block3(M)),
                         calls_back=system.has_user_functions, size=size,
                         run_blocks=run_blocks, home=home)


def model_flags(ints: np.ndarray, block3: bool, plan: np.ndarray) -> tuple:
    """``(contacts, norms, vector, lu, pins, friction, general)`` of a model's compiled
    evaluation (``kernels._spatial_dy``): None for what the model cannot reach, True for what
    it may.
    numba prunes the code behind a None flag, so a model compiles only its own: the contacts'
    kernels (contact rows in ``ints``), the norm-load stage (``plan``'s radial is
    ``core.layout.RADIAL_NORMS``), the vector pairs' laws (``p_rows > p``), the LU stage (a
    mass not block diagonal in 3 x 3 blocks, ``block3`` false), the radial loads' iteration
    (``plan``'s radial 1), the frictional joints' rows (``p_rows`` > 0) and the allocating path
    (``GENERAL``: a load equation of two rows or more, whose certificate may need eigenvalues,
    or a mass not block diagonal above ``core.stage.SMALL_LU`` KKT rows). A run compiles each
    phase once per set of flags (a double pendulum: none of these)."""
    from ..core.layout import H_K, H_M, H_N, H_P, H_RADIAL, RADIAL_NORMS, plan_rows
    from ..core.stage import SMALL_LU
    from .contact_kernels import CONTACT

    n, m, p, k = int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K])
    p_rows = plan_rows(plan)

    def flag(present: bool):
        return True if present else None

    general = k > 1 or not (block3 or n + m + p_rows <= SMALL_LU)
    radial = plan[H_RADIAL]
    return (flag(np.any(ints[:, 0] == CONTACT)), flag(radial == RADIAL_NORMS), flag(p_rows != p),
            flag(not block3), flag(radial != 0.0 and radial != RADIAL_NORMS), flag(p_rows > 0),
            flag(general))


def _with_rows(ints, floats, more_ints, more_floats) -> tuple[np.ndarray, np.ndarray]:
    """The tables ``ints, floats`` with the rows ``more_ints, more_floats`` after theirs, each
    as wide as the wider (new columns -1 and 0)."""
    n_i = max(ints.shape[1], more_ints.shape[1])
    n_f = max(floats.shape[1], more_floats.shape[1])
    out_i = np.full((ints.shape[0] + more_ints.shape[0], n_i), -1, dtype=np.int64)
    out_f = np.zeros((floats.shape[0] + more_floats.shape[0], n_f))
    out_i[:ints.shape[0], :ints.shape[1]] = ints
    out_i[ints.shape[0]:, :more_ints.shape[1]] = more_ints
    out_f[:floats.shape[0], :floats.shape[1]] = floats
    out_f[floats.shape[0]:, :more_floats.shape[1]] = more_floats
    return out_i, out_f


def _block3(M: np.ndarray) -> bool:
    """Whether ``M`` is block diagonal in 3 x 3 blocks (exact zeros elsewhere)."""
    n = M.shape[0]
    if n % 3:
        return False
    blocks = np.kron(np.eye(n // 3, dtype=bool), np.ones((3, 3), dtype=bool))
    return bool(np.all(M[~blocks] == 0.0))
