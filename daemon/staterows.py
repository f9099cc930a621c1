"""The state database's rows as Python values: runs, quarantined plans, cached sessions.

Pure conversions between ``dreamd.statedb``'s table rows and the dataclasses
the rest of dreamd reads; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import Any

import msgspec

from dreamd.readers import FileVersion
from dreamd.sessioninfo import SessionInfo

__all__ = [
    "QUARANTINE_FIELDS",
    "CacheKey",
    "JobRun",
    "KeyRow",
    "QuarantinedPlan",
    "info_from_row",
    "moment",
    "row_from_info",
    "run_from_row",
    "stamp",
]

CacheKey = tuple[str, str, str]
#: (location, inode, size, mtime_ns, ctime_ns, keys, source): one file of a store's key index.
KeyRow = tuple[str, int, int, int, int, tuple[str, ...], str]


@dataclass(frozen=True, slots=True)
class QuarantinedPlan:
    """A write plan set aside: it could not be saved (``stage`` "save") or replayed ("replay").

    ``revision`` is the session's revision then; ``path`` the plan file, if there is one.
    """

    plan_id: str
    session: str  # tool:id
    revision: str
    window_key: str
    stage: str
    reason: str
    path: str | None
    run_id: str
    quarantined_at: datetime


#: The columns of a quarantined plan, in field order.
QUARANTINE_FIELDS = tuple(f.name for f in fields(QuarantinedPlan))


@dataclass(frozen=True, slots=True)
class JobRun:
    """One recorded run of a job (``collect`` or ``dream``)."""

    run_id: str
    job: str
    mode: str
    started_at: datetime
    finished_at: datetime | None
    outcome: str | None
    summary: dict[str, Any]
    pid: int | None = None  # the process that ran it (None: recorded before pids were kept)


def run_from_row(row: Any) -> JobRun:
    """A ``JobRun`` from a ``job_run`` row read by column name."""
    return JobRun(
        run_id=row["run_id"],
        job=row["job"],
        mode=row["mode"],
        started_at=datetime.fromtimestamp(row["started_at"], tz=UTC),
        finished_at=moment(row["finished_at"]),
        outcome=row["outcome"],
        summary=msgspec.json.decode(row["summary"] or "{}"),
        pid=row["pid"],
    )


def moment(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def stamp(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


#: ``tuple.__new__``: builds a named tuple from its fields without the generated ``__new__``
#: (its Python-level call costs a third of a cache load of ten thousand rows).
_new_tuple = tuple.__new__


def info_from_row(
    row: Any, fromtimestamp: Any = datetime.fromtimestamp, utc: Any = UTC
) -> SessionInfo:
    """A ``SessionInfo`` from a row of ``_CACHE_COLUMNS`` (positional: ten thousand per load;
    ``tests/core/test_statedb.py`` round-trips every field)."""
    activity, first, last = row[9], row[11], row[12]
    return _new_tuple(
        SessionInfo,
        (
            row[0],
            row[1],
            row[2],
            row[3],
            _new_tuple(FileVersion, row[4:9]),
            None if activity is None else fromtimestamp(activity, utc),
            row[10],
            None if first is None else fromtimestamp(first, utc),
            None if last is None else fromtimestamp(last, utc),
            row[13],
            row[14],
            row[15],
            bool(row[16]),
            row[17],
            row[18],
            _lines(row[19]) if row[19] else (),
            _notes(row[20]) if row[20] else (),
        ),
    )


def _lines(value: str | None) -> tuple[int, ...]:
    """Damaged line numbers stored as ``3,7,12`` (NULL or empty: none)."""
    return tuple(int(part) for part in value.split(",")) if value else ()


def _notes(value: str | None) -> tuple[str, ...]:
    """Reader notes stored as a JSON array (NULL: none)."""
    return tuple(msgspec.json.decode(value)) if value else ()


def row_from_info(info: SessionInfo, now: datetime) -> tuple[Any, ...]:
    """The session cache row of ``info``: its ``_CACHE_COLUMNS`` in order, then ``read_at``
    (positional, as ``info_from_row`` reads them: a first scan saves ten thousand)."""
    version = info.file_version
    assert version is not None
    return (
        info.tool,
        info.session_id,
        info.path,
        info.locator,
        *version,
        stamp(info.activity_at),
        info.project,
        stamp(info.first_message_at),
        stamp(info.last_message_at),
        info.messages,
        info.user_messages,
        info.revision,
        info.machine_opening,
        info.human_replies,
        info.unresolved,
        ",".join(map(str, info.damaged_lines)) or None,
        msgspec.json.encode(list(info.notes)).decode() if info.notes else None,
        now.timestamp(),
    )
