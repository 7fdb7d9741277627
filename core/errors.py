"""Exceptions of the public API."""

from __future__ import annotations


class RulesetError(ValueError):
    """A rule file is wrong.

    The message names the file, the dotted key, what was expected and what was
    found, so that a modder can fix the file without reading Blockyard's code.
    """

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        self.path = path
        self.key = key
        prefix = ""
        if path:
            prefix += f"{path}: "
        if key:
            prefix += f"{key}: "
        super().__init__(prefix + message)


class IllegalMove(ValueError):
    """An action that is not allowed now. The game is left exactly as it was."""


class PluginError(RuntimeError):
    """An installed plugin is broken (fails to import, registers a name twice, …)."""
