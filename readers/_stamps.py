"""The two things of the reader model that every command touches: a file's version and a time
written as dreamd writes it.

Kept apart from ``_model`` (messages, conversations, their checks and hashes) so
that ``status`` and the state database, which read both from the session cache,
import neither a reader nor the model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

__all__ = ["FileVersion", "isoformat"]


def isoformat(moment: datetime | None) -> str | None:
    """ISO-8601 UTC with millisecond precision and a ``Z`` suffix (or None).

    What ``moment.astimezone(UTC).isoformat(timespec="milliseconds")`` writes, with
    ``Z`` for ``+00:00``, put together from the fields at less than half its cost:
    ``sources show`` writes one per message, ``sources list`` two per session.
    """
    if moment is None:
        return None
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    two = _TWO_DIGITS
    return (
        f"{moment.year:04d}-{two[moment.month]}-{two[moment.day]}T{two[moment.hour]}:"
        f"{two[moment.minute]}:{two[moment.second]}{_MILLISECONDS[moment.microsecond // 1000]}"
    )


_TWO_DIGITS = tuple(f"{number:02d}" for number in range(100))
_MILLISECONDS = tuple(f".{number:03d}Z" for number in range(1000))


class FileVersion(NamedTuple):
    """Identity of the bytes a session was read from.

    ``marker`` distinguishes sessions that share one file (rows of a SQLite
    database, chats of an Aider history): it carries whatever the reader can
    learn cheaply that changes when that one session changes. A named tuple,
    because every rescan makes one per file and compares it with the cache.
    """

    device: int
    inode: int
    size: int
    mtime_ns: int
    marker: str = ""

    @property
    def mtime(self) -> datetime:
        return datetime.fromtimestamp(self.mtime_ns / 1e9, tz=UTC)

    def with_marker(self, marker: str) -> FileVersion:
        """The same file version for one session of a shared file."""
        return self._replace(marker=marker)

    def as_dict(self) -> dict[str, int | str]:
        """A new dict of the fields (spelled out: ``_asdict`` costs three times as much)."""
        device, inode, size, mtime_ns, marker = self
        return {
            "device": device,
            "inode": inode,
            "size": size,
            "mtime_ns": mtime_ns,
            "marker": marker,
        }
