"""The layout stays usable at 720×960 (portrait) and 1280×720 (landscape)."""

from __future__ import annotations

import pytest

from blockyard.frontend.layout import game_layout
from blockyard.frontend.tray_view import TrayGameView

SIZES = [(720, 960), (1280, 720), (480, 800), (1920, 1080)]


@pytest.mark.parametrize("width, height", SIZES)
@pytest.mark.parametrize("rows, cols", [(10, 10), (8, 8), (9, 9)])
def test_board_tray_and_hud_fit_in_the_window_without_overlapping(width, height, rows, cols):
    layout = game_layout(width, height, rows, cols)
    rects = [layout.board, layout.hud, *layout.slots]
    for rect in rects:
        assert rect.left >= 0 and rect.right <= width and rect.bottom >= 0 and rect.top <= height
    for slot in layout.slots:
        assert slot.right <= layout.board.left or slot.left >= layout.board.right \
            or slot.top <= layout.board.bottom or slot.bottom >= layout.board.top
    assert layout.hud.bottom >= layout.board.top or layout.hud.left >= layout.board.right
    assert layout.cell >= 36  # big enough to hit with a finger or a mouse
    assert layout.tray_cell >= 12
    assert layout.cell_at(*layout.cell_center(rows - 1, cols - 1)) == (rows - 1, cols - 1)
    assert layout.portrait == (height >= width)


def test_the_game_screen_follows_a_resize(ui):
    game = ui.app.start_game("eu-classic", seed=3)
    ui.resize(1280, 720)
    view = ui.view
    assert isinstance(view, TrayGameView)
    assert not view.layout.portrait and view.layout.width == 1280
    x, y = view.layout.cell_center(0, 0)
    cell = view.board_section.cells[0]
    assert abs(cell.center_x - x) < 1 and abs(cell.center_y - y) < 1
    ui.key("1", "Return")
    assert game.moves == 1
