"""The README and the pages under docs/ hold together, and CI runs the README's commands.

A newcomer reads the README first and follows its links; a link to a page that
moved, or a page nobody links to, is a dead end. CI runs the two "Set up"
commands the README prints (through ``.ci/readme_commands.py``), so the page and
the CI cannot drift apart.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
READ_COMMANDS = ROOT / ".ci" / "readme_commands.py"
#: The README is a newcomer's page; the details live under docs/.
README_MAX_LINES = 300

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def link_targets(text: str) -> list[str]:
    """The targets of the inline links of a Markdown text, outside code blocks and spans."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    return LINK.findall(prose)


def relative_links(page: Path) -> list[str]:
    """The links of ``page`` that point into the repository (no URL scheme)."""
    return [t for t in link_targets(page.read_text(encoding="utf-8")) if not SCHEME.match(t)]


def read_command(number: int, readme: Path = README) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(READ_COMMANDS), str(number), str(readme)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_link_finder_skips_code_and_urls() -> None:
    """The finder itself: links in prose count, links shown as code or to the web do not."""
    text = (
        "See [the dream](docs/dream.md) and [pipx](https://pipx.pypa.io/).\n"
        "`- [Title](file.md)` is an index line.\n"
        "```text\n[x](gone.md)\n```\n"
    )
    assert link_targets(text) == ["docs/dream.md", "https://pipx.pypa.io/"]


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(page: Path) -> None:
    """Each link names an existing file, without an anchor (a renamed heading would break
    an anchor silently; the pages name the section in words instead)."""
    for target in relative_links(page):
        assert "#" not in target, f"{page.name}: {target}: link to the page, not an anchor"
        assert (page.parent / target).resolve().is_file(), f"{page.name}: {target}: no such file"


def test_the_readme_links_every_docs_page() -> None:
    linked = {(README.parent / target).resolve() for target in relative_links(README)}
    docs = {page.resolve() for page in DOCS.glob("*.md")}
    assert docs, "docs/ holds the pages the README links"
    assert sorted(p.name for p in docs - linked) == []


def test_the_readme_is_a_short_page() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move details to docs/"


def test_the_first_set_up_command_installs_only_what_running_dreamd_needs() -> None:
    """No extras (``[test]``, ``[postgres]``…): the first command is the newcomer's install."""
    first = read_command(1)
    assert first.returncode == 0, first.stderr
    assert "pip install" in first.stdout and "dreamd sources list" in first.stdout
    assert "[" not in first.stdout


def test_the_second_set_up_command_installs_the_test_tools_and_runs_the_tests() -> None:
    second = read_command(2)
    assert second.returncode == 0, second.stderr
    assert "'.[test]'" in second.stdout and "-m pytest" in second.stdout


def test_a_missing_command_is_an_error_naming_it(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n## Set up\n\n```sh\necho one\n```\n\n### More\n\n```sh\nno\n```\n")
    assert read_command(1, readme).stdout == "echo one\n"
    missing = read_command(2, readme)
    assert missing.returncode != 0 and missing.stdout == ""
    assert "no sh block 2 under '## Set up'" in missing.stderr
    readme.write_text("# x\n")
    assert "no '## Set up' heading" in read_command(1, readme).stderr


def test_ci_runs_the_readmes_two_commands() -> None:
    """``.ci/run`` reads commands 1 and 2 from the README instead of spelling them out."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for number in (1, 2):
        assert f"python3 .ci/readme_commands.py {number})" in script
    assert "set -euo pipefail" in script
    before_tests = script.split("readme_commands.py 2)", 1)[0]
    assert "pip install" not in before_tests  # only the README's command 1 installs
    assert "apt-get install" in before_tests  # systemd first, so the unit tests do not skip
