"""Session metadata and the trivial filter's text rules."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamd.readers import Conversation, FileVersion, Message, SessionRef, Unresolved
from dreamd.sessioninfo import from_unresolved, is_machine_opening, is_substantive_reply, summarize

T0 = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
VERSION = FileVersion(1, 2, 300, 1_700_000_000_000_000_000)


def conversation(*texts: tuple[str, str], automated: bool = False) -> Conversation:
    ref = SessionRef("codex", "s1", Path("/x/s1.jsonl"), VERSION)
    messages = tuple(
        Message(str(i), role, text, T0.replace(minute=i))  # type: ignore[arg-type]
        for i, (role, text) in enumerate(texts)
    )
    return Conversation(ref, "/repo", messages, automated=automated)


class TestMachineOpening:
    @pytest.mark.parametrize(
        "text",
        [
            "You are a release bot. Respond only with JSON describing the changes.",
            "<task>Summarise the diff</task>\n<output>markdown</output>\nReturn only the summary.",
            "Fix {{ issue_title }} in the repository",
            "Run the nightly job with $ARGUMENTS",
            "You are an autonomous agent.\n" + "Follow the plan. " * 300,
        ],
    )
    def test_program_written_prompts(self, text: str) -> None:
        """Prompts with two automation signals, or an unfilled placeholder, are machine-written."""
        assert is_machine_opening(text)

    @pytest.mark.parametrize(
        "text",
        [
            "You are a great help. Can you look at why the tests fail on CI?",
            "Refactor the parser so that it streams lines instead of reading the whole file.",
            "return only the ids please",
            "x" * 5000,
        ],
    )
    def test_human_prompts(self, text: str) -> None:
        """A single signal is not enough: people write like this too."""
        assert not is_machine_opening(text)


def test_acknowledgements_are_not_substantive() -> None:
    """'ok', 'continue' and the like do not count as a human reply."""
    for text in ("ok", "Continue.", "yes!", "thanks"):
        assert not is_substantive_reply(Message("1", "user", text, None))
    assert is_substantive_reply(Message("2", "user", "use the staging database", None))


def test_summary_counts_and_times() -> None:
    """summarize records counts, first/last times, revision and reply counts."""
    conv = conversation(
        ("user", "Please refactor the loader"),
        ("assistant", "Done."),
        ("user", "ok"),
        ("user", "now add tests for the loader"),
    )
    info = summarize(conv)
    assert (info.messages, info.user_messages, info.human_replies) == (4, 3, 1)
    assert info.first_message_at == T0.replace(minute=0)
    assert info.last_message_at == T0.replace(minute=3)
    assert info.revision == conv.revision
    assert info.project == "/repo"
    assert not info.machine_opening


def test_reader_automation_flag_marks_machine_opening() -> None:
    """A session the reader knows was started by a program has a machine opening."""
    info = summarize(conversation(("user", "hello there friend"), automated=True))
    assert info.machine_opening


def test_unresolved_keeps_reason_and_version() -> None:
    """An unresolved source becomes metadata carrying only where and why."""
    info = from_unresolved(Unresolved("pi", Path("/p/x.jsonl"), "empty file", "x", VERSION))
    assert (info.unresolved, info.session_id, info.file_version) == ("empty file", "x", VERSION)
    assert info.revision is None
