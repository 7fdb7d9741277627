"""Bitboards with precomputed masks.

A board of ``rows × cols`` cells is a Python ``int``: bit ``r * cols + c`` is
cell ``(r, c)``. For every piece the geometry precomputes the bit offsets of its
cells and the mask of anchors where its bounding box lies inside the board, so
that "where does this piece fit" is a handful of shifts and ANDs::

    fit = valid_anchors & free & (free >> off_1) & ... & (free >> off_k)

Since an anchor in ``valid_anchors`` keeps every cell inside the board, no shift
wraps into the next row. Everything here is pure and cached per board size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from .params import short_repr
from .pieces import PIECE_ID_CHARS, Cell


class Region(tuple[str, int]):
    """A set of cells that can be completed: a row, a column, a 3×3 block, a
    diagonal, or any kind a plugin defines.

    ``kind`` and ``index`` name it (``Region("row", 3, mask)``); ``mask`` is its
    bitboard (bit ``row * cols + col``) and ``cells`` the frozenset of its
    ``(row, col)`` cells. A region compares, sorts and hashes as the pair
    ``(kind, index)``, so ``result.regions == (("row", 3),)`` reads naturally.
    """

    kind: str
    index: int  # type: ignore[assignment]  # the region's number, not tuple.index
    mask: int
    cells: frozenset[Cell]

    def __new__(cls, kind: str, index: int, mask: int,
                cells: frozenset[Cell] | None = None) -> Region:
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"Region kind: expected a non-empty string, found {kind!r}")
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"Region index: expected an integer, found {index!r}")
        if isinstance(mask, bool) or not isinstance(mask, int) or mask < 0:
            raise TypeError(f"Region mask: expected a bitboard (int >= 0), found {mask!r}")
        self = super().__new__(cls, (kind, index))
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "mask", mask)
        object.__setattr__(self, "cells", cells if cells is not None else frozenset())
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Region is immutable")

    @property
    def key(self) -> tuple[str, int]:
        """``(kind, index)`` as a plain tuple."""
        return (self.kind, self.index)

    def __repr__(self) -> str:
        return f"Region({self.kind!r}, {self.index})"

    def __reduce__(self) -> tuple[object, ...]:
        return (Region, (self.kind, self.index, self.mask, self.cells))


@dataclass(frozen=True, slots=True)
class PieceGeometry:
    """Precomputed masks of one piece on one board size."""

    offsets: tuple[int, ...]
    shape: int
    valid: int
    height: int
    width: int


class Geometry:
    """Masks and lookup tables for one board size. Get one with :func:`geometry`."""

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.size = rows * cols
        self.full = (1 << self.size) - 1
        row_mask = (1 << cols) - 1
        self.row_masks = tuple(row_mask << (r * cols) for r in range(rows))
        col_mask = sum(1 << (r * cols) for r in range(rows))
        self.col_masks = tuple(col_mask << c for c in range(cols))
        self.cell_of_bit: tuple[Cell, ...] = tuple(divmod(i, cols) for i in range(self.size))
        self.nbytes = (self.size + 7) // 8
        self.no_colours: tuple[int, ...] = (0,) * self.size
        """Every cell empty: the colours every empty :class:`Board` of this size
        shares."""
        self.no_pieces: tuple[str | None, ...] = (None,) * self.size
        """Every cell empty: the piece ids every empty :class:`Board` of this
        size shares."""
        self._pieces: dict[frozenset[Cell], PieceGeometry] = {}
        self._move_tables: dict[int, tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]] = {}

    def piece(self, cells: frozenset[Cell]) -> PieceGeometry:
        """The precomputed masks of a piece with these (normalised) cells."""
        info = self._pieces.get(cells)
        if info is None:
            cols = self.cols
            height = max(r for r, _ in cells) + 1
            width = max(c for _, c in cells) + 1
            offsets = tuple(sorted(r * cols + c for r, c in cells))
            valid = 0
            for r in range(self.rows - height + 1):
                for c in range(cols - width + 1):
                    valid |= 1 << (r * cols + c)
            shape = sum(1 << off for off in offsets)
            info = PieceGeometry(offsets, shape, valid, height, width)
            self._pieces[cells] = info
        return info

    def fits(self, free: int, info: PieceGeometry) -> int:
        """Bitmask of the anchors where the piece fits, given the free-cell mask."""
        m = info.valid
        for off in info.offsets:
            m &= free >> off
            if not m:
                break
        return m

    def anchor_ok(self, info: PieceGeometry, row: int, col: int) -> bool:
        """Whether anchor ``(row, col)`` keeps the piece inside the board."""
        return 0 <= row <= self.rows - info.height and 0 <= col <= self.cols - info.width

    def move_table(self, slot: int) -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]:
        """For byte ``k`` of an anchor mask and its value, the ``(slot, row, col)``
        moves of its set bits (built once per slot)."""
        table = self._move_tables.get(slot)
        if table is None:
            table = self._build_move_table(slot)
        return table

    def moves(self, slot: int, fit: int) -> list[tuple[int, int, int]]:
        """Expand an anchor mask into ``(slot, row, col)`` tuples, in board order."""
        return self.tray_moves((0,) * slot + (fit,))

    def tray_moves(self, fits: Sequence[int]) -> list[tuple[int, int, int]]:
        """Expand the anchor mask of each slot into ``(slot, row, col)`` tuples, slot
        by slot in board order (whole bytes of a mask at a time, from the move tables)."""
        out: list[tuple[int, int, int]] = []
        ext = out.extend
        nbytes = self.nbytes
        for slot, fit in enumerate(fits):
            if fit:
                table = self.move_table(slot)
                for k, byte in enumerate(fit.to_bytes(nbytes, "little")):
                    if byte:
                        ext(table[k][byte])
        return out

    def _build_move_table(self, slot: int
                          ) -> tuple[tuple[tuple[tuple[int, int, int], ...], ...], ...]:
        cells = self.cell_of_bit
        size = self.size
        table = []
        for k in range(self.nbytes):
            moves = [(slot, *cells[k * 8 + b]) if k * 8 + b < size else None for b in range(8)]
            per_byte: list[tuple[tuple[int, int, int], ...]] = [()]
            for byte in range(1, 256):
                # the moves of the byte without its highest bit, then that bit's move
                high = byte.bit_length() - 1
                move = moves[high]
                rest = per_byte[byte ^ (1 << high)]
                per_byte.append(rest if move is None else (*rest, move))
            table.append(tuple(per_byte))
        result = tuple(table)
        self._move_tables[slot] = result
        return result

    def bits_of(self, mask: int) -> list[int]:
        """Indices of the set bits of ``mask``."""
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out

    def cells_of(self, mask: int) -> frozenset[Cell]:
        """The ``(row, col)`` cells of a mask."""
        cell = self.cell_of_bit
        return frozenset(cell[i] for i in self.bits_of(mask))

    def region(self, kind: str, index: int, mask: int) -> Region:
        """A :class:`Region` of this board with its ``cells`` filled in."""
        return Region(kind, index, mask, self.cells_of(mask))

    def bind(self, region: Region) -> Region:
        """``region`` with its ``cells`` computed for this board (plugins may
        build regions from a mask alone)."""
        if region.cells or not region.mask:
            return region
        return self.region(region.kind, region.index, region.mask)

    def row_regions(self) -> tuple[Region, ...]:
        """Every row as a region (kind ``"row"``, index = row)."""
        return tuple(self.region("row", r, m) for r, m in enumerate(self.row_masks))

    def col_regions(self) -> tuple[Region, ...]:
        """Every column as a region (kind ``"col"``, index = column)."""
        return tuple(self.region("col", c, m) for c, m in enumerate(self.col_masks))

    def line_regions(self) -> tuple[Region, ...]:
        """Every row then every column as regions."""
        return self.row_regions() + self.col_regions()

    def block_regions(self, height: int, width: int) -> tuple[Region, ...]:
        """The board tiled into ``height × width`` blocks (kind ``"block"``),
        numbered row by row from the top left (a 9×9 board has blocks 0…8 of
        3×3, as in sudoku). The board's size must be a multiple of the block's."""
        if height < 1 or width < 1 or self.rows % height or self.cols % width:
            raise ValueError(f"{height}×{width} blocks do not tile a "
                             f"{self.rows}×{self.cols} board")
        per_row = self.cols // width
        out = []
        for br in range(self.rows // height):
            for bc in range(per_row):
                mask = 0
                for r in range(br * height, (br + 1) * height):
                    for c in range(bc * width, (bc + 1) * width):
                        mask |= 1 << (r * self.cols + c)
                out.append(self.region("block", br * per_row + bc, mask))
        return tuple(out)


@cache
def geometry(rows: int, cols: int) -> Geometry:
    """The shared :class:`Geometry` of a board size."""
    return Geometry(rows, cols)


_new_board = object.__new__
MAX_PENDING = 16
"""The longest chain of boards whose colour tuples are not written yet
(:meth:`Board.with_piece`): bounds the memory they hold and the work of a read."""

_Pending = tuple["tuple[int, ...] | Board", "tuple[str | None, ...] | None", int,
                 tuple[int, ...], int, "str | None", int]
"""(source, source pieces, base, offsets, colour, piece, depth): a board's colours
are the source's (a written tuple, or a board whose colours are not written yet)
with the cells ``base + offset`` set to ``colour``, and its piece ids the same
with those cells set to ``piece`` (the source pieces: the written ids beside a
written colour tuple, ``None`` beside a board); ``depth`` counts the boards of
that chain."""


class Board:
    """The cells of a board: a bitboard plus a colour index and a piece id per
    cell. Immutable.

    ``bits`` is the authority for occupancy; ``colours`` (row-major, 0 = empty)
    tells the frontend how to draw a filled cell, and ``pieces`` (row-major,
    ``None`` = empty) which piece filled it. Nothing changes a board once made:
    :meth:`fill`, :meth:`empty`, :meth:`collapse_rows` and :meth:`with_piece`
    return new boards, ``colours`` and ``pieces`` are tuples and ``bits`` and
    ``geo`` are read-only. So a board handed to a plugin (``game.grid``, the
    ``board`` of ``blockyard_clear``) can be kept, compared and built upon
    without a copy, and games, their clones and a bot's look-ahead share boards.

    A board made by :meth:`with_piece` (or :meth:`fill`, :meth:`empty`) writes
    its colour and piece tuples only when ``colours`` or ``pieces`` is first
    read, from the board it came from, so the many boards a bot looks at and
    forgets cost no copy; since no board changes, such a chain of pending boards
    is safe by construction.
    """

    __slots__ = ("_bits", "_colours", "_geo", "_pending", "_pieces")

    _bits: int
    _geo: Geometry
    _colours: tuple[int, ...] | None
    _pieces: tuple[str | None, ...] | None
    _pending: _Pending | None

    def __init__(self, geo: Geometry, bits: int = 0,
                 colours: Sequence[int] | None = None,
                 pieces: Sequence[str | None] | None = None) -> None:
        """A board of ``geo``'s size with the filled cells ``bits``, the colour
        index of every cell ``colours`` and the id of the piece that filled
        every cell ``pieces`` (both row-major, copied; default: all 0 and all
        ``None``). A piece id is a string on a filled cell only."""
        if not isinstance(geo, Geometry):
            raise TypeError(f"Board: geo: expected a Geometry, found {geo!r:.60}")
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits <= geo.full:
            raise ValueError(f"Board: bits: expected a bitboard of the {geo.rows}×{geo.cols} "
                             f"board (an int from 0 to 2**{geo.size} - 1), found {bits!r:.60}")
        if colours is None:
            written = geo.no_colours
        else:
            written = tuple(colours)
            if len(written) != geo.size:
                raise ValueError(f"Board: colours: expected {geo.size} cells, found "
                                 f"{len(written)}")
        if pieces is None:
            ids = geo.no_pieces
        else:
            ids = tuple(pieces)
            if len(ids) != geo.size:
                raise ValueError(f"Board: pieces: expected {geo.size} cells, found {len(ids)}")
            for i, piece_id in enumerate(ids):
                if piece_id is not None and (type(piece_id) is not str
                                             or len(piece_id) > PIECE_ID_CHARS
                                             or not bits >> i & 1):
                    raise ValueError(
                        f"Board: pieces[{i}]: expected None, or a piece id (str of at most "
                        f"{PIECE_ID_CHARS} characters) on a filled cell, found "
                        f"{piece_id!r:.60} on a{' filled' if bits >> i & 1 else 'n empty'} cell")
        self._geo = geo
        self._bits = bits
        self._colours = written
        self._pieces = ids
        self._pending = None

    @property
    def geo(self) -> Geometry:
        """The board's :class:`Geometry` (its size and masks)."""
        return self._geo

    @property
    def bits(self) -> int:
        """The filled cells: bit ``row * cols + col``."""
        return self._bits

    @property
    def colours(self) -> tuple[int, ...]:
        """The colour index of every cell, row-major: cell ``(row, col)`` is
        ``colours[row * cols + col]``. 0 is an empty cell; in a tray game ``i``
        from 1 to ``len(ruleset.families)`` a cell of a piece of
        ``ruleset.families[i - 1]`` (the families in the order the rule file and
        the plugins declare them), and ``len(ruleset.families) + 1`` a cell of a
        piece of no family of the ruleset: a filled cell of a starting board
        (``new_game(..., board=...)``) or of a custom tray piece
        (``TrayGame.cell_families`` names them)."""
        colours = self._colours
        if colours is None:
            self._write()
            colours = self._colours
            assert colours is not None
        return colours

    @property
    def pieces(self) -> tuple[str | None, ...]:
        """The id of the piece whose placement filled every cell, row-major (as
        :attr:`colours`): the placed :class:`~blockyard.pieces.Piece`'s ``id``
        exactly (``"L-1+r"`` for an ``L-1`` turned once), kept as the cell is
        moved by a gravity drop; ``"custom"`` for a filled cell of a starting
        board and of a custom tray piece; ``None`` for an empty cell and for a
        cell filled without naming a piece (:meth:`fill` without ``piece``: a
        falling game's stones, a plugin's own fill)."""
        pieces = self._pieces
        if pieces is None:
            self._write()
            pieces = self._pieces
            assert pieces is not None
        return pieces

    def _write(self) -> None:
        """Write the colour and piece tuples of a board made from another: up
        the chain to the first written tuples, then the fills down."""
        fills = []
        board = self
        while True:
            source, source_pieces, base, offsets, colour, piece, _ = board._pending  # type: ignore[misc]
            fills.append((base, offsets, colour, piece))
            if type(source) is tuple:
                cells = list(source)
                ids = list(source_pieces)  # type: ignore[arg-type]
                break
            board = source  # type: ignore[assignment]
            if board._colours is not None:
                cells = list(board._colours)
                ids = list(board._pieces)  # type: ignore[arg-type]
                break
        for base, offsets, colour, piece in reversed(fills):
            for off in offsets:
                cells[base + off] = colour
                ids[base + off] = piece
        self._colours = tuple(cells)
        self._pieces = tuple(ids)
        self._pending = None

    def copy(self) -> Board:
        """This board (a board never changes, so it is its own copy)."""
        return self

    def _derived(self, bits: int, base: int, offsets: tuple[int, ...], colour: int,
                 piece: str | None) -> Board:
        """A new board with ``bits`` whose colours and piece ids are this board's
        with the cells ``base + offset`` set to ``colour`` and ``piece``, written
        when first read."""
        board = _new_board(Board)
        board._geo = self._geo
        board._bits = bits
        board._colours = None
        board._pieces = None
        pending = self._pending
        if pending is None:
            board._pending = (self._colours, self._pieces, base, offsets, colour,  # type: ignore[assignment]
                              piece, 1)
        elif pending[6] < MAX_PENDING:
            board._pending = (self, None, base, offsets, colour, piece, pending[6] + 1)
        else:
            self._write()
            board._pending = (self._colours, self._pieces, base, offsets, colour,  # type: ignore[assignment]
                              piece, 1)
        return board

    def with_piece(self, mask: int, base: int, offsets: tuple[int, ...], colour: int,
                   piece: str | None = None) -> Board:
        """A new board with the cells ``base + offset`` (together: ``mask``) filled
        with ``colour`` by the piece whose id is ``piece``: a piece placed (the
        engine's fast form of :meth:`fill`; the colour and piece tuples are
        written when first read, from this board's, so a game whose cells nobody
        reads writes them every ``MAX_PENDING`` moves)."""
        return self._derived(self._bits | mask, base, offsets, colour, piece)

    def fill(self, mask: int, colour: int, piece: str | None = None) -> Board:
        """A new board with the cells of ``mask`` filled with ``colour``, by the
        piece whose id is ``piece`` (``None``: no piece, e.g. a stone)."""
        if piece is not None and (type(piece) is not str or len(piece) > PIECE_ID_CHARS):
            raise TypeError(f"Board.fill: piece: expected a piece id (str of at most "
                            f"{PIECE_ID_CHARS} characters) or None, found {piece!r:.60}")
        geo = self._geo
        if type(mask) is not int or not 0 <= mask <= geo.full:
            raise ValueError(mask_problem("Board.fill", mask, geo))
        if type(colour) is not int or not 0 < colour <= MAX_COLOUR:
            raise ValueError(f"Board.fill: colour: expected a colour index from 1 to "
                             f"{MAX_COLOUR}, found {short_repr(colour)}")
        return self._derived(self._bits | mask, 0, tuple(geo.bits_of(mask)), colour, piece)

    def empty(self, mask: int) -> Board:
        """A new board with the cells of ``mask`` empty (``ValueError`` for a mask
        with a cell off the board)."""
        geo = self._geo
        if type(mask) is not int or not 0 <= mask <= geo.full:
            raise ValueError(mask_problem("Board.empty", mask, geo))
        return self._derived(self._bits & ~mask, 0, tuple(geo.bits_of(mask)), 0, None)

    def collapse_rows(self, cleared_rows: Sequence[int]) -> tuple[Board, tuple[int, ...]]:
        """Gravity drop (docs/rules.md §6.2): a new board where every row above a
        cleared row has moved down by the number of cleared rows below it and
        the top rows are empty (each cell keeps its colour and piece id).
        Returns that board and, for each of its rows, how many rows it fell."""
        geo = self._geo
        cols = geo.cols
        gone = set(cleared_rows)
        kept = [r for r in range(geo.rows) if r not in gone]
        new_rows = [None] * len(gone) + kept
        colours = self.colours
        pieces = self.pieces
        new_colours: list[int] = []
        new_pieces: list[str | None] = []
        bits = 0
        row_mask = (1 << cols) - 1
        for dest, src in enumerate(new_rows):
            if src is None:
                new_colours.extend([0] * cols)
                new_pieces.extend([None] * cols)
            else:
                new_colours.extend(colours[src * cols:(src + 1) * cols])
                new_pieces.extend(pieces[src * cols:(src + 1) * cols])
                bits |= ((self._bits >> (src * cols)) & row_mask) << (dest * cols)
        board = _new_board(Board)
        board._geo = geo
        board._bits = bits
        board._colours = tuple(new_colours)
        board._pieces = tuple(new_pieces)
        board._pending = None
        return board, tuple(0 if src is None else dest - src for dest, src in enumerate(new_rows))

    def row_counts(self) -> list[int]:
        """Filled cells per row."""
        return [(self._bits & m).bit_count() for m in self._geo.row_masks]

    def rows_tuple(self) -> tuple[tuple[int, ...], ...]:
        """The colours row by row."""
        cols = self._geo.cols
        c = self.colours
        return tuple(c[r * cols:(r + 1) * cols] for r in range(self._geo.rows))

    def text(self) -> str:
        """The board as text: ``#`` filled, ``.`` empty, rows joined by newlines."""
        cols = self._geo.cols
        bits = self._bits
        return "\n".join(
            "".join("#" if bits >> (r * cols + c) & 1 else "." for c in range(cols))
            for r in range(self._geo.rows)
        )

    def __repr__(self) -> str:
        return f"<Board {self._geo.rows}×{self._geo.cols} bits={self._bits:#x}>"


MAX_COLOUR = 255
"""The highest colour index a cell may hold (what a snapshot carries)."""


def mask_problem(what: str, mask: object, geo: Geometry) -> str:
    """Why ``mask`` is not a mask of cells of ``geo``'s board, in a sentence
    starting with ``what`` (the service or hook that was given it)."""
    size = geo.size
    expected = (f"expected a mask of the {geo.rows}×{geo.cols} board's cells (an int from "
                f"0 to 2**{size} - 1, bit row * {geo.cols} + col)")
    if type(mask) is not int:
        return f"{what}: {expected}, found {type(mask).__name__} {short_repr(mask)}"
    if mask < 0:
        return f"{what}: {expected}, found the negative {short_repr(mask)}"
    return (f"{what}: {expected}, found one with bit {mask.bit_length() - 1}: a cell off "
            "the board")


def parse_board_text(text: str, rows: int, cols: int, alphabet: str = ".#") -> list[str]:
    """Split a starting-position board into ``rows`` lines of ``cols`` characters.

    Leading/trailing blank lines and indentation are ignored. Raises
    ``ValueError`` naming the row for a wrong size or an unknown character.
    """
    lines = [line.strip() for line in text.strip("\n").splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) != rows:
        raise ValueError(f"board: expected {rows} rows, found {len(lines)}")
    for r, line in enumerate(lines):
        if len(line) != cols:
            raise ValueError(f"board row {r}: expected {cols} cells, found {len(line)} ({line!r})")
        for ch in line:
            if ch not in alphabet:
                allowed = ", ".join(repr(a) for a in alphabet)
                raise ValueError(f"board row {r}: unexpected character {ch!r} (allowed: {allowed})")
    return lines
