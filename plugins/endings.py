"""End rules: ``clock`` (eu-timed), and ``end-when-stuck``, a no-op kept so that
rule files naming it still load (the engine itself ends a stuck tray game,
docs/rules.md T6)."""

from __future__ import annotations

from typing import ClassVar

from blockyard.hookspecs import hookimpl
from blockyard.params import Params


class EndWhenStuck:
    """A no-op, kept for compatibility: rule files written for earlier versions
    name it, and they still load. Do not name it in new rule files.

    Being over when nothing in the tray fits is the engine's own end rule for
    every tray game (over as "stuck" exactly when no tray piece fits and no
    available action is a rescue), so this plugin answers no hook and changes
    nothing. The bundled rule files no longer name it."""

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
