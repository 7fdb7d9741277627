"""The facts a rule needs (issue 36): each cell's family and piece id on the board, the
documented layout of ``Board.colours`` and of a starting board's cells, and
per-line detail of a move's completed regions (``TrayFacts.line_details``)."""

from __future__ import annotations

from typing import ClassVar

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.bots import get_bot
from blockyard.geometry import Board
from blockyard.params import Params
from blockyard.results import LineDetail, Scoring


def board(*rows: str) -> str:
    return "\n".join(rows)


CORNER = board("#.........", *["." * 10] * 9)


def test_board_colours_are_row_major_family_indexes_and_a_start_board_is_custom():
    game = blockyard.new_game("eu-classic", seed=1, board=CORNER, tray=["dot:#", "dot:#"])
    families = game.ruleset.families
    colours = game.grid.colours
    custom = len(families) + 1
    assert colours[0] == custom and set(colours[1:]) == {0}
    game.place(0, 2, 3)  # a dot at row 2, column 3: index row * cols + col
    colours = game.grid.colours
    assert colours[2 * game.cols + 3] == next(i for i, f in enumerate(families, start=1)
                                              if f.name == "dot")
    cells = game.cell_families()
    assert cells[0][0] == "custom" and cells[2][3] == "dot"
    assert sum(name is not None for row in cells for name in row) == 2
    assert len(cells) == game.rows and {len(row) for row in cells} == {game.cols}


class LineSpy:
    """Records the line details of every move it scores (a test's spy)."""

    seen: ClassVar[list[tuple[LineDetail, ...]]] = []

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring: Scoring = yield
        LineSpy.seen.append(move.line_details)
        # "a line finished with a single cell of the piece scores double"
        bonus = sum(10 for line in move.line_details if len(line.placed) == 1)
        return Scoring(scoring.points + bonus, scoring.combo, scoring.state)


def test_line_details_say_which_lines_which_cells_and_what_the_piece_covered(
        rule_file, register_plugin):
    register_plugin("line-spy", LineSpy)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "spy"\nname = "Spy"\n[plugins.line-spy]\n'))
    # row 0 and column 0 full but for (0, 0): one dot completes both
    start = board(".#########", *["#........."] * 9)
    game = blockyard.new_game(ruleset, seed=1, board=start, tray=["dot:#"])
    LineSpy.seen.clear()
    plain = blockyard.new_game("eu-classic", seed=1, board=start, tray=["dot:#"])
    base = plain.place(0, 0, 0).points
    result = game.place(0, 0, 0)
    (details,) = LineSpy.seen[-1:]
    assert sorted((d.kind, d.index) for d in details) == [("col", 0), ("row", 0)]
    for detail in details:
        assert detail.placed == frozenset({(0, 0)})
        assert detail.shared == frozenset({(0, 0)})
        assert len(detail.cells) == 10 and (0, 0) in detail.cells
    row = next(d for d in details if d.kind == "row")
    assert row.cells == frozenset((0, c) for c in range(10))
    assert result.points == base + 20


# -- each cell's piece id (Board.pieces, TrayGame.cell_pieces) ---------------------------

def piece_cells(game) -> dict[tuple[int, int], str]:
    """The filled cells of ``game`` and the piece ids ``cell_pieces`` gives them."""
    return {(r, c): piece for r, row in enumerate(game.cell_pieces())
            for c, piece in enumerate(row) if piece is not None}


def test_a_placed_piece_leaves_its_id_on_the_cells_it_covers_and_a_start_board_is_custom():
    game = blockyard.new_game("eu-classic", seed=1, board=CORNER, tray=["J:.#/.#/##", "dot:#"])
    placed = game.tray[0]
    assert placed is not None and placed.id == "J-1"
    result = game.place(0, 4, 4)
    assert piece_cells(game) == {(0, 0): "custom", **dict.fromkeys(result.placed, "J-1")}
    assert game.grid.pieces[4 * game.cols + 5] == "J-1"  # row-major, as Board.colours
    assert len(game.cell_pieces()) == game.rows and {len(r) for r in game.cell_pieces()} \
        == {game.cols}
    # a cell's id and family agree: both name what filled it
    families = game.cell_families()
    assert all(families[r][c] == ("custom" if piece == "custom" else "J")
               for (r, c), piece in piece_cells(game).items())


def test_a_custom_tray_piece_is_custom_and_a_cleared_cell_loses_its_piece():
    game = blockyard.new_game("eu-classic", seed=1, tray=["#.#"])
    result = game.place(0, 0, 0)
    assert piece_cells(game) == dict.fromkeys(result.placed, "custom")
    # row 0 full but for (0, 0): a dot completes it; its cells empty and lose their
    # ids, the dot placed before keeps its own
    start = board(".#########", *["." * 10] * 9)
    game = blockyard.new_game("eu-classic", seed=1, board=start, tray=["dot:#", "dot:#"])
    game.place(1, 5, 5)
    assert piece_cells(game) == {**{(0, c): "custom" for c in range(1, 10)}, (5, 5): "dot"}
    assert game.place(0, 0, 0).lines == 1
    assert piece_cells(game) == {(5, 5): "dot"}
    assert game.grid.pieces.count(None) == game.rows * game.cols - 1


def test_a_turned_piece_keeps_its_turned_id_on_the_board():
    game = blockyard.new_game("arcadeforge-rotate", seed=3)
    slot = next(s for s, p in enumerate(game.tray) if p is not None and p.id == "I4-1")
    turned = game.rotate(slot)
    assert turned.id == "I4-1+r"
    row, col = next((r, c) for s, r, c in game.legal_moves() if s == slot)
    result = game.place(slot, row, col)
    assert {piece_cells(game)[cell] for cell in result.placed} == {"I4-1+r"}


def test_a_gravity_drop_moves_each_cell_with_its_piece_id():
    # row 8 full but for (8, 8); a start cell at (7, 0)
    start = board(*["." * 9] * 7, "#........", "########.")
    game = blockyard.new_game("tiered-gravity", seed=3, board=start, tray=["1x1:#", "1x1:#"])
    game.place(0, 7, 3)
    assert piece_cells(game)[7, 3] == "1x1"
    result = game.place(1, 8, 8)
    assert result.lines == 1 and result.row_drops[8] == 1  # row 7 fell into row 8
    assert piece_cells(game) == {(8, 0): "custom", (8, 3): "1x1"}
    assert game.cell_families()[8][3] == "1x1" and game.cell_families()[8][0] == "custom"


def played(ruleset: str, seed: int, moves: int) -> blockyard.Game:
    game = blockyard.new_game(ruleset, seed=seed)
    get_bot("random", seed=seed).play(game, max_moves=moves)
    return game


def test_the_cells_piece_ids_survive_snapshot_restore_replay_and_clone_and_are_determined():
    for ruleset in ("eu-classic", "tiered-gravity", "arcadeforge-rotate"):
        game = played(ruleset, 7, 60)
        ids = game.cell_pieces()
        assert any(piece not in (None, "custom") for row in ids for piece in row)
        assert played(ruleset, 7, 60).cell_pieces() == ids  # same seed and actions
        snap = game.snapshot()
        assert snap["cell_pieces"] == [p for row in ids for p in row]
        assert blockyard.restore(snap).cell_pieces() == ids
        assert blockyard.replay(game.log).cell_pieces() == ids
        twin = game.clone()
        assert twin.cell_pieces() == ids
        get_bot("random", seed=1).play(twin, max_moves=5)
        assert game.cell_pieces() == ids  # the clone played on; the game did not change


def test_a_snapshot_without_cell_pieces_restores_them_from_its_log():
    game = played("eu-classic", 5, 30)
    snap = game.snapshot()
    del snap["cell_pieces"]  # as snapshots were written before the ids were kept
    assert blockyard.restore(snap).cell_pieces() == game.cell_pieces()


def test_a_snapshot_with_wrong_cell_pieces_is_refused_naming_the_cell():
    game = played("eu-classic", 5, 30)
    cols = game.cols
    filled = next(i for i, p in enumerate(game.grid.pieces) if p not in (None, "custom"))
    empty = game.grid.pieces.index(None)
    cases = [
        (filled, "not-this-one", f"snapshot.cell_pieces[{filled}]"),
        (empty, "dot", f"snapshot.cell_pieces[{empty}] (row {empty // cols}, column "
                       f"{empty % cols}): names piece 'dot' but the bitboard says the cell "
                       "is empty"),
        (filled, 7, f"snapshot.cell_pieces[{filled}] (row {filled // cols}, column "
                    f"{filled % cols}): expected a string"),
    ]
    for index, value, said in cases:
        snap = game.snapshot()
        snap["cell_pieces"][index] = value
        with pytest.raises(blockyard.DataError) as refused:
            blockyard.restore(snap)
        assert said in str(refused.value)
    snap = game.snapshot()
    snap["cell_pieces"] = snap["cell_pieces"][:-1]
    with pytest.raises(blockyard.DataError, match=r"snapshot\.cell_pieces: expected 100 cells"):
        blockyard.restore(snap)


def test_a_replay_file_recorded_before_the_cells_piece_ids_still_checks():
    """The cells' piece ids are decided by the moves, as their colours are: the
    final state's digest leaves them out, so it is what files recorded before
    them say."""
    from blockyard.replays import _digest, reaches, snapshot_state_digest

    game = played("eu-classic", 9, 20)
    snap = game._snapshot_sharing_log()
    del snap["log"], snap["ruleset"], snap["cell_pieces"]
    older = _digest(snap)  # what a replay file of this game recorded before
    assert older == snapshot_state_digest(game) and reaches(game, older)
    snap["cells"] = [0] * (game.rows * game.cols)
    assert not reaches(game, _digest(snap))


def test_board_pieces_are_checked_when_a_board_is_built():
    geo = blockyard.new_game("eu-classic", seed=1).grid.geo
    with pytest.raises(ValueError, match=r"pieces\[0\].*on an empty cell"):
        Board(geo, 0, None, ["dot", *[None] * 99])
    with pytest.raises(ValueError, match="expected 100 cells"):
        Board(geo, 1, None, ["dot"])
    board_ = Board(geo, 1, [3, *[0] * 99], ["dot", *[None] * 99])
    moved = board_.fill(2, 4, "L-1").empty(1)
    assert moved.pieces[:3] == (None, "L-1", None) and board_.pieces[0] == "dot"
    assert board_.fill(4, 1).pieces[2] is None  # a fill naming no piece
    with pytest.raises(TypeError, match="piece id"):
        board_.fill(4, 1, 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="at most 200 characters"):
        board_.fill(4, 1, "x" * 201)
    with pytest.raises(ValueError, match="at most 200 characters"):
        Board(geo, 1, None, ["x" * 201, *[None] * 99])
