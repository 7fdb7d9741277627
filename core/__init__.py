"""Blockyard: a pluggable framework for block-puzzle games.

The headless API (``shared/API.md``)::

    import blockyard
    game = blockyard.new_game("eu-classic", seed=7)
    slot, row, col = game.legal_moves()[0]
    result = game.place(slot, row, col)
"""

from __future__ import annotations

from .errors import IllegalMove, PluginError, RulesetError
from .game import Game, new_game, replay, restore
from .hookspecs import hookimpl, hookspec
from .pieces import Piece, PieceFamily
from .results import MoveResult
from .rng import daily_seed
from .rulefiles import Ruleset, RulesetInfo, list_rulesets, load_ruleset
from .tray import TrayGame

__version__ = "0.1.0"

from . import challenge, files, records, replays, testing

__all__ = [
    "Game",
    "IllegalMove",
    "MoveResult",
    "Piece",
    "PieceFamily",
    "PluginError",
    "Ruleset",
    "RulesetError",
    "RulesetInfo",
    "TrayGame",
    "challenge",
    "daily_seed",
    "files",
    "hookimpl",
    "hookspec",
    "list_rulesets",
    "load_ruleset",
    "new_game",
    "records",
    "replay",
    "replays",
    "restore",
    "testing",
]
