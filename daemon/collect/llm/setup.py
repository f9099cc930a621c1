"""``dreamd setup``: choose an extractor found on this machine and write it into the config.

The steps, each a named function:

1. ``detect.offers`` lists what is available (no token is spent finding it);
2. the user picks one (``--yes``: the first, in ``detect.PREFERENCE``
   order) and the cost cap per collect (``collect.max_tokens_per_run``:
   the file's own when it has one, else ``SETUP_TOKEN_CAP``);
3. ``updated_config`` edits the configuration text with tomlkit, so every
   other key, comment and blank line of an existing file stays as it was;
   the result is validated as a configuration before anything is written;
4. the file is written atomically, and an existing one only when the user
   agreed (``--yes`` agrees to update it, never to drop its other keys).

Nothing ever spends tokens unless the configuration says so: setup is how it
comes to say so, with a cap, after showing what it found. A credential is
never written: an API key stays in its environment variable, and the file
names only the variable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Table

from dreamd.collect.llm.detect import LOCAL_PORTS, Offer, offers
from dreamd.config import parse_config
from dreamd.errors import ConfigError
from dreamd.fswrite import atomic_write

__all__ = ["LOCAL_PORTS", "SETUP_TOKEN_CAP", "Prompts", "choose", "run_setup", "updated_config"]

#: The cost cap setup proposes: model tokens one collect may spend (input and output).
SETUP_TOKEN_CAP = 200_000


def _table(parent: Any, name: str) -> Table:
    """``parent[name]`` as a table, created (as a real ``[table]``) when missing."""
    if name not in parent:
        parent[name] = tomlkit.table()
    found = parent[name]
    if not isinstance(found, Table):
        raise ConfigError(None, name, "must be a table")
    return found


def existing_cap(text: str | None) -> int:
    """The file's ``collect.max_tokens_per_run``, or 0 when it sets none."""
    if not text:
        return 0
    try:
        return parse_config(text).collect.max_tokens_per_run
    except ConfigError:
        return 0


def updated_config(text: str | None, offer: Offer, cap: int) -> str:
    """The configuration ``text`` (None: no file yet) selecting ``offer`` with ``cap``.

    Only ``collect.extractor``, ``collect.max_tokens_per_run`` and the keys
    of the offer's ``[extractors.<name>]`` table are set; a preset replaces a
    command line (the two exclude each other). Raises ``ConfigError`` when
    the result would not load.
    """
    document = tomlkit.parse(text or "")
    collect = _table(document, "collect")
    collect["extractor"] = offer.extractor
    collect["max_tokens_per_run"] = cap
    extractors = _table(document, "extractors")
    extractors.is_super_table()
    table = _table(extractors, offer.extractor)
    for key, value in offer.table.items():
        table[key] = value
    if "preset" in offer.table and "argv" in table:
        del table["argv"]
    result = tomlkit.dumps(document)
    parse_config(result)  # what setup writes always loads
    return result


class Prompts:
    """How setup talks to the user (the command line passes click's functions)."""

    def __init__(
        self,
        say: Callable[[str], None],
        choose: Callable[[str, int], int],
        confirm: Callable[[str, bool], bool],
        number: Callable[[str, int], int],
    ) -> None:
        self.say = say
        self.choose = choose
        self.confirm = confirm
        self.number = number


def choose(found: Sequence[Offer], prompts: Prompts, *, yes: bool) -> Offer | None:
    """The offer to use: the first with ``--yes``, else the user's pick (0: none)."""
    if yes:
        return found[0]
    picked = prompts.choose(
        f"Use which extractor? (1-{len(found)}, 0 keeps the built-in heuristic)", 1
    )
    return found[picked - 1] if 1 <= picked <= len(found) else None


def run_setup(
    env: Mapping[str, str],
    path: Path,
    prompts: Prompts,
    *,
    yes: bool,
    ports: Mapping[int, str] = LOCAL_PORTS,
) -> int:
    """Detect, show, choose, write. Returns the exit code (0 also when nothing was found)."""
    found = offers(env, ports)
    if not found:
        prompts.say(
            "No extractor found here (no claude/codex/gemini on PATH, no local server on "
            f"ports {', '.join(map(str, ports))}, no OPENAI_API_KEY or ANTHROPIC_API_KEY).\n"
            "The built-in heuristic stays: free, offline, nothing to configure."
        )
        return 0
    prompts.say("Extractors found on this machine:")
    for index, each in enumerate(found, 1):
        prompts.say(f"  {index}. {each.label}: {each.cost}")
    text = path.read_text(encoding="utf-8") if path.is_file() else None
    cap = existing_cap(text) or SETUP_TOKEN_CAP
    prompts.say(
        f"Cost cap: collect.max_tokens_per_run = {cap} model tokens per collect "
        "(a run stops between windows once they are spent, and resumes next time)."
    )
    offer = choose(found, prompts, yes=yes)
    if offer is None:
        prompts.say("Nothing written: the built-in heuristic stays.")
        return 0
    if not yes:
        cap = prompts.number("Model tokens one collect may spend", cap)
    new_text = updated_config(text, offer, cap)
    if text is not None and not yes:
        question = f"Update {path}? Its other settings are kept."
        if not prompts.confirm(question, False):
            prompts.say("Nothing written.")
            return 0
    atomic_write(path, new_text.encode("utf-8"))
    verb = "Updated" if text is not None else "Wrote"
    prompts.say(
        f"{verb} {path}: collect.extractor = {offer.extractor!r} ({offer.label}), "
        f"at most {cap} tokens per collect."
    )
    return 0
