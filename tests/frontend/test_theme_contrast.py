"""Issue 25, item 9, on screen in every theme (real input on Xvfb, pixels read back):
the "would clear" glow stands out from every cell it is not on — Woodoku's 3×3
block shading included — and Sudoku Bloxx's symbol stone ✦ is readable."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.sudoku_view import SudokuView

EMPTY9 = "........."
# ΔE (CIE 1976) at which two flat colours are told apart at a glance; the light
# theme's old glow (a dark tint) was 15 from the filled cells it darkened toward
APART = 20.0


def lab(colour):
    def linear(value):
        u = value / 255
        return ((u + 0.055) / 1.055) ** 2.4 if u > 0.04045 else u / 12.92

    r, g, b = (linear(v) for v in colour[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t):
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a, b):
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b), strict=True)) ** 0.5


def use_theme(ui, name):
    ui.app.settings.theme = name
    ui.app.apply_settings()


@pytest.mark.parametrize("name", theme.THEME_NAMES)
def test_the_would_clear_glow_stands_apart_from_the_block_shading(ui, name):
    use_theme(ui, name)
    # Woodoku: row 0 full but for its last cell; row 1 has two filled cells; the
    # 3×3 blocks are shaded in turn
    board = "\n".join(["########.", "#.#......"] + [EMPTY9] * 7)
    view, game = ui.show_game("woodoku", board=board, tray=["#", None, None])
    ui.click(view.layout.slots[0].center_x, view.layout.slots[0].center_y)  # tap the piece
    ui.move(*view.layout.cell_center(0, 8))  # the ghost follows the pointer
    assert view.input.anchor == (0, 8) and view.input.preview.cleared_rows == (0,)
    image = ui.screenshot()

    def at(row, col):
        x, y = view.layout.cell_center(row, col)
        return image.getpixel((round(x), ui.window.height - 1 - round(y)))[:3]

    glowing = [at(0, col) for col in range(8)]
    plain = {"filled": at(1, 0), "empty": at(1, 1), "empty, shaded block": at(1, 4),
             "empty, next block": at(2, 7)}
    assert plain["empty"] != plain["empty, shaded block"]  # the shading is on screen
    for cell in glowing:
        for kind, colour in plain.items():
            assert delta_e(cell, colour) >= APART, (name, kind, cell, colour)
    ui.click(*view.layout.cell_center(0, 8))
    assert game.moves == 1 and game.board_text().splitlines()[0] == EMPTY9


@pytest.mark.parametrize("name", theme.THEME_NAMES)
def test_the_symbol_stones_sign_is_readable(ui, name):
    use_theme(ui, name)
    game = blockyard.new_game("sudoku-bloxx", seed=1, stream="S 3")
    ui.app.show_game(game)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SudokuView)
    ui.key("space")  # the symbol stone lands (real key)
    index = next(i for i, d in enumerate(view.board_section.digits) if d.text == "✦")
    cell = view.board_section.cells[index]
    assert cell.color[:3] == theme.SYMBOL_STONE[:3]
    assert theme.contrast(theme.SYMBOL_INK, theme.SYMBOL_STONE) >= 7.0, name
    image = ui.screenshot()
    size = round(cell.width * 0.8)
    left = round(cell.center_x - size / 2)
    top = ui.window.height - 1 - round(cell.center_y + size / 2)
    pixels = list(image.crop((left, top, left + size, top + size)).convert("RGB").getdata())
    # the sign's ink is drawn, and the lightest of it stands out from the stone
    # as text does (WCAG's 4.5:1)
    ink = max(pixels, key=lambda p: abs(theme.luminance(p) - theme.luminance(cell.color)))
    assert theme.contrast(ink, theme.SYMBOL_STONE) >= 4.5, (name, ink)
    share = sum(theme.contrast(p, theme.SYMBOL_STONE) >= 4.5 for p in pixels) / len(pixels)
    assert share > 0.02, (name, share)
