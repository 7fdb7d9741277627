"""Tests of the diagonals example plugin, written as its author would."""

import pytest

import blockyard


def test_diagonals_classic_conforms(blockyard_conformance):
    blockyard_conformance("diagonals-classic")


def test_a_full_diagonal_clears_and_scores_as_a_line():
    board = "\n".join("".join("#" if r == c and r < 9 else "." for c in range(10))
                      for r in range(10))
    board = board[:-1] + "."  # (9, 9) stays empty; (0, 9) is the anti-diagonal's start
    game = blockyard.new_game("diagonals-classic", seed=1, board=board,
                              tray=["#", None, None])
    result = game.place(0, 9, 9)
    assert result.regions == (("diag", 0),) and result.lines == 1
    assert result.points == 1 + 100 + 2000  # a clear that empties the board: perfect


def test_a_diagonal_and_a_row_at_once_count_two_lines():
    rows = [["#" if c == 9 - r else "." for c in range(10)] for r in range(10)]
    rows[0] = list("#########.")  # row 0 needs (0, 9), the anti-diagonal's first cell
    board = "\n".join("".join(r) for r in rows)
    game = blockyard.new_game("diagonals-classic", seed=1, board=board, tray=["#", None, None])
    result = game.place(0, 0, 9)
    assert sorted(result.regions) == [("diag", 1), ("row", 0)]
    assert result.points == 1 + 250 + 2000


def test_a_board_that_is_not_square_is_refused(tmp_path):
    path = tmp_path / "wide.toml"
    path.write_text('[ruleset]\nextends = "diagonals-classic"\nid = "wide"\nname = "Wide"\n'
                    "[board]\ncols = 12\n")
    with pytest.raises(blockyard.RulesetError, match="square board"):
        blockyard.load_ruleset(path)
