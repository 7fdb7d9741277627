"""Test plugins with actions aimed at a tray slot (``shrink``) and at a slot and a
cell (``trade``), shared by the bots' tests and the window's."""

from __future__ import annotations

from typing import Any

from blockyard import IllegalMove, hookimpl
from blockyard.actions import ActionSpec
from blockyard.params import Params


class Shrink:
    """``shrink``, aimed at a tray slot: its piece becomes a dot, once a game."""

    name = "shrink"

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state["shrink"] = {"left": 1}

    def perform(self, game: Any, slot: int) -> None:
        dot = next(p for p in game.ruleset.pieces if p.id == "dot")
        game.set_slot(slot, dot)
        game.state["shrink"] = {"left": 0}

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec("shrink", "Shrink", self.perform, target="slot",
                           available=lambda game: game.state["shrink"]["left"] > 0,
                           allowed=lambda game, slot: game.tray[slot].size > 1)]


class Trade:
    """``trade`` (key T), aimed at a slot and a cell: give up the slot's piece to
    break a filled cell. Its plugin allows no cell of column 1, and its
    ``perform`` refuses row 0 although ``allowed`` says yes there."""

    name = "trade"

    def __init__(self, params: Params) -> None:
        pass

    @staticmethod
    def allowed(game: Any, slot: int, row: int, col: int) -> bool:
        return col != 1 and bool(game.grid.bits >> (row * game.cols + col) & 1)

    @staticmethod
    def breaks(game: Any, slot: int, row: int, col: int) -> int:
        return 1 << (row * game.cols + col)

    @classmethod
    def perform(cls, game: Any, slot: int, row: int, col: int) -> None:
        if row == 0:
            raise IllegalMove("trade: not on the top row")
        game.set_slot(slot, None)
        game.empty_cells(cls.breaks(game, slot, row, col))

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec("trade", "Trade", self.perform, key="t", target="cell+slot",
                           allowed=self.allowed, preview=self.breaks,
                           help="Give up a piece to break a filled cell.")]
