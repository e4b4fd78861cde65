"""The spatial model family (issue 21, ``docs/design/spatial.md``): rigid bodies in 3-D with Euler
parameters (7 position and 6 velocity coordinates per body), on the Python path.

* :mod:`nonsmooth.spatial.rotation`: the rotation algebra (``R(p)``, ``E``, ``L``, rates,
  Shepperd's matrix-to-quaternion, axis-angle);
* :mod:`nonsmooth.spatial.primitives`: the joint primitives (spherical, dot-1, dot-2, angle)
  with ``G`` and ``gamma`` in closed form;
* :mod:`nonsmooth.spatial.elements`: :class:`Body`, :data:`ground`, the joints
  (:class:`Spherical`, :class:`Revolute`, :class:`Cylindrical`, :class:`Translational`,
  :class:`Universal`, :class:`Fixed`, :class:`PointOnLine`), :class:`Driver` and the forces
  (:class:`Gravity`, :class:`Spring`, :class:`Force`, :class:`Torque`);
* :mod:`nonsmooth.spatial.rotor`: :class:`RotorInertia` (geared rotors on revolute joints,
  ``mode="armature" | "virtual"``);
* :mod:`nonsmooth.spatial.model`: :class:`SpatialModel` (the builder) and
  :class:`SpatialSystem` (its compiled :class:`nonsmooth.System`).
* :mod:`nonsmooth.spatial.animation`: :func:`~nonsmooth.spatial.animation.animate` (a result's
  motion in matplotlib 3-D, to a GIF or MP4; also ``Result.animate``).

Example::

    from nonsmooth.spatial import SpatialModel, Body, Revolute, Gravity, ground
    mdl = SpatialModel("pendulum")
    bar = mdl.add(Body("bar", mass=1.0, inertia=(0.1, 0.1, 0.001), position=(0, 0, -0.5)))
    mdl.add(Revolute("pin", ground, bar, point=(0, 0, 0), axis=(1, 0, 0)))
    mdl.add(Gravity())
    result = nonsmooth.simulate(mdl, 2.0)      # result["pin.Fz"], result["bar.wx_world"] ...
"""

from .elements import (
    Body,
    Cylindrical,
    Driver,
    Fixed,
    Force,
    Gravity,
    Ground,
    PointOnLine,
    Revolute,
    RotationalSpring,
    Spherical,
    Spring,
    Torque,
    Translational,
    Universal,
    ground,
)
from .model import SpatialModel, SpatialSystem
from .rotor import RotorInertia

__all__ = ["SpatialModel", "SpatialSystem", "Body", "Ground", "ground", "Spherical", "Revolute",
           "Cylindrical", "Translational", "Universal", "Fixed", "PointOnLine", "Driver",
           "Gravity", "Spring", "RotationalSpring", "Force", "Torque", "RotorInertia"]
