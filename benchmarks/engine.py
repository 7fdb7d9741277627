"""Engine benchmark: Blockyard's bitboard engine against a list-of-lists reference.

Prints, for eu-classic:

- random-playout placements per second through the public API
  (``legal_moves()`` + ``place()`` on every move, new games as they end),
  beside a lean plain-Python bitboard loop that plays the same games with no
  framework (the practical limit; ``tests/test_benchmarks.py`` checks that it
  deals, clears and scores exactly as Blockyard) and a list-of-lists
  implementation, measured interleaved in the same run, and Blockyard again
  with its purity check off (``blockyard.rulehooks.purity_check(False)``) and
  with the check made on every hook, Blockyard's own plugins' too
  (``purity_check(True, bundled=True)``: what a ruleset whose plugins come from
  elsewhere pays), so that the check's cost is the difference;
- ``preview`` per second, ``new_game`` time, ``restore`` of a 40-move game
  (its log replayed on the engine and the snapshot compared with the result)
  beside its moves played again by hand on a new game, so that the checks'
  cost is the difference
  and ``clone`` (of a game in mid-play and of the 40-move game: the
  independent copy search bots make);
- full-tray "where can each piece go" enumerations per second
  (``Game.fit_masks()``: for each of the three tray pieces, every anchor where
  it fits, as a bitmask);

and the same two figures for a plain list-of-lists implementation contained
in this file (board as ``list[list[bool]]``, pieces as cell lists, the same
rules for clearing and the same pieces), with the ratio.

Run:  python benchmarks/engine.py [--seconds 3] [--profile]

``--profile`` then prints where a Blockyard playout spends its time (cProfile,
the functions with the most time of their own), and a split of one placement
into its parts measured without the profiler.
"""

from __future__ import annotations

import argparse
import random
import time
from bisect import bisect_right
from itertools import accumulate
from typing import Any

import blockyard
from blockyard.plugins.clearing import window_shifts
from blockyard.rng import stream
from blockyard.rulehooks import purity_check

RULESET = "eu-classic"
RESTORE_MOVES = 40
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
# the lean reference: the fastest plain-Python bitboard loop for eu-classic
# --------------------------------------------------------------------------

_TABLES: dict[tuple[int, int, int], list[list[tuple[tuple[int, int, int], ...]]]] = {}


def _lean_table(slot: int, rows: int, cols: int
                ) -> list[list[tuple[tuple[int, int, int], ...]]]:
    """For byte position k and byte value: the (slot, row, col) moves of its set
    bits, built once (the fastest way found to turn a mask into moves)."""
    key = (slot, rows, cols)
    if key not in _TABLES:
        size = rows * cols
        _TABLES[key] = [
            [tuple((slot, *divmod(k * 8 + b, cols)) for b in range(8)
                   if value >> b & 1 and k * 8 + b < size) for value in range(256)]
            for k in range((size + 7) // 8)
        ]
    return _TABLES[key]


class LeanRules:
    """What the lean loop works out once per ruleset: per piece (shape, valid
    anchors, offsets, cells), the families' cumulative weights, the line masks,
    the shifts that find full rows and columns at once, and the numbers of the
    rule file's dealing and scoring (eu's plugins and parameters)."""

    def __init__(self, ruleset: blockyard.Ruleset) -> None:
        plugins = ruleset.data["plugins"]
        self.max_attempts = plugins["weighted-dealing"].get("max_attempts", 100)
        scoring = plugins["line-scoring"]
        self.line_points = tuple(scoring["line_points"])
        self.extra_line_points = scoring["extra_line_points"]
        self.multipliers = tuple(scoring["multipliers"])
        self.perfect_clear = scoring.get("perfect_clear", 0)
        geo = ruleset.geometry
        rows, cols = geo.rows, geo.cols
        self.full = geo.full
        self.cols = cols
        self.lines = geo.row_masks + geo.col_masks
        families = [f for f in ruleset.families if f.weight > 0]
        self.families = [[self.piece(geo, p) for p in f.pieces] for f in families]
        self.cumulative = list(accumulate(f.weight for f in families))
        self.total = self.cumulative[-1]
        self.last = len(families) - 1
        # the one-fits fallback: the largest piece (ties: table order)
        self.largest_first = sorted((self.piece(geo, p) for p in ruleset.pieces),
                                    key=lambda piece: -piece[3])
        self.nbytes = (geo.size + 7) // 8
        self.tables = [_lean_table(slot, rows, cols) for slot in range(3)]
        # a row is full when the AND of its cols bits is set at its first cell
        # (doubling shifts 1, 2, 4, ..., then one overlapping step); columns alike
        self.row_shifts = window_shifts(cols, 1)
        self.row_starts = sum(1 << (r * cols) for r in range(rows))
        self.col_shifts = window_shifts(rows, cols)
        self.col_starts = (1 << cols) - 1

    @staticmethod
    def piece(geo: Any, p: blockyard.Piece) -> tuple[int, int, tuple[int, ...], int, int, int]:
        """(shape, valid anchors, offsets, cells, height, width) of a piece."""
        info = geo.piece(p.cells)
        return (info.shape, info.valid, info.offsets, len(p.cells), info.height, info.width)

    @classmethod
    def of(cls, ruleset: blockyard.Ruleset) -> LeanRules:
        rules = _LEAN_RULES.get(ruleset.digest)
        if rules is None:
            rules = _LEAN_RULES[ruleset.digest] = cls(ruleset)
        return rules


_LEAN_RULES: dict[str, LeanRules] = {}


class LeanBitboardGame:
    """eu-classic with no framework at all, playing the same games as Blockyard:
    the board is an int, every piece a precomputed (shape, valid anchors,
    offsets) tuple worked out once per ruleset (:class:`LeanRules`), set ``i``
    drawn from the rules' stream ``(seed, "deal", i)`` with the one-fits
    guarantee, full rows and columns found with shifted ANDs, eu scoring. The
    practical limit of Python for this game; Blockyard's figures are measured
    against it (and ``tests/test_benchmarks.py`` checks that both play the same
    games)."""

    def __init__(self, ruleset: blockyard.Ruleset, seed: int) -> None:
        self.rules = LeanRules.of(ruleset)
        self.seed = seed
        self.sets = 0
        self.board = 0
        self.score = 0
        self.streak = 0
        self.tray: list[tuple[int, int, tuple[int, ...], int, int, int] | None] = []
        self.deal()

    def draw_set(self, rng: random.Random) -> list[tuple[int, int, tuple[int, ...], int, int, int]]:
        """Three pieces: a family by weight, then an orientation uniformly."""
        rules = self.rules
        cumulative, total, last = rules.cumulative, rules.total, rules.last
        families = rules.families
        uniform, getrandbits = rng.random, rng.getrandbits
        out = []
        for _ in range(3):
            i = bisect_right(cumulative, uniform() * total)
            pieces = families[i if i < last else last]
            n = len(pieces)
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            out.append(pieces[r])
        return out

    def fits(self, piece: tuple[int, int, tuple[int, ...], int, int, int]) -> bool:
        free = ~self.board & self.rules.full
        m = piece[1]
        for off in piece[2]:
            m &= free >> off
            if not m:
                return False
        return True

    def deal(self) -> None:
        index = self.sets
        self.sets += 1
        pieces = self.draw_set(stream(self.seed, "deal", index))
        fits = self.fits
        attempt = 1
        while not (fits(pieces[0]) or fits(pieces[1]) or fits(pieces[2])):
            if attempt >= self.rules.max_attempts:
                fitting = [p for p in self.rules.largest_first if fits(p)]
                if fitting:
                    pieces[2] = fitting[0]
                break
            pieces = self.draw_set(stream(self.seed, "deal", index, attempt))
            attempt += 1
        self.tray = pieces  # type: ignore[assignment]

    def legal_moves(self) -> list[tuple[int, int, int]]:
        rules = self.rules
        free = ~self.board & rules.full
        out: list[tuple[int, int, int]] = []
        add = out.extend
        nbytes = rules.nbytes
        for slot, piece in enumerate(self.tray):
            if piece is None:
                continue
            m = piece[1]
            for off in piece[2]:
                m &= free >> off
            if m:  # expand the anchor mask byte by byte from prebuilt move tuples
                table = rules.tables[slot]
                for k, byte in enumerate(m.to_bytes(nbytes, "little")):
                    if byte:
                        add(table[k][byte])
        return out

    def place(self, slot: int, row: int, col: int) -> None:
        piece = self.tray[slot]
        assert piece is not None
        rules = self.rules
        board = self.board | piece[0] << (row * rules.cols + col)
        rows_and = cols_and = board
        for shift in rules.row_shifts:
            rows_and &= rows_and >> shift
        for shift in rules.col_shifts:
            cols_and &= cols_and >> shift
        count = 0
        if rows_and & rules.row_starts or cols_and & rules.col_starts:
            cleared = 0
            for line in rules.lines:
                if board & line == line:
                    cleared |= line
                    count += 1
            board &= ~cleared
        self.board = board
        if count:
            self.streak += 1
            table, factors = rules.line_points, rules.multipliers
            points = table[count - 1] if count <= len(table) else \
                table[-1] + rules.extra_line_points * (count - len(table))
            self.score += piece[3] + round(points * factors[min(self.streak, len(factors)) - 1])
            if not board:
                self.score += rules.perfect_clear
        else:
            self.streak = 0
            self.score += piece[3]
        self.tray[slot] = None
        if self.tray == [None, None, None]:
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


def per_call_us(func, seconds: float) -> float:
    """Microseconds per call of ``func()`` (best of five rounds)."""
    import timeit

    timer = timeit.Timer(func)
    number, _ = timer.autorange()
    rounds = max(1, int(seconds / 5 / max(timer.timeit(number) / number, 1e-9) / number))
    return min(timer.repeat(5, number * rounds)) / (number * rounds) * 1e6


def split_placement(ruleset: blockyard.Ruleset, seconds: float) -> dict[str, float]:
    """Microseconds per placement of random playouts, split into ``new_game``
    (spread over the game's placements), ``legal_moves``, and ``place`` with and
    without the dealing of a new set (the deal happens on every third placement)."""
    rnd = random.Random(3)
    clock = time.perf_counter
    parts = {"new_game": 0.0, "legal_moves": 0.0, "place (no deal)": 0.0,
             "place (with a deal)": 0.0}
    counts = {"place (no deal)": 0, "place (with a deal)": 0}
    placements = 0
    deadline = clock() + seconds
    while clock() < deadline:
        start = clock()
        game = blockyard.new_game(ruleset, seed=rnd.randrange(1 << 30))
        parts["new_game"] += clock() - start
        while True:
            start = clock()
            moves = game.legal_moves()
            parts["legal_moves"] += clock() - start
            if not moves:
                break
            sets = game.set_index
            start = clock()
            game.place(*moves[rnd.randrange(len(moves))])
            spent = clock() - start
            key = "place (no deal)" if game.set_index == sets else "place (with a deal)"
            parts[key] += spent
            counts[key] += 1
            placements += 1
    out = {"new_game (per placement)": parts["new_game"] / placements * 1e6,
           "legal_moves": parts["legal_moves"] / placements * 1e6}
    for key, count in counts.items():
        out[key] = parts[key] / max(count, 1) * 1e6
    return out


def replay_by_hand(ruleset: blockyard.Ruleset, game: blockyard.Game) -> blockyard.Game:
    """``game``'s moves played again on a new game through the public API, with
    no check: what ``restore`` costs beyond its checks (the log is the truth, so
    ``restore`` replays it)."""
    again = blockyard.new_game(ruleset, seed=game.seed)
    for name, *args in game.log[1:]:
        getattr(again, name)(*args)
    return again


def game_of_moves(ruleset: blockyard.Ruleset, moves: int) -> blockyard.Game:
    """An eu-classic game of ``moves`` placements (the move with the most points,
    the first of them; the first seed whose game lasts that long)."""
    for seed in range(1000):
        game = blockyard.new_game(ruleset, seed=seed)
        while game.moves < moves and not game.over:
            legal = game.legal_moves()
            points = [e.points for e in game.evaluate(legal)]
            game.place(*legal[points.index(max(points))])
        if game.moves == moves:
            return game
    raise RuntimeError(f"no game of {moves} moves in 1000 seeds")


def profile(ruleset: blockyard.Ruleset, seconds: float) -> None:
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    playout_rate(lambda seed: blockyard.new_game(ruleset, seed=seed), seconds)
    profiler.disable()
    print("\nprofile of Blockyard random playouts (cProfile, most time of their own):")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
    print("one placement, measured without the profiler (us):")
    for name, us in split_placement(ruleset, seconds).items():
        print(f"  {name:28}{us:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--profile", action="store_true",
                        help="also print where a Blockyard playout spends its time")
    args = parser.parse_args()
    ruleset = blockyard.load_ruleset(RULESET)
    t = args.seconds

    # the playouts interleaved, so that a busy machine slows all alike; "unchecked"
    # is Blockyard with the purity check off and "all checked" with the check on
    # every hook (the bundled plugins are trusted otherwise), to measure its cost
    plays = {"blockyard": 0.0, "unchecked": 0.0, "all checked": 0.0, "lean": 0.0,
             "lists": 0.0}
    makers = {"blockyard": lambda seed: blockyard.new_game(ruleset, seed=seed),
              "unchecked": lambda seed: blockyard.new_game(ruleset, seed=seed),
              "all checked": lambda seed: blockyard.new_game(ruleset, seed=seed),
              "lean": lambda seed: LeanBitboardGame(ruleset, seed),
              "lists": lambda seed: ListBoardGame(ruleset, seed)}
    rounds = 6
    for _ in range(rounds):
        for name, make in makers.items():
            with purity_check(name != "unchecked", bundled=name == "all checked"):
                plays[name] += playout_rate(make, t / rounds) / rounds
    positions = sample_positions(200)
    ours_enum = enumeration_rate(positions, t)
    ref_enum = reference_enumeration_rate(ruleset, positions, t)

    game = positions[0]
    move = game.legal_moves()[0]
    preview_us = per_call_us(lambda: game.preview(*move), t)
    new_loaded_us = per_call_us(lambda: blockyard.new_game(ruleset, seed=1), t)
    new_id_us = per_call_us(lambda: blockyard.new_game(RULESET, seed=1), t)
    long_game = game_of_moves(ruleset, RESTORE_MOVES)
    long_snap = long_game.snapshot()
    restore_us = per_call_us(lambda: blockyard.restore(long_snap), t)
    replay_us = per_call_us(lambda: replay_by_hand(ruleset, long_game), t)
    mid = max(positions, key=lambda g: g.moves)  # a game in mid-play
    clone_us = per_call_us(mid.clone, t)
    long_clone_us = per_call_us(long_game.clone, t)

    ours, lean, lists = plays["blockyard"], plays["lean"], plays["lists"]
    print(f"ruleset {RULESET}, {t:g} s per figure")
    print(f"{'':34}{'blockyard':>12}{'lean loop':>12}{'list-of-lists':>15}")
    print(f"{'placements/s (legal_moves+place)':34}{ours:>12,.0f}{lean:>12,.0f}{lists:>15,.0f}")
    unchecked, checked = plays["unchecked"], plays["all checked"]
    print(f"  without the purity check {unchecked:,.0f}/s: the check costs "
          f"{(1 - ours / unchecked) * 100:.1f} % (target <= 5 %)")
    print(f"  with every hook checked (plugins from elsewhere) {checked:,.0f}/s: "
          f"{(1 - checked / unchecked) * 100:.1f} % below unchecked")
    print(f"  blockyard / list-of-lists {ours / lists:5.2f}x (target >= 5x);"
          f"  lean / blockyard {lean / ours:5.2f}x (target <= 3x)")
    print(f"{'tray enumerations/s':34}{ours_enum:>12,.0f}{'':>12}{ref_enum:>15,.0f}"
          f"  {ours_enum / ref_enum:.1f}x (target {TARGET_ENUMERATIONS:,}/s)")
    print(f"preview: {1e6 / preview_us:,.0f}/s (target >= 100,000/s)")
    print(f"new_game of a loaded ruleset: {new_loaded_us:.1f} us (target <= 20 us); "
          f"by id: {new_id_us:.1f} us (target <= 50 us)")
    print(f"restore (the log replayed and checked): {restore_us:,.0f} us for a game of "
          f"{long_game.moves} moves; its moves played by hand on a new game "
          f"{replay_us:,.0f} us: the checks cost {(restore_us / replay_us - 1) * 100:.0f} % "
          f"(target <= 25 %)")
    print(f"clone: {clone_us:.2f} us for a game of {mid.moves} moves, {long_clone_us:.2f} us "
          f"for one of {long_game.moves} (target <= 5 us)")
    if args.profile:
        profile(ruleset, t)


if __name__ == "__main__":
    main()
