"""The ``anthropic`` backend: the Anthropic Messages API through the official SDK.

The answer is asked for as structured output (``output_config.format`` of type
``json_schema``); the extractor validates it anyway. ``base_url`` points the
SDK at a proxy or any server speaking the Messages API.

Invariants: the SDK is imported when the backend is made, never when dreamd
starts (it takes about three seconds); the SDK's own retries are the only
retries; a reply that stopped at ``max_tokens`` is marked truncated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dreamd.collect.llm.backend import Reply, Request, sdk_failure, sdk_required

if TYPE_CHECKING:
    import anthropic

__all__ = ["AnthropicBackend"]


class AnthropicBackend:
    """Messages with a JSON-schema answer, through the ``anthropic`` SDK."""

    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str,
        timeout: float,
        max_retries: int,
    ) -> None:
        with sdk_required(self.name):
            import anthropic
        self._sdk = anthropic
        self._model = model
        self._client: anthropic.Anthropic = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url or None,
            timeout=timeout,
            max_retries=max_retries,
        )

    def complete(self, request: Request) -> Reply:
        """One message; the answer's text, token usage and truncation."""
        sdk = self._sdk
        try:
            message = self._client.messages.create(
                model=self._model,
                max_tokens=request.max_output_tokens,
                system=request.system,
                messages=[{"role": "user", "content": request.user}],
                output_config={"format": {"type": "json_schema", "schema": dict(request.schema)}},
            )
        except sdk.AnthropicError as error:
            raise sdk_failure(self.name, sdk, error) from None
        return _reply(message)

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self._client.close()


def _reply(message: Any) -> Reply:
    """The text blocks of a message joined, its usage, and whether it hit ``max_tokens``."""
    blocks = getattr(message, "content", None) or []
    text = "".join(getattr(block, "text", "") or "" for block in blocks if block.type == "text")
    usage = getattr(message, "usage", None)
    return Reply(
        text,
        int(getattr(usage, "input_tokens", 0) or 0),
        int(getattr(usage, "output_tokens", 0) or 0),
        truncated=getattr(message, "stop_reason", None) == "max_tokens",
    )
