"""The README's executable examples (``<!-- name -->`` ... ``<!-- /name -->`` around a python
block), shared by the tests that run them (``test_api.py``, ``test_clutch.py``)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def readme_block(marker: str) -> str:
    """The python code of the README block marked ``marker``."""
    block = README.read_text().split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]
    return re.search(r"```python\n(.*?)```", block, re.S).group(1)
