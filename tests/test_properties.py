"""Property tests (hypothesis) for the bitboard operations against naive versions."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import blockyard
from blockyard.geometry import MAX_PENDING, Board, geometry
from blockyard.pieces import art_of, parse_art, rotate_cells

RULESET = blockyard.load_ruleset("eu-classic")
PIECES = RULESET.pieces

sizes = st.tuples(st.integers(3, 12), st.integers(3, 12))


@st.composite
def board_and_piece(draw):
    rows, cols = draw(sizes)
    bits = draw(st.integers(0, (1 << (rows * cols)) - 1))
    piece = draw(st.sampled_from(PIECES))
    return rows, cols, bits, piece


def naive_anchors(rows, cols, bits, cells):
    out = set()
    for r in range(rows):
        for c in range(cols):
            ok = True
            for dr, dc in cells:
                rr, cc = r + dr, c + dc
                if rr >= rows or cc >= cols or bits >> (rr * cols + cc) & 1:
                    ok = False
                    break
            if ok:
                out.add((r, c))
    return out


@settings(max_examples=300, deadline=None)
@given(board_and_piece())
def test_fit_mask_agrees_with_a_naive_search(case):
    rows, cols, bits, piece = case
    geo = geometry(rows, cols)
    info = geo.piece(piece.cells)
    fit = geo.fits(~bits & geo.full, info)
    got = {geo.cell_of_bit[i] for i in geo.bits_of(fit)}
    assert got == naive_anchors(rows, cols, bits, piece.cells)
    assert sorted(geo.moves(1, fit)) == sorted((1, r, c) for r, c in got)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, (1 << 100) - 1), st.sampled_from(PIECES), st.data())
def test_place_clears_exactly_the_full_lines_and_keeps_count(bits, piece, data):
    text = "\n".join("".join("#" if bits >> (r * 10 + c) & 1 else "." for c in range(10))
                     for r in range(10))
    # remove full lines from the start position so only the move can complete one
    lines = [list(row) for row in text.splitlines()]
    for r in range(10):
        if all(ch == "#" for ch in lines[r]):
            lines[r][r] = "."
    for c in range(10):
        if all(lines[r][c] == "#" for r in range(10)):
            lines[c][c] = "."
    game = blockyard.new_game(RULESET, seed=1, board="\n".join("".join(r) for r in lines),
                              tray=[piece.art, None, None])
    moves = game.legal_moves()
    if not moves:
        return
    slot, row, col = data.draw(st.sampled_from(moves))
    before = game.board_text()
    filled_before = before.count("#")
    result = game.place(slot, row, col)
    after_move = [list(r) for r in before.splitlines()]
    for dr, dc in piece.cells:
        after_move[row + dr][col + dc] = "#"
    full_rows = [r for r in range(10) if all(ch == "#" for ch in after_move[r])]
    full_cols = [c for c in range(10) if all(after_move[r][c] == "#" for r in range(10))]
    assert result.cleared_rows == tuple(full_rows)
    assert result.cleared_cols == tuple(full_cols)
    cleared = {(r, c) for r in full_rows for c in range(10)} | \
        {(r, c) for c in full_cols for r in range(10)}
    assert game.board_text().count("#") == filled_before + piece.size - len(cleared)
    for r, c in cleared:
        assert game.board_text().splitlines()[r][c] == "."


@settings(max_examples=200, deadline=None)
@given(sizes, st.data())
def test_gravity_collapse_agrees_with_a_naive_version(size, data):
    rows, cols = size
    geo = geometry(rows, cols)
    colours = data.draw(st.lists(st.integers(0, 5), min_size=rows * cols, max_size=rows * cols))
    cleared = sorted(data.draw(st.sets(st.integers(0, rows - 1))))
    bits = sum(1 << i for i, v in enumerate(colours) if v)
    before = Board(geo, bits, list(colours))
    board, drops = before.collapse_rows(cleared)
    assert before.colours == tuple(colours) and before.bits == bits  # a new board
    grid = [colours[r * cols:(r + 1) * cols] for r in range(rows)]
    kept = [grid[r] for r in range(rows) if r not in cleared]
    kept_rows = [r for r in range(rows) if r not in cleared]
    assert drops == tuple([0] * len(cleared) + [len(cleared) + i - r
                                                for i, r in enumerate(kept_rows)])
    expected = [[0] * cols for _ in cleared] + kept
    assert [list(row) for row in board.rows_tuple()] == expected
    assert board.bits == sum(1 << i for i, v in enumerate(v for row in expected for v in row) if v)


@given(st.sampled_from(PIECES))
def test_art_round_trips_and_four_turns_are_the_identity(piece):
    assert parse_art(art_of(piece.cells)) == piece.cells
    cells = piece.cells
    for _ in range(4):
        cells = rotate_cells(cells)
    assert cells == piece.cells


@st.composite
def board_with_regions(draw):
    rows, cols = draw(st.tuples(st.integers(1, 12), st.integers(1, 12)))
    geo = geometry(rows, cols)
    kinds = draw(st.sets(st.sampled_from(["rows", "cols", "blocks", "some"]), min_size=1))
    masks: list[int] = []
    if "rows" in kinds:
        masks += geo.row_masks
    if "cols" in kinds:
        masks += geo.col_masks
    if "blocks" in kinds and rows % 3 == 0 and cols % 3 == 0:
        masks += [r.mask for r in geo.block_regions(3, 3)]
    if "some" in kinds or not masks:
        masks += draw(st.lists(st.sampled_from(geo.row_masks + geo.col_masks), min_size=1))
    # boards near full, with a region completed now and then
    bits = draw(st.integers(0, geo.full))
    bits |= draw(st.integers(0, geo.full)) | draw(st.integers(0, geo.full))
    if draw(st.booleans()):
        bits |= draw(st.sampled_from(masks))
    return geo, tuple(masks), bits


@settings(max_examples=500, deadline=None)
@given(board_with_regions())
def test_the_full_region_detector_agrees_with_testing_each_region(case):
    from blockyard.plugins.clearing import full_detector

    geo, masks, bits = case
    assert full_detector(geo, masks)(bits) == any(bits & m == m for m in masks)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1), st.sampled_from(["deal", "zen", "dé"]),
       st.integers(0, 10**6), st.lists(st.integers(1, 10**6), min_size=1, max_size=8))
def test_streams_and_below_draw_as_random_randrange(seed, name, index, bounds):
    import hashlib
    import json
    import random

    from blockyard import rng

    key = (seed, name, index)
    digest = hashlib.blake2b(
        json.dumps(key, separators=(",", ":")).encode(), digest_size=8).digest()
    assert rng.derive_seed(*key) == int.from_bytes(digest, "big")
    reference = random.Random(rng.derive_seed(*key))
    ours = rng.stream(*key)
    assert type(ours) is random.Random
    assert [ours.random() for _ in range(3)] == [reference.random() for _ in range(3)]
    assert [rng.below(ours, n) for n in bounds] == [reference.randrange(n) for n in bounds]


@settings(max_examples=200, deadline=None)
@given(sizes, st.sampled_from(PIECES), st.data())
def test_a_board_with_a_piece_reads_as_a_copy_filled_at_once(size, piece, data):
    rows, cols = size
    geo = geometry(rows, cols)
    info = geo.piece(piece.cells)
    if info.height > rows or info.width > cols:
        return
    colours = data.draw(st.lists(st.integers(0, 5), min_size=rows * cols, max_size=rows * cols))
    parent = Board(geo, sum(1 << i for i, v in enumerate(colours) if v), list(colours))
    row = data.draw(st.integers(0, rows - info.height))
    col = data.draw(st.integers(0, cols - info.width))
    base = row * cols + col
    mask = info.shape << base
    eager = Board(geo, parent.bits | mask,
                  [7 if mask >> i & 1 else v for i, v in enumerate(colours)])
    lazy = parent.with_piece(mask, base, info.offsets, 7)
    filled = parent.fill(mask, 7)
    assert parent.colours == tuple(colours)  # the board it came from is unchanged
    assert lazy.bits == eager.bits == filled.bits == parent.bits | mask
    assert lazy.colours == eager.colours == filled.colours
    emptied = lazy.empty(mask)  # a new board: neither it nor its parent changes
    assert lazy.colours == eager.colours and parent.colours == tuple(colours)
    assert emptied.colours == tuple(0 if mask >> i & 1 else v
                                    for i, v in enumerate(eager.colours))
    assert emptied.bits == parent.bits & ~mask


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_a_chain_of_boards_with_pieces_reads_as_filled_at_once(data):
    """Boards made from boards whose colours are not written yet (the engine's
    moves): whichever of them is read, and when, reads as copy-and-fill would
    give it, and reading one changes none of the others."""
    geo = geometry(8, 8)
    pieces = [p for p in PIECES if geo.piece(p.cells).height <= 8
              and geo.piece(p.cells).width <= 8]
    eager = [0] * 64
    boards = [(Board(geo), tuple(eager))]
    for step in range(data.draw(st.integers(1, 3 * MAX_PENDING))):
        info = geo.piece(data.draw(st.sampled_from(pieces)).cells)
        row = data.draw(st.integers(0, 8 - info.height))
        col = data.draw(st.integers(0, 8 - info.width))
        base = row * 8 + col
        mask = info.shape << base
        colour = step % 9 + 1
        for i in geo.bits_of(mask):
            eager[i] = colour
        boards.append((boards[-1][0].with_piece(mask, base, info.offsets, colour),
                       tuple(eager)))
        if data.draw(st.booleans()):  # read some board of the chain now
            board, expected = boards[data.draw(st.integers(0, len(boards) - 1))]
            assert board.colours == expected
    for board, expected in reversed(boards):
        assert board.colours == expected
