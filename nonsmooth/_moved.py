"""Old import paths of moved modules, kept for one release: importing one warns
(``DeprecationWarning``) and gives the module at its new place (the same module object, so that
its functions, classes and numba's cache are the new module's)."""

from __future__ import annotations

import importlib
import sys
import warnings


def alias(old: str, new: str) -> None:
    """Make the module being imported as ``old`` the module ``new``, with a warning."""
    warnings.warn(f"{old} has moved to {new}; the old import path will be removed in the next "
                  f"release", DeprecationWarning, stacklevel=3)
    sys.modules[old] = importlib.import_module(new)
