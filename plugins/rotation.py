"""``rotation``: the player may turn a tray piece 90° clockwise, as often as
wanted, before placing it (arcadeforge-rotate, docs/rules.md §6.2)."""

from __future__ import annotations

from typing import Any

from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.pieces import Piece


class Rotation:
    """Turning is free, so a piece counts as fitting when any turn of it fits
    **(our choice)**: the game is not over while a rotation would save it."""

    name = "rotation"

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_rotate(self, game: Any, piece: Piece) -> Piece:
        return piece.rotated()

    @hookimpl
    def blockyard_alternatives(self, game: Any, piece: Piece) -> list[Piece]:
        turns = []
        current = piece
        for _ in range(3):
            current = current.rotated()
            if current != piece and current not in turns:
                turns.append(current)
        return turns
