"""Small drawing helpers shared by the views: buttons and pieces as sprites."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import arcade

from . import theme
from .layout import Rect


class Button:
    """A clickable rectangle with a label. ``action`` runs on click."""

    def __init__(self, label: str, action: Callable[[], None], *, font_size: float = 16,
                 color: theme.Color = theme.PANEL) -> None:
        self.rect = Rect(0, 0, 0, 0)
        self.action = action
        self.color = color
        self.visible = True
        self.enabled = True
        self.hover = False
        self.text = arcade.Text(label, 0, 0, theme.TEXT, font_size, anchor_x="center",
                                anchor_y="center", font_name=theme.FONT, bold=True)

    @property
    def label(self) -> str:
        return self.text.text

    @label.setter
    def label(self, value: str) -> None:
        if self.text.text != value:
            self.text.text = value

    def place(self, rect: Rect, font_size: float | None = None) -> None:
        self.rect = rect
        self.text.x, self.text.y = rect.center_x, rect.center_y
        if font_size is not None:
            self.text.font_size = font_size

    def hit(self, x: float, y: float) -> bool:
        return self.visible and self.enabled and self.rect.contains(x, y)

    def draw(self) -> None:
        if not self.visible:
            return
        r = self.rect
        color = theme.PANEL_HOVER if self.hover and self.enabled else self.color
        if not self.enabled:
            color = (color[0], color[1], color[2], 110)
        arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, color)
        self.text.draw()


def click_buttons(buttons: Iterable[Button], x: float, y: float) -> bool:
    """Run the action of the button under ``(x, y)``; True if one was hit."""
    for button in buttons:
        if button.hit(x, y):
            button.action()
            return True
    return False


def hover_buttons(buttons: Iterable[Button], x: float, y: float) -> None:
    for button in buttons:
        button.hover = button.rect.contains(x, y)


def cell_sprite(color: theme.Color, size: float, x: float = 0, y: float = 0) -> arcade.Sprite:
    """A tile sprite of ``size`` pixels centred on ``(x, y)``."""
    sprite = arcade.Sprite(theme.cell_texture(), center_x=x, center_y=y)
    sprite.width = sprite.height = size
    sprite.color = color
    return sprite


def piece_sprites(cells: Iterable[tuple[int, int]], color: theme.Color, size: float,
                  left: float, top: float, sprites: arcade.SpriteList | None = None
                  ) -> arcade.SpriteList:
    """Sprites for a piece whose bounding box's top-left corner is at ``(left, top)``."""
    out = sprites if sprites is not None else arcade.SpriteList()
    for r, c in cells:
        out.append(cell_sprite(color, size * 0.96, left + (c + 0.5) * size,
                               top - (r + 0.5) * size))
    return out
