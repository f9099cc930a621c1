"""One dream run: find the folders, decide per folder (pure), then execute or propose.

Order per folder (seed 000): inventory → references → staleness with prune
guards and the consult gate → duplicates → contradictions → execute (trash
moves, ``.MEMORY.md.prev``, index rebuild with budget and archive) → report.
``dream.plan`` decides without touching the disk; ``dream.apply`` is the only
step that changes a folder, through the journaling ``Executor``.

A folder's dream is a short list of phases (``_dream_folder``): read it,
judge its collected items (the validate gate), plan, then either propose (a
dry run) or — past the git gate — execute the gate, the plan, and check the
two-file invariant from disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from dreamd.agentdirs import claude_dir
from dreamd.dream import gitmode, trajectories
from dreamd.dream.apply import apply_pending, apply_plan, executor_for, with_changes
from dreamd.dream.discovery import FolderTarget, discover_folders
from dreamd.dream.folder import checks, promotion
from dreamd.dream.folder.invariant import invariant_from_disk
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import (
    CONSULT_DAYS,
    consulted_terms,
    memory_paths_in,
    parse_consult_log,
)
from dreamd.dream.gates import folder as gate
from dreamd.dream.model import DreamRequest, MemoryFolder
from dreamd.dream.pending import write_pending
from dreamd.dream.plan import FolderPlan, plan_folder
from dreamd.dream.report import FolderReport, RunReport
from dreamd.logs import get_logger
from dreamd.stores.claude_folder import located_folders

__all__ = ["consult_evidence", "default_budget", "run_dream"]

log = get_logger("dreamd.dream")


def consult_evidence(
    repos: Iterable[Path], claude: Path, transcripts: Iterable[Path], now: datetime
) -> tuple[frozenset[str], frozenset[Path]]:
    """Consult-log terms and memory files agents read, both within the last 14 days."""
    entries = []
    for log_path in {claude / "logs" / "memory-consult.jsonl"} | {
        repo / ".claude" / "logs" / "memory-consult.jsonl" for repo in repos
    }:
        try:
            entries += parse_consult_log(log_path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    read: set[Path] = set()
    cutoff = (now - timedelta(days=CONSULT_DAYS)).timestamp()
    for transcript in transcripts:
        try:
            if transcript.stat().st_mtime < cutoff:
                continue
            read.update(memory_paths_in(transcript.read_bytes()))
        except OSError:
            continue
    return consulted_terms(entries, now), frozenset(read)


@dataclass(frozen=True, slots=True)
class _Run:
    """What every folder of one run shares: the request, the evidence, where state lives."""

    request: DreamRequest
    views: Mapping[Path, RepoView]
    terms: frozenset[str]
    read_paths: frozenset[Path]
    state_dir: Path
    env: Mapping[str, str]
    home: Path


def run_dream(
    request: DreamRequest,
    *,
    env: Mapping[str, str],
    home: Path,
    state_dir: Path,
    sessions: Sequence[tuple[str, str | None, float | None]],
) -> RunReport:
    """Dream over every folder; ``sessions`` are (transcript path, project, activity) triples."""
    if request.mode == "apply-pending":
        return apply_pending(request, state_dir)
    claude = claude_dir(env, home)
    targets = _targets(claude, request, sessions, env, home)
    if not targets:
        return RunReport(request.run_id, "no-op", (), messages=("No memory directories found",))
    repos = {t.repo for t in targets if t.repo is not None}
    transcripts = (Path(p) for p, _, _ in sessions)
    terms, read_paths = consult_evidence(repos, claude, transcripts, request.now)
    views = {repo: RepoView.scan(repo) for repo in repos if repo.is_dir()}
    run = _Run(request, views, terms, read_paths, state_dir, env, home)
    dreamed = [_dream_folder(target, run) for target in targets]
    reports = [report for report, _ in dreamed]
    changed = any(did for _, did in dreamed)
    candidates = promotion.candidates(claude, reports)
    mode = request.mode if changed or request.mode == "dry-run" else "no-op"
    messages = list(_housekeeping(home, targets))
    if mode == "no-op":
        messages.insert(0, "Nothing to change: every memory folder is already consolidated.")
    return RunReport(request.run_id, mode, tuple(reports), tuple(candidates), tuple(messages))


def _targets(
    claude: Path,
    request: DreamRequest,
    sessions: Sequence[tuple[str, str | None, float | None]],
    env: Mapping[str, str],
    home: Path,
) -> list[FolderTarget]:
    """The memory folders to dream over, each paired with its repository."""
    projects = {p for _, p, _ in sessions if p and Path(p).is_dir()}
    by_folder: dict[Path, list[str]] = {}
    for path, project, _ in sessions:
        if project:
            by_folder.setdefault(Path(path).parent, []).append(project)
    known = {project: Path(path).parent for path, project, _ in sessions if project}
    located = located_folders(sorted(projects), claude=claude, env=env, home=home, known=known)
    return discover_folders(
        claude, projects, by_folder, request.extra_roots, request.only, located=located
    )


def _housekeeping(home: Path, targets: Sequence[FolderTarget]) -> Iterable[str]:
    """Seed 000 STEPs 7 and 8: hints only, nothing is removed."""
    hint = promotion.plugin_hint()
    if hint:
        yield hint
    stale = promotion.stale_projects(home / ".claude.json")
    if isinstance(stale, str):
        yield stale
    elif stale[0]:
        yield f"{stale[0]} project path(s) in ~/.claude.json no longer exist; preview: {stale[1]}"
    for target in targets:
        if target.repo is not None and not target.repo.exists():
            yield f"{target.path}: its project {target.repo} no longer exists (preview only)"


@dataclass(frozen=True, slots=True)
class _Planner:
    """Plans one folder as it is on disk now (again after the gate changed it)."""

    target: FolderTarget
    run: _Run
    databases: Sequence[Path]

    @property
    def view(self) -> RepoView | None:
        return self.run.views.get(self.target.repo) if self.target.repo else None

    def plan(self, folder: MemoryFolder) -> FolderPlan:
        repo, request = self.target.repo, self.run.request
        manifests = checks.read_manifests(repo) if repo and repo.is_dir() else {}
        # Seed 003: the trajectory databases beside the memory root, read-only.
        evidence = (
            trajectories.gather(
                self.databases, folder.index_text or "", now=request.now, project=repo
            )
            if self.databases
            else None
        )
        return plan_folder(
            folder,
            self.view,
            now=request.now,
            budget=request.budget,
            terms=self.run.terms,
            read_paths=self.run.read_paths,
            manifests=manifests,
            evidence=evidence,
        )


def _dream_folder(target: FolderTarget, run: _Run) -> tuple[FolderReport, bool]:
    """One folder's dream; returns its report and whether it changed the folder."""
    request = run.request
    planner = _Planner(target, run, trajectories.locate(target.path, run.env, run.home))
    folder = load_folder(target.path, target.repo)
    # Seed 002 hand-off: collected items wait in .inbox/ for the validate gate.
    inbox = gate.load_inbox(target.path)
    verdicts = gate.gate_decisions(inbox, folder.files, view=planner.view, now=request.now)
    plan = planner.plan(folder)
    base = _folder_report(target, plan)
    if request.mode == "dry-run":
        _propose(plan, folder, target, run)
        would = (f"would {d.line()}" for d in verdicts)
        return with_changes(base, findings=(*base.findings, *would)), False
    git_root = gitmode.is_work_tree(target.path)
    if git_root is None and not plan.changes and not verdicts:
        return base, False
    refusal = _git_refusal(git_root, target.path)
    if refusal is not None:
        return with_changes(base, refused=refusal), False
    return _execute(target, run, planner, plan, verdicts, git_root)


def _git_refusal(git_root: Path | None, folder: Path) -> str | None:
    """Seed 001: a git-managed memory root is changed only from a clean work tree."""
    if git_root is None:
        return None
    clean, dirty = gitmode.status_clean(git_root, within=folder)
    return None if clean else f"git work tree {git_root} is not clean: {', '.join(dirty[:5])}"


def _execute(
    target: FolderTarget,
    run: _Run,
    planner: _Planner,
    plan: FolderPlan,
    verdicts: Sequence[gate.GateDecision],
    git_root: Path | None,
) -> tuple[FolderReport, bool]:
    """The gate's decisions, then the plan (made again if the gate changed the folder), then
    the invariant checked from disk."""
    executor = executor_for(target.path, run.state_dir, run.request.run_id, run.request.now)
    gate_lines: list[str] = []
    gate_commits: list[str] = []
    if verdicts:
        gate_lines = gate.apply_gate(target.path, verdicts, executor)
        if git_root is not None:
            sha = gitmode.commit(git_root, [target.path], "dream: validate collected memories")
            gate_commits = [sha] if sha else []
        plan = planner.plan(load_folder(target.path, target.repo))
    base = _folder_report(target, plan)
    commits, notes = apply_plan(plan, executor, git_root)
    log.info("dream.folder.applied", folder=str(target.path), trashed=len(plan.trash))
    did = bool(commits) or bool(gate_commits) or plan.changes or bool(verdicts)
    report = with_changes(
        base, commits=(*gate_commits, *commits), findings=(*gate_lines, *base.findings, *notes)
    )
    return _checked_from_disk(report, target.path), did


def _checked_from_disk(report: FolderReport, folder: Path) -> FolderReport:
    """Seed 000 STEP 5.5: re-check the invariant from disk, fail loudly (the old index is
    ``.MEMORY.md.prev``)."""
    invariant = invariant_from_disk(folder)
    if invariant.ok:
        return report
    problems = "; ".join(invariant.problems[:5])
    log.error("dream.invariant_failed", folder=str(folder), problems=problems)
    return with_changes(report, refused=f"index invariant does not hold after writing: {problems}")


def _folder_report(target: FolderTarget, plan: FolderPlan) -> FolderReport:
    return FolderReport(
        path=str(target.path),
        repo=str(target.repo) if target.repo else None,
        files=plan.decisions,
        index=plan.index,
        findings=plan.findings,
    )


def _propose(plan: FolderPlan, folder: MemoryFolder, target: FolderTarget, run: _Run) -> None:
    """Seed 004 --dry-run: the pending proposal, only when the plan would change something."""
    if plan.changes and plan.new_index is not None:
        trash = [(m.name, m.sha256, _reason(plan, m.name)) for m in plan.trash]
        write_pending(
            run.state_dir,
            target.path,
            new_index=plan.new_index,
            old_index=folder.index_text,
            trash=trash,
            run_id=run.request.run_id,
            now=run.request.now,
        )


def _reason(plan: FolderPlan, name: str) -> str:
    return next(d.reason for d in plan.decisions if d.file == name)


def default_budget(env: Mapping[str, str], configured: int) -> int:
    """``DREAMD_INDEX_BUDGET_BYTES`` if set to a number, else the configured budget."""
    value = env.get("DREAMD_INDEX_BUDGET_BYTES", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else configured
