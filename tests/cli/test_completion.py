"""Shell completion as a shell asks for it: the installed ``dreamd`` with click's variables set.

Each shell's script runs ``dreamd`` with ``_DREAMD_COMPLETE=<shell>_complete`` and the
words typed so far in ``COMP_WORDS`` / ``COMP_CWORD``; these tests set the same
variables (their meaning per shell is click's ``get_completion_args``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dreamd.cli import COMMANDS
from tests.process import modules_loaded

#: The console script the completion scripts call, installed beside this interpreter.
DREAMD = Path(sys.executable).with_name("dreamd")

pytestmark = pytest.mark.skipif(not DREAMD.exists(), reason="dreamd is not installed")

#: Variables that would point dreamd at the developer's own data instead of the test HOME.
_HOST_PREFIXES = ("XDG_", "DREAMD_", "CLAUDE_")


def environment(home: Path, **extra: str) -> dict[str, str]:
    """This process's environment on a fresh HOME, ``dreamd`` first on PATH, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_HOST_PREFIXES)}
    path = os.pathsep.join([str(DREAMD.parent), env.get("PATH", "")])
    env.update({"HOME": str(home), "PATH": path, **extra})
    return env


def complete(home: Path, shell: str, line: str) -> list[str]:
    """The lines ``dreamd`` answers when ``shell`` asks to complete the end of ``line``.

    ``line`` is what was typed; the word being completed is its last one (empty
    after a trailing space), the way each shell's script reports it.
    """
    words = line.split(" ")
    cword = words[-1] if shell == "fish" else str(len(words) - 1)
    env = environment(home, _DREAMD_COMPLETE=f"{shell}_complete", COMP_WORDS=line, COMP_CWORD=cword)
    done = subprocess.run(
        [str(DREAMD)], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def plain_values(lines: list[str]) -> list[str]:
    """The values of bash's (or fish's) ``plain,VALUE[\\tHELP]`` answer lines."""
    assert all(line.startswith("plain,") for line in lines), lines
    return [line.removeprefix("plain,").split("\t")[0] for line in lines]


def test_bash_completes_a_command_name_from_its_start(tmp_path: Path) -> None:
    """``dreamd so<TAB>`` is ``sources``; ``dreamd s<TAB>`` offers every s-command in order."""
    assert plain_values(complete(tmp_path, "bash", "dreamd so")) == ["sources"]
    starting_with_s = [name for name in COMMANDS if name.startswith("s")]
    assert plain_values(complete(tmp_path, "bash", "dreamd s")) == starting_with_s


def test_zsh_shows_each_command_with_its_line(tmp_path: Path) -> None:
    """zsh gets type, name and help per command: the help is the line ``--help`` shows."""
    lines = complete(tmp_path, "zsh", "dreamd ")
    triples = [lines[i : i + 3] for i in range(0, len(lines), 3)]
    commands = {name: help_ for kind, name, help_ in triples if not name.startswith("-")}
    assert {kind for kind, _, _ in triples} == {"plain"}
    assert commands == {name: entry.short_help for name, entry in COMMANDS.items()}


def test_fish_gets_names_and_help_on_one_line(tmp_path: Path) -> None:
    """fish passes the partial word itself; each answer is ``plain,NAME<tab>HELP``."""
    lines = complete(tmp_path, "fish", "dreamd c")
    assert plain_values(lines) == ["collect", "cursor", "completion"]
    assert lines[0] == f"plain,collect\t{COMMANDS['collect'].short_help}"


def test_top_level_options_complete_beside_the_commands(tmp_path: Path) -> None:
    """``dreamd -<TAB>`` offers the group's options and no command."""
    assert plain_values(complete(tmp_path, "bash", "dreamd -")) == ["--version", "-h", "--help"]


@pytest.mark.parametrize(
    ("group", "subcommands"),
    [
        ("sources", ["list", "show"]),
        ("cursor", ["export", "import"]),
        ("facts", ["add", "list", "remove"]),
    ],
)
def test_a_nested_group_completes_its_subcommands(
    tmp_path: Path, group: str, subcommands: list[str]
) -> None:
    """``dreamd sources <TAB>`` lists the group's own subcommands, in click's sorted order."""
    assert plain_values(complete(tmp_path, "bash", f"dreamd {group} ")) == subcommands


def test_a_command_completes_its_options(tmp_path: Path) -> None:
    """``dreamd dream --<TAB>`` offers the dream's options, each with its help for zsh."""
    values = plain_values(complete(tmp_path, "bash", "dreamd dream --"))
    assert {"--dry-run", "--apply-pending", "--json", "--config", "--help"} <= set(values)
    assert all(value.startswith("--") for value in values)
    zsh = complete(tmp_path, "zsh", "dreamd dream --dr")
    assert zsh == ["plain", "--dry-run", "Change nothing; write a pending proposal."]


def test_the_completion_command_completes_the_shell_names(tmp_path: Path) -> None:
    """``dreamd completion <TAB>`` offers the three shells it writes a script for."""
    assert plain_values(complete(tmp_path, "bash", "dreamd completion ")) == [
        "bash",
        "zsh",
        "fish",
    ]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_clicks_script_for_the_shell(tmp_path: Path, shell: str) -> None:
    """``dreamd completion SHELL`` is the script click writes, asking ``dreamd`` back."""
    env = environment(tmp_path)
    printed = subprocess.run(
        [str(DREAMD), "completion", shell], capture_output=True, text=True, env=env, check=False
    )
    assert printed.returncode == 0, printed.stderr
    assert f"_DREAMD_COMPLETE={shell}_complete" in printed.stdout
    env["_DREAMD_COMPLETE"] = f"{shell}_source"
    clicks = subprocess.run([str(DREAMD)], capture_output=True, text=True, env=env, check=False)
    assert printed.stdout == clicks.stdout


def test_completion_refuses_a_shell_it_has_no_script_for(tmp_path: Path) -> None:
    """An unknown shell is a usage error naming the shells there are."""
    done = subprocess.run(
        [str(DREAMD), "completion", "tcsh"],
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        check=False,
    )
    assert done.returncode == 2
    assert "'bash', 'zsh', 'fish'" in done.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_loads_the_script_and_completes_with_it(tmp_path: Path) -> None:
    """The script a user evals in ~/.bashrc fills COMPREPLY through the installed dreamd."""
    session = (
        'eval "$(dreamd completion bash)"\n'
        "COMP_WORDS=(dreamd sources s); COMP_CWORD=2\n"
        "_dreamd_completion dreamd\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", session],
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["show"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_loads_the_script_and_completes_with_it(tmp_path: Path) -> None:
    """The script saved under ~/.config/fish/completions answers fish's own completer."""
    session = 'dreamd completion fish | source; complete --do-complete "dreamd so"'
    done = subprocess.run(
        ["fish", "--no-config", "-c", session],
        capture_output=True,
        text=True,
        env=environment(tmp_path),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"sources\t{COMMANDS['sources'].short_help}"]


def heavy(loaded: set[str]) -> set[str]:
    """The loaded modules a command name or ``--version`` has no need of."""
    light_cli = {"dreamd.cli", "dreamd.cli.common"}
    return {
        module
        for module in loaded
        if module.startswith(("sqlalchemy", "dreamd.collect", "dreamd.dream"))
        or (module.startswith("dreamd.cli.") and module not in light_cli)
    }


@pytest.mark.parametrize(
    "env",
    [
        {"_DREAMD_COMPLETE": "bash_complete", "COMP_WORDS": "dreamd so", "COMP_CWORD": "1"},
        {"_DREAMD_COMPLETE": "zsh_complete", "COMP_WORDS": "dreamd ", "COMP_CWORD": "1"},
        {"_DREAMD_COMPLETE": "fish_complete", "COMP_WORDS": "dreamd d", "COMP_CWORD": "d"},
    ],
    ids=["bash", "zsh", "fish"],
)
def test_completing_a_command_name_imports_no_command(tmp_path: Path, env: dict[str, str]) -> None:
    """TAB after ``dreamd`` loads no command module, no job and no SQLAlchemy."""
    assert heavy(modules_loaded(tmp_path, **env)) == set()


def test_version_imports_no_command(tmp_path: Path) -> None:
    """``dreamd --version`` loads neither the jobs nor the database layer."""
    assert heavy(modules_loaded(tmp_path, "--version")) == set()


def test_completing_inside_a_command_loads_that_command(tmp_path: Path) -> None:
    """``dreamd sources <TAB>`` does import the sources command, and only it."""
    loaded = modules_loaded(
        tmp_path, _DREAMD_COMPLETE="bash_complete", COMP_WORDS="dreamd sources ", COMP_CWORD="2"
    )
    assert "dreamd.cli.sources" in loaded
    assert not {m for m in loaded if m.startswith(("dreamd.cli.dream", "dreamd.cli.service"))}


@pytest.mark.parametrize(
    ("words", "command"),
    [
        ("dreamd sources ", "dreamd.cli.sources"),
        ("dreamd sources list --", "dreamd.cli.sources"),
        ("dreamd dream --", "dreamd.cli.dream"),
        ("dreamd collect --", "dreamd.cli.collect"),
        ("dreamd run --", "dreamd.cli.service"),
        ("dreamd facts ", "dreamd.cli.facts"),
        ("dreamd cursor ", "dreamd.cli.cursor"),
        ("dreamd setup --", "dreamd.cli.extractors"),
    ],
)
def test_completing_inside_a_command_loads_none_of_its_machinery(
    tmp_path: Path, words: str, command: str
) -> None:
    """A command module declares its options and imports what does the work inside the
    command: completing its options loads no job, no reader, no database layer."""
    loaded = modules_loaded(
        tmp_path,
        _DREAMD_COMPLETE="bash_complete",
        COMP_WORDS=words,
        COMP_CWORD=str(len(words.split())),
    )
    assert command in loaded
    machinery = {"dreamd.readers", "dreamd.catalog", "dreamd.jobs", "dreamd.statedb", "structlog"}
    assert {m for m in heavy(loaded) if not m.startswith("dreamd.cli.")} == set()
    assert loaded & machinery == set()
