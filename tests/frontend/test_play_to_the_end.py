"""Every tray ruleset can be played to its end with the mouse alone and with the
keyboard alone, through real input events, up to the game-over screen."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView

TRAY_RULESETS = [info.id for info in blockyard.list_rulesets()
                 if blockyard.load_ruleset(info.id).mode == "tray"]
MAX_MOVES = 30  # then the round is ended by the same input method


def mouse_move(ui, view, game):
    slot, row, col = game.legal_moves()[0]
    piece = game.tray[slot]
    start = view.layout.slots[slot]
    target = view.input.drag_point(piece, row, col)
    ui.drag([(start.center_x, start.center_y), (start.center_x, start.center_y + 60), target])


def click(ui, button):
    ui.click(button.rect.center_x, button.rect.center_y)


def rescue_slot(game):
    """Stuck but not over: the slot whose piece fits after turning, if any."""
    for slot, piece in enumerate(game.tray):
        turned = piece
        for _ in range(3 if piece is not None else 0):
            turned = turned.rotated()
            if game.piece_fits_somewhere(turned):
                return slot
    return None


def play_with_mouse(ui, view, game):
    moves = 0
    while not game.over and moves < MAX_MOVES:
        if game.legal_moves():
            before = game.moves
            mouse_move(ui, view, game)
            assert game.moves == before + 1
            moves += 1
        elif game.swaps_left:  # stuck but not over: a swap is left
            click(ui, view.action_buttons["swap"])
            click(ui, view.action_buttons["swap"])
        else:  # or a turn of a piece fits: right-click turns it
            slot = rescue_slot(game)
            rect = view.layout.slots[slot]
            ui.click(rect.center_x, rect.center_y, button=3)
    if not game.over:
        click(ui, view.action_buttons["end"])
        click(ui, view.action_buttons["end"])
    if game.can_continue:
        ui.pump(40)  # the prompt ignores input for its first 0.6 s
        click(ui, view.give_up_button)


def play_with_keyboard(ui, view, game):
    moves = 0
    while not game.over and moves < MAX_MOVES:
        legal = game.legal_moves()
        if legal:
            slot = legal[0][0]
            before = game.moves
            ui.key(str(slot + 1), "Return")
            assert game.moves == before + 1
            moves += 1
        elif game.swaps_left:
            ui.key("s", "s")
        else:
            slot = rescue_slot(game)
            ui.key(str(slot + 1), "r")  # select the piece whose turn fits, and turn it
    if not game.over:
        ui.key("e", "e")
    if game.can_continue:
        ui.pump(40)  # the prompt ignores input for its first 0.6 s
        ui.key("Escape")  # pauses: the continue is not thrown away
        assert view.paused and view.prompting
        ui.key("Escape", "f")  # back to the prompt, then finish


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
@pytest.mark.parametrize("ruleset_id", TRAY_RULESETS)
def test_play_a_whole_game(ui, ruleset_id, how):
    game = ui.app.start_game(ruleset_id, seed=21)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, TrayGameView)
    (play_with_mouse if how == "mouse" else play_with_keyboard)(ui, view, game)
    assert game.over
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    assert ui.view.summary.points == game.score
    assert ui.app.records.stats(ruleset_id).games == 1
