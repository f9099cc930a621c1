"""What a run did, in words: counts from its report, and the sentences people read. Pure.

``dreamd log``, ``dreamd status`` and ``dreamd show`` say the same thing the
same way: a run's counts (:func:`run_counts`, worked out once from its
report when it finishes and kept with its record) become phrases such as
"trashed 2 memories, archived 5 index entries, accepted 3 new memories in 2
folders" (:func:`counts_words`); a dry run says what it *would* do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

__all__ = [
    "counts_words",
    "mode_label",
    "run_counts",
    "took_words",
]

#: A validate-gate line of a report: ``accepted inbox/x as y: why``, ``would merge …``,
#: ``SQL item K accepted: why``, ``would mark SQL item K rejected: why``.
_GATE_LINE = re.compile(
    r"^(would )?(?:(accept|merge|reject)(?:ed|d)? "
    r"|(?:mark )?SQL item \S+ (accept|merge|reject)ed?\b)"
)

_VERDICT = {"accept": "accepted", "merge": "merged", "reject": "rejected"}


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def mode_label(mode: str) -> str:
    """``DRY RUN`` for a run that changed nothing on purpose, ``APPLIED`` for the others."""
    return "DRY RUN" if mode == "dry-run" else "APPLIED"


def took_words(started: datetime, finished: datetime | None) -> str:
    """How long a run took: ``0.4 s``, ``2 min 5 s``, ``1 h 3 min`` (``still running``)."""
    if finished is None:
        return "still running"
    seconds = max(0.0, (finished - started).total_seconds())
    if seconds < 10:
        return f"{seconds:.1f} s"
    whole = int(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


# --- counts ---------------------------------------------------------------------------------


def _gate_verdict(line: str) -> tuple[bool, str] | None:
    """(proposed, verdict) of a validate-gate report line, or None for any other line."""
    match = _GATE_LINE.match(line)
    if match is None:
        return None
    return bool(match.group(1)), _VERDICT[match.group(2) or match.group(3)]


def _folder_applied(mode: str, folder: Mapping[str, Any]) -> bool:
    return mode != "dry-run" and not folder.get("pending") and not folder.get("refused")


def _empty() -> dict[str, int]:
    keys = ("trashed", "removed", "archived", "added", "accepted", "merged", "rejected")
    return dict.fromkeys((*keys, "accepted_folders", "accepted_elsewhere"), 0)


def _count_folder(counts: dict[str, int], folder: Mapping[str, Any]) -> None:
    counts["trashed"] += sum(1 for f in folder.get("files", []) if f.get("action") == "trash")
    changes = (folder.get("index") or {}).get("changes") or {}
    for key in ("removed", "archived", "added"):
        counts[key] += len(changes.get(key, []))
    verdicts = [v for line in folder.get("findings", []) if (v := _gate_verdict(line))]
    for _proposed, verdict in verdicts:
        counts[verdict] += 1
    counts["accepted_folders"] += any(verdict == "accepted" for _, verdict in verdicts)


def dream_counts(document: Mapping[str, Any]) -> dict[str, Any]:
    """What a dream run did (``done``) and proposed or held back (``would``), per kind."""
    mode = str(document.get("mode", ""))
    done, would = _empty(), _empty()
    refusals: list[str] = []
    waiting = 0
    for folder in document.get("directories", []):
        _count_folder(done if _folder_applied(mode, folder) else would, folder)
        if folder.get("refused"):
            refusals.append(f"{folder.get('path')}: {folder['refused']}")
        waiting += bool(folder.get("pending"))
    for line in document.get("messages", []):  # the other stores' gates
        verdict = _gate_verdict(line)
        if verdict is not None:
            target = would if verdict[0] or mode == "dry-run" else done
            target[verdict[1]] += 1
            target["accepted_elsewhere"] += verdict[1] == "accepted"
    return {
        "folders": len(document.get("directories", [])),
        "done": done,
        "would": would,
        "waiting": waiting,
        "refused": len(refusals),
        "refusals": refusals[:3],
    }


def collect_counts(document: Mapping[str, Any]) -> dict[str, Any]:
    """What a collect run planted (or would plant), from which sessions, into which stores."""
    planted = document.get("planted") or {}
    cursor = document.get("cursor") or {}
    items = document.get("planted_items") or []
    new = {(i.get("type"), i.get("title")) for i in items if i.get("action") == "planted"}
    return {
        "planted": len(new) if items else int(planted.get("total", 0)),
        "updated": int((planted.get("updated") or {}).get("total", 0)),
        "would_plant": len(document.get("would_plant") or []),
        "sessions": len(cursor.get("resolved") or []),
        "partial": len(cursor.get("partial") or []),
        "stores": len({item.get("store") for item in items}),
        "dropped_secrets": int(document.get("dropped_secrets", 0)),
        "deferred": int((document.get("backlog") or {}).get("eligible_deferred", 0)),
        "stopped": document.get("stopped"),
    }


def run_counts(job: str, document: Mapping[str, Any]) -> dict[str, Any]:
    """The counts ``dreamd log`` shows for one run's report."""
    return dream_counts(document) if job == "dream" else collect_counts(document)


# --- words ----------------------------------------------------------------------------------


def _dream_phrases(counts: Mapping[str, int], would: bool) -> list[str]:
    """``trashed 2 memories``, ``archived 5 index entries``, ``accepted 3 new memories in …``."""
    verb = (lambda past, now: f"would {now}") if would else (lambda past, now: past)
    phrases = []
    if counts["trashed"]:
        phrases.append(
            f"{verb('trashed', 'trash')} {_plural(counts['trashed'], 'memory', 'memories')}"
        )
    for key, now in (("removed", "remove"), ("archived", "archive"), ("added", "add")):
        if counts[key]:
            phrases.append(
                f"{verb(key, now)} {_plural(counts[key], 'index entry', 'index entries')}"
            )
    if counts["accepted"]:
        elsewhere = counts["accepted_elsewhere"]
        in_folders = counts["accepted"] - elsewhere
        where = []
        if in_folders:
            folders = _plural(counts["accepted_folders"], "folder")
            where.append(f"{_plural(in_folders, 'new memory', 'new memories')} in {folders}")
        if elsewhere:
            many = _plural(elsewhere, "new memory", "new memories")
            where.append(f"{elsewhere if in_folders else many} in the other stores")
        phrases.append(f"{verb('accepted', 'accept')} {' and '.join(where)}")
    for key, now in (("merged", "merge"), ("rejected", "reject")):
        if counts[key]:
            phrases.append(f"{verb(key, now)} {_plural(counts[key], 'collected item')}")
    return phrases


def _dream_words(counts: Mapping[str, Any]) -> str:
    phrases = _dream_phrases(counts["done"], False) + _dream_phrases(counts["would"], True)
    if counts.get("waiting"):
        waits = _plural(counts["waiting"], "folder")
        phrases.append(f"{waits} {'waits' if counts['waiting'] == 1 else 'wait'} for review")
    if counts.get("refused"):
        reasons = "; ".join(counts.get("refusals") or [])
        phrases.append(
            f"refused in {_plural(counts['refused'], 'folder')}"
            + (f" ({reasons})" if reasons else "")
        )
    if not phrases:
        folders = counts.get("folders", 0)
        return (
            f"nothing to change in {_plural(folders, 'memory folder')}"
            if folders
            else "no memory folders found"
        )
    return ", ".join(phrases)


def _collect_words(counts: Mapping[str, Any]) -> str:
    sessions = _plural(counts["sessions"], "session")
    if counts.get("would_plant"):
        phrases = [f"would plant {_plural(counts['would_plant'], 'memory', 'memories')}"]
    elif counts["planted"] or counts["updated"]:
        planted = f"planted {_plural(counts['planted'], 'new memory', 'new memories')}"
        if counts["updated"]:
            planted += f" and updated {counts['updated']}"
        if counts["stores"]:
            planted += f" into {_plural(counts['stores'], 'store')}"
        phrases = [planted]
    else:
        phrases = ["planted nothing"]
    phrases.append(
        f"from {sessions}" + (f" ({counts['partial']} partly)" if counts["partial"] else "")
    )
    if counts["dropped_secrets"]:
        phrases.append(f"dropped {_plural(counts['dropped_secrets'], 'secret-shaped value')}")
    if counts["deferred"]:
        phrases.append(f"{counts['deferred']} left for later runs")
    if counts.get("stopped"):
        phrases.append(f"stopped early: {counts['stopped']}")
    return " ".join(phrases[:2]) + "".join(f", {p}" for p in phrases[2:])


def counts_words(job: str, counts: Mapping[str, Any] | None) -> str:
    """A run's counts in words (``-`` when the run left none: it failed or still runs)."""
    if not counts:
        return "-"
    return _dream_words(counts) if job == "dream" else _collect_words(counts)
