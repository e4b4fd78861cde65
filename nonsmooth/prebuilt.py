"""The compiled kernels carried by a built wheel: numba's on-disk cache, built when the wheel is
built, seeded into the folders where numba looks for it, so that the first run of an installed
wheel loads the kernels instead of compiling them.

The cache is a build product, not source: it is not kept in git. ``python -m build`` (the
package's build backend, ``tools/build_backend.py``) builds the wheel, runs :data:`WORKLOAD`
on the built package in a fresh numba cache folder (:func:`build`) and builds the wheel again
with the cache in ``nonsmooth/_prebuilt/``. A clone (``pip install -e .``) has no shipped cache:
numba compiles a kernel the first time a run needs it, caches it on disk, and
:mod:`nonsmooth.compile_notice` says so on stderr. ``python tools/prebuild_kernels.py`` builds
the same cache into a working tree (ignored by git), for a developer who wants a clone's first
run as fast as an installed wheel's.

numba caches a ``cache=True`` function in an index file (``<module>.<function>-<line>.pyXY.nbi``)
and one data file per signature (``.nbc``), in the ``__pycache__`` folder next to the module's
source (or numba's user-wide cache folder when that one is not writable, or
``NUMBA_CACHE_DIR``). An index is valid for one numba version and one source file content (a
SHA-256 of the file: numba >= 0.68), and each entry for one machine target, the CPU name and
its features included. The shipped cache is compiled for numba's ``generic`` CPU
(``NUMBA_CPU_NAME=generic``, which ``nonsmooth/__init__.py`` sets unless the user has chosen a
CPU or imported numba first), so that it loads on any x86-64 machine; the kernels' run time
does not depend on it measurably (``benchmarks/evaluation.py``).

:func:`seed` copies the shipped files of a source folder into numba's cache folder for it when
the files there are missing or stale (made from other sources), and only when the shipped cache
matches the running numba, Python and CPU setting and was made from the sources now installed.
Anything else (another numba version, a native CPU, an edited kernel) is compiled by numba as
usual, and announced (:mod:`nonsmooth.compile_notice`). Nothing here is needed for correctness:
a seeded file is numba's own cache, checked by numba like any other.

numba checks a cached function against its own source file only, while the package's entry
points inline functions of other files (the core's phase templates, the acceleration stage).
So the kernel sources are treated as one unit (:func:`sources_digest`): the shipped cache seeds
only the sources it was built from, and :func:`invalidate` drops numba's own cache of them when
any kernel file has changed since it was written (a developer's edit), which would otherwise
load stale machine code.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import types
from pathlib import Path

#: numba's CPU target for the kernels: the generic x86-64 CPU, so that the shipped cache loads on
#: any machine. Chosen when this module is imported (the first thing ``import nonsmooth`` does):
#: unless ``NUMBA_CPU_NAME`` is set (``host``: this machine's CPU, natively) or numba has compiled
#: something in this process (its CPU is then fixed), numba compiles for it. It applies to every
#: numba function of the process, as numba has one CPU target per process.
CPU_NAME = "generic"


def _choose_cpu() -> None:
    if os.environ.get("NUMBA_CPU_NAME") == "host" and "numba" not in sys.modules:
        # numba takes a CPU's name (LLVM's), not "host": this machine's, to compile natively
        import llvmlite.binding

        os.environ["NUMBA_CPU_NAME"] = llvmlite.binding.get_host_cpu_name()
    if "NUMBA_CPU_NAME" in os.environ:
        return
    numba = sys.modules.get("numba")
    if numba is None:  # numba reads it when it is imported
        os.environ["NUMBA_CPU_NAME"] = CPU_NAME
        return
    from numba.core import registry

    if "_toplevel_target_context" not in vars(registry.cpu_target):  # nothing compiled yet
        numba.config.CPU_NAME, numba.config.CPU_FEATURES = CPU_NAME, ""


_choose_cpu()

#: Where the shipped cache lives, one subfolder per source folder (``nonsmooth``,
#: ``nonsmooth/models``) and ``generated`` for the bundled models' generated kernel modules.
ROOT = Path(__file__).with_name("_prebuilt")
#: The package's top folder (``nonsmooth/``) and the source folders whose kernels are shipped.
PACKAGE = Path(__file__).resolve().parent
GENERATED = "generated"

_SEEDED: set[str] = set()
#: The package's folders with compiled kernel sources, by key (``/``-separated, from the
#: package's root): each holds its own numba cache folder.
FOLDERS = ("nonsmooth", "nonsmooth/models", "nonsmooth/core", "nonsmooth/core/phases",
           "nonsmooth/planar", "nonsmooth/generalized", "nonsmooth/spatial", "nonsmooth/contact",
           "nonsmooth/lcp")


def platform_tag() -> str:
    """The operating system and machine the cache's code is for (``linux-x86_64``)."""
    import platform

    return f"{sys.platform}-{platform.machine()}"


def python_tag() -> str:
    """numba's Python tag of its cache file names (``py311``)."""
    return f"py{sys.version_info[0]}{sys.version_info[1]}"


def source_folder(key: str) -> Path:
    """The installed folder of a shipped source folder's key (``nonsmooth/models`` -> the
    folder of :mod:`nonsmooth.models`)."""
    if key == "nonsmooth":
        return PACKAGE
    import importlib.util

    spec = importlib.util.find_spec(key.replace("/", "."))  # not imported: no cycle
    return Path(spec.submodule_search_locations[0]).resolve()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cache_folder(source: Path) -> Path | None:
    """The folder numba caches the functions of ``source`` (a module's file) in, chosen by
    numba's own locators (``NUMBA_CACHE_DIR``, the ``__pycache__`` next to it, the user-wide
    folder); None where none is writable."""
    from numba.core.caching import CacheImpl

    def probe():  # a function "defined" in that file, for the locators
        pass

    probe.__code__ = probe.__code__.replace(co_filename=str(source))
    func = types.FunctionType(probe.__code__, {})
    for cls in CacheImpl._locator_classes:
        locator = cls.from_function(func, str(source))
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def _manifest(root: Path | None = None) -> dict | None:
    try:
        return json.loads(((root or ROOT) / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def kernel_sources() -> list[Path]:
    """The package's kernel sources: the files of :data:`FOLDERS` that define numba functions,
    and every file of the core (whose plain functions are compiled where they are inlined).
    numba keys a cached function on its own file only, while the package's entry points inline
    functions of other files (the core's templates, the stage), so these files are one unit:
    an edit of any of them can change another's compiled code."""
    files = []
    for key in FOLDERS:
        folder = source_folder(key)
        files += [p for p in sorted(folder.glob("*.py")) if key.startswith("nonsmooth/core")
                  or re.search(r"^\s*@njit", p.read_text(), re.MULTILINE)]
    return files


def sources_digest() -> str:
    """The SHA-256 of every kernel source (:func:`kernel_sources`), with its name."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


#: The file beside numba's cache of ``nonsmooth/kernels.py`` that records which kernel sources
#: the package's cached functions were compiled from (:func:`invalidate`).
STAMP = "nonsmooth-kernel-sources.sha256"


def invalidate(digest: str | None = None) -> int:
    """Remove numba's cached indexes of the package's kernel sources when they were compiled
    from other sources than the installed ones (a developer's edit of one kernel file leaves
    the functions of the files that inline it stale: numba cannot tell, and would load their
    old machine code). Compares :func:`sources_digest` with the stamp beside numba's cache
    (none: a cache of unknown origin, also removed), removes the indexes (numba then compiles
    again, or :func:`seed` seeds the shipped cache), and writes the stamp. Returns the number
    of indexes removed; once per process, before any kernel is loaded (``kernels``)."""
    if "invalidate" in _SEEDED:
        return 0
    _SEEDED.add("invalidate")
    try:
        sources = kernel_sources()
        digest = sources_digest() if digest is None else digest
        folders = {}
        for path in sources:
            folder = cache_folder(path)
            if folder is not None:
                folders.setdefault(folder, set()).add(path.stem)
        home = cache_folder(PACKAGE / "kernels.py")
        if home is None:
            return 0
        stamp = home / STAMP
        if stamp.is_file() and stamp.read_text().strip() == digest:
            return 0
        removed = 0
        for folder, stems in folders.items():
            if not folder.is_dir():
                continue
            for index in folder.glob("*.nbi"):
                if index.name.split(".", 1)[0] in stems:
                    index.unlink(missing_ok=True)
                    removed += 1
        home.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=home, prefix=f".{STAMP}.")
        with os.fdopen(fd, "w") as fh:
            fh.write(digest + "\n")
        os.replace(tmp, stamp)
        return removed
    except OSError:
        return 0  # a cache folder that cannot be read or written: numba's own rules apply


def prepare() -> None:
    """Before any of the package's kernels is called, once per process: numba's cache of other
    kernel sources dropped (:func:`invalidate`), the shipped cache seeded (:func:`seed`), and
    the notice installed that announces a compilation (:mod:`nonsmooth.compile_notice`).
    Called at the import of every module whose compiled functions are entry points."""
    if "prepare" in _SEEDED:
        return
    _SEEDED.add("prepare")
    from . import compile_notice

    digest = sources_digest()  # once: read by both
    invalidate(digest)
    for key in FOLDERS:
        seed(key, digest=digest)
    compile_notice.install()


def usable(manifest: dict | None = None) -> bool:
    """Whether the shipped cache can be loaded by this process: the same numba version, Python,
    platform and CPU setting as it was built with."""
    import numba

    manifest = _manifest() if manifest is None else manifest
    return bool(manifest) and (manifest["numba"] == numba.__version__
                               and manifest["python"] == python_tag()
                               and manifest["platform"] == platform_tag()
                               and manifest["cpu_name"] == (numba.config.CPU_NAME or "")
                               and manifest["cpu_features"] == (numba.config.CPU_FEATURES or ""))


def _stale_index(path: Path, stamp: bytes) -> bool:
    """Whether numba's index at ``path`` is missing or was made from other sources (or by
    another numba version): numba would compile anyway."""
    import pickle

    import numba

    try:
        with open(path, "rb") as fh:
            version = pickle.load(fh)
            data = fh.read()
        return version != numba.__version__ or pickle.loads(data)[0] != stamp
    except Exception:  # noqa: BLE001 - missing or unreadable: numba would recompile it
        return True


def _copy(src: Path, dst: Path) -> None:
    """Copy atomically (another process may read the folder at the same time)."""
    fd, tmp = tempfile.mkstemp(dir=dst.parent, prefix=f".{dst.name}.")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def seed(key: str, source: Path | None = None, digest: str | None = None) -> int:
    """Seed numba's cache for the shipped source folder ``key`` (``"nonsmooth"``,
    ``"nonsmooth/models"``) or, with ``key="generated"``, for the generated module ``source``.
    Returns the number of functions seeded (0 where nothing was to do or could be done); once
    per key and process. ``digest``: :func:`sources_digest`, when the caller has it."""
    tag = key if source is None else f"{key}:{source.name}"
    if tag in _SEEDED:
        return 0
    _SEEDED.add(tag)
    manifest = _manifest()
    if not usable(manifest):
        return 0
    if source is None and manifest.get("sources") != (digest or sources_digest()):
        return 0  # built from other kernel sources: an inlined function may differ
    folder = ROOT / key
    seeded = 0
    folders: dict[Path, Path | None] = {}  # numba's cache folder of each source file, once
    for name, entry in manifest["indexes"].items():
        if entry["folder"] != key or (source is not None and entry["source"] != source.name):
            continue
        src_file = (source if source is not None
                    else source_folder(key) / entry["source"])
        try:
            if _digest(src_file) != entry["sha256"]:
                continue  # the installed source differs from the one the cache was made from
            if src_file not in folders:
                folders[src_file] = cache_folder(src_file)
            target = folders[src_file]
            if target is None:
                continue
            target.mkdir(parents=True, exist_ok=True)
            if not _stale_index(target / name, bytes.fromhex(entry["sha256"])):
                continue  # numba's own valid index (it may hold more signatures): kept
            for data in entry["data"]:  # the data files first, the index last
                _copy(folder / data, target / data)
            _copy(folder / name, target / name)
            seeded += 1
        except OSError:
            continue  # a folder that cannot be written: numba compiles there as usual
    return seeded


def generated_sources() -> list[Path]:
    """The generated kernel modules shipped (the bundled models' ``nonsmooth_gen_*.py``)."""
    return sorted((ROOT / GENERATED).glob("nonsmooth_gen_*.py"))


# ----------------------------------------------------------------------------- building the cache
#: What the shipped cache is built from: the runs a new user makes first (the README's main
#: job, every bundled model with its default method and with RK4, a comparison of the laws).
WORKLOAD = """
import warnings
warnings.simplefilter("ignore")
import nonsmooth
from nonsmooth.cli import main
from nonsmooth.models import available
for name in available():
    for method in ("DOP853", "RK4"):
        main(["run", name, "--t-end", "0.2", "--method", method, "--dt", "1e-3"])
main(["run", "crank_rocker", "--set", "form=planar", "--t-end", "0.2"])
main(["run", "crank_rocker", "--set", "form=planar", "--t-end", "0.2", "--method", "RK4",
      "--dt", "1e-3"])
main(["reproduce", "crank-rocker", "--outdir", {outdir!r}])
main(["compare", "stick_slip_oscillator", "--t-end", "0.5"])
main(["run", "contact_spheres_box", "--t-end", "0.01", "--method", "MoreauJean", "--dt", "1e-3"])
"""


def build(out: Path | None = None, workload: str = WORKLOAD) -> dict:
    """Compile the kernels by ``workload`` (Python source, formatted with ``outdir``: a scratch
    folder; default :data:`WORKLOAD`) in a fresh cache folder, for the generic CPU, in a new
    process that imports this installation of the package, and copy numba's files into ``out``
    with a manifest. Returns the manifest."""
    import subprocess

    import numba

    out = ROOT if out is None else Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_CPU_NAME": CPU_NAME}
        env.pop("NUMBA_CPU_FEATURES", None)
        env.pop("NUMBA_OPT", None)
        code = workload.format(outdir=str(Path(tmp) / "reproduction"))
        package_root = str(PACKAGE.parent)  # this installation, wherever the child starts
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root,
                                                          env.get("PYTHONPATH")]))
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tmp,
                       stdout=subprocess.DEVNULL)
        if out.exists():
            shutil.rmtree(out)
        (out / GENERATED).mkdir(parents=True)
        folders = {key: source_folder(key) for key in FOLDERS}
        generated = cache / "nonsmooth_generated"
        sub = {_subpath(path): key for key, path in folders.items()}
        sub[_subpath(generated)] = GENERATED
        indexes = {}
        for folder in sorted(p for p in cache.iterdir() if p.is_dir()):
            key = sub.get(folder.name)
            if key is None:
                continue
            src_root = generated if key == GENERATED else folders[key]
            (out / key).mkdir(parents=True, exist_ok=True)
            for index in sorted(folder.glob("*.nbi")):
                module = index.name.split(".", 1)[0]
                source = src_root / f"{module}.py"
                if not source.exists():
                    continue
                stem = index.name[: -len(".nbi")]
                data = sorted(p.name for p in folder.glob(f"{stem}.*.nbc"))
                for name in [*data, index.name]:
                    shutil.copyfile(folder / name, out / key / name)
                if key == GENERATED:
                    shutil.copyfile(source, out / key / source.name)
                indexes[index.name] = {"folder": key, "source": source.name,
                                       "sha256": _digest(source), "data": data}
    manifest = {"numba": numba.__version__, "python": python_tag(), "platform": platform_tag(),
                "cpu_name": CPU_NAME,
                "cpu_features": "", "sources": sources_digest(), "indexes": indexes}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def _subpath(folder: Path) -> str:
    """numba's name of the cache subfolder for sources in ``folder`` under NUMBA_CACHE_DIR."""
    from numba.core.caching import _CacheLocator

    return _CacheLocator.get_suitable_cache_subpath(str(folder / "x.py"))


def stale(root: Path | None = None) -> list[str]:
    """The shipped indexes (of the cache in ``root``) whose source file has changed since the
    cache was built (and the package's cached kernel sources that have no shipped index): empty
    when the cache is current."""
    manifest = _manifest(root) or {"indexes": {}}
    problems = []
    for name, entry in manifest["indexes"].items():
        if entry["folder"] == GENERATED:
            continue
        source = source_folder(entry["folder"]) / entry["source"]
        if not source.exists() or _digest(source) != entry["sha256"]:
            problems.append(f"{entry['folder']}/{entry['source']} ({name})")
    if manifest.get("sources") != sources_digest():
        problems.append("the kernel sources as a whole (a kernel file added, removed or changed "
                        "since the build: prebuilt.sources_digest)")
    return problems
