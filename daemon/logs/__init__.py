"""JSON logging: one object per line with ``ts``, ``level``, ``event``, fields.

structlog renders every line, including those of the libraries that log
through the standard library (APScheduler, SQLAlchemy, watchdog), so that
``jq`` can read the whole stream. ``run_id`` and other job context are bound
(``bind_context``) and appear on every line of a job run.

Destinations: stdout for the service (with a ``<N>`` syslog priority prefix
when journald reads the stream, so ``journalctl -o cat`` stays clean JSON and
priorities are real), stderr for one-shot commands (stdout belongs to their
output), or a size-rotated file (launchd does not rotate its log files).

Python warnings (a library's ``DeprecationWarning``, watchdog's) would be
printed by the ``warnings`` module straight to stderr as plain text; once
logging is configured they become ``python.warning`` lines of the same
stream (``category``, ``message``, ``filename``, ``lineno``), so under
journald every line stays one JSON object.

structlog is loaded by the first line logged, not by ``configure_logging``
(the rendering lives in ``dreamd.logs.format``): most commands log nothing,
and structlog with its processors is a large part of their start-up. Once
logging is configured, a line below the level is dropped before structlog is
asked (``_dropped``): a one-shot command logs at ``warning``, so its ``info``
lines cost a level check, not structlog's import (and asyncio's with it).
"""

from __future__ import annotations

import io
import logging
import os
import sys
import warnings
from collections.abc import Mapping, MutableMapping
from contextvars import ContextVar, Token
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any, TextIO

__all__ = [
    "bind_context",
    "configure_logging",
    "get_logger",
    "journal_stream_is",
    "log_file_setting",
    "log_warning",
    "merge_context",
    "reset_context",
    "unbind_context",
]

#: Set by ``configure_logging``: structlog is configured when the first line is logged.
_structlog_pending = False
#: Set by ``configure_logging``: the standard library's levels decide which lines are kept.
_configured = False

#: structlog's logging methods and the level each logs at.
_METHOD_LEVELS: Mapping[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "exception": logging.ERROR,
    "critical": logging.CRITICAL,
    "fatal": logging.CRITICAL,
}


def _import_structlog() -> ModuleType:
    """structlog, imported without its optional rich integration.

    ``structlog.dev`` and ``structlog.tracebacks`` import rich (and with it
    pygments and attrs: about 10 MB resident in the service) whenever it is
    installed, for the console renderer and for showing a frame's locals;
    dreamd uses neither. rich is hidden while structlog loads and stays
    importable afterwards, for the terminal tables.
    """
    if "structlog" in sys.modules:
        return sys.modules["structlog"]
    hidden = "rich" not in sys.modules
    if hidden:
        sys.modules["rich"] = None  # type: ignore[assignment]  # ``import rich`` fails
    try:
        import structlog
    finally:
        if hidden:
            del sys.modules["rich"]
    return structlog


def _structlog() -> Any:
    """structlog, imported (and configured, when ``configure_logging`` asked) on first use."""
    global _structlog_pending
    structlog = _import_structlog()
    if _structlog_pending:
        from dreamd.logs.format import configure_structlog

        _structlog_pending = False
        configure_structlog()
    return structlog


class _Logger:
    """A structlog logger that imports structlog only when it first logs or binds."""

    __slots__ = ("_name", "_real")

    def __init__(self, name: str | None) -> None:
        self._name = name
        self._real: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if _dropped(self._name, attribute):
            return _drop
        if self._real is None or _structlog_pending:
            structlog = _structlog()
            self._real = structlog.get_logger(self._name) if self._name else structlog.get_logger()
        return getattr(self._real, attribute)


def _dropped(name: str | None, method: str) -> bool:
    """Whether a line logged with ``method`` on logger ``name`` is below the configured level
    (the standard library decides, as it would once structlog handed the line over; before
    ``configure_logging`` nothing is dropped here)."""
    level = _METHOD_LEVELS.get(method)
    return _configured and level is not None and not logging.getLogger(name).isEnabledFor(level)


def _drop(*_args: Any, **_fields: Any) -> None:
    """A logging method whose line the level drops."""


def get_logger(name: str | None = None) -> Any:
    """A structlog logger (the name becomes the ``logger`` field), loaded on first use."""
    return _Logger(name)


#: What ``bind_context`` adds to every line logged in this context (a job's ``run_id``). Kept
#: in a context variable of dreamd's own, not in structlog's, so that binding loads nothing:
#: a job that logs no line never imports structlog (``merge_context`` adds the values).
_CONTEXT: ContextVar[Mapping[str, Any]] = ContextVar(
    "dreamd_log_context", default=MappingProxyType({})
)


def bind_context(**values: Any) -> Token[Mapping[str, Any]]:
    """Add ``values`` (a job's ``run_id``) to every line logged in this context; returns
    the token ``reset_context`` takes to put the previous values back."""
    return _CONTEXT.set({**_CONTEXT.get(), **values})


def reset_context(token: Token[Mapping[str, Any]]) -> None:
    """Put back the context values ``bind_context`` replaced."""
    _CONTEXT.reset(token)


def unbind_context(*keys: str) -> None:
    """Drop ``keys`` from the context of the lines logged from now on."""
    _CONTEXT.set({key: value for key, value in _CONTEXT.get().items() if key not in keys})


def merge_context(
    _logger: Any, _name: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """A structlog processor: the bound values on the line (the line's own fields win)."""
    for key, value in _CONTEXT.get().items():
        event_dict.setdefault(key, value)
    return event_dict


class _DeferredFormatter(logging.Formatter):
    """The handler's formatter, built (importing structlog) when the first record arrives."""

    def __init__(self, *, journald: bool, readable: bool) -> None:
        super().__init__()
        self._options = {"journald": journald, "readable": readable}
        self._real: logging.Formatter | None = None

    def format(self, record: logging.LogRecord) -> str:
        if self._real is None:
            _structlog()
            from dreamd.logs.format import formatter

            self._real = formatter(**self._options)
        return self._real.format(record)


def journal_stream_is(value: str | None, stream: TextIO) -> bool:
    """Whether ``stream`` is the journal connection systemd named in ``JOURNAL_STREAM``.

    systemd's rule (systemd.exec(5)): the variable is ``DEVICE:INODE`` of the stream it
    connected; a process must compare it with its own stdout, because a shell started from
    a service inherits the variable while its stdout is a terminal or a pipe.
    """
    device, _, inode = (value or "").partition(":")
    try:
        status = os.fstat(stream.fileno())
        return (status.st_dev, status.st_ino) == (int(device), int(inode))
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


def log_file_setting(option: Path | None, configured: str) -> Path | None:
    """The log file to write: a command-line path wins over ``[service] log_file`` ("": none)."""
    if option is not None:
        return option.expanduser()
    return Path(configured).expanduser() if configured.strip() else None


def log_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """``warnings.showwarning`` as a log line: what ``logging.captureWarnings`` does (the
    ``py.warnings`` logger), with the warning's parts as fields instead of one text."""
    get_logger("py.warnings").warning(
        "python.warning",
        category=category.__name__,
        message=str(message),
        filename=filename,
        lineno=lineno,
    )


#: Libraries whose INFO lines are noise next to dreamd's own events.
_CHATTY_LIBRARIES = ("apscheduler", "alembic", "watchdog")


def configure_logging(
    level: str = "info",
    *,
    stream: TextIO | None = None,
    log_file: Path | None = None,
    max_bytes: int = 10_000_000,
    backup_count: int = 5,
    journald: bool = False,
    readable: bool = False,
) -> None:
    """Send every log line, dreamd's and the libraries', as JSON to one place.

    ``readable``: a person reads ``stream`` at a terminal; lines are
    ``dreamd.logs.format.readable_line``'s instead of JSON (never for a file or the journal).

    ``log_file`` wins over ``stream``: the file rotates at
    ``max_bytes`` (10 MB), keeping ``backup_count`` (5) old files, and its lines carry no
    journald prefix. Calling it again replaces the previous configuration (tests rely on this).
    """
    target = log_file
    handler: logging.Handler
    tightened = False
    if target is not None:
        from dreamd.logs.files import rotating_file  # logging.handlers: only with a file

        handler, tightened = rotating_file(target, max_bytes, backup_count)
    else:
        handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    in_file = target is not None
    handler.setFormatter(
        _DeferredFormatter(journald=journald and not in_file, readable=readable and not in_file)
    )
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(level.upper())
    # The libraries' own INFO lines ("Running job ...", "setup plugin ...") restate what
    # dreamd logs as events; they show at debug level only.
    chatty = logging.DEBUG if level.lower() == "debug" else logging.WARNING
    for library in _CHATTY_LIBRARIES:
        logging.getLogger(library).setLevel(chatty)
    logging.captureWarnings(True)  # the py.warnings logger, for anything that looks for it
    warnings.showwarning = log_warning
    global _structlog_pending, _configured
    _structlog_pending = True
    _configured = True
    if tightened:  # a log file an older dreamd left readable by other users
        get_logger("dreamd.logs").warning("log.permissions.tightened", path=str(target))
