"""The events stage reads the whole session, not only the windows this run analysed."""

from __future__ import annotations

from datetime import UTC, date, datetime

from dreamd.collect.cursorstate import Window
from dreamd.collect.extraction import ExtractionRun, whole_session
from dreamd.collect.llm import LlmExtractor
from dreamd.collect.llm.openai_backend import OpenAIBackend
from dreamd.collect.pipeline import SessionInfo
from dreamd.readers import Conversation, FileVersion, Message, SessionRef
from tests.collect.llm.fakeserver import FakeLLM, messages_in

T0 = datetime(2026, 5, 1, tzinfo=UTC)


def conversation(count: int) -> Conversation:
    ref = SessionRef("claude-code", "s1", "/x/s1.jsonl", FileVersion(1, 2, 3, 4))
    messages = tuple(
        Message(f"m{i}", "user" if i % 2 == 0 else "assistant", f"step {i}", T0)
        for i in range(count)
    )
    return Conversation(ref, "/repo", messages)


def run(server: FakeLLM) -> ExtractionRun:
    backend = OpenAIBackend(
        model="m", base_url=f"{server.url}/v1", api_key=None, timeout=5, max_retries=0
    )
    return ExtractionRun(
        LlmExtractor(backend, max_output_tokens=256),
        machine="box",
        collected=date(2026, 5, 2),
        window_messages=20,
    )


def test_the_events_scan_sees_messages_earlier_runs_analysed(server: FakeLLM) -> None:
    """This run analysed only the last 10 of 50 messages; the events request shows all 50."""
    whole = conversation(50)
    this_run = [Window(whole.messages[40:], "earlier: steps 0-39")]
    run(server).session(whole, this_run)
    [request] = server.received
    assert request.stage == "events"
    shown = [mid.rsplit(":", 1)[1] for mid, _, _ in messages_in(request.user)]
    assert shown == [f"m{i}" for i in range(50)]


def test_no_new_messages_means_no_events_scan(server: FakeLLM) -> None:
    """Nothing analysed this run: the session's story has not changed, nothing is asked."""
    run(server).session(conversation(10), [Window((), "")])
    assert server.received == []


def test_the_whole_session_is_cut_into_windows_of_the_configured_size() -> None:
    """50 messages at 20 a window: 20, 20 and 10, in order."""
    info = SessionInfo("claude-code", "box", "s1", "/repo", date(2026, 5, 2))
    pieces = whole_session(info, conversation(50), 20)
    assert [len(piece.messages) for piece in pieces] == [20, 20, 10]
    assert pieces[0].messages[0].id == "m0" and pieces[-1].messages[-1].id == "m49"
