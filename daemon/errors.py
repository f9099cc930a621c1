"""Errors dreamd reports to its user.

::

    DreamdError                 anything the user can act on; CLI exit code 1
    ├── ConfigError             bad configuration (names the file and key)
    ├── StateError              the state database cannot be opened or migrated
    ├── NotFound                a named thing (session, run) does not exist
    ├── SourceError             a transcript source exists but cannot be read
    ├── StoreError              a memory store (or a file dreamd writes) failed
    │   ├── WriteUncertain      a write may or may not have happened (reconcile first)
    │   └── UnsafePath          a link or name dreamd will not follow (also a Refused)
    ├── NotAvailable            a command this version does not provide yet
    ├── Refused                 work declined on purpose (dirty tree, stale proposal)
    └── LockHeld                another dreamd process holds the lock

Every message says what is wrong and, where it can, what to do next. The CLI
catches ``DreamdError`` once, prints it on stderr and exits 1; anything else
is a bug and is logged with a structured traceback.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "ConfigError",
    "DreamdError",
    "LockHeld",
    "NotAvailable",
    "NotFound",
    "Refused",
    "SourceError",
    "StateError",
    "StoreError",
    "UnsafePath",
    "WriteUncertain",
]


class DreamdError(Exception):
    """Base of every error dreamd reports to the user."""


class ConfigError(DreamdError):
    """The configuration file is unreadable or holds a bad value."""

    def __init__(self, path: Path | None, key: str | None, problem: str) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        where = str(path) if path else "configuration"
        if key:
            where = f"{where}: {key}"
        super().__init__(f"{where}: {problem}")


class StateError(DreamdError):
    """The state database cannot be opened, read or migrated."""


class NotFound(DreamdError):
    """A session, run or other named thing does not exist."""


class StoreError(DreamdError):
    """A memory store failed; the driver's error is chained."""


class WriteUncertain(StoreError):
    """A store write timed out or broke off: it may have happened. Reconcile, do not retry."""


class SourceError(DreamdError):
    """A transcript source was found but cannot be read or parsed."""


class NotAvailable(DreamdError):
    """The command exists in the interface but not yet in this version."""


class Refused(DreamdError):
    """dreamd declined to act, on purpose, for the stated reason."""


class UnsafePath(StoreError, Refused):
    """A symbolic link, a hard-linked file or a name that would leave its folder: refused,
    nothing done."""


class LockHeld(DreamdError):
    """Another dreamd process holds a lock this one needs."""

    def __init__(self, what: str, pid: int | None) -> None:
        self.what = what
        self.pid = pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(f"{what} is already running in {holder}")
