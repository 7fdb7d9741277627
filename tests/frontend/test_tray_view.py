"""The tray game screen, driven by real mouse and keyboard events (xdotool on Xvfb)
and checked on screenshots."""

from __future__ import annotations

import pytest

from blockyard.frontend import theme
from blockyard.frontend.rulewords import game_title, ruleset_name
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import LIFT_CELLS

EMPTY = ".........."


def drop_point(view, row, col, piece, dx=0.0):
    """Where the pointer must be for the floating piece to snap to ``(row, col)``."""
    x, y = view.input.drag_point(piece, row, col)
    return (x + dx * view.layout.cell, y)


def blend(top, bottom, alpha):
    return tuple(round(t * alpha / 255 + b * (1 - alpha / 255)) for t, b in
                 zip(top[:3], bottom[:3], strict=True))


def near(actual, expected, tolerance=8):
    return all(abs(a - e) <= tolerance for a, e in zip(actual[:3], expected[:3], strict=True))


def slot_center(view, slot):
    rect = view.layout.slots[slot]
    return rect.center_x, rect.center_y


def test_dragging_a_piece_onto_the_board_places_it_and_scores(ui):
    board = "\n".join(["#........."] + [EMPTY] * 8 + ["#########."])
    view, game = ui.show_game(board=board, tray=["#", "##", "###"])
    start = slot_center(view, 0)
    end = drop_point(view, 9, 9, game.tray[0])
    middle = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    ui.drag([start, middle, end])
    assert game.tray[0] is None
    assert game.score == 1 + 100
    assert game.board_text().splitlines()[9] == EMPTY
    assert view.score_text.text == "101"


def test_dropping_on_an_illegal_spot_returns_the_piece(ui):
    board = "\n".join(["##########"[:5] + "....."] + [EMPTY] * 9)
    view, game = ui.show_game(board=board, tray=["##", "#", None])
    start = slot_center(view, 0)
    ui.drag([start, (start[0], start[1] + 100), drop_point(view, 0, 2, game.tray[0])])
    assert game.tray[0] is not None and game.moves == 0
    ui.drag([slot_center(view, 0), (start[0] + 40, start[1] + 30)])  # back over the tray
    assert game.tray[0] is not None and game.moves == 0 and view.input.dragging is None


def test_ghost_and_glow_show_where_the_piece_would_land_and_what_would_clear(ui):
    board = "\n".join(["#........."] + [EMPTY] * 8 + ["#######..."])
    view, game = ui.show_game(board=board, tray=["###", None, "#"])
    piece = game.tray[0]
    start = slot_center(view, 0)
    target = drop_point(view, 9, 7, piece, dx=0.4)
    ui.move(*start)
    ui.xdo("mousedown", "1")
    ui.move(start[0], start[1] + 150)
    ui.move(*target)
    assert view.input.anchor == (9, 7)
    assert view.input.preview.cleared_rows == (9,) and view.input.preview.points == 3 + 100
    image = ui.screenshot()
    cell = view.layout.cell

    def at(row, col, fx=0.5):
        x, y = view.layout.cell_center(row, col)
        x += (fx - 0.5) * cell
        return image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]

    colour = theme.piece_colour(piece.colour)
    glowing_empty = blend(theme.GLOW, theme.EMPTY_CELL, theme.GLOW[3])
    # the ghost's left cell (where the floating piece, 0.4 cell to the right, is not):
    # the ghost drawn over a glowing empty cell
    assert near(at(9, 7, fx=0.25), blend(colour, glowing_empty, theme.GHOST_ALPHA))
    # the rest of row 9 glows: filled cells lightened
    filled = theme.NEUTRAL  # cells of the starting position
    assert near(at(9, 2), blend(theme.GLOW, filled, theme.GLOW[3]))
    # row 8 does not glow
    assert near(at(8, 2), theme.EMPTY_CELL)
    assert view.board_section.preview_text.text == "+103"
    ui.xdo("mouseup", "1")
    assert game.score == 103


def test_tap_to_place_the_ghost_follows_the_pointer_then_a_click_places(ui):
    view, game = ui.show_game(tray=["##", None, None])
    ui.click(*slot_center(view, 0))
    assert view.input.selected == 0 and game.moves == 0
    x, y = view.layout.cell_center(4, 4)
    ui.move(x, y)
    assert view.input.anchor == (4, 4)  # a 1×2 piece under the pointer: anchored on its first cell
    colour = theme.piece_colour(game.tray[0].colour)
    assert near(ui.pixel(*view.layout.cell_center(4, 5)),
                blend(colour, theme.EMPTY_CELL, theme.GHOST_ALPHA))
    x, y = view.layout.cell_center(6, 2)
    ui.move(x, y)
    assert view.input.anchor == (6, 2)
    ui.click(x, y)
    assert game.board_text().splitlines()[6] == "..##......"
    assert game.score == 2


def test_keyboard_select_move_and_place(ui):
    view, game = ui.show_game(tray=["#", "##/##", "#"])
    ui.key("2")
    assert view.input.selected == 1
    row, col = view.input.key_anchor
    ui.key("Left", "Left", "Up")
    assert view.input.key_anchor == (max(0, row - 1), max(0, col - 2))
    target = view.input.key_anchor
    ui.key("Return")
    assert game.tray[1] is None
    lines = game.board_text().splitlines()
    assert lines[target[0]][target[1]:target[1] + 2] == "##"
    ui.key("3", "space")
    assert game.tray[2] is None


def test_keyboard_keeps_the_ghost_inside_the_board(ui):
    view, _game = ui.show_game(tray=["#####", None, None])
    ui.key("1")
    for _ in range(12):
        ui.key("Right")
    assert view.input.key_anchor[1] == 5  # 10 columns, a 5-wide piece
    for _ in range(12):
        ui.key("Down")
    assert view.input.key_anchor[0] == 9


def test_a_dimmed_piece_cannot_be_picked_up(ui):
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)
    view, game = ui.show_game(board=board, tray=["##", "#", None])
    assert game.fit_masks()[0] == 0 and not game.over
    x, y = slot_center(view, 0)
    pixel = ui.pixel(x - view.layout.tray_cell / 2, y)  # drawn at low alpha
    colour = theme.piece_colour(game.tray[0].colour)
    assert near(pixel, blend(colour, theme.BACKGROUND, 70), tolerance=14)
    ui.drag([(x, y), (x, y + 200), view.layout.cell_center(0, 1)])
    assert view.input.dragging is None and game.tray[0] is not None and game.moves == 0
    assert "fits nowhere" in view.message
    ui.key("1")
    assert view.input.selected is None


def test_game_over_screen_shows_the_pieces_that_did_not_fit(ui):
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)
    view, game = ui.show_game(board=board, tray=["#", "###/###/###", "##"])
    x, y = view.layout.cell_center(0, 1)
    ui.click(*slot_center(view, 0))
    ui.click(x, y)
    assert game.over and game.can_continue  # eu: a continue is offered once
    ui.pump(40)  # the prompt ignores input for its first 0.6 s
    button = view.give_up_button.rect
    ui.click(button.center_x, button.center_y)
    ui.pump(3)
    summary_view = ui.view
    assert isinstance(summary_view, SummaryView)
    assert [p.art for p in summary_view.summary.failed_pieces] == ["###\n###\n###", "##"]
    texts = [t.text for t in summary_view.texts]
    assert "Did not fit:" in texts and "1 point" in texts  # one point, singular
    assert summary_view.tip.text.startswith("Tip: ")
    square = summary_view.pieces[0]
    assert near(ui.pixel(square.center_x, square.center_y),
                theme.piece_colour(game.tray[1].colour))
    ui.key("Escape")
    from blockyard.frontend.launcher import LauncherView

    assert isinstance(ui.view, LauncherView)


def test_continue_is_offered_once_in_eu_and_taken_with_a_click(ui):
    rows = ["##.#####.#"] * 10
    for r in (1, 4, 8):
        rows[r] = "#.########"
    view, game = ui.show_game(board="\n".join(rows), tray=["#####", None, None])
    assert game.over and game.can_continue
    button = view.dialog.buttons["continue"].rect
    ui.click(button.center_x, button.center_y)  # at once: a click meant for the board
    assert game.over
    ui.key("Return")
    assert game.over
    ui.pump(40)  # 0.6 s later the prompt answers
    ui.click(button.center_x, button.center_y)
    assert not game.over and game.board_text().splitlines()[8] == EMPTY


def test_swap_needs_a_second_click_to_confirm(ui):
    view, game = ui.show_game(ruleset="tiered", seed=3)
    before = game.tray
    rect = view.action_buttons["swap"].rect
    ui.click(rect.center_x, rect.center_y)
    assert game.tray == before and game.swaps_left == 1 and view.input.armed == "swap"
    assert view.action_buttons["swap"].label == "Swap?"
    text = view.action_buttons["swap"].text
    assert text.content_width <= rect.width and text.content_height <= rect.height
    ui.click(rect.center_x, rect.center_y)
    assert game.swaps_left == 0 and game.log[-1] == ["swap"]
    assert view.input.armed != "swap"


def test_swap_by_keyboard_asks_first_and_another_key_cancels(ui):
    view, game = ui.show_game(ruleset="tiered", seed=3)
    ui.key("s")
    assert view.input.armed == "swap" and game.swaps_left == 1
    ui.key("1")
    assert view.input.armed != "swap" and game.swaps_left == 1
    ui.key("s", "s")
    assert game.swaps_left == 0


def test_right_click_rotates_in_arcadeforge_rotate(ui):
    view, game = ui.show_game(ruleset="arcadeforge-rotate", tray=["#./#./##", None, None])
    ui.click(*slot_center(view, 0), button=3)
    assert game.tray[0].art == "###\n#.."
    ui.key("1", "r")
    assert game.tray[0].art == "##\n.#\n.#"


def test_gravity_rows_fall_after_a_clear(ui):
    board = "\n".join(["#......."] + ["........"] * 6 + ["#######."])
    view, game = ui.show_game(ruleset="arcadeforge", board=board, tray=["#", None, None])
    ui.key("1")
    view.input.key_anchor = (7, 7)
    ui.key("Return")
    assert game.board_text().splitlines()[1] == "#......."
    assert view.board_section.fall_age < 0.2  # the fall animation runs
    ui.pump(20)
    x, y = view.layout.cell_center(1, 0)
    cell = view.board_section.cells[8]
    assert abs(cell.center_y - y) < 0.5 and abs(cell.center_x - x) < 0.5


def test_escape_pauses_with_resume_restart_and_launcher(ui):
    view, _game = ui.show_game()
    ui.key("Escape")
    assert view.paused
    ui.key("Escape")
    assert not view.paused
    ui.key("Escape", "Down", "Down", "Return")
    from blockyard.frontend.launcher import LauncherView

    assert isinstance(ui.view, LauncherView)


def test_the_clock_runs_in_timed_rulesets(ui):
    view, game = ui.show_game(ruleset="eu-timed")
    ui.pump(60)
    left = game.time_left
    assert 178 < left < 180
    assert view.clock_text.text == f"{int(left) // 60}:{int(left) % 60:02d}"


def sprite_box(sprites):
    return (min(s.left for s in sprites), max(s.right for s in sprites),
            min(s.bottom for s in sprites), max(s.top for s in sprites))


def test_the_dragged_piece_floats_above_its_ghost_never_over_it(ui):
    """Every piece, dragged to every spot of the board (pointer anywhere in the cell
    that makes it snap there): the lifted piece is wholly above its ghost, at
    LIFT_CELLS above the pointer, and the pointer is on the board."""
    view, game = ui.show_game(tray=["#", None, None])
    board = view.layout.board
    cell = view.layout.cell
    for piece in game.ruleset.pieces:
        for row in range(game.rows - piece.height + 1):
            for col in range(game.cols - piece.width + 1):
                x, y = view.input.drag_point(piece, row, col)
                for dy in (-0.45, 0.0, 0.45):
                    pointer = (x + 0.3 * cell, y + dy * cell)
                    assert board.contains(*pointer)
                    assert view.input.drop_anchor(piece, *pointer) == (row, col)
                    _left, top = view.input.lifted_at(piece, *pointer)
                    ghost_top = board.top - row * cell
                    assert top - piece.height * cell >= ghost_top + 0.25 * cell - 1e-6
                    assert abs(top - piece.height * cell - pointer[1] - LIFT_CELLS * cell) < 1e-6


def test_while_dragging_the_ghost_shows_below_the_piece(ui):
    view, game = ui.show_game(tray=["###\n#..", None, None])
    piece = game.tray[0]
    start = slot_center(view, 0)
    target = drop_point(view, 8, 3, piece)  # the bottom rows: the pointer on the board
    assert view.layout.board.contains(*target)
    ui.move(*start)
    ui.xdo("mousedown", "1")
    ui.move(start[0], start[1] + 150)
    ui.move(*target)
    assert view.input.anchor == (8, 3)
    ghost = sprite_box(view.board_section.ghost)
    lifted = sprite_box(view.tray_section.drag_sprites)
    assert lifted[2] >= ghost[3] + 0.25 * view.layout.cell - 1  # wholly above it
    image = ui.screenshot()
    x, y = view.layout.cell_center(8, 4)  # a ghost cell, seen as the ghost
    seen = image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]
    colour = theme.piece_colour(piece.colour)
    assert near(seen, blend(colour, theme.EMPTY_CELL, theme.GHOST_ALPHA))
    ui.xdo("mouseup", "1")
    assert game.board_text().splitlines()[8] == "...###...."


def test_long_ruleset_titles_wrap_or_are_cut_but_stay_readable_at_480x640(ui):
    ui.show_game()
    ui.resize(480, 640)
    for ruleset_id in ("eu-classic", "tiered", "nepal-today", "arcadeforge-rotate",
                       "tiered-gravity"):
        view, game = ui.show_game(ruleset=ruleset_id)
        title = view.title_text
        layout = view.layout
        hud = layout.hud
        assert title.font_size * 96 / 72 >= 12  # pixels
        assert title.content_width <= hud.width
        title_bottom = title.y - title.content_height
        for button in view.hud_buttons:  # beside the buttons, or above them
            assert button.rect.left >= title.x + title.content_width - 1 \
                or button.rect.top <= title_bottom + 1 or button.rect.right <= title.x
        full = game_title(game)
        name = ruleset_name(game.ruleset)
        tail = full[len(name):]  # a daily game's date: kept whole, on a line of its own
        tail = "\n" + tail.strip(" ·") if tail else ""
        text = title.text
        assert text.endswith(tail)
        shown = text[:len(text) - len(tail)]
        assert shown == name or (shown.endswith("…") and name.startswith(shown[:-1]))


def test_fit_title_uses_two_lines_before_cutting(ui):
    from blockyard.frontend.text import Text
    from blockyard.frontend.tray_view import TITLE_SMALLEST, fit_title

    text = Text("", 0, 0, theme.TEXT, 12, multiline=True, width=100)
    fit_title(text, "Short", 200, 20)
    assert text.text == "Short" and text.font_size == 20
    long = "A rather long ruleset name for the little heads-up display"
    fit_title(text, long, 150, 20)
    assert text.font_size >= TITLE_SMALLEST and text.content_width <= 150
    one_line = Text("Ag", 0, 0, theme.TEXT, text.font_size).content_height
    assert text.content_height <= 2 * one_line + 1
    assert text.text == long or text.text.endswith("…")
    fit_title(text, long, 150, 20, tail="  ·  30 Nov 2026")  # the tail stays whole
    assert text.text.endswith("…  ·  30 Nov 2026") and long.startswith(text.text[:-17])
    fit_title(text, "Two words", 50, 14)  # wraps rather than shrinking below the smallest
    assert text.text == "Two words" and text.font_size >= TITLE_SMALLEST
    assert text.content_width <= 50


@pytest.mark.parametrize("ruleset_id", ["eu-daily", "nepal-today"])
def test_a_daily_title_is_whole_and_readable_at_720(ui, ruleset_id):
    view, game = ui.show_game(ruleset=ruleset_id)
    title = view.title_text
    name = ruleset_name(game.ruleset)
    date = game_title(game)[len(name):].strip(" ·")
    assert title.text == f"{name}\n{date}"  # nothing cut, the date on its own line
    assert title.font_size * 96 / 72 >= 20  # pixels: as large as a title, not a footnote
    assert title.content_width <= view.layout.hud.width / 2
    image = ui.screenshot().convert("RGB")  # drawn: ink in the title's box
    top = image.height - 1 - round(title.y)
    box = image.crop((round(title.x), top, round(title.x + title.content_width),
                      top + round(title.content_height)))
    background = image.getpixel((2, image.height // 2))
    assert sum(1 for p in box.getdata() if p != background) > 200
