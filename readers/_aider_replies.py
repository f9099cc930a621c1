"""Aider's replies: the prose left once reasoning, edits and leaked notices are cut.

Assistant replies are logged as plain text set off by blank lines. Replies
lose reasoning blocks (``strip_reasoning``), SEARCH/REPLACE edit blocks
(``drop_search_replace``), whole-file, unified-diff and patch edits
(``drop_file_edits``, ``drop_patches``) and leaked notice lines
(``is_notice_line``); ``clean_reply`` applies them all: reasoning first, then
SEARCH/REPLACE blocks, patches, fenced file edits, notice lines.

Invariants: fences are recognised by the one fence rule of
``dreamd.markdown``; code blocks that are not edits stay; the result has no
trailing spaces, no runs of blank lines and no outer blank lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dreamd.markdown import closes, opening, opening_with_info

__all__ = [
    "clean_reply",
    "drop_file_edits",
    "drop_patches",
    "drop_search_replace",
    "is_notice_line",
    "strip_reasoning",
]

_REASONING = re.compile(
    r"<(thinking-content-[0-9a-fA-F]+|think|thinking)>.*?(?:</\1\s*>|\Z)"
    r"|-{5,}\n► \*\*THINKING\*\*.*?(?:-{5,}\n► \*\*ANSWER\*\*|\Z)",
    re.DOTALL,
)
_SEARCH = re.compile(r"^<{5,9} (?:SEARCH>?|ORIGINAL)\s*$")
_REPLACE = re.compile(r"^>{5,9} (?:REPLACE|UPDATED)\s*$")
_DIFF_LANGS = frozenset({"diff", "patch", "udiff"})
_PATCH_BEGIN, _PATCH_END = "*** Begin Patch", "*** End Patch"

#: Lines of Aider's own messages that reach reply text when a file lost its
#: trailing spaces (an editor or hook stripped them): interrupts, edit failures.
_NOTICE_LINE = re.compile(
    r"^(?:\^C KeyboardInterrupt|\^C again to exit"
    r"|# \d+ SEARCH/REPLACE blocks? failed to match!"
    r"|## SearchReplaceNoExactMatch:"
    r"|The SEARCH section must exactly match an existing block"
    r"|Did you mean to match some of these actual lines from "
    r"|Are you sure you need this SEARCH/REPLACE block\?"
    r"|The REPLACE lines are already in "
    r"|# The other \d+ SEARCH/REPLACE blocks? w(?:ere|as) applied successfully"
    r"|Don't re-send them\.$"
    r"|Just reply with fixed versions of the blocks? above that failed to match"
    r"|The LLM did not conform to the edit format\.)"
)


def clean_reply(text: str) -> str:
    """A reply's prose: reasoning, edit blocks and leaked notices removed."""
    lines = strip_reasoning(text).split("\n")
    lines = drop_search_replace(lines)
    lines = drop_patches(lines)
    lines = drop_file_edits(lines)
    return _tidy(line for line in lines if not is_notice_line(line))


def strip_reasoning(text: str) -> str:
    """Remove ``<thinking-content-<hex>>`` blocks (Aider's tag for model reasoning),
    raw ``<think>``/``<thinking>`` blocks and Aider's THINKING/ANSWER framing."""
    return _REASONING.sub("", text)


def drop_search_replace(lines: list[str]) -> list[str]:
    """Remove ``<<<<<<< SEARCH`` ... ``>>>>>>> REPLACE`` edit blocks with the file
    name and fences around them, in whichever order the model put those."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        if _SEARCH.match(lines[index]):
            _drop_block_lead(kept)
            index = _after_edit_block(lines, index)
            continue
        kept.append(lines[index])
        index += 1
    return kept


def _drop_block_lead(kept: list[str]) -> None:
    """Pop the fence and file-name lines (at most three) that open an edit block."""
    for _ in range(3):
        if kept and (opening(kept[-1]) is not None or _is_file_name(kept[-1])):
            kept.pop()
        else:
            return


def _after_edit_block(lines: list[str], start: int) -> int:
    """Index past the block's REPLACE marker and its closing fence; an unfinished
    block runs to the next bare fence or the end."""
    for index in range(start + 1, len(lines)):
        if _REPLACE.match(lines[index]):
            after = index + 1
            if after < len(lines) and _is_bare_fence(lines[after]):
                after += 1
            return after
    for index in range(start + 1, len(lines)):
        if _is_bare_fence(lines[index]):
            return index + 1
    return len(lines)


def drop_patches(lines: list[str]) -> list[str]:
    """Remove ``*** Begin Patch`` ... ``*** End Patch`` edits (Aider's patch format)."""
    kept: list[str] = []
    inside = False
    for line in lines:
        if line.strip() == _PATCH_BEGIN:
            inside = True
        elif inside and line.strip() == _PATCH_END:
            inside = False
        elif not inside:
            kept.append(line)
    return kept


def drop_file_edits(lines: list[str]) -> list[str]:
    """Remove fenced blocks that are edits: a whole file under its name (Aider's
    ``whole`` format: the line before the fence is the file name), a unified diff,
    or a block left empty by the other rules. Other code blocks stay."""
    kept: list[str] = []
    index = 0
    while index < len(lines):
        opener = opening_with_info(lines[index])
        if opener is None:
            kept.append(lines[index])
            index += 1
            continue
        fence, info = opener
        close = _closing_fence(lines, index, fence)
        body = lines[index + 1 : close]
        if kept and _is_file_name(kept[-1]):
            kept.pop()
        elif _is_fenced_name(body) and close + 1 < len(lines) and lines[close + 1].strip():
            close = _next_bare_fence(lines, close + 1)
        elif not _is_diff(info.split(" ")[0], body) and any(line.strip() for line in body):
            kept.extend(lines[index : close + 1])
        index = close + 1
    return kept


def _is_fenced_name(body: list[str]) -> bool:
    """A block holding only a file name: a ``whole`` edit whose model fenced the
    name and then wrote the file unfenced up to a closing fence."""
    names = [line for line in body if line.strip()]
    return len(names) == 1 and _is_file_name(names[0])


def _next_bare_fence(lines: list[str], start: int) -> int:
    """Index of the first bare fence at or after ``start`` (or the last line)."""
    for index in range(start, len(lines)):
        if _is_bare_fence(lines[index]):
            return index
    return len(lines)


def _closing_fence(lines: list[str], start: int, fence: str) -> int:
    """Index of the fence closing the block opened at ``start`` (or the last line)."""
    for index in range(start + 1, len(lines)):
        if closes(lines[index], fence):
            return index
    return len(lines)


def _is_diff(language: str, body: list[str]) -> bool:
    """A unified diff in a ``diff`` block: Aider's ``udiff`` edit format."""
    return language.lower() in _DIFF_LANGS and any(
        line.startswith(("@@", "+++ ", "--- ")) for line in body
    )


def _is_bare_fence(line: str) -> bool:
    """A fence line without a language: the close (or a bare open) of an edit block."""
    opened = opening_with_info(line)
    return opened is not None and not opened[1]


def _is_file_name(line: str) -> bool:
    """A line holding only a path, as Aider expects before an edit block
    (it strips ``*``, backticks, ``#`` and a trailing colon the same way)."""
    name = line.strip().strip("*").rstrip(":").strip("`").lstrip("#").strip()
    if not name or len(name) > 250 or any(char.isspace() for char in name):
        return False
    return ("." in name or "/" in name) and not name.startswith(("<", "`", "~", "http"))


def is_notice_line(line: str) -> bool:
    """A line of Aider's own notices that can leak into reply text."""
    return _NOTICE_LINE.match(line.strip()) is not None


def _tidy(lines: Iterable[str]) -> str:
    """Trailing spaces removed, runs of blank lines collapsed, outer blanks stripped."""
    out: list[str] = []
    for raw in lines:
        line = raw.rstrip()
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
