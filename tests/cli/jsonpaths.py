"""Field paths of a JSON document, and the documented list of them (docs/json.md), for the
contract test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

JSON_DOCS = Path(__file__).resolve().parents[2] / "docs" / "json.md"


def paths(document: Any, prefix: str = "") -> Iterator[tuple[str, bool]]:
    """(path, empty) for every field: ``a.b``, ``a[].b``; ``empty`` when the value is null,
    an empty object or an empty list (its documented children cannot be seen)."""
    if isinstance(document, dict):
        if prefix:
            yield prefix, not document
        for key, value in document.items():
            yield from paths(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(document, list):
        yield prefix, not document
        for value in document:
            if isinstance(value, (dict, list)):
                yield from paths(value, prefix + "[]")
    else:
        yield prefix, document is None


def documented(heading: str, page: Path = JSON_DOCS) -> list[str]:
    """The fields the ``- `field`, `field`: meaning`` bullets under ``heading`` name."""
    text = page.read_text(encoding="utf-8")
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    section = text[start : end if end != -1 else len(text)]
    heads = re.findall(r"^- (`[^`]+`(?:, `[^`]+`)*):", section, flags=re.MULTILINE)
    return [name for head in heads for name in re.findall(r"`([^`]+)`", head)]


def _pattern(field: str) -> re.Pattern[str]:
    """``<name>`` stands for any one key; a trailing ``.*`` for anything below."""
    parts = re.split(r"(<[^>]+>)", field.removesuffix(".*"))
    body = "".join("[^.\\[]+" if p.startswith("<") else re.escape(p) for p in parts)
    return re.compile(body + (r"(?:[.\[].*)?" if field.endswith(".*") else "") + "$")


def undocumented(document: Any, fields: list[str]) -> list[str]:
    """Fields of ``document`` the list does not name."""
    patterns = [_pattern(f) for f in fields]
    seen = {path for path, _ in paths(document)}
    return sorted(
        p
        for p in seen
        if not any(pattern.match(p) for pattern in patterns)
        and not any(_covers(p, field) for field in fields)  # an object the list goes into
    )


def unseen(documents: list[Any], fields: list[str]) -> list[str]:
    """Documented fields none of ``documents`` has (under an empty or null parent is fine)."""
    found = [item for document in documents for item in paths(document)]
    missing = []
    for field in fields:
        pattern = _pattern(field)
        if any(pattern.match(path) for path, _ in found):
            continue
        parents = [path for path, empty in found if empty]
        if any(_covers(parent, field) for parent in parents):
            continue
        missing.append(field)
    return missing


def _covers(parent: str, field: str) -> bool:
    """Whether ``field`` lies under the (empty) ``parent``."""
    for cut in (m.start() for m in re.finditer(r"[.\[]", field)):
        if _pattern(field[:cut]).match(parent):
            return True
    return False
