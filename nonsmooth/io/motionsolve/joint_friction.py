"""``Force_JointFriction``: its attributes in SI, their defaults and checks.

The LuGre attributes (``mu_static``, ``mu_dynamic``, ``bristle_stiffness``, ``damping_effects``,
``viscous_effects``, ``stiction_trans_vel``, ``effect``) and their physical ranges come from
the friction schema (:data:`nonsmooth.friction.schema.LUGRE_SCHEMA`, the one owner of the LuGre
defaults); MotionSolve's documented defaults are numbers per model unit
(``bristle_stiffness = 100`` per length unit, ``damping_effects = 0.316`` time/length,
``viscous_effects = 0.0004`` force time/length, ``stiction_trans_vel = 0.1`` length/time ...),
which are the schema's SI defaults expressed in N, kg, mm, s. The other attributes (preloads,
arms, radii, ``inputs``, ``overlap_delta`` ...) are read here with MotionSolve's defaults; see
``docs/method.md`` section 9.

Reference: Altair MotionSolve Reference Guide, XML format, ``Force_JointFriction``.
"""

from __future__ import annotations

import re

from ...friction.schema import LUGRE_SCHEMA, check_static_dynamic
from .element import REQUIRED, Element
from .units import (
    FORCE,
    LENGTH,
    NONE,
    PER_LENGTH,
    TIME_PER_LENGTH,
    TORQUE,
    VELOCITY,
    VISCOUS,
    Units,
)

__all__ = ["JOINT_FRICTION_DEFAULTS", "joint_friction_values", "lugre_values"]

#: The unit dimension of each LuGre parameter with a MotionSolve attribute (see LUGRE_SCHEMA).
LUGRE_DIMS = {"mu_s": NONE, "mu_d": NONE, "sigma0": PER_LENGTH, "sigma1": TIME_PER_LENGTH,
              "sigma2": VISCOUS, "v_s": VELOCITY}

#: MotionSolve's documented defaults are numbers per model unit (``bristle_stiffness = 100``
#: per length unit ...); they are our SI defaults expressed in N, kg, mm, s.
_DEFAULT_UNITS = Units(length="MILLIMETER")


def _joint_friction_defaults() -> dict:
    """``{MotionSolve attribute: default}`` of the Force_JointFriction LuGre attributes, in
    the model's units (None: required), derived from :data:`LUGRE_SCHEMA`."""
    out = {}
    for q in LUGRE_SCHEMA:
        if q.motionsolve is None:
            continue
        if q.choices:
            out[q.motionsolve] = q.default
        elif q.name in ("mu_s", "mu_d"):
            out[q.motionsolve] = None  # MotionSolve requires the coefficients
        else:
            out[q.motionsolve] = q.default / _DEFAULT_UNITS.factor(LUGRE_DIMS[q.name])
    return out


#: Force_JointFriction's LuGre defaults (model units); mu_static and mu_dynamic are required.
JOINT_FRICTION_DEFAULTS = _joint_friction_defaults()


def lugre_values(e: Element) -> dict:
    """The LuGre attributes of a Force_JointFriction in SI (by MotionSolve name), checked
    against the schema's ranges and ``mu_static >= mu_dynamic``."""
    out = {}
    for q in LUGRE_SCHEMA:
        ms = q.motionsolve
        if ms is None:
            continue
        default = JOINT_FRICTION_DEFAULTS[ms]
        if q.choices:
            out[ms] = e.text(ms, default, q.choices)
            continue
        dim = LUGRE_DIMS[q.name]
        value = e.number(ms, REQUIRED if default is None else default, dim)
        if not q.contains(value):
            unit = e.units.label(dim) if e.units is not None else q.unit
            unit = "" if unit == "-" else f" {unit}"
            si = "" if q.unit == "-" else f" {q.unit}"
            raise e.error(f"{ms} = {e.attrs[ms]}{unit} ({q.name} = {value:g}{si} in SI) is out of "
                          f"range; allowed: {q.interval_text()} ({q.description}); "
                          f"{q.advice()}")
        out[ms] = value
    check_static_dynamic(f"{e.source}: {e.where}", out["mu_static"], out["mu_dynamic"],
                         names=("mu_static", "mu_dynamic"))
    return out


def joint_friction_values(e: Element) -> dict:
    """Every attribute of a Force_JointFriction in SI (by MotionSolve name): the LuGre ones
    (:func:`lugre_values`) and the joint-geometry ones with MotionSolve's defaults."""
    v = lugre_values(e)
    v.update({
        "max_stiction_deform": e.number("max_stiction_deform", 0.01, LENGTH, 0.0),
        "inactive": e.text("inactive", "NONE", ("NONE", "STATIC")),
        "inputs": e.text("inputs", "1111"),
        "force_preload": e.number("force_preload", 0.0, FORCE, 0.0),
        "torque_preload": e.number("torque_preload", 0.0, TORQUE, 0.0),
        "friction_arm": e.number("friction_arm", 1.0, LENGTH, positive=True),
        "reaction_arm": e.number("reaction_arm", 1.0, LENGTH, positive=True),
        "bending_reaction_arm": e.number("bending_reaction_arm", 1.0, LENGTH, positive=True),
        "pin_radius": e.number("pin_radius", 1.0, LENGTH, positive=True),
        "ball_radius": e.number("ball_radius", 1.0, LENGTH, positive=True),
        "initial_overlap": e.number("initial_overlap", 1000.0, LENGTH, positive=True),
        "overlap_delta": e.text("overlap_delta", "CONSTANT",
                                ("CONSTANT", "INCREASE", "DECREASE")),
        "yoke_choice": e.text("yoke_choice", None),
    })
    if not re.fullmatch(r"[01]{4}", v["inputs"]):
        raise e.error(f"inputs = {v['inputs']!r}: give 4 bits (Preload, Reaction_Force,"
                      " Bending_Moment, Torsional_Moment), e.g. 1111 or 1101")
    return v
