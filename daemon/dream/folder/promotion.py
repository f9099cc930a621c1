"""Cross-project promotion candidates and housekeeping hints (seed 000 STEPs 7 to 9).

All of it is advice: nothing here moves or writes anything.

STEP 9: a memory whose topic shows up in the indexes of two or more *other*
projects has outgrown its repository. The topic key is the file's slug with
its type prefix and scope words (dates, numbers) removed; matching is plain
token containment on normalised index lines, deterministic and cheap.

STEP 8: project paths Claude Code remembers in ``~/.claude.json`` whose
directory no longer exists are counted, with the command to preview them.
STEP 7: orphaned plugin hints come from ``claude plugin list --json`` where
the ``claude`` program is present, at most once a week; without it (or when
it fails) the step says so in one line. A memory marked
``promotion: declined`` is never proposed again (STEP 9).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from dreamd.dream.folder.links import lstat_problem
from dreamd.dream.model import MemoryFile
from dreamd.fswrite import atomic_write

__all__ = [
    "PLUGIN_HINT_DAYS",
    "candidates",
    "declined_in",
    "match_topic",
    "orphaned_plugins",
    "plugin_hint",
    "stale_projects",
    "topic_key",
]

_TYPE_PREFIX = re.compile(r"^(user|feedback|project|reference|hub)[_-]")
_SCOPE_WORD = re.compile(r"^(\d+|\d{4}[-_]?\d{2}([-_]?\d{2})?|v\d+|r\d+|wave\d+\w*|session)$")
MIN_KEY_TOKENS = 2
_DECLINED = re.compile(
    r"^\s*promotion\s*:\s*['\"]?declined['\"]?\s*$", re.MULTILINE | re.IGNORECASE
)


def topic_key(file_name: str) -> tuple[str, ...]:
    """The file slug's topic tokens: type prefix, dates, numbers and tiny words removed."""
    stem = file_name.removesuffix(".md").lower()
    stem = _TYPE_PREFIX.sub("", stem)
    tokens = [t for t in re.split(r"[^a-z0-9]+", stem) if t]
    return tuple(t for t in tokens if len(t) > 2 and not _SCOPE_WORD.match(t))


def _normalised(text: str) -> str:
    return " " + " ".join(re.split(r"[^a-z0-9]+", text.lower())) + " "


def match_topic(key: Sequence[str], index_text: str) -> bool:
    """Whether every token of ``key`` occurs as a word in ``index_text``."""
    return _in_words(key, _normalised(index_text))


def _in_words(key: Sequence[str], words: str) -> bool:
    """``match_topic`` against an index already normalised (``_normalised``)."""
    return len(key) >= MIN_KEY_TOKENS and all(f" {token} " in words for token in key)


#: How much of a memory's start is read for the mark (the front matter is at the top).
_DECLINED_HEAD_BYTES = 4096


def declined_in(files: Iterable[MemoryFile]) -> set[Path]:
    """The memories marked ``promotion: declined`` in their front matter (seed 000 STEP 9),
    resolved.

    The seed's third answer, "stop proposing this candidate", writes that mark;
    such a memory is never proposed again. Read from the first lines of the bytes
    the dream loaded (``MemoryFile.raw``), so no file is opened again: the files are
    the folder's own topic files, links left out, as ``load_folder`` reads them.
    """
    declined: set[Path] = set()
    for memory in files:
        head = memory.raw[:_DECLINED_HEAD_BYTES].decode("utf-8", "replace")
        if _DECLINED.search(head.split("\n---", 1)[0]):
            declined.add(memory.path.resolve())
    return declined


def candidates(
    claude: Path, reports: Iterable[Any], declined: Iterable[Path] = ()
) -> list[dict[str, Any]]:
    """Memories whose topic appears in two or more other projects' indexes (seed 000 STEP 9).

    A memory marked ``promotion: declined`` (``declined``) is not proposed again.
    Each index is normalised once, not once per memory it is matched against; with
    fewer than two other indexes no memory can qualify and none is looked at.
    """
    indexes = _project_indexes(claude)
    normalised: dict[Path, str] = {}
    skip = set(declined)
    found: list[dict[str, Any]] = []
    for report in reports:
        own = Path(report.path).resolve()
        if len(indexes.keys() - {own}) < 2:
            continue
        others = {
            folder: normalised.get(folder) or normalised.setdefault(folder, _normalised(text))
            for folder, text in indexes.items()
            if folder != own
        }
        for decision in report.files:
            if decision.action == "trash" or (own / decision.file) in skip:
                continue
            key = topic_key(decision.file)
            projects = sorted(str(f) for f, words in others.items() if _in_words(key, words))
            if len(projects) >= 2:
                found.append(
                    {
                        "folder": report.path,
                        "file": decision.file,
                        "topic": " ".join(key),
                        "projects": projects,
                    }
                )
    return found


def _project_indexes(claude: Path) -> dict[Path, str]:
    texts: dict[Path, str] = {}
    for index in sorted(claude.glob("projects/*/memory/MEMORY.md")):
        if lstat_problem(index) is not None:
            continue  # a link: another place's text, never read (issue 15, item 6)
        try:
            texts[index.parent.resolve()] = index.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return texts


def stale_projects(claude_json: Path) -> tuple[int, str] | str:
    """STEP 8: how many remembered project paths no longer exist, and how to preview them.

    Returns a one-line skip reason when there is nothing to read.
    """
    try:
        data = json.loads(claude_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"{claude_json} not found or unreadable: stale-project check skipped"
    projects = data.get("projects") if isinstance(data, Mapping) else None
    if not isinstance(projects, Mapping):
        return "no project list in ~/.claude.json: stale-project check skipped"
    gone = [path for path in projects if isinstance(path, str) and not Path(path).exists()]
    preview = (
        "jq -r '.projects | keys[]' ~/.claude.json"
        ' | while read -r p; do [ -d "$p" ] || echo "$p"; done'
    )
    return len(gone), preview


#: Seed 000 STEP 7 (housekeeping.md): the orphaned-plugin hint is given at most once a week.
PLUGIN_HINT_DAYS = 7
CLAUDE_TIMEOUT_SECONDS = 30
_ORPHAN_KEYS = ("orphan", "orphaned", "isOrphan", "is_orphan")
_AUTO_KEYS = ("autoInstalled", "auto_installed", "installedAsDependency", "isDependency")
_NEEDED_KEYS = ("requiredBy", "required_by", "dependents", "neededBy")


def _entries(document: object) -> list[Mapping[str, Any]]:
    if isinstance(document, Mapping):
        document = document.get("plugins", document.get("installed", []))
    if isinstance(document, Mapping):  # {"name@market": {...}} or {"name@market": [{...}]}
        flat: list[object] = []
        for key, value in document.items():
            for item in value if isinstance(value, list) else [value]:
                flat.append({"name": key, **item} if isinstance(item, Mapping) else item)
        document = flat
    return [e for e in document if isinstance(e, Mapping)] if isinstance(document, list) else []


def orphaned_plugins(document: object) -> list[str]:
    """Seed 000 STEP 7: plugins Claude Code auto-installed that nothing needs any more.

    Read from ``claude plugin list --json``: an entry marked orphaned, or marked
    auto-installed (a dependency) that no installed plugin requires. Pure.
    """
    found = []
    for entry in _entries(document):
        name = str(entry.get("id") or entry.get("name") or "?")
        auto = any(entry.get(key) is True for key in _AUTO_KEYS)
        needed = any(entry.get(key) for key in _NEEDED_KEYS)
        if any(entry.get(key) is True for key in _ORPHAN_KEYS) or (auto and not needed):
            found.append(name)
    return sorted(found)


def _last_hint(state_dir: Path) -> datetime | None:
    try:
        raw = json.loads((state_dir / "housekeeping.json").read_text(encoding="utf-8"))
        return datetime.fromisoformat(raw["plugin_hint_at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _plugin_list() -> object | str:
    """``claude plugin list --json`` parsed, or why it could not be read (one line)."""
    try:
        done = subprocess.run(
            ["claude", "plugin", "list", "--json"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=CLAUDE_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"claude plugin list could not run ({error}): orphaned-plugin check skipped"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = said[0] if said else f"exit {done.returncode}"
        return f"claude plugin list failed ({why}): orphaned-plugin check skipped"
    try:
        document: object = json.loads(done.stdout.decode("utf-8", "replace"))
    except ValueError:
        return "claude plugin list --json gave no JSON: orphaned-plugin check skipped"
    return document


def plugin_hint(state_dir: Path, now: datetime) -> str:
    """Seed 000 STEP 7: one line, always: the hint, or why the step was skipped.

    Runs ``claude plugin list --json`` where the ``claude`` program is present;
    suggests the user's own ``claude plugin prune`` at most once a week; never
    removes anything.
    """
    if shutil.which("claude") is None:
        return "claude program not found: orphaned-plugin check skipped"
    last = _last_hint(state_dir)
    if last is not None and now - last < timedelta(days=PLUGIN_HINT_DAYS):
        return f"orphaned-plugin hint given on {last.date().isoformat()}: at most once a week"
    listed = _plugin_list()
    if isinstance(listed, str):
        return listed
    orphans = orphaned_plugins(listed)
    if not orphans:
        return "no orphaned auto-installed Claude Code plugins"
    state = {"plugin_hint_at": now.isoformat()}
    atomic_write(state_dir / "housekeeping.json", json.dumps(state).encode())
    return (
        f"{len(orphans)} orphaned auto-installed Claude Code plugin(s): {', '.join(orphans)}; "
        "review and run `claude plugin prune` yourself (nothing was removed)"
    )
