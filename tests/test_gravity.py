"""docs/rules.md §6 (family gravity): arcadeforge and arcadeforge-rotate, and the mixed
ruleset made from a rule file alone."""

from __future__ import annotations

from collections import Counter

import pytest

import blockyard
from blockyard import IllegalMove
from blockyard.pieces import rotate_cells

EMPTY = "........"


def test_6_1_the_28_pieces_with_uniform_weights_closed_under_turns():
    ruleset = blockyard.load_ruleset("arcadeforge")
    assert (ruleset.rows, ruleset.cols, len(ruleset.pieces)) == (8, 8, 28)
    sizes = Counter(p.size for p in ruleset.pieces)
    assert sizes == {4: 19, 1: 1, 2: 2, 3: 6}
    cells = {p.cells for p in ruleset.pieces}
    assert len(cells) == 28
    assert all(rotate_cells(c) in cells for c in cells)
    # uniform per piece: family weight ∝ number of shapes
    for family in ruleset.families:
        assert family.weight == len(family.pieces)


def test_6_2_no_fit_guarantee_when_dealing():
    board = "\n".join(["#.#.#.#.", ".#.#.#.#"] * 4)
    stuck = 0
    for seed in range(20):
        game = blockyard.new_game("arcadeforge", seed=seed, board=board)
        if not any(p.size == 1 for p in game.tray):
            stuck += 1
            assert game.over and game.over_reason == "stuck"
    assert stuck > 10


def test_6_2_no_new_set_while_pieces_are_left_that_fit_nowhere():
    # isolated holes, and a 1×6 gap in row 7 that the first piece fills
    board = "\n".join(["#.#.#.#.", ".#.#.#.#"] * 3 + ["#.#.#.#.", "......##"])
    game = blockyard.new_game("arcadeforge", seed=1, board=board,
                              tray=["######", "##/##", None])
    assert not game.over
    game.place(0, 7, 0)  # completes row 7; everything above falls by one
    assert game.board_text().splitlines()[0] == EMPTY
    assert game.board_text().splitlines()[1:] == \
        ["#.#.#.#.", ".#.#.#.#"] * 3 + ["#.#.#.#."]
    # the square fits nowhere and one slot is used: no new set, the game is over
    assert game.over and game.over_reason == "stuck"
    assert game.tray[1] is not None and game.tray[0] is None and game.tray[2] is None


def test_6_2_gravity_example_rows_5_and_7_cleared():
    """Rows 5 and 7 cleared: row 6 moves to 7, rows 0–4 move down by two, rows 0, 1 empty."""
    rows = ["#.......", ".#......", "..#.....", "...#....", "....#...",
            "#######.", "......#.", "#######."]
    game = blockyard.new_game("arcadeforge", seed=1, board="\n".join(rows),
                              tray=["#/./#", None, None])
    result = game.place(0, 5, 7)
    assert result.cleared_rows == (5, 7) and result.cleared_cols == ()
    assert game.board_text().splitlines() == [
        EMPTY, EMPTY, "#.......", ".#......", "..#.....", "...#....", "....#...",
        "......#."]
    assert result.points == 2 + 30
    # how far each row of the new board fell: rows 2-6 (were 0-4) by two, row 7 (was 6) by one
    assert result.row_drops == (0, 0, 2, 2, 2, 2, 2, 1)


def test_6_2_cleared_columns_just_become_empty():
    game = blockyard.new_game("arcadeforge", seed=1,
                              board="\n".join([".#......"] * 7 + ["........"]),
                              tray=["##", None, None])
    result = game.place(0, 7, 0)
    assert result.cleared_cols == (1,) and result.cleared_rows == ()
    assert not any(result.row_drops)
    assert game.board_text().splitlines() == [EMPTY] * 7 + ["#......."]


def test_6_2_a_cleared_row_and_column_together():
    rows = ["...#...."] * 7 + ["###.####"]
    game = blockyard.new_game("arcadeforge", seed=1, board="\n".join(rows),
                              tray=["#", None, None])
    result = game.place(0, 7, 3)
    assert result.cleared_rows == (7,) and result.cleared_cols == (3,)
    assert result.perfect_clear and result.points == 1 + 30  # no perfect-clear bonus


def test_6_2_scoring_has_no_combo():
    rows = [EMPTY] * 5 + ["#......."] + ["#######."] * 2
    game = blockyard.new_game("arcadeforge", seed=1, board="\n".join(rows),
                              tray=["#", "#", None])
    assert game.place(0, 7, 7).points == 1 + 10
    assert game.place(1, 7, 7).points == 1 + 10  # row 6 fell into row 7


def test_6_2_rotate_turns_a_tray_piece_clockwise_as_often_as_wanted():
    """blockyard_rotate and blockyard_alternatives (rotation plugin)."""
    game = blockyard.new_game("arcadeforge-rotate", seed=1, tray=["#./#./##", None, None])
    assert game.rotate(0).art == "###\n#.."
    assert game.tray[0].art == "###\n#.."
    game.rotate(0)
    game.rotate(0)
    assert game.rotate(0).art == "#.\n#.\n##"
    assert game.log[1:] == [["rotate", 0]] * 4
    assert blockyard.replay(game.log).snapshot() == game.snapshot()
    with pytest.raises(IllegalMove, match="empty"):
        game.rotate(1)


def test_6_2_rotation_is_refused_where_not_enabled():
    game = blockyard.new_game("arcadeforge", seed=1, tray=["##", None, None])
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="does not allow rotating"):
        game.rotate(0)
    assert game.snapshot() == before


def test_6_2_with_rotation_the_game_goes_on_while_a_turn_would_fit():
    board = "\n".join(["#######."] * 8)  # only column 7 is free
    game = blockyard.new_game("arcadeforge-rotate", seed=1, board=board,
                              tray=["####", None, None])
    assert not game.over and game.legal_moves() == []
    game.rotate(0)
    assert game.legal_moves()
    plain = blockyard.new_game("arcadeforge", seed=1, board=board, tray=["####", None, None])
    assert plain.over


def test_mixed_ruleset_from_a_rule_file_alone():
    ruleset = blockyard.load_ruleset("tiered-gravity")
    assert (ruleset.rows, ruleset.cols, ruleset.family) == (9, 9, "mixed")
    names = [name for name, _ in ruleset.plugin_objects]
    assert {"line-clearing", "weighted-dealing", "swaps"} <= set(names)
    rows = ["#........"] + ["........."] * 6 + ["########.", "........."]
    game = blockyard.new_game(ruleset, seed=1, board="\n".join(rows), tray=["#", None, None])
    assert game.swaps_left == 1
    result = game.place(0, 7, 8)
    assert result.cleared_rows == (7,)
    assert game.board_text().splitlines()[1] == "#........"  # row 0 fell by one
    assert result.points == 1 + 10
