"""Colours, fonts and the cell texture of the frontend."""

from __future__ import annotations

import math
from functools import cache

import arcade
from PIL import Image, ImageDraw

from blockyard.pieces import PieceLook

Color = tuple[int, int, int, int]

THEMES: dict[str, dict[str, Color]] = {
    "dark": {
        "BACKGROUND": (24, 28, 48, 255), "BOARD_BG": (36, 42, 70, 255),
        "EMPTY_CELL": (52, 60, 96, 255), "BLOCK_SHADE": (44, 51, 84, 255),
        "TEXT": (236, 238, 248, 255), "MUTED": (150, 158, 190, 255),
        "ACCENT": (255, 204, 64, 255), "GOOD": (96, 220, 140, 255), "BAD": (240, 96, 96, 255),
        "PANEL": (44, 50, 84, 255), "PANEL_HOVER": (64, 72, 118, 255),
        "OVERLAY": (10, 12, 24, 200), "SCRIM": (10, 12, 24, 140), "GLOW": (255, 250, 220, 160),
        "DISABLED": (30, 34, 56, 255), "DISABLED_EDGE": (70, 76, 110, 255),
        "DISABLED_TEXT": (120, 126, 156, 255), "BUTTON_EDGE": (96, 106, 160, 255),
        "SELECTED": (255, 204, 64, 70), "NO_FIT": (24, 24, 32, 170),
        "NEUTRAL": (150, 160, 190, 255), "STONE": (232, 226, 210, 255),
        "GOLDEN_STONE": (250, 200, 60, 255), "SYMBOL_STONE": (40, 40, 48, 255),
        "SYMBOL_INK": (250, 250, 255, 255),
        "CHART": (96, 170, 255, 255), "GRID": (70, 78, 116, 255), "GO": (40, 120, 80, 255),
    },
    "light": {
        "BACKGROUND": (238, 240, 246, 255), "BOARD_BG": (196, 202, 220, 255),
        "EMPTY_CELL": (226, 230, 240, 255), "BLOCK_SHADE": (210, 216, 232, 255),
        "TEXT": (22, 26, 44, 255), "MUTED": (78, 86, 114, 255),
        "ACCENT": (150, 82, 0, 255), "GOOD": (20, 120, 56, 255), "BAD": (186, 28, 28, 255),
        "PANEL": (214, 220, 236, 255), "PANEL_HOVER": (188, 198, 228, 255),
        "OVERLAY": (238, 240, 246, 215), "SCRIM": (22, 26, 44, 110),
        "GLOW": (255, 170, 0, 150),
        "DISABLED": (226, 228, 236, 255), "DISABLED_EDGE": (176, 180, 198, 255),
        "DISABLED_TEXT": (120, 124, 144, 255), "BUTTON_EDGE": (110, 122, 176, 255),
        "SELECTED": (150, 82, 0, 50), "NO_FIT": (60, 60, 72, 140),
        "NEUTRAL": (130, 138, 162, 255), "STONE": (250, 246, 234, 255),
        "GOLDEN_STONE": (250, 200, 60, 255), "SYMBOL_STONE": (40, 40, 48, 255),
        "SYMBOL_INK": (250, 250, 255, 255),
        "CHART": (20, 90, 200, 255), "GRID": (180, 186, 206, 255), "GO": (140, 214, 160, 255),
    },
    "high-contrast": {
        "BACKGROUND": (0, 0, 0, 255), "BOARD_BG": (0, 0, 0, 255),
        "EMPTY_CELL": (38, 38, 38, 255), "BLOCK_SHADE": (70, 70, 70, 255),
        "TEXT": (255, 255, 255, 255), "MUTED": (225, 225, 225, 255),
        "ACCENT": (255, 240, 0, 255), "GOOD": (0, 255, 120, 255), "BAD": (255, 90, 90, 255),
        "PANEL": (16, 16, 16, 255), "PANEL_HOVER": (0, 0, 150, 255),
        "OVERLAY": (0, 0, 0, 235), "SCRIM": (0, 0, 0, 160), "GLOW": (255, 240, 0, 170),
        "DISABLED": (0, 0, 0, 255), "DISABLED_EDGE": (150, 150, 150, 255),
        "DISABLED_TEXT": (165, 165, 165, 255), "BUTTON_EDGE": (255, 240, 0, 255),
        "SELECTED": (255, 240, 0, 80), "NO_FIT": (0, 0, 0, 200),
        "NEUTRAL": (200, 200, 200, 255), "STONE": (255, 255, 255, 255),
        "GOLDEN_STONE": (255, 210, 0, 255), "SYMBOL_STONE": (60, 0, 120, 255),
        "SYMBOL_INK": (255, 255, 255, 255),
        "CHART": (0, 230, 255, 255), "GRID": (120, 120, 120, 255), "GO": (0, 100, 0, 255),
    },
}
"""The window's colour themes by setting name (see :func:`apply`)."""

THEME_NAMES = tuple(THEMES)

BACKGROUND: Color = THEMES["dark"]["BACKGROUND"]
BOARD_BG: Color = THEMES["dark"]["BOARD_BG"]
EMPTY_CELL: Color = THEMES["dark"]["EMPTY_CELL"]
BLOCK_SHADE: Color = THEMES["dark"]["BLOCK_SHADE"]  # empty cells of every other block
TEXT: Color = THEMES["dark"]["TEXT"]
MUTED: Color = THEMES["dark"]["MUTED"]
ACCENT: Color = THEMES["dark"]["ACCENT"]
GOOD: Color = THEMES["dark"]["GOOD"]
BAD: Color = THEMES["dark"]["BAD"]
PANEL: Color = THEMES["dark"]["PANEL"]
PANEL_HOVER: Color = THEMES["dark"]["PANEL_HOVER"]
OVERLAY: Color = THEMES["dark"]["OVERLAY"]  # behind a bar of controls over a screen
# over a screen under a dialog: dims it, a dark veil in every theme (a light one
# washed the light theme's board out to white); the dialog stands on a CARD
SCRIM: Color = THEMES["dark"]["SCRIM"]
GLOW: Color = THEMES["dark"]["GLOW"]
DISABLED: Color = THEMES["dark"]["DISABLED"]
DISABLED_EDGE: Color = THEMES["dark"]["DISABLED_EDGE"]
DISABLED_TEXT: Color = THEMES["dark"]["DISABLED_TEXT"]
BUTTON_EDGE: Color = THEMES["dark"]["BUTTON_EDGE"]
SELECTED: Color = THEMES["dark"]["SELECTED"]
NO_FIT: Color = THEMES["dark"]["NO_FIT"]
NEUTRAL: Color = THEMES["dark"]["NEUTRAL"]  # cells of a starting position, pieces from outside
STONE: Color = THEMES["dark"]["STONE"]
GOLDEN_STONE: Color = THEMES["dark"]["GOLDEN_STONE"]
SYMBOL_STONE: Color = THEMES["dark"]["SYMBOL_STONE"]
SYMBOL_INK: Color = THEMES["dark"]["SYMBOL_INK"]  # ✦ and ★ on a symbol stone
CHART: Color = THEMES["dark"]["CHART"]
GRID: Color = THEMES["dark"]["GRID"]
GO: Color = THEMES["dark"]["GO"]  # the button that goes on (play again, start)
GHOST_ALPHA = 120

PALETTES: dict[str, tuple[Color, ...]] = {
    # piece colours by colour index (1-based); more colours wrap around
    "standard": (
        (238, 84, 84, 255), (250, 160, 60, 255), (248, 214, 72, 255), (120, 210, 90, 255),
        (60, 200, 180, 255), (70, 160, 240, 255), (130, 110, 240, 255), (210, 100, 220, 255),
        (240, 120, 170, 255), (170, 200, 80, 255), (90, 130, 210, 255), (220, 150, 110, 255),
    ),
    # eight colours that stay at least ΔE 20 apart from each other and from every
    # theme's empty cells under protanopia, deuteranopia and tritanopia (tested)
    "colour-blind": (
        (224, 32, 0, 255), (0, 224, 128, 255), (64, 64, 224, 255), (224, 192, 64, 255),
        (160, 64, 192, 255), (96, 160, 128, 255), (160, 64, 64, 255), (128, 128, 160, 255),
    ),
}
"""Piece palettes by setting name."""

PALETTE: tuple[Color, ...] = PALETTES["standard"]
PATTERNS = ("dot", "horizontal", "vertical", "diagonal", "cross", "ring", "checker", "corner")
"""The pattern drawn on each colour index (wrapping like the palette) when patterns are on."""
patterns_on = False
current_theme = "dark"


def apply(theme: str = "dark", palette: str = "standard", patterns: bool = False) -> None:
    """Make ``theme``, ``palette`` and the pattern choice the ones every view draws
    with from the next frame on (views rebuild their texts; see ``BlockyardApp``)."""
    global PALETTE, patterns_on, current_theme
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r} (choose from {', '.join(THEMES)})")
    if palette not in PALETTES:
        raise ValueError(f"unknown palette {palette!r} (choose from {', '.join(PALETTES)})")
    globals().update(THEMES[theme])
    current_theme = theme
    PALETTE = PALETTES[palette]
    patterns_on = patterns


FONT = ("Arial", "Liberation Sans", "DejaVu Sans")
"""The window's font, the first of these the system has. A glyph it lacks (Arial
and Liberation Sans have none of ◀ ▶ ✗ ✦ ★ ✓) is drawn from the shipped Noto
fonts instead, glyph by glyph (:func:`blockyard.frontend.text.use_shipped_fallbacks`)."""

SYMBOLS = "·×–—…•«»„“”’¡¿§°←↑→↓↺−◀▶▼★✦✓✗❚"
"""Every character other than letters, digits, ASCII punctuation and spaces that the
window shows: in its screens (the Settings choosers' ◀ ▶, the replay's "Step ▶",
Sudoku Bloxx's ✦ symbol stones, ★ jokers and ✗ errors, the launcher's ▶ ▼ and
arrows, "Copied ✓"), its catalogues in every language (↺ ❚ ✓, quotation marks)
and the rule files' texts (§ °). tests/frontend/test_symbols_drawn.py draws each,
and any other such character it finds in those places, in a real window with the
system's fonts, and checks by its pixels that it is drawn, not a missing-glyph box."""



def luminance(color: Color) -> float:
    """Relative luminance of an sRGB colour (WCAG 2)."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in color[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Color, b: Color) -> float:
    """The WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def piece_colour(index: int, families: int | None = None) -> Color:
    """The colour of a filled cell with colour index ``index`` (> 0). Indexes past
    the ruleset's ``families`` (pre-filled cells, custom pieces) are neutral."""
    if families is not None and index > families:
        return NEUTRAL
    return PALETTE[(index - 1) % len(PALETTE)]


def pattern_of(index: int) -> str:
    """The pattern of colour index ``index`` (> 0), or ``""`` when patterns are off."""
    if not patterns_on or index <= 0:
        return ""
    return PATTERNS[(index - 1) % len(PALETTE) % len(PATTERNS)]


def piece_texture(index: int, look: PieceLook | None = None) -> arcade.Texture:
    """The tile texture of a cell of colour index ``index`` (patterned or plain),
    drawn with its family's ``look`` (``ruleset.looks``): the look's mark takes
    the place of the colour-blind pattern (a mark already tells the family by
    shape), its outline is drawn in every theme and palette."""
    mark = look.mark if look is not None else None
    outline = look is not None and look.outline
    return cell_texture("" if mark else pattern_of(index), mark, outline)


MARK_INK = (40, 40, 40, 255)
"""The ink of a piece look's mark and outline: dark, so it stays dark under every
piece colour the tile is tinted with."""


def _draw_mark(draw: ImageDraw.ImageDraw, mark: str, size: int) -> None:
    """Draw a piece look's ``mark`` (one of :data:`blockyard.pieces.MARKS`) in the
    middle of a ``size`` tile."""
    mid = size / 2
    ink = MARK_INK

    def star(points: int, outer: float, inner: float) -> list[tuple[float, float]]:
        out = []
        for i in range(points * 2):
            radius = outer if i % 2 == 0 else inner
            angle = math.pi * i / points - math.pi / 2
            out.append((mid + radius * math.cos(angle), mid + radius * math.sin(angle)))
        return out

    if mark == "star":
        draw.polygon(star(5, 20, 8.5), fill=ink)
    elif mark == "burst":
        draw.polygon(star(8, 21, 9), fill=ink)
    elif mark == "diamond":
        draw.polygon([(mid, mid - 19), (mid + 14, mid), (mid, mid + 19), (mid - 14, mid)],
                     fill=ink)
    elif mark == "ring":
        draw.ellipse((mid - 16, mid - 16, mid + 16, mid + 16), outline=ink, width=6)
    elif mark == "dot":
        draw.ellipse((mid - 11, mid - 11, mid + 11, mid + 11), fill=ink)
    elif mark == "cross":
        draw.rectangle((mid - 4, mid - 18, mid + 4, mid + 18), fill=ink)
        draw.rectangle((mid - 18, mid - 4, mid + 18, mid + 4), fill=ink)
    elif mark == "bolt":
        draw.polygon([(mid + 4, mid - 21), (mid - 12, mid + 3), (mid - 1, mid + 3),
                      (mid - 5, mid + 21), (mid + 12, mid - 4), (mid + 1, mid - 4)], fill=ink)
    elif mark == "heart":
        draw.ellipse((mid - 17, mid - 13, mid + 1, mid + 5), fill=ink)
        draw.ellipse((mid - 1, mid - 13, mid + 17, mid + 5), fill=ink)
        draw.polygon([(mid - 16, mid), (mid + 16, mid), (mid, mid + 17)], fill=ink)
    else:
        raise ValueError(f"unknown mark {mark!r}")


@cache
def cell_texture(pattern: str = "", mark: str | None = None,
                 outline: bool = False) -> arcade.Texture:
    """A white rounded tile with a soft bevel, tinted per cell with ``sprite.color``;
    with a ``pattern`` (one of :data:`PATTERNS`) drawn on it in dark grey, so
    colours also differ in shape; with a piece look's ``mark`` and ``outline``
    (see :func:`piece_texture`)."""
    size = 64
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((2, 2, size - 3, size - 3), radius=10, fill=(214, 214, 214, 255))
    draw.rounded_rectangle((6, 6, size - 7, size - 9), radius=8, fill=(255, 255, 255, 255))
    draw.rounded_rectangle((10, 8, size - 11, 18), radius=5, fill=(255, 255, 255, 255))
    ink = (70, 70, 70, 255)
    lo, hi, mid = 14, size - 15, size // 2
    if pattern == "dot":
        draw.ellipse((mid - 9, mid - 9, mid + 9, mid + 9), fill=ink)
    elif pattern == "horizontal":
        for y in (20, 31, 42):
            draw.rectangle((lo, y, hi, y + 4), fill=ink)
    elif pattern == "vertical":
        for x in (20, 31, 42):
            draw.rectangle((x, lo, x + 4, hi), fill=ink)
    elif pattern == "diagonal":
        for k in (-14, 0, 14):
            draw.line((lo + max(0, k), hi - max(0, -k), hi - max(0, -k), lo + max(0, k)),
                      fill=ink, width=5)
    elif pattern == "cross":
        draw.line((lo, lo, hi, hi), fill=ink, width=6)
        draw.line((lo, hi, hi, lo), fill=ink, width=6)
    elif pattern == "ring":
        draw.ellipse((mid - 16, mid - 16, mid + 16, mid + 16), outline=ink, width=5)
    elif pattern == "checker":
        step = (hi - lo) // 4
        for i in range(4):
            for j in range(4):
                if (i + j) % 2 == 0:
                    draw.rectangle((lo + i * step, lo + j * step, lo + (i + 1) * step - 1,
                                    lo + (j + 1) * step - 1), fill=ink)
    elif pattern == "corner":
        draw.polygon([(lo, hi), (hi, hi), (lo, lo)], fill=ink)
    elif pattern:
        raise ValueError(f"unknown pattern {pattern!r}")
    if mark is not None:
        _draw_mark(draw, mark, size)
    if outline:
        draw.rounded_rectangle((2, 2, size - 3, size - 3), radius=10, outline=MARK_INK, width=5)
    name = pattern or "plain"
    if mark is not None:
        name += f"-mark-{mark}"
    if outline:
        name += "-outline"
    return arcade.Texture(image, hash=f"blockyard-cell-{name}")
