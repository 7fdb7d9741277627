"""Tray play: place pieces from a tray of three (docs/rules.md §2).

:class:`TrayGame` is the engine of every tray ruleset (eu, tiered, nepal,
gravity). It keeps the board as a bitboard, computes where pieces fit with
precomputed masks (:mod:`blockyard.geometry`), and asks the plugins how to
deal, clear, score, rescue and end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from .errors import IllegalMove
from .game import Game, TraySpec
from .geometry import PieceGeometry, parse_board_text
from .pieces import Piece, normalise, parse_art
from .results import MoveFacts, MoveResult
from .rulefiles import Ruleset

TRAY_SLOTS = 3


class TrayGame(Game):
    """A tray game in progress (see :class:`blockyard.Game` for the shared members).

    Tray members: ``tray``, ``legal_moves()``, ``can_place()``, ``preview()``,
    ``place()``, ``fit_masks()``, ``combo``, ``best_combo``, ``lines_cleared``,
    ``swap()``/``swaps_left``, ``rotate()``, ``can_continue``/``continue_game()``.
    """

    kind: ClassVar[str] = "tray"
    _STATE_FIELDS: ClassVar[tuple[str, ...]] = (
        *Game._STATE_FIELDS, "set_index", "combo", "best_combo", "lines_cleared",
        "swaps_left", "continues_used")

    def __init__(self, ruleset: Ruleset, seed: int, date: str | None) -> None:
        super().__init__(ruleset, seed, date)
        hooks = self._hook
        self._restricted = hooks.has("allowed_anchors")
        self._has_alternatives = hooks.has("alternatives")
        self._has_after_move = hooks.has("after_move")
        self._has_rescue = hooks.has("rescue")
        self._tray: list[Piece | None] = [None] * TRAY_SLOTS
        self._info: list[PieceGeometry | None] = [None] * TRAY_SLOTS
        self._fits: tuple[int, ...] | None = None
        self.set_index = 0
        self.combo = 0
        self.swaps_left = 0
        self.continues_used = 0

    def _load_start(self, *, board: str | None, tray: TraySpec | None,
                    stream: str | None) -> dict[str, Any]:
        if stream is not None:
            raise ValueError(f"stream: ruleset {self.ruleset.id!r} has no stone stream "
                             "(falling games only)")
        if board is not None:
            self._load_board(board)
        tray_art: list[str | None] | None = None
        if tray is not None:
            tray_art = self._load_tray(tray)
            self.set_index = 1  # the given tray is the game's set 0
        return {"board": None if board is None else self._board.text(), "tray": tray_art}

    def _begin(self) -> None:
        self._settle()

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

    @property
    def tray(self) -> tuple[Piece | None, ...]:
        """The three tray slots: a :class:`Piece`, or ``None`` for a used slot."""
        return tuple(self._tray)

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

    def _evaluate(self, slot: int, row: int, col: int) -> tuple[MoveResult, Any, Any]:
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
            regions=tuple(r.key for r in regions), row_drops=clearing.row_drops)
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
        self._require_running()
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
        self._require_running()
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

    def tick(self, seconds: float) -> None:
        """Advance the clock of a timed ruleset; does nothing without a clock or
        after the game is over."""
        self._advance_clock(self._seconds_to_us(seconds))

    def _advance_clock(self, us: int) -> None:
        if self._limit_us is None or self.over_reason is not None or us == 0:
            return
        self.elapsed_us += us
        self._log_tick(us)
        if self.elapsed_us >= self._limit_us:
            self.over_reason = "time"

    def _actions(self) -> dict[str, Callable[..., Any]]:
        return {**super()._actions(), "place": self.place, "swap": self.swap,
                "rotate": self.rotate, "continue": self.continue_game}

    def _failed_pieces(self) -> tuple[Piece, ...]:
        return tuple(p for p in self._tray if p is not None)

    # -- snapshots ------------------------------------------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        out = super().snapshot_state()
        out["tray"] = [None if p is None else _piece_json(p) for p in self._tray]
        return out

    def _restore_state(self, data: dict[str, Any]) -> None:
        super()._restore_state(data)
        self.set_tray([None if p is None else _piece_from_json(p) for p in data["tray"]])

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
        reason = self._end_reason(stuck)
        if reason:
            self.over_reason = reason


def _piece_json(piece: Piece) -> dict[str, Any]:
    return {"cells": sorted([r, c] for r, c in piece.cells), "id": piece.id,
            "family": piece.family, "colour": piece.colour}


def _piece_from_json(data: dict[str, Any]) -> Piece:
    return Piece(normalise(tuple(cell) for cell in data["cells"]), id=data["id"],
                 family=data["family"], colour=data["colour"])
