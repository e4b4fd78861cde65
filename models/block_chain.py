"""Burridge-Knopoff chain: N blocks on a driven belt, coupled by springs, Coulomb stick-slip.

The belt is a body driven at ``v_belt`` along x (a driving constraint on its own translational
joint, as in :mod:`stick_slip_oscillator`). Block ``i`` (a point mass ``m``) slides on the belt
in its own frictional translational joint (static coefficient ``mu_s``, dynamic ``mu_d``, support
force ``lambda_N = m g`` up); a spring ``k`` ties block 1 to the wall and a spring ``k`` ties
each block to its neighbour. Block ``i`` rests at ``x = (i - 1) SPACING`` with every spring at
its natural length; outputs measure displacements from there.

With ``N = 1`` it is the stick-slip oscillator on a belt (without the damper) and has its closed
form limit cycle (``F_s = mu_s m g``, ``F_d = mu_d m g``, ``omega = sqrt(k / m)``,
``D = (F_s - F_d) / k``)::

    T_stick = 2 (F_s - F_d) / (k v_belt)
    T_slip  = (2 pi - 2 atan2(omega D, v_belt)) / omega

Initial state: every block moves with the belt (``v_i = v_belt``, sticking) at a displacement
``x_i = spread (F_s / k) u_i`` with ``u_i`` uniform in ``[-1, 1]`` drawn from
``numpy.random.default_rng(seed)``. Only the initial positions are perturbed (the masses and
velocities are not), so that the blocks break away at different times instead of moving in
lockstep. With ``spread <= 1/4`` the net spring force on every block at ``t = 0`` is at most
``4 spread F_s <= F_s``: all N pairs start sticking (``spread = 0``: no perturbation).

Outputs, for block ``i = 1 .. N``: ``x<i>`` (m, displacement from its rest position), ``v<i>``
(m/s, absolute velocity), ``mode<i>`` (+1 slip+, -1 slip-, 0 stick; relative to the belt).
"""

from __future__ import annotations

import math

import numpy as np

from nonsmooth.errors import ModelError
from nonsmooth.model import (
    FRICTION_PARAMETERS,
    Model,
    Output,
    Parameter,
    check_friction_coefficients,
    check_parameters,
    friction_params,
)
from nonsmooth.planar.forces import Gravity, Spring
from nonsmooth.planar.joints import Driver, Translational
from nonsmooth.planar.model import Body, PlanarModel, PointMass, ground

NAME = "block_chain"
DESCRIPTION = "Burridge-Knopoff chain: N blocks on a driven belt, springs between them"

#: Largest chain: 100 blocks (203 coordinates, 100 frictional pairs). One evaluation grows as
#: about N^2.6 (dense work on the sparse KKT system and the Delassus matrix's dense solve): at
#: N = 100 a simulated second takes a few seconds, at N = 200 about ten minutes, and at
#: N = 1000 no step was made in 100 s (issue 19).
MAX_BLOCKS = 100
_N_HINT = ("one evaluation grows as about N^2.6 (the KKT system is solved densely): N = 200 "
           "already takes about ten minutes per simulated second")

#: Ranges (SI): 1 to 100 blocks; mass (0, 1e9] kg, stiffness (0, 1e10] N/m, friction
#: coefficients [0, 10], belt speed up to 1 km/s either way, gravity (0, 1e3] m/s^2 (about
#: 100 g; the support force m g must be positive for friction to act), seed [0, 1e9],
#: spread [0, 1/4] (so that every block starts sticking), end time (0, 1e3] s.
PARAMETERS = [
    Parameter("N", 10, "-", "number of blocks (integer)", 1, MAX_BLOCKS, hint=_N_HINT),
    Parameter("m", 1.0, "kg", "mass of each block", 0.0, 1e9, exclusive=True),
    Parameter("k", 100.0, "N/m", "stiffness of each spring (wall-block 1, neighbours)", 0.0,
              1e10, exclusive=True),
    Parameter("mu_s", 0.4, "-", "static friction coefficient block/belt (>= mu_d)", 0.0, 10.0),
    Parameter("mu_d", 0.3, "-", "dynamic friction coefficient block/belt", 0.0, 10.0),
    Parameter("v_belt", 0.1, "m/s", "belt speed along x", -1e3, 1e3),
    Parameter("g", 9.81, "m/s^2", "gravity along -y", 0.0, 1e3, exclusive=True),
    Parameter("seed", 0, "-", "seed of the initial position perturbation (integer)", 0, 1e9),
    Parameter("spread", 0.2, "-", "initial position perturbation, in units of F_s / k", 0.0,
              0.25),
    Parameter("t_end", 5.0, "s", "default end time", 0.0, 1e3, exclusive=True),
    *FRICTION_PARAMETERS,
]

SPACING = 1.0  # m: natural length of every spring = distance between neighbouring rest positions


def _integer(p: dict, name: str) -> int:
    value = p[name]
    if value != math.floor(value):
        raise ModelError(f"model {NAME}: parameter {name} = {value!r} must be a whole number")
    return int(value)


def initial_displacements(n_blocks: int, seed: int, spread: float, F_s: float,
                          k: float) -> np.ndarray:
    """The initial displacements ``spread (F_s / k) u_i``, ``u_i ~ U[-1, 1]`` (m), shape (N,).

    Parameters
    ----------
    n_blocks : int
    seed : int
        Seed of :func:`numpy.random.default_rng`.
    spread : float
        Amplitude in units of ``F_s / k``.
    F_s : float
        Static friction force ``mu_s m g`` (N).
    k : float
        Spring stiffness (N/m).
    """
    u = np.random.default_rng(seed).uniform(-1.0, 1.0, n_blocks)
    return spread * (F_s / k) * u


def build(**params) -> Model:
    """Build the chain; keyword arguments override the defaults in PARAMETERS.

    Returns
    -------
    nonsmooth.model.Model
        Outputs ``x1 .. xN``, ``v1 .. vN``, ``mode1 .. modeN``.
    """
    p = check_parameters(NAME, PARAMETERS, params)
    check_friction_coefficients(NAME, p)
    n_blocks, seed = _integer(p, "N"), _integer(p, "seed")
    p["N"], p["seed"] = n_blocks, seed
    m, k, v_belt = p["m"], p["k"], p["v_belt"]
    x0 = initial_displacements(n_blocks, seed, p["spread"], p["mu_s"] * m * p["g"], k)
    mdl = PlanarModel(NAME)
    belt = mdl.add(Body("belt", 1.0, 1.0, velocity=(v_belt, 0.0)))
    track = mdl.add(Translational("track", ground, belt, (0.0, 0.0), (1.0, 0.0)))
    mdl.add(Driver("belt_drive", track, speed=v_belt))
    blocks = []
    for i in range(n_blocks):
        block = mdl.add(PointMass(f"block{i + 1}", m, position=(i * SPACING + x0[i], 0.0),
                                  velocity=(v_belt, 0.0)))
        mdl.add(Translational(f"contact{i + 1}", belt, block, (0.0, 0.0), (1.0, 0.0),
                              mu=p["mu_d"], mu_s=p["mu_s"], normal="left", law=p["friction"],
                              friction=friction_params(p)))
        blocks.append(block)
    mdl.add(Spring("spring0", ground, (-SPACING, 0.0), blocks[0], (0.0, 0.0), k, SPACING))
    for i in range(1, n_blocks):
        mdl.add(Spring(f"spring{i}", blocks[i - 1], (0.0, 0.0), blocks[i], (0.0, 0.0), k,
                       SPACING))
    mdl.add(Gravity(g=p["g"], bodies=blocks))
    system = mdl.compile()
    q0, v0 = mdl.initial_state()
    names = system.coordinate_names
    ix = [names.index(f"block{i + 1}.x") for i in range(n_blocks)]
    pair = {pr.name: j for j, pr in enumerate(system.pairs)}
    ip = [pair[f"contact{i + 1}"] for i in range(n_blocks)]
    outputs = {}
    for i in range(n_blocks):
        outputs[f"x{i + 1}"] = Output(
            lambda r, c=ix[i], rest=i * SPACING: r.q[:, c] - rest, "m",
            f"block {i + 1} displacement from its rest position")
    for i in range(n_blocks):
        outputs[f"v{i + 1}"] = Output(lambda r, c=ix[i]: r.v[:, c], "m/s",
                                      f"block {i + 1} velocity")
    for i in range(n_blocks):
        outputs[f"mode{i + 1}"] = Output(lambda r, j=ip[i]: r.modes[:, j], "-",
                                         f"block {i + 1}: +1 slip+, -1 slip-, 0 stick")
    shown = min(n_blocks, 3)
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-2, description=DESCRIPTION,
                 plot_outputs=tuple(f"x{i + 1}" for i in range(shown)),
                 motion_outputs=tuple(f"{c}{i + 1}" for c in ("x", "v") for i in range(shown)))
