"""examples/gym_agent.py says which greedy is which: its own (first of equal
placements) is labelled greedy-first, and the bundled greedy bot (ties at random)
can be evaluated beside it through the same environment."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_example_names_its_greedy_apart_from_the_bundled_bot(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    sys.modules.pop("gym_agent", None)
    import gym_agent

    gym_agent.main(["--episodes", "1", "--max-steps", "40", "--train-steps", "0",
                    "--bundled-greedy"])
    labels = [line.split(":")[0].strip() for line in capsys.readouterr().out.splitlines()[1:]]
    assert labels == ["random", "greedy-first", "bundled greedy"]
    assert "not the bundled ``greedy`` bot" in " ".join(gym_agent.__doc__.split())
    guide = " ".join((ROOT / "docs" / "gym.md").read_text(encoding="utf-8").split())
    assert "`greedy-first` is not the bundled `greedy` bot" in guide


def test_the_bundled_greedy_policy_plays_the_bundled_bots_moves(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    import gym_agent

    import blockyard.gym as bg
    from blockyard.bots import get_bot

    env = bg.BlockyardEnv("eu-classic")
    obs, info = env.reset(seed=3)
    policy = gym_agent.bundled_greedy_policy(7)
    reference = get_bot("greedy", seed=7)
    for _ in range(5):
        expected = reference.choose(env.game)
        action = policy(env, obs, info["action_mask"])
        assert env.decode_action(action) == tuple(expected)
        obs, _reward, terminated, _truncated, info = env.step(action)
        if terminated:
            break
