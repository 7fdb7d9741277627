"""The log is the referee (issue 22, reproducers 1 and 5).

Reproducer 1: ``restore()`` believed a snapshot over its own log and accepted
impossible states of the right types. Now it plays the snapshot's log again
and refuses (``DataError`` naming the first field that differs) every state
the log does not produce.

Reproducer 5 (the headless part): a hook that loops or sleeps hung
``hard_drop`` as it hung ``new_game`` and ``place`` (those are in
tests/test_watchdog.py); with a hook time limit it is a ``PluginError``, the
game unchanged."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from typing import Any

import pytest

import blockyard
from blockyard import DataError, PluginError, hookimpl
from blockyard.params import Params


def played(ruleset: str, moves: int, seed: int = 3) -> blockyard.Game:
    game = blockyard.new_game(ruleset, seed=seed)
    for _ in range(moves):
        if game.kind == "tray":
            game.place(*game.legal_moves()[0])
        else:
            game.hard_drop()
    return game


def fill_row(snap: dict[str, Any]) -> None:
    """A full row left standing on a line-clearing board."""
    cols = 10
    for c in range(cols):
        snap["cells"][c] = snap["cells"][c] or 1
    snap["bits"] |= (1 << cols) - 1


def five_by_five(snap: dict[str, Any]) -> None:
    """A 5×5 piece the ruleset does not have, in the tray."""
    snap["tray"][0] = {"cells": [[r, c] for r in range(5) for c in range(5)], "id": "huge",
                       "family": "huge", "colour": 1}


def setter(*path: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(snap: dict[str, Any]) -> None:
        target = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


IMPOSSIBLE = [
    ("tiered", setter("state", "swaps", "left", value=999), r"state\.swaps\.left"),
    ("tiered", setter("state", "swaps", "left", value=2), r"state\.swaps\.left"),
    ("eu-classic", fill_row, "snapshot.cells|snapshot.bits"),
    ("eu-classic", setter("score", value=10**15), "snapshot.score"),
    ("eu-classic", setter("score", value=-5), "snapshot.score"),
    ("eu-classic", five_by_five, r"snapshot.tray"),
    ("eu-classic", setter("over_reason", value="stuck"), "snapshot.over_reason"),
    ("eu-classic", setter("moves", value=7), "snapshot.moves"),
    ("eu-classic", setter("combo", value=3), r"snapshot\.(best_)?combo"),
    ("eu-classic", setter("lines_cleared", value=40), "snapshot.lines_cleared"),
    ("eu-classic", setter("state", "line-scoring", "misses", value=0), "state"),
    ("sudoku-bloxx", setter("errors", value=99), "snapshot.errors"),
    ("sudoku-bloxx", setter("score", value=10**12), "snapshot.score"),
    ("sudoku-bloxx", setter("cur_col", value=0), "snapshot.cur_col"),
]


@pytest.mark.parametrize(("ruleset", "change", "field"), IMPOSSIBLE)
def test_an_impossible_snapshot_of_the_right_types_is_refused(ruleset, change, field):
    snap = played(ruleset, 6).snapshot()
    assert blockyard.restore(copy.deepcopy(snap)).snapshot() == snap
    changed = copy.deepcopy(snap)
    change(changed)
    assert changed != snap, "the change is the game's own value: pick another"
    with pytest.raises(DataError, match=field):
        blockyard.restore(changed)


class SlowStone:
    """Loops or sleeps when asked whether a landed stone may stay, from the
    second landing on."""

    def __init__(self, params: Params) -> None:
        self.how = params.string("how")

    @hookimpl(wrapper=True)
    def blockyard_accept_stone(self, game, stone, row, col):
        if game.moves >= 1:
            if self.how == "sleep":
                time.sleep(30)  # the stall under test (the watchdog ends it), not a wait
            else:
                while True:
                    pass
        return (yield)


@pytest.mark.parametrize("how", ["loop", "sleep"])
def test_a_stalling_falling_hook_stops_hard_drop_and_leaves_the_game(rule_file,
                                                                      register_plugin, how):
    register_plugin("slow-stone", SlowStone)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "sudoku-bloxx"\nid = "slow"\nname = "Slow"\n'
        f'[plugins.slow-stone]\nhow = "{how}"\n'), hook_timeout=0.2)
    game = blockyard.new_game(ruleset, seed=1)
    game.hard_drop()
    before = game.snapshot()
    started = time.monotonic()
    with pytest.raises(PluginError, match=r"blockyard_accept_stone ran longer than 0\.2 s"):
        game.hard_drop()
    assert time.monotonic() - started < 10
    assert game.snapshot() == before
