"""The text stores' shared gate flow (``run_gate``) and its pure helpers, on real files."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dreamd.dream.execute import Executor, undo_run
from dreamd.dream.folder.repoview import RepoView
from dreamd.dream.gates.flow import (
    Decision,
    StoreFiles,
    StoreRun,
    TrashFile,
    ledger_additions,
    run_gate,
)

NOW = datetime(2026, 12, 1, 3, 30, tzinfo=UTC)


@dataclass(frozen=True)
class Held:
    keys: tuple[str, ...]


def test_a_decision_line_says_where_the_record_went_unless_rejected() -> None:
    """Accepted and merged lines carry where the record went; a rejected one only its reason."""
    where = "inbox:k1"
    accepted = Decision(Held(("k1",)), "accept", "new", "x")
    assert accepted.line(where, "as entity 'x'") == "accepted inbox:k1 as entity 'x': new"
    merged = Decision(Held(("k1",)), "merge", "same", "Rules")
    assert merged.line(where, "into ## Rules") == "merged inbox:k1 into ## Rules: same"
    rejected = Decision(Held(("k1",)), "reject", "secret")
    assert rejected.line(where, "into ## None") == "rejected inbox:k1: secret"


def test_the_ledger_gains_accepted_and_merged_records_not_yet_in_it() -> None:
    """Rejections never reach it; a record sharing a key with the ledger is not added twice."""
    decisions = [
        Decision(Held(("k1",)), "accept", "new"),
        Decision(Held(("k2",)), "reject", "secret"),
        Decision(Held(("k3", "k0")), "merge", "restated"),
        Decision(Held(("k4",)), "merge", "same"),
    ]
    assert ledger_additions(decisions, ["k0"]) == [decisions[0], decisions[3]]
    assert ledger_additions(decisions, iter(())) == [decisions[0], decisions[2], decisions[3]]


@dataclass
class Plan:
    """A format's part of the flow, writing one main file; records what the flow asked of it."""

    files: StoreFiles
    changes: list[str]
    flags: list[str] = field(default_factory=list)
    stale: str | None = None
    stop: str | None = None
    calls: list[str] = field(default_factory=list)

    def conflict(self) -> str | None:
        self.calls.append("conflict")
        return self.stale

    def trash(self, run_id: str) -> list[TrashFile]:
        self.calls.append(f"trash {run_id}")
        return [
            TrashFile(self.files.holding.name, b"rejected\n", b"# rejected\n"),
            TrashFile("main.removed.txt", b""),
        ]

    def commit(self, executor: Executor) -> str | None:
        self.calls.append("commit")
        executor.write(self.files.main, b"new\n")
        executor.write(self.files.holding, b"")
        return self.stop


@dataclass
class Harness:
    """One store's files, a lock that records when it is held, and the plan the flow gets."""

    files: StoreFiles
    plan: Plan
    events: list[str] = field(default_factory=list)
    seen: list[tuple[Mapping[str, RepoView], RepoView | None]] = field(default_factory=list)

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.events.append("lock")
        yield
        self.events.append("unlock")

    def projects(self) -> Iterable[str | None]:
        self.events.append("projects")
        return [None, str(self.files.folder / "no-such-project")]

    def decide(self, views: Mapping[str, RepoView], home: RepoView | None) -> Plan:
        self.events.append("plan")
        self.seen.append((views, home))
        return self.plan

    def run(self, run_dir: Path, *, dry_run: bool = False, repo: Path | None = None) -> StoreRun:
        return run_gate(
            self.files,
            locked=self.locked,
            projects=self.projects,
            plan=self.decide,
            repo=repo,
            run_dir=run_dir,
            now=NOW,
            dry_run=dry_run,
        )


def harness(
    folder: Path,
    changes: list[str],
    *,
    plant: bool = True,
    stale: str | None = None,
    stop: str | None = None,
) -> Harness:
    """A store in ``folder`` (its main and holding files planted) and a plan with ``changes``."""
    folder.mkdir(parents=True, exist_ok=True)
    files = StoreFiles(
        "test", folder, folder / "main.txt", folder / "main.inbox.txt", folder / "main.sources.txt"
    )
    if plant:
        files.main.write_bytes(b"old\n")
        files.holding.write_bytes(b"held\n")
    return Harness(files, Plan(files, changes, ["a flag"], stale=stale, stop=stop))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_a_store_with_nothing_to_gate_is_not_read(tmp_path: Path) -> None:
    """Neither the main nor the holding file: an empty result, no lock, no plan, no run folder."""
    run = harness(tmp_path / "store", ["changed"], plant=False)
    assert run.run(tmp_path / "runs" / "r1") == StoreRun()
    assert run.events == [] and not (tmp_path / "runs").exists()


def test_a_linked_file_stops_the_run_before_reading(tmp_path: Path) -> None:
    """A ledger that is a symbolic link: flagged, nothing read or written."""
    run = harness(tmp_path / "store", ["changed"])
    (tmp_path / "elsewhere").write_bytes(b"")
    run.files.ledger.symlink_to(tmp_path / "elsewhere")
    before = snapshot(run.files.folder)
    result = run.run(tmp_path / "runs" / "r1")
    assert result.changes == [] and "is a symbolic link" in result.flags[0]
    assert run.events == [] and snapshot(run.files.folder) == before


def test_the_plan_is_made_under_the_lock_with_the_scanned_views(tmp_path: Path) -> None:
    """Projects are named before the lock; the plan gets the views and the repository's own."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("hello\n")
    run = harness(tmp_path / "store", [])
    result = run.run(tmp_path / "runs" / "r1", repo=repo)
    assert run.events == ["projects", "lock", "plan", "unlock"]
    [(views, home)] = run.seen
    assert list(views) == [str(repo)] and home is views[str(repo)]
    assert result == StoreRun(flags=["a flag"])


def test_a_dry_run_reports_what_it_would_do_and_writes_nothing(tmp_path: Path) -> None:
    """Every change is prefixed ``would``; no run folder, no byte changed, nothing asked."""
    run = harness(tmp_path / "store", ["accepted x"])
    before = snapshot(run.files.folder)
    result = run.run(tmp_path / "runs" / "r1", dry_run=True)
    assert result == StoreRun(["would accept x"], ["a flag"])
    assert run.plan.calls == [] and snapshot(run.files.folder) == before
    assert not (tmp_path / "runs").exists()


def test_no_change_writes_nothing(tmp_path: Path) -> None:
    """A plan without changes: its flags only, and no journal."""
    run = harness(tmp_path / "store", [])
    before = snapshot(run.files.folder)
    assert run.run(tmp_path / "runs" / "r1") == StoreRun(flags=["a flag"])
    assert run.plan.calls == [] and snapshot(run.files.folder) == before
    assert not (tmp_path / "runs").exists()


def test_a_file_changed_since_it_was_read_is_left_for_later(tmp_path: Path) -> None:
    """The plan's conflict is the only line; no trash, no journal, no write."""
    run = harness(tmp_path / "store", ["accepted x"], stale="main.txt changed")
    before = snapshot(run.files.folder)
    assert run.run(tmp_path / "runs" / "r1") == StoreRun(flags=["main.txt changed"])
    assert run.plan.calls == ["conflict"] and snapshot(run.files.folder) == before
    assert not (tmp_path / "runs").exists()


def test_trash_records_are_written_before_the_commit_and_undone_with_it(tmp_path: Path) -> None:
    """Trash first (created with its header, an empty record list adds no file), then commit."""
    run = harness(tmp_path / "store", ["accepted x"])
    before = snapshot(run.files.folder)
    result = run.run(tmp_path / "runs" / "r1")
    assert result == StoreRun(["accepted x"], ["a flag"])
    assert run.plan.calls == ["conflict", "trash r1", "commit"]
    after = snapshot(run.files.folder)
    assert after == {
        ".trash/2026-12-01/main.inbox.txt": b"# rejected\nrejected\n",
        "main.inbox.txt": b"",
        "main.txt": b"new\n",
    }
    [journal] = (tmp_path / "runs" / "r1").iterdir()
    assert journal.name.startswith("test-")
    undo_run(journal)
    assert snapshot(run.files.folder) == before


def test_a_commit_that_stops_part_way_reports_only_why(tmp_path: Path) -> None:
    """What the commit wrote stays journaled; the result is the commit's flag alone."""
    run = harness(tmp_path / "store", ["accepted x"], stop="main.txt changed during the dream")
    result = run.run(tmp_path / "runs" / "r1")
    assert result == StoreRun(flags=["main.txt changed during the dream"])
    assert run.files.main.read_bytes() == b"new\n"
