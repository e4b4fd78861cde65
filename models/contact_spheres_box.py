"""Spheres settling in an open box: many rigid contacts under Moreau-Jean time-stepping.

Built with the spatial family (``nonsmooth.spatial``) and rigid contacts (``nonsmooth.contact``,
``normal="rigid"``): ``n`` equal spheres of radius ``R`` (m) and mass ``m`` (kg) (inertia ``2/5
m R^2``) start at rest on a square lattice of spacing ``spacing R`` (as many spheres a side,
``k``, as fit in the box; filled layer by layer from the lowest, whose spheres' lowest points
are ``h`` above the floor: 3 layers of 6 x 6 with the defaults), each centre moved by a
seeded uniform jitter of at most ``jitter R`` along each axis (so that the stack does not
stay balanced), and fall under gravity ``g`` into an open
box of inner width ``width`` (m): five ground planes (``Plane(point, normal)``, the floor ``z =
0`` and four walls ``x, y = +-width / 2``, each normal pointing into the box). Every pair of
shapes on two different bodies is a rigid contact (:func:`nonsmooth.contact.contacts`): ``5 n``
sphere-plane contacts and ``n (n - 1) / 2`` sphere-sphere ones (5450 for 100 spheres), with
Newton's restitution ``e`` and Coulomb's ``mu``.

Run it with Moreau-Jean time-stepping (``simulate(model, 1.0, method="MoreauJean",
dt=1e-3)``): with many contacts the step's impulse problem is solved by the projected
Gauss-Seidel on the exact Coulomb cone (``docs/design/moreau_jean.md``); the benchmark
``benchmarks/moreau_jean_spheres.py`` runs the same scene in MuJoCo.

Checks a run can be held to: no sphere leaves the box (``|x|, |y| <= width / 2 - R``, ``z >=
R`` up to the scheme's penetration), the largest penetration stays small (``min_gap``), the
kinetic energy decays to nearly 0 once the spheres have settled (about 1 s with the defaults).

Outputs: ``min_gap`` (m, the smallest gap over every contact: minus the largest penetration),
``kinetic`` (J), ``energy`` (J, kinetic + potential), ``top`` (m, the highest centre), and every
element output (``ball0.z``, ``ball0-ball1.gap`` ...).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.contact import Plane, Sphere, contacts
from nonsmooth.errors import ModelError
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, SpatialModel, ground

NAME = "contact_spheres_box"
DESCRIPTION = "Spheres settling in an open box: many rigid contacts (Moreau-Jean)"

#: Ranges (SI): 1 to 400 spheres (80 600 sphere-sphere contacts at 400); radius (0, 1] m,
#: mass (0, 1e6] kg, restitution [0, 1], mu [0, 10], box width (0, 100] m (at least the
#: lattice's), lattice spacing [2, 10] radii, drop height [0, 100] m, jitter [0, 0.4] radii (the
#: jittered spheres never overlap at start: spacing >= 2 + 2 jitter is checked), gravity (0,
#: 1e3] m/s^2, seed [0, 1e9], end time (0, 100] s.
PARAMETERS = [
    Parameter("n", 100, "-", "number of spheres (integer)", 1, 400),
    Parameter("R", 0.05, "m", "radius of each sphere", 0.0, 1.0, exclusive=True),
    Parameter("m", 0.5, "kg", "mass of each sphere", 0.0, 1e6, exclusive=True),
    Parameter("e", 0.2, "-", "coefficient of restitution (Newton)", 0.0, 1.0),
    Parameter("mu", 0.3, "-", "Coulomb friction coefficient (sphere-sphere and walls)", 0.0,
              10.0),
    Parameter("width", 0.8, "m", "inner width of the square box", 0.0, 100.0, exclusive=True),
    Parameter("spacing", 2.5, "-", "lattice spacing, in radii", 2.0, 10.0),
    Parameter("h", 0.05, "m", "height of the lowest layer's lowest points above the floor",
              0.0, 100.0),
    Parameter("jitter", 0.1, "-", "largest jitter of each centre coordinate, in radii", 0.0,
              0.4),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3, exclusive=True),
    Parameter("seed", 0, "-", "seed of the jitter (integer)", 0, 1e9),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "min_gap": ("m", "the smallest gap over every contact (minus the largest penetration)"),
    "kinetic": ("J", "kinetic energy of the spheres"),
    "energy": ("J", "kinetic + potential energy"),
    "top": ("m", "the highest sphere centre"),
}


def _integer(p: dict, name: str) -> int:
    value = p[name]
    if value != math.floor(value):
        raise ModelError(f"model {NAME}: parameter {name} = {value!r} must be a whole number")
    return int(value)


def per_side(R: float, width: float, spacing: float, jitter: float) -> int:
    """The lattice's spheres a side: as many as fit in the box's ``width`` (m) at
    ``spacing`` radii with the ``jitter`` (radii)."""
    return int(math.floor((width - 2.0 * (1.0 + jitter) * R) / (spacing * R) + 1e-9)) + 1


def lattice(n: int, k: int, R: float, spacing: float, h: float, jitter: float,
            seed: int) -> np.ndarray:
    """The spheres' initial centres (n, 3) (m): ``k`` a side on a square
    lattice of spacing ``spacing R`` centred on the z axis, layer by layer from ``z = R + h``,
    each coordinate moved by a uniform jitter in ``[-jitter R, jitter R]``
    (``numpy.random.default_rng(seed)``)."""
    s = spacing * R
    i = np.arange(n)
    layer, cell = divmod(i, k * k)
    row, col = divmod(cell, k)
    centres = np.column_stack(((col - 0.5 * (k - 1)) * s, (row - 0.5 * (k - 1)) * s,
                               R + h + layer * s))
    rng = np.random.default_rng(seed)
    return centres + rng.uniform(-jitter * R, jitter * R, size=(n, 3))


def walls(width: float) -> list[Plane]:
    """The box's five planes: the floor ``z = 0`` and the walls ``x, y = +-width / 2``, each
    normal into the box (the solid side outside)."""
    a = 0.5 * width
    return [Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
            Plane((-a, 0.0, 0.0), (1.0, 0.0, 0.0)), Plane((a, 0.0, 0.0), (-1.0, 0.0, 0.0)),
            Plane((0.0, -a, 0.0), (0.0, 1.0, 0.0)), Plane((0.0, a, 0.0), (0.0, -1.0, 0.0))]


def build(**params) -> Model:
    """Build the box of spheres; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    n, seed = _integer(p, "n"), _integer(p, "seed")
    R, m, width = p["R"], p["m"], p["width"]
    if p["spacing"] < 2.0 + 2.0 * p["jitter"]:
        raise ModelError(f"model {NAME}: spacing = {p['spacing']!r} radii is below 2 + 2 "
                         f"jitter = {2.0 + 2.0 * p['jitter']!r}: jittered spheres could "
                         "overlap at start; raise spacing or lower jitter")
    if width < 2.0 * (1.0 + p["jitter"]) * R:
        raise ModelError(f"model {NAME}: a sphere of radius {R!r} m does not fit in the box "
                         f"of width {width!r} m; widen the box")
    k = per_side(R, width, p["spacing"], p["jitter"])
    mdl = SpatialModel(NAME)
    centres = lattice(n, k, R, p["spacing"], p["h"], p["jitter"], seed)
    J = 0.4 * m * R * R
    balls = [mdl.add(Body(f"ball{i}", m, (J, J, J), position=tuple(c)))
             for i, c in enumerate(centres)]
    shapes = {ground: walls(width)}
    shapes.update({b: Sphere(R) for b in balls})
    contacts(mdl, shapes, normal="rigid", restitution=p["e"], mu=p["mu"])
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    n_b = len(balls)
    columns = {
        "min_gap": lambda r: _min_gap(r, n_b, R, width),
        "kinetic": lambda r: r.T,
        "energy": lambda r: r.T + r.V,
        "top": lambda r: np.max(r.q[:, 2:7 * n_b:7], axis=1),
    }
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("top", "kinetic", "min_gap"),
                 motion_outputs=("top",))


def _min_gap(r, n: int, R: float, width: float) -> np.ndarray:
    """The smallest gap (m) over the box's planes and the sphere pairs at each output row of
    the result ``r`` (its first ``n`` bodies the spheres of radius ``R``; the box's inner
    ``width``, m)."""
    centres = np.stack([r.q[:, 7 * i:7 * i + 3] for i in range(n)], axis=1)  # (rows, n, 3)
    gaps = [centres[:, :, 2].min(axis=1) - R,
            0.5 * width - np.abs(centres[:, :, :2]).max(axis=(1, 2)) - R]
    if n > 1:
        from scipy.spatial.distance import pdist

        gaps.append(np.array([pdist(c).min() for c in centres]) - 2.0 * R)
    return np.min(np.column_stack(gaps), axis=1)
