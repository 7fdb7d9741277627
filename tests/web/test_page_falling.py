"""Sudoku Bloxx in the page: the falling stone steered with the keys and dropped,
its fall run by the engine's clock; every stone the page shows is the engine's,
the engine here rebuilding the game from the page's own saved log."""

from __future__ import annotations

import json
from typing import Any

from web_support import READY_MS

import blockyard

SHOWN_AND_SAVED = """async () => {
  const moves = () => document.body.dataset.saved;
  const before = moves();
  const cells = [...document.querySelectorAll("[data-testid=board] [data-testid=cell]")]
    .map(c => [+c.dataset.row, +c.dataset.col, c.dataset.stone || ""]);
  const score = document.querySelector("[data-testid=score]").textContent;
  const store = await import("./store.mjs");
  const record = await store.loadGame("sudoku-bloxx");
  return { before, after: moves(), cells, score, snapshot: record.snapshot };
}"""
"""The board and score the page shows and the game it saved, read together (the
stones go on falling meanwhile: read again when a stone landed in between)."""


def shown_and_saved(page: Any) -> tuple[list[list[str]], str, blockyard.FallingGame]:
    """The page's stones and score, and the game it saved rebuilt by the engine,
    of the same moment."""
    for _attempt in range(10):
        read = page.evaluate(SHOWN_AND_SAVED)
        played = blockyard.restore(json.loads(read["snapshot"]))
        assert isinstance(played, blockyard.FallingGame)
        if read["before"] == read["after"] == str(played.moves):
            board = [[""] * played.cols for _ in range(played.rows)]
            for row, col, stone in read["cells"]:
                board[row][col] = stone
            return board, read["score"], played
    raise AssertionError("the page never held still long enough to be read")


def test_a_stone_steered_and_dropped_with_the_keys_lands_as_the_engine_says(
        site_url: str, new_page: Any) -> None:
    page = new_page(360, 640)
    page.goto(f"{site_url}play/sudoku-bloxx?seed=6")
    page.wait_for_selector("[data-testid=cell][data-falling]", timeout=READY_MS)
    assert page.locator("[data-testid=tray-slot]").count() == 0
    game = blockyard.new_game("sudoku-bloxx", seed=6)
    assert isinstance(game, blockyard.FallingGame) and game.current is not None
    assert page.get_attribute("[data-testid=cell][data-falling]", "data-falling") == \
        game.current.stone.char
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-saved='1']", timeout=READY_MS)
    board, score, played = shown_and_saved(page)
    steered = [entry for entry in played.log if entry[0] != "tick"]
    assert steered[1:4] == [["move", -1], ["move", -1], ["hard"]]
    # the engine here, steered alike: the stone lands where the page shows it
    game.move(-1)
    game.move(-1)
    landed = game.hard_drop()
    stone = played.board[landed.row][landed.col]
    assert stone is not None and board[landed.row][landed.col] == stone.char
    # and every stone the page shows is the engine's (rebuilt from the page's log)
    assert board == [["" if c is None else c.char for c in row] for row in played.board]
    assert score == str(played.score)
