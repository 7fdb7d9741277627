"""Evaluate, and briefly train, maskable agents on a Blockyard environment.

Two agents need nothing beyond ``blockyard[gym]``:

- ``random``: a legal action drawn uniformly from ``info["action_mask"]``;
- ``greedy-first``: the legal placement that scores the most points now (read
  through ``env.unwrapped.game.preview``), the lowest action number among
  equals (the top-left-most placement of the first slot), else the first legal
  action. It is not the bundled ``greedy`` bot of ``blockyard.bots`` (``blockyard
  simulate --bot greedy``), which breaks ties at random: packing pieces into a
  corner, as this one does, makes games last much longer, so the two report very
  different scores. ``--bundled-greedy`` also evaluates the bundled bot through
  the same environment, for comparison.

With ``sb3-contrib`` installed (``pip install sb3-contrib``, which brings
PyTorch), ``--train-steps N`` also trains a ``MaskablePPO`` agent for ``N``
steps on the same environment and evaluates it the same way; without it the
training part is skipped with a note.

Run:  python examples/gym_agent.py [--ruleset eu-classic] [--episodes 20]
                                   [--max-steps 500] [--train-steps 20000]
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import blockyard.gym as bg

Policy = Callable[[bg.BlockyardEnv, dict[str, np.ndarray], np.ndarray], int]
"""A policy: ``policy(env, observation, action_mask) -> action``."""


def random_policy(seed: int) -> Policy:
    """A uniformly random legal action (its own generator, seeded)."""
    rng = np.random.default_rng(seed)

    def choose(env: bg.BlockyardEnv, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])

    return choose


def greedy_policy(env: bg.BlockyardEnv, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
    """The legal placement scoring the most points now (the lowest action
    number among equals); the first legal action when no placement is legal."""
    game = env.game
    assert game is not None
    placements = 3 * game.rows * game.cols
    legal = np.flatnonzero(mask)
    best, best_points = int(legal[0]), -1
    for action in legal:
        if action >= placements:
            break
        _, slot, row, col = env.decode_action(int(action))
        points = game.preview(slot, row, col).points
        if points > best_points:
            best, best_points = int(action), points
    return best


def bundled_greedy_policy(seed: int) -> Policy:
    """The bundled ``greedy`` bot (``blockyard.bots``, ties at random) as a policy:
    its move in the game, as the environment's action number."""
    from blockyard.bots import get_bot

    bot = get_bot("greedy", seed=seed)

    def choose(env: bg.BlockyardEnv, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        game = env.game
        assert game is not None
        action = bot.choose(game)
        if action is None:  # nothing to do: any legal action
            return int(np.flatnonzero(mask)[0])
        return env.encode_action(*action)

    return choose


def evaluate(ruleset: str, policy: Policy, *, episodes: int = 10, seed: int = 0,
             max_steps: int = 500) -> list[int]:
    """Play ``episodes`` games (episode ``i`` reset with seed ``seed + i``) of at
    most ``max_steps`` steps each; the final scores."""
    env = bg.BlockyardEnv(ruleset)
    scores = []
    for episode in range(episodes):
        obs, info = env.reset(seed=seed + episode)
        for _ in range(max_steps):
            obs, _reward, terminated, _truncated, info = env.step(
                policy(env, obs, info["action_mask"]))
            if terminated:
                break
        assert env.game is not None
        scores.append(env.game.score)
    return scores


def train_maskable_ppo(ruleset: str, steps: int, *, seed: int = 0,
                       max_steps: int = 500) -> Policy:
    """Train ``sb3_contrib.MaskablePPO`` for ``steps`` environment steps and
    return it as a policy. Raises ``ImportError`` without sb3-contrib."""
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(bg.env_id(ruleset), max_episode_steps=max_steps)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=256, batch_size=64, seed=seed,
                        verbose=0)
    model.learn(total_timesteps=steps)

    def choose(env: bg.BlockyardEnv, obs: dict[str, np.ndarray], mask: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    return choose


def describe(name: str, scores: list[int]) -> str:
    return (f"{name:>12}: mean {statistics.fmean(scores):9.1f}  median "
            f"{statistics.median(scores):8.1f}  best {max(scores):6d}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="eu-classic")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--train-steps", type=int, default=20_000,
                        help="MaskablePPO training steps (0: no training)")
    parser.add_argument("--bundled-greedy", action="store_true",
                        help="also evaluate the bundled greedy bot (ties at random)")
    args = parser.parse_args(argv)
    common: dict[str, Any] = {"episodes": args.episodes, "seed": args.seed,
                              "max_steps": args.max_steps}
    print(f"{args.ruleset}, {args.episodes} episodes of at most {args.max_steps} steps")
    print(describe("random", evaluate(args.ruleset, random_policy(args.seed), **common)))
    print(describe("greedy-first", evaluate(args.ruleset, greedy_policy, **common)))
    if args.bundled_greedy:
        print(describe("bundled greedy", evaluate(
            args.ruleset, bundled_greedy_policy(args.seed), **common)))
    if args.train_steps <= 0:
        return
    try:
        policy = train_maskable_ppo(args.ruleset, args.train_steps, seed=args.seed,
                                    max_steps=args.max_steps)
    except ImportError:
        print("MaskablePPO skipped: install sb3-contrib (pip install sb3-contrib) to train")
        return
    print(describe(f"ppo {args.train_steps}", evaluate(args.ruleset, policy, **common)))


if __name__ == "__main__":
    main()
