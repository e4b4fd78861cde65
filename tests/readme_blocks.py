"""The marked blocks of the README and the user guide (``<!-- name -->`` ... ``<!-- /name -->``
around a python block to run, or a text block of quoted output to compare) and their prose,
shared by the tests that check them (``test_api.py``, ``test_clutch.py``,
``test_reliability.py``, ``test_readme.py`` ...). A marker names one block in the two files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide.md"


def _documents() -> str:
    return README.read_text() + "\n" + GUIDE.read_text()


def readme_block(marker: str) -> str:
    """The python code of the block marked ``marker`` (README or user guide)."""
    return re.search(r"```python\n(.*?)```", readme_marked(marker), re.S).group(1)


def readme_marked(marker: str) -> str:
    """The text between ``<!-- marker -->`` and ``<!-- /marker -->`` (one occurrence in the
    README and the user guide together)."""
    text = _documents()
    assert text.count(f"<!-- {marker} -->") == 1, f"README/guide: one <!-- {marker} --> block"
    return text.split(f"<!-- {marker} -->")[1].split(f"<!-- /{marker} -->")[0]


def readme_text_block(marker: str) -> str:
    """The ``text`` code block of the README block marked ``marker`` (a quoted output)."""
    return re.search(r"```text\n(.*?)```", readme_marked(marker), re.S).group(1)


def readme_prose() -> str:
    """The README and the user guide as one line of prose: whitespace (line breaks, indents)
    collapsed to single spaces, so that a claim may be matched across their line wrapping."""
    return " ".join(_documents().split())


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def same_output(quoted: str, produced: str, roundoff: float = 0.0) -> str | None:
    """Compare an output the README quotes with the one a run produced, whitespace-insensitive
    (the README wraps long lines), word by word: numbers as printed (the program prints them at
    the README's precision), except those of magnitude below ``roundoff``, compared to their
    order of magnitude only (within a factor 10). None when they agree, else a description of
    the first difference."""
    a, b = quoted.split(), produced.split()
    if len(a) != len(b):
        return f"{len(a)} words quoted, {len(b)} produced:\n{quoted}\n---\n{produced}"
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        nx, ny = _NUMBER.fullmatch(x.rstrip(",;:)").lstrip("(")), \
            _NUMBER.fullmatch(y.rstrip(",;:)").lstrip("("))
        if not (nx and ny) or x.replace(nx.group(), "") != y.replace(ny.group(), ""):
            return f"quoted {x!r}, produced {y!r}"
        vx, vy = float(nx.group()), float(ny.group())
        if max(abs(vx), abs(vy)) < roundoff and vx and vy and 0.1 < vx / vy < 10:
            continue
        return f"quoted {x!r}, produced {y!r}"
    return None


def at_precision(quoted: str, value: float) -> bool:
    """Whether ``value`` rounded to the significant digits of the ``quoted`` number (``8.4e-10``:
    two, ``3e-3``: one) is that number."""
    mantissa = re.sub(r"[eE].*$", "", quoted.lstrip("-+~"))
    digits = len(mantissa.replace(".", "").lstrip("0")) or 1
    return float(f"{value:.{digits - 1}e}") == float(quoted.lstrip("~"))
