"""How reference extraction reads a memory's text (seed 000 STEP 2). Pure.

Shared by the file and symbol references (``dreamd.dream.folder.pathrefs``,
``dreamd.dream.folder.symbolrefs``): URLs are blanked, never read as paths or
names; text is read line by line with each line's offset, so a rule can test a
line for a cheap trigger before running a regular expression on it; backticked
spans are found on one line.

Invariant: blanking keeps every offset and line break, so a position found in
the blanked text is a position in the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["CODE_SPAN", "blank_match", "lines_with_offsets", "without_urls"]

CODE_SPAN = re.compile(r"`([^`\n]+)`")
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s)>\]`'\"]*")


_NOT_NEWLINE = re.compile(r"[^\n]")


def blank_match(match: re.Match[str]) -> str:
    """Replacement keeping offsets and lines: the match becomes spaces."""
    return _NOT_NEWLINE.sub(" ", match.group())


def without_urls(text: str) -> str:
    """``text`` with URLs blanked (tested first: most memories hold none)."""
    return _URL.sub(blank_match, text) if "://" in text else text


def lines_with_offsets(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line) pairs of ``text``.

    The rules test each line for a cheap trigger (``/``, ``()``, a backtick)
    before running a regex on it: on ten thousand memories that is most of
    the extraction time saved.
    """
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1
