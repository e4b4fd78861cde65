"""Execute every notebook in ``notebooks/`` and fail on any cell error.

Each notebook runs in a fresh ``python3`` kernel with its own directory as the working directory
(so relative paths resolve as they do for a reader). The notebooks are read
from disk and executed in memory; nothing is written back. New notebooks are picked up
automatically.
"""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
from nbclient.exceptions import CellExecutionError  # noqa: E402

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(
    p for p in NOTEBOOK_DIR.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)

#: Seconds a single cell may run before the test fails.
CELL_TIMEOUT = 600


@pytest.mark.parametrize(
    "path", NOTEBOOKS, ids=[str(p.relative_to(NOTEBOOK_DIR)) for p in NOTEBOOKS]
)
def test_notebook_runs_without_errors(path: Path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell raised an error:\n{exc}", pytrace=False)
    errors = [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert not errors, f"{path.name}: error outputs {[e.get('ename') for e in errors]}"
