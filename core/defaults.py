"""The engine's own answers to the rule hooks, asked after every plugin's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .actions import ActionSpec
from .hookspecs import hookimpl
from .pieces import PieceFamily
from .results import Clearing, Scoring

if TYPE_CHECKING:
    from .ruleset import Ruleset

def _end_round(game: Any) -> None:
    game.end_game("ended")


class CoreDefaults:
    """The engine's own answers, asked last: board size from ``[board]``, pieces
    from ``[pieces]``, nothing clears, nothing scores; and the one action every
    game has, "end round"."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    @hookimpl(trylast=True)
    def blockyard_board_size(self, ruleset: Ruleset) -> tuple[int, int]:
        board = ruleset.data["board"]
        return (board["rows"], board["cols"])

    @hookimpl(tryfirst=True)
    def blockyard_piece_families(self, ruleset: Ruleset) -> list[PieceFamily]:
        return list(ruleset.file_families)

    @hookimpl(trylast=True)
    def blockyard_clear(self, game: Any, board: Any, placed: int) -> Clearing:
        return Clearing((), board)

    @hookimpl(trylast=True)
    def blockyard_score(self, game: Any, move: Any) -> Scoring:
        return Scoring(0, 0)

    @hookimpl(tryfirst=True)
    def blockyard_actions(self, ruleset: Ruleset) -> list[ActionSpec]:
        return [ActionSpec("end", "End round", _end_round, key="e", confirm=True, ends_game=True,
                           help="End the game now and count the score.")]

