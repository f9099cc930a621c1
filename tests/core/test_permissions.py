"""Issue 15 item 7: dreamd's own state is private whatever the umask.

Under umask 022 (what a hand run usually has) every folder dreamd creates for
itself is 0700 and every file 0600: the data folder, ``state.db`` and its
``-wal``/``-shm``, ``memory.db``, write plans, reports, run backups and
journals, the log file and its rotations. A data folder an older dreamd left
readable by others is tightened once, and the log says so.
"""

from __future__ import annotations

import io
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from dreamd.fswrite import TIGHTENED_MARKER
from dreamd.logs import configure_logging
from dreamd.statedb import open_state
from tests.collect.test_chaos_all_stores import configure
from tests.collect.test_collect_cli import PROMPTS, data, session
from tests.process import run_dreamd


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual interactive umask, for this process and the dreamd it starts."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def modes(root: Path) -> dict[str, str]:
    """Every entry under ``root`` (itself included) by relative path: its octal mode."""
    found = {".": oct(stat.S_IMODE(root.lstat().st_mode))}
    for path in sorted(root.rglob("*")):
        found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.lstat().st_mode))
    return found


def loose(root: Path) -> dict[str, str]:
    """Entries that are not 0700 folders or 0600 files."""
    wanted = {True: "0o700", False: "0o600"}
    return {
        name: mode
        for name, mode in modes(root).items()
        if mode != wanted[(root / name).is_dir() and not (root / name).is_symlink()]
    }


def test_collect_and_dream_leave_only_private_state(isolated_home: Path, umask_022: None) -> None:
    configure(isolated_home)
    session(isolated_home, PROMPTS)
    collect = run_dreamd(isolated_home, "collect")
    assert collect.returncode == 0, collect.stderr
    dream = run_dreamd(isolated_home, "dream")
    assert dream.returncode == 0, dream.stdout + dream.stderr
    folder = data(isolated_home)
    names = set(modes(folder))
    assert {"state.db", "memory.db", "reports", "runs", TIGHTENED_MARKER} <= names
    assert any(name.startswith("reports/collect-") for name in names)
    assert any(name.endswith("journal.jsonl") for name in names)  # a run's journal
    assert any("/backup/" in name for name in names)  # a run's backups
    assert loose(folder) == {}
    probe = isolated_home / "probe"  # the umask really was 022 for everything else
    probe.write_text("x")
    assert stat.S_IMODE(probe.stat().st_mode) == 0o644


def test_the_state_database_and_its_wal_and_shm_are_private(
    tmp_path: Path, umask_022: None
) -> None:
    state = open_state(tmp_path / "data" / "state.db")
    with state.transaction() as connection:  # the connection holds the WAL and shared memory open
        connection.execute("CREATE TABLE probe (x)")
        connection.execute("INSERT INTO probe VALUES (1)")
    files = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "data").iterdir()}
    state.close()
    assert files["state.db-wal"] == files["state.db-shm"] == files["state.db"] == 0o600
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700


def test_an_old_readable_data_folder_is_tightened_once_and_logged(
    isolated_home: Path, umask_022: None
) -> None:
    session(isolated_home, PROMPTS)
    assert run_dreamd(isolated_home, "collect").returncode == 0
    folder = data(isolated_home)
    (folder / TIGHTENED_MARKER).unlink()  # as an older dreamd left it
    for path in (folder, *folder.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    first = run_dreamd(isolated_home, "status")
    assert first.returncode == 0, first.stderr
    assert "state.permissions.tightened" in first.stderr
    assert loose(folder) == {}
    second = run_dreamd(isolated_home, "status")
    assert second.returncode == 0 and "permissions" not in second.stderr


def test_the_log_file_and_its_rotations_are_private(tmp_path: Path, umask_022: None) -> None:
    path = tmp_path / "logs" / "dreamd.log"
    configure_logging("info", log_file=path, max_bytes=300, backup_count=2)
    for index in range(20):
        logging.getLogger("dreamd.test").info("line %d %s", index, "x" * 40)
    files = sorted(path.parent.iterdir())
    assert len(files) == 3  # the file and two rotations
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o600}
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    configure_logging("warning", stream=io.StringIO())


def test_an_existing_readable_log_file_is_tightened_and_the_log_says_so(
    tmp_path: Path, umask_022: None
) -> None:
    path = tmp_path / "dreamd.log"
    path.write_text("")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    configure_logging("info", log_file=path)
    logging.getLogger().handlers[0].flush()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "log.permissions.tightened" in path.read_text()
    configure_logging("warning", stream=io.StringIO())
