"""Index byte budget, archive moves and the two-file invariant (seed 000 STEP 5.5)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from dreamd.dream.folder.archive import (
    archive_section,
    demotion_rank,
    handoff_date,
    move_candidates,
    never_move_reason,
    trailer_text,
    with_trailer,
)
from dreamd.dream.folder.budget import DEFAULT_BUDGET_BYTES, fit_budget, section_sizes
from dreamd.dream.folder.hooks import (
    ELLIPSIS,
    LINE_FLOOR_CHARS,
    leading_clause,
    nbytes,
    per_line_budget,
    shorten_entries,
    shorten_hook,
)
from dreamd.dream.folder.index import Rebuilt, rebuild
from dreamd.dream.folder.indexfile import parse_index
from dreamd.dream.folder.invariant import check_invariant, invariant_from_disk
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.model import MemoryFile
from tests.conftest import SHARED_FIXTURES
from tests.dream.factories import NOW, memory

DAY = timedelta(days=1)
LONG_HOOK = "first clause of the hook, then more words that say the rest of it in detail"


def entry(name: str, hook: str = LONG_HOOK) -> str:
    """One index entry line for ``name``."""
    return f"- [{name.removesuffix('.md')}]({name}) — {hook}"


def index_of(*lines: str, title: str = "# M") -> str:
    """An index text from a title and lines."""
    return "\n".join([title, "", *lines]) + "\n"


def rebuilt(
    text: str | None,
    files: list[MemoryFile],
    budget: int,
    *,
    archive: str | None = None,
    now: datetime = NOW,
    moves: bool = True,
) -> Rebuilt:
    """Rebuild with a given budget."""
    return rebuild(
        text,
        archive,
        files,
        folder_title="m",
        budget=budget,
        now=now,
        archive_moves=moves,
    )


# --------------------------------------------------------------------------- sizes


def test_default_budget_is_17_kib() -> None:
    """The default ceiling is 17 KiB = 17,408 bytes."""
    assert DEFAULT_BUDGET_BYTES == 17_408


def test_per_line_budget_formula() -> None:
    """(budget - overhead) // entries; None without entries."""
    assert per_line_budget(1000, 100, 9) == 100
    assert per_line_budget(1000, 100, 10) == 90
    assert per_line_budget(100, 200, 4) == -25
    assert per_line_budget(1000, 100, 0) is None


def test_sizes_are_utf8_bytes() -> None:
    """Budgets count bytes, so Korean text weighs three bytes a character."""
    assert nbytes("강의") == 6
    assert nbytes("a—b") == 5


def test_section_sizes() -> None:
    """Entries and bytes are reported per ``##`` section."""
    index = parse_index("# M\n## A\n- [a](a.md)\n## B\nprose\n")
    assert [(s.heading, s.entries, s.bytes) for s in section_sizes(index)] == [
        ("", 0, 4),
        ("A", 1, 17),
        ("B", 0, 11),
    ]


# --------------------------------------------------------------------------- shortening


class TestShortenHook:
    def test_a_hook_that_fits_is_unchanged(self) -> None:
        """Nothing happens when the hook is within the bytes allowed."""
        assert shorten_hook("short hook", 10) == "short hook"

    def test_cut_at_a_word_boundary(self) -> None:
        """The cut falls between words, never inside one, and ends with an ellipsis."""
        hook = "alpha beta gamma delta epsilon"
        assert shorten_hook(hook, 19) == "alpha beta gamma…"  # the ellipsis is 3 bytes
        assert shorten_hook(hook, 18) == "alpha beta…"

    def test_leading_clause_is_kept_even_over_budget(self) -> None:
        """The clause before the first break stays whole, even when it alone is too long."""
        hook = "options pricing mechanical (high conf); sector qualitative; calibrate tone"
        assert shorten_hook(hook, 10) == "options pricing mechanical (high conf)…"

    def test_longer_room_keeps_more_clauses(self) -> None:
        """With more room the cut moves past the leading clause, at a word end."""
        hook = "options pricing mechanical (high conf); sector qualitative; calibrate tone"
        assert (
            shorten_hook(hook, 61) == "options pricing mechanical (high conf); sector qualitative…"
        )
        assert shorten_hook(hook, 60) == "options pricing mechanical (high conf); sector…"

    def test_hook_without_breaks_keeps_its_first_word(self) -> None:
        """A single clause is cut after its last fitting word, at least its first."""
        assert shorten_hook("averyveryverylongword and more", 5) == "averyveryverylongword…"

    def test_never_longer_than_the_input(self) -> None:
        """When the only cut plus its ellipsis is no shorter, the hook stays as it is."""
        assert shorten_hook("abcdefghij k", 3) == "abcdefghij k"

    def test_code_links_and_parentheses_are_not_split(self) -> None:
        """Cuts fall outside backticks, links and parentheses."""
        hook = "use `build-template.py --palette N` then (a long aside here) [the doc](d.md) end"
        for room in range(5, nbytes(hook)):
            cut = shorten_hook(hook, room).removesuffix(ELLIPSIS)
            assert cut.count("`") % 2 == 0
            assert cut.count("(") == cut.count(")")

    def test_korean_is_cut_at_spaces(self) -> None:
        """Korean text is cut between words and counted in bytes."""
        hook = "교실 강의 덱 본문 글자 크게 정답은 질문 다음에 공개"
        short = shorten_hook(hook, 30)
        assert nbytes(short) <= 30 and hook.startswith(short.removesuffix(ELLIPSIS))
        assert short == "교실 강의 덱 본문…"

    def test_shortening_twice_changes_nothing(self) -> None:
        """A shortened hook shortened again to the same room is unchanged."""
        for hook in [LONG_HOOK, "x y z " * 30, "lead clause only, " + "w " * 40]:
            for room in (5, 20, 40, 80):
                once = shorten_hook(hook, room)
                assert shorten_hook(once, room) == once


@pytest.mark.parametrize(
    ("hook", "lead"),
    [
        ("a b — c", "a b"),
        ("a b -- c", "a b"),
        ("a b - c", "a b"),
        ("a b; c", "a b"),
        ("a b, c", "a b"),
        ("a b. C", "a b"),
        ("23,470 tests, all green", "23,470 tests"),
        ("v2.3 shipped. Next", "v2.3 shipped"),
        ("use `a, b` now, later", "use `a, b` now"),
        ("(a, b) then, c", "(a, b) then"),
        ("일일 SMS 크론 on/off는 노션. 다음", "일일 SMS 크론 on/off는 노션"),
        ("no break at all", None),
        ("already cut…", "already cut"),
    ],
)
def test_leading_clause(hook: str, lead: str | None) -> None:
    """The leading clause ends at the first spaced dash, ``;``, ``, `` or ``. `` outside code."""
    assert leading_clause(hook) == lead


class TestShortenEntries:
    def test_lines_are_cut_to_the_per_line_budget(self) -> None:
        """Every entry longer than the per-line budget is cut to fit it."""
        lines = [entry(f"project_{n}.md", "word " * 60) for n in range(4)]
        index = parse_index(index_of(*lines))
        budget = nbytes(index.render()) // 2
        short, line_budget, names = shorten_entries(index, budget)
        assert line_budget is not None
        assert line_budget == per_line_budget(budget, 5, 4)
        assert len(names) == 4
        assert all(nbytes(line.text) + 1 <= line_budget for line in short.lines if line.entry)

    def test_lines_are_not_cut_below_ninety_characters(self) -> None:
        """With a tiny per-line budget a line keeps about 90 characters."""
        line = entry("project_a.md", "word " * 60)
        short, _, _ = shorten_entries(parse_index(index_of(line)), 10)
        text = short.lines[-1].text
        assert LINE_FLOOR_CHARS - 6 <= len(text) - len(ELLIPSIS) <= LINE_FLOOR_CHARS
        assert line.startswith(text.removesuffix(ELLIPSIS))

    def test_head_is_never_changed(self) -> None:
        """Only the hook is shortened: the bullet, title, link and separator stay."""
        line = "- **[A long title](feedback_a.md)** — " + "word " * 80
        short, _, _ = shorten_entries(parse_index(index_of(line)), 10)
        assert short.lines[-1].text.startswith("- **[A long title](feedback_a.md)** — word")

    def test_lines_without_hook_are_left_alone(self) -> None:
        """An entry whose title carries everything cannot be shortened."""
        line = "- [" + "long title " * 20 + "](a.md)"
        short, _, names = shorten_entries(parse_index(index_of(line)), 10)
        assert short.lines[-1].text == line and names == ()


# --------------------------------------------------------------------------- demotion


class TestDemotion:
    def test_handoff_date_from_name_suffix(self) -> None:
        """``_YYYY_MM_DD`` (or ``_YYYY-MM-DD``) gives the date; else the mtime."""
        mtime = NOW - DAY
        assert handoff_date("project_handoff_x_2026_11_01.md", mtime) == datetime(
            2026, 11, 1, tzinfo=UTC
        )
        assert handoff_date("project_handoff_x_2026-11-01.md", mtime) == datetime(
            2026, 11, 1, tzinfo=UTC
        )
        assert handoff_date("project_handoff_x.md", mtime) == mtime
        assert handoff_date("project_handoff_x_2026_13_01.md", mtime) == mtime

    def test_handoff_older_than_seven_days_goes_first(self) -> None:
        """A handoff is class 0 once its date is more than 7 days old, not at exactly 7."""
        exactly = NOW - 7 * DAY
        name = f"project_handoff_{exactly:%Y_%m_%d}.md"
        at_midnight = datetime(exactly.year, exactly.month, exactly.day, tzinfo=UTC)
        assert demotion_rank(name, NOW - 30 * DAY, at_midnight + 7 * DAY) is None
        assert demotion_rank(
            name, NOW - 30 * DAY, at_midnight + 7 * DAY + timedelta(seconds=1)
        ) == (
            0,
            at_midnight,
        )
        assert demotion_rank("project_handoff_x.md", NOW - 7 * DAY, NOW) is None
        assert demotion_rank("project_handoff_x.md", NOW - 8 * DAY, NOW) == (0, NOW - 8 * DAY)

    def test_feedback_is_class_one_at_any_age(self) -> None:
        """``feedback_*`` files are the second class, whatever their age."""
        assert demotion_rank("feedback_a.md", NOW - 8 * DAY, NOW) == (1, NOW - 8 * DAY)

    @pytest.mark.parametrize("prefix", ["project_", "reference_"])
    def test_project_and_reference_after_thirty_days(self, prefix: str) -> None:
        """``project_*`` / ``reference_*`` are class 2 only when unmodified over 30 days."""
        assert demotion_rank(f"{prefix}a.md", NOW - 30 * DAY, NOW) is None
        assert (
            demotion_rank(f"{prefix}a.md", NOW - 30 * DAY - timedelta(seconds=1), NOW) is not None
        )

    @pytest.mark.parametrize("name", ["entity_scale.md", "architecture.md", "notes_x.md"])
    def test_other_names_have_no_class(self, name: str) -> None:
        """Files without a known prefix are never candidates."""
        assert demotion_rank(name, NOW - 90 * DAY, NOW) is None

    @pytest.mark.parametrize(
        ("name", "age", "policy", "reason"),
        [
            ("hub_x.md", 90, False, "hub_* files never move"),
            ("user_x.md", 90, False, "user_* files never move"),
            ("feedback_x.md", 90, True, "under a Policy heading"),
            ("feedback_x.md", 6.99, False, "modified within 7 days"),
            ("feedback_x.md", 7, False, None),
        ],
    )
    def test_never_moved(self, name: str, age: float, policy: bool, reason: str | None) -> None:
        """hub_, user_, Policy sections and files changed in the last 7 days stay."""
        mtime = NOW - timedelta(days=age)
        assert never_move_reason(name, mtime, under_policy=policy, now=NOW) == reason

    def test_candidates_in_class_then_age_order(self) -> None:
        """Candidates come handoffs first, then feedback, then stale projects; oldest first."""
        files = [
            memory("project_old.md", age=60 * DAY),
            memory("feedback_new.md", type="feedback", age=10 * DAY),
            memory("project_handoff_a.md", age=9 * DAY),
            memory("feedback_old.md", type="feedback", age=40 * DAY),
            memory("reference_older.md", type="reference", age=80 * DAY),
            memory("user_x.md", type="user", age=80 * DAY),
        ]
        index = parse_index(index_of(*(entry(m.name) for m in files)))
        candidates, kept = move_candidates(index, {m.name: m for m in files}, NOW)
        assert [c.file for c in candidates] == [
            "project_handoff_a.md",
            "feedback_old.md",
            "feedback_new.md",
            "reference_older.md",
            "project_old.md",
        ]
        assert kept == {"user_x.md": "user_* files never move"}

    def test_policy_heading_protects_its_subsections(self) -> None:
        """Entries under ``## Policy`` (and its ``###`` subsections) never move."""
        files = [memory("feedback_a.md", type="feedback"), memory("feedback_b.md", type="feedback")]
        text = index_of(
            "## Git Policy",
            "### Branches",
            entry("feedback_a.md"),
            "## Other",
            entry("feedback_b.md"),
        )
        candidates, kept = move_candidates(parse_index(text), {m.name: m for m in files}, NOW)
        assert [c.file for c in candidates] == ["feedback_b.md"]
        assert kept == {"feedback_a.md": "under a Policy heading"}


# --------------------------------------------------------------------------- trailer and archive


def test_trailer_text() -> None:
    """The trailer names the count and links the archive."""
    assert trailer_text(3) == (
        "> 3 memory files are archived in [MEMORY-ARCHIVE.md](MEMORY-ARCHIVE.md); "
        "open it to find them."
    )


@pytest.mark.parametrize("count", [0, 1, 2, 17])
def test_trailer_keeps_the_seed_form_for_any_count(count: int) -> None:
    """``> N memory files`` also for one: the seed's budget tool reads that form (16a)."""
    assert re.match(rf"^> {count} memory files\b", trailer_text(count))
    assert parse_index(trailer_text(count) + "\n").lines[0].kind == "trailer"


@pytest.mark.parametrize(
    "stray",
    [
        "> 12 memory files archived, see MEMORY-ARCHIVE.md",
        "> Older entries: [the archive](MEMORY-ARCHIVE.md)",
        "> 1 memory file is archived in [MEMORY-ARCHIVE.md](MEMORY-ARCHIVE.md); open it.",
    ],
)
def test_a_stray_second_trailer_is_folded_into_the_one(stray: str) -> None:
    """A trailer line an earlier tool left is folded into the one trailer, never kept beside it."""
    files = [memory("a.md"), memory("b.md")]
    text = index_of(entry("a.md"), "", trailer_text(1), stray)
    archive = "# Memory archive\n\n- [b](b.md) — archived\n"
    result = rebuilt(text, files, DEFAULT_BUDGET_BYTES, archive=archive)
    lines = result.new_index.splitlines()
    assert stray not in lines
    assert [line for line in lines if line.startswith(">")] == [trailer_text(1)]
    assert result.report.invariant_ok


def test_a_quote_naming_no_archive_is_not_a_trailer() -> None:
    """``> 3 memory files are elsewhere`` names no archive: it stays the user's text."""
    assert parse_index("> 3 memory files are elsewhere.\n").lines[0].kind == "text"


def test_with_trailer_keeps_exactly_one() -> None:
    """Adding the trailer replaces any other trailer and ends the index with it."""
    text = index_of(entry("a.md"), trailer_text(2), "more prose", trailer_text(5))
    lines = with_trailer(parse_index(text), 4).render().splitlines()
    assert lines[-2:] == ["", trailer_text(4)]
    assert sum(line.startswith("> ") for line in lines) == 1
    assert "more prose" in lines


def test_new_archive_has_a_header_and_a_dated_section() -> None:
    """A first move creates the archive with a header and ``## Moved from MEMORY.md <date> (N)``."""
    archive = archive_section(None, ["- [a](a.md) — x", "- [b](b.md) — y"], NOW)
    lines = archive.render().splitlines()
    assert lines[0] == "# Memory archive"
    assert lines[-4:] == [
        "## Moved from MEMORY.md 2026-11-30 (2)",
        "",
        "- [a](a.md) — x",
        "- [b](b.md) — y",
    ]


def test_moves_append_to_an_existing_archive() -> None:
    """Later moves add a new dated section; earlier ones stay."""
    old = (
        "# Memory archive\n\nmy own note\n\n"
        "## Moved from MEMORY.md 2026-10-01 (1)\n\n- [a](a.md) — x\n\n"
    )
    lines = archive_section(parse_index(old), ["- [b](b.md) — y"], NOW).render().splitlines()
    assert lines[:7] == old.splitlines()[:7]
    assert lines[-4:] == ["", "## Moved from MEMORY.md 2026-11-30 (1)", "", "- [b](b.md) — y"]


# --------------------------------------------------------------------------- fitting


def folder(count: int, *, prefix: str = "project", age: timedelta = 60 * DAY) -> list[MemoryFile]:
    """``count`` old memory files with a common prefix."""
    kind = prefix if prefix in ("project", "feedback", "reference", "user") else None
    return [memory(f"{prefix}_{n:02d}.md", type=kind, age=age + n * DAY) for n in range(count)]  # type: ignore[arg-type]


class TestFitBudget:
    def test_an_index_that_fits_is_untouched(self) -> None:
        """At exactly the budget nothing is shortened or moved; one byte less and hooks shorten."""
        files = folder(3)
        text = index_of(*(entry(m.name, "word " * (20 + 10 * n)) for n, m in enumerate(files)))
        size = nbytes(text)
        assert rebuilt(text, files, size).new_index == text
        tighter = rebuilt(text, files, size - 1)
        assert tighter.new_index != text and tighter.new_archive is None
        assert tighter.report.budget_report.shortened

    def test_hooks_are_shortened_before_anything_moves(self) -> None:
        """If shortening alone fits, no entry leaves the index."""
        files = folder(4)
        text = index_of(*(entry(m.name, "word " * 40) for m in files))
        result = rebuilt(text, files, nbytes(text) - 100)
        assert result.new_archive is None
        assert result.report.bytes <= nbytes(text) - 100
        assert result.report.entries == 4

    def test_moves_oldest_candidates_first_until_it_fits(self) -> None:
        """Moves follow the rule order and stop as soon as the projected index fits."""
        files = folder(10)
        text = index_of(*(entry(m.name, "w " * 10) for m in files))
        result = rebuilt(text, files, 400)
        moved = result.report.budget_report.moved
        assert len(moved) > 1 and moved == tuple(m.name for m in reversed(files))[: len(moved)]
        assert result.report.bytes <= 400
        assert rebuild_with_moves(text, files, 400, len(moved) - 1) > 400

    def test_moved_lines_are_archived_whole(self) -> None:
        """The archive gets each moved line as it was, not shortened."""
        files = folder(6)
        lines = [entry(m.name, "w " * 30) for m in files]
        result = rebuilt(index_of(*lines), files, 420)
        assert result.new_archive is not None
        archived = result.new_archive.splitlines()
        for name in result.report.budget_report.moved:
            assert next(line for line in lines if f"({name})" in line) in archived

    def test_exactly_one_trailer_counts_the_archive(self) -> None:
        """The index ends with one trailer giving the number of archived entries."""
        files = folder(6)
        result = rebuilt(index_of(*(entry(m.name, "w " * 30) for m in files)), files, 420)
        lines = result.new_index.splitlines()
        assert lines[-1] == trailer_text(result.report.archived)
        assert sum(line.startswith("> ") for line in lines) == 1
        assert result.report.invariant_ok

    def test_projected_size_includes_the_trailer(self) -> None:
        """Whenever entries move, the index with its trailer line is within the budget."""
        files = folder(8)
        text = index_of(*(entry(m.name, "w") for m in files))
        moved_any = False
        for budget in range(nbytes(text) - 150, nbytes(text)):
            result = rebuilt(text, files, budget)
            moved_any |= bool(result.report.budget_report.moved)
            assert nbytes(result.new_index) <= budget or result.report.warnings
            assert result.report.bytes == nbytes(result.new_index)
        assert moved_any

    def test_still_over_budget_warns_and_keeps_everything(self) -> None:
        """When nothing more may move, the index stays over budget with a warning, never cut."""
        files = [*folder(3, prefix="user"), *folder(3, age=2 * DAY)]
        text = index_of(*(entry(m.name, "w " * 40) for m in files))
        result = rebuilt(text, files, 200)
        assert result.report.bytes > 200
        (warning,) = result.report.warnings
        assert (
            "over its 200-byte budget" in warning and "nothing was truncated or deleted" in warning
        )
        reasons = {k.file: k.reason for k in result.report.budget_report.remaining}
        assert reasons["user_00.md"] == "user_* files never move"
        assert reasons["project_00.md"] == "modified within 7 days"
        assert {e.file for e in parse_index(result.new_index).entries} == {m.name for m in files}

    def test_moves_can_be_turned_off(self) -> None:
        """``archive_moves=False`` moves nothing and lists the candidates in the warning."""
        files = folder(6)
        result = rebuilt(
            index_of(*(entry(m.name, "w " * 30) for m in files)), files, 300, moves=False
        )
        assert result.new_archive is None
        assert "archive moves were not allowed" in result.report.warnings[0]

    def test_budget_override(self) -> None:
        """The budget is a parameter: the same index fits one and not another."""
        files = folder(3)
        text = index_of(*(entry(m.name) for m in files))
        assert rebuilt(text, files, 10_000).report.budget == 10_000
        assert rebuilt(text, files, 10_000).new_index == text
        assert rebuilt(text, files, 300).new_index != text

    def test_second_run_after_moves_is_a_no_op(self) -> None:
        """Rebuilding the moved index and archive again changes neither."""
        files = folder(10)
        first = rebuilt(index_of(*(entry(m.name, "w " * 30) for m in files)), files, 600)
        second = rebuilt(first.new_index, files, 600, archive=first.new_archive)
        assert (second.new_index, second.new_archive) == (first.new_index, first.new_archive)
        assert second.report.budget_report.moved == ()

    def test_second_run_when_still_over_is_a_no_op(self) -> None:
        """Even when the index cannot fit, a second rebuild gives the same bytes."""
        files = [*folder(3, prefix="user"), *folder(6)]
        first = rebuilt(index_of(*(entry(m.name, "w " * 40) for m in files)), files, 300)
        second = rebuilt(first.new_index, files, 300, archive=first.new_archive)
        assert (second.new_index, second.new_archive) == (first.new_index, first.new_archive)

    def test_long_entries_are_reported(self) -> None:
        """Entries over 400 characters are listed in the budget report."""
        files = folder(2)
        text = index_of(entry(files[0].name, "w " * 250), entry(files[1].name, "short"))
        assert rebuilt(text, files, 100_000).report.budget_report.long_entries == (files[0].name,)

    def test_fit_budget_is_pure(self) -> None:
        """fit_budget works on parsed data and never needs a folder."""
        files = folder(4)
        index = parse_index(index_of(*(entry(m.name, "w " * 30) for m in files)))
        fitted = fit_budget(index, None, {m.name: m for m in files}, budget=300, now=NOW)
        assert fitted.report.bytes == nbytes(fitted.index.render())


def rebuild_with_moves(text: str, files: list[MemoryFile], budget: int, moves: int) -> int:
    """Size of the index when only the first ``moves`` candidates may move."""
    index = parse_index(text)
    candidates, _ = move_candidates(index, {m.name: m for m in files}, NOW)
    allowed = {c.file for c in candidates[:moves]}
    movable = [m if m.name in allowed else _recent(m) for m in files]
    return rebuilt(text, movable, budget).report.bytes


def _recent(file: MemoryFile) -> MemoryFile:
    """The same file, modified an hour ago (so it may not move)."""
    return memory(file.name, type=file.type, age=timedelta(hours=1))


# --------------------------------------------------------------------------- invariant


class TestInvariant:
    def test_holds(self) -> None:
        """Index plus archive equals the files, disjoint, one trailer: no problems."""
        index = index_of(entry("a.md"), "", trailer_text(1))
        archive = "# Memory archive\n\n- [b](b.md) — x\n"
        report = check_invariant(
            index, archive, ["a.md", "b.md", "MEMORY.md", "MEMORY-ARCHIVE.md", ".MEMORY.md.prev"]
        )
        assert report.ok and report.problems == ()

    def test_a_file_in_neither_breaks_it(self) -> None:
        """A topic file linked from neither file is reported."""
        report = check_invariant(index_of(entry("a.md")), None, ["a.md", "b.md"])
        assert report.not_indexed == ("b.md",) and not report.ok

    def test_a_link_in_the_wrong_case_breaks_it(self) -> None:
        """Targets must name a file with its exact case."""
        report = check_invariant(index_of(entry("A.md")), None, ["a.md"])
        assert report.dangling == ("A.md",) and report.not_indexed == ("a.md",)

    def test_the_sets_must_be_disjoint(self) -> None:
        """A file indexed in both MEMORY.md and the archive is reported."""
        index = index_of(entry("a.md"), "", trailer_text(1))
        report = check_invariant(index, "- [a](a.md)\n", ["a.md"])
        assert report.in_both == ("a.md",)

    def test_a_file_indexed_twice_breaks_it(self) -> None:
        """Two entries for one file in one index are reported."""
        report = check_invariant(index_of(entry("a.md"), entry("a.md")), None, ["a.md"])
        assert report.repeated == ("a.md",)

    @pytest.mark.parametrize(
        ("trailers", "archive", "ok"),
        [(0, None, True), (1, "", True), (0, "", False), (2, "", False), (1, None, False)],
    )
    def test_exactly_one_trailer_when_an_archive_exists(
        self, trailers: int, archive: str | None, ok: bool
    ) -> None:
        """One trailer with an archive, none without."""
        text = index_of(entry("a.md"), *([trailer_text(0)] * trailers))
        assert check_invariant(text, archive, ["a.md"]).ok is ok

    def test_prose_mentions_do_not_count(self) -> None:
        """A file only mentioned in prose is not indexed."""
        report = check_invariant("# M\n\nsee [a](a.md) for more\n", None, ["a.md"])
        assert report.not_indexed == ("a.md",)

    def test_from_disk_ignores_trash_backup_and_prev(self, tmp_path: Path) -> None:
        """On disk, ``.trash/``, ``_backup/`` and ``.MEMORY.md.prev`` are not topic files."""
        (tmp_path / "a.md").write_text("a")
        (tmp_path / "b.md").write_text("b")
        (tmp_path / ".MEMORY.md.prev").write_text(index_of(entry("old.md")))
        for sub in (".trash/2026-11-30", "_backup"):
            (tmp_path / sub).mkdir(parents=True)
            (tmp_path / sub / "old.md").write_text("old")
        (tmp_path / "MEMORY.md").write_text(index_of(entry("a.md"), "", trailer_text(1)))
        (tmp_path / "MEMORY-ARCHIVE.md").write_text("# Memory archive\n\n- [b](b.md) — x\n")
        assert invariant_from_disk(tmp_path).ok
        (tmp_path / "c.md").write_text("c")
        assert invariant_from_disk(tmp_path).not_indexed == ("c.md",)

    def test_from_disk_without_index(self, tmp_path: Path) -> None:
        """A folder with topic files and no MEMORY.md fails: nothing is indexed."""
        (tmp_path / "a.md").write_text("a")
        assert invariant_from_disk(tmp_path).not_indexed == ("a.md",)


class TestLineLimit:
    """Issue 12 item 7: Claude Code loads 200 lines; the index fits them, trailer included."""

    def test_many_short_entries_move_until_200_lines_fit(self) -> None:
        """250 short entries are far under the byte budget, yet 50 and more must move."""
        files = [memory(f"feedback_{k:03d}.md", type="feedback") for k in range(250)]
        text = index_of(*(f"- [F{k}](feedback_{k:03d}.md) — x" for k in range(250)))
        assert len(text.encode()) < DEFAULT_BUDGET_BYTES
        result = rebuilt(text, files, DEFAULT_BUDGET_BYTES)
        lines = result.new_index.splitlines()
        assert len(lines) <= 200
        assert lines[-1] == trailer_text(result.report.archived)
        assert result.report.budget_report.fits and result.report.invariant_ok
        assert result.report.warnings == ()

    def test_an_index_that_cannot_fit_200_lines_says_why(self) -> None:
        """Prose alone over 200 lines: nothing can move it, the report says so."""
        files = [memory("feedback_a.md", type="feedback")]
        text = index_of(*(f"note line {k}" for k in range(230)), entry("feedback_a.md"))
        result = rebuilt(text, files, DEFAULT_BUDGET_BYTES)
        (warning,) = result.report.warnings
        assert "over the 200 Claude Code loads" in warning
        assert "cannot move" in warning
        assert not result.report.budget_report.fits

    @pytest.mark.fixtures
    def test_the_real_over_limit_index_ends_within_200_lines(self) -> None:
        """1000ssam's 249-line index: rebuilt within 200 lines, the trailer the last of them."""
        source = SHARED_FIXTURES / "memory" / "1000ssam__claude-config__memory"
        if not source.is_dir():
            pytest.skip("shared memory fixtures not found")
        folder = load_folder(source, None)
        old = [replace(m, mtime=NOW - timedelta(days=90)) for m in folder.files]
        result = rebuilt(folder.index_text, old, DEFAULT_BUDGET_BYTES)
        lines = result.new_index.splitlines()
        assert len(lines) <= 200
        assert lines[-1].startswith("> ") and "MEMORY-ARCHIVE.md" in lines[-1]
        assert result.report.invariant_ok
