"""The entry points: a MotionSolve XML file or text to a runnable :class:`nonsmooth.Model`,
and a model module for :func:`nonsmooth.models.load` (``nonsmooth run model.xml``).

:func:`load_motionsolve` and :func:`loads_motionsolve` read (:mod:`.reader`) and build
(:mod:`.builder`); :func:`motionsolve_module` reads and checks the file at once and builds on
each ``build()``.

Reference: Altair MotionSolve Reference Guide, XML format.
"""

from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING

from ...errors import ModelError
from .reader import Reader, read_motionsolve

if TYPE_CHECKING:
    from ...model import Model

__all__ = ["load_motionsolve", "loads_motionsolve", "motionsolve_module"]


def loads_motionsolve(text: str | bytes, name: str = "motionsolve_model") -> Model:
    """:func:`load_motionsolve` for XML given as a string."""
    return Reader(text, f"<{name}>", name).read().build()


def load_motionsolve(path) -> Model:
    """Read a MotionSolve XML model and return a runnable :class:`nonsmooth.Model`.

    Raises :class:`~nonsmooth.errors.ModelError` (one line naming the element and its id) for
    malformed XML, missing references, unsupported elements and non-planar models.
    """
    return read_motionsolve(path).build()


def motionsolve_module(path) -> types.ModuleType:
    """A model module (``NAME``, ``DESCRIPTION``, ``PARAMETERS = []``, ``build()``) for
    :func:`nonsmooth.models.load`; the file is read (and checked) now."""
    info = read_motionsolve(path)
    module = types.ModuleType(f"nonsmooth_motionsolve_{re.sub(r'[^0-9a-zA-Z_]', '_', info.name)}")
    module.__file__ = str(path)
    module.NAME = info.name
    module.DESCRIPTION = info.description()
    module.PARAMETERS = []

    def build(**params):
        if params:
            raise ModelError(f"model {info.name}: unknown parameter(s) {', '.join(params)}; a "
                             "MotionSolve model has no parameters (edit the XML file)")
        return read_motionsolve(path).build()

    module.build = build
    return module
