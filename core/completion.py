"""Shell completion of the ``blockyard`` command (bash, zsh, fish), through argcomplete.

``blockyard completion bash`` (or ``zsh``, ``fish``) prints the shell code that
completes the command: its subcommands and options as the parser defines them,
and ruleset ids (installed and your own rule files) wherever a ruleset is asked
for; a path to a ``.toml`` file is completed as a file. The shell code runs
``blockyard`` itself with argcomplete's environment variables set;
:func:`autocomplete` answers those from the parser and exits before anything
else happens.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

SHELLS = ("bash", "zsh", "fish")


def ruleset_ids(prefix: str, **_: Any) -> list[str]:
    """The ruleset ids starting with ``prefix`` (a completer for argcomplete); a
    prefix that looks like a path is left to the shell's file completion."""
    if os.sep in prefix or prefix.startswith(".") or prefix.endswith(".toml"):
        return []
    from .discovery import list_rulesets

    return sorted({info.id for info in list_rulesets() if info.id.startswith(prefix)})


def complete_rulesets(action: argparse.Action) -> argparse.Action:
    """Mark a positional ``ruleset`` argument as completed with ruleset ids (and files)."""

    def either(prefix: str, **kwargs: Any) -> list[str]:
        import argcomplete.completers

        ids = ruleset_ids(prefix, **kwargs)
        files = argcomplete.completers.FilesCompleter(("toml",))(prefix, **kwargs)
        return ids + [str(f) for f in files]

    setattr(action, "completer", either)  # noqa: B010 - argcomplete's documented hook
    return action


def autocomplete(parser: argparse.ArgumentParser) -> None:
    """Answer a completion request of the shell code and exit; does nothing (and
    imports nothing) when the command was not started by a shell's completion."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    argcomplete.autocomplete(parser)


def shell_code(shell: str, program: str = "blockyard") -> str:
    """The code that makes ``shell`` complete ``program``; a ``ValueError`` names
    the shells there is code for."""
    if shell not in SHELLS:
        raise ValueError(f"no completion for the shell {shell!r}: choose one of "
                         f"{', '.join(SHELLS)}")
    from argcomplete.shell_integration import shellcode

    return str(shellcode([program], shell=shell))


__all__ = ["SHELLS", "autocomplete", "complete_rulesets", "ruleset_ids", "shell_code"]
