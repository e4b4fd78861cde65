"""The state of one run (:class:`_Run`): everything that changes in time (modes, faces, the
event log, the records, the budget and clock, the knots of the dense output) and the evaluation
with its cache. Its other concepts are their own modules, mixed in: the recording of outputs
(:mod:`nonsmooth.run.recording`) and the modes, faces and events
(:mod:`nonsmooth.run.modes`)."""

from __future__ import annotations

import math
import time

import numpy as np

from ..compile_notice import compile_seconds
from ..diagnose import nonfinite_error
from ..dynamics import Evaluation
from ..errors import (
    BudgetError,
    IntegrationError,
    NonsmoothError,
)
from ..limits import (
    MAX_EVALUATIONS,
)
from .events import EventRecord
from .modes import Modes
from .recorder import Recorder
from .recording import Recording


class _Run(Recording, Modes):
    """The state of one simulation run (everything that changes in time lives here)."""

    def __init__(self, system, dynamics, user_events, progress, *,
                 max_evaluations=MAX_EVALUATIONS, timeout=None):
        self.system = system
        self.max_evaluations = max_evaluations
        self.timeout = timeout
        self.deadline = None if timeout is None else time.perf_counter() + timeout
        self._compiled_at_start = compile_seconds()  # (numba's compilations are not the run's)
        self._next_clock = 0
        self.t_now = math.nan  # time of the latest evaluation (where a failure happened)
        from ..system import GeneralizedSystem

        self.check_mass = isinstance(system, GeneralizedSystem) and system.constant_mass is None
        self.dyn = dynamics
        # the integrated state y = [q | v | work | z] (core.layout: its one owner)
        self.layout = L = dynamics.layout
        self.user_events = user_events
        self.progress = progress
        # False: the adaptive methods' outputs are recorded without their evaluations
        # (simulate(..., derived=False): models without friction pairs and tracked faces)
        self.derived = True
        self.events: list[EventRecord] = []
        n, m, p, pr = L.n_v, system.n_constraints, system.n_pairs, system.p_rows
        # the family's kinematic map dq/dt = qdot(q, v) and projection of q (nonsmooth.family,
        # obligation 2); None where they are the identity (dq/dt = v, no projection)
        self.qdot = system.qdot if system.has_kinematic_map else None
        self.project = system.project if system.has_projection else None
        self.recorder = Recorder({"y": L.size, "dv": n, "lam": m,
                                  "lambda_N": p, "N": p, "F_T": pr, "v_T": pr, "modes": p,
                                  "phi": m, "dphi": m})
        # the knots of the dense output besides the output rows: the initial state, both sides
        # of every event and time stop, the final state: (t, y, before, after), each side an
        # acceleration dv or the (time, modes, faces) to evaluate it at when the dense output
        # is first used (:meth:`side_acceleration`: no evaluation during the run)
        self.knots: list[tuple] = []
        # the right-hand side is evaluated at times <= t_clamp: a phase that ends at a time stop
        # sees the left limit of a function of time there (the next phase starts at it)
        self.t_clamp = math.inf
        self.n_phases = 0
        # the family's compiled entry points (None: the Python path only): the outputs of an
        # adaptive step evaluated together in one call, and, without user event functions,
        # whole phases in compiled calls (the model's user functions called back from them;
        # pairs of dim > 1 too: the compiled phases' event values and e_ref refresh are
        # core.events', the same as _Run.g_value's)
        self.family = dynamics.compiled_family()
        self.compiled = self.family is not None and not user_events
        # pairs with set-valued Coulomb friction: modes and stick/slip events
        self.friction_pairs = [i for i in range(system.n_pairs)
                               if not dynamics.smooth[i] and dynamics.mu_s[i] > 0]
        self.mu_s = dynamics.mu_s
        # Coulomb pairs whose static and dynamic coefficients are equal (see _run_out)
        self.degenerate = np.abs(dynamics.mu_s - dynamics.mu_d) <= 1e-12 * dynamics.mu_s
        # pairs of dim > 1: their events, values and modes (nonsmooth.vector_friction)
        self.vector = None
        if dynamics.vector:
            from ..vector_friction import VectorEvents

            self.vector = VectorEvents(self)
        # the rows whose sign (face) is tracked, named by their pair when it is its normal row
        by_row = {int(r): pr.name for r, pr in zip(system.normal_rows, system.pairs,
                                                    strict=True) if r >= 0}
        self.abs_names = [by_row.get(int(r), system.constraint_names[r])
                          for r in system.abs_rows]
        # what each tracked row's name names: its pair, or the constraint row itself
        self.abs_elements = ["pair" if int(r) in by_row else "load row"
                             for r in system.abs_rows]
        self._last = None
        # the constraint rows in force from each time on (t, names): more than one where a
        # system that removed redundant rows chose them again along the motion (use_rows)
        self.row_sets: list[tuple[float, list[str]]] = [(-math.inf,
                                                         list(system.constraint_names))]
        # compliant contacts (obligation 12): closed or open between events, and the rates of
        # their impact speeds in the state (zero: each is set at its touch event only)
        self.contact_closed = np.zeros(system.n_contacts, dtype=bool)
        self._still = np.zeros(system.n_contacts)
        self.events_started = False  # (the contacts' start entries logged)
        self.faces = None
        self.face_threshold = 0.0
        self.max_residual = 0.0
        self._zeno_t = -math.inf
        self._zeno_count = 0
        self.n_steps = 0
        #: a time-stepping method's impulse solver's counts (the ``step_solver`` diagnostics:
        #: ``{"solver", "steps", "sweeps", "max_sweeps", "unconverged", "max_residual"}``);
        #: None for the other methods
        self.step_solver = None

    # ---------------------------------------------------------------- evaluation with a cache
    def charge(self, t):
        """Count one evaluation at ``t`` against the run's budget (evaluations, wall clock)."""
        self.t_now = t
        count = self.dyn.n_evaluations
        if count >= self.max_evaluations:
            raise BudgetError(
                f"the run used its budget of {self.max_evaluations:,} evaluations at t = {t:.6g} s "
                "(max_evaluations); raise it (--max-evaluations), shorten t_end, or loosen the "
                "tolerances / enlarge dt")
        if self.deadline is not None and count >= self._next_clock:
            self._next_clock = count + 64  # the clock is read every 64 evaluations or so
            compiling = compile_seconds() - self._compiled_at_start
            if time.perf_counter() - compiling <= self.deadline:
                return
            raise BudgetError(
                f"the run exceeded its wall-clock timeout of {self.timeout:g} s at t = {t:.6g} s "
                "(timeout); raise it (--timeout) or shorten t_end")

    def ev_at(self, t, y, modes) -> Evaluation:
        """Evaluation in the current phase (modes and faces fixed), cached for the last state;
        at times beyond ``t_clamp`` (the phase's time stop) the left limit there."""
        t = min(t, self.t_clamp)
        last = self._last
        if last is not None and last[0] == t and last[2] is modes and np.array_equal(last[1], y):
            return last[3]
        self.charge(t)
        L = self.layout
        ev = self.dyn.evaluate(t, y[L.q], y[L.v], modes, self.faces, y[L.z])
        self._last = (t, y.copy(), modes, ev)
        return ev

    def fun(self, modes, cached=True):
        """The right-hand side ``dy/dt = [qdot(q, v), dv, powers, dz]`` for fixed modes
        (``qdot``: the family's kinematic map, ``v`` where it is the identity);
        ``cached=False`` skips the cache lookup (the fixed-step loop reads ``self.last_ev``
        instead). An adaptive method's trial stage at a non-finite state (a step that diverged
        into a stiff contact) gets NaN rates: its error estimate rejects the step, which is
        retried shorter (a fixed step cannot be: it fails by name, :meth:`nonfinite`)."""
        sq, sv, sz = self.layout.q, self.layout.v, self.layout.z  # slices made once
        evaluate = self.dyn.evaluate
        faces = self.faces
        qdot = self.qdot
        still = self._still

        def f(t, y):
            if cached:  # a trial stage of an adaptive step that diverged (a stiff contact):
                # NaN rates reject the step (the work accumulators do not feed back: an
                # implicit method's difference quotients may make them non-finite)
                if not (np.isfinite(y[sq]).all() and np.isfinite(y[sv]).all()
                        and np.isfinite(y[sz]).all()):
                    return np.full(y.shape, np.nan)
                ev = self.ev_at(t, y, modes)
            else:
                t = min(t, self.t_clamp)
                self.charge(t)
                ev = evaluate(t, y[sq], y[sv], modes, faces, y[sz])
            self.last_ev = ev
            dq = y[sv] if qdot is None else qdot(y[sq], y[sv])  # dq/dt = H(q) v
            return np.concatenate((dq, ev.dv, ev.powers, ev.dz, still))

        return f

    def rate(self, y, ev) -> np.ndarray:
        """``dy/dt`` (size,) at the state ``y`` with its evaluation ``ev`` (as :meth:`fun`)."""
        L = self.layout
        dq = y[L.v] if self.qdot is None else self.qdot(y[L.q], y[L.v])
        return np.concatenate((dq, ev.dv, ev.powers, ev.dz, self._still))

    def projected(self, y) -> np.ndarray:
        """``y`` with ``q`` projected by the family (``System.project``): ``y`` itself where
        there is no projection, else a new state (the evaluation cache is left: its key is the
        state)."""
        if self.project is None:
            return y
        L = self.layout
        y = np.array(y, dtype=float)
        y[L.q] = self.project(np.array(y[L.q]))
        return y

    def use_rows(self, t: float, keep) -> None:
        """Keep the constraint rows ``keep`` of the system from ``t`` (s) on
        (``System.use_rows``: the rows removed as redundant chosen again, as many as before;
        :class:`~nonsmooth.run.singular.StepWatch`), noted in :attr:`row_sets`; the first
        choice of a run warns."""
        self.system.use_rows(keep, t, warn=len(self.row_sets) == 1)
        self.row_sets.append((float(t), list(self.system.constraint_names)))

    def named_rows(self, rec: dict) -> tuple[dict, list[str]]:
        """The records ``rec`` (``Recorder.arrays()``) and the names of their constraint
        columns (``lam``, ``phi``, ``dphi``): as recorded with one set of rows; where the rows
        were chosen again (:attr:`row_sets`), one column per row in force at some time of the
        run (in the order of first use), 0 in the rows of times it was not (a row removed as
        redundant has a zero multiplier; its drift is not evaluated then)."""
        if len(self.row_sets) == 1:
            return rec, list(self.row_sets[0][1])
        names: list[str] = []
        for _, rows in self.row_sets:
            names += [n for n in rows if n not in names]
        t = np.asarray(rec["t"], dtype=float)
        starts = np.array([start for start, _ in self.row_sets[1:]])
        which = np.searchsorted(starts, t, side="right")  # the set in force at each row
        out = dict(rec)
        for key in ("lam", "phi", "dphi"):
            full = np.zeros((t.size, len(names)))
            if t.size:
                recorded = np.asarray(rec[key], dtype=float).reshape(t.size, -1)
                for i, (_, rows) in enumerate(self.row_sets):
                    at = np.flatnonzero(which == i)
                    full[np.ix_(at, [names.index(n) for n in rows])] = recorded[at]
            out[key] = full
        return out, names

    def nonfinite(self, t, y, h, method, dt) -> NonsmoothError:
        """The error for a state that became non-finite on the step from ``(t, y)`` of length
        ``h``: names the model element or user function that returned NaN/inf if there is one."""
        L = self.layout
        named = nonfinite_error(self.system, (t, t + 0.5 * h, t + h), y[L.q], y[L.v])
        if named is not None:
            return named
        return IntegrationError(
            f"the state became non-finite after t = {t:.6g} s (method {method}, step {dt:g} s): "
            "the integration is unstable; reduce dt or use an adaptive method (RK45, DOP853)")
