"""Player words and numbers read from the rules, never written into a view.

Why a game ended, the labels of actions with their uses left, and the numbers a
falling game shows (points for a discard, errors allowed) come from the game and
its ruleset: the ``[display]`` table (``texts``), the actions plugins contribute
(``label``, ``help``, ``uses_left``) and the rule file's plugin parameters.
"""

from __future__ import annotations

from typing import Any

import blockyard

OVER_WORDS = {"stuck": "No piece fits", "time": "Time is up", "ended": "Round ended",
              "complete": "Board complete!"}


def rule_param(ruleset: blockyard.Ruleset, plugin: str, key: str, default: Any = None) -> Any:
    """The value of ``key`` in the rule file's ``[plugins.<plugin>]`` table (after
    ``extends``), or ``default`` when the ruleset does not use that plugin."""
    table = ruleset.data.get("plugins", {}).get(plugin)
    if not isinstance(table, dict):
        return default
    return table.get(key, default)


def max_errors(ruleset: blockyard.Ruleset) -> int | None:
    """Errors that end a falling game (``None`` when its rules count none)."""
    value = rule_param(ruleset, "sudoku-rules", "max_errors")
    return value if isinstance(value, int) else None


def discard_points(ruleset: blockyard.Ruleset) -> int | None:
    """Points for a stone discarded over a full column, or ``None``."""
    value = rule_param(ruleset, "sudoku-rules", "discard_points")
    return value if isinstance(value, int) else None


def signed(points: int) -> str:
    """Points with their sign, a true minus for negatives (``−100``, ``+10``)."""
    return f"−{-points}" if points < 0 else f"+{points}"


def over_words(game: blockyard.Game, reason: str | None = None) -> str:
    """Why the game ended, in the player's words (the rule file's
    ``[display.texts]`` first)."""
    reason = reason if reason is not None else game.over_reason
    if reason is None:
        return ""
    own = game.ruleset.display.text(reason)
    if own:
        return own
    if reason == "errors":
        limit = max_errors(game.ruleset)
        return f"{limit} errors" if limit is not None else "Too many errors"
    return OVER_WORDS.get(reason, "Game over")


def action_label(label: str, uses_left: int | None) -> str:
    """A button label with the uses left: ``Swap (2)``."""
    return label if uses_left is None else f"{label} ({uses_left})"


def key_name(key: str | None) -> str:
    """A key as printed on a keyboard (``s`` → ``S``), or ``""``."""
    return key.upper() if key else ""
