"""The installed distribution's metadata, without importing the package's modules (a worker
process compares it with its client's: ``study.schedulers``)."""

from __future__ import annotations


def version() -> str:
    """The installed distribution's version (``importlib.metadata``: the one number, in
    ``pyproject.toml``); ``0+unknown`` for a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nonsmooth")
    except PackageNotFoundError:
        return "0+unknown"
