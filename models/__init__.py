"""Benchmark models (installed as ``nonsmooth.models``).

Each module has ``NAME``, ``DESCRIPTION``, ``PARAMETERS`` (list of
:class:`nonsmooth.model.Parameter`) and ``build(**params) -> nonsmooth.Model``.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from pathlib import Path
from types import ModuleType

from nonsmooth.errors import ModelError

__all__ = ["available", "load"]


def available() -> list[str]:
    """Names of the bundled models."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name_or_path: str) -> ModuleType:
    """The model module for a bundled name (``crank_rocker`` or ``crank-rocker``), a path to
    a Python file defining ``build(**params)``, or a MotionSolve ``.xml`` file."""
    text = str(name_or_path)
    if text.lower().endswith(".xml"):  # a MotionSolve model (planar subset)
        from nonsmooth.io.motionsolve import motionsolve_module

        return motionsolve_module(text)
    if text.endswith(".py") or "/" in text or "\\" in text:
        path = Path(text)
        if not path.is_file():
            raise ModelError(f"model file {text} does not exist (or is not a file); give a model "
                             f"name ({', '.join(available())}) or the path of a .py file")
        try:
            spec = importlib.util.spec_from_file_location(f"nonsmooth_user_model_{path.stem}",
                                                          path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except (OSError, SyntaxError, ImportError) as exc:
            raise ModelError(f"model file {text} could not be read: "
                             f"{type(exc).__name__}: {exc}") from None
        if not callable(getattr(module, "build", None)):
            raise ModelError(f"model file {text} defines no build(**params) function")
        return module
    key = text.replace("-", "_")
    if key not in available():
        raise ModelError(f"unknown model {text!r}; available models: {', '.join(available())} "
                         "(or give the path of a .py file)")
    return importlib.import_module(f"{__name__}.{key}")
