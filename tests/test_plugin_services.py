"""The engine checks what a plugin hands its services (issue 52, point 2): every
mask, cell, slot and piece given to ``empty_cells``, ``set_slot``,
``set_tray``, ``end_game`` or a board's ``fill``/``empty`` is checked against
the board before use; a bad one is a ``PluginError`` naming the plugin and the
hook, the game unchanged, and ``blockyard check`` finds such a plugin with its
default games (mistakes mk20 and mk23 of the outside mistakes package)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.actions import ActionSpec
from blockyard.geometry import Board, geometry
from blockyard.params import Params
from blockyard.pieces import Piece
from blockyard.results import Clearing
from blockyard.testing import check_ruleset


class Breaker:
    """A hammer whose ``perform`` hands ``empty_cells`` the mask its parameter
    names: ``below`` the cell and the cell under it (off the board on the last
    row: mk20), ``beyond`` the cell and a bit past the board's end for every
    cell (mk23), ``negative`` a negative int, ``text`` not an int at all."""

    def __init__(self, params: Params) -> None:
        self.how = params.string("how")

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state["breaker"] = {"left": 3}

    def mask(self, game: Any, row: int, col: int) -> Any:
        cell = 1 << (row * game.cols + col)
        size = game.rows * game.cols
        return {"below": cell | cell << game.cols, "beyond": cell | 1 << (size + col),
                "negative": -cell, "text": str(cell)}[self.how]

    def perform(self, game: Any, row: int, col: int) -> None:
        game.empty_cells(self.mask(game, row, col))
        game.state["breaker"] = {"left": game.state["breaker"]["left"] - 1}

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec(
            "breaker", "Breaker", self.perform, target="cell",
            available=lambda game: game.state["breaker"]["left"] > 0,
            allowed=lambda game, row, col: bool(game.grid.bits >> (row * game.cols + col) & 1),
            uses_left=lambda game: game.state["breaker"]["left"],
            rescue=lambda game: game.state["breaker"]["left"] > 0 and game.grid.bits != 0)]


@pytest.fixture
def breaker(rule_file, register_plugin):
    register_plugin("breaker", Breaker)

    def load(how: str) -> blockyard.Ruleset:
        return blockyard.load_ruleset(rule_file(
            f'[ruleset]\nextends = "eu-classic"\nid = "breaker-{how}"\nname = "Breaker"\n'
            f'[plugins.breaker]\nhow = "{how}"\n', f"breaker-{how}.toml"))
    return load


FULL_LAST_ROW = "\n".join([*["." * 10] * 9, "#" * 9 + "."])


@pytest.mark.parametrize(("how", "told"), [
    ("below", r"found one with bit 100: a cell off the board"),
    ("beyond", r"found one with bit 100: a cell off the board"),
    ("negative", r"found the negative -"),
    ("text", r"found str '"),
])
def test_empty_cells_with_a_mask_off_the_board_is_a_plugin_error_and_changes_nothing(
        breaker, how, told):
    game = blockyard.new_game(breaker(how), seed=1, board=FULL_LAST_ROW)
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"empty_cells|Board.empty") as caught:
        game.act("breaker", 9, 0)
    error = caught.value
    assert error.plugin == "breaker" and error.hook == "blockyard_actions", error
    assert "expected a mask of the 10×10 board's cells" in str(error)
    assert re.search(told, str(error)), error
    assert game.snapshot() == before
    game.board_text()  # the board reads as before: no cell off it
    assert blockyard.restore(game.snapshot()).snapshot() == before


def test_empty_cells_on_the_board_still_breaks_the_cells(breaker):
    board = "\n".join(["#" * 10, "#" * 10, *["." * 10] * 8])
    game = blockyard.new_game(breaker("below"), seed=1, board=board)
    game.act("breaker", 0, 4)
    assert game.board_text().splitlines()[:2] == ["####.#####", "####.#####"]


@pytest.mark.parametrize("how", ["below", "beyond"])
def test_check_finds_a_perform_emptying_cells_off_the_board_with_its_default_games(
        breaker, how):
    report = check_ruleset(breaker(how))
    assert not report.ok
    text = report.text()
    assert "plugin 'breaker'" in text and "a cell off the board" in text, text


class Shaper:
    """An action handing ``set_slot`` or ``set_tray`` what its parameter names."""

    def __init__(self, params: Params) -> None:
        self.how = params.string("how")

    def perform(self, game: Any) -> None:
        long = Piece(frozenset((0, c) for c in range(11)), id="long", family="long", colour=1)
        if self.how == "slot-past":
            game.set_slot(game.ruleset.tray_slots, None)
        elif self.how == "slot-negative":
            game.set_slot(-1, None)
        elif self.how == "slot-large":
            game.set_slot(0, long)
        elif self.how == "tray-large":
            game.set_tray([None, long])
        elif self.how == "tray-text":
            game.set_tray(["##"])
        elif self.how == "tray-str":
            game.set_tray("##")

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec("shape", "Shape", self.perform)]


@pytest.mark.parametrize(("how", "told"), [
    ("slot-past", r"set_slot: slot: expected a tray slot from 0 to 2, found 3"),
    ("slot-negative", r"set_slot: slot: expected a tray slot from 0 to 2, found -1"),
    ("slot-large", r"set_slot: piece 'long' \(1×11\) is larger than the 10×10 board"),
    ("tray-large", r"set_tray: slot 1: piece 'long' \(1×11\) is larger than the 10×10 board"),
    ("tray-text", r"set_tray: slot 0: expected a Piece or None, found '##'"),
    ("tray-str", r"set_tray: expected a list of pieces, found str '##'"),
])
def test_a_slot_or_piece_the_tray_cannot_hold_is_a_plugin_error_and_changes_nothing(
        rule_file, register_plugin, how, told):
    register_plugin("shaper", Shaper)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "shaper"\nname = "Shaper"\n'
        f'[plugins.shaper]\nhow = "{how}"\n'))
    game = blockyard.new_game(ruleset, seed=1)
    before = game.snapshot()
    with pytest.raises(PluginError, match=told) as caught:
        game.act("shape")
    assert caught.value.plugin == "shaper" and caught.value.hook == "blockyard_actions"
    assert game.snapshot() == before


class SpillingClear:
    """A clearing plugin that empties a row and a cell past the board's end."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(tryfirst=True)
    def blockyard_clear(self, game: Any, board: Any, placed: int) -> Clearing:
        size = board.geo.size
        return Clearing((), board.empty(board.geo.row_masks[0] | 1 << size))


def test_a_board_built_with_a_mask_off_it_is_a_plugin_error_naming_the_hook(
        rule_file, register_plugin):
    register_plugin("spilling-clear", SpillingClear)
    ruleset = blockyard.load_ruleset(rule_file("""
        [ruleset]
        id = "spill"
        name = "Spill"
        family = "test"
        description = "a clearing plugin spilling off the board"
        [board]
        rows = 5
        cols = 5
        [pieces.dot]
        shapes = ["#"]
        [plugins.weighted-dealing]
        [plugins.spilling-clear]
        [plugins.line-scoring]
        triangular_base = 10
        """))
    game = blockyard.new_game(ruleset, seed=1, tray=["#"])
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"Board.empty: expected a mask of the 5×5 board's "
                                          r"cells .* found one with bit 25") as caught:
        game.place(0, 3, 3)
    assert caught.value.plugin == "spilling-clear" and caught.value.hook == "blockyard_clear"
    assert game.snapshot() == before


@pytest.mark.parametrize(("call", "told"), [
    (lambda b: b.empty(1 << 64), r"^Board.empty: .*found one with bit 64: a cell off the board"),
    (lambda b: b.empty(-1), r"^Board.empty: .*found the negative -1"),
    (lambda b: b.fill(1 << 70, 1), r"^Board.fill: .*found one with bit 70"),
    (lambda b: b.fill(1.0, 1), r"^Board.fill: .*found float 1.0"),
    (lambda b: b.fill(1, 0), r"^Board.fill: colour: expected a colour index from 1 to 255"),
    (lambda b: b.fill(1, 256), r"^Board.fill: colour: expected a colour index from 1 to 255"),
])
def test_a_boards_fill_and_empty_take_masks_of_its_cells_only(call, told):
    board = Board(geometry(8, 8), 0b1011)
    with pytest.raises(ValueError, match=told):
        call(board)
    assert board.empty(0b11).bits == 0b1000 and board.fill(1 << 63, 2).colours[63] == 2
