"""A table's accepted moves on the client's mirror of a seat's game
(:func:`blockyard.online.mirror_move`): the same game as the server's, including
a seat finished by an ``["end"]`` after its game was over."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.online import mirror_divergence, mirror_move


def stuck_game() -> blockyard.Game:
    game = blockyard.new_game("eu-classic", seed=3)
    while not game.over:
        game.place(*game.legal_moves()[0])
    assert game.over_reason == "stuck" and [a.name for a in game.actions()] == ["continue"]
    return game


def test_an_end_after_the_end_finishes_the_seat_and_changes_nothing() -> None:
    game = stuck_game()
    before = game.snapshot()
    mirror_move(game, ["end"])  # the player declined to continue: the server's seat is done
    assert game.snapshot() == before
    assert mirror_divergence(game, game.score, True) is None


def test_other_moves_are_applied_as_the_engine_applies_them() -> None:
    game = stuck_game()
    mirror_move(game, ["continue"])
    assert not game.over and game.log[-1] == ["continue"]
    running = blockyard.new_game("eu-classic", seed=3)
    mirror_move(running, ["end"])
    assert running.over_reason == "ended"
    with pytest.raises(blockyard.IllegalMove):
        mirror_move(running, ["continue"])  # refused here: the mirror went another way
