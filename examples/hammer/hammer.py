"""A hammer: an action aimed at a board cell (MODDING.md, "Actions that take a
target"). The player picks a filled cell and breaks it: the cell empties, no
points are scored, and the hammer has three uses a game.

Register it (``blockyard.register_plugin("hammer", Hammer)``, or through the
``blockyard`` entry point of a package) and play ``hammer.toml`` beside this
file."""

from __future__ import annotations

from typing import Any

from blockyard import hookimpl
from blockyard.actions import ActionSpec
from blockyard.params import Params


class Hammer:
    """The ``hammer`` action: ``act("hammer", row, col)`` breaks a filled cell."""

    name = "hammer"

    def __init__(self, params: Params) -> None:
        self.uses = params.integer("uses", 3, minimum=1, maximum=99)

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state["hammer"] = {"left": self.uses}

    def left(self, game: Any) -> int:
        return int(game.state["hammer"]["left"])

    def filled(self, game: Any, row: int, col: int) -> bool:
        """The hammer may only be aimed at a filled cell."""
        return bool(game.grid.bits >> (row * game.cols + col) & 1)

    def breaks(self, game: Any, row: int, col: int) -> int:
        """What the window highlights before the player confirms: that cell."""
        return 1 << (row * game.cols + col)

    def perform(self, game: Any, row: int, col: int) -> None:
        game.empty_cells(self.breaks(game, row, col))
        game.state["hammer"] = {"left": self.left(game) - 1}

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec(
            "hammer", "Hammer", self.perform, key="b", target="cell",
            available=lambda game: self.left(game) > 0, allowed=self.filled,
            preview=self.breaks, uses_left=self.left,
            # a broken cell can make a piece fit: the game is not stuck while uses are left
            rescue=lambda game: self.left(game) > 0 and game.grid.bits != 0,
            help="Break one filled cell of your choice (3 a game).")]
