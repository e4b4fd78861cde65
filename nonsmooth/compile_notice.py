"""One line on stderr exactly when numba compiles a kernel of nonsmooth's, never when it loads
one from its on-disk cache (issue 18: "the notice is printed exactly when numba compiles").

numba broadcasts a ``"numba:compile"`` event around every compilation of a dispatcher that was
not found in its cache (``numba.core.event``; a cache hit broadcasts nothing). A listener
registered once per process (:func:`install`) sees whose function it is: the package's own
kernels (a module of ``nonsmooth``), a generated kernel module of a model's compiled terms
(``nonsmooth_gen_*``, :mod:`nonsmooth.generated`), or a model's own compiled terms
(:func:`watch`). Each of the three is announced once per process, at the start of its first
compilation; everything else (a user's own numba code, the object-mode blocks by which a kernel
calls a model's Python functions: numba compiles those in every process, in milliseconds) is
left alone.

The notice goes to ``sys.stderr`` (``nonsmooth: compiling ...``), so it never mixes with a
command's output; :func:`quiet` silences it (the test suite's set-up, which pytest reports).
"""

from __future__ import annotations

import sys

#: The compiled terms watched (module name -> the function's dotted name, for the notice).
_WATCHED: dict[str, str] = {}
_SAID: set[str] = set()
_STATE = {"installed": False, "quiet": False}

PACKAGE = ("nonsmooth: compiling the kernels (once per machine and numba version; about a "
           "minute) ...")
MODEL = ("nonsmooth: compiling the kernel of {name} (once per machine for this model; about "
         "30 s) ...")


def _kind(module: str) -> tuple[str, str] | None:
    """The notice a compilation of a function of ``module`` gets (its key and text), or None."""
    if module.startswith("nonsmooth_gen_"):
        return module, MODEL.format(name=_WATCHED.get(module, "a model's compiled terms"))
    if module in _WATCHED:
        return module, MODEL.format(name=_WATCHED[module])
    if module == "nonsmooth" or module.startswith("nonsmooth."):
        return "nonsmooth", PACKAGE
    return None


def _announce(dispatcher) -> None:
    from numba.core.dispatcher import LiftedCode

    if isinstance(dispatcher, LiftedCode):
        # an object-mode block (a kernel's call back into Python): numba cannot cache it and
        # compiles it in every process, in ~50 ms; not the compilation the notice is about
        return
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    kind = _kind(module)
    if kind is None or kind[0] in _SAID:
        return
    _SAID.add(kind[0])
    if not _STATE["quiet"]:
        print(kind[1], file=sys.stderr, flush=True)


def install() -> None:
    """Register the listener of numba's compile events (once per process)."""
    if _STATE["installed"]:
        return
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            _announce(ev.data.get("dispatcher") if isinstance(ev.data, dict) else None)

        def on_end(self, ev):
            pass

    event.register("numba:compile", Listener())
    _STATE["installed"] = True


def watch(module: str, name: str) -> None:
    """Announce compilations of ``module`` (a generated module or a model's compiled terms) as
    the kernel of the model function ``name``."""
    _WATCHED[module] = name


def quiet(on: bool = True) -> None:
    """Silence the notices (``True``) or let them print again (``False``)."""
    _STATE["quiet"] = on


def announced() -> set[str]:
    """The notices printed (or silenced) so far in this process, by key."""
    return set(_SAID)
