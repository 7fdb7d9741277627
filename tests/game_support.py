"""Games the tests play to their end, and a chosen start worth forging (a nearly
full eu-classic board and a tray of the longest pieces): shared by the headless
game-check tests and the server's."""

from __future__ import annotations

import blockyard

NEARLY_FULL = "\n".join([".........."] + ["#########."] * 9)
LONG_PIECES = ["##########", "/".join("#" * 10), "#"]


def played_out(game: blockyard.Game) -> blockyard.Game:
    """``game`` played to its end with the first legal placement each time."""
    while not game.over:
        moves = game.legal_moves()
        if not moves:
            game.end_round()
            break
        game.place(*moves[0])
    return game
