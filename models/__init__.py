"""Benchmark models (installed as ``nonsmooth.models``).

Each module has ``NAME``, ``DESCRIPTION``, ``PARAMETERS`` (list of
:class:`nonsmooth.model.Parameter`) and ``build(**params) -> nonsmooth.Model``.

:func:`build` builds any of them, or a user's model file, from parameter values given as text
(the command line's ``--set NAME=VALUE``) or numbers, and turns every mistake in the file or the
values into a :class:`~nonsmooth.errors.ModelError` that names the file and the parameter.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import inspect
import math
import pkgutil
from pathlib import Path
from types import ModuleType

from nonsmooth.errors import ModelError

__all__ = ["available", "load", "build"]


def available() -> list[str]:
    """Names of the bundled models."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name_or_path: str) -> ModuleType:
    """The model module for a bundled name (``crank_rocker`` or ``crank-rocker``), a path to
    a Python file defining ``build(**params)``, or a MotionSolve ``.xml`` file."""
    text = str(name_or_path)
    if text.lower().endswith(".xml"):  # a MotionSolve model (planar subset)
        from nonsmooth.io.motionsolve import motionsolve_module

        bundled = Path(__file__).with_name(Path(text).name)
        if not Path(text).is_file() and bundled.is_file() and bundled.stem in available():
            raise ModelError(f"MotionSolve file {text} does not exist here; the bundled file "
                             f"{bundled.name} is the model {bundled.stem}: run it by name "
                             f"(nonsmooth run {bundled.stem}), or copy {bundled} to edit it")
        return motionsolve_module(text)
    if text.endswith(".py") or "/" in text or "\\" in text:
        return _load_file(text)
    key = text.replace("-", "_")
    if key not in available():
        raise ModelError(f"unknown model {text!r}; available models: {', '.join(available())} "
                         "(or give the path of a .py file)")
    return importlib.import_module(f"{__name__}.{key}")


def _load_file(text: str) -> ModuleType:
    path = Path(text)
    if not path.is_file():
        raise ModelError(f"model file {text} does not exist (or is not a file); give a model "
                         f"name ({', '.join(available())}) or the path of a .py file")
    if path.suffix.lower() != ".py":
        raise ModelError(f"model file {text} is neither a Python (.py) nor a MotionSolve (.xml) "
                         "file; a model file is a .py file that defines build(**params)")
    try:
        loader = importlib.machinery.SourceFileLoader(f"nonsmooth_user_model_{path.stem}",
                                                      str(path))
        spec = importlib.util.spec_from_loader(loader.name, loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    except (OSError, SyntaxError, ImportError, UnicodeDecodeError) as exc:
        raise ModelError(f"model file {text} could not be read: "
                         f"{type(exc).__name__}: {exc}") from None
    except SystemExit as exc:
        raise ModelError(f"model file {text} called sys.exit({exc.code!r}) while being "
                         "imported; a model file must only define build(**params)") from None
    except Exception as exc:
        raise ModelError(f"model file {text} raised {type(exc).__name__} while being imported: "
                         f"{exc}{_line(exc, path)}") from None
    if not callable(getattr(module, "build", None)):
        raise ModelError(f"model file {text} defines no build(**params) function")
    params = getattr(module, "PARAMETERS", None)
    if params is not None:
        from nonsmooth.model import Parameter

        if not isinstance(params, (list, tuple)) or not all(
                isinstance(p, Parameter) for p in params):
            raise ModelError(f"model file {text}: PARAMETERS must be a list of "
                             "nonsmooth.model.Parameter (name, default, unit, description, ...), "
                             f"got {type(params).__name__}")
    return module


def _line(exc: BaseException, path: Path) -> str:
    """`` (line N)`` of the deepest traceback frame in ``path``, if any."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line else ""


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _convert(where: str, name: str, value, default):
    """``value`` (text from the command line, or a number) as the type of ``default``."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    kind = type(default) if default is not None and default is not inspect.Parameter.empty \
        else None
    if kind is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise ModelError(f"{where}: parameter {name} = {text!r} is not a truth value; give one "
                         "of true, false, 1, 0, yes, no")
    if kind is str:
        return text
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ModelError(f"{where}: parameter {name} = {text!r} is not an integer") from None
    try:
        number = int(text) if kind is None and text.lstrip("+-").isdigit() else float(text)
    except ValueError:
        if kind is None:
            raise ModelError(
                f"{where}: parameter {name} = {text!r}: build() gives {name} no default, so its "
                "type is unknown and only numbers are accepted; give it a default value in "
                "build() (its type is then used) or a PARAMETERS table") from None
        raise ModelError(f"{where}: parameter {name} = {text!r} is not a number") from None
    if isinstance(number, float) and not math.isfinite(number):
        raise ModelError(f"{where}: parameter {name} = {text!r} must be a finite number")
    return number


def _convert_for_build(where: str, fn, given: dict) -> dict:
    """Convert text values by the type of ``fn``'s defaults; refuse names it does not take."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return dict(given)
    named = {k: p for k, p in sig.parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    takes_any = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
    out = {}
    for name, value in given.items():
        if name not in named and not takes_any:
            valid = ", ".join(named) or "none"
            raise ModelError(f"{where}: build() has no parameter {name}; its parameters: {valid}")
        default = named[name].default if name in named else None
        out[name] = _convert(where, name, value, default)
    return out


def build(name_or_path: str, **params):
    """Build a bundled model or a model file with ``params`` (text or numbers).

    With a ``PARAMETERS`` table the values are converted and range-checked by it; without one
    they are converted by the type of ``build()``'s defaults (float, int, bool, str; a parameter
    without a default accepts numbers only). Whatever ``build()`` returns (a ``Model``, a
    ``PlanarModel`` or a ``System`` with initial state) comes back as a
    :class:`nonsmooth.Model`. Every failure is a ``ModelError`` naming the file.
    """
    from nonsmooth import model as _model
    from nonsmooth.model import as_model, check_parameters
    from nonsmooth.system import System

    module = load(name_or_path)
    where = f"model {getattr(module, 'NAME', name_or_path)}"
    if getattr(module, "PARAMETERS", None) is not None:
        checked = check_parameters(getattr(module, "NAME", str(name_or_path)),
                                   module.PARAMETERS, params)
        aliases = getattr(_model, "PARAMETER_ALIASES", {})
        given = {aliases.get(k, k) for k in params} & set(checked)
        params = {k: checked[k] for k in given}  # converted and range-checked
    else:
        params = _convert_for_build(where, module.build, params)
    try:
        built = module.build(**params)
    except ModelError:
        raise
    except SystemExit as exc:
        raise ModelError(f"{where}: build() called sys.exit({exc.code!r})") from None
    except Exception as exc:
        file = getattr(module, "__file__", None)
        line = _line(exc, Path(file)) if file else ""
        raise ModelError(f"{where}: build() raised {type(exc).__name__}: {exc}{line}") from None
    from nonsmooth.planar.model import PlanarModel

    if isinstance(built, System) and not isinstance(built, PlanarModel):
        raise ModelError(f"{where}: build() returned a bare {type(built).__name__}; return a "
                         "nonsmooth.Model (system with q0, v0) or a PlanarModel")
    try:
        return as_model(built)
    except ModelError as exc:
        raise ModelError(f"{where}: build() returned {type(built).__name__}, not a model: "
                         f"{exc}") from None
