"""The speed references of ``benchmarks/engine.py`` play the game Blockyard
plays: the lean loop (the practical limit of Python) deals, clears and scores
every eu-classic game exactly as the engine does, so that the benchmark
compares the same work."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import blockyard

ENGINE_BENCHMARK = Path(__file__).resolve().parent.parent / "benchmarks" / "engine.py"


def load_benchmark():
    spec = importlib.util.spec_from_file_location("engine_benchmark", ENGINE_BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lean_loop_plays_the_same_games_as_blockyard():
    bench = load_benchmark()
    ruleset = blockyard.load_ruleset("eu-classic")
    rnd = random.Random(5)
    moves = 0
    for seed in range(40):
        ours = blockyard.new_game(ruleset, seed=seed)
        lean = bench.LeanBitboardGame(ruleset, seed)
        while True:
            legal = ours.legal_moves()
            assert lean.legal_moves() == legal, (seed, ours.moves)
            if not legal:
                break
            move = legal[rnd.randrange(len(legal))]
            ours.place(*move)
            lean.place(*move)
            moves += 1
            assert (lean.board, lean.score, lean.sets) == \
                (ours.grid.bits, ours.score, ours.set_index), (seed, ours.moves)
    assert moves > 400  # full games, deals and clears included


def test_the_replay_by_hand_beside_restore_builds_the_same_game():
    # restore's reference does the same work but the checks: the same game
    bench = load_benchmark()
    ruleset = blockyard.load_ruleset("eu-classic")
    game = bench.game_of_moves(ruleset, bench.RESTORE_MOVES)
    again = bench.replay_by_hand(ruleset, game)
    assert again.snapshot() == game.snapshot() == blockyard.restore(game.snapshot()).snapshot()
    assert game.moves == bench.RESTORE_MOVES
