"""Every legal game's log stays valid however long the game: a turned piece's id
stays bounded (a turn is part of the move, not a growing name), every bundled
ruleset played far past ordinary lengths restores from each snapshot and
replays from its log, and the window's saved game of a long game loads back."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

import blockyard
from blockyard.frontend.persistence import load_saved_games, save_game, saves_dir
from blockyard.pieces import TURN, turned_id, unbounded_turn_ids
from blockyard.replays import Replay, ReplayError, replay_data
from blockyard.validate import MAX_PIECE_ID

ROTATE = "arcadeforge-rotate"
ACTIONS = 10_000
"""Actions played per bundled ruleset (new games as they end)."""
CHECKS = (1, 50, 500, 2_000, 5_000, ACTIONS)
"""After how many actions of the run the game is saved and restored."""


def round_trip(game: Any) -> Any:
    """The game restored from its snapshot written as JSON, checked to be the
    same game, and the game its log replays, checked as well; the restored game
    is returned, for playing on (so a restored game is also played further)."""
    snap = game.snapshot()
    restored = blockyard.restore(json.loads(json.dumps(snap)))
    assert restored.snapshot() == snap
    assert blockyard.replay(json.loads(json.dumps(game.log))).snapshot() == snap
    return restored


# ---------------------------------------------------------------------------
# the id of a turned piece
# ---------------------------------------------------------------------------

def test_a_turned_piece_is_named_by_the_piece_dealt_and_its_turns_modulo_four():
    rules = blockyard.load_ruleset(ROTATE)
    for piece in rules.pieces:
        turned = piece
        ids = []
        for _ in range(1_000):
            turned = turned.rotated()
            ids.append(turned.id)
        assert ids[:4] == [piece.id + TURN, piece.id + TURN * 2, piece.id + TURN * 3, piece.id]
        assert set(ids) == set(ids[:4])  # the same four names, whatever the number of turns
        assert turned.id == piece.id and turned == piece and turned.cells == piece.cells
    assert turned_id("L-1+r+r+r+r+r") == "L-1+r+r"  # an earlier engine's id, counted
    assert turned_id("L-1" + TURN * 10_001, 0) == "L-1+r"


def test_an_arcadeforge_rotate_game_with_1000_rotations_saves_and_restores(isolated_home):
    game = blockyard.new_game(ROTATE, seed=3)
    dealt = game.tray[0]
    for turns in (400, 400, 200):  # one piece turned, the others placed in between
        for _ in range(turns):
            game.rotate(0)
        others = [move for move in game.legal_moves() if move[0] != 0]
        if others:
            game.place(*others[0])
    assert game.log.count(["rotate", 0]) == 1_000 and game.moves == 2
    assert game.tray[0] == dealt and game.tray[0].id == dealt.id  # four turns: the piece dealt
    assert all(len(p.id) <= MAX_PIECE_ID for p in game.tray if p is not None)
    restored = round_trip(game)
    assert restored.score == game.score and restored.tray == game.tray
    # the window's saved game: written, loaded back, not moved aside as corrupt
    save_game(game)
    notices: list[str] = []
    saved = load_saved_games(notices)
    assert notices == []
    assert [s.key for s in saved] == [ROTATE]
    assert saved[0].game.snapshot() == game.snapshot()
    assert sorted(p.name for p in saves_dir().iterdir()) == [f"{ROTATE}.json"]


# ---------------------------------------------------------------------------
# files written by an engine that added a mark for every turn
# ---------------------------------------------------------------------------

def turned_by_an_earlier_engine(turns: int) -> Any:
    """An arcadeforge-rotate game as an earlier engine played it: a piece placed,
    the next turned ``turns`` times, the game ended (its tray kept)."""
    with unbounded_turn_ids():
        game = blockyard.new_game(ROTATE, seed=1)
        game.place(*game.legal_moves()[0])
        slot = next(s for s, piece in enumerate(game.tray) if piece is not None)
        for _ in range(turns):
            game.rotate(slot)
        game.end_round()
    assert game.tray[slot].id.endswith(TURN * turns)
    return game, slot


@pytest.mark.parametrize("turns", [5, 150, 400])
def test_a_saved_game_of_an_earlier_engine_with_many_turns_still_loads(turns, isolated_home):
    old, slot = turned_by_an_earlier_engine(turns)
    assert (len(old.tray[slot].id) > MAX_PIECE_ID) == (turns > 100)  # refused until now
    snap = json.loads(json.dumps(old.snapshot()))
    game = blockyard.restore(snap)
    assert game.tray[slot].id == turned_id(old.tray[slot].id, 0)
    assert game.tray == old.tray and game.score == old.score
    save_game(old)  # the window's save file as the earlier engine wrote it
    notices: list[str] = []
    assert [s.game.snapshot() for s in load_saved_games(notices)] == [game.snapshot()]
    assert notices == []


def test_a_replay_file_of_an_earlier_engine_with_a_turned_piece_still_checks():
    old, slot = turned_by_an_earlier_engine(6)
    data = json.loads(json.dumps(replay_data(old)))
    game = Replay(None, data).check()
    assert game.score == old.score and game.tray[slot].id == turned_id(old.tray[slot].id, 0)
    assert Replay(None, json.loads(json.dumps(replay_data(game)))).check().score == old.score
    data["log"][-2] = ["rotate", (slot + 1) % 3]  # one turn of another piece: another game
    with pytest.raises(ReplayError, match="plays it differently"):
        Replay(None, data).check()


def test_a_snapshot_whose_turned_id_was_changed_is_refused():
    game = blockyard.new_game(ROTATE, seed=2)
    game.rotate(0)
    snap = game.snapshot()
    snap["tray"][0]["id"] = snap["tray"][0]["id"] + TURN  # turned twice, says the tray
    with pytest.raises(blockyard.DataError, match=r"snapshot\.tray\[0\]\.id"):
        blockyard.restore(snap)
    snap["tray"][0]["id"] = "x" * (MAX_PIECE_ID + 1)
    with pytest.raises(blockyard.DataError, match="at most 200 characters"):
        blockyard.restore(snap)


# ---------------------------------------------------------------------------
# every bundled ruleset, far past ordinary lengths
# ---------------------------------------------------------------------------

def falling_actions(game: Any, rnd: random.Random) -> Iterator[list[Any]]:
    """Legal actions of a falling game: the stone steered back and forth, up to
    hundreds of times between two steps of the clock, fast falls, hard drops
    (none after the end)."""
    if game.over:
        return
    roll = rnd.random()
    if roll < 0.02:
        for _ in range(rnd.randrange(100, 400)):
            yield ["move", rnd.choice((-1, 1))]
    elif roll < 0.4:
        yield ["move", rnd.choice((-1, 1))]
    elif roll < 0.5:
        yield ["soft", not game.soft]
    elif roll < 0.7:
        yield ["hard"]
    else:
        yield ["tick", rnd.choice((50_000, 250_000, 400_000))]


def tray_actions(game: Any, rnd: random.Random) -> Iterator[list[Any]]:
    """Legal actions of a tray game as the engine offers them: placements (one
    that clears a line when there is one), swaps, refills, continues, the
    clock, and bursts of hundreds of turns of one piece between placements."""
    offered = {action.name: action for action in game.actions()}
    if game.over:
        after = [name for name, action in offered.items() if action.after_end]
        if after:
            yield [rnd.choice(after)]
        return
    filled = [slot for slot, piece in enumerate(game.tray) if piece is not None]
    moves = game.legal_moves()
    others = [a for name, a in offered.items() if name not in ("end", "rotate")]
    roll = rnd.random()
    if "rotate" in offered and (roll < 0.3 or not moves):
        slot = rnd.choice(filled)
        for _ in range(rnd.randrange(100, 600) if roll < 0.1 else 1):
            yield ["rotate", slot]
    elif others and (roll < 0.1 or not moves):
        action = rnd.choice(others)
        yield [action.name, rnd.choice(filled)] if action.takes_slot else [action.name]
    elif game.time_left is not None and roll < 0.2:
        yield ["tick", rnd.choice((250_000, 1_000_000))]
    elif moves:
        sample = rnd.sample(moves, min(len(moves), 4))
        lines = [result.lines for result in game.evaluate(sample)]
        yield ["place", *sample[lines.index(max(lines))]]


@pytest.mark.parametrize("ruleset_id", [info.id for info in blockyard.list_rulesets()])
def test_every_bundled_ruleset_played_10000_actions_restores_and_replays(ruleset_id):
    rnd = random.Random(ruleset_id)
    seed = 0
    game = blockyard.new_game(ruleset_id, seed=seed)
    choose = falling_actions if game.kind == "falling" else tray_actions
    played, longest, ended = 0, 0, 0
    taken: set[str] = set()
    turns, most_turns = 0, 0  # turns in a row, and the most between two other actions
    checks = list(CHECKS)
    while checks:
        chosen = False
        for action in choose(game, rnd):
            game.apply(action)
            played += 1
            chosen = True
            taken.add(action[0])
            turns = turns + 1 if action[0] == "rotate" else 0
            most_turns = max(most_turns, turns)
        longest = max(longest, len(game.log))
        if not chosen:  # over, nothing offered after the end: the next game
            if ended % 20 == 0:
                round_trip(game)
            ended += 1
            seed += 1
            game = blockyard.new_game(ruleset_id, seed=seed)
        elif played >= checks[0]:
            while checks and played >= checks[0]:
                checks.pop(0)
            game = round_trip(game)
    assert played >= ACTIONS
    # every action a player may take was taken: swaps, turns, continues, the clock
    rules = game.ruleset
    actions = {spec.name for spec in rules.action_specs.values() if not spec.automatic}
    assert taken >= actions - {"end"}, (ruleset_id, taken)
    if "rotate" in actions:
        assert most_turns >= 300 and longest >= 2_000, (most_turns, longest, ended)
    if not ended:  # a game that never ends (zen): one game of every action
        assert longest == played + 1
