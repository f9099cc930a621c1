"""Seed 000 STEP 2a/2b: file and symbol references, their scope, and checking them."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

from dreamd.dream.folder import repoview as refs
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.pathrefs import extract_file_refs, scope
from dreamd.dream.folder.refs import check_refs, memory_text
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import classify
from dreamd.dream.folder.symbolrefs import extract_symbol_refs
from tests.conftest import SHARED_FIXTURES
from tests.dream.factories import memory


class TestFileRefsFound:
    @pytest.mark.parametrize("ext", ["py", "ts", "tsx", "js", "json", "md", "yaml", "yml", "sh"])
    def test_seed_extensions(self, ext: str) -> None:
        """Every extension the seed lists is a file reference with a ``/``."""
        assert extract_file_refs(f"Edit src/app/main.{ext} today") == (f"src/app/main.{ext}",)

    @pytest.mark.parametrize("ext", ["rs", "go", "R", "erl", "ps1", "mjs", "toml", "sql"])
    def test_more_code_extensions(self, ext: str) -> None:
        """Source files of other languages the real folders cite count too."""
        assert extract_file_refs(f"see lib/core.{ext}") == (f"lib/core.{ext}",)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("Fix src/a.py.", "src/a.py"),
            ("Fix src/a.py, then", "src/a.py"),
            ("(see docs/guide.md)", "docs/guide.md"),
            ('"config/app.yaml"', "config/app.yaml"),
            ("'config/app.yaml'", "config/app.yaml"),
            ("**lib/x.rs**", "lib/x.rs"),
            ("<src/a.ts>", "src/a.ts"),
            ("src/a.ts;", "src/a.ts"),
            ("src/a.ts에서 고쳤다", "src/a.ts"),
            ("パスは src/a.ts です", "src/a.ts"),
            ("- [Guide](docs/guide.md)", "docs/guide.md"),
        ],
    )
    def test_punctuation_around_a_path(self, text: str, expected: str) -> None:
        """Quotes, brackets, bold, trailing punctuation and non-ASCII particles are not part."""
        assert extract_file_refs(text) == (expected,)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("`src/foo.ts:186`", "src/foo.ts"),
            ("src/foo.ts:186 broke", "src/foo.ts"),
            ("src/foo.ts:186:12", "src/foo.ts"),
            ("src/foo.ts:10-20", "src/foo.ts"),
            ("src/foo.ts#L5", "src/foo.ts"),
            ("src/foo.ts#L5-L9", "src/foo.ts"),
            ("`terminal.rs:173-175`", "terminal.rs"),
            ("thrown at (game_engine.ts:132).", "game_engine.ts"),
        ],
    )
    def test_line_suffixes(self, text: str, expected: str) -> None:
        """``file.ts:186`` and other line suffixes are dropped, bare names included."""
        assert extract_file_refs(text) == (expected,)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("`renv.lock`", "renv.lock"),
            ("`config.json`", "config.json"),
            ("` package.json `", "package.json"),
            ("`src/**/*.ts`", "src/**/*.ts"),
            ("`src/*.py`", "src/*.py"),
        ],
    )
    def test_backticked_names_and_globs(self, text: str, expected: str) -> None:
        """A whole backticked span may be a bare file name or a glob with a ``/``."""
        assert extract_file_refs(text) == (expected,)

    @pytest.mark.parametrize(
        "text",
        [
            "~/.claude/settings.json",
            "/etc/app/config.yaml",
            "$HOME/bin/run.sh",
            "${XDG_CONFIG_HOME}/app/a.toml",
            "C:/Users/me/tool.py",
            "../other/z.ts",
        ],
    )
    def test_rooted_paths_are_extracted(self, text: str) -> None:
        """Paths rooted elsewhere are extracted (scope makes them unverifiable)."""
        assert extract_file_refs(f"uses {text} here") == (text,)

    def test_leading_dot_slash_and_double_slashes(self) -> None:
        """``./scripts/run.sh`` and ``src//a.py`` are normalised."""
        assert extract_file_refs("./scripts/run.sh and src//a.py") == (
            "scripts/run.sh",
            "src/a.py",
        )

    def test_order_of_appearance_without_duplicates(self) -> None:
        """References come once each, in the order the text first cites them."""
        text = "b/two.py then `a/one.py` then b/two.py:3 and `c.lock` and a/one.py"
        assert extract_file_refs(text) == ("b/two.py", "a/one.py", "c.lock")

    def test_paths_in_fenced_code_count(self) -> None:
        """A path inside a fenced block is still a file reference."""
        assert extract_file_refs("```sh\ncat src/tool.sh\n```\n") == ("src/tool.sh",)

    def test_case_insensitive_extension(self) -> None:
        """Extensions match in any case (``main.R``, ``README.MD``)."""
        assert extract_file_refs("R/main.R docs/README.MD") == ("R/main.R", "docs/README.MD")


class TestFileRefsNotFound:
    @pytest.mark.parametrize(
        "text",
        [
            "https://github.com/a/b/blob/main/src/url.py",
            "see <http://example.com/docs/x.md>",
            "file:///home/me/notes/a.md",
            "config.json in prose",
            "`feedback_auth.md`",
            "`notes.MD`",
            "game notes.md:3",
            "`*.html`",
            "`.json`",
            "foo/bar.ts.bak",
            "foo/bar.tsx2",
            "src/components/",
            "and/or TCP/IP 1/2",
            "data/prices.csv and out/log.txt",
            "src\\win\\path.py",
            "`IB.RequestTimeout` and `sys.path`",
            "",
        ],
    )
    def test_not_file_references(self, text: str) -> None:
        """URLs, bare names in prose, sibling ``.md`` names, data files: not file refs."""
        assert extract_file_refs(text) == ()

    def test_url_beside_a_path(self) -> None:
        """Only the path survives next to a URL holding a path-like tail."""
        assert extract_file_refs("see https://x.io/a/b.py and src/b.py") == ("src/b.py",)


class TestSymbolRefs:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("Call spawn_bolt() first", ("spawn_bolt",)),
            ("then obj.resolveThing() runs", ("resolveThing",)),
            ("Tdata::isIBAvailable() and tdata_py$connect()", ("isIBAvailable", "connect")),
            ("def make_index(x) is slow", ("make_index",)),
            ("fn spawn_wall is hot", ("spawn_wall",)),
            ("func ServeHTTP handles it", ("ServeHTTP",)),
            ("EffectStack<SizeBoostConfig>", ("EffectStack", "SizeBoostConfig")),
            ("NodeState::Teardown", ("NodeState",)),
            ("XMLHttpRequest and MeshMaterial2d", ("XMLHttpRequest", "MeshMaterial2d")),
            ("수정: EffectStack 에서", ("EffectStack",)),
            ("`build(cmd, x)` and `Future(conId=1)`", ("build", "Future")),
            ("`class Player` and `struct WallSize`", ("Player", "WallSize")),
            ("a b() c()", ()),
        ],
    )
    def test_symbols_found(self, text: str, expected: tuple[str, ...]) -> None:
        """``name()``, ``def|fn|func name``, two-hump CamelCase, backticked calls/classes."""
        assert extract_symbol_refs(text) == expected

    @pytest.mark.parametrize(
        "text",
        [
            "Redis caches Sessions. Because Users wait.",
            "HTTPServer and IOError and URLs",
            "GitHub, LinkedIn, JavaScript, TypeScript, PowerShell, YouTube",
            "WebFetch and WebSearch and PreToolUse hooks",
            "Ask McKellips or MacDonald",
            "file(s) changed (see below) and words(like this)",
            "the class names and the function returns",
            "if() and for() and cd()",
            "`Bash(git status)` and `Read(x)`",
            "```python\ndef hidden():\n    ShouldNotAppear()\n```\n",
            "~~~\nHiddenType()\n~~~\n",
            "text\n```\nUnclosedFence() runs to the end\nStillHidden()\n",
            "src/MyWidget.tsx and lib/EffectStack/mod.rs and MyThing.tsx",
            "src/helpers/build_it() and a/b/FooBar",
            "[[FeedbackThing]] and [Link](docs/SomeDoc.md)",
            "https://github.com/SomeOrg/RepoName and http://x.io/doIt()",
        ],
    )
    def test_not_symbols(self, text: str) -> None:
        """Words, acronyms, products, agent tools, prose parens, fences, paths: no symbols."""
        assert extract_symbol_refs(text) == ()

    def test_minimum_symbol_length(self) -> None:
        """Three characters make a symbol; two do not."""
        assert extract_symbol_refs("run() and go() and `ab(x)` and `abc(x)`") == ("run", "abc")

    def test_order_of_appearance_without_duplicates(self) -> None:
        """Symbols come once each, in the order the text first names them."""
        text = "WallRegistry wraps `seed()` then WallRegistry and update_single() and seed()"
        assert extract_symbol_refs(text) == ("WallRegistry", "seed", "update_single")

    def test_symbols_after_a_closed_fence_count(self) -> None:
        """Text after a closed fence is read again."""
        text = "```\nHidden()\n```\nThen VisibleThing."
        assert extract_symbol_refs(text) == ("VisibleThing",)


class TestScope:
    TOP = frozenset({"src", "docs", ".claude"})

    @pytest.mark.parametrize(
        "ref",
        [
            "~/.claude/settings.json",
            "/usr/local/bin/tool.sh",
            "$HOME/x.sh",
            "${ROOT}/x.sh",
            "http://example.com/a.py",
            "https://example.com/a.py",
            "C:/Users/me/a.py",
            "lib/a.py",
            "../src/a.py",
            "**/*.ts",
            "node_modules/x/index.js",
        ],
    )
    def test_unverifiable(self, ref: str) -> None:
        """Rooted outside, a URL, or a first segment that is no top-level dir: UNVERIFIABLE."""
        assert scope(ref, self.TOP) == "UNVERIFIABLE"

    @pytest.mark.parametrize(
        "ref", ["src/a.py", "docs/x/y.md", ".claude/commands/a.md", "renv.lock", "src/**/*.ts"]
    )
    def test_repo_relative(self, ref: str) -> None:
        """Under a real top-level dir, or a bare name: REPO_RELATIVE."""
        assert scope(ref, self.TOP) == "REPO_RELATIVE"

    def test_empty_repository(self) -> None:
        """With no top-level dirs every path with a ``/`` is unverifiable."""
        assert scope("src/a.py", frozenset()) == "UNVERIFIABLE"
        assert scope("a.py", frozenset()) == "REPO_RELATIVE"


def view(files: Iterable[str], identifiers: Iterable[str] = ()) -> RepoView:
    return RepoView.build(Path("/repo"), files, identifiers)


class TestRepoViewLookups:
    FILES = ("src/app/main.py", "src/app/util.ts", "README.md", "breaker-game/src/core.rs")

    @pytest.mark.parametrize(
        "ref",
        ["src/app/main.py", "app/main.py", "main.py", "README.md", "src/core.rs", "core.rs"],
    )
    def test_path_or_path_suffix_matches(self, ref: str) -> None:
        """A reference matches a file equal to it or ending with ``/<ref>``."""
        assert view(self.FILES).has_file(ref)

    @pytest.mark.parametrize("ref", ["rc/app/main.py", "ain.py", "src/main.py", "app", "src"])
    def test_partial_segments_do_not_match(self, ref: str) -> None:
        """Suffixes count only at a ``/``; directories are not files."""
        assert not view(self.FILES).has_file(ref)

    @pytest.mark.parametrize(
        ("ref", "found"),
        [
            ("src/**/*.py", True),
            ("src/app/*.ts", True),
            ("app/*.py", True),
            ("src/*.rs", True),
            ("src/**/*.go", False),
            ("docs/*.md", False),
        ],
    )
    def test_globs(self, ref: str, found: bool) -> None:
        """A glob matches when any file (or path suffix) matches it."""
        assert view(self.FILES).has_file(ref) is found

    def test_top_level_dirs(self) -> None:
        """Top-level dirs are the first segments of listed files."""
        assert view(self.FILES).top_level_dirs == {"src", "breaker-game"}

    def test_symbol_as_whole_identifier(self) -> None:
        """A symbol equal to an identifier of the repository is present."""
        assert view([], ["spawn_bolt", "EffectStack"]).has_symbol("spawn_bolt")

    def test_symbol_inside_identifier(self) -> None:
        """As with Grep, a symbol inside a longer identifier is present."""
        names = view([], ["useAuthStore", "build_all_things"])
        assert names.has_symbol("useAuth")
        assert names.has_symbol("all_thing")
        assert names.has_symbol("useAuth")  # answered from the cache the second time

    def test_symbol_absent(self) -> None:
        """A symbol in no identifier is absent, even spanning two of them."""
        names = view([], ["foo", "bar"])
        assert not names.has_symbol("foo_bar")
        assert not names.has_symbol("foobar")


def write(root: Path, relative: str, data: str | bytes = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


class TestRepoViewScanWalk:
    def test_lists_files_and_identifiers(self, tmp_path: Path) -> None:
        """Without git, a walk lists files and collects the identifiers in their text."""
        write(tmp_path, "src/app.py", "def spawn_bolt(x):\n    return EffectStack()\n")
        write(tmp_path, "README.md", "ok")
        scanned = RepoView.scan(tmp_path)
        assert scanned.files == {"src/app.py", "README.md"}
        assert {"spawn_bolt", "EffectStack", "return"} <= scanned.identifiers
        assert "ok" not in scanned.identifiers  # shorter than a symbol can be
        assert scanned.top_level_dirs == {"src"}
        assert scanned.files_complete and scanned.symbols_complete

    def test_identifier_length_cap(self, tmp_path: Path) -> None:
        """Runs of up to 200 identifier characters are names; longer runs are blobs."""
        write(tmp_path, "src/a.py", f"{'a' * 200} {'b' * 201}")
        scanned = RepoView.scan(tmp_path)
        assert "a" * 200 in scanned.identifiers
        assert not scanned.has_symbol("bbb")

    def test_skip_dirs_are_not_listed(self, tmp_path: Path) -> None:
        """Dependencies, build output and caches are neither listed nor searched."""
        for folder in ("node_modules/pkg", "build", "dist", ".venv/lib", "__pycache__", ".git"):
            write(tmp_path, f"{folder}/hidden.py", "HiddenSymbol = 1")
        write(tmp_path, "src/a.py", "x = 1")
        scanned = RepoView.scan(tmp_path)
        assert scanned.files == {"src/a.py"}
        assert not scanned.has_symbol("HiddenSymbol")

    def test_memory_folders_are_listed_not_searched(self, tmp_path: Path) -> None:
        """A memory inside the repository cannot vouch for the symbols it names."""
        write(tmp_path, ".claude/memory/project_x.md", "OnlyInMemory()")
        write(tmp_path, ".claude/agent-memory/rev/a.md", "AlsoInMemory()")
        write(tmp_path, ".claude/commands/run.md", "InCommand()")
        scanned = RepoView.scan(tmp_path)
        assert scanned.has_file(".claude/memory/project_x.md")
        assert not scanned.has_symbol("OnlyInMemory")
        assert not scanned.has_symbol("AlsoInMemory")
        assert scanned.has_symbol("InCommand")

    def test_binary_files_are_not_searched(self, tmp_path: Path) -> None:
        """Files binary by name or holding a NUL byte are listed but not searched."""
        write(tmp_path, "assets/logo.png", b"PngSymbolName")
        write(tmp_path, "data/blob.txt", b"NulSymbolName\0rest")
        write(tmp_path, "src/a.py", "TextSymbolName = 1")
        scanned = RepoView.scan(tmp_path)
        assert scanned.has_file("assets/logo.png")
        assert not scanned.has_symbol("PngSymbolName")
        assert not scanned.has_symbol("NulSymbolName")
        assert scanned.has_symbol("TextSymbolName")

    def test_large_files_are_not_searched(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A file over the per-file cap is listed, not searched, and not a truncation."""
        monkeypatch.setattr(refs, "MAX_TEXT_FILE_BYTES", 20)
        write(tmp_path, "src/big.js", "BigFileSymbol " * 10)
        scanned = RepoView.scan(tmp_path)
        assert scanned.has_file("src/big.js")
        assert not scanned.has_symbol("BigFileSymbol")
        assert scanned.symbols_complete

    def test_file_cap_makes_the_listing_incomplete(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Past MAX_REPO_FILES the listing stops and says it is incomplete."""
        monkeypatch.setattr(refs, "MAX_REPO_FILES", 2)
        for name in ("a", "b", "c"):
            write(tmp_path, f"src/{name}.py")
        scanned = RepoView.scan(tmp_path)
        assert len(scanned.files) == 2
        assert not scanned.files_complete

    def test_byte_cap_makes_symbols_incomplete(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Past MAX_SCAN_BYTES reading stops and symbol search says it is incomplete."""
        monkeypatch.setattr(refs, "MAX_SCAN_BYTES", 10)
        write(tmp_path, "src/a.py", "FirstFileSymbol = 1")
        write(tmp_path, "src/b.py", "SecondFileSymbol = 1")
        scanned = RepoView.scan(tmp_path)
        assert scanned.files == {"src/a.py", "src/b.py"}
        assert not scanned.symbols_complete


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
class TestRepoViewScanGit:
    def test_git_listing(self, tmp_path: Path) -> None:
        """In a work tree: tracked and untracked files, not ignored ones nor deleted ones."""
        git(tmp_path, "init", "-q")
        write(tmp_path, ".gitignore", "secret/\n*.gen.ts\n")
        write(tmp_path, "src/kept.py", "KeptSymbol = 1")
        write(tmp_path, "src/deleted.py", "DeletedSymbol = 1")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-q", "-m", "init")
        (tmp_path / "src/deleted.py").unlink()
        write(tmp_path, "src/new.py", "NewSymbol = 1")
        write(tmp_path, "secret/key.py", "SecretSymbol = 1")
        write(tmp_path, "src/out.gen.ts", "GeneratedSymbol = 1")
        scanned = RepoView.scan(tmp_path)
        assert scanned.files == {".gitignore", "src/kept.py", "src/new.py", "src/out.gen.ts"}
        assert scanned.has_symbol("KeptSymbol") and scanned.has_symbol("NewSymbol")
        assert not scanned.has_symbol("DeletedSymbol")
        assert not scanned.has_symbol("SecretSymbol")  # ignored files are not searched
        assert scanned.top_level_dirs == {"src", "secret"}

    def test_ignored_files_exist(self, tmp_path: Path) -> None:
        """A file git ignores is on disk: its memory is not stale (issue 12, item 5)."""
        git(tmp_path, "init", "-q")
        write(tmp_path, ".gitignore", "config/local.json\nsecret/\n")
        write(tmp_path, "src/app.py", "x = 1")
        write(tmp_path, "config/local.json", "{}")
        write(tmp_path, "secret/deep/key.py", "k = 1")
        scanned = RepoView.scan(tmp_path)
        assert scanned.has_file("config/local.json") and scanned.has_file("local.json")
        assert scanned.has_file("secret/deep/key.py")  # inside an ignored folder: on disk
        assert not scanned.has_file("secret/deep/gone.py")
        body = "Settings come from `config/local.json`; keys from `secret/deep/key.py`."
        check = check_refs(memory(body=body), scanned)
        assert check.present == ("config/local.json", "secret/deep/key.py")
        assert check.missing == ()

    def test_unicode_file_names(self, tmp_path: Path) -> None:
        """Non-ASCII file names come through git unquoted."""
        git(tmp_path, "init", "-q")
        write(tmp_path, "docs/메모.md", "x")
        assert RepoView.scan(tmp_path).has_file("docs/메모.md")


class TestCheckRefs:
    REPO = RepoView.build(
        Path("/repo"),
        ["src/app.py", "src/util.ts", "docs/guide.md"],
        ["spawn_bolt", "EffectStack", "run_all_checks"],
    )

    def test_no_repository_makes_everything_unverifiable(self) -> None:
        """repo None: every file and symbol reference is unverifiable, none missing."""
        check = check_refs(memory(body="src/app.py and spawn_bolt() and GoneThing"), None)
        assert check.unverifiable == ("src/app.py", "spawn_bolt", "GoneThing")
        assert check.verifiable == 0

    def test_present_missing_and_unverifiable(self) -> None:
        """Files are sorted into present, missing and unverifiable; symbols likewise."""
        body = (
            "See src/app.py and src/gone.py, ~/.claude/x.json and lib/other.py. "
            "Call spawn_bolt() and removed_fn(); EffectStack stays, GoneThing left."
        )
        check = check_refs(memory(body=body), self.REPO)
        assert check.present == ("src/app.py",)
        assert check.missing == ("src/gone.py",)
        assert check.unverifiable == ("~/.claude/x.json", "lib/other.py")
        assert check.symbols_present == ("spawn_bolt", "EffectStack")
        assert check.symbols_missing == ("removed_fn", "GoneThing")

    def test_description_is_read(self) -> None:
        """A path quoted in the front matter description counts."""
        check = check_refs(memory(body="", description='Lives in "docs/guide.md"'), self.REPO)
        assert check.present == ("docs/guide.md",)

    def test_title_is_not_read(self) -> None:
        """The title is a label, not a reference."""
        check = check_refs(memory(body="", title="About src/gone.py"), self.REPO)
        assert check == type(check)()

    def test_incomplete_listing_makes_absent_files_unverifiable(self) -> None:
        """When the file cap cut the listing, an absent file is unverifiable, not missing."""
        partial = RepoView.build(Path("/r"), ["src/app.py"], [], files_complete=False)
        check = check_refs(memory(body="src/app.py src/gone.py"), partial)
        assert (check.present, check.missing, check.unverifiable) == (
            ("src/app.py",),
            (),
            ("src/gone.py",),
        )

    def test_incomplete_symbol_scan_makes_absent_symbols_unverifiable(self) -> None:
        """When the byte cap cut the scan, an absent symbol is unverifiable, not missing."""
        partial = RepoView.build(Path("/r"), [], ["spawn_bolt"], symbols_complete=False)
        check = check_refs(memory(body="spawn_bolt() and gone_fn()"), partial)
        assert check.symbols_present == ("spawn_bolt",)
        assert check.symbols_missing == ()
        assert check.unverifiable == ("gone_fn",)

    def test_memory_text_is_description_then_body(self) -> None:
        """References are read from the description and the body, in that order."""
        assert memory_text(memory(body="B", description="D")) == "D\nB"
        assert memory_text(memory(body="B")) == "\nB"


# --- The real folders of ../shared/fixtures/memory -----------------------------------------

REAL = SHARED_FIXTURES / "memory"
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@pytest.fixture(scope="module")
def real_memories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Every real topic file's reference text, from a temporary copy (skip when absent)."""
    if not REAL.is_dir():
        pytest.skip(f"shared memory fixtures not found at {REAL}")
    target = tmp_path_factory.mktemp("real-refs")
    texts: dict[str, dict[str, str]] = {}
    for source_folder in sorted(p for p in REAL.iterdir() if p.is_dir()):
        copy = target / source_folder.name
        copy.mkdir()
        for source in source_folder.iterdir():
            shutil.copyfile(source, copy / source.name)
        folder = load_folder(copy, None)
        texts[source_folder.name] = {m.name: memory_text(m) for m in folder.files}
    return texts


class TestRealFolders:
    def test_every_file_extracts_cleanly(self, real_memories: dict[str, dict[str, str]]) -> None:
        """All real memories extract without error: no URL, no sibling .md, clean symbols."""
        for files in real_memories.values():
            for text in files.values():
                for ref in extract_file_refs(text):
                    assert "://" not in ref
                    assert "/" in ref or not ref.lower().endswith(".md")
                for symbol in extract_symbol_refs(text):
                    assert _SYMBOL.fullmatch(symbol) and len(symbol) >= 3

    def test_breaker_paths(self, real_memories: dict[str, dict[str, str]]) -> None:
        """A Rust memory's paths are found, with ``terminal.rs:173-175`` cut to the file."""
        folder = real_memories["BobG1983__breaker__agent-memory-reviewer-performance"]
        assert "breaker-game/src/bolt/builder/core.rs" in extract_file_refs(
            folder["bolt_builder_archetype_fragmentation.md"]
        )
        assert "terminal.rs" in extract_file_refs(folder["armored_wave3_patterns.md"])

    def test_wall_registry_symbols(self, real_memories: dict[str, dict[str, str]]) -> None:
        """Type names and called functions of a real memory are its symbols."""
        folder = real_memories["BobG1983__breaker__agent-memory-reviewer-performance-partial"]
        symbols = extract_symbol_refs(folder["wall_registry_pattern.md"])
        assert {"WallRegistry", "WallDefinition", "SeedableRegistry", "RootNode"} <= set(symbols)
        assert {"seed", "update_single"} <= set(symbols)

    def test_r_memory(self, real_memories: dict[str, dict[str, str]]) -> None:
        """An R memory: line suffixes dropped, ``pkg::fn()`` and ``obj$fn()`` found."""
        folder = real_memories[
            "Aldohlys__claude-config-backup__C--Users-aldoh-Documents-RApplication"
        ]
        text = folder["reference_isIBAvailable.md"]
        assert {"Tdata/R/ibkr.R", "Tdata/inst/python/tdata_py/IB_connection.py"} <= set(
            extract_file_refs(text)
        )
        assert {"isIBAvailable", "isConnected"} <= set(extract_symbol_refs(text))

    def test_without_repository_nothing_is_missing(
        self, real_memories: dict[str, dict[str, str]]
    ) -> None:
        """With no repository known, no real memory has a missing reference."""
        for files in real_memories.values():
            for text in files.values():
                check = check_refs(memory(body=text), None)
                assert check.verifiable == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
class TestSymbolScope:
    """Issue 12 item 3: symbols need scope like paths."""

    @pytest.fixture
    def repo(self, tmp_path: Path) -> RepoView:
        """A repository whose history once held ``removed_helper`` (deleted since)."""
        git(tmp_path, "init", "-q")
        write(tmp_path, "src/loader.py", "def load_config():\n    return removed_helper()\n")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-q", "-m", "one")
        write(tmp_path, "src/loader.py", "def load_config():\n    return {}\n")
        git(tmp_path, "commit", "-q", "-am", "two")
        return RepoView.scan(tmp_path)

    def test_a_name_the_repository_never_held_is_unverifiable(self, repo: RepoView) -> None:
        """A framework's method (``addLastTurnBanner``) is not this repository's to miss."""
        check = check_refs(memory(body="The SDK's `addLastTurnBanner()` renders it."), repo)
        assert check.symbols_missing == ()
        assert check.unverifiable == ("addLastTurnBanner",)
        assert classify(check) == "EVERGREEN"

    def test_a_name_the_history_held_is_missing(self, repo: RepoView) -> None:
        """``git log -S`` finds the commit that removed it: the memory's symbol is gone."""
        check = check_refs(memory(body="We call `removed_helper()` for defaults."), repo)
        assert check.symbols_missing == ("removed_helper",)
        assert classify(check) == "FULLY_STALE"

    def test_a_name_tied_to_a_repository_path_is_verifiable(self, repo: RepoView) -> None:
        """Named beside a path of this repository, a never-seen name is missing."""
        body = "`src/gone.py` defined `invented_fn()` for this."
        check = check_refs(memory(body=body), repo)
        assert check.missing == ("src/gone.py",)
        assert check.symbols_missing == ("invented_fn",)

    def test_a_name_qualified_by_a_module_of_the_repository_is_verifiable(
        self, repo: RepoView
    ) -> None:
        """``loader.invented_fn`` names a module of this repository: verifiable."""
        check = check_refs(memory(body="Use `loader.invented_fn()` to reload."), repo)
        assert check.symbols_missing == ("invented_fn",)
        other = check_refs(memory(body="Use `react.invented_fn()` to reload."), repo)
        assert other.symbols_missing == () and "invented_fn" in other.unverifiable

    def test_without_history_a_bare_name_is_unverifiable(self, tmp_path: Path) -> None:
        """No git history to ask: an untied absent name cannot be judged missing."""
        write(tmp_path, "src/app.py", "x = 1\n")
        check = check_refs(memory(body="Call `spawn_bolt()`."), RepoView.scan(tmp_path))
        assert check.symbols_missing == () and check.unverifiable == ("spawn_bolt",)
