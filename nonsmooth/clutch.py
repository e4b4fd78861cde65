"""Moved to :mod:`nonsmooth.planar.clutch` (this import path is kept for one release)."""

from ._moved import alias

alias(__name__, "nonsmooth.planar.clutch")
