"""Aider reader: finds ``.aider.chat.history.md`` files and reads their chats.

Where: Aider appends every chat to ``.aider.chat.history.md`` in the git root it
runs in (the working directory outside git); ``--chat-history-file`` or
``AIDER_CHAT_HISTORY_FILE`` put it elsewhere. There is no central store, so the
default roots are HOME, walked ``HOME_DEPTH`` levels deep with hidden and
generated folders pruned, plus the file named by ``AIDER_CHAT_HISTORY_FILE``;
``history_files_in`` finds the files of project folders learned from other
tools. A root may be a folder or a history file.

Under launchd on macOS the walk never enters ``~/Desktop``, ``~/Documents``
or ``~/Downloads`` unless the user configured them as roots: macOS asks the
user before a background process reads them (``privacy_fence``, a pure
function of platform, launchd and the configured roots; the reader a
configuration gets is ``configured_reader``).

The log format is parsed by ``dreamd.readers._aider_history`` (chats,
records, conversations), ``_aider_input`` (commands and input that is not a
prompt) and ``_aider_replies`` (edit blocks, reply cleaning); the names this
module has always exported (``find_chats``, ``split_records``, ...) are
re-exported from there.

A chat's id comes from what the file itself says, never from where the home
or the checkout is: its path relative to the project root (the nearest
folder with ``.git`` above it, else its own folder) and the chat's start
stamp (``session_id``). The id older readers derived from the file's
absolute path is kept as an alias (``legacy_session_id``), for look-ups.

Invariants: discovery yields one ``SessionRef`` per chat (or an
``Unresolved`` saying why a file has none), its ``FileVersion.marker`` the
chat's offset and length, fixed once a later chat closes it. A FIFO or device
under the history name is refused without being opened. Transcripts are only
read, never written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import msgspec

from ._aider_history import (
    Chat,
    Record,
    chat_id,
    chat_messages,
    chat_started_at,
    find_chats,
    launched_by_program,
    legacy_session_id,
    split_records,
)
from ._aider_input import command_prompt, is_confirm_answer
from ._aider_replies import clean_reply
from ._common import load_bytes, unresolved
from ._io import SourceChanged, describe_os_error, read_bytes, walk_files
from ._model import Conversation, FileVersion, SessionRef, Unresolved

__all__ = [
    "HISTORY_ENV",
    "HISTORY_NAME",
    "PRIVACY_FOLDERS",
    "READER",
    "AiderReader",
    "Chat",
    "PrivacyFence",
    "Record",
    "chat_started_at",
    "clean_reply",
    "command_prompt",
    "configured_reader",
    "find_chats",
    "history_files_in",
    "is_confirm_answer",
    "launched_by_program",
    "legacy_session_id",
    "privacy_fence",
    "project_relative_path",
    "session_id",
    "split_records",
]

TOOL = "aider"
HISTORY_NAME = ".aider.chat.history.md"
HISTORY_ENV = "AIDER_CHAT_HISTORY_FILE"
#: How deep the HOME walk goes (1 = HOME's own files): ``~/src/<repo>/`` is 3.
HOME_DEPTH = 4
#: How far ``history_files_in`` climbs from a folder to find its git root.
_GIT_ROOT_LEVELS = 8

#: Folders never worth entering when looking for repositories under HOME.
_PRUNED_NAMES = (
    "node_modules bower_components venv virtualenv __pycache__ site-packages build dist"
    " target vendor Pods DerivedData Library Applications snap Music Movies Pictures Videos"
)
_PRUNED = frozenset(_PRUNED_NAMES.split())
#: Folders of HOME that macOS guards with a privacy prompt when a background process reads them.
PRIVACY_FOLDERS = ("Desktop", "Documents", "Downloads")


class PrivacyFence(msgspec.Struct, frozen=True):
    """Folders the walk never enters, and the configured roots that are let in all the same."""

    skipped: frozenset[Path] = frozenset()
    configured: tuple[Path, ...] = ()

    def keeps_out(self, path: Path) -> bool:
        """Whether ``path`` lies in a skipped folder, outside the roots configured inside it."""
        for folder in self.skipped:
            if _inside(path, folder):
                return not any(
                    _inside(path, root) and _inside(root, folder) for root in self.configured
                )
        return False


#: The fence of a process that may read everywhere.
NO_FENCE = PrivacyFence()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def privacy_fence(
    platform: str, under_launchd: bool, configured: Sequence[Path] | None, home: Path
) -> PrivacyFence:
    """What the Aider scan keeps out of: on macOS under launchd, ``PRIVACY_FOLDERS`` of
    ``home`` that are not themselves configured roots; elsewhere, nothing.

    ``configured``: the roots of ``[sources.aider]`` (``None``: the defaults). A
    configured folder inside a guarded one is walked as its own root, and project
    folders inside it are looked at; the rest of the guarded folder is not.
    """
    if platform != "darwin" or not under_launchd:
        return PrivacyFence()
    chosen = tuple(Path(root) for root in configured or ())
    guarded = (home / name for name in PRIVACY_FOLDERS)
    return PrivacyFence(frozenset(p for p in guarded if p not in chosen), chosen)


# --------------------------------------------------------------------------- discovery


def project_of(path: Path) -> str | None:
    """The folder of a default-named history file: the repository Aider ran in.

    A file named otherwise was placed by ``--chat-history-file`` or the env
    var, often in one shared place, so its folder says nothing about the project.
    """
    if path.name != HISTORY_NAME:
        return None
    return str(path.absolute().parent)


def _prune(name: str) -> bool:
    """Hidden folders, dependency trees, build output and media libraries."""
    return name.startswith(".") or name in _PRUNED or name.endswith((".app", ".photoslibrary"))


def _is_history_name(name: str) -> bool:
    return name == HISTORY_NAME


def _read_history(path: Path) -> tuple[bytes, FileVersion] | str:
    """The file's bytes and version, or why they cannot be read.

    A FIFO or device under the history name is refused before it is opened:
    opening a FIFO would block.
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "not a regular file"
    except OSError as error:
        return describe_os_error(error)
    for _attempt in range(2):
        try:
            return read_bytes(path)
        except SourceChanged:
            continue
        except OSError as error:
            return describe_os_error(error)
    return "changing while being read"


def _refs_in_file(path: Path) -> Iterator[SessionRef | Unresolved]:
    """One ``SessionRef`` per chat of a history file, or why there is none."""
    loaded = _read_history(path)
    if isinstance(loaded, str):
        yield Unresolved(TOOL, path, loaded)
        return
    data, version = loaded
    if not data or data.isspace():
        yield Unresolved(TOOL, path, "empty file", file_version=version)
        return
    chats = find_chats(data)
    if not chats:
        yield Unresolved(TOOL, path, "no '# aider chat started at' header", file_version=version)
        return
    where = project_relative_path(path)
    for chat in chats:
        yield SessionRef(
            TOOL,
            chat_id(where, chat.stamp, chat.ordinal),
            str(path),
            version.with_marker(chat.marker),
            locator=str(chat.offset),
            updated_at=chat_started_at(chat.stamp) if chat.closed else None,
            aliases=(legacy_session_id(path, chat.stamp, chat.ordinal),),
        )


def project_relative_path(path: Path) -> str:
    """The history file's path relative to its project root, with ``/`` separators.

    The root is the nearest folder at or above the file's own that holds
    ``.git`` (Aider writes into the git root); without one it is the file's
    folder, and the path is the file's name. Links are resolved first, so a
    linked checkout gives the same path.
    """
    real = Path(os.path.realpath(path))
    root = _git_root(real.parent)
    if root is None:
        return real.name
    return real.relative_to(root).as_posix()


def session_id(path: Path, stamp: str, ordinal: int) -> str:
    """``<YYYYMMDDTHHMMSS>-<hash>`` of one chat of the history file at ``path``: the
    hash covers its project-relative path, the header and the same-time count."""
    return chat_id(project_relative_path(path), stamp, ordinal)


def _git_root(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding ``.git``."""
    root = _git_root_of(os.fspath(folder), {})
    return None if root is None else Path(root)


def _git_root_of(folder: str, known: dict[str, bool]) -> str | None:
    """``_git_root`` over path strings; ``known`` remembers the folders already asked, for
    callers that ask about many folders with common parents."""
    candidate = folder
    for _level in range(_GIT_ROOT_LEVELS + 1):
        held = known.get(candidate)
        if held is None:
            held = known[candidate] = _exists(_child(candidate, ".git"))
        if held:
            return candidate
        parent = candidate.rpartition(os.sep)[0] or os.sep
        if parent == candidate:
            return None
        candidate = parent
    return None


def _child(folder: str, name: str) -> str:
    return folder.rstrip(os.sep) + os.sep + name


def _exists(path: str) -> bool:
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def _is_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def history_files_in(project_dirs: Iterable[Path | str]) -> list[Path]:
    """Aider history files of project folders learned from other tools.

    Aider writes into the git root, so each folder and its git root are
    checked. The paths returned are roots that ``READER.discover`` accepts.
    Projects share parent folders: each folder is asked for ``.git`` once.
    Every scan asks this of every project, so the work is done on strings.
    """
    found: list[Path] = []
    seen: set[str] = set()
    has_git: dict[str, bool] = {}
    for project in project_dirs:
        name = os.fspath(project)
        folder = os.path.normpath(name) if name.startswith(os.sep) else str(Path(name).absolute())
        for candidate in (folder, _git_root_of(folder, has_git)):
            if candidate is None:
                continue
            path = _child(candidate, HISTORY_NAME)
            if path not in seen and _is_file(path):
                found.append(Path(path))
            seen.add(path)
    return found


def _env_history_file(env: Mapping[str, str], home: Path) -> Path | None:
    """The absolute path in ``AIDER_CHAT_HISTORY_FILE`` (``~`` is ``home``).

    A relative value names a file inside each project Aider runs in, which no
    single root can cover; it is ignored.
    """
    value = env.get(HISTORY_ENV, "").strip()
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    path = Path(value)
    return path if value and path.is_absolute() else None


# --------------------------------------------------------------------------- reader


def configured_reader(
    platform: str, under_launchd: bool, configured: Sequence[Path] | None, home: Path
) -> AiderReader:
    """The reader for one configuration and process (see ``privacy_fence``)."""
    fence = privacy_fence(platform, under_launchd, configured, home)
    return READER if fence == NO_FENCE else AiderReader(fence)


class AiderReader:
    """Reads Aider chats out of ``.aider.chat.history.md`` files, outside ``fence``."""

    tool = TOOL

    def __init__(self, fence: PrivacyFence = NO_FENCE) -> None:
        self.fence = fence

    def default_roots(self, env: Mapping[str, str], home: Path) -> tuple[Path, ...]:
        """HOME (walked ``HOME_DEPTH`` deep) and the file ``AIDER_CHAT_HISTORY_FILE`` names."""
        named = _env_history_file(env, home)
        return (home,) if named is None else (home, named)

    def discover(self, root: Path) -> Iterator[SessionRef | Unresolved]:
        """Every chat in history files under ``root``, or in ``root`` if it is a file."""
        try:
            mode = os.stat(root).st_mode
        except FileNotFoundError:
            return
        except OSError as error:
            yield Unresolved(TOOL, root, describe_os_error(error))
            return
        if not stat.S_ISDIR(mode):
            yield from _refs_in_file(root)
            return
        skip = self.fence.skipped
        walked = walk_files(root, _is_history_name, max_depth=HOME_DEPTH, prune=_prune, skip=skip)
        for found in walked:
            if found.version is None:
                yield Unresolved(TOOL, found.path, found.error or "cannot stat")
            else:
                yield from _refs_in_file(found.path)

    def project_roots(self, projects: Iterable[str]) -> tuple[Path, ...]:
        """History files in project folders other tools reported (and their git roots)."""
        if self.fence.skipped:
            projects = [p for p in projects if not self.fence.keeps_out(Path(p))]
        return tuple(history_files_in(projects))

    def read(self, ref: SessionRef) -> Conversation | Unresolved:
        """The cleaned conversation of one chat."""
        data = load_bytes(ref)
        if isinstance(data, Unresolved):
            return data
        chat = _find_chat(data, ref)
        if chat is None:
            return unresolved(ref, "chat no longer in the history file")
        records = split_records(data[chat.offset : chat.end].decode("utf-8", "replace"))
        messages = chat_messages(records, chat_started_at(chat.stamp))
        return Conversation(
            ref, project_of(ref.path), tuple(messages), automated=launched_by_program(records)
        )


def _find_chat(data: bytes, ref: SessionRef) -> Chat | None:
    """The chat whose id is ``ref``'s (the file may have grown since discovery)."""
    where = project_relative_path(ref.path)
    for chat in find_chats(data):
        if chat_id(where, chat.stamp, chat.ordinal) == ref.session_id:
            return chat
    return None


READER = AiderReader()
