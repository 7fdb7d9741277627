"""The window in four languages: switching at once (launcher key and button, a game
on screen), the language remembered, Nepali digits, and Devanagari drawn shaped by
the text component (compared pixel for pixel with Pillow's own shaped rendering)."""

from __future__ import annotations

import arcade
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont, features

from blockyard.frontend import i18n, text
from blockyard.frontend.app import BlockyardApp
from blockyard.frontend.persistence import Settings

CONJUNCTS = "क्षेत्र श्रेष्ठ स्कोर"


def test_the_launcher_key_and_button_switch_the_language_at_once(ui):
    ui.app.show_launcher()
    ui.pump(2)
    assert ui.view.language_button.label == "English"
    ui.key("l")
    view = ui.view
    assert i18n.language() == "de"
    assert view.language_button.label == "Deutsch"
    assert view.hint.text.replace("\u00a0", " ").startswith("↑↓ wählen")
    titles = [entry.title for entry in view.entries]
    assert "Block-Puzzle — Klassisch" in titles and "Nepal-Blöcke" in titles
    assert Settings.load().language == "de"
    button = view.language_button.rect
    ui.click(button.center_x, button.center_y)   # a real click on the button
    assert i18n.language() == "es"
    assert ui.view.challenge_button.label == "Código de reto"
    ui.key("l")
    assert ui.view.title.text == "Blockyard"
    assert "नेपाल ब्लक्स" in [entry.title for entry in ui.view.entries]
    ui.key("l")
    assert i18n.language() == "en"
    assert Settings.load().language == "en"


def test_the_chosen_language_is_used_at_the_next_start(ui):
    ui.app.set_language("ne")
    i18n.set_language("en")            # as a fresh process would start
    app = BlockyardApp(ui.window)
    assert i18n.language() == "ne"
    ui.window.app = app
    app.show_launcher()
    assert ui.view.language_button.label == "नेपाली"


def test_a_game_on_screen_is_rebuilt_in_the_new_language_with_its_digits(ui):
    game = ui.app.start_game("eu-classic", seed=3)
    game.score = 12480
    ui.view.refresh()
    assert ui.view.score_text.text == "12,480"
    ui.app.set_language("ne")
    view = ui.view
    assert view.game is game
    assert view.score_text.text == "१२,४८०"
    assert view.menu_button.label == "मेनु"
    assert view.action_buttons["end"].label == "चरण अन्त्य"
    ui.app.set_native_digits(False)
    assert ui.view.score_text.text == "12,480"
    assert Settings.load().native_digits is False
    ui.app.set_language("de")
    assert ui.view.score_text.text == "12.480"
    assert ui.view.menu_button.label == "Menü"


def test_a_daily_game_shows_its_date_in_the_language(ui):
    ui.app.set_language("es")
    game = ui.app.start_game("nepal-today")
    day = game.date
    import datetime as dt

    written = i18n.format_date(dt.date.fromisoformat(day))
    title = ui.view.title_text.text  # the name (cut short with "…" when long), the date
    name, date = title.rsplit("\n", 1)  # under it
    assert date == written
    assert name == "Bloques de Nepal — Partida de hoy" or (
        name.endswith("…") and "Bloques de Nepal — Partida de hoy".startswith(name[:-1]))


def _reference(string: str, pixels: int, shaped: bool) -> np.ndarray:
    """``string`` drawn by Pillow itself with Noto Sans Devanagari (Raqm or basic
    layout), as the coverage of each pixel."""
    engine = ImageFont.Layout.RAQM if shaped else ImageFont.Layout.BASIC
    face = ImageFont.truetype(str(text.FONT_DIR / "NotoSansDevanagari-Regular.ttf"), pixels,
                              layout_engine=engine)
    lay = text.layout(string, pixels, shaped=shaped)
    image = Image.new("L", (lay.width, lay.height), 0)
    kwargs = {"language": "ne"} if shaped else {}
    ImageDraw.Draw(image).text((0, lay.ascent), string, fill=255, font=face, anchor="ls",
                               **kwargs)
    return np.asarray(image, dtype=np.int16)


def test_shaping_is_available_on_this_machine():
    assert features.check("raqm"), "Pillow's Raqm layout needs libfribidi (scripts/setup.sh)"
    assert text.shaping_available()


def test_conjuncts_are_drawn_shaped_by_the_text_component(ui):
    pixels = 32
    label = text.Text(CONJUNCTS, 40, 300, arcade.color.WHITE, pixels / text.PIXELS_PER_POINT,
                      anchor_x="left", anchor_y="bottom")
    assert text.needs_shaping(label.text)
    window = ui.window
    window.clear(color=(0, 0, 0, 255))
    label.draw()
    shot = arcade.get_image(0, 0, window.width, window.height).convert("L")
    rect = label.shaped_rect()
    top = window.height - round(rect.top)
    drawn = np.asarray(shot.crop((round(rect.left), top, round(rect.left) + round(rect.width),
                                  top + round(rect.height))), dtype=np.int16)
    shaped = _reference(CONJUNCTS, pixels, shaped=True)
    unshaped = _reference(CONJUNCTS, pixels, shaped=False)
    assert drawn.shape == shaped.shape
    assert (label.content_width, label.content_height) == (shaped.shape[1], shaped.shape[0])
    # the component's texture on screen is Pillow's shaped rendering, pixel for pixel
    assert np.abs(drawn - shaped).max() <= 2
    assert np.count_nonzero(shaped > 128) > 500
    # and unlike the unshaped one (bare letters, visible halants)
    width = min(shaped.shape[1], unshaped.shape[1])
    assert np.abs(drawn[:, :width] - unshaped[:, :width]).mean() > 10
    assert shaped.shape[1] != unshaped.shape[1]


def test_a_text_is_rendered_again_only_when_it_changes(ui):
    label = text.Text("स्कोर १", 10, 10, arcade.color.WHITE, 20)
    before = text.cached_textures()
    label.draw()
    label.draw()
    label.color = arcade.color.RED   # colour is applied when drawing: no new rendering
    label.draw()
    assert text.cached_textures() == before + 1
    label.text = "स्कोर २"
    label.draw()
    assert text.cached_textures() == before + 2
    latin = text.Text("Score 1", 10, 10, arcade.color.WHITE, 20)
    latin.draw()                     # no Devanagari: drawn by pyglet, nothing rendered
    assert latin.shaped_rect() is None
    assert text.cached_textures() == before + 2


@pytest.mark.parametrize("code", ["de", "es", "ne"])
def test_every_screen_text_fits_its_button(ui, code):
    ui.app.set_language(code)
    ui.app.start_game("tiered", seed=1)
    view = ui.view
    for button in [view.menu_button, *view.action_buttons.values()]:
        assert button.text.content_width <= button.rect.width, (code, button.label)
    ui.app.show_launcher()
    view = ui.view
    for button in (view.challenge_button, view.language_button):
        assert button.text.content_width <= button.rect.width, (code, button.label)


def _face(pixels: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(text.FONT_DIR / "NotoSansDevanagari-Regular.ttf"), pixels,
                              layout_engine=ImageFont.Layout.RAQM)


def test_nga_conjuncts_are_stacked_where_the_shipped_font_can_stack_them():
    """Issue 25, item 13: ङ + consonant. Measured on the shipped Noto Sans Devanagari
    with Raqm: ङ्ग and ङ्म stack (ङ over the consonant) only when not shaped as
    Nepali (the font's Nepali forms unstack them), ङ्क, ङ्ख and ङ्घ stack in no
    language (no such glyph in the font). The window draws ढुङ्गा stacked, pixel for
    pixel Pillow's stacked rendering, while the rest of a line keeps its Nepali
    forms (झ, ५); अङ्क keeps its halant, as the font draws it."""
    assert features.check("raqm")
    pixels = 48
    face = _face(pixels)

    def width(string: str, language: str | None) -> float:
        return face.getlength(string, language=language)

    for consonant in "गम":
        stacked = "ङ्" + consonant
        assert width(stacked, None) < width("ङ्", None) + width(consonant, None) - 1
        assert width(stacked, "ne") == pytest.approx(width("ङ्", "ne") + width(consonant, "ne"))
    for consonant in "कखघ":
        for language in (None, "ne"):
            assert width("ङ्" + consonant, language) == pytest.approx(
                width("ङ्", language) + width(consonant, language))
    assert width("झ", "ne") != width("झ", None)  # a Nepali form the window keeps

    def drawn(string: str) -> np.ndarray:
        return np.asarray(text.render_image(string, pixels).getchannel("A"), dtype=np.int16)

    def pillow(string: str, language: str | None) -> np.ndarray:
        lay = text.layout(string, pixels)
        image = Image.new("L", (lay.width, lay.height), 0)
        ImageDraw.Draw(image).text((0, lay.ascent), string, fill=255, font=face, anchor="ls",
                                   language=language)
        return np.asarray(image, dtype=np.int16)

    word = drawn("ढुङ्गा")
    assert text.layout("ढुङ्गा", pixels).width == round(width("ढुङ्गा", None) + 0.499)
    assert np.abs(word - pillow("ढुङ्गा", None)).max() <= 2
    assert word.shape[1] < width("ढुङ्गा", "ne") - 10  # not the unstacked Nepali shape
    line = drawn("झ ५ ढुङ्गा")  # the Nepali forms of झ and ५ before it stay
    nepali = pillow("झ ५", "ne")
    assert np.abs(line[:, :nepali.shape[1] - 2] - nepali[:, :-2]).max() <= 2
    assert np.abs(drawn("अङ्क") - pillow("अङ्क", "ne")).max() <= 2  # the halant stays
    assert text.shaping_runs("अङ्ग्रेजी ढुङ्गामा") == [
        (text._DEVANAGARI, "अङ्ग्रेजी ढु", "ne"), (text._DEVANAGARI, "ङ्गा", text.STACKING_LANGUAGE),
        (text._DEVANAGARI, "मा", "ne")]
