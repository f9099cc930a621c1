"""What extractors this machine offers, for ``dreamd setup`` (nothing here spends a token).

Three kinds of offer, each found by one function:

- ``agent_clis``: the agent CLIs dreamd has presets for (``claude``,
  ``codex``, ``gemini``) on ``PATH``; the user is signed in to them already,
  so they extract without any further setup;
- ``local_servers``: an OpenAI-compatible server answering ``GET /v1/models``
  on 127.0.0.1 at the usual ports (``LOCAL_PORTS``: Ollama's 11434,
  llama.cpp's 8080, vLLM's 8000), with the models it serves; a llama.cpp
  server's context is read from its ``/props`` when it says;
- ``api_keys``: ``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY`` set in the
  environment (only the variable's name is ever kept, never its value).

``offers`` lists them in the order ``setup --yes`` prefers (``PREFERENCE``):
a signed-in CLI first (the strongest extractor with nothing to configure),
then a local server (free and private, as good as its model), then an API
key (billed per token). Probing only reads: a model list and a props page.
"""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dreamd.collect.llm.presets import PRESETS

__all__ = [
    "API_KEYS",
    "DEFAULT_MODELS",
    "LOCAL_PORTS",
    "PROBE_TIMEOUT_SECONDS",
    "Offer",
    "agent_clis",
    "api_keys",
    "local_servers",
    "offers",
]

#: Ports a local OpenAI-compatible server usually listens on, and what usually runs there.
LOCAL_PORTS: dict[int, str] = {11434: "ollama", 8080: "llamacpp", 8000: "vllm"}
#: How long one probe waits for an answer.
PROBE_TIMEOUT_SECONDS = 1.0
#: Environment variables holding an API key → the extractor that uses them.
API_KEYS: dict[str, str] = {"OPENAI_API_KEY": "openai", "ANTHROPIC_API_KEY": "anthropic"}
#: The model setup proposes for an API key (a small, inexpensive one; change it freely).
DEFAULT_MODELS: dict[str, str] = {"openai": "gpt-4.1-mini", "anthropic": "claude-haiku-4-5"}


@dataclass(frozen=True, slots=True)
class Offer:
    """One way to extract: what it is, and the configuration that selects it.

    ``extractor`` is ``collect.extractor``; ``table`` the keys of
    ``[extractors.<extractor>]`` to write.
    """

    kind: str  # "cli", "local", "api-key"
    label: str
    extractor: str
    table: Mapping[str, Any] = field(default_factory=dict)
    cost: str = ""


def agent_clis(env: Mapping[str, str]) -> list[Offer]:
    """The agent CLIs with a preset that are on ``PATH``."""
    path = env.get("PATH", "")
    found = []
    for name in PRESETS:
        program = shutil.which(name, path=path)
        if program is not None:
            found.append(
                Offer(
                    "cli",
                    f"{name} CLI ({program})",
                    "command",
                    {"preset": name},
                    "uses your CLI's own plan or account",
                )
            )
    return found


def _get_json(url: str) -> Any:
    """The JSON document at ``url``, or None when nothing (readable) answers."""
    try:
        with urllib.request.urlopen(url, timeout=PROBE_TIMEOUT_SECONDS) as response:
            return json.loads(response.read(1_000_000))
    except (OSError, ValueError, urllib.error.URLError):
        return None


def _models(listing: Any) -> list[str]:
    """Model ids of a ``/v1/models`` answer (``{"data": [{"id": ...}]}``)."""
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        return []
    return [str(entry["id"]) for entry in data if isinstance(entry, dict) and entry.get("id")]


def _llamacpp_context(base: str) -> int:
    """The context a llama.cpp server runs with (``/props``), or 0 when it does not say."""
    props = _get_json(f"{base}/props")
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else 0


def local_servers(ports: Mapping[int, str] = LOCAL_PORTS, host: str = "127.0.0.1") -> list[Offer]:
    """Servers answering ``/v1/models`` on ``ports`` of ``host``, each with its first model."""
    found = []
    for port, kind in ports.items():
        base = f"http://{host}:{port}"
        models = _models(_get_json(f"{base}/v1/models"))
        if not models:
            continue
        table: dict[str, Any] = {
            "base_url": f"{base}/v1",
            "model": models[0],
            "api_key_env": "",
            "server": kind,
        }
        if kind == "llamacpp":
            context = _llamacpp_context(base)
            if context:
                table["context_tokens"] = context
        others = f" (also: {', '.join(models[1:4])})" if len(models) > 1 else ""
        found.append(
            Offer(
                "local",
                f"{kind} server on {host}:{port}, model {models[0]}{others}",
                "openai",
                table,
                "free: runs on this machine",
            )
        )
    return found


def api_keys(env: Mapping[str, str]) -> list[Offer]:
    """The API key variables that are set (their values are never read beyond "set")."""
    found = []
    for variable, extractor in API_KEYS.items():
        if env.get(variable, "").strip():
            table: dict[str, Any] = {"model": DEFAULT_MODELS[extractor], "api_key_env": variable}
            if extractor == "openai":
                table.update({"base_url": "", "server": "openai"})
            found.append(
                Offer(
                    "api-key",
                    f"{extractor} API ({variable} is set)",
                    extractor,
                    table,
                    "billed per token to that key",
                )
            )
    return found


#: The order ``setup --yes`` prefers the kinds in (see the module docstring).
PREFERENCE: Sequence[str] = ("cli", "local", "api-key")


def offers(
    env: Mapping[str, str], ports: Mapping[int, str] = LOCAL_PORTS, host: str = "127.0.0.1"
) -> list[Offer]:
    """Every offer found, in ``PREFERENCE`` order."""
    found = [*agent_clis(env), *local_servers(ports, host), *api_keys(env)]
    return sorted(found, key=lambda offer: PREFERENCE.index(offer.kind))
