"""Engine benchmark: Blockyard's bitboard engine against a list-of-lists reference.

Prints, for eu-classic:

- random-playout placements per second through the public API
  (``legal_moves()`` + ``place()`` on every move, new games as they end);
- full-tray "where can each piece go" enumerations per second
  (``Game.fit_masks()``: for each of the three tray pieces, every anchor where
  it fits, as a bitmask);

and the same two figures for a plain list-of-lists implementation contained
in this file (board as ``list[list[bool]]``, pieces as cell lists, the same
rules for clearing and the same pieces), with the ratio.

Run:  python benchmarks/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time

import blockyard

RULESET = "eu-classic"
TARGET_PLACEMENTS = 30_000
TARGET_ENUMERATIONS = 200_000


# --------------------------------------------------------------------------
# the reference: the obvious implementation, no bitboards
# --------------------------------------------------------------------------

class ListBoardGame:
    """eu rules on a list-of-lists board (placement, clearing, dealing by weight)."""

    def __init__(self, ruleset: blockyard.Ruleset, seed: int) -> None:
        self.rows, self.cols = ruleset.rows, ruleset.cols
        self.board = [[False] * self.cols for _ in range(self.rows)]
        self.families = [f for f in ruleset.families if f.weight > 0]
        self.weights = [f.weight for f in self.families]
        self.rng = random.Random(seed)
        self.tray: list[list[tuple[int, int]] | None] = []
        self.deal()

    def deal(self) -> None:
        self.tray = []
        for _ in range(3):
            family = self.rng.choices(self.families, self.weights)[0]
            piece = self.rng.choice(family.pieces)
            self.tray.append(sorted(piece.cells))

    def fits(self, cells: list[tuple[int, int]], row: int, col: int) -> bool:
        for r, c in cells:
            rr, cc = row + r, col + c
            if rr >= self.rows or cc >= self.cols or self.board[rr][cc]:
                return False
        return True

    def anchors(self, cells: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return [(r, c) for r in range(self.rows) for c in range(self.cols)
                if self.fits(cells, r, c)]

    def legal_moves(self) -> list[tuple[int, int, int]]:
        return [(slot, r, c) for slot, cells in enumerate(self.tray) if cells is not None
                for r, c in self.anchors(cells)]

    def place(self, slot: int, row: int, col: int) -> None:
        cells = self.tray[slot]
        assert cells is not None and self.fits(cells, row, col)
        for r, c in cells:
            self.board[row + r][col + c] = True
        self.tray[slot] = None
        full_rows = [r for r in range(self.rows) if all(self.board[r])]
        full_cols = [c for c in range(self.cols) if all(self.board[r][c] for r in range(self.rows))]
        for r in full_rows:
            for c in range(self.cols):
                self.board[r][c] = False
        for c in full_cols:
            for r in range(self.rows):
                self.board[r][c] = False
        if all(p is None for p in self.tray):
            self.deal()


# --------------------------------------------------------------------------
# measurements
# --------------------------------------------------------------------------

def playout_rate(make, seconds: float) -> float:
    """Placements per second of random playouts; ``make(seed)`` starts a game."""
    rnd = random.Random(1)
    placements = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = make(rnd.randrange(1 << 30))
        while True:
            moves = game.legal_moves()
            if not moves:
                break
            game.place(*moves[rnd.randrange(len(moves))])
            placements += 1
    return placements / (time.perf_counter() - start)


def sample_positions(count: int) -> list[blockyard.Game]:
    """Mid-game positions of eu-classic (a few random moves into a game)."""
    rnd = random.Random(2)
    out = []
    while len(out) < count:
        game = blockyard.new_game(RULESET, seed=rnd.randrange(1 << 30))
        for _ in range(rnd.randrange(4, 12)):
            moves = game.legal_moves()
            if not moves:
                break
            game.place(*moves[rnd.randrange(len(moves))])
        if not game.over:
            out.append(game)
    return out


def enumeration_rate(positions: list[blockyard.Game], seconds: float) -> float:
    """Full-tray enumerations per second with the bitboard engine."""
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for game in positions:
            game._fits = None  # measure the computation, not the per-position cache
            game.fit_masks()
        count += len(positions)
    return count / (time.perf_counter() - start)


def reference_enumeration_rate(ruleset: blockyard.Ruleset, positions: list[blockyard.Game],
                               seconds: float) -> float:
    refs = []
    for game in positions:
        ref = ListBoardGame(ruleset, 0)
        ref.board = [[bool(v) for v in row] for row in game.board]
        ref.tray = [None if p is None else sorted(p.cells) for p in game.tray]
        refs.append(ref)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for ref in refs:
            [None if cells is None else ref.anchors(cells) for cells in ref.tray]
        count += len(refs)
    return count / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    ruleset = blockyard.load_ruleset(RULESET)

    ours_play = playout_rate(lambda seed: blockyard.new_game(ruleset, seed=seed), args.seconds)
    ref_play = playout_rate(lambda seed: ListBoardGame(ruleset, seed), args.seconds)
    positions = sample_positions(200)
    ours_enum = enumeration_rate(positions, args.seconds)
    ref_enum = reference_enumeration_rate(ruleset, positions, args.seconds)

    print(f"ruleset {RULESET}, {args.seconds:g} s per figure")
    print(f"{'':34}{'blockyard':>12}{'list-of-lists':>15}{'ratio':>8}{'target':>10}")
    print(f"{'placements/s (legal_moves+place)':34}{ours_play:>12,.0f}{ref_play:>15,.0f}"
          f"{ours_play / ref_play:>7.1f}x{TARGET_PLACEMENTS:>10,}")
    print(f"{'tray enumerations/s':34}{ours_enum:>12,.0f}{ref_enum:>15,.0f}"
          f"{ours_enum / ref_enum:>7.1f}x{TARGET_ENUMERATIONS:>10,}")


if __name__ == "__main__":
    main()
