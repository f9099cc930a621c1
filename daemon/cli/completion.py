"""``dreamd completion SHELL``: the script a shell sources to complete ``dreamd``."""

from __future__ import annotations

import click

__all__ = ["COMPLETE_VAR", "SHELLS", "completion"]

#: The shells click writes a completion script for, in the order the help names them.
SHELLS = ("bash", "zsh", "fish")

#: The variable the script sets when it asks ``dreamd`` for completions; click derives
#: the same name from the program name, so the script and the program agree.
COMPLETE_VAR = "_DREAMD_COMPLETE"


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the script that makes bash, zsh or fish complete dreamd's commands and options.

    Load it from the shell's startup file, for instance:

    \b
      eval "$(dreamd completion bash)"     # in ~/.bashrc
      eval "$(dreamd completion zsh)"      # in ~/.zshrc
      dreamd completion fish > ~/.config/fish/completions/dreamd.fish

    The script is click's own: it calls dreamd with $_DREAMD_COMPLETE set on
    every TAB, and dreamd answers command names without loading any command.
    """
    from click.shell_completion import get_completion_class

    shell_class = get_completion_class(shell)
    assert shell_class is not None, shell  # click ships a class for every name in SHELLS
    # The program name is fixed: the script must register the installed `dreamd`,
    # even when this runs as `python -m dreamd`.
    script = shell_class(ctx.find_root().command, {}, "dreamd", COMPLETE_VAR).source()
    click.echo(script, nl=False)
