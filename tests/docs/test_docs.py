"""The documentation site: ``mkdocs build --strict`` passes (no broken link, missing page or
docstring that griffe cannot parse), every notebook is a page that shows its committed figures,
the gallery has a figure for every bundled model, and the Python on the getting-started page
runs. What a reader sees is checked on the rendered pages: no Sphinx role (``:class:`x```) and
no raw ``$...$`` math in the text, no private member in the API reference, and the pages of the
navigation are written for users (no issue numbers, no sessions: design notes stay outside it).

The build goes to a temporary folder (``--site-dir``), started at collection beside the other
tests (``background.py``); the notebooks are rendered with their
committed outputs, not executed (``tests/docs/test_notebooks.py`` executes them).
"""

from __future__ import annotations

import re
from pathlib import Path

import background
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: A Sphinx role left as text (the docstrings' ``:class:`x``` ...).
SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):")
#: TeX between dollars left as text (the notebooks' ``$\lambda_N$``).
RAW_MATH = re.compile(r"\$\$?[^$\s][^$]*\$")


def page_text(html: str) -> str:
    """What a reader reads of a page: its article's text outside code, output and scripts, and
    outside the math that MathJax typesets (elements of class ``arithmatex``)."""
    start, end = html.find("<article"), html.find("</article>")
    html = html[start:end] if 0 <= start < end else html
    html = re.sub(r"<(script|style|pre|code)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r'<(span|div) class="arithmatex">.*?</\1>', " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


#: Words of a development log, which a page written for users does not use.
DEVELOPMENT_LOG = re.compile(r"\bissues?\s*#?\d+|#\d+\b|\bsessions?\b|\bdesign(?:ed)?\b", re.I)


def nav_pages() -> list[str]:
    """The Markdown and notebook sources in ``mkdocs.yml``'s navigation."""
    import yaml

    def walk(item):
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for value in item.values():
                yield from walk(value)
        elif isinstance(item, list):
            for value in item:
                yield from walk(value)

    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    return list(walk(nav))


def rendered(out: Path, src: str) -> Path:
    """The page built from the source ``src`` (``api/index.md``, ``spatial.md``)."""
    stem = src.rsplit(".", 1)[0]
    stem = stem[: -len("index")].rstrip("/") if stem.endswith("index") else stem
    return out / stem / "index.html" if stem else out / "index.html"


def pages(out: Path) -> list[Path]:
    """Every page of the built site."""
    return sorted(p for p in out.rglob("index.html") if "assets" not in p.parts)


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


def test_pages_show_no_sphinx_roles_and_no_raw_math(site):
    *_, out = site
    shown = {p.relative_to(out).parent.as_posix(): page_text(p.read_text()) for p in pages(out)}
    assert "api/building" in shown and "notebooks/crank_rocker" in shown, sorted(shown)
    roles = {k: SPHINX_ROLE.findall(t)[:3] for k, t in shown.items() if SPHINX_ROLE.search(t)}
    assert not roles, f"Sphinx roles shown as text: {roles}"
    math = {k: RAW_MATH.findall(t)[:3] for k, t in shown.items() if RAW_MATH.search(t)}
    assert not math, f"raw TeX shown as text: {math}"


def test_notebook_math_is_typeset(site):
    """The notebooks' math is handed to MathJax, which the pages load and configure."""
    *_, out = site
    html = (out / "notebooks" / "crank_rocker" / "index.html").read_text()
    assert r'<span class="arithmatex">\(\lambda_N\)</span>' in html
    assert "javascripts/mathjax.js" in html and "mathjax@3" in html
    assert "MathJax.Hub.Config" not in html  # nbconvert's MathJax 2 block, which loads nothing


def test_api_reference_hides_private_members_and_links_its_names(site):
    *_, out = site
    for page in (out / "api").rglob("index.html"):
        html = page.read_text()
        ids = re.findall(r'id="(nonsmooth\.[\w.]+)"', html)
        private = [i for i in ids if any(part.startswith("_") for part in i.split("."))]
        assert not private, f"{page}: private members documented: {private}"
    html = (out / "api" / "running" / "index.html").read_text()
    # a role naming a documented object links to it: simulate's :class:`ConstraintError`
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*'
                     r'href="\.\./errors/#nonsmooth\.errors\.ConstraintError"><code>'
                     r"ConstraintError</code></a>", html)


def test_navigation_pages_are_written_for_users(site):
    """No page of the navigation reads as a development log (issue numbers, sessions,
    "designed"); the spatial guides are in it, the design notes are not."""
    *_, out = site
    nav = nav_pages()
    for src in ("spatial.md", "spatial_friction.md", "motionsolve.md"):
        assert src in nav, src
    assert not [src for src in nav if src.startswith("design/")], nav
    found = {}
    for src in nav:
        page = rendered(out, src)
        assert page.is_file(), (src, page)
        hits = DEVELOPMENT_LOG.findall(page_text(page.read_text()))
        if hits:
            found[src] = hits[:5]
    assert not found, f"pages of the navigation that read as a development log: {found}"
    # the design notes are still built, outside the navigation, where the sources point
    assert (out / "design" / "spatial" / "index.html").is_file()


@pytest.mark.parametrize("name", ["spatial", "spatial_friction"])
def test_spatial_guides_python_runs(name):
    text = (ROOT / "docs" / f"{name}.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    scope = {}
    exec(compile(blocks[0], f"{name}.md", "exec"), scope)
    result = scope["result"]
    if name == "spatial":  # the spring's torque is -k (angle - angle0) (damper in the disc)
        assert abs(scope["torque"][-1] + 8.0 * (scope["angle"][-1] - 0.3)) < 1e-9
        assert result.status == 0 and result.t[-1] == 2.0
    else:  # the ball's spin-down stops at w0 I_z / (mu_d r_ball m g), the load is m g
        m, g, i_z, r_ball, mu_d, w0 = 2.0, 9.81, 0.05, 0.02, 0.3, 10.0
        assert abs(scope["stop"] - w0 * i_z / (mu_d * r_ball * m * g)) < 1e-6
        assert abs(scope["load"] - m * g) < 1e-9
        assert "4.25 s here" in text and round(w0 * i_z / (mu_d * r_ball * m * g), 2) == 4.25


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
