"""A sweep's folder: ``sweep.json`` (definition and versions), ``cases.parquet`` (one row per
case), ``series/`` (each case's outputs, with ``save_series``).

``cases.parquet`` is rewritten as cases finish (at most every :data:`FLUSH_INTERVAL` seconds
while rows arrive, and at once when the sweep ends, fails or is interrupted), each time to a
temporary file moved into place, so the file is always a complete, readable table: an
interrupted sweep keeps every case that finished before the interrupt (a killed one, those up
to the last write). It holds each case once, keyed by ``case``: a case run again (a failed case
on ``resume``) replaces its row.

One sweep at a time uses a store: it holds an exclusive lock on ``.sweep.lock`` (its process
id inside) from its checks to its end; a second sweep on the store is refused at once
(:class:`StoreInUseError`), so two concurrent resumes never both run every case.
"""

from __future__ import annotations

import json
import os
import platform
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

from .definition import SweepError, differences

__all__ = ["Store", "StoreInUseError", "FLUSH_INTERVAL", "FIXED_COLUMNS", "LOCK_NAME",
           "versions"]

#: The lock file in a store: held (exclusively) by the one sweep using the store; it holds that
#: sweep's process id.
LOCK_NAME = ".sweep.lock"


class StoreInUseError(SweepError):
    """Another sweep (another process, or another ``sweep()`` call) is using the store."""

#: Seconds between two rewrites of ``cases.parquet`` while rows arrive (at least; a rewrite
#: that takes long spaces them further, to keep the writing under ~5 % of the sweep).
FLUSH_INTERVAL = 0.5

#: Columns of every sweep after the parameters, before the metrics: name, arrow type name.
FIXED_COLUMNS = (("status", "string"), ("error", "string"), ("error_type", "string"),
                 ("warning", "string"), ("wall_time", "float64"), ("evaluations", "int64"),
                 ("t_reached", "float64"))

FORMAT = 1


def versions() -> dict:
    """The versions a sweep records: nonsmooth, numpy, scipy, pyarrow, python."""
    import numpy
    import pyarrow
    import scipy

    import nonsmooth

    return {"nonsmooth": nonsmooth.__version__, "numpy": numpy.__version__,
            "scipy": scipy.__version__, "pyarrow": pyarrow.__version__,
            "python": platform.python_version()}


def _param_type(values: list):
    """The arrow type of a parameter column and the conversion of its values."""
    import pyarrow as pa

    if all(isinstance(v, bool) for v in values):
        return pa.bool_(), bool
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.int64(), int
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pa.float64(), float
    return pa.string(), str


class Store:
    """The folder of one sweep.

    Parameters
    ----------
    folder : str or os.PathLike
        Created if missing (with its parents); anything else is a :class:`SweepError`.
    """

    def __init__(self, folder):
        if not isinstance(folder, (str, os.PathLike)) or not str(folder).strip():
            raise SweepError(f"store = {folder!r} is invalid: give the sweep's folder as a path "
                             "(a str or pathlib.Path), e.g. store='runs/belt'")
        self.folder = Path(folder)
        self.definition_path = self.folder / "sweep.json"
        self.table_path = self.folder / "cases.parquet"
        self.series_dir = self.folder / "series"
        self._rows: dict[int, dict] = {}
        self._schema = None
        self._converters: dict = {}
        self._last_flush = 0.0
        self._flush_cost = 0.0
        self._dirty = False
        self.began = False
        self._lock = None

    # ------------------------------------------------------------------ the lock
    def lock(self) -> None:
        """Take the store's lock (:data:`LOCK_NAME`, an exclusive ``flock`` on POSIX) for the
        sweep's duration, or raise :class:`StoreInUseError` at once naming the process that
        holds it. The folder is created if missing."""
        self._writable()
        path = self.folder / LOCK_NAME
        try:
            handle = open(path, "a+")  # noqa: SIM115 - held until unlock()
        except OSError as exc:
            raise SweepError(f"cannot write the sweep's store to {self.folder}: "
                             f"{exc.strerror or exc}; choose a folder you can write") from None
        if not _try_lock(handle):
            handle.seek(0)
            holder = handle.read().strip() or "?"
            handle.close()
            raise StoreInUseError(
                f"another sweep (process {holder}) is using the store {self.folder}; wait for "
                "it to end (or stop it), or choose another folder")
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        self._lock = handle

    def unlock(self) -> None:
        """Release the lock taken by :meth:`lock` (the file stays: removing it would race with
        a sweep opening it)."""
        handle, self._lock = self._lock, None
        if handle is not None:
            handle.close()  # closing the file releases the lock

    # ------------------------------------------------------------------ opening
    def check(self, definition, *, resume: bool) -> None:
        """Check the folder for this definition before anything runs (nothing is written but
        the folder). Refuses: an unwritable folder; a folder holding another sweep without
        ``resume``; on ``resume``, a stored definition that differs (naming what differs)."""
        self._writable()
        if self.definition_path.exists():
            stored = self._read_json()
            if not resume:
                done = len(self.read_rows()) if self.table_path.exists() else 0
                raise SweepError(
                    f"{self.folder} already holds a sweep ({done} of "
                    f"{stored['definition'].get('n_cases', '?')} cases stored); pass "
                    "resume=True (--resume) to continue it, or choose another folder")
            diff = differences(stored["definition"], definition.describe())
            if diff:
                raise SweepError(f"cannot resume the sweep in {self.folder}: its definition "
                                 f"differs ({'; '.join(diff)}); repeat the stored definition "
                                 "(sweep.json) or use another folder")
            self._warn_versions(stored.get("versions", {}))
        elif self.table_path.exists():
            raise SweepError(f"{self.folder} holds a cases.parquet but no sweep.json: not a "
                             "sweep folder this version can continue; choose another folder")

    def begin(self, definition) -> dict[int, dict]:
        """Record the definition (``sweep.json``) and return the rows already stored, by case
        (empty for a new sweep). Call :meth:`check` first."""
        self._schema = self._make_schema(definition)
        previous = self._read_json() if self.definition_path.exists() else None
        existing = self.read_rows() if self.table_path.exists() else []
        self._rows = {int(r["case"]): r for r in existing}
        self._write_json(definition.describe(), previous)
        self.began = True
        return dict(self._rows)

    def _writable(self) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            probe = self.folder / f".write-test-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise SweepError(f"cannot write the sweep's store to {self.folder}: "
                             f"{exc.strerror or exc}; choose a folder you can write") from None

    def _read_json(self) -> dict:
        try:
            data = json.loads(self.definition_path.read_text())
            data["definition"]  # noqa: B018 - the key a sweep.json must have
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SweepError(f"{self.definition_path} is not a readable sweep definition "
                             f"({type(exc).__name__}: {exc}); choose another folder") from None
        return data

    def _write_json(self, described: dict, previous: dict | None) -> None:
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        data = {"format": FORMAT, "definition": described, "versions": versions(),
                "created": (previous or {}).get("created", now), "updated": now}
        _atomic_write(self.definition_path, lambda p: p.write_text(json.dumps(data, indent=2)))

    def _warn_versions(self, stored: dict) -> None:
        now = versions()
        changed = [f"{k} {stored[k]} -> {now.get(k)}" for k in stored if stored[k] != now.get(k)]
        if changed:
            warnings.warn(f"resuming the sweep in {self.folder} with other versions than it "
                          f"started with ({', '.join(changed)}): its rows may not be "
                          "comparable", RuntimeWarning, stacklevel=4)

    # ------------------------------------------------------------------ the table
    def _make_schema(self, definition):
        import pyarrow as pa

        fields = [pa.field("case", pa.int64())]
        for name in definition.parameters:
            kind, convert = _param_type(definition.cases.column(name))
            fields.append(pa.field(name, kind))
            self._converters[name] = convert
        fields += [pa.field(n, getattr(pa, t)()) for n, t in FIXED_COLUMNS]
        fields += [pa.field(m.name, pa.list_(pa.float64()) if getattr(m, "list_valued", False)
                            else pa.float64()) for m in definition.metrics]
        return pa.schema(fields)

    def add(self, row: dict) -> None:
        """Keep ``row`` (replacing the case's previous row) and write the table if it is due."""
        for name, convert in self._converters.items():
            if row.get(name) is not None:
                row[name] = convert(row[name])
        self._rows[int(row["case"])] = row
        self._dirty = True
        now = time.perf_counter()
        if now - self._last_flush >= max(FLUSH_INTERVAL, 20.0 * self._flush_cost):
            self.flush()

    def flush(self) -> None:
        """Write every row kept so far to ``cases.parquet`` (atomically), sorted by case."""
        if not self._dirty:
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        start = time.perf_counter()
        rows = [self._rows[k] for k in sorted(self._rows)]
        table = pa.Table.from_pylist(rows, schema=self._schema)
        _atomic_write(self.table_path, lambda p: pq.write_table(table, p))
        self._dirty = False
        self._last_flush = time.perf_counter()
        self._flush_cost = self._last_flush - start

    def read(self):
        """``cases.parquet`` as a pyarrow Table (empty with the schema if nothing is stored)."""
        import pyarrow.parquet as pq

        if not self.table_path.exists():
            if self._schema is None:
                raise SweepError(f"{self.folder} holds no cases.parquet")
            return self._schema.empty_table()
        return pq.read_table(self.table_path)

    def read_rows(self) -> list[dict]:
        return self.read().to_pylist()

    def definition(self) -> dict:
        """The stored ``sweep.json``: ``definition``, ``versions``, ``created``, ``updated``."""
        return self._read_json()


def _try_lock(handle) -> bool:
    """An exclusive lock on the open file ``handle`` without waiting: True if taken."""
    try:
        import fcntl
    except ImportError:  # Windows: a lock on the file's first byte
        import msvcrt

        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _atomic_write(path: Path, write) -> None:
    """``write(tmp)`` then move ``tmp`` to ``path``: readers see the old or the new file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
