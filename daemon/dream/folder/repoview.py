"""What a repository holds, gathered once: ``RepoView`` (seed 000 STEP 2, the I/O edge).

``RepoView.scan`` lists a repository once (``git ls-files`` in a work tree,
else a walk) and collects the identifiers of its text files, so that checking
ten thousand memories costs set lookups, not ten thousand globs and greps.
Read-only: files are opened without blocking, regular files only, within a
size cap; dependencies, build output, caches and VCS data are never listed.

Invariant: anything the view cannot vouch for (under a folder it did not scan,
past its size caps) makes ``files_complete`` / ``symbols_complete`` False, so
the check calls an absent file or symbol UNVERIFIABLE, never missing.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fnmatch import translate
from pathlib import Path

from dreamd.dream.folder.pathrefs import is_glob
from dreamd.dream.folder.symbolrefs import MIN_SYMBOL_LENGTH
from dreamd.fs import read_regular

__all__ = [
    "GIT_TIMEOUT_SECONDS",
    "HISTORY_BUDGET_SECONDS",
    "MAX_IDENTIFIER_LENGTH",
    "MAX_REPO_FILES",
    "MAX_SCAN_BYTES",
    "MAX_TEXT_FILE_BYTES",
    "SKIP_DIRS",
    "RepoView",
]

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
#: Issue 12 item 3: all ``git log -S`` look-ups of one repository together stop after this
#: long; a symbol not looked up in time is unverifiable, never missing.
HISTORY_BUDGET_SECONDS = 30.0
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
    git_history: bool = False
    _tails: frozenset[str] = field(default=frozenset(), repr=False)
    _stems: frozenset[str] = field(default=frozenset(), repr=False)
    _spent: list[float] = field(default_factory=lambda: [0.0], repr=False)
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
        folders: Iterable[str] = (),
        git_history: bool = False,
    ) -> RepoView:
        """A view from data already gathered (pure; tests and ``scan`` use it).

        ``folders``: more folders known to exist (ignored ones listed whole).
        """
        paths = frozenset(files)
        names = frozenset(identifiers)
        tops = {p.split("/", 1)[0] for p in (*paths, *(f + "/" for f in folders)) if "/" in p}
        return cls(
            root=root,
            files=paths,
            identifiers=names,
            top_level_dirs=frozenset(tops),
            files_complete=files_complete,
            symbols_complete=symbols_complete,
            git_history=git_history,
            _tails=_suffixes(paths),
            _stems=frozenset(p.rpartition("/")[2].partition(".")[0] for p in paths),
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
        ignored_files, ignored_folders = _git_ignored(repo)
        return cls.build(
            repo,
            [*files, *ignored_files],
            identifiers,
            files_complete=files_complete,
            symbols_complete=symbols_complete,
            folders=ignored_folders,
            git_history=(repo / ".git").exists(),
        )

    def has_file(self, ref: str) -> bool:
        """Whether a file equals ``ref`` or ends with ``/<ref>``, or ``ref`` as a glob matches.

        Existence is on disk (issue 12, item 5): a file git ignores is still there,
        so a repository-relative path is also looked up under the root itself.
        """
        if not is_glob(ref):
            return ref in self._tails or self._on_disk(ref)
        key = f"glob:{ref}"
        if key not in self._cache:
            pattern = re.compile(f"(?:{translate(ref)})|(?:{translate('*/' + ref)})")
            self._cache[key] = any(pattern.match(path) for path in self.files)
        return self._cache[key]

    def _on_disk(self, ref: str) -> bool:
        """Whether ``root/ref`` exists (never leaving the root: no ``..``, not absolute)."""
        parts = ref.split("/")
        if ref.startswith("/") or ".." in parts or not self.root.is_absolute():
            return False
        key = f"disk:{ref}"
        if key not in self._cache:
            self._cache[key] = os.path.lexists(self.root / ref)
        return self._cache[key]

    def has_module(self, name: str) -> bool:
        """Whether ``name`` is a top-level folder or a file's stem here (``loader`` of
        ``src/loader.py``): a module a qualified symbol can belong to."""
        return name in self.top_level_dirs or name in self._stems

    def ever_had(self, symbol: str) -> bool | None:
        """Whether the repository's history ever contained ``symbol`` (``git log -S``).

        None when it cannot be told: no git history, or the look-ups of this
        repository used up ``HISTORY_BUDGET_SECONDS``. Memory folders
        (``.claude/``) are left out: a memory never vouches for its own symbol.
        """
        key = f"history:{symbol}"
        if key in self._cache:
            return self._cache[key]
        left = HISTORY_BUDGET_SECONDS - self._spent[0]
        if not self.git_history or left <= 0:
            return None
        start = time.monotonic()
        found = _in_history(self.root, symbol, left)
        self._spent[0] += time.monotonic() - start
        if found is not None:
            self._cache[key] = found
        return found

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


def _in_history(root: Path, symbol: str, timeout: float) -> bool | None:
    """``git log --all -S<symbol>``: whether any commit added or removed the string."""
    command = ["git", "-C", str(root), "log", "--all", "--format=%H", "-1", f"-S{symbol}"]
    try:
        done = subprocess.run(
            [*command, "--", ".", ":(exclude).claude"],
            capture_output=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


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


def _git_ignored(repo: Path) -> tuple[list[str], list[str]]:
    """(files, folders) git ignores in a work tree: they exist all the same (issue 12, 5).

    ``git ls-files --others --ignored --exclude-standard --directory``: an ignored
    folder is one entry, not its thousands of files; ``SKIP_DIRS`` stay out.
    """
    if not (repo / ".git").exists():
        return [], []
    command = ["git", "-C", str(repo), "ls-files", "-z", "--others", "--ignored"]
    try:
        done = subprocess.run(
            [*command, "--exclude-standard", "--directory"],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return [], []
    if done.returncode != 0:
        return [], []
    names = done.stdout.decode("utf-8", errors="surrogateescape").split("\0")[:MAX_REPO_FILES]
    kept = [name for name in names if name and not _skipped(name.rstrip("/"))]
    return [n for n in kept if not n.endswith("/")], [
        n.rstrip("/") for n in kept if n.endswith("/")
    ]


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
