"""Rescues: ``continue`` (eu §3.4), ``zen-refill`` (eu-zen) and ``swaps`` (tiered §4.4)."""

from __future__ import annotations

from typing import Any

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

    def __init__(self, params: Params) -> None:
        self.max_rows = params.integer("max_rows", minimum=1)
        self.times = params.integer("times", 1, minimum=1)

    @hookimpl
    def blockyard_continue_game(self, game: Any, apply: bool) -> bool:
        if game.over_reason != "stuck" or game.continues_used >= self.times:
            return False
        if apply:
            for _ in range(self.max_rows):
                if not empty_fullest_row(game) or game.any_fits():
                    break
            game.combo = 0
        return True


class ZenRefill:
    """When nothing in the tray fits, the tray is replaced by one new random set
    (no fit guarantee, stream ``(seed, "zen", n)``); if none of those fits either,
    the fullest row is emptied (ties: highest row index) until a piece fits."""

    name = "zen-refill"

    def __init__(self, params: Params) -> None:
        self._table: WeightTable | None = None

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state[self.name] = {"refills": 0}

    @hookimpl
    def blockyard_rescue(self, game: Any) -> bool:
        if self._table is None:
            self._table = WeightTable(game.ruleset.families)
        state = game.state.setdefault(self.name, {"refills": 0})
        refills = state["refills"]
        game.state[self.name] = {"refills": refills + 1}
        game.set_tray(self._table.draw_set(game.stream("zen", refills)))
        while not game.any_fits() and empty_fullest_row(game):
            pass
        return True


class Swaps:
    """Tiered "new blocks": ``start`` swaps, ``per_perfect_clear`` more for each
    perfect clear, at most ``max`` held. A swap discards the tray and deals a new
    set. The game is over only when nothing fits and no swap is left."""

    name = "swaps"

    def __init__(self, params: Params) -> None:
        self.start = params.integer("start", minimum=0)
        self.per_perfect_clear = params.integer("per_perfect_clear", minimum=0)
        self.max = params.integer("max", minimum=0)

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.swaps_left = min(self.start, self.max)

    @hookimpl
    def blockyard_after_move(self, game: Any, result: Any) -> None:
        if result.perfect_clear:
            game.swaps_left = min(self.max, game.swaps_left + self.per_perfect_clear)

    @hookimpl
    def blockyard_swap(self, game: Any) -> bool:
        if game.swaps_left <= 0:
            raise IllegalMove("no swap left")
        game.swaps_left -= 1
        game.deal_next_set()
        return True

    @hookimpl
    def blockyard_end_reason(self, game: Any, stuck: bool) -> str | None:
        return "stuck" if stuck and game.swaps_left <= 0 else None
