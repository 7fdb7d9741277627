"""A piece family's look (``[pieces.NAME] look``) and a plugin's affected cells
in the window: the bomb of MODDING.md's worked example is told from a plain dot
in the tray, the hand, the ghost and on the board, in every theme and palette,
and its preview glows the whole blast area."""

from __future__ import annotations

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.frontend import theme
from blockyard.results import Clearing

RULES = """
[ruleset]
id = "looks"
name = "Looks"
family = "test"
description = "a bomb and a dot of the same shape"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#"]
[pieces.crate]
shapes = ["##/##"]
look = { mark = "diamond" }
[pieces.bomb]
shapes = ["#"]
look = { mark = "burst", outline = true }
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
[plugins.look-bomb]
"""

BOARD = """
......
.##...
.#.#..
.###..
......
......
"""


class LookBomb:
    """A placed bomb empties the 3×3 square around it."""

    def __init__(self, params):
        pass

    def blast(self, game, row, col):
        return sum(1 << (r * game.cols + c) for r in range(row - 1, row + 2)
                   for c in range(col - 1, col + 2) if 0 <= r < game.rows and 0 <= c < game.cols)

    @hookimpl
    def blockyard_affected_cells(self, game, piece, row, col):
        return self.blast(game, row, col) if piece.family == "bomb" else None

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board, placed, piece, row, col):
        clearing = yield
        if piece is None or piece.family != "bomb":
            return clearing
        blast = self.blast(game, row, col)
        return Clearing(clearing.regions, clearing.board.empty(blast), clearing.row_drops,
                        cleared=blast & board.bits)


@pytest.fixture
def looks():
    """The ruleset, in the player's rulesets folder (replays find it by id)."""
    from blockyard.paths import user_rulesets_dir

    blockyard.register_plugin("look-bomb", LookBomb)
    folder = user_rulesets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "looks.toml").write_text(RULES, encoding="utf-8")
    yield blockyard.load_ruleset("looks")
    blockyard.unregister_plugin("look-bomb")


def near(actual, expected, tolerance=10):
    return all(abs(a - e) <= tolerance for a, e in zip(actual[:3], expected[:3], strict=True))


def tinted(ink, colour):
    return tuple(round(i * c / 255) for i, c in zip(ink[:3], colour[:3], strict=True))


def blend(top, bottom, alpha):
    return tuple(round(t * alpha / 255 + b * (1 - alpha / 255)) for t, b in
                 zip(top[:3], bottom[:3], strict=True))


def show(ui, looks, tray):
    game = blockyard.new_game(looks, seed=1, board=BOARD, tray=tray)
    ui.app.show_game(game)
    ui.pump(3)
    return ui.view, game


def pixel(ui, image, x, y):
    return image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]


@pytest.mark.parametrize("theme_name, palette, patterns", [
    ("dark", "standard", False), ("light", "standard", False),
    ("high-contrast", "colour-blind", True)])
def test_the_bomb_is_marked_in_the_tray_and_a_dot_is_not(ui, looks, theme_name, palette,
                                                        patterns):
    theme.apply(theme_name, palette, patterns)
    view, game = show(ui, looks, ["bomb:#", "dot:#", None])
    image = ui.screenshot()
    bomb, dot = game.tray[0], game.tray[1]
    bomb_colour = view.colour(bomb.colour)
    for slot in (0, 1):
        rect = view.layout.slots[slot]
        centre = pixel(ui, image, rect.center_x, rect.center_y)
        if slot == 0:  # the burst's ink in the middle of the tile
            assert near(centre, tinted(theme.MARK_INK, bomb_colour)), centre
        else:  # the dot: its colour (or its colour-blind pattern), no burst
            assert not near(centre, tinted(theme.MARK_INK, view.colour(dot.colour)), 30) \
                or patterns
    # the outline: the tile's edge is dark for the bomb
    rect = view.layout.slots[0]
    edge = pixel(ui, image, rect.center_x - view.layout.tray_cell * 0.46, rect.center_y + 4)
    assert near(edge, tinted(theme.MARK_INK, bomb_colour), 24), edge


def test_the_ghost_shows_the_look_and_the_glow_covers_the_blast_area(ui, looks):
    from blockyard.frontend.tray_input import Target

    view, game = show(ui, looks, ["bomb:#", "dot:#", None])
    view.board_section.show_target(Target(0, 2, 2, game.preview(0, 2, 2)))
    image = ui.screenshot()
    cell = view.layout.cell

    def at(row, col, fx=0.5):
        x, y = view.layout.cell_center(row, col)
        return pixel(ui, image, x + (fx - 0.5) * cell, y)

    glowing_empty = blend(theme.GLOW, theme.EMPTY_CELL, theme.GLOW[3])
    assert near(at(1, 3), glowing_empty)      # an empty cell of the blast area glows
    assert near(at(2, 4), theme.EMPTY_CELL)   # outside it: no glow
    assert near(at(1, 1), blend(theme.GLOW, theme.NEUTRAL, theme.GLOW[3]))  # filled, cleared
    # the ghost carries the mark: darker in its middle than beside it
    middle, beside = at(2, 2), at(2, 2, fx=0.22)
    assert sum(middle) < sum(beside) - 60, (middle, beside)


def test_a_placed_piece_keeps_its_look_on_the_board(ui, looks):
    view, game = show(ui, looks, ["##/##", "dot:#", None])
    game.place(0, 4, 4)
    view.refresh()
    image = ui.screenshot()
    crate = view.colour(game.board[4][4])
    x, y = view.layout.cell_center(4, 4)
    assert near(pixel(ui, image, x, y), tinted(theme.MARK_INK, crate), 14)
    game.place(1, 0, 0)  # the dot: plain
    view.refresh()
    image = ui.screenshot()
    x, y = view.layout.cell_center(0, 0)
    assert not near(pixel(ui, image, x, y), tinted(theme.MARK_INK, view.colour(1)), 40)


def test_a_replay_draws_the_looks_too(ui, looks):
    from blockyard.frontend.replay_view import ReplayView
    from blockyard.replays import Replay, replay_data

    game = blockyard.new_game(looks, seed=1, board=BOARD, tray=["##/##", "bomb:#", "dot:#"])
    game.place(0, 4, 4)
    game.end_round()
    assert ui.app.watch_replay(Replay(None, replay_data(game))) is None
    replay = ui.view
    assert isinstance(replay, ReplayView)
    ui.key("4")
    for _ in range(100):
        if replay.finished:
            break
        ui.pump(1, dt=0.1)
    assert replay.finished and replay.game.board[4][4] == game.board[4][4]
    inner = replay.inner
    inner.refresh()
    image = ui.screenshot()
    x, y = inner.layout.cell_center(4, 4)
    assert near(pixel(ui, image, x, y), tinted(theme.MARK_INK, inner.colour(game.board[4][4])),
                14)
    bomb_slot = inner.layout.slots[1]  # the bomb, never placed, in the replay's tray
    assert near(pixel(ui, image, bomb_slot.center_x, bomb_slot.center_y),
                tinted(theme.MARK_INK, inner.colour(game.tray[1].colour)))
