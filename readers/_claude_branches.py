"""Claude Code rewinds: which records of a transcript lie on abandoned branches.

Every record of the main chain carries a ``uuid`` and the ``parentUuid`` of
the record it follows. A person who rewinds (double Esc, or editing an
earlier prompt) and types again starts a second child of an earlier record:
the old prompt and everything answered to it stay in the file, but are no
longer the conversation. Other forks are not rewinds: parallel tool calls
give one assistant record several tool-result children, and progress,
hook and attachment records hang beside the chain.

The rules, one function each:

- **The leaf** (``latest_leaf``) is the last ``user`` or ``assistant`` record
  of the main chain in file order: Claude Code appends, so what it wrote
  last is on the branch the person is on. Progress, system and attachment
  records after it do not count (they may belong to a tool still running).
- **The spine** (``spine``) is the walk from the leaf back towards the first
  record: through every record kind (progress, system, attachment), across
  a compaction boundary by its ``logicalParentUuid`` (its ``parentUuid`` is
  null), and where the chain breaks (a parent missing from the file, a
  second root such as a resumed session's, a loop), on from the record
  written just before, so that the whole file is walked and no message is
  lost to a broken link (file order decides there).
- **A rewind** (``rewound_children``) is a spine record, reached from its
  child by a real parent link, with two or more children whose branches
  start with a typed user prompt: every such child but the one the spine
  came through was abandoned. A branch starts with its first user or
  assistant record, looked for through progress, system and attachment
  records (``branch_start``): the old prompt may hang below a turn's system
  record while the new one hangs from the reply itself. Forks whose branches
  start with tool results or replies are never pruned, and neither is a
  fork the spine reached by a jump (the live child is then unknown).
- **What is dropped** (``abandoned_branches``) is each abandoned child with
  every record below it, never a spine record.

Most transcripts cannot hold a rewind, and are told so from lists of their
records' uuids and parents, without the graph (``_may_have_rewind``): no
record with two children, or none with two that could start a prompt's
branch (a user record, or a record of another kind that has children).

Pure: records in, a set of uuids out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import msgspec

__all__ = [
    "Graph",
    "Linked",
    "abandoned_branches",
    "branch_start",
    "latest_leaf",
    "rewound_children",
    "spine",
]

_CONVERSATION = frozenset({"user", "assistant"})

#: What tells a typed prompt: true of a ``user`` record holding what a person typed.
IsPrompt = Callable[["Linked"], bool]


class Linked(Protocol):
    """The fields of a transcript record the branch rules read."""

    @property
    def type(self) -> Any: ...
    @property
    def uuid(self) -> Any: ...
    @property
    def parent_uuid(self) -> Any: ...
    @property
    def logical_parent_uuid(self) -> Any: ...
    @property
    def is_sidechain(self) -> Any: ...


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _is_conversation(record: Linked) -> bool:
    """A user or assistant record (a damaged ``type`` of any other shape is not)."""
    kind = record.type
    return isinstance(kind, str) and kind in _CONVERSATION


class Graph(msgspec.Struct):
    """The main chain's records by uuid, in file order, with their links."""

    records: dict[str, Linked] = msgspec.field(default_factory=dict)
    order: list[str] = msgspec.field(default_factory=list)
    position: dict[str, int] = msgspec.field(default_factory=dict)
    children: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def parent(self, uuid: str) -> str | None:
        """``parentUuid``; for a compaction boundary (null parent) its ``logicalParentUuid``."""
        record = self.records[uuid]
        return _text(record.parent_uuid) or _text(record.logical_parent_uuid)


def _graph(records: Iterable[Linked]) -> Graph:
    """The main chain (no sidechain records), each uuid once (its first record).

    Runs over every record of every transcript a scan reads, so it is built
    from comprehensions. A child is filed under its parent before the parent
    is known to be in the file; parents that never came are left out at the
    end. ``position`` is filled only when a walk needs it.
    """
    main, order, parents = _main_chain(records)
    return _linked_graph(main, order, parents)


def _main_chain(records: Iterable[Linked]) -> tuple[list[Linked], list[str], list[str | None]]:
    """The main chain's records (each uuid's first), their uuids and their parents'.

    A record's parent is its ``parentUuid``, or for a compaction boundary (a
    null parent) its ``logicalParentUuid``; None when it has neither.
    """
    main = [  # ``__class__ is str``: decoded JSON holds no subclass of ``str``
        record
        for record in records
        if record.uuid.__class__ is str and record.uuid and record.is_sidechain is not True
    ]
    order: list[str] = [record.uuid for record in main]
    if len(set(order)) != len(order):  # a record written twice: its first one counts
        first: dict[str, Linked] = {}
        for uuid, record in zip(order, main, strict=True):
            first.setdefault(uuid, record)
        main, order = list(first.values()), list(first)
    parents = [
        parent if (parent := record.parent_uuid).__class__ is str and parent
        else _text(record.logical_parent_uuid)
        for record in main
    ]  # fmt: skip
    return main, order, parents


def _linked_graph(main: list[Linked], order: list[str], parents: list[str | None]) -> Graph:
    """The ``Graph`` of a main chain (see ``_main_chain``)."""
    graph = Graph(dict(zip(order, main, strict=True)), order)
    children = graph.children
    for uuid, parent in zip(order, parents, strict=True):
        if parent is not None:
            siblings = children.get(parent)
            if siblings is None:
                children[parent] = [uuid]
            else:
                siblings.append(uuid)
    by_uuid = graph.records
    for parent in [parent for parent in children if parent not in by_uuid]:
        del children[parent]
    return graph


def latest_leaf(graph: Graph) -> str | None:
    """The last user or assistant record of the main chain in file order."""
    for uuid in reversed(graph.order):
        if _is_conversation(graph.records[uuid]):
            return uuid
    return None


def spine(graph: Graph, leaf: str) -> dict[str, str | None]:
    """Each record walked from ``leaf``, mapped to the child the walk came from by a
    parent link (None for the leaf and where the walk jumped over a broken link)."""
    walked: dict[str, str | None] = {}
    current: str | None = leaf
    came_from: str | None = None
    while current is not None:
        walked[current] = came_from
        parent = graph.parent(current)
        if parent is not None and parent in graph.records and parent not in walked:
            came_from, current = current, parent
        else:
            came_from, current = None, _written_before(graph, current, walked)
    return walked


def _written_before(graph: Graph, uuid: str, walked: dict[str, str | None]) -> str | None:
    """The nearest record before ``uuid`` in file order that the walk has not met."""
    if not graph.position:
        graph.position.update({uuid: index for index, uuid in enumerate(graph.order)})
    index = graph.position[uuid] - 1
    while index >= 0 and graph.order[index] in walked:
        index -= 1
    return graph.order[index] if index >= 0 else None


def branch_start(graph: Graph, uuid: str) -> Linked | None:
    """The first user or assistant record of the branch that begins at ``uuid``,
    found through the progress, system and attachment records above it."""
    pending = [uuid]
    seen: set[str] = set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        record = graph.records[current]
        if _is_conversation(record):
            return record
        pending.extend(reversed(graph.children.get(current, ())))
    return None


def rewound_children(
    graph: Graph, walked: dict[str, str | None], is_prompt: Callable[[Linked], bool]
) -> list[str]:
    """Children abandoned by a rewind: at a spine record reached through a parent
    link, every child whose branch starts with a typed prompt but the spine's
    own, when two or more children's branches start with one."""
    abandoned: list[str] = []
    for uuid, live in walked.items():
        children = graph.children.get(uuid, ())
        if live is None or len(children) < 2:
            continue
        prompts = [c for c in children if _starts_with_prompt(graph, c, is_prompt)]
        if len(prompts) >= 2:
            abandoned.extend(child for child in prompts if child != live)
    return abandoned


def _starts_with_prompt(graph: Graph, uuid: str, is_prompt: Callable[[Linked], bool]) -> bool:
    start = branch_start(graph, uuid)
    return start is not None and is_prompt(start)


def _below(graph: Graph, roots: Sequence[str], keep: dict[str, str | None]) -> set[str]:
    """``roots`` and every record below them, except records in ``keep``."""
    found: set[str] = set()
    pending = [root for root in roots if root not in keep]
    while pending:
        uuid = pending.pop()
        if uuid in found:
            continue
        found.add(uuid)
        pending.extend(c for c in graph.children.get(uuid, ()) if c not in keep)
    return found


def _has_rewind_shape(graph: Graph, is_prompt: Callable[[Linked], bool]) -> bool:
    """Whether any record has two children whose branches start with a typed prompt.

    Without one nothing was rewound, wherever the spine runs: most transcripts,
    which are then spared the walk.
    """
    records, below = graph.records, graph.children
    for children in below.values():
        if len(children) < 2:
            continue
        users: list[Linked] = []
        for child in children:
            record = records[child]
            kind = record.type
            if kind == "user":  # a branch starting at the child itself: no walk needed
                users.append(record)
            elif kind != "assistant" and child in below:
                start = branch_start(graph, child)
                if start is not None and start.type == "user":
                    users.append(start)
        # A prompt is a user record: most forks (parallel tool results, progress beside
        # a result) have fewer than two, and the prompt rules are not run.
        if len(users) >= 2 and sum(1 for start in users if is_prompt(start)) >= 2:
            return True
    return False


def _may_have_rewind(
    main: list[Linked], order: list[str], parents: list[str | None], is_prompt: IsPrompt
) -> bool:
    """``_has_rewind_shape`` of the main chain's graph, built only when needed.

    A branch can start with a prompt only at a user record or below a record
    of another kind that has children (a reply's branch starts with the
    reply): without a parent of two such children nothing was rewound, and
    most transcripts, whose forks are a tool's progress records beside its
    result, are told so without a graph. So are those whose forks' children
    are replies, childless records and user records of which fewer than two
    are typed prompts.
    """
    known = set(parents)  # the records that have children
    known.discard(None)
    if len(known) == len(parents) - parents.count(None):  # no record has two children
        return False
    starts = [
        parent
        for parent, record in zip(parents, main, strict=True)
        if parent is not None
        and ((kind := record.type) == "user" or (kind != "assistant" and record.uuid in known))
    ]
    if len(set(starts)) == len(starts):
        return False
    uuids = set(order)
    seen: set[str] = set()  # each parent's first child
    forks: set[str] = set()
    for parent in parents:
        if parent is None:
            continue
        if parent not in seen:
            seen.add(parent)
        elif parent in uuids:
            forks.add(parent)
    below: dict[str, list[Linked]] = {}
    pairs = [(p, r) for p, r in zip(parents, main, strict=True) if p is not None and p in forks]
    for parent, record in pairs:
        siblings = below.get(parent)
        if siblings is None:
            below[parent] = [record]
        else:
            siblings.append(record)
    for children in below.values():
        users: list[Linked] = []
        for record in children:
            kind = record.type
            if kind == "user":
                users.append(record)
            elif kind != "assistant" and record.uuid in known:  # a branch to walk down
                return _has_rewind_shape(_linked_graph(main, order, parents), is_prompt)
        if len(users) >= 2 and sum(1 for start in users if is_prompt(start)) >= 2:
            return True
    return False


def abandoned_branches(records: Iterable[Linked], is_prompt: IsPrompt) -> set[str]:
    """The uuids of every record on a branch the person rewound and replaced.

    ``is_prompt`` is true of a typed prompt, which is always a ``user`` record.
    The graph is built only for a transcript that may hold a rewind.
    """
    main, order, parents = _main_chain(records)
    if not _may_have_rewind(main, order, parents, is_prompt):
        return set()
    graph = _linked_graph(main, order, parents)
    leaf = latest_leaf(graph)
    if leaf is None:
        return set()
    walked = spine(graph, leaf)
    return _below(graph, rewound_children(graph, walked, is_prompt), walked)
