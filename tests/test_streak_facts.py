"""The streak before the move in the facts a scoring rule gets
(``TrayFacts.streak_before``): counted by the engine, whatever the scoring
plugin keeps as its combo, and documented in MODDING.md's table of facts."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.params import Params
from blockyard.results import LandingFacts, TrayFacts

RULES = """
[ruleset]
id = "streaks"
name = "Streaks"
family = "test"
description = "dots on a 6×6 board; a miss keeps the combo once"
[board]
rows = 6
cols = 6
[tray]
slots = 4
[pieces.dot]
shapes = ["#"]
[pieces.square]
shapes = ["##/##"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
reset_after_misses = 2
[plugins.end-when-stuck]
[plugins.seen]
"""

BOARD = "\n".join(["#####.", "#####.", "......", "#####.", "......", "......"])

SEEN: dict[int, tuple[int, int]] = {}


class Seen:
    """Records, per move number, the combo and the streak the scoring hook is told."""

    def __init__(self, params: Params) -> None:
        self.fail_at = params.integer("fail_at", 0)

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        SEEN[game.moves] = (move.combo, move.streak_before)
        return scoring

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        if self.fail_at and game.moves == self.fail_at:
            raise RuntimeError("end rule failed")
        return None


@pytest.fixture
def streaks(rule_file, register_plugin):
    SEEN.clear()
    register_plugin("seen", Seen)
    return blockyard.load_ruleset(rule_file(RULES))


def test_the_scorer_is_told_the_streak_before_each_move(streaks):
    game = blockyard.new_game(streaks, seed=1, board=BOARD, tray=["dot:#"] * 4)
    assert game.streak == 0
    game.place(0, 0, 5)   # clears row 0
    game.place(1, 1, 5)   # clears row 1
    assert game.streak == 2
    game.place(2, 5, 0)   # clears nothing: the streak is broken, the combo kept
    assert game.streak == 0 and game.combo == 2
    game.place(3, 3, 5)   # clears row 3
    assert game.streak == 1
    # (combo, streak_before) per move: line-scoring forgives one miss, the streak does not
    assert SEEN == {0: (0, 0), 1: (1, 1), 2: (2, 2), 3: (2, 0)}


def test_preview_clone_replay_and_restore_keep_the_streak(streaks):
    game = blockyard.new_game(streaks, seed=1, board=BOARD, tray=["dot:#"] * 4)
    game.place(0, 0, 5)
    twin = game.clone()
    assert game.preview(1, 1, 5).points == twin.preview(1, 1, 5).points
    assert game.streak == 1
    twin.place(1, 1, 5)
    assert twin.streak == 2 and game.streak == 1  # the clone plays on alone
    assert blockyard.replay(json.loads(json.dumps(twin.log))).streak == 2
    assert blockyard.restore(json.loads(json.dumps(twin.snapshot()))).streak == 2


def test_a_move_that_fails_leaves_the_streak_as_it_was(rule_file, register_plugin):
    register_plugin("seen", Seen)
    ruleset = blockyard.load_ruleset(rule_file(RULES.replace("[plugins.seen]",
                                                             "[plugins.seen]\nfail_at = 2")))
    game = blockyard.new_game(ruleset, seed=1, board=BOARD, tray=["dot:#"] * 4)
    game.place(0, 0, 5)
    before = game.snapshot()
    with pytest.raises(blockyard.PluginError, match="end rule failed"):
        game.place(1, 1, 5)
    assert game.streak == 1 and game.snapshot() == before


def test_facts_built_by_hand_default_to_no_streak():
    ruleset = blockyard.load_ruleset("eu-classic")
    dot = ruleset.pieces[0]
    facts = TrayFacts(dot, dot.size, (), 0, False, 0, {}, 0, 0, 1, ruleset.geometry)
    assert facts.streak_before == 0
    assert TrayFacts(dot, dot.size, (), 0, False, 0, {}, 0, 0, 1, ruleset.geometry,
                     streak_before=3).streak_before == 3
    landing = LandingFacts(stone=None, cell=None, dropped=0, error=False, discarded=True,
                           regions=(), state={})
    assert landing.streak_before == 0


def _facts_table() -> str:
    text = (Path(__file__).resolve().parents[1] / "MODDING.md").read_text(encoding="utf-8")
    section = text.split("### The facts a scoring rule gets", 1)[1].split("\n### ", 1)[0]
    return section


def _members(cls: type) -> set[str]:
    fields = {f.name for f in dataclasses.fields(cls)}
    properties = {name for name, value in vars(cls).items() if isinstance(value, property)}
    return fields | properties


@pytest.mark.parametrize("cls", [TrayFacts, LandingFacts])
def test_modding_md_lists_every_fact(cls):
    table = _facts_table()
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    named = {name.strip("` ") for row in rows for name in row.split("|")[1].split(",")}
    assert _members(cls) <= named, _members(cls) - named
    row = next(r for r in rows if r.startswith("| `streak_before` |"))
    assert "how many moves in a row just before this one completed a region" in row
