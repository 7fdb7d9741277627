"""Every symbol the window shows is drawn, whatever fonts the system has.

With Liberation Sans installed (Debian's fonts-liberation, the Arial-like font that
comes with Chromium and LibreOffice; it has none of ◀ ▶ ✗ ✦ ★ ✓) the window's font
(``theme.FONT``) is Liberation Sans, and pyglet draws a character its font lacks as
the font's missing-glyph box unless it borrows the glyph from another font. Each
character of ``theme.SYMBOLS``, and any other sign found in the screens, the
catalogues and the rule files, is drawn here in a real window and checked by its
pixels: it has ink, and its ink is not the box the same font draws for a character
no font has. Sudoku Bloxx's ✦ symbol stone and ★ joker are checked on the board,
where a player must tell them apart. Pictures are kept in $BLOCKYARD_SHOTS (a
folder) when it is set.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import arcade
import pyglet
import pytest
from PIL import Image

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.text import Text, fallback_glyphs

ROOT = Path(__file__).resolve().parents[2]
MISSING = "\U0010fffd"  # a private-use character no font has: each font's box
WHITE = (255, 255, 255, 255)
BLACK = (0, 0, 0, 255)
CELL_W, CELL_H, SIZE = 64, 72, 28
ISSUE_SIGNS = "◀▶✗✦★✓"  # the signs the players saw as boxes (issue 51)


def _is_sign(ch: str) -> bool:
    """A character other than letters, digits, marks, spaces, controls, ASCII and
    Devanagari (drawn with the shipped fonts by the text component already)."""
    return (ord(ch) > 0x7F and not 0x0900 <= ord(ch) <= 0x097F
            and unicodedata.category(ch)[0] not in "LMNZC")


def found_signs() -> set[str]:
    """The signs in the window's sources, its catalogues and the rule files."""
    paths = [*(ROOT / "frontend").rglob("*.py"),
             *(ROOT / "frontend" / "locale").rglob("*.po"),
             *(ROOT / "rulesets").glob("*.toml")]
    return {ch for path in paths for ch in path.read_text(encoding="utf-8") if _is_sign(ch)}


def all_signs() -> str:
    return "".join(sorted(set(theme.SYMBOLS) | found_signs()))


class Specimen(arcade.View):
    """Texts on one colour."""

    def __init__(self, texts: list[Text], background: theme.Color = BLACK) -> None:
        super().__init__()
        self.texts = texts
        self.background = background

    def on_draw(self) -> None:
        self.clear(color=self.background)
        for text in self.texts:
            text.draw()


def ink(image: Image.Image, box: tuple[int, int, int, int],
        background: theme.Color = BLACK) -> Image.Image:
    """The ink of ``box`` (left, top, right, bottom in image pixels) cut to its bounds:
    white where a colour channel differs from ``background``'s by more than 100."""
    crop = image.convert("RGB").crop(box)
    mask = Image.new("L", crop.size, 0)
    mask.putdata([255 if max(abs(a - b) for a, b in zip(pixel, background[:3], strict=True))
                  > 100 else 0 for pixel in crop.getdata()])
    bounds = mask.getbbox()
    return mask.crop(bounds) if bounds is not None else Image.new("L", (0, 0))


def looks_like(a: Image.Image, b: Image.Image) -> bool:
    """Whether two inks are the same shape: sizes within a pixel, and at most a
    tenth of the pixels of the common area different."""
    if abs(a.width - b.width) > 1 or abs(a.height - b.height) > 1:
        return False
    width, height = min(a.width, b.width), min(a.height, b.height)
    if width == 0 or height == 0:
        return a.size == b.size
    pa, pb = a.crop((0, 0, width, height)).tobytes(), b.crop((0, 0, width, height)).tobytes()
    return sum(x != y for x, y in zip(pa, pb, strict=True)) <= width * height // 10


def draw_signs(ui, signs: str, font, bold: bool, name: str) -> dict[str, Image.Image]:
    """Each of ``signs`` and :data:`MISSING` drawn at :data:`SIZE` points in its own
    cell (at whole pixels, on the baseline): their inks. The picture is kept as
    ``name`` and the font drawn with."""
    per_row = ui.window.width // CELL_W - 1
    cells = {}
    texts = []
    for i, ch in enumerate(MISSING + signs):
        x = 16 + (i % per_row) * CELL_W
        baseline = ui.window.height - 60 - (i // per_row) * CELL_H
        cells[ch] = (x, baseline)
        texts.append(Text(ch, x, baseline, WHITE, SIZE, font_name=font, bold=bold,
                          anchor_x="left", anchor_y="baseline"))
    ui.window.show_view(Specimen(texts))
    ui.pump(2)
    image = ui.screenshot()
    keep(image, f"{name}-{texts[0].font_name}-{'bold' if bold else 'regular'}")
    height = ui.window.height
    return {ch: ink(image, (x - 8, height - 1 - (y + 48), x + CELL_W - 8, height - 1 - (y - 20)))
            for ch, (x, y) in cells.items()}


def keep(image: Image.Image, name: str) -> None:
    folder = os.environ.get("BLOCKYARD_SHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        image.save(os.path.join(folder, f"{name.replace(' ', '-')}.png"))


@pytest.fixture
def liberation(ui):
    """Liberation Sans is on the machine (scripts/setup.sh test installs fonts-liberation):
    the case that drew boxes is the one tested."""
    assert pyglet.font.have_font("Liberation Sans"), (
        "Liberation Sans is missing: install fonts-liberation (bash scripts/test.sh does)")
    return ui


def test_the_list_holds_the_signs_players_saw_as_boxes():
    assert set(ISSUE_SIGNS) <= set(theme.SYMBOLS)
    assert all(_is_sign(ch) for ch in theme.SYMBOLS)
    assert len(set(theme.SYMBOLS)) == len(theme.SYMBOLS)


def test_every_sign_has_a_glyph_in_a_shipped_font():
    # so it is drawn whatever font the system has (a font without any of them too)
    assert [ch for ch in all_signs() if ord(ch) not in fallback_glyphs()] == []


def test_the_window_font_is_liberation_sans_which_lacks_the_signs(liberation):
    # the machine's case: the window's font is the Arial-like Liberation Sans, and the
    # font itself has not the signs (so they come from the shipped fonts)
    font = pyglet.font.load(theme.FONT, SIZE)
    assert font.name in ("Arial", "Liberation Sans")
    assert all(font.face.get_character_index(ch) == 0 for ch in ISSUE_SIGNS)


@pytest.mark.parametrize("bold", [False, True], ids=["regular", "bold"])
@pytest.mark.parametrize("font", [theme.FONT, "Liberation Sans", "DejaVu Sans"],
                         ids=["window-font", "liberation-sans", "dejavu-sans"])
def test_every_sign_is_drawn_not_a_box(liberation, font, bold):
    signs = all_signs()
    name = "every-sign-" + ("window-font" if font == theme.FONT else "named")
    inks = draw_signs(liberation, signs, font, bold, name)
    box = inks.pop(MISSING)
    assert box.width > 3 and box.height > 10  # the font's missing-glyph box, as drawn
    blank = [ch for ch, drawn in inks.items() if drawn.width == 0]
    boxes = [ch for ch, drawn in inks.items() if looks_like(drawn, box)]
    assert (blank, boxes) == ([], [])


def test_the_issue_signs_drawn_with_fonts_liberation_present(liberation):
    # the six signs in a row, as the window's texts draw them: each differs from the
    # box and from each other (a player tells ✦ from ★ and ◀ from ▶)
    inks = draw_signs(liberation, ISSUE_SIGNS, theme.FONT, False, "issue-signs")
    box = inks.pop(MISSING)
    for ch, drawn in inks.items():
        assert drawn.width > 0 and not looks_like(drawn, box), ch
    for i, a in enumerate(ISSUE_SIGNS):
        for b in ISSUE_SIGNS[i + 1:]:
            assert not looks_like(inks[a], inks[b]), (a, b)
    # ◀ and ▶ mirror each other
    assert looks_like(inks["◀"].transpose(Image.Transpose.FLIP_LEFT_RIGHT), inks["▶"])


def box_of(ui, text: Text, background: theme.Color) -> Image.Image:
    """The missing-glyph box of ``text``'s font, size and weight, drawn in its colour
    on ``background``: its ink."""
    probe = Text(MISSING, 100, 200, text.color, text.font_size, font_name=text.font_name,
                 bold=text.bold, anchor_x="left", anchor_y="baseline")
    ui.window.show_view(Specimen([probe], background))
    ui.pump(2)
    size, height = round(text.font_size * 2), ui.window.height
    return ink(ui.screenshot(), (90, height - 1 - (200 + size), 100 + size,
                                 height - 1 - (200 - size)), background)


def test_symbol_stones_jokers_and_errors_look_different_on_the_board(liberation):
    ui = liberation
    game = blockyard.new_game("sudoku-bloxx", seed=1, stream="5 5",
                              board="\n".join(["........."] * 8 + ["5SJ......"]))
    ui.app.show_game(game)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SudokuView)
    ui.key("Right", "space")  # a second 5 in the bottom row: an error, ✗
    assert game.errors == 1
    ui.pump(2)
    image = ui.screenshot()
    keep(image, "sudoku-symbol-joker-error")
    section = view.board_section
    symbol, joker, errors = section.digits[8 * 9 + 1], section.digits[8 * 9 + 2], view.errors_text
    assert (symbol.text, joker.text, errors.text) == ("✦", "★", "✗")
    height, half = ui.window.height, view.cell * 0.4

    def cell_ink(text: Text) -> Image.Image:
        # SYMBOL_INK on the dark symbol stone
        return ink(image, (round(text.x - half), round(height - 1 - text.y - half),
                           round(text.x + half), round(height - 1 - text.y + half)),
                   theme.SYMBOL_STONE)

    star4, star5 = cell_ink(symbol), cell_ink(joker)
    assert star4.width > 5 and star5.width > 5
    assert not looks_like(star4, star5)  # a player tells a symbol stone from a joker
    # (the box of the text, where the dots of the errors left begin on its right)
    cross = ink(image, (round(errors.left) - 2, height - 1 - round(errors.top) - 2,
                        round(errors.right), height - 1 - round(errors.bottom) + 2),
                theme.BACKGROUND)
    assert cross.width > 5
    # each drawn as its own glyph, not as the missing-glyph box of its font and size
    # in its colours
    for text, drawn, background in ((symbol, star4, theme.SYMBOL_STONE),
                                    (joker, star5, theme.SYMBOL_STONE),
                                    (errors, cross, theme.BACKGROUND)):
        box = box_of(ui, text, background)
        assert box.width > 3 and not looks_like(drawn, box), text.text
