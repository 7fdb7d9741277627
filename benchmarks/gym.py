"""Gymnasium benchmark: masked random steps per second.

Prints, for one tray ruleset (eu-classic by default), in the same run:

- ``engine``: random placements per second through the public game API
  (``legal_moves()`` + ``place()``, new games as they end): what the engine
  itself allows;
- ``env``: masked random steps per second of ``blockyard.gym.BlockyardEnv``:
  each step draws a legal action uniformly from ``info["action_mask"]`` with a
  seeded ``random.Random`` (as the engine figure does) and calls ``env.step``;
  ``reset()`` when an episode ends (counted as part of the time);
- ``vector env``: the same with a ``BlockyardVectorEnv`` of ``--num-envs``
  games (steps counted per game), same-step autoreset.

Target: 20,000 masked random steps per second for the single environment.
Every figure is the best of ``--repeats`` runs of ``--steps`` steps, which
bounds the run by count (a few seconds on a typical machine).

Run:  python benchmarks/gym.py [--ruleset eu-classic] [--steps 20000]
                               [--repeats 3] [--num-envs 16] [--profile]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

import blockyard
import blockyard.gym as bg

TARGET_STEPS = 20_000


def engine_rate(ruleset: blockyard.Ruleset, steps: int, seed: int) -> float:
    rng = random.Random(seed)
    game = blockyard.new_game(ruleset, seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        legal = game.legal_moves()
        if not legal:
            game = blockyard.new_game(ruleset, seed=rng.randrange(2**32))
            legal = game.legal_moves()
        game.place(*rng.choice(legal))
    return steps / (time.perf_counter() - start)


def env_rate(env: bg.BlockyardEnv, steps: int, seed: int) -> float:
    rng = random.Random(seed)  # the draw of the engine figure (numpy's scalar draw costs more)
    _, info = env.reset(seed=seed)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, info = env.step(
            rng.choice(np.flatnonzero(info["action_mask"])))
        if terminated or truncated:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def vector_rate(vec: bg.BlockyardVectorEnv, steps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    _, info = vec.reset(seed=seed)
    n = vec.num_envs
    rounds = max(1, steps // n)
    start = time.perf_counter()
    for _ in range(rounds):
        # a uniformly random legal action per game, for all games at once
        masks = info["action_mask"]
        keys = rng.random(masks.shape)
        keys[~masks] = -1.0
        _, _, _, _, info = vec.step(keys.argmax(axis=1))
    return rounds * n / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Blockyard Gymnasium steps per second")
    parser.add_argument("--ruleset", default="eu-classic")
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--num-envs", type=int, default=16)
    parser.add_argument("--profile", action="store_true",
                        help="also print where the single environment's time goes")
    args = parser.parse_args(argv)
    ruleset = blockyard.load_ruleset(args.ruleset)
    env = bg.BlockyardEnv(ruleset)
    vec = bg.BlockyardVectorEnv(args.num_envs, ruleset)
    # warm the caches (geometry, piece tables, codec) before timing
    engine_rate(ruleset, 500, 0)
    env_rate(env, 500, 0)
    vector_rate(vec, 500, 0)
    figures = {
        "engine placements/s (legal_moves+place)":
            max(engine_rate(ruleset, args.steps, r) for r in range(args.repeats)),
        "env masked random steps/s":
            max(env_rate(env, args.steps, r) for r in range(args.repeats)),
        f"vector env ({args.num_envs} games) steps/s":
            max(vector_rate(vec, args.steps, r) for r in range(args.repeats)),
    }
    print(f"ruleset {args.ruleset}, best of {args.repeats} × {args.steps} steps")
    print(f"{'':<44}{'per second':>12}{'target':>10}")
    for label, rate in figures.items():
        target = f"{TARGET_STEPS:,}" if label.startswith("env ") else ""
        print(f"{label:<44}{rate:>12,.0f}{target:>10}")
    engine = figures["engine placements/s (legal_moves+place)"]
    single = figures["env masked random steps/s"]
    print(f"env / engine: {single / engine:.2f}   "
          f"target met: {'yes' if single >= TARGET_STEPS else 'no'}")
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(env_rate, env, args.steps, 0)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
