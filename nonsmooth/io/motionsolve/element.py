"""One MotionSolve XML element's attributes, read with checks and located error messages.

:class:`Element` gives case-insensitive access to an element's attributes as text (with a
choice list), numbers converted to SI by the model's :class:`~.units.Units` (MotionSolve
accepts Fortran exponents, ``1.0D3``) and integer ids; every mistake is a
:class:`~nonsmooth.errors.ModelError` naming the file, the element and its id.

Reference: Altair MotionSolve Reference Guide, XML format (attribute names are case
insensitive; ids are integers).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

from ...errors import ModelError
from ...validate import check_number
from .units import NONE, Units

__all__ = ["Element", "REQUIRED"]

#: the default of an attribute that must be given
REQUIRED = object()


class Element:
    """An XML element with case-insensitive attributes and located error messages."""

    def __init__(self, el: ET.Element, source: str, units: Units | None = None):
        self.tag = el.tag
        self.attrs = {k.lower(): v.strip() for k, v in el.attrib.items()}
        self.source = source
        self.units = units
        ident = self.attrs.get("id")
        self.where = f"{self.tag}" + (f" id={ident}" if ident is not None else "")

    def error(self, message: str) -> ModelError:
        return ModelError(f"{self.source}: {self.where}: {message}")

    def has(self, name):
        return name in self.attrs

    def text(self, name, default=REQUIRED, choices=None) -> str:
        if name not in self.attrs:
            if default is REQUIRED:
                raise self.error(f"the attribute {name} is required")
            return default
        value = self.attrs[name]
        if choices is not None:
            value = value.upper()
            if value not in choices:
                raise self.error(f"{name} = {self.attrs[name]!r} is not supported; allowed: "
                                 f"{', '.join(choices)}")
        return value

    def number(self, name, default=REQUIRED, dim=NONE, minimum=None, positive=False) -> float:
        """The attribute as a float converted to SI (``dim``: exponents of F, M, L, T)."""
        if name not in self.attrs:
            if default is REQUIRED:
                raise self.error(f"the attribute {name} is required")
            value = float(default)
        else:
            value = self._float(name)
        try:  # the one owner of the range message (nonsmooth.validate)
            check_number(value, f"{name} = ", minimum=0.0 if positive else minimum,
                         exclusive=positive)
        except ModelError as exc:
            raise self.error(str(exc)) from None
        if dim != NONE and self.units is not None:
            value *= self.units.factor(dim)
        return value

    def _float(self, name) -> float:
        raw = self.attrs[name]
        try:
            value = float(raw.replace("D", "E").replace("d", "e"))
        except ValueError:
            raise self.error(f"{name} = {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise self.error(f"{name} = {raw!r} must be finite")
        return value

    def ident(self, name="id", default=REQUIRED) -> int:
        if name not in self.attrs:
            if default is REQUIRED:
                raise self.error(f"the attribute {name} is required")
            return default
        raw = self.attrs[name]
        try:
            return int(raw)
        except ValueError:
            raise self.error(f"{name} = {raw!r} is not an integer id") from None
