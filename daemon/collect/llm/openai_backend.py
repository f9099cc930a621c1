"""The ``openai`` backend: any server speaking OpenAI's chat-completions protocol.

OpenAI itself, Ollama, llama.cpp's server and vLLM all take the same request
through the official SDK with a ``base_url``. The answer is asked for as
structured output against the stage's JSON schema (``response_format`` of
type ``json_schema``, strict); the extractor validates it anyway, since some
servers ignore the schema.

Invariants:

- the SDK is imported when the backend is made, never when dreamd starts
  (it takes more than a second to import);
- the SDK's own retries (with its backoff and ``Retry-After`` handling) are
  the only retries of a failed request; what fails after them becomes one of
  ``backend``'s failures;
- the answer is bounded under the name the server understands (``cap``:
  ``max_completion_tokens`` for the OpenAI API, ``max_tokens`` for Ollama,
  llama.cpp and vLLM; see ``servers``); a reply cut there is marked truncated
  (``finish_reason == "length"``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dreamd.collect.llm.backend import Reply, Request, sdk_failure, sdk_required

if TYPE_CHECKING:
    import openai

__all__ = ["OpenAIBackend"]


class OpenAIBackend:
    """Chat completions with a JSON-schema answer, through the ``openai`` SDK."""

    name = "openai"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout: float,
        max_retries: int,
        temperature: float | None = None,
        cap: str = "max_completion_tokens",
    ) -> None:
        with sdk_required(self.name):
            import openai
        self._sdk = openai
        self._model = model
        self._temperature = temperature
        self._cap = cap
        # Servers without authentication (Ollama, llama.cpp) still need a non-empty key.
        self._client: openai.OpenAI = openai.OpenAI(
            api_key=api_key or "not-needed",
            base_url=base_url or None,
            timeout=timeout,
            max_retries=max_retries,
        )

    def complete(self, request: Request) -> Reply:
        """One chat completion; the answer's text, token usage and truncation."""
        sdk = self._sdk
        extra: dict[str, Any] = {self._cap: request.max_output_tokens}
        if self._temperature is not None:
            extra["temperature"] = self._temperature
        try:
            response = self._client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": request.system},
                    {"role": "user", "content": request.user},
                ],
                response_format={
                    "type": "json_schema",
                    "json_schema": {
                        "name": request.stage,
                        "schema": dict(request.schema),
                        "strict": True,
                    },
                },
                **extra,
            )
        except sdk.OpenAIError as error:
            raise sdk_failure(self.name, sdk, error) from None
        return _reply(response)

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self._client.close()


def _reply(response: Any) -> Reply:
    """The answer of a chat completion: first choice's text, usage, cut at the limit or not."""
    choices = getattr(response, "choices", None) or []
    usage = getattr(response, "usage", None)
    prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion = int(getattr(usage, "completion_tokens", 0) or 0)
    if not choices:
        return Reply("", prompt, completion)
    choice = choices[0]
    text = getattr(choice.message, "content", None) or ""
    return Reply(text, prompt, completion, truncated=choice.finish_reason == "length")
