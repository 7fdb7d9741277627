"""Bots: players that choose their moves through the public game API.

::

    from blockyard import bots
    bot = bots.get_bot("search")
    action = bot.choose(game)          # ("place", slot, row, col), ("rotate", 0), ("hard",) …
    game.apply(action)                 # or: bot.play(game) to the end

Three bots come with Blockyard (``list_bots()``):

``random``
    a legal move chosen at random.
``greedy``
    the move with the most points now (ties broken at random).
``search``
    plans the whole tray: every order of the tray pieces and, where the
    ruleset lets pieces turn, every turn, kept to the best ``beam`` positions
    after each piece, judged by the points and by a board evaluation (the
    perimeter of the empty area, closed holes, room for the largest pieces and
    how much of the next deal would fit).

Every bot plays every tray ruleset (it takes ``swap``, ``rotate`` and, after
the end, ``continue`` where the ruleset offers them) and Sudoku Bloxx (it picks
a column and drops the stone). A bot is deterministic: the same bot
parameters and the same game always give the same choice, because the only
randomness is a stream keyed by the bot's ``seed``, the game's seed and the
number of moves made. A bot never changes the game it looks at and sees only
what a player sees: the board, the tray, the falling stone and the stones
shown as upcoming — never future deals.

:meth:`Bot.steps` is the incremental form: a generator that does the work in
small steps and yields the best action found so far after each, so a game
window can spread a hint over several frames; :meth:`Bot.choose` with
``budget_ms`` stops it early (the choice is then the best found in time, which
may depend on the machine's speed; without a budget it never does).

Third-party packages add bots through the ``blockyard`` entry-point group by
implementing the ``blockyard_register_bots(register)`` hook; during a session
:func:`register_bot` does the same.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import IllegalMove, PluginError
from .geometry import Board, Geometry, PieceGeometry
from .pieces import Piece
from .results import LandingFacts, TrayFacts

BotAction = tuple[Any, ...]
"""An action as a bot returns it: ``("place", slot, row, col)`` or
``(action_name, *args)`` — a log entry that :meth:`blockyard.Game.apply` performs."""

DEFAULT_SECONDS_PER_MOVE = 1.0
"""How far :meth:`Bot.play` advances the game clock after each move (rulesets
with a clock: eu-timed, Sudoku Bloxx); a bot thinks for a second."""

MAX_ACTIONS_BETWEEN_MOVES = 12
""":meth:`Bot.play` places or drops after at most this many other actions in a row."""


# ----------------------------------------------------------------------------------------
# Evaluation of candidate moves
# ----------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Outcome:
    """What a tray move would do: ``points``, ``lines`` (regions completed),
    ``bits`` (the board afterwards), ``combo`` and ``state`` (the plugins'
    saved state afterwards)."""

    points: int
    lines: int
    bits: int
    combo: int
    state: dict[str, Any]


def _evaluate(game: Any, moves: list[tuple[int, int, int]]) -> list[Outcome]:
    """The outcome of each ``(slot, row, col)`` of ``game`` as it stands, exactly
    as :meth:`~blockyard.TrayGame.place` would do it: the one place bots ask the
    engine about candidate moves, through :meth:`~blockyard.TrayGame.evaluate`
    (the same plugins as ``place``, none of the result sets bots do not read)."""
    state = game.state
    return [Outcome(ev.points, ev.lines, ev.bits, ev.combo, state)
            for ev in game.evaluate(moves)]


def _collapse(geo: Geometry, bits: int, result: Any) -> int:
    """The board after a gravity drop, from a move's ``row_drops``."""
    cols, row_mask = geo.cols, (1 << geo.cols) - 1
    gone = sum(1 for r in result.regions if r.kind == "row")
    out = 0
    for dest, drop in enumerate(result.row_drops):
        if dest < gone:
            continue
        src = dest - drop
        out |= ((bits >> (src * cols)) & row_mask) << (dest * cols)
    return out


class _Hypothetical:
    """Moves on positions the game has not reached (later pieces of the tray),
    asked of the same clearing and scoring plugins as a real move."""

    def __init__(self, game: Any) -> None:
        self.game = game
        ruleset = game.ruleset
        self.geo: Geometry = game.grid.geo
        self.zeros = [0] * self.geo.size
        hooks = ruleset.hooks
        self._clear: Callable[..., Any] = lambda board, mask, piece, row, col: hooks.clear(
            game, board, mask, piece, row, col, "bot")
        self._score: Callable[..., Any] = lambda facts: hooks.score(game, facts, "bot")

    def place(self, bits: int, combo: int, state: dict[str, Any], piece: Piece,
              info: PieceGeometry, anchor: int) -> Outcome:
        geo = self.geo
        row, col = divmod(anchor, geo.cols)
        mask = info.shape << anchor
        board = Board(geo, bits | mask)
        clearing = self._clear(board, mask, piece, row, col)
        regions = tuple(clearing.regions)
        after = clearing.board.bits
        lines = len(regions)
        cleared = None if clearing.cleared is None else clearing.cleared & board.bits
        facts = TrayFacts(piece, piece.size, regions, lines, lines > 0 and after == 0, combo,
                          state, row, col, mask, geo, cleared)
        scoring = self._score(facts)
        new_state = {**state, **scoring.state} if scoring.state else state
        return Outcome(scoring.points, lines, after, scoring.combo, new_state)


# ----------------------------------------------------------------------------------------
# The bot base class
# ----------------------------------------------------------------------------------------

class Bot:
    """A player. Subclasses implement :meth:`tray_steps` (and may override
    :meth:`falling_value` for Sudoku Bloxx).

    Parameters every bot takes: ``seed`` (its random stream; default 0) and
    ``continues`` (take an after-the-end rescue such as eu's continue; default
    ``True``).
    """

    name: ClassVar[str] = "bot"

    def __init__(self, *, seed: int = 0, continues: bool = True) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"bot {self.name!r}: seed: expected an integer, found {seed!r}")
        self.seed = seed
        self.continues = bool(continues)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seed={self.seed}>"

    # -- the public API -------------------------------------------------------------------

    def choose(self, game: Any, *, budget_ms: float | None = None) -> BotAction | None:
        """The action the bot takes now, without changing ``game``; ``None`` when
        the game is over and the bot does nothing more. With ``budget_ms``, the
        best action found within that many milliseconds."""
        deadline = None if budget_ms is None else time.perf_counter() + budget_ms / 1000
        best: BotAction | None = None
        for found in self.steps(game):  # the last one yielded is the choice
            best = found
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return best

    def steps(self, game: Any) -> Iterator[BotAction | None]:
        """The incremental form of :meth:`choose`: a generator doing the work in
        small steps, yielding the best action found so far after each (at
        least once). The last value yielded is :meth:`choose`'s answer.
        Drop the generator when ``game`` changes."""
        if game.over:
            yield self._after_end(game)
            return
        yield from game.mode.bot_steps(self, game)

    def play(self, game: Any, max_moves: int | None = None, *,
             seconds_per_move: float = DEFAULT_SECONDS_PER_MOVE) -> int:
        """Play ``game`` until it is over (and no after-the-end action is taken)
        or ``max_moves`` more moves were made; returns the moves made. After each
        move (a placed piece, a landed stone) the game clock advances by
        ``seconds_per_move`` — it matters only for rulesets with a clock."""
        if max_moves is not None and (isinstance(max_moves, bool)
                                      or not isinstance(max_moves, int) or max_moves < 0):
            raise ValueError(f"max_moves: expected a whole number >= 0, found {max_moves!r}")
        start = game.moves
        others = 0
        while max_moves is None or game.moves - start < max_moves:
            action = self.choose(game)
            if action is None:
                break
            moved = action[0] in game.mode.move_actions
            if not moved:
                others += 1
                if others > MAX_ACTIONS_BETWEEN_MOVES and not game.over:
                    action = self._fallback(game)
                    moved = True
            if moved:
                others = 0
            before = game.moves
            game.apply(list(action))
            if game.moves > before and seconds_per_move and game.time_left is not None \
                    and not game.over:
                game.tick(seconds_per_move)
        return int(game.moves - start)

    # -- shared parts ---------------------------------------------------------------------

    def rng(self, game: Any) -> random.Random:
        """The bot's random stream for the game's current position."""
        return random.Random(f"blockyard-bot:{self.name}:{self.seed}:{game.seed}:"
                             f"{game.moves}:{len(game.log)}")

    def _after_end(self, game: Any) -> BotAction | None:
        if not self.continues:
            return None
        for action in game.actions():
            if action.after_end and not action.takes_slot:
                return (action.name,)
        return None

    def _rescue(self, game: Any) -> BotAction | None:
        """No tray piece fits: the first available rescue (a swap)."""
        for action in game.actions():
            if action.rescue and action.name != "end":
                if action.takes_slot:
                    slot = next(s for s, p in enumerate(game.tray) if p is not None)
                    return (action.name, slot)
                return (action.name,)
        return None

    def _can_turn_to_fit(self, game: Any) -> bool:
        if not game.has_action("rotate"):
            return False
        free = ~game.grid.bits & game.grid.geo.full
        for orientations in _orientations(game).values():
            for _, _, info in orientations[1:]:
                if game.grid.geo.fits(free, info):
                    return True
        return False

    def _fallback(self, game: Any) -> BotAction:
        """A move, when a bot keeps choosing other actions (the mode's ``bot_fallback``)."""
        action: BotAction = game.mode.bot_fallback(self, game)
        return action

    def tray_steps(self, game: Any) -> Iterator[BotAction]:
        """Tray games, some tray piece fits (possibly after turning it): yield
        choices, best last."""
        raise NotImplementedError

    # -- Sudoku Bloxx (falling games) -----------------------------------------------------

    def _falling_steps(self, game: Any) -> Iterator[BotAction]:
        cur = game.current
        columns = _reachable_columns(game)
        rng = self.rng(game)
        judge = self._falling_judge(game)
        best_col, best_value = cur.col, None
        for col in columns:
            value = judge(col, rng)
            if best_value is None or value > best_value:
                best_col, best_value = col, value
                yield _toward(cur.col, best_col)
        yield _toward(cur.col, best_col)

    def _falling_judge(self, game: Any) -> Callable[[int, random.Random], float]:
        """``falling_value`` for one position: a bot that prepares work shared by
        every column (once per choice) overrides this."""
        return lambda col, rng: self.falling_value(game, col, rng)

    def falling_value(self, game: Any, col: int, rng: random.Random) -> float:
        """How good dropping the current stone into ``col`` is (higher is better)."""
        raise NotImplementedError


# ----------------------------------------------------------------------------------------
# What a bot does in each bundled mode (the modes' ``bot_steps`` and ``bot_fallback``)
# ----------------------------------------------------------------------------------------

def tray_bot_steps(bot: Bot, game: Any) -> Iterator[BotAction | None]:
    """A bot's steps in a running tray game: a rescue (a swap) when no tray piece
    fits even after turning it, else the bot's :meth:`Bot.tray_steps`."""
    if not any(game.fit_masks()) and not bot._can_turn_to_fit(game):
        yield bot._rescue(game)
        return
    yield from bot.tray_steps(game)


def tray_bot_fallback(bot: Bot, game: Any) -> BotAction:
    """The first legal placement (``IllegalMove`` when there is none)."""
    moves = game.legal_moves()
    if not moves:
        raise IllegalMove(f"bot {bot.name!r} found no move to make")
    return ("place", *moves[0])


def falling_bot_steps(bot: Bot, game: Any) -> Iterator[BotAction]:
    """A bot's steps in a running falling game: steer the stone toward the
    column :meth:`Bot.falling_value` likes best, then drop it."""
    return bot._falling_steps(game)


def falling_bot_fallback(bot: Bot, game: Any) -> BotAction:
    """Drop the stone."""
    return ("hard",)


def _toward(current: int, target: int) -> BotAction:
    if target == current:
        return ("hard",)
    return ("move", 1 if target > current else -1)


def _reachable_columns(game: Any) -> list[int]:
    """The columns the falling stone can be steered to before it lands."""
    cur = game.current
    cols = game.cols
    if cur.row < 0:
        return list(range(cols))
    bits = game.grid.bits
    out = [cur.col]
    for step in (-1, 1):
        col = cur.col + step
        while 0 <= col < cols and not bits >> (cur.row * cols + col) & 1:
            out.append(col)
            if game.landing_row(col) == cur.row:
                break  # the stone would come to rest here
            col += step
    return sorted(out)


def _landing(game: Any, col: int) -> dict[str, Any]:
    """What dropping the current stone into ``col`` would do, asked of the
    plugins: ``points``, ``error``, ``discarded``, ``areas``."""
    cur = game.current
    row = -1 if cur.row < 0 and game.column_full(col) else game.landing_row(col, cur.row)
    points, error, discarded, areas = _Lander(game).land(game, cur.stone, row, col,
                                                         max(0, row - cur.row))
    return {"points": points, "error": error, "discarded": discarded, "areas": areas}


class _Lander:
    """Landings of stones on positions of a falling game, asked of the same
    plugins (``accept_stone``, ``clear``, ``score``) as a real landing; the
    game is never changed."""

    def __init__(self, game: Any) -> None:
        ruleset = game.ruleset
        self.hooks = ruleset.hooks
        self.geo: Geometry = game.grid.geo

    def accepts(self, game: Any, stone: Any, row: int, col: int) -> bool:
        """Whether ``stone`` may stay at ``(row, col)`` of ``game`` (no error)."""
        return self.hooks.accept_stone(game, stone, row, col, "bot") is not False

    def land(self, game: Any, stone: Any, row: int, col: int, dropped: int
             ) -> tuple[int, bool, bool, int]:
        """``(points, error, discarded, areas)`` of ``stone`` landing at ``(row,
        col)`` (``row`` −1: discarded over a full column) after falling
        ``dropped`` rows."""
        discarded = row < 0
        regions: tuple[Any, ...] = ()
        error = False
        if not discarded:
            error = not self.accepts(game, stone, row, col)
            if not error:
                geo = self.geo
                placed = 1 << (row * geo.cols + col)
                board = game.grid.fill(placed, stone.code)
                clearing = self.hooks.clear(game, board, placed, None, row, col, "bot")
                regions = tuple(geo.bind(r) for r in clearing.regions)
        facts = LandingFacts(stone=stone, cell=None if discarded else (row, col),
                             dropped=dropped, error=error, discarded=discarded,
                             regions=regions, state=game.state)
        scoring = self.hooks.score(game, facts, "bot")
        return scoring.points, error, discarded, len(regions)


# ----------------------------------------------------------------------------------------
# Orientations of tray pieces (rulesets with the rotate action)
# ----------------------------------------------------------------------------------------

def _orientations(game: Any) -> dict[int, list[tuple[int, Piece, PieceGeometry]]]:
    """For each tray slot holding a piece: ``(turns, piece, geometry)`` for
    every distinct orientation reachable with the ``rotate`` action (only
    the piece as it is when the ruleset has no rotation)."""
    geo = game.grid.geo
    turning = game.has_action("rotate")
    out: dict[int, list[tuple[int, Piece, PieceGeometry]]] = {}
    for slot, piece in enumerate(game.tray):
        if piece is None:
            continue
        found = [(0, piece, geo.piece(piece.cells))]
        if turning:
            turned = piece
            seen = {piece.cells}
            for turns in range(1, 4):
                turned = turned.rotated()
                if turned.cells in seen:
                    continue
                seen.add(turned.cells)
                if turned.height <= geo.rows and turned.width <= geo.cols:
                    found.append((turns, turned, geo.piece(turned.cells)))
        out[slot] = found
    return out


# ----------------------------------------------------------------------------------------
# random and greedy
# ----------------------------------------------------------------------------------------

class RandomBot(Bot):
    """A legal move chosen at random (Sudoku Bloxx: a reachable column at random)."""

    name = "random"

    def tray_steps(self, game: Any) -> Iterator[BotAction]:
        rng = self.rng(game)
        moves = game.legal_moves()
        if not moves:  # only a turned piece fits
            for slot, orientations in _orientations(game).items():
                if len(orientations) > 1:
                    yield ("rotate", slot)
                    return
        yield ("place", *rng.choice(moves))

    def falling_value(self, game: Any, col: int, rng: random.Random) -> float:
        return rng.random()


class GreedyBot(Bot):
    """The move with the most points now, ties broken at random (Sudoku Bloxx:
    the column whose drop scores most). Pieces are placed as they lie; turning
    only when nothing fits otherwise."""

    name = "greedy"

    def tray_steps(self, game: Any) -> Iterator[BotAction]:
        moves = game.legal_moves()
        if not moves:
            yield from RandomBot.tray_steps(self, game)  # type: ignore[arg-type]
            return
        rng = self.rng(game)
        points = [e.points for e in game.evaluate(moves)]
        best = max(points)
        ties = [m for m, p in zip(moves, points, strict=True) if p == best]
        yield ("place", *rng.choice(ties))

    def falling_value(self, game: Any, col: int, rng: random.Random) -> float:
        return float(_landing(game, col)["points"]) + rng.random() * 0.5


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
            yield from RandomBot.tray_steps(self, game)  # type: ignore[arg-type]
            return
        best = max(leaves, key=lambda n: (n.value, -n.turns, -n.order))
        assert best.first is not None
        yield best.first

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


# ----------------------------------------------------------------------------------------
# The registry of bots
# ----------------------------------------------------------------------------------------

BotFactory = Callable[..., Bot]

_BUNDLED: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot,
                                   "search": SearchBot}
_runtime: dict[str, BotFactory] = {}


def _all_bots() -> dict[str, BotFactory]:
    from .registry import registry

    out = dict(_BUNDLED)
    for name, entry in registry().bots.items():
        out.setdefault(name, entry.factory)
    for name, factory in _runtime.items():
        out.setdefault(name, factory)
    return out


def list_bots() -> list[str]:
    """The names of every bot: Blockyard's (``random``, ``greedy``,
    ``search``), those of installed packages and those registered with
    :func:`register_bot`, sorted."""
    return sorted(_all_bots())


def get_bot(name: str, **params: Any) -> Bot:
    """A new bot by name, built with ``params`` (``get_bot("search", beam=8)``).
    An unknown name or parameter raises ``ValueError`` naming it."""
    bots = _all_bots()
    factory = bots.get(name) if isinstance(name, str) else None
    if factory is None:
        raise ValueError(f"no bot named {name!r} (bots: {', '.join(sorted(bots))})")
    try:
        bot = factory(**params)
    except TypeError as exc:
        raise ValueError(f"bot {name!r}: {exc}") from None
    if not isinstance(bot, Bot) and not (callable(getattr(bot, "choose", None))
                                         and callable(getattr(bot, "play", None))):
        raise PluginError(f"bot {name!r}: its factory returned {bot!r:.60}, which has no "
                          "choose() and play()")
    return bot


def register_bot(name: str, factory: BotFactory) -> None:
    """Add a bot in this process only (tests, notebooks); ``factory(**params)``
    returns a :class:`Bot`. A taken name raises ``PluginError``."""
    if not isinstance(name, str) or not name or len(name) > 64:
        raise PluginError(f"register_bot: expected a bot name, found {name!r}")
    if not callable(factory):
        raise PluginError(f"register_bot: the factory of {name!r} is not callable")
    if name in _all_bots():
        raise PluginError(f"bot name {name!r} is taken")
    _runtime[name] = factory


def unregister_bot(name: str) -> None:
    """Remove a bot added with :func:`register_bot`."""
    if name not in _runtime:
        raise PluginError(f"no bot {name!r} was registered with register_bot")
    del _runtime[name]


def run_steps(steps: Generator[BotAction | None, None, None] | Iterator[BotAction | None],
              budget_ms: float) -> tuple[BotAction | None, bool]:
    """Advance a :meth:`Bot.steps` generator for about ``budget_ms`` milliseconds:
    returns ``(best so far, finished)``. A window calls it once per frame."""
    deadline = time.perf_counter() + budget_ms / 1000
    best = None
    for found in steps:
        best = found
        if time.perf_counter() >= deadline:
            return best, False
    return best, True
