"""An action aimed at a board cell (issue 36), played in the window like a
placement: its key or button starts the aiming, the pointer or the arrows move
the mark, what it would change glows, a click or Enter takes it, Esc cancels, a
cell its plugin refuses buzzes and the aiming goes on. The example hammer
(examples/hammer), and an action aimed at the selected tray piece and a cell
(``trade``), driven by real input events and checked on screen."""

from __future__ import annotations

import time

import pytest
from aimed_plugins import Trade

import blockyard
from blockyard.frontend import theme

BOARD = "\n".join(["##........", *["." * 10] * 9])


def on_screen(ui, ruleset):
    game = blockyard.new_game(ruleset, seed=1, board=BOARD)
    ui.app.show_game(game)
    ui.pump(3)
    return ui.view, game


def test_the_hammer_is_aimed_and_taken_with_the_keyboard(ui, hammer):
    view, game = on_screen(ui, hammer)
    ui.key("b")
    control = view.input
    assert control.aiming == "hammer" and control.aim_cell in ((0, 0), (0, 1))
    assert "Hammer: choose a cell" in view.message
    start = control.aim_cell
    ui.key("Right" if start == (0, 0) else "Left")
    other = (0, 1) if start == (0, 0) else (0, 0)
    assert control.aim_cell == other and control.aim_ok
    assert control.aim_cells == frozenset({other})  # the plugin's preview glows
    assert len(view.board_section.glow) == 1 and len(view.board_section.ghost) == 1
    ui.key("Down")  # an empty cell: the mark shows it cannot go there
    assert control.aim_cell == (1, other[1]) and not control.aim_ok
    ui.key("Return")
    assert game.log[-1][0] != "hammer" and control.aiming == "hammer"  # refused, still aiming
    ui.key("Up", "Return")
    assert game.log[-1] == ["hammer", *other]
    assert control.aiming is None and game.state["hammer"]["left"] == 2


def test_the_hammer_is_taken_with_the_mouse_and_esc_cancels(ui, hammer):
    view, game = on_screen(ui, hammer)
    layout = view.layout
    ui.key("b")
    ui.key("Escape")
    assert view.input.aiming is None and view.__class__.__name__ == "TrayGameView"
    ui.key("b")
    ui.move(*layout.cell_center(0, 1))
    assert view.input.aim_cell == (0, 1) and view.input.aim_ok
    ui.click(*layout.cell_center(0, 1))
    assert game.log[-1] == ["hammer", 0, 1]
    assert game.board_text().splitlines()[0] == "#........."


# -- an action aimed at a tray piece and a board cell ("cell+slot") ---------------------

def blend(top, bottom, alpha):
    return tuple(round(t * alpha / 255 + b * (1 - alpha / 255)) for t, b in
                 zip(top[:3], bottom[:3], strict=True))


def near(actual, expected, tolerance=10):
    return all(abs(a - e) <= tolerance for a, e in zip(actual[:3], expected[:3], strict=True))


@pytest.fixture
def trade(rule_file, register_plugin):
    register_plugin("trade", Trade)
    return blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "trade"\nname = "Trade"\n[plugins.trade]\n'))


TRADE_BOARD = "\n".join([*["." * 10] * 3, "##.#......", *["." * 10] * 6])


def test_a_cell_and_slot_action_is_aimed_at_the_selected_piece_with_keys_and_mouse(ui, trade):
    view, game = ui.show_game(trade, board=TRADE_BOARD, tray=["#", "##"])
    control, cell = view.input, view.layout.cell_center
    filled = theme.NEUTRAL  # the start board's cells
    assert not near(ui.pixel(*cell(3, 3)), theme.EMPTY_CELL, 30)
    ui.key("t")  # no piece selected: the action says so and does not aim
    assert control.aiming is None and "Select a piece first" in view.message
    ui.key("2", "t")
    assert control.aiming == "trade" and control.selected == 1
    assert "Trade: choose a cell" in view.message
    assert control.aim_cell == (3, 0) and control.aim_ok  # the middle allowed target
    ui.key("Right")  # column 1: its plugin does not allow it; the mark is dark
    assert control.aim_cell == (3, 1) and not control.aim_ok and not control.aim_cells
    assert near(ui.pixel(*cell(3, 1)), blend(theme.NO_FIT, filled, theme.NO_FIT[3]))
    ui.key("Return")  # refused: a buzz, still aiming, nothing taken
    assert control.aiming == "trade" and game.log[-1][0] != "trade"
    assert "not possible there (row 4, column 2)" in view.message
    ui.key("Right", "Right")  # (3, 3): allowed; the cell its preview names glows
    assert control.aim_cell == (3, 3) and control.aim_ok
    assert control.aim_cells == frozenset({(3, 3)})
    glowing = blend(theme.GLOW, filled, theme.GLOW[3])
    assert near(ui.pixel(*cell(3, 3)), blend(theme.ACCENT, glowing, theme.GHOST_ALPHA))
    ui.key("Return")
    assert game.log[-1] == ["trade", 1, 3, 3] and control.aiming is None
    assert game.tray[1] is None and game.board_text().splitlines()[3] == "##........"
    assert near(ui.pixel(*cell(3, 3)), theme.EMPTY_CELL)  # broken, on screen
    # with the mouse: a tap on the tray piece, the key, then a click on the cell
    rect = view.layout.slots[0]
    ui.click(rect.center_x, rect.center_y)
    assert control.selected == 0
    ui.key("t")
    ui.move(*cell(3, 0))
    assert control.aim_cell == (3, 0) and control.aim_ok
    ui.click(*cell(3, 0))
    assert game.log[-1] == ["trade", 0, 3, 0]
    assert game.board_text().splitlines()[3] == ".#........"
    assert near(ui.pixel(*cell(3, 0)), theme.EMPTY_CELL)
    assert near(ui.pixel(*cell(3, 1)), filled)  # the cell its plugin refused is still there


def test_a_hint_to_use_the_hammer_marks_the_cell_the_search_would_break(ui, hammer):
    # row 0 lacks (0, 1) only and the tray holds a domino: the search breaks a
    # neighbour of the gap, then the domino completes the row
    start = "\n".join(["#.########", *["." * 10] * 9])
    view, game = ui.show_game(hammer, board=start, tray=["##"])
    target_before = {cell: ui.pixel(*view.layout.cell_center(*cell)) for cell in ((0, 0), (0, 2))}
    ui.key("h")  # the window's hint key: the hammer's own key is another (B)
    hint = view.input.hint
    assert view.input.aiming is None and hint.active
    deadline = time.monotonic() + 60  # the search thinks over frames: a deadline on it
    while not hint.done:
        assert time.monotonic() < deadline, "no hint within 60 s"
        ui.pump(1)
    action = hint.action()
    assert action is not None and action[0] == "hammer" and hint.placement() is None
    assert tuple(action[1:]) in game.action_targets("hammer")
    row, col = action[1:]
    assert "Hint: Hammer" in view.message
    section = view.board_section
    assert len(section.hint_sprites) == 1 and len(section.hint_outline) == 4
    x, y = view.layout.cell_center(row, col)
    assert section.hint_sprites[0].center_x == x and section.hint_sprites[0].center_y == y
    assert ui.pixel(x, y) != target_before[row, col]  # marked on screen
    other = (0, 2) if (row, col) == (0, 0) else (0, 0)
    assert ui.pixel(*view.layout.cell_center(*other)) == target_before[other]
    assert game.moves == 0 and game.log[-1][0] == "start"  # the hint changed nothing
