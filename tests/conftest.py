"""Shared test set-up: the helpers in this folder (``readme_blocks``, ``background``), the
independent reference computations of ``oracles/`` and the test modules of every package folder
are importable by their module names (test module names are unique across the folders); the
compile notice is silenced in every process the tests start (``NONSMOOTH_QUIET_COMPILE``: a
test's output must not depend on whether numba's cache was warm; ``tests/docs/test_prebuilt.py``
checks the notice in processes of its own); each test compiles only the kernels it runs (no
warm-up); the site build and the notebooks run beside the other tests (``background.py``)."""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOLDERS = sorted(p for p in HERE.iterdir() if p.is_dir() and p.name[0].isalpha())
for _folder in [HERE, *FOLDERS]:
    sys.path.insert(0, str(_folder))
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
