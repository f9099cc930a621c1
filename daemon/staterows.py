"""The state database's rows as Python values: runs, quarantined plans, cached sessions.

Pure conversions between ``dreamd.statedb``'s table rows and the records
the rest of dreamd reads; no I/O.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from dreamd.sessioninfo import SessionInfo

__all__ = [
    "QUARANTINE_FIELDS",
    "CacheKey",
    "JobRun",
    "KeyRow",
    "QuarantinedPlan",
    "moment",
    "row_from_info",
    "run_from_row",
    "unpack_info",
]

CacheKey = tuple[str, str, str]
#: (location, inode, size, mtime_ns, ctime_ns, keys, source): one file of a store's key index.
KeyRow = tuple[str, int, int, int, int, tuple[str, ...], str]


class QuarantinedPlan(msgspec.Struct, frozen=True):
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
QUARANTINE_FIELDS = tuple(f.name for f in msgspec.structs.fields(QuarantinedPlan))


class JobRun(msgspec.Struct, frozen=True):
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


#: A cached session's metadata as stored: ``SessionInfo`` as a MessagePack array (its file
#: version nested, its times as MessagePack timestamps), decoded in C.
_pack = msgspec.msgpack.Encoder().encode
_unpack = msgspec.msgpack.Decoder(SessionInfo).decode


def unpack_info(value: bytes) -> SessionInfo | None:
    """The session of a stored value; None when it does not decode (damaged, or written by
    another dreamd), so that only that session is read again, not the whole cache lost.

    One call per row as the rows stream in: ten thousand per listing, and decoding them
    together would hold every value and a joined copy of them at once.
    """
    try:
        return _unpack(value)
    except msgspec.MsgspecError:
        return None


def pack_sessions(infos: list[SessionInfo]) -> bytes:
    """Many sessions as one MessagePack array, each as a cache row stores it (how the read
    pool's workers hand their summaries back)."""
    return _pack(infos)


#: ``pack_sessions`` read back; raises ``msgspec.MsgspecError`` for anything else.
unpack_sessions = msgspec.msgpack.Decoder(list[SessionInfo]).decode


def row_from_info(info: SessionInfo, now: datetime) -> tuple[str, str, str, float, bytes]:
    """The session cache row of ``info``: its key, ``read_at`` and its packed metadata
    (``unpack_info`` reads it back)."""
    assert info.file_version is not None
    return (info.tool, info.path, info.locator, now.timestamp(), _pack(info))
