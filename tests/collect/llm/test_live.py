"""Opt-in: the ``openai`` extractor against a live endpoint (skipped unless one is named).

Set ``DREAMD_TEST_LLM_URL`` to an OpenAI-compatible base URL (for example
``http://127.0.0.1:11434/v1`` for Ollama), ``DREAMD_TEST_LLM_MODEL`` to a model
it serves, and, when it needs a key, ``DREAMD_TEST_LLM_KEY_ENV`` to the name of
the variable holding it.
"""

from __future__ import annotations

import os

import pytest

from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.openai_backend import OpenAIBackend
from dreamd.collect.pipeline import run_window
from tests.collect.llm.answers import window

URL = os.environ.get("DREAMD_TEST_LLM_URL", "")

pytestmark = pytest.mark.skipif(not URL, reason="DREAMD_TEST_LLM_URL is not set")


def test_a_live_model_answers_every_stage_within_the_schema() -> None:
    """Each stage's answer validates; whatever is found cites the window's messages."""
    key_env = os.environ.get("DREAMD_TEST_LLM_KEY_ENV", "")
    backend = OpenAIBackend(
        model=os.environ.get("DREAMD_TEST_LLM_MODEL", "llama3.2"),
        base_url=URL,
        api_key=os.environ.get(key_env) if key_env else None,
        timeout=300,
        max_retries=1,
    )
    model = LlmExtractor(backend, max_output_tokens=2048)
    piece = window(
        "From now on, always run `make lint` before you commit anything in this repo.",
        "Understood, I will run make lint before every commit.",
        "We decided to use uv instead of pip because the lock file resolves faster.",
        "Noted: uv replaces pip here.",
    )
    try:
        result = run_window(model, piece, missing_facts=["preferred editor"])
        events = model.events([piece])
    finally:
        model.close()
    assert model.tokens_used > 0
    for item in [*result.items, *events]:
        assert item.source == piece.source
        assert {q.message_id for q in item.quotes} <= set(piece.message_ids)
