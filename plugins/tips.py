"""``tips``: the tip of the end-of-round summary, chosen from the end position
(docs/rules.md §4.5). The conditions are code; the wording and which pieces count as
"big" are parameters."""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.hookspecs import hookimpl
from blockyard.params import Params


class Tips:
    name = "tips"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "big_pieces": "piece families that need a free 3×3 area",
        "unused_swap": "tip when the round ended with a swap left",
        "big_piece": "tip when a big piece did not fit",
        "holes": "tip when the board has one-cell holes",
        "general": "tip otherwise",
    }

    def __init__(self, params: Params) -> None:
        self.big_pieces = params.raw("big_pieces", [])
        if not isinstance(self.big_pieces, list) or not all(
                isinstance(x, str) for x in self.big_pieces):
            raise params.error("big_pieces", "expected an array of piece family names")
        self.unused_swap = params.string("unused_swap", "A swap was still available: "
                                         "a swap deals three new pieces.")
        self.big_piece = params.string("big_piece", "Keep a 3×3 corner free for the big pieces.")
        self.holes = params.string("holes", "Avoid one-cell holes: no piece but the single "
                                   "block fills them.")
        self.general = params.string("general", "Clear lines early and keep the middle open.")

    @hookimpl
    def blockyard_check_ruleset(self, ruleset: Any) -> None:
        names = {f.name for f in ruleset.families}
        for i, name in enumerate(self.big_pieces):
            if name not in names:
                from blockyard.errors import RulesetError

                raise RulesetError(f"unknown piece family {name!r}", path=ruleset.path,
                                   key=f"plugins.tips.big_pieces[{i}]")

    @hookimpl
    def blockyard_summary_tips(self, game: Any, summary: dict[str, Any]) -> list[str]:
        tips = []
        if game.over_reason == "ended" and game.swaps_left > 0:
            tips.append(self.unused_swap)
        if any(p.family in self.big_pieces for p in summary["failed_pieces"]):
            tips.append(self.big_piece)
        if isolated_holes(game):
            tips.append(self.holes)
        tips.append(self.general)
        return tips


def isolated_holes(game: Any) -> int:
    """How many empty cells have no empty neighbour (above, below, left, right)."""
    board = game.board
    rows, cols = game.rows, game.cols
    count = 0
    for r in range(rows):
        for c in range(cols):
            if board[r][c]:
                continue
            neighbours = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if all(not (0 <= rr < rows and 0 <= cc < cols) or board[rr][cc]
                   for rr, cc in neighbours):
                count += 1
    return count
