"""MEMORY.md parsing and rebuild (seed 000 STEP 5, issue 3 item 7)."""

from __future__ import annotations

import hashlib
import re
import shutil
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.dream.folder.index import Rebuilt, rebuild, restructure
from dreamd.dream.folder.indexfile import (
    Index,
    find_links,
    is_topic_file_name,
    parse_index,
    parse_line,
    topic_target,
)
from dreamd.dream.folder.invariant import check_invariant, invariant_from_disk
from dreamd.dream.folder.orphans import type_heading
from dreamd.dream.model import MEMORY_TYPES, MemoryFile
from tests.conftest import SHARED_FIXTURES
from tests.dream.factories import NOW, memory

BIG = 1_000_000  # a budget nothing reaches, to test the structural rules alone


def rebuilt(
    text: str | None,
    files: list[MemoryFile],
    *,
    archive: str | None = None,
    trashed: tuple[str, ...] = (),
    budget: int = BIG,
    title: str = "proj",
) -> Rebuilt:
    """Rebuild with the test clock."""
    return rebuild(
        text, archive, files, folder_title=title, trashed=trashed, budget=budget, now=NOW
    )


def lines_of(text: str) -> list[str]:
    """The lines of a text, without line endings."""
    return text.splitlines()


# --------------------------------------------------------------------------- parsing


class TestParse:
    @pytest.mark.parametrize(
        "text",
        [
            "",
            "# Memory\n",
            "# Memory",
            "# Memory\r\n\r\n- [A](a.md) — x\r\n",
            "\ufeff# Memory\n- [A](a.md)\n",
            "prose\n\n\n```\n- [A](a.md)\n```\n  trailing spaces  \n",
        ],
    )
    def test_render_gives_back_the_bytes(self, text: str) -> None:
        """Parse then render gives the input back (line endings, BOM, no final newline)."""
        assert parse_index(text).render() == text

    @pytest.mark.parametrize(
        ("line", "file", "hook", "separator"),
        [
            ("- [Title](file.md) — hook words", "file.md", "hook words", " — "),
            ("- [Title](file.md) -- hook words", "file.md", "hook words", " -- "),
            ("- [Title](file.md): hook words", "file.md", "hook words", ": "),
            ("- [Title](file.md) \u2013 hook", "file.md", "hook", " \u2013 "),
            ("- [Title](file.md)", "file.md", "", ""),
            ("- **[Title](file.md)** — hook", "file.md", "hook", " — "),
            ("* [Title](file.md) — hook", "file.md", "hook", " — "),
            ("1. [Title](file.md) — hook", "file.md", "hook", " — "),
            ("  - [Title](file.md) — nested", "file.md", "nested", " — "),
            (
                "- [feedback_x.md](feedback_x.md) — title is the name",
                "feedback_x.md",
                "title is the name",
                " — ",
            ),
            ("- [x](./file.md#part) — anchor", "file.md", "anchor", " — "),
            ("- [x](<my file.md>) — spaces", "my file.md", "spaces", " — "),
            ("- [x](my%20file.md)", "my file.md", "", ""),
            ('- [x](file.md "a title") — t', "file.md", "t", " — "),
        ],
    )
    def test_entry_forms(self, line: str, file: str, hook: str, separator: str) -> None:
        """Every real entry form parses as an entry with its file, hook and separator."""
        parsed = parse_line(line)
        assert parsed.kind == "entry"
        assert parsed.entry is not None
        assert parsed.entry.file == file
        assert parsed.entry.hook == hook
        assert parsed.entry.separator == separator
        assert parsed.entry.head + parsed.entry.hook == line

    @pytest.mark.parametrize(
        "line",
        [
            '- [$ partial: result[["error"]]; empty list() ≠ NULL](r-partial-matching.md)',
            "- [Slug convention: filename ≡ name: ≡ [[link]], snake_case](feedback_slug.md)",
            r"- [a \] escaped](a.md) — hook",
        ],
    )
    def test_labels_with_nested_brackets_are_entries(self, line: str) -> None:
        """Titles holding ``[[...]]`` or escaped brackets still make an entry (RApplication)."""
        assert parse_line(line).kind == "entry"

    @pytest.mark.parametrize(
        "line",
        [
            "- **[CLAUDE.md](../../CLAUDE.md)** — Quick start",
            "- **[.claude/memory/](MEMORY.md)** — This directory",
            "- **[docs/](../../docs/)** — guides",
            "See [ephemeral/](ephemeral/) — not committed.",
            "- [site](https://example.com/x.md) — web",
            "- [sub](sub/x.md) — a subfolder",
            "- [archive](MEMORY-ARCHIVE.md)",
            "- [picture](diagram.png)",
            "- ![img](a.md)",
            "- text first, then [A](a.md)",
            "- [[a]] wikilink only",
            "Plain prose with [A](a.md) inside.",
        ],
    )
    def test_lines_that_are_not_entries(self, line: str) -> None:
        """Links out of the folder, to directories, MEMORY*.md, images or in prose: no entry."""
        assert parse_line(line).kind == "text"

    def test_prose_links_are_mentions(self) -> None:
        """A topic link inside prose is recorded as a mention of that file."""
        line = parse_line("- remote wired ([detail](a.md)); [policy](b.md) — tracks docx")
        assert line.mentions == ("a.md", "b.md")

    def test_other_links_of_an_entry_are_mentions(self) -> None:
        """An entry's later links are mentions; the opening one is the entry."""
        line = parse_line("- [A](a.md) — see also ([nuance](b.md))")
        assert line.entry is not None and line.entry.file == "a.md"
        assert line.mentions == ("b.md",)

    def test_code_blocks_are_opaque(self) -> None:
        """Links and headings inside a fenced block are neither entries nor headings."""
        index = parse_index("# T\n```md\n# not a heading\n- [A](a.md)\n```\n- [B](b.md)\n")
        assert [line.kind for line in index.lines] == [
            "title",
            "code",
            "code",
            "code",
            "code",
            "entry",
        ]

    def test_title_is_only_the_opening_heading(self) -> None:
        """Only a level-1 heading before any content is the title."""
        index = parse_index("\n# Title\n\nprose\n# Second\n")
        assert [line.kind for line in index.lines] == ["blank", "title", "blank", "text", "heading"]

    def test_trailer_needs_the_archive_link(self) -> None:
        """``> N memory files`` linking MEMORY-ARCHIVE.md is the trailer; other quotes are text."""
        assert (
            parse_line("> 3 memory files are archived in [A](MEMORY-ARCHIVE.md).").kind == "trailer"
        )
        assert parse_line("> 3 memory files are elsewhere.").kind == "text"

    def test_wikilinks_are_collected(self) -> None:
        """``[[stem]]``, ``[[stem|alias]]`` and ``[[stem.md]]`` give the stem."""
        line = parse_line("see [[alpha]], [[beta|B]] and [[gamma.md]]")
        assert line.wikilinks == ("alpha", "beta", "gamma")

    @pytest.mark.parametrize(
        ("target", "expected"),
        [
            ("a.md", "a.md"),
            ("./a.md", "a.md"),
            ("a.md#x", "a.md"),
            ("<a b.md>", "a b.md"),
            ("../a.md", None),
            ("docs/", None),
            ("x/a.md", None),
            ("https://h/a.md", None),
            ("MEMORY.md", None),
            ("memory.md", None),
            ("MEMORY-ARCHIVE.md", None),
            ("a.txt", None),
        ],
    )
    def test_topic_target(self, target: str, expected: str | None) -> None:
        """Only a ``.md`` file of this folder that is not an index is a topic target."""
        assert topic_target(target) == expected

    def test_topic_file_names(self) -> None:
        """MEMORY*.md and hidden files are not topic files."""
        names = ["a.md", "MEMORY.md", "MEMORY-ARCHIVE.md", ".MEMORY.md.prev", "memory_tips.md"]
        assert [n for n in names if is_topic_file_name(n)] == ["a.md", "memory_tips.md"]


# --------------------------------------------------------------------------- rules


class TestDeadLinks:
    def test_entries_to_gone_files_are_dropped(self) -> None:
        """Entries whose file was trashed or is missing go; the report says which and why."""
        text = "# M\n\n- [A](a.md) — kept\n- [B](b.md) — trashed\n- [C](c.md) — missing\n"
        result = rebuilt(text, [memory("a.md")], trashed=("b.md",))
        assert lines_of(result.new_index) == ["# M", "", "- [A](a.md) — kept"]
        dropped = {d.file: d.reason for d in result.report.dead_links_dropped}
        assert dropped == {"b.md": "trashed", "c.md": "missing"}

    def test_prose_mentioning_a_gone_file_is_kept_and_reported(self) -> None:
        """A prose line linking a gone file stays as written and is reported."""
        prose = "- Scoring fixed, see [gate memory](gone.md) for details."
        text = f"# M\n\n## Notes\n{prose}\n"
        result = rebuilt(text, [], trashed=("gone.md",))
        assert prose in lines_of(result.new_index)
        assert [d.file for d in result.report.dead_mentions] == ["gone.md"]
        assert result.report.dead_links_dropped == ()

    def test_dead_links_in_the_archive_are_dropped(self) -> None:
        """An archive entry whose file is gone is dropped from the archive."""
        archive = "# Memory archive\n\n- [A](a.md) — old\n- [B](b.md) — gone\n"
        result = rebuilt("# M\n", [memory("a.md")], archive=archive)
        assert result.new_archive is not None
        assert "- [B](b.md) — gone" not in lines_of(result.new_archive)
        assert [d.where for d in result.report.dead_links_dropped] == ["MEMORY-ARCHIVE.md"]

    def test_case_is_corrected_to_the_file_on_disk(self) -> None:
        """An entry written in another case points at the exact file name afterwards."""
        result = rebuilt("# M\n\n- [A](./Feedback_X.md#why) — x\n", [memory("feedback_x.md")])
        assert "- [A](./feedback_x.md#why) — x" in lines_of(result.new_index)
        assert result.report.case_fixed == ("feedback_x.md",)
        assert result.report.invariant_ok


class TestDuplicates:
    def test_the_first_entry_wins(self) -> None:
        """Two entries for one file collapse to the first; the second is reported with its text."""
        text = "# M\n\n## A\n- [X](x.md) — remote wired\n## B\n- [X](x.md) — no origin\n"
        result = rebuilt(text, [memory("x.md")])
        assert lines_of(result.new_index) == [
            "# M",
            "",
            "## A",
            "- [X](x.md) — remote wired",
            "## B",
        ]
        (dup,) = result.report.duplicates_collapsed
        assert (dup.file, dup.line) == ("x.md", "- [X](x.md) — no origin")

    def test_the_index_wins_over_the_archive(self) -> None:
        """A file indexed in both files keeps its MEMORY.md entry; the archive copy goes."""
        archive = "# Memory archive\n\n- [X](x.md) — archived\n"
        result = rebuilt("# M\n\n- [X](x.md) — live\n", [memory("x.md")], archive=archive)
        assert result.new_archive is not None
        assert "- [X](x.md) — archived" not in result.new_archive
        assert result.report.invariant_ok

    def test_a_prose_mention_is_not_a_duplicate(self) -> None:
        """A file both mentioned in prose and listed as an entry keeps both lines."""
        text = "# M\n\n## Notes\n- Fixed, see [gate](g.md).\n\n## Projects\n- [Gate](g.md) — x\n"
        result = rebuilt(text, [memory("g.md")])
        assert result.new_index == text
        assert result.report.duplicates_collapsed == ()


class TestOrphans:
    SECTIONED = (
        "# M\n\nIntro prose.\n\n"
        "## User Preferences\n- [U](user_a.md) — u\n\n"
        "## Feedback\n- [F](feedback_a.md) — f\n\n"
        "## Notes\n- a plain note\n"
    )

    def files(self, *extra: MemoryFile) -> list[MemoryFile]:
        """The files the sectioned index links, plus ``extra``."""
        base = [memory("user_a.md", type="user"), memory("feedback_a.md", type="feedback")]
        return [*base, *extra]

    def test_orphan_goes_to_the_end_of_its_type_section(self) -> None:
        """A feedback orphan lands after the last line of ``## Feedback``, before the blank line."""
        orphan = memory("feedback_b.md", type="feedback", title="B", description="a lesson")
        result = rebuilt(self.SECTIONED, self.files(orphan))
        lines = lines_of(result.new_index)
        at = lines.index("- [F](feedback_a.md) — f")
        assert lines[at + 1 : at + 3] == ["- [B](feedback_b.md) — a lesson", ""]
        assert result.report.orphans_linked == ("feedback_b.md",)

    def test_heading_with_filler_words_receives_its_type(self) -> None:
        """``## User Preferences`` receives user orphans."""
        orphan = memory("user_b.md", type="user", title="UB", description="d")
        lines = lines_of(rebuilt(self.SECTIONED, self.files(orphan)).new_index)
        assert lines[lines.index("- [U](user_a.md) — u") + 1] == "- [UB](user_b.md) — d"

    def test_exact_type_heading_beats_a_longer_one(self) -> None:
        """``## User`` wins over ``## User Preferences`` even when it comes later."""
        index = parse_index("# M\n## User Preferences\n- x\n## User\n- y\n")
        assert type_heading(index, "user") == 3

    def test_heading_about_something_else_does_not_count(self) -> None:
        """``## Project Purpose`` is not a type heading; a project orphan goes to Unsorted."""
        text = "# M\n\n## Project Purpose\n- advisory work\n"
        orphan = memory("project_x.md", title="X", description="d")
        lines = lines_of(rebuilt(text, [orphan]).new_index)
        assert lines[-2:] == ["## Unsorted", "- [X](project_x.md) — d"]

    def test_orphans_without_a_heading_go_under_unsorted_at_the_end(self) -> None:
        """Orphans of a type with no heading, or with no type, go under one new ``## Unsorted``."""
        orphans = [
            memory("zeta.md", type=None, title=None, body="# Landing plan\nbody"),
            memory("project_b.md", title="B", description="pb"),
        ]
        lines = lines_of(rebuilt(self.SECTIONED, self.files(*orphans)).new_index)
        assert lines[-5:] == [
            "- a plain note",
            "",
            "## Unsorted",
            "- [B](project_b.md) — pb",
            "- [zeta](zeta.md) — Landing plan",
        ]

    def test_an_existing_unsorted_heading_is_reused(self) -> None:
        """A second orphan later joins the Unsorted section the first one created."""
        first = rebuilt(self.SECTIONED, self.files(memory("project_b.md", title="B"))).new_index
        files = self.files(memory("project_b.md", title="B"), memory("project_c.md", title="C"))
        lines = lines_of(rebuilt(first, files).new_index)
        assert lines.count("## Unsorted") == 1
        assert parse_index("\n".join(lines[-2:])).entries[0].file == "project_b.md"
        assert parse_index("\n".join(lines[-2:])).entries[1].file == "project_c.md"

    def test_new_entries_use_the_separator_the_index_uses(self) -> None:
        """Where entries use ``--``, a new one does too; a new index uses Claude Code's ``—``."""
        orphan = memory("feedback_b.md", type="feedback", title="B", description="d")
        dashed = "# M\n\n- [A](a.md) -- x\n"
        assert "- [B](feedback_b.md) -- d" in rebuilt(dashed, [memory("a.md"), orphan]).new_index
        assert "- [B](feedback_b.md) — d" in rebuilt(None, [orphan]).new_index

    def test_every_orphan_is_linked_exactly_once(self) -> None:
        """After the rebuild each surviving file has exactly one entry."""
        files = self.files(*(memory(f"project_{n}.md") for n in "abc"))
        result = rebuilt(self.SECTIONED, files)
        counts = Counter(e.file for e in parse_index(result.new_index).entries)
        assert counts == Counter({m.name: 1 for m in files})


class TestPlainList:
    def test_plain_list_is_rebuilt_alphabetically(self) -> None:
        """A title plus entries becomes the seed's form: title, blank, entries by file name."""
        text = "# Memory\n- [Z](zeta.md) — z\n\n- [A](alpha.md) — a\n- [M](Mid.md) — m\n"
        files = [
            memory("zeta.md"),
            memory("alpha.md"),
            memory("Mid.md"),
            memory("beta.md", title="Beta", description="new"),
        ]
        result = rebuilt(text, files)
        assert lines_of(result.new_index) == [
            "# Memory",
            "",
            "- [A](alpha.md) — a",
            "- [Beta](beta.md) — new",
            "- [M](Mid.md) — m",
            "- [Z](zeta.md) — z",
        ]
        assert result.report.plain_list

    def test_missing_index_is_written_in_the_seed_form(self) -> None:
        """Without MEMORY.md the index is ``# <folder> Memory`` then one ``—`` line per file."""
        files = [
            memory("b.md", title="B", description="two"),
            memory("a.md", title="A", description="one"),
        ]
        result = rebuilt(None, files, title="reviewer-performance")
        assert result.new_index == (
            "# reviewer-performance Memory\n\n- [A](a.md) — one\n- [B](b.md) — two\n"
        )

    def test_a_healthy_list_is_not_re_sorted_for_its_own_sake(self) -> None:
        """Seed 004: nothing to repair, nothing to add: the user's order stays, byte for byte."""
        text = "# Memory\n\n- [Z](zeta.md) — z\n- [A](alpha.md) — a\n"
        result = rebuilt(text, [memory("zeta.md"), memory("alpha.md")])
        assert result.new_index == text

    def test_plain_list_without_title_gets_the_seed_title(self) -> None:
        """Entries with no title get ``# <folder> Memory`` above them."""
        result = rebuilt("- [A](a.md) — x\n", [memory("a.md")], title="proj")
        assert lines_of(result.new_index) == ["# proj Memory", "", "- [A](a.md) — x"]

    def test_sectioned_index_keeps_its_order(self) -> None:
        """Entries of a sectioned index stay where the user put them, not sorted."""
        text = "# M\n\n## Later\n- [Z](z.md) — z\n- [A](a.md) — a\n"
        result = rebuilt(text, [memory("z.md"), memory("a.md")])
        assert result.new_index == text
        assert not result.report.plain_list


class TestUserWords:
    def test_single_file_memory_is_untouched(self) -> None:
        """An old-style index with only prose and no topic files is returned as it was."""
        text = "# P Memory\n\n## Known Issues\n- thing one\n1. **bold** item\n\n```sh\nmake\n```\n"
        assert rebuilt(text, []).new_index == text

    def test_links_outside_the_folder_are_left_alone(self) -> None:
        """External, directory and self links are kept byte for byte."""
        text = (
            "# Memory Index\n\n"
            "- **[CLAUDE.md](../../CLAUDE.md)** — Quick start\n"
            "- **[.claude/memory/](MEMORY.md)** — This directory\n"
            "- **[docs/](../../docs/)** — guides\n"
            "See [ephemeral/](ephemeral/) — not committed.\n"
        )
        assert rebuilt(text, []).new_index == text

    def test_wikilinks_to_trashed_memories_are_reported(self) -> None:
        """``[[stem]]`` to a trashed file, in the index or a survivor, is reported, not changed."""
        text = "# M\n\n- [A](a.md) — see [[old_note]]\n"
        survivor = memory("a.md", body="Related: [[old_note|the old one]] and [[a]].")
        result = rebuilt(text, [survivor], trashed=("old_note.md",))
        assert {(w.source, w.stem) for w in result.report.wikilinks_to_trashed} == {
            ("MEMORY.md", "old_note"),
            ("a.md", "old_note"),
        }
        assert "[[old_note]]" in result.new_index

    def test_json_summary(self) -> None:
        """The report gives the JSON contract's index object."""
        result = rebuilt("# M\n\n- [A](a.md) — x\n", [memory("a.md")], budget=17_408)
        assert result.report.as_json() == {
            "bytes": len(result.new_index.encode()),
            "budget": 17_408,
            "entries": 1,
            "archived": 0,
            "invariant_ok": True,
        }


# --------------------------------------------------------------------------- idempotence

_NAMES = [f"{kind}_{n}.md" for kind in ("feedback", "project", "reference", "user") for n in "ab"]
_LINE = st.one_of(
    st.sampled_from(["", "## Feedback", "## Notes", "## Policy", "prose line", "- a plain bullet"]),
    st.sampled_from(["- [ext](../x.md) — out", "```", "- see [[feedback_a]]", "> quoted"]),
    st.builds(
        lambda name, hook, bold: f"- {'**' if bold else ''}[T]({name}){'**' if bold else ''}{hook}",
        st.sampled_from([*_NAMES, "gone.md", "Project_A.md"]),
        st.sampled_from(
            ["", " — short hook", " -- a much longer hook, with clauses; and more words"]
        ),
        st.booleans(),
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_LINE, max_size=14),
    title=st.booleans(),
    keep=st.sets(st.sampled_from(_NAMES)),
    ages=st.lists(
        st.integers(min_value=0, max_value=90), min_size=len(_NAMES), max_size=len(_NAMES)
    ),
    budget=st.sampled_from([120, 300, 600, BIG]),
)
def test_second_rebuild_is_a_no_op(
    lines: list[str], title: bool, keep: set[str], ages: list[int], budget: int
) -> None:
    """Rebuilding the output again gives the same bytes, and the invariant holds every time."""
    text = "\n".join((["# T"] if title else []) + lines) + "\n"
    files = [
        memory(name, type=name.split("_")[0], age=timedelta(days=age))  # type: ignore[arg-type]
        for name, age in zip(_NAMES, ages, strict=True)
        if name in keep
    ]
    first = rebuilt(text, files, budget=budget)
    second = rebuilt(first.new_index, files, archive=first.new_archive, budget=budget)
    assert (second.new_index, second.new_archive) == (first.new_index, first.new_archive)
    assert first.report.invariant_ok, first.report.invariant.problems


# --------------------------------------------------------------------------- real folders

MEMORY_FIXTURES = SHARED_FIXTURES / "memory"
REAL_FOLDERS = (
    sorted(p.name for p in MEMORY_FIXTURES.iterdir() if p.is_dir())
    if MEMORY_FIXTURES.is_dir()
    else []
)
OLD = timedelta(days=60)


def _front_matter_value(block: str, key: str) -> str | None:
    """A scalar from front matter, top level or indented under ``metadata:``."""
    found = re.search(rf"^[ \t]*{key}:[ \t]*(.*?)[ \t]*$", block, re.MULTILINE)
    if found is None:
        return None
    value = found.group(1)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value or None


def real_folder_files(folder: Path, *, age: timedelta = OLD) -> list[MemoryFile]:
    """The topic files of a real folder as MemoryFile objects, all ``age`` old."""
    files = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or not is_topic_file_name(path.name):
            continue
        text = path.read_text(encoding="utf-8")
        block, body = "", text
        matter = re.match(r"---\r?\n(.*?)\r?\n---\r?\n?", text, re.DOTALL)
        if matter:
            block, body = matter.group(1), text[matter.end() :]
        kind = _front_matter_value(block, "type")
        files.append(
            MemoryFile(
                path=path,
                name=path.name,
                title=_front_matter_value(block, "name"),
                description=_front_matter_value(block, "description"),
                type=kind if kind in MEMORY_TYPES else None,  # type: ignore[arg-type]
                has_front_matter=matter is not None,
                front_matter={},
                body=body,
                mtime=NOW - age,
                size=len(text.encode()),
                sha256=hashlib.sha256(text.encode()).hexdigest(),
            )
        )
    return files


@pytest.fixture
def real_copy(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A writable copy of one real memory folder (the originals are read-only)."""
    source = MEMORY_FIXTURES / str(request.param)
    if not source.is_dir():
        pytest.skip(f"shared memory fixtures not found at {MEMORY_FIXTURES}")
    target = tmp_path / "memory"
    shutil.copytree(source, target)
    for path in target.iterdir():
        path.chmod(0o644)
    return target


def rebuild_folder(folder: Path, *, age: timedelta = OLD) -> tuple[str, list[MemoryFile], Rebuilt]:
    """Rebuild a folder's index with default budget; return the old text, files and result."""
    text = (folder / "MEMORY.md").read_text(encoding="utf-8")
    files = real_folder_files(folder, age=age)
    return text, files, rebuild(text, None, files, folder_title=folder.name, budget=17_408, now=NOW)


def assert_user_lines_kept(original: str, result: Rebuilt) -> None:
    """No line the user wrote is gone, except dead or duplicate entries (which are reported).

    Non-entry lines keep their text and order; entries stay (hook possibly
    shortened, head unchanged) or move verbatim to the archive.
    """
    before, after = parse_index(original), parse_index(result.new_index)
    archive = parse_index(result.new_archive or "")
    ours = {"## Unsorted"} - {line.text for line in before.lines}

    def prose(index: Index) -> list[str]:
        return [line.text for line in index.lines if line.kind not in ("entry", "blank", "trailer")]

    assert [t for t in prose(after) if t not in ours] == prose(before)
    dropped = {
        d.line for d in result.report.dead_links_dropped + result.report.duplicates_collapsed
    }
    archived = {line.text for line in archive.lines}
    now_in_index = {e.file: e for e in after.entries}
    for line in before.lines:
        if line.entry is None or line.text in dropped or line.text in archived:
            continue
        entry = now_in_index[line.entry.file]
        assert entry.head == line.entry.head
        kept = entry.hook.removesuffix("…").rstrip()
        assert entry.hook == line.entry.hook or line.entry.hook.startswith(kept)


def external_links(text: str) -> Counter[str]:
    """Every link that does not name a topic file, with how often it occurs."""
    return Counter(
        f"[{link.label}]({link.target})"
        for line in text.splitlines()
        for link in find_links(line)
        if topic_target(link.target) is None and "MEMORY-ARCHIVE.md" not in link.target
    )


@pytest.mark.fixtures
@pytest.mark.parametrize("real_copy", REAL_FOLDERS, indirect=True)
class TestRealFolders:
    def test_each_file_has_exactly_one_entry(self, real_copy: Path) -> None:
        """After the rebuild every topic file is indexed once across MEMORY.md and the archive."""
        _, files, result = rebuild_folder(real_copy)
        entries = Counter(e.file for e in parse_index(result.new_index).entries)
        entries.update(e.file for e in parse_index(result.new_archive or "").entries)
        assert entries == Counter({m.name: 1 for m in files})

    def test_invariant_holds_on_disk(self, real_copy: Path) -> None:
        """Written to the copied folder, the two-file invariant holds from disk."""
        _, _, result = rebuild_folder(real_copy)
        (real_copy / "MEMORY.md").write_text(result.new_index, encoding="utf-8")
        if result.new_archive is not None:
            (real_copy / "MEMORY-ARCHIVE.md").write_text(result.new_archive, encoding="utf-8")
        assert result.report.invariant_ok
        assert invariant_from_disk(real_copy).ok, invariant_from_disk(real_copy).problems

    def test_no_user_line_is_lost(self, real_copy: Path) -> None:
        """Every line the user wrote survives, except dead or duplicate entries."""
        text, _, result = rebuild_folder(real_copy)
        assert_user_lines_kept(text, result)

    def test_second_rebuild_is_identical(self, real_copy: Path) -> None:
        """A second rebuild of the output changes nothing (the second dream is a no-op)."""
        _, files, first = rebuild_folder(real_copy)
        second = rebuild(
            first.new_index, first.new_archive, files, folder_title="x", budget=17_408, now=NOW
        )
        assert (second.new_index, second.new_archive) == (first.new_index, first.new_archive)

    def test_external_links_are_untouched(self, real_copy: Path) -> None:
        """Links leaving the folder are all still there, unchanged."""
        text, _, result = rebuild_folder(real_copy)
        assert external_links(result.new_index) == external_links(text)

    def test_fits_or_says_why(self, real_copy: Path) -> None:
        """The index fits the default budget, or a warning explains why not."""
        _, _, result = rebuild_folder(real_copy)
        assert result.report.bytes <= 17_408 or result.report.warnings


def _real(name: str) -> Path:
    folder = MEMORY_FIXTURES / name
    if not folder.is_dir():
        pytest.skip(f"shared memory fixture {name} not found")
    return folder


@pytest.mark.fixtures
class TestRealPitfalls:
    def test_dangling_index_drops_only_dead_links(self) -> None:
        """The partial folder's 26 links to absent files go; the 4 present stay, sorted."""
        folder = _real("BobG1983__breaker__agent-memory-reviewer-performance-partial")
        _, files, result = rebuild_folder(folder)
        assert len(result.report.dead_links_dropped) == 26
        assert {d.reason for d in result.report.dead_links_dropped} == {"missing"}
        assert [e.file for e in parse_index(result.new_index).entries] == sorted(
            m.name for m in files
        )
        assert lines_of(result.new_index)[0] == "# Memory"

    def test_flat_subagent_index_is_healthy_and_left_in_its_order(self) -> None:
        """The flat 37-link index is healthy: not re-sorted for its own sake (seed 004)."""
        folder = _real("BobG1983__breaker__agent-memory-reviewer-performance")
        text, _, result = rebuild_folder(folder)
        assert result.new_index == text
        files = [e.file for e in parse_index(result.new_index).entries]
        assert files != sorted(files, key=str.casefold)  # the user's order, kept

    @pytest.mark.parametrize(
        "name",
        [
            "ActorForth__ActorForth__claude-memory",
            "Aleslammer__deathwatch_foundryvtt__claude-memory",
            "AnotherSava__bga-assistant__claude-memory",
            "BobG1983__breaker__agent-memory-guard-game-design",
            "4444J99__application-pipeline__claude-memory",
        ],
    )
    def test_consistent_sectioned_indexes_are_unchanged(self, name: str) -> None:
        """Sectioned indexes with no dead links, orphans or overflow come back byte for byte."""
        text, _, result = rebuild_folder(_real(name))
        assert result.new_index == text
        assert result.new_archive is None

    def test_orphans_are_linked_once(self) -> None:
        """NewTrading's orphans (SOURCES.md) each get one entry; the twice-linked file keeps one."""
        folder = _real("Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading")
        _, _, result = rebuild_folder(folder)
        expected = {
            "feedback_analyze_force_all_phases.md",
            "feedback_analyze_live_oi_pull.md",
            "feedback_analyze_neutral_no_verdict_card.md",
            "feedback_analyze_neutral_stance.md",
            "feedback_no_approval_prompts.md",
            "feedback_simplicity_over_complexity.md",
            "ibkr_fx_exposure.md",
            "user_trading_framework.md",
        }
        assert expected <= set(result.report.orphans_linked)
        both = parse_index(result.new_index).entries + parse_index(result.new_archive or "").entries
        assert [e.file for e in both].count("project_newtrading_remote_todo.md") == 1

    def test_over_limit_index_fits_after_shortening_and_archiving(self) -> None:
        """The 249-line / 27.7 KB index ends within 17,408 bytes, nothing deleted."""
        folder = _real("1000ssam__claude-config__memory")
        text, files, result = rebuild_folder(folder)
        assert len(text.encode()) > 27_000
        assert result.report.bytes <= 17_408
        assert result.report.archived > 0 and result.report.budget_report.shortened
        assert [d.file for d in result.report.dead_links_dropped] == ["project_book-writer.md"]
        assert result.report.orphans_linked == ("notiontalk-landing-strategy.md",)
        assert check_invariant(result.new_index, result.new_archive, [m.name for m in files]).ok

    def test_over_limit_index_of_recent_files_warns(self) -> None:
        """When every file changed this week nothing may move: a warning, never truncation."""
        folder = _real("1000ssam__claude-config__memory")
        _, files, result = rebuild_folder(folder, age=timedelta(days=1))
        assert result.report.bytes > 17_408
        assert result.new_archive is None
        (warning,) = result.report.warnings
        assert "over its 17,408-byte budget" in warning and "modified within 7 days" in warning
        assert result.report.invariant_ok
        assert {e.file for e in parse_index(result.new_index).entries} == {m.name for m in files}


def test_index_object_is_frozen() -> None:
    """Parsed indexes are immutable, so a rule cannot change its input."""
    index = parse_index("# M\n")
    with pytest.raises(AttributeError):
        index.lines = ()  # type: ignore[misc]
    assert isinstance(index, Index)


def test_restructure_alone_leaves_the_budget_to_its_step() -> None:
    """The structural rules do not shorten hooks; that is STEP 5.5's job."""
    long_hook = "word " * 200
    shaped = restructure(
        f"# M\n\n- [A](a.md) — {long_hook}\n", None, [memory("a.md")], folder_title="m"
    )
    assert shaped.index.entries[0].hook == long_hook


# --- the common entry line's shortcut parses as the general parser does -------------------

_BULLETS = st.sampled_from(["- ", "* ", "+ ", "1. ", "12) ", "  - ", "\t* ", "-", "- **", "-  "])
_LABEL = st.text(alphabet="Ab 1_-![]\\*é", max_size=8)
_TARGET = st.builds(
    lambda stem, ext: stem + ext,
    st.text(alphabet="ab_-1./%#?()<> \\", max_size=8),
    st.sampled_from([".md", ".MD", ".txt", "", ".md#part", '.md "title"']),
)
_REST = st.text(alphabet="ab :\u2014\u2013-[]()\\>#*.md\t", max_size=16)


@given(bullet=_BULLETS, label=_LABEL, target=_TARGET, rest=_REST, first=st.booleans())
@settings(max_examples=3000, deadline=None)
def test_the_plain_entry_shortcut_parses_every_line_as_the_general_parser(
    bullet: str, label: str, target: str, rest: str, first: bool
) -> None:
    from dreamd.dream.folder.indexfile import _parse_any_line, _parse_line

    text = f"{bullet}[{label}]({target}){rest}"
    assert _parse_line(text, first) == _parse_any_line(text, first)


def test_the_plain_entry_shortcut_agrees_on_every_real_index_line() -> None:
    """Every line of the fixture folders' indexes and archives, both ways; most take it."""
    from dreamd.dream.folder.indexfile import _PLAIN_ENTRY, _parse_any_line, _parse_line

    folder = SHARED_FIXTURES / "memory"
    if not folder.is_dir():
        pytest.skip("the shared fixtures are not here")
    lines = [
        line
        for path in sorted(folder.rglob("MEMORY*.md"))
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines()
    ]
    assert lines
    for line in lines:
        assert _parse_line(line, False) == _parse_any_line(line, False), line
    assert sum(1 for line in lines if _PLAIN_ENTRY.fullmatch(line)) > 20
