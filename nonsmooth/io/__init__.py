"""Reading models from other codes' formats.

* :mod:`nonsmooth.io.motionsolve` -- Altair MotionSolve XML (``.xml``), planar subset:
  :func:`load_motionsolve` gives a runnable :class:`nonsmooth.Model`.
"""

from .motionsolve import (
    MotionSolveModel,
    load_motionsolve,
    loads_motionsolve,
    motionsolve_module,
    read_motionsolve,
)

__all__ = [
    "MotionSolveModel",
    "load_motionsolve",
    "loads_motionsolve",
    "motionsolve_module",
    "read_motionsolve",
]
