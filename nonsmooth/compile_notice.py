"""One line on stderr exactly when numba compiles a kernel of nonsmooth's, never when it loads
one from its on-disk cache (issue 18: "the notice is printed exactly when numba compiles").

numba broadcasts a ``"numba:compile"`` event around every compilation of a dispatcher that was
not found in its cache (``numba.core.event``; a cache hit broadcasts nothing). A listener
registered once per process (:func:`install`) sees whose function it is: the package's own
kernels (a module of ``nonsmooth``), a generated kernel module of a model's compiled terms
(``nonsmooth_gen_*``, :mod:`nonsmooth.generalized.generated`), or a model's own compiled terms
(:func:`watch`). Each of the three is announced once per process, at the start of its first
compilation; everything else (a user's own numba code, the object-mode blocks by which a kernel
calls a model's Python functions: numba compiles those in every process, in milliseconds) is
left alone.

The notice goes to ``sys.stderr`` (``nonsmooth: compiling ...``), so it never mixes with a
command's output; :func:`quiet` silences it, and so does the environment variable
``NONSMOOTH_QUIET_COMPILE=1`` for every process that inherits it (the test suite sets it: a
test's output must not depend on whether numba's cache was warm).
"""

from __future__ import annotations

import os
import sys

#: The compiled terms watched (module name -> the function's dotted name, for the notice).
_WATCHED: dict[str, str] = {}
_SAID: set[str] = set()
_STATE = {"installed": False,
          "quiet": os.environ.get("NONSMOOTH_QUIET_COMPILE", "") not in ("", "0"),
          "seconds": 0.0}

PACKAGE = ("nonsmooth: compiling the kernels this run needs (once per machine and numba "
           "version; cached on disk) ...")
MODEL = ("nonsmooth: compiling the kernel of {name} (once per machine for this model; about "
         "half a minute) ...")


def _kind(module: str) -> tuple[str, str] | None:
    """The notice a compilation of a function of ``module`` gets (its key and text), or None."""
    if module.startswith("nonsmooth_gen_"):
        return module, MODEL.format(name=_WATCHED.get(module, "a model's compiled terms"))
    if module in _WATCHED:
        return module, MODEL.format(name=_WATCHED[module])
    if module == "nonsmooth" or module.startswith("nonsmooth."):
        return "nonsmooth", PACKAGE
    return None


def _dispatcher_kind(dispatcher) -> tuple[str, str] | None:
    from numba.core.dispatcher import LiftedCode

    if isinstance(dispatcher, LiftedCode):
        # an object-mode block (a kernel's call back into Python): numba cannot cache it and
        # compiles it in every process, in ~50 ms; not the compilation the notice is about
        return None
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    return _kind(module)


def _announce(dispatcher) -> None:
    kind = _dispatcher_kind(dispatcher)
    if kind is None or kind[0] in _SAID:
        return
    _SAID.add(kind[0])
    if not _STATE["quiet"]:
        print(kind[1], file=sys.stderr, flush=True)


#: The compilations under way (numba compiles a kernel's callees inside its own compilation):
#: the outermost one's function and start time, for the progress line.
_OPEN: list[tuple[object, float]] = []


def _started(dispatcher) -> None:
    import time

    _announce(dispatcher)
    _OPEN.append((dispatcher, time.perf_counter()))


def _ended(dispatcher) -> None:
    """The progress line: each outermost compilation of one of nonsmooth's kernels, with its
    time (what a first run is spending its time on)."""
    import time

    if not _OPEN:
        return
    started, start = _OPEN.pop()
    if not _OPEN:  # an outermost compilation, whoever's: its time does not count as a run's
        _STATE["seconds"] += time.perf_counter() - start
    if _OPEN or _STATE["quiet"] or _dispatcher_kind(started) is None:
        return
    name = getattr(getattr(started, "py_func", None), "__qualname__", "a kernel")
    print(f"nonsmooth:   compiled {name} ({time.perf_counter() - start:.1f} s)",
          file=sys.stderr, flush=True)


def install() -> None:
    """Register the listener of numba's compile events (once per process)."""
    if _STATE["installed"]:
        return
    from numba.core import event

    def dispatcher(ev):
        return ev.data.get("dispatcher") if isinstance(ev.data, dict) else None

    class Listener(event.Listener):
        def on_start(self, ev):
            _started(dispatcher(ev))

        def on_end(self, ev):
            _ended(dispatcher(ev))

    event.register("numba:compile", Listener())
    _STATE["installed"] = True


def watch(module: str, name: str) -> None:
    """Announce compilations of ``module`` (a generated module or a model's compiled terms) as
    the kernel of the model function ``name``."""
    _WATCHED[module] = name


def quiet(on: bool = True) -> None:
    """Silence the notices (``True``) or let them print again (``False``)."""
    _STATE["quiet"] = on


def compile_seconds() -> float:
    """Wall time (s) this process has spent in numba's compilations so far (the outermost
    ones, of any function; a cache load is not one): a run's wall-clock budget leaves it out
    (``run.state``), so that a first run on a new machine is not cut short by compiling."""
    return _STATE["seconds"]


def announced() -> set[str]:
    """The notices printed (or silenced) so far in this process, by key."""
    return set(_SAID)
