"""How a log line is rendered: structlog's processors, JSON or a terminal line, journald's prefix.

The part of logging that needs structlog, imported by ``dreamd.logs`` the
first time a line is logged: a command that logs nothing (``dreamd status``,
``--help``) never pays for structlog's import.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import structlog
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor

from dreamd.logs import merge_context

__all__ = ["configure_structlog", "formatter", "readable_line"]

#: syslog priorities by level name, for journald's ``<N>`` line prefix.
_PRIORITIES: Mapping[str, int] = {
    "critical": 2,
    "error": 3,
    "warning": 4,
    "info": 6,
    "debug": 7,
}


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
        merge_context,  # what dreamd bound (``bind_context``)
        structlog.contextvars.merge_contextvars,  # what a library bound through structlog
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    ]


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


def formatter(*, journald: bool, readable: bool) -> logging.Formatter:
    """The formatter of the one handler: JSON (``<N>``-prefixed for journald) or, for a
    person at a terminal, :func:`readable_line`."""
    formatter_class = _JournaldFormatter if journald else structlog.stdlib.ProcessorFormatter
    return formatter_class(
        foreign_pre_chain=_shared_processors(),
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            _lead_with_core_keys,
            structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False)),
            # After the exception is rendered: its message may quote a credential too.
            _redact,
            readable_line
            if readable and not journald
            else structlog.processors.JSONRenderer(sort_keys=False),
        ],
    )


def configure_structlog() -> None:
    """Route structlog's loggers through the standard library's (and so the one handler)."""
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
