"""The Hint: the ``search`` bot's move, found a little each frame.

:class:`HintFinder` advances the bot's step generator for a few milliseconds per
frame (never a frame's worth), so asking for a hint keeps the window smooth;
the answer is shown as a pulsing ghost of the piece where the bot would put it.
Whether a ruleset allows hints is the rule file's ``[display] hints``
(``"always"``, ``"never"`` or ``"not-in-duels"``, the default).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from typing import Any

import blockyard
from blockyard.bots import get_bot, run_steps

STEP_BUDGET_MS = 2.0
"""Thinking time per frame: a frame stays well inside 16 ms while the hint is found."""

PULSE_SECONDS = 1.2


def hints_allowed(ruleset: blockyard.Ruleset, in_duel: bool) -> bool:
    """Whether the rules let the player ask for a hint here."""
    rule = ruleset.display.hints
    return rule == "always" or (rule == "not-in-duels" and not in_duel)


class HintFinder:
    """Finds the ``search`` bot's move for the position on screen, in steps."""

    def __init__(self, bot_name: str = "search") -> None:
        self.bot = get_bot(bot_name)
        self._steps: Iterator[Any] | None = None
        self._position: tuple[int, int] = (-1, -1)
        self.best: tuple[Any, ...] | None = None
        self.done = False
        self.asked_at = 0.0
        self.found_after: float | None = None

    def ask(self, game: Any) -> None:
        """Start looking for a hint for ``game`` as it is now. The bot thinks on a
        :meth:`~blockyard.Game.clone` of it, so the steps spread over frames
        see the position they were asked about, whatever the window does to
        the game meanwhile (the hint is dropped when the game moves on)."""
        self._position = (game.moves, len(game.log))
        self._steps = self.bot.steps(game.clone())
        self.best = None
        self.done = False
        self.asked_at = time.perf_counter()
        self.found_after = None

    @property
    def active(self) -> bool:
        """A hint is being looked for or shown."""
        return self._steps is not None or self.best is not None

    def cancel(self) -> None:
        self._steps = None
        self.best = None
        self.done = False

    def update(self, game: Any, budget_ms: float = STEP_BUDGET_MS) -> bool:
        """Think for up to ``budget_ms``; True when the shown hint changed. A hint
        is dropped as soon as the game moves on."""
        if not self.active:
            return False
        if (game.moves, len(game.log)) != self._position:
            self.cancel()
            return True
        if self._steps is None:
            return False
        best, finished = run_steps(self._steps, budget_ms)
        changed = False
        if finished:
            self._steps = None
            self.done = True
            changed = True
        if best is not None and best != self.best:
            self.best = best
            changed = True
        if self.done and self.found_after is None:
            self.found_after = time.perf_counter() - self.asked_at
        return changed

    def placement(self) -> tuple[int, int, int] | None:
        """The hinted placement ``(slot, row, col)``, once found."""
        if self.done and self.best is not None and self.best[0] == "place":
            slot, row, col = self.best[1:]
            return int(slot), int(row), int(col)
        return None

    def action(self) -> tuple[Any, ...] | None:
        """The hinted action when it is not a placement (``("swap",)``…)."""
        if self.done and self.best is not None and self.best[0] != "place":
            return tuple(self.best)
        return None

    def alpha(self, now: float | None = None) -> int:
        """The ghost's opacity while it pulses."""
        t = (time.perf_counter() if now is None else now) - self.asked_at
        return int(110 + 90 * (0.5 + 0.5 * math.sin(2 * math.pi * t / PULSE_SECONDS)))
