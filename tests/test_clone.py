"""``Game.clone()``: an independent game, equal in ``snapshot()``, sharing only
what never changes (ruleset, boards, pieces, log entries)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import blockyard
from blockyard.bots import get_bot
from blockyard.testing import _choose_falling, _choose_tray

RULESETS = ["eu-classic", "eu-timed", "eu-zen", "tiered", "tiered-gravity", "nepal-new",
            "arcadeforge-rotate", "woodoku", "sudoku-bloxx"]


def random_action(game, rnd):
    """A random legal action (the conformance kit's choice), or None."""
    choose = _choose_falling if game.kind == "falling" else _choose_tray
    return choose(game, rnd)


def play(game, rnd, count):
    for _ in range(count):
        action = random_action(game, rnd)
        if action is None:
            return
        try:
            game.apply(action)
        except blockyard.IllegalMove:
            return


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(RULESETS), st.integers(0, 2**31), st.integers(0, 60),
       st.integers(1, 60))
def test_a_clone_is_equal_and_independent(ruleset_id, seed, before, after):
    rnd = random.Random(seed)
    game = blockyard.new_game(ruleset_id, seed=seed)
    play(game, rnd, before)
    original = game.snapshot()
    twin = game.clone()
    assert type(twin) is type(game)
    assert twin.snapshot() == original
    # play on the clone: the original is unchanged
    play(twin, random.Random(seed + 1), after)
    assert game.snapshot() == original
    # and the original, played the same way, reaches the clone's position
    replayed = blockyard.restore(original)
    play(replayed, random.Random(seed + 1), after)
    assert replayed.snapshot() == twin.snapshot()
    # play on the original: the clone's position is unchanged
    position = twin.snapshot()
    play(game, random.Random(seed + 2), after)
    assert twin.snapshot() == position


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "tiered", "eu-zen", "sudoku-bloxx"])
def test_a_clone_shares_the_immutable_parts_and_copies_the_containers(ruleset_id):
    game = blockyard.new_game(ruleset_id, seed=4)
    get_bot("greedy").play(game, max_moves=12)
    twin = game.clone()
    assert twin.ruleset is game.ruleset and twin.grid is game.grid
    assert twin.log is not game.log and twin.log == game.log
    assert all(a is b for a, b in zip(twin.log, game.log, strict=True))  # entries shared
    assert twin.state == game.state and twin.state is not game.state
    for name, entry in game.state.items():
        if isinstance(entry, dict):
            assert twin.state[name] is not entry
    if game.kind == "tray":
        assert twin._tray is not game._tray and twin._info is not game._info
        assert all(a is b for a, b in zip(twin.tray, game.tray, strict=True))
    else:
        assert twin.queue is not game.queue and twin.queue == game.queue


def test_plugin_state_deeper_than_a_table_is_copied_deeply():
    game = blockyard.new_game("eu-classic", seed=1)
    game.state["deep"] = {"list": [1, [2, 3]], "table": {"a": {"b": 1}}}
    game.state["flat"] = [1, 2]
    twin = game.clone()
    twin.state["deep"]["list"][1].append(4)
    twin.state["deep"]["table"]["a"]["b"] = 2
    twin.state["flat"].append(3)
    assert game.state["deep"] == {"list": [1, [2, 3]], "table": {"a": {"b": 1}}}
    assert game.state["flat"] == [1, 2]


def test_ticks_on_a_clone_leave_the_originals_log_alone():
    """A tick after a tick grows the last log entry: the clone's entry is a new
    one, not the shared entry changed in place."""
    game = blockyard.new_game("eu-timed", seed=2)
    game.tick(1.0)
    entry = list(game.log[-1])
    twin = game.clone()
    twin.tick(2.5)
    assert game.log[-1] == entry and twin.log[-1] == ["tick", 3_500_000]
    assert blockyard.replay(twin.log).snapshot() == twin.snapshot()


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "sudoku-bloxx"])
def test_bots_never_change_the_game_they_look_at(ruleset_id):
    game = blockyard.new_game(ruleset_id, seed=6)
    get_bot("greedy").play(game, max_moves=5)
    before = game.snapshot()
    for name in ("random", "greedy", "search"):
        get_bot(name).choose(game)
        assert game.snapshot() == before
