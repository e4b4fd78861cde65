"""The planar family: bodies in the plane with absolute coordinates ``(x, y, theta)``, its joints,
forces, rotor inertia, clutches, sliding contacts and compliant contacts (``contact``: the
element ``nonsmooth.contact.Contact`` of planar shapes and ``Clearance``), their tables and
compiled kernels.

Build a model with :class:`PlanarModel` and the elements exported here; ``nonsmooth.simulate``
runs it. The modules: ``model`` (the builder and :class:`PlanarSystem`), ``bodies``,
``joints``, ``forces``, ``inertia``, ``clutch``, ``sliding_contact`` (the elements), ``tables``
(a model packed into the kernels' integer and float tables), ``kernels`` (the compiled terms and
evaluation), ``dop853`` and ``fixed_step`` (the compiled phases over the planar right-hand side),
``family`` (the family's compiled entry points, :class:`nonsmooth.family.CompiledFamily`).
"""

from .bodies import Body, Ground, PointMass, ground
from .clutch import Brake, Clamp, Clutch
from .forces import Damper, Force, Gravity, JointDamper, RotationalSpring, Spring, Torque
from .inertia import RotorInertia
from .joints import Driver, Revolute, Translational
from .model import PlanarModel, PlanarSystem
from .sliding_contact import SlidingContact

__all__ = ["PlanarModel", "PlanarSystem", "Body", "Ground", "PointMass", "ground", "Revolute",
           "Translational", "Driver", "Spring", "Damper", "JointDamper", "RotationalSpring",
           "Force", "Torque", "Gravity", "RotorInertia", "Clutch", "Brake", "Clamp",
           "SlidingContact", "Clearance"]


def __getattr__(name: str):
    """``Clearance`` loaded on first use (the contact package loads numba)."""
    if name == "Clearance":
        from .contact import Clearance

        return Clearance
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
