"""Value objects passed between the engine and the plugins."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .geometry import Board, Geometry, Region
from .pieces import Cell, Piece
from .stones import Stone


@dataclass(slots=True)
class Clearing:
    """What a clearing plugin did to the board after a move.

    ``regions``: the completed regions that were cleared (rows, columns, blocks,
    any kind a plugin defines); ``board``: the board afterwards (a new object;
    the input is never changed); ``row_drops``: for a gravity drop, how many
    rows each row of the new board fell (empty when nothing moved);
    ``cleared``: the mask of every cell the move emptied, when the plugin
    empties cells outside the completed regions (a bomb); ``None`` means "the
    cells of ``regions``".
    """

    regions: tuple[Region, ...]
    board: Board
    row_drops: tuple[int, ...] = ()
    cleared: int | None = None


@dataclass(frozen=True, slots=True)
class LineDetail:
    """One region a tray move completed, in detail (:attr:`TrayFacts.line_details`).

    ``kind`` and ``index`` name it (``"row"``, 3), ``mask`` and ``cells`` are all
    its cells; ``placed`` the cells of it the move's piece covered (the rest were
    filled before the move); ``shared`` the cells of it that another region the
    move completed holds too (a row and a column crossing: one cell, two lines).
    """

    kind: str
    index: int
    mask: int
    cells: frozenset[Cell]
    placed: frozenset[Cell]
    shared: frozenset[Cell]


@dataclass(slots=True)
class TrayFacts:
    """What a tray move did, handed to the scoring hook before any state changes.

    ``piece`` the placed piece, ``cells`` its number of cells, ``row``/``col``
    the anchor (the top-left of the piece's bounding box), ``placed_mask`` the
    board cells it covers (a bitboard of ``geometry``); ``regions`` the regions
    the move completed (each with its ``kind``: ``"row"``, ``"col"``,
    ``"block"`` or a plugin's own), ``lines`` their number, ``perfect_clear``
    whether the board is empty afterwards, ``combo`` the combo counter before
    the move (what the scoring plugin last answered), ``state`` the plugins'
    saved state (read only); ``cleared`` the mask of every board cell the move
    empties, as the clearing hook's :class:`Clearing` said (a bomb's blast
    included), or ``None`` when whoever built the facts did not say: then
    :attr:`cleared_mask` is the cells of ``regions``; ``streak_before`` the
    streak before the move: how many moves in a row just before this one
    completed a region (0 when the last move completed none; counted by the
    engine, whatever the scoring plugin keeps as its combo; actions do not
    change it).

    Built by the engine; to test a scoring rule, build one yourself::

        TrayFacts(piece, piece.size, regions, len(regions), False, 0, {},
                  row, col, placed_mask, geometry, cleared=mask, streak_before=2)
    """

    piece: Piece
    cells: int
    regions: tuple[Region, ...]
    lines: int
    perfect_clear: bool
    combo: int
    state: dict[str, Any]
    row: int
    col: int
    placed_mask: int
    geometry: Geometry
    cleared: int | None = None
    streak_before: int = 0

    @property
    def placed_cells(self) -> frozenset[Cell]:
        """The ``(row, col)`` board cells the move covered."""
        return self.geometry.cells_of(self.placed_mask)

    @property
    def cleared_mask(self) -> int:
        """The board cells the move empties, as a bitboard (bit ``row * cols +
        col``): ``cleared``, or the cells of ``regions`` when it is ``None``."""
        if self.cleared is not None:
            return self.cleared
        mask = 0
        for region in self.regions:
            mask |= region.mask
        return mask

    @property
    def cleared_cells(self) -> frozenset[Cell]:
        """The ``(row, col)`` board cells the move empties."""
        return self.geometry.cells_of(self.cleared_mask)

    @property
    def region_kinds(self) -> tuple[str, ...]:
        """The kinds of the completed regions, in order (``("row", "block")``)."""
        return tuple(region.kind for region in self.regions)

    @property
    def line_details(self) -> tuple[LineDetail, ...]:
        """Each completed region in detail, in the order of ``regions``: its cells,
        those of them the piece covered and those another completed region
        shares (:class:`LineDetail`), so a rule can score each line on its own
        ("a line the piece finished with one cell scores double")."""
        geo = self.geometry
        out = []
        for region in self.regions:
            others = 0
            for other in self.regions:
                if other is not region and other != region:
                    others |= other.mask
            mask = region.mask
            cells = region.cells or geo.cells_of(mask)
            out.append(LineDetail(region.kind, region.index, mask, cells,
                                  geo.cells_of(mask & self.placed_mask),
                                  geo.cells_of(mask & others)))
        return tuple(out)


@dataclass(slots=True)
class LandingFacts:
    """What a falling stone's landing did, handed to the scoring hook before any
    state changes.

    ``stone`` the stone; ``discarded``: it was thrown away over a full column
    (then ``cell``, ``row`` and ``col`` are ``None``); ``error``: it broke the
    game's rule (``blockyard_accept_stone``) and was removed; ``cell`` where it
    landed, ``row``/``col`` the same; ``dropped`` the rows it fell in a hard
    drop; ``cells`` the cells it filled (1, or 0 when discarded or an error);
    ``regions`` the regions it completed, ``lines`` their number; ``combo``,
    ``streak_before`` and ``perfect_clear`` are 0, 0 and ``False`` (falling
    games keep no combo or streak); ``state`` the plugins' saved state (read
    only)."""

    stone: Stone
    cell: tuple[int, int] | None
    dropped: int
    error: bool
    discarded: bool
    regions: tuple[Region, ...]
    state: dict[str, Any]
    combo: int = 0
    perfect_clear: bool = False
    cleared_cells: frozenset[Cell] = frozenset()
    streak_before: int = 0

    @property
    def cells(self) -> int:
        """The cells the landing filled: 1, or 0 for a discarded or refused stone."""
        return 0 if self.discarded or self.error else 1

    @property
    def lines(self) -> int:
        """The number of regions the landing completed."""
        return len(self.regions)

    @property
    def row(self) -> int | None:
        return None if self.cell is None else self.cell[0]

    @property
    def col(self) -> int | None:
        return None if self.cell is None else self.cell[1]

    @property
    def placed_cells(self) -> frozenset[Cell]:
        """The ``(row, col)`` board cell the stone landed on (none when discarded)."""
        return frozenset() if self.cell is None else frozenset((self.cell,))

    @property
    def region_kinds(self) -> tuple[str, ...]:
        """The kinds of the completed regions, in order."""
        return tuple(region.kind for region in self.regions)


MoveFacts = TrayFacts | LandingFacts
"""What the scoring hook (``blockyard_score``) is told about a move: a
:class:`TrayFacts` (a tray game's placement) or a :class:`LandingFacts` (a
falling game's landing). Both have ``cells``, ``regions``, ``lines``,
``perfect_clear``, ``combo``, ``streak_before``, ``state``, ``row``, ``col``,
``placed_cells``, ``cleared_cells`` and ``region_kinds``; tell them apart with
``isinstance``. Kept for plugin authors who annotate ``move: MoveFacts``."""


@dataclass(slots=True)
class Scoring:
    """The scoring hook's answer: points, the new combo counter, and updates to
    the scoring plugin's own saved state (merged into ``game.state``)."""

    points: int
    combo: int
    state: dict[str, Any] = field(default_factory=dict)


class MoveResult:
    """What ``Game.place`` did (or ``Game.preview`` would do).

    ``points``; ``cells`` the number of cells placed (the ``cells`` term of the
    scoring rules); ``placed`` the board cells covered; ``regions`` the cleared
    regions as :class:`~blockyard.geometry.Region` objects (``kind``, ``index``,
    ``cells``); ``cleared_rows``/``cleared_cols`` the indices of the cleared rows
    and columns; ``cleared_cells`` every cell the move emptied; ``lines`` the
    number of cleared regions; ``combo`` the combo counter after the move;
    ``perfect_clear``; ``row_drops`` how many rows each row fell after the clear
    (gravity rulesets; empty when nothing fell).

    The set-valued fields are built on first use, so a bot that reads only
    ``points`` pays for nothing else.
    """

    __slots__ = ("_cleared", "_geo", "_placed", "_placed_mask", "col", "combo", "lines",
                 "perfect_clear", "piece", "points", "regions", "row", "row_drops", "slot")

    def __init__(self, slot: int, row: int, col: int, piece: Piece, points: int,
                 lines: int, combo: int, perfect_clear: bool, regions: tuple[Region, ...],
                 placed_mask: int, cleared_mask: int, geometry: Geometry,
                 row_drops: tuple[int, ...] = ()) -> None:
        self.slot = slot
        self.row = row
        self.col = col
        self.piece = piece
        self.points = points
        self.lines = lines
        self.combo = combo
        self.perfect_clear = perfect_clear
        self.regions = regions
        self.row_drops = row_drops
        self._placed_mask = placed_mask
        self._cleared = cleared_mask
        self._geo = geometry
        self._placed: frozenset[Cell] | None = None

    @property
    def cells(self) -> int:
        return self.piece.size

    @property
    def placed(self) -> frozenset[Cell]:
        if self._placed is None:
            self._placed = self._geo.cells_of(self._placed_mask)
        return self._placed

    @property
    def placed_mask(self) -> int:
        """The covered cells as a bitboard (bit ``row * cols + col``)."""
        return self._placed_mask

    @property
    def cleared_mask(self) -> int:
        """The emptied cells as a bitboard."""
        return self._cleared

    @property
    def cleared_cells(self) -> frozenset[Cell]:
        return self._geo.cells_of(self._cleared)

    @property
    def cleared_rows(self) -> tuple[int, ...]:
        return tuple(sorted(r.index for r in self.regions if r.kind == "row"))

    @property
    def cleared_cols(self) -> tuple[int, ...]:
        return tuple(sorted(r.index for r in self.regions if r.kind == "col"))

    def _key(self) -> tuple[Any, ...]:
        return (self.slot, self.row, self.col, self.piece, self.points, self.lines, self.combo,
                self.perfect_clear, self.regions, self.row_drops, self._placed_mask,
                self._cleared)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MoveResult):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"MoveResult(slot={self.slot}, row={self.row}, col={self.col}, "
                f"piece={self.piece.id!r}, points={self.points}, lines={self.lines}, "
                f"combo={self.combo}, perfect_clear={self.perfect_clear}, "
                f"regions={list(self.regions)!r})")


@dataclass(frozen=True, slots=True)
class Summary:
    """The end-of-round summary (docs/rules.md §4.5) of a tray game.

    ``record_before``/``record_after``: the best score of this ruleset's record
    (group, or date for daily rulesets) before and after this game; ``None``
    when no record store was consulted or the ruleset keeps no record.
    ``failed_pieces``: the pieces left in the tray at the end. ``tip``: the
    first tip the ruleset's plugins chose from the end position. ``practice``:
    a later game of a date already played in a daily ruleset, which changes no
    record (set by the records module).
    """

    ruleset_id: str
    points: int
    record_before: int | None
    record_after: int | None
    new_record: bool
    lines_cleared: int
    best_combo: int
    moves: int
    failed_pieces: tuple[Piece, ...]
    tip: str | None
    over_reason: str | None
    date: str | None = None
    practice: bool = False
    hints: int = 0


@dataclass(frozen=True, slots=True)
class FallingRules:
    """How stones fall in a falling game (answer of ``blockyard_falling_rules``)."""

    fall_seconds: float
    soft_drop_seconds: float
    spawn_col: int
    upcoming: int


@dataclass(frozen=True, slots=True)
class LandResult:
    """What happened when a falling stone landed (or was discarded).

    ``completed``: the areas completed, as ``("row", i)``, ``("col", j)``,
    ``("block", b)``; ``jokers``: the cells whose digit turned into a joker.
    """

    points: int
    row: int
    col: int
    error: bool
    discarded: bool
    completed: list[tuple[str, int]]
    jokers: list[tuple[int, int]]
    stone: Any = None
    dropped: int = 0
