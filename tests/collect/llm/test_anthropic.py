"""The ``anthropic`` extractor over real HTTP, against a Messages API server on loopback."""

from __future__ import annotations

import pytest

from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.anthropic_backend import AnthropicBackend
from dreamd.collect.llm.backend import BackendRefused
from dreamd.collect.signals import StopCollecting, WindowPending
from dreamd.prompts import schema
from tests.collect.llm.answers import window
from tests.collect.llm.fakeserver import Answer, FakeLLM, Stall, Status

KEY = "fake-anthropic-key-for-loopback"
RULE = "Always squash commits before merging to main."


def extractor(server: FakeLLM, *, timeout: float = 5.0) -> LlmExtractor:
    backend = AnthropicBackend(
        model="claude-fake", base_url=server.url, api_key=KEY, timeout=timeout, max_retries=0
    )
    return LlmExtractor(backend, max_output_tokens=700)


def test_a_rule_is_extracted_through_the_messages_api(server: FakeLLM) -> None:
    """Scan then update over /v1/messages: one item with its verified quote and tokens."""
    model = extractor(server)
    [item] = model.topics(window(RULE, "Will do."))
    assert server.stages() == ["topics_scan", "topics_update"]
    assert item.quotes[0].text == RULE and item.category == "Rule"
    assert model.tokens_used == 240


def test_the_request_carries_system_schema_limit_and_key(server: FakeLLM) -> None:
    """System prompt apart, JSON-schema output format, max_tokens and the key are sent."""
    extractor(server).people(window("Fix it.", "Done."))
    [request] = server.received
    assert request.path == "/v1/messages"
    assert request.body["model"] == "claude-fake" and request.body["max_tokens"] == 700
    assert request.body["output_config"]["format"]["type"] == "json_schema"
    assert request.schema == schema("people")
    assert "People" in request.system and "Most Recent Messages" in request.user
    sent = request.headers.get("authorization", "").removeprefix("Bearer ")
    assert KEY in (request.headers.get("x-api-key"), sent)  # the SDK chooses the header


def test_an_answer_cut_at_max_tokens_is_retried_then_left_pending(server: FakeLLM) -> None:
    """stop_reason max_tokens twice: the window stays pending, saying it was cut."""
    server.script = [Answer('{"people": [', cut=True), Answer('{"people": []}', cut=True)]
    with pytest.raises(WindowPending, match="cut at the output token limit"):
        extractor(server).people(window("Fix it.", "Done."))


def test_overloaded_and_timeouts_stop_the_run(server: FakeLLM) -> None:
    """529 (overloaded) and a stalled answer both stop the run cleanly."""
    server.script = [Status(529, "overloaded")]
    with pytest.raises(StopCollecting, match="HTTP 529"):
        extractor(server).people(window("Fix it.", "Done."))
    server.script = [Stall(30)]
    with pytest.raises(StopCollecting, match="timed out"):
        extractor(server, timeout=0.5).people(window("Fix it.", "Done."))


def test_a_refused_key_is_a_user_error(server: FakeLLM) -> None:
    """403: BackendRefused naming what to check."""
    server.script = [Status(403, "forbidden")]
    with pytest.raises(BackendRefused, match="HTTP 403"):
        extractor(server).people(window("Fix it.", "Done."))
