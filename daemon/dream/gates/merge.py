"""Near-duplicates at the gate: the memory an item duplicates, and the merge into it. Pure.

Seed 000 STEP 3 applied at the gate (issue 4 item 8): an item duplicates an
existing memory of its type with an identical name, or by the dream's
duplicate rule (same subject and near-duplicate bodies); ``find_duplicate``
names the best match, ``merge_text`` folds the item into it.

Invariant: a merge never loses what the existing memory holds: its body stays
as it was (the new statement is appended only when not already in it), and
its ``metadata`` keeps every key, gaining the union of ``sources``, ``quotes``
and ``op_keys`` (the collector reads ``op_keys`` to know a merged item is
planted, so a retry cannot plant it twice).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from dreamd.dream.folder.subjects import same_subject
from dreamd.dream.folder.words import overlap_ratio, significant_words
from dreamd.dream.gates.inbox import FRONT_MATTER_FENCE
from dreamd.dream.gates.rules import near_duplicate
from dreamd.dream.model import MemoryFile

__all__ = ["find_duplicate", "merge_text"]


def _normalised(text: str) -> str:
    return " ".join(text.split())


def _names_match(a: MemoryFile, b: MemoryFile) -> bool:
    """Identical names: the same file stem, or the same front matter ``name`` (any case)."""
    if a.stem == b.stem:
        return True
    return a.title is not None and b.title is not None and a.title.casefold() == b.title.casefold()


def find_duplicate(
    memory: MemoryFile, existing: Iterable[MemoryFile]
) -> tuple[MemoryFile, str] | None:
    """Seed 000 STEP 3 at the gate: the existing memory the new one duplicates, and why.

    Same type, and either an identical name or the duplicate rule (same
    subject and ``rules.near_duplicate`` bodies). Among several, the highest
    overlap wins, then the file name.
    """
    found: list[tuple[float, str, MemoryFile, str]] = []
    for other in existing:
        if other.type != memory.type:
            continue
        ratio = near_duplicate(memory.body, other.body)
        if _names_match(memory, other):
            found.append((ratio or _overlap(memory, other), other.name, other, "same name"))
        elif ratio is not None and same_subject(memory, other):
            found.append((ratio, other.name, other, f"near-duplicate (overlap {ratio:.2f})"))
    if not found:
        return None
    best = max(found, key=lambda entry: (entry[0], entry[1]))
    return best[2], best[3]


def _overlap(a: MemoryFile, b: MemoryFile) -> float:
    return overlap_ratio(significant_words(a.body), significant_words(b.body))


def _as_list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _union(first: Iterable[Any], second: Iterable[Any]) -> list[Any]:
    """Items of both, first ones first, each once (compared by value)."""
    result: list[Any] = []
    for entry in (*first, *second):
        if entry not in result:
            result.append(entry)
    return result


def _sources(metadata: Mapping[str, Any]) -> list[Any]:
    own = [metadata["source"]] if isinstance(metadata.get("source"), str) else []
    return _union(_as_list(metadata.get("sources")), own)


def _op_keys(metadata: Mapping[str, Any]) -> list[Any]:
    own = [metadata["op_key"]] if isinstance(metadata.get("op_key"), str) else []
    return _union(_as_list(metadata.get("op_keys")), own)


def merge_text(existing: MemoryFile, new_metadata: Mapping[str, Any], new_body: str) -> bytes:
    """The existing memory with a duplicate folded in (issue 4 item 8: sources and quotes kept).

    The body gains the new statement only when it does not already hold it
    (compared with whitespace collapsed). The front matter keeps every key
    and value; ``metadata`` gains ``sources``, ``quotes`` and ``op_keys`` as
    unions, the existing entries first. ``source`` and ``op_key`` stay as they
    were.
    """
    front = copy.deepcopy(existing.front_matter)
    metadata = front.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata["sources"] = _union(_sources(metadata), _sources(new_metadata))
    metadata["quotes"] = _union(
        _as_list(metadata.get("quotes")), _as_list(new_metadata.get("quotes"))
    )
    keys = _union(_op_keys(metadata), _op_keys(new_metadata))
    if keys:
        metadata["op_keys"] = keys
    front["metadata"] = metadata
    body = existing.body
    addition = new_body.strip()
    if _normalised(addition) not in _normalised(body):
        body = f"{body.rstrip()}\n\n{addition}\n"
    import yaml  # only a merge writes YAML: most dreams merge nothing

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    block = yaml.dump(front, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
    return f"{FRONT_MATTER_FENCE}\n{block}{FRONT_MATTER_FENCE}\n{body}".encode()
