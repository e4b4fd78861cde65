"""A slider-crank whose slider hits an end stop: a rigid contact with Newton's impact law on a
mechanism with joints.

Built with the spatial family: a crank of length ``a`` (m) turns about the z axis on a
revolute joint at the origin; a connecting rod of length ``b`` (m) joins the crank's tip A
(a revolute joint, axis z) to the slider's pin B (a spherical joint); the slider moves along
x on a translational joint. Without gravity and without a drive, the crank starts at the angle
``theta0`` (rad) turning at ``omega0`` (rad/s, the other velocities consistent with it). The
stop is a rigid plane across the slider's path at ``x_stop`` (m); the slider's nose (a sphere
of radius ``r_nose``) hits it with restitution ``e``: each impact is one problem of Newton's
law with the joints' velocity rows as equalities, so the whole mechanism's velocity jumps, and
the crank turns back. The planar loop has one redundant row in space (``slide.line2``),
removed by the spatial family (the motion is the same).

Outputs: ``slider_x`` (m), ``slider_v`` (m/s), ``crank_omega`` (rad/s), ``stop_gap`` (m),
``energy`` (J, kinetic).
"""

from __future__ import annotations

import math
import warnings

from nonsmooth.contact import Contact, Plane, Sphere
from nonsmooth.errors import ModelError
from nonsmooth.model import Model, Output, Parameter, check_parameters
from nonsmooth.spatial import Body, Revolute, SpatialModel, Spherical, Translational, ground
from nonsmooth.spatial.model import RedundancyWarning

NAME = "slider_crank_stop"
DESCRIPTION = "Slider-crank whose slider hits a rigid end stop (Newton's impacts with joints)"

PARAMETERS = [
    Parameter("a", 0.1, "m", "crank length", 0.0, 10.0, exclusive=True),
    Parameter("b", 0.3, "m", "connecting rod length (> a)", 0.0, 10.0, exclusive=True),
    Parameter("m_crank", 0.5, "kg", "crank mass (a uniform rod)", 0.0, 1e3, exclusive=True),
    Parameter("m_rod", 1.0, "kg", "connecting rod mass (a uniform rod)", 0.0, 1e3,
              exclusive=True),
    Parameter("m_slider", 2.0, "kg", "slider mass", 0.0, 1e3, exclusive=True),
    Parameter("theta0", 2.0, "rad", "initial crank angle", -math.pi, math.pi),
    Parameter("omega0", -10.0, "rad/s", "initial crank speed (< 0: the slider moves to the stop)",
              -1e3, 1e3),
    Parameter("x_stop", 0.35, "m", "position of the stop along x", 0.0, 20.0, exclusive=True),
    Parameter("r_nose", 0.01, "m", "radius of the slider's nose", 0.0, 1.0, exclusive=True),
    Parameter("e", 0.5, "-", "coefficient of restitution of the stop", 0.0, 1.0),
    Parameter("t_end", 1.0, "s", "default end time", 0.0, 100.0, exclusive=True),
]

OUTPUT_UNITS = {
    "slider_x": ("m", "slider position along x"),
    "slider_v": ("m/s", "slider velocity along x"),
    "crank_omega": ("rad/s", "crank angular velocity about z"),
    "stop_gap": ("m", "gap between the slider's nose and the stop"),
    "energy": ("J", "kinetic energy"),
}


def _rod_inertia(m: float, length: float) -> tuple:
    """A slender rod along x: (about x, about y, about z), kg m^2."""
    big = m * length * length / 12.0
    return (1e-4 * big, big, big)


def build(**params) -> Model:
    """Build the slider-crank; keyword arguments override PARAMETERS' defaults."""
    p = check_parameters(NAME, PARAMETERS, params)
    a, b, th = p["a"], p["b"], p["theta0"]
    if b <= a:
        raise ModelError(f"{NAME}: the rod b = {b:g} m must be longer than the crank a = "
                         f"{a:g} m for the crank to turn")
    A = (a * math.cos(th), a * math.sin(th), 0.0)
    xB = A[0] + math.sqrt(b * b - A[1] ** 2)
    if xB + p["r_nose"] > p["x_stop"]:
        raise ModelError(f"{NAME}: the slider starts at x = {xB:.4g} m, beyond the stop at "
                         f"x_stop = {p['x_stop']:g} m less its nose; move the stop out or "
                         "change theta0")
    phi = math.atan2(-A[1], xB - A[0])  # the rod's direction
    mdl = SpatialModel(NAME)
    w = p["omega0"]
    crank = mdl.add(Body("crank", p["m_crank"], _rod_inertia(p["m_crank"], a),
                         position=(A[0] / 2, A[1] / 2, 0.0),
                         orientation=(math.cos(th / 2), 0.0, 0.0, math.sin(th / 2)),
                         angular_velocity=(0.0, 0.0, w)))
    rod = mdl.add(Body("rod", p["m_rod"], _rod_inertia(p["m_rod"], b),
                       position=((A[0] + xB) / 2, A[1] / 2, 0.0),
                       orientation=(math.cos(phi / 2), 0.0, 0.0, math.sin(phi / 2))))
    slider = mdl.add(Body("slider", p["m_slider"], (1e-3, 1e-3, 1e-3), position=(xB, 0, 0)))
    mdl.add(Revolute("crank_pin", ground, crank, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)))
    mdl.add(Revolute("pin_A", crank, rod, A, (0.0, 0.0, 1.0)))
    mdl.add(Spherical("pin_B", rod, slider, (xB, 0.0, 0.0)))
    mdl.add(Translational("slide", ground, slider, (xB, 0.0, 0.0), (1.0, 0.0, 0.0)))
    mdl.add(Contact("stop", slider, Sphere(p["r_nose"]), ground,
                    Plane((p["x_stop"], 0.0, 0.0), (-1.0, 0.0, 0.0)), normal="rigid",
                    restitution=p["e"]))
    with warnings.catch_warnings():  # (the planar loop's one redundant row, removed)
        warnings.simplefilter("ignore", RedundancyWarning)
        system = mdl.compile()
    q0, v0 = mdl.initial_state()
    columns = {"slider_x": lambda r: r["slider.x"], "slider_v": lambda r: r["slider.vx"],
               "crank_omega": lambda r: r["crank.wz"], "stop_gap": lambda r: r["stop.gap"],
               "energy": lambda r: r.T}
    outputs = {k: Output(columns[k], *OUTPUT_UNITS[k]) for k in OUTPUT_UNITS}
    return Model(system, q0, v0, name=NAME, outputs=outputs, parameters=p, t_end=p["t_end"],
                 dt=1e-3, description=DESCRIPTION, plot_outputs=("slider_x", "crank_omega"),
                 motion_outputs=("slider_x", "crank_omega"))
