"""What the dream decides for one folder, without touching the disk (seed 000 STEPs 2-5).

``plan_folder`` runs the rules in the seed's order, each a named phase:

1. ``judge_files``: references, staleness classes, prune guards and the
   consult gate (seed 000 STEPs 2-2.5); read-only layers are kept (seed 001);
2. ``supersede``: duplicates and contradictions among the rest; the older of
   each pair goes to the trash (STEPs 3-4);
3. ``index.rebuild``: the index without the trashed entries, orphans linked,
   inside its byte budget with the archive (STEP 5, 5.5);
4. ``mark_claims``: claims the repository or the trajectories cannot confirm
   are marked ``[unverified]`` in a sectioned index (seed 003 phase 5);
5. ``plan_findings``: drift checks, trajectory findings, dead wikilinks and
   the seed's lines for folders with nothing to do (seeds 003, 004).

Pure given the repository view, the manifests and the trajectory evidence.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from dreamd.dream import gitmode, trajectories
from dreamd.dream.dating import Rewrite, date_folder
from dreamd.dream.folder import checks, index, similarity
from dreamd.dream.folder.ages import ages_of
from dreamd.dream.folder.indexfile import memoised_lines
from dreamd.dream.folder.pathrefs import scope
from dreamd.dream.folder.refs import check_refs
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.folder.staleness import judge
from dreamd.dream.indexreport import index_summary
from dreamd.dream.model import Decision, GitFacts, MemoryFile, MemoryFolder
from dreamd.dream.report import IndexSummary

__all__ = ["FolderPlan", "folder_title", "judge_files", "plan_folder", "supersede"]

Verify = Callable[[str], bool | None]


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
    rewrites: tuple[Rewrite, ...] = ()  # topic files with relative dates made absolute
    git: GitFacts | None = None

    @property
    def moves(self) -> int:
        """Files moved to the trash plus index entries moved to the archive (issue 12, 9)."""
        return len(self.trash) + len(self.index.changes.archived)

    @property
    def changes(self) -> bool:
        """Whether applying the plan would change the folder at all."""
        return (
            bool(self.trash)
            or bool(self.rewrites)
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
    git: GitFacts | None = None,
) -> FolderPlan:
    """Decide everything for one folder (the phases in the module docstring).

    ``git``: what git says about a git-managed folder (seed 001): the newer of
    two memories is the later committed, relative dates are made absolute.
    """
    with memoised_lines():
        return _plan_folder(
            folder,
            view,
            now=now,
            budget=budget,
            terms=terms,
            read_paths=read_paths,
            manifests=manifests,
            evidence=evidence,
            git=git,
        )


def _plan_folder(
    folder: MemoryFolder,
    view: RepoView | None,
    *,
    now: datetime,
    budget: int,
    terms: frozenset[str],
    read_paths: frozenset[Path],
    manifests: Mapping[str, str] | None,
    evidence: trajectories.Evidence | None,
    git: GitFacts | None,
) -> FolderPlan:
    decisions = judge_files(folder, view, now=now, terms=terms, read_paths=read_paths)
    decisions = supersede(folder, decisions, git.committed if git is not None else None)
    trash = tuple(m for m in folder.files if decisions[m.name].action == "trash")
    survivors = [m for m in folder.files if decisions[m.name].action != "trash"]
    dating = date_folder(folder.index_text, survivors, git)
    index_dates = [line for line in dating.findings if line.startswith("MEMORY.md:")]
    rebuilt = index.rebuild(
        dating.index_text,
        folder.archive_text,
        survivors,
        folder_title=folder_title(folder.path),
        trashed=[m.name for m in trash],
        budget=budget,
        now=now,
        foreign=[name for name, _ in folder.excluded],
    )
    verify = claim_verifier(view, evidence)
    new_index = mark_claims(rebuilt.new_index, verify)
    confirmed = (
        trajectories.findings(folder.index_text or "", evidence, verify)
        if evidence is not None and verify is not None
        else []
    )
    findings = plan_findings(
        folder, new_index, rebuilt, decisions.values(), manifests or {}, confirmed
    )
    findings = (*dating.findings, *findings)
    return FolderPlan(
        folder=folder,
        decisions=tuple(decisions[m.name] for m in folder.files),
        trash=trash,
        new_index=new_index,
        new_archive=rebuilt.new_archive,
        index=index_summary(folder.index_text, rebuilt, new_index, budget, index_dates),
        findings=findings,
        budget=budget,
        now=now,
        rewrites=dating.rewrites,
        git=git,
    )


def judge_files(
    folder: MemoryFolder,
    view: RepoView | None,
    *,
    now: datetime,
    terms: frozenset[str],
    read_paths: frozenset[Path],
) -> dict[str, Decision]:
    """Seed 000 STEPs 2-2.5: each memory's references, class and guards; read-only layers kept."""
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
    return decisions


def supersede(
    folder: MemoryFolder,
    decisions: Mapping[str, Decision],
    committed: Mapping[str, float] | None = None,
) -> dict[str, Decision]:
    """Seed 000 STEPs 3-4: the older of each duplicate or contradicting pair goes to the trash
    (memories already trashed as stale and read-only layers are not compared).

    Newer is judged by ``ages`` (seed 001: the commit history when ``committed``
    gives each file's last commit time). A pair whose newer file cannot be told,
    and a pair whose overlap holds only against the smaller file, are flagged
    and both kept (issue 12, item 4).
    """
    decided = dict(decisions)
    remaining = [
        m
        for m in folder.files
        if decided[m.name].action != "trash" and not gitmode.is_read_only(m.name)
    ]
    found = similarity.find_similar(
        remaining, ages=ages_of({m.name: m for m in remaining}, committed)
    )
    survivors = found.survivors()  # one dict, not a search per trashed file (issue 13)
    for verb, pairs in (
        ("duplicate of", found.duplicates),
        ("contradicted by", found.contradictions),
    ):
        for pair in pairs:
            survivor = survivors.get(pair.older.name) or pair.newer.name
            decided[pair.older.name] = _superseded(
                decided[pair.older.name], verb, survivor, pair.ratio
            )
    for pair in found.undecided:
        why = f"possible {pair.kind} of {{}}: which one is newer cannot be told; both kept"
        for one, other in ((pair.older, pair.newer), (pair.newer, pair.older)):
            decided[one.name] = _flagged(decided[one.name], other.name, why.format(other.name))
    for pair in found.one_way:
        why = (
            f"possible duplicate of {pair.newer.name}: overlap {pair.ratio:.2f} of the smaller "
            "file only, the larger says much more; kept"
        )
        decided[pair.older.name] = _flagged(decided[pair.older.name], pair.newer.name, why)
    return decided


def _flagged(decision: Decision, other: str, why: str) -> Decision:
    """A kept decision flagged for review (a trashed one stays trashed)."""
    if decision.action == "trash":
        return decision
    kept = f"{decision.kept_reason}; {why}" if decision.kept_reason else why
    return dataclasses.replace(decision, action="flag", of=other, kept_reason=kept)


def claim_verifier(view: RepoView | None, evidence: trajectories.Evidence | None) -> Verify | None:
    """How a claim of the index is verified: the repository, with what the trajectories
    confirm first (seed 003 phase 3); None when there is nothing to verify against."""
    verify = _verifier(view) if view is not None else None
    if evidence is not None:
        verify = trajectories.confirmed_first(evidence, verify)
    return verify


def mark_claims(new_index: str, verify: Verify | None) -> str:
    """Seed 003 phase 5: claims of a sectioned index that do not verify are marked, never
    removed."""
    if verify is not None and checks.is_sectioned(new_index):
        return checks.mark_unverified(new_index, verify, include_unverifiable=False)
    return new_index


def plan_findings(
    folder: MemoryFolder,
    new_index: str,
    rebuilt: index.Rebuilt,
    decisions: Iterable[Decision],
    manifests: Mapping[str, str],
    trajectory_findings: Sequence[str] = (),
) -> tuple[str, ...]:
    """What the run reports and never fixes by itself (seeds 000, 003, 004)."""
    dead = (
        f"{ref.source}: wikilink [[{ref.stem}]] points to a memory moved to the trash"
        for ref in rebuilt.report.wikilinks_to_trashed
    )
    return (
        *(f"{name}: {why}" for name, why in folder.excluded),
        *_findings(folder, new_index, manifests),
        *trajectory_findings,
        *dead,
        *_empty_or_current(folder, decisions),
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


def folder_title(path: Path) -> str:
    """The title a rebuilt index gives the folder."""
    name = path.name if path.name not in ("memory", "") else path.parent.name
    return name.strip("-") or "Project"


def _verifier(view: RepoView) -> Verify:
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


def file_line(memory: MemoryFile, body_line: int | None) -> int | None:
    """A line of a memory's body as a line of its file, counted from the top (issue 12, 15)."""
    return None if body_line is None else body_line + memory.body_line - 1


def _findings(folder: MemoryFolder, new_index: str, manifests: Mapping[str, str]) -> Iterable[str]:
    """Seed 004 / 003 checks, reported and never auto-fixed."""
    over = checks.line_budget(new_index)
    if over is not None:
        yield over.message
    for memory in folder.files:
        for finding in (
            *checks.count_claims(memory.body),
            *checks.version_drift(memory.body, manifests),
        ):
            yield f"{memory.name}:{file_line(memory, finding.line)}: {finding.message}"
    if folder.index_text and checks.is_sectioned(folder.index_text):
        yield checks.health_line(folder.index_text)
        for finding in checks.entries_without_source(folder.index_text):
            yield f"MEMORY.md:{finding.line}: {finding.message}"
