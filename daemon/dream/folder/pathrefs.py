"""Seed 000 STEP 2a: the file references of a memory, and whether one can be checked. Pure.

``extract_file_refs`` finds the paths a memory cites; ``scope`` says whether a
path can be checked against the repository (REPO_RELATIVE) or not
(UNVERIFIABLE: rooted outside it, a URL, under no top-level folder of it).

Bias, on purpose: a reference that is invented or wrongly judged missing
makes a memory look stale, and stale memories get trashed. So extraction
prefers to miss a reference: a bare file name counts only in backticks or
with a line suffix, and never a ``.md`` name (those name sibling memories).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from dreamd.dream.folder.reftext import CODE_SPAN, lines_with_offsets, without_urls

__all__ = [
    "BARE_NAME_EXCLUDED_EXTENSIONS",
    "EXTENSIONS_PATTERN",
    "FILE_EXTENSIONS",
    "Scope",
    "extract_file_refs",
    "is_glob",
    "scope",
]

Scope = Literal["REPO_RELATIVE", "UNVERIFIABLE"]

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

#: The extensions as a regular expression alternation, longest first.
EXTENSIONS_PATTERN = "|".join(sorted(FILE_EXTENSIONS, key=lambda e: (-len(e), e)))
_SEGMENT = r"[A-Za-z0-9_.@+-]+"
# Line suffixes dropped from a reference: file.ts:186, file.ts:186:12, file.ts:10-20, #L5-L9.
_LINE_SUFFIX = r"(?P<line>:\d+(?::\d+)?(?:-\d+)?|#L\d+(?:-L?\d+)?)?"
# An optional root: ``~/``, ``$VAR/``, ``${VAR}/``, ``C:/`` or ``/``.
_ROOT = r"(?:(?:~|\$\{?\w+\}?|[A-Za-z]:)/|/)?"
# ASCII only: in Korean or Japanese prose a particle follows the path with no space.
_PATH_IN_TEXT = re.compile(
    rf"(?<![A-Za-z0-9_.@+~$/\\\[\]-])"
    rf"(?P<ref>{_ROOT}(?:{_SEGMENT}/+)*{_SEGMENT}\.(?i:{EXTENSIONS_PATTERN}))"
    rf"{_LINE_SUFFIX}"
    r"(?![A-Za-z0-9_@+~$/\\-]|\.[A-Za-z0-9_])"
)
_PATH_IN_CODE = re.compile(
    rf"(?P<ref>{_ROOT}(?:[A-Za-z0-9_.@+*?-]+/+)*[A-Za-z0-9_.@+*?-]*\.(?i:{EXTENSIONS_PATTERN})){_LINE_SUFFIX}"
)


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
    return ref if _is_bare_name_ref(ref) and not is_glob(ref) else None


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
    for offset, line in lines_with_offsets(without_urls(text)):
        if _has_path_cue(line):
            yield from _paths_in_line(line, offset)
        if "`" in line:
            for match in CODE_SPAN.finditer(line):
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


def is_glob(ref: str) -> bool:
    """Whether a reference is a glob (``src/**/*.ts``) rather than one path."""
    return any(ch in ref for ch in "*?[")


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
