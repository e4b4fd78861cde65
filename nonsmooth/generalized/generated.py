"""Kernels generated for a model's own compiled functions (``docs/fast_core.md``).

A :class:`~nonsmooth.system.GeneralizedSystem` is written as Python callables; each evaluation
calls them from Python (about 7 us for the two-coordinate crank-rocker). Its author may also
give the same terms as one numba function (:class:`CompiledTerms`); the engine then evaluates
the system in one compiled call: the model's function and the acceleration stage together.

A numba function cannot be passed into a cached kernel as an argument (each process would
compile the kernel again, ~3 s, and the call measured 6 us). So the kernel is generated: a
small module that imports the model's function by name and calls the inlined
:func:`_evaluate_with` on it, written once to a cache folder under a name made from a hash of
the model's source file and of this package's kernel sources (an edit of either writes a new
module), and compiled by numba with ``cache=True`` like the package's own kernels: a new process
loads it. The first use of a model on a machine compiles it (about 35 s with its fixed-step
phase for the crank-rocker, announced on stderr). The module also instantiates the compiled
fixed-step phase (:mod:`nonsmooth.core.phases.fixed`) and the compiled DOP853 phase
(:mod:`nonsmooth.core.phases.dop853`) around the model's terms, and a batch evaluation of the
outputs, which ``simulate`` uses for RK4, Euler and its adaptive default.

The model's function has the signature::

    terms(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias) -> (P_applied, P_damping)

filling the zeroed arrays ``M (n, n), f (n,), phi, phi_t, gamma (m,), G (m, n), W (p, n)`` and
``bias (p,)`` (``(dW/dt) v``) as :meth:`GeneralizedSystem.terms` and
:meth:`GeneralizedSystem.tangential_bias` return them, from the parameter vector ``par``; it
returns the applied and the damping power (W). ``simulate`` checks it against the callables at
the initial state (:meth:`GeneralizedSystem.check_compiled`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from .. import compile_notice, prebuilt  # kernels: the shipped cache seeded
from ..core import stage
from ..core.layout import H_K, H_M, H_N, H_NZ, H_P
from ..errors import ModelError

__all__ = ["CompiledTerms", "kernel_module"]


@dataclass(frozen=True)
class CompiledTerms:
    """A system's terms as one numba function (signature in the module docstring).

    Attributes
    ----------
    function : numba dispatcher
        ``@njit(cache=True)`` at the top level of an importable module (a model file).
    parameters : ndarray, shape (n_par,)
        The ``par`` it reads (the model's numbers, SI).
    potential : numba dispatcher, optional
        ``potential(t, q, par) -> V`` (J), the system's potential energy, likewise: the
        compiled fixed-step phase's recorded rows then get their energy without Python.
    """

    function: object
    parameters: np.ndarray
    potential: object = None

    def __post_init__(self):
        for fn in (self.function, self.potential):
            if fn is not None:
                _check_function(fn)
        par = np.ascontiguousarray(self.parameters, dtype=float)
        if par.ndim != 1 or not np.all(np.isfinite(par)):
            raise ModelError("compiled terms: parameters must be a 1-D array of finite numbers")
        object.__setattr__(self, "parameters", par)


def _check_function(fn) -> None:
    """A numba function at the top level of an imported module, or ModelError."""
    if not (hasattr(fn, "py_func") and hasattr(fn, "signatures")):
        raise ModelError(f"compiled terms: {fn!r} is not a numba function; decorate it with "
                         "@numba.njit(cache=True) at the top level of the model file")
    name, module = fn.py_func.__name__, sys.modules.get(fn.py_func.__module__)
    if module is None or getattr(module, name, None) is not fn:
        raise ModelError(f"compiled terms: {fn.py_func.__qualname__} must be defined at the top "
                         "level of an imported module (the generated kernel imports it by name)")


def small_stage(n: int, m: int, p: int) -> bool:
    """Whether every KKT system of a model with ``n`` velocities, ``m`` constraint rows and
    ``p`` scalar pairs fits the in-kernel LU (``n + m + p <= core.stage.SMALL_LU``, all pairs
    sticking): its generated module then compiles no Delassus solve."""
    return n + m + p <= stage.SMALL_LU


@njit(cache=True, inline="always")
def _evaluate_with(terms, par, plan, Wt, t, q, v, z, modes, faces, out, sw, iw, large):
    """The model's ``terms`` then the acceleration stage (inlined into the generated kernel,
    where ``terms`` is a known function), runtime-free in the stage workspace ``sw, iw``
    (``core.stage.stage_workspace``).
    Returns the stage's status (``GENERAL`` where the stage needs LAPACK: the caller takes the
    engine's general path for that evaluation, and the allocating stage is not compiled into
    every kernel of every model), or ``NONFINITE`` for a non-finite term. The pairs are
    scalar (a model with vector pairs takes no generated module); ``large`` None: the KKT
    systems fit the in-kernel LU (:func:`small_stage`). Each is one compilation of the stage
    without the code the model cannot reach (``core.stage._stage_into``)."""
    n, m, p = int(plan[H_N]), int(plan[H_M]), int(plan[H_P])
    M = np.zeros((n, n))
    f = np.zeros(n)
    phi = np.zeros(m)
    phi_t = np.zeros(m)
    G = np.zeros((m, n))
    gamma = np.zeros(m)
    W = np.zeros((p, n))
    bias = np.zeros(p)
    P_applied, P_damping = terms(t, q, v, par, M, f, phi, phi_t, G, gamma, W, bias)
    if not (np.all(np.isfinite(f)) and np.all(np.isfinite(G)) and np.all(np.isfinite(W))
            and np.isfinite(P_applied) and np.isfinite(P_damping)):
        return stage.NONFINITE
    if large is None:
        return stage._stage_into(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping,
                                 plan, Wt, v, z, modes, faces, out, sw, iw, None, None)
    return stage._stage_into(M, f, phi, phi_t, G, gamma, W, bias, P_applied, P_damping, plan,
                             Wt, v, z, modes, faces, out, sw, iw, None)


_SOURCE = '''"""Generated by nonsmooth.generalized for {qualname} of {module}: do not edit."""
import sys

from numba import njit

from nonsmooth.core.layout import H_K, H_M, H_N, H_NZ, H_P
from nonsmooth.core.phases.dop853 import dense_g, dop853_phase_with, no_grazing
from nonsmooth.core.phases.fixed import fixed_phase_with, hermite_g
from nonsmooth.generalized.generated import _evaluate_with
from nonsmooth.core.stage import _derivative, stage_workspace, state_offsets

_terms = getattr(sys.modules[{module!r}], {name!r})
_LARGE = {large}  # None: every KKT system fits the in-kernel LU (generated.small_stage)


@njit(cache=True)
def evaluate(par, plan, Wt, t, q, v, z, modes, faces, out):
    sw, iw = stage_workspace(plan)
    return _evaluate_with(_terms, par, plan, Wt, t, q, v, z, modes, faces, out, sw, iw, _LARGE)


@njit(cache=True)
def rhs(ctx, t, y, modes, faces, out, dy):
    par, plan, Wt, sw, iw = ctx
    n, n_z = int(plan[H_N]), int(plan[H_NZ])
    o_v, o_work, o_z = state_offsets(n, n)  # y = [q | v | work | z] (core.layout)
    status = _evaluate_with(_terms, par, plan, Wt, t, y[:o_v], y[o_v:o_work], y[o_z:o_z + n_z],
                            modes, faces, out, sw, iw, _LARGE)
    if status == 0:
        _derivative(y, out, dy, n, int(plan[H_M]), int(plan[H_P]), int(plan[H_K]), n_z)
    return status


@njit(cache=True)
def g_at(t, args):
    return hermite_g(rhs, t, args, None)  # (scalar pairs only)


@njit(cache=True)
def fixed_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, steps, grid, istate,
                fstate, y, f, g, fired, T_out, Y_out, O_out):
    return fixed_phase_with(rhs, g_at, ctx, plan, modes, faces, kinds, index, direction, mu_s,
                             steps, grid, istate, fstate, y, f, g, fired, T_out, Y_out, O_out,
                             None)


@njit(cache=True)
def evaluate_batch(par, plan, Wt, ts, Q, V, Z, modes, faces, out):
    sw, iw = stage_workspace(plan)
    for r in range(ts.size):
        status = _evaluate_with(_terms, par, plan, Wt, ts[r], Q[r], V[r], Z[r], modes, faces,
                                out[r], sw, iw, _LARGE)
        if status != 0:
            return r, status
    return -1, 0


@njit(cache=True)
def dop853_rhs(ctx, t, y, modes, faces, out, dy):
    plan = ctx[1]  # the extended plan: the time clamp at its end
    return rhs(ctx, min(t, plan[plan.size - 1]), y, modes, faces, out, dy)


@njit(cache=True)
def dop853_g_at(t, args):
    return dense_g(dop853_rhs, t, args, None)


@njit(cache=True)
def dop853_phase(ctx, plan, modes, faces, kinds, index, direction, mu_s, control, atol, grid, k0,
                 state, y, f, g, fired, Y_out, limits, tableau, out):
    return dop853_phase_with(dop853_rhs, dop853_g_at, no_grazing, False, ctx, plan, modes, faces,
                             kinds, index, direction, mu_s, control, atol, grid, k0, state, y, f,
                             g, fired, Y_out, limits, tableau, out, None)
'''

_POTENTIAL = '''

_potential = getattr(sys.modules[{module!r}], {name!r})


@njit(cache=True)
def potentials(par, times, Y, n, V):
    for r in range(times.size):
        V[r] = _potential(times[r], Y[r, :n], par)
'''

_LOADED: dict[str, object] = {}


def _folder() -> Path:
    """Where the generated modules (and numba's cache of them) live: beside numba's cache
    when ``NUMBA_CACHE_DIR`` is set, else the user's cache folder."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME")
    root = Path(base) if base else Path.home() / ".cache"
    return root / "nonsmooth_generated"


def _key(fn, potential=None, small=False) -> str:
    """A hash of the model's source file and of the kernel sources the module inlines, and
    whether its stage is the small one (:func:`small_stage`)."""
    digest = hashlib.sha256(b"small" if small else b"")
    from .. import core

    core_sources = sorted(Path(core.__file__).parent.rglob("*.py"))
    for path in (inspect.getsourcefile(fn.py_func), __file__, *core_sources):
        digest.update(Path(path).read_bytes())
    digest.update(fn.py_func.__qualname__.encode())
    if potential is not None:
        digest.update(Path(inspect.getsourcefile(potential.py_func)).read_bytes())
        digest.update(potential.py_func.__qualname__.encode())
    return digest.hexdigest()[:20]


def _write(folder: Path, key: str, source: str) -> Path:
    """The generated module's file (written once; atomically, for concurrent processes)."""
    path = folder / f"nonsmooth_gen_{key}.py"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{path.name}.{os.getpid()}"
        tmp.write_text(source)
        os.replace(tmp, path)
    return path


def kernel_module(terms: CompiledTerms, plan: np.ndarray, Wt: np.ndarray):
    """The generated module of ``terms.function`` (its ``evaluate(par, plan, Wt, t, q, v, z,
    modes, faces, out)``, ``kernels.planar_evaluate``'s layout and statuses), written and
    loaded once per process, compiled once per machine (the bundled models' modules ship
    compiled, :mod:`nonsmooth.prebuilt`; a compilation is announced on stderr when numba
    starts it, :mod:`nonsmooth.compile_notice`)."""
    fn, potential = terms.function, terms.potential
    n, m, p, k = int(plan[H_N]), int(plan[H_M]), int(plan[H_P]), int(plan[H_K])
    small = small_stage(n, m, p)
    key = _key(fn, potential, small)
    if key in _LOADED:
        return _LOADED[key]
    source = _SOURCE.format(qualname=fn.py_func.__qualname__, module=fn.py_func.__module__,
                            name=fn.py_func.__name__, large="None" if small else "True")
    if potential is not None:
        source += _POTENTIAL.format(module=potential.py_func.__module__,
                                    name=potential.py_func.__name__)
    try:
        path = _write(_folder(), key, source)
    except OSError:  # the cache folder is not writable: the temporary folder
        import tempfile

        path = _write(Path(tempfile.gettempdir()) / "nonsmooth_generated", key, source)
    name = f"nonsmooth_gen_{key}"
    model_function = f"{fn.py_func.__module__}.{fn.py_func.__qualname__}"
    compile_notice.watch(name, model_function)
    compile_notice.watch(fn.py_func.__module__, model_function)
    prebuilt.seed(prebuilt.GENERATED, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    # compiled (or loaded) now, with the argument types the engine passes
    out = np.empty(stage.evaluation_layout(n, m, p, k, False, int(plan[H_NZ]))["size"])
    try:
        module.evaluate(terms.parameters, plan, Wt, 0.0, np.zeros(n), np.zeros(n),
                        np.zeros(int(plan[H_NZ])), np.ones(p), np.ones(k), out)
    except (ArithmeticError, ValueError, np.linalg.LinAlgError):
        pass  # the model's functions at an arbitrary state: compiled all the same
    _LOADED[key] = module
    return module
