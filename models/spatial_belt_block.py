"""The belt block (``models/stick_slip_oscillator.py``) built with the spatial family.

The same mechanism as the planar ``stick_slip_oscillator``, with its parameters
(:data:`PARAMETERS` is the planar model's list, so the two agree by construction), in the
spatial family (``nonsmooth.spatial``, ``docs/spatial.md``). The planar model's plane is the
spatial x-y plane (z out of it); gravity ``g`` points along **-y**, as in the planar model:

* ``belt``: a body (1 kg, inertia 1 kg m^2 about every axis, as the planar belt's 1 kg and
  1 kg m^2) on the frictionless translational joint ``track`` to the ground along world x, driven
  at ``v_belt`` (m/s) by the driver ``belt_drive`` (the planar ``track`` and ``belt_drive``).
  Its weight goes into ``track``'s reaction and does not reach the block.
* ``block``: a body of mass ``m`` (kg; a cube of side :data:`BLOCK_SIDE`, whose inertia does not
  matter: the joint locks its rotation and every force acts through its centre of mass) on the
  **frictional** translational joint ``contact`` (``body_a`` the belt, ``body_b`` the block,
  axis x, at the block's centre of mass) with ``mu = mu_d``, ``mu_s``, the planar model's law
  and law parameters, and ``inputs = "0100"``: the normal load is the reaction alone,
  ``N = ||(F_f, F_g)||`` over the rows ``contact.line1 .line2`` (the joint frame of axis x is
  ``f = y``, ``g = z``: ``F_f`` the support, ``F_g`` zero), as the planar translational joint's
  default ``"0100"`` takes ``N = |lambda_N|``. No preload, bending (``contact.perp1 .perp2``)
  or torsion (``contact.lock``) term: the planar joint of a point mass has none.
* ``spring``: stiffness ``k`` (N/m) and damping ``c`` (N s/m, the planar ``Damper`` on the
  same two points) from the wall anchor ``(-SPRING_LENGTH, 0, 0)`` on the ground to the block's
  centre of mass, rest length ``SPRING_LENGTH`` (m): unstretched at ``x = 0``.

Outputs (the planar model's names, units and signs): ``x`` (m, from the spring's unstretched
position), ``v`` (m/s, absolute), ``v_r`` (m/s, ``v - v_belt``: the joint's slip),
``lambda_N`` (N, the belt's support force on the block along +y: the multiplier of
``contact.line1``), ``F_f`` (N, friction on the block along x: ``contact.Ff_h``), ``mode``
(+1 slip+, -1 slip-, 0 stick). Every element output as well (``contact.N``,
``contact.N_reaction``, ``contact.Fy``, ``belt_drive.force`` ...).
``tests/spatial/test_spatial_models.py`` checks the run against the planar one (positions, loads,
friction and every event time to 1e-9).
"""

from __future__ import annotations

from nonsmooth.model import (
    Model,
    Output,
    check_friction_coefficients,
    check_parameters,
    friction_params,
)
from nonsmooth.models import stick_slip_oscillator as planar
from nonsmooth.spatial import Body, Driver, Gravity, SpatialModel, Spring, Translational, ground

NAME = "spatial_belt_block"
DESCRIPTION = "Block on a driven belt, spring and damper to the wall (stick-slip), spatial"

#: The planar model's parameters (SI; ranges and defaults there): m, k, c, mu_s, mu_d, v_belt,
#: x0, v0, g (along -y), t_end and the friction law's.
PARAMETERS = list(planar.PARAMETERS)

SPRING_LENGTH = planar.SPRING_LENGTH  # m: the wall anchor's distance behind x = 0
BLOCK_SIDE = 0.1  # m: the block's inertia is that of a cube of this side (m s^2 / 6)


def build(**params) -> Model:
    """Build the spatial belt block; keyword arguments override the defaults in PARAMETERS
    (the planar ``stick_slip_oscillator``'s)."""
    p = check_parameters(NAME, PARAMETERS, params)
    check_friction_coefficients(NAME, p)
    mdl = SpatialModel(NAME)
    belt = mdl.add(Body("belt", 1.0, (1.0, 1.0, 1.0), velocity=(p["v_belt"], 0.0, 0.0)))
    J = p["m"] * BLOCK_SIDE ** 2 / 6.0
    block = mdl.add(Body("block", p["m"], (J, J, J), position=(p["x0"], 0.0, 0.0),
                         velocity=(p["v0"], 0.0, 0.0)))
    track = mdl.add(Translational("track", ground, belt, point=(0.0, 0.0, 0.0),
                                  axis=(1.0, 0.0, 0.0)))
    mdl.add(Driver("belt_drive", track, speed=p["v_belt"]))
    at_block = (p["x0"], 0.0, 0.0)
    mdl.add(Translational("contact", belt, block, point=at_block, axis=(1.0, 0.0, 0.0),
                          mu=p["mu_d"], mu_s=p["mu_s"], law=p["friction"],
                          friction=friction_params(p), inputs="0100"))
    mdl.add(Spring("spring", ground, block, (-SPRING_LENGTH, 0.0, 0.0), at_block, p["k"],
                   rest_length=SPRING_LENGTH, damping=p["c"]))
    mdl.add(Gravity(p["g"], direction=(0.0, -1.0, 0.0)))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    ix = system.coordinate_names.index("block.x")
    iv = system.velocity_names.index("block.vx")
    i_support = system.constraint_names.index("contact.line1")  # along f = +y
    outputs = {
        "x": Output(lambda r: r.q[:, ix], "m", "block position"),
        "v": Output(lambda r: r.v[:, iv], "m/s", "block velocity"),
        "v_r": Output(lambda r: r.v_T[:, 0], "m/s", "block velocity relative to the belt"),
        "lambda_N": Output(lambda r: r.lam[:, i_support], "N", "support force on the block"),
        "F_f": Output(lambda r: r.F_T[:, 0], "N", "friction force on the block along x"),
        "mode": Output(lambda r: r.modes[:, 0], "-", "+1 slip+, -1 slip-, 0 stick"),
    }
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION,
                 plot_outputs=("x", "v", "F_f", "mode"), motion_outputs=("x", "v"))
