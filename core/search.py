"""The ``search`` bot: it plans the whole tray (every order of the tray pieces
and, where the ruleset lets pieces turn, every turn), keeping the best ``beam``
positions after each piece, judged by the points and a bitboard evaluation of
the board; in a falling game it looks one stone ahead on clones of the game.
Registered by :mod:`blockyard.bots`."""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any

from .botbase import (
    PLANNED_ACTIONS,
    Bot,
    RandomBot,
    _evaluate,
    _Hypothetical,
    _Lander,
    _orientations,
    _reachable_columns,
    aimed_gains,
    best_points,
)
from .errors import PluginError
from .geometry import Geometry, PieceGeometry
from .pieces import Piece
from .results import TrayFacts

BotAction = tuple[Any, ...]
"""An action as a bot returns it: ``("place", slot, row, col)`` or
``(action_name, *args)`` — a log entry that :meth:`blockyard.Game.apply` performs."""

DEFAULT_SECONDS_PER_MOVE = 1.0
"""How far :meth:`Bot.play` advances the game clock after each move (rulesets
with a clock: eu-timed, Sudoku Bloxx); a bot thinks for a second."""

MAX_ACTIONS_BETWEEN_MOVES = 12
""":meth:`Bot.play` places or drops after at most this many other actions in a row."""

AIMED_PLANS = 3
"""How many aimed actions (a hammer's best cells) the search plans from, at most,
besides the plan without one."""


# ----------------------------------------------------------------------------------------
# search
# ----------------------------------------------------------------------------------------

class _Features:
    """A board evaluation on bitboards, built once per ruleset size."""

    def __init__(self, game: Any) -> None:
        geo: Geometry = game.grid.geo
        self.geo = geo
        rows, cols, full = geo.rows, geo.cols, geo.full
        self.full = full
        col0, col_last = geo.col_masks[0], geo.col_masks[-1]
        row0, row_last = geo.row_masks[0], geo.row_masks[-1]
        self.not_last_col = full & ~col_last
        self.not_first_col = full & ~col0
        self.not_last_row = full & ~row_last
        self.walls = (col0, col_last, row0, row_last)
        self.cols = cols
        self.rows = rows
        # the pieces that may be dealt, with their weights: room for the big
        # ones and the share of a deal that fits
        weights: dict[frozenset[Any], float] = {}
        for family in game.ruleset.families:
            if not family.pieces:
                continue
            share = max(family.weight, 0.0) / len(family.pieces)
            for piece in family.pieces:
                weights[piece.cells] = weights.get(piece.cells, 0.0) + (share or 1.0)
        total = sum(weights.values()) or 1.0
        shapes = [(geo.piece(cells), w / total, len(cells)) for cells, w in weights.items()
                  if max(r for r, _ in cells) < rows and max(c for _, c in cells) < cols]
        shapes.sort(key=lambda t: (-t[2], t[0].shape))
        self.dealt = tuple((info, w) for info, w, _ in shapes)
        largest = shapes[0][2] if shapes else 1
        self.big = tuple(info for info, _, size in shapes if size >= max(4, largest - 1))[:6]

    def quick(self, bits: int) -> float:
        """A cheap evaluation (higher is better): empty cells, the perimeter of
        the empty area and closed single holes."""
        empty = ~bits & self.full
        cols = self.cols
        col0, col_last, row0, row_last = self.walls
        trans = ((empty ^ (empty >> 1)) & self.not_last_col).bit_count()
        trans += ((empty ^ (empty >> cols)) & self.not_last_row).bit_count()
        trans += (empty & col0).bit_count() + (empty & col_last).bit_count()
        trans += (empty & row0).bit_count() + (empty & row_last).bit_count()
        filled = bits
        left = ((filled << 1) & self.not_first_col) | col0
        right = ((filled >> 1) & self.not_last_col) | col_last
        up = (filled << cols) | row0
        down = (filled >> cols) | row_last
        holes = (empty & left & right & up & down).bit_count()
        return empty.bit_count() * 1.0 - trans * 1.0 - holes * 6.0

    def full_value(self, bits: int) -> float:
        """:meth:`quick` plus room for the largest pieces and the weighted share
        of dealt pieces that would fit."""
        free = ~bits & self.full
        fits = self.geo.fits
        value = self.quick(bits)
        for info in self.big:
            if not fits(free, info):
                value -= 12.0
        missing = 0.0
        for info, weight in self.dealt:
            if not fits(free, info):
                missing += weight
        return value - 80.0 * missing


@dataclass(slots=True)
class _Node:
    """A position in the tray plan."""

    bits: int
    combo: int
    state: dict[str, Any]
    left: tuple[int, ...]          # slots still to place
    score: float                   # points and line bonus so far, weighted
    first: BotAction | None        # the plan's first action
    turns: int                     # turns the plan needs
    order: int                     # generation order, for ties
    value: float = 0.0


class SearchBot(Bot):
    """Plans the whole tray by beam search and chooses the first action of the
    best plan (see the module). Parameters: ``beam`` (positions kept after each
    piece; default 12), ``width`` (candidates per position checked exactly
    with the plugins; default 3 × beam), ``points_weight`` (how much points count
    against the board evaluation; default 1)."""

    name = "search"

    def __init__(self, *, seed: int = 0, continues: bool = True, beam: int = 12,
                 width: int | None = None, points_weight: float = 1.0) -> None:
        super().__init__(seed=seed, continues=continues)
        for label, value in (("beam", beam), ("width", width)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"bot 'search': {label}: expected a whole number >= 1, "
                                 f"found {value!r}")
        self.beam = beam
        self.width = width if width is not None else 3 * beam
        self.points_weight = float(points_weight)
        self._features: dict[Any, _Features] = {}
        self._units: dict[Any, float] = {}
        # Sudoku Bloxx: the values of the columns at the last position looked at
        self._falling_memo: tuple[Any, dict[int, float]] | None = None

    # -- tray ---------------------------------------------------------------------------

    def _context(self, game: Any) -> tuple[_Features, float]:
        key = game.ruleset.digest
        features = self._features.get(key)
        if features is None:
            features = self._features[key] = _Features(game)
            self._units[key] = self._line_unit(game)
        return features, self._units[key]

    @staticmethod
    def _line_unit(game: Any) -> float:
        """The points of a one-line clear by a one-cell piece, to weigh points in lines."""
        geo = game.grid.geo
        region = game.ruleset.regions[0] if game.ruleset.regions else None
        if region is None:
            return 1.0
        dot = Piece(frozenset({(0, 0)}), id="dot")
        facts = TrayFacts(piece=dot, cells=1, regions=(region,), lines=1, perfect_clear=False,
                          combo=0, state=game.state, row=0, col=0, placed_mask=1, geometry=geo)
        try:
            points = game.ruleset.hooks.score(game, facts, "bot").points
        except PluginError:
            return 1.0
        return float(points) if points > 1 else 1.0

    def tray_steps(self, game: Any) -> Iterator[BotAction]:
        planned = yield from self._plan(game)
        if planned is None:
            yield from RandomBot.tray_steps(self, game)  # type: ignore[arg-type]
            return
        first, value = planned
        yield first
        aimed = yield from self._aimed(game, first, value)
        if aimed is not None:
            yield aimed

    def _aimed(self, game: Any, first: BotAction, value: float
               ) -> Generator[BotAction, None, BotAction | None]:
        """An action aimed at a slot, a cell or both (a hammer) whose plan is
        better than ``value``, the best plan without it (whose first action,
        ``first``, is yielded between the plans looked at), or ``None``. Only
        actions after which a placement makes more points than any placement
        now are planned (:func:`~blockyard.botbase.aimed_gains`), the
        :data:`AIMED_PLANS` with the most points; each is planned from a clone
        that took it, its own points weighted as the plan's."""
        if not any(action.target != "none" and action.name not in PLANNED_ACTIONS
                   for action in game.actions()):
            return None
        best_value, best = value, None
        pw = self.points_weight / self._context(game)[1] * 10.0
        for _, action, trial in aimed_gains(game, best_points(game))[:AIMED_PLANS]:
            plan = self._plan(trial)
            try:
                while True:
                    next(plan)  # the trial's provisional choices are not this game's
                    yield first
            except StopIteration as done:
                planned = done.value
            if planned is None:
                continue
            total = planned[1] + (trial.score - game.score) * pw
            if total > best_value:
                best_value, best = total, action
        return best

    def _plan(self, game: Any) -> Generator[BotAction, None, tuple[BotAction, float] | None]:
        """The beam search of the tray (see the class): yields the first action of
        the best plan so far, and returns the best plan's first action and value
        (``None`` when no piece can be placed)."""
        features, unit = self._context(game)
        hypo = _Hypothetical(game)
        geo = features.geo
        oris = _orientations(game)
        fit_masks = game.fit_masks()
        regions = tuple(r.mask for r in game.ruleset.regions)
        touching: dict[int, tuple[int, ...]] = {}
        pw = self.points_weight / unit * 10.0
        root = _Node(game.grid.bits, game.combo, game.state, tuple(sorted(oris)), 0.0, None,
                     0, 0)
        beam = [root]
        leaves: list[_Node] = []
        best_now: BotAction | None = None
        counter = 0
        for depth in range(len(root.left)):
            candidates: list[tuple[float, int, _Node, int, int, Piece, PieceGeometry, int]] = []
            for node in beam:
                free = ~node.bits & features.full
                grew = False
                for slot in node.left:
                    for turns, piece, info in oris[slot]:
                        fit = fit_masks[slot] if depth == 0 and turns == 0 else geo.fits(free, info)
                        while fit:
                            low = fit & -fit
                            fit ^= low
                            anchor = low.bit_length() - 1
                            mask = info.shape << anchor
                            new = node.bits | mask
                            touched = touching.get(mask)
                            if touched is None:
                                touched = touching[mask] = tuple(r for r in regions if r & mask)
                            cleared = 0
                            lines = 0
                            for r in touched:
                                if new & r == r:
                                    cleared |= r
                                    lines += 1
                            after = new & ~cleared
                            quick = features.quick(after) + lines * 4.0
                            counter += 1
                            candidates.append((node.score + quick, counter, node, slot, turns,
                                               piece, info, anchor))
                            grew = True
                if not grew:
                    node.value = node.score + features.full_value(node.bits) \
                        - 200.0 * len(node.left)
                    leaves.append(node)
            if not candidates:
                break
            candidates.sort(key=lambda c: (-c[0], c[1]))
            chosen = candidates[:self.width]
            if depth == 0:
                outcomes = _evaluate(game, [(slot, *divmod(anchor, geo.cols))
                                            for _, _, _, slot, turns, _, _, anchor in chosen
                                            if turns == 0])
                exact = iter(outcomes)
            children: dict[tuple[int, tuple[int, ...]], _Node] = {}
            for i, (_, order, node, slot, turns, piece, info, anchor) in enumerate(chosen):
                if depth == 0 and turns == 0:
                    outcome = next(exact)
                else:
                    outcome = hypo.place(node.bits, node.combo, node.state, piece, info, anchor)
                left = tuple(s for s in node.left if s != slot)
                if node.first is None:
                    first: BotAction = ("rotate", slot) if turns else \
                        ("place", slot, *divmod(anchor, geo.cols))
                    total_turns = turns
                else:
                    first, total_turns = node.first, node.turns
                score = node.score + outcome.points * pw + outcome.lines * 2.0
                child = _Node(outcome.bits, outcome.combo, outcome.state, left, score, first,
                              total_turns, order)
                child.value = score + (features.full_value(outcome.bits) if not left
                                       else features.quick(outcome.bits))
                key = (outcome.bits, left)
                old = children.get(key)
                if old is None or (child.value, -child.turns, -child.order) > \
                        (old.value, -old.turns, -old.order):
                    children[key] = child
                if i % 16 == 15 and best_now is not None:
                    yield best_now
            ranked = sorted(children.values(), key=lambda n: (-n.value, n.turns, n.order))
            beam = ranked[:self.beam]
            if beam:
                best_now = beam[0].first
                yield best_now  # type: ignore[misc]
            if depth == len(root.left) - 1:
                leaves.extend(beam)
        if not leaves:
            return None
        best = max(leaves, key=lambda n: (n.value, -n.turns, -n.order))
        if best.first is None:  # the root itself: no piece could be placed
            return None
        return best.first, best.value

    # -- Sudoku Bloxx -------------------------------------------------------------------

    def falling_value(self, game: Any, col: int, rng: random.Random) -> float:
        """Drop into ``col`` on a copy of the game, then look at the next stone:
        points now and next, errors cost 400, discards 100 (their points), and
        every pair of (shown stone, column) the board would still accept counts
        3; plus ``rng.random() / 100`` to break ties. The game is never changed
        and no stone that is not shown is looked at."""
        return self._falling_base(game)(col) + rng.random() * 0.01

    def _falling_judge(self, game: Any) -> Callable[[int, random.Random], float]:
        # ties are broken by a noise per column drawn once per stone, so the
        # choice does not change while the stone is steered to its column
        stream = random.Random(f"blockyard-bot:{self.name}:{self.seed}:{game.seed}:"
                               f"{game.moves}:falling")
        noise = [stream.random() * 0.01 for _ in range(game.cols)]
        base = self._falling_base(game)
        return lambda col, rng: base(col) + noise[col]

    def _falling_base(self, game: Any) -> Callable[[int], float]:
        """The value of dropping the current stone into a reachable column, without
        the tie-break. The values are kept for the position: they depend on the
        game's state but not on the column the stone is in (a reachable column
        is reached the same way from any column), so steering the stone one
        column at a time asks for each column once."""
        state = game.snapshot_state()
        key = (game.ruleset.digest, game.seed,
               repr({name: value for name, value in state.items() if name != "cur_col"}))
        memo = self._falling_memo
        if memo is None or memo[0] != key:
            memo = self._falling_memo = (key, {})
        values = memo[1]
        look: _FallingLook | None = None

        def base(col: int) -> float:
            nonlocal look
            value = values.get(col)
            if value is None:
                if look is None:
                    look = _FallingLook(game)
                value = values[col] = look.value(col)
            return value
        return base


class _FallingLook:
    """The search bot's look ahead in a falling game at one position. What every
    column shares is taken once: the stones shown and the plugins' callers;
    each column's drop is played on a :meth:`~blockyard.Game.clone` of the game
    (never the game itself)."""

    ERROR_COST = 400.0
    """What an error costs on top of its points (it brings the game's end closer)."""
    OVER_COST = 5000.0
    """What ending the game (other than by the clock) costs."""
    NEXT_WEIGHT = 0.8
    """How much the next stone's best landing counts."""
    PAIR_WEIGHT = 3.0
    """What each (shown stone, column) pair the board would accept counts."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.lander = _Lander(game)
        # the stones a player sees: the next one (the copy's falling stone after
        # the drop) and the rest; never one not shown yet
        self.shown = tuple(stone for stone in game.upcoming if stone.digit is not None)

    def value(self, col: int) -> float:
        """How good dropping the current stone into ``col`` (reachable) is."""
        game = self.game
        copy = game.clone()
        start = copy.current.col
        step = 1 if col > start else -1
        for _ in range(abs(col - start)):
            copy._move(step)
        if copy.moves == game.moves:  # not landed on the way: drop it
            copy._hard_drop()
        error_cost = self.ERROR_COST
        value: float = float(copy.score - game.score) \
            - error_cost * (copy.errors - game.errors)
        if copy.over:
            return value - (0.0 if copy.over_reason == "time" else self.OVER_COST)
        lander = self.lander
        cur = copy.current  # the next stone, above the board
        rows = [copy.landing_row(c, -1) for c in range(copy.cols)]
        best: float | None = None
        for c in _reachable_columns(copy):
            row = rows[c]
            points, error, _, _ = lander.land(copy, cur.stone, row, c, row + 1)
            landed = points - error_cost * error
            if best is None or landed > best:
                best = landed
        value += self.NEXT_WEIGHT * (best or 0.0)
        pairs = 0
        for stone in self.shown:
            for c, row in enumerate(rows):
                if row >= 0 and lander.accepts(copy, stone, row, c):
                    pairs += 1
        value += self.PAIR_WEIGHT * pairs
        return value


