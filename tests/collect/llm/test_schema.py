"""The shipped prompts and JSON schemas, and how a model's answer is validated."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from dreamd import prompts
from dreamd.collect.llm.schema import (
    ANSWERS,
    FactsAnswer,
    InvalidAnswer,
    TopicsScanAnswer,
    confidence_of,
    decode_answer,
)
from dreamd.collect.pipeline import MIN_CONFIDENCE


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """msgspec's schema with references resolved and titles and descriptions left out."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[1]], defs)
        return {
            key: _inline(value, defs)
            for key, value in node.items()
            if key != "$defs" and not (key in ("title", "description") and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node


def _shape(node: Any) -> Any:
    """A schema without descriptions and with ``type`` dropped beside an ``enum``."""
    if isinstance(node, dict):
        shaped = {
            key: _shape(value)
            for key, value in node.items()
            if not (key == "description" and isinstance(value, str))
        }
        if "enum" in shaped:
            shaped.pop("type", None)
            shaped["enum"] = sorted(shaped["enum"])
        return shaped
    if isinstance(node, list):
        return [_shape(value) for value in node]
    return node


@pytest.mark.parametrize("stage", prompts.STAGES)
def test_each_shipped_schema_agrees_with_its_answer_type(stage: str) -> None:
    """What the model is asked to follow is exactly what the answer is decoded into."""
    generated = msgspec.json.schema(ANSWERS[stage])
    assert _shape(prompts.schema(stage)) == _shape(_inline(generated, generated["$defs"]))


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        found = [node] if node.get("type") == "object" else []
        return found + [o for value in node.values() for o in _objects(value)]
    if isinstance(node, list):
        return [o for value in node for o in _objects(value)]
    return []


@pytest.mark.parametrize("stage", prompts.STAGES)
def test_each_schema_meets_strict_structured_output_rules(stage: str) -> None:
    """Strict mode: every object closed and every property required."""
    objects = _objects(prompts.schema(stage))
    assert objects
    for node in objects:
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])


@pytest.mark.parametrize("stage", [*prompts.STAGES, "common"])
def test_every_prompt_is_shipped_and_says_an_empty_answer_is_normal(stage: str) -> None:
    """Conservative by default: each stage tells the model that nothing is a fine answer."""
    text = prompts.prompt(stage)
    assert text.startswith("# ")
    if stage not in ("common", "topics_match"):
        assert "empty" in text.lower() or "[]" in text


def _keys_and_choices(node: Any) -> set[str]:
    """Every property name and every text choice (enum value) of a schema."""
    if isinstance(node, dict):
        found = set(node.get("properties", {}))
        found |= {value for value in node.get("enum", []) if isinstance(value, str)}
        return found | {k for value in node.values() for k in _keys_and_choices(value)}
    if isinstance(node, list):
        return {k for value in node for k in _keys_and_choices(value)}
    return set()


@pytest.mark.parametrize("stage", prompts.STAGES)
def test_each_prompt_states_the_answers_shape_in_words(stage: str) -> None:
    """A server that ignores the schema still reads every key and choice in the prompt."""
    text = prompts.prompt(stage)
    assert "## The answer's shape" in text
    shape = text.split("## The answer's shape", 1)[1]
    missing = {key for key in _keys_and_choices(prompts.schema(stage)) if f"`{key}`" not in shape}
    assert missing == set()


def test_the_shared_rules_carry_the_quote_rules() -> None:
    """Quotes: verbatim, cited by full id, never a credential or a redacted span."""
    common = prompts.prompt("common")
    assert "character for character" in common and "full id" in common
    assert "credential" in common and "[REDACTED:...]" in common


VALID = (
    '{"topics": [{"title": "lint first", "category": "Rule", "why": "standing",'
    ' "message_ids": ["a:b:c:1"], "confidence": 4}]}'
)


def test_a_valid_answer_decodes() -> None:
    """Keys, types and the 1..5 level as the schema says: decoded into the stage's type."""
    answer = decode_answer(VALID, TopicsScanAnswer)
    assert answer.topics[0].category == "Rule" and answer.topics[0].confidence == 4


@pytest.mark.parametrize("fence", ["```json\n{}\n```", "```\n{}\n```", "  ```JSON\n{}\n```  "])
def test_one_code_fence_is_removed(fence: str) -> None:
    """Models add a Markdown fence even when asked not to; it is the only repair."""
    body = '{"facts": []}'
    assert decode_answer(fence.replace("{}", body), FactsAnswer) == FactsAnswer(facts=[])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty"),
        ("Here you go: {}", "not JSON"),
        ('{"facts": []} trailing words', "not JSON"),
        ('{"facts": [], "note": "x"}', "does not match"),
        ('{"fact": []}', "does not match"),
        ('{"facts": [{"fact": "tz", "value": "CET", "confidence": 0, "quotes": []}]}', "match"),
        ('{"facts": [{"fact": "tz", "value": 1, "confidence": 3, "quotes": []}]}', "match"),
        ('[{"facts": []}]', "does not match"),
    ],
)
def test_an_invalid_answer_says_what_is_wrong(text: str, problem: str) -> None:
    """Anything else is invalid, with a reason (which goes into the report)."""
    with pytest.raises(InvalidAnswer, match=problem):
        decode_answer(text, FactsAnswer)


def test_levels_one_and_two_fall_under_the_confidence_floor() -> None:
    """A guess (1) or a hunch (2) is dropped by the pipeline; 3 and up are kept."""
    assert [confidence_of(level) >= MIN_CONFIDENCE for level in range(1, 6)] == [
        False, False, True, True, True,
    ]  # fmt: skip
    assert confidence_of(5) == 1.0
