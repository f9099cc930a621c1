"""One dream run: find the folders, dream each as its own unit of work, report.

Order per folder (seed 000): inventory → references → staleness with prune
guards and the consult gate → duplicates → contradictions → execute (trash
moves, ``.MEMORY.md.prev``, index rebuild with budget and archive) → report.
``dream.plan`` decides without touching the disk; ``dream.apply`` is the only
step that changes a folder, through the journaling ``Executor``;
``dream.folderrun`` runs one folder's phases, ``dream.applypending`` applies
stored proposals (seed 004).

Repositories are paired with folders only when they are one: the file-system
root, the home directory, or anything that is not a directory is never
scanned as a repository (issue 15, item 3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from dreamd.agentdirs import claude_dir
from dreamd.dream.applypending import apply_pending
from dreamd.dream.discovery import FolderTarget, discover_folders, is_repository
from dreamd.dream.folder import promotion
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import CONSULT_DAYS, consulted_terms, parse_consult_log
from dreamd.dream.folderrun import FolderRun, dream_folder
from dreamd.dream.model import DreamRequest
from dreamd.dream.readevidence import recent_reads
from dreamd.dream.report import RunReport
from dreamd.logs import get_logger
from dreamd.progress import JobProgress
from dreamd.statedb import StateDB
from dreamd.stores.claude_folder import located_folders

__all__ = ["consult_evidence", "default_budget", "run_dream", "undo_line"]

log = get_logger("dreamd.dream")


def consult_evidence(
    repos: Iterable[Path],
    claude: Path,
    transcripts: Iterable[str | Path],
    now: datetime,
    state: StateDB | None = None,
) -> tuple[frozenset[str], frozenset[Path]]:
    """Consult-log terms and memory files agents read, both within the last 14 days.

    With ``state``, only the transcripts changed since the last dream are read
    (``dream.readevidence``).
    """
    entries = []
    for log_path in {claude / "logs" / "memory-consult.jsonl"} | {
        repo / ".claude" / "logs" / "memory-consult.jsonl" for repo in repos
    }:
        try:
            entries += parse_consult_log(log_path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    cutoff = (now - timedelta(days=CONSULT_DAYS)).timestamp()
    return consulted_terms(entries, now), recent_reads(transcripts, cutoff, state)


def run_dream(
    request: DreamRequest,
    *,
    env: Mapping[str, str],
    home: Path,
    state_dir: Path,
    sessions: Sequence[tuple[str, str | None, float | None]],
    state: StateDB | None = None,
) -> RunReport:
    """Dream over every folder; ``sessions`` are (transcript path, project, activity) triples.

    ``state`` keeps what the transcripts' scans found (``dream.readevidence``).

    Each folder is its own unit of work (``folderrun.dream_folder``): a folder
    that fails is reported and the others are dreamed all the same.
    """
    if request.mode == "apply-pending":
        return apply_pending(request, state_dir)
    claude = claude_dir(env, home)
    targets = _targets(claude, request, sessions, env, home)
    if not targets:
        mode = "dry-run" if request.mode == "dry-run" else "no-op"
        return RunReport(request.run_id, mode, (), messages=("No memory directories found",))
    repos = {t.repo for t in targets if t.repo is not None}
    transcripts = (p for p, _, _ in sessions)
    terms, read_paths = consult_evidence(repos, claude, transcripts, request.now, state)
    views = _views(sorted(repos), request.progress)
    run = FolderRun(request, views, terms, read_paths, state_dir, env, home)
    reports = []
    for number, target in enumerate(targets, start=1):
        request.progress("dreaming folders", number, len(targets))
        reports.append(dream_folder(target, run))
    changed = any(report.changed for report in reports)
    candidates = promotion.candidates(claude, reports, declined=run.declined)
    held = any(report.pending for report in reports)
    mode = request.mode if changed or held or request.mode == "dry-run" else "no-op"
    messages = list(_housekeeping(home, targets, state_dir, request))
    if mode == "no-op":
        messages.insert(0, "Nothing to change: every memory folder is already consolidated.")
    if changed and not request.scheduled:
        messages.append(undo_line(request.run_id))
    return RunReport(request.run_id, mode, tuple(reports), tuple(candidates), tuple(messages))


def _views(repos: Sequence[Path], progress: JobProgress) -> dict[Path, RepoView]:
    """The repositories' views, each scanned once (one that cannot be is left out)."""
    views: dict[Path, RepoView] = {}
    for number, repo in enumerate(repos, start=1):
        progress("checking repositories", number, len(repos))
        view = _scanned(repo)
        if view is not None:
            views[repo] = view
    return views


def _scanned(repo: Path) -> RepoView | None:
    """A repository's view; one that cannot be scanned leaves its references unverifiable."""
    try:
        return RepoView.scan(repo)
    except Exception:  # a repository that cannot be read must not stop the run (issue 15)
        log.exception("dream.repo.unreadable", repo=str(repo))
        return None


def undo_line(run_id: str) -> str:
    """The last line of a hand-started run that changed something (issue 12, item 9)."""
    return f"Undo this run: dreamd undo {run_id}"


def _targets(
    claude: Path,
    request: DreamRequest,
    sessions: Sequence[tuple[str, str | None, float | None]],
    env: Mapping[str, str],
    home: Path,
) -> list[FolderTarget]:
    """The memory folders to dream over, each paired with its repository (or none)."""
    named = {p for _, p, _ in sessions if p}  # many sessions share a project: ask once each
    projects = {p for p in named if is_repository(Path(p), home)}
    parent = _parents(path for path, project, _ in sessions if project)
    by_folder: dict[Path, list[str]] = {}
    for path, project, _ in sessions:
        if project:
            by_folder.setdefault(parent[path], []).append(project)
    known = {project: parent[path] for path, project, _ in sessions if project}
    located = located_folders(sorted(projects), claude=claude, env=env, home=home, known=known)
    found = discover_folders(
        claude, projects, by_folder, request.extra_roots, request.only, located=located
    )
    return [
        t if t.repo is None or is_repository(t.repo, home) else FolderTarget(t.path, None)
        for t in found
    ]


def _parents(paths: Iterable[str]) -> dict[str, Path]:
    """Each path's ``Path(path).parent``, one ``Path`` per distinct folder (thousands of
    transcripts share a few hundred folders)."""
    folders: dict[str, Path] = {}
    parents: dict[str, Path] = {}
    for path in paths:
        if path.endswith(("/", "/.")) or not path.startswith("/"):  # rare shapes: as Path says
            parents[path] = Path(path).parent
            continue
        folder = path[: path.rfind("/") + 1]  # Path drops the trailing slashes
        known = folders.get(folder)
        if known is None:
            known = folders[folder] = Path(folder)
        parents[path] = known
    return parents


def _housekeeping(
    home: Path, targets: Sequence[FolderTarget], state_dir: Path, request: DreamRequest
) -> Iterable[str]:
    """Seed 000 STEPs 7 and 8: hints only, nothing is removed."""
    yield promotion.plugin_hint(state_dir, request.now)
    stale = promotion.stale_projects(home / ".claude.json")
    if isinstance(stale, str):
        yield stale
    elif stale[0]:
        yield f"{stale[0]} project path(s) in ~/.claude.json no longer exist; preview: {stale[1]}"
    for target in targets:
        if target.repo is not None and not target.repo.exists():
            yield f"{target.path}: its project {target.repo} no longer exists (preview only)"


def default_budget(env: Mapping[str, str], configured: int) -> int:
    """``DREAMD_INDEX_BUDGET_BYTES`` if set to a number, else the configured budget."""
    value = env.get("DREAMD_INDEX_BUDGET_BYTES", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else configured
