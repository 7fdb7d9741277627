"""The Hint (H key and Hint button): the search bot's move as a pulsing ghost,
found a little each frame, counted in the summary, off where the rules say so."""

from __future__ import annotations

import blockyard
from blockyard.bots import get_bot
from blockyard.frontend.hint import STEP_BUDGET_MS, hints_allowed
from blockyard.frontend.tray_view import TrayGameView

EMPTY = ".........."


def start(ui, ruleset="eu-classic", seed=3):
    game = ui.app.start_game(ruleset, seed=seed)
    ui.pump(3)
    assert isinstance(ui.view, TrayGameView)
    return ui.view, game


def test_h_shows_the_search_bots_move_as_a_ghost_on_the_board(ui):
    view, game = start(ui)
    expected = get_bot("search").choose(game)
    assert expected[0] == "place"
    before = ui.screenshot()
    ui.key("h")
    frames = 1
    while view.input.hint.placement() is None:
        ui.pump(1)
        frames += 1
        assert frames <= 100 / STEP_BUDGET_MS, "no hint within 100 ms of thinking"
    assert ("place", *view.input.hint.placement()) == expected
    after = ui.screenshot()
    slot, row, col = view.input.hint.placement()
    changed = 0
    for r, c in game.tray[slot].cells:
        x, y = view.layout.cell_center(row + r, col + c)
        xy = (round(x), ui.window.height - 1 - round(y))
        changed += before.getpixel(xy)[:3] != after.getpixel(xy)[:3]
    assert changed == len(game.tray[slot].cells)
    assert game.moves == 0  # the hint changed nothing
    assert ui.app.playing.hints == 1


def test_the_hint_button_works_and_the_hint_goes_when_the_game_moves_on(ui):
    view, game = start(ui, seed=5)
    ui.click(view.hint_button.rect.center_x, view.hint_button.rect.center_y)
    for _ in range(40):
        ui.pump(1)
    assert view.input.hint.placement() is not None
    slot, row, col = view.input.hint.placement()
    game.place(slot, row, col)
    view.refresh()
    ui.pump(2)
    assert not view.input.hint.active and view.input.hint.placement() is None


def test_hints_used_are_counted_in_the_summary(ui):
    _view, _game = start(ui, seed=7)
    ui.key("h")
    ui.key("h")
    assert ui.app.playing.hints == 2
    ui.key("e", "e")  # end the round, confirmed
    ui.pump(60)
    summary = ui.view.summary
    assert summary.hints == 2
    assert any(text.text == "Hints used: 2" for text in ui.view.texts)
    history = ui.app.records.history("eu-classic")
    assert history[0].hints == 2


def test_daily_rules_switch_hints_off(ui):
    daily = blockyard.load_ruleset("eu-daily")
    assert not hints_allowed(daily, in_duel=False)
    assert hints_allowed(blockyard.load_ruleset("eu-classic"), in_duel=False)
    assert not hints_allowed(blockyard.load_ruleset("eu-classic"), in_duel=True)
    view, _game = start(ui, ruleset="eu-daily")
    assert view.hint_button not in view.hud_buttons
    ui.key("h")
    ui.pump(5)
    assert not view.input.hint.active and view.message == "Hints are off in this game"


def test_the_hint_is_outlined_on_the_board_and_its_tray_piece_is_marked(ui):
    """On a board of the hinted piece's own colour the ghost alone would not show:
    its outline does, and the tray slot of the piece is outlined too."""
    from blockyard.frontend import theme

    view, game = start(ui, seed=3)
    ui.key("h")
    for _ in range(100):
        if view.input.hint.placement() is not None:
            break
        ui.pump(1)
    slot, row, col = view.input.hint.placement()
    piece = game.tray[slot]
    image = ui.screenshot()
    cell = view.layout.cell
    height = ui.window.height

    def at(x, y):
        return image.getpixel((round(x), height - 1 - round(y)))[:3]

    text = theme.TEXT[:3]
    r, c = min(piece.cells)  # a top cell: its top edge is an outer edge of the piece
    x, y = view.layout.cell_center(row + r, col + c)
    assert at(x, y + cell / 2 - 1) == text  # on the outline
    assert at(x, y) != text                   # inside: the pulsing ghost
    rect = view.layout.slots[slot]
    assert view.input.hinted_slot == slot
    assert at(rect.center_x, rect.top - 4) == text  # the hinted slot's frame
    for other in range(3):
        if other != slot:
            other_rect = view.layout.slots[other]
            assert at(other_rect.center_x, other_rect.top - 4) != text
