"""A kept dream report (its JSON document) as ``dreamd show`` prints it. Pure.

Every folder with every file trashed (or that would be), every index change,
every collected item the validate gate accepted, merged or rejected, each
with its reason; what waits for review with the command that applies it,
and what was refused. ``dreamd.dream.reporttext`` is the seed's table layout
``dreamd dream`` prints as it runs; this reads back what was kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dreamd.dream.reporttext import apply_command

__all__ = ["show_text"]

_INDEX_KINDS = (
    ("removed", "removed", "remove"),
    ("added", "added", "add"),
    ("archived", "archived", "archive"),
    ("shortened", "shortened", "shorten"),
    ("case_fixed", "fixed the case of", "fix the case of"),
)


def _applied(mode: str, folder: Mapping[str, Any]) -> bool:
    return mode != "dry-run" and not folder.get("pending") and not folder.get("refused")


def _file_lines(folder: Mapping[str, Any], applied: bool) -> list[str]:
    lines = []
    for entry in folder.get("files", []):
        if entry.get("action") == "trash":
            verb = "trashed" if applied else "would trash"
            lines.append(f"  {verb} {entry['file']}: {entry['reason']}")
        elif entry.get("action") == "flag":
            why = entry.get("kept_reason") or entry.get("reason")
            lines.append(f"  kept for review {entry['file']}: {why}")
    return lines


def _index_lines(folder: Mapping[str, Any], applied: bool) -> list[str]:
    index = folder.get("index") or {}
    changes = index.get("changes") or {}
    lines = []
    for key, past, present in _INDEX_KINDS:
        verb = past if applied else f"would {present}"
        lines += [f"  index entry {verb} {c['file']}: {c['reason']}" for c in changes.get(key, [])]
    lines += [f"  index date made absolute: {line}" for line in changes.get("dates", [])]
    if index.get("rebuild_line"):
        lines.append(f"  {index['rebuild_line']}")
    return lines


def _folder_lines(mode: str, folder: Mapping[str, Any]) -> list[str]:
    applied = _applied(mode, folder)
    repo = f" (repository {folder['repo']})" if folder.get("repo") else ""
    lines = [f"{folder['path']}{repo}"]
    lines += _file_lines(folder, applied)
    lines += _index_lines(folder, applied)
    lines += [f"  {finding}" for finding in folder.get("findings", [])]
    lines += [f"  commit {sha}" for sha in folder.get("commits", [])]
    if folder.get("pending"):
        lines.append(
            f"  waits for review: {folder['pending']}; apply it with "
            f"`{apply_command(folder['path'])}`"
        )
    if folder.get("refused"):
        lines.append(f"  refused: {folder['refused']}")
    if len(lines) == 1:
        lines.append("  nothing to change")
    return lines


def show_text(document: Mapping[str, Any]) -> str:
    """The kept report of one dream run, folder by folder, then the other stores."""
    mode = str(document.get("mode", ""))
    lines: list[str] = []
    for folder in document.get("directories", []):
        lines += [*_folder_lines(mode, folder), ""]
    candidates = document.get("promotion_candidates") or []
    if candidates:
        lines.append("Could move to your user memory (found in 2+ repositories):")
        lines += [f"  {c['file']} (also in {', '.join(c['projects'])})" for c in candidates]
        lines.append("")
    messages = document.get("messages") or []
    if messages:
        lines.append("Other stores and notes:")
        lines += [f"  {message}" for message in messages]
    return "\n".join(lines).rstrip() + "\n"
