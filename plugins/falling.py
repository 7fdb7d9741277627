"""``falling-stones``: how stones fall in a falling game (docs/rules.md §7.2)."""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.results import FallingRules


class FallingStones:
    """Seconds per row (``fall_seconds``; ``soft_drop_seconds`` while soft
    dropping), the column stones appear above (``spawn_col``; if it is full, the
    nearest column that is not, left first), and how many upcoming stones are
    shown (``upcoming``)."""

    name = "falling-stones"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "fall_seconds": "seconds for a stone to fall one row",
        "soft_drop_seconds": "seconds per row while soft dropping",
        "spawn_col": "the column (0-based) stones appear above",
        "upcoming": "how many upcoming stones are shown",
    }

    def __init__(self, params: Params) -> None:
        self.rules = FallingRules(
            fall_seconds=params.number("fall_seconds", minimum=0.001, maximum=3600),
            soft_drop_seconds=params.number("soft_drop_seconds", minimum=0.001, maximum=3600),
            spawn_col=params.integer("spawn_col", minimum=0),
            upcoming=params.integer("upcoming", minimum=0, maximum=9))
        self.where, self.prefix = params.path, params.prefix

    @hookimpl
    def blockyard_falling_rules(self, ruleset: Any) -> FallingRules:
        return self.rules

    @hookimpl
    def blockyard_check_ruleset(self, ruleset: Any) -> None:
        if self.rules.spawn_col >= ruleset.cols:
            from blockyard.errors import RulesetError

            raise RulesetError(f"expected a column below {ruleset.cols}, found "
                               f"{self.rules.spawn_col}", path=self.where,
                               key=f"{self.prefix}.spawn_col")
