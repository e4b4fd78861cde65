"""The evaluator of one model: its friction laws and loads, and which stage evaluates.

:class:`Dynamics` owns what a run evaluates for a system and its laws: the laws' states
(``z_slices``), the state layout (``core.layout.StateLayout``), the stage constants of the
compiled path (``plan``, ``_compile_plan``) and the family's compiled entry points
(``compiled_family()``, ``nonsmooth.family``). :meth:`Dynamics.evaluate` dispatches:

* within a smooth phase (``faces`` given) with the built-in friction laws, one compiled call:
  the family's kernel (``kernels.planar_evaluate`` for a planar model, a generated module's
  ``evaluate`` for a ``GeneralizedSystem`` with compiled terms) or the compiled stage
  ``core.stage.acceleration_stage`` after the system's own terms;
* at events and initial times (``faces=None``), with user-defined laws, and wherever the
  compiled stage declines (an uncertified load equation, a radial load that did not converge),
  the Python stage :class:`nonsmooth.core.general.GeneralStage` over the system's terms (the
  method: its docstring, ``docs/method.md`` sections 1-9).

:meth:`Dynamics.transition` decides the modes at an event (:mod:`nonsmooth.transition`;
pairs of dim > 1: :mod:`nonsmooth.vector_friction`). ``tests/planar/test_kernels.py`` checks that
the two stages agree.

References: Wang X.J., Wang Q., Zhuang F.F.; Wang, Peng & Zhuang, DCDS-B 16 (2011) 589-605;
Baumgarte, Comput. Methods Appl. Mech. Eng. 1 (1972) 1-16.
"""

from __future__ import annotations

import numpy as np

from .core.general import Evaluation, GeneralStage
from .core.layout import (
    N_LAW,
    N_WORK,
    PATCH_SLOT,
    WORK_NAMES,
    PlanBuilder,
    evaluation_layout,
    evaluation_slices,
    plan_offsets,
    vector_offsets,
)
from .core.status import (
    COINCIDENT,
    GENERAL,
    JAMMED,
    NO_LOAD,
    NONFINITE,
    SINGULAR,
    UNCERTIFIED,
)
from .errors import (
    ModelError,
)
from .family import CompiledFamily
from .loads import JAM_MARGIN, NormalLoads
from .system import System

#: ``WORK_NAMES`` (the work accumulators appended to the state: drive, applied, damping,
#: friction, constraint) and ``N_WORK`` are the state layout's (:mod:`nonsmooth.core.layout`).
__all__ = ["Dynamics", "Evaluation", "DEFAULT_ALPHA", "DEFAULT_BETA", "N_WORK", "WORK_NAMES"]

#: Default Baumgarte parameters (1/s): critically damped constraint error, e^{-10 t}.
DEFAULT_ALPHA = 10.0
DEFAULT_BETA = 10.0


def _buffer_view(name: str) -> property:
    def get(self):
        return self._out[self._dyn._views[name]]

    return property(get, doc=f"``{name}``: a view into the kernel's output buffer")


class _BufferEvaluation(Evaluation):
    """An :class:`Evaluation` of the compiled path: its arrays are views into the kernel's
    output buffer, made when first read (the integrator reads three of fifteen; making them
    all costs more than the arithmetic of a small model's evaluation)."""

    __slots__ = ("_out", "_dyn", "_M_given")

    def __init__(self, out, dyn, M=None):  # noqa: D107 - the base's attributes are properties
        self._out, self._dyn, self._M_given = out, dyn, M

    dv, lam, lambda_N, F_T, v_T, powers, c, phi, dphi, N, lam_abs, dz = (
        _buffer_view(name) for name in ("dv", "lam", "lambda_N", "F_T", "v_T", "powers", "c",
                                        "phi", "dphi", "N", "lam_abs", "dz"))

    @property
    def residual(self) -> float:
        return float(self._out[self._dyn._res_at])

    @property
    def A(self) -> np.ndarray:
        k = self._dyn._k
        return self._out[self._dyn._views["A"]].reshape(k, k)

    @property
    def M(self) -> np.ndarray:
        if self._M_given is not None:
            return self._M_given
        dyn = self._dyn
        tab = dyn._tables  # a planar model's (its mass may depend on q)
        if tab is None:
            return dyn.system.constant_mass  # a compiled family's constant mass (spatial)
        if tab.has_state_mass:
            return self._out[dyn._views["M"]].reshape(dyn.n, dyn.n)
        return tab.mass


#: Compiled calls of a face-free evaluation, each with the last one's signs, before the general
#: path solves the HLCP (:meth:`Dynamics._evaluate_face_free`).
_FACE_TRIES = 3


def _contiguous(x) -> np.ndarray:
    """A contiguous float vector (the one array layout the kernels are compiled for)."""
    return np.ascontiguousarray(x, dtype=float)


class Dynamics:
    """The right-hand side of a compiled system for fixed friction modes and faces, and the
    transition problem at events.

    Parameters
    ----------
    system : System
    alpha, beta : float
        Baumgarte parameters (1/s), finite and >= 0 (``ValueError`` otherwise).
        ``alpha = beta = 0`` is the unstabilized index-1 form.
    laws : sequence of FrictionLaw, optional
        One friction law per pair (``ValueError`` for another count); default each pair's own
        (:meth:`nonsmooth.system.FrictionPair.make_law`). The Coulomb coefficients ``mu_d``,
        ``mu_s`` are the laws' (they may differ from the pairs'). With only the built-in laws
        (:class:`~nonsmooth.friction.Coulomb`, :class:`~nonsmooth.friction.LuGre`,
        :class:`~nonsmooth.friction.Regularized`) the compiled path is prepared (and the
        kernels loaded or compiled) here.

    Attributes
    ----------
    system : System
    alpha, beta : float
    n, m, p : int                   coordinates, constraint rows, frictional pairs
    laws : list of FrictionLaw      one per pair
    smooth : ndarray of bool, (p,)  pairs with a smooth law (no modes, no events)
    any_smooth : bool
    z_slices : list of slice        each pair's internal states in ``z``
    n_z : int                       number of internal states
    mu_s : ndarray, shape (p,)      static coefficient of each Coulomb pair (0 for smooth laws)
    loads : NormalLoads             the HLCP of the normal loads (``nonsmooth.loads``)
    stage : GeneralStage            the Python acceleration stage (``nonsmooth.core.general``)
    dim, w_row : ndarray of int, (p,)  each pair's dimension and first row of ``W``
    p_rows : int                    rows of ``W`` (``v_T``, ``F_T``: ``sum(dim)``)
    vector : bool                   a pair of dim > 1 (:mod:`nonsmooth.vector_friction`): its
                                    plan has the vector tail (``core.layout.VECTOR_BLOCKS``)
    e_ref : ndarray, (p_rows,)      the slip directions' references of vector pairs (set by the
                                    run: ``F_T = -mu N e``, ``e = v_T / |v_T| sgn(v_T . e_ref)``;
                                    with a plan, a view into its ``e_ref`` block, which the
                                    compiled stage reads and the compiled phases refresh)
    stop_speed : ndarray, (p,)      a vector pair's ``sigma`` root is a stop below it (m/s; a
                                    view into the plan's ``stop_speed`` block with a plan)
    n_evaluations : int             calls of :meth:`evaluate` so far
    hlcp_enumeration_max_size : int (property) largest HLCP solved or certified by enumeration
    """

    def __init__(self, system: System, *, alpha: float = DEFAULT_ALPHA,
                 beta: float = DEFAULT_BETA, laws=None):
        for name, val in (("alpha", alpha), ("beta", beta)):
            if not (np.isfinite(val) and val >= 0):
                raise ValueError(f"Baumgarte parameter {name} = {val!r} is invalid; "
                                 "it must be a finite number >= 0 (1/s)")
        self.system = system
        self.alpha, self.beta = float(alpha), float(beta)
        self._2a, self._b2 = 2.0 * self.alpha, self.beta ** 2
        n, m, p = system.n_v, system.n_constraints, system.n_pairs
        self.n, self.m, self.p = n, m, p
        self.n_evaluations = 0
        # friction laws: set-valued Coulomb (modes, events) or smooth (state functions)
        self.laws = [pr.make_law() for pr in system.pairs] if laws is None else list(laws)
        if len(self.laws) != p:
            raise ValueError(f"laws: {len(self.laws)} given for {p} frictional pairs")
        self.smooth = np.array([law.smooth for law in self.laws], dtype=bool)
        self.any_smooth = bool(self.smooth.any())
        # pairs of dimension d > 1 (nonsmooth.vector_friction): d rows of W each, modes 0 stick
        # / 2 slip, the slip direction's reference e_ref (p_rows; set by the run) and the law's
        # states for that dimension (FrictionLaw.state_size: LuGre d, the bristle law d + 1)
        self.dim, self.w_row, self.p_rows = system.pair_dim, system.w_row, system.p_rows
        self.vector = system.max_dim > 1
        self.e_ref = np.zeros(self.p_rows)
        self.stop_speed = np.zeros(self.p)  # a sigma root is a stop below it (m/s; the run's)
        self.z_slices, start = [], 0
        for law, d in zip(self.laws, self.dim, strict=True):
            self.z_slices.append(slice(start, start + law.state_size(int(d))))
            start += law.state_size(int(d))
        self.n_z = start
        # compliant contacts (obligation 12): one state each after the laws' (its impact speed,
        # m/s), set by the run at a touch; the contacts' forces at the impact speeds of the
        # latest evaluation's state (the system's terms plus them: :meth:`terms`)
        self.n_contacts = system.n_contacts
        self.impact = np.zeros(self.n_contacts)
        self.contact_N = np.zeros(self.n_contacts)  # (N; of the latest terms)
        by = np.asarray(system.contact_pairs, dtype=int).reshape(-1, 2)
        self._contact_pairs, self._pair_contacts = by[:, 0], by[:, 1]
        # the tables of a family whose one kernel evaluates the terms and the stage (the
        # planar family's); None with contacts, whose forces the tables do not hold: the
        # system's terms (Dynamics.terms adds the contacts') and the compiled stage after them
        self._tables = None if self.n_contacts else getattr(system, "tables", None)
        #: the integrated state y = [q | v | work | z] (``core.layout``: its one owner), as the
        #: system's family lays it out for these laws (and contacts)
        self.layout = system.layout_with(self.n_z + self.n_contacts)
        # Coulomb coefficients come from the laws (they may override the pairs' own)
        self._mu = np.array([0.0 if law.smooth else law.mu_d for law in self.laws])
        self.mu_s = np.array([0.0 if law.smooth else law.mu_s for law in self.laws])
        # normal loads: weights over the |.| rows, radial rows, preloads
        abs_rows = list(system.abs_rows)
        self._Wt = np.zeros((p, len(abs_rows)))
        self._callable_weights = []
        for i, load in enumerate(system.pair_load):
            for row, w in load:
                if callable(w):
                    self._callable_weights.append((i, abs_rows.index(row), w))
                else:
                    self._Wt[i, abs_rows.index(row)] += float(w)
        self._preload = system.preload
        self._has_radial = np.array([bool(g) for g in system.pair_norms], dtype=bool)
        self._radial = bool(self._has_radial.any())
        self.loads = NormalLoads([pr.name for pr in system.pairs])
        #: the Python acceleration stage (``core.general``): events, initial times, user laws
        self.stage = GeneralStage(
            n, m, p, two_alpha=self._2a, beta2=self._b2, mu=self._mu, laws=self.laws,
            z_slices=self.z_slices, n_z=self.n_z, abs_rows=system.abs_rows,
            normal_rows=system.normal_rows, driver_rows=system.driver_rows,
            pair_norms=system.pair_norms, dim=self.dim, w_row=self.w_row, loads=self.loads,
            pair_names=[pr.name for pr in system.pairs],
            constraint_names=system.constraint_names)
        # the compiled path (every smooth phase with Coulomb pairs and no radial loads): one
        # kernel call for a planar model (terms and acceleration stage), the acceleration stage
        # alone after the system's own terms for any other system
        self._plan = None
        self._fast = None  # the planar kernel's constant arguments (_compile_plan)
        self._family_evaluate = None  # (CompiledFamily.evaluator's call, M) (_compile_plan)
        self._generated = None  # a GeneralizedSystem's compiled-terms kernel (_compile_plan)
        self._generated_module = None
        self._family = None  # the family's compiled entry points (compiled_family())
        self.gap_offset = 0  # where the contacts' gaps start in a compiled evaluation's buffer

        if self.vector:
            from .vector_friction import check_laws

            check_laws(self)
        # each law's numbers for the compiled stage (FrictionLaw.pack), from a class that
        # defines them itself (a subclass that inherits them may compute otherwise); pairs of
        # dim > 1 too (the plan's vector tail: e_ref and stop_speed become views into it)
        packed = [law.pack() if "pack" in type(law).__dict__ else None for law in self.laws]
        if all(pk is not None for pk in packed):
            self._compile_plan(self._tables, packed)

    def _compile_plan(self, tables, packed) -> None:
        """Pack the constants of :func:`nonsmooth.core.stage.acceleration_stage` (its ``plan``);
        ``packed`` each law's ``(kind, numbers)`` (:meth:`FrictionLaw.pack`)."""
        from .core.stage import acceleration_stage

        sysm = self.system
        n, m, p = self.n, self.m, self.p
        k = len(sysm.abs_rows)
        state_mass = tables is not None and tables.has_state_mass
        drivers = np.zeros(m)
        drivers[sysm.driver_rows] = 1.0
        kinds, params, z_at = [], [], []
        for i, (law, (kind, numbers)) in enumerate(zip(self.laws, packed, strict=True)):
            par = np.zeros(N_LAW)
            par[:len(numbers)] = numbers
            # a pair over a contact patch (FrictionPair.patch): its pressure code in the last
            # slot (the Contensou coupling: core.stage._patch_direction, _bristle_law)
            par[PATCH_SLOT] = float(getattr(sysm.pairs[i], "patch", 0) or 0)
            kinds.append(kind)
            params.append(par)
            z_at.append(self.z_slices[i].start if law.n_states else -1)
        general, norms, radial = self._norm_groups(tables)
        if general and norms is None:
            return  # norm loads the system's compiled terms do not know: the Python path
        builder = (PlanBuilder(n, m, p, k, self.p_rows, norms=norms)
                   .header(state_mass=state_mass, two_alpha=self._2a, beta2=self._b2,
                           jam=JAM_MARGIN, n_z=self.n_z, radial=self._radial)
                   .block("mu", self._mu).block("preload", self._preload)
                   .block("law", kinds)
                   .block("law_par", np.concatenate(params) if params else [])
                   .block("z_at", z_at).block("rad_rows", radial)
                   .block("abs_rows", n + np.asarray(sysm.abs_rows, dtype=float))
                   .block("normal_rows", np.asarray(sysm.normal_rows, dtype=float))
                   .block("driver", drivers))
        if self.vector or norms is not None:  # the vector tail (core.layout.VECTOR_BLOCKS)
            builder.block("dim", self.dim).block("w_row", self.w_row)
        self._plan = builder.build()
        o_preload = plan_offsets(p, k, m)[1]
        self._preload_block = slice(o_preload, o_preload + p)
        if self.vector:  # the run's e_ref and stop_speed are the plan's: the compiled stage
            # and phases read and refresh them there (the Python path reads the same numbers)
            _, _, _, o_eref, o_enext, o_stop, end = vector_offsets(p, k, m, self.p_rows)
            self._plan[o_eref:o_enext] = self.e_ref
            self._plan[o_stop:end] = self.stop_speed
            self.e_ref = self._plan[o_eref:o_enext]
            self.stop_speed = self._plan[o_stop:end]
            self._run_blocks = (slice(o_eref, o_enext), slice(o_stop, end))
        self._layout = L = evaluation_layout(n, m, p, k, state_mass, self.n_z, self.p_rows)
        self._vector = _contiguous
        self._views = evaluation_slices(L)
        # the buffer: the evaluation's fields, then each contact's gap (the family's kernel
        # writes them there: the compiled phases' gap events, run.phase.event_codes)
        self._res_at, self._size, self._k = L["residual"][0], L["size"] + self.n_contacts, k
        self.gap_offset = L["size"]
        self._zero_bias = np.zeros(self.p_rows)
        self._zero_z = np.zeros(self.n_z)
        self._face_guess = np.ones(k)  # the faces of the last face-free evaluation
        if tables is not None:
            sysm._kern()  # loaded (or compiled, announced) now, not on first use
            self._kernel = sysm._kern().planar_evaluate
            if not sysm._user and not self._callable_weights:
                self._fast = (self._kernel, tables.ints, tables.floats, sysm._U, tables.mass,
                              self._plan, self._Wt)
            if not self._callable_weights:  # whole phases and output blocks compiled
                self._family = sysm.compiled_family(self._size,
                                                    self._run_blocks if self.vector else None,
                                                    self._plan)
        else:
            self._kernel = acceleration_stage
            if norms is not None:  # (the allocating stage of the norm terms)
                from .core.stage import acceleration_stage_norms

                self._kernel = acceleration_stage_norms
            compiled = getattr(sysm, "compiled", None)
            # (a generated module's terms know scalar pairs only: a model with vector pairs
            # evaluates its terms in Python and the stage compiled)
            if compiled is not None and not self._callable_weights and not self.vector:
                # the model's own compiled terms and the stage in one generated kernel
                module, self._family = sysm.generated_kernels(self._plan, self._Wt, self._size)
                self._generated = (module.evaluate, compiled.parameters, sysm._M)
                self._generated_module = module  # its fixed-step phase: simulate
            elif not self._callable_weights and not self.vector:
                # a family with its own compiled module (the spatial one), or None
                self._family = sysm.compiled_family(self._size)
            elif not self._callable_weights and getattr(sysm, "vector_family", False):
                # a family whose kernels take pairs of dim > 1 (the spatial one), with the
                # run's blocks of the plan as the planar family has them
                self._family = sysm.compiled_family(self._size, run_blocks=self._run_blocks,
                                                    home=self._plan)
            self._family_evaluate = self._family_evaluator()

    def _family_evaluator(self):
        """``(call, M)``: a single evaluation by the family's own compiled code (the phases':
        nothing more to compile for it) instead of the system's terms and the allocating
        stage (``CompiledFamily.evaluator``), with the constant mass matrix; or None."""
        if self._family is None or self._generated is not None:
            return None
        call = self._family.evaluator(self._plan, self._Wt)
        return None if call is None else (call, self.system.constant_mass)

    def _norm_groups(self, tables) -> tuple[bool, list | None, list]:
        """``(general, norms, rad_rows)``: whether some pair has norm loads other than one
        radial of two rows (``System.pair_norms``); then the plan's norm groups ``(pair,
        weight, KKT rows)`` (``core.layout.PlanBuilder``'s ``norms``) where the compiled stage
        takes them (``core.stage.acceleration_stage_norms``, the spatial kernels: a system
        whose terms are its own; None for the planar kernels and a generated module, which
        know one radial only); the plan's ``rad_rows`` (2 p: each pair's two radial KKT rows,
        -1 none; all -1 with norm groups); norm loads whose weights depend on ``q`` (``System.
        variable_norm_weights``) take the Python path."""
        sysm, n = self.system, self.n
        if sysm.variable_norm_weights:  # weights of q (Terms.norm_weights): the Python path
            return True, None, []
        general = any(len(rows) not in (0, 2) or len(groups) != bool(rows) for rows, groups
                      in zip(sysm.pair_radial, sysm.pair_norms, strict=True))
        if general and tables is None and getattr(sysm, "compiled", None) is None:
            return True, [(i, w, [n + r for r in rows]) for i, groups
                          in enumerate(sysm.pair_norms) for rows, w in groups], [-1] * (2 * self.p)
        radial = []
        for rows in sysm.pair_radial:
            radial += [n + rows[0], n + rows[1]] if rows else [-1, -1]
        return general, None, radial

    # ------------------------------------------------------------------ what the run reads
    @property
    def plan(self) -> np.ndarray | None:
        """The stage constants (``core.layout``'s plan vector), or None when only the Python
        general path evaluates (a user-defined friction law)."""
        return self._plan

    @property
    def Wt(self) -> np.ndarray:
        """The constant load weights ``Wt`` (p, k) of ``N = Wt |lambda_abs| + ...``
        (:meth:`load_weights` at a state when some weight depends on ``q``)."""
        return self._Wt

    @property
    def constant_weights(self) -> bool:
        """Whether every load weight is a constant (none depends on ``q``)."""
        return not self._callable_weights

    @property
    def mu_d(self) -> np.ndarray:
        """The dynamic coefficient of each Coulomb pair, shape (p,) (0 for smooth laws)."""
        return self._mu

    @property
    def evaluation_layout(self) -> dict | None:
        """``{field: (start, stop)}`` of the compiled evaluation's buffer
        (``core.layout.evaluation_layout``) and its ``"size"``; None without a plan."""
        return self._layout

    @property
    def buffer_size(self) -> int:
        """Length of one compiled evaluation's buffer ``out``."""
        return self._size

    def compiled_family(self) -> CompiledFamily | None:
        """The system's compiled entry points and their data (``nonsmooth.family``, obligation
        4): a planar model's kernels over its tables (``planar_family.PlanarFamily``), a
        ``GeneralizedSystem`` with compiled terms its generated module
        (``generated_family.GeneratedFamily``); None where every evaluation takes the Python path or
        the stage alone (load weights given as functions, user-written terms, pairs of dim >
        1)."""
        return self._family

    def evaluation_from(self, out: np.ndarray, M: np.ndarray | None = None) -> Evaluation:
        """The :class:`Evaluation` held in a compiled kernel's output buffer ``out`` (views
        into it, made on first access); ``M`` the mass matrix when the system computed it
        (else the tables')."""
        return _BufferEvaluation(out, self, M)

    # ------------------------------------------------------------------ the hot path
    def evaluate(self, t: float, q: np.ndarray, v: np.ndarray, modes: np.ndarray,
                 faces: np.ndarray | None = None, z: np.ndarray | None = None) -> Evaluation:
        """Evaluate at ``(t, q, v)``.

        Parameters
        ----------
        modes : ndarray, shape (p,)
            Mode of each Coulomb pair: +1 slip+, -1 slip-, 0 stick (ignored for smooth laws);
            a pair of dim > 1: 2 slip (along ``e_ref``'s continuation), 0 stick.
        faces : ndarray, shape (k,), optional
            The face of each load row (``system.abs_rows``: the sign of ``lambda_N``, 0 for a
            row held at zero) during a smooth phase. Given, the loads use the smooth
            continuation ``lambda_abs = c + A diag(faces) lambda_abs`` of those faces (what the
            integrator and the event location need: it equals the HLCP solution while the signs
            agree, which the ``residual`` certifies). None: the HLCP is solved outright (at
            events and initial times).
        z : ndarray, shape (n_z,), optional
            Internal states of the smooth laws (LuGre bristle deflections, m).
        """
        self.n_evaluations += 1
        z = self._law_states(z)
        if self._plan is not None and (z is not None or not self.n_z):
            if faces is not None:
                ev = self._evaluate_compiled(t, q, v, modes, faces, z)
            else:
                ev = self._evaluate_face_free(t, q, v, modes, z)
            if ev is not None:
                return ev
        ev = self._evaluate_general(t, q, v, modes, faces, z)
        if faces is None and ev.lam_abs.size:
            self._face_guess = np.where(ev.lam_abs < 0.0, -1.0, 1.0)
        return ev

    def _evaluate_face_free(self, t, q, v, modes, z) -> Evaluation | None:
        """The HLCP solved outright by the compiled kernel, where it can be: the face-fixed
        continuation with the faces of the last face-free evaluation is the HLCP's solution when
        its signs agree with those faces (``lambda_abs = c + A |lambda_abs|`` holds) and the
        kernel certified the solution unique (``rho(|A|) < 1``). Where a sign changed, the
        continuation's own signs are the next guess, up to :data:`_FACE_TRIES` kernel calls
        (at an event the pins' load rows turn over, and each call is microseconds against
        milliseconds of the general path). None otherwise (signs still changing, an
        uncertified or jammed equation, any failure): the general path solves it, names any
        problem, and its signs become the next guess."""
        guess = self._face_guess
        for _ in range(_FACE_TRIES):
            try:
                ev = self._evaluate_compiled(t, q, v, modes, guess, z, quiet=True)
            except np.linalg.LinAlgError:
                return None
            if ev is None:
                return None
            if np.all(guess * ev.lam_abs >= 0.0):
                self._face_guess = guess
                return ev
            guess = np.where(ev.lam_abs < 0.0, -1.0, 1.0)
        return None  # the general path's solution sets the next guess

    def _evaluate_compiled(self, t, q, v, modes, faces, z=None,
                           quiet=False) -> Evaluation | None:
        """A smooth-phase evaluation in one compiled kernel (``kernels.planar_evaluate``);
        None when the kernel cannot certify the loads' uniqueness (the general path decides),
        or ``quiet``: for any status but ``OK`` (nothing raised; LAPACK's LinAlgError may
        be)."""
        out = np.empty(self._size)
        fast, generated = self._fast, self._generated
        M = U = None
        asc = np.ascontiguousarray
        try:
            if fast is not None:  # a planar model without user functions: the arguments ready
                U = fast[3]
                status = fast[0](fast[1], fast[2], U, fast[4], fast[5], fast[6], float(t),
                                 asc(q, float), asc(v, float),
                                 self._zero_z if z is None else asc(z, float),
                                 asc(modes, float), asc(faces, float), out)
            elif generated is not None:  # a GeneralizedSystem's compiled terms
                M = generated[2]
                status = generated[0](generated[1], self._plan, self._Wt, float(t),
                                      asc(q, float), asc(v, float),
                                      self._zero_z if z is None else asc(z, float),
                                      asc(modes, float), asc(faces, float), out)
            elif self._family_evaluate is not None:  # the family's own (the spatial one's)
                call, M = self._family_evaluate
                status = call(float(t), asc(q, float), asc(v, float),
                              self._zero_z if z is None else asc(z, float), asc(modes, float),
                              asc(faces, float), out)
                if status:  # not OK (a pivot below its tolerance, ...): the terms and the
                    status = GENERAL  # allocating stage decide, and name a failure
            else:
                status = GENERAL
            if status == GENERAL:  # the system's terms and the allocating stage: for a system
                # without a compiled evaluation, or where its runtime-free stage declined
                # (LAPACK's certificate, a large system); compiled when first needed
                status, T, U = self._call_kernel(t, q, v, modes, faces, z, out)
                M = None if T is None else T.M
            if not status:
                return _BufferEvaluation(out, self, M)
        except np.linalg.LinAlgError:
            if quiet:
                raise
            self._nonfinite(t, q, v, U)
            self._singular(t, [self.system.pairs[i].name for i in np.flatnonzero(modes == 0.0)])
        return self._kernel_status(status, out, M, t, q, v, U, modes, quiet)

    def _call_kernel(self, t, q, v, modes, faces, z, out):
        """The kernel's call with its arguments prepared: ``(status, terms or None, user
        values or None)``."""
        sysm = self.system
        tab = self._tables
        vec = self._vector
        if type(modes) is not np.ndarray or type(faces) is not np.ndarray:
            modes, faces = vec(modes), vec(faces)
        z = self._zero_z if z is None else vec(z)
        if tab is not None:
            U = sysm._user_values(t, q, v) if sysm._user else sysm._U
            return self._kernel(tab.ints, tab.floats, U, tab.mass, self._plan,
                                self._load_weights(q), float(t), vec(q), vec(v), z, modes,
                                faces, out), None, U
        # the system's own terms (user callables), then the compiled stage; a NaN in the terms
        # shows in the state, and is named there
        T = self.terms(t, q, v)
        if self._contact_pairs.size:  # the contacts' normal forces: their pairs' preloads
            self._plan[self._preload_block] = self.preloads(t)
        bias = (vec(sysm.tangential_bias(t, q, v)) if (modes == 0.0).any()
                else self._zero_bias)
        return self._kernel(vec(T.M), vec(T.f), vec(T.phi), vec(T.phi_t), vec(T.G),
                            vec(T.gamma), vec(T.W), bias, float(T.P_applied),
                            float(T.P_damping), self._plan, self._load_weights(q), vec(v), z,
                            modes, faces, out), T, None

    def _kernel_status(self, status, out, M, t, q, v, U, modes, quiet) -> Evaluation | None:
        """The evaluation in ``out`` for ``OK``; else None (``quiet``, an uncertified or
        unconverged load: the general path decides) or the named error."""
        sysm = self.system
        if status and quiet:
            return None
        if status:
            k = self._k
            if status == NO_LOAD:  # the Python path raises the named FrictionLoadError
                return None
            if status == SINGULAR and self.vector:  # dependent stick rows (two contacts on
                return None  # one body): the Python path's least squares, or its error

            if status == SINGULAR or status == NONFINITE:
                self._nonfinite(t, q, v, U)
                self._singular(t, [sysm.pairs[i].name for i in np.flatnonzero(modes == 0.0)])
            if status == UNCERTIFIED:
                return None
            if status == COINCIDENT:
                raise ModelError(sysm.name_failure(COINCIDENT, int(out[0]), t, q, v))
            if status == JAMMED:
                L = self._layout
                self._jam(t, out[slice(*L["A"])].reshape(k, k), out[slice(*L["c"])])
        return self._evaluation(out, M)

    _evaluation = evaluation_from

    def _nonfinite(self, t, q, v, U) -> None:
        """Raise the named error if the KKT solve failed on NaN/inf (a user function's value or
        a diverged state) rather than on a singular matrix."""
        if ((U is None or np.all(np.isfinite(U))) and np.all(np.isfinite(q))
                and np.all(np.isfinite(v))):
            return
        from .diagnose import nonfinite_error
        from .errors import IntegrationError

        named = nonfinite_error(self.system, (t,), q, v)
        if named is not None:
            raise named
        raise IntegrationError(self.system.name_failure(NONFINITE, -1, t, q, v))

    def _sticking_names(self, modes) -> list[str]:
        """The names of the sticking Coulomb pairs at ``modes``."""
        return self.stage.sticking_names(modes)

    def _singular(self, t, sticking=()):
        self.stage.singular(t, sticking)

    def _evaluate_general(self, t, q, v, modes, faces, z=None) -> Evaluation:
        """The Python general path (:meth:`nonsmooth.core.general.GeneralStage.evaluate`) at
        ``(t, q, v)``: the system's terms, the friction part (scalar pairs:
        ``GeneralStage.scalar_friction``; pairs of dim > 1:
        ``nonsmooth.vector_friction.stage_friction``), the loads' weights and preloads."""
        sysm = self.system
        T = self.terms(t, q, v)
        v_T = T.W @ v
        if self.vector:  # pairs of dim > 1: stick rows per pair, one column per slipping pair
            from .core.general import Friction
            from .vector_friction import stage_friction

            stick, slip, a_rows, b_all, cols, dz = stage_friction(self, T.W, v, v_T, modes, z)
            fr = Friction(stick, slip, a_rows, b_all, dz, cols)
        else:
            fr = self.stage.scalar_friction(v_T, modes, z)
        return self.stage.evaluate(t, T, v, v_T, modes, fr,
                                   lambda: sysm.tangential_bias(t, q, v),
                                   self._load_weights(q), self.preloads(t), faces,
                                   self.vector)

    def _law_states(self, z):
        """``z`` of the run's state without the contacts' impact speeds, which become
        :attr:`impact` (``z`` itself without contacts or when None)."""
        if not self.n_contacts or z is None or len(z) != self.n_z + self.n_contacts:
            return z
        z = np.asarray(z, dtype=float)
        self.impact = z[self.n_z:]
        return z[:self.n_z]

    def terms(self, t, q, v):
        """The system's terms at ``(t, q, v)`` with its compliant contacts' forces (at the impact
        speeds :attr:`impact` of the latest evaluation or event; their damping power in
        ``P_damping``): the terms every evaluation and transition of this run uses."""
        T = self.system.terms(t, q, v)
        if not self.n_contacts:
            return T
        f_c, P_c, self.contact_N = self.system.contact_forces(t, q, v, self.impact)
        return T._replace(f=T.f + f_c, P_damping=T.P_damping + P_c)

    def preloads(self, t) -> np.ndarray:
        """The pairs' preloads at ``t`` (N, (p,)): the system's, and a contact's normal force
        (of the latest :meth:`terms`) on its friction pair."""
        pre = self.system.preload_at(t)
        if not self._contact_pairs.size:
            return pre
        pre = np.array(pre, dtype=float)
        pre[self._contact_pairs] += self.contact_N[self._pair_contacts]
        return pre

    def _scalar_friction(self, v_T, modes, z):
        """``GeneralStage.scalar_friction`` as a tuple ``(stick, slip, a, b, dz)``."""
        fr = self.stage.scalar_friction(v_T, modes, z)
        return fr.stick, fr.slip, fr.a, fr.b, fr.dz

    def load_weights(self, q) -> np.ndarray:
        """The load weights ``Wt`` (p, k) at ``q`` (constant unless a weight is callable)."""
        if not self._callable_weights:
            return self._Wt
        Wt = self._Wt.copy()
        for i, j, fn in self._callable_weights:
            Wt[i, j] = fn(q)
        return Wt

    _load_weights = load_weights

    def _radial_norms(self, x) -> np.ndarray:
        return self.stage.radial_norms(x)

    def normal_equation(self, t, q, v, modes) -> tuple[np.ndarray, np.ndarray]:
        """The absolute value equation ``lambda_abs = c + A |lambda_abs|`` of the normal forces
        at a state (no smooth laws, no radial loads): ``(A, c)``, shapes (k, k) and (k,) over the
        load rows (for simple translational pairs: their normal rows;
        :meth:`nonsmooth.core.general.GeneralStage.normal_equation`)."""
        return self.stage.normal_equation(self.terms(t, q, v), v, modes,
                                          self._load_weights(q), self.preloads(t))

    @property
    def hlcp_enumeration_max_size(self) -> int:
        """Largest HLCP (number of load rows) solved or certified by enumerating its ``2^p``
        sign patterns (:attr:`nonsmooth.loads.NormalLoads.enumeration_max_size`); set it on an
        instance to request the enumeration as a certificate."""
        return self.loads.enumeration_max_size

    @hlcp_enumeration_max_size.setter
    def hlcp_enumeration_max_size(self, size: int) -> None:
        self.loads.enumeration_max_size = int(size)

    def _normal_magnitudes(self, t, A, c, faces=None) -> np.ndarray:
        """:meth:`nonsmooth.loads.NormalLoads.magnitudes`."""
        return self.loads.magnitudes(t, A, c, faces)

    def _jam(self, t, A, c):
        self.loads.jam(t, A, c)

    # ------------------------------------------------------------------ events: transition
    def tangential_acceleration(self, t, q, v, ev: Evaluation) -> np.ndarray:
        """``a_T = W dv/dt + (dW/dt) v``, shape (p_rows,)."""
        W = self.system.terms(t, q, v).W
        return W @ ev.dv + self.system.tangential_bias(t, q, v)

    def can_stick(self, t, q, v, pairs) -> bool:
        """Whether the stick rows of ``pairs`` are independent of the constraint rows.

        A sticking pair whose tangential row is a combination of the bilateral constraints
        (the drives already fix its motion) cannot stick: friction cannot stop that motion."""
        T = self.system.terms(t, q, v)
        if not len(pairs):
            return True
        rows = [r for i in pairs for r in range(self.w_row[i], self.w_row[i] + self.dim[i])]
        stacked = np.vstack((T.G, T.W[rows]))
        s = np.linalg.svd(stacked, compute_uv=False)
        return bool(s[-1] > 1e-9 * max(1.0, s[0])) if stacked.shape[0] <= stacked.shape[1] \
            else False

    def transition(self, t, q, v, modes, candidates, *, options=None, z=None,
                   tol=1e-9, certify_max: int | None = None) -> np.ndarray:
        """The transition problem at an event (Pfeiffer & Glocker; ``docs/method.md`` section 8).

        Decide the modes of the ``candidates`` (pairs at zero sliding velocity): each may stick
        (``0``) or slip either way (``+1``, ``-1``). A combination is consistent when every
        sticking pair's friction force satisfies ``|F_T| <= mu_s |N|`` (its stick row not made
        redundant by the drives, :meth:`can_stick`) and every slipping pair accelerates the way
        it slips (``s a_T > 0``). Among the consistent combinations the one earliest in the
        candidates' preference orders wins (default: stick, then slip+, slip-: a pair at rest
        stays at rest while static friction can hold it); two equally preferred consistent
        combinations are an indeterminacy (``ModeError``), none is a ``ModeError`` too (or the
        jamming error met on the way, or the ``ConstraintError`` of redundant constraints) unless
        the constraints hold the candidates at rest without a normal load (a driven mechanism
        at rest: their friction is zero in any mode).

        Solved without enumerating the ``3^k`` combinations (:mod:`nonsmooth.transition`): the
        friction-saturation LCP (tangential accelerations ``a_T = a+ - a-``, friction reserves
        ``mu_s N +- F_T``) on the KKT system linearized at the current normal loads, by Lemke's
        method, with a cascade for ``mu_d < mu_s``; the answer is verified by a full
        :meth:`evaluate` at the chosen modes with the checks above, repaired by a bounded local
        search if it fails, and for ``k <= certify_max`` certified by enumeration.

        Parameters
        ----------
        t : float
        q, v : ndarray, shape (n_q,)
        modes : ndarray, shape (p,)       current modes; non-candidates keep theirs
        candidates : sequence of int      pairs to decide (k of them)
        options : dict int -> tuple, optional
            Preference order of the modes of a candidate (e.g. ``(1.0, 0.0)`` for a pair whose
            friction reserve just ran out in the slip+ direction: slip first, stick only if
            slipping is inconsistent).
        z : ndarray, optional             internal states of the smooth laws
        tol : float                       ``s a_T > tol max(1, |dv/dt|)`` for a slipping pair
        certify_max : int, optional
            Certify the answer by enumerating the combinations of preference rank up to its own
            when ``k <= certify_max`` (default 3, at most 27 evaluations; 0: never).

        Returns
        -------
        ndarray, shape (p,)
            The new modes.

        References
        ----------
        Pfeiffer F., Glocker C., *Multibody Dynamics with Unilateral Contacts* (1996), ch. 7.
        """
        if self.vector:  # pairs of dim > 1: nonsmooth.vector_friction
            from .vector_friction import solve_vector_transition

            return solve_vector_transition(self, t, q, v, modes, candidates, options=options,
                                           z=z, tol=tol)
        from .transition import solve_transition

        return solve_transition(self, t, q, v, modes, candidates, options=options, z=z,
                                tol=tol, certify_max=certify_max)

    def _transition_linearization(self, t, q, v, modes, free, z, faces, rad):
        """The evaluation made affine in the friction forces ``F`` of the pairs ``free``.

        The ``free`` pairs' forces are external forces (one KKT right-hand side each); the
        other pairs keep ``modes`` (stick rows, slipping or smooth-law friction); the load
        rows' absolute values are taken on ``faces`` (``|lambda_abs| = faces * lambda_abs``)
        and the radial loads ``rad`` are frozen.

        Parameters
        ----------
        t : float
        q, v : ndarray, shape (n_q,)
        modes : ndarray, shape (p,)
        free : sequence of int, k of them
        z : ndarray, shape (n_z,) or None
        faces : ndarray, shape (r,)       +1 / -1 per load row (``system.abs_rows``)
        rad : ndarray, shape (p,)         radial loads (N)

        Returns
        -------
        nonsmooth.transition.Linearization
            ``a_T + 2 alpha v_T = a0 + D F`` (k), loads ``N = n0 + Nf F`` (k), load rows
            ``lambda_abs = lam0 + L F`` (r).

        Raises
        ------
        ConstraintError
            Singular KKT matrix (stick rows made redundant by the constraints).
        numpy.linalg.LinAlgError
            ``I - A diag(faces)`` singular (jamming on these faces).
        """
        from .transition import Linearization

        sysm = self.system
        z = self._law_states(z)
        lin = self.stage.linearize(t, self.terms(t, q, v), v, sysm.tangential_bias(t, q, v),
                                   modes, free, z, faces, rad, self._load_weights(q),
                                   self.preloads(t))
        return Linearization(*lin, np.asarray(faces, dtype=float))
