"""A large scan reads on every core and cannot be told from a serial one but by the clock:
the same sessions in the same order, a dying worker costs nothing, no worker outlives its
parent, and nothing buffered is written twice."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from dreamd import readpool
from dreamd.catalog import Catalog, summarize_safely
from dreamd.readers import READERS, Reader, SessionRef
from dreamd.readpool import CHUNK, MAX_WORKERS, PARALLEL_FROM, pool_size, summaries
from dreamd.sessioninfo import SessionInfo
from dreamd.statedb import open_state
from tests.core.test_catalog import write_claude

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "fork"), reason="workers are forked"
)

SESSIONS = PARALLEL_FROM + 2 * CHUNK + 5  # three chunks past the threshold, the last short


class TestPoolSize:
    def test_a_small_batch_one_core_or_a_second_thread_read_here(self) -> None:
        assert pool_size(PARALLEL_FROM - 1, cores=8, threads=1) == 0
        assert pool_size(10_000, cores=1, threads=1) == 0
        assert pool_size(10_000, cores=8, threads=2) == 0

    def test_a_large_batch_takes_every_core_up_to_the_cap_and_the_chunks(self) -> None:
        assert pool_size(PARALLEL_FROM, cores=2, threads=1) == 2
        assert pool_size(10_000, cores=64, threads=1) == MAX_WORKERS
        assert pool_size(PARALLEL_FROM, cores=64, threads=1) == -(-PARALLEL_FROM // CHUNK)


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[SessionRef]]:
    home = tmp_path_factory.mktemp("home")
    for index in range(SESSIONS):
        write_claude(home, f"s{index:04d}", [f"prompt {index}", "and one more"])
    root = home / ".claude" / "projects"
    refs = [r for r in READERS["claude-code"].discover(root) if isinstance(r, SessionRef)]
    return root, sorted(refs, key=lambda ref: ref.session_id)


def marking(folder: Path, crash_on: str | None = None) -> readpool.Summarize:
    """``summarize_safely`` that leaves a file named by the pid of each process it ran in;
    in a worker, reading ``crash_on`` ends the process at once."""
    parent = os.getpid()

    def summarize(reader: Reader, ref: SessionRef) -> SessionInfo:
        (folder / str(os.getpid())).touch()
        if ref.session_id == crash_on and os.getpid() != parent:
            os._exit(3)
        return summarize_safely(reader, ref)

    return summarize


@pytest.fixture
def marks(tmp_path: Path) -> Path:
    """Where each process that summarized a session leaves a file named by its pid."""
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


def pids(folder: Path) -> set[int]:
    return {int(p.name) for p in folder.iterdir()}


def serial(refs: list[SessionRef]) -> list[SessionInfo]:
    return [summarize_safely(READERS["claude-code"], ref) for ref in refs]


class TestSummaries:
    def test_workers_read_every_session_in_order(
        self, sessions: tuple[Path, list[SessionRef]], marks: Path
    ) -> None:
        _, refs = sessions
        got = list(summaries(READERS, refs, marking(marks), workers=2))
        assert got == serial(refs)
        assert [info.session_id for info in got] == [ref.session_id for ref in refs]
        assert pids(marks) and os.getpid() not in pids(marks)  # read in the workers

    def test_a_worker_that_dies_leaves_nothing_unread(
        self, sessions: tuple[Path, list[SessionRef]], marks: Path
    ) -> None:
        """The refs the pool did not return are read here; none is lost or doubled."""
        _, refs = sessions
        doomed = refs[CHUNK + 3].session_id  # in the second chunk
        got = list(summaries(READERS, refs, marking(marks, crash_on=doomed), workers=2))
        assert got == serial(refs)
        assert os.getpid() in pids(marks)  # the rest was read here

    def test_a_worker_that_raises_leaves_its_sessions_to_this_process(
        self, sessions: tuple[Path, list[SessionRef]], marks: Path
    ) -> None:
        """Not a reader's error (those become unresolved sessions) but the summary's own:
        the chunk is read again here, where it succeeds or fails as a serial read would."""
        _, refs = sessions
        parent = os.getpid()

        def summarize(reader: Reader, ref: SessionRef) -> SessionInfo:
            (marks / str(os.getpid())).touch()
            if os.getpid() != parent and ref.session_id == refs[2].session_id:
                raise MemoryError("a worker out of memory")
            return summarize_safely(reader, ref)

        got = list(summaries(READERS, refs, summarize, workers=2))
        assert got == serial(refs)
        assert parent in pids(marks)

    def test_a_second_thread_keeps_the_reads_in_this_process(
        self, sessions: tuple[Path, list[SessionRef]], marks: Path
    ) -> None:
        """A threaded process (the service) never forks: a child could inherit a held lock."""
        _, refs = sessions
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            got = list(summaries(READERS, refs, marking(marks)))
        finally:
            stop.set()
            other.join()
        assert got == serial(refs)
        assert pids(marks) == {os.getpid()}

    def test_a_small_batch_is_read_here(
        self, sessions: tuple[Path, list[SessionRef]], marks: Path
    ) -> None:
        _, refs = sessions
        got = list(summaries(READERS, refs[: PARALLEL_FROM - 1], marking(marks)))
        assert len(got) == PARALLEL_FROM - 1
        assert pids(marks) == {os.getpid()}


def test_every_kind_of_summary_comes_back_from_a_worker_as_it_was_made(tmp_path: Path) -> None:
    """What a worker sends back is the summary itself, whatever it holds: damaged lines,
    an unreadable file's reason, a machine's opening, text beyond ASCII, no project."""
    home = tmp_path / "home"
    folder = home / ".claude" / "projects" / "-work-repo"
    for index in range(CHUNK + 1):  # the odd sessions land in the second worker's chunk
        write_claude(home, f"plain-{index:03d}", [f"prompt {index}", "then the next step"])
    write_claude(home, "unicode", ["Füge die Tests hinzu 🙂", "日本語でも説明して"], cwd="/wörk/ü")
    write_claude(home, "machine", ["You are a bot. <task>x</task><rules>y</rules>", "more"])
    write_claude(home, "nowhere", ["where am I", "still here"], cwd="")
    damaged = write_claude(home, "damaged", ["one", "two", "three"])
    lines = damaged.read_text().splitlines()
    lines[2] = lines[2][: len(lines[2]) // 2]  # a torn line in the middle
    damaged.write_text("\n".join(lines) + "\n")
    (folder / "garbage.jsonl").write_text("not json\n" * 5)
    (folder / "empty.jsonl").write_text("")
    refs = sorted(
        (r for r in READERS["claude-code"].discover(home / ".claude" / "projects")
         if isinstance(r, SessionRef)),
        key=lambda ref: ref.session_id,
    )  # fmt: skip
    expected = serial(refs)
    kinds = {info.session_id: info for info in expected}
    assert kinds["damaged"].damaged_lines and kinds["garbage"].unresolved
    assert kinds["empty"].unresolved and kinds["machine"].machine_opening
    assert kinds["nowhere"].project is None and kinds["unicode"].project == "/wörk/ü"
    got = list(summaries(READERS, refs, summarize_safely, workers=2))
    assert got == expected
    for back, made in zip(got, expected, strict=True):
        assert [type(field) for field in back] == [type(field) for field in made]
        assert back.last_message_at is None or back.last_message_at.utcoffset() == timedelta(0)


def test_a_parallel_scan_caches_what_a_serial_one_does(
    sessions: tuple[Path, list[SessionRef]], tmp_path: Path
) -> None:
    """The catalog's first scan on two workers: the same sessions found and saved, and the
    next scan (in a new process's catalog) reads none of them again."""
    root, _ = sessions
    results = {}
    for workers in (0, 2):
        state = open_state(tmp_path / f"state-{workers}" / "state.db")
        first = Catalog(state, {"claude-code": (root,)}, workers=workers).scan()
        again = Catalog(state, {"claude-code": (root,)}, workers=workers).scan()
        assert first.read == SESSIONS and again.read == 0
        assert sorted(again.sessions) == sorted(first.sessions)
        results[workers] = first.sessions
    assert results[2] == results[0]


PROGRAM = """
import os, sys, time
from pathlib import Path
from dreamd.readers import READERS, SessionRef
from dreamd.catalog import summarize_safely
from dreamd.readpool import summaries
root, marks = Path(sys.argv[1]), Path(sys.argv[2])
refs = sorted(
    (r for r in READERS["claude-code"].discover(root) if isinstance(r, SessionRef)),
    key=lambda ref: ref.session_id,
)
def slow(reader, ref):
    (marks / str(os.getpid())).touch()
    time.sleep(float(sys.argv[3]))
    return summarize_safely(reader, ref)
sys.stdout.write("before\\n")  # a pipe: block-buffered, still in the buffer at the fork
for info in summaries(READERS, refs, slow, workers=2):
    pass
print("after")
"""


def _program(root: Path, marks: Path, pause: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PROGRAM), str(root), str(marks), str(pause)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie nobody reaped has ended)."""
    status = Path(f"/proc/{pid}/status")
    if status.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            state = next(line for line in status.read_text().splitlines() if line[:6] == "State:")
        except (FileNotFoundError, ProcessLookupError):
            return False
        return "Z" not in state.split()[1]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _workers_of(parent: int, marks: Path) -> Iterator[int]:
    return (pid for pid in pids(marks) if pid != parent)


def test_nothing_buffered_before_the_fork_is_written_twice(
    sessions: tuple[Path, list[SessionRef]], marks: Path
) -> None:
    root, _ = sessions
    program = _program(root, marks, 0)
    out, err = program.communicate(timeout=120)
    assert program.returncode == 0, err
    assert out == "before\nafter\n"
    assert pids(marks) and program.pid not in pids(marks)  # the workers read it all


def test_no_worker_outlives_a_parent_killed_outright(
    sessions: tuple[Path, list[SessionRef]], marks: Path
) -> None:
    """SIGKILL gives the parent no chance to stop its pool: the workers notice and end."""
    root, _ = sessions
    program = _program(root, marks, 0.05)
    deadline = time.monotonic() + 60
    while len(list(_workers_of(program.pid, marks))) < 2:
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.05)
    workers = list(_workers_of(program.pid, marks))
    program.kill()
    program.communicate(timeout=30)
    deadline = time.monotonic() + 30
    while any(map(_alive, workers)):
        assert time.monotonic() < deadline, f"workers {workers} outlived their parent"
        time.sleep(0.1)
