"""Git-managed memory roots (seed 001): the clean-tree gate, read-only layers, dates, commits.

This is an I/O edge: every function but ``absolutize_relative_dates`` runs the
real ``git`` program, always as ``git -C <root> …`` with an argument list,
never through a shell. Rules:

- a run starts only on a clean tree (``status_clean``); the caller refuses
  otherwise and touches nothing (seed 001 Phase 0 step 2);
- read-only layers (``AGENTS.md``, ``CLAUDE.md`` and any configured) are
  never staged or committed: ``commit`` refuses an explicit one and excludes
  them from a folder (Phase 0 step 3, checklist);
- a relative date becomes the absolute date counted from the day its line was
  committed (``git blame``); a line not committed yet, or a word that is not
  one day, is left as written and flagged for the user (Phase 2);
- one commit per logical unit with a plain message, and never a push
  (principle 1): nothing here pushes.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Literal

from dreamd.dream.folder.checks import Finding
from dreamd.dream.folder.dates import RelativeDate, relative_date_mentions
from dreamd.dream.folder.layers import READ_ONLY_LAYERS, is_read_only
from dreamd.dream.model import GitFacts
from dreamd.errors import DreamdError, Refused

__all__ = [
    "FALLBACK_EMAIL",
    "FALLBACK_NAME",
    "READ_ONLY_LAYERS",
    "Conversion",
    "GitError",
    "ReadOnlyLayer",
    "absolutize_relative_dates",
    "changed_paths",
    "commit",
    "folder_facts",
    "head",
    "is_inside",
    "is_read_only",
    "is_work_tree",
    "last_commit_times",
    "line_dates",
    "read_only_changes",
    "status_clean",
]

#: Identity for commits in a repository that has none configured.
FALLBACK_NAME = "dreamd"
FALLBACK_EMAIL = "dreamd@localhost"
#: A git call that takes longer than this is treated as failed.
GIT_TIMEOUT_SECONDS = 120

# Variables that would point git at another repository or index than ``-C root``.
_FOREIGN_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR")
_ZERO_SHA = re.compile(r"^0+$")


class GitError(DreamdError):
    """A git command failed; the message names the command and git's own words."""


class ReadOnlyLayer(Refused):
    """A read-only layer was about to be staged or committed."""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _FOREIGN_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"  # reading status must not write the index
    return env


def _git(
    root: Path, *args: str, stdin: bytes | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Run ``git -C root *args``; raise GitError on failure when ``check``."""
    command = ["git", "-C", str(root), *args]
    verb = next((a for a in args if not a.startswith("-") and "=" not in a), "")
    try:
        done = subprocess.run(
            command,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            env=_env(),
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(f"git {verb} in {root} could not run: {error}") from error
    if check and done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {verb} in {root} failed: {said[0] if said else 'no message'}")
    return done


def _text(output: bytes) -> str:
    return output.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- the gate


def is_work_tree(path: Path) -> Path | None:
    """Seed 001 Phase 0: the root of the git work tree holding ``path``, or None.

    None also when git is not installed or ``path`` does not exist.
    """
    folder = path if path.is_dir() else path.parent
    if not folder.is_dir():
        return None
    try:
        done = _git(folder, "rev-parse", "--show-toplevel", check=False)
    except GitError:
        return None
    top = _text(done.stdout).strip()
    return Path(top) if done.returncode == 0 and top else None


def status_clean(root: Path, *, within: Path | None = None) -> tuple[bool, list[str]]:
    """Seed 001 Phase 0 step 2: (clean?, ``git status --porcelain`` lines).

    Untracked files count (each listed), ignored ones do not. ``within``
    limits the check to one folder of the tree.
    """
    args = ["-c", "core.quotePath=false", "status", "--porcelain", "--untracked-files=all"]
    if within is not None:
        args += ["--", f":(literal){_relative(root, within)}"]
    lines = [line for line in _text(_git(root, *args).stdout).splitlines() if line.strip()]
    return not lines, lines


def head(root: Path) -> str | None:
    """The commit HEAD points at (the run's starting point), None in an empty repository."""
    done = _git(root, "rev-parse", "--verify", "--quiet", "HEAD", check=False)
    sha = _text(done.stdout).strip()
    return sha if done.returncode == 0 and sha else None


# --------------------------------------------------------------------------- read-only layers


def changed_paths(root: Path, since: str) -> list[str]:
    """``git diff --name-only <since>..HEAD``: every path the run's commits touched."""
    done = _git(root, "diff", "--name-only", "-z", "--no-renames", since, "HEAD", "--")
    return [name for name in _text(done.stdout).split("\0") if name]


def read_only_changes(root: Path, since: str, extra: Iterable[str] = ()) -> list[str]:
    """Seed 001 checklist: read-only layers changed since ``since`` (must be empty)."""
    extra = tuple(extra)
    return [name for name in changed_paths(root, since) if is_read_only(name, extra)]


def last_commit_times(root: Path, folder: Path) -> dict[str, float]:
    """Seed 001 Phase 2: each file directly in ``folder`` → the time of its last commit.

    One ``git log --name-only`` pass over the folder, newest commit first, so the
    first time a name is seen is its last commit. Files never committed are absent.
    """
    relative = _relative(root, folder)
    spec = f":(literal){relative}" if relative != "." else "."
    done = _git(
        root, "-c", "core.quotePath=false", "log", "--format=%x01%ct", "--name-only",
        "--no-renames", "--", spec, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {}
    prefix = "" if relative == "." else relative + "/"
    times: dict[str, float] = {}
    when = 0.0
    for line in _text(done.stdout).splitlines():
        if line.startswith("\x01"):
            when = float(line[1:] or 0)
        elif line.startswith(prefix) and "/" not in line[len(prefix) :]:
            times.setdefault(line[len(prefix) :], when)
    return times


def folder_facts(root: Path, folder: Path, dated: Iterable[str] = ()) -> GitFacts:
    """What git says about a memory folder (seed 001): HEAD, cleanliness, commit times, and
    the line dates of the ``dated`` files (those holding relative dates)."""
    _clean, dirty = status_clean(root, within=folder)
    return GitFacts(
        root=root,
        head=head(root),
        committed=last_commit_times(root, folder),
        line_dates={name: line_dates(root, folder / name) for name in dated},
        dirty=tuple(dirty),
    )


# --------------------------------------------------------------------------- dates


def line_dates(
    root: Path, file: Path, *, clock: Literal["committer", "author"] = "committer"
) -> dict[int, date]:
    """Seed 001 Phase 2: line number (1-based) → the day that line was committed.

    From ``git blame --line-porcelain`` on the working-tree file, in the
    commit's own time zone. Lines not committed yet have no date; an
    untracked file, or one git cannot blame, gives an empty mapping.
    """
    done = _git(root, "blame", "--line-porcelain", "--", _relative(root, file), check=False)
    if done.returncode != 0:
        return {}
    return _parse_blame(_text(done.stdout), clock)


def _parse_blame(output: str, clock: str) -> dict[int, date]:
    dates: dict[int, date] = {}
    sha, line, seconds, zone = "", 0, 0, "+0000"
    for row in output.split("\n"):
        if row.startswith("\t"):
            if not _ZERO_SHA.match(sha):
                dates[line] = _local_day(seconds, zone)
            continue
        header = re.match(r"^([0-9a-f]{40,64}) \d+ (\d+)", row)
        if header:
            sha, line = header.group(1), int(header.group(2))
        elif row.startswith(f"{clock}-time "):
            seconds = int(row.split()[1])
        elif row.startswith(f"{clock}-tz "):
            zone = row.split()[1]
    return dates


def _local_day(seconds: int, zone: str) -> date:
    sign = -1 if zone.startswith("-") else 1
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5])) * sign
    return datetime.fromtimestamp(seconds, timezone(offset)).date()


@dataclass(frozen=True, slots=True)
class Conversion:
    """One relative date turned absolute."""

    line: int
    original: str
    replacement: str


def _undatable(mention: RelativeDate, why: str) -> Finding:
    message = f"relative date '{mention.phrase}' left as written: {why}; please date it"
    return Finding("relative-date", mention.line, mention.phrase, message)


def _why_not(mention: RelativeDate, dates: Mapping[int, date]) -> str | None:
    """Why a mention cannot be converted, or None when it can."""
    if mention.precision != "day" or mention.offset_days is None:
        return "it does not name a single day"
    if mention.generic:
        return "it may be a general rule, not a day"
    if mention.line not in dates:
        return "its line has no commit date (not committed yet)"
    return None


def absolutize_relative_dates(
    text: str, line_dates: Mapping[int, date]
) -> tuple[str, list[Conversion], list[Finding]]:
    """Seed 001 Phase 2 / seed 004 3b: relative dates → ISO dates from the line's commit day.

    "yesterday" on a line committed 2026-03-25 becomes "2026-03-24"; German
    words too. Pure. Returns the new text, what was converted, and the
    mentions left as written (not one day, possibly a general rule, or a line
    with no commit date) for the user to decide.
    """
    conversions: list[Conversion] = []
    undatable: list[Finding] = []
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for mention in relative_date_mentions(text):
        why = _why_not(mention, line_dates)
        if why is not None:
            undatable.append(_undatable(mention, why))
            continue
        assert mention.offset_days is not None  # _why_not checked it
        day = line_dates[mention.line] + timedelta(days=mention.offset_days)
        edits.setdefault(mention.line, []).append((mention.start, mention.end, day.isoformat()))
        conversions.append(Conversion(mention.line, mention.phrase, day.isoformat()))
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text)
    for number, spans in edits.items():
        line = lines[number - 1]
        for start, end, replacement in sorted(spans, reverse=True):
            line = line[:start] + replacement + line[end:]
        lines[number - 1] = line
    return "".join(lines), conversions, undatable


# --------------------------------------------------------------------------- commits


def _relative(root: Path, path: Path) -> str:
    """``path`` relative to the root, as git wants it; raise if it lies outside."""
    base = root.resolve()
    target = (path if path.is_absolute() else base / path).resolve()
    try:
        relative = target.relative_to(base)
    except ValueError as error:
        raise GitError(f"{path} is outside the git work tree {root}") from error
    return relative.as_posix() if str(relative) != "." else "."


def is_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` lies in the work tree ``root`` (it need not exist)."""
    try:
        _relative(root, path)
    except GitError:
        return False
    return True


def _identity(root: Path) -> list[str]:
    """``-c`` options for the fallback identity, where the repository has none."""
    options = []
    for key, fallback in (("user.name", FALLBACK_NAME), ("user.email", FALLBACK_EMAIL)):
        if _git(root, "config", "--get", key, check=False).returncode != 0:
            options += ["-c", f"{key}={fallback}"]
    return options


def _pathspec_input(specs: Sequence[str]) -> bytes:
    return b"".join(spec.encode("utf-8", "surrogateescape") + b"\0" for spec in specs)


def _changed_files(root: Path, relatives: Sequence[str]) -> list[str]:
    """Every file under ``relatives`` that differs from HEAD: changed, new, deleted, staged."""
    done = _git(
        root, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames",
        "--", *(f":(literal){r}" for r in relatives),
    )  # fmt: skip
    return [entry[3:] for entry in _text(done.stdout).split("\0") if len(entry) > 3]


def commit(
    root: Path, paths: Sequence[Path], message: str, *, read_only: Iterable[str] = ()
) -> str | None:
    """Seed 001: commit exactly ``paths`` (files or folders) as one logical unit; never push.

    Stages additions, changes and deletions under ``paths`` and nothing else;
    read-only layers (``READ_ONLY_LAYERS`` plus ``read_only``) inside a folder
    are left out, and naming one explicitly raises ``ReadOnlyLayer`` before
    anything is staged. The author is the repository's configured identity,
    or ``dreamd <dreamd@localhost>`` where none is set. Returns the new
    commit's sha, or None when nothing under ``paths`` changed.
    """
    extra = tuple(read_only)
    relatives = [_relative(root, path) for path in paths]
    blocked = [r for r in relatives if r != "." and is_read_only(r, extra)]
    if blocked:
        raise ReadOnlyLayer(f"read-only layer, not committed: {', '.join(blocked)}")
    files = [name for name in _changed_files(root, relatives) if not is_read_only(name, extra)]
    if not files:
        return None
    # Exact file names, never a folder: git then cannot pick up a read-only layer or a
    # file nobody named, and ignored files (absent from status) are never forced in.
    _git(
        root, "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul",
        stdin=_pathspec_input([f":(literal){name}" for name in files]),
    )  # fmt: skip
    _git(
        root, *_identity(root), "commit", "--quiet", "-m", message,
        "--pathspec-from-file=-", "--pathspec-file-nul",
        stdin=_pathspec_input([f":(literal){name}" for name in files]),
    )  # fmt: skip
    return _text(_git(root, "rev-parse", "HEAD").stdout).strip()
