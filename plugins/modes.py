"""Blockyard's own game modes, ``"tray"`` and ``"falling"``, as
:class:`~blockyard.modes.Mode` records; :mod:`blockyard.plugins.bundled`
registers them through ``blockyard_register_modes``, exactly as a third-party
package registers its own."""

from __future__ import annotations

from blockyard import botbase, testing, validate
from blockyard.errors import RulesetError
from blockyard.falling import FallingGame
from blockyard.modes import AreaWords, Mode
from blockyard.ruleset import Ruleset
from blockyard.tray import TrayGame


def check_tray_ruleset(ruleset: Ruleset) -> None:
    """A tray game needs pieces to deal."""
    if not ruleset.pieces:
        raise RulesetError("the ruleset has no pieces", path=ruleset.where, key="pieces")


def check_falling_ruleset(ruleset: Ruleset) -> None:
    """A falling game needs a plugin that says how stones fall."""
    if not ruleset.hooks.impl_names("falling_rules"):
        raise RulesetError("a falling game needs a plugin that sets how stones fall, "
                           "such as [plugins.falling-stones]", path=ruleset.where,
                           key="plugins")


TRAY = Mode(
    name="tray",
    engine=TrayGame,
    view="blockyard.frontend.tray_view:TrayGameView",
    checks=testing.TRAY_CHECKS,
    bot_steps=botbase.tray_bot_steps,
    bot_fallback=botbase.tray_bot_fallback,
    move_actions=frozenset({"place"}),
    engine_actions={"place": 3, "tick": 1},
    area_words=AreaWords("Lines", "{n} line cleared", "{n} lines cleared"),
    has_tray=True,
    snapshot_fields=("tray",),
    check_snapshot=validate.check_tray_fields,
    check_ruleset=check_tray_ruleset,
)
"""Place pieces from a tray of three (eu, tiered, nepal, gravity)."""

FALLING = Mode(
    name="falling",
    engine=FallingGame,
    view="blockyard.frontend.sudoku_view:SudokuView",
    checks=testing.FALLING_CHECKS,
    bot_steps=botbase.falling_bot_steps,
    bot_fallback=botbase.falling_bot_fallback,
    move_actions=frozenset({"hard"}),
    engine_actions={"move": 1, "soft": 1, "hard": 0, "tick": 1},
    area_words=AreaWords("Areas", "{n} area completed", "{n} areas completed"),
    realtime=True,
    given_board=True,
    check_snapshot=validate.check_falling_fields,
    check_ruleset=check_falling_ruleset,
)
"""Steer one falling stone at a time (sudoku-bloxx)."""

MODES = (TRAY, FALLING)
