"""docs/rules.md §4 (family tiered): pieces, scoring and combo grace, dealing, swaps, summary."""

from __future__ import annotations

from collections import Counter

import pytest

import blockyard
from blockyard import IllegalMove

EMPTY = ".........."

TIERED_PIECES = {
    "1x1": ["#"], "bar-2": ["##", "#/#"], "bar-3": ["###", "#/#/#"],
    "bar-4": ["####", "#/#/#/#"], "bar-5": ["#####", "#/#/#/#/#"], "square-2": ["##/##"],
    "square-3": ["###/###/###"], "small-L": ["##/#.", "##/.#", ".#/##", "#./##"],
    "big-L": ["###/#../#..", "###/..#/..#", "..#/..#/###", "#../#../###"],
}
FAMILIES = list(TIERED_PIECES)
TIER_WEIGHTS = [
    [3, 4, 4, 2, 1, 4, 0.5, 4, 1],
    [2, 3, 3, 3, 2, 3, 1.5, 3, 2.5],
    [1, 2, 3, 3, 3, 3, 2, 2, 3.5],
]


def bottom(*lines: str) -> str:
    return "\n".join([EMPTY] * (10 - len(lines)) + list(lines))


def dealing(ruleset):
    return dict(ruleset.plugin_objects)["weighted-dealing"]


def test_4_1_the_19_pieces():
    ruleset = blockyard.load_ruleset("tiered")
    assert (ruleset.rows, ruleset.cols, len(ruleset.pieces)) == (10, 10, 19)
    assert {f.name: [p.cells for p in f.pieces] for f in ruleset.families} == {
        name: [blockyard.Piece.from_art(a).cells for a in arts]
        for name, arts in TIERED_PIECES.items()}


# -- 4.2 scoring -----------------------------------------------------------------------

def test_4_2_worked_example_13_64_then_two_set_up_moves_then_31():
    board = "\n".join(["#........."] + [EMPTY] * 2 + ["########.."] * 2 + [EMPTY] * 3
                      + ["#######..."] + ["#########."])
    game = blockyard.new_game("tiered", seed=1, board=board, tray=["###", "##/##", "#"])
    first = game.place(0, 8, 7)            # first clear, 1 line, 3 cells: 3 + 10 = 13
    assert (first.points, first.combo, first.lines) == (13, 1, 1)
    second = game.place(1, 3, 8)           # next move, 2 lines, 4 cells: 4 + 30 × 2 = 64
    assert (second.points, second.combo, second.lines) == (64, 2, 2)
    assert game.place(2, 0, 5).points == 1  # a set-up move: c stays 2 (grace)
    assert game.combo == 2
    game.set_tray([blockyard.Piece.from_art("#")] * 2 + [None])
    assert game.place(0, 1, 5).points == 1  # a second set-up move
    assert game.combo == 2
    last = game.place(1, 9, 9)             # a 1-cell piece clears 1 line: c = 3
    assert (last.points, last.combo) == (1 + 10 * 3, 3)


def test_4_2_line_points_are_10_30_60_100_150_210():
    scoring = dict(blockyard.load_ruleset("tiered").plugin_objects)["line-scoring"]
    assert [scoring.line_points(n) for n in range(1, 7)] == [10, 30, 60, 100, 150, 210]
    assert [scoring.multiplier(c) for c in range(1, 8)] == [1, 2, 3, 4, 5, 5, 5]


def test_4_2_the_third_move_in_a_row_without_a_clear_resets_the_combo():
    board = bottom("#########.")
    game = blockyard.new_game("tiered", seed=1, board=board, tray=["#", "#", "#"])
    game.place(0, 9, 9)
    assert game.combo == 1
    game.place(1, 0, 0)
    game.place(2, 0, 2)
    assert game.combo == 1  # two misses: grace
    game.set_tray([blockyard.Piece.from_art("#")] * 3)
    game.place(0, 0, 4)
    assert game.combo == 0  # the third miss


def test_4_2_perfect_clear_adds_300_not_multiplied_and_a_swap():
    board = "\n".join([".........#"] * 9 + ["#########."])
    game = blockyard.new_game("tiered", seed=1, board=board, tray=["#", None, None])
    game.combo = 3
    before = game.swaps_left
    result = game.place(0, 9, 9)  # completes row 9 and column 9: 2 lines, c = 4
    assert result.perfect_clear
    assert result.points == 1 + 30 * 4 + 300
    assert game.swaps_left == before + 1 == 2


def test_4_4_swaps_start_at_1_and_at_most_3_are_held():
    game = blockyard.new_game("tiered", seed=1)
    assert game.swaps_left == 1
    for _ in range(4):
        g = blockyard.new_game("tiered", seed=1, board=bottom("#########."), tray=["#"])
        g.state["swaps"] = {"left": 3}
        g.place(0, 9, 9)
        assert g.swaps_left == 3


# -- 4.3 dealing -----------------------------------------------------------------------

def test_4_3_tier_weights_are_the_published_ones():
    ruleset = blockyard.load_ruleset("tiered")
    plugin = dealing(ruleset)
    assert [start for start, _ in plugin.tiers] == [0, 300, 1500]
    for (_, weights), expected in zip(plugin.tiers, TIER_WEIGHTS, strict=True):
        assert [weights[name] for name in FAMILIES] == expected


@pytest.mark.parametrize("score, tier", [(0, 0), (299, 0), (300, 1), (1499, 1), (1500, 2),
                                         (99999, 2)])
def test_4_3_the_tier_follows_the_score_of_this_round(score, tier):
    assert dealing(blockyard.load_ruleset("tiered")).tier_of(score) == tier


@pytest.mark.parametrize("tier, score", [(0, 0), (1, 300), (2, 1500)])
def test_4_3_family_frequencies_per_tier(tier, score):
    ruleset = blockyard.load_ruleset("tiered")
    plugin = dealing(ruleset)
    game = blockyard.new_game(ruleset, seed=5)
    game.score = score
    counts: Counter[str] = Counter()
    sets = 6000
    for index in range(sets):
        for piece in plugin.blockyard_deal(game, index):
            counts[piece.family] += 1
    total = sum(TIER_WEIGHTS[tier])
    for name, weight in zip(FAMILIES, TIER_WEIGHTS[tier], strict=True):
        assert counts[name] / (3 * sets) == pytest.approx(weight / total, abs=0.01), name


def rules_with(rule_file, weights: str, pieces_extra: str = "") -> str:
    return rule_file(f"""
[ruleset]
extends = "tiered"
id = "tiered-test"
name = "test"
[plugins.weighted-dealing]
tiers = [{{ from_score = 0, weights = {{ {weights} }} }}]
{pieces_extra}
""")


def test_4_3_a_set_never_holds_three_identical_pieces(rule_file):
    path = rules_with(rule_file, "1x1 = 100, bar-2 = 1")
    ruleset = blockyard.load_ruleset(path)
    plugin = dealing(ruleset)
    game = blockyard.new_game(ruleset, seed=3)
    for index in range(500):
        a, b, c = plugin.blockyard_deal(game, index)
        assert not (a == b == c)
    bundled = blockyard.new_game("tiered", seed=3)
    for index in range(2000):
        a, b, c = dealing(bundled.ruleset).blockyard_deal(bundled, index)
        assert not (a == b == c)


def test_4_3_at_least_one_piece_fits():
    # only single cells are free: every set must contain the 1x1
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)
    for seed in range(30):
        game = blockyard.new_game("tiered", seed=seed, board=board)
        assert any(p.size == 1 for p in game.tray)
        assert not game.over


def test_4_3_after_10_attempts_the_third_piece_is_the_largest_that_fits(rule_file):
    # only square-3 is ever drawn and it never fits: every attempt fails
    path = rules_with(rule_file, "square-3 = 1")
    # isolated holes, and five free cells in row 9: 1x1 … bar-5 fit, nothing taller
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 4 + ["#######.##", "##.....###"])
    for seed in range(5):
        game = blockyard.new_game(path, seed=seed, board=board)
        assert [p.id for p in game.tray] == ["square-3", "square-3", "bar-5-1"]


def test_4_3_the_fallback_never_makes_three_identical_pieces(rule_file):
    path = rules_with(rule_file, "1x1 = 1")
    # isolated holes and a 1×2 gap: only 1x1 and the horizontal bar-2 fit
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 4 + ["#######.##", "##..######"])
    game = blockyard.new_game(path, seed=2, board=board)
    assert [p.art for p in game.tray] == ["#", "#", "##"]


def test_4_3_dealing_depends_on_this_rounds_score_only(tmp_path):
    from blockyard.records import RecordStore

    store = RecordStore(tmp_path)
    record = blockyard.new_game("tiered", seed=3)
    record.score = 99999
    record.end_round()
    store.record(record)
    assert store.best(blockyard.load_ruleset("tiered")) == 99999
    assert blockyard.new_game("tiered", seed=8).tray == blockyard.new_game("tiered", seed=8).tray


# -- 4.4 swaps -------------------------------------------------------------------------

def test_4_4_swap_discards_the_tray_and_deals_a_new_set_without_touching_the_combo():
    game = blockyard.new_game("tiered", seed=4, tray=["#", "##", None])
    game.combo = 2
    game.state["line-scoring"] = {"misses": 1}
    before_index = game.set_index
    game.swap()
    assert game.swaps_left == 0 and game.score == 0
    assert game.combo == 2 and game.state["line-scoring"] == {"misses": 1}
    assert game.set_index == before_index + 1
    assert all(p is not None for p in game.tray)
    assert game.log[-1] == ["swap"]
    with pytest.raises(IllegalMove, match="no swap left"):
        game.swap()


def test_4_4_swap_is_not_offered_elsewhere():
    """blockyard_swap has no answer outside tiered."""
    game = blockyard.new_game("eu-classic", seed=1)
    assert game.swaps_left == 0
    with pytest.raises(IllegalMove, match="no swaps"):
        game.swap()


# -- 4.5 end of round ------------------------------------------------------------------

STUCK = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)  # isolated single holes


def test_4_5_not_over_while_a_swap_is_left_then_over_when_none_is():
    game = blockyard.new_game("tiered", seed=1, board=STUCK, tray=["##", None, None])
    assert not game.over and game.swaps_left == 1 and game.legal_moves() == []
    game.swap()  # the new set has a piece that fits (a 1x1)
    assert not game.over and game.legal_moves()
    # no swap left: over as soon as nothing left in the tray fits
    game = blockyard.new_game("tiered", seed=1, board=STUCK, tray=["##", "#", None])
    game.state["swaps"] = {"left": 0}
    game.place(1, 0, 1)
    assert game.over and game.over_reason == "stuck"


def test_4_5_end_round_at_any_time():
    game = blockyard.new_game("tiered", seed=1)
    game.end_round()
    assert game.over_reason == "ended"


def test_4_5_summary_shows_points_lines_combo_failed_pieces_and_a_tip():
    """blockyard_summary_tips chooses the tip from the end position."""
    game = blockyard.new_game("tiered", seed=1, board=STUCK, tray=["###/###/###", "##", None])
    game.state["swaps"] = {"left": 0}
    game.end_round()
    summary = game.summary(record_before=100)
    assert summary.points == 0 and summary.lines_cleared == 0 and summary.best_combo == 0
    assert [p.art for p in summary.failed_pieces] == ["###\n###\n###", "##"]
    assert summary.tip == "Keep a 3×3 corner free for the big pieces."
    assert (summary.record_before, summary.record_after, summary.new_record) == (100, 100, False)


def test_4_5_tips_one_cell_holes_and_unused_swaps():
    holes = blockyard.new_game("tiered", seed=1, board=STUCK, tray=["##", None, None])
    holes.end_round()
    tip = holes.summary().tip
    assert tip.startswith("A swap was still available")  # ended early with a swap left
    holes.state["swaps"] = {"left": 0}
    assert holes.summary().tip.startswith("Avoid one-cell holes")
    open_board = blockyard.new_game("tiered", seed=1, tray=["##", None, None])
    open_board.state["swaps"] = {"left": 0}
    open_board.end_round()
    assert open_board.summary().tip == "Clear lines early and keep the middle open."
