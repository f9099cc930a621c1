"""What Aider logs as input that is not a prompt, and the prompts commands carry.

Aider logs typed input as ``#### `` lines, but not every input is a prompt:

- answers to confirm prompts that Aider logs as input are not prompts:
  ``is_confirm_answer``;
- slash and ``!`` commands are dropped (``is_command``), except that
  ``/ask``, ``/code``, ``/architect``, ``/context``, ``/help`` and ``/ok`` keep
  the prompt they carry, and ``/copy-context`` the question it copies for
  another model: ``command_prompt``; a command is named by any prefix that
  is its alone, as Aider matches them (``resolve_command``);
- Aider logs a prompt sent through a command again as input, and the copy is
  skipped: ``Relog``;
- in architect mode the architect's reply is handed to the editor model and
  logged again as input: ``is_editor_handoff``.

Invariants: pure functions of the logged text; copies are compared line by
line without trailing spaces or outer blank lines (``normalized``).
"""

from __future__ import annotations

import re

import msgspec

__all__ = [
    "SENT_COMMANDS",
    "Relog",
    "command_prompt",
    "is_command",
    "is_confirm_answer",
    "is_editor_handoff",
    "normalized",
    "resolve_command",
]

#: Every command of Aider 0.86, for its own prefix matching (``/cha`` is ``/chat-mode``).
_COMMAND_NAMES = (
    "add architect ask chat-mode clear code commit context copy copy-context diff drop edit"
    " editor editor-model exit git help lint load ls map map-refresh model models"
    " multiline-mode ok paste quit read-only reasoning-effort report reset run save settings"
    " test think-tokens tokens undo voice weak-model web"
)
_COMMANDS = frozenset(_COMMAND_NAMES.split())
#: Commands whose arguments Aider sends to the model as the user's message.
SENT_COMMANDS = frozenset({"ask", "code", "architect", "context", "help", "ok"})
#: Commands whose arguments are the person's question though Aider sends nothing:
#: ``/copy-context <question>`` puts the context and the question on the clipboard,
#: for a model outside Aider.
_QUESTION_COMMANDS = frozenset({"copy-context"})
_PROMPT_COMMANDS = SENT_COMMANDS | _QUESTION_COMMANDS
_OK_PROMPT = "Ok, please go ahead and make those changes."

_CONFIRM = re.compile(r"\(Y\)es/\(N\)o.*\[[^\]\n]*\]:\s*\S*\s*$")


def is_confirm_answer(text: str) -> bool:
    """``Add file to the chat? (Y)es/(N)o/... [Yes]: skip``: Aider logs the answer
    to a grouped confirm question as input; it is not a prompt."""
    return "\n" not in text and _CONFIRM.search(text) is not None


def is_command(text: str) -> bool:
    """Aider runs any input starting with ``/`` or ``!`` as a command, never as chat."""
    return text[:1] in ("/", "!")


def resolve_command(word: str) -> str | None:
    """The command Aider runs for ``/word``: the exact name, else the only one it prefixes."""
    name = word[1:]
    if name in _COMMANDS:
        return name
    matches = [command for command in _COMMANDS if command.startswith(name)]
    return matches[0] if len(matches) == 1 else None


def command_prompt(text: str) -> tuple[str, str] | None:
    """``(command, prompt)`` for a command that sends its arguments to the model.

    ``/ask q``, ``/code q``, ``/architect q``, ``/context q``, ``/help q`` send
    ``q``; ``/ok x`` sends ``Ok, please go ahead and make those changes. x``;
    ``/copy-context q`` sends nothing but ``q`` is the person's question all
    the same. Every other command, an ambiguous or unknown one and ``!shell``
    carry no prompt.
    """
    if not text.startswith("/"):
        return None
    word = text.split(maxsplit=1)[0]
    name = resolve_command(word)
    if name not in _PROMPT_COMMANDS:
        return None
    rest = text[len(word) :].strip()
    if name == "ok":
        return name, f"{_OK_PROMPT} {rest}".strip()
    return (name, rest) if rest else None


class Relog(msgspec.Struct, frozen=True):
    """A prompt sent through a command, which Aider logs once more as input."""

    command: str
    prompt: str

    def repeated_by(self, text: str) -> bool:
        """True for the logged copy (``/help`` logs its docs-laden question)."""
        if self.command == "help":
            return text.startswith("# Question:")
        return normalized(text) == normalized(self.prompt)


def is_editor_handoff(text: str, last_reply: str) -> bool:
    """True when the input is the architect's reply that Aider passed to the editor
    model, which it logs as input right after that reply."""
    return bool(last_reply) and normalized(text) == last_reply


def normalized(text: str) -> str:
    """Text compared line by line without trailing spaces or outer blank lines."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines()).strip()
