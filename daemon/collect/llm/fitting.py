"""Keeping each request inside the model's context (``extractors.openai.context_tokens``).

A server that receives more than its context holds does not refuse: Ollama
and llama.cpp cut the prompt from the front, silently, so the instructions
go first. dreamd therefore never sends more than the configured context.
Rules, one function each:

- ``estimate_tokens``: about one token per four characters of ASCII text,
  and one token for every other character (CJK text runs at about one token
  per character, accented Latin at less): an estimate that errs on the long
  side for every script, with no tokenizer to install;
- ``output_reserve``: the answer's room, the configured output cap but never
  more than a quarter of the context (an extraction answer is short JSON);
- ``fits``: the system and user prompts, the chat template's overhead and the
  answer's room together fit the context;
- ``fit_window`` / ``fit_session``: a window (or the whole session, for the
  events stage) that does not fit loses its *oldest* messages, one at a time,
  until it does; the request says how many are not shown (the window's
  Earlier Conversation, or a line in the events request), and the caller
  reports it. Nothing is ever cut by the server.

A request that does not fit even with one message left means the context is
too small for the prompts themselves: ``ContextTooSmall``, a setting to fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from dreamd.collect.llm.backend import BackendRefused, Request
from dreamd.collect.pipeline import Window

__all__ = [
    "MIN_CONTEXT_TOKENS",
    "TEMPLATE_OVERHEAD_TOKENS",
    "ContextTooSmall",
    "Fitted",
    "estimate_tokens",
    "fit_session",
    "fit_window",
    "fits",
    "omitted_note",
    "output_reserve",
]

#: Tokens a chat template adds around a system and a user message (role markers, BOS...).
TEMPLATE_OVERHEAD_TOKENS = 64
#: The smallest context worth configuring: the shared rules and one stage prompt need ~1.5k.
MIN_CONTEXT_TOKENS = 2048
#: ASCII characters per token in the estimate.
ASCII_CHARS_PER_TOKEN = 4


class ContextTooSmall(BackendRefused):
    """Even one message does not fit: ``context_tokens`` is too small for the prompts."""


def estimate_tokens(text: str) -> int:
    """Tokens ``text`` takes, estimated long: ASCII at four characters a token, others one each."""
    ascii_chars = sum(1 for char in text if ord(char) < 128)
    other = len(text) - ascii_chars
    return -(-ascii_chars // ASCII_CHARS_PER_TOKEN) + other


def output_reserve(max_output_tokens: int, context_tokens: int) -> int:
    """The answer's cap inside a context: as configured, at most a quarter of the context."""
    if context_tokens <= 0:
        return max_output_tokens
    return max(1, min(max_output_tokens, context_tokens // 4))


def fits(request: Request, context_tokens: int) -> bool:
    """Whether prompts, template overhead and the answer's room fit ``context_tokens``."""
    needed = (
        estimate_tokens(request.system)
        + estimate_tokens(request.user)
        + TEMPLATE_OVERHEAD_TOKENS
        + request.max_output_tokens
    )
    return needed <= context_tokens


def omitted_note(count: int) -> str:
    """What the model is told about the messages left out to fit its context."""
    noun = "message" if count == 1 else "messages"
    return f"[{count} older {noun} of this part are not shown, to fit the model's context]"


@dataclass(frozen=True, slots=True)
class Fitted:
    """A request inside the context, and how many of its messages were left out."""

    request: Request
    omitted: int = 0


def _too_small(request: Request, context_tokens: int) -> ContextTooSmall:
    needed = estimate_tokens(request.system) + estimate_tokens(request.user)
    return ContextTooSmall(
        f"extractors.openai.context_tokens = {context_tokens} cannot hold even one message "
        f"with the prompt (about {needed + TEMPLATE_OVERHEAD_TOKENS} tokens and "
        f"{request.max_output_tokens} for the answer): raise the server's context and this "
        "setting"
    )


def _fewest_left_out(total: int, build: Callable[[int], Request], context_tokens: int) -> Fitted:
    """The request leaving out the fewest oldest messages that fits (a binary search: leaving
    out more never makes a request longer); ``ContextTooSmall`` when one message is too many."""
    request = build(0)
    if context_tokens <= 0 or fits(request, context_tokens):
        return Fitted(request)
    low, high = 1, total - 1  # the answer, if any, lies in [low, high]
    best: Fitted | None = None
    while low <= high:
        middle = (low + high) // 2
        candidate = build(middle)
        if fits(candidate, context_tokens):
            best, high = Fitted(candidate, middle), middle - 1
        else:
            low = middle + 1
    if best is None:
        raise _too_small(build(max(total - 1, 0)), context_tokens)
    return best


def fit_window(window: Window, build: Callable[[Window], Request], context_tokens: int) -> Fitted:
    """``build(window)``, leaving out the window's oldest messages until it fits (0: no limit)."""

    def shortened(omitted: int) -> Request:
        if not omitted:
            return build(window)
        note = omitted_note(omitted)
        digest = f"{window.digest}\n{note}" if window.digest else note
        return build(replace(window, messages=window.messages[omitted:], digest=digest))

    return _fewest_left_out(len(window.messages), shortened, context_tokens)


def fit_session(
    windows: Sequence[Window],
    build: Callable[[Sequence[Window], int], Request],
    context_tokens: int,
) -> Fitted:
    """``build(windows, omitted)`` for the events stage, oldest messages left out until it fits."""
    total = sum(len(window.messages) for window in windows)
    return _fewest_left_out(
        total, lambda omitted: build(_without_oldest(windows, omitted), omitted), context_tokens
    )


def _without_oldest(windows: Sequence[Window], count: int) -> list[Window]:
    """The session's windows without their ``count`` oldest messages (empty windows dropped)."""
    kept: list[Window] = []
    for window in windows:
        if count >= len(window.messages):
            count -= len(window.messages)
            continue
        kept.append(replace(window, messages=window.messages[count:]) if count else window)
        count = 0
    return kept
