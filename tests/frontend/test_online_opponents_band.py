"""The opponents' band of a live table, as it showed at 1280×720: the opponent's
name was about 12 px high, their small board had no grid and touched the
window's bottom edge. Read back from the screen at the sizes of the fit checks."""

from __future__ import annotations

import pytest
from online_support import SIZES, QuietLive, close, resize

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.online.table_view import (
    BAND_MARGIN,
    READABLE,
    LiveDuelView,
    LiveFallingView,
    live_view,
)
from blockyard.tablesession import TableSession


def live_table(ruleset_id: str, seats: list[str | None], name: str = "me") -> TableSession:
    table = TableSession(QuietLive(), name, "")
    table.take({"type": "table", "id": 12, "ruleset_id": ruleset_id, "seed": 5,
                "seats": seats, "status": "playing", "round": 1})
    return table


def background_rows(ui, rect, rows: int) -> bool:
    """Whether the ``rows`` lowest pixel rows under ``rect`` show the window's
    background (the board does not touch the bottom edge)."""
    image = ui.screenshot()
    height = ui.window.height
    for y in range(rows):
        for x in (rect.left + 2, rect.center_x, rect.right - 2):
            px = image.getpixel((round(x), height - 1 - y))[:3]
            if not close(px, theme.BACKGROUND):
                return False
    return True


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_opponents_name_is_readable_and_their_board_has_a_grid_and_a_margin(ui, size):
    ui.app.show_launcher()
    ui.pump(1)
    table = live_table("eu-classic", ["me", "bob_the_opponent"])
    theirs = blockyard.new_game("eu-classic", seed=5)
    move = ["place", *theirs.legal_moves()[0]]
    theirs.apply(move)
    view = LiveDuelView(ui.app.session(), table, lambda: None)
    ui.window.show_view(view)
    resize(ui, *size)
    table.take({"type": "move", "seat": 1, "action": move, "score": theirs.score,
                "over": False})
    view._sync_table()
    ui.pump(2)
    [rect] = view.band_rects
    [label] = view.band_texts
    assert label.text == f"bob_the_opponent: {theirs.score}"
    # the name is read, not guessed at: 15 points (20 px), never the 12 px it was
    assert label.font_size >= READABLE and label.content_height >= 20
    # above its board, inside the band, and the band below the player's own board
    assert label.y >= rect.top and label.y + label.content_height <= view.reserve_bottom + 1
    assert view.layout.board.bottom >= view.reserve_bottom - 1
    # a margin under the board: the lowest rows of the window are the background
    assert rect.bottom >= BAND_MARGIN
    assert background_rows(ui, rect, int(BAND_MARGIN) - 2)
    # the grid: the board's colour between two empty cells, the empty colour inside
    game = table.games[1]
    cell = rect.width / game.cols
    empty = next((r, c) for r in range(game.rows) for c in range(game.cols - 1)
                 if not game.board[r][c] and not game.board[r][c + 1])
    r, c = empty
    centre_y = rect.top - (r + 0.5) * cell
    assert close(ui.pixel(rect.left + (c + 0.5) * cell, centre_y), theme.EMPTY_CELL)
    assert close(ui.pixel(rect.left + (c + 1) * cell, centre_y), theme.BOARD_BG)
    # the cells the opponent filled show in their piece's colour
    filled = next((r, c) for r in range(game.rows) for c in range(game.cols)
                  if game.board[r][c])
    fr, fc = filled
    colour = theme.piece_colour(game.grid.colours[fr * game.cols + fc] or 1)
    assert close(ui.pixel(rect.left + (fc + 0.5) * cell, rect.top - (fr + 0.5) * cell),
                 colour)


def test_a_full_table_of_eight_fits_its_names_in_the_band(ui):
    ui.app.show_launcher()
    ui.pump(1)
    seats: list[str | None] = ["me", *[f"player_number_{i}" for i in range(1, 8)]]
    table = live_table("eu-classic", seats)
    view = LiveDuelView(ui.app.session(), table, lambda: None)
    ui.window.show_view(view)
    resize(ui, 1280, 720)
    view._sync_table()
    assert len(view.band_rects) == 7
    slot = 1280 / 7
    for rect, label in zip(view.band_rects, view.band_texts, strict=True):
        assert label.content_width <= slot - 8 + 1 and label.font_size >= 9
        assert rect.bottom >= BAND_MARGIN and rect.top <= view.reserve_bottom
    for a, b in zip(view.band_rects, view.band_rects[1:], strict=False):
        assert a.right < b.left  # side by side, apart


def test_a_falling_tables_small_boards_have_the_margin_too(ui):
    ui.app.show_launcher()
    ui.pump(1)
    table = live_table("sudoku-bloxx", ["me", "you"], name="watcher")
    view = live_view(ui.app.session(), table, lambda: None)
    assert isinstance(view, LiveFallingView)
    ui.window.show_view(view)
    resize(ui, 1280, 720)
    [rect] = view.band_rects
    [label] = view.band_texts
    assert label.font_size >= READABLE and rect.bottom >= BAND_MARGIN
    assert background_rows(ui, rect, int(BAND_MARGIN) - 2)
