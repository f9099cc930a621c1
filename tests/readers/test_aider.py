"""Aider reader: chats, cleaning, ids, discovery, robustness, and the real histories."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dreamd.readers import Conversation, SessionRef, Unresolved
from dreamd.readers.aider import (
    HISTORY_NAME,
    READER,
    find_chats,
    history_files_in,
    legacy_session_id,
)

from .layout_aider import lay_out

# ------------------------------------------------------------------ history builder


class History:
    """Writes an Aider chat log the way Aider appends to it (``aider/io.py``)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def start(self, when: str = "2025-03-01 10:00:00") -> History:
        """A chat header: a blank line, the header, a blank line."""
        self.parts.append(f"\n# aider chat started at {when}\n\n")
        return self

    def typed(self, text: str) -> History:
        """Typed input: a blank line, then ``#### `` on every line, two spaces at each end."""
        lines = text.splitlines() or ["<blank>"]
        self.parts.append(("\n#### " + "  \n#### ".join(lines)).rstrip() + "  \n")
        return self

    def notice(self, text: str) -> History:
        """A notice; a multi-line one gets ``> `` on its first line only."""
        self.parts.append(("> " + text.strip()).rstrip() + "  \n")
        return self

    def notices(self, *lines: str) -> History:
        """Single-line notices, one per argument."""
        for line in lines:
            self.notice(line)
        return self

    def confirm(self, question: str, answer: str) -> History:
        """A confirm question and its one-letter answer, logged as a notice."""
        return self.notice(f"{question} {answer}")

    def reply(self, text: str) -> History:
        """An assistant reply: set off by a blank line before and after."""
        self.parts.append("\n" + text.strip() + "\n\n")
        return self

    def text(self) -> str:
        return "".join(self.parts)

    def write(self, path: Path, newline: str = "\n") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.text().replace("\n", newline).encode("utf-8"))
        return path


BANNER = (
    "/home/dev/.local/bin/aider --model gpt-4o",
    "Aider v0.86.1",
    "Main model: gpt-4o with diff edit format",
    "Git repo: .git with 42 files",
    "Repo-map: using 4096 tokens, auto refresh",
)
ADD_FILE = "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:"


def banner(history: History) -> History:
    """The startup notices Aider logs after the header."""
    return history.notices(*BANNER)


def repo_file(home: Path, name: str = "shop") -> Path:
    """Where Aider keeps the history of ``~/src/<name>``."""
    return Path(home, "src", name, HISTORY_NAME)


def refs_of(root: Path) -> list[SessionRef]:
    found = list(READER.discover(root))
    assert all(isinstance(item, SessionRef) for item in found), found
    return [item for item in found if isinstance(item, SessionRef)]


def read(ref: SessionRef) -> Conversation:
    result = READER.read(ref)
    assert isinstance(result, Conversation), result
    return result


def read_only_chat(path: Path) -> Conversation:
    (ref,) = refs_of(path)
    return read(ref)


def texts(conversation: Conversation, role: str | None = None) -> list[str]:
    return [m.text for m in conversation.messages if role is None or m.role == role]


def all_text(conversation: Conversation) -> str:
    return "\n".join(texts(conversation))


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run with the machine's local zone set to Europe/Berlin."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


# ------------------------------------------------------------------ chats and ids


def test_each_header_is_a_chat_even_when_the_file_starts_blank(isolated_home: Path) -> None:
    """One ref per ``# aider chat started at`` header; equal header times still get distinct ids."""
    h = History().start("2025-03-01 10:00:00").typed("one")
    h.start("2025-03-01 10:00:00").typed("two").start("2025-03-02 08:00:00").typed("three")
    path = h.write(repo_file(isolated_home))
    assert path.read_bytes().startswith(b"\n# aider chat started at")
    refs = refs_of(path)
    assert len(refs) == 3
    assert len({ref.session_id for ref in refs}) == 3
    assert refs[0].session_id.startswith("20250301T100000-")
    assert [texts(read(ref)) for ref in refs] == [["one"], ["two"], ["three"]]


def test_ids_and_markers_are_stable_across_rereads(isolated_home: Path) -> None:
    """Discovering twice gives the same ids, locators and markers."""
    path = (
        History()
        .start()
        .typed("a")
        .start("2025-03-02 09:00:00")
        .typed("b")
        .write(repo_file(isolated_home))
    )
    first = [(r.session_id, r.locator, r.file_version.marker) for r in refs_of(path)]
    second = [(r.session_id, r.locator, r.file_version.marker) for r in refs_of(path)]
    assert first == second


def test_header_time_is_local_time_turned_into_utc(isolated_home: Path, berlin: None) -> None:
    """The zone-less header time is read in the machine's zone and stored in UTC."""
    h = History().start("2025-01-15 09:30:00").typed("hello").reply("hi")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    expected = datetime(2025, 1, 15, 8, 30, tzinfo=UTC)
    assert [m.timestamp for m in conversation.messages] == [expected, expected]
    assert conversation.first_message_at == expected


def test_closed_chats_carry_their_start_and_the_open_one_the_file_time(
    isolated_home: Path, berlin: None
) -> None:
    """A chat followed by another reports its start as activity; the last one the mtime."""
    path = History().start("2025-01-15 09:30:00").typed("a").start("2025-01-16 09:30:00")
    closed, last = refs_of(path.write(repo_file(isolated_home)))
    assert closed.updated_at == datetime(2025, 1, 15, 8, 30, tzinfo=UTC)
    assert last.updated_at is None


def test_appending_keeps_earlier_chats_and_messages_as_they_were(isolated_home: Path) -> None:
    """After appends, earlier chats keep id, marker and revision; the open chat keeps its ids."""
    h = banner(History().start("2025-03-01 10:00:00")).typed("first question").reply("answer one")
    h.notice("Tokens: 1k sent, 20 received.")
    h.start("2025-03-01 11:00:00").typed("second question").reply("answer two")
    path = h.write(repo_file(isolated_home))
    before = {ref.session_id: (ref, read(ref)) for ref in refs_of(path)}

    h.typed("follow up").reply("answer three").start("2025-03-01 12:00:00").typed("third chat")
    h.write(path)
    after = {ref.session_id: (ref, read(ref)) for ref in refs_of(path)}

    assert set(before) < set(after)
    (first_id, second_id) = list(before)
    assert after[first_id][0].file_version.marker == before[first_id][0].file_version.marker
    assert after[first_id][1].revision == before[first_id][1].revision
    grown = after[second_id][1].messages
    assert grown[: len(before[second_id][1].messages)] == before[second_id][1].messages
    assert texts(after[second_id][1])[-2:] == ["follow up", "answer three"]


# ------------------------------------------------------------------ what a chat holds


def test_prompts_and_replies_form_the_conversation(isolated_home: Path) -> None:
    """Multi-line input is one prompt without its prefixes and trailing spaces; replies follow."""
    h = banner(History().start()).typed("Please add a cart.\n\nIt should  \n  hold items.")
    h.reply("Sure, here is the plan.\n\n1. Model\n2. View").notice("Tokens: 2k sent, 80 received.")
    path = h.write(repo_file(isolated_home))
    conversation = read_only_chat(path)
    assert [(m.role, m.text) for m in conversation.messages] == [
        ("user", "Please add a cart.\n\nIt should\n  hold items."),
        ("assistant", "Sure, here is the plan.\n\n1. Model\n2. View"),
    ]
    assert conversation.project == str(path.parent)
    assert not conversation.automated
    assert [m.id for m in conversation.messages] == ["line-9", "line-14"]


def test_notices_and_interrupts_are_dropped(isolated_home: Path) -> None:
    """Banners, token counts, applied edits, multi-line commit and error notices never show."""
    h = banner(History().start()).typed("fix the bug")
    h.notices("Repo-map can't include /x/lib", "Has it been deleted from the file system?")
    h.notice("litellm.InternalServerError: OpenAIException - Connection error.")
    h.notices("Retrying in 0.2 seconds...", "", "", "^C again to exit")
    h.reply("The bug is in `cart.py`.").notices("Tokens: 1k sent, 9 received.")
    h.notice("Applied edit to cart.py")
    h.notice("Commit 1a2b3c4 fix: handle empty cart\n\nLonger body line of the message\n")
    h.notice("The LLM did not conform to the edit format.")
    h.notice(
        "# 1 SEARCH/REPLACE block failed to match!\n\n"
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.py\n"
        "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n\n"
        "The SEARCH section must exactly match an existing block of lines"
    )
    h.notices("", "", "^C KeyboardInterrupt")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation) == ["fix the bug", "The bug is in `cart.py`."]


def test_confirm_answers_logged_as_input_are_not_prompts(isolated_home: Path) -> None:
    """``Add file to the chat? ... [Yes]: skip`` typed back as input is not a prompt."""
    h = History().start().typed("what files are there?").reply("a.py and b.py")
    h.notice("a.py").confirm(ADD_FILE, "s").notice("b.py")
    h.typed(f"{ADD_FILE} skip").confirm(ADD_FILE, "s").typed("thanks, now rename b")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation, "user") == ["what files are there?", "thanks, now rename b"]


def test_commands_are_dropped_and_prompt_commands_keep_their_prompt_once(
    isolated_home: Path,
) -> None:
    """Slash and ``!`` commands vanish; ``/copy-context``, ``/ask``, ``/code``, ``/architect``,
    ``/help``, ``/ok`` keep their prompt, and Aider's logged copy of it is not repeated."""
    h = History().start().typed("/add src/*.py").notice("Added src/a.py to the chat")
    h.typed("/copy-context explain the cart").notice("Copied code context to clipboard.")
    h.typed("/a  ambiguous").notice("Ambiguous command: /add, /architect, /ask")
    h.typed("/cha architect").typed("!ls -l").typed("/code")
    h.typed("/ask why is the cart slow?").typed("why is the cart slow?").reply("Because of N+1.")
    h.typed("/cod  batch the queries").typed("batch the queries").reply("Done.")
    h.typed("/help how do I undo?").typed("# Question: how do I undo?\n\n# Relevant docs:\n\n<doc>")
    h.reply("Use /undo.").typed("/ok").typed("Ok, please go ahead and make those changes.")
    h.reply("Changed.").typed("/exit")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation) == [
        "explain the cart",
        "why is the cart slow?",
        "Because of N+1.",
        "batch the queries",
        "Done.",
        "how do I undo?",
        "Use /undo.",
        "Ok, please go ahead and make those changes.",
        "Changed.",
    ]


def test_copy_context_keeps_the_question_as_the_users_message(isolated_home: Path) -> None:
    """``/copy-context <question>`` carries the person's question: it is their message."""
    h = History().start().typed("/copy-context why does gemini count images as 256 tokens?")
    h.notice("Copied code context to clipboard.")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation) == ["why does gemini count images as 256 tokens?"]


def test_copy_context_is_not_logged_again_so_a_repeat_is_kept(isolated_home: Path) -> None:
    """Aider sends nothing for ``/copy-context``: the same question typed next is a prompt."""
    h = History().start().typed("/copy-context explain the cart").notice("Copied.")
    h.typed("explain the cart").reply("The cart sums line items.")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation, "user") == ["explain the cart", "explain the cart"]


def test_copy_context_without_a_question_is_no_message(isolated_home: Path) -> None:
    """A bare ``/copy-context`` carries nothing."""
    h = History().start().typed("/copy-context").notice("Copied code context to clipboard.")
    assert read_only_chat(h.write(repo_file(isolated_home))).messages == ()


def test_chat_ids_do_not_change_when_the_home_moves(tmp_path: Path) -> None:
    """The same history under two homes gives the same ids (no absolute path in them)."""
    ids = []
    for home in (tmp_path / "old-home", tmp_path / "moved" / "home"):
        path = home / "src" / "shop" / HISTORY_NAME
        path.parent.mkdir(parents=True)
        (path.parent / ".git").mkdir()
        History().start().typed("hello there").reply("Hi.").write(path)
        ids.append([ref.session_id for ref in refs_of(path)])
    assert ids[0] == ids[1] and ids[0]


def test_chat_ids_depend_on_the_path_within_the_project(tmp_path: Path) -> None:
    """A history file in a subfolder of the repository is another file: other ids."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    top, sub = repo / HISTORY_NAME, repo / "docs" / HISTORY_NAME
    sub.parent.mkdir()
    for path in (top, sub):
        History().start().typed("hello there").write(path)
    assert refs_of(top)[0].session_id != refs_of(sub)[0].session_id


def test_the_id_an_older_reader_gave_is_an_alias(isolated_home: Path) -> None:
    """The absolute-path id of before is kept as an alias for look-ups."""
    path = History().start().typed("hello there").write(repo_file(isolated_home))
    (ref,) = refs_of(path)
    stamp = find_chats(path.read_bytes())[0].stamp
    assert ref.aliases == (legacy_session_id(path, stamp, 0),)
    assert ref.session_id != ref.aliases[0]


def test_a_chat_of_commands_only_reads_as_an_empty_conversation(isolated_home: Path) -> None:
    """A chat with only commands and notices is read, and holds no message."""
    h = banner(History().start()).typed("/add **").notices("", "", "^C KeyboardInterrupt")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert conversation.messages == ()


def test_edit_blocks_are_removed_from_replies(isolated_home: Path) -> None:
    """SEARCH/REPLACE blocks in any fence order, whole-file, diff and patch edits go; prose
    and ordinary code examples stay."""
    reply = "\n".join(
        [
            "First the model.",
            "",
            "cart.py",
            "```python",
            "<<<<<<< SEARCH",
            "old = 1",
            "=======",
            "new = 2",
            ">>>>>>> REPLACE",
            "```",
            "",
            "```python",
            "shop/view.py",
            "<<<<<<< SEARCH",
            "=======",
            "def view(): ...",
            ">>>>>>> REPLACE",
            "```",
            "",
            "```solidity",
            "sc/Token.sol",
            "```python",
            "<<<<<<< SEARCH",
            "a",
            "=======",
            "b",
            ">>>>>>> REPLACE",
            "```",
            "",
            "shop/full.py",
            "```",
            "WHOLE_FILE = True",
            "```",
            "",
            "```",
            "shop/fenced_name.py",
            "```",
            "FENCED_NAME_CONTENT = 1",
            "```",
            "",
            "```diff",
            "--- a/x.py",
            "+++ b/x.py",
            "@@ -1 +1 @@",
            "-UDIFF_OLD",
            "+UDIFF_NEW",
            "```",
            "",
            "*** Begin Patch",
            "*** Update File: y.py",
            "PATCH_BODY",
            "*** End Patch",
            "",
            "For example:",
            "```python",
            "print('example')",
            "```",
            "That is all.",
        ]
    )
    h = History().start().typed("make the changes").reply(reply).notice("Applied edit to cart.py")
    (text,) = texts(read_only_chat(h.write(repo_file(isolated_home))), "assistant")
    assert (
        text == "First the model.\n\nFor example:\n```python\nprint('example')\n```\nThat is all."
    )


def test_reasoning_blocks_are_removed_from_replies(isolated_home: Path) -> None:
    """``<thinking-content-<hex>>`` and ``<think>`` reasoning never reaches the reply text."""
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    h = History().start().typed("hi")
    h.reply(f"<{tag}>\n\nSECRET PLAN one\n\n</{tag}>\n\nHello there.")
    h.typed("again").reply("<think>SECRET PLAN two</think>General Kenobi.")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation, "assistant") == ["Hello there.", "General Kenobi."]


def test_architect_reply_handed_to_the_editor_is_not_a_prompt(isolated_home: Path) -> None:
    """In architect mode the reply Aider passes to the editor (logged as input) is dropped."""
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    plan = "# Plan\n\n1. Rename `a` to `b`.  \n2. Update the tests."
    h = History().start().typed("/architect").typed("rename a to b")
    h.reply(f"<{tag}>thinking</{tag}>\n\n{plan}").notice("Tokens: 3k sent, 1k received.")
    h.confirm("Edit the files? (Y)es/(N)o [Yes]:", "y").typed(plan)
    h.reply("tests/test_a.py\n```\nWHOLE\n```").notice("Applied edit to tests/test_a.py")
    h.typed("thanks")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert [(m.role, m.text.splitlines()[0]) for m in conversation.messages] == [
        ("user", "rename a to b"),
        ("assistant", "# Plan"),
        ("user", "thanks"),
    ]


def test_reply_markdown_headings_and_quotes_stay_prose(isolated_home: Path) -> None:
    """``#### Heading`` and ``> quote`` lines inside a reply are the reply, not input or notices."""
    reply = "Overview:\n\n#### Step 1\nDo this.\n\n> Note: keep backups\nand then\n\nDone."
    h = History().start().typed("explain").reply(reply).notice("Tokens: 1k sent, 5 received.")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation) == ["explain", reply]


def test_pasted_terminal_output_in_input_is_kept(isolated_home: Path) -> None:
    """Terminal output pasted into the prompt is what the user typed: kept whole."""
    pasted = "why does this fail?\n```\n$ make\ncc -o app main.c\n> error: boom\n#### odd\n```"
    h = History().start().typed(pasted).reply("Missing header.")
    conversation = read_only_chat(h.write(repo_file(isolated_home)))
    assert texts(conversation, "user") == [pasted]


def test_message_flag_launch_is_automated(isolated_home: Path) -> None:
    """A command line with ``--message``/``-m`` marks the chat as started by a program."""
    scripted = History().start().notice("/usr/bin/aider --yes-always -m 'add tests'")
    scripted.typed("add tests").reply("Added.")
    interactive = History().start().notice("/usr/bin/aider --message-prefix=x --model gpt-4o")
    interactive.typed("add tests").reply("Added.")
    assert read_only_chat(scripted.write(repo_file(isolated_home, "a"))).automated
    assert not read_only_chat(interactive.write(repo_file(isolated_home, "b"))).automated


def test_a_custom_named_history_has_no_project(isolated_home: Path) -> None:
    """A file placed by ``--chat-history-file`` says nothing about the repository."""
    path = History().start().typed("hello").write(isolated_home / "notes" / "aider-log.md")
    assert read_only_chat(path).project is None


def test_crlf_history_reads_like_lf(isolated_home: Path) -> None:
    """A history written with Windows line endings gives the same messages."""
    h = banner(History().start()).typed("line one\nline two").reply("ok").notice("Tokens: 1k")
    lf = read_only_chat(h.write(repo_file(isolated_home, "lf")))
    crlf = read_only_chat(h.write(repo_file(isolated_home, "crlf"), newline="\r\n"))
    assert [(m.id, m.text) for m in crlf.messages] == [(m.id, m.text) for m in lf.messages]


def test_history_without_trailing_spaces_still_reads(isolated_home: Path) -> None:
    """When an editor stripped Aider's trailing spaces, prompts, notices and replies still part."""
    h = banner(History().start()).typed("question").reply("answer").notice("Tokens: 1k")
    stripped = "\n".join(line.rstrip() for line in h.text().split("\n"))
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_text(stripped, encoding="utf-8")
    assert texts(read_only_chat(path)) == ["question", "answer"]


# ------------------------------------------------------------------ discovery


def test_default_roots_are_home_and_the_env_file(isolated_home: Path) -> None:
    """HOME is walked; an absolute ``AIDER_CHAT_HISTORY_FILE`` is a root, a relative one is not."""
    assert READER.default_roots({}, isolated_home) == (isolated_home,)
    env = {"AIDER_CHAT_HISTORY_FILE": "/srv/logs/aider.md"}
    assert READER.default_roots(env, isolated_home) == (isolated_home, Path("/srv/logs/aider.md"))
    env = {"AIDER_CHAT_HISTORY_FILE": "~/logs/aider.md"}
    assert READER.default_roots(env, isolated_home)[1] == isolated_home / "logs" / "aider.md"
    env = {"AIDER_CHAT_HISTORY_FILE": "chat.md"}
    assert READER.default_roots(env, isolated_home) == (isolated_home,)


def test_home_walk_finds_repositories_and_skips_hidden_and_deep_folders(
    isolated_home: Path,
) -> None:
    """Repos under HOME are found; hidden, dependency and too-deep folders are not entered."""
    chat = History().start().typed("hi")
    found = [
        chat.write(isolated_home / HISTORY_NAME),
        chat.write(repo_file(isolated_home)),
        chat.write(isolated_home / "work" / "client" / "api" / HISTORY_NAME),
    ]
    chat.write(isolated_home / ".cache" / "x" / HISTORY_NAME)
    chat.write(isolated_home / "src" / "node_modules" / "pkg" / HISTORY_NAME)
    chat.write(isolated_home / "a" / "b" / "c" / "d" / HISTORY_NAME)
    chat.write(isolated_home / "src" / "shop" / "notes.md")
    paths = sorted(
        ref.path for root in READER.default_roots({}, isolated_home) for ref in refs_of(root)
    )
    assert paths == sorted(found)


def test_a_history_file_is_a_root_of_its_own(isolated_home: Path) -> None:
    """The file named by the env var is read directly, whatever its name."""
    path = History().start().typed("hi").write(isolated_home / "logs" / "chat.md")
    env = {"AIDER_CHAT_HISTORY_FILE": str(path)}
    roots = READER.default_roots(env, isolated_home)
    assert [ref.path for ref in refs_of(roots[1])] == [path]
    assert list(READER.discover(isolated_home / "missing.md")) == []


def test_history_files_in_checks_project_folders_and_their_git_roots(
    isolated_home: Path,
) -> None:
    """Folders learned from other tools lead to the history in them or in their git root."""
    repo = isolated_home / "code" / "shop"
    (repo / ".git").mkdir(parents=True)
    (repo / "web" / "src").mkdir(parents=True)
    plain = isolated_home / "scratch"
    plain.mkdir()
    chat = History().start().typed("hi")
    chat.write(repo / HISTORY_NAME)
    chat.write(plain / HISTORY_NAME)
    dirs = [repo / "web" / "src", str(plain), repo, isolated_home / "nowhere"]
    assert history_files_in(dirs) == [repo / HISTORY_NAME, plain / HISTORY_NAME]
    assert [ref.path for ref in refs_of(history_files_in([repo])[0])] == [repo / HISTORY_NAME]


# ------------------------------------------------------------------ bad input


def test_unreadable_history_is_unresolved(isolated_home: Path) -> None:
    """A history that cannot be opened is reported with a reason, not skipped."""
    if os.geteuid() == 0:
        pytest.skip("root reads any file")
    path = History().start().typed("hi").write(repo_file(isolated_home))
    path.chmod(0)
    try:
        (item,) = READER.discover(isolated_home)
        assert isinstance(item, Unresolved) and "permission" in item.reason
    finally:
        path.chmod(0o600)


def test_symlink_loop_is_unresolved(isolated_home: Path) -> None:
    """A history name that is a symlink loop is reported as such."""
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.symlink_to(path)
    (item,) = READER.discover(isolated_home)
    assert isinstance(item, Unresolved) and item.reason == "symlink loop"


def test_fifo_under_the_history_name_is_unresolved_without_blocking(isolated_home: Path) -> None:
    """A FIFO named like a history is reported, never opened (opening it would block)."""
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    (item,) = READER.discover(isolated_home)
    assert isinstance(item, Unresolved) and item.reason == "not a regular file"


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty file"), (b"\n \n", "empty file"), (b"# notes\nhello\n", "no '# aider chat")],
)
def test_empty_or_headerless_history_is_unresolved(
    isolated_home: Path, content: bytes, reason: str
) -> None:
    """A history with no chat header is reported, never an empty conversation."""
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    (item,) = READER.discover(path)
    assert isinstance(item, Unresolved) and item.reason.startswith(reason)


def test_chat_gone_from_a_rewritten_file_is_unresolved(isolated_home: Path) -> None:
    """Reading a chat whose header no longer exists gives a reason, not another chat."""
    path = History().start("2025-03-01 10:00:00").typed("hi").write(repo_file(isolated_home))
    (ref,) = refs_of(path)
    path.write_text("\n# aider chat started at 2025-03-09 10:00:00\n\n", encoding="utf-8")
    result = READER.read(ref)
    assert isinstance(result, Unresolved)


def test_vanished_history_is_unresolved(isolated_home: Path) -> None:
    """A history deleted after discovery reads as unresolved."""
    path = History().start().typed("hi").write(repo_file(isolated_home))
    (ref,) = refs_of(path)
    path.unlink()
    assert isinstance(READER.read(ref), Unresolved)


_settings = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_settings
@given(st.binary(max_size=400), st.binary(max_size=400))
def test_any_bytes_give_a_conversation_or_unresolved(
    isolated_home: Path, head: bytes, tail: bytes
) -> None:
    """Random bytes, with or without a header among them, never raise."""
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(head + b"\n# aider chat started at 2025-01-01 00:00:00\n" + tail)
    for data in (head + tail, path.read_bytes()):
        path.write_bytes(data)
        for item in READER.discover(path):
            if isinstance(item, SessionRef):
                assert isinstance(READER.read(item), Conversation | Unresolved)


_PIECES = st.sampled_from(
    [
        ("typed", "fix it"),
        ("typed", "line a\nline b"),
        ("typed", "/add x.py"),
        ("typed", "/ask why?"),
        ("typed", "why?"),
        ("notice", "Tokens: 1k sent, 2 received."),
        ("notice", "Commit abc123 feat: x\n\nbody"),
        ("reply", "Sure.\n\n#### Heading\n> quote"),
        ("reply", "x.py\n```\nWHOLE\n```\nDone."),
        ("start", "2025-05-05 05:05:05"),
    ]
)


@_settings
@given(st.lists(_PIECES, max_size=12), st.lists(st.integers(min_value=0), max_size=6))
def test_reading_after_each_append_ends_at_the_same_conversation(
    isolated_home: Path, pieces: list[tuple[str, str]], cuts: list[int]
) -> None:
    """A history read while it grows, chunk by chunk, ends as if read once."""
    h = History().start("2025-05-05 05:00:00")
    for kind, text in pieces:
        getattr(h, kind)(text)
    data = h.text().encode("utf-8")
    path = repo_file(isolated_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    for cut in sorted(cut % (len(data) + 1) for cut in cuts):
        path.write_bytes(data[:cut])
        for item in READER.discover(path):
            if isinstance(item, SessionRef):
                READER.read(item)
    path.write_bytes(data)
    fresh = repo_file(isolated_home, "fresh")
    fresh.parent.mkdir(parents=True, exist_ok=True)
    fresh.write_bytes(data)
    grown = [read(ref).revision for ref in refs_of(path)]
    assert grown == [read(ref).revision for ref in refs_of(fresh)]


# ------------------------------------------------------------------ the real histories

_THINK = re.compile(r"<(thinking-content-[0-9a-f]+)>(.*?)</\1>", re.DOTALL)


def real_conversations(fixtures: Path) -> dict[str, list[Conversation]]:
    """Every chat of every shared Aider history, by file name."""
    result: dict[str, list[Conversation]] = {}
    for path in sorted((fixtures / "aider").glob("*.md")):
        result[path.name] = [read(ref) for ref in refs_of(path)]
    return result


def raw_inputs(raw: str) -> list[str]:
    """Every typed input of a raw history: runs of ``#### `` lines after a blank line."""
    inputs: list[list[str]] = []
    previous = ""
    for line in raw.split("\n"):
        if line.startswith("#### ") and line.endswith("  "):
            if previous.startswith("#### ") and inputs:
                inputs[-1].append(line[5:].rstrip())
            elif not previous.strip():
                inputs.append([line[5:].rstrip()])
        previous = line
    return ["\n".join(lines).strip() for lines in inputs]


def handed_to_editor(raw: str, text: str) -> bool:
    """True when the input's first line was written earlier as plain reply text."""
    first = text.splitlines()[0]
    position = raw.find("\n#### " + first)
    return ("\n" + first + "\n") in raw[:position]


@pytest.mark.fixtures
def test_real_histories_read_and_the_command_only_one_keeps_only_its_questions(
    shared_transcripts: Path,
) -> None:
    """All real chats read; the zen-mcp history (commands and notices) keeps exactly the
    questions its ``/copy-context`` lines carry, as the person's messages."""
    chats = real_conversations(shared_transcripts)
    assert {name: len(found) for name, found in chats.items()} == {
        "luvatrix.aider.chat.history.md": 1,
        "supplychain.aider.chat.history.md": 17,
        "zenmcp.aider.chat.history.md": 4,
    }
    raw = (shared_transcripts / "aider" / "zenmcp.aider.chat.history.md").read_text("utf-8")
    questions = [
        line.removeprefix("#### /copy-context ").rstrip()
        for line in raw.splitlines()
        if line.startswith("#### /copy-context ")
    ]
    zen = [m for c in chats["zenmcp.aider.chat.history.md"] for m in c.messages]
    assert [m.text for m in zen] == questions and {m.role for m in zen} == {"user"}
    assert sum(len(c.messages) for c in chats["supplychain.aider.chat.history.md"]) > 50


@pytest.mark.fixtures
def test_real_histories_keep_no_notice_edit_or_reasoning(shared_transcripts: Path) -> None:
    """No notice line, edit marker, reasoning text or confirm question survives in any message."""
    for name, chats in real_conversations(shared_transcripts).items():
        raw = (shared_transcripts / "aider" / name).read_text(encoding="utf-8")
        text = "\n".join(all_text(c) for c in chats)
        lines = set(text.splitlines())
        notices = {line[2:].strip() for line in raw.split("\n") if line.startswith("> ")}
        leaked = sorted(n for n in notices if len(n) > 25 and n in lines)
        assert leaked == [], f"{name}: {leaked[:3]}"
        outside = _THINK.sub("", raw)
        thoughts = [t.strip() for _, body in _THINK.findall(raw) for t in body.split("\n")]
        assert [t for t in thoughts if len(t) > 40 and t in text and t not in outside] == []
        for marker in (
            "<<<<<<< SEARCH",
            ">>>>>>> REPLACE",
            "thinking-content-",
            "(Y)es/(N)o",
            "SearchReplaceNoExactMatch",
            "^C KeyboardInterrupt",
            "Tokens: ",
        ):
            assert marker not in text, f"{name} keeps {marker}"


@pytest.mark.fixtures
def test_real_typed_prompts_are_kept_and_handoffs_are_not(shared_transcripts: Path) -> None:
    """Every typed prompt (not a command, answer or editor hand-off) is a user message once;
    so is every question a ``/copy-context`` carries."""
    for name, chats in real_conversations(shared_transcripts).items():
        raw = (shared_transcripts / "aider" / name).read_text(encoding="utf-8")
        users = [m.text for c in chats for m in c.messages if m.role == "user"]
        expected = []
        for text in raw_inputs(raw):
            if text.startswith("/copy-context "):
                expected.append(text.removeprefix("/copy-context ").strip())
                continue
            if text[:1] in "/!" or "(Y)es/(N)o" in text or handed_to_editor(raw, text):
                continue
            expected.append(text)
        commands = [t.split(None, 1) for t in raw_inputs(raw) if t.startswith(("/code ", "/ask "))]
        assert sorted(users) == sorted(expected), name
        assert all(len(parts) < 2 or parts[1].strip() in users for parts in commands)
    luvatrix = real_conversations(shared_transcripts)["luvatrix.aider.chat.history.md"][0]
    assert not any(t.startswith("# iOS Rendering") for t in texts(luvatrix, "user"))
    assert any(t.startswith("# iOS Rendering") for t in texts(luvatrix, "assistant"))


@pytest.mark.fixtures
def test_real_replies_keep_their_last_words(shared_transcripts: Path) -> None:
    """The prose line that ends a reply before its ``Tokens:`` notice is in an assistant message."""
    for name, chats in real_conversations(shared_transcripts).items():
        lines = (shared_transcripts / "aider" / name).read_text(encoding="utf-8").split("\n")
        replies = "\n".join(t for c in chats for t in texts(c, "assistant"))
        checked = 0
        for index, line in enumerate(lines):
            if not line.startswith("> Tokens:") or lines[index - 1].strip():
                continue
            last = lines[index - 2]
            if last.strip() and last[:1] not in "`<>=#|-" and not last.startswith("    "):
                assert last.strip() in replies, f"{name}: {last!r}"
                checked += 1
        assert checked or name.startswith("zenmcp")


@pytest.mark.fixtures
def test_laid_out_histories_are_discovered_from_home(
    shared_transcripts: Path, isolated_home: Path
) -> None:
    """The layout's keys are exactly what discovery finds through the default roots."""
    keys = lay_out(shared_transcripts, isolated_home)
    found = [
        item for root in READER.default_roots({}, isolated_home) for item in READER.discover(root)
    ]
    assert sorted(item.key for item in found) == sorted(keys)
    for item in found:
        assert isinstance(item, SessionRef)
        conversation = read(item)
        assert conversation.project == str(item.path.parent)
        assert str(item.path.parent).startswith(str(isolated_home / "src"))
