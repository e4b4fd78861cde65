"""Named exceptions of nonsmooth.

Every failure a user can meet is one of these. Messages say what is wrong, where (time,
joint/pair, argument), the allowed range, and what to try.

Hierarchy::

    NonsmoothError
    +-- ModelError (also ValueError)         bad model description or parameter
    |   +-- BuildTimeoutError                building the model took longer than the timeout
    +-- ConstraintError                      constraints cannot be satisfied / singular KKT
    +-- InconsistentLCPError                 the normal-force (H)LCP has no solution
    +-- IndeterminateLCPError                the normal-force (H)LCP has several solutions
    +-- ModeError                            no consistent friction mode at an event
    +-- FrictionLoadError                    a revolute joint's load iteration did not converge
    +-- IntegrationError                     the integrator failed (step size, Zeno, ...)
    |   +-- BudgetError                      the run used up max_evaluations or its timeout
    +-- UserFunctionError                    a user-supplied function raised or returned NaN/inf
    +-- DataError (also ValueError)          measured data given to fit() are unusable
    +-- FitError                             a fit's runs failed where it needed them
    +-- UnknownMethodError (also ValueError) no integrator of that name
"""

from __future__ import annotations

__all__ = [
    "NonsmoothError",
    "ModelError",
    "BuildTimeoutError",
    "ConstraintError",
    "InconsistentLCPError",
    "IndeterminateLCPError",
    "ModeError",
    "IntegrationError",
    "FrictionLoadError",
    "LoadBranchWarning",
    "DriverMotionWarning",
    "BudgetError",
    "UserFunctionError",
    "DataError",
    "FitError",
    "NotRecordedError",
    "UnknownMethodError",
]


class NonsmoothError(Exception):
    """Base class of every error raised by nonsmooth."""


class ModelError(NonsmoothError, ValueError):
    """A model description or parameter is invalid (names the element and the allowed range)."""


class BuildTimeoutError(ModelError):
    """Building the model (a model file's or a build function's ``build()``) took longer than
    the run's or the case's wall-clock ``timeout`` (``--timeout``), and was interrupted."""


class ConstraintError(NonsmoothError):
    """The constraint equations cannot be solved (singular KKT matrix, redundant constraints)."""


class InconsistentLCPError(NonsmoothError):
    """The (horizontal) LCP of the normal forces has no solution (jamming / Painleve-type).

    Attributes
    ----------
    t : float or None
        Time of the evaluation.
    pairs : list of str
        Names of the frictional pairs involved.
    A, c : ndarray
        The absolute-value equation ``lambda_N = c + A |lambda_N|`` that has no solution.
    """

    def __init__(self, message: str, *, t=None, pairs=(), A=None, c=None):
        super().__init__(message)
        self.t = t
        self.pairs = list(pairs)
        self.A = A
        self.c = c


class IndeterminateLCPError(InconsistentLCPError):
    """The (horizontal) LCP of the normal forces has several solutions (indeterminacy).

    Attributes as :class:`InconsistentLCPError`, plus ``solutions`` (list of ndarray).
    """

    def __init__(self, message: str, *, t=None, pairs=(), A=None, c=None, solutions=()):
        super().__init__(message, t=t, pairs=pairs, A=A, c=c)
        self.solutions = list(solutions)


class ModeError(NonsmoothError):
    """No consistent friction mode (slip+, slip-) exists at an event."""


class FrictionLoadError(NonsmoothError):
    """The normal load of a joint whose load is not piecewise linear (a revolute pin's radial
    reaction) could not be found: the fixed-point iteration did not converge."""


class LoadBranchWarning(UserWarning):
    """A smooth friction law's load equation had more than one solution during the run (its
    presliding coefficient made friction feed back into the joint's reaction by ``rho(L) >=
    1``); the run followed the branch connected to the frictionless load (the root the
    fixed-point iteration reaches from it, the smaller one). ``t`` (s) the first time,
    ``pairs`` the joints, ``roots`` (N) the solutions there when one load decides it (else
    empty), ``rho`` the feedback."""

    def __init__(self, message: str, t: float, pairs, roots=(), rho: float = float("nan")):
        super().__init__(message)
        self.t, self.pairs, self.roots, self.rho = t, list(pairs), list(roots), rho


class DriverMotionWarning(UserWarning):
    """A driver's given derivatives ``(df/dt, d2f/dt2)`` disagree with finite differences of
    its position function, by less than makes its row drift past the run's drift limit (a
    larger disagreement is a :class:`ModelError`); ``driver`` names it."""

    def __init__(self, message: str, driver: str = ""):
        super().__init__(message)
        self.driver = driver


class IntegrationError(NonsmoothError):
    """The time integration failed (step-size collapse, too many events, non-finite state)."""


class BudgetError(IntegrationError):
    """The run used up its budget: ``max_evaluations`` right-hand-side evaluations or its
    wall-clock ``timeout``. The partial result is kept (``throw=False``, or ``exc.result``)."""


class UserFunctionError(NonsmoothError):
    """A user-supplied function (given force, driver motion, GeneralizedSystem callable, event or
    output function) raised an exception or returned a non-finite value; the message names it and
    the time."""


class DataError(NonsmoothError, ValueError):
    """Measured data given to :func:`nonsmooth.fit` are unusable: NaN or inf values, unsorted or
    repeated times, a missing time column, unknown output names (the model's are listed), fewer
    values than fitted parameters, sample times outside the runs' span, malformed weights. The
    message names the column and the row."""


class NotRecordedError(NonsmoothError, AttributeError):
    """A :class:`~nonsmooth.result.Result` field the run did not compute: a run with
    ``simulate(..., derived=False)`` records the states, energies and work at its outputs, not
    the accelerations, multipliers and constraint drift of their evaluations (nor the outputs
    computed from them). The message names the field and the option."""


class FitError(NonsmoothError):
    """A fit could not go on: the run at the initial parameter values failed, or the runs a
    Jacobian column needs failed on both sides of the point (the model refuses the values, or
    the run fails there); the message names the parameter values and the run's error."""


class SweepError(NonsmoothError, ValueError):
    """A sweep that cannot start or continue: a malformed grid or metric, an unwritable store,
    a resume whose definition differs from the stored one, an unreachable Dask scheduler, a
    build function that cannot be sent to the workers. Nothing has run when it is raised."""


class UnknownMethodError(NonsmoothError, ValueError):
    """``simulate(method=...)`` (or ``--method``, a sweep's ``method``) names no integrator:
    the message lists the valid names (``nonsmooth.METHODS``; names are case-sensitive)."""
