"""docs/rules.md §7 (sudoku-bloxx) and its worked example in §8."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import blockyard
from blockyard import IllegalMove
from blockyard.stones import Stone

EMPTY = "........."
SOLVED = ["534678912", "672195348", "198342567", "859761423", "426853791",
          "713924856", "961537284", "287419635", "345286179"]


def board(*rows: str) -> str:
    """Rows given bottom-aligned: board("12", "34") puts them on rows 7 and 8."""
    return "\n".join([EMPTY] * (9 - len(rows)) + [r.ljust(9, ".") for r in rows])


def game_with(stream: str, rows: str | None = None, seed: int = 1) -> blockyard.Game:
    return blockyard.new_game("sudoku-bloxx", seed=seed, stream=stream, board=rows)


def steer(game: blockyard.Game, col: int) -> None:
    while game.current.col < col:
        assert game.move(1)
    while game.current.col > col:
        assert game.move(-1)


# -- 7.1 board and stones ------------------------------------------------------------

def test_7_1_a_9x9_board_in_nine_3x3_blocks_starting_empty():
    game = blockyard.new_game("sudoku-bloxx", seed=1)
    assert (game.rows, game.cols) == (9, 9)
    assert game.board_text() == "\n".join([EMPTY] * 9)
    assert all(cell is None for row in game.board for cell in row)
    regions = Counter(kind for kind, _ in (r.key for r in game.ruleset.regions))
    assert regions == {"row": 9, "col": 9, "block": 9}
    block4 = next(r for r in game.ruleset.regions if r.key == ("block", 4))
    cells = {divmod(i, 9) for i in game.grid.geo.bits_of(block4.mask)}
    assert cells == {(r, c) for r in (3, 4, 5) for c in (3, 4, 5)}
    assert blockyard.load_ruleset("sudoku-bloxx").pieces == ()


def test_7_1_digits_come_in_shuffled_bags_of_nine_with_symbols_and_golden_digits():
    game = blockyard.new_game("sudoku-bloxx", seed=7)
    deal = dict(game.ruleset.plugin_objects)["sudoku-stones"].blockyard_deal
    symbols = digits = golden = 0
    orders = set()
    for index in range(3000):
        bag = deal(game, index)
        bag_digits = [s.digit for s in bag if not s.symbol]
        assert sorted(bag_digits) == list(range(1, 10))
        orders.add(tuple(bag_digits))
        symbols += sum(s.symbol for s in bag)
        digits += len(bag_digits)
        golden += sum(s.golden for s in bag)
        assert not bag[-1].symbol  # a symbol is inserted before a stone
    assert len(orders) > 2900
    assert symbols / digits == pytest.approx(1 / 12, abs=0.006)
    assert golden / digits == pytest.approx(1 / 10, abs=0.006)


def test_7_1_the_next_three_stones_are_shown_in_advance():
    game = blockyard.new_game("sudoku-bloxx", seed=3)
    shown = list(game.upcoming)
    assert len(shown) == 3
    seen = []
    for _ in range(3):
        steer(game, len(seen) * 2)
        game.hard_drop()
        seen.append(game.current.stone)
    assert seen == shown


def test_reading_upcoming_deals_nothing_and_changes_nothing(rule_file, register_plugin):
    """``upcoming`` only reads the queue the engine dealt ahead at spawn: no hook
    is asked (not the deal hook, not any other) and the snapshot stays equal."""
    from blockyard.hookspecs import hookimpl
    from blockyard.plugins.sudoku import SudokuStones

    deals: list[int] = []

    class CountingStones(SudokuStones):
        @hookimpl
        def blockyard_deal(self, game, index):
            deals.append(index)
            return super().blockyard_deal(game, index)

    register_plugin("counting-stones", CountingStones)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "sudoku-bloxx"\nid = "counted"\nname = "Counted"\n'
        "[plugins]\nsudoku-stones = false\n[plugins.counting-stones]\n"
        "symbol_chance = 0.08333333333333333\ngolden_chance = 0.1\n"))
    game = blockyard.new_game(ruleset, seed=3)
    plain = blockyard.new_game("sudoku-bloxx", seed=3)
    for col in range(4):  # a few stones in (one bag's distinct digits: no errors)
        for one in (game, plain):
            steer(one, col)
            one.hard_drop()
    dealt = list(deals)
    assert dealt == list(range(len(dealt))) and dealt
    before = game.snapshot()
    asked: list[str] = []
    with ruleset.monitor(lambda name, impls, kw: asked.append(name), lambda *args: None):
        shown = [game.upcoming for _ in range(3)]
    assert asked == [] and deals == dealt
    assert game.snapshot() == before
    assert shown[0] == shown[1] == shown[2] == plain.upcoming and len(shown[0]) == 3
    for col, stone in enumerate(shown[0], start=5):  # the stones come in the order shown
        steer(game, col)
        game.hard_drop()
        assert game.current.stone == stone
    # a queue shorter than what the log deals is a snapshot the log refutes
    short = game.snapshot()
    short["queue"] = short["queue"][:1]
    with pytest.raises(blockyard.DataError, match=r"snapshot\.queue"):
        blockyard.restore(short)


def test_upcoming_of_a_game_over_before_its_first_stone_is_empty():
    game = blockyard.new_game("sudoku-bloxx", seed=2, board="\n".join(SOLVED))
    assert game.over_reason is not None and game.current is None
    before = game.snapshot()
    assert game.upcoming == () and game.snapshot() == before
    assert before["batch_index"] == 0 and before["queue"] == []


# -- 7.2 controls and falling ----------------------------------------------------------

def test_7_2_a_new_stone_appears_above_column_4():
    game = game_with("5 6")
    assert (game.current.row, game.current.col) == (-1, 4)
    assert game.current.stone == Stone(5)


def test_7_2_above_a_full_column_4_it_appears_over_the_nearest_free_column_left_first():
    col4 = ["....1....", "....2....", "....3....", "....4....", "....5....", "....6....",
            "....7....", "....8....", "....9...."]
    game = game_with("5", "\n".join(col4))
    assert game.current.col == 3
    both = [row[:3] + "1" + row[4:] if r == 0 else row[:3] + str((r + 4) % 9 + 1) + row[4:]
            for r, row in enumerate(col4)]
    game = game_with("5", "\n".join(both))
    assert game.current.col == 5


def test_7_2_left_and_right_move_one_column_and_stop_at_the_edges():
    game = game_with("5")
    assert game.move(-1) and game.current.col == 3
    for _ in range(3):
        game.move(-1)
    assert game.current.col == 0
    assert game.move(-1) is False and game.current.col == 0
    with pytest.raises(IllegalMove, match="-1 or \\+1"):
        game.move(2)


def test_7_2_a_move_into_a_filled_cell_is_blocked_but_row_minus_1_passes_over_anything():
    col3 = board(*["...1", "...2", "...3", "...4"])
    game = game_with("5", col3)
    game.tick(0.8 * 5)  # rows -1 → 4
    assert game.current.row == 4
    game.tick(0.8)
    assert game.current.row == 5
    assert game.move(-1) is False and game.current.col == 4
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    game = game_with("5 6", full.replace("....", "...", 1).replace("...1", "....1", 1))
    start = game.current.col
    assert game.current.row == -1
    assert game.move(1 if start < 4 else -1)  # over the full column 4 at row -1
    assert game.current.col == 4


def test_7_2_a_stone_falls_a_row_every_0_8_seconds_and_lands_on_the_bottom():
    """falling-stones answers blockyard_falling_rules with the rule file's speeds."""
    game = game_with("5 6")
    game.tick(0.8)
    assert game.current.row == 0
    game.tick(0.8 * 8 - 0.000001)
    assert game.current.row == 7 and game.current.stone == Stone(5)
    landed = game.tick(0.000001)
    assert [(r.row, r.col, r.points) for r in landed] == [(8, 4, 10)]
    assert game.board_text().splitlines()[8] == "....5...."
    assert game.current.stone == Stone(6) and game.current.row == -1


def test_7_2_soft_drop_falls_a_row_every_0_05_seconds_without_bonus():
    game = game_with("5 6")
    game.soft_drop(True)
    landed = game.tick(0.05 * 9)
    assert [(r.row, r.points) for r in landed] == [(8, 10)]
    game.soft_drop(False)
    assert game.tick(0.05) == [] and game.current.row == -1


def test_7_2_it_lands_on_the_stone_below_with_no_lock_delay():
    game = game_with("5 6 7", board("....1"))
    game.tick(0.8 * 8)
    assert game.board_text().splitlines()[7] == "....5...."
    # moving next to a stack at the stack's height lands at once
    game2 = game_with("5 6", board("...1", "...2", "...3", "...4"))
    game2.tick(0.8 * 5)  # row 4, column 4; column 3 is filled from row 5
    assert game2.move(-1)
    assert game2.last_landing.row == 4 and game2.last_landing.col == 3
    assert game2.board_text().splitlines()[4] == "...5....."


def test_7_2_landing_over_a_full_column_discards_the_stone_for_minus_100():
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    game = game_with("5 6", full)
    game.score = 150
    steer(game, 4)
    result = game.hard_drop()
    assert result.discarded and result.points == -100 and not result.error
    assert game.score == 50 and game.board_text() == full
    assert game.current.stone == Stone(6)


def test_7_2_a_stone_waiting_over_a_full_column_is_discarded_at_the_next_fall_step():
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    game = game_with("5 6", full)
    steer(game, 4)
    landed = game.tick(0.8)
    assert [r.discarded for r in landed] == [True]


# -- 7.3 correctness, jokers and errors -------------------------------------------------

@pytest.mark.parametrize("rows, col, where", [
    (board("5"), 1, "row"),
    (board("...5"), 3, "column"),
    (board("..1", "5"), 2, "block"),
])
def test_7_3_a_repeated_digit_is_an_error_the_stone_is_removed(rows, col, where):
    """sudoku-rules answers blockyard_accept_stone with False."""
    game = game_with("5 6", rows)
    steer(game, col)
    result = game.hard_drop()
    assert result.error and result.points == 0, where
    assert game.errors == 1 and game.score == 0
    assert game.board_text() == blockyard.new_game("sudoku-bloxx", seed=1,
                                                   board=rows, stream="6").board_text()


def test_7_3_symbol_stones_match_no_digit():
    game = game_with("S S 5", board("5"))
    steer(game, 1)
    assert not game.hard_drop().error
    steer(game, 1)
    assert not game.hard_drop().error
    assert game.board_text().splitlines()[7:] == [".S.......", "5S......."]


def test_7_3_the_third_error_ends_the_game():
    game = game_with("5 5 5 5", board("5"))
    for expected in (1, 2):
        steer(game, 1)
        game.hard_drop()
        assert game.errors == expected and not game.over
    steer(game, 1)
    game.hard_drop()
    assert game.over and game.over_reason == "errors" and game.current is None


def test_7_3_a_completed_band_turns_digits_shared_by_its_blocks_into_jokers():
    rows = [EMPTY] * 6 + [SOLVED[6][:8] + ".", SOLVED[7], SOLVED[8]]
    game = game_with("4 9", "\n".join(rows))
    steer(game, 8)
    result = game.hard_drop()
    assert sorted(result.completed) == [("block", 8), ("row", 6)]
    assert len(result.jokers) == 27
    assert game.board_text().splitlines()[6:] == ["J" * 9] * 3
    assert game.board[6][0] == Stone(None, joker=True)
    # a joker no longer counts as its digit: 9 may go above the joker 9
    steer(game, 0)
    assert not game.hard_drop().error


def test_7_3_only_digits_present_in_all_three_blocks_become_jokers():
    rows = [EMPTY] * 6 + [SOLVED[6][:8] + ".", "S" + SOLVED[7][1:], SOLVED[8]]
    game = game_with("4", "\n".join(rows))
    steer(game, 8)
    game.hard_drop()
    assert game.board_text().splitlines()[6:] == ["JJJJJJ2JJ", "SJJJJJJJJ", "JJJ2JJJJJ"]


# -- 7.4 scoring -----------------------------------------------------------------------

def test_8_a_5_hard_dropped_onto_the_bottom_row_scores_19():
    game = game_with("5")
    result = game.hard_drop()
    assert (result.row, result.dropped, result.points) == (8, 9, 19)
    assert game.score == 19


def test_7_4_symbol_stones_score_nothing_of_their_own_not_even_the_drop():
    game = game_with("S")
    landing = game.hard_drop()
    assert landing.dropped == 9 and landing.points == 0


@pytest.mark.parametrize("rows, stream, col, areas, points", [
    (board("12345678"), "9", 8, [("row", 8)], 10 + 340),
    ("\n".join(["........."] + ["12345678"[r - 1] + "........" for r in range(1, 9)]), "9", 0,
     [("col", 0)], 10 + 410),
    (board("12", "345", "678"), "9", 2, [("block", 6)], 10 + 310),
])
def test_7_4_completing_a_row_column_or_block(rows, stream, col, areas, points):
    game = game_with(stream, rows)
    steer(game, col)
    landed = []
    while not landed:
        landed = game.tick(0.8)
    assert landed[0].completed == areas
    assert landed[0].points == points


def test_7_4_several_areas_at_once_and_golden_digits_in_each():
    rows = [EMPTY] * 6 + [SOLVED[6][:8] + ".", SOLVED[7], SOLVED[8]]
    game = game_with("4*", "\n".join(rows))
    steer(game, 8)
    result = game.hard_drop()
    # 10 + 7 rows dropped + row 340 + block 310 + a golden stone in each of the 2 areas
    assert result.points == 10 + 7 + 340 + 310 + 2 * 100


def test_7_4_the_score_never_goes_below_0():
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    game = game_with("5", full)
    steer(game, 4)
    result = game.hard_drop()
    assert result.discarded and result.points == 0 and game.score == 0


# -- 7.5 the end ---------------------------------------------------------------------------

def test_7_5_a_full_board_ends_the_game_complete():
    rows = [SOLVED[0][:8] + ".", *SOLVED[1:]]
    game = game_with("2", "\n".join(rows))
    steer(game, 8)
    result = game.hard_drop()
    assert sorted(result.completed) == [("block", 2), ("col", 8), ("row", 0)]
    assert result.points == 10 + 1 + 340 + 410 + 310
    assert game.over and game.over_reason == "complete"


def test_7_5_the_clock_runs_out_after_360_seconds(rule_file):
    game = blockyard.new_game("sudoku-bloxx", seed=1)
    assert game.time_left == 360
    slow = rule_file('[ruleset]\nextends = "sudoku-bloxx"\nid = "slow"\nname = "slow"\n'
                     "[plugins.falling-stones]\nfall_seconds = 1000\n")
    game = blockyard.new_game(slow, seed=1)
    game.tick(359.5)
    assert not game.over and game.time_left == pytest.approx(0.5)
    game.tick(1)
    assert game.over and game.over_reason == "time" and game.time_left == 0


def test_7_5_end_round():
    game = blockyard.new_game("sudoku-bloxx", seed=1)
    game.end_round()
    assert game.over_reason == "ended"
    with pytest.raises(IllegalMove):
        game.hard_drop()


# -- starting positions, determinism, duels -------------------------------------------------

def test_starting_board_and_stream():
    game = blockyard.new_game("sudoku-bloxx", seed=5, board=board("S.J", "5.7"),
                              stream="5* S 8")
    assert game.board_text().splitlines()[7:] == ["S.J......", "5.7......"]
    assert game.board[8][0] == Stone(5) and game.board[7][2].joker
    assert game.current.stone == Stone(5, golden=True)
    bag = dict(game.ruleset.plugin_objects)["sudoku-stones"].blockyard_deal(game, 0)
    assert list(game.upcoming) == [Stone(None, symbol=True), Stone(8), bag[0]]
    with pytest.raises(ValueError, match="stream token 2"):
        blockyard.new_game("sudoku-bloxx", seed=5, stream="5 X")
    with pytest.raises(ValueError, match="row 8"):
        blockyard.new_game("sudoku-bloxx", seed=5, board=board("5#"))
    with pytest.raises(ValueError, match="tray"):
        blockyard.new_game("sudoku-bloxx", seed=5, tray=["#"])


def test_both_players_of_a_seed_get_the_same_stones_whatever_they_do():
    a = blockyard.new_game("sudoku-bloxx", seed=99)
    b = blockyard.new_game("sudoku-bloxx", seed=99)
    seen_a, seen_b = [a.current.stone], [b.current.stone]
    for i in range(8):
        steer(a, i)
        a.hard_drop()
        seen_a.append(a.current.stone)
    while len(seen_b) < len(seen_a):
        before = b.moves
        b.soft_drop(True)
        b.tick(0.05)
        if b.moves != before:
            seen_b.append(b.current.stone)
    assert seen_a == seen_b


def test_snapshot_and_replay_reproduce_the_falling_position_and_the_clock():
    game = blockyard.new_game("sudoku-bloxx", seed=12)
    game.hard_drop()
    game.move(-1)
    game.tick(2.0)
    game.soft_drop(True)
    game.tick(0.12)
    snap = json.loads(json.dumps(game.snapshot()))
    copy = blockyard.restore(snap)
    assert (copy.current, copy.time_left, copy.soft) == (game.current, game.time_left, True)
    for g in (game, copy):
        g.soft_drop(False)
        g.tick(3.3)
        g.move(1)
        g.hard_drop()
    assert copy.snapshot() == game.snapshot()
    assert blockyard.replay(game.log).snapshot() == game.snapshot()


def test_blockyard_invariants_report_a_digit_twice_in_an_area():
    game = blockyard.new_game("sudoku-bloxx", seed=1, board=board("5.5"))
    problems = game.ruleset.hooks.invariants(game)
    assert problems == ["digit 5 twice in row 8", "digit 5 twice in block 6"]


def test_randomised_play_never_corrupts_the_board():
    import random

    rnd = random.Random(5)
    for seed in range(25):
        game = blockyard.new_game("sudoku-bloxx", seed=seed)
        while not game.over:
            roll = rnd.random()
            if roll < 0.4:
                game.move(rnd.choice((-1, 1)))
            elif roll < 0.7:
                game.hard_drop()
            else:
                game.tick(rnd.choice((0.3, 0.8, 2.0)))
            for area in game.ruleset.regions:
                digits = [game.board[r][c].digit for i in game.grid.geo.bits_of(area.mask)
                          for r, c in [divmod(i, 9)] if game.board[r][c] is not None
                          and game.board[r][c].digit is not None]
                assert len(digits) == len(set(digits)), (seed, area.key, game.board_text())


def test_sudoku_games_keep_records_like_tray_games(tmp_path):
    from blockyard.records import RecordStore

    game = blockyard.new_game("sudoku-bloxx", seed=5)  # the rules' own deal
    game.hard_drop()
    game.end_round()
    summary = RecordStore(tmp_path).record(game)
    assert summary.points == game.score > 0 and summary.record_after == game.score
    assert summary.over_reason == "ended" and not summary.practice
    # a game from a chosen stone stream is practice: never a record
    chosen = game_with("5")
    chosen.hard_drop()
    chosen.end_round()
    summary = RecordStore(tmp_path / "chosen").record(chosen)
    assert summary.points == 19 and summary.practice and summary.record_after is None


def test_tray_actions_do_not_exist_in_sudoku_and_falling_actions_not_in_tray_games():
    assert not hasattr(blockyard.new_game("sudoku-bloxx", seed=1), "place")
    assert not hasattr(blockyard.new_game("eu-classic", seed=1), "hard_drop")


def test_errors_allowed_is_the_rules_answer_read_at_load(tmp_path):
    """sudoku-rules answers blockyard_max_errors with its max_errors parameter"""
    assert game_with("5").errors_allowed == 3
    source = Path(blockyard.load_ruleset("sudoku-bloxx").path).read_text(encoding="utf-8")
    path = tmp_path / "five.toml"
    path.write_text(source.replace('id = "sudoku-bloxx"', 'id = "five-errors"')
                    .replace("max_errors = 3", "max_errors = 5"), encoding="utf-8")
    game = blockyard.new_game(blockyard.load_ruleset(path), seed=1, stream="5")
    assert game.errors_allowed == 5


def test_discard_points_are_what_a_discard_scores_now():
    full = board(*("....5...." for _ in range(9)))
    game = game_with("5 6", full)
    assert game.column_full(4)
    assert game.discard_points() == 0  # the score never goes below 0
    game.score = 500
    assert game.discard_points() == -100
    moves = game.moves
    steer(game, 4)
    game.hard_drop()
    assert game.moves == moves + 1 and game.score == 400 and game.last_landing.discarded
