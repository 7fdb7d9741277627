"""The ratings of live tables (blockyard.ratings): one pure update of a rated
round's seats from their scores, with no server; what it makes of 1,000 rated
tables between bots of known strength; provisional ratings; bad input refused
with a sentence."""

from __future__ import annotations

import math
import random

import pytest

import blockyard
from blockyard import bots, ratings
from blockyard.ratings import PROVISIONAL_GAMES, Rating


def test_a_newcomer_starts_at_openskills_defaults_and_is_provisional() -> None:
    fresh = Rating()
    assert (fresh.mu, fresh.sigma, fresh.games) == (25.0, 25.0 / 3, 0)
    assert fresh.value == pytest.approx(0.0)
    assert fresh.provisional
    assert fresh.shown() == {"rating": 0.0, "mu": 25.0, "sigma": 8.3333, "games": 0,
                             "provisional": True}


def test_the_better_score_gains_and_the_worse_loses() -> None:
    before = [Rating(), Rating()]
    winner, loser = ratings.rate(before, [120, 40])
    assert winner.mu > 25 > loser.mu
    assert winner.sigma < before[0].sigma and loser.sigma < before[1].sigma
    assert (winner.games, loser.games) == (1, 1)
    assert winner.value > loser.value


def test_equal_scores_are_a_tie_and_the_order_of_the_seats_does_not_matter() -> None:
    one, two = ratings.rate([Rating(), Rating()], [50, 50])
    assert one.mu == pytest.approx(two.mu) == pytest.approx(25.0)
    a, b, c = ratings.rate([Rating(30, 5), Rating(), Rating(20, 6)], [10, 30, 20])
    c2, a2, b2 = ratings.rate([Rating(20, 6), Rating(30, 5), Rating()], [20, 10, 30])
    for first, second in ((a, a2), (b, b2), (c, c2)):
        assert first.mu == pytest.approx(second.mu)
        assert first.sigma == pytest.approx(second.sigma)


def test_a_table_of_eight_is_rated_in_one_step_by_its_finishing_order() -> None:
    after = ratings.rate([Rating()] * 8, [80, 70, 60, 50, 40, 30, 20, 10])
    mus = [r.mu for r in after]
    assert mus == sorted(mus, reverse=True)
    assert all(r.games == 1 for r in after)


def test_an_upset_moves_the_ratings_more_than_the_expected_result() -> None:
    strong, weak = Rating(35, 3), Rating(15, 3)
    expected = ratings.rate([strong, weak], [100, 10])
    upset = ratings.rate([strong, weak], [10, 100])
    assert abs(upset[0].mu - strong.mu) > abs(expected[0].mu - strong.mu)


def test_provisional_until_the_tenth_rated_round() -> None:
    rating = Rating()
    for n in range(1, PROVISIONAL_GAMES + 1):
        rating = ratings.rate([rating, Rating()], [n, 0])[0]
        assert rating.games == n
        assert rating.provisional == (n < PROVISIONAL_GAMES)


def test_the_changes_of_a_round_are_the_shown_ratings_before_and_after() -> None:
    before = [Rating(), Rating(28, 4, 12)]
    after = ratings.rate(before, [3, 9])
    changes = ratings.changes(before, after)
    assert changes[1] == {"before": round(before[1].value, 2),
                          "after": round(after[1].value, 2),
                          "change": round(after[1].value - before[1].value, 2),
                          "provisional": False}
    assert changes[0]["provisional"] is True
    assert changes[0]["change"] == pytest.approx(changes[0]["after"] - changes[0]["before"],
                                                 abs=0.011)


def test_a_seat_that_left_ranks_below_every_seat_that_finished_whatever_its_score() -> None:
    assert ratings.standing([100, 10, 40], last=[0]) == [3, 2, 1]
    assert ratings.standing([100, 10, 40, 5], last=[0, 3]) == [3, 2, 1, 4]  # leavers by score
    assert ratings.standing([7, 7], last=[]) == [1, 1]
    assert ratings.winner([100, 10], last=[0]) == 1
    assert ratings.winner([10, 10, 3], last=[2]) is None
    assert ratings.winner([4, 9], last=[0, 1]) == 1  # everybody left: by score
    ahead_left = ratings.rate([Rating(), Rating()], [100, 10], last=[0])
    assert ahead_left[0].mu < 25 < ahead_left[1].mu
    # the same as the leaver having the lower score
    swapped = ratings.rate([Rating(), Rating()], [10, 100])
    assert [r.mu for r in ahead_left] == pytest.approx([r.mu for r in swapped])
    with pytest.raises(ValueError, match=r"^rate: last: expected seats 0 to 1, found 2$"):
        ratings.rate([Rating(), Rating()], [1, 2], last=[2])


@pytest.mark.parametrize("before, scores, message", [
    ([Rating()], [1], "expected 2 to 8 seats, found 1"),
    ([Rating()] * 9, [1] * 9, "expected 2 to 8 seats, found 9"),
    ([Rating()] * 2, [1], "2 ratings but 1 scores"),
    ([Rating()] * 2, [1, math.nan], "scores: expected finite numbers, found nan"),
    ([Rating()] * 2, [1, True], "scores: expected finite numbers, found True"),
    ([Rating()] * 2, [1, "3"], "scores: expected finite numbers, found '3'"),
])
def test_bad_input_is_refused_with_a_sentence(before: list[Rating], scores: list[object],
                                              message: str) -> None:
    with pytest.raises(ValueError, match=f"^rate: {message}$"):
        ratings.rate(before, scores)  # type: ignore[arg-type]


@pytest.mark.parametrize("kwargs, message", [
    ({"mu": math.inf}, "mu: expected a finite number, found inf"),
    ({"sigma": 0.0}, "sigma: expected a number above 0, found 0.0"),
    ({"games": -1}, "games: expected a whole number >= 0, found -1"),
    ({"games": 1.5}, "games: expected a whole number >= 0, found 1.5"),
])
def test_a_rating_out_of_its_range_is_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=f"^Rating: {message}$"):
        Rating(**kwargs)  # type: ignore[arg-type]


# -- 1,000 rated tables between bots of known strength ----------------------------------

KINDS = ("random", "greedy", "search")
"""Blockyard's bots, weakest first (docs/bots.md)."""
PER_KIND = 3
"""Players of each bot, each with a bot seed of its own."""
DEALS = 12
MOVES = 25
"""Each game's placements at most: short games, cheap enough for the whole
simulation to take a few seconds, long enough that the search bot's planning
earns its points (a random bot's game is often over before)."""


def test_ratings_of_a_thousand_rated_tables_rank_the_bots_by_strength() -> None:
    """Nine players, three of each bot, sit at 1,000 rated tables of 2 to 4 seats
    drawn at random, each table one deal for every seat as at a live table. Each
    player's game of each deal is played headless once (the bots are
    deterministic: the same bot, seed and deal give the same game), and each
    table is rated by the update the server uses. Every search player ends above
    every greedy player, and every greedy player above every random one."""
    players = [(kind, n) for kind in KINDS for n in range(PER_KIND)]
    scores = {}
    for kind, n in players:
        bot = bots.get_bot(kind, seed=n)
        for deal in range(DEALS):
            game = blockyard.new_game("eu-classic", seed=deal)
            bot.play(game, max_moves=MOVES)
            scores[kind, n, deal] = int(game.score)
    draw = random.Random(2026)
    held = {player: Rating() for player in players}
    seats = 0
    for _ in range(1000):
        seated = draw.sample(players, draw.randint(2, 4))
        deal = draw.randrange(DEALS)
        after = ratings.rate([held[p] for p in seated], [scores[(*p, deal)] for p in seated])
        held.update(zip(seated, after, strict=True))
        seats += len(seated)
    assert sum(r.games for r in held.values()) == seats  # every seat of every table rated
    by_kind = {kind: [held[kind, n].value for n in range(PER_KIND)] for kind in KINDS}
    assert min(by_kind["search"]) > max(by_kind["greedy"]), by_kind
    assert min(by_kind["greedy"]) > max(by_kind["random"]), by_kind
    assert all(not r.provisional for r in held.values())


TABLES_A_DAY = 100
"""How many of the 1,000 tables are played in a day, evenly spread over it."""


def test_the_rules_of_rated_rounds_keep_the_bots_ranked_by_strength() -> None:
    """The same 1,000 tables as above, 100 a day, as the server rates them
    (docs/online.md, "Ratings"): a round in which a seat made fewer than 2
    placements is aborted, and a round whose two players already had 3 rated
    rounds together in the 24 hours before it is friendly; neither is rated.
    Every search player still ends above every greedy player, and every greedy
    player above every random one."""
    players = [(kind, n) for kind in KINDS for n in range(PER_KIND)]
    scores, placed = {}, {}
    for kind, n in players:
        bot = bots.get_bot(kind, seed=n)
        for deal in range(DEALS):
            game = blockyard.new_game("eu-classic", seed=deal)
            bot.play(game, max_moves=MOVES)
            scores[kind, n, deal] = int(game.score)
            placed[kind, n, deal] = sum(1 for entry in game.log[1:]
                                        if entry[0] not in ("tick", "end"))
    draw = random.Random(2026)
    held = {player: Rating() for player in players}
    together: dict[tuple[object, ...], list[float]] = {}
    rated = aborted = friendly = 0
    for table in range(1000):
        hour = table * 24 / TABLES_A_DAY
        seated = draw.sample(players, draw.randint(2, 4))
        deal = draw.randrange(DEALS)
        if any(placed[(*p, deal)] < 2 for p in seated):
            aborted += 1
            continue
        pairs = [(a, b) for i, a in enumerate(seated) for b in seated[i + 1:]]
        day = [[h for h in together.get(tuple(sorted(pair)), []) if h > hour - 24]
               for pair in pairs]
        if any(len(hours) >= 3 for hours in day):
            friendly += 1
            continue
        for pair in pairs:
            together.setdefault(tuple(sorted(pair)), []).append(hour)
        after = ratings.rate([held[p] for p in seated], [scores[(*p, deal)] for p in seated])
        held.update(zip(seated, after, strict=True))
        rated += 1
    assert rated + aborted + friendly == 1000 and friendly > 0
    by_kind = {kind: [held[kind, n].value for n in range(PER_KIND)] for kind in KINDS}
    assert min(by_kind["search"]) > max(by_kind["greedy"]), by_kind
    assert min(by_kind["greedy"]) > max(by_kind["random"]), by_kind
