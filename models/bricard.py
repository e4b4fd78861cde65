"""Bricard's linkage (IFToMM multibody benchmark A04): five rods in a closed loop of six revolute
joints, falling under gravity from rest.

The benchmark of the IFToMM Technical Committee for Multibody Dynamics (problem A04 of the
MBS benchmark library, M. Gonzalez, Universidade da Coruna): five identical rods of length ``L``
(1 m) and mass ``m`` (1 kg) joined end to end by revolute joints, the loop closed through the
ground at both ends. At the start the joint points are

    P0 = (0, 0, 0), P1 = (L, 0, 0), P2 = (L, -L, 0), P3 = (L, -L, L), P4 = (0, -L, L),
    P5 = (0, 0, L)

(m, world), rod ``i`` from ``P(i-1)`` to ``Pi``; each joint's axis is perpendicular to both
rods it joins (``J0`` at P0 about y, ``J1`` about z, ``J2`` about x, ``J3`` about y, ``J4``
about z, ``J5`` about x), ``J0`` and ``J5`` on the ground. Gravity ``g`` (9.81 m/s^2) along
-y; the mechanism starts at rest and is simulated for 10 s. What the benchmark checks: the
total mechanical energy is conserved (nothing dissipates) and the trajectory of ``P3``.

Six five-row revolutes give 30 rows on 5 bodies (30 velocities), yet the linkage moves with one
degree of freedom (Bricard, 1897; Grubler's count says 0): one row is redundant at every
configuration, a different combination of the rows at each. ``SpatialModel.compile`` removes
the row of the joint added last (``closing``) that the others imply at the start, with a
:class:`~nonsmooth.spatial.model.RedundancyWarning`; along the motion the rows kept can become
nearly dependent while all 30 keep their rank, and the run then chooses the removed row again
at that configuration and goes on (a warning with the time and the rows; ``Result.row_sets``
lists every choice). Which row is removed changes the multipliers (the loop is statically
indeterminate), not the motion.

Rods: uniform thin rods, ``m L^2 / 12`` about their cross axes; the benchmark's rods have no
moment about their own axis, which a rigid body here must have: ``m r^2 / 2`` of a rod of
radius ``radius`` (default 0.01 m: 6e-4 of the cross moment).

Outputs: ``P3_x``, ``P3_y``, ``P3_z`` (m, the joint point P3 on rod 3), ``energy`` (J, kinetic +
potential: constant), ``J0_angle`` (rad, rod 1's turn about J0's axis). Every element output
as well (``J0.Fx`` ... the reactions, ``J3.angle`` ...).
"""

from __future__ import annotations

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, ground
from nonsmooth.spatial.rotation import rotation_matrices

NAME = "bricard"
DESCRIPTION = "Bricard's linkage (IFToMM A04): five rods, six revolutes, one redundant row"

#: The joints, in the order of the loop from the ground at P0 to the ground at P5.
JOINTS = ("J0", "J1", "J2", "J3", "J4", "J5")

PARAMETERS = [
    Parameter("L", 1.0, "m", "length of each rod", 0.0, 1e3, exclusive=True),
    Parameter("m", 1.0, "kg", "mass of each rod", 0.0, 1e6, exclusive=True),
    Parameter("radius", 0.01, "m", "radius of the rods (their moment about their own axis)",
              0.0, 0.1, exclusive=True),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3),
    Parameter("closing", "J5", "-", "the joint added last: the loop's closure, whose rows the "
              "redundancy check removes first", choices=JOINTS),
    Parameter("t_end", 10.0, "s", "default end time", 0.0, 1e3, exclusive=True),
]

OUTPUT_UNITS = {
    "P3_x": ("m", "joint point P3 (rod 3's end), x"),
    "P3_y": ("m", "joint point P3 (rod 3's end), y"),
    "P3_z": ("m", "joint point P3 (rod 3's end), z"),
    "energy": ("J", "kinetic + potential energy"),
    "J0_angle": ("rad", "rod 1's turn about J0's axis from the start"),
}

#: The joint points at the start in units of L, and the joints' axes (world).
POINTS = np.array([(0, 0, 0), (1, 0, 0), (1, -1, 0), (1, -1, 1), (0, -1, 1), (0, 0, 1)],
                  dtype=float)
AXES = np.array([(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)],
                dtype=float)


def build(**params) -> Model:
    """Build the Bricard linkage; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    L, m, r = p["L"], p["m"], p["radius"]
    P = POINTS * L
    mdl = SpatialModel(NAME)
    rods = []
    for i in range(5):
        along = (P[i + 1] - P[i]) / L  # body z along the rod, body x along J(i)'s axis
        R = np.column_stack([AXES[i], np.cross(along, AXES[i]), along])
        cross = m * L * L / 12.0
        rods.append(mdl.add(Body(f"rod{i + 1}", m, (cross, cross, 0.5 * m * r * r),
                                 position=0.5 * (P[i] + P[i + 1]), orientation=R)))
    chain = [ground, *rods, ground]
    last = JOINTS.index(p["closing"])
    for k in ((last + 1 + j) % 6 for j in range(6)):  # the closing joint last
        mdl.add(Revolute(JOINTS[k], chain[k], chain[k + 1], point=P[k], axis=AXES[k]))
    mdl.add(Gravity(p["g"], direction=(0.0, -1.0, 0.0)))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    end = np.array([0.0, 0.0, 0.5 * L])  # rod 3's end P3 in its body axes

    def p3(r):  # P3 (k, 3), computed once per result for the three outputs
        cache = r.__dict__.setdefault("_p3", {})
        if "xyz" not in cache:
            cache["xyz"] = r.q[:, 14:17] + rotation_matrices(r.q[:, 17:21]) @ end
        return cache["xyz"]

    columns = {
        "P3_x": lambda r: p3(r)[:, 0],
        "P3_y": lambda r: p3(r)[:, 1],
        "P3_z": lambda r: p3(r)[:, 2],
        "energy": lambda r: r.T + r.V,
        "J0_angle": lambda r: r["J0.angle"],
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=("P3_x", "P3_y", "P3_z", "J0_angle", "energy"),
                 motion_outputs=("P3_x", "P3_y", "P3_z"))
