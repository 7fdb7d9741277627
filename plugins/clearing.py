"""``line-clearing``: full rows and columns clear together (docs/rules.md T3), with an
optional gravity drop (docs/rules.md §6.2)."""

from __future__ import annotations

from typing import Any

from blockyard.geometry import Board, Geometry, Region
from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.results import Clearing


class LineClearing:
    """Rows and columns are regions; after a move every completed region (rows,
    columns, and any region another plugin adds) is emptied at once. With
    ``gravity = true`` the rows above a cleared row then fall by the number of
    cleared rows below them; cleared columns just become empty."""

    name = "line-clearing"

    def __init__(self, params: Params) -> None:
        self.gravity = params.boolean("gravity", False)

    @hookimpl
    def blockyard_regions(self, ruleset: Any, geometry: Geometry) -> list[Region]:
        return list(geometry.line_regions())

    @hookimpl
    def blockyard_clear(self, game: Any, board: Board, placed: int) -> Clearing:
        bits = board.bits
        full = tuple(r for r in game.ruleset.regions if bits & r.mask == r.mask)
        if not full:
            return Clearing((), board)
        union = 0
        for region in full:
            union |= region.mask
        after = board.copy()
        after.empty(union)
        drops: tuple[int, ...] = ()
        if self.gravity:
            rows = [r.index for r in full if r.kind == "row"]
            if rows:
                drops = after.collapse_rows(rows)
        return Clearing(full, after, drops)
