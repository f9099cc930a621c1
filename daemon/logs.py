"""JSON logging: one object per line with ``ts``, ``level``, ``event``, fields.

structlog renders every line, including those of the libraries that log
through the standard library (APScheduler, SQLAlchemy, watchdog), so that
``jq`` can read the whole stream. ``run_id`` and other job context are bound
with ``structlog.contextvars`` and appear on every line of a job run.

Destinations: stdout for the service (with a ``<N>`` syslog priority prefix
when journald reads the stream, so ``journalctl -o cat`` stays clean JSON and
priorities are real), stderr for one-shot commands (stdout belongs to their
output), or a size-rotated file (launchd does not rotate its log files).

Python warnings (a library's ``DeprecationWarning``, watchdog's) would be
printed by the ``warnings`` module straight to stderr as plain text; once
logging is configured they become ``python.warning`` lines of the same
stream (``category``, ``message``, ``filename``, ``lineno``), so under
journald every line stays one JSON object.
"""

from __future__ import annotations

import io
import json
import logging
import logging.handlers
import os
import sys
import warnings
from collections.abc import Mapping
from datetime import datetime
from io import TextIOWrapper
from pathlib import Path
from typing import Any, TextIO, cast

import structlog
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor

from dreamd.fswrite import PRIVATE_FILE, append_private, private_folder

__all__ = [
    "configure_logging",
    "get_logger",
    "journal_stream_is",
    "log_file_setting",
    "log_warning",
    "readable_line",
]

#: syslog priorities by level name, for journald's ``<N>`` line prefix.
_PRIORITIES: Mapping[str, int] = {
    "critical": 2,
    "error": 3,
    "warning": 4,
    "info": 6,
    "debug": 7,
}


def get_logger(name: str | None = None) -> Any:
    """A structlog logger (the name becomes the ``logger`` field)."""
    return structlog.get_logger(name) if name else structlog.get_logger()


class _JournaldFormatter(structlog.stdlib.ProcessorFormatter):
    """Prefix each JSON line with ``<N>``, its syslog priority, for journald."""

    def format(self, record: logging.LogRecord) -> str:
        priority = _PRIORITIES.get(record.levelname.lower(), 6)
        return f"<{priority}>{super().format(record)}"


_LEADING_KEYS = ("ts", "level", "event", "run_id", "logger")


def _lead_with_core_keys(_logger: Any, _name: str, event_dict: EventDict) -> EventDict:
    """Put ``ts``, ``level``, ``event``, ``run_id`` first so lines read well unparsed."""
    ordered = {key: event_dict.pop(key) for key in _LEADING_KEYS if key in event_dict}
    ordered.update(event_dict)
    return ordered


def _redact(logger: Any, name: str, event_dict: EventDict) -> EventDict:
    """No credential-shaped value reaches a log line, whoever logged it."""
    from dreamd.secrets import redact_log_event  # imported late: a heavy regex set

    return redact_log_event(logger, name, event_dict)


def _shared_processors() -> list[Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    ]


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


#: Fields a terminal line never repeats (they lead it, or they are noise there).
_READABLE_SKIP = frozenset({"ts", "level", "event", "logger", "run_id"})
#: At most this many of an event's own fields on a terminal line, each shortened.
_READABLE_FIELDS, _READABLE_VALUE = 5, 60


def readable_line(_logger: Any, _name: str, event_dict: EventDict) -> str:
    """One log event for a person at a terminal: ``02:30:01 info  collect.completed  mode=apply
    outcome=ok …`` (local time, level, event, a few short fields; the exception last)."""
    ts = str(event_dict.get("ts", ""))
    try:
        clock = datetime.fromisoformat(ts.replace("Z", "+00:00")).astimezone().strftime("%H:%M:%S")
    except ValueError:
        clock = ts[11:19]
    level = str(event_dict.get("level", "info"))
    fields = [(k, v) for k, v in event_dict.items() if k not in _READABLE_SKIP and k != "exception"]
    shown = []
    for key, value in fields[:_READABLE_FIELDS]:
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        if len(text) > _READABLE_VALUE:
            text = text[: _READABLE_VALUE - 1] + "…"
        shown.append(f"{key}={text}")
    more = f" (+{len(fields) - _READABLE_FIELDS} more)" if len(fields) > _READABLE_FIELDS else ""
    line = f"{clock} {level:<7} {event_dict.get('event', '')}  {' '.join(shown)}{more}".rstrip()
    exception = event_dict.get("exception")
    if exception:
        line += "\n  " + json.dumps(exception, default=str)[:2000]
    return line


def log_file_setting(option: Path | None, configured: str) -> Path | None:
    """The log file to write: a command-line path wins over ``[service] log_file`` ("": none)."""
    if option is not None:
        return option.expanduser()
    return Path(configured).expanduser() if configured.strip() else None


class _PrivateRotatingFile(logging.handlers.RotatingFileHandler):
    """A rotating log whose every file (the first and each after a rollover) is 0600."""

    def _open(self) -> TextIOWrapper:
        descriptor = append_private(Path(self.baseFilename))
        stream = open(descriptor, self.mode, encoding=self.encoding, errors=self.errors)  # noqa: SIM115
        return cast(TextIOWrapper, stream)  # text mode: the handler's mode is "a"


def _rotating_file(path: Path, max_bytes: int, backup_count: int) -> tuple[logging.Handler, bool]:
    """A size-rotated file only its user can read, and whether an existing one was tightened.

    Created 0600 (its folder 0700 when missing); an existing file readable by
    others is made 0600 (the caller logs it).
    """
    private_folder(path.parent)
    loose = path.is_file() and not path.is_symlink() and bool(path.stat().st_mode & 0o077)
    if loose:
        path.chmod(PRIVATE_FILE)
    handler = _PrivateRotatingFile(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
    )
    return handler, loose


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
    :func:`readable_line`'s instead of JSON (never for a file or the journal).

    ``log_file`` wins over ``stream``: the file rotates at
    ``max_bytes`` (10 MB), keeping ``backup_count`` (5) old files, and its lines carry no
    journald prefix. Calling it again replaces the previous configuration (tests rely on this).
    """
    target = log_file
    handler: logging.Handler
    tightened = False
    if target is not None:
        handler, tightened = _rotating_file(target, max_bytes, backup_count)
    else:
        handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    formatter_class = (
        _JournaldFormatter if journald and target is None else structlog.stdlib.ProcessorFormatter
    )
    handler.setFormatter(
        formatter_class(
            foreign_pre_chain=_shared_processors(),
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                _lead_with_core_keys,
                structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False)),
                # After the exception is rendered: its message may quote a credential too.
                _redact,
                readable_line
                if readable and target is None and not journald
                else structlog.processors.JSONRenderer(sort_keys=False),
            ],
        )
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
    structlog.configure(
        processors=[
            *_shared_processors(),
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    if tightened:  # a log file an older dreamd left readable by other users
        get_logger("dreamd.logs").warning("log.permissions.tightened", path=str(target))
