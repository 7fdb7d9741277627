"""End rules: ``end-when-stuck`` (docs/rules.md T6) and ``clock`` (eu-timed)."""

from __future__ import annotations

from typing import ClassVar

from blockyard.hookspecs import hookimpl
from blockyard.params import Params


class EndWhenStuck:
    """The game is over when no piece left in the tray fits anywhere.

    This is the engine's own end rule for every tray game (over as "stuck"
    exactly when no tray piece fits and no available action is a rescue), so
    the plugin answers no hook; rule files may keep naming it."""

    name = "end-when-stuck"
    PARAMETERS: ClassVar[dict[str, str]] = {}

    def __init__(self, params: Params) -> None:
        pass


class Clock:
    """A game clock of ``seconds``; the game is over (reason ``"time"``) at 0."""

    name = "clock"
    PARAMETERS: ClassVar[dict[str, str]] = {"seconds": "seconds on the game clock"}

    def __init__(self, params: Params) -> None:
        self.seconds = params.number("seconds", minimum=0.001, maximum=86_400)

    @hookimpl
    def blockyard_time_limit(self, ruleset: object) -> float:
        return float(self.seconds)
