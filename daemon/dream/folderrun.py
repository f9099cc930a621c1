"""One memory folder's dream, as its own unit of work (seeds 000, 001, 004; issues 12, 15).

The phases of ``dream_folder``: preflight (every file the dream writes is the
folder's own, issue 15), read the folder, ask git what it knows (seed 001),
judge the collected items (the validate gate), plan on the folder as the gate
would leave it; then either propose (a dry run, or a scheduled run that must
not apply unattended: the first dream of a folder, or more moves than
``dream.max_unattended_moves``) or — past the git gate — record the
inventory, carry out the gate and the plan, and check from disk that the
two-file invariant holds and no read-only layer changed.

A failure in one folder is reported for that folder; the run goes on with
the next (issue 15, item 3).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dreamd.dream import gitmode, trajectories
from dreamd.dream.apply import apply_plan, executor_for, with_changes
from dreamd.dream.dating import has_relative_dates
from dreamd.dream.discovery import FolderTarget
from dreamd.dream.dreamed import mark_dreamed, was_dreamed
from dreamd.dream.folder import checks, promotion
from dreamd.dream.folder.facts import kept_facts
from dreamd.dream.folder.invariant import invariant_from_disk
from dreamd.dream.folder.inventory import INDEX_NAME, load_folder
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates import folder as gate
from dreamd.dream.gates.flow import proposed
from dreamd.dream.model import DreamRequest, GitFacts, MemoryFolder
from dreamd.dream.pending import PendingWrite, folder_slug, write_pending
from dreamd.dream.plan import FolderPlan, plan_folder
from dreamd.dream.preflight import preflight
from dreamd.dream.report import FolderReport, IndexSummary
from dreamd.dream.runinventory import layers_changed, read_only_bytes, record_inventory
from dreamd.logs import get_logger

__all__ = [
    "FolderRun",
    "checked_from_disk",
    "dream_folder",
    "failed_report",
    "git_facts",
    "hold_reason",
]

log = get_logger("dreamd.dream")


@dataclass(frozen=True, slots=True)
class FolderRun:
    """What every folder of one run shares: the request, the evidence, where state lives."""

    request: DreamRequest
    views: Mapping[Path, RepoView]
    terms: frozenset[str]
    read_paths: frozenset[Path]
    state_dir: Path
    env: Mapping[str, str]
    home: Path
    #: The memories marked ``promotion: declined``, gathered as each folder is loaded.
    declined: set[Path] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class _Planner:
    """Plans one folder as it is (or will be after the gate), with the run's evidence."""

    target: FolderTarget
    run: FolderRun

    @property
    def view(self) -> RepoView | None:
        return self.run.views.get(self.target.repo) if self.target.repo else None

    def plan(self, folder: MemoryFolder, git: GitFacts | None) -> FolderPlan:
        repo, request = self.target.repo, self.run.request
        manifests = checks.read_manifests(repo) if repo and repo.is_dir() else {}
        databases = trajectories.locate(self.target.path, self.run.env, self.run.home)
        # Seed 003: the trajectory databases beside the memory root, read-only.
        evidence = (
            trajectories.gather(databases, folder.index_text or "", now=request.now, project=repo)
            if databases
            else None
        )
        with kept_facts(facts_path(self.run.state_dir, self.target.path)):
            return plan_folder(
                folder,
                self.view,
                now=request.now,
                budget=request.budget,
                terms=self.run.terms,
                read_paths=self.run.read_paths,
                manifests=manifests,
                evidence=evidence,
                git=git,
            )


def facts_path(state_dir: Path, folder: Path) -> Path:
    """Where the facts of a folder's memories are kept between dreams (``folder.facts``)."""
    return state_dir / "facts" / f"{folder_slug(folder)}.msgpack"


def failed_report(path: Path, repo: Path | None, reason: str) -> FolderReport:
    """The report of a folder that could not be dreamed (nothing in it was changed)."""
    return FolderReport(str(path), str(repo) if repo else None, (), IndexSummary(), refused=reason)


def dream_folder(target: FolderTarget, run: FolderRun) -> FolderReport:
    """One folder's dream; any failure is this folder's own, reported, never the run's."""
    try:
        return _dream(target, run)
    except Exception as error:  # one odd folder must not stop the others (issue 15, 3)
        log.exception("dream.folder.failed", folder=str(target.path))
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return failed_report(target.path, target.repo, f"could not dream this folder: {reason}")


def git_facts(path: Path, folder: MemoryFolder) -> GitFacts | None:
    """What git knows about the folder (seed 001), None outside a git work tree."""
    root = gitmode.is_work_tree(path)
    if root is None:
        return None
    dated = [m.name for m in folder.files if has_relative_dates(m.raw.decode("utf-8", "replace"))]
    if folder.index_text is not None and has_relative_dates(folder.index_text):
        dated.append(INDEX_NAME)
    return gitmode.folder_facts(root, path, dated)


def hold_reason(run: FolderRun, path: Path, plan: FolderPlan) -> str | None:
    """Why a scheduled run only proposes for this folder (issue 12, item 9), or None.

    Seed 000 asks before moving more than three entries; the service cannot
    ask, so its first dream of a folder, and any run moving (to the trash or
    the archive) more than ``dream.max_unattended_moves``, wait for review.
    """
    request = run.request
    if not request.scheduled or request.mode != "apply" or not plan.changes:
        return None
    if not was_dreamed(run.state_dir, path):
        return "first dream of this folder: a scheduled run applies nothing before a review"
    if plan.moves > request.max_unattended_moves:
        return (
            f"{plan.moves} moves to the trash or the archive, more than "
            f"dream.max_unattended_moves = {request.max_unattended_moves}"
        )
    return None


def _dream(target: FolderTarget, run: FolderRun) -> FolderReport:
    request = run.request
    refusal = preflight(target.path, request.now.date())
    if refusal is not None:
        return failed_report(target.path, target.repo, refusal)
    planner = _Planner(target, run)
    folder = load_folder(target.path, target.repo)
    run.declined.update(promotion.declined_in(folder.files))
    git = git_facts(target.path, folder)
    inbox = gate.load_inbox(target.path)
    verdicts = gate.gate_decisions(inbox, folder.files, view=planner.view, now=request.now)
    plan = planner.plan(gate.gated_folder(folder, verdicts, request.now), git)
    hold = hold_reason(run, target.path, plan)
    if request.mode == "dry-run" or hold is not None:
        return _propose(
            target, run, plan, verdicts, hold, read={m.name: m.sha256 for m in folder.files}
        )
    if git is not None and git.dirty:
        dirty = ", ".join(git.dirty[:5])
        refused = f"git work tree {git.root} is not clean: {dirty}"
        return with_changes(_report(target, plan), refused=refused)
    if not plan.changes and not verdicts:
        mark_dreamed(run.state_dir, target.path, request.run_id, request.now)
        return _report(target, plan)
    return _execute(target, run, planner, folder, verdicts, git)


def _report(target: FolderTarget, plan: FolderPlan) -> FolderReport:
    return FolderReport(
        path=str(target.path),
        repo=str(target.repo) if target.repo else None,
        files=plan.decisions,
        index=plan.index,
        findings=plan.findings,
    )


def _writes(plan: FolderPlan) -> list[PendingWrite]:
    """The files besides ``MEMORY.md`` an apply of ``plan`` writes (issue 12, item 1)."""
    writes = [
        PendingWrite(r.name, r.old_sha256, r.content, "Relative dates made absolute")
        for r in plan.rewrites
    ]
    archive = plan.new_archive
    if archive is not None and archive != plan.folder.archive_text:
        old = plan.folder.archive_text
        writes.append(
            PendingWrite(
                "MEMORY-ARCHIVE.md",
                None if old is None else _sha(old),
                archive.encode("utf-8", "surrogateescape"),
                "Index lines moved out of MEMORY.md to fit its size budget",
            )
        )
    return writes


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def _propose(
    target: FolderTarget,
    run: FolderRun,
    plan: FolderPlan,
    verdicts: Sequence[gate.GateDecision],
    hold: str | None,
    read: Mapping[str, str],
) -> FolderReport:
    """Seed 004 --dry-run (or a held scheduled run): the pending proposal, nothing applied.

    ``read``: each topic file's SHA-256 as read from disk, before the gate (the snapshot).
    """
    request = run.request
    base = _report(target, plan)
    if (plan.changes or verdicts) and plan.new_index is not None:
        reasons = {d.file: d.reason for d in plan.decisions}
        trashed = {m.name for m in plan.trash}
        write_pending(
            run.state_dir,
            target.path,
            new_index=plan.new_index,
            old_index=plan.folder.index_text,
            trash=[(m.name, m.sha256, reasons[m.name]) for m in plan.trash],
            run_id=request.run_id,
            now=request.now,
            writes=_writes(plan),
            gate=verdicts,
            reason=hold or "dry run",
            head=plan.git.head if plan.git is not None else None,
            moves=plan.moves,
            decisions=[d for d in plan.decisions if d.file in trashed],
            read=read,
        )
    would = [proposed(d.line()) for d in verdicts]
    if plan.git is not None and plan.git.dirty:
        would.append(f"git work tree {plan.git.root} is not clean: an apply would be refused")
    return with_changes(base, findings=(*base.findings, *would), pending=hold)


def _execute(
    target: FolderTarget,
    run: FolderRun,
    planner: _Planner,
    folder: MemoryFolder,
    verdicts: Sequence[gate.GateDecision],
    git: GitFacts | None,
) -> FolderReport:
    """Inventory, the gate's decisions, the plan made on the folder the gate left, the
    invariant and the read-only layers checked from disk."""
    request = run.request
    executor = executor_for(target.path, run.state_dir, request.run_id, request.now)
    record_inventory(executor.run_dir, folder, git)  # seed 001: no change without it
    layers = read_only_bytes(target.path)
    root = git.root if git is not None else None
    gate_lines: list[str] = []
    gate_commits: list[str] = []
    if verdicts:
        gate_lines = gate.apply_gate(target.path, verdicts, executor)
        if root is not None:
            sha = gitmode.commit(root, [target.path], "dream: validate collected memories")
            gate_commits = [sha] if sha else []
    folder = load_folder(target.path, target.repo)
    run.declined.update(promotion.declined_in(folder.files))
    git = git_facts(target.path, folder) if root is not None else None
    plan = planner.plan(folder, git)
    commits, notes = apply_plan(plan, executor, root)
    log.info("dream.folder.applied", folder=str(target.path), trashed=len(plan.trash))
    base = _report(target, plan)
    report = with_changes(
        base,
        commits=(*gate_commits, *commits),
        findings=(*gate_lines, *base.findings, *notes),
        changed=True,
    )
    report = checked_from_disk(report, target.path, layers, git)
    mark_dreamed(run.state_dir, target.path, request.run_id, request.now)
    return report


def checked_from_disk(
    report: FolderReport, folder: Path, layers: Mapping[str, str | None], git: GitFacts | None
) -> FolderReport:
    """Seed 000 STEP 5.5 and seed 001's checklist: the invariant re-checked from disk (the
    old index is ``.MEMORY.md.prev``), the read-only layers unchanged; fail loudly."""
    failures = []
    problems = invariant_from_disk(folder).problems
    if problems:
        failures.append(f"index invariant does not hold after writing: {'; '.join(problems[:5])}")
    changed = layers_changed(layers, folder, git)
    if changed:
        failures.append(f"read-only layers changed: {', '.join(changed)}")
    if not failures:
        return report
    log.error("dream.check_failed", folder=str(folder), failures=failures)
    return with_changes(report, refused="; ".join(failures))
