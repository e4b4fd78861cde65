"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks: [docs/hooks.py]``).

* The notebooks (``notebooks/*.ipynb``, kept with their outputs) become pages
  ``notebooks/<name>/``: mkdocs-jupyter renders them with those outputs (``execute: false``).
  They stay where they are in the repository; only the site sees them under ``docs/``.
* The model gallery (``gallery.md`` and one figure per bundled model) is made at build time by a
  short run of each model (:func:`gallery_runs`), so it cannot go stale: a new model in
  ``models/`` gets its section, a changed one its new figure. A few seconds per model once the
  kernels are compiled.
* The notebooks' math (``$...$``, ``$$...$$`` in their Markdown cells) is written as the
  Markdown pages' math is (``pymdownx.arithmatex``, generic: ``\\(...\\)`` in a span of class
  ``arithmatex``), which the one MathJax configuration of the site typesets
  (``docs/javascripts/mathjax.js``); nbconvert's own MathJax 2 block, which loads nothing, is
  dropped (:func:`notebook_math`).

``python docs/hooks.py OUTDIR`` writes the gallery page and figures to a folder, to look at them
without a site.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

#: Simulated span of each model's gallery run (s): the model's own default ``t_end`` where that
#: is short, less where a shorter run shows the behaviour (keeps the build fast).
GALLERY_T_END = {"block_chain": 2.0, "crank_rocker": 2.2, "stick_slip_oscillator": 3.0,
                 "forced_stick_slip": 20.0, "spatial_friction_arm": 1.0,
                 "spatial_belt_block": 3.0, "bricard": 1.0, "contact_bouncing_ball": 0.25,
                 "contact_rolling_ball": 0.35, "contact_box_incline": 1.2,
                 "contact_payload_plate": 1.5, "contact_rattleback": 6.0,
                 "contact_puck": 1.0, "contact_rolling_disc": 0.3, "contact_spheres_box": 1.0,
                 "contact_box_tipping": 1.0}
GALLERY_PARAMS = {"block_chain": {"N": 5}}  # a chain of 5 shows the waves and builds fast
#: The method of a model's gallery run where the default is not the one to show: the stiff
#: LuGre pendulum by LSODA, the 100 spheres' rigid contacts by Moreau-Jean time-stepping (at
#: the model's dt; the event-driven run would locate every one of their impacts), the tipping
#: box's bristles by DOP853 (7x faster than the smooth law's default Radau there).
GALLERY_METHOD = {"pendulum_joint_friction": "LSODA", "contact_spheres_box": "MoreauJean",
                  "contact_box_tipping": "DOP853"}


def notebook_paths() -> list[Path]:
    """The notebooks the site renders, in name order."""
    return sorted(p for p in NOTEBOOKS.glob("*.ipynb"))


def _sphinx_to_markdown(text: str) -> str:
    """A docstring paragraph as Markdown: ``:role:`x``` -> ``x``, ``x`` kept (inline code)."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    return " ".join(text.split())


def _first_paragraph(doc: str | None) -> str:
    """The module docstring's first paragraph after its summary line (the summary says what
    ``DESCRIPTION`` says), as Markdown."""
    paras = [p for p in (doc or "").strip().split("\n\n") if p.strip()]
    text = paras[1] if len(paras) > 1 else (paras[0] if paras else "")
    return _sphinx_to_markdown(text).rstrip(":")  # an rst "::" introduces a block not shown


#: nbconvert's MathJax 2 loader and configuration (its script's address is empty on the site).
_NBCONVERT_MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->",
                                re.S)
#: Elements whose text is not prose: code, preformatted output, scripts, styles.
_VERBATIM = ("pre", "code", "script", "style", "textarea", "kbd", "samp")
_TAG = re.compile(r"(<!--.*?-->|<[^>]*>)", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?=\S)([^$]+?)\$(?!\$)")


def _math_spans(text: str) -> str:
    """Text of the page with its ``$$..$$`` and ``$..$`` math in arithmatex's generic form."""
    text = _DISPLAY.sub(lambda m: f'<span class="arithmatex">\\[{m.group(1)}\\]</span>', text)
    return _INLINE.sub(lambda m: f'<span class="arithmatex">\\({m.group(1)}\\)</span>', text)


def notebook_math(html: str) -> str:
    """A rendered notebook page (HTML) with its math in arithmatex's generic form, outside code,
    output and scripts, and without nbconvert's MathJax 2 block."""
    html = _NBCONVERT_MATHJAX.sub("", html)
    parts, depth = [], 0
    for i, piece in enumerate(_TAG.split(html)):
        if i % 2:  # a tag or comment
            name = re.match(r"</?\s*([a-zA-Z0-9]+)", piece)
            if name and name.group(1).lower() in _VERBATIM and not piece.endswith("/>"):
                depth += -1 if piece.startswith("</") else 1
                depth = max(depth, 0)
            parts.append(piece)
        else:
            parts.append(piece if depth else _math_spans(piece))
    return "".join(parts)


def gallery_runs():
    """``(name, module, result)`` for every bundled model: a short run at its defaults."""
    import warnings

    import nonsmooth
    from nonsmooth import models

    for name in models.available():
        module = models.load(name)
        model = module.build(**GALLERY_PARAMS.get(name, {}))
        t_end = min(GALLERY_T_END.get(name, model.t_end), model.t_end)
        with warnings.catch_warnings():  # e.g. MotionSolve's LuGre defaults (not dissipative)
            warnings.simplefilter("ignore", RuntimeWarning)
            method = GALLERY_METHOD.get(name)
            options = {} if method is None else {"method": method}
            if method == "MoreauJean":
                options["dt"] = model.dt
            result = nonsmooth.simulate(model, t_end, **options)
        yield name, module, result


def gallery(image_dir: str = "gallery") -> tuple[str, dict[str, bytes]]:
    """The gallery page (Markdown) and its figures ``{path: PNG bytes}``."""
    lines = ["# Model gallery", "",
             "Every model bundled in `models/` (`nonsmooth models` lists them with their "
             "parameters), run briefly at its default parameters when this site was built; each "
             "figure is the run's `Result.plot()`. Run one yourself with "
             "`nonsmooth run NAME --plot NAME.png` or `nonsmooth.simulate(models.load(NAME)"
             ".build())`.", ""]
    images = {}
    for name, module, result in gallery_runs():
        png = io.BytesIO()
        result.plot(path=png)
        images[f"{image_dir}/{name}.png"] = png.getvalue()
        params = GALLERY_PARAMS.get(name, {})
        setting = ", ".join(f"{k} = {v}" for k, v in params.items())
        lines += [f"## {name}", "", f"*{module.DESCRIPTION}.*", "",
                  _first_paragraph(module.__doc__), "",
                  f"![{name}]({image_dir}/{name}.png)", "",
                  f"Defaults{' but ' + setting if setting else ''}, t = {result.t[0]:g} .. "
                  f"{result.t[-1]:g} s, method {result.method}, {len(result.events)} events "
                  f"(`models/{name}.py`).", ""]
    return "\n".join(lines), images


@event_priority(100)  # before mkdocs-jupyter's on_files, which turns notebooks into pages
def on_files(files: Files, config) -> Files:
    for path in notebook_paths():
        files.append(File(f"notebooks/{path.name}", src_dir=str(ROOT),
                          dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    page, images = gallery()
    files.append(File.generated(config, "gallery.md", content=page))
    for src_uri, content in images.items():
        files.append(File.generated(config, src_uri, content=content))
    return files


def on_page_content(html: str, page, config, files) -> str:
    if page.file.src_uri.startswith("notebooks/") and page.file.src_uri.endswith(".ipynb"):
        return notebook_math(html)
    return html


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "gallery-preview")
    page, images = gallery()
    (out / "gallery").mkdir(parents=True, exist_ok=True)
    (out / "gallery.md").write_text(page)
    for src_uri, content in images.items():
        (out / src_uri).write_bytes(content)
    print(f"wrote {out / 'gallery.md'} and {len(images)} figures")
