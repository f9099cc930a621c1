"""Fenced code blocks, one rule for every reader of Markdown in dreamd.

Transcripts, memory files, ``MEMORY.md`` indexes, the sectioned store and
pending proposals all hold fenced code; what is inside a fence is code, never
prose, an entry, a reference or a relative date. The rule (CommonMark's, with
one deliberate difference):

- a fence opens on a line whose first non-blank characters are three or more
  backticks or tildes; a backtick fence's info string holds no backtick
  (``` ```x``` ``` on one line is inline code, not a fence);
- it closes on a line holding only the same character, at least as many times
  (surrounding blanks allowed); an unclosed fence runs to the end of the text;
- the difference: any indentation opens a fence, not only up to three spaces.
  Memory files and chat messages nest fences in list items, where CommonMark
  counts the indent from the item's content; treating a deeper fence as code
  never reads code as prose, which is the mistake that matters here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = [
    "blank_fenced",
    "closes",
    "fence_after",
    "fenced_flags",
    "opening",
    "opening_with_info",
    "without_fenced",
]

_OPENING = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\r\n]*)")


def opening(line: str) -> str | None:
    """The fence (``````` or ``~~~~`` …) that ``line`` opens, or None."""
    opened = opening_with_info(line)
    return None if opened is None else opened[0]


def opening_with_info(line: str) -> tuple[str, str] | None:
    """The fence ``line`` opens and its info string (the language, stripped), or None."""
    match = _OPENING.match(line)
    if match is None:
        return None
    fence, info = match["fence"], match["info"]
    if fence[0] == "`" and "`" in info:
        return None
    return fence, info.strip()


def closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened with ``fence``."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def fence_after(fence: str | None, line: str) -> str | None:
    """The fence open after ``line``, given the one open before it (None: not in code)."""
    if fence is None:
        return opening(line)
    return None if closes(line, fence) else fence


def fenced_flags(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Each line with whether it belongs to a fenced block (its fence lines included)."""
    fence: str | None = None
    for line in lines:
        before, fence = fence, fence_after(fence, line)
        yield line, before is not None or fence is not None


def blank_fenced(text: str) -> str:
    """``text`` with every fenced block's characters turned to spaces (line breaks kept),
    so positions and line numbers of the rest stay where they were."""
    if "```" not in text and "~~~" not in text:
        return text
    return "".join(
        _blank(line) if fenced else line
        for line, fenced in fenced_flags(text.splitlines(keepends=True))
    )


def without_fenced(text: str) -> str:
    """``text`` without its fenced blocks (a block leaves one line break)."""
    if "```" not in text and "~~~" not in text:
        return text
    kept: list[str] = []
    for line, fenced in fenced_flags(text.splitlines(keepends=True)):
        if not fenced:
            kept.append(line)
        elif not kept or kept[-1] != "\n":
            kept.append("\n")
    return "".join(kept)


def _blank(line: str) -> str:
    body = line.rstrip("\r\n")
    return " " * len(body) + line[len(body) :]
