"""Fixtures of the LLM extractor tests: a model server on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.collect.llm.answers import remembering
from tests.collect.llm.fakeserver import FakeLLM


@pytest.fixture
def server() -> Iterator[FakeLLM]:
    """A server speaking both chat completions and Messages, answering as ``remembering``."""
    with FakeLLM(remembering) as fake:
        yield fake
