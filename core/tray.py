"""Tray play: place pieces from a tray (three slots unless the rule file's
``[tray] slots`` says otherwise; docs/rules.md §2).

:class:`TrayGame` is the engine of every tray ruleset (eu, tiered, nepal,
gravity). It keeps the board as a bitboard, computes where pieces fit with
precomputed masks (:mod:`blockyard.geometry`), and asks the plugins how to
deal, clear, score, rescue and end. It is one class, a little over 600 lines,
because the loop every move goes through (:meth:`TrayGame._outcomes`) is
written out for speed beside its checked form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, NamedTuple

from .errors import IllegalMove, PluginError
from .game import Game, TraySpec
from .geometry import Board, PieceGeometry, parse_board_text
from .params import short_repr
from .pieces import Cell, Piece, parse_piece_name, piece_from_json, piece_json
from .results import MoveResult, TrayFacts
from .rulehooks import PURITY
from .ruleset import Ruleset

_OLD_FIELDS = (("swaps_left", "swap", "left"), ("continues_used", "continue", "used"))
"""Snapshot fields of swaps and continues before they became plugin actions:
(field, action, the key of the action owner's state entry)."""
_new_tuple = tuple.__new__  # builds an Evaluation without NamedTuple's Python-level __new__
_derived = Board._derived  # Board.with_piece's body: called without a frame between


class Evaluation(NamedTuple):
    """What a candidate move would do (:meth:`TrayGame.evaluate`)."""

    points: int
    lines: int
    combo: int
    perfect_clear: bool
    bits: int


class TrayGame(Game):
    """A tray game in progress (see :class:`blockyard.Game` for the shared members).

    Tray members: ``tray``, ``legal_moves()``, ``can_place()``, ``preview()``,
    ``place()``, ``fit_masks()``, ``combo``, ``best_combo``, ``streak``, ``lines_cleared``,
    ``actions()``/``act()`` and their shorthands ``swap()``/``swaps_left``,
    ``rotate()``, ``can_continue``/``continue_game()``.

    The end rule is the engine's: the game is over with reason ``"stuck"``
    exactly when no tray piece fits and no available action is a rescue
    (automatic rescues such as the zen refill are taken first).
    """

    _STATE_FIELDS: ClassVar[tuple[str, ...]] = (
        *Game._STATE_FIELDS, "set_index", "combo", "best_combo", "lines_cleared")
    _DERIVED_FIELDS: ClassVar[tuple[str, ...]] = ("streak",)
    _PURE_LISTS: ClassVar[tuple[str, ...]] = ("_tray",)
    _COUNTERS: ClassVar[tuple[str, ...]] = (
        *Game._COUNTERS, "set_index", "combo", "best_combo", "lines_cleared", "streak")
    _PURE_NAMES: ClassVar[dict[str, str]] = {**Game._PURE_NAMES, "_tray": "the tray"}
    _STEPS: ClassVar[tuple[str, ...]] = (
        *Game._STEPS, "place", "preview", "evaluate", "legal_moves", "fit_masks",
        "affected_cells", "tick")

    def __init__(self, ruleset: Ruleset, seed: int, date: str | None) -> None:
        super().__init__(ruleset, seed, date)
        implemented = ruleset.implemented
        self._restricted = "allowed_anchors" in implemented
        self._has_move_state = "move_state" in implemented
        self._rescues = ruleset.player_actions
        self._slots = ruleset.tray_slots
        self._tray: list[Piece | None] = [None] * self._slots
        self._info: list[PieceGeometry | None] = [None] * self._slots
        self._fits: tuple[int, ...] | None = None
        self.set_index = 0
        self.combo = 0
        self.streak = 0
        """The clearing moves in a row up to now (moves that completed a region; a
        move that completes none ends it; actions leave it as it is)."""

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
        self._settle("start")

    def _load_board(self, text: str) -> None:
        lines = parse_board_text(text, self.rows, self.cols, ".#")
        cols = self.cols
        mask = 0
        for r, line in enumerate(lines):
            for c, ch in enumerate(line):
                if ch == "#":
                    mask |= 1 << (r * cols + c)
        self._board = self._board.fill(mask, len(self.ruleset.families) + 1, "custom")

    def _load_tray(self, tray: TraySpec) -> list[str | None]:
        items = list(tray)
        slots = self._slots
        if len(items) > slots:
            raise ValueError(f"tray: at most {slots} pieces ([tray] slots of ruleset "
                             f"{self.ruleset.id!r}), found {len(items)}")
        items += [None] * (slots - len(items))
        # plain art means the ruleset's piece of that shape; when two families
        # share a shape, the one declared last (as before families were named)
        by_cells = {p.cells: p for p in self.ruleset.pieces}
        by_name = {(p.family, p.cells): p for p in self.ruleset.pieces}
        custom = len(self.ruleset.families) + 1
        out: list[str | None] = []
        for slot, item in enumerate(items):
            if item is None:
                out.append(None)
                continue
            family: str | None = None
            if isinstance(item, Piece):
                cells = item.cells
                family = item.family if (item.family, cells) in by_name else None
            elif isinstance(item, str):
                try:
                    family, cells = parse_piece_name(item)
                except ValueError as exc:
                    raise ValueError(f"tray slot {slot}: {exc}") from None
                if family is not None and (family, cells) not in by_name:
                    raise ValueError(
                        f"tray slot {slot}: ruleset {self.ruleset.id!r} has no piece "
                        f"{item.strip()[:60]!r} (no family {family!r} with that shape)")
            else:
                raise ValueError(f"tray slot {slot}: expected ASCII art, a Piece or None, "
                                 f"found {item!r}")
            piece = (by_name[family, cells] if family is not None else by_cells.get(cells)) \
                or Piece(cells, id="custom", family="custom", colour=custom)
            info = self._geo.piece(cells)
            if info.height > self.rows or info.width > self.cols:
                raise ValueError(f"tray slot {slot}: the piece is larger than the board")
            self._set_slot(slot, piece)
            # the log names the family only where the art alone would mean another
            # piece, so logs of unambiguous positions stay as they always were
            out.append(piece.art if by_cells.get(cells, piece) is piece
                       or piece.family == "custom" else piece.name)
        return out

    # -- public state ------------------------------------------------------------------

    @property
    def board(self) -> tuple[tuple[int, ...], ...]:
        """Rows of cells: 0 empty, >0 the colour index of a filled cell."""
        return self._board.rows_tuple()

    @property
    def tray(self) -> tuple[Piece | None, ...]:
        """The tray slots (``ruleset.tray_slots`` of them, three by default): a
        :class:`Piece`, or ``None`` for a used slot."""
        return tuple(self._tray)

    # -- queries ---------------------------------------------------------------------

    def fit_masks(self) -> tuple[int, ...]:
        """For each slot, the bitmask of anchors (bit ``row * cols + col``) where its
        piece fits now; 0 for an empty slot. The fast form of :meth:`legal_moves`."""
        fits = self._fits
        if fits is None:
            free = ~self._board.bits & self._geo.full
            found = []
            for info in self._info:
                # Geometry.fits written out: a call per slot costs ~1 µs of a ~30 µs
                # placement (benchmarks/engine.py); keep the two the same
                if info is None:
                    found.append(0)
                    continue
                m = info.valid
                for off in info.offsets:
                    m &= free >> off
                    if not m:
                        break
                found.append(m)
            fits = tuple(found)
            if self._restricted:
                fits = tuple(self._restrict(slot, m) for slot, m in enumerate(fits))
            self._fits = fits
        return fits

    def _restrict(self, slot: int, mask: int) -> int:
        piece = self._tray[slot]
        if piece is None or not mask:
            return mask
        for allowed in self._hooks.allowed_anchors(self, piece):
            mask &= allowed
        return mask

    def cell_families(self) -> tuple[tuple[str | None, ...], ...]:
        """The board facts a rule needs beyond occupancy: for every cell, row by
        row, the name of the piece family that filled it, ``"custom"`` for a
        filled cell of no family of the ruleset (a starting board's, a custom
        tray piece's), ``None`` for an empty cell. Read from
        :attr:`Board.colours <blockyard.geometry.Board.colours>`; changes nothing."""
        families = self.ruleset.families
        names: list[str | None] = [None, *(f.name for f in families)]
        colours, cols = self._board.colours, self.cols
        return tuple(tuple(names[c] if c < len(names) else "custom"
                           for c in colours[r * cols:(r + 1) * cols])
                     for r in range(self.rows))

    def cell_pieces(self) -> tuple[tuple[str | None, ...], ...]:
        """For every cell, row by row, the id of the piece whose placement filled
        it (:attr:`Piece.id <blockyard.pieces.Piece.id>` exactly: ``"L-1+r"`` for
        an ``L-1`` turned once), ``"custom"`` for a filled cell of a starting
        board or of a custom tray piece, ``None`` for an empty cell (or one a
        plugin filled naming no piece). A cell keeps its id until it is emptied,
        and a gravity drop moves it with the cell. Read from
        :attr:`Board.pieces <blockyard.geometry.Board.pieces>`; changes nothing."""
        pieces, cols = self._board.pieces, self.cols
        return tuple(pieces[r * cols:(r + 1) * cols] for r in range(self.rows))

    def legal_moves(self) -> list[tuple[int, int, int]]:
        """Every ``(slot, row, col)`` that fits now (none when the game is over)."""
        if self.over_reason is not None:
            return []
        return self._geo.tray_moves(self._fits or self.fit_masks())

    def can_place(self, slot: int, row: int, col: int) -> bool:
        """Whether ``place(slot, row, col)`` would be accepted."""
        try:
            self._check_move(slot, row, col)
        except IllegalMove:
            return False
        return True

    def piece_fits_somewhere(self, piece: Piece) -> bool:
        """Whether ``piece`` fits anywhere on the board now (placement
        restrictions of the ruleset not included)."""
        geo = self._geo
        info = geo.piece(piece.cells)
        if info.height > self.rows or info.width > self.cols:
            return False
        return bool(geo.fits(~self._board.bits & geo.full, info))

    def any_fits(self) -> bool:
        """Whether some tray piece fits somewhere now."""
        return any(self.fit_masks())

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
        if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < self._slots:
            raise IllegalMove(f"slot: expected a tray slot from 0 to {self._slots - 1}, "
                              f"found {slot!r}")
        piece = self._tray[slot]
        if piece is None:
            raise IllegalMove(f"slot {slot} is empty")
        return piece

    def evaluate(self, moves: Iterable[tuple[int, int, int]]) -> list[Evaluation]:
        """What each ``(slot, row, col)`` would do, changing nothing: an
        :class:`Evaluation` (points, lines, combo, perfect clear, the board bits
        afterwards) per move, asked of the same plugins as :meth:`place`, without
        building the set-valued fields of a :class:`MoveResult` (for bots).
        ``IllegalMove`` for a move that does not fit."""
        return self._outcomes(moves, True)

    def _outcomes(self, moves: Iterable[tuple[int, int, int]], evaluations: bool,
                  defer: bool = True) -> list[Any]:
        """Ask the plugins what each move does: an :class:`Evaluation` each with
        ``evaluations``, else ``(piece, mask, clearing, regions, perfect clear,
        scoring, cleared mask)`` tuples. One loop for one move (place, preview) and for the
        many of a bot, with what every move shares looked up once.

        Nothing changes the game here, so the purity check is made once, after
        every hook of the loop (``defer``); when a hook changed the game, it is
        put back and the loop asked again with a check after each hook, which
        names the hook and the plugin."""
        held = self._pure_held
        if defer and PURITY.on and (self._hooks.outcomes_checked or PURITY.bundled) \
                and (held is None or held[0] is not self):
            return self._outcomes_checked(moves, evaluations, held)
        out: list[Any] = []
        add = out.append
        fits = self._fits if self.over_reason is None else None
        cols = self.cols
        tray, infos, before = self._tray, self._info, self._board
        hooks, geo = self._hooks, self._geo
        clear, score = hooks.clear, hooks.score
        combo, state, slots, streak = self.combo, self.state, self._slots, self.streak
        for slot, row, col in moves:
            if fits is not None and type(slot) is int and type(row) is int \
                    and type(col) is int and 0 <= slot < slots and 0 <= col < cols \
                    and row >= 0 and fits[slot] >> (base := row * cols + col) & 1:
                # the anchor is a bit of the slot's fit mask: on the board, on free
                # cells and allowed by the ruleset (the fast form of _check_move)
                piece: Piece = tray[slot]  # type: ignore[assignment]
                info: PieceGeometry = infos[slot]  # type: ignore[assignment]
                mask = info.shape << base
                board = _derived(before, before._bits | mask, base, info.offsets, piece.colour,
                                 piece.id)
            else:
                piece, mask = self._check_move(slot, row, col)
                # (the engine's own fill: a turned id of an earlier engine's replay may
                # be longer than a plugin's fill accepts)
                board = _derived(before, before._bits | mask, 0, tuple(geo.bits_of(mask)),
                                 piece.colour, piece.id)
            clearing = clear(self, board, mask, piece, row, col, "place")
            regions = clearing.regions
            after = clearing.board
            lines = len(regions)
            perfect = lines > 0 and after._bits == 0  # (Board.bits, read as the engine)
            cleared = clearing.cleared
            if cleared is None:
                cleared = 0
                for region in regions:
                    cleared |= region.mask
            cleared &= board._bits
            scoring = score(self, TrayFacts(piece, piece.size, regions, lines, perfect, combo,
                                            state, row, col, mask, geo, cleared, streak),
                            "place")
            if evaluations:
                add(_new_tuple(Evaluation, (scoring.points, lines, scoring.combo, perfect,
                                            after._bits)))
            else:
                add((piece, mask, clearing, regions, perfect, scoring, cleared))
        return out

    def _outcomes_checked(self, moves: Iterable[tuple[int, int, int]], evaluations: bool,
                          held: tuple[Game, Any] | None) -> list[Any]:
        """:meth:`_outcomes` with the purity check made once, after every hook of
        the loop."""
        if type(moves) is not list and type(moves) is not tuple:
            moves = list(moves)
        mark = self._pure_mark()
        self._pure_held = (self, mark)
        try:
            out = self._outcomes(moves, evaluations)
        except BaseException as exc:
            self._pure_held = held
            changed = self._pure_check(mark)
            if changed is not None and isinstance(exc, Exception):
                self._name_the_change(moves, evaluations, changed)
            raise
        self._pure_held = held
        changed = self._pure_check(mark)
        if changed is not None:
            self._name_the_change(moves, evaluations, changed)
        return out

    def _name_the_change(self, moves: Iterable[tuple[int, int, int]], evaluations: bool,
                         changed: str) -> None:
        """A hook of :meth:`_outcomes` changed the game (now put back): ask them
        again with a check after each, which raises the PluginError naming the
        hook and its plugin."""
        try:
            self._outcomes(moves, evaluations, defer=False)
        except PluginError as exc:
            if "changed the game" in exc.problem:
                raise exc from None
        raise self._hooks.error("score", f"changed the game: {changed} (blockyard_clear or "
                                "blockyard_score; asked again, no hook changed it)",
                                seed=self.seed, action="place")

    def _evaluate(self, slot: int, row: int, col: int) -> tuple[MoveResult, Any, Any]:
        piece, mask, clearing, regions, perfect, scoring, cleared = \
            self._outcomes(((slot, row, col),), False)[0]
        geo = self._geo
        after = clearing.board
        if regions and not regions[0].cells:
            regions = tuple(geo.bind(r) for r in regions)
        result = MoveResult(slot, row, col, piece, scoring.points, len(regions), scoring.combo,
                            perfect, regions, mask, cleared, geo, clearing.row_drops)
        return result, after, scoring

    def preview(self, slot: int, row: int, col: int) -> MoveResult:
        """What :meth:`place` would do, changing nothing. Raises ``IllegalMove``
        exactly when ``place`` would."""
        return self._evaluate(slot, row, col)[0]

    def affected_cells(self, slot: int, row: int, col: int) -> frozenset[Cell]:
        """The board cells placing ``slot``'s piece at ``(row, col)`` would affect
        beyond the cells it covers, as the ruleset's plugins say
        (``blockyard_affected_cells``: a bomb's blast area, empty cells
        included); the window's preview glows them with the cells the move
        would clear. Changes nothing; ``IllegalMove`` exactly when ``place``
        would raise it."""
        piece, mask = self._check_move(slot, row, col)
        if "affected_cells" not in self.ruleset.implemented:
            return frozenset()
        return self._geo.cells_of(self._hooks.affected_cells(self, piece, row, col) & ~mask)

    def place(self, slot: int, row: int, col: int) -> MoveResult:
        """Place the piece of ``slot`` with its top-left at ``(row, col)``."""
        result, board, scoring = self._evaluate(slot, row, col)
        updates: list[dict[str, Any]] = []
        if self._has_move_state:
            updates = self._hooks.move_state(self, result)
        backup, streak = self._backup(), self.streak
        try:
            self.streak = streak + 1 if result.lines else 0
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
            for update in updates:
                self.state.update(update)
            self.lines_cleared += result.lines
            self.moves += 1
            self.log.append(["place", slot, row, col])
            self._settle("place")
        except BaseException:
            self.streak = streak
            self._recover(backup)
            raise
        return result

    def _backup(self) -> tuple[Any, ...]:
        """What a move may change, cheaply (the board object is replaced, never
        changed in place; plugins replace their state entries)."""
        return (self._board, list(self._tray), list(self._info), self._fits, self.score,
                self.combo, self.best_combo, self.lines_cleared, self.moves, self.set_index,
                self.over_reason, dict(self.state), len(self.log), self.elapsed_us)

    def _recover(self, backup: tuple[Any, ...]) -> None:
        (self._board, tray, info, self._fits, self.score, self.combo, self.best_combo,
         self.lines_cleared, self.moves, self.set_index, self.over_reason, state, log_length,
         self.elapsed_us) = backup
        self._tray[:] = tray
        self._info[:] = info
        self.state.clear()
        self.state.update(state)
        del self.log[log_length:]

    # -- the shorthands of plugin actions --------------------------------------------

    @property
    def swaps_left(self) -> int:
        """Swaps left (rulesets with a ``swap`` action; 0 elsewhere)."""
        spec = self._specs.get("swap")
        if spec is None or spec.uses_left is None:
            return 0
        return int(self._ask_action(spec, "uses_left", spec.uses_left) or 0)

    def swap(self) -> None:
        """Discard the tray and deal a new set: ``act("swap")``."""
        if "swap" not in self._specs:
            self._require_running()
            raise IllegalMove(f"ruleset {self.ruleset.id!r} has no swaps")
        self.act("swap")

    def rotate(self, slot: int) -> Piece:
        """Turn the piece of ``slot`` (rulesets with rotation): ``act("rotate",
        slot)``; returns the new piece."""
        if "rotate" not in self._specs:
            self._require_running()
            self._slot_piece(slot)
            raise IllegalMove(f"ruleset {self.ruleset.id!r} does not allow rotating pieces")
        self.act("rotate", slot)
        piece = self._tray[slot]
        assert piece is not None
        return piece

    @property
    def can_continue(self) -> bool:
        """Whether the ``continue`` action is available now (eu: once, after
        being stuck)."""
        spec = self._specs.get("continue")
        return spec is not None and self._spec_available(spec)

    def continue_game(self) -> None:
        """Take the continue rescue: ``act("continue")``."""
        if not self.can_continue:
            raise IllegalMove("continue is not available now")
        self.act("continue")

    @property
    def continues_used(self) -> int:
        """How often the game was continued (rulesets with a ``continue`` action)."""
        entry = self.state.get(self.ruleset.action_owner.get("continue", ""), {})
        return int(entry.get("used", 0)) if isinstance(entry, dict) else 0

    def _pure_probe(self) -> tuple[Any, ...]:
        # Game._pure_probe written out for the tray (asked twice per hook call)
        log = self.log
        return (self.state, log, len(log), log[-1] if log else None, self.score, self.moves,
                self.over_reason, self.elapsed_us, self.set_index, self.combo, self.best_combo,
                self.lines_cleared, self.streak, self._board, self._tray, tuple(self._tray))

    def _pure_restored(self) -> None:
        # the tray's geometry and fit masks follow the tray put back
        piece_info = self._geo.piece
        self._info[:] = [None if p is None else piece_info(p.cells) for p in self._tray]
        self._fits = None

    def _clone_into(self, twin: Game) -> None:
        assert isinstance(twin, TrayGame)
        twin._tray = self._tray.copy()
        twin._info = self._info.copy()

    def _check_slot_arg(self, slot: Any) -> None:
        self._slot_piece(slot)

    def _after_action(self, name: str) -> None:
        self._fits = None
        self._settle(name)

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
        return {**super()._actions(), "place": self.place}

    def apply(self, action: Sequence[Any]) -> Any:
        if len(action) == 4 and action[0] == "place":  # nearly every entry of a log
            return self.place(action[1], action[2], action[3])
        return super().apply(action)

    def _failed_pieces(self) -> tuple[Piece, ...]:
        return tuple(p for p in self._tray if p is not None)

    # -- snapshots ------------------------------------------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        out = super().snapshot_state()
        out["tray"] = [None if p is None else piece_json(p) for p in self._tray]
        out["cell_pieces"] = list(self._board.pieces)
        return out

    def digest_state(self) -> list[Any]:
        if type(self).snapshot_state is not TrayGame.snapshot_state:
            return self._digest_snapshot()
        parts = self._digest_fields()
        parts.append([None if p is None else [p.id, p.family, p.colour, sorted(p.cells)]
                      for p in self._tray])
        return parts

    def _restore_state(self, data: dict[str, Any]) -> None:
        super()._restore_state(data)
        saved = self.ruleset.saved_pieces
        pieces: list[Piece | None] = []
        for data_piece in data["tray"]:  # saved pieces, or pieces a snapshot's check built
            if data_piece is None or type(data_piece) is Piece:
                pieces.append(data_piece)
                continue
            known = saved.get(data_piece["id"])
            pieces.append(known[1] if known is not None and known[0] == data_piece
                          else piece_from_json(data_piece))
        self.set_tray(pieces)
        # snapshots written before swaps and continues became plugin actions
        for old, action, key in _OLD_FIELDS:
            if old in data:
                owner = self.ruleset.action_owner.get(action)
                if owner and owner not in self.state:
                    self.state[owner] = {key: data[old]}

    # -- services for plugins ------------------------------------------------------------

    def set_tray(self, pieces: Sequence[Piece | None]) -> None:
        """Replace the tray (plugins: swaps, zen refill): at most
        ``ruleset.tray_slots`` pieces, the slots after them empty. Each a
        :class:`Piece` that fits the board, or ``None``; anything else is a
        ``TypeError`` or ``ValueError`` naming the slot, the tray unchanged."""
        if not isinstance(pieces, list | tuple):
            raise TypeError(f"set_tray: expected a list of pieces, found "
                            f"{type(pieces).__name__} {short_repr(pieces)}")
        if len(pieces) > self._slots:
            raise ValueError(f"set_tray: at most {self._slots} pieces ([tray] slots), "
                             f"found {len(pieces)}")
        for slot, piece in enumerate(pieces):
            self._check_piece(f"set_tray: slot {slot}", piece)
        for slot in range(self._slots):
            self._set_slot(slot, pieces[slot] if slot < len(pieces) else None)

    def deal_next_set(self) -> None:
        """Deal set number ``set_index`` into the tray through the dealing hook."""
        pieces = self._hooks.deal(self, self.set_index)
        if pieces is None or len(pieces) != self._slots or \
                not all(isinstance(p, Piece) for p in pieces):
            raise self.ruleset.plugin_error(
                "deal", f"returned {short_repr(pieces, 80)}; expected a list of "
                f"{self._slots} Piece objects ([tray] slots)",
                seed=self.seed, action="deal")
        piece_info = self._geo.piece
        rows, cols = self.rows, self.cols
        infos = []
        for piece in pieces:
            info = piece_info(piece.cells)
            if info.height > rows or info.width > cols:
                raise self.ruleset.plugin_error(
                    "deal", f"dealt {piece.id!r}, which is larger than the board",
                    seed=self.seed, action="deal")
            infos.append(info)
        self.set_index += 1
        self._tray[:] = pieces
        self._info[:] = infos
        self._fits = None

    def set_slot(self, slot: int, piece: Piece | None) -> None:
        """Put ``piece`` into tray slot ``slot`` (plugins' actions: rotation): a slot
        from 0 to ``ruleset.tray_slots - 1`` and a :class:`Piece` that fits the
        board, or ``None``; anything else is a ``TypeError`` or ``ValueError``, the
        tray unchanged."""
        if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < self._slots:
            raise ValueError(f"set_slot: slot: expected a tray slot from 0 to "
                             f"{self._slots - 1}, found {short_repr(slot)}")
        self._check_piece("set_slot", piece)
        self._set_slot(slot, piece)

    def _check_piece(self, what: str, piece: Any) -> None:
        """``TypeError`` unless ``piece`` is a :class:`Piece` or ``None``,
        ``ValueError`` when it is larger than the board."""
        if piece is None:
            return
        if not isinstance(piece, Piece):
            raise TypeError(f"{what}: expected a Piece or None, found {short_repr(piece)}")
        info = self._geo.piece(piece.cells)
        if info.height > self.rows or info.width > self.cols:
            raise ValueError(f"{what}: piece {short_repr(piece.id)} ({info.height}×"
                             f"{info.width}) is larger than the {self.rows}×{self.cols} board")

    def empty_cells(self, mask: int) -> None:
        """Empty the cells of ``mask`` (plugins: continue, zen refill): an int of
        the board's cells, bit ``row * cols + col``; a mask with a cell off the
        board (or not an int) is a ``ValueError`` and changes nothing."""
        self._board = self._board.empty(mask)
        self._fits = None

    def _set_slot(self, slot: int, piece: Piece | None) -> None:
        self._tray[slot] = piece
        self._info[slot] = None if piece is None else self._geo.piece(piece.cells)
        self._fits = None

    def _settle(self, action: str) -> None:
        """After a move or action: deal when the tray is empty, take automatic
        rescues, then apply the end rule."""
        if not any(self._tray):  # every slot used (truth, not ==: pieces compare by cells)
            self.deal_next_set()
        stuck = not any(self._fits or self.fit_masks())
        if stuck:
            for spec in self._auto:
                if self._ask_action(spec, "available", spec.available):
                    self._ask_action(spec, "perform", spec.perform)
                    self._fits = None
                    if self.any_fits():
                        stuck = False
                        break
        if stuck and any(self._spec_available(spec)
                         and self._ask_action(spec, "rescue", spec.rescue)
                         for spec in self._rescues):
            stuck = False
        reason = self._end_reason(stuck, action) if self._has_end else None
        if reason or stuck:
            self.over_reason = reason or "stuck"


