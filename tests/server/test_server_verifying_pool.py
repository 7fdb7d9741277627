"""The verifying processes (blockyard.server.verify.Verifier): each submission's
budget counts from its own start in a process, one over budget is refused alone
and only its process is replaced; every other submission is answered as if it
were alone (docs/online.md, "Verified games": a slow check harms only itself)."""

from __future__ import annotations

import asyncio

import pytest
from server_support import finished_game, hang_for_player_hang

from blockyard.replays import replay_data
from blockyard.server.verify import Refused, Verifier


def test_a_check_over_budget_is_refused_alone_and_the_pool_lives_on() -> None:
    games = [replay_data(finished_game("eu-classic", seed=seed, moves=8)) for seed in (1, 2)]
    verifier = Verifier(2, budget=5.0, check=hang_for_player_hang)

    async def run() -> list[object]:
        # two stuck checks take both processes; the honest games wait in the queue
        # behind them, and their budget only starts once a process takes them
        stuck = [asyncio.create_task(verifier.verify(games[0], "hang")) for _ in range(2)]
        honest = [asyncio.create_task(verifier.verify(game, "alice")) for game in games]
        return await asyncio.gather(*stuck, *honest, return_exceptions=True)

    try:
        first, second, *answers = asyncio.run(run())
        for refused in (first, second):
            assert isinstance(refused, Refused)
            assert str(refused) == "the game took too long to verify (over 5 s)"
        assert [answer.score for answer in answers] == [  # type: ignore[attr-defined]
            game["score"] for game in games]
        # the pool is still there, with processes in place of the ended ones
        again = asyncio.run(verifier.verify(games[1], "bob"))
        assert again.score == games[1]["score"]
    finally:
        verifier.close()


def test_a_refusal_in_a_process_is_said_as_a_refusal() -> None:
    game = replay_data(finished_game("eu-classic", seed=3, moves=8))
    game["score"] += 1
    verifier = Verifier(1)
    try:
        with pytest.raises(Refused, match=r"score: the file says .* but its log plays"):
            asyncio.run(verifier.verify(game, "carol"))
    finally:
        verifier.close()
