"""Seed 000 STEPs 2c, 2d, 2.5: classification, the four prune guards, the consult gate."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreamd.dream.folder.staleness import (
    classify,
    consult_gate,
    consulted_terms,
    guard_directive,
    guard_lesson_types,
    guard_recent,
    guard_user_type,
    judge,
    memory_paths_in,
    parse_consult_log,
    prune_guard,
)
from dreamd.dream.model import RefCheck
from tests.dream.factories import NOW, memory

GONE = RefCheck(missing=("src/a.py",), symbols_missing=("load_all",))


class TestClassify:
    def test_no_verifiable_reference_is_evergreen(self) -> None:
        """Only unverifiable refs (or none) make a memory EVERGREEN."""
        assert classify(RefCheck()) == "EVERGREEN"
        assert classify(RefCheck(unverifiable=("~/x.py", "/etc/hosts"))) == "EVERGREEN"

    def test_everything_found_is_fresh(self) -> None:
        """All files and symbols found: FRESH."""
        assert classify(RefCheck(present=("a.py",), symbols_present=("f",))) == "FRESH"

    def test_nothing_found_is_fully_stale(self) -> None:
        """No file and no symbol found: FULLY_STALE."""
        assert classify(GONE) == "FULLY_STALE"
        assert classify(RefCheck(missing=("a.py",))) == "FULLY_STALE"

    def test_some_found_is_partially_stale(self) -> None:
        """A mix of found and missing: PARTIALLY_STALE."""
        assert classify(RefCheck(present=("a.py",), missing=("b.py",))) == "PARTIALLY_STALE"
        assert classify(RefCheck(missing=("a.py",), symbols_present=("f",))) == "PARTIALLY_STALE"


class TestGuards:
    def test_user_memories_are_never_pruned(self) -> None:
        """Guard 1: type user."""
        assert guard_user_type(memory(type="user")) == "type:user is never auto-pruned"
        assert guard_user_type(memory(type="project")) is None

    @pytest.mark.parametrize("kind", ["feedback", "reference"])
    def test_lessons_outlive_their_paths(self, kind: str) -> None:
        """Guard 2: feedback and reference memories."""
        assert guard_lesson_types(memory(type=kind)) == (  # type: ignore[arg-type]
            f"type:{kind} value is the lesson, not its file refs"
        )
        assert guard_lesson_types(memory(type="project")) is None

    def test_recent_boundary_is_fourteen_days(self) -> None:
        """Guard 3: younger than 14 days is kept; exactly 14 days is not protected."""
        assert guard_recent(memory(age=timedelta(days=14) - timedelta(seconds=1)), NOW)
        assert guard_recent(memory(age=timedelta(days=14)), NOW) is None

    @pytest.mark.parametrize(
        "body", ["Do not re-propose tui:fullscreen.", "don't use X", "NEVER again", "Avoid foo."]
    )
    def test_directives_are_kept(self, body: str) -> None:
        """Guard 4: a do-not/never/avoid directive keeps a memory."""
        assert guard_directive(memory(body=body)) == "carries a do-not/never directive"

    def test_words_merely_containing_directives_do_not_count(self) -> None:
        """Whole words only: 'nevertheless' or 'donut' are not directives."""
        assert guard_directive(memory(body="Nevertheless the donut shop moved.")) is None

    def test_guards_apply_in_the_seed_order(self) -> None:
        """The first applicable guard names the reason."""
        both = memory(type="user", body="never do this", age=timedelta(days=1))
        assert prune_guard(both, NOW) == "prune-guard: type:user is never auto-pruned"
        assert prune_guard(memory(), NOW) is None


def entry(ts: str, **fields: object) -> str:
    return json.dumps({"ts": ts, "session": "s", "tool": "search_nodes", **fields})


class TestConsultLog:
    def test_malformed_lines_are_skipped(self) -> None:
        """Broken JSON, non-objects and missing timestamps are ignored."""
        text = "\n".join(
            [
                "{oops",
                "[]",
                json.dumps({"names": ["x"]}),
                entry("2026-11-29T10:00:00Z", names=["auth"]),
            ]
        )
        assert [e.names for e in parse_consult_log(text)] == [("auth",)]

    def test_cutoff_is_applied_to_ts(self) -> None:
        """Lookups older than 14 days do not count; those within do."""
        text = "\n".join(
            [
                entry("2026-11-16T11:59:59Z", names=["old_name"]),
                entry("2026-11-16T12:00:00Z", names=["edge_name"]),
                entry("2026-11-29T00:00:00Z", query="auth token refresh is flaky"),
            ]
        )
        terms = consulted_terms(parse_consult_log(text), NOW)
        assert "old_name" not in terms
        assert {"edge_name", "auth", "token", "refresh", "flaky"} <= terms
        assert "is" not in terms

    def test_gate_matches_name_and_slug_loosely(self) -> None:
        """A consulted term matching the name, or inside the slug, keeps the memory."""
        auth = memory("project_auth_tokens.md", title="Auth tokens")
        assert consult_gate(auth, frozenset({"auth tokens"}), frozenset())
        assert consult_gate(auth, frozenset({"auth"}), frozenset())
        assert consult_gate(auth, frozenset({"billing"}), frozenset()) is None

    def test_gate_keeps_files_agents_read(self) -> None:
        """Transcript evidence that an agent read the file keeps it."""
        m = memory("project_x.md")
        reason = consult_gate(m, frozenset(), frozenset({m.path}))
        assert reason == "consult-gate: read by an agent in the last 14 days (transcripts)"

    def test_memory_paths_are_found_in_transcript_bytes(self) -> None:
        """Absolute memory paths in tool calls are collected from raw transcript lines."""
        line = json.dumps(
            {"input": {"file_path": "/home/u/.claude/projects/-r/memory/project_x.md"}}
        ).encode()
        agent = b'"/home/u/.claude/agent-memory/rev/notes.md"'
        assert set(memory_paths_in(line + b"\n" + agent)) == {
            Path("/home/u/.claude/projects/-r/memory/project_x.md"),
            Path("/home/u/.claude/agent-memory/rev/notes.md"),
        }


class TestJudge:
    def test_only_fully_stale_can_be_demoted(self) -> None:
        """Guards and gate never touch other classes."""
        fresh = RefCheck(present=("a.py",))
        assert (
            judge(
                memory(type="user"), fresh, now=NOW, terms=frozenset(), read_paths=frozenset()
            ).classification
            == "FRESH"
        )

    def test_guarded_stale_memory_is_kept_and_flagged(self) -> None:
        """A FULLY_STALE feedback memory becomes PARTIALLY_STALE with the guard's reason."""
        verdict = judge(
            memory(type="feedback"), GONE, now=NOW, terms=frozenset(), read_paths=frozenset()
        )
        assert verdict.classification == "PARTIALLY_STALE"
        assert (
            verdict.kept_reason
            == "prune-guard: type:feedback value is the lesson, not its file refs"
        )

    def test_consulted_stale_memory_is_kept(self) -> None:
        """The consult gate runs after the guards."""
        m = memory("project_auth.md")
        verdict = judge(m, GONE, now=NOW, terms=frozenset({"auth"}), read_paths=frozenset())
        assert verdict.kept_reason == "consult-gate: looked up in the last 14 days (consult log)"

    def test_unguarded_stale_project_memory_is_eligible(self) -> None:
        """An old project memory whose refs all died stays FULLY_STALE."""
        verdict = judge(memory(), GONE, now=NOW, terms=frozenset(), read_paths=frozenset())
        assert (verdict.classification, verdict.kept_reason) == ("FULLY_STALE", None)


def test_untyped_memories_are_never_pruned() -> None:
    """A memory with front matter but no type is kept even when fully stale."""
    from dreamd.dream.folder.staleness import guard_untyped

    m = memory(type=None)
    assert guard_untyped(m) == "no memory type: only project memories go stale"
    assert guard_untyped(memory(type="project")) is None


def test_memory_without_front_matter_is_evergreen() -> None:
    """No front matter: EVERGREEN whatever its references say (seed 000 error table)."""
    m = memory(type=None)
    assert not m.has_front_matter
    verdict = judge(m, GONE, now=NOW, terms=frozenset(), read_paths=frozenset())
    assert verdict.classification == "EVERGREEN"


#: The single-regex definition of a memory path, kept as the oracle for the linear scanner:
#: whitespace, quotes, backticks, ``<``, ``>`` and ``|`` end a path wherever they stand.
_REFERENCE = re.compile(
    rb"(/[^\s\"'`<>|]*?/(?:memory|agent-memory/[^/\s\"'`<>|]+)/[^/\s\"'`<>|]+\.md)"
)


@given(
    st.lists(
        st.sampled_from(
            [b"/", b"a", b"memory", b"agent-memory", b".md", b" ", b'"', b"<", b"x_y", b"\n"]
        ),
        max_size=40,
    ).map(b"".join)
)
def test_memory_paths_are_found_as_the_reference_pattern_finds_them(data: bytes) -> None:
    expected = [Path(m.group(1).decode()) for m in _REFERENCE.finditer(data)]
    assert list(memory_paths_in(data)) == expected


@given(
    st.lists(
        st.sampled_from(
            [b"/", b"a" * 300, b"memory/", b"agent-", b"/memory/n.md", b".md", b"\t", b"|", b"`"]
        ),
        max_size=30,
    ).map(b"".join)
)
def test_memory_paths_in_long_runs_match_the_reference_pattern(data: bytes) -> None:
    """Runs longer than the scanner's look-back window are cut where the reference cuts."""
    expected = [Path(m.group(1).decode()) for m in _REFERENCE.finditer(data)]
    assert list(memory_paths_in(data)) == expected


def test_a_table_bar_ends_a_memory_path() -> None:
    """``|`` (a Markdown table's cell edge) ends the file name as it ends the folders."""
    assert list(memory_paths_in(b"| //memory/n.md|.md |")) == [Path("//memory/n.md")]


def test_memory_path_far_from_its_run_start_is_found_whole() -> None:
    """A path whose run began megabytes before its memory tail is still cut at its first slash."""
    data = b'"' + b"x" * 70_000 + b"/deep/memory/a.md" + b"y" * 10 + b"/more/memory/b.md "
    assert list(memory_paths_in(data)) == [
        Path("/deep/memory/a.md"),
        Path("/more/memory/b.md"),
    ]
