"""A step size that collapses at a singular constraint Jacobian: detected, named, stopped.

Near a singular configuration of a mechanism (a four-bar's lock-up or dead point, a
parallelogram's change point, or a loop whose removed redundant rows stop being redundant
along its motion) the constraint rows become dependent, the reactions grow without bound and
an adaptive method shrinks its steps without end: the run would grind until its budget or
timeout. :class:`StepWatch` follows a phase's accepted steps; when :data:`WINDOW` of them
together advance less than :data:`COLLAPSE` of the phase's span or :data:`SHRINK` of the
largest such window of the phase before, it checks the constraint
Jacobian ``G`` at the state reached (:func:`singular_rows`, on ``G`` equilibrated, as the
redundancy check of a spatial model), and when the ratio of its smallest to its largest
singular value is below :data:`SINGULAR_RATIO` it raises an
:class:`~nonsmooth.errors.IntegrationError` that names the configuration, the time and the
rows. A collapse with a regular ``G`` (a stiff force, say) is left to the run's budget.

Rows removed as redundant at the start are a choice the motion can spoil: the rows kept can
become dependent at a configuration where all the rows are not (the Bricard linkage). Every
:data:`ROWS_EVERY` steps the watch asks the system for a better choice (``row_choice``; before the
kept rows are singular, and whenever the steps collapse); the phase then ends there and the
run goes on with the rows chosen again (``_Run.use_rows``). Only when the whole set loses rank
(a lock-up, a dead point, a change point of the mechanism) is the run stopped.
"""

from __future__ import annotations

import numpy as np

from ..errors import IntegrationError
from ..rank import equilibrate

__all__ = ["StepWatch", "singular_rows", "singular_error", "WINDOW", "COLLAPSE", "SHRINK",
           "SINGULAR_RATIO", "ROWS_EVERY"]

#: Accepted steps over which the advance is measured (a compiled phase's pause, 4000
#: evaluations, holds about 250-300).
WINDOW = 200
#: A window advancing less than this fraction of the phase's span has collapsed (a mean step
#: below ``COLLAPSE / WINDOW``, 5e-9 of the span: 1e-9 s steps in a 1 s run) ...
COLLAPSE = 1e-6
#: ... and so has one advancing less than this fraction of the phase's largest window so far
#: (its steps 100 times shorter than they were).
SHRINK = 1e-2
#: Accepted steps between two looks at the rows kept of a system that removed redundant rows
#: (``System.row_choice``; a compiled phase's pause, about 250-300 steps, is the most often it
#: can look).
ROWS_EVERY = 5
#: Smallest over largest singular value of the equilibrated ``G`` below which the constraint
#: Jacobian counts as singular (the reactions then scale as its inverse: 1e3 times their size
#: at a regular configuration).
SINGULAR_RATIO = 1e-3


def singular_rows(system, t: float, q: np.ndarray, v: np.ndarray) -> tuple[float, list[str]]:
    """``(ratio, rows)``: the smallest over the largest singular value of the equilibrated
    constraint Jacobian ``G`` of ``system`` at ``(t, q, v)`` (0 with more rows than
    velocities) and the names of the rows in its most nearly dependent combination (those
    whose weight is at least a tenth of the largest)."""
    G = np.asarray(system.terms(t, q, v).G, dtype=float)
    m, n = G.shape
    if m == 0 or not np.all(np.isfinite(G)):
        return 1.0, []
    A = equilibrate(G)[0]
    U, s, _ = np.linalg.svd(A)
    if s.size == 0 or s[0] == 0.0:
        return 1.0, []
    ratio = 0.0 if m > n else float(s[-1] / s[0])
    u = U[:, -1]
    weight = np.abs(u)
    names = [system.constraint_names[k] for k in np.flatnonzero(weight >= 0.1 * weight.max())]
    return ratio, names


class StepWatch:
    """Follows the accepted steps of one phase from ``t`` (s) over the span ``span`` (s);
    :meth:`advance` raises the named :class:`IntegrationError` of a step size collapsed at a
    singular constraint Jacobian (module docstring), and says when the rows a system removed
    as redundant are to be chosen again (:meth:`advance` True, the rows to keep in
    :attr:`keep`)."""

    def __init__(self, run, t: float, span: float):
        self.run = run
        self.t_mark = float(t)
        self.steps = 0
        self.span = float(span)
        self.largest = 0.0  # the largest advance of a window so far (s)
        #: the rows to keep from the state of the last :meth:`advance` that returned True
        self.keep = None
        self.since_rows = 0  # accepted steps since the rows kept were last looked at

    def advance(self, t: float, n_steps: int, y: np.ndarray) -> bool:
        """Count ``n_steps`` accepted steps reaching ``t`` (s) at the state ``y``. Every
        :data:`ROWS_EVERY` steps (or at each call, if fewer), True when the rows kept of a
        system that removed redundant rows are nearly dependent while all its rows are not
        (``System.row_choice``; the rows to keep in :attr:`keep`): the phase then ends at
        ``(t, y)`` and the run goes on with them (``_Run.use_rows``). Raises the named error
        of a step size collapsed at a singular configuration."""
        self.steps += int(n_steps)
        if self.steps < WINDOW:
            return self.rows(t, n_steps, y)
        self.since_rows = 0
        advanced = float(t) - self.t_mark
        steps = self.steps
        self.t_mark, self.steps = float(t), 0
        self.largest = max(self.largest, advanced)
        collapsed = advanced < COLLAPSE * self.span or advanced < SHRINK * self.largest
        if self._rows_chosen_again(float(t), y, force=collapsed):
            return True
        if not collapsed:
            return False
        error = singular_error(self.run, float(t), y,
                               f"the step size collapsed at t = {float(t):.9g} s ({steps} "
                               f"steps advanced {advanced:.3g} s)")
        if error is not None:
            raise error
        return False

    def rows(self, t: float, n_steps: int, y: np.ndarray) -> bool:
        """Count ``n_steps`` steps reaching ``t`` (s) at the state ``y``; every
        :data:`ROWS_EVERY` steps (or at each call, if fewer), True when the rows kept of a
        system that removed redundant rows are to be chosen again there (:attr:`keep`), as
        :meth:`advance` without its step-size test (a fixed-step phase's)."""
        self.since_rows += int(n_steps)
        if self.since_rows < ROWS_EVERY:
            return False
        self.since_rows = 0
        return self._rows_chosen_again(float(t), y, force=False)

    def _rows_chosen_again(self, t: float, y: np.ndarray, force: bool) -> bool:
        """Whether the system (``row_choice``: a spatial system with rows removed as
        redundant) chooses other rows to keep at ``(t, y)``; ``force``: whenever a choice is
        better (the step size collapsed), else only when the rows kept are nearly dependent."""
        choose = getattr(self.run.system, "row_choice", None)
        if choose is None:
            return False
        try:
            keep = choose(t, np.asarray(y[self.run.layout.q], dtype=float), force)
        except Exception:  # noqa: BLE001 - the run itself names an evaluation that fails
            return False
        self.keep = keep
        return keep is not None


def singular_error(run, t: float, y: np.ndarray, what: str) -> IntegrationError | None:
    """The :class:`IntegrationError` saying ``what`` happened (a step size that collapsed, a
    solver that could not step) at a singular configuration, when the constraint Jacobian at
    the state ``y`` at ``t`` (s) is singular (:data:`SINGULAR_RATIO`); else None."""
    L = run.layout
    try:
        ratio, rows = singular_rows(run.system, float(t), y[L.q], y[L.v])
    except Exception:  # noqa: BLE001 - the run itself names an evaluation that fails
        return None
    if ratio >= SINGULAR_RATIO:
        return None
    removed = list(getattr(run.system, "removed_rows", ()) or ())
    if removed and _rows_kept_are_the_cause(run.system, t, y[L.q], len(removed)):
        return IntegrationError(
            f"{what}: the constraint rows kept became dependent ({rows}; smallest/largest "
            f"singular value of the scaled constraint Jacobian {ratio:.2g}) while all the "
            f"rows, the ones removed as redundant at the start ({removed}) with them, are "
            "not, and no other choice of the rows removed is better conditioned here. Build "
            "the loop with joints of fewer rows (Spherical, Universal, PointOnLine) so that no "
            f"row is redundant, or end the run before t = {float(t):.6g} s")
    return IntegrationError(
        f"{what}: the mechanism is at a singular configuration (a lock-up, dead point or "
        f"change point): the constraint rows {rows} are dependent there (smallest/largest "
        f"singular value of the scaled constraint Jacobian {ratio:.2g}), so the reactions "
        "grow without bound and the motion cannot go on through it. Change the drivers' "
        "motion or the initial state so that the mechanism does not reach it, or end the run "
        f"before t = {float(t):.6g} s")


def _rows_kept_are_the_cause(system, t: float, q: np.ndarray, n_removed: int) -> bool:
    """Whether every row of a system that removed ``n_removed`` rows as redundant
    (``all_rows_jacobian``, a spatial system's) keeps the rank of the rows kept at ``(t,
    q)``: then the mechanism is regular and the choice of the removed rows is what failed."""
    full = getattr(system, "all_rows_jacobian", None)
    if full is None:
        return False
    G = np.asarray(full(t, q), dtype=float)
    s = np.linalg.svd(equilibrate(G)[0], compute_uv=False)
    kept = G.shape[0] - n_removed
    return 0 < kept <= s.size and s[0] > 0.0 and s[kept - 1] / s[0] >= SINGULAR_RATIO
