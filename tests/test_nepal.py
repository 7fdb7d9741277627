"""docs/rules.md §5 (family nepal): 8×8, 37 pieces, additive streak bonus, today's game."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

import blockyard

EMPTY = "........"
NEPAL_WEIGHTS = {"dot": 0.4, "domino": 1.2, "I3": 1.2, "I4": 1.0, "I5": 0.5, "square-2": 1.0,
                 "square-3": 0.4, "rect-2x3": 0.6, "small-corner": 1.2, "big-corner": 0.5,
                 "L": 1.0, "J": 1.0, "T": 1.0, "S": 0.8, "Z": 0.8}


def bottom(*lines: str) -> str:
    return "\n".join([EMPTY] * (8 - len(lines)) + list(lines))


@pytest.mark.parametrize("ruleset_id", ["nepal-today", "nepal-new"])
def test_5_1_board_pieces_and_weights(ruleset_id):
    ruleset = blockyard.load_ruleset(ruleset_id)
    assert (ruleset.rows, ruleset.cols, len(ruleset.pieces)) == (8, 8, 37)
    assert {f.name: f.weight for f in ruleset.families} == NEPAL_WEIGHTS
    eu = {f.name: f.pieces for f in blockyard.load_ruleset("eu-classic").families}
    for family in ruleset.families:
        assert [p.cells for p in family.pieces] == [p.cells for p in eu[family.name]]


def test_5_2_a_set_in_which_nothing_fits_is_drawn_again():
    board = "\n".join(["#.#.#.#.", ".#.#.#.#"] * 4)  # only the dot fits
    for seed in range(20):
        game = blockyard.new_game("nepal-new", seed=seed, board=board)
        assert any(p.size == 1 for p in game.tray) and not game.over


def test_5_3_worked_example_54():
    """A 4-cell piece clearing 2 lines as the second clearing move in a row: 4 + 30 + 20."""
    board = bottom("#######.", EMPTY, "######..", "######..")
    game = blockyard.new_game("nepal-new", seed=1, board=board, tray=["#", "##/##", None])
    assert game.place(0, 4, 7).points == 1 + 10  # row 4: first clear
    result = game.place(1, 6, 6)
    assert (result.points, result.lines, result.combo) == (54, 2, 2)


def test_5_3_three_single_clears_in_a_row_earn_10_30_50():
    board = bottom("#######.", "#######.", "#######.", "#.......")
    game = blockyard.new_game("nepal-new", seed=1, board=board, tray=["#", "#", "#"])
    bonuses = [game.place(slot, row, 7).points - 1 for slot, row in ((0, 4), (1, 5), (2, 6))]
    assert bonuses == [10, 30, 50]


def test_5_3_two_lines_at_once_30_two_apart_20():
    at_once = blockyard.new_game("nepal-new", seed=1, board=bottom("#######.", "#######.",
                                                                     "#......."),
                                 tray=["#/#", None, None])
    assert at_once.place(0, 5, 7).points == 2 + 30
    apart = blockyard.new_game("nepal-new", seed=1,
                               board=bottom("#######.", "#.......", "#######.", "#......."),
                               tray=["#", "#", "#"])
    first = apart.place(0, 4, 7)
    apart.place(1, 0, 0)  # breaks the streak
    second = apart.place(2, 6, 7)
    assert (first.points - 1) + (second.points - 1) == 20


def test_5_3_a_move_that_clears_nothing_scores_n_and_ends_the_streak():
    game = blockyard.new_game("nepal-new", seed=1, board=bottom("#######."),
                              tray=["#", "###", None])
    game.place(0, 7, 7)
    assert game.combo == 1
    assert game.place(1, 0, 0).points == 3 and game.combo == 0


def test_5_3_no_perfect_clear_bonus():
    game = blockyard.new_game("nepal-new", seed=1, board=bottom("#######."),
                              tray=["#", None, None])
    result = game.place(0, 7, 7)
    assert result.perfect_clear and result.points == 1 + 10


def test_5_4_today_uses_the_calendar_date_in_kathmandu():
    today = dt.datetime.now(ZoneInfo("Asia/Kathmandu")).date()
    game = blockyard.new_game("nepal-today")
    assert game.date == today.isoformat()
    assert game.seed == blockyard.daily_seed("nepal-today", today)
    same = blockyard.new_game("nepal-today")
    assert same.tray == game.tray


def test_5_4_everyone_on_a_date_shares_the_seed_and_it_changes_at_midnight():
    day = dt.date(2026, 5, 1)
    assert blockyard.new_game("nepal-today", date=day).seed == \
        blockyard.new_game("nepal-today", date=day).seed
    assert blockyard.new_game("nepal-today", date=day).seed != \
        blockyard.new_game("nepal-today", date=day + dt.timedelta(days=1)).seed


def test_5_4_kathmandu_time_zone_is_utc_plus_5_45():
    zone = ZoneInfo("Asia/Kathmandu")
    assert dt.datetime(2026, 1, 1, tzinfo=zone).utcoffset() == dt.timedelta(hours=5, minutes=45)
    from blockyard.game import today_in

    assert today_in("Asia/Kathmandu") == dt.datetime.now(zone).date()


def test_5_4_the_next_game_begins_at_midnight_in_kathmandu():
    from blockyard.game import next_daily, today_in

    # 18:14 UTC is 00:00 in Kathmandu (UTC+05:45): a minute before, the old date
    before = dt.datetime(2026, 3, 9, 18, 14, tzinfo=dt.UTC)
    assert today_in("Asia/Kathmandu", before) == dt.date(2026, 3, 9)
    assert next_daily("Asia/Kathmandu", before) == before + dt.timedelta(minutes=1)
    after = before + dt.timedelta(minutes=1)
    assert today_in("Asia/Kathmandu", after) == dt.date(2026, 3, 10)
    assert next_daily("Asia/Kathmandu", after) == after + dt.timedelta(days=1)
    # a zone whose daylight saving skips midnight (Santiago, 2026-09-06): the new
    # date's first moment, 01:00 there
    skipped = next_daily("America/Santiago", dt.datetime(2026, 9, 6, 2, tzinfo=dt.UTC))
    assert skipped == dt.datetime(2026, 9, 6, 4, tzinfo=dt.UTC)
    assert today_in("America/Santiago", skipped) == dt.date(2026, 9, 6)
    with pytest.raises(ValueError, match="now"):
        next_daily("Asia/Kathmandu", dt.datetime(2026, 3, 9, 18, 14))  # no zone: which?


def test_5_4_new_game_has_a_random_seed():
    seeds = {blockyard.new_game("nepal-new").seed for _ in range(5)}
    assert len(seeds) > 1
    assert blockyard.new_game("nepal-new").date is None
