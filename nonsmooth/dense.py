"""Moved to :mod:`nonsmooth.run.dense` (this import path is kept for one release)."""

from ._moved import alias

alias(__name__, "nonsmooth.run.dense")
