"""The pending proposal of a dry run, and the refusals of ``--apply-pending`` (seed 004). Pure.

A dry run changes nothing and leaves one proposal: front matter
(``generated_at``, ``source_session``, ``memory_lines_before``,
``proposed_lines_after``), then the complete new ``MEMORY.md`` in exactly one
fenced ``markdown`` block, then one ``### Topic-file change: <path>`` section
per topic file, in plain text (code as 4-space-indented lines, never a fence).
Applying writes that one block, verbatim, as the new index; it never applies
a diff. The caller reads and writes the files: this module only renders,
parses and decides.

Invariants:

- ``parse_proposal(render_proposal(...))`` gives back the same index (with a
  final newline) and the same topic changes: the fence is longer than any
  backtick run in the index, so an index holding code blocks cannot close it;
- a proposal is applied only when it has front matter, exactly one fenced
  block, of a known language, no git-style diff hunk anywhere, is at most 14
  days old and ``MEMORY.md`` has not been modified since it was made;
- a refusal never asks the caller to delete anything: the proposal is kept on
  every refusal and deleted only after a successful apply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from dreamd.markdown import closes, opening, opening_with_info

__all__ = [
    "FENCE_LANGUAGES",
    "PROPOSAL_FILE",
    "STALE_AFTER",
    "TOPIC_HEADING",
    "Applied",
    "Proposal",
    "Refusal",
    "RefusalReason",
    "TopicChange",
    "applied_line",
    "apply_decision",
    "dry_run_line",
    "looks_structural",
    "parse_proposal",
    "render_proposal",
]

RefusalReason = Literal["missing", "stale", "stale-index", "unsupported-format"]

#: Seed 004: a proposal older than this is stale and is not applied.
STALE_AFTER = timedelta(days=14)
#: Seed 004: the only fence languages a proposal may use for the index.
FENCE_LANGUAGES = frozenset({"markdown", "md"})
#: Seed 004: the heading that opens one topic-file section after the fence.
TOPIC_HEADING = "### Topic-file change: "
#: File name of the proposal in a state folder (the caller chooses the folder).
PROPOSAL_FILE = "pending-dream.md"

_MESSAGES: dict[RefusalReason, str] = {
    "missing": "no pending dream to apply",
    "stale": "pending dream is stale (older than 14 days); run `dreamd dream --dry-run` again",
    "stale-index": (
        "MEMORY.md changed after the dry run that made this proposal; "
        "run `dreamd dream --dry-run` again"
    ),
}
_UNSUPPORTED = (
    "dream NOT applied: the pending proposal {problem}; MEMORY.md left untouched, "
    "proposal kept. Run `dreamd dream --dry-run` again for a complete-body proposal."
)


@dataclass(frozen=True, slots=True)
class TopicChange:
    """A change to one topic file, for a person to apply: plain instructions, no diff."""

    path: str
    instructions: str


@dataclass(frozen=True, slots=True)
class Proposal:
    """A parsed pending proposal."""

    generated_at: datetime
    source_session: str
    lines_before: int
    lines_after: int
    new_index: str
    topic_changes: tuple[TopicChange, ...]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a proposal is not applied, and the one line to print (exit code 1)."""

    reason: RefusalReason
    message: str


@dataclass(frozen=True, slots=True)
class Applied:
    """The proposal may be applied: write ``new_index`` as MEMORY.md, then delete the proposal."""

    new_index: str
    proposal: Proposal


# --------------------------------------------------------------------------- lines and fences


def _lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only, endings kept."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)


@dataclass(frozen=True, slots=True)
class _Block:
    info: str
    content: str
    end: int  # index of the line after the closing fence


def _fenced_blocks(lines: Sequence[str]) -> list[_Block] | None:
    """Every top-level fenced block; None when a fence is never closed."""
    blocks: list[_Block] = []
    at = 0
    while at < len(lines):
        opened = opening_with_info(lines[at])
        if opened is None:
            at += 1
            continue
        fence, info = opened
        close = next((i for i in range(at + 1, len(lines)) if closes(lines[i], fence)), None)
        if close is None:
            return None
        blocks.append(_Block(info, "".join(lines[at + 1 : close]), close + 1))
        at = close + 1
    return blocks


_HUNK_HEADER = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")


def _has_diff_hunks(lines: Sequence[str]) -> bool:
    """Seed 004: a unified-diff hunk header, or a ``--- `` line directly over a ``+++ `` line."""
    for at, line in enumerate(lines):
        if _HUNK_HEADER.match(line):
            return True
        following = lines[at + 1] if at + 1 < len(lines) else ""
        if line.startswith("--- ") and following.startswith("+++ "):
            return True
    return False


# --------------------------------------------------------------------------- rendering


def _fence_for(text: str) -> str:
    """Backticks, one more than the longest run inside ``text`` and at least three."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _unfenced(text: str) -> str:
    """Topic instructions with any fenced code turned into 4-space-indented code."""
    out: list[str] = []
    fence: str | None = None
    for line in _lines(text):
        if fence is None and (fence := opening(line)) is not None:
            if out and out[-1].strip():
                out.append("\n")  # indented code cannot interrupt a paragraph
        elif fence is not None and closes(line, fence):
            fence = None
            out.append("\n")
        elif fence is not None:
            out.append("    " + line if line.strip() else line)
        else:
            out.append(line)
    return "".join(out)


def looks_structural(line: str) -> bool:
    """Whether a line of shown file text would open a fence in a proposal (never allowed:
    a second fence makes the proposal unsupported), so it must be escaped."""
    return opening(line) is not None


def _topic_section(change: TopicChange) -> str:
    """One ``### Topic-file change:`` section: heading, blank line, instructions."""
    if not change.path.strip() or "\n" in change.path or "\r" in change.path:
        raise ValueError(f"a topic-file path must be one non-empty line: {change.path!r}")
    text = _unfenced(change.instructions).strip("\n")
    if any(line.startswith(TOPIC_HEADING) for line in _lines(text)):
        raise ValueError(f"instructions for {change.path} contain a topic-file heading")
    return f"\n{TOPIC_HEADING}{change.path}\n" + (f"\n{text}\n" if text else "")


def _front_matter_value(key: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError(f"{key} must be one line")
    return f"{key}: {value}\n"


def render_proposal(
    new_index: str,
    topic_changes: Sequence[TopicChange],
    *,
    generated_at: datetime,
    source_session: str,
    lines_before: int,
    lines_after: int,
) -> str:
    """Seed 004 ``--dry-run``: the proposal text for the complete new MEMORY.md.

    ``generated_at`` must be timezone-aware. Topic instructions are plain text;
    a fenced block in them becomes 4-space-indented code, since a second fence
    anywhere makes the proposal unsupported. Raises ValueError when the result
    could not be applied: a git-style diff hunk in the index or in an
    instruction, a multi-line path or session id, a naive ``generated_at``,
    a topic-file heading inside an instruction.
    """
    if generated_at.tzinfo is None:
        raise ValueError("generated_at must be timezone-aware")
    fence = _fence_for(new_index)
    body = new_index if not new_index or new_index.endswith("\n") else new_index + "\n"
    parts = [
        "---\n",
        _front_matter_value("generated_at", generated_at.isoformat()),
        _front_matter_value("source_session", source_session),
        f"memory_lines_before: {int(lines_before)}\n",
        f"proposed_lines_after: {int(lines_after)}\n",
        "---\n\n",
        "Proposed MEMORY.md (complete file):\n\n",
        f"{fence}markdown\n",
        body,
        f"{fence}\n",
    ]
    parts.extend(_topic_section(change) for change in topic_changes)
    rendered = "".join(parts)
    if _has_diff_hunks(_lines(rendered)):
        raise ValueError("a proposal must not contain git-style diff hunks")
    return rendered


# --------------------------------------------------------------------------- parsing


def _unsupported(problem: str) -> Refusal:
    return Refusal("unsupported-format", _UNSUPPORTED.format(problem=problem))


def _split_front_matter(lines: Sequence[str]) -> tuple[dict[str, str], int] | None:
    """(key → value, index of the first body line), None without front matter."""
    if not lines or lines[0].rstrip("\r\n") != "---":
        return None
    values: dict[str, str] = {}
    for at in range(1, len(lines)):
        line = lines[at].rstrip("\r\n")
        if line == "---":
            return values, at + 1
        key, colon, value = line.partition(":")
        if colon:
            values[key.strip()] = value.strip()
    return None


def _front_matter(values: dict[str, str]) -> tuple[datetime, str, int, int] | str:
    """The four seed fields, or what is wrong with them."""
    try:
        generated_at = datetime.fromisoformat(values["generated_at"])
        before = int(values["memory_lines_before"])
        after = int(values["proposed_lines_after"])
    except (KeyError, ValueError):
        return "has no readable front matter (generated_at, memory_lines_before, ...)"
    if generated_at.tzinfo is None:
        return "has a generated_at without a time zone"
    return generated_at, values.get("source_session", ""), before, after


def _topic_changes(lines: Sequence[str]) -> tuple[TopicChange, ...]:
    """The ``### Topic-file change:`` sections after the fence."""
    changes: list[TopicChange] = []
    path: str | None = None
    body: list[str] = []
    for line in [*lines, TOPIC_HEADING]:
        if line.startswith(TOPIC_HEADING):
            if path is not None:
                changes.append(TopicChange(path, "".join(body).strip("\n")))
            path, body = line[len(TOPIC_HEADING) :].strip(), []
        elif path is not None:
            body.append(line)
    return tuple(changes)


def parse_proposal(text: str) -> Proposal | Refusal:
    """Seed 004 ``--apply-pending``: read a proposal, or refuse its format.

    Refuses (``unsupported-format``) a proposal without the front matter, with
    a git-style diff hunk anywhere, with no or more than one fenced block, an
    unclosed fence, or a fence language other than ``markdown``/``md``.
    """
    lines = _lines(text)
    split = _split_front_matter(lines)
    if split is None:
        return _unsupported("has no front matter")
    fields = _front_matter(split[0])
    if isinstance(fields, str):
        return _unsupported(fields)
    body = lines[split[1] :]
    if _has_diff_hunks(body):
        return _unsupported("contains git-style diff hunks this applier cannot consume")
    blocks = _fenced_blocks(body)
    if blocks is None:
        return _unsupported("has a fenced block that is never closed")
    if len(blocks) != 1:
        return _unsupported(f"has {len(blocks)} fenced blocks (exactly one is supported)")
    language = blocks[0].info.split()[0].lower() if blocks[0].info else ""
    if language not in FENCE_LANGUAGES:
        return _unsupported(f"uses an unknown fence language {language or '(none)'!r}")
    generated_at, session, before, after = fields
    changes = _topic_changes(body[blocks[0].end :])
    return Proposal(generated_at, session, before, after, blocks[0].content, changes)


# --------------------------------------------------------------------------- deciding


def apply_decision(
    proposal_text: str | None, *, index_mtime: datetime | None, now: datetime
) -> Applied | Refusal:
    """Seed 004 ``--apply-pending``: apply the proposal or refuse, with the reason.

    ``proposal_text`` is None when there is no proposal; ``index_mtime`` is the
    modification time of MEMORY.md (None when it does not exist). Checks, in
    order: missing, unsupported format, stale (``now - generated_at`` more
    than 14 days; exactly 14 days is not stale), stale index (MEMORY.md
    modified after ``generated_at``). Datetimes must be timezone-aware.
    """
    if now.tzinfo is None or (index_mtime is not None and index_mtime.tzinfo is None):
        raise ValueError("now and index_mtime must be timezone-aware")
    if proposal_text is None:
        return Refusal("missing", _MESSAGES["missing"])
    parsed = parse_proposal(proposal_text)
    if isinstance(parsed, Refusal):
        return parsed
    if now - parsed.generated_at > STALE_AFTER:
        return Refusal("stale", _MESSAGES["stale"])
    if index_mtime is not None and index_mtime > parsed.generated_at:
        return Refusal("stale-index", _MESSAGES["stale-index"])
    return Applied(parsed.new_index, parsed)


def dry_run_line(proposed_lines: int | None) -> str:
    """Seed 004 ``--dry-run`` status line; None means the plan is empty."""
    if proposed_lines is None:
        return "no consolidation needed (MEMORY.md is healthy)"
    return f"pending dream written: {proposed_lines} lines proposed"


def applied_line(proposal: Proposal, entries: int) -> str:
    """Seed 004 status line after a successful apply."""
    change = proposal.lines_after - proposal.lines_before
    lines = f"+{change}" if change > 0 else f"-{-change}"
    return f"dream applied: {lines} lines, +{entries} consolidated entries"
