"""Codex CLI reader: JSON Lines rollouts under ``$CODEX_HOME`` (default ``~/.codex``).

Where: ``sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` and the flat
``archived_sessions/``. The session id is the uuid at the end of the file
name. The SQLite state database beside them is only an index and is not read.

Here: where rollouts are, what a session's metadata says about it, and the
reader. One pass over the records is ``dreamd.readers._codex_rollout``; what a
person typed in a user-role message, ``dreamd.readers._codex_text``.

Records are ``{timestamp, type, payload}`` envelopes (``session_meta``,
``turn_context``, ``response_item``, ``event_msg``, ``compacted``,
``world_state``, ...); rollouts written before the envelope existed hold a bare
header line and bare response items. Format rules, one function each:

- the same prompt or reply is recorded up to three times (a ``response_item``
  message, a ``user_message``/``agent_message`` event, an ``item_completed``
  turn item) and must appear once: ``_codex_rollout._Transcript.add`` keeps
  the first copy and folds later copies from other record kinds into it;
  which kinds are present varies by version and client (the Desktop app
  writes few events);
- user-role messages that Codex injects (AGENTS.md, environment context, skill
  bodies, shell-command echoes, review results, ...) are not prompts:
  ``is_injected_user_text`` (in ``_codex_text``); developer and system
  messages are dropped whole;
- IDE and Desktop clients wrap the typed request in attachment context:
  ``strip_request_envelope`` (in ``_codex_text``);
- a ``thread_rolled_back`` event removes the last N turns:
  ``_codex_rollout._Transcript.roll_back``;
- ``compacted`` records (summary plus replacement history), reasoning, tool
  calls and their outputs, and every other event are dropped;
- a subagent's rollout (``source.subagent``, ``thread_source: subagent``, a
  parent thread) is a sidechain: ``is_subagent`` gives an empty conversation;
- ``codex exec``/MCP-server sessions are machine jobs: ``is_automated``;
- a forked rollout repeats its ancestors' ``session_meta`` lines: the session's
  own is the one whose id matches the file name: ``own_meta``;
- pre-envelope rollouts (mid-2025): ``_codex_rollout._visit_legacy``.

Known limit: a forked rollout begins with a copy of its parent's history, which
is read as part of the fork (nothing in the file marks where the copy ends).

Message ids are Codex's own item ids where present and unique, else
``line-<n>`` (rollouts are append-only, so line numbers are stable).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ._codex_rollout import Rollout, parse_rollout
from ._codex_text import is_injected_user_text, strip_request_envelope, text_of
from ._common import discover_files, load_json_lines, unresolved
from ._model import Conversation, SessionRef, Unresolved

__all__ = [
    "READER",
    "CodexReader",
    "is_automated",
    "is_injected_user_text",
    "is_subagent",
    "strip_request_envelope",
]

TOOL = "codex"

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


# --------------------------------------------------------------------------- rules


def is_subagent(meta: Mapping[str, Any]) -> bool:
    """True when ``session_meta`` says another agent spawned this thread."""
    source = meta.get("source")
    if isinstance(source, dict) and "subagent" in source:
        return True
    if meta.get("thread_source") == "subagent":
        return True
    parent = meta.get("parent_thread_id")
    return isinstance(parent, str) and bool(parent.strip())


def is_automated(meta: Mapping[str, Any]) -> bool:
    """True when a program started the session: ``codex exec``, an SDK, MCP, a subagent."""
    source = meta.get("source")
    if isinstance(source, str) and source.lower() in {"exec", "mcp"}:
        return True
    originator = meta.get("originator")
    if isinstance(originator, str):
        name = originator.strip().lower().replace("-", "_")
        if name == "codex_exec" or name.startswith("codex_sdk"):
            return True
    return is_subagent(meta)


def own_meta(metas: list[dict[str, Any]], session_id: str) -> dict[str, Any]:
    """The session's own ``session_meta``: a fork also carries its ancestors' ones."""
    for key in ("id", "session_id"):
        for meta in metas:
            if meta.get(key) == session_id:
                return meta
    return metas[0] if metas else {}


def _project(state: Rollout, meta: Mapping[str, Any]) -> str | None:
    """The working directory as recorded: session meta, first turn, environment context."""
    return text_of(meta.get("cwd")) or state.turn_cwd or state.environment_cwd


def build_conversation(
    ref: SessionRef, state: Rollout, damaged_lines: Iterable[int] = ()
) -> Conversation | Unresolved:
    """The cleaned conversation of a parsed rollout, or why it is not one.

    ``damaged_lines`` are the rollout's undecodable lines: the conversation
    is then ``partial``.
    """
    if not state.recognised:
        return unresolved(ref, "no Codex rollout records")
    meta = own_meta(state.metas, ref.session_id)
    damaged = tuple(damaged_lines)
    if is_subagent(meta):
        return Conversation(ref, _project(state, meta), (), True, damaged)
    messages = tuple(state.transcript.messages)
    return Conversation(ref, _project(state, meta), messages, is_automated(meta), damaged)


# -------------------------------------------------------------------------- reader


def _is_rollout_name(name: str) -> bool:
    """Rollout files are ``rollout-*.jsonl``; everything else beside them is not."""
    return name.startswith("rollout-") and name.endswith(".jsonl")


def session_id_from_path(location: str | os.PathLike[str]) -> str | None:
    """The uuid ending a rollout's file name (or the rest of the name without one)."""
    stem = os.path.basename(location)[: -len(".jsonl")]
    found = _UUID.search(stem)
    if found:
        return found.group(0)
    rest = stem[len("rollout-") :]
    return rest or None


def _expand_home(value: str, home: Path) -> Path | None:
    """``value`` as a path with a leading ``~`` meaning ``home``; None when empty."""
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


class CodexReader:
    """Reads Codex CLI, IDE and Desktop rollouts (see the module docstring)."""

    tool = TOOL

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """``$CODEX_HOME/sessions`` and ``$CODEX_HOME/archived_sessions`` (``~/.codex``)."""
        codex_home = _expand_home(env.get("CODEX_HOME", "").strip(), home) or home / ".codex"
        return (codex_home / "sessions", codex_home / "archived_sessions")

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every ``rollout-*.jsonl`` under ``root`` (``YYYY/MM/DD`` folders or flat)."""
        return discover_files(TOOL, root, _is_rollout_name, session_id_from_path, max_depth=5)

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one rollout."""
        lines = load_json_lines(ref)
        if isinstance(lines, Unresolved):
            return lines
        return build_conversation(ref, parse_rollout(lines.records), lines.bad_lines)


READER = CodexReader()
