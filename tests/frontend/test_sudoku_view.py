"""Sudoku Bloxx on screen with real key events."""

from __future__ import annotations

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.summary_view import SummaryView


def show(ui, **kwargs):
    game = blockyard.new_game("sudoku-bloxx", seed=kwargs.pop("seed", 1), **kwargs)
    ui.app.show_game(game)
    ui.pump(2)
    assert isinstance(ui.view, SudokuView)
    return ui.view, game


def test_keys_move_and_hard_drop(ui):
    view, game = show(ui, stream="5 6 7")
    ui.key("Left", "Left")
    assert game.current.col == 2
    ui.key("space")
    assert game.board_text().splitlines()[8] == "..5......"
    assert game.score == 19
    x, _y = view.cell_center(8, 2)
    assert abs(view.board_section.cells[8 * 9 + 2].center_x - x) < 1
    assert view.board_section.digits[8 * 9 + 2].text == "5"
    assert view.board_section.cells[8 * 9 + 2].color[:3] == theme.STONE[:3]


def test_soft_drop_while_the_down_key_is_held(ui):
    _view, game = show(ui, stream="5 6")
    ui.key_down("Down")
    assert game.soft
    ui.pump(12, dt=0.05)
    ui.key_up("Down")
    assert not game.soft
    assert game.board_text().splitlines()[8] == "....5...."


def test_an_error_is_counted_and_shown(ui):
    view, game = show(ui, stream="5 5", board="\n".join(["........."] * 8 + ["5........"]))
    ui.key("Right", "space")  # column 5, bottom row: a second 5 in row 8
    assert game.errors == 1
    assert (view.errors_text.text, view.spare_text.text) == ("✗", "··")
    ui.pump(2)  # the error made in the bad colour, the two left muted
    made, left = view.errors_text, view.spare_text
    assert made.right <= left.left + 1  # one line: made, then left
    assert (made.bottom, made.top) == (left.bottom, left.top)
    image = ui.screenshot()

    def colours(text):
        # every pixel of the text's box (its glyphs sit at different heights in
        # different fonts: the middle dot of Liberation Sans misses the centre row)
        top = ui.window.height - 1 - round(text.top)
        bottom = ui.window.height - 1 - round(text.bottom)
        box = image.crop((int(text.left), top, int(text.right), bottom))
        return {pixel[:3] for pixel in box.getdata()}

    assert theme.BAD[:3] in colours(made) and theme.MUTED[:3] not in colours(made)
    assert theme.MUTED[:3] in colours(left) and theme.BAD[:3] not in colours(left)
    assert any(label.text == "Error!" for label, _ in view.board_section.labels)


def test_a_completed_row_scores_and_pops_up(ui):
    view, game = show(ui, stream="9", board="\n".join(["........."] * 8 + ["12345678."]))
    for _ in range(4):
        ui.key("Right")
    ui.key("space")
    assert game.score == 10 + 9 + 340
    assert any(label.text == "+359" for label, _ in view.board_section.labels)


def test_golden_digits_and_symbols_look_different(ui):
    view, _game = show(ui, stream="5* S 3")
    assert view.board_section.falling.color[:3] == theme.GOLDEN_STONE[:3]
    ui.key("space")
    assert view.board_section.cells[8 * 9 + 4].color[:3] == theme.GOLDEN_STONE[:3]
    ui.key("Left", "space")
    assert view.board_section.cells[8 * 9 + 3].color[:3] == theme.SYMBOL_STONE[:3]
    assert view.board_section.digits[8 * 9 + 3].text == "✦"


def test_game_over_says_why(ui):
    _view, game = show(ui, stream="5 5 5", board="\n".join(["........."] * 8 + ["5........"]))
    for _ in range(3):
        ui.key("Right", "space")
    assert game.over_reason == "errors"
    ui.pump(60)
    assert isinstance(ui.view, SummaryView)
    assert ui.view.texts[0].text == "3 errors"


def test_escape_pauses_the_clock(ui):
    _view, game = show(ui)
    ui.key("Escape")
    before = game.time_left
    ui.pump(30)
    assert game.time_left == before
    ui.key("Escape")
    ui.pump(30)
    assert game.time_left < before


def test_a_full_column_is_marked_as_the_place_to_discard(ui):
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    view, game = show(ui, board=full, stream="5")
    assert game.column_full(4) and not game.column_full(3)
    image = ui.screenshot()

    def above(col):
        x = view.board.left + (col + 0.1) * view.cell
        y = view.board.top + view.cell * 0.3
        return image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]

    assert above(4) == theme.BAD[:3]
    assert above(3) != theme.BAD[:3]
    assert view.board_section.discard_marks[4].text == "0"  # the score never goes below 0
    game.score = 500
    view.refresh()
    assert view.board_section.discard_marks[4].text == "−100"  # what a discard scores now
    # once the game is over there is nothing to discard: no mark (the play-test saw
    # "−100" stay over the result)
    game.act("end")
    view.refresh()
    ui.pump(2)
    image = ui.screenshot()
    assert above(4) != theme.BAD[:3]


def test_a_new_stone_is_drawn_inside_the_board_never_across_its_top(ui):
    view, game = show(ui, stream="5 6 7")
    board = view.board
    falling = view.board_section.falling
    assert game.current.row < 0  # it starts above the board
    for _ in range(40):  # its first fall interval and beyond, a frame at a time
        ui.pump(1, dt=0.05)
        if game.over or game.current is None:
            break
        assert falling.top <= board.top + 0.5 and falling.bottom >= board.bottom - 0.5
        text = view.board_section.current_text
        assert (text.x, text.y) == tuple(falling.position)
