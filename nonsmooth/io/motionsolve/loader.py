"""The entry points: a MotionSolve XML file or text to a runnable :class:`nonsmooth.Model`,
and a model module for :func:`nonsmooth.models.load` (``nonsmooth run model.xml``).

:func:`load_motionsolve` and :func:`loads_motionsolve` read (:mod:`.reader`) and build
(:mod:`.builder`, :mod:`.spatial_builder`); :func:`motionsolve_module` reads and checks the file
at once and builds on each ``build()``.

``family`` (:mod:`.reader`): ``"auto"`` (the default: planar when the model is planar, else
spatial, so ``nonsmooth run model.xml`` runs a spatial file too), ``"planar"`` (the planar
subset only: a model that is not planar is refused by name) or ``"spatial"``.

Reference: Altair MotionSolve Reference Guide, XML format.
"""

from __future__ import annotations

import re
import types
from typing import TYPE_CHECKING

from ...errors import ModelError
from .reader import Reader, read_motionsolve

#: the family :func:`motionsolve_module` (``nonsmooth run model.xml``) reads with
MODULE_FAMILY = "auto"

if TYPE_CHECKING:
    from ...model import Model

__all__ = ["load_motionsolve", "loads_motionsolve", "motionsolve_module"]


def loads_motionsolve(text: str | bytes, name: str = "motionsolve_model",
                      family: str = "auto") -> Model:
    """:func:`load_motionsolve` for XML given as a string."""
    return Reader(text, f"<{name}>", name, family).read().build()


def load_motionsolve(path, family: str = "auto") -> Model:
    """Read a MotionSolve XML model and return a runnable :class:`nonsmooth.Model`.

    ``family``: ``"auto"`` (the default: planar when the model is planar, else spatial),
    ``"planar"`` (planar models only) or ``"spatial"`` (a
    :class:`nonsmooth.spatial.SpatialModel`'s system). Raises
    :class:`~nonsmooth.errors.ModelError` (one line naming the element and its id) for
    malformed XML, missing references, unsupported elements, non-planar models read as planar
    and joint friction on a spatial joint that has none here (universal, Hooke, fixed).
    """
    return read_motionsolve(path, family).build()


def motionsolve_module(path, family: str = MODULE_FAMILY) -> types.ModuleType:
    """A model module (``NAME``, ``DESCRIPTION``, ``PARAMETERS = []``, ``build()``) for
    :func:`nonsmooth.models.load`; the file is read (and checked) now, as ``family``."""
    info = read_motionsolve(path, family)
    module = types.ModuleType(f"nonsmooth_motionsolve_{re.sub(r'[^0-9a-zA-Z_]', '_', info.name)}")
    module.__file__ = str(path)
    module.NAME = info.name
    module.DESCRIPTION = info.description()
    module.PARAMETERS = []

    def build(**params):
        if params:
            raise ModelError(f"model {info.name}: unknown parameter(s) {', '.join(params)}; a "
                             "MotionSolve model has no parameters (edit the XML file)")
        return read_motionsolve(path, family).build()

    module.build = build
    return module
