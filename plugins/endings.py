"""End rules: ``end-when-stuck`` (docs/rules.md T6) and ``clock`` (eu-timed)."""

from __future__ import annotations

from typing import Any

from blockyard.hookspecs import hookimpl
from blockyard.params import Params


class EndWhenStuck:
    """The game is over when no piece left in the tray fits anywhere."""

    name = "end-when-stuck"

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_end_reason(self, game: Any, stuck: bool) -> str | None:
        return "stuck" if stuck else None


class Clock:
    """A game clock of ``seconds``; the game is over (reason ``"time"``) at 0."""

    name = "clock"

    def __init__(self, params: Params) -> None:
        self.seconds = params.number("seconds", minimum=0.001)

    @hookimpl
    def blockyard_time_limit(self, ruleset: Any) -> float:
        return float(self.seconds)
