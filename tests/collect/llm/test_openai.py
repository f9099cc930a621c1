"""The ``openai`` extractor over real HTTP, against a chat-completions server on loopback."""

from __future__ import annotations

import json

import pytest

from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.backend import BackendRefused, RequestRejected
from dreamd.collect.llm.openai_backend import OpenAIBackend
from dreamd.collect.pipeline import MIN_CONFIDENCE, run_window
from dreamd.collect.signals import StopCollecting, WindowPending
from dreamd.prompts import schema
from tests.collect.llm.answers import remembering, window
from tests.collect.llm.fakeserver import Answer, FakeLLM, Hangup, Stall, Status

KEY = "fake-key-for-the-loopback-server"
RULE = "From now on, always run the linter before committing."


def extractor(server: FakeLLM, *, retries: int = 0, timeout: float = 5.0) -> LlmExtractor:
    backend = OpenAIBackend(
        model="fake-model",
        base_url=f"{server.url}/v1",
        api_key=KEY,
        timeout=timeout,
        max_retries=retries,
    )
    return LlmExtractor(backend, max_output_tokens=512)


def test_a_rule_goes_through_scan_and_update_with_a_verified_quote(server: FakeLLM) -> None:
    """Scan finds it, update writes it: one item citing the message, tokens counted."""
    piece = window(RULE, "Noted.", "thanks", "You're welcome.")
    found = extractor(server).topics(piece)
    assert server.stages() == ["topics_scan", "topics_update"]  # no match: nothing known yet
    [item] = found
    assert (item.category, item.type, item.source) == ("Rule", "feedback", piece.source)
    assert item.quotes[0].message_id == "claude-code:box:s-1:m0"
    assert item.quotes[0].text == RULE and item.confidence == 1.0


def test_the_request_asks_for_the_stages_schema_strictly_with_the_key(server: FakeLLM) -> None:
    """Model, JSON-schema response format (strict), output cap and bearer key reach the server."""
    extractor(server).topics(window(RULE, "Noted."))
    scan = server.received[0]
    assert scan.path == "/v1/chat/completions"
    assert scan.body["model"] == "fake-model"
    assert scan.body["max_completion_tokens"] == 512
    assert scan.body["response_format"]["type"] == "json_schema"
    assert scan.body["response_format"]["json_schema"]["strict"] is True
    assert scan.schema == schema("topics_scan")
    assert scan.headers["authorization"] == f"Bearer {KEY}"
    assert "claude-code:box:s-1:m0" in scan.user and "Most Recent Messages" in scan.user


def test_an_empty_scan_costs_one_request(server: FakeLLM) -> None:
    """The common answer (nothing) ends the topics stage after the scan."""
    model = extractor(server)
    assert model.topics(window("Fix the flaky test please.", "Done.")) == []
    assert server.stages() == ["topics_scan"]
    assert model.tokens_used == 120


def test_an_invalid_answer_is_asked_again_once(server: FakeLLM) -> None:
    """Not JSON, then a valid answer: the retry succeeds and both answers' tokens count."""
    server.script = [Answer("Sure! Here are the topics: none.")]
    model = extractor(server)
    assert model.topics(window("Fix the test.", "Done.")) == []
    assert server.stages() == ["topics_scan", "topics_scan"]
    assert model.tokens_used == 240


@pytest.mark.parametrize(
    "bad",
    [
        Answer('{"topics": [{"title": "x"}]}'),  # missing keys
        Answer('{"topics": [], "extra": 1}'),  # unknown key
        Answer(
            '{"topics": [{"title": "t", "category": "Rule", "why": "w", '
            '"message_ids": [], "confidence": 9}]}'
        ),
        Answer('{"topics": [', cut=True),  # truncated at the length limit
        Answer('{"topics": []}', cut=True),  # complete-looking but cut: not trusted
    ],
)
def test_two_invalid_answers_leave_the_window_pending(server: FakeLLM, bad: Answer) -> None:
    """A second invalid answer raises WindowPending with the reason; no third request."""
    server.script = [bad, bad]
    with pytest.raises(WindowPending, match="topics_scan: no valid answer after one retry"):
        extractor(server).topics(window("Fix the test.", "Done."))
    assert len(server.received) == 2


def test_a_fenced_answer_is_accepted(server: FakeLLM) -> None:
    """A Markdown fence around the JSON object is removed, nothing else is repaired."""
    server.script = [Answer('```json\n{"topics": []}\n```')]
    assert extractor(server).topics(window("Fix the test.", "Done.")) == []
    assert len(server.received) == 1


def test_a_timeout_stops_the_run(server: FakeLLM) -> None:
    """A server that does not answer in time stops the run (StopCollecting), it is not retried."""
    server.script = [Stall(30)]
    with pytest.raises(StopCollecting, match="timed out"):
        extractor(server, timeout=0.5).topics(window("Fix the test.", "Done."))
    assert len(server.received) == 1


def test_a_broken_off_reply_stops_the_run(server: FakeLLM) -> None:
    """A reply whose body never arrives is a transport failure: stop, resume later."""
    server.script = [Hangup()]
    with pytest.raises(StopCollecting):
        extractor(server).topics(window("Fix the test.", "Done."))


def test_a_429_is_retried_by_the_sdk_then_succeeds(server: FakeLLM) -> None:
    """Rate limited once with Retry-After: the SDK waits and asks again."""
    server.script = [Status(429, "slow down", {"retry-after-ms": "10"})]
    assert extractor(server, retries=1).topics(window("Fix the test.", "Done.")) == []
    assert len(server.received) == 2


def test_a_lasting_429_stops_the_run(server: FakeLLM) -> None:
    """Still rate limited after the SDK's retries: the run stops cleanly, saying why."""
    server.script = [Status(429, "slow down", {"retry-after-ms": "10"})] * 2
    with pytest.raises(StopCollecting, match="HTTP 429"):
        extractor(server, retries=1).topics(window("Fix the test.", "Done."))


def test_a_wrong_key_is_the_users_to_fix_and_is_not_repeated(server: FakeLLM) -> None:
    """401: a DreamdError naming the setting; the key itself appears nowhere in it."""
    server.script = [Status(401, "invalid api key")]
    with pytest.raises(
        BackendRefused, match=r"(?i)HTTP 401: invalid api key.*api key variable"
    ) as caught:
        extractor(server).topics(window("Fix the test.", "Done."))
    assert KEY not in str(caught.value)


def test_a_refused_request_leaves_only_its_window_pending(server: FakeLLM) -> None:
    """400 (say, the window is too long for the model): this window stays pending."""
    server.script = [Status(400, "context length exceeded")]
    with pytest.raises(RequestRejected, match="context length exceeded"):
        extractor(server).topics(window("Fix the test.", "Done."))


def test_a_credential_in_the_transcript_never_reaches_the_server(server: FakeLLM) -> None:
    """Text is secret-filtered before it is sent, in every stage's request."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    piece = window(f"Always export GITHUB_TOKEN={token} before the deploy.", "Noted.")
    items = run_window(extractor(server), piece, missing_facts=["timezone"]).items
    sent = json.dumps([request.body for request in server.received])
    assert token not in sent and "[REDACTED:" in sent
    assert set(server.stages()) >= {"topics_scan", "people", "facts"}
    assert all(token not in item.body for item in items)


def test_a_quote_the_model_made_up_is_dropped_with_its_item(server: FakeLLM) -> None:
    """A paraphrase is no evidence: the record without a verbatim quote plants nothing."""

    def paraphrasing(request: object) -> Answer:
        answer = remembering(request)  # type: ignore[arg-type]
        assert isinstance(answer, Answer)
        return Answer(answer.content.replace("always run", "ALWAYS RUN"))

    server.respond = paraphrasing
    model = extractor(server)
    assert model.topics(window(RULE, "Noted.")) == []
    assert model.dropped_untraceable == 1


def test_a_later_window_updates_the_item_it_matches(server: FakeLLM) -> None:
    """Match step: a candidate about an earlier item updates it under the same name."""
    model = extractor(server)
    [first] = model.topics(window(RULE, "Noted."))

    def matching(request: object) -> Answer:
        answer = remembering(request)  # type: ignore[arg-type]
        assert isinstance(answer, Answer)
        if '"matches"' in answer.content:
            matches = json.loads(answer.content)["matches"]
            return Answer(json.dumps({"matches": [{**m, "existing": first.name} for m in matches]}))
        return answer

    server.respond = matching
    [second] = model.topics(window("Always run the linter with --fix too.", "Ok.", start=2))
    assert "topics_match" in server.stages()
    assert second.name == first.name
    assert second.quotes[0].message_id.endswith(":m2")


def test_people_are_guarded_and_matched_by_identifier(server: FakeLLM) -> None:
    """The speaker is dropped; the same handle under another name is the same person."""
    model = extractor(server)
    [ana] = model.people(window("Ask @ana to review it, she owns the parser.", "Ok."))
    server.script = [
        Answer(
            json.dumps(
                {
                    "people": [
                        {
                            "name": "Ana Lima", "identifiers": ["@ana"],
                            "relationship": "colleague", "description": "owns the parser",
                            "is_speaker": False, "is_hypothetical": False, "confidence": 4,
                            "quotes": [{"message_id": "claude-code:box:s-1:m2",
                                        "text": "Ana Lima signed off"}],
                        },
                        {
                            "name": "Me", "identifiers": [], "relationship": "self",
                            "description": "the user", "is_speaker": True,
                            "is_hypothetical": False, "confidence": 5,
                            "quotes": [{"message_id": "claude-code:box:s-1:m2", "text": "I"}],
                        },
                    ]
                }
            )
        )
    ]  # fmt: skip
    [again] = model.people(window("Ana Lima signed off on it.", "Great.", start=2))
    assert again.name == ana.name and "@ana" in again.body and again.category == "Person"


def test_events_keep_at_most_one_and_facts_need_a_list(server: FakeLLM) -> None:
    """Events: the surest one only. Facts: nothing asked without a missing-facts list."""
    model = extractor(server)
    assert model.facts(window("My timezone is CET.", "Noted."), []) == []
    assert server.received == []
    quote = {"message_id": "claude-code:box:s-1:m0", "text": "The release is finally out"}
    event = {"description": "d", "body": "A long week.", "quotes": [quote]}
    server.script = [
        Answer(
            json.dumps(
                {
                    "events": [
                        {"title": "The long release", "confidence": 3, **event},
                        {"title": "The release week", "confidence": 5, **event},
                    ]
                }
            )
        )
    ]
    [found] = model.events([window("The release is finally out after a week.", "Congrats.")])
    assert found.name.startswith("event-the-release-week") and found.confidence == 1.0
    assert found.confidence >= MIN_CONFIDENCE
