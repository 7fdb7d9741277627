"""Which screen plays which kind of game: the mode's record says, not a chain of ifs.

Every registered game mode (:class:`blockyard.modes.Mode`) names its screen as
a dotted path (``"blockyard.frontend.tray_view:TrayGameView"``), which core
cannot import; :func:`game_view` imports it. The app, the replay viewer and
the language switch all find a game's screen here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from blockyard.registry import get_mode

if TYPE_CHECKING:
    from .game_screen import GameScreen


def game_view(kind: str) -> type[GameScreen]:
    """The screen class that plays games of the mode named ``kind`` (``game.kind``).
    ``ValueError`` for a mode nobody registered, or whose screen cannot be
    imported or is not a game screen."""
    from .game_screen import GameScreen

    try:
        mode = get_mode(kind)
    except KeyError as exc:
        raise ValueError(f"no game screen for games of kind {kind!r}: "
                         f"{exc.args[0]}") from None
    module_name, _, name = mode.view.partition(":")
    try:
        screen = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"mode {kind!r}: its screen {mode.view!r} cannot be imported: "
                         f"{exc}") from None
    if not isinstance(screen, type) or not issubclass(screen, GameScreen):
        raise ValueError(f"mode {kind!r}: its screen {mode.view!r} is not a GameScreen")
    return screen


__all__ = ["game_view"]
