"""``weighted-dealing``: sets of ``[tray] slots`` pieces (three by default)
drawn by family weight, then orientation uniformly, with an interchangeable fit
guarantee.

Guarantees (parameter ``guarantee``):

``"one-fits"`` (eu §3.2, nepal §5.2)
    if no piece of the set fits, the whole set is drawn again; after
    ``max_attempts`` failing draws the last piece is replaced by the largest
    piece that fits (most cells; ties: earlier in the piece table).
``"tiered"`` (tiered §4.3)
    at most ``max_attempts`` attempts: three (or, with more slots, all)
    identical pieces → draw the last again; none fits → draw the set again;
    then the largest-fitting fallback, avoiding an identical set (when only the
    others' piece fits, the last is the largest other piece, although it does
    not fit). Sets of one or two slots have no identical-set rule.
``"none"`` (gravity §6.2)
    one draw, no check.

Weights come from each family's ``weight`` in ``[pieces]``, or, with ``tiers``,
from the tier of the current score: ``tiers = [{ from_score = 0, weights =
{ family = w, … } }, …]``. Randomness: set ``i`` from ``(seed, "deal", i)``,
attempt ``a`` > 0 from ``(seed, "deal", i, a)`` (docs/rules.md T7); a set of
``n`` slots draws its ``n`` pieces one after another from that stream, so with
three slots the deals are those of every earlier version.

What each deal reads (the weight table of each tier, the pieces largest first,
the slot count) is built once, when the ruleset is checked
(``blockyard_check_ruleset``), not looked up per deal.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate
from typing import Any, ClassVar

from blockyard.errors import RulesetError
from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.pieces import Piece, PieceFamily
from blockyard.rng import below

GUARANTEES = ("one-fits", "tiered", "none")


class WeightTable:
    """Cumulative family weights for drawing pieces."""

    def __init__(self, families: Sequence[PieceFamily], weights: dict[str, float] | None = None):
        chosen = [(f, f.weight if weights is None else weights.get(f.name, 0.0))
                  for f in families]
        chosen = [(f, w) for f, w in chosen if w > 0]
        if not chosen:
            raise ValueError("every family has weight 0")
        self.families = [f for f, _ in chosen]
        self.cumulative = list(accumulate(w for _, w in chosen))
        self.total = self.cumulative[-1]

    def draw(self, rng: random.Random) -> Piece:
        """A family by weight, then one of its pieces uniformly."""
        return self.draw_set(rng, 1)[0]

    def draw_set(self, rng: random.Random, count: int = 3) -> list[Piece]:
        """``count`` pieces drawn one after another as :meth:`draw` describes (the
        loop of every deal, with what the draws share looked up once)."""
        cumulative, total, families = self.cumulative, self.total, self.families
        last = len(families) - 1
        uniform = rng.random
        out = []
        for _ in range(count):
            i = bisect_right(cumulative, uniform() * total)
            pieces = families[i if i < last else last].pieces
            out.append(pieces[below(rng, len(pieces))])
        return out


class WeightedDealing:
    name = "weighted-dealing"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "guarantee": "\"one-fits\": a set where nothing fits is drawn again; \"tiered\": the "
                     "score-tier rules; \"none\": no guarantee",
        "max_attempts": "draws before the fallback set is dealt",
        "tiers": "score tiers: from_score and the family weights of each tier",
    }

    def __init__(self, params: Params) -> None:
        self.where = params.path
        self.prefix = params.prefix
        self.guarantee = params.string("guarantee", "one-fits", choices=GUARANTEES)
        self.max_attempts = params.integer("max_attempts", 100, minimum=1, maximum=10_000)
        self.tiers: list[tuple[int, dict[str, float]]] = []
        if params.has("tiers"):
            for tier in params.tables("tiers"):
                start = tier.integer("from_score", minimum=0)
                weights_table = tier.table_of("weights")
                weights = {name: weights_table.number(name, minimum=0)
                           for name in weights_table.names()}
                weights_table.finish()
                tier.finish()
                self.tiers.append((start, weights))
            starts = [s for s, _ in self.tiers]
            if starts != sorted(starts) or starts[0] != 0:
                raise params.error("tiers", "expected tiers in increasing from_score order, "
                                   f"the first from 0; found {starts}")
        self._ruleset: Any = None  # the ruleset the tables below are built for
        self._tables: list[WeightTable] = []
        self._largest: list[Piece] = []
        self._slots = 3

    @hookimpl
    def blockyard_check_ruleset(self, ruleset: Any) -> None:
        names = {f.name for f in ruleset.families}
        for i, (_, weights) in enumerate(self.tiers):
            for name in weights:
                if name not in names:
                    raise RulesetError(f"unknown piece family {name!r} (families: "
                                       f"{', '.join(sorted(names))})", path=self.where,
                                       key=f"{self.prefix}.tiers[{i}].weights.{name}")
        try:
            self._bind(ruleset)
        except ValueError as exc:
            raise RulesetError(str(exc), path=self.where, key=self.prefix) from None

    def _bind(self, ruleset: Any) -> None:
        """Build what every deal of ``ruleset`` reads, once: the weight table of
        each tier, the pieces largest first, the number of tray slots."""
        tiers: list[dict[str, float] | None] = [w for _, w in self.tiers]
        self._tables = [WeightTable(ruleset.families, weights) for weights in tiers or [None]]
        self._largest = sorted(ruleset.pieces, key=lambda p: -p.size)  # stable: table order
        self._slots = ruleset.tray_slots
        self._ruleset = ruleset

    def tier_of(self, score: int) -> int:
        """The index of the tier for ``score`` (0 without tiers)."""
        tier = 0
        for i, (start, _) in enumerate(self.tiers):
            if score >= start:
                tier = i
        return tier

    def table(self, ruleset: Any, tier: int) -> WeightTable:
        """The weight table of ``tier`` (0 without tiers) for ``ruleset``."""
        if ruleset is not self._ruleset:
            self._bind(ruleset)
        return self._tables[tier]

    def largest_first(self, ruleset: Any) -> list[Piece]:
        """The pieces of ``ruleset``, most cells first (ties: table order)."""
        if ruleset is not self._ruleset:
            self._bind(ruleset)
        return self._largest

    @hookimpl
    def blockyard_deal(self, game: Any, index: int) -> list[Piece]:
        if game.ruleset is not self._ruleset:  # bound by blockyard_check_ruleset
            self._bind(game.ruleset)
        table = self._tables[self.tier_of(game.score) if self.tiers else 0]
        slots = self._slots
        pieces = table.draw_set(game.stream("deal", index), slots)
        if self.guarantee == "none":
            return pieces
        fits = game.piece_fits_somewhere
        if self.guarantee == "one-fits":
            attempt = 1
            while not _some_fits(fits, pieces):
                if attempt >= self.max_attempts:
                    return self._fallback(game, pieces, avoid_triple=False)
                pieces = table.draw_set(game.stream("deal", index, attempt), slots)
                attempt += 1
            return pieces
        # tiered
        attempt = 1
        while True:
            identical = _identical(pieces)
            if not identical and _some_fits(fits, pieces):
                return pieces
            if attempt >= self.max_attempts:
                return self._fallback(game, pieces, avoid_triple=True)
            rng = game.stream("deal", index, attempt)
            attempt += 1
            if identical:
                pieces[-1] = table.draw(rng)
            else:
                pieces = table.draw_set(rng, slots)

    def _fallback(self, game: Any, pieces: list[Piece], *, avoid_triple: bool) -> list[Piece]:
        """The last piece becomes the largest piece that fits now (ties: table
        order); with ``avoid_triple``, never one that makes the whole set (of 3
        or more) identical. When none fits (tiered: only the others' piece
        fits), the last is the largest piece that is not the others', fitting
        or not: "never three identical" is absolute (tiered §4.3)."""
        order = self.largest_first(game.ruleset)
        rest = pieces[:-1]
        for candidate in order:
            if avoid_triple and _identical([*rest, candidate]):
                continue
            if game.piece_fits_somewhere(candidate):
                return [*rest, candidate]
        if avoid_triple and _identical(pieces):
            for candidate in order:
                if candidate != pieces[0]:
                    return [*rest, candidate]
        return pieces


def _some_fits(fits: Any, pieces: list[Piece]) -> bool:
    """Whether some piece of the set fits (``fits``: the game's test)."""
    for piece in pieces:  # noqa: SIM110 (a loop: no generator on the hot path)
        if fits(piece):
            return True
    return False


def _identical(pieces: list[Piece]) -> bool:
    """A set of three or more pieces that are all the same (tiered §4.3); sets
    of one or two slots have no such rule."""
    return len(pieces) >= 3 and pieces.count(pieces[0]) == len(pieces)
