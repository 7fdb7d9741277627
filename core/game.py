"""The tray-game engine: one ``Game`` for every tray ruleset.

The engine owns the state (bitboard, tray, counters, clock, log) and the order
of events; every rule question goes to the ruleset's plugins through the hooks
of :mod:`blockyard.hookspecs`. Actions are atomic: each validates completely
before it changes anything, so an :class:`IllegalMove` leaves the game exactly
as it was.
"""

from __future__ import annotations

import copy
import datetime as _dt
import math
import random
from collections.abc import Sequence
from typing import Any

from . import rng
from .errors import IllegalMove
from .geometry import Board, PieceGeometry, parse_board_text
from .pieces import Piece, normalise, parse_art
from .results import MoveFacts, MoveResult, Summary
from .rulefiles import Ruleset, load_ruleset, load_ruleset_text

SNAPSHOT_FORMAT = "blockyard-snapshot/1"
TRAY_SLOTS = 3
OVER_REASONS = ("stuck", "time", "ended")

TraySpec = Sequence[str | Piece | None]


def today_in(timezone: str) -> _dt.date:
    """Today's date in ``timezone`` (``"local"`` or an IANA name)."""
    if timezone == "local":
        return _dt.date.today()
    from zoneinfo import ZoneInfo

    return _dt.datetime.now(ZoneInfo(timezone)).date()


class Game:
    """A tray game in progress. Create one with :func:`blockyard.new_game`."""

    # -- construction ------------------------------------------------------------

    def __init__(self, ruleset: Ruleset, seed: int, date: str | None) -> None:
        self.ruleset = ruleset
        self.seed = seed
        self.date = date
        self.rows = ruleset.rows
        self.cols = ruleset.cols
        self._geo = ruleset.geometry
        hooks = ruleset.hooks
        self._hook = hooks
        self._restricted = hooks.has("allowed_anchors")
        self._has_alternatives = hooks.has("alternatives")
        self._has_after_move = hooks.has("after_move")
        self._has_rescue = hooks.has("rescue")
        self._has_end = hooks.has("end_reason")
        limit = ruleset.time_limit
        self._limit_us: int | None = None if limit is None else round(limit * 1_000_000)
        self._board = Board(self._geo)
        self._tray: list[Piece | None] = [None] * TRAY_SLOTS
        self._info: list[PieceGeometry | None] = [None] * TRAY_SLOTS
        self._fits: tuple[int, ...] | None = None
        self.set_index = 0
        self.score = 0
        self.combo = 0
        self.best_combo = 0
        self.lines_cleared = 0
        self.moves = 0
        self.over_reason: str | None = None
        self.elapsed_us = 0
        self.swaps_left = 0
        self.continues_used = 0
        self.state: dict[str, Any] = {}
        self.log: list[list[Any]] = []

    @classmethod
    def start(cls, ruleset: Ruleset, *, seed: int | None = None, date: _dt.date | None = None,
              board: str | None = None, tray: TraySpec | None = None) -> Game:
        """Start a new game (see :func:`blockyard.new_game`)."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed: expected an integer, found {seed!r}")
        day: str | None = None
        if ruleset.is_daily:
            when = date or today_in(ruleset.timezone)
            day = when.isoformat()
            if seed is None:
                seed = rng.daily_seed(ruleset.id, when)
        elif date is not None:
            day = date.isoformat()
        if seed is None:
            seed = rng.random_seed()
        game = cls(ruleset, seed, day)
        if board is not None:
            game._load_board(board)
        tray_art: list[str | None] | None = None
        if tray is not None:
            tray_art = game._load_tray(tray)
            game.set_index = 1  # the given tray is the game's set 0
        game.log.append(["start", {
            "ruleset": ruleset.to_toml(), "id": ruleset.id, "seed": seed, "date": day,
            "board": None if board is None else game._board.text(), "tray": tray_art}])
        game._hook.game_start(game=game)
        game._settle()
        return game

    def _load_board(self, text: str) -> None:
        lines = parse_board_text(text, self.rows, self.cols, ".#")
        cols = self.cols
        mask = 0
        for r, line in enumerate(lines):
            for c, ch in enumerate(line):
                if ch == "#":
                    mask |= 1 << (r * cols + c)
        self._board.fill(mask, len(self.ruleset.families) + 1)

    def _load_tray(self, tray: TraySpec) -> list[str | None]:
        items = list(tray)
        if len(items) > TRAY_SLOTS:
            raise ValueError(f"tray: at most {TRAY_SLOTS} pieces, found {len(items)}")
        items += [None] * (TRAY_SLOTS - len(items))
        by_cells = {p.cells: p for p in self.ruleset.pieces}
        custom = len(self.ruleset.families) + 1
        out: list[str | None] = []
        for slot, item in enumerate(items):
            if item is None:
                out.append(None)
                continue
            if isinstance(item, Piece):
                cells = item.cells
            elif isinstance(item, str):
                try:
                    cells = parse_art(item)
                except ValueError as exc:
                    raise ValueError(f"tray slot {slot}: {exc}") from None
            else:
                raise ValueError(f"tray slot {slot}: expected ASCII art, a Piece or None, "
                                 f"found {item!r}")
            piece = by_cells.get(cells) or Piece(cells, id="custom", family="custom",
                                                 colour=custom)
            info = self._geo.piece(cells)
            if info.height > self.rows or info.width > self.cols:
                raise ValueError(f"tray slot {slot}: the piece is larger than the board")
            self._set_slot(slot, piece)
            out.append(piece.art)
        return out

    # -- public state ------------------------------------------------------------------

    @property
    def board(self) -> tuple[tuple[int, ...], ...]:
        """Rows of cells: 0 empty, >0 the colour index of a filled cell."""
        return self._board.rows_tuple()

    def board_text(self) -> str:
        """The board as ``.``/``#`` text, rows joined by newlines."""
        return self._board.text()

    @property
    def tray(self) -> tuple[Piece | None, ...]:
        """The three tray slots: a :class:`Piece`, or ``None`` for a used slot."""
        return tuple(self._tray)

    @property
    def over(self) -> bool:
        return self.over_reason is not None

    @property
    def time_left(self) -> float | None:
        """Seconds left on the clock; ``None`` when the ruleset has no clock."""
        if self._limit_us is None:
            return None
        return max(0, self._limit_us - self.elapsed_us) / 1_000_000

    @property
    def grid(self) -> Board:
        """The board object (bitboard and colours), for plugins. Do not mutate it;
        use :meth:`empty_cells` and :meth:`set_tray`."""
        return self._board

    def stream(self, *key: int | str) -> random.Random:
        """The random stream ``(seed, *key)`` (RULES T7)."""
        return rng.stream(self.seed, *key)

    # -- queries ---------------------------------------------------------------------

    def fit_masks(self) -> tuple[int, ...]:
        """For each slot, the bitmask of anchors (bit ``row * cols + col``) where its
        piece fits now; 0 for an empty slot. The fast form of :meth:`legal_moves`."""
        fits = self._fits
        if fits is None:
            geo = self._geo
            free = ~self._board.bits & geo.full
            fits = tuple(0 if info is None else geo.fits(free, info) for info in self._info)
            if self._restricted:
                fits = tuple(self._restrict(slot, m) for slot, m in enumerate(fits))
            self._fits = fits
        return fits

    def _restrict(self, slot: int, mask: int) -> int:
        piece = self._tray[slot]
        if piece is None or not mask:
            return mask
        for allowed in self._hook.allowed_anchors(game=self, piece=piece):
            mask &= allowed
        return mask

    def legal_moves(self) -> list[tuple[int, int, int]]:
        """Every ``(slot, row, col)`` that fits now (none when the game is over)."""
        if self.over_reason is not None:
            return []
        moves: list[tuple[int, int, int]] = []
        for slot, mask in enumerate(self.fit_masks()):
            if mask:
                moves += self._geo.moves(slot, mask)
        return moves

    def can_place(self, slot: int, row: int, col: int) -> bool:
        """Whether ``place(slot, row, col)`` would be accepted."""
        try:
            self._check_move(slot, row, col)
        except IllegalMove:
            return False
        return True

    def piece_fits_somewhere(self, piece: Piece) -> bool:
        """Whether ``piece`` (or, with rotation, one of its turns) fits anywhere now."""
        geo = self._geo
        free = ~self._board.bits & geo.full
        candidates = [piece]
        if self._has_alternatives:
            candidates += [p for answer in self._hook.alternatives(game=self, piece=piece)
                           for p in answer]
        for cand in candidates:
            info = geo.piece(cand.cells)
            if info.height <= self.rows and info.width <= self.cols and geo.fits(free, info):
                return True
        return False

    def any_fits(self) -> bool:
        """Whether some tray piece fits somewhere (the opposite of "stuck")."""
        if any(self.fit_masks()):
            return True
        if self._has_alternatives:
            return any(p is not None and self.piece_fits_somewhere(p) for p in self._tray)
        return False

    # -- actions ---------------------------------------------------------------------

    def _check_move(self, slot: int, row: int, col: int) -> tuple[Piece, int]:
        if self.over_reason is not None:
            raise IllegalMove(f"the game is over ({self.over_reason})")
        piece = self._slot_piece(slot)
        for name, value in (("row", row), ("col", col)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise IllegalMove(f"{name}: expected an integer, found {value!r}")
        info = self._info[slot]
        assert info is not None
        if not self._geo.anchor_ok(info, row, col):
            raise IllegalMove(
                f"piece {piece.id!r} at ({row}, {col}) would leave the "
                f"{self.rows}×{self.cols} board")
        mask = info.shape << (row * self.cols + col)
        if self._board.bits & mask:
            raise IllegalMove(f"piece {piece.id!r} does not fit at ({row}, {col}): "
                              "it would cover filled cells")
        if self._restricted and not self._restrict(slot, 1 << (row * self.cols + col)):
            raise IllegalMove(f"piece {piece.id!r} may not be placed at ({row}, {col})")
        return piece, mask

    def _slot_piece(self, slot: int) -> Piece:
        if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < TRAY_SLOTS:
            raise IllegalMove(f"slot: expected 0, 1 or 2, found {slot!r}")
        piece = self._tray[slot]
        if piece is None:
            raise IllegalMove(f"slot {slot} is empty")
        return piece

    def _evaluate(self, slot: int, row: int, col: int):
        piece, mask = self._check_move(slot, row, col)
        board = self._board.copy()
        board.fill(mask, piece.colour)
        clearing = self._hook.clear(game=self, board=board, placed=mask)
        regions = clearing.regions
        lines = len(regions)
        perfect = lines > 0 and clearing.board.bits == 0
        facts = MoveFacts(piece, piece.size, regions, lines, perfect, self.combo, self.state)
        scoring = self._hook.score(game=self, move=facts)
        result = MoveResult(
            slot=slot, row=row, col=col, piece=piece, points=scoring.points, cells=piece.size,
            placed=frozenset((row + r, col + c) for r, c in piece.cells),
            cleared_rows=tuple(sorted(r.index for r in regions if r.kind == "row")),
            cleared_cols=tuple(sorted(r.index for r in regions if r.kind == "col")),
            lines=lines, combo=scoring.combo, perfect_clear=perfect,
            regions=tuple(r.key for r in regions))
        return result, clearing.board, scoring

    def preview(self, slot: int, row: int, col: int) -> MoveResult:
        """What :meth:`place` would do, changing nothing. Raises ``IllegalMove``
        exactly when ``place`` would."""
        return self._evaluate(slot, row, col)[0]

    def place(self, slot: int, row: int, col: int) -> MoveResult:
        """Place the piece of ``slot`` with its top-left at ``(row, col)``."""
        result, board, scoring = self._evaluate(slot, row, col)
        self._board = board
        self._tray[slot] = None
        self._info[slot] = None
        self._fits = None
        self.score += scoring.points
        self.combo = scoring.combo
        if scoring.combo > self.best_combo:
            self.best_combo = scoring.combo
        if scoring.state:
            self.state.update(scoring.state)
        self.lines_cleared += result.lines
        self.moves += 1
        self.log.append(["place", slot, row, col])
        if self._has_after_move:
            self._hook.after_move(game=self, result=result)
        self._settle()
        return result

    def swap(self) -> None:
        """Discard the tray and deal a new set (rulesets with swaps)."""
        if self.over_reason is not None:
            raise IllegalMove(f"the game is over ({self.over_reason})")
        before = self.snapshot_state()
        try:
            done = self._hook.swap(game=self)
        except IllegalMove:
            self._restore_state(before)
            raise
        if not done:
            self._restore_state(before)
            raise IllegalMove(f"ruleset {self.ruleset.id!r} has no swaps")
        self.log.append(["swap"])
        self._settle()

    def rotate(self, slot: int) -> Piece:
        """Turn the piece of ``slot`` (rulesets with rotation); returns the new piece."""
        if self.over_reason is not None:
            raise IllegalMove(f"the game is over ({self.over_reason})")
        piece = self._slot_piece(slot)
        turned = self._hook.rotate(game=self, piece=piece)
        if turned is None:
            raise IllegalMove(f"ruleset {self.ruleset.id!r} does not allow rotating pieces")
        self._set_slot(slot, turned)
        self.log.append(["rotate", slot])
        return turned

    @property
    def can_continue(self) -> bool:
        """Whether the player may continue now (eu: once, after being stuck)."""
        if self.over_reason is None:
            return False
        return bool(self._hook.continue_game(game=self, apply=False))

    def continue_game(self) -> None:
        """Take the continue rescue (see ``can_continue``)."""
        if not self.can_continue:
            raise IllegalMove("continue is not available now")
        self._hook.continue_game(game=self, apply=True)
        self.continues_used += 1
        self.over_reason = None
        self._fits = None
        self.log.append(["continue"])
        self._settle()

    def end_round(self) -> None:
        """End the game now (reason ``"ended"``)."""
        if self.over_reason is not None:
            raise IllegalMove(f"the game is already over ({self.over_reason})")
        self.over_reason = "ended"
        self.log.append(["end"])

    def tick(self, seconds: float) -> None:
        """Advance the clock of a timed ruleset; does nothing without a clock or
        after the game is over."""
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
                or not math.isfinite(seconds) or seconds < 0:
            raise IllegalMove(f"tick: expected a finite number of seconds >= 0, found {seconds!r}")
        self._advance_clock(round(seconds * 1_000_000))

    def _advance_clock(self, us: int) -> None:
        if self._limit_us is None or self.over_reason is not None or us == 0:
            return
        self.elapsed_us += us
        last = self.log[-1] if self.log else None
        if last is not None and last[0] == "tick":
            last[1] += us
        else:
            self.log.append(["tick", us])
        if self.elapsed_us >= self._limit_us:
            self.over_reason = "time"

    def summary(self, record_before: int | None = None) -> Summary:
        """The end-of-round summary (RULES §4.5); see :class:`Summary`.

        ``record_before`` is the best score before this game (the records module
        passes it); ``record_after`` is then the better of it and this score,
        for rulesets that keep a record."""
        failed = tuple(p for p in self._tray if p is not None)
        facts = {"points": self.score, "failed_pieces": failed,
                 "lines_cleared": self.lines_cleared, "best_combo": self.best_combo}
        tips = [t for answer in self._hook.summary_tips(game=self, summary=facts) for t in answer]
        keeps = self.ruleset.record_kind != "none"
        after = None
        if keeps:
            after = self.score if record_before is None else max(record_before, self.score)
        return Summary(
            ruleset_id=self.ruleset.id, points=self.score,
            record_before=record_before if keeps else None, record_after=after,
            new_record=keeps and self.score > 0 and (record_before is None
                                                     or self.score > record_before),
            lines_cleared=self.lines_cleared, best_combo=self.best_combo, moves=self.moves,
            failed_pieces=failed, tip=tips[0] if tips else None,
            over_reason=self.over_reason, date=self.date)

    # -- services for plugins ------------------------------------------------------------

    def set_tray(self, pieces: Sequence[Piece | None]) -> None:
        """Replace the tray (plugins: swaps, zen refill)."""
        for slot in range(TRAY_SLOTS):
            self._set_slot(slot, pieces[slot] if slot < len(pieces) else None)

    def deal_next_set(self) -> None:
        """Deal set number ``set_index`` into the tray through the dealing hook."""
        pieces = self._hook.deal(game=self, index=self.set_index)
        if not pieces or len(pieces) != TRAY_SLOTS:
            raise RuntimeError(f"the dealing plugin returned {pieces!r}; expected 3 pieces")
        self.set_index += 1
        self.set_tray(pieces)

    def empty_cells(self, mask: int) -> None:
        """Empty the cells of ``mask`` (plugins: continue, zen refill)."""
        board = self._board.copy()
        board.empty(mask)
        self._board = board
        self._fits = None

    def _set_slot(self, slot: int, piece: Piece | None) -> None:
        self._tray[slot] = piece
        self._info[slot] = None if piece is None else self._geo.piece(piece.cells)
        self._fits = None

    def _settle(self) -> None:
        if self._tray.count(None) == TRAY_SLOTS:
            self.deal_next_set()
        if not self._has_end and not self._has_rescue:
            return
        stuck = not self.any_fits()
        if stuck and self._has_rescue and self._hook.rescue(game=self):
            stuck = not self.any_fits()
        if self._has_end:
            for reason in self._hook.end_reason(game=self, stuck=stuck):
                if reason:
                    self.over_reason = reason
                    break

    # -- snapshots and replays ----------------------------------------------------------

    _STATE_FIELDS = ("set_index", "score", "combo", "best_combo", "lines_cleared", "moves",
                     "over_reason", "elapsed_us", "swaps_left", "continues_used")

    def snapshot_state(self) -> dict[str, Any]:
        """The mutable game state (without ruleset and log), JSON-safe."""
        out = {name: getattr(self, name) for name in self._STATE_FIELDS}
        out["colours"] = list(self._board.colours)
        out["bits"] = self._board.bits
        out["tray"] = [None if p is None else _piece_json(p) for p in self._tray]
        out["state"] = copy.deepcopy(self.state)
        return out

    def _restore_state(self, data: dict[str, Any]) -> None:
        for name in self._STATE_FIELDS:
            setattr(self, name, data[name])
        self._board = Board(self._geo, data["bits"], list(data["colours"]))
        self.set_tray([None if p is None else _piece_from_json(p) for p in data["tray"]])
        self.state = copy.deepcopy(data["state"])

    def snapshot(self) -> dict[str, Any]:
        """A complete, JSON-safe copy of the game: :func:`blockyard.restore`
        continues identically (the random streams are keyed by counters, so the
        counters are the generator state)."""
        snap = self.snapshot_state()
        snap["format"] = SNAPSHOT_FORMAT
        snap["kind"] = "tray"
        snap["ruleset"] = self.ruleset.to_toml()
        snap["seed"] = self.seed
        snap["date"] = self.date
        snap["log"] = copy.deepcopy(self.log)
        return snap

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot`."""
        if not isinstance(snap, dict) or snap.get("format") != SNAPSHOT_FORMAT:
            raise ValueError("not a Blockyard snapshot (missing or unknown 'format')")
        ruleset = load_ruleset_text(snap["ruleset"], "<snapshot>")
        game = cls(ruleset, snap["seed"], snap["date"])
        game._restore_state(snap)
        game.log = copy.deepcopy(snap["log"])
        return game

    def apply(self, action: Sequence[Any]) -> Any:
        """Perform one logged action (``["place", s, r, c]``, ``["tick", µs]``…)."""
        name, *args = action
        if name == "place":
            return self.place(*args)
        if name == "tick":
            return self._advance_clock(int(args[0]))
        if name == "swap":
            return self.swap()
        if name == "rotate":
            return self.rotate(*args)
        if name == "continue":
            return self.continue_game()
        if name == "end":
            return self.end_round()
        raise ValueError(f"unknown action {name!r} in log")

    @classmethod
    def from_log(cls, log: Sequence[Sequence[Any]]) -> Game:
        """Rebuild a game by running ``log`` again from its start."""
        if not log or log[0][0] != "start":
            raise ValueError("a game log starts with a 'start' entry")
        start = log[0][1]
        ruleset = load_ruleset_text(start["ruleset"], "<log>")
        date = _dt.date.fromisoformat(start["date"]) if start.get("date") else None
        game = cls.start(ruleset, seed=start["seed"], date=date, board=start.get("board"),
                         tray=start.get("tray"))
        for action in log[1:]:
            game.apply(action)
        return game

    def __repr__(self) -> str:
        return (f"<Game {self.ruleset.id} seed={self.seed} score={self.score} "
                f"moves={self.moves} over={self.over_reason}>")


def _piece_json(piece: Piece) -> dict[str, Any]:
    return {"cells": sorted([r, c] for r, c in piece.cells), "id": piece.id,
            "family": piece.family, "colour": piece.colour}


def _piece_from_json(data: dict[str, Any]) -> Piece:
    return Piece(normalise(tuple(cell) for cell in data["cells"]), id=data["id"],
                 family=data["family"], colour=data["colour"])


def new_game(ruleset: str | Ruleset | Any, *, seed: int | None = None,
             date: _dt.date | None = None, board: str | None = None,
             tray: TraySpec | None = None, stream: str | None = None) -> Game:
    """Start a game of ``ruleset`` (an id, a path or a :class:`Ruleset`).

    ``seed``: ``None`` picks a random one (kept in ``game.seed``). ``date``: the
    day of a daily ruleset (default: today in its time zone). ``board``/``tray``:
    a starting position. ``stream`` is for sudoku-bloxx only.
    """
    rs = load_ruleset(ruleset)
    if stream is not None:
        raise ValueError(f"stream: ruleset {rs.id!r} has no stone stream (sudoku-bloxx only)")
    return Game.start(rs, seed=seed, date=date, board=board, tray=tray)


def restore(snapshot: dict[str, Any]) -> Game:
    """A game from ``game.snapshot()``."""
    return Game.from_snapshot(snapshot)


def replay(log: Sequence[Sequence[Any]]) -> Game:
    """A game rebuilt by running ``game.log`` again from its start."""
    return Game.from_log(log)
