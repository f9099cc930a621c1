"""The requests built for each stage: context, qualified ids, redaction before sending."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from dreamd import prompts
from dreamd.collect.llm.prompting import (
    MAX_MESSAGE_CHARS,
    events_request,
    facts_request,
    people_request,
    topics_match_request,
    topics_scan_request,
    topics_update_request,
)
from dreamd.collect.pipeline import SessionInfo, Window
from dreamd.readers import Message
from dreamd.stores import MemoryItem, Quote
from tests.collect.llm.answers import SESSION, window

TOKEN = "glpat-" + "Zx8Yw7Vu6Ts5Rq4Po3Nm"
AWS = "arn:aws:iam::123456789012:role/deployer"


def known_item() -> MemoryItem:
    return MemoryItem(
        type="feedback", category="Rule", name="rule-lint-abc123", description="Rule: lint",
        body="Run the linter.", confidence=0.8, source=SESSION.source, collected=SESSION.collected,
        quotes=(Quote("claude-code:box:s-1:m0", "lint"),),
    )  # fmt: skip


def every_request(piece: Window) -> list[str]:
    candidate = {"title": "t", "category": "Rule", "why": "w", "message_ids": [], "confidence": 3}
    built = [
        topics_scan_request(piece, 100),
        topics_match_request(piece, [candidate], [known_item()], 100),
        topics_update_request(piece, [candidate], {"t": known_item()}, 100),
        people_request(piece, 100),
        events_request([piece, piece], 100),
        facts_request(piece, ["deploy role"], 100),
    ]
    assert [r.stage for r in built] == list(prompts.STAGES)
    return [f"{r.system}\n{r.user}" for r in built]


def test_credentials_are_redacted_in_every_request() -> None:
    """Messages, the digest and the project path are secret-filtered before they are sent."""
    session = replace(SESSION, project=f"/work/{TOKEN}")
    piece = replace(
        window(f"Deploy with {TOKEN} and assume {AWS} please.", "Done.", session=session),
        digest=f"earlier: export GITLAB_TOKEN={TOKEN}",
    )
    for text in every_request(piece):
        assert TOKEN not in text and AWS not in text
        assert "[REDACTED:" in text


def test_the_window_is_shown_with_context_and_qualified_ids() -> None:
    """Session facts, the Earlier Conversation as context, each message under its full id."""
    stamp = Message("m5", "user", "Always pin versions.", None)
    piece = Window(SESSION, (stamp,), digest="set up the repo | add CI")
    user = topics_scan_request(piece, 100).user
    assert "tool: claude-code" in user and "technical_context: true" in user
    assert "## Earlier Conversation (context only)\nset up the repo | add CI" in user
    assert "[claude-code:box:s-1:m5] user:\nAlways pin versions." in user
    assert user.index("Earlier Conversation") < user.index("Most Recent Messages")


def test_a_long_message_is_cut_with_a_marker() -> None:
    """One pasted log does not crowd out the window; the cut is said."""
    piece = window("x" * (MAX_MESSAGE_CHARS + 500), "ok")
    user = people_request(piece, 100).user
    assert "x" * MAX_MESSAGE_CHARS in user and "x" * (MAX_MESSAGE_CHARS + 1) not in user
    assert "[… 500 more characters not shown]" in user


def test_the_system_prompt_is_the_shared_rules_then_the_stage() -> None:
    """Every stage is asked with the common rules first."""
    request = facts_request(window("My timezone is CET.", "Noted."), ["timezone"], 64)
    assert request.system.startswith(prompts.prompt("common"))
    assert request.system.endswith(prompts.prompt("facts"))
    assert request.schema == prompts.schema("facts") and request.max_output_tokens == 64
    assert '"timezone"' in request.user


def test_events_see_every_window_of_the_session() -> None:
    """The once-per-session stage reads the messages of all analysed windows."""
    day = date(2026, 1, 2)
    info = SessionInfo("codex", "box", "s-9", None, day)
    first, second = window("Start.", session=info), window("End.", session=info, start=1)
    user = events_request([first, second], 100).user
    assert "[codex:box:s-9:m0]" in user and "[codex:box:s-9:m1]" in user
    assert "project: unknown" in user


def test_building_a_request_is_pure() -> None:
    """The same window gives the same request text."""
    piece = window("Always pin versions.", "Ok.")
    assert topics_scan_request(piece, 10) == topics_scan_request(piece, 10)
