"""The answer inside each agent CLI's output, and what it cost.

One reader per envelope (``presets.Envelope``), each a named function:

- ``claude_answer``: ``claude -p --output-format json`` prints one object:
  the answer in ``result`` (or, when the CLI enforced a schema itself, the
  object in ``structured_output``), ``is_error`` when the run failed, and
  ``usage`` (input, cache-creation, cache-read and output tokens);
- ``codex_answer``: ``codex exec --json`` prints JSON Lines events: the answer
  is the text of the last ``item.completed`` event whose item is an
  ``agent_message``; ``turn.completed`` carries ``usage`` (``input_tokens``,
  ``cached_input_tokens``, ``output_tokens``); ``turn.failed`` and ``error``
  events mean the run failed;
- ``gemini_answer``: ``gemini -p --output-format json`` prints one object:
  the answer in ``response``, ``error`` when the request failed, and
  ``stats.models.<model>.tokens`` (``prompt``, ``candidates``, ``thoughts``)
  per model used;
- ``read_envelope`` with ``auto`` (a configured ``argv``): whichever of the
  three the output is, else the output itself is the answer.

Tokens are what the CLI reported; where it reported none, an estimate of one
token per four characters of prompt and answer, so the run's cap still holds.
A failure the CLI reports stops the run (``BackendUnavailable``): it is never
read as an empty answer. Error texts are redacted and cut short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeGuard

from dreamd.collect.llm.backend import BackendUnavailable, Reply, server_text
from dreamd.collect.llm.presets import Envelope

__all__ = [
    "claude_answer",
    "codex_answer",
    "estimate_tokens",
    "gemini_answer",
    "read_envelope",
]

#: Claude usage fields counted as input (the prompt, written to or read from the cache).
_CLAUDE_INPUT = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def estimate_tokens(*texts: str) -> int:
    """About one token per four characters, rounded up (at least one per non-empty text)."""
    return sum(-(-len(text) // 4) for text in texts if text)


def _number(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _object(text: str) -> dict[str, Any] | None:
    try:
        decoded: Any = json.loads(text)
    except ValueError:
        return None
    return decoded if isinstance(decoded, dict) else None


def _estimated(answer: str, prompt: str) -> Reply:
    return Reply(answer, estimate_tokens(prompt), estimate_tokens(answer))


def claude_answer(stdout: str, prompt: str) -> Reply | None:
    """Claude Code's result object, or None when the output is not one."""
    decoded = _object(stdout.strip())
    if decoded is None or not (
        isinstance(decoded.get("result"), str) or isinstance(decoded.get("structured_output"), dict)
    ):
        return None
    if decoded.get("is_error"):
        raise BackendUnavailable(f"command reported an error: {server_text(decoded.get('result'))}")
    structured = decoded.get("structured_output")
    answer = json.dumps(structured) if isinstance(structured, dict) else str(decoded["result"])
    usage = decoded.get("usage")
    if not isinstance(usage, Mapping):
        return _estimated(answer, prompt)
    spent = sum(_number(usage.get(name)) for name in _CLAUDE_INPUT)
    return Reply(answer, spent, _number(usage.get("output_tokens")))


def _events(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects with a ``type`` among stdout's lines (other lines are progress)."""
    found = []
    for line in stdout.splitlines():
        decoded = _object(line.strip()) if line.strip().startswith("{") else None
        if decoded is not None and isinstance(decoded.get("type"), str):
            found.append(decoded)
    return found


def _event_error(event: Mapping[str, Any]) -> str:
    error = event.get("error")
    message = error.get("message") if isinstance(error, Mapping) else event.get("message")
    return server_text(message or event["type"])


def _is_agent_message(item: object) -> TypeGuard[Mapping[str, Any]]:
    """A completed item holding the agent's reply text (``assistant_message`` in older releases)."""
    return (
        isinstance(item, Mapping)
        and item.get("type") in ("agent_message", "assistant_message")
        and isinstance(item.get("text"), str)
    )


def codex_answer(stdout: str, prompt: str) -> Reply | None:
    """Codex's JSON Lines events, or None when the output holds none."""
    events = _events(stdout)
    if not any(e["type"].startswith(("thread.", "turn.", "item.")) for e in events):
        return None
    answer: str | None = None
    spent_in = spent_out = 0
    reported = False
    for event in events:
        kind = event["type"]
        if kind in ("turn.failed", "error"):
            raise BackendUnavailable(f"command reported an error: {_event_error(event)}")
        item = event.get("item")
        if kind == "item.completed" and _is_agent_message(item):
            answer = item["text"]
        usage = event.get("usage")
        if kind == "turn.completed" and isinstance(usage, Mapping):
            reported = True
            spent_in += _number(usage.get("input_tokens"))
            spent_out += _number(usage.get("output_tokens"))
    if answer is None:
        raise BackendUnavailable("command finished without an answer (no agent message)")
    return Reply(answer, spent_in, spent_out) if reported else _estimated(answer, prompt)


def gemini_answer(stdout: str, prompt: str) -> Reply | None:
    """Gemini CLI's JSON output, or None when the output is not it."""
    decoded = _object(stdout.strip())
    if decoded is None or not ("response" in decoded or isinstance(decoded.get("error"), dict)):
        return None
    error = decoded.get("error")
    if isinstance(error, Mapping):
        raise BackendUnavailable(
            f"command reported an error: {server_text(error.get('message') or error)}"
        )
    answer = decoded.get("response")
    if not isinstance(answer, str):
        raise BackendUnavailable("command finished without an answer (no response)")
    stats = decoded.get("stats")
    models = stats.get("models") if isinstance(stats, Mapping) else None
    if not isinstance(models, Mapping) or not models:
        return _estimated(answer, prompt)
    spent_in = spent_out = 0
    for model in models.values():
        tokens = model.get("tokens") if isinstance(model, Mapping) else None
        if isinstance(tokens, Mapping):
            spent_in += _number(tokens.get("prompt"))
            spent_out += _number(tokens.get("candidates")) + _number(tokens.get("thoughts"))
    return Reply(answer, spent_in, spent_out)


_READERS = {"claude": claude_answer, "codex": codex_answer, "gemini": gemini_answer}


def read_envelope(envelope: Envelope, stdout: str, prompt: str) -> Reply:
    """The answer in a CLI's output: its envelope's content, or the output itself.

    A preset's CLI must print its envelope (anything else stops the run);
    ``auto`` tries the three, then takes the output as the answer.
    """
    if envelope != "auto":
        reply = _READERS[envelope](stdout, prompt)
        if reply is None:
            raise BackendUnavailable(
                f"command printed no {envelope} JSON output: {server_text(stdout[:200])}"
            )
        return reply
    for read in _READERS.values():
        found = read(stdout, prompt)
        if found is not None:
            return found
    text = stdout.strip()
    return _estimated(text, prompt)
