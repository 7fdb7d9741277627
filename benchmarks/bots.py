"""Measure the bots and the lab on this machine (figures go to stdout).

    .venv/bin/python benchmarks/bots.py greedy   [--games 50]
    .venv/bin/python benchmarks/bots.py search   [--games 20] [--max-moves 2000]
    .venv/bin/python benchmarks/bots.py simulate [--games 10000] [--workers 2]

``greedy``: moves per second on eu-classic. ``search``: ms per move and mean
score of search against greedy on eu-classic seeds 0…games−1 (same seeds).
``--ruleset`` measures another ruleset; for Sudoku Bloxx a move is a stone
(``search --ruleset sudoku-bloxx``: ms per stone, stones per game), played
with one second of game clock per stone as ``Bot.play`` does.
``simulate``: wall time of ``blockyard.lab.simulate`` with greedy.
Timings are reported, never asserted: they depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import blockyard
from blockyard import lab
from blockyard.bots import get_bot


def unit(ruleset: str) -> str:
    """What a move is called in ``ruleset``: a stone in falling games."""
    return "stone" if blockyard.load_ruleset(ruleset).mode == "falling" else "move"


def play(bot: str, ruleset: str, seeds: range, max_moves: int | None) -> tuple[list[int], int,
                                                                                 float]:
    scores, moves, spent = [], 0, 0.0
    for seed in seeds:
        game = blockyard.new_game(ruleset, seed=seed)
        player = get_bot(bot)
        start = time.perf_counter()
        moves += player.play(game, max_moves=max_moves)
        spent += time.perf_counter() - start
        scores.append(game.score)
        print(f"  {bot} seed {seed}: {game.score} points, {game.moves} moves, "
              f"{game.over_reason}", file=sys.stderr, flush=True)
    return scores, moves, spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("greedy", "search", "simulate"))
    parser.add_argument("--ruleset", default="eu-classic")
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--max-moves", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    move = unit(args.ruleset)
    if args.what == "greedy":
        scores, moves, spent = play("greedy", args.ruleset, range(args.games or 50),
                                    args.max_moves)
        print(f"greedy on {args.ruleset}: {moves / spent:.0f} {move}s/s "
              f"({1000 * spent / moves:.2f} ms per {move}), mean score "
              f"{statistics.fmean(scores):.0f} over {len(scores)} games")
    elif args.what == "search":
        seeds = range(args.games or 20)
        greedy, g_moves, g_spent = play("greedy", args.ruleset, seeds, args.max_moves)
        search, s_moves, s_spent = play("search", args.ruleset, seeds, args.max_moves)
        worse = [s for s, a, b in zip(seeds, greedy, search, strict=True) if b < a]
        print(f"{args.ruleset}, seeds {seeds.start}–{seeds.stop - 1}"
              f"{'' if args.max_moves is None else f', games stopped at {args.max_moves} {move}s'}")
        print(f"  greedy: mean {statistics.fmean(greedy):.0f}, median "
              f"{statistics.median(greedy):.0f}, {g_moves / len(seeds):.1f} {move}s per game, "
              f"{1000 * g_spent / g_moves:.2f} ms per {move}")
        print(f"  search: mean {statistics.fmean(search):.0f}, median "
              f"{statistics.median(search):.0f}, {s_moves / len(seeds):.1f} {move}s per game, "
              f"{1000 * s_spent / s_moves:.2f} ms per {move}")
        print(f"  search / greedy: {statistics.fmean(search) / statistics.fmean(greedy):.1f}×;"
              f" seeds where search scored less: {worse or 'none'}")
    else:
        games = args.games or 10_000
        start = time.perf_counter()
        report = lab.simulate(args.ruleset, bot="greedy", games=games, workers=args.workers,
                              progress=lab.ProgressBar(sys.stderr))
        spent = time.perf_counter() - start
        print(report.text())
        print(f"simulate: {games} greedy games of {args.ruleset} with {args.workers} workers "
              f"in {spent:.1f} s ({games / spent:.1f} games/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
