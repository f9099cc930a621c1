"""How command results look: JSON documents (a stable contract) and terminal text."""

from __future__ import annotations

import io
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import msgspec

from dreamd.readers import isoformat
from dreamd.runlog import SCHEMA
from dreamd.selection import Decision, Selection

if TYPE_CHECKING:
    from dreamd.readers import Conversation

__all__ = [
    "FileVersionRow",
    "Progress",
    "SessionRow",
    "colour_wanted",
    "conversation_json",
    "conversation_text",
    "dump_json",
    "fit_text",
    "selection_json",
    "selection_text",
    "session_row",
    "table_text",
]


def dump_json(document: Any) -> bytes:
    """Indented JSON of ``document``, UTF-8 (non-ASCII kept as is).

    Bytes, which ``click.echo`` writes to the binary stream as they are: a string
    would be decoded here, searched for colour codes to strip (when the output is
    not a terminal) and encoded again, three passes over ten megabytes for a
    ``sources list --json`` of ten thousand sessions.
    """
    return msgspec.json.format(msgspec.json.encode(document), indent=2)


class FileVersionRow(msgspec.Struct, gc=False):
    """A session's ``file_version`` as the ``sources list --json`` contract writes it."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    marker: str


class SessionRow(msgspec.Struct, gc=False):
    """One element of the ``sources list --json`` array: a session's metadata as the
    contract defines it (docs/json.md), then its decision.

    A struct, not a dict: a listing writes one per session, and a struct is built
    and encoded in less time than a dict of seventeen keys.
    """

    tool: str
    id: str
    path: str
    locator: str | None
    project: str | None
    first_message_at: str | None
    last_message_at: str | None
    messages: int
    user_messages: int
    revision: str | None
    file_version: FileVersionRow | None
    partial: bool
    damaged_lines: tuple[int, ...]
    notes: tuple[str, ...]
    status: str
    reason: str
    selected: bool


def session_row(decision: Decision) -> SessionRow:
    """One decision as an element of the ``sources list --json`` array."""
    info = decision.session
    version = info.file_version
    return SessionRow(
        info.tool,
        info.session_id,
        info.path,
        info.locator or None,
        info.project,
        isoformat(info.first_message_at),
        isoformat(info.last_message_at),
        info.messages,
        info.user_messages,
        info.revision,
        FileVersionRow(*version) if version is not None else None,
        bool(info.damaged_lines),
        info.damaged_lines,
        info.notes,
        decision.status,
        decision.reason,
        decision.selected,
    )


def selection_json(decisions: Sequence[Decision]) -> list[SessionRow]:
    """The ``sources list --json`` array (``dump_json`` writes it)."""
    return [session_row(decision) for decision in decisions]


def conversation_json(conversation: Conversation) -> dict[str, Any]:
    """The ``sources show --json`` document."""
    return {
        "schema": SCHEMA,
        "tool": conversation.tool,
        "id": conversation.session_id,
        "project": conversation.project,
        "revision": conversation.revision,
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "text": m.text,
                "timestamp": isoformat(m.timestamp),
                "fingerprint": m.fingerprint,
            }
            for m in conversation.messages
        ],
    }


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "-"


def _home_short(path: str | None, home: str) -> str:
    """A project path with the home folder written ``~`` (``-`` when unknown)."""
    if not path:
        return "-"
    return (
        "~" + path[len(home) :] if home and (path == home or path.startswith(home + "/")) else path
    )


def selection_text(page: Sequence[Decision], selection: Selection, stream: TextIO) -> str:
    """A table of sessions (sized to the terminal, never clipped), then a summary line."""
    home = str(Path.home()).rstrip("/")
    rows = [
        (
            d.status + ("*" if d.selected else ""),
            d.session.tool,
            _home_short(d.session.project, home),
            d.session.session_id,
            _when(d.session.last_message_at),
            str(d.session.messages),
            d.reason or "",
        )
        for d in page
    ]
    headers = ("STATUS", "TOOL", "PROJECT", "ID", "LAST MESSAGE", "MSGS", "REASON")
    table = table_text(headers, rows, stream=stream, wrap=("PROJECT", "ID", "REASON"))
    counts = Counter(d.status for d in selection.decisions)
    summary = ", ".join(f"{counts[s]} {s}" for s in sorted(counts))
    return table + fit_text(
        f"\n{len(selection.decisions)} sessions ({summary or 'none'}); "
        f"{len(selection.selected)} selected for the next collect (*), "
        f"{selection.backlog} deferred\n",
        stream,
    )


def conversation_text(conversation: Conversation) -> str:
    """The conversation as a person reads it."""
    head = [
        f"{conversation.tool}:{conversation.session_id}",
        f"project:  {conversation.project or '-'}",
        f"file:     {conversation.ref.path}",
        f"revision: {conversation.revision}",
        f"messages: {len(conversation.messages)} ({conversation.user_messages} from the user)",
        *(f"note:     {note}" for note in conversation.notes),
        *_damage_lines(conversation),
        "",
    ]
    body: list[str] = []
    for message in conversation.messages:
        body.append(f"── {message.role} · {_when(message.timestamp)} · {message.id}")
        body.append(message.text.rstrip())
        body.append("")
    return "\n".join(head + body) + ("\n" if body else "")


def _damage_lines(conversation: Conversation) -> list[str]:
    """A ``damaged:`` header line for a partial conversation (none otherwise)."""
    if not conversation.partial:
        return []
    lines = ", ".join(map(str, conversation.damaged_lines))
    return [f"damaged:  lines {lines} could not be read (partial)"]


class Progress:
    """A single self-rewriting progress line on a terminal; silent elsewhere."""

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
        self._last = 0.0
        self._shown = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self._last < 0.1 and done < total):
            return
        self._last = now
        self._shown = True
        self.stream.write(f"\r{self.label}: {done}/{total}")
        self.stream.flush()

    def done(self) -> None:
        """Clear the progress line, so the output that follows starts on a clean line."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False


def colour_wanted(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    environment = os.environ if env is None else env
    return stream.isatty() and not environment.get("NO_COLOR") and environment.get("TERM") != "dumb"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def table_text(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    stream: TextIO,
    wrap: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> str:
    """Rows as a table for ``stream``: on a terminal sized to its width, the ``wrap``
    columns folding onto more lines where they do not fit (nothing is ever cut off);
    piped, every cell at full width on one line. Bold headers only where colour is wanted.

    rich is imported here, only when a table is drawn.
    """
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table

    terminal = stream.isatty()
    needed = sum(
        max((cell_len(str(r[i])) for r in [headers, *rows]), default=0) + 2
        for i in range(len(headers))
    )  # cell widths: a wide character takes two columns
    width = shutil.get_terminal_size((80, 24)).columns if terminal else max(needed, 80)
    colour = colour_wanted(stream, env)
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        color_system="standard" if colour else None,
        force_terminal=colour,
        no_color=not colour,
        highlight=False,
        emoji=False,
        markup=False,
    )
    table = Table(box=None, pad_edge=False, header_style="bold" if colour else "", expand=False)
    for header in headers:
        table.add_column(header, overflow="fold", no_wrap=header not in wrap)
    for row in rows:
        table.add_row(*(str(cell) for cell in row))
    console.print(table)
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def fit_text(text: str, stream: TextIO) -> str:
    """``text`` for ``stream``: on a terminal each long line wraps to its width, the
    continuation indented under the line's own text; piped, unchanged (never clipped)."""
    if not stream.isatty():
        return text
    import textwrap

    width = max(shutil.get_terminal_size((80, 24)).columns, 20)
    lines = []
    for line in text.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        wrapped = textwrap.wrap(
            line,
            width=width,
            subsequent_indent=indent + "  ",
            break_on_hyphens=False,
        )
        lines += wrapped or [""]
    return "\n".join(lines) + "\n"


def visible_width(line: str) -> int:
    """The columns a line takes on a terminal (colour codes take none)."""
    return len(_ANSI.sub("", line))
