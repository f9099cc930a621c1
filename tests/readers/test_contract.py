"""Every reader against the shared real transcripts, laid out where each tool keeps them.

Each ``layout_<module>.py`` beside this file copies its tool's fixtures under a
temporary HOME and names the sessions discovery must find there. This test
then discovers through each reader's default roots, reads every session and
checks what holds for every tool: nothing unresolved, only user/assistant
text, no tool envelopes left, and not one byte of a transcript written.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamd.readers import READERS, Conversation, SessionRef, Unresolved

LAYOUTS = sorted(path.stem for path in Path(__file__).parent.glob("layout_*.py"))

#: Markup a tool wraps around prompts or tool traffic; none may survive cleaning.
ENVELOPES = (
    "<system-reminder>",
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<environment_context>",
    "<user_instructions>",
    "<user_query>",
    "<thinking-content-",
    '"tool_use_id"',
    '"type": "tool_result"',
    '"type":"tool_use"',
    "<<<<<<< SEARCH",
)


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """Content hash and mtime of every file under ``root``."""
    result = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            result[str(path)] = (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                path.stat().st_mtime_ns,
            )
    return result


def discovered(home: Path) -> Iterator[SessionRef | Unresolved]:
    for reader in READERS.values():
        for root in reader.default_roots({}, home):
            yield from reader.discover(root)


@pytest.fixture
def laid_out(shared_transcripts: Path, isolated_home: Path) -> list[str]:
    keys: list[str] = []
    for name in LAYOUTS:
        module = importlib.import_module(f"tests.readers.{name}")
        keys.extend(module.lay_out(shared_transcripts, isolated_home))
    return keys


def test_the_tool_names_commands_offer_are_the_readers_in_order() -> None:
    """``dreamd.tools.TOOLS`` (what ``--tool`` and completion offer without loading the
    readers) names every reader, in the order sources are listed."""
    from dreamd.tools import TOOLS

    assert tuple(READERS) == TOOLS


def test_every_layout_module_is_present() -> None:
    """Each reader module has a layout for the real fixtures."""
    expected = {
        "layout_aider",
        "layout_claude_code",
        "layout_codex",
        "layout_cursor",
        "layout_gemini",
        "layout_opencode",
        "layout_pi",
    }
    assert expected <= set(LAYOUTS)


def transcript_files(fixtures: Path) -> list[Path]:
    """The transcript files of the shared fixtures folder.

    Transcripts live in one folder per tool; the files at the top of the
    folder describe them (``SOURCES.md``, ``LABELS.json``, whatever is added
    next) and are never transcripts. Empty files are placeholders.
    """
    return [
        path
        for path in sorted(fixtures.rglob("*"))
        if path.is_file() and path.parent != fixtures and path.stat().st_size > 0
    ]


def test_top_level_fixture_files_are_not_transcripts(shared_transcripts: Path) -> None:
    """The labels and sources files beside the tool folders are excluded by rule."""
    names = {path.name for path in transcript_files(shared_transcripts)}
    assert not names & {"SOURCES.md", "LABELS.json"}
    assert any(name.endswith(".jsonl") for name in names)


def test_every_fixture_file_is_laid_out(
    shared_transcripts: Path, laid_out: list[str], isolated_home: Path
) -> None:
    """Every transcript file of the shared fixtures lands somewhere under HOME."""
    placed = {digest for digest, _ in snapshot(isolated_home).values()}
    for path in transcript_files(shared_transcripts):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest in placed, f"{path.relative_to(shared_transcripts)} is not laid out"


def test_every_fixture_session_is_found_and_read_cleanly(
    laid_out: list[str], isolated_home: Path
) -> None:
    """Discovery finds each expected session; each reads into clean user/assistant text."""
    found = list(discovered(isolated_home))
    unresolved = [f"{item.key}: {item.reason}" for item in found if isinstance(item, Unresolved)]
    assert unresolved == []
    refs = {ref.key: ref for ref in found if isinstance(ref, SessionRef)}
    missing = sorted(set(laid_out) - set(refs))
    assert missing == []
    for key in laid_out:
        ref = refs[key]
        result = READERS[ref.tool].read(ref)
        assert isinstance(result, Conversation), f"{key}: {getattr(result, 'reason', result)}"
        for message in result.messages:
            assert message.role in ("user", "assistant")
            leftovers = [marker for marker in ENVELOPES if marker in message.text]
            assert leftovers == [], f"{key} message {message.id} keeps {leftovers}"


def test_only_expected_sessions_are_listed(laid_out: list[str], isolated_home: Path) -> None:
    """Subagent transcripts, side files and child sessions are not sessions of their own."""
    keys = [item.key for item in discovered(isolated_home)]
    assert sorted(set(keys)) == sorted(set(laid_out))


def test_reading_writes_nothing(laid_out: list[str], isolated_home: Path) -> None:
    """Discovery and reads leave every file's bytes and mtime as they were, and add none."""
    before = snapshot(isolated_home)
    for item in discovered(isolated_home):
        if isinstance(item, SessionRef):
            READERS[item.tool].read(item)
    assert snapshot(isolated_home) == before


def test_reads_are_stable(laid_out: list[str], isolated_home: Path) -> None:
    """Reading a session twice gives the same revision and message ids."""
    for item in discovered(isolated_home):
        if isinstance(item, SessionRef):
            first, second = READERS[item.tool].read(item), READERS[item.tool].read(item)
            assert isinstance(first, Conversation) and isinstance(second, Conversation)
            assert first.revision == second.revision
            assert [m.id for m in first.messages] == [m.id for m in second.messages]


def test_env_free_discovery_ignores_unrelated_home_files(isolated_home: Path) -> None:
    """A HOME with no agent data yields no sessions and no errors."""
    (isolated_home / "notes.jsonl").write_text("{}\n")
    (isolated_home / "src" / "x").mkdir(parents=True)
    assert list(discovered(isolated_home)) == []
    assert any(isolated_home.iterdir())
