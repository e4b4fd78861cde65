"""Packaging: the wheel and the sdist ``python -m build`` makes from this tree.

The wheel is installed without dependencies (this environment has them) into a folder of its
own and run from another working directory with only that folder on ``PYTHONPATH``: the command
line, the bundled models and their data files must come from the wheel, not from the source
tree. The install folder and numba's cache for it are kept in the temporary folder between test
sessions (numba keys its cache by the source's folder and content), and seeded from the source
tree's own cache where the tests already compiled the kernels, so that the run does not compile
them again.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Kept between sessions (per source tree): the wheel's install folder and its numba cache.
STABLE = Path(tempfile.gettempdir()) / (
    "nonsmooth-test-packaging-" + hashlib.sha1(str(ROOT).encode()).hexdigest()[:10])


def _project_version() -> str:
    """The version declared in ``pyproject.toml`` (read as text: Python 3.10 has no tomllib)."""
    text = (ROOT / "pyproject.toml").read_text()
    return re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)


def _source_files() -> list[str]:
    """The package's files as the wheel must hold them: ``nonsmooth/**`` and the bundled
    models (``models/`` installed as ``nonsmooth/models``), Python and data files; not the
    compiled kernels a developer may have built into the tree (``nonsmooth/_prebuilt/``,
    ignored by git; a wheel built with ``prebuild=false`` has none)."""
    files = [p.relative_to(ROOT).as_posix() for p in (ROOT / "nonsmooth").rglob("*.py")
             if "_prebuilt" not in p.parts]
    for p in (ROOT / "models").iterdir():
        if p.suffix in (".py", ".xml"):
            files.append(f"nonsmooth/models/{p.name}")
    return sorted(files)


#: Left out of the copy the sdist is built from: what a build or a run leaves in the tree (a
#: stale ``*.egg-info/SOURCES.txt`` would put files in the sdist that its configuration omits).
_NOT_SOURCE = shutil.ignore_patterns(".git", "*.egg-info", "build", "dist", "__pycache__",
                                     ".*_cache", ".hypothesis", ".ipynb_checkpoints",
                                     "reproduction", "out")


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel (built from the sdist) of a clean copy of this tree, without
    build isolation (no download) and without the compiled kernels (``prebuild=false``: the
    kernels' build is ``tests/test_prebuilt.py``'s slow test): ``{"sdist": path, "wheel": path,
    "log": build output}``."""
    tree = tmp_path_factory.mktemp("tree") / "nonsmooth"
    shutil.copytree(ROOT, tree, ignore=_NOT_SOURCE)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation",
                           "--config-setting", "prebuild=false", "--outdir", str(out),
                           str(tree)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (sdist,) = out.glob("nonsmooth-*.tar.gz")
    (wheel,) = out.glob("nonsmooth-*.whl")
    return {"sdist": sdist, "wheel": wheel, "log": proc.stdout + proc.stderr}


def test_every_subpackage_is_listed():
    """``[tool.setuptools] packages`` names every folder of ``nonsmooth/`` with an
    ``__init__.py`` and the models (setuptools would otherwise ship an unlisted one as data of
    its parent, silently)."""
    text = (ROOT / "pyproject.toml").read_text()
    listed = re.findall(r'"([^"]+)"', re.search(r"^packages\s*=\s*\[(.*?)\]", text,
                                                re.M | re.S).group(1))
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "nonsmooth").rglob("__init__.py")}
    assert sorted(listed) == sorted(found | {"nonsmooth.models"})


def test_build_has_no_deprecation_warnings(dist):
    """setuptools warns about a deprecated licence declaration (a table instead of an SPDX
    expression, licence classifiers) or project configuration: none of it."""
    found = [line for line in dist["log"].splitlines()
             if re.search(r"deprecat|SetuptoolsWarning|is not a valid SPDX", line, re.I)]
    assert not found, "\n".join(found)


def test_wheel_contents(dist):
    """Every module and data file of the package and its models, the licence and the metadata
    (version, SPDX licence expression, the console script)."""
    with zipfile.ZipFile(dist["wheel"]) as whl:
        names = set(whl.namelist())
        info = f"nonsmooth-{_project_version()}.dist-info"
        missing = [f for f in _source_files() if f not in names]
        assert not missing, f"not in the wheel: {missing}"
        assert f"{info}/licenses/LICENSE" in names
        licence = whl.read(f"{info}/licenses/LICENSE").decode()
        assert "Apache License" in licence and "Version 2.0, January 2004" in licence
        meta = whl.read(f"{info}/METADATA").decode()
        entry = whl.read(f"{info}/entry_points.txt").decode()
    assert f"\nVersion: {_project_version()}\n" in meta
    assert "\nLicense-Expression: Apache-2.0\n" in meta
    assert "nonsmooth = nonsmooth.cli:main" in entry
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]


def test_sdist_contents(dist):
    """The sdist holds what the tests read (README, tests and their helpers, the models' data,
    the notebooks), the docs, the benchmarks, the licence, changelog and citation file."""
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    wanted = {p.relative_to(ROOT).as_posix()
              for folder in ("tests", "docs", "benchmarks", "notebooks", "models")
              for p in ((ROOT / folder).rglob("*") if folder == "tests"  # (a folder per package)
                        else (ROOT / folder).iterdir())
              if p.is_file() and p.suffix in (".py", ".md", ".ipynb", ".xml")}
    wanted |= {"README.md", "LICENSE", "CHANGELOG.md", "CITATION.cff", "pyproject.toml"}
    missing = sorted(wanted - names)
    assert not missing, f"not in the sdist: {missing}"


def _seed_numba_cache(site: Path, cache: Path) -> None:
    """Copy the kernels the tests compiled for the source tree (numba's ``__pycache__`` beside
    ``nonsmooth/``) to where numba looks for those of ``site/nonsmooth`` under ``cache``: the
    index holds the source's content hash, so the copy is valid for the same source. Without
    numba's folder naming (a numba that moved it) nothing is copied: the run compiles."""
    try:
        from numba.core.caching import _CacheLocator
    except ImportError:
        return

    for src_dir, dst_dir in ((ROOT / "nonsmooth", site / "nonsmooth"),):
        found = src_dir / "__pycache__"
        if not found.is_dir():
            continue
        target = cache / _CacheLocator.get_suitable_cache_subpath(str(dst_dir / "x.py"))
        target.mkdir(parents=True, exist_ok=True)
        for f in found.iterdir():
            if f.suffix in (".nbi", ".nbc") and not (target / f.name).exists():
                shutil.copy2(f, target / f.name)


@pytest.fixture(scope="module")
def installed(dist) -> dict[str, object]:
    """The wheel installed without dependencies into a folder of its own (``site``) and the
    environment that runs it with only that folder added to the path."""
    site, cache = STABLE / "site", STABLE / "numba-cache"
    shutil.rmtree(site, ignore_errors=True)
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                           "--no-compile", "--target", str(site), str(dist["wheel"])],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _seed_numba_cache(site, cache)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(cache))
    return {"site": site, "env": env, "script": site / "bin" / "nonsmooth"}


def _run(installed, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(installed["script"]), *argv], cwd=cwd, env=installed["env"],
                          capture_output=True, text=True, timeout=600)


def test_installed_package_is_the_wheel(installed, tmp_path):
    """``nonsmooth`` and its models are imported from the install folder, not the source tree,
    and ``nonsmooth.__version__`` is the project's version."""
    code = ("import nonsmooth, nonsmooth.models as m; "
            "print(nonsmooth.__file__); print(m.__file__); print(nonsmooth.__version__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=installed["env"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    package, models, version = proc.stdout.split()
    site = str(installed["site"].resolve())
    assert str(Path(package).resolve()).startswith(site), package
    assert str(Path(models).resolve()).startswith(site), models
    assert version == _project_version()


def test_installed_command_line(installed, tmp_path):
    """``--version``, ``models`` and a short run of the bundled MotionSolve model (its XML file
    comes from the wheel's package data) from another working directory."""
    proc = _run(installed, tmp_path, "--version")
    assert proc.returncode == 0 and proc.stdout == f"nonsmooth {_project_version()}\n", proc
    proc = _run(installed, tmp_path, "models")
    assert proc.returncode == 0, proc.stderr
    listed = re.findall(r"^(\w+):", proc.stdout, re.M)
    expected = sorted(p.stem for p in (ROOT / "models").glob("*.py")
                      if not p.stem.startswith("_"))
    assert listed == expected
    proc = _run(installed, tmp_path, "run", "pendulum_joint_friction", "--t-end", "0.05",
                "--out", "out.csv")
    assert proc.returncode == 0, proc.stderr
    assert "status 0: the simulation reached the end time" in proc.stdout
    rows = (tmp_path / "out.csv").read_text().splitlines()
    assert len(rows) > 2 and rows[0].startswith("t,")
