"""Shared test set-up: the independent reference computations in this folder are importable; the
compile notice is silenced in every process the tests start (``NONSMOOTH_QUIET_COMPILE``: a
test's output must not depend on whether numba's cache was warm; ``tests/test_prebuilt.py``
checks the notice in processes of its own); each test compiles only the kernels it runs (no
warm-up); the site build and the notebooks run beside the other tests (``background.py``)."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
os.environ["NONSMOOTH_QUIET_COMPILE"] = "1"


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
