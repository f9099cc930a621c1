"""The pending proposal of a dry run and the refusals of --apply-pending (seed 004)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dreamd.dream.proposal import (
    STALE_AFTER,
    Applied,
    Proposal,
    Refusal,
    TopicChange,
    applied_line,
    apply_decision,
    dry_run_line,
    parse_proposal,
    render_proposal,
)
from tests.conftest import SHARED_FIXTURES

MADE = datetime(2026, 3, 25, 10, 0, tzinfo=UTC)
INDEX = "# Memory\n\n- [Auth](project_auth.md) — token refresh\n"


def render(index: str = INDEX, changes: tuple[TopicChange, ...] = ()) -> str:
    return render_proposal(
        index, changes, generated_at=MADE, source_session="ses_1", lines_before=9, lines_after=3
    )


def proposal_of(text: str) -> Proposal:
    parsed = parse_proposal(text)
    assert isinstance(parsed, Proposal), parsed
    return parsed


def refusal_of(text: str) -> Refusal:
    parsed = parse_proposal(text)
    assert isinstance(parsed, Refusal), parsed
    return parsed


def decide(
    text: str | None, *, index_mtime: datetime | None = None, age: timedelta = timedelta()
) -> Applied | Refusal:
    return apply_decision(text, index_mtime=index_mtime, now=MADE + age)


class TestRender:
    def test_front_matter_carries_the_seed_fields(self) -> None:
        """generated_at, source_session, lines before and after open the proposal."""
        assert render().startswith(
            "---\ngenerated_at: 2026-03-25T10:00:00+00:00\nsource_session: ses_1\n"
            "memory_lines_before: 9\nproposed_lines_after: 3\n---\n"
        )

    def test_index_is_one_markdown_fence(self) -> None:
        """The complete index sits in exactly one fenced markdown block."""
        text = render()
        assert f"```markdown\n{INDEX}```\n" in text
        assert text.count("```") == 2

    def test_fence_outgrows_backticks_in_the_index(self) -> None:
        """An index holding ``` and ```` blocks gets a longer fence and round-trips."""
        index = "# M\n\n````text\n```\nnested\n```\n````\n- `a` and ``b``\n"
        text = render(index)
        assert "`````markdown\n" in text
        assert proposal_of(text).new_index == index

    def test_topic_changes_follow_the_fence_without_fences(self) -> None:
        """Topic-file sections come after the fence; their code becomes indented text."""
        change = TopicChange(
            "feedback_x.md", "Merge into feedback_y.md.\n```\nkeep = 1\n```\nDone."
        )
        text = render(changes=(change,))
        assert text.endswith(
            "### Topic-file change: feedback_x.md\n\n"
            "Merge into feedback_y.md.\n\n    keep = 1\n\nDone.\n"
        )
        assert text.count("```") == 2
        assert isinstance(parse_proposal(text), Proposal)

    def test_an_index_without_final_newline_gets_one(self) -> None:
        """The fence needs its own line, so the index gains a final newline."""
        assert proposal_of(render("# M")).new_index == "# M\n"

    @pytest.mark.parametrize(
        ("index", "changes"),
        [
            ("--- a/MEMORY.md\n+++ b/MEMORY.md\n", ()),
            ("@@ -1,2 +1,3 @@\n", ()),
            ("# M\n", (TopicChange("a.md", "@@ -1 +1 @@\n"),)),
            ("# M\n", (TopicChange("a\nb.md", "x"),)),
            ("# M\n", (TopicChange("a.md", "### Topic-file change: b.md"),)),
        ],
    )
    def test_unappliable_proposals_are_not_written(
        self, index: str, changes: tuple[TopicChange, ...]
    ) -> None:
        """A proposal that apply would refuse raises at render time instead."""
        with pytest.raises(ValueError):
            render(index, changes)

    def test_naive_time_is_refused(self) -> None:
        """generated_at must carry a time zone, or staleness would be ambiguous."""
        with pytest.raises(ValueError, match="timezone"):
            render_proposal(
                INDEX,
                (),
                generated_at=datetime(2026, 3, 25),
                source_session="s",
                lines_before=1,
                lines_after=1,
            )


class TestParse:
    def test_round_trip(self) -> None:
        """Parsing a rendered proposal gives back every field."""
        changes = (TopicChange("a.md", "Drop the second paragraph."), TopicChange("b/c.md", ""))
        assert proposal_of(render(changes=changes)) == Proposal(MADE, "ses_1", 9, 3, INDEX, changes)

    @given(st.text(alphabet="ab`~\n #-*[]()", max_size=80))
    def test_any_index_round_trips(self, body: str) -> None:
        """Whatever backticks and tildes an index holds, it comes back unchanged."""
        index = body if body.endswith("\n") or not body else body + "\n"
        if "@@" in index or "--- " in index:
            return  # diff-shaped text is refused by design
        assert proposal_of(render(index)).new_index == index

    def test_crlf_index_is_kept_verbatim(self) -> None:
        """Windows line endings inside the index survive."""
        index = "# M\r\n- a\r\n"
        assert proposal_of(render(index)).new_index == index

    @pytest.mark.parametrize(
        ("body", "problem"),
        [
            ("```markdown\n# M\n```\n```markdown\n# N\n```\n", "2 fenced blocks"),
            ("```markdown\n# M\n```\n\n### Topic-file change: a.md\n```\nx\n```\n", "2 fenced"),
            ("no fence at all\n", "0 fenced blocks"),
            ("```diff\n# M\n```\n", "unknown fence language 'diff'"),
            ("```\n# M\n```\n", "unknown fence language '(none)'"),
            ("```markdown\n# M\n", "never closed"),
            ("```markdown\n--- a/MEMORY.md\n+++ b/MEMORY.md\n-x\n+y\n```\n", "diff hunks"),
            ("```markdown\n# M\n```\n@@ -1,3 +1,4 @@\n", "diff hunks"),
        ],
    )
    def test_unsupported_formats(self, body: str, problem: str) -> None:
        """Several fences, a diff, an unknown or missing language are unsupported."""
        refusal = refusal_of(render().split("Proposed MEMORY.md", 1)[0] + body)
        assert refusal.reason == "unsupported-format"
        assert problem in refusal.message
        assert "MEMORY.md left untouched" in refusal.message
        assert "\n" not in refusal.message

    def test_md_fence_language_is_accepted(self) -> None:
        """'md' is the short name of markdown."""
        text = render().replace("```markdown", "```md")
        assert proposal_of(text).new_index == INDEX

    @pytest.mark.parametrize(
        "front",
        [
            "",
            "---\nsource_session: s\n---\n",
            "---\ngenerated_at: soon\nmemory_lines_before: 1\nproposed_lines_after: 1\n---\n",
            "---\ngenerated_at: 2026-03-25T10:00:00\n"
            "memory_lines_before: 1\nproposed_lines_after: 1\n---\n",
        ],
    )
    def test_missing_or_bad_front_matter_is_unsupported(self, front: str) -> None:
        """Without a readable, zoned generated_at a proposal cannot be judged stale."""
        assert refusal_of(front + "```markdown\n# M\n```\n").reason == "unsupported-format"

    def test_a_rule_line_in_the_index_is_not_a_diff(self) -> None:
        """'---' rules and '+++' bullets alone are ordinary Markdown."""
        index = "# M\n\n---\n\n+++ not a diff\n- --- neither\n"
        assert proposal_of(render(index)).new_index == index


class TestApplyDecision:
    def test_missing(self) -> None:
        """No proposal: refused with the seed's line."""
        assert decide(None) == Refusal("missing", "no pending dream to apply")

    def test_fresh_proposal_applies(self) -> None:
        """A fresh proposal over an unchanged index yields the new index."""
        decision = decide(render(), index_mtime=MADE - timedelta(seconds=1), age=timedelta(days=1))
        assert isinstance(decision, Applied)
        assert decision.new_index == INDEX

    def test_exactly_14_days_is_not_stale(self) -> None:
        """The 14-day limit is inclusive."""
        assert isinstance(decide(render(), age=STALE_AFTER), Applied)

    def test_past_14_days_is_stale(self) -> None:
        """One second past 14 days is refused as stale."""
        decision = decide(render(), age=timedelta(days=14, seconds=1))
        assert isinstance(decision, Refusal) and decision.reason == "stale"
        assert "stale" in decision.message and "--dry-run" in decision.message

    def test_index_modified_after_the_proposal(self) -> None:
        """MEMORY.md changed after generated_at: refused, interim edits are not clobbered."""
        decision = decide(render(), index_mtime=MADE + timedelta(microseconds=1))
        assert isinstance(decision, Refusal) and decision.reason == "stale-index"
        assert decision.message.startswith("MEMORY.md changed after the dry run")

    def test_index_modified_at_generation_time_applies(self) -> None:
        """An mtime equal to generated_at is not after it."""
        assert isinstance(decide(render(), index_mtime=MADE), Applied)

    def test_no_index_yet_applies(self) -> None:
        """A folder without MEMORY.md has nothing to clobber."""
        assert isinstance(decide(render(), index_mtime=None), Applied)

    def test_format_is_checked_before_age(self) -> None:
        """An unreadable proposal is unsupported whatever its age."""
        broken = render().replace("```markdown", "```diff")
        decision = decide(broken, age=timedelta(days=30))
        assert isinstance(decision, Refusal) and decision.reason == "unsupported-format"

    def test_stale_is_checked_before_stale_index(self) -> None:
        """An old proposal over a changed index reports staleness first (the seed's order)."""
        decision = decide(render(), index_mtime=MADE + timedelta(days=1), age=timedelta(days=15))
        assert isinstance(decision, Refusal) and decision.reason == "stale"

    def test_naive_times_are_refused(self) -> None:
        """A naive now cannot be compared with a zoned generated_at."""
        with pytest.raises(ValueError):
            apply_decision(render(), index_mtime=None, now=datetime(2026, 3, 25))


class TestStatusLines:
    def test_dry_run_lines(self) -> None:
        """A written proposal names its size; an empty plan says the index is healthy."""
        assert dry_run_line(120) == "pending dream written: 120 lines proposed"
        assert dry_run_line(None) == "no consolidation needed (MEMORY.md is healthy)"

    def test_applied_line_for_an_index_that_grew(self) -> None:
        """An index that grew says ``+N lines``, never ``--N lines``."""
        grown = render_proposal(
            INDEX, (), generated_at=MADE, source_session="s", lines_before=3, lines_after=18
        )
        line = applied_line(proposal_of(grown), 16)
        assert line == "dream applied: +15 lines, +16 consolidated entries"

    def test_applied_line(self) -> None:
        """After applying: lines removed and entries consolidated."""
        assert applied_line(proposal_of(render()), 4) == (
            "dream applied: -6 lines, +4 consolidated entries"
        )


@pytest.mark.parametrize(
    "folder",
    [
        "1000ssam__claude-config__memory",
        "AnotherSava__bga-assistant__claude-memory",
        "ActorForth__ActorForth__claude-memory",
        "Aleslammer__deathwatch_foundryvtt__claude-memory",
    ],
)
def test_real_indexes_round_trip(tmp_path: Path, folder: str) -> None:
    """Real MEMORY.md files (code blocks, Korean, 249 lines) come back byte for byte."""
    source = SHARED_FIXTURES / "memory" / folder / "MEMORY.md"
    if not source.is_file():
        pytest.skip(f"shared memory fixtures not found at {source.parent}")
    copy = tmp_path / "MEMORY.md"
    shutil.copyfile(source, copy)
    index = copy.read_text(encoding="utf-8")
    decision = decide(render(index), index_mtime=MADE)
    assert isinstance(decision, Applied)
    assert decision.new_index == (index if index.endswith("\n") else index + "\n")
