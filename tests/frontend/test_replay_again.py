"""A finished replay offers to play the game again from its start (real clicks and
keys on Xvfb)."""

from __future__ import annotations

import blockyard
from blockyard.frontend.replay_view import ReplayView
from blockyard.replays import save_replay


def finished_game():
    game = blockyard.new_game("eu-classic", seed=7)
    for _ in range(3):
        slot, row, col = game.legal_moves()[0]
        game.place(slot, row, col)
    game.act("end")
    return game


def watch_to_the_end(ui):
    game = finished_game()
    assert ui.app.watch_replay(save_replay(game)) is None
    view = ui.view
    assert isinstance(view, ReplayView)
    ui.pump(40, dt=0.5)
    assert view.finished and view.game.board_text() == game.board_text()
    return view, game


def test_a_finished_replay_offers_from_the_start_and_plays_it_again(ui):
    view, game = watch_to_the_end(ui)
    button = view.buttons[0]
    assert button.label == "↺ From the start" and button.enabled
    ui.click(button.rect.center_x, button.rect.center_y)
    assert ui.view is view and not view.finished and view.index == 0 and view.playing
    assert view.game.moves == 0 and view.inner.game is view.game
    assert view.buttons[0].label == "❚❚ Pause"
    ui.pump(40, dt=0.5)
    assert view.finished and view.game.board_text() == game.board_text()
    ui.key("space")  # Space at the end: from the start as well
    assert view.index == 0 and view.playing and view.game.moves == 0
