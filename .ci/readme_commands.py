#!/usr/bin/env python3
"""Print the Nth ```sh block under the README's "## Set up" heading.

CI runs the README's set-up commands through this script, so what a newcomer
copies from the README is exactly what CI runs: a command that stops working
fails CI instead of rotting in the page. Standard library only, since it runs
before any virtual environment exists.

Usage: python3 .ci/readme_commands.py N [README]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
HEADING = "## Set up"
#: A fenced block opened with ```sh and closed with ``` at the start of a line.
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def set_up_section(text: str) -> str | None:
    """The lines between the "## Set up" heading and the next heading of any level.

    The section stops at its first subsection ("### Install for good" has sh blocks of its
    own, which are not the set-up commands). A ``#`` line inside a fenced block is a shell
    comment, not a heading.
    """
    lines = text.splitlines(keepends=True)
    try:
        first = next(i for i, line in enumerate(lines) if line.rstrip() == HEADING)
    except StopIteration:
        return None
    section: list[str] = []
    fenced = False
    for line in lines[first + 1 :]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            break
        section.append(line)
    return "".join(section)


def commands(section: str) -> list[str]:
    """The ```sh blocks of the set-up section, in order, each without its trailing newline."""
    return [block.strip("\n") for block in SH_BLOCK.findall(section)]


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or not argv[1].isdigit() or int(argv[1]) < 1:
        print("usage: readme_commands.py N [README]  (N counts from 1)", file=sys.stderr)
        return 2
    readme = Path(argv[2]) if len(argv) == 3 else README
    number = int(argv[1])
    try:
        text = readme.read_text(encoding="utf-8")
    except OSError as error:
        print(f"{readme}: cannot be read: {error.strerror}", file=sys.stderr)
        return 1
    section = set_up_section(text)
    if section is None:
        print(f"{readme}: no {HEADING!r} heading", file=sys.stderr)
        return 1
    found = commands(section)
    if number > len(found):
        print(
            f"{readme}: no sh block {number} under {HEADING!r} (it has {len(found)})",
            file=sys.stderr,
        )
        return 1
    print(found[number - 1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
