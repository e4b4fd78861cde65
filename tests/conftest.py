"""Shared test set-up: the independent reference computations in this folder are importable, and
the compiled kernels are loaded (or, in a fresh checkout, compiled) once before any test, so that
the one-line "compiling the kernels" notice never lands in a test's captured output."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def pytest_sessionstart(session):
    from nonsmooth import compile_notice, kernels

    compile_notice.quiet()  # pytest shows its own progress; a later compilation prints
    try:
        kernels.warm()
    finally:
        compile_notice.quiet(False)
