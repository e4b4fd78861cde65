"""The documentation site: ``mkdocs build --strict`` passes (no broken link, missing page or
docstring that griffe cannot parse), every notebook is a page that shows its committed figures,
the gallery has a figure for every bundled model, and the Python on the getting-started page
runs.

The build goes to a temporary folder (``--site-dir``), started at collection beside the other
tests (``background.py``); the notebooks are rendered with their
committed outputs, not executed (``tests/test_notebooks.py`` executes them).
"""

from __future__ import annotations

import re
from pathlib import Path

import background
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def site():
    """The build started at collection beside the other tests (``background.site``):
    ``(return code, log, site folder)``."""
    return background.site()


def test_build_is_strict_and_warns_of_nothing(site):
    code, log, out = site
    assert code == 0, log[-4000:]
    warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    assert not warnings, "\n".join(warnings)
    assert (out / "index.html").is_file() and (out / "api" / "building" / "index.html").is_file()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_page_shows_its_figures(site, path):
    *_, out = site
    page = out / "notebooks" / path.stem / "index.html"
    assert page.is_file(), f"{path.name} is not a page of the site"
    html = page.read_text()
    assert "<img" in html and "data:image/png;base64," in html, f"{path.name}: no figure"
    assert path.stem in (out / "index.html").read_text()  # in the navigation


def test_the_notebooks_in_the_navigation_are_the_notebooks_in_the_repository():
    nav = re.findall(r"notebooks/([\w-]+)\.ipynb", (ROOT / "mkdocs.yml").read_text())
    assert sorted(nav) == [p.stem for p in NOTEBOOKS]


def test_the_gallery_shows_every_bundled_model(site):
    from nonsmooth import models

    *_, out = site
    html = (out / "gallery" / "index.html").read_text()
    for name in models.available():
        png = out / "gallery" / f"{name}.png"
        assert png.is_file() and png.read_bytes()[:4] == b"\x89PNG", name
        assert f'src="{name}.png"' in html and f'id="{name}"' in html, name


def test_api_reference_documents_the_public_names(site):
    *_, out = site
    html = "".join(p.read_text() for p in (out / "api").rglob("index.html"))
    for name in ("nonsmooth.simulate", "nonsmooth.Result", "nonsmooth.compare",
                 "nonsmooth.Model", "nonsmooth.planar.PlanarModel", "nonsmooth.planar.bodies.Body",
                 "nonsmooth.planar.joints.Revolute", "nonsmooth.planar.joints.Translational",
                 "nonsmooth.planar.joints.Driver", "nonsmooth.planar.forces.Spring",
                 "nonsmooth.planar.clutch.Clutch",
                 "nonsmooth.planar.clutch.Brake", "nonsmooth.planar.clutch.Clamp",
                 "nonsmooth.GeneralizedSystem", "nonsmooth.errors.ModelError",
                 "nonsmooth.lcp.solve_lcp", "nonsmooth.study.sweep.sweep"):
        assert f'id="{name}"' in html, name


def test_getting_started_python_runs(tmp_path, monkeypatch):
    text = (ROOT / "docs" / "index.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)  # the first block writes oscillator.png
    for block in blocks:
        scope = {}
        exec(compile(block, "index.md", "exec"), scope)
    assert (tmp_path / "oscillator.png").read_bytes()[:4] == b"\x89PNG"
    stop = scope["stop"]  # the first model's block: it sticks at 1 / (mu g)
    assert abs(stop - 1.0 / (0.3 * 9.81)) < 1e-9, stop
