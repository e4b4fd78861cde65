"""Moved to :mod:`nonsmooth.planar.sliding_contact` (this import path is kept for one release)."""

from ._moved import alias

alias(__name__, "nonsmooth.planar.sliding_contact")
