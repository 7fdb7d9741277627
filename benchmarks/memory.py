"""Memory per game, measured with tracemalloc.

Keeps ``--games`` games of a ruleset alive at once and reports the memory
they hold, per game:

- ``new game``: just started (``new_game`` with a loaded ruleset);
- ``after N moves``: the same games after up to ``--moves`` random placements
  each (the log grows by one entry per move);
- ``gym env``: a ``blockyard.gym.BlockyardEnv`` after ``reset`` (the game
  plus the environment's arrays), and one game of a ``BlockyardVectorEnv``
  of ``--games`` games (needs ``blockyard[gym]``; skipped without it).

Everything shared between games (the ruleset, its geometry and piece tables,
plugin objects) is built before measuring, so the figures are what each more
game costs. Target: under 20 kB per game, so that 10,000 games fit in a
vectorised batch.

Run:  python benchmarks/memory.py [--ruleset eu-classic] [--games 1000] [--moves 30]
"""

from __future__ import annotations

import argparse
import gc
import random
import tracemalloc
from collections.abc import Callable
from typing import Any

import blockyard

TARGET_BYTES = 20_000


def measure(make: Callable[[], Any], count: int) -> tuple[list[Any], float]:
    """Build ``count`` objects with ``make``, keep them, and return them with
    the traced bytes they hold per object."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = [make() for _ in range(count)]
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    return kept, (after - before) / count


def play(games: list[Any], moves: int, seed: int) -> float:
    """Play up to ``moves`` random placements in each game; the traced bytes
    added per game."""
    rng = random.Random(seed)
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    for game in games:
        for _ in range(moves):
            legal = game.legal_moves()
            if not legal:
                break
            game.place(*rng.choice(legal))
    gc.collect()
    return (tracemalloc.get_traced_memory()[0] - before) / len(games)


def row(label: str, per_game: float) -> str:
    verdict = "ok" if per_game < TARGET_BYTES else "OVER"
    return f"{label:<34}{per_game / 1000:>10.2f} kB{TARGET_BYTES / 1000:>10.0f} kB  {verdict}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Blockyard memory per game (tracemalloc)")
    parser.add_argument("--ruleset", default="eu-classic")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args(argv)
    ruleset = blockyard.load_ruleset(args.ruleset)
    # warm every shared cache: geometry, piece tables, plugin objects, rule text
    warm = blockyard.new_game(ruleset, seed=0)
    play([warm], 200, 0)
    warm.snapshot()
    seeds = iter(range(1, 10**9))

    tracemalloc.start()
    print(f"ruleset {args.ruleset}, {args.games} games alive at once")
    print(f"{'':<34}{'per game':>13}{'target':>13}")
    games, fresh = measure(lambda: blockyard.new_game(ruleset, seed=next(seeds)), args.games)
    print(row("new game", fresh))
    grown = play(games, args.moves, 1)
    moves = sum(g.moves for g in games) / len(games)
    print(row(f"after {args.moves} moves (avg {moves:.1f} played)", fresh + grown))
    print(f"{'  of which per move':<34}{grown / max(moves, 1):>10.0f} B")
    del games
    try:
        import blockyard.gym as bg
    except ImportError:
        print("gym env: skipped (pip install blockyard[gym])")
        tracemalloc.stop()
        return
    bg.BlockyardEnv(ruleset).reset(seed=0)

    def make_env() -> Any:
        env = bg.BlockyardEnv(ruleset)
        env.reset(seed=next(seeds))
        return env

    envs, per_env = measure(make_env, args.games)
    print(row("gym env after reset", per_env))
    del envs

    def make_vector() -> Any:
        vector = bg.BlockyardVectorEnv(args.games, ruleset)
        vector.reset(seed=next(seeds))
        return vector

    _, per_vector = measure(make_vector, 1)
    print(row(f"one game of a {args.games}-game vector env", per_vector / args.games))
    tracemalloc.stop()


if __name__ == "__main__":
    main()
