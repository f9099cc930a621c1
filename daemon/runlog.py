"""Every run's report kept on disk, pruned after a retention, and runs found by an ID prefix.

``dreamd log`` and ``dreamd show`` read what is kept here: one JSON file per
run (collect and dream, dry runs too), ``<data dir>/reports/<job>-<run id>.json``,
each ``0600`` in a ``0700`` folder (reports name files and projects). A new
report prunes those older than :data:`RETENTION_DAYS`; the run's row in the
state database stays, so ``dreamd log`` still lists it, and ``dreamd show``
says its report was pruned.

Run IDs are accepted by a unique prefix, as git accepts short hashes
(:func:`resolve_run`).
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

from dreamd.errors import NotFound, Refused, StateError
from dreamd.fswrite import PRIVATE_FILE, atomic_write
from dreamd.statedb import JobRun, StateDB

__all__ = [
    "RETENTION_DAYS",
    "SCHEMA",
    "load_report",
    "prune_reports",
    "report_path",
    "resolve_run",
    "save_report",
]

#: Reports older than this many days are deleted when a new one is written.
RETENTION_DAYS = 90

#: The version of every ``--json`` document dreamd prints (its ``schema`` field).
SCHEMA = 1

_FOLDER_MODE = 0o700


def reports_dir(data_dir: Path) -> Path:
    """Where the reports are kept."""
    return data_dir / "reports"


def report_path(data_dir: Path, job: str, run_id: str) -> Path:
    """The file one run's report is kept in."""
    return reports_dir(data_dir) / f"{job}-{run_id}.json"


def save_report(data_dir: Path, job: str, run_id: str, document: dict[str, Any]) -> Path:
    """Write one run's report (``0600`` in a ``0700`` folder) and read it back; raises
    ``StateError`` when it does not read back as written."""
    folder = reports_dir(data_dir)
    folder.mkdir(mode=_FOLDER_MODE, parents=True, exist_ok=True)
    folder.chmod(_FOLDER_MODE)  # a folder an older version made with the umask's mode
    path = report_path(data_dir, job, run_id)
    data = msgspec.json.encode(document)
    atomic_write(path, data, mode=PRIVATE_FILE)
    if path.read_bytes() != data:  # byte for byte: what was written is what is kept
        raise StateError(f"the report {path} did not read back as written")
    return path


def load_report(data_dir: Path, run: JobRun) -> dict[str, Any] | None:
    """The kept report of ``run`` (None: never written, or pruned)."""
    path = report_path(data_dir, run.job, run.run_id)
    try:
        document = msgspec.json.decode(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, msgspec.DecodeError) as error:
        raise StateError(f"cannot read the report {path}: {error}") from error
    return document if isinstance(document, dict) else None


def expired(modified: float, now: datetime, days: int = RETENTION_DAYS) -> bool:
    """Whether a report last written at ``modified`` (seconds) is past the retention."""
    return modified < (now - timedelta(days=days)).timestamp()


def prune_reports(data_dir: Path, now: datetime, days: int = RETENTION_DAYS) -> list[Path]:
    """Delete the reports older than ``days``; returns what was deleted."""
    folder = reports_dir(data_dir)
    pruned = []
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return []
    for entry in entries:
        if not (entry.name.endswith(".json") and entry.is_file(follow_symlinks=False)):
            continue
        if expired(entry.stat(follow_symlinks=False).st_mtime, now, days):
            Path(entry.path).unlink(missing_ok=True)
            pruned.append(Path(entry.path))
    return pruned


def matching(run_ids: list[str], prefix: str) -> list[str]:
    """The run IDs ``prefix`` names: itself when it is one, else every ID starting with it."""
    if prefix in run_ids:
        return [prefix]
    return [run_id for run_id in run_ids if run_id.startswith(prefix)]


def resolve_run(state: StateDB, prefix: str) -> JobRun:
    """The one recorded run a full ID or a unique prefix names.

    Raises ``NotFound`` (no such run, with the recent ones) or ``Refused`` (an
    ambiguous prefix, with every candidate).
    """
    candidates = matching(state.run_ids(prefix), prefix) if prefix.strip() else []
    if len(candidates) > 1:
        raise Refused(f"run ID {prefix!r} is ambiguous: it names {', '.join(candidates)}")
    run = state.run(candidates[0]) if candidates else None
    if run is None:
        recent = ", ".join(r.run_id for r in state.runs(limit=5)) or "none yet"
        raise NotFound(f"no run {prefix!r} (recent runs: {recent}; see 'dreamd log')")
    return run
