"""The state database's rows as Python values: runs, quarantined plans, cached sessions.

Pure conversions between ``dreamd.statedb``'s table rows and the dataclasses
the rest of dreamd reads; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
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
    "unpack_infos",
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


#: A cached session's metadata as stored: ``SessionInfo`` as a MessagePack array (its file
#: version nested, its times as MessagePack timestamps).
_pack = msgspec.msgpack.Encoder().encode
_unpack_all = msgspec.msgpack.Decoder(list[SessionInfo]).decode
_unpack_one = msgspec.msgpack.Decoder(SessionInfo).decode


def unpack_infos(values: list[bytes]) -> list[SessionInfo]:
    """The sessions of stored ``values``, decoded in one call as one array (ten thousand per
    listing); a value that does not decode (damaged, or from another dreamd) is left out, so
    that its session is read again rather than the whole cache lost."""
    header = b"\xdd" + len(values).to_bytes(4, "big")  # a MessagePack array of 32-bit length
    try:
        return _unpack_all(header + b"".join(values))
    except msgspec.MsgspecError:
        return [info for info in map(_unpack_or_none, values) if info is not None]


def _unpack_or_none(value: bytes) -> SessionInfo | None:
    try:
        return _unpack_one(value)
    except msgspec.MsgspecError:
        return None


def row_from_info(info: SessionInfo, now: datetime) -> tuple[str, str, str, float, bytes]:
    """The session cache row of ``info``: its key, ``read_at`` and its packed metadata
    (``unpack_infos`` reads it back)."""
    assert info.file_version is not None
    return (info.tool, info.path, info.locator, now.timestamp(), _pack(info))
