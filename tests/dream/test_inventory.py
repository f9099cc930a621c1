"""Seed 000 STEP 1: topic files of a memory folder and their front matter."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamd.dream.folder import inventory
from dreamd.dream.folder.inventory import (
    FolderUnreadable,
    is_topic_file_name,
    load_folder,
    parse_memory_file,
    split_front_matter,
)
from dreamd.dream.model import MemoryFile, MemoryFolder
from tests.conftest import SHARED_FIXTURES

MTIME = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)


def parse(text: str | bytes, name: str = "project_x.md") -> MemoryFile:
    data = text.encode() if isinstance(text, str) else text
    return parse_memory_file(Path("/mem") / name, data, MTIME)


class TestFrontMatterForms:
    def test_top_level_fields(self) -> None:
        """Top-level name, description and type are read."""
        memory = parse("---\nname: Auth flow\ndescription: How login works\ntype: project\n---\n")
        assert (memory.title, memory.description, memory.type) == (
            "Auth flow",
            "How login works",
            "project",
        )
        assert memory.has_front_matter

    def test_metadata_block_type(self) -> None:
        """A ``metadata:`` block supplies the type and keeps node_type and originSessionId."""
        memory = parse(
            "---\nname: x\ndescription: d\nmetadata:\n  node_type: memory\n"
            "  type: feedback\n  originSessionId: 89dfab34\n---\nBody\n"
        )
        assert memory.type == "feedback"
        assert memory.front_matter["metadata"] == {
            "node_type": "memory",
            "type": "feedback",
            "originSessionId": "89dfab34",
        }

    def test_metadata_with_trailing_space(self) -> None:
        """``metadata: `` with a trailing space still opens the block."""
        memory = parse("---\nname: x\nmetadata: \n  node_type: memory\n  type: reference\n---\n")
        assert memory.type == "reference"

    def test_top_level_type_wins_over_metadata(self) -> None:
        """Both present: the top-level type is the memory's type."""
        memory = parse("---\ntype: user\nmetadata:\n  type: project\n---\n")
        assert memory.type == "user"

    def test_unknown_top_level_type_falls_back_to_metadata(self) -> None:
        """An unrecognised top-level type gives way to a recognised ``metadata.type``."""
        memory = parse("---\ntype: note\nmetadata:\n  type: project\n---\n")
        assert memory.type == "project"

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("user", "user"),
            ("feedback", "feedback"),
            ("project", "project"),
            ("reference", "reference"),
            ("Feedback", "feedback"),
            (" project ", "project"),
            ("note", None),
            ("", None),
            ("[project]", None),
            ("true", None),
        ],
    )
    def test_only_the_four_types_count(self, value: str, expected: str | None) -> None:
        """Type is one of user/feedback/project/reference (any case), else None."""
        assert parse(f"---\nname: x\ntype: {value}\n---\n").type == expected

    def test_empty_name_is_no_title(self) -> None:
        """``name: ""`` gives no title, while the raw value stays in front_matter."""
        memory = parse('---\nname: ""\ndescription: d\ntype: feedback\n---\n')
        assert memory.title is None
        assert memory.front_matter["name"] == ""
        assert memory.has_front_matter

    def test_missing_description_and_type(self) -> None:
        """Front matter without description or type: both None, still front matter."""
        memory = parse('---\nname: ""\nmetadata:\n  node_type: memory\n---\nText\n')
        assert (memory.description, memory.type, memory.has_front_matter) == (None, None, True)

    def test_scalar_values_become_text(self) -> None:
        """A date or number name is kept as text; a boolean or list is no title."""
        assert parse("---\nname: 2026-03-01\n---\n").title == "2026-03-01"
        assert parse("---\nname: 42\n---\n").title == "42"
        assert parse("---\nname: yes\n---\n").title is None
        assert parse("---\nname: [a, b]\n---\n").title is None


class TestNoFrontMatter:
    def test_plain_markdown(self) -> None:
        """No block: no front matter, no type, the whole text is the body."""
        memory = parse("# Notes\n\nSee src/a.py\n")
        assert not memory.has_front_matter
        assert memory.type is None
        assert memory.front_matter == {}
        assert memory.body == "# Notes\n\nSee src/a.py\n"

    def test_unclosed_block_is_body(self) -> None:
        """An opening ``---`` without a closing line is not front matter."""
        memory = parse("---\ntype: project\nno closing line\n")
        assert not memory.has_front_matter
        assert memory.body.startswith("---\ntype: project")

    def test_block_must_open_on_first_line(self) -> None:
        """A ``---`` block after other text is not front matter."""
        assert not parse("\n---\ntype: project\n---\n").has_front_matter

    def test_empty_block(self) -> None:
        """An empty block is no front matter and the body keeps every line."""
        memory = parse("---\n---\nBody\n")
        assert not memory.has_front_matter
        assert memory.body == "---\n---\nBody\n"

    def test_yaml_list_is_no_mapping(self) -> None:
        """A block holding a YAML list is not front matter."""
        assert not parse("---\n- a\n- b\n---\nBody\n").has_front_matter

    def test_garbage_block_never_raises(self) -> None:
        """A block neither YAML nor ``key: value`` lines is no front matter, without error."""
        memory = parse("---\n[unclosed {\n---\nBody\n")
        assert not memory.has_front_matter
        assert memory.body == "---\n[unclosed {\n---\nBody\n"


class TestBrokenYaml:
    def test_colon_in_value_is_recovered(self) -> None:
        """``description: a: b`` (invalid YAML) is read as ``key: value`` lines."""
        memory = parse(
            "---\nname: Cover letter\ndescription: Standards: NYC, 1 page\ntype: feedback\n"
            "---\nBody\n"
        )
        assert memory.has_front_matter
        assert memory.type == "feedback"
        assert memory.description == "Standards: NYC, 1 page"
        assert memory.body == "Body\n"

    def test_backtick_value_and_partial_quotes(self) -> None:
        """A value opening with a backtick or a quote that does not close it is kept whole."""
        memory = parse(
            '---\nname: "Unify" directives\ndescription: `data/` is ignored\n'
            "type: feedback\noriginSessionId: 66254968\n---\n"
        )
        assert memory.title == '"Unify" directives'
        assert memory.description == "`data/` is ignored"
        assert memory.type == "feedback"

    def test_metadata_block_is_recovered(self) -> None:
        """The lenient reading keeps one level of nesting for ``metadata:``."""
        memory = parse("---\nname: a: b\nmetadata: \n  node_type: memory\n  type: project\n---\n")
        assert memory.type == "project"
        assert memory.front_matter["metadata"] == {"node_type": "memory", "type": "project"}

    def test_quoted_values_are_unquoted(self) -> None:
        """Fully quoted values lose their quotes in the lenient reading."""
        memory = parse("---\nname: 'x: y'\ndescription: \"a: b\"\nbad: : :\n---\n")
        assert (memory.title, memory.description) == ("x: y", "a: b")


class TestEncodings:
    def test_bom(self) -> None:
        """A UTF-8 BOM before ``---`` does not hide the front matter."""
        memory = parse(b"\xef\xbb\xbf---\ntype: user\n---\nHi\n")
        assert memory.type == "user"
        assert memory.body == "Hi\n"

    def test_crlf(self) -> None:
        """CRLF line ends: front matter found, body with ``\\n`` line ends."""
        memory = parse(b"---\r\nname: x\r\ntype: project\r\n---\r\nLine 1\r\nLine 2\r\n")
        assert memory.type == "project"
        assert memory.body == "Line 1\nLine 2\n"

    def test_invalid_utf8_is_replaced(self) -> None:
        """Bytes that are not UTF-8 are replaced, never an error."""
        memory = parse(b"---\nname: caf\xe9\ntype: project\n---\nna\xefve\n")
        assert memory.title == "caf\ufffd"
        assert memory.body == "na\ufffdve\n"

    def test_size_and_hash_are_of_raw_bytes(self) -> None:
        """size and sha256 describe the bytes as stored, BOM and CRLF included."""
        data = b"\xef\xbb\xbf---\r\ntype: user\r\n---\r\n"
        memory = parse(data)
        assert memory.size == len(data)
        assert memory.sha256 == hashlib.sha256(data).hexdigest()

    def test_path_name_and_mtime_are_kept(self) -> None:
        """The path, its file name and the given mtime pass through unchanged."""
        memory = parse("x", name="feedback_y.md")
        assert (memory.path, memory.name, memory.mtime) == (
            Path("/mem/feedback_y.md"),
            "feedback_y.md",
            MTIME,
        )

    @given(st.binary(max_size=400))
    def test_any_bytes_parse(self, data: bytes) -> None:
        """Any bytes give a MemoryFile; without front matter there is no type."""
        memory = parse(data)
        if not memory.has_front_matter:
            assert memory.type is None
            assert memory.front_matter == {}

    @given(st.text(alphabet="-: \n\t'\"`abtype[]{}#", max_size=200))
    def test_front_matter_like_text_parses(self, text: str) -> None:
        """Text made of front matter punctuation never raises."""
        parse("---\n" + text + "\n---\nbody")


# Characters that mean something to YAML, or to its reader, among many plain ones.
_SPECIAL = [
    *"-_.,;?!&*|>%@`'\"\\/#:[]{}~=<\t",
    *("\x00", "\x07", "\x85", "\xa0", "\u2028", "\ufeff", "\ufffe", "é", "—", "\U0001f600"),
]
_YAML_CHARS = st.sampled_from(list("abcXYZ019  ") * 3 + _SPECIAL)
_KEYS = st.one_of(
    st.sampled_from(["name", "description", "type", "Yes", "on", "NULL", "n", "a-b", "k_1"]),
    st.text(alphabet=_YAML_CHARS, min_size=1, max_size=8),
)
_VALUES = st.one_of(
    st.sampled_from(["feedback", "true", "Off", "null", "y", "No way", "2026-01-02", ".inf"]),
    st.builds(
        str.__add__,
        st.sampled_from(["a", "Z", "", "'", "-", "1"]),
        st.text(alphabet=_YAML_CHARS, max_size=24),
    ),
)
_GAPS = st.sampled_from([" ", "  ", "", "\t"])
_LINES = st.one_of(
    st.builds("{}:{}{}".format, _KEYS, _GAPS, _VALUES),
    st.text(alphabet=_YAML_CHARS, max_size=12),
    st.just(""),
)
_BLOCKS = st.lists(_LINES, min_size=1, max_size=5).map("\n".join)


# Lines shaped like the fast path's, some one odd character away from it or from another
# meaning (a word YAML reads as a boolean or null, a special character put in anywhere).
def _near_simple(key: str, value: str, suffix: str, odd: tuple[int, str] | None) -> str:
    line = f"{key}: {value}{suffix}"
    if odd is None:
        return line
    at = odd[0] % (len(line) + 1)
    return line[:at] + odd[1] + line[at:]


_NEAR_SIMPLE_LINE = st.builds(
    _near_simple,
    st.sampled_from(["name", "description", "type", "a-b", "k_1", "Yes", "on"]),
    st.from_regex(r"[A-Za-z][a-z0-9 ,.'-]{0,20}", fullmatch=True),
    st.sampled_from(["", " ", "  ", "o", "ull", "es", "ULL"]),
    st.one_of(
        st.none(),
        st.tuples(st.integers(0, 40), st.sampled_from([*_SPECIAL, " #", ": ", " - ", " &a"])),
    ),
)
_NEAR_SIMPLE = st.lists(_NEAR_SIMPLE_LINE, min_size=1, max_size=3).map("\n".join)


def _yaml_reading(block: str, loader: type) -> dict[str, object] | None:
    """What a YAML loader makes of the block, as ``parse_front_matter`` keys it."""
    try:
        loaded = yaml.load(block, Loader=loader)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None
    return {str(k): v for k, v in loaded.items()} if isinstance(loaded, dict) else None


class TestSimpleFrontMatter:
    """The plain ``key: value`` fast path reads exactly what YAML reads, or leaves it to YAML."""

    @settings(max_examples=3000, deadline=None)
    @given(st.one_of(_NEAR_SIMPLE, _BLOCKS))
    def test_equal_to_both_yaml_loaders(self, block: str) -> None:
        """Whatever the fast path reads, the C and the pure-Python safe loaders read the same."""
        simple = inventory.simple_mapping(block)
        if simple is not None:
            assert simple == _yaml_reading(block, yaml.SafeLoader)
            assert simple == _yaml_reading(block, getattr(yaml, "CSafeLoader", yaml.SafeLoader))

    @settings(max_examples=1000, deadline=None)
    @given(_BLOCKS)
    def test_front_matter_unchanged(self, block: str) -> None:
        """``parse_front_matter`` gives what YAML-then-lenient gave before the fast path."""
        expected = _yaml_reading(block, getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        if expected is None:
            expected = inventory._lenient_mapping(block)
        assert inventory.parse_front_matter(block) == expected

    def test_typical_front_matter_skips_yaml(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The usual three lines (a dash, an apostrophe, a comma, an em dash) never reach YAML."""

        def no_yaml(*args: object, **kwargs: object) -> object:
            raise AssertionError("YAML loader called")

        monkeypatch.setattr(yaml, "load", no_yaml)
        memory = parse(
            "---\nname: Don't mock the DB\ndescription: Tests hit a real database, "
            "not mocks — prod-like.  \ntype: feedback\n---\nBody\n"
        )
        assert (memory.title, memory.description, memory.type) == (
            "Don't mock the DB",
            "Tests hit a real database, not mocks — prod-like.",
            "feedback",
        )

    @pytest.mark.parametrize(
        "block",
        [
            "type: yes",
            "name: null",
            "On: x",
            "description: a: b",
            "name: 'quoted'",
            "name: x # comment",
            "name: x\nname: y",
            "metadata:\n  type: user",
            "tags: [a, b]",
            "name: 2026-01-02",
            "name: x\n  continued",
            "",
        ],
    )
    def test_yaml_syntax_goes_to_yaml(self, block: str) -> None:
        """A scalar YAML reads as another type, any YAML syntax, a repeated key: not simple."""
        assert inventory.simple_mapping(block) is None


class TestSplitFrontMatter:
    def test_body_keeps_later_rules(self) -> None:
        """Only the first closing line ends the block; later ``---`` rules stay in the body."""
        block, body = split_front_matter("---\na: 1\n---\ntext\n---\nmore\n")
        assert (block, body) == ("a: 1", "text\n---\nmore\n")

    def test_dots_close_a_block(self) -> None:
        """YAML's ``...`` document end closes the block too."""
        assert split_front_matter("---\na: 1\n...\nbody") == ("a: 1", "body")

    def test_trailing_spaces_on_delimiters(self) -> None:
        """Delimiter lines may carry trailing spaces."""
        assert split_front_matter("---  \na: 1\n--- \nbody") == ("a: 1", "body")


class TestTopicFileNames:
    @pytest.mark.parametrize(
        "name", ["feedback_x.md", "architecture.md", "project_2026-03-24.md", "a.b.md"]
    )
    def test_topic_files(self, name: str) -> None:
        """Ordinary ``*.md`` names are topic files."""
        assert is_topic_file_name(name)

    @pytest.mark.parametrize(
        "name",
        [
            "MEMORY.md",
            "MEMORY-ARCHIVE.md",
            "MEMORY-old.md",
            "MEMORYnotes.md",
            ".MEMORY.md.prev",
            ".hidden.md",
            "._feedback_x.md",
            "notes.txt",
            "feedback_x.md.bak",
        ],
    )
    def test_not_topic_files(self, name: str) -> None:
        """The index, its archive, any MEMORY*.md, the .prev copy and hidden files are not."""
        assert not is_topic_file_name(name)


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


TOPIC = "---\nname: {name}\ndescription: d\ntype: project\n---\nBody\n"


class TestLoadFolder:
    def test_lists_topic_files_sorted(self, tmp_path: Path) -> None:
        """Topic files beside MEMORY.md, sorted by name, everything else left out."""
        for name in ("zeta.md", "alpha.md", "Beta.md"):
            write(tmp_path, name, TOPIC.format(name=name))
        for name in (
            "MEMORY.md",
            "MEMORY-ARCHIVE.md",
            "MEMORY-2025.md",
            ".MEMORY.md.prev",
            ".draft.md",
            "notes.txt",
            ".trash/2026-01-01/old.md",
            "_backup/copy.md",
            ".inbox/new.md",
            "sub/nested.md",
        ):
            write(tmp_path, name, TOPIC.format(name=name))
        (tmp_path / "dir.md").mkdir()
        folder = load_folder(tmp_path, None)
        assert [m.name for m in folder.files] == ["Beta.md", "alpha.md", "zeta.md"]

    def test_reads_index_and_archive_as_stored(self, tmp_path: Path) -> None:
        """MEMORY.md and MEMORY-ARCHIVE.md text is kept byte-faithful (BOM, CRLF)."""
        write(tmp_path, "MEMORY.md", b"\xef\xbb\xbf# Memory\r\n- [A](a.md)\r\n")
        write(tmp_path, "MEMORY-ARCHIVE.md", "# Archive\n")
        folder = load_folder(tmp_path, None)
        assert folder.index_text == "\ufeff# Memory\r\n- [A](a.md)\r\n"
        assert folder.archive_text == "# Archive\n"

    def test_absent_index_and_archive(self, tmp_path: Path) -> None:
        """Without MEMORY.md or its archive both texts are None."""
        write(tmp_path, "a.md", "x")
        folder = load_folder(tmp_path, None)
        assert (folder.index_text, folder.archive_text) == (None, None)

    def test_empty_folder(self, tmp_path: Path) -> None:
        """An empty folder has no files and no index."""
        folder = load_folder(tmp_path, None)
        assert folder.files == ()
        assert folder.index_text is None

    def test_folder_and_repo_are_kept(self, tmp_path: Path) -> None:
        """The folder path and the repository are passed through."""
        repo = tmp_path / "repo"
        folder = load_folder(tmp_path, repo)
        assert (folder.path, folder.repo) == (tmp_path, repo)

    def test_mtime_is_the_files_in_utc(self, tmp_path: Path) -> None:
        """Each file carries its filesystem mtime as an aware UTC datetime."""
        path = write(tmp_path, "a.md", TOPIC.format(name="a"))
        os.utime(path, (1_700_000_000, 1_700_000_000))
        (memory,) = load_folder(tmp_path, None).files
        assert memory.mtime == datetime.fromtimestamp(1_700_000_000, tz=UTC)
        assert memory.path == path

    def test_links_are_not_memory_files(self, tmp_path: Path) -> None:
        """A symlink (to a file elsewhere, dangling, to itself) or a hard link is left alone,
        never read: its bytes are not the folder's own (issue 15, item 6)."""
        target = write(tmp_path / "elsewhere", "real.md", TOPIC.format(name="real"))
        folder_path = tmp_path / "memory"
        folder_path.mkdir()
        (folder_path / "linked.md").symlink_to(target)
        (folder_path / "dangling.md").symlink_to(tmp_path / "missing.md")
        (folder_path / "loop.md").symlink_to("loop.md")
        os.link(target, folder_path / "hard.md")
        write(folder_path, "own.md", TOPIC.format(name="own"))
        folder = load_folder(folder_path, None)
        assert [m.name for m in folder.files] == ["own.md"]
        assert {name: why.split(":")[0] for name, why in folder.excluded} == {
            "dangling.md": "a symbolic link",
            "hard.md": "a hard link (2 names share its bytes)",
            "linked.md": "a symbolic link",
            "loop.md": "a symbolic link",
        }

    def test_read_only_folder(self, tmp_path: Path) -> None:
        """Loading needs no write access and changes nothing in the folder."""
        memory = tmp_path / "memory"
        write(memory, "a.md", TOPIC.format(name="a"))
        write(memory, "MEMORY.md", "- [a](a.md)\n")
        before = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in memory.iterdir()}
        for path in memory.iterdir():
            path.chmod(0o444)
        memory.chmod(0o555)
        try:
            folder = load_folder(memory, None)
        finally:
            memory.chmod(0o755)
        assert len(folder.files) == 1
        after = {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in memory.iterdir()}
        assert after == before

    def test_unreadable_file_stops_the_folder(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A topic file that exists but cannot be read raises FolderUnreadable naming it."""
        write(tmp_path, "a.md", "x")
        real = inventory._read_regular_file

        def deny(path: Path) -> tuple[bytes, os.stat_result]:
            if path.name == "a.md":
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr(inventory, "_read_regular_file", deny)
        with pytest.raises(FolderUnreadable, match=r"a\.md: permission denied"):
            load_folder(tmp_path, None)

    def test_file_gone_since_listing_is_skipped(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A file deleted between listing and reading is simply not in the folder."""
        write(tmp_path, "a.md", "x")
        write(tmp_path, "b.md", "y")

        real = inventory._read_regular_file

        def vanish(path: Path) -> tuple[bytes, os.stat_result]:
            if path.name == "a.md":
                raise FileNotFoundError(2, "No such file", str(path))
            return real(path)

        monkeypatch.setattr(inventory, "_read_regular_file", vanish)
        assert [m.name for m in load_folder(tmp_path, None).files] == ["b.md"]


# --- The real folders of ../shared/fixtures/memory -----------------------------------------

REAL = SHARED_FIXTURES / "memory"
REAL_FOLDERS = sorted(p.name for p in REAL.iterdir() if p.is_dir()) if REAL.is_dir() else []

#: Topic-file counts by type, from SOURCES.md (None: no type).
SOURCES_TYPES: dict[str, dict[str | None, int]] = {
    "AnotherSava__bga-assistant__claude-memory": {"project": 16, "feedback": 2, "reference": 1},
    "4444J99__application-pipeline__claude-memory": {
        "feedback": 20,
        "project": 32,
        "reference": 1,
        "user": 1,
    },
    "BobG1983__breaker__agent-memory-reviewer-performance": {"project": 37},
    "BobG1983__breaker__agent-memory-reviewer-performance-partial": {"project": 4},
    "BobG1983__breaker__agent-memory-guard-game-design": {"project": 16},
    "1000ssam__claude-config__memory": {"feedback": 50, "project": 52, "reference": 6, None: 1},
    "ActorForth__ActorForth__claude-memory": {},
    "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading": {
        "feedback": 51,
        "project": 37,
        "reference": 40,
        "user": 3,
        None: 1,
    },
    "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-RApplication": {
        "feedback": 66,
        "reference": 32,
        "project": 31,
        "user": 1,
        None: 1,
    },
    "Aleslammer__deathwatch_foundryvtt__claude-memory": {
        "project": 8,
        "feedback": 5,
        "reference": 2,
        "user": 1,
    },
}


@pytest.fixture(scope="module")
def real_copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real memory folders copied to a writable temporary place (skip when absent)."""
    if not REAL.is_dir():
        pytest.skip(f"shared memory fixtures not found at {REAL}")
    target = tmp_path_factory.mktemp("real-memory")
    for name in REAL_FOLDERS:
        destination = target / name
        destination.mkdir()
        for source in (REAL / name).iterdir():
            if source.is_file():
                shutil.copyfile(source, destination / source.name)
    return target


def load_real(real_copies: Path, name: str) -> MemoryFolder:
    return load_folder(real_copies / name, None)


class TestRealFolders:
    def test_ten_folders_are_present(self, real_copies: Path) -> None:
        """The fixture set holds the ten folders SOURCES.md describes."""
        assert sorted(SOURCES_TYPES) == sorted(REAL_FOLDERS)

    @pytest.mark.parametrize("name", sorted(SOURCES_TYPES))
    def test_type_counts_match_sources(self, real_copies: Path, name: str) -> None:
        """Every folder parses, with SOURCES.md's topic-file count per type."""
        folder = load_real(real_copies, name)
        assert dict(Counter(m.type for m in folder.files)) == SOURCES_TYPES[name]
        assert folder.index_text is not None

    def test_1000ssam_front_matter_variants(self, real_copies: Path) -> None:
        """1000ssam: 44 top-level types, 64 metadata blocks, 2 empty names, 1 without."""
        files = load_real(real_copies, "1000ssam__claude-config__memory").files
        assert sum("type" in m.front_matter for m in files) == 44
        assert sum(isinstance(m.front_matter.get("metadata"), dict) for m in files) == 64
        assert sorted(m.name for m in files if m.front_matter.get("name") == "") == [
            "feedback_branch-policy-strict.md",
            "feedback_vibe-learning-log.md",
        ]
        assert [m.name for m in files if not m.has_front_matter] == [
            "notiontalk-landing-strategy.md"
        ]

    def test_1000ssam_crlf_and_broken_yaml_files(self, real_copies: Path) -> None:
        """The CRLF file and the file whose YAML is invalid both keep their type."""
        by_name = {
            m.name: m for m in load_real(real_copies, "1000ssam__claude-config__memory").files
        }
        assert by_name["feedback_school-persona.md"].type == "feedback"
        assert by_name["feedback_pass-means-merge.md"].type == "feedback"
        assert by_name["feedback_pass-means-merge.md"].title is not None

    def test_rapplication_file_without_type(self, real_copies: Path) -> None:
        """RApplication: one file has empty name, no description, no type, only metadata."""
        folder = load_real(
            real_copies, "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-RApplication"
        )
        (untyped,) = [m for m in folder.files if m.type is None]
        assert untyped.name == "feedback_stale_tests_are_live_data_not_dates.md"
        assert untyped.has_front_matter
        assert (untyped.title, untyped.description) == (None, None)
        metadata = untyped.front_matter["metadata"]
        assert isinstance(metadata, dict)
        assert set(metadata) == {"node_type", "originSessionId"}

    def test_newtrading_file_without_front_matter(self, real_copies: Path) -> None:
        """NewTrading: ibkr_fx_exposure.md has no front matter."""
        folder = load_real(
            real_copies, "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading"
        )
        assert [m.name for m in folder.files if not m.has_front_matter] == ["ibkr_fx_exposure.md"]

    def test_anothersava_mixed_forms(self, real_copies: Path) -> None:
        """AnotherSava: 5 top-level types and 14 metadata blocks in one folder."""
        files = load_real(real_copies, "AnotherSava__bga-assistant__claude-memory").files
        assert sum("type" in m.front_matter for m in files) == 5
        assert sum(isinstance(m.front_matter.get("metadata"), dict) for m in files) == 14

    def test_single_file_memory(self, real_copies: Path) -> None:
        """ActorForth: only MEMORY.md, no topic files."""
        folder = load_real(real_copies, "ActorForth__ActorForth__claude-memory")
        assert folder.files == ()
        assert folder.index_text is not None
        assert folder.index_text.count("\n") >= 160

    def test_every_description_is_one_text(self, real_copies: Path) -> None:
        """Across all folders titles and descriptions are text or None, never empty."""
        for name in REAL_FOLDERS:
            for memory in load_real(real_copies, name).files:
                for value in (memory.title, memory.description):
                    assert value is None or (isinstance(value, str) and value.strip())
