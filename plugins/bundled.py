"""Registers Blockyard's own plugins, game modes and rule files through the
``blockyard`` entry point, the same way a third-party package does."""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import Any

from blockyard.hookspecs import hookimpl
from blockyard.modes import Mode

from .clearing import LineClearing
from .dealing import WeightedDealing
from .endings import Clock, EndWhenStuck
from .falling import FallingStones
from .modes import MODES
from .rescues import Continue, Swaps, ZenRefill
from .rotation import Rotation
from .scoring import LineScoring
from .sudoku import SudokuRules, SudokuStones
from .tips import Tips

PLUGINS = (LineClearing, WeightedDealing, LineScoring, EndWhenStuck, Clock, Continue,
           ZenRefill, Swaps, Rotation, Tips, FallingStones, SudokuStones, SudokuRules)


@hookimpl
def blockyard_register_plugins(register: Callable[[str, Callable[..., Any]], None]) -> None:
    for plugin in PLUGINS:
        register(plugin.name, plugin)


@hookimpl
def blockyard_register_modes(register: Callable[[Mode], None]) -> None:
    for mode in MODES:
        register(mode)


@hookimpl
def blockyard_register_rulesets(register: Callable[[Any], None]) -> None:
    register(files("blockyard.rulesets"))
