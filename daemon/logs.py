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

import logging
import logging.handlers
import sys
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

import structlog
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor

__all__ = ["configure_logging", "get_logger", "log_file_setting", "log_warning"]

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


def log_file_setting(option: Path | None, configured: str) -> Path | None:
    """The log file to write: a command-line path wins over ``[service] log_file`` ("": none)."""
    if option is not None:
        return option.expanduser()
    return Path(configured).expanduser() if configured.strip() else None


def _rotating_file(path: Path, max_bytes: int, backup_count: int) -> logging.Handler:
    """A size-rotated file in a folder only its user can read (created 0700 when missing)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return logging.handlers.RotatingFileHandler(
        path, maxBytes=max_bytes, backupCount=backup_count, encoding="utf-8"
    )


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
) -> None:
    """Send every log line, dreamd's and the libraries', as JSON to one place.

    ``log_file`` wins over ``stream``: the file rotates at
    ``max_bytes`` (10 MB), keeping ``backup_count`` (5) old files, and its lines carry no
    journald prefix. Calling it again replaces the previous configuration (tests rely on this).
    """
    target = log_file
    handler: logging.Handler
    if target is not None:
        handler = _rotating_file(target, max_bytes, backup_count)
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
                structlog.processors.JSONRenderer(sort_keys=False),
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
