"""MotionSolve unit systems (``Param_Unit``) and the dimensions of the quantities read.

Every value is converted to SI as it is read; MotionSolve's unit systems need not be consistent
(N, kg, mm, s is the common one), converting each quantity separately makes them so. A
dimension is a tuple of exponents of (force, mass, length, time); :meth:`Units.factor` gives the
SI value of one model unit of it and :meth:`Units.label` its unit text (outputs are reported in
the model's units).

Reference: Altair MotionSolve Reference Guide, XML format, ``Param_Unit`` (force_unit,
mass_unit, length_unit, time_unit).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Units", "UNIT_TABLES"]

FORCE_UNITS = {"NEWTON": (1.0, "N"), "KNEWTON": (1e3, "kN"), "KILONEWTON": (1e3, "kN"),
               "MEGANEWTON": (1e6, "MN"), "CENTINEWTON": (1e-2, "cN"),
               "MILLINEWTON": (1e-3, "mN"), "MICRONEWTON": (1e-6, "uN"),
               "NANONEWTON": (1e-9, "nN"), "DYNE": (1e-5, "dyn"),
               "KILOGRAM_FORCE": (9.80665, "kgf"), "POUND_FORCE": (4.4482216152605, "lbf"),
               "KPOUND_FORCE": (4448.2216152605, "klbf"),
               "OUNCE_FORCE": (0.27801385095378125, "ozf"), "POUNDAL": (0.138254954376, "pdl")}
MASS_UNITS = {"KILOGRAM": (1.0, "kg"), "GRAM": (1e-3, "g"), "MILLIGRAM": (1e-6, "mg"),
              "MICROGRAM": (1e-9, "ug"), "NANOGRAM": (1e-12, "ng"), "MEGAGRAM": (1e3, "Mg"),
              "TONNE": (1e3, "t"), "POUND_MASS": (0.45359237, "lbm"),
              "KPOUND_MASS": (453.59237, "klbm"), "OUNCE_MASS": (0.028349523125, "ozm"),
              "SLUG": (14.593902937206364, "slug"), "US_TON": (907.18474, "ton"),
              "SLINCH": (4.4482216152605 / 0.0254, "slinch")}
LENGTH_UNITS = {"METER": (1.0, "m"), "MILLIMETER": (1e-3, "mm"), "CENTIMETER": (1e-2, "cm"),
                "KILOMETER": (1e3, "km"), "MICROMETER": (1e-6, "um"), "NANOMETER": (1e-9, "nm"),
                "ANGSTROM": (1e-10, "A"), "INCH": (0.0254, "in"), "FOOT": (0.3048, "ft"),
                "YARD": (0.9144, "yd"), "MILE": (1609.344, "mi"), "MILLIINCH": (2.54e-5, "mil"),
                "MILS": (2.54e-5, "mil"), "MILLS": (2.54e-5, "mil"),
                "MICROINCH": (2.54e-8, "uin")}
TIME_UNITS = {"SECOND": (1.0, "s"), "MILLISECOND": (1e-3, "ms"), "MICROSECOND": (1e-6, "us"),
              "NANOSECOND": (1e-9, "ns"), "MINUTE": (60.0, "min"), "HOUR": (3600.0, "h"),
              "DAY": (86400.0, "d")}
#: Param_Unit attribute -> {unit name: (SI factor, symbol)}
UNIT_TABLES = {"force_unit": FORCE_UNITS, "mass_unit": MASS_UNITS, "length_unit": LENGTH_UNITS,
               "time_unit": TIME_UNITS}

# dimensions as exponents of (force, mass, length, time)
NONE = (0, 0, 0, 0)
LENGTH = (0, 0, 1, 0)
TIME = (0, 0, 0, 1)
MASS = (0, 1, 0, 0)
FORCE = (1, 0, 0, 0)
TORQUE = (1, 0, 1, 0)
VELOCITY = (0, 0, 1, -1)
ACCELERATION = (0, 0, 1, -2)
INERTIA = (0, 1, 2, 0)
RATE = (0, 0, 0, -1)  # angular velocity (rad per time unit)
PER_LENGTH = (0, 0, -1, 0)
TIME_PER_LENGTH = (0, 0, -1, 1)
VISCOUS = (1, 0, -1, 1)


@dataclass(frozen=True)
class Units:
    """A MotionSolve unit system (``Param_Unit``); defaults are MotionSolve's (SI)."""

    force: str = "NEWTON"
    mass: str = "KILOGRAM"
    length: str = "METER"
    time: str = "SECOND"

    def _entries(self):
        return (FORCE_UNITS[self.force], MASS_UNITS[self.mass], LENGTH_UNITS[self.length],
                TIME_UNITS[self.time])

    def factor(self, dim) -> float:
        """SI value of one model unit of dimension ``dim`` (exponents of F, M, L, T)."""
        out = 1.0
        for (f, _), e in zip(self._entries(), dim, strict=True):
            out *= f ** e
        return out

    def label(self, dim, numerator: str = "") -> str:
        """Unit text, e.g. ``"N s/mm"``; ``"-"`` for a pure number."""
        top = [numerator] if numerator else []
        bottom = []
        for (_, sym), e in zip(self._entries(), dim, strict=True):
            part = sym if abs(e) == 1 else f"{sym}^{abs(e)}"
            if e > 0:
                top.append(part)
            elif e < 0:
                bottom.append(part)
        text = " ".join(top) or ("1" if bottom else "-")
        if bottom:
            text += "/" + (bottom[0] if len(bottom) == 1 else "(" + " ".join(bottom) + ")")
        return text

    def describe(self) -> str:
        return ", ".join(e[1] for e in self._entries())
