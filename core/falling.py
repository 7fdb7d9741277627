"""Falling play: steer one falling stone at a time (sudoku-bloxx, docs/rules.md §7).

:class:`FallingGame` runs the stone: spawning above the board, moving, falling
with the clock, soft and hard drops, landing on the lowest free cell with no
lock delay, and discarding over a full column. What a landing means is asked of
the plugins: whether the stone may stay (``accept_stone``), which areas it
completes and what changes (``clear``), the points (``score``) and the end
(``end_reason``). The stones come in batches from ``deal``, keyed by the seed
only, so two players of one seed get the same stones whatever they do.

Time is kept in integer microseconds, so ``tick(a); tick(b)`` is exactly
``tick(a + b)`` and replays are exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import IllegalMove
from .game import Game, TraySpec
from .geometry import Region, parse_board_text
from .results import FallingRules, LandingFacts, LandResult
from .ruleset import Ruleset
from .stones import Stone


@dataclass(frozen=True, slots=True)
class FallingStone:
    """The stone in play: ``stone``, ``row`` (−1 above the board … rows − 1), ``col``."""

    stone: Stone
    row: int
    col: int


class FallingGame(Game):
    """A falling-stone game in progress (see :class:`blockyard.Game` for the shared
    members). Falling members: ``current``, ``upcoming``, ``move(dx)``,
    ``soft_drop(on)``, ``hard_drop()``, ``tick(seconds)``, ``errors``,
    ``lines_cleared`` (areas completed), ``last_landing``."""

    _STATE_FIELDS: ClassVar[tuple[str, ...]] = (
        *Game._STATE_FIELDS, "errors", "lines_cleared", "batch_index", "queue", "cur_code",
        "cur_row", "cur_col", "fall_us", "soft")
    _PURE_LISTS: ClassVar[tuple[str, ...]] = ("queue",)
    _COUNTERS: ClassVar[tuple[str, ...]] = (
        *Game._COUNTERS, "errors", "lines_cleared", "batch_index")
    _PURE_NAMES: ClassVar[dict[str, str]] = {**Game._PURE_NAMES, "queue": "the stone queue"}
    _STEPS: ClassVar[tuple[str, ...]] = (
        *Game._STEPS, "move", "soft_drop", "hard_drop", "tick")

    def __init__(self, ruleset: Ruleset, seed: int, date: str | None) -> None:
        super().__init__(ruleset, seed, date)
        rules = ruleset.hooks.falling_rules(ruleset, "start")
        if rules is None:
            raise ruleset.plugin_error("falling_rules", "returned None; expected FallingRules",
                                       seed=seed, action="start")
        self.rules: FallingRules = rules
        self._fall_interval = round(rules.fall_seconds * 1_000_000)
        self._soft_interval = round(rules.soft_drop_seconds * 1_000_000)
        self.errors = 0
        self.lines_cleared = 0  # completed areas (rows, columns, blocks)
        self.batch_index = 0
        self.queue: list[int] = []
        self.cur_code = 0
        self.cur_row = -1
        self.cur_col = 0
        self.fall_us = 0
        self.soft = False
        self.last_landing: LandResult | None = None

    # -- starting ------------------------------------------------------------------------

    def _load_start(self, *, board: str | None, tray: TraySpec | None,
                    stream: str | None) -> dict[str, Any]:
        if tray is not None:
            raise ValueError(f"tray: ruleset {self.ruleset.id!r} has no tray (tray games only)")
        if board is None:
            board = self.ruleset.given  # [board] given: the stones every game starts with
        if board is not None:
            lines = parse_board_text(board, self.rows, self.cols, ".123456789SJ")
            for r, line in enumerate(lines):
                for c, ch in enumerate(line):
                    if ch != ".":
                        self._board = self._board.fill(1 << (r * self.cols + c),
                                                       Stone.parse(ch).code)
        tokens: list[str] | None = None
        if stream is not None:
            tokens = stream.split()
            for i, token in enumerate(tokens):
                try:
                    self.queue.append(Stone.parse(token).code)
                except ValueError as exc:
                    raise ValueError(f"stream token {i + 1}: {exc}") from None
        return {"board": None if board is None else self.board_text(),
                "stream": None if tokens is None else " ".join(tokens)}

    def _begin(self) -> None:
        reason = self._end_reason(False, "start")
        if reason:
            self.over_reason = reason
            return
        self._spawn()

    # -- public state --------------------------------------------------------------------

    @property
    def errors_allowed(self) -> int | None:
        """The errors that end the game (the ``blockyard_max_errors`` answer, read
        when the ruleset loaded), or ``None`` when errors end nothing."""
        return self.ruleset.errors_allowed

    def discard_points(self) -> int:
        """The points discarding the falling stone over a full column would score
        now, asked of the scoring hook as a landing asks it (nothing changes)."""
        stone = Stone.from_code(self.cur_code)
        facts = LandingFacts(stone=stone, cell=None, dropped=False, error=False,
                             discarded=True, regions=(), state=self.state)
        scoring = self._hooks.score(self, facts, "discard points")
        return int(scoring.points)

    @property
    def board(self) -> tuple[tuple[Stone | None, ...], ...]:
        """Rows of cells: ``None`` or a :class:`Stone`."""
        cols = self.cols
        codes = self._board.colours
        return tuple(tuple(Stone.from_code(codes[r * cols + c]) if codes[r * cols + c] else None
                           for c in range(cols)) for r in range(self.rows))

    def board_text(self) -> str:
        """The board as text: ``.``, ``1``–``9``, ``S`` (symbol) and ``J`` (joker)."""
        return "\n".join("".join("." if cell is None else cell.char for cell in row)
                         for row in self.board)

    @property
    def current(self) -> FallingStone | None:
        """The falling stone, or ``None`` once the game is over."""
        if self.over_reason is not None:
            return None
        return FallingStone(Stone.from_code(self.cur_code), self.cur_row, self.cur_col)

    @property
    def upcoming(self) -> tuple[Stone, ...]:
        """The next stones, shown in advance: ``rules.upcoming`` of them while a
        stone is in play. Reading them asks no plugin and changes nothing: the
        engine deals ahead whenever a stone spawns, so the queue always holds
        them (a game over before its first stone shows none)."""
        return tuple(Stone.from_code(code) for code in self.queue[:self.rules.upcoming])

    @property
    def fall_progress(self) -> float:
        """How far (0–1) the stone is towards its next fall step (for smooth drawing)."""
        return min(1.0, self.fall_us / self._interval())

    def landing_row(self, col: int | None = None, from_row: int | None = None) -> int:
        """The row the stone would land on in ``col`` falling from ``from_row``
        (defaults: the current stone's); −1 when the column is full."""
        col = self.cur_col if col is None else col
        row = self.cur_row if from_row is None else from_row
        bits, cols = self._board.bits, self.cols
        while row + 1 < self.rows and not bits >> ((row + 1) * cols + col) & 1:
            row += 1
        return row

    def column_full(self, col: int) -> bool:
        """Whether nothing more fits in ``col`` (its top cell is filled)."""
        return bool(self._board.bits >> col & 1)

    # -- actions -------------------------------------------------------------------------

    def _clone_into(self, twin: Game) -> None:
        assert isinstance(twin, FallingGame)
        twin.queue = self.queue.copy()

    def _guarded(self, action: Callable[..., Any], *args: Any) -> Any:
        """Run ``action`` so that a plugin's failure leaves the game as it was."""
        before = self.snapshot_state()
        log_length = len(self.log)
        last = list(self.log[-1]) if self.log else None
        try:
            return action(*args)
        except BaseException:
            self._restore_state(before)
            del self.log[log_length:]
            if last is not None:
                self.log[-1] = last
            raise

    def move(self, dx: int) -> bool:
        """Move the stone one column (``dx`` −1 or +1); ``False`` when blocked."""
        return bool(self._guarded(self._move, dx))

    def _move(self, dx: int) -> bool:
        self._require_running()
        if type(dx) is not int or dx not in (-1, 1):
            raise IllegalMove(f"move: expected -1 or +1, found {dx!r}")
        col = self.cur_col + dx
        if not 0 <= col < self.cols:
            return False
        if self.cur_row >= 0 and self._board.bits >> (self.cur_row * self.cols + col) & 1:
            return False
        self.cur_col = col
        self.log.append(["move", dx])
        self._land_if_resting()
        return True

    def soft_drop(self, on: bool) -> None:
        """Start (``True``) or stop fast falling."""
        self._require_running()
        if not isinstance(on, bool):
            raise IllegalMove(f"soft_drop: expected True or False, found {on!r}")
        if on == self.soft:
            return
        self.soft = on
        self.fall_us = min(self.fall_us, self._interval())
        self.log.append(["soft", on])

    def hard_drop(self) -> LandResult:
        """Drop the stone at once: +1 point per row fallen (``dropped``)."""
        result: LandResult = self._guarded(self._hard_drop)
        return result

    def _hard_drop(self) -> LandResult:
        self._require_running()
        self.log.append(["hard"])
        if self.cur_row < 0 and self.column_full(self.cur_col):
            return self._land(0)
        target = self.landing_row()
        dropped = target - self.cur_row
        self.cur_row = target
        return self._land(dropped)

    def tick(self, seconds: float) -> list[LandResult]:
        """Advance falling and the clock by ``seconds``; returns the landings."""
        us = self._seconds_to_us(seconds)
        landed: list[LandResult] = self._guarded(self._advance_clock, us)
        return landed

    def _advance_clock(self, us: int) -> list[LandResult]:
        if self.over_reason is not None or us == 0:
            return []
        self._log_tick(us)
        remaining = us
        if self._limit_us is not None:
            remaining = min(remaining, self._limit_us - self.elapsed_us)
        landed: list[LandResult] = []
        while self.over_reason is None:
            need = self._interval() - self.fall_us
            if remaining < need:
                self.fall_us += remaining
                self.elapsed_us += remaining
                break
            remaining -= need
            self.elapsed_us += need
            self.fall_us = 0
            result = self._fall_step()
            if result is not None:
                landed.append(result)
        if self.over_reason is None and self._limit_us is not None \
                and self.elapsed_us >= self._limit_us:
            self.over_reason = "time"
        return landed

    def _actions(self) -> dict[str, Callable[..., Any]]:
        return {**super()._actions(), "move": self.move, "soft": self.soft_drop,
                "hard": self.hard_drop,
                "tick": lambda us: self._guarded(self._advance_clock, self._log_us(us))}

    # -- the stone's life ----------------------------------------------------------------

    def _interval(self) -> int:
        return self._soft_interval if self.soft else self._fall_interval

    def _fill_queue(self, count: int) -> None:
        while len(self.queue) < count:
            batch = self._hooks.deal(self, self.batch_index)
            if not batch or not all(isinstance(stone, Stone) for stone in batch):
                raise self.ruleset.plugin_error(
                    "deal", f"returned {batch!r:.80} for batch {self.batch_index}; expected "
                    "a non-empty list of Stone", seed=self.seed, action="deal")
            self.batch_index += 1
            self.queue.extend(stone.code for stone in batch)

    def _spawn(self) -> None:
        # deal ahead: the stone to spawn and every stone ``upcoming`` shows
        self._fill_queue(1 + self.rules.upcoming)
        self.cur_code = self.queue.pop(0)
        self.cur_row = -1
        self.fall_us = 0
        start = self.rules.spawn_col
        for distance in range(self.cols):
            for col in (start - distance, start + distance):
                if 0 <= col < self.cols and not self.column_full(col):
                    self.cur_col = col
                    return
        self.cur_col = start

    def _fall_step(self) -> LandResult | None:
        if self.cur_row < 0 and self.column_full(self.cur_col):
            return self._land(0)
        if self.landing_row() == self.cur_row:
            return self._land(0)
        self.cur_row += 1
        return self._land_if_resting()

    def _land_if_resting(self) -> LandResult | None:
        if self.cur_row >= 0 and self.landing_row() == self.cur_row:
            return self._land(0)
        return None

    def _land(self, dropped: int) -> LandResult:
        stone = Stone.from_code(self.cur_code)
        row, col = self.cur_row, self.cur_col
        discarded = row < 0
        error = False
        regions: tuple[Region, ...] = ()
        jokers: list[tuple[int, int]] = []
        emptied: frozenset[tuple[int, int]] = frozenset()
        new_board = None
        if not discarded:
            accepted = self._hooks.accept_stone(self, stone, row, col)
            error = accepted is False
        if not discarded and not error:
            placed = 1 << (row * self.cols + col)
            board = self._board.fill(placed, self.cur_code)
            clearing = self._hooks.clear(self, board, placed, None, row, col, "land")
            new_board = clearing.board
            regions = tuple(self._geo.bind(r) for r in clearing.regions)
            jokers = [divmod(i, self.cols) for i, (a, b) in
                      enumerate(zip(board.colours, new_board.colours, strict=True)) if a != b]
            emptied = self._geo.cells_of(board.bits & ~new_board.bits)
        facts = LandingFacts(stone=stone, cell=None if discarded else (row, col),
                             dropped=dropped, error=error, discarded=discarded,
                             regions=regions, state=self.state, cleared_cells=emptied)
        scoring = self._hooks.score(self, facts, "land")
        if new_board is not None:
            self._board = new_board
        if error:
            self.errors += 1
        self.score += scoring.points
        if scoring.state:
            self.state.update(scoring.state)
        self.moves += 1
        self.lines_cleared += len(regions)
        result = LandResult(scoring.points, row, col, error, discarded,
                            list(regions), jokers, stone, dropped)
        self.last_landing = result
        reason = self._end_reason(False, "land")
        if reason:
            self.over_reason = reason
        else:
            self._spawn()
        return result


