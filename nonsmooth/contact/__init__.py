"""Contact between bodies: shapes, pair geometry and normal force laws.

The foundation the model families build their contact elements on; it imports nothing from the
families. :mod:`~nonsmooth.contact.shapes` (the primitives and their kind codes),
:mod:`~nonsmooth.contact.geometry` (one compiled closed form per pair of primitives, and
:func:`pair_geometry`, the one entry point), :mod:`~nonsmooth.contact.laws` (Hertz, linear and
hysteretic normal forces, the damping rules and the exact restitution),
:mod:`~nonsmooth.contact.element` (:class:`Contact`, the element the families compile) and
:mod:`~nonsmooth.contact.pairs` (:func:`contacts`: every pair of many shapes at once); for the
volumetric model, :mod:`~nonsmooth.contact.volume` (the volume of interference of a shape with a
plane: its volume, centroid, inertia tensor, contact patch and rate) and
:mod:`~nonsmooth.contact.contensou` (Coulomb friction over a patch, sliding and spinning).
"""

from .contensou import friction_factors, patch_friction
from .element import Contact
from .geometry import ContactPoint, contact_points, gap_rate, pair_geometry, supported
from .laws import (
    DAMPING_RULES,
    Hertz,
    Linear,
    chi_for,
    normal_force,
    normal_law,
    realised_restitution,
)
from .pairs import contacts
from .shapes import Box, Capsule, Circle, Cylinder, Ellipsoid, Hole, Line, Plane, Shape, Sphere
from .volume import ConvexPolyhedron, Interference, contact_patch, interference, volume_rate
from .volumetric import Volumetric, VolumetricLoad, volumetric_load

__all__ = [
    "Shape", "Sphere", "Capsule", "Ellipsoid", "Cylinder", "Box", "Plane", "Circle", "Hole",
    "Line", "ContactPoint", "contact_points", "gap_rate", "pair_geometry", "supported",
    "Contact", "Hertz", "Linear", "DAMPING_RULES", "chi_for", "realised_restitution", "normal_law",
    "normal_force", "contacts", "friction_factors", "patch_friction", "interference",
    "Interference", "ConvexPolyhedron", "contact_patch", "volume_rate", "Volumetric",
    "VolumetricLoad", "volumetric_load",
]
