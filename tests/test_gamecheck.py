"""The referee's game check headless (blockyard.gamecheck): which games are the
rules' own deal, how much work a real game can need, and one identity per game
however its file spells it (docs/api.md, "Which games count")."""

from __future__ import annotations

import datetime as dt

import pytest
from game_support import LONG_PIECES, NEARLY_FULL, played_out

import blockyard
from blockyard.gamecheck import (
    MAX_ENTRIES,
    NotCounted,
    check_work,
    chosen_position,
    chosen_start,
    dealt_game,
    game_identity,
    identity_of,
    moves_allowance,
)
from blockyard.replays import replay_data


def test_a_custom_start_is_marked_in_its_replay_and_practice_in_the_records(tmp_path) -> None:
    from blockyard.records import RecordStore

    custom = played_out(blockyard.new_game("eu-classic", seed=3, board=NEARLY_FULL,
                                           tray=LONG_PIECES))
    assert "chosen board and tray" in replay_data(custom)["chosen_start"]
    dealt = played_out(blockyard.new_game("eu-classic", seed=3))
    assert replay_data(dealt)["chosen_start"] is None
    with RecordStore(tmp_path) as store:
        summary = store.record(custom)
        assert summary.practice is True
        assert store.best(custom.ruleset, None) is None
        assert store.record(dealt).practice is False
        assert store.best(dealt.ruleset, None) == dealt.score


def test_the_deal_spelt_another_way_is_the_deal() -> None:
    empty = blockyard.new_game("eu-classic", seed=3, board="\n".join(["." * 10] * 10))
    assert chosen_start(empty) is None and chosen_position(empty) is None
    plain = blockyard.new_game("eu-classic", seed=3)
    start = {**empty.log[0][1]}
    assert dealt_game(plain.ruleset, start).log == plain.log
    # a falling ruleset's given board is written in every start: its own deal
    falling = blockyard.new_game("sudoku-bloxx", seed=4)
    assert chosen_start(falling) is None
    stream = blockyard.new_game("sudoku-bloxx", seed=4, stream="S S S")
    assert "chosen stone stream" in (chosen_start(stream) or "")


def test_a_daily_game_is_dealt_only_on_its_dates_seed() -> None:
    day = dt.date(2026, 2, 2)
    own = blockyard.new_game("eu-daily", date=day)
    assert chosen_start(own) is None
    off_seed = blockyard.new_game("eu-daily", seed=own.seed + 1, date=day)
    reason = chosen_start(off_seed) or ""
    assert f"seed {own.seed + 1}" in reason and f"seed {own.seed}" in reason
    assert chosen_position(off_seed) is None  # practice locally only by the daily rule
    with pytest.raises(NotCounted, match="must name its date"):
        dealt_game(own.ruleset, {**own.log[0][1], "date": None})


def test_the_work_bound_counts_moves_and_game_clock() -> None:
    game = played_out(blockyard.new_game("arcadeforge-rotate", seed=5))
    ruleset = game.ruleset
    moves = sum(1 for entry in game.log[1:] if entry[0] == "place")
    check_work(ruleset, game.log)
    allowed = moves_allowance(ruleset) * (moves + 1) + moves
    padded = [game.log[0], *(["rotate", 0] for _ in range(allowed - len(game.log) + 1)),
              *game.log[1:]]
    check_work(ruleset, padded)  # exactly the bound
    with pytest.raises(NotCounted, match=f"needs at most {allowed}"):
        check_work(ruleset, [*padded, ["rotate", 0]])
    with pytest.raises(NotCounted, match=f"verified up to {MAX_ENTRIES}"):
        check_work(ruleset, [game.log[0], *(["rotate", 0] for _ in range(MAX_ENTRIES + 1))])
    # a clock allows more entries: a minute of Sudoku Bloxx's clock, 60 a second
    falling = blockyard.new_game("sudoku-bloxx", seed=5)
    start = falling.log[0]
    steps = [["move", (-1) ** i] for i in range(60 * 61)]
    check_work(falling.ruleset, [start, ["tick", 60_000_000], *steps])
    with pytest.raises(NotCounted, match="60 s of game clock"):
        check_work(falling.ruleset, [start, ["tick", 60_000_000], *steps, *steps[:200]])


def test_one_identity_per_game() -> None:
    game = played_out(blockyard.new_game("eu-classic", seed=8))
    again = blockyard.replay(game.log)
    assert game_identity(again) == game_identity(game)
    start = {**game.log[0][1], "note": "ignored"}  # the engine ignores unknown keys
    rebuilt = dealt_game(game.ruleset, start)
    for action in game.log[1:]:
        rebuilt.apply(action)
    assert game_identity(rebuilt) == game_identity(game)
    other = played_out(blockyard.new_game("eu-classic", seed=9))
    assert game_identity(other) != game_identity(game)
    # the identity of a log judged by no engine differs from any game's
    assert identity_of(game.ruleset.digest, game.log[0][1], game.log[1:]) != \
        game_identity(game)


def test_actions_that_leave_the_game_as_it_was_make_no_other_game() -> None:
    spun = blockyard.new_game("arcadeforge-rotate", seed=5)
    plain = blockyard.new_game("arcadeforge-rotate", seed=5)
    for _ in range(4):
        spun.act("rotate", 0)  # four turns: the piece as it was dealt
    for game in (spun, plain):
        played_out(game)
    assert spun.log != plain.log and spun.score == plain.score
    assert game_identity(spun) == game_identity(plain)
    once = blockyard.new_game("arcadeforge-rotate", seed=5)
    once.act("rotate", 0)
    assert game_identity(played_out(once)) != game_identity(plain)
    stepped = blockyard.new_game("sudoku-bloxx", seed=5)
    straight = blockyard.new_game("sudoku-bloxx", seed=5)
    stepped.move(-1)
    stepped.move(1)  # a step left and back
    for game in (stepped, straight):
        for _ in range(5):
            game.hard_drop()
        game.end_round()
    assert game_identity(stepped) == game_identity(straight)
