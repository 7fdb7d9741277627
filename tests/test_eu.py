"""docs/rules.md §3 (family eu) and the eu worked examples of §8."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

import blockyard
from blockyard import IllegalMove, rng
from blockyard.plugins.dealing import WeightTable

EMPTY = ".........."
EU_MODES = ["eu-classic", "eu-hardcore", "eu-daily", "eu-zen", "eu-timed"]

# docs/rules.md §3.1, written here independently of the rule file (rows joined by "/")
EU_PIECES = {
    "dot": ["#"], "domino": ["##", "#/#"], "I3": ["###", "#/#/#"],
    "I4": ["####", "#/#/#/#"], "I5": ["#####", "#/#/#/#/#"],
    "diagonal-2": ["#./.#", ".#/#."], "diagonal-3": ["#../.#./..#", "..#/.#./#.."],
    "square-2": ["##/##"], "square-3": ["###/###/###"], "rect-2x3": ["###/###", "##/##/##"],
    "small-corner": ["##/#.", "##/.#", ".#/##", "#./##"],
    "big-corner": ["###/#../#..", "###/..#/..#", "..#/..#/###", "#../#../###"],
    "L": ["#./#./##", "###/#..", "##/.#/.#", "..#/###"],
    "J": [".#/.#/##", "#../###", "##/#./#.", "###/..#"],
    "T": ["###/.#.", ".#./###", "#./##/#.", ".#/##/.#"],
    "S": [".##/##.", "#./##/.#"], "Z": ["##./.##", ".#/##/#."],
    "plus": [".#./###/.#."],
    "U": ["#.#/###", "###/#.#", "##/#./##", "##/.#/##"],
    "big-T": ["###/.#./.#.", ".#./.#./###"],
}
CLASSIC_WEIGHTS = {"dot": 1.0, "domino": 1.5, "I3": 1.5, "I4": 1.2, "I5": 0.8,
                   "diagonal-2": 0.8, "diagonal-3": 0.5, "square-2": 1.5, "square-3": 0.6,
                   "rect-2x3": 0.8, "small-corner": 1.5, "big-corner": 0.8, "L": 1.2,
                   "J": 1.2, "T": 1.2, "S": 0.8, "Z": 0.8, "plus": 0.4, "U": 0.6, "big-T": 0.4}
HARDCORE_WEIGHTS = {"dot": 0.25, "domino": 0.4, "I3": 0.4, "I4": 1.2, "I5": 1.6,
                    "diagonal-2": 0.2, "diagonal-3": 1.0, "square-2": 1.5, "square-3": 1.2,
                    "rect-2x3": 1.6, "small-corner": 0.4, "big-corner": 1.6, "L": 1.2,
                    "J": 1.2, "T": 1.2, "S": 0.8, "Z": 0.8, "plus": 0.8, "U": 1.2, "big-T": 0.8}


def bottom(*lines: str) -> str:
    return "\n".join([EMPTY] * (10 - len(lines)) + list(lines))


# -- 3.1 pieces -------------------------------------------------------------------

@pytest.mark.parametrize("ruleset_id", EU_MODES)
def test_3_1_every_eu_mode_has_the_48_pieces_exactly_as_listed(ruleset_id):
    ruleset = blockyard.load_ruleset(ruleset_id)
    assert (ruleset.rows, ruleset.cols) == (10, 10)
    assert len(ruleset.pieces) == 48
    got = {f.name: [p.cells for p in f.pieces] for f in ruleset.families}
    want = {name: [blockyard.Piece.from_art(a).cells for a in arts]
            for name, arts in EU_PIECES.items()}
    assert got == want
    assert len({p.cells for p in ruleset.pieces}) == 48  # each orientation its own piece


# -- 3.2 dealing ------------------------------------------------------------------

def test_3_2_classic_and_hardcore_family_weights():
    classic = blockyard.load_ruleset("eu-classic")
    hardcore = blockyard.load_ruleset("eu-hardcore")
    assert {f.name: f.weight for f in classic.families} == CLASSIC_WEIGHTS
    assert {f.name: f.weight for f in hardcore.families} == HARDCORE_WEIGHTS


def test_3_2_a_piece_is_drawn_by_family_weight_then_orientation_uniformly():
    ruleset = blockyard.load_ruleset("eu-classic")
    table = WeightTable(ruleset.families)
    stream = rng.stream("frequency test")
    draws = [table.draw(stream) for _ in range(60_000)]
    families = Counter(p.family for p in draws)
    total = sum(CLASSIC_WEIGHTS.values())
    for name, weight in CLASSIC_WEIGHTS.items():
        assert families[name] / len(draws) == pytest.approx(weight / total, abs=0.006)
    corners = Counter(p.id for p in draws if p.family == "small-corner")
    assert len(corners) == 4
    assert max(corners.values()) / min(corners.values()) < 1.15


def holes_board(holes: dict[int, list[int]]) -> str:
    """A full 10×10 board except for the given holes (row → columns)."""
    return "\n".join("".join("." if c in holes.get(r, []) else "#" for c in range(10))
                     for r in range(10))


def fitting_families(game: blockyard.Game) -> set[str]:
    return {p.id for p in game.ruleset.pieces if game.piece_fits_somewhere(p)}


# one isolated hole per row and per column: only the dot fits
ISOLATED = {0: [0], 1: [3], 2: [6], 3: [9], 4: [2], 5: [5], 6: [8], 7: [1], 8: [4], 9: [7]}


def test_3_2_a_set_is_three_pieces_drawn_one_after_another():
    """draw_set (the dealing's written-out loop) draws exactly what three
    draw() calls draw from the same stream, for every bundled weight table."""
    for ruleset_id in ("eu-classic", "eu-hardcore", "woodoku", "nepal-new"):
        table = WeightTable(blockyard.load_ruleset(ruleset_id).families)
        for seed in range(300):
            one_by_one = rng.stream(seed, "deal", 0)
            assert [p.id for p in table.draw_set(rng.stream(seed, "deal", 0))] == \
                [table.draw(one_by_one).id for _ in range(3)]


def test_3_2_a_set_in_which_nothing_fits_is_drawn_again():
    ruleset = blockyard.load_ruleset("eu-classic")
    board = holes_board(ISOLATED)
    redrawn = 0
    for seed in range(30):
        game = blockyard.new_game(ruleset, seed=seed, board=board)
        assert fitting_families(game) == {"dot"}
        assert any(p.size == 1 for p in game.tray), seed
        first_draw = WeightTable(ruleset.families).draw_set(rng.stream(seed, "deal", 0))
        if not any(p.size == 1 for p in first_draw):
            redrawn += 1
            assert list(game.tray) != first_draw
    assert redrawn > 20  # the dot is rare: most first draws had to be redrawn


def test_3_2_after_the_last_failing_draw_the_third_piece_becomes_the_largest_that_fits(
        rule_file):
    # a 1×3 hole in row 0 and isolated holes elsewhere: dot, domino and I3 fit,
    # and none of them is ever drawn (weight 0), so every first draw fails
    path = rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "eu-one-draw"\nname = "one draw"\n'
        "[plugins.weighted-dealing]\nmax_attempts = 1\n"
        "[pieces]\ndot.weight = 0.0\ndomino.weight = 0.0\nI3.weight = 0.0\n")
    holes = {0: [0, 1, 2], 1: [5], 2: [3], 3: [9], 4: [4], 5: [6], 6: [8], 7: [1], 8: [7],
             9: [2]}
    for seed in range(5):
        game = blockyard.new_game(path, seed=seed, board=holes_board(holes))
        assert fitting_families(game) == {"dot", "domino-1", "I3-1"}
        drawn = WeightTable(game.ruleset.families).draw_set(rng.stream(seed, "deal", 0))
        assert list(game.tray[:2]) == drawn[:2]
        assert game.tray[2].id == "I3-1"  # 3 cells beat the domino's 2 and the dot's 1


def test_3_2_fallback_ties_go_to_the_piece_listed_first(rule_file):
    # a diagonal of three and a small corner: both 3 cells; diagonal-3 is listed first
    path = rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "eu-one-draw"\nname = "one draw"\n'
        "[plugins.weighted-dealing]\nmax_attempts = 1\n[pieces]\n"
        + "".join(f"{f}.weight = 0.0\n" for f in
                  ("dot", "domino", "diagonal-2", "diagonal-3", "small-corner")))
    holes = {0: [0, 1], 1: [0], 2: [8], 3: [2], 4: [4], 5: [5], 6: [6], 7: [9], 8: [3],
             9: [7]}
    game = blockyard.new_game(path, seed=3, board=holes_board(holes))
    assert fitting_families(game) == {"dot", "domino-1", "domino-2", "diagonal-2-1",
                                      "diagonal-2-2",
                                      "diagonal-3-1", "small-corner-1"}
    assert game.tray[2].id == "diagonal-3-1"


# -- 3.3 scoring ----------------------------------------------------------------------

def test_3_3_worked_example_503():
    """A 3-cell piece clearing 2 lines as the third clearing move in a row → 503
    (blockyard_score)."""
    board = bottom(FULL := "#########.", FULL, EMPTY, FULL, FULL)
    game = blockyard.new_game("eu-classic", seed=1, board=board, tray=["#", "#", "#/#/#"])
    first = game.place(0, 9, 9)    # k=1: 1 + 100
    second = game.place(1, 8, 9)   # k=2: 1 + 100 × 1.5
    third = game.place(2, 5, 9)    # k=3: 3 + 250 × 2
    assert (first.points, second.points, third.points) == (101, 151, 503)
    assert (first.combo, second.combo, third.combo) == (1, 2, 3)
    assert third.lines == 2 and third.cleared_rows == (5, 6)
    assert game.score == 755


@pytest.mark.parametrize("lines, points", [(1, 100), (2, 250), (3, 500), (4, 1000),
                                           (5, 1500), (6, 2000)])
def test_3_3_line_points_for_1_to_6_lines(lines, points):
    """§8: line_points for L = 1..6 is 100, 250, 500, 1000, 1500, 2000 — through a move."""
    # a vertical bar dropped into column 9 completes `rows_needed` rows; for six
    # lines column 9 is filled above it, so the bar completes that column too.
    # The cell at (0, 0) stays, so no move is a perfect clear.
    rows_needed = min(lines, 5)
    piece = "/".join(["#"] * rows_needed)
    board_rows = [EMPTY] * (10 - rows_needed) + ["#########."] * rows_needed
    if lines == 6:
        board_rows = [".........#"] * 5 + ["#########."] * 5
    board_rows[0] = "#" + board_rows[0][1:]
    game = blockyard.new_game("eu-classic", seed=1, board="\n".join(board_rows),
                              tray=[piece, None, None])
    result = game.place(0, 10 - rows_needed, 9)
    assert result.lines == lines
    assert result.points == rows_needed + points


def test_3_3_combo_multipliers_up_to_x3_and_a_miss_ends_the_streak():
    board = bottom(*["#########."] * 7)
    tray = ["#"] * 3
    game = blockyard.new_game("eu-classic", seed=1, board=board, tray=tray)
    points = []
    for row in (9, 8, 7):
        points.append(game.place(len(points) % 3, row, 9).points)
    game2 = blockyard.new_game("eu-classic", seed=1, board=board, tray=["#", "#", "#"])
    for i, row in enumerate((9, 8, 7)):
        game2.place(i, row, 9)
    # k = 1..3 → 100, 150, 200 line points
    assert points == [101, 151, 201]
    # continue the streak: k = 4, 5, 6 → ×2.5, ×3, ×3
    game3 = blockyard.new_game("eu-classic", seed=1, board=bottom(*["#########."] * 6),
                               tray=["#/#/#", "#", "#"])
    game3.combo = 3  # as after three clearing moves
    r = game3.place(0, 4, 9)
    assert r.points == 3 + round(500 * 2.5) and r.combo == 4
    r = game3.place(1, 7, 9)
    assert r.points == 1 + 100 * 3 and r.combo == 5
    r = game3.place(2, 8, 9)
    assert r.points == 1 + 100 * 3 and r.combo == 6
    miss = blockyard.new_game("eu-classic", seed=1, board=bottom("#########."),
                              tray=["#", "#", None])
    miss.place(0, 9, 9)
    assert miss.combo == 1
    assert miss.place(1, 0, 0).points == 1
    assert miss.combo == 0


def test_3_3_perfect_clear_adds_2000_not_multiplied():
    """§8: a move that clears the last blocks of the board as the first clear."""
    game = blockyard.new_game("eu-classic", seed=1, board=bottom("#########."),
                              tray=["#", None, None])
    result = game.place(0, 9, 9)
    assert result.perfect_clear
    assert result.points == 1 + 100 + 2000
    game = blockyard.new_game("eu-classic", seed=1, board=bottom("#########."),
                              tray=["#", None, None])
    game.combo = 4  # fifth clearing move: line points ×3, the bonus is not multiplied
    assert game.place(0, 9, 9).points == 1 + 300 + 2000


def test_3_3_preview_shows_the_points_and_lines_without_changing_anything():
    game = blockyard.new_game("eu-classic", seed=1, board=bottom("#########."),
                              tray=["#", "#", None])
    before = game.snapshot()
    preview = game.preview(0, 9, 9)
    assert (preview.points, preview.cleared_rows, preview.perfect_clear) == (2101, (9,), True)
    assert game.snapshot() == before
    assert game.place(0, 9, 9) == preview


# -- 3.4 modes --------------------------------------------------------------------------

def test_3_4_record_groups():
    groups = {rid: (blockyard.load_ruleset(rid).record_group,
                    blockyard.load_ruleset(rid).record_kind) for rid in EU_MODES}
    assert groups == {"eu-classic": ("eu", "best"), "eu-hardcore": ("eu", "best"),
                      "eu-daily": ("eu-daily", "per-date"), "eu-zen": ("eu-zen", "none"),
                      "eu-timed": ("eu-timed", "best")}


def test_3_4_daily_seed_comes_from_the_ruleset_and_the_date():
    day = dt.date(2026, 3, 14)
    a = blockyard.new_game("eu-daily", date=day)
    b = blockyard.new_game("eu-daily", date=day)
    assert a.seed == b.seed == blockyard.daily_seed("eu-daily", day)
    assert a.tray == b.tray and a.date == "2026-03-14"
    other = blockyard.new_game("eu-daily", date=day + dt.timedelta(days=1))
    assert other.seed != a.seed
    assert blockyard.daily_seed("eu-classic", day) != a.seed


def test_3_4_daily_defaults_to_the_local_calendar_date():
    game = blockyard.new_game("eu-daily")
    assert game.date == dt.date.today().isoformat()
    assert game.seed == blockyard.daily_seed("eu-daily", dt.date.today())


def test_3_4_daily_has_no_continue():
    game = blockyard.new_game("eu-daily", date=dt.date(2026, 1, 1), tray=["#####", None, None],
                              board="\n".join(["####.#####"] * 10).replace("####.", "#####", 1))
    assert game.over and not game.can_continue


def test_3_4_zen_has_no_score_and_counts_lines():
    game = blockyard.new_game("eu-zen", seed=1, board=bottom("#########."),
                              tray=["#", None, None])
    result = game.place(0, 9, 9)
    assert result.points == 0 and game.score == 0
    assert game.lines_cleared == 1


def test_3_4_zen_refills_the_tray_when_nothing_fits():
    """blockyard_rescue"""
    board = "\n".join(["#.#.#.#.#."] * 10)  # only single cells are free
    game = blockyard.new_game("eu-zen", seed=4, board=board, tray=["##", "###", None])
    assert not game.over
    expected = WeightTable(game.ruleset.families).draw_set(rng.stream(4, "zen", 0))
    assert list(game.tray) == expected
    assert game.any_fits()


def test_3_4_zen_empties_the_fullest_row_lowest_on_screen_first_when_the_refill_fails():
    # two fullest rows (9 cells) at rows 2 and 7: row 7 (higher index) goes first
    rows = ["#.#.#.#.#."] * 10
    rows[2] = "#########."
    rows[7] = "#########."
    game = blockyard.new_game("eu-zen", seed=4, board="\n".join(rows), tray=["#####", None, None])
    refill = WeightTable(game.ruleset.families).draw_set(rng.stream(4, "zen", 0))
    text = game.board_text().splitlines()
    if not any(p.size == 1 for p in refill):
        assert text[7] == EMPTY or text[2] == EMPTY
        if text[2] != EMPTY:
            assert text[7] == EMPTY
    assert not game.over and game.any_fits()


def test_3_4_zen_is_never_over_over_many_moves():
    game = blockyard.new_game("eu-zen", seed=8)
    for _ in range(400):
        moves = game.legal_moves()
        assert moves and not game.over
        game.place(*moves[-1])


def test_3_4_timed_has_a_180_second_clock():
    """the clock plugin answers blockyard_time_limit"""
    game = blockyard.new_game("eu-timed", seed=1)
    assert game.time_left == 180
    game.tick(100)
    assert game.time_left == 80 and not game.over
    game.tick(79.5)
    assert game.time_left == pytest.approx(0.5) and not game.over
    game.tick(0.5)
    assert game.over and game.over_reason == "time" and game.time_left == 0
    before = game.snapshot()
    game.tick(5)
    assert game.snapshot() == before


def test_3_4_timed_is_also_over_when_nothing_fits():
    board = "\n".join(["#.#.#.#.#."] * 10)
    game = blockyard.new_game("eu-timed", seed=1, board=board, tray=["##", None, None])
    assert game.over_reason == "stuck"


def test_untimed_rulesets_have_no_clock():
    game = blockyard.new_game("eu-classic", seed=1)
    assert game.time_left is None
    game.tick(1000)
    assert not game.over and game.log == game.log[:1]


# -- continue ---------------------------------------------------------------------

def stuck_board() -> str:
    # every row has 8 or 9 cells; the 9-cell rows (fullest) are 1, 4 and 8
    rows = ["##.#####.#"] * 10
    for r in (1, 4, 8):
        rows[r] = "#.########"
    return "\n".join(rows)


def test_continue_empties_fullest_rows_highest_index_first_until_a_piece_fits():
    """blockyard_continue_game"""
    game = blockyard.new_game("eu-classic", seed=1, board=stuck_board(),
                              tray=["###/###", None, None])
    assert game.over_reason == "stuck" and game.can_continue
    game.combo = 2
    game.continue_game()
    text = game.board_text().splitlines()
    # rows 8 and 4 emptied do not make room for 2×3 ... rows 8, 4, 1 and then row 9
    emptied = [r for r, line in enumerate(text) if line == EMPTY]
    assert emptied == [1, 4, 8, 9]
    assert game.combo == 0 and game.score == 0 and game.lines_cleared == 0
    assert not game.over  # a 2×3 fits in rows 8-9
    assert not game.can_continue


def test_continue_stops_as_soon_as_a_piece_fits():
    game = blockyard.new_game("eu-classic", seed=1, board=stuck_board(),
                              tray=["#####", None, None])
    game.continue_game()
    emptied = [r for r, line in enumerate(game.board_text().splitlines()) if line == EMPTY]
    assert emptied == [8]


def test_continue_is_offered_once_per_game():
    game = blockyard.new_game("eu-classic", seed=1, board=stuck_board(),
                              tray=["###/###/###", None, None])
    game.continue_game()
    assert game.continues_used == 1
    # rows 1, 4, 8, 9 emptied are not three in a row: still stuck, no second continue
    assert game.over_reason == "stuck"
    assert not game.can_continue
    with pytest.raises(IllegalMove):
        game.continue_game()


def test_continue_is_not_offered_in_zen_or_daily_nor_before_the_game_is_over():
    assert not blockyard.new_game("eu-classic", seed=1).can_continue
    daily = blockyard.load_ruleset("eu-daily")
    zen = blockyard.load_ruleset("eu-zen")
    assert "continue" not in dict(daily.plugin_objects)
    assert "continue" not in dict(zen.plugin_objects)
