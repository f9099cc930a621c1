"""The ten real memory folders of ``../shared/fixtures/memory``, laid out as they live.

Each folder is copied (into a test's temporary directory, never into the
repository) where it lived: inside its repository's ``.claude/`` for the seven
whose repository ``SOURCES.md`` names, in ``~/.claude/projects/<name>/memory/``
for the three copied out of ``~/.claude`` backups (their project code is in no
repository, so they have none).

Source trees. ``SOURCES.md`` does not list the repositories' trees, only how
many backticked paths resolve and some that do not. So a tree is rebuilt from
what it states: every path the folder's memories cite (as dreamd extracts
them, repository-relative) is created, except the ones ``SOURCES.md`` names
as unresolved. Where it names all of them (ActorForth: none; guard-game-design:
2 of 9; deathwatch: 2 of 48) the tree is exact for those references; where it
names only some (bga-assistant 3 of 27, application-pipeline 3 of 5,
reviewer-performance 3 of 13, the partial folder 0 of 2) the unnamed ones are
created too, so those folders look fresher than they are. Each created file
holds the symbol names its memories cite, so a symbol tied to a present path
is found. Each repository is one git commit dated as ``SOURCES.md`` dates the
last commit touching the memory folder.

Mtimes follow a fixed plan, not the checkout time: every file of a folder gets
that same date at noon UTC (a tie, as a real checkout gives), so "newer" is
never decided by when the test ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.pathrefs import extract_file_refs, is_glob
from dreamd.dream.folder.refs import memory_text
from dreamd.dream.folder.symbolrefs import extract_symbol_refs
from tests.conftest import SHARED_FIXTURES

__all__ = ["FIXTURES", "REAL", "Real", "lay_out", "real_folders_present"]

FIXTURES = SHARED_FIXTURES / "memory"


@dataclass(frozen=True, slots=True)
class Real:
    """One real folder: where it lived, its repository (None: none) and the plan's date."""

    name: str
    repo: str | None  # a directory name for the rebuilt repository
    inside: str  # the folder's path inside the repository, or under ~/.claude/projects
    day: str  # SOURCES.md: last commit touching the path
    unresolved: tuple[str, ...] = ()  # paths SOURCES.md names as absent from the tree


REAL: tuple[Real, ...] = (
    Real("AnotherSava__bga-assistant__claude-memory", "bga-assistant", ".claude/memory",
         "2026-08-10", ("src/browser/browse.py", "innovation/card.py",
                        "scripts/fetch_full_history.js")),
    Real("4444J99__application-pipeline__claude-memory", "application-pipeline",
         ".claude/memory", "2026-04-03",
         ("resumes/independent-engineer-resume.html", "blocks/framings/independent-engineer.md",
          "config-health.json")),
    Real("BobG1983__breaker__agent-memory-reviewer-performance", "breaker",
         ".claude/agent-memory/reviewer-performance", "2026-04-16",
         ("breaker-game/src/bolt/builder/core.rs", "src/runner/app.rs",
          "breaker-game/src/shared/test_utils.rs")),
    Real("BobG1983__breaker__agent-memory-guard-game-design", "breaker",
         ".claude/agent-memory/guard-game-design", "2026-04-08",
         ("docs/todos/detail/mod-system-design.md", ".claude/specs/audit-design-coherence.md")),
    Real("BobG1983__breaker__agent-memory-reviewer-performance-partial", "breaker-partial",
         ".claude/agent-memory/reviewer-performance", "2026-04-16"),
    Real("ActorForth__ActorForth__claude-memory", "ActorForth", ".claude/memory", "2026-03-10"),
    Real("Aleslammer__deathwatch_foundryvtt__claude-memory", "deathwatch_foundryvtt",
         ".claude/memory", "2026-05-15", ("MACRO-GUIDE.md", "coverage/lcov-report/index.html")),
    Real("1000ssam__claude-config__memory", None, "-Users-1000ssam/memory", "2026-06-20"),
    Real("Aldohlys__claude-config-backup__C--Users-aldoh-Documents-NewTrading", None,
         "C--Users-aldoh-Documents-NewTrading/memory", "2026-06-25"),
    Real("Aldohlys__claude-config-backup__C--Users-aldoh-Documents-RApplication", None,
         "C--Users-aldoh-Documents-RApplication/memory", "2026-06-30"),
)  # fmt: skip


def real_folders_present() -> bool:
    """Whether the shared fixtures are here (tests skip cleanly without them)."""
    return all((FIXTURES / real.name).is_dir() for real in REAL)


def _noon(day: str) -> float:
    return datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC).timestamp()


def _copy(source: Path, target: Path, day: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    stamp = _noon(day)
    for path in sorted(source.iterdir()):
        copied = target / path.name
        shutil.copyfile(path, copied)
        copied.chmod(0o644)
        os.utime(copied, (stamp, stamp))


def _cited(folder: Path) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(repository-relative path, symbols of the memory citing it) for every cited path."""
    for memory in load_folder(folder, None).files:
        text = memory_text(memory)
        symbols = extract_symbol_refs(text)
        for ref in extract_file_refs(text):
            if not ref.startswith(("~", "/", "$", "..")) and ":" not in ref and not is_glob(ref):
                yield ref, symbols


def _rebuild_tree(repo: Path, folder: Path, unresolved: tuple[str, ...]) -> None:
    """Every cited path SOURCES.md does not name as absent, holding its memories' symbols."""
    for ref, symbols in _cited(folder):
        if ref in unresolved or any(u.endswith("/" + ref) for u in unresolved):
            continue
        path = repo / ref
        if path.exists() or folder in path.parents:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("rebuilt from SOURCES.md\n" + "\n".join(symbols) + "\n")


def _git(repo: Path, *args: str, day: str) -> None:
    when = f"{day}T12:00:00+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    env |= {"GIT_AUTHOR_NAME": "fixture", "GIT_AUTHOR_EMAIL": "fixture@localhost"}
    env |= {"GIT_COMMITTER_NAME": "fixture", "GIT_COMMITTER_EMAIL": "fixture@localhost"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def lay_out(root: Path, home: Path) -> list[Path]:
    """Lay the ten folders out under ``root`` (repositories) and ``home``; their paths."""
    folders: list[Path] = []
    repos: dict[str, str] = {}
    for real in REAL:
        if real.repo is None:
            target = home / ".claude" / "projects" / real.inside
        else:
            target = root / real.repo / real.inside
            repos.setdefault(real.repo, real.day)
        _copy(FIXTURES / real.name, target, real.day)
        if real.repo is not None:
            _rebuild_tree(root / real.repo, target, real.unresolved)
        folders.append(target)
    for name, day in repos.items():
        repo = root / name
        _git(repo, "init", "-q", "-b", "main", day=day)
        _git(repo, "add", "-A", day=day)
        _git(repo, "commit", "-q", "-m", "the tree SOURCES.md describes", day=day)
        stamp = _noon(day)
        for real in REAL:  # git add leaves mtimes alone; keep the plan's anyway
            if real.repo == name:
                for path in (repo / real.inside).iterdir():
                    os.utime(path, (_noon(real.day), _noon(real.day)))
        del stamp
    return folders
