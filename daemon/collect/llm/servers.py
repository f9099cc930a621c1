"""Which OpenAI-compatible server the ``openai`` extractor talks to, and what follows from it.

Servers speaking OpenAI's chat-completions protocol differ in two ways that
matter to dreamd, each decided by one rule below:

- ``cap_parameter``: the name of the output cap the server understands. The
  OpenAI API takes ``max_completion_tokens`` (``max_tokens`` is deprecated
  there and refused by reasoning models); Ollama documents ``max_tokens``
  only, and llama.cpp's server took ``max_completion_tokens`` only in recent
  releases. A cap under a name the server does not know is ignored silently,
  so the answer would run on unbounded.
- ``default_context_tokens``: how many tokens one request may hold when the
  configuration does not say (``extractors.openai.context_tokens = 0``).
  Ollama runs models with a small context by default (4,096 tokens on
  smaller GPUs) and its ``/v1`` endpoint cannot raise it per request; a
  longer prompt is cut from the front without an error.

``server_kind`` turns ``extractors.openai.server`` (``auto`` by default) and
``base_url`` into one kind: ``auto`` means ``openai`` for the SDK's default
URL or ``api.openai.com``, ``ollama`` on Ollama's port 11434, and ``other``
(the widely understood ``max_tokens``) for anything else.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

__all__ = [
    "CAP_PARAMETERS",
    "DEFAULT_CONTEXT_TOKENS",
    "OLLAMA_PORT",
    "OPENAI_HOST",
    "ServerKind",
    "ServerSetting",
    "cap_parameter",
    "default_context_tokens",
    "server_kind",
]

#: What ``extractors.openai.server`` accepts.
ServerSetting = Literal["auto", "openai", "ollama", "llamacpp", "vllm"]
#: What a server is taken to be (``other``: ``auto`` could not tell).
ServerKind = Literal["openai", "ollama", "llamacpp", "vllm", "other"]

#: The OpenAI API's host.
OPENAI_HOST = "api.openai.com"
#: The port Ollama listens on unless told otherwise.
OLLAMA_PORT = 11434

#: Each kind's name for the output cap.
CAP_PARAMETERS: dict[ServerKind, str] = {
    "openai": "max_completion_tokens",
    "ollama": "max_tokens",
    "llamacpp": "max_tokens",
    "vllm": "max_tokens",
    "other": "max_tokens",
}

#: Tokens one request may hold when ``context_tokens`` is 0: what each kind runs with out of
#: the box (Ollama's and llama.cpp's server default, vLLM's smallest common model length, a
#: current OpenAI model's window); ``other`` is assumed as small as a local server.
DEFAULT_CONTEXT_TOKENS: dict[ServerKind, int] = {
    "openai": 128_000,
    "ollama": 4096,
    "llamacpp": 4096,
    "vllm": 8192,
    "other": 4096,
}


def server_kind(setting: ServerSetting, base_url: str) -> ServerKind:
    """The kind of server ``base_url`` is, as configured or (``auto``) told by its address."""
    if setting != "auto":
        return setting
    if not base_url.strip():
        return "openai"  # the SDK's own default URL
    parts = urlsplit(base_url.strip())
    if (parts.hostname or "").casefold() == OPENAI_HOST:
        return "openai"
    try:
        port = parts.port
    except ValueError:
        port = None
    return "ollama" if port == OLLAMA_PORT else "other"


def cap_parameter(kind: ServerKind) -> str:
    """The request field that caps the answer's length on a server of ``kind``."""
    return CAP_PARAMETERS[kind]


def default_context_tokens(kind: ServerKind) -> int:
    """The context a server of ``kind`` is assumed to run with when none is configured."""
    return DEFAULT_CONTEXT_TOKENS[kind]
