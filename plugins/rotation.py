"""``rotation``: the player may turn a tray piece 90° clockwise, as often as
wanted, before placing it (arcadeforge-rotate, docs/rules.md §6.2)."""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.actions import ActionSpec
from blockyard.hookspecs import hookimpl
from blockyard.params import Params


class Rotation:
    """Turning is free, so turning is a rescue whenever some turn of a tray
    piece fits **(our choice)**: the game is not over while a rotation would
    save it."""

    name = "rotation"
    PARAMETERS: ClassVar[dict[str, str]] = {}

    def __init__(self, params: Params) -> None:
        pass

    def perform(self, game: Any, slot: int) -> None:
        game.set_slot(slot, game.tray[slot].rotated())

    def rescue(self, game: Any) -> bool:
        for piece in game.tray:
            if piece is None:
                continue
            turned = piece.rotated()
            for _ in range(3):
                if turned != piece and game.piece_fits_somewhere(turned):
                    return True
                turned = turned.rotated()
        return False

    @hookimpl
    def blockyard_actions(self, ruleset: Any) -> list[ActionSpec]:
        return [ActionSpec(
            "rotate", "Rotate", self.perform, key="r", takes_slot=True, confirm=False,
            available=lambda game: any(p is not None for p in game.tray),
            rescue=self.rescue, help="Turn a piece in the tray a quarter turn clockwise.")]
