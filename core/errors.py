"""Exceptions of the public API, and :func:`did_you_mean` for their messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


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
    """A plugin misbehaved: it raised, returned the wrong type, or is broken
    (fails to import, registers a name twice, …).

    The message names the plugin, the hook, the ruleset, the seed and the action
    where they are known, then the problem, the place in the plugin's code
    (``where``: ``file:line``, where it raised or the function that gave the
    wrong answer) and what to do about it (``fix``); they are also attributes.
    During an action the game is left exactly as it was.
    """

    def __init__(self, message: str, *, plugin: str | None = None, hook: str | None = None,
                 ruleset: str | None = None, seed: int | None = None,
                 action: str | None = None, where: str | None = None,
                 fix: str | None = None) -> None:
        self.plugin = plugin
        self.hook = hook
        self.ruleset = ruleset
        self.seed = seed
        self.action = action
        self.problem = message
        self.where = where
        """``file:line`` in the plugin's code, or ``None`` when not known."""
        self.fix = fix
        """What to do about it (one sentence), or ``None``."""
        parts = []
        if plugin is not None:
            parts.append(f"plugin {plugin!r}")
        if hook is not None:
            parts.append(f"hook {hook}")
        context = []
        if ruleset is not None:
            context.append(f"ruleset {ruleset!r}")
        if seed is not None:
            context.append(f"seed {seed}")
        if action is not None:
            context.append(f"action {action}")
        text = ", ".join(parts)
        if context:
            text += f" ({', '.join(context)})"
        told = f"{text}: {message}" if text else message
        if where is not None:
            told += f" [at {where}]"
        if fix is not None:
            told += f". To fix: {fix}"
        super().__init__(told)


class DataError(ValueError):
    """A snapshot, log, replay file, saved game or challenge code is malformed or
    does not match; the message says what."""


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a close match among ``options``, else ``""``."""
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
