"""Every text fits its box at the three reference window sizes, buttons come
from the rules' actions (a plugin's own included), and body text is readable
(contrast computed from the theme)."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.actions import ActionSpec
from blockyard.frontend import theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.tray_view import TrayGameView

SIZES = [(480, 640), (720, 960), (1280, 720)]


def fits(text, rect, slack=1.0):
    return text.content_width <= rect.width + slack and text.content_height <= rect.height + slack


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_texts_fit_their_boxes(ui, size):
    ui.resize(*size)
    width, height = size
    for ruleset in ("tiered", "arcadeforge-rotate", "eu-zen"):
        game = blockyard.new_game(ruleset, seed=2)
        ui.app.show_game(game)
        ui.pump(2)
        view = ui.view
        assert isinstance(view, TrayGameView)
        view.on_resize(width, height)
        view.input.armed = "swap" if game.has_action("swap") else None
        view.refresh()
        for button in view.hud_buttons:
            assert fits(button.text, button.rect), (ruleset, button.label, button.rect)
            assert button.rect.left >= 0 and button.rect.right <= width
        title = view.title_text
        left = title.x - (title.content_width / 2 if title.anchor_x == "center" else 0)
        assert left >= 0 and left + title.content_width <= width, (ruleset, title.text)
        assert view.score_text.text == ("" if ruleset == "eu-zen" else "0")
    sudoku = blockyard.new_game("sudoku-bloxx", seed=2)
    ui.app.show_game(sudoku)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SudokuView)
    for button in (view.menu_button, *view.controls_section.buttons.values()):
        assert fits(button.text, button.rect)
        assert button.rect.left >= 0 and button.rect.right <= width
    assert view.controls_section.help_text.content_width <= width
    ui.app.show_launcher()
    ui.pump(2)
    launcher = ui.view
    assert isinstance(launcher, LauncherView)
    assert launcher.hint.content_width <= width or launcher.hint.font_size <= 8
    for entry in launcher.entries:
        title = entry.texts[0]
        assert title.x + title.content_width <= entry.rect.right + 1 or title.font_size <= 8


def test_body_text_contrast_is_at_least_4_5_to_1():
    pairs = [(theme.TEXT, theme.BACKGROUND), (theme.TEXT, theme.PANEL),
             (theme.TEXT, theme.PANEL_HOVER), (theme.MUTED, theme.BACKGROUND),
             (theme.ACCENT, theme.BACKGROUND), (theme.TEXT, theme.BOARD_BG)]
    for fg, bg in pairs:
        assert theme.contrast(fg, bg) >= 4.5, (fg, bg, theme.contrast(fg, bg))


class Bomb:
    """A mod's own action: empties the board's first row, three times a game."""

    name = "bomb"

    def __init__(self, params):
        pass

    def left(self, game):
        return 3 - int(game.state.get(self.name, {}).get("used", 0))

    def perform(self, game):
        game.state[self.name] = {"used": 3 - self.left(game) + 1}

    @blockyard.hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("bomb", "Bomb", self.perform, key="b",
                           available=lambda game: self.left(game) > 0,
                           uses_left=self.left, help="Blow up nothing, loudly.")]


def test_an_action_from_a_plugin_gets_a_button_and_a_key(ui, register_plugin, rule_file):
    register_plugin("bomb", Bomb)
    path = rule_file("""
        [ruleset]
        extends = "eu-classic"
        id = "bomb-classic"
        name = "Bombs"
        [plugins.bomb]
    """)
    game = blockyard.new_game(str(path), seed=1)
    ui.app.show_game(game)
    ui.pump(2)
    view = ui.view
    button = view.action_buttons["bomb"]
    assert button.label == "Bomb (3)" and button.enabled
    ui.click(button.rect.center_x, button.rect.center_y)
    assert button.label == "Bomb?"  # asks first, like every action
    ui.click(button.rect.center_x, button.rect.center_y)
    assert game.log[-1] == ["bomb"] and button.label == "Bomb (2)"
    ui.key("b", "b")
    assert game.log[-1] == ["bomb"] and button.label == "Bomb (1)"
    ui.key("b", "b")
    assert button.label == "Bomb (0)" and not button.enabled
    x, y = button.rect.left + 4, button.rect.bottom + 8
    assert ui.pixel(x, y) == theme.DISABLED[:3]


def test_a_region_kind_from_a_plugin_glows(ui, register_plugin, rule_file):
    from blockyard.geometry import Region

    class Diagonal:
        name = "diagonal"

        def __init__(self, params):
            pass

        @blockyard.hookimpl
        def blockyard_regions(self, ruleset, geometry):
            n = geometry.rows
            return [Region("diag", 0, sum(1 << (i * n + i) for i in range(n)))]

    register_plugin("diagonal", Diagonal)
    path = rule_file("""
        [ruleset]
        extends = "eu-classic"
        id = "diag-classic"
        name = "Diagonal"
        [plugins.diagonal]
    """)
    rows = [["." for _ in range(10)] for _ in range(10)]
    for i in range(1, 10):
        rows[i][i] = "#"
    board = "\n".join("".join(r) for r in rows)
    game = blockyard.new_game(str(path), seed=1, board=board, tray=["#", None, None])
    ui.app.show_game(game)
    ui.pump(2)
    view = ui.view
    ui.key("1")
    view.input.key_anchor = (0, 0)
    view.input.aim()
    assert view.input.preview.regions == (("diag", 0),)
    assert len(view.board_section.glow) == 10
    ui.key("Return")
    assert game.board_text().count("#") == 0
    assert len(view.board_section.flash) == 10 and view.board_section.flash_age < 0.1


def test_launcher_scrolling_rebuilds_nothing(ui):
    # what a notch costs is measured by benchmarks/frame.py, not asserted here
    ui.app.show_launcher()
    ui.pump(2)
    view = ui.view
    texts = [id(t) for e in view.entries for t in e.texts]
    assert view.more.text.startswith("▼")
    for _ in range(10):
        view.on_mouse_scroll(100, 100, 0, -1)
    view.on_draw()
    assert [id(t) for e in view.entries for t in e.texts] == texts
    assert view.scroll > 0
