"""``line-clearing``: completed regions clear together (docs/rules.md T3), with
an optional gravity drop (docs/rules.md §6.2).

The plugin declares the regions from data — rows, columns, and ``blocks``
(any size that tiles the board: ``[3, 3]`` gives the nine 3×3 blocks of a 9×9
board) — and after a move empties every completed region, including regions
other plugins add (diagonals). No code is needed for Woodoku-style rules.
"""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.geometry import Board, Geometry, Region
from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.results import Clearing


class LineClearing:
    """Rows, columns and optionally blocks are regions; after a move every
    completed region (of any kind, from any plugin) is emptied at once. With
    ``gravity = true`` the rows above a cleared row then fall by the number of
    cleared rows below them; cleared columns and blocks just become empty."""

    name = "line-clearing"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "rows": "full rows clear",
        "cols": "full columns clear",
        "blocks": "[height, width] of blocks that tile the board and clear when full "
                  "(e.g. [3, 3]); none when absent",
        "gravity": "after a clear, the rows above a cleared row fall down",
    }

    def __init__(self, params: Params) -> None:
        self.rows = params.boolean("rows", True)
        self.cols = params.boolean("cols", True)
        self.blocks: tuple[int, int] | None = None
        if params.has("blocks"):
            size = params.numbers("blocks", integers=True, minimum=1)
            if len(size) != 2:
                raise params.error("blocks", f"expected [height, width], found {size!r}")
            self.blocks = (int(size[0]), int(size[1]))
        self.gravity = params.boolean("gravity", False)
        self.where, self.prefix = params.path, params.prefix
        # the ruleset's regions and a quick "may some be full?" test of the board
        # bits, worked out once the ruleset's regions are known (check_ruleset)
        self._ruleset: Any = None
        self._regions: tuple[Region, ...] = ()
        self._masks: tuple[int, ...] = ()
        self._maybe_full: Any = None

    @hookimpl
    def blockyard_check_ruleset(self, ruleset: Any) -> None:
        self._ruleset = ruleset
        self._regions = tuple(ruleset.regions)
        self._masks = tuple(r.mask for r in self._regions)
        self._maybe_full = full_detector(ruleset.geometry, self._masks)
        if self.blocks is not None:
            height, width = self.blocks
            if ruleset.rows % height or ruleset.cols % width:
                from blockyard.errors import RulesetError

                raise RulesetError(f"blocks of {height}×{width} do not tile a "
                                   f"{ruleset.rows}×{ruleset.cols} board", path=self.where,
                                   key=f"{self.prefix}.blocks")

    @hookimpl
    def blockyard_regions(self, ruleset: Any, geometry: Geometry) -> list[Region]:
        regions: list[Region] = []
        if self.rows:
            regions += geometry.row_regions()
        if self.cols:
            regions += geometry.col_regions()
        if self.blocks is not None:
            height, width = self.blocks
            if geometry.rows % height == 0 and geometry.cols % width == 0:
                regions += geometry.block_regions(height, width)
        return regions

    def clear_full(self, regions: tuple[Region, ...], board: Board,
                   masks: tuple[int, ...] | None = None) -> Clearing:
        """Empty every completed region of ``regions`` (then the gravity drop);
        ``masks``: the regions' masks, when the caller has them at hand."""
        bits = board.bits
        if masks is None:
            masks = tuple(r.mask for r in regions)
        union = 0
        for mask in masks:
            if bits & mask == mask:
                union |= mask
        if not union:
            return Clearing((), board)
        full = tuple(r for r in regions if bits & r.mask == r.mask)
        after = board.empty(union)
        drops: tuple[int, ...] = ()
        if self.gravity:
            rows = [r.index for r in full if r.kind == "row"]
            if rows:
                after, drops = after.collapse_rows(rows)
        return Clearing(full, after, drops)

    @hookimpl
    def blockyard_clear(self, game: Any, board: Board, placed: int, piece: Any, row: int,
                        col: int) -> Clearing:
        # (every argument of the hook, in order, though only two are read: the
        # engine then calls it directly, a frame less on every move weighed)
        if game.ruleset is not self._ruleset:  # not checked with this ruleset
            return self.clear_full(game.ruleset.regions, board)
        if self._maybe_full(board.bits):  # shifted ANDs: most moves fill no region
            return self.clear_full(self._regions, board, self._masks)
        return Clearing((), board)


def window_shifts(length: int, stride: int) -> tuple[int, ...]:
    """Right shifts that, and-ed in turn into a bitboard, leave at each bit the AND
    of the ``length`` bits ``stride`` apart starting there (doubling windows, then
    one overlapping step)."""
    shifts = []
    width = 1
    while width * 2 <= length:
        shifts.append(width * stride)
        width *= 2
    if width < length:
        shifts.append((length - width) * stride)
    return tuple(shifts)


def full_detector(geo: Geometry, masks: tuple[int, ...]) -> Any:
    """A function telling from the board bits whether some region of ``masks``
    may be full (``False``: certainly none is). Every row and every column among
    the regions is tested at once with shifted ANDs (a row is full when the AND
    of its ``cols`` bits is set at its first cell); other regions one by one."""
    rows = set(geo.row_masks)
    cols = set(geo.col_masks)
    present = set(masks)
    # (shifts, first cells) for rows and for columns, when all of them are regions
    lines: list[tuple[tuple[int, ...], int]] = []
    if rows <= present:
        lines.append((window_shifts(geo.cols, 1),
                      sum(1 << (r * geo.cols) for r in range(geo.rows))))
    if cols <= present:
        lines.append((window_shifts(geo.rows, geo.cols), (1 << geo.cols) - 1))
    others = tuple(m for m in masks if not (rows <= present and m in rows)
                   and not (cols <= present and m in cols))

    def maybe_full(bits: int) -> bool:
        for shifts, starts in lines:
            y = bits
            for shift in shifts:
                y &= y >> shift
            if y & starts:
                return True
        for mask in others:  # noqa: SIM110 (a loop: no generator on the hot path)
            if bits & mask == mask:
                return True
        return False
    return maybe_full
