"""The built page (blockyard web build) in Chromium, played with the mouse: every
cell, piece and score it shows is the engine's, run here in the test's process."""

from __future__ import annotations

from typing import Any

from web_support import (
    READY_MS,
    board_cells,
    cell_box,
    engine_cells,
    tray_pieces,
    wait_for_ghost,
    wait_for_score,
)

import blockyard


def open_game(page: Any, url: str, ruleset: str, seed: int) -> None:
    page.goto(f"{url}play/{ruleset}?seed={seed}")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)


def drag_to(page: Any, slot: int, piece: blockyard.Piece, row: int, col: int) -> None:
    """Press the mouse on a tray slot and move the piece so that its top-left cell
    lands on ``(row, col)`` (the page centres a piece held by the mouse on it)."""
    start = page.locator(f"[data-testid=tray-slot][data-slot='{slot}']").bounding_box()
    first, second = cell_box(page, 0, 0), cell_box(page, 1, 1)
    pitch_x, pitch_y = second["x"] - first["x"], second["y"] - first["y"]
    x = first["x"] + (col + piece.width / 2) * pitch_x
    y = first["y"] + (row + piece.height / 2) * pitch_y
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(x, y, steps=12)


def test_a_piece_dragged_with_the_mouse_is_placed_as_the_engine_places_it(
        site_url: str, new_page: Any) -> None:
    page = new_page(1280, 800)
    open_game(page, site_url, "eu-classic", 2)
    game = blockyard.new_game("eu-classic", seed=2)
    assert page.get_attribute("[data-testid=board]", "data-rows") == str(game.rows)
    assert page.get_attribute("[data-testid=board]", "data-cols") == str(game.cols)
    assert page.text_content("[data-testid=version]") == blockyard.__version__
    for _ in range(4):
        assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
        slot, row, col = game.legal_moves()[-1]
        piece = game.tray[slot]
        assert piece is not None
        expected = game.preview(slot, row, col)
        drag_to(page, slot, piece, row, col)
        wait_for_ghost(page, row, col, fits=True)
        if expected.points:
            assert page.text_content("[data-testid=points]") == f"+{expected.points:,}"
        page.mouse.up()
        game.place(slot, row, col)
        wait_for_score(page, game.score)
        page.wait_for_selector("[data-testid=ghost]", state="detached", timeout=READY_MS)
        assert board_cells(page) == engine_cells(game)


def test_a_piece_dropped_where_it_does_not_fit_goes_back_to_the_tray(
        site_url: str, new_page: Any) -> None:
    page = new_page(1280, 800)
    open_game(page, site_url, "eu-classic", 5)
    game = blockyard.new_game("eu-classic", seed=5)
    # a piece of more than one cell at the bottom-right corner hangs off the board
    slot, piece = next((i, p) for i, p in enumerate(game.tray) if p is not None and p.size > 1)
    row, col = game.rows - 1, game.cols - 1
    assert not game.can_place(slot, row, col)
    drag_to(page, slot, piece, row, col)
    wait_for_ghost(page, row, col, fits=False)
    assert page.locator("[data-testid=points]").count() == 0
    page.mouse.up()
    page.wait_for_selector("[data-testid=ghost]", state="detached", timeout=READY_MS)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    assert board_cells(page) == engine_cells(game)
    assert page.text_content("[data-testid=score]") == "0"
