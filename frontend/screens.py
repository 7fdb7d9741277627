"""Which screen plays which kind of game: a table, not a chain of ifs.

A new game kind (a plugin's ``kind``) gets its screen by an entry in
:data:`GAME_VIEWS`; the app, the replay viewer and the language switch all
find it here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .game_screen import GameScreen

GAME_VIEWS: dict[str, tuple[str, str]] = {
    "tray": ("tray_view", "TrayGameView"),
    "falling": ("sudoku_view", "SudokuView"),
}
"""The game screen of each game kind: (module of this package, class)."""


def game_view(kind: str) -> type[GameScreen]:
    """The screen class that plays games of ``kind``."""
    try:
        module, name = GAME_VIEWS[kind]
    except KeyError:
        raise ValueError(f"no game screen for games of kind {kind!r} "
                         f"(known kinds: {', '.join(sorted(GAME_VIEWS))})") from None
    screen: type[GameScreen] = getattr(importlib.import_module(f".{module}", __package__), name)
    return screen


__all__ = ["GAME_VIEWS", "game_view"]
