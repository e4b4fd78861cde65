"""The crank-rocker's independent Newton-Euler oracle, for the tests (``import newton_euler``).

The oracle itself is ``models/_crank_rocker_newton_euler.py`` (installed as
``nonsmooth.models._crank_rocker_newton_euler``), where the notebooks import it too, without a
path into this folder; it imports nothing from the engine.
"""

from nonsmooth.models._crank_rocker_newton_euler import (  # noqa: F401
    DEFAULTS,
    UNKNOWNS,
    __all__,
    energy,
    kinematics,
    newton_euler_branch,
    newton_euler_forces,
)
