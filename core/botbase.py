"""What every bot shares: the :class:`Bot` base class, the tray moves a bot
weighs (:class:`Outcome`, asked of the game's own ``evaluate``), the bundled
modes' bot steps and fallbacks (a mode's ``bot_steps`` and ``bot_fallback``),
the orientations of tray pieces, and the two simple bots (``random`` and
``greedy``). The registry of bots is :mod:`blockyard.bots`; the search bot is
:mod:`blockyard.search`."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import IllegalMove
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
# Actions aimed at a tray slot, a board cell or both
# ----------------------------------------------------------------------------------------

PLANNED_ACTIONS = frozenset({"rotate"})
"""Aimed actions the bots weigh in their own way, not as aimed actions: turning a
piece (the search plans every orientation; greedy turns only when nothing
fits)."""


def aimed_trials(game: Any) -> Iterator[tuple[BotAction, Any]]:
    """Every action aimed at a slot, a cell or both that the rules offer now (but
    :data:`PLANNED_ACTIONS` and actions of a game that is over), at every target
    its plugin allows (:meth:`~blockyard.Game.action_targets`), each taken on a
    :meth:`~blockyard.Game.clone`: ``(action, the clone after it)``. A target
    the plugin's ``perform`` refuses is left out, so a bot proposes only aimed
    actions the game accepts. ``game`` is never changed."""
    if game.over:
        return
    for action in game.actions():
        if action.target == "none" or action.after_end or action.name in PLANNED_ACTIONS:
            continue
        for target in game.action_targets(action.name):
            trial = game.clone()
            try:
                trial.act(action.name, *target)
            except IllegalMove:
                continue
            yield (action.name, *target), trial


def best_points(game: Any) -> int | None:
    """The most points a placement makes now (asked of the game's ``evaluate``),
    or ``None`` when no placement is possible."""
    moves = game.legal_moves()
    if not moves:
        return None
    return int(max(e.points for e in game.evaluate(moves)))


def aimed_gains(game: Any, to_beat: int | None) -> list[tuple[int, BotAction, Any]]:
    """The aimed actions (:func:`aimed_trials`) after which a placement makes more
    points, with the points the action itself scored, than ``to_beat`` (the best
    placement now; ``None``: any): ``(points, action, clone after it)``, most
    points first, in the order the targets come on a tie."""
    found = []
    for order, (action, trial) in enumerate(aimed_trials(game)):
        after = best_points(trial)
        if after is None:
            continue
        gain = trial.score - game.score + after
        if to_beat is None or gain > to_beat:
            found.append((gain, order, action, trial))
    found.sort(key=lambda item: (-item[0], item[1]))
    return [(gain, action, trial) for gain, _, action, trial in found]


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
                if action.target != "none":
                    best = self._best_target(game, action.name)
                    if best is None:
                        continue
                    return (action.name, *best)
                return (action.name,)
        return None

    @staticmethod
    def _best_target(game: Any, name: str) -> tuple[int, ...] | None:
        """The target of the action ``name`` (a cell, or a slot and a cell) after
        which the most placements fit, tried on clones (the first such target on
        a tie; ``None`` when its plugin allows none)."""
        best: tuple[int, tuple[int, ...]] | None = None
        for target in game.action_targets(name):
            trial = game.clone()
            try:
                trial.act(name, *target)
            except IllegalMove:
                continue
            fits = len(trial.legal_moves())
            if best is None or fits > best[0]:
                best = (fits, target)
        return None if best is None else best[1]

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
    only when nothing fits otherwise. An action aimed at a slot, a cell or both
    (a hammer) is taken when it and the best placement after it make more
    points than the best placement now (the first such target on a tie; tried
    on clones, at the targets its plugin allows)."""

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
        aimed = aimed_gains(game, best)
        if aimed:
            yield aimed[0][1]

    def falling_value(self, game: Any, col: int, rng: random.Random) -> float:
        return float(_landing(game, col)["points"]) + rng.random() * 0.5
