"""What one ``dreamd doctor`` check is, and its two probes: can a path be written, does a server
answer ``/models``.

Both probes only look: ``writable`` checks permissions (of the nearest folder that
exists, for a path not made yet), ``models_probe`` asks ``GET /models`` once
with a short timeout. An API key goes in a header and is never shown.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["PROBE_TIMEOUT_SECONDS", "Check", "Probe", "Status", "models_probe", "writable"]

#: ``fail`` makes doctor's exit code 1; ``absent``: nothing there, and nothing wrong with that.
Status = Literal["ok", "warn", "fail", "absent"]


@dataclass(frozen=True, slots=True)
class Check:
    """One check: what was checked, how it went, what was found, and how to fix a failure."""

    check: str
    subject: str
    status: Status
    detail: str
    fix: str = ""


#: How long a server has to answer ``/models``.
PROBE_TIMEOUT_SECONDS = 5.0


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def writable(check: str, path: Path, what: str, subject: str | None = None) -> Check:
    """Whether dreamd can write ``path`` (a folder or a file), or create it where it is missing."""
    subject = subject or str(path)
    existing = _nearest_existing(path)
    needed = os.W_OK | (os.X_OK if existing.is_dir() else 0)
    if not os.access(existing, needed):
        mode = "u+wx" if existing.is_dir() else "u+w"
        fix = f"give your user write access: chmod {mode} {existing}"
        return Check(check, subject, "fail", f"{what} cannot be written ({existing})", fix)
    if existing != path:
        return Check(check, subject, "ok", f"{what} is not there yet; it is created at first use")
    return Check(check, subject, "ok", f"{what} is writable")


@dataclass(frozen=True, slots=True)
class Probe:
    """What ``GET /models`` said: the model ids, or why it did not answer."""

    models: tuple[str, ...] = ()
    error: str | None = None
    refused_key: bool = False


def models_probe(url: str, key: str, *, anthropic: bool = False) -> Probe:
    """``GET url`` (a ``/models`` listing) with the key as the API expects it."""
    headers = {"Accept": "application/json"}
    if key and anthropic:
        headers |= {"x-api-key": key, "anthropic-version": "2023-06-01"}
    elif key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_SECONDS) as response:
            document = json.loads(response.read(2_000_000))
    except urllib.error.HTTPError as error:
        refused = error.code in (401, 403)
        return Probe(error=f"answers HTTP {error.code} ({error.reason})", refused_key=refused)
    except urllib.error.URLError as error:
        return Probe(error=f"cannot be reached: {error.reason}")
    except (OSError, ValueError) as error:
        return Probe(error=f"no readable answer: {error}")
    data = document.get("data") if isinstance(document, dict) else None
    entries = data if isinstance(data, list) else []
    ids = (entry.get("id") for entry in entries if isinstance(entry, dict))
    return Probe(models=tuple(str(i) for i in ids if i))
