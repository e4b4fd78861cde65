"""Shared test set-up: the independent reference computations in this folder are importable, and
the compiled kernels are loaded (or, in a fresh checkout, compiled) once before any test, so that
the one-line "compiling the kernels" notice never lands in a test's captured output; the site
build and the notebooks run beside the other tests (``background.py``)."""

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


def pytest_collection_finish(session):
    import background

    files = {item.path.name for item in session.items}
    if "test_docs.py" in files:
        background.start_site()
    if "test_notebooks.py" in files:
        background.start_notebooks()


def pytest_sessionfinish(session, exitstatus):
    import background

    background.stop()
