"""Blockyard: a pluggable framework for block-puzzle games.

The headless API (``docs/api.md``)::

    import blockyard
    game = blockyard.new_game("eu-classic", seed=7)
    slot, row, col = game.legal_moves()[0]
    result = game.place(slot, row, col)
"""

from __future__ import annotations

from . import challenge, files, gamecheck, records, replays, testing
from .actions import Action, ActionSpec
from .discovery import RulesetInfo, list_rulesets, load_ruleset
from .errors import DataError, IllegalMove, PluginError, RulesetError
from .falling import FallingGame as FallingGame
from .game import Game, new_game, replay, restore
from .geometry import Region
from .hookspecs import hookimpl, hookspec
from .pieces import Piece, PieceFamily
from .registry import register_plugin, unregister_plugin
from .results import MoveResult
from .rng import daily_seed
from .ruleset import Ruleset
from .tray import TrayGame
from .version import __version__ as __version__

__all__ = [
    "Action",
    "ActionSpec",
    "DataError",
    "Game",
    "IllegalMove",
    "MoveResult",
    "Piece",
    "PieceFamily",
    "PluginError",
    "Region",
    "Ruleset",
    "RulesetError",
    "RulesetInfo",
    "TrayGame",
    "challenge",
    "daily_seed",
    "files",
    "gamecheck",
    "hookimpl",
    "hookspec",
    "list_rulesets",
    "load_ruleset",
    "new_game",
    "records",
    "register_plugin",
    "replay",
    "replays",
    "restore",
    "testing",
    "unregister_plugin",
]
