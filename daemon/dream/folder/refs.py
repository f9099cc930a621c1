"""Seed 000 STEP 2a/2b: the file and symbol references of a memory, and whether they exist.

Extraction (``extract_file_refs``, ``extract_symbol_refs``) and checking
(``scope``, ``check_refs``) are pure. ``RepoView.scan`` is the I/O edge: it
lists a repository once (``git ls-files`` in a work tree, else a walk) and
collects the identifiers of its text files, so that checking ten thousand
memories costs set lookups, not ten thousand globs and greps.

Bias, on purpose: a reference that is invented or wrongly judged missing
makes a memory look stale, and stale memories get trashed. So extraction
prefers to miss a reference, and anything the view cannot vouch for (outside
the repository, under a folder it did not scan, past its size caps) is
UNVERIFIABLE, never missing.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fnmatch import translate
from pathlib import Path
from typing import Literal

from dreamd.dream.model import MemoryFile, RefCheck
from dreamd.fs import read_regular
from dreamd.markdown import blank_fenced

__all__ = [
    "FILE_EXTENSIONS",
    "RepoView",
    "Scope",
    "check_refs",
    "extract_file_refs",
    "extract_symbol_refs",
    "memory_text",
    "scope",
]

Scope = Literal["REPO_RELATIVE", "UNVERIFIABLE"]

# --- STEP 2a: file references -------------------------------------------------------------

#: The seed's list (py ts tsx js json md yaml yml sh) plus the source and config
#: extensions the real memory folders cite: Rust (.rs), R (.R), Erlang (.erl),
#: PowerShell (.ps1), ES modules (.mjs), and the other mainstream languages. Data
#: and output files (.csv, .log, .txt, .png) are left out: they are usually
#: generated or ignored, so their absence says nothing about a memory.
FILE_EXTENSIONS: frozenset[str] = frozenset(
    {
        *("py", "pyi", "ts", "tsx", "js", "jsx", "mjs", "cjs", "json", "md", "mdx"),
        *("yaml", "yml", "toml", "ini", "cfg", "sh", "bash", "zsh", "fish", "ps1", "bat"),
        *("rs", "go", "rb", "java", "kt", "kts", "scala", "swift", "c", "h", "cc"),
        *("cpp", "hpp", "cs", "php", "lua", "r", "jl", "ex", "exs", "erl", "hrl", "hs"),
        *("ml", "zig", "dart", "sql", "html", "css", "scss", "vue", "svelte", "ipynb"),
        *("gradle", "lock", "proto", "graphql", "tf"),
    }
)
#: A bare file name (no ``/``) is a reference only inside backticks, and never a
#: ``.md`` name: in real folders nearly all of those name sibling memories.
BARE_NAME_EXCLUDED_EXTENSIONS: frozenset[str] = frozenset({"md", "mdx"})

_EXT = "|".join(sorted(FILE_EXTENSIONS, key=lambda e: (-len(e), e)))
_SEGMENT = r"[A-Za-z0-9_.@+-]+"
# Line suffixes dropped from a reference: file.ts:186, file.ts:186:12, file.ts:10-20, #L5-L9.
_LINE_SUFFIX = r"(?P<line>:\d+(?::\d+)?(?:-\d+)?|#L\d+(?:-L?\d+)?)?"
# An optional root: ``~/``, ``$VAR/``, ``${VAR}/``, ``C:/`` or ``/``.
_ROOT = r"(?:(?:~|\$\{?\w+\}?|[A-Za-z]:)/|/)?"
# ASCII only: in Korean or Japanese prose a particle follows the path with no space.
_PATH_IN_TEXT = re.compile(
    rf"(?<![A-Za-z0-9_.@+~$/\\\[\]-])"
    rf"(?P<ref>{_ROOT}(?:{_SEGMENT}/+)*{_SEGMENT}\.(?i:{_EXT}))"
    rf"{_LINE_SUFFIX}"
    r"(?![A-Za-z0-9_@+~$/\\-]|\.[A-Za-z0-9_])"
)
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_PATH_IN_CODE = re.compile(
    rf"(?P<ref>{_ROOT}(?:[A-Za-z0-9_.@+*?-]+/+)*[A-Za-z0-9_.@+*?-]*\.(?i:{_EXT})){_LINE_SUFFIX}"
)
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s)>\]`'\"]*")


_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match[str]) -> str:
    """Replacement keeping offsets and lines: the match becomes spaces."""
    return _NOT_NEWLINE.sub(" ", match.group())


def _without_urls(text: str) -> str:
    """``text`` with URLs blanked (tested first: most memories hold none)."""
    return _URL.sub(_blank, text) if "://" in text else text


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line) pairs of ``text``.

    The rules test each line for a cheap trigger (``/``, ``()``, a backtick)
    before running a regex on it: on ten thousand memories that is most of
    the extraction time saved.
    """
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


def _normalise_path(ref: str) -> str:
    """``./src/x.ts`` and ``src//x.ts`` are ``src/x.ts``."""
    while ref.startswith("./"):
        ref = ref[2:]
    return re.sub(r"/{2,}", "/", ref) if "//" in ref else ref


def _code_span_path(content: str) -> str | None:
    """A path filling a whole backticked span (bare names and globs allowed), else None.

    A glob needs a ``/``: a bare ``*.html`` names a kind of file, not a file.
    """
    match = _PATH_IN_CODE.fullmatch(content.strip())
    if match is None:
        return None
    ref = match["ref"]
    if "/" in ref:
        return ref
    return ref if _is_bare_name_ref(ref) and not _is_glob(ref) else None


def _has_path_cue(text: str) -> bool:
    """Whether a line or chunk may hold a path: a ``/`` or a line suffix's ``:`` / ``#L``."""
    return "/" in text or ":" in text or "#L" in text


def _is_bare_name_ref(ref: str) -> bool:
    """Whether a bare file name (no ``/``) may be a reference: never ``*.md`` (sibling memories)."""
    name, _, extension = ref.rpartition(".")
    return bool(name) and extension.lower() not in BARE_NAME_EXCLUDED_EXTENSIONS


def _paths_in_line(line: str, offset: int) -> Iterator[tuple[int, str]]:
    """Paths in one line of prose, read chunk by chunk (a path holds no space).

    A path needs a ``/``, or a line suffix on a bare name (``game_engine.ts:132``
    names a file; ``config.json`` alone in prose may be a word). Only chunks
    with such a cue reach the regex, which halves the time on prose.
    """
    cursor = 0
    for chunk in line.split():
        if not _has_path_cue(chunk):
            continue
        cursor = line.find(chunk, cursor)
        for match in _PATH_IN_TEXT.finditer(chunk):
            ref = match["ref"]
            if "/" in ref or (match["line"] and _is_bare_name_ref(ref)):
                yield offset + cursor + match.start(), ref
        cursor += len(chunk)


def _file_ref_positions(text: str) -> Iterator[tuple[int, str]]:
    """(offset, reference) for every file reference, in no particular order."""
    for offset, line in _lines(_without_urls(text)):
        if _has_path_cue(line):
            yield from _paths_in_line(line, offset)
        if "`" in line:
            for match in _CODE_SPAN.finditer(line):
                ref = _code_span_path(match[1])
                if ref is not None:
                    yield offset + match.start(), ref


def extract_file_refs(text: str) -> tuple[str, ...]:
    """File paths a memory cites (seed 000 STEP 2a), deduplicated, in order of appearance.

    Found: paths containing ``/`` that end in a ``FILE_EXTENSIONS`` extension,
    anywhere in the text (quoted, bold, in parentheses, before a non-ASCII
    particle); and whole backticked spans naming a file, which may also be a
    bare name (``renv.lock``, never ``*.md``) or a glob (``src/**/*.ts``).
    Line suffixes (``file.ts:186``, ``#L10-L20``) and trailing punctuation are
    dropped, a leading ``./`` removed. URLs are not file references.
    """
    seen: dict[str, None] = {}
    for _, ref in sorted(_file_ref_positions(text)):
        seen.setdefault(_normalise_path(ref), None)
    return tuple(seen)


# --- STEP 2b: symbol references -----------------------------------------------------------

#: Shorter names are too often words or loop variables to be evidence.
MIN_SYMBOL_LENGTH = 3
#: CamelCase needs this many humps (an upper-case letter followed by a lower-case one).
MIN_CAMEL_HUMPS = 2
#: Names that look like symbols but name products, services or agent tools.
NOT_SYMBOLS: frozenset[str] = frozenset(
    {
        *("GitHub", "GitLab", "BitBucket", "JavaScript", "TypeScript", "CoffeeScript"),
        *("PowerShell", "PowerPoint", "SharePoint", "OneDrive", "OneNote", "DropBox"),
        *("YouTube", "LinkedIn", "FaceBook", "WhatsApp", "TikTok", "PayPal", "WordPress"),
        *("DevOps", "DevTools", "DevRel", "DevEx", "NumPy", "SciPy", "PyTorch", "PyPI"),
        *("TensorFlow", "PyCharm", "WebStorm", "PhpStorm", "JetBrains", "IntelliJ"),
        *("LangChain", "LlamaIndex", "HuggingFace", "DeepMind", "DeepSeek", "OpenRouter"),
        *("PostHog", "TradingView", "QuickLook", "LiveKit", "CloudFlare", "DigitalOcean"),
        *("StackOverflow", "JupyterLab", "JupyterHub", "VirtualBox", "DuckDuckGo"),
        *("ElasticSearch", "SvelteKit", "MacBook", "AirPods", "AppleScript", "GoogleDrive"),
        *("ClaudeCode", "OpenCode", "OpenClaw", "OpenAI", "ChatGPT", "LaTeX", "PyMuPDF"),
        # Claude Code tools and hook events: configuration words, not repository code.
        *("WebSearch", "WebFetch", "TodoWrite", "NotebookEdit", "MultiEdit", "ExitPlanMode"),
        *("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd"),
        *("PreCompact", "SubagentStop", "AskUserQuestion", "Bash", "Read", "Write", "Edit"),
        *("Grep", "Glob", "Task", "Agent", "Skill"),
    }
)
#: Words followed by ``(`` in code that are syntax, not functions.
_KEYWORDS: frozenset[str] = frozenset(
    {
        *("if", "for", "while", "switch", "catch", "return", "elif", "else", "and", "not"),
        *("with", "match", "case", "sizeof", "typeof", "await", "yield", "lambda", "function"),
        *("def", "class", "new", "super", "self", "this", "assert", "import", "require"),
    }
)
_WIKILINK = re.compile(r"\[\[[^\]\n]*\]\]")
_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")
_FILE_NAME_AHEAD = re.compile(rf"\.(?i:{_EXT})(?![A-Za-z0-9_])")
_IDENTIFIER_CHARS = re.compile(r"[A-Za-z0-9_]+")
_DEFINITION = re.compile(r"\b(?:def|fn|func)[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
# Starts with a character class so the scan skips lower-case text at C speed; the
# lookbehind then rejects a capital inside a word. Hump count is checked after.
_CAMEL = re.compile(
    r"[A-Z](?<![A-Za-z0-9_][A-Z])[A-Za-z0-9]*?[a-z][A-Za-z0-9]*?[A-Z][a-z][A-Za-z0-9]*"
    r"(?![A-Za-z0-9_])"
)
_HUMP = re.compile(r"[A-Z][a-z]")
_MC_NAME = re.compile(r"^Ma?c[A-Z][a-z]")
_CALL_IN_CODE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\(")
_DECLARATION_IN_CODE = re.compile(
    r"\b(?:class|struct|interface|enum|trait|function|impl|module)[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
)


def _symbol_text(text: str) -> str:
    """The text symbols are read from: fences, URLs, wikilinks, link targets blanked.

    Fenced blocks are dropped because they hold examples and commands far
    more often than the repository's own code.
    """
    text = _without_urls(blank_fenced(text))
    if "[[" in text:
        text = _WIKILINK.sub(_blank, text)
    if "](" in text:
        text = _LINK_TARGET.sub(_blank, text)
    return text


def _inside_path(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is part of a path or file name (``src/MyWidget.tsx``)."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before in "/\\" or after in "/\\":
        return True
    return after == "." and _FILE_NAME_AHEAD.match(text, end) is not None


def _is_camel_symbol(word: str) -> bool:
    """CamelCase with at least two humps that is not a product name or a surname."""
    if len(_HUMP.findall(word)) < MIN_CAMEL_HUMPS:
        return False
    return word not in NOT_SYMBOLS and _MC_NAME.match(word) is None


def _is_symbol_name(name: str) -> bool:
    return (
        len(name) >= MIN_SYMBOL_LENGTH
        and name not in _KEYWORDS
        and name not in NOT_SYMBOLS
        and any(ch.isalpha() for ch in name)
    )


def _empty_calls(line: str) -> Iterator[tuple[int, str]]:
    """(start, name) of each ``name()`` in a line.

    Found from each ``()`` backwards (on the reversed line, so the regex runs
    forward over the name only) rather than by a regex trying every word.
    """
    reverse = line[::-1]
    position = line.find("()")
    while position != -1:
        match = _IDENTIFIER_CHARS.match(reverse, len(line) - position)
        if match is not None:
            name = match.group()[::-1]
            if not name[0].isdigit():
                yield len(line) - match.end(), name
        position = line.find("()", position + 2)


def _line_symbols(text: str) -> Iterator[tuple[int, str]]:
    """``name()`` and ``def|fn|func name`` anywhere, and what backticked code names."""
    for offset, line in _lines(text):
        found: list[tuple[int, str]] = []
        if "()" in line:
            found += _empty_calls(line)
        if "def " in line or "fn " in line or "func " in line:
            found += ((match.start(1), match[1]) for match in _DEFINITION.finditer(line))
        for start, name in found:
            if _is_symbol_name(name) and not _inside_path(line, start, start + len(name)):
                yield offset + start, name
        if "`" in line:
            yield from _code_span_symbols(line, offset)


def _code_span_symbols(line: str, offset: int) -> Iterator[tuple[int, str]]:
    """Inside backticks: calls with arguments (``spawn(x)``), ``class|struct|enum|... Name``."""
    for span in _CODE_SPAN.finditer(line):
        start = offset + span.start(1)
        for pattern in (_CALL_IN_CODE, _DECLARATION_IN_CODE):
            for match in pattern.finditer(span[1]):
                if _is_symbol_name(match[1]):
                    yield start + match.start(1), match[1]


def _camel_symbols(text: str) -> Iterator[tuple[int, str]]:
    for match in _CAMEL.finditer(text):
        word = match.group()
        if _is_camel_symbol(word) and not _inside_path(text, match.start(), match.end()):
            yield match.start(), word


def extract_symbol_refs(text: str) -> tuple[str, ...]:
    """Function and class names a memory cites (seed 000 STEP 2b), in order of appearance.

    Found: ``name()`` (the last part of ``obj.name()``), ``def name``,
    ``fn name``, ``func name``, CamelCase words with at least two humps
    (``EffectStack``, not ``Redis`` or ``HTTPServer``) except product names;
    inside backticks also ``name(args)`` and ``class|struct|enum|... Name``.
    Not read: fenced code blocks, paths and file names, URLs, wikilinks, link
    targets. Conservative: a false symbol makes a memory look stale, a
    missed one costs nothing.
    """
    cleaned = _symbol_text(text)
    found = sorted([*_line_symbols(cleaned), *_camel_symbols(cleaned)])
    return tuple(dict.fromkeys(symbol for _, symbol in found))


# --- Scope --------------------------------------------------------------------------------

_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")


def scope(ref: str, top_level_dirs: frozenset[str]) -> Scope:
    """Whether a file reference can be checked against this repository (seed 000 STEP 2a).

    UNVERIFIABLE, as in the seed: rooted outside the repository (``~``, ``/``,
    ``$VAR``), a URL, or a path whose first segment is not a top-level
    directory of the repository. Two tightenings of the seed's intent: a
    Windows drive (``C:/``) is rooted outside too, and the first-segment test
    applies to every path with a ``/`` (the seed's ``(REPO / "..").exists()``
    would have called ``../x.ts`` checkable). A bare name is REPO_RELATIVE.
    """
    if ref.startswith(("~", "/", "$", "http://", "https://")) or _DRIVE.match(ref):
        return "UNVERIFIABLE"
    first, slash, _ = ref.partition("/")
    if slash and first not in top_level_dirs:
        return "UNVERIFIABLE"
    return "REPO_RELATIVE"


# --- The repository view ------------------------------------------------------------------

#: Folders never listed nor read: dependencies, build output, caches, VCS data.
SKIP_DIRS: frozenset[str] = frozenset(
    {
        *(".git", ".hg", ".svn", "node_modules", "bower_components", ".venv", "venv"),
        *("__pycache__", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache"),
        *("build", "dist", "target", "out", ".next", ".nuxt", ".svelte-kit", ".cache"),
        *(".gradle", ".terraform", "coverage", ".trash", "_backup"),
    }
)
#: Memory folders inside a repository are listed but not searched for symbols:
#: a memory naming a symbol must not vouch for that symbol itself.
_MEMORY_DIR = re.compile(r"(?:^|/)\.claude/(?:memory|agent-memory|projects/[^/]+/memory)/")
#: Past this many files the listing stops and absent files become unverifiable.
MAX_REPO_FILES = 200_000
#: Larger files (bundles, lockfiles, data) are not searched for symbols.
MAX_TEXT_FILE_BYTES = 1024 * 1024
#: Past this many bytes read, symbol search stops and absent symbols become unverifiable.
MAX_SCAN_BYTES = 256 * 1024 * 1024
#: Identifiers longer than this are blobs (base64, hashes), not names.
MAX_IDENTIFIER_LENGTH = 200
GIT_TIMEOUT_SECONDS = 60.0
_BINARY_EXTENSIONS: frozenset[str] = frozenset(
    {
        *("png", "jpg", "jpeg", "gif", "webp", "ico", "bmp", "tiff", "svgz", "pdf", "psd"),
        *("zip", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "jar", "war", "whl", "egg"),
        *("so", "dylib", "dll", "exe", "o", "a", "lib", "class", "pyc", "pyo", "wasm"),
        *("woff", "woff2", "ttf", "otf", "eot", "mp3", "mp4", "wav", "ogg", "mov", "avi"),
        *("sqlite", "db", "bin", "dat", "npy", "npz", "pkl", "parquet", "onnx", "pt"),
    }
)
_IDENTIFIER_BYTES = re.compile(rb"[A-Za-z0-9_]{%d,}" % MIN_SYMBOL_LENGTH)


def _is_glob(ref: str) -> bool:
    return any(ch in ref for ch in "*?[")


def _suffixes(paths: Iterable[str]) -> frozenset[str]:
    """Every path and each of its tails after a ``/``: ``a/b/c.ts``, ``b/c.ts``, ``c.ts``."""
    tails: set[str] = set()
    for path in paths:
        tails.add(path)
        start = path.find("/")
        while start != -1:
            tails.add(path[start + 1 :])
            start = path.find("/", start + 1)
    return frozenset(tails)


@dataclass(frozen=True, slots=True, eq=False)
class RepoView:
    """What a repository holds, gathered once: its files and the identifiers in its text.

    ``files`` are repository-relative POSIX paths; ``identifiers`` every run
    of ``[A-Za-z0-9_]`` (3 to 200 long) in its text files. ``files_complete``
    / ``symbols_complete`` are False when a size cap cut the scan short: an
    absent file or symbol is then unverifiable, not missing.
    """

    root: Path
    files: frozenset[str]
    identifiers: frozenset[str]
    top_level_dirs: frozenset[str]
    files_complete: bool = True
    symbols_complete: bool = True
    _tails: frozenset[str] = field(default=frozenset(), repr=False)
    _haystack: str = field(default="", repr=False)
    _cache: dict[str, bool] = field(default_factory=dict, repr=False)

    @classmethod
    def build(
        cls,
        root: Path,
        files: Iterable[str],
        identifiers: Iterable[str],
        *,
        files_complete: bool = True,
        symbols_complete: bool = True,
    ) -> RepoView:
        """A view from data already gathered (pure; tests and ``scan`` use it)."""
        paths = frozenset(files)
        names = frozenset(identifiers)
        return cls(
            root=root,
            files=paths,
            identifiers=names,
            top_level_dirs=frozenset(p.split("/", 1)[0] for p in paths if "/" in p),
            files_complete=files_complete,
            symbols_complete=symbols_complete,
            _tails=_suffixes(paths),
            # One string to search when a symbol is not a whole identifier (see has_symbol).
            _haystack="\n".join(sorted(names)),
        )

    @classmethod
    def scan(cls, repo: Path) -> RepoView:
        """List ``repo`` and read its text files (the I/O edge; build once per repository).

        A git work tree is listed with ``git ls-files`` (tracked plus
        untracked-not-ignored files), anything else by a walk; ``SKIP_DIRS``
        are left out either way, memory folders are listed but not searched.
        """
        listed, files_complete = _list_files(repo)
        files, identifiers, symbols_complete = _read_identifiers(repo, listed)
        return cls.build(
            repo,
            files,
            identifiers,
            files_complete=files_complete,
            symbols_complete=symbols_complete,
        )

    def has_file(self, ref: str) -> bool:
        """Whether a file equals ``ref`` or ends with ``/<ref>``, or ``ref`` as a glob matches."""
        if not _is_glob(ref):
            return ref in self._tails
        key = f"glob:{ref}"
        if key not in self._cache:
            pattern = re.compile(f"(?:{translate(ref)})|(?:{translate('*/' + ref)})")
            self._cache[key] = any(pattern.match(path) for path in self.files)
        return self._cache[key]

    def has_symbol(self, symbol: str) -> bool:
        """Whether ``symbol`` occurs in any scanned file, as the seed's Grep would find it.

        A symbol made of identifier characters occurs in a text exactly when
        it lies inside one identifier run, so a whole-run hit is a set lookup
        and anything else one substring search over the distinct runs.
        """
        if symbol in self.identifiers:
            return True
        key = f"symbol:{symbol}"
        if key not in self._cache:
            self._cache[key] = symbol in self._haystack
        return self._cache[key]


def _skipped(path: str) -> bool:
    return any(part in SKIP_DIRS for part in path.split("/"))


def _git_files(repo: Path) -> list[str] | None:
    """``git ls-files`` of a work tree (tracked and untracked-not-ignored), or None."""
    if not (repo / ".git").exists():
        return None
    command = ["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others"]
    try:
        done = subprocess.run(
            [*command, "--exclude-standard"],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return list(dict.fromkeys(name for name in names if name))


def _walk_files(repo: Path, failures: list[OSError]) -> Iterator[str]:
    """Repository-relative paths of files under ``repo``, skipping ``SKIP_DIRS``.

    Folders that cannot be listed are appended to ``failures``.
    """
    for directory, subdirs, names in os.walk(repo, onerror=failures.append):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
        relative = os.path.relpath(directory, repo)
        prefix = "" if relative == "." else relative.replace(os.sep, "/") + "/"
        for name in sorted(names):
            yield prefix + name


def _list_files(repo: Path) -> tuple[list[str], bool]:
    """(paths, complete): the repository's files, capped at ``MAX_REPO_FILES``.

    Incomplete when the cap is reached or a folder could not be listed.
    """
    failures: list[OSError] = []
    listed = _git_files(repo)
    source: Iterable[str] = listed if listed is not None else _walk_files(repo, failures)
    paths: list[str] = []
    for path in source:
        if _skipped(path):
            continue
        if len(paths) >= MAX_REPO_FILES:
            return paths, False
        paths.append(path)
    return paths, not failures


def _read_text_file(path: Path) -> tuple[bytes | None, bool]:
    """(bytes or None, exists): a file's bytes when it is a small regular text file."""
    try:
        data, _ = read_regular(path, max_bytes=MAX_TEXT_FILE_BYTES)
    except FileNotFoundError:
        return None, os.path.lexists(path)  # a dangling symlink still names a file
    except OSError:
        return None, True
    # A NUL byte early on: a binary file whatever its name says.
    return (None if b"\0" in data[:8192] else data), True


def _read_identifiers(repo: Path, listed: list[str]) -> tuple[list[str], set[str], bool]:
    """(files that exist, identifiers, complete): one read-only pass over the text files.

    Files listed by git but deleted from the work tree are dropped here, so a
    file removed and not yet committed counts as gone. Incomplete when
    ``MAX_SCAN_BYTES`` ran out before every text file was read.
    """
    files: list[str] = []
    identifiers: set[bytes] = set()
    budget = MAX_SCAN_BYTES
    complete = True
    for path in listed:
        if not _searchable(path) or budget <= 0:
            complete = complete and not _searchable(path)
            if os.path.lexists(repo / path):
                files.append(path)
            continue
        data, exists = _read_text_file(repo / path)
        if exists:
            files.append(path)
        if data is not None:
            budget -= len(data)
            identifiers.update(_IDENTIFIER_BYTES.findall(data))
    names = {name.decode("ascii") for name in identifiers if len(name) <= MAX_IDENTIFIER_LENGTH}
    return files, names, complete


def _searchable(path: str) -> bool:
    """Whether a listed path is read for symbols (not binary by name, not a memory)."""
    extension = path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    return extension not in _BINARY_EXTENSIONS and _MEMORY_DIR.search(path) is None


# --- STEP 2: checking a memory ------------------------------------------------------------


def memory_text(memory: MemoryFile) -> str:
    """The text references are read from: the description, then the body.

    The seed reads the body and "quoted paths in front matter descriptions";
    the title is a label and is not read.
    """
    return f"{memory.description or ''}\n{memory.body}"


def check_refs(memory: MemoryFile, repo: RepoView | None) -> RefCheck:
    """Extract a memory's references and verify them against ``repo`` (seed 000 STEP 2a, 2b).

    File references: UNVERIFIABLE by ``scope``, else present or missing by
    ``RepoView.has_file``. Symbols: present or missing by
    ``RepoView.has_symbol``. With no repository every reference, symbols
    included, is unverifiable; an absent file or symbol whose scan was cut
    short by a cap is unverifiable too.
    """
    text = memory_text(memory)
    files = extract_file_refs(text)
    symbols = extract_symbol_refs(text)
    if repo is None:
        return RefCheck(unverifiable=files + symbols)
    present: list[str] = []
    missing: list[str] = []
    unverifiable: list[str] = []
    for ref in files:
        if scope(ref, repo.top_level_dirs) == "UNVERIFIABLE":
            unverifiable.append(ref)
        elif repo.has_file(ref):
            present.append(ref)
        else:
            (missing if repo.files_complete else unverifiable).append(ref)
    found = [s for s in symbols if repo.has_symbol(s)]
    absent = [s for s in symbols if s not in found]
    if not repo.symbols_complete:
        unverifiable.extend(absent)
        absent = []
    return RefCheck(
        present=tuple(present),
        missing=tuple(missing),
        unverifiable=tuple(unverifiable),
        symbols_present=tuple(found),
        symbols_missing=tuple(absent),
    )
