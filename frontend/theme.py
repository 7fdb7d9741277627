"""Colours, fonts and the cell texture of the frontend."""

from __future__ import annotations

from functools import cache

import arcade
from PIL import Image, ImageDraw

Color = tuple[int, int, int, int]

BACKGROUND: Color = (24, 28, 48, 255)
BOARD_BG: Color = (36, 42, 70, 255)
EMPTY_CELL: Color = (52, 60, 96, 255)
TEXT: Color = (236, 238, 248, 255)
MUTED: Color = (150, 158, 190, 255)
ACCENT: Color = (255, 204, 64, 255)
GOOD: Color = (96, 220, 140, 255)
BAD: Color = (240, 96, 96, 255)
PANEL: Color = (44, 50, 84, 255)
PANEL_HOVER: Color = (64, 72, 118, 255)
OVERLAY: Color = (10, 12, 24, 200)
GLOW: Color = (255, 255, 255, 110)
DISABLED: Color = (30, 34, 56, 255)
DISABLED_EDGE: Color = (70, 76, 110, 255)
DISABLED_TEXT: Color = (120, 126, 156, 255)
BUTTON_EDGE: Color = (96, 106, 160, 255)
SELECTED: Color = (255, 204, 64, 70)
NO_FIT: Color = (24, 24, 32, 170)
GHOST_ALPHA = 120

# piece colours by colour index (1-based); more colours wrap around
PALETTE: tuple[Color, ...] = (
    (238, 84, 84, 255), (250, 160, 60, 255), (248, 214, 72, 255), (120, 210, 90, 255),
    (60, 200, 180, 255), (70, 160, 240, 255), (130, 110, 240, 255), (210, 100, 220, 255),
    (240, 120, 170, 255), (170, 200, 80, 255), (90, 130, 210, 255), (220, 150, 110, 255),
)
STONE: Color = (232, 226, 210, 255)
GOLDEN_STONE: Color = (250, 200, 60, 255)
SYMBOL_STONE: Color = (40, 40, 48, 255)

FONT = ("Arial", "Liberation Sans", "DejaVu Sans")


BLOCK_SHADE: Color = (44, 51, 84, 255)  # empty cells of every other block


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


NEUTRAL: Color = (150, 160, 190, 255)  # cells of a starting position, pieces from outside


def piece_colour(index: int, families: int | None = None) -> Color:
    """The colour of a filled cell with colour index ``index`` (> 0). Indexes past
    the ruleset's ``families`` (pre-filled cells, custom pieces) are neutral."""
    if families is not None and index > families:
        return NEUTRAL
    return PALETTE[(index - 1) % len(PALETTE)]


@cache
def cell_texture() -> arcade.Texture:
    """A white rounded tile with a soft bevel, tinted per cell with ``sprite.color``."""
    size = 64
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((2, 2, size - 3, size - 3), radius=10, fill=(214, 214, 214, 255))
    draw.rounded_rectangle((6, 6, size - 7, size - 9), radius=8, fill=(255, 255, 255, 255))
    draw.rounded_rectangle((10, 8, size - 11, 18), radius=5, fill=(255, 255, 255, 255))
    return arcade.Texture(image, hash="blockyard-cell")
