"""The configured LLM extractor, made from ``[extractors.<name>]`` and the environment.

The API key is read from the environment variable the configuration names
(``api_key_env``), never from the configuration file itself; an empty
``api_key_env`` means the server needs no key (Ollama, llama.cpp's server).

Invariant: a missing key or SDK is reported before the run starts, as a
``ConfigError`` naming the key to fix; the key's value never appears in an
error or a log line.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dreamd.collect.llm.backend import Backend, BackendRefused
from dreamd.collect.llm.extractor import LlmExtractor
from dreamd.collect.llm.fitting import MIN_CONTEXT_TOKENS
from dreamd.collect.llm.servers import cap_parameter, default_context_tokens, server_kind
from dreamd.config import Config
from dreamd.errors import ConfigError
from dreamd.secrets import contains_secret

__all__ = ["build_backend", "build_extractor", "context_tokens"]


def _api_key(name: str, backend: str, env: Mapping[str, str], path: Path | None) -> str | None:
    """The key in the variable ``name``; None when no variable is named."""
    if not name:
        return None
    value = env.get(name, "").strip()
    if not value:
        # A key pasted where its variable's name belongs is not repeated in the message.
        shown = "it names" if contains_secret(name) else name
        raise ConfigError(
            path,
            f"extractors.{backend}.api_key_env",
            f'the environment variable {shown} is not set (set it, or set api_key_env = "" '
            "for a server that needs no key)",
        )
    return value


def build_backend(config: Config, env: Mapping[str, str], path: Path | None = None) -> Backend:
    """The backend ``collect.extractor`` names (not ``heuristic``); raises ``ConfigError``."""
    chosen = config.collect.extractor
    tables = config.extractors
    try:
        if chosen == "openai":
            from dreamd.collect.llm.openai_backend import OpenAIBackend

            openai = tables.openai
            kind = server_kind(openai.server, openai.base_url)
            return OpenAIBackend(
                model=openai.model,
                base_url=openai.base_url or None,
                api_key=_api_key(openai.api_key_env, chosen, env, path),
                timeout=openai.timeout_seconds,
                max_retries=openai.max_retries,
                temperature=openai.temperature,
                cap=cap_parameter(kind),
            )
        if chosen == "anthropic":
            from dreamd.collect.llm.anthropic_backend import AnthropicBackend

            anthropic = tables.anthropic
            return AnthropicBackend(
                model=anthropic.model,
                base_url=anthropic.base_url or None,
                api_key=_api_key(anthropic.api_key_env, chosen, env, path) or "not-needed",
                timeout=anthropic.timeout_seconds,
                max_retries=anthropic.max_retries,
            )
        if chosen == "command":
            from dreamd.collect.llm.command import CommandBackend
            from dreamd.collect.llm.presets import PRESETS, preset_argv

            command = tables.command
            if command.preset:
                return CommandBackend(
                    preset_argv(command.preset, command.model),
                    timeout=command.timeout_seconds,
                    env=env,
                    envelope=PRESETS[command.preset].envelope,
                )
            return CommandBackend(command.argv, timeout=command.timeout_seconds, env=env)
    except BackendRefused as refused:
        key = "collect.extractor"
        if chosen == "command":
            key = f"extractors.command.{'preset' if tables.command.preset else 'argv'}"
        raise ConfigError(path, key, str(refused)) from None
    raise ConfigError(path, "collect.extractor", f"{chosen!r} is not an LLM extractor")


def build_extractor(
    config: Config, env: Mapping[str, str], path: Path | None = None
) -> LlmExtractor:
    """The LLM extractor ``collect.extractor`` names, over its backend."""
    chosen = config.collect.extractor
    limit = getattr(getattr(config.extractors, chosen, None), "max_output_tokens", None)
    context = context_tokens(config, path) if chosen == "openai" else 0
    backend = build_backend(config, env, path)
    if limit is None:
        return LlmExtractor(backend, context_tokens=context)
    return LlmExtractor(backend, max_output_tokens=limit, context_tokens=context)


def context_tokens(config: Config, path: Path | None = None) -> int:
    """The context one ``openai`` request must fit: as configured, else the server kind's.

    Raises ``ConfigError`` for a context too small to hold the prompts.
    """
    openai = config.extractors.openai
    configured = openai.context_tokens
    if configured and configured < MIN_CONTEXT_TOKENS:
        raise ConfigError(
            path,
            "extractors.openai.context_tokens",
            f"must be 0 (the server's default) or at least {MIN_CONTEXT_TOKENS}, got {configured}",
        )
    return configured or default_context_tokens(server_kind(openai.server, openai.base_url))
