"""The package's build backend: setuptools', with numba's compiled kernels built into a wheel.

``pyproject.toml`` names it (``build-backend = "build_backend"``, ``backend-path =
["tools"]``), so ``python -m build`` and ``pip install .`` use it. Everything is setuptools'
except a wheel: :func:`build_wheel` lays the package out as the wheel installs it (``nonsmooth/``
with the bundled models in ``nonsmooth/models/``) in a scratch folder, runs
``nonsmooth.prebuilt.build`` on it (its workload in a fresh numba cache folder, for numba's
generic CPU: minutes on two cores), which writes the cache into ``nonsmooth/_prebuilt/`` of the
source tree (ignored by git), and builds the wheel with it. An installed wheel's first run then
loads its kernels instead of compiling them.

An editable install (``pip install -e .``, the README's set-up) and an sdist are setuptools'
own: they carry no cache, and a first run compiles the kernels it needs. To build a wheel
without the kernels (a quick check of the packaging), pass ``--config-settings
prebuild=false`` or set ``NONSMOOTH_PREBUILD=0``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 - the rest of the PEP 517/660 interface
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

#: The source tree (this file is ``tools/build_backend.py``).
SOURCE = Path(__file__).resolve().parents[1]
PREBUILT = SOURCE / "nonsmooth" / "_prebuilt"


def _prebuild(config_settings: dict | None) -> bool:
    """Whether a wheel build compiles the kernels into it (the default)."""
    setting = (config_settings or {}).get("prebuild", os.environ.get("NONSMOOTH_PREBUILD", "1"))
    return str(setting).strip().lower() not in ("0", "false", "no", "off")


def _dependencies() -> list[str]:
    """The package's run-time dependencies (``[project] dependencies``): the kernels are
    compiled by running the built package, so a wheel's build environment needs them."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(SOURCE / "pyproject.toml", "rb") as fh:
        return list(tomllib.load(fh)["project"]["dependencies"])


def get_requires_for_build_wheel(config_settings=None):
    requires = list(_setuptools.get_requires_for_build_wheel(config_settings))
    return requires + _dependencies() if _prebuild(config_settings) else requires


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if not _prebuild(config_settings):
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
    if PREBUILT.exists():
        shutil.rmtree(PREBUILT)  # a developer's earlier cache: built again from these sources
    with tempfile.TemporaryDirectory() as tmp:
        # the package as the wheel installs it (setuptools' package-dir: models/ is
        # nonsmooth.models); one setuptools build per process (distutils caches the folders it
        # made, so a second build_wheel in one process fails)
        site = Path(tmp) / "site"
        skip = shutil.ignore_patterns("__pycache__", "_prebuilt", "*.pyc")
        shutil.copytree(SOURCE / "nonsmooth", site / "nonsmooth", ignore=skip)
        shutil.copytree(SOURCE / "models", site / "nonsmooth" / "models", ignore=skip)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
        code = ("import sys, pathlib\nfrom nonsmooth import prebuilt\n"
                "m = prebuilt.build(pathlib.Path(sys.argv[1]))\n"
                "print(f'nonsmooth: {len(m[\"indexes\"])} compiled kernels built into the wheel')")
        print("nonsmooth: compiling the kernels for the wheel (minutes) ...",
              file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", code, str(PREBUILT)], env=env, cwd=tmp,
                       check=True)
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
