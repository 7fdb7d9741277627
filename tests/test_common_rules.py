"""docs/rules.md §2: the rules common to every tray game (T1–T8), checked on eu-classic."""

from __future__ import annotations

import pytest

import blockyard
from blockyard import IllegalMove

EMPTY_ROW = "." * 10
FULL_BUT_LAST = "#" * 9 + "."


def rows(*lines: str, total: int = 10) -> str:
    """A 10×10 board: the given lines at the bottom, empty rows above."""
    return "\n".join([EMPTY_ROW] * (total - len(lines)) + list(lines))


def test_T1_board_starts_empty_and_a_set_of_three_is_dealt():
    game = blockyard.new_game("eu-classic", seed=11)
    assert game.board_text() == "\n".join([EMPTY_ROW] * 10)
    assert all(v == 0 for row in game.board for v in row)
    assert len(game.tray) == 3 and all(isinstance(p, blockyard.Piece) for p in game.tray)
    assert game.score == 0 and game.moves == 0 and not game.over


def test_T2_pieces_are_placed_one_at_a_time_in_any_order():
    game = blockyard.new_game("eu-classic", seed=1, tray=["#", "##", "###"])
    game.place(2, 0, 0)
    assert game.tray[2] is None and game.tray[0] is not None
    game.place(0, 5, 5)
    assert game.board_text().splitlines()[5][5] == "#"
    assert game.board_text().splitlines()[0][:3] == "###"


def test_T2_a_piece_only_goes_where_it_fits():
    game = blockyard.new_game("eu-classic", seed=1, tray=["##", None, None],
                              board=rows("#........."))
    assert not game.can_place(0, 9, 0)
    assert not game.can_place(0, 0, 9)  # would leave the board
    assert game.can_place(0, 9, 1)
    with pytest.raises(IllegalMove, match="filled cells"):
        game.place(0, 9, 0)


def test_T2_pieces_never_rotate_without_rotation_enabled():
    game = blockyard.new_game("eu-classic", seed=1, tray=["##", None, None])
    with pytest.raises(IllegalMove, match="does not allow rotating"):
        game.rotate(0)
    assert game.tray[0].art == "##"


def test_T3_full_rows_and_columns_clear_together_and_the_crossing_counts_twice():
    """blockyard_clear"""
    # row 9 and column 9 both complete when the dot lands on (9, 9)
    board = "\n".join(["........." + "#"] * 9 + [FULL_BUT_LAST])
    game = blockyard.new_game("eu-classic", seed=1, board=board, tray=["#", "##", None])
    result = game.place(0, 9, 9)
    assert result.cleared_rows == (9,)
    assert result.cleared_cols == (9,)
    assert result.lines == 2
    assert game.board_text() == "\n".join([EMPTY_ROW] * 10)
    assert game.lines_cleared == 2


def test_T3_a_move_that_completes_nothing_clears_nothing():
    game = blockyard.new_game("eu-classic", seed=1, board=rows("########.."),
                              tray=["#", "#", None])
    result = game.place(0, 9, 8)
    assert result.lines == 0 and result.cleared_rows == () and result.cleared_cols == ()
    assert game.board_text().splitlines()[9] == "#########."


def test_T4_a_new_set_is_dealt_only_when_all_three_slots_are_empty():
    game = blockyard.new_game("eu-classic", seed=5, tray=["#", "#", "#"])
    game.place(0, 0, 0)
    game.place(1, 0, 2)
    assert game.tray[:2] == (None, None) and game.tray[2] is not None
    game.place(2, 0, 4)
    assert all(p is not None for p in game.tray)
    assert game.set_index == 2  # the given tray was set 0; set 1 was just dealt


def test_T5_points_are_added_to_the_score_per_move():
    game = blockyard.new_game("eu-classic", seed=5, tray=["##", "###", None])
    first = game.place(0, 0, 0)
    second = game.place(1, 5, 0)
    assert (first.points, second.points) == (2, 3)
    assert game.score == 5


def test_T6_game_over_when_no_piece_left_in_the_tray_fits():
    """blockyard_end_reason"""
    # only two single free cells, far apart; a domino cannot go anywhere
    board = "\n".join(["#" * 10] * 4 + ["#####.####"] + ["#" * 10] * 4 + ["####.#####"])
    board = board.replace("#" * 10, "#########.", 1)  # keep no row complete
    game = blockyard.new_game("eu-classic", seed=2, board=board, tray=["##", None, None])
    assert game.over and game.over_reason == "stuck"
    assert game.legal_moves() == []


def test_T6_a_piece_that_does_not_fit_is_not_the_end_while_another_fits():
    board = "\n".join(["#########."] * 9 + ["##########"[:-1] + "."])
    # column 9 is empty; no horizontal piece of width >= 2 fits, a vertical one does
    game = blockyard.new_game("eu-classic", seed=2, board=board, tray=["#####", "#/#", None])
    assert not game.over
    assert {m[0] for m in game.legal_moves()} == {1}


def test_T7_every_player_of_a_seed_gets_the_same_sets_whatever_they_do():
    a = blockyard.new_game("eu-classic", seed=42)
    b = blockyard.new_game("eu-classic", seed=42)
    assert a.tray == b.tray
    # play the first set differently in each game
    for game, choose in ((a, 0), (b, -1)):
        while any(game.tray) and game.set_index == 1:
            moves = game.legal_moves()
            game.place(*moves[choose])
    assert a.board_text() != b.board_text()
    assert a.tray == b.tray  # set 1 is the same (both boards are nearly empty: no redraw)


def test_T7_set_i_is_drawn_from_the_stream_seed_deal_i():
    """blockyard_deal"""
    from blockyard import rng
    from blockyard.plugins.dealing import WeightTable

    ruleset = blockyard.load_ruleset("eu-classic")
    table = WeightTable(ruleset.families)
    expected = table.draw_set(rng.stream(1234, "deal", 0))
    assert list(blockyard.new_game(ruleset, seed=1234).tray) == expected


def test_T7_same_ruleset_seed_and_actions_give_the_same_game():
    def play(seed: int) -> dict:
        game = blockyard.new_game("eu-classic", seed=seed)
        for _ in range(30):
            moves = game.legal_moves()
            if not moves:
                break
            game.place(*moves[len(moves) // 2])
        return game.snapshot()

    assert play(77) == play(77)
    assert play(77) != play(78)


@pytest.mark.parametrize("action, message", [
    (lambda g: g.place(1, 0, 0), "slot 1 is empty"),
    (lambda g: g.place(0, 0, 9), "would leave"),
    (lambda g: g.place(0, -1, 0), "would leave"),
    (lambda g: g.place(0, 0, -1), "would leave"),
    (lambda g: g.place(0, 10, 0), "would leave"),
    (lambda g: g.place(3, 0, 0), "slot"),
    (lambda g: g.place(-1, 0, 0), "slot"),
    (lambda g: g.place(0, 9, 0), "filled cells"),
    (lambda g: g.place(0, 1.0, 0), "integer"),
    (lambda g: g.swap(), "no swaps"),
    (lambda g: g.continue_game(), "continue"),
])
def test_T8_a_move_that_is_not_allowed_is_refused_and_changes_nothing(action, message):
    game = blockyard.new_game("eu-classic", seed=3, board=rows("#........."),
                              tray=["##", None, "#"])
    before = game.snapshot()
    with pytest.raises(IllegalMove, match=message):
        action(game)
    assert game.snapshot() == before


def test_T8_no_move_is_allowed_once_the_game_is_over():
    game = blockyard.new_game("eu-classic", seed=3, tray=["#", None, None])
    game.end_round()
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="over"):
        game.place(0, 0, 0)
    with pytest.raises(IllegalMove, match="already over"):
        game.end_round()
    assert game.snapshot() == before
    assert game.legal_moves() == []
