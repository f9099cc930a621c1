"""Drift and health checks (seeds 004 and 003): reported, never auto-fixed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.dream.folder.checks import (
    PROJECT_VERSION_KEY,
    count_claims,
    entries_without_source,
    entry_claims,
    health_line,
    is_path_claim,
    is_sectioned,
    line_budget,
    mark_unverified,
    relative_dates,
    unverified_entries,
    version_drift,
)
from dreamd.dream.folder.dates import relative_date_mentions
from dreamd.dream.folder.sections import sectioned_entries
from dreamd.dream.folder.textlines import split_lines
from tests.conftest import SHARED_FIXTURES


def phrases(text: str) -> list[str]:
    return [m.phrase for m in relative_date_mentions(text)]


# --------------------------------------------------------------------------- relative dates


class TestRelativeDates:
    @pytest.mark.parametrize(
        ("text", "phrase", "offset"),
        [
            ("Yesterday we decided X.", "Yesterday", -1),
            ("fixed today", "today", 0),
            ("ship tomorrow", "tomorrow", 1),
            ("broke the day before yesterday", "the day before yesterday", -2),
            ("due the day after tomorrow", "the day after tomorrow", 2),
            ("moved 3 days ago", "3 days ago", -3),
            ("moved two days ago", "two days ago", -2),
            ("moved a day ago", "a day ago", -1),
            ("Gestern haben wir X entschieden.", "Gestern", -1),
            ("heute migriert", "heute", 0),
            ("wir machen das morgen", "morgen", 1),
            ("vorgestern kaputt", "vorgestern", -2),
            ("übermorgen fertig", "übermorgen", 2),
            ("vor 3 Tagen umgestellt", "vor 3 Tagen", -3),
            ("vor einem Tag umgestellt", "vor einem Tag", -1),
        ],
    )
    def test_day_words_carry_their_offset(self, text: str, phrase: str, offset: int) -> None:
        """English and German day words are found with the day they mean."""
        [mention] = relative_date_mentions(text)
        assert (mention.phrase, mention.precision, mention.offset_days) == (phrase, "day", offset)

    @pytest.mark.parametrize(
        ("text", "precision"),
        [
            ("decided last week", "coarse"),
            ("this week we moved", "coarse"),
            ("next week: release", "coarse"),
            ("last month it broke", "coarse"),
            ("two weeks ago", "coarse"),
            ("last Friday", "coarse"),
            ("letzte Woche entschieden", "coarse"),
            ("in der letzten Woche", "coarse"),
            ("diese Woche", "coarse"),
            ("nächsten Monat", "coarse"),
            ("vor zwei Wochen", "coarse"),
            ("we recently moved", "vague"),
            ("a few days ago", "vague"),
            ("kürzlich umgestellt", "vague"),
        ],
    )
    def test_weeks_months_and_vague_words_have_no_day(self, text: str, precision: str) -> None:
        """Coarse and vague relative dates are reported but carry no day offset."""
        [mention] = relative_date_mentions(text)
        assert (mention.precision, mention.offset_days) == (precision, None)

    def test_findings_have_line_numbers(self) -> None:
        """Each finding names the 1-based line it is on."""
        found = relative_dates("# Notes\n\n- fixed yesterday\n- gestern auch\n")
        assert [(f.kind, f.line, f.text) for f in found] == [
            ("relative-date", 3, "yesterday"),
            ("relative-date", 4, "gestern"),
        ]

    def test_code_is_not_a_statement(self) -> None:
        """Words inside fenced blocks and inline code are commands, not dates."""
        text = "run `git log --since=yesterday`\n```\ntoday\n```\n~~~\ngestern\n~~~\ntoday\n"
        assert [m.line for m in relative_date_mentions(text)] == [8]

    def test_todays_date_is_a_concept(self) -> None:
        """'today's date' and 'das heutige Datum' name no particular day."""
        assert phrases("Always write today's date in ISO form. Nimm das heutige Datum.") == []

    def test_anchored_words_are_already_dated(self) -> None:
        """A relative word followed or preceded by its ISO date needs no conversion."""
        assert phrases("Today (2026-05-27): data through 2026-05-19") == []
        assert phrases("2026-05-27 (today) we moved") == []

    def test_longest_phrase_wins(self) -> None:
        """'the day before yesterday' is one mention, not also 'yesterday'."""
        assert phrases("the day before yesterday") == ["the day before yesterday"]

    def test_capital_morgen_is_a_morning_inside_a_sentence(self) -> None:
        """'heute Morgen' and 'Guten Morgen' are mornings; a sentence opening 'Morgen' is not."""
        assert phrases("heute Morgen lief es. Guten Morgen!") == ["heute"]
        assert phrases("Morgen deployen wir.") == ["Morgen"]
        assert phrases("- Morgen: release") == ["Morgen"]

    def test_words_inside_other_words_are_not_dates(self) -> None:
        """'heutzutage', 'Morgenstern' and 'todays' are not relative dates."""
        assert phrases("heutzutage der Morgenstern; yesterdays") == []

    def test_possessives_and_rules_are_generic(self) -> None:
        """A possessive or a rule line marks the word generic; a plain statement does not."""
        mentions = relative_date_mentions(
            "Reset to yesterday's settlement.\nIf it does not fill today, retry.\nFixed today.\n"
        )
        assert [(m.line, m.generic) for m in mentions] == [(1, True), (2, True), (3, False)]

    def test_generic_findings_say_so(self) -> None:
        """The report tells the user a generic word may be fine as written."""
        [finding] = relative_dates("If it breaks, retry tomorrow.")
        assert "general rule" in finding.message


# --------------------------------------------------------------------------- version drift


class TestVersionDrift:
    manifests: ClassVar[dict[str, str]] = {
        "react": "^19.1.0",
        PROJECT_VERSION_KEY: "1.2.4",
        "requests": "2.31.0",
        "github.com/spf13/cobra": "1.8.0",
        "cobra": "1.8.0",
        "go": "1.22",
        "Type_Script": "5.4.2",
    }

    @pytest.mark.parametrize(
        ("claim", "shown"),
        [
            ("We use react 18.2.", "react 18.2"),
            ("npm i react@18.2.0", "react 18.2.0"),
            ("pinned requests==2.30.1", "requests 2.30.1"),
            ('"version": "1.2.3"', "the project 1.2.3"),
            ('"react": "^18.3.1"', "react 18.3.1"),
            ("github.com/spf13/cobra v1.7.0", "github.com/spf13/cobra 1.7.0"),
            ("cobra v1.7", "cobra 1.7"),
            ("React v18 hooks", "React 18"),
            ("Built with go 1.21", "go 1.21"),
            ("type-script 4.9", "type-script 4.9"),
        ],
    )
    def test_contradicted_claims_are_reported(self, claim: str, shown: str) -> None:
        """Each claim form is compared with the manifests and reported when it disagrees."""
        [finding] = version_drift(claim, self.manifests)
        assert (finding.kind, finding.line, finding.text) == ("version-drift", 1, shown)

    @pytest.mark.parametrize(
        "claim",
        [
            "react 19.1",
            "react@19",
            "react 19.1.0-rc.1",
            "requests==2.31.0",
            '"version": "1.2.4"',
            "vue 2.7",  # not in the manifests
            "react 18 hooks",  # no dot, no v: not read as a version
            "Python 3.11",
        ],
    )
    def test_agreeing_or_unknown_claims_are_quiet(self, claim: str) -> None:
        """Agreeing versions and packages the manifests do not know give nothing."""
        assert version_drift(claim, self.manifests) == []

    def test_message_names_both_versions(self) -> None:
        """The finding says what memory claims and what the manifests have."""
        [finding] = version_drift("\n\nreact 18.2", {"react": "19.1.0"})
        assert finding.line == 3
        assert finding.message == "memory says react 18.2; the manifests have 19.1.0"

    def test_one_claim_twice_on_a_line_is_one_finding(self) -> None:
        """The same stale claim repeated on one line is reported once."""
        assert len(version_drift("react 18.2 and again react 18.2", {"react": "19.0.0"})) == 1


# --------------------------------------------------------------------------- counts, lines


# The count pattern as it was, searched line by line: the reference of the one-pass search.
_LINE_COUNT = re.compile(
    r"(?<![\w.,/])(\d{1,3}(?:[,_]\d{3})+|\d+)(?:/\d+)?\s+"
    r"(?:(?:open|closed|failing|failed|passing|passed|skipped|new|unit|integration|e2e|flaky"
    r"|offene|geschlossene|fehlgeschlagene|bestandene|neue)\s+)?"
    r"(?:test cases?|test files?|tests?|specs?|suites?|assertions|issues?|bugs?|PRs?"
    r"|pull requests?|tickets?|passed|failed|failing|passing|skipped|x?failed|xpassed|errors?"
    r"|testfälle|fehler)\b",
    re.IGNORECASE,
)
_CLAIM_PARTS = [
    *("1", "23", "1,234", "4_000", "/", "12/30", ",", ".", "a", "x", "e2e", "_"),
    *(" ", "  ", "\n", "\t", "\x85", "\u2028", " \n "),
    *("tests", "test cases", "passed", "open ", "unit", "PRs", "Fehler", "issue", "ok"),
]


class TestCountClaims:
    @pytest.mark.parametrize(
        "claim",
        [
            "5001 passed",
            "8 open issues",
            "142 tests",
            "1,234 test cases",
            "134/135 tests",
            "3 failing tests",
            "12 PRs",
            "3 offene Issues",
        ],
    )
    def test_counts_are_reported(self, claim: str) -> None:
        """Test and issue counts are reported as drift-prone."""
        [finding] = count_claims(f"Status: {claim} as of now")
        assert (finding.kind, finding.text) == ("count-claim", claim)

    def test_other_numbers_are_not_counts(self) -> None:
        """Numbers that count other things are left alone."""
        assert count_claims("Took 3 days, 2 files and version 1.2 tests nothing") == []

    def test_a_claim_never_spans_lines_and_keeps_its_line_number(self) -> None:
        """The noun on the next line is no claim; a later line's claim carries its number."""
        text = "3\ntests\n5 passed\n tests, x1 tests, 2,50 bugs\n\n12/30 unit  tests"
        found = [(f.line, f.text) for f in count_claims(text)]
        assert found == [(3, "5 passed"), (6, "12/30 unit  tests")]

    @settings(max_examples=3000, deadline=None)
    @given(st.lists(st.sampled_from(_CLAIM_PARTS), max_size=14).map("".join))
    def test_equal_to_the_search_line_by_line(self, text: str) -> None:
        """One search over the text finds what the seed's line-by-line search finds."""
        by_line = [
            (number, match.group(0))
            for number, line in enumerate(split_lines(text), start=1)
            for match in _LINE_COUNT.finditer(line)
        ]
        assert [(f.line, f.text) for f in count_claims(text)] == by_line


class TestLineBudget:
    @staticmethod
    def index(lines: int) -> str:
        return "".join(f"- line {n}\n" for n in range(lines))

    def test_up_to_180_lines_is_fine(self) -> None:
        """180 lines need nothing."""
        assert line_budget(self.index(180)) is None

    def test_181_lines_get_split_guidance(self) -> None:
        """Above 180 lines the report names the {type}_{topic}.md convention."""
        finding = line_budget(self.index(181))
        assert finding is not None and finding.kind == "index-split-advised"
        assert "{type}_{topic}.md" in finding.message

    def test_200_lines_are_not_over_the_limit(self) -> None:
        """Exactly 200 lines still load; only the split guidance applies."""
        finding = line_budget(self.index(200))
        assert finding is not None and finding.kind == "index-split-advised"

    def test_201_lines_are_over_the_limit(self) -> None:
        """Over 200 lines is reported, pointing at the first line that is cut off."""
        finding = line_budget(self.index(201))
        assert finding is not None
        assert (finding.kind, finding.line) == ("index-over-limit", 201)
        assert "{type}_{topic}.md" in finding.message

    def test_a_last_line_without_newline_counts(self) -> None:
        """A final line with no newline is still a line."""
        assert line_budget(self.index(180) + "tail") is not None


# --------------------------------------------------------------------------- seed 003

SECTIONED = """# Project memory

## Rules
- Always run `make lint` before commit. [ses_abc1]
- Use `src/app/main.py` as the entry point. [ses_a1]
- Never edit `gen/schema.ts`
  it is generated. [ses_2]
- An entry with no source

## Architecture decisions
- 2026-03-01: chose `StateDB.open()` over raw sqlite [ses_9] [unverified]
- Pending item [TODO]

## Notes
- not a seed section `missing/x.py`

## Gotchas
```
- inside a fence `gone.py`
```
- `parse_config()` raises on a bad key
"""


class TestSectioned:
    def test_three_of_five_headings_make_a_sectioned_file(self) -> None:
        """Three seed headings are enough; two are not."""
        assert is_sectioned("## Rules\n## Patterns\n## Gotchas\n")
        assert not is_sectioned("## Rules\n## Gotchas\n## Other\n")

    def test_heading_match_ignores_case_but_not_level(self) -> None:
        """'## architecture DECISIONS' counts; '### Rules' does not."""
        assert is_sectioned("## architecture DECISIONS\n## Patterns ##\n## Gotchas\n")
        assert not is_sectioned("### Rules\n## Patterns\n## Gotchas\n")

    def test_health_line(self) -> None:
        """Lines out of 200 and size out of 10 KB, one decimal."""
        text = "x" * 2047 + "\n" + "y\n"
        assert health_line(text) == "lines 2/200 · size 2.0 KB/10 KB"
        assert health_line("") == "lines 0/200 · size 0.0 KB/10 KB"

    def test_entries_are_bullets_under_seed_sections(self) -> None:
        """Bullets with their continuations, outside fences, under the five headings only."""
        entries = sectioned_entries(SECTIONED)
        assert [(e.section, e.first_line, e.last_line) for e in entries] == [
            ("Rules", 4, 4),
            ("Rules", 5, 5),
            ("Rules", 6, 7),
            ("Rules", 8, 8),
            ("Architecture decisions", 11, 11),
            ("Architecture decisions", 12, 12),
            ("Gotchas", 21, 21),
        ]

    def test_entries_without_source(self) -> None:
        """Entries not ending in a [session-id] are flagged; [TODO] is not an id."""
        found = entries_without_source(SECTIONED)
        assert [(f.kind, f.line) for f in found] == [
            ("no-source", 8),
            ("no-source", 12),
            ("no-source", 21),
        ]
        assert found[0].text == "- An entry with no source"

    def test_a_source_before_the_unverified_mark_counts(self) -> None:
        """'[ses_9] [unverified]' still ends in its source."""
        assert all(f.line != 11 for f in entries_without_source(SECTIONED))


class TestClaims:
    def test_entry_claims(self) -> None:
        """Backticked paths and code-like names, bare paths and calls; no URLs or commands."""
        text = (
            "- Use `src/main.py:12`, `foo_bar`, `MemoryFile`, `git status`, `word`, "
            "lib/x.ts, run() and https://example.com/a/b.py"
        )
        assert entry_claims(text) == ("src/main.py", "foo_bar", "MemoryFile", "lib/x.ts", "run")

    def test_path_or_symbol(self) -> None:
        """Paths have a slash or a known extension; the rest are symbols."""
        assert is_path_claim("src/a.py") and is_path_claim("README.md")
        assert not is_path_claim("StateDB.open") and not is_path_claim("foo_bar")


VERIFY = {
    "src/app/main.py": True,
    "gen/schema.ts": False,
    "parse_config": None,
    "StateDB.open": False,
    "missing/x.py": False,
    "gone.py": False,
}


class TestMarkUnverified:
    def test_missing_and_unverifiable_claims_are_marked(self) -> None:
        """False and None claims mark their entry at its last line; True ones do not."""
        marked = mark_unverified(SECTIONED, VERIFY.__getitem__).splitlines()
        assert marked[6] == "  it is generated. [ses_2] [unverified]"
        assert marked[20] == "- `parse_config()` raises on a bad key [unverified]"
        assert marked[4] == "- Use `src/app/main.py` as the entry point. [ses_a1]"

    def test_unverifiable_can_be_left_unmarked(self) -> None:
        """With include_unverifiable off, a None claim leaves its entry alone."""
        marked = mark_unverified(SECTIONED, VERIFY.__getitem__, include_unverifiable=False)
        assert "- `parse_config()` raises on a bad key\n" in marked
        assert "it is generated. [ses_2] [unverified]" in marked

    def test_outside_seed_sections_and_fences_nothing_is_marked(self) -> None:
        """Only entries under the five headings are marked."""
        marked = mark_unverified(SECTIONED, VERIFY.__getitem__)
        assert "- not a seed section `missing/x.py`\n" in marked
        assert "- inside a fence `gone.py`\n" in marked

    def test_marking_is_idempotent(self) -> None:
        """Marking a marked text changes nothing, and the old mark is never doubled."""
        once = mark_unverified(SECTIONED, VERIFY.__getitem__)
        assert mark_unverified(once, VERIFY.__getitem__) == once
        assert once.count("[unverified]") == 3

    def test_every_other_byte_is_kept(self) -> None:
        """CRLF endings and trailing spaces survive; only the mark is added."""
        text = "## Rules\r\n- see `a/b.py`  \r\n## Patterns\r\n## Gotchas\r\n"
        assert mark_unverified(text, lambda _: False) == (
            "## Rules\r\n- see `a/b.py` [unverified]\r\n## Patterns\r\n## Gotchas\r\n"
        )

    def test_verify_runs_once_per_claim(self) -> None:
        """The verifier (which may grep a repository) is asked once per distinct claim."""
        asked: list[str] = []

        def verify(claim: str) -> bool:
            asked.append(claim)
            return True

        mark_unverified("## Rules\n- `a.py`\n- `a.py` again\n", verify)
        assert asked == ["a.py"]

    def test_unverified_entries_report_what_would_be_marked(self) -> None:
        """The report lists each entry to mark with its first failing claim."""
        found = unverified_entries(SECTIONED, VERIFY.__getitem__)
        assert [(f.line, f.text) for f in found] == [(6, "gen/schema.ts"), (21, "parse_config")]


# --------------------------------------------------------------------------- real folders


@pytest.fixture
def real_memory(tmp_path: Path) -> Path:
    """A copy of the shared real memory folders, or skip."""
    source = SHARED_FIXTURES / "memory"
    if not source.is_dir():
        pytest.skip(f"shared memory fixtures not found at {source}")
    copy = tmp_path / "memory"
    shutil.copytree(source, copy)
    return copy


def test_every_real_file_goes_through_every_check(real_memory: Path) -> None:
    """All checks run on every real memory file without error and change nothing."""
    for path in sorted(real_memory.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for finding in [
            *relative_dates(text),
            *count_claims(text),
            *version_drift(text, {"react": "19.0.0"}),
        ]:
            assert finding.line is not None and finding.line >= 1
        assert mark_unverified(text, lambda _: None) == text or is_sectioned(text)


def test_real_indexes_line_budget(real_memory: Path) -> None:
    """The 249-line index is over the limit, the 186-line one gets split advice."""
    over = line_budget((real_memory / "1000ssam__claude-config__memory/MEMORY.md").read_text())
    near = real_memory / "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading"
    advised = line_budget((near / "MEMORY.md").read_text())
    fine = line_budget(
        (real_memory / "ActorForth__ActorForth__claude-memory/MEMORY.md").read_text()
    )
    assert over is not None and over.kind == "index-over-limit"
    assert advised is not None and advised.kind == "index-split-advised"
    assert fine is None


def test_no_real_index_is_seed_003_sectioned(real_memory: Path) -> None:
    """None of the real indexes uses the seed 003 sections, so none gets marked."""
    assert not any(is_sectioned(p.read_text()) for p in real_memory.glob("*/MEMORY.md"))


def test_real_generic_day_words_are_generic(real_memory: Path) -> None:
    """Market-rule wording ("today's settlement", "come back tomorrow") is marked generic."""
    folder = real_memory / "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading"
    mtm = relative_date_mentions((folder / "reference_futures_daily_mtm.md").read_text())
    execution = relative_date_mentions((folder / "feedback_trade_execution.md").read_text())
    assert any(m.phrase.lower() == "today" and m.generic for m in mtm)
    assert any(m.phrase == "tomorrow" and m.generic for m in execution)


def test_real_test_counts_are_found(real_memory: Path) -> None:
    """'1567 tests passing' in a real project overview is reported."""
    overview = real_memory / "Aleslammer__deathwatch_foundryvtt__claude-memory/project_overview.md"
    assert "1567 tests" in [f.text for f in count_claims(overview.read_text())]
