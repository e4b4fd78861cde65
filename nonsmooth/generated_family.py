"""Moved to :mod:`nonsmooth.generalized.family` (this import path is kept for one release)."""

from ._moved import alias

alias(__name__, "nonsmooth.generalized.family")
