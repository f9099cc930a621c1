"""Command lines for the agent CLIs a user already has and is signed in to.

``[extractors.command] preset = "claude" | "codex" | "gemini"`` runs that CLI
for one answer per request, non-interactively, the prompt on stdin, the
answer printed as the CLI's JSON envelope (``envelopes`` reads each one).
Every preset asks for a single answer with no tools and no saved session,
as far as the CLI can be told:

- **Claude Code** ``claude -p --output-format json``: one result object
  (``result``, ``usage``, ``is_error``); ``--no-session-persistence`` saves
  no session, ``--tools ""`` offers the model no built-in tool,
  ``--strict-mcp-config`` without an MCP configuration starts no MCP server,
  ``--max-turns 1`` ends after the one answer.
- **Codex CLI** ``codex exec --json -``: JSON Lines events (the answer is the
  last ``agent_message`` item, usage in ``turn.completed``); ``-`` reads the
  prompt from stdin, ``--ephemeral`` keeps no rollout, ``--sandbox
  read-only`` lets no command change anything, ``--skip-git-repo-check``
  allows the empty working folder. Codex has no switch that removes its
  shell tool; the read-only sandbox in an empty folder is the limit.
- **Gemini CLI** ``gemini -p ... --output-format json``: one object
  (``response``, ``stats``, ``error``); ``-p`` forces the headless mode and
  is appended to the prompt read from stdin; ``--extensions none`` loads no
  extension. Headless Gemini offers no tool that needs approval (no shell, no
  edits); it has no switch to keep the chat unsaved, so the chat it records
  under ``~/.gemini/tmp/`` names dreamd's marked working folder and is
  skipped as dreamd's own run.

Invariant: a preset names only its program; where it is installed is found on
``PATH`` when the backend is made (a missing one is a setting to fix).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["GEMINI_INSTRUCTION", "PRESETS", "Envelope", "Preset", "PresetName", "preset_argv"]

PresetName = Literal["claude", "codex", "gemini"]
#: How a CLI wraps its answer on stdout (``auto``: whichever of them it looks like, or none).
Envelope = Literal["auto", "claude", "codex", "gemini"]

#: Gemini's ``-p`` text, appended after the prompt it reads from stdin.
GEMINI_INSTRUCTION = (
    "Follow the instructions above and reply with the JSON object only; use no tools."
)


@dataclass(frozen=True, slots=True)
class Preset:
    """One CLI: its command line, the flag that picks a model, and its output envelope."""

    argv: tuple[str, ...]
    model_flag: str
    envelope: Envelope


#: The presets, by ``[extractors.command] preset``.
PRESETS: dict[PresetName, Preset] = {
    "claude": Preset(
        (
            "claude", "-p", "--output-format", "json", "--no-session-persistence",
            "--tools", "", "--strict-mcp-config", "--max-turns", "1",
        ),
        "--model",
        "claude",
    ),
    "codex": Preset(
        (
            "codex", "exec", "--json", "--ephemeral", "--skip-git-repo-check",
            "--sandbox", "read-only", "--color", "never", "-",
        ),
        "--model",
        "codex",
    ),
    "gemini": Preset(
        ("gemini", "--output-format", "json", "--extensions", "none", "-p", GEMINI_INSTRUCTION),
        "--model",
        "gemini",
    ),
}  # fmt: skip


def preset_argv(name: PresetName, model: str = "") -> list[str]:
    """The preset's command line, with ``--model`` right after the program when one is named.

    (Codex takes its options after ``exec``; the model goes there.)
    """
    preset = PRESETS[name]
    argv = list(preset.argv)
    if not model.strip():
        return argv
    at = 2 if name == "codex" else 1
    return [*argv[:at], preset.model_flag, model.strip(), *argv[at:]]
