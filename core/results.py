"""Value objects passed between the engine and the plugins."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .geometry import Board, Region
from .pieces import Cell, Piece


@dataclass(frozen=True, slots=True)
class Clearing:
    """What a clearing plugin did to the board after a move.

    ``regions``: the completed regions that were cleared (rows, columns, …);
    ``board``: the board afterwards (a new object; the input is never changed);
    ``row_drops``: for a gravity drop, how many rows each row of the new board
    fell (empty when nothing moved).
    """

    regions: tuple[Region, ...]
    board: Board
    row_drops: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveFacts:
    """What a move did, handed to the scoring hook before any state changes.

    Tray games fill ``piece``; falling games fill ``stone``, ``cell`` (where it
    landed), ``dropped`` (rows fallen in a hard drop), ``error`` and
    ``discarded``. ``regions`` are the regions the move completed."""

    piece: Piece | None
    cells: int
    regions: tuple[Region, ...]
    lines: int
    perfect_clear: bool
    combo: int
    state: dict[str, Any]
    stone: Any = None
    cell: tuple[int, int] | None = None
    dropped: int = 0
    error: bool = False
    discarded: bool = False


@dataclass(frozen=True, slots=True)
class Scoring:
    """The scoring hook's answer: points, the new combo counter, and updates to
    the scoring plugin's own saved state (merged into ``game.state``)."""

    points: int
    combo: int
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class MoveResult:
    """What ``Game.place`` did (or ``Game.preview`` would do).

    ``cells`` is the number of cells placed (the ``cells`` term of the scoring
    rules); ``placed`` the board cells covered; ``cleared_rows``/``cleared_cols``
    the indices of the cleared lines (what the frontend makes glow); ``lines``
    the number of cleared regions; ``combo`` the combo counter after the move;
    ``row_drops`` how many rows each row fell after the clear (gravity rulesets;
    empty when nothing fell).
    """

    slot: int
    row: int
    col: int
    piece: Piece
    points: int
    cells: int
    placed: frozenset[Cell]
    cleared_rows: tuple[int, ...]
    cleared_cols: tuple[int, ...]
    lines: int
    combo: int
    perfect_clear: bool
    regions: tuple[tuple[str, int], ...] = ()
    row_drops: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """The end-of-round summary (RULES §4.5) of a tray game.

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
