"""A double pendulum in space: two rods, the second hinged to the first about a tilted axis.

Built with the spatial family (``nonsmooth.spatial``, ``docs/spatial.md``): rod 1 hangs from a
revolute joint ``pin1`` at the origin O about the world x axis; rod 2 hangs from the end P of
rod 1 on a revolute joint ``pin2`` whose axis, fixed in rod 1, is turned by ``tilt`` from rod 1's
hinge axis about the rod (``tilt = 0``: a planar double pendulum; ``tilt = pi/2``: the second
rod swings across the first's plane), or on a spherical joint (``joint2="spherical"``). Gravity
``g`` along -z. Rods: uniform, of radius ``radius``, inertia ``m L^2 / 12 + m radius^2 / 4``
across and ``m radius^2 / 2`` along.

Initial state: rod 1 at ``theta1`` (rad, about +x from hanging down) turning at ``w1``; rod 2
at ``theta2`` relative to rod 1 about the pin2 axis, turning relative to it at ``w2``.

Outputs: ``theta1`` (rod 1's angle, rad), ``tip_x/y/z`` (the end of rod 2, m), ``energy``
(kinetic + potential, J: constant, the run is frictionless), ``F_pin1`` (the magnitude of the
pin1 reaction on rod 1, N). Every element output as well: ``pin1.Fx`` ... ``pin2.Tz``
(reactions on the second body at the joint point, world axes), ``pin1.angle``,
``rod2.wx_world`` ...

``mjcf(**params)`` writes the same mechanism (revolute ``joint2`` only) as a MuJoCo MJCF
string in minimal coordinates, its initial ``qpos`` and ``qvel`` alongside: the peer check
(``docs/design/spatial.md`` section 6, check 5; ``tests/spatial/test_spatial_mujoco.py``,
``benchmarks/spatial.py``). It needs no ``mujoco`` import.
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Gravity, Revolute, SpatialModel, Spherical, ground
from nonsmooth.spatial.rotation import from_axis_angle, rotation_matrices, rotation_matrix

NAME = "spatial_double_pendulum"
DESCRIPTION = "Double pendulum in space: two rods, the second hinged about a tilted axis"

#: Ranges (SI): masses (0, 1e9] kg, lengths (0, 1e3] m, radius (0, 1] m (below the lengths),
#: angles within one turn, rates |w| <= 1e3 rad/s, gravity [0, 1e3] m/s^2, end time (0, 1e3] s.
PARAMETERS = [
    Parameter("m1", 1.0, "kg", "mass of rod 1", 0.0, 1e9, exclusive=True),
    Parameter("L1", 1.0, "m", "length of rod 1 (O to P)", 0.0, 1e3, exclusive=True),
    Parameter("m2", 0.8, "kg", "mass of rod 2", 0.0, 1e9, exclusive=True),
    Parameter("L2", 0.8, "m", "length of rod 2", 0.0, 1e3, exclusive=True),
    Parameter("radius", 0.02, "m", "radius of the rods", 0.0, 1.0, exclusive=True),
    Parameter("tilt", 1.0, "rad", "angle of pin2's axis from pin1's, about rod 1",
              -math.pi, math.pi),
    Parameter("theta1", 1.0, "rad", "initial angle of rod 1 about +x from hanging down",
              -math.pi, math.pi),
    Parameter("theta2", 0.5, "rad", "initial angle of rod 2 relative to rod 1 about pin2's axis",
              -math.pi, math.pi),
    Parameter("w1", 0.0, "rad/s", "initial angular velocity of rod 1 about +x", -1e3, 1e3),
    Parameter("w2", 2.0, "rad/s", "initial angular velocity of rod 2 relative to rod 1 about "
              "pin2's axis", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -z", 0.0, 1e3),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    Parameter("joint2", "revolute", "-", "the joint between the rods",
              choices=("revolute", "spherical")),
]

OUTPUT_UNITS = {
    "theta1": ("rad", "angle of rod 1 about +x from hanging down"),
    "tip_x": ("m", "end of rod 2, x"),
    "tip_y": ("m", "end of rod 2, y"),
    "tip_z": ("m", "end of rod 2, z"),
    "energy": ("J", "kinetic + potential energy"),
    "F_pin1": ("N", "magnitude of the pin1 reaction on rod 1"),
}


def _rod(m: float, L: float, radius: float) -> tuple[float, float, float]:
    """Principal moments (kg m^2) of a uniform rod along its body z axis."""
    across = m * L * L / 12.0 + m * radius * radius / 4.0
    return across, across, 0.5 * m * radius * radius


def build(**params) -> Model:
    """Build the spatial double pendulum; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    from nonsmooth.errors import ModelError

    if p["radius"] >= min(p["L1"], p["L2"]):
        raise ModelError(f"model {NAME}: radius = {p['radius']:g} m must be below the rods' "
                         f"lengths ({p['L1']:g}, {p['L2']:g} m)")
    L1, L2 = p["L1"], p["L2"]
    down = np.array([0.0, 0.0, -1.0])
    p1 = from_axis_angle((1.0, 0.0, 0.0), p["theta1"])
    R1 = rotation_matrix(p1)
    axis2 = R1 @ np.array([math.cos(p["tilt"]), math.sin(p["tilt"]), 0.0])
    R2 = rotation_matrix(from_axis_angle(axis2, p["theta2"])) @ R1
    P = L1 * (R1 @ down)
    c1, c2 = 0.5 * P, P + 0.5 * L2 * (R2 @ down)
    w1 = np.array([p["w1"], 0.0, 0.0])
    w2 = w1 + p["w2"] * axis2
    mdl = SpatialModel(NAME)
    rod1 = mdl.add(Body("rod1", p["m1"], _rod(p["m1"], L1, p["radius"]), position=c1,
                        orientation=p1, velocity=np.cross(w1, c1), angular_velocity=w1))
    rod2 = mdl.add(Body("rod2", p["m2"], _rod(p["m2"], L2, p["radius"]), position=c2,
                        orientation=R2, velocity=np.cross(w1, P) + np.cross(w2, c2 - P),
                        angular_velocity=w2))
    mdl.add(Revolute("pin1", ground, rod1, point=(0.0, 0.0, 0.0), axis=(1.0, 0.0, 0.0)))
    if p["joint2"] == "revolute":
        mdl.add(Revolute("pin2", rod1, rod2, point=P, axis=axis2))
    else:
        mdl.add(Spherical("pin2", rod1, rod2, point=P))
    mdl.add(Gravity(p["g"]))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    tip = np.array([0.0, 0.0, -0.5 * L2])  # rod 2's end in its body axes

    def tips(r):  # rod 2's end (k, 3), computed once per result for the three outputs
        cache = r.__dict__.setdefault("_tips", {})
        if "xyz" not in cache:
            cache["xyz"] = r.q[:, 7:10] + rotation_matrices(r.q[:, 10:14]) @ tip
        return cache["xyz"]

    columns = {
        "theta1": lambda r: p["theta1"] + r["pin1.angle"],
        "tip_x": lambda r: tips(r)[:, 0],
        "tip_y": lambda r: tips(r)[:, 1],
        "tip_z": lambda r: tips(r)[:, 2],
        "energy": lambda r: r.T + r.V,
        "F_pin1": lambda r: np.sqrt(r["pin1.Fx"] ** 2 + r["pin1.Fy"] ** 2 + r["pin1.Fz"] ** 2),
    }
    outputs = {name: Output(columns[name], *OUTPUT_UNITS[name]) for name in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=("theta1", "tip_x", "tip_y", "tip_z", "F_pin1", "energy"),
                 motion_outputs=("theta1", "tip_x", "tip_y", "tip_z"))


def mjcf(timestep: float = 0.002, integrator: str = "RK4",
         **params) -> tuple[str, np.ndarray, np.ndarray]:
    """The same double pendulum as a MuJoCo model (MJCF XML), in joint coordinates.

    Both rods are written hanging down (``qpos = 0``): body ``rod1``'s frame at O, its hinge
    about x; body ``rod2``'s frame at P (``(0, 0, -L1)`` in rod 1's frame), its hinge about
    ``(cos tilt, sin tilt, 0)`` in rod 1's frame, which turns with rod 1 as ``build``'s axis
    does. Each rod's inertial frame is its body frame (the rod along z), its centre of mass
    half-way down (``diaginertia``: ``_rod``'s moments), so MuJoCo's ``xipos`` / ``ximat`` are
    ``build``'s ``<rod>.x/.y/.z`` and ``rotation_matrix(<rod>.q*)``. Nothing else acts:
    contact and constraint solving disabled, no damping, armature or friction loss (MuJoCo's
    defaults), gravity ``(0, 0, -g)``, ``energy`` enabled (``data.energy``).

    Parameters
    ----------
    timestep : float
        MuJoCo's step (s); its default is 0.002.
    integrator : str
        ``"RK4"`` (MuJoCo's classical Runge-Kutta), ``"Euler"``, ``"implicit"`` ...
    **params
        As ``build``'s (``joint2`` must be ``"revolute"``).

    Returns
    -------
    xml : str
    qpos0, qvel0 : ndarray, shape (2,)
        ``[theta1, theta2]`` and ``[w1, w2]``: ``build``'s initial state.
    """
    p = check_parameters(NAME, PARAMETERS, params)
    if p["joint2"] != "revolute":
        raise ValueError(f"model {NAME}: mjcf writes joint2 = 'revolute' only, "
                         f"not {p['joint2']!r}")
    L1, L2 = p["L1"], p["L2"]
    i1, i2 = _rod(p["m1"], L1, p["radius"]), _rod(p["m2"], L2, p["radius"])
    ax = f"{math.cos(p['tilt']):.17g} {math.sin(p['tilt']):.17g} 0"

    def diag(moments):
        return " ".join(f"{x:.17g}" for x in moments)

    xml = f"""<mujoco model="{NAME}">
  <option timestep="{timestep:.17g}" integrator="{integrator}" gravity="0 0 {-p['g']:.17g}">
    <flag contact="disable" constraint="disable" energy="enable"/>
  </option>
  <worldbody>
    <body name="rod1" pos="0 0 0">
      <joint name="pin1" type="hinge" pos="0 0 0" axis="1 0 0"/>
      <inertial pos="0 0 {-0.5 * L1:.17g}" mass="{p['m1']:.17g}" diaginertia="{diag(i1)}"/>
      <body name="rod2" pos="0 0 {-L1:.17g}">
        <joint name="pin2" type="hinge" pos="0 0 0" axis="{ax}"/>
        <inertial pos="0 0 {-0.5 * L2:.17g}" mass="{p['m2']:.17g}" diaginertia="{diag(i2)}"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""
    return xml, np.array([p["theta1"], p["theta2"]]), np.array([p["w1"], p["w2"]])
