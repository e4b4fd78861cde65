"""The suite's two long, independent jobs, run beside the other tests on the second core.

``mkdocs build --strict`` (``test_docs.py``) and the notebooks' execution
(``test_notebooks.py``) take about three minutes between them and share nothing with the other
tests, so ``conftest.pytest_collection_finish`` starts them, when tests that need them are
collected, as a subprocess and a thread (each notebook in its own kernel process, one at a
time); the tests then wait for their results (:func:`site`, :func:`notebook`). Run alone (a
single test file or ``-k``) they start at collection just the same.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(p for p in NOTEBOOK_DIR.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)

#: Seconds a single notebook cell may run before its test fails; the site build's limit.
CELL_TIMEOUT, SITE_TIMEOUT = 600, 600

_site: tuple[subprocess.Popen, Path] | None = None
_pool: ThreadPoolExecutor | None = None
_notebooks: dict[Path, Future] = {}


def start_site() -> None:
    """Start ``mkdocs build --strict`` into a temporary folder (once)."""
    global _site
    if _site is None:
        out = Path(tempfile.mkdtemp(prefix="nonsmooth-site-"))
        proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        _site = (proc, out)


def site() -> tuple[int, str, Path]:
    """The build's return code, log and site folder (started here if it was not)."""
    start_site()
    proc, out = _site
    log, _ = proc.communicate(timeout=SITE_TIMEOUT)
    return proc.returncode, log, out


def start_notebooks() -> None:
    """Submit every notebook's execution to one worker thread (once), the largest file
    (roughly the longest run) first."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notebooks")
        for p in sorted(NOTEBOOKS, key=lambda p: -p.stat().st_size):
            _notebooks[p] = _pool.submit(_execute, p)


def notebook(path: Path):
    """The executed notebook, or the message of the cell that raised: ``(nb, failure)``."""
    start_notebooks()
    return _notebooks[path].result()


def _execute(path: Path):
    import nbclient
    import nbformat
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=CELL_TIMEOUT,
                                     allow_errors=False,
                                     resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        return None, f"{path.name}: a cell raised an error:\n{exc}"
    return nb, None


def stop() -> None:
    """At the session's end: drop the notebooks not started, end a build still running,
    remove the site."""
    if _pool is not None:
        for f in _notebooks.values():
            f.cancel()
        _pool.shutdown(wait=True, cancel_futures=True)
    if _site is not None and _site[0].poll() is None:
        _site[0].kill()
        _site[0].communicate()
    if _site is not None:
        shutil.rmtree(_site[1], ignore_errors=True)
