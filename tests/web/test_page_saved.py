"""A game in progress survives a reload (saved in the browser after every move), and
after one visit the page plays offline (its service worker): docs/web.md.
Every board and score read is the engine's, run here."""

from __future__ import annotations

from typing import Any

from web_support import (
    READY_MS,
    board_cells,
    engine_cells,
    tray_pieces,
    wait_for_ghost,
    wait_for_score,
)

import blockyard


def place_with_keys(page: Any, game: blockyard.TrayGame, slot: int, row: int, col: int) -> None:
    """Choose ``slot`` with its key, walk its ghost from the middle of the board to
    ``(row, col)`` with the arrows and place it with Enter; the engine too."""
    piece = game.tray[slot]
    assert piece is not None
    page.keyboard.press(str(slot + 1))
    r, c = (game.rows - piece.height) // 2, (game.cols - piece.width) // 2
    wait_for_ghost(page, r, c, fits=game.can_place(slot, r, c))
    for _ in range(abs(row - r)):
        page.keyboard.press("ArrowDown" if row > r else "ArrowUp")
    for _ in range(abs(col - c)):
        page.keyboard.press("ArrowRight" if col > c else "ArrowLeft")
    wait_for_ghost(page, row, col, fits=True)
    page.keyboard.press("Enter")
    game.place(slot, row, col)
    wait_for_score(page, game.score)


def shows(page: Any, game: blockyard.TrayGame) -> None:
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    wait_for_score(page, game.score)
    assert board_cells(page) == engine_cells(game)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]


def test_a_game_comes_back_after_a_reload_and_plays_offline(site_url: str,
                                                            new_page: Any) -> None:
    page = new_page(360, 640)
    page.goto(f"{site_url}play/eu-classic?seed=8")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    game = blockyard.new_game("eu-classic", seed=8)
    place_with_keys(page, game, *game.legal_moves()[-1])
    page.wait_for_selector("body[data-saved='1']", timeout=READY_MS)
    page.reload()
    shows(page, game)
    # the service worker keeps the page and the engine: the network gone, it plays on
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=READY_MS)
    page.context.set_offline(True)
    page.reload()
    shows(page, game)
    place_with_keys(page, game, *game.legal_moves()[0])
    assert board_cells(page) == engine_cells(game)
    # the launcher, then the same ruleset again: the game in progress, not a new one
    page.goto(site_url)
    page.click("[data-testid=ruleset][data-ruleset-id=eu-classic]", timeout=READY_MS)
    shows(page, game)
