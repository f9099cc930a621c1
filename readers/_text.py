"""Valid text: what every string a reader hands on must be.

Transcripts are written by programs that cut strings anywhere. JavaScript
tools (Claude Code, Gemini CLI, OpenCode) write a string cut inside an emoji
as a lone UTF-16 surrogate (``"\\ud83d"``), which Python decodes but can never
encode as UTF-8; a crash or a padded file leaves NUL characters, which
PostgreSQL refuses and the file system rejects in a path. The rules, one
function each:

- message text loses its NULs and gets U+FFFD for each lone surrogate
  (``clean_text``); identifiers get a visible escape instead, so that two
  damaged ids stay two ids (``clean_id``);
- a decoded JSON value gets U+FFFD for lone surrogates in every string, keys
  included (``repair_surrogates``); NULs are left for the model to judge, so
  that a working directory holding one can be recognised as damaged;
- a working directory is a project only when it is plausible: valid text, no
  NUL, absolute, at most ``MAX_PATH_CHARS`` long (``project_problem``);
- what a person marks ``<private>…</private>`` never leaves a reader
  (``strip_private``): the span goes, tags and all, any case, across lines;
  an opening tag never closed hides the rest of the message; a closing tag
  with no opening one is dropped.

Nothing here does I/O.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

__all__ = [
    "MAX_PATH_CHARS",
    "clean_id",
    "clean_text",
    "is_valid_text",
    "project_problem",
    "repair_surrogates",
    "strip_private",
]

#: Longer than any path a file system accepts (Linux PATH_MAX is 4,096 bytes).
MAX_PATH_CHARS = 4096

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A private span: to its closing tag, else to the end of the text.
_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)|</private>", re.IGNORECASE | re.DOTALL)
_ID_DAMAGE = re.compile("[\x00\ud800-\udfff]")
_REPLACEMENT = "\ufffd"


def is_valid_text(text: str) -> bool:
    """True when ``text`` encodes as strict UTF-8 and holds no NUL."""
    return "\x00" not in text and (text.isascii() or _SURROGATE.search(text) is None)


def clean_text(text: str) -> str:
    """``text`` without NULs and with U+FFFD in place of each lone surrogate."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text.isascii() and _SURROGATE.search(text) is not None:
        text = _SURROGATE.sub(_REPLACEMENT, text)
    return text


def strip_private(text: str) -> str:
    """``text`` without its ``<private>…</private>`` spans (see the module's rules)."""
    return _PRIVATE.sub("", text) if "<" in text else text


def clean_id(text: str) -> str:
    """An identifier as valid text: a NUL or lone surrogate becomes its ``\\uXXXX`` escape."""
    if is_valid_text(text):
        return text
    return _ID_DAMAGE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def repair_surrogates(value: Any) -> Any:
    """A decoded JSON value with U+FFFD for every lone surrogate in its strings."""
    if isinstance(value, str):
        return value if value.isascii() else _SURROGATE.sub(_REPLACEMENT, value)
    if isinstance(value, list):
        return [repair_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {repair_surrogates(key): repair_surrogates(item) for key, item in value.items()}
    return value


def project_problem(path: str) -> str | None:
    """Why a recorded working directory cannot be a project folder, or None if it can.

    A path holding a NUL, a lone surrogate or U+FFFD (text already damaged
    and repaired), one longer than any file system accepts, or one that is
    not absolute (POSIX, or Windows with a drive or share) names no folder.
    """
    if "\x00" in path:
        return "holds a NUL character"
    if not path.isascii() and (_SURROGATE.search(path) is not None or _REPLACEMENT in path):
        return "is not valid text"
    if len(path) > MAX_PATH_CHARS:
        return f"is {len(path)} characters long"
    if path.startswith("/"):  # what a POSIX path that is absolute starts with
        return None
    if not (PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()):
        return "is not an absolute path"
    return None
