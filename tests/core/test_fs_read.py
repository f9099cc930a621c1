"""``read_regular``: a regular file's bytes and status, read-only, never through a link."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from dreamd import fs
from dreamd.fs import read_regular


@pytest.mark.parametrize("size", [0, 1, 4095, 65_537, 300_000])
def test_every_byte_is_read(tmp_path: Path, size: int) -> None:
    """Empty, small and multi-read files come back whole, with their status."""
    data = os.urandom(size)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    read, status = read_regular(path)
    assert read == data
    assert status.st_size == size


def test_a_file_grown_since_its_status_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The status is taken before the read: bytes written after it are read too (to the cap)."""
    path = tmp_path / "f.bin"
    path.write_bytes(b"x" * 200_000)
    real = fs.regular_status

    def stale(handle: object, where: object, max_bytes: int) -> os.stat_result:
        status = real(handle, where, 2**30)  # type: ignore[arg-type]
        fields = list(status)
        fields[6] = 10  # st_size as it was before the writer went on
        return os.stat_result(fields)

    monkeypatch.setattr(fs, "regular_status", stale)
    assert read_regular(path)[0] == b"x" * 200_000
    assert read_regular(path, max_bytes=150_000)[0] == b"x" * 150_001  # one past: caller sees it


def test_links_directories_and_big_files_are_refused(tmp_path: Path) -> None:
    """``follow=False`` refuses a symbolic link; a folder is no regular file; the cap holds."""
    target = tmp_path / "target"
    target.write_bytes(b"12345")
    (tmp_path / "link").symlink_to(target)
    assert read_regular(tmp_path / "link")[0] == b"12345"
    with pytest.raises(OSError) as link:
        read_regular(tmp_path / "link", follow=False)
    assert link.value.errno == errno.ELOOP
    with pytest.raises(OSError) as folder:
        read_regular(tmp_path)
    assert folder.value.errno == errno.EINVAL
    with pytest.raises(OSError) as big:
        read_regular(target, max_bytes=4)
    assert big.value.errno == errno.EFBIG
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "absent")


def test_no_descriptor_is_left_open(tmp_path: Path) -> None:
    """Reads and refusals alike close the file they opened."""
    path = tmp_path / "f"
    path.write_bytes(b"data")
    before = len(list(Path("/proc/self/fd").iterdir()))
    for _ in range(50):
        read_regular(path)
        with pytest.raises(OSError):
            read_regular(path, max_bytes=1)
    assert len(list(Path("/proc/self/fd").iterdir())) == before
