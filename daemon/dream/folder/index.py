"""What the dream does to ``MEMORY.md``: rebuild it from the surviving files (seed 000 STEP 5).

The index is read through the line model of ``dreamd.dream.folder.indexfile``
(entries, mentions, headings, code, the trailer; every line kept as
written); the rules change only the lines a rule names. ``restructure``
applies them in order, one function each:

- rules 1 to 3 repair the entries the index has (``dreamd.dream.folder.repair``):
  exact-case link targets, dead entries dropped, one entry per file;
- rules 4 and 5 link the orphan topic files and sort a plain link list
  (``dreamd.dream.folder.orphans``).

``[[stem]]`` wikilinks to trashed memories are reported, never rewritten. The
single trailer line and the byte budget belong to ``dreamd.dream.folder.budget``,
which ``rebuild`` runs after these rules; it then checks the two-file
invariant (``dreamd.dream.folder.invariant``).

Invariants: every line no rule names is rendered byte for byte; rebuilding
the output again returns the same bytes.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from dreamd.dream.folder.budget import BudgetReport, Fitted, fit_budget
from dreamd.dream.folder.indexfile import (
    ARCHIVE_NAME,
    INDEX_NAME,
    Index,
    is_plain_list,
    is_topic_file_name,
    parse_index,
    wikilink_stems,
)
from dreamd.dream.folder.invariant import InvariantReport, check_invariant
from dreamd.dream.folder.orphans import link_orphans, name_key, sort_plain_list
from dreamd.dream.folder.repair import (
    DroppedLine,
    collapse_duplicates,
    dead_mentions,
    drop_dead_entries,
    match_link_case,
)
from dreamd.dream.model import MemoryFile

__all__ = [
    "IndexReport",
    "Rebuilt",
    "Restructured",
    "WikiRef",
    "rebuild",
    "restructure",
    "wikilinks_to_trashed",
]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class WikiRef:
    """A ``[[stem]]`` wikilink to a trashed memory, and where it was found."""

    source: str
    stem: str


@dataclass(frozen=True, slots=True)
class Restructured:
    """Outcome of the structural rules, before the byte budget."""

    index: Index
    archive: Index | None
    plain_list: bool
    dead_links_dropped: tuple[DroppedLine, ...]
    dead_mentions: tuple[DroppedLine, ...]
    duplicates_collapsed: tuple[DroppedLine, ...]
    orphans_linked: tuple[str, ...]
    case_fixed: tuple[str, ...]
    source_index: Index | None = None  # the index as read, parsed once for later checks
    source_archive: Index | None = None


@dataclass(frozen=True, slots=True)
class IndexReport:
    """What the rebuild of one index found and did (seed 000 STEPs 5 and 5.5).

    ``archived`` counts the entries indexed in ``MEMORY-ARCHIVE.md`` after the
    run; ``budget_report.moved`` names those this run moved there.
    """

    bytes: int
    budget: int
    entries: int
    archived: int
    invariant_ok: bool
    warnings: tuple[str, ...]
    plain_list: bool
    dead_links_dropped: tuple[DroppedLine, ...]
    dead_mentions: tuple[DroppedLine, ...]
    duplicates_collapsed: tuple[DroppedLine, ...]
    orphans_linked: tuple[str, ...]
    case_fixed: tuple[str, ...]
    wikilinks_to_trashed: tuple[WikiRef, ...]
    budget_report: BudgetReport
    invariant: InvariantReport

    def as_json(self) -> dict[str, object]:
        """The JSON contract's ``index`` object."""
        return {
            "bytes": self.bytes,
            "budget": self.budget,
            "entries": self.entries,
            "archived": self.archived,
            "invariant_ok": self.invariant_ok,
        }


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The new ``MEMORY.md``, the new archive (None: there is none) and the report."""

    new_index: str
    new_archive: str | None
    report: IndexReport


# --------------------------------------------------------------------------- rebuild


def wikilinks_to_trashed(
    index: Index | None,
    archive: Index | None,
    survivors: Sequence[MemoryFile],
    trashed: Collection[str],
) -> tuple[WikiRef, ...]:
    """``[[stem]]`` links to a trashed memory, in the index, the archive or a survivor.

    Issue 3, item 7: reported, never rewritten (they are the user's words).
    """
    gone = {name.removesuffix(".md").casefold(): name.removesuffix(".md") for name in trashed}
    if not gone:
        return ()
    found: list[WikiRef] = []
    for source, parsed in ((INDEX_NAME, index), (ARCHIVE_NAME, archive)):
        for line in parsed.lines if parsed else ():
            found.extend(
                WikiRef(source, gone[s.casefold()]) for s in line.wikilinks if s.casefold() in gone
            )
    for memory in survivors:
        stems = wikilink_stems(memory.body)
        found.extend(
            WikiRef(memory.name, gone[s.casefold()]) for s in stems if s.casefold() in gone
        )
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class _Repaired:
    """Both files after rules 1 to 3, and what those rules dropped or fixed."""

    index: Index
    archive: Index | None
    case_fixed: tuple[str, ...]
    dead_links_dropped: tuple[DroppedLine, ...]
    dead_mentions: tuple[DroppedLine, ...]
    duplicates_collapsed: tuple[DroppedLine, ...]


def _repair(
    index: Index, archive: Index | None, names: Collection[str], trashed: Collection[str]
) -> _Repaired:
    """Rules 1 to 3, on the index and the archive: exact case, dead entries, duplicates."""
    index, fixed = match_link_case(index, names)
    if archive is not None:
        archive, fixed_archive = match_link_case(archive, names)
        fixed += fixed_archive
    index, dead = drop_dead_entries(index, names, trashed, INDEX_NAME)
    mentions = dead_mentions(index, names, INDEX_NAME)
    if archive is not None:
        archive, dead_archive = drop_dead_entries(archive, names, trashed, ARCHIVE_NAME)
        dead += dead_archive
    index, archive, duplicates = collapse_duplicates(index, archive)
    return _Repaired(index, archive, fixed, dead, mentions, duplicates)


def _orphans(
    index: Index, archive: Index | None, survivors: Sequence[MemoryFile], topic_names: set[str]
) -> list[MemoryFile]:
    """The surviving topic files that neither the index nor the archive has an entry for."""
    indexed = {e.file for e in index.entries} | {
        e.file for e in (archive.entries if archive else ())
    }
    return [m for m in survivors if m.name in topic_names and m.name not in indexed]


def restructure(
    index_text: str | None,
    archive_text: str | None,
    survivors: Sequence[MemoryFile],
    *,
    folder_title: str,
    trashed: Collection[str] = (),
    foreign: Collection[str] = (),
) -> Restructured:
    """Apply the structural rules (seed 000 STEP 5) in order; no byte budget yet.

    ``foreign`` names files that are there but are no memory files (links): an
    entry pointing at one is left as it is, none is ever added.
    """
    names = [m.name for m in survivors if is_topic_file_name(m.name)]
    source_index = parse_index(index_text or "")
    source_archive = parse_index(archive_text) if archive_text is not None else None
    repaired = _repair(source_index, source_archive, [*names, *foreign], trashed)
    # Dropped lines can make a later heading the title: classify the rest afresh.
    index = parse_index(repaired.index.render())
    orphans = _orphans(index, repaired.archive, survivors, set(names))
    plain = is_plain_list(index)
    index = link_orphans(index, orphans)
    repairs = (repaired.case_fixed, repaired.dead_links_dropped, repaired.duplicates_collapsed)
    if plain and (orphans or any(repairs) or index.title is None):
        # Seed 004: a healthy list is not re-ordered for its own sake (churn, no value).
        index = sort_plain_list(index, folder_title)
    return Restructured(
        index=index,
        archive=repaired.archive,
        plain_list=plain,
        dead_links_dropped=repaired.dead_links_dropped,
        dead_mentions=repaired.dead_mentions,
        duplicates_collapsed=repaired.duplicates_collapsed,
        orphans_linked=tuple(sorted((m.name for m in orphans), key=name_key)),
        case_fixed=repaired.case_fixed,
        source_index=source_index,
        source_archive=source_archive,
    )


def rebuild(
    index_text: str | None,
    archive_text: str | None,
    survivors: Sequence[MemoryFile],
    *,
    folder_title: str,
    trashed: Collection[str] = (),
    budget: int,
    now: datetime,
    archive_moves: bool = True,
    foreign: Collection[str] = (),
) -> Rebuilt:
    """Rebuild ``MEMORY.md`` (and ``MEMORY-ARCHIVE.md``) from the surviving files.

    Seed 000 STEP 5 (the structural rules above) then STEP 5.5 (byte budget:
    hooks shortened, then archive moves by rule, exactly one trailer line,
    a warning when it still does not fit). ``survivors`` are every topic file
    left in the folder; ``trashed`` the names this run moved to the trash.
    ``archive_moves=False`` reports the moves instead of making them.
    """
    shaped = restructure(
        index_text,
        archive_text,
        survivors,
        folder_title=folder_title,
        trashed=trashed,
        foreign=foreign,
    )
    fitted = fit_budget(
        shaped.index,
        shaped.archive,
        {m.name: m for m in survivors},
        budget=budget,
        now=now,
        archive_moves=archive_moves,
    )
    new_index = fitted.index.render()
    new_archive = fitted.archive.render() if fitted.archive is not None else None
    invariant = check_invariant(new_index, new_archive, [m.name for m in survivors], foreign)
    report = _index_report(shaped, fitted, invariant, new_index, survivors, trashed, budget)
    return Rebuilt(new_index, new_archive, report)


def _index_report(
    shaped: Restructured,
    fitted: Fitted,
    invariant: InvariantReport,
    new_index: str,
    survivors: Sequence[MemoryFile],
    trashed: Collection[str],
    budget: int,
) -> IndexReport:
    """What the rules did (``shaped``), what the budget did (``fitted``), what holds now."""
    warnings = fitted.report.warnings + tuple(invariant.problems)
    return IndexReport(
        bytes=len(new_index.encode("utf-8", "surrogateescape")),
        budget=budget,
        entries=len(fitted.index.entries),
        archived=len(fitted.archive.entries) if fitted.archive is not None else 0,
        invariant_ok=invariant.ok,
        warnings=warnings,
        plain_list=shaped.plain_list,
        dead_links_dropped=shaped.dead_links_dropped,
        dead_mentions=shaped.dead_mentions,
        duplicates_collapsed=shaped.duplicates_collapsed,
        orphans_linked=shaped.orphans_linked,
        case_fixed=shaped.case_fixed,
        wikilinks_to_trashed=wikilinks_to_trashed(
            shaped.source_index if trashed else None,
            shaped.source_archive if trashed else None,
            survivors,
            trashed,
        ),
        budget_report=fitted.report,
        invariant=invariant,
    )
