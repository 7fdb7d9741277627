"""``line-scoring``: points per move from data (docs/rules.md §3.3, §4.2, §5.3, §6.2).

``points = cells + line_points(L) × multiplier(combo) + streak_bonus × (combo − 1)
+ perfect`` for a move that clears ``L ≥ 1`` regions, and ``cells`` for a move
that clears nothing. Parameters:

``line_points`` + ``extra_line_points``
    points for L = 1, 2, …; each line beyond the list adds ``extra_line_points``
    (eu: ``[100, 250, 500, 1000]`` + 500).
``triangular_base``
    instead of a list: ``base × L × (L + 1) / 2`` (tiered, nepal, gravity: 10).
``multipliers``
    factor for combo 1, 2, …; the last one holds beyond (eu ``[1, 1.5, 2, 2.5, 3]``,
    tiered ``[1, 2, 3, 4, 5]``; default ``[1]``). Results are rounded to whole points.
``streak_bonus``
    added per clearing move in a row beyond the first (nepal: 20).
``reset_after_misses``
    the combo counter returns to 0 at this many moves in a row that clear
    nothing (eu, nepal: 1; tiered: 3).
``perfect_clear``
    added, not multiplied, when a clear leaves the board empty.
"""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.results import MoveFacts, Scoring

NAME = "line-scoring"


class LineScoring:
    """Points per move from data: cells, line points times the combo
    multiplier, a streak bonus and a perfect-clear bonus (see the module)."""

    name = NAME
    PARAMETERS: ClassVar[dict[str, str]] = {
        "line_points": "points for clearing 1, 2, … regions with one move",
        "extra_line_points": "points added for each region beyond the line_points list",
        "triangular_base": "instead of line_points: base × L × (L + 1) / 2 for L regions",
        "multipliers": "factor for the 1st, 2nd, … clearing move in a row; the last holds",
        "streak_bonus": "points per clearing move in a row beyond the first",
        "reset_after_misses": "moves in a row that clear nothing before the combo resets",
        "perfect_clear": "points added when a clear leaves the board empty",
    }

    def __init__(self, params: Params) -> None:
        has_list = params.has("line_points")
        has_base = params.has("triangular_base")
        if has_list == has_base:
            raise params.error("line_points", "give exactly one of line_points (a list) "
                               "or triangular_base (a number)")
        if has_list:
            self.table = [int(x) for x in params.numbers("line_points", minimum=0, integers=True)]
            self.extra = params.integer("extra_line_points", 0, minimum=0)
            self.base = 0
        else:
            self.base = params.integer("triangular_base", minimum=0)
            self.table = []
            self.extra = 0
        self.multipliers = params.numbers("multipliers", [1], minimum=0)
        if max(self.multipliers) > 1000:
            raise params.error("multipliers", "expected factors of at most 1000")
        self.streak_bonus = params.integer("streak_bonus", 0)
        self.reset_after = params.integer("reset_after_misses", 1, minimum=1)
        self.perfect = params.integer("perfect_clear", 0, minimum=0)

    def line_points(self, lines: int) -> int:
        """Base points for clearing ``lines`` regions with one move."""
        if lines <= 0:
            return 0
        if not self.table:
            return self.base * lines * (lines + 1) // 2
        if lines <= len(self.table):
            return self.table[lines - 1]
        return self.table[-1] + self.extra * (lines - len(self.table))

    def multiplier(self, combo: int) -> float:
        """The factor for the ``combo``-th clearing move."""
        return self.multipliers[min(combo, len(self.multipliers)) - 1]

    @hookimpl
    def blockyard_game_start(self, game: Any) -> None:
        game.state[NAME] = {"misses": 0}

    @hookimpl
    def blockyard_score(self, game: Any, move: MoveFacts) -> Scoring:
        if move.lines:
            combo = move.combo + 1
            points = (move.cells + round(self.line_points(move.lines) * self.multiplier(combo))
                      + self.streak_bonus * (combo - 1))
            if move.perfect_clear:
                points += self.perfect
            return Scoring(points, combo, {NAME: {"misses": 0}})
        misses = move.state.get(NAME, {}).get("misses", 0) + 1
        combo = 0 if misses >= self.reset_after else move.combo
        return Scoring(move.cells, combo, {NAME: {"misses": misses}})
