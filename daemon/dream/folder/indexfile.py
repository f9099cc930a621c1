"""What a ``MEMORY.md`` is: its line model and the parser that builds it (seed 000 STEP 5).

A real index is more than a link list (issue 3, item 7): users write a title,
``##`` sections, prose notes and plain bullets between the links.
``parse_index`` keeps every line as written and says what it is; the rules
that change an index live in ``dreamd.dream.folder.index`` (the rebuild) and
``dreamd.dream.folder.budget`` (the byte budget), both on top of this model.

Vocabulary:

- an *entry* is a list item that opens with a link to a topic file of this
  folder: ``- [Title](file.md) — hook``, ``-- hook``, ``: hook``, no hook, or
  bold-wrapped ``- **[Title](file.md)** — hook``. Entries are what the index
  points with; each topic file has exactly one across ``MEMORY.md`` and
  ``MEMORY-ARCHIVE.md``;
- a link anywhere else (inside prose, after other words) is a *mention*; links
  to URLs, directories, ``../x.md``, ``sub/x.md`` or ``MEMORY*.md`` are
  neither: they are not topic files and are left alone;
- a ``[[stem]]`` is a *wikilink*: recorded per line, never resolved here;
- lines inside a fenced code block are ``code``: opaque, never entries; the
  first heading before any other content is the ``title``; the line
  ``> N memory files ... [..](MEMORY-ARCHIVE.md)`` is the ``trailer``.

Invariants: ``parse_index(text).render() == text`` for every text (line
endings, a final newline or its absence, and a byte order mark included);
every value here is frozen, so a rule changes an index only by building a new
one (``Index.with_lines``, ``with_hook``). Nothing here reads or writes files.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final, Literal
from urllib.parse import unquote

import msgspec

from dreamd.dream.folder.layers import is_read_only
from dreamd.markdown import fence_after

__all__ = [
    "ARCHIVE_NAME",
    "INDEX_NAME",
    "Entry",
    "Index",
    "IndexLine",
    "LineKind",
    "Link",
    "close_open_fence",
    "find_links",
    "is_plain_list",
    "is_topic_file_name",
    "is_trailer_text",
    "memoised_lines",
    "parse_index",
    "parse_line",
    "topic_target",
    "wikilink_stems",
    "with_hook",
]

INDEX_NAME: Final = "MEMORY.md"
ARCHIVE_NAME: Final = "MEMORY-ARCHIVE.md"

LineKind = Literal["title", "heading", "blank", "entry", "trailer", "code", "text"]

# A list item's marker: ``-``, ``*``, ``+`` or ``1.`` / ``1)``, then an optional bold opener.
_BULLET = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?P<open>\*\*|__)?")
# The separator between an entry's link and its hook: dash forms, a colon, or spaces.
_SEPARATOR = re.compile(r"^(?:[ \t]*(?:\u2014|\u2013|--|-|:)[ \t]*|[ \t]+)")
_INDEX_NAMES = frozenset({"memory.md", "memory-archive.md"})
_BRACKET = re.compile(r"\\.|[\[\]]")
_TARGET_STOP = re.compile(r"[\s()]")
_HEADING = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<text>.*?)(?:[ \t]+#+)?[ \t]*$")
_TRAILER = re.compile(r"^>[ \t]*\d+[ \t]+memory[ \t]+files?\b", re.IGNORECASE)
_ARCHIVE_WORD = re.compile(r"\bMEMORY-ARCHIVE\.md\b")
_WIKILINK = re.compile(r"\[\[(?P<stem>[^\[\]|#\n]+)(?:[#|][^\[\]\n]*)?\]\]")


# --------------------------------------------------------------------------- model


class Link(msgspec.Struct, frozen=True, gc=False):
    """A Markdown inline link found in a line: where it is and what it says.

    This and the two below are frozen msgspec structs, not dataclasses: a large
    index makes tens of thousands of them, and a struct is built in a tenth of
    the time (none holds a cycle, so the cycle collector need not track them).
    """

    start: int
    end: int
    label: str
    target: str
    target_span: tuple[int, int]


class Entry(msgspec.Struct, frozen=True, gc=False):
    """The link that opens an entry line, split so a hook can be shortened.

    ``head + hook`` is the whole line; ``head`` ends with the separator.
    ``file`` is the topic file the target names (anchor, ``./`` and
    %-escapes removed), spelled as written.
    """

    file: str
    title: str
    head: str
    hook: str
    separator: str
    target_span: tuple[int, int]


class IndexLine(msgspec.Struct, frozen=True, gc=False):
    """One line of an index, as written (no line ending), and what it is."""

    text: str
    kind: LineKind
    level: int = 0
    heading: str = ""
    entry: Entry | None = None
    mentions: tuple[str, ...] = ()  # topic files linked elsewhere in the line
    wikilinks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Index:
    """A parsed ``MEMORY.md`` (or ``MEMORY-ARCHIVE.md``): its lines and how they end."""

    lines: tuple[IndexLine, ...]
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry, in order."""
        return tuple(line.entry for line in self.lines if line.entry is not None)

    @property
    def title(self) -> IndexLine | None:
        """The title heading, when the index opens with one."""
        return next((line for line in self.lines if line.kind == "title"), None)

    def render(self) -> str:
        """The text, byte for byte as parsed when nothing changed."""
        body = self.newline.join(line.text for line in self.lines)
        if self.lines and self.final_newline:
            body += self.newline
        return ("\ufeff" if self.bom else "") + body

    def with_lines(self, lines: Iterable[IndexLine]) -> Index:
        """The same index with other lines."""
        return replace(self, lines=tuple(lines))


# --------------------------------------------------------------------------- parsing


def is_topic_file_name(name: str) -> bool:
    """Whether a file name is a topic file: ``*.md`` beside the index, not ``MEMORY*.md``.

    Hidden files (``.MEMORY.md.prev``) are not topic files either, nor read-only
    layers (``CLAUDE.md``, ``AGENTS.md``: seed 001, never indexed as memories).
    """
    if not name.endswith(".md") or name.startswith(("MEMORY", ".")) or "/" in name:
        return False
    return not is_read_only(name)


def topic_target(target: str) -> str | None:
    """The topic file a link target names, or None when it leaves the folder.

    URLs, directories, paths with a folder part (``../x.md``, ``sub/x.md``),
    non-Markdown files and ``MEMORY*.md`` are not topic files. ``./``, an
    anchor and %-escapes are removed; the case is kept as written.
    """
    raw = target.strip()
    if raw.startswith("<") and raw.endswith(">"):
        raw = raw[1:-1].strip()
    if "://" in raw or raw.startswith(("mailto:", "#")):
        return None
    raw = unquote(raw.partition("#")[0].partition("?")[0])  # before the first ``#`` or ``?``
    while raw.startswith("./"):
        raw = raw[2:]
    if not raw or "/" in raw or "\\" in raw or not raw.lower().endswith(".md"):
        return None
    reserved = raw.startswith(("MEMORY", ".")) or raw.casefold() in _INDEX_NAMES
    return None if reserved or is_read_only(raw) else raw


def parse_index(text: str) -> Index:
    """Parse an index into lines that keep everything the user wrote."""
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    if not body:
        return Index((), bom=bom)
    newline = "\r\n" if "\r\n" in body else "\n"
    final_newline = body.endswith(newline)
    raw_lines = body.split(newline)
    if final_newline:
        raw_lines.pop()
    return Index(tuple(_classify(raw_lines)), newline, final_newline, bom)


def _classify(raw_lines: Sequence[str]) -> Iterator[IndexLine]:
    """Classify lines in order: code blocks are opaque, the title is the first heading."""
    fence: str | None = None
    seen_content = False
    for text in raw_lines:
        if fence is not None:
            fence = fence_after(fence, text)
            yield IndexLine(text, "code")
            continue
        fence = fence_after(None, text)
        if fence is not None:
            seen_content = True
            yield IndexLine(text, "code")
            continue
        line = parse_line(text, first=not seen_content)
        seen_content = seen_content or line.kind != "blank"
        yield line


def close_open_fence(index: Index) -> Index:
    """The index with a closing fence added when it ends inside a code block.

    Lines appended after an unclosed fence would be code, not entries; the
    user's block keeps every line, it only gets its end.
    """
    fence: str | None = None
    for line in index.lines:
        if line.kind != "code":
            continue
        fence = fence_after(fence, line.text)
    if fence is None:
        return index
    return index.with_lines([*index.lines, IndexLine(fence[0] * len(fence), "code")])


#: Lines already classified within ``memoised_lines`` (None outside it).
_MEMO: dict[tuple[str, bool], IndexLine] | None = None


@contextmanager
def memoised_lines() -> Iterator[None]:
    """Classify each distinct line once while the block runs (issue 13).

    One dream parses the same index and archive lines several times (the
    rules, the budget, the invariant, the report); a line's class depends on
    its text and ``first`` alone, and lines are frozen, so the first answer is
    reused. Nothing is kept once the outermost block ends.
    """
    global _MEMO
    outer = _MEMO
    if outer is None:
        _MEMO = {}
    try:
        yield
    finally:
        if outer is None:
            _MEMO = None


def parse_line(text: str, *, first: bool = False) -> IndexLine:
    """Classify one line outside a code block; ``first``: no content came before it."""
    memo = _MEMO
    if memo is None:
        return _parse_line(text, first)
    line = memo.get((text, first))
    if line is None:
        line = memo[(text, first)] = _parse_line(text, first)
    return line


#: The common entry line, ``- [Title](file.md) — hook``, in the one shape whose parse is
#: plain: a bullet and the link's ``[`` right after it (no ``**`` opener), a label with no
#: bracket or backslash, a bare ``.md`` target with nothing to unescape, strip or split
#: (no space, parenthesis, ``<``, ``\\``, ``%``, ``#``, ``?`` or ``/``), no title, and a
#: rest that holds no ``[`` (so no other link, no wikilink) and no backslash.
_PLAIN_ENTRY = re.compile(
    r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[(?P<label>[^\[\]\\]*)\]"
    r"\((?P<target>[^\s()<>\\%#?/]*\.md)\)(?P<rest>[^\[\\]*)"
)


def _parse_line(text: str, first: bool) -> IndexLine:
    """``_parse_any_line``, with the common entry line taken in one match (ten thousand
    of them in a large index; a test proves both parse every line alike)."""
    plain = _PLAIN_ENTRY.fullmatch(text)
    if plain is not None:
        file = topic_target(plain["target"])
        if file is not None:
            rest = plain["rest"]
            separator_match = _SEPARATOR.match(rest)
            separator = separator_match.group(0) if separator_match else ""
            hook = rest[len(separator) :]
            span = plain.span("target")
            entry = Entry(
                file, plain["label"], text[: len(text) - len(hook)], hook, separator, span
            )
            return IndexLine(text, "entry", entry=entry)
    return _parse_any_line(text, first)


def _parse_any_line(text: str, first: bool) -> IndexLine:
    """Classify any line outside a code block (``parse_line``)."""
    if not text.strip():
        return IndexLine(text, "blank")
    wikilinks = wikilink_stems(text)
    heading = _HEADING.match(text)
    if heading:
        level = len(heading["hashes"])
        kind: LineKind = "title" if level == 1 and first else "heading"
        return IndexLine(text, kind, level, heading["text"], wikilinks=wikilinks)
    if is_trailer_text(text):
        return IndexLine(text, "trailer", wikilinks=wikilinks)
    entry = _entry(text)
    mentions = tuple(_mentions(text, skip=entry.target_span if entry else None))
    kind = "entry" if entry else "text"
    return IndexLine(text, kind, entry=entry, mentions=mentions, wikilinks=wikilinks)


def is_trailer_text(text: str) -> bool:
    """Whether a line is a trailer pointing at the archive (seed 000 STEP 5, issue 12 16a).

    The seed's form, ``> N memory files ...`` linking ``MEMORY-ARCHIVE.md``, and
    what earlier tools left beside it: a quote line that links the archive, or
    ``> N memory files`` naming it in plain text. All of them are folded into
    the one trailer the budget step writes; ``> 3 memory files are elsewhere``
    names no archive and stays text.
    """
    if not text.lstrip().startswith(">"):
        return False
    if any(link.target.strip("<>").split("#")[0] == ARCHIVE_NAME for link in find_links(text)):
        return True
    return bool(_TRAILER.match(text)) and bool(_ARCHIVE_WORD.search(text))


def wikilink_stems(text: str) -> tuple[str, ...]:
    """The stems ``[[stem]]`` wikilinks in a text name, in order, as written minus ``.md``.

    An anchor or alias (``[[stem#part]]``, ``[[stem|shown]]``) is not part of
    the stem; a wikilink never spans lines.
    """
    return tuple(m["stem"].strip().removesuffix(".md") for m in _WIKILINK.finditer(text))


def find_links(text: str) -> list[Link]:
    """Inline links ``[label](target)`` in a line; images are skipped.

    Labels may nest brackets to any depth (``[[x]] in a title](f.md)``);
    targets may be ``<...>``, hold balanced parentheses, and carry a title.
    """
    links: list[Link] = []
    position = 0
    while (start := text.find("[", position)) != -1:
        link = _link_at(text, start)
        if link is None or (start > 0 and text[start - 1] in "!\\"):
            position = start + 1
            continue
        links.append(link)
        position = link.end
    return links


def _link_at(text: str, start: int) -> Link | None:
    """The link opening at ``text[start]``, if one does."""
    if not text.startswith("[", start):
        return None
    close = _closing(text, start)
    if close is None or not text.startswith("(", close + 1):
        return None
    parsed = _target_at(text, close + 1)
    if parsed is None:
        return None
    end, span = parsed
    return Link(start, end, text[start + 1 : close], text[span[0] : span[1]], span)


def _closing(text: str, start: int) -> int | None:
    """Index of the ``]`` closing the ``[`` at ``start`` (backslash escapes skipped)."""
    depth = 0
    for match in _BRACKET.finditer(text, start):
        mark = match.group()
        if mark[0] == "\\":
            continue
        depth += 1 if mark == "[" else -1
        if depth == 0:
            return match.start()
    return None


def _target_at(text: str, paren: int) -> tuple[int, tuple[int, int]] | None:
    """After ``(`` at ``paren``: the link's end and the target's span, or None."""
    begin = paren + 1
    if text.startswith("<", begin):
        close = text.find(">", begin)
        span_end = close + 1 if close != -1 else -1
    else:
        span_end = _bare_target_end(text, begin)
    if span_end < 0:
        return None
    title = re.match(r"""[ \t]*(?:(?:"[^"]*"|'[^']*')[ \t]*)?\)""", text[span_end:])
    if title is None:
        return None
    return span_end + title.end(), (begin, span_end)


def _bare_target_end(text: str, begin: int) -> int:
    """End of a target without ``<>``: first space or the ``)`` closing the link."""
    depth = 0
    for match in _TARGET_STOP.finditer(text, begin):
        mark = match.group()
        if mark.isspace() or (mark == ")" and depth == 0):
            return match.start()
        depth += 1 if mark == "(" else -1
    return -1


def _entry(text: str) -> Entry | None:
    bullet = _BULLET.match(text)
    if bullet is None:
        return None
    link = _link_at(text, bullet.end())
    if link is None:
        return None
    file = topic_target(link.target)
    opener = bullet["open"] or ""
    if file is None or not text.startswith(opener, link.end):
        return None
    rest = text[link.end + len(opener) :]
    separator_match = _SEPARATOR.match(rest)
    separator = separator_match.group(0) if separator_match else ""
    hook = rest[len(separator) :]
    head = text[: len(text) - len(hook)]
    return Entry(file, link.label, head, hook, separator, link.target_span)


def _mentions(text: str, *, skip: tuple[int, int] | None) -> Iterator[str]:
    for link in find_links(text):
        file = topic_target(link.target) if link.target_span != skip else None
        if file is not None:
            yield file


def with_hook(line: IndexLine, hook: str) -> IndexLine:
    """An entry line with another hook (same head); other lines are returned as they are."""
    entry = line.entry
    if entry is None:
        return line
    text = entry.head + hook
    mentions = tuple(_mentions(text, skip=entry.target_span)) if line.mentions else ()
    wikilinks = wikilink_stems(text) if line.wikilinks else ()
    return msgspec.structs.replace(
        line,
        text=text,
        entry=msgspec.structs.replace(entry, hook=hook),
        mentions=mentions,
        wikilinks=wikilinks,
    )


def is_plain_list(index: Index) -> bool:
    """Whether an index is only a title and entries (blank lines and the trailer allowed)."""
    kinds = {line.kind for line in index.lines}
    return kinds <= {"title", "entry", "blank", "trailer"}
