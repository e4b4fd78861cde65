"""The volumetric normal law of Gonthier's contact model: the force and the rolling resistance of
a shape pressed into a plane, from its volume of interference (:mod:`~nonsmooth.contact.volume`).

On a Winkler elastic foundation (independent springs normal to the plane, pressure ``k_v``
times the local depth) the contact force is the foundation stiffness times the volume of
interference ``V`` and acts at the volume's centroid; with damping proportional to the local
approach speed (Gonthier et al. 2004):

* normal force ``F_n = k_v V (1 + a v_cn)`` (N), along the plane's normal, at the centroid;
  ``v_cn`` the centroid's approach speed (m/s, > 0 approaching), clamped at ``F_n >= 0`` (the
  foundation pushes, never pulls);
* rolling resistance ``T = -k_v a J_t omega`` (N m), ``omega`` the shape's angular velocity
  relative to the plane and ``J_t = P I P`` the tangential part of the volume's inertia tensor
  ``I`` about its centroid (``P = 1 - n n^T``; the spin about the normal is the friction's,
  not the foundation's).

``k_v`` (N/m^3) is given, or taken from a layer of Young's modulus ``E`` (Pa) and depth ``h``
(m): ``k_v = E / h``, the stiffness of a Winkler foundation whose springs are columns of the
layer (no lateral coupling). For a sphere of radius ``R`` with ``k_v = E / R`` the force is
``pi E d^2 (3R - d) / (3R)``, equal to the force of Drake's hydroelastic compliant sphere
(pressure ``E (1 - r / R)``, ``pi E d^2 (3R - 2d) / (3R)``) to leading order in the depth ``d``.

A spatial :class:`~nonsmooth.contact.Contact` takes it as its normal law
(``Contact(name, body, shape, ground, Plane(...), normal=Volumetric(...))``, a shape against a
plane): law kind :data:`VOLUMETRIC`, numbers ``(k_v, a, 0)``. Its elastic energy is
``k_v V h_c``, ``h_c`` the centroid's depth below the plane (the Winkler springs' ``k_v
integral delta^2 / 2 dA`` over the patch, each column ``delta`` deep), whose rate is ``k_v V
v_cn``: the force at the centroid is the gradient of that energy.

References: Y. Gonthier, J. McPhee, C. Lange and J.-C. Piedboeuf, "A contact modeling method
based on volumetric properties", ASME IDETC 2005; Y. Gonthier, *Contact Dynamics Modelling for
Robotic Task Simulation*, PhD thesis, University of Waterloo, 2007; E. Winkler, *Die Lehre von
der Elasticitaet und Festigkeit*, 1867.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from .volume import Interference

__all__ = ["Volumetric", "VolumetricLoad", "volumetric_load", "VOLUMETRIC"]

#: The law kind of a volumetric contact (``Contact.law_kind``; the point laws of
#: :mod:`nonsmooth.contact.laws` are 1 and 2, a rigid contact 3).
VOLUMETRIC = 4


def _positive(value, label: str, unit: str, *, zero: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"Volumetric: {label} must be a number ({unit}), got {value!r}") from None
    if not (math.isfinite(x) and (x >= 0.0 if zero else x > 0.0)):
        raise ModelError(f"Volumetric: {label} = {value!r} is invalid; it must be a finite number "
                         f"{'>= 0' if zero else '> 0'} ({unit})")
    return x


@dataclass(frozen=True)
class Volumetric:
    """The volumetric normal law ``F_n = k_v V (1 + a v_cn)`` with rolling resistance
    ``-k_v a J_t omega`` (module docstring).

    Parameters
    ----------
    k_v : float, optional
        Foundation stiffness (N/m^3), > 0; or give ``E`` and ``depth``.
    damping : float
        ``a`` (s/m), >= 0: the damping per unit approach speed.
    E : float, optional
        Young's modulus of the compliant layer (Pa), > 0, with ``depth``.
    depth : float, optional
        Depth of the compliant layer (m), > 0: ``k_v = E / depth``.
    """

    k_v: float | None = None
    damping: float = 0.0
    E: float | None = None
    depth: float | None = None

    def __post_init__(self):
        given = self.k_v is not None
        layer = (self.E is not None, self.depth is not None)
        if given == any(layer) or (any(layer) and not all(layer)):
            raise ModelError("Volumetric: give k_v (N/m^3), or E (Pa) and depth (m) of the "
                             "compliant layer (k_v = E / depth), not both")
        if given:
            k_v = _positive(self.k_v, "k_v", "N/m^3")
        else:
            E = _positive(self.E, "E", "Pa")
            h = _positive(self.depth, "depth", "m")
            object.__setattr__(self, "E", E)
            object.__setattr__(self, "depth", h)
            k_v = E / h
        object.__setattr__(self, "k_v", k_v)
        object.__setattr__(self, "damping", _positive(self.damping, "damping", "s/m", zero=True))


class VolumetricLoad(NamedTuple):
    """The foundation's load on the shape: ``F_n`` (N, along the plane's normal, at
    ``centroid``), ``force`` (3,) (N, ``F_n n``), ``torque`` (3,) (N m, the rolling
    resistance), ``centroid`` (3,) (m), in the frame of the interference (the shape's)."""

    F_n: float
    force: np.ndarray
    torque: np.ndarray
    centroid: np.ndarray


def volumetric_load(law: Volumetric, interference: Interference, normal, v_cn: float,
                    omega) -> VolumetricLoad:
    """The load of ``law`` for a volume of interference (:func:`~nonsmooth.contact.interference`
    in the shape's frame), the plane's unit ``normal`` (3,) in that frame (pointing out of the
    plane, towards the shape), the centroid's approach speed ``v_cn`` (m/s, > 0 approaching)
    and the shape's angular velocity relative to the plane ``omega`` (3,) (rad/s, same frame).
    """
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    w = np.asarray(omega, dtype=float)
    V = float(interference.V)
    F_n = max(0.0, law.k_v * V * (1.0 + law.damping * v_cn))
    P = np.eye(3) - np.outer(n, n)
    J_t = P @ np.asarray(interference.inertia, dtype=float) @ P
    torque = -law.k_v * law.damping * (J_t @ w) if V > 0.0 else np.zeros(3)
    return VolumetricLoad(F_n, F_n * n, torque, np.asarray(interference.centroid, dtype=float))
