"""The two-file one-to-one invariant of ``MEMORY.md`` and its archive (seed 000 STEP 5, #3741).

Every topic file is indexed exactly once across ``MEMORY.md`` and
``MEMORY-ARCHIVE.md``, under its exact-case name, and ``MEMORY.md`` ends with
exactly one trailer line when an archive exists (none when it does not).
``check_invariant`` is pure; ``invariant_from_disk`` reads the folder as it is
now (the re-check after writing), never through a link.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dreamd.dream.folder.indexfile import ARCHIVE_NAME, INDEX_NAME, is_topic_file_name, parse_index
from dreamd.dream.folder.links import lstat_problem
from dreamd.fs import read_if_present

__all__ = ["InvariantReport", "check_invariant", "invariant_from_disk"]


@dataclass(frozen=True, slots=True)
class InvariantReport:
    """The two-file one-to-one invariant (seed 000 STEP 5, #3741), and what breaks it."""

    not_indexed: tuple[str, ...] = ()
    dangling: tuple[str, ...] = ()
    in_both: tuple[str, ...] = ()
    repeated: tuple[str, ...] = ()
    trailer_lines: int = 0
    archive_exists: bool = False

    @property
    def ok(self) -> bool:
        """Whether the invariant holds."""
        return not self.problems

    @property
    def problems(self) -> tuple[str, ...]:
        """One sentence per broken part of the invariant."""
        found = []
        if self.not_indexed:
            found.append(f"not indexed in either file: {', '.join(self.not_indexed)}")
        if self.dangling:
            found.append(f"links to no file of that exact name: {', '.join(self.dangling)}")
        if self.in_both:
            found.append(f"indexed in both MEMORY.md and the archive: {', '.join(self.in_both)}")
        if self.repeated:
            found.append(f"indexed more than once: {', '.join(self.repeated)}")
        expected = 1 if self.archive_exists else 0
        if self.trailer_lines != expected:
            found.append(
                f"MEMORY.md has {self.trailer_lines} trailer lines linking {ARCHIVE_NAME}, "
                f"expected {expected}"
            )
        return tuple(found)


def check_invariant(
    index_text: str | None,
    archive_text: str | None,
    file_names: Iterable[str],
    ignore: Iterable[str] = (),
) -> InvariantReport:
    """The two-file one-to-one invariant (seed 000 STEP 5, #3741). Pure.

    indexed(MEMORY.md) + indexed(MEMORY-ARCHIVE.md) == topic files on disk,
    the two sets disjoint, no file indexed twice, every entry's target an
    exact-case file name, and exactly one trailer line when an archive exists
    (none when it does not). Topic files exclude ``MEMORY*.md`` and hidden
    files; the caller lists only the folder's own files (not ``.trash/`` or
    ``_backup/``). Prose mentions are not entries and are not counted.
    """
    foreign = set(ignore)
    files = {name for name in file_names if is_topic_file_name(name) and name not in foreign}
    index = parse_index(index_text or "")
    main = [entry.file for entry in index.entries if entry.file not in foreign]
    archived = (
        [e.file for e in parse_index(archive_text).entries if e.file not in foreign]
        if archive_text
        else []
    )
    linked = set(main) | set(archived)
    repeated = {
        n for counts in (Counter(main), Counter(archived)) for n, c in counts.items() if c > 1
    }
    return InvariantReport(
        not_indexed=tuple(sorted(files - linked)),
        dangling=tuple(sorted(linked - files)),
        in_both=tuple(sorted(set(main) & set(archived))),
        repeated=tuple(sorted(repeated)),
        trailer_lines=sum(1 for line in index.lines if line.kind == "trailer"),
        archive_exists=archive_text is not None,
    )


def _read_text(path: Path) -> str | None:
    """A file's text, or None when there is no such file (never read through a link)."""
    data = read_if_present(path)
    return None if data is None else data.decode("utf-8", "surrogateescape")


def invariant_from_disk(folder: Path) -> InvariantReport:
    """Check the invariant against what is on disk now (the re-check after writing).

    Reads ``MEMORY.md`` and ``MEMORY-ARCHIVE.md`` and lists the folder's own
    files (subfolders such as ``.trash/`` and ``_backup/`` are not listed).
    """
    names, links = [], []
    for path in folder.iterdir():
        problem = lstat_problem(path)
        if problem is None:
            names.append(path.name)
        elif problem != "a directory":
            links.append(path.name)
    return check_invariant(
        _read_text(folder / INDEX_NAME), _read_text(folder / ARCHIVE_NAME), names, links
    )
