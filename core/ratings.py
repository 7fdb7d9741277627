"""Players' ratings from live tables: OpenSkill's Plackett-Luce model.

A rated table's round ends with every seat's score; :func:`rate` turns the seats'
ratings before it and those scores (the higher, the better; equal scores are a
tie) into their ratings after it. It is a pure function of its arguments, with
no server, database or clock: ``blockyard serve`` calls it in the transaction
that stores the round's result (:mod:`blockyard.server.tablestore`), and a
simulation can feed it the results of games played headless to see what the
ratings make of them.

A :class:`Rating` is OpenSkill's ``mu`` (the estimated skill) and ``sigma`` (how
unsure that estimate is), and the number of rated rounds behind it. What a
player is shown, and what the rated leaderboard sorts by, is
:attr:`Rating.value`: ``mu - 3 * sigma``, an estimate the player is very likely
above (a newcomer's is 0), so a few lucky rounds do not top the board. A rating
is *provisional* while fewer than :data:`PROVISIONAL_GAMES` rated rounds are
behind it.

Plackett-Luce rather than Elo or Glicko: it rates a table of any number of
seats in one step as the finishing order it is (2 to 8 seats here), ties
included, rather than as a set of duels.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from . import protocol

MU = 25.0
"""A new player's ``mu`` (OpenSkill's default)."""
SIGMA = MU / 3
"""A new player's ``sigma`` (OpenSkill's default)."""
PROVISIONAL_GAMES = 10
"""A rating is provisional while fewer rated rounds than this are behind it."""
MIN_SEATS, MAX_SEATS = 2, 8
"""The seats a rated round may have (a live table's)."""

_MODEL = PlackettLuce(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Rating:
    """A player's rating in one ruleset: ``mu``, ``sigma`` and the rated rounds
    (``games``) behind it. ``Rating()`` is a newcomer's."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise ValueError(f"Rating: mu: expected a finite number, found {self.mu!r}")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"Rating: sigma: expected a number above 0, found "
                             f"{self.sigma!r}")
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(f"Rating: games: expected a whole number >= 0, found "
                             f"{self.games!r}")

    @property
    def value(self) -> float:
        """What a player is shown and the leaderboard sorts by: ``mu - 3 sigma``."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        """Whether fewer than :data:`PROVISIONAL_GAMES` rated rounds are behind it."""
        return self.games < PROVISIONAL_GAMES

    def shown(self) -> protocol.SeatRating:
        """The rating as the server's answers and messages carry it: ``rating``
        (:attr:`value`, to 2 decimals), ``mu`` and ``sigma`` (to 4), ``games``
        and ``provisional``."""
        return protocol.seat_rating(rating=round(self.value, 2), mu=round(self.mu, 4),
                                    sigma=round(self.sigma, 4), games=self.games,
                                    provisional=self.provisional)


def standing(scores: Sequence[int | float], last: Collection[int] = ()) -> list[int]:
    """Each seat's place in a round (1: the best; equal places tie): the seats of
    ``last`` (those that left rather than finished) below every other seat, and
    among the seats of each kind the higher score first, equal scores tied."""
    keys = [(seat in last, -float(score)) for seat, score in enumerate(scores)]
    return [1 + sum(other < key for other in keys) for key in keys]


def winner(scores: Sequence[int | float], last: Collection[int] = ()) -> int | None:
    """The seat alone in first place (:func:`standing`), ``None`` on a tie for it."""
    places = standing(scores, last)
    return places.index(1) if places.count(1) == 1 else None


def rate(before: Sequence[Rating], scores: Sequence[int | float],
         last: Collection[int] = ()) -> list[Rating]:
    """The seats' ratings after a rated round: ``before[i]`` is seat ``i``'s
    rating, ``scores[i]`` its score (higher is better; equal scores tie), the
    seats of ``last`` (a seat whose player left, abandoned or idled rather than
    finished) ranked below every other whatever their scores (:func:`standing`).
    Each rating after it counts one more game. ``ValueError`` for fewer than 2
    or more than 8 seats, lengths that differ, a score that is not a finite
    number, or a seat of ``last`` that is not one of the round's."""
    if len(before) != len(scores):
        raise ValueError(f"rate: {len(before)} ratings but {len(scores)} scores")
    if not MIN_SEATS <= len(before) <= MAX_SEATS:
        raise ValueError(f"rate: expected {MIN_SEATS} to {MAX_SEATS} seats, found "
                         f"{len(before)}")
    for score in scores:
        if isinstance(score, bool) or not isinstance(score, (int, float)) \
                or not math.isfinite(score):
            raise ValueError(f"rate: scores: expected finite numbers, found {score!r}")
    for seat in last:
        if isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < len(before):
            raise ValueError(f"rate: last: expected seats 0 to {len(before) - 1}, found "
                             f"{seat!r}")
    teams = [[_MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    if last:
        after = _MODEL.rate(teams, ranks=[float(p) for p in standing(scores, last)])
    else:
        after = _MODEL.rate(teams, scores=[float(s) for s in scores])
    return [Rating(float(team[0].mu), float(team[0].sigma), r.games + 1)
            for team, r in zip(after, before, strict=True)]


def changes(before: Sequence[Rating], after: Sequence[Rating]) -> list[protocol.RatingChange]:
    """Each seat's change as a round's result carries it: the shown rating
    before and after (:attr:`Rating.value`, to 2 decimals), the difference, and
    whether the rating after is still provisional."""
    return [{"before": round(b.value, 2), "after": round(a.value, 2),
             "change": round(a.value - b.value, 2), "provisional": a.provisional}
            for b, a in zip(before, after, strict=True)]
