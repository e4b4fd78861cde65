"""Moved to :mod:`nonsmooth.run.recorder` (this import path is kept for one release)."""

from ._moved import alias

alias(__name__, "nonsmooth.run.recorder")
