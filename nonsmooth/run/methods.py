"""The integrators of a run: one :class:`Method` per integrator, the registry :data:`METHODS`
(name -> Method) and :func:`method_for`, which ``simulate`` uses to turn its ``method=``
argument (a name, or a :class:`Method`) into one.

A method says everything the run decides by it: whether it steps on a fixed grid (``fixed``)
or controls its step size, its default tolerances ``(rtol, atol)`` (adaptive methods), its
Python stepper (the class that takes a phase one step at a time), the compiled phase a model
family may run it in (``compiled_phase``: ``"dop853"``, ``"fixed"`` or None), and the
stepper-specific facts (a fixed step's rule and cost; scipy's solver class and whether its
steps may be projected). The run reads these attributes and never tests a method's name
(``tests/test_methods.py`` checks the package for comparisons with a method name outside this
module).

Adding an integrator
--------------------
1. **Its stepper**: a module of ``nonsmooth/run/`` with one stepper class following the
   protocol of :mod:`nonsmooth.run.steppers` (what ``_phase``, the Python phases' loop,
   calls): the class method ``start(run, method, modes, t, y, t_bound, *, steps, rtol, atol,
   max_step, dt)`` that begins a smooth phase at ``(t, y)`` ending at ``t_bound`` (``steps``
   the fixed-step grid ``t0 + k dt``), and on the instance ``step()`` (one step: ``t_old``,
   ``y_old`` before it, ``t``, ``y`` after it, ``status`` ``"running"`` or ``"finished"``),
   ``dense_output()`` (a callable of ``t`` on the last step, where events are located),
   ``state_at(t)`` (the state at an event on the last step), ``fixed`` (the step ends are the
   outputs) and ``xtol`` (the events' time tolerance, s). The phase's modes are fixed: its
   right-hand side is ``run.fun(modes)``; ``run.projected(y)`` is the family's projection of
   ``q``. A method whose step is a problem of its own (a time-stepping scheme's one-step
   impact and friction problem, as Moreau-Jean's) keeps that problem in ``core/`` and its
   solver in ``lcp/``: the stepper only calls them. The stepper module does not import this
   one (this one imports it: no import circle, ``tests/test_layering.py``).
2. **Its Method**: an instance of :class:`Method` (or of a subclass with the stepper's own
   facts, as :class:`FixedStepMethod` and :class:`ScipyMethod`) in this module, added to
   :data:`METHODS` (the names users pass, ``simulate(method="...")``, ``--method``).
3. **A compiled phase** (optional): ``compiled_phase`` names the family's compiled runner
   (``CompiledFamily.dop853`` / ``fixed``; ``run.phase._smooth_phase`` takes it where the run
   can and hands the phase to the Python stepper where it declines). A new compiled phase is a
   template in ``core/phases/``, its instantiation in each family and its runner in
   ``run/phase.py``; without one, ``compiled_phase=None`` and the Python stepper runs every
   phase.

For an event-driven integrator nothing else in the run changes: the schedule, the event
loop, the records and the result read the attributes above. A time-stepping scheme, which
resolves impacts and stick-slip inside its step instead of locating events, also needs the
event loop (``run/loop.py``) to take its steps without the engine's event functions: that is
its own change there, decided by an attribute of its ``Method``, not by its name
(``time_stepping``: :func:`nonsmooth.run.loop._take_time_steps` drives its stepper's
``step(t_next)`` and ``record()`` on the grid ``t0 + k dt``, and ``simulate`` asks the method's
``check_run`` what the model and options may hold). :data:`MOREAU_JEAN` is one
(:mod:`nonsmooth.run.moreau_jean`; :func:`moreau_jean` makes one with other options).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import UnknownMethodError
from .moreau_jean import SOLVERS, MoreauJeanStepper, check_model
from .steppers import _euler_step, _FixedStepper, _rk4_step, _ScipyStepper

__all__ = ["Method", "FixedStepMethod", "ScipyMethod", "METHODS", "method_for",
           "default_method", "default_tolerances", "DEFAULT_TOLERANCES", "FIXED_STEP_METHODS",
           "ADAPTIVE_METHODS", "IMPLICIT_METHODS", "RK4", "EULER", "RK45", "DOP853", "RK23",
           "RADAU", "BDF", "LSODA", "MoreauJeanMethod", "MOREAU_JEAN", "moreau_jean",
           "TIME_STEPPING_METHODS"]

#: Default (rtol, atol) of the adaptive methods: tight for the explicit ones (DOP853 takes few
#: more steps for them, and events are located on its 7th-order dense output), looser for the
#: implicit ones used with the stiff smooth laws.
DEFAULT_TOLERANCES = {"explicit": (1e-11, 1e-13), "implicit": (1e-8, 1e-10)}


@dataclass(frozen=True, kw_only=True)
class Method:
    """One integrator of a run: what the run decides by the method.

    Parameters
    ----------
    name : str
        The name users pass (``simulate(method=name)``, ``--method``), and the name a
        ``Result`` and the error messages give.
    fixed : bool
        True: steps of the given ``dt`` on the grid ``t0 + k dt``, whose ends are the outputs
        (no step-size control, no tolerances); False: adaptive steps controlled by
        ``(rtol, atol)``, the outputs from the dense output.
    stepper : type
        The Python stepper class (the protocol in the module docstring):
        ``steppers._FixedStepper`` or ``steppers._ScipyStepper``.
    tolerances : (float, float) or None
        The default ``(rtol, atol)`` of an adaptive method (a model family may give its own:
        ``System.default_tolerances``); None for a fixed-step method.
    compiled_phase : {"dop853", "fixed"} or None
        The family's compiled phase that runs the method where the run can take one
        (``CompiledFamily.dop853`` / ``CompiledFamily.fixed``, also the key of
        ``CompiledFamily.warm``); None: the Python stepper runs every phase.
    description : str
        One line for listings.
    time_stepping : bool
        True: a time-stepping scheme that resolves impacts and friction inside its steps
        (the event loop takes its steps without the engine's event functions:
        :func:`nonsmooth.run.loop._take_time_steps`); False: an ODE integrator between
        located events.
    """

    name: str
    fixed: bool
    stepper: type
    tolerances: tuple[float, float] | None = None
    compiled_phase: str | None = None
    description: str = ""
    time_stepping: bool = False

    def __str__(self) -> str:
        return self.name

    @property
    def adaptive(self) -> bool:
        """Whether the method controls its step size by ``(rtol, atol)``."""
        return not self.fixed


@dataclass(frozen=True, kw_only=True)
class FixedStepMethod(Method):
    """A fixed-step one-step method (:class:`~nonsmooth.run.steppers._FixedStepper`).

    Parameters
    ----------
    rule : callable
        One step ``y_new = rule(rhs, t, y, f, h)`` (``f = rhs(t, y)``, ``h`` the step in s).
    stages : int
        Right-hand side evaluations per step (the evaluation budget's count of a compiled
        step): 4 for classical Runge-Kutta, 1 for explicit Euler.
    kernel_rk4 : bool
        The rule flag of the families' compiled fixed-step phase and step
        (``core.phases.fixed``: True classical RK4, False explicit Euler), used where
        ``compiled_phase`` is ``"fixed"``; a rule the kernels do not have leaves
        ``compiled_phase`` None (the Python stepper takes every step).
    """

    fixed: bool = True
    stepper: type = _FixedStepper
    rule: Callable = field(repr=False)
    stages: int
    kernel_rk4: bool = False


@dataclass(frozen=True, kw_only=True)
class ScipyMethod(Method):
    """One of scipy's adaptive ``OdeSolver`` classes stepped one step at a time
    (:class:`~nonsmooth.run.steppers._ScipyStepper`).

    Parameters
    ----------
    solver : str
        The ``scipy.integrate`` class's name (:meth:`solver_class`; imported on first use, so
        ``import nonsmooth`` does not import ``scipy.integrate``).
    implicit : bool
        An implicit solver (Radau, BDF, LSODA): the implicit default tolerances.
    projects_steps : bool
        Whether a family's projection of ``q`` may follow every accepted step (scipy's explicit
        Runge-Kutta solvers: one-step, their state between steps is ``y`` and its derivative,
        FSAL); the implicit solvers keep a history or a Newton state and are projected at a
        phase's ends only.
    """

    fixed: bool = False
    stepper: type = _ScipyStepper
    solver: str = ""
    implicit: bool = False
    projects_steps: bool = False

    def solver_class(self) -> type:
        """``scipy.integrate``'s ``OdeSolver`` subclass :attr:`solver`."""
        import scipy.integrate as integrate

        return getattr(integrate, self.solver)


@dataclass(frozen=True, kw_only=True)
class MoreauJeanMethod(Method):
    """Moreau-Jean time-stepping (:class:`~nonsmooth.run.moreau_jean.MoreauJeanStepper`): fixed
    steps ``dt`` whose impacts, contacts and friction are one impulse problem per step.

    Parameters
    ----------
    theta : float
        The theta-method's weight (-), in (0, 1]: ``q_{k+1} = q_k + h (theta v_{k+1} + (1 -
        theta) v_k)``, the forces taken at ``t_k + theta h``; 0.5 default (Siconos'
        ``BouncingBallTS``).
    facets : int
        The facets of the Coulomb cone's pyramid (>= 3; 4: along the contact's two tangents
        and their opposites; 8 default), for the ``"lemke"`` solver.
    solver : {"auto", "lemke", "nsgs"}
        The step's impulse problem's solver (:mod:`nonsmooth.run.moreau_jean`): ``"lemke"``
        one LCP on the faceted cone (certified; dense, for few contacts), ``"nsgs"`` the
        projected Gauss-Seidel on the round cone (:mod:`nonsmooth.lcp.nsgs`; free bodies, many
        contacts), ``"auto"`` (default) NSGS for more than
        :data:`~nonsmooth.run.moreau_jean.AUTO_NSGS_CONTACTS` rigid contacts where the family
        offers them as blocks, else Lemke.
    tol : float
        NSGS: the relative residual a step's sweeps reach (> 0; default 1e-4, Siconos'
        ``fc3d_nsgs`` default; :mod:`nonsmooth.lcp.nsgs`); a step that does not is warned of
        (``NSGSConvergenceWarning``: time, contacts, residual).
    max_iter : int
        NSGS: the most sweeps per step (>= 1; default 2000).
    """

    fixed: bool = True
    stepper: type = MoreauJeanStepper
    time_stepping: bool = True
    theta: float = 0.5
    facets: int = 8
    solver: str = "auto"
    tol: float = 1e-4
    max_iter: int = 2000

    def __post_init__(self):
        try:
            theta = float(self.theta)
        except (TypeError, ValueError):
            theta = math.nan
        if not (math.isfinite(theta) and 0.0 < theta <= 1.0):
            raise ValueError(f"method {self.name}: theta = {self.theta!r} is invalid; it must "
                             "be a number in (0, 1] (0.5: the trapezoidal position update, 1: "
                             "implicit Euler)")
        if isinstance(self.facets, bool) or int(self.facets) != self.facets \
                or self.facets < 3:
            raise ValueError(f"method {self.name}: facets = {self.facets!r} is invalid; it "
                             "must be an integer >= 3 (the Coulomb pyramid's facets, e.g. 4 "
                             "or 8)")
        if self.solver not in SOLVERS:
            raise ValueError(f"method {self.name}: solver = {self.solver!r} is invalid; "
                             f"choose one of {', '.join(repr(x) for x in SOLVERS)}")
        try:
            tol = float(self.tol)
        except (TypeError, ValueError):
            tol = math.nan
        if not (math.isfinite(tol) and tol > 0.0):
            raise ValueError(f"method {self.name}: tol = {self.tol!r} is invalid; it must be "
                             "a number > 0 (NSGS's relative residual, e.g. 1e-4)")
        if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, int | float) \
                or int(self.max_iter) != self.max_iter or self.max_iter < 1:
            raise ValueError(f"method {self.name}: max_iter = {self.max_iter!r} is invalid; "
                             "it must be an integer >= 1 (NSGS's sweeps per step)")

    def check_run(self, system, model_name: str, *, events=(), t_eval=None,
                  tstops=()) -> None:
        """Refuse, before the run, what the scheme does not take yet
        (:func:`nonsmooth.run.moreau_jean.check_model`)."""
        check_model(system, model_name, events=events, t_eval=t_eval, tstops=tstops)


def _scipy(name: str, *, implicit: bool = False, compiled_phase: str | None = None,
           description: str = "") -> ScipyMethod:
    kind = "implicit" if implicit else "explicit"
    return ScipyMethod(name=name, solver=name, implicit=implicit, projects_steps=not implicit,
                       tolerances=DEFAULT_TOLERANCES[kind], compiled_phase=compiled_phase,
                       description=description)


RK4 = FixedStepMethod(name="RK4", rule=_rk4_step, stages=4, kernel_rk4=True,
                      compiled_phase="fixed",
                      description="classical Runge-Kutta, 4th order, fixed step dt")
EULER = FixedStepMethod(name="Euler", rule=_euler_step, stages=1, kernel_rk4=False,
                        compiled_phase="fixed",
                        description="explicit Euler, 1st order, fixed step dt")
RK45 = _scipy("RK45", description="Dormand-Prince 5(4), adaptive (scipy)")
DOP853 = _scipy("DOP853", compiled_phase="dop853",
                description="Dormand-Prince 8(5,3), adaptive, 7th-order dense output "
                            "(compiled for planar, spatial and compiled generalized models)")
RK23 = _scipy("RK23", description="Bogacki-Shampine 3(2), adaptive (scipy)")
RADAU = _scipy("Radau", implicit=True, description="Radau IIA, 5th order, implicit (scipy)")
BDF = _scipy("BDF", implicit=True, description="backward differentiation formulas, implicit "
                                               "(scipy)")
LSODA = _scipy("LSODA", implicit=True, description="Adams/BDF with stiffness switching "
                                                   "(scipy)")

MOREAU_JEAN = MoreauJeanMethod(name="MoreauJean",
                               description="Moreau-Jean time-stepping, theta-method, fixed "
                                           "step dt, rigid contacts' impulses per step")


def moreau_jean(theta: float = 0.5, facets: int = 8, solver: str = "auto",
                tol: float = 1e-4, max_iter: int = 2000) -> MoreauJeanMethod:
    """Moreau-Jean time-stepping with other options than :data:`MOREAU_JEAN`'s, for
    ``simulate(model, t_end, method=moreau_jean(theta=1.0), dt=h)``.

    Parameters
    ----------
    theta : float
        The theta-method's weight (-), in (0, 1] (default 0.5).
    facets : int
        The Coulomb pyramid's facets, >= 3 (default 8; the ``"lemke"`` solver's).
    solver : {"auto", "lemke", "nsgs"}
        The impulse problem's solver (:class:`MoreauJeanMethod`; default ``"auto"``: NSGS
        above :data:`~nonsmooth.run.moreau_jean.AUTO_NSGS_CONTACTS` rigid contacts of free
        bodies, else Lemke).
    tol : float
        NSGS's relative residual per step (default 1e-4).
    max_iter : int
        NSGS's most sweeps per step (default 2000).

    Raises
    ------
    ValueError
        ``theta`` outside (0, 1], fewer than 3 facets, an unknown solver, ``tol <= 0``,
        ``max_iter < 1``.
    """
    return MoreauJeanMethod(name="MoreauJean", description=MOREAU_JEAN.description,
                            theta=theta, facets=facets, solver=solver, tol=tol,
                            max_iter=max_iter)


#: The integrators by name (the names ``simulate(method=...)`` and ``--method`` accept), in
#: the order the error messages list them: the fixed-step methods, the adaptive ones, then
#: the time-stepping schemes.
METHODS: dict[str, Method] = {m.name: m for m in (RK4, EULER, RK45, DOP853, RK23, RADAU, BDF,
                                                   LSODA, MOREAU_JEAN)}

#: The names of the fixed-step ODE methods (the ``dt`` grid), of the adaptive ones and of the
#: implicit ones among them, in :data:`METHODS`'s order.
FIXED_STEP_METHODS = tuple(name for name, m in METHODS.items()
                           if m.fixed and not m.time_stepping)
ADAPTIVE_METHODS = tuple(name for name, m in METHODS.items() if not m.fixed)
IMPLICIT_METHODS = tuple(name for name, m in METHODS.items() if getattr(m, "implicit", False))
#: The time-stepping schemes (impacts and friction resolved inside their steps of ``dt``).
TIME_STEPPING_METHODS = tuple(name for name, m in METHODS.items() if m.time_stepping)


def method_for(method: str | Method) -> Method:
    """The :class:`Method` named ``method`` in :data:`METHODS`, or ``method`` itself when it
    is one (an integrator not registered under its name may be passed as an object).

    Raises
    ------
    UnknownMethodError
        ``method`` names no registered integrator (the message lists the valid names; names
        are case-sensitive).
    """
    if isinstance(method, Method):
        return method
    found = METHODS.get(method) if isinstance(method, str) else None
    if found is None:
        raise UnknownMethodError(f"unknown method {method!r}; choose one of "
                                 f"{', '.join(METHODS)}")
    return found


def default_method(smooth: bool) -> Method:
    """``simulate``'s method when none is given: :data:`DOP853` (adaptive, 8th order, the
    compiled phase) with set-valued Coulomb friction only; :data:`RADAU` (implicit) as soon
    as a pair uses a smooth law (``smooth``: LuGre's bristles and steep regularizations are
    stiff)."""
    return RADAU if smooth else DOP853


def default_tolerances(system, method: str | Method) -> tuple[float, float]:
    """The default ``(rtol, atol)`` of ``method`` for ``system``: its family's own
    (``System.default_tolerances(name)``, the model-family contract's obligation 11), else the
    method's (:attr:`Method.tolerances`; a fixed-step method, which has none, the explicit
    ones of :data:`DEFAULT_TOLERANCES`: unused by its steps)."""
    method = method_for(method)
    own = system.default_tolerances(method.name)
    if own is not None:
        return own
    return method.tolerances or DEFAULT_TOLERANCES["explicit"]
