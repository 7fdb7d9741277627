"""The facts a rule needs (issue 36): each cell's family on the board, the
documented layout of ``Board.colours`` and of a starting board's cells, and
per-line detail of a move's completed regions (``TrayFacts.line_details``)."""

from __future__ import annotations

from typing import ClassVar

import blockyard
from blockyard import hookimpl
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
