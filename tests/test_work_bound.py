"""Bounds a real game never meets (issue 52, point 5): the referee's work bound
for a submitted game follows what its ruleset allows — a piece turned as often
as a player likes between two placements included — so the most action-heavy
legal games of every bundled ruleset are admitted, and one entry more is not;
and an error message about a plugin's answer stays cheap however large the
answer (a ``deal`` of 1.2 M pieces builds no repr of each)."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

import pytest

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.gamecheck import (
    ENTRIES_PER_MOVE,
    TURNS_PER_MOVE,
    NotCounted,
    WorkMeter,
    check_work,
    dealt_game,
    moves_allowance,
    work_limit,
)
from blockyard.params import Params
from blockyard.pieces import Piece
from blockyard.tray import TrayGame

BUNDLED = sorted(path.stem for path in
                 (Path(blockyard.__file__).resolve().parents[1] / "rulesets").glob("*.toml"))


def metered(ruleset: blockyard.Ruleset, log: list[list[Any]]) -> None:
    """The work checks of a submitted game, as ``blockyard serve`` makes them
    (core/server/verify.py): counted before the replay, then kept while it runs."""
    check_work(ruleset, log)
    game = dealt_game(ruleset, log[0][1])
    meter = WorkMeter(ruleset)
    for index, action in enumerate(log[1:], start=1):
        game.apply(action)
        meter.check(index, game)


def new_game(ruleset: blockyard.Ruleset, seed: int) -> blockyard.Game:
    """A game the rules deal: a daily ruleset's on a fixed date's seed."""
    if ruleset.is_daily:
        return blockyard.new_game(ruleset, date=dt.date(2026, 2, 2))
    return blockyard.new_game(ruleset, seed=seed)


def heaviest_tray_game(ruleset: blockyard.Ruleset, seed: int, placements: int) -> TrayGame:
    """A legal game of ``placements`` placements (fewer when it ends) taking, before
    each, every unlimited action (a piece's turn) as often as the bound allows
    on every slot and every limited action (a swap) whenever it is offered."""
    game = new_game(ruleset, seed)
    assert isinstance(game, TrayGame)
    rnd = random.Random(seed)
    specs = ruleset.action_specs
    unlimited = [s for s in specs.values() if s.uses_left is None and not s.after_end
                 and not s.ends_game and not s.automatic]
    for _ in range(placements):
        if game.over:
            break
        for spec in unlimited:
            for _ in range(TURNS_PER_MOVE):
                for target in game.action_targets(spec.name)[:game.ruleset.tray_slots]:
                    game.act(spec.name, *target)
        for _ in range(ENTRIES_PER_MOVE):  # swaps while offered: within the 16 a move
            offered = [a for a in game.actions() if a.name != "end"
                       and specs[a.name].uses_left is not None and a.target == "none"]
            if not offered or game.over:
                break
            game.act(offered[0].name)
        moves = game.legal_moves()
        if not moves:
            break
        game.place(*rnd.choice(moves))
    return game


@pytest.mark.parametrize("rid", BUNDLED)
def test_the_most_action_heavy_legal_game_of_every_bundled_ruleset_is_admitted(rid):
    ruleset = blockyard.load_ruleset(rid)
    if not ruleset.mode_record.has_tray:  # sudoku-bloxx: a stone steps 16 times, then drops
        game = new_game(ruleset, 3)
        for _ in range(12):
            if game.over:
                break
            for step in range(ENTRIES_PER_MOVE - 1):
                game.move(-1 if step % 2 else 1)
            game.hard_drop()
    else:
        game = heaviest_tray_game(ruleset, seed=3, placements=12)
    log = json.loads(json.dumps(game.log))
    metered(ruleset, log)
    moves = sum(1 for entry in log[1:] if entry[0] in ruleset.mode_record.move_actions)
    assert moves >= 3, (rid, moves)


def test_1036_turns_for_26_placements_is_a_legal_game_the_server_admits():
    ruleset = blockyard.load_ruleset("arcadeforge-rotate")
    game = blockyard.new_game(ruleset, seed=4)
    rnd = random.Random(4)
    turns = 0
    for placement in range(26):
        count = 40 if placement < 25 else 36  # 25 × 40 + 36 = 1,036: whole circles
        for _ in range(count):
            slot = next(s for s, p in enumerate(game.tray) if p is not None)
            game.act("rotate", slot)
            turns += 1
        game.place(*rnd.choice(game.legal_moves()))
    assert turns == 1036 and not game.over
    game.end_round()
    metered(ruleset, game.log)  # refused on the old bound: "needs at most 458"
    from blockyard.replays import replay_data
    from blockyard.server.verify import verify_replay

    verified = verify_replay(json.loads(json.dumps(replay_data(game, "spinner"))), "spinner")
    assert verified.score == game.score


def test_the_bound_is_still_a_bound_one_entry_past_it_is_refused():
    ruleset = blockyard.load_ruleset("arcadeforge-rotate")
    per_move = moves_allowance(ruleset)
    assert per_move == ENTRIES_PER_MOVE + TURNS_PER_MOVE * ruleset.tray_slots
    game = blockyard.new_game(ruleset, seed=5)
    log = [game.log[0], *(["rotate", 0] for _ in range(per_move))]
    metered(ruleset, log)  # exactly what the game before its first move may hold
    with pytest.raises(NotCounted, match=f"needs at most {per_move}"):
        metered(ruleset, [*log, ["rotate", 0]])
    assert work_limit(ruleset, 3, 0) == per_move * 4 + 3
    # a ruleset without an unlimited action keeps the 16 entries a move
    classic = blockyard.load_ruleset("eu-classic")
    assert moves_allowance(classic) == ENTRIES_PER_MOVE


# -- error messages stay cheap whatever a plugin answered ---------------------------------------

class Flood:
    """Deals 1.2 M pieces (the same object) where the tray has three slots."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(tryfirst=True)
    def blockyard_deal(self, game: Any, index: int) -> list[Piece]:
        return [game.ruleset.pieces[0]] * 1_200_000


def test_a_deal_of_a_million_pieces_is_refused_without_a_repr_of_each(
        rule_file, register_plugin, monkeypatch):
    register_plugin("flood", Flood)
    path = rule_file("""
        [ruleset]
        id = "flood"
        name = "Flood"
        family = "test"
        description = "a deal of a million pieces"
        [board]
        rows = 5
        cols = 5
        [pieces.dot]
        shapes = ["#"]
        [plugins.flood]
        [plugins.line-clearing]
        [plugins.line-scoring]
        triangular_base = 10
        """)
    ruleset = blockyard.load_ruleset(path)
    calls = []
    shown = Piece.__repr__
    monkeypatch.setattr(Piece, "__repr__", lambda self: calls.append(1) or shown(self))
    with pytest.raises(PluginError, match=r"plugin 'flood', hook blockyard_deal.*returned "
                                          r"array \[Piece") as caught:
        blockyard.new_game(ruleset, seed=1)
    assert len(calls) <= 16, len(calls)
    assert len(str(caught.value)) < 1000
