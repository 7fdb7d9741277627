"""Memory per game (measured with tracemalloc): under 20 kB, so that 10,000
games fit in a vectorised batch. Bounded by count: 100 games of each kind."""

from __future__ import annotations

import gc
import random
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import blockyard

LIMIT = 20_000
COUNT = 100


@pytest.fixture
def traced() -> Iterator[Callable[[Callable[[], Any]], tuple[list[Any], float]]]:
    """``measure(make)``: build COUNT objects, keep them; the bytes each holds."""

    def measure(make: Callable[[], Any]) -> tuple[list[Any], float]:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        kept = [make() for _ in range(COUNT)]
        gc.collect()
        return kept, (tracemalloc.get_traced_memory()[0] - before) / COUNT

    tracemalloc.start()
    try:
        yield measure
    finally:
        tracemalloc.stop()


def random_moves(game: blockyard.Game, moves: int, rng: random.Random) -> blockyard.Game:
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        game.place(*rng.choice(legal))
    return game


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "tiered", "woodoku"])
def test_a_game_holds_under_20_kB_new_and_after_30_moves(ruleset_id, traced):
    ruleset = blockyard.load_ruleset(ruleset_id)
    rng = random.Random(0)
    random_moves(blockyard.new_game(ruleset, seed=0), 100, rng)  # warm shared caches
    seeds = iter(range(1, 10_000))
    games, fresh = traced(lambda: blockyard.new_game(ruleset, seed=next(seeds)))
    assert 0 < fresh < LIMIT
    del games
    games, played = traced(lambda: random_moves(
        blockyard.new_game(ruleset, seed=next(seeds)), 30, rng))
    assert sum(g.moves for g in games) > COUNT * 10  # the games really were played
    assert fresh < played < LIMIT


def test_a_gym_environment_holds_under_20_kB(traced):
    import blockyard.gym as bg

    ruleset = blockyard.load_ruleset("eu-classic")
    keep = bg.BlockyardEnv(ruleset)  # the shared tables live while an env does
    keep.reset(seed=0)
    seeds = iter(range(1, 10_000))

    def make() -> Any:
        env = bg.BlockyardEnv(ruleset)
        env.reset(seed=next(seeds))
        return env

    envs, per_env = traced(make)
    assert 0 < per_env < LIMIT
    del envs, keep
