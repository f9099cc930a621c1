"""OpenAI-compatible servers: the output cap each understands, the context each request fits,
and shaped answers from a server that ignores ``response_format`` (loopback HTTP)."""

from __future__ import annotations

import json
import re

import pytest

from dreamd.collect.llm import LlmExtractor, build_extractor
from dreamd.collect.llm.fitting import (
    ContextTooSmall,
    estimate_tokens,
    fit_window,
    fits,
    output_reserve,
)
from dreamd.collect.llm.prompting import people_request
from dreamd.collect.llm.servers import ServerSetting, cap_parameter, server_kind
from dreamd.config import parse_config
from dreamd.errors import ConfigError
from tests.collect.llm.answers import window
from tests.collect.llm.fakeserver import Action, Answer, FakeLLM, Received

RULE = "From now on, always run the linter before committing."


def configured(server: FakeLLM, extra: str = "") -> LlmExtractor:
    """The ``openai`` extractor exactly as a configuration file makes it."""
    config = parse_config(
        f'[collect]\nextractor = "openai"\n[extractors.openai]\nbase_url = "{server.url}/v1"\n'
        f'model = "local"\napi_key_env = ""\nmax_retries = 0\n{extra}'
    )
    return build_extractor(config, {})


@pytest.mark.parametrize(
    ("setting", "url", "kind"),
    [
        ("auto", "", "openai"),
        ("auto", "https://api.openai.com/v1", "openai"),
        ("auto", "http://127.0.0.1:11434/v1", "ollama"),
        ("auto", "http://localhost:8080/v1", "other"),
        ("auto", "http://gpu-box:8000/v1", "other"),
        ("llamacpp", "http://localhost:8080/v1", "llamacpp"),
        ("vllm", "http://127.0.0.1:11434/v1", "vllm"),
    ],
)
def test_the_server_kind_follows_the_setting_else_the_address(
    setting: ServerSetting, url: str, kind: str
) -> None:
    """``auto``: OpenAI's host or the SDK default, Ollama's port, else unknown; a setting wins."""
    assert server_kind(setting, url) == kind


def test_only_the_openai_api_gets_max_completion_tokens() -> None:
    """OpenAI takes ``max_completion_tokens``; Ollama, llama.cpp, vLLM and others ``max_tokens``."""
    assert cap_parameter("openai") == "max_completion_tokens"
    assert {cap_parameter(k) for k in ("ollama", "llamacpp", "vllm", "other")} == {"max_tokens"}


def test_an_unknown_local_server_is_sent_max_tokens(server: FakeLLM) -> None:
    """``auto`` on a port that is not OpenAI's: the widely understood ``max_tokens``."""
    configured(server).people(window("Ask the team.", "Sure."))
    [request] = server.received
    assert "max_tokens" in request.body and "max_completion_tokens" not in request.body


def test_a_server_named_openai_is_sent_max_completion_tokens(server: FakeLLM) -> None:
    """``server = "openai"`` (a proxy in front of the OpenAI API): the OpenAI name of the cap."""
    configured(server, 'server = "openai"\n').people(window("Ask the team.", "Sure."))
    [request] = server.received
    assert "max_completion_tokens" in request.body and "max_tokens" not in request.body


def test_the_cap_sent_leaves_three_quarters_of_the_context_to_the_prompt(
    server: FakeLLM,
) -> None:
    """A 4,096-token context caps the answer at 1,024 tokens, whatever max_output_tokens says."""
    configured(server, 'server = "ollama"\ncontext_tokens = 4096\n').people(window("Hi.", "Hi."))
    assert server.received[0].body["max_tokens"] == 1024 == output_reserve(4096, 4096)


def test_the_token_estimate_counts_every_non_ascii_character_as_a_token() -> None:
    """ASCII at four characters a token; CJK and other scripts one token per character."""
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("メモリを集める") == 7
    assert estimate_tokens("") == 0


def test_a_window_too_long_for_the_context_loses_its_oldest_messages(server: FakeLLM) -> None:
    """Inside ``context_tokens``: the oldest messages are left out, and the request says so."""
    texts = [f"Message {i}: " + "details " * 300 for i in range(12)]
    model = configured(server, "context_tokens = 4096\n")
    model.people(window(*texts))
    [request] = server.received
    sent = estimate_tokens(request.system) + estimate_tokens(request.user)
    assert sent + request.body["max_tokens"] <= 4096
    assert "Message 11:" in request.user and "Message 0:" not in request.user
    assert re.search(r"\[\d+ older messages of this part are not shown", request.user)
    assert model.shortened and "people" in model.shortened[0]


def test_a_window_that_fits_is_sent_whole(server: FakeLLM) -> None:
    """No message is left out, and nothing is reported, when the window fits."""
    model = configured(server, "context_tokens = 8192\n")
    model.people(window(RULE, "Noted."))
    assert "not shown" not in server.received[0].user and model.shortened == []


def test_the_events_scan_of_a_long_session_fits_the_context(server: FakeLLM) -> None:
    """The whole-session events request also drops its oldest messages to fit."""
    pieces = [window(*[f"Part {p} line {i} " + "x" * 700 for i in range(10)]) for p in range(3)]
    model = configured(server, "context_tokens = 4096\n")
    model.events(pieces)
    [request] = server.received
    assert estimate_tokens(request.system) + estimate_tokens(request.user) <= 4096 - 1024
    assert "older messages of this part are not shown" in request.user
    assert "Part 2 line 9" in request.user and "Part 0 line 0" not in request.user


def test_a_context_that_cannot_hold_one_message_is_a_setting_to_fix() -> None:
    """Even one message over the context: ``ContextTooSmall`` names the setting."""
    piece = window("y" * 4000)
    with pytest.raises(ContextTooSmall, match="context_tokens = 2048"):
        fit_window(piece, lambda w: people_request(w, 512), 2048)


def test_a_fitted_request_fits() -> None:
    """What ``fit_window`` returns passes ``fits`` for the same context."""
    piece = window(*["word " * 400 for _ in range(10)])
    fitted = fit_window(piece, lambda w: people_request(w, 1024), 4096)
    assert fitted.omitted > 0 and fits(fitted.request, 4096)


def test_a_context_below_the_minimum_is_refused_before_the_run() -> None:
    """``context_tokens`` between 1 and 2047: a configuration error naming the key."""
    config = parse_config(
        '[collect]\nextractor = "openai"\n[extractors.openai]\nmodel = "m"\n'
        'api_key_env = ""\ncontext_tokens = 1000\n'
    )
    with pytest.raises(ConfigError, match=r"extractors\.openai\.context_tokens"):
        build_extractor(config, {})


_KEY_IN_PROMPT = re.compile(r"One JSON object with a single key, `(\w+)`")


def prose_unless_told(request: Received) -> Action:
    """A server that ignores ``response_format``: it answers in the shape the prompt states,
    and in prose when the prompt states none."""
    found = _KEY_IN_PROMPT.search(request.system)
    if found is None:
        return Answer("Here is what I found: nothing much.")
    return Answer(json.dumps({found.group(1): []}))


def test_a_server_ignoring_response_format_answers_in_shape(server: FakeLLM) -> None:
    """Every stage's prompt states its shape: the answer validates without the schema."""
    server.respond = prose_unless_told
    model = configured(server)
    piece = window(RULE, "Noted.")
    assert model.topics(piece) == [] and model.people(piece) == []
    assert model.events([piece]) == [] and model.facts(piece, ["time zone (the user)"]) == []
    assert len(server.received) == 4  # no retry was needed


def test_a_retry_says_what_was_wrong_with_the_answer(server: FakeLLM) -> None:
    """The one retry repeats the request with a note pointing at the shape; then it succeeds."""
    server.script = [Answer("Sure! No people here.")]
    assert configured(server).people(window("Ask the team.", "Sure.")) == []
    first, second = server.received
    assert "could not be used" not in first.user
    assert "## Your previous answer could not be used" in second.user
    assert "not JSON" in second.user and "The answer's shape" in second.user
