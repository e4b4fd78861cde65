"""Execute every notebook in ``notebooks/`` and fail on any cell error.

Each notebook runs in a fresh ``python3`` kernel with its own directory as the working directory
(so relative paths resolve as they do for a reader). The notebooks are read
from disk and executed in memory; nothing is written back. New notebooks are picked up
automatically. They run one at a time beside the other tests, started at collection
(``background.py``); each test waits for its notebook.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
import background  # noqa: E402

NOTEBOOK_DIR, NOTEBOOKS = background.NOTEBOOK_DIR, background.NOTEBOOKS


@pytest.mark.parametrize(
    "path", NOTEBOOKS, ids=[str(p.relative_to(NOTEBOOK_DIR)) for p in NOTEBOOKS]
)
def test_notebook_runs_without_errors(path: Path):
    nb, failure = background.notebook(path)
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: error outputs {[e.get('ename') for e in errors]}"
