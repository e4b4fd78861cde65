"""One owner per layout: the integrated state, the evaluation buffer and the stage constants.

Three flat float64 vectors cross the boundary between the Python run and the compiled kernels.
Each has one definition here, which the Python path uses directly and the kernels will read by
name (``docs/seam.md`` section 2):

* the **state** ``y = [q (n_q) | v (n_v) | work (N_WORK) | z (n_z)]``
  (:class:`StateLayout`): positions, velocities, the five work integrals
  (:data:`WORK_NAMES`, J) and the smooth friction laws' internal states;
* the **evaluation buffer** ``out`` of one evaluation (:data:`EVAL_FIELDS`,
  :func:`eval_offsets`, :func:`evaluation_layout`): ``dv (n), lam (m), lambda_N (p), F_T
  (p_rows), v_T (p_rows), N (p), lam_abs (k), powers (5), residual (1), phi (m), dphi (m),
  A (k*k), c (k), dz (n_z), M (n*n with a q-dependent mass, else 0)`` (``p_rows`` the rows
  of ``W``: ``p`` when every pair is scalar);
* the **plan**, the stage constants of the acceleration stage: a header of
  :data:`N_HEADER` numbers at the fixed positions ``H_*`` followed by the blocks of
  :data:`PLAN_BLOCKS` (:func:`plan_offsets`) and, with pairs of ``dim > 1``, the vector tail
  (:data:`VECTOR_BLOCKS`, :func:`vector_offsets`), with general norm load terms the norm
  tail after it (:data:`RADIAL_NORMS`, :func:`norm_offsets`), packed by :class:`PlanBuilder`;

and the **KKT solution** ``x = [dv (n) | lambda (m) | stick multipliers]``
(:func:`kkt_slices`).

Sizes: ``n`` velocity coordinates (the KKT size; ``n = n_v``), ``m`` constraint rows, ``p``
friction pairs, ``k`` load rows (``System.abs_rows``), ``n_z`` smooth-law states.

The offset functions (:func:`state_offsets`, :func:`eval_offsets`, :func:`plan_offsets`) use
plain integer arithmetic on their arguments and return tuples of ints, so that a kernel can
take them as ``@njit(inline="always", _nrt=False)`` functions at no cost (numba reads the
module-level ints as compile-time constants). This module imports numpy only: no numba.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "N_WORK", "WORK_NAMES", "StateLayout", "state_offsets",
    "N_POWERS", "EVAL_FIELDS", "eval_offsets", "evaluation_layout", "evaluation_slices",
    "BATCH_ENERGIES",
    "H_N", "H_M", "H_P", "H_K", "H_STATE_MASS", "H_2ALPHA", "H_BETA2", "H_JAM", "H_NZ",
    "H_RADIAL", "N_HEADER", "HEADER_FIELDS", "N_LAW", "PATCH_SLOT", "PLAN_BLOCKS",
    "plan_offsets", "plan_rows",
    "VECTOR_BLOCKS", "vector_offsets", "RADIAL_NORMS", "N_GROUP", "norm_offsets",
    "plan_slices", "PlanBuilder",
    "KKT_FIELDS", "kkt_slices",
]

# ------------------------------------------------------------------------------ the state
#: Work accumulators appended to the state after ``q, v`` (J): drive, applied, damping,
#: friction, constraint.
WORK_NAMES = ("W_drive", "W_applied", "W_damping", "W_friction", "W_constraint")
N_WORK = len(WORK_NAMES)


def state_offsets(n_q: int, n_v: int) -> tuple[int, int, int]:
    """``(o_v, o_work, o_z)``: where ``v``, the work integrals and ``z`` start in ``y``."""
    return n_q, n_q + n_v, n_q + n_v + N_WORK


@dataclass(frozen=True)
class StateLayout:
    """The integrated state ``y = [q (n_q) | v (n_v) | work (N_WORK) | z (n_z)]``.

    ``n_q`` positions and ``n_v`` velocities (equal for the planar and generalized families;
    Euler parameters would give 7 and 6 per body), the five work integrals
    (:data:`WORK_NAMES`, J) and ``n_z`` internal states of the smooth friction laws (m).

    The slices ``q, v, work, z`` are made once (``y[layout.q]`` costs what ``y[:n]`` does: no
    Python overhead per evaluation). ``size`` is the length of ``y``; ``n_states = n_q + n_v +
    n_z`` the length of the user-facing state ``[q, v, z]`` (``Result.y``, ``sol(t)``, a
    vector ``atol``), which leaves out the work integrals.
    """

    n_q: int
    n_v: int
    n_z: int = 0
    q: slice = field(init=False, repr=False, compare=False)
    v: slice = field(init=False, repr=False, compare=False)
    work: slice = field(init=False, repr=False, compare=False)
    z: slice = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("n_q", "n_v", "n_z"):
            value = getattr(self, name)
            if int(value) != value or value < 0:
                raise ValueError(f"StateLayout: {name} = {value!r} must be an integer >= 0")
            object.__setattr__(self, name, int(value))
        o_v, o_work, o_z = state_offsets(self.n_q, self.n_v)
        size = o_z + self.n_z
        for name, part in (("q", slice(0, o_v)), ("v", slice(o_v, o_work)),
                           ("work", slice(o_work, o_z)), ("z", slice(o_z, size)),
                           ("size", size)):
            object.__setattr__(self, name, part)

    @property
    def n_states(self) -> int:
        """Length of the user-facing state ``[q, v, z]`` (no work integrals)."""
        return self.n_q + self.n_v + self.n_z

    @property
    def qv(self) -> slice:
        """``[q, v]``: the part of ``y`` a Hermite interpolant takes with its derivative."""
        return slice(0, self.n_q + self.n_v)

    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(q, v, work, z)``: views into ``y`` (size,)."""
        return y[self.q], y[self.v], y[self.work], y[self.z]

    def join(self, q, v, work=None, z=None) -> np.ndarray:
        """``y`` (size,) from its parts; ``work`` defaults to zeros, ``z`` to none (``n_z = 0``)
        or zeros."""
        y = np.zeros(self.size)
        y[self.q], y[self.v] = q, v
        if work is not None:
            y[self.work] = work
        if z is not None:
            y[self.z] = z
        return y

    def rows(self, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(Q, V, WORK, Z)`` of a block of states ``Y`` (N, size), one state per row: views of
        shapes (N, n_q), (N, n_v), (N, N_WORK), (N, n_z)."""
        return Y[:, self.q], Y[:, self.v], Y[:, self.work], Y[:, self.z]

    def external(self, y: np.ndarray) -> np.ndarray:
        """The user-facing state ``[q, v, z]`` (n_states,) of ``y`` (size,)."""
        return np.concatenate((y[self.q], y[self.v], y[self.z]))

    def atol(self, atol, coordinate_names=(), rtol: float = 0.0,
             energy: float = 0.0) -> np.ndarray:
        """``atol`` for the integrated state ``[q, v, work, z]`` (shape ``(size,)``) from a
        number or a vector given for ``[q, v, z]`` (shape ``(n_states,)``): the work
        accumulators take the smallest value, the constraint forces' work at least ``rtol``
        times the energy ``energy`` (J) at the start.

        The constraint forces' work (the power ``lambda . dPhi/dt`` of the multipliers on the
        constraints' drift) is integrated to the accuracy the motion is: its drift is the
        integrator's error in the velocities, ``rtol`` relative, so its work is ``rtol`` times
        the energy flowing through the joints. Under the absolute tolerance (1e-13 J) instead,
        that error chose the steps, 300 times shorter than the motion needs (the crank-rocker
        at 1000 rad/s, 8e4 J of kinetic energy: 8066 steps for half a revolution instead of
        23, and a run out of budget; issue 19).

        Raises ``ValueError`` for a vector of another shape (naming ``coordinate_names``) or a
        component that is not a finite number > 0.
        """
        size = self.n_states
        if np.ndim(atol) == 0:
            arr = np.full(size, float(atol))
        else:
            arr = np.asarray(atol, dtype=float)
            if arr.shape != (size,):
                states = f"q ({self.n_q}), v ({self.n_v})" + (
                    f", z ({self.n_z})" if self.n_z else "")
                raise ValueError(
                    f"atol has shape {arr.shape}; give one number or one value per state "
                    f"component of y = [{states}]: shape ({size},) (coordinates: "
                    f"{', '.join(coordinate_names)})")
            if not np.all(np.isfinite(arr) & (arr > 0)):
                k = int(np.flatnonzero(~(np.isfinite(arr) & (arr > 0)))[0])
                raise ValueError(f"atol[{k}] = {float(arr[k])!r} is invalid: every tolerance "
                                 "must be a finite number > 0")
        work = np.full(N_WORK, arr.min())
        k = WORK_NAMES.index("W_constraint")
        work[k] = max(work[k], rtol * energy)
        qv = self.n_q + self.n_v
        return np.concatenate((arr[:qv], work, arr[qv:]))


# ------------------------------------------------------------------------------ the evaluation
#: Powers in the buffer (W): drive, applied, damping, friction, constraint (``WORK_NAMES``'
#: rates).
N_POWERS = N_WORK

#: The fields of the evaluation buffer, in their order.
EVAL_FIELDS = ("dv", "lam", "lambda_N", "F_T", "v_T", "N", "lam_abs", "powers", "residual",
               "phi", "dphi", "A", "c", "dz", "M")

#: Columns after the evaluation in a row of ``planar_evaluate_batch``'s output: the kinetic
#: and the potential energy (J), at ``size`` and ``size + 1``.
BATCH_ENERGIES = 2


def eval_offsets(n, m, p, k, n_z, state_mass, p_rows=-1):
    """Where each field of the evaluation buffer starts, and its size.

    Returns ``(O_DV, O_LAM, O_LN, O_FT, O_VT, O_N, O_ABS, O_POW, O_RES, O_PHI, O_DPHI, O_A,
    O_C, O_DZ, O_M, SIZE)`` (ints; the order of :data:`EVAL_FIELDS`, then the buffer's
    size). ``state_mass`` true: the mass matrix depends on ``q`` and is written at ``O_M``
    (n*n). ``p_rows`` the tangential rows (``F_T`` and ``v_T`` are ``p_rows`` long, the
    pairs' ``lambda_N`` and ``N`` ``p``; ``docs/seam.md`` 5.1); -1: ``p`` (every pair scalar).
    """
    if p_rows < 0:
        p_rows = p
    o_dv = 0
    o_lam = o_dv + n
    o_ln = o_lam + m
    o_ft = o_ln + p
    o_vt = o_ft + p_rows
    o_n = o_vt + p_rows
    o_abs = o_n + p
    o_pow = o_abs + k
    o_res = o_pow + N_POWERS
    o_phi = o_res + 1
    o_dphi = o_phi + m
    o_a = o_dphi + m
    o_c = o_a + k * k
    o_dz = o_c + k
    o_m = o_dz + n_z
    size = o_m + (n * n if state_mass else 0)
    return (o_dv, o_lam, o_ln, o_ft, o_vt, o_n, o_abs, o_pow, o_res, o_phi, o_dphi, o_a, o_c,
            o_dz, o_m, size)


def evaluation_layout(n: int, m: int, p: int, k: int, state_mass: bool, n_z: int = 0,
                      p_rows: int | None = None) -> dict:
    """``{field: (start, stop)}`` for every field of :data:`EVAL_FIELDS`, and ``"size"``: the
    dict ``kernels.evaluation_layout`` returns (made from :func:`eval_offsets`; ``p_rows`` the
    tangential rows, default ``p``)."""
    offsets = eval_offsets(int(n), int(m), int(p), int(k), int(n_z), bool(state_mass),
                           int(p) if p_rows is None else int(p_rows))
    out = {name: (offsets[i], offsets[i + 1]) for i, name in enumerate(EVAL_FIELDS)}
    out["size"] = offsets[-1]
    return out


def evaluation_slices(layout: dict) -> dict:
    """``{field: slice}`` of an :func:`evaluation_layout` (one slice object per field, made
    once: reading a field costs one indexing)."""
    return {name: slice(*layout[name]) for name in EVAL_FIELDS}


# ------------------------------------------------------------------------------ the plan
#: Header positions of the plan.
H_N, H_M, H_P, H_K, H_STATE_MASS, H_2ALPHA, H_BETA2, H_JAM, H_NZ, H_RADIAL = range(10)
#: Entries of the header.
N_HEADER = 10
#: The header's fields by position: ``n`` velocity coordinates, ``m`` constraint rows, ``p``
#: pairs, ``k`` load rows, ``state_mass`` (1: M depends on q), ``two_alpha`` (2 alpha, 1/s),
#: ``beta2`` (beta^2, 1/s^2), ``jam`` (the jamming margin), ``n_z`` smooth-law states,
#: ``radial`` (1: some pair has a revolute pin's radial load in ``rad_rows``;
#: :data:`RADIAL_NORMS`: the pairs' norm load terms are in the plan's norm tail).
HEADER_FIELDS = ("n", "m", "p", "k", "state_mass", "two_alpha", "beta2", "jam", "n_z",
                 "radial")
#: Width of each pair's friction-law parameters.
N_LAW = 9
#: The last of a pair's law parameters: the pressure code of a pair over a contact patch
#: (``FrictionPair.patch``: its Contensou coupling; 0 none), whatever its law.
PATCH_SLOT = N_LAW - 1
#: The plan's blocks after the header, in order, with their sizes: per pair its ``mu``, its
#: ``preload`` (N), its law kind (``COULOMB, LUGRE, REGULARIZED``) and ``N_LAW`` law
#: parameters, the offset of its states in ``z`` (-1: none), its two radial KKT rows (-1);
#: the KKT rows of the ``k`` load rows; per pair its normal row (-1); per constraint row 1.0
#: for a driver row.
PLAN_BLOCKS = (("mu", "p"), ("preload", "p"), ("law", "p"), ("law_par", "p*N_LAW"),
               ("z_at", "p"), ("rad_rows", "2p"), ("abs_rows", "k"), ("normal_rows", "p"),
               ("driver", "m"))


def plan_offsets(p, k, m):
    """Where each block of the plan starts, and the plan's size.

    Returns ``(P_MU, P_PRELOAD, P_LAW, P_LAWPAR, P_ZAT, P_RAD, P_ABS, P_NORMAL, P_DRIVER,
    PLAN_SIZE)`` (ints; the order of :data:`PLAN_BLOCKS`).
    """
    p_mu = N_HEADER
    p_preload = p_mu + p
    p_law = p_preload + p
    p_lawpar = p_law + p
    p_zat = p_lawpar + p * N_LAW
    p_rad = p_zat + p
    p_abs = p_rad + 2 * p
    p_normal = p_abs + k
    p_driver = p_normal + p
    size = p_driver + m
    return p_mu, p_preload, p_law, p_lawpar, p_zat, p_rad, p_abs, p_normal, p_driver, size


#: The vector tail of a plan whose pairs are not all scalar (``docs/seam.md`` 5.1), after the
#: blocks of :data:`PLAN_BLOCKS`: ``p_rows`` (the rows of ``W``, one number), per pair its
#: dimension ``dim`` and first row ``w_row`` of ``W``, per row the slip directions' reference
#: ``e_ref`` (``F_T = -mu N e``, ``e = v_T / |v_T| sgn(v_T . e_ref)``; ``e_ref`` at rest) and a
#: DOP853 phase's pending ``e_next`` (the refresh of a step whose outputs the run evaluates
#: with the step's ``e_ref``; zero: none), per pair ``stop_speed`` (m/s: a ``sigma`` root is a
#: stop below it). A plan without it (every ``d = 1`` model) is the scalar plan, bit for bit;
#: the kernels tell the two apart by the plan's size (:func:`vector_offsets`).
VECTOR_BLOCKS = (("p_rows", "1"), ("dim", "p"), ("w_row", "p"), ("e_ref", "p_rows"),
                 ("e_next", "p_rows"), ("stop_speed", "p"))


def vector_offsets(p, k, m, p_rows):
    """Where each block of a plan's vector tail starts (:data:`VECTOR_BLOCKS`), and the plan's
    size with it: ``(V_PROWS, V_DIM, V_WROW, V_EREF, V_ENEXT, V_STOP, SIZE)`` (ints). The tail
    starts at the scalar plan's end (``plan_offsets(p, k, m)[-1]``); a plan of that size, or
    of that size plus a phase's two fields (``core.callbacks.extended_plan``), has none."""
    v_prows = N_HEADER + (7 + N_LAW) * p + k + m  # plan_offsets(p, k, m)[-1]
    v_dim = v_prows + 1
    v_wrow = v_dim + p
    v_eref = v_wrow + p
    v_enext = v_eref + p_rows
    v_stop = v_enext + p_rows
    return v_prows, v_dim, v_wrow, v_eref, v_enext, v_stop, v_stop + p


def plan_rows(plan):
    """The rows of ``W`` of a plan (``p_rows``): its vector tail's first entry, or ``p``
    without a tail (every pair scalar: the plan ends at the scalar blocks, or two entries after
    them in a phase's extended plan). Plain arithmetic: the kernels compile it."""
    p, k, m = int(plan[H_P]), int(plan[H_K]), int(plan[H_M])
    end = N_HEADER + (7 + N_LAW) * p + k + m  # plan_offsets(p, k, m)[-1]
    if plan.size > end + 2:
        return int(plan[end])
    return p


#: The header's ``radial`` of a plan whose pairs have general norm load terms
#: (``FrictionPair.norms``: weighted groups of 1-3 rows, ``docs/design/spatial_friction.md`` section
#: 3): they are in the norm tail (:func:`norm_offsets`), ``rad_rows`` is all -1, and the plan
#: always has the vector tail (``p_rows`` then may equal ``p``).
RADIAL_NORMS = 2.0
#: Numbers per norm group in the norm tail: its pair, weight, number of rows (1-3) and three
#: KKT rows (``n + constraint row``; -1 past the group's rows).
N_GROUP = 6


def norm_offsets(p, k, m, p_rows):
    """Where a plan's norm tail starts (``radial == RADIAL_NORMS``): ``(N_COUNT, N_GROUPS)``,
    the number of groups (one float) and their :data:`N_GROUP` numbers each, right after the
    vector tail (``vector_offsets(p, k, m, p_rows)[-1]``)."""
    start = N_HEADER + (7 + N_LAW) * p + k + m + 1 + 3 * p + 2 * p_rows  # (plain arithmetic:
    return start, start + 1  # the kernels compile it)


def _block_sizes(p: int, k: int, m: int) -> dict:
    offsets = plan_offsets(p, k, m)
    return {name: offsets[i + 1] - offsets[i] for i, (name, _) in enumerate(PLAN_BLOCKS)}


def plan_slices(p: int, k: int, m: int) -> dict:
    """``{block: slice}`` of a plan with ``p`` pairs, ``k`` load rows and ``m`` rows."""
    offsets = plan_offsets(p, k, m)
    return {name: slice(offsets[i], offsets[i + 1]) for i, (name, _) in enumerate(PLAN_BLOCKS)}


class PlanBuilder:
    """The plan vector from named fields.

    Give the sizes, then every header field (:data:`HEADER_FIELDS` but the sizes, by
    :meth:`header`) and every block (:data:`PLAN_BLOCKS`, by :meth:`block`); :meth:`build`
    returns the float64 vector ``[header (N_HEADER) | blocks]``, each value converted to
    float64 as given (integers such as row indices are exact). A missing field or a block of
    another size is a ``ValueError``.

    Parameters
    ----------
    n, m, p, k : int
        Velocity coordinates (KKT size), constraint rows, pairs, load rows.
    p_rows : int, optional
        Rows of ``W`` (default ``p``). When it differs from ``p`` (a pair of ``dim > 1``) the
        plan gets the vector tail (:data:`VECTOR_BLOCKS`): set ``dim`` and ``w_row`` by
        :meth:`block`; ``e_ref``, ``e_next`` and ``stop_speed`` start at zero.
    norms : list of (int, float, list of int), optional
        The pairs' norm load terms ``(pair, weight, KKT rows)`` (``System.pair_norms``, the
        rows as ``n + row``): the plan gets the vector tail (set ``dim`` and ``w_row``) and the
        norm tail (:func:`norm_offsets`), and the header's ``radial`` is
        :data:`RADIAL_NORMS` (``rad_rows`` must then be all -1).
    """

    def __init__(self, n: int, m: int, p: int, k: int, p_rows: int | None = None,
                 norms: list | None = None):
        self.n, self.m, self.p, self.k = int(n), int(m), int(p), int(k)
        self.p_rows = self.p if p_rows is None else int(p_rows)
        self._header = {"n": self.n, "m": self.m, "p": self.p, "k": self.k}
        self._blocks: dict[str, np.ndarray] = {}
        self._sizes = _block_sizes(self.p, self.k, self.m)
        self.norms = None if norms is None else [
            (int(i), float(w), [int(r) for r in rows]) for i, w, rows in norms]
        if self.norms is not None:
            for i, w, rows in self.norms:
                if not (0 <= i < self.p and 1 <= len(rows) <= 3 and w >= 0.0):
                    raise ValueError(f"PlanBuilder: norm group {(i, w, rows)} is invalid "
                                     "(pair index, weight >= 0, 1-3 KKT rows)")
            self._header["radial"] = RADIAL_NORMS
        if self.p_rows != self.p or self.norms is not None:
            self._sizes.update(dim=self.p, w_row=self.p)

    def header(self, **fields) -> PlanBuilder:
        """Set header fields by name (``state_mass``, ``two_alpha``, ``beta2``, ``jam``,
        ``n_z``, ``radial``)."""
        for name, value in fields.items():
            if name == "radial" and self.norms is not None:
                continue  # RADIAL_NORMS, set with the norm groups
            if name not in HEADER_FIELDS or name in ("n", "m", "p", "k"):
                raise ValueError(f"PlanBuilder: no header field {name!r}; fields: "
                                 f"{HEADER_FIELDS[4:]}")
            self._header[name] = float(value)
        return self

    def block(self, name: str, values) -> PlanBuilder:
        """Set the block ``name`` of :data:`PLAN_BLOCKS` (its size as there)."""
        if name not in self._sizes:
            raise ValueError(f"PlanBuilder: no block {name!r}; blocks: "
                             f"{[b for b, _ in PLAN_BLOCKS]}")
        arr = np.asarray(values, dtype=float).reshape(-1)
        if arr.size != self._sizes[name]:
            raise ValueError(f"PlanBuilder: block {name!r} has {arr.size} values; "
                             f"it needs {self._sizes[name]}")
        self._blocks[name] = arr
        return self

    def build(self) -> np.ndarray:
        """The plan, shape (PLAN_SIZE,)."""
        missing = [f for f in HEADER_FIELDS if f not in self._header]
        missing += [b for b, _ in PLAN_BLOCKS if b not in self._blocks]
        vector = self.p_rows != self.p or self.norms is not None
        if vector:
            missing += [b for b in ("dim", "w_row") if b not in self._blocks]
        if missing:
            raise ValueError(f"PlanBuilder: {missing} not set")
        if self.norms is not None and np.any(self._blocks["rad_rows"] != -1.0):
            raise ValueError("PlanBuilder: a plan with norm groups has rad_rows all -1")
        offsets = plan_offsets(self.p, self.k, self.m)
        tail = vector_offsets(self.p, self.k, self.m, self.p_rows) if vector else offsets[-1:]
        size = tail[-1] + (1 + N_GROUP * len(self.norms) if self.norms is not None else 0)
        plan = np.empty(size)
        for i, name in enumerate(HEADER_FIELDS):
            plan[i] = self._header[name]
        for i, (name, _) in enumerate(PLAN_BLOCKS):
            plan[offsets[i]:offsets[i + 1]] = self._blocks[name]
        if vector:
            plan[tail[0]:] = 0.0
            plan[tail[0]] = self.p_rows
            plan[tail[1]:tail[2]] = self._blocks["dim"]
            plan[tail[2]:tail[3]] = self._blocks["w_row"]
        if self.norms is not None:
            o_count, o_groups = norm_offsets(self.p, self.k, self.m, self.p_rows)
            plan[o_count] = len(self.norms)
            for g, (i, w, rows) in enumerate(self.norms):
                entry = plan[o_groups + N_GROUP * g:o_groups + N_GROUP * (g + 1)]
                entry[:3] = i, w, len(rows)
                entry[3:] = -1.0
                entry[3:3 + len(rows)] = rows
        return plan


# ------------------------------------------------------------------------------ the KKT solution
#: The parts of the KKT solution ``x``: accelerations (n), constraint multipliers (m), the
#: sticking pairs' multipliers (their friction forces).
KKT_FIELDS = ("dv", "lam", "stick")


def kkt_slices(n: int, m: int) -> tuple[slice, slice, slice]:
    """``(dv, lam, stick)`` slices of the KKT solution ``x = [dv (n) | lam (m) | stick]``; a
    constraint row ``r``'s multiplier is ``x[n + r]``."""
    return slice(0, n), slice(n, n + m), slice(n + m, None)
