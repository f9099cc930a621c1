"""One dream run: find the folders, decide per folder (pure), then execute or propose.

Order per folder (seed 000): inventory → references → staleness with prune
guards and the consult gate → duplicates → contradictions → execute (trash
moves, ``.MEMORY.md.prev``, index rebuild with budget and archive) → report.
``plan_folder`` decides without touching the disk; ``apply_plan`` is the
only step that changes a folder, through the journaling ``Executor``.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from dreamd.agentdirs import claude_dir
from dreamd.dream import gitmode, proposal, trajectories
from dreamd.dream.discovery import FolderTarget, discover_folders
from dreamd.dream.execute import CrashPoint, Executor, sha256_of
from dreamd.dream.folder import checks, index, promotion, similarity
from dreamd.dream.folder.invariant import invariant_from_disk
from dreamd.dream.folder.inventory import load_folder
from dreamd.dream.folder.pathrefs import scope
from dreamd.dream.folder.refs import check_refs
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import (
    CONSULT_DAYS,
    consulted_terms,
    judge,
    memory_paths_in,
    parse_consult_log,
)
from dreamd.dream.gates import folder as gate
from dreamd.dream.model import Decision, MemoryFile, MemoryFolder
from dreamd.dream.pending import PendingFile, index_mtime, pending_files, write_pending
from dreamd.dream.report import FolderReport, IndexSummary, RunReport
from dreamd.fs import read_if_present
from dreamd.logs import get_logger

__all__ = ["DreamRequest", "FolderPlan", "apply_plan", "plan_folder", "run_dream"]

log = get_logger("dreamd.dream")

Mode = Literal["apply", "dry-run", "apply-pending"]


@dataclass(frozen=True, slots=True)
class DreamRequest:
    """What the user asked for."""

    mode: Mode
    now: datetime
    budget: int
    only: tuple[Path, ...] = ()
    extra_roots: tuple[Path, ...] = ()
    run_id: str = field(default_factory=lambda: secrets.token_hex(6))


@dataclass(frozen=True, slots=True)
class FolderPlan:
    """Every decision for one folder, and the index texts it should end with."""

    folder: MemoryFolder
    decisions: tuple[Decision, ...]
    trash: tuple[MemoryFile, ...]
    new_index: str | None
    new_archive: str | None
    index: IndexSummary
    findings: tuple[str, ...]
    budget: int = 17_408
    now: datetime | None = None

    @property
    def changes(self) -> bool:
        """Whether applying the plan would change the folder at all."""
        return (
            bool(self.trash)
            or (self.new_index is not None and self.new_index != self.folder.index_text)
            or (self.new_archive is not None and self.new_archive != self.folder.archive_text)
        )


def plan_folder(
    folder: MemoryFolder,
    view: RepoView | None,
    *,
    now: datetime,
    budget: int,
    terms: frozenset[str],
    read_paths: frozenset[Path],
    manifests: Mapping[str, str] | None = None,
    evidence: trajectories.Evidence | None = None,
) -> FolderPlan:
    """Decide everything for one folder (pure given the view, manifests and trajectory evidence)."""
    decisions: dict[str, Decision] = {}
    for memory in folder.files:
        if gitmode.is_read_only(memory.name):
            decisions[memory.name] = Decision(
                memory.name, memory.type, "EVERGREEN", "keep", "read-only layer: never modified"
            )
            continue
        check = check_refs(memory, view)
        verdict = judge(memory, check, now=now, terms=terms, read_paths=read_paths)
        stale = verdict.classification == "FULLY_STALE"
        decisions[memory.name] = Decision(
            file=memory.name,
            type=memory.type,
            classification=verdict.classification,
            action="trash" if stale else _keep_or_flag(verdict.classification),
            reason=_stale_reason(verdict.classification, check.missing),
            kept_reason=verdict.kept_reason,
            missing_refs=check.missing + check.symbols_missing,
            unverifiable_refs=check.unverifiable,
        )
    remaining = [
        m
        for m in folder.files
        if decisions[m.name].action != "trash" and not gitmode.is_read_only(m.name)
    ]
    found = similarity.find_similar(remaining)
    for verb, pairs in (
        ("duplicate of", found.duplicates),
        ("contradicted by", found.contradictions),
    ):
        for pair in pairs:
            survivor = found.survivor_of(pair.older.name) or pair.newer.name
            decisions[pair.older.name] = _superseded(
                decisions[pair.older.name], verb, survivor, pair.ratio
            )
    trash = tuple(m for m in folder.files if decisions[m.name].action == "trash")
    survivors = [m for m in folder.files if decisions[m.name].action != "trash"]
    rebuilt = index.rebuild(
        folder.index_text,
        folder.archive_text,
        survivors,
        folder_title=_title(folder.path),
        trashed=[m.name for m in trash],
        budget=budget,
        now=now,
    )
    new_index = rebuilt.new_index
    verify = _verifier(view) if view is not None else None
    if evidence is not None:
        # Seed 003 Phase 3: what the trajectories confirm is never marked.
        verify = trajectories.confirmed_first(evidence, verify)
    if verify is not None and checks.is_sectioned(new_index):
        # Seed 003 Phase 5: claims that do not verify are marked, never removed.
        new_index = checks.mark_unverified(new_index, verify, include_unverifiable=False)
    summary = IndexSummary(
        bytes=len(new_index.encode()),
        budget=budget,
        entries=rebuilt.report.entries,
        archived=rebuilt.report.archived,
        invariant_ok=rebuilt.report.invariant_ok,
        rebuilt=new_index != folder.index_text,
        warnings=tuple(rebuilt.report.warnings),
    )
    findings = (
        *_findings(folder, new_index, manifests or {}),
        *(
            trajectories.findings(folder.index_text or "", evidence, verify)
            if evidence is not None and verify is not None
            else ()
        ),
        *(
            f"{ref.source}: wikilink [[{ref.stem}]] points to a memory moved to the trash"
            for ref in rebuilt.report.wikilinks_to_trashed
        ),
        *_empty_or_current(folder, decisions.values()),
    )
    return FolderPlan(
        folder=folder,
        decisions=tuple(decisions[m.name] for m in folder.files),
        trash=trash,
        new_index=new_index,
        new_archive=rebuilt.new_archive,
        index=summary,
        findings=findings,
        budget=budget,
        now=now,
    )


def _keep_or_flag(classification: str) -> Literal["keep", "flag"]:
    return "flag" if classification == "PARTIALLY_STALE" else "keep"


def _stale_reason(classification: str, missing: Sequence[str]) -> str:
    if classification == "FULLY_STALE":
        return "fully stale: every verifiable reference is gone"
    if classification == "PARTIALLY_STALE":
        return (
            f"partially stale: {len(missing)} reference(s) missing"
            if missing
            else "partially stale"
        )
    if classification == "EVERGREEN":
        return "evergreen: no verifiable references"
    return "fresh: every reference verified"


def _superseded(decision: Decision, verb: str, newer: str, ratio: float) -> Decision:
    return Decision(
        file=decision.file,
        type=decision.type,
        classification=decision.classification,
        action="trash",
        reason=f"{verb} {newer} (overlap {ratio:.2f})",
        of=newer,
        kept_reason=decision.kept_reason,
        missing_refs=decision.missing_refs,
        unverifiable_refs=decision.unverifiable_refs,
    )


def _title(path: Path) -> str:
    name = path.name if path.name not in ("memory", "") else path.parent.name
    return name.strip("-") or "Project"


def _verifier(view: RepoView) -> Callable[[str], bool | None]:
    """Seed 003 verification of one claim: a path must exist, a symbol must occur."""

    def verify(claim: str) -> bool | None:
        if checks.is_path_claim(claim):
            return (
                view.has_file(claim)
                if scope(claim, view.top_level_dirs) == "REPO_RELATIVE"
                else None
            )
        return view.has_symbol(claim)

    return verify


def _empty_or_current(folder: MemoryFolder, decisions: Iterable[Decision]) -> Iterable[str]:
    """Seed 000's error-handling lines for folders with nothing to do."""
    chosen = list(decisions)
    if not folder.files:
        yield "Directory empty, nothing to consolidate"
    elif all(d.action == "keep" and d.classification == "FRESH" for d in chosen):
        yield f"All {len(chosen)} memories are current, nothing to prune"


def _findings(folder: MemoryFolder, new_index: str, manifests: Mapping[str, str]) -> Iterable[str]:
    """Seed 004 / 003 checks, reported and never auto-fixed."""
    over = checks.line_budget(new_index)
    if over is not None:
        yield over.message
    for memory in folder.files:
        for finding in checks.relative_dates(memory.body):
            yield f"{memory.name}:{finding.line}: {finding.message}"
        for finding in checks.count_claims(memory.body):
            yield f"{memory.name}:{finding.line}: {finding.message}"
        for finding in checks.version_drift(memory.body, manifests):
            yield f"{memory.name}:{finding.line}: {finding.message}"
    if folder.index_text and checks.is_sectioned(folder.index_text):
        yield checks.health_line(folder.index_text)
        for finding in checks.entries_without_source(folder.index_text):
            yield f"MEMORY.md:{finding.line}: {finding.message}"


# --------------------------------------------------------------------- the run


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
    projects = {p for _, p, _ in sessions if p and Path(p).is_dir()}
    by_folder: dict[Path, list[str]] = {}
    for path, project, _ in sessions:
        if project:
            by_folder.setdefault(Path(path).parent, []).append(project)
    targets = discover_folders(claude, projects, by_folder, request.extra_roots, request.only)
    if not targets:
        return RunReport(request.run_id, "no-op", (), messages=("No memory directories found",))
    repos = {t.repo for t in targets if t.repo is not None}
    terms, read_paths = consult_evidence(
        repos, claude, (Path(p) for p, _, _ in sessions), request.now
    )
    views = {repo: RepoView.scan(repo) for repo in repos if repo.is_dir()}
    reports = []
    changed = False
    for target in targets:
        databases = trajectories.locate(target.path, env, home)
        report, did = _dream_folder(target, request, views, terms, read_paths, state_dir, databases)
        reports.append(report)
        changed = changed or did
    candidates = promotion.candidates(claude, reports)
    mode = request.mode if changed or request.mode == "dry-run" else "no-op"
    messages = list(_housekeeping(home, targets))
    if mode == "no-op":
        messages.insert(0, "Nothing to change: every memory folder is already consolidated.")
    return RunReport(request.run_id, mode, tuple(reports), tuple(candidates), tuple(messages))


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


def _dream_folder(
    target: FolderTarget,
    request: DreamRequest,
    views: Mapping[Path, RepoView],
    terms: frozenset[str],
    read_paths: frozenset[Path],
    state_dir: Path,
    databases: Sequence[Path] = (),
) -> tuple[FolderReport, bool]:
    folder = load_folder(target.path, target.repo)
    view = views.get(target.repo) if target.repo else None
    manifests = checks.read_manifests(target.repo) if target.repo and target.repo.is_dir() else {}

    def plan_of(folder: MemoryFolder) -> FolderPlan:
        # Seed 003: the trajectory databases beside the memory root, read-only.
        evidence = (
            trajectories.gather(
                databases, folder.index_text or "", now=request.now, project=target.repo
            )
            if databases
            else None
        )
        return plan_folder(
            folder,
            view,
            now=request.now,
            budget=request.budget,
            terms=terms,
            read_paths=read_paths,
            manifests=manifests,
            evidence=evidence,
        )

    # Seed 002 hand-off: collected items wait in .inbox/ for the validate gate.
    verdicts = gate.gate_decisions(
        gate.load_inbox(target.path), folder.files, view=view, now=request.now
    )
    plan = plan_of(folder)
    base = _folder_report(target, plan)
    if request.mode == "dry-run":
        _propose(plan, folder, target, request, state_dir)
        return _with(
            base, findings=(*base.findings, *(f"would {d.line()}" for d in verdicts))
        ), False
    git_root = gitmode.is_work_tree(target.path)
    if git_root is None and not plan.changes and not verdicts:
        return base, False
    if git_root is not None:
        clean, dirty = gitmode.status_clean(git_root, within=target.path)
        if not clean:
            reason = f"git work tree {git_root} is not clean: {', '.join(dirty[:5])}"
            return _with(base, refused=reason), False
    executor = Executor(
        target.path,
        state_dir / "runs" / request.run_id / _slug(target.path),
        request.now.date(),
        CrashPoint(),
    )
    gate_lines: list[str] = []
    gate_commits: list[str] = []
    if verdicts:
        gate_lines = gate.apply_gate(target.path, verdicts, executor)
        if git_root is not None:
            sha = gitmode.commit(git_root, [target.path], "dream: validate collected memories")
            gate_commits = [sha] if sha else []
        plan = plan_of(load_folder(target.path, target.repo))
        base = _folder_report(target, plan)
    commits, notes = apply_plan(plan, executor, git_root)
    log.info("dream.folder.applied", folder=str(target.path), trashed=len(plan.trash))
    did = bool(commits) or bool(gate_commits) or plan.changes or bool(verdicts)
    report = _with(
        base,
        commits=(*gate_commits, *commits),
        findings=(*gate_lines, *base.findings, *notes),
    )
    invariant = invariant_from_disk(target.path)
    if not invariant.ok:
        # Seed 000 STEP 5.5: re-check from disk, fail loudly; the old index is .MEMORY.md.prev.
        problems = "; ".join(invariant.problems[:5])
        log.error("dream.invariant_failed", folder=str(target.path), problems=problems)
        report = _with(report, refused=f"index invariant does not hold after writing: {problems}")
    return report, did


def _folder_report(target: FolderTarget, plan: FolderPlan) -> FolderReport:
    return FolderReport(
        path=str(target.path),
        repo=str(target.repo) if target.repo else None,
        files=plan.decisions,
        index=plan.index,
        findings=plan.findings,
    )


def _propose(
    plan: FolderPlan,
    folder: MemoryFolder,
    target: FolderTarget,
    request: DreamRequest,
    state_dir: Path,
) -> None:
    """Seed 004 --dry-run: the pending proposal, only when the plan would change something."""
    if plan.changes and plan.new_index is not None:
        trash = [(m.name, m.sha256, _reason(plan, m.name)) for m in plan.trash]
        write_pending(
            state_dir,
            target.path,
            new_index=plan.new_index,
            old_index=folder.index_text,
            trash=trash,
            run_id=request.run_id,
            now=request.now,
        )


def apply_plan(
    plan: FolderPlan, executor: Executor, git_root: Path | None
) -> tuple[list[str], list[str]]:
    """Make the plan true on disk, one logical unit at a time (seed 001).

    Trash moves, then (in a git-managed root) relative dates made absolute,
    then ``.MEMORY.md.prev``, the archive and the new index; in a git root
    each unit is its own commit. Returns the commits and notes for the report.
    """
    folder = plan.folder.path
    commits: list[str] = []
    notes: list[str] = []

    def commit(message: str) -> None:
        if git_root is not None:
            sha = gitmode.commit(git_root, [folder], message)
            if sha:
                commits.append(sha)

    failed: list[MemoryFile] = []
    for memory in plan.trash:
        try:
            executor.trash(memory.path)
        except OSError as error:  # seed 000: report the failure, carry on with the rest
            failed.append(memory)
            notes.append(f"{memory.name}: could not move to the trash ({error.strerror}); kept")
    if len(failed) < len(plan.trash):
        moved = len(plan.trash) - len(failed)
        commit(f"dream: move {moved} stale, duplicate or contradicted memories to trash")
    if failed:
        plan = _replanned_index(plan, failed)
    if git_root is not None:
        notes += _absolute_dates(plan, executor, git_root)
        commit("dream: turn relative dates into absolute dates")
    if plan.new_index is not None and plan.new_index != plan.folder.index_text:
        if plan.folder.index_text is not None:
            executor.write(folder / ".MEMORY.md.prev", plan.folder.index_text.encode())
        if plan.new_archive is not None:
            executor.write(folder / "MEMORY-ARCHIVE.md", plan.new_archive.encode())
        executor.write(folder / "MEMORY.md", plan.new_index.encode())
        commit("dream: rebuild MEMORY.md")
    return commits, notes


def _replanned_index(plan: FolderPlan, kept: Sequence[MemoryFile]) -> FolderPlan:
    """The plan's index rebuilt with memories that could not be moved still linked."""
    failed = {m.name for m in kept}
    trashed = [m.name for m in plan.trash if m.name not in failed]
    survivors = [m for m in plan.folder.files if m.name not in trashed]
    rebuilt = index.rebuild(
        plan.folder.index_text,
        plan.folder.archive_text,
        survivors,
        folder_title=_title(plan.folder.path),
        trashed=trashed,
        budget=plan.budget,
        now=plan.now or datetime.now().astimezone(),
    )
    return dataclasses.replace(plan, new_index=rebuilt.new_index, new_archive=rebuilt.new_archive)


def _absolute_dates(plan: FolderPlan, executor: Executor, git_root: Path) -> list[str]:
    """Relative dates in surviving memories become the date of the line's commit (git blame)."""
    notes: list[str] = []
    trashed = {m.name for m in plan.trash}
    for memory in plan.folder.files:
        if memory.name in trashed or gitmode.is_read_only(memory.name):
            continue
        text = memory.path.read_text(encoding="utf-8", errors="replace")
        if not checks.relative_dates(text):
            continue
        dates = gitmode.line_dates(git_root, memory.path)
        new_text, converted, undatable = gitmode.absolutize_relative_dates(text, dates)
        if converted:
            executor.write(memory.path, new_text.encode())
        notes += [f"{memory.name}:{f.line}: left as written: {f.message}" for f in undatable]
    return notes


def apply_pending(request: DreamRequest, state_dir: Path) -> RunReport:
    """Seed 004 ``--apply-pending``: apply each stored proposal, or refuse with its reason.

    A refused proposal is kept; an applied one is deleted. Topic files listed
    for the trash are moved only if they still hold the bytes the dry run saw.
    """
    stored = [p for p in pending_files(state_dir) if not request.only or p.folder in request.only]
    if not stored:
        missing = proposal.apply_decision(None, index_mtime=None, now=request.now)
        message = missing.message if isinstance(missing, proposal.Refusal) else ""
        folder = FolderReport(path="-", repo=None, files=(), index=IndexSummary(), refused=message)
        return RunReport(request.run_id, "apply-pending", (folder,))
    reports = [_apply_stored(item, request, state_dir) for item in stored]
    return RunReport(request.run_id, "apply-pending", tuple(reports))


def _apply_stored(item: PendingFile, request: DreamRequest, state_dir: Path) -> FolderReport:
    base = FolderReport(path=str(item.folder), repo=None, files=(), index=IndexSummary())
    decision = proposal.apply_decision(
        item.text, index_mtime=index_mtime(item.folder), now=request.now
    )
    if isinstance(decision, proposal.Refusal):
        return _with(base, refused=decision.message)
    executor = Executor(
        item.folder,
        state_dir / "runs" / request.run_id / _slug(item.folder),
        request.now.date(),
        CrashPoint(),
    )
    skipped: list[str] = []
    for name, digest in item.trash:
        path = item.folder / name
        if sha256_of(path) == digest:
            executor.trash(path)
        else:
            skipped.append(f"{name} changed since the dry run: not moved")
    old = read_if_present(item.folder / "MEMORY.md")
    if old is not None:
        executor.write(item.folder / ".MEMORY.md.prev", old)
    executor.write(item.folder / "MEMORY.md", decision.new_index.encode())
    item.remove()
    entries = sum(1 for line in decision.new_index.splitlines() if line.startswith("- ["))
    message = proposal.applied_line(decision.proposal, entries)
    return _with(base, findings=(message, *skipped))


def _reason(plan: FolderPlan, name: str) -> str:
    return next(d.reason for d in plan.decisions if d.file == name)


def _with(report: FolderReport, **changes: Any) -> FolderReport:
    return dataclasses.replace(report, **changes)


def _slug(path: Path) -> str:
    return "".join(c if c.isalnum() else "-" for c in str(path)).strip("-")[-120:] or "root"


def default_budget(env: Mapping[str, str], configured: int) -> int:
    """``DREAMD_INDEX_BUDGET_BYTES`` if set to a number, else the configured budget."""
    value = env.get("DREAMD_INDEX_BUDGET_BYTES", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else configured
