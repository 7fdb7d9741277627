"""The game screens' structure (a shared base of Arcade sections, a session instead
of the app, screens found by table) and the layout findings: the tray beside the
board in landscape, a message line of its own, the replay bar beside nothing,
tap-to-place ghosts at the board's edge, a readable "+N"."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import arcade
import pytest

import blockyard.frontend as frontend
from blockyard.frontend import theme
from blockyard.frontend.game_screen import GameScreen, ScreenSection
from blockyard.frontend.layout import Rect, game_layout
from blockyard.frontend.pages import SettingsView, StatsView
from blockyard.frontend.replay_view import BAR_HEIGHT, ReplayView
from blockyard.frontend.screens import game_view
from blockyard.frontend.session import Session
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView, label_colours

SIZES = [(480, 640), (720, 960), (1280, 720)]
VIEW_MODULES = ["game_screen", "tray_view", "tray_sections", "tray_input", "sudoku_view",
                "replay_view", "summary_view", "screens", "session", "menus", "pages", "launcher",
                "local_screens"]
EMPTY = ".........."


def _rect(section: arcade.Section) -> Rect:
    return Rect(section.left, section.bottom, section.width, section.height)


# -- structure ---------------------------------------------------------------------------------

def test_tray_and_falling_screens_share_the_game_screen_base():
    assert issubclass(TrayGameView, GameScreen) and issubclass(SudokuView, GameScreen)
    assert game_view("tray") is TrayGameView and game_view("falling") is SudokuView
    with pytest.raises(ValueError, match=r"no game screen for games of kind 'nope': unknown "
                       r"mode 'nope' \(registered modes: falling, tray\)"):
        game_view("nope")


def test_a_mode_names_its_screen_by_dotted_path(monkeypatch):
    """The screen comes from the mode's record; a path that does not import, or
    names no game screen, is a clear error."""
    import dataclasses

    from blockyard import registry
    from blockyard.plugins.modes import TRAY

    modes = registry.registry().modes
    monkeypatch.setitem(modes, "odd", dataclasses.replace(
        TRAY, name="odd", view="blockyard.frontend.sudoku_view:SudokuView"))
    assert game_view("odd") is SudokuView
    monkeypatch.setitem(modes, "odd", dataclasses.replace(
        TRAY, name="odd", view="blockyard.frontend.nowhere:View"))
    with pytest.raises(ValueError, match=re.escape(
            "mode 'odd': its screen 'blockyard.frontend.nowhere:View' cannot be imported")):
        game_view("odd")
    monkeypatch.setitem(modes, "odd", dataclasses.replace(
        TRAY, name="odd", view="blockyard.frontend.layout:Rect"))
    with pytest.raises(ValueError, match="is not a GameScreen"):
        game_view("odd")


@pytest.mark.parametrize("cls", [TrayGameView, SudokuView, ReplayView, SummaryView,
                                 SettingsView, StatsView])
def test_screens_take_a_session_not_the_app(cls):
    first = list(inspect.signature(cls.__init__).parameters)[1]
    assert first == "session"
    assert inspect.signature(cls.__init__).parameters[first].annotation in ("Session", Session)


@pytest.mark.parametrize("module", VIEW_MODULES)
def test_no_screen_module_imports_the_app(module):
    path = Path(frontend.__file__).parent / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.module not in ("app", "blockyard.frontend.app"), (module, node.lineno)
            assert "BlockyardApp" not in {alias.name for alias in node.names}
    assert "BlockyardApp" not in path.read_text(encoding="utf-8").replace(
        "blockyard.frontend.app.BlockyardApp.session", "")


def test_a_tray_screen_is_made_of_sections(ui):
    ui.app.start_game("eu-classic", seed=2)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, TrayGameView) and isinstance(view.session, Session)
    sections = view.section_manager.sections
    assert all(isinstance(s, arcade.Section) and isinstance(s, ScreenSection)
               for s in sections)
    assert {s.name for s in sections} == {"hud", "message", "dialog", "board", "tray"}
    assert view.dialog.modal and not view.dialog.enabled
    assert _rect(view.board_section) == view.layout.board
    assert _rect(view.tray_section) == view.layout.tray
    assert _rect(view.hud) == view.layout.hud
    # the pause menu is the modal dialog section: it takes the keys while open
    ui.key("Escape")
    assert view.paused and view.dialog.enabled
    ui.key("1")
    assert view.input.selected is None  # not the board's while paused
    ui.key("Escape")
    assert not view.paused and not view.dialog.enabled
    ui.key("1")
    assert view.input.selected == 0


def test_a_sudoku_screen_is_made_of_sections(ui):
    ui.app.start_game("sudoku-bloxx", seed=2)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SudokuView)
    assert {s.name for s in view.section_manager.sections} == \
        {"hud", "message", "dialog", "board", "controls"}
    # the next stones are in the HUD, drawn
    from blockyard.frontend.sudoku_view import stone_colour

    for sprite, stone in zip(view.upcoming, view.game.upcoming, strict=False):
        x = sprite.center_x - sprite.width * 0.3  # beside the digit
        assert all(abs(a - b) <= 6 for a, b in zip(ui.pixel(x, sprite.center_y),
                                                   stone_colour(stone)[:3], strict=True))
    x, y = view.menu_button.rect.center_x, view.menu_button.rect.center_y
    ui.click(x, y)
    assert view.paused and view.dialog.enabled
    ui.key("Escape")
    assert not view.paused


# -- layout findings ---------------------------------------------------------------------------

@pytest.mark.parametrize("width, height", SIZES)
@pytest.mark.parametrize("rows, cols", [(10, 10), (8, 8), (9, 9)])
def test_the_message_line_covers_neither_board_nor_tray_nor_hud(width, height, rows, cols):
    layout = game_layout(width, height, rows, cols)
    for rect in (layout.board, layout.tray, layout.hud, *layout.slots):
        assert not layout.message.overlaps(rect)
    assert layout.message.height >= 22 and layout.message.width >= 200


@pytest.mark.parametrize("rows, cols", [(10, 10), (8, 8), (9, 9)])
def test_landscape_tray_cells_are_at_least_half_a_board_cell(rows, cols):
    for width, height in [(1280, 720), (1920, 1080), (1000, 700)]:
        layout = game_layout(width, height, rows, cols)
        assert not layout.portrait
        assert layout.tray_cell >= layout.cell / 2 - 1e-6, (width, height)
        assert layout.tray.left >= layout.board.right  # beside the board
    layout = game_layout(1280, 720, rows, cols)
    assert layout.cell >= 60  # the board stays large


@pytest.mark.parametrize("width, height", SIZES)
def test_the_three_sizes_keep_tray_cells_large(width, height):
    layout = game_layout(width, height, 10, 10)
    assert layout.tray_cell >= layout.cell / 2 - 1e-6
    for slot in layout.slots:  # a 5-long piece fits its slot
        assert 5 * layout.tray_cell <= min(slot.width, slot.height)


@pytest.mark.parametrize("width, height", SIZES)
def test_the_replay_bar_covers_nothing(ui, width, height):
    ui.resize(width, height)
    game = ui.app.start_game("eu-classic", seed=4)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    ui.key("w")
    replay = ui.view
    assert isinstance(replay, ReplayView)
    layout = replay.inner.layout
    assert layout.bottom == BAR_HEIGHT
    bar = Rect(0, 0, width, BAR_HEIGHT)
    for rect in (layout.board, layout.tray, layout.hud, layout.message, *layout.slots):
        assert not rect.overlaps(bar) and rect.top <= height
    for button in replay.buttons:
        assert button.rect.top <= BAR_HEIGHT and button.rect.left >= 0 \
            and button.rect.right <= width
        for rect in (layout.board, *layout.slots):
            assert not button.rect.overlaps(rect)
    assert game.over


def test_the_sudoku_replay_bar_covers_nothing(ui):
    game = ui.app.start_game("sudoku-bloxx", seed=4)
    ui.key("space", "space")
    game.end_round()
    ui.pump(60, dt=0.05)
    ui.key("w")
    replay = ui.view
    assert isinstance(replay, ReplayView)
    inner = replay.inner
    assert inner.board.bottom >= BAR_HEIGHT
    for button in replay.buttons:
        assert not button.rect.overlaps(inner.board)


# -- tap-to-place at the board's edge ----------------------------------------------------------

def test_tap_to_place_shows_the_ghost_moved_onto_the_board_and_places_there(ui):
    view, game = ui.show_game(tray=["###/###/###", None, None])
    rect = view.layout.slots[0]
    ui.click(rect.center_x, rect.center_y)
    assert view.input.selected == 0
    x, y = view.layout.cell_center(9, 9)  # the corner: a 3×3 centred there hangs off
    ui.move(x, y)
    assert view.input.anchor == (7, 7)
    assert len(view.board_section.ghost) == 9
    colour = theme.piece_colour(game.tray[0].colour)
    ghost = (*colour[:3], theme.GHOST_ALPHA)
    assert all(tuple(s.color) == ghost for s in view.board_section.ghost)
    image = ui.screenshot()
    px = image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]
    expected = [round(c * theme.GHOST_ALPHA / 255 + e * (1 - theme.GHOST_ALPHA / 255))
                for c, e in zip(colour[:3], theme.EMPTY_CELL[:3], strict=True)]
    assert all(abs(a - b) <= 8 for a, b in zip(px, expected, strict=True))
    ui.click(x, y)
    assert game.board_text().splitlines()[7:10] == [".......###"] * 3


def test_tap_to_place_where_it_does_not_fit_shows_the_no_fit_ghost(ui):
    board = "\n".join([EMPTY] * 9 + [".........#"])
    view, game = ui.show_game(board=board, tray=["###/###/###", None, None])
    rect = view.layout.slots[0]
    ui.click(rect.center_x, rect.center_y)
    x, y = view.layout.cell_center(9, 9)
    ui.move(x, y)
    assert view.input.anchor is None and len(view.board_section.ghost) == 9
    assert all(tuple(s.color) == theme.NO_FIT for s in view.board_section.ghost)
    ui.click(x, y)
    assert game.moves == 0 and "does not fit" in view.message
    assert "shake" in view.effects


# -- the message line and the floating points ------------------------------------------------

def test_a_message_is_drawn_in_its_own_line_not_over_the_tray(ui):
    board = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)
    view, _game = ui.show_game(board=board, tray=["##", "#", None])
    ui.key("1")
    assert "fits nowhere" in view.message
    text = view.message_line.text
    line = view.layout.message
    left = text.x - text.content_width / 2
    bottom = text.y - text.content_height / 2
    drawn = Rect(left, bottom, text.content_width, text.content_height)
    assert line.left - 1 <= drawn.left and drawn.right <= line.right + 1
    for rect in (view.layout.tray, *view.layout.slots, view.layout.board):
        assert not drawn.overlaps(rect)


@pytest.mark.parametrize("name", theme.THEME_NAMES)
@pytest.mark.parametrize("palette", list(theme.PALETTES))
def test_the_floating_points_are_readable_over_every_piece_colour(name, palette):
    try:
        theme.apply(name, palette)
        text, backing = label_colours()
        assert backing[3] == 255  # opaque: whatever cell is under it does not show
        # the text is drawn only on its backing, so over any piece colour what is
        # read is the text against the backing
        assert theme.contrast(text, backing) >= 4.5
        # (without it the text would be faint over some piece colour: the finding)
        assert min(theme.contrast(text, colour) for colour in theme.PALETTE) < 4.5
    finally:
        theme.apply()


def test_the_floating_points_are_drawn_on_their_backing(ui):
    board = "\n".join([EMPTY] * 9 + ["#########."])
    view, game = ui.show_game(board=board, tray=["#", None, None])
    ui.key("1")
    view.input.key_anchor = (9, 9)
    ui.key("Return")
    assert game.moves == 1 and game.score > 100  # the row (and the board) cleared
    label = view.board_section.labels[0]
    left, right, bottom, top = label.backing()
    image = ui.screenshot()
    _text, backing = label_colours()
    alpha = 1 - label.age / label.life
    # a pixel of the backing beside the text, over the board
    x, y = left + 2, (bottom + top) / 2
    px = image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]
    assert all(abs(p - b) <= 40 * (1 - alpha) + 6 for p, b in zip(px, backing[:3],
                                                                   strict=True))
    assert right - left > label.text.content_width
