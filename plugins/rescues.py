"""Actions that rescue a game: ``continue`` (eu §3.4), ``zen-refill`` (eu-zen)
and ``swaps`` (tiered §4.4).

Each contributes one action through ``blockyard_actions`` and keeps its state
in ``game.state[<plugin name>]``; the engine's general end rule (over as
"stuck" exactly when no tray piece fits and no available action is a rescue)
does the rest, so a swaps table added to any ruleset keeps its games alive
while a swap is left.
"""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.actions import ActionSpec
from blockyard.errors import IllegalMove
from blockyard.hookspecs import hookimpl
from blockyard.params import Params

from .dealing import WeightTable


def empty_fullest_row(game: Any) -> bool:
    """Empty the fullest row (ties: the highest row index). False if the board is empty."""
    counts = game.grid.row_counts()
    row = max(range(len(counts)), key=lambda r: (counts[r], r))
    if counts[row] == 0:
        return False
    game.empty_cells(game.grid.geo.row_masks[row])
    return True


class Continue:
    """Once per game (``times``), after the game is over because nothing fits,
    the player may continue: the fullest rows are emptied one at a time (ties:
    highest row index), at most ``max_rows``, stopping as soon as some tray
    piece fits. They score nothing and the streak returns to 0."""

    name = "continue"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "max_rows": "rows emptied at most per continue",
        "times": "how often a game may be continued"}

    def __init__(self, params: Params) -> None:
        self.max_rows = params.integer("max_rows", minimum=1, maximum=64)
        self.times = params.integer("times", 1, minimum=1, maximum=1000)

    def used(self, game: Any) -> int:
        return int(game.state.get(self.name, {}).get("used", 0))

    def available(self, game: Any) -> bool:
        return game.over_reason == "stuck" and self.used(game) < self.times

    def perform(self, game: Any) -> None:
        for _ in range(self.max_rows):
            if not empty_fullest_row(game) or game.any_fits():
                break
        game.combo = 0
        game.state[self.name] = {"used": self.used(game) + 1}

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        rows = "row" if self.max_rows == 1 else "rows"
        return [ActionSpec(
            "continue", "Continue", self.perform, key="c", after_end=True, confirm=False,
            available=self.available, uses_left=lambda game: self.times - self.used(game),
            help=f"Empty up to {self.max_rows} of the fullest {rows} and play on; "
                 "the combo starts again.")]


class ZenRefill:
    """When nothing in the tray fits, the tray is replaced by one new random set
    (no fit guarantee, stream ``(seed, "zen", n)``); if none of those fits either,
    the fullest row is emptied (ties: highest row index) until a piece fits.
    The engine takes this action itself (it is automatic)."""

    name = "zen-refill"
    PARAMETERS: ClassVar[dict[str, str]] = {}

    def __init__(self, params: Params) -> None:
        self._table: WeightTable | None = None

    def refills(self, game: Any) -> int:
        return int(game.state.get(self.name, {}).get("refills", 0))

    def perform(self, game: Any) -> None:
        if self._table is None:
            self._table = WeightTable(game.ruleset.families)
        refills = self.refills(game)
        game.state[self.name] = {"refills": refills + 1}
        game.set_tray(self._table.draw_set(game.stream("zen", refills),
                                           game.ruleset.tray_slots))
        while not game.any_fits() and empty_fullest_row(game):
            pass

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state[self.name] = {"refills": 0}

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec("refill", "New pieces", self.perform, automatic=True,
                           available=lambda game: not game.any_fits(),
                           rescue=lambda game: True,
                           help="When nothing fits, the tray is refilled by itself.")]


class Swaps:
    """Tiered "new blocks": ``start`` swaps, ``per_perfect_clear`` more for each
    perfect clear, at most ``max`` held. A swap discards the tray and deals a new
    set. A swap is a rescue: the game is not over while one is left."""

    name = "swaps"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "start": "swaps at the start of a game",
        "per_perfect_clear": "swaps earned by each perfect clear",
        "max": "most swaps held at once"}

    def __init__(self, params: Params) -> None:
        self.start = params.integer("start", minimum=0, maximum=1000)
        self.per_perfect_clear = params.integer("per_perfect_clear", minimum=0, maximum=1000)
        self.max = params.integer("max", minimum=0, maximum=1000)

    def left(self, game: Any) -> int:
        return int(game.state.get(self.name, {}).get("left", 0))

    def perform(self, game: Any) -> None:
        left = self.left(game)
        if left <= 0:
            raise IllegalMove("no swap left")
        game.state[self.name] = {"left": left - 1}
        game.deal_next_set()

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state[self.name] = {"left": min(self.start, self.max)}

    @hookimpl
    def blockyard_move_state(self, game: Any, result: Any) -> dict[str, Any] | None:
        if result.perfect_clear and self.per_perfect_clear:
            return {self.name: {"left": min(self.max, self.left(game) + self.per_perfect_clear)}}
        return None

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec(
            "swap", "Swap", self.perform, key="s", sound="swap", confirm=True,
            available=lambda game: self.left(game) > 0,
            rescue=lambda game: self.left(game) > 0, uses_left=self.left,
            help="Discard the three pieces in the tray and get a new set.")]
