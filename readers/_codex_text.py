"""What a person typed, in the user-role messages of a Codex rollout.

User-role messages that Codex injects (AGENTS.md, environment context, skill
bodies, shell-command echoes, review results, ...) are not prompts:
``is_injected_user_text``. IDE and Desktop clients wrap the typed request in
attachment context: ``strip_request_envelope``. Attached images are framed by
``<image>`` placeholders, which are not prompts either. The working directory
an ``<environment_context>`` block records is the project of last resort
(``environment_cwd``).

Invariants: pure functions of decoded JSON values and their strings; a
block of only whitespace is no text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "block_texts",
    "environment_cwd",
    "is_injected_user_text",
    "prompt_text",
    "strip_request_envelope",
    "text_of",
]

#: Starts of text blocks that Codex puts into user-role messages itself (compared
#: lower-cased after leading whitespace): instructions, context, hook and skill
#: payloads, shell-command echoes, review results, compaction bridges, warnings.
_INJECTED_USER_PREFIXES = (
    "# agents.md instructions",
    "<agents.md instructions",
    "<user_instructions>",
    "<environment_context",
    "<context_update>",
    "<skill>",
    "<skills_instructions>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<subagent_notification>",
    "<external_",
    "<extension_context>",
    "<codex_internal_context",
    "<goal_context>",
    "<hook_prompt",
    "<recommended_plugins>",
    "<user_action>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<model_switch>",
    "<personality_spec>",
    "<realtime_conversation>",
    "<plugins_instructions>",
    "<apps_instructions>",
    "another language model started to solve this problem",
    "you were originally given instructions from a user over one or more turns",
    "warning: the maximum number of unified exec processes",
    "warning: your account was flagged for potentially high-risk cyber activity",
    "warning: apply_patch was requested via ",
)

#: Image placeholders framing an attached image inside a user message.
_IMAGE_TAG = re.compile(r"\s*</?image\b[^>]*>\s*", re.IGNORECASE)

#: Headings that IDE and Desktop clients put before the typed request.
_ENVELOPE_HEADINGS = ("# context from my ide setup:", "# files mentioned by the user:")
_REQUEST_MARKER = "## My request for Codex:"

_CWD_TAG = re.compile(r"<cwd>(.*?)</cwd>", re.DOTALL)


def is_injected_user_text(text: str) -> bool:
    """True for a user-role text block that Codex wrote, not the person."""
    head = text.lstrip()[:96].lower()
    return head.startswith(_INJECTED_USER_PREFIXES)


def strip_request_envelope(text: str) -> str:
    """The typed request inside an IDE/Desktop attachment envelope, else ``text``.

    The VS Code extension and the Desktop app send ``# Context from my IDE
    setup:`` / ``# Files mentioned by the user:`` sections (open tabs, file
    paths) followed by ``## My request for Codex:`` and what was typed.
    """
    if not text.lstrip().lower().startswith(_ENVELOPE_HEADINGS):
        return text
    _head, marker, request = text.partition(_REQUEST_MARKER)
    return request if marker else text


def text_of(value: Any) -> str | None:
    """``value`` when it is a string with something besides whitespace."""
    return value if isinstance(value, str) and value.strip() else None


def block_texts(content: Any, allowed: frozenset[str]) -> Iterator[str]:
    """Texts of a message's content blocks of the ``allowed`` types."""
    if isinstance(content, str):
        yield content
        return
    if not isinstance(content, list):
        return
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if isinstance(kind, str) and kind in allowed:
            text = text_of(block.get("text"))
            if text is not None:
                yield text


def prompt_text(blocks: Iterable[str]) -> str:
    """A person's prompt from user-role text blocks, without injected ones."""
    kept = [b for b in blocks if not is_injected_user_text(b) and not _IMAGE_TAG.fullmatch(b)]
    return strip_request_envelope("\n".join(kept)).strip()


def environment_cwd(blocks: Iterable[str]) -> str | None:
    """The ``<cwd>`` an ``<environment_context>`` block records."""
    for block in blocks:
        if block.lstrip().lower().startswith("<environment_context"):
            found = _CWD_TAG.search(block)
            if found and found.group(1).strip():
                return found.group(1).strip()
    return None
