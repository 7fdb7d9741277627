"""The window's text component: :class:`Text`, which also shapes complex scripts.

Arcade draws text with pyglet, which places one glyph per character and does
no shaping: Devanagari conjuncts (क्ष, त्र, ष्ठ, स्क) come out as bare letters
with visible halants, and vowel signs such as ि land on the wrong side. This
module's :class:`Text` is an :class:`arcade.Text` (same arguments, properties
and :meth:`~Text.draw`) that, when its text contains Devanagari, draws it from a
texture shaped and rendered by Pillow with the Raqm layout engine (HarfBuzz)
instead, with the fonts shipped in ``assets/fonts`` (Noto Sans Devanagari, and
Noto Sans and two symbol fonts for the Latin letters, digits, arrows and shapes
mixed into Nepali texts), so no font is needed from the system. Texts without
Devanagari keep pyglet's path, which is cheaper to change every frame.

pyglet draws them with the window's font (``theme.FONT``: Arial, Liberation Sans
or DejaVu Sans, whichever the system has), and on Linux it takes no missing
glyph from another font on its own: Liberation Sans and Arial have no ◀ ▶ ✗ ✦ ★
✓, which came out as empty boxes. :func:`use_shipped_fallbacks` (called when
the first :class:`Text` is made) registers the shipped Noto fonts with pyglet
and gives every font pyglet loads from then on those fonts as fallbacks, glyph
by glyph: a character the system's font lacks is drawn from Noto Sans, Noto Sans
Symbols 2 or Noto Sans Math, whatever fonts the system has
(``theme.SYMBOLS`` lists the signs the window shows;
tests/frontend/test_symbols_drawn.py draws each).

Rendered texts are cached (:func:`render`, keyed by text, pixel size, weight,
wrap width and alignment; at most :data:`CACHE_SIZE` of them): a text is
rendered again only when its text or size changes; its colour is applied when
drawing, so a change of colour costs nothing.

Raqm needs the FriBiDi library at run time (Pillow's wheels bundle Raqm and
HarfBuzz and load ``libfribidi`` from the system; it comes with every desktop's
GTK/Pango, and ``scripts/setup.sh`` installs ``libfribidi0`` where it is
missing). Without it, :func:`shaping_available` is False and texts are drawn
with Pillow's basic layout: readable letters, but unshaped.
"""

from __future__ import annotations

import hashlib
import re
import struct
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import arcade
import pyglet
from PIL import Image, ImageDraw, ImageFont, features

FONT_DIR = Path(__file__).resolve().parent / "assets" / "fonts"
CACHE_SIZE = 512
#: pyglet sizes fonts in points at 96 dots per inch; Pillow in pixels.
PIXELS_PER_POINT = 96 / 72

# (first, last) code points of the scripts drawn through the shaper
_COMPLEX = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x1CD0, 0x1CFF), (0x11B00, 0x11B5F))

# the font of each run of characters: Devanagari, arrows, shapes, else Latin
_DEVANAGARI, _LATIN, _ARROWS, _SHAPES = range(4)
_FONT_FILES = {
    (_DEVANAGARI, False): "NotoSansDevanagari-Regular.ttf",
    (_DEVANAGARI, True): "NotoSansDevanagari-Bold.ttf",
    (_LATIN, False): "NotoSans-Regular.ttf",
    (_LATIN, True): "NotoSans-Bold.ttf",
    (_ARROWS, False): "NotoSansMath-Arrows.ttf",
    (_ARROWS, True): "NotoSansMath-Arrows.ttf",
    (_SHAPES, False): "NotoSansSymbols2-Shapes.ttf",
    (_SHAPES, True): "NotoSansSymbols2-Shapes.ttf",
}
_ARROW_RANGES = ((0x2190, 0x21FF), (0x2900, 0x297F))
_SHAPE_RANGES = ((0x2300, 0x23FF), (0x25A0, 0x27BF), (0x2B00, 0x2BFF))
_JOINERS = {"\u200c", "\u200d", " ", "\u00a0"}


@lru_cache(maxsize=4096)
def needs_shaping(text: str) -> bool:
    """Whether ``text`` has characters of a script that pyglet cannot draw (Devanagari);
    remembered per text, as every draw of every text asks."""
    return any(first <= ord(ch) <= last for ch in text for first, last in _COMPLEX)


def shaping_available() -> bool:
    """Whether Pillow's Raqm layout (HarfBuzz shaping) works on this machine."""
    return bool(features.check("raqm"))


def _in(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    code = ord(ch)
    return any(first <= code <= last for first, last in ranges)


# the ASCII characters Noto Sans Devanagari has too (digits, punctuation): drawn with
# it, so "उत्कृष्ट 12,480" is one run (one shaping call) instead of three
_DEVANAGARI_ASCII = frozenset(chr(c) for c in range(0x20, 0x7F)) - set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz$&@`")


def _preferred_font(ch: str) -> int:
    if _in(ch, _COMPLEX) or ch in "।॥" or ch in _DEVANAGARI_ASCII:
        return _DEVANAGARI
    if _in(ch, _ARROW_RANGES):
        return _ARROWS
    if _in(ch, _SHAPE_RANGES):
        return _SHAPES
    return _LATIN


def _cmap(path: Path) -> frozenset[int]:
    """The code points a TrueType/OpenType font has glyphs for (its Unicode ``cmap``
    subtables of format 4 and 12; enough for the shipped fonts)."""
    data = path.read_bytes()
    (tables,) = struct.unpack_from(">H", data, 4)
    offset = next((struct.unpack_from(">I", data, 12 + 16 * i + 8)[0] for i in range(tables)
                   if data[12 + 16 * i:16 + 16 * i] == b"cmap"), None)
    if offset is None:
        return frozenset()
    codes: set[int] = set()
    (count,) = struct.unpack_from(">H", data, offset + 2)
    for i in range(count):
        platform, encoding, sub = struct.unpack_from(">HHI", data, offset + 4 + 8 * i)
        if (platform, encoding) not in ((0, 3), (0, 4), (3, 1), (3, 10)):
            continue
        at = offset + sub
        (kind,) = struct.unpack_from(">H", data, at)
        if kind == 4:
            (segments,) = struct.unpack_from(">H", data, at + 6)
            segments //= 2
            ends = struct.unpack_from(f">{segments}H", data, at + 14)
            starts = struct.unpack_from(f">{segments}H", data, at + 16 + 2 * segments)
            deltas = struct.unpack_from(f">{segments}h", data, at + 16 + 4 * segments)
            ranges_at = at + 16 + 6 * segments
            offsets = struct.unpack_from(f">{segments}H", data, ranges_at)
            for k, (start, end) in enumerate(zip(starts, ends, strict=True)):
                for code in range(start, end + 1):
                    if code == 0xFFFF:
                        continue
                    if offsets[k] == 0:
                        glyph = (code + deltas[k]) & 0xFFFF
                    else:
                        where = ranges_at + 2 * k + offsets[k] + 2 * (code - start)
                        (glyph,) = struct.unpack_from(">H", data, where)
                        glyph = (glyph + deltas[k]) & 0xFFFF if glyph else 0
                    if glyph:
                        codes.add(code)
        elif kind == 12:
            (groups,) = struct.unpack_from(">I", data, at + 12)
            for k in range(groups):
                start, end, first = struct.unpack_from(">III", data, at + 16 + 12 * k)
                codes.update(range(start + (first == 0), end + 1))
    return frozenset(codes)


@lru_cache(maxsize=8)
def _coverage(which: int) -> frozenset[int]:
    return _cmap(FONT_DIR / _FONT_FILES[which, False]) & _cmap(FONT_DIR / _FONT_FILES[which, True])


def covers(which: int, ch: str) -> bool:
    """Whether the shipped font ``which`` (regular and bold) has a glyph for ``ch``."""
    return ord(ch) in _coverage(which)


def _font_of(ch: str) -> int:
    """The font ``ch`` is drawn with: the one meant for its kind of character when that
    font has it (a minus sign, an arrow), else the first shipped font that has it."""
    preferred = _preferred_font(ch)
    if covers(preferred, ch):
        return preferred
    return next((which for which in (_DEVANAGARI, _LATIN, _ARROWS, _SHAPES)
                 if covers(which, ch)), preferred)


def missing_glyphs(text: str) -> str:
    """The characters of ``text`` (other than line breaks) that the font chosen for
    them cannot draw: empty when every glyph is drawn."""
    return "".join(dict.fromkeys(ch for which, part in runs(text) for ch in part
                                 if ch not in "\n\r" and not covers(which, ch)))


def runs(text: str) -> list[tuple[int, str]]:
    """``text`` cut into runs drawn with one font each: ``(font, characters)``. Spaces,
    joiners and combining marks stay in the run they follow (when its font has them),
    so a word is shaped whole."""
    out: list[tuple[int, str]] = []
    for ch in text:
        attached = ch in _JOINERS or unicodedata.category(ch) in ("Mn", "Mc", "Me")
        font = out[-1][0] if out and attached and covers(out[-1][0], ch) else _font_of(ch)
        if out and out[-1][0] == font:
            out[-1] = (font, out[-1][1] + ch)
        else:
            out.append((font, ch))
    return out


FALLBACK_FONTS: tuple[tuple[str, str, bool], ...] = (
    ("NotoSans", "Noto Sans", True),
    ("NotoSansSymbols2-Shapes", "Noto Sans Symbols2", False),
    ("NotoSansMath-Arrows", "Noto Sans Math", False),
)
"""The shipped fonts pyglet's fonts borrow a missing glyph from, in the order they
are asked: ``(file name stem, family name, whether it has a bold face)``. The stem
of a font with a bold face is completed with ``-Regular`` and ``-Bold``."""

_fallbacks_in_use = False


def _fallback_files() -> list[Path]:
    return [FONT_DIR / name for stem, _family, has_bold in FALLBACK_FONTS
            for name in ((f"{stem}-Regular.ttf", f"{stem}-Bold.ttf") if has_bold
                         else (f"{stem}.ttf",))]


@lru_cache(maxsize=1)
def fallback_glyphs() -> frozenset[int]:
    """The code points the :data:`FALLBACK_FONTS` have glyphs for (in their regular
    faces): a character among them is drawn whatever font the system has."""
    return frozenset().union(*(_cmap(path) for path in _fallback_files()
                               if not path.stem.endswith("-Bold")))


def use_shipped_fallbacks() -> None:
    """Register the :data:`FALLBACK_FONTS` with pyglet and make every font that
    ``pyglet.font.load`` returns from now on borrow the glyphs it lacks from them
    (pyglet's ``Font.add_fallback``), each at the font's own size, its weight when
    the fallback has it, else regular. Fonts that have the glyph themselves draw it;
    a character no font has keeps the window's font's missing-glyph box. Done once
    per process; later calls do nothing."""
    global _fallbacks_in_use
    if _fallbacks_in_use:
        return
    for path in _fallback_files():
        pyglet.font.add_file(str(path))
    load = pyglet.font.load
    families = {family for _stem, family, _bold in FALLBACK_FONTS}

    def load_with_fallbacks(name: Any = None, size: float | None = None,
                            weight: str = "normal", italic: bool | str = False,
                            stretch: bool | str = False,
                            dpi: int | None = None) -> pyglet.font.base.Font:
        loaded = load(name, size, weight=weight, italic=italic, stretch=stretch, dpi=dpi)
        if loaded.fallbacks or loaded.name in families:
            return loaded  # given them when first loaded (or one of them)
        for _stem, family, has_bold in FALLBACK_FONTS:
            fallback = load(family, size, weight=weight if has_bold else "normal", dpi=dpi)
            if fallback.name == family:  # the shipped face, never a system stand-in
                loaded.add_fallback(fallback)
        return loaded

    pyglet.font.load = load_with_fallbacks
    _fallbacks_in_use = True


@lru_cache(maxsize=256)
def font(which: int, bold: bool, pixels: int, shaped: bool = True) -> ImageFont.FreeTypeFont:
    """The shipped font ``which`` at ``pixels`` pixels per em."""
    engine = (ImageFont.Layout.RAQM if shaped and shaping_available()
              else ImageFont.Layout.BASIC)
    return ImageFont.truetype(str(FONT_DIR / _FONT_FILES[which, bold]), pixels,
                              layout_engine=engine)


def _metrics(bold: bool, pixels: int, shaped: bool) -> tuple[int, int]:
    """The ascent and descent of a line: the largest of the fonts, so lines of
    different scripts stand on one baseline and have one height."""
    ascent = descent = 0
    for which in (_DEVANAGARI, _LATIN):
        a, d = font(which, bold, pixels, shaped).getmetrics()
        ascent, descent = max(ascent, a), max(descent, d)
    return ascent, descent


def _run_length(text: str, bold: bool, pixels: int, shaped: bool) -> float:
    return sum((font(which, bold, pixels, shaped).getlength(part, language=language)
                for which, part, language in shaping_runs(text, shaped)), 0.0)


def _language(which: int, shaped: bool) -> str | None:
    """The language a run of text is shaped in: Nepali for Devanagari when shaping
    is available, else none given."""
    shaped = shaped and shaping_available()
    return "ne" if which == _DEVANAGARI and shaped else None


# ङ followed by ग or म: the syllables the shipped Noto Sans Devanagari (2.001)
# stacks (ङ above the consonant, as Nepali is written) only when it is not asked
# for its Nepali forms, whose 'locl' lookups turn the stack back into ङ with a
# visible halant. Not followed by another halant (ङ्ग्र keeps its ग्र). The font
# has no stacked form of ङ with any other consonant (ङ्क of अङ्क, पङ्क्ति; ङ्ख, ङ्घ):
# those keep the halant in every language (tests/frontend/test_languages.py
# measures both).
STACKED_NGA = re.compile("ङ्[गम](?!\u094d)[\u0900-\u0903\u093a-\u094c\u094e\u094f"
                         "\u0955-\u0957\u0962\u0963]*")

STACKING_LANGUAGE = "hi"
"""The language a stacked ङ syllable is shaped in: the font's default Devanagari
forms (those of Hindi), which stack it. Given by name, never left unset: shaping
with no language takes the language of the process's locale, so on a desktop in
Nepali (``LANG=ne_NP.UTF-8``) an unset language is Nepali again and the halant
shows (tests/frontend/test_nepali_conjuncts.py draws it under that locale)."""


def shaping_runs(text: str, shaped: bool = True) -> list[tuple[int, str, str | None]]:
    """``text`` cut into the runs shaped one by one: ``(font, characters, language)``,
    the :func:`runs` with each stacked ङ syllable (:data:`STACKED_NGA`) of a
    Devanagari run shaped on its own in :data:`STACKING_LANGUAGE` instead of
    Nepali, so it stacks."""
    out: list[tuple[int, str, str | None]] = []
    for which, part in runs(text):
        language = _language(which, shaped)
        if language is None:
            out.append((which, part, language))
            continue
        start = 0
        for match in STACKED_NGA.finditer(part):
            if match.start() > start:
                out.append((which, part[start:match.start()], language))
            out.append((which, match.group(), STACKING_LANGUAGE))
            start = match.end()
        if start < len(part):
            out.append((which, part[start:], language))
    return out


@dataclass(frozen=True)
class Layout:
    """Where the lines of a shaped text go: its size and its first baseline."""

    lines: tuple[str, ...]
    widths: tuple[float, ...]
    width: int
    height: int
    ascent: int
    line_height: int


@lru_cache(maxsize=4096)
def layout(text: str, pixels: int, bold: bool = False, wrap: int | None = None,
           shaped: bool = True) -> Layout:
    """The lines of ``text`` (cut at newlines, and between words to fit ``wrap`` pixels
    when given) and the size of its image."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        if wrap is None:
            lines.append(paragraph)
            continue
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and _run_length(candidate, bold, pixels, shaped) > wrap:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    ascent, descent = _metrics(bold, pixels, shaped)
    line_height = ascent + descent
    widths = tuple(_run_length(line, bold, pixels, shaped) for line in lines)
    width = wrap if wrap is not None else max(1, int(max(widths, default=0) + 0.999))
    return Layout(tuple(lines), widths, max(1, width), max(1, line_height * len(lines)),
                  ascent, line_height)


def render_image(text: str, pixels: int, bold: bool = False, wrap: int | None = None,
                 align: str = "left", shaped: bool = True) -> Image.Image:
    """``text`` drawn in white on transparent pixels (RGBA), one line per line of its
    :func:`layout`, shaped with Raqm unless ``shaped`` is False (the basic layout that
    places one glyph per character, as pyglet does)."""
    lay = layout(text, pixels, bold, wrap, shaped)
    mask = Image.new("L", (lay.width, lay.height), 0)
    draw = ImageDraw.Draw(mask)
    for i, (line, line_width) in enumerate(zip(lay.lines, lay.widths, strict=True)):
        x = {"center": (lay.width - line_width) / 2,
             "right": lay.width - line_width}.get(align, 0.0)
        baseline = lay.ascent + i * lay.line_height
        for which, part, language in shaping_runs(line, shaped):
            face = font(which, bold, pixels, shaped)
            draw.text((x, baseline), part, fill=255, font=face, anchor="ls",
                      language=language)
            x += face.getlength(part, language=language)
    image = Image.new("RGBA", mask.size, (255, 255, 255, 0))
    image.putalpha(mask)
    return image


_textures: OrderedDict[tuple[object, ...], arcade.Texture] = OrderedDict()


def render(text: str, pixels: int, bold: bool = False, wrap: int | None = None,
           align: str = "left") -> arcade.Texture:
    """The texture of ``text`` (see :func:`render_image`), from the cache when it was
    rendered before; the least recently used of more than :data:`CACHE_SIZE` are dropped
    (and so leave the texture atlas)."""
    key = (text, pixels, bold, wrap, align)
    texture = _textures.get(key)
    if texture is not None:
        _textures.move_to_end(key)
        return texture
    image = render_image(text, pixels, bold, wrap, align)
    digest = hashlib.sha1(repr(key).encode("utf-8")).hexdigest()
    texture = arcade.Texture(image, hash=f"blockyard-text-{digest}")
    _textures[key] = texture
    while len(_textures) > CACHE_SIZE:
        _textures.popitem(last=False)
    return texture


def cached_textures() -> int:
    """How many rendered texts are cached."""
    return len(_textures)


class Text(arcade.Text):
    """An :class:`arcade.Text` that shapes Devanagari (see the module's description).

    Texts without Devanagari are drawn by :class:`arcade.Text` itself; a text with
    Devanagari is drawn from its cached texture, placed by ``x``, ``y``,
    ``anchor_x``, ``anchor_y`` (``baseline`` is the first line's) and ``align``,
    tinted with ``color``, and measured by ``content_width``/``content_height``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        use_shipped_fallbacks()  # before pyglet loads the font and draws a glyph
        super().__init__(*args, **kwargs)

    def _shaped_layout(self) -> Layout | None:
        text = self.text
        if not needs_shaping(text):
            return None
        return layout(text, self._pixels(), self._is_bold(), self._wrap())

    def _pixels(self) -> int:
        return max(1, round(self.font_size * PIXELS_PER_POINT))

    def _is_bold(self) -> bool:
        return self.bold not in (False, "normal", None, "")

    def _wrap(self) -> int | None:
        return int(self.width) if self.multiline and self.width else None

    @property
    def content_width(self) -> int:
        lay = self._shaped_layout()
        return lay.width if lay is not None else super().content_width

    @property
    def content_height(self) -> int:
        lay = self._shaped_layout()
        return lay.height if lay is not None else super().content_height

    def shaped_rect(self) -> arcade.types.Rect | None:
        """Where the shaped texture is drawn (None when pyglet draws the text)."""
        lay = self._shaped_layout()
        if lay is None:
            return None
        left = self.x - {"center": lay.width / 2, "right": lay.width}.get(self.anchor_x, 0)
        top = self.y + {"baseline": lay.ascent, "center": lay.height / 2,
                        "bottom": lay.height}.get(self.anchor_y, 0)
        return arcade.LBWH(round(left), round(top) - lay.height, lay.width, lay.height)

    def draw(self) -> None:
        rect = self.shaped_rect()
        if rect is None:
            super().draw()
            return
        if not self.visible:
            return
        texture = render(self.text, self._pixels(), self._is_bold(), self._wrap(), self.align)
        # drawn 1:1 at whole pixels: nearest sampling keeps Pillow's pixels exactly
        arcade.draw_texture_rect(texture, rect, color=self.color, pixelated=True)
