"""The page played by finger and by clicks (docs/web.md, "For players"): a piece
dragged by a finger floats above it and lands where its ghost stood; a click on a
piece and then on a cell places it there. Each move is checked against the engine
run here."""

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

LIFT_CELLS = 1.25  # the page's lift of a piece above the finger (frontend/web/app.mjs)


def open_game(page: Any, url: str, ruleset: str, seed: int) -> None:
    page.goto(f"{url}play/{ruleset}?seed={seed}")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)


def touch(session: Any, kind: str, x: float, y: float) -> None:
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
    session.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_a_finger_drags_a_piece_that_floats_above_it(site_url: str, new_page: Any) -> None:
    page = new_page(360, 640, touch=True)
    open_game(page, site_url, "eu-classic", 4)
    game = blockyard.new_game("eu-classic", seed=4)
    session = page.context.new_cdp_session(page)
    for _ in range(2):
        slot, row, col = game.legal_moves()[len(game.legal_moves()) // 2]
        piece = game.tray[slot]
        assert piece is not None
        start = page.locator(f"[data-testid=tray-slot][data-slot='{slot}']").bounding_box()
        first, second = cell_box(page, 0, 0), cell_box(page, 1, 1)
        pitch_x, pitch_y = second["x"] - first["x"], second["y"] - first["y"]
        # the finger below the piece: its bottom floats LIFT_CELLS cells above it
        x = first["x"] + (col + piece.width / 2) * pitch_x
        y = first["y"] + (row + piece.height + LIFT_CELLS) * pitch_y
        x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
        touch(session, "touchStart", x0, y0)
        for step in range(1, 13):
            touch(session, "touchMove", x0 + (x - x0) * step / 12, y0 + (y - y0) * step / 12)
        wait_for_ghost(page, row, col, fits=True)
        floating = page.locator("[data-testid=floating]").bounding_box()
        assert floating is not None and floating["y"] + floating["height"] < y
        touch(session, "touchEnd", x, y)
        game.place(slot, row, col)
        wait_for_score(page, game.score)
        page.wait_for_selector("[data-testid=ghost]", state="detached", timeout=READY_MS)
        assert board_cells(page) == engine_cells(game)
        assert tray_pieces(page) == [p.id if p else "" for p in game.tray]


def test_a_click_on_a_piece_then_on_a_cell_places_it(site_url: str, new_page: Any) -> None:
    page = new_page(1280, 800)
    open_game(page, site_url, "woodoku", 6)
    game = blockyard.new_game("woodoku", seed=6)
    slot, row, col = game.legal_moves()[0]
    piece = game.tray[slot]
    assert piece is not None
    page.click(f"[data-testid=tray-slot][data-slot='{slot}']")
    # the piece is centred on the cell under the mouse: (height - 1) // 2 rows above it
    target = cell_box(page, row + (piece.height - 1) // 2, col + (piece.width - 1) // 2)
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
    wait_for_ghost(page, row, col, fits=True)
    page.mouse.click(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
    game.place(slot, row, col)
    wait_for_score(page, game.score)
    assert board_cells(page) == engine_cells(game)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
