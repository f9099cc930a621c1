"""Extraction prompts and their JSON schemas, shipped as package data.

One Markdown prompt and one JSON schema per pipeline stage (seed 002 phase 3),
named by the stage: ``topics_scan``, ``topics_match``, ``topics_update``,
``people``, ``events``, ``facts``; ``common.md`` holds the rules every stage
shares (conservative by default, the quote rules, the answer format).

Invariant: the files are read-only data, loaded once per process.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

__all__ = ["STAGES", "prompt", "schema"]

#: The pipeline's stages, in the order the collector runs them.
STAGES = ("topics_scan", "topics_match", "topics_update", "people", "events", "facts")


@cache
def prompt(name: str) -> str:
    """The Markdown prompt ``<name>.md`` (``common`` or a stage)."""
    return files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")


@cache
def _schema_text(stage: str) -> str:
    return files(__name__).joinpath(f"{stage}.json").read_text(encoding="utf-8")


def schema(stage: str) -> dict[str, Any]:
    """The JSON schema of one stage's answer (a fresh copy: callers may not share it)."""
    loaded: dict[str, Any] = json.loads(_schema_text(stage))
    return loaded
