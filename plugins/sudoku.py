"""Sudoku Bloxx rules (docs/rules.md §7): the stone stream, the sudoku check, completed
areas, jokers, scoring and the end.

``sudoku-stones`` deals bags of the nine digits in random order; before each
digit a symbol stone is inserted with probability ``symbol_chance``, and each
digit is golden with probability ``golden_chance``. Bag ``i`` is drawn from
``(seed, "deal", i)`` only, so both players of a duel get the same stones.

``sudoku-rules``: the board is split into blocks of ``block_rows × block_cols``;
a digit may appear once per row, column and block (symbols and jokers match no
digit); a landing that breaks this is an error. Completing a row, column or
block scores its points, plus ``golden_bonus`` per golden stone inside it. When
all blocks of a horizontal band are complete, every digit present in all of
them becomes a joker. Over at ``max_errors`` errors or when the board is full.
"""

from __future__ import annotations

from typing import Any, ClassVar

from blockyard.geometry import Board, Geometry, Region
from blockyard.hookspecs import hookimpl
from blockyard.params import Params
from blockyard.results import Clearing, LandingFacts, MoveFacts, Scoring
from blockyard.stones import GOLDEN, JOKER, Stone, digit_of


class SudokuStones:
    name = "sudoku-stones"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "symbol_chance": "chance that a symbol stone comes before a digit",
        "golden_chance": "chance that a digit is golden",
    }

    def __init__(self, params: Params) -> None:
        self.symbol_chance = params.number("symbol_chance", minimum=0, maximum=1)
        self.golden_chance = params.number("golden_chance", minimum=0, maximum=1)

    @hookimpl
    def blockyard_deal(self, game: Any, index: int) -> list[Stone]:
        rng = game.stream("deal", index)
        digits = list(range(1, 10))
        rng.shuffle(digits)
        bag: list[Stone] = []
        for digit in digits:
            if rng.random() < self.symbol_chance:
                bag.append(Stone(None, symbol=True))
            bag.append(Stone(digit, golden=rng.random() < self.golden_chance))
        return bag


class SudokuRules:
    name = "sudoku-rules"
    PARAMETERS: ClassVar[dict[str, str]] = {
        "block_rows": "height of a sudoku block", "block_cols": "width of a sudoku block",
        "digit_points": "points for a digit that stays",
        "hard_drop_points_per_row": "points per row of a hard drop",
        "area_points": "points for completing a row, a column or a block",
        "golden_bonus": "extra points when a golden digit completes an area",
        "discard_points": "points for a stone discarded over a full column (negative)",
        "max_errors": "errors that end the game",
        "minimum_score": "the score never goes below this",
    }

    def __init__(self, params: Params) -> None:
        self.block_rows = params.integer("block_rows", minimum=1)
        self.block_cols = params.integer("block_cols", minimum=1)
        self.digit_points = params.integer("digit_points")
        self.hard_drop_points = params.integer("hard_drop_points_per_row")
        area = params.table_of("area_points")
        self.area_points = {kind: area.integer(kind) for kind in ("row", "col", "block")}
        area.finish()
        self.golden_bonus = params.integer("golden_bonus")
        self.discard_points = params.integer("discard_points")
        self.max_errors = params.integer("max_errors", minimum=1)
        self.floor = params.integer("minimum_score")
        self.where, self.prefix = params.path, params.prefix
        self._peers: tuple[tuple[Region, ...], tuple[int, ...]] | None = None

    # -- areas -------------------------------------------------------------------------

    @hookimpl
    def blockyard_check_ruleset(self, ruleset: Any) -> None:
        from blockyard.errors import RulesetError

        if ruleset.rows % self.block_rows or ruleset.cols % self.block_cols:
            raise RulesetError(f"blocks of {self.block_rows}×{self.block_cols} do not tile a "
                               f"{ruleset.rows}×{ruleset.cols} board", path=self.where,
                               key=self.prefix)
        given = getattr(ruleset, "given", None)
        if not given:
            return
        # the given stones keep the sudoku rule (docs/rules.md §7.1)
        cells = given.replace("\n", "")
        for area in ruleset.regions:
            seen: dict[str, int] = {}
            for i in ruleset.geometry.bits_of(area.mask):
                ch = cells[i]
                if ch == ".":
                    continue
                if ch in seen:
                    first = seen[ch]
                    raise RulesetError(
                        f"the digit {ch} is given twice in {area.kind} {area.index}: at row "
                        f"{first // ruleset.cols}, column {first % ruleset.cols} and at row "
                        f"{i // ruleset.cols}, column {i % ruleset.cols}",
                        path=ruleset.where, key="board.given")
                seen[ch] = i

    @hookimpl
    def blockyard_regions(self, ruleset: Any, geometry: Geometry) -> list[Region]:
        if geometry.rows % self.block_rows or geometry.cols % self.block_cols:
            return list(geometry.line_regions())  # refused by blockyard_check_ruleset
        return [*geometry.line_regions(),
                *geometry.block_regions(self.block_rows, self.block_cols)]

    def peers_of(self, game: Any) -> tuple[int, ...]:
        """For each cell, the cells of every area it lies in (one mask per cell),
        worked out once per set of areas."""
        regions = game.ruleset.regions
        cached = self._peers
        if cached is None or cached[0] is not regions:
            peers = [0] * (game.rows * game.cols)
            for area in regions:
                for i in game.grid.geo.bits_of(area.mask):
                    peers[i] |= area.mask
            cached = self._peers = (regions, tuple(peers))
        return cached[1]

    # -- the sudoku check ---------------------------------------------------------------

    @hookimpl
    def blockyard_accept_stone(self, game: Any, stone: Stone, row: int, col: int) -> bool:
        digit = stone.digit
        if digit is None:
            return True
        grid = game.grid
        codes = grid.colours
        # the filled cells of the stone's row, column and block (every area it is in)
        mask = self.peers_of(game)[row * game.cols + col] & grid.bits
        while mask:
            low = mask & -mask
            mask ^= low
            if digit_of(codes[low.bit_length() - 1]) == digit:
                return False
        return True

    @hookimpl
    def blockyard_clear(self, game: Any, board: Board, placed: int) -> Clearing:
        bits = board.bits
        completed = tuple(r for r in game.ruleset.regions
                          if r.mask & placed and bits & r.mask == r.mask)
        after = board
        blocks = [r for r in game.ruleset.regions if r.kind == "block"]
        per_row = game.cols // self.block_cols
        for band in range(game.rows // self.block_rows):
            band_blocks = blocks[band * per_row:(band + 1) * per_row]
            if not any(b in completed for b in band_blocks if b.kind == "block"):
                continue
            if not all(bits & b.mask == b.mask for b in band_blocks):
                continue
            shared = None
            for block in band_blocks:
                digits = {digit_of(board.colours[i]) for i in board.geo.bits_of(block.mask)}
                digits.discard(None)
                shared = digits if shared is None else shared & digits
            if not shared:
                continue
            jokers: dict[int, int] = {}  # joker code -> the cells that turn into it
            for block in band_blocks:
                for i in board.geo.bits_of(block.mask):
                    digit = digit_of(board.colours[i])
                    if digit is not None and digit in shared:
                        jokers[JOKER | digit] = jokers.get(JOKER | digit, 0) | 1 << i
            for code, cells in sorted(jokers.items()):
                after = after.fill(cells, code)
        return Clearing(completed, after)

    # -- points and the end --------------------------------------------------------------

    @hookimpl
    def blockyard_score(self, game: Any, move: MoveFacts) -> Scoring | None:
        if not isinstance(move, LandingFacts):
            return None
        if move.discarded:
            points = self.discard_points
        elif move.error:
            points = 0
        else:
            # symbol stones score nothing of their own: no placement and no hard-drop
            # points; the areas they complete still pay (docs/rules.md §7.4)
            if move.stone.digit is not None:
                points = self.digit_points + self.hard_drop_points * move.dropped
            else:
                points = 0
            codes = game.grid.colours
            assert move.cell is not None
            row, col = move.cell
            placed = row * game.cols + col
            for area in move.regions:
                points += self.area_points[area.kind]
                golden = sum(1 for i in game.grid.geo.bits_of(area.mask & game.grid.bits)
                             if codes[i] & GOLDEN and digit_of(codes[i]) is not None)
                if area.mask >> placed & 1 and move.stone.golden:
                    golden += 1
                points += self.golden_bonus * golden
        points = max(points, self.floor - game.score)
        return Scoring(points, 0)

    @hookimpl
    def blockyard_max_errors(self, ruleset: Any) -> int:
        return self.max_errors

    @hookimpl
    def blockyard_end_reason(self, game: Any, stuck: bool) -> str | None:
        if game.errors >= self.max_errors:
            return "errors"
        if game.grid.bits == game.grid.geo.full:
            return "complete"
        return None

    @hookimpl
    def blockyard_invariants(self, game: Any) -> list[str]:
        problems = []
        codes = game.grid.colours
        for area in game.ruleset.regions:
            seen: set[int] = set()
            for i in game.grid.geo.bits_of(area.mask & game.grid.bits):
                digit = digit_of(codes[i])
                if digit is None:
                    continue
                if digit in seen:
                    problems.append(f"digit {digit} twice in {area.kind} {area.index}")
                seen.add(digit)
        return problems
