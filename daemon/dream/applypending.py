"""Seed 004 ``--apply-pending``: apply each stored proposal as a live run would, or refuse.

Refusals, each one line, nothing written (the proposal is kept): the seed's
four (missing, stale, stale-index, unsupported format, an older sidecar
included), then what a live run would refuse (issue 12, item 2): a folder
that changed underneath since the dry run (naming each file created,
removed or edited), an inbox item the gate decided on that changed, a folder
the preflight refuses (links), a dirty git work tree (seed 001), and a
proposal whose index would break the two-file invariant (item 1).

Applying goes through the live run's code: the inventory (seed 001), the
gate's decisions, ``apply.apply_changes`` with one commit per logical unit
in a git root, then the invariant and the read-only layers checked from disk.
An applied proposal is deleted.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from dreamd.dream import gitmode, proposal
from dreamd.dream.apply import Changes, apply_changes, executor_for, with_changes
from dreamd.dream.dreamed import mark_dreamed
from dreamd.dream.execute import Executor
from dreamd.dream.folder.indexfile import is_topic_file_name, parse_index
from dreamd.dream.folder.invariant import check_invariant
from dreamd.dream.folder.inventory import ARCHIVE_NAME, load_folder
from dreamd.dream.folder.links import lstat_problem
from dreamd.dream.folderrun import checked_from_disk, failed_report, git_facts
from dreamd.dream.gates import folder as gate
from dreamd.dream.model import DreamRequest
from dreamd.dream.pending import (
    SIDECAR_VERSION,
    PendingFile,
    folder_snapshot,
    index_mtime,
    pending_files,
    snapshot_changes,
)
from dreamd.dream.preflight import preflight
from dreamd.dream.report import FolderReport, IndexSummary, RunReport
from dreamd.dream.runinventory import read_only_bytes, record_inventory
from dreamd.fs import read_if_present, sha256_of
from dreamd.logs import get_logger

__all__ = ["apply_pending", "refusal_of"]

log = get_logger("dreamd.dream")

_AGAIN = "run `dreamd dream --dry-run` again"


def apply_pending(request: DreamRequest, state_dir: Path) -> RunReport:
    """Seed 004 ``--apply-pending`` over every stored proposal (or those ``--root`` names)."""
    wanted = {path.resolve() for path in request.only}
    stored = [p for p in pending_files(state_dir) if not wanted or p.folder in wanted]
    if not stored:
        missing = proposal.apply_decision(None, index_mtime=None, now=request.now)
        message = missing.message if isinstance(missing, proposal.Refusal) else ""
        folder = FolderReport(path="-", repo=None, files=(), index=IndexSummary(), refused=message)
        return RunReport(request.run_id, "apply-pending", (folder,))
    reports = [_apply_guarded(item, request, state_dir) for item in stored]
    changed = [r for r in reports if r.changed]
    messages = (f"Undo this run: dreamd undo {request.run_id}",) if changed else ()
    return RunReport(request.run_id, "apply-pending", tuple(reports), messages=messages)


def _apply_guarded(item: PendingFile, request: DreamRequest, state_dir: Path) -> FolderReport:
    try:
        return _apply_one(item, request, state_dir)
    except Exception as error:  # one folder's failure is its own (issue 15, item 3)
        log.exception("dream.pending.failed", folder=str(item.folder))
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        return failed_report(item.folder, None, f"could not apply the proposal: {reason}")


def refusal_of(item: PendingFile, request: DreamRequest) -> tuple[str | None, str | None]:
    """(refusal, new index): why ``item`` must not be applied now, else its new index."""
    decision = proposal.apply_decision(
        item.text, index_mtime=index_mtime(item.folder), now=request.now
    )
    if isinstance(decision, proposal.Refusal):
        return decision.message, None
    if item.version == 0:
        return f"{item.reason}; {_AGAIN}", None
    if item.version < SIDECAR_VERSION:
        return f"the proposal was made by an older dreamd and lacks the archive; {_AGAIN}", None
    refusal = preflight(item.folder, request.now.date())
    if refusal is not None:
        return refusal, None
    changed = snapshot_changes(item.snapshot, folder_snapshot(item.folder))
    changed += [
        f".inbox/{name} changed after the dry run"
        for name, digest in item.inbox.items()
        if sha256_of(item.folder / gate.INBOX / name) != digest
    ]
    if changed:
        return f"the folder changed under the proposal: {'; '.join(changed[:10])}; {_AGAIN}", None
    return _git_refusal(item.folder) or _invariant_refusal(item, decision.new_index), (
        decision.new_index
    )


def _git_refusal(folder: Path) -> str | None:
    """Seed 001 Phase 0: a git-managed memory root is changed only from a clean work tree."""
    root = gitmode.is_work_tree(folder)
    if root is None:
        return None
    clean, dirty = gitmode.status_clean(root, within=folder)
    return None if clean else f"git work tree {root} is not clean: {', '.join(dirty[:5])}"


def _invariant_refusal(item: PendingFile, new_index: str) -> str | None:
    """Issue 12 item 1: the proposal's two files must index every memory the folder keeps."""
    trashed = {name for name, _ in item.trash}
    names = {n for n in item.snapshot if is_topic_file_name(n) and n not in trashed}
    names |= {d.target for d in item.gate if d.verdict == "accept" and d.target}
    archive = item.archive
    if archive is not None:
        archive_text: str | None = archive.content.decode("utf-8", "surrogateescape")
    else:
        current = read_if_present(item.folder / ARCHIVE_NAME)
        archive_text = current.decode("utf-8", "surrogateescape") if current is not None else None
    links = [p.name for p in item.folder.iterdir() if lstat_problem(p) not in (None, "a directory")]
    invariant = check_invariant(new_index, archive_text, names, links)
    if invariant.ok:
        return None
    return f"the proposal would break the index invariant: {'; '.join(invariant.problems[:3])}"


def _apply_one(item: PendingFile, request: DreamRequest, state_dir: Path) -> FolderReport:
    base = FolderReport(path=str(item.folder), repo=None, files=(), index=IndexSummary())
    refusal, new_index = refusal_of(item, request)
    if refusal is not None or new_index is None:
        return with_changes(base, refused=refusal)
    folder = load_folder(item.folder, None)
    git = git_facts(item.folder, folder)
    root = git.root if git is not None else None
    executor = executor_for(item.folder, state_dir, request.run_id, request.now)
    record_inventory(executor.run_dir, folder, git)  # seed 001: no change without it
    layers = read_only_bytes(item.folder)
    lines, commits = _gate(item, executor, root)
    changes = Changes(
        folder=item.folder,
        trash=item.trash,
        rewrites=tuple((w.name, w.old_sha256 or "", w.content) for w in item.rewrites),
        new_index=new_index,
        new_archive=_text(item.archive.content) if item.archive is not None else None,
    )
    done, notes = apply_changes(changes, executor, root)
    trashed = {name for name, _ in item.trash}
    report = with_changes(
        replace(base, files=tuple(d for d in item.decisions if d.file in trashed)),
        commits=(*commits, *done),
        findings=(*lines, *notes, _applied_line(item, new_index)),
        changed=True,
        index=IndexSummary(entries=len(parse_index(new_index).entries), rebuilt=True),
    )
    report = checked_from_disk(report, item.folder, layers, git)
    if report.refused is None:
        item.remove()
        mark_dreamed(state_dir, item.folder, request.run_id, request.now)
    return report


def _gate(item: PendingFile, executor: Executor, root: Path | None) -> tuple[list[str], list[str]]:
    """The validate gate's stored decisions, carried out, one commit (seed 001)."""
    if not item.gate:
        return [], []
    lines = gate.apply_gate(item.folder, item.gate, executor)
    sha = (
        gitmode.commit(root, [item.folder], "dream: validate collected memories") if root else None
    )
    return lines, [sha] if sha else []


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _applied_line(item: PendingFile, new_index: str) -> str:
    parsed = proposal.parse_proposal(item.text or "")
    entries = len(parse_index(new_index).entries)
    if isinstance(parsed, proposal.Refusal):
        return f"dream applied: +{entries} consolidated entries"
    return proposal.applied_line(parsed, entries)
