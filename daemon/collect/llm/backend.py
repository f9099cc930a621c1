"""The contract between the LLM extractor and a model backend, and the backend's failures.

A backend turns one ``Request`` (system prompt, user prompt, the answer's
JSON schema) into one ``Reply`` (the answer's text and the tokens it cost).
It does not validate the answer: the extractor does, and retries once.

Failures are sorted where they occur, into the collector's terms::

    BackendUnavailable (StopCollecting)   timeouts, lost connections, 429, 5xx after the
                                          SDK's own retries: stop the run, resume later
    RequestRejected (WindowPending)       the server refused this request (400, 413, 422):
                                          this window stays pending, the run goes on
    BackendRefused (DreamdError)          wrong key, model or URL (401, 403, 404), a
                                          missing SDK or program: the user must act

The ``openai`` and ``anthropic`` SDKs raise the same tree of exceptions
(``APITimeoutError`` < ``APIConnectionError`` < ``APIError``, ``APIStatusError``
< ``APIError``, all under the SDK's base error): ``sdk_failure`` sorts either
one's, and ``sdk_required`` refuses a backend whose SDK is not installed.

Invariant: no failure message carries the prompt, the answer or the API key;
a server's error text is passed through the secret filter and cut short.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from dreamd.collect.signals import StopCollecting, WindowPending
from dreamd.errors import DreamdError
from dreamd.secrets import redact

__all__ = [
    "Backend",
    "BackendRefused",
    "BackendUnavailable",
    "Reply",
    "Request",
    "RequestRejected",
    "failure_for_status",
    "sdk_failure",
    "sdk_required",
    "server_text",
]

#: How much of a server's error text a failure message keeps.
MAX_SERVER_TEXT = 200

#: The SDKs put "Error code: 429 - " before a server's message; the status is said anyway.
_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")


@dataclass(frozen=True, slots=True)
class Request:
    """One question to the model: ``stage`` names the prompt and the answer's schema."""

    stage: str
    system: str
    user: str
    schema: Mapping[str, Any]
    max_output_tokens: int


@dataclass(frozen=True, slots=True)
class Reply:
    """The model's answer text, what it cost, and whether it was cut at the output limit."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    truncated: bool = False

    @property
    def tokens(self) -> int:
        """Input and output tokens together (what the per-run cap counts)."""
        return self.input_tokens + self.output_tokens


class Backend(Protocol):
    """One model behind the extractor."""

    @property
    def name(self) -> str:
        """The extractor's configured name (``openai``, ``anthropic``, ``command``)."""
        ...

    def complete(self, request: Request) -> Reply:
        """Ask once; raises one of this module's failures, never a driver's exception."""
        ...

    def close(self) -> None:
        """Release connections (a closed backend is not used again)."""
        ...


class BackendUnavailable(StopCollecting):
    """The model could not be reached or kept refusing for now; the run stops and resumes."""


class RequestRejected(WindowPending):
    """The server refused this one request; its window stays pending."""


class BackendRefused(DreamdError):
    """The backend cannot work as configured (key, model, URL, SDK, program)."""


def server_text(text: object) -> str:
    """A server's error text, safe for a message: secrets redacted, one line, cut short."""
    line = " ".join(str(text).split())
    clean, _ = redact(line)
    return clean if len(clean) <= MAX_SERVER_TEXT else clean[: MAX_SERVER_TEXT - 1] + "…"


def failure_for_status(backend: str, status: int, text: object) -> Exception:
    """The failure an HTTP status from a model server stands for."""
    said = _SDK_PREFIX.sub("", server_text(text))
    detail = f"{backend} answered HTTP {status}: {said}"
    if status in (401, 403):
        return BackendRefused(f"{detail} (check the API key variable of [extractors.{backend}])")
    if status == 404:
        return BackendRefused(f"{detail} (check base_url and model of [extractors.{backend}])")
    if status == 429 or status >= 500 or status in (408, 409):
        return BackendUnavailable(f"{detail}; the run stops and resumes next time")
    return RequestRejected(f"{detail}; the window stays pending")


def sdk_failure(backend: str, sdk: ModuleType, error: Exception) -> Exception:
    """The failure an exception of ``sdk`` (``openai`` or ``anthropic``) stands for.

    A timeout, a lost connection or a reply the SDK could not read stops the
    run; an HTTP status is sorted by ``failure_for_status``.
    """
    if isinstance(error, sdk.APITimeoutError):
        return BackendUnavailable(f"{backend}: the request timed out")
    if isinstance(error, sdk.APIStatusError):
        return failure_for_status(backend, error.status_code, error.message)
    return BackendUnavailable(f"{backend}: {server_text(error)}")


@contextmanager
def sdk_required(backend: str) -> Iterator[None]:
    """Import a backend's SDK inside: a missing one is ``BackendRefused`` saying what to install.

    The SDK is named after its backend and installed with dreamd's extra of that name.
    """
    try:
        yield
    except ImportError:
        raise BackendRefused(
            f"the {backend} extractor needs the {backend} SDK: pip install 'dreamd[{backend}]'"
        ) from None
